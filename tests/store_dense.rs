//! Schema 7's denser menus: name lists, packed retrievals and policies as
//! characters, shown by the `decisions` view and read by every report as
//! before; the in-place upgrade of a schema-5 database written by the rung
//! before it.

mod import_util;
mod store_util;

use import_util::*;
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

/// The menus by what their body starts with: `l` lists, `r` retrievals, `p`
/// policies, `{` JSON.
const KINDS: &str = "SELECT substr(body, 1, 1), count(*), sum(length(CAST(body AS BLOB)))
    FROM menus GROUP BY 1 ORDER BY 1";

/// The menus of one decision as the view shows them.
fn menus_of(conn: &Connection, run: &str, step: i64) -> Vec<Sql> {
    rows(
        conn,
        &format!(
            "SELECT policy, trusted_controls, retrieval, exposed, visible FROM decisions
             WHERE run_id = '{run}' AND step = {step}"
        ),
    )
    .remove(0)
}

/// A database written by the rung of schema 5 (`rung import` of desk.jsonl
/// and menus.jsonl, then `sqlite3 .dump`): upgraded in place, its lists,
/// retrievals with characters and policies are dense, and it stores and
/// shows what a fresh import stores and shows.
#[test]
fn a_schema_5_database_is_made_dense_and_is_what_a_fresh_import_is() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v5.sql"), 5);
    let old = Connection::open(&db).unwrap();
    let queries = every_decision_and_view();
    let before = rows_of(&old, &queries);
    assert_eq!(before[0].len(), 17);
    // 30 menus, 954 bytes: 12 lists, 7 retrievals with `p`, one with `c`
    // (a score that is not a short decimal), one kept whole (a candidate
    // with a field of its own), 7 heads and 2 policies, all JSON.
    assert_eq!(
        rows(&old, KINDS),
        vec![
            vec![text("["), Sql::Integer(12), Sql::Integer(97)],
            vec![text("{"), Sql::Integer(18), Sql::Integer(857)],
        ]
    );
    drop(old);

    let conn = upgrade_by_reimport(&db, &queries, &before);
    // The 12 lists (42 ids) take 54 bytes instead of 97; the 7 retrievals
    // and 2 policies 130 instead of 413; the 7 heads and the 2 retrievals
    // that do not pack stay JSON (444 bytes); the 4 distinct outcomes the
    // views do not rebuild (a message or `retryable` beside status, stage
    // and reason: 429 bytes) move from their decisions into `menus`.
    assert_eq!(
        rows(&conn, KINDS),
        vec![
            vec![text("l"), Sql::Integer(12), Sql::Integer(54)],
            vec![text("p"), Sql::Integer(2), Sql::Integer(41)],
            vec![text("r"), Sql::Integer(7), Sql::Integer(89)],
            vec![text("{"), Sql::Integer(13), Sql::Integer(873)],
        ]
    );
    // Each decision refers to its outcome by the `menus` id's digits, as
    // a blob; none is left as text.
    assert_eq!(
        rows(
            &conn,
            "SELECT typeof(outcome), count(*), count(DISTINCT outcome) FROM decision_rows
             WHERE outcome IS NOT NULL AND length(outcome) > 0 GROUP BY 1"
        ),
        vec![vec![text("blob"), Sql::Integer(4), Sql::Integer(4)]]
    );
    assert_eq!(
        one(&conn, "SELECT body FROM menus WHERE id = 1"),
        text("pfmutating\"\"billing\"")
    );
    // The 13 inline labels are characters: `e`, the acceptable names' ids,
    // a space, the forbidden ones' (r-102 step 2: cancel_subscription,
    // not refund_invoice).
    assert_eq!(
        rows(
            &conn,
            "SELECT count(*), sum(length(expected)) FROM decision_rows
             WHERE substr(expected, 1, 1) = 'e'"
        ),
        vec![vec![Sql::Integer(13), Sql::Integer(42)]]
    );
    assert_eq!(
        one(
            &conn,
            "SELECT expected FROM decisions WHERE run_id = 'r-102' AND step = 2"
        ),
        text("{\"acceptable\":[\"cancel_subscription\"],\"forbidden\":[\"refund_invoice\"]}")
    );

    // A fresh import stores and shows the same.
    let (_dir2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    let fresh_conn = Connection::open(&fresh).unwrap();
    // (A fresh import stores each outcome in `menus` as it meets it, the
    // upgrade after the menus already there: ids may differ, and with them
    // a packed retrieval's head id; the same kinds, counts and sizes, and
    // the decisions view below shows the same.)
    assert_eq!(rows(&fresh_conn, KINDS), rows(&conn, KINDS));
    let stored = "SELECT id, typeof(policy), typeof(trusted_controls), typeof(retrieval),
        typeof(exposed), typeof(visible), substr(expected, 1, 1), length(expected),
        typeof(outcome) FROM decision_rows ORDER BY id";
    assert_eq!(rows(&fresh_conn, stored), rows(&conn, stored));
    // (A label's names may have other ids: the upgrade names `@no_call`
    // after the classifier's names, a fresh import before them.)
    assert_fresh_shows(
        &db,
        &fresh,
        &queries,
        &before,
        &[
            "ladder",
            "metrics",
            "tools",
            "refusals",
            "confusions",
            "runs",
            "findings",
            "budget",
        ],
    );
    // Classified again from the dense menus, nothing changes.
    assert_eq!(rung(&db, &["-q", "reclassify"]).code, 0);
    assert_eq!(rows_of(&Connection::open(&db).unwrap(), &queries), before);
}

