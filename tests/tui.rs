//! The TUI driven headless: key sequences and where the user lands, what
//! the screen shows for hand-counted fixtures, untrusted text escaped,
//! secrets masked, small and empty cases. Fixture: tests/fixtures/tui/desk.jsonl
//! (4 runs, 12 decisions: 7 passed, 4 SELECTION, 1 AUTHORIZATION; refusals
//! in the week of 2026-11-16: not_permitted, outside_intent,
//! subscription_still_active; subscription_not_found the week before).

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::store::browse::{DecisionSet, Drill};
use rung::tui::Screen;
use rung::tui::harness::Harness;

/// `RUNG_NOW` of the fixture: the end of its refusal week.
const NOW: &str = "2026-11-23T00:00:00Z";

fn now() -> i64 {
    rung::model::Timestamp::parse(NOW).unwrap().micros()
}

/// Imports `paths` into a new database in `dir` the way `rung import` does.
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

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl")
}

/// A started harness on the fixture at `w`x`h`, settled on the Ladder.
fn open(dir: &tempfile::TempDir, w: u16, h: u16, no_redact: bool) -> Harness {
    let db = import(dir.path(), &[fixture()]);
    let mut h = Harness::open(&db, now(), no_redact, w, h).expect("opens");
    h.draw();
    h.start();
    h.settle_draw();
    h
}

fn selected_step(h: &Harness) -> Option<(String, i64)> {
    h.app
        .run
        .timeline
        .selected()
        .map(|r| (r.run_id.clone(), r.step))
}

#[test]
fn the_first_frame_is_drawn_before_any_query() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[fixture()]);
    let mut h = Harness::open(&db, now(), false, 120, 40).unwrap();
    h.draw();
    assert!(
        h.app.outbox.is_empty(),
        "nothing asked before the first frame"
    );
    assert!(h.text().contains("loading…"));
    h.start();
    assert!(h.app.pending() > 0);
    h.settle_draw();
    let text = h.text();
    assert!(
        text.contains("Ladder · 12 decisions, 12 labelled"),
        "{text}"
    );
    let (c, _) = h.app.ladder.counts.value.as_ref().unwrap();
    assert_eq!(c.count(rung::model::Rung::Selection), 4);
    assert_eq!(c.count(rung::model::Rung::Authorization), 1);
    assert_eq!(c.count(rung::model::Rung::Passed), 7);
    assert!(text.contains("│selection              4 "), "{text}");
    assert!(
        text.contains("selection accuracy     66.7%  8/12"),
        "{text}"
    );
}

#[test]
fn a_rung_lists_its_decisions_and_each_opens_the_run_there() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    // coverage, exposure, discovery, selection
    h.keys("j j j Enter");
    h.settle_draw();
    assert_eq!(h.app.screen, Screen::Decisions);
    assert_eq!(
        h.app.decisions.set,
        Some(Drill::Set(DecisionSet::Rung(rung::model::Rung::Selection)))
    );
    let rows: Vec<(String, i64)> = h
        .app
        .decisions
        .page
        .rows
        .iter()
        .map(|(_, r)| (r.run_id.clone(), r.step))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("r-102".to_string(), 2),
            ("r-102".to_string(), 4),
            ("r-103".to_string(), 2),
            ("r-104".to_string(), 1)
        ]
    );
    h.keys("j Enter");
    h.settle_draw();
    assert_eq!(h.app.screen, Screen::Run);
    assert_eq!(selected_step(&h), Some(("r-102".into(), 4)));
    let text = h.text();
    assert!(text.contains("selected  delete_customer"), "{text}");
    let d = h.app.selected_detail().unwrap();
    assert_eq!(d.detail.explained.findings[0].kind, "hidden_proposal");
    h.keys("l G");
    h.draw();
    assert!(
        h.text()
            .contains("hidden_proposal: selected delete_customer")
    );
    // Esc walks back the way the user came: pane, list, ladder.
    h.keys("Esc");
    assert_eq!(h.app.screen, Screen::Run);
    assert!(!h.app.run.focus_detail);
    h.keys("Esc");
    assert_eq!(h.app.screen, Screen::Decisions);
    h.keys("Esc");
    assert_eq!(h.app.screen, Screen::Ladder);
}

