//! The compact verdicts (schema 6): `ladder_rows` holds what the classifier
//! derives, `ladder` is a view with the columns and values of the table it
//! replaced; the in-place upgrade of a schema-5 database; writes through
//! the view; and the plans of the queries reports and lists run.

mod import_util;
mod store_util;

use import_util::*;
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

/// Every verdict, every column, as schema 5's table held them (`controls`
/// and `retrieved` hold `tool_names` ids, shown here by name: a fresh import
/// and an upgrade may number the names differently).
const LADDER: &str = "SELECT decision_id, run_id, step, turn, catalogue, phase, time_us, selected,
    status, reason, rung, routing, boundary, progress, violated, label_source, acceptable,
    forbidden, in_registry, in_exposed, in_retrieved, selected_ok, retrieval_k, is_first,
    recovered, abstain_expected, abstained, no_call_expected,
    (SELECT group_concat(t.name, ',') FROM json_each(l.controls) j
     CROSS JOIN tool_names t WHERE t.id = j.value),
    (SELECT group_concat(t.name, ',') FROM json_each(l.retrieved) j
     CROSS JOIN tool_names t WHERE t.id = j.value),
    definition_tokens, arguments, error_source, error_detail
    FROM ladder l ORDER BY decision_id";

/// Every row of every documented view that reads the verdicts.
const LADDER_VIEWS: [&str; 2] = [
    "SELECT * FROM decision_ladder ORDER BY run_id, step",
    "SELECT * FROM refusals ORDER BY run_id, step",
];

/// A database written by the rung of schema 5 (`rung import` of desk.jsonl
/// and menus.jsonl, then `sqlite3 .dump`): upgraded in place, its verdicts
/// read the same through the `ladder` view, are stored as a fresh import
/// stores them, and every report and explanation is the fresh import's.
#[test]
fn a_schema_5_database_is_compacted_and_is_what_a_fresh_import_is() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v5.sql"), 5);
    let queries = [LADDER, LADDER_VIEWS[0], LADDER_VIEWS[1]];
    let before = rows_of(&Connection::open(&db).unwrap(), &queries);
    assert_eq!(before[0].len(), 17);
    let conn = upgrade_by_reimport(&db, &queries, &before);
    let count = |q: &str| one(&conn, q);
    assert_eq!(
        count("SELECT type FROM sqlite_master WHERE name = 'ladder'"),
        text("view")
    );
    // The 17 verdicts name one catalogue (desk-1, every run's) by id; no
    // reason differs from its decision's; 15 have a time (desk.jsonl's 12
    // decisions their own, m-1's three their run's start; m-2 has none).
    assert_eq!(
        rows(
            &conn,
            "SELECT c.version, count(*) FROM ladder_rows l
             JOIN catalogue_ids c ON c.id = l.catalogue GROUP BY 1"
        ),
        vec![vec![text("desk-1"), Sql::Integer(17)]]
    );
    assert_eq!(
        count("SELECT count(*) FROM ladder_rows WHERE reason IS NOT NULL"),
        Sql::Integer(0)
    );
    assert_eq!(
        count("SELECT count(*) FROM ladder_rows WHERE time_us IS NOT NULL"),
        Sql::Integer(15)
    );
    // The short texts are integers: every routing, boundary, progress,
    // arguments and label_source stored is one (or NULL).
    assert_eq!(
        count(
            "SELECT count(*) FROM ladder_rows WHERE typeof(routing) = 'text'
             OR typeof(boundary) = 'text' OR typeof(progress) = 'text'
             OR typeof(arguments) = 'text' OR typeof(label_source) = 'text'"
        ),
        Sql::Integer(0)
    );
    // Six boundaries: r-102's precondition (step 2) and authorization
    // (steps 3 and 4), m-1 step 2's authorization, r-103 step 2's timeout
    // at execution, r-104 step 1's refusal at semantics; stored as their
    // places in the list.
    assert_eq!(
        rows(
            &conn,
            "SELECT l.boundary, v.boundary, count(*) FROM ladder_rows l
             JOIN ladder v ON v.decision_id = l.decision_id
             WHERE l.boundary IS NOT NULL GROUP BY 1 ORDER BY 1"
        ),
        vec![
            vec![Sql::Integer(2), text("semantics"), Sql::Integer(1)],
            vec![Sql::Integer(3), text("authorization"), Sql::Integer(3)],
            vec![Sql::Integer(4), text("precondition"), Sql::Integer(1)],
            vec![Sql::Integer(6), text("execution"), Sql::Integer(1)],
        ]
    );

    // A fresh import stores and shows the same.
    let (_dir2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    let fresh_conn = Connection::open(&fresh).unwrap();
    // (The lists' ids follow the order verdicts were written in, and tool
    // names' ids the order names were first met, which an upgrade and a
    // fresh import need not share: `retrieved` is compared by name.)
    let stored = "SELECT decision_id, catalogue, time_us, reason, rung, routing, boundary,
        progress, arguments, label_source, violated, typeof(acceptable), typeof(forbidden),
        in_registry, in_exposed, in_retrieved, selected_ok, retrieval_k, is_first, recovered,
        abstain_expected, abstained, no_call_expected, typeof(controls),
        (SELECT group_concat(t.name, ',') FROM json_each(l.retrieved) j
         CROSS JOIN tool_names t WHERE t.id = j.value),
        definition_tokens, error_source, error_detail
        FROM ladder_rows l ORDER BY decision_id";
    assert_eq!(rows(&fresh_conn, stored), rows(&conn, stored));
    let lists = "SELECT body FROM ladder_lists ORDER BY body";
    assert_eq!(rows(&fresh_conn, lists), rows(&conn, lists));
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
            "findings",
            "confusions",
            "runs",
        ],
    );
}

