//! OTLP JSON trace exports (`resourceSpans` → `scopeSpans` → `spans`) in the
//! GenAI semantic conventions, OpenInference or OpenLLMetry (old and new),
//! plus the `rung.*` attributes of `docs/otel.md`. A trace is a run; each
//! inference span is one model turn; `execute_tool` spans give outcomes.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Call, Draft, Out};
use super::locate::Doc;
use super::openai::kind;

type Attrs = BTreeMap<String, Value>;

/// How a `rung.*` attribute's value becomes a field's.
type Conv = fn(&Value) -> Value;

/// An OTLP `AnyValue` as plain JSON: `intValue` is often a string, empty
/// `{}` is null; a value that is not an AnyValue object is taken as is.
pub fn any_value(v: &Value) -> Value {
    let Value::Object(o) = v else {
        return v.clone();
    };
    let get = |camel: &str, snake: &str| o.get(camel).or_else(|| o.get(snake));
    if let Some(s) = get("stringValue", "string_value") {
        return s.clone();
    }
    if let Some(b) = get("boolValue", "bool_value") {
        return match b {
            Value::String(s) => json!(s == "true"),
            other => other.clone(),
        };
    }
    if let Some(i) = get("intValue", "int_value") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(|n| json!(n)).unwrap_or(i.clone()),
            other => other.clone(),
        };
    }
    if let Some(d) = get("doubleValue", "double_value") {
        return match d {
            Value::String(s) => s
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(|f| json!(f))
                .unwrap_or(d.clone()),
            other => other.clone(),
        };
    }
    if let Some(a) = get("arrayValue", "array_value") {
        let values = a.get("values").and_then(Value::as_array);
        return Value::Array(values.into_iter().flatten().map(any_value).collect());
    }
    if let Some(kv) = get("kvlistValue", "kvlist_value") {
        return Value::Object(
            attributes(kv.get("values"))
                .into_iter()
                .collect::<Map<String, Value>>(),
        );
    }
    if let Some(b) = get("bytesValue", "bytes_value") {
        return b.clone();
    }
    if o.is_empty() {
        return Value::Null;
    }
    v.clone()
}

/// An OTLP attribute list (`[{key, value}]`) as a map.
fn attributes(list: Option<&Value>) -> Attrs {
    let mut out = Attrs::new();
    for kv in list.and_then(Value::as_array).into_iter().flatten() {
        if let Some(k) = kv.get("key").and_then(Value::as_str) {
            out.insert(
                k.to_string(),
                kv.get("value").map(any_value).unwrap_or(Value::Null),
            );
        }
    }
    out
}

fn get<'a>(o: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    o.get(camel).or_else(|| o.get(snake))
}

fn nanos(v: Option<&Value>) -> Option<i128> {
    let n = match v? {
        Value::String(s) => s.parse::<i128>().ok()?,
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))?,
        _ => return None,
    };
    (n > 0).then_some(n)
}

fn rfc3339(ns: i128) -> Option<String> {
    let secs = i64::try_from(ns.div_euclid(1_000_000_000)).ok()?;
    let sub = ns.rem_euclid(1_000_000_000) as u32;
    chrono::DateTime::from_timestamp(secs, sub)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// One span, with what the mapping needs.
#[derive(Debug, Clone)]
struct Span {
    trace_id: String,
    span_id: String,
    name: String,
    start: Option<i128>,
    end: Option<i128>,
    attrs: Attrs,
    error: bool,
    status_message: Option<String>,
    exception: Option<String>,
    line: u64,
    order: usize,
    service: Option<String>,
}

impl Span {
    fn str(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(Value::as_str)
    }

    fn is_inference(&self) -> bool {
        match self.str("gen_ai.operation.name") {
            Some("chat" | "text_completion" | "generate_content" | "completion") => true,
            Some(_) => false,
            None => {
                self.str("openinference.span.kind") == Some("LLM")
                    || matches!(self.str("llm.request.type"), Some("chat" | "completion"))
                    || self.attrs.contains_key("gen_ai.output.messages")
                    || self
                        .attrs
                        .keys()
                        .any(|k| k.starts_with("gen_ai.completion."))
            }
        }
    }

    fn is_tool(&self) -> bool {
        self.str("gen_ai.operation.name") == Some("execute_tool")
            || self.str("openinference.span.kind") == Some("TOOL")
            || self.str("traceloop.span.kind") == Some("tool")
    }

    fn context(&self) -> String {
        format!("span {}", self.span_id)
    }
}

/// Whether a value is an OTLP export (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    match v {
        Value::Object(_) => match get(v, "resourceSpans", "resource_spans") {
            Some(Value::Array(_)) => Vec::new(),
            Some(other) => vec![format!("\"resourceSpans\" is {}, not a list", kind(other))],
            None => vec!["no \"resourceSpans\" list at the top level".to_string()],
        },
        other => vec![format!("an OTLP export is an object, not {}", kind(other))],
    }
}

