//! The debugging ladder of `ladder.md`: the sets of a decision, its rung, the
//! explanation of every catalogue tool's visibility, and per-decision findings.
//! Pure functions over model values; no I/O. A whole run, with its
//! expectations (format v1.1), is classified by [`run::classify_run`].

pub mod audit;
pub mod effects;
pub mod errors;
pub mod expect;
pub mod explain;
mod labels;
pub mod reasons;
pub mod run;
pub mod schema;
mod toolmap;
mod visibility;

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{
    Arguments, Boundary, Effect, FindingKind, Label, NO_CALL, Policy, Progress, Retrieval, Routing,
    Rule, Rung, Stage, Status,
};
pub use effects::{EffectRules, EffectSource, Effects, NamePattern, RecordedEffects};
pub use errors::{ErrorStages, TypedError};
pub use explain::{WalkState, WalkStep, walk};
pub use labels::{
    CaseRef, LabelSource, label_text, matching_case, resolve_label, run_expectations,
};
pub use reasons::ReasonTable;
pub use run::{RunInput, RunVerdict, StepInput, classify_run};
pub use toolmap::ToolMap;
pub use visibility::{ToolVisibility, explain_tools};

/// A catalogue tool as the ladder needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub family: String,
    pub effect: Effect,
    pub open_world: bool,
    pub idempotent: bool,
    /// Token estimate of its definition (see `definition tokens`).
    pub tokens: u64,
}

/// One catalogue version, as the ladder needs it (first definitions win).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CatalogueView {
    pub version: String,
    pub abstain: Option<String>,
    /// By name; iteration is in code-point order.
    pub tools: ToolMap,
}

/// Everything known about the menu of one decision, after inheritance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Menu<'a> {
    pub catalogue: Option<&'a CatalogueView>,
    pub policy: Option<&'a Policy>,
    pub controls: &'a [String],
    pub retrieval: Option<&'a Retrieval>,
    pub exposed: Option<&'a [String]>,
    pub visible: Option<&'a [String]>,
}

impl<'a> Menu<'a> {
    /// Whether anything at all is known about the menu.
    pub fn has_evidence(&self) -> bool {
        self.catalogue.is_some()
            || self.exposed.is_some()
            || self.visible.is_some()
            || self.retrieval.is_some()
    }

    /// [`Sets::retrieved_refs`] of this menu with no label and no call.
    /// A recorded `visible` list is the menu as it stands, so the
    /// retrieval is not ranked for it (the audit asks this of every
    /// decision of a run).
    pub fn retrieved_refs(&self) -> Vec<&'a str> {
        match self.visible {
            Some(visible) => sorted_refs(visible.iter().map(String::as_str).collect()),
            None => Sets::new(*self, None, None).retrieved_refs(),
        }
    }
}

/// Rules 2–4: the policy rule that hides `tool`, if any.
pub fn policy_hides(policy: &Policy, tool: &ToolInfo) -> Option<Rule> {
    if let Some(families) = &policy.allowed_families
        && !families.contains(&tool.family)
    {
        return Some(Rule::Family);
    }
    if let Some(max) = policy.max_effect
        && tool.effect > max
    {
        return Some(Rule::Effect);
    }
    if tool.open_world && !policy.allow_open_world {
        return Some(Rule::OpenWorld);
    }
    None
}

pub(super) fn policy_hides_why(policy: &Policy, tool: &ToolInfo, rule: Rule) -> String {
    match rule {
        Rule::Family => format!(
            "family {} is not allowed (allowed: {})",
            tool.family,
            policy
                .allowed_families
                .as_deref()
                .unwrap_or_default()
                .join(", ")
        ),
        Rule::Effect => format!(
            "effect {} is above the ceiling {}",
            tool.effect,
            policy.max_effect.map(|e| e.as_str()).unwrap_or("-")
        ),
        _ => "open-world tool; the policy does not allow open-world tools".to_string(),
    }
}

