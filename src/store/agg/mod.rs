//! Counts kept for the screens (schema 8, `agg_*`): the stored verdicts
//! counted by day, catalogue, phase and model, and the same over all days.
//! Writes to `ladder_rows`, `decision_rows` and `runs` list the days they
//! touch in `agg_dirty` (triggers); [`refresh`], at the end of an import or
//! a classification, counts those days again and moves the all-days rows by
//! the difference. Readers ([`read`]) use the counts only while no day is
//! listed, and only for filters they can answer exactly; anything else is
//! counted from the verdicts as before.

use rustc_hash::FxHashMap as HashMap;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use crate::error::Result;

pub mod read;
mod scan;

/// Microseconds in a day.
pub(super) const DAY: i64 = 86_400_000_000;
/// `agg_dirty`'s day for decisions without a time.
const NO_DAY: i64 = -2_147_483_648;
/// A NULL boundary or retrieval k as stored (key columns are never NULL).
pub(super) const NO_BOUNDARY: i64 = -1;
pub(super) const NO_K: i64 = i64::MIN;
/// No selected tool (a first decision that called nothing), as stored.
pub(super) const NO_SELECTED: i64 = -1;

/// A key or count column's value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Dim {
    Int(i64),
    Text(String),
}

impl Dim {
    fn sql(&self) -> Sql {
        match self {
            Dim::Int(i) => Sql::Integer(*i),
            Dim::Text(t) => Sql::Text(t.clone()),
        }
    }

    fn read(v: rusqlite::types::ValueRef<'_>) -> rusqlite::Result<Dim> {
        use rusqlite::types::ValueRef;
        Ok(match v {
            ValueRef::Integer(i) => Dim::Int(i),
            ValueRef::Text(t) => Dim::Text(String::from_utf8_lossy(t).into_owned()),
            other => {
                return Err(rusqlite::types::FromSqlError::InvalidType).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(0, other.data_type(), Box::new(e))
                });
            }
        })
    }
}

/// One count table: its own key columns and its counts.
pub(super) struct Kind {
    pub table: &'static str,
    pub dims: &'static [&'static str],
    pub counts: &'static [&'static str],
}

pub(super) const RUNGS: usize = 0;
pub(super) const TALLIES: usize = 1;
pub(super) const TOKENS: usize = 2;
pub(super) const TOOLS: usize = 3;
pub(super) const REASONS: usize = 4;
pub(super) const FIRSTS: usize = 5;

pub(super) const KINDS: [Kind; 6] = [
    Kind {
        table: "agg_rungs",
        dims: &["rung", "boundary", "labelled"],
        counts: &["decisions"],
    },
    Kind {
        table: "agg_tallies",
        dims: &["retrieval_k"],
        counts: &[
            "decisions",
            "coverage_of",
            "coverage",
            "exposure_of",
            "exposure",
            "recall_of",
            "recall",
            "selection_of",
            "selection",
            "abstention_of",
            "abstention",
            "no_call_of",
            "no_call",
            "violation_of",
            "violation",
            "first_call_of",
            "first_call",
            "recovery_of",
            "recovery",
        ],
    },
    Kind {
        table: "agg_tokens",
        dims: &["tokens"],
        counts: &["decisions"],
    },
    Kind {
        table: "agg_tools",
        dims: &["tool"],
        counts: &["visible", "selected", "wrongly", "refused", "controlled"],
    },
    Kind {
        table: "agg_reasons",
        dims: &["tool", "reason"],
        counts: &["decisions"],
    },
    Kind {
        table: "agg_firsts",
        dims: &["task_id", "selected"],
        counts: &["decisions"],
    },
];

/// What decisions are counted under besides the day: catalogue id, phase,
/// model.
pub(super) type Group = (Option<i64>, Option<String>, Option<String>);

/// Counts of one kind: its key columns → counts.
pub(super) type Rows = HashMap<Vec<Dim>, Vec<i64>>;

