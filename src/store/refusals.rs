//! Refusals: the refusal report's items, the Refusals screen's window (and
//! the one before it), the latest refusal and the per-day trend.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use super::filter_sql::{FilterSql, rows_clause_by};
use crate::error::Result;
use crate::filter::Filter;
use crate::metrics::Refusal;
use crate::model::{Boundary, Status};
use crate::window::DAY;

/// `WHERE` text over `ladder l`: the decision was refused.
pub(super) fn refused() -> String {
    format!("l.status = '{}'", Status::Refused)
}

/// A refusal's stage over `ladder l`: its boundary, `unclassified` when none.
pub(super) fn refusal_stage() -> String {
    format!("COALESCE(l.boundary, '{}')", Boundary::Unclassified)
}

/// Refused decisions in the filter, for the refusal report: those without
/// a time, and, for a window, those in it and in the window of the same
/// length before it (read through the time index when they hold a small
/// part of the stored times; any time without a window). Read from the
/// stored verdicts (the boundary spelled from its code as the `ladder`
/// view spells it, `schema_v6.sql`).
pub fn refusals(conn: &Connection, f: &Filter) -> Result<Vec<Refusal>> {
    let window = match (f.since, f.until) {
        (Some(since), Some(until)) => {
            let from = since.saturating_sub(until.saturating_sub(since));
            Some((from, until, mostly_within(conn, from, until)?))
        }
        _ => None,
    };
    // The runs a tag keeps are named by id unless the windows' decisions,
    // read through the time index, are fewer.
    let by_id = window.is_none_or(|(_, _, most)| most);
    let (mut clause, mut args) = rows_clause_by(&f.without_window(), by_id);
    if let Some((from, until, most)) = window {
        // The index pays when the windows hold a small part of the times.
        let time = if most { "+l.time_us" } else { "l.time_us" };
        clause.push_str(&format!(
            " AND (l.time_us IS NULL OR ({time} >= ? AND {time} < ?))"
        ));
        args.push(Sql::Integer(from));
        args.push(Sql::Integer(until));
    }
    let from = f.rows_from();
    let mut stmt = conn.prepare(&format!(
        "SELECT CASE WHEN l.reason IS NULL THEN d.reason WHEN l.reason = X'' THEN NULL
                     ELSE l.reason END,
                COALESCE(CASE l.boundary WHEN 0 THEN 'representation' WHEN 1 THEN 'schema'
                     WHEN 2 THEN 'semantics' WHEN 3 THEN 'authorization'
                     WHEN 4 THEN 'precondition' WHEN 5 THEN 'unclassified'
                     WHEN 6 THEN 'execution' ELSE l.boundary END, '{}'),
                d.run_id, l.time_us
         {from} WHERE {clause} AND d.status = '{}'",
        Boundary::Unclassified,
        Status::Refused
    ))?;
    let rows = stmt
        .query_map(params_from_iter(args), |r| {
            Ok(Refusal {
                reason: r.get(0)?,
                stage: r.get(1)?,
                run_id: r.get(2)?,
                time_us: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Whether `[from, until)` holds more than half the span of the stored
/// verdicts' times (read from the time index's ends).
fn mostly_within(conn: &Connection, from: i64, until: i64) -> Result<bool> {
    let (lo, hi): (Option<i64>, Option<i64>) = conn.query_row(
        "SELECT (SELECT min(time_us) FROM ladder_rows), (SELECT max(time_us) FROM ladder_rows)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return Ok(false);
    };
    let span = i128::from(hi) - i128::from(lo) + 1;
    let inside = i128::from(until.min(hi.saturating_add(1))) - i128::from(from.max(lo));
    Ok(2 * inside > span)
}

/// Refusals in `[since, until)` and in the window of the same length before
/// it (for `previous`), read through the time index; plus the undated count.
pub fn refusal_items(
    conn: &Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<(Vec<crate::metrics::Refusal>, u64)> {
    let (clause, mut args) = f.without_window().decision_clause();
    let prev = since - (until - since);
    let mut all = args.clone();
    all.push(Sql::Integer(prev));
    all.push(Sql::Integer(until));
    let (stage, refused) = (refusal_stage(), refused());
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT l.reason, {stage}, l.run_id, l.time_us
         FROM ladder l JOIN runs r ON r.run_id = l.run_id
         WHERE {clause} AND {refused} AND l.time_us >= ? AND l.time_us < ?"
    ))?;
    let items = stmt
        .query_map(params_from_iter(all), |r| {
            Ok(crate::metrics::Refusal {
                reason: r.get(0)?,
                stage: r.get(1)?,
                run_id: r.get(2)?,
                time_us: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let undated: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE {clause} AND {refused} AND l.time_us IS NULL"
        ))?
        .query_row(params_from_iter(std::mem::take(&mut args)), |r| r.get(0))?;
    Ok((items, undated as u64))
}

/// The time of the latest dated refusal in the filter.
///
/// Read backwards through the time index (`ladder_time`) until the first
/// refusal the filter keeps, as [`refusals_per_day`] reads forwards:
/// through the `ladder` view, SQLite reads every decision and sorts their
/// times (seconds at millions of decisions). A task, run or tag filter
/// keeps few runs, so those start from the runs.
pub fn latest_refusal(conn: &Connection, f: &Filter) -> Result<Option<i64>> {
    let (sql, args) = refused_query(
        f,
        "l.time_us",
        "l.time_us IS NOT NULL ORDER BY l.time_us DESC LIMIT 1",
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params_from_iter(args), |r| r.get(0))
        .optional()?)
}

/// `SELECT {select}` over the refused decisions the filter (without its
/// window) keeps, `AND {rest}` after its clause: in time order
/// (`ladder_time`, each decision's status and run looked up after) unless
/// a task, run or tag filter keeps few runs, which start from the runs.
/// (Decisions count with their run, as `ladder l JOIN runs r` does.)
fn refused_query(f: &Filter, select: &str, rest: &str) -> (String, Vec<Sql>) {
    let g = f.without_window();
    let time_first = g.tasks.is_empty() && g.runs.is_empty() && g.tags.is_empty();
    if time_first {
        let (clause, args) = g.rows_clause();
        (
            format!(
                "SELECT {select} FROM ladder_rows l CROSS JOIN decision_rows d ON d.id = l.decision_id
                 CROSS JOIN runs r ON r.run_id = d.run_id
                 WHERE {clause} AND d.status = '{}' AND {rest}",
                Status::Refused
            ),
            args,
        )
    } else {
        let (clause, args) = g.decision_clause();
        (
            format!(
                "SELECT {select} FROM ladder l JOIN runs r ON r.run_id = l.run_id
                 WHERE {clause} AND {} AND {rest}",
                refused()
            ),
            args,
        )
    }
}

/// Refusals per day over `days` days ending at `until` (oldest first).
///
/// Read from the stored verdicts in time order (`ladder_time`), each
/// decision's status and run looked up after: left to itself, SQLite
/// starts a model filter from the model's runs and reads every decision
/// of theirs (all days) to keep the window's ([`refused_query`]).
pub fn refusals_per_day(conn: &Connection, f: &Filter, until: i64, days: u32) -> Result<Vec<u64>> {
    let since = until - DAY * days as i64;
    let (sql, mut args) = refused_query(
        f,
        &format!("(l.time_us - {since}) / {DAY}, count(*)"),
        "l.time_us >= ? AND l.time_us < ? GROUP BY 1",
    );
    args.push(Sql::Integer(since));
    args.push(Sql::Integer(until));
    let mut out = vec![0u64; days as usize];
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let day: i64 = r.get(0)?;
        let n: i64 = r.get(1)?;
        if let Some(slot) = out.get_mut(day as usize) {
            *slot = n as u64;
        }
    }
    Ok(out)
}
