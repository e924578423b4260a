//! The workers that own SQLite: each holds a read-only connection and answers
//! tagged requests over channels. Quick requests (pages, one decision, a
//! payload chunk, the fuzzy filter) have their own thread so that a
//! long aggregate on the heavy threads never delays the next page. A request
//! that is no longer the latest of its slot is skipped, and long scans stop
//! as soon as a newer request of their slot arrives.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::payload::{self, Indent};
use crate::config::Config;
use crate::error::Result;
use crate::metrics::{Confusions, LadderCounts, Metrics, RefusalReport, ToolUsage};
use crate::redact::Redactor;
use crate::store::Store;
use crate::store::browse::{
    self, Anchor, DecisionRow, DecisionSet, Detail, FilterHints, Page, PayloadColumn, RunHeader,
    RunSort, ToolAudit, ToolDef, ToolFlags,
};
use crate::store::query::{self, Filter, RunRow};

/// Where an answer goes; the latest request of a slot is the only one whose
/// answer is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum Slot {
    Empty,
    Ladder,
    Metrics,
    Confusions,
    Trend,
    Refusals,
    Tools,
    ToolDef,
    ToolAudit,
    Hints,
    Runs,
    Fuzzy,
    RunHeader,
    Timeline,
    NextFailing,
    Detail,
    Payload,
    PayloadSeek,
    Decisions,
}

const SLOTS: usize = Slot::Decisions as usize + 1;

/// The latest request number of every slot, shared with the workers.
#[derive(Debug, Default)]
pub struct Latest([AtomicU64; SLOTS]);

impl Latest {
    pub fn set(&self, slot: Slot, seq: u64) {
        self.0[slot as usize].store(seq, Ordering::Relaxed);
    }
    pub fn is_current(&self, slot: Slot, seq: u64) -> bool {
        self.0[slot as usize].load(Ordering::Relaxed) == seq
    }
}

/// How many rows a page request asks for.
pub const PAGE: usize = 100;
/// Fuzzy matches kept (best first).
pub const FUZZY_KEEP: usize = 2000;
/// Decisions a tool audit walks at most.
pub const AUDIT_CAP: u64 = 50_000;
/// Payloads up to this size are shown inline in the decision detail.
pub const INLINE_ARGS: u64 = 16 * 1024;

#[derive(Debug, Clone)]
pub enum Request {
    Empty,
    Ladder(Filter),
    Metrics(Filter),
    Confusions(Filter),
    Trend {
        filter: Filter,
        until: i64,
        days: u32,
    },
    Refusals {
        filter: Filter,
        since: i64,
        until: i64,
    },
    Tools(Filter),
    ToolDef {
        catalogue: String,
        name: String,
    },
    ToolAudit {
        filter: Filter,
        catalogue: String,
        name: String,
    },
    Hints,
    Runs {
        filter: Filter,
        sort: RunSort,
        desc: bool,
        anchor: Anchor,
    },
    Fuzzy {
        filter: Filter,
        pattern: String,
    },
    RunHeader(String),
    Timeline {
        filter: Filter,
        run_id: String,
        anchor: Anchor,
    },
    NextFailing {
        filter: Filter,
        run_id: String,
        step: i64,
        forward: bool,
    },
    Detail(i64),
    Payload {
        decision_id: i64,
        column: PayloadColumn,
        start: u64,
        state: Indent,
    },
    /// Checkpoints (chunk starts and states) from `from` to the last chunk.
    PayloadSeek {
        decision_id: i64,
        column: PayloadColumn,
        from: (u64, Indent),
    },
    Decisions {
        filter: Filter,
        set: DecisionSet,
        anchor: Anchor,
    },
}

impl Request {
    /// Aggregates over the whole filter run on the heavy threads.
    fn heavy(&self) -> bool {
        matches!(
            self,
            Request::Ladder(_)
                | Request::Metrics(_)
                | Request::Confusions(_)
                | Request::Trend { .. }
                | Request::Refusals { .. }
                | Request::Tools(_)
                | Request::ToolAudit { .. }
                | Request::Hints
        )
    }
}

