//! Why each catalogue tool was visible or hidden at a decision: rules 1–6
//! of the exposure ladder for every tool (`rung explain`, the tool audit,
//! the Run screen's hidden tools).

use super::{Menu, Sets, ToolInfo, contains, policy_hides, policy_hides_why, rank_text};
use crate::model::{Label, NO_CALL, Rule};

/// Why one catalogue tool was visible or hidden at a decision.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolVisibility {
    pub name: String,
    pub visible: bool,
    pub rule: Rule,
    pub why: String,
}

/// Rules 1–6 for one catalogue tool: (visible, rule, why).
fn rule_for(sets: &Sets<'_>, menu: Menu<'_>, name: &str, tool: &ToolInfo) -> (bool, Rule, String) {
    if contains(menu.controls, name) {
        return (
            true,
            Rule::TrustedControl,
            "trusted control: always visible".to_string(),
        );
    }
    if let Some(policy) = menu.policy
        && let Some(rule) = policy_hides(policy, tool)
    {
        return (false, rule, policy_hides_why(policy, tool, rule));
    }
    let eligible = if menu.policy.is_some() {
        "eligible"
    } else {
        "no policy"
    };
    if let Some(r) = menu.retrieval {
        let rank = sets.rank(name);
        return if rank.is_some_and(|(rk, _)| rk <= r.k as usize) {
            (
                true,
                Rule::Retrieved,
                format!("{eligible}, retrieved: {}", rank_text(rank, r.k)),
            )
        } else {
            (
                false,
                Rule::NotRetrieved,
                format!("{eligible}, not retrieved: {}", rank_text(rank, r.k)),
            )
        };
    }
    if menu.policy.is_some() {
        (
            true,
            Rule::Eligible,
            "eligible: the policy allows it and no retrieval was recorded".to_string(),
        )
    } else {
        (
            true,
            Rule::Flat,
            "no policy and no retrieval recorded: every catalogue tool was visible".to_string(),
        )
    }
}

/// For every catalogue tool (by name), whether it was visible and the rule
/// that explains it; with no catalogue, the recorded menu with rule `recorded`.
pub fn explain_tools(
    menu: Menu<'_>,
    label: Option<&Label>,
    selected: Option<&str>,
) -> Vec<ToolVisibility> {
    let sets = Sets::new(menu, label, selected);
    let Some(cat) = menu.catalogue else {
        // "The recorded menu's names": the recorded visible menu.
        let mut names: Vec<String> = menu.visible.map(<[String]>::to_vec).unwrap_or_default();
        names.sort();
        names.dedup();
        return names
            .into_iter()
            .filter(|n| n != NO_CALL)
            .map(|name| ToolVisibility {
                name,
                visible: true,
                rule: Rule::Recorded,
                why: "in the recorded menu (no catalogue is known for this decision)".to_string(),
            })
            .collect();
    };
    // The menu the model actually saw: the recorded one when there is one.
    // Only a recorded `visible` menu overrides the rules (ladder.md); a
    // recorded `exposed` set shapes the ranks but not this.
    let menu_recorded = menu.visible.is_some();
    let what = "recorded visible menu";
    cat.tools
        .iter()
        .map(|(name, tool)| {
            let (by_rule, rule, why) = rule_for(&sets, menu, name, tool);
            let actual = sets.in_retrieved(name);
            let (visible, rule, why) = if !menu_recorded || actual == by_rule {
                (by_rule, rule, why)
            } else if actual {
                (
                    true,
                    Rule::Recorded,
                    format!("in the {what} though rule {rule} hides it: {why}"),
                )
            } else {
                (
                    false,
                    Rule::NotRecorded,
                    format!("not in the {what} though rule {rule} shows it: {why}"),
                )
            };
            ToolVisibility {
                name: name.clone(),
                visible,
                rule,
                why,
            }
        })
        .collect()
}
