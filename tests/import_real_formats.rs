//! The new importers on the public samples in ../shared/real-traces:
//! OpenAI Responses and Gemini recordings, Inspect AI logs, mini-swe-agent
//! message lists and SWE-agent text-protocol trajectories. Each file is
//! imported alone with `--format auto` and its decisions are compared with
//! the (selected tool, call id, status) read off the file by hand. These
//! tests need ../shared and fail when it is absent.

mod import_util;

use import_util::*;
use serde_json::{Value, json};

type Row = (Option<String>, Option<String>, Option<String>);

/// (selected, call id, status) of each decision of the only run imported.
fn rows(db: &std::path::Path) -> (String, Vec<Row>) {
    let ids = run_ids(db);
    assert_eq!(ids.len(), 1, "{ids:?}");
    let d = stored(db, &ids[0]);
    let r = d
        .into_iter()
        .map(|d| (d.selected, d.call_id, d.status))
        .collect();
    (ids[0].clone(), r)
}

fn row(selected: Option<&str>, call_id: Option<&str>, status: Option<&str>) -> Row {
    (
        selected.map(String::from),
        call_id.map(String::from),
        status.map(String::from),
    )
}

/// Imports one shared file alone (auto-detected); its run and decisions.
fn import_one(rel: &str) -> (tempfile::TempDir, std::path::PathBuf, String, Vec<Row>) {
    let path = shared_trace(rel);
    let (dir, db) = setup();
    import(&db, &[path.to_str().unwrap()]);
    let (run, r) = rows(&db);
    (dir, db, run, r)
}

const REC: &str = "provider-api-recordings/";

#[test]
#[ignore = "needs ../shared"]
fn openai_responses_recordings() {
    // Interaction 1: the request holds the system and user messages and
    // the menu; the response makes two parallel calls.
    let (_d, db, _, r) = import_one(&format!(
        "{REC}agent-framework-multiple-tools.openai-responses.1.request.json"
    ));
    assert_eq!(r, vec![]);
    assert_eq!(
        report(&db, "runs")["runs"][0]["model"],
        json!("gpt-4o-mini")
    );
    let (_d, db, run, r) = import_one(&format!(
        "{REC}agent-framework-multiple-tools.openai-responses.1.response.json"
    ));
    assert_eq!(
        run,
        "resp_0401f348de3b68550069d6f97bea1081a2b6482c17b3205c9a"
    );
    assert_eq!(
        r,
        vec![
            row(
                Some("get_temperature"),
                Some("call_J7YUFuqJu49gxvGhUKpb3qQL"),
                None
            ),
            row(
                Some("get_humidity"),
                Some("call_bppU66GAgtTnCo1NPkNe3801"),
                None
            ),
        ]
    );
    let d = stored(&db, &run);
    assert_eq!((d[0].turn, d[1].turn), (Some(1), Some(1)));
    assert_eq!(
        d[0].visible,
        Some(json!([
            "get_temperature",
            "get_humidity",
            "calculate_heat_index"
        ]))
    );
    assert_eq!(d[0].arguments, Some(json!({"location": "San Francisco"})));

    // Interaction 2: the request only answers the calls of response 1
    // (chained by previous_response_id). Alone it still imports: no
    // decision, the two outputs kept on the run with the response they
    // answer (the folder test pairs them).
    let (_d, db, run, r) = import_one(&format!(
        "{REC}agent-framework-multiple-tools.openai-responses.2.request.json"
    ));
    assert_eq!(r, vec![]);
    let extra = run_extra(&db, &run);
    assert_eq!(
        extra["previous_response_id"],
        "resp_0401f348de3b68550069d6f97bea1081a2b6482c17b3205c9a"
    );
    assert_eq!(
        extra["previous_outputs"],
        json!([
            {"call_id": "call_J7YUFuqJu49gxvGhUKpb3qQL", "type": "function_call_output", "output": "72°F"},
            {"call_id": "call_bppU66GAgtTnCo1NPkNe3801", "type": "function_call_output", "output": "65%"}
        ])
    );

    let (_d, db, run, r) = import_one(&format!(
        "{REC}agent-framework-multiple-tools.openai-responses.2.response.json"
    ));
    assert_eq!(
        run,
        "resp_0401f348de3b68550069d6f97dda8081a2877f0915f49972cf"
    );
    assert_eq!(r, vec![row(None, None, None)]);
    assert_eq!(
        stored(&db, &run)[0].extra.as_ref().unwrap()["text"],
        "The weather in San Francisco is as follows:\n- **Temperature:** 72°F\n- **Humidity:** 65%"
    );
}

