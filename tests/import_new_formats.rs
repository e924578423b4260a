//! The OpenAI Responses, Gemini, Inspect AI, message-list and SWE-agent
//! text-protocol importers on small fixtures written for these tests:
//! parallel calls, error results, text answers, calls nothing answered,
//! and malformed items reported at their line.

mod import_util;

use import_util::*;
use serde_json::json;

type Row = (
    i64,
    Option<i64>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn rows(d: &[Stored]) -> Vec<Row> {
    d.iter()
        .map(|d| {
            (
                d.step,
                d.turn,
                d.selected.clone(),
                d.call_id.clone(),
                d.status.clone(),
            )
        })
        .collect()
}

fn row(
    step: i64,
    turn: i64,
    selected: Option<&str>,
    call: Option<&str>,
    status: Option<&str>,
) -> Row {
    (
        step,
        Some(turn),
        selected.map(String::from),
        call.map(String::from),
        status.map(String::from),
    )
}

/// Imports one fixture, auto-detected; the only run's id and decisions.
fn one_run(name: &str) -> (tempfile::TempDir, std::path::PathBuf, String, Vec<Stored>) {
    let (dir, db) = setup();
    import(&db, &[&fixture(name)]);
    let ids = run_ids(&db);
    assert_eq!(ids.len(), 1, "{ids:?}");
    let d = stored(&db, &ids[0]);
    (dir, db, ids[0].clone(), d)
}

const KEEP_GOING: &str = " (--keep-going imports the rest and lists each part it dropped)";

#[test]
fn responses_transcript_list() {
    let (_dir, db, run, d) = one_run("responses-transcript.json");
    assert!(run.starts_with("openai-responses-"), "{run}");
    assert_eq!(
        rows(&d),
        vec![
            // Parallel calls; their outputs came back in reverse order.
            row(1, 1, Some("lookup_order"), Some("call_a"), Some("ok")),
            row(2, 1, Some("refund_order"), Some("call_b"), Some("ok")),
            // A text answer.
            row(3, 2, None, None, None),
            // A call nothing answered, and a hosted tool that failed.
            row(4, 3, Some("cancel_order"), Some("call_c"), None),
            row(5, 3, Some("web_search"), Some("ws_01"), Some("error")),
        ]
    );
    assert_eq!(d[0].result, Some(json!({"status": "shipped"})));
    assert_eq!(d[1].result, Some(json!({"refunded": true})));
    assert_eq!(d[0].arguments, Some(json!({"order_id": "A-1"})));
    assert_eq!(
        d[0].extra.as_ref().unwrap()["message"]["reasoning"][0]["id"],
        "rs_01"
    );
    assert_eq!(
        d[2].extra,
        Some(json!({"text": "A-1 has shipped, and B-2 is refunded."}))
    );
    assert_eq!(
        d[4].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "web_search_call failed"}))
    );
    assert_eq!(
        d[4].arguments,
        Some(json!({"type": "search", "query": "order cancellation policy"}))
    );
    // No menu in a bare list.
    assert!(d.iter().all(|d| d.visible.is_none()));
    assert!(
        d[3].source.ends_with("responses-transcript.json:11"),
        "{}",
        d[3].source
    );
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["decisions"], 5);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let goal: String = conn
        .query_row("SELECT goal FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(goal, "Where is order A-1? And please refund B-2.");
}

#[test]
fn responses_request_and_response_bodies() {
    let (_dir, db) = setup();
    let s = import(&db, &[&fixture("responses-bodies.jsonl")]);
    assert!(s.contains("2 runs, 2 decisions"), "{s}");
    let ids = run_ids(&db);
    assert_eq!(ids.len(), 2);
    // The request: a call and its output inside `input`, with the menu.
    let req = ids
        .iter()
        .find(|i| i.starts_with("openai-responses-"))
        .unwrap();
    let d = stored(&db, req);
    assert_eq!(
        rows(&d),
        vec![row(1, 1, Some("lookup_order"), Some("call_7"), Some("ok"))]
    );
    assert_eq!(d[0].result, Some(json!("in transit")));
    assert_eq!(
        d[0].visible,
        Some(json!(["lookup_order", "web_search_preview"]))
    );
    let extra = run_extra(&db, req);
    assert_eq!(extra["request"]["instructions"], "You help with orders.");
    assert_eq!(extra["tool_definitions"].as_array().unwrap().len(), 2);
    // The response: its id is the run id, its text answer one decision.
    let d = stored(&db, "resp_007");
    assert_eq!(rows(&d), vec![row(1, 1, None, None, None)]);
    assert_eq!(d[0].extra.as_ref().unwrap()["text"], "A-7 is in transit.");
    assert!(d[0].source.ends_with("responses-bodies.jsonl:2"));
    let extra = run_extra(&db, "resp_007");
    assert_eq!(extra["response"]["usage"]["output_tokens"], 9);
    let runs = report(&db, "runs");
    let models: Vec<&str> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["model"].as_str().unwrap())
        .collect();
    assert!(models.contains(&"gpt-4.1-mini-2025-04-14"), "{models:?}");
}

