//! The runs table's sort orders: the SQL that pages runs and the Rust
//! comparator that sorts runs in memory (the TUI's fuzzy results) must
//! agree, or paging from an in-memory row skips or repeats runs.

use std::path::Path;

use rusqlite::params;

use super::*;
use crate::store::Store;
use crate::store::paging::cmp_key;
use crate::store::query_plan;

/// Runs with every first failed rung (plus none and a repeated one), and
/// task, trial, model, decisions, success and harm that disagree with the
/// run-id order, NULLs included.
fn store() -> Store {
    let store = Store::open_rw(Path::new(":memory:")).unwrap();
    let mut rungs: Vec<Option<&str>> = Rung::ALL.iter().map(|r| Some(r.as_str())).collect();
    rungs.extend([None, Some("selection"), None]);
    let n = rungs.len();
    for (i, rung) in rungs.into_iter().enumerate() {
        let j = (i * 7) % n; // a permutation of 0..n unrelated to i
        store
            .conn
            .execute(
                "INSERT INTO runs (run_id, task_id, trial, model, decisions, first_failed_rung,
                                   success, harm)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    format!("run-{:02}", n - i),
                    (!j.is_multiple_of(3)).then(|| format!("task-{}", j % 4)),
                    (!j.is_multiple_of(4)).then_some((j % 3) as i64),
                    (!j.is_multiple_of(5)).then(|| format!("m-{}", j % 2)),
                    (j * 3 % 5) as i64,
                    rung,
                    (j % 3 != 1).then_some(j.is_multiple_of(2)),
                    (j % 4 != 2).then_some(j.is_multiple_of(3)),
                ],
            )
            .unwrap();
    }
    store
}

fn ids(rows: &[RunRow]) -> Vec<&str> {
    rows.iter().map(|r| r.run_id.as_str()).collect()
}

#[test]
fn sql_order_and_rust_comparator_agree_for_every_sort() {
    let store = store();
    let all = |sort, desc| {
        runs_page(
            &store.conn,
            &Filter::default(),
            sort,
            desc,
            &Anchor::First,
            100,
        )
        .unwrap()
    };
    let every: Vec<RunRow> = all(RunSort::Id, false)
        .rows
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    assert_eq!(every.len(), Rung::ALL.len() + 3);
    for sort in RunSort::ALL {
        for desc in [false, true] {
            let page = all(sort, desc);
            // The key SQL computed is the key Rust computes.
            for (key, row) in &page.rows {
                assert_eq!(*key, run_key(row, sort), "{sort:?} {}", row.run_id);
            }
            let sql: Vec<RunRow> = page.rows.into_iter().map(|(_, r)| r).collect();
            let mut rust = every.clone();
            rust.sort_by(|a, b| {
                let o = cmp_key(&run_key(a, sort), &run_key(b, sort));
                if desc { o.reverse() } else { o }
            });
            assert_eq!(ids(&sql), ids(&rust), "{sort:?} desc={desc}");
        }
    }
}

#[test]
fn runs_sort_by_first_failed_rung_in_walking_order_none_last() {
    let store = store();
    let page = runs_page(
        &store.conn,
        &Filter::default(),
        RunSort::FirstFailed,
        false,
        &Anchor::First,
        100,
    )
    .unwrap();
    let rungs: Vec<Option<&str>> = page
        .rows
        .iter()
        .map(|(_, r)| r.first_failed_rung.map(Rung::as_str))
        .collect();
    assert_eq!(
        rungs,
        vec![
            Some("coverage"),
            Some("exposure"),
            Some("discovery"),
            Some("selection"),
            Some("selection"),
            Some("representation"),
            Some("schema"),
            Some("semantics"),
            Some("authorization"),
            Some("precondition"),
            Some("unclassified"),
            Some("execution"),
            Some("progress"),
            // No failed rung, `passed` and `unlabelled` sort together last
            // by run id: run-01 and run-03 have none, run-04 passed,
            // run-05 unlabelled.
            None,
            None,
            Some("passed"),
            Some("unlabelled"),
        ]
    );
    assert_eq!(page.rows[15].1.run_id, "run-04");
}