#[test]
#[ignore = "needs ../shared"]
fn gemini_recordings() {
    let name = |n: usize, what: &str| format!("{REC}google-adk-multi-tool.gemini.{n}.{what}.json");
    let weather = Some("get_weather");
    // Request n holds the conversation so far; response n the next turn.
    let expected: [(usize, &str, Vec<Row>); 6] = [
        (1, "request", vec![]),
        (1, "response", vec![row(weather, None, None)]),
        (2, "request", vec![row(weather, None, Some("ok"))]),
        (2, "response", vec![row(weather, None, None)]),
        (
            3,
            "request",
            vec![
                row(weather, None, Some("ok")),
                row(weather, None, Some("ok")),
            ],
        ),
        (3, "response", vec![row(None, None, None)]),
    ];
    for (n, what, want) in expected {
        let (_d, db, run, r) = import_one(&name(n, what));
        assert_eq!(r, want, "{n} {what}");
        let d = stored(&db, &run);
        if what == "request" {
            assert!(d.iter().all(|d| d.visible == Some(json!(["get_weather"]))));
        }
        if (n, what) == (3, "request") {
            assert_eq!(d[0].arguments, Some(json!({"city": "New York"})));
            assert_eq!(d[1].arguments, Some(json!({"city": "London"})));
            assert_eq!(
                d[1].result,
                Some(
                    json!({"status": "success", "report": "The weather in London is sunny with a temperature of 25 degrees Celsius (77 degrees Fahrenheit)."})
                )
            );
            assert_eq!((d[0].turn, d[1].turn), (Some(1), Some(2)));
        }
        if (n, what) == (1, "response") {
            assert_eq!(run, "gemini-znShafjoAvD41e8P2bm7YA");
            assert_eq!(report(&db, "runs")["runs"][0]["model"], "gemini-2.5-flash");
        }
    }
}

#[test]
#[ignore = "needs ../shared"]
fn inspect_tool_call_errors() {
    let (_d, db, run, r) = import_one("inspect-ai-logs/log_tool_call_error.json");
    // The sample keeps only its tool messages: each names its call and its
    // typed error, read here off the file in order.
    let types = [
        "parsing",
        "timeout",
        "parsing",
        "unicode_decode",
        "permission",
        "file_not_found",
        "is_a_directory",
        "limit",
        "approval",
        "unknown",
        "output_limit",
    ];
    let want: Vec<Row> = (1..=11)
        .map(|i| {
            (
                Some("bash".to_string()),
                Some(format!("bash_{i}")),
                Some("error".to_string()),
            )
        })
        .collect();
    assert_eq!(r, want);
    assert_eq!(run, ".../1/4");
    let d = stored(&db, &run);
    let stages: Vec<&str> = d.iter().map(|d| d.stage.as_deref().unwrap()).collect();
    assert_eq!(
        stages,
        vec![
            "representation",
            "execution",
            "representation",
            "execution",
            "authorization",
            "semantics",
            "semantics",
            "execution",
            "authorization",
            "execution",
            "execution"
        ]
    );
    for (d, ty) in d.iter().zip(types) {
        assert_eq!(d.outcome.as_ref().unwrap()["reason"], ty);
        assert_eq!(
            d.extra.as_ref().unwrap()["reconstructed_from"],
            "tool message"
        );
    }
    assert_eq!(
        d[10].outcome.as_ref().unwrap()["message"],
        "The tool output limit of 10 MiB was exceeded."
    );
    let runs = report(&db, "runs");
    assert_eq!(
        (&runs["runs"][0]["task_id"], &runs["runs"][0]["trial"]),
        (&json!(".../1"), &json!(4))
    );
}

