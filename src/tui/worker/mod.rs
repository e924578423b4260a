//! The workers that own SQLite: each holds a read-only connection and answers
//! tagged requests over channels. Quick requests (pages, one decision, a
//! payload chunk, the fuzzy filter) have their own thread so that a
//! long aggregate on the heavy threads never delays the next page. A request
//! that is no longer the latest of its slot is skipped, long scans stop as
//! soon as a newer request of their slot arrives, and an answer that a newer
//! request made stale while it was computed is dropped. A panic while
//! answering becomes an error answer (see `supervise`).

mod answer;
pub mod chain;
mod export;
pub mod find;
mod request;
mod scan;
mod supervise;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

pub use answer::answer;
pub use request::{
    Chunk, DetailView, Done, ExportList, FUZZY_KEEP, FuzzyResult, INLINE_ARGS, PAGE, RefusalData,
    Request, Response, ToolRow,
};

use crate::config::Config;
use crate::error::Result;
use crate::redact::Redactor;
use crate::store::Store;
use crate::store::browse;

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
    /// The filter editor's completions.
    Completions,
    /// Whether the filter about to be applied keeps any decision.
    Keeps,
    Runs,
    Fuzzy,
    RunHeader,
    Timeline,
    NextFailing,
    Detail,
    Payload,
    PayloadSeek,
    Decisions,
    Findings,
    FindingList,
    Catalogues,
    Compare,
    CellAttempts,
    ToolDiff,
    /// `Y`: a decision's record for the clipboard.
    Record,
    /// `/` in the payload viewer.
    PayloadFind,
    /// `n`/`N` after `/` in a run's timeline, beyond the rows held.
    NextMatch,
    /// `e`: the current list written to a file.
    Export,
}

const SLOTS: usize = Slot::Export as usize + 1;

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
    /// The chunks of the payloads searched lately (see [`chain`]).
    pub chains: Arc<chain::Chains>,
}

/// How a worker answers a request: [`answer`], or a stand-in in tests.
pub type Answerer = Arc<
    dyn Fn(&Store, &Shared, Request, &dyn Fn() -> bool) -> Result<Option<Response>> + Send + Sync,
>;

impl Workers {
    /// Starts one quick and two heavy workers; answers are sent through
    /// `wrap` onto `out` (the event loop's channel).
    pub fn start<M: Send + 'static>(
        shared: Shared,
        out: Sender<M>,
        wrap: fn(Done) -> M,
    ) -> Result<Workers> {
        Workers::start_with(shared, out, wrap, Arc::new(answer))
    }

    /// `start` with another way of answering (tests make it panic, block
    /// or count).
    pub fn start_with<M: Send + 'static>(
        shared: Shared,
        out: Sender<M>,
        wrap: fn(Done) -> M,
        answerer: Answerer,
    ) -> Result<Workers> {
        supervise::install_hook();
        let latest = Arc::new(Latest::default());
        let (quick, quick_rx) = channel::<Job>();
        let (heavy, heavy_rx) = channel::<Job>();
        let heavy_rx = Arc::new(Mutex::new(heavy_rx));
        let lanes = [Source::One(quick_rx)]
            .into_iter()
            .chain((0..2).map(|_| Source::Shared(heavy_rx.clone())));
        for (i, jobs) in lanes.enumerate() {
            let name = match i {
                0 => "rung-quick".to_string(),
                i => format!("rung-heavy-{}", i - 1),
            };
            let worker = Worker {
                shared: shared.clone(),
                latest: latest.clone(),
                answerer: answerer.clone(),
            };
            let out = out.clone();
            std::thread::Builder::new()
                .name(name)
                .spawn(move || worker.serve(jobs, out, wrap))?;
        }
        Ok(Workers {
            quick,
            heavy,
            latest,
        })
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
            // A worker that panicked holding the lock poisoned it; the
            // receiver inside is still good, so the others go on.
            Source::Shared(rx) => rx
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .recv()
                .ok(),
        }
    }
}

/// One worker thread's side.
struct Worker {
    shared: Shared,
    latest: Arc<Latest>,
    answerer: Answerer,
}

impl Worker {
    fn serve<M>(self, jobs: Source, out: Sender<M>, wrap: fn(Done) -> M) {
        let store = supervise::catch(|| Store::open_ro(&self.shared.db))
            .and_then(|r| r.map_err(|e| e.to_string()));
        let store = match store {
            Ok(s) => s,
            Err(e) => {
                // Answer every request with the error so the screen says why.
                while let Some(job) = jobs.recv() {
                    let done = Done {
                        slot: job.slot,
                        seq: job.seq,
                        response: Response::Error(e.clone()),
                    };
                    if out.send(wrap(done)).is_err() {
                        return;
                    }
                }
                return;
            }
        };
        // Only speed is at stake if the reader cannot be tuned.
        let _ = browse::tune_reader(&store.conn);
        while let Some(job) = jobs.recv() {
            let answered = self.handle(job, |request, cancelled| {
                (self.answerer)(&store, &self.shared, request, cancelled)
            });
            if let Some(done) = answered
                && out.send(wrap(done)).is_err()
            {
                return;
            }
        }
    }

    /// Answers one job; `None` when there is nothing to send: the job was
    /// stale before it started, its scan stopped for a newer request, or a
    /// newer request came while it was answered (a decision's detail is
    /// still sent: the app caches it by id).
    fn handle(
        &self,
        job: Job,
        answer: impl FnOnce(Request, &dyn Fn() -> bool) -> Result<Option<Response>>,
    ) -> Option<Done> {
        let (slot, seq) = (job.slot, job.seq);
        if !self.latest.is_current(slot, seq) {
            return None;
        }
        let cancelled = || !self.latest.is_current(slot, seq);
        let response = match supervise::catch(|| answer(job.request, &cancelled)) {
            Ok(Ok(Some(r))) => r,
            Ok(Ok(None)) => return None,
            Ok(Err(e)) => Response::Error(e.to_string()),
            Err(panic) => Response::Error(panic),
        };
        if slot != Slot::Detail && !self.latest.is_current(slot, seq) {
            return None;
        }
        Some(Done {
            slot,
            seq,
            response,
        })
    }
}