/// Writing through the `ladder` view: the verdict's columns read back as
/// written (a text the view would spell from a code is stored as the code,
/// any other text as itself); the decision's columns stay the decision's.
#[test]
fn verdicts_written_through_the_view_read_back_as_written() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let shown = |run: &str, step: i64| {
        rows(
            &conn,
            &format!(
                "SELECT run_id, step, catalogue, reason, rung, routing, boundary, progress,
                        label_source, arguments
                 FROM ladder WHERE run_id = '{run}' AND step = {step}"
            ),
        )
    };
    let stored = |run: &str, step: i64| {
        rows(
            &conn,
            &format!(
                "SELECT reason, routing, boundary FROM ladder_rows
                 WHERE decision_id = (SELECT id FROM decision_rows
                                      WHERE run_id = '{run}' AND step = {step})"
            ),
        )
        .remove(0)
    };
    // r-102 step 2: refund_invoice outside its inline label (SELECTION), refused
    // at precondition with reason subscription_still_active.
    assert_eq!(
        shown("r-102", 2),
        vec![vec![
            text("r-102"),
            Sql::Integer(2),
            text("desk-1"),
            text("subscription_still_active"),
            text("selection"),
            text("selection"),
            text("precondition"),
            text("none"),
            text("inline"),
            Sql::Null
        ]]
    );
    conn.execute_batch(
        "UPDATE ladder SET reason = NULL, routing = 'bogus', boundary = 'schema',
            catalogue = 'desk-2', run_id = 'elsewhere', step = 99
         WHERE run_id = 'r-102' AND step = 2;",
    )
    .unwrap();
    assert_eq!(
        shown("r-102", 2),
        vec![vec![
            text("r-102"),
            Sql::Integer(2),
            text("desk-2"),
            Sql::Null,
            text("selection"),
            text("bogus"),
            text("schema"),
            text("none"),
            text("inline"),
            Sql::Null
        ]]
    );
    assert_eq!(
        stored("r-102", 2),
        vec![Sql::Blob(Vec::new()), text("bogus"), Sql::Integer(1)]
    );
    assert_eq!(
        count_of(
            &conn,
            "SELECT count(*) FROM catalogue_ids WHERE version = 'desk-2'"
        ),
        1
    );
    // The decision's own reason again: stored as NULL.
    conn.execute_batch(
        "UPDATE ladder SET reason = 'subscription_still_active'
         WHERE run_id = 'r-102' AND step = 2;",
    )
    .unwrap();
    assert_eq!(stored("r-102", 2)[0], Sql::Null);

    // Deleted and inserted again: r-104's two verdicts.
    let r104 = rows(
        &conn,
        "SELECT * FROM ladder WHERE run_id = 'r-104' ORDER BY step",
    );
    assert_eq!(r104.len(), 2);
    conn.execute_batch("DELETE FROM ladder WHERE run_id = 'r-104'")
        .unwrap();
    assert_eq!(count_of(&conn, "SELECT count(*) FROM ladder_rows"), 10);
    let columns = rows(&conn, "SELECT name FROM pragma_table_info('ladder')")
        .into_iter()
        .map(|r| match &r[0] {
            Sql::Text(t) => t.clone(),
            v => panic!("{v:?}"),
        })
        .collect::<Vec<_>>();
    assert_eq!(columns.len(), 34);
    for r in &r104 {
        let marks = vec!["?"; r.len()].join(", ");
        conn.execute(
            &format!(
                "INSERT INTO ladder ({}) VALUES ({marks})",
                columns.join(", ")
            ),
            rusqlite::params_from_iter(r.iter()),
        )
        .unwrap();
    }
    assert_eq!(
        rows(
            &conn,
            "SELECT * FROM ladder WHERE run_id = 'r-104' ORDER BY step"
        ),
        r104
    );
    assert_eq!(count_of(&conn, "SELECT count(*) FROM ladder_rows"), 12);
}