/// Adds `counts` to the row `dims` of `rows`.
pub(super) fn add(rows: &mut Rows, dims: Vec<Dim>, counts: &[i64]) {
    let row = rows.entry(dims).or_insert_with(|| vec![0; counts.len()]);
    for (a, b) in row.iter_mut().zip(counts) {
        *a += b;
    }
}

/// Lists the days of the verdicts of every run an import or a
/// classification wrote (`temp.touched_runs` and `temp.classified_runs`,
/// see `import::begin_touched`), then counts the listed days again.
pub fn refresh_touched(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "INSERT OR IGNORE INTO agg_dirty
         SELECT DISTINCT CASE WHEN l.time_us IS NULL THEN {NO_DAY}
             WHEN l.time_us >= 0 THEN l.time_us / {DAY}
             ELSE (l.time_us + 1) / {DAY} - 1 END
         FROM ladder_rows l
         WHERE l.decision_id IN (SELECT id FROM decision_rows WHERE run_id IN
             (SELECT run_id FROM temp.touched_runs UNION SELECT run_id FROM temp.classified_runs))"
    ))?;
    refresh(conn)
}

/// Counts the listed days again (inside the caller's transaction). A day
/// that cannot be counted (a damaged stored row) stays listed, so that
/// readers count the long way and say what is wrong; the caller's write
/// goes on.
pub fn refresh(conn: &Connection) -> Result<()> {
    let dirty: Vec<i64> = conn
        .prepare_cached("SELECT day FROM agg_dirty")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if dirty.is_empty() {
        return Ok(());
    }
    conn.execute_batch("SAVEPOINT agg")?;
    match rebuild(conn, &dirty) {
        Ok(()) => conn.execute_batch("RELEASE agg")?,
        Err(_) => conn.execute_batch("ROLLBACK TO agg; RELEASE agg")?,
    }
    Ok(())
}

fn rebuild(conn: &Connection, dirty: &[i64]) -> Result<()> {
    let mut wholes = whole_keys(conn)?;
    // The all-days rows move by (new - old) of the days counted again.
    let mut delta: Vec<HashMap<Group, Rows>> =
        (0..KINDS.len()).map(|_| HashMap::default()).collect();
    let mut scanner = scan::Scanner::new(conn)?;
    for &day in dirty {
        let day = (day != NO_DAY).then_some(day);
        for (id, group) in day_keys(conn, day)? {
            for (k, kind) in KINDS.iter().enumerate() {
                let rows = read_rows(conn, kind, id)?;
                let d = delta[k].entry(group.clone()).or_default();
                for (dims, counts) in rows {
                    let neg: Vec<i64> = counts.iter().map(|c| -c).collect();
                    add(d, dims, &neg);
                }
                conn.prepare_cached(&format!("DELETE FROM {} WHERE key = ?1", kind.table))?
                    .execute([id])?;
            }
            conn.prepare_cached("DELETE FROM agg_keys WHERE id = ?1")?
                .execute([id])?;
        }
        for (group, counts) in scanner.day(conn, day)? {
            let id = new_key(conn, false, day, &group)?;
            for (k, rows) in counts.into_iter().enumerate() {
                write_rows(conn, &KINDS[k], id, &rows)?;
                let d = delta[k].entry(group.clone()).or_default();
                for (dims, c) in rows {
                    add(d, dims, &c);
                }
            }
        }
    }
    for (k, kind) in KINDS.iter().enumerate() {
        for (group, rows) in std::mem::take(&mut delta[k]) {
            let id = match wholes.get(&group) {
                Some(&id) => id,
                None => {
                    let id = new_key(conn, true, None, &group)?;
                    wholes.insert(group.clone(), id);
                    id
                }
            };
            let rows: Rows = rows
                .into_iter()
                .filter(|(_, c)| c.iter().any(|&n| n != 0))
                .collect();
            move_rows(conn, kind, id, rows)?;
        }
        let zero: Vec<String> = kind.counts.iter().map(|c| format!("{c} = 0")).collect();
        conn.execute(
            &format!(
                "DELETE FROM {} WHERE key IN (SELECT id FROM agg_keys WHERE whole = 1) AND {}",
                kind.table,
                zero.join(" AND ")
            ),
            [],
        )?;
    }
    conn.execute_batch(
        "DELETE FROM agg_keys WHERE whole = 1 AND NOT EXISTS
             (SELECT 1 FROM agg_keys d WHERE d.whole = 0 AND d.catalogue IS agg_keys.catalogue
              AND d.phase IS agg_keys.phase AND d.model IS agg_keys.model);
         DELETE FROM agg_dirty;",
    )?;
    Ok(())
}

