//! The classifying thread: a run's findings are worded, masked and packed
//! there (its audit computed first), while the writer goes on with the next
//! runs; the writer stores them, strictly in run order, a few runs later.
//!
//! Only `finding_rows` (and the `finding_names` its ids intern) are written
//! late. Whatever reads or clears them (a run classified again, the
//! catalogue-level findings, the end of a classification pass) first waits
//! for every run sent ([`FindingPipe::drain`]), so the rows, their ids and
//! their order are those of storing each run's findings as it was
//! classified. At most [`WAITING`] runs and [`WAITING_DECISIONS`] decisions
//! wait (and never fewer than [`WAITING_MIN`] runs), so memory stays flat.

use std::collections::VecDeque;
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

/// Runs sent and not yet stored, at most. The writer stops to store the
/// oldest only when this many wait, so that a classifying thread that fell
/// behind (both cores are busy during an import) catches up while the
/// writer goes on; with three, the writer blocked on it about 2,200 times
/// in a 200,000-decision import, and the import took 1.13 times as long.
const WAITING: usize = 32;

/// The decisions of the runs waiting, at most (their audit inputs are held
/// until stored), beyond the first [`WAITING_MIN`] runs: a few long runs
/// wait no deeper than before.
const WAITING_DECISIONS: usize = 512;

/// Runs that may always wait, however many decisions they hold.
const WAITING_MIN: usize = 3;

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
    /// Its decisions (what its audit input holds), for the bound on what
    /// waits.
    pub(super) decisions: usize,
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
    /// The decisions of each run waiting, oldest first.
    waiting: VecDeque<usize>,
}

fn stopped() -> Error {
    Error::Io(std::io::Error::other("the classifying thread stopped"))
}

impl FindingPipe {
    pub(super) fn new(config: &Config) -> FindingPipe {
        FindingPipe {
            config: config.clone(),
            worker: None,
            waiting: VecDeque::new(),
        }
    }

    /// Hands a run's findings to the classifying thread (started on first
    /// use); stores the oldest waiting run's when too many wait.
    pub(super) fn send(&mut self, conn: &Connection, ids: &mut FindingIds, job: Job) -> Result<()> {
        let worker = match &mut self.worker {
            Some(w) => w,
            none => none.insert(spawn(&self.config)?),
        };
        let decisions = job.decisions;
        worker.to.send(job).map_err(|_| stopped())?;
        self.waiting.push_back(decisions);
        while self.too_many_waiting() {
            self.store_one(conn, ids)?;
        }
        Ok(())
    }

    fn too_many_waiting(&self) -> bool {
        let runs = self.waiting.len();
        runs > WAITING
            || (runs > WAITING_MIN && self.waiting.iter().sum::<usize>() > WAITING_DECISIONS)
    }

    /// Stores the findings of every run sent.
    pub(super) fn drain(&mut self, conn: &Connection, ids: &mut FindingIds) -> Result<()> {
        while !self.waiting.is_empty() {
            self.store_one(conn, ids)?;
        }
        Ok(())
    }

