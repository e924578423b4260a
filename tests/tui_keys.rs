//! Keys as data (issue 16): a `[keys]` table in the configuration rebinds
//! actions by name; the keymap, the key bar and the help all follow it, and
//! a bad table stops `rung` before the terminal changes (exit 2, naming the
//! file, the table and the entry).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rung::config::Config;
use rung::tui::Screen;
use rung::tui::harness::Harness;

mod tui_util;
use tui_util::{fixture, import, now};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The harness with the keys of the configuration file `toml`.
fn open_with_keys(db: &Path, config: &Path, w: u16, h: u16) -> Harness {
    let keys = rung::tui::keymap_of(&Config::load(config).unwrap(), config).unwrap();
    let mut h = Harness::open(db, now(), false, w, h).unwrap();
    h.app.keys = Arc::new(keys);
    h.draw();
    h.start();
    h.settle_draw();
    h
}

#[test]
fn rebound_keys_drive_the_app_and_show_in_the_bar_and_help() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let config = write(
        dir.path(),
        "keys.toml",
        "[keys]\nquit = \"Q\"\nsearch = \"ctrl-f\"\ngo_runs = \"R\"\nfilter = [\"ctrl-e\", \"X\"]\n",
    );
    let mut h = open_with_keys(&db, &config, 120, 40);
    // The filter bar names the rebound key.
    assert!(h.text().contains("  C-e edit"), "{}", h.text());
    // `2` still goes to Runs (go_runs' only key is now R, the 2 key is free).
    h.keys("2");
    assert_eq!(h.app.screen, Screen::Ladder);
    h.keys("R");
    h.settle_draw();
    assert_eq!(h.app.screen, Screen::Runs);
    // The key bar: the Runs screen's search is C-f now, and quit is Q.
    let bar = h.text().lines().last().unwrap().to_string();
    assert!(bar.contains(" C-f fuzzy filter "), "{bar}");
    assert!(bar.ends_with(" Q quit"), "{bar}");
    // `/` no longer searches; C-f does.
    h.keys("/");
    assert!(!h.app.runs.fuzzy.typing);
    h.keys("C-f");
    assert!(h.app.runs.fuzzy.typing);
    h.keys("Esc");
    // The help lists the keys in force.
    h.keys("?");
    h.draw();
    let help = h.text();
    assert!(help.contains("  C-f       fuzzy filter"), "{help}");
    assert!(help.contains("  Q         quit"), "{help}");
    assert!(help.contains("  C-e       filter"), "{help}");
    h.keys("q");
    // `q` closed the help only; it no longer quits.
    h.keys("q");
    assert!(!h.app.quit);
    h.keys("X");
    assert!(h.app.editing_filter);
    h.keys("Esc Q");
    assert!(h.app.quit);
}

#[test]
fn the_filter_editor_footer_follows_rebound_keys() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let config = write(
        dir.path(),
        "keys.toml",
        "[keys]\nsubmit = \"ctrl-s\"\nclear_input = \"ctrl-k\"\n",
    );
    let mut h = open_with_keys(&db, &config, 120, 40);
    h.keys("f");
    h.draw();
    assert!(
        h.text()
            .contains("C-s apply · Esc cancel · Tab/↓ next field · C-k clear field"),
        "{}",
        h.text()
    );
    h.type_text("gpt-4o");
    h.keys("C-k");
    assert_eq!(h.app.form.fields[0], "");
    h.type_text("gpt-4o");
    h.keys("C-s");
    h.settle_draw();
    assert!(!h.app.editing_filter);
    assert_eq!(h.app.filter.models, vec!["gpt-4o"]);
}

/// `rung --db DB --config FILE` (the TUI) with `[keys]` text: its exit
/// code and standard error.
fn open_rung(dir: &Path, db: &Path, keys: &str) -> (i32, String, PathBuf) {
    let config = write(dir, "bad.toml", &format!("[keys]\n{keys}\n"));
    let out = Command::new(env!("CARGO_BIN_EXE_rung"))
        .args(["--db", db.to_str().unwrap(), "--config"])
        .arg(&config)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        config,
    )
}

#[test]
fn each_bad_keys_table_stops_rung_with_the_file_table_and_entry() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let cases = [
        (
            "quitt = \"Q\"",
            "[keys] quitt = \"Q\": no action is called \"quitt\"; the actions are quit, help, back, go_ladder, go_runs, go_run, go_refusals, go_confusions, go_tools, go_findings, go_compare, next_tab, prev_tab, up, down, left, right, page_up, page_down, top, bottom, enter, search, sort, reverse, next_failing, prev_failing, hidden_tools, arguments, result, raw, matrix, scroll_down, scroll_up, next_day, prev_day, week_back, week_forward, this_week, latest_week, filter, clear_filter, set_base, candidate, diff, copy, copy_record, export, export_markdown, next_match, prev_match, submit, cancel, clear_input, backspace, next_field, prev_field, pick",
        ),
        (
            "search = \"ctrl-ff\"",
            "[keys] search = \"ctrl-ff\": \"ctrl-ff\" is not a key (write one character, ctrl-x, or a name: enter, esc, tab, shift-tab, up, down, left, right, pageup, pagedown, home, end, backspace, delete, insert, space, f1..f12)",
        ),
        (
            "quit = \"j\"",
            "[keys] quit: the key j is also down's on the Ladder screen; rebind down too, or choose another key",
        ),
        (
            "sort = \"x\"\nreverse = \"x\"",
            "[keys] reverse: the key x is also sort's on the Ladder screen; rebind sort too, or choose another key",
        ),
    ];
    for (keys, message) in cases {
        let (code, stderr, config) = open_rung(dir.path(), &db, keys);
        assert_eq!(code, 2, "{keys}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!("{}: {message}", config.display()),
            "{keys}"
        );
    }
    // An import with the file refuses it before storing anything.
    let fresh = dir.path().join("fresh.db");
    let config = write(dir.path(), "bad.toml", "[keys]\nquit = \"j\"\n");
    let out = Command::new(env!("CARGO_BIN_EXE_rung"))
        .args(["--db", fresh.to_str().unwrap(), "--config"])
        .arg(&config)
        .arg("import")
        .arg(fixture())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "{}: [keys] quit: the key j is also down's on the Ladder screen; rebind down too, or choose another key",
            config.display()
        )
    );
    assert!(!fresh.exists(), "nothing was stored");
}