pub(super) fn contains(list: &[String], name: &str) -> bool {
    list.iter().any(|n| n == name)
}

/// The sets of `ladder.md` for one decision, answered by membership tests so
/// that a 230-tool catalogue costs nothing per decision.
pub struct Sets<'a> {
    menu: Menu<'a>,
    /// No catalogue and no recorded menu: every acceptable name and the
    /// selected one count as present.
    no_evidence: bool,
    acceptable: &'a [String],
    selected: &'a str,
    /// Retrieval candidates that are exposed and not controls, first
    /// occurrence only, in recorded order: index + 1 is the rank.
    ranked: Vec<(&'a str, Option<f64>)>,
    /// name → index in `ranked`, for a long `ranked` (a short one is
    /// scanned).
    rank_of: Option<FxHashMap<&'a str, usize>>,
    /// The recorded lists as sets: membership is asked many times per
    /// decision.
    visible: Option<Members<'a>>,
    exposed: Option<Members<'a>>,
}

/// Lists up to this long are scanned rather than hashed: for the few names
/// of a typical menu, a scan is cheaper than building a set.
const SCAN_UP_TO: usize = 16;

/// A recorded name list for membership tests.
enum Members<'a> {
    Few(&'a [String]),
    Many(FxHashSet<&'a str>),
}

impl Members<'_> {
    fn contains(&self, name: &str) -> bool {
        match self {
            Members::Few(l) => contains(l, name),
            Members::Many(s) => s.contains(name),
        }
    }
}

fn set_of(list: Option<&[String]>) -> Option<Members<'_>> {
    list.map(|l| {
        if l.len() <= SCAN_UP_TO {
            Members::Few(l)
        } else {
            Members::Many(l.iter().map(String::as_str).collect())
        }
    })
}