/// The weekly refusal report with what the screen adds to it.
#[derive(Debug, Clone)]
pub struct RefusalData {
    pub report: RefusalReport,
    pub runs_affected: u64,
    /// Per row of `report.rows`: refusals per day over the window.
    pub per_day: Vec<Vec<u64>>,
    /// All refusals per day over the previous and current window.
    pub days: Vec<u64>,
    pub latest: Option<i64>,
}

/// One row of the Tools screen.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRow {
    pub usage: ToolUsage,
    pub flags: ToolFlags,
}

/// A decision's detail plus its arguments, pretty, when they are small.
#[derive(Debug, Clone)]
pub struct DetailView {
    pub detail: Detail,
    pub arguments: Option<Vec<String>>,
}

/// A piece of a payload, pretty.
#[derive(Debug, Clone)]
pub struct Chunk {
    pub start: u64,
    pub end: u64,
    pub total: u64,
    pub end_state: Indent,
    pub lines: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct FuzzyResult {
    pub pattern: String,
    /// Best first.
    pub rows: Vec<RunRow>,
    pub matched: u64,
}

#[derive(Debug, Clone)]
pub enum Response {
    Empty(bool),
    Ladder(LadderCounts, Vec<(String, u64)>),
    Metrics(Box<Metrics>),
    Confusions(Confusions),
    Trend(Vec<u64>),
    Refusals(Box<RefusalData>),
    Tools(Vec<ToolRow>),
    ToolDef(Option<Box<ToolDef>>),
    ToolAudit(ToolAudit),
    Hints(FilterHints),
    Runs(Page<RunRow>),
    Fuzzy(FuzzyResult),
    RunHeader(Option<RunHeader>),
    Timeline(String, Page<DecisionRow>),
    NextFailing(Option<i64>),
    Detail(Arc<DetailView>),
    Payload(Box<Chunk>),
    PayloadSeek(Vec<(u64, Indent)>),
    Decisions(Page<DecisionRow>),
    Error(String),
}

/// A worker's answer, tagged with the request it answers.
#[derive(Debug, Clone)]
pub struct Done {
    pub slot: Slot,
    pub seq: u64,
    pub response: Response,
}

/// Two answers are the same answer when they answer the same request.
impl PartialEq for Done {
    fn eq(&self, other: &Done) -> bool {
        self.slot == other.slot && self.seq == other.seq
    }
}

struct Job {
    slot: Slot,
    seq: u64,
    request: Request,
}

/// The UI side of the workers: send requests, they answer on `answers`.
pub struct Workers {
    quick: Sender<Job>,
    heavy: Sender<Job>,
    latest: Arc<Latest>,
}

/// What every worker needs besides its connection.
#[derive(Clone)]
pub struct Shared {
    pub db: PathBuf,
    pub config: Arc<Config>,
    pub redactor: Redactor,
}

impl Workers {
    /// Starts one quick and two heavy workers; answers are sent through
    /// `wrap` onto `out` (the event loop's channel).
    pub fn start<M: Send + 'static>(
        shared: Shared,
        out: Sender<M>,
        wrap: fn(Done) -> M,
    ) -> Workers {
        let latest = Arc::new(Latest::default());
        let (quick, quick_rx) = channel::<Job>();
        let (heavy, heavy_rx) = channel::<Job>();
        let heavy_rx = Arc::new(Mutex::new(heavy_rx));
        {
            let (s, o, l) = (shared.clone(), out.clone(), latest.clone());
            std::thread::Builder::new()
                .name("rung-quick".into())
                .spawn(move || serve(s, Source::One(quick_rx), o, wrap, l))
                .expect("spawn worker");
        }
        for i in 0..2 {
            let (s, o, l, rx) = (
                shared.clone(),
                out.clone(),
                latest.clone(),
                heavy_rx.clone(),
            );
            std::thread::Builder::new()
                .name(format!("rung-heavy-{i}"))
                .spawn(move || serve(s, Source::Shared(rx), o, wrap, l))
                .expect("spawn worker");
        }
        Workers {
            quick,
            heavy,
            latest,
        }
    }

