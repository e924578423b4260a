use super::*;

#[test]
fn committed_samples_are_what_the_generator_writes() {
    let tmp = tempfile::tempdir().unwrap();
    rung_samplegen::generate(tmp.path()).expect("the generator writes");
    let fresh = files(tmp.path());
    let committed = files(&root().join("sample-traces"));
    let mut problems = Vec::new();
    for (path, bytes) in &fresh {
        match committed.get(path) {
            None => problems.push(format!("missing: sample-traces/{}", path.display())),
            Some(c) if c != bytes => problems.push(format!(
                "differs: sample-traces/{} ({} bytes committed, {} generated)",
                path.display(),
                c.len(),
                bytes.len()
            )),
            Some(_) => {}
        }
    }
    for path in committed.keys().filter(|p| !fresh.contains_key(*p)) {
        problems.push(format!(
            "extra (the generator does not write it): sample-traces/{}",
            path.display()
        ));
    }
    assert!(
        problems.is_empty(),
        "sample-traces/ is out of date with rung-samplegen:\n  {}\nRegenerate it with `{REGENERATE}` and commit the result.",
        problems.join("\n  ")
    );
}

#[test]
fn brightdesk_success_per_tool_set() {
    let s = sample("brightdesk-billing");
    for (catalogue, ok) in [
        ("billing-A", 6),
        ("billing-B", 11),
        ("billing-C", 25),
        ("billing-C2", 22),
    ] {
        let runs = s.json(&["report", "runs", "--catalogue", catalogue]);
        assert_eq!(successes(&runs), (ok, 36), "{catalogue}");
        // Each task has 3 runs, so pass^1 is the pass rate.
        let m = s.json(&["report", "metrics", "--catalogue", catalogue]);
        assert_eq!(m["pass_hat_k"]["1"]["tasks"], 12, "{catalogue}");
        let p1 = m["pass_hat_k"]["1"]["value"].as_f64().unwrap();
        assert!((p1 - ok as f64 / 36.0).abs() < 1e-12, "{catalogue}: {p1}");
    }
    check_readme(&s);
}

