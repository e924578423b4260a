//! `rung report confusions`: selection failures by (acceptable, selected)
//! pair, most first, and how much the top cells explain.

use super::model::{Cell, Column, Prose, Report, Shape, count, percent};
use crate::metrics::{Confusions, top_share};
use crate::redact::Redactor;

/// The "top two cells explain N%" sentence.
pub fn summary(c: &Confusions) -> String {
    let n = c.selection_failures;
    match top_share(c, 2) {
        Some(s) if c.cells.len() >= 2 => format!(
            "The top two cells explain {} of {} selection failures ({}).",
            c.cells[0].count + c.cells[1].count,
            n,
            percent(s)
        ),
        Some(s) => format!(
            "The top cell explains {} of {} ({}).",
            c.cells[0].count,
            count(n, "selection failure", "selection failures"),
            percent(s)
        ),
        None => "No selection failures.".to_string(),
    }
}

pub fn build(c: &Confusions, m: &Redactor) -> Report {
    let mut r = Report::new(
        "Confusion cells",
        Shape::List("cells"),
        vec![
            Column::new("acceptable", "acceptable").flex(),
            Column::new("selected", "selected instead")
                .none("(no call)")
                .flex(),
            Column::new("count", "count").right(),
            Column::new("share", "share").right(),
        ],
    );
    r.head = vec![("selection_failures", Cell::Count(c.selection_failures))];
    for x in &c.cells {
        r.row(vec![
            Cell::list(m, &x.acceptable),
            Cell::opt_text(m, x.selected.as_deref()),
            Cell::Count(x.count),
            Cell::Share(x.share),
        ]);
    }
    r.summary.push(Prose::both(format!(
        "{} in {}, by (acceptable, selected) pair.",
        count(
            c.selection_failures,
            "selection failure",
            "selection failures"
        ),
        count(c.cells.len() as u64, "cell", "cells"),
    )));
    r.notes.push(Prose::both(summary(c)));
    r
}
