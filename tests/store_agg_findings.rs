//! The Findings screen's counts kept (schema 9, `agg_findings`): after an
//! import, writes by hand and the upgrade from schema 8, the screen's counts
//! for any window are the findings' own (counted by hand from desk.jsonl
//! and menus.jsonl), and the long way's; so are the Findings lists found
//! through them.

mod import_util;
mod store_util;

use import_util::*;
use rung::filter::Filter;
use rung::store::agg::findings::timed_in;
use rung::store::browse::{
    Anchor, FindingCounts, FindingItem, FindingSet, Key, KindCount, findings_page,
};
use rung::store::findings::{finding_counts, finding_counts_long};
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

/// 2026-11-DD hh:mm:ss UTC in microseconds.
fn at(dd: i64, hh: i64, mm: i64, ss: i64) -> i64 {
    // 2026-11-01T00:00:00Z
    (1_793_491_200 + (dd - 1) * 86_400 + hh * 3600 + mm * 60 + ss) * 1_000_000
}

const WEEK: i64 = 7 * 86_400 * 1_000_000;

fn kc(kind: &str, count: u64, runs: u64, previous: u64, undated: u64) -> KindCount {
    KindCount {
        kind: kind.into(),
        count,
        runs,
        previous,
        undated,
    }
}

/// The kept counts (asserting they answer), checked against the long way;
/// and each kind's Findings list, found through them, against the list
/// the long way.
fn kept(conn: &Connection, since: i64, until: i64) -> FindingCounts {
    let c = rung::store::agg::findings::counts(conn, since, until)
        .unwrap()
        .expect("the kept counts answer");
    let long = finding_counts_long(conn, &Filter::default(), since, until).unwrap();
    assert_eq!(c, long, "[{since}, {until})");
    for k in &c.rows {
        lists_match(conn, &k.kind, since, until);
    }
    // Under a filter, the counts read among the runs the kept counts place
    // in the windows are those read the long way.
    for f in &filters() {
        assert!(timed_in(conn, None, since, until).is_some());
        assert_eq!(
            finding_counts(conn, f, since, until).unwrap(),
            finding_counts_long(conn, f, since, until).unwrap(),
            "[{since}, {until}) {f:?}"
        );
    }
    c
}

/// No filter, a model, a tag, a catalogue.
fn filters() -> [Filter; 4] {
    let v = |s: &str| vec![s.to_string()];
    [
        Filter::default(),
        Filter {
            models: v("gpt-4o"),
            ..Filter::default()
        },
        Filter {
            tags: vec![("suite".into(), "m19".into())],
            ..Filter::default()
        },
        Filter {
            catalogues: v("desk-1"),
            ..Filter::default()
        },
    ]
}

/// A Findings list's first and last pages, with the list's length.
type Ends = (
    Vec<(Key, FindingItem)>,
    Option<u64>,
    Vec<(Key, FindingItem)>,
    Option<u64>,
);

fn ends(conn: &Connection, f: &Filter, set: &FindingSet) -> Ends {
    // Three a page: the length is counted when there are more.
    let first = findings_page(conn, f, set, &Anchor::First, 3).unwrap();
    let last = findings_page(conn, f, set, &Anchor::Last, 3).unwrap();
    (first.rows, first.total, last.rows, last.total)
}

/// The Findings list of `kind` in the window, under no filter, a model, a
/// tag and a catalogue: read from the runs the kept counts place in the
/// window, it is the list read the long way (every finding timed).
fn lists_match(conn: &Connection, kind: &str, since: i64, until: i64) {
    let set = FindingSet {
        kind: kind.to_string(),
        since,
        until,
    };
    for f in &filters() {
        assert!(timed_in(conn, Some(kind), since, until).is_some());
        let kept = ends(conn, f, &set);
        conn.execute_batch("BEGIN; INSERT INTO agg_dirty VALUES (0);")
            .unwrap();
        assert!(timed_in(conn, Some(kind), since, until).is_none());
        let long = ends(conn, f, &set);
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(kept, long, "{kind} [{since}, {until}) {f:?}");
    }
}

/// The week to Nov 19 00:00 (whole hours): desk's r-101 (Nov 17), m-1 and
/// r-102 (Nov 18); the week before r-104 (Nov 10); m-2's four
/// exposure mismatches have no time.
fn week_to_the_19th() -> FindingCounts {
    FindingCounts {
        rows: vec![
            kc("menu_changed", 3, 3, 0, 0),
            kc("exposure_mismatch", 2, 1, 0, 4),
            kc("hidden_proposal", 1, 1, 0, 0),
            kc("unsourced_id", 1, 1, 1, 0),
            kc("schema_violation", 0, 0, 1, 0),
        ],
        runs: 3,
    }
}

