//! Langfuse trace exports (`{"trace": {...}, "observations": [...]}`, as the
//! Langfuse UI and API give them). An observation written through
//! OpenTelemetry keeps the span's attributes in `metadata.attributes`, so
//! each observation becomes a span mapped by the OTLP importer's rules;
//! Langfuse moves a span's messages (and a tool's arguments and result)
//! out of the attributes into the observation's `input` and `output`, which
//! are put back where the attributes lack them. An observation with no
//! attributes (Langfuse's own SDK) is a model turn when it is a
//! `GENERATION` that is not inside another model turn, a tool execution
//! when it is a `TOOL`.

use chrono::DateTime;
use serde_json::{Value, json};

use super::convo::Out;
use super::locate::Doc;
use super::openai::kind;
use super::otlp::{Attrs, Collector, Hint, Span};

/// Why a value is not a Langfuse trace export; empty when it is one.
pub fn check(v: &Value) -> Vec<String> {
    let Value::Object(o) = v else {
        return vec![format!("a Langfuse export is an object, not {}", kind(v))];
    };
    let mut why = Vec::new();
    match o.get("trace") {
        Some(Value::Object(_)) => {}
        Some(other) => why.push(format!("\"trace\" is {}, not an object", kind(other))),
        None => why.push("no \"trace\" object".to_string()),
    }
    match o.get("observations") {
        Some(Value::Array(_)) => {}
        Some(other) => why.push(format!("\"observations\" is {}, not a list", kind(other))),
        None => why.push("no \"observations\" list".to_string()),
    }
    why
}

/// A JSON object that may come as JSON text (`metadata` often does).
fn object(v: Option<&Value>) -> Option<serde_json::Map<String, Value>> {
    match v? {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => match serde_json::from_str(s) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

/// An RFC 3339 time as nanoseconds since the epoch.
fn nanos(v: Option<&Value>) -> Option<i128> {
    let t = DateTime::parse_from_rfc3339(v?.as_str()?).ok()?;
    let n = i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos());
    (n > 0).then_some(n)
}

/// One observation as read, before the messages are put back.
struct Obs {
    span: Span,
    kind: String,
    input: Value,
    output: Value,
    model: Option<String>,
    /// It carried OpenTelemetry attributes.
    otel: bool,
}

/// Adds the observations of one export (at byte `start` of `doc`) to the
/// collector as spans.
pub fn add(
    spans: &mut Collector,
    doc: &Doc,
    start: usize,
    v: &Value,
    out: &mut Out,
) -> Result<(), String> {
    let (Some(Value::Object(trace)), Some(Value::Array(list))) =
        (v.get("trace"), v.get("observations"))
    else {
        return Err(format!(
            "not a Langfuse trace export: {}",
            check(v).join("; ")
        ));
    };
    let trace_id = trace
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
        .filter(|s| !s.is_empty());
    let at = doc
        .member(start, "observations")
        .map(|a| doc.items(a))
        .unwrap_or_default();
    let value_line = doc.line_of(start);
    let mut obs: Vec<Obs> = Vec::with_capacity(list.len());
    for (k, o) in list.iter().enumerate() {
        let line = at.get(k).map(|o| doc.line_of(*o)).unwrap_or(value_line);
        let id = |key: &str| {
            o.get(key)
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase)
                .filter(|s| !s.is_empty())
        };
        let Some(span_id) = id("id") else {
            out.drop_part(
                line,
                None,
                "dropped an observation with no id: nothing can point to it",
            );
            continue;
        };
        let Some(trace_id) = id("traceId").or_else(|| trace_id.clone()) else {
            out.drop_part(
                line,
                Some(format!("observation {span_id}")),
                "dropped an observation with no traceId in a trace with no id: it belongs to no run",
            );
            continue;
        };
        let metadata = object(o.get("metadata")).unwrap_or_default();
        let attrs: Attrs = object(metadata.get("attributes"))
            .unwrap_or_default()
            .into_iter()
            .collect();
        let service = object(metadata.get("resourceAttributes")).and_then(|r| {
            r.get("service.name")
                .and_then(Value::as_str)
                .map(String::from)
        });
        let size = at
            .get(k)
            .and_then(|o| doc.value_end(*o).map(|end| end - o))
            .unwrap_or(0);
        obs.push(Obs {
            otel: !attrs.is_empty(),
            kind: o
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            input: o.get("input").cloned().unwrap_or(Value::Null),
            output: o.get("output").cloned().unwrap_or(Value::Null),
            model: o.get("model").and_then(Value::as_str).map(String::from),
            span: Span {
                trace_id,
                span_id,
                parent: id("parentObservationId"),
                name: o
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                start: nanos(o.get("startTime")),
                end: nanos(o.get("endTime")),
                attrs,
                error: o.get("level").and_then(Value::as_str) == Some("ERROR"),
                status_message: o
                    .get("statusMessage")
                    .and_then(Value::as_str)
                    .filter(|m| !m.is_empty())
                    .map(String::from),
                line,
                service,
                size,
                ..Span::default()
            },
        });
    }
    hint_sdk_observations(&mut obs);
    for o in obs {
        spans.push(restore(o));
    }
    Ok(())
}

