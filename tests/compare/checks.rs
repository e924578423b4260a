use super::*;

#[test]
fn the_gate_exits_1_when_a_candidate_fails_it() {
    let db = fixture();
    // Nothing is significantly worse than kb-1 on six runs.
    let r = db.run(NOW, &["compare", "kb-1", "kb-2", "kb-3", "--gate"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Every candidate passes."), "{}", r.stdout);
    // A token ceiling kb-2's 67 per turn does not meet.
    let r = db.run(
        NOW,
        &[
            "compare",
            "kb-1",
            "kb-2",
            "kb-3",
            "--gate",
            "--max-tokens",
            "60",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "kb-2       tokens/turn p95      FAIL    p95 is 67 tokens per turn, above 60"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Not admitted: kb-2."), "{}", r.stdout);
    let j = db.json(
        NOW,
        &["compare", "kb-1", "kb-3", "--gate", "--max-tokens", "60"],
    );
    assert_eq!(j["gate"]["passed"], true);
    assert_eq!(
        j["gate"]["candidates"][0]["checks"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // Without --gate the exit is 0 whatever the candidates do.
    let r = db.run(NOW, &["compare", "kb-1", "kb-2", "--max-tokens", "60"]);
    assert_eq!(r.code, 0);
}

#[test]
fn compare_usage_errors() {
    let db = fixture();
    let err = |args: &[&str]| {
        let r = db.run(NOW, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stdout);
        r.stderr
    };
    assert!(
        err(&["compare", "kb-1", "kb-9"])
            .contains("no catalogue version \"kb-9\" in the database; known: \"kb-1\", \"kb-2\", \"kb-3\", \"kb-4\""),
    );
    assert!(err(&["compare", "kb-1"]).contains("CANDIDATES"));
    assert!(err(&["compare", "kb-1", "kb-1"]).contains("is the base"));
    assert!(
        err(&["compare", "kb-1", "kb-2", "--cell", "search_docs"]).contains("ACCEPTABLE→SELECTED")
    );
    assert!(
        err(&["compare", "kb-1", "kb-2", "--cell", "get_page→search_docs"])
            .contains("\"kb-1\" has no selection failure in that cell; its top cells: \"search_policy → search_docs\"")
    );
    assert!(err(&["compare", "kb-1", "kb-2", "--alpha", "1.5"]).contains("--alpha 1.5"));
    assert!(
        err(&["compare", "kb-1", "kb-2", "--catalogue", "kb-1"])
            .contains("--catalogue does not apply")
    );
    assert!(err(&["diff", "kb-1", "nope"]).contains("no catalogue version \"nope\""));
}

#[test]
fn every_new_command_says_its_json_in_help() {
    let help = |args: &[&str]| {
        let r: common::Run = common::bin().args(args).output().unwrap().into();
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let compare = help(&["compare", "--help"]);
    assert!(
        compare.contains("JSON: {\"base\", \"candidates\", \"alpha\""),
        "{compare}"
    );
    assert!(
        compare.contains("--gate exits 1 unless every candidate"),
        "{compare}"
    );
    let diff = help(&["diff", "--help"]);
    assert!(diff.contains("\"renamed_or_merged\": [{\"into\""), "{diff}");
    let report = help(&["report", "--help"]);
    for kind in ["budget", "consistency"] {
        assert!(
            report.contains(&format!("JSON of `report {kind}`")),
            "{report}"
        );
    }
}

/// Descriptions are untrusted: a secret is masked before the word diff and
/// a control character shows escaped, in every format.
#[test]
fn diff_masks_and_escapes_descriptions() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    let tool = |d: &str| json!({"name": "lookup", "family": "crm", "effect": "read_only", "description": d});
    let lines = [
        json!({"type": "catalogue", "version": "v1", "tools": [tool("Looks a customer up.")]}),
        json!({"type": "catalogue", "version": "v2", "tools": [
            tool("Looks a customer up with key sk-proj-4f9aQ2xLk81abcdEFGH \u{1b}[2J now.")]}),
    ];
    std::fs::write(
        &file,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let db = Db::import(&[&file]);
    let j = db.json(NOW, &["diff", "v1", "v2"]);
    assert_eq!(
        j["changed"][0]["description_diff"],
        "Looks a customer [-up.-] {+up with key •••• \u{1b}[2J now.+}"
    );
    for format in ["table", "markdown", "csv", "json"] {
        let out = db.out(NOW, &["diff", "v1", "v2", "--format", format]);
        assert!(!out.contains("sk-proj"), "{format}: {out}");
        assert!(!out.contains('\u{1b}'), "{format}: {out}");
    }
    let table = db.out(NOW, &["diff", "v1", "v2"]);
    assert!(
        table.contains("Looks a customer [-up.-] {+up with key •••• \\x1b[2J now.+}"),
        "{table}"
    );
    // --no-redact shows the key.
    let open = db.out(NOW, &["--no-redact", "diff", "v1", "v2"]);
    assert!(open.contains("sk-proj-4f9aQ2xLk81abcdEFGH"), "{open}");
}

#[test]
fn reference_agent_menu_42_against_menu_43() {
    let db = reference();
    let c = db.json(RA_NOW, &["compare", "menu-42", "menu-43"]);
    let (a, b) = (&c["menus"][0], &c["menus"][1]);
    assert_json_eq(&a["first_call_accuracy"], &rate(1083, 1200));
    assert_json_eq(&b["first_call_accuracy"], &rate(1158, 1200));
    assert_json_eq(&a["unrecovered"], &rate(38, 1200));
    assert_json_eq(&b["unrecovered"], &rate(13, 1200));
    assert_json_eq(&a["recovered_within_3"], &rate(79, 1200));
    assert_json_eq(&b["recovered_within_3"], &rate(29, 1200));
    let cmp = &c["comparisons"][0];
    assert_json_eq(
        &cmp["pairing"],
        &json!({"tasks": 240, "by_trial": true, "attempts": 1200}),
    );
    // Every one of the 75 changed first calls went right: McNemar 2·2^-75 =
    // 2^-74 = 5.293955920339377e-23 (exact: python3 -c 'print(2/2**75)').
    let fc = change(cmp, "first_call_accuracy");
    assert_eq!((&fc["up"], &fc["down"]), (&json!(75), &json!(0)));
    assert_eq!(fc["p_value"], num(5.293955920339377e-23));
    assert_eq!(fc["significant"], true);
    // 25 unrecovered first calls no longer happen and none newly do: 2^-24.
    let un = change(cmp, "unrecovered");
    assert_eq!((&un["up"], &un["down"]), (&json!(0), &json!(25)));
    assert_eq!(un["p_value"], num(2f64.powi(-24)));
    // The table a user reads.
    let table = db.out(RA_NOW, &["compare", "menu-42", "menu-43"]);
    for line in [
        "first-call accuracy        1083/1200 90.25%        1158/1200 96.50%",
        "wrong first, unrecovered      38/1200 3.17%           13/1200 1.08%",
        "  change                                                   +6.25 pt",
    ] {
        assert!(table.contains(line), "{line}\n{table}");
    }
    // The cells of menu-42: the top one is gone on menu-43.
    assert_json_eq(
        &c["cells"][0],
        &json!({"acceptable": ["search_sharepoint"], "selected": "search_confluence",
                "attempts": 72, "candidates": [{"catalogue": "menu-43", "paired": 72, "right": 72}]}),
    );
    assert_eq!(c["cells"][1]["attempts"], 31);
    assert_eq!(c["cells"][1]["candidates"][0]["right"], 0);
    assert_eq!(c["cells"].as_array().unwrap().len(), 10);
    // The admission contract: menu-43 passes, and menu-42 would not
    // replace menu-43 (75 first calls worse: one-sided 2^-75).
    assert_eq!(
        db.run(RA_NOW, &["compare", "menu-42", "menu-43", "--gate"])
            .code,
        0
    );
    let r = db.run(RA_NOW, &["compare", "menu-43", "menu-42", "--gate"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(
            "menu-42    first-call accuracy  FAIL    75 worse, 0 better: p < 0.0001 <= 0.05"
        ),
        "{}",
        r.stdout
    );
    // menu-43's p95 is 1513 tokens per turn.
    assert_eq!(
        db.run(
            RA_NOW,
            &[
                "compare",
                "menu-42",
                "menu-43",
                "--gate",
                "--max-tokens",
                "1500"
            ]
        )
        .code,
        1
    );
    assert_eq!(
        db.run(
            RA_NOW,
            &[
                "compare",
                "menu-42",
                "menu-43",
                "--gate",
                "--max-tokens",
                "1513"
            ]
        )
        .code,
        0
    );
}

#[test]
fn reference_agent_four_menus_on_the_top_cell() {
    let db = reference();
    let c = db.json(
        RA_NOW,
        &[
            "compare",
            "menu-42",
            "menu-42b",
            "menu-42c",
            "menu-43",
            "--cell",
            "search_sharepoint→search_confluence",
        ],
    );
    assert_json_eq(
        &c["cells"],
        &json!([{"acceptable": ["search_sharepoint"], "selected": "search_confluence", "attempts": 72,
                 "candidates": [
                     {"catalogue": "menu-42b", "paired": 72, "right": 39, "change": "descriptions"},
                     {"catalogue": "menu-42c", "paired": 72, "right": 70, "change": "hidden"},
                     {"catalogue": "menu-43", "paired": 72, "right": 72, "change": "merged"}]}]),
    );
    assert_eq!(c["verdict"]["repair"], "merge");
    let table = db.out(
        RA_NOW,
        &[
            "compare",
            "menu-42",
            "menu-42b",
            "menu-42c",
            "menu-43",
            "--cell",
            "search_sharepoint->search_confluence",
        ],
    );
    for line in [
        "search_sharepoint → search_confluence (72 attempts)",
        "  right/paired              0/72         39/72     70/72    72/72",
        "  how it differs                  descriptions    hidden   merged",
        "Verdict: Sharper descriptions leave errors (menu-42b 39 of 72). Hiding one",
    ] {
        assert!(table.contains(line), "{line}\n{table}");
    }
    // Every line of the four-menu table fits in 80 columns.
    for line in table.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
    // On the cell's 72 attempts, menu B's 39 against none: 2·2^-39.
    let b = change(&c["comparisons"][0], "first_call_accuracy");
    assert_eq!(b["p_value"], num(3.637978807091713e-12));
}

#[test]
fn reference_agent_diff_merges_the_wiki_searches() {
    let db = reference();
    assert_json_eq(
        &db.json(RA_NOW, &["diff", "menu-42", "menu-43"]),
        &json!({"old": "menu-42", "new": "menu-43", "added": ["search_wiki"],
                "removed": ["search_confluence", "search_sharepoint"],
                "renamed_or_merged": [{"into": "search_wiki",
                                       "from": ["search_confluence", "search_sharepoint"],
                                       "kind": "merged", "tasks": 50}],
                "changed": [], "unchanged": 228}),
    );
    let b = db.json(RA_NOW, &["diff", "menu-42", "menu-42b"]);
    let changed: Vec<(&str, &Value)> = b["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), &c["fields"]))
        .collect();
    assert_eq!(
        changed,
        vec![
            ("search_confluence", &json!(["description", "hints"])),
            ("search_sharepoint", &json!(["description", "hints"]))
        ]
    );
    assert_eq!(b["unchanged"], 228);
}

/// The budget of each Reference Agent menu, worked out from the sample's
/// files apart from rung: a run's menu is its two trusted controls and the
/// first ten of its twelve ranked candidates (no policy, so nothing is
/// hidden before retrieval); every decision is a turn of its own.
#[test]
fn reference_agent_budget_by_hand() {
    let dir = root().join("sample-traces/reference-agent");
    let mut per_tool = std::collections::BTreeMap::new();
    for c in lines(&dir.join("catalogues.jsonl")) {
        let t: std::collections::BTreeMap<String, u64> = c["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["name"].as_str().unwrap().to_string(), tokens(t)))
            .collect();
        per_tool.insert(c["version"].as_str().unwrap().to_string(), t);
    }
    let db = reference();
    let got = db.json(RA_NOW, &["report", "budget"]);
    let mut checked = 0;
    for (file, version) in [
        ("runs-menu-42.jsonl", "menu-42"),
        ("runs-menu-42b.jsonl", "menu-42b"),
        ("runs-menu-42c.jsonl", "menu-42c"),
        ("runs-menu-43.jsonl", "menu-43"),
    ] {
        let tools = &per_tool[version];
        let (mut turn_tokens, mut run_turns) = (vec![], vec![]);
        let mut menu = 0;
        for r in lines(&dir.join(file)) {
            if r["type"] == "run" {
                let mut names: Vec<&str> = r["trusted_controls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                for c in r["retrieval"]["candidates"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .take(10)
                {
                    names.push(c["name"].as_str().unwrap());
                }
                assert_eq!(names.len(), 12);
                menu = names.iter().map(|n| tools[*n]).sum();
                run_turns.push(0u64);
            } else {
                turn_tokens.push(menu);
                *run_turns.last_mut().unwrap() += 1;
            }
        }
        turn_tokens.sort_unstable();
        run_turns.sort_unstable();
        let flat: u64 = tools.values().sum();
        let (t50, t95) = (nearest(&turn_tokens, 50), nearest(&turn_tokens, 95));
        let (l50, l95) = (nearest(&run_turns, 50), nearest(&run_turns, 95));
        let cost = |turns: u64, per: u64| {
            json!({"turns": turns, "disclosed": per * turns, "flat": flat * turns,
                   "saved": num(1.0 - (per * turns) as f64 / (flat * turns) as f64)})
        };
        let want = json!({"catalogue": version, "tools": tools.len(), "flat_tokens_per_turn": flat,
            "runs": run_turns.len(), "turns": turn_tokens.len(),
            "visible_per_turn": {"p50": 12, "p95": 12},
            "tokens_per_turn": {"p50": t50, "p95": t95},
            "run_turns": {"p50": l50, "p95": l95},
            "per_run_p50": cost(l50, t50), "per_run_p95": cost(l95, t95),
            "menu_changed_runs": 0, "menu_changed_findings": 0});
        let one = got["catalogues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["catalogue"] == version)
            .unwrap();
        assert_json_eq(one, &want);
        checked += 1;
        if version == "menu-42" {
            // By hand: 1,083 one-turn runs, 87 of two turns (49 recovered at
            // turn 2, 38 unrecovered) and 30 of three: p50 1, p95 (rank
            // 1,140) 2; the README's 1,449 and 1,489 tokens per turn.
            assert_eq!((l50, l95, t50, t95), (1, 2, 1449, 1489));
            assert_eq!(run_turns.iter().filter(|n| **n == 2).count(), 87);
            assert_eq!(run_turns.iter().filter(|n| **n == 3).count(), 30);
        }
    }
    assert_eq!(checked, 4);
}
