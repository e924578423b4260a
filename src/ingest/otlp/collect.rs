//! Collecting the spans of an OTLP JSON export, file by file, and grouping
//! them by trace once every value of the file is read.

use std::collections::HashMap;

use serde_json::Value;

use super::Source;
use super::map::map_trace;
use super::span::{Event, Span};
use super::wire::{attributes, check, get, nanos};
use crate::ingest::convo::Out;
use crate::ingest::locate::Doc;

/// Spans collected from the values of one file, to be grouped by trace.
#[derive(Default)]
pub struct Collector {
    spans: Vec<Span>,
}

impl Collector {
    /// Adds the spans of one top-level value (an export request) starting
    /// at byte `start` of `doc`.
    pub fn add(&mut self, doc: &Doc, start: usize, v: &Value, out: &mut Out) -> Result<(), String> {
        let Some(Value::Array(resource_spans)) = get(v, "resourceSpans", "resource_spans") else {
            return Err(format!("not an OTLP export: {}", check(v).join("; ")));
        };
        let rs_at = doc
            .member_any(start, &["resourceSpans", "resource_spans"])
            .map(|a| doc.items(a))
            .unwrap_or_default();
        let value_line = doc.line_of(start);
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
                    let mut exception = None;
                    let mut events = Vec::new();
                    for e in sp
                        .get("events")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let name = e.get("name").and_then(Value::as_str).unwrap_or("");
                        if name == "exception" && exception.is_none() {
                            exception = attributes(e.get("attributes"))
                                .get("exception.message")
                                .and_then(Value::as_str)
                                .map(String::from);
                        } else if name.starts_with("gen_ai.") {
                            events.push(Event {
                                name: name.to_string(),
                                attrs: attributes(e.get("attributes")),
                            });
                        }
                    }
                    let size = sp_at
                        .get(k)
                        .and_then(|o| doc.value_end(*o).map(|end| end - o))
                        .unwrap_or(0);
                    self.push(Span {
                        trace_id,
                        parent: id("parentSpanId", "parent_span_id"),
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
                        service: service.clone(),
                        events,
                        size,
                        ..Span::default()
                    });
                }
            }
        }
        Ok(())
    }

    /// Adds one span read by another reader (Langfuse, OTLP protobuf),
    /// numbering it in arrival order.
    pub fn push(&mut self, mut span: Span) {
        span.order = self.spans.len();
        self.spans.push(span);
    }

    /// The spans collected, by trace, traces in order of first arrival.
    pub fn into_traces(self) -> Vec<(String, Vec<Span>)> {
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
        traces
    }

    /// Maps every trace collected to runs with their decisions.
    pub fn finish(self, from: Source, out: &mut Out) {
        for (trace_id, spans) in self.into_traces() {
            map_trace(&trace_id, spans, from, out);
        }
    }
}

/// The spans of one OTLP JSON export sent as a request body (`rung
/// serve`): one JSON object. Spans that cannot belong to a run are dropped
/// into `out`; an error says why the body is not an export.
pub fn json_spans(body: &[u8], out: &mut Out) -> Result<Vec<Span>, String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("invalid JSON: {e}"))?;
    let doc = Doc::new(body);
    let mut c = Collector::default();
    c.add(&doc, doc.skip_ws(0), &v, out)?;
    Ok(c.spans)
}
