//! Counts kept for the screens (schema 8, `agg_*`): the stored verdicts
//! counted by day, catalogue, phase and model, and the same over all days.
//! Writes to `ladder_rows`, `decision_rows` and `runs` list the days they
//! touch in `agg_dirty` (triggers); [`refresh`], at the end of an import or
//! a classification, counts those days again and moves the all-days rows by
//! the difference. Readers ([`read`]) use the counts only while no day is
//! listed, and only for filters they can answer exactly; anything else is
//! counted from the verdicts as before. Schema 9 stores the names of the
//! tool, reason and first-decision counts as `agg_names` ids, a key's token
//! counts packed in one blob ([`tokens`]), and the findings by run, hour
//! and kind for the Findings screen ([`findings`]).

use rustc_hash::FxHashMap as HashMap;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use crate::error::Result;

pub mod audit;
pub mod findings;
pub mod parallel;
pub mod read;
pub mod run_read;
pub(crate) mod runs;
mod scan;
pub(crate) mod tokens;

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
    /// The dims stored as `agg_names` ids (a negative id stands for itself).
    pub named: &'static [bool],
    pub counts: &'static [&'static str],
}

pub(super) const RUNGS: usize = 0;
pub(super) const TALLIES: usize = 1;
pub(super) const TOKENS: usize = 2;
pub(super) const TOOLS: usize = 3;
pub(super) const REASONS: usize = 4;
pub(super) const FIRSTS: usize = 5;
pub(super) const AUDIT: usize = 6;
pub(super) const CONFUSIONS: usize = 7;

pub(super) const KINDS: [Kind; 8] = [
    Kind {
        table: "agg_rungs",
        dims: &["rung", "boundary", "labelled"],
        named: &[false, false, false],
        counts: &["decisions"],
    },
    Kind {
        table: "agg_tallies",
        dims: &["retrieval_k"],
        named: &[false],
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
        named: &[false],
        counts: &["decisions"],
    },
    Kind {
        table: "agg_tools",
        dims: &["tool"],
        named: &[true],
        counts: &["visible", "selected", "wrongly", "refused", "controlled"],
    },
    Kind {
        table: "agg_reasons",
        dims: &["tool", "reason"],
        named: &[true, true],
        counts: &["decisions"],
    },
    Kind {
        table: "agg_firsts",
        dims: &["task_id", "selected"],
        named: &[true, true],
        counts: &["decisions"],
    },
    // Packed, one blob per key (`audit`).
    Kind {
        table: "agg_audit",
        dims: &[
            "what",
            "name",
            "ceiling",
            "open_world",
            "retrieval",
            "recorded",
        ],
        named: &[false, true, false, false, false, false],
        counts: &["decisions"],
    },
    // SELECTION failures by acceptable list (its JSON text, names sorted
    // and each once) and the tool selected instead (schema 12).
    Kind {
        table: "agg_confusions",
        dims: &["acceptable", "selected"],
        named: &[true, true],
        counts: &["decisions"],
    },
];

/// Whether a kind keeps its rows in one blob per key.
fn packed(kind: &Kind) -> bool {
    kind.table == KINDS[TOKENS].table || kind.table == KINDS[AUDIT].table
}

/// What decisions are counted under besides the day: catalogue id, phase,
/// model, and whether the verdict has no run (schema 15: its decision or
/// run not stored).
pub(super) type Group = (Option<i64>, Option<String>, Option<String>, bool);

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
/// see `import::begin_touched`), and those runs for their findings, then
/// counts the listed days again.
pub fn refresh_touched(conn: &Connection) -> Result<()> {
    let listed = list_touched(conn)?;
    refresh_days(conn, &listed, DELTA_HELD)
}

