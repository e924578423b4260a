//! OpenAI chat transcripts: `{"tools": [...], "messages": [...]}` per run
//! (the Chat Completions request shape, with the assistant turns in it),
//! and chat completion response bodies (`"object": "chat.completion"`,
//! `choices[].message`): one turn. The message reader is shared with
//! tau-bench and SWE-agent, which record OpenAI-format messages.

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Assistant, Call, Item, Out, ToolResult};

/// Roles an OpenAI transcript may hold.
const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

/// Fields of a message this reader maps; the rest are kept.
const MAPPED: &[&str] = &[
    "role",
    "content",
    "tool_calls",
    "function_call",
    "tool_call_id",
    "tool_call_ids",
    "name",
];

/// What a message list says: its items in order and the first user text.
#[derive(Debug, Default)]
pub struct Messages {
    pub items: Vec<Item>,
    pub goal: Option<String>,
}

fn calls_of(m: &Map<String, Value>) -> Vec<Call> {
    let mut calls = Vec::new();
    if let Some(Value::Array(tcs)) = m.get("tool_calls") {
        for tc in tcs {
            let f = tc.get("function");
            calls.push(Call {
                id: tc.get("id").and_then(Value::as_str).map(String::from),
                name: f
                    .and_then(|f| f.get("name"))
                    .or_else(|| tc.get("name"))
                    .and_then(Value::as_str)
                    .map(String::from),
                arguments: Args::from_value(
                    f.and_then(|f| f.get("arguments"))
                        .or_else(|| tc.get("arguments")),
                ),
            });
        }
    }
    if let Some(fc @ Value::Object(_)) = m.get("function_call") {
        calls.push(Call {
            id: None,
            name: fc.get("name").and_then(Value::as_str).map(String::from),
            arguments: Args::from_value(fc.get("arguments")),
        });
    }
    calls
}

/// Reads OpenAI-format messages. `lines[i]` is message i's line (the
/// record's line when unknown); `skip_goal` says which user messages are
/// not the request (SWE-agent's in-context demonstration).
pub fn read_messages(
    messages: &[Value],
    lines: &[u64],
    record_line: u64,
    record: &Option<String>,
    skip_goal: fn(&Map<String, Value>) -> bool,
    out: &mut Out,
) -> Messages {
    read_messages_with(
        messages,
        lines,
        record_line,
        record,
        skip_goal,
        &|_, _| Action::None,
        out,
    )
}

/// What a text protocol read out of an assistant message that made no call.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Not a text-protocol action: a text answer.
    None,
    /// A call written in the protocol; the next user message answers it.
    Call(Call),
    /// An action the harness would have parsed, but no call can be read
    /// from it (two command blocks): kept as `raw`.
    Unreadable,
}

/// Reads a text protocol's action out of an assistant message that made no
/// call, given the message after it.
pub type ReadAction<'a> = dyn Fn(&Map<String, Value>, Option<&Value>) -> Action + 'a;

