//! The counts kept for the screens (schema 8, `agg_*`): after an import, a
//! re-import that replaces decisions and runs, a reclassification and the
//! upgrade from schema 7, every count read from them is the count of the
//! verdicts themselves (and the hand counts of desk.jsonl); a filter they
//! cannot answer is counted the long way.

mod import_util;
mod store_util;

use std::path::Path;

use import_util::*;
use rung::filter::Filter;
use rung::metrics::consistency::Consistency;
use rung::metrics::{Confusions, LadderCounts, Metrics, ToolUsage};
use rung::model::Rung;
use rung::store::completion::Completions;
use rung::store::query;
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

/// 2026-11-DD 00:00 UTC in microseconds.
fn day(dd: i64) -> i64 {
    // 2026-11-01T00:00:00Z
    (1_793_491_200 + (dd - 1) * 86_400) * 1_000_000
}

type Counts = (
    LadderCounts,
    Vec<(String, u64)>,
    Metrics,
    Vec<ToolUsage>,
    Consistency,
    Confusions,
    Completions,
);

fn counts(conn: &Connection, f: &Filter) -> Counts {
    (
        query::ladder(conn, f).unwrap(),
        query::boundary_profile(conn, f).unwrap(),
        query::metrics(conn, f).unwrap(),
        query::tools(conn, f).unwrap(),
        rung::store::consistency::consistency(conn, f).unwrap(),
        query::confusions(conn, f).unwrap(),
        // The filter bar's values: the same whatever the filter.
        rung::store::completion::completions(conn).unwrap(),
    )
}

/// The counts the long way: a listed day makes every reader skip the kept
/// counts.
fn long_way(conn: &Connection, f: &Filter) -> Counts {
    conn.execute_batch("BEGIN; INSERT INTO agg_dirty VALUES (0);")
        .unwrap();
    assert!(rung::store::agg::read::scope(conn, f).unwrap().is_none());
    let c = counts(conn, f);
    conn.execute_batch("ROLLBACK").unwrap();
    c
}

fn filters() -> Vec<Filter> {
    let m = |s: &str| vec![s.to_string()];
    vec![
        Filter::default(),
        Filter {
            models: m("gpt-4o"),
            ..Filter::default()
        },
        Filter {
            phases: m("discover"),
            ..Filter::default()
        },
        Filter {
            catalogues: m("desk-1"),
            models: m("qwen3:8b"),
            ..Filter::default()
        },
        Filter {
            since: Some(day(18)),
            until: Some(day(19)),
            ..Filter::default()
        },
        Filter {
            since: Some(day(11)),
            phases: m("modify"),
            ..Filter::default()
        },
        Filter {
            until: Some(day(18)),
            ..Filter::default()
        },
    ]
}

/// Nothing is left to count, every filter of [`filters`] is answered from
/// the kept counts, and each answer is the long way's.
fn assert_kept_counts_are_exact(db: &Path) {
    let conn = Connection::open(db).unwrap();
    assert_eq!(
        one(&conn, "SELECT count(*) FROM agg_dirty"),
        Sql::Integer(0)
    );
    for f in filters() {
        assert!(
            rung::store::agg::read::scope(&conn, &f).unwrap().is_some(),
            "{f:?}"
        );
        assert_eq!(counts(&conn, &f), long_way(&conn, &f), "{f:?}");
        assert_eq!(drill_totals(&conn, &f), long_way_totals(&conn, &f), "{f:?}");
    }
    // The Findings screen's counts (schema 9), for a week on whole days and
    // one whose edges fall inside hours.
    let none = Filter::default();
    for (since, until) in [(day(12), day(19)), (day(12) + 1, day(19) + 1)] {
        let kept = rung::store::agg::findings::counts(&conn, since, until)
            .unwrap()
            .expect("kept findings counts");
        let long = rung::store::findings::finding_counts_long(&conn, &none, since, until).unwrap();
        assert_eq!(kept, long);
    }
}

/// How many decisions each rung, boundary and tool count drills into.
fn drill_totals(conn: &Connection, f: &Filter) -> Vec<Option<u64>> {
    use rung::store::browse::{Anchor, DecisionSet, Drill, ToolCount, drill_page};
    let mut drills: Vec<Drill> = Rung::ALL
        .iter()
        .map(|r| Drill::Set(DecisionSet::Rung(*r)))
        .collect();
    for b in ["authorization", "precondition", "semantics", "execution"] {
        drills.push(Drill::Boundary(b.into()));
    }
    for name in ["find_customer", "cancel_subscription", "refund_invoice"] {
        for count in [ToolCount::Visible, ToolCount::Selected, ToolCount::Refused] {
            drills.push(Drill::Tool {
                catalogue: "desk-1".into(),
                name: name.into(),
                count,
            });
        }
    }
    // Every confusion cell of all the decisions (some empty under `f`), a
    // tool never selected, and an acceptable list out of order.
    let cells = query::confusions(conn, &Filter::default()).unwrap().cells;
    assert!(cells.len() >= 4, "{cells:?}");
    let mut sets: Vec<(Vec<String>, Option<String>)> = cells
        .into_iter()
        .map(|c| (c.acceptable, c.selected))
        .collect();
    let (first, _) = sets[0].clone();
    sets.push((first.clone(), Some("no_such_tool".into())));
    sets.push((vec!["zz_tool".into(), "aa_tool".into()], None));
    for (acceptable, selected) in sets {
        drills.push(Drill::Set(DecisionSet::Cell {
            acceptable,
            selected,
        }));
    }
    drills
        .iter()
        .map(|d| drill_page(conn, f, d, &Anchor::First, 1).unwrap().total)
        .collect()
}

