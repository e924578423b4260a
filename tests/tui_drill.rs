//! Drill-downs (issue 16): every count opens the decisions behind it. From
//! each screen of the desk fixture (tests/fixtures/tui/desk.jsonl) a count
//! is drilled into with the keys a user presses; the list that opens holds
//! exactly that many decisions (the number is counted here from the
//! fixture's own records where a plain count of them gives it, and by hand
//! otherwise), the title says it, `Enter` opens the run at the decision and
//! `Esc` walks back. Each drilled list is snapshotted at 120x40 and 80x24.

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::tui::Screen;
use rung::tui::harness::Harness;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl")
}

fn import(dir: &Path) -> PathBuf {
    let db = dir.join("s.db");
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

fn now() -> i64 {
    rung::model::Timestamp::parse("2026-11-23T00:00:00Z")
        .unwrap()
        .micros()
}

/// The fixture's decision records.
fn decisions() -> Vec<serde_json::Value> {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "decision")
        .collect()
}

/// Decisions of the fixture that satisfy `keep`.
fn count(keep: impl Fn(&serde_json::Value) -> bool) -> u64 {
    decisions().iter().filter(|d| keep(d)).count() as u64
}

fn refused(d: &serde_json::Value) -> bool {
    d["outcome"]["status"] == "refused"
}

/// (name, keys from the Ladder, the count drilled into, the title (which
/// says the count; the test checks it is the same number), the screen Esc
/// returns to).
fn drills() -> Vec<(&'static str, &'static str, u64, &'static str, Screen)> {
    vec![
        // Ladder: SELECTION, by hand: r-101 step 3 picked refund_invoice
        // where cancel_subscription was expected, r-102 steps 2 and 4 and
        // r-103 step 2 picked a tool outside their labels.
        (
            "ladder_rung",
            "j j j Enter",
            4,
            "4 decisions that failed at SELECTION",
            Screen::Ladder,
        ),
        // Ladder, bndry column: two decisions were stopped at the
        // authorization boundary (r-102 steps 3 and 4).
        (
            "ladder_boundary",
            "j j j j j j j l Enter",
            2,
            "2 decisions whose boundary is authorization",
            Screen::Ladder,
        ),
        // Refusals: the reason row not_permitted (one refused record).
        (
            "refusals_reason",
            "4 Enter",
            count(|d| refused(d) && d["outcome"]["reason"] == "not_permitted"),
            "1 refusal with reason not_permitted (authorization)",
            Screen::Refusals,
        ),
        // Refusals: the third day of the week (2026-11-18) in the per-day
        // sparkline.
        (
            "refusals_day",
            "4 d d d Enter",
            count(|d| refused(d) && d["at"].as_str().unwrap().starts_with("2026-11-18")),
            "3 refusals on 2026-11-18",
            Screen::Refusals,
        ),
        // Confusions: the first cell, [ask_user] → delete_customer.
        (
            "confusions_cell",
            "5 Enter",
            1,
            "1 decision in confusion cell [ask_user] → delete_customer",
            Screen::Confusions,
        ),
        // Confusions, matrix: the cell under the cursor at first.
        (
            "confusions_matrix_cell",
            "5 m l Enter",
            1,
            "1 decision in confusion cell [ask_user] → delete_customer",
            Screen::Confusions,
        ),
        // Tools: cancel_subscription's selected and refused counts.
        (
            "tools_selected",
            "6 j l l Enter",
            count(|d| d["selected"] == "cancel_subscription"),
            "2 decisions that selected cancel_subscription",
            Screen::Tools,
        ),
        (
            "tools_refused",
            "6 j l l l Enter",
            count(|d| d["selected"] == "cancel_subscription" && refused(d)),
            "2 refused calls of cancel_subscription",
            Screen::Tools,
        ),
        // Tools: visible, by hand: cancel_subscription was visible on 10 of
        // the 12 decisions: not on r-101 step 1 (ranked 4th with k = 3) nor
        // step 2 (not retrieved).
        (
            "tools_visible",
            "6 j l Enter",
            10,
            "10 decisions cancel_subscription was visible to",
            Screen::Tools,
        ),
        // Tool (why visible?), by hand: delete_customer hidden by the family
        // rule on the 10 decisions of r-101, r-102 and r-103 (billing-only
        // policies)...
        (
            "tool_rule",
            "6 j j Enter Enter",
            10,
            "10 decisions where delete_customer was hidden by the family rule",
            Screen::Tool,
        ),
        // ... and visible by the flat rule on r-104's 2 (no policy, no
        // retrieval).
        (
            "tool_rule_second",
            "6 j j Enter j Enter",
            2,
            "2 decisions where delete_customer was visible by the flat rule",
            Screen::Tool,
        ),
    ]
}

