//! The ladder's findings about menus and calls (ladder.md, "findings"):
//! exposure mismatches, trusted controls that are not controls or not
//! trusted, hidden proposals, unclassified refusals, schema violations.

use std::collections::{BTreeMap, BTreeSet};

use super::menu::{Sets, rank_visible};
use super::scope::Scope;
use crate::check::Finding;
use crate::model::{Catalogue, Effect, Status, default_stage};

/// (catalogue, trusted name) pairs seen on decisions.
pub(super) type Trusted = BTreeSet<(String, String)>;

/// Every finding about one decision; its trusted controls go to `trusted`.
pub(super) fn of_decision(
    s: &Scope,
    sets: &Sets,
    findings: &mut BTreeSet<Finding>,
    trusted: &mut Trusted,
) {
    if let Some(c) = s.cat {
        exposure_mismatches(s, c, sets, findings);
        controls(s, c, findings, trusted);
    }
    let d = s.d;
    if s.known_menu() && d.selected.is_some() && !sets.retrieved.contains(&s.selected) {
        findings.insert(s.finding("hidden_proposal", Some(s.selected.clone())));
    }
    if let Some(o) = &d.outcome
        && o.status == Status::Refused
        && o.stage.is_none()
        && o.reason.as_deref().and_then(default_stage).is_none()
    {
        findings.insert(s.finding("unclassified_reason", d.selected.clone()));
    }
    // expectations.md §8: the arguments against the tool's schema.
    if let (Some(c), Some(sel), Some(args)) = (s.cat, d.selected.as_ref(), d.arguments.as_ref())
        && let Some(schema) = c.tool(sel).and_then(|t| t.input_schema.as_ref())
        && !schema_accepts(schema, args)
    {
        findings.insert(s.finding("schema_violation", Some(sel.clone())));
    }
}

/// Tools shown or exposed that the catalogue lacks or the policy hides,
/// controls missing from `visible`, and a `visible` list that is not the
/// retrieval's top `k`.
fn exposure_mismatches(s: &Scope, c: &Catalogue, sets: &Sets, findings: &mut BTreeSet<Finding>) {
    let (policy, controls) = (s.policy, &s.controls);
    for n in s
        .visible
        .into_iter()
        .flatten()
        .chain(s.d.exposed.iter().flatten())
    {
        if controls.contains(n) {
            continue;
        }
        let bad = match c.tool(n) {
            None => true,
            Some(t) => policy.is_some_and(|p| p.hides(t).is_some()),
        };
        if bad {
            findings.insert(s.finding("exposure_mismatch", Some(n.clone())));
        }
    }
    let Some(v) = s.visible else { return };
    for tc in controls {
        if !v.contains(tc) {
            findings.insert(s.finding("exposure_mismatch", Some(tc.clone())));
        }
    }
    if let Some(r) = s.retrieval {
        let top = rank_visible(r, &sets.exposed, controls);
        for t in &c.tools {
            if controls.contains(&t.name) || policy.is_some_and(|p| p.hides(t).is_some()) {
                continue;
            }
            if top.contains(&t.name) != v.contains(&t.name) {
                findings.insert(s.finding("exposure_mismatch", Some(t.name.clone())));
            }
        }
    }
}

/// A trusted control must be a harmless control tool (`invalid_control`).
fn controls(s: &Scope, c: &Catalogue, findings: &mut BTreeSet<Finding>, trusted: &mut Trusted) {
    for tc in &s.controls {
        trusted.insert((c.version.clone(), tc.clone()));
        if let Some(t) = c.tool(tc)
            && (t.family != "control" || t.effect != Effect::None || t.open_world)
        {
            findings.insert(Finding {
                kind: "invalid_control",
                catalogue: Some(c.version.clone()),
                task_id: None,
                run_id: None,
                step: None,
                tool: Some(tc.clone()),
            });
        }
    }
}

/// Control tools that no decision trusted (`control_impostor`).
pub(super) fn control_impostors(
    catalogues: &BTreeMap<String, Catalogue>,
    trusted: &Trusted,
    findings: &mut BTreeSet<Finding>,
) {
    for c in catalogues.values() {
        for t in &c.tools {
            if t.family == "control" && !trusted.contains(&(c.version.clone(), t.name.clone())) {
                findings.insert(Finding {
                    kind: "control_impostor",
                    catalogue: Some(c.version.clone()),
                    task_id: None,
                    run_id: None,
                    step: None,
                    tool: Some(t.name.clone()),
                });
            }
        }
    }
}

/// Whether a tool's JSON Schema accepts a call's arguments (a schema
/// without a root `type` is an object's, as tool arguments are).
fn schema_accepts(schema: &serde_json::Value, args: &serde_json::Value) -> bool {
    let mut schema = schema.clone();
    if let Some(m) = schema.as_object_mut() {
        m.entry("type").or_insert_with(|| "object".into());
    }
    jsonschema::validator_for(&schema).map_or(true, |v| v.is_valid(args))
}
