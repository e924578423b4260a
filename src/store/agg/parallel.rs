//! The counts of an import's days, counted after its commit on more than
//! one core. Counting a day, or reading a run for its findings, only reads
//! what the import stored; an import's days and runs are counted again at
//! its end, when the other threads of the import are done and one core
//! would sit idle. Once the import's rows are committed, other connections
//! can read them: each worker opens one, read-only, and takes jobs (a day
//! to count, a block of runs to read) from a queue, while the importing
//! connection takes jobs too and writes every day's rows and every run's
//! counts in order (the same rows, in the same order, as
//! [`super::refresh_touched`] writes in the import's transaction).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use rustc_hash::FxHashMap as HashMap;

use super::runs::RunRead;
use super::scan::Counts;
use super::{DELTA_HELD, Group, Here, RunName, Source, dirty_days, read_runs, refresh_days_with};
use crate::error::{Error, Result};

/// How many days are handed out ahead of the day being written, so that
/// the counts waiting stay few whatever the number of days.
const LEAD: usize = 4;

type Counted = Result<Vec<(Group, Counts)>>;

enum Job {
    Day(i64),
    Runs(u64, Vec<RunName>),
}

enum Done {
    Day(i64, Counted),
    Runs(u64, Result<Vec<RunRead>>),
}

/// The jobs not taken yet, first in first out; closed when the writer is
/// done.
#[derive(Default)]
struct Queue {
    jobs: Mutex<(VecDeque<Job>, bool)>,
    ready: Condvar,
}

impl Queue {
    fn push(&self, job: Job) {
        if let Ok(mut q) = self.jobs.lock() {
            q.0.push_back(job);
            self.ready.notify_one();
        }
    }

    fn take_now(&self) -> Option<Job> {
        self.jobs.lock().ok()?.0.pop_front()
    }

    /// The next job, waiting for one; `None` once closed and empty.
    fn take_waiting(&self) -> Option<Job> {
        let mut q = self.jobs.lock().ok()?;
        loop {
            if let Some(job) = q.0.pop_front() {
                return Some(job);
            }
            if q.1 {
                return None;
            }
            q = self.ready.wait(q).ok()?;
        }
    }

    fn close(&self) {
        if let Ok(mut q) = self.jobs.lock() {
            q.1 = true;
            self.ready.notify_all();
        }
    }
}

/// Counts the days listed in `agg_dirty` again, and the findings of the
/// runs listed, in a transaction of its own: for an import that has just
/// committed (`conn` outside any transaction). `finding_days` are the days
/// listed before the import ([`super::list_touched`]). Nothing here can
/// undo the import: whatever could not be counted stays listed, so readers
/// count the long way and the next import, classification or
/// `rung reclassify` counts it again.
/// `then` runs in the same transaction after the counts (a first import
/// packs them and builds its last indexes); if that transaction fails, it
/// runs again in one of its own.
pub fn refresh_committed(
    conn: &Connection,
    finding_days: &[i64],
    then: &dyn Fn(&Connection) -> Result<()>,
) {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get().saturating_sub(1))
        .clamp(1, 3);
    let rollback = || {
        if !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
    };
    if let Err(e) = refresh_committed_with(conn, finding_days, workers, then) {
        tracing::warn!(error = %e, "the counts kept for the screens were not refreshed; readers count from the verdicts until the next import");
        rollback();
        let again = conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(Error::from)
            .and_then(|()| then(conn))
            .and_then(|()| conn.execute_batch("COMMIT").map_err(Error::from));
        if let Err(e) = again {
            tracing::warn!(error = %e, "the import's last indexes were not built; the next import builds them");
            rollback();
        }
    }
}

/// [`refresh_committed`] with `workers` more threads reading (none for a
/// database in memory) and `then` after the counts, its error returned
/// (the transaction rolled back by the caller).
pub fn refresh_committed_with(
    conn: &Connection,
    finding_days: &[i64],
    workers: usize,
    then: &dyn Fn(&Connection) -> Result<()>,
) -> Result<()> {
    let path = conn
        .path()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .filter(|_| wal(conn));
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let days = dirty_days(conn)?;
    let Some(path) = path.filter(|_| workers > 0) else {
        refresh_days_with(conn, &days, finding_days, DELTA_HELD, &mut Here::default())?;
        then(conn)?;
        return conn.execute_batch("COMMIT").map_err(Into::into);
    };
    let queue = Queue::default();
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::channel::<Done>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (queue, path) = (&queue, path.as_path());
            s.spawn(move || work(path, queue, &tx));
        }
        drop(tx);
        let mut helped = Helped {
            queue: &queue,
            rx,
            days: &days,
            handed: 0,
            asked: 0,
            counted: HashMap::default(),
            read: HashMap::default(),
            here: Here::default(),
        };
        let result = refresh_days_with(conn, &days, finding_days, DELTA_HELD, &mut helped);
        queue.close();
        result
    })?;
    then(conn)?;
    conn.execute_batch("COMMIT")?;
    Ok(())
}

