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
    let (sql, args) = refusals_sql(conn, f)?;
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args), refusal)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A refusal from a row of (reason, stage, run id, time).
fn refusal(r: &rusqlite::Row<'_>) -> rusqlite::Result<Refusal> {
    Ok(Refusal {
        reason: r.get(0)?,
        stage: r.get(1)?,
        run_id: r.get(2)?,
        time_us: r.get(3)?,
    })
}

/// [`refusals`]' query.
fn refusals_sql(conn: &Connection, f: &Filter) -> Result<(String, Vec<Sql>)> {
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
    // A model filter would start from the model's runs and read every
    // decision of theirs (all days): the windows' verdicts are read in time
    // order instead when they hold a small part of the times, unless a task
    // or run keeps few runs. Without a run-level filter, no run is joined.
    let from =
        if window.is_some_and(|(_, _, most)| !most) && no_task_or_run(f) && f.has_run_filter() {
            TIME_FIRST
        } else {
            f.rows_from()
        };
    let sql = format!(
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
    );
    Ok((sql, args))
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
    let (items_sql, undated_sql, args) = items_sql(conn, f, since, until)?;
    let mut all = args.clone();
    all.push(Sql::Integer(since - (until - since)));
    all.push(Sql::Integer(until));
    let items = conn
        .prepare_cached(&items_sql)?
        .query_map(params_from_iter(all), refusal)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let undated: i64 = conn
        .prepare_cached(&undated_sql)?
        .query_row(params_from_iter(args), |r| r.get(0))?;
    Ok((items, undated as u64))
}

/// [`refusal_items`]' queries: the items (the filter's arguments, then the
/// two windows' start and end) and the undated count (the filter's).
fn items_sql(
    conn: &Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<(String, String, Vec<Sql>)> {
    let (clause, args) = f.without_window().decision_clause();
    let prev = since - (until - since);
    // In time order unless a task or run keeps few runs, or the windows
    // hold most of the times (see [`refusals`]).
    let join = if no_task_or_run(f) && !mostly_within(conn, prev, until)? {
        "CROSS JOIN"
    } else {
        "JOIN"
    };
    let (stage, refused) = (refusal_stage(), refused());
    let from =
        format!("FROM ladder l {join} runs r ON r.run_id = l.run_id WHERE {clause} AND {refused}");
    Ok((
        format!(
            "SELECT l.reason, {stage}, l.run_id, l.time_us {from}
             AND l.time_us >= ? AND l.time_us < ?"
        ),
        format!("SELECT count(*) {from} AND l.time_us IS NULL"),
        args,
    ))
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
    if time_first(&g) {
        let (clause, args) = g.rows_clause();
        (
            format!(
                "SELECT {select} {TIME_FIRST} WHERE {clause} AND d.status = '{}' AND {rest}",
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

/// Whether refused decisions are read in time order (`ladder_time`): not
/// under a task, run or tag filter, which keeps few runs (or, for a tag,
/// is checked on each decision's run; those start from the runs).
fn time_first(f: &Filter) -> bool {
    f.tasks.is_empty() && f.runs.is_empty() && f.tags.is_empty()
}

/// Whether no task or run is named: those keep few runs, whose decisions
/// are read through the run id rather than a window's in time order.
fn no_task_or_run(f: &Filter) -> bool {
    f.tasks.is_empty() && f.runs.is_empty()
}

/// The stored verdicts with their decisions and runs, read in that order
/// (`CROSS JOIN`): in time order where the clause bounds `l.time_us`.
const TIME_FIRST: &str = "FROM ladder_rows l CROSS JOIN decision_rows d ON d.id = l.decision_id
     CROSS JOIN runs r ON r.run_id = d.run_id";

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::{Store, query_plan};

    /// The first step of each query's plan.
    fn starts(store: &Store, f: &Filter) -> Vec<String> {
        let (report, _) = refusals_sql(&store.conn, f).unwrap();
        let (items, undated, _) = items_sql(&store.conn, f, 7 * DAY, 14 * DAY).unwrap();
        [report, items, undated]
            .iter()
            .map(|sql| {
                let plan = query_plan(&store.conn, sql);
                plan.split("; ").next().unwrap_or_default().to_string()
            })
            .collect()
    }

    #[test]
    fn a_weeks_refusals_under_a_model_are_read_in_time_order() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        let week = |f: Filter| Filter {
            since: Some(7 * DAY),
            until: Some(14 * DAY),
            ..f
        };
        let model = week(Filter {
            models: vec!["model-b".into()],
            ..Filter::default()
        });
        // Not from the model's runs (a third of the decisions at 5,000,000:
        // 2.1 s against 0.04 s), with a tag too.
        let time = "SEARCH l USING INDEX ladder_time (time_us>? AND time_us<?)";
        for f in [
            model.clone(),
            Filter {
                tags: vec![("suite".into(), "s".into())],
                ..model.clone()
            },
        ] {
            assert_eq!(
                starts(&store, &f),
                [
                    "MULTI-INDEX OR",
                    time,
                    "SEARCH l USING INDEX ladder_time (time_us=?)"
                ],
                "{f:?}"
            );
        }
        // A task keeps few runs: read from them.
        let task = Filter {
            tasks: vec!["t-1".into()],
            ..model
        };
        // (The undated count is SQLite's choice: the time index's NULLs.)
        for start in &starts(&store, &task)[..2] {
            assert_eq!(
                start, "SEARCH r USING INDEX runs_model (model=? AND task_id=?)",
                "{task:?}"
            );
        }
    }
}
