//! `rung report ladder`: decisions by their first failed rung, with the
//! boundary checks' own count beside them. One record: CSV is one line
//! (weekly rows append cleanly), JSON `{decisions, labelled, rungs}`.

use super::model::{Cell, Column, Prose, Report, Shape, count};
use crate::metrics::LadderCounts;
use crate::model::Rung;
use crate::redact::Redactor;

pub fn build(c: &LadderCounts, boundary: &[(String, u64)], m: &Redactor) -> Report {
    let mut r = Report::new(
        "Ladder",
        Shape::Wide {
            nest: "rungs",
            key: 0,
            value: 1,
        },
        vec![
            Column::new("rung", "rung"),
            Column::new("decisions", "decisions").right(),
            Column::new("share", "share")
                .right()
                .none("n/a")
                .reading_only(),
            Column::new("by_boundary", "by boundary alone")
                .right()
                .reading_only(),
        ],
    );
    r.head = vec![
        ("decisions", Cell::Count(c.decisions)),
        ("labelled", Cell::Count(c.labelled)),
    ];
    for rung in Rung::ALL {
        let n = c.count(*rung);
        let share = (c.decisions > 0).then(|| n as f64 / c.decisions as f64);
        let by_boundary = boundary
            .iter()
            .find(|(s, _)| s == rung.as_str())
            .map(|(_, n)| *n);
        r.row(vec![
            Cell::text(m, rung.as_str()),
            Cell::Count(n),
            Cell::opt_share(share),
            Cell::opt_count(by_boundary),
        ]);
    }
    r.summary.push(Prose::both(format!(
        "{}, {} labelled; each counted once, at its first failed rung.",
        count(c.decisions, "decision", "decisions"),
        c.labelled
    )));
    r.notes.push(Prose::both(
        "by boundary alone: the same decisions counted by the boundary check \
         that refused or failed them, whatever rung they reached first."
            .to_string(),
    ));
    r
}