/// Spans collected from the values of one file, to be grouped by trace.
#[derive(Default)]
pub struct Collector {
    spans: Vec<Span>,
}

impl Collector {
    /// Adds the spans of one top-level value (an export request) starting
    /// at byte `start` of `doc`.
    pub fn add(&mut self, doc: &Doc, start: usize, v: &Value, out: &mut Out) -> Result<(), String> {
        let why = check(v);
        if !why.is_empty() {
            return Err(format!("not an OTLP export: {}", why.join("; ")));
        }
        let rs_at = doc
            .member_any(start, &["resourceSpans", "resource_spans"])
            .map(|a| doc.items(a))
            .unwrap_or_default();
        let value_line = doc.line_of(start);
        let resource_spans = get(v, "resourceSpans", "resource_spans")
            .and_then(Value::as_array)
            .expect("checked");
        for (i, rs) in resource_spans.iter().enumerate() {
            let rs_off = rs_at.get(i).copied();
            let resource = attributes(rs.get("resource").and_then(|r| r.get("attributes")));
            let service = resource
                .get("service.name")
                .and_then(Value::as_str)
                .map(String::from);
            let ss_keys = ["scopeSpans", "scope_spans", "instrumentationLibrarySpans"];
            let ss_at = rs_off
                .and_then(|o| doc.member_any(o, &ss_keys))
                .map(|a| doc.items(a))
                .unwrap_or_default();
            let scope_spans = ss_keys
                .iter()
                .find_map(|k| rs.get(*k))
                .and_then(Value::as_array);
            for (j, ss) in scope_spans.into_iter().flatten().enumerate() {
                let sp_at = ss_at
                    .get(j)
                    .and_then(|o| doc.member(*o, "spans"))
                    .map(|a| doc.items(a))
                    .unwrap_or_default();
                let spans = ss.get("spans").and_then(Value::as_array);
                for (k, sp) in spans.into_iter().flatten().enumerate() {
                    let line = sp_at.get(k).map(|o| doc.line_of(*o)).unwrap_or(value_line);
                    let id = |camel, snake| {
                        get(sp, camel, snake)
                            .and_then(Value::as_str)
                            .map(str::to_ascii_lowercase)
                            .filter(|s| !s.is_empty())
                    };
                    let span_id = id("spanId", "span_id").unwrap_or_default();
                    let Some(trace_id) = id("traceId", "trace_id") else {
                        out.drop_part(
                            line,
                            (!span_id.is_empty()).then(|| format!("span {span_id}")),
                            "dropped a span with no traceId: it belongs to no run",
                        );
                        continue;
                    };
                    let status = sp.get("status");
                    let code = status.and_then(|s| s.get("code"));
                    let error = matches!(code, Some(Value::Number(n)) if n.as_i64() == Some(2))
                        || matches!(code, Some(Value::String(s)) if s == "STATUS_CODE_ERROR" || s == "ERROR");
                    let exception = sp
                        .get("events")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|e| e.get("name").and_then(Value::as_str) == Some("exception"))
                        .find_map(|e| {
                            attributes(e.get("attributes"))
                                .get("exception.message")
                                .and_then(Value::as_str)
                                .map(String::from)
                        });
                    self.spans.push(Span {
                        trace_id,
                        span_id,
                        name: sp
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        start: nanos(get(sp, "startTimeUnixNano", "start_time_unix_nano")),
                        end: nanos(get(sp, "endTimeUnixNano", "end_time_unix_nano")),
                        attrs: attributes(sp.get("attributes")),
                        error,
                        status_message: status
                            .and_then(|s| s.get("message"))
                            .and_then(Value::as_str)
                            .filter(|m| !m.is_empty())
                            .map(String::from),
                        exception,
                        line,
                        order: self.spans.len(),
                        service: service.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Maps every trace collected to a run with its decisions.
    pub fn finish(self, out: &mut Out) {
        let mut traces: Vec<(String, Vec<Span>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for s in self.spans {
            match index.get(&s.trace_id) {
                Some(&i) => traces[i].1.push(s),
                None => {
                    index.insert(s.trace_id.clone(), traces.len());
                    traces.push((s.trace_id.clone(), vec![s]));
                }
            }
        }
        for (trace_id, spans) in traces {
            map_trace(&trace_id, spans, out);
        }
    }
}

/// One model turn as an inference span records it.
struct Llm {
    defs: Option<Vec<Value>>,
    /// `None` when the span recorded no output messages.
    output: Option<OutMsg>,
    inputs: Vec<InMsg>,
    finish: Vec<String>,
    model: Option<String>,
}

#[derive(Default)]
struct OutMsg {
    text: Option<String>,
    calls: Vec<Call>,
}

struct InMsg {
    role: String,
    text: Option<String>,
    tool_call_id: Option<String>,
    response: Option<Value>,
}

/// A JSON attribute: a JSON string parsed, or a structured value as is.
fn json_attr(v: Option<&Value>) -> Option<Value> {
    match v? {
        Value::String(s) => serde_json::from_str(s).ok(),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// `prefix.N.rest` attributes grouped by N, keyed by `rest`.
fn indexed<'a>(attrs: &'a Attrs, prefix: &str) -> BTreeMap<usize, BTreeMap<&'a str, &'a Value>> {
    let mut out: BTreeMap<usize, BTreeMap<&str, &Value>> = BTreeMap::new();
    let p = format!("{prefix}.");
    for (k, v) in attrs.range(p.clone()..) {
        let Some(rest) = k.strip_prefix(&p) else {
            break;
        };
        if let Some((n, key)) = rest.split_once('.')
            && let Ok(n) = n.parse::<usize>()
        {
            out.entry(n).or_default().insert(key, v);
        }
    }
    out
}

/// The same, over a sub-map produced by `indexed`.
fn indexed_in<'a>(
    attrs: &BTreeMap<&'a str, &'a Value>,
    prefix: &str,
) -> BTreeMap<usize, BTreeMap<&'a str, &'a Value>> {
    let mut out: BTreeMap<usize, BTreeMap<&str, &Value>> = BTreeMap::new();
    let p = format!("{prefix}.");
    for (k, v) in attrs {
        if let Some(rest) = k.strip_prefix(&p)
            && let Some((n, key)) = rest.split_once('.')
            && let Ok(n) = n.parse::<usize>()
        {
            out.entry(n).or_default().insert(key, v);
        }
    }
    out
}

fn s_of(m: &BTreeMap<&str, &Value>, k: &str) -> Option<String> {
    m.get(k).and_then(|v| v.as_str()).map(String::from)
}

/// A tool definition's name: `name` or `function.name`.
fn def_name(d: &Value) -> Option<String> {
    d.get("name")
        .or_else(|| d.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
        .map(String::from)
}

/// Calls of an OpenAI-style `tool_calls` list.
fn openai_calls(list: &Value) -> Vec<Call> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|tc| {
            let f = tc.get("function");
            Call {
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
            }
        })
        .collect()
}

/// A semconv message (`{role, parts}`), or an OpenAI-style one.
fn semconv_out(m: &Value) -> OutMsg {
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

fn read_llm(s: &Span) -> Llm {
    let a = &s.attrs;
    // The menu.
    let mut defs: Option<Vec<Value>> = match json_attr(a.get("gen_ai.tool.definitions")) {
        Some(Value::Array(d)) => Some(d),
        _ => None,
    };
    if defs.is_none() {
        let tools = indexed(a, "llm.tools");
        if !tools.is_empty() {
            defs = Some(
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
            );
        }
    }
    if defs.is_none() {
        if let Some(Value::Array(d)) = json_attr(a.get("llm.request.functions")) {
            defs = Some(d);
        } else {
            let funcs = indexed(a, "llm.request.functions");
            if !funcs.is_empty() {
                defs = Some(
                    funcs
                        .values()
                        .map(|f| {
                            let mut d = Map::new();
                            for k in ["name", "description"] {
                                if let Some(v) = s_of(f, k) {
                                    d.insert(k.into(), json!(v));
                                }
                            }
                            if let Some(p) = json_attr(f.get("parameters").copied()) {
                                d.insert("parameters".into(), p);
                            }
                            Value::Object(d)
                        })
                        .collect(),
                );
            }
        }
    }

    // What the model answered.
    let mut output = match json_attr(a.get("gen_ai.output.messages")) {
        Some(Value::Array(msgs)) => msgs
            .iter()
            .find(|m| {
                m.get("role")
                    .and_then(Value::as_str)
                    .is_none_or(|r| r == "assistant")
            })
            .map(semconv_out),
        _ => None,
    };
    if output.is_none() {
        let oi = indexed(a, "llm.output_messages");
        if let Some(m) = oi.values().next() {
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
            output = Some(o);
        }
    }
    if output.is_none() {
        let old = indexed(a, "gen_ai.completion");
        if let Some(m) = old.values().next() {
            let mut o = OutMsg {
                text: s_of(m, "content"),
                calls: Vec::new(),
            };
            if let Some(tc) = m.get("tool_calls").and_then(|v| json_attr(Some(v))) {
                o.calls = openai_calls(&tc);
            }
            for tc in indexed_in(m, "tool_calls").values() {
                o.calls.push(Call {
                    id: s_of(tc, "id"),
                    name: s_of(tc, "name"),
                    arguments: Args::from_value(tc.get("arguments").copied()),
                });
            }
            if o.calls.is_empty()
                && let Some(name) = s_of(m, "function_call.name")
            {
                o.calls.push(Call {
                    id: None,
                    name: Some(name),
                    arguments: Args::from_value(m.get("function_call.arguments").copied()),
                });
            }
            output = Some(o);
        }
    }

    // What the model was given (for the goal and for tool results).
    let mut inputs = Vec::new();
    if let Some(Value::Array(msgs)) = json_attr(a.get("gen_ai.input.messages")) {
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
    } else {
        let oi = indexed(a, "llm.input_messages");
        let (msgs, prefix) = if oi.is_empty() {
            (indexed(a, "gen_ai.prompt"), "")
        } else {
            (oi, "message.")
        };
        for m in msgs.values() {
            let role = s_of(m, &format!("{prefix}role")).unwrap_or_default();
            let content = m
                .get(format!("{prefix}content").as_str())
                .map(|v| (*v).clone());
            inputs.push(InMsg {
                text: content.as_ref().and_then(|c| c.as_str()).map(String::from),
                tool_call_id: s_of(m, &format!("{prefix}tool_call_id")),
                response: (role == "tool").then(|| content.unwrap_or(Value::Null)),
                role,
            });
        }
    }

    let finish: Vec<String> = match a.get("gen_ai.response.finish_reasons") {
        Some(Value::Array(v)) => v
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => a
            .get("llm.finish_reason")
            .or_else(|| a.get("gen_ai.completion.0.finish_reason"))
            .and_then(Value::as_str)
            .map(|s| vec![s.to_string()])
            .unwrap_or_default(),
    };
    let model = s
        .str("gen_ai.request.model")
        .map(String::from)
        .or_else(|| {
            json_attr(a.get("llm.invocation_parameters"))
                .and_then(|p| p.get("model").and_then(Value::as_str).map(String::from))
        })
        .or_else(|| s.str("llm.request.model").map(String::from))
        .or_else(|| s.str("gen_ai.response.model").map(String::from))
        .or_else(|| s.str("llm.model_name").map(String::from));
    Llm {
        defs,
        output,
        inputs,
        finish,
        model,
    }
}

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

/// The `rung.*` decision attributes (docs/otel.md).
const RUNG_DECISION_KEYS: &[&str] = &[
    "rung.phase",
    "rung.catalogue",
    "rung.policy.allowed_families",
    "rung.policy.max_effect",
    "rung.policy.allow_open_world",
    "rung.trusted_controls",
    "rung.retrieval.k",
    "rung.retrieval.selector",
    "rung.retrieval.query",
    "rung.retrieval.candidates",
    "rung.exposed",
    "rung.visible",
    "rung.expected.acceptable",
    "rung.expected.forbidden",
    "rung.progress",
    "rung.outcome.status",
    "rung.outcome.stage",
    "rung.outcome.reason",
    "rung.outcome.message",
    "rung.outcome.retryable",
    "rung.result",
    "rung.latency_ms",
];

fn rung_key_known(key: &str) -> bool {
    key.starts_with("rung.run.") || RUNG_DECISION_KEYS.contains(&key)
}

/// Span attributes kept on a record: the unmapped ones, with the span id.
fn kept(s: &Span) -> Value {
    let rest: Map<String, Value> = s
        .attrs
        .iter()
        .filter(|(k, _)| !consumed(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    json!({"span_id": s.span_id, "name": s.name, "attributes": rest})
}

/// A number given as a number or as numeric text.
fn int_like(v: &Value) -> Value {
    match v {
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .map(|n| json!(n))
            .unwrap_or(v.clone()),
        other => other.clone(),
    }
}

/// Candidates: a JSON string, a list of `{name, score}` objects, or a list
/// of names.
fn candidates(v: &Value) -> Value {
    let v = match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(parsed) => parsed,
            Err(_) => return v.clone(),
        },
        other => other.clone(),
    };
    match v {
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|c| match c {
                    Value::String(name) => json!({"name": name}),
                    other => other,
                })
                .collect(),
        ),
        other => other,
    }
}

/// Applies a span's `rung.*` decision attributes to a decision's fields
/// (later spans override earlier ones, field by field).
fn apply_rung(f: &mut Map<String, Value>, s: &Span) {
    let a = &s.attrs;
    let mut set = |field: &str, key: &str| {
        if let Some(v) = a.get(key) {
            f.insert(field.into(), v.clone());
        }
    };
    set("phase", "rung.phase");
    set("catalogue", "rung.catalogue");
    set("trusted_controls", "rung.trusted_controls");
    set("exposed", "rung.exposed");
    set("visible", "rung.visible");
    set("progress", "rung.progress");
    if let Some(v) = a.get("rung.latency_ms") {
        f.insert("latency_ms".into(), int_like(v));
    }
    if let Some(v) = a.get("rung.result") {
        f.insert("result".into(), convo::result_value(v.clone()));
    }
    let sub = |f: &mut Map<String, Value>, field: &str, prefix: &str, parts: &[(&str, Conv)]| {
        if !parts
            .iter()
            .any(|(k, _)| a.contains_key(&format!("{prefix}{k}")))
        {
            return;
        }
        let entry = f.entry(field).or_insert_with(|| json!({}));
        if !entry.is_object() {
            *entry = json!({});
        }
        let obj = entry.as_object_mut().expect("an object");
        for (k, conv) in parts {
            if let Some(v) = a.get(&format!("{prefix}{k}")) {
                obj.insert((*k).into(), conv(v));
            }
        }
    };
    let same: Conv = Value::clone;
    sub(
        f,
        "policy",
        "rung.policy.",
        &[
            ("allowed_families", same),
            ("max_effect", same),
            ("allow_open_world", same),
        ],
    );
    sub(
        f,
        "retrieval",
        "rung.retrieval.",
        &[
            ("k", int_like),
            ("selector", same),
            ("query", same),
            ("candidates", candidates),
        ],
    );
    sub(
        f,
        "expected",
        "rung.expected.",
        &[("acceptable", same), ("forbidden", same)],
    );
    if a.contains_key("rung.outcome.status") {
        // A recorded status replaces whatever the conventions said.
        f.remove("outcome");
    }
    sub(
        f,
        "outcome",
        "rung.outcome.",
        &[
            ("status", same),
            ("stage", same),
            ("reason", same),
            ("message", same),
            ("retryable", same),
        ],
    );
    if let Some(Value::Object(o)) = f.get_mut("outcome")
        && a.contains_key("rung.outcome.status")
    {
        if !o.contains_key("reason")
            && let Some(r) = a.get("error.type")
        {
            o.insert("reason".into(), r.clone());
        }
        if !o.contains_key("message")
            && let Some(m) = s.status_message.as_ref().or(s.exception.as_ref())
        {
            o.insert("message".into(), json!(m));
        }
    }
}

fn tool_name(t: &Span) -> Option<String> {
    t.str("gen_ai.tool.name")
        .or_else(|| t.str("tool.name"))
        .or_else(|| {
            (t.str("traceloop.span.kind") == Some("tool"))
                .then(|| t.str("traceloop.entity.name"))
                .flatten()
        })
        .or_else(|| t.name.strip_prefix("execute_tool "))
        .map(String::from)
}

fn tool_call_id(t: &Span) -> Option<String> {
    t.str("gen_ai.tool.call.id")
        .or_else(|| t.str("tool_call.id"))
        .or_else(|| t.str("tool.id"))
        .map(String::from)
}

/// Applies an execute_tool span to its decision: result, outcome, latency,
/// then its own `rung.*` attributes.
fn apply_tool(d: &mut Draft, t: &Span) {
    let result = t
        .attrs
        .get("gen_ai.tool.call.result")
        .or_else(|| t.attrs.get("output.value"))
        .or_else(|| t.attrs.get("traceloop.entity.output"))
        .cloned();
    let failed = t.error || t.attrs.contains_key("error.type");
    if failed {
        let mut o = json!({"status": "error", "stage": "execution"});
        if let Some(r) = t.attrs.get("error.type") {
            o["reason"] = r.clone();
        }
        if let Some(m) = t.status_message.as_ref().or(t.exception.as_ref()) {
            o["message"] = json!(m);
        }
        if let Some(r) = result {
            d.fields.insert("result".into(), convo::result_value(r));
        }
        d.has_result = true;
        d.fields.insert("outcome".into(), o);
    } else {
        d.set_result(convo::result_value(result.unwrap_or(Value::Null)), None);
        if d.fields.get("result") == Some(&Value::Null) {
            d.fields.remove("result");
        }
    }
    if let (Some(s), Some(e)) = (t.start, t.end)
        && e >= s
    {
        d.fields
            .insert("latency_ms".into(), json!((e - s) as f64 / 1_000_000.0));
    }
    if !d.fields.contains_key("arguments")
        && let Some(args) = t
            .attrs
            .get("gen_ai.tool.call.arguments")
            .or_else(|| t.attrs.get("input.value"))
    {
        let parsed = match args {
            Value::String(s) => serde_json::from_str(s).unwrap_or(args.clone()),
            other => other.clone(),
        };
        d.fields.insert("arguments".into(), parsed);
    }
    d.fields.insert("otel_tool_span".into(), kept(t));
    d.context = Some(format!(
        "{}, execute_tool span {}",
        d.context.as_deref().unwrap_or("span ?"),
        t.span_id
    ));
    apply_rung(&mut d.fields, t);
}

/// Run fields from `rung.run.*` (the first span in time order that sets a
/// key wins).
fn run_attrs(spans: &[Span]) -> Map<String, Value> {
    let mut m = Map::new();
    for s in spans {
        for (k, v) in &s.attrs {
            let Some(field) = k.strip_prefix("rung.run.") else {
                continue;
            };
            if m.contains_key(field) {
                continue;
            }
            let v = match field {
                "trial" => int_like(v),
                "task_id" => match v {
                    Value::Number(n) => json!(n.to_string()),
                    other => other.clone(),
                },
                "tags" => match json_attr(Some(v)) {
                    Some(Value::Object(t)) => Value::Object(
                        t.into_iter()
                            .map(|(k, v)| {
                                let s = match v {
                                    Value::String(s) => s,
                                    other => other.to_string(),
                                };
                                (k, json!(s))
                            })
                            .collect(),
                    ),
                    _ => v.clone(),
                },
                _ => v.clone(),
            };
            m.insert(field.to_string(), v);
        }
    }
    m
}

/// Maps one trace.
fn map_trace(trace_id: &str, mut spans: Vec<Span>, out: &mut Out) {
    spans.sort_by_key(|s| (s.start.unwrap_or(i128::MIN), s.order));
    let llm_spans: Vec<(usize, Llm)> = spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_inference())
        .map(|(i, s)| (i, read_llm(s)))
        .collect();
    let tool_spans: Vec<usize> = (0..spans.len()).filter(|i| spans[*i].is_tool()).collect();
    let mut run = run_attrs(&spans);
    if llm_spans.is_empty() && tool_spans.is_empty() && run.is_empty() {
        // Not an agent trace at all.
        return;
    }
    let run_id = match run.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => trace_id.to_string(),
    };
    run.remove("id");

    // Turns: one per inference span, in time order.
    let mut drafts: Vec<Draft> = Vec::new();
    let mut defs_seen: Vec<Value> = Vec::new();
    for (turn, (si, llm)) in llm_spans.iter().enumerate() {
        let s = &spans[*si];
        let mut base = Map::new();
        if let Some(at) = s.start.and_then(rfc3339) {
            base.insert("at".into(), json!(at));
        }
        if let Some(defs) = &llm.defs {
            let names: Vec<String> = defs.iter().filter_map(def_name).collect();
            base.insert("visible".into(), json!(names));
            for d in defs {
                if !defs_seen.contains(d) {
                    defs_seen.push(d.clone());
                }
            }
        }
        base.insert("otel".into(), kept(s));
        let Some(msg) = &llm.output else {
            continue;
        };
        let mk = |f: Map<String, Value>, seq: i64| Draft {
            fields: f,
            line: s.line,
            context: Some(s.context()),
            turn: turn as i64 + 1,
            seq,
            has_result: false,
        };
        if msg.calls.is_empty() {
            let mut f = base.clone();
            f.extend(convo::no_call_fields(msg.text.clone(), false));
            apply_rung(&mut f, s);
            drafts.push(mk(f, 0));
            continue;
        }
        let mut text = msg.text.clone().filter(|t| !t.trim().is_empty());
        for (seq, call) in msg.calls.iter().enumerate() {
            let Some(name) = &call.name else {
                out.drop_part(
                    s.line,
                    Some(format!("run {run_id} ({})", s.context())),
                    "dropped a tool call with no tool name",
                );
                continue;
            };
            let mut f = base.clone();
            f.insert("selected".into(), json!(name));
            if let Some(id) = &call.id {
                f.insert("call_id".into(), json!(id));
            }
            let what = match &call.id {
                Some(id) => format!(
                    "call {} to {}",
                    crate::text::echo(id),
                    crate::text::echo(name)
                ),
                None => format!("the call to {}", crate::text::echo(name)),
            };
            convo::put_arguments(
                &mut f,
                call.arguments.clone(),
                s.line,
                &Some(format!("run {run_id} ({})", s.context())),
                &what,
                out,
            );
            if let Some(t) = text.take() {
                f.insert("text".into(), json!(t));
            }
            apply_rung(&mut f, s);
            drafts.push(mk(f, seq as i64));
        }
    }

    // Tool spans: to their call by id, else by name; a tool span whose turn
    // recorded no output messages stands for the call itself.
    let mut matched = vec![false; drafts.len()];
    // For each span, the latest inference span (its index in `llm_spans`)
    // that started before it.
    let mut prev_llm: Vec<Option<usize>> = Vec::with_capacity(spans.len());
    let mut last = None;
    let mut next = llm_spans.iter().map(|(si, _)| *si).enumerate().peekable();
    for i in 0..spans.len() {
        prev_llm.push(last);
        if let Some(&(p, si)) = next.peek()
            && si == i
        {
            last = Some(p);
            next.next();
        }
    }
    for ti in tool_spans {
        let t = &spans[ti];
        let id = tool_call_id(t);
        let name = tool_name(t);
        let prev = prev_llm[ti];
        let before = |d: &Draft| d.turn <= prev.map_or(0, |p| p as i64 + 1);
        let target = id
            .as_ref()
            .and_then(|id| {
                (0..drafts.len()).find(|&i| !matched[i] && drafts[i].call_id() == Some(id))
            })
            .or_else(|| {
                let name = name.as_deref()?;
                (0..drafts.len()).find(|&i| {
                    !matched[i]
                        && before(&drafts[i])
                        && drafts[i].selected() == Some(name)
                        && (id.is_none() || drafts[i].call_id().is_none())
                })
            });
        if let Some(i) = target {
            matched[i] = true;
            apply_tool(&mut drafts[i], t);
            continue;
        }
        let unrecorded = prev.is_none_or(|p| llm_spans[p].1.output.is_none());
        let Some(name) = name.filter(|_| unrecorded) else {
            out.drop_part(
                t.line,
                Some(format!("run {run_id} (span {})", t.span_id)),
                format!(
                    "dropped an execute_tool span that answers no call in the trace{}{}",
                    tool_name(t)
                        .map(|n| format!(" (tool {})", crate::text::echo(&n)))
                        .unwrap_or_default(),
                    id.map(|i| format!(" (call id {})", crate::text::echo(&i)))
                        .unwrap_or_default()
                ),
            );
            continue;
        };
        // No output recorded: the tool span is the only record of the call.
        let mut f = Map::new();
        let (turn, line, context) = match prev {
            Some(p) => {
                let s = &spans[llm_spans[p].0];
                if let Some(defs) = &llm_spans[p].1.defs {
                    f.insert(
                        "visible".into(),
                        json!(defs.iter().filter_map(def_name).collect::<Vec<_>>()),
                    );
                }
                f.insert("otel".into(), kept(s));
                (p as i64 + 1, s.line, s.context())
            }
            None => (0, t.line, format!("span {}", t.span_id)),
        };
        let at_span = prev.map(|p| &spans[llm_spans[p].0]).unwrap_or(t);
        if let Some(at) = at_span.start.and_then(rfc3339) {
            f.insert("at".into(), json!(at));
        }
        f.insert("selected".into(), json!(name));
        if let Some(id) = &id {
            f.insert("call_id".into(), json!(id));
        }
        f.insert("reconstructed_from".into(), json!("execute_tool span"));
        if let Some(p) = prev {
            apply_rung(&mut f, &spans[llm_spans[p].0]);
        }
        let mut d = Draft {
            fields: f,
            line,
            context: Some(context),
            turn,
            seq: 1000 + ti as i64,
            has_result: false,
        };
        apply_tool(&mut d, t);
        drafts.push(d);
        matched.push(true);
    }

    // Turns with no output and no tool span: a finish reason that is not a
    // tool call means a text answer; otherwise the turn cannot be mapped.
    let answered_turns: HashSet<i64> = drafts.iter().map(|d| d.turn).collect();
    for (turn, (si, llm)) in llm_spans.iter().enumerate() {
        if llm.output.is_some() || answered_turns.contains(&(turn as i64 + 1)) {
            continue;
        }
        let s = &spans[*si];
        let answered = !llm.finish.is_empty()
            && llm
                .finish
                .iter()
                .all(|r| !r.contains("tool") && !r.contains("function"));
        if !answered {
            out.drop_part(
                s.line,
                Some(format!("run {run_id} ({})", s.context())),
                "dropped an inference span that recorded no output messages (enable content capture in the instrumentation) and no execute_tool span naming its calls",
            );
            continue;
        }
        let mut f = Map::new();
        if let Some(at) = s.start.and_then(rfc3339) {
            f.insert("at".into(), json!(at));
        }
        if let Some(defs) = &llm.defs {
            f.insert(
                "visible".into(),
                json!(defs.iter().filter_map(def_name).collect::<Vec<_>>()),
            );
        }
        f.insert("otel".into(), kept(s));
        f.insert("selected".into(), Value::Null);
        apply_rung(&mut f, s);
        drafts.push(Draft {
            fields: f,
            line: s.line,
            context: Some(s.context()),
            turn: turn as i64 + 1,
            seq: 0,
            has_result: false,
        });
    }

    // Results the next turns' inputs carry, for calls no tool span
    // answered: the first later turn whose input holds a response with the
    // call's id, its last such response (the newest, when ids repeat).
    let mut responses: HashMap<&str, Vec<(usize, &Value)>> = HashMap::new();
    for (li, (_, l)) in llm_spans.iter().enumerate() {
        for m in &l.inputs {
            if let (Some(id), Some(r)) = (&m.tool_call_id, &m.response) {
                let seen = responses.entry(id.as_str()).or_default();
                match seen.last_mut() {
                    Some(last) if last.0 == li => last.1 = r,
                    _ => seen.push((li, r)),
                }
            }
        }
    }
    for d in drafts.iter_mut().filter(|d| !d.has_result) {
        let Some(id) = d.call_id() else {
            continue;
        };
        let turn = d.turn.max(0) as usize;
        let found = responses
            .get(id)
            .and_then(|v| v.iter().find(|(li, _)| *li >= turn))
            .map(|(_, r)| (*r).clone());
        if let Some(content) = found {
            let outcome_given = d.fields.contains_key("outcome");
            let outcome = d.fields.get("outcome").cloned();
            d.set_result(convo::result_value(content), None);
            if outcome_given {
                d.fields.insert("outcome".into(), outcome.expect("present"));
            }
        }
    }

    // Turn numbers in time order, decisions from tool spans with no turn
    // placed by their own time.
    number_turns(&mut drafts);

    // The run record.
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    if !run.contains_key("model")
        && let Some(m) = llm_spans.iter().find_map(|(_, l)| l.model.clone())
    {
        run.insert("model".into(), json!(m));
    }
    if !run.contains_key("goal")
        && let Some(g) = llm_spans.first().and_then(|(_, l)| {
            l.inputs
                .iter()
                .find(|m| m.role == "user" && m.text.is_some())
                .and_then(|m| m.text.clone())
        })
    {
        run.insert("goal".into(), json!(g));
    }
    if let Some(start) = spans.iter().filter_map(|s| s.start).min().and_then(rfc3339) {
        run.entry("started_at").or_insert(json!(start));
    }
    if let Some(end) = spans.iter().filter_map(|s| s.end).max().and_then(rfc3339) {
        run.entry("ended_at").or_insert(json!(end));
    }
    run.insert("trace_id".into(), json!(trace_id));
    if let Some(svc) = spans.iter().find_map(|s| s.service.clone()) {
        run.insert("service_name".into(), json!(svc));
    }
    if !defs_seen.is_empty() {
        run.insert("tool_definitions".into(), Value::Array(defs_seen));
    }
    let others: Vec<Value> = spans
        .iter()
        .filter(|s| !s.is_inference() && !s.is_tool())
        .map(kept)
        .collect();
    if !others.is_empty() {
        run.insert("other_spans".into(), Value::Array(others));
    }
    run.insert("imported_from".into(), json!("otlp"));
    let first = spans.first().expect("a trace has a span");
    out.push(Value::Object(run), first.line, Some(first.context()));
    convo::emit(&run_id, drafts, out);
}

/// Renumbers turns 1.. in time order: inference spans hold turns 1..n
/// already; a decision with turn 0 (a tool span before any inference span)
/// gets a turn of its own, placed by its time.
fn number_turns(drafts: &mut [Draft]) {
    let orphans: Vec<usize> = (0..drafts.len()).filter(|&i| drafts[i].turn == 0).collect();
    if orphans.is_empty() {
        return;
    }
    // Orphans come before every inference span (none preceded them), in
    // the order they were found.
    let n = orphans.len() as i64;
    for d in drafts.iter_mut().filter(|d| d.turn > 0) {
        d.turn += n;
    }
    for (k, i) in orphans.into_iter().enumerate() {
        drafts[i].turn = k as i64 + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_values_in_every_encoding() {
        let cases = [
            (json!({"stringValue": "x"}), json!("x")),
            (json!({"intValue": "1024"}), json!(1024)),
            (json!({"intValue": 7}), json!(7)),
            (json!({"doubleValue": 0.5}), json!(0.5)),
            (json!({"doubleValue": "0.25"}), json!(0.25)),
            (json!({"doubleValue": "NaN"}), json!("NaN")),
            (json!({"boolValue": true}), json!(true)),
            (
                json!({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "2"}]}}),
                json!(["a", 2]),
            ),
            (json!({"arrayValue": {}}), json!([])),
            (
                json!({"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": false}}]}}),
                json!({"k": false}),
            ),
            (json!({"string_value": "snake"}), json!("snake")),
            (json!({}), Value::Null),
        ];
        for (v, want) in cases {
            assert_eq!(any_value(&v), want, "{v}");
        }
    }

    fn span(id: &str, t: u64, attrs: Value) -> Value {
        let attrs: Vec<Value> = attrs
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| json!({"key": k, "value": {"stringValue": v.as_str().unwrap()}}))
            .collect();
        json!({"traceId": "T", "spanId": id, "name": "chat", "kind": 3,
               "startTimeUnixNano": (1_000_000_000 * t).to_string(), "attributes": attrs})
    }

    fn messages(v: Value) -> String {
        v.to_string()
    }

    #[test]
    fn repeated_call_ids_take_the_newest_response() {
        let call = |id: &str, name: &str| json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": id, "name": name, "arguments": {}}]}]);
        let resp = |r: &str| json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": r}]});
        let export = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
            span("s1", 1, json!({"gen_ai.operation.name": "chat", "gen_ai.output.messages": messages(call("c1", "a"))})),
            span("s2", 2, json!({"gen_ai.operation.name": "chat",
                "gen_ai.input.messages": messages(json!([resp("r1")])),
                "gen_ai.output.messages": messages(call("c1", "b"))})),
            span("s3", 3, json!({"gen_ai.operation.name": "chat",
                "gen_ai.input.messages": messages(json!([resp("r1"), resp("r2")])),
                "gen_ai.output.messages": messages(json!([{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]))})),
        ]}]}]});
        let text = export.to_string();
        let doc = Doc::new(text.as_bytes());
        let mut c = Collector::default();
        let mut out = Out::default();
        c.add(&doc, 0, &export, &mut out).unwrap();
        c.finish(&mut out);
        assert!(out.dropped.is_empty(), "{:?}", out.dropped);
        let d: Vec<&Value> = out.records.iter().map(|m| &m.value).skip(1).collect();
        assert_eq!(d.len(), 3);
        assert_eq!(
            (&d[0]["selected"], &d[0]["result"]),
            (&json!("a"), &json!("r1"))
        );
        assert_eq!(
            (&d[1]["selected"], &d[1]["result"]),
            (&json!("b"), &json!("r2"))
        );
        assert_eq!(d[2]["selected"], Value::Null);
        assert_eq!(d[2]["turn"], 3);
    }
}
