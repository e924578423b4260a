//! The importers on small fixtures of each format, with the awkward cases:
//! parallel calls, a call written as text, a result that never came,
//! repeated ids, integers as strings and span kinds as names in OTLP, a
//! trace split over lines, content capture off; bad input and --keep-going;
//! auto-detection over a folder; --catalogue.

mod import_util;

use import_util::*;
use serde_json::json;

fn summary_of(d: &Stored) -> (i64, Option<i64>, Option<&str>, Option<&str>, Option<&str>) {
    (
        d.step,
        d.turn,
        d.selected.as_deref(),
        d.call_id.as_deref(),
        d.status.as_deref(),
    )
}

#[test]
fn openai_transcripts() {
    let (_dir, db) = setup();
    let s = import(&db, &[&fixture("openai-transcripts.jsonl")]);
    assert!(s.contains("2 runs, 8 decisions"), "{s}");
    let ids = run_ids(&db);
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], "oa-1");
    assert!(
        ids[1].starts_with("openai-") && ids[1].len() == 19,
        "{ids:?}"
    );

    let d = stored(&db, "oa-1");
    let got: Vec<_> = d.iter().map(summary_of).collect();
    assert_eq!(
        got,
        vec![
            // Two parallel calls share turn 1; their results came in reverse order.
            (1, Some(1), Some("lookup_order"), Some("call_a"), Some("ok")),
            (2, Some(1), Some("refund_order"), Some("call_b"), Some("ok")),
            // A text answer.
            (3, Some(2), None, None, None),
            // A call written as text: no tool guessed.
            (4, Some(3), None, None, None),
            // A tool that was not offered, whose result never came.
            (5, Some(4), Some("cancel_order"), Some("call_c"), None),
            // The id call_a again: matched by position.
            (6, Some(5), Some("refund_order"), Some("call_a"), Some("ok")),
        ]
    );
    assert_eq!(d[0].result, Some(json!({"status": "shipped"})));
    assert_eq!(d[1].result, Some(json!({"refunded": true})));
    assert_eq!(d[0].arguments, Some(json!({"order_id": "A-1"})));
    assert_eq!(d[0].visible, Some(json!(["lookup_order", "refund_order"])));
    assert_eq!(
        d[2].extra,
        Some(json!({"text": "A-1 has shipped and B-2 is refunded."}))
    );
    assert_eq!(
        d[3].raw,
        Some(json!(
            "<tool_call>{\"name\": \"refund_order\", \"arguments\": {\"order_id\": \"A-1\"}}</tool_call>"
        ))
    );
    assert!(d[4].result.is_none() && d[4].outcome.is_none());
    assert_eq!(d[5].result, Some(json!({"refunded": true})));

    let extra = run_extra(&db, "oa-1");
    assert_eq!(extra["request"], json!({"temperature": 0}));
    assert_eq!(extra["tool_definitions"].as_array().unwrap().len(), 2);
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["model"], "gpt-4o");

    // The legacy functions API, with the harness's task, trial and success.
    let r = &runs["runs"][1];
    assert_eq!(
        (&r["task_id"], &r["trial"], &r["success"]),
        (&json!("weather"), &json!(1), &json!(true))
    );
    let d = stored(&db, ids[1].as_str());
    assert_eq!(
        d.iter().map(summary_of).collect::<Vec<_>>(),
        vec![
            (1, Some(1), Some("get_weather"), None, Some("ok")),
            (2, Some(2), None, None, None)
        ]
    );
    assert_eq!(d[0].result, Some(json!("rain")));

    // The call written as text is flagged, and so is the call to a tool
    // the menu did not offer.
    let f = report(&db, "findings");
    assert_eq!(f["findings"].as_array().unwrap().len(), 2, "{f}");
    assert_eq!(f["findings"][0]["kind"], "announced_no_call");
    assert_eq!(f["findings"][0]["step"], 4);
    assert_eq!(f["findings"][1]["kind"], "hidden_proposal");
    assert_eq!(f["findings"][1]["step"], 5);

    let again = import(&db, &["--force", &fixture("openai-transcripts.jsonl")]);
    assert!(again.contains("0 runs, 0 decisions"), "{again}");
    assert!(
        again.contains("10 records were already stored unchanged"),
        "{again}"
    );
}

