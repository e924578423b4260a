//! The desk fixture the TUI tests share (tests/fixtures/tui/desk.jsonl):
//! its path, a database imported from it, its "now", its decision records.
#![allow(dead_code)] // each test crate uses what it needs

use std::path::{Path, PathBuf};

use clap::Parser;

pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl")
}

/// A database in `dir` holding the desk fixture, imported as `rung import` does.
pub fn import(dir: &Path) -> PathBuf {
    let db = dir.join("desk.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![fixture()],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    db
}

/// The fixture's "now": its last week is the week the screens show.
pub fn now() -> i64 {
    rung::model::Timestamp::parse("2026-11-23T00:00:00Z")
        .unwrap()
        .micros()
}

/// The fixture's decision records.
pub fn decisions() -> Vec<serde_json::Value> {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "decision")
        .collect()
}
