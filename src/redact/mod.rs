//! Masks secrets before anything from a trace is shown. One entry point for
//! every output: [`mask`] (the built-in patterns) or [`Redactor::apply`]
//! (the built-in patterns, the configuration's `[redact]` patterns, and
//! `--no-redact`). Each secret found is replaced by [`MASK`].
//!
//! The built-in kinds ([`KINDS`]): API keys (`sk-…`), `Bearer` tokens and
//! `Authorization: Basic …` credentials, AWS access key ids and secret keys,
//! GitHub tokens (`ghp_…`, `github_pat_…`), GitLab, Hugging Face and npm
//! tokens, JWTs, credentials in URLs (`https://user:pass@host`), password-,
//! api-key- and OAuth-token-named fields in JSON and in `key=value` text,
//! Slack tokens (`xox?-…`), Stripe secret keys (`sk_live_…`, `rk_live_…`),
//! Google API keys (`AIza…`), PEM private keys, and card numbers that pass
//! the Luhn check.
//!
//! A long payload read in pieces is masked without a secret escaping across
//! a piece's edge: [`Redactor::safe_cut`] moves a proposed cut out of any
//! secret, and [`StreamMasker`] masks a stream of pieces with it.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};
use serde_json::Value;

/// What a masked secret is replaced with.
pub const MASK: &str = "••••";

/// How far past a proposed cut [`Redactor::safe_cut`] looks for the end of
/// a secret: secrets longer than this may be cut (and then masked on the
/// side that holds their start only).
pub const MARGIN: usize = 16 * 1024;

/// Names of the field keys whose values are secrets (the end of the key:
/// `db_password`, `OPENAI_API_KEY`, `refresh_token` all qualify).
const FIELD_NAMES: &str = r"(?:password|passwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?key|secret[_-]?(?:access[_-]?)?key|private[_-]?key|(?:access|refresh|id|auth|api|session|bearer)[_-]?token)";

/// One built-in kind of secret.
struct Kind {
    name: &'static str,
    pattern: String,
    /// The capture group that is the secret (0: the whole match).
    group: usize,
    /// A check the matched secret must also pass.
    check: Option<fn(&str) -> bool>,
}

/// The kinds of secret masked without any configuration, by name.
pub const KINDS: &[&str] = &[
    "api key (sk-)",
    "bearer token",
    "authorization header",
    "aws access key id",
    "aws secret key",
    "github token",
    "gitlab token",
    "hugging face token",
    "npm token",
    "jwt",
    "url credentials",
    "secret field (json)",
    "secret field (key=value)",
    "slack token",
    "stripe secret key",
    "google api key",
    "pem private key",
    "card number",
];