/// Like [`read_messages`], with `action` reading a text protocol's call out
/// of an assistant message that made none (given the message after it).
pub fn read_messages_with(
    messages: &[Value],
    lines: &[u64],
    record_line: u64,
    record: &Option<String>,
    skip_goal: fn(&Map<String, Value>) -> bool,
    action: &ReadAction<'_>,
    out: &mut Out,
) -> Messages {
    let mut m_out = Messages::default();
    // The last assistant message's call came from a text protocol and no
    // user message has answered it yet.
    let mut awaiting = false;
    for (i, msg) in messages.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(record_line);
        let Value::Object(m) = msg else {
            out.drop_part(
                line,
                record.clone(),
                format!("dropped messages[{i}]: not an object"),
            );
            continue;
        };
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        match role {
            "assistant" => {
                let mut calls = calls_of(m);
                let mut text = convo::content_text(m.get("content"));
                let mut extra: Map<String, Value> = m
                    .iter()
                    .filter(|(k, _)| !MAPPED.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if text.as_deref().is_none_or(str::is_empty)
                    && let Some(Value::String(r)) = m.get("refusal")
                {
                    text = Some(r.clone());
                }
                let mut text_action = false;
                awaiting = false;
                if calls.is_empty() {
                    match action(m, messages.get(i + 1)) {
                        Action::None => {}
                        Action::Call(c) => {
                            calls.push(c);
                            awaiting = true;
                        }
                        Action::Unreadable => text_action = true,
                    }
                }
                // SWE-agent repeats the text as `thought`.
                if extra.get("thought").and_then(Value::as_str) == text.as_deref() {
                    extra.remove("thought");
                }
                m_out.items.push(Item::Assistant(Assistant {
                    line,
                    text,
                    calls,
                    text_action,
                    observed_by_user: awaiting,
                    extra,
                    ..Default::default()
                }));
            }
            "tool" | "function" => {
                // A list of text parts is the text it spells.
                let content = match m.get("content") {
                    Some(Value::Array(parts))
                        if parts
                            .iter()
                            .all(|p| p.get("type").and_then(Value::as_str) == Some("text")) =>
                    {
                        Value::String(convo::content_text(m.get("content")).unwrap_or_default())
                    }
                    Some(other) => other.clone(),
                    None => Value::Null,
                };
                let name = m.get("name").and_then(Value::as_str).map(String::from);
                let ids: Vec<String> = match (m.get("tool_call_id"), m.get("tool_call_ids")) {
                    (Some(Value::String(id)), _) => vec![id.clone()],
                    (_, Some(Value::Array(ids))) => ids
                        .iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect(),
                    _ => Vec::new(),
                };
                if ids.is_empty() {
                    m_out.items.push(Item::Result(ToolResult {
                        line,
                        name,
                        content,
                        ..Default::default()
                    }));
                } else {
                    for id in ids {
                        m_out.items.push(Item::Result(ToolResult {
                            line,
                            call_id: Some(id),
                            name: name.clone(),
                            content: content.clone(),
                            ..Default::default()
                        }));
                    }
                }
            }
            "user" => {
                if std::mem::take(&mut awaiting) {
                    // The observation of the text-protocol call before it.
                    let text = convo::content_text(m.get("content")).unwrap_or_default();
                    m_out.items.push(Item::Result(ToolResult {
                        line,
                        error: exit_status_error(&text),
                        content: Value::String(text),
                        answers_last_turn: true,
                        ..Default::default()
                    }));
                } else if m_out.goal.is_none() && !skip_goal(m) {
                    m_out.goal = convo::content_text(m.get("content"));
                }
            }
            "system" | "developer" => {}
            _ if !m.contains_key("role") => out.drop_part(
                line,
                record.clone(),
                format!("dropped messages[{i}]: no \"role\""),
            ),
            other => out.drop_part(
                line,
                record.clone(),
                format!(
                    "dropped messages[{i}]: role {} is not one of {}",
                    crate::text::echo(other),
                    ROLES.join(", ")
                ),
            ),
        }
    }
    m_out
}

/// An observation that opens with a non-zero `<returncode>N</returncode>`
/// (mini-swe-agent's shell) is a failed execution.
pub fn exit_status_error(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("<returncode>")?;
    let (code, _) = rest.split_once("</returncode>")?;
    let code: i64 = code.trim().parse().ok()?;
    (code != 0).then(|| format!("exit status {code}"))
}

/// Names of the tools offered: `function.name`, a flat `name`, or
/// `custom.name`.
pub fn tool_names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| {
            t.get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| t.get("name"))
                .or_else(|| t.get("custom").and_then(|c| c.get("name")))
                .and_then(Value::as_str)
                .map(String::from)
        })
        .collect()
}

/// Whether an object is a chat completion response body: `choices` with
/// `"object": "chat.completion"` (or, with no `object`, every choice a
/// `message` object), and no `messages`.
pub fn is_response(o: &Map<String, Value>) -> bool {
    let Some(Value::Array(choices)) = o.get("choices") else {
        return false;
    };
    if o.contains_key("messages") {
        return false;
    }
    match o.get("object") {
        Some(Value::String(s)) => s == "chat.completion",
        None => {
            !choices.is_empty()
                && choices
                    .iter()
                    .all(|c| c.get("message").is_some_and(Value::is_object))
        }
        Some(_) => false,
    }
}

/// The list whose items' lines a record's messages are read at: `choices`
/// for a response body, else `messages`.
pub fn list_key(v: &Value) -> &'static str {
    match v {
        Value::Object(o) if is_response(o) => "choices",
        _ => "messages",
    }
}