#[test]
fn responses_malformed_items_name_their_line() {
    let (_dir, db) = setup();
    let f = fixture("responses-malformed.json");
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    let first = r.stderr.trim_end();
    assert!(
        first.starts_with(&format!("{f}:5: run openai-responses-")),
        "{first}"
    );
    assert!(
        first.ends_with(&format!(
            ": dropped input[1]: a number is not an item{KEEP_GOING}"
        )),
        "{first}"
    );
    // The failed first import removed the database it created.
    assert!(!db.exists(), "a failed first import left a database");
    let r = rung(&db, &["import", "--keep-going", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dropped: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("dropped: "))
        .collect();
    assert_eq!(dropped.len(), 2, "{}", r.stderr);
    assert!(dropped[1].starts_with(&format!("dropped: {f}:6: run openai-responses-")));
    assert!(
        dropped[1].ends_with(": dropped a tool call with no tool name (call id \"call_n\")"),
        "{}",
        dropped[1]
    );
    assert_eq!(report(&db, "ladder")["decisions"], 0);
}

#[test]
fn gemini_request_history() {
    let (_dir, db, run, d) = one_run("gemini-request.json");
    assert!(run.starts_with("gemini-"), "{run}");
    assert_eq!(
        rows(&d),
        vec![
            // Parallel calls with ids; the answer for g2 came first.
            row(1, 1, Some("lookup_order"), Some("g1"), Some("ok")),
            row(2, 1, Some("lookup_order"), Some("g2"), Some("error")),
            // Built-in code execution, with its result in the same turn.
            row(3, 2, Some("code_execution"), None, Some("ok")),
            // A text answer (its thought kept).
            row(4, 3, None, None, None),
            // No id: answered by name.
            row(5, 4, Some("refund_order"), None, Some("ok")),
        ]
    );
    assert_eq!(
        d[1].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "order A-2 not found"}))
    );
    assert_eq!(d[0].result, Some(json!({"output": {"status": "shipped"}})));
    assert_eq!(d[0].arguments, Some(json!({"order_id": "A-1"})));
    assert_eq!(d[2].result, Some(json!("57\n")));
    assert_eq!(
        d[2].arguments,
        Some(json!({"language": "PYTHON", "code": "print(3 * 19)"}))
    );
    assert_eq!(
        d[0].visible,
        Some(json!(["lookup_order", "refund_order", "code_execution"]))
    );
    let e3 = d[3].extra.as_ref().unwrap();
    assert_eq!(
        e3["text"],
        "A-1 has shipped; A-2 does not exist; 3 x 19 = 57."
    );
    assert_eq!(
        e3["message"]["thoughts"][0]["text"],
        "Summarise for the user."
    );
    assert_eq!(d[0].extra.as_ref().unwrap()["text"], "Looking both up.");
    assert!(
        d[4].source.ends_with("gemini-request.json:27"),
        "{}",
        d[4].source
    );
    let extra = run_extra(&db, &run);
    assert_eq!(extra["tool_definitions"].as_array().unwrap().len(), 2);
    assert_eq!(
        extra["request"]["systemInstruction"]["parts"][0]["text"],
        "You answer questions about orders."
    );
    assert_eq!(report(&db, "ladder")["rungs"]["execution"], 1);
}

