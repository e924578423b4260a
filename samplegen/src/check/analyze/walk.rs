//! The ladder walk of one decision (ladder.md): the routing rungs from the
//! three sets, the boundary rung from the outcome, then progress.

use std::collections::BTreeSet;

use super::menu::Sets;
use crate::model::{Decision, Label, Outcome, Progress, Status, default_stage};

/// Where the walk stopped, and what it saw on the way.
pub(super) struct Walk {
    pub in_registry: bool,
    pub in_exposed: bool,
    pub in_retrieved: bool,
    pub routing: Option<&'static str>,
    pub boundary: Option<&'static str>,
    pub rung: &'static str,
    pub violated: bool,
}

pub(super) fn walk(d: &Decision, selected: &str, label: Option<&Label>, sets: &Sets) -> Walk {
    let hit =
        |s: &BTreeSet<String>| label.is_some_and(|l| l.acceptable.iter().any(|a| s.contains(a)));
    let (in_registry, in_exposed, in_retrieved) = (
        hit(&sets.registry),
        hit(&sets.exposed),
        hit(&sets.retrieved),
    );
    let routing = match label {
        None => Some("unlabelled"),
        Some(l) => {
            if !in_registry {
                Some("coverage")
            } else if !in_exposed {
                Some("exposure")
            } else if !in_retrieved {
                Some("discovery")
            } else if !l.acceptable.iter().any(|a| a == selected) {
                Some("selection")
            } else {
                None
            }
        }
    };
    let boundary = d.outcome.as_ref().and_then(boundary);
    let stalled = matches!(d.progress, Some(Progress::None | Progress::Regressed));
    Walk {
        in_registry,
        in_exposed,
        in_retrieved,
        routing,
        boundary,
        rung: rung(routing, boundary, stalled),
        violated: label.is_some_and(|l| l.forbidden.iter().any(|f| f == selected)),
    }
}

/// The boundary rung of an outcome: a refusal's stage (given, else its
/// reason's default, else `unclassified`), `execution` for an error.
fn boundary(o: &Outcome) -> Option<&'static str> {
    match o.status {
        Status::Refused => Some(
            o.stage
                .or_else(|| o.reason.as_deref().and_then(default_stage))
                .unwrap_or("unclassified"),
        ),
        Status::Error | Status::Unknown => Some("execution"),
        Status::Ok | Status::NotRun => None,
    }
}

fn rung(
    routing: Option<&'static str>,
    boundary: Option<&'static str>,
    stalled: bool,
) -> &'static str {
    match (routing, boundary) {
        (Some(r), _) if r != "unlabelled" => r,
        (_, Some(b)) => b,
        _ if stalled => "progress",
        // `passed` means judged (expectations.md §1).
        _ if routing == Some("unlabelled") => "unlabelled",
        _ => "passed",
    }
}
