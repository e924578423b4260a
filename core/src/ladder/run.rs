//! One call per run: every decision's label (with its source), rung and
//! parts, and the run's expectation findings and "as expected" verdict
//! (`ladder.md` with `expectations.md`, format v1.1).
//!
//! # How the store uses it
//!
//! 1. Load the run's decisions in step order and, for each, build a
//!    [`StepInput`]: its menu after inheritance (as for [`super::classify`]),
//!    its effective catalogue name, its inline `expected`, its outcome
//!    (`status`, `stage`, `reason`, `message`), `result`, `progress`, the
//!    abstain name, `arguments`, `text` and `raw`.
//! 2. Load the cases of its task as [`CaseRef`]s (label and expectations
//!    each optional), the run's catalogue, and its effect sources: the
//!    configuration's [`EffectRules`](super::EffectRules) and the
//!    [`RecordedEffects`](super::RecordedEffects) of the run's
//!    `tool_definitions`; the reason table and the
//!    [`ErrorStages`]; the run's `success`.
//! 3. Call [`classify_run`]. Per decision (same order) it returns the
//!    label and its source (`inline`, `case` or `derived`), the
//!    [`Classification`] (rung; parts `routing`, `boundary`, `arguments`,
//!    `progress`; a typed error; per-decision findings, `label_conflict`
//!    included), the walk result, and `recovered` for a labelled first
//!    decision. Per run: `first_failed_rung` and, for a run with
//!    expectations, the four findings, the missing outputs, "as expected"
//!    and the facts the four metrics count
//!    ([`ExpectAcc`](crate::metrics::ExpectAcc)).
//!
//! A run without expectations classifies exactly as its decisions do one
//! by one with [`super::classify`], apart from typed error stages.
//!
//! Nothing here masks secrets: a finding's detail is rendered by
//! [`ExpectationFinding::detail`] with the caller's mask (the redactor), and
//! a typed error's `detail` is the source error whole, for the caller to
//! mask and cut before it stores or shows it.

use serde_json::Value;

use super::effects::Effects;
use super::errors::{ErrorStages, typed_error};
use super::expect::{
    CallWalk, ExpectationFinding, WalkCall, WalkResult, findings, missing_outputs, walk_calls,
    wrong_count,
};
use super::{
    CaseRef, Classification, DecisionInput, LabelSource, Menu, ReasonTable, RunFacts, RunStep,
    classify_in_run, recovered_within_3, resolve_label, run_expectations,
};
use crate::ladder::CatalogueView;
use crate::metrics::ExpectationFacts;
use crate::model::{Arguments, Label, Progress, Rung, Stage, Status};

/// What the run-level pass needs of the run itself.
#[derive(Debug, Clone, Copy)]
pub struct RunInput<'a> {
    /// Every case of the run's task.
    pub cases: &'a [CaseRef<'a>],
    /// The run's catalogue (the run record's, else its first decision's):
    /// chooses the step-less case whose expectations the run has.
    pub catalogue: Option<&'a str>,
    /// That catalogue: the first source of the expected tools' effects.
    pub catalogue_view: Option<&'a CatalogueView>,
    /// The effect sources after the catalogue.
    pub effects: Effects<'a>,
    pub reasons: &'a ReasonTable,
    pub error_stages: &'a ErrorStages,
    /// The run's recorded `success`, for `agreement_with_success`.
    pub success: Option<bool>,
}

/// One decision of the run, inheritance already applied.
#[derive(Debug, Clone, Copy)]
pub struct StepInput<'a> {
    pub step: i64,
    /// `turn`, defaulting to `step`.
    pub turn: i64,
    /// Its menu; the menu's catalogue gives a called tool's effect.
    pub menu: Menu<'a>,
    /// Its effective catalogue name, for choosing its case.
    pub catalogue: Option<&'a str>,
    pub selected: Option<&'a str>,
    /// Its inline `expected`.
    pub expected: Option<&'a Label>,
    pub status: Option<Status>,
    pub stage: Option<Stage>,
    pub reason: Option<&'a str>,
    pub message: Option<&'a str>,
    pub result: Option<&'a Value>,
    pub progress: Option<Progress>,
    /// The abstain name in force.
    pub abstain: &'a str,
    pub arguments: Option<&'a Value>,
    pub text: Option<&'a str>,
    pub raw: Option<&'a Value>,
}

