//! Each run's budget and findings kept (schema 11, `agg_runs`): after an
//! import, writes by hand and the upgrade from schema 9, `report budget` and
//! the findings summary read from them under models, tasks, run ids, tags
//! and whole-day windows are what every decision and finding say (the long
//! way), and the
//! figures counted by hand from desk.jsonl and menus.jsonl.

mod import_util;
mod store_util;

use import_util::*;
use rung::filter::Filter;
use rung::metrics::budget::{Percentiles, RunCost};
use rung::store::agg::run_read::{budget_scope, scope};
use rung::store::budget::{budget, budget_long};
use rung::store::findings::{FindingGroup, finding_groups, finding_groups_long};
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

/// 2026-11-DD 00:00:00 UTC in microseconds.
fn day(dd: i64) -> i64 {
    (1_793_491_200 + (dd - 1) * 86_400) * 1_000_000
}

fn filter(models: &[&str], since: Option<i64>, until: Option<i64>) -> Filter {
    Filter {
        since,
        until,
        models: models.iter().map(|m| m.to_string()).collect(),
        ..Filter::default()
    }
}

/// The filters the kept rows answer: none, models, whole-day windows (open
/// at either end), tasks, run ids and tags, and several together.
fn filters() -> Vec<Filter> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let suite = |v: &str| vec![("suite".to_string(), v.to_string())];
    vec![
        Filter::default(),
        filter(&["gpt-4o"], None, None),
        filter(&["qwen3:8b", "gpt-4o"], None, None),
        filter(&[], Some(day(17)), Some(day(19))),
        filter(&[], Some(day(18)), None),
        filter(&[], None, Some(day(19))),
        filter(&["qwen3:8b"], Some(day(10)), Some(day(20))),
        filter(&[], Some(day(20)), Some(day(27))),
        // r-101 and r-104.
        Filter {
            tasks: s(&["harbor-refund"]),
            ..Filter::default()
        },
        // m-2 has no time; with a window, none of the two.
        Filter {
            runs: s(&["r-102", "m-2"]),
            ..Filter::default()
        },
        Filter {
            runs: s(&["r-102", "m-2"]),
            ..filter(&[], Some(day(10)), Some(day(18)))
        },
        // Suite m19 is r-103 and r-104; m18 r-101 and r-102, of which
        // gpt-4o ran r-102; no run is in m20.
        Filter {
            tags: suite("m19"),
            ..Filter::default()
        },
        Filter {
            tags: suite("m18"),
            ..filter(&["gpt-4o"], None, None)
        },
        Filter {
            tags: suite("m20"),
            ..Filter::default()
        },
        Filter {
            tasks: s(&["m-task", "lumen-export"]),
            tags: suite("m19"),
            ..filter(&[], Some(day(18)), None)
        },
    ]
}

/// The kept rows answer every filter of [`filters`], as the long way does.
fn assert_exact(conn: &Connection) {
    for f in filters() {
        assert!(scope(conn, &f).unwrap().is_some(), "{f:?}");
        assert_eq!(
            budget(conn, &f).unwrap(),
            budget_long(conn, &f).unwrap(),
            "{f:?}"
        );
        assert_eq!(
            finding_groups(conn, &f).unwrap(),
            finding_groups_long(conn, &f).unwrap(),
            "{f:?}"
        );
    }
}

/// The kept rows: run, day, model.
fn kept_rows(conn: &Connection) -> Vec<Vec<Sql>> {
    rows(
        conn,
        "SELECT a.run_id, a.day, n.name FROM agg_runs a LEFT JOIN agg_names n ON n.id = a.model
         ORDER BY 1",
    )
}

fn expected_rows() -> Vec<Vec<Sql>> {
    let r = |run: &str, day: Option<i64>, model: Option<&str>| {
        vec![
            text(run),
            day.map_or(Sql::Null, Sql::Integer),
            model.map_or(Sql::Null, text),
        ]
    };
    let d = |dd: i64| Some(day(dd) / 86_400_000_000);
    vec![
        // m-1's decisions take its run's start (Nov 18); m-2 has no time.
        r("m-1", d(18), None),
        r("m-2", Some(-2_147_483_648), None),
        r("r-101", d(17), Some("qwen3:8b")),
        r("r-102", d(18), Some("gpt-4o")),
        r("r-103", d(19), Some("qwen3:8b")),
        r("r-104", d(10), Some("gpt-4o")),
    ]
}

