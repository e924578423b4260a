//! What every importer shares: the rung-format records it produces, the
//! parts it had to drop, and the rules that turn a conversation (assistant
//! turns and tool results, in order) into decisions.

use serde_json::{Map, Value, json};

use crate::model::canonical;

/// One rung-format record an importer produced, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    pub value: Value,
    pub line: u64,
    /// Extra location for error messages (`span 03491beea3cb073d`).
    pub context: Option<String>,
}

/// A part the importer recognised but could not map (a call whose
/// arguments are not JSON, a result with no call).
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    pub line: u64,
    /// The record it belongs to (`run r-1`), with any span id.
    pub record: Option<String>,
    pub message: String,
}

/// What an importer made of one source object.
#[derive(Debug, Default)]
pub struct Out {
    pub records: Vec<Mapped>,
    pub dropped: Vec<Dropped>,
}

impl Out {
    pub fn push(&mut self, value: Value, line: u64, context: Option<String>) {
        self.records.push(Mapped {
            value,
            line,
            context,
        });
    }

    pub fn drop_part(&mut self, line: u64, record: Option<String>, message: impl Into<String>) {
        self.dropped.push(Dropped {
            line,
            record,
            message: message.into(),
        });
    }
}

/// A value that passed its format's check: the object and the list under
/// its key (messages, or trajectory steps).
pub struct Checked<'v> {
    pub o: &'v Map<String, Value>,
    /// The list as it stands in the value (for hashing).
    pub list: &'v Value,
    pub items: &'v [Value],
}

/// `v` as `what` (an object with a list under `key`), given what its
/// format's check found wrong (`why`, empty when nothing). The check and
/// this view cannot disagree without an error saying so.
pub fn checked<'v>(
    v: &'v Value,
    key: &str,
    why: Vec<String>,
    what: &str,
) -> Result<Checked<'v>, String> {
    if !why.is_empty() {
        return Err(format!("not {what}: {}", why.join("; ")));
    }
    match v {
        Value::Object(o) => match o.get(key) {
            Some(list @ Value::Array(items)) => Ok(Checked { o, list, items }),
            _ => Err(format!("not {what}: no \"{key}\" list")),
        },
        other => Err(format!("not {what}: it is {}", super::openai::kind(other))),
    }
}

/// A short, stable id from content: the first 12 hex digits of the SHA-256
/// of its canonical JSON.
pub fn short_hash(v: &Value) -> String {
    canonical::sha256_hex(v)[..12].to_string()
}

/// Appends `v` to the list kept under `key` in `extra` (made on first use;
/// a value already there that is not a list becomes the list's first item).
pub fn keep(extra: &mut Map<String, Value>, key: &str, v: Value) {
    match extra.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
        Value::Array(list) => list.push(v),
        other => {
            let first = other.take();
            *other = Value::Array(vec![first, v]);
        }
    }
}

/// A tool call's arguments as the source wrote them.
#[derive(Debug, Clone, PartialEq)]
pub enum Args {
    Absent,
    /// Already structured (Anthropic `input`, semconv `arguments`).
    Value(Value),
    /// JSON text still to parse (OpenAI `function.arguments`).
    Text(String),
}

impl Args {
    /// A JSON string is text to parse; anything else is structured.
    pub fn from_value(v: Option<&Value>) -> Args {
        match v {
            None | Some(Value::Null) => Args::Absent,
            Some(Value::String(s)) => Args::Text(s.clone()),
            Some(other) => Args::Value(other.clone()),
        }
    }
}

/// One tool call as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: Args,
}

/// One assistant message: its calls, or its text when it made none.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Assistant {
    pub line: u64,
    pub text: Option<String>,
    pub calls: Vec<Call>,
    /// The harness parsed an action out of this text but no call could be
    /// read from it: a call written as text, whatever it looks like.
    pub text_action: bool,
    /// Its call came from a text protocol (SWE-agent's `action`,
    /// mini-swe-agent's command block): the harness answers with the next
    /// user message.
    pub observed_by_user: bool,
    /// The menu offered at this turn, when the source records one per turn
    /// (Inspect's model events); else the run's.
    pub visible: Option<Vec<String>>,
    /// Fields set on each decision of the turn (`at`, `reconstructed_from`).
    pub fields: Map<String, Value>,
    /// Unmapped fields of the source message, kept on its decisions.
    pub extra: Map<String, Value>,
}

/// One tool result as recorded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    pub line: u64,
    pub call_id: Option<String>,
    pub name: Option<String>,
    pub content: Value,
    /// The source marks it as a failed execution; the message to keep.
    pub error: Option<String>,
    /// An outcome the source states in full (a typed error naming its
    /// stage); it replaces the one `error` would give.
    pub outcome: Option<Value>,
    /// Fields set on the decision it answers (`latency_ms`).
    pub fields: Map<String, Value>,
    /// A text protocol's observation: it answers the call of the turn just
    /// before it, whatever that call's id or name.
    pub answers_last_turn: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Assistant(Assistant),
    Result(ToolResult),
}

