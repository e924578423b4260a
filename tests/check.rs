//! `rung check`, the CI gate, on the report fixture (`tests/fixtures/reports/`,
//! its numbers worked out in `tests/reports/`): exit 0 when every bound
//! holds, 1 when one fails, 2 on a usage error; one line per bound with the
//! measured value and what it was measured over.
//!
//! The fixture's metrics: selection_accuracy 7/12, violation_rate 1/14,
//! first_call_accuracy 4/7, capability_coverage 14/14, abstention 1/1,
//! tool_recall_at_k.1 0/1, pass_hat_k 1: 0.5833 (4 tasks), 2: 0.5 (2 tasks),
//! 3: 0 (1 task); definition_tokens mean 2917/17, p50 = p95 = 188 over 17
//! decisions.

mod common;
mod report_util;

use report_util::{Db, root};

const NOW: &str = "2026-06-15T00:00:00Z";

fn fixture() -> Db {
    Db::import(&[&root().join("tests/fixtures/reports")])
}

/// `rung check ARGS...`: (exit code, stdout).
fn check(db: &Db, args: &[&str]) -> (i32, String) {
    let mut a = vec!["check"];
    a.extend(args);
    let r = db.run(NOW, &a);
    assert!(r.code == 2 || r.stderr.is_empty(), "{args:?}: {}", r.stderr);
    (r.code, r.stdout)
}

#[test]
fn exit_0_when_every_bound_holds() {
    let db = fixture();
    assert_eq!(
        check(
            &db,
            &[
                "--min",
                "selection_accuracy=0.5",
                "--max",
                "violation_rate=0.1"
            ]
        ),
        (
            0,
            "ok    selection_accuracy = 0.5833 (7/12) >= 0.5\n\
             ok    violation_rate = 0.0714 (1/14) <= 0.1\n"
                .to_string()
        )
    );
}

#[test]
fn exit_1_when_one_bound_fails() {
    let db = fixture();
    assert_eq!(
        check(
            &db,
            &[
                "--min",
                "selection_accuracy=0.6",
                "--max",
                "violation_rate=0.1"
            ]
        ),
        (
            1,
            "FAIL  selection_accuracy = 0.5833 (7/12) >= 0.6\n\
             ok    violation_rate = 0.0714 (1/14) <= 0.1\n"
                .to_string()
        )
    );
    // Lines follow the command line, --max before --min here.
    assert_eq!(
        check(
            &db,
            &[
                "--max",
                "violation_rate=0.1",
                "--min",
                "selection_accuracy=0.6"
            ]
        ),
        (
            1,
            "ok    violation_rate = 0.0714 (1/14) <= 0.1\n\
             FAIL  selection_accuracy = 0.5833 (7/12) >= 0.6\n"
                .to_string()
        )
    );
    // A violation rate of 0 is the usual gate: 1 of 14 breaks it.
    assert_eq!(
        check(&db, &["--max", "violation_rate=0"]),
        (1, "FAIL  violation_rate = 0.0714 (1/14) <= 0\n".to_string())
    );
}

#[test]
fn bounds_are_inclusive() {
    let db = fixture();
    // Exactly the measured values: 1, 4/7 and pass^2 = 0.5, from both sides.
    // Bounds are shown as given; a value is rounded to 4 places unless that
    // would make the line look wrong (0.5714 < 0.5714285714285714).
    assert_eq!(
        check(
            &db,
            &[
                "--min",
                "capability_coverage=1",
                "--min",
                "first_call_accuracy=0.5714285714285714",
                "--max",
                "first_call_accuracy=0.5714285714285714",
                "--min",
                "pass_hat_k.2=0.5",
                "--max",
                "pass_hat_k.2=0.5",
            ]
        ),
        (
            0,
            "ok    capability_coverage = 1 (14/14) >= 1\n\
             ok    first_call_accuracy = 0.5714285714285714 (4/7) >= 0.5714285714285714\n\
             ok    first_call_accuracy = 0.5714 (4/7) <= 0.5714285714285714\n\
             ok    pass_hat_k.2 = 0.5 (2 tasks) >= 0.5\n\
             ok    pass_hat_k.2 = 0.5 (2 tasks) <= 0.5\n"
                .to_string()
        )
    );
    // Just past a bound: rounded, 0.0714 would look as if it held, so the
    // value is shown whole.
    assert_eq!(
        check(&db, &["--max", "violation_rate=0.0714"]),
        (
            1,
            "FAIL  violation_rate = 0.07142857142857142 (1/14) <= 0.0714\n".to_string()
        )
    );
}