/// The one budget's catalogue, tools, runs, turns and visible tools per
/// turn (p50, p95).
fn sizes(
    budgets: &[rung::metrics::budget::Budget],
) -> (&str, u64, u64, u64, Option<u64>, Option<u64>) {
    assert_eq!(budgets.len(), 1, "{budgets:?}");
    let b = &budgets[0];
    (
        b.catalogue.as_str(),
        b.tools,
        b.runs,
        b.turns,
        b.visible_per_turn.p50,
        b.visible_per_turn.p95,
    )
}

fn group(kind: &str, tool: Option<&str>, findings: u64, runs: u64) -> FindingGroup {
    FindingGroup {
        kind: kind.into(),
        tool: tool.map(str::to_string),
        findings,
        runs,
    }
}

#[test]
fn an_import_keeps_each_run_and_the_reports_read_them() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(kept_rows(&conn), expected_rows());
    assert_exact(&conn);
    // gpt-4o: r-102 (four turns of five tools: 249, 257, 257, 249 tokens;
    // its menu changed, one menu_changed finding) and r-104 (two turns of
    // eight tools, 444 tokens each).
    let gpt = budget(&conn, &filter(&["gpt-4o"], None, None)).unwrap();
    // visible 5,5,5,5,8,8: p50 rank 3, p95 rank 6.
    assert_eq!(sizes(&gpt), ("desk-1", 8, 2, 6, Some(5), Some(8)));
    let b = &gpt[0];
    assert_eq!(
        b.tokens_per_turn,
        Percentiles {
            p50: Some(257),
            p95: Some(444)
        }
    );
    // Run lengths 2 and 4.
    assert_eq!(
        b.run_turns,
        Percentiles {
            p50: Some(2),
            p95: Some(4)
        }
    );
    assert_eq!(
        b.per_run_p95.map(|c: RunCost| (c.turns, c.disclosed)),
        Some((4, Some(1776)))
    );
    assert_eq!((b.menu_changed_runs, b.menu_changed_findings), (1, Some(1)));
    // The findings of r-102 (its menu change, an unsourced id for
    // refund_invoice, delete_customer off its menu at step 4) and r-104 (a
    // cancel_subscription call failing its schema, with an unsourced id),
    // by kind and tool.
    assert_eq!(
        finding_groups(&conn, &filter(&["gpt-4o"], None, None)).unwrap(),
        vec![
            group("hidden_proposal", Some("delete_customer"), 1, 1),
            group("menu_changed", None, 1, 1),
            group("schema_violation", Some("cancel_subscription"), 1, 1),
            group("unsourced_id", Some("cancel_subscription"), 1, 1),
            group("unsourced_id", Some("refund_invoice"), 1, 1),
        ]
    );
    // A filter the kept rows do not hold is counted the long way.
    let phase = Filter {
        phases: vec!["act".into()],
        ..Filter::default()
    };
    assert!(scope(&conn, &phase).unwrap().is_none());
    let part_day = filter(&[], Some(day(18) + 3_600_000_000), None);
    assert!(scope(&conn, &part_day).unwrap().is_none());
}

/// Runs `sql`, counts again, and checks the kept rows against the long way.
fn by_hand(conn: &Connection, sql: &str) {
    conn.execute_batch(sql).unwrap();
    // Until counted again, the kept rows step aside.
    assert!(scope(conn, &Filter::default()).unwrap().is_none(), "{sql}");
    rung::store::agg::refresh(conn).unwrap();
    assert_exact(conn);
}

fn day_of(conn: &Connection, run: &str) -> Sql {
    one(
        conn,
        &format!("SELECT day FROM agg_runs WHERE run_id = '{run}'"),
    )
}