    /// Sends a request; it supersedes every earlier one of its slot.
    pub fn send(&self, slot: Slot, seq: u64, request: Request) {
        self.latest.set(slot, seq);
        let lane = if request.heavy() {
            &self.heavy
        } else {
            &self.quick
        };
        let _ = lane.send(Job { slot, seq, request });
    }
}

enum Source {
    One(Receiver<Job>),
    Shared(Arc<Mutex<Receiver<Job>>>),
}

impl Source {
    fn recv(&self) -> Option<Job> {
        match self {
            Source::One(rx) => rx.recv().ok(),
            Source::Shared(rx) => rx.lock().ok()?.recv().ok(),
        }
    }
}

fn serve<M>(
    shared: Shared,
    jobs: Source,
    out: Sender<M>,
    wrap: fn(Done) -> M,
    latest: Arc<Latest>,
) {
    let store = match Store::open_ro(&shared.db) {
        Ok(s) => s,
        Err(e) => {
            // Answer every request with the error so the screen says why.
            while let Some(job) = jobs.recv() {
                let done = Done {
                    slot: job.slot,
                    seq: job.seq,
                    response: Response::Error(e.to_string()),
                };
                if out.send(wrap(done)).is_err() {
                    return;
                }
            }
            return;
        }
    };
    let _ = browse::tune_reader(&store.conn);
    while let Some(job) = jobs.recv() {
        if !latest.is_current(job.slot, job.seq) {
            continue;
        }
        let cancelled = || !latest.is_current(job.slot, job.seq);
        let response = match answer(&store, &shared, job.request, &cancelled) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => Response::Error(e.to_string()),
        };
        let done = Done {
            slot: job.slot,
            seq: job.seq,
            response,
        };
        if out.send(wrap(done)).is_err() {
            return;
        }
    }
}

