//! `rung report findings`: every stored finding about the filtered
//! decisions and their catalogues. A table leaves the task out (its run
//! names it) and prints each detail whole under its row.

use super::model::{Cell, Column, Empty, Place, Prose, Report, Shape, count};
use crate::redact::Redactor;
use crate::store::query::FindingRow;

pub fn build(list: &[FindingRow], m: &Redactor) -> Report {
    let mut r = Report::new(
        "Findings",
        Shape::List("findings"),
        vec![
            Column::new("kind", "kind"),
            Column::new("catalogue", "catalogue").none("-").flex(),
            Column::new("task_id", "task")
                .none("-")
                .in_table(Place::Hidden),
            Column::new("run_id", "run").none("-").flex(),
            Column::new("step", "step").right().none("-"),
            Column::new("tool", "tool").none("-").flex(),
            // The detail is the point: whole, under its row.
            Column::new("detail", "detail").in_table(Place::Note),
        ],
    );
    for f in list {
        r.row(vec![
            Cell::text(m, &f.kind),
            Cell::opt_text(m, f.catalogue.as_deref()),
            Cell::opt_text(m, f.task_id.as_deref()),
            Cell::opt_text(m, f.run_id.as_deref()),
            Cell::opt_int(f.step),
            Cell::opt_text(m, f.tool.as_deref()),
            Cell::text(m, &f.detail),
        ]);
    }
    r.empty = Some(Empty {
        text: "No findings.",
        whole: true,
    });
    r.summary
        .push(Prose::both(count(list.len() as u64, "finding", "findings")));
    r
}
