//! The three tool sets of the routing walk (ladder.md): the registry, what
//! the policy exposed, and what retrieval put on the menu.

use std::collections::BTreeSet;

use super::scope::Scope;
use crate::check::NO_CALL;
use crate::model::{Label, Retrieval};

pub(super) struct Sets {
    pub registry: BTreeSet<String>,
    pub exposed: BTreeSet<String>,
    pub retrieved: BTreeSet<String>,
}

/// The top `k` candidates that are exposed and not trusted controls.
pub(super) fn rank_visible(
    r: &Retrieval,
    exposed: &BTreeSet<String>,
    controls: &[String],
) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut ranked = vec![];
    for (n, _) in &r.candidates {
        if exposed.contains(n) && !controls.contains(n) && seen.insert(n.clone()) {
            ranked.push(n.clone());
        }
    }
    ranked.truncate(r.k as usize);
    ranked
}

/// The sets from the best evidence the decision has; with no evidence at
/// all, each set holds the acceptable tools and the selected one.
pub(super) fn sets(s: &Scope, label: Option<&Label>) -> Sets {
    let (d, cat, visible, controls) = (s.d, s.cat, s.visible, &s.controls);
    let cat_names: BTreeSet<String> = cat
        .map(|c| c.tools.iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default();
    let no_evidence =
        cat.is_none() && d.exposed.is_none() && visible.is_none() && s.retrieval.is_none();
    let mut registry = cat_names.clone();
    registry.extend(controls.iter().cloned());
    registry.insert(NO_CALL.into());
    registry.extend(d.exposed.iter().flatten().cloned());
    registry.extend(visible.into_iter().flatten().cloned());
    let mut exposed: BTreeSet<String> = match (&d.exposed, s.policy, cat) {
        (Some(e), _, _) => e.iter().cloned().collect(),
        (None, Some(p), Some(c)) => c
            .tools
            .iter()
            .filter(|t| p.hides(t).is_none())
            .map(|t| t.name.clone())
            .collect(),
        _ => registry.clone(),
    };
    exposed.extend(controls.iter().cloned());
    exposed.insert(NO_CALL.into());
    exposed.extend(visible.into_iter().flatten().cloned());
    let mut retrieved: BTreeSet<String> = match (visible, s.retrieval) {
        (Some(v), _) => v.iter().cloned().collect(),
        (None, Some(r)) => {
            let mut s: BTreeSet<String> = controls.iter().cloned().collect();
            s.extend(rank_visible(r, &exposed, controls));
            s
        }
        _ => exposed.clone(),
    };
    retrieved.insert(NO_CALL.into());
    let mut sets = Sets {
        registry,
        exposed,
        retrieved,
    };
    if no_evidence {
        for set in [&mut sets.registry, &mut sets.exposed, &mut sets.retrieved] {
            set.extend(label.iter().flat_map(|l| l.acceptable.iter().cloned()));
            set.insert(s.selected.clone());
        }
    }
    sets
}
