//! Audit findings over a whole run (issue 12): what the seeds ask an
//! observability tool to catch and the ladder alone does not show.
//!
//! - `unsourced_id` and `id_from_description` ([`ids`]): a write carrying an
//!   identifier no earlier result of the run returned (and not in the goal),
//!   and, beside it, the same identifier found in a tool's description,
//!   hints or schema: the model copied an example.
//! - `announced_no_call` ([`announce`]): an answer that says it will act
//!   ("Let me search…") or writes the call out as text, with no call.
//! - `write_under_inform` ([`writes`]): a write that executed in a run whose
//!   intent is `inform`.
//! - `menu_changed` ([`menu`]): the menu the model saw changed within the
//!   run.
//! - `repeated_call` ([`repeat`]): the same call again after its answer was
//!   already known.
//!
//! Pure functions over one run's decisions (in step order), with the
//! effects of `expectations.md` §3 ([`Effects`]). Nothing here masks: a
//! finding's detail is rendered by [`AuditFinding::detail`] with the
//! caller's mask (the redactor), and every quoted value is JSON-escaped and
//! cut to [`VALUE_CHARS`] characters after masking.

pub mod announce;
pub mod docs;
pub mod ids;
pub mod menu;
pub mod repeat;
pub mod writes;

use serde_json::Value;

pub use announce::Announce;
pub use docs::{DocField, ToolDoc};
pub use ids::{IdArg, identifiers, is_id_key, is_prefixed_id};

use super::effects::Effects;
use super::expect::VALUE_CHARS;
use super::{Menu, ReasonTable, boundary};
use crate::model::{Boundary, Effect, FindingKind, Intent, Stage, Status};

/// What the audit needs of the run itself.
#[derive(Debug, Clone, Copy)]
pub struct AuditRun<'a> {
    pub goal: Option<&'a str>,
    /// The run's `scope` (the account or tenant a session is locked to): a
    /// source of identifiers like the goal.
    pub scope: Option<&'a str>,
    pub intent: Option<Intent>,
    /// The effect sources after a decision's catalogue (the configuration's
    /// `[effects]`, the run's recorded annotations).
    pub effects: Effects<'a>,
    /// The run's recorded tool definitions, as documents.
    pub definitions: &'a [ToolDoc],
    pub reasons: &'a ReasonTable,
    /// The phrases that announce an action.
    pub announce: &'a Announce,
}

/// One decision of the run, inheritance already applied.
#[derive(Debug, Clone, Copy)]
pub struct AuditStep<'a> {
    pub step: i64,
    /// `turn`, defaulting to `step`.
    pub turn: i64,
    pub phase: Option<&'a str>,
    /// Its effective menu; the menu's catalogue gives a tool's effect.
    pub menu: Menu<'a>,
    /// The documents of its catalogue's tools (empty without a catalogue).
    pub docs: &'a [ToolDoc],
    pub selected: Option<&'a str>,
    pub status: Option<Status>,
    pub stage: Option<Stage>,
    pub reason: Option<&'a str>,
    /// The outcome's `retryable`.
    pub retryable: Option<bool>,
    pub arguments: Option<&'a Value>,
    pub result: Option<&'a Value>,
    /// The answer in words (`text`).
    pub text: Option<&'a str>,
    pub raw: Option<&'a Value>,
}

impl AuditStep<'_> {
    /// The effect of its selected tool where it was called (`None`: no
    /// tool, or unknown).
    pub fn effect(&self, effects: &Effects<'_>) -> Option<Effect> {
        self.selected
            .and_then(|t| effects.of(t, self.menu.catalogue))
            .map(|(e, _)| e)
    }

    /// Whether its tool writes (`mutating` or `destructive`).
    pub fn writes(&self, effects: &Effects<'_>) -> bool {
        matches!(
            self.effect(effects),
            Some(Effect::Mutating | Effect::Destructive)
        )
    }

    /// The action boundary's verdict on its outcome.
    pub fn boundary(&self, reasons: &ReasonTable) -> Option<Boundary> {
        boundary(self.status, self.stage, self.reason, reasons)
    }

    /// What became of its proposal.
    pub fn fate(&self, reasons: &ReasonTable) -> Fate {
        match self.status {
            Some(Status::Refused) => Fate::Refused(self.boundary(reasons)),
            Some(Status::Ok) => Fate::Ok,
            Some(Status::Error) => Fate::Failed(self.reason.map(str::to_string)),
            Some(Status::Unknown) => Fate::Unknown,
            Some(Status::NotRun) => Fate::NotRun,
            None => Fate::NoOutcome,
        }
    }
}

/// What became of a proposal, for details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    Ok,
    Refused(Option<Boundary>),
    Failed(Option<String>),
    Unknown,
    NotRun,
    NoOutcome,
}

impl Fate {
    fn text(&self, mask: &dyn Fn(&str) -> String) -> String {
        match self {
            Fate::Ok => "executed (ok)".to_string(),
            Fate::Refused(b) => format!(
                "refused ({})",
                b.map(|b| b.as_str()).unwrap_or("unclassified")
            ),
            Fate::Failed(Some(r)) => format!("executed and failed ({})", cut(&mask(r))),
            Fate::Failed(None) => "executed and failed".to_string(),
            Fate::Unknown => "executed; outcome unknown".to_string(),
            Fate::NotRun => "not run".to_string(),
            Fate::NoOutcome => "no outcome recorded".to_string(),
        }
    }
}

/// One audit finding about a run: its kind, the decision it concerns (the
/// first changed decision for `menu_changed`), its tool and what was found.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditFinding {
    pub kind: FindingKind,
    /// Index of the decision in the steps given.
    pub at: usize,
    pub step: i64,
    pub tool: Option<String>,
    pub what: What,
}

