//! Matching a run against its expectations (`expectations.md` §4–§6):
//! argument comparison, the walk over the run's calls, missing calls and
//! outputs, the labels the walk derives and the four findings. Pure
//! functions; [`super::run::classify_run`] puts them together.

use std::collections::BTreeMap;

use serde_json::{Number, Value};

use super::errors::result_text;
use crate::model::{
    ABSENT, Checker, Effect, Expectations, ExpectedCall, ExpectedValue, ExtraArguments, Label,
    NO_CALL, ONE_OF, Status, Strings,
};

mod findings;
pub use findings::{ExpectationFinding, VALUE_CHARS, diffs_text, findings};

/// A string as `"strings": "loose"` compares it (BFCL's checker):
/// lowercased, without spaces and the characters `,./-_*^`, with `'`
/// turned into `"`.
pub fn loose(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .flat_map(char::to_lowercase)
        .map(|c| if c == '\'' { '"' } else { c })
        .collect()
}

/// Text as expected outputs are looked for in it (τ-bench's comparison):
/// lowercased, commas removed.
pub fn output_form(s: &str) -> String {
    s.chars()
        .filter(|c| *c != ',')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Numbers by value: `1` = `1.0`; integers exactly.
fn numbers_equal(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Two JSON values compared after normalisation: numbers by value, objects
/// regardless of key order, arrays in order, strings exactly or loosely.
pub fn values_equal(expected: &Value, actual: &Value, strings: Strings) -> bool {
    let depth = match strings {
        Strings::Exact => Depth::Exact,
        Strings::Loose => Depth::Anywhere,
    };
    equal_at(expected, actual, depth)
}

/// Where loose strings apply inside a value. rung loosens them at any
/// depth; BFCL's checker only in the argument itself, the items of a list
/// argument and the values of a dict (at any depth of dicts, and in the
/// dicts of a list), never inside a list held by a list or a dict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Depth {
    Exact,
    Anywhere,
    BfclTop,
    BfclListItem,
    BfclDictValue,
    /// BFCL's checker with exact strings.
    BfclExact,
}

impl Depth {
    fn item(self) -> Depth {
        match self {
            Depth::BfclTop => Depth::BfclListItem,
            Depth::BfclListItem | Depth::BfclDictValue => Depth::Exact,
            other => other,
        }
    }

    fn value(self) -> Depth {
        match self {
            Depth::BfclTop | Depth::BfclListItem | Depth::BfclDictValue => Depth::BfclDictValue,
            other => other,
        }
    }
}

impl Depth {
    fn is_bfcl(self) -> bool {
        matches!(
            self,
            Depth::BfclTop | Depth::BfclListItem | Depth::BfclDictValue | Depth::BfclExact
        )
    }
}

/// The alternatives of an `{"@one_of": [...]}` object inside an expected
/// value (BFCL's dict answers with too many combinations to expand give
/// one per key), and whether `"@absent"` is among them.
fn nested_one_of(v: &Value) -> Option<(&[Value], bool)> {
    let Value::Object(m) = v else {
        return None;
    };
    match (m.len(), m.get(ONE_OF)) {
        (1, Some(Value::Array(alts))) => Some((alts, alts.iter().any(|a| a == ABSENT))),
        _ => None,
    }
}

fn equal_at(expected: &Value, actual: &Value, depth: Depth) -> bool {
    if depth.is_bfcl()
        && let Some((alts, _)) = nested_one_of(expected)
    {
        return alts
            .iter()
            .any(|a| a != ABSENT && equal_at(a, actual, depth));
    }
    match (expected, actual) {
        (Value::Number(a), Value::Number(b)) => numbers_equal(a, b),
        (Value::String(a), Value::String(b)) => match depth {
            Depth::Exact | Depth::BfclExact => a == b,
            _ => loose(a) == loose(b),
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal_at(x, y, depth.item()))
        }
        (Value::Object(a), Value::Object(b)) if depth.is_bfcl() => {
            b.keys().all(|k| a.contains_key(k))
                && a.iter().all(|(k, x)| match b.get(k) {
                    Some(y) => equal_at(x, y, depth.value()),
                    None => nested_one_of(x).is_some_and(|(_, absent)| absent),
                })
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| equal_at(x, y, depth.value())))
        }
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        _ => false,
    }
}

/// Whether an actual value satisfies an expected one.
pub fn value_matches(expected: &ExpectedValue, actual: &Value, strings: Strings) -> bool {
    match expected {
        ExpectedValue::Is(v) => values_equal(v, actual, strings),
        ExpectedValue::OneOf { values, .. } => {
            values.iter().any(|v| values_equal(v, actual, strings))
        }
    }
}

