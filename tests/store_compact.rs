//! The compact store (schema 3): tool names interned once, menus stored by
//! id and shared, the `decisions` view spelling every name out; the
//! migration from a schema-2 database written by the rung before it; and
//! every query docs/schema.md shows.

mod import_util;
mod store_util;

use std::path::Path;

use import_util::*;
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

#[test]
fn menus_are_ids_shared_and_shown_with_their_names() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();

    // The view spells the menus as they were recorded.
    let m1: Vec<Vec<Sql>> = rows(
        &conn,
        "SELECT trusted_controls, retrieval, exposed, visible, policy FROM decisions
         WHERE run_id = 'm-1' ORDER BY step",
    );
    assert_eq!(
        m1,
        vec![
            vec![Sql::Null, Sql::Null, Sql::Null, Sql::Null, Sql::Null],
            vec![
                text(r#"["ask_user"]"#),
                text(
                    r#"{"k":2,"candidates":[{"name":"list_invoices","score":0.30000000000000004},{"name":"refund_invoice"},{"name":"find_customer","score":-0.25}]}"#
                ),
                text(r#"["list_invoices","refund_invoice","find_customer"]"#),
                text(r#"["ask_user","list_invoices","refund_invoice"]"#),
                Sql::Null,
            ],
            vec![
                Sql::Null,
                // A candidate with a field of its own is kept as recorded.
                text(
                    r#"{"k":1,"selector":"embed@2","candidates":[{"name":"list_invoices","score":0.9,"source":"bm25"}]}"#
                ),
                text("[]"),
                text(r#"["list_invoices"]"#),
                text(
                    r#"{"allowed_families":["billing"],"max_effect":"read_only","allow_open_world":false}"#
                ),
            ],
        ]
    );

    // Stored: menu ids; names only in tool_names, each once.
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM decision_rows
             WHERE typeof(visible) = 'text' OR typeof(retrieval) = 'text'
                OR typeof(exposed) = 'text' OR typeof(trusted_controls) = 'text'
                OR typeof(policy) = 'text'"
        ),
        Sql::Integer(0)
    );
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM menus WHERE body LIKE '%list_invoices%'"
        ),
        // Only the retrieval kept whole for its candidate's own field.
        Sql::Integer(1)
    );
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM ladder WHERE retrieved LIKE '%list_invoices%'"
        ),
        Sql::Integer(0)
    );
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM tool_names WHERE name = 'list_invoices'"
        ),
        Sql::Integer(1)
    );
    // m-2's two decisions show the same menu: stored once.
    assert_eq!(
        rows(
            &conn,
            "SELECT count(*), count(DISTINCT visible) FROM decision_rows WHERE run_id = 'm-2'"
        ),
        vec![vec![Sql::Integer(2), Sql::Integer(1)]]
    );
    // r-101's three decisions carry the same policy: stored once.
    assert_eq!(
        rows(
            &conn,
            "SELECT count(policy), count(DISTINCT policy) FROM decision_rows WHERE run_id = 'r-101'"
        ),
        vec![vec![Sql::Integer(3), Sql::Integer(1)]]
    );

    // One name list in three fields, on two decisions: one row, and each
    // field reads as recorded.
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.jsonl");
    std::fs::write(
        &same,
        concat!(
            r#"{"type":"decision","run_id":"s-1","step":1,"trusted_controls":["x","y"],"exposed":["x","y"],"visible":["x","y"],"selected":"x"}"#,
            "\n",
            r#"{"type":"decision","run_id":"s-1","step":2,"exposed":["x","y"],"visible":["y"],"selected":"y"}"#,
            "\n",
        ),
    )
    .unwrap();
    import(&db, &["-q", same.to_str().unwrap()]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(
        rows(
            &conn,
            "SELECT count(DISTINCT v) FROM (
               SELECT trusted_controls AS v FROM decision_rows WHERE run_id = 's-1' AND step = 1
               UNION ALL SELECT exposed FROM decision_rows WHERE run_id = 's-1'
               UNION ALL SELECT visible FROM decision_rows WHERE run_id = 's-1' AND step = 1)"
        ),
        vec![vec![Sql::Integer(1)]]
    );
    assert_eq!(
        rows(
            &conn,
            "SELECT trusted_controls, exposed, visible FROM decisions
             WHERE run_id = 's-1' ORDER BY step"
        ),
        vec![
            vec![
                text(r#"["x","y"]"#),
                text(r#"["x","y"]"#),
                text(r#"["x","y"]"#)
            ],
            vec![Sql::Null, text(r#"["x","y"]"#), text(r#"["y"]"#)],
        ]
    );

    // What rung reads back is what it was given: explain ranks the
    // candidates with their scores.
    let e = explain(&db, "m-1");
    let why = |name: &str| -> String {
        e["decisions"][1]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["why"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        why("list_invoices"),
        "no policy, retrieved: rank 1 (score 0.30000000000000004) \u{2264} k=2"
    );
    assert_eq!(
        why("refund_invoice"),
        "no policy, retrieved: rank 2 \u{2264} k=2"
    );
    assert_eq!(
        why("find_customer"),
        "no policy, not retrieved: rank 3 (score -0.25) > k=2"
    );
}

#[test]
fn a_schema_2_database_is_packed_and_reads_the_same() {
    let (_dir, db) = setup();
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(include_str!("fixtures/migration/schema-v2.sql"))
            .unwrap();
        conn.execute_batch("PRAGMA user_version = 2").unwrap();
    }
    let before = rows(&Connection::open(&db).unwrap(), ALL_DECISIONS);
    assert_eq!(before.len(), 17);

    // Re-importing the same files migrates the database and finds every
    // record unchanged: identities did not move.
    let out = import(&db, &[&path(DESK), &path(MENUS)]);
    assert_eq!(
        out,
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 2 files\n\
         25 records were already stored unchanged\n\
         classified 0 runs\n"
    );
    let conn = Connection::open(&db).unwrap();
    assert_eq!(
        one(&conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    assert_eq!(rows(&conn, ALL_DECISIONS), before);
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM decision_rows WHERE typeof(visible) = 'text'"
        ),
        Sql::Integer(0)
    );
    // The packed ladder lists read as the old ones did; classified again
    // from the packed menus, everything is as a fresh import has it (the
    // findings too, which the rung of the fixture had fewer kinds of).
    let (_dir2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    let same = |kinds: &[&str]| {
        for kind in kinds {
            // The refusal window ends now: leave it out.
            let shown = |db: &Path| {
                let mut r = report(db, kind);
                r.as_object_mut().unwrap().remove("window");
                r
            };
            assert_eq!(shown(&db), shown(&fresh), "report {kind}");
        }
    };
    let reports = [
        "ladder",
        "metrics",
        "tools",
        "refusals",
        "confusions",
        "runs",
    ];
    same(&reports);
    assert_eq!(rung(&db, &["-q", "reclassify"]).code, 0);
    same(&reports);
    // These show audit findings too.
    same(&["findings", "budget"]);
    for run in ["r-101", "m-1", "m-2"] {
        assert_eq!(explain(&db, run), explain(&fresh, run), "explain {run}");
    }
    assert_eq!(rows(&Connection::open(&db).unwrap(), ALL_DECISIONS), before);
}

/// A database written by the rung of schema 3 (`rung import` of desk.jsonl
/// and menus.jsonl, then `sqlite3 .dump`): upgraded in place to schema 4,
/// its sources are integers and its retrievals share their heads, and
/// every decision reads as before.
#[test]
fn a_schema_3_database_is_compacted_and_reads_the_same() {
    let (_dir, db) = setup();
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(include_str!("fixtures/migration/schema-v3.sql"))
            .unwrap();
        conn.execute_batch("PRAGMA user_version = 3").unwrap();
    }
    let before = rows(&Connection::open(&db).unwrap(), ALL_DECISIONS);
    assert_eq!(before.len(), 17);
    let sources = |conn: &Connection| {
        one(
            conn,
            "SELECT count(*) FROM decision_rows WHERE typeof(source) = 'text'",
        )
    };
    assert_eq!(sources(&Connection::open(&db).unwrap()), Sql::Integer(17));

    let out = import(&db, &[&path(DESK), &path(MENUS)]);
    assert_eq!(
        out,
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 2 files\n\
         25 records were already stored unchanged\n\
         classified 0 runs\n"
    );
    let conn = Connection::open(&db).unwrap();
    assert_eq!(
        one(&conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    assert_eq!(rows(&conn, ALL_DECISIONS), before);
    assert_eq!(sources(&conn), Sql::Integer(0));
    assert_eq!(
        one(&conn, "SELECT count(*) FROM source_paths"),
        Sql::Integer(2)
    );
    // m-1 step 2's retrieval has neither selector nor query: nothing to
    // share; the fixture's retrievals with a query keep it in a row of its own.
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM menus WHERE json_valid(body) AND json_type(body, '$.c') IS NOT NULL
                AND (json_type(body, '$.query') IS NOT NULL
                     OR json_type(body, '$.selector') IS NOT NULL)"
        ),
        Sql::Integer(0)
    );
    // Reports read the upgraded database as a fresh import's.
    let (_dir2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    for kind in ["ladder", "metrics", "tools", "refusals", "findings"] {
        let shown = |db: &Path| {
            let mut r = report(db, kind);
            r.as_object_mut().unwrap().remove("window");
            r
        };
        assert_eq!(shown(&db), shown(&fresh), "report {kind}");
    }
    for run in ["r-101", "m-1", "m-2"] {
        assert_eq!(explain(&db, run), explain(&fresh, run), "explain {run}");
    }
    // A fresh import stores what the upgrade made of the old one.
    let fresh_conn = Connection::open(&fresh).unwrap();
    assert_eq!(rows(&fresh_conn, ALL_DECISIONS), {
        // The fresh import's sources are absolute paths; the fixture's relative.
        let mut b = before.clone();
        for (r, f) in b.iter_mut().zip(rows(&fresh_conn, ALL_DECISIONS)) {
            r[24] = f[24].clone();
            r[25] = f[25].clone();
        }
        b
    });
}

/// The `sqlite3 rung.db "..."` queries of docs/schema.md.
fn documented_queries() -> Vec<String> {
    let doc = std::fs::read_to_string(path("docs/schema.md")).unwrap();
    let mut out = Vec::new();
    let mut rest = doc.as_str();
    while let Some(i) = rest.find("sqlite3 rung.db \"") {
        rest = &rest[i + "sqlite3 rung.db \"".len()..];
        let end = rest.find('"').unwrap();
        out.push(rest[..end].to_string());
        rest = &rest[end + 1..];
    }
    out
}

#[test]
fn every_documented_query_runs_and_shows_names() {
    let (_dir, db) = setup();
    import(
        &db,
        &[
            "-q",
            &path(DESK),
            &path(MENUS),
            &path("tests/fixtures/expectations/airline.jsonl"),
        ],
    );
    let conn = Connection::open(&db).unwrap();
    let queries = documented_queries();
    assert_eq!(queries.len(), 4, "{queries:#?}");
    let results: Vec<Vec<Vec<Sql>>> = queries.iter().map(|q| rows(&conn, q)).collect();
    for (q, r) in queries.iter().zip(&results) {
        assert!(!r.is_empty(), "no rows: {q}");
    }
    // The confusion cells: acceptable names against the selected name, as
    // `rung report confusions` counts them.
    let mut cells: Vec<Vec<Sql>> = report(&db, "confusions")["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            vec![
                text(&c["acceptable"].to_string()),
                match &c["selected"] {
                    serde_json::Value::String(s) => text(s),
                    _ => Sql::Null,
                },
                Sql::Integer(c["count"].as_i64().unwrap()),
            ]
        })
        .collect();
    let mut shown = results[3].clone();
    let key = |r: &Vec<Sql>| format!("{r:?}");
    cells.sort_by_key(key);
    shown.sort_by_key(key);
    assert!(cells.len() >= 3, "{cells:?}");
    assert_eq!(shown, cells, "{}", queries[3]);
}

/// A database written by the rung of schema 4 (`rung import` of desk.jsonl
/// and menus.jsonl, then `sqlite3 .dump`): upgraded in place to schema 5,
/// its retrieval candidates are characters where their scores come back bit
/// for bit, `at` and `outcome` are left out where the views rebuild them,
/// and it stores and shows what a fresh import stores and shows.
#[test]
fn a_schema_4_database_is_compacted_and_is_what_a_fresh_import_is() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v4.sql"), 4);
    let queries = every_decision_and_view();
    let before = rows_of(&Connection::open(&db).unwrap(), &queries);
    assert_eq!(before[0].len(), 17);
    let conn = upgrade_by_reimport(&db, &queries, &before);
    // desk.jsonl's 12 decisions have whole-second times; menus.jsonl's 5
    // none. 13 outcomes say no more than status, stage and reason (the
    // four refusals and the error with a message keep theirs). The seven
    // retrievals with scores of up to two decimals are characters; m-1
    // step 2's (0.30000000000000004) keeps its numbers.
    let count = |q: &str| one(&conn, q);
    assert_eq!(
        count("SELECT count(*) FROM decision_rows WHERE at IS NULL AND at_us IS NOT NULL"),
        Sql::Integer(12)
    );
    assert_eq!(
        count("SELECT count(*) FROM decision_rows WHERE typeof(at) <> 'null'"),
        Sql::Integer(0)
    );
    assert_eq!(
        count("SELECT count(*) FROM decision_rows WHERE outcome IS NULL"),
        Sql::Integer(13)
    );
    // (Schema 7 then writes those seven as characters of its own, `r…`.)
    assert_eq!(
        count("SELECT count(*) FROM menus WHERE substr(body, 1, 1) = 'r'"),
        Sql::Integer(7)
    );
    assert_eq!(
        count(
            "SELECT body FROM menus WHERE json_valid(body) AND json_type(body, '$.c') IS NOT NULL"
        ),
        text("{\"k\":2,\"c\":[4,0.30000000000000004,5,null,3,-0.25]}")
    );

    // A fresh import stores and shows the same.
    let (_dir2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    let fresh_conn = Connection::open(&fresh).unwrap();
    // (A fresh import stores each distinct outcome in `menus` as it meets
    // it, the upgrade after the menus it already held (schema 7): the
    // menus' ids may differ, so they are compared by what they hold.)
    let stored = "SELECT id, run_id, step, at, at_us, status, stage, reason,
        typeof(outcome), typeof(policy), typeof(trusted_controls), typeof(retrieval),
        typeof(exposed), typeof(visible) FROM decision_rows ORDER BY id";
    assert_eq!(rows(&fresh_conn, stored), rows(&conn, stored));
    let shown = "SELECT id, outcome, policy, trusted_controls, retrieval, exposed, visible
        FROM decisions ORDER BY id";
    assert_eq!(rows(&fresh_conn, shown), rows(&conn, shown));
    let menus = "SELECT count(*), count(DISTINCT body) FROM menus";
    assert_eq!(rows(&fresh_conn, menus), rows(&conn, menus));
    // Findings name their kind and catalogue by id.
    let findings = "SELECT k.name, c.version, x.catalogue, x.run_id, x.step, x.tool, x.detail,
        x.packed FROM finding_rows x JOIN finding_kinds k ON k.id = x.kind
        LEFT JOIN catalogue_ids c ON c.id = x.catalogue ORDER BY x.id";
    assert_eq!(rows(&fresh_conn, findings), rows(&conn, findings));
    assert_eq!(
        count("SELECT count(*) FROM finding_rows WHERE typeof(kind) = 'integer'"),
        count("SELECT count(*) FROM findings")
    );
    // Their task, run and tool by `finding_names` id, named as the view
    // shows them, in a fresh import as in the upgraded one.
    assert_eq!(
        count(
            "SELECT count(*) FROM finding_rows WHERE typeof(task_id) = 'text'
             OR typeof(run_id) = 'text' OR typeof(tool) = 'text'"
        ),
        Sql::Integer(0)
    );
    let named = "SELECT x.id, t.name, r.name, n.name FROM finding_rows x
        LEFT JOIN finding_names t ON t.id = x.task_id LEFT JOIN finding_names r ON r.id = x.run_id
        LEFT JOIN finding_names n ON n.id = x.tool ORDER BY x.id";
    let shown = "SELECT id, task_id, run_id, tool FROM findings ORDER BY id";
    assert_eq!(rows(&conn, named), rows(&conn, shown));
    assert_eq!(rows(&fresh_conn, named), rows(&conn, shown));
    // The fixture's 15 findings name 4 tasks (harbor-refund,
    // northwind-cancel, lumen-export, m-task), 6 runs (r-101 to r-104, m-1,
    // m-2) and 7 tools, each stored once.
    assert_eq!(
        count("SELECT count(*) FROM finding_names"),
        Sql::Integer(17)
    );
    assert_fresh_shows(
        &db,
        &fresh,
        &queries,
        &before,
        &["ladder", "metrics", "tools", "refusals", "findings"],
    );
}

/// Writing through the `decisions` view: a NULL `at` or `outcome` stays
/// NULL though the view would rebuild one, and changing the status of a
/// decision whose outcome was left out keeps the outcome it showed.
#[test]
fn at_and_outcome_written_through_the_view_read_back_as_written() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let shown = |id: i64| {
        rows(
            &conn,
            &format!("SELECT at, at_us, status, outcome FROM decisions WHERE id = {id}"),
        )
        .remove(0)
    };
    assert_eq!(
        shown(1),
        vec![
            text("2026-11-17T09:00:01Z"),
            Sql::Integer(1794906001000000),
            text("ok"),
            text("{\"status\":\"ok\"}")
        ]
    );
    conn.execute_batch(
        "UPDATE decisions SET at = NULL, outcome = NULL WHERE id = 1;
         UPDATE decisions SET status = 'error' WHERE id = 2;
         UPDATE decisions SET at_us = at_us + 1000000 WHERE id = 3;",
    )
    .unwrap();
    assert_eq!(
        shown(1),
        vec![
            Sql::Null,
            Sql::Integer(1794906001000000),
            text("ok"),
            Sql::Null
        ]
    );
    assert_eq!(
        shown(2),
        vec![
            text("2026-11-17T09:00:03Z"),
            Sql::Integer(1794906003000000),
            text("error"),
            text("{\"status\":\"ok\"}")
        ]
    );
    assert_eq!(shown(3)[0], text("2026-11-17T09:00:06Z"));
    conn.execute_batch(
        "INSERT INTO decisions (id, run_id, step, at, at_us, status, outcome, record_hash)
         VALUES (100, 'r-x', 1, NULL, 5000000, 'ok', NULL, X'00')",
    )
    .unwrap();
    assert_eq!(
        shown(100),
        vec![Sql::Null, Sql::Integer(5000000), text("ok"), Sql::Null]
    );
}

/// Writing through the `findings` view: kinds and catalogues it has not
/// seen are interned, and it reads back as written.
#[test]
fn findings_written_through_the_view_read_back_as_written() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let before = one(&conn, "SELECT count(*) FROM findings");
    conn.execute_batch(
        "INSERT INTO findings (id, kind, catalogue, task_id, run_id, step, tool, detail)
         VALUES (1000, 'my_kind', 'my-cat', 't', 'r', 3, 'x', 'by hand');
         INSERT INTO findings (id, kind, catalogue, run_id, detail)
         VALUES (1001, 'schema_violation', NULL, 'r', 'no catalogue');",
    )
    .unwrap();
    let shown = |id: i64| {
        rows(
            &conn,
            &format!(
                "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
                 WHERE id = {id}"
            ),
        )
    };
    assert_eq!(
        shown(1000),
        vec![vec![
            text("my_kind"),
            text("my-cat"),
            text("t"),
            text("r"),
            Sql::Integer(3),
            text("x"),
            text("by hand")
        ]]
    );
    assert_eq!(shown(1001)[0][1], Sql::Null);
    conn.execute_batch(
        "UPDATE findings SET catalogue = 'other', kind = 'schema_violation' WHERE id = 1000;
         DELETE FROM findings WHERE id = 1001;",
    )
    .unwrap();
    assert_eq!(
        shown(1000)[0][..2],
        [text("schema_violation"), text("other")]
    );
    assert_eq!(shown(1001), Vec::<Vec<Sql>>::new());
    let Sql::Integer(n) = before else { panic!() };
    assert_eq!(
        one(&conn, "SELECT count(*) FROM findings"),
        Sql::Integer(n + 1)
    );
}

#[test]
fn reclassify_after_writes_through_the_view_is_the_import_of_the_same_trace() {
    // Through the view: r-102's step 3 deleted, r-103's step 2 moved to a
    // run id no run has; then `rung reclassify`. In the trace: the same
    // line left out, the other's run id changed. Every report agrees.
    let (dir, by_view) = setup();
    import(&by_view, &["-q", &path(DESK)]);
    let conn = Connection::open(&by_view).unwrap();
    conn.execute_batch(
        "DELETE FROM decisions WHERE run_id = 'r-102' AND step = 3;
         UPDATE decisions SET run_id = 'r-moved' WHERE run_id = 'r-103' AND step = 2;",
    )
    .unwrap();
    drop(conn);
    let r = rung(&by_view, &["reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);

    let text = std::fs::read_to_string(path(DESK)).unwrap();
    let edited: String = text
        .lines()
        .filter(|l| !l.contains(r#""run_id":"r-102","step":3"#))
        .map(|l| {
            l.replace(
                r#""run_id":"r-103","step":2"#,
                r#""run_id":"r-moved","step":2"#,
            )
        })
        .map(|l| l + "\n")
        .collect();
    assert_eq!(edited.lines().count(), 17);
    let trace = dir.path().join("edited.jsonl");
    std::fs::write(&trace, edited).unwrap();
    let by_trace = dir.path().join("trace.db");
    import(&by_trace, &["-q", trace.to_str().unwrap()]);

    for kind in [
        "ladder",
        "runs",
        "metrics",
        "tools",
        "confusions",
        "consistency",
    ] {
        assert_eq!(report(&by_view, kind), report(&by_trace, kind), "{kind}");
    }
    let ladder = report(&by_view, "ladder");
    assert_eq!(ladder["decisions"], 11, "{ladder}");
    let runs = report(&by_view, "runs");
    assert!(
        runs["runs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["run_id"] == "r-moved" && r["decisions"] == 1),
        "{runs}"
    );
    let conn = Connection::open(&by_view).unwrap();
    assert_eq!(
        one(&conn, "SELECT count(*) FROM ladder_rows"),
        Sql::Integer(11)
    );
}