#[test]
fn anthropic_transcript() {
    let (_dir, db) = setup();
    import(&db, &[&fixture("anthropic-transcript.json")]);
    let ids = run_ids(&db);
    assert_eq!(ids.len(), 1);
    assert!(ids[0].starts_with("anthropic-"), "{ids:?}");
    let d = stored(&db, &ids[0]);
    assert_eq!(
        d.iter().map(summary_of).collect::<Vec<_>>(),
        vec![
            (
                1,
                Some(1),
                Some("lookup_order"),
                Some("toolu_01"),
                Some("ok")
            ),
            (
                2,
                Some(1),
                Some("lookup_order"),
                Some("toolu_02"),
                Some("error")
            ),
            (3, Some(2), None, None, None),
            (4, Some(3), None, None, None),
            (5, Some(4), Some("refund_order"), Some("toolu_03"), None),
        ]
    );
    assert_eq!(
        d[1].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "order A-2 not found"}))
    );
    assert_eq!(d[0].arguments, Some(json!({"order_id": "A-1"})));
    assert_eq!(
        d[0].visible,
        Some(json!(["lookup_order", "refund_order", "web_search"]))
    );
    // The thinking block and the text are kept on the turn's first decision.
    let extra = d[0].extra.as_ref().unwrap();
    assert_eq!(extra["text"], "Looking both up.");
    assert_eq!(extra["message"]["blocks"][0]["type"], "thinking");
    assert!(
        d[3].raw
            .as_ref()
            .unwrap()
            .as_str()
            .unwrap()
            .contains("refund_order")
    );
    // Lines name where each message starts in the file.
    assert!(
        d[0].source.ends_with("anthropic-transcript.json:39"),
        "{}",
        d[0].source
    );

    let ladder = report(&db, "ladder");
    assert_eq!(ladder["rungs"]["execution"], 1);
    // Transcripts carry no labels: unlabelled, not passed.
    assert_eq!(ladder["rungs"]["unlabelled"], 4);
    assert_eq!(ladder["rungs"]["passed"], 0);
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["model"], "claude-sonnet-4-5");
    let extra = run_extra(&db, &ids[0]);
    assert_eq!(extra["request"]["system"], "You are a support agent.");
}

#[test]
fn otlp_old_openllmetry_trace_split_over_lines() {
    let (_dir, db) = setup();
    import(&db, &[&fixture("otlp-openllmetry-old.jsonl")]);
    let run = "6e0c63257de34c92bf9efcd03927272e";
    assert_eq!(run_ids(&db), vec![run]);
    let d = stored(&db, run);
    assert_eq!(
        d.iter().map(summary_of).collect::<Vec<_>>(),
        vec![
            (1, Some(1), Some("lookup_order"), Some("call_x"), Some("ok")),
            // Nothing answered this call.
            (2, Some(1), Some("refund_order"), Some("call_y"), None),
            (3, Some(2), None, None, None),
        ]
    );
    // The result came back in the next turn's input messages.
    assert_eq!(d[0].result, Some(json!({"status": "shipped"})));
    assert_eq!(d[0].visible, Some(json!(["lookup_order", "refund_order"])));
    assert_eq!(d[2].visible, None);
    assert_eq!(d[2].extra.as_ref().unwrap()["text"], "A-1 has shipped.");
    // Integers given as JSON numbers are read too.
    assert_eq!(
        d[0].extra.as_ref().unwrap()["otel"]["attributes"]["llm.usage.total_tokens"],
        120
    );
    assert!(
        d[2].source.ends_with("otlp-openllmetry-old.jsonl:2"),
        "{}",
        d[2].source
    );
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["model"], "gpt-4o-mini");
    let extra = run_extra(&db, run);
    assert_eq!(extra["service_name"], "legacy-agent");
    assert_eq!(
        extra["tool_definitions"][0]["parameters"],
        json!({"type": "object"})
    );
}

