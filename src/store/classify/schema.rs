//! Arguments against the declared schema (`expectations.md` §8) in the
//! classification pass: each call's arguments checked against its
//! definition (the decision's catalogue, else the run's recorded tool
//! definitions) by rung-core's [`SchemaChecker`]; BFCL's rules for a run
//! whose case says `"checker": "bfcl"`.

use super::context::{Context, Effective};
use super::stored::{StoredDecision, StoredRun};
use crate::error::Result;
use crate::ladder::schema::{CallToCheck, SchemaCheck};
use crate::model::{Checker, Expectations};

/// Whether a run has any definition to check its calls against, so its
/// decisions' arguments must be read.
pub(super) fn has_definitions(run: &StoredRun, decisions: &[StoredDecision]) -> bool {
    !run.tool_schemas.is_empty()
        || run.menu.catalogue.is_some()
        || decisions.iter().any(|d| d.menu.catalogue.is_some())
}

/// §8 for each decision of a run, in order.
pub(super) fn check_calls(
    ctx: &mut Context<'_>,
    run: &StoredRun,
    decisions: &[StoredDecision],
    effs: &[Effective<'_>],
    expectations: Option<&Expectations>,
) -> Result<Vec<SchemaCheck>> {
    let bfcl = expectations
        .filter(|e| e.checker == Checker::Bfcl)
        .and_then(|e| e.calls.as_deref());
    let mut out = Vec::with_capacity(decisions.len());
    for (d, e) in decisions.iter().zip(effs) {
        if d.selected.is_none() {
            out.push(SchemaCheck::NotChecked);
            continue;
        }
        let catalogue = match e.catalogue_name {
            Some(c) => ctx.catalogue_schemas(c)?,
            None => None,
        };
        let mut pseudo: Vec<&str> = vec![e.abstain_or(&ctx.abstain)];
        pseudo.extend(e.controls.iter().map(String::as_str));
        let call = CallToCheck {
            selected: d.selected.as_deref(),
            arguments: d.arguments.as_ref(),
            catalogue: catalogue.as_deref(),
            recorded: &run.tool_schemas,
            pseudo: &pseudo,
            bfcl,
        };
        out.push(ctx.schema_checker.check(&call));
    }
    Ok(out)
}