fn long_way_totals(conn: &Connection, f: &Filter) -> Vec<Option<u64>> {
    conn.execute_batch("BEGIN; INSERT INTO agg_dirty VALUES (0);")
        .unwrap();
    let t = drill_totals(conn, f);
    conn.execute_batch("ROLLBACK").unwrap();
    t
}

fn tool<'a>(tools: &'a [ToolUsage], name: &str) -> &'a ToolUsage {
    tools.iter().find(|t| t.name == name).unwrap()
}

fn reasons(t: &ToolUsage) -> Vec<(&str, u64)> {
    t.refused_by_reason
        .iter()
        .map(|(r, n)| (r.as_str(), *n))
        .collect()
}

#[test]
fn counts_after_an_import_are_the_verdicts_counts() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    // desk.jsonl: r-104 on Nov 10 (2 decisions), r-101 on the 17th (3),
    // r-102 on the 18th (4), r-103 on the 19th (3); gpt-4o ran r-102 and
    // r-104, qwen3:8b r-101 and r-103.
    let all = query::ladder(&conn, &Filter::default()).unwrap();
    assert_eq!(all.decisions, 12);
    let gpt = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    assert_eq!(query::ladder(&conn, &gpt).unwrap().decisions, 6);
    let the_18th = Filter {
        since: Some(day(18)),
        until: Some(day(19)),
        ..Filter::default()
    };
    assert_eq!(query::ladder(&conn, &the_18th).unwrap().decisions, 4);
    // r-102's refusals: refund_invoice at precondition, cancel_subscription
    // and delete_customer at authorization.
    assert_eq!(
        query::boundary_profile(&conn, &the_18th).unwrap(),
        vec![
            ("authorization".to_string(), 2),
            ("precondition".to_string(), 1)
        ]
    );
    // gpt-4o selected cancel_subscription twice (r-102 step 3, refused
    // outside_intent; r-104 step 1, refused subscription_not_found) and
    // find_customer twice (r-102 step 1, r-104 step 2).
    let tools = query::tools(&conn, &gpt).unwrap();
    let cancel = tool(&tools, "cancel_subscription");
    assert_eq!((cancel.selected, cancel.refused), (2, 2));
    assert_eq!(
        reasons(cancel),
        [("outside_intent", 1), ("subscription_not_found", 1)]
    );
    assert_eq!(tool(&tools, "find_customer").selected, 2);
    assert_eq!(tool(&tools, "send_email").selected, 0);
    assert!(tool(&tools, "ask_user").trusted_control);
    // Over everything: find_customer in every run (4), send_email once.
    let tools = query::tools(&conn, &Filter::default()).unwrap();
    assert_eq!(tool(&tools, "find_customer").selected, 4);
    assert_eq!(tool(&tools, "send_email").selected, 1);
    assert_eq!(tool(&tools, "refund_invoice").refused, 1);
    // The SELECTION failures: r-104 step 1 (gpt-4o, Nov 10) chose
    // cancel_subscription for find_customer, r-102 steps 2 and 4 (gpt-4o,
    // the 18th) refund_invoice for cancel_subscription and delete_customer
    // for ask_user, r-103 step 2 (qwen3:8b, the 19th) send_email for
    // ask_user.
    let cells = |f: &Filter| -> Vec<(Vec<String>, String, u64)> {
        let c = query::confusions(&conn, f).unwrap();
        assert_eq!(
            c.selection_failures,
            c.cells.iter().map(|c| c.count).sum::<u64>()
        );
        c.cells
            .into_iter()
            .map(|c| (c.acceptable, c.selected.unwrap(), c.count))
            .collect()
    };
    let cell = |a: &str, s: &str| (vec![a.to_string()], s.to_string(), 1);
    assert_eq!(
        cells(&Filter::default()),
        [
            cell("ask_user", "delete_customer"),
            cell("ask_user", "send_email"),
            cell("cancel_subscription", "refund_invoice"),
            cell("find_customer", "cancel_subscription"),
        ]
    );
    assert_eq!(
        cells(&gpt),
        [
            cell("ask_user", "delete_customer"),
            cell("cancel_subscription", "refund_invoice"),
            cell("find_customer", "cancel_subscription"),
        ]
    );
    assert_eq!(
        cells(&the_18th),
        [
            cell("ask_user", "delete_customer"),
            cell("cancel_subscription", "refund_invoice")
        ]
    );
    // The filter bar's catalogues and phases, counted from the kept counts
    // (the long way gives the same: `assert_kept_counts_are_exact`).
    let c = rung::store::completion::completions(&conn).unwrap();
    assert_eq!(c.catalogues, [("desk-1".to_string(), 12)]);
    assert_eq!(
        c.phases,
        [
            ("discover".to_string(), 6),
            ("modify".to_string(), 4),
            ("release".to_string(), 2)
        ]
    );
}

/// desk.jsonl with r-102's third decision no longer refused and r-104 run
/// by qwen3:8b.
fn changed_desk(dir: &Path) -> String {
    let text = std::fs::read_to_string(path(DESK)).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["run_id"] == "r-102" && v["step"] == 3 {
            v["outcome"] = serde_json::json!({"status": "ok"});
        }
        if v["type"] == "run" && v["run_id"] == "r-104" {
            v["model"] = "qwen3:8b".into();
        }
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    let p = dir.join("desk-changed.jsonl");
    std::fs::write(&p, out).unwrap();
    p.display().to_string()
}