/// The assistant message a response body's first choice holds, with the
/// choice's `finish_reason` added (kept on its decisions under `message`);
/// `Ok(None)` when it has no choice.
pub fn response_message(o: &Map<String, Value>) -> Result<Option<Value>, String> {
    let Some(first) = o
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Ok(None);
    };
    let Some(Value::Object(m)) = first.get("message") else {
        return Err("dropped choices[0]: no \"message\" object".to_string());
    };
    let mut m = m.clone();
    if !m.contains_key("role") {
        m.insert("role".into(), json!("assistant"));
    }
    if let Some(f @ Value::String(_)) = first.get("finish_reason") {
        m.insert("finish_reason".into(), f.clone());
    }
    Ok(Some(Value::Object(m)))
}

/// Why a value is not an OpenAI transcript or response body (empty when it
/// is one).
pub fn check(v: &Value) -> Vec<String> {
    let mut why = Vec::new();
    let Value::Object(o) = v else {
        return vec![format!("a transcript is an object, not {}", kind(v))];
    };
    if is_response(o) {
        return why;
    }
    if let Some(Value::String(obj)) = o.get("object")
        && obj.starts_with("chat.completion.")
    {
        return vec![format!(
            "its \"object\" is {}: a streamed chunk, not a whole response",
            crate::text::echo(obj)
        )];
    }
    match o.get("messages") {
        Some(Value::Array(msgs)) => {
            for (i, m) in msgs.iter().enumerate() {
                match m.get("role").and_then(Value::as_str) {
                    None => why.push(format!("messages[{i}] has no \"role\"")),
                    Some(r) if !ROLES.contains(&r) => {
                        why.push(format!("messages[{i}] has role {}", crate::text::echo(r)))
                    }
                    Some(_) => {}
                }
                if let Some(Value::Array(blocks)) = m.get("content")
                    && let Some(t) = blocks.iter().find_map(|b| {
                        b.get("type")
                            .and_then(Value::as_str)
                            .filter(|t| t.ends_with("tool_use") || t.ends_with("tool_result"))
                    })
                {
                    why.push(format!(
                        "messages[{i}] holds an Anthropic {} content block",
                        crate::text::echo(t)
                    ));
                }
                if why.len() >= 3 {
                    break;
                }
            }
        }
        Some(other) => why.push(format!("\"messages\" is {}, not a list", kind(other))),
        None => why.push(
            "no \"messages\" list (a request or transcript) nor \"choices\" (a chat completion)"
                .to_string(),
        ),
    }
    if let Some(Value::Array(tools)) = o.get("tools")
        && tools.iter().any(|t| t.get("input_schema").is_some())
    {
        why.push("its tools have \"input_schema\" (Anthropic's tool shape)".to_string());
    }
    why
}

/// How error messages name a JSON value's type.
pub use super::native::type_name as kind;

/// Fields of a transcript this reader maps; the rest are kept on the run.
const TRANSCRIPT_MAPPED: &[&str] = &[
    "messages",
    "tools",
    "functions",
    "run_id",
    "task_id",
    "trial",
    "success",
    "harm",
    "model",
];

/// Run fields a transcript may carry beside the provider's own (a harness's
/// additions): `run_id`, `task_id` (string or integer), `trial`, `success`,
/// `harm`, and the provider's `model`.
/// What every transcript mapper starts with: the shape checked (`why`, from
/// its `check`), the run record's known fields, and the run id (recorded,
/// else derived from the content under `prefix`).
pub fn transcript_run<'v>(
    v: &'v Value,
    why: Vec<String>,
    what: &str,
    prefix: &str,
) -> Result<TranscriptRun<'v>, String> {
    let convo::Checked { o, items, .. } = convo::checked(v, "messages", why, what)?;
    let mut run = Map::new();
    run_fields(o, &mut run);
    let run_id = match run.get("run_id").and_then(Value::as_str) {
        Some(id) => id.to_string(),
        None => format!("{prefix}-{}", convo::short_hash(v)),
    };
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    Ok(TranscriptRun {
        o,
        messages: items,
        run,
        run_id,
    })
}

/// A transcript's object and messages, its run record so far, and its run id.
pub struct TranscriptRun<'v> {
    pub o: &'v Map<String, Value>,
    pub messages: &'v [Value],
    pub run: Map<String, Value>,
    pub run_id: String,
}

