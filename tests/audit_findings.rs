//! The audit findings (issue 12) as the store keeps them: computed when a
//! run is classified and derived again when a later import, or a new
//! configuration, changes what they depend on.

mod common;

use std::path::Path;

use common::{json, rung, write};
use serde_json::{Value, json};

/// (kind, run, step, tool) of every finding, in report order.
fn findings(db: &Path) -> Vec<(String, String, Value, Value)> {
    let f = json(&rung(db, &["report", "findings", "--format", "json"]));
    f["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["kind"].as_str().unwrap().to_string(),
                x["run_id"].as_str().unwrap_or("-").to_string(),
                x["step"].clone(),
                x["tool"].clone(),
            )
        })
        .collect()
}

fn f(kind: &str, run: &str, step: i64, tool: Option<&str>) -> (String, String, Value, Value) {
    (kind.into(), run.into(), json!(step), json!(tool))
}

fn import(db: &Path, args: &[&Path]) {
    let mut a = vec!["import", "-q"];
    let paths: Vec<&str> = args.iter().map(|p| p.to_str().unwrap()).collect();
    a.extend(paths);
    let r = rung(db, &a);
    assert_eq!(r.code, 0, "import failed: {}", r.stderr);
}

const FIND: &str = r#"{"name":"find_customer","family":"billing","effect":"read_only","description":"Looks a customer up by name."}"#;
const CANCEL: &str = r#"{"name":"cancel_subscription","family":"billing","effect":"mutating","description":"Cancels one subscription. subscription_id comes from list_subscriptions, like sub_31."}"#;
const LIST: &str = r#"{"name":"list_subscriptions","family":"billing","effect":"read_only","description":"Lists a customer's subscriptions."}"#;

#[test]
fn a_catalogue_that_adds_the_tool_and_an_earlier_lookup_change_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    // The cancel's tool is not in c1 yet: the call was off the menu.
    let first = write(
        dir.path(),
        "1.jsonl",
        &format!(
            "{}\n{}\n{}\n",
            format_args!(r#"{{"type":"catalogue","version":"c1","tools":[{FIND},{LIST}]}}"#),
            r#"{"type":"run","run_id":"r1","task_id":"pinecrest","goal":"Pinecrest Physio wants to stop at the end of the period.","intent":"act","catalogue":"c1"}"#,
            r#"{"type":"decision","run_id":"r1","step":2,"selected":"cancel_subscription","arguments":{"subscription_id":"sub_31"},"outcome":{"status":"ok"},"result":{"subscription_id":"sub_31"}}"#,
        ),
    );
    import(&db, &[&first]);
    assert_eq!(
        findings(&db),
        vec![f("hidden_proposal", "r1", 2, Some("cancel_subscription"))]
    );
    // c1 gains cancel_subscription (mutating, "like sub_31"): the same
    // decision is now a write whose id no lookup returned, copied from the
    // description.
    let second = write(
        dir.path(),
        "2.jsonl",
        &format!(r#"{{"type":"catalogue","version":"c1","tools":[{FIND},{LIST},{CANCEL}]}}"#),
    );
    import(&db, &[&second]);
    assert_eq!(
        findings(&db),
        vec![
            f("id_from_description", "r1", 2, Some("cancel_subscription")),
            f("unsourced_id", "r1", 2, Some("cancel_subscription")),
        ]
    );
    // An earlier decision arrives whose result lists sub_31: the id had a
    // source after all.
    let third = write(
        dir.path(),
        "3.jsonl",
        r#"{"type":"decision","run_id":"r1","step":1,"selected":"list_subscriptions","arguments":{"customer_id":"cus_4Pc2"},"outcome":{"status":"ok"},"result":{"subscriptions":[{"subscription_id":"sub_31"}]}}
"#,
    );
    import(&db, &[&third]);
    assert_eq!(findings(&db), vec![]);
    // Importing everything again adds nothing.
    import(&db, &[&first, &second, &third]);
    assert_eq!(findings(&db), vec![]);
}

#[test]
fn a_run_record_that_comes_after_its_decisions_and_a_new_config_change_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    // Decisions of a bare run (no run record yet, no catalogue: effects
    // come from the configuration).
    let decisions = write(
        dir.path(),
        "d.jsonl",
        r#"{"type":"decision","run_id":"r2","step":1,"selected":"wipe_cache","arguments":{"cache_id":"cache-7"},"outcome":{"status":"ok"}}
{"type":"decision","run_id":"r2","step":2,"selected":null,"raw":"Let me check that it worked."}
{"type":"decision","run_id":"r2","step":3,"selected":null,"raw":"On it!"}
"#,
    );
    let config = write(
        dir.path(),
        "effects.toml",
        "[effects]\n\"wipe_*\" = \"destructive\"\n",
    );
    let r = rung(
        &db,
        &[
            "--config",
            config.to_str().unwrap(),
            "import",
            "-q",
            decisions.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        findings(&db),
        vec![
            f("announced_no_call", "r2", 2, None),
            f("unsourced_id", "r2", 1, Some("wipe_cache")),
        ]
    );
    // The run record names the cache in its goal, and says it only asked.
    let run = write(
        dir.path(),
        "r.jsonl",
        r#"{"type":"run","run_id":"r2","goal":"Is cache-7 stale?","intent":"inform"}
"#,
    );
    import(&db, &[&run]);
    assert_eq!(
        findings(&db),
        vec![
            f("announced_no_call", "r2", 2, None),
            f("write_under_inform", "r2", 1, Some("wipe_cache")),
        ]
    );
    // Other phrases: "On it!" announces, "Let me check" no longer does; and
    // without the [effects] entry wipe_cache's effect is unknown.
    let phrases = write(
        dir.path(),
        "phrases.toml",
        "[findings]\nannounce = [\"on it\"]\n",
    );
    let r = rung(&db, &["--config", phrases.to_str().unwrap(), "reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(findings(&db), vec![f("announced_no_call", "r2", 3, None)]);
    let detail =
        json(&rung(&db, &["report", "findings", "--format", "json"]))["findings"][0]["detail"]
            .clone();
    assert_eq!(
        detail,
        "the answer announces an action: \"On it!\"; no tool was called, so a harness loop takes it for the final answer"
    );
}

#[test]
fn a_bad_phrase_in_the_config_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let config = write(
        dir.path(),
        "bad.toml",
        "[findings]\nannounce = [\"let me\", \"\"]\n",
    );
    let trace = write(dir.path(), "t.jsonl", r#"{"type":"run","run_id":"r"}"#);
    let r = rung(
        &db,
        &[
            "--config",
            config.to_str().unwrap(),
            "import",
            trace.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("bad.toml")
            && r.stderr.contains("[findings] announce: phrase 2 is empty"),
        "{}",
        r.stderr
    );
    assert!(!db.exists(), "nothing was stored");
}

#[test]
fn report_help_names_every_finding_kind_with_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    let r = rung(&dir.path().join("none.db"), &["report", "--help"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for kind in rung::model::FindingKind::ALL {
        let line = r
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{kind} ")))
            .unwrap_or_else(|| panic!("{kind} is not in `rung report --help`:\n{}", r.stdout));
        assert!(line.contains(':'), "{line}");
    }
    assert!(
        r.stdout.contains(
            "unsourced_id         catalogue task_id run_id step tool: a write carries an id no earlier result or lookup returned, not in the goal or scope"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("--summary"), "{}", r.stdout);
}
