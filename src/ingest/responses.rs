//! OpenAI Responses API: a request body (`input` items, `tools`), a response
//! body (`"object": "response"`, `output` items), both in one object, or a
//! transcript list of items (what the OpenAI Agents SDK keeps:
//! `result.to_input_list()`). One run each.
//!
//! The items a model turn produced (`reasoning`, an assistant `message`,
//! `function_call`, `custom_tool_call`, `mcp_call` and the hosted tools'
//! `*_call` items) follow one another and make one turn; `*_output` items
//! answer calls by `call_id`.

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Assistant, Call, Item, Out, ToolResult};
use super::locate::Doc;
use super::openai::kind;

/// Item types that are no call and no message, read or skipped knowingly.
const OTHER_ITEMS: &[&str] = &["reasoning", "item_reference", "mcp_list_tools"];

fn is_item(v: &Value) -> bool {
    let ty = v.get("type").and_then(Value::as_str);
    let part_typed = v
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts.iter().any(|p| {
                matches!(
                    p.get("type").and_then(Value::as_str),
                    Some("input_text" | "output_text" | "refusal" | "input_image" | "input_file")
                )
            })
        });
    match ty {
        Some(t) => {
            t == "message"
                || t.ends_with("_call")
                || t.ends_with("_call_output")
                || t == "function_call_output"
                || OTHER_ITEMS.contains(&t)
        }
        None => part_typed,
    }
}

/// Why a value is not a Responses API body or transcript (empty when it is).
pub fn check(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => {
            if items.is_empty() {
                return vec!["the list is empty".to_string()];
            }
            if !items.iter().any(is_item) {
                return vec![
                    "no item has a Responses item \"type\" (message, function_call, function_call_output...)"
                        .to_string(),
                ];
            }
            let mut why = Vec::new();
            for (i, it) in items.iter().enumerate() {
                if !it.is_object() {
                    why.push(format!("[{i}] is {}, not an item", kind(it)));
                } else if it.get("type").is_none() && it.get("role").is_none() {
                    why.push(format!("[{i}] has neither \"type\" nor \"role\""));
                }
                if why.len() >= 3 {
                    break;
                }
            }
            why
        }
        Value::Object(o) => {
            let input_ok = match o.get("input") {
                Some(Value::String(_)) => {
                    ["model", "tools", "instructions", "previous_response_id"]
                        .iter()
                        .any(|k| o.contains_key(*k))
                }
                // Items that are not items are dropped at their line.
                Some(Value::Array(items)) => {
                    items.is_empty() || items.iter().any(|i| is_item(i) || i.get("role").is_some())
                }
                _ => false,
            };
            let output_ok = match o.get("output") {
                Some(Value::Array(items)) => {
                    o.get("object").and_then(Value::as_str) == Some("response")
                        || (!items.is_empty() && items.iter().all(is_item))
                }
                _ => false,
            };
            if input_ok || output_ok {
                return Vec::new();
            }
            let mut why = Vec::new();
            if o.contains_key("messages") {
                why.push("it has \"messages\" (a chat transcript)".to_string());
            }
            match (o.get("input"), o.get("output")) {
                (None, None) => why.push("no \"input\" or \"output\" list".to_string()),
                (Some(Value::Array(_)), _) if !input_ok => {
                    why.push("\"input\" holds no message or item".to_string())
                }
                (Some(i), _) if !input_ok => why.push(format!(
                    "\"input\" is {}, not a list of items (or text with a model)",
                    kind(i)
                )),
                _ => why.push("\"output\" is not a list of Responses items".to_string()),
            }
            why
        }
        other => vec![format!(
            "a Responses body is an object, not {}",
            kind(other)
        )],
    }
}