/// The billing chapter's audit findings, as rung stores them: the two
/// Pinecrest runs on C that cancelled `sub_31` without a lookup carry both
/// `unsourced_id` and `id_from_description`; the Northwind runs that listed
/// `sub_31` first carry neither; B's announced lookup and its call written
/// as text are `announced_no_call`.
#[test]
fn brightdesk_audit_findings() {
    let s = sample("brightdesk-billing");
    let all = s.json(&["report", "findings"]);
    let of = |kind: &str, run: &str| -> Vec<(Value, Value)> {
        all["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == kind && f["run_id"] == run)
            .map(|f| (f["step"].clone(), f["tool"].clone()))
            .collect()
    };
    for run in ["bd-C-10-1", "bd-C-10-2"] {
        for kind in ["unsourced_id", "id_from_description"] {
            assert_eq!(
                of(kind, run),
                vec![(json!(1), json!("cancel_subscription"))],
                "{kind} {run}"
            );
        }
    }
    let detail = |kind: &str, run: &str| -> String {
        all["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == kind && f["run_id"] == run)
            .unwrap()["detail"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        detail("unsourced_id", "bd-C-10-1"),
        "cancel_subscription (mutating) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: subscription_id = \"sub_31\" (never seen earlier in the run); executed (ok)"
    );
    assert_eq!(
        detail("id_from_description", "bd-C-10-2"),
        "subscription_id = \"sub_31\" appears in the description of cancel_subscription (catalogue billing-C): the model copied an example from a tool's documents instead of looking the id up"
    );
    // The Northwind cancels on C and C2 looked sub_31 up first.
    for set in ["C", "C2"] {
        for (task, n) in [("01", 3), ("12", 3)] {
            for t in 1..=n {
                let run = format!("bd-{set}-{task}-{t}");
                assert_eq!(of("unsourced_id", &run), vec![], "{run}");
                assert_eq!(of("id_from_description", &run), vec![], "{run}");
            }
        }
    }
    assert_eq!(
        of("announced_no_call", "bd-B-03-1"),
        vec![(json!(1), json!(null))]
    );
    assert_eq!(
        of("announced_no_call", "bd-B-03-2"),
        vec![(json!(1), json!("search_customers"))]
    );
    assert!(
        detail("announced_no_call", "bd-B-03-2").starts_with(
            "the answer writes a call out as text: \"{\\\"type\\\": \\\"search_customers\\\""
        ),
        "{}",
        detail("announced_no_call", "bd-B-03-2")
    );
    // The seeds' figures do not move.
    brightdesk_successes(&s);
}

#[test]
fn reference_agent_first_calls_recovery_and_confusions() {
    let s = sample("reference-agent");
    let m = s.json(&["report", "metrics", "--catalogue", "menu-42"]);
    assert_json_eq(
        &m["first_call_accuracy"],
        &json!({"value": 0.9025, "numerator": 1083, "denominator": 1200}),
    );
    assert_json_eq(
        &m["recovery_within_3"],
        &json!({"value": 79.0 / 117.0, "numerator": 79, "denominator": 117}),
    );
    let c = s.json(&["report", "confusions", "--catalogue", "menu-42"]);
    assert_eq!(c["selection_failures"], 117);
    assert_json_eq(
        &json!([c["cells"][0], c["cells"][1]]),
        &json!([
            {"acceptable": ["search_sharepoint"], "selected": "search_confluence", "count": 72, "share": 72.0 / 117.0},
            {"acceptable": ["get_incident"], "selected": "get_ticket", "count": 31, "share": 31.0 / 117.0}
        ]),
    );
    // The top two cells: (72 + 31) / 117 = 88.03%.
    let table =
        s.db.out(&s.now, &["report", "confusions", "--catalogue", "menu-42"]);
    assert!(
        table.contains("The top two cells explain 103 of 117 selection failures (88.0%)."),
        "{table}"
    );
    // The merged menu.
    let m = s.json(&["report", "metrics", "--catalogue", "menu-43"]);
    assert_json_eq(
        &m["first_call_accuracy"],
        &json!({"value": 0.965, "numerator": 1158, "denominator": 1200}),
    );
    check_readme(&s);
}

#[test]
fn atlas_weekly_refusals() {
    let s = sample("atlas-chains");
    let row = |reason: &str, stage: &str, count: u64, runs: u64, previous: u64| json!({"reason": reason, "stage": stage, "count": count, "runs": runs, "previous": previous});
    // The default window is the latest week; insufficient_scope is gone.
    assert_json_eq(
        &s.json(&["report", "refusals"]),
        &json!({
            "window": {"since": "2026-11-16T00:00:00Z", "until": "2026-11-23T00:00:00Z"},
            "undated": 0,
            "rows": [
                row("outside_intent", "authorization", 41, 37, 29),
                row("existing_ticket", "precondition", 18, 17, 22),
                row("scope_drift", "semantics", 6, 6, 5),
                row("precondition", "precondition", 4, 4, 7),
                row("insufficient_scope", "authorization", 0, 0, 3),
            ]
        }),
    );
    // The weekly review document: title with the window, one-line summary.
    let md =
        s.db.out(&s.now, &["report", "refusals", "--format", "markdown"]);
    let head: Vec<&str> = md.lines().take(3).collect();
    assert_eq!(
        head,
        [
            "## Refusals by reason, 2026-11-16T00:00:00Z to 2026-11-23T00:00:00Z",
            "",
            "69 refusals in 64 runs (previous window: 66); biggest mover: outside_intent +12 (29 → 41).",
        ]
    );
    check_readme(&s);
}

#[test]
fn routing_ladder_read_file_search_code_cell() {
    let s = sample("routing-ladder");
    let c = s.json(&["report", "confusions"]);
    assert_json_eq(
        &c["cells"][0],
        &json!({"acceptable": ["read_file"], "selected": "search_code", "count": 38, "share": 38.0 / 41.0}),
    );
    check_readme(&s);
}

#[test]
fn ladder_tour_every_rung_and_every_finding() {
    let s = sample("ladder-tour");
    let l = s.json(&["report", "ladder"]);
    // The README's ladder: one decision on each of the twelve failing rungs,
    // ten unlabelled and six passed.
    assert_json_eq(
        &l,
        &json!({"decisions": 28, "labelled": 14, "rungs": {
            "coverage": 1, "exposure": 1, "discovery": 1, "selection": 1,
            "representation": 1, "schema": 1, "semantics": 1, "authorization": 1,
            "precondition": 1, "unclassified": 1, "execution": 1, "progress": 1,
            "unlabelled": 10, "passed": 6
        }}),
    );
    for (rung, n) in l["rungs"].as_object().unwrap() {
        assert!(n.as_u64().unwrap() > 0, "no decision on {rung}");
    }
    assert_eq!(l["rungs"].as_object().unwrap().len(), 14);
    let f = s.json(&["report", "findings"]);
    let mut kinds: Vec<&str> = f["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "announced_no_call",
            "catalogue_conflict",
            "control_impostor",
            "description_drift",
            "exposure_mismatch",
            "hidden_proposal",
            "id_from_description",
            "invalid_control",
            "label_conflict",
            "menu_changed",
            "repeated_call",
            "schema_violation",
            "unclassified_reason",
            "unsourced_id",
            "write_under_inform",
        ]
    );
    // The summary counts the same findings by kind and tool.
    let summary = s.json(&["report", "findings", "--summary"]);
    assert_eq!(summary["total"], f["findings"].as_array().unwrap().len());
    check_readme(&s);
}

#[test]
fn operations_cases_numbers() {
    check_readme(&sample("operations-cases"));
}

/// The whole folder imports at once (`rung import sample-traces/`): the
/// sets do not collide, so the totals are the sums of the parts.
#[test]
fn the_whole_folder_imports_as_one() {
    let all = Db::import(&[&root().join("sample-traces")]);
    let now = "2026-12-31T00:00:00Z";
    let mut sum = json!(null);
    let mut findings = 0;
    for name in [
        "ladder-tour",
        "brightdesk-billing",
        "reference-agent",
        "atlas-chains",
        "routing-ladder",
        "operations-cases",
    ] {
        let one = Db::import(&[&root().join("sample-traces").join(name)]);
        let l = one.json(now, &["report", "ladder"]);
        sum = if sum.is_null() { l } else { add(&sum, &l) };
        findings += one.json(now, &["report", "findings"])["findings"]
            .as_array()
            .unwrap()
            .len();
    }
    assert_json_eq(&all.json(now, &["report", "ladder"]), &sum);
    // Every table of the whole corpus fits in 80 columns.
    for kind in [
        "ladder",
        "metrics",
        "refusals",
        "confusions",
        "tools",
        "runs",
        "findings",
        "budget",
        "consistency",
    ] {
        let out = all.out("2026-11-23T00:00:00Z", &["report", kind]);
        for line in out.lines() {
            assert!(
                line.chars().count() <= 80,
                "report {kind}: wider than 80 columns:\n{line}"
            );
        }
    }
    assert_eq!(
        all.json(now, &["report", "findings"])["findings"]
            .as_array()
            .unwrap()
            .len(),
        findings
    );
}

/// The README walk is not vacuous: a wrong number in any kind of block
/// fails it.
#[test]
fn the_readme_check_catches_a_wrong_number() {
    let mut s = sample("ladder-tour");
    let good = s.readme.clone();
    for (from, to) in [
        (r#""passed": 6"#, r#""passed": 7"#),
        // The same numbers in another layout than rung prints.
        (r#""passed": 6,"#, r#""passed":6,"#),
        ("| passed | 6 |", "| passed | 5 |"),
        ("| unlabelled | 10 |", "| unlabelled | 11 |"),
        (
            "| read_file | search_code | 1 | 1.0000 |",
            "| read_file | search_code | 1 | 0.5000 |",
        ),
        (
            "| not_found | semantics | 1 | 1 | 0 |",
            "| not_found | semantics | 1 | 1 | 1 |",
        ),
        (
            "| tour-05 | refund-no-id | null | true |",
            "| tour-05 | refund-no-id | progress | true |",
        ),
        (
            "| tour-04/5 | 4 | authorization |",
            "| tour-04/5 | 4 | semantics |",
        ),
        (
            "| label_conflict | tour-1 | open-token | tour-01 | 2 | — |",
            "| label_conflict | tour-1 | open-token | tour-01 | 3 | — |",
        ),
        (
            "| menu_changed | — | 3 | 3 |",
            "| menu_changed | — | 4 | 3 |",
        ),
        (
            "| write_under_inform | comment_ticket | 1 | 1 |",
            "| write_under_inform | comment_ticket | 1 | 2 |",
        ),
    ] {
        assert!(
            good.contains(from),
            "the ladder-tour README no longer has {from:?}"
        );
        s.readme = good.replace(from, to);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_readme(&s)));
        assert!(r.is_err(), "changing {from:?} went unnoticed");
    }
}

#[test]
#[ignore = "needs ../shared"]
fn worked_example_matches_the_spec() {
    let ex = common::shared().join("spec/examples");
    assert!(
        ex.join("worked.jsonl").is_file(),
        "{} has no worked.jsonl",
        ex.display()
    );
    let db = Db::import(&[&ex.join("worked.jsonl")]);
    let now = "2026-11-23T00:00:00Z";
    let expected = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(ex.join(name)).unwrap()).unwrap()
    };
    assert_json_eq(
        &db.json(now, &["report", "ladder"]),
        &expected("expected-ladder.json"),
    );
    assert_json_eq(
        &db.json(now, &["report", "confusions"]),
        &expected("expected-confusions.json"),
    );
    // Format 1.1 adds `as_expected` to every run: null, as no case of the
    // worked example sets expectations.
    let mut want = expected("expected-runs.json");
    for run in want["runs"].as_array_mut().unwrap() {
        run["as_expected"] = Value::Null;
    }
    assert_json_eq(&db.json(now, &["report", "runs"]), &want);
    // The expected metrics leave definition_tokens out; by ladder.md:
    // canonical {description, input_schema, name} in characters / 4 rounded
    // up: read_file 156 → 39, search_code 158 → 40, edit_file 80 → 20,
    // run_tests 80 → 20, deploy_release 90 → 23, ask_user 78 → 20,
    // no_applicable_tool 98 → 25. w1/1, w1/2 (discover: read_file,
    // search_code + the two controls) 124 each; w2/1 (verify adds run_tests)
    // 144; w2/2 (retrieved search_code, read_file + controls) 124; the six
    // flat menus (w2/3-5, w3/1-3) 187 each. Sum 1638 over 10.
    let mut want = expected("expected-metrics.json");
    want["definition_tokens"] = json!({"mean": 163.8, "p50": 187, "p95": 187, "decisions": 10});
    // Three tasks, one run each: no task has two trials to compare.
    want["inconsistent_tasks"] = json!({"value": null, "numerator": 0, "denominator": 0});
    // Format 1.1's four metrics over runs with expectations: none here.
    for k in [
        "expected_call_recall",
        "argument_accuracy",
        "runs_as_expected",
        "agreement_with_success",
    ] {
        want[k] = json!({"value": null, "numerator": 0, "denominator": 0});
    }
    assert_json_eq(&db.json(now, &["report", "metrics"]), &want);
    // explain: the expected file leaves some keys out (why, findings, ...);
    // every key it has must match.
    let got = db.json(now, &["explain", "w2", "2"]);
    let want = expected("expected-explain-w2-2.json");
    assert_subset(&got, &want, "$");
}
