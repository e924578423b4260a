//! `repeated_call`: the same tool called again with equal arguments (the
//! normalisation of `expectations.md` §4: numbers by value, objects
//! regardless of key order) after an earlier call of it succeeded, or was
//! refused or failed with `retryable: false`: the answer was already known.
//!
//! The earlier call must be in an earlier turn (parallel calls of one turn
//! were made together). A write that executed in between (`ok` or
//! `unknown`; `mutating`, `destructive` or of unknown effect, like a
//! coding agent's `edit` or `bash`) may have changed the answer, so
//! a call after it is not a repeat: refused "cancel first", cancelled,
//! then the same refund again is the right sequence. So may a refusal in
//! between saying the target changed under the run (reason
//! `version_conflict` or `*_version_conflict`: "changed since the preview,
//! preview again"). After a refusal at PRECONDITION any call that executed
//! in between may have met the precondition ("search this account's
//! tickets first"), so that resets it too. A retry after a retryable failure, an `unknown` outcome or a
//! missing one is not a repeat either.

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::{AuditFinding, AuditRun, AuditStep, Fate, What};
use crate::ladder::expect::values_equal;
use crate::model::{Boundary, FindingKind, Status, Strings};

/// The `repeated_call` finding's facts: the earlier call whose answer was
/// known, and what that answer was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeated {
    pub earlier: i64,
    pub fate: Fate,
}

impl Repeated {
    pub(super) fn detail(&self, tool: &str, mask: &dyn Fn(&str) -> String) -> String {
        let known = match &self.fate {
            Fate::Ok => "which succeeded".to_string(),
            other => format!("which was {} with retryable: false", other.text(mask)),
        };
        format!(
            "{} was called again with the same arguments as step {}, {known}; nothing executed in between could have changed the answer",
            super::cut(&mask(tool)),
            self.earlier
        )
    }
}

/// Whether a decision's answer is known for good: it succeeded, or was
/// refused or failed with `retryable: false`.
fn known(s: &AuditStep<'_>) -> bool {
    match s.status {
        Some(Status::Ok) => true,
        Some(Status::Refused | Status::Error) => s.retryable == Some(false),
        _ => false,
    }
}

/// A refusal or failure saying the target changed under the run.
fn changed_under(s: &AuditStep<'_>) -> bool {
    matches!(s.status, Some(Status::Refused | Status::Error))
        && s.reason
            .is_some_and(|r| r == "version_conflict" || r.ends_with("_version_conflict"))
}

fn same_arguments(a: Option<&Value>, b: Option<&Value>) -> bool {
    let null = Value::Null;
    values_equal(a.unwrap_or(&null), b.unwrap_or(&null), Strings::Exact)
}

pub(super) fn repeated(run: &AuditRun<'_>, steps: &[AuditStep<'_>]) -> Vec<AuditFinding> {
    // writes[k] and executed[k]: executed writes (and version conflicts),
    // and executed calls, among steps[..k].
    let mut writes = Vec::with_capacity(steps.len() + 1);
    let mut executed = Vec::with_capacity(steps.len() + 1);
    writes.push(0usize);
    executed.push(0usize);
    for s in steps {
        let ran = s.selected.is_some() && matches!(s.status, Some(Status::Ok | Status::Unknown));
        let may_write = !matches!(
            s.effect(&run.effects),
            Some(crate::model::Effect::ReadOnly | crate::model::Effect::None)
        );
        let w = (ran && may_write) || changed_under(s);
        writes.push(writes.last().copied().unwrap_or(0) + usize::from(w));
        executed.push(executed.last().copied().unwrap_or(0) + usize::from(ran || w));
    }
    // The earlier decisions of each tool, in step order.
    let mut by_tool: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    let mut out = Vec::new();
    for (j, s) in steps.iter().enumerate() {
        let Some(tool) = s.selected else { continue };
        let earlier = by_tool.entry(tool).or_default();
        // The latest earlier call of this tool, in an earlier turn, with a
        // known answer and the same arguments.
        let hit = earlier
            .iter()
            .rev()
            .map(|&i| (i, &steps[i]))
            .find(|(_, e)| e.turn < s.turn && known(e) && same_arguments(e.arguments, s.arguments));
        if let Some((i, e)) = hit {
            let fate = e.fate(run.reasons);
            // What may have changed the answer since.
            let since = if fate == Fate::Refused(Some(Boundary::Precondition)) {
                &executed
            } else {
                &writes
            };
            if since[j] == since[i + 1] {
                out.push(AuditFinding {
                    kind: FindingKind::RepeatedCall,
                    at: j,
                    step: s.step,
                    tool: Some(tool.to_string()),
                    what: What::Repeated(Repeated {
                        earlier: e.step,
                        fate,
                    }),
                });
            }
        }
        earlier.push(j);
    }
    out
}