#[test]
#[ignore = "needs ../shared"]
fn inspect_images_log_and_zipped_eval() {
    // An older log: events under transcript; one model turn, a text answer.
    let (_d, db, run, r) = import_one("inspect-ai-logs/log_images_tc.json");
    assert_eq!(run, "eP76sDSGXBLXKc45qUhWuo/1/1");
    assert_eq!(r, vec![row(None, None, None)]);
    assert_eq!(stored(&db, &run)[0].visible, Some(json!([])));
    let runs = report(&db, "runs");
    // score "I" (incorrect); the target is kept, not made a label.
    assert_eq!(runs["runs"][0]["success"], false);
    assert_eq!(
        run_extra(&db, &run)["inspect_target"],
        json!(["bike", "bicycle"])
    );
    assert_eq!(report(&db, "ladder")["labelled"], 0);

    // The zipped .eval: header.json and samples/1_epoch_1.json.
    let (_d, db, run, r) = import_one("inspect-ai-logs/log_read_sample.eval");
    assert_eq!(run, "C3pqnFnsCUx6ZpmsRU9Ape/1/1");
    assert_eq!(r, vec![row(None, None, None)]);
    let d = stored(&db, &run);
    assert!(
        d[0].source
            .ends_with("log_read_sample.eval/samples/1_epoch_1.json:186"),
        "{}",
        d[0].source
    );
    let runs = report(&db, "runs");
    let r0 = &runs["runs"][0];
    assert_eq!(
        (&r0["task_id"], &r0["trial"], &r0["success"], &r0["model"]),
        (
            &json!("popularity/1"),
            &json!(1),
            &json!(true),
            &json!("ollama/gemma3")
        )
    );
    assert_eq!(d[0].extra.as_ref().unwrap()["text"], "Yes\n");
}

#[test]
#[ignore = "needs ../shared"]
fn mini_swe_agent_message_lists() {
    // github_issue: 10 commands; the observations of the 1st and 8th say
    // <returncode>1</returncode>.
    let (_d, db, run, r) = import_one("mini-swe-agent/github_issue.traj.json");
    let mut want: Vec<Row> = (0..10)
        .map(|_| row(Some("bash"), None, Some("ok")))
        .collect();
    want[0].2 = Some("error".into());
    want[7].2 = Some("error".into());
    assert_eq!(r, want);
    let d = stored(&db, &run);
    assert_eq!(d[1].arguments, Some(json!({"command": "ls -la"})));
    assert_eq!(
        d[0].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "exit status 1"}))
    );
    assert!(
        report(&db, "runs")["runs"][0]["run_id"]
            .as_str()
            .unwrap()
            .starts_with("messages-")
    );

    let (_d, _db, _, r) = import_one("mini-swe-agent/local.traj.json");
    assert_eq!(
        r,
        vec![
            row(Some("bash"), None, Some("ok")),
            row(Some("bash"), None, Some("ok"))
        ]
    );
}

/// Expands "bash*3 open" into a list of names.
fn names(spec: &str) -> Vec<String> {
    spec.split_whitespace()
        .flat_map(|w| match w.split_once('*') {
            Some((n, k)) => vec![n.to_string(); k.parse().unwrap()],
            None => vec![w.to_string()],
        })
        .collect()
}

