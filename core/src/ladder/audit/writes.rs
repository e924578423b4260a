//! `write_under_inform`: a `mutating` or `destructive` call that executed
//! (`ok` or `unknown`) in a run whose intent is `inform`. The chains
//! chapter's intent gate refuses exactly these; a finding means a write got
//! past it (or that no gate was there).

use super::{AuditFinding, AuditRun, AuditStep, What};
use crate::model::{Effect, FindingKind, Intent, Status};

pub(super) fn under_inform(run: &AuditRun<'_>, steps: &[AuditStep<'_>]) -> Vec<AuditFinding> {
    if run.intent != Some(Intent::Inform) {
        return Vec::new();
    }
    steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.status, Some(Status::Ok | Status::Unknown)))
        .filter_map(|(j, s)| {
            let effect @ (Effect::Mutating | Effect::Destructive) = s.effect(&run.effects)? else {
                return None;
            };
            Some(AuditFinding {
                kind: FindingKind::WriteUnderInform,
                at: j,
                step: s.step,
                tool: s.selected.map(str::to_string),
                what: What::WriteUnderInform {
                    effect,
                    fate: s.fate(run.reasons),
                },
            })
        })
        .collect()
}