fn kinds() -> Vec<Kind> {
    let k = |name: &'static str, pattern: String, group: usize, check: Option<fn(&str) -> bool>| {
        // ASCII word boundaries: every pattern is ASCII, and they keep the
        // fast regex engines usable on any text.
        Kind {
            name,
            pattern: pattern.replace(r"\b", r"(?-u:\b)"),
            group,
            check,
        }
    };
    vec![
        k("api key (sk-)", r"\bsk-[A-Za-z0-9_\-]{8,}".into(), 0, None),
        k(
            "bearer token",
            r"(?i)\bbearer\s+([A-Za-z0-9_\-\.=:+/~]{8,})".into(),
            0,
            Some(token_like),
        ),
        k(
            "authorization header",
            r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:basic|token|digest)\s+([A-Za-z0-9_\-\.=:+/~]{4,})"#
                .into(),
            1,
            None,
        ),
        k(
            "aws access key id",
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b".into(),
            0,
            None,
        ),
        k(
            "aws secret key",
            r"(?:^|[^A-Za-z0-9/+_\-])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=_\-])".into(),
            1,
            Some(random40),
        ),
        k(
            "github token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})".into(),
            0,
            None,
        ),
        k("gitlab token", r"\bglpat-[A-Za-z0-9_\-]{20,}".into(), 0, None),
        k("hugging face token", r"\bhf_[A-Za-z0-9]{30,}".into(), 0, None),
        k("npm token", r"\bnpm_[A-Za-z0-9]{36,}".into(), 0, None),
        k(
            "jwt",
            r"\beyJ[A-Za-z0-9_\-]{2,}\.eyJ[A-Za-z0-9_\-]{2,}\.[A-Za-z0-9_\-]*".into(),
            0,
            None,
        ),
        k(
            "url credentials",
            r#"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://([^\s/?#@:"'<>\\]+:[^\s/?#@"'<>\\]+)@"#.into(),
            1,
            None,
        ),
        k(
            "secret field (json)",
            // The value of `"…password": "…"`, also inside a JSON string
            // (`\"password\": \"…\"`); the value ends at a quote.
            format!(
                r#"(?i)\\?"[A-Za-z0-9_.\-]*?{FIELD_NAMES}\\?"\s*:\s*\\?"((?:[^"\\]|\\[^"\\])+)"#
            ),
            1,
            None,
        ),
        k(
            "secret field (key=value)",
            format!(
                r#"(?i)\b[A-Za-z0-9_.\-]*?{FIELD_NAMES}[ \t]*[:=][ \t]*["']?([^\s"'&,;<>\\]+)"#
            ),
            1,
            None,
        ),
        k(
            "slack token",
            r"\bxox[abposre]-[A-Za-z0-9\-]{10,}".into(),
            0,
            None,
        ),
        k(
            "stripe secret key",
            r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}".into(),
            0,
            None,
        ),
        k(
            "google api key",
            r"\bAIza[0-9A-Za-z_\-]{35}".into(),
            0,
            None,
        ),
        k(
            "pem private key",
            r"-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----(?s:.)*?(?:-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----|\z)"
                .into(),
            0,
            None,
        ),
        k(
            "card number",
            r"\b[0-9](?:[ \-]?[0-9]){12,18}\b".into(),
            0,
            Some(luhn),
        ),
    ]
}

struct Builtin {
    set: RegexSet,
    kinds: Vec<(Kind, Regex)>,
}

/// The built-in patterns, compiled once; `None` when one does not compile
/// (a test proves they all do), and then [`Redactor::spans`] masks
/// everything rather than show a secret.
fn builtin() -> Option<&'static Builtin> {
    static B: OnceLock<Option<Builtin>> = OnceLock::new();
    B.get_or_init(|| {
        let mut compiled: Vec<(Kind, Regex)> = Vec::new();
        for k in kinds() {
            match Regex::new(&k.pattern) {
                Ok(re) => compiled.push((k, re)),
                Err(e) => {
                    tracing::error!(kind = k.name, error = %e, "a built-in secret pattern does not compile: masking everything");
                    return None;
                }
            }
        }
        debug_assert_eq!(compiled.iter().map(|(k, _)| k.name).collect::<Vec<_>>(), KINDS);
        match RegexSet::new(compiled.iter().map(|(k, _)| k.pattern.as_str())) {
            Ok(set) => Some(Builtin {
                set,
                kinds: compiled,
            }),
            Err(e) => {
                tracing::error!(error = %e, "the built-in secret patterns do not compile as a set: masking everything");
                None
            }
        }
    })
    .as_ref()
}

/// A bearer token has a digit or a token character: "bearer information"
/// is prose, not a credential.
fn token_like(s: &str) -> bool {
    let token = s.split_whitespace().last().unwrap_or("");
    token
        .chars()
        .any(|c| c.is_ascii_digit() || "-_.=:+/~".contains(c))
}

/// Forty base64 characters that look random (both cases and a digit or
/// `/`, `+`), as AWS secret access keys do; a hex digest or a word does not.
fn random40(s: &str) -> bool {
    s.len() == 40
        && s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars().any(|c| c.is_ascii_lowercase())
        && s.chars()
            .any(|c| c.is_ascii_digit() || c == '/' || c == '+')
        && !s.starts_with('/')
        && !s.ends_with('/')
        && !s.contains("//")
}