#[test]
fn otlp_without_content_capture() {
    let (_dir, db) = setup();
    import(&db, &[&fixture("otlp-no-content.json")]);
    // The health-check trace is not an agent run.
    let run = "0af7651916cd43dd8448eb211c80319c";
    assert_eq!(run_ids(&db), vec![run]);
    let d = stored(&db, run);
    assert_eq!(
        d.iter().map(summary_of).collect::<Vec<_>>(),
        vec![
            (1, Some(1), Some("lookup_order"), Some("call_1"), Some("ok")),
            (
                2,
                Some(1),
                Some("lookup_order"),
                Some("call_2"),
                Some("error")
            ),
            // finish reason "stop" with no output recorded: a text answer.
            (3, Some(2), None, None, None),
        ]
    );
    assert_eq!(
        d[1].outcome,
        Some(
            json!({"status": "error", "stage": "execution", "reason": "timeout", "message": "no answer in 2 s"})
        )
    );
    assert_eq!(
        d[0].extra.as_ref().unwrap()["reconstructed_from"],
        "execute_tool span"
    );
    let runs = report(&db, "runs");
    let r = &runs["runs"][0];
    assert_eq!(
        (&r["task_id"], &r["trial"], &r["success"]),
        (&json!("7"), &json!(2), &json!(true))
    );
    let m = report(&db, "metrics");
    assert_eq!(m["pass_hat_k"], json!({"1": {"value": 1.0, "tasks": 1}}));
    assert_eq!(report(&db, "ladder")["rungs"]["execution"], 1);
}

#[test]
fn otlp_from_stdin_and_a_wrong_format() {
    let (_dir, db) = setup();
    let text = std::fs::read(fixture("otlp-no-content.json")).unwrap();
    let r = rung_stdin(&db, &["import", "-"], &text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(run_ids(&db).len(), 1);

    let (_dir, db) = setup();
    let f = fixture("openai-dropped.json");
    let r = rung(&db, &["import", "--format", "otlp", &f]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!("{f}:1: not an OTLP export: no \"resourceSpans\" list at the top level")
    );
    let r = rung(&db, &["import", "--format", "yaml", &f]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "known formats are auto, rung, otlp, langfuse, openai, openai-responses, anthropic, gemini, tau-bench, swe-agent, inspect, messages"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn tau_bench_fixture_pass_hat_k_and_repeated_ids() {
    let (_dir, db) = setup();
    import(&db, &[&fixture("tau-bench-mini.json")]);
    let runs = report(&db, "runs");
    let tasks: Vec<&str> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(tasks, vec!["retail/0", "retail/0", "retail/1", "retail/1"]);
    // Task 0: 1 of 2 trials passed; task 1: 2 of 2.
    let m = report(&db, "metrics");
    assert_eq!(
        m["pass_hat_k"],
        json!({"1": {"value": 0.75, "tasks": 2}, "2": {"value": 0.5, "tasks": 2}})
    );
    let ladder = report(&db, "ladder");
    assert_eq!(ladder["decisions"], 12);
    assert_eq!(ladder["rungs"]["execution"], 1);
    // The failing trial: `Error:` is an execution error; the id call_1
    // repeats, and each result goes to its own call.
    let failing = runs["runs"][1]["run_id"].as_str().unwrap();
    assert!(failing.starts_with("retail/0/t1-"), "{failing}");
    let d = stored(&db, failing);
    assert_eq!(d[0].status.as_deref(), Some("error"));
    assert_eq!(
        d[0].outcome.as_ref().unwrap()["message"],
        "Error: user not found"
    );
    assert_eq!(d[1].call_id.as_deref(), Some("call_1"));
    assert_eq!(d[1].result, Some(json!({"name": "Ann"})));
    assert_eq!(
        run_extra(&db, failing)["ground_truth_actions"],
        json!([{"name": "get_user_details", "kwargs": {"user_id": "user_1"}}])
    );
}

#[test]
fn dropped_parts_fail_the_import_unless_keep_going() {
    let (_dir, db) = setup();
    let f = fixture("openai-dropped.json");
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{f}:20: run oa-drop: dropped the arguments of call \"call_1\" to \"lookup_order\": not JSON (key must be a string at line 1 column 2); kept as text in \"arguments_text\" (--keep-going imports the rest and lists each part it dropped)"
        )
    );
    // Nothing was stored: a first import that fails leaves no database.
    assert!(!db.exists());

    let r = rung(&db, &["import", "--keep-going", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dropped: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("dropped: "))
        .collect();
    assert_eq!(dropped.len(), 2, "{}", r.stderr);
    assert_eq!(
        dropped[1],
        format!(
            "dropped: {f}:34: run oa-drop: dropped a tool result that answers no call (call id \"call_9\")"
        )
    );
    assert!(
        r.stderr
            .contains("dropped 2 parts the importers could not map"),
        "{}",
        r.stderr
    );
    let d = stored(&db, "oa-drop");
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].selected.as_deref(), Some("lookup_order"));
    assert!(d[0].arguments.is_none());
    assert_eq!(
        d[0].extra.as_ref().unwrap()["arguments_text"],
        "{order_id: A-1"
    );
}