/// The writer's side: hands jobs out and takes their results in order,
/// doing a job itself rather than wait while one is not taken.
struct Helped<'a> {
    queue: &'a Queue,
    rx: mpsc::Receiver<Done>,
    days: &'a [i64],
    /// Days handed out so far (`days[..handed]`), and asked for.
    handed: usize,
    asked: usize,
    counted: HashMap<i64, Counted>,
    read: HashMap<u64, Result<Vec<RunRead>>>,
    here: Here,
}

impl Helped<'_> {
    fn hand_days(&mut self, up_to: usize) {
        while self.handed < up_to.min(self.days.len()) {
            self.queue.push(Job::Day(self.days[self.handed]));
            self.handed += 1;
        }
    }

    fn keep(&mut self, done: Done) {
        match done {
            Done::Day(d, c) => {
                self.counted.insert(d, c);
            }
            Done::Runs(seq, r) => {
                self.read.insert(seq, r);
            }
        }
    }

    /// Works or waits until `have` holds.
    fn until(&mut self, conn: &Connection, have: impl Fn(&Self) -> bool) -> Result<()> {
        loop {
            while let Ok(done) = self.rx.try_recv() {
                self.keep(done);
            }
            if have(self) {
                return Ok(());
            }
            if let Some(job) = self.queue.take_now() {
                let done = run(conn, &mut self.here, job);
                self.keep(done);
                continue;
            }
            // What is wanted was taken by a worker: it sends it.
            match self.rx.recv() {
                Ok(done) => self.keep(done),
                Err(_) => {
                    return Err(Error::usage(
                        "the counts' workers stopped before they were done",
                    ));
                }
            }
        }
    }
}

impl Source for Helped<'_> {
    fn day(&mut self, conn: &Connection, day: i64) -> Result<Vec<(Group, Counts)>> {
        // The days are asked for in the listed order.
        let at = self.asked;
        self.asked += 1;
        if self.days.get(at) != Some(&day) {
            return self.here.day(conn, day);
        }
        self.hand_days(at + 1 + LEAD);
        self.until(conn, |h| h.counted.contains_key(&day))?;
        self.counted
            .remove(&day)
            .unwrap_or_else(|| self.here.day(conn, day))
    }

    fn submit_runs(&mut self, seq: u64, names: &[RunName]) {
        self.queue.push(Job::Runs(seq, names.to_vec()));
    }

    fn runs(&mut self, conn: &Connection, seq: u64, names: &[RunName]) -> Result<Vec<RunRead>> {
        self.until(conn, |h| h.read.contains_key(&seq))?;
        self.read
            .remove(&seq)
            .unwrap_or_else(|| read_runs(conn, names))
    }
}

/// Does one job on `conn`.
fn run(conn: &Connection, here: &mut Here, job: Job) -> Done {
    match job {
        Job::Day(d) => Done::Day(d, here.day(conn, d)),
        Job::Runs(seq, names) => Done::Runs(seq, read_runs(conn, &names)),
    }
}

/// Whether the database is in WAL mode, switching it when it is not (an
/// import into a new database writes it with a rollback journal): readers
/// then read what the import committed while this connection writes.
fn wal(conn: &Connection) -> bool {
    crate::store::wal_mode(conn).is_ok_and(|m| m.eq_ignore_ascii_case("wal"))
}

/// A worker: takes jobs and does them on a connection of its own until the
/// queue closes. A job that panics is sent back as an error, so the writer
/// never waits for it.
fn work(path: &Path, queue: &Queue, tx: &mpsc::Sender<Done>) {
    let Ok(conn) = open(path) else {
        // The writer does the jobs itself.
        return;
    };
    let mut here = Here::default();
    while let Some(job) = queue.take_waiting() {
        let failed = match &job {
            Job::Day(d) => Done::Day(*d, Err(Error::usage("counting a day failed"))),
            Job::Runs(seq, _) => Done::Runs(*seq, Err(Error::usage("reading runs failed"))),
        };
        let done =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&conn, &mut here, job)))
                .unwrap_or(failed);
        if tx.send(done).is_err() {
            return;
        }
    }
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    // What a day reads is read once: a small cache (the writer's is 64 MB).
    conn.execute_batch("PRAGMA cache_size = -4096")?;
    Ok(conn)
}
