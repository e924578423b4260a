//! The six audit findings on hand-made runs, with their near misses.

use serde_json::{Value, json};

use super::*;
use crate::ladder::effects::{EffectRules, RecordedEffects};
use crate::ladder::{CatalogueView, ToolInfo};

/// A value that lives as long as the test (steps borrow their payloads).
fn v(x: Value) -> &'static Value {
    Box::leak(Box::new(x))
}

fn names(v: &[&str]) -> &'static [String] {
    Box::leak(
        v.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

/// The billing tools: lookups read-only, the rest writes (from the
/// configuration's `[effects]`); nothing recorded.
struct World {
    rules: EffectRules,
    recorded: RecordedEffects,
    reasons: ReasonTable,
    announce: Announce,
    definitions: Vec<ToolDoc>,
}

impl World {
    fn new() -> World {
        World {
            rules: EffectRules::new([
                ("find_*", Effect::ReadOnly),
                ("list_*", Effect::ReadOnly),
                ("get_*", Effect::ReadOnly),
                ("cancel_*", Effect::Mutating),
                ("refund_*", Effect::Destructive),
            ]),
            recorded: RecordedEffects::default(),
            reasons: ReasonTable::default(),
            announce: Announce::default(),
            definitions: Vec::new(),
        }
    }

    fn run<'a>(&'a self, goal: Option<&'a str>, intent: Option<Intent>) -> AuditRun<'a> {
        AuditRun {
            goal,
            scope: None,
            intent,
            effects: Effects {
                rules: &self.rules,
                recorded: &self.recorded,
            },
            definitions: &self.definitions,
            reasons: &self.reasons,
            announce: &self.announce,
        }
    }
}

/// An `ok` call at step `n` (turn `n`) with its arguments and result.
fn call(n: i64, tool: &'static str, args: Value, result: Option<Value>) -> AuditStep<'static> {
    AuditStep {
        step: n,
        turn: n,
        phase: None,
        menu: Menu::default(),
        docs: &[],
        selected: Some(tool),
        status: Some(Status::Ok),
        stage: None,
        reason: None,
        retryable: None,
        arguments: Some(v(args)),
        result: result.map(v),
        text: None,
        raw: None,
    }
}

/// A reply without a call at step `n`, its words in `raw`.
fn reply(n: i64, words: &str) -> AuditStep<'static> {
    AuditStep {
        step: n,
        turn: n,
        phase: None,
        menu: Menu::default(),
        docs: &[],
        selected: None,
        status: Some(Status::NotRun),
        stage: None,
        reason: None,
        retryable: None,
        arguments: None,
        result: None,
        text: None,
        raw: Some(v(json!(words))),
    }
}

fn refused(mut s: AuditStep<'static>, reason: &'static str) -> AuditStep<'static> {
    s.status = Some(Status::Refused);
    s.reason = Some(reason);
    s.retryable = Some(false);
    s
}

/// (kind, step, tool, detail) of each finding, the detail unmasked.
fn shown(found: &[AuditFinding]) -> Vec<(FindingKind, i64, Option<&str>, String)> {
    found
        .iter()
        .map(|f| {
            (
                f.kind,
                f.step,
                f.tool.as_deref(),
                f.detail(&|s| s.to_string()),
            )
        })
        .collect()
}

fn kinds(found: &[AuditFinding]) -> Vec<(FindingKind, i64)> {
    found.iter().map(|f| (f.kind, f.step)).collect()
}

mod ids;
mod others;
