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

/// desk.jsonl with r-101's step 3 written after r-102's decisions (r-101's
/// decisions apart), then two.jsonl: the decisions stored 1 to 17, r-101's
/// as 1, 2 and 7, r-103's as 8 to 10.
fn apart(dir: &std::path::Path) -> [String; 2] {
    let text = std::fs::read_to_string(path(DESK)).unwrap();
    let is = |line: &str, run: &str, step: i64| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["type"] == "decision" && v["run_id"] == run && v["step"] == step
    };
    let moved = text.lines().find(|l| is(l, "r-101", 3)).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| *l != moved) {
        out.push(line);
        if is(line, "r-102", 4) {
            out.push(moved);
        }
    }
    let file = dir.join("desk-apart.jsonl");
    std::fs::write(&file, out.join("\n") + "\n").unwrap();
    [
        file.display().to_string(),
        path("tests/fixtures/catalogues/two.jsonl"),
    ]
}

/// Each run's decisions under `f` and the rung of its earliest failed
/// step, counted here from the `ladder` view a row at a time.
fn by_hand(
    conn: &rusqlite::Connection,
    f: &rung::filter::Filter,
) -> Vec<(String, u64, Option<String>)> {
    use rung::store::filter_sql::FilterSql;
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut s = conn
        .prepare(&format!(
            "SELECT l.run_id, l.step, l.rung {from} WHERE {clause} ORDER BY l.run_id, l.step"
        ))
        .unwrap();
    let mut out: Vec<(String, u64, Option<String>)> = Vec::new();
    let mut q = s.query(rusqlite::params_from_iter(args)).unwrap();
    while let Some(r) = q.next().unwrap() {
        let (run, rung): (String, String) = (r.get(0).unwrap(), r.get(2).unwrap());
        let failed = rung::model::Rung::parse(&rung)
            .unwrap()
            .is_failure()
            .then_some(rung);
        match out.last_mut() {
            Some(last) if last.0 == run => {
                last.1 += 1;
                last.2 = last.2.take().or(failed);
            }
            _ => out.push((run, 1, failed)),
        }
    }
    out
}