/// The text of a message's content: a string, or its text, output text and
/// refusal parts.
fn message_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| {
                    p.get("text")
                        .or_else(|| p.get("refusal"))
                        .and_then(Value::as_str)
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// An output's content: text as it is, a list of text parts as its text.
fn output_value(v: Option<&Value>) -> Value {
    match v {
        None => Value::Null,
        Some(Value::Array(parts))
            if parts
                .iter()
                .all(|p| p.get("text").and_then(Value::as_str).is_some()) =>
        {
            json!(message_text(Some(&Value::Array(parts.clone()))).unwrap_or_default())
        }
        Some(other) => other.clone(),
    }
}

/// The menu's names: function and custom tools by name, hosted tools
/// (`web_search_preview`, `file_search`...) by type; MCP servers' tools
/// come from `mcp_list_tools` items.
pub fn menu_names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| {
            let ty = t.get("type").and_then(Value::as_str);
            match t.get("name").and_then(Value::as_str) {
                Some(n) => Some(n.to_string()),
                None if ty == Some("mcp") => None,
                None => ty.map(String::from),
            }
        })
        .collect()
}

/// The tool a hosted `*_call` item called: the menu entry whose type
/// starts with the item's prefix (`web_search_call` → `web_search_preview`),
/// else the prefix.
fn hosted_name(item_type: &str, tools: &[Value]) -> String {
    let prefix = item_type.trim_end_matches("_call");
    let short = prefix.split('_').next().unwrap_or(prefix);
    tools
        .iter()
        .filter_map(|t| t.get("type").and_then(Value::as_str))
        .find(|t| t.starts_with(prefix) || (short == "computer" && t.starts_with(short)))
        .unwrap_or(prefix)
        .to_string()
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(String::from)
}

/// Reads items into the conversation. `lines[i]` is item i's line.
#[allow(clippy::too_many_arguments)]
fn read_items(
    items: &[Value],
    lines: &[u64],
    record_line: u64,
    what: &str,
    tools: &[Value],
    previous: Option<&str>,
    record: &Option<String>,
    conv: &mut Conversation,
    out: &mut Out,
) {
    // Call ids made in this record, to tell an output whose call is in an
    // earlier response (a chained request) from one that answers nothing.
    let own_calls: Vec<&str> = items
        .iter()
        .filter(|i| {
            i.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("_call"))
        })
        .filter_map(|i| i.get("call_id").and_then(Value::as_str))
        .collect();
    for (i, it) in items.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(record_line);
        let Value::Object(o) = it else {
            conv.flush();
            out.drop_part(
                line,
                record.clone(),
                format!("dropped {what}[{i}]: {} is not an item", kind(it)),
            );
            continue;
        };
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("message");
        let role = o.get("role").and_then(Value::as_str);
        match ty {
            "message" if role == Some("assistant") => {
                let a = conv.turn(line);
                if let Some(t) = message_text(o.get("content")) {
                    a.text = Some(match a.text.take() {
                        Some(prev) => format!("{prev}\n{t}"),
                        None => t,
                    });
                }
            }
            "message" => {
                conv.flush();
                if role == Some("user") && conv.goal.is_none() {
                    conv.goal = message_text(o.get("content"));
                }
            }
            "reasoning" => {
                let a = conv.turn(line);
                convo::keep(&mut a.extra, "reasoning", it.clone());
            }
            "mcp_list_tools" => {
                conv.flush();
                for t in o
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(n) = t.get("name").and_then(Value::as_str) {
                        conv.mcp_tools.push(n.to_string());
                    }
                }
            }
            "item_reference" => conv.flush(),
            "function_call" => conv.turn(line).calls.push(Call {
                id: string(o.get("call_id")),
                name: string(o.get("name")),
                arguments: Args::from_value(o.get("arguments")),
            }),
            "custom_tool_call" => conv.turn(line).calls.push(Call {
                id: string(o.get("call_id")),
                name: string(o.get("name")),
                arguments: match o.get("input") {
                    None | Some(Value::Null) => Args::Absent,
                    Some(x) => Args::Value(json!({ "input": x })),
                },
            }),
            t if t.ends_with("_call") => {
                let mcp = t == "mcp_call";
                let id = string(o.get("call_id")).or_else(|| string(o.get("id")));
                let name = if mcp {
                    string(o.get("name"))
                } else {
                    Some(hosted_name(t, tools))
                };
                let arguments = if mcp {
                    Args::from_value(o.get("arguments"))
                } else {
                    let picked: Map<String, Value> = ["action", "code", "queries", "input"]
                        .iter()
                        .filter_map(|k| o.get(*k).map(|v| (k.to_string(), v.clone())))
                        .collect();
                    match picked.get("action") {
                        Some(a) if picked.len() == 1 => Args::Value(a.clone()),
                        _ if picked.is_empty() => Args::Absent,
                        _ => Args::Value(Value::Object(picked)),
                    }
                };
                conv.turn(line).calls.push(Call {
                    id: id.clone(),
                    name,
                    arguments,
                });
                // Hosted tools and MCP calls carry their result.
                let inline = ["output", "outputs", "results", "result"]
                    .iter()
                    .find_map(|k| o.get(*k).filter(|v| !v.is_null()));
                let status = o.get("status").and_then(Value::as_str);
                let error = match o.get("error") {
                    Some(Value::Null) | None => {
                        (status == Some("failed")).then(|| format!("{t} failed"))
                    }
                    Some(Value::String(e)) => Some(e.clone()),
                    Some(e) => Some(e.to_string()),
                };
                if inline.is_some() || error.is_some() || status == Some("completed") {
                    conv.pending_results.push(Item::Result(ToolResult {
                        line,
                        call_id: id,
                        content: inline.cloned().unwrap_or(Value::Null),
                        error,
                        ..Default::default()
                    }));
                }
            }
            t if t.ends_with("_output") => {
                conv.flush();
                let call_id = string(o.get("call_id"));
                if let (Some(_), Some(id)) = (previous, &call_id)
                    && !own_calls.contains(&id.as_str())
                {
                    // It answers a call of the previous response, which
                    // another body holds: kept on the run, paired when
                    // both are imported together.
                    conv.previous_outputs.push(it.clone());
                    continue;
                }
                conv.items.push(Item::Result(ToolResult {
                    line,
                    call_id,
                    content: output_value(o.get("output")),
                    ..Default::default()
                }));
            }
            other => {
                // Not a call and not a message (a future item type): kept
                // on the run, never mistaken for a turn.
                conv.flush();
                conv.unread
                    .push(json!({ "type": other, "at": format!("{what}[{i}]") }));
            }
        }
    }
    conv.flush();
}

