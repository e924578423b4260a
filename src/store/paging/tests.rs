//! Keyset pages against the plain query: for random runs and decisions
//! (NULLs and ties included), every list the TUI pages (runs in every sort
//! and direction, with and without a decision filter; decisions by rung, by
//! confusion cell, by refusal group; a run's timeline), read from every
//! anchor with every page size, must be exactly the rows of
//! `ORDER BY ... LIMIT n OFFSET k` over the same list.

use proptest::prelude::*;
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params, params_from_iter};

use super::{Anchor, Key, Page};
use crate::filter::Filter;
use crate::model::Rung;
use crate::store::Store;
use crate::store::decisions::{
    DecisionRow, DecisionSet, decision_key, decisions_page, next_failing, step_key, timeline_page,
};
use crate::store::runs::{RunSort, run_key, runs_page};

#[derive(Debug, Clone)]
struct GenRun {
    task: Option<u8>,
    trial: Option<i64>,
    model: Option<u8>,
    first_failed: Option<Rung>,
    success: Option<bool>,
    harm: Option<bool>,
    decisions: Vec<GenDecision>,
}

#[derive(Debug, Clone)]
struct GenDecision {
    rung: Rung,
    phase: Option<u8>,
    time: Option<i64>,
    refused: bool,
    reason: Option<u8>,
    boundary: Option<u8>,
    acceptable: u8,
    selected: Option<u8>,
}

/// Few distinct values, so that keys tie often.
fn gen_decision() -> impl Strategy<Value = GenDecision> {
    (
        // selection more often than the rest, for the confusion cells
        (0..Rung::ALL.len() + 3).prop_map(|i| Rung::ALL.get(i).copied().unwrap_or(Rung::Selection)),
        prop::option::of(0u8..2),
        prop::option::of(0i64..4),
        any::<bool>(),
        prop::option::of(0u8..2),
        prop::option::of(0u8..2),
        0u8..3,
        prop::option::of(0u8..2),
    )
        .prop_map(
            |(rung, phase, time, refused, reason, boundary, acceptable, selected)| GenDecision {
                rung,
                phase,
                time,
                refused,
                reason,
                boundary,
                acceptable,
                selected,
            },
        )
}

fn gen_run() -> impl Strategy<Value = GenRun> {
    (
        prop::option::of(0u8..3),
        prop::option::of(0i64..3),
        prop::option::of(0u8..2),
        prop::option::of(prop::sample::select(Rung::ALL)),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::collection::vec(gen_decision(), 0..4),
    )
        .prop_map(
            |(task, trial, model, first_failed, success, harm, decisions)| GenRun {
                task,
                trial,
                model,
                first_failed,
                success,
                harm,
                decisions,
            },
        )
}

const ACCEPTABLE: [&str; 3] = [r#"["a"]"#, r#"["b"]"#, r#"["a","b"]"#];
const STAGES: [&str; 2] = ["schema", "precondition"];

fn store(runs: &[GenRun]) -> Store {
    let store = Store::open_rw(std::path::Path::new(":memory:")).unwrap();
    let conn = &store.conn;
    // Every list and anchor has its own SQL: keep them all prepared.
    conn.set_prepared_statement_cache_capacity(4096);
    let mut id = 0i64;
    for (i, r) in runs.iter().enumerate() {
        let run_id = format!("run-{i}");
        conn.execute(
            "INSERT INTO runs (run_id, task_id, trial, model, decisions, first_failed_rung,
                               success, harm)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                run_id,
                // An empty task or model sorts with none (both as '').
                r.task.map(|t| if t == 2 {
                    String::new()
                } else {
                    format!("task-{t}")
                }),
                r.trial,
                r.model.map(|m| if m == 1 {
                    String::new()
                } else {
                    format!("m-{m}")
                }),
                r.decisions.len() as i64,
                r.first_failed.map(Rung::as_str),
                r.success,
                r.harm,
            ],
        )
        .unwrap();
        for (s, d) in r.decisions.iter().enumerate() {
            id += 3; // ids with gaps, unrelated to steps
            let step = (s as i64 + 1) * 2;
            // The decision first: the verdict reads its run, step, phase,
            // selected tool and status from it.
            conn.execute(
                "INSERT INTO decision_rows (id, run_id, step, phase, selected, status, reason,
                    record_hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, x'00')",
                params![
                    id,
                    run_id,
                    step,
                    d.phase.map(|p| format!("p{p}")),
                    d.selected.map(|s| ["a", "b"][s as usize]),
                    if d.refused { "refused" } else { "ok" },
                    d.reason.map(|x| format!("why-{x}")),
                ],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO ladder (decision_id, run_id, step, turn, phase, time_us, selected,
                    status, reason, rung, boundary, violated, acceptable, is_first,
                    abstain_expected, abstained, no_call_expected, controls, retrieved)
                 VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ?11, 0, 0, 0, 0, '[]', '[]')",
                params![
                    id,
                    run_id,
                    step,
                    d.phase.map(|p| format!("p{p}")),
                    d.time.map(|t| t * 1000),
                    d.selected.map(|s| ["a", "b"][s as usize]),
                    if d.refused { "refused" } else { "ok" },
                    d.reason.map(|x| format!("why-{x}")),
                    d.rung.as_str(),
                    d.boundary.map(|b| STAGES[b as usize]),
                    ACCEPTABLE[d.acceptable as usize],
                ],
            )
            .unwrap();
        }
    }
    store
}

