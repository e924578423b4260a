//! The OpenTelemetry GenAI semantic conventions (1.37 and later):
//! `gen_ai.tool.definitions`, `gen_ai.input.messages` and
//! `gen_ai.output.messages` as `{role, parts}` messages, finish reasons.

use serde_json::Value;

use super::llm::{InMsg, OutMsg, json_attr, openai_calls};
use super::wire::Attrs;
use crate::ingest::convo::{self, Args, Call};

/// The menu: `gen_ai.tool.definitions`, a JSON string or a list.
pub fn defs(a: &Attrs) -> Option<Vec<Value>> {
    match json_attr(a.get("gen_ai.tool.definitions")) {
        Some(Value::Array(d)) => Some(d),
        _ => None,
    }
}

/// The first assistant message of `gen_ai.output.messages`.
pub fn output(a: &Attrs) -> Option<OutMsg> {
    match json_attr(a.get("gen_ai.output.messages")) {
        Some(Value::Array(msgs)) => msgs
            .iter()
            .find(|m| {
                m.get("role")
                    .and_then(Value::as_str)
                    .is_none_or(|r| r == "assistant")
            })
            .map(message_out),
        _ => None,
    }
}

/// A semconv message (`{role, parts}`), or an OpenAI-style one.
pub fn message_out(m: &Value) -> OutMsg {
    let mut o = OutMsg::default();
    if let Some(Value::Array(parts)) = m.get("parts") {
        let mut texts = Vec::new();
        for p in parts {
            match p.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if let Some(t) = p.get("content").and_then(Value::as_str) {
                        texts.push(t.to_string());
                    }
                }
                Some("tool_call") => o.calls.push(Call {
                    id: p.get("id").and_then(Value::as_str).map(String::from),
                    name: p.get("name").and_then(Value::as_str).map(String::from),
                    arguments: Args::from_value(p.get("arguments")),
                }),
                _ => {}
            }
        }
        o.text = (!texts.is_empty()).then(|| texts.join("\n"));
    } else {
        o.text = convo::content_text(m.get("content"));
        if let Some(tc) = m.get("tool_calls") {
            o.calls = openai_calls(tc);
        }
    }
    o
}

/// `gen_ai.input.messages`: texts and tool call responses, part by part.
pub fn inputs(a: &Attrs) -> Option<Vec<InMsg>> {
    let Some(Value::Array(msgs)) = json_attr(a.get("gen_ai.input.messages")) else {
        return None;
    };
    let mut inputs = Vec::new();
    for m in &msgs {
        let role = m
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if let Some(Value::Array(parts)) = m.get("parts") {
            for p in parts {
                match p.get("type").and_then(Value::as_str) {
                    Some("text") => inputs.push(InMsg {
                        role: role.clone(),
                        text: p.get("content").and_then(Value::as_str).map(String::from),
                        tool_call_id: None,
                        response: None,
                    }),
                    Some("tool_call_response") => inputs.push(InMsg {
                        role: role.clone(),
                        text: None,
                        tool_call_id: p.get("id").and_then(Value::as_str).map(String::from),
                        response: Some(p.get("response").cloned().unwrap_or(Value::Null)),
                    }),
                    _ => {}
                }
            }
        } else {
            inputs.push(InMsg {
                text: convo::content_text(m.get("content")),
                tool_call_id: m
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .map(String::from),
                response: (role == "tool")
                    .then(|| m.get("content").cloned().unwrap_or(Value::Null)),
                role,
            });
        }
    }
    Some(inputs)
}

/// `gen_ai.response.finish_reasons`: a list, or one reason.
pub fn finish(a: &Attrs) -> Option<Vec<String>> {
    match a.get("gen_ai.response.finish_reasons") {
        Some(Value::Array(v)) => Some(
            v.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        ),
        Some(Value::String(s)) => Some(vec![s.clone()]),
        _ => None,
    }
}