fn whole_keys(conn: &Connection) -> Result<HashMap<Group, i64>> {
    let mut out = HashMap::default();
    let mut s =
        conn.prepare_cached("SELECT id, catalogue, phase, model FROM agg_keys WHERE whole = 1")?;
    let mut rows = s.query([])?;
    while let Some(r) = rows.next()? {
        out.insert((r.get(1)?, r.get(2)?, r.get(3)?), r.get(0)?);
    }
    Ok(out)
}

fn day_keys(conn: &Connection, day: Option<i64>) -> Result<Vec<(i64, Group)>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, catalogue, phase, model FROM agg_keys WHERE whole = 0 AND day IS ?1",
        )?
        .query_map([day], |r| {
            Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
        })?
        .collect::<rusqlite::Result<_>>()?)
}

fn new_key(conn: &Connection, whole: bool, day: Option<i64>, g: &Group) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO agg_keys (whole, day, catalogue, phase, model) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(rusqlite::params![whole, day, g.0, g.1, g.2])?;
    Ok(conn.last_insert_rowid())
}

fn read_rows(conn: &Connection, kind: &Kind, key: i64) -> Result<Rows> {
    let cols: Vec<&str> = kind.dims.iter().chain(kind.counts).copied().collect();
    let mut s = conn.prepare_cached(&format!(
        "SELECT {} FROM {} WHERE key = ?1",
        cols.join(", "),
        kind.table
    ))?;
    let mut rows = s.query([key])?;
    let mut out = Rows::default();
    let n = kind.dims.len();
    while let Some(r) = rows.next()? {
        let dims = (0..n)
            .map(|i| Dim::read(r.get_ref(i)?))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let counts = (0..kind.counts.len())
            .map(|i| r.get(n + i))
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        out.insert(dims, counts);
    }
    Ok(out)
}

fn insert_sql(kind: &Kind, upsert: bool) -> String {
    let cols: Vec<&str> = kind.dims.iter().chain(kind.counts).copied().collect();
    let marks = vec!["?"; cols.len() + 1].join(", ");
    let mut sql = format!(
        "INSERT INTO {} (key, {}) VALUES ({marks})",
        kind.table,
        cols.join(", ")
    );
    if upsert {
        let set: Vec<String> = kind
            .counts
            .iter()
            .map(|c| format!("{c} = {c} + excluded.{c}"))
            .collect();
        sql.push_str(&format!(
            " ON CONFLICT (key, {}) DO UPDATE SET {}",
            kind.dims.join(", "),
            set.join(", ")
        ));
    }
    sql
}

fn bind(key: i64, dims: &[Dim], counts: &[i64]) -> Vec<Sql> {
    let mut args = vec![Sql::Integer(key)];
    args.extend(dims.iter().map(Dim::sql));
    args.extend(counts.iter().map(|&c| Sql::Integer(c)));
    args
}

fn write_rows(conn: &Connection, kind: &Kind, key: i64, rows: &Rows) -> Result<()> {
    let mut s = conn.prepare_cached(&insert_sql(kind, false))?;
    for (dims, counts) in rows {
        s.execute(params_from_iter(bind(key, dims, counts)))?;
    }
    Ok(())
}

fn move_rows(conn: &Connection, kind: &Kind, key: i64, rows: Rows) -> Result<()> {
    let mut s = conn.prepare_cached(&insert_sql(kind, true))?;
    for (dims, counts) in rows {
        s.execute(params_from_iter(bind(key, &dims, &counts)))?;
    }
    Ok(())
}
