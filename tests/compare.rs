//! `rung compare`, `rung diff`, `rung report budget` and `rung report
//! consistency` end to end: on a small hand-written fixture
//! (`tests/fixtures/compare/`) in every format, and on the Reference Agent
//! sample (the chapter's numbers: 1,083 → 1,158 first calls, 38 → 13
//! unrecovered, 0/39/70/72 on the top cell and the merge verdict).
//!
//! The fixture, by hand. Definition tokens of a tool (no input schema):
//! ceil((48 + description + name characters) / 4).
//!
//! | catalogue | tools (tokens)                                                     | flat |
//! | kb-1, kb-4 | search_docs "Engineering docs." 19, search_policy "Company policy." 19, get_page 18, delete_page 19 | 75 |
//! | kb-2      | search_docs "Engineering docs only; not policy." 24, search_policy "Company policy only; not engineering." 25, get_page 18, delete_page 19 | 86 |
//! | kb-3      | search_all "Docs and policy; source picks which." 24, get_page 18, delete_page 19 | 61 |
//!
//! Labels (first decisions): t1, t2 search_policy; t3 search_docs; under
//! kb-3 all three accept search_all. Runs pin the menu search_docs,
//! search_policy, get_page (kb-3: search_all, get_page); kb-1-t1-1 step 2
//! sees only search_policy, get_page (the menu changed mid-run).
//!
//! | run (task, trial) | kb-1                          | kb-2                  | kb-3       | kb-4 (no trial) |
//! | t1/1 | docs ✗, policy (turn 2) recovered      | policy ✓              | all ✓      | policy ✓ ×2 |
//! | t1/2 | docs ✗, docs: unrecovered, failed      | docs ✗, docs: unrecovered, failed | all ✓ |  |
//! | t2/1 | policy ✓                               | policy ✓              | all ✓      | policy ✓ ×2 |
//! | t2/2 | docs ✗, policy recovered               | policy ✓              | all ✓      |             |
//! | t3/1 | docs ✓, get_page (turn 1), get_page (turn 2) | docs ✓          | all ✓      | docs ✓ ×2   |
//! | t3/2 | docs ✓                                 | policy ✗, docs recovered | all ✓   |             |

mod common;
mod report_util;

use std::path::Path;

use report_util::{Db, assert_json_eq, root};
use serde_json::{Value, json};

const NOW: &str = "2026-11-23T00:00:00Z";

fn fixture() -> Db {
    Db::import(&[&root().join("tests/fixtures/compare")])
}

/// A number as it reads back from rung's json: serde_json parses floats
/// fast rather than exactly, so the expected value takes the same way in.
fn num(x: f64) -> Value {
    serde_json::from_str(&serde_json::to_string(&x).unwrap()).unwrap()
}

fn rate(n: u64, d: u64) -> Value {
    json!({"value": if d == 0 { Value::Null } else { num(n as f64 / d as f64) }, "numerator": n, "denominator": d})
}

/// The change of `metric` in a comparison's json.
fn change<'a>(cmp: &'a Value, metric: &str) -> &'a Value {
    cmp["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == metric)
        .unwrap_or_else(|| panic!("no change for {metric}"))
}

