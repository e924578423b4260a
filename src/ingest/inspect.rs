//! Inspect AI eval logs: the `.json` log (`{version, eval, results,
//! samples}`) and the zipped `.eval` log (`header.json` and one
//! `samples/ID_epoch_N.json` per sample). Each sample (one epoch of one
//! dataset item) is a run; its model events are the decisions, with the
//! tools the model was offered, and its tool events their outcomes.
//! Inspect's typed tool errors name the stage they failed at
//! (`expectations.md` §7); binary scores give `success`; the sample's
//! `target` is kept, never turned into a label.

use std::collections::HashSet;
use std::io::{Cursor, Read};

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Assistant, Call, Item, Out, ToolResult};
use super::locate::Doc;
use super::openai::kind;

/// Why a value is not an Inspect log (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    let Value::Object(o) = v else {
        return vec![format!("an Inspect log is an object, not {}", kind(v))];
    };
    let mut why = Vec::new();
    match o.get("eval") {
        Some(Value::Object(e)) if e.contains_key("task") || e.contains_key("model") => {}
        Some(Value::Object(_)) => why.push("\"eval\" names no task or model".to_string()),
        Some(other) => why.push(format!("\"eval\" is {}, not an object", kind(other))),
        None => why.push("no \"eval\" object".to_string()),
    }
    match o.get("samples") {
        None | Some(Value::Array(_)) => {}
        Some(other) => why.push(format!("\"samples\" is {}, not a list", kind(other))),
    }
    why
}

/// The stage an Inspect tool error names (`expectations.md` §7).
pub fn error_stage(error_type: &str) -> &'static str {
    match error_type {
        // The call's arguments could not be read.
        "parsing" => "representation",
        // The sandbox or an approver did not allow it.
        "permission" | "approval" => "authorization",
        // It named a file that is not there, or a folder for a file.
        "file_not_found" | "is_a_directory" => "semantics",
        // timeout, output_limit, limit, unicode_decode, unknown, ...
        _ => "execution",
    }
}

/// The outcome of a tool call from Inspect's `ToolCallError`.
fn error_outcome(error: &Value) -> Option<Value> {
    let e = error.as_object()?;
    let ty = e.get("type").and_then(Value::as_str).unwrap_or("unknown");
    let mut o = json!({"status": "error", "stage": error_stage(ty), "reason": ty});
    if let Some(m) = e.get("message").and_then(Value::as_str) {
        o["message"] = json!(m);
    }
    Some(o)
}

/// A sample's verdict from its scores: each score whose value is a boolean
/// or Inspect's `C` (correct) / `I` (incorrect) / `N` (no answer) counts;
/// the run succeeded when every such score says correct. Numbers and `P`
/// (partial) say nothing about success.
pub fn success(scores: &Map<String, Value>) -> Option<bool> {
    let verdicts: Vec<bool> = scores
        .values()
        .filter_map(|s| match s.get("value").unwrap_or(s) {
            Value::Bool(b) => Some(*b),
            Value::String(v) if v == "C" => Some(true),
            Value::String(v) if v == "I" || v == "N" => Some(false),
            _ => None,
        })
        .collect();
    (!verdicts.is_empty()).then(|| verdicts.iter().all(|v| *v))
}

/// Replaces `attachment://KEY` strings with the sample's attachment.
fn resolve(v: &Value, att: Option<&Map<String, Value>>) -> Value {
    let Some(att) = att else {
        return v.clone();
    };
    match v {
        Value::String(s) => match s.strip_prefix("attachment://").and_then(|k| att.get(k)) {
            Some(found) => found.clone(),
            None => v.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|x| resolve(x, Some(att))).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), resolve(x, Some(att))))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn text_of(v: Option<&Value>) -> Option<String> {
    convo::content_text(v)
}