/// What a finding found, kept as data; [`AuditFinding::detail`] words it.
#[derive(Debug, Clone, PartialEq)]
pub enum What {
    Unsourced(ids::Unsourced),
    FromDescription(ids::FromDescription),
    Announced(announce::Announced),
    WriteUnderInform { effect: Effect, fate: Fate },
    MenuChanged(menu::MenuChange),
    Repeated(repeat::Repeated),
}

impl AuditFinding {
    /// The human detail. `mask` masks secrets in trace text (pass the
    /// redactor, or the identity); quoted values are JSON-escaped and cut
    /// to [`VALUE_CHARS`] characters after masking.
    pub fn detail(&self, mask: &dyn Fn(&str) -> String) -> String {
        let tool = self.tool.as_deref().unwrap_or("-");
        match &self.what {
            What::Unsourced(u) => u.detail(tool, mask),
            What::FromDescription(f) => f.detail(mask),
            What::Announced(a) => a.detail(mask),
            What::WriteUnderInform { effect, fate } => format!(
                "{} ({effect}) {} in a run whose intent is inform: an inform request changes nothing",
                cut(&mask(tool)),
                match fate {
                    Fate::Unknown => "executed (outcome unknown)".to_string(),
                    other => other.text(mask),
                }
            ),
            What::MenuChanged(m) => m.detail(mask),
            What::Repeated(r) => r.detail(tool, mask),
        }
    }
}

/// Every audit finding of a run: `steps` are its decisions in ascending
/// step order. Ordered by decision, then kind (`menu_changed` at its first
/// changed decision).
pub fn audit_run(run: &AuditRun<'_>, steps: &[AuditStep<'_>]) -> Vec<AuditFinding> {
    debug_assert!(steps.windows(2).all(|w| w[0].step < w[1].step));
    let mut out = Vec::new();
    out.extend(ids::unsourced(run, steps));
    out.extend(announce::announced(run, steps));
    out.extend(writes::under_inform(run, steps));
    out.extend(menu::changed(steps));
    out.extend(repeat::repeated(run, steps));
    out.sort_by_key(|f| (f.at, f.kind));
    out
}

/// `s` cut to [`VALUE_CHARS`] characters (with `…` when cut).
pub(crate) fn cut(s: &str) -> String {
    if s.chars().count() <= VALUE_CHARS {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(VALUE_CHARS).collect::<String>())
    }
}

/// Text from a trace as a detail quotes it: masked, JSON-quoted (control
/// characters and quotes escaped), cut to [`VALUE_CHARS`] characters.
pub(crate) fn quote(s: &str, mask: &dyn Fn(&str) -> String) -> String {
    cut(&Value::String(mask(s)).to_string())
}

/// Names for a detail: masked, each cut, at most `max` of them then how
/// many more.
pub(crate) fn names(list: &[String], max: usize, mask: &dyn Fn(&str) -> String) -> String {
    let mut shown: Vec<String> = list.iter().take(max).map(|n| cut(&mask(n))).collect();
    if list.len() > max {
        shown.push(format!("and {} more", list.len() - max));
    }
    shown.join(", ")
}

/// A character that continues an identifier: an occurrence of a value must
/// not touch one on either side (`sub_3` is not in `sub_31`).
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `needle` occurs in `hay` as a whole token: neither neighbour of
/// the occurrence continues an identifier.
pub fn contains_token(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let first = needle.chars().next().is_some_and(word_char);
    let last = needle.chars().next_back().is_some_and(word_char);
    let mut from = 0;
    // memmem: no searcher built per call (this runs for every identifier
    // against every text of a run).
    while let Some(at) = memchr::memmem::find(&hay.as_bytes()[from..], needle.as_bytes()) {
        let start = from + at;
        let end = start + needle.len();
        let before_ok = !first || !hay[..start].chars().next_back().is_some_and(word_char);
        let after_ok = !last || !hay[end..].chars().next().is_some_and(word_char);
        if before_ok && after_ok {
            return true;
        }
        // Move past the first character of this occurrence.
        from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Calls `f` on every text of a JSON value: its strings, numbers and object
/// keys, at any depth; stops (returning true) as soon as `f` does.
pub(crate) fn any_text(v: &Value, f: &mut dyn FnMut(&str) -> bool) -> bool {
    match v {
        Value::String(s) => f(s),
        Value::Number(n) => {
            // Written on the stack: schemas and results hold many numbers,
            // and every search walks them again.
            let mut buf = NumberText::default();
            match std::fmt::Write::write_fmt(&mut buf, format_args!("{n}")) {
                Ok(()) => f(buf.as_str()),
                Err(_) => f(&n.to_string()),
            }
        }
        Value::Array(a) => a.iter().any(|x| any_text(x, f)),
        Value::Object(m) => m.iter().any(|(k, x)| f(k) || any_text(x, f)),
        Value::Bool(_) | Value::Null => false,
    }
}

/// A JSON number's text, as `Display` writes it, in a buffer on the stack
/// (any number serde_json holds fits: at most 24 bytes).
struct NumberText {
    buf: [u8; 40],
    len: usize,
}

impl Default for NumberText {
    fn default() -> NumberText {
        NumberText {
            buf: [0; 40],
            len: 0,
        }
    }
}

impl NumberText {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are written in.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

impl std::fmt::Write for NumberText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Whether `needle` occurs as a token in any text of `v`.
pub fn value_mentions(v: &Value, needle: &str) -> bool {
    any_text(v, &mut |t| contains_token(t, needle))
}

#[cfg(test)]
mod tests;
