//! End-to-end checks of the OTLP mapping on small exports built here.

use serde_json::{Value, json};

use super::Collector;
use crate::ingest::convo::Out;
use crate::ingest::locate::Doc;

fn span(id: &str, t: u64, attrs: Value) -> Value {
    let attrs: Vec<Value> = attrs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| json!({"key": k, "value": {"stringValue": v.as_str().unwrap()}}))
        .collect();
    json!({"traceId": "T", "spanId": id, "name": "chat", "kind": 3,
           "startTimeUnixNano": (1_000_000_000 * t).to_string(), "attributes": attrs})
}

fn messages(v: Value) -> String {
    v.to_string()
}

#[test]
fn repeated_call_ids_take_the_newest_response() {
    let call = |id: &str, name: &str| json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": id, "name": name, "arguments": {}}]}]);
    let resp = |r: &str| json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": r}]});
    let export = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        span("s1", 1, json!({"gen_ai.operation.name": "chat", "gen_ai.output.messages": messages(call("c1", "a"))})),
        span("s2", 2, json!({"gen_ai.operation.name": "chat",
            "gen_ai.input.messages": messages(json!([resp("r1")])),
            "gen_ai.output.messages": messages(call("c1", "b"))})),
        span("s3", 3, json!({"gen_ai.operation.name": "chat",
            "gen_ai.input.messages": messages(json!([resp("r1"), resp("r2")])),
            "gen_ai.output.messages": messages(json!([{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]))})),
    ]}]}]});
    let text = export.to_string();
    let doc = Doc::new(text.as_bytes());
    let mut c = Collector::default();
    let mut out = Out::default();
    c.add(&doc, 0, &export, &mut out).unwrap();
    c.finish(super::Source::Otlp, &mut out);
    assert!(out.dropped.is_empty(), "{:?}", out.dropped);
    let d: Vec<&Value> = out.records.iter().map(|m| &m.value).skip(1).collect();
    assert_eq!(d.len(), 3);
    assert_eq!(
        (&d[0]["selected"], &d[0]["result"]),
        (&json!("a"), &json!("r1"))
    );
    assert_eq!(
        (&d[1]["selected"], &d[1]["result"]),
        (&json!("b"), &json!("r2"))
    );
    assert_eq!(d[2]["selected"], Value::Null);
    assert_eq!(d[2]["turn"], 3);
}