#[test]
fn an_empty_denominator_fails_unless_allowed() {
    let db = fixture();
    // Run r1 has no decision whose label names the abstain control.
    assert_eq!(
        check(&db, &["--run", "r1", "--min", "abstention_accuracy=0.9"]),
        (
            1,
            "FAIL  abstention_accuracy = n/a (0/0) >= 0.9  [empty denominator]\n".to_string()
        )
    );
    assert_eq!(
        check(
            &db,
            &[
                "--run",
                "r1",
                "--min",
                "abstention_accuracy=0.9",
                "--allow-empty"
            ]
        ),
        (
            0,
            "ok    abstention_accuracy = n/a (0/0) >= 0.9  [empty, allowed]\n".to_string()
        )
    );
    // Nested keys with nothing behind them: no task has 4 trials, no
    // decision recorded k=8.
    let args = ["--min", "pass_hat_k.4=0", "--min", "tool_recall_at_k.8=0.5"];
    assert_eq!(
        check(&db, &args),
        (
            1,
            "FAIL  pass_hat_k.4 = n/a (no task has 4 trials) >= 0  [empty denominator]\n\
             FAIL  tool_recall_at_k.8 = n/a (no decision recorded k=8) >= 0.5  [empty denominator]\n"
                .to_string()
        )
    );
    let mut allowed = args.to_vec();
    allowed.push("--allow-empty");
    assert_eq!(check(&db, &allowed).0, 0);
    // A window with nothing in it: every rate is empty.
    assert_eq!(
        check(
            &db,
            &[
                "--since",
                "2020-01-01T00:00:00Z",
                "--until",
                "2020-01-02T00:00:00Z",
                "--min",
                "selection_accuracy=0"
            ]
        ),
        (
            1,
            "FAIL  selection_accuracy = n/a (0/0) >= 0  [empty denominator]\n".to_string()
        )
    );
    // A filter value nothing has is a usage error, not an empty gate.
    assert_eq!(
        check(&db, &["--task", "nope", "--min", "selection_accuracy=0"]),
        (2, String::new())
    );
}

#[test]
fn nested_metrics_are_dotted() {
    let db = fixture();
    assert_eq!(
        check(
            &db,
            &[
                "--min",
                "tool_recall_at_k.1=0",
                "--min",
                "pass_hat_k.3=0",
                "--min",
                "definition_tokens.decisions=17",
                "--max",
                "definition_tokens.p95=188",
                "--max",
                "definition_tokens.mean=172",
                "--max",
                "definition_tokens.p50=187",
            ]
        ),
        (
            1,
            "ok    tool_recall_at_k.1 = 0 (0/1) >= 0\n\
             ok    pass_hat_k.3 = 0 (1 task) >= 0\n\
             ok    definition_tokens.decisions = 17 (17 decisions) >= 17\n\
             ok    definition_tokens.p95 = 188 (17 decisions) <= 188\n\
             ok    definition_tokens.mean = 171.5882 (17 decisions) <= 172\n\
             FAIL  definition_tokens.p50 = 188 (17 decisions) <= 187\n"
                .to_string()
        )
    );
}

#[test]
fn report_filters_apply() {
    let db = fixture();
    // suite=nightly: pass^1 over policy-question 1/1 and refund-late 1/3.
    assert_eq!(
        check(
            &db,
            &[
                "--tag",
                "suite=nightly",
                "--min",
                "pass_hat_k.1=0.6666666666666666"
            ]
        ),
        (
            0,
            "ok    pass_hat_k.1 = 0.6667 (2 tasks) >= 0.6666666666666666\n".to_string()
        )
    );
    // The last 7 days: r1, r2, r5, r6; right picks among visible
    // acceptable tools r1/3, r2/1, r5/1, r6/3 of r1/1, r1/3, r2/1, r2/2,
    // r5/1, r6/3.
    assert_eq!(
        check(&db, &["--since", "7d", "--min", "selection_accuracy=0.6"]),
        (
            0,
            "ok    selection_accuracy = 0.6667 (4/6) >= 0.6\n".to_string()
        )
    );
    assert_eq!(
        check(
            &db,
            &[
                "--model",
                "m-small",
                "--phase",
                "discover",
                "--min",
                "first_call_accuracy=0.5"
            ]
        ),
        (
            1,
            "FAIL  first_call_accuracy = 0.3333 (1/3) >= 0.5\n".to_string()
        )
    );
}

#[test]
fn usage_errors_exit_2() {
    let db = fixture();
    for args in [
        &["--min", "selection_acc=0.9"][..],
        &["--min", "tool_recall_at_k=1"],
        &["--min", "pass_hat_k.x=1"],
        &["--min", "pass_hat_k.0=1"],
        &["--max", "definition_tokens.p99=1"],
        &["--min", "definition_tokens=1"],
        &["--min", "capability_coverage.8=1"],
        &["--min", "selection_accuracy=high"],
        &["--min", "selection_accuracy=NaN"],
        &["--min", "selection_accuracy=inf"],
        &["--min", "selection_accuracy"],
        &[],
        // A name that is not a metric wins over a failing bound.
        &["--max", "violation_rate=0", "--min", "nope=1"],
        &[
            "--since",
            "2026-06-10T00:00:00Z",
            "--until",
            "2026-06-09T00:00:00Z",
            "--min",
            "selection_accuracy=0",
        ],
    ] {
        let (code, out) = check(&db, args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert_eq!(out, "", "{args:?}");
    }
    let r = db.run(NOW, &["check", "--min", "selection_acc=0.9"]);
    assert!(
        r.stderr.contains("\"selection_acc\" is not a metric"),
        "{}",
        r.stderr
    );
    let r = db.run(NOW, &["check", "--min", "pass_hat_k.0=1"]);
    assert!(r.stderr.contains("pass_hat_k.0"), "{}", r.stderr);
}