fn walk(t: &mut Harness, keys: &str) {
    t.draw();
    t.start();
    t.settle_draw();
    for word in keys.split_whitespace() {
        t.keys(word);
        t.settle_draw();
    }
}

#[test]
fn every_count_opens_exactly_its_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        for (name, keys, n, what, from) in drills() {
            let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
            walk(&mut t, keys);
            let app = &t.app;
            assert_eq!(app.screen, Screen::Decisions, "{name}: {keys}");
            assert_eq!(app.decisions.count, Some(n), "{name}: the number drilled");
            assert_eq!(
                app.decisions.page.total,
                Some(n),
                "{name}: the list's length"
            );
            assert_eq!(app.decisions.page.rows.len() as u64, n, "{name}: rows read");
            assert_eq!(app.decisions.heading(), what, "{name}");
            assert!(what.starts_with(&format!("{n} ")), "{name}: {what}");
            let text = t.text();
            assert!(
                text.contains(&format!("┌ {n} ")),
                "{name}: the title says the count:\n{text}"
            );
            insta::assert_snapshot!(format!("drill_{name}_{w}x{h}"), t.terminal.backend());

            // Enter opens the run at the decision; Esc walks back.
            let (run, step) = {
                let row = t.app.decisions.page.selected().expect("a row");
                (row.run_id.clone(), row.step)
            };
            t.keys("Enter");
            t.settle_draw();
            assert_eq!(t.app.screen, Screen::Run, "{name}");
            assert_eq!(t.app.run.run_id.as_deref(), Some(run.as_str()), "{name}");
            let at = t.app.run.timeline.selected().map(|r| r.step);
            assert_eq!(at, Some(step), "{name}: opened at the decision");
            t.keys("Esc");
            t.settle_draw();
            // The detail pane may take one Esc first.
            if t.app.screen == Screen::Run {
                t.keys("Esc");
                t.settle_draw();
            }
            assert_eq!(t.app.screen, Screen::Decisions, "{name}");
            t.keys("Esc");
            t.settle_draw();
            assert_eq!(t.app.screen, from, "{name}");
        }
    }
}

/// The README's why-visible job on `sample-traces/ladder-tour`, in 8 keys
/// from the first screen: `6`, `/sco`, `Enter` (keep the find), `Enter`
/// (why visible?), `Enter` (the decisions behind the top rule).
#[test]
fn why_visible_takes_eight_keys_from_the_first_screen() {
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/ladder-tour");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![set],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    let now = rung::model::Timestamp::parse("2026-10-16T00:00:00Z")
        .unwrap()
        .micros();
    let mut t = Harness::open(&db, now, false, 120, 40).expect("opens");
    let keys = "6 / s c o Enter Enter Enter";
    assert_eq!(keys.split_whitespace().count(), 8);
    walk(&mut t, keys);
    assert_eq!(t.app.screen, Screen::Decisions);
    assert_eq!(t.app.tool.name, "search_code");
    let top = t.app.tool.audit.value.as_ref().expect("audit").rules[0].clone();
    assert_eq!(t.app.decisions.count, Some(top.decisions));
    assert_eq!(t.app.decisions.page.total, Some(top.decisions));
    assert_eq!(
        t.app.decisions.page.rows.len() as u64,
        top.decisions,
        "{}",
        t.text()
    );
}
