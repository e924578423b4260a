//! The JSON forms the store keeps of nested record parts (recorded unknown
//! fields included), so that nothing a trace said is lost.

use serde_json::{Map, Value, json};

use super::{Label, Outcome, Policy, Retrieval};

fn with_extra(mut map: Map<String, Value>, extra: &Value) -> Value {
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            map.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(map)
}

impl Policy {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(f) = &self.allowed_families {
            m.insert("allowed_families".into(), json!(f));
        }
        if let Some(e) = self.max_effect {
            m.insert("max_effect".into(), json!(e.as_str()));
        }
        m.insert("allow_open_world".into(), json!(self.allow_open_world));
        with_extra(m, &self.extra)
    }
}

impl Retrieval {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("k".into(), json!(self.k));
        if let Some(s) = &self.selector {
            m.insert("selector".into(), json!(s));
        }
        if let Some(q) = &self.query {
            m.insert("query".into(), json!(q));
        }
        let candidates: Vec<Value> = self
            .candidates
            .iter()
            .map(|c| {
                let mut cm = Map::new();
                cm.insert("name".into(), json!(c.name));
                if let Some(s) = c.score {
                    cm.insert("score".into(), json!(s));
                }
                with_extra(cm, &c.extra)
            })
            .collect();
        m.insert("candidates".into(), Value::Array(candidates));
        with_extra(m, &self.extra)
    }
}

impl Outcome {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("status".into(), json!(self.status.as_str()));
        if let Some(s) = self.stage {
            m.insert("stage".into(), json!(s.as_str()));
        }
        if let Some(r) = &self.reason {
            m.insert("reason".into(), json!(r));
        }
        if let Some(msg) = &self.message {
            m.insert("message".into(), json!(msg));
        }
        if let Some(r) = self.retryable {
            m.insert("retryable".into(), json!(r));
        }
        with_extra(m, &self.extra)
    }
}

impl Label {
    pub fn to_json(&self) -> Value {
        json!({"acceptable": self.acceptable, "forbidden": self.forbidden})
    }
}