/// A tool result as rung keeps it: text, or a list of content parts as
/// their text when they all have one.
fn result_content(v: Option<&Value>) -> Value {
    match v {
        None => Value::Null,
        Some(Value::Array(parts)) if parts.iter().all(|p| p.get("text").is_some()) => {
            json!(text_of(v).unwrap_or_default())
        }
        Some(other) => other.clone(),
    }
}

/// The calls of an assistant message (`tool_calls` with `function` as the
/// tool's name and `arguments` as an object).
fn calls_of(m: &Value) -> Vec<Call> {
    m.get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tc| Call {
            id: tc.get("id").and_then(Value::as_str).map(String::from),
            name: tc
                .get("function")
                .and_then(|f| f.as_str().or_else(|| f.get("name").and_then(Value::as_str)))
                .map(String::from),
            arguments: Args::from_value(tc.get("arguments")),
        })
        .collect()
}

/// The first user text of a sample's input (text, or a message list).
fn goal(input: Option<&Value>) -> Option<String> {
    match input? {
        Value::String(s) => Some(s.clone()),
        Value::Array(msgs) => msgs
            .iter()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .and_then(|m| text_of(m.get("content"))),
        _ => None,
    }
}

/// A conversation being built, with the call ids made so far (a tool event
/// or message whose call is missing stands for that call).
#[derive(Default)]
struct Conversation {
    items: Vec<Item>,
    call_ids: HashSet<String>,
}

impl Conversation {
    fn assistant(&mut self, a: Assistant) {
        for c in &a.calls {
            if let Some(id) = &c.id {
                self.call_ids.insert(id.clone());
            }
        }
        self.items.push(Item::Assistant(a));
    }

    /// A tool result; when no earlier turn made its call, a decision is
    /// reconstructed from what the tool event or message records.
    fn result(&mut self, r: ToolResult, arguments: Option<&Value>, at: Option<&Value>, from: &str) {
        let missing = match &r.call_id {
            Some(id) => !self.call_ids.contains(id),
            None => false,
        };
        if missing && r.name.is_some() {
            let mut fields = Map::new();
            fields.insert("reconstructed_from".into(), json!(from));
            if let Some(t) = at {
                fields.insert("at".into(), t.clone());
            }
            self.assistant(Assistant {
                line: r.line,
                calls: vec![Call {
                    id: r.call_id.clone(),
                    name: r.name.clone(),
                    arguments: Args::from_value(arguments),
                }],
                fields,
                ..Default::default()
            });
        }
        self.items.push(Item::Result(r));
    }
}

/// Whether a timestamp is RFC 3339 with an offset (what rung stores).
fn timestamp(v: Option<&Value>) -> Option<&Value> {
    v.filter(|t| {
        t.as_str()
            .is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok())
    })
}

