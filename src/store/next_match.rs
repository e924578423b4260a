//! `/` in a run's timeline (issue 16): the next (or previous) step of a run
//! whose decision contains the searched text in one of the fields a
//! decision list searches (`drill::FOUND_IN`), for `n`/`N` beyond the rows
//! the screen holds.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use super::drill::FOUND_IN;
use super::filter_sql::FilterSql;
use crate::error::Result;
use crate::filter::Filter;

/// The first step after `step` (before it, unless `forward`) of `run_id`
/// in the filter whose decision contains `pattern` (any case).
pub fn next_matching(
    conn: &Connection,
    f: &Filter,
    run_id: &str,
    step: i64,
    forward: bool,
    pattern: &str,
) -> Result<Option<i64>> {
    let pat = crate::find::pattern(pattern);
    if pat.is_empty() {
        return Ok(None);
    }
    let (clause, mut args) = f.decision_clause();
    args.insert(0, Sql::Text(run_id.to_string()));
    args.insert(1, Sql::Integer(step));
    let any = FOUND_IN
        .iter()
        .map(|(_, col)| format!("instr(lower(COALESCE({col}, '')), ?) > 0"))
        .collect::<Vec<_>>()
        .join(" OR ");
    for _ in FOUND_IN {
        args.push(Sql::Text(pat.clone()));
    }
    let (op, dir) = if forward { (">", "ASC") } else { ("<", "DESC") };
    Ok(conn
        .prepare_cached(&format!(
            "SELECT l.step FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE l.run_id = ? AND l.step {op} ? AND {clause} AND ({any})
             ORDER BY l.step {dir} LIMIT 1"
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))
        .optional()?)
}
