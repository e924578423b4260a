//! `announced_no_call`: a decision that made no call whose answer says it
//! is about to act ("Let me search for the customer first.") or writes the
//! call out as text (`{"type": "search_customers", ...}`, a `<tool_call>`
//! block). A harness loop treats such a reply as the final answer and
//! stops (the billing chapter's missed calls).
//!
//! "No call": `selected` is null, or the action boundary refused the
//! proposal at REPRESENTATION (a call written as text, malformed, or of a
//! tool nobody publishes never became a call). A decision whose turn also
//! has a real call is left alone: the same message did act. An announcing
//! phrase counts only when no later decision of the run made a call: a
//! conversation that asks the user for an id and then looks it up did act
//! ("First, I'll need your user ID"). A call written as text always counts.

use serde_json::Value;

use super::{AuditFinding, AuditRun, AuditStep, What, quote};
use crate::model::{Boundary, FindingKind};

/// The phrases that announce an action, and the ones that only look like
/// one. Compared case-insensitively (and with `’` read as `'`), as whole
/// words: a phrase must not start or end inside a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announce {
    phrases: Vec<Vec<char>>,
    ignore: Vec<Vec<char>>,
}

/// The default announcing phrases (`[findings] announce`).
pub const DEFAULT_PHRASES: &[&str] = &[
    "let me",
    "I'll check",
    "I will search",
    "I need to check",
    "first, I'll",
];

/// Phrases that start like an announcement and are not one: "Let me know
/// if you need anything else." (`[findings] not_announce`).
pub const DEFAULT_IGNORE: &[&str] = &["let me know"];

/// Longest answer text searched, in bytes.
const MAX_TEXT: usize = 64 * 1024;
/// At most this many `{` are tried as the start of a call written as text.
const MAX_OBJECTS: usize = 256;
/// Longest sentence read around a match before it is masked and cut.
const MAX_SENTENCE: usize = 1000;

fn norm_char(c: char) -> char {
    match c {
        '\u{2019}' | '\u{2018}' => '\'',
        c => c.to_lowercase().next().unwrap_or(c),
    }
}

fn norm(s: &str) -> Vec<char> {
    s.chars().map(norm_char).collect()
}

impl Default for Announce {
    fn default() -> Self {
        Announce::new(DEFAULT_PHRASES, DEFAULT_IGNORE)
    }
}

impl Announce {
    /// From phrases (empty ones dropped).
    pub fn new<S: AsRef<str>>(phrases: &[S], ignore: &[S]) -> Announce {
        let list = |v: &[S]| -> Vec<Vec<char>> {
            v.iter()
                .map(|p| norm(p.as_ref().trim()))
                .filter(|p| !p.is_empty())
                .collect()
        };
        Announce {
            phrases: list(phrases),
            ignore: list(ignore),
        }
    }

    /// The char index where the first announcing phrase starts in `text`
    /// (already normalised), if any.
    fn find(&self, text: &[char]) -> Option<usize> {
        let at_word_edge = |i: usize| i == 0 || i >= text.len() || !text[i].is_alphanumeric();
        let matches_at = |p: &[char], i: usize| {
            text.len() >= i + p.len()
                && text[i..i + p.len()] == *p
                && (i == 0 || !text[i - 1].is_alphanumeric() || !p[0].is_alphanumeric())
                && (at_word_edge(i + p.len()) || !p[p.len() - 1].is_alphanumeric())
        };
        (0..text.len()).find(|&i| {
            self.phrases.iter().any(|p| matches_at(p, i))
                && !self.ignore.iter().any(|p| matches_at(p, i))
        })
    }
}

/// The `announced_no_call` finding's facts: the sentence that announces,
/// and the call written as text (either may be missing, not both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announced {
    pub phrase: Option<String>,
    pub text_call: Option<String>,
}

impl Announced {
    pub(super) fn detail(&self, mask: &dyn Fn(&str) -> String) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.phrase {
            parts.push(format!(
                "the answer announces an action: {}",
                quote(p, mask)
            ));
        }
        if let Some(c) = &self.text_call {
            parts.push(format!(
                "the answer writes a call out as text: {}",
                quote(c, mask)
            ));
        }
        format!(
            "{}; no tool was called, so a harness loop takes it for the final answer",
            parts.join("; ")
        )
    }
}

