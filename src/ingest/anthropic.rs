//! Anthropic Messages transcripts: `{"system", "tools", "messages"}` (the
//! Messages API request shape, with the assistant turns in it), and
//! response bodies (`{"type": "message", "role": "assistant", "content"}`):
//! one turn. Calls are `tool_use` blocks, results `tool_result` blocks with
//! `is_error`.

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Assistant, Call, Item, Out, ToolResult};
use super::openai::{TranscriptRun, keep_rest, kind, transcript_run};

const TRANSCRIPT_MAPPED: &[&str] = &[
    "messages", "tools", "run_id", "task_id", "trial", "success", "harm", "model",
];

/// Whether an object is a Messages API response body: `"type": "message"`,
/// `"role": "assistant"`, a `content` list, and no `messages`.
pub fn is_response(o: &Map<String, Value>) -> bool {
    o.get("type").and_then(Value::as_str) == Some("message")
        && o.get("role").and_then(Value::as_str) == Some("assistant")
        && o.get("content").is_some_and(Value::is_array)
        && !o.contains_key("messages")
}

/// A response body's turn as a message: `{"role": "assistant", "content"}`.
pub fn response_message(o: &Map<String, Value>) -> Value {
    json!({"role": "assistant", "content": o.get("content").cloned().unwrap_or(json!([]))})
}

/// Fields of a response body this reader maps; the rest are kept on the
/// run under `response`.
const RESPONSE_MAPPED: &[&str] = &["id", "type", "role", "content", "model"];

/// The fields of a response body kept on its run under `response`.
pub fn response_rest(o: &Map<String, Value>) -> Map<String, Value> {
    o.iter()
        .filter(|(k, _)| !RESPONSE_MAPPED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Why a value is not an Anthropic transcript or response body (empty when
/// it is one).
pub fn check(v: &Value) -> Vec<String> {
    let mut why = Vec::new();
    let Value::Object(o) = v else {
        return vec![format!("a transcript is an object, not {}", kind(v))];
    };
    if is_response(o) {
        return why;
    }
    match o.get("messages") {
        Some(Value::Array(msgs)) => {
            for (i, m) in msgs.iter().enumerate() {
                match m.get("role").and_then(Value::as_str) {
                    Some("user" | "assistant") => {}
                    Some(r) => why.push(format!(
                        "messages[{i}] has role {} (Anthropic has only user and assistant)",
                        crate::text::echo(r)
                    )),
                    None => why.push(format!("messages[{i}] has no \"role\"")),
                }
                if m.get("tool_calls").is_some() {
                    why.push(format!("messages[{i}] has OpenAI \"tool_calls\""));
                }
                if why.len() >= 3 {
                    break;
                }
            }
        }
        Some(other) => why.push(format!("\"messages\" is {}, not a list", kind(other))),
        None => why.push(
            "no \"messages\" list (a request or transcript) nor \"type\": \"message\" (a response)"
                .to_string(),
        ),
    }
    if let Some(Value::Array(tools)) = o.get("tools")
        && tools.iter().any(|t| t.get("function").is_some())
    {
        why.push("its tools have \"function\" (OpenAI's tool shape)".to_string());
    }
    why
}

/// Positive signs of Anthropic's shape, to prefer it over OpenAI's when a
/// transcript would pass both checks.
pub fn has_anthropic_signs(v: &Value) -> bool {
    let blocks = v
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten();
    let tools = v
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    v.get("system").is_some()
        || tools.into_iter().any(|t| t.get("input_schema").is_some())
        || blocks.into_iter().any(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("tool_use") || t.ends_with("tool_result"))
        })
}

/// The text of a tool_result's content: a string, or its text blocks.
fn result_content(b: &Value) -> Value {
    match b.get("content") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::String(s)) => json!(s),
        Some(Value::Array(blocks))
            if blocks
                .iter()
                .all(|x| x.get("type").and_then(Value::as_str) == Some("text")) =>
        {
            json!(convo::content_text(Some(&Value::Array(blocks.clone()))).unwrap_or_default())
        }
        Some(other) => other.clone(),
    }
}