#[test]
fn compare_on_the_fixture() {
    let db = fixture();
    let c = db.json(
        NOW,
        &[
            "compare",
            "kb-1",
            "kb-2",
            "kb-3",
            "kb-4",
            "--cell",
            "search_policy→search_docs",
        ],
    );
    assert_eq!(c["base"], "kb-1");
    assert_eq!(c["candidates"], json!(["kb-2", "kb-3", "kb-4"]));
    let base = &c["menus"][0];
    assert_eq!(
        (&base["attempts"], &base["labelled"], &base["tasks"]),
        (&json!(6), &json!(6), &json!(3))
    );
    assert_json_eq(&base["first_call_accuracy"], &rate(3, 6));
    // t1/1 and t2/2 recover at turn 2; t1/2 never does.
    assert_json_eq(&base["recovered_within_3"], &rate(2, 6));
    assert_json_eq(&base["unrecovered"], &rate(1, 6));
    assert_json_eq(&base["selection_accuracy"], &rate(3, 6));
    assert_json_eq(&base["abstention_accuracy"], &rate(0, 0));
    // t1 1 of 2, t2 2 of 2, t3 2 of 2.
    assert_json_eq(
        &base["pass_hat_k"],
        &json!({"1": {"value": num((0.5 + 1.0 + 1.0) / 3.0), "tasks": 3}, "2": {"value": num(2.0 / 3.0), "tasks": 3}}),
    );
    // Ten turns: nine see all three (56), one sees policy + page (37).
    assert_json_eq(
        &base["definition_tokens_per_turn"],
        &json!({"p50": 56, "p95": 56}),
    );
    assert_eq!(base["ladder"]["rungs"]["selection"], 3);
    assert_eq!(base["ladder"]["decisions"], 11);
    assert_json_eq(&c["menus"][1]["first_call_accuracy"], &rate(4, 6));

    // kb-2, paired by (task, trial): first calls up on t1/1 and t2/2, down
    // on t3/2: McNemar 2·P(X ≤ 1 | n = 3) = 2·4/8 = 1.
    let kb2 = &c["comparisons"][0];
    assert_json_eq(
        &kb2["pairing"],
        &json!({"tasks": 3, "by_trial": true, "attempts": 6}),
    );
    assert_json_eq(
        change(kb2, "first_call_accuracy"),
        &json!({"metric": "first_call_accuracy", "base": 0.5, "candidate": num(4.0 / 6.0),
                "change": num(4.0 / 6.0 - 0.5), "test": "mcnemar", "pairs": 6, "up": 2, "down": 1,
                "p_value": 1.0, "significant": false}),
    );
    // Tokens: every paired run's mean per turn goes up (56 or 46.5 → 67):
    // a sign test 2·2^-6.
    let t = change(kb2, "definition_tokens_per_turn.p95");
    assert_eq!(
        (&t["test"], &t["up"], &t["p_value"], &t["change"]),
        (
            &json!("sign_attempts"),
            &json!(6),
            &json!(0.03125),
            &json!(11.0)
        )
    );
    // kb-3 right on all three of the base's wrong first calls: 2·2^-3.
    let kb3 = change(&c["comparisons"][1], "first_call_accuracy");
    assert_eq!(
        (&kb3["up"], &kb3["down"], &kb3["p_value"]),
        (&json!(3), &json!(0), &json!(0.25))
    );
    // kb-4 records no trials: a sign test over tasks (t1 0 → 1, t2 ½ → 1,
    // t3 1 → 1): 2·2^-2.
    let kb4 = &c["comparisons"][2];
    assert_json_eq(
        &kb4["pairing"],
        &json!({"tasks": 3, "by_trial": false, "attempts": 0}),
    );
    assert_json_eq(
        change(kb4, "first_call_accuracy"),
        &json!({"metric": "first_call_accuracy", "base": 0.5, "candidate": 1.0, "change": 0.5,
                "test": "sign_tasks", "pairs": 3, "up": 2, "down": 0, "p_value": 0.5,
                "significant": false}),
    );
    assert_eq!(kb4["rungs"]["selection"], -3);

    // The cell: t1/1, t1/2, t2/2 picked search_docs for search_policy.
    assert_json_eq(
        &c["cells"],
        &json!([{"acceptable": ["search_policy"], "selected": "search_docs", "attempts": 3,
                 "candidates": [
                     {"catalogue": "kb-2", "paired": 3, "right": 2, "change": "descriptions"},
                     {"catalogue": "kb-3", "paired": 3, "right": 3, "change": "merged"},
                     {"catalogue": "kb-4", "paired": 0, "right": 0, "change": "other"}]}]),
    );
    assert_eq!(c["verdict"]["repair"], "merge");
    assert_eq!(
        c["verdict"]["text"],
        "Sharper descriptions leave errors (kb-2 2 of 3). No candidate only hid one of the pair. \
         Only the merged tool removes the error (kb-3 3 of 3): the model cannot use the \
         difference between the two tools reliably, so it does not belong in its decision. \
         Merge them and move the choice into an argument or behind the tool."
    );
    assert_eq!(c["gate"], Value::Null);

    let args = [
        "compare",
        "kb-1",
        "kb-2",
        "kb-3",
        "kb-4",
        "--cell",
        "search_policy->search_docs",
    ];
    let table = db.out(NOW, &args);
    insta::assert_snapshot!("compare_table", table);
    let mut md = args.to_vec();
    md.extend(["--format", "markdown"]);
    insta::assert_snapshot!("compare_markdown", db.out(NOW, &md));
    let mut csv = args.to_vec();
    csv.extend(["--format", "csv"]);
    let csv = db.out(NOW, &csv);
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "section,key,catalogue,value,numerator,denominator,change,p_value,test,pairs,significant,detail"
    );
    assert_eq!(lines[1], "metric,first_call_accuracy,kb-1,0.5,3,6,,,,,,");
    assert_eq!(
        lines[4],
        "metric,first_call_accuracy,kb-4,1,6,6,0.5,0.5,sign_tasks,3,false,"
    );
    assert!(
        lines.contains(&"cell,search_policy → search_docs,kb-3,3,3,3,,,,,,"),
        "{csv}"
    );
    assert!(lines.contains(&"rung,selection,kb-2,2,,,-1,,,,,"), "{csv}");
    // --gate adds its checks.
    let r = db.run(
        NOW,
        &[
            "compare",
            "kb-1",
            "kb-2",
            "--gate",
            "--max-tokens",
            "60",
            "--format",
            "csv",
        ],
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "gate failed: not admitted: \"kb-2\"\n");
    let gated = r.stdout;
    assert!(
        gated.ends_with(
            "gate,first_call_accuracy,kb-2,true,,,,,,,,\"1 worse, 2 better: p = 0.8750 > 0.05\"\r\n\
             gate,unrecovered,kb-2,true,,,,,,,,\"0 worse, 0 better: p = 1.0000 > 0.05\"\r\n\
             gate,definition_tokens_per_turn.p95,kb-2,false,,,,,,,,\"p95 is 67 tokens per turn, above 60\"\r\n"
        ),
        "{gated}"
    );
}

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
fn diff_on_the_fixture() {
    let db = fixture();
    assert_json_eq(
        &db.json(NOW, &["diff", "kb-1", "kb-2"]),
        &json!({"old": "kb-1", "new": "kb-2", "added": [], "removed": [], "renamed_or_merged": [],
                "unchanged": 2,
                "changed": [
                    {"name": "search_docs", "fields": ["description"],
                     "description_diff": "Engineering [-docs.-] {+docs only; not policy.+}",
                     "description_words": [{"op": "same", "text": "Engineering"},
                                           {"op": "removed", "text": "docs."},
                                           {"op": "added", "text": "docs only; not policy."}],
                     "use_when": null, "avoid_when": null},
                    {"name": "search_policy", "fields": ["description"],
                     "description_diff": "Company [-policy.-] {+policy only; not engineering.+}",
                     "description_words": [{"op": "same", "text": "Company"},
                                           {"op": "removed", "text": "policy."},
                                           {"op": "added", "text": "policy only; not engineering."}],
                     "use_when": null, "avoid_when": null}]}),
    );
    // kb-3: the labels of t1, t2 (search_policy) and t3 (search_docs) point
    // at search_all under kb-3: merged.
    assert_json_eq(
        &db.json(NOW, &["diff", "kb-1", "kb-3"]),
        &json!({"old": "kb-1", "new": "kb-3", "added": ["search_all"],
                "removed": ["search_docs", "search_policy"],
                "renamed_or_merged": [{"into": "search_all", "from": ["search_docs", "search_policy"],
                                       "kind": "merged", "tasks": 3}],
                "changed": [], "unchanged": 2}),
    );
    assert_eq!(
        db.out(NOW, &["diff", "kb-1", "kb-3", "--format", "csv"]),
        "name,change,into,from,fields,tasks,description_diff\r\n\
         search_all,added,,search_docs search_policy,,3,\r\n\
         search_docs,removed,search_all,,,,\r\n\
         search_policy,removed,search_all,,,,\r\n"
    );
    assert_eq!(
        db.out(NOW, &["diff", "kb-1", "kb-3"]),
        "Catalogue diff: kb-1 → kb-3\n\
         kb-1 → kb-3: 1 added, 2 removed, 0 changed, 2 unchanged. Merged: search_docs,\n\
         search_policy → search_all (labels of 3 tasks).\n\
         \n\
         tool           change   detail\n\
         ─────────────  ───────  ─────────────────────────────────\n\
         search_all     added    merges search_docs, search_policy\n\
         search_docs    removed  merged into search_all\n\
         search_policy  removed  merged into search_all\n"
    );
    insta::assert_snapshot!("diff_table", db.out(NOW, &["diff", "kb-1", "kb-2"]));
    insta::assert_snapshot!(
        "diff_markdown",
        db.out(NOW, &["diff", "kb-1", "kb-2", "--format", "markdown"])
    );
    // The same tools: nothing to say.
    assert_json_eq(
        &db.json(NOW, &["diff", "kb-1", "kb-4"]),
        &json!({"old": "kb-1", "new": "kb-4", "added": [], "removed": [], "renamed_or_merged": [],
                "changed": [], "unchanged": 4}),
    );
    assert!(
        db.out(NOW, &["diff", "kb-1", "kb-4"])
            .contains("No differences: both versions define the same tools the same way.")
    );
}

