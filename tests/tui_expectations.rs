//! The TUI on runs with expectations (format 1.1): the Ladder shows
//! `unlabelled` apart from `passed`, the Runs list an "as expected" column,
//! the Run screen each call's place in the matching walk, derived labels,
//! the run's expected calls and its missing outputs; `n` skips unlabelled
//! decisions. Fixture: tests/fixtures/expectations/airline.jsonl with
//! airline.toml (worked by hand in tests/expectations.rs).

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::model::Rung;
use rung::tui::Screen;
use rung::tui::harness::Harness;

fn micros(t: &str) -> i64 {
    rung::model::Timestamp::parse(t).unwrap().micros()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/expectations")
        .join(name)
}

/// Imports the airline fixture with its configuration, as `rung --config
/// airline.toml import airline.jsonl` does.
fn import(dir: &Path) -> PathBuf {
    let db = dir.join("t.db");
    let toml = fixture("airline.toml");
    let cli = rung::cli::Cli::try_parse_from([
        "rung",
        "-q",
        "--db",
        db.to_str().unwrap(),
        "--config",
        toml.to_str().unwrap(),
    ])
    .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![fixture("airline.jsonl")],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("fixture imports");
    db
}

const NOW: &str = "2026-05-16T00:00:00Z";

fn open(dir: &tempfile::TempDir, w: u16, h: u16) -> Harness {
    let db = import(dir.path());
    let mut h = Harness::open(&db, micros(NOW), false, w, h).expect("opens");
    h.draw();
    h.start();
    h.settle_draw();
    h
}

/// Presses `script` (key words) from the Ladder, settling after each.
fn walk(h: &mut Harness, script: &str) {
    for word in script.split_whitespace() {
        h.keys(word);
        h.settle_draw();
    }
}

fn selected_step(h: &Harness) -> Option<(String, i64)> {
    h.app
        .run
        .timeline
        .selected()
        .map(|r| (r.run_id.clone(), r.step))
}

#[test]
fn the_ladder_shows_unlabelled_and_passed_and_drills_into_unlabelled() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40);
    let text = h.text();
    assert!(text.contains("Ladder · 18 decisions, 9 labelled"), "{text}");
    // Both rows are on screen; the bars are scaled to the largest failing
    // rung (selection, 2), so unlabelled (7) and passed (6) are capped.
    assert!(text.contains("│unlabelled             7 "), "{text}");
    assert!(text.contains("│passed                 6 "), "{text}");
    assert!(text.contains("runs as expected       50.0%  2/4"), "{text}");
    assert!(text.contains("agrees with success    66.7%  2/3"), "{text}");
    let unlabelled = Rung::ALL
        .iter()
        .position(|r| *r == Rung::Unlabelled)
        .unwrap();
    walk(&mut h, &format!("{} Enter", "j ".repeat(unlabelled)));
    assert_eq!(h.app.screen, Screen::Decisions);
    assert_eq!(h.app.decisions.page.rows.len(), 7);
    let text = h.text();
    assert!(
        text.contains(
            "7 unlabelled decisions: no label, and nothing failed at the boundary or progress"
        ),
        "{text}"
    );
    // And `passed`, the row after it.
    walk(&mut h, "Esc j Enter");
    assert!(
        h.text()
            .contains("┌ 6 labelled decisions that passed every rung "),
        "{}",
        h.text()
    );
}

#[test]
fn runs_list_has_an_as_expected_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40);
    walk(&mut h, "2");
    let text = h.text();
    assert!(text.contains("as expected"), "{text}");
    let line = |id: &str| -> String {
        text.lines()
            .find(|l| l.starts_with(&format!("│{id} ")))
            .unwrap_or_else(|| panic!("no row {id} in {text}"))
            .to_string()
    };
    assert!(
        line("a1").trim_end_matches('│').trim_end().ends_with("no"),
        "{}",
        line("a1")
    );
    assert!(
        line("a3").trim_end_matches('│').trim_end().ends_with("yes"),
        "{}",
        line("a3")
    );
    assert!(
        line("v1").trim_end_matches('│').trim_end().ends_with("-"),
        "{}",
        line("v1")
    );
}