fn count_of(conn: &Connection, sql: &str) -> i64 {
    match one(conn, sql) {
        Sql::Integer(n) => n,
        v => panic!("{sql}: {v:?}"),
    }
}

/// The plan of `sql`, one line per step.
fn plan(conn: &Connection, sql: &str) -> String {
    rows(conn, &format!("EXPLAIN QUERY PLAN {sql}"))
        .into_iter()
        .map(|r| match &r[3] {
            Sql::Text(t) => t.clone(),
            v => panic!("{v:?}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The queries of reports and lists through the view: a run's verdicts are
/// found through decision_rows' (run_id, step) index, a time window and a
/// rung through their own, and a count over the verdicts alone does not
/// read the decisions at all.
#[test]
fn verdict_queries_use_their_indexes() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let p = plan(
        &conn,
        "SELECT l.step, l.rung FROM ladder l WHERE l.run_id = 'r-101' ORDER BY l.step",
    );
    assert!(
        p.contains("INDEX sqlite_autoindex_decision_rows_1 (run_id=?)"),
        "{p}"
    );
    assert!(p.contains("USING INTEGER PRIMARY KEY (rowid=?)"), "{p}");
    assert!(!p.contains("TEMP B-TREE"), "{p}");
    let p = plan(
        &conn,
        "SELECT count(*) FROM ladder l WHERE l.time_us >= 1 AND l.time_us < 2",
    );
    assert!(
        p.contains("INDEX ladder_time (time_us>? AND time_us<?)"),
        "{p}"
    );
    let p = plan(
        &conn,
        "SELECT l.decision_id FROM ladder l WHERE l.rung = 'selection' ORDER BY l.decision_id",
    );
    assert!(p.contains("INDEX ladder_rung (rung=?)"), "{p}");
    // The ladder report's count reads the verdicts alone.
    let p = plan(
        &conn,
        "SELECT l.rung, l.label_source IS NOT NULL, count(*) FROM ladder_verdicts l
         GROUP BY l.rung, l.label_source IS NOT NULL",
    );
    assert!(!p.contains("decision_rows") && !p.contains(" d "), "{p}");
    assert_eq!(
        rows(
            &conn,
            "SELECT l.rung, count(*) FROM ladder_verdicts l GROUP BY 1 ORDER BY 1"
        ),
        rows(
            &conn,
            "SELECT rung, count(*) FROM ladder GROUP BY 1 ORDER BY 1"
        )
    );
    // A run's verdicts, by the lists' SQL: r-102's four (steps 2 and 4
    // picked a tool outside their labels; 3 and 4 were refused at the
    // authorization boundary, 2 at precondition).
    assert_eq!(
        rows(
            &conn,
            "SELECT l.step, l.rung, l.boundary FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE l.run_id = 'r-102' ORDER BY l.step"
        ),
        vec![
            vec![Sql::Integer(1), text("passed"), Sql::Null],
            vec![Sql::Integer(2), text("selection"), text("precondition")],
            vec![
                Sql::Integer(3),
                text("authorization"),
                text("authorization")
            ],
            vec![Sql::Integer(4), text("selection"), text("authorization")],
        ]
    );
}
