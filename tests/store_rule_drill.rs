//! A tool's "why visible" audit and the decisions behind one of its rules:
//! the audit counts every decision on the catalogue in the filter (the same
//! whether or not the kept counts answer it), and the rule's list pages
//! the decisions in every direction. desk.jsonl by hand: delete_customer is hidden by the family
//! rule on the 10 decisions of r-101, r-102 and r-103 (billing-only
//! policies) and visible by the flat rule on r-104's 2.

mod import_util;
mod store_util;

use import_util::*;
use rung::filter::Filter;
use rung::store::browse::{Anchor, DecisionRow, Drill, Page, drill_page, tool_audit};
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

fn hidden_by_family() -> Drill {
    Drill::Rule {
        catalogue: "desk-1".into(),
        name: "delete_customer".into(),
        visible: false,
        rule: "family".into(),
        decisions: Some(10),
    }
}

fn steps(p: &Page<DecisionRow>) -> Vec<(String, i64)> {
    p.rows
        .iter()
        .map(|(_, r)| (r.run_id.clone(), r.step))
        .collect()
}

fn rs(v: &[(&str, i64)]) -> Vec<(String, i64)> {
    v.iter().map(|(r, s)| (r.to_string(), *s)).collect()
}

/// (before, total, more_before, more_after, focus)
fn shape(p: &Page<DecisionRow>) -> (Option<u64>, Option<u64>, bool, bool, Option<usize>) {
    (p.before, p.total, p.more_before, p.more_after, p.focus)
}

#[test]
fn the_audit_counts_every_decision_with_or_without_the_kept_counts() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let gpt = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    // gpt-4o ran r-102 (4 decisions) and r-104 (2).
    for (f, total, rules) in [
        (
            Filter::default(),
            12,
            vec![(false, "family", 10), (true, "flat", 2)],
        ),
        (gpt, 6, vec![(false, "family", 4), (true, "flat", 2)]),
    ] {
        assert!(rung::store::agg::read::scope(&conn, &f).unwrap().is_some());
        let kept = tool_audit(&conn, &f, "desk-1", "delete_customer", &|| false).unwrap();
        conn.execute_batch("BEGIN; INSERT INTO agg_dirty VALUES (0);")
            .unwrap();
        assert!(rung::store::agg::read::scope(&conn, &f).unwrap().is_none());
        let long = tool_audit(&conn, &f, "desk-1", "delete_customer", &|| false).unwrap();
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(kept, long, "{f:?}");
        assert_eq!(kept.total, total, "{f:?}");
        let got: Vec<(bool, &str, u64)> = kept
            .rules
            .iter()
            .map(|r| (r.visible, r.rule.as_str(), r.decisions))
            .collect();
        assert_eq!(got, rules, "{f:?}");
    }
}

#[test]
fn a_rule_s_decisions_page_forward_back_and_around_an_anchor() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    let f = Filter::default();
    let d = hidden_by_family();
    let first = drill_page(&conn, &f, &d, &Anchor::First, 3).unwrap();
    assert_eq!(
        steps(&first),
        rs(&[("r-101", 1), ("r-101", 2), ("r-101", 3)])
    );
    assert_eq!(shape(&first), (Some(0), Some(10), false, true, None));
    let key = |p: &Page<DecisionRow>, i: usize| p.rows[i].0.clone();
    let after = drill_page(&conn, &f, &d, &Anchor::After(key(&first, 2)), 3).unwrap();
    assert_eq!(
        steps(&after),
        rs(&[("r-102", 1), ("r-102", 2), ("r-102", 3)])
    );
    assert_eq!(shape(&after), (None, None, true, true, None));
    let before = drill_page(&conn, &f, &d, &Anchor::Before(key(&after, 1)), 3).unwrap();
    assert_eq!(
        steps(&before),
        rs(&[("r-101", 2), ("r-101", 3), ("r-102", 1)])
    );
    assert_eq!(shape(&before), (None, None, true, true, None));
    let last = drill_page(&conn, &f, &d, &Anchor::Last, 3).unwrap();
    assert_eq!(
        steps(&last),
        rs(&[("r-103", 1), ("r-103", 2), ("r-103", 3)])
    );
    assert_eq!(shape(&last), (Some(7), Some(10), true, false, None));
    // Around r-102 step 3: two before it, it and two after.
    let around = drill_page(&conn, &f, &d, &Anchor::Around(key(&after, 2)), 5).unwrap();
    assert_eq!(
        steps(&around),
        rs(&[
            ("r-102", 1),
            ("r-102", 2),
            ("r-102", 3),
            ("r-102", 4),
            ("r-103", 1)
        ])
    );
    assert_eq!(shape(&around), (Some(3), Some(10), true, true, Some(2)));
    // Past the last kept decision (r-104 step 2 is not one of them).
    let past = (Sql::Integer(i64::MAX), Sql::Integer(i64::MAX));
    let none = drill_page(&conn, &f, &d, &Anchor::After(past), 3).unwrap();
    assert!(none.rows.is_empty());
    assert_eq!(shape(&none), (None, None, true, false, None));
    // The flat rule: r-104's two.
    let flat = Drill::Rule {
        catalogue: "desk-1".into(),
        name: "delete_customer".into(),
        visible: true,
        rule: "flat".into(),
        decisions: None,
    };
    let p = drill_page(&conn, &f, &flat, &Anchor::First, 3).unwrap();
    assert_eq!(steps(&p), rs(&[("r-104", 1), ("r-104", 2)]));
    assert_eq!(shape(&p), (Some(0), Some(2), false, false, None));
    // A tool the catalogue does not list: nothing.
    let unknown = Drill::Rule {
        catalogue: "desk-1".into(),
        name: "no_such_tool".into(),
        visible: true,
        rule: "flat".into(),
        decisions: None,
    };
    let p = drill_page(&conn, &f, &unknown, &Anchor::First, 3).unwrap();
    assert!(p.rows.is_empty());
    assert_eq!(shape(&p), (Some(0), Some(0), false, false, None));
}