/// Answers one request (`None`: abandoned for a newer one).
pub fn answer(
    store: &Store,
    shared: &Shared,
    request: Request,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<Response>> {
    let conn = &store.conn;
    Ok(Some(match request {
        Request::Empty => Response::Empty(browse::is_empty(conn)?),
        Request::Ladder(f) => {
            Response::Ladder(query::ladder(conn, &f)?, query::boundary_profile(conn, &f)?)
        }
        Request::Metrics(f) => Response::Metrics(Box::new(query::metrics(conn, &f)?)),
        Request::Confusions(f) => Response::Confusions(query::confusions(conn, &f)?),
        Request::Trend {
            filter,
            until,
            days,
        } => Response::Trend(browse::refusals_per_day(conn, &filter, until, days)?),
        Request::Refusals {
            filter,
            since,
            until,
        } => Response::Refusals(Box::new(refusals(conn, &filter, since, until)?)),
        Request::Tools(f) => {
            let flags = browse::tool_flags(conn)?;
            let rows = query::tools(conn, &f)?
                .into_iter()
                .map(|usage| ToolRow {
                    flags: flags
                        .get(&(usage.catalogue.clone(), usage.name.clone()))
                        .copied()
                        .unwrap_or_default(),
                    usage,
                })
                .collect();
            Response::Tools(rows)
        }
        Request::ToolDef { catalogue, name } => {
            Response::ToolDef(browse::tool_def(conn, &catalogue, &name)?.map(Box::new))
        }
        Request::ToolAudit {
            filter,
            catalogue,
            name,
        } => Response::ToolAudit(browse::tool_audit(
            conn, &filter, &catalogue, &name, AUDIT_CAP, cancelled,
        )?),
        Request::Hints => Response::Hints(browse::filter_hints(conn)?),
        Request::Runs {
            filter,
            sort,
            desc,
            anchor,
        } => Response::Runs(browse::runs_page(conn, &filter, sort, desc, &anchor, PAGE)?),
        Request::Fuzzy { filter, pattern } => match fuzzy(conn, &filter, &pattern, cancelled)? {
            Some(r) => Response::Fuzzy(r),
            None => return Ok(None),
        },
        Request::RunHeader(run_id) => Response::RunHeader(browse::run_header(conn, &run_id)?),
        Request::Timeline {
            filter,
            run_id,
            anchor,
        } => {
            let page = browse::timeline_page(conn, &filter, &run_id, &anchor, PAGE)?;
            Response::Timeline(run_id, page)
        }
        Request::NextFailing {
            filter,
            run_id,
            step,
            forward,
        } => Response::NextFailing(browse::next_failing(conn, &filter, &run_id, step, forward)?),
        Request::Detail(id) => {
            let detail = browse::decision_detail(conn, &shared.config, id)?;
            let arguments = match detail.arguments_bytes {
                Some(n) if n <= INLINE_ARGS => {
                    let bytes =
                        browse::payload_read(conn, id, PayloadColumn::Arguments, 0, n as usize)?;
                    Some(payload::render(&bytes, Indent::default(), &shared.redactor))
                }
                _ => None,
            };
            Response::Detail(Arc::new(DetailView { detail, arguments }))
        }
        Request::Payload {
            decision_id,
            column,
            start,
            state,
        } => Response::Payload(Box::new(chunk(
            conn,
            &shared.redactor,
            decision_id,
            column,
            start,
            state,
        )?)),
        Request::PayloadSeek {
            decision_id,
            column,
            from,
        } => match seek(conn, &shared.redactor, decision_id, column, from, cancelled)? {
            Some(c) => Response::PayloadSeek(c),
            None => return Ok(None),
        },
        Request::Decisions {
            filter,
            set,
            anchor,
        } => Response::Decisions(browse::decisions_page(conn, &filter, &set, &anchor, PAGE)?),
    }))
}

const DAY: i64 = 86_400_000_000;

fn refusals(
    conn: &rusqlite::Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<RefusalData> {
    let (items, undated) = browse::refusal_items(conn, f, since, until)?;
    let days = ((until - since + DAY - 1) / DAY).clamp(1, 366) as usize;
    let prev = since - (until - since);
    let mut all_days = vec![0u64; days * 2];
    let mut by_key: std::collections::HashMap<(Option<String>, String), Vec<u64>> =
        std::collections::HashMap::new();
    let mut runs = std::collections::HashSet::new();
    for r in &items {
        let Some(t) = r.time_us else { continue };
        let d = ((t - prev) / DAY) as usize;
        if let Some(slot) = all_days.get_mut(d) {
            *slot += 1;
        }
        if t >= since && t < until {
            runs.insert(r.run_id.clone());
            let row = by_key
                .entry((r.reason.clone(), r.stage.clone()))
                .or_insert_with(|| vec![0; days]);
            let i = ((t - since) / DAY) as usize;
            if let Some(slot) = row.get_mut(i) {
                *slot += 1;
            }
        }
    }
    let mut report = crate::metrics::refusals(items, since, until);
    report.undated = undated;
    let per_day = report
        .rows
        .iter()
        .map(|row| {
            by_key
                .get(&(row.reason.clone(), row.stage.clone()))
                .cloned()
                .unwrap_or_else(|| vec![0; days])
        })
        .collect();
    Ok(RefusalData {
        report,
        runs_affected: runs.len() as u64,
        per_day,
        days: all_days,
        latest: browse::latest_refusal(conn, f)?,
    })
}

fn chunk(
    conn: &rusqlite::Connection,
    redactor: &Redactor,
    id: i64,
    column: PayloadColumn,
    start: u64,
    state: Indent,
) -> Result<Chunk> {
    let total = browse::payload_bytes(conn, id, column).unwrap_or(0);
    let buf = browse::payload_read(conn, id, column, start, payload::READ)?;
    let (len, end_state) = payload::chunk_len(&buf, state, redactor);
    let bytes = &buf[..len];
    // A raw model output is usually one JSON string: show its text.
    let lines = if column == PayloadColumn::Raw && start == 0 && len as u64 == total {
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(serde_json::Value::String(s)) => payload::render_text(&s, redactor),
            _ => payload::render(bytes, state, redactor),
        }
    } else {
        payload::render(bytes, state, redactor)
    };
    Ok(Chunk {
        start,
        end: start + len as u64,
        total,
        end_state,
        lines,
    })
}

fn seek(
    conn: &rusqlite::Connection,
    redactor: &Redactor,
    id: i64,
    column: PayloadColumn,
    from: (u64, Indent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<Vec<(u64, Indent)>>> {
    let reader = browse::PayloadReader::open(conn, id, column)?;
    let total = reader.len();
    let (mut start, mut state) = from;
    let mut out = vec![from];
    loop {
        if cancelled() {
            return Ok(None);
        }
        let buf = reader.read(start, payload::READ)?;
        let (len, end) = payload::chunk_len(&buf, state, redactor);
        if len == 0 || start + len as u64 >= total {
            return Ok(Some(out));
        }
        start += len as u64;
        state = end;
        out.push((start, state));
    }
}

/// Every run in the filter whose id, task, goal or model matches each word
/// of `pattern` (skim's fuzzy matcher); the best `FUZZY_KEEP`, best first.
fn fuzzy(
    conn: &rusqlite::Connection,
    f: &Filter,
    pattern: &str,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<FuzzyResult>> {
    let matcher = SkimMatcherV2::default().smart_case();
    let terms: Vec<&str> = pattern.split_whitespace().collect();
    let lowered: Vec<Vec<char>> = terms
        .iter()
        .map(|t| t.to_lowercase().chars().collect())
        .collect();
    let mut best: Vec<(i64, RunRow)> = Vec::new();
    let mut matched = 0u64;
    let mut seen = 0u64;
    let mut abandoned = false;
    let mut hay = String::new();
    browse::scan_runs(conn, f, &mut |t| {
        seen += 1;
        if seen.is_multiple_of(2048) && cancelled() {
            abandoned = true;
            return ControlFlow::Break(());
        }
        let fields = [
            Some(t.row.run_id.as_str()),
            t.row.task_id.as_deref(),
            t.row.model.as_deref(),
            t.goal.as_deref(),
        ];
        hay.clear();
        for s in fields.iter().flatten() {
            hay.extend(s.chars().flat_map(char::to_lowercase));
            hay.push('\u{0}');
        }
        let mut score = 0i64;
        for (term, low) in terms.iter().zip(&lowered) {
            // Cheap in-order check first; the scorer only sees candidates.
            let mut it = hay.chars();
            if !low.iter().all(|c| it.any(|h| h == *c)) {
                return ControlFlow::Continue(());
            }
            let Some(s) = fields
                .iter()
                .flatten()
                .filter_map(|s| matcher.fuzzy_match(s, term))
                .max()
            else {
                return ControlFlow::Continue(());
            };
            score += s;
        }
        matched += 1;
        best.push((score, t.row));
        if best.len() >= FUZZY_KEEP * 2 {
            sort_best(&mut best);
            best.truncate(FUZZY_KEEP);
        }
        ControlFlow::Continue(())
    })?;
    if abandoned {
        return Ok(None);
    }
    sort_best(&mut best);
    best.truncate(FUZZY_KEEP);
    Ok(Some(FuzzyResult {
        pattern: pattern.to_string(),
        rows: best.into_iter().map(|(_, r)| r).collect(),
        matched,
    }))
}

fn sort_best(v: &mut [(i64, RunRow)]) {
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.run_id.cmp(&b.1.run_id)));
}