#[test]
fn budget_on_the_fixture() {
    let db = fixture();
    let cost = |turns: u64, disclosed: u64, flat: u64| {
        json!({"turns": turns, "disclosed": disclosed, "flat": flat,
               "saved": num(1.0 - disclosed as f64 / flat as f64)})
    };
    let p = |a: u64, b: u64| json!({"p50": a, "p95": b});
    assert_json_eq(
        &db.json(NOW, &["report", "budget"]),
        &json!({"catalogues": [
            // kb-1: turns 2,2,1,2,2,1 (kb-1-t3-1's two calls in turn 1 count
            // once): sorted 1,1,2,2,2,2: p50 (rank 3) 2, p95 (rank 6) 2.
            // Ten turns: nine at 56 (19+19+18), one at 37: p50 56, p95 56.
            {"catalogue": "kb-1", "tools": 4, "flat_tokens_per_turn": 75, "runs": 6, "turns": 10,
             "visible_per_turn": p(3, 3), "tokens_per_turn": p(56, 56), "run_turns": p(2, 2),
             "per_run_p50": cost(2, 112, 150), "per_run_p95": cost(2, 112, 150),
             "menu_changed_runs": 1, "menu_changed_findings": 1},
            // kb-2: turns 1,2,1,1,1,2 → p50 1, p95 2; every turn 24+25+18 = 67.
            {"catalogue": "kb-2", "tools": 4, "flat_tokens_per_turn": 86, "runs": 6, "turns": 8,
             "visible_per_turn": p(3, 3), "tokens_per_turn": p(67, 67), "run_turns": p(1, 2),
             "per_run_p50": cost(1, 67, 86), "per_run_p95": cost(2, 134, 172),
             "menu_changed_runs": 0, "menu_changed_findings": 0},
            {"catalogue": "kb-3", "tools": 3, "flat_tokens_per_turn": 61, "runs": 6, "turns": 6,
             "visible_per_turn": p(2, 2), "tokens_per_turn": p(42, 42), "run_turns": p(1, 1),
             "per_run_p50": cost(1, 42, 61), "per_run_p95": cost(1, 42, 61),
             "menu_changed_runs": 0, "menu_changed_findings": 0},
            {"catalogue": "kb-4", "tools": 4, "flat_tokens_per_turn": 75, "runs": 6, "turns": 6,
             "visible_per_turn": p(3, 3), "tokens_per_turn": p(56, 56), "run_turns": p(1, 1),
             "per_run_p50": cost(1, 56, 75), "per_run_p95": cost(1, 56, 75),
             "menu_changed_runs": 0, "menu_changed_findings": 0}
        ]}),
    );
    assert_eq!(
        db.out(
            NOW,
            &["report", "budget", "--catalogue", "kb-1", "--format", "csv"]
        ),
        "catalogue,tools,runs,turns,visible_p50,visible_p95,tokens_p50,tokens_p95,flat_tokens_per_turn,\
         run_turns_p50,run_turns_p95,disclosed_run_p50,flat_run_p50,saved_p50,disclosed_run_p95,\
         flat_run_p95,saved_p95,menu_changed_runs,menu_changed_findings\r\n\
         kb-1,4,6,10,3,3,56,56,75,2,2,112,150,0.2533333333333333,112,150,0.2533333333333333,1,1\r\n"
    );
    insta::assert_snapshot!(
        "budget_table",
        db.out(
            NOW,
            &[
                "report",
                "budget",
                "--catalogue",
                "kb-1",
                "--catalogue",
                "kb-3"
            ]
        )
    );
    insta::assert_snapshot!(
        "budget_markdown",
        db.out(
            NOW,
            &[
                "report",
                "budget",
                "--catalogue",
                "kb-1",
                "--format",
                "markdown"
            ]
        )
    );
    // A filter that keeps nothing.
    assert_eq!(
        db.out(NOW, &["report", "budget", "--run", "nope"]),
        "No decisions on a catalogue.\n"
    );
}

