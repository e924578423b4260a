//! The traces `rung serve` holds until they are complete, and writing the
//! complete ones. A trace is complete when its root span (one with no
//! parent) has arrived, which an exporter sends when the root ends, or when
//! no span of it arrived for `--flush-after` seconds. Spans arriving for a
//! trace already written are written again with it, replacing the run.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::error::{Error, InputError, Result};
use crate::ingest::convo::Out;
use crate::ingest::otlp::{self, Span};
use crate::ingest::{self, RecordSink};
use crate::store::{Batch, ImportOptions, Store};

/// Bytes of spans held while waiting for their traces to complete; past
/// it the traces quiet the longest are written first.
const PENDING_BYTES: usize = 256 << 20;
/// Traces written lately, kept to merge spans that arrive late.
const RECENT_TRACES: usize = 256;
const RECENT_BYTES: usize = 64 << 20;

/// One trace being received.
struct Pending {
    spans: Vec<Span>,
    last: Instant,
    bytes: usize,
}

/// A trace to write, with whether it replaces one already written.
pub struct Complete {
    pub trace_id: String,
    pub spans: Vec<Span>,
    pub again: bool,
}

/// What one request's spans change, computed before anything changes.
pub struct Plan {
    pub complete: Vec<Complete>,
    /// Spans of traces still incomplete, by trace.
    wait: Vec<(String, Vec<Span>)>,
}

#[derive(Default)]
pub struct Traces {
    pending: HashMap<String, Pending>,
    pending_bytes: usize,
    recent: VecDeque<(String, Vec<Span>, usize)>,
    recent_bytes: usize,
    order: usize,
}

fn bytes(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.size.max(64)).sum()
}

impl Traces {
    /// What writing `spans` (one request's) means: which traces are now
    /// complete (their spans held so far included), which wait.
    pub fn plan(&mut self, spans: Vec<Span>) -> Plan {
        let mut by_trace: Vec<(String, Vec<Span>)> = Vec::new();
        for mut s in spans {
            s.order = self.order;
            self.order += 1;
            match by_trace.iter_mut().find(|(t, _)| *t == s.trace_id) {
                Some((_, v)) => v.push(s),
                None => by_trace.push((s.trace_id.clone(), vec![s])),
            }
        }
        let mut plan = Plan {
            complete: Vec::new(),
            wait: Vec::new(),
        };
        for (trace_id, new) in by_trace {
            if let Some((_, old, _)) = self.recent.iter().find(|(t, _, _)| *t == trace_id) {
                let mut spans = old.clone();
                spans.extend(new);
                plan.complete.push(Complete {
                    trace_id,
                    spans,
                    again: true,
                });
            } else if new.iter().any(|s| s.parent.is_none()) {
                let mut spans = self
                    .pending
                    .get(&trace_id)
                    .map(|p| p.spans.clone())
                    .unwrap_or_default();
                spans.extend(new);
                plan.complete.push(Complete {
                    trace_id,
                    spans,
                    again: false,
                });
            } else {
                plan.wait.push((trace_id, new));
            }
        }
        plan
    }

    /// Makes a plan's changes once its complete traces are written.
    pub fn apply(&mut self, plan: Plan, now: Instant) {
        for c in plan.complete {
            if let Some(p) = self.pending.remove(&c.trace_id) {
                self.pending_bytes -= p.bytes;
            }
            self.remember(c.trace_id, c.spans);
        }
        for (trace_id, spans) in plan.wait {
            let n = bytes(&spans);
            let p = self.pending.entry(trace_id).or_insert_with(|| Pending {
                spans: Vec::new(),
                last: now,
                bytes: 0,
            });
            p.spans.extend(spans);
            p.last = now;
            p.bytes += n;
            self.pending_bytes += n;
        }
    }

    /// Keeps a written trace a while, to merge late spans with it.
    pub fn remember(&mut self, trace_id: String, spans: Vec<Span>) {
        self.recent.retain(|(t, _, _)| *t != trace_id);
        let n = bytes(&spans);
        self.recent_bytes = self.recent.iter().map(|(_, _, b)| b).sum::<usize>() + n;
        self.recent.push_back((trace_id, spans, n));
        while self.recent.len() > RECENT_TRACES || self.recent_bytes > RECENT_BYTES {
            match self.recent.pop_front() {
                Some((_, _, b)) => self.recent_bytes -= b,
                None => break,
            }
        }
    }