/// Reads a sample's events: model events outside the scorers are turns,
/// tool events their results.
fn from_events(
    events: &[Value],
    lines: &[u64],
    line: u64,
    att: Option<&Map<String, Value>>,
    conv: &mut Conversation,
) -> bool {
    // Scorers (a model-graded scorer calls a model too) are not the agent:
    // their spans (current logs) or steps (older logs) are skipped.
    let mut scorer_spans: HashSet<&str> = HashSet::new();
    let mut scorer_steps = 0i64;
    let mut any = false;
    for (i, e) in events.iter().enumerate() {
        let eline = lines.get(i).copied().unwrap_or(line);
        let ev = e.get("event").and_then(Value::as_str).unwrap_or("");
        let ty = e.get("type").and_then(Value::as_str);
        match ev {
            "span_begin" => {
                let parent_scorer = e
                    .get("parent_id")
                    .and_then(Value::as_str)
                    .is_some_and(|p| scorer_spans.contains(p));
                if (matches!(ty, Some("scorer" | "scorers")) || parent_scorer)
                    && let Some(id) = e.get("id").and_then(Value::as_str)
                {
                    scorer_spans.insert(id);
                }
                continue;
            }
            "step" if matches!(ty, Some("scorer" | "scorers")) => {
                match e.get("action").and_then(Value::as_str) {
                    Some("begin") => scorer_steps += 1,
                    Some("end") => scorer_steps -= 1,
                    _ => {}
                }
                continue;
            }
            _ => {}
        }
        let in_scorer = scorer_steps > 0
            || e.get("span_id")
                .and_then(Value::as_str)
                .is_some_and(|s| scorer_spans.contains(s));
        if in_scorer {
            continue;
        }
        match ev {
            "model" => {
                let Some(msg) = e
                    .get("output")
                    .and_then(|o| o.get("choices"))
                    .and_then(Value::as_array)
                    .and_then(|c| c.first())
                    .and_then(|c| c.get("message"))
                else {
                    // A model call that failed proposed nothing.
                    continue;
                };
                any = true;
                let msg = resolve(msg, att);
                let visible: Vec<String> = e
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.get("name").and_then(Value::as_str).map(String::from))
                    .collect();
                let mut fields = Map::new();
                if let Some(t) = timestamp(e.get("timestamp")) {
                    fields.insert("at".into(), t.clone());
                }
                let mut extra = Map::new();
                if let Some(m) = e.get("model") {
                    extra.insert("model".into(), m.clone());
                }
                conv.assistant(Assistant {
                    line: eline,
                    text: text_of(msg.get("content")),
                    calls: calls_of(&msg),
                    visible: Some(visible),
                    fields,
                    extra,
                    ..Default::default()
                });
            }
            "tool" => {
                let mut fields = Map::new();
                if let Some(w) = e.get("working_time").and_then(Value::as_f64)
                    && w >= 0.0
                {
                    fields.insert("latency_ms".into(), json!((w * 1000.0).round() as u64));
                }
                let r = ToolResult {
                    line: eline,
                    call_id: e.get("id").and_then(Value::as_str).map(String::from),
                    name: e.get("function").and_then(Value::as_str).map(String::from),
                    content: result_content(Some(&resolve(
                        e.get("result").unwrap_or(&Value::Null),
                        att,
                    ))),
                    outcome: e.get("error").and_then(error_outcome),
                    fields,
                    ..Default::default()
                };
                let args = e.get("arguments").map(|a| resolve(a, att));
                conv.result(
                    r,
                    args.as_ref(),
                    timestamp(e.get("timestamp")),
                    "tool event",
                );
            }
            _ => {}
        }
    }
    any
}

/// Reads a sample's messages (logs written without events).
fn from_messages(
    messages: &[Value],
    lines: &[u64],
    line: u64,
    att: Option<&Map<String, Value>>,
    conv: &mut Conversation,
) {
    for (i, m) in messages.iter().enumerate() {
        let mline = lines.get(i).copied().unwrap_or(line);
        let m = resolve(m, att);
        match m.get("role").and_then(Value::as_str) {
            Some("assistant") => conv.assistant(Assistant {
                line: mline,
                text: text_of(m.get("content")),
                calls: calls_of(&m),
                ..Default::default()
            }),
            Some("tool") => {
                let r = ToolResult {
                    line: mline,
                    call_id: m
                        .get("tool_call_id")
                        .and_then(Value::as_str)
                        .map(String::from),
                    name: m.get("function").and_then(Value::as_str).map(String::from),
                    content: result_content(m.get("content")),
                    outcome: m.get("error").and_then(error_outcome),
                    ..Default::default()
                };
                conv.result(r, None, None, "tool message");
            }
            _ => {}
        }
    }
}

/// The run's end as Inspect says it: an error, or the limit it hit.
fn terminated(sample: &Value) -> Option<&'static str> {
    if sample.get("error").is_some_and(|e| !e.is_null()) {
        return Some("error");
    }
    match sample
        .get("limit")
        .and_then(|l| l.get("type"))
        .and_then(Value::as_str)
    {
        Some("message") => Some("step_limit"),
        Some("time" | "working") => Some("timeout"),
        _ => None,
    }
}