/// Whether an actual argument satisfies an expected one under a case's
/// modes: with BFCL's checker, loose strings only where BFCL loosens them.
pub fn argument_matches(expected: &ExpectedValue, actual: &Value, modes: &Expectations) -> bool {
    let depth = match (modes.strings, modes.checker) {
        (Strings::Exact, Checker::Rung) => Depth::Exact,
        (Strings::Exact, Checker::Bfcl) => Depth::BfclExact,
        (Strings::Loose, Checker::Rung) => Depth::Anywhere,
        (Strings::Loose, Checker::Bfcl) => Depth::BfclTop,
    };
    match expected {
        ExpectedValue::Is(v) => equal_at(v, actual, depth),
        ExpectedValue::OneOf { values, .. } => values.iter().any(|v| equal_at(v, actual, depth)),
    }
}

/// One argument key on which a call differs from its expected call.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDiff {
    pub key: String,
    /// `None`: the expected call does not list the key (and the case
    /// rejects extra arguments).
    pub expected: Option<ExpectedValue>,
    /// `None`: the call lacks the key.
    pub actual: Option<Value>,
}

/// The keys on which `actual` (a call's arguments) differs from the
/// expected call, by key; empty when they match. Arguments that are not an
/// object have no keys.
pub fn argument_diffs(
    expected: &ExpectedCall,
    actual: Option<&Value>,
    modes: &Expectations,
) -> Vec<KeyDiff> {
    let empty = serde_json::Map::new();
    let actual = match actual {
        Some(Value::Object(m)) => m,
        _ => &empty,
    };
    let no_keys = BTreeMap::new();
    let wanted = expected.arguments.as_ref().unwrap_or(&no_keys);
    let mut diffs = Vec::new();
    for (key, want) in wanted {
        let ok = match actual.get(key) {
            None => want.allows_absent(),
            Some(v) => argument_matches(want, v, modes),
        };
        if !ok {
            diffs.push(KeyDiff {
                key: key.clone(),
                expected: Some(want.clone()),
                actual: actual.get(key).cloned(),
            });
        }
    }
    if modes.extra_arguments == ExtraArguments::Reject {
        for (key, v) in actual {
            if !wanted.contains_key(key) {
                diffs.push(KeyDiff {
                    key: key.clone(),
                    expected: None,
                    actual: Some(v.clone()),
                });
            }
        }
        diffs.sort_by(|a, b| a.key.cmp(&b.key));
    }
    diffs
}

/// Whether an expected call of a tool with this effect is required: all
/// but `none` and `read_only` (an unknown effect is required).
pub fn is_required(effect: Option<Effect>) -> bool {
    !matches!(effect, Some(Effect::None | Effect::ReadOnly))
}

/// One decision of a run as the matching walk sees it.
#[derive(Debug, Clone, Copy)]
pub struct WalkCall<'a> {
    pub step: i64,
    pub selected: Option<&'a str>,
    pub status: Option<Status>,
    pub arguments: Option<&'a Value>,
    /// The effect of `selected` where it was called (`None`: unknown).
    pub effect: Option<Effect>,
}

impl WalkCall<'_> {
    /// A call is a selected tool whose outcome is `ok`, `unknown` or
    /// missing; a refused, failed or unrun one changed nothing.
    pub fn is_call(&self) -> bool {
        self.selected.is_some() && matches!(self.status, None | Some(Status::Ok | Status::Unknown))
    }
}

/// What the walk says of one decision.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkResult {
    /// The call matched expected call `expected` (an index into the list).
    Matched { expected: usize },
    /// The call's tool is that of required expected call `expected`, still
    /// unmatched, but these keys differ.
    Mismatch { expected: usize, keys: Vec<KeyDiff> },
    /// A mutating or destructive call no expected call accounts for;
    /// `acceptable` is what was still required then (or `@no_call`).
    Unexpected { acceptable: Vec<String> },
    /// A call the walk does not judge (a lookup, a no-effect or
    /// unknown-effect tool).
    NotJudged,
    /// The run's last decision made no call while required expected calls
    /// were unmatched; `acceptable` holds their tools.
    EndedShort { acceptable: Vec<String> },
}

impl WalkResult {
    /// The label the walk derives for a decision that has none of its own
    /// (§5), from its result and its selected tool.
    pub fn derived_label(&self, selected: Option<&str>) -> Option<Label> {
        match self {
            WalkResult::Matched { .. } | WalkResult::Mismatch { .. } => {
                selected.map(|s| Label::new(vec![s.to_string()], Vec::new()))
            }
            WalkResult::Unexpected { acceptable } | WalkResult::EndedShort { acceptable } => {
                Some(Label::new(acceptable.clone(), Vec::new()))
            }
            WalkResult::NotJudged => None,
        }
    }

    pub fn is_judged(&self) -> bool {
        matches!(
            self,
            WalkResult::Matched { .. } | WalkResult::Mismatch { .. }
        )
    }
}

/// One expected call after the walk.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedState {
    /// Its tool's effect (`None`: unknown).
    pub effect: Option<Effect>,
    pub required: bool,
    /// The step of the call that matched it.
    pub matched: Option<i64>,
}

