//! `rung report KIND` end to end on a small hand-written fixture
//! (`tests/fixtures/reports/`): every kind in every format, the filters and
//! the weekly refusal report. JSON is compared field by field, CSV exactly,
//! tables and markdown by snapshot (`tests/snapshots/`).
//!
//! The fixture, computed by hand from `ladder.md`. Catalogue `shop-1`:
//! ask_user and no_applicable_tool (controls), find_order, get_order
//! (read_only), refund_order (mutating), cancel_order (destructive),
//! send_email (mutating, open world), export_csv (read_only); `shop-2`:
//! ask_user, no_applicable_tool, lookup_order, refund_order. Every run trusts
//! ask_user and no_applicable_tool. Menus are flat (every catalogue tool
//! visible) except r6/1 (policy: orders, up to mutating) and r6/2 (policy:
//! orders, up to destructive; retrieval k=1 over get_order 0.9,
//! cancel_order 0.8). Labels: cases (first decision of refund-late and
//! where-is-my-order: find_order; where-is-my-order step 2: ask_user;
//! policy-question: @no_call; cancel-order: cancel_order) and inline ones.
//!
//! | dec  | at (2026-06-) | phase    | selected           | outcome                   | label                | rung           |
//! | r1/1 | 10 09:00:00   | discover | get_order          | ok, progress none         | find_order           | selection      |
//! | r1/2 | 10 09:00:05   | discover | find_order         | ok                        | -                    | unlabelled     |
//! | r1/3 | 10 09:00:10   | modify   | refund_order       | refused not_current_period| refund_order         | semantics      |
//! | r1/4 | 10 09:00:15   | modify   | refund_order       | ok, progress none         | -                    | progress       |
//! | r2/1 | 11 10:00:00   | discover | find_order         | ok                        | find_order           | passed         |
//! | r2/2 | 11 10:00:05   | modify   | cancel_order       | refused outside_intent    | refund_order, forbid cancel_order | selection (violated) |
//! | r2/3 | 11 10:00:10   | modify   | send_email         | refused ESC[31megress_blocked ESC[0m | -     | unclassified   |
//! | r3/1 | 03 12:00:00   | discover | find_order         | refused insufficient_scope| find_order           | authorization  |
//! | r3/2 | 03 12:00:05   | discover | send_email         | refused outside_intent    | ask_user             | selection      |
//! | r4/1 | (no time)     | discover | find_order         | refused outside_intent    | find_order           | authorization  |
//! | r4/2 | (no time)     | answer   | null               | not_run                   | ask_user             | selection      |
//! | r5/1 | 12 08:00:00   | answer   | null               | not_run                   | @no_call             | passed         |
//! | r6/1 | 12 09:00:00   | modify   | refund_order       | refused outside_intent    | cancel_order (hidden by effect) | exposure |
//! | r6/2 | 12 09:00:05   | modify   | cancel_order       | refused awaiting_approval | cancel_order (rank 2 > k=1) | discovery |
//! | r6/3 | 12 09:00:10   | modify   | no_applicable_tool | ok                        | no_applicable_tool, ask_user | passed |
//! | r7/1 | 04 08:00:00   | discover | get_order          | ok, progress none         | find_order           | selection      |
//! | r7/2 | 04 08:00:05   | modify   | refund_order       | refused insufficient_scope| refund_order         | authorization  |
//!
//! Runs: r1 refund-late trial 0 m-small, success, no harm, suite=nightly;
//! r2 refund-late 1 m-small, failed, harm, nightly; r3 where-is-my-order 0
//! `m-large, "v2"`, success, weekly; r4 where-is-my-order 1 `m-large, "v2"`,
//! success, no times at all, weekly; r5 policy-question 0 m-small on shop-2,
//! success, nightly; r6 cancel-order 0 m-small, failed, no tags; r7
//! refund-late 2 m-small, failed, nightly. `RUNG_NOW` = 2026-06-15: the
//! default refusal window is [06-08, 06-15), the previous one [06-01, 06-08).

#[path = "../common/mod.rs"]
mod common;
#[path = "../report_util/mod.rs"]
mod report_util;

use report_util::{Db, assert_json_eq, root};
use serde_json::{Value, json};

const NOW: &str = "2026-06-15T00:00:00Z";

fn fixture() -> Db {
    Db::import(&[&root().join("tests/fixtures/reports")])
}