#[test]
fn a_re_import_that_replaces_decisions_and_runs_moves_the_counts() {
    let (dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    assert_kept_counts_are_exact(&db);
    let changed = changed_desk(dir.path());
    import(&db, &["-q", "--replace", &changed]);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    let gpt = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    // gpt-4o keeps r-102 alone: 4 decisions, cancel_subscription selected
    // once and no longer refused.
    assert_eq!(query::ladder(&conn, &gpt).unwrap().decisions, 4);
    let tools = query::tools(&conn, &gpt).unwrap();
    let cancel = tool(&tools, "cancel_subscription");
    assert_eq!((cancel.selected, cancel.refused), (1, 0));
    assert_eq!(reasons(cancel), []);
    let qwen = Filter {
        models: vec!["qwen3:8b".into()],
        ..Filter::default()
    };
    assert_eq!(query::ladder(&conn, &qwen).unwrap().decisions, 8);
    let cancel = tool(&query::tools(&conn, &qwen).unwrap(), "cancel_subscription").clone();
    assert_eq!(
        (cancel.selected, reasons(&cancel)),
        (1, vec![("subscription_not_found", 1)])
    );
    // The days no longer counted under a key are gone from every table.
    assert_eq!(
        one(
            &conn,
            "SELECT count(*) FROM agg_keys WHERE whole = 0 AND day = 20767 AND model = 'gpt-4o'"
        ),
        Sql::Integer(0)
    );
}

#[test]
fn reclassifying_and_writes_by_hand_keep_the_counts_exact() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let r = rung(&db, &["reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_kept_counts_are_exact(&db);
    // A write by hand lists the day it touched: readers count the long
    // way (and see the write) until rung counts it again.
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(
        "UPDATE decision_rows SET phase = 'release' WHERE run_id = 'r-101' AND step = 1",
    )
    .unwrap();
    assert_eq!(
        rows(&conn, "SELECT day FROM agg_dirty"),
        vec![vec![Sql::Integer(20774)]]
    );
    let release = Filter {
        phases: vec!["release".into()],
        ..Filter::default()
    };
    assert!(
        rung::store::agg::read::scope(&conn, &release)
            .unwrap()
            .is_none()
    );
    // r-103's steps 2 and 3, and now r-101's first.
    assert_eq!(query::ladder(&conn, &release).unwrap().decisions, 3);
    drop(conn);
    let r = rung(&db, &["reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(query::ladder(&conn, &release).unwrap().decisions, 3);
}

/// The runs' indexes before schema 12: by task alone, none of the runs with
/// expectations (and none of schema 13's `runs_sort`).
const BEFORE_12_RUNS_INDEXES: &str = "DROP INDEX runs_expected; DROP INDEX runs_task;
    CREATE INDEX runs_task ON runs (task_id); DROP INDEX runs_sort;";

/// Schema 14's tag counts and the triggers that keep them.
const BEFORE_14: &str = "DROP TRIGGER agg_tags_insert; DROP TRIGGER agg_tags_update;
    DROP TRIGGER agg_tags_delete; DROP TABLE agg_tags;";

/// Schema 15's column of the keys whose verdicts have no run.
const BEFORE_15: &str = "ALTER TABLE agg_keys DROP COLUMN runless;";

/// `agg_tags` as stored, by tags text.
fn tag_counts(conn: &Connection) -> Vec<Vec<Sql>> {
    rows(conn, "SELECT tags, runs FROM agg_tags ORDER BY tags")
}

/// The filter bar's tag values (key, value, runs).
fn tag_values(conn: &Connection) -> Vec<(String, String, u64)> {
    rung::store::completion::completions(conn).unwrap().tags
}

fn tag_value(key: &str, value: &str, runs: u64) -> (String, String, u64) {
    (key.to_string(), value.to_string(), runs)
}

#[test]
fn the_filter_bar_counts_runs_by_tag_through_every_import() {
    let (dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    // r-101 and r-102 are suite m18, r-103 and r-104 m19; menus.jsonl's
    // runs have no tags.
    assert_eq!(
        tag_counts(&conn),
        vec![
            vec![text("{\"suite\":\"m18\"}"), Sql::Integer(2)],
            vec![text("{\"suite\":\"m19\"}"), Sql::Integer(2)],
        ]
    );
    assert_eq!(
        tag_values(&conn),
        vec![tag_value("suite", "m18", 2), tag_value("suite", "m19", 2)]
    );
    // Replaced: r-103 without tags, r-104 with an owner and suite m20.
    let text_of = std::fs::read_to_string(path(DESK)).unwrap();
    let mut out = String::new();
    for line in text_of.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["type"] == "run" && v["run_id"] == "r-103" {
            v.as_object_mut().unwrap().remove("tags");
        }
        if v["type"] == "run" && v["run_id"] == "r-104" {
            v["tags"] = serde_json::json!({"suite": "m20", "owner": "billing"});
        }
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    let changed = dir.path().join("desk-tags.jsonl");
    std::fs::write(&changed, out).unwrap();
    import(&db, &["-q", "--replace", &changed.display().to_string()]);
    assert_eq!(
        tag_counts(&conn),
        vec![
            vec![
                text("{\"owner\":\"billing\",\"suite\":\"m20\"}"),
                Sql::Integer(1)
            ],
            vec![text("{\"suite\":\"m18\"}"), Sql::Integer(2)],
        ]
    );
    assert_eq!(
        tag_values(&conn),
        vec![
            tag_value("suite", "m18", 2),
            tag_value("owner", "billing", 1),
            tag_value("suite", "m20", 1),
        ]
    );
    // A write by hand (`sqlite3`) is counted as it is made.
    conn.execute_batch("UPDATE runs SET tags = '{\"suite\":\"m20\"}' WHERE run_id = 'r-101'")
        .unwrap();
    assert_eq!(
        tag_values(&conn),
        vec![
            tag_value("suite", "m20", 2),
            tag_value("owner", "billing", 1),
            tag_value("suite", "m18", 1),
        ]
    );
    // The counts are the runs' own, after `rung reclassify` too.
    drop(conn);
    assert_eq!(rung(&db, &["-q", "reclassify"]).code, 0);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(
        tag_counts(&conn),
        rows(
            &conn,
            "SELECT tags, count(*) FROM runs WHERE tags IS NOT NULL GROUP BY tags ORDER BY tags"
        )
    );
    assert_eq!(tag_counts(&conn).len(), 3);
}

#[test]
fn a_schema_13_database_gets_its_tag_counts_on_upgrade() {
    let (_dir, db) = setup();
    let expected = import_desk_and_menus(&db);
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(&format!("{BEFORE_14} {BEFORE_15} PRAGMA user_version = 13"))
            .unwrap();
    }
    let store = open_upgraded(&db);
    assert_eq!(
        tag_counts(&store.conn),
        vec![
            vec![text("{\"suite\":\"m18\"}"), Sql::Integer(2)],
            vec![text("{\"suite\":\"m19\"}"), Sql::Integer(2)],
        ]
    );
    drop(store);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    let got: Vec<Counts> = filters().iter().map(|f| counts(&conn, f)).collect();
    assert_eq!(got, expected);
}

/// Opens `db` to write, which upgrades it to this rung's schema.
fn open_upgraded(db: &Path) -> rung::store::Store {
    let store = rung::store::Store::open_rw(db).unwrap();
    assert_eq!(
        one(&store.conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    store
}

/// Imports desk.jsonl and menus.jsonl; the counts under every filter of
/// [`filters`], to compare after an upgrade.
fn import_desk_and_menus(db: &Path) -> Vec<Counts> {
    import(db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(db).unwrap();
    filters().iter().map(|f| counts(&conn, f)).collect()
}

#[test]
fn a_schema_7_database_gets_its_counts_on_upgrade() {
    let (_dir, db) = setup();
    let expected = import_desk_and_menus(&db);
    // Schema 7 is schema 9 without the `agg_*` tables and triggers, with
    // the index on findings by catalogue.
    {
        let conn = Connection::open(&db).unwrap();
        let objects = rows(
            &conn,
            "SELECT type, name FROM sqlite_master WHERE name LIKE 'agg%' AND type IN ('table', 'trigger')",
        );
        // Fifteen tables and fifteen triggers (eight and seven of schema 8,
        // schema 10's `agg_audit`, schema 11's `agg_runs` and its trigger on
        // a decision's turn, schema 12's `agg_confusions`, schema 14's
        // `agg_tags` and its three triggers on runs).
        assert_eq!(objects.len(), 30);
        for o in objects {
            let (Sql::Text(ty), Sql::Text(name)) = (&o[0], &o[1]) else {
                unreachable!()
            };
            conn.execute_batch(&format!("DROP {ty} {name}")).unwrap();
        }
        conn.execute_batch(&format!(
            "CREATE INDEX finding_rows_catalogue ON finding_rows (catalogue, kind);
             {BEFORE_12_RUNS_INDEXES} PRAGMA user_version = 7"
        ))
        .unwrap();
    }
    // Opening it to write upgrades it (and classifies nothing).
    let store = open_upgraded(&db);
    let conn = &store.conn;
    // Nine keys of one day (desk's four days by phase and model, m-1's day,
    // m-2's decisions without a time) and six of all days.
    assert_eq!(
        rows(conn, "SELECT whole, count(*) FROM agg_keys GROUP BY 1"),
        vec![
            vec![Sql::Integer(0), Sql::Integer(9)],
            vec![Sql::Integer(1), Sql::Integer(6)]
        ]
    );
    drop(store);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    let got: Vec<Counts> = filters().iter().map(|f| counts(&conn, f)).collect();
    assert_eq!(got, expected);
}

#[test]
fn a_schema_11_database_gets_its_confusion_cells_on_upgrade() {
    let (_dir, db) = setup();
    let expected = import_desk_and_menus(&db);
    {
        // Schema 11 is schema 12 without `agg_confusions`, with runs by
        // task alone and no index of the runs with expectations.
        let conn = Connection::open(&db).unwrap();
        assert_eq!(
            one(
                &conn,
                "SELECT sum(decisions) FROM agg_confusions a JOIN agg_keys k ON k.id = a.key WHERE k.whole = 1"
            ),
            Sql::Integer(5)
        );
        conn.execute_batch(&format!(
            "DROP TABLE agg_confusions; {BEFORE_12_RUNS_INDEXES} {BEFORE_14} {BEFORE_15}
             PRAGMA user_version = 11"
        ))
        .unwrap();
    }
    let store = open_upgraded(&db);
    // The five SELECTION failures (desk's four and menus.jsonl's one),
    // each on one day and in all days.
    assert_eq!(
        rows(
            &store.conn,
            "SELECT k.whole, sum(a.decisions) FROM agg_confusions a JOIN agg_keys k ON k.id = a.key
             GROUP BY 1 ORDER BY 1"
        ),
        vec![
            vec![Sql::Integer(0), Sql::Integer(5)],
            vec![Sql::Integer(1), Sql::Integer(5)]
        ]
    );
    // The runs by task hold their success; the runs with expectations
    // have their index.
    assert_eq!(
        rows(
            &store.conn,
            "SELECT i.name, c.name FROM sqlite_master i, pragma_index_info(i.name) c
             WHERE i.name IN ('runs_task', 'runs_expected') ORDER BY i.name, c.seqno"
        ),
        vec![
            vec![
                Sql::Text("runs_expected".into()),
                Sql::Text("as_expected".into())
            ],
            vec![Sql::Text("runs_task".into()), Sql::Text("task_id".into())],
            vec![Sql::Text("runs_task".into()), Sql::Text("success".into())],
        ]
    );
    drop(store);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    let got: Vec<Counts> = filters().iter().map(|f| counts(&conn, f)).collect();
    assert_eq!(got, expected);
}

#[test]
fn filters_the_counts_cannot_answer_are_counted_the_long_way() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let task = Filter {
        tasks: vec!["harbor-refund".into()],
        ..Filter::default()
    };
    let tag = Filter {
        tags: vec![("suite".into(), "m18".into())],
        ..Filter::default()
    };
    // Nov 18 from 12:00: r-102 (14:00) and r-103.
    let noon = Filter {
        since: Some(day(18) + 12 * 3_600_000_000),
        ..Filter::default()
    };
    for f in [&task, &tag, &noon] {
        assert!(rung::store::agg::read::scope(&conn, f).unwrap().is_none());
    }
    assert_eq!(query::ladder(&conn, &noon).unwrap().decisions, 7);
    let noon_tools = query::tools(&conn, &noon).unwrap();
    assert_eq!(tool(&noon_tools, "find_customer").selected, 2);
    assert_eq!(tool(&noon_tools, "send_email").selected, 1);
    // harbor-refund: r-101 and r-104; suite m18: r-101 and r-102.
    assert_eq!(query::ladder(&conn, &task).unwrap().decisions, 5);
    assert_eq!(query::ladder(&conn, &tag).unwrap().decisions, 7);
    let tag_tools = query::tools(&conn, &tag).unwrap();
    assert_eq!(tool(&tag_tools, "find_customer").selected, 2);
    assert_eq!(tool(&tag_tools, "refund_invoice").selected, 2);
}

#[test]
fn all_days_counts_moved_in_parts_add_up_to_moving_them_once() {
    let (dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let changed = changed_desk(dir.path());
    import(&db, &["-q", "--replace", &changed]);
    let conn = Connection::open(&db).unwrap();
    let days = one(
        &conn,
        "SELECT count(DISTINCT day) FROM agg_keys WHERE whole = 0",
    );
    // The fixture's verdicts fall on several days, so moving after every
    // day moves the all-days rows in several parts.
    assert!(matches!(days, Sql::Integer(n) if n >= 3), "{days:?}");
    // Forget every count, list every day (-2147483648: the verdicts with
    // no time), and count again moving the all-days rows after each day.
    conn.execute_batch(
        "BEGIN;
         INSERT OR IGNORE INTO agg_dirty
             SELECT DISTINCT coalesce(day, -2147483648) FROM agg_keys WHERE whole = 0;
         DELETE FROM agg_rungs; DELETE FROM agg_tallies; DELETE FROM agg_tokens;
         DELETE FROM agg_tools; DELETE FROM agg_reasons; DELETE FROM agg_firsts;
         DELETE FROM agg_confusions; DELETE FROM agg_keys;",
    )
    .unwrap();
    rung::store::agg::refresh_holding(&conn, 1).unwrap();
    conn.execute_batch("COMMIT").unwrap();
    drop(conn);
    assert_kept_counts_are_exact(&db);
}

/// Every `agg_*` table's rows, sorted, by table; a count's key (an
/// `agg_keys` id, which a recount draws anew) as the key's columns.
fn kept_tables(conn: &Connection) -> Vec<(String, Vec<String>)> {
    let names = rows(
        conn,
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'agg\\_%' ESCAPE '\\'
         ORDER BY name",
    );
    names
        .into_iter()
        .map(|n| {
            let Sql::Text(name) = &n[0] else {
                panic!("{n:?}")
            };
            let columns: Vec<String> = rows(
                conn,
                &format!("SELECT name FROM pragma_table_info('{name}')"),
            )
            .into_iter()
            .map(|c| format!("{:?}", c[0]))
            .collect();
            let sql = if name == "agg_keys" {
                "SELECT whole, day, catalogue, phase, model FROM agg_keys".to_string()
            } else if columns.first().map(String::as_str) == Some("Text(\"key\")") {
                format!(
                    "SELECT k.whole, k.day, k.catalogue, k.phase, k.model, t.* FROM \"{name}\" t
                     JOIN agg_keys k ON k.id = t.key"
                )
            } else {
                format!("SELECT * FROM \"{name}\"")
            };
            let keyed = sql.contains("JOIN agg_keys");
            let mut all: Vec<String> = rows(conn, &sql)
                .into_iter()
                .map(|mut r| {
                    if keyed {
                        // The id itself, after the key's columns.
                        r.remove(5);
                    }
                    format!("{r:?}")
                })
                .collect();
            all.sort();
            (name.clone(), all)
        })
        .collect()
}

/// Lists every day with a verdict and every run (as an import that wrote
/// them all would), in `conn`'s open transaction or on its own; returns
/// the days.
fn list_everything(conn: &Connection) -> Vec<i64> {
    conn.execute_batch(
        "INSERT OR IGNORE INTO agg_dirty
         SELECT DISTINCT CASE WHEN time_us IS NULL THEN -2147483648
             WHEN time_us >= 0 THEN time_us / 86400000000
             ELSE (time_us + 1) / 86400000000 - 1 END FROM ladder_rows;
         INSERT OR IGNORE INTO agg_finding_runs SELECT run_id FROM runs;",
    )
    .unwrap();
    rows(conn, "SELECT day FROM agg_dirty ORDER BY day")
        .into_iter()
        .map(|r| match r[0] {
            Sql::Integer(d) => d,
            ref other => panic!("{other:?}"),
        })
        .collect()
}

/// Counts `db`'s listed days and runs again on one thread (in a
/// transaction, as a reclassification does) and, on a copy, after a commit
/// with three workers besides the writer; asserts both give the kept
/// counts the import wrote, and returns the days listed.
fn refresh_both_ways(dir: &Path, db: &Path) -> Vec<i64> {
    let conn = Connection::open(db).unwrap();
    let imported = kept_tables(&conn);
    let copy = dir.join("copy.db");
    conn.execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();

    // On one thread, in the caller's transaction.
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let days = list_everything(&conn);
    rung::store::agg::refresh(&conn).unwrap();
    conn.execute_batch("COMMIT").unwrap();
    let serial = kept_tables(&conn);

    // With three threads reading besides the writer, after a commit.
    let other = Connection::open(&copy).unwrap();
    other
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
    assert_eq!(list_everything(&other), days);
    rung::store::agg::parallel::refresh_committed_with(&other, &days, 3, &|_| Ok(())).unwrap();
    assert!(other.is_autocommit());
    assert_eq!(
        one(&other, "SELECT count(*) FROM agg_dirty"),
        Sql::Integer(0)
    );
    assert_eq!(
        one(&other, "SELECT count(*) FROM agg_finding_runs"),
        Sql::Integer(0)
    );
    let parallel = kept_tables(&other);
    assert_eq!(parallel, serial);
    // And the import's own counts (counted the same way) are those.
    assert_eq!(imported, serial);
    days
}

fn whole_decisions(db: &Path) -> Sql {
    one(
        &Connection::open(db).unwrap(),
        "SELECT sum(decisions) FROM agg_rungs r JOIN agg_keys k ON k.id = r.key WHERE k.whole = 1",
    )
}

#[test]
fn counts_refreshed_on_several_threads_are_the_counts_refreshed_on_one() {
    let (dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let days = refresh_both_ways(dir.path(), &db);
    // desk.jsonl's four days: Nov 10, 17, 18 and 19.
    assert_eq!(
        days,
        [10, 17, 18, 19].map(|dd| day(dd) / 86_400_000_000).to_vec()
    );
    assert_eq!(
        whole_decisions(&dir.path().join("copy.db")),
        Sql::Integer(12)
    );
    assert_kept_counts_are_exact(&dir.path().join("copy.db"));
}

/// desk.jsonl's runs copied `copies` times (`r-101-007`, ...), the k-th copy
/// `k % 30` days later.
fn many_desks(dir: &Path, copies: usize) -> String {
    let shift = |v: &mut serde_json::Value, key: &str, days: i64| {
        if let Some(t) = v.get(key).and_then(|t| t.as_str()) {
            let t = chrono::DateTime::parse_from_rfc3339(t).unwrap() + chrono::Duration::days(days);
            v[key] = t.format("%Y-%m-%dT%H:%M:%SZ").to_string().into();
        }
    };
    let mut out = String::new();
    let text = std::fs::read_to_string(path(DESK)).unwrap();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v.get("run_id").is_none() {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        for k in 0..copies {
            let mut c = v.clone();
            c["run_id"] = format!("{}-{k:03}", v["run_id"].as_str().unwrap()).into();
            for key in ["at", "started_at", "ended_at"] {
                shift(&mut c, key, (k % 30) as i64);
            }
            out.push_str(&c.to_string());
            out.push('\n');
        }
    }
    let file = dir.join("many.jsonl");
    std::fs::write(&file, out).unwrap();
    file.display().to_string()
}

/// A confusion cell's decisions are as many as the cell counts: desk.jsonl's
/// four SELECTION failures, each its own cell, copied three times.
#[test]
fn a_confusion_cell_lists_as_many_decisions_as_it_counts() {
    use rung::store::browse::{Anchor, DecisionSet, Drill, drill_page};
    let (dir, db) = setup();
    import(&db, &["-q", &many_desks(dir.path(), 3)]);
    assert_kept_counts_are_exact(&db);
    let conn = Connection::open(&db).unwrap();
    let none = Filter::default();
    let cells = query::confusions(&conn, &none).unwrap().cells;
    assert_eq!(
        cells.iter().map(|c| c.count).collect::<Vec<_>>(),
        vec![3, 3, 3, 3]
    );
    for c in cells {
        let set = Drill::Set(DecisionSet::Cell {
            acceptable: c.acceptable,
            selected: c.selected,
        });
        let page = drill_page(&conn, &none, &set, &Anchor::First, 2).unwrap();
        assert_eq!((page.rows.len(), page.total), (2, Some(3)));
    }
}

/// 600 runs (more than two blocks of runs read for their findings) on 39
/// days (many more than a worker takes ahead).
#[test]
fn counts_refreshed_on_several_threads_over_many_runs_and_days() {
    let (dir, db) = setup();
    import(&db, &["-q", &many_desks(dir.path(), 150)]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(one(&conn, "SELECT count(*) FROM runs"), Sql::Integer(600));
    let days = refresh_both_ways(dir.path(), &db);
    assert_eq!(days.len(), 39);
    assert_eq!(
        whole_decisions(&dir.path().join("copy.db")),
        Sql::Integer(12 * 150)
    );
    assert_eq!(
        one(&conn, "SELECT count(*) FROM agg_runs"),
        Sql::Integer(600)
    );
}

/// A first import builds its index of verdicts by rung after its commit,
/// with the counts; stopped in between, the next writer builds it.
#[test]
fn an_index_left_unbuilt_between_the_two_commits_is_built_by_the_next_writer() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let indexes = |conn: &Connection| {
        rows(
            conn,
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'ladder\\_%' ESCAPE '\\'
             ORDER BY name",
        )
    };
    let conn = Connection::open(&db).unwrap();
    let built = vec![vec![text("ladder_rung")], vec![text("ladder_time")]];
    assert_eq!(indexes(&conn), built);
    conn.execute_batch("DROP INDEX ladder_rung").unwrap();
    drop(conn);
    let store = rung::store::Store::open_rw(&db).unwrap();
    assert_eq!(indexes(&store.conn), built);
}

/// A refusal as the refusal report reads it.
type Refused = (Option<String>, String, String, Option<i64>);

/// Everything a filter selects: the counts, the findings, the runs, and
/// the refusals (with no time window, and over November's 11th to 18th).
fn selected(
    conn: &Connection,
    f: &Filter,
) -> (Counts, u64, query::RunTally, Vec<Refused>, Vec<Refused>) {
    let refusals = |f: &Filter| -> Vec<Refused> {
        query::refusals(conn, f)
            .unwrap()
            .into_iter()
            .map(|r| (r.reason, r.stage, r.run_id, r.time_us))
            .collect()
    };
    let week = Filter {
        since: Some(day(11)),
        until: Some(day(19)),
        ..f.clone()
    };
    (
        counts(conn, f),
        query::count_findings(conn, f).unwrap(),
        query::run_tally(conn, f).unwrap(),
        refusals(f),
        refusals(&week),
    )
}

#[test]
fn a_tag_filter_keeps_the_runs_with_the_tag_however_it_was_written() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    let suite = |v: &str| Filter {
        tags: vec![("suite".to_string(), v.to_string())],
        ..Filter::default()
    };
    let runs = |ids: &[&str]| Filter {
        runs: ids.iter().map(|s| s.to_string()).collect(),
        ..Filter::default()
    };
    // Suite m19 is r-103 (three decisions) and r-104 (two).
    assert_eq!(query::ladder(&conn, &suite("m19")).unwrap().decisions, 5);
    assert_eq!(query::run_tally(&conn, &suite("m19")).unwrap().runs, 2);
    assert_eq!(
        selected(&conn, &suite("m19")),
        selected(&conn, &runs(&["r-103", "r-104"]))
    );
    // r-104's refusal on the 10th; r-102's three (suite m18) on the 18th,
    // all in the week and the week before it.
    let m19 = selected(&conn, &suite("m19"));
    assert_eq!((m19.3.len(), m19.4.len()), (1, 1));
    let m18 = selected(&conn, &suite("m18"));
    assert_eq!((m18.3.len(), m18.4.len()), (3, 3));
    // Written by hand (`sqlite3`): r-101 moves to m19, and r-102's tags
    // become a text that is not JSON, which names no tag and fails no
    // count.
    conn.execute_batch(
        "UPDATE runs SET tags = '{\"suite\":\"m19\"}' WHERE run_id = 'r-101';
         UPDATE runs SET tags = 'suite=m18' WHERE run_id = 'r-102';",
    )
    .unwrap();
    assert_eq!(query::ladder(&conn, &suite("m19")).unwrap().decisions, 8);
    assert_eq!(
        selected(&conn, &suite("m19")),
        selected(&conn, &runs(&["r-101", "r-103", "r-104"]))
    );
    assert_eq!(query::ladder(&conn, &suite("m18")).unwrap().decisions, 0);
    assert_eq!(query::run_tally(&conn, &suite("m18")).unwrap().runs, 0);
    // Two tags: both must hold.
    conn.execute_batch(
        "UPDATE runs SET tags = '{\"suite\":\"m19\",\"owner\":\"billing\"}'
         WHERE run_id = 'r-104'",
    )
    .unwrap();
    let both = Filter {
        tags: vec![
            ("suite".to_string(), "m19".to_string()),
            ("owner".to_string(), "billing".to_string()),
        ],
        ..Filter::default()
    };
    assert_eq!(query::ladder(&conn, &both).unwrap().decisions, 2);
    assert_eq!(selected(&conn, &both), selected(&conn, &runs(&["r-104"])));
}

/// Every run of desk.jsonl tagged `team=billing` besides its suite (by
/// hand: tags are not in the counts, and no day is listed).
fn tag_every_run(conn: &Connection) {
    conn.execute_batch("UPDATE runs SET tags = json_set(tags, '$.team', 'billing')")
        .unwrap();
    assert_eq!(one(conn, "SELECT count(*) FROM agg_dirty"), Sql::Integer(0));
}

fn team(extra: Filter) -> Filter {
    Filter {
        tags: vec![("team".into(), "billing".into())],
        ..extra
    }
}

/// How many decisions the keys whose verdicts have no run hold, over all
/// days.
fn runless(conn: &Connection) -> Sql {
    one(
        conn,
        "SELECT COALESCE(sum(a.decisions), 0) FROM agg_rungs a JOIN agg_keys k ON k.id = a.key
         WHERE k.whole = 1 AND k.runless = 1",
    )
}

#[test]
fn a_tag_every_run_has_is_answered_from_the_counts_unless_a_verdict_has_no_run() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    tag_every_run(&conn);
    let model = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    let week = Filter {
        since: Some(day(12)),
        until: Some(day(19)),
        ..Filter::default()
    };
    // The tag keeps all twelve verdicts: answered from the counts, with a
    // model and a window too, and each answer is the long way's.
    for f in [team(Filter::default()), team(model.clone()), team(week)] {
        assert!(
            rung::store::agg::read::scope(&conn, &f).unwrap().is_some(),
            "{f:?}"
        );
        assert_eq!(counts(&conn, &f), long_way(&conn, &f), "{f:?}");
        assert_eq!(drill_totals(&conn, &f), long_way_totals(&conn, &f), "{f:?}");
    }
    assert_eq!(
        query::ladder(&conn, &team(Filter::default()))
            .unwrap()
            .decisions,
        12
    );
    assert_eq!(counts(&conn, &team(model.clone())), counts(&conn, &model));
    // A tag only some runs have (suite m18: r-101 and r-102), or two tags
    // of which one is: the long way.
    let m18 = Filter {
        tags: vec![("suite".into(), "m18".into())],
        ..Filter::default()
    };
    let both = Filter {
        tags: vec![
            ("suite".into(), "m18".into()),
            ("team".into(), "billing".into()),
        ],
        ..Filter::default()
    };
    for f in [&m18, &both] {
        assert!(rung::store::agg::read::scope(&conn, f).unwrap().is_none());
        assert_eq!(query::ladder(&conn, f).unwrap().decisions, 7);
    }
    // A run without the tag (r-104 loses it): the long way, without r-104's
    // two decisions.
    conn.execute_batch("UPDATE runs SET tags = '{\"suite\":\"m19\"}' WHERE run_id = 'r-104'")
        .unwrap();
    assert!(
        rung::store::agg::read::scope(&conn, &team(Filter::default()))
            .unwrap()
            .is_none()
    );
    assert_eq!(
        query::ladder(&conn, &team(Filter::default()))
            .unwrap()
            .decisions,
        10
    );
    tag_every_run(&conn);
    assert_eq!(runless(&conn), Sql::Integer(0));
    // r-104's run deleted by hand, then counted again: its two verdicts
    // have no run; no tag keeps them, while the unfiltered counts do.
    conn.execute_batch("DELETE FROM runs WHERE run_id = 'r-104'")
        .unwrap();
    assert_verdicts_without_a_run(&conn, 2);
    // A verdict whose decision is deleted by hand has no run either.
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    tag_every_run(&conn);
    conn.execute_batch("DELETE FROM decision_rows WHERE run_id = 'r-101' AND step = 1")
        .unwrap();
    assert_verdicts_without_a_run(&conn, 1);
}

/// Counted again after a write by hand, `n` of desk.jsonl's twelve verdicts
/// have no run: a tag every run has is counted the long way and keeps the
/// others, the unfiltered counts keep all twelve.
fn assert_verdicts_without_a_run(conn: &Connection, n: i64) {
    rung::store::agg::refresh(conn).unwrap();
    assert_eq!(runless(conn), Sql::Integer(n));
    let f = team(Filter::default());
    assert!(rung::store::agg::read::scope(conn, &f).unwrap().is_none());
    assert_eq!(query::ladder(conn, &f).unwrap().decisions, 12 - n as u64);
    assert_eq!(
        query::ladder(conn, &Filter::default()).unwrap().decisions,
        12
    );
    counts_are_the_long_ways(conn);
}

#[test]
fn a_schema_14_database_finds_its_verdicts_without_a_run_on_upgrade() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    {
        let conn = Connection::open(&db).unwrap();
        tag_every_run(&conn);
        conn.execute_batch("DELETE FROM runs WHERE run_id = 'r-104'")
            .unwrap();
        rung::store::agg::refresh(&conn).unwrap();
        // Schema 14 keeps them with the run-less runs' verdicts (no model).
        conn.execute_batch(&format!("{BEFORE_15} PRAGMA user_version = 14"))
            .unwrap();
        assert!(
            rung::store::agg::read::scope(&conn, &Filter::default())
                .unwrap()
                .is_some()
        );
    }
    let store = open_upgraded(&db);
    assert_eq!(runless(&store.conn), Sql::Integer(2));
    assert_eq!(
        one(&store.conn, "SELECT count(*) FROM agg_dirty"),
        Sql::Integer(0)
    );
    let f = team(Filter::default());
    assert!(
        rung::store::agg::read::scope(&store.conn, &f)
            .unwrap()
            .is_none()
    );
    assert_eq!(query::ladder(&store.conn, &f).unwrap().decisions, 10);
    counts_are_the_long_ways(&store.conn);
}

/// Under every filter of [`filters`] and the tag every run had, the counts
/// (kept or not) are the long way's. (Not the drill totals: a decision list
/// leaves out the verdicts without a run, which the counts hold.)
fn counts_are_the_long_ways(conn: &Connection) {
    for f in filters().into_iter().chain([team(Filter::default())]) {
        assert_eq!(counts(conn, &f), long_way(conn, &f), "{f:?}");
    }
}
