//! Runs: the runs report, keyset pages of runs in every sort order (with
//! the key a row sorts by), the fuzzy filter's scan and one run's header.

use std::ops::ControlFlow;
use std::sync::LazyLock;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, Row, params_from_iter};

use super::decode::{Stored, Table};
use super::filter_sql::{FilterSql, run_list_clause, runs_where};
use super::halves::{id_range, in_two, keeps_few_runs, run_count, second_reader};
use super::paging::{Anchor, Key, Page, Spec};
use crate::error::Result;
use crate::filter::Filter;
use crate::model::Rung;
use crate::text::echo;

/// One row of `rung report runs`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunRow {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<i64>,
    pub model: Option<String>,
    pub catalogue: Option<String>,
    pub decisions: u64,
    pub first_failed_rung: Option<Rung>,
    pub success: Option<bool>,
    pub harm: Option<bool>,
    /// rung's verdict against the run's expectations (format v1.1): no
    /// missing call, argument mismatch, unexpected call or missing output.
    /// `None` for a run without expectations.
    pub as_expected: Option<bool>,
}

/// Runs with their decisions and first failed rung, by `run_id`. With a
/// decision filter (window, phase, catalogue), only the run's matching
/// decisions count and runs without any are left out.
pub fn runs(conn: &Connection, f: &Filter) -> Result<Vec<RunRow>> {
    let mut rows = Vec::new();
    for_each_run(conn, f, |row| {
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

/// What the runs report's summary counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunTally {
    pub runs: u64,
    pub succeeded: u64,
    pub failed: u64,
    pub harmful: u64,
    /// Runs that reached a failed rung.
    pub with_rung: u64,
    pub with_expectations: u64,
    pub as_expected: u64,
}

impl RunTally {
    pub fn add(&mut self, run: &RunRow) {
        self.add_run(
            run.success,
            run.harm,
            run.first_failed_rung.is_some(),
            run.as_expected,
        );
    }

    /// [`RunTally::add`] from what it counts of a run.
    fn add_run(
        &mut self,
        success: Option<bool>,
        harm: Option<bool>,
        with_rung: bool,
        as_expected: Option<bool>,
    ) {
        self.runs += 1;
        self.succeeded += u64::from(success == Some(true));
        self.failed += u64::from(success == Some(false));
        self.harmful += u64::from(harm == Some(true));
        self.with_rung += u64::from(with_rung);
        self.with_expectations += u64::from(as_expected.is_some());
        self.as_expected += u64::from(as_expected == Some(true));
    }
}

/// Each run's decisions a decision filter keeps, and the first failed
/// rung among them (`None`: no decision filter; the runs' own counts).
/// Counted once for the summary and the list of the runs report.
pub struct DecisionsKept(Option<Counted>);

/// Per run (sorted by id, each once), its kept decisions and its earliest
/// failed step with its rung.
type Counted = Vec<RunCount>;

/// One run's kept decisions, counted: its id, how many, its earliest failed
/// step with its rung.
type RunCount = (Box<str>, u64, Option<(i64, Rung)>);

/// Adds a later count of a run to the count before it.
fn add((_, n, first): &mut RunCount, (_, more, failed): RunCount) {
    *n += more;
    if let Some((step, _)) = failed
        && first.is_none_or(|(s, _)| step < s)
    {
        *first = failed;
    }
}

/// A run's count in `counted`, looked for at `next` first (the runs are
/// listed in the order they are counted in) and then by binary search.
fn counted_of<'a>(counted: &'a Counted, next: &mut usize, run: &str) -> Option<&'a RunCount> {
    let at = match counted.get(*next) {
        Some(c) if &*c.0 == run => *next,
        _ => counted.binary_search_by(|c| (*c.0).cmp(run)).ok()?,
    };
    *next = at + 1;
    counted.get(at)
}

/// [`DecisionsKept`] under `f`.
pub fn decisions_kept(conn: &Connection, f: &Filter) -> Result<DecisionsKept> {
    Ok(DecisionsKept(if f.has_decision_filter() {
        Some(matching(conn, f)?)
    } else {
        None
    }))
}