fn ladder(decisions: u64, labelled: u64, rungs: &[(&str, u64)]) -> Value {
    let mut all = json!({
        "coverage": 0, "exposure": 0, "discovery": 0, "selection": 0,
        "representation": 0, "schema": 0, "semantics": 0, "authorization": 0,
        "precondition": 0, "unclassified": 0, "execution": 0, "progress": 0, "unlabelled": 0,
        "passed": 0
    });
    for (r, n) in rungs {
        assert!(all.get(*r).is_some(), "{r} is not a rung");
        all[*r] = json!(n);
    }
    json!({"decisions": decisions, "labelled": labelled, "rungs": all})
}

fn rate(numerator: u64, denominator: u64) -> Value {
    let value = if denominator == 0 {
        Value::Null
    } else {
        json!(numerator as f64 / denominator as f64)
    };
    json!({"value": value, "numerator": numerator, "denominator": denominator})
}

// ---- ladder -------------------------------------------------------------

#[test]
fn ladder_every_format() {
    let db = fixture();
    // 17 decisions; labelled: all but r1/2, r1/4, r2/3 = 14. By rung (table
    // above): selection r1/1 r2/2 r3/2 r4/2 r7/1; authorization r3/1 r4/1
    // r7/2; passed r2/1 r5/1 r6/3; unlabelled (failed nowhere, no label)
    // r1/2; one each of exposure, discovery, semantics, unclassified and
    // progress.
    assert_json_eq(
        &db.json(NOW, &["report", "ladder"]),
        &ladder(
            17,
            14,
            &[
                ("exposure", 1),
                ("discovery", 1),
                ("selection", 5),
                ("semantics", 1),
                ("authorization", 3),
                ("unclassified", 1),
                ("progress", 1),
                ("unlabelled", 1),
                ("passed", 3),
            ],
        ),
    );
    // CSV: one row, the json keys as columns.
    assert_eq!(
        db.out(NOW, &["report", "ladder", "--format", "csv"]),
        "decisions,labelled,coverage,exposure,discovery,selection,representation,schema,\
         semantics,authorization,precondition,unclassified,execution,progress,unlabelled,\
         passed\r\n\
         17,14,0,1,1,5,0,0,1,3,0,1,0,1,1,3\r\n"
    );
    // Table and markdown: the failure profile adds decisions by boundary
    // alone: authorization 7 (r2/2 r3/1 r3/2 r4/1 r6/1 r6/2 r7/2),
    // semantics 1, unclassified 1.
    let table = db.out(NOW, &["report", "ladder"]);
    assert_eq!(
        table,
        db.out(NOW, &["report", "ladder", "--format", "table"])
    );
    insta::assert_snapshot!("ladder_table", table);
    insta::assert_snapshot!(
        "ladder_markdown",
        db.out(NOW, &["report", "ladder", "--format", "markdown"])
    );
}

// ---- metrics ------------------------------------------------------------