/// From Nov 18 14:00:05 (between r-102's steps 2 and 4, inside an hour):
/// r-102's step 4 and r-103 (Nov 19); the week before, r-101, m-1 and
/// r-102's step 2.
fn week_from_the_18th_1400() -> FindingCounts {
    FindingCounts {
        rows: vec![
            kc("hidden_proposal", 2, 2, 0, 0),
            kc("schema_violation", 1, 1, 0, 0),
            kc("exposure_mismatch", 0, 0, 2, 4),
            kc("menu_changed", 0, 0, 3, 0),
            kc("unsourced_id", 0, 0, 1, 0),
        ],
        runs: 2,
    }
}

fn assert_exact(conn: &Connection) {
    assert_eq!(
        kept(conn, at(12, 0, 0, 0), at(19, 0, 0, 0)),
        week_to_the_19th()
    );
    let since = at(18, 14, 0, 5);
    assert_eq!(kept(conn, since, since + WEEK), week_from_the_18th_1400());
    // Other windows: edges in the hours of findings, on them, and none.
    for (since, until) in [
        (at(18, 10, 0, 0), at(18, 14, 0, 5)),
        (at(17, 9, 0, 6), at(19, 10, 0, 3)),
        (at(10, 8, 0, 1), at(18, 10, 0, 0)),
        (at(1, 0, 0, 0), at(30, 0, 0, 0)),
        (at(20, 0, 0, 0), at(27, 0, 0, 0)),
    ] {
        kept(conn, since, until);
    }
}

/// The kept rows: run name, hour, kind, findings.
fn kept_rows(conn: &Connection) -> Vec<Vec<Sql>> {
    rows(
        conn,
        "SELECT n.name, a.hour, k.name, a.findings FROM agg_findings a
         JOIN finding_names n ON n.id = a.run JOIN finding_kinds k ON k.id = a.kind
         ORDER BY 1, 2, 3",
    )
}

fn expected_rows() -> Vec<Vec<Sql>> {
    let h = |dd, hh| Sql::Integer(at(dd, hh, 0, 0) / 3_600_000_000);
    let none = Sql::Integer(i64::MIN);
    let r = |run: &str, hour: Sql, kind: &str, n: i64| {
        vec![text(run), hour, text(kind), Sql::Integer(n)]
    };
    vec![
        r("m-1", h(18, 10), "exposure_mismatch", 2),
        r("m-1", h(18, 10), "menu_changed", 1),
        r("m-2", none, "exposure_mismatch", 4),
        r("r-101", h(17, 9), "menu_changed", 1),
        r("r-102", h(18, 14), "hidden_proposal", 1),
        r("r-102", h(18, 14), "menu_changed", 1),
        r("r-102", h(18, 14), "unsourced_id", 1),
        r("r-103", h(19, 10), "hidden_proposal", 1),
        r("r-103", h(19, 10), "schema_violation", 1),
        r("r-104", h(10, 8), "schema_violation", 1),
        r("r-104", h(10, 8), "unsourced_id", 1),
    ]
}

#[test]
fn counts_after_an_import_are_the_findings_own() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(kept_rows(&conn), expected_rows());
    assert_exact(&conn);
    // The week's exposure mismatches: m-1's two (Nov 18), m-2's four with
    // no time.
    let set = FindingSet {
        kind: "exposure_mismatch".into(),
        since: at(12, 0, 0, 0),
        until: at(19, 0, 0, 0),
    };
    let (_, total, _, _) = ends(&conn, &Filter::default(), &set);
    assert_eq!(total, Some(6));
    let all = findings_page(&conn, &Filter::default(), &set, &Anchor::First, 10).unwrap();
    let mut runs: Vec<_> = all.rows.iter().map(|(_, i)| i.row.run_id.clone()).collect();
    runs.sort();
    let run = |r: &str| Some(r.to_string());
    assert_eq!(
        runs,
        [
            run("m-1"),
            run("m-1"),
            run("m-2"),
            run("m-2"),
            run("m-2"),
            run("m-2")
        ]
    );
    // The findings' total from the kept rows: desk's eight, menus' seven.
    assert_eq!(rung::store::agg::findings::total(&conn).unwrap(), Some(15));
    assert_eq!(
        rung::store::query::count_findings(&conn, &Filter::default()).unwrap(),
        15
    );
    // A filter the kept counts do not hold is counted the long way.
    let f = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    assert_eq!(
        rung::store::browse::finding_counts(&conn, &f, at(12, 0, 0, 0), at(19, 0, 0, 0)).unwrap(),
        finding_counts_long(&conn, &f, at(12, 0, 0, 0), at(19, 0, 0, 0)).unwrap()
    );
}