impl<'a> Sets<'a> {
    pub fn new(menu: Menu<'a>, label: Option<&'a Label>, selected: Option<&'a str>) -> Sets<'a> {
        let mut sets = Sets {
            menu,
            no_evidence: !menu.has_evidence(),
            acceptable: label.map(|l| l.acceptable.as_slice()).unwrap_or(&[]),
            selected: selected.unwrap_or(NO_CALL),
            ranked: Vec::new(),
            rank_of: None,
            visible: set_of(menu.visible),
            exposed: set_of(menu.exposed),
        };
        if let Some(r) = menu.retrieval {
            let mut ranked: Vec<(&'a str, Option<f64>)> = Vec::with_capacity(r.candidates.len());
            let mut rank_of: Option<FxHashMap<&'a str, usize>> = (r.candidates.len() > SCAN_UP_TO)
                .then(|| {
                    FxHashMap::with_capacity_and_hasher(r.candidates.len(), Default::default())
                });
            for c in &r.candidates {
                let name = c.name.as_str();
                let seen = match &rank_of {
                    Some(m) => m.contains_key(name),
                    None => ranked.iter().any(|(n, _)| *n == name),
                };
                if !seen && sets.in_exposed(name) && !contains(menu.controls, name) {
                    if let Some(m) = &mut rank_of {
                        m.insert(name, ranked.len());
                    }
                    ranked.push((name, c.score));
                }
            }
            sets.ranked = ranked;
            sets.rank_of = rank_of;
        }
        sets
    }

    /// The index of `name` in `ranked`.
    fn rank_index(&self, name: &str) -> Option<usize> {
        match &self.rank_of {
            Some(m) => m.get(name).copied(),
            None => self.ranked.iter().position(|(n, _)| *n == name),
        }
    }

    fn is_visible(&self, name: &str) -> bool {
        self.visible.as_ref().is_some_and(|v| v.contains(name))
    }

    fn evidence_free_member(&self, name: &str) -> bool {
        self.no_evidence && (name == self.selected || contains(self.acceptable, name))
    }

    pub fn in_catalogue(&self, name: &str) -> bool {
        self.menu
            .catalogue
            .is_some_and(|c| c.tools.contains_key(name))
    }

    fn recorded(&self, name: &str) -> bool {
        self.exposed.as_ref().is_some_and(|e| e.contains(name)) || self.is_visible(name)
    }

    pub fn in_registry(&self, name: &str) -> bool {
        name == NO_CALL
            || self.in_catalogue(name)
            || contains(self.menu.controls, name)
            || self.recorded(name)
            || self.evidence_free_member(name)
    }

    pub fn in_exposed(&self, name: &str) -> bool {
        if name == NO_CALL
            || contains(self.menu.controls, name)
            || self.is_visible(name)
            || self.evidence_free_member(name)
        {
            return true;
        }
        if let Some(exposed) = &self.exposed {
            return exposed.contains(name);
        }
        match (self.menu.policy, self.menu.catalogue) {
            (Some(policy), Some(cat)) => cat
                .tools
                .get(name)
                .is_some_and(|t| policy_hides(policy, t).is_none()),
            _ => self.in_registry(name),
        }
    }

    /// 1-based rank among the exposed, non-control candidates, with its score.
    pub fn rank(&self, name: &str) -> Option<(usize, Option<f64>)> {
        self.rank_index(name).map(|i| (i + 1, self.ranked[i].1))
    }

    pub fn in_retrieved(&self, name: &str) -> bool {
        if name == NO_CALL || self.evidence_free_member(name) {
            return true;
        }
        if self.visible.is_some() {
            return self.is_visible(name);
        }
        if let Some(r) = self.menu.retrieval {
            return contains(self.menu.controls, name)
                || self
                    .rank(name)
                    .is_some_and(|(rank, _)| rank <= r.k as usize);
        }
        self.in_exposed(name)
    }

    /// The names of `retrieved` other than `@no_call`, sorted.
    pub fn retrieved_names(&self) -> Vec<String> {
        self.retrieved_refs()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// [`Sets::retrieved_names`], borrowed from the menu.
    pub fn retrieved_refs(&self) -> Vec<&'a str> {
        let strs = |l: &'a [String]| l.iter().map(String::as_str);
        let names: Vec<&'a str> = if let Some(visible) = self.menu.visible {
            strs(visible).collect()
        } else if let Some(r) = self.menu.retrieval {
            let mut v: Vec<&'a str> = strs(self.menu.controls).collect();
            v.extend(self.ranked.iter().take(r.k as usize).map(|(n, _)| *n));
            v
        } else {
            let mut v: Vec<&'a str> = Vec::new();
            if let Some(exposed) = self.menu.exposed {
                v.extend(strs(exposed));
            } else if let Some(cat) = self.menu.catalogue {
                v.extend(
                    cat.tools
                        .keys()
                        .map(String::as_str)
                        .filter(|n| self.in_exposed(n)),
                );
            }
            v.extend(strs(self.menu.controls));
            if let Some(vis) = self.menu.visible {
                v.extend(strs(vis));
            }
            if self.no_evidence {
                v.extend(strs(self.acceptable));
                v.push(self.selected);
            }
            v
        };
        sorted_refs(names)
    }
}

/// `names` without `@no_call`, sorted, each once.
fn sorted_refs(mut names: Vec<&str>) -> Vec<&str> {
    names.retain(|n| *n != NO_CALL);
    names.sort_unstable();
    names.dedup();
    names
}

/// One decision, as the ladder needs it (inheritance already applied).
#[derive(Debug, Clone, Copy)]
pub struct DecisionInput<'a> {
    pub menu: Menu<'a>,
    pub selected: Option<&'a str>,
    pub label: Option<&'a Label>,
    pub status: Option<Status>,
    pub stage: Option<Stage>,
    pub reason: Option<&'a str>,
    pub progress: Option<Progress>,
    /// The abstain control name in force.
    pub abstain: &'a str,
}

/// A finding about one decision (its catalogue, task, run and step are the
/// decision's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionFinding {
    pub kind: FindingKind,
    pub tool: Option<String>,
    pub detail: String,
}

