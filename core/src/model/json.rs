//! The JSON forms the store keeps of nested record parts (recorded unknown
//! fields included), so that nothing a trace said is lost. Serialised
//! straight from the typed values: this runs for every decision.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::{Candidate, Label, Outcome, Policy, Retrieval};

/// Writes the unknown fields of a recorded object after its known ones.
fn extras<M: SerializeMap>(map: &mut M, extra: &Value, known: &[&str]) -> Result<(), M::Error> {
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            if !known.contains(&k.as_str()) {
                map.serialize_entry(k, v)?;
            }
        }
    }
    Ok(())
}

fn extra_len(extra: &Value) -> usize {
    match extra {
        Value::Object(m) => m.len(),
        _ => 0,
    }
}

impl Serialize for Policy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(f) = &self.allowed_families {
            m.serialize_entry("allowed_families", f)?;
        }
        if let Some(e) = self.max_effect {
            m.serialize_entry("max_effect", e.as_str())?;
        }
        m.serialize_entry("allow_open_world", &self.allow_open_world)?;
        extras(
            &mut m,
            &self.extra,
            &["allowed_families", "max_effect", "allow_open_world"],
        )?;
        m.end()
    }
}

impl Serialize for Candidate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(
            1 + self.score.is_some() as usize + extra_len(&self.extra),
        ))?;
        m.serialize_entry("name", &self.name)?;
        if let Some(score) = self.score {
            m.serialize_entry("score", &score)?;
        }
        extras(&mut m, &self.extra, &["name", "score"])?;
        m.end()
    }
}

impl Serialize for Retrieval {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("k", &self.k)?;
        if let Some(sel) = &self.selector {
            m.serialize_entry("selector", sel)?;
        }
        if let Some(q) = &self.query {
            m.serialize_entry("query", q)?;
        }
        m.serialize_entry("candidates", &self.candidates)?;
        extras(
            &mut m,
            &self.extra,
            &["k", "selector", "query", "candidates"],
        )?;
        m.end()
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("status", self.status.as_str())?;
        if let Some(st) = self.stage {
            m.serialize_entry("stage", st.as_str())?;
        }
        if let Some(r) = &self.reason {
            m.serialize_entry("reason", r)?;
        }
        if let Some(msg) = &self.message {
            m.serialize_entry("message", msg)?;
        }
        if let Some(r) = self.retryable {
            m.serialize_entry("retryable", &r)?;
        }
        extras(
            &mut m,
            &self.extra,
            &["status", "stage", "reason", "message", "retryable"],
        )?;
        m.end()
    }
}

impl Serialize for Label {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("acceptable", &self.acceptable)?;
        m.serialize_entry("forbidden", &self.forbidden)?;
        m.end()
    }
}