/// The summary counts of [`runs`]: counted by SQLite unless a decision
/// filter recounts each run's decisions.
pub fn run_tally(conn: &Connection, f: &Filter) -> Result<RunTally> {
    run_tally_kept(conn, f, &decisions_kept(conn, f)?)
}

/// [`run_tally`] with the decisions kept counted before.
pub fn run_tally_kept(conn: &Connection, f: &Filter, kept: &DecisionsKept) -> Result<RunTally> {
    let mut t = RunTally::default();
    if let Some(counted) = &kept.0 {
        // Only what the summary counts, from `runs_sort` (not each run's
        // whole row, as the list reads it).
        let (sql, args) = listed(f, "r.run_id, r.success, r.harm, r.as_expected");
        let mut stmt = conn.prepare(&sql)?;
        let mut q = stmt.query(params_from_iter(args))?;
        let mut next = 0;
        while let Some(r) = q.next()? {
            let run = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
            if let Some((_, _, first)) = counted_of(counted, &mut next, run) {
                t.add_run(r.get(1)?, r.get(2)?, first.is_some(), r.get(3)?);
            }
        }
        return Ok(t);
    }
    let (sql, args) = tally_sql(f);
    let n = |v: Option<i64>| v.unwrap_or(0).max(0) as u64;
    conn.query_row(&sql, params_from_iter(args), |r| {
        t = RunTally {
            runs: n(r.get(0)?),
            succeeded: n(r.get(1)?),
            failed: n(r.get(2)?),
            harmful: n(r.get(3)?),
            with_rung: n(r.get(4)?),
            with_expectations: n(r.get(5)?),
            as_expected: n(r.get(6)?),
        };
        Ok(())
    })?;
    Ok(t)
}

/// [`run_tally`]'s statement under run-level filters alone.
fn tally_sql(f: &Filter) -> (String, Vec<Sql>) {
    let (clause, args) = run_list_clause(f);
    (
        format!(
            "SELECT count(*), sum(r.success <> 0), sum(r.success = 0), sum(r.harm <> 0),
                    sum(r.first_failed_rung IS NOT NULL), sum(r.as_expected IS NOT NULL),
                    sum(r.as_expected <> 0)
             FROM runs r WHERE {clause}"
        ),
        args,
    )
}

/// [`runs`] a run at a time, without keeping them.
pub fn for_each_run(
    conn: &Connection,
    f: &Filter,
    each: impl FnMut(RunRow) -> Result<()>,
) -> Result<()> {
    for_each_run_kept(conn, f, &decisions_kept(conn, f)?, each)
}

/// [`for_each_run`] with the decisions kept counted before.
pub fn for_each_run_kept(
    conn: &Connection,
    f: &Filter,
    kept: &DecisionsKept,
    mut each: impl FnMut(RunRow) -> Result<()>,
) -> Result<()> {
    let (sql, args) = listed(f, RUN_COLUMNS);
    let counted = &kept.0;
    let mut next = 0;
    let mut stmt = conn.prepare(&sql)?;
    let mut q = stmt.query(params_from_iter(args))?;
    while let Some(r) = q.next()? {
        let mut row = run_row(conn, r, 0)?;
        if let Some(counted) = counted {
            match counted_of(counted, &mut next, &row.run_id) {
                Some((_, n, first)) => {
                    row.decisions = *n;
                    row.first_failed_rung = first.map(|(_, rung)| rung);
                }
                None => continue,
            }
        }
        each(row)?;
    }
    Ok(())
}

/// The runs [`for_each_run_kept`] reads, `columns` of each, by run id: a
/// decision filter's runs are then left out unless they have decisions
/// kept ([`DecisionsKept`]), so only the run-level filters are SQL here.
fn listed(f: &Filter, columns: &str) -> (String, Vec<Sql>) {
    let (clause, args) = if f.has_decision_filter() {
        let mut g = f.clone();
        g.catalogues.clear();
        g.since = None;
        g.until = None;
        run_list_clause(&g)
    } else {
        run_list_clause(f)
    };
    (
        format!("SELECT {columns} FROM runs r WHERE {clause} ORDER BY r.run_id"),
        args,
    )
}

