//! How agent frameworks write GenAI spans, on small fixtures: messages as
//! span events (before semantic conventions 1.37), list-valued call ids and
//! ids only the tool span has, two agent runs in one trace, output messages
//! that are not JSON (counted, not fatal), Koog's one completion per call,
//! Agno's answer in output.value; and a Langfuse export mixing Langfuse
//! SDK observations with OpenTelemetry ones.

mod import_util;

use import_util::*;
use serde_json::json;

fn row(d: &Stored) -> (i64, Option<i64>, Option<&str>, Option<&str>, Option<&str>) {
    (
        d.step,
        d.turn,
        d.selected.as_deref(),
        d.call_id.as_deref(),
        d.status.as_deref(),
    )
}

#[test]
fn otlp_framework_shapes() {
    let (_dir, db) = setup();
    let f = fixture("otlp-frameworks.json");
    let r = rung(&db, &["-v", "import", &f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Seven traces; the one whose output is not JSON is a run with no
    // decision, and says why once.
    assert!(
        r.stderr
            .contains("imported 0 catalogues, 7 runs, 9 decisions"),
        "{}",
        r.stderr
    );
    let dropped: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("dropped: "))
        .collect();
    assert_eq!(
        dropped,
        vec![format!(
            "dropped: {f}:344: run d0000000000000000000000000000004 (span d000000000000001): dropped part of an inference span: gen_ai.output.messages is not a JSON list, so what the model answered could not be read"
        )]
    );

    // Messages as span events: the call from gen_ai.choice, its result
    // from the next turn's gen_ai.tool.message, the answer from a choice
    // whose fields are attributes (Koog), the goal from gen_ai.user.message.
    let a = stored(&db, "a0000000000000000000000000000001");
    assert_eq!(
        a.iter().map(row).collect::<Vec<_>>(),
        vec![
            (
                1,
                Some(1),
                Some("lookup_order"),
                Some("call_e1"),
                Some("ok")
            ),
            (2, Some(2), None, None, None),
        ]
    );
    assert_eq!(a[0].arguments, Some(json!({"order_id": "A-1"})));
    assert_eq!(a[0].result, Some(json!("shipped")));
    assert_eq!(a[1].extra.as_ref().unwrap()["text"], "A-1 has shipped.");
    let goal: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT goal FROM runs WHERE run_id = 'a0000000000000000000000000000001'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(goal, "Where is A-1?");

    // A list-valued id is its last item; a call with no id takes its tool
    // span's.
    let b = stored(&db, "b0000000000000000000000000000002");
    assert_eq!(
        b.iter().map(row).collect::<Vec<_>>(),
        vec![
            (
                1,
                Some(1),
                Some("lookup_order"),
                Some("call_b1"),
                Some("ok")
            ),
            (2, Some(1), Some("refund_order"), Some("adk-7"), Some("ok")),
        ]
    );
    assert_eq!(
        (b[0].result.clone(), b[1].result.clone()),
        (Some(json!("delivered")), Some(json!("refunded")))
    );

    // Two invoke_agent spans under one root: two runs, TRACE-SPAN.
    let c = "c0000000000000000000000000000003";
    let triage = stored(&db, &format!("{c}-c000000000000002"));
    assert_eq!(
        triage.iter().map(row).collect::<Vec<_>>(),
        vec![(1, Some(1), Some("route"), Some("call_c1"), None)]
    );
    let billing = stored(&db, &format!("{c}-c000000000000004"));
    assert_eq!(
        billing.iter().map(row).collect::<Vec<_>>(),
        vec![(1, Some(1), None, None, None)]
    );
    assert_eq!(
        run_extra(&db, &format!("{c}-c000000000000004"))["agent_span_id"],
        "c000000000000004"
    );
    assert!(stored(&db, c).is_empty());

    // Koog: two completions, one call each, are one turn's two calls.
    let e = stored(&db, "e0000000000000000000000000000005");
    assert_eq!(
        e.iter().map(row).collect::<Vec<_>>(),
        vec![
            (1, Some(1), Some("HelloTool"), Some("call_k1"), None),
            (2, Some(1), Some("ByeTool"), Some("call_k2"), None),
        ]
    );
    assert_eq!(e[1].arguments, Some(json!({"name": "Bob"})));

    // Agno: the chat completion in output.value.
    let f_ = stored(&db, "f0000000000000000000000000000006");
    assert_eq!(
        f_.iter().map(row).collect::<Vec<_>>(),
        vec![(1, Some(1), Some("search"), Some("call_f1"), None)]
    );
    assert_eq!(f_[0].arguments, Some(json!({"q": "trends"})));
}

#[test]
fn langfuse_export_with_sdk_and_otel_observations() {
    let (_dir, db) = setup();
    let f = fixture("langfuse-mini.json");
    let s = import(&db, &[&f]);
    assert!(s.contains("1 run, 2 decisions"), "{s}");
    assert!(!s.contains("dropped"), "{s}");
    // The trace id is lower-cased like OTLP ids.
    let d = stored(&db, "lf-1");
    // o2 (SDK generation) calls search_kb; o3 (SDK tool, level ERROR)
    // answers it; o4 (OpenTelemetry chat, messages moved to input/output)
    // answers in text; o5, inside o4, is the same call again.
    assert_eq!(
        d.iter().map(row).collect::<Vec<_>>(),
        vec![
            (1, Some(1), Some("search_kb"), Some("c1"), Some("error")),
            (2, Some(2), None, None, None),
        ]
    );
    assert_eq!(
        d[0].outcome,
        Some(json!({"status": "error", "stage": "execution", "message": "index offline"}))
    );
    assert_eq!(d[0].arguments, Some(json!({"query": "late"})));
    assert_eq!(d[1].visible, Some(json!(["search_kb"])));
    assert_eq!(
        d[1].extra.as_ref().unwrap()["text"],
        "The search is down; try again later."
    );
    let extra = run_extra(&db, "lf-1");
    assert_eq!(extra["imported_from"], "langfuse");
    assert_eq!(extra["service_name"], "support-agent");
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["model"], "gpt-4o");
    // Named, the format reads the same file.
    let (_dir, db) = setup();
    import(&db, &["--format", "langfuse", &f]);
    assert_eq!(stored(&db, "lf-1").len(), 2);
}