/// The longest run of 13 to 19 digits (with its spaces or dashes) inside
/// `s`, a run of digits and separators, that starts and ends at a group's
/// edge and passes the Luhn check.
fn card_inside(s: &str) -> Option<Range<usize>> {
    let b = s.as_bytes();
    let starts: Vec<usize> = (0..b.len())
        .filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()))
        .collect();
    let ends: Vec<usize> = (1..=b.len())
        .filter(|&j| b[j - 1].is_ascii_digit() && (j == b.len() || !b[j].is_ascii_digit()))
        .collect();
    let mut best: Option<Range<usize>> = None;
    for &i in &starts {
        for &j in ends.iter().filter(|&&j| j > i) {
            let digits = b[i..j].iter().filter(|c| c.is_ascii_digit()).count();
            if (13..=19).contains(&digits)
                && luhn(&s[i..j])
                && best.as_ref().is_none_or(|r| j - i > r.len())
            {
                best = Some(i..j);
            }
        }
    }
    best
}

/// Whether no built-in kind can match `s`, found in one cheap pass:
/// plain ASCII (so case-insensitive patterns fold ASCII letters only),
/// fewer than 13 digits (a card), no run of 20 characters of `[0-9A-Z]`
/// (an AWS key id) or 40 of `[A-Za-z0-9/+]` (an AWS secret key), and none
/// of the words one of which every other kind's match holds, compared
/// ignoring ASCII case: `sk-`, `bearer`, `authorization`, the GitHub
/// (`gh[pousr]_`, `github_pat_`), GitLab, Hugging Face, npm, Slack,
/// Stripe and Google prefixes, a JWT's `eyJ`, a URL's `://`, a PEM's
/// `-----BEGIN`, and a part of every secret-named field ([`FIELD_NAMES`]:
/// pass, secret, key, token). `false` says only that the patterns must
/// look.
fn clear_of_builtin(s: &str) -> bool {
    let b = s.as_bytes();
    let at =
        |i: usize, w: &[u8]| b.len() - i >= w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w);
    let (mut digits, mut upper, mut base64) = (0, 0, 0);
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii() {
            return false;
        }
        let digit = c.is_ascii_digit();
        digits += usize::from(digit);
        upper = if digit || c.is_ascii_uppercase() {
            upper + 1
        } else {
            0
        };
        base64 = if c.is_ascii_alphanumeric() || c == b'/' || c == b'+' {
            base64 + 1
        } else {
            0
        };
        if digits >= 13 || upper >= 20 || base64 >= 40 {
            return false;
        }
        let found = match c.to_ascii_lowercase() {
            b'a' => at(i, b"authorization") || at(i, b"aiza"),
            b'b' => at(i, b"bearer"),
            b'e' => at(i, b"eyj"),
            b'g' => {
                at(i, b"github_pat_")
                    || at(i, b"glpat-")
                    || (at(i, b"gh")
                        && b.len() - i >= 4
                        && b"pousr".contains(&b[i + 2].to_ascii_lowercase())
                        && b[i + 3] == b'_')
            }
            b'h' => at(i, b"hf_"),
            b'k' => at(i, b"key") || at(i, b"k_live_") || at(i, b"k_test_"),
            b'n' => at(i, b"npm_"),
            b'p' => at(i, b"pass"),
            b's' => at(i, b"sk-") || at(i, b"secret"),
            b't' => at(i, b"token"),
            b'x' => at(i, b"xox"),
            b':' => at(i, b"://"),
            b'-' => at(i, b"-----begin"),
            _ => false,
        };
        if found {
            return false;
        }
    }
    true
}

