//! Masks secrets in arguments and results before they are shown: API keys
//! (`sk-...`), `Bearer` tokens, AWS access key ids, card numbers that pass
//! the Luhn check, plus the configuration's extra patterns.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

/// What a masked secret is replaced with.
pub const MASK: &str = "••••";

fn builtin() -> &'static [Regex] {
    static RE: OnceLock<Vec<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        [
            // OpenAI/Anthropic-style keys: sk-..., sk-proj-..., sk-ant-...
            r"\bsk-[A-Za-z0-9_\-]{8,}",
            // HTTP bearer tokens
            r"(?i)\bbearer\s+[A-Za-z0-9_\-\.=:+/]{8,}",
            // AWS access key ids
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("built-in pattern"))
        .collect()
    })
}

fn card_candidates() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\b\d(?:[ \-]?\d){12,18}\b").expect("card pattern"))
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

/// A redactor: the built-in patterns plus extra ones from the configuration.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    extra: Vec<Regex>,
    /// `--no-redact`: show everything.
    pub disabled: bool,
}

impl Redactor {
    /// Builds a redactor; an invalid extra pattern is an error naming it.
    pub fn new(extra: &[String], disabled: bool) -> Result<Redactor, String> {
        let extra = extra
            .iter()
            .map(|p| Regex::new(p).map_err(|e| format!("[redact] pattern {p:?}: {e}")))
            .collect::<Result<_, _>>()?;
        Ok(Redactor { extra, disabled })
    }

    /// `s` with every secret replaced by [`MASK`].
    pub fn apply<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if self.disabled {
            return Cow::Borrowed(s);
        }
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for re in builtin().iter().chain(self.extra.iter()) {
            if re.is_match(&out) {
                out = Cow::Owned(re.replace_all(&out, MASK).into_owned());
            }
        }
        let cards = card_candidates();
        if cards.is_match(&out) {
            out = Cow::Owned(
                cards
                    .replace_all(&out, |c: &regex::Captures<'_>| {
                        if luhn(&c[0]) {
                            MASK.to_string()
                        } else {
                            c[0].to_string()
                        }
                    })
                    .into_owned(),
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_known_secrets_only() {
        let r = Redactor::default();
        assert_eq!(r.apply("key sk-test-4f9aQ2xLk81 end"), "key •••• end");
        assert_eq!(
            r.apply("Authorization: Bearer eyJhbGciOi.x"),
            "Authorization: ••••"
        );
        assert_eq!(r.apply("AKIAIOSFODNN7EXAMPLE"), "••••");
        assert_eq!(r.apply("card 4242 4242 4242 4242 ok"), "card •••• ok");
        // fails Luhn: an order number, not a card
        assert_eq!(r.apply("order 4242424242424241"), "order 4242424242424241");
        assert_eq!(r.apply("sk-short"), "sk-short");
        let r = Redactor::new(&["cus_[A-Za-z0-9]+".into()], false).unwrap();
        assert_eq!(r.apply("customer cus_3Nw8"), "customer ••••");
        let off = Redactor::new(&[], true).unwrap();
        assert_eq!(off.apply("sk-test-4f9aQ2xLk81"), "sk-test-4f9aQ2xLk81");
    }
}