#[test]
fn writes_by_hand_are_counted_again() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    // A finding deleted through the view: the kept counts step aside until
    // counted again.
    conn.execute_batch("DELETE FROM findings WHERE run_id = 'r-103' AND kind = 'schema_violation'")
        .unwrap();
    assert!(
        rung::store::agg::findings::counts(&conn, 0, 1)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        rung::store::query::count_findings(&conn, &Filter::default()).unwrap(),
        14
    );
    rung::store::agg::refresh(&conn).unwrap();
    assert_eq!(rung::store::agg::findings::total(&conn).unwrap(), Some(14));
    let mut want = week_from_the_18th_1400();
    want.rows.remove(1);
    let since = at(18, 14, 0, 5);
    assert_eq!(kept(&conn, since, since + WEEK), want);
    // r-101's step 3 moved a day back: its day and the new one are listed.
    conn.execute_batch(&format!(
        "UPDATE ladder_rows SET time_us = {} WHERE decision_id =
            (SELECT id FROM decision_rows WHERE run_id = 'r-101' AND step = 3)",
        at(16, 9, 0, 6)
    ))
    .unwrap();
    rung::store::agg::refresh(&conn).unwrap();
    assert_eq!(
        one(
            &conn,
            "SELECT hour FROM agg_findings a JOIN finding_names n ON n.id = a.run WHERE n.name = 'r-101'"
        ),
        Sql::Integer(at(16, 9, 0, 0) / 3_600_000_000)
    );
    kept(&conn, at(16, 9, 30, 0), at(17, 9, 30, 0));
    // A finding of a run with no verdict at all, inserted by hand: undated
    // (r-101 still counts in the week: Nov 16).
    conn.execute_batch(
        "INSERT INTO findings (kind, catalogue, task_id, run_id, step, tool, detail)
         VALUES ('menu_changed', 'desk-1', NULL, 'r-none', 1, NULL, 'by hand')",
    )
    .unwrap();
    rung::store::agg::refresh(&conn).unwrap();
    let c = kept(&conn, at(12, 0, 0, 0), at(19, 0, 0, 0));
    let menu = c.rows.iter().find(|k| k.kind == "menu_changed").unwrap();
    assert_eq!(menu, &kc("menu_changed", 3, 3, 0, 1));
}

#[test]
fn a_schema_8_database_gets_the_findings_counts_on_upgrade() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v8.sql"), 8);
    let before: Vec<Vec<Vec<Sql>>> = {
        let conn = Connection::open(&db).unwrap();
        rows_of(&conn, &every_decision_and_view())
    };
    // Opening it to write upgrades it (and classifies nothing).
    let store = rung::store::Store::open_rw(&db).unwrap();
    let conn = &store.conn;
    assert_eq!(
        one(conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    assert_eq!(kept_rows(conn), expected_rows());
    assert_exact(conn);
    assert_eq!(
        one(
            conn,
            "SELECT count(*) FROM sqlite_master WHERE name = 'finding_rows_catalogue'"
        ),
        Sql::Integer(0)
    );
    for (q, b) in every_decision_and_view().iter().zip(&before) {
        assert_eq!(&rows(conn, q), b, "{q}");
    }
    // The names the count tables held as text are ids now, and the token
    // counts one blob per key.
    assert_eq!(
        rows(
            conn,
            "SELECT typeof(tool), count(*) FROM agg_tools GROUP BY 1
             UNION ALL SELECT typeof(task_id), count(*) FROM agg_firsts GROUP BY 1
             UNION ALL SELECT typeof(counts), count(*) FROM agg_tokens GROUP BY 1"
        )
        .iter()
        .map(|r| r[0].clone())
        .collect::<Vec<_>>(),
        vec![text("integer"), text("integer"), text("blob")]
    );
    assert_eq!(
        one(
            conn,
            "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v8'"
        ),
        Sql::Integer(0)
    );
    drop(store);
    // The same reports as a fresh import.
    let (_d2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    for kind in ["ladder", "metrics", "tools", "findings", "refusals"] {
        let shown = |db: &std::path::Path| {
            let mut r = report(db, kind);
            if let Some(o) = r.as_object_mut() {
                o.remove("window");
            }
            r
        };
        assert_eq!(shown(&db), shown(&fresh), "report {kind}");
    }
    let a = Connection::open(&db).unwrap();
    let b = Connection::open(&fresh).unwrap();
    for q in [
        "SELECT * FROM agg_tools a JOIN agg_names n ON n.id = a.tool ORDER BY key, n.name",
        "SELECT * FROM agg_tokens ORDER BY key",
        "SELECT * FROM agg_keys ORDER BY id",
    ] {
        assert_eq!(
            rows(&a, &q.replace("SELECT *", "SELECT count(*)")),
            rows(&b, &q.replace("SELECT *", "SELECT count(*)")),
            "{q}"
        );
    }
}