/// The view spells dense menus out exactly as schema 5 showed them: a
/// policy, a retrieval with a shared head, a list, an empty list, a
/// retrieval without a head whose scores go down and up, and one kept as
/// JSON.
#[test]
fn the_decisions_view_shows_dense_menus_as_recorded() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(
        menus_of(&conn, "r-101", 1),
        vec![
            text(
                "{\"allowed_families\":[\"billing\"],\"max_effect\":\"mutating\",\"allow_open_world\":false}"
            ),
            Sql::Null,
            text(
                "{\"k\":3,\"selector\":\"kw-overlap@1\",\"query\":\"harbor yoga refund october\",\"candidates\":[{\"name\":\"find_customer\",\"score\":0.92},{\"name\":\"list_invoices\",\"score\":0.61},{\"name\":\"refund_invoice\",\"score\":0.4},{\"name\":\"cancel_subscription\",\"score\":0.2}]}"
            ),
            Sql::Null,
            text(
                "[\"ask_user\",\"no_applicable_tool\",\"find_customer\",\"list_invoices\",\"refund_invoice\"]"
            ),
        ]
    );
    assert_eq!(
        menus_of(&conn, "m-1", 2),
        vec![
            Sql::Null,
            text("[\"ask_user\"]"),
            text(
                "{\"k\":2,\"candidates\":[{\"name\":\"list_invoices\",\"score\":0.30000000000000004},{\"name\":\"refund_invoice\"},{\"name\":\"find_customer\",\"score\":-0.25}]}"
            ),
            text("[\"list_invoices\",\"refund_invoice\",\"find_customer\"]"),
            text("[\"ask_user\",\"list_invoices\",\"refund_invoice\"]"),
        ]
    );
    assert_eq!(
        menus_of(&conn, "m-1", 3),
        vec![
            text(
                "{\"allowed_families\":[\"billing\"],\"max_effect\":\"read_only\",\"allow_open_world\":false}"
            ),
            Sql::Null,
            text(
                "{\"k\":1,\"selector\":\"embed@2\",\"candidates\":[{\"name\":\"list_invoices\",\"score\":0.9,\"source\":\"bm25\"}]}"
            ),
            text("[]"),
            text("[\"list_invoices\"]"),
        ]
    );
    // A menu written through the view as JSON text stays text and reads so.
    conn.execute_batch(
        "UPDATE decisions SET visible = '[\"z\"]' WHERE run_id = 'r-101' AND step = 1",
    )
    .unwrap();
    assert_eq!(menus_of(&conn, "r-101", 1)[4], text("[\"z\"]"));
}

/// A dense value changed outside rung is an error naming its row, never a
/// default.
#[test]
fn a_damaged_dense_menu_is_an_error_naming_its_row() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    // A list whose character is below U+0020 (not a number rung wrote).
    conn.execute_batch(
        "UPDATE menus SET body = 'l' || char(31) WHERE id =
             (SELECT visible FROM decision_rows WHERE run_id = 'r-101' AND step = 1)",
    )
    .unwrap();
    drop(conn);
    let out = rung(&db, &["-q", "reclassify"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("table decisions, row id 1 (run \"r-101\" step 1), column visible: the packed list does not decode"),
        "{}",
        out.stderr
    );
}