/// Lists the days of the verdicts of every run an import or a
/// classification wrote, and those runs for their findings, as
/// [`refresh_touched`] does, without counting them; returns the days that
/// were listed before (by triggers), whose runs [`parallel::refresh_committed`]
/// looks up for their findings.
pub fn list_touched(conn: &Connection) -> Result<Vec<i64>> {
    // The findings of the runs listed here are counted again by run; only
    // the days listed before (by triggers) need their runs looked up.
    let listed = dirty_days(conn)?;
    conn.execute_batch(&format!(
        "INSERT OR IGNORE INTO agg_dirty
         SELECT DISTINCT CASE WHEN l.time_us IS NULL THEN {NO_DAY}
             WHEN l.time_us >= 0 THEN l.time_us / {DAY}
             ELSE (l.time_us + 1) / {DAY} - 1 END
         FROM ladder_rows l
         WHERE l.decision_id IN (SELECT id FROM decision_rows WHERE run_id IN
             (SELECT run_id FROM temp.touched_runs UNION SELECT run_id FROM temp.classified_runs));
         INSERT OR IGNORE INTO agg_finding_runs
         SELECT run_id FROM temp.touched_runs UNION SELECT run_id FROM temp.classified_runs;"
    ))?;
    Ok(listed)
}

/// Rewrites the counts kept in `WITHOUT ROWID` tables (`agg_runs`,
/// `agg_tools`, ...) packed: written as an import counts them, their pages
/// are left an eighth empty, as any b-tree of keys grown by inserts is;
/// copied whole into an empty table of the same shape, SQLite fills them
/// (its transfer of one table into another, as `VACUUM` does). Each is
/// copied to a temporary table of the same definition and indexes and
/// back; the pages it held go to the free list, for whatever the
/// transaction writes next. The rows are the same whether or not SQLite
/// transfers them (a definition it cannot copy is copied row by row).
pub(crate) fn pack(conn: &Connection) -> Result<()> {
    let tables: Vec<(String, String)> = conn
        .prepare(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'table'
             AND substr(name, 1, 4) = 'agg_' AND sql LIKE '%WITHOUT ROWID%' ORDER BY name",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    const COPY: &str = "rung_pack";
    for (name, sql) in tables {
        let Some(rest) = sql.strip_prefix(&format!("CREATE TABLE {name} ")) else {
            continue;
        };
        let held: bool = conn.query_row(
            &format!("SELECT EXISTS (SELECT 1 FROM main.\"{name}\")"),
            [],
            |r| r.get(0),
        )?;
        if !held {
            continue;
        }
        let mut ddl = format!("CREATE TEMP TABLE {COPY} {rest};");
        let indexes: Vec<(String, String)> = conn
            .prepare(
                "SELECT name, sql FROM sqlite_schema
                 WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY name",
            )?
            .query_map([&name], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (i, (index, sql)) in indexes.iter().enumerate() {
            if let Some(rest) = sql.strip_prefix(&format!("CREATE INDEX {index} ON {name} ")) {
                ddl.push_str(&format!("CREATE INDEX temp.{COPY}_{i} ON {COPY} {rest};"));
            }
        }
        conn.execute_batch(&format!(
            "{ddl}
             INSERT INTO temp.{COPY} SELECT * FROM main.\"{name}\";
             DELETE FROM main.\"{name}\";
             INSERT INTO main.\"{name}\" SELECT * FROM temp.{COPY};
             DROP TABLE temp.{COPY};"
        ))?;
    }
    Ok(())
}

/// Lists every day with a verdict and counts them all again (the upgrade
/// to schema 10, whose tool audit counts start empty), the findings
/// left as they are.
pub(crate) fn recount_every_day(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "INSERT OR IGNORE INTO agg_dirty
         SELECT DISTINCT CASE WHEN time_us IS NULL THEN {NO_DAY}
             WHEN time_us >= 0 THEN time_us / {DAY}
             ELSE (time_us + 1) / {DAY} - 1 END
         FROM ladder_rows"
    ))?;
    refresh_days(conn, &[], DELTA_HELD)
}

fn dirty_days(conn: &Connection) -> Result<Vec<i64>> {
    Ok(conn
        .prepare_cached("SELECT day FROM agg_dirty")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?)
}

/// Counts the listed days (and runs) again (inside the caller's
/// transaction), and the catalogue findings always. A day that cannot be
/// counted (a damaged stored row) stays listed, so that readers count the
/// long way and say what is wrong; the caller's write goes on.
pub fn refresh(conn: &Connection) -> Result<()> {
    refresh_holding(conn, DELTA_HELD)
}

