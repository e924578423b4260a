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

#[path = "../common/mod.rs"]
mod common;
#[path = "../report_util/mod.rs"]
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
    // A filter that keeps nothing: kb-2's run on kb-1.
    assert_eq!(
        db.out(
            NOW,
            &[
                "report",
                "budget",
                "--run",
                "kb-2-t1-1",
                "--catalogue",
                "kb-1"
            ]
        ),
        "No decisions on a catalogue.\n"
    );
    // A value nothing has is a usage error that names the known ones.
    let r: common::Run = common::bin()
        .env("RUNG_NOW", NOW)
        .arg("--db")
        .arg(&db.path)
        .args(["report", "budget", "--run", "nope"])
        .output()
        .unwrap()
        .into();
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("--run \"nope\" matches nothing in the database; known runs"),
        "{}",
        r.stderr
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

mod checks;