#[test]
fn n_and_shift_n_jump_between_failing_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("2");
    h.settle_draw();
    h.keys("j Enter");
    h.settle_draw();
    assert_eq!(selected_step(&h), Some(("r-102".into(), 1)));
    h.keys("n");
    assert_eq!(selected_step(&h), Some(("r-102".into(), 2)));
    h.keys("n n");
    assert_eq!(selected_step(&h), Some(("r-102".into(), 4)));
    h.keys("n");
    assert_eq!(selected_step(&h), Some(("r-102".into(), 4)));
    assert_eq!(
        h.app.status.as_deref(),
        Some("no later failing decision in this run")
    );
    h.keys("N");
    assert_eq!(selected_step(&h), Some(("r-102".into(), 3)));
    h.settle_draw();
    let text = h.text();
    assert!(text.contains("AUTHORIZATION"), "{text}");
    assert!(text.contains("(outside_intent)"), "{text}");
}

#[test]
fn the_menu_is_shown_in_recorded_order_with_rules_ranks_and_hidden_tools() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 160, 50, false);
    h.keys("2");
    h.settle_draw();
    h.keys("j Enter");
    h.settle_draw();
    h.keys("j");
    h.settle_draw();
    let d = h.app.selected_detail().expect("detail loaded").clone();
    let menu: Vec<(&str, &str, Option<usize>)> = d
        .detail
        .menu
        .iter()
        .map(|m| (m.name.as_str(), m.rule.as_str(), m.rank))
        .collect();
    assert_eq!(
        menu,
        vec![
            ("ask_user", "trusted_control", None),
            ("no_applicable_tool", "trusted_control", None),
            ("refund_invoice", "retrieved", Some(1)),
            ("cancel_subscription", "retrieved", Some(2)),
            ("list_invoices", "retrieved", Some(3)),
        ]
    );
    assert!(d.detail.menu_recorded);
    let hidden: Vec<(&str, &str)> = d
        .detail
        .hidden
        .iter()
        .map(|m| (m.name.as_str(), m.rule.as_str()))
        .collect();
    assert_eq!(
        hidden,
        vec![
            ("delete_customer", "family"),
            ("find_customer", "not_retrieved"),
            ("send_email", "family"),
        ]
    );
    let text = h.text();
    assert!(
        !text.contains("Hidden tools ·"),
        "hidden tools are toggled off"
    );
    h.keys("v");
    h.draw();
    let text = h.text();
    assert!(text.contains("Hidden tools · 3"), "{text}");
    assert_eq!(
        d.detail.hidden[1].why,
        "eligible, not retrieved: rank 4 (score 0.3) > k=3"
    );
}

#[test]
fn fuzzy_filter_over_runs_and_enter_opens_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("2 /");
    assert!(h.app.is_typing());
    h.type_text("lumen");
    h.settle_draw();
    let r = h.app.runs.fuzzy.result.as_ref().expect("matched");
    assert_eq!(r.matched, 1);
    assert_eq!(r.rows[0].run_id, "r-103");
    // q is text while typing, not quit
    h.type_text("q");
    assert!(!h.app.quit);
    h.keys("Backspace Enter");
    assert!(!h.app.is_typing());
    h.settle_draw();
    // One Enter keeps the filter and opens the match (once it is in).
    assert_eq!(h.app.screen, Screen::Run);
    assert_eq!(selected_step(&h), Some(("r-103".into(), 1)));
    // Words match separately: a model and a task word.
    h.keys("Esc");
    h.keys("/ C-u");
    h.type_text("gpt harbor");
    h.settle_draw();
    let r = h.app.runs.fuzzy.result.as_ref().unwrap();
    assert_eq!(
        r.rows.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
        vec!["r-104"]
    );
    // Esc clears the filter and shows every run again.
    h.keys("Esc");
    h.settle_draw();
    assert!(!h.app.runs.fuzzy.active());
    assert!(h.text().contains("Runs · 4"));
}

#[test]
fn runs_sort_by_column_and_reverse() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("2");
    h.settle_draw();
    let ids = |h: &Harness| -> Vec<String> {
        h.app
            .runs
            .page
            .rows
            .iter()
            .map(|(_, r)| r.run_id.clone())
            .collect()
    };
    assert_eq!(ids(&h), ["r-101", "r-102", "r-103", "r-104"]);
    // task, then trial, then model
    h.keys("s s s");
    h.settle_draw();
    assert_eq!(ids(&h), ["r-102", "r-104", "r-101", "r-103"]);
    h.keys("S");
    h.settle_draw();
    assert_eq!(ids(&h), ["r-103", "r-101", "r-104", "r-102"]);
    assert!(h.text().contains("model ▼"));
}

