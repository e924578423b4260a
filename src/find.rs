//! What `/` finds in a list (issue 16), one rule for every list of the TUI
//! and for the store's searched decision lists: a row matches when one of
//! its named fields contains the text, in any case; the names of the fields
//! that matched are what a row says when the match is not in sight.

/// The text `/` looks for, as rows are compared with it: trimmed and lower
/// case (empty: no search).
pub fn pattern(typed: &str) -> String {
    typed.trim().to_lowercase()
}

/// Whether `text` contains `pat` (already [`pattern`]-ed), in any case.
pub fn contains(text: &str, pat: &str) -> bool {
    !pat.is_empty() && text.to_lowercase().contains(pat)
}

/// The names of `fields` whose text contains `pat` (already
/// [`pattern`]-ed), in the order given; an absent field never matches.
pub fn found_in<'a>(fields: &[(&'a str, Option<&str>)], pat: &str) -> Vec<&'a str> {
    if pat.is_empty() {
        return Vec::new();
    }
    fields
        .iter()
        .filter(|(_, v)| v.is_some_and(|s| contains(s, pat)))
        .map(|(k, _)| *k)
        .collect()
}

/// The byte ranges of `text` where `pat` (already [`pattern`]-ed) occurs,
/// left to right without overlap; none when lower-casing changes the
/// text's length (the ranges would not fall on the same characters).
pub fn occurrences(text: &str, pat: &str) -> Vec<std::ops::Range<usize>> {
    let lower = text.to_lowercase();
    if pat.is_empty() || lower.len() != text.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = lower[at..].find(pat) {
        let (s, e) = (at + i, at + i + pat.len());
        if !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            break;
        }
        out.push(s..e);
        at = e;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_places_that_match() {
        let fields = [
            ("run", Some("r-101")),
            ("reason", Some("Not_Permitted")),
            ("boundary", None),
        ];
        assert_eq!(found_in(&fields, &pattern(" PERMIT ")), vec!["reason"]);
        assert_eq!(found_in(&fields, "1"), vec!["run"]);
        assert!(found_in(&fields, "").is_empty());
        assert_eq!(occurrences("abcABCabc", "bc"), vec![1..3, 4..6, 7..9]);
        assert!(occurrences("abc", "").is_empty());
    }
}
