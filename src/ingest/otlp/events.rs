//! GenAI messages recorded as span events, as instrumentations wrote them
//! before semantic conventions 1.37: `gen_ai.choice` (what the model
//! answered), `gen_ai.{system,user,tool}.message` (its input),
//! `gen_ai.content.prompt` / `gen_ai.content.completion` (older still), and
//! the opt-in `gen_ai.client.inference.operation.details` of 1.37.
//!
//! An event's fields are read from `gen_ai.event.content` (Azure AI
//! Inference, Semantic Kernel) or `body` as JSON, else from its attributes
//! (Koog writes each body field as an attribute).

use serde_json::{Map, Value};

use super::genai;
use super::llm::{InMsg, OutMsg, json_attr, openai_calls};
use super::span::{Event, call_id};
use crate::ingest::convo;

const DETAILS: &str = "gen_ai.client.inference.operation.details";

/// An event's fields.
fn payload(e: &Event) -> Map<String, Value> {
    for key in ["gen_ai.event.content", "body"] {
        if let Some(Value::Object(m)) = json_attr(e.attrs.get(key)) {
            return m;
        }
    }
    e.attrs
        .iter()
        .map(|(k, v)| {
            // Structured fields come as JSON text.
            let v = match (k.as_str(), v) {
                ("message" | "tool_calls", Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| v.clone())
                }
                _ => v.clone(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// What the model answered, from its events: the `gen_ai.choice` events of
/// the first choice (Koog writes one per call, all index 0), merged; or a
/// `gen_ai.content.completion`'s first assistant message. `Some(Err)` when
/// such an event is there but holds no message.
pub fn output(events: &[Event]) -> Option<Result<OutMsg, String>> {
    let mut out: Option<OutMsg> = None;
    for e in events {
        let msg = match e.name.as_str() {
            "gen_ai.choice" => {
                let p = payload(e);
                let index = p.get("index").map(|i| match i {
                    Value::String(s) => s.parse::<i64>().unwrap_or(-1),
                    other => other.as_i64().unwrap_or(-1),
                });
                if index.is_some_and(|i| i != 0) {
                    continue;
                }
                let message = match p.get("message") {
                    Some(Value::Object(m)) => m.clone(),
                    _ => p.clone(),
                };
                let mut o = OutMsg {
                    text: convo::content_text(message.get("content")),
                    calls: Vec::new(),
                };
                if let Some(tc) = message.get("tool_calls").or_else(|| p.get("tool_calls")) {
                    o.calls = openai_calls(tc);
                }
                if o.text.is_none() && o.calls.is_empty() && !p.contains_key("finish_reason") {
                    return Some(Err(format!(
                        "a {} event with neither a message nor tool calls",
                        e.name
                    )));
                }
                o
            }
            "gen_ai.content.completion" => match json_attr(payload(e).get("gen_ai.completion")) {
                Some(Value::Array(msgs)) => match msgs.iter().find(|m| {
                    m.get("role")
                        .and_then(Value::as_str)
                        .is_none_or(|r| r == "assistant")
                }) {
                    Some(m) => genai::message_out(m.get("message").unwrap_or(m)),
                    None => continue,
                },
                Some(Value::String(t)) => OutMsg {
                    text: Some(t),
                    calls: Vec::new(),
                },
                _ => {
                    return Some(Err(format!(
                        "a {} event whose gen_ai.completion is not a JSON list of messages",
                        e.name
                    )));
                }
            },
            DETAILS => match genai::output(&e.attrs) {
                Some(o) => o,
                None => continue,
            },
            _ => continue,
        };
        match &mut out {
            None => out = Some(msg),
            Some(o) => {
                if o.text.is_none() {
                    o.text = msg.text;
                }
                o.calls.extend(msg.calls);
            }
        }
    }
    out.map(Ok)
}

/// What the model was given, from its events; `None` when no event says.
pub fn inputs(events: &[Event]) -> Option<Vec<InMsg>> {
    let mut inputs = Vec::new();
    let mut any = false;
    for e in events {
        match e.name.as_str() {
            "gen_ai.system.message" | "gen_ai.user.message" => {
                any = true;
                let p = payload(e);
                inputs.push(InMsg {
                    role: p
                        .get("role")
                        .and_then(Value::as_str)
                        .unwrap_or(if e.name == "gen_ai.user.message" {
                            "user"
                        } else {
                            "system"
                        })
                        .to_string(),
                    text: convo::content_text(p.get("content")),
                    tool_call_id: None,
                    response: None,
                });
            }
            "gen_ai.tool.message" => {
                any = true;
                let p = payload(e);
                inputs.push(InMsg {
                    role: "tool".into(),
                    text: None,
                    tool_call_id: p
                        .get("id")
                        .or_else(|| p.get("tool_call_id"))
                        .and_then(call_id),
                    response: Some(p.get("content").cloned().unwrap_or(Value::Null)),
                });
            }
            "gen_ai.assistant.message" => any = true,
            "gen_ai.content.prompt" => {
                if let Some(Value::Array(msgs)) = json_attr(payload(e).get("gen_ai.prompt")) {
                    any = true;
                    inputs.extend(genai::messages_in(&msgs));
                }
            }
            DETAILS => {
                if let Some(i) = genai::inputs(&e.attrs) {
                    any = true;
                    inputs.extend(i);
                }
            }
            _ => {}
        }
    }
    any.then_some(inputs)
}
