//! The four findings of a run with expectations (`expectations.md` §6):
//! missing calls, argument mismatches, unexpected calls and missing
//! outputs, as values with a human detail rendered on demand (masked).

use serde_json::Value;

use super::{CallWalk, KeyDiff, WalkCall, WalkResult, argument_diffs};
use crate::model::{Effect, Expectations, ExpectedCall, ExpectedValue, FindingKind, NO_CALL};

/// One of the four findings of a run with expectations (§6).
#[derive(Debug, Clone, PartialEq)]
pub enum ExpectationFinding {
    /// Required expected call `expected` never matched; `mismatched` is
    /// the last call of its tool that mismatched, with the keys on which it
    /// differs from this expected call.
    MissingCall {
        expected: usize,
        call: ExpectedCall,
        mismatched: Option<(i64, Vec<KeyDiff>)>,
    },
    ArgumentMismatch {
        step: i64,
        tool: String,
        expected: usize,
        keys: Vec<KeyDiff>,
    },
    UnexpectedCall {
        step: i64,
        tool: String,
        effect: Effect,
        /// What was still required at that point (or `@no_call`).
        acceptable: Vec<String>,
    },
    MissingOutput {
        output: String,
    },
}

/// Longest value text in a finding's detail, in characters.
pub const VALUE_CHARS: usize = 120;

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// A value for a detail: compact JSON, masked, then cut.
fn value_text(v: &Value, mask: &dyn Fn(&str) -> String) -> String {
    cut(&mask(&v.to_string()), VALUE_CHARS)
}

fn expected_text(e: &ExpectedValue, mask: &dyn Fn(&str) -> String) -> String {
    match e {
        ExpectedValue::Is(v) => value_text(v, mask),
        ExpectedValue::OneOf { values, absent } => {
            let list: Vec<String> = values.iter().map(|v| value_text(v, mask)).collect();
            let absent = if *absent { " or absent" } else { "" };
            format!("one of [{}]{absent}", list.join(", "))
        }
    }
}

/// The differing keys, each with its expected and actual value (masked and
/// cut), joined by `; `.
pub fn diffs_text(keys: &[KeyDiff], mask: &dyn Fn(&str) -> String) -> String {
    if keys.is_empty() {
        // BFCL's checker: a call refused at the boundary matches nothing.
        return "no argument differs, but the call was refused, so it matches nothing".to_string();
    }
    keys.iter()
        .map(|d| {
            let want = match &d.expected {
                Some(e) => format!("expected {}", expected_text(e, mask)),
                None => "not expected".to_string(),
            };
            let got = match &d.actual {
                Some(v) => format!("got {}", value_text(v, mask)),
                None => "missing".to_string(),
            };
            format!("{}: {want}, {got}", cut(&mask(&d.key), VALUE_CHARS))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl ExpectationFinding {
    pub fn kind(&self) -> FindingKind {
        match self {
            ExpectationFinding::MissingCall { .. } => FindingKind::MissingCall,
            ExpectationFinding::ArgumentMismatch { .. } => FindingKind::ArgumentMismatch,
            ExpectationFinding::UnexpectedCall { .. } => FindingKind::UnexpectedCall,
            ExpectationFinding::MissingOutput { .. } => FindingKind::MissingOutput,
        }
    }

    /// The finding's step (null for the missing ones).
    pub fn step(&self) -> Option<i64> {
        match self {
            ExpectationFinding::ArgumentMismatch { step, .. }
            | ExpectationFinding::UnexpectedCall { step, .. } => Some(*step),
            _ => None,
        }
    }

    pub fn tool(&self) -> Option<&str> {
        match self {
            ExpectationFinding::MissingCall { call, .. } => Some(&call.tool),
            ExpectationFinding::ArgumentMismatch { tool, .. }
            | ExpectationFinding::UnexpectedCall { tool, .. } => Some(tool),
            ExpectationFinding::MissingOutput { .. } => None,
        }
    }

    /// The human detail. `mask` masks secrets in a value's text (pass the
    /// redactor, or the identity); values are cut to [`VALUE_CHARS`] after
    /// masking.
    pub fn detail(&self, mask: &dyn Fn(&str) -> String) -> String {
        match self {
            ExpectationFinding::MissingCall {
                expected,
                call,
                mismatched,
            } => {
                let args = match &call.arguments {
                    Some(a) if !a.is_empty() => a
                        .iter()
                        .map(|(k, v)| {
                            format!("{}: {}", cut(&mask(k), VALUE_CHARS), expected_text(v, mask))
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    _ => "any arguments".to_string(),
                };
                let mut s = format!(
                    "expected call {} ({}) with {args} was never made",
                    expected + 1,
                    call.tool
                );
                if let Some((step, keys)) = mismatched {
                    s.push_str(&format!(
                        "; step {step} called {} with other arguments: {}",
                        call.tool,
                        diffs_text(keys, mask)
                    ));
                }
                s
            }
            ExpectationFinding::ArgumentMismatch {
                tool,
                expected,
                keys,
                ..
            } => format!(
                "{tool} was called with arguments that differ from expected call {}: {}",
                expected + 1,
                diffs_text(keys, mask)
            ),
            ExpectationFinding::UnexpectedCall {
                tool,
                effect,
                acceptable,
                ..
            } => {
                if acceptable.iter().any(|a| a == NO_CALL) {
                    format!(
                        "{tool} ({effect}) matches no expected call; no required call was left to make"
                    )
                } else {
                    format!(
                        "{tool} ({effect}) matches no expected call; still expected: {}",
                        acceptable.join(", ")
                    )
                }
            }
            ExpectationFinding::MissingOutput { output } => format!(
                "no answer contains {} (compared lowercased, without commas)",
                cut(
                    &mask(&Value::String(output.clone()).to_string()),
                    VALUE_CHARS
                )
            ),
        }
    }
}

/// The findings of a walked run, in this order: missing calls (list
/// order), argument mismatches and unexpected calls (step order), missing
/// outputs (list order). `decisions` are the walk's input.
pub fn findings(
    calls: &[ExpectedCall],
    modes: &Expectations,
    walk: &CallWalk,
    decisions: &[WalkCall<'_>],
    missing_outputs: &[&str],
) -> Vec<ExpectationFinding> {
    let mut out = Vec::new();
    for j in walk.missing() {
        let call = &calls[j];
        let mismatched = decisions
            .iter()
            .zip(&walk.results)
            .rfind(|(d, r)| {
                d.selected == Some(call.tool.as_str())
                    && matches!(r, Some(WalkResult::Mismatch { .. }))
            })
            .map(|(d, _)| (d.step, argument_diffs(call, d.arguments, modes)));
        out.push(ExpectationFinding::MissingCall {
            expected: j,
            call: call.clone(),
            mismatched,
        });
    }
    for (d, r) in decisions.iter().zip(&walk.results) {
        let tool = d.selected.unwrap_or(NO_CALL).to_string();
        match r {
            Some(WalkResult::Mismatch { expected, keys }) => {
                out.push(ExpectationFinding::ArgumentMismatch {
                    step: d.step,
                    tool,
                    expected: *expected,
                    keys: keys.clone(),
                })
            }
            Some(WalkResult::Unexpected { acceptable }) => {
                out.push(ExpectationFinding::UnexpectedCall {
                    step: d.step,
                    tool,
                    effect: d.effect.unwrap_or(Effect::Mutating),
                    acceptable: acceptable.clone(),
                })
            }
            _ => {}
        }
    }
    out.extend(
        missing_outputs
            .iter()
            .map(|o| ExpectationFinding::MissingOutput {
                output: o.to_string(),
            }),
    );
    out
}