#[test]
fn otlp_tool_span_with_no_call_is_counted_and_listed_with_v() {
    let (_dir, db) = setup();
    let f = fixture("otlp-orphan-tool-span.json");
    // The rest of the trace is imported; the summary counts the span.
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("dropped: "), "{}", r.stderr);
    assert!(
        r.stderr.lines().any(|l| l
            == "dropped 1 part the importers could not map (-v lists each); the rest was imported"),
        "{}",
        r.stderr
    );
    assert_eq!(report(&db, "ladder")["decisions"], 1);
    // -v names the file, the line of the span and the span id.
    let (_dir, db) = setup();
    let r = rung(&db, &["-v", "import", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let listed: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("dropped: "))
        .collect();
    assert_eq!(
        listed,
        vec![format!(
            "dropped: {f}:32: run 0af7651916cd43dd8448eb211c80319c (span c000000000000002): dropped an execute_tool span that answers no call in the trace (tool \"refund_order\") (call id \"call_zz\")"
        )]
    );
    assert!(
        r.stderr
            .contains("dropped 1 part the importers could not map (listed above)"),
        "{}",
        r.stderr
    );
}

#[test]
fn unknown_format_lists_what_was_tried() {
    let (dir, db) = setup();
    let f = fixture("not-a-trace.json");
    let r = rung(&db, &["import", &f]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{f}: matches no known trace format; tried:
  rung: line 1 is not a whole JSON object (rung traces are JSON Lines)
  otlp: no \"resourceSpans\" list at the top level
  inspect: no \"eval\" object
  langfuse: no \"trace\" object; no \"observations\" list
  tau-bench: no \"traj\" list; no \"task_id\"
  swe-agent: no \"history\" list
  openai-responses: no \"input\" or \"output\" list
  gemini: no \"contents\" or \"candidates\" list
  openai: no \"messages\" list (a request or transcript) nor \"choices\" (a chat completion)
  anthropic: no \"messages\" list (a request or transcript) nor \"type\": \"message\" (a response)
  messages: a message list is a JSON list, not an object
name one with --format (auto, rung, otlp, langfuse, openai, openai-responses, anthropic, gemini, tau-bench, swe-agent, inspect, messages, bfcl)"
        )
    );
    // Not JSON at all.
    let txt = dir.path().join("notes.json");
    std::fs::write(&txt, "hello\n").unwrap();
    let r = rung(&db, &["import", txt.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("notes.json: matches no known trace format: line 1 is not a whole JSON object (rung traces are JSON Lines) (rung), and it is not JSON either (line 1: invalid JSON at column 1: expected value)"),
        "{}",
        r.stderr
    );
    // With --keep-going the file is skipped and the rest imported.
    let r = rung(
        &db,
        &[
            "import",
            "--keep-going",
            &f,
            &fixture("anthropic-transcript.json"),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with(&format!("skipped: {f}: matches no known trace format")),
        "{}",
        r.stderr
    );
    assert_eq!(run_ids(&db).len(), 1);
}

#[test]
fn auto_detects_each_file_of_a_folder() {
    let (dir, db) = setup();
    let folder = dir.path().join("traces");
    std::fs::create_dir_all(folder.join("nested")).unwrap();
    for (name, to) in [
        ("openai-transcripts.jsonl", "a/openai.jsonl"),
        ("anthropic-transcript.json", "anthropic.json"),
        ("otlp-no-content.json", "nested/otlp.json"),
        ("otlp-openllmetry-old.jsonl", "nested/otlp-old.jsonl"),
        ("tau-bench-mini.json", "tau.json"),
        ("otel-example.rung.jsonl", "rung.jsonl"),
    ] {
        let p = folder.join(to);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::copy(fixture(name), p).unwrap();
    }
    // gzip: a rung file and an importer's file.
    let gz = |src: &str, to: &str| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&std::fs::read(src).unwrap()).unwrap();
        std::fs::write(folder.join(to), e.finish().unwrap()).unwrap();
    };
    let catalogue = r#"{"type":"catalogue","version":"support-1","tools":[{"name":"lookup_order","family":"orders","effect":"read_only","description":"Look up an order by its identifier.","input_schema":{"type":"object"}}]}"#;
    let cat = dir.path().join("cat.jsonl");
    std::fs::write(&cat, catalogue).unwrap();
    gz(cat.to_str().unwrap(), "catalogue.jsonl.gz");
    let oa = dir.path().join("oa.json");
    std::fs::write(
        &oa,
        r#"{"run_id": "gz-1", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}"#,
    )
    .unwrap();
    gz(oa.to_str().unwrap(), "nested/oa.json.gz");
    std::fs::write(folder.join("README.md"), "not a trace").unwrap();

    // A folder means its *.jsonl and *.jsonl.gz files (trace-format.md),
    // each detected: openai 2 + old OpenLLMetry 1 + rung 1, and the catalogue.
    let s = import(&db, &[folder.to_str().unwrap()]);
    assert!(
        s.contains("imported 1 catalogue, 4 runs, 17 decisions, 0 cases from 4 files"),
        "{s}"
    );
    // Other formats' files are read when named: anthropic 1 + otlp 1 + tau 4 + gz 1;
    // the tau-bench file's two tasks give a case each.
    let named: Vec<String> = [
        "anthropic.json",
        "nested/otlp.json",
        "tau.json",
        "nested/oa.json.gz",
    ]
    .iter()
    .map(|f| folder.join(f).to_str().unwrap().to_string())
    .collect();
    let named: Vec<&str> = named.iter().map(String::as_str).collect();
    let s = import(&db, &named);
    assert!(
        s.contains("imported 0 catalogues, 7 runs, 21 decisions, 2 cases from 4 files"),
        "{s}"
    );
    assert_eq!(run_ids(&db).len(), 11);
    assert!(run_ids(&db).contains(&"gz-1".to_string()));
}

