//! The Markdown tables and JSON texts the sample READMEs quote, printed as
//! `rung report` prints them.

use std::collections::{BTreeMap, BTreeSet};

use super::{Analysis, Classified, Finding, Metrics, RUNGS, Rate};

impl Analysis<'_> {
    /// `rung report ladder --format json` as rung prints it.
    pub fn ladder_json(ds: &[&Classified]) -> String {
        let labelled = ds.iter().filter(|d| d.label.is_some()).count();
        let rungs: serde_json::Map<String, serde_json::Value> = Self::ladder(ds)
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        pretty(&serde_json::json!({"decisions": ds.len(), "labelled": labelled, "rungs": rungs}))
    }
}

/// Markdown rows of a ladder count table, in ladder order.
pub fn ladder_table(ds: &[&Classified]) -> String {
    let counts = Analysis::ladder(ds);
    let mut s = String::from("| rung | decisions |\n| --- | ---: |\n");
    for r in RUNGS {
        s.push_str(&format!("| {r} | {} |\n", counts[r]));
    }
    s
}

/// Markdown rows of a metrics table.
pub fn metrics_table(m: &Metrics) -> String {
    let mut s = String::from("| metric | value |\n| --- | --- |\n");
    let mut row = |k: &str, r: &Rate| s.push_str(&format!("| {k} | {} |\n", r.show()));
    row("capability_coverage", &m.capability_coverage);
    row("exposure_recall", &m.exposure_recall);
    for (k, r) in &m.tool_recall_at_k {
        row(&format!("tool_recall_at_k.{k}"), r);
    }
    row("selection_accuracy", &m.selection_accuracy);
    row("abstention_accuracy", &m.abstention_accuracy);
    row("no_call_accuracy", &m.no_call_accuracy);
    row("violation_rate", &m.violation_rate);
    row("first_call_accuracy", &m.first_call_accuracy);
    row("recovery_within_3", &m.recovery_within_3);
    row("inconsistent_tasks", &m.inconsistent_tasks);
    for (k, (v, t)) in &m.pass_hat_k {
        s.push_str(&format!("| pass_hat_k.{k} | {v:.4} over {t} tasks |\n"));
    }
    if let Some((mean, p50, p95, n)) = m.definition_tokens {
        s.push_str(&format!(
            "| definition_tokens (estimate) | mean {mean:.1}, p50 {p50}, p95 {p95} over {n} decisions |\n"
        ));
    }
    s
}

/// Markdown rows of the confusion cells.
pub fn confusions_table(ds: &[&Classified]) -> String {
    let cells = Analysis::confusions(ds);
    let total: usize = cells.iter().map(|c| c.2).sum();
    let mut s = format!(
        "selection_failures: {total}\n\n| acceptable | selected | count | share |\n| --- | --- | ---: | ---: |\n"
    );
    for (a, sel, n) in cells {
        s.push_str(&format!(
            "| {} | {} | {n} | {:.4} |\n",
            a.join(", "),
            sel.as_deref().unwrap_or("(no call)"),
            n as f64 / total as f64
        ));
    }
    s
}

/// Markdown rows of findings counted by kind and tool (`rung report
/// findings`, its summary).
pub fn findings_summary_table(fs: &[Finding]) -> String {
    type Group<'a> = (usize, BTreeSet<&'a str>);
    let mut groups: BTreeMap<(&str, Option<&str>), Group> = BTreeMap::new();
    for f in fs {
        let g = groups.entry((f.kind, f.tool.as_deref())).or_default();
        g.0 += 1;
        g.1.extend(f.run_id.as_deref());
    }
    let mut s = String::from("| kind | tool | findings | runs |\n| --- | --- | ---: | ---: |\n");
    for ((kind, tool), (n, runs)) in groups {
        s.push_str(&format!(
            "| {kind} | {} | {n} | {} |\n",
            tool.unwrap_or("—"),
            runs.len()
        ));
    }
    s
}

/// Markdown rows of a findings list.
pub fn findings_table(fs: &[Finding]) -> String {
    let o = |x: &Option<String>| x.clone().unwrap_or("—".into());
    let mut s = String::from(
        "| kind | catalogue | task | run | step | tool |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for f in fs {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            f.kind,
            o(&f.catalogue),
            o(&f.task_id),
            o(&f.run_id),
            f.step.map(|s| s.to_string()).unwrap_or("—".into()),
            o(&f.tool)
        ));
    }
    s
}

/// `rung report metrics --format json`, one metric a line.
pub fn metrics_json(m: &Metrics) -> String {
    let rate = |r: &Rate| serde_json::json!({"value": r.value(), "numerator": r.num, "denominator": r.den});
    let mut rows: Vec<(String, serde_json::Value)> = vec![
        ("capability_coverage".into(), rate(&m.capability_coverage)),
        ("exposure_recall".into(), rate(&m.exposure_recall)),
        (
            "tool_recall_at_k".into(),
            serde_json::Value::Object(
                m.tool_recall_at_k
                    .iter()
                    .map(|(k, r)| (k.to_string(), rate(r)))
                    .collect(),
            ),
        ),
        ("selection_accuracy".into(), rate(&m.selection_accuracy)),
        ("abstention_accuracy".into(), rate(&m.abstention_accuracy)),
        ("no_call_accuracy".into(), rate(&m.no_call_accuracy)),
        ("violation_rate".into(), rate(&m.violation_rate)),
        ("first_call_accuracy".into(), rate(&m.first_call_accuracy)),
        ("recovery_within_3".into(), rate(&m.recovery_within_3)),
    ];
    // The four metrics over runs with expectations (format v1.1): no
    // sample sets expected calls or outputs, so each is empty.
    for k in [
        "expected_call_recall",
        "argument_accuracy",
        "runs_as_expected",
        "agreement_with_success",
    ] {
        rows.push((
            k.into(),
            serde_json::json!({"value": null, "numerator": 0, "denominator": 0}),
        ));
    }
    rows.push((
        "pass_hat_k".into(),
        serde_json::Value::Object(
            m.pass_hat_k
                .iter()
                .map(|(k, (v, t))| (k.to_string(), serde_json::json!({"value": v, "tasks": t})))
                .collect(),
        ),
    ));
    rows.push((
        "definition_tokens".into(),
        match m.definition_tokens {
            Some((mean, p50, p95, n)) => {
                serde_json::json!({"mean": mean, "p50": p50, "p95": p95, "decisions": n})
            }
            None => serde_json::json!({"mean": null, "p50": null, "p95": null, "decisions": 0}),
        },
    ));
    rows.push(("inconsistent_tasks".into(), rate(&m.inconsistent_tasks)));
    pretty(&serde_json::Value::Object(rows.into_iter().collect()))
}

/// JSON as `rung report ... --format json` prints it: serde_json's pretty
/// printer (two-space indent, keys in code point order, as rung's maps
/// keep them).
pub fn pretty(v: &serde_json::Value) -> String {
    format!("{v:#}")
}
