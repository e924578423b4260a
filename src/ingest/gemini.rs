//! Gemini `generateContent`: a request body (`contents`, `tools` with
//! `functionDeclarations`), a response body (`candidates`), or a transcript
//! list of `Content` objects (a chat history). One run each. Field names are
//! read in the REST API's lower camel case and in the Python SDK's snake
//! case.
//!
//! A `model` content is one turn: its `functionCall` parts are its calls
//! (parallel calls share the turn), `executableCode` a call of the built-in
//! `code_execution`; `functionResponse` parts answer calls by `id` when the
//! call has one, else the earliest unanswered call of that name.

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Assistant, Call, Item, Out, ToolResult};
use super::locate::Doc;
use super::openai::kind;

/// A field by its camel-case or snake-case name.
pub fn get<'a>(v: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    v.get(camel).or_else(|| v.get(snake))
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(String::from)
}

/// A list of contents is Gemini's when one of them has a `parts` list;
/// the others are dropped at their line when read.
fn check_contents(items: &[Value], what: &str) -> Vec<String> {
    if items
        .iter()
        .any(|c| c.get("parts").is_some_and(Value::is_array))
    {
        return Vec::new();
    }
    match items.first().and_then(|c| c.get("parts")) {
        Some(other) => vec![format!("{what}[0].parts is {}, not a list", kind(other))],
        None => vec![format!("{what}[0] has no \"parts\" list")],
    }
}

/// Why a value is not a Gemini body or history (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) if items.is_empty() => vec!["the list is empty".to_string()],
        Value::Array(items) => check_contents(items, ""),
        Value::Object(o) => {
            if let Some(c) = o.get("contents") {
                return match c {
                    Value::Array(items) => check_contents(items, "contents"),
                    other => vec![format!("\"contents\" is {}, not a list", kind(other))],
                };
            }
            match o.get("candidates") {
                Some(Value::Array(_)) => Vec::new(),
                Some(other) => vec![format!("\"candidates\" is {}, not a list", kind(other))],
                None => vec!["no \"contents\" or \"candidates\" list".to_string()],
            }
        }
        other => vec![format!("a Gemini body is an object, not {}", kind(other))],
    }
}

/// The conversation read so far.
#[derive(Default)]
struct Conversation {
    items: Vec<Item>,
    goal: Option<String>,
}

/// Reads one `Content`: a model turn, or the user's text and function
/// responses.
fn read_content(
    c: &Value,
    line: u64,
    what: &str,
    conv: &mut Conversation,
    out: &mut Out,
    record: &Option<String>,
) {
    let role = c.get("role").and_then(Value::as_str).unwrap_or("user");
    let parts = c
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    if role == "model" {
        let mut a = Assistant {
            line,
            ..Default::default()
        };
        let mut texts = Vec::new();
        let mut results = Vec::new();
        for (k, p) in parts.iter().enumerate() {
            if let Some(fc) = get(p, "functionCall", "function_call") {
                a.calls.push(Call {
                    id: string(fc.get("id")),
                    name: string(fc.get("name")),
                    arguments: match fc.get("args") {
                        None | Some(Value::Null) => Args::Absent,
                        Some(x) => Args::Value(x.clone()),
                    },
                });
            } else if let Some(code) = get(p, "executableCode", "executable_code") {
                a.calls.push(Call {
                    id: None,
                    name: Some("code_execution".to_string()),
                    arguments: Args::Value(code.clone()),
                });
            } else if let Some(r) = get(p, "codeExecutionResult", "code_execution_result") {
                let outcome = r.get("outcome").and_then(Value::as_str).unwrap_or("");
                results.push(Item::Result(ToolResult {
                    line,
                    name: Some("code_execution".to_string()),
                    content: r.get("output").cloned().unwrap_or(Value::Null),
                    error: (outcome != "OUTCOME_OK" && !outcome.is_empty())
                        .then(|| outcome.to_string()),
                    ..Default::default()
                }));
            } else if p.get("thought").and_then(Value::as_bool) == Some(true) {
                convo::keep(&mut a.extra, "thoughts", p.clone());
            } else if let Some(t) = p.get("text").and_then(Value::as_str) {
                texts.push(t.to_string());
            } else if get(p, "functionResponse", "function_response").is_some() {
                out.drop_part(
                    line,
                    record.clone(),
                    format!("dropped {what}.parts[{k}]: a functionResponse in a model turn"),
                );
            }
        }
        if !texts.is_empty() {
            a.text = Some(texts.join(""));
        }
        conv.items.push(Item::Assistant(a));
        conv.items.extend(results);
        return;
    }
    for p in parts {
        if let Some(fr) = get(p, "functionResponse", "function_response") {
            let response = fr.get("response").cloned().unwrap_or(Value::Null);
            // The API's own convention: an "error" key and no "output".
            let error = match (response.get("error"), response.get("output")) {
                (Some(e), None) if !e.is_null() => Some(match e {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }),
                _ => None,
            };
            conv.items.push(Item::Result(ToolResult {
                line,
                call_id: string(fr.get("id")),
                name: string(fr.get("name")),
                content: response,
                error,
                ..Default::default()
            }));
        } else if conv.goal.is_none()
            && let Some(t) = p.get("text").and_then(Value::as_str)
        {
            conv.goal = Some(t.to_string());
        }
    }
}