#[test]
fn writes_by_hand_are_counted_again() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    // r-103's step 3 moved to the next day: a window may cut the run, so
    // it is read the long way.
    by_hand(
        &conn,
        &format!(
            "UPDATE ladder_rows SET time_us = {} WHERE decision_id =
                (SELECT id FROM decision_rows WHERE run_id = 'r-103' AND step = 3)",
            day(20) + 1
        ),
    );
    assert_eq!(day_of(&conn, "r-103"), Sql::Null);
    let nov_19 = budget(&conn, &filter(&[], Some(day(19)), Some(day(20)))).unwrap();
    assert_eq!((nov_19[0].runs, nov_19[0].turns), (1, 2));
    // And back: counted whole again.
    by_hand(
        &conn,
        &format!(
            "UPDATE ladder_rows SET time_us = {} WHERE decision_id =
                (SELECT id FROM decision_rows WHERE run_id = 'r-103' AND step = 3)",
            day(19) + 1
        ),
    );
    assert_eq!(
        day_of(&conn, "r-103"),
        Sql::Integer(day(19) / 86_400_000_000)
    );
    // Two of r-102's decisions made one turn (parallel calls).
    by_hand(
        &conn,
        "UPDATE decision_rows SET turn = 1 WHERE run_id = 'r-102' AND step = 2",
    );
    let gpt = budget(&conn, &filter(&["gpt-4o"], None, None)).unwrap();
    assert_eq!(gpt[0].turns, 5);
    // r-101 run by another model.
    by_hand(
        &conn,
        "UPDATE runs SET model = 'gpt-4o' WHERE run_id = 'r-101'",
    );
    assert_eq!(
        budget(&conn, &filter(&["gpt-4o"], None, None)).unwrap()[0].runs,
        3
    );
    // r-101 moved to suite m19 by hand: a tag filter reads the runs as
    // they are now, beside the kept rows (which need no counting again).
    conn.execute_batch("UPDATE runs SET tags = '{\"suite\":\"m19\"}' WHERE run_id = 'r-101'")
        .unwrap();
    assert_exact(&conn);
    let m19 = Filter {
        tags: vec![("suite".to_string(), "m19".to_string())],
        ..Filter::default()
    };
    assert!(scope(&conn, &m19).unwrap().is_some());
    assert_eq!(budget(&conn, &m19).unwrap()[0].runs, 3);
    // A finding about a step r-101 has no verdict for: read the long way.
    by_hand(
        &conn,
        "INSERT INTO findings (kind, catalogue, task_id, run_id, step, tool, detail)
         VALUES ('menu_changed', 'desk-1', 'harbor-refund', 'r-101', 9, NULL, 'by hand')",
    );
    assert_eq!(day_of(&conn, "r-101"), Sql::Null);
    // A catalogue finding (no run), and a finding of a run with no verdict.
    by_hand(
        &conn,
        "INSERT INTO findings (kind, catalogue, task_id, run_id, step, tool, detail)
         VALUES ('description_drift', 'desk-1', NULL, NULL, NULL, 'send_email', 'hash a → b'),
                ('menu_changed', 'desk-1', NULL, NULL, NULL, NULL, 'by hand'),
                ('missing_output', 'desk-1', 't', 'r-none', NULL, NULL, 'no answer')",
    );
    assert_eq!(day_of(&conn, "r-none"), Sql::Null);
    let all = finding_groups(&conn, &Filter::default()).unwrap();
    assert!(all.contains(&group("description_drift", Some("send_email"), 1, 0)));
    assert!(all.contains(&group("missing_output", None, 1, 1)));
    // menu_changed: m-1's, r-101's (and the one by hand), r-102's, and the
    // catalogue's own.
    assert_eq!(
        budget(&conn, &Filter::default()).unwrap()[0].menu_changed_findings,
        Some(5)
    );
    // A run deleted: its row goes.
    by_hand(
        &conn,
        "DELETE FROM ladder_rows WHERE decision_id IN
             (SELECT id FROM decision_rows WHERE run_id = 'r-104');
         DELETE FROM decision_rows WHERE run_id = 'r-104';
         DELETE FROM findings WHERE run_id = 'r-104';
         DELETE FROM runs WHERE run_id = 'r-104';",
    );
    assert!(rows(&conn, "SELECT 1 FROM agg_runs WHERE run_id = 'r-104'").is_empty());
}

