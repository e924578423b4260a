//! `rung report consistency`: the tasks whose first tool varies across
//! their trials on one catalogue, most varied first, with each first tool
//! and how often it was chosen. JSON: `{"inconsistent_tasks": rate,
//! "tasks": [{catalogue, task_id, trials, distinct, top_share, choices:
//! [{tool, count}]}]}`.

use serde_json::json;

use super::model::{Cell, Column, Empty, Prose, Report, Shape};
use crate::metrics::consistency::{Choice, Consistency};

/// `search_confluence 3, search_sharepoint 2` (no call as `(no call)`).
fn choices_text(v: &[Choice]) -> String {
    v.iter()
        .map(|c| format!("{} {}", c.tool.as_deref().unwrap_or("(no call)"), c.count))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn build(c: &Consistency) -> Report {
    let mut r = Report::new(
        "First choices that vary across trials",
        Shape::List("tasks"),
        vec![
            Column::new("catalogue", "catalogue").none("—").flex(),
            Column::new("task_id", "task").flex(),
            Column::new("trials", "trials").right(),
            Column::new("distinct", "distinct")
                .right()
                .in_table(super::model::Place::Hidden),
            Column::new("top_share", "top share")
                .table_header("top")
                .right(),
            Column::new("choices", "first tools chosen").data_only(),
            Column::new("chosen", "first tools chosen (times)")
                .reading_only()
                .flex(),
        ],
    );
    for t in &c.varying {
        r.row(vec![
            Cell::opt_text(t.catalogue.as_deref()),
            Cell::text(&t.task_id),
            Cell::Count(t.trials),
            Cell::Count(t.distinct()),
            Cell::Share(t.top_share()),
            Cell::Json(json!(t.choices)),
            Cell::Text(choices_text(&t.choices)),
        ]);
    }
    let rate = &c.rate;
    r.summary.push(Prose::both(format!(
        "{} of {} tasks with two or more trials on one catalogue start differently across \
         their trials (inconsistent_tasks{}).",
        rate.numerator,
        rate.denominator,
        rate.value
            .map(|v| format!(" {}", super::model::percent(v)))
            .unwrap_or_default()
    )));
    r.empty = Some(Empty {
        text: "Every task with two or more trials starts the same way each time.",
        whole: false,
    });
    r.json = Some(json!({
        "inconsistent_tasks": rate,
        "tasks": c.varying.iter().map(|t| json!({
            "catalogue": t.catalogue,
            "task_id": t.task_id,
            "trials": t.trials,
            "distinct": t.distinct(),
            "top_share": t.top_share(),
            "choices": t.choices,
        })).collect::<Vec<_>>(),
    }));
    r
}