#[test]
fn metrics_every_format() {
    let db = fixture();
    let want = json!({
        // All 14 labels name a tool in the registry.
        "capability_coverage": rate(14, 14),
        // r6/1's cancel_order is hidden by the mutating ceiling.
        "exposure_recall": rate(13, 14),
        // Only r6/2 records retrieval: k=1, cancel_order ranks 2nd.
        "tool_recall_at_k": {"1": rate(0, 1)},
        // Labelled with the acceptable tool in front of the model: 14 minus
        // r6/1, r6/2; right: r1/3 r2/1 r3/1 r4/1 r5/1 r6/3 r7/2.
        "selection_accuracy": rate(7, 12),
        // r6/3 accepts the abstain name and abstained.
        "abstention_accuracy": rate(1, 1),
        // r5/1 accepts @no_call and made no call.
        "no_call_accuracy": rate(1, 1),
        // r2/2 selected the forbidden cancel_order.
        "violation_rate": rate(1, 14),
        // Labelled first decisions r1 r2 r3 r4 r5 r6 r7; wrong: r1, r6, r7.
        "first_call_accuracy": rate(4, 7),
        // r1/2 (turn 2) picks find_order, r6/2 (turn 2) cancel_order; r7
        // never picks find_order again.
        "recovery_within_3": rate(2, 3),
        // Tasks by id: cancel-order 0/1, policy-question 1/1, refund-late
        // 1/3 (r1 of r1 r2 r7), where-is-my-order 2/2.
        "pass_hat_k": {
            "1": {"value": (0.0 + 1.0 + 1.0 / 3.0 + 1.0) / 4.0, "tasks": 4},
            // refund-late C(1,2)/C(3,2) = 0, where-is-my-order 1.
            "2": {"value": 0.5, "tasks": 2},
            // refund-late only: C(1,3)/C(3,3) = 0.
            "3": {"value": 0.0, "tasks": 1}
        },
        // Canonical {description, input_schema, name} of each tool, in
        // characters / 4 rounded up: shop-1 ask_user 93 → 24,
        // no_applicable_tool 95 → 24, find_order 102 → 26, get_order 90 → 23,
        // refund_order 89 → 23, cancel_order 89 → 23, send_email 88 → 22,
        // export_csv 92 → 23 (188 for the flat menu, seen by 14 decisions);
        // shop-2: 24 + 24 + 23 (lookup_order 90) + 23 = 94 (r5/1); r6/1
        // sees the controls, find, get, refund: 120; r6/2 the controls and
        // get_order: 71. Sum 14 × 188 + 94 + 120 + 71 = 2917.
        "definition_tokens": {"mean": 2917.0 / 17.0, "p50": 188, "p95": 188, "decisions": 17},
        // First tools by (catalogue, task): shop-1 refund-late get_order
        // (r1), find_order (r2), get_order (r7): varies; shop-1
        // where-is-my-order find_order twice (r3, r4): the same; the other
        // two tasks have one run each.
        "inconsistent_tasks": rate(1, 2),
        // No run has expectations (format v1.1).
        "expected_call_recall": rate(0, 0),
        "argument_accuracy": rate(0, 0),
        "runs_as_expected": rate(0, 0),
        "agreement_with_success": rate(0, 0)
    });
    assert_json_eq(&db.json(NOW, &["report", "metrics"]), &want);
    assert_eq!(
        db.out(NOW, &["report", "metrics", "--format", "csv"]),
        "metric,value,numerator,denominator\r\n\
         capability_coverage,1,14,14\r\n\
         exposure_recall,0.9285714285714286,13,14\r\n\
         tool_recall_at_k.1,0,0,1\r\n\
         selection_accuracy,0.5833333333333334,7,12\r\n\
         abstention_accuracy,1,1,1\r\n\
         no_call_accuracy,1,1,1\r\n\
         violation_rate,0.07142857142857142,1,14\r\n\
         first_call_accuracy,0.5714285714285714,4,7\r\n\
         recovery_within_3,0.6666666666666666,2,3\r\n\
         inconsistent_tasks,0.5,1,2\r\n\
         expected_call_recall,,0,0\r\n\
         argument_accuracy,,0,0\r\n\
         runs_as_expected,,0,0\r\n\
         agreement_with_success,,0,0\r\n\
         pass_hat_k.1,0.5833333333333333,,4\r\n\
         pass_hat_k.2,0.5,,2\r\n\
         pass_hat_k.3,0,,1\r\n\
         definition_tokens.mean,171.58823529411765,,17\r\n\
         definition_tokens.p50,188,,17\r\n\
         definition_tokens.p95,188,,17\r\n"
    );
    insta::assert_snapshot!("metrics_table", db.out(NOW, &["report", "metrics"]));
    insta::assert_snapshot!(
        "metrics_markdown",
        db.out(NOW, &["report", "metrics", "--format", "markdown"])
    );
}

#[test]
fn metrics_with_run_filters_and_empty_denominators() {
    let db = fixture();
    // suite=nightly: runs r1 r2 r5 r7, 10 decisions, 7 labelled (r1/1 r1/3
    // r2/1 r2/2 r5/1 r7/1 r7/2); nothing expects the abstain name.
    let want = json!({
        "capability_coverage": rate(7, 7),
        "exposure_recall": rate(7, 7),
        "tool_recall_at_k": {},
        "selection_accuracy": rate(4, 7),
        "abstention_accuracy": rate(0, 0),
        "no_call_accuracy": rate(1, 1),
        "violation_rate": rate(1, 7),
        "first_call_accuracy": rate(2, 4),
        "recovery_within_3": rate(1, 2),
        // policy-question 1/1, refund-late 1/3.
        "pass_hat_k": {
            "1": {"value": (1.0 + 1.0 / 3.0) / 2.0, "tasks": 2},
            "2": {"value": 0.0, "tasks": 1},
            "3": {"value": 0.0, "tasks": 1}
        },
        // 9 flat shop-1 menus (188) and r5/1's shop-2 menu (94).
        "definition_tokens": {"mean": 1786.0 / 10.0, "p50": 188, "p95": 188, "decisions": 10},
        // refund-late (r1 r2 r7) starts two ways; policy-question has one run.
        "inconsistent_tasks": rate(1, 1),
        "expected_call_recall": rate(0, 0),
        "argument_accuracy": rate(0, 0),
        "runs_as_expected": rate(0, 0),
        "agreement_with_success": rate(0, 0)
    });
    assert_json_eq(
        &db.json(NOW, &["report", "metrics", "--tag", "suite=nightly"]),
        &want,
    );
    // pass^k counts runs, so --phase leaves it alone.
    let all = db.json(NOW, &["report", "metrics"]);
    let modify = db.json(NOW, &["report", "metrics", "--phase", "modify"]);
    assert_json_eq(&modify["pass_hat_k"], &all["pass_hat_k"]);
    // A filter that matches nothing (a window before every decision):
    // every rate n/a, tokens null.
    let nothing = [
        "--since",
        "2020-01-01T00:00:00Z",
        "--until",
        "2020-01-02T00:00:00Z",
    ];
    let none = db.json(NOW, &[&["report", "metrics"][..], &nothing].concat());
    assert_json_eq(&none["selection_accuracy"], &rate(0, 0));
    assert_json_eq(
        &none["definition_tokens"],
        &json!({"mean": null, "p50": null, "p95": null, "decisions": 0}),
    );
    assert_json_eq(&none["pass_hat_k"], &json!({}));
    insta::assert_snapshot!(
        "metrics_table_empty",
        db.out(NOW, &[&["report", "metrics"][..], &nothing].concat())
    );
}