#[test]
fn catalogue_binds_imported_runs() {
    let (dir, db) = setup();
    let cat = dir.path().join("catalogue.jsonl");
    std::fs::write(
        &cat,
        r#"{"type":"catalogue","version":"orders-1","tools":[
            {"name":"lookup_order","family":"orders","effect":"read_only","description":"Look up an order."},
            {"name":"refund_order","family":"orders","effect":"mutating","description":"Refund an order."},
            {"name":"cancel_order","family":"orders","effect":"destructive","description":"Cancel an order."}]}"#
            .replace('\n', " "),
    )
    .unwrap();
    let f = fixture("openai-transcripts.jsonl");

    // A catalogue that resolves nowhere is an input error naming the run.
    let r = rung(
        &db,
        &[
            "import",
            "--catalogue",
            "orders-9",
            cat.to_str().unwrap(),
            &f,
        ],
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{f}:1: run oa-1: catalogue \"orders-9\" is not defined in this import or in the database; import the catalogue record with that version (or fix the name)"
        )
    );

    import(&db, &["--catalogue", "orders-1", cat.to_str().unwrap(), &f]);
    let runs = report(&db, "runs");
    for r in runs["runs"].as_array().unwrap() {
        assert_eq!(r["catalogue"], "orders-1", "{r}");
    }
    // The recorded menu is the truth; the catalogue explains it.
    let e = explain(&db, "oa-1");
    let tools: Vec<(String, bool, String)> = e["decisions"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().into(),
                t["visible"].as_bool().unwrap(),
                t["rule"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        vec![
            ("cancel_order".into(), false, "not_recorded".into()),
            ("lookup_order".into(), true, "flat".into()),
            ("refund_order".into(), true, "flat".into()),
        ]
    );
    let tools = report(&db, "tools");
    let cancel = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "cancel_order")
        .unwrap()
        .clone();
    assert_eq!(
        (&cancel["visible"], &cancel["selected"]),
        (&json!(0), &json!(1))
    );
}

/// rung's own format keeps the unknown fields of nested parts (policy,
/// retrieval and its candidates, outcome) in the JSON the store keeps.
#[test]
fn nested_parts_keep_unknown_fields() {
    use rung::ingest::native::{Parsed, parse};
    use rung::model::Record;

    let v = json!({"type": "decision", "run_id": "r", "step": 1, "selected": null,
        "policy": {"max_effect": "read_only", "tier": 2},
        "retrieval": {"k": 2, "candidates": [{"name": "a", "score": 0.5, "why": "kw"}], "model": "bm25"},
        "outcome": {"status": "refused", "reason": "x", "trace": "t-1"}});
    let Ok(Parsed::Record(Record::Decision(d))) = parse(v) else {
        panic!("a decision")
    };
    assert_eq!(
        serde_json::to_string(d.menu.policy.as_ref().unwrap()).unwrap(),
        r#"{"max_effect":"read_only","allow_open_world":false,"tier":2}"#
    );
    assert_eq!(
        serde_json::to_string(d.menu.retrieval.as_ref().unwrap()).unwrap(),
        r#"{"k":2,"candidates":[{"name":"a","score":0.5,"why":"kw"}],"model":"bm25"}"#
    );
    assert_eq!(
        serde_json::to_string(d.outcome.as_ref().unwrap()).unwrap(),
        r#"{"status":"refused","reason":"x","trace":"t-1"}"#
    );
}