fn id_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Maps one sample of a log to a run and its decisions. `header` is the
/// log without its samples (`eval`, `plan`, `results`); `off` is where the
/// sample starts in `doc`.
pub fn map_sample(
    header: &Value,
    doc: &Doc<'_>,
    off: usize,
    sample: &Value,
    out: &mut Out,
) -> Result<(), String> {
    let Value::Object(s) = sample else {
        return Err(format!("a sample is an object, not {}", kind(sample)));
    };
    let line = doc.line_of(off);
    let eval = header.get("eval").cloned().unwrap_or(Value::Null);
    let sample_id = id_text(s.get("id")).ok_or("the sample has no \"id\"")?;
    let epoch = s.get("epoch").and_then(Value::as_i64).unwrap_or(1);
    let eval_key = ["eval_id", "task_id", "run_id"]
        .iter()
        .find_map(|k| eval.get(*k).and_then(Value::as_str))
        .map(String::from)
        .unwrap_or_else(|| convo::short_hash(&eval));
    let task = eval
        .get("task")
        .and_then(Value::as_str)
        .unwrap_or("inspect");
    let run_id = format!("{eval_key}/{sample_id}/{epoch}");
    let record = Some(format!("run {run_id}"));
    let att = s.get("attachments").and_then(Value::as_object);

    let mut conv = Conversation::default();
    let events_at = doc.member(off, "events").or_else(|| {
        doc.member(off, "transcript")
            .and_then(|t| doc.member(t, "events"))
    });
    let events = s
        .get("events")
        .or_else(|| s.get("transcript").and_then(|t| t.get("events")))
        .and_then(Value::as_array);
    let from_model_events = match events {
        Some(ev) => {
            let lines = events_at.map(|a| doc.array_lines(a)).unwrap_or_default();
            from_events(ev, &lines, line, att, &mut conv)
        }
        None => false,
    };
    if !from_model_events {
        conv = Conversation::default();
        if let Some(msgs) = s.get("messages").and_then(Value::as_array) {
            from_messages(msgs, &doc.item_lines(off, "messages"), line, att, &mut conv);
        }
    }

    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    run.insert("task_id".into(), json!(format!("{task}/{sample_id}")));
    run.insert("trial".into(), json!(epoch));
    if let Some(m) = eval.get("model").and_then(Value::as_str) {
        run.insert("model".into(), json!(m));
    }
    if let Some(g) = goal(s.get("input").map(|i| resolve(i, att)).as_ref()) {
        run.insert("goal".into(), json!(g));
    }
    let scores = match (s.get("scores"), s.get("score")) {
        (Some(Value::Object(sc)), _) => Some(sc.clone()),
        (_, Some(one @ Value::Object(_))) => {
            Some(std::iter::once(("score".to_string(), one.clone())).collect())
        }
        _ => None,
    };
    if let Some(sc) = &scores {
        if let Some(ok) = success(sc) {
            run.insert("success".into(), json!(ok));
        }
        run.insert("inspect_scores".into(), Value::Object(sc.clone()));
    }
    if let Some(t) = terminated(sample) {
        run.insert("terminated".into(), json!(t));
    }
    if let Some(ev) = events {
        let stamps: Vec<&Value> = ev
            .iter()
            .filter_map(|e| timestamp(e.get("timestamp")))
            .collect();
        if let (Some(first), Some(last)) = (stamps.first(), stamps.last()) {
            run.insert("started_at".into(), (*first).clone());
            run.insert("ended_at".into(), (*last).clone());
        }
    }
    // Kept as the log says, never made into labels or expectations.
    for (key, to) in [
        ("target", "inspect_target"),
        ("metadata", "inspect_metadata"),
        ("error", "inspect_error"),
        ("limit", "inspect_limit"),
    ] {
        if let Some(x) = s.get(key).filter(|x| !x.is_null()) {
            run.insert(to.into(), x.clone());
        }
    }
    run.insert("inspect_sample_id".into(), s["id"].clone());
    let mut about = Map::new();
    for k in [
        "task",
        "task_id",
        "eval_id",
        "run_id",
        "created",
        "task_file",
    ] {
        if let Some(x) = eval.get(k) {
            about.insert(k.into(), x.clone());
        }
    }
    run.insert("inspect_eval".into(), Value::Object(about));
    run.insert("imported_from".into(), json!("inspect"));
    out.push(Value::Object(run), line, None);
    convo::decisions(&run_id, None, conv.items, &record, out);
    Ok(())
}

