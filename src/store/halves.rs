//! Reading a table in two halves by id at once, one per core: the
//! caller's connection reads the lower half, a second read-only connection
//! to the same database the upper (the findings summary and the runs
//! report under a decision filter).

use rusqlite::{Connection, params_from_iter};

use super::filter_sql::kept_runs;
use crate::error::Result;
use crate::filter::Filter;

/// Whether a run-level filter keeps fewer than one run in [`FEW_RUNS`]:
/// SQLite then reads those runs' decisions and findings through their ids
/// faster than every decision and finding is read in halves (at 5,000,000
/// decisions, the findings summary under `--phase modify --task T`: 0.02 s
/// against 1.1 s; one run in 16: 1.0 s against 1.6 s).
/// `runs` is every run stored ([`run_count`]).
pub(super) fn keeps_few_runs(conn: &Connection, f: &Filter, runs: i64) -> Result<bool> {
    let (sql, args) = kept_runs(f);
    let kept: i64 = conn.query_row(
        &format!("SELECT count(*) FROM ({sql})"),
        params_from_iter(args),
        |r| r.get(0),
    )?;
    Ok(kept.saturating_mul(FEW_RUNS) < runs)
}

/// How many runs are stored.
pub(super) fn run_count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT count(*) FROM runs", [], |r| r.get(0))?)
}

/// Calls `each` with the id of every run a run-level filter keeps, as
/// stored (a NULL id is no run), until it answers `false`; `false` then.
pub(super) fn each_kept_run(
    conn: &Connection,
    f: &Filter,
    mut each: impl FnMut(&[u8]) -> Result<bool>,
) -> Result<bool> {
    let (sql, args) = kept_runs(f);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        if let rusqlite::types::ValueRef::Text(run) = r.get_ref(0)?
            && !each(run)?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// See [`keeps_few_runs`].
const FEW_RUNS: i64 = 8;

/// `[min, max + 1)` of `table`'s integer key `id`. Each in a statement of
/// its own: SQLite answers a lone `min` or `max` from the key's first or
/// last entry, but both in one statement by reading every row (at
/// 5,000,000 decisions, 0.4 s).
pub(super) fn id_range(conn: &Connection, table: &str, id: &str) -> Result<(i64, i64)> {
    let end = |f: &str| -> Result<Option<i64>> {
        Ok(conn.query_row(&format!("SELECT {f}({id}) FROM {table}"), [], |r| r.get(0))?)
    };
    Ok(match (end("min")?, end("max")?) {
        (Some(lo), Some(hi)) => (lo, hi.saturating_add(1)),
        _ => (0, 0),
    })
}

/// `part` over ids `[lo, hi)`: in two halves at once when there is a
/// second connection (one per core), else whole.
pub(super) fn in_two<T: Send>(
    conn: &Connection,
    second: Option<&mut Connection>,
    lo: i64,
    hi: i64,
    part: impl Fn(&Connection, i64, i64) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let Some(other) = second else {
        return Ok(vec![part(conn, lo, hi)?]);
    };
    let mid = lo + (hi - lo) / 2;
    let part = &part;
    std::thread::scope(|s| {
        let upper = s.spawn(move || part(other, mid, hi));
        let lower = part(conn, lo, mid);
        let upper = upper
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        Ok(vec![lower?, upper?])
    })
}

/// A second read-only connection to `conn`'s database, for the other
/// core; none for a database in memory or one that cannot be read in
/// place (a read-only folder: the caller's connection reads it whole, and
/// nothing is printed, which would cross the TUI's screen).
pub(super) fn second_reader(conn: &Connection) -> Option<Connection> {
    let path = conn.path().filter(|p| !p.is_empty())?;
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let second = Connection::open_with_flags(path, flags).ok()?;
    second
        .busy_timeout(std::time::Duration::from_secs(10))
        .ok()?;
    second.execute_batch("PRAGMA cache_size = -2048").ok()?;
    second
        .query_row("SELECT count(*) FROM finding_names WHERE 0", [], |r| {
            r.get::<_, i64>(0)
        })
        .ok()?;
    Some(second)
}