#[test]
fn consistency_on_the_fixture() {
    let db = fixture();
    // Twelve (catalogue, task) pairs have two runs; kb-1 t2 (policy, docs),
    // kb-2 t1 (policy, docs) and kb-2 t3 (docs, policy) start two ways.
    let both = json!([{"tool": "search_docs", "count": 1}, {"tool": "search_policy", "count": 1}]);
    let task = |cat: &str, t: &str| {
        json!({"catalogue": cat, "task_id": t, "trials": 2, "distinct": 2, "top_share": 0.5,
               "choices": both})
    };
    assert_json_eq(
        &db.json(NOW, &["report", "consistency"]),
        &json!({"inconsistent_tasks": rate(3, 12),
                "tasks": [task("kb-1", "t2"), task("kb-2", "t1"), task("kb-2", "t3")]}),
    );
    assert_json_eq(
        &db.json(NOW, &["report", "metrics"])["inconsistent_tasks"],
        &rate(3, 12),
    );
    assert_json_eq(
        &db.json(NOW, &["report", "metrics", "--catalogue", "kb-3"])["inconsistent_tasks"],
        &rate(0, 3),
    );
    assert_eq!(
        db.out(
            NOW,
            &[
                "report",
                "consistency",
                "--catalogue",
                "kb-2",
                "--format",
                "csv"
            ]
        ),
        "catalogue,task_id,trials,distinct,top_share,choices\r\n\
         kb-2,t1,2,2,0.5,\"[{\"\"count\"\":1,\"\"tool\"\":\"\"search_docs\"\"},{\"\"count\"\":1,\"\"tool\"\":\"\"search_policy\"\"}]\"\r\n\
         kb-2,t3,2,2,0.5,\"[{\"\"count\"\":1,\"\"tool\"\":\"\"search_docs\"\"},{\"\"count\"\":1,\"\"tool\"\":\"\"search_policy\"\"}]\"\r\n"
    );
    assert_eq!(
        db.out(NOW, &["report", "consistency"]),
        "3 of 12 tasks with two or more trials on one catalogue start differently across\n\
         their trials (inconsistent_tasks 25.0%).\n\
         \n\
         catalogue  task  trials    top  first tools chosen (times)\n\
         ─────────  ────  ──────  ─────  ──────────────────────────────\n\
         kb-1       t2         2  50.0%  search_docs 1, search_policy 1\n\
         kb-2       t1         2  50.0%  search_docs 1, search_policy 1\n\
         kb-2       t3         2  50.0%  search_docs 1, search_policy 1\n"
    );
    insta::assert_snapshot!(
        "consistency_markdown",
        db.out(NOW, &["report", "consistency", "--format", "markdown"])
    );
    // check takes it as a metric.
    let r = db.run(NOW, &["check", "--max", "inconsistent_tasks=0.2"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("FAIL  inconsistent_tasks = 0.25 (3/12) <= 0.2"),
        "{}",
        r.stdout
    );
}

// ---- the Reference Agent sample --------------------------------------------

fn reference() -> Db {
    Db::import(&[&root().join("sample-traces/reference-agent")])
}

const RA_NOW: &str = "2026-11-15T00:00:00Z";

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

/// ceil(characters / 4) of the canonical `{description, input_schema,
/// name}` (serde_json writes object keys sorted, as JCS does here).
fn tokens(tool: &Value) -> u64 {
    let def = json!({"name": tool["name"], "description": tool["description"],
                     "input_schema": tool.get("input_schema").cloned().unwrap_or(Value::Null)});
    (serde_json::to_string(&def).unwrap().chars().count() as u64).div_ceil(4)
}

fn nearest(sorted: &[u64], p: u64) -> u64 {
    sorted[((p * sorted.len() as u64).div_ceil(100) - 1) as usize]
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
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
