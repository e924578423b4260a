//! The `rung.*` attributes of docs/otel.md: what no convention records
//! (policy, retrieval, labels, refusals, the run's task and trial), set by
//! a harness on its spans and applied to the decisions and the run.

use serde_json::{Map, Value, json};

use super::llm::json_attr;
use super::span::Span;
use crate::ingest::convo;

/// How a `rung.*` attribute's value becomes a field's.
type Conv = fn(&Value) -> Value;

/// The `rung.*` decision attributes (docs/otel.md).
const RUNG_DECISION_KEYS: &[&str] = &[
    "rung.phase",
    "rung.catalogue",
    "rung.policy.allowed_families",
    "rung.policy.max_effect",
    "rung.policy.allow_open_world",
    "rung.trusted_controls",
    "rung.retrieval.k",
    "rung.retrieval.selector",
    "rung.retrieval.query",
    "rung.retrieval.candidates",
    "rung.exposed",
    "rung.visible",
    "rung.expected.acceptable",
    "rung.expected.forbidden",
    "rung.progress",
    "rung.outcome.status",
    "rung.outcome.stage",
    "rung.outcome.reason",
    "rung.outcome.message",
    "rung.outcome.retryable",
    "rung.result",
    "rung.latency_ms",
];

pub fn rung_key_known(key: &str) -> bool {
    key.starts_with("rung.run.") || RUNG_DECISION_KEYS.contains(&key)
}

/// A number given as a number or as numeric text.
pub fn int_like(v: &Value) -> Value {
    match v {
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .map(|n| json!(n))
            .unwrap_or(v.clone()),
        other => other.clone(),
    }
}

/// Candidates: a JSON string, a list of `{name, score}` objects, or a list
/// of names.
fn candidates(v: &Value) -> Value {
    let v = match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(parsed) => parsed,
            Err(_) => return v.clone(),
        },
        other => other.clone(),
    };
    match v {
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|c| match c {
                    Value::String(name) => json!({"name": name}),
                    other => other,
                })
                .collect(),
        ),
        other => other,
    }
}

/// Applies a span's `rung.*` decision attributes to a decision's fields
/// (later spans override earlier ones, field by field).
pub fn apply_rung(f: &mut Map<String, Value>, s: &Span) {
    let a = &s.attrs;
    let mut set = |field: &str, key: &str| {
        if let Some(v) = a.get(key) {
            f.insert(field.into(), v.clone());
        }
    };
    set("phase", "rung.phase");
    set("catalogue", "rung.catalogue");
    set("trusted_controls", "rung.trusted_controls");
    set("exposed", "rung.exposed");
    set("visible", "rung.visible");
    set("progress", "rung.progress");
    if let Some(v) = a.get("rung.latency_ms") {
        f.insert("latency_ms".into(), int_like(v));
    }
    if let Some(v) = a.get("rung.result") {
        f.insert("result".into(), convo::result_value(v.clone()));
    }
    let sub = |f: &mut Map<String, Value>, field: &str, prefix: &str, parts: &[(&str, Conv)]| {
        if !parts
            .iter()
            .any(|(k, _)| a.contains_key(&format!("{prefix}{k}")))
        {
            return;
        }
        let mut obj = match f.remove(field) {
            Some(Value::Object(o)) => o,
            _ => Map::new(),
        };
        for (k, conv) in parts {
            if let Some(v) = a.get(&format!("{prefix}{k}")) {
                obj.insert((*k).into(), conv(v));
            }
        }
        f.insert(field.into(), Value::Object(obj));
    };
    let same: Conv = Value::clone;
    sub(
        f,
        "policy",
        "rung.policy.",
        &[
            ("allowed_families", same),
            ("max_effect", same),
            ("allow_open_world", same),
        ],
    );
    sub(
        f,
        "retrieval",
        "rung.retrieval.",
        &[
            ("k", int_like),
            ("selector", same),
            ("query", same),
            ("candidates", candidates),
        ],
    );
    sub(
        f,
        "expected",
        "rung.expected.",
        &[("acceptable", same), ("forbidden", same)],
    );
    if a.contains_key("rung.outcome.status") {
        // A recorded status replaces whatever the conventions said.
        f.remove("outcome");
    }
    sub(
        f,
        "outcome",
        "rung.outcome.",
        &[
            ("status", same),
            ("stage", same),
            ("reason", same),
            ("message", same),
            ("retryable", same),
        ],
    );
    if let Some(Value::Object(o)) = f.get_mut("outcome")
        && a.contains_key("rung.outcome.status")
    {
        if !o.contains_key("reason")
            && let Some(r) = a.get("error.type")
        {
            o.insert("reason".into(), r.clone());
        }
        if !o.contains_key("message")
            && let Some(m) = s.status_message.as_ref().or(s.exception.as_ref())
        {
            o.insert("message".into(), json!(m));
        }
    }
}

/// Run fields from `rung.run.*` (the first span in time order that sets a
/// key wins).
pub fn run_attrs(spans: &[Span]) -> Map<String, Value> {
    let mut m = Map::new();
    for s in spans {
        for (k, v) in &s.attrs {
            let Some(field) = k.strip_prefix("rung.run.") else {
                continue;
            };
            if m.contains_key(field) {
                continue;
            }
            let v = match field {
                "trial" => int_like(v),
                "task_id" => match v {
                    Value::Number(n) => json!(n.to_string()),
                    other => other.clone(),
                },
                "tags" => match json_attr(Some(v)) {
                    Some(Value::Object(t)) => Value::Object(
                        t.into_iter()
                            .map(|(k, v)| {
                                let s = match v {
                                    Value::String(s) => s,
                                    other => other.to_string(),
                                };
                                (k, json!(s))
                            })
                            .collect(),
                    ),
                    _ => v.clone(),
                },
                _ => v.clone(),
            };
            m.insert(field.to_string(), v);
        }
    }
    m
}
