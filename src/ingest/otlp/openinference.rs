//! OpenInference (Arize Phoenix): `llm.tools.N.tool.*`,
//! `llm.output_messages.N.message.*`, `llm.input_messages.N.message.*`,
//! `llm.finish_reason` and the model in `llm.invocation_parameters`.

use serde_json::{Value, json};

use super::genai;
use super::llm::{InMsg, OutMsg, def_name, indexed, indexed_in, indexed_inputs, json_attr, s_of};
use super::wire::Attrs;
use crate::ingest::convo::{self, Args, Call};

/// The menu: `llm.tools.N.tool.json_schema`, else its name and description.
pub fn defs(a: &Attrs) -> Option<Vec<Value>> {
    let tools = indexed(a, "llm.tools");
    if tools.is_empty() {
        return None;
    }
    Some(
        tools
            .values()
            .map(|t| {
                let schema = json_attr(t.get("tool.json_schema").copied());
                match (schema, s_of(t, "tool.name")) {
                    (Some(sc), None) => sc,
                    (Some(Value::Object(mut sc)), Some(n)) => {
                        if def_name(&Value::Object(sc.clone())).is_none() {
                            sc.insert("name".into(), json!(n));
                        }
                        Value::Object(sc)
                    }
                    (_, n) => {
                        json!({"name": n, "description": s_of(t, "tool.description")})
                    }
                }
            })
            .collect(),
    )
}

/// The first of `llm.output_messages`: its content (or content parts) and
/// tool calls.
pub fn output(a: &Attrs) -> Option<OutMsg> {
    let oi = indexed(a, "llm.output_messages");
    let m = oi.values().next()?;
    let mut o = OutMsg {
        text: s_of(m, "message.content"),
        calls: Vec::new(),
    };
    if o.text.is_none() {
        let texts: Vec<String> = indexed_in(m, "message.contents")
            .values()
            .filter_map(|c| s_of(c, "message_content.text"))
            .collect();
        o.text = (!texts.is_empty()).then(|| texts.join("\n"));
    }
    for tc in indexed_in(m, "message.tool_calls").values() {
        o.calls.push(Call {
            id: s_of(tc, "tool_call.id"),
            name: s_of(tc, "tool_call.function.name"),
            arguments: Args::from_value(tc.get("tool_call.function.arguments").copied()),
        });
    }
    Some(o)
}

/// `llm.input_messages`, when there are any.
pub fn inputs(a: &Attrs) -> Option<Vec<InMsg>> {
    let oi = indexed(a, "llm.input_messages");
    (!oi.is_empty()).then(|| indexed_inputs(&oi, "message."))
}

/// `llm.finish_reason`.
pub fn finish(a: &Attrs) -> Option<Vec<String>> {
    a.get("llm.finish_reason")
        .and_then(Value::as_str)
        .map(|s| vec![s.to_string()])
}

/// The `model` of `llm.invocation_parameters`.
pub fn invocation_model(a: &Attrs) -> Option<String> {
    json_attr(a.get("llm.invocation_parameters"))
        .and_then(|p| p.get("model").and_then(Value::as_str).map(String::from))
}

/// What the model answered when no `llm.output_messages` were written
/// (Agno): `output.value` holding the provider's response body, an OpenAI
/// chat completion (`choices`), a Responses API response (`output` items)
/// or a Gemini one (`content.parts` or `candidates`).
pub fn output_value(a: &Attrs) -> Option<OutMsg> {
    let v = json_attr(a.get("output.value"))?;
    if let Some(Value::Array(choices)) = v.get("choices") {
        return choices
            .first()
            .and_then(|c| c.get("message"))
            .map(genai::message_out);
    }
    if let Some(Value::Array(items)) = v.get("output") {
        return Some(responses_out(items));
    }
    let content = v
        .get("candidates")
        .and_then(|c| c.get(0))
        .unwrap_or(&v)
        .get("content")?;
    let Value::Array(parts) = content.get("parts")? else {
        return None;
    };
    Some(gemini_out(parts))
}

/// Responses API output items: `function_call`s and `message` texts.
fn responses_out(items: &[Value]) -> OutMsg {
    let mut o = OutMsg::default();
    let mut texts = Vec::new();
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => o.calls.push(Call {
                id: item
                    .get("call_id")
                    .or_else(|| item.get("id"))
                    .and_then(Value::as_str)
                    .map(String::from),
                name: item.get("name").and_then(Value::as_str).map(String::from),
                arguments: Args::from_value(item.get("arguments")),
            }),
            Some("message") => {
                if let Some(t) = convo::content_text(item.get("content")) {
                    texts.push(t);
                }
            }
            _ => {}
        }
    }
    o.text = (!texts.is_empty()).then(|| texts.join("\n"));
    o
}

/// Gemini content parts: `function_call` / `functionCall` and texts.
fn gemini_out(parts: &[Value]) -> OutMsg {
    let mut o = OutMsg::default();
    let mut texts = Vec::new();
    for p in parts {
        if let Some(fc) = p.get("function_call").or_else(|| p.get("functionCall")) {
            o.calls.push(Call {
                id: fc.get("id").and_then(Value::as_str).map(String::from),
                name: fc.get("name").and_then(Value::as_str).map(String::from),
                arguments: Args::from_value(fc.get("args")),
            });
        } else if let Some(t) = p.get("text").and_then(Value::as_str) {
            texts.push(t.to_string());
        }
    }
    o.text = (!texts.is_empty()).then(|| texts.join("\n"));
    o
}
