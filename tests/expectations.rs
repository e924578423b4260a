//! Format 1.1 end to end: expected calls and outputs walked per run, derived
//! labels, `unlabelled`, typed error stages, the four findings and metrics
//! in every report, `explain`'s matching table and `rung check`.
//!
//! Fixture: tests/fixtures/expectations/airline.jsonl with airline.toml
//! (effects: get_* read_only, think none, cancel/book/send_certificate
//! mutating; "^Error: no seats left" → precondition). Task airline/26
//! expects get_reservation_details(NQNU5R) (read-only: not required),
//! cancel_reservation(NQNU5R, "change of plan") and
//! book_reservation(cabin economy|basic_economy, passengers 1), and the
//! answer to contain "1,628". Worked by hand:
//!
//! - a1 (success): 1 text · 2 get ✓#1 · 3 cancel with another reason ≠#2
//!   (SEMANTICS) · 4 cancel again ✓#2 · 5 book economy, passengers 1.0 and
//!   an extra key ✓#3 · 6 "$1,628" text. Not as expected (the mismatch).
//! - a2 (failure): 1 get ✓#1 · 2 cancel refused (AUTHORIZATION, not a call)
//!   · 3 book error "no seats left" (PRECONDITION, error:precondition) ·
//!   4 send_certificate, mutating and unexpected (SELECTION) · 5 think (no
//!   effect: not judged) · 6 text, last, cancel and book still missing
//!   (SELECTION). Missing calls #2 #3, missing output "1,628".
//! - a3 (success): 1 get with another id (a lookup: not judged) · 2 cancel
//!   ✓#2 · 3 book basic_economy ✓#3 · 4 "1628 dollars" text. As expected.
//! - a4 (no success recorded), task airline/27 expects "Basic Economy" only:
//!   its answer says "basic economy". As expected.
//! - v1, task lookup: no case. No expectations.

mod import_util;

use std::path::Path;

use import_util::*;
use serde_json::{Value, json};

fn fixture_path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/expectations")
        .join(name)
        .display()
        .to_string()
}