/// The Luhn checksum over the digits of `s`.
pub fn luhn(s: &str) -> bool {
    let digits: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// `s` with every secret of a built-in kind replaced by [`MASK`]: for
/// outputs that have no configuration at hand (error messages).
pub fn mask(s: &str) -> Cow<'_, str> {
    static PLAIN: Redactor = Redactor {
        extra: Vec::new(),
        disabled: false,
    };
    PLAIN.apply(s)
}

/// A redactor: the built-in patterns plus extra ones from the configuration.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    extra: Vec<Regex>,
    /// `--no-redact`: show everything.
    pub disabled: bool,
}

/// Compiles one configured pattern; the error says what is wrong with it in
/// one line.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| {
        let msg = e.to_string();
        // The parser's message draws the pattern with a caret over several
        // lines; its last line says what is wrong.
        let last = msg.lines().last().unwrap_or(&msg).trim();
        last.strip_prefix("error: ").unwrap_or(last).to_string()
    })
}

/// A configured pattern that does not compile: which one and why. It shows
/// (pattern echoed) through `crate::error`, which words the errors a user
/// sees, so that this module needs nothing of `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct BadPattern {
    /// Its place in `[redact] patterns`.
    pub index: usize,
    pub pattern: String,
    /// What is wrong, in one line (see [`compile`]).
    pub message: String,
}

