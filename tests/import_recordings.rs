//! Recorded HTTP bodies (VCR cassettes turned into files): each request and
//! response of a provider API in a file of its own. Alone, each imports;
//! together, the bodies of one conversation make one run. The fixtures in
//! tests/fixtures/recordings were written for these tests (Brightdesk's
//! billing assistant), one folder per API, each paired a different way:
//! chat by file names, Anthropic by an index.json, Responses by
//! previous_response_id and by content, Gemini by content alone.

mod import_util;

use std::path::{Path, PathBuf};

use import_util::*;
use serde_json::json;

type Row = (i64, Option<String>, Option<String>, Option<String>);

/// (turn, selected, call id, status) of each decision of a run.
fn rows(db: &Path, run: &str) -> Vec<Row> {
    stored(db, run)
        .into_iter()
        .map(|d| (d.turn.unwrap(), d.selected, d.call_id, d.status))
        .collect()
}

fn row(turn: i64, selected: Option<&str>, call: Option<&str>, status: Option<&str>) -> Row {
    (
        turn,
        selected.map(String::from),
        call.map(String::from),
        status.map(String::from),
    )
}

fn rec(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recordings")
        .join(rel)
}

/// The files of a fixture folder, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut f: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    f.sort();
    f
}

/// A stored run's goal.
fn goal(db: &Path, run: &str) -> Option<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT goal FROM runs WHERE run_id = ?1", [run], |r| {
        r.get(0)
    })
    .unwrap()
}

fn notes(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("note: ")).collect()
}

const FIND: &str = "find_customer";
const CANCEL: &str = "cancel_subscription";

#[test]
fn chat_bodies_paired_by_file_name_make_one_run() {
    let (_d, db) = setup();
    let dir = rec("chat");
    let err = import(&db, &["--format", "openai", dir.to_str().unwrap()]);
    assert_eq!(
        notes(&err),
        vec!["note: read 6 recorded request and response bodies as 1 conversation, one run each"]
    );
    assert_eq!(run_ids(&db), vec!["chatcmpl-bd01"]);
    assert_eq!(
        rows(&db, "chatcmpl-bd01"),
        vec![
            row(1, Some(FIND), Some("call_nw1"), Some("ok")),
            row(1, Some(FIND), Some("call_qc1"), Some("ok")),
            row(2, Some(CANCEL), Some("call_nw2"), Some("ok")),
            row(2, Some(CANCEL), Some("call_qc2"), Some("ok")),
            row(3, None, None, None),
        ]
    );
    let d = stored(&db, "chatcmpl-bd01");
    // Each decision names the response it came from; the result the next
    // request sent is its outcome's.
    let at = |n: usize| {
        format!(
            "{}:7",
            dir.join(format!("brightdesk-cancel.{n}.response.json"))
                .display()
        )
    };
    assert_eq!(
        d.iter().map(|d| d.source.clone()).collect::<Vec<_>>(),
        vec![at(1), at(1), at(2), at(2), at(3)]
    );
    assert_eq!(
        d[0].arguments,
        Some(json!({"name_or_email": "Northwind Dental"}))
    );
    assert_eq!(
        d[1].result,
        Some(
            json!({"customer_id": "cus_8Qc2", "name": "Quarry Climbing", "subscriptions": [{"subscription_id": "sub_qc_01", "plan": "one location", "monthly": 18000}]})
        )
    );
    assert_eq!(
        d[3].result,
        Some(json!({"ok": true, "cancel_at": "2026-09-30", "refund_issued": false}))
    );
    assert_eq!(
        d[4].extra.as_ref().unwrap()["text"],
        "Both subscriptions end on 2026-09-30; no refund was issued."
    );
    // The last request offered only cancel_subscription: each decision
    // keeps the menu of its own request.
    let all = json!([FIND, "list_subscriptions", CANCEL]);
    assert_eq!(
        d.iter()
            .map(|d| d.visible.clone().unwrap())
            .collect::<Vec<_>>(),
        vec![all.clone(), all.clone(), all.clone(), all, json!([CANCEL])]
    );
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["model"], "gpt-4.1-mini-2025-04-14");
    assert_eq!(
        goal(&db, "chatcmpl-bd01").as_deref(),
        Some("Cancel both Northwind Dental and Quarry Climbing at the end of the period.")
    );
    let extra = run_extra(&db, "chatcmpl-bd01");
    let ex = extra["interactions"].as_array().unwrap();
    assert_eq!(ex.len(), 3);
    assert_eq!(
        ex[0]["request"],
        json!({"model": "gpt-4.1-mini", "temperature": 0, "tool_choice": "auto"})
    );
    assert_eq!(ex[2]["response"]["id"], "chatcmpl-bd03");
    assert_eq!(ex[2]["response"]["usage"]["total_tokens"], 558);
    assert_eq!(ex[2]["response"]["choice"]["finish_reason"], "stop");
    assert_eq!(extra["tool_definitions"].as_array().unwrap().len(), 3);

    // The same files named one by one, auto-detected: the same run, and
    // importing them again changes nothing.
    let (_d2, db2) = setup();
    let names = files(&dir);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    import(&db2, &args);
    assert_eq!(rows(&db2, "chatcmpl-bd01"), rows(&db, "chatcmpl-bd01"));
    // A file named twice is read once.
    let (_d3, db3) = setup();
    let mut twice = args.clone();
    twice.push(args[1]);
    let err = import(&db3, &twice);
    assert!(
        err.contains("imported 0 catalogues, 1 run, 5 decisions, 0 cases from 7 files"),
        "{err}"
    );
    let again = import(&db, &args);
    assert!(
        again.contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 6 files"),
        "{again}"
    );
}

