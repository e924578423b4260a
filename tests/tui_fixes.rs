//! The TUI for a newcomer: the help closes on any key, `L` stays on the
//! week grid, one "last 7 days" with the command line, numbers and
//! timestamps shown whole, names cut alike told apart, lists cut with `…`,
//! a wide Ladder, a capped bar that says so, trusted controls out of the
//! pruning queue, why a run matched `/northwind`, Enter opening a match at
//! once, zero-width characters escaped.

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::tui::Screen;
use rung::tui::harness::Harness;
use rung::window::WEEK;

fn micros(t: &str) -> i64 {
    rung::model::Timestamp::parse(t).unwrap().micros()
}

fn import(dir: &Path, paths: &[PathBuf]) -> PathBuf {
    let db = dir.join("t.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: paths.to_vec(),
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("fixture imports");
    db
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn desk() -> PathBuf {
    root().join("tests/fixtures/tui/desk.jsonl")
}

fn open_at(db: &Path, now: &str, w: u16, h: u16) -> Harness {
    let mut h = Harness::open(db, micros(now), false, w, h).expect("opens");
    h.draw();
    h.start();
    h.settle_draw();
    h
}

fn keys(h: &mut Harness, k: &str) {
    h.keys(k);
    h.settle_draw();
}

/// A trace file of `lines` in `dir`.
fn trace(dir: &Path, lines: &[&str]) -> PathBuf {
    let p = dir.join("trace.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

#[test]
fn any_key_closes_the_help_and_only_closes_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 120, 40);
    for key in ["q", "j", "x", "Enter", "2", "Esc", "?"] {
        keys(&mut h, "?");
        assert!(h.app.help, "? opens the help");
        assert!(h.text().contains("help · any key closes"));
        keys(&mut h, key);
        assert!(!h.app.help, "{key} closes the help");
        assert!(!h.app.quit, "{key} quit the app");
        assert_eq!(h.app.screen, Screen::Ladder, "{key} did more than close");
        assert_eq!(h.app.ladder.cursor.sel, 0, "{key} moved the cursor");
    }
}

#[test]
fn latest_refusals_land_on_the_week_grid() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    // Noon: the grid of weeks ends at noon, not at midnight.
    let now = "2026-12-03T12:00:00Z";
    let mut h = open_at(&db, now, 120, 40);
    keys(&mut h, "4");
    let initial = (h.app.refusals.since, h.app.refusals.until);
    assert_eq!(initial, (micros(now) - WEEK, micros(now)));
    keys(&mut h, "L");
    // The latest refusal (2026-11-19, 10:00) is in [11-12 12:00, 11-19 12:00).
    assert_eq!(
        (h.app.refusals.since, h.app.refusals.until),
        (
            micros("2026-11-12T12:00:00Z"),
            micros("2026-11-19T12:00:00Z")
        )
    );
    assert!(
        h.text()
            .contains("Refusals by reason · 2026-11-12 12:00 → 2026-11-19 12:00 (UTC, 7 days)"),
        "{}",
        h.text()
    );
    // `]` steps back onto the first window exactly.
    keys(&mut h, "] ]");
    assert_eq!((h.app.refusals.since, h.app.refusals.until), initial);
}

#[test]
fn the_last_7_days_are_the_same_in_the_tui_and_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    // 2026-11-24 09:30: the week starts 2026-11-17 09:30, after the first
    // two refusals of 11-17 09:00 would be in a whole-days week.
    let now = "2026-11-24T09:30:00Z";
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rung"))
        .env("RUNG_NOW", now)
        .args([
            "--db",
            db.to_str().unwrap(),
            "report",
            "refusals",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        cli["window"],
        serde_json::json!({"since": "2026-11-17T09:30:00Z", "until": "2026-11-24T09:30:00Z"})
    );
    let cli_total: u64 = cli["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    let mut h = open_at(&db, now, 120, 40);
    // The Ladder's trend says the same number for its last 7 days.
    assert!(
        h.text()
            .contains(&format!("refused · {cli_total} in the last 7 days")),
        "{}",
        h.text()
    );
    keys(&mut h, "4");
    let d = h.app.refusals.data.value.as_ref().unwrap();
    let tui_total: u64 = d.report.rows.iter().map(|r| r.count).sum();
    assert_eq!(tui_total, cli_total);
    assert_eq!(
        (h.app.refusals.since, h.app.refusals.until),
        (micros("2026-11-17T09:30:00Z"), micros(now))
    );
}

#[test]
fn ratios_keep_their_digits_at_80_by_24() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[root().join("sample-traces/reference-agent")]);
    let h = open_at(&db, "2026-11-15T00:00:00Z", 80, 24);
    let text = h.text();
    // The figures `rung report metrics` and `report ladder` print for the
    // sample (its four menus).
    for ratio in ["2544/2544", "2350/2544", "16/40", "128/194"] {
        assert!(text.contains(ratio), "{ratio} is cut:\n{text}");
    }
    // Every rung has its row, passed too; its bar is capped and says so.
    assert!(
        text.contains("│passed             2,350 █████»  84.4%"),
        "{text}"
    );
    assert!(text.contains(" » bar cut "), "{text}");
}