/// A page around a run sorted by task, read in one pass: NULL and '' sort
/// together by run id, and a task that is not a text (a blob) where SQLite
/// puts it, after every text; the rows before it counted.
#[test]
fn around_a_run_by_task_orders_null_empty_and_blob_tasks_as_sqlite_does() {
    use rusqlite::types::Value as V;
    let store = Store::open_rw(Path::new(":memory:")).unwrap();
    let conn = &store.conn;
    for (run, task) in [
        ("r1", V::Text("b".into())),
        ("r2", V::Null),
        ("r3", V::Text("a".into())),
        ("r4", V::Text(String::new())),
        ("r5", V::Text("b".into())),
        ("r0", V::Blob(vec![0])),
    ] {
        conn.execute(
            "INSERT INTO runs (run_id, task_id) VALUES (?1, ?2)",
            params![run, task],
        )
        .unwrap();
    }
    let around = |task: &str, run: &str, n: usize| {
        let k = (Sql::Text(task.into()), Sql::Text(run.into()));
        let page = runs_page(
            conn,
            &Filter::default(),
            RunSort::Task,
            false,
            &Anchor::Around(k),
            n,
        )
        .unwrap();
        let ids: Vec<String> = page.rows.iter().map(|r| r.1.run_id.clone()).collect();
        (
            ids,
            page.before,
            page.total,
            page.focus,
            page.more_before,
            page.more_after,
        )
    };
    // The order: r2, r4 (NULL and ''), r3, r1, r5, r0 (the blob).
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        around("b", "r1", 3),
        (
            s(&["r3", "r1", "r5"]),
            Some(2),
            Some(6),
            Some(1),
            true,
            true
        )
    );
    // Half the page before the anchor (here one row there is), half from it.
    assert_eq!(
        around("", "r4", 4),
        (
            s(&["r2", "r4", "r3"]),
            Some(0),
            Some(6),
            Some(1),
            false,
            true
        )
    );
    // The blob sorts after every text: one more row (r0) after r5.
    assert_eq!(
        around("b", "r5", 2),
        (s(&["r1", "r5"]), Some(3), Some(6), Some(1), true, true)
    );
}

#[test]
fn every_sort_reads_the_runs_from_the_runs_sort_index() {
    // A run's row holds its goal, source, tags and controls too: sorted by
    // a key no index orders, every run is read, from `runs_sort` (tens of
    // bytes a run) rather than from the table (schema 13).
    let store = store();
    for f in [
        Filter::default(),
        // A model keeps a large share of the runs: not read through its
        // own index, which would look up each run's row.
        Filter {
            models: vec!["m-0".into()],
            ..Filter::default()
        },
    ] {
        every_sort_reads_runs_sort(&store, &f);
    }
    // Nor a catalogue, where it is the run's (the tally).
    let catalogue = Filter {
        catalogues: vec!["c".into()],
        ..Filter::default()
    };
    assert_eq!(
        query_plan(&store.conn, &tally_sql(&catalogue).0),
        "SCAN r USING COVERING INDEX runs_sort"
    );
    // A task keeps few runs: its index is searched.
    let task = Filter {
        tasks: vec!["task-1".into()],
        models: vec!["m-0".into()],
        ..Filter::default()
    };
    assert!(
        query_plan(&store.conn, &tally_sql(&task).0).starts_with("SEARCH r USING INDEX runs_task"),
        "{}",
        query_plan(&store.conn, &tally_sql(&task).0)
    );
}

fn every_sort_reads_runs_sort(store: &Store, f: &Filter) {
    for sort in RunSort::ALL.into_iter().filter(|s| *s != RunSort::Id) {
        for desc in [false, true] {
            let scans = runs_spec(f, sort, desc).scans(100);
            assert_eq!(scans.len(), 2, "{sort:?}: the next page and the one pass");
            for sql in scans {
                let plan = query_plan(&store.conn, &sql);
                assert!(
                    plan.starts_with("SCAN r USING COVERING INDEX runs_sort"),
                    "{sort:?} desc {desc}, {sql}: {plan}"
                );
            }
        }
    }
    // Sorted by run id, a page is a range of the same index, which the run
    // id leads.
    let by_id = runs_spec(f, RunSort::Id, false).scans(100);
    assert_eq!(by_id.len(), 1);
    assert_eq!(
        query_plan(&store.conn, &by_id[0]),
        "SEARCH r USING COVERING INDEX runs_sort (run_id>?)"
    );
    // The fuzzy filter reads every run's goal too, in the index's order.
    assert_eq!(
        query_plan(&store.conn, &scan_sql(f).0),
        "SCAN r USING COVERING INDEX runs_sort"
    );
    // The Runs screen's tally, and `rung report runs`, read it too.
    assert_eq!(
        query_plan(&store.conn, &tally_sql(f).0),
        "SCAN r USING COVERING INDEX runs_sort",
        "{f:?}"
    );
}