#[test]
fn anthropic_bodies_paired_by_their_index() {
    let (_d, db) = setup();
    let dir = rec("anthropic");
    let err = import(&db, &["--format", "anthropic", dir.to_str().unwrap()]);
    assert_eq!(
        notes(&err),
        vec![
            format!(
                "note: {}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported",
                dir.join("index.json").display()
            )
            .as_str(),
            "note: read 6 recorded request and response bodies as 1 conversation, one run each"
        ]
    );
    assert_eq!(run_ids(&db), vec!["msg_bd_a"]);
    assert_eq!(
        rows(&db, "msg_bd_a"),
        vec![
            row(1, Some(FIND), Some("toolu_nw_find"), Some("ok")),
            row(
                2,
                Some("refund_invoice"),
                Some("toolu_nw_refund"),
                Some("error")
            ),
            row(3, None, None, None),
        ]
    );
    let d = stored(&db, "msg_bd_a");
    assert_eq!(
        d[1].outcome,
        Some(
            json!({"status": "error", "stage": "execution", "message": "subscription_still_active: Cancel with when='now' first."})
        )
    );
    assert_eq!(
        d[0].extra.as_ref().unwrap()["text"],
        "I'll look up Northwind Dental first."
    );
    assert_eq!(
        d[2].source,
        format!("{}:1", dir.join("reply-c.json").display())
    );

    // Without the index, content pairs the first two answers (a later
    // request holds each); nothing says which request the last answered,
    // so it is a run of its own.
    let tmp = tempfile::tempdir().unwrap();
    for f in files(&dir) {
        let p = Path::new(&f);
        if p.file_name().unwrap() != "index.json" {
            std::fs::copy(p, tmp.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    let (_d2, db2) = setup();
    let err = import(
        &db2,
        &["--format", "anthropic", tmp.path().to_str().unwrap()],
    );
    assert_eq!(
        notes(&err),
        vec!["note: read 5 recorded request and response bodies as 1 conversation, one run each"]
    );
    assert_eq!(run_ids(&db2), vec!["msg_bd_a", "msg_bd_c"]);
    assert_eq!(
        rows(&db2, "msg_bd_a"),
        vec![
            row(1, Some(FIND), Some("toolu_nw_find"), Some("ok")),
            row(
                2,
                Some("refund_invoice"),
                Some("toolu_nw_refund"),
                Some("error")
            ),
        ]
    );
    assert_eq!(rows(&db2, "msg_bd_c"), vec![row(1, None, None, None)]);
}

#[test]
fn responses_chained_by_previous_response_id_or_sent_in_full() {
    let (_d, db) = setup();
    let dir = rec("responses");
    import(
        &db,
        &["--format", "openai-responses", dir.to_str().unwrap()],
    );
    assert_eq!(run_ids(&db), vec!["resp_hy_1", "resp_qc_1"]);
    // Each request holds only the outputs for the previous response's
    // calls (previous_response_id).
    assert_eq!(
        rows(&db, "resp_qc_1"),
        vec![
            row(1, Some(FIND), Some("call_qc_find"), Some("ok")),
            row(
                2,
                Some("refund_invoice"),
                Some("call_qc_refund"),
                Some("ok")
            ),
            row(3, None, None, None),
        ]
    );
    let d = stored(&db, "resp_qc_1");
    assert_eq!(
        d[1].result,
        Some(json!({"ok": true, "refund_id": "re_5521", "amount": 18000}))
    );
    assert_eq!(
        goal(&db, "resp_qc_1").as_deref(),
        Some("Refund Quarry Climbing's duplicate charge from September.")
    );
    assert_eq!(run_extra(&db, "resp_qc_1").get("previous_outputs"), None);
    // Each request resends the whole conversation (its function_call
    // spaced differently than the response wrote it).
    assert_eq!(
        rows(&db, "resp_hy_1"),
        vec![
            row(1, Some(FIND), Some("call_hy_find"), Some("ok")),
            row(2, None, None, None),
        ]
    );
}

#[test]
fn gemini_bodies_paired_by_content_alone() {
    let (_d, db) = setup();
    let dir = rec("gemini");
    let names = files(&dir);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    import(&db, &args);
    // a.json and b.json are one exchange because c.json holds both; d.json
    // answered c.json, but no later request or name says so.
    assert_eq!(run_ids(&db), vec!["gemini-gm-pp-1", "gemini-gm-pp-2"]);
    assert_eq!(
        rows(&db, "gemini-gm-pp-1"),
        vec![row(1, Some(FIND), None, Some("ok"))]
    );
    let d = stored(&db, "gemini-gm-pp-1");
    assert_eq!(
        d[0].result,
        Some(json!({"customers": [], "note": "No customer matched. Check the spelling."}))
    );
    assert_eq!(d[0].visible, Some(json!([FIND, "list_subscriptions"])));
    assert_eq!(rows(&db, "gemini-gm-pp-2"), vec![row(1, None, None, None)]);
}

#[test]
fn every_fixture_folder_at_once() {
    let (_d, db) = setup();
    let mut names = Vec::new();
    for api in ["anthropic", "chat", "gemini", "responses"] {
        names.extend(files(&rec(api)));
    }
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    let err = import(&db, &args);
    assert!(
        err.contains("imported 0 catalogues, 6 runs, 15 decisions, 0 cases from 27 files"),
        "{err}"
    );
    assert_eq!(
        run_ids(&db),
        vec![
            "chatcmpl-bd01",
            "gemini-gm-pp-1",
            "gemini-gm-pp-2",
            "msg_bd_a",
            "resp_hy_1",
            "resp_qc_1"
        ]
    );
    assert!(err.contains(
        "note: read 25 recorded request and response bodies as 5 conversations, one run each"
    ));
}

#[test]
fn each_body_alone_still_imports() {
    // A response alone: its calls, with no outcome yet.
    let (_d, db) = setup();
    import(
        &db,
        &[rec("chat/brightdesk-cancel.2.response.json")
            .to_str()
            .unwrap()],
    );
    assert_eq!(
        rows(&db, "chatcmpl-bd02"),
        vec![
            row(1, Some(CANCEL), Some("call_nw2"), None),
            row(1, Some(CANCEL), Some("call_qc2"), None),
        ]
    );
    let d = stored(&db, "chatcmpl-bd02");
    assert_eq!(
        d[0].extra.as_ref().unwrap()["message"]["finish_reason"],
        "tool_calls"
    );
    assert_eq!(
        run_extra(&db, "chatcmpl-bd02")["response"]["usage"],
        json!({"prompt_tokens": 455, "completion_tokens": 61, "total_tokens": 516})
    );
    assert_eq!(
        report(&db, "runs")["runs"][0]["model"],
        "gpt-4.1-mini-2025-04-14"
    );

    let (_d, db) = setup();
    import(&db, &[rec("anthropic/reply-b.json").to_str().unwrap()]);
    assert_eq!(
        rows(&db, "msg_bd_b"),
        vec![row(
            1,
            Some("refund_invoice"),
            Some("toolu_nw_refund"),
            None
        )]
    );
    assert_eq!(
        run_extra(&db, "msg_bd_b")["response"]["stop_reason"],
        "tool_use"
    );

    // A request alone: its history, as before.
    let (_d, db) = setup();
    import(
        &db,
        &[rec("chat/brightdesk-cancel.2.request.json")
            .to_str()
            .unwrap()],
    );
    let ids = run_ids(&db);
    assert_eq!(
        rows(&db, &ids[0]),
        vec![
            row(1, Some(FIND), Some("call_nw1"), Some("ok")),
            row(1, Some(FIND), Some("call_qc1"), Some("ok")),
        ]
    );

    // A request that continues a stored response: nothing to decide, the
    // outputs kept with the response they answer.
    let (_d, db) = setup();
    import(
        &db,
        &[rec("responses/quarry.2.request.json").to_str().unwrap()],
    );
    let ids = run_ids(&db);
    assert_eq!(rows(&db, &ids[0]), vec![]);
    let extra = run_extra(&db, &ids[0]);
    assert_eq!(extra["previous_response_id"], "resp_qc_1");
    assert_eq!(
        extra["previous_outputs"],
        json!([{"type": "function_call_output", "call_id": "call_qc_find", "output": "{\"customer_id\": \"cus_8Qc2\", \"invoices\": [{\"invoice_id\": \"in_8101\", \"amount\": 18000}, {\"invoice_id\": \"in_8102\", \"amount\": 18000}]}"}])
    );

    // An index alone is no trace: a note, nothing imported.
    let (_d, db) = setup();
    let idx = rec("anthropic/index.json");
    let r = rung(&db, &["import", idx.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\nclassified 0 runs\nnote: {}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported\n",
            idx.display()
        )
    );
}

#[test]
fn bodies_are_read_within_max_line() {
    // Each body is parsed whole, so --max-line bounds what it may take,
    // paired or not: at 8 KB the second request (1,846 bytes, more once
    // parsed) is not paired but read on its own, which refuses it. The
    // first exchange alone pairs and is read before it.
    let (_d, db) = setup();
    let dir = rec("chat");
    let r = rung(
        &db,
        &[
            "import",
            "--max-line",
            "8KB",
            "--format",
            "openai",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{}:1: the JSON would take more than 8 KB of memory once parsed (by column 1160; --max-line bounds it): too many values in one record; split it, or raise --max-line",
            dir.join("brightdesk-cancel.2.request.json").display()
        )
    );
    assert!(!db.exists(), "a failed first import left a database");
    // With the default limit the same folder is one conversation.
    let err = import(&db, &["--format", "openai", dir.to_str().unwrap()]);
    assert!(err.contains("as 1 conversation"), "{err}");
}

#[test]
fn a_part_that_cannot_be_mapped_names_its_own_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        rec("chat/brightdesk-cancel.1.request.json"),
        tmp.path().join("t.1.request.json"),
    )
    .unwrap();
    let resp = tmp.path().join("t.1.response.json");
    std::fs::write(
        &resp,
        "{\n  \"id\": \"chatcmpl-cut\",\n  \"object\": \"chat.completion\",\n  \"choices\": [\n    {\"message\": {\"role\": \"assistant\", \"tool_calls\": [\n      {\"id\": \"call_1\", \"type\": \"function\", \"function\": {\"name\": \"find_customer\", \"arguments\": \"{\\\"name_or_email\\\": \"}}\n    ]}}\n  ]\n}\n",
    )
    .unwrap();
    let (_d, db) = setup();
    let r = rung(
        &db,
        &["import", "--format", "openai", tmp.path().to_str().unwrap()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{}:5: run chatcmpl-cut: dropped the arguments of call \"call_1\" to \"find_customer\": not JSON (EOF while parsing a value at line 1 column 18); kept as text in \"arguments_text\" (--keep-going imports the rest and lists each part it dropped)",
            resp.display()
        )
    );
    assert!(!db.exists(), "a failed first import left a database");
    let k = rung(
        &db,
        &[
            "import",
            "--keep-going",
            "--format",
            "openai",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(k.code, 0, "{}", k.stderr);
    assert!(
        k.stderr
            .contains(&format!("dropped: {}:5: run chatcmpl-cut:", resp.display()))
    );
    assert_eq!(
        rows(&db, "chatcmpl-cut"),
        vec![row(1, Some(FIND), Some("call_1"), None)]
    );
}

// --- The shared recordings (../shared/real-traces) -------------------------

const REC: &str = "provider-api-recordings";

fn shared(rel: &str) -> String {
    shared_trace(&format!("{REC}/{rel}")).display().to_string()
}

/// Decisions read off each file by hand, file alone.
fn by_file() -> Vec<(&'static str, Vec<Row>)> {
    let ok = Some("ok");
    vec![
        (
            "agent-framework-multiple-tools.openai-responses.1.request.json",
            vec![],
        ),
        (
            "agent-framework-multiple-tools.openai-responses.1.response.json",
            vec![
                row(
                    1,
                    Some("get_temperature"),
                    Some("call_J7YUFuqJu49gxvGhUKpb3qQL"),
                    None,
                ),
                row(
                    1,
                    Some("get_humidity"),
                    Some("call_bppU66GAgtTnCo1NPkNe3801"),
                    None,
                ),
            ],
        ),
        (
            "agent-framework-multiple-tools.openai-responses.2.request.json",
            vec![],
        ),
        (
            "agent-framework-multiple-tools.openai-responses.2.response.json",
            vec![row(1, None, None, None)],
        ),
        (
            "anthropic-multiple-tool-calling.anthropic.1.request.json",
            vec![],
        ),
        (
            "anthropic-multiple-tool-calling.anthropic.1.response.json",
            vec![
                row(
                    1,
                    Some("get_weather"),
                    Some("toolu_01VLL6XYAAGrtc7CDpmpKZMB"),
                    None,
                ),
                row(
                    1,
                    Some("get_time"),
                    Some("toolu_01FZuC4jLWM67hKreLMKCLRe"),
                    None,
                ),
            ],
        ),
        (
            "anthropic-tool-use-in-input.anthropic.1.request.json",
            vec![row(
                1,
                Some("get_weather"),
                Some("toolu_01KBqpqR73qWGsMaW3vBzEjz"),
                ok,
            )],
        ),
        (
            "anthropic-tool-use-in-input.anthropic.1.response.json",
            vec![row(1, None, None, None)],
        ),
        ("beeai-llm-with-tools.openai-chat.1.request.json", vec![]),
        (
            "beeai-llm-with-tools.openai-chat.1.response.json",
            vec![row(
                1,
                Some("OpenMeteoTool"),
                Some("call_l3hCeqcnWalcG3C9gI5t9p1w"),
                None,
            )],
        ),
        ("beeai-llm-with-tools.openai-chat.2.request.json", vec![]),
        ("crewai-agent-loop.openai-chat.1.request.json", vec![]),
        (
            "crewai-agent-loop.openai-chat.1.response.json",
            vec![row(
                1,
                Some("scrape_website"),
                Some("call_pcZThQvZkeEekECbVMxHosaU"),
                None,
            )],
        ),
        (
            "crewai-agent-loop.openai-chat.2.request.json",
            vec![row(
                1,
                Some("scrape_website"),
                Some("call_pcZThQvZkeEekECbVMxHosaU"),
                ok,
            )],
        ),
        (
            "crewai-agent-loop.openai-chat.2.response.json",
            vec![row(1, None, None, None)],
        ),
        ("crewai-agent-loop.openai-chat.3.request.json", vec![]),
        (
            "crewai-agent-loop.openai-chat.3.response.json",
            vec![row(1, None, None, None)],
        ),
        ("google-adk-multi-tool.gemini.1.request.json", vec![]),
        (
            "google-adk-multi-tool.gemini.1.response.json",
            vec![row(1, Some("get_weather"), None, None)],
        ),
        (
            "google-adk-multi-tool.gemini.2.request.json",
            vec![row(1, Some("get_weather"), None, ok)],
        ),
        (
            "google-adk-multi-tool.gemini.2.response.json",
            vec![row(1, Some("get_weather"), None, None)],
        ),
        (
            "google-adk-multi-tool.gemini.3.request.json",
            vec![
                row(1, Some("get_weather"), None, ok),
                row(2, Some("get_weather"), None, ok),
            ],
        ),
        (
            "google-adk-multi-tool.gemini.3.response.json",
            vec![row(1, None, None, None)],
        ),
        (
            "openai-tool-calls.openai-chat.1.request.json",
            vec![
                row(1, Some("get_weather"), Some("call_62136355"), ok),
                row(1, Some("get_population"), Some("call_62136356"), ok),
                row(2, None, None, None),
            ],
        ),
        (
            "openai-tool-calls.openai-chat.1.response.json",
            vec![
                row(
                    1,
                    Some("get_weather"),
                    Some("call_S1xa8vawU2HXSrvSeUcqSCZm"),
                    None,
                ),
                row(
                    1,
                    Some("get_population"),
                    Some("call_ZfEORmbRGEJZ4b7dAuVSPnaf"),
                    None,
                ),
            ],
        ),
        ("smolagents-tool-calling.openai-chat.1.request.json", vec![]),
        (
            "smolagents-tool-calling.openai-chat.1.response.json",
            vec![row(
                1,
                Some("final_answer"),
                Some("call_UemzWkeWxboyk7wCbBNRfUZp"),
                None,
            )],
        ),
    ]
}

#[test]
#[ignore = "needs ../shared"]
fn shared_recordings_each_file_alone() {
    let table = by_file();
    // The table covers every JSON body of the folder.
    let dir = shared_trace(REC);
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = table.iter().map(|(f, _)| *f).collect();
    assert_eq!(on_disk, listed);
    for (file, want) in table {
        let (_d, db) = setup();
        import(&db, &["--format", "auto", &shared(file)]);
        let ids = run_ids(&db);
        assert_eq!(ids.len(), 1, "{file}: {ids:?}");
        assert_eq!(rows(&db, &ids[0]), want, "{file}");
    }
    // The streamed response of beeai's second exchange was recorded empty:
    // it imports, holding nothing.
    let (_d, db) = setup();
    let err = import(
        &db,
        &[
            "--format",
            "auto",
            &shared("beeai-llm-with-tools.openai-chat.2.response.txt"),
        ],
    );
    assert!(
        err.starts_with("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n"),
        "{err}"
    );
    // The index is no trace: skipped with a note.
    let (_d, db) = setup();
    let err = import(&db, &["--format", "auto", &shared("index.json")]);
    assert!(err.contains(&format!(
        "note: {}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported",
        shared("index.json")
    )));
    assert_eq!(run_ids(&db), Vec::<String>::new());
}

/// The conversations of the folder, read off the files by hand: the
/// exchanges index.json lists, chained where a request holds the earlier
/// request and response (crewai's third exchange is another agent's
/// conversation; beeai's second request repeats its first, whose answer it
/// does not hold).
fn conversations() -> Vec<(&'static str, Vec<Row>)> {
    let ok = Some("ok");
    vec![
        (
            "chatcmpl-CoC8iBQCAZ4oQmm3uAGgg8etOGtHL",
            vec![row(
                1,
                Some("OpenMeteoTool"),
                Some("call_l3hCeqcnWalcG3C9gI5t9p1w"),
                None,
            )],
        ),
        (
            "chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda",
            vec![
                row(1, Some("get_weather"), Some("call_62136355"), ok),
                row(1, Some("get_population"), Some("call_62136356"), ok),
                row(2, None, None, None),
                row(
                    3,
                    Some("get_weather"),
                    Some("call_S1xa8vawU2HXSrvSeUcqSCZm"),
                    None,
                ),
                row(
                    3,
                    Some("get_population"),
                    Some("call_ZfEORmbRGEJZ4b7dAuVSPnaf"),
                    None,
                ),
            ],
        ),
        (
            "chatcmpl-DFqnW33WNGeP23OIyWAVD8bOVGy72",
            vec![
                row(
                    1,
                    Some("scrape_website"),
                    Some("call_pcZThQvZkeEekECbVMxHosaU"),
                    ok,
                ),
                row(2, None, None, None),
            ],
        ),
        (
            "chatcmpl-DFqnXjD7cQvS2DQQUKg9uZzVCnJU6",
            vec![row(1, None, None, None)],
        ),
        (
            "chatcmpl-DVJPdiwp16bKXEYMV5LTiliNkq9Rf",
            vec![row(
                1,
                Some("final_answer"),
                Some("call_UemzWkeWxboyk7wCbBNRfUZp"),
                None,
            )],
        ),
        (
            "gemini-znShafjoAvD41e8P2bm7YA",
            vec![
                row(1, Some("get_weather"), None, ok),
                row(2, Some("get_weather"), None, ok),
                row(3, None, None, None),
            ],
        ),
        (
            "msg_011geMdd2NTwJrvqbfqskQ7r",
            vec![
                row(
                    1,
                    Some("get_weather"),
                    Some("toolu_01VLL6XYAAGrtc7CDpmpKZMB"),
                    None,
                ),
                row(
                    1,
                    Some("get_time"),
                    Some("toolu_01FZuC4jLWM67hKreLMKCLRe"),
                    None,
                ),
            ],
        ),
        (
            "msg_013r8xmbHsaDMebw7MeyGvhH",
            vec![
                row(
                    1,
                    Some("get_weather"),
                    Some("toolu_01KBqpqR73qWGsMaW3vBzEjz"),
                    ok,
                ),
                row(2, None, None, None),
            ],
        ),
        (
            "resp_0401f348de3b68550069d6f97bea1081a2b6482c17b3205c9a",
            vec![
                row(
                    1,
                    Some("get_temperature"),
                    Some("call_J7YUFuqJu49gxvGhUKpb3qQL"),
                    ok,
                ),
                row(
                    1,
                    Some("get_humidity"),
                    Some("call_bppU66GAgtTnCo1NPkNe3801"),
                    ok,
                ),
                row(2, None, None, None),
            ],
        ),
    ]
}

/// Every file of the folder (what `rung import DIR/*.json DIR/*.txt`
/// names), and the transcripts in assembled/ when `assembled`.
fn folder_files(assembled: bool) -> Vec<String> {
    let dir = shared_trace(REC);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.to_str().unwrap().ends_with(".md"))
        .map(|p| p.display().to_string())
        .collect();
    if assembled {
        names.extend(
            std::fs::read_dir(dir.join("assembled"))
                .unwrap()
                .map(|e| e.unwrap().path().display().to_string())
                .filter(|p| p.ends_with(".json")),
        );
    }
    names.sort();
    names
}

fn assert_conversations(db: &Path) {
    let want = conversations();
    let ids = run_ids(db);
    // Beside the conversations, beeai's repeated request alone.
    let lone: Vec<&String> = ids.iter().filter(|i| i.starts_with("openai-")).collect();
    assert_eq!(lone.len(), 1, "{ids:?}");
    assert_eq!(rows(db, lone[0]), vec![]);
    let mut named: Vec<&str> = ids
        .iter()
        .filter(|i| !i.starts_with("openai-"))
        .map(String::as_str)
        .collect();
    named.sort();
    assert_eq!(named, want.iter().map(|w| w.0).collect::<Vec<_>>());
    for (run, rows_want) in want {
        assert_eq!(rows(db, run), rows_want, "{run}");
    }
}

#[test]
#[ignore = "needs ../shared"]
fn shared_recordings_as_a_folder() {
    let names = folder_files(false);
    assert_eq!(names.len(), 29);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    let (_d, db) = setup();
    let err = import(&db, &args);
    assert!(
        err.contains("imported 0 catalogues, 10 runs, 20 decisions, 0 cases from 29 files"),
        "{err}"
    );
    assert!(err.contains(
        "note: read 26 recorded request and response bodies as 9 conversations, one run each"
    ));
    assert_conversations(&db);
    // Results come from the next request, in the file that sent them.
    let d = stored(
        &db,
        "resp_0401f348de3b68550069d6f97bea1081a2b6482c17b3205c9a",
    );
    assert_eq!(
        (d[0].result.clone(), d[1].result.clone()),
        (Some(json!("72°F")), Some(json!("65%")))
    );
    assert_eq!(
        d[0].source,
        format!(
            "{}:19",
            shared("agent-framework-multiple-tools.openai-responses.1.response.json")
        )
    );
    let d = stored(&db, "gemini-znShafjoAvD41e8P2bm7YA");
    assert_eq!(d[1].arguments, Some(json!({"city": "London"})));
    assert_eq!(
        d[1].source,
        format!(
            "{}:3",
            shared("google-adk-multi-tool.gemini.2.response.json")
        )
    );
    let d = stored(&db, "chatcmpl-DFqnW33WNGeP23OIyWAVD8bOVGy72");
    assert_eq!(
        d[0].result,
        Some(json!(
            "\"The world as we have created it is a process of our thinking. It cannot be changed without changing our thinking.\" by Albert Einstein"
        ))
    );

    // The assembled transcripts hold nothing the bodies do not: the same
    // runs, record for record.
    let with = folder_files(true);
    assert_eq!(with.len(), 35);
    let args: Vec<&str> = with.iter().map(String::as_str).collect();
    let again = import(&db, &args);
    assert!(
        again.contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 35 files"),
        "{again}"
    );
    let (_d2, db2) = setup();
    import(&db2, &args);
    assert_conversations(&db2);
}

#[test]
#[ignore = "needs ../shared"]
fn shared_recordings_folder_with_a_named_format() {
    // --format openai reads every .json of the folder (assembled/ too):
    // the chat conversations pair; the other APIs' bodies are not OpenAI
    // chat and are skipped with --keep-going.
    let (_d, db) = setup();
    let dir = shared_trace(REC);
    let r = rung(
        &db,
        &[
            "import",
            "--keep-going",
            "--format",
            "openai",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("skipped 16 bad records"), "{}", r.stderr);
    assert!(r.stderr.contains(
        "note: read 16 recorded request and response bodies as 5 conversations, one run each"
    ));
    let want: Vec<(&str, Vec<Row>)> = conversations()
        .into_iter()
        .filter(|(id, _)| id.starts_with("chatcmpl-"))
        .collect();
    let ids = run_ids(&db);
    assert_eq!(ids.len(), want.len() + 1, "{ids:?}");
    for (run, rows_want) in want {
        assert_eq!(rows(&db, run), rows_want, "{run}");
    }
}
