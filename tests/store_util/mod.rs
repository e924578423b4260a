//! What the store tests share: the two fixtures every upgrade test
//! imports, reading rows as SQLite gives them, and the queries that show
//! every decision and every documented view.
#![allow(dead_code)]

use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::Value as Sql;

pub fn path(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

pub const DESK: &str = "tests/fixtures/tui/desk.jsonl";
pub const MENUS: &str = "tests/fixtures/migration/menus.jsonl";

/// Every row of a query, values as SQLite gives them.
pub fn rows(conn: &Connection, sql: &str) -> Vec<Vec<Sql>> {
    let mut s = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let n = s.column_count();
    s.query_map([], |r| (0..n).map(|i| r.get::<_, Sql>(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

pub fn one(conn: &Connection, sql: &str) -> Sql {
    rows(conn, sql).remove(0).remove(0)
}

pub fn text(v: &str) -> Sql {
    Sql::Text(v.to_string())
}

/// The decisions as the `decisions` view shows them, every column.
pub const ALL_DECISIONS: &str =
    "SELECT id, run_id, step, turn, at, at_us, phase, catalogue, policy,
    trusted_controls, retrieval, exposed, visible, selected, call_id, status, stage, reason,
    outcome, latency_ms, progress, expected, extra, record_hash, source, import_id
    FROM decisions ORDER BY id";

/// Every row of every documented view, in a fixed order.
pub const VIEWS: [&str; 4] = [
    "SELECT * FROM decision_ladder ORDER BY run_id, step",
    "SELECT * FROM refusals ORDER BY run_id, step",
    "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
     ORDER BY run_id, step, kind, tool, detail",
    "SELECT * FROM tool_drift ORDER BY catalogue, name",
];