/// Maps a `.json` log: each sample a run.
pub fn map(doc: &Doc<'_>, off: usize, v: &Value, out: &mut Out) -> Result<(), String> {
    let why = check(v);
    if !why.is_empty() {
        return Err(format!("not an Inspect log: {}", why.join("; ")));
    }
    let Some(Value::Array(samples)) = v.get("samples") else {
        return Ok(());
    };
    let at = doc
        .member(off, "samples")
        .map(|a| doc.items(a))
        .unwrap_or_default();
    for (i, s) in samples.iter().enumerate() {
        let soff = at.get(i).copied().unwrap_or(off);
        if let Err(why) = map_sample(v, doc, soff, s, out) {
            out.drop_part(
                doc.line_of(soff),
                None,
                format!("dropped samples[{i}]: {why}"),
            );
        }
    }
    Ok(())
}

/// Largest entry of a `.eval` archive read (decompressed).
pub const MAX_ENTRY: u64 = 1 << 30;
/// Most bytes read out of one `.eval` archive (decompressed).
pub const MAX_TOTAL: u64 = 8 << 30;

/// A zipped `.eval` log.
pub struct Archive<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    read: u64,
    /// Largest entry read: [`MAX_ENTRY`], or `--max-line` when smaller.
    max_entry: u64,
}

