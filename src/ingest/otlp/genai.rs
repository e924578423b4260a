//! The OpenTelemetry GenAI semantic conventions (1.37 and later):
//! `gen_ai.tool.definitions`, `gen_ai.input.messages` and
//! `gen_ai.output.messages` as `{role, parts}` messages, finish reasons.

use serde_json::Value;

use super::llm::{InMsg, OutMsg, is_call_list, json_attr, openai_calls};
use super::span::call_id;
use super::wire::Attrs;
use crate::ingest::convo::{self, Args, Call};

/// The menu: `gen_ai.tool.definitions`, a JSON string or a list.
pub fn defs(a: &Attrs) -> Option<Vec<Value>> {
    match json_attr(a.get("gen_ai.tool.definitions")) {
        Some(Value::Array(d)) => Some(d),
        _ => None,
    }
}

/// The menu pydantic-ai wrote before it wrote `gen_ai.tool.definitions`:
/// `model_request_parameters` with `function_tools` and `output_tools`
/// (the tool that ends the run is offered like any other).
pub fn pydantic_defs(a: &Attrs) -> Option<Vec<Value>> {
    let p = json_attr(a.get("model_request_parameters"))?;
    let mut defs = Vec::new();
    let mut any = false;
    for key in ["function_tools", "output_tools"] {
        let Some(Value::Array(tools)) = p.get(key) else {
            continue;
        };
        any = true;
        for t in tools {
            let mut d = serde_json::Map::new();
            for (from, to) in [
                ("name", "name"),
                ("description", "description"),
                ("parameters_json_schema", "parameters"),
            ] {
                if let Some(v) = t.get(from).filter(|v| !v.is_null()) {
                    d.insert(to.into(), v.clone());
                }
            }
            defs.push(Value::Object(d));
        }
    }
    any.then_some(defs)
}

/// The first assistant message of `gen_ai.output.messages`, with the
/// calls of the assistant messages right after it that hold only calls
/// (Koog writes each of parallel calls as a message of its own).
pub fn output(a: &Attrs) -> Option<OutMsg> {
    let Some(Value::Array(msgs)) = json_attr(a.get("gen_ai.output.messages")) else {
        return None;
    };
    let assistant = |m: &&Value| {
        m.get("role")
            .and_then(Value::as_str)
            .is_none_or(|r| r == "assistant")
    };
    let mut rest = msgs.iter().skip_while(|m| !assistant(m));
    let mut o = message_out(rest.next()?);
    if !o.calls.is_empty() {
        for m in rest.take_while(assistant) {
            let next = message_out(m);
            if next.calls.is_empty() || next.text.is_some() {
                break;
            }
            o.calls.extend(next.calls);
        }
    }
    Some(o)
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
                    id: p.get("id").and_then(call_id),
                    name: p.get("name").and_then(Value::as_str).map(String::from),
                    arguments: Args::from_value(p.get("arguments")),
                }),
                _ => {}
            }
        }
        o.text = (!texts.is_empty()).then(|| texts.join("\n"));
    } else if let Some(list) = m.get("content").filter(|c| is_call_list(c)) {
        // Koog: the content is the call list.
        o.calls = openai_calls(list);
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
    Some(messages_in(&msgs))
}

/// Input messages, semconv (`{role, parts}`) or OpenAI-style.
pub fn messages_in(msgs: &[Value]) -> Vec<InMsg> {
    let mut inputs = Vec::new();
    for m in msgs {
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
                    // pydantic-ai writes the response as `result`.
                    Some("tool_call_response") => inputs.push(InMsg {
                        role: role.clone(),
                        text: None,
                        tool_call_id: p.get("id").and_then(call_id),
                        response: Some(
                            p.get("response")
                                .or_else(|| p.get("result"))
                                .cloned()
                                .unwrap_or(Value::Null),
                        ),
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
    inputs
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