// ---- refusals -----------------------------------------------------------

/// The default window's rows: refusals in [06-08, 06-15) are r1/3, r2/2,
/// r2/3, r6/1, r6/2; in [06-01, 06-08) r3/1, r3/2, r7/2; r4/1 has no time.
fn default_refusal_rows() -> Value {
    json!([
        {"reason": "outside_intent", "stage": "authorization", "count": 2, "runs": 2, "previous": 1},
        // Code point order puts ESC (0x1b) before letters.
        {"reason": "\u{1b}[31megress_blocked\u{1b}[0m", "stage": "unclassified", "count": 1, "runs": 1, "previous": 0},
        {"reason": "awaiting_approval", "stage": "authorization", "count": 1, "runs": 1, "previous": 0},
        {"reason": "not_current_period", "stage": "semantics", "count": 1, "runs": 1, "previous": 0},
        // Gone this week: still listed, with count 0.
        {"reason": "insufficient_scope", "stage": "authorization", "count": 0, "runs": 0, "previous": 2}
    ])
}

#[test]
fn refusals_every_format_default_week() {
    let db = fixture();
    assert_json_eq(
        &db.json(NOW, &["report", "refusals"]),
        &json!({
            "window": {"since": "2026-06-08T00:00:00Z", "until": "2026-06-15T00:00:00Z"},
            "rows": default_refusal_rows(),
            "undated": 1
        }),
    );
    assert_eq!(
        db.out(NOW, &["report", "refusals", "--format", "csv"]),
        "reason,stage,count,runs,previous,since,until\r\n\
         outside_intent,authorization,2,2,1,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n\
         \\x1b[31megress_blocked\\x1b[0m,unclassified,1,1,0,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n\
         awaiting_approval,authorization,1,1,0,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n\
         not_current_period,semantics,1,1,0,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n\
         insufficient_scope,authorization,0,0,2,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n"
    );
    let md = db.out(NOW, &["report", "refusals", "--format", "markdown"]);
    // The title carries the window; the next paragraph is the one-line
    // summary: 5 refusals this week in r1, r2 and r6; 3 the week before;
    // the biggest move is insufficient_scope, 2 → 0.
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "## Refusals by reason, 2026-06-08T00:00:00Z to 2026-06-15T00:00:00Z",
            "",
            "5 refusals in 3 runs (previous window: 3); biggest mover: insufficient_scope gone (2 → 0).",
        ]
    );
    insta::assert_snapshot!("refusals_markdown", md);
    let table = db.out(NOW, &["report", "refusals"]);
    assert!(
        !table.contains('\u{1b}'),
        "escape sequences reach the terminal"
    );
    insta::assert_snapshot!("refusals_table", table);
}

