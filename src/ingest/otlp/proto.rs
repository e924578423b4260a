//! OTLP protobuf (`ExportTraceServiceRequest`, as OTLP/HTTP exporters send
//! it by default) decoded with the `opentelemetry-proto` types into the
//! same spans the JSON reader makes.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use prost::Message;
use serde_json::{Map, Value, json};

use super::span::{Event, Span};
use super::wire::Attrs;
use crate::ingest::convo::Out;

/// An `AnyValue` as plain JSON (bytes as lower-case hex).
fn any(v: &AnyValue) -> Value {
    match &v.value {
        None => Value::Null,
        Some(any_value::Value::StringValue(s)) => json!(s),
        Some(any_value::Value::BoolValue(b)) => json!(b),
        Some(any_value::Value::IntValue(i)) => json!(i),
        Some(any_value::Value::DoubleValue(d)) => {
            serde_json::Number::from_f64(*d).map_or_else(|| json!(d.to_string()), Value::Number)
        }
        Some(any_value::Value::ArrayValue(a)) => Value::Array(a.values.iter().map(any).collect()),
        Some(any_value::Value::KvlistValue(kv)) => Value::Object(
            kv.values
                .iter()
                .map(|k| (k.key.clone(), k.value.as_ref().map_or(Value::Null, any)))
                .collect::<Map<String, Value>>(),
        ),
        Some(any_value::Value::BytesValue(b)) => json!(hex(b)),
        // A reference into a dictionary this request does not carry.
        Some(any_value::Value::StringValueStrindex(_)) => Value::Null,
    }
}

fn attributes(kvs: &[KeyValue]) -> Attrs {
    kvs.iter()
        .map(|k| (k.key.clone(), k.value.as_ref().map_or(Value::Null, any)))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The spans of a protobuf request body; an error says why it is not one.
/// Spans that cannot belong to a run are dropped into `out`.
pub fn spans(body: &[u8], out: &mut Out) -> Result<Vec<Span>, String> {
    let req = ExportTraceServiceRequest::decode(body)
        .map_err(|e| format!("not an OTLP protobuf ExportTraceServiceRequest: {e}"))?;
    let mut spans = Vec::new();
    for rs in &req.resource_spans {
        let service = rs.resource.as_ref().and_then(|r| {
            r.attributes
                .iter()
                .find(|k| k.key == "service.name")
                .and_then(|k| k.value.as_ref())
                .map(any)
                .and_then(|v| v.as_str().map(String::from))
        });
        for ss in &rs.scope_spans {
            for sp in &ss.spans {
                let span_id = hex(&sp.span_id);
                if sp.trace_id.is_empty() {
                    out.drop_part(
                        0,
                        (!span_id.is_empty()).then(|| format!("span {span_id}")),
                        "dropped a span with no traceId: it belongs to no run",
                    );
                    continue;
                }
                let mut exception = None;
                let mut events = Vec::new();
                for e in &sp.events {
                    if e.name == "exception" && exception.is_none() {
                        exception = attributes(&e.attributes)
                            .get("exception.message")
                            .and_then(Value::as_str)
                            .map(String::from);
                    } else if e.name.starts_with("gen_ai.") {
                        events.push(Event {
                            name: e.name.clone(),
                            attrs: attributes(&e.attributes),
                        });
                    }
                }
                let status = sp.status.as_ref();
                let nanos = |n: u64| (n > 0).then_some(i128::from(n));
                spans.push(Span {
                    trace_id: hex(&sp.trace_id),
                    parent: (!sp.parent_span_id.is_empty()).then(|| hex(&sp.parent_span_id)),
                    span_id,
                    name: sp.name.clone(),
                    start: nanos(sp.start_time_unix_nano),
                    end: nanos(sp.end_time_unix_nano),
                    attrs: attributes(&sp.attributes),
                    error: status.is_some_and(|s| s.code == StatusCode::Error as i32),
                    status_message: status.map(|s| s.message.clone()).filter(|m| !m.is_empty()),
                    exception,
                    service: service.clone(),
                    events,
                    size: sp.encoded_len(),
                    ..Span::default()
                });
            }
        }
    }
    Ok(spans)
}