pub fn run_fields(o: &Map<String, Value>, run: &mut Map<String, Value>) {
    for key in ["run_id", "model"] {
        if let Some(Value::String(s)) = o.get(key) {
            run.insert(key.into(), json!(s));
        }
    }
    match o.get("task_id") {
        Some(Value::String(s)) => {
            run.insert("task_id".into(), json!(s));
        }
        Some(Value::Number(n)) => {
            run.insert("task_id".into(), json!(n.to_string()));
        }
        _ => {}
    }
    if let Some(t @ Value::Number(_)) = o.get("trial") {
        run.insert("trial".into(), t.clone());
    }
    for key in ["success", "harm"] {
        if let Some(b @ Value::Bool(_)) = o.get(key) {
            run.insert(key.into(), b.clone());
        }
    }
}

/// Keeps a transcript's unmapped top-level fields on the run, under
/// `request` (so that none is mistaken for a rung field).
pub fn keep_rest(o: &Map<String, Value>, mapped: &[&str], run: &mut Map<String, Value>) {
    let rest: Map<String, Value> = o
        .iter()
        .filter(|(k, _)| !mapped.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !rest.is_empty() {
        run.insert("request".into(), Value::Object(rest));
    }
}

/// Fields of a response body this reader maps; the rest are kept on the
/// run under `response`.
const RESPONSE_MAPPED: &[&str] = &["id", "object", "model", "choices"];

/// The fields of a response body kept on its run under `response`: all but
/// its id, model and first choice (other choices as `other_choices`).
pub fn response_rest(o: &Map<String, Value>) -> Map<String, Value> {
    let mut rest: Map<String, Value> = o
        .iter()
        .filter(|(k, _)| !RESPONSE_MAPPED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(Value::Array(c)) = o.get("choices")
        && c.len() > 1
    {
        rest.insert("other_choices".into(), json!(c[1..]));
    }
    rest
}

/// Maps a chat completion response body: one run (its `id`) holding the
/// turn of its first choice, whose calls have no outcome yet.
fn map_response(
    o: &Map<String, Value>,
    v: &Value,
    record_line: u64,
    choice_lines: &[u64],
    out: &mut Out,
) -> Result<(), String> {
    let run_id = match o.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("openai-{}", convo::short_hash(v)),
    };
    let record = Some(format!("run {run_id}"));
    let line = choice_lines.first().copied().unwrap_or(record_line);
    let messages: Vec<Value> = match response_message(o) {
        Ok(m) => m.into_iter().collect(),
        Err(why) => {
            out.drop_part(line, record.clone(), why);
            Vec::new()
        }
    };
    let msgs = read_messages_with(
        &messages,
        &[line],
        record_line,
        &record,
        |_| false,
        &super::messages::mswea_action,
        out,
    );
    let run = convo::response_run(&run_id, o, response_rest(o), "openai");
    out.push(run, record_line, None);
    convo::decisions(&run_id, None, msgs.items, &record, out);
    Ok(())
}

/// Maps one transcript, or one response body, to a run and its decisions.
/// `message_lines` are the lines of its `messages` (of its `choices` for a
/// response body: [`list_key`]).
pub fn map(
    v: &Value,
    record_line: u64,
    message_lines: &[u64],
    out: &mut Out,
) -> Result<(), String> {
    if let Value::Object(o) = v
        && is_response(o)
    {
        return map_response(o, v, record_line, message_lines, out);
    }
    let TranscriptRun {
        o,
        messages,
        mut run,
        run_id,
    } = transcript_run(v, check(v), "an OpenAI transcript", "openai")?;
    let record = Some(format!("run {run_id}"));
    let defs: Option<&Vec<Value>> = match (o.get("tools"), o.get("functions")) {
        (Some(Value::Array(t)), _) => Some(t),
        (_, Some(Value::Array(f))) => Some(f),
        _ => None,
    };
    let visible = defs.map(|d| tool_names(d));
    // mini-swe-agent saves its messages in this shape too.
    let msgs = read_messages_with(
        messages,
        message_lines,
        record_line,
        &record,
        |_| false,
        &super::messages::mswea_action,
        out,
    );
    if let Some(g) = msgs.goal {
        run.insert("goal".into(), json!(g));
    }
    if let Some(d) = defs {
        run.insert("tool_definitions".into(), json!(d));
    }
    keep_rest(o, TRANSCRIPT_MAPPED, &mut run);
    run.insert("imported_from".into(), json!("openai"));
    out.push(Value::Object(run), record_line, None);
    convo::decisions(&run_id, visible.as_deref(), msgs.items, &record, out);
    Ok(())
}