/// A decision being built: its fields (without `type`, `run_id`, `step`),
/// where it came from and its place in the run.
#[derive(Debug, Clone)]
pub struct Draft {
    pub fields: Map<String, Value>,
    pub line: u64,
    pub context: Option<String>,
    /// Sort key: (turn, position within the turn).
    pub turn: i64,
    pub seq: i64,
    pub has_result: bool,
}

impl Draft {
    pub fn selected(&self) -> Option<&str> {
        self.fields.get("selected").and_then(Value::as_str)
    }

    pub fn call_id(&self) -> Option<&str> {
        self.fields.get("call_id").and_then(Value::as_str)
    }

    /// Records a tool result: `result`, and `outcome` ok or an execution
    /// error with its message.
    pub fn set_result(&mut self, content: Value, error: Option<String>) {
        self.has_result = true;
        self.fields.insert("result".into(), content);
        let outcome = match error {
            None => json!({"status": "ok"}),
            Some(message) => json!({"status": "error", "stage": "execution", "message": message}),
        };
        self.fields.insert("outcome".into(), outcome);
    }
}

/// Turns drafts into decision records: ordered by turn, then position,
/// numbered from step 1.
pub fn emit(run_id: &str, mut drafts: Vec<Draft>, out: &mut Out) {
    drafts.sort_by_key(|d| (d.turn, d.seq));
    for (i, d) in drafts.into_iter().enumerate() {
        let mut m = d.fields;
        m.insert("type".into(), json!("decision"));
        m.insert("run_id".into(), json!(run_id));
        m.insert("step".into(), json!(i + 1));
        m.insert("turn".into(), json!(d.turn));
        out.push(Value::Object(m), d.line, d.context);
    }
}

/// Parses a call's arguments into the draft; text that is not JSON is
/// dropped (and kept as `arguments_text`).
pub fn put_arguments(
    fields: &mut Map<String, Value>,
    args: Args,
    line: u64,
    record: &Option<String>,
    what: &str,
    out: &mut Out,
) {
    match args {
        Args::Absent => {}
        Args::Value(v) => {
            fields.insert("arguments".into(), v);
        }
        Args::Text(s) if s.trim().is_empty() => {}
        Args::Text(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v) => {
                fields.insert("arguments".into(), v);
            }
            Err(e) => {
                out.drop_part(
                    line,
                    record.clone(),
                    format!("dropped the arguments of {what}: not JSON ({e}); kept as text in \"arguments_text\""),
                );
                fields.insert("arguments_text".into(), Value::String(s));
            }
        },
    }
}

/// A tool result's content as rung keeps it: text holding a JSON object or
/// list is stored parsed (what the tool returned), anything else as is.
pub fn result_value(content: Value) -> Value {
    if let Value::String(s) = &content {
        let t = s.trim_start();
        if (t.starts_with('{') || t.starts_with('['))
            && let Ok(v @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(s)
        {
            return v;
        }
    }
    content
}

/// The text of a content field: a string, or the `text` of a list of parts.
pub fn content_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o
                        .get("text")
                        .or_else(|| o.get("content"))
                        .and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// Markers models use when they write a call into text instead of making
/// one (Hermes/Qwen, Llama, Mistral, Anthropic's legacy XML).
const CALL_MARKERS: &[&str] = &[
    "<tool_call>",
    "<function_call>",
    "<function=",
    "<|python_tag|>",
    "[TOOL_CALLS]",
    "<|tool_call|>",
    "<tool_use>",
    "<function_calls>",
    "<invoke name=",
];

fn is_call_object(v: &Value) -> bool {
    let Value::Object(o) = v else {
        return false;
    };
    let named = o.get("name").is_some_and(Value::is_string);
    let args = ["arguments", "parameters", "input", "args"]
        .iter()
        .any(|k| o.contains_key(*k));
    (named && args)
        || o.get("function").is_some_and(is_call_object)
        || o.get("function")
            .and_then(|f| f.get("name"))
            .is_some_and(Value::is_string)
        || o.get("tool_calls").is_some_and(Value::is_array)
        || o.get("function_call").is_some_and(Value::is_object)
}

/// Whether assistant text is a tool call written as text: a known call
/// marker, or the whole text (fences aside) a JSON call object or list of
/// them. Which tool it meant is not guessed.
pub fn looks_like_call(text: &str) -> bool {
    if CALL_MARKERS.iter().any(|m| text.contains(m)) {
        return true;
    }
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        t = rest.strip_suffix("```").unwrap_or(rest).trim();
    }
    if !(t.starts_with('{') || t.starts_with('[')) {
        return false;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Array(items)) => !items.is_empty() && items.iter().all(is_call_object),
        Ok(v) => is_call_object(&v),
        Err(_) => false,
    }
}

