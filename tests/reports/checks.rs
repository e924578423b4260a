use super::*;

#[test]
fn refusals_with_filters() {
    let db = fixture();
    // m-small drops r3 (the previous outside_intent and one
    // insufficient_scope) and r4 (the undated one).
    let rows = json!([
        {"reason": "outside_intent", "stage": "authorization", "count": 2, "runs": 2, "previous": 0},
        {"reason": "\u{1b}[31megress_blocked\u{1b}[0m", "stage": "unclassified", "count": 1, "runs": 1, "previous": 0},
        {"reason": "awaiting_approval", "stage": "authorization", "count": 1, "runs": 1, "previous": 0},
        {"reason": "not_current_period", "stage": "semantics", "count": 1, "runs": 1, "previous": 0},
        {"reason": "insufficient_scope", "stage": "authorization", "count": 0, "runs": 0, "previous": 1}
    ]);
    let got = db.json(NOW, &["report", "refusals", "--model", "m-small"]);
    assert_json_eq(&got["rows"], &rows);
    assert_eq!(got["undated"], 0);
    // The weekly suite: r3 in the previous week, r4 undated.
    let got = db.json(NOW, &["report", "refusals", "--tag", "suite=weekly"]);
    assert_json_eq(
        &got["rows"],
        &json!([
            {"reason": "insufficient_scope", "stage": "authorization", "count": 0, "runs": 0, "previous": 1},
            {"reason": "outside_intent", "stage": "authorization", "count": 0, "runs": 0, "previous": 1}
        ]),
    );
    assert_eq!(got["undated"], 1);
    // Only the modify phase of run r6.
    let got = db.json(
        NOW,
        &["report", "refusals", "--run", "r6", "--phase", "modify"],
    );
    assert_json_eq(
        &got["rows"],
        &json!([
            {"reason": "awaiting_approval", "stage": "authorization", "count": 1, "runs": 1, "previous": 0},
            {"reason": "outside_intent", "stage": "authorization", "count": 1, "runs": 1, "previous": 0}
        ]),
    );
}

#[test]
fn tools_in_a_window() {
    let db = fixture();
    // [06-08, 06-15) on shop-1: r1 (4), r2 (3), r6 (3). Flat menus: r1/*,
    // r2/*, r6/3 = 8; then r6/1 and r6/2 as above. export_csv and ask_user
    // are never selected: the pruning queue.
    let want = json!({"tools": [
        tool("shop-1", "ask_user", "control", "none", [10, 0, 0, 0], json!({})),
        tool("shop-1", "cancel_order", "orders", "destructive", [8, 2, 1, 2],
             json!({"outside_intent": 1, "awaiting_approval": 1})),
        tool("shop-1", "export_csv", "reports", "read_only", [8, 0, 0, 0], json!({})),
        tool("shop-1", "find_order", "orders", "read_only", [9, 2, 0, 0], json!({})),
        tool("shop-1", "get_order", "orders", "read_only", [10, 1, 1, 0], json!({})),
        tool("shop-1", "no_applicable_tool", "control", "none", [10, 1, 0, 0], json!({})),
        tool("shop-1", "refund_order", "orders", "mutating", [9, 3, 0, 2],
             json!({"not_current_period": 1, "outside_intent": 1})),
        tool("shop-1", "send_email", "email", "mutating", [8, 1, 0, 1],
             json!({"\u{1b}[31megress_blocked\u{1b}[0m": 1})),
    ]});
    let args = ["report", "tools", "--catalogue", "shop-1", "--since", "7d"];
    assert_json_eq(&db.json(NOW, &args), &want);
    // A catalogue nobody used in the window: every tool in the queue.
    let got = db.json(
        NOW,
        &[
            "report",
            "tools",
            "--catalogue",
            "shop-2",
            "--until",
            "2026-06-08T00:00:00Z",
        ],
    );
    let never: Vec<bool> = got["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["never_selected"].as_bool().unwrap() && t["visible"] == 0)
        .collect();
    assert_eq!(never, [true; 4]);
}

#[test]
fn runs_with_filters() {
    let db = fixture();
    let ids = |v: &Value| -> Vec<String> {
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["run_id"].as_str().unwrap().to_string())
            .collect()
    };
    // Run-level filters keep whole runs.
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--model", "m-small"])),
        ["r1", "r2", "r5", "r6", "r7"]
    );
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--model", LARGE])),
        ["r3", "r4"]
    );
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--task", "refund-late"])),
        ["r1", "r2", "r7"]
    );
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--tag", "suite=weekly"])),
        ["r3", "r4"]
    );
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--run", "r6", "--run", "r2"])),
        ["r2", "r6"]
    );
    // A decision filter counts the matching decisions only and takes the
    // first failed rung among them: modify decisions are r1/3-4, r2/2-3,
    // r6/1-3 and r7/2.
    assert_json_eq(
        &db.json(NOW, &["report", "runs", "--phase", "modify"]),
        &json!({"runs": [
            run("r1", "refund-late", 0, "m-small", "shop-1", 2, Some("semantics"), true, Some(false)),
            run("r2", "refund-late", 1, "m-small", "shop-1", 2, Some("selection"), false, Some(true)),
            run("r6", "cancel-order", 0, "m-small", "shop-1", 3, Some("exposure"), false, Some(false)),
            run("r7", "refund-late", 2, "m-small", "shop-1", 1, Some("authorization"), false, Some(false)),
        ]}),
    );
    // A window leaves out r3, r7 (the week before) and r4 (no time).
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--since", "7d"])),
        ["r1", "r2", "r5", "r6"]
    );
    assert_eq!(
        ids(&db.json(NOW, &["report", "runs", "--catalogue", "shop-2"])),
        ["r5"]
    );
}

