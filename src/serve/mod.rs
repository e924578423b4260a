//! `rung serve`: an OTLP/HTTP receiver. Exporters `POST /v1/traces` in JSON
//! or protobuf (gzip or not); each request is decoded whole before anything
//! is kept, so a bad one is answered 400 with the reason and changes
//! nothing; one over `--max-body` bytes is answered 413. Complete traces
//! are mapped by the OTLP importer and written to the database, each
//! request's in one transaction (see `traces`).
//!
//! One thread serves requests one at a time (tiny_http queues the others)
//! and, between them, writes the traces that went quiet.

mod traces;

use std::io::Read;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use flate2::read::MultiGzDecoder;
use tiny_http::{Header, Method, Request, Response, Server};

use crate::config::Config;
use crate::error::{Error, InputError, Result};
use crate::ingest::convo::Out;
use crate::ingest::otlp::{self, Span};
use crate::store::Store;
use crate::text::escape_multiline;
use traces::{Complete, Traces, Written};

/// What `rung serve` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    pub db: PathBuf,
    pub config: Option<Config>,
    pub listen: String,
    pub flush_after: Duration,
    pub max_body: u64,
    pub quiet: bool,
    pub verbose: bool,
}

/// How often quiet traces are looked for when nothing else wakes the loop.
const TICK: Duration = Duration::from_millis(500);

/// The addresses `listen` names; an error when it names none.
pub fn resolve(listen: &str) -> Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = listen
        .to_socket_addrs()
        .map_err(|e| {
            Error::usage(format!(
                "--listen {listen:?}: not an address to listen on ({e})"
            ))
        })?
        .collect();
    if addrs.is_empty() {
        return Err(Error::usage(format!(
            "--listen {listen:?}: names no address"
        )));
    }
    Ok(addrs)
}

/// Serves until the process is stopped.
pub fn run(opts: &Options) -> Result<()> {
    let addrs = resolve(&opts.listen)?;
    let store = Store::open_rw(&opts.db)?;
    let server = Server::http(&addrs[..])
        .map_err(|e| Error::usage(format!("cannot listen on {}: {e}", opts.listen)))?;
    let bound = server
        .server_addr()
        .to_ip()
        .map_or_else(|| opts.listen.clone(), |a| a.to_string());
    if !opts.quiet {
        eprintln!(
            "rung serve: receiving OTLP/HTTP traces (JSON or protobuf) at http://{bound}/v1/traces into {}",
            opts.db.display()
        );
    }
    let mut state = State {
        opts,
        store,
        traces: Traces::default(),
        requests: 0,
    };
    loop {
        let now = Instant::now();
        let wait = state
            .traces
            .next_due(opts.flush_after)
            .map_or(TICK, |due| due.saturating_duration_since(now).min(TICK));
        match server.recv_timeout(wait) {
            Ok(Some(req)) => state.handle(req),
            Ok(None) => {}
            Err(e) => return Err(Error::usage(format!("rung serve: {e}"))),
        }
        state.flush_due();
    }
}

struct State<'a> {
    opts: &'a Options,
    store: Store,
    traces: Traces,
    requests: u64,
}

/// A request answered with an error: its status and why.
struct Refused(u16, String);

