//! The 200 τ-bench airline runs in ../shared/real-traces (tasks 0-19 and
//! 20-49, four trials each) imported with docs/examples/tau-bench.toml:
//! every run is walked against its task's reference actions and outputs,
//! and rung's "as expected" agrees with τ-bench's reward on at least 97% of
//! the runs.

mod import_util;

use std::path::Path;

use import_util::*;
use serde_json::{Value, json};

#[test]
#[ignore = "needs ../shared"]
fn tau_bench_airline_verdicts_agree_with_the_reward() {
    let files = [
        shared_trace("tau-bench-airline-gpt4o/gpt-4o-airline.tasks0-19.json"),
        shared_trace("tau-bench-airline-gpt4o-tasks20-49/gpt-4o-airline.tasks20-49.json"),
    ];
    // Counted from the files, independently of rung.
    let (mut runs, mut rewarded, mut decisions, mut errors) = (0u64, 0u64, 0u64, 0u64);
    for f in &files {
        let v: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        for r in v.as_array().unwrap() {
            runs += 1;
            rewarded += u64::from((r["reward"].as_f64().unwrap() - 1.0).abs() < 1e-6);
            for m in r["traj"].as_array().unwrap() {
                match m["role"].as_str().unwrap() {
                    "assistant" => {
                        decisions += m["tool_calls"].as_array().map_or(1, |c| c.len().max(1)) as u64
                    }
                    "tool" if m["content"].as_str().unwrap_or("").starts_with("Error:") => {
                        errors += 1
                    }
                    _ => {}
                }
            }
        }
    }
    assert_eq!((runs, rewarded, decisions, errors), (200, 84, 2454, 73));

    let (_dir, db) = setup();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/tau-bench.toml");
    let mut args = vec![
        "--config".to_string(),
        config.display().to_string(),
        "import".to_string(),
    ];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = rung(&db, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // One case per task: 50 new, the 150 other trials' copies unchanged.
    assert!(
        r.stderr
            .contains("imported 0 catalogues, 200 runs, 2454 decisions, 50 cases from 2 files"),
        "{}",
        r.stderr
    );

    let m = report(&db, "metrics");
    let rate = |key: &str| {
        let r = &m[key];
        let (n, d) = (
            r["numerator"].as_u64().unwrap(),
            r["denominator"].as_u64().unwrap(),
        );
        let v = r["value"].as_f64().unwrap();
        assert!((v - n as f64 / d as f64).abs() < 1e-12, "{key}: {r}");
        (n, d)
    };
    // Every run has expectations and a reward.
    assert_eq!(rate("runs_as_expected"), (85, 200));
    assert_eq!(rate("agreement_with_success"), (197, 200));
    assert!(m["agreement_with_success"]["value"].as_f64().unwrap() >= 0.97);
    assert_eq!(rate("expected_call_recall"), (88, 224));
    assert_eq!(rate("argument_accuracy"), (391, 439));

    // No longer "passed" for every decision nobody labelled: the walk's
    // verdicts at SELECTION and SEMANTICS, the rest unlabelled. The 73
    // `Error:` results are typed by the example's [error_stages]: 35 at
    // SEMANTICS, 38 at PRECONDITION, none left at EXECUTION.
    let ladder = report(&db, "ladder");
    assert_eq!(
        ladder,
        json!({"decisions": 2454, "labelled": 551, "rungs": {
            "coverage": 0, "exposure": 0, "discovery": 0, "selection": 112,
            "representation": 0, "schema": 0, "semantics": 83, "authorization": 0,
            "precondition": 38, "unclassified": 0, "execution": 0, "progress": 0,
            "unlabelled": 1830, "passed": 391}})
    );
    let by_boundary = rung(&db, &["report", "ladder"]).stdout;
    assert!(
        by_boundary.contains("semantics              83   3.4%                 35"),
        "{by_boundary}"
    );

    // rung check gates on it.
    let ok = rung(&db, &["check", "--min", "agreement_with_success=0.95"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert_eq!(
        ok.stdout,
        "ok    agreement_with_success = 0.985 (197/200) >= 0.95\n"
    );

    // Importing both again changes nothing.
    let again = rung(&db, &args[2..]);
    assert!(
        again
            .stderr
            .contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases"),
        "{}",
        again.stderr
    );
}