#[test]
fn filters_choose_decisions() {
    let db = fixture();
    let l = |args: &[&str]| {
        let mut a = vec!["report", "ladder"];
        a.extend(args);
        db.json(NOW, &a)
    };
    // The default week: r1 (4), r2 (3), r5 (1), r6 (3).
    let week = ladder(
        11,
        8,
        &[
            ("exposure", 1),
            ("discovery", 1),
            ("selection", 2),
            ("semantics", 1),
            ("unclassified", 1),
            ("progress", 1),
            ("unlabelled", 1),
            ("passed", 3),
        ],
    );
    for args in [
        &[
            "--since",
            "2026-06-08T00:00:00Z",
            "--until",
            "2026-06-15T00:00:00Z",
        ][..],
        &[
            "--since",
            "2026-06-08T02:00:00+02:00",
            "--until",
            "2026-06-14T20:00:00-04:00",
        ],
        &["--since", "7d"],
        &["--since", "168h"],
        &["--since", "1w", "--until", "0d"],
        &["--until", "2026-06-15T00:00:00Z"],
    ] {
        assert_json_eq(&l(args), &week);
    }
    // The week before: r3 and r7.
    let before = ladder(4, 4, &[("selection", 2), ("authorization", 2)]);
    assert_json_eq(&l(&["--until", "7d"]), &before);
    assert_json_eq(
        &l(&[
            "--since",
            "2026-06-01T00:00:00Z",
            "--until",
            "2026-06-08T00:00:00Z",
        ]),
        &before,
    );
    // From 06-11: r2, r5, r6.
    assert_json_eq(
        &l(&["--since", "4d"]),
        &ladder(
            7,
            6,
            &[
                ("exposure", 1),
                ("discovery", 1),
                ("selection", 1),
                ("unclassified", 1),
                ("passed", 3),
            ],
        ),
    );
    // Within one run, the window cuts between decisions: r1's 4 decisions
    // are at 09:00:00, :05, :10 and :15.
    assert_json_eq(
        &l(&[
            "--since",
            "2026-06-10T09:00:05Z",
            "--until",
            "2026-06-10T09:00:15Z",
        ]),
        &ladder(2, 1, &[("semantics", 1), ("unlabelled", 1)]),
    );
    // Run-level filters.
    let large = ladder(4, 4, &[("selection", 2), ("authorization", 2)]);
    assert_json_eq(&l(&["--model", LARGE]), &large);
    assert_json_eq(&l(&["--tag", "suite=weekly"]), &large);
    assert_json_eq(&l(&["--task", "where-is-my-order"]), &large);
    assert_json_eq(&l(&["--model", "m-small", "--model", LARGE]), &l(&[]));
    assert_json_eq(
        &l(&["--task", "refund-late"]),
        &ladder(
            9,
            6,
            &[
                ("selection", 3),
                ("semantics", 1),
                ("authorization", 1),
                ("unclassified", 1),
                ("progress", 1),
                ("unlabelled", 1),
                ("passed", 1),
            ],
        ),
    );
    assert_json_eq(
        &l(&["--tag", "suite=nightly", "--tag", "suite=weekly"]),
        &ladder(0, 0, &[]),
    );
    assert_json_eq(&l(&["--tag", "suite=nightly"])["decisions"], &json!(10));
    // Tags that exist, but never together.
    assert_json_eq(
        &l(&["--tag", "suite=nightly", "--tag", "suite=weekly"]),
        &ladder(0, 0, &[]),
    );
    assert_json_eq(
        &l(&["--run", "r6"]),
        &ladder(3, 3, &[("exposure", 1), ("discovery", 1), ("passed", 1)]),
    );
    // Decision-level filters.
    assert_json_eq(
        &l(&["--catalogue", "shop-2"]),
        &ladder(1, 1, &[("passed", 1)]),
    );
    assert_json_eq(
        &l(&["--phase", "modify"]),
        &ladder(
            8,
            6,
            &[
                ("exposure", 1),
                ("discovery", 1),
                ("selection", 1),
                ("semantics", 1),
                ("authorization", 1),
                ("unclassified", 1),
                ("progress", 1),
                ("passed", 1),
            ],
        ),
    );
    assert_json_eq(
        &l(&["--phase", "answer", "--phase", "discover"])["decisions"],
        &json!(9),
    );
    // Different flags must all hold: m-small's discover decisions are
    // r1/1, r1/2, r2/1, r7/1.
    assert_json_eq(
        &l(&["--model", "m-small", "--phase", "discover"]),
        &ladder(4, 3, &[("selection", 2), ("unlabelled", 1), ("passed", 1)]),
    );
}

