//! The Findings screen's counts kept (schema 9, `agg_findings`): each run's
//! findings by the hour of their time and kind, counted again for every run
//! with a verdict on a listed day (or that had a counted finding then) and
//! every run listed in `agg_finding_runs`; the catalogue findings at every
//! count. [`counts`] answers the screen from them: whole hours from the
//! rows, the hours a window's edge cuts from the runs' findings themselves.

use std::collections::{HashMap, HashSet, VecDeque};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension};

use super::runs::{RunRead, Writer};
use super::{DAY, NO_DAY, RunName, Source};
use crate::error::Result;
use crate::store::findings::{FindingCounts, KindCount};

/// Microseconds in an hour.
const HOUR: i64 = 3_600_000_000;
/// The hour of a finding with no time.
const NO_HOUR: i64 = i64::MIN;
/// The run of catalogue findings (no run).
const NO_RUN: i64 = -1;

/// Runs read at a time for their findings, and blocks of them announced
/// before they are taken.
const BLOCK: usize = 256;
const BLOCKS_AHEAD: usize = 4;

/// A run's findings: (kind id, time) each.
fn run_findings(conn: &Connection, run: i64, name: &str) -> Result<Vec<(i64, Option<i64>)>> {
    Ok(finding_times(&RunRead::read(conn, name, Some(run))?))
}

/// The findings of a run read: (kind id, time) each.
fn finding_times(run: &RunRead) -> Vec<(i64, Option<i64>)> {
    let mut times: HashMap<i64, Option<i64>> = HashMap::new();
    let mut first: Option<i64> = None;
    for d in &run.decisions {
        times.insert(d.step, d.time);
        if let Some(t) = d.time {
            first = Some(first.map_or(t, |f: i64| f.min(t)));
        }
    }
    run.findings
        .iter()
        .map(|f| {
            let t = match f.step {
                Some(step) => times.get(&step).copied().flatten(),
                None => first,
            };
            (f.kind, t)
        })
        .collect()
}

fn hour_of(t: Option<i64>) -> i64 {
    t.map_or(NO_HOUR, |t| t.div_euclid(HOUR))
}

