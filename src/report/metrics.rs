//! `rung report metrics`: a row per dotted metric key (the names `rung
//! check` takes). JSON is the spec's nested shape, serialised from
//! [`Metrics`] itself.

use super::model::{Cell, Column, Prose, Report, Shape, count};
use crate::error::Result;
use crate::metrics::{Metrics, Rate};

/// (key, rate) rows of the metrics report, nested keys dotted.
fn rates(m: &Metrics) -> Vec<(String, Rate)> {
    let mut v = vec![
        ("capability_coverage".to_string(), m.capability_coverage),
        ("exposure_recall".to_string(), m.exposure_recall),
    ];
    for (k, r) in &m.tool_recall_at_k {
        v.push((format!("tool_recall_at_k.{k}"), *r));
    }
    v.extend([
        ("selection_accuracy".to_string(), m.selection_accuracy),
        ("abstention_accuracy".to_string(), m.abstention_accuracy),
        ("no_call_accuracy".to_string(), m.no_call_accuracy),
        ("violation_rate".to_string(), m.violation_rate),
        ("first_call_accuracy".to_string(), m.first_call_accuracy),
        ("recovery_within_3".to_string(), m.recovery_within_3),
    ]);
    v.push(("inconsistent_tasks".to_string(), m.inconsistent_tasks));
    let e = &m.expectations;
    v.extend([
        ("expected_call_recall".to_string(), e.expected_call_recall),
        ("argument_accuracy".to_string(), e.argument_accuracy),
        ("runs_as_expected".to_string(), e.runs_as_expected),
        (
            "agreement_with_success".to_string(),
            e.agreement_with_success,
        ),
    ]);
    v
}

fn counted(n: u64, one: &'static str, many: &'static str) -> Cell {
    Cell::Counted { n, one, many }
}

pub fn build(m: &Metrics) -> Result<Report> {
    // pass^k puts its task count and definition tokens their decision count
    // where a rate has its denominator; a table reads it in "of".
    let mut r = Report::new(
        "Metrics",
        Shape::List("metrics"),
        vec![
            Column::new("metric", "metric").data_only(),
            Column::new("metric", "metric").reading_only(),
            Column::new("value", "value").right().none("n/a"),
            Column::new("numerator", "numerator").data_only(),
            Column::new("denominator", "denominator").data_only(),
            Column::new("of", "of").right().reading_only(),
        ],
    );
    // Numbers and maps keyed by integers (which JSON writes as strings).
    r.json = Some(serde_json::to_value(m)?);
    for (k, rate) in rates(m) {
        r.row(vec![
            Cell::text(&k),
            Cell::Text(k),
            Cell::opt_share(rate.value),
            Cell::Count(rate.numerator),
            Cell::Count(rate.denominator),
            Cell::Fraction {
                numerator: rate.numerator,
                denominator: rate.denominator,
            },
        ]);
    }
    for (k, p) in &m.pass_hat_k {
        let key = format!("pass_hat_k.{k}");
        r.row(vec![
            Cell::text(&key),
            Cell::Text(key),
            Cell::Decimal {
                value: p.value,
                places: 3,
            },
            Cell::None,
            Cell::Count(p.tasks),
            counted(p.tasks, "task", "tasks"),
        ]);
    }
    if m.pass_hat_k.is_empty() {
        // No run recorded success: say so rather than drop the row.
        r.reading_row(vec![
            Cell::text("pass_hat_k"),
            Cell::text("pass_hat_k"),
            Cell::None,
            Cell::None,
            Cell::None,
            counted(0, "task", "tasks"),
        ]);
    }
    let t = &m.definition_tokens;
    let tokens = [
        (
            "mean",
            t.mean.map(|value| Cell::Decimal { value, places: 1 }),
        ),
        ("p50", t.p50.map(Cell::Count)),
        ("p95", t.p95.map(Cell::Count)),
    ];
    for (i, (k, v)) in tokens.into_iter().enumerate() {
        r.row(vec![
            Cell::Text(format!("definition_tokens.{k}")),
            Cell::Text(format!("definition_tokens.{k} (estimate)")),
            v.unwrap_or(Cell::None),
            Cell::None,
            Cell::Count(t.decisions),
            // Said once, on the first of the three.
            if i == 0 {
                counted(t.decisions, "decision", "decisions")
            } else {
                Cell::None
            },
        ]);
    }
    let e = &m.expectations;
    if e.runs_as_expected.denominator > 0 {
        let a = &e.agreement_with_success;
        let agreement = if a.denominator > 0 {
            format!(
                "rung's verdict agrees with the recorded success on {} of {} ({}).",
                a.numerator,
                count(a.denominator, "run", "runs"),
                share(a.value)
            )
        } else {
            "none of them records a success to compare rung's verdict with.".to_string()
        };
        r.summary.push(Prose::both(format!(
            "{} with expectations, {} as expected; {agreement}",
            count(e.runs_as_expected.denominator, "run", "runs"),
            e.runs_as_expected.numerator
        )));
    }
    Ok(r)
}

fn share(v: Option<f64>) -> String {
    v.map(|v| format!("{:.1}%", v * 100.0)).unwrap_or_default()
}
