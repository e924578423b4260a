//! `rung report refusals`: refusals by (reason, stage) in the window, with
//! the window just before it for comparison. JSON is the spec's
//! `{window, rows, undated}`; CSV carries the window on every row so weekly
//! files can be appended.

use serde_json::json;

use super::model::{Cell, Column, Empty, Prose, Report, Shape, count, opt_or};
use crate::metrics::{RefusalReport, RefusalRow};
use crate::model::Timestamp;
use crate::redact::Redactor;

/// A row's change against the previous window, for reading.
pub fn change(count: u64, previous: u64) -> String {
    match (count, previous) {
        (c, 0) if c > 0 => "new".into(),
        (0, p) if p > 0 => "gone".into(),
        (c, p) => {
            let d = c as i64 - p as i64;
            if d > 0 {
                format!("+{d}")
            } else {
                d.to_string()
            }
        }
    }
}

/// The row whose count moved most against the previous window; the first
/// in report order among equals; none when nothing moved.
pub fn biggest_mover(rows: &[RefusalRow]) -> Option<&RefusalRow> {
    let delta = |x: &RefusalRow| x.count.abs_diff(x.previous);
    let mut best: Option<&RefusalRow> = None;
    for x in rows {
        if delta(x) > 0 && best.is_none_or(|b| delta(x) > delta(b)) {
            best = Some(x);
        }
    }
    best
}

/// The one-line summary: total refusals, runs affected, the biggest mover.
pub fn summary(r: &RefusalReport, runs_affected: u64, m: &Redactor) -> String {
    let total: u64 = r.rows.iter().map(|x| x.count).sum();
    let prev_total: u64 = r.rows.iter().map(|x| x.previous).sum();
    let mover = biggest_mover(&r.rows)
        .map(|x| {
            format!(
                "; biggest mover: {} {} ({} → {})",
                opt_or(m, x.reason.as_deref(), "(no reason)"),
                change(x.count, x.previous),
                x.previous,
                x.count
            )
        })
        .unwrap_or_default();
    format!(
        "{} in {} (previous window: {prev_total}){mover}.",
        count(total, "refusal", "refusals"),
        count(runs_affected, "run", "runs"),
    )
}

pub fn build(rep: &RefusalReport, runs_affected: u64, m: &Redactor) -> Report {
    let since = Timestamp(rep.since_us).to_rfc3339();
    let until = Timestamp(rep.until_us).to_rfc3339();
    let mut r = Report::new(
        &format!("Refusals by reason, {since} to {until}"),
        Shape::List("rows"),
        vec![
            Column::new("reason", "reason").none("(no reason)").flex(),
            Column::new("stage", "stage"),
            Column::new("count", "count").right(),
            Column::new("runs", "runs").right(),
            Column::new("previous", "previous").right(),
            Column::new("since", "since").csv_only(),
            Column::new("until", "until").csv_only(),
            Column::new("change", "change").right().reading_only(),
        ],
    );
    r.table_title = Some(format!("Refusals by reason, [{since}, {until})"));
    r.head = vec![
        (
            "window",
            Cell::json(m, &json!({"since": since, "until": until})),
        ),
        ("undated", Cell::Count(rep.undated)),
    ];
    for x in &rep.rows {
        r.row(vec![
            Cell::opt_text(m, x.reason.as_deref()),
            Cell::text(m, &x.stage),
            Cell::Count(x.count),
            Cell::Count(x.runs),
            Cell::Count(x.previous),
            Cell::text(m, &since),
            Cell::text(m, &until),
            Cell::text(m, &change(x.count, x.previous)),
        ]);
    }
    r.empty = Some(Empty {
        text: "No refusals in either window.",
        whole: false,
    });
    r.summary.push(Prose::both(summary(rep, runs_affected, m)));
    let prev_since = Timestamp(rep.since_us - (rep.until_us - rep.since_us)).to_rfc3339();
    let mut undated = String::new();
    if rep.undated > 0 {
        undated = format!(
            " {} no time and {} in no window.",
            if rep.undated == 1 {
                "1 refusal has".to_string()
            } else {
                format!("{} refusals have", rep.undated)
            },
            if rep.undated == 1 { "is" } else { "are" }
        );
    }
    r.notes.push(Prose::each(
        format!("previous counts the window just before: [{prev_since}, {since}).{undated}"),
        format!("previous counts the window just before: {prev_since} to {since}.{undated}"),
    ));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_biggest_mover_is_the_first_of_the_largest_changes() {
        let row = |reason: &str, count: u64, previous: u64| RefusalRow {
            reason: Some(reason.into()),
            stage: "authorization".into(),
            count,
            runs: count,
            previous,
        };
        let rows = [
            row("a", 3, 2),
            row("b", 2, 0),
            row("c", 0, 2),
            row("d", 1, 1),
        ];
        assert_eq!(biggest_mover(&rows).unwrap().reason.as_deref(), Some("b"));
        assert!(biggest_mover(&[row("a", 1, 1)]).is_none());
        let r = RefusalReport {
            since_us: 0,
            until_us: 1,
            rows: rows.to_vec(),
            undated: 0,
        };
        assert_eq!(
            summary(&r, 4, &Redactor::default()),
            "6 refusals in 4 runs (previous window: 5); biggest mover: b new (0 → 2)."
        );
        let one = RefusalReport {
            rows: vec![row("a", 1, 0)],
            ..r
        };
        assert_eq!(
            summary(&one, 1, &Redactor::default()),
            "1 refusal in 1 run (previous window: 0); biggest mover: a new (0 → 1)."
        );
    }
}