/// [`refresh`], moving the all-days rows whenever more than `held` of
/// their differences are waiting (tests move them after every day).
pub fn refresh_holding(conn: &Connection, held: usize) -> Result<()> {
    let dirty = dirty_days(conn)?;
    refresh_days(conn, &dirty, held)
}

/// [`refresh`], looking up the runs with verdicts on `finding_days` (of the
/// listed days) for their findings.
fn refresh_days(conn: &Connection, finding_days: &[i64], held: usize) -> Result<()> {
    let dirty = dirty_days(conn)?;
    refresh_days_with(conn, &dirty, finding_days, held, &mut Here::default())
}

/// A run to count again by name, with its `finding_names` id.
type RunName = (String, Option<i64>);

/// Where a recount's reads are made: the days' verdicts counted, the runs
/// read for their findings. Runs are asked for in blocks, each announced
/// ([`Source::submit_runs`]) a few blocks before it is taken.
trait Source {
    /// A day's counts by group.
    fn day(&mut self, conn: &Connection, day: i64) -> Result<Vec<(Group, scan::Counts)>>;
    /// Block `seq` (numbered from 0) will be asked for.
    fn submit_runs(&mut self, seq: u64, names: &[RunName]);
    /// Block `seq`'s runs read, in its order.
    fn runs(
        &mut self,
        conn: &Connection,
        seq: u64,
        names: &[RunName],
    ) -> Result<Vec<runs::RunRead>>;
}

/// Every read on the connection counting, when asked.
#[derive(Default)]
struct Here {
    scanner: Option<scan::Scanner>,
}

/// Reads runs for their findings and counts.
fn read_runs(conn: &Connection, names: &[RunName]) -> Result<Vec<runs::RunRead>> {
    names
        .iter()
        .map(|(name, id)| runs::RunRead::read(conn, name, *id))
        .collect()
}

impl Source for Here {
    fn day(&mut self, conn: &Connection, day: i64) -> Result<Vec<(Group, scan::Counts)>> {
        let scanner = match &mut self.scanner {
            Some(s) => s,
            None => self.scanner.insert(scan::Scanner::new(conn)?),
        };
        scanner.day(conn, (day != NO_DAY).then_some(day))
    }

    fn submit_runs(&mut self, _seq: u64, _names: &[RunName]) {}

    fn runs(
        &mut self,
        conn: &Connection,
        _seq: u64,
        names: &[RunName],
    ) -> Result<Vec<runs::RunRead>> {
        read_runs(conn, names)
    }
}

/// [`refresh_days`] with the days `dirty` (as listed) and the runs read
/// through `source`.
fn refresh_days_with(
    conn: &Connection,
    dirty: &[i64],
    finding_days: &[i64],
    held: usize,
    source: &mut dyn Source,
) -> Result<()> {
    conn.execute_batch("SAVEPOINT agg")?;
    match rebuild(conn, dirty, finding_days, held, source) {
        Ok(()) => conn.execute_batch("RELEASE agg")?,
        Err(e) => {
            tracing::debug!(error = %e, "the counts were not refreshed; the days stay listed");
            conn.execute_batch("ROLLBACK TO agg; RELEASE agg")?
        }
    }
    Ok(())
}

fn rebuild(
    conn: &Connection,
    dirty: &[i64],
    finding_days: &[i64],
    held: usize,
    source: &mut dyn Source,
) -> Result<()> {
    if !dirty.is_empty() {
        rebuild_days(conn, dirty, held, source)?;
    }
    // The runs' findings after the days (the tables apart, either order
    // writes the same rows): `source` hands out one kind of job at a time.
    let start = std::time::Instant::now();
    findings::recount(conn, finding_days, source)?;
    tracing::debug!(
        ms = start.elapsed().as_millis() as u64,
        "findings counted by run"
    );
    Ok(())
}