#[test]
fn refusals_windows() {
    let db = fixture();
    let window = |since: &str, until: &str| json!({"since": since, "until": until});
    // An explicit week: the previous one holds nothing.
    let week1 = json!({
        "window": window("2026-06-01T00:00:00Z", "2026-06-08T00:00:00Z"),
        "rows": [
            {"reason": "insufficient_scope", "stage": "authorization", "count": 2, "runs": 2, "previous": 0},
            {"reason": "outside_intent", "stage": "authorization", "count": 1, "runs": 1, "previous": 0}
        ],
        "undated": 1
    });
    let args = [
        "report",
        "refusals",
        "--since",
        "2026-06-01T00:00:00Z",
        "--until",
        "2026-06-08T00:00:00Z",
    ];
    assert_json_eq(&db.json(NOW, &args), &week1);
    // The same with offsets, relative times, or --until alone (7 days).
    for args in [
        &[
            "report",
            "refusals",
            "--since",
            "2026-06-01T02:00:00+02:00",
            "--until",
            "2026-06-07T20:00:00-04:00",
        ][..],
        &["report", "refusals", "--since", "14d", "--until", "7d"],
        &["report", "refusals", "--since", "336h", "--until", "1w"],
        &["report", "refusals", "--until", "2026-06-08T00:00:00Z"],
    ] {
        assert_json_eq(&db.json(NOW, args), &week1);
    }
    // --since alone runs to now: 11 days, [06-04, 06-15); previous
    // [05-24, 06-04) holds r3's two refusals; r7/2 (06-04) is now current.
    assert_json_eq(
        &db.json(
            NOW,
            &["report", "refusals", "--since", "2026-06-04T00:00:00Z"],
        ),
        &json!({
            "window": window("2026-06-04T00:00:00Z", "2026-06-15T00:00:00Z"),
            "rows": [
                {"reason": "outside_intent", "stage": "authorization", "count": 2, "runs": 2, "previous": 1},
                {"reason": "\u{1b}[31megress_blocked\u{1b}[0m", "stage": "unclassified", "count": 1, "runs": 1, "previous": 0},
                {"reason": "awaiting_approval", "stage": "authorization", "count": 1, "runs": 1, "previous": 0},
                {"reason": "insufficient_scope", "stage": "authorization", "count": 1, "runs": 1, "previous": 1},
                {"reason": "not_current_period", "stage": "semantics", "count": 1, "runs": 1, "previous": 0}
            ],
            "undated": 1
        }),
    );
    // A week later nothing is in either window; the undated refusal stays.
    let later = "2026-06-29T00:00:00Z";
    assert_json_eq(
        &db.json(later, &["report", "refusals"]),
        &json!({
            "window": window("2026-06-22T00:00:00Z", "2026-06-29T00:00:00Z"),
            "rows": [],
            "undated": 1
        }),
    );
    insta::assert_snapshot!(
        "refusals_table_empty",
        db.out(later, &["report", "refusals"])
    );
}

// ---- confusions ---------------------------------------------------------

#[test]
fn confusions_every_format() {
    let db = fixture();
    // SELECTION decisions: r1/1 and r7/1 ([find_order] → get_order), r4/2
    // ([ask_user] → no call), r3/2 ([ask_user] → send_email), r2/2
    // ([refund_order] → cancel_order). Ties by acceptable, then null first.
    assert_json_eq(
        &db.json(NOW, &["report", "confusions"]),
        &json!({
            "selection_failures": 5,
            "cells": [
                {"acceptable": ["find_order"], "selected": "get_order", "count": 2, "share": 0.4},
                {"acceptable": ["ask_user"], "selected": null, "count": 1, "share": 0.2},
                {"acceptable": ["ask_user"], "selected": "send_email", "count": 1, "share": 0.2},
                {"acceptable": ["refund_order"], "selected": "cancel_order", "count": 1, "share": 0.2}
            ]
        }),
    );
    assert_eq!(
        db.out(NOW, &["report", "confusions", "--format", "csv"]),
        "acceptable,selected,count,share\r\n\
         find_order,get_order,2,0.4\r\n\
         ask_user,,1,0.2\r\n\
         ask_user,send_email,1,0.2\r\n\
         refund_order,cancel_order,1,0.2\r\n"
    );
    // The top two cells: (2 + 1) / 5.
    let sentence = "The top two cells explain 3 of 5 selection failures (60.0%).";
    let table = db.out(NOW, &["report", "confusions"]);
    let md = db.out(NOW, &["report", "confusions", "--format", "markdown"]);
    assert!(table.contains(sentence), "{table}");
    assert!(md.contains(sentence), "{md}");
    insta::assert_snapshot!("confusions_table", table);
    insta::assert_snapshot!("confusions_markdown", md);
    // One task: two cells, one each.
    let c = db.json(
        NOW,
        &["report", "confusions", "--task", "where-is-my-order"],
    );
    assert_json_eq(
        &c,
        &json!({
            "selection_failures": 2,
            "cells": [
                {"acceptable": ["ask_user"], "selected": null, "count": 1, "share": 0.5},
                {"acceptable": ["ask_user"], "selected": "send_email", "count": 1, "share": 0.5}
            ]
        }),
    );
    // One cell, and none.
    let one = db.out(NOW, &["report", "confusions", "--run", "r2"]);
    assert!(
        one.contains("The top cell explains 1 of 1 selection failure (100.0%)."),
        "{one}"
    );
    let none = db.out(
        NOW,
        &[
            "report",
            "confusions",
            "--run",
            "r5",
            "--format",
            "markdown",
        ],
    );
    assert!(none.contains("No selection failures."), "{none}");
    assert_json_eq(
        &db.json(NOW, &["report", "confusions", "--run", "r5"]),
        &json!({"selection_failures": 0, "cells": []}),
    );
}

