//! The Langfuse framework exports in ../shared/real-traces (OpenAI Agents
//! SDK, Google ADK, Agno, Koog, OpenAI Assistants, pydantic-ai, Microsoft
//! Agent Framework) and the OTLP rebuilt from them: each imports with
//! `--format auto`, drops nothing, and stores exactly the decisions read off
//! the file by hand (noted beside each). The samples are not in the
//! repository: these tests need ../shared and fail when it is absent.

mod import_util;

use import_util::*;

/// A decision as a user checks it: run, step, turn, tool, call id, status.
type Row = (String, i64, i64, String, String, String);

fn shared(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-traces/langfuse-framework-traces")
        .join(rel);
    assert!(
        p.is_file(),
        "{} is missing: these tests need the shared real traces",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

/// Imports one file on a fresh database; returns its decisions.
fn decisions_of(path: &str) -> Vec<Row> {
    let (_dir, db) = setup();
    let summary = import(&db, &["-v", path]);
    assert!(!summary.contains("dropped"), "{path}: {summary}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut q = conn
        .prepare(
            "SELECT run_id, step, turn, coalesce(selected, '-'), coalesce(call_id, '-'),
                    coalesce(status, '-') FROM decisions ORDER BY run_id, step",
        )
        .unwrap();
    q.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn rows(run: &str, want: &[(i64, i64, &str, &str, &str)]) -> Vec<Row> {
    want.iter()
        .map(|(step, turn, sel, id, st)| {
            (
                run.to_string(),
                *step,
                *turn,
                sel.to_string(),
                id.to_string(),
                st.to_string(),
            )
        })
        .collect()
}

/// Both the Langfuse export and the OTLP rebuilt from it.
fn check_both(name: &str, want: &[Row]) {
    assert_eq!(
        decisions_of(&shared(&format!("{name}.json"))),
        want,
        "{name} (Langfuse)"
    );
    assert_eq!(
        decisions_of(&shared(&format!("otlp-reconstructed/{name}.otlp.json"))),
        want,
        "{name} (OTLP)"
    );
}

#[test]
#[ignore = "needs ../shared"]
fn koog_two_calls_written_as_two_completions() {
    // llm.chat 042f9350: gen_ai.completion.0 and .1 each hold one call
    // (HelloTool, ByeTool); tool.HelloTool / tool.ByeTool carry the ids and
    // results; llm.chat e44e72cf answers in text.
    check_both(
        "koog-2025-08-26",
        &rows(
            "dff173a675b759ce1b70e522b27d6846",
            &[
                (1, 1, "HelloTool", "call_n2HaWg9KFP0BZDqXv6G4b3nJ", "ok"),
                (2, 1, "ByeTool", "call_dOeEHJDI0liHrCdFWTpkTsuO", "ok"),
                (3, 2, "-", "-", "-"),
            ],
        ),
    );
}

#[test]
#[ignore = "needs ../shared"]
fn agno_calls_read_from_output_value() {
    // OpenAIChat.invoke ca136de4: output.value is a chat completion calling
    // duckduckgo_search; the tool span answers it; b38a82ea answers in
    // text. The nested "chat gpt-4o-mini" generations repeat the same calls.
    check_both(
        "agno-2025-06-11",
        &rows(
            "080130871f53145aecf7c29d5dfb6e4c",
            &[
                (
                    1,
                    1,
                    "duckduckgo_search",
                    "call_VybxG748CQId8Xxo6wb2pWy1",
                    "ok",
                ),
                (2, 2, "-", "-", "-"),
            ],
        ),
    );
}

#[test]
#[ignore = "needs ../shared"]
fn google_adk_call_id_from_the_tool_span() {
    // call_llm f6e4c652 calls say_hello with no id; execute_tool say_hello
    // 04290e4d carries gen_ai.tool.call.id adk-8bd8...; call_llm bded6778
    // answers in text.
    check_both(
        "google-adk-2025-08-28",
        &rows(
            "b82a0bdc1994fc5d1c8576ca032543f7",
            &[
                (
                    1,
                    1,
                    "say_hello",
                    "adk-8bd8dc65-717d-4102-858b-3a1dd6b75a00",
                    "ok",
                ),
                (2, 2, "-", "-", "-"),
            ],
        ),
    );
}

#[test]
#[ignore = "needs ../shared"]
fn microsoft_agent_list_valued_call_id() {
    // chat gpt-4o c6b8d4db calls get_weather with id
    // ["run_9guM...", "call_Sz1Q..."]; execute_tool 7f845be8 has the same
    // list; the second chat answers in text. The invoke_agent span's own
    // messages are not a turn.
    check_both(
        "microsoft-agent-2025-10-14",
        &rows(
            "e3a407423619277a2dcef3c13dc89982",
            &[
                (1, 1, "get_weather", "call_Sz1QP8T7fuJkIECGDLFWOorq", "ok"),
                (2, 2, "-", "-", "-"),
            ],
        ),
    );
}

#[test]
#[ignore = "needs ../shared"]
fn openai_agents_sdk() {
    // response 98870087 calls get_weather (call_Kud0...); the TOOL span
    // get_weather (no id) answers it by name; response 90d94774 answers in
    // text. "Hello world" is an AGENT inside the "Agent workflow" AGENT:
    // one run.
    check_both(
        "openai-agents-2025-09-30",
        &rows(
            "fee618f96dc31e0ca38b2f7b26eb8b29",
            &[
                (1, 1, "get_weather", "call_Kud0j0DxWSmLzv9W5m6qVqXn", "ok"),
                (2, 2, "-", "-", "-"),
            ],
        ),
    );
}

#[test]
#[ignore = "needs ../shared"]
fn pydantic_ai_three_agent_runs_with_function_tools_menus() {
    // Three "... run" spans under run_joke_generator: joke_agent 5b5c52d0
    // (three parallel calls answered by three tool spans, then text),
    // joke_agent 49ae06cb (text), evaluator_agent 227eb5c8 (final_result,
    // the output tool, answered by nothing in a later turn).
    let t = "7a38edd8123db47ad8dcb8aa4c5e3926";
    let mut want = rows(
        &format!("{t}-227eb5c856efa3d3"),
        &[(1, 1, "final_result", "call_ZuzwalMMtvv9BC6xlVe3fiBP", "-")],
    );
    want.extend(rows(
        &format!("{t}-49ae06cbfa06611f"),
        &[(1, 1, "-", "-", "-")],
    ));
    want.extend(rows(
        &format!("{t}-5b5c52d029f28206"),
        &[
            (
                1,
                1,
                "get_pun_suggestion",
                "call_X0OSgjUukT5inyEQvuZQnHrk",
                "ok",
            ),
            (
                2,
                1,
                "get_dad_joke_suggestion",
                "call_WxZcCvSDhGT4RJHlcU01k10x",
                "ok",
            ),
            (
                3,
                1,
                "get_one_liner_suggestion",
                "call_aRaObiWKKt6GzgDkkUl3bu1Q",
                "ok",
            ),
            (4, 2, "-", "-", "-"),
        ],
    ));
    check_both("pydantic-ai-tools-2025-12-04", &want);

    // The menus come from model_request_parameters: five function tools
    // for the joke agent, the output tool for the evaluator; no call is to
    // a tool the model was not shown.
    let (_dir, db) = setup();
    import(&db, &[&shared("pydantic-ai-tools-2025-12-04.json")]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let visible = |run: &str| -> String {
        conn.query_row(
            "SELECT visible FROM decisions WHERE run_id = ?1 AND step = 1",
            [run],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(
        visible(&format!("{t}-5b5c52d029f28206")),
        r#"["get_pun_suggestion","get_dad_joke_suggestion","get_one_liner_suggestion","get_car_joke_suggestion","get_tree_joke_suggestion"]"#
    );
    assert_eq!(
        visible(&format!("{t}-227eb5c856efa3d3")),
        r#"["final_result"]"#
    );
    assert_eq!(report(&db, "findings")["findings"], serde_json::json!([]));
}

#[test]
#[ignore = "needs ../shared"]
fn openai_assistants_through_langfuse_sdk() {
    // No OpenTelemetry attributes: the one GENERATION (0d8f5427) is the
    // turn, a text answer.
    assert_eq!(
        decisions_of(&shared("openai-assistants-2024-05-29.json")),
        rows(
            "b3b7b128-5664-4f42-9fab-31999da9e2f1",
            &[(1, 1, "-", "-", "-")]
        )
    );
}