impl Redactor {
    /// Builds a redactor; an invalid extra pattern is an error naming it.
    pub fn new(extra: &[String], disabled: bool) -> Result<Redactor, BadPattern> {
        let extra = extra
            .iter()
            .enumerate()
            .map(|(index, p)| {
                compile(p).map_err(|message| BadPattern {
                    index,
                    pattern: p.clone(),
                    message,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Redactor { extra, disabled })
    }

    /// The byte ranges of `s` that are secrets, sorted and merged.
    pub fn spans(&self, s: &str) -> Vec<Range<usize>> {
        if self.disabled || s.is_empty() {
            return Vec::new();
        }
        let Some(b) = builtin() else {
            // Fail closed: all of it is a secret.
            return std::iter::once(0..s.len()).collect();
        };
        let mut spans: Vec<Range<usize>> = Vec::new();
        // No built-in kind can match a clear text: only the configured
        // patterns look at it.
        let kinds: Vec<usize> = if clear_of_builtin(s) {
            Vec::new()
        } else {
            b.set.matches(s).into_iter().collect()
        };
        for i in kinds {
            let (kind, re) = &b.kinds[i];
            for c in re.captures_iter(s) {
                let Some(m) = c.get(kind.group) else { continue };
                if kind.name == "card number" && !luhn(m.as_str()) {
                    // Digits run on either side of a card ("order 17 4111
                    // 1111 1111 1111"): look for the card inside.
                    spans.extend(
                        card_inside(m.as_str()).map(|r| m.start() + r.start..m.start() + r.end),
                    );
                    continue;
                }
                if kind.check.is_some_and(|check| !check(m.as_str())) {
                    continue;
                }
                if !m.is_empty() {
                    spans.push(m.range());
                }
            }
        }
        for re in &self.extra {
            spans.extend(re.find_iter(s).filter(|m| !m.is_empty()).map(|m| m.range()));
        }
        spans.sort_by_key(|r| (r.start, r.end));
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
        for r in spans {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        merged
    }

    /// `s` with every secret replaced by [`MASK`].
    pub fn apply<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let spans = self.spans(s);
        if spans.is_empty() {
            return Cow::Borrowed(s);
        }
        Cow::Owned(replace(s, &spans, 0..s.len()))
    }

    /// Where to cut `text` at or near `cut` so that no secret straddles the
    /// cut: at the start of a secret that `cut` falls inside, or past its end
    /// when the secret starts `text`. `text` should run [`MARGIN`] bytes past
    /// `cut` (or to the end of the payload), so that a secret is seen whole;
    /// secrets are looked for from `MARGIN` bytes before `cut` on, so a long
    /// text is not searched whole for the one secret near the cut (a secret
    /// longer than `MARGIN` may be split, as past the cut).
    pub fn safe_cut(&self, text: &str, cut: usize) -> usize {
        let cut = floor_boundary(text, cut.min(text.len()));
        let from = floor_boundary(text, cut.saturating_sub(MARGIN));
        match self.straddling(&text[from..], cut - from) {
            Some(r) if from + r.start > 0 => from + r.start,
            // `from` is 0: the secret starts `text`.
            Some(r) => r.end,
            None => cut,
        }
    }

    /// The secret of `text` that a cut at byte `cut` would split, if any.
    pub fn straddling(&self, text: &str, cut: usize) -> Option<Range<usize>> {
        self.spans(text)
            .into_iter()
            .find(|r| r.start < cut && cut < r.end)
    }
}

/// The text of `s[range]` with the parts of `spans` inside it replaced by
/// [`MASK`] (one per span, also for a span that only overlaps the range).
fn replace(s: &str, spans: &[Range<usize>], range: Range<usize>) -> String {
    let mut out = String::with_capacity(range.len());
    let mut at = range.start;
    for r in spans {
        if r.end <= range.start || r.start >= range.end {
            continue;
        }
        let start = r.start.max(range.start);
        out.push_str(&s[at..start]);
        out.push_str(MASK);
        at = r.end.min(range.end);
    }
    out.push_str(&s[at..range.end]);
    out
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Text from a trace with its secrets masked by a [`Redactor`] (nothing
/// masked under `--no-redact`), otherwise as it was: what data outputs
/// (JSON, CSV) carry. It can only be made by [`Redactor::mask_text`] or,
/// for rung's own fixed words, [`Masked::ours`]; its one-line terminal
/// form is `crate::text::Shown` (`Masked::shown`, defined there).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Masked(String);

impl Masked {
    /// rung's own words (a heading, a placeholder): nothing to mask.
    pub fn ours(s: &'static str) -> Masked {
        Masked(s.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl serde::Serialize for Masked {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// A JSON value from a trace with every string in it masked, and the
/// values of secret-named keys (`"password"`, `"api_key"`, …) replaced by
/// [`MASK`]. Made only by [`Redactor::mask_value`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaskedValue(Value);

impl MaskedValue {
    pub fn get(&self) -> &Value {
        &self.0
    }

    pub fn into_value(self) -> Value {
        self.0
    }
}

/// A key whose value is a secret (`password`, `db_password`, `X-Api-Key`,
/// `refresh_token`): the whole key ends with one of the field names.
/// Should the pattern not compile (the tests prove it does), every key
/// counts as secret: masking too much rather than show a secret.
fn secret_key(key: &str) -> bool {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(&format!(r"(?i)^[A-Za-z0-9_.\- ]*?{FIELD_NAMES}$"))
            .inspect_err(|e| tracing::error!(error = %e, "the secret key pattern does not compile: masking every key"))
            .ok()
    })
    .as_ref()
    .is_none_or(|re| re.is_match(key))
}

impl Redactor {
    /// `s` with its secrets masked, for data outputs.
    pub fn mask_text(&self, s: &str) -> Masked {
        Masked(self.apply(s).into_owned())
    }

    /// `v` with every string (keys too) masked, and the string or number
    /// under a secret-named key replaced by [`MASK`]: masked leaf by leaf,
    /// so the JSON stays valid.
    /// Counts by text (a tool's refusals by reason) as a JSON object: each
    /// key masked, the counts under keys that mask alike added up. The
    /// counts are kept whatever the key says (`mask_value` would take a
    /// number under `invalid_api_key` for a secret).
    pub fn mask_counts<'a>(
        &self,
        counts: impl IntoIterator<Item = (&'a String, &'a u64)>,
    ) -> MaskedValue {
        let mut out = serde_json::Map::new();
        for (k, n) in counts {
            insert_masked(&mut out, self.apply(k).into_owned(), Value::from(*n));
        }
        MaskedValue(Value::Object(out))
    }

    pub fn mask_value(&self, v: &Value) -> MaskedValue {
        MaskedValue(self.masked_value(v))
    }

    fn masked_value(&self, v: &Value) -> Value {
        if self.disabled {
            return v.clone();
        }
        match v {
            Value::String(s) => Value::String(self.apply(s).into_owned()),
            Value::Array(items) => items.iter().map(|x| self.masked_value(x)).collect(),
            Value::Object(map) => {
                let mut out = serde_json::Map::new();
                for (k, x) in map {
                    let secret = match x {
                        Value::String(s) => !s.is_empty(),
                        Value::Number(_) => true,
                        _ => false,
                    };
                    let x = if secret && secret_key(k) {
                        Value::String(MASK.to_string())
                    } else {
                        self.masked_value(x)
                    };
                    insert_masked(&mut out, self.apply(k).into_owned(), x);
                }
                out.into()
            }
            other => other.clone(),
        }
    }
}

/// Puts `x` under the masked key `k`, which an earlier key may have become
/// too (two reasons that differ only in a secret): counts (integers) under
/// one key are added up, so that a map of counts keeps its total; any
/// other value is kept under `k (2)`, `k (3)`, ... so that nothing is lost.
fn insert_masked(out: &mut serde_json::Map<String, Value>, k: String, x: Value) {
    let Some(there) = out.get_mut(&k) else {
        out.insert(k, x);
        return;
    };
    let sum = match (&*there, &x) {
        (Value::Number(a), Value::Number(b)) => match (a.as_u64(), b.as_u64()) {
            (Some(a), Some(b)) => a.checked_add(b).map(Value::from),
            _ => a
                .as_i64()
                .zip(b.as_i64())
                .and_then(|(a, b)| a.checked_add(b))
                .map(Value::from),
        },
        _ => None,
    };
    if let Some(sum) = sum {
        *there = sum;
        return;
    }
    let mut n = 2u64;
    while out.contains_key(&format!("{k} ({n})")) {
        n += 1;
    }
    out.insert(format!("{k} ({n})"), x);
}

/// Masks a stream read in pieces: each piece pushed returns the masked text
/// that is safe to show so far; text that might still be the start of a
/// secret is held back (at most about [`MARGIN`] bytes, more only while a
/// secret is running) until the next piece or [`StreamMasker::finish`].
pub struct StreamMasker<'r> {
    redactor: &'r Redactor,
    held: Vec<u8>,
}

impl<'r> StreamMasker<'r> {
    pub fn new(redactor: &'r Redactor) -> StreamMasker<'r> {
        StreamMasker {
            redactor,
            held: Vec::new(),
        }
    }

    /// Adds a piece (bytes of UTF-8 text, cut anywhere); returns the masked
    /// text that can be shown now.
    pub fn push(&mut self, piece: &[u8]) -> String {
        self.held.extend_from_slice(piece);
        if self.held.len() < 2 * MARGIN {
            return String::new();
        }
        let valid = match std::str::from_utf8(&self.held) {
            Ok(s) => s.len(),
            Err(e) => e.valid_up_to(),
        };
        let text = String::from_utf8_lossy(&self.held[..valid]).into_owned();
        let want = text.len().saturating_sub(MARGIN);
        let cut = self.redactor.safe_cut(&text, want);
        if cut == 0 || cut >= text.len() {
            // The start of the held text is one secret running to its end:
            // wait for more.
            return String::new();
        }
        let spans = self.redactor.spans(&text);
        let out = replace(&text, &spans, 0..cut);
        self.held.drain(..cut);
        out
    }

    /// The rest, masked.
    pub fn finish(self) -> String {
        let text = String::from_utf8_lossy(&self.held);
        self.redactor.apply(&text).into_owned()
    }
}

#[cfg(test)]
mod tests;