/// Counts again the findings of the runs with a verdict on a listed day or
/// a counted finding then, of the runs listed by name (`agg_finding_runs`),
/// and the catalogue findings (inside the caller's savepoint). The runs to
/// count are gathered in a temporary table, not in memory: an import of
/// 500,000 runs lists every one of them.
pub(super) fn recount(conn: &Connection, days: &[i64], source: &mut dyn Source) -> Result<()> {
    let mut kept = Writer::new(conn)?;
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS recount_runs (name TEXT PRIMARY KEY, id INTEGER) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS recount_ids (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE IF NOT EXISTS recount_days (day INTEGER PRIMARY KEY);
         DELETE FROM temp.recount_runs; DELETE FROM temp.recount_ids; DELETE FROM temp.recount_days;
         INSERT OR IGNORE INTO temp.recount_runs (name) SELECT run_id FROM agg_finding_runs;",
    )?;
    if !days.is_empty() {
        let mut day_in =
            conn.prepare_cached("INSERT OR IGNORE INTO temp.recount_days VALUES (?1)")?;
        for &day in days {
            day_in.execute([day])?;
        }
        // Runs with a counted finding on a listed day (a run's finding may
        // have lost its decision since): by id. An hour's day is
        // ⌊hour / 24⌋.
        conn.execute(
            "INSERT OR IGNORE INTO temp.recount_ids
             SELECT DISTINCT run FROM agg_findings WHERE run != ?1
               AND (CASE WHEN hour = ?2 THEN ?3 WHEN hour >= 0 THEN hour / 24
                         ELSE (hour + 1) / 24 - 1 END) IN (SELECT day FROM temp.recount_days)",
            rusqlite::params![NO_RUN, NO_HOUR, NO_DAY],
        )?;
        // Runs kept (`agg_runs`) on a listed day: a run may have lost its
        // verdicts there since.
        if kept.on() {
            conn.execute_batch(
                "INSERT OR IGNORE INTO temp.recount_runs (name)
                 SELECT run_id FROM agg_runs WHERE day IN (SELECT day FROM temp.recount_days)",
            )?;
        }
        let mut dated = conn.prepare_cached(
            "INSERT OR IGNORE INTO temp.recount_runs (name)
             SELECT DISTINCT d.run_id FROM ladder_rows l JOIN decision_rows d ON d.id = l.decision_id
             WHERE l.time_us >= ?1 AND l.time_us < ?2",
        )?;
        for &day in days {
            if day == NO_DAY {
                conn.execute_batch(
                    "INSERT OR IGNORE INTO temp.recount_runs (name)
                     SELECT DISTINCT d.run_id FROM ladder_rows l
                     JOIN decision_rows d ON d.id = l.decision_id WHERE l.time_us IS NULL",
                )?;
            } else {
                dated.execute([day * DAY, (day + 1) * DAY])?;
            }
        }
    }
    // Each run by name with its `finding_names` id (none: no findings); then
    // the runs found by id under their name, and the ids whose name is gone
    // (a name is never removed: their findings count undated).
    conn.execute_batch(
        "UPDATE temp.recount_runs SET id = (SELECT n.id FROM finding_names n WHERE n.name = recount_runs.name);
         INSERT OR REPLACE INTO temp.recount_runs (name, id)
         SELECT n.name, n.id FROM temp.recount_ids i JOIN finding_names n ON n.id = i.id
         WHERE i.id NOT IN (SELECT id FROM temp.recount_runs WHERE id IS NOT NULL);",
    )?;
    let nameless: Vec<i64> = conn
        .prepare_cached(
            "SELECT i.id FROM temp.recount_ids i
             WHERE NOT EXISTS (SELECT 1 FROM finding_names n WHERE n.id = i.id) ORDER BY i.id",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut delete = conn.prepare_cached("DELETE FROM agg_findings WHERE run = ?1")?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO agg_findings (run, hour, kind, findings) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut write = |run: i64, found: Vec<(i64, Option<i64>)>| -> Result<()> {
        delete.execute([run])?;
        let mut counts: HashMap<(i64, i64), i64> = HashMap::new();
        for (kind, t) in found {
            *counts.entry((hour_of(t), kind)).or_default() += 1;
        }
        let mut counts: Vec<_> = counts.into_iter().collect();
        counts.sort_unstable();
        for ((hour, kind), n) in counts {
            insert.execute(rusqlite::params![run, hour, kind, n])?;
        }
        Ok(())
    };
    // By name (so that `agg_runs` grows at its end, its pages full), each
    // run read once for its findings and its kept counts (`agg_runs`).
    // The runs are read in blocks, a few blocks announced ahead (other
    // threads may read them meanwhile: `parallel`).
    let mut todo = conn.prepare_cached("SELECT name, id FROM temp.recount_runs ORDER BY name")?;
    let mut rows = todo.query([])?;
    let mut blocks: VecDeque<(u64, Vec<RunName>)> = VecDeque::new();
    let (mut seq, mut more) = (0u64, true);
    loop {
        while more && blocks.len() < BLOCKS_AHEAD {
            let mut block = Vec::with_capacity(BLOCK);
            while block.len() < BLOCK {
                match rows.next()? {
                    Some(r) => block.push((r.get(0)?, r.get(1)?)),
                    None => {
                        more = false;
                        break;
                    }
                }
            }
            if block.is_empty() {
                break;
            }
            source.submit_runs(seq, &block);
            blocks.push_back((seq, block));
            seq += 1;
        }
        let Some((at, block)) = blocks.pop_front() else {
            break;
        };
        let read = source.runs(conn, at, &block)?;
        for ((name, id), run) in block.iter().zip(&read) {
            if let Some(id) = id {
                write(*id, finding_times(run))?;
            }
            kept.write(conn, name, run)?;
        }
    }
    drop(rows);
    drop(todo);
    for id in nameless {
        write(id, run_findings(conn, id, "")?)?;
    }
    let found = conn
        .prepare_cached("SELECT kind, NULL FROM finding_rows WHERE run_id IS NULL")?
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, None)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    write(NO_RUN, found)?;
    conn.execute_batch("DELETE FROM agg_finding_runs")?;
    Ok(())
}

/// Whether the kept rows are up to date: no day or run is listed (and the
/// tables are there).
fn fresh(conn: &Connection) -> bool {
    let fresh = conn
        .query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM agg_dirty)
                AND NOT EXISTS (SELECT 1 FROM agg_finding_runs)",
            [],
            |r| r.get::<_, bool>(0),
        )
        .optional();
    matches!(fresh, Ok(Some(true)))
}

