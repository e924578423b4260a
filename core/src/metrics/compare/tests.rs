use super::*;
use crate::metrics::diff::{CatalogueDiff, Field};

fn attempt(task: &str, trial: i64, ok: bool, recovered: bool, success: bool) -> Attempt {
    Attempt {
        run_id: format!("{task}-{trial}"),
        task_id: Some(task.into()),
        trial: Some(trial),
        first: Some(FirstCall { ok, recovered }),
        success: Some(success),
        selection: (ok as u64, 1),
        violation: (0, 1),
        tokens: vec![100],
        ..Attempt::default()
    }
}

/// Two tasks, three trials: base right on 3 of 6, candidate on 5 of 6;
/// pairs (t1,1) base wrong → cand right, (t2,2) base wrong → cand right,
/// (t2,3) base right → cand wrong... counted by hand below.
#[test]
fn paired_by_trial_with_mcnemar() {
    let base = vec![
        attempt("t1", 1, false, true, true),
        attempt("t1", 2, true, false, true),
        attempt("t1", 3, true, false, true),
        attempt("t2", 1, false, false, false),
        attempt("t2", 2, false, false, false),
        attempt("t2", 3, true, false, true),
    ];
    let cand = vec![
        attempt("t1", 1, true, false, true),
        attempt("t1", 2, true, false, true),
        attempt("t1", 3, true, false, true),
        attempt("t2", 1, true, false, true),
        attempt("t2", 2, true, false, true),
        attempt("t2", 3, false, false, false),
        // a task the base never ran: not paired
        attempt("t9", 1, false, false, false),
    ];
    let sb = summarize("A", &base);
    let sc = summarize("B", &cand);
    assert_eq!(sb.first_call_accuracy, Rate::new(3, 6));
    assert_eq!(sb.recovered_within_3, Rate::new(1, 6));
    assert_eq!(sb.unrecovered, Rate::new(2, 6));
    assert_eq!(sc.first_call_accuracy, Rate::new(5, 7));
    assert_eq!(sc.tasks, 3);
    let metrics = metrics_of(&[&sb, &sc]);
    let c = compare("B", &base, &cand, &metrics, 0.05);
    assert_eq!(
        c.pairing,
        Pairing {
            tasks: 2,
            by_trial: true,
            attempts: 6
        }
    );
    let first = &c.changes[0];
    assert_eq!(first.metric, Metric::FirstCall);
    assert_eq!(first.test, Test::Mcnemar);
    // discordant: 3 up (t1/1, t2/1, t2/2), 1 down (t2/3): 2·(1+4)/16
    assert_eq!((first.up, first.down, first.pairs), (3, 1, 6));
    assert_eq!(first.base, Some(0.5));
    assert_eq!(first.candidate, Some(5.0 / 6.0));
    assert!((first.p_value.unwrap() - 0.625).abs() < 1e-12);
    assert!(!first.significant);
    // one-sided worse: P(X ≥ 1 | n = 4) = 15/16
    assert!((first.p_worse().unwrap() - 15.0 / 16.0).abs() < 1e-12);
    // unrecovered: base 2 (t2/1, t2/2), candidate 1 (t2/3): up 1, down 2
    let unrec = c
        .changes
        .iter()
        .find(|x| x.metric == Metric::Unrecovered)
        .unwrap();
    assert_eq!((unrec.up, unrec.down), (1, 2));
    // pass^k for k = 1..3 exists
    assert!(c.changes.iter().any(|x| x.metric == Metric::PassK(3)));
    let g = gate(&c, &sc, 0.05, Some(99));
    assert!(!g.passed);
    assert_eq!(
        g.checks.iter().map(|x| x.passed).collect::<Vec<_>>(),
        vec![true, true, false]
    );
    assert_eq!(g.checks[2].detail, "p95 is 100 tokens per turn, above 99");
}

#[test]
fn without_trials_a_sign_test_over_tasks() {
    let mut base = vec![];
    let mut cand = vec![];
    // Five tasks, two runs each, no trial numbers. The base gets one of
    // two right on every task; the candidate two of two on four tasks
    // and none on the fifth.
    for (i, t) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        for r in 0..2 {
            let mut x = attempt(t, 0, r == 0, false, true);
            x.trial = None;
            base.push(x);
            let mut y = attempt(t, 0, i < 4, false, true);
            y.trial = None;
            cand.push(y);
        }
    }
    let c = compare("B", &base, &cand, &[Metric::FirstCall], 0.05);
    assert!(!c.pairing.by_trial);
    assert_eq!(c.pairing.tasks, 5);
    let x = &c.changes[0];
    assert_eq!(x.test, Test::SignTasks);
    assert_eq!((x.up, x.down, x.pairs), (4, 1, 5));
    // 2·(1+5)/32 = 0.375
    assert!((x.p_value.unwrap() - 0.375).abs() < 1e-12);
    assert_eq!(x.base, Some(0.5));
    assert_eq!(x.candidate, Some(0.8));
}

#[test]
fn a_repeated_trial_breaks_the_pairing() {
    let base = vec![
        attempt("t1", 1, true, false, true),
        attempt("t1", 1, false, false, true),
    ];
    let cand = vec![attempt("t1", 1, true, false, true)];
    let c = compare("B", &base, &cand, &[Metric::FirstCall], 0.05);
    assert!(!c.pairing.by_trial);
    assert_eq!(c.changes[0].test, Test::SignTasks);
}