/// A conversation being read: finished items, the turn being built and the
/// results its hosted calls carried.
#[derive(Default)]
struct Conversation {
    items: Vec<Item>,
    current: Option<Assistant>,
    pending_results: Vec<Item>,
    goal: Option<String>,
    mcp_tools: Vec<String>,
    unread: Vec<Value>,
    /// Outputs for calls of the previous response (`previous_response_id`).
    previous_outputs: Vec<Value>,
}

impl Conversation {
    fn turn(&mut self, line: u64) -> &mut Assistant {
        self.current.get_or_insert_with(|| Assistant {
            line,
            ..Default::default()
        })
    }

    fn flush(&mut self) {
        if let Some(a) = self.current.take() {
            self.items.push(Item::Assistant(a));
        }
        self.items.append(&mut self.pending_results);
    }
}

/// Fields of a body this reader maps; the rest are kept on the run.
const MAPPED: &[&str] = &[
    "input",
    "output",
    "tools",
    "model",
    "id",
    "object",
    "previous_response_id",
];

/// Where a body's parts are: its own line, and the lines of the items of
/// its `input` and `output` lists (of the list itself, for a transcript
/// list).
#[derive(Debug, Default)]
pub struct Lines {
    pub record: u64,
    pub list: Vec<u64>,
    pub input: Vec<u64>,
    pub output: Vec<u64>,
}

/// Maps one body or transcript list to a run and its decisions.
pub fn map(doc: &Doc<'_>, off: usize, v: &Value, out: &mut Out) -> Result<(), String> {
    let lines = match v {
        Value::Array(_) => Lines {
            record: doc.line_of(off),
            list: doc.array_lines(off),
            ..Default::default()
        },
        _ => Lines {
            record: doc.line_of(off),
            input: doc.item_lines(off, "input"),
            output: doc.item_lines(off, "output"),
            ..Default::default()
        },
    };
    map_lines(v, &lines, out)
}