#[test]
fn the_ladder_grows_on_a_wide_screen() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[root().join("sample-traces/reference-agent")]);
    let h = open_at(&db, "2026-11-15T00:00:00Z", 200, 40);
    let text = h.text();
    let line = text
        .lines()
        .find(|l| l.contains("Top confusion cells"))
        .unwrap();
    // The cells panel is the left two fifths: 80 columns.
    let panel = line.split('┐').next().unwrap();
    assert_eq!(panel.chars().count() + 1, 80, "{line}");
    assert!(
        text.contains("[delete_calendar_event] → list_calendar_event"),
        "{text}"
    );
}

#[test]
fn the_run_header_keeps_its_time_at_120_columns() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(
        dir.path(),
        &[root().join("sample-traces/brightdesk-billing")],
    );
    let mut h = open_at(&db, "2026-09-18T00:00:00Z", 120, 40);
    keys(&mut h, "2");
    keys(&mut h, "Enter");
    let text = h.text();
    let header = text.lines().nth(2).unwrap();
    assert!(
        header.starts_with(" run bd-A-01-1 · 2026-09-15 09:00 UTC · success no · harm yes · task "),
        "{header}"
    );
    assert!(header.ends_with('…'), "{header}");
}

#[test]
fn names_cut_alike_in_the_matrix_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |n: &str| {
        format!(r#"{{"name":"{n}","family":"s","effect":"read_only","description":"Search."}}"#)
    };
    let names = [
        "search_confluence",
        "search_code",
        "search_calendar",
        "search_contacts",
        "search_cases",
        "search_commits",
        "search_sharepoint_documents",
    ];
    let cat = format!(
        r#"{{"type":"catalogue","version":"w","tools":[{}]}}"#,
        names.map(tool).join(",")
    );
    let mut lines = vec![cat];
    // Six tools picked instead: columns of 9 at 80 wide.
    let picked = [
        "search_confluence",
        "search_code",
        "search_calendar",
        "search_contacts",
        "search_cases",
        "search_commits",
    ];
    for (i, sel) in picked.iter().enumerate() {
        lines.push(format!(
            r#"{{"type":"decision","run_id":"r{i}","step":1,"at":"2026-11-20T10:00:00Z","catalogue":"w","selected":"{sel}","expected":{{"acceptable":["search_sharepoint_documents"]}}}}"#
        ));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let db = import(dir.path(), &[trace(dir.path(), &lines)]);
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 80, 24);
    keys(&mut h, "5 m");
    let text = h.text();
    let head = text.lines().find(|l| l.contains("acceptable ↓")).unwrap();
    // Each cut to 8 columns: all would read "search_…"; their ends differ.
    for label in [
        "…fluence",
        "…ch_code",
        "…alendar",
        "…ontacts",
        "…h_cases",
        "…commits",
    ] {
        assert!(head.contains(label), "{label}: {head}");
    }
}

#[test]
fn lists_cut_text_with_an_ellipsis() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(
        dir.path(),
        &[root().join("sample-traces/brightdesk-billing")],
    );
    let mut h = open_at(&db, "2026-09-18T00:00:00Z", 80, 24);
    keys(&mut h, "2");
    let text = h.text();
    // "northwind-cancel-refund" in a task column narrower than it.
    assert!(
        text.lines()
            .any(|l| l.starts_with("│bd-A-01-1 ") && l.contains("northwi") && l.contains('…')),
        "{text}"
    );
    // The top cells of the Ladder, too.
    keys(&mut h, "1");
    assert!(
        h.text().contains("[find_first_customer, sear…"),
        "{}",
        h.text()
    );
}