#[test]
fn filter_usage_errors() {
    let db = fixture();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--since",
                "2026-06-10T00:00:00Z",
                "--until",
                "2026-06-10T00:00:00Z",
            ],
            "is not before",
        ),
        (
            &[
                "--since",
                "2026-06-11T00:00:00Z",
                "--until",
                "2026-06-10T00:00:00Z",
            ],
            "is not before",
        ),
        (&["--since", "1d", "--until", "2d"], "is not before"),
        (&["--since", "7x"], "--since \"7x\""),
        (&["--until", "2026-06-10"], "--until \"2026-06-10\""),
        (&["--since=-7d"], "--since \"-7d\""),
        (&["--tag", "suite"], "--tag \"suite\": use KEY=VALUE"),
    ];
    for (args, says) in cases {
        for kind in ["ladder", "refusals", "metrics"] {
            let mut a = vec!["report", kind];
            a.extend(*args);
            let r = db.run(NOW, &a);
            assert_eq!(r.code, 2, "{a:?}: {}", r.stderr);
            assert!(r.stderr.contains(*says), "{a:?}: {}", r.stderr);
            assert!(r.stdout.is_empty(), "{a:?}: {}", r.stdout);
        }
    }
    let r = db.run("yesterday", &["report", "refusals"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("RUNG_NOW"), "{}", r.stderr);
}

#[test]
fn every_format_of_every_kind_runs_and_table_is_the_default() {
    let db = fixture();
    for kind in [
        "ladder",
        "metrics",
        "refusals",
        "confusions",
        "tools",
        "runs",
        "findings",
    ] {
        let default = db.out(NOW, &["report", kind]);
        assert_eq!(
            default,
            db.out(NOW, &["report", kind, "--format", "table"]),
            "{kind}"
        );
        for line in default.lines() {
            assert!(
                line.chars().count() <= 80,
                "{kind}: a line wider than 80 columns:\n{line}"
            );
        }
        for format in ["markdown", "csv", "json"] {
            let out = db.out(NOW, &["report", kind, "--format", format]);
            assert!(
                !out.contains('\u{1b}'),
                "{kind} {format}: an escape reached the output"
            );
            assert!(out.ends_with('\n'), "{kind} {format}");
        }
    }
    let r = db.run(NOW, &["report", "ladder", "--format", "yaml"]);
    assert_eq!(r.code, 2);
}