/// The decision of an assistant message that made no call: `selected`
/// null, its text kept, or as `raw` when the text is a call written out.
pub fn no_call_fields(text: Option<String>, text_action: bool) -> Map<String, Value> {
    let mut f = Map::new();
    f.insert("selected".into(), Value::Null);
    if let Some(t) = text {
        if text_action || looks_like_call(&t) {
            f.insert("raw".into(), Value::String(t));
        } else if !t.is_empty() {
            f.insert("text".into(), Value::String(t));
        }
    }
    f
}

/// Turns a conversation into decisions: each call in an assistant message
/// one decision (parallel calls share the turn), a message with no call one
/// decision with `selected` null; each result goes to the earliest
/// unanswered call with its id (ids may repeat), else — when it names no id
/// — to the earliest unanswered call (with its name, when it names one).
pub fn decisions(
    run_id: &str,
    visible: Option<&[String]>,
    items: Vec<Item>,
    record: &Option<String>,
    out: &mut Out,
) {
    let mut drafts: Vec<Draft> = Vec::new();
    let mut turn = 0i64;
    for item in items {
        match item {
            Item::Assistant(a) => {
                turn += 1;
                let mut extra = a.extra;
                let turn_fields = a.fields;
                let menu = a.visible.as_deref().or(visible);
                let base = |f: &mut Map<String, Value>, extra: &mut Map<String, Value>| {
                    if let Some(v) = menu {
                        f.insert("visible".into(), json!(v));
                    }
                    for (k, v) in &turn_fields {
                        f.insert(k.clone(), v.clone());
                    }
                    if !extra.is_empty() {
                        f.insert("message".into(), Value::Object(std::mem::take(extra)));
                    }
                };
                if a.calls.is_empty() {
                    let mut f = no_call_fields(a.text, a.text_action);
                    base(&mut f, &mut extra);
                    drafts.push(Draft {
                        fields: f,
                        line: a.line,
                        context: None,
                        turn,
                        seq: 0,
                        has_result: false,
                    });
                    continue;
                }
                let mut text = a.text.filter(|t| !t.trim().is_empty());
                for (seq, call) in a.calls.into_iter().enumerate() {
                    let Some(name) = call.name else {
                        out.drop_part(
                            a.line,
                            record.clone(),
                            format!(
                                "dropped a tool call with no tool name{}",
                                call.id
                                    .map(|i| format!(" (call id {})", crate::text::echo(&i)))
                                    .unwrap_or_default()
                            ),
                        );
                        continue;
                    };
                    let mut f = Map::new();
                    f.insert("selected".into(), json!(name));
                    let what = match &call.id {
                        Some(id) => format!(
                            "call {} to {}",
                            crate::text::echo(id),
                            crate::text::echo(&name)
                        ),
                        None => format!("the call to {}", crate::text::echo(&name)),
                    };
                    if let Some(id) = call.id {
                        f.insert("call_id".into(), json!(id));
                    }
                    put_arguments(&mut f, call.arguments, a.line, record, &what, out);
                    if let Some(t) = text.take() {
                        f.insert("text".into(), json!(t));
                    }
                    base(&mut f, &mut extra);
                    drafts.push(Draft {
                        fields: f,
                        line: a.line,
                        context: None,
                        turn,
                        seq: seq as i64,
                        has_result: false,
                    });
                }
            }
            Item::Result(r) => {
                let pending = |d: &&mut Draft| !d.has_result && d.selected().is_some();
                let target = match (&r.call_id, &r.name) {
                    _ if r.answers_last_turn => {
                        drafts.iter_mut().filter(pending).find(|d| d.turn == turn)
                    }
                    (Some(id), _) => drafts
                        .iter_mut()
                        .filter(pending)
                        .find(|d| d.call_id() == Some(id.as_str())),
                    (None, Some(name)) => drafts
                        .iter_mut()
                        .filter(pending)
                        .find(|d| d.selected() == Some(name.as_str())),
                    (None, None) => drafts.iter_mut().find(|d| pending(d)),
                };
                match target {
                    Some(d) => {
                        d.set_result(result_value(r.content), r.error);
                        if let Some(o) = r.outcome {
                            d.fields.insert("outcome".into(), o);
                        }
                        d.fields.extend(r.fields);
                    }
                    None => out.drop_part(
                        r.line,
                        record.clone(),
                        format!(
                            "dropped a tool result that answers no call{}{}",
                            r.call_id
                                .map(|i| format!(" (call id {})", crate::text::echo(&i)))
                                .unwrap_or_default(),
                            r.name
                                .map(|n| format!(" (tool {})", crate::text::echo(&n)))
                                .unwrap_or_default()
                        ),
                    ),
                }
            }
        }
    }
    emit(run_id, drafts, out);
}