/// The ladder's verdict on one decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    pub rung: Rung,
    pub routing: Option<Routing>,
    pub boundary: Option<Boundary>,
    /// `mismatch` when the run-level walk found the call's arguments differ
    /// from its expected call's (format v1.1).
    pub arguments: Option<Arguments>,
    pub progress: Option<Progress>,
    /// An `error` outcome that fails at a named stage (then `boundary` is
    /// that stage and the decision's reason is `error:<stage>`).
    pub error: Option<TypedError>,
    pub violated: bool,
    pub labelled: bool,
    /// `acceptable ∩ registry ≠ ∅` (labelled decisions only).
    pub in_registry: Option<bool>,
    /// `acceptable ∩ exposed ≠ ∅`.
    pub in_exposed: Option<bool>,
    /// `acceptable ∩ retrieved ≠ ∅`.
    pub in_retrieved: Option<bool>,
    /// `selected ∈ acceptable`.
    pub selected_ok: Option<bool>,
    pub retrieval_k: Option<u32>,
    pub abstain_expected: bool,
    /// `selected` is the abstain name.
    pub abstained: bool,
    pub no_call_expected: bool,
    /// `retrieved` without `@no_call`, sorted.
    pub retrieved: Vec<String>,
    pub definition_tokens: Option<u64>,
    pub findings: Vec<DecisionFinding>,
}

/// The action boundary's verdict on an outcome.
pub fn boundary(
    status: Option<Status>,
    stage: Option<Stage>,
    reason: Option<&str>,
    reasons: &ReasonTable,
) -> Option<Boundary> {
    match status? {
        Status::Refused => Some(
            stage
                .or_else(|| reason.and_then(|r| reasons.stage(r)))
                .map(Stage::boundary)
                .unwrap_or(Boundary::Unclassified),
        ),
        Status::Error | Status::Unknown => Some(Boundary::Execution),
        Status::Ok | Status::NotRun => None,
    }
}

/// What the run-level pass adds to one decision's own facts (both none for
/// a decision classified on its own, as in version 1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFacts {
    /// The typed error of its `error` outcome ([`errors::typed_error`]).
    pub error: Option<TypedError>,
    /// The arguments part from the matching walk.
    pub arguments: Option<Arguments>,
}

/// The first failure on the walk: routing, the action boundary, the
/// arguments (SEMANTICS, format v1.1), progress; else `passed` for a
/// labelled decision and `unlabelled` for the others.
pub fn rung_of(
    routing: Option<Routing>,
    boundary: Option<Boundary>,
    arguments: Option<Arguments>,
    progress: Option<Progress>,
    labelled: bool,
) -> Rung {
    routing
        .and_then(Routing::rung)
        .or(boundary.map(Boundary::rung))
        .or(arguments.map(|Arguments::Mismatch| Rung::Semantics))
        .or(match progress {
            Some(Progress::None | Progress::Regressed) => Some(Rung::Progress),
            _ => None,
        })
        .unwrap_or(if labelled {
            Rung::Passed
        } else {
            Rung::Unlabelled
        })
}

/// Walks the ladder for one decision on its own (no run-level facts).
pub fn classify(d: &DecisionInput<'_>, reasons: &ReasonTable) -> Classification {
    classify_in_run(d, &RunFacts::default(), reasons)
}

