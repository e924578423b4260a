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

/// The decisions as the `decisions` view shows them, every column; of
/// `record_hash` the first 16 bytes, all a decision keeps since schema 13
/// (a database written before keeps its 32 through the upgrade).
pub const ALL_DECISIONS: &str =
    "SELECT id, run_id, step, turn, at, at_us, phase, catalogue, policy,
    trusted_controls, retrieval, exposed, visible, selected, call_id, status, stage, reason,
    outcome, latency_ms, progress, expected, extra, substr(record_hash, 1, 16), source,
    import_id
    FROM decisions ORDER BY id";

/// Every row of every documented view, in a fixed order.
pub const VIEWS: [&str; 4] = [
    "SELECT * FROM decision_ladder ORDER BY run_id, step",
    "SELECT * FROM refusals ORDER BY run_id, step",
    "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
     ORDER BY run_id, step, kind, tool, detail",
    "SELECT * FROM tool_drift ORDER BY catalogue, name",
];

/// A database at `db` made from a `sqlite3 .dump` of schema `version`.
pub fn load_dump(db: &Path, dump: &str, version: i64) {
    let conn = Connection::open(db).unwrap();
    conn.execute_batch(dump).unwrap();
    conn.execute_batch(&format!("PRAGMA user_version = {version}"))
        .unwrap();
}

/// Every row of each query.
pub fn rows_of(conn: &Connection, queries: &[&str]) -> Vec<Vec<Vec<Sql>>> {
    queries.iter().map(|q| rows(conn, q)).collect()
}

/// Imports the two fixtures again into a database that holds them (which
/// upgrades it in place, storing nothing new) and checks that it is at
/// this rung's schema version and shows every query's rows as `before`.
pub fn upgrade_by_reimport(db: &Path, queries: &[&str], before: &[Vec<Vec<Sql>>]) -> Connection {
    let out = super::import_util::import(db, &[&path(DESK), &path(MENUS)]);
    assert_eq!(
        out,
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 2 files\n\
         25 records were already stored unchanged\n\
         classified 0 runs\n"
    );
    let conn = Connection::open(db).unwrap();
    assert_eq!(
        one(&conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    for (q, b) in queries.iter().zip(before) {
        assert_eq!(&rows(&conn, q), b, "{q}");
    }
    conn
}

/// [`ALL_DECISIONS`], then each of [`VIEWS`].
pub fn every_decision_and_view() -> Vec<&'static str> {
    std::iter::once(ALL_DECISIONS).chain(VIEWS).collect()
}

/// A fresh import of the two fixtures at `fresh` shows what the upgraded
/// `db` shows: each query's rows as `before` (for [`ALL_DECISIONS`], first,
/// apart from `source` and `import_id`: a fresh import's sources are
/// absolute paths, the dumps' relative), the reports of `kinds` (their
/// windows aside) and every run's explanation.
pub fn assert_fresh_shows(
    db: &Path,
    fresh: &Path,
    queries: &[&str],
    before: &[Vec<Vec<Sql>>],
    kinds: &[&str],
) {
    use super::import_util::{explain, report};
    let conn = Connection::open(fresh).unwrap();
    for (q, b) in queries.iter().zip(before) {
        let mut b = b.clone();
        let now = rows(&conn, q);
        if *q == ALL_DECISIONS {
            for (r, f) in b.iter_mut().zip(&now) {
                r[24] = f[24].clone();
                r[25] = f[25].clone();
            }
        }
        assert_eq!(now, b, "{q}");
    }
    for kind in kinds {
        let shown = |db: &Path| {
            let mut r = report(db, kind);
            if let Some(o) = r.as_object_mut() {
                o.remove("window");
            }
            r
        };
        assert_eq!(shown(db), shown(fresh), "report {kind}");
    }
    for run in ["r-101", "r-102", "m-1", "m-2"] {
        assert_eq!(explain(db, run), explain(fresh, run), "explain {run}");
    }
}
