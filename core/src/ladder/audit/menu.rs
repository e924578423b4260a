//! `menu_changed`: the menu the model saw (a decision's `retrieved` set,
//! `ladder.md`) differs between two decisions of one run. The scale
//! chapter asks for a menu pinned for the run: a menu that changes
//! mid-run breaks the cacheable prefix and lets the vocabulary drift. Only
//! decisions whose menu is known count; the order of a menu does not.

use super::{AuditFinding, AuditStep, What, cut, names};
use crate::model::FindingKind;

/// Names listed per side in a detail.
const MAX_NAMES: usize = 10;

/// The `menu_changed` finding's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuChange {
    /// How many times the menu changed from one decision (with a known
    /// menu) to the next.
    pub changes: usize,
    /// The decision before the first change.
    pub from_step: i64,
    /// What the first change added and removed, sorted.
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// The phases before and at the first change, when they differ (a
    /// phase's own exposure policy changed the menu).
    pub phases: Option<(Option<String>, Option<String>)>,
}

impl MenuChange {
    pub(super) fn detail(&self, mask: &dyn Fn(&str) -> String) -> String {
        let times = if self.changes == 1 {
            "once".to_string()
        } else {
            format!("{} times", self.changes)
        };
        let mut first = Vec::new();
        if !self.added.is_empty() {
            first.push(format!("added {}", names(&self.added, MAX_NAMES, mask)));
        }
        if !self.removed.is_empty() {
            first.push(format!("removed {}", names(&self.removed, MAX_NAMES, mask)));
        }
        let phase = |p: &Option<String>| match p {
            Some(p) => cut(&mask(p)),
            None => "none".to_string(),
        };
        let phases = match &self.phases {
            Some((a, b)) => format!(" (the phase changed from {} to {})", phase(a), phase(b)),
            None => String::new(),
        };
        format!(
            "the visible menu changed {times} within the run; first here, after step {}{phases}: {}",
            self.from_step,
            first.join("; ")
        )
    }
}

/// One finding per run whose menu changed, at the first decision that
/// saw a different menu.
pub(super) fn changed(steps: &[AuditStep<'_>]) -> Vec<AuditFinding> {
    let mut prev: Option<(&AuditStep<'_>, Vec<&str>)> = None;
    let mut first: Option<AuditFinding> = None;
    let mut changes = 0;
    for (j, s) in steps.iter().enumerate() {
        if !s.menu.has_evidence() {
            continue;
        }
        let menu = s.menu.retrieved_refs();
        if let Some((from, before)) = &prev
            && *before != menu
        {
            changes += 1;
            if first.is_none() {
                let added = menu
                    .iter()
                    .filter(|n| before.binary_search(n).is_err())
                    .map(|n| n.to_string())
                    .collect();
                let removed = before
                    .iter()
                    .filter(|n| menu.binary_search(n).is_err())
                    .map(|n| n.to_string())
                    .collect();
                first = Some(AuditFinding {
                    kind: FindingKind::MenuChanged,
                    at: j,
                    step: s.step,
                    tool: None,
                    what: What::MenuChanged(MenuChange {
                        changes: 0,
                        from_step: from.step,
                        added,
                        removed,
                        phases: (from.phase != s.phase)
                            .then(|| (from.phase.map(str::to_string), s.phase.map(str::to_string))),
                    }),
                });
            }
        }
        prev = Some((s, menu));
    }
    first
        .map(|mut f| {
            if let What::MenuChanged(m) = &mut f.what {
                m.changes = changes;
            }
            f
        })
        .into_iter()
        .collect()
}