/// Walks the ladder for one decision, with what the run-level pass found.
pub fn classify_in_run(
    d: &DecisionInput<'_>,
    facts: &RunFacts,
    reasons: &ReasonTable,
) -> Classification {
    let sets = Sets::new(d.menu, d.label, d.selected);
    let selected = d.selected.unwrap_or(NO_CALL);

    let mut c = Classification {
        rung: Rung::Passed,
        routing: None,
        boundary: match &facts.error {
            Some(e) => Some(e.stage.boundary()),
            None => boundary(d.status, d.stage, d.reason, reasons),
        },
        arguments: facts.arguments,
        progress: d.progress,
        error: facts.error.clone(),
        violated: false,
        labelled: d.label.is_some(),
        in_registry: None,
        in_exposed: None,
        in_retrieved: None,
        selected_ok: None,
        retrieval_k: d.menu.retrieval.map(|r| r.k),
        abstain_expected: false,
        abstained: d.selected == Some(d.abstain),
        no_call_expected: false,
        retrieved: sets.retrieved_names(),
        definition_tokens: None,
        findings: Vec::new(),
    };

    match d.label {
        Some(label) => {
            let any = |f: &dyn Fn(&str) -> bool| label.acceptable.iter().any(|a| f(a));
            let reg = any(&|a| sets.in_registry(a));
            let exp = any(&|a| sets.in_exposed(a));
            let ret = any(&|a| sets.in_retrieved(a));
            let ok = label.accepts(selected);
            c.in_registry = Some(reg);
            c.in_exposed = Some(exp);
            c.in_retrieved = Some(ret);
            c.selected_ok = Some(ok);
            c.routing = if !reg {
                Some(Routing::Coverage)
            } else if !exp {
                Some(Routing::Exposure)
            } else if !ret {
                Some(Routing::Discovery)
            } else if !ok {
                Some(Routing::Selection)
            } else {
                None
            };
            c.violated = label.forbids(selected);
            c.abstain_expected = label.accepts(d.abstain);
            c.no_call_expected = label.accepts(NO_CALL);
        }
        None => c.routing = Some(Routing::Unlabelled),
    }

    c.rung = rung_of(c.routing, c.boundary, c.arguments, c.progress, c.labelled);

    if let Some(cat) = d.menu.catalogue {
        c.definition_tokens = Some(
            c.retrieved
                .iter()
                .filter_map(|n| cat.tools.get(n))
                .map(|t| t.tokens)
                .sum(),
        );
        c.findings.extend(exposure_mismatches(&sets, d.menu, cat));
    }

    if d.menu.has_evidence() && d.selected.is_some() && !sets.in_retrieved(selected) {
        c.findings.push(DecisionFinding {
            kind: crate::model::FindingKind::HiddenProposal,
            tool: Some(selected.to_string()),
            detail: format!(
                "selected {selected}, which was not in the visible menu; {}",
                fate(d, c.boundary)
            ),
        });
    }

    if d.status == Some(Status::Refused)
        && d.stage.is_none()
        && d.reason.is_none_or(|r| reasons.stage(r).is_none())
    {
        c.findings.push(DecisionFinding {
            kind: crate::model::FindingKind::UnclassifiedReason,
            tool: d.selected.map(str::to_string),
            detail: match d.reason {
                Some(r) => format!(
                    "refused with reason {r}, which no stage maps; add it to [reasons] in the config"
                ),
                None => "refused with neither a stage nor a reason".to_string(),
            },
        });
    }
    c
}

/// What became of a proposal, for finding details.
fn fate(d: &DecisionInput<'_>, boundary: Option<Boundary>) -> String {
    match d.status {
        Some(Status::Refused) => format!(
            "refused ({})",
            boundary.map(|b| b.as_str()).unwrap_or("unclassified")
        ),
        Some(Status::Ok) => "executed (ok)".to_string(),
        Some(Status::Error) => match d.reason {
            Some(r) => format!("executed and failed ({r})"),
            None => "executed and failed".to_string(),
        },
        Some(Status::Unknown) => "executed; outcome unknown".to_string(),
        Some(Status::NotRun) => "not run".to_string(),
        None => "no outcome recorded".to_string(),
    }
}

