//! `rung serve` with a real OTLP exporter (opentelemetry-otlp's HTTP
//! exporter) sending the spans of a tool-calling run, in protobuf and in
//! JSON; then `rung report runs` shows the runs with their decisions. A
//! malformed body gets 400 and stores nothing; an oversized one 413.

mod import_util;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use import_util::*;
use opentelemetry::KeyValue;
use opentelemetry::trace::{Span, SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;

/// A `rung serve` on a free loopback port, stopped when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Serve {
    fn start(db: &std::path::Path, extra: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rung"))
            .env_remove("RUNG_DB")
            .arg("--db")
            .arg(db)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("rung serve starts");
        let mut first = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut first)
            .unwrap();
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        Serve { child, addr }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One tool-calling run, as an agent instrumented with the GenAI
/// conventions records it: an invoke_agent root, a chat turn calling
/// lookup_order, its execute_tool span, and a chat turn answering.
fn send_run(endpoint: &str, protocol: Protocol, call_id: &str) {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(protocol)
        .with_endpoint(format!("{endpoint}/v1/traces"))
        .build()
        .unwrap();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter)
        .build();
    let tracer = provider.tracer("support-agent");
    let root = tracer
        .span_builder("invoke_agent support")
        .with_attributes(vec![
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("rung.run.task_id", "late-order"),
        ])
        .start(&tracer);
    let cx = opentelemetry::Context::current_with_span(root);
    let defs = r#"[{"type": "function", "name": "lookup_order"}, {"type": "function", "name": "refund_order"}]"#;
    let call = format!(
        r#"[{{"role": "assistant", "parts": [{{"type": "tool_call", "id": "{call_id}", "name": "lookup_order", "arguments": {{"order_id": "A-1187"}}}}]}}]"#
    );
    let mut chat = tracer
        .span_builder("chat gpt-4o")
        .with_kind(SpanKind::Client)
        .with_attributes(vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.request.model", "gpt-4o"),
            KeyValue::new("gen_ai.tool.definitions", defs),
            KeyValue::new("gen_ai.output.messages", call),
        ])
        .start_with_context(&tracer, &cx);
    chat.end();
    let mut tool = tracer
        .span_builder("execute_tool lookup_order")
        .with_attributes(vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", "lookup_order"),
            KeyValue::new("gen_ai.tool.call.id", call_id.to_string()),
            KeyValue::new("gen_ai.tool.call.result", r#"{"status": "delivered"}"#),
        ])
        .start_with_context(&tracer, &cx);
    tool.set_status(Status::Ok);
    tool.end();
    let mut answer = tracer
        .span_builder("chat gpt-4o")
        .with_kind(SpanKind::Client)
        .with_attributes(vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.request.model", "gpt-4o"),
            KeyValue::new("gen_ai.tool.definitions", defs),
            KeyValue::new(
                "gen_ai.output.messages",
                r#"[{"role": "assistant", "parts": [{"type": "text", "content": "A-1187 was delivered."}]}]"#,
            ),
        ])
        .start_with_context(&tracer, &cx);
    answer.end();
    cx.span().end();
    provider.force_flush().unwrap();
    provider.shutdown().unwrap();
}

/// A raw HTTP POST; returns the status code and body.
fn post(addr: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    // The server may answer before reading all of a refused body.
    let _ = s.write_all(body);
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

#[test]
fn an_otlp_exporter_sends_a_run_in_protobuf_and_in_json() {
    let (_dir, db) = setup();
    let serve = Serve::start(&db, &[]);
    let endpoint = format!("http://{}", serve.addr);
    send_run(&endpoint, Protocol::HttpBinary, "call_proto");
    send_run(&endpoint, Protocol::HttpJson, "call_json");

    let runs = report(&db, "runs")["runs"].as_array().unwrap().clone();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for r in &runs {
        assert_eq!(r["task_id"], "late-order");
        assert_eq!(r["model"], "gpt-4o");
        assert_eq!(r["decisions"], 2);
    }
    // Each run: the call (with its id, answered by the tool span), then
    // the answer.
    let mut calls = Vec::new();
    for r in &runs {
        let d = stored(&db, r["run_id"].as_str().unwrap());
        assert_eq!(d.len(), 2);
        assert_eq!(
            (d[0].selected.as_deref(), d[0].status.as_deref()),
            (Some("lookup_order"), Some("ok"))
        );
        assert_eq!(
            d[0].result,
            Some(serde_json::json!({"status": "delivered"}))
        );
        assert_eq!(
            d[0].visible,
            Some(serde_json::json!(["lookup_order", "refund_order"]))
        );
        assert_eq!((d[1].selected.as_deref(), d[1].turn), (None, Some(2)));
        calls.push(d[0].call_id.clone().unwrap());
    }
    calls.sort();
    assert_eq!(calls, vec!["call_json", "call_proto"]);
    let ladder = report(&db, "ladder");
    assert_eq!(ladder["decisions"], 4);
    assert_eq!(ladder["rungs"]["unlabelled"], 4);
}

#[test]
fn a_malformed_body_is_refused_and_stores_nothing() {
    let (_dir, db) = setup();
    let serve = Serve::start(&db, &["--max-body", "2000"]);
    // Not JSON at all.
    let (status, body) = post(&serve.addr, "application/json", b"{\"resourceSpans\": [");
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["message"],
        "invalid JSON: EOF while parsing a list at line 1 column 19"
    );
    // JSON, not an export.
    let (status, body) = post(&serve.addr, "application/json", b"{\"spans\": []}");
    assert_eq!(status, 400);
    assert!(
        body.contains("not an OTLP export: no \\\"resourceSpans\\\" list"),
        "{body}"
    );
    // Not protobuf.
    let (status, body) = post(&serve.addr, "application/x-protobuf", b"\xff\xff\xff");
    assert_eq!(status, 400);
    assert!(
        body.starts_with("not an OTLP protobuf ExportTraceServiceRequest"),
        "{body}"
    );
    // A whole trace whose one record is invalid: refused, nothing kept.
    let bad = r#"{"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "chat",
         "startTimeUnixNano": "1795165200000000000",
         "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                        {"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"text\", \"content\": \"hi\"}]}]"}},
                        {"key": "rung.progress", "value": {"stringValue": "sideways"}}]}]}]}]}"#;
    let (status, body) = post(&serve.addr, "application/json", bad.as_bytes());
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("progress"), "{body}");
    // Over --max-body.
    let big = vec![b' '; 2001];
    let (status, _) = post(&serve.addr, "application/json", &big);
    assert_eq!(status, 413);
    drop(serve);
    assert_eq!(report(&db, "runs")["runs"], serde_json::json!([]));
}

