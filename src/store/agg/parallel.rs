//! The counts of an import's days, counted after its commit on more than
//! one core. Counting a day reads its verdicts and writes nothing; an
//! import's days are counted again at its end, when the other threads of
//! the import are done and one core would sit idle. Once the import's rows
//! are committed, other connections can read them: each worker opens one,
//! read-only, and counts the days it takes, while the importing connection
//! counts the findings by run, counts days of its own, and writes every
//! day's rows in the listed order (the same rows, in the same order, as
//! [`super::refresh_touched`] writes in the import's transaction).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use rustc_hash::FxHashMap as HashMap;

use super::scan::{Counts, Scanner};
use super::{DELTA_HELD, Group, NO_DAY, dirty_days, refresh_days_with};
use crate::error::{Error, Result};

/// How many days a worker may count ahead of the day being written, so
/// that the counts waiting stay few whatever the number of days.
const LEAD: usize = 4;

type Counted = Result<Vec<(Group, Counts)>>;

/// The days to count, and how far counting and writing have got.
struct Shared<'a> {
    days: &'a [i64],
    /// The next day to take (an index into `days`; past the end: none).
    next: AtomicUsize,
    /// Days written so far.
    written: AtomicUsize,
    stop: AtomicBool,
}

impl Shared<'_> {
    fn take(&self) -> Option<usize> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.days.len()).then_some(i)
    }
}

fn day_of(day: i64) -> Option<i64> {
    (day != NO_DAY).then_some(day)
}

/// Counts the days listed in `agg_dirty` again, and the findings of the
/// runs listed, in a transaction of its own: for an import that has just
/// committed (`conn` outside any transaction). `finding_days` are the days
/// listed before the import ([`super::list_touched`]). Nothing here can
/// undo the import: whatever could not be counted stays listed, so readers
/// count the long way and the next import, classification or
/// `rung reclassify` counts it again.
pub fn refresh_committed(conn: &Connection, finding_days: &[i64]) {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get().saturating_sub(1))
        .clamp(1, 3);
    if let Err(e) = refresh_committed_with(conn, finding_days, workers) {
        tracing::warn!(error = %e, "the counts kept for the screens were not refreshed; readers count from the verdicts until the next import");
        if !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
    }
}

/// [`refresh_committed`] with `workers` more threads counting days (none
/// for a database in memory, or when one day is listed), its error
/// returned (the transaction rolled back by the caller).
pub fn refresh_committed_with(
    conn: &Connection,
    finding_days: &[i64],
    workers: usize,
) -> Result<()> {
    let path = conn
        .path()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .filter(|_| wal(conn));
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let days = dirty_days(conn)?;
    let workers = match &path {
        Some(_) if days.len() > 1 => workers,
        _ => 0,
    };
    let shared = Shared {
        days: &days,
        next: AtomicUsize::new(0),
        written: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    };
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = mpsc::channel::<(i64, Counted)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (shared, path) = (&shared, path.as_deref());
            s.spawn(move || {
                if let Some(path) = path {
                    work(path, shared, &tx);
                }
            });
        }
        drop(tx);
        let mut ready: HashMap<i64, Counted> = HashMap::default();
        let mut scanner: Option<Scanner> = None;
        let mut scan = |conn: &Connection, day: i64| -> Counted {
            loop {
                if let Some(counted) = ready.remove(&day) {
                    shared.written.fetch_add(1, Ordering::Relaxed);
                    return counted;
                }
                while let Ok((d, counted)) = rx.try_recv() {
                    ready.insert(d, counted);
                }
                if ready.contains_key(&day) {
                    continue;
                }
                let next = shared.next.load(Ordering::Relaxed);
                let written = shared.written.load(Ordering::Relaxed);
                if next < shared.days.len()
                    && next < written + LEAD
                    && let Some(i) = shared.take()
                {
                    // Count the next day here rather than wait.
                    let scanner = match &mut scanner {
                        Some(s) => s,
                        None => scanner.insert(Scanner::new(conn)?),
                    };
                    let d = shared.days[i];
                    ready.insert(d, scanner.day(conn, day_of(d)));
                    continue;
                }
                // This day is taken (it is the first not written): a worker
                // is counting it.
                match rx.recv() {
                    Ok((d, counted)) => {
                        ready.insert(d, counted);
                    }
                    Err(_) => {
                        return Err(Error::usage(format!(
                            "the day {day} was not counted: its worker stopped"
                        )));
                    }
                }
            }
        };
        let result = refresh_days_with(conn, &days, finding_days, DELTA_HELD, &mut scan);
        shared.stop.store(true, Ordering::Relaxed);
        result
    })?;
    conn.execute_batch("COMMIT")?;
    Ok(())
}

/// Whether the database is in WAL mode, switching it when it is not (an
/// import into a new database writes it with a rollback journal): readers
/// then read what the import committed while this connection writes.
fn wal(conn: &Connection) -> bool {
    let mode = |sql: &str| {
        conn.query_row(sql, [], |r| r.get::<_, String>(0))
            .unwrap_or_default()
            .eq_ignore_ascii_case("wal")
    };
    mode("PRAGMA journal_mode") || mode("PRAGMA journal_mode = WAL")
}

/// A worker: takes days and counts them on a connection of its own until
/// none is left (or the writer stopped), keeping at most [`LEAD`] days
/// ahead of the day being written.
fn work(path: &Path, shared: &Shared<'_>, tx: &mpsc::Sender<(i64, Counted)>) {
    let Ok(conn) = open(path) else {
        // The writer counts the days itself.
        return;
    };
    let mut scanner: Option<Scanner> = None;
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let next = shared.next.load(Ordering::Relaxed);
        if next >= shared.days.len() {
            return;
        }
        if next >= shared.written.load(Ordering::Relaxed) + LEAD {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        let Some(i) = shared.take() else {
            return;
        };
        let day = shared.days[i];
        let counted = match &mut scanner {
            Some(s) => s.day(&conn, day_of(day)),
            None => match Scanner::new(&conn) {
                Ok(s) => scanner.insert(s).day(&conn, day_of(day)),
                Err(e) => Err(e),
            },
        };
        if tx.send((day, counted)).is_err() {
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