/// Per run, its decisions the filter keeps and the first failed rung
/// among them.
fn matching(conn: &Connection, f: &Filter) -> Result<Counted> {
    let runs = run_count(conn)?;
    let few = f.has_run_filter() && keeps_few_runs(conn, f, runs)?;
    let runs = runs.clamp(0, 1 << 22) as usize;
    if few {
        let (clause, args) = f.decision_clause();
        let from = f.from();
        let sql = format!("SELECT l.run_id, l.rung, l.decision_id, l.step {from} WHERE {clause}");
        return Ok(by_run(count_kept(conn, &sql, &args, runs / 8)?));
    }
    // Otherwise the stored rows are read directly (the `ladder` view looks
    // each verdict's catalogue up to compare versions), in two halves by id
    // at once, one per core (at 5,000,000 decisions under a catalogue every
    // decision has: 1.1-1.5 s in one, 0.5 s so). Every run's decisions are
    // counted: the list leaves out the runs a run-level filter does not keep
    // (SQLite would start from those runs and read each one's decisions by
    // its id: under `--phase modify --model model-b`, 3 s).
    let f = f.without_run_filters();
    let (clause, args) = f.rows_clause();
    let from = f.rows_from();
    let sql = format!(
        "SELECT d.run_id, l.rung, l.decision_id, d.step {from}
         WHERE {clause} AND l.decision_id >= ? AND l.decision_id < ?"
    );
    let (lo, hi) = id_range(conn, "ladder_rows", "decision_id")?;
    let mut second = second_reader(conn);
    let parts = in_two(conn, second.as_mut(), lo, hi, |c, from, to| {
        let args: Vec<Sql> = args
            .iter()
            .cloned()
            .chain([Sql::Integer(from), Sql::Integer(to)])
            .collect();
        // Room for every run in the lower part (the upper one's are added
        // to it), for the part's share of them in the upper.
        let room = if from == lo {
            runs + 16
        } else {
            (runs as f64 * (to - from) as f64 / (hi - lo).max(1) as f64) as usize + 16
        };
        count_kept(c, &sql, &args, room)
    })?;
    let mut parts = parts.into_iter();
    let mut counted = parts.next().unwrap_or_default();
    for part in parts {
        counted.extend(part);
    }
    Ok(by_run(counted))
}

/// Each run's counts sorted by run and added up into one. Stable: a run's
/// counts stay in the order they were counted (at equal steps, the first
/// failure read stands). Runs come mostly in order already (a run's
/// decisions are imported together), which the sort finds.
fn by_run(mut counted: Counted) -> Counted {
    counted.sort_by(|a, b| a.0.cmp(&b.0));
    counted.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            add(kept, std::mem::take(later));
        }
        same
    });
    counted
}

/// [`matching`]'s count over the rows `sql` selects (run, rung, decision
/// id, step), with room for `runs` runs.
fn count_kept(conn: &Connection, sql: &str, args: &[Sql], runs: usize) -> Result<Counted> {
    // Unsorted: sorting every kept verdict by run and step spilled to a
    // temporary b-tree (at 5,000,000 decisions under a catalogue every
    // decision has, the query took 6.9 s sorted, 1.1 s not); each run keeps
    // the failure of its earliest step instead. A verdict whose decision
    // is not stored (no run) belongs to no run listed.
    let mut stmt = conn.prepare(sql)?;
    let mut agg: Counted = Vec::with_capacity(runs);
    // A run's verdicts mostly follow each other: counted here, and kept
    // when the run changes (a run apart is kept again, and added up later).
    let mut current: Option<RunCount> = None;
    let mut q = stmt.query(params_from_iter(args))?;
    while let Some(r) = q.next()? {
        let Some(run_id) = r
            .get_ref(0)?
            .as_str_or_null()
            .map_err(rusqlite::Error::from)?
        else {
            continue;
        };
        let parsed = match r.get_ref(1)? {
            rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(Rung::parse),
            _ => None,
        };
        let rung = match parsed {
            Some(rung) => rung,
            None => {
                let id: i64 = r.get(2)?;
                let row = || format!("row decision_id {id}");
                Stored::new(conn, Table::Ladder, &row).spelled(
                    "rung",
                    r.get(1)?,
                    Rung::parse,
                    Rung::spellings,
                )?
            }
        };
        let step: i64 = r.get(3)?;
        let failed = rung.is_failure().then_some((step, rung));
        match &mut current {
            Some(c) if &*c.0 == run_id => add(c, (Box::default(), 1, failed)),
            _ => agg.extend(current.replace((run_id.into(), 1, failed))),
        }
    }
    agg.extend(current);
    Ok(agg)
}