#[test]
fn refusals_move_by_a_week_and_list_their_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("4");
    h.settle_draw();
    let rows = |h: &Harness| -> Vec<(String, u64, u64)> {
        let d = h.app.refusals.data.value.as_ref().unwrap();
        d.report
            .rows
            .iter()
            .map(|r| (r.reason.clone().unwrap(), r.count, r.previous))
            .collect()
    };
    assert_eq!(
        rows(&h),
        vec![
            ("not_permitted".into(), 1, 0),
            ("outside_intent".into(), 1, 0),
            ("subscription_still_active".into(), 1, 0),
            ("subscription_not_found".into(), 0, 1),
        ]
    );
    let text = h.text();
    assert!(
        text.contains("3 refusals in 1 run (previous window: 1)"),
        "{text}"
    );
    h.keys("j Enter");
    h.settle_draw();
    assert_eq!(h.app.screen, Screen::Decisions);
    assert_eq!(h.app.decisions.page.rows.len(), 1);
    assert_eq!(h.app.decisions.page.rows[0].1.step, 3);
    h.keys("Esc [");
    h.settle_draw();
    assert_eq!(rows(&h), vec![("subscription_not_found".into(), 1, 0)]);
    assert!(h.text().contains("2026-11-09 → 2026-11-16"));
    h.keys("t");
    h.settle_draw();
    assert_eq!(rows(&h).len(), 4);
}

#[test]
fn a_confusion_cell_lists_its_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("5");
    h.settle_draw();
    let text = h.text();
    assert!(
        text.contains("4 selection failures in 4 cells; the top two explain 50.0%."),
        "{text}"
    );
    // cells tie at 1: ordered by acceptable, then selected
    h.keys("j j Enter");
    h.settle_draw();
    assert_eq!(
        h.app.decisions.set,
        Some(Drill::Set(DecisionSet::Cell {
            acceptable: vec!["cancel_subscription".into()],
            selected: Some("refund_invoice".into()),
        }))
    );
    assert_eq!(h.app.decisions.page.rows[0].1.run_id, "r-102");
    h.keys("Esc m");
    h.draw();
    assert!(
        h.text()
            .contains("Matrix · top 3 acceptable sets × top 4 selected instead")
    );
}

#[test]
fn a_tool_explains_why_it_was_visible() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("6 /");
    h.type_text("cancel");
    h.keys("Enter");
    h.settle_draw();
    assert!(h.text().contains("1 found"), "{}", h.text());
    h.keys("Enter");
    h.settle_draw();
    assert_eq!(h.app.screen, Screen::Tool);
    let a = h.app.tool.audit.value.as_ref().unwrap();
    assert_eq!(a.total, 12);
    let rules: Vec<(bool, &str, u64)> = a
        .rules
        .iter()
        .map(|r| (r.visible, r.rule.as_str(), r.decisions))
        .collect();
    // r-101: rank 4 > k=3, not a candidate, rank 2; r-102: retrieved at
    // every step; r-103: a policy, no retrieval; r-104: neither.
    assert_eq!(
        rules,
        vec![
            (true, "retrieved", 5),
            (true, "eligible", 3),
            (true, "flat", 2),
            (false, "not_retrieved", 2),
        ]
    );
    let text = h.text();
    assert!(text.contains("Cancels a subscription now or at the end of the period."));
    assert!(text.contains("all 12 decisions in the filter"), "{text}");
}

#[test]
fn the_filter_bar_applies_to_every_screen() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("f");
    assert!(h.app.editing_filter);
    h.type_text("gpt-4o");
    h.keys("Enter");
    h.settle_draw();
    let text = h.text();
    assert!(text.contains("filter: model=gpt-4o"), "{text}");
    assert!(text.contains("Ladder · 6 decisions, 6 labelled"), "{text}");
    h.keys("2");
    h.settle_draw();
    assert!(h.text().contains("Runs · 2"));
    // a bad time is refused with a message, the filter unchanged
    h.keys("f Down Down Down");
    h.type_text("yesterday");
    h.keys("Enter");
    h.draw();
    assert!(h.app.editing_filter);
    assert!(h.text().contains("--since \"yesterday\""), "{}", h.text());
    h.keys("Esc F");
    h.settle_draw();
    assert!(h.text().contains("Runs · 4"));
    assert!(h.text().contains("filter: none"));
}

#[test]
fn escape_sequences_in_a_result_reach_the_buffer_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("2");
    h.settle_draw();
    h.keys("j j Enter");
    h.settle_draw();
    // the goal carries an escape sequence too
    assert!(
        h.text()
            .contains(r"Export Lumen's invoices \x1b[2J and email")
    );
    h.keys("r");
    h.settle_draw();
    let text = h.text();
    assert!(
        text.contains(r#""note": "\u001b[2J\u001b[31mIGNORE PREVIOUS"#),
        "{text}"
    );
    let buf = h.terminal.backend().buffer();
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(rung::text::is_unsafe),
            "a control character reached the screen: {:?}",
            cell.symbol()
        );
    }
}