/// [`map`], with the lines given.
pub fn map_lines(v: &Value, lines: &Lines, out: &mut Out) -> Result<(), String> {
    let why = check(v);
    if !why.is_empty() {
        return Err(format!(
            "not an OpenAI Responses body or transcript: {}",
            why.join("; ")
        ));
    }
    let record_line = lines.record;
    let empty = Map::new();
    let o = v.as_object().unwrap_or(&empty);
    let is_response = o.get("object").and_then(Value::as_str) == Some("response");
    let run_id = match o.get("id").and_then(Value::as_str) {
        Some(id) if is_response || o.contains_key("output") => id.to_string(),
        _ => format!("openai-responses-{}", convo::short_hash(v)),
    };
    let record = Some(format!("run {run_id}"));
    let tools: &[Value] = o
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let previous = o.get("previous_response_id").and_then(Value::as_str);
    let mut conv = Conversation::default();
    match v {
        Value::Array(items) => read_items(
            items,
            &lines.list,
            record_line,
            "",
            tools,
            None,
            &record,
            &mut conv,
            out,
        ),
        _ => {
            match o.get("input") {
                Some(Value::String(s)) => conv.goal = Some(s.clone()),
                Some(Value::Array(items)) => read_items(
                    items,
                    &lines.input,
                    record_line,
                    "input",
                    tools,
                    previous,
                    &record,
                    &mut conv,
                    out,
                ),
                _ => {}
            }
            if let Some(Value::Array(items)) = o.get("output") {
                read_items(
                    items,
                    &lines.output,
                    record_line,
                    "output",
                    tools,
                    None,
                    &record,
                    &mut conv,
                    out,
                );
            }
        }
    }

    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    if let Some(m) = o.get("model").and_then(Value::as_str) {
        run.insert("model".into(), json!(m));
    }
    if let Some(g) = conv.goal.take() {
        run.insert("goal".into(), json!(g));
    }
    if !tools.is_empty() {
        run.insert("tool_definitions".into(), json!(tools));
    }
    if let Some(p) = previous {
        run.insert("previous_response_id".into(), json!(p));
    }
    if !conv.unread.is_empty() {
        run.insert("unread_items".into(), json!(conv.unread));
    }
    if !conv.previous_outputs.is_empty() {
        run.insert("previous_outputs".into(), json!(conv.previous_outputs));
    }
    let rest: Map<String, Value> = o
        .iter()
        .filter(|(k, _)| !MAPPED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !rest.is_empty() {
        let key = if is_response { "response" } else { "request" };
        run.insert(key.into(), Value::Object(rest));
    }
    run.insert("imported_from".into(), json!("openai-responses"));
    out.push(Value::Object(run), record_line, None);

    let mut visible = menu_names(tools);
    visible.extend(conv.mcp_tools.iter().cloned());
    let visible = (o.contains_key("tools") || !conv.mcp_tools.is_empty()).then_some(visible);
    convo::decisions(&run_id, visible.as_deref(), conv.items, &record, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(check(&json!({"input": [{"role": "user", "content": "hi"}]})).is_empty());
        assert!(check(&json!({"input": "hi", "model": "gpt-4.1"})).is_empty());
        assert!(check(&json!({"object": "response", "output": []})).is_empty());
        assert!(check(&json!([{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}])).is_empty());
        assert_eq!(
            check(&json!([{"role": "user", "content": "hi"}])),
            vec![
                "no item has a Responses item \"type\" (message, function_call, function_call_output...)"
            ]
        );
        assert_eq!(
            check(&json!({"input": "hi"})),
            vec!["\"input\" is a string, not a list of items (or text with a model)"]
        );
        assert_eq!(
            check(&json!({"messages": []})),
            vec![
                "it has \"messages\" (a chat transcript)",
                "no \"input\" or \"output\" list"
            ]
        );
    }

    #[test]
    fn hosted_tool_names_come_from_the_menu() {
        let tools = vec![
            json!({"type": "web_search_preview"}),
            json!({"type": "computer_use_preview"}),
        ];
        assert_eq!(hosted_name("web_search_call", &tools), "web_search_preview");
        assert_eq!(hosted_name("computer_call", &tools), "computer_use_preview");
        assert_eq!(hosted_name("file_search_call", &tools), "file_search");
        assert_eq!(
            menu_names(&[
                json!({"type": "function", "name": "f"}),
                json!({"type": "mcp", "server_label": "x"}),
                tools[0].clone()
            ]),
            vec!["f", "web_search_preview"]
        );
    }
}