// ---- tools --------------------------------------------------------------

fn tool(
    catalogue: &str,
    name: &str,
    family: &str,
    effect: &str,
    counts: [u64; 4],
    by_reason: Value,
) -> Value {
    let [visible, selected, selected_wrongly, refused] = counts;
    json!({
        "name": name, "catalogue": catalogue, "family": family, "effect": effect,
        "visible": visible, "selected": selected, "selected_wrongly": selected_wrongly,
        "refused": refused, "refused_by_reason": by_reason, "never_selected": selected == 0
    })
}

#[test]
fn tools_every_format() {
    let db = fixture();
    // shop-1 is used by 16 decisions: 14 flat menus (all 8 tools), r6/1
    // (controls, find, get, refund) and r6/2 (controls, get_order).
    // Selected: get_order r1/1 r7/1 (both SELECTION); find_order r1/2 r2/1
    // r3/1 r4/1; refund_order r1/3 r1/4 r6/1 r7/2; cancel_order r2/2
    // (SELECTION) r6/2; send_email r2/3 r3/2 (SELECTION);
    // no_applicable_tool r6/3. shop-2: r5/1 saw its 4 tools, called none.
    let esc_reason = "\u{1b}[31megress_blocked\u{1b}[0m";
    let want = json!({"tools": [
        tool("shop-1", "ask_user", "control", "none", [16, 0, 0, 0], json!({})),
        tool("shop-1", "cancel_order", "orders", "destructive", [14, 2, 1, 2],
             json!({"outside_intent": 1, "awaiting_approval": 1})),
        tool("shop-1", "export_csv", "reports", "read_only", [14, 0, 0, 0], json!({})),
        tool("shop-1", "find_order", "orders", "read_only", [15, 4, 0, 2],
             json!({"insufficient_scope": 1, "outside_intent": 1})),
        tool("shop-1", "get_order", "orders", "read_only", [16, 2, 2, 0], json!({})),
        tool("shop-1", "no_applicable_tool", "control", "none", [16, 1, 0, 0], json!({})),
        tool("shop-1", "refund_order", "orders", "mutating", [15, 4, 0, 3],
             json!({"not_current_period": 1, "outside_intent": 1, "insufficient_scope": 1})),
        tool("shop-1", "send_email", "email", "mutating", [14, 2, 1, 2],
             json!({esc_reason: 1, "outside_intent": 1})),
        tool("shop-2", "ask_user", "control", "none", [1, 0, 0, 0], json!({})),
        tool("shop-2", "lookup_order", "orders", "read_only", [1, 0, 0, 0], json!({})),
        tool("shop-2", "no_applicable_tool", "control", "none", [1, 0, 0, 0], json!({})),
        tool("shop-2", "refund_order", "orders", "mutating", [1, 0, 0, 0], json!({})),
    ]});
    assert_json_eq(&db.json(NOW, &["report", "tools"]), &want);
    assert_eq!(
        db.out(NOW, &["report", "tools", "--format", "csv"]),
        "name,catalogue,family,effect,visible,selected,selected_wrongly,refused,refused_by_reason,never_selected\r\n\
         ask_user,shop-1,control,none,16,0,0,0,{},true\r\n\
         cancel_order,shop-1,orders,destructive,14,2,1,2,\"{\"\"awaiting_approval\"\":1,\"\"outside_intent\"\":1}\",false\r\n\
         export_csv,shop-1,reports,read_only,14,0,0,0,{},true\r\n\
         find_order,shop-1,orders,read_only,15,4,0,2,\"{\"\"insufficient_scope\"\":1,\"\"outside_intent\"\":1}\",false\r\n\
         get_order,shop-1,orders,read_only,16,2,2,0,{},false\r\n\
         no_applicable_tool,shop-1,control,none,16,1,0,0,{},false\r\n\
         refund_order,shop-1,orders,mutating,15,4,0,3,\"{\"\"insufficient_scope\"\":1,\"\"not_current_period\"\":1,\"\"outside_intent\"\":1}\",false\r\n\
         send_email,shop-1,email,mutating,14,2,1,2,\"{\"\"\\u001b[31megress_blocked\\u001b[0m\"\":1,\"\"outside_intent\"\":1}\",false\r\n\
         ask_user,shop-2,control,none,1,0,0,0,{},true\r\n\
         lookup_order,shop-2,orders,read_only,1,0,0,0,{},true\r\n\
         no_applicable_tool,shop-2,control,none,1,0,0,0,{},true\r\n\
         refund_order,shop-2,orders,mutating,1,0,0,0,{},true\r\n"
    );
    let table = db.out(NOW, &["report", "tools"]);
    // The pruning queue, per catalogue: never selected, but for the
    // trusted controls (ask_user and no_applicable_tool on both).
    assert!(
        table.contains("Pruning queue (never selected, trusted controls aside): export_csv\n"),
        "{table}"
    );
    insta::assert_snapshot!("tools_table", table);
    let md = db.out(NOW, &["report", "tools", "--format", "markdown"]);
    assert!(md.contains("- shop-1: export_csv\n"), "{md}");
    assert!(
        md.contains("- shop-2: lookup_order, refund_order\n"),
        "{md}"
    );
    insta::assert_snapshot!("tools_markdown", md);
}