impl<'a> Archive<'a> {
    /// Opens an archive whose entries are read only up to `max_line` bytes
    /// each (`--max-line`; never more than [`MAX_ENTRY`]).
    pub fn open(bytes: &'a [u8], max_line: u64) -> Result<Archive<'a>, String> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| format!("not a readable .eval archive: {e}"))?;
        Ok(Archive {
            zip,
            read: 0,
            max_entry: max_line.min(MAX_ENTRY),
        })
    }

    fn names(&self) -> Vec<String> {
        self.zip
            .file_names()
            .filter_map(|n| n.ok().map(|n| n.into_owned()))
            .collect()
    }

    /// The header's entry name: `header.json`, or the journal's start of a
    /// log still being written.
    pub fn header_name(&self) -> Option<String> {
        let names = self.names();
        ["header.json", "_journal/start.json"]
            .iter()
            .find(|n| names.iter().any(|x| x == *n))
            .map(|n| n.to_string())
    }

    /// The samples' entry names, in name order.
    pub fn sample_names(&self) -> Vec<String> {
        let mut s: Vec<String> = self
            .names()
            .into_iter()
            .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
            .collect();
        s.sort();
        s
    }

    /// One entry's bytes, within the entry bound and [`MAX_TOTAL`]
    /// whatever the archive declares.
    pub fn read(&mut self, name: &str) -> Result<Vec<u8>, String> {
        let entry = self
            .zip
            .by_name(name)
            .map_err(|e| format!("{name}: cannot read it from the archive: {e}"))?;
        let room = self.max_entry.min(MAX_TOTAL.saturating_sub(self.read));
        // Never more than the room (plus the byte that shows it is over),
        // whatever size the entry declares.
        let mut buf = Vec::with_capacity(entry.size().min(room + 1) as usize);
        entry
            .take(room + 1)
            .read_to_end(&mut buf)
            .map_err(|e| format!("{name}: the archive is corrupt ({e})"))?;
        if buf.len() as u64 > room {
            return Err(if room < self.max_entry {
                format!(
                    "{name}: the archive decompresses past {} GiB in all; rung reads no more of it",
                    MAX_TOTAL >> 30
                )
            } else if self.max_entry < MAX_ENTRY {
                format!(
                    "{name}: decompresses past {} (--max-line); rung does not read an entry that large (raise --max-line)",
                    super::read::size_text(self.max_entry as usize)
                )
            } else {
                format!(
                    "{name}: decompresses past {} GiB; rung does not read an entry that large",
                    MAX_ENTRY >> 30
                )
            });
        }
        self.read += buf.len() as u64;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_to_success() {
        let s = |v: Value| success(v.as_object().unwrap());
        assert_eq!(s(json!({"match": {"value": "C"}})), Some(true));
        assert_eq!(s(json!({"match": {"value": "I"}})), Some(false));
        assert_eq!(
            s(json!({"a": {"value": "C"}, "b": {"value": false}})),
            Some(false)
        );
        assert_eq!(
            s(json!({"a": {"value": "C"}, "b": {"value": 0.7}})),
            Some(true)
        );
        assert_eq!(s(json!({"a": {"value": 1}})), None);
        assert_eq!(s(json!({"a": {"value": "P"}})), None);
        assert_eq!(s(json!({})), None);
    }

    #[test]
    fn stages_of_typed_errors() {
        let got: Vec<(&str, &str)> = [
            "parsing",
            "permission",
            "approval",
            "file_not_found",
            "is_a_directory",
            "timeout",
            "output_limit",
            "unicode_decode",
            "unknown",
        ]
        .iter()
        .map(|t| (*t, error_stage(t)))
        .collect();
        assert_eq!(
            got,
            vec![
                ("parsing", "representation"),
                ("permission", "authorization"),
                ("approval", "authorization"),
                ("file_not_found", "semantics"),
                ("is_a_directory", "semantics"),
                ("timeout", "execution"),
                ("output_limit", "execution"),
                ("unicode_decode", "execution"),
                ("unknown", "execution"),
            ]
        );
    }

    #[test]
    fn attachments_are_resolved() {
        let att = json!({"k1": "the text"});
        let v = json!({"a": ["attachment://k1", "attachment://zz"], "b": 1});
        assert_eq!(
            resolve(&v, att.as_object()),
            json!({"a": ["the text", "attachment://zz"], "b": 1})
        );
    }

    #[test]
    fn oversized_entries_are_refused() {
        // A zip whose one entry claims little and holds a lot is read only
        // up to the bound (checked with a small bound through `take`).
        use std::io::Write;
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        w.start_file(
            "samples/1_epoch_1.json",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        w.write_all(b"{\"id\": 1}").unwrap();
        let bytes = w.finish().unwrap().into_inner();
        let mut a = Archive::open(&bytes, u64::MAX).unwrap();
        assert_eq!(a.sample_names(), vec!["samples/1_epoch_1.json"]);
        assert_eq!(a.header_name(), None);
        assert_eq!(a.read("samples/1_epoch_1.json").unwrap(), b"{\"id\": 1}");
        a.read = MAX_TOTAL - 3;
        assert_eq!(
            a.read("samples/1_epoch_1.json").unwrap_err(),
            "samples/1_epoch_1.json: the archive decompresses past 8 GiB in all; rung reads no more of it"
        );
        // --max-line bounds each entry: 9 bytes fit in 9, not in 8
        let mut a = Archive::open(&bytes, 9).unwrap();
        assert_eq!(a.read("samples/1_epoch_1.json").unwrap(), b"{\"id\": 1}");
        let mut a = Archive::open(&bytes, 8).unwrap();
        assert_eq!(
            a.read("samples/1_epoch_1.json").unwrap_err(),
            "samples/1_epoch_1.json: decompresses past 8 bytes (--max-line); rung does not read an entry that large (raise --max-line)"
        );
    }
}