impl State<'_> {
    fn handle(&mut self, mut req: Request) {
        self.requests += 1;
        let json = req
            .headers()
            .iter()
            .find(|h| h.field.equiv("Content-Type"))
            .is_some_and(|h| h.value.as_str().starts_with("application/json"));
        let answer = self.answer(&mut req, json);
        let (status, body, content_type) = match answer {
            Ok(()) if json => (200, "{}".to_string(), "application/json"),
            Ok(()) => (200, String::new(), "application/x-protobuf"),
            Err(Refused(status, why)) => {
                if !self.opts.quiet {
                    eprintln!(
                        "rung serve: request {} refused ({status}): {}",
                        self.requests,
                        escape_multiline(&why)
                    );
                }
                if json {
                    let body = serde_json::json!({"code": 3, "message": why}).to_string();
                    (status, body, "application/json")
                } else {
                    (status, why, "text/plain; charset=utf-8")
                }
            }
        };
        let header = Header::from_bytes("Content-Type", content_type).ok();
        let mut response = Response::from_string(body).with_status_code(status);
        if let Some(h) = header {
            response = response.with_header(h);
        }
        // A client gone before its answer is no error of ours.
        let _ = req.respond(response);
    }

    fn answer(&mut self, req: &mut Request, json: bool) -> std::result::Result<(), Refused> {
        let path = req.url().split('?').next().unwrap_or("");
        if path != "/v1/traces" {
            return Err(Refused(
                404,
                format!("rung serve receives OTLP traces at POST /v1/traces, not {path}"),
            ));
        }
        if *req.method() != Method::Post {
            return Err(Refused(405, "/v1/traces takes POST".into()));
        }
        let header = |name: &str| {
            req.headers()
                .iter()
                .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
                .map(|h| h.value.as_str().to_ascii_lowercase())
        };
        let content_type = header("Content-Type").unwrap_or_default();
        if !json && !content_type.starts_with("application/x-protobuf") {
            return Err(Refused(
                415,
                format!(
                    "Content-Type {content_type:?}: rung serve reads application/json and application/x-protobuf"
                ),
            ));
        }
        let gzip = match header("Content-Encoding").as_deref() {
            None | Some("identity") => false,
            Some("gzip") => true,
            Some(other) => {
                return Err(Refused(
                    415,
                    format!("Content-Encoding {other:?}: rung serve reads gzip or none"),
                ));
            }
        };
        let max = self.opts.max_body;
        let too_big = || Refused(413, format!("the body is over --max-body ({max} bytes)"));
        if req.body_length().is_some_and(|n| n as u64 > max) {
            return Err(too_big());
        }
        let body = read_limited(req.as_reader(), max)
            .map_err(|e| Refused(400, format!("cannot read the body: {e}")))?
            .ok_or_else(too_big)?;
        let body = if gzip {
            read_limited(&mut MultiGzDecoder::new(&body[..]), max)
                .map_err(|e| Refused(400, format!("the gzip body is corrupt: {e}")))?
                .ok_or_else(too_big)?
        } else {
            body
        };
        let source = format!(
            "request {} ({})",
            self.requests,
            if json { "json" } else { "protobuf" }
        );
        let mut out = Out::default();
        let spans: Vec<Span> = if json {
            otlp::json_spans(&body, &mut out)
        } else {
            otlp::proto_spans(&body, &mut out)
        }
        .map_err(|why| Refused(400, why))?;
        let plan = self.traces.plan(spans);
        let written = if plan.complete.is_empty() {
            None
        } else {
            match traces::write(
                &self.store,
                self.opts.config.as_ref(),
                &plan.complete,
                false,
                &source,
            ) {
                Ok(w) => Some(w),
                Err(Error::Input(e)) => return Err(Refused(400, e.to_string())),
                Err(e) => {
                    return Err(Refused(
                        500,
                        format!("could not write to the database: {e}"),
                    ));
                }
            }
        };
        let done: Vec<String> = plan.complete.iter().map(|c| c.trace_id.clone()).collect();
        self.traces.apply(plan, Instant::now());
        let unowned = out.dropped.into_iter().map(|d| InputError {
            path: Some(source.clone()),
            line: (d.line > 0).then_some(d.line),
            record: d.record,
            message: d.message,
        });
        let mut w = written.unwrap_or_default();
        w.dropped.extend(unowned);
        self.report(&done, &w);
        Ok(())
    }

    /// Writes the traces that went quiet (bad records skipped and listed:
    /// there is no request to answer).
    fn flush_due(&mut self) {
        let due: Vec<Complete> = self.traces.take_due(self.opts.flush_after, Instant::now());
        if due.is_empty() {
            return;
        }
        let ids: Vec<String> = due.iter().map(|c| c.trace_id.clone()).collect();
        match traces::write(
            &self.store,
            self.opts.config.as_ref(),
            &due,
            true,
            "traces gone quiet",
        ) {
            Ok(w) => {
                for c in due {
                    self.traces.remember(c.trace_id, c.spans);
                }
                self.report(&ids, &w);
            }
            Err(e) => eprintln!(
                "rung serve: could not write {} trace{}: {}",
                ids.len(),
                if ids.len() == 1 { "" } else { "s" },
                escape_multiline(&e.to_string())
            ),
        }
    }

    fn report(&self, traces: &[String], w: &Written) {
        if self.opts.quiet {
            return;
        }
        for e in &w.skipped {
            eprintln!("skipped: {}", escape_multiline(&e.to_string()));
        }
        if self.opts.verbose {
            for e in &w.dropped {
                eprintln!("dropped: {}", escape_multiline(&e.to_string()));
            }
        }
        if traces.is_empty() && w.dropped.is_empty() {
            return;
        }
        let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let mut line = format!(
            "imported {}: {}, {}",
            match traces {
                [one] => format!("trace {one}"),
                many => plural(many.len() as u64, "trace"),
            },
            plural(w.runs, "run"),
            plural(w.decisions, "decision"),
        );
        if !w.dropped.is_empty() {
            line.push_str(&format!(
                "; dropped {} the importer could not map ({})",
                plural(w.dropped.len() as u64, "part"),
                if self.opts.verbose {
                    "listed above"
                } else {
                    "-v lists each"
                }
            ));
        }
        if !w.skipped.is_empty() {
            line.push_str(&format!(
                "; skipped {}",
                plural(w.skipped.len() as u64, "bad record")
            ));
        }
        let (held, spans) = self.traces.held();
        if held > 0 {
            line.push_str(&format!(
                "; {} incomplete ({})",
                plural(held as u64, "trace"),
                plural(spans as u64, "span")
            ));
        }
        eprintln!("{line}");
    }
}

/// Reads at most `max` bytes; `None` when there are more.
fn read_limited(r: &mut dyn Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    r.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= max).then_some(buf))
}

/// Whether every address is on this machine only.
pub fn loopback_only(addrs: &[SocketAddr]) -> bool {
    addrs.iter().all(|a| a.ip().is_loopback())
}