#[test]
fn a_schema_9_database_gets_the_kept_rows_on_upgrade() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v9.sql"), 9);
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
    for (q, b) in every_decision_and_view().iter().zip(&before) {
        assert_eq!(&rows(conn, q), b, "{q}");
    }
    // The same rows as a fresh import's.
    let (_d2, fresh_db) = setup();
    import(&fresh_db, &["-q", &path(DESK), &path(MENUS)]);
    let fresh = Connection::open(&fresh_db).unwrap();
    assert_eq!(kept_rows(&fresh), expected_rows());
    // (Tools are `agg_names` ids, numbered in another order by the upgrade.)
    for f in filters() {
        assert_eq!(budget(conn, &f).unwrap(), budget(&fresh, &f).unwrap());
        assert_eq!(
            finding_groups(conn, &f).unwrap(),
            finding_groups(&fresh, &f).unwrap()
        );
    }
    drop(store);
    for args in [
        &["report", "budget", "--format", "json"][..],
        &["report", "findings", "--summary", "--format", "json"][..],
    ] {
        assert_eq!(
            json_of(rung(&db, args)),
            json_of(rung(&fresh_db, args)),
            "{args:?}"
        );
    }
}

/// The id of run `run`'s decision at `step`.
fn decision_id(conn: &Connection, run: &str, step: i64) -> i64 {
    match one(
        conn,
        &format!("SELECT id FROM decision_rows WHERE run_id = '{run}' AND step = {step}"),
    ) {
        Sql::Integer(id) => id,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_damaged_menu_sets_the_kept_rows_aside_and_the_report_names_it() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    let id = decision_id(&conn, "r-103", 2);
    conn.execute_batch(&format!(
        "UPDATE ladder_rows SET retrieved = X'00ff' WHERE decision_id = {id}"
    ))
    .unwrap();
    // Counting again goes on (the caller's write is not refused); the day
    // stays listed, so the reports read the long way and name the row.
    rung::store::agg::refresh(&conn).unwrap();
    assert_eq!(
        one(&conn, "SELECT count(*) FROM agg_dirty"),
        Sql::Integer(1)
    );
    assert!(scope(&conn, &Filter::default()).unwrap().is_none());
    let err = budget(&conn, &Filter::default()).unwrap_err().to_string();
    assert!(err.contains(&format!("decision_id {id}")), "{err}");
}

#[test]
fn an_upgrade_goes_on_past_a_damaged_menu() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v9.sql"), 9);
    let id = {
        let conn = Connection::open(&db).unwrap();
        let id = decision_id(&conn, "r-101", 1);
        conn.execute_batch(&format!(
            "UPDATE ladder_rows SET retrieved = X'00ff' WHERE decision_id = {id}"
        ))
        .unwrap();
        id
    };
    let store = rung::store::Store::open_rw(&db).unwrap();
    let conn = &store.conn;
    assert_eq!(
        one(conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    // Opened: r-101 is left to the long way, the others are counted.
    assert_eq!(day_of(conn, "r-101"), Sql::Null);
    assert_eq!(
        day_of(conn, "r-102"),
        Sql::Integer(day(18) / 86_400_000_000)
    );
    let err = budget(conn, &Filter::default()).unwrap_err().to_string();
    assert!(err.contains(&format!("decision_id {id}")), "{err}");
}

/// Runs on a second catalogue (two.jsonl): s-1 on desk-1 turns to desk-2
/// for its step 2, s-2 is on desk-2; both on Nov 20.
const TWO: &str = "tests/fixtures/catalogues/two.jsonl";

fn on(catalogues: &[&str], f: Filter) -> Filter {
    Filter {
        catalogues: catalogues.iter().map(|c| c.to_string()).collect(),
        ..f
    }
}

#[test]
fn the_budget_under_a_catalogue_keeps_each_runs_part_on_it() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS), &path(TWO)]);
    let conn = Connection::open(&db).unwrap();
    let every = filter(&[], None, None);
    for f in [
        on(&["desk-2"], every.clone()),
        on(&["desk-1"], every.clone()),
        on(&["desk-1", "desk-2"], every.clone()),
        on(&["desk-2"], filter(&["gpt-4o"], None, None)),
        on(&["desk-2"], filter(&[], Some(day(20)), Some(day(21)))),
        on(&["desk-1"], filter(&["qwen3:8b"], Some(day(18)), None)),
        on(&["no-such-catalogue"], every.clone()),
    ] {
        assert!(budget_scope(&conn, &f).unwrap().is_some(), "{f:?}");
        // (The findings summary is not kept per catalogue.)
        assert!(scope(&conn, &f).unwrap().is_none(), "{f:?}");
        assert_eq!(
            budget(&conn, &f).unwrap(),
            budget_long(&conn, &f).unwrap(),
            "{f:?}"
        );
    }
    // desk-2: s-1's step 2 (two tools visible) and s-2's two turns (two,
    // then three: its menu changed); a menu_changed finding on each run's
    // desk-2 step.
    let desk_2 = budget(&conn, &on(&["desk-2"], every.clone())).unwrap();
    assert_eq!(sizes(&desk_2), ("desk-2", 3, 2, 3, Some(2), Some(3)));
    let b = &desk_2[0];
    assert_eq!((b.menu_changed_runs, b.menu_changed_findings), (1, Some(2)));
    // gpt-4o ran s-2 alone on desk-2.
    let gpt = budget(&conn, &on(&["desk-2"], filter(&["gpt-4o"], None, None))).unwrap();
    assert_eq!((gpt[0].runs, gpt[0].turns), (1, 2));
    assert_eq!(gpt[0].menu_changed_findings, Some(1));
    // desk-1: the six runs of desk.jsonl and menus.jsonl, and s-1's steps
    // 1 and 3.
    let desk_1 = budget(&conn, &on(&["desk-1"], every)).unwrap();
    assert_eq!((desk_1[0].runs, desk_1[0].turns), (7, 19));
    let none = budget(&conn, &on(&["no-such-catalogue"], Filter::default())).unwrap();
    assert!(none.is_empty());
}

