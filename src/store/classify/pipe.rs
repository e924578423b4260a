//! The classifying thread: a run's findings are worded, masked and packed
//! there (its audit computed first), while the writer goes on with the next
//! runs; the writer stores them, strictly in run order, a few runs later.
//!
//! Only `finding_rows` (and the `finding_names` its ids intern) are written
//! late. Whatever reads or clears them (a run classified again, the
//! catalogue-level findings, the end of a classification pass) first waits
//! for every run sent ([`FindingPipe::drain`]), so the rows, their ids and
//! their order are those of storing each run's findings as it was
//! classified. At most [`WAITING`] runs wait, so memory stays flat.

use std::sync::mpsc::{Receiver, Sender, channel};

use rusqlite::Connection;

use super::audit::{AuditInput, AuditTools};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ladder::schema::SchemaFinding;
use crate::model::FindingKind;
use crate::redact::Redactor;
use crate::store::finding_ids::FindingIds;
use crate::store::findings::pack_detail;

/// Runs sent and not yet stored, at most.
const WAITING: usize = 3;

/// One finding, worded.
pub(super) struct Row {
    pub(super) kind: FindingKind,
    pub(super) catalogue: Option<String>,
    pub(super) step: Option<i64>,
    pub(super) tool: Option<String>,
    pub(super) detail: String,
}

/// A finding as the writer hands it over: worded already, or a schema
/// violation to word (and mask) on the classifying thread.
pub(super) enum Entry {
    Ready(Row),
    Schema(Option<String>, SchemaFinding),
}

/// One run's findings in the order they are stored: its entries, then its
/// audit's.
pub(super) struct Job {
    pub(super) run_id: String,
    pub(super) task_id: Option<String>,
    pub(super) entries: Vec<Entry>,
    pub(super) audit: Option<AuditInput>,
}

/// A job done: each row with its packed detail.
struct Done {
    run_id: String,
    task_id: Option<String>,
    rows: Vec<(Row, Option<String>)>,
}

struct Worker {
    to: Sender<Job>,
    from: Receiver<Done>,
}

pub(crate) struct FindingPipe {
    /// The configuration the thread masks and audits with.
    config: Config,
    worker: Option<Worker>,
    waiting: usize,
}

fn stopped() -> Error {
    Error::Io(std::io::Error::other("the classifying thread stopped"))
}

impl FindingPipe {
    pub(super) fn new(config: &Config) -> FindingPipe {
        FindingPipe {
            config: config.clone(),
            worker: None,
            waiting: 0,
        }
    }

    /// Hands a run's findings to the classifying thread (started on first
    /// use); stores the oldest waiting run's when too many wait.
    pub(super) fn send(&mut self, conn: &Connection, ids: &mut FindingIds, job: Job) -> Result<()> {
        if self.worker.is_none() {
            self.worker = Some(spawn(&self.config)?);
        }
        let worker = self.worker.as_ref().expect("started above");
        worker.to.send(job).map_err(|_| stopped())?;
        self.waiting += 1;
        while self.waiting > WAITING {
            self.store_one(conn, ids)?;
        }
        Ok(())
    }

    /// Stores the findings of every run sent.
    pub(super) fn drain(&mut self, conn: &Connection, ids: &mut FindingIds) -> Result<()> {
        while self.waiting > 0 {
            self.store_one(conn, ids)?;
        }
        Ok(())
    }

    fn store_one(&mut self, conn: &Connection, ids: &mut FindingIds) -> Result<()> {
        let worker = self.worker.as_ref().ok_or_else(stopped)?;
        let done = worker.from.recv().map_err(|_| stopped())?;
        self.waiting -= 1;
        for (r, packed) in &done.rows {
            ids.insert_packed(
                conn,
                r.kind,
                r.catalogue.as_deref(),
                done.task_id.as_deref(),
                Some(&done.run_id),
                r.step,
                r.tool.as_deref(),
                &r.detail,
                packed.as_deref(),
            )?;
        }
        Ok(())
    }
}

/// Starts the classifying thread; it ends when the pipe is dropped.
fn spawn(config: &Config) -> Result<Worker> {
    let (to, jobs) = channel::<Job>();
    let (done, from) = channel::<Done>();
    let redactor = Redactor::new(&config.redact.patterns, false)?;
    let tools = AuditTools::new(config);
    std::thread::Builder::new()
        .name("rung-classify".into())
        .spawn(move || {
            let mask = |s: &str| redactor.apply(s).into_owned();
            for job in jobs {
                let mut rows = Vec::with_capacity(job.entries.len());
                for e in job.entries {
                    rows.push(match e {
                        Entry::Ready(r) => r,
                        Entry::Schema(catalogue, f) => Row {
                            kind: FindingKind::SchemaViolation,
                            catalogue,
                            step: Some(f.step),
                            detail: f.detail(&mask),
                            tool: Some(f.tool),
                        },
                    });
                }
                if let Some(input) = job.audit {
                    input.findings(&tools, &mask, &mut rows);
                }
                let rows = rows
                    .into_iter()
                    .map(|r| {
                        let packed = pack_detail(&r.detail, r.tool.as_deref());
                        (r, packed)
                    })
                    .collect();
                let out = Done {
                    run_id: job.run_id,
                    task_id: job.task_id,
                    rows,
                };
                if done.send(out).is_err() {
                    return;
                }
            }
        })?;
    Ok(Worker { to, from })
}