#[test]
#[ignore = "needs ../shared"]
fn swe_agent_text_actions_and_function_calls() {
    // Read off each history by hand: the command each action names (a
    // shell command is `bash`); a history that ends on the assistant leaves
    // its last action (submit) unanswered.
    let text_protocol = [
        (
            "ctf-crypto-BabyEncryption.demo.traj",
            "open create edit bash edit bash open edit open edit edit bash edit bash submit",
        ),
        (
            "ctf-web-i_got_id.demo.traj",
            "bash*7 create edit bash*11 submit",
        ),
        (
            "gpt4.test-repo-i1.testdata.traj",
            "find_file open edit bash submit",
        ),
        (
            "humanevalfix-python-0.human_thought.demo.traj",
            "bash open edit bash submit",
        ),
        (
            "marshmallow-1867.xml_window100.demo.traj",
            "create edit bash bash find_file open edit edit bash bash submit",
        ),
    ];
    let mut text_actions = 0;
    for (file, spec) in text_protocol {
        let (_d, _db, _, r) = import_one(&format!("swe-agent-more/{file}"));
        let n = names(spec);
        text_actions += n.len();
        let want: Vec<Row> = n
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let last = i + 1 == n.len();
                row(Some(s), None, (!last).then_some("ok"))
            })
            .collect();
        assert_eq!(r, want, "{file}");
    }
    assert_eq!(text_actions, 57);

    let calls = [
        (
            "gpt4.test-repo-1c2844.testdata.traj",
            vec![
                ("find_file", "call_fJuazlMUN5fQDQ73G6XSpYpx"),
                ("open", "call_OhmPHGZp0XJ6JRnNkQaYcBMs"),
                ("edit", "call_DVnbJcFrvwPsrPt3KfIMf7OH"),
                ("bash", "call_dcF76aXH6e1pzqRwGxOwpuxb"),
            ],
        ),
        (
            "marshmallow-1867.function_calling.demo.traj",
            vec![
                ("create", "call_cyI71DYnRdoLHWwtZgIaW2wr"),
                ("edit", "call_q3VsBszvsntfyPkxeHq4i5N1"),
                ("bash", "call_5iDdbOYybq7L19vqXmR0DPaU"),
                ("bash", "call_5iDdbOYybq7L19vqXmR0DPaU"),
                ("find_file", "call_ahToD2vM0aQWJPkRmy5cumru"),
                ("open", "call_ahToD2vM0aQWJPkRmy5cumru"),
                ("edit", "call_q3VsBszvsntfyPkxeHq4i5N1"),
                ("edit", "call_w3V11DzvRdoLHWwtZgIaW2wr"),
                ("bash", "call_5iDdbOYybq7L19vqXmR0DPaU"),
                ("bash", "call_5iDdbOYybq7L19vqXmR0DPaU"),
                ("submit", "call_submit"),
            ],
        ),
    ];
    let mut function_calls = 0;
    for (file, want) in calls {
        let (_d, _db, _, r) = import_one(&format!("swe-agent-more/{file}"));
        function_calls += want.len();
        let want: Vec<Row> = want
            .iter()
            .map(|(s, id)| row(Some(s), Some(id), Some("ok")))
            .collect();
        assert_eq!(r, want, "{file}");
    }
    assert_eq!(text_actions + function_calls, 72);
}

#[test]
#[ignore = "needs ../shared"]
fn swe_agent_text_action_arguments_follow_the_signature() {
    let (_d, db, run, _) = import_one("swe-agent-more/ctf-crypto-BabyEncryption.demo.traj");
    let d = stored(&db, &run);
    assert_eq!(d[0].arguments, Some(json!({"path": "chall.py"})));
    assert_eq!(d[1].arguments, Some(json!({"filename": "decrypt.py"})));
    assert_eq!(
        d[3].arguments,
        Some(json!({"command": "python decrypt.py"}))
    );
    assert_eq!(
        d[14].arguments,
        Some(json!({"flag": "HTB{l00k_47_y0u_r3v3rs1ng_3qu4710n5_c0ngr475}"}))
    );
    let edit = d[2].arguments.as_ref().unwrap();
    assert_eq!(
        (&edit["start_line"], &edit["end_line"]),
        (&json!("1"), &json!("1"))
    );
    assert!(
        edit["replacement_text"]
            .as_str()
            .unwrap()
            .starts_with("with open('msg.enc', 'rb') as f:\n")
    );
    // The observation is the result.
    assert!(
        d[3].result
            .as_ref()
            .and_then(Value::as_str)
            .unwrap()
            .starts_with("Traceback (most recent call last):")
    );
}