/// The menu's names: each function declaration, and the built-in tools a
/// model calls by name.
pub fn menu(tools: &[Value]) -> (Vec<String>, Vec<Value>) {
    let mut names = Vec::new();
    let mut defs = Vec::new();
    for t in tools {
        for d in get(t, "functionDeclarations", "function_declarations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(n) = d.get("name").and_then(Value::as_str) {
                names.push(n.to_string());
            }
            defs.push(d.clone());
        }
        if get(t, "codeExecution", "code_execution").is_some() {
            names.push("code_execution".to_string());
        }
        if get(t, "googleSearch", "google_search").is_some() {
            names.push("google_search".to_string());
        }
    }
    (names, defs)
}

/// Fields of a body this reader maps; the rest are kept on the run.
const MAPPED: &[&str] = &[
    "contents",
    "candidates",
    "tools",
    "modelVersion",
    "model_version",
    "model",
    "responseId",
    "response_id",
];

/// Maps one body or history to a run and its decisions.
pub fn map(doc: &Doc<'_>, off: usize, v: &Value, out: &mut Out) -> Result<(), String> {
    let (contents, candidates) = match v {
        Value::Array(_) => (doc.array_lines(off), Vec::new()),
        _ => (
            doc.item_lines(off, "contents"),
            doc.item_lines(off, "candidates"),
        ),
    };
    map_lines(v, doc.line_of(off), &contents, &candidates, out)
}

/// [`map`], with the lines given: the body's, its contents' (the list's
/// items, for a history) and its candidates'.
pub fn map_lines(
    v: &Value,
    record_line: u64,
    content_lines: &[u64],
    candidate_lines: &[u64],
    out: &mut Out,
) -> Result<(), String> {
    let why = check(v);
    if !why.is_empty() {
        return Err(format!("not a Gemini body or history: {}", why.join("; ")));
    }
    let response_id = string(get(v, "responseId", "response_id"));
    let run_id = match &response_id {
        Some(id) => format!("gemini-{id}"),
        None => format!("gemini-{}", convo::short_hash(v)),
    };
    let record = Some(format!("run {run_id}"));
    let mut conv = Conversation::default();
    let contents: Vec<(&Value, u64, String)> = match v {
        Value::Array(items) => {
            let lines = content_lines;
            items
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    (
                        c,
                        lines.get(i).copied().unwrap_or(record_line),
                        format!("[{i}]"),
                    )
                })
                .collect()
        }
        _ => match v.get("contents").and_then(Value::as_array) {
            Some(items) => {
                let lines = content_lines;
                items
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        (
                            c,
                            lines.get(i).copied().unwrap_or(record_line),
                            format!("contents[{i}]"),
                        )
                    })
                    .collect()
            }
            // A response: its first candidate's content is the turn.
            None => {
                let lines = candidate_lines;
                v.get("candidates")
                    .and_then(Value::as_array)
                    .and_then(|c| c.first())
                    .and_then(|c| c.get("content"))
                    .map(|c| {
                        (
                            c,
                            lines.first().copied().unwrap_or(record_line),
                            "candidates[0].content".to_string(),
                        )
                    })
                    .into_iter()
                    .collect()
            }
        },
    };
    for (c, line, what) in contents {
        match c.get("parts") {
            Some(Value::Array(_)) => {}
            Some(p) => {
                out.drop_part(
                    line,
                    record.clone(),
                    format!("dropped {what}: \"parts\" is {}, not a list", kind(p)),
                );
                continue;
            }
            None if c.is_object() => {
                out.drop_part(
                    line,
                    record.clone(),
                    format!("dropped {what}: no \"parts\" list"),
                );
                continue;
            }
            None => {
                out.drop_part(
                    line,
                    record.clone(),
                    format!("dropped {what}: {} is not a content", kind(c)),
                );
                continue;
            }
        }
        // A candidate's content with no role is the model's.
        if what.starts_with("candidates") && c.get("role").is_none() {
            let mut c = c.clone();
            c["role"] = json!("model");
            read_content(&c, line, &what, &mut conv, out, &record);
        } else {
            read_content(c, line, &what, &mut conv, out, &record);
        }
    }

    let tools: &[Value] = v
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let (names, defs) = menu(tools);
    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    if let Some(m) =
        string(get(v, "modelVersion", "model_version")).or_else(|| string(v.get("model")))
    {
        run.insert("model".into(), json!(m));
    }
    if let Some(g) = conv.goal.take() {
        run.insert("goal".into(), json!(g));
    }
    if !defs.is_empty() {
        run.insert("tool_definitions".into(), json!(defs));
    }
    if let Value::Object(o) = v {
        let rest: Map<String, Value> = o
            .iter()
            .filter(|(k, _)| !MAPPED.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !rest.is_empty() {
            let key = if o.contains_key("candidates") {
                "response"
            } else {
                "request"
            };
            run.insert(key.into(), Value::Object(rest));
        }
        if let Some(c) = o.get("candidates").and_then(Value::as_array)
            && c.len() > 1
        {
            // Only the first candidate is mapped; the others stay here.
            run.insert("other_candidates".into(), json!(c[1..]));
        }
    }
    if let Some(id) = response_id {
        run.insert("response_id".into(), json!(id));
    }
    run.insert("imported_from".into(), json!("gemini"));
    out.push(Value::Object(run), record_line, None);
    let visible = v.get("tools").is_some().then_some(names);
    convo::decisions(&run_id, visible.as_deref(), conv.items, &record, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(
            check(&json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})).is_empty()
        );
        assert!(check(&json!({"candidates": []})).is_empty());
        assert!(check(&json!([{"role": "model", "parts": []}])).is_empty());
        assert_eq!(
            check(&json!({"contents": [{"role": "user", "text": "hi"}]})),
            vec!["contents[0] has no \"parts\" list"]
        );
        assert_eq!(
            check(&json!({"x": 1})),
            vec!["no \"contents\" or \"candidates\" list"]
        );
    }
}