#[test]
fn the_run_screen_shows_the_walk_derived_labels_and_expected_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40);
    // a1, step 3: the call whose reason differs from expected call 2.
    walk(&mut h, "2 Enter j j");
    assert_eq!(selected_step(&h), Some(("a1".into(), 3)));
    let text = h.text();
    assert!(text.contains("as expected no"), "{text}");
    // The timeline's expected column: step 2 matched 1, step 3 differs
    // from 2, step 4 matched 2.
    let expected_col: Vec<Option<(String, Option<u32>)>> = h
        .app
        .run
        .timeline
        .rows
        .iter()
        .map(|(_, d)| d.matching.clone())
        .collect();
    assert_eq!(
        expected_col,
        [
            None,
            Some(("matched".into(), Some(1))),
            Some(("mismatch".into(), Some(2))),
            Some(("matched".into(), Some(2))),
            Some(("matched".into(), Some(3))),
            None
        ]
    );
    assert!(text.contains("≠ 2"), "{text}");
    assert!(text.contains("✓ 3"), "{text}");
    let d = h.app.selected_detail().expect("detail loaded");
    let e = &d.detail.explained;
    assert_eq!(
        e.label.as_ref().map(|(l, s)| (l.acceptable.clone(), *s)),
        Some((vec!["cancel_reservation".to_string()], "derived"))
    );
    assert!(
        text.contains("label     acceptable [cancel_reservation] (derived)"),
        "{text}"
    );
    assert!(
        text.contains("expected  ✗ differs from expected call 2 (cancel_reservation):"),
        "{text}"
    );
    // The run's table, this decision's row marked.
    h.keys("l");
    for _ in 0..12 {
        h.keys("j");
    }
    h.draw();
    let text = h.text();
    assert!(
        text.contains("Expected calls · 3 · the run did not go as expected"),
        "{text}"
    );
    assert!(text.contains("▸  2 cancel_reservation"), "{text}");
    assert!(text.contains("✗ mismatch"), "{text}");
    assert!(text.contains("card •••• was charged twice"), "{text}");
}

#[test]
fn missing_calls_unexpected_calls_and_missing_outputs_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40);
    // a2, its last decision: no call while cancel and book are missing.
    walk(&mut h, "2 j Enter G");
    assert_eq!(selected_step(&h), Some(("a2".into(), 6)));
    let text = h.text();
    assert!(text.contains("unexp"), "{text}");
    assert!(text.contains("derived"), "{text}");
    assert!(
        text.contains("label     acceptable [book_reservation, cancel_reservation]"),
        "{text}"
    );
    assert_eq!(
        h.app
            .selected_detail()
            .and_then(|d| d.detail.explained.label.as_ref().map(|(_, s)| *s)),
        Some("derived")
    );
    let x = h
        .app
        .selected_detail()
        .and_then(|d| d.detail.expectations.clone())
        .expect("the run's expectations");
    let statuses: Vec<(Option<u32>, &str)> = x
        .matching
        .iter()
        .map(|r| (r.expected, r.status.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            (Some(1), "matched"),
            (Some(2), "missing"),
            (Some(3), "missing"),
            (None, "unexpected")
        ]
    );
    assert_eq!(x.missing_outputs, ["1,628"]);
    h.keys("l");
    for _ in 0..20 {
        h.keys("j");
    }
    h.draw();
    let text = h.text();
    assert!(
        text.contains("Missing outputs · 1 of 1 in no answer"),
        "{text}"
    );
    assert!(text.contains("\"1,628\""), "{text}");
}

#[test]
fn n_skips_unlabelled_and_passed_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40);
    // a2: 1 passed, 2 AUTHORIZATION, 3 PRECONDITION, 4 SELECTION,
    // 5 unlabelled, 6 SELECTION.
    walk(&mut h, "2 j Enter");
    assert_eq!(selected_step(&h), Some(("a2".into(), 1)));
    let mut seen = Vec::new();
    for _ in 0..4 {
        h.keys("n");
        h.settle_draw();
        seen.push(selected_step(&h).unwrap().1);
    }
    assert_eq!(seen, [2, 3, 4, 6]);
    h.keys("N");
    h.settle_draw();
    assert_eq!(selected_step(&h), Some(("a2".into(), 4)));
    // a1: after step 3 (SEMANTICS) only passed and unlabelled follow.
    walk(&mut h, "2 k Enter n");
    assert_eq!(selected_step(&h), Some(("a1".into(), 3)));
    h.keys("n");
    h.settle_draw();
    assert_eq!(selected_step(&h), Some(("a1".into(), 3)));
    assert_eq!(
        h.app.status.as_deref(),
        Some("no later failing decision in this run")
    );
}

#[test]
fn airline_screens() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for (w, hgt) in [(120u16, 40u16), (80, 24)] {
        for (name, script) in [
            ("ladder", ""),
            ("runs", "2"),
            ("run_mismatch", "2 Enter j j"),
            ("run_missing", "2 j Enter G"),
        ] {
            let mut t = Harness::open(&db, micros(NOW), false, w, hgt).expect("opens");
            t.draw();
            t.start();
            t.settle_draw();
            walk(&mut t, script);
            insta::assert_snapshot!(format!("airline_{name}_{w}x{hgt}"), t.terminal.backend());
        }
    }
}