/// A database with the airline fixture imported with its configuration.
fn airline() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, db) = setup();
    let r = rung(
        &db,
        &[
            "-q",
            "--config",
            &fixture_path("airline.toml"),
            "import",
            &fixture_path("airline.jsonl"),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    (dir, db)
}

fn rate(n: u64, d: u64) -> Value {
    json!({"value": n as f64 / d as f64, "numerator": n, "denominator": d})
}

fn out(db: &Path, args: &[&str]) -> String {
    let r = rung(db, args);
    assert_eq!(r.code, 0, "rung {args:?}: {}", r.stderr);
    r.stdout
}

#[test]
fn the_ladder_counts_unlabelled_apart_from_passed() {
    let (_dir, db) = airline();
    // passed: a1 2, 4, 5; a2 1; a3 2, 3. unlabelled: a1 1, 6; a2 5; a3 1, 4;
    // a4 1; v1 1. Labelled: the 6 passed, a1/3, a2/4, a2/6.
    assert_eq!(
        report(&db, "ladder"),
        json!({"decisions": 18, "labelled": 9, "rungs": {
            "coverage": 0, "exposure": 0, "discovery": 0, "selection": 2,
            "representation": 0, "schema": 0, "semantics": 1, "authorization": 1,
            "precondition": 1, "unclassified": 0, "execution": 0, "progress": 0,
            "unlabelled": 7, "passed": 6}})
    );
    let table = out(&db, &["report", "ladder"]);
    assert!(
        table.contains("unlabelled              7  38.9%"),
        "{table}"
    );
    assert!(
        table.contains("passed                  6  33.3%"),
        "{table}"
    );

    // Classifying everything again, or importing the cases after the runs
    // they concern, gives the same verdicts.
    let reports = |db: &Path| -> Vec<Value> {
        ["ladder", "metrics", "runs", "findings"]
            .iter()
            .map(|k| report(db, k))
            .collect()
    };
    let before = reports(&db);
    let r = rung(&db, &["-q", "reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(reports(&db), before);
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture_path("airline.jsonl")).unwrap();
    let (cases, rest): (Vec<&str>, Vec<&str>) =
        text.lines().partition(|l| l.contains(r#""type":"case""#));
    let runs_file = dir.path().join("runs.jsonl");
    let cases_file = dir.path().join("cases.jsonl");
    std::fs::write(&runs_file, rest.join("\n")).unwrap();
    std::fs::write(&cases_file, cases.join("\n")).unwrap();
    let late = dir.path().join("late.db");
    let config = fixture_path("airline.toml");
    for f in [&runs_file, &cases_file] {
        let r = rung(
            &late,
            &["-q", "--config", &config, "import", f.to_str().unwrap()],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    assert_eq!(reports(&late), before);
}

#[test]
fn four_metrics_in_every_format_and_the_agreement_said() {
    let (_dir, db) = airline();
    let m = report(&db, "metrics");
    // Required expected calls: cancel and book in a1, a2, a3 (6); matched:
    // a1 2, a3 2. Judged calls: a1 2-5 (3 matched), a2 1, a3 2-3. Runs with
    // expectations a1-a4, as expected a3 a4. With a recorded success: a1
    // (disagrees: success, not as expected), a2 and a3 (agree).
    assert_eq!(m["expected_call_recall"], rate(4, 6));
    assert_eq!(m["argument_accuracy"], rate(6, 7));
    assert_eq!(m["runs_as_expected"], rate(2, 4));
    assert_eq!(m["agreement_with_success"], rate(2, 3));
    let csv = out(&db, &["report", "metrics", "--format", "csv"]);
    for line in [
        "expected_call_recall,0.6666666666666666,4,6\r\n",
        "argument_accuracy,0.8571428571428571,6,7\r\n",
        "runs_as_expected,0.5,2,4\r\n",
        "agreement_with_success,0.6666666666666666,2,3\r\n",
    ] {
        assert!(csv.contains(line), "{line} in {csv}");
    }
    let table = out(&db, &["report", "metrics"]);
    assert!(
        table.starts_with(
            "4 runs with expectations, 2 as expected; rung's verdict agrees with the recorded\nsuccess on 2 of 3 runs (66.7%).\n"
        ),
        "{table}"
    );
    assert!(
        table.contains("agreement_with_success              66.7%          2/3"),
        "{table}"
    );
    let md = out(&db, &["report", "metrics", "--format", "markdown"]);
    assert!(
        md.contains("| agreement_with_success | 66.7% | 2/3 |"),
        "{md}"
    );
    assert!(
        md.contains("rung's verdict agrees with the recorded success on 2 of 3 runs (66.7%)."),
        "{md}"
    );
    // Run-level filters apply: trial 1 is a2 alone.
    let a2 = json_of(rung(
        &db,
        &["report", "metrics", "--run", "a2", "--format", "json"],
    ));
    assert_eq!(a2["expected_call_recall"], rate(0, 2));
    assert_eq!(a2["agreement_with_success"], rate(1, 1));
}

#[test]
fn runs_report_as_expected_in_every_format() {
    let (_dir, db) = airline();
    let runs = report(&db, "runs");
    let got: Vec<(&str, &Value, &Value)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["run_id"].as_str().unwrap(),
                &r["as_expected"],
                &r["first_failed_rung"],
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a1", &json!(false), &json!("semantics")),
            ("a2", &json!(false), &json!("authorization")),
            ("a3", &json!(true), &Value::Null),
            ("a4", &json!(true), &Value::Null),
            ("v1", &Value::Null, &Value::Null),
        ]
    );
    assert_eq!(
        out(&db, &["report", "runs", "--format", "csv"]),
        "run_id,task_id,trial,model,catalogue,decisions,first_failed_rung,success,harm,as_expected\r\n\
         a1,airline/26,0,gpt-4o,,6,semantics,true,,false\r\n\
         a2,airline/26,1,gpt-4o,,6,authorization,false,,false\r\n\
         a3,airline/26,2,gpt-4o,,4,,true,,true\r\n\
         a4,airline/27,0,gpt-4o,,1,,,,true\r\n\
         v1,lookup,0,gpt-4o,,1,,true,,\r\n"
    );
    let table = out(&db, &["report", "runs"]);
    assert!(
        table.contains("2 of 4 runs with expectations went as expected."),
        "{table}"
    );
    assert!(table.contains("as expected"), "{table}");
    assert!(
        table.contains("a2   airline/26      1          6  authorization  no       -     no"),
        "{table}"
    );
    let md = out(&db, &["report", "runs", "--format", "markdown"]);
    assert!(md.contains("| as expected |"), "{md}");
}

#[test]
fn findings_report_has_the_four_kinds_masked() {
    let (_dir, db) = airline();
    let f = report(&db, "findings");
    let want = json!({"findings": [
        {"kind": "argument_mismatch", "catalogue": null, "task_id": "airline/26", "run_id": "a1",
         "step": 3, "tool": "cancel_reservation",
         "detail": "cancel_reservation was called with arguments that differ from expected call 2: reason: expected \"change of plan\", got \"card •••• was charged twice\""},
        {"kind": "missing_call", "catalogue": null, "task_id": "airline/26", "run_id": "a2",
         "step": null, "tool": "book_reservation",
         "detail": "expected call 3 (book_reservation) with cabin: one of [\"economy\", \"basic_economy\"], passengers: 1 was never made"},
        {"kind": "missing_call", "catalogue": null, "task_id": "airline/26", "run_id": "a2",
         "step": null, "tool": "cancel_reservation",
         "detail": "expected call 2 (cancel_reservation) with reason: \"change of plan\", reservation_id: \"NQNU5R\" was never made"},
        {"kind": "missing_output", "catalogue": null, "task_id": "airline/26", "run_id": "a2",
         "step": null, "tool": null,
         "detail": "no answer contains \"1,628\" (compared lowercased, without commas)"},
        {"kind": "unexpected_call", "catalogue": null, "task_id": "airline/26", "run_id": "a2",
         "step": 4, "tool": "send_certificate",
         "detail": "send_certificate (mutating) matches no expected call; still expected: book_reservation, cancel_reservation"},
        // The audit (docs/findings.md) beside them: a2's certificate goes to
        // a user id nothing in the run returned, and a3 cancels NQNU5R after
        // looking up another reservation (ZZZ999).
        {"kind": "unsourced_id", "catalogue": null, "task_id": "airline/26", "run_id": "a2",
         "step": 4, "tool": "send_certificate",
         "detail": "send_certificate (mutating) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: user_id = \"noa_ek_5521\" (never seen earlier in the run); executed (ok)"},
        {"kind": "unsourced_id", "catalogue": null, "task_id": "airline/26", "run_id": "a3",
         "step": 2, "tool": "cancel_reservation",
         "detail": "cancel_reservation (mutating) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: reservation_id = \"NQNU5R\" (never seen earlier in the run); executed (ok)"}
    ]});
    assert_eq!(f, want);
    // The card number never reaches the database.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let leaked: i64 = conn
        .query_row(
            "SELECT count(*) FROM findings WHERE detail LIKE '%4111111111111111%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(leaked, 0);
    // A run filter keeps the run's missing calls and output (no step).
    let a2 = json_of(rung(
        &db,
        &["report", "findings", "--run", "a2", "--format", "json"],
    ));
    let kinds: Vec<&str> = a2["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "missing_call",
            "missing_call",
            "missing_output",
            "unexpected_call",
            "unsourced_id"
        ]
    );
    let csv = out(&db, &["report", "findings", "--all", "--format", "csv"]);
    assert!(
        csv.contains("missing_output,,airline/26,a2,,,\"no answer contains \"\"1,628\"\" (compared lowercased, without commas)\"\r\n"),
        "{csv}"
    );
    let table = out(&db, &["report", "findings", "--all"]);
    assert!(table.starts_with("7 findings\n"), "{table}");
}

#[test]
fn explain_prints_the_matching_table_and_derived_labels() {
    let (_dir, db) = airline();
    let text = out(&db, &["explain", "a1"]);
    let tail = &text[text.find("expectations:").expect("a matching table")..];
    assert_eq!(
        tail,
        "expectations: the run did NOT go as expected\n\
         \n\
         expected calls: 3 (2 required)\n\
         \x20   #  tool                      step  status\n\
         \x20   1  get_reservation_details      2  matched ✓\n\
         \x20   2  cancel_reservation           3  MISMATCH  reason: expected \"change of plan\", got \"card •••• was charged twice\"\n\
         \x20   2  cancel_reservation           4  matched ✓\n\
         \x20   3  book_reservation             5  matched ✓\n\
         \n\
         expected outputs: 1 of 1 found in the answers\n"
    );
    assert!(
        text.contains(
            "label:     acceptable [cancel_reservation] (derived)\n\
             expected:  differs from expected call 2 (cancel_reservation): reason: expected \"change of plan\", got \"card •••• was charged twice\"\n"
        ),
        "{text}"
    );
    assert!(text.contains("label:     none (unlabelled)\n"), "{text}");

    // JSON: the run's matching table, each row once.
    let j = explain(&db, "a2");
    assert_eq!(
        j["expectations"],
        json!({
            "as_expected": false, "expected_calls": 3, "expected_outputs": 1,
            "missing_outputs": ["1,628"],
            "matching": [
                {"expected": 1, "tool": "get_reservation_details", "step": 1, "status": "matched",
                 "required": false, "effect": "read_only",
                 "arguments": "{\"reservation_id\":\"NQNU5R\"}", "keys": null},
                {"expected": 2, "tool": "cancel_reservation", "step": null, "status": "missing",
                 "required": true, "effect": "mutating",
                 "arguments": "{\"reason\":\"change of plan\",\"reservation_id\":\"NQNU5R\"}", "keys": null},
                {"expected": 3, "tool": "book_reservation", "step": null, "status": "missing",
                 "required": true, "effect": "mutating",
                 "arguments": "{\"cabin\":{\"@one_of\":[\"economy\",\"basic_economy\"]},\"passengers\":1}", "keys": null},
                {"expected": null, "tool": "send_certificate", "step": 4, "status": "unexpected",
                 "required": null, "effect": "mutating", "arguments": null, "keys": null}
            ]
        })
    );
    // The classifier stored the same table (for sqlite3 users and the
    // Run screen's timeline).
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: Vec<(Option<i64>, String, Option<i64>, String)> = conn
        .prepare(
            "SELECT expected, tool, step, status FROM matching WHERE run_id = 'a2' ORDER BY seq",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let got: Vec<(Option<i64>, String, Option<i64>, String)> = j["expectations"]["matching"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["expected"].as_i64(),
                r["tool"].as_str().unwrap().to_string(),
                r["step"].as_i64(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(stored, got);
    // One step: its label and its source, the arguments part, its rows.
    let s = json_of(rung(&db, &["explain", "a1", "3", "--format", "json"]));
    assert_eq!(s["rung"], "semantics");
    assert_eq!(s["arguments"], "mismatch");
    assert_eq!(
        s["label"],
        json!({"acceptable": ["cancel_reservation"], "forbidden": [], "source": "derived"})
    );
    assert_eq!(s["matching"][0]["status"], "mismatch");
    // The last decision that left required calls unmade is labelled with
    // them and fails at SELECTION.
    let last = json_of(rung(&db, &["explain", "a2", "6", "--format", "json"]));
    assert_eq!(
        (&last["rung"], &last["label"]),
        (
            &json!("selection"),
            &json!({"acceptable": ["book_reservation", "cancel_reservation"], "forbidden": [], "source": "derived"})
        )
    );
    // A run without expectations has none.
    assert_eq!(explain(&db, "v1")["expectations"], Value::Null);
    assert!(!out(&db, &["explain", "v1"]).contains("expectations:"));
}

#[test]
fn an_error_message_names_its_stage() {
    let (_dir, db) = airline();
    let e = json_of(rung(&db, &["explain", "a2", "3", "--format", "json"]));
    assert_eq!(
        (&e["rung"], &e["boundary"], &e["reason"]),
        (
            &json!("precondition"),
            &json!("precondition"),
            &json!("error:precondition")
        )
    );
    let text = out(&db, &["explain", "a2", "3"]);
    assert!(text.contains("rung:      PRECONDITION"), "{text}");
    // Without the configuration the same error fails at EXECUTION.
    let (_dir2, plain) = setup();
    import(&plain, &["-q", &fixture_path("airline.jsonl")]);
    let e = json_of(rung(&plain, &["explain", "a2", "3", "--format", "json"]));
    assert_eq!(
        (&e["rung"], &e["reason"]),
        (&json!("execution"), &Value::Null)
    );
}

#[test]
fn check_takes_the_four_metrics() {
    let (_dir, db) = airline();
    let ok = rung(
        &db,
        &[
            "check",
            "--min",
            "agreement_with_success=0.6",
            "--max",
            "runs_as_expected=0.5",
            "--min",
            "expected_call_recall=0.5",
            "--min",
            "argument_accuracy=0.85",
        ],
    );
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert_eq!(
        ok.stdout,
        "ok    agreement_with_success = 0.6667 (2/3) >= 0.6\n\
         ok    runs_as_expected = 0.5 (2/4) <= 0.5\n\
         ok    expected_call_recall = 0.6667 (4/6) >= 0.5\n\
         ok    argument_accuracy = 0.8571 (6/7) >= 0.85\n"
    );
    let fail = rung(&db, &["check", "--min", "agreement_with_success=0.95"]);
    assert_eq!(fail.code, 1);
    assert_eq!(
        fail.stdout,
        "FAIL  agreement_with_success = 0.6667 (2/3) >= 0.95\n"
    );
    // No run with expectations: an empty denominator fails unless allowed.
    let empty = rung(
        &db,
        &["check", "--run", "v1", "--min", "runs_as_expected=0.9"],
    );
    assert_eq!(empty.code, 1);
    assert_eq!(
        empty.stdout,
        "FAIL  runs_as_expected = n/a (0/0) >= 0.9  [empty denominator]\n"
    );
}

#[test]
fn reimport_is_a_no_op_and_a_new_case_reclassifies_its_runs() {
    let (_dir, db) = airline();
    let again = rung(&db, &["import", &fixture_path("airline.jsonl")]);
    assert!(
        again
            .stderr
            .contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases"),
        "{}",
        again.stderr
    );
    // A case for the task of v1 arriving later: its run is walked then.
    let dir = tempfile::tempdir().unwrap();
    let late = dir.path().join("late.jsonl");
    std::fs::write(
        &late,
        r#"{"type":"case","task_id":"lookup","expected_calls":[{"tool":"lookup_order","arguments":{"order_id":"o-2"}}]}"#,
    )
    .unwrap();
    import(&db, &["-q", late.to_str().unwrap()]);
    let runs = report(&db, "runs");
    let v1 = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == "v1")
        .unwrap();
    // lookup_order's effect is unknown: its expected call is required, and
    // the call with another order id mismatches it.
    assert_eq!(v1["as_expected"], false);
    assert_eq!(v1["first_failed_rung"], "semantics");
}

/// A version 1 file (no expected calls or outputs, no `text`): each
/// decision gets the rung format 1.0's rules give it, except that a
/// decision with no label that failed nowhere is `unlabelled`, not
/// `passed`; nothing is derived and no run has expectations.
#[test]
fn a_version_1_file_classifies_as_before_apart_from_unlabelled() {
    let (_dir, db) = setup();
    import(&db, &["-q", &fixture_path("version1.jsonl")]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let rows: Vec<(String, i64, String, Option<String>)> = conn
        .prepare("SELECT run_id, step, rung, label_source FROM ladder ORDER BY run_id, step")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let s = |x: &str| x.to_string();
    assert_eq!(
        rows,
        [
            // Inline label, selected it: passed.
            (s("u1"), 1, s("passed"), Some(s("inline"))),
            // No label, ok: passed in format 1.0, unlabelled now.
            (s("u1"), 2, s("unlabelled"), None),
            // An error outcome with no [error_stages]: EXECUTION.
            (s("u1"), 3, s("execution"), None),
            // No label, progress none: PROGRESS.
            (s("u1"), 4, s("progress"), None),
            // Refused with a reason the default table maps: AUTHORIZATION.
            (s("u1"), 5, s("authorization"), None),
            // The task's case labels the first decision: a wrong tool.
            (s("u2"), 1, s("selection"), Some(s("case"))),
            // Not the first decision: no label; passed in 1.0.
            (s("u2"), 2, s("unlabelled"), None),
        ]
    );
    let runs = report(&db, "runs");
    let got: Vec<(&Value, &Value)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (&r["first_failed_rung"], &r["as_expected"]))
        .collect();
    assert_eq!(
        got,
        [
            (&json!("execution"), &Value::Null),
            (&json!("selection"), &Value::Null)
        ]
    );
    let matching: i64 = conn
        .query_row("SELECT count(*) FROM matching", [], |r| r.get(0))
        .unwrap();
    assert_eq!(matching, 0);
    // No expectation finding; the audit's apply to a version 1 file too:
    // u1 refunds o-7 again after the first refund succeeded.
    assert_eq!(
        report(&db, "findings"),
        json!({"findings": [
            {"kind": "repeated_call", "catalogue": null, "task_id": "t1", "run_id": "u1",
             "step": 3, "tool": "refund_order",
             "detail": "refund_order was called again with the same arguments as step 2, which succeeded; nothing executed in between could have changed the answer"}
        ]})
    );
}

/// A database written by schema 1 (whose classifier counted decisions
/// without a label as passed) is upgraded at the next import and
/// everything in it classified again.
#[test]
fn a_schema_1_database_is_upgraded_and_classified_again() {
    let (_dir, db) = setup();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(include_str!("../src/store/schema_v1.sql"))
            .unwrap();
        conn.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO runs (run_id, decisions, first_failed_rung) VALUES ('old', 1, NULL);
             INSERT INTO decisions (id, run_id, step, selected, status, record_hash)
                VALUES (1, 'old', 1, 'lookup_order', 'ok', x'00');
             INSERT INTO ladder (decision_id, run_id, step, turn, rung, violated, is_first,
                abstain_expected, abstained, no_call_expected, controls, retrieved)
                VALUES (1, 'old', 1, 1, 'passed', 0, 1, 0, 0, 0, '[]', '[]');",
        )
        .unwrap();
    }
    // Reports refuse the old schema until something writes.
    let r = rung(&db, &["report", "ladder"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(&format!(
            "schema version 1; this rung needs {}",
            rung::store::SCHEMA_VERSION
        )),
        "{}",
        r.stderr
    );
    import(&db, &["-q", &fixture_path("version1.jsonl")]);
    let ladder = report(&db, "ladder");
    // version1.jsonl: 1 passed, 2 unlabelled; the old run: unlabelled now.
    assert_eq!(ladder["rungs"]["unlabelled"], 3);
    assert_eq!(ladder["rungs"]["passed"], 1);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mark: i64 = conn
        .query_row(
            "SELECT count(*) FROM meta WHERE key = 'reclassify'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(mark, 0, "the mark goes with the reclassification");
}

/// Importers of formats that carry no reference solution leave
/// expectations empty: no case with expected calls or outputs, no derived
/// label, no run with an as-expected verdict.
#[test]
fn other_formats_derive_nothing() {
    let (_dir, db) = setup();
    let names = [
        "anthropic-transcript.json",
        "gemini-request.json",
        "gemini-response.json",
        "inspect-log.json",
        "langfuse-mini.json",
        "messages-anthropic.json",
        "messages-calls.json",
        "messages-mini-swe.json",
        "openai-transcripts.jsonl",
        "otel-example.rung.jsonl",
        "otlp-frameworks.json",
        "otlp-no-content.json",
        "otlp-openllmetry-old.jsonl",
        "otlp-orphan-tool-span.json",
        "responses-bodies.jsonl",
        "responses-transcript.json",
        "swe-agent-text.traj",
    ];
    for n in names {
        let r = rung(&db, &["-q", "import", "--keep-going", &fixture(n)]);
        assert_eq!(r.code, 0, "{n}: {}", r.stderr);
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert!(count("SELECT count(*) FROM runs") >= names.len() as i64);
    assert_eq!(
        count(
            "SELECT count(*) FROM cases WHERE extra LIKE '%expected_calls%' OR extra LIKE '%expected_outputs%'"
        ),
        0
    );
    assert_eq!(
        count("SELECT count(*) FROM ladder WHERE label_source = 'derived'"),
        0
    );
    assert_eq!(
        count("SELECT count(*) FROM runs WHERE as_expected IS NOT NULL"),
        0
    );
    assert_eq!(count("SELECT count(*) FROM matching"), 0);
    let m = report(&db, "metrics");
    assert_eq!(
        m["runs_as_expected"],
        json!({"value": null, "numerator": 0, "denominator": 0})
    );
}
