//! A stored run through [`ladder::classify_run`]: its decisions with their
//! effective menus, its task's cases, its expectations and the payload
//! parts they need, the effect sources and the error stages.

use super::context::{Context, Effective, effective};
use super::schema::{check_calls, has_definitions};
use super::stored::{Parts, StoredCase, StoredDecision, StoredRun, load_parts};
use crate::error::Result;
use crate::ladder::schema::{SchemaCheck, boundary};
use crate::ladder::{self, CaseRef, Effects, RunInput, RunVerdict, StepInput};
use crate::model::{Effect, Expectations, Stage, Status};

/// A run judged: the verdict and what writing or explaining it needs.
pub(crate) struct Judged<'d> {
    /// The run's decisions, in step order, with the parts read.
    pub(super) decisions: &'d [StoredDecision],
    /// Per decision (in step order), its menu after inheritance.
    pub(super) effs: Vec<Effective<'d>>,
    pub(super) verdict: RunVerdict,
    /// The expectations the run has (`None`: none).
    pub(super) expectations: Option<Expectations>,
    /// Per decision, the effect of its selected tool where it was called
    /// (`None`: no call, or an unknown effect).
    pub(super) call_effects: Vec<Option<Effect>>,
    /// The run's catalogue: the run record's, else its first decision's.
    pub(super) catalogue: Option<String>,
    /// Per decision, its arguments against the declared schema (§8).
    pub(super) schema: Vec<SchemaCheck>,
}

impl Judged<'_> {
    /// Decision `i`'s outcome as the ladder judged it: the recorded one,
    /// else the refusal §8 puts on an invalid call or an unknown tool.
    pub(super) fn outcome(&self, i: usize) -> (Option<Status>, Option<Stage>, Option<&str>) {
        outcome(&self.decisions[i], &self.schema[i])
    }
}

fn outcome<'a>(
    d: &'a StoredDecision,
    check: &SchemaCheck,
) -> (Option<Status>, Option<Stage>, Option<&'a str>) {
    match boundary(check, d.status) {
        Some((status, stage, reason)) => (Some(status), Some(stage), Some(reason)),
        None => (d.status, d.stage, d.reason.as_deref()),
    }
}

/// Judges a run; `decisions` are all of its decisions in step order. Reads
/// the payload parts the run's expectations and the error stages need into
/// them first.
pub(super) fn judge<'d>(
    ctx: &mut Context<'_>,
    run_id: &str,
    run: &'d StoredRun,
    decisions: &'d mut [StoredDecision],
) -> Result<Judged<'d>> {
    let cases = ctx.run_cases(run.task_id.as_deref())?;
    let case_refs: Vec<CaseRef<'_>> = cases.iter().map(StoredCase::as_ref).collect();
    let catalogue = run
        .menu
        .catalogue
        .clone()
        .or_else(|| decisions.first().and_then(|d| d.menu.catalogue.clone()));
    let expectations = ladder::run_expectations(&case_refs, catalogue.as_deref()).cloned();
    let parts = Parts {
        arguments: expectations.as_ref().is_some_and(|e| e.calls.is_some())
            || has_definitions(run, decisions),
        raw: expectations
            .as_ref()
            .is_some_and(|e| e.outputs.as_ref().is_some_and(|o| !o.is_empty())),
        error_results: !ctx.error_stages.is_empty(),
    };
    load_parts(ctx.conn, run_id, decisions, parts)?;
    let decisions: &'d [StoredDecision] = decisions;

    let mut effs = Vec::with_capacity(decisions.len());
    for d in decisions {
        effs.push(effective(ctx, &d.menu, &run.menu)?);
    }
    let run_view = match &catalogue {
        Some(c) => ctx.catalogue(c)?,
        None => None,
    };
    let schema = check_calls(ctx, run, decisions, &effs, expectations.as_ref())?;
    let effects = Effects {
        rules: &ctx.effect_rules,
        recorded: &run.recorded_effects,
    };
    let steps: Vec<StepInput<'_>> = decisions
        .iter()
        .zip(&effs)
        .zip(&schema)
        .map(|((d, e), check)| {
            let (status, stage, reason) = outcome(d, check);
            StepInput {
                step: d.step,
                turn: d.turn,
                menu: e.menu(d.exposed.as_deref()),
                catalogue: e.catalogue_name,
                selected: d.selected.as_deref(),
                expected: d.expected.as_ref(),
                status,
                stage,
                reason,
                message: d.message.as_deref(),
                result: d.result.as_ref(),
                progress: d.progress,
                abstain: e.abstain_or(&ctx.abstain),
                arguments: d.arguments.as_ref(),
                text: d.text.as_deref(),
                raw: d.raw.as_ref(),
            }
        })
        .collect();
    let input = RunInput {
        cases: &case_refs,
        catalogue: catalogue.as_deref(),
        catalogue_view: run_view.as_deref(),
        effects,
        reasons: &ctx.reasons,
        error_stages: &ctx.error_stages,
        success: run.success,
    };
    let verdict = ladder::classify_run(&input, &steps);
    let call_effects = steps
        .iter()
        .map(|s| {
            s.selected
                .and_then(|t| effects.of(t, s.menu.catalogue))
                .map(|(e, _)| e)
        })
        .collect();
    drop(steps);
    Ok(Judged {
        decisions,
        effs,
        verdict,
        expectations,
        call_effects,
        catalogue,
        schema,
    })
}
