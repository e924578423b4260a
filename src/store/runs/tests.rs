//! The runs table's sort orders: the SQL that pages runs and the Rust
//! comparator that sorts runs in memory (the TUI's fuzzy results) must
//! agree, or paging from an in-memory row skips or repeats runs.

use std::path::Path;

use rusqlite::params;

use super::*;
use crate::store::Store;
use crate::store::paging::cmp_key;

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