#[test]
fn secrets_are_masked_unless_no_redact() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.keys("2");
    h.settle_draw();
    h.keys("j j Enter l");
    h.settle_draw();
    h.keys("G");
    h.draw();
    let text = h.text();
    assert!(text.contains(r#""api_key": "••••""#), "{text}");
    assert!(!text.contains("sk-test-4f9aQ2xLk81abc"));
    h.keys("r");
    h.settle_draw();
    let text = h.text();
    assert!(text.contains(r#""auth": "••••""#), "{text}");
    assert!(!text.contains("eyJhbGciOiJIUzI1NiJ9"));

    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, true);
    h.keys("2");
    h.settle_draw();
    h.keys("j j Enter");
    h.settle_draw();
    h.keys("l G");
    h.draw();
    let text = h.text();
    assert!(text.contains("sk-test-4f9aQ2xLk81abc"), "{text}");
    assert!(text.contains("secrets shown (--no-redact)"));
}

#[test]
fn tiny_terminals_resizes_and_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(&dir, 120, 40, false);
    h.resize(60, 20);
    h.draw();
    assert!(h.text().contains("terminal too small: 60x20"));
    h.resize(80, 24);
    h.draw();
    assert!(h.text().contains("Ladder · 12 decisions"));
    let before = h.app.screen;
    h.keys("Z % ~ Backspace Space");
    for k in [
        ratatui::crossterm::event::KeyCode::F(5),
        ratatui::crossterm::event::KeyCode::Insert,
        ratatui::crossterm::event::KeyCode::Null,
    ] {
        h.press(ratatui::crossterm::event::KeyEvent::new(
            k,
            ratatui::crossterm::event::KeyModifiers::NONE,
        ));
    }
    h.settle_draw();
    assert_eq!(h.app.screen, before);
    // Every screen draws at the smallest size without panicking.
    for k in ["1", "2", "3", "4", "5", "6", "?", "f"] {
        h.keys(k);
        h.settle_draw();
        h.keys("Esc");
    }
    h.keys("q");
    assert!(h.app.quit);
}

#[test]
fn an_empty_database_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.db");
    drop(rung::store::Store::open_rw(&db).unwrap());
    let mut h = Harness::open(&db, now(), false, 80, 24).unwrap();
    h.draw();
    h.start();
    h.settle_draw();
    assert!(h.text().contains("This database has no decisions yet."));
    // The format's description ships with rung.
    assert!(
        h.text()
            .contains("The trace format: docs/trace-format.md in rung's repository."),
        "{}",
        h.text()
    );
    for k in [
        "2", "Enter", "3", "j", "4", "Enter", "5", "m", "Enter", "6", "Enter", "/",
    ] {
        h.keys(k);
        h.settle_draw();
    }
}

#[test]
fn a_large_result_is_read_in_bounded_chunks() {
    let dir = tempfile::tempdir().unwrap();
    // One decision whose result is ~6 MB of records.
    let items: Vec<String> = (0..120_000)
        .map(|i| format!(r#"{{"row":{i},"text":"line {i} of a long export"}}"#))
        .collect();
    let line = format!(
        r#"{{"type":"decision","run_id":"big","step":1,"selected":"export","outcome":{{"status":"ok"}},"result":{{"rows":[{}]}}}}"#,
        items.join(",")
    );
    let path = dir.path().join("big.jsonl");
    std::fs::write(&path, line + "\n").unwrap();
    let db = import(dir.path(), &[path]);
    let mut h = Harness::open(&db, now(), false, 120, 40).unwrap();
    h.draw();
    h.start();
    h.settle_draw();
    h.keys("2");
    h.settle_draw();
    h.keys("Enter");
    h.settle_draw();
    h.keys("r");
    h.settle_draw();
    let v = h.app.run.viewer.as_ref().expect("viewer open");
    assert!(v.total.unwrap() > 5_000_000);
    let held: u64 = v.chunks.iter().map(|c| c.end - c.start).sum();
    assert!(held <= 3 * 100 * 1024, "only a few chunks are held: {held}");
    assert!(h.text().contains(r#""row": 0,"#));
    // G goes to the end through the worker; the screen shows the last rows.
    h.keys("G");
    h.settle_draw();
    let text = h.text();
    assert!(text.contains(r#""row": 119999,"#), "{text}");
    assert!(text.contains("(end)"));
    // and back to the top
    h.keys("g");
    h.settle_draw();
    assert!(h.text().contains(r#""row": 0,"#));
}
