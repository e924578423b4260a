//! The workers that own SQLite: each holds a read-only connection and answers
//! tagged requests over channels. Quick requests (pages, one decision, a
//! payload chunk, the fuzzy filter) have their own thread so that a
//! long aggregate on the heavy threads never delays the next page. A request
//! that is no longer the latest of its slot is skipped, and long scans stop
//! as soon as a newer request of their slot arrives.

mod answer;
mod request;
mod scan;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

pub use answer::answer;
pub use request::{
    AUDIT_CAP, Chunk, DetailView, Done, FUZZY_KEEP, FuzzyResult, INLINE_ARGS, PAGE, RefusalData,
    Request, Response, ToolRow,
};

use crate::config::Config;
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
