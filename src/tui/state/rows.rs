//! What each in-memory table sorts by and searches in (see `table`): the
//! columns `s` cycles through, named as the table's header names them, and
//! every field `/` looks in, shown or not.

use super::table::{Listed, SortKey};
use crate::metrics::{Cell, RefusalRow};
use crate::model::Rung;
use crate::store::browse::{FindingItem, KindCount};
use crate::store::compare::{CatalogueInfo, CellDecision, CellRow};
use crate::store::tools::RuleCount;
use crate::tui::worker::ToolRow;

fn num(v: u64) -> SortKey {
    SortKey::Num(v as f64)
}

fn text(s: &str) -> SortKey {
    SortKey::Text(s.to_string())
}

/// A rung of the Ladder's funnel with its counts.
#[derive(Debug, Clone, PartialEq)]
pub struct LadderRow {
    pub rung: Rung,
    pub count: u64,
    /// Decisions whose boundary is this stage.
    pub boundary: Option<u64>,
}

impl Listed for LadderRow {
    const COLUMNS: &'static [&'static str] = &["rung", "count", "bndry"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(self.rung.as_str()),
            1 => num(self.count),
            _ => num(self.boundary.unwrap_or(0)),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![("rung", self.rung.as_str().to_string())]
    }
}

impl Listed for RefusalRow {
    const COLUMNS: &'static [&'static str] =
        &["reason", "stage", "count", "runs", "prev wk", "change"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(self.reason.as_deref().unwrap_or("")),
            1 => text(&self.stage),
            2 => num(self.count),
            3 => num(self.runs),
            4 => num(self.previous),
            _ => SortKey::Num(self.count as f64 - self.previous as f64),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("reason", self.reason.clone().unwrap_or_default()),
            ("stage", self.stage.clone()),
        ]
    }
}

impl Listed for Cell {
    const COLUMNS: &'static [&'static str] = &["acceptable", "selected instead", "count"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(&self.acceptable.join(", ")),
            1 => text(self.selected.as_deref().unwrap_or("")),
            _ => num(self.count),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("acceptable", self.acceptable.join(", ")),
            (
                "selected",
                self.selected.clone().unwrap_or_else(|| "(no call)".into()),
            ),
        ]
    }
}

impl Listed for KindCount {
    const COLUMNS: &'static [&'static str] =
        &["kind", "count", "runs", "prev wk", "change", "undated"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(&self.kind),
            1 => num(self.count),
            2 => num(self.runs),
            3 => num(self.previous),
            4 => SortKey::Num(self.count as f64 - self.previous as f64),
            _ => num(self.undated),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![("kind", self.kind.clone())]
    }
}

impl Listed for ToolRow {
    const COLUMNS: &'static [&'static str] = &[
        "catalogue",
        "tool",
        "effect",
        "visible",
        "selected",
        "wrongly",
        "refused",
    ];
    fn key(&self, col: usize) -> SortKey {
        let u = &self.usage;
        match col {
            0 => text(&u.catalogue),
            1 => text(&u.name),
            2 => text(&u.effect),
            3 => num(u.visible),
            4 => num(u.selected),
            5 => num(u.selected_wrongly),
            _ => num(u.refused),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        let u = &self.usage;
        vec![
            ("catalogue", u.catalogue.clone()),
            ("tool", u.name.clone()),
            ("family", u.family.clone()),
            ("effect", u.effect.clone()),
        ]
    }
}

impl Listed for CellRow {
    const COLUMNS: &'static [&'static str] = &["cell", "attempts"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(&self.cell.show()),
            _ => num(self.attempts),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![("cell", self.cell.show())]
    }
}

impl Listed for CatalogueInfo {
    const COLUMNS: &'static [&'static str] = &["version", "created", "tools"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(&self.version),
            1 => text(self.created_at.as_deref().unwrap_or("")),
            _ => num(self.tools),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("version", self.version.clone()),
            ("created", self.created_at.clone().unwrap_or_default()),
        ]
    }
}

impl Listed for FindingItem {
    const COLUMNS: &'static [&'static str] = &["run", "step", "tool", "catalogue", "time"];
    fn key(&self, col: usize) -> SortKey {
        let r = &self.row;
        match col {
            0 => text(r.run_id.as_deref().unwrap_or("")),
            1 => SortKey::Num(r.step.unwrap_or(-1) as f64),
            2 => text(r.tool.as_deref().unwrap_or("")),
            3 => text(r.catalogue.as_deref().unwrap_or("")),
            _ => SortKey::Num(self.time_us.unwrap_or(-1) as f64),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        let r = &self.row;
        let o = |s: &Option<String>| s.clone().unwrap_or_default();
        vec![
            ("run", o(&r.run_id)),
            ("task", o(&r.task_id)),
            ("tool", o(&r.tool)),
            ("catalogue", o(&r.catalogue)),
            ("detail", r.detail.clone()),
        ]
    }
}

impl Listed for RuleCount {
    const COLUMNS: &'static [&'static str] = &["shown", "rule", "decisions"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(if self.visible { "visible" } else { "hidden" }),
            1 => text(&self.rule),
            _ => num(self.decisions),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "shown",
                (if self.visible { "visible" } else { "hidden" }).into(),
            ),
            ("rule", self.rule.clone()),
            ("example", self.example.clone()),
        ]
    }
}

/// A row of an open Compare cell: the base's attempt and each candidate's
/// pick on the same task and trial.
#[derive(Debug, Clone, Copy)]
pub struct AttemptRow<'a> {
    pub base: &'a CellDecision,
    pub candidates: &'a [Vec<Option<CellDecision>>],
    pub at: usize,
}

impl AttemptRow<'_> {
    /// The candidates' picks that are right.
    fn right(&self) -> u64 {
        self.candidates
            .iter()
            .filter(|c| c[self.at].as_ref().is_some_and(|d| d.ok == Some(true)))
            .count() as u64
    }
}

impl Listed for AttemptRow<'_> {
    const COLUMNS: &'static [&'static str] = &["task", "trial", "base", "right"];
    fn key(&self, col: usize) -> SortKey {
        match col {
            0 => text(&self.base.key.task_id),
            1 => SortKey::Num(self.base.key.trial.map_or(-1.0, |t| t as f64)),
            2 => text(self.base.selected.as_deref().unwrap_or("")),
            _ => num(self.right()),
        }
    }
    fn fields(&self) -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("task", self.base.key.task_id.clone()),
            ("run", self.base.run_id.clone()),
            ("base", self.base.selected.clone().unwrap_or_default()),
        ];
        for c in self.candidates {
            if let Some(d) = &c[self.at] {
                v.push(("candidate", d.selected.clone().unwrap_or_default()));
            }
        }
        v
    }
}

/// The rows of an open cell's attempts.
pub fn attempt_rows(a: &crate::store::compare::CellAttempts) -> Vec<AttemptRow<'_>> {
    (0..a.base.len())
        .map(|at| AttemptRow {
            base: &a.base[at],
            candidates: &a.candidates,
            at,
        })
        .collect()
}
