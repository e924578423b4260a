//! Recorded HTTP bodies (VCR cassettes turned into files): each request and
//! response of a provider API in a file of its own. Alone, each imports;
//! together, the bodies of one conversation make one run. The fixtures in
//! tests/fixtures/recordings were written for these tests (Brightdesk's
//! billing assistant), one folder per API, each paired a different way:
//! chat by file names, Anthropic by a recordings index named on the
//! command line (cassettes.json, in index.json's form), Responses by
//! previous_response_id and by content, Gemini by content alone.

#[path = "../import_util/mod.rs"]
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

mod cases;