/// A tau-bench task's reference actions and outputs become one case of the
/// task (the same for every trial, so a second trial adds nothing), the
/// answers are each non-call decision's `text`, and a run that crashed
/// ends `terminated: error` (its task named from the file's environment,
/// as its empty conversation names none, so it has the case too).
#[test]
fn tau_bench_expected_calls_outputs_and_a_crashed_run() {
    let dir = tempfile::tempdir().unwrap();
    let task = json!({"user_id": "noa_ek_5521",
        "actions": [
            {"name": "get_reservation_details", "kwargs": {"reservation_id": "NQNU5R"}},
            {"name": "cancel_reservation", "kwargs": {"reservation_id": "NQNU5R"}}],
        "instruction": "Cancel NQNU5R.", "outputs": ["1,628"]});
    let sys = json!({"role": "system", "content": "# Airline Agent Policy\n\nBe careful."});
    let records = json!([
        {"task_id": 26, "trial": 0, "reward": 1.0,
         "info": {"task": task, "source": "user", "user_cost": 0.0, "reward_info": null},
         "traj": [sys,
            {"role": "user", "content": "Cancel NQNU5R please."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "cancel_reservation", "arguments": "{\"reservation_id\": \"NQNU5R\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "name": "cancel_reservation", "content": "{\"status\": \"cancelled\"}"},
            {"role": "assistant", "content": "Cancelled. Your refund is $1,628."}]},
        {"task_id": 26, "trial": 1, "reward": 0.0,
         "info": {"task": task, "source": "user", "user_cost": 0.0, "reward_info": null},
         "traj": [sys,
            {"role": "user", "content": "Cancel NQNU5R please."},
            {"role": "assistant", "content": "I cannot do that."}]},
        {"task_id": 26, "trial": 2, "reward": 0.0,
         "info": {"error": "RateLimitError: too many requests", "traceback": "Traceback ..."},
         "traj": []}
    ]);
    let path = dir.path().join("tau.json");
    std::fs::write(&path, serde_json::to_string_pretty(&records).unwrap()).unwrap();
    let db = dir.path().join("t.db");
    let s = import(&db, &[path.to_str().unwrap()]);
    assert!(
        s.contains("imported 0 catalogues, 3 runs, 3 decisions, 1 case from 1 file"),
        "{s}"
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (task_id, step, acceptable, extra): (String, Option<i64>, String, String) = conn
        .query_row(
            "SELECT task_id, step, acceptable, extra FROM cases",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        (task_id.as_str(), step, acceptable.as_str()),
        ("airline/26", None, "null")
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&extra).unwrap(),
        json!({"expected_calls": [
            {"tool": "get_reservation_details", "arguments": {"reservation_id": "NQNU5R"}},
            {"tool": "cancel_reservation", "arguments": {"reservation_id": "NQNU5R"}}],
            "expected_outputs": ["1,628"]})
    );
    // The answer is the non-call decision's text.
    let runs = report(&db, "runs");
    let ids: Vec<&str> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    let first = stored(&db, ids[0]);
    assert_eq!(
        first[1].extra.as_ref().unwrap()["text"],
        "Cancelled. Your refund is $1,628."
    );
    // Without [effects] every expected call is required: trial 0 made the
    // cancel but not the lookup; trial 1 made neither and said no refund.
    let as_expected: Vec<&serde_json::Value> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["as_expected"])
        .collect();
    assert_eq!(as_expected, [&json!(false), &json!(false), &json!(false)]);
    let (terminated, decisions): (Option<String>, i64) = conn
        .query_row(
            "SELECT terminated, decisions FROM runs WHERE trial = 2",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((terminated.as_deref(), decisions), (Some("error"), 0));
    let terminated_ok: Option<String> = conn
        .query_row("SELECT terminated FROM runs WHERE trial = 0", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(terminated_ok, None);
    // Importing again is a no-op.
    let again = import(&db, &[path.to_str().unwrap()]);
    assert!(
        again.contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases"),
        "{again}"
    );
}