/// Marks the observations Langfuse's own SDK wrote (no attributes): a
/// `GENERATION` is a model turn unless it is inside another one (Agno's
/// traces hold the same call twice), a `TOOL` a tool execution.
fn hint_sdk_observations(obs: &mut [Obs]) {
    let index: std::collections::HashMap<String, usize> = obs
        .iter()
        .enumerate()
        .map(|(i, o)| (o.span.span_id.clone(), i))
        .collect();
    let turn = |o: &Obs| o.span.is_inference() || (!o.otel && o.kind == "GENERATION");
    let hints: Vec<Option<Hint>> = obs
        .iter()
        .map(|o| {
            if o.otel {
                return None;
            }
            match o.kind.as_str() {
                "TOOL" => Some(Hint::Tool),
                "GENERATION" => {
                    // Bounded: parent ids may form a cycle.
                    let mut at = o.span.parent.as_ref().and_then(|p| index.get(p));
                    for _ in 0..obs.len() {
                        let Some(&p) = at else { break };
                        if turn(&obs[p]) {
                            return None;
                        }
                        at = obs[p].span.parent.as_ref().and_then(|q| index.get(q));
                    }
                    Some(Hint::Inference)
                }
                _ => None,
            }
        })
        .collect();
    for (o, h) in obs.iter_mut().zip(hints) {
        o.span.hint = h;
    }
}

fn has_any(a: &Attrs, exact: &[&str], prefixes: &[&str]) -> bool {
    exact.iter().any(|k| a.contains_key(*k))
        || a.keys().any(|k| prefixes.iter().any(|p| k.starts_with(p)))
}

/// Puts the messages Langfuse moved out of a span's attributes back: a
/// model turn's `input`/`output` as `gen_ai.input.messages` /
/// `gen_ai.output.messages` (a text output as one assistant message, a
/// provider response body as `output.value`), a tool's as its arguments
/// and result.
fn restore(o: Obs) -> Span {
    let Obs {
        mut span,
        input,
        output,
        model,
        ..
    } = o;
    let a = &mut span.attrs;
    if span.hint == Some(Hint::Tool) && !a.contains_key("gen_ai.tool.name") && !span.name.is_empty()
    {
        a.insert("gen_ai.tool.name".into(), json!(span.name));
    }
    if span.is_inference() {
        if span.hint.is_some()
            && let Some(m) = model
        {
            span.attrs
                .entry("gen_ai.request.model".into())
                .or_insert(json!(m));
        }
        let a = &mut span.attrs;
        let has_input = has_any(
            a,
            &["gen_ai.input.messages"],
            &["llm.input_messages.", "gen_ai.prompt."],
        );
        if !has_input && input.is_array() {
            a.insert("gen_ai.input.messages".into(), input);
        }
        let has_output = has_any(
            a,
            &["gen_ai.output.messages", "output.value"],
            &["llm.output_messages.", "gen_ai.completion."],
        );
        if !has_output {
            match output {
                Value::Null => {}
                Value::String(t) => {
                    a.insert(
                        "gen_ai.output.messages".into(),
                        json!([{"role": "assistant", "content": t}]),
                    );
                }
                Value::Array(_) => {
                    a.insert("gen_ai.output.messages".into(), output);
                }
                Value::Object(ref m) if m.contains_key("role") => {
                    a.insert("gen_ai.output.messages".into(), json!([output]));
                }
                other => {
                    a.insert("output.value".into(), other);
                }
            }
        }
    } else if span.is_tool() {
        let a = &mut span.attrs;
        let has_result = has_any(
            a,
            &[
                "gen_ai.tool.call.result",
                "output.value",
                "traceloop.entity.output",
                "tool_response",
            ],
            &[],
        );
        if !has_result && !output.is_null() {
            a.insert("gen_ai.tool.call.result".into(), output);
        }
        let has_args = has_any(
            a,
            &[
                "gen_ai.tool.call.arguments",
                "input.value",
                "tool_arguments",
            ],
            &[],
        );
        if !has_args && !input.is_null() {
            a.insert("gen_ai.tool.call.arguments".into(), input);
        }
    }
    span
}