/// Finding kinds (each a `FindingGroup`) by name, tool, findings and runs.
fn groups(g: &[(&str, Option<&str>, u64, u64)]) -> Vec<FindingGroup> {
    g.iter()
        .map(|&(kind, tool, findings, runs)| group(kind, tool, findings, runs))
        .collect()
}

/// The findings summary under decision filters, counted from the kept
/// decisions' (run, step) keys, is what one lookup per finding counts.
fn assert_findings_exact(conn: &Connection) {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let phase = |p: &[&str], f: Filter| Filter { phases: s(p), ..f };
    let every = Filter::default();
    for f in [
        on(&["desk-2"], every.clone()),
        on(&["desk-1"], every.clone()),
        on(&["desk-1", "desk-2"], every.clone()),
        on(&["no-such-catalogue"], every.clone()),
        phase(&["modify"], every.clone()),
        phase(&["release"], every.clone()),
        phase(&["discover"], on(&["desk-2"], every.clone())),
        on(&["desk-2"], filter(&["gpt-4o"], None, None)),
        on(&["desk-2"], filter(&[], Some(day(20)), Some(day(21)))),
        filter(&[], Some(day(18) + 3_600_000_000), None),
        phase(&["modify"], filter(&["qwen3:8b"], Some(day(17)), None)),
        Filter {
            tags: vec![("suite".into(), "m18".into())],
            ..phase(&["modify"], every.clone())
        },
        Filter {
            runs: s(&["s-1", "m-2"]),
            ..on(&["desk-1"], every.clone())
        },
    ] {
        let long = finding_groups_long(conn, &f).unwrap();
        assert_eq!(
            rung::store::findings_kept::finding_groups(conn, &f).unwrap(),
            Some(long.clone()),
            "{f:?}"
        );
        assert_eq!(finding_groups(conn, &f).unwrap(), long, "{f:?}");
    }
}