#[test]
fn trusted_controls_are_not_in_the_pruning_queue() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"type":"catalogue","version":"c","tools":[{"name":"find","family":"a","effect":"read_only","description":"Find."},{"name":"unused","family":"a","effect":"read_only","description":"Never used."},{"name":"ask_user","family":"control","effect":"none","description":"Ask."}]}"#,
        r#"{"type":"decision","run_id":"r","step":1,"catalogue":"c","trusted_controls":["ask_user"],"selected":"find"}"#,
    ];
    let db = import(dir.path(), &[trace(dir.path(), &lines)]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rung"))
        .args(["--db", db.to_str().unwrap(), "report", "tools"])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("Catalogue c: 3 tools, 2 never selected")
            && table.contains("Pruning queue (never selected, trusted controls aside): unused\n"),
        "{table}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rung"))
        .args([
            "--db",
            db.to_str().unwrap(),
            "report",
            "tools",
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("- c: unused\n"), "{md}");
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 160, 30);
    keys(&mut h, "6");
    let text = h.text();
    assert!(text.contains("· 1 never selected ·"), "{text}");
    let ask = text.lines().find(|l| l.contains("ask_user")).unwrap();
    assert!(
        ask.contains("trusted control") && !ask.contains("never"),
        "{ask}"
    );
}

#[test]
fn a_run_search_shows_why_each_run_matched_and_enter_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(
        dir.path(),
        &[root().join("sample-traces/brightdesk-billing")],
    );
    let mut h = open_at(&db, "2026-09-18T00:00:00Z", 160, 40);
    keys(&mut h, "2 /");
    h.type_text("northwind");
    h.settle_draw();
    let r = h.app.runs.fuzzy.result.as_ref().unwrap();
    // Only the runs that say "northwind" (any case) in their id, task,
    // model or goal, counted here from the files.
    let mut want = 0;
    for e in std::fs::read_dir(root().join("sample-traces/brightdesk-billing")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        for line in text.lines().filter(|l| l.starts_with("{\"type\":\"run\"")) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let says = ["run_id", "task_id", "model", "goal"].iter().any(|k| {
                v[k].as_str()
                    .is_some_and(|s| s.to_lowercase().contains("northwind"))
            });
            want += u64::from(says);
        }
    }
    assert_eq!(r.matched, want);
    assert!(r.exact);
    let text = h.text();
    for row in &h.app.runs.fuzzy.rows {
        let why = &r.why[&row.run_id];
        assert!(why.to_lowercase().contains("northwind"), "{why}");
    }
    assert!(text.contains("matched"), "{text}");
    assert!(text.contains("task: northwind-"), "{text}");
    // One Enter keeps the filter and opens the best match.
    let first = h.app.runs.fuzzy.rows[0].run_id.clone();
    keys(&mut h, "Enter");
    assert_eq!(h.app.screen, Screen::Run);
    assert_eq!(h.app.run.run_id.as_deref(), Some(first.as_str()));
    // Back on Runs the filter is still in force.
    keys(&mut h, "Esc");
    assert_eq!(h.app.screen, Screen::Runs);
    assert_eq!(h.app.runs.fuzzy.input, "northwind");
}

#[test]
fn the_largest_step_shows_whole_and_zero_width_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        "{\"type\":\"decision\",\"run_id\":\"r\\u200b1\",\"step\":9223372036854775807,\"selected\":\"a\\u200db\"}",
        "{\"type\":\"decision\",\"run_id\":\"r\\u200b1\",\"step\":1,\"selected\":null}",
    ];
    let db = import(dir.path(), &[trace(dir.path(), &lines)]);
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 120, 30);
    keys(&mut h, "2");
    let text = h.text();
    assert!(text.contains("│r\\u{200b}1 "), "{text}");
    keys(&mut h, "Enter");
    let text = h.text();
    // After the findings mark column (blank here).
    assert!(text.contains("│  9223372036854775807 "), "{text}");
    keys(&mut h, "j");
    let text = h.text();
    assert!(text.contains("selected  a\\u{200d}b"), "{text}");
    // No cell holds a zero-width character.
    let buf = h.terminal.backend().buffer();
    for cell in buf.content() {
        assert!(
            !cell.symbol().contains(['\u{200b}', '\u{200d}']),
            "a cell holds {:?}",
            cell.symbol()
        );
    }
}

#[test]
fn a_time_reaching_back_too_far_is_refused_in_the_filter_bar() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 120, 40);
    for since in ["20000000w", "7000000w"] {
        keys(&mut h, "f Down Down Down C-u");
        h.type_text(since);
        keys(&mut h, "Enter");
        assert!(h.app.editing_filter, "{since} was applied");
        assert_eq!(h.app.filter.since, None);
        assert!(
            h.text().contains(&format!(
                "--since \"{since}\": a relative time reaches back at most 100 years"
            )),
            "{}",
            h.text()
        );
        keys(&mut h, "Esc");
    }
    // 100 years is a window like any other.
    keys(&mut h, "f Down Down Down C-u");
    h.type_text("5217w");
    keys(&mut h, "Enter");
    assert!(!h.app.editing_filter);
    assert_eq!(h.app.filter.since, Some(micros("1926-11-29T00:00:00Z")));
    assert!(h.text().contains("Ladder · 12 decisions"), "{}", h.text());
}