/// `reference` (a `SELECT <id>` with its `ORDER BY`) with `LIMIT n OFFSET o`.
fn plain(conn: &Connection, reference: &str, args: &[Sql], n: usize, o: usize) -> Vec<String> {
    let mut all = args.to_vec();
    all.push(Sql::Integer(n as i64));
    all.push(Sql::Integer(o as i64));
    let mut stmt = conn
        .prepare_cached(&format!("{reference} LIMIT ? OFFSET ?"))
        .unwrap();
    stmt.query_map(params_from_iter(all), |r| {
        Ok(match r.get::<_, Sql>(0)? {
            Sql::Integer(i) => i.to_string(),
            Sql::Text(t) => t,
            other => format!("{other:?}"),
        })
    })
    .unwrap()
    .collect::<rusqlite::Result<_>>()
    .unwrap()
}

/// Reads one page of a list.
type Pager<'a, T> = Box<dyn Fn(&Anchor, usize) -> Page<T> + 'a>;

/// One paged list and how to read it.
struct List<'a, T> {
    what: String,
    reference: String,
    args: Vec<Sql>,
    page: Pager<'a, T>,
    id: fn(&T) -> String,
    key: Box<dyn Fn(&T) -> Key + 'a>,
}

fn ids<T>(l: &List<'_, T>, p: &Page<T>) -> Vec<String> {
    p.rows.iter().map(|(_, r)| (l.id)(r)).collect()
}

fn check<T>(conn: &Connection, l: &List<'_, T>) -> Result<(), TestCaseError> {
    let what = &l.what;
    let all = plain(conn, &l.reference, &l.args, usize::MAX >> 1, 0);
    let total = all.len();
    let rows = (l.page)(&Anchor::First, total + 1).rows;
    prop_assert_eq!(
        rows.iter().map(|(_, r)| (l.id)(r)).collect::<Vec<_>>(),
        all.clone(),
        "{}: everything on one page",
        what
    );
    // The keys the TUI computes for rows, in list order.
    let keys: Vec<Key> = rows.iter().map(|(_, r)| (l.key)(r)).collect();
    for (k, (sql, _)) in keys.iter().zip(&rows) {
        prop_assert_eq!(k, sql, "{}: the row's key is the key SQL sorted by", what);
    }

    for n in 1..=total + 1 {
        // Forward from the first page: pages sit at offsets 0, n, 2n, ...
        let mut page = (l.page)(&Anchor::First, n);
        prop_assert_eq!(page.before, Some(0), "{} n={}", what, n);
        prop_assert_eq!(page.total, Some(total as u64), "{} n={}", what, n);
        let mut k = 0;
        loop {
            prop_assert_eq!(ids(l, &page), plain(conn, &l.reference, &l.args, n, k * n));
            prop_assert_eq!(
                page.more_after,
                (k + 1) * n < total,
                "{} n={} k={}",
                what,
                n,
                k
            );
            if !page.more_after {
                break;
            }
            let last = page.rows.last().map(|(_, r)| (l.key)(r)).unwrap();
            page = (l.page)(&Anchor::After(last), n);
            k += 1;
        }
        // Backward from the last page.
        let mut page = (l.page)(&Anchor::Last, n);
        let mut end = total;
        prop_assert_eq!(page.total, Some(total as u64), "{} n={}", what, n);
        prop_assert_eq!(page.before, Some(total.saturating_sub(n) as u64));
        loop {
            let start = end.saturating_sub(n);
            prop_assert_eq!(
                ids(l, &page),
                plain(conn, &l.reference, &l.args, end - start, start),
                "{} n={} backward to {}",
                what,
                n,
                start
            );
            prop_assert_eq!(page.more_before, start > 0, "{} n={}", what, n);
            if !page.more_before {
                break;
            }
            let first = page.rows.first().map(|(_, r)| (l.key)(r)).unwrap();
            page = (l.page)(&Anchor::Before(first), n);
            end = start;
        }
        // From every row: after it, before it, and centred on it (with the
        // small sizes, odd and even, and one page for all).
        if n > 4 && n <= total {
            continue;
        }
        for (i, key) in keys.iter().enumerate() {
            let after = (l.page)(&Anchor::After(key.clone()), n);
            prop_assert_eq!(ids(l, &after), plain(conn, &l.reference, &l.args, n, i + 1));
            prop_assert_eq!(after.more_after, i + 1 + n < total, "{} after {}", what, i);
            let before = (l.page)(&Anchor::Before(key.clone()), n);
            let start = i.saturating_sub(n);
            prop_assert_eq!(
                ids(l, &before),
                plain(conn, &l.reference, &l.args, i - start, start)
            );
            prop_assert_eq!(before.more_before, start > 0, "{} before {}", what, i);
            let around = (l.page)(&Anchor::Around(key.clone()), n);
            let half = n / 2;
            let start = i.saturating_sub(half);
            let end = (i + (n - half)).min(total);
            prop_assert_eq!(
                ids(l, &around),
                plain(conn, &l.reference, &l.args, end - start, start),
                "{} around {} n={}",
                what,
                i,
                n
            );
            prop_assert_eq!(around.focus, Some(i - start), "{} around {}", what, i);
            prop_assert_eq!(around.before, Some(start as u64), "{} around {}", what, i);
            prop_assert_eq!(around.total, Some(total as u64), "{} around {}", what, i);
            prop_assert_eq!(around.more_before, start > 0);
            prop_assert_eq!(around.more_after, end < total);
        }
    }
    Ok(())
}