/// The run record of one recorded provider response: its id, its model, the
/// fields no other part maps (kept under `response`) and the importer's name.
pub fn response_run(
    run_id: &str,
    o: &Map<String, Value>,
    rest: Map<String, Value>,
    imported_from: &str,
) -> Value {
    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    if let Some(Value::String(m)) = o.get("model") {
        run.insert("model".into(), json!(m));
    }
    if !rest.is_empty() {
        run.insert("response".into(), Value::Object(rest));
    }
    run.insert("imported_from".into(), json!(imported_from));
    Value::Object(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_that_disagrees_with_the_mapper_is_an_error_not_a_panic() {
        // What the mappers read is what `checked` hands them: a value the
        // format's check let through without the list is an error.
        let v = json!({"messages": "hi"});
        let e = super::super::openai::transcript_run(&v, Vec::new(), "an OpenAI transcript", "x");
        assert_eq!(
            e.err().as_deref(),
            Some("not an OpenAI transcript: no \"messages\" list")
        );
        let list = json!([1]);
        let e = checked(&list, "traj", Vec::new(), "a tau-bench record");
        assert_eq!(
            e.err().as_deref(),
            Some("not a tau-bench record: it is a list")
        );
        let why = vec!["no \"history\" list".to_string()];
        let empty = json!({});
        let e = checked(&empty, "history", why, "a SWE-agent trajectory");
        assert_eq!(
            e.err().as_deref(),
            Some("not a SWE-agent trajectory: no \"history\" list")
        );
        let good = json!({"traj": [1, 2]});
        let ok = checked(&good, "traj", Vec::new(), "a tau-bench record");
        assert_eq!(ok.map(|c| c.items.len()).ok(), Some(2));
    }

    #[test]
    fn calls_written_as_text() {
        for t in [
            "<tool_call>{\"name\": \"lookup_order\", \"arguments\": {}}</tool_call>",
            "{\"name\": \"lookup_order\", \"arguments\": {\"order_id\": \"A-1\"}}",
            "```json\n{\"name\": \"lookup_order\", \"parameters\": {}}\n```",
            "[{\"function\": {\"name\": \"a\", \"arguments\": \"{}\"}}]",
            "[TOOL_CALLS] [{\"name\": \"a\"}]",
        ] {
            assert!(looks_like_call(t), "{t}");
        }
        for t in [
            "Your order A-1187 shipped yesterday.",
            "{\"status\": \"shipped\"}",
            "Use `{\"name\": 1}` as the body",
            "[]",
        ] {
            assert!(!looks_like_call(t), "{t}");
        }
    }

    fn call(id: &str, name: &str) -> Call {
        Call {
            id: Some(id.into()),
            name: Some(name.into()),
            arguments: Args::Text("{}".into()),
        }
    }

    fn result(id: Option<&str>, content: &str) -> Item {
        Item::Result(ToolResult {
            line: 9,
            call_id: id.map(Into::into),
            name: None,
            content: json!(content),
            ..Default::default()
        })
    }

    #[test]
    fn repeated_ids_match_by_position_and_orphans_are_dropped() {
        let items = vec![
            Item::Assistant(Assistant {
                line: 1,
                calls: vec![call("c1", "a"), call("c1", "b")],
                ..Default::default()
            }),
            result(Some("c1"), "ra"),
            result(Some("c1"), "rb"),
            result(Some("c9"), "orphan"),
            Item::Assistant(Assistant {
                line: 5,
                calls: vec![call("c1", "a")],
                ..Default::default()
            }),
        ];
        let mut out = Out::default();
        decisions("r", None, items, &Some("run r".into()), &mut out);
        let d: Vec<&Value> = out.records.iter().map(|m| &m.value).collect();
        assert_eq!(d.len(), 3);
        assert_eq!(d[0]["result"], json!("ra"));
        assert_eq!(d[1]["result"], json!("rb"));
        assert_eq!(
            (d[0]["turn"].clone(), d[1]["turn"].clone()),
            (json!(1), json!(1))
        );
        assert_eq!(d[2]["turn"], json!(2));
        assert!(d[2].get("outcome").is_none());
        assert_eq!(out.dropped.len(), 1);
        assert_eq!(out.dropped[0].line, 9);
        assert!(out.dropped[0].message.contains("\"c9\""));
    }
}