fn error_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Reads Anthropic-format messages (content blocks): the conversation's
/// items in order, and the first user text. `message_lines[i]` is message
/// i's line (the record's line when unknown).
pub fn read_messages(
    messages: &[Value],
    message_lines: &[u64],
    record_line: u64,
) -> (Vec<Item>, Option<String>) {
    let mut items = Vec::new();
    let mut goal = None;
    for (i, m) in messages.iter().enumerate() {
        let line = message_lines.get(i).copied().unwrap_or(record_line);
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let blocks: Vec<Value> = match m.get("content") {
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            Some(Value::Array(b)) => b.clone(),
            _ => Vec::new(),
        };
        if role == "assistant" {
            let mut texts = Vec::new();
            let mut calls = Vec::new();
            let mut extra = Map::new();
            let mut server_results = Vec::new();
            for b in &blocks {
                let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                if ty == "text" {
                    if let Some(t) = b.get("text").and_then(Value::as_str) {
                        texts.push(t.to_string());
                    }
                } else if ty.ends_with("tool_use") {
                    calls.push(Call {
                        id: b.get("id").and_then(Value::as_str).map(String::from),
                        name: b.get("name").and_then(Value::as_str).map(String::from),
                        arguments: match b.get("input") {
                            None | Some(Value::Null) => Args::Absent,
                            Some(x) => Args::Value(x.clone()),
                        },
                    });
                } else if ty.ends_with("tool_result") {
                    // A server tool's result comes back inside the
                    // assistant turn.
                    let content = b.get("content").cloned().unwrap_or(Value::Null);
                    let failed = content
                        .get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.ends_with("_error"));
                    server_results.push(Item::Result(ToolResult {
                        line,
                        call_id: b
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .map(String::from),
                        error: failed.then(|| error_text(&content)),
                        content,
                        ..Default::default()
                    }));
                } else {
                    // Thinking and other blocks are kept, not mapped.
                    convo::keep(&mut extra, "blocks", b.clone());
                }
            }
            items.push(Item::Assistant(Assistant {
                line,
                text: (!texts.is_empty()).then(|| texts.join("\n")),
                calls,
                extra,
                ..Default::default()
            }));
            // Server tool results come after the turn that made the call.
            items.extend(server_results);
        } else {
            for b in &blocks {
                let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                if ty.ends_with("tool_result") {
                    let content = result_content(b);
                    let failed = b.get("is_error").and_then(Value::as_bool) == Some(true);
                    items.push(Item::Result(ToolResult {
                        line,
                        call_id: b
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .map(String::from),
                        error: failed.then(|| error_text(&content)),
                        content,
                        ..Default::default()
                    }));
                } else if ty == "text" && goal.is_none() {
                    goal = b.get("text").and_then(Value::as_str).map(String::from);
                }
            }
        }
    }
    (items, goal)
}

/// Maps a response body: one run (its `id`) holding its turn, whose calls
/// have no outcome yet.
fn map_response(
    o: &Map<String, Value>,
    v: &Value,
    record_line: u64,
    out: &mut Out,
) -> Result<(), String> {
    let run_id = match o.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("anthropic-{}", convo::short_hash(v)),
    };
    let record = Some(format!("run {run_id}"));
    let (items, _) = read_messages(&[response_message(o)], &[record_line], record_line);
    let run = convo::response_run(&run_id, o, response_rest(o), "anthropic");
    out.push(run, record_line, None);
    convo::decisions(&run_id, None, items, &record, out);
    Ok(())
}

/// The names of an Anthropic `tools` list.
pub fn tool_names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(String::from))
        .collect()
}

/// Maps one transcript, or one response body, to a run and its decisions.
pub fn map(
    v: &Value,
    record_line: u64,
    message_lines: &[u64],
    out: &mut Out,
) -> Result<(), String> {
    if let Value::Object(o) = v
        && is_response(o)
    {
        return map_response(o, v, record_line, out);
    }
    let TranscriptRun {
        o,
        messages,
        mut run,
        run_id,
    } = transcript_run(v, check(v), "an Anthropic transcript", "anthropic")?;
    let record = Some(format!("run {run_id}"));
    let defs = o.get("tools").and_then(Value::as_array);
    let visible: Option<Vec<String>> = defs.map(|d| tool_names(d));

    let (items, goal) = read_messages(messages, message_lines, record_line);
    if let Some(g) = goal {
        run.insert("goal".into(), json!(g));
    }
    if let Some(d) = defs {
        run.insert("tool_definitions".into(), json!(d));
    }
    keep_rest(o, TRANSCRIPT_MAPPED, &mut run);
    run.insert("imported_from".into(), json!("anthropic"));
    out.push(Value::Object(run), record_line, None);
    convo::decisions(&run_id, visible.as_deref(), items, &record, out);
    Ok(())
}