/// Spans of one trace as OTLP JSON: a chat turn calling lookup_order and
/// its tool span, under a root `r...` that is or is not in the body.
fn partial_trace(with_root: bool) -> String {
    let t = "0af7651916cd43dd8448eb211c8031aa";
    let kv = |k: &str, v: &str| {
        format!(
            r#"{{"key": "{k}", "value": {{"stringValue": {}}}}}"#,
            serde_json::json!(v)
        )
    };
    let call = r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "lookup_order", "arguments": {}}]}]"#;
    let mut spans = vec![
        format!(
            r#"{{"traceId": "{t}", "spanId": "c000000000000001", "parentSpanId": "r000000000000001", "name": "chat", "startTimeUnixNano": "1795165201000000000", "endTimeUnixNano": "1795165202000000000", "attributes": [{}, {}]}}"#,
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.output.messages", call)
        ),
        format!(
            r#"{{"traceId": "{t}", "spanId": "c000000000000002", "parentSpanId": "r000000000000001", "name": "execute_tool lookup_order", "startTimeUnixNano": "1795165203000000000", "endTimeUnixNano": "1795165204000000000", "attributes": [{}, {}, {}]}}"#,
            kv("gen_ai.operation.name", "execute_tool"),
            kv("gen_ai.tool.name", "lookup_order"),
            kv("gen_ai.tool.call.id", "call_1")
        ),
    ];
    if with_root {
        spans = vec![format!(
            r#"{{"traceId": "{t}", "spanId": "r000000000000001", "name": "invoke_agent", "startTimeUnixNano": "1795165200000000000", "endTimeUnixNano": "1795165209000000000", "attributes": [{}, {}]}}"#,
            kv("gen_ai.operation.name", "invoke_agent"),
            kv("rung.run.task_id", "late-root")
        )];
    }
    format!(
        r#"{{"resourceSpans": [{{"scopeSpans": [{{"spans": [{}]}}]}}]}}"#,
        spans.join(", ")
    )
}

/// `rung report runs --format json`'s runs, asked until `pred` holds
/// (at most 10 s: the server writes between requests).
fn runs_when(
    db: &std::path::Path,
    pred: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let start = std::time::Instant::now();
    loop {
        let runs = report(db, "runs")["runs"].as_array().unwrap().clone();
        if pred(&runs) || start.elapsed() > std::time::Duration::from_secs(10) {
            return runs;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_trace_whose_root_never_came_is_imported_after_flush_after_and_a_late_root_joins_it() {
    let (_dir, db) = setup();
    let serve = Serve::start(&db, &["--flush-after", "2"]);
    let (status, _) = post(
        &serve.addr,
        "application/json",
        partial_trace(false).as_bytes(),
    );
    assert_eq!(status, 200);
    // Held: the root has not arrived.
    assert_eq!(report(&db, "runs")["runs"], serde_json::json!([]));
    // Two seconds of quiet, and it is written without it.
    let runs = runs_when(&db, |r| !r.is_empty());
    assert_eq!(runs.len(), 1, "not written after --flush-after");
    assert_eq!(runs[0]["decisions"], 1);
    assert_eq!(runs[0]["task_id"], serde_json::Value::Null);
    // The root arrives late: the trace is written again with it.
    let (status, _) = post(
        &serve.addr,
        "application/json",
        partial_trace(true).as_bytes(),
    );
    assert_eq!(status, 200);
    let runs = runs_when(&db, |r| {
        r.first().is_some_and(|r| r["task_id"] == "late-root")
    });
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["task_id"], "late-root");
    let d = stored(&db, "0af7651916cd43dd8448eb211c8031aa");
    assert_eq!(
        d.iter()
            .map(|d| (
                d.selected.as_deref(),
                d.call_id.as_deref(),
                d.status.as_deref()
            ))
            .collect::<Vec<_>>(),
        vec![(Some("lookup_order"), Some("call_1"), Some("ok"))]
    );
}

#[test]
fn listening_beyond_loopback_warns() {
    let (_dir, db) = setup();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rung"))
        .env_remove("RUNG_DB")
        .arg("--db")
        .arg(&db)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.starts_with("warning: listening on 0.0.0.0:0, which other machines can reach; rung serve has no authentication"),
        "{first}"
    );
}