fn exposure_mismatches(
    sets: &Sets<'_>,
    menu: Menu<'_>,
    cat: &CatalogueView,
) -> Vec<DecisionFinding> {
    // One finding per tool: collect the reasons, then join them.
    let mut by_tool: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut note = |tool: &str, why: String| {
        by_tool.entry(tool.to_string()).or_default().push(why);
    };
    for (list, what) in [
        (menu.visible, "recorded visible menu"),
        (menu.exposed, "recorded exposed set"),
    ] {
        let Some(list) = list else { continue };
        for name in list {
            if contains(menu.controls, name) || name == NO_CALL {
                continue;
            }
            match cat.tools.get(name) {
                None => note(
                    name,
                    format!(
                        "{name} is in the {what} but not in catalogue {}",
                        cat.version
                    ),
                ),
                Some(tool) => {
                    if let Some(policy) = menu.policy
                        && let Some(rule) = policy_hides(policy, tool)
                    {
                        note(
                            name,
                            format!(
                                "{name} is in the {what} though the policy hides it: {}",
                                policy_hides_why(policy, tool, rule)
                            ),
                        );
                    }
                }
            }
        }
    }
    if let Some(visible) = menu.visible {
        for control in menu.controls {
            if !sets.is_visible(control) {
                note(
                    control,
                    format!("trusted control {control} is missing from the recorded visible menu"),
                );
            }
        }
        if let Some(r) = menu.retrieval {
            // Only a tool shown or retrieved can contradict rule 5. Each
            // name is looked at once (the shown ones, then the retrieved ones
            // not shown); `by_tool` orders what is found.
            let long = visible.len() > SCAN_UP_TO;
            let mut seen: FxHashSet<&str> = FxHashSet::default();
            let shown = visible.iter().enumerate().filter_map(|(i, n)| {
                let again = if long {
                    !seen.insert(n.as_str())
                } else {
                    visible[..i].contains(n)
                };
                (!again).then_some(n.as_str())
            });
            let names = shown.chain(
                sets.ranked
                    .iter()
                    .take(r.k as usize)
                    .map(|(n, _)| *n)
                    .filter(|n| !sets.is_visible(n)),
            );
            for name in names {
                let Some(tool) = cat.tools.get(name) else {
                    continue;
                };
                if contains(menu.controls, name)
                    || menu.policy.is_some_and(|p| policy_hides(p, tool).is_some())
                {
                    continue;
                }
                let rank = sets.rank(name);
                let retrieved = rank.is_some_and(|(rk, _)| rk <= r.k as usize);
                let shown = sets.is_visible(name);
                if retrieved && !shown {
                    note(
                        name,
                        format!(
                            "{name} was retrieved ({}) but is missing from the recorded visible menu",
                            rank_text(rank, r.k)
                        ),
                    );
                } else if !retrieved && shown {
                    note(
                        name,
                        format!(
                            "{name} is in the recorded visible menu but was not retrieved ({})",
                            rank_text(rank, r.k)
                        ),
                    );
                }
            }
        }
    }
    by_tool
        .into_iter()
        .map(|(tool, whys)| DecisionFinding {
            kind: crate::model::FindingKind::ExposureMismatch,
            tool: Some(tool),
            detail: whys.join("; "),
        })
        .collect()
}

pub(super) fn rank_text(rank: Option<(usize, Option<f64>)>, k: u32) -> String {
    match rank {
        None => "not a candidate".to_string(),
        Some((rk, score)) => {
            let score = score.map(|s| format!(" (score {s})")).unwrap_or_default();
            let cmp = if rk <= k as usize { "≤" } else { ">" };
            format!("rank {rk}{score} {cmp} k={k}")
        }
    }
}

/// A decision of a run, as the run-level facts need it.
#[derive(Debug, Clone, Copy)]
pub struct RunStep<'a> {
    pub step: i64,
    pub turn: i64,
    pub selected: Option<&'a str>,
}

/// `recovery_within_3` for the first decision of a run: some decision with
/// `turn(first) < turn ≤ turn(first) + 3` selected an acceptable name.
pub fn recovered_within_3(first: &RunStep<'_>, label: &Label, steps: &[RunStep<'_>]) -> bool {
    steps.iter().any(|s| {
        s.turn > first.turn
            && s.turn <= first.turn.saturating_add(3)
            && label.accepts(s.selected.unwrap_or(NO_CALL))
    })
}

#[cfg(test)]
mod tests;