fn rebuild_days(
    conn: &Connection,
    dirty: &[i64],
    held: usize,
    source: &mut dyn Source,
) -> Result<()> {
    let mut names = AggNames::load(conn)?;
    let mut wholes = whole_keys(conn)?;
    // The all-days rows move by (new - old) of the days counted again.
    let mut delta: Vec<HashMap<Group, Rows>> =
        (0..KINDS.len()).map(|_| HashMap::default()).collect();
    for &day in dirty {
        let counted = source.day(conn, day)?;
        let day = (day != NO_DAY).then_some(day);
        for (id, group) in day_keys(conn, day)? {
            for (k, kind) in KINDS.iter().enumerate() {
                let rows = read_rows(conn, &names, kind, id)?;
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
        for (group, counts) in counted {
            let id = new_key(conn, false, day, &group)?;
            for (k, rows) in counts.into_iter().enumerate() {
                write_rows(conn, &mut names, &KINDS[k], id, &rows)?;
                let d = delta[k].entry(group.clone()).or_default();
                for (dims, c) in rows {
                    add(d, dims, &c);
                }
            }
        }
        // The all-days rows take a difference in parts when it grows
        // large (every task's first decisions over many days), so that
        // memory stays bounded however many days an import touched.
        let waiting: usize = delta
            .iter()
            .flat_map(|by_group| by_group.values())
            .map(|rows| rows.len())
            .sum();
        if waiting > held {
            move_delta(conn, &mut names, &mut wholes, &mut delta)?;
        }
    }
    move_delta(conn, &mut names, &mut wholes, &mut delta)?;
    for kind in KINDS.iter() {
        if packed(kind) {
            // Packed: `move_rows` leaves out zero counts and empty keys.
            continue;
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
              AND d.phase IS agg_keys.phase AND d.model IS agg_keys.model
              AND d.runless = agg_keys.runless);
         DELETE FROM agg_tokens WHERE key NOT IN (SELECT id FROM agg_keys);
         DELETE FROM agg_audit WHERE key NOT IN (SELECT id FROM agg_keys);
         DELETE FROM agg_dirty;",
    )?;
    Ok(())
}

/// `agg_names`, both ways (a few thousand names).
struct AggNames {
    ids: HashMap<String, i64>,
    names: HashMap<i64, String>,
}

impl AggNames {
    fn load(conn: &Connection) -> Result<AggNames> {
        let mut out = AggNames {
            ids: HashMap::default(),
            names: HashMap::default(),
        };
        let mut s = conn.prepare_cached("SELECT id, name FROM agg_names")?;
        let mut rows = s.query([])?;
        while let Some(r) = rows.next()? {
            let (id, name): (i64, String) = (r.get(0)?, r.get(1)?);
            out.ids.insert(name.clone(), id);
            out.names.insert(id, name);
        }
        Ok(out)
    }

    fn id(&mut self, conn: &Connection, name: &str) -> Result<i64> {
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        conn.prepare_cached("INSERT INTO agg_names (name) VALUES (?1)")?
            .execute([name])?;
        let id = conn.last_insert_rowid();
        self.ids.insert(name.to_string(), id);
        self.names.insert(id, name.to_string());
        Ok(id)
    }

    /// A stored dim: an id named (a negative one stands for itself).
    fn dim(&self, id: i64) -> rusqlite::Result<Dim> {
        if id < 0 {
            return Ok(Dim::Int(id));
        }
        match self.names.get(&id) {
            Some(n) => Ok(Dim::Text(n.clone())),
            None => Err(rusqlite::Error::QueryReturnedNoRows),
        }
    }

    /// A dim as stored.
    fn store(&mut self, conn: &Connection, named: bool, d: &Dim) -> Result<Sql> {
        Ok(match (named, d) {
            (true, Dim::Text(t)) => Sql::Integer(self.id(conn, t)?),
            _ => d.sql(),
        })
    }
}

fn whole_keys(conn: &Connection) -> Result<HashMap<Group, i64>> {
    let mut out = HashMap::default();
    let mut s = conn.prepare_cached(
        "SELECT id, catalogue, phase, model, runless FROM agg_keys WHERE whole = 1",
    )?;
    let mut rows = s.query([])?;
    while let Some(r) = rows.next()? {
        out.insert((r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?), r.get(0)?);
    }
    Ok(out)
}

fn day_keys(conn: &Connection, day: Option<i64>) -> Result<Vec<(i64, Group)>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, catalogue, phase, model, runless FROM agg_keys WHERE whole = 0 AND day IS ?1",
        )?
        .query_map([day], |r| {
            Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        })?
        .collect::<rusqlite::Result<_>>()?)
}