/// The findings (of `kind`, or of every kind) that may have a time in
/// `[since, until)` or none, as SQL over `finding_rows q` returning their
/// ids, with its arguments: those of no run, and of the runs with a kept
/// count (of the kind) in an hour of the window or with no hour. A few
/// runs, where a Findings list or the counts under a filter would
/// otherwise time every finding to find the window's. `None` while a day
/// or run is listed.
pub fn timed_in(
    conn: &Connection,
    kind: Option<&str>,
    since: i64,
    until: i64,
) -> Option<(String, Vec<Sql>)> {
    if !fresh(conn) || until <= since {
        return None;
    }
    let mut args = Vec::new();
    let of_kind = match kind {
        Some(k) => {
            args.push(Sql::Text(k.to_string()));
            "a.kind IN (SELECT id FROM finding_kinds WHERE name = ?) AND"
        }
        None => "",
    };
    args.extend([
        Sql::Integer(NO_HOUR),
        Sql::Integer(since.div_euclid(HOUR)),
        Sql::Integer((until - 1).div_euclid(HOUR)),
    ]);
    Some((
        format!(
            "SELECT q.id FROM finding_rows q WHERE q.run_id IS NULL OR q.run_id IN
               (SELECT a.run FROM agg_findings a
                WHERE {of_kind} (a.hour = ? OR (a.hour >= ? AND a.hour <= ?)))"
        ),
        args,
    ))
}

/// How many findings of a known kind are stored (as
/// `findings::count_findings` with no filter), or `None` while a day or run
/// is listed.
pub fn total(conn: &Connection) -> Result<Option<u64>> {
    if !fresh(conn) {
        return Ok(None);
    }
    let n: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(sum(findings), 0) FROM agg_findings
             WHERE kind IN (SELECT id FROM finding_kinds)",
        )?
        .query_row([], |r| r.get(0))?;
    Ok(Some(n as u64))
}

/// The Findings screen's counts (as `findings::finding_counts` with no
/// filter) from the kept rows, or `None` while a day or run is listed.
pub fn counts(conn: &Connection, since: i64, until: i64) -> Result<Option<FindingCounts>> {
    if !fresh(conn) {
        return Ok(None);
    }
    let prev = since - (until - since);
    let kinds: HashMap<i64, String> = conn
        .prepare_cached("SELECT id, name FROM finding_kinds")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut by_kind: HashMap<i64, (KindCount, HashSet<i64>)> = HashMap::new();
    let mut all_runs: HashSet<i64> = HashSet::new();
    // A finding at `t` of `run` and `kind`, `n` times.
    let mut count = |run: i64, kind: i64, t: Option<i64>, n: u64| {
        let Some(name) = kinds.get(&kind) else {
            return;
        };
        let (k, runs) = by_kind.entry(kind).or_insert_with(|| {
            (
                KindCount {
                    kind: name.clone(),
                    ..KindCount::default()
                },
                HashSet::new(),
            )
        });
        match t {
            None => k.undated += n,
            Some(t) if t >= since && t < until => {
                k.count += n;
                if run != NO_RUN {
                    runs.insert(run);
                    all_runs.insert(run);
                }
            }
            Some(t) if t >= prev && t < since => k.previous += n,
            Some(_) => {}
        }
    };
    // The hours a window's edge cuts: their runs' findings are timed one
    // by one.
    let cut = |h: i64| {
        [prev, since, until]
            .iter()
            .any(|&e| e.rem_euclid(HOUR) != 0 && e.div_euclid(HOUR) == h)
    };
    let mut edge: HashMap<i64, HashSet<i64>> = HashMap::new();
    {
        let mut s = conn.prepare_cached("SELECT run, hour, kind, findings FROM agg_findings")?;
        let mut rows = s.query([])?;
        while let Some(r) = rows.next()? {
            let (run, hour, kind, n): (i64, i64, i64, i64) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            if hour == NO_HOUR {
                count(run, kind, None, n.max(0) as u64);
            } else if cut(hour) {
                edge.entry(run).or_default().insert(hour);
            } else {
                // Every finding of the hour is on the same side of each edge.
                count(run, kind, Some(hour * HOUR), n.max(0) as u64);
            }
        }
    }
    let mut name_of = conn.prepare_cached("SELECT name FROM finding_names WHERE id = ?1")?;
    for (run, hours) in edge {
        let Some(name) = name_of
            .query_row([run], |r| r.get::<_, String>(0))
            .optional()?
        else {
            continue;
        };
        for (kind, t) in run_findings(conn, run, &name)? {
            if hours.contains(&hour_of(t)) {
                count(run, kind, t, 1);
            }
        }
    }
    let rows = crate::store::findings::kind_rows(by_kind.into_values());
    Ok(Some(FindingCounts {
        rows,
        runs: all_runs.len() as u64,
    }))
}