/// The columns the runs table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunSort {
    Id,
    Task,
    Trial,
    Model,
    Decisions,
    FirstFailed,
    Success,
    Harm,
}

impl RunSort {
    pub const ALL: [RunSort; 8] = [
        RunSort::Id,
        RunSort::Task,
        RunSort::Trial,
        RunSort::Model,
        RunSort::Decisions,
        RunSort::FirstFailed,
        RunSort::Success,
        RunSort::Harm,
    ];

    /// A total, NULL-free sort key (keyset comparisons cannot see NULLs).
    fn key(self) -> &'static str {
        match self {
            RunSort::Id => "r.run_id",
            RunSort::Task => "COALESCE(r.task_id, '')",
            RunSort::Trial => "COALESCE(r.trial, -1)",
            RunSort::Model => "COALESCE(r.model, '')",
            RunSort::Decisions => "r.decisions",
            RunSort::FirstFailed => RUNG_ORDER.as_str(),
            RunSort::Success => "COALESCE(r.success, -1)",
            RunSort::Harm => "COALESCE(r.harm, -1)",
        }
    }
}

/// Ladder order of `r.first_failed_rung` (none last), written from
/// [`Rung::failed_order`] so that it agrees with [`run_key`].
static RUNG_ORDER: LazyLock<String> = LazyLock::new(|| {
    let mut sql = String::from("CASE r.first_failed_rung");
    for r in Rung::ALL.iter().filter(|r| r.is_failure()) {
        sql.push_str(&format!(
            " WHEN '{}' THEN {}",
            r.as_str(),
            Rung::failed_order(Some(*r))
        ));
    }
    sql.push_str(&format!(" ELSE {} END", Rung::NOT_FAILED_ORDER));
    sql
});

const RUN_COLUMNS: &str = "r.run_id, r.task_id, r.trial, r.model, r.catalogue, r.decisions, \
r.first_failed_rung, r.success, r.harm, r.as_expected";

/// Reads [`RUN_COLUMNS`] from column `at` on.
fn run_row(conn: &Connection, r: &Row<'_>, at: usize) -> Result<RunRow> {
    let run_id: String = r.get(at)?;
    let first_failed_rung = first_failed(conn, &run_id, r.get(at + 6)?)?;
    Ok(RunRow {
        task_id: r.get(at + 1)?,
        trial: r.get(at + 2)?,
        model: r.get(at + 3)?,
        catalogue: r.get(at + 4)?,
        decisions: r.get::<_, i64>(at + 5)? as u64,
        first_failed_rung,
        success: r.get(at + 7)?,
        harm: r.get(at + 8)?,
        as_expected: r.get(at + 9)?,
        run_id,
    })
}

/// A run's stored first failed rung, checked to be a rung.
fn first_failed(conn: &Connection, run_id: &str, s: Option<String>) -> Result<Option<Rung>> {
    let row = || format!("row run_id {}", echo(run_id));
    Stored::new(conn, Table::Runs, &row).spelled_opt(
        "first_failed_rung",
        s,
        Rung::parse,
        Rung::spellings,
    )
}

/// One page of runs in the filter, sorted by `sort`. With decision-level
/// filters (window, phase, catalogue) a run is listed when one of its
/// decisions matches; its counts stay whole-run.
pub fn runs_page(
    conn: &Connection,
    f: &Filter,
    sort: RunSort,
    desc: bool,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<RunRow>> {
    runs_spec(f, sort, desc).page(conn, anchor, n, &|r| run_row(conn, r, 2))
}

/// How [`runs_page`] reads the runs.
fn runs_spec(f: &Filter, sort: RunSort, desc: bool) -> Spec<'static> {
    let (from_where, args) = runs_where(f);
    Spec {
        select: RUN_COLUMNS,
        from_where,
        args,
        key: sort.key(),
        id: (sort != RunSort::Id).then_some("r.run_id"),
        desc,
        // No index orders runs by any key but the run id (the others
        // read NULL as a value): a page around a run reads every run once,
        // from the `runs_sort` index (schema 13), which holds every column
        // read here.
        one_pass: (sort != RunSort::Id).then_some("r.rowid"),
    }
}