fn new_key(conn: &Connection, whole: bool, day: Option<i64>, g: &Group) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO agg_keys (whole, day, catalogue, phase, model, runless)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(rusqlite::params![whole, day, g.0, g.1, g.2, g.3])?;
    Ok(conn.last_insert_rowid())
}

fn read_rows(conn: &Connection, names: &AggNames, kind: &Kind, key: i64) -> Result<Rows> {
    if packed(kind) {
        let blob: Option<Vec<u8>> = conn
            .prepare_cached(&format!("SELECT counts FROM {} WHERE key = ?1", kind.table))?
            .query_row([key], |r| r.get(0))
            .optional()?;
        let rows = match blob {
            None => return Ok(Rows::default()),
            Some(b) if kind.table == KINDS[AUDIT].table => audit::rows(&b, names),
            Some(b) => tokens::rows(&b),
        };
        return rows.ok_or_else(|| {
            crate::error::Error::usage(format!("{} row key {key}: not packed counts", kind.table))
        });
    }
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
            .map(|i| match kind.named[i] {
                true => names.dim(r.get(i)?),
                false => Dim::read(r.get_ref(i)?),
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let counts = (0..kind.counts.len())
            .map(|i| r.get(n + i))
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        out.insert(dims, counts);
    }
    Ok(out)
}

/// How many all-days differences [`rebuild`] holds before it moves them.
const DELTA_HELD: usize = 65_536;

/// Moves the all-days rows by the differences held in `delta` (and
/// empties it); moving in parts adds up to moving once.
fn move_delta(
    conn: &Connection,
    names: &mut AggNames,
    wholes: &mut HashMap<Group, i64>,
    delta: &mut [HashMap<Group, Rows>],
) -> Result<()> {
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
            move_rows(conn, names, kind, id, rows)?;
        }
    }
    Ok(())
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

fn bind(
    conn: &Connection,
    names: &mut AggNames,
    kind: &Kind,
    key: i64,
    dims: &[Dim],
    counts: &[i64],
) -> Result<Vec<Sql>> {
    let mut args = vec![Sql::Integer(key)];
    for (d, &named) in dims.iter().zip(kind.named) {
        args.push(names.store(conn, named, d)?);
    }
    args.extend(counts.iter().map(|&c| Sql::Integer(c)));
    Ok(args)
}

fn write_packed(
    conn: &Connection,
    names: &mut AggNames,
    kind: &Kind,
    key: i64,
    rows: &Rows,
) -> Result<()> {
    let packed = if kind.table == KINDS[AUDIT].table {
        audit::pack(conn, names, rows)?
    } else {
        tokens::pack_rows(rows)
    };
    if packed.is_empty() {
        conn.prepare_cached(&format!("DELETE FROM {} WHERE key = ?1", kind.table))?
            .execute([key])?;
    } else {
        conn.prepare_cached(&format!(
            "INSERT OR REPLACE INTO {} (key, counts) VALUES (?1, ?2)",
            kind.table
        ))?
        .execute(rusqlite::params![key, packed])?;
    }
    Ok(())
}

fn write_rows(
    conn: &Connection,
    names: &mut AggNames,
    kind: &Kind,
    key: i64,
    rows: &Rows,
) -> Result<()> {
    if packed(kind) {
        return write_packed(conn, names, kind, key, rows);
    }
    let mut s = conn.prepare_cached(&insert_sql(kind, false))?;
    for (dims, counts) in rows {
        s.execute(params_from_iter(bind(
            conn, names, kind, key, dims, counts,
        )?))?;
    }
    Ok(())
}

fn move_rows(
    conn: &Connection,
    names: &mut AggNames,
    kind: &Kind,
    key: i64,
    rows: Rows,
) -> Result<()> {
    if packed(kind) {
        let mut all = read_rows(conn, names, kind, key)?;
        for (dims, c) in rows {
            add(&mut all, dims, &c);
        }
        return write_packed(conn, names, kind, key, &all);
    }
    let mut s = conn.prepare_cached(&insert_sql(kind, true))?;
    for (dims, counts) in rows {
        s.execute(params_from_iter(bind(
            conn, names, kind, key, &dims, &counts,
        )?))?;
    }
    Ok(())
}

