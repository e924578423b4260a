//! What a record keeps of a span: the attributes no mapping consumed, with
//! the span's id and name, so nothing recorded is lost by importing.

use serde_json::{Map, Value, json};

use super::rung_attrs::rung_key_known;
use super::span::Span;

/// Attribute keys the mapping consumes; the others are kept on the record.
fn consumed(key: &str) -> bool {
    const EXACT: &[&str] = &[
        "gen_ai.operation.name",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "openinference.span.kind",
        "input.value",
        "input.mime_type",
        "output.value",
        "output.mime_type",
        "llm.request.functions",
        "traceloop.entity.input",
        "traceloop.entity.output",
        "tool.name",
        "tool_call.id",
        "tool.id",
        "model_request_parameters",
        "tool_arguments",
        "tool_response",
    ];
    const PREFIXES: &[&str] = &[
        "llm.input_messages.",
        "llm.output_messages.",
        "llm.tools.",
        "llm.request.functions.",
        "gen_ai.prompt.",
        "gen_ai.completion.",
    ];
    EXACT.contains(&key)
        || PREFIXES.iter().any(|p| key.starts_with(p))
        || (key.starts_with("rung.") && rung_key_known(key))
}

/// Span attributes kept on a record: the unmapped ones, with the span id.
pub fn kept(s: &Span) -> Value {
    let rest: Map<String, Value> = s
        .attrs
        .iter()
        .filter(|(k, _)| !consumed(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    json!({"span_id": s.span_id, "name": s.name, "attributes": rest})
}
