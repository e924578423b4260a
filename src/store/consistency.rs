//! Selection consistency across trials (`rung report consistency`, the
//! `inconsistent_tasks` metric): the first decision of each run of a task,
//! under the filter.

use rusqlite::{Connection, params_from_iter};

use super::filter_sql::FilterSql;
use crate::error::Result;
use crate::filter::Filter;
use crate::metrics::Rate;
use crate::metrics::consistency::{Consistency, FirstChoice, consistency as group};

/// The `inconsistent_tasks` metric alone: [`consistency`]'s rate, from
/// the kept counts without grouping the choices when they answer.
pub fn rate(conn: &Connection, f: &Filter) -> Result<Rate> {
    if let Some(s) = super::agg::read::scope(conn, f)? {
        return super::agg::read::first_rate(conn, &s);
    }
    Ok(consistency(conn, f)?.rate)
}

/// Each run's first decision (when the filter keeps it), grouped by
/// catalogue and task. Runs without a task have no trials to compare.
pub fn consistency(conn: &Connection, f: &Filter) -> Result<Consistency> {
    if let Some(s) = super::agg::read::scope(conn, f)? {
        return super::agg::read::consistency(conn, &s);
    }
    let (clause, args) = f.counting_clause();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.catalogue, r.task_id, l.selected, count(*)
         FROM ladder l JOIN runs r ON r.run_id = l.run_id
         WHERE {clause} AND l.is_first = 1 AND r.task_id IS NOT NULL
         GROUP BY l.catalogue, r.task_id, l.selected"
    ))?;
    let firsts = stmt
        .query_map(params_from_iter(args), |r| {
            Ok((
                FirstChoice {
                    catalogue: r.get(0)?,
                    task_id: r.get(1)?,
                    selected: r.get(2)?,
                },
                r.get::<_, i64>(3)? as u64,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(group(firsts))
}