impl<'a> StepInput<'a> {
    /// The decision as [`super::classify`] and the explain walk see it,
    /// with `label` (its own or derived).
    pub fn decision_input(&self, label: Option<&'a Label>) -> DecisionInput<'a> {
        DecisionInput {
            menu: self.menu,
            selected: self.selected,
            label,
            status: self.status,
            stage: self.stage,
            reason: self.reason,
            progress: self.progress,
            abstain: self.abstain,
        }
    }
}

/// The verdict on one decision.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionVerdict {
    pub step: i64,
    /// Its label and where it came from.
    pub label: Option<(Label, LabelSource)>,
    pub classification: Classification,
    /// What the matching walk said of it (`None`: the run has no expected
    /// calls, or the decision is not a call).
    pub walk: Option<WalkResult>,
    /// The run's first decision (smallest step).
    pub is_first: bool,
    /// `recovery_within_3`, for a labelled first decision that selected
    /// wrongly.
    pub recovered: Option<bool>,
}

/// What a run with expectations was found to do against them.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectationVerdict {
    /// The walk over its calls (`None`: the case has no `expected_calls`).
    pub walk: Option<CallWalk>,
    pub missing_outputs: Vec<String>,
    /// Missing calls, argument mismatches, unexpected calls, missing
    /// outputs.
    pub findings: Vec<ExpectationFinding>,
    /// None of the four findings.
    pub as_expected: bool,
    pub facts: ExpectationFacts,
}

/// The verdict on one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunVerdict {
    /// Per decision, in the order given.
    pub decisions: Vec<DecisionVerdict>,
    /// The rung of its lowest-step decision that failed; else `selection`
    /// when required expected calls are missing and no decision was blamed
    /// for them; else none. With BFCL's checker, `selection` whenever the
    /// number of calls differs from the number of expected calls.
    pub first_failed_rung: Option<Rung>,
    /// `None` for a run without expectations.
    pub expectations: Option<ExpectationVerdict>,
}