/// The words of a decision's answer: its `text`, and the strings of its
/// `raw` (a raw string is the answer itself; a raw object is searched in
/// its string values, never in its keys or structure).
fn answer_texts<'a>(s: &AuditStep<'a>) -> Vec<&'a str> {
    fn strings<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut out: Vec<&'a str> = s.text.into_iter().collect();
    if let Some(r) = s.raw {
        strings(r, &mut out);
    }
    out.retain(|t| !t.trim().is_empty());
    out
}

/// `text` cut to at most `max` bytes at a character boundary.
fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The sentence of `text` that holds char index `at`: from after the last
/// `.`, `!`, `?` or line break before it to the first one after it.
fn sentence(text: &[char], at: usize) -> String {
    let stop = |c: &char| matches!(c, '.' | '!' | '?' | '\n');
    let start = text[..at].iter().rposition(stop).map_or(0, |i| i + 1);
    let end = text[at..]
        .iter()
        .position(stop)
        .map_or(text.len(), |i| at + i + 1)
        .min(start + MAX_SENTENCE);
    let s: String = text[start..end].iter().collect();
    s.trim().to_string()
}

/// A tool name as a call written as text gives one.
fn call_name(v: &Value) -> Option<&str> {
    let name = ["name", "type", "tool", "tool_name", "function"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))?;
    let ok = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    ok.then_some(name)
}

/// The first call written as text in `text`: a JSON object with a tool
/// name (`name`, `type`, `tool`, `function`) and something more (its
/// arguments), or a `<tool_call>` block. When the decision's tools are
/// known, the name must be one of them.
fn text_call(text: &str, known: &dyn Fn(&str) -> bool) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    for (tried, (at, _)) in text.match_indices('{').enumerate() {
        if tried >= MAX_OBJECTS {
            break;
        }
        let mut it = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        if let Some(Ok(v @ Value::Object(_))) = it.next()
            && v.as_object().is_some_and(|m| m.len() >= 2)
            && call_name(&v).is_some_and(known)
        {
            return Some(text[at..at + it.byte_offset()].to_string());
        }
    }
    lower
        .find("<tool_call>")
        .map(|at| text[at..].chars().take(MAX_SENTENCE).collect())
}

/// `announced_no_call` for every decision of the run that made no call.
pub(super) fn announced(run: &AuditRun<'_>, steps: &[AuditStep<'_>]) -> Vec<AuditFinding> {
    let no_call = |s: &AuditStep<'_>| {
        s.selected.is_none() || s.boundary(run.reasons) == Some(Boundary::Representation)
    };
    // Turns in which some decision did call a tool.
    let acted: rustc_hash::FxHashSet<i64> = steps
        .iter()
        .filter(|s| !no_call(s))
        .map(|s| s.turn)
        .collect();
    // The index of the last decision that made a call.
    let last_call = steps.iter().rposition(|s| !no_call(s));
    let mut out = Vec::new();
    for (j, s) in steps.iter().enumerate() {
        if !no_call(s) || acted.contains(&s.turn) {
            continue;
        }
        let acted_later = last_call.is_some_and(|c| c > j);
        // The tools this decision knew of: its catalogue, the run's
        // definitions, its menu. With none known, any name will do.
        let menu_names: Vec<&str> = if s.menu.has_evidence() {
            s.menu.retrieved_refs()
        } else {
            Vec::new()
        };
        let nothing_known =
            s.docs.is_empty() && run.definitions.is_empty() && menu_names.is_empty();
        let known = |name: &str| {
            nothing_known
                || s.docs.iter().any(|d| d.name == name)
                || run.definitions.iter().any(|d| d.name == name)
                || menu_names.contains(&name)
                || s.selected == Some(name)
        };
        let mut found = Announced {
            phrase: None,
            text_call: None,
        };
        for t in answer_texts(s) {
            let t = head(t, MAX_TEXT);
            if found.phrase.is_none() && !acted_later {
                let chars = norm(t);
                if let Some(at) = run.announce.find(&chars) {
                    // Quote the original text, not its lowercased form.
                    let original: Vec<char> = t.chars().collect();
                    found.phrase = Some(sentence(&original, at));
                }
            }
            if found.text_call.is_none() {
                found.text_call = text_call(t, &known);
            }
        }
        if found.phrase.is_some() || found.text_call.is_some() {
            out.push(AuditFinding {
                kind: FindingKind::AnnouncedNoCall,
                at: j,
                step: s.step,
                tool: s.selected.map(str::to_string),
                what: What::Announced(found),
            });
        }
    }
    out
}