// ---- runs ---------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn run(
    id: &str,
    task: &str,
    trial: u64,
    model: &str,
    catalogue: &str,
    decisions: u64,
    first_failed: Option<&str>,
    success: bool,
    harm: Option<bool>,
) -> Value {
    json!({
        "run_id": id, "task_id": task, "trial": trial, "model": model, "catalogue": catalogue,
        "decisions": decisions, "first_failed_rung": first_failed, "success": success, "harm": harm,
        // No case of the fixture sets expectations (format v1.1).
        "as_expected": null
    })
}

const LARGE: &str = "m-large, \"v2\"";

#[test]
fn runs_every_format() {
    let db = fixture();
    // first_failed_rung: the rung of the lowest step that did not pass.
    let want = json!({"runs": [
        run("r1", "refund-late", 0, "m-small", "shop-1", 4, Some("selection"), true, Some(false)),
        run("r2", "refund-late", 1, "m-small", "shop-1", 3, Some("selection"), false, Some(true)),
        run("r3", "where-is-my-order", 0, LARGE, "shop-1", 2, Some("authorization"), true, Some(false)),
        run("r4", "where-is-my-order", 1, LARGE, "shop-1", 2, Some("authorization"), true, None),
        run("r5", "policy-question", 0, "m-small", "shop-2", 1, None, true, None),
        run("r6", "cancel-order", 0, "m-small", "shop-1", 3, Some("exposure"), false, Some(false)),
        run("r7", "refund-late", 2, "m-small", "shop-1", 2, Some("selection"), false, Some(false)),
    ]});
    assert_json_eq(&db.json(NOW, &["report", "runs"]), &want);
    // RFC 4180: the model's comma and quotes; null is an empty field.
    assert_eq!(
        db.out(NOW, &["report", "runs", "--format", "csv"]),
        "run_id,task_id,trial,model,catalogue,decisions,first_failed_rung,success,harm,as_expected\r\n\
         r1,refund-late,0,m-small,shop-1,4,selection,true,false,\r\n\
         r2,refund-late,1,m-small,shop-1,3,selection,false,true,\r\n\
         r3,where-is-my-order,0,\"m-large, \"\"v2\"\"\",shop-1,2,authorization,true,false,\r\n\
         r4,where-is-my-order,1,\"m-large, \"\"v2\"\"\",shop-1,2,authorization,true,,\r\n\
         r5,policy-question,0,m-small,shop-2,1,,true,,\r\n\
         r6,cancel-order,0,m-small,shop-1,3,exposure,false,false,\r\n\
         r7,refund-late,2,m-small,shop-1,2,selection,false,false,\r\n"
    );
    insta::assert_snapshot!("runs_table", db.out(NOW, &["report", "runs"]));
    insta::assert_snapshot!(
        "runs_markdown",
        db.out(NOW, &["report", "runs", "--format", "markdown"])
    );
    insta::assert_snapshot!(
        "runs_table_one_catalogue",
        db.out(
            NOW,
            &[
                "report",
                "runs",
                "--catalogue",
                "shop-1",
                "--model",
                "m-small"
            ]
        )
    );
}

// ---- findings -----------------------------------------------------------