/// The walk over a run's calls.
#[derive(Debug, Clone, PartialEq)]
pub struct CallWalk {
    /// Per decision, in the order given: `None` for a decision that is not
    /// a call (unless it is the run's last and [`WalkResult::EndedShort`]).
    pub results: Vec<Option<WalkResult>>,
    /// Per expected call, in list order.
    pub expected: Vec<ExpectedState>,
}

impl CallWalk {
    /// The indices of required expected calls never matched.
    pub fn missing(&self) -> Vec<usize> {
        self.expected
            .iter()
            .enumerate()
            .filter(|(_, e)| e.required && e.matched.is_none())
            .map(|(i, _)| i)
            .collect()
    }
}

/// The tools of the required expected calls not yet matched, sorted, or
/// `@no_call` when none remain.
fn still_required(calls: &[ExpectedCall], states: &[ExpectedState]) -> Vec<String> {
    let mut tools: Vec<String> = calls
        .iter()
        .zip(states)
        .filter(|(_, s)| s.required && s.matched.is_none())
        .map(|(c, _)| c.tool.clone())
        .collect();
    tools.sort();
    tools.dedup();
    if tools.is_empty() {
        tools.push(NO_CALL.to_string());
    }
    tools
}

/// Walks the run's decisions (in step order) against its expected calls
/// (§4). `effects[i]` is the effect of `calls[i]`'s tool.
///
/// With BFCL's checker every expected call is required and every decision
/// with a selected tool is judged, whatever the effects (BFCL judges every
/// decoded call); one that was refused (or failed, or never ran) still
/// matches nothing: it is a mismatch against its tool's first open
/// expected call, else unexpected.
pub fn walk_calls(
    calls: &[ExpectedCall],
    effects: &[Option<Effect>],
    modes: &Expectations,
    decisions: &[WalkCall<'_>],
) -> CallWalk {
    let bfcl = modes.checker == Checker::Bfcl;
    let mut expected: Vec<ExpectedState> = calls
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let effect = effects.get(i).copied().flatten();
            ExpectedState {
                effect,
                required: bfcl || is_required(effect),
                matched: None,
            }
        })
        .collect();
    let mut results = Vec::with_capacity(decisions.len());
    for d in decisions {
        let judged = if bfcl {
            d.selected.is_some()
        } else {
            d.is_call()
        };
        let Some(tool) = d.selected.filter(|_| judged) else {
            results.push(None);
            continue;
        };
        let open = |j: usize, e: &[ExpectedState]| e[j].matched.is_none() && calls[j].tool == tool;
        let matched = (0..calls.len()).find(|&j| {
            d.is_call()
                && open(j, &expected)
                && argument_diffs(&calls[j], d.arguments, modes).is_empty()
        });
        let result = if let Some(j) = matched {
            expected[j].matched = Some(d.step);
            WalkResult::Matched { expected: j }
        } else if let Some(j) =
            (0..calls.len()).find(|&j| open(j, &expected) && expected[j].required)
        {
            WalkResult::Mismatch {
                expected: j,
                keys: argument_diffs(&calls[j], d.arguments, modes),
            }
        } else if bfcl || matches!(d.effect, Some(Effect::Mutating | Effect::Destructive)) {
            WalkResult::Unexpected {
                acceptable: still_required(calls, &expected),
            }
        } else {
            WalkResult::NotJudged
        };
        results.push(Some(result));
    }
    if let Some(last) = decisions.last()
        && last.selected.is_none()
        && expected.iter().any(|e| e.required && e.matched.is_none())
        && let Some(slot) = results.last_mut()
    {
        *slot = Some(WalkResult::EndedShort {
            acceptable: still_required(calls, &expected),
        });
    }
    CallWalk { results, expected }
}

/// BFCL checks the number of calls first: a run whose calls (decisions
/// with a selected tool) are not as many as its expected calls fails
/// there (`wrong_count`), whatever their arguments.
pub fn wrong_count(
    calls: &[ExpectedCall],
    modes: &Expectations,
    decisions: &[WalkCall<'_>],
) -> bool {
    modes.checker == Checker::Bfcl
        && decisions.iter().filter(|d| d.selected.is_some()).count() != calls.len()
}

/// The `expected_outputs` that no decision's text contains, in list order.
/// `texts` yields each decision's answer text and its raw output (each
/// searched on its own); both sides compare in [`output_form`].
pub fn missing_outputs<'a, 't>(
    outputs: &'a [String],
    texts: impl IntoIterator<Item = (Option<&'t str>, Option<&'t Value>)>,
) -> Vec<&'a str> {
    if outputs.is_empty() {
        return Vec::new();
    }
    let mut haystacks: Vec<String> = Vec::new();
    for (text, raw) in texts {
        haystacks.extend(text.map(output_form));
        haystacks.extend(raw.map(|r| output_form(&result_text(r))));
    }
    outputs
        .iter()
        .filter(|o| {
            let needle = output_form(o);
            !haystacks.iter().any(|h| h.contains(&needle))
        })
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests;
