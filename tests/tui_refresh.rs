//! The TUI open on a database another process writes to (`rung serve`):
//! the store says when another connection committed, and the app asks for
//! everything again, so new runs show without a restart.

use std::path::Path;

use clap::Parser;
use rung::store::ChangeWatch;
use rung::tui::Action;
use rung::tui::harness::Harness;

#[test]
fn runs_written_while_the_tui_is_open_show_after_the_change_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("live.db");
    drop(rung::store::Store::open_rw(&db).unwrap());
    let now = rung::model::Timestamp::parse("2026-11-23T00:00:00Z")
        .unwrap()
        .micros();
    let mut h = Harness::open(&db, now, false, 100, 30).unwrap();
    h.draw();
    h.start();
    h.settle_draw();
    assert!(h.text().contains("This database has no decisions yet."));

    let mut watch = ChangeWatch::open(&db).unwrap();
    assert!(!watch.changed().unwrap());
    // Another connection imports 4 runs and 12 decisions.
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()]).unwrap();
    let args = rung::cli::import::ImportArgs {
        paths: vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl")],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).unwrap();
    assert!(watch.changed().unwrap());
    assert!(!watch.changed().unwrap());

    // Until told, the screen is what it was.
    h.settle_draw();
    assert!(h.text().contains("This database has no decisions yet."));
    h.app.data_changed();
    // Any action sends what the app asked for.
    h.act(Action::Resize(100, 30));
    h.settle_draw();
    let text = h.text();
    assert!(!text.contains("no decisions yet"), "{text}");
    assert!(text.contains("12 decisions"), "{text}");
}
