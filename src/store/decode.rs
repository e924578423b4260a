//! Stored JSON columns read back into model values: policies, retrieval
//! candidates, labels and name lists.

use crate::model::{Effect, Label, Policy, Retrieval};

pub(crate) fn parse_list(s: Option<String>) -> Option<Vec<String>> {
    s.and_then(|s| serde_json::from_str(&s).ok())
}

/// The parts of stored JSON the ladder reads, parsed straight into typed
/// values (unknown fields ignored): this runs once per decision.
#[derive(serde::Deserialize)]
struct PolicyRow {
    allowed_families: Option<Vec<String>>,
    max_effect: Option<String>,
    #[serde(default)]
    allow_open_world: bool,
}

#[derive(serde::Deserialize)]
struct CandidateRow {
    name: String,
    score: Option<f64>,
}

#[derive(serde::Deserialize)]
struct RetrievalRow {
    k: u32,
    #[serde(default)]
    candidates: Vec<CandidateRow>,
}

#[derive(serde::Deserialize)]
struct LabelRow {
    acceptable: Vec<String>,
    #[serde(default)]
    forbidden: Vec<String>,
}

pub(crate) fn parse_policy(s: Option<String>) -> Option<Policy> {
    let p: PolicyRow = serde_json::from_str(&s?).ok()?;
    Some(Policy {
        allowed_families: p.allowed_families,
        max_effect: p.max_effect.as_deref().and_then(Effect::parse),
        allow_open_world: p.allow_open_world,
        extra: serde_json::Value::Null,
    })
}

pub(crate) fn parse_retrieval(s: Option<String>) -> Option<Retrieval> {
    let r: RetrievalRow = serde_json::from_str(&s?).ok()?;
    Some(Retrieval {
        k: r.k,
        selector: None,
        query: None,
        candidates: r
            .candidates
            .into_iter()
            .map(|c| crate::model::Candidate {
                name: c.name,
                score: c.score,
                extra: serde_json::Value::Null,
            })
            .collect(),
        extra: serde_json::Value::Null,
    })
}

pub(crate) fn parse_label(s: Option<String>) -> Option<Label> {
    let l: LabelRow = serde_json::from_str(&s?).ok()?;
    Some(Label::new(l.acceptable, l.forbidden))
}