    fn store_one(&mut self, conn: &Connection, ids: &mut FindingIds) -> Result<()> {
        let worker = self.worker.as_ref().ok_or_else(stopped)?;
        let done = worker.from.recv().map_err(|_| stopped())?;
        self.waiting.pop_front();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Redact;
    use crate::ladder::schema::Violation;
    use crate::store::Store;

    fn ready(step: i64, detail: &str) -> Entry {
        Entry::Ready(Row {
            kind: FindingKind::MissingCall,
            catalogue: Some("c1".into()),
            step: Some(step),
            tool: Some("get".into()),
            detail: detail.into(),
        })
    }

    fn job(run: &str, decisions: usize, entries: Vec<Entry>) -> Job {
        Job {
            run_id: run.into(),
            decisions,
            task_id: Some("t1".into()),
            entries,
            audit: None,
        }
    }

    /// (run, step, tool, detail, packed) of every stored finding, by id.
    fn stored(conn: &Connection) -> Vec<(String, i64, String, String, bool)> {
        conn.prepare(
            "SELECT r.name, f.step, t.name, f.detail, f.packed FROM finding_rows f
             JOIN finding_names r ON r.id = f.run_id JOIN finding_names t ON t.id = f.tool
             ORDER BY f.id",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    }

    /// Long runs wait at most three deep, are stored in the order sent,
    /// each one's findings in its own order; a schema violation is worded
    /// and masked on the thread as the writer would have.
    #[test]
    fn findings_are_stored_in_run_order_at_most_three_long_runs_late() {
        let store = Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        conn.execute_batch("BEGIN").unwrap();
        let config = Config {
            redact: Redact {
                patterns: vec!["cus_[0-9]+".into()],
            },
            ..Config::default()
        };
        let mut pipe = FindingPipe::new(&config);
        let mut ids = FindingIds::default();
        let violation = SchemaFinding {
            step: 2,
            tool: "get".into(),
            violations: vec![Violation {
                path: "/id".into(),
                keyword: "type".into(),
                message: "cus_123 is not an integer".into(),
            }],
            status: None,
        };
        let redactor = Redactor::new(&config.redact.patterns, false).unwrap();
        let worded = violation.detail(&|s: &str| redactor.apply(s).into_owned());
        assert!(!worded.contains("cus_123"), "{worded}");
        for (n, run) in ["r1", "r2", "r3", "r4", "r5"].iter().enumerate() {
            let mut entries = vec![ready(1, &format!("first of {run}"))];
            if *run == "r2" {
                entries.push(Entry::Schema(Some("c1".into()), violation.clone()));
            }
            // 200 decisions each: more than three runs would hold more
            // than `WAITING_DECISIONS`.
            pipe.send(conn, &mut ids, job(run, 200, entries)).unwrap();
            // Up to three runs wait: the fourth sent stores the first.
            let runs_stored = (n + 1).saturating_sub(3);
            let rows = stored(conn);
            let mut runs: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
            runs.dedup();
            assert_eq!(runs, ["r1", "r2", "r3", "r4", "r5"][..runs_stored]);
        }
        pipe.drain(conn, &mut ids).unwrap();
        let rows = stored(conn);
        let plain: Vec<(&str, i64, &str)> = rows
            .iter()
            .map(|r| (r.0.as_str(), r.1, r.2.as_str()))
            .collect();
        assert_eq!(
            plain,
            [
                ("r1", 1, "get"),
                ("r2", 1, "get"),
                ("r2", 2, "get"),
                ("r3", 1, "get"),
                ("r4", 1, "get"),
                ("r5", 1, "get"),
            ]
        );
        // Each detail packed (or not) exactly as storing it at once does.
        let mut direct = FindingIds::default();
        conn.execute_batch("DELETE FROM finding_rows").unwrap();
        for (run, step, _, _, _) in &rows {
            let detail = if *step == 2 {
                worded.clone()
            } else {
                format!("first of {run}")
            };
            let kind = if *step == 2 {
                FindingKind::SchemaViolation
            } else {
                FindingKind::MissingCall
            };
            direct
                .insert(
                    conn,
                    kind,
                    Some("c1"),
                    Some("t1"),
                    Some(run),
                    Some(*step),
                    Some("get"),
                    &detail,
                )
                .unwrap();
        }
        assert_eq!(stored(conn), rows);
        assert!(pipe.waiting.is_empty());
    }

    /// How many runs are stored after each send of runs of these sizes.
    fn stored_after_each(decisions: &[usize]) -> Vec<usize> {
        let store = Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        conn.execute_batch("BEGIN").unwrap();
        let mut pipe = FindingPipe::new(&Config::default());
        let mut ids = FindingIds::default();
        let mut out = Vec::new();
        for (n, &d) in decisions.iter().enumerate() {
            let run = format!("r{n}");
            let entries = vec![ready(1, &run)];
            pipe.send(conn, &mut ids, job(&run, d, entries)).unwrap();
            out.push(stored(conn).len());
        }
        pipe.drain(conn, &mut ids).unwrap();
        assert_eq!(stored(conn).len(), decisions.len());
        out
    }

    /// Short runs wait up to 32 deep; runs of 50 decisions up to ten deep
    /// (500 decisions; the eleventh would make 550, over 512); a long run
    /// among short ones is stored once three runs wait and more than 512
    /// decisions do.
    #[test]
    fn short_runs_wait_deeper_than_long_ones() {
        let ramp = |from: usize, n: usize| -> Vec<usize> {
            (1..=n).map(|i| i.saturating_sub(from)).collect()
        };
        assert_eq!(stored_after_each(&[1; 40]), ramp(32, 40));
        assert_eq!(stored_after_each(&[50; 15]), ramp(10, 15));
        // 600 first, then ones: the third run sent (602 decisions) is
        // within the three that always wait; the fourth makes 603 over
        // four runs and stores the long one, leaving three runs of 1.
        assert_eq!(stored_after_each(&[600, 1, 1, 1, 1]), [0, 0, 0, 1, 1]);
    }
}
