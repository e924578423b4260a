//! Snapshots (insta over ratatui's `TestBackend`) of every screen at 120x40
//! and 80x24: on the hand-written fixture (tests/fixtures/tui/desk.jsonl) and
//! on `sample-traces/ladder-tour`. Each screen is reached by the keys a user
//! would press, after every answer from the workers has arrived.

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::tui::harness::Harness;

fn import(dir: &Path, paths: &[PathBuf]) -> PathBuf {
    let db = dir.join("s.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: paths.to_vec(),
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    db
}

fn micros(t: &str) -> i64 {
    rung::model::Timestamp::parse(t).unwrap().micros()
}

/// (name, what the user presses from the Ladder: key words, and `=text`
/// for typed text).
type Walk = (&'static str, &'static str);

fn snapshot_all(set: &str, db: &Path, now: i64, walks: &[Walk]) {
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        for (name, script) in walks {
            let mut t = Harness::open(db, now, false, w, h).expect("opens");
            t.draw();
            t.start();
            t.settle_draw();
            for word in script.split_whitespace() {
                match word.strip_prefix('=') {
                    Some(text) => t.type_text(text),
                    None => t.keys(word),
                }
                t.settle_draw();
            }
            insta::assert_snapshot!(format!("{set}_{name}_{w}x{h}"), t.terminal.backend());
        }
    }
}

const DESK: &[Walk] = &[
    ("ladder", ""),
    ("decisions_at_rung", "j j j Enter"),
    ("runs", "2"),
    ("runs_fuzzy", "2 / =harbor"),
    ("run", "2 j Enter j"),
    ("run_hidden_tools", "2 j Enter j v"),
    ("run_detail_focused", "2 j Enter j l"),
    ("run_result_escaped", "2 j j Enter r"),
    ("run_arguments_masked", "2 j j Enter a"),
    ("run_raw_output", "2 j j Enter j j o"),
    ("run_empty", "3"),
    ("refusals", "4"),
    ("refusals_week_back", "4 ["),
    ("confusions", "5"),
    ("confusions_matrix", "5 m"),
    ("tools", "6"),
    ("tool_why_visible", "6 j j Enter"),
    ("help", "?"),
    ("filter_editor", "f =gpt-4o"),
];

#[test]
fn desk_fixture_screens() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl");
    let db = import(dir.path(), &[fixture]);
    snapshot_all("desk", &db, micros("2026-11-23T00:00:00Z"), DESK);
}

const TOUR: &[Walk] = &[
    ("ladder", ""),
    ("decisions_at_rung", "j j j Enter"),
    ("runs", "2"),
    ("run", "2 Enter"),
    ("run_discovery", "2 j Enter n n n"),
    ("run_ticket_result", "2 j j j Enter r"),
    ("refusals", "4"),
    ("confusions", "5"),
    ("confusions_matrix", "5 m"),
    ("tools", "6"),
    ("tool_find", "6 / =search_code"),
    ("tool_why_visible", "6 / =search_code Enter"),
    ("findings", "7"),
    ("findings_week_back", "7 ["),
    ("findings_kind", "7 Enter"),
    ("findings_kind_unsourced", "7 j j j j j j j j j Enter"),
    ("findings_open_run", "7 j j j j j j j j j Enter Enter"),
    ("findings_catalogue_kind", "7 G Enter Enter"),
];

#[test]
fn ladder_tour_screens() {
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/ladder-tour");
    assert!(set.exists(), "sample-traces/ladder-tour is missing");
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[set]);
    snapshot_all("ladder_tour", &db, micros("2026-10-16T00:00:00Z"), TOUR);
}
