//! The runs report under a decision filter: each run's decisions the filter
//! keeps and the first failed rung among them, by step, whatever order the
//! decisions were stored in.

mod import_util;
mod store_util;

use import_util::*;
use store_util::*;

/// desk.jsonl with r-102's decisions written steps 3, 2, 4 (stored in that
/// order): its modify steps fail at selection (2), authorization (3) and
/// selection (4).
fn shuffled(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path(DESK)).unwrap();
    let step_of = |line: &str| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        (v["type"] == "decision" && v["run_id"] == "r-102").then(|| v["step"].as_i64().unwrap())
    };
    let mut out = Vec::new();
    let mut r102: Vec<(i64, &str)> = Vec::new();
    for line in text.lines() {
        match step_of(line) {
            Some(step) => r102.push((step, line)),
            None => {
                if !r102.is_empty() {
                    out.extend(take_in(&mut r102, &[1, 3, 2, 4]));
                }
                out.push(line);
            }
        }
    }
    out.extend(take_in(&mut r102, &[1, 3, 2, 4]));
    let file = dir.join("desk-shuffled.jsonl");
    std::fs::write(&file, out.join("\n") + "\n").unwrap();
    file.display().to_string()
}

/// The lines of `lines` in the order of `steps` (and empties it).
fn take_in<'a>(lines: &mut Vec<(i64, &'a str)>, steps: &[i64]) -> Vec<&'a str> {
    let out = steps
        .iter()
        .filter_map(|s| lines.iter().find(|(step, _)| step == s).map(|(_, l)| *l))
        .collect();
    lines.clear();
    out
}

#[test]
fn a_runs_first_failure_under_a_phase_is_its_earliest_steps() {
    let (dir, db) = setup();
    import(&db, &["-q", &shuffled(dir.path())]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    // Stored out of step order: r-102's step 3 before its step 2.
    assert_eq!(
        rows(
            &conn,
            "SELECT step FROM decision_rows WHERE run_id = 'r-102' ORDER BY id"
        ),
        [1, 3, 2, 4]
            .map(|s| vec![rusqlite::types::Value::Integer(s)])
            .to_vec()
    );
    let r = rung(
        &db,
        &["report", "runs", "--phase", "modify", "--format", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let runs: Vec<(&str, u64, &str)> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["run_id"].as_str().unwrap(),
                r["decisions"].as_u64().unwrap(),
                r["first_failed_rung"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    // r-101's one modify step passed; r-102's three, the earliest (step 2)
    // failing at selection.
    assert_eq!(runs, [("r-101", 1, "-"), ("r-102", 3, "selection")]);
    let tally = rung::store::query::run_tally(
        &conn,
        &rung::filter::Filter {
            phases: vec!["modify".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((tally.runs, tally.with_rung), (2, 1));
}