#[test]
fn the_findings_summary_under_a_phase_or_catalogue_reads_the_kept_decisions() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS), &path(TWO)]);
    let conn = Connection::open(&db).unwrap();
    assert_findings_exact(&conn);
    // desk-2's decisions: s-1's step 2 (its menu changed; refund_invoice
    // was off the menu) and s-2's two steps (its menu changed at step 2,
    // where list_invoices was called without its customer).
    let desk_2 = on(&["desk-2"], Filter::default());
    assert_eq!(
        finding_groups(&conn, &desk_2).unwrap(),
        groups(&[
            ("hidden_proposal", Some("refund_invoice"), 1, 1),
            ("menu_changed", None, 2, 2),
            ("schema_violation", Some("list_invoices"), 1, 1),
        ])
    );
    // The modify steps: r-101's 3, r-102's 2 to 4, s-1's 2 and 3.
    let modify = Filter {
        phases: vec!["modify".into()],
        ..Filter::default()
    };
    let at_modify = vec![
        ("hidden_proposal", Some("delete_customer"), 1, 1),
        ("hidden_proposal", Some("refund_invoice"), 1, 1),
        ("menu_changed", None, 3, 3),
        ("unsourced_id", Some("refund_invoice"), 2, 2),
    ];
    assert_eq!(finding_groups(&conn, &modify).unwrap(), groups(&at_modify));
    // By hand: a finding about desk-2 itself, one about s-2 with no step,
    // one whose run id names nothing (read as about no run), one of no
    // known kind, one whose step is text, and an unsourced refund_invoice
    // at r-101's step 3 then at s-1's step 2 (s-1's findings apart: the
    // runs are counted by (kind, tool, run) instead).
    conn.execute_batch(
        "INSERT INTO findings (kind, catalogue, task_id, run_id, step, tool, detail)
         VALUES ('description_drift', 'desk-2', NULL, NULL, NULL, 'find_customer', 'by hand'),
                ('missing_output', 'desk-2', 'lumen-export', 's-2', NULL, NULL, 'no answer');
         INSERT INTO finding_rows (kind, catalogue, run_id, step, tool, detail)
         SELECT (SELECT id FROM finding_kinds WHERE name = 'menu_changed'),
                (SELECT id FROM catalogue_ids WHERE version = 'desk-2'), 999999, NULL, NULL, 'x';
         INSERT INTO finding_rows (kind, catalogue, run_id, step, tool, detail)
         SELECT 999, NULL, (SELECT id FROM finding_names WHERE name = 's-2'), 2, NULL, 'x';
         INSERT INTO finding_rows (kind, catalogue, run_id, step, tool, detail)
         SELECT (SELECT id FROM finding_kinds WHERE name = 'menu_changed'), NULL,
                (SELECT id FROM finding_names WHERE name = 's-2'), 'two', NULL, 'x';
         INSERT INTO findings (kind, catalogue, task_id, run_id, step, tool, detail)
         VALUES ('unsourced_id', 'desk-1', 'harbor-refund', 'r-101', 3, 'refund_invoice', 'x'),
                ('unsourced_id', 'desk-2', 'harbor-refund', 's-1', 2, 'refund_invoice', 'again');",
    )
    .unwrap();
    assert_findings_exact(&conn);
    assert_eq!(
        finding_groups(&conn, &desk_2).unwrap(),
        groups(&[
            ("description_drift", Some("find_customer"), 1, 0),
            ("hidden_proposal", Some("refund_invoice"), 1, 1),
            ("menu_changed", None, 3, 2),
            ("missing_output", None, 1, 1),
            ("schema_violation", Some("list_invoices"), 1, 1),
            ("unsourced_id", Some("refund_invoice"), 1, 1),
        ])
    );
    // Under a run-level filter too, the finding of a run id that names
    // nothing is left out; s-2 is gpt-4o's.
    assert_eq!(
        finding_groups(&conn, &on(&["desk-2"], filter(&["gpt-4o"], None, None))).unwrap(),
        groups(&[
            ("description_drift", Some("find_customer"), 1, 0),
            ("menu_changed", None, 1, 1),
            ("missing_output", None, 1, 1),
            ("schema_violation", Some("list_invoices"), 1, 1),
        ])
    );
    // desk-2 is used at a modify step (s-1's 2): its own findings count,
    // the one whose run id names nothing among them.
    let with_drift = vec![
        ("description_drift", Some("find_customer"), 1, 0),
        ("hidden_proposal", Some("delete_customer"), 1, 1),
        ("hidden_proposal", Some("refund_invoice"), 1, 1),
        ("menu_changed", None, 4, 3),
        ("unsourced_id", Some("refund_invoice"), 4, 3),
    ];
    assert_eq!(finding_groups(&conn, &modify).unwrap(), groups(&with_drift));
    // A run-level filter that keeps few runs (under one in 8): the long
    // way answers, through those runs' ids.
    let no_run = Filter {
        runs: vec!["no-such-run".into()],
        ..modify.clone()
    };
    assert_eq!(
        rung::store::findings_kept::finding_groups(&conn, &no_run).unwrap(),
        None
    );
    assert_eq!(finding_groups(&conn, &no_run).unwrap(), vec![]);
    // Ids far apart: the long way answers.
    conn.execute_batch("INSERT INTO finding_names (id, name) VALUES (4000000000, 'far')")
        .unwrap();
    assert_eq!(
        rung::store::findings_kept::finding_groups(&conn, &modify).unwrap(),
        None
    );
    assert_eq!(finding_groups(&conn, &modify).unwrap(), groups(&with_drift));
}