#[test]
fn refusal_edges_reasons_stages_and_window_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("edges.jsonl");
    // One run started inside the week; its decisions sit on the window's
    // edges (since and prev-since inclusive, until exclusive) or take the
    // run's start when they record no time.
    let d = |step: u32, at: Option<&str>, outcome: &str| {
        let at = at.map(|t| format!(r#""at":"{t}","#)).unwrap_or_default();
        format!(
            r#"{{"type":"decision","run_id":"e1","step":{step},{at}"selected":"refund_order","outcome":{outcome}}}"#
        )
    };
    let lines = [
        r#"{"type":"catalogue","version":"shop-1","tools":[{"name":"refund_order","family":"orders","effect":"mutating","description":"Refund an order."}]}"#.to_string(),
        r#"{"type":"run","run_id":"e1","catalogue":"shop-1","started_at":"2026-06-09T00:00:00Z"}"#.to_string(),
        // No reason, no stage: unclassified, reason null.
        d(1, Some("2026-06-08T00:00:00Z"), r#"{"status":"refused"}"#),
        // The same reason under two stages (recorded vs inferred): two rows.
        d(2, None, r#"{"status":"refused","reason":"not_found","stage":"precondition"}"#),
        d(3, Some("2026-06-14T23:59:59Z"), r#"{"status":"refused","reason":"not_found"}"#),
        // On `until`: in neither window.
        d(4, Some("2026-06-15T00:00:00Z"), r#"{"status":"refused","reason":"not_found"}"#),
        // On the previous window's start, and just before it.
        d(5, Some("2026-06-01T00:00:00Z"), r#"{"status":"refused","reason":"not_found"}"#),
        d(6, Some("2026-05-31T23:59:59Z"), r#"{"status":"refused","reason":"not_found"}"#),
        // Not refused: not a refusal, whatever its reason.
        d(7, Some("2026-06-10T00:00:00Z"), r#"{"status":"error","reason":"timeout"}"#),
    ];
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let db = Db::import(&[&trace]);
    assert_json_eq(
        &db.json(NOW, &["report", "refusals"]),
        &json!({
            "window": {"since": "2026-06-08T00:00:00Z", "until": "2026-06-15T00:00:00Z"},
            "rows": [
                {"reason": null, "stage": "unclassified", "count": 1, "runs": 1, "previous": 0},
                {"reason": "not_found", "stage": "precondition", "count": 1, "runs": 1, "previous": 0},
                {"reason": "not_found", "stage": "semantics", "count": 1, "runs": 1, "previous": 1}
            ],
            "undated": 0
        }),
    );
    assert_eq!(
        db.out(NOW, &["report", "refusals", "--format", "csv"]),
        "reason,stage,count,runs,previous,since,until\r\n\
         ,unclassified,1,1,0,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n\
         not_found,precondition,1,1,0,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n\
         not_found,semantics,1,1,1,2026-06-08T00:00:00Z,2026-06-15T00:00:00Z\r\n"
    );
    let table = db.out(NOW, &["report", "refusals"]);
    assert!(table.contains("\n(no reason)  unclassified"), "{table}");
    // Every refusal of refund_order by reason; no reason counts under "".
    let tools = db.json(NOW, &["report", "tools"]);
    assert_json_eq(
        &tools["tools"][0]["refused_by_reason"],
        &json!({"": 1, "not_found": 5}),
    );
    assert_eq!(tools["tools"][0]["refused"], 6);
    let table = db.out(NOW, &["report", "tools"]);
    assert!(
        table.contains("refund_order  not_found 5, (no reason) 1"),
        "{table}"
    );
}

/// Reports do not depend on how the records were split into imports: labels
/// imported first, run records after their decisions, first decisions last.
#[test]
fn later_imports_reclassify_the_reports() {
    let f = root().join("tests/fixtures/reports");
    let whole = fixture();
    let dir = tempfile::tempdir().unwrap();
    let runs = std::fs::read_to_string(f.join("02-runs.jsonl")).unwrap();
    let (first, rest): (Vec<&str>, Vec<&str>) =
        runs.lines().partition(|l| l.contains(r#""step":1,"#));
    let rest_path = dir.path().join("rest.jsonl");
    let first_path = dir.path().join("first.jsonl");
    std::fs::write(&rest_path, rest.join("\n")).unwrap();
    std::fs::write(&first_path, first.join("\n")).unwrap();
    let split = Db::import(&[&f.join("03-cases.jsonl")]);
    for batch in [&f.join("01-catalogues.jsonl"), &rest_path, &first_path] {
        let r = split.run(NOW, &["import", "-q", batch.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    for kind in [
        "ladder",
        "metrics",
        "refusals",
        "confusions",
        "tools",
        "runs",
        "findings",
    ] {
        assert_json_eq(
            &split.json(NOW, &["report", kind]),
            &whole.json(NOW, &["report", kind]),
        );
    }
}