/// Classifies a run: `steps` must be its decisions in ascending step order.
pub fn classify_run(run: &RunInput<'_>, steps: &[StepInput<'_>]) -> RunVerdict {
    debug_assert!(steps.windows(2).all(|w| w[0].step < w[1].step));
    let expectations = run_expectations(run.cases, run.catalogue);

    // The matching walk over the run's calls.
    let walk_input: Vec<WalkCall<'_>> = steps
        .iter()
        .map(|s| WalkCall {
            step: s.step,
            selected: s.selected,
            status: s.status,
            arguments: s.arguments,
            effect: s
                .selected
                .and_then(|t| run.effects.of(t, s.menu.catalogue))
                .map(|(e, _)| e),
        })
        .collect();
    let walk: Option<CallWalk> = expectations.and_then(|e| {
        let calls = e.calls.as_deref()?;
        let effects: Vec<_> = calls
            .iter()
            .map(|c| run.effects.of(&c.tool, run.catalogue_view).map(|(e, _)| e))
            .collect();
        Some(walk_calls(calls, &effects, e, &walk_input))
    });

    let run_steps: Vec<RunStep<'_>> = steps
        .iter()
        .map(|s| RunStep {
            step: s.step,
            turn: s.turn,
            selected: s.selected,
        })
        .collect();

    let mut decisions = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        let is_first = i == 0;
        let walked = walk.as_ref().and_then(|w| w.results[i].clone());
        let (own, conflict) = resolve_label(s.expected, run.cases, s.step, s.catalogue, is_first);
        let label: Option<(Label, LabelSource)> = match own {
            Some((l, src)) => Some((l.clone(), src)),
            None => walked
                .as_ref()
                .and_then(|w| w.derived_label(s.selected))
                .map(|l| (l, LabelSource::Derived)),
        };
        let facts = RunFacts {
            error: typed_error(
                s.status,
                s.stage,
                s.reason,
                s.message,
                s.result,
                run.error_stages,
            ),
            arguments: matches!(walked, Some(WalkResult::Mismatch { .. }))
                .then_some(Arguments::Mismatch),
        };
        let input = s.decision_input(label.as_ref().map(|(l, _)| l));
        let mut classification = classify_in_run(&input, &facts, run.reasons);
        classification.findings.extend(conflict);
        let recovered = match (is_first, &label, classification.selected_ok) {
            (true, Some((l, _)), Some(false)) => {
                Some(recovered_within_3(&run_steps[0], l, &run_steps))
            }
            _ => None,
        };
        decisions.push(DecisionVerdict {
            step: s.step,
            label,
            classification,
            walk: walked,
            is_first,
            recovered,
        });
    }

    let mut first_failed_rung = decisions
        .iter()
        .map(|d| d.classification.rung)
        .find(|r| r.is_failure());

    let verdict = expectations.map(|e| {
        let missing_outputs: Vec<String> = match &e.outputs {
            Some(outputs) => missing_outputs(outputs, steps.iter().map(|s| (s.text, s.raw)))
                .into_iter()
                .map(str::to_string)
                .collect(),
            None => Vec::new(),
        };
        let found = match (&walk, e.calls.as_deref()) {
            (Some(w), Some(calls)) => {
                let missing: Vec<&str> = missing_outputs.iter().map(String::as_str).collect();
                findings(calls, e, w, &walk_input, &missing)
            }
            _ => missing_outputs
                .iter()
                .map(|o| ExpectationFinding::MissingOutput { output: o.clone() })
                .collect(),
        };
        if let Some(w) = &walk {
            // Missing calls nobody carries: the run's last decision made a
            // call (or has a label of its own, so the walk's is not used).
            let blamed = decisions.last().is_some_and(|d| {
                matches!(d.walk, Some(WalkResult::EndedShort { .. }))
                    && matches!(d.label, Some((_, LabelSource::Derived)))
            });
            if first_failed_rung.is_none() && !blamed && !w.missing().is_empty() {
                first_failed_rung = Some(Rung::Selection);
            }
        }
        // BFCL counts the calls before it compares any.
        if let Some(calls) = e.calls.as_deref()
            && wrong_count(calls, e, &walk_input)
        {
            first_failed_rung = Some(Rung::Selection);
        }
        let as_expected = found.is_empty();
        let facts = expectation_facts(walk.as_ref(), as_expected, run.success);
        ExpectationVerdict {
            walk: walk.clone(),
            missing_outputs,
            findings: found,
            as_expected,
            facts,
        }
    });

    RunVerdict {
        decisions,
        first_failed_rung,
        expectations: verdict,
    }
}

/// What the four metrics count of one run with expectations.
fn expectation_facts(
    walk: Option<&CallWalk>,
    as_expected: bool,
    success: Option<bool>,
) -> ExpectationFacts {
    let mut f = ExpectationFacts {
        as_expected,
        success,
        ..ExpectationFacts::default()
    };
    if let Some(w) = walk {
        for e in w.expected.iter().filter(|e| e.required) {
            f.required_calls += 1;
            f.matched_required += u64::from(e.matched.is_some());
        }
        for r in w.results.iter().flatten() {
            match r {
                WalkResult::Matched { .. } => {
                    f.judged_calls += 1;
                    f.matched_calls += 1;
                }
                WalkResult::Mismatch { .. } => f.judged_calls += 1,
                _ => {}
            }
        }
    }
    f
}

#[cfg(test)]
mod tests;