#[test]
fn nothing_paired_fails_the_gate() {
    let base = vec![attempt("t1", 1, true, false, true)];
    let cand = vec![attempt("t2", 1, true, false, true)];
    let sc = summarize("B", &cand);
    let c = compare("B", &base, &cand, &metrics_of(&[&sc]), 0.05);
    assert_eq!(c.changes[0].p_value, None);
    let g = gate(&c, &sc, 0.05, None);
    assert!(!g.passed);
    assert_eq!(g.checks.len(), 2);
}

fn res(cat: &str, paired: u64, right: u64) -> CellResult {
    CellResult {
        catalogue: cat.into(),
        paired,
        right,
    }
}

#[test]
fn the_chapters_pattern() {
    // A 0, B 39, C 70, D 72 of 72: only D removes the error.
    let v = verdict(
        72,
        &[
            (CellChange::Descriptions, res("B", 72, 39)),
            (CellChange::Hidden, res("C", 72, 70)),
            (CellChange::Merged, res("D", 72, 72)),
        ],
    );
    assert_eq!(v.repair, Repair::Merge);
    assert_eq!(
        v.text,
        "Sharper descriptions leave errors (B 39 of 72). Hiding one leaves errors (C 70 of 72). \
         Only the merged tool removes the error (D 72 of 72): the model cannot use the \
         difference between the two tools reliably, so it does not belong in its decision. \
         Merge them and move the choice into an argument or behind the tool."
    );
    // B fixing it wins whatever else.
    let v = verdict(
        72,
        &[
            (CellChange::Descriptions, res("B", 72, 72)),
            (CellChange::Merged, res("D", 72, 72)),
        ],
    );
    assert_eq!(v.repair, Repair::Descriptions);
    // C but not B.
    let v = verdict(
        72,
        &[
            (CellChange::Descriptions, res("B", 72, 39)),
            (CellChange::Hidden, res("C", 72, 72)),
            (CellChange::Merged, res("D", 72, 72)),
        ],
    );
    assert_eq!(v.repair, Repair::Router);
    // Nothing fixes it; what was not tried is said.
    let v = verdict(72, &[(CellChange::Other, res("X", 72, 72))]);
    assert_eq!(v.repair, Repair::None);
    assert_eq!(
        v.text,
        "No candidate removes the error. No candidate only sharpened the descriptions, so \
         that repair is untested. No candidate only hid one of the pair, so that repair is \
         untested. No candidate only merged the pair, so that repair is untested."
    );
    // A candidate that ran none of the cell's attempts fixes nothing.
    assert!(!res("D", 0, 0).fixes());
}

#[test]
fn what_kind_of_change_a_candidate_is() {
    use crate::metrics::diff::{Renamed, ToolChange};
    let pair = vec!["sp".to_string(), "cf".to_string()];
    let empty = CatalogueDiff {
        old: "A".into(),
        new: "X".into(),
        added: vec![],
        removed: vec![],
        renamed: vec![],
        changed: vec![],
        unchanged: 10,
    };
    let menus = |v: &[&[&str]]| -> Vec<Vec<String>> {
        v.iter()
            .map(|m| m.iter().map(|s| s.to_string()).collect())
            .collect()
    };
    // B: only the pair's descriptions and hints.
    let mut b = empty.clone();
    b.changed = vec![
        ToolChange {
            name: "cf".into(),
            fields: vec![Field::Description, Field::Hints],
            description: None,
            use_when: None,
            avoid_when: None,
        },
        ToolChange {
            name: "sp".into(),
            fields: vec![Field::Description],
            description: None,
            use_when: None,
            avoid_when: None,
        },
    ];
    let both = menus(&[&["sp", "cf", "x"]]);
    assert_eq!(cell_change(&b, &pair, &both), CellChange::Descriptions);
    // ... but a schema change too is something else.
    let mut b2 = b.clone();
    b2.changed[1].fields.push(Field::Schema);
    assert_eq!(cell_change(&b2, &pair, &both), CellChange::Other);
    // C: the same tools, one of the pair missing from every menu.
    let hid = menus(&[&["sp", "x"], &["sp", "y"]]);
    assert_eq!(cell_change(&empty, &pair, &hid), CellChange::Hidden);
    // ... not when one attempt still saw both.
    let once = menus(&[&["sp", "x"], &["sp", "cf"]]);
    assert_eq!(cell_change(&empty, &pair, &once), CellChange::Other);
    assert_eq!(cell_change(&empty, &pair, &[]), CellChange::Other);
    // D: both gone into one new tool.
    let mut d = empty.clone();
    d.added = vec!["wiki".into()];
    d.removed = vec!["cf".into(), "sp".into()];
    d.renamed = vec![Renamed {
        into: "wiki".into(),
        from: vec!["cf".into(), "sp".into()],
        tasks: 50,
    }];
    assert_eq!(
        cell_change(&d, &pair, &menus(&[&["wiki"]])),
        CellChange::Merged
    );
    // ... not when only one went.
    let mut d2 = d.clone();
    d2.removed = vec!["sp".into()];
    d2.renamed[0].from = vec!["sp".into()];
    assert_eq!(
        cell_change(&d2, &pair, &menus(&[&["wiki", "cf"]])),
        CellChange::Other
    );
}
