//! Secrets and untrusted values in what `rung` prints about its input:
//! errors echo values masked, escaped and cut; configured patterns are
//! checked before anything is stored.

mod common;

use common::*;

const KEY: &str = "sk-proj-4f9aQ2xLk81abcdEFGH";

fn import_one(line: &str) -> (tempfile::TempDir, Run) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.jsonl", &format!("{line}\n"));
    let r = rung(
        &dir.path().join("t.db"),
        &["import", path.to_str().unwrap()],
    );
    (dir, r)
}

fn error_of(line: &str) -> String {
    let (dir, r) = import_one(line);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let prefix = format!("{}/a.jsonl:1: ", dir.path().display());
    r.stderr
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("no {prefix:?} in {:?}", r.stderr))
        .trim_end_matches('\n')
        .to_string()
}

#[test]
fn a_bad_enum_value_is_masked() {
    assert_eq!(
        error_of(&format!(
            r#"{{"type":"run","run_id":"r-1","intent":"{KEY}"}}"#
        )),
        "run r-1: field \"intent\": \"••••\" is not one of inform, prepare, act"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_masked() {
    assert_eq!(
        error_of(&format!(
            r#"{{"type":"run","run_id":"r-1","trial":"{KEY}"}}"#
        )),
        "run r-1: field \"trial\" must be an integer, not a string (\"••••\")"
    );
    // inside an object shown as the bad value, too
    assert_eq!(
        error_of(&format!(
            r#"{{"type":"run","run_id":"r-1","goal":{{"api_key":"{KEY}"}}}}"#
        )),
        "run r-1: field \"goal\" must be a string, not an object ({\"api_key\":\"••••\"})"
    );
}

#[test]
fn a_secret_in_a_run_id_is_masked_in_the_record_name() {
    assert_eq!(
        error_of(&format!(
            r#"{{"type":"run","run_id":"key {KEY}","intent":"now"}}"#
        )),
        "run key ••••: field \"intent\": \"now\" is not one of inform, prepare, act"
    );
}

#[test]
fn a_huge_enum_value_is_cut() {
    let huge = "x".repeat(1_000_000);
    let e = error_of(&format!(
        r#"{{"type":"run","run_id":"r-1","intent":"{huge}"}}"#
    ));
    assert_eq!(
        e,
        format!(
            "run r-1: field \"intent\": \"{}…\" is not one of inform, prepare, act",
            "x".repeat(119)
        )
    );
}

#[test]
fn names_in_both_acceptable_and_forbidden_are_cut() {
    let name = "t".repeat(10_000);
    let e = error_of(&format!(
        r#"{{"type":"case","task_id":"k","acceptable":["{name}"],"forbidden":["{name}"]}}"#
    ));
    assert_eq!(
        e,
        format!(
            "case k: \"acceptable\" and \"forbidden\" both contain \"{}…\"; a name cannot be both",
            "t".repeat(119)
        )
    );
}

#[test]
fn a_newline_in_a_tag_key_cannot_forge_a_line() {
    let (_dir, r) =
        import_one(r#"{"type":"run","run_id":"r-1","tags":{"a\nrung: imported 9 runs":1}}"#);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.ends_with(
            ": run r-1: field \"tags.a\\nrung: imported 9 runs\" must be a string (tags are a string map), not a number (1)\n"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_bad_redact_pattern_stops_the_import_before_anything_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let trace = write(
        dir.path(),
        "a.jsonl",
        r#"{"type":"decision","run_id":"r","step":1,"selected":"A"}"#,
    );
    let config = write(
        dir.path(),
        "rung.toml",
        "[redact]\npatterns = [\"cus_[0-9]+\", \"tok_(\"]\n",
    );
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
    assert_eq!(
        r.stderr,
        format!(
            "{}: [redact] patterns[1] \"tok_(\": not a valid regular expression: unclosed group\n",
            config.display()
        )
    );
    assert!(!db.exists(), "a database was created");

    // On an existing database the stored configuration stays as it was.
    assert_eq!(rung(&db, &["import", trace.to_str().unwrap()]).code, 0);
    let r = rung(&db, &["--config", config.to_str().unwrap(), "reclassify"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("patterns[1] \"tok_(\""), "{}", r.stderr);
    let r = rung(&db, &["explain", "r"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn refusal_reasons_that_differ_only_in_a_secret_are_counted_as_one() {
    // Four refusals of `refund`, each reason with its own key: the tools
    // report's counts by reason add up to its refusals once masked.
    let dir = tempfile::tempdir().unwrap();
    let mut trace = String::from(
        r#"{"type":"catalogue","version":"c-1","tools":[{"name":"refund","family":"billing","effect":"mutating","description":"Refunds."}]}"#,
    );
    trace.push('\n');
    for i in 1..=4 {
        trace.push_str(&format!(
            r#"{{"type":"decision","run_id":"r-{i}","step":1,"catalogue":"c-1","selected":"refund","outcome":{{"status":"refused","stage":"authorization","reason":"denied token {KEY}{i}"}}}}"#
        ));
        trace.push('\n');
    }
    trace.push_str(
        r#"{"type":"decision","run_id":"r-5","step":1,"catalogue":"c-1","selected":"refund","outcome":{"status":"refused","stage":"authorization","reason":"not_allowed"}}"#,
    );
    trace.push('\n');
    // A reason named like a secret field: its count is no secret.
    trace.push_str(
        r#"{"type":"decision","run_id":"r-6","step":1,"catalogue":"c-1","selected":"refund","outcome":{"status":"refused","stage":"authorization","reason":"invalid_api_key"}}"#,
    );
    trace.push('\n');
    let path = write(dir.path(), "a.jsonl", &trace);
    let db = dir.path().join("t.db");
    let r = rung(&db, &["import", "-q", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = rung(&db, &["report", "tools", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tools"][0]["refused"], 6);
    assert_eq!(
        v["tools"][0]["refused_by_reason"],
        serde_json::json!({"denied token ••••": 4, "invalid_api_key": 1, "not_allowed": 1})
    );
    let r = rung(&db, &["report", "tools", "--format", "markdown"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("denied token •••• 4, invalid_api_key 1, not_allowed 1"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains(KEY));
}