/// The sort key of a run row, for anchoring a page on it.
pub fn run_key(row: &RunRow, sort: RunSort) -> Key {
    let text = |s: &Option<String>| Sql::Text(s.clone().unwrap_or_default());
    let b = |v: Option<bool>| Sql::Integer(v.map(i64::from).unwrap_or(-1));
    let key = match sort {
        RunSort::Id => Sql::Text(row.run_id.clone()),
        RunSort::Task => text(&row.task_id),
        RunSort::Trial => Sql::Integer(row.trial.unwrap_or(-1)),
        RunSort::Model => text(&row.model),
        RunSort::Decisions => Sql::Integer(row.decisions as i64),
        RunSort::FirstFailed => Sql::Integer(Rung::failed_order(row.first_failed_rung)),
        RunSort::Success => b(row.success),
        RunSort::Harm => b(row.harm),
    };
    (key, Sql::Text(row.run_id.clone()))
}

/// A run with its goal, as the fuzzy filter sees it.
#[derive(Debug, Clone)]
pub struct RunText {
    pub row: RunRow,
    pub goal: Option<String>,
}

/// [`scan_runs`]'s statement: read from `runs_sort` (schema 13), which
/// holds every column it reads, in its order.
fn scan_sql(f: &Filter) -> (String, Vec<Sql>) {
    let (from_where, args) = runs_where(f);
    (
        format!("SELECT {RUN_COLUMNS}, r.goal {from_where} ORDER BY r.run_id"),
        args,
    )
}

/// Streams every run in the filter (by `run_id`) to `visit` until it breaks.
pub fn scan_runs(
    conn: &Connection,
    f: &Filter,
    visit: &mut dyn FnMut(RunText) -> ControlFlow<()>,
) -> Result<()> {
    let (sql, args) = scan_sql(f);
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let t = RunText {
            row: run_row(conn, r, 0)?,
            goal: r.get(10)?,
        };
        if visit(t).is_break() {
            break;
        }
    }
    Ok(())
}

/// Everything the Run screen's header shows about a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunHeader {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<i64>,
    pub goal: Option<String>,
    pub intent: Option<String>,
    pub model: Option<String>,
    pub catalogue: Option<String>,
    pub terminated: Option<String>,
    pub success: Option<bool>,
    pub harm: Option<bool>,
    pub started_at: Option<String>,
    pub decisions: u64,
    pub first_failed_rung: Option<Rung>,
    /// The verdict against the run's expectations; `None` without any.
    pub as_expected: Option<bool>,
}

pub fn run_header(conn: &Connection, run_id: &str) -> Result<Option<RunHeader>> {
    let mut stmt = conn.prepare_cached(
        "SELECT run_id, task_id, trial, goal, intent, model, catalogue, terminated, success,
                harm, started_at, decisions, first_failed_rung, as_expected
         FROM runs WHERE run_id = ?1",
    )?;
    let mut rows = stmt.query([run_id])?;
    let Some(r) = rows.next()? else {
        return Ok(None);
    };
    Ok(Some(RunHeader {
        run_id: r.get(0)?,
        task_id: r.get(1)?,
        trial: r.get(2)?,
        goal: r.get(3)?,
        intent: r.get(4)?,
        model: r.get(5)?,
        catalogue: r.get(6)?,
        terminated: r.get(7)?,
        success: r.get(8)?,
        harm: r.get(9)?,
        started_at: r.get(10)?,
        decisions: r.get::<_, i64>(11)? as u64,
        first_failed_rung: first_failed(conn, run_id, r.get(12)?)?,
        as_expected: r.get(13)?,
    }))
}

#[cfg(test)]
mod tests;
