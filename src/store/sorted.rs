//! Sorted decision lists (issue 16): a run's timeline in any column's
//! order, and the key a decision has in a sorted list, so that a list read
//! again in another order opens around the row that was selected.

use rusqlite::Connection;
use rusqlite::types::Value as Sql;

use super::decisions::{DecisionRow, decision_row, timeline_spec};
use super::drill::DecisionSort;
use super::paging::{Anchor, Key, Page};
use crate::error::Result;
use crate::filter::Filter;

/// The key of `row` in a list sorted by `sort` (`None`: the list's own
/// order, whose key the list knows); the same values the SQL of
/// `DecisionSort::key` computes.
pub fn sorted_key(row: &DecisionRow, sort: DecisionSort) -> Option<Key> {
    let value = match sort {
        DecisionSort::Natural => return None,
        DecisionSort::Run => Sql::Text(format!("{}:{:012}", row.run_id, row.step)),
        DecisionSort::Time => Sql::Integer(row.time_us.unwrap_or(-1)),
        DecisionSort::Rung => Sql::Text(row.rung.as_str().to_string()),
        DecisionSort::Selected => Sql::Text(row.selected.clone().unwrap_or_default()),
    };
    Some((value, Sql::Integer(row.decision_id)))
}

/// One page of a run's decisions (those in the filter) sorted by `sort`
/// (step order for `Natural`), descending when `desc`.
pub fn timeline_page_sorted(
    conn: &Connection,
    f: &Filter,
    run_id: &str,
    sort: DecisionSort,
    desc: bool,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    let mut spec = timeline_spec(f, run_id);
    if let Some(key) = sort.key() {
        spec.key = key;
        spec.id = Some("l.decision_id");
    }
    spec.desc = desc;
    spec.page(conn, anchor, n, &|r| decision_row(conn, r, 2))
}

/// The key of `row` in its run's timeline sorted by `sort`.
pub fn timeline_key(row: &DecisionRow, sort: DecisionSort) -> Key {
    sorted_key(row, sort).unwrap_or((Sql::Integer(row.step), Sql::Integer(row.step)))
}
