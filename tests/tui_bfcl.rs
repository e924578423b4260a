//! The TUI on BFCL results (tests/fixtures/bfcl/v1): the Runs list shows
//! each run's verdict against its expected calls, a tag filter keeps one
//! category, and the Run screen lists each path of a call's arguments that
//! fails its schema (`expectations.md` §8).

use std::path::{Path, PathBuf};

mod bfcl_fixture;

use clap::Parser;
use rung::tui::Screen;
use rung::tui::harness::Harness;

fn import(dir: &Path) -> PathBuf {
    let db = dir.join("t.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![bfcl_fixture::staged("v1")],
        format: "bfcl".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("fixture imports");
    db
}

fn open(dir: &tempfile::TempDir) -> Harness {
    let db = import(dir.path());
    let mut h = Harness::open(&db, 0, false, 160, 60).expect("opens");
    h.draw();
    h.start();
    h.settle_draw();
    h
}

/// Opens the run whose id matches `words` on the Run screen (Enter in the
/// search box opens the best match).
fn open_run(h: &mut Harness, words: &str) {
    h.keys("2 /");
    h.type_text(words);
    h.settle_draw();
    h.keys("Enter");
    h.settle_draw();
    assert_eq!(h.app.screen, Screen::Run);
}

#[test]
fn a_call_that_fails_its_schema_lists_each_failing_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir);
    // simple_3: "days" given as the string "3" for an integer.
    open_run(&mut h, "simple_3");
    let text = h.text();
    assert!(
        text.contains(
            "schema_violation: the arguments of get_weather_forecast fail its schema; nothing ran"
        ),
        "{text}"
    );
    assert!(
        text.contains("│    /days: type: expected integer, got string \"3\" "),
        "{text}"
    );
    // simple_2: a required argument missing; BFCL's types pass.
    h.keys("Esc Esc");
    h.settle_draw();
    open_run(&mut h, "simple_2");
    let text = h.text();
    assert!(
        text.contains("│    /party_size: required: missing "),
        "{text}"
    );
    assert!(text.contains("schema_violation"), "{text}");
}

#[test]
fn a_tag_filter_keeps_one_category_and_the_runs_list_shows_as_expected() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir);
    h.keys("2");
    h.settle_draw();
    assert!(h.text().contains("Runs · 23"), "{}", h.text());
    // The filter form's sixth field is the tag.
    h.keys("f Down Down Down Down Down");
    h.type_text("bfcl_category=parallel");
    h.keys("Enter");
    h.settle_draw();
    let text = h.text();
    assert!(
        text.contains("filter: tag bfcl_category=parallel"),
        "{text}"
    );
    assert!(text.contains("Runs · 3"), "{text}");
    // parallel_function_0 went as expected (calls in another order, an
    // optional argument left out); _1 and _2 did not.
    let rows: Vec<(String, Option<bool>)> = h
        .app
        .runs
        .page
        .rows
        .iter()
        .map(|(_, r)| (r.run_id.clone(), r.as_expected))
        .collect();
    assert_eq!(
        rows,
        [
            (
                "example-model-FC/parallel_function_0".to_string(),
                Some(true)
            ),
            (
                "example-model-FC/parallel_function_1".to_string(),
                Some(false)
            ),
            (
                "example-model-FC/parallel_function_2".to_string(),
                Some(false)
            ),
        ]
    );
}