    /// Takes the traces no span arrived for since `quiet` before `now`,
    /// and, while the spans held are too many, the quietest others.
    pub fn take_due(&mut self, quiet: Duration, now: Instant) -> Vec<Complete> {
        let mut due: Vec<(String, Instant)> = self
            .pending
            .iter()
            .filter(|(_, p)| now.duration_since(p.last) >= quiet)
            .map(|(t, p)| (t.clone(), p.last))
            .collect();
        let mut left = self.pending_bytes
            - due
                .iter()
                .map(|(t, _)| self.pending[t].bytes)
                .sum::<usize>();
        if left > PENDING_BYTES {
            let mut rest: Vec<(String, Instant, usize)> = self
                .pending
                .iter()
                .filter(|(_, p)| now.duration_since(p.last) < quiet)
                .map(|(t, p)| (t.clone(), p.last, p.bytes))
                .collect();
            rest.sort_by_key(|(_, last, _)| *last);
            for (t, last, b) in rest {
                if left <= PENDING_BYTES {
                    break;
                }
                left -= b;
                due.push((t, last));
            }
        }
        due.sort_by_key(|(_, last)| *last);
        due.into_iter()
            .filter_map(|(t, _)| {
                let p = self.pending.remove(&t)?;
                self.pending_bytes -= p.bytes;
                Some(Complete {
                    trace_id: t,
                    spans: p.spans,
                    again: false,
                })
            })
            .collect()
    }

    /// When the quietest trace held becomes due.
    pub fn next_due(&self, quiet: Duration) -> Option<Instant> {
        self.pending.values().map(|p| p.last + quiet).min()
    }

    /// Traces held, and their spans.
    pub fn held(&self) -> (usize, usize) {
        (
            self.pending.len(),
            self.pending.values().map(|p| p.spans.len()).sum(),
        )
    }
}

/// What writing some traces did.
#[derive(Debug, Default)]
pub struct Written {
    pub runs: u64,
    pub decisions: u64,
    /// Parts the mapping could not use, and records skipped.
    pub dropped: Vec<InputError>,
    pub skipped: Vec<InputError>,
}

/// Writes complete traces in one transaction. `source` names them in
/// messages. Without `keep_going` the first bad record is the error and
/// nothing is written; with it, bad records are skipped and listed.
pub fn write(
    store: &Store,
    config: Option<&Config>,
    traces: &[Complete],
    keep_going: bool,
    source: &str,
) -> Result<Written> {
    let mut w = Written::default();
    let replace = traces.iter().any(|t| t.again);
    let mut out = Out::default();
    for t in traces {
        otlp::map_trace(&t.trace_id, t.spans.clone(), otlp::Source::Otlp, &mut out);
    }
    let line = |l: u64| (l > 0).then_some(l);
    for d in out.dropped {
        w.dropped.push(InputError {
            path: Some(source.to_string()),
            line: line(d.line),
            record: d.record,
            message: d.message,
        });
    }
    let opts = ImportOptions {
        keep_going,
        replace,
    };
    let (mut batch, _) = Batch::begin_with(store, opts, source, config)?;
    for m in out.records {
        match ingest::add_value(&mut batch, m.value, source, m.line)? {
            Ok(()) => {}
            Err(mut e) => {
                e.line = line(m.line);
                if let Some(c) = m.context {
                    e.record = Some(match e.record {
                        Some(r) => format!("{r} ({c})"),
                        None => c,
                    });
                }
                if !keep_going {
                    return Err(Error::Input(e));
                }
                batch.skipped();
                w.skipped.push(e);
            }
        }
    }
    let mut skipped = Vec::new();
    let summary = batch.finish(&mut |e: &InputError| skipped.push(e.clone()))?;
    w.skipped.extend(skipped);
    w.runs = summary.runs.new + summary.runs.replaced + summary.runs.unchanged;
    w.decisions = summary.decisions.new + summary.decisions.replaced + summary.decisions.unchanged;
    Ok(w)
}
