//! A tool's definition lists its catalogue's own findings about it (no
//! run), exactly: 01-catalogues.jsonl by hand flags ask_user and
//! no_applicable_tool on shop-1 and shop-2 as control impostors (family
//! control, trusted by no decision), and nothing else.

mod import_util;
mod store_util;

use import_util::*;
use rung::store::browse::tool_def;
use rusqlite::Connection;
use store_util::*;

fn drift(conn: &Connection, catalogue: &str, name: &str) -> Vec<(String, Option<String>, String)> {
    tool_def(conn, catalogue, name)
        .unwrap()
        .expect("the tool is defined")
        .drift
        .into_iter()
        .map(|f| (f.kind, f.run_id, f.detail))
        .collect()
}

fn impostor(name: &str, catalogue: &str) -> (String, Option<String>, String) {
    (
        "control_impostor".into(),
        None,
        format!(
            "{name} has family control but no decision on catalogue {catalogue} trusts it; \
             a tool cannot make itself always visible by its family label"
        ),
    )
}

#[test]
fn a_tool_lists_its_catalogue_findings_and_no_run_s() {
    let (_dir, db) = setup();
    import(
        &db,
        &["-q", &path("tests/fixtures/reports/01-catalogues.jsonl")],
    );
    let conn = Connection::open(&db).unwrap();
    // A finding of one run about ask_user on shop-1: not the catalogue's.
    conn.execute(
        "INSERT INTO findings (kind, catalogue, run_id, step, tool, detail)
         VALUES ('control_impostor', 'shop-1', 'r-x', 1, 'ask_user', 'of a run')",
        [],
    )
    .unwrap();
    assert_eq!(
        drift(&conn, "shop-1", "ask_user"),
        [impostor("ask_user", "shop-1")]
    );
    assert_eq!(
        drift(&conn, "shop-2", "no_applicable_tool"),
        [impostor("no_applicable_tool", "shop-2")]
    );
    assert_eq!(drift(&conn, "shop-1", "refund_order"), []);
    assert_eq!(drift(&conn, "shop-2", "lookup_order"), []);
    assert!(tool_def(&conn, "shop-3", "ask_user").unwrap().is_none());
}