#[test]
fn the_compare_screen_cuts_a_long_version_with_an_ellipsis() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"type":"catalogue","version":"support-tools-2026-11-20-release-candidate","tools":[{"name":"a","family":"f","effect":"none","description":"A."}]}"#,
        r#"{"type":"catalogue","version":"v2","tools":[{"name":"a","family":"f","effect":"none","description":"A."}]}"#,
        r#"{"type":"decision","run_id":"r","step":1,"catalogue":"v2","selected":"a"}"#,
    ];
    let db = import(dir.path(), &[trace(dir.path(), &lines)]);
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 120, 30);
    keys(&mut h, "8");
    let text = h.text();
    let row = text
        .lines()
        .find(|l| l.starts_with("│ B "))
        .unwrap_or_else(|| panic!("{text}"));
    // Cut at the list's border, marked; the short one padded to its tools.
    assert!(row.starts_with("│ B support-tools-2026-11-20…│"), "{row}");
    assert!(text.contains("│ C v2                1 tools│"), "{text}");
    // The metric table's header cuts it at its end, too, and keeps the
    // base's mark.
    assert!(
        text.contains("metric              support-tools-2026-11-20-r… (base)"),
        "{text}"
    );
}

/// The popup's lines (inside its frame) as drawn.
fn help_lines(h: &Harness) -> Vec<String> {
    let text = h.text();
    let rows: Vec<&str> = text.lines().collect();
    let top = rows
        .iter()
        .position(|r| r.contains("┌ help"))
        .expect("the help's frame");
    let at = rows[top].find("┌ help").unwrap();
    let left = rows[top][..at].chars().count();
    rows[top + 1..]
        .iter()
        // The popup is 60 columns wide.
        .map(|r| r.chars().skip(left).take(60).collect::<String>())
        .take_while(|r| !r.starts_with('└'))
        .map(|r| {
            let inner: String = r.chars().skip(1).collect();
            inner.trim_end_matches(['│', ' ']).to_string()
        })
        .collect()
}

#[test]
fn the_help_scrolls_at_80x24_and_every_line_is_reachable() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    // Every line of the help, as a terminal tall enough shows it.
    let mut tall = open_at(&db, "2026-11-23T00:00:00Z", 120, 80);
    keys(&mut tall, "?");
    assert!(tall.text().contains("help · any key closes"));
    let all = help_lines(&tall);
    assert_eq!(all.first().map(String::as_str), Some("Ladder screen"));
    assert_eq!(
        all.last().map(String::as_str),
        Some("  C-u       clear input"),
        "{all:?}"
    );
    let mut h = open_at(&db, "2026-11-23T00:00:00Z", 80, 24);
    keys(&mut h, "?");
    let first = help_lines(&h);
    assert_eq!(first.len(), 20, "the popup fills the screen but its bars");
    assert_eq!(first[..], all[..20]);
    insta::assert_snapshot!("help_top_80x24", h.terminal.backend());
    assert!(h.text().contains("more ↓"), "{}", h.text());
    // Down a line at a time to the end: every line shows once.
    let mut seen = first.clone();
    for _ in 0..all.len() {
        keys(&mut h, "j");
        assert!(h.app.help, "j scrolls the help");
        let now = help_lines(&h);
        if now.last() != seen.last() {
            seen.push(now.last().unwrap().clone());
        }
    }
    assert_eq!(seen, all);
    assert!(h.text().contains("↑ more"), "{}", h.text());
    assert!(!h.text().contains("more ↓"), "{}", h.text());
    insta::assert_snapshot!("help_bottom_80x24", h.terminal.backend());
    // PgUp goes back a page, Home to the top; another key closes.
    keys(&mut h, "G");
    assert_eq!(help_lines(&h).last(), all.last());
    keys(&mut h, "PgUp");
    assert_eq!(help_lines(&h), first);
    keys(&mut h, "PgDn");
    assert_eq!(help_lines(&h).last(), all.last());
    keys(&mut h, "g");
    assert_eq!(help_lines(&h), first);
    keys(&mut h, "x");
    assert!(!h.app.help && !h.app.quit);
    assert_eq!(h.app.screen, Screen::Ladder);
    // At 120x40 it all fits.
    let mut big = open_at(&db, "2026-11-23T00:00:00Z", 120, 40);
    keys(&mut big, "?");
    insta::assert_snapshot!("help_120x40", big.terminal.backend());
}