/// The order each run sort promises, written out: NULLs sort as the
/// lowest value, no failed rung (or `passed`) after every failed rung, ties
/// by run id; descending reverses both.
fn run_order(sort: RunSort) -> String {
    match sort {
        RunSort::Id => "r.run_id".into(),
        RunSort::Task => "COALESCE(r.task_id, '')".into(),
        RunSort::Trial => "COALESCE(r.trial, -1)".into(),
        RunSort::Model => "COALESCE(r.model, '')".into(),
        RunSort::Decisions => "r.decisions".into(),
        RunSort::FirstFailed => {
            let mut s = String::from("CASE");
            for r in Rung::ALL {
                s.push_str(&format!(
                    " WHEN r.first_failed_rung = '{}' THEN {}",
                    r.as_str(),
                    Rung::failed_order(Some(*r))
                ));
            }
            s + &format!(" ELSE {} END", Rung::failed_order(None))
        }
        RunSort::Success => "COALESCE(r.success, -1)".into(),
        RunSort::Harm => "COALESCE(r.harm, -1)".into(),
    }
}

fn decision_id(d: &DecisionRow) -> String {
    d.decision_id.to_string()
}

fn check_all(runs: &[GenRun]) -> Result<(), TestCaseError> {
    let store = store(runs);
    let conn = &store.conn;
    let phase = Filter {
        phases: vec!["p0".into()],
        ..Filter::default()
    };
    for (filter, filter_sql) in [
        (Filter::default(), "1=1"),
        (
            phase.clone(),
            "EXISTS (SELECT 1 FROM ladder l WHERE l.run_id = r.run_id AND l.phase = 'p0')",
        ),
    ] {
        for sort in RunSort::ALL {
            for desc in [false, true] {
                let dir = if desc { "DESC" } else { "ASC" };
                let f = filter.clone();
                check(
                    conn,
                    &List {
                        what: format!("runs by {sort:?} desc={desc} where {filter_sql}"),
                        reference: format!(
                            "SELECT r.run_id FROM runs r WHERE {filter_sql}
                             ORDER BY {} {dir}, r.run_id {dir}",
                            run_order(sort)
                        ),
                        args: Vec::new(),
                        page: Box::new(move |a, n| runs_page(conn, &f, sort, desc, a, n).unwrap()),
                        id: |r| r.run_id.clone(),
                        key: Box::new(move |r| run_key(r, sort)),
                    },
                )?;
            }
        }
    }

    let from = "SELECT l.decision_id FROM ladder l JOIN runs r ON r.run_id = l.run_id WHERE";
    let mut sets: Vec<(DecisionSet, String, Vec<Sql>)> = Vec::new();
    for rung in Rung::ALL {
        sets.push((
            DecisionSet::Rung(*rung),
            format!("{from} l.rung = ? ORDER BY l.decision_id"),
            vec![Sql::Text(rung.as_str().into())],
        ));
    }
    for acceptable in [vec!["a"], vec!["b"], vec!["a", "b"]] {
        for selected in [Some("a"), Some("b"), None] {
            sets.push((
                DecisionSet::Cell {
                    acceptable: acceptable.iter().map(|s| s.to_string()).collect(),
                    selected: selected.map(str::to_string),
                },
                format!(
                    "{from} l.rung = 'selection' AND l.acceptable = ? AND l.selected IS ?
                     ORDER BY l.decision_id"
                ),
                vec![
                    Sql::Text(serde_json::to_string(&acceptable).unwrap()),
                    selected.map_or(Sql::Null, |s| Sql::Text(s.into())),
                ],
            ));
        }
    }
    for reason in [None, Some("why-0"), Some("why-1")] {
        for stage in ["unclassified", STAGES[0], STAGES[1]] {
            for (since, until) in [(0, 4000), (1000, 3000)] {
                sets.push((
                    DecisionSet::Refusal {
                        reason: reason.map(str::to_string),
                        stage: stage.to_string(),
                        since,
                        until,
                    },
                    format!(
                        "{from} l.status = 'refused' AND l.reason IS ?
                         AND COALESCE(l.boundary, 'unclassified') = ?
                         AND l.time_us >= ? AND l.time_us < ?
                         ORDER BY l.time_us, l.decision_id"
                    ),
                    vec![
                        reason.map_or(Sql::Null, |s| Sql::Text(s.into())),
                        Sql::Text(stage.into()),
                        Sql::Integer(since),
                        Sql::Integer(until),
                    ],
                ));
            }
        }
    }
    for (set, reference, args) in sets {
        let f = Filter::default();
        let s = set.clone();
        check(
            conn,
            &List {
                what: format!("decisions {set:?}"),
                reference,
                args,
                page: Box::new(move |a, n| decisions_page(conn, &f, &s, a, n).unwrap()),
                id: decision_id,
                key: Box::new(move |r| decision_key(r, &set)),
            },
        )?;
    }

    for i in 0..runs.len() {
        let run_id = format!("run-{i}");
        let f = Filter::default();
        let r = run_id.clone();
        check(
            conn,
            &List {
                what: format!("timeline of {run_id}"),
                reference: format!("{from} l.run_id = ? ORDER BY l.step"),
                args: vec![Sql::Text(run_id)],
                page: Box::new(move |a, n| timeline_page(conn, &f, &r, a, n).unwrap()),
                id: decision_id,
                key: Box::new(|d| step_key(d.step)),
            },
        )?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn keyset_pages_equal_limit_offset_pages(runs in prop::collection::vec(gen_run(), 0..7)) {
        check_all(&runs)?;
    }
}

/// A fixed case with every kind of tie, so that a regression shows without
/// depending on what the generator happens to draw.
#[test]
fn keyset_pages_equal_limit_offset_pages_with_ties() {
    let d = |rung, time, refused| GenDecision {
        rung,
        phase: Some(0),
        time,
        refused,
        reason: None,
        boundary: None,
        acceptable: 0,
        selected: Some(1),
    };
    let run = |task, first_failed, decisions: Vec<GenDecision>| GenRun {
        task,
        trial: None,
        model: Some(0),
        first_failed,
        success: None,
        harm: Some(false),
        decisions,
    };
    let runs = vec![
        run(
            Some(1),
            Some(Rung::Selection),
            vec![d(Rung::Selection, Some(1), true); 3],
        ),
        run(
            None,
            None,
            vec![
                d(Rung::Passed, None, true),
                d(Rung::Selection, Some(1), true),
            ],
        ),
        run(Some(1), Some(Rung::Passed), vec![]),
        run(
            None,
            Some(Rung::Selection),
            vec![d(Rung::Selection, Some(2), false); 2],
        ),
        run(Some(0), None, vec![d(Rung::Coverage, Some(1), true)]),
    ];
    check_all(&runs).unwrap();
}

/// "Next failing" skips the decisions that failed nowhere: `passed` and
/// `unlabelled` alike.
#[test]
fn next_failing_skips_passed_and_unlabelled() {
    let d = |rung| GenDecision {
        rung,
        phase: None,
        time: None,
        refused: false,
        reason: None,
        boundary: None,
        acceptable: 0,
        selected: Some(0),
    };
    // Steps 2, 4, 6, 8, 10 (the helper numbers them by two).
    let store = store(&[GenRun {
        task: None,
        trial: None,
        model: None,
        first_failed: Some(Rung::Selection),
        success: None,
        harm: None,
        decisions: vec![
            d(Rung::Selection),
            d(Rung::Unlabelled),
            d(Rung::Passed),
            d(Rung::Schema),
            d(Rung::Unlabelled),
        ],
    }]);
    let f = Filter::default();
    let next = |step, forward| next_failing(&store.conn, &f, "run-0", step, forward).unwrap();
    assert_eq!(next(2, true), Some(8));
    assert_eq!(next(8, true), None);
    assert_eq!(next(10, false), Some(8));
    assert_eq!(next(8, false), Some(2));
    assert_eq!(next(0, true), Some(2));
}
