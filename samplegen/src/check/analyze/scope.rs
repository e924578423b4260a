//! What one decision is judged against: its run, its catalogue, the menu
//! settings it inherits from the run (ladder.md, "menu"), and its label.

use std::collections::{BTreeMap, BTreeSet};

use super::records::{CaseKey, Index, fail};
use crate::check::{Finding, NO_CALL};
use crate::model::{Case, Catalogue, Decision, Label, Policy, Retrieval, Run};

/// One decision with everything it inherits resolved.
pub(super) struct Scope<'a, 'c> {
    pub run_id: &'c str,
    pub step: u32,
    pub d: &'a Decision,
    pub run: &'a Run,
    /// The run's lowest step.
    pub first: bool,
    pub cat_name: Option<String>,
    pub cat: Option<&'c Catalogue>,
    pub policy: Option<&'a Policy>,
    pub controls: Vec<String>,
    pub retrieval: Option<&'a Retrieval>,
    pub visible: Option<&'a Vec<String>>,
    /// The selected tool, `@no_call` for none.
    pub selected: String,
}

/// The decision at (`run_id`, `step`), its menu settings taken from the
/// decision first and its run second.
pub(super) fn resolve<'a, 'c>(
    name: &str,
    idx: &'c Index<'a>,
    (run_id, step): (&'c str, u32),
    d: &'a Decision,
    first: bool,
) -> Scope<'a, 'c> {
    let what = format!("decision {run_id}/{step}");
    let Some(run) = idx.runs.get(run_id).copied() else {
        fail(name, format!("{what}: no run record"));
    };
    let cat_name = d.catalogue.clone().or(run.catalogue.clone());
    let cat = cat_name.as_ref().map(|c| {
        idx.catalogues
            .get(c)
            .unwrap_or_else(|| fail(name, format!("{what}: missing catalogue {c}")))
    });
    Scope {
        run_id,
        step,
        d,
        run,
        first,
        cat_name,
        cat,
        policy: d.menu.policy.as_ref().or(run.menu.policy.as_ref()),
        controls: d
            .menu
            .trusted_controls
            .clone()
            .or(run.menu.trusted_controls.clone())
            .unwrap_or_default(),
        retrieval: d.menu.retrieval.as_ref().or(run.menu.retrieval.as_ref()),
        visible: d.menu.visible.as_ref().or(run.menu.visible.as_ref()),
        selected: d.selected.clone().unwrap_or(NO_CALL.into()),
    }
}

impl Scope<'_, '_> {
    /// A finding about this decision.
    pub fn finding(&self, kind: &'static str, tool: Option<String>) -> Finding {
        Finding {
            kind,
            catalogue: self.cat_name.clone(),
            task_id: self.run.task_id.clone(),
            run_id: Some(self.run_id.to_string()),
            step: Some(self.step),
            tool,
        }
    }

    /// Whether anything about the menu the model saw is known.
    pub fn known_menu(&self) -> bool {
        self.cat.is_some()
            || self.visible.is_some()
            || self.d.exposed.is_some()
            || self.retrieval.is_some()
    }

    /// The decision's label: its own `expected`, else the case for its step
    /// (this catalogue's before any catalogue's), else, for a run's first
    /// decision, the task's case without a step. An `expected` that differs
    /// from a matching case is a `label_conflict`.
    pub fn label(
        &self,
        cases: &BTreeMap<CaseKey, &Case>,
        findings: &mut BTreeSet<Finding>,
    ) -> Option<Label> {
        let case_for = |s: Option<u32>, c: Option<String>| -> Option<&Case> {
            let t = self.run.task_id.clone()?;
            cases.get(&(t, s, c)).copied()
        };
        let step = Some(self.step);
        let mut case = case_for(step, self.cat_name.clone()).or_else(|| case_for(step, None));
        if case.is_none() && self.first {
            case = case_for(None, self.cat_name.clone()).or_else(|| case_for(None, None));
        }
        let label = self.d.expected.clone().or(case.map(|c| c.label.clone()));
        if let (Some(e), Some(c)) = (&self.d.expected, case)
            && *e != c.label
        {
            findings.insert(self.finding("label_conflict", None));
        }
        label
    }
}