/// Packs the (key, tokens, decisions) rows of schema 8 (`agg_tokens_v8`)
/// into schema 9's blobs, and drops them (the upgrade to schema 9).
pub(crate) fn pack_tokens_v8(conn: &Connection) -> Result<()> {
    let mut by_key: HashMap<i64, Vec<(i64, i64)>> = HashMap::default();
    {
        let mut s = conn.prepare("SELECT key, tokens, decisions FROM agg_tokens_v8")?;
        let mut rows = s.query([])?;
        while let Some(r) = rows.next()? {
            by_key
                .entry(r.get(0)?)
                .or_default()
                .push((r.get(1)?, r.get(2)?));
        }
    }
    let mut s = conn.prepare("INSERT INTO agg_tokens (key, counts) VALUES (?1, ?2)")?;
    for (key, pairs) in by_key {
        let packed = tokens::pack(pairs);
        if !packed.is_empty() {
            s.execute(rusqlite::params![key, packed])?;
        }
    }
    conn.execute_batch("DROP TABLE agg_tokens_v8")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 20,000 runs counted in key order into `agg_runs` (its two partial
    /// indexes too), then packed: the same rows, the indexes sound, and
    /// the pages they no longer need on the free list.
    #[test]
    fn packing_keeps_the_rows_and_frees_pages() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "PRAGMA page_size = 16384;
             CREATE TABLE agg_runs (
                 run_id TEXT PRIMARY KEY, day INTEGER, model INTEGER, counts BLOB NOT NULL
             ) WITHOUT ROWID;
             CREATE INDEX agg_runs_long ON agg_runs (run_id) WHERE day IS NULL;
             CREATE INDEX agg_runs_day ON agg_runs (day) WHERE day IS NOT NULL;
             CREATE TABLE agg_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
             INSERT INTO agg_names (name) VALUES ('b'), ('a');
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
             INSERT INTO agg_runs
             SELECT printf('syn-%07d', i), CASE WHEN i % 7 = 0 THEN NULL ELSE i / 700 END,
                    i % 3, zeroblob(30) FROM n;",
        )
        .unwrap();
        let all = |sql: &str| -> Vec<String> {
            let mut s = conn.prepare(sql).unwrap();
            s.query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        let rows = "SELECT run_id || ' ' || ifnull(day, '-') || ' ' || model || ' ' || hex(counts)
                    FROM agg_runs ORDER BY run_id";
        let before = all(rows);
        let names = all("SELECT id || name FROM agg_names ORDER BY id");
        let pages = |p: &str| -> i64 { conn.query_row(p, [], |r| r.get(0)).unwrap() };
        assert_eq!(pages("PRAGMA freelist_count"), 0);
        let used = pages("PRAGMA page_count");

        conn.execute_batch("BEGIN").unwrap();
        pack(&conn).unwrap();
        conn.execute_batch("COMMIT").unwrap();

        assert_eq!(all(rows), before);
        assert_eq!(before.len(), 20000);
        // A rowid table is left alone (its ids are what other rows hold).
        assert_eq!(all("SELECT id || name FROM agg_names ORDER BY id"), names);
        assert_eq!(all("PRAGMA integrity_check"), ["ok"]);
        assert_eq!(
            all("SELECT count(*) || '' FROM agg_runs INDEXED BY agg_runs_day WHERE day >= 0"),
            ["17143"]
        );
        assert_eq!(
            all("SELECT count(*) || '' FROM agg_runs INDEXED BY agg_runs_long WHERE day IS NULL"),
            ["2857"]
        );
        assert_eq!(pages("PRAGMA page_count"), used);
        let freed = pages("PRAGMA freelist_count");
        // (An eighth of the pages was left empty: 10 of 100 here.)
        assert!(freed * 100 >= used * 8, "{freed} of {used} pages freed");
        // Nothing of the copy is left behind.
        assert_eq!(all("SELECT count(*) || '' FROM temp.sqlite_schema"), ["0"]);
    }
}