#[test]
fn the_runs_report_under_a_decision_filter_adds_up_a_runs_decisions_apart() {
    let (dir, db) = setup();
    let files = apart(dir.path());
    import(&db, &["-q", &files[0], &files[1]]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let ids = |run: &str| {
        rows(
            &conn,
            &format!("SELECT id FROM decision_rows WHERE run_id = '{run}' ORDER BY id"),
        )
    };
    let int = |v: &[i64]| {
        v.iter()
            .map(|&i| vec![rusqlite::types::Value::Integer(i)])
            .collect::<Vec<_>>()
    };
    // r-101 apart; r-103 across the middle id (9) where the stored
    // decisions are read in two halves.
    assert_eq!(ids("r-101"), int(&[1, 2, 7]));
    assert_eq!(ids("r-103"), int(&[8, 9, 10]));
    assert_eq!(
        one(&conn, "SELECT max(id) FROM decision_rows"),
        int(&[17])[0][0]
    );
    let f = |catalogues: &[&str], phases: &[&str], models: &[&str]| rung::filter::Filter {
        catalogues: catalogues.iter().map(|s| s.to_string()).collect(),
        phases: phases.iter().map(|s| s.to_string()).collect(),
        models: models.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let listed = |f: &rung::filter::Filter| -> Vec<(String, u64)> {
        rung::store::query::runs(&conn, f)
            .unwrap()
            .into_iter()
            .map(|r| (r.run_id, r.decisions))
            .collect()
    };
    let owned = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
        v.iter().map(|(r, n)| (r.to_string(), *n)).collect()
    };
    // Counted by hand from the two files.
    assert_eq!(
        listed(&f(&["desk-1"], &[], &[])),
        owned(&[
            ("r-101", 3),
            ("r-102", 4),
            ("r-103", 3),
            ("r-104", 2),
            ("s-1", 2)
        ])
    );
    assert_eq!(
        listed(&f(&["desk-2"], &[], &[])),
        owned(&[("s-1", 1), ("s-2", 2)])
    );
    assert_eq!(
        listed(&f(&[], &["modify"], &[])),
        owned(&[("r-101", 1), ("r-102", 3), ("s-1", 2)])
    );
    assert_eq!(
        listed(&f(&[], &["discover"], &["gpt-4o"])),
        owned(&[("r-102", 1), ("r-104", 2), ("s-2", 2)])
    );
    assert_eq!(
        listed(&f(&["desk-1"], &["release", "discover"], &["qwen3:8b"])),
        owned(&[("r-101", 2), ("r-103", 3), ("s-1", 1)])
    );
    // r-102's modify steps fail at selection, authorization and (set by
    // hand) authorization: its first failure is step 2's.
    conn.execute(
        "UPDATE ladder_rows SET rung = 'authorization' WHERE decision_id = 6",
        [],
    )
    .unwrap();
    let first: Vec<(String, Option<&str>)> =
        rung::store::query::runs(&conn, &f(&[], &["modify"], &[]))
            .unwrap()
            .into_iter()
            .map(|r| (r.run_id, r.first_failed_rung.map(|r| r.as_str())))
            .collect();
    assert_eq!(
        first,
        [
            ("r-101".to_string(), None),
            ("r-102".to_string(), Some("selection")),
            ("s-1".to_string(), Some("selection"))
        ]
    );
    // Each run's count and first failed rung as the ladder view gives
    // them, under each filter; and the summary's runs with a failure.
    let filters = [
        f(&["desk-1"], &[], &[]),
        f(&["desk-2"], &[], &[]),
        f(&["desk-1", "desk-2"], &[], &[]),
        f(&[], &["modify"], &[]),
        f(&[], &["discover"], &[]),
        f(&[], &["discover"], &["gpt-4o"]),
        f(&["desk-1"], &[], &["qwen3:8b"]),
        f(&["desk-1"], &["release", "discover"], &["qwen3:8b"]),
        f(&["nope"], &[], &[]),
    ];
    // Outcomes to count on desk-1: r-101 and s-1 succeeded, r-102 (with
    // harm), r-103 and r-104 failed; set by hand, r-103 met its
    // expectations and r-104 did not.
    conn.execute_batch(
        "UPDATE runs SET as_expected = 1 WHERE run_id = 'r-103';
         UPDATE runs SET as_expected = 0 WHERE run_id = 'r-104';",
    )
    .unwrap();
    let desk_1 = rung::store::query::run_tally(&conn, &filters[0]).unwrap();
    assert_eq!(
        (
            desk_1.runs,
            desk_1.succeeded,
            desk_1.failed,
            desk_1.harmful,
            desk_1.with_expectations,
            desk_1.as_expected
        ),
        (5, 2, 3, 1, 2, 1)
    );
    for filter in &filters {
        let runs = rung::store::query::runs(&conn, filter).unwrap();
        let got: Vec<(String, u64, Option<String>)> = runs
            .iter()
            .map(|r| {
                (
                    r.run_id.clone(),
                    r.decisions,
                    r.first_failed_rung.map(|r| r.as_str().to_string()),
                )
            })
            .collect();
        assert_eq!(got, by_hand(&conn, filter), "{filter:?}");
        let tally = rung::store::query::run_tally(&conn, filter).unwrap();
        assert_eq!(
            (tally.runs, tally.with_rung),
            (
                got.len() as u64,
                got.iter().filter(|r| r.2.is_some()).count() as u64
            ),
            "{filter:?}"
        );
        // The summary counts what the list shows.
        let mut listed = rung::store::query::RunTally::default();
        runs.iter().for_each(|r| listed.add(r));
        assert_eq!(tally, listed, "{filter:?}");
    }
}