#[test]
fn gemini_response_and_malformed_contents() {
    let (_dir, db, run, d) = one_run("gemini-response.json");
    assert_eq!(run, "gemini-rsp-A9");
    assert_eq!(
        rows(&d),
        vec![
            row(1, 1, Some("lookup_order"), None, None),
            row(2, 1, Some("refund_order"), None, None),
        ]
    );
    assert!(d[0].visible.is_none());
    assert_eq!(report(&db, "runs")["runs"][0]["model"], "gemini-2.5-flash");

    let (_dir, db) = setup();
    let f = fixture("gemini-malformed.json");
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    let msg = r.stderr.trim_end();
    assert!(msg.starts_with(&format!("{f}:4: run gemini-")), "{msg}");
    assert!(
        msg.ends_with(&format!(
            ": dropped contents[1]: \"parts\" is a string, not a list{KEEP_GOING}"
        )),
        "{msg}"
    );
    let r = rung(&db, &["import", "--keep-going", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dropped: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("dropped: "))
        .collect();
    assert_eq!(dropped.len(), 2, "{}", r.stderr);
    assert!(dropped[1].starts_with(&format!("dropped: {f}:5: ")));
    assert!(dropped[1].ends_with("dropped a tool call with no tool name"));
}

#[test]
fn inspect_json_log() {
    let (_dir, db) = setup();
    let s = import(&db, &[&fixture("inspect-log.json")]);
    assert!(s.contains("2 runs, 5 decisions"), "{s}");
    assert_eq!(run_ids(&db), vec!["ev-orders-1/1/1", "ev-orders-1/two/1"]);

    let d = stored(&db, "ev-orders-1/1/1");
    assert_eq!(
        rows(&d),
        vec![
            row(1, 1, Some("lookup_order"), Some("c1"), Some("ok")),
            // The approver said no: authorization, with Inspect's type kept.
            row(2, 1, Some("refund_order"), Some("c2"), Some("error")),
            // The grader's model call in the scorer span is not a decision.
            row(3, 2, None, None, None),
        ]
    );
    assert_eq!(
        d[1].outcome,
        Some(
            json!({"status": "error", "stage": "authorization", "reason": "approval", "message": "The approver rejected the refund."})
        )
    );
    assert_eq!(d[1].stage.as_deref(), Some("authorization"));
    assert_eq!(d[0].result, Some(json!("shipped")));
    assert_eq!(d[0].visible, Some(json!(["lookup_order", "refund_order"])));
    assert_eq!(d[0].arguments, Some(json!({"order_id": "A-1"})));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (at, latency): (String, f64) = conn
        .query_row(
            "SELECT at, latency_ms FROM decisions WHERE run_id = 'ev-orders-1/1/1' AND step = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((at.as_str(), latency), ("2026-03-02T09:00:02Z", 250.0));
    assert_eq!(d[2].extra.as_ref().unwrap()["text"], "A-1 has shipped.");

    let d = stored(&db, "ev-orders-1/two/1");
    assert_eq!(
        rows(&d),
        vec![
            // Its arguments could not be parsed: representation.
            row(1, 1, Some("cancel_order"), Some("p1"), Some("error")),
            // A tool event no model turn asked for stands for its call.
            row(2, 2, Some("bash"), Some("t9"), Some("error")),
        ]
    );
    assert_eq!(d[0].stage.as_deref(), Some("representation"));
    assert_eq!(d[1].stage.as_deref(), Some("execution"));
    assert_eq!(d[1].outcome.as_ref().unwrap()["reason"], "timeout");
    assert_eq!(d[1].arguments, Some(json!({"cmd": "ls /orders"})));
    assert_eq!(
        d[1].extra.as_ref().unwrap()["reconstructed_from"],
        "tool event"
    );
    assert!(d[1].visible.is_none());

    // The ladder fails each typed error at the stage Inspect names, with
    // reason error:<stage> (expectations.md §7); the timeout stays at
    // EXECUTION with its own reason.
    let typed: Vec<(String, i64, String, Option<String>)> = conn
        .prepare(
            "SELECT run_id, step, rung, reason FROM ladder WHERE status = 'error'
             ORDER BY run_id, step",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let t = |run: &str, step, rung: &str, reason: &str| {
        (
            run.to_string(),
            step,
            rung.to_string(),
            Some(reason.to_string()),
        )
    };
    assert_eq!(
        typed,
        [
            t("ev-orders-1/1/1", 2, "authorization", "error:authorization"),
            t(
                "ev-orders-1/two/1",
                1,
                "representation",
                "error:representation"
            ),
            t("ev-orders-1/two/1", 2, "execution", "timeout"),
        ]
    );

    // Scores give success; the limit gives how the run ended; the target
    // is kept and labels nothing.
    drop(conn);
    let runs = report(&db, "runs");
    let r: Vec<(&serde_json::Value, &serde_json::Value, &serde_json::Value)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (&r["task_id"], &r["trial"], &r["success"]))
        .collect();
    assert_eq!(
        r,
        vec![
            (&json!("orders/1"), &json!(1), &json!(true)),
            (&json!("orders/two"), &json!(1), &json!(false)),
        ]
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (goal, terminated, started, ended): (String, Option<String>, String, String) = conn
        .query_row(
            "SELECT goal, terminated, started_at, ended_at FROM runs WHERE run_id = 'ev-orders-1/1/1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(goal, "Where is A-1? Refund it if it never left.");
    assert_eq!(terminated, None);
    assert_eq!(
        (started.as_str(), ended.as_str()),
        ("2026-03-02T09:00:01Z", "2026-03-02T09:00:07Z")
    );
    let t: String = conn
        .query_row(
            "SELECT terminated FROM runs WHERE run_id = 'ev-orders-1/two/1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(t, "step_limit");
    assert_eq!(
        run_extra(&db, "ev-orders-1/1/1")["inspect_target"],
        "A-1 has shipped"
    );
    assert_eq!(report(&db, "ladder")["labelled"], 0);
}

/// Zips the fixture folder `inspect-eval/` into `NAME.eval`, with `extra`
/// entries added.
fn eval_zip(dir: &std::path::Path, name: &str, extra: &[(&str, &str)]) -> String {
    use std::io::Write;
    let root = std::path::Path::new(&fixture("inspect-eval")).to_path_buf();
    let path = dir.join(name);
    let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    for entry in [
        "header.json",
        "samples/7_epoch_1.json",
        "samples/7_epoch_2.json",
    ] {
        w.start_file(entry, opts).unwrap();
        w.write_all(&std::fs::read(root.join(entry)).unwrap())
            .unwrap();
    }
    for (entry, text) in extra {
        w.start_file(*entry, opts).unwrap();
        w.write_all(text.as_bytes()).unwrap();
    }
    w.finish().unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn inspect_zipped_eval_log() {
    let (dir, db) = setup();
    let f = eval_zip(dir.path(), "refunds.eval", &[]);
    let s = import(&db, &[&f]);
    assert!(s.contains("2 runs, 3 decisions"), "{s}");
    assert_eq!(run_ids(&db), vec!["ev-zip-1/7/1", "ev-zip-1/7/2"]);
    let d = stored(&db, "ev-zip-1/7/1");
    assert_eq!(
        rows(&d),
        vec![
            row(1, 1, Some("refund_invoice"), Some("toolu_1"), Some("ok")),
            row(2, 2, None, None, None),
        ]
    );
    assert_eq!(d[0].result, Some(json!({"refunded": 4900})));
    assert!(
        d[0].source
            .ends_with("refunds.eval/samples/7_epoch_1.json:8"),
        "{}",
        d[0].source
    );
    let d = stored(&db, "ev-zip-1/7/2");
    assert_eq!(
        rows(&d),
        vec![row(
            1,
            1,
            Some("refund_invoice"),
            Some("toolu_2"),
            Some("error")
        )]
    );
    assert_eq!(d[0].stage.as_deref(), Some("authorization"));
    // Two epochs of one sample are two trials of one task.
    let m = report(&db, "metrics");
    assert_eq!(
        m["pass_hat_k"],
        json!({"1": {"value": 0.5, "tasks": 1}, "2": {"value": 0.0, "tasks": 1}})
    );
    // A folder of .eval files, with the format named.
    let (_d2, db2) = setup();
    import(&db2, &["--format", "inspect", dir.path().to_str().unwrap()]);
    assert_eq!(run_ids(&db2).len(), 2);
}

#[test]
fn inspect_zipped_eval_errors() {
    let (dir, db) = setup();
    // A sample that is not JSON: named inside the archive, with its line.
    let f = eval_zip(
        dir.path(),
        "bad.eval",
        &[("samples/8_epoch_1.json", "{\n  \"id\": 8,\n  oops\n}")],
    );
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!("{f}/samples/8_epoch_1.json:3: invalid JSON at column 3: key must be a string")
    );
    // The failed first import removed the database it created.
    assert!(!db.exists(), "a failed first import left a database");
    let r = rung(&db, &["import", "--keep-going", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(run_ids(&db).len(), 2);

    // No header: not an Inspect log.
    let path = dir.path().join("other.eval");
    {
        use std::io::Write;
        let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        w.start_file("readme.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(b"hello").unwrap();
        w.finish().unwrap();
    }
    let (_d, db) = setup();
    let r = rung(&db, &["import", path.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{}: not an Inspect .eval log: it holds no header.json (nor _journal/start.json)",
            path.display()
        )
    );
}

#[test]
fn inspect_sample_without_id_is_named() {
    let (_dir, db) = setup();
    let f = fixture("inspect-malformed.json");
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!("{f}:7: dropped samples[1]: the sample has no \"id\"{KEEP_GOING}")
    );
    let r = rung(&db, &["import", "--keep-going", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = stored(&db, "ev-bad/1/1");
    assert_eq!(rows(&d), vec![row(1, 1, None, None, None)]);
}

#[test]
fn messages_mini_swe_agent_protocol() {
    let (_dir, db, run, d) = one_run("messages-mini-swe.json");
    assert!(run.starts_with("messages-"), "{run}");
    assert_eq!(
        rows(&d),
        vec![
            // A non-zero return code is an execution error.
            row(1, 1, Some("bash"), None, Some("error")),
            // Two command blocks: the harness refused it; kept raw.
            row(2, 2, None, None, None),
            row(3, 3, Some("bash"), None, Some("ok")),
            // The answer: no block, no call.
            row(4, 4, None, None, None),
        ]
    );
    assert_eq!(
        d[0].arguments,
        Some(json!({"command": "pytest -q tests/test_totals.py"}))
    );
    assert_eq!(
        d[0].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "exit status 1"}))
    );
    assert_eq!(
        d[0].result,
        Some(json!(
            "<returncode>1</returncode>\n<output>\n1 failed\n</output>"
        ))
    );
    assert!(
        d[1].raw
            .as_ref()
            .unwrap()
            .as_str()
            .unwrap()
            .contains("cat tests/test_totals.py")
    );
    assert_eq!(
        d[3].extra,
        Some(json!({"text": "The slice drops the first item; that is the bug."}))
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let goal: String = conn
        .query_row("SELECT goal FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(goal, "Please fix the failing test in tests/test_totals.py.");
}

#[test]
fn messages_in_openai_and_anthropic_shapes() {
    let (_dir, _db, _, d) = one_run("messages-calls.json");
    assert_eq!(
        rows(&d),
        vec![
            row(1, 1, Some("lookup_order"), Some("call_1"), Some("ok")),
            row(2, 1, Some("lookup_order"), Some("call_2"), Some("ok")),
            row(3, 2, None, None, None),
        ]
    );
    assert_eq!(d[1].result, Some(json!({"error": "not found"})));

    let (_dir, db, run, d) = one_run("messages-anthropic.json");
    assert_eq!(
        rows(&d),
        vec![
            row(1, 1, Some("refund_order"), Some("toolu_r1"), Some("error")),
            row(2, 2, None, None, None),
        ]
    );
    assert_eq!(
        d[0].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "refund window closed"}))
    );
    assert_eq!(run_extra(&db, &run)["message_shape"], "anthropic");
}

#[test]
fn messages_malformed_item() {
    let (_dir, db) = setup();
    let f = fixture("messages-malformed.json");
    // Auto-detection says why each format does not fit.
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("\n  messages: [2] has no \"role\"\n"),
        "{}",
        r.stderr
    );
    // Named, the list is read and the bad item reported at its line.
    let r = rung(&db, &["import", "--format", "messages", &f]);
    assert_eq!(r.code, 2);
    let msg = r.stderr.trim_end();
    assert!(msg.starts_with(&format!("{f}:5: run messages-")), "{msg}");
    assert!(
        msg.ends_with(&format!(": dropped messages[2]: no \"role\"{KEEP_GOING}")),
        "{msg}"
    );
    let r = rung(&db, &["import", "--format", "messages", "--keep-going", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let run = &run_ids(&db)[0];
    let d = stored(&db, run);
    assert_eq!(
        rows(&d),
        vec![row(1, 1, Some("lookup_order"), Some("call_1"), Some("ok"))]
    );
}

#[test]
fn swe_agent_text_protocol() {
    let (_dir, _db, _, d) = one_run("swe-agent-text.traj");
    assert_eq!(
        rows(&d),
        vec![
            row(1, 1, Some("open"), None, Some("ok")),
            row(2, 2, Some("edit"), None, Some("ok")),
            // Not a documented command: a shell command.
            row(3, 3, Some("bash"), None, Some("ok")),
            // An empty action is no call.
            row(4, 4, None, None, None),
            // The last action: no observation followed.
            row(5, 5, Some("submit"), None, None),
        ]
    );
    assert_eq!(d[0].arguments, Some(json!({"path": "totals.py"})));
    assert_eq!(
        d[1].arguments,
        Some(json!({"start_line": "2", "end_line": "2", "replacement_text": "    return sum(xs)"}))
    );
    assert_eq!(
        d[2].arguments,
        Some(json!({"command": "python -m pytest -q"}))
    );
    assert_eq!(d[2].result, Some(json!("3 passed")));
    assert_eq!(d[4].arguments, Some(json!({})));
    assert_eq!(
        d[0].extra.as_ref().unwrap()["message"]["action"],
        "open totals.py\n"
    );
}
