//! The generator's own bookkeeping: validates every record against
//! trace-format.md and classifies every decision as ladder.md says, so each
//! sample set can assert the numbers its README promises.
//!
//! `analyze` reads a set into an [`Analysis`]; `metrics` counts over it;
//! `report` prints the tables the READMEs quote.

mod analyze;
mod metrics;
mod report;
mod tokens;

pub use analyze::analyze;
pub use metrics::{Metrics, Rate, RefusalRow};
pub use report::{
    confusions_table, findings_summary_table, findings_table, ladder_table, metrics_json,
    metrics_table, pretty,
};
pub use tokens::definition_tokens;

use crate::model::{Catalogue, Decision, Label, Run};
use crate::time;
use std::collections::{BTreeMap, BTreeSet};

pub const NO_CALL: &str = "@no_call";
pub const RUNGS: &[&str] = &[
    "coverage",
    "exposure",
    "discovery",
    "selection",
    "representation",
    "schema",
    "semantics",
    "authorization",
    "precondition",
    "unclassified",
    "execution",
    "progress",
    "unlabelled",
    "passed",
];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub kind: &'static str,
    pub catalogue: Option<String>,
    pub task_id: Option<String>,
    pub run_id: Option<String>,
    pub step: Option<u32>,
    pub tool: Option<String>,
}

pub struct Classified<'a> {
    pub d: &'a Decision,
    pub run: &'a Run,
    pub catalogue: Option<String>,
    pub label: Option<Label>,
    pub first: bool,
    pub rung: &'static str,
    pub routing: Option<&'static str>,
    pub boundary: Option<&'static str>,
    pub violated: bool,
    pub in_registry: bool,
    pub in_exposed: bool,
    pub in_retrieved: bool,
    pub k: Option<u32>,
    pub abstain: String,
    /// definition tokens of the catalogue tools in `retrieved` (decisions with a catalogue)
    pub tokens: Option<u64>,
    /// The menu the model saw (`retrieved` without `@no_call`), when
    /// anything about the menu is known.
    pub menu: Option<BTreeSet<String>>,
}

impl Classified<'_> {
    pub fn selected(&self) -> &str {
        self.d.selected.as_deref().unwrap_or(NO_CALL)
    }
    pub fn turn(&self) -> u32 {
        self.d.turn.unwrap_or(self.d.step)
    }
    pub fn correct(&self) -> bool {
        self.label
            .as_ref()
            .is_some_and(|l| l.acceptable.iter().any(|a| a == self.selected()))
    }
    /// Time of the decision for windows: its `at`, else its run's `started_at`.
    pub fn time(&self) -> Option<i64> {
        self.d
            .at
            .as_deref()
            .or(self.run.started_at.as_deref())
            .and_then(time::parse)
    }
}

pub struct Analysis<'a> {
    pub catalogues: BTreeMap<String, Catalogue>,
    pub runs: BTreeMap<String, &'a Run>,
    pub decisions: Vec<Classified<'a>>,
    /// The ladder's findings (ladder.md).
    pub findings: Vec<Finding>,
    /// The audit findings of issue 12 (`crate::audit`).
    pub audit: Vec<Finding>,
    pub cases: usize,
}

impl<'a> Analysis<'a> {
    /// Decisions whose run passes `keep` (e.g. one catalogue).
    pub fn filter(&self, keep: impl Fn(&Classified) -> bool) -> Vec<&Classified<'a>> {
        self.decisions.iter().filter(|c| keep(c)).collect()
    }

    pub fn all(&self) -> Vec<&Classified<'a>> {
        self.filter(|_| true)
    }

    /// Every finding, the ladder's and the audit's, in report order.
    pub fn all_findings(&self) -> Vec<Finding> {
        let mut v: Vec<Finding> = self.findings.iter().chain(&self.audit).cloned().collect();
        v.sort();
        v
    }

    pub fn find(&self, run_id: &str, step: u32) -> &Classified<'a> {
        self.decisions
            .iter()
            .find(|d| d.run.run_id == run_id && d.d.step == step)
            .unwrap_or_else(|| panic!("no decision {run_id}/{step}"))
    }
}