#[test]
fn findings_every_format() {
    let db = fixture();
    // r6/2 proposed cancel_order, which retrieval (k=1) had hidden; r2/3's
    // reason maps to no stage.
    let hidden = json!({
        "kind": "hidden_proposal", "catalogue": "shop-1", "task_id": "cancel-order",
        "run_id": "r6", "step": 2, "tool": "cancel_order",
        "detail": "selected cancel_order, which was not in the visible menu; refused (authorization)"
    });
    let unclassified = json!({
        "kind": "unclassified_reason", "catalogue": "shop-1", "task_id": "refund-late",
        "run_id": "r2", "step": 3, "tool": "send_email",
        "detail": "refused with reason \u{1b}[31megress_blocked\u{1b}[0m, which no stage maps; add it to [reasons] in the config"
    });
    // r6's menu (retrieval with k=1) changes from step to step.
    let menu = json!({
        "kind": "menu_changed", "catalogue": "shop-1", "task_id": "cancel-order",
        "run_id": "r6", "step": 2, "tool": null,
        "detail": "the visible menu changed 2 times within the run; first here, after step 1: removed find_order, refund_order"
    });
    // json lists every finding, with or without --all.
    let all = json!({"findings": [hidden, menu, unclassified]});
    assert_json_eq(&db.json(NOW, &["report", "findings"]), &all);
    assert_json_eq(&db.json(NOW, &["report", "findings", "--all"]), &all);
    assert_eq!(
        db.out(NOW, &["report", "findings", "--all", "--format", "csv"]),
        "kind,catalogue,task_id,run_id,step,tool,detail\r\n\
         hidden_proposal,shop-1,cancel-order,r6,2,cancel_order,\"selected cancel_order, which was not in the visible menu; refused (authorization)\"\r\n\
         menu_changed,shop-1,cancel-order,r6,2,,\"the visible menu changed 2 times within the run; first here, after step 1: removed find_order, refund_order\"\r\n\
         unclassified_reason,shop-1,refund-late,r2,3,send_email,\"refused with reason \\x1b[31megress_blocked\\x1b[0m, which no stage maps; add it to [reasons] in the config\"\r\n"
    );
    // Without --all: the summary by kind and tool (json with --summary).
    assert_eq!(
        db.out(NOW, &["report", "findings", "--format", "csv"]),
        "kind,tool,findings,runs\r\n\
         hidden_proposal,cancel_order,1,1\r\n\
         menu_changed,,1,1\r\n\
         unclassified_reason,send_email,1,1\r\n"
    );
    assert_json_eq(
        &db.json(NOW, &["report", "findings", "--summary"]),
        &json!({"total": 3, "summary": [
            {"kind": "hidden_proposal", "tool": "cancel_order", "findings": 1, "runs": 1},
            {"kind": "menu_changed", "tool": null, "findings": 1, "runs": 1},
            {"kind": "unclassified_reason", "tool": "send_email", "findings": 1, "runs": 1},
        ]}),
    );
    assert_eq!(
        db.out(NOW, &["report", "findings"]),
        "3 findings of 3 kinds.\n\n\
         kind                 tool          findings  runs\n\
         ───────────────────  ────────────  ────────  ────\n\
         hidden_proposal      cancel_order         1     1\n\
         menu_changed         -                    1     1\n\
         unclassified_reason  send_email           1     1\n\
         \n`rung report findings --all` lists each finding with its detail.\n"
    );
    let table = db.out(NOW, &["report", "findings", "--all"]);
    assert!(
        !table.contains('\u{1b}'),
        "escape sequences reach the terminal"
    );
    insta::assert_snapshot!("findings_table", table);
    insta::assert_snapshot!(
        "findings_markdown",
        db.out(
            NOW,
            &["report", "findings", "--all", "--format", "markdown"]
        )
    );
    // --all and --summary are for findings, and not together.
    let r = db.run(NOW, &["report", "ladder", "--all"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("--all and --summary apply to `rung report findings` only"),
        "{}",
        r.stderr
    );
    let r = db.run(NOW, &["report", "findings", "--all", "--summary"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    // Filters pick the findings of the matching decisions.
    assert_json_eq(
        &db.json(NOW, &["report", "findings", "--run", "r2"]),
        &json!({"findings": [unclassified]}),
    );
    assert_json_eq(
        &db.json(NOW, &["report", "findings", "--run", "r2", "--summary"]),
        &json!({"total": 1, "summary": [
            {"kind": "unclassified_reason", "tool": "send_email", "findings": 1, "runs": 1},
        ]}),
    );
    assert_json_eq(
        &db.json(NOW, &["report", "findings", "--phase", "discover"]),
        &json!({"findings": []}),
    );
    assert_json_eq(
        &db.json(NOW, &["report", "findings", "--catalogue", "shop-2"]),
        &json!({"findings": []}),
    );
    insta::assert_snapshot!(
        "findings_table_empty",
        db.out(NOW, &["report", "findings", "--catalogue", "shop-2"])
    );
}

// ---- filters --------------------------------------------------------------

// ---- edges of the refusal report ----------------------------------------------

mod checks;
