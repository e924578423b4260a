//! The filter editor's completion: the value being typed in a field (after
//! its last comma), matched fuzzily against the values the database holds,
//! best match first, each with its count; and the field's text with a
//! candidate put in place of what was typed.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::store::completion::Completions;

/// One completion: what replaces the value being typed, and its count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The field's value once picked (`suite=` for a tag key: its values
    /// are offered next).
    pub insert: String,
    /// How many runs or decisions have it.
    pub count: u64,
    /// What `count` counts: "runs" or "decisions".
    pub unit: &'static str,
}

/// The fields that complete (model, catalogue, phase, tag).
pub fn completes(field: usize) -> bool {
    matches!(field, 0 | 1 | 2 | 5)
}

/// Where the value being typed starts in `text`, and the value.
pub fn token(text: &str) -> (usize, &str) {
    let start = text.rfind(',').map_or(0, |i| i + 1);
    let rest = &text[start..];
    let lead = rest.len() - rest.trim_start().len();
    (start + lead, &rest[lead..])
}

/// The candidates for `text` in `field`, best first: fuzzy score, then
/// count, then value. Nothing while the value being typed is empty.
pub fn candidates(field: usize, text: &str, c: &Completions) -> Vec<Candidate> {
    let (_, typed) = token(text);
    if typed.is_empty() || !completes(field) {
        return Vec::new();
    }
    let pool: Vec<(String, u64, &'static str)> = match field {
        0 => with(&c.models, "runs"),
        1 => with(&c.catalogues, "decisions"),
        2 => with(&c.phases, "decisions"),
        _ => match typed.split_once('=') {
            // A key's values, matched on what follows the `=`.
            Some((key, _)) => c
                .tags
                .iter()
                .filter(|(k, _, _)| k == key.trim())
                .map(|(k, v, n)| (format!("{k}={v}"), *n, "runs"))
                .collect(),
            // Keys: a run has one value of a key, so the runs with the key
            // are the sum over its values.
            None => {
                let mut keys: Vec<(String, u64, &'static str)> = Vec::new();
                for (k, _, n) in &c.tags {
                    let key = format!("{k}=");
                    match keys.iter_mut().find(|(x, _, _)| *x == key) {
                        Some((_, m, _)) => *m += n,
                        None => keys.push((key, *n, "runs")),
                    }
                }
                keys
            }
        },
    };
    let matcher = SkimMatcherV2::default();
    let mut scored: Vec<(i64, Candidate)> = pool
        .into_iter()
        .filter_map(|(insert, count, unit)| {
            let score = matcher.fuzzy_match(&insert, typed)?;
            Some((
                score,
                Candidate {
                    insert,
                    count,
                    unit,
                },
            ))
        })
        .collect();
    scored.sort_by(|(sa, a), (sb, b)| {
        sb.cmp(sa)
            .then(b.count.cmp(&a.count))
            .then(a.insert.cmp(&b.insert))
    });
    scored.into_iter().map(|(_, c)| c).collect()
}

fn with(v: &[(String, u64)], unit: &'static str) -> Vec<(String, u64, &'static str)> {
    v.iter().map(|(s, n)| (s.clone(), *n, unit)).collect()
}

/// `text` with the value being typed replaced by `c`.
pub fn accept(text: &str, c: &Candidate) -> String {
    let (start, _) = token(text);
    format!("{}{}", &text[..start], c.insert)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Completions {
        let s = |v: &[(&str, u64)]| v.iter().map(|(a, n)| (a.to_string(), *n)).collect();
        Completions {
            models: s(&[("qwen3:8b", 3), ("gpt-4o", 2), ("gpt-4o-mini", 2)]),
            catalogues: s(&[("desk-1", 12)]),
            phases: s(&[("modify", 7), ("inform", 5)]),
            tags: vec![
                ("suite".into(), "m18".into(), 2),
                ("suite".into(), "m19".into(), 1),
                ("team".into(), "billing".into(), 4),
            ],
        }
    }

    fn shown(v: &[Candidate]) -> Vec<(&str, u64)> {
        v.iter().map(|c| (c.insert.as_str(), c.count)).collect()
    }

    #[test]
    fn the_value_being_typed_is_matched_fuzzily_with_counts() {
        let c = data();
        assert_eq!(
            shown(&candidates(0, "gpt", &c)),
            [("gpt-4o", 2), ("gpt-4o-mini", 2)]
        );
        // After a comma, only the value being typed counts.
        assert_eq!(shown(&candidates(0, "gpt-4o, qw", &c)), [("qwen3:8b", 3)]);
        assert_eq!(shown(&candidates(0, "g4m", &c)), [("gpt-4o-mini", 2)]);
        assert_eq!(
            shown(&candidates(2, "i", &c)),
            [("inform", 5), ("modify", 7)]
        );
        assert!(candidates(0, "", &c).is_empty());
        assert!(candidates(3, "2", &c).is_empty(), "since does not complete");
        // Tags: keys (runs with the key), then a key's values.
        assert_eq!(
            shown(&candidates(5, "t", &c)),
            [("team=", 4), ("suite=", 3)]
        );
        assert_eq!(
            shown(&candidates(5, "suite=", &c)),
            [("suite=m18", 2), ("suite=m19", 1)]
        );
        assert_eq!(shown(&candidates(5, "suite=9", &c)), [("suite=m19", 1)]);
    }

    #[test]
    fn picking_replaces_only_the_value_being_typed() {
        let c = Candidate {
            insert: "qwen3:8b".into(),
            count: 3,
            unit: "runs",
        };
        assert_eq!(accept("qw", &c), "qwen3:8b");
        assert_eq!(accept("gpt-4o, qw", &c), "gpt-4o, qwen3:8b");
        assert_eq!(accept("gpt-4o,", &c), "gpt-4o,qwen3:8b");
    }
}
