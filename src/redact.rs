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
        for i in b.set.matches(s).iter() {
            let (kind, re) = &b.kinds[i];
            for c in re.captures_iter(s) {
                let Some(m) = c.get(kind.group) else { continue };
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
    /// `cut` (or to the end of the payload), so that a secret is seen whole.
    pub fn safe_cut(&self, text: &str, cut: usize) -> usize {
        let cut = floor_boundary(text, cut.min(text.len()));
        match self
            .spans(text)
            .into_iter()
            .find(|r| r.start < cut && cut < r.end)
        {
            Some(r) if r.start > 0 => r.start,
            Some(r) => r.end,
            None => cut,
        }
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
mod tests {
    use super::*;

    /// Each kind: the secret inside some text is masked, and a near miss
    /// beside it is left alone.
    fn kind(masked: &str, expected: &str, near_miss: &str) {
        assert_eq!(mask(masked), expected, "masking {masked:?}");
        assert_eq!(mask(near_miss), near_miss, "near miss {near_miss:?}");
    }

    #[test]
    fn openai_style_keys() {
        kind(
            "key sk-proj-4f9aQ2xLk81abcd end",
            "key •••• end",
            "task-4f9aQ2xLk81abcd and sk-short",
        );
        kind("sk-ant-api03-AbC_9xYz-12", "••••", "ask-me-anything");
    }

    #[test]
    fn bearer_tokens() {
        kind(
            "Authorization: Bearer eyJhbGciOi.x",
            "Authorization: ••••",
            "the bearer information is on file",
        );
        kind("bearer 0a1b2c3d4e5f", "••••", "Bearer short1");
    }

    #[test]
    fn authorization_headers() {
        kind(
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "Authorization: Basic ••••",
            "basic authorization: none",
        );
    }

    #[test]
    fn aws_access_key_ids() {
        kind(
            "id AKIAIOSFODNN7EXAMPLE ok",
            "id •••• ok",
            "AKIAIOSFODNN7EXAMPL and XKIAIOSFODNN7EXAMPLE",
        );
    }

    #[test]
    fn aws_secret_keys() {
        kind(
            "value wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
            "value ••••.",
            // a git commit id (hex) and a 40-letter word are not keys
            "commit da39a3ee5e6b4b0d3255bfef95601890afd80709 and getUserAccountSubscriptionDetailsForUser",
        );
        kind(
            r#"{"k":"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/Ab"}"#,
            r#"{"k":"••••"}"#,
            // 41 characters: part of something longer
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/Abc",
        );
    }

    #[test]
    fn github_tokens() {
        kind(
            "token ghp_16C7e42F292c6912E7710c838347Ae178B4a here",
            "token •••• here",
            "ghp_16C7e42F292c6912E7710c and ghp-16C7e42F292c6912E7710c838347Ae178B4a",
        );
        kind(
            "github_pat_11ABCDEFG0abcdefghijklmn_XYZ",
            "••••",
            "github_pat_short",
        );
    }

    #[test]
    fn gitlab_huggingface_and_npm_tokens() {
        kind(
            "glpat-xxxxxxxxxxxxxxxxxxxx1 hf_abcdefghijklmnopqrstuvwxyzABCDEF npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "•••• •••• ••••",
            "glpat-short hf_short npm_install",
        );
    }

    #[test]
    fn jwts_without_bearer() {
        kind(
            r#"{"id_tok":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}"#,
            r#"{"id_tok":"••••"}"#,
            "eyJhbGciOiJIUzI1NiJ9 alone, and v1.2.3",
        );
    }

    #[test]
    fn credentials_in_urls() {
        kind(
            "clone https://deploy:s3cr3t-pa55@git.example.com/repo.git",
            "clone https://••••@git.example.com/repo.git",
            "https://git.example.com:8443/repo and ssh://git@example.com/x and mailto:a@b.c",
        );
        kind(
            "postgres://app:hunter2@db:5432/main",
            "postgres://••••@db:5432/main",
            "postgres://db:5432/main",
        );
    }

    #[test]
    fn secret_fields_in_json() {
        kind(
            r#"{"user":"ana","password":"hunter2","db_password": "x y"}"#,
            r#"{"user":"ana","password":"••••","db_password": "••••"}"#,
            r#"{"password_hint":"blue","passwords":"3","password":""}"#,
        );
        kind(
            r#"{"api_key":"abc123","X-Api-Key":"k","OPENAI_API_KEY":"o"}"#,
            r#"{"api_key":"••••","X-Api-Key":"••••","OPENAI_API_KEY":"••••"}"#,
            r#"{"api_keys_count":"2","key":"value"}"#,
        );
        // JSON inside a JSON string (a tool result that is text)
        kind(
            r#""{\"password\":\"hunter2\",\"user\":\"ana\"}""#,
            r#""{\"password\":\"••••\",\"user\":\"ana\"}""#,
            r#""{\"user\":\"ana\"}""#,
        );
    }

    #[test]
    fn secret_fields_in_key_value_text() {
        kind(
            "DB_PASSWORD=hunter2 PORT=5432",
            "DB_PASSWORD=•••• PORT=5432",
            "password_hint=blue passwords=3",
        );
        kind(
            "GET /v1?api_key=abc123&q=1",
            "GET /v1?api_key=••••&q=1",
            "GET /v1?api=abc123&q=1",
        );
        kind("secret: 'letmein'", "secret: '••••'", "secretary: ana");
    }

    #[test]
    fn oauth_token_fields() {
        kind(
            r#"{"access_token":"ya29.a0AfH6","refresh_token":"1//0gL","token_type":"Bearer","expires_in":3599}"#,
            r#"{"access_token":"••••","refresh_token":"••••","token_type":"Bearer","expires_in":3599}"#,
            r#"{"token":"the","max_tokens":"100","token_type":"Bearer"}"#,
        );
        kind(
            "grant_type=refresh_token&refresh_token=1//0gLxyz&client_id=42",
            "grant_type=refresh_token&refresh_token=••••&client_id=42",
            "grant_type=refresh_token&client_id=42",
        );
    }

    #[test]
    fn slack_tokens() {
        kind(
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
            "••••",
            "xoxb-12 and xoxz-123456789012345",
        );
    }

    #[test]
    fn stripe_secret_keys() {
        kind(
            "sk_live_51H8abcdEFGH1234 and rk_live_51H8abcdEFGH1234",
            "•••• and ••••",
            "pk_live_51H8abcdEFGH1234 (publishable) and sk_live_short",
        );
    }

    #[test]
    fn google_api_keys() {
        kind(
            "key=AIzaSyD-abcdefghijklmnopqrstuvwxyz12345&x",
            "key=••••&x",
            "AIzaShort and AIza",
        );
    }

    #[test]
    fn pem_private_keys() {
        let pem =
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----";
        kind(
            &format!("key:\n{pem}\nafter"),
            "key:\n••••\nafter",
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----",
        );
        // as it sits in JSON (escaped newlines), and cut short
        kind(
            r#"{"k":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk"#,
            r#"{"k":"••••"#,
            "-----BEGIN CERTIFICATE-----",
        );
    }

    #[test]
    fn card_numbers_pass_luhn() {
        kind(
            "card 4242 4242 4242 4242 ok",
            "card •••• ok",
            // fails Luhn: an order number, not a card
            "order 4242424242424241",
        );
    }

    #[test]
    fn every_kind_has_a_test_above() {
        // The list the docs name is the list the code masks.
        assert_eq!(
            kinds().iter().map(|k| k.name).collect::<Vec<_>>(),
            KINDS.to_vec()
        );
        assert!(builtin().is_some(), "every built-in pattern compiles");
    }

    #[test]
    fn configured_patterns_and_no_redact() {
        let r = Redactor::new(&["cus_[A-Za-z0-9]+".into()], false).unwrap();
        assert_eq!(r.apply("customer cus_3Nw8"), "customer ••••");
        let off = Redactor::new(&[], true).unwrap();
        assert_eq!(off.apply("sk-test-4f9aQ2xLk81"), "sk-test-4f9aQ2xLk81");
        assert_eq!(
            Redactor::new(&["ok".into(), "ab(".into()], false)
                .unwrap_err()
                .to_string(),
            "[redact] patterns[1] \"ab(\": not a valid regular expression: unclosed group"
        );
    }

    #[test]
    fn overlapping_secrets_make_one_mask() {
        assert_eq!(
            mask(r#"{"api_key":"sk-proj-4f9aQ2xLk81abcd"}"#),
            r#"{"api_key":"••••"}"#
        );
    }

    #[test]
    fn safe_cut_moves_out_of_a_secret() {
        let r = Redactor::default();
        let text = "aaaa sk-proj-4f9aQ2xLk81abcd bbbb";
        let start = text.find("sk-").unwrap();
        // inside the key: cut before it
        assert_eq!(r.safe_cut(text, start + 6), start);
        // outside any secret: unchanged
        assert_eq!(r.safe_cut(text, 2), 2);
        // a text that starts with the secret: cut after it
        let t = &text[start..];
        assert_eq!(r.safe_cut(t, 4), "sk-proj-4f9aQ2xLk81abcd".len());
    }

    #[test]
    fn a_stream_masks_a_key_across_piece_edges() {
        let key = "sk-proj-4f9aQ2xLk81abcdEFGH";
        let text = format!("{}{key}{}", "x ".repeat(MARGIN), " y".repeat(MARGIN));
        let bytes = text.as_bytes();
        // every cut through the key, in pieces of many sizes
        let at = text.find(key).unwrap();
        for piece in [7usize, 1000, 4096, at + 5, at + 20] {
            let r = Redactor::default();
            let mut s = StreamMasker::new(&r);
            let mut out = String::new();
            for p in bytes.chunks(piece) {
                out.push_str(&s.push(p));
            }
            out.push_str(&s.finish());
            assert_eq!(out, mask(&text), "pieces of {piece}");
            assert!(!out.contains("4f9aQ2x"));
        }
        // multi-byte characters cut between pieces survive
        let r = Redactor::default();
        let mut s = StreamMasker::new(&r);
        let text = "é".repeat(3 * MARGIN);
        let mut out = String::new();
        for p in text.as_bytes().chunks(999) {
            out.push_str(&s.push(p));
        }
        out.push_str(&s.finish());
        assert_eq!(out, text);
    }
}
