//! Drill-downs (issue 16): every count opens the decisions behind it. From
//! each screen of the desk fixture (tests/fixtures/tui/desk.jsonl) a count
//! is drilled into with the keys a user presses; the list that opens holds
//! exactly that many decisions (the number is counted here from the
//! fixture's own records where a plain count of them gives it, and by hand
//! otherwise), the title says it, `Enter` opens the run at the decision and
//! `Esc` walks back. Each drilled list is snapshotted at 120x40 and 80x24.

use std::path::Path;

use clap::Parser;
use rung::tui::Screen;
use rung::tui::harness::Harness;

mod tui_util;
use tui_util::{decisions, import, now};

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

/// The README's why-visible job on `sample-traces/ladder-tour`, in 7 keys
/// from the first screen: `6`, `/sco`, `Enter` (the best match's why
/// visible?), `Enter` (the decisions behind the top rule).
#[test]
fn why_visible_takes_seven_keys_from_the_first_screen() {
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
    let keys = "6 / s c o Enter Enter";
    assert_eq!(keys.split_whitespace().count(), 7);
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

/// The (run, step) rows of the Decisions list, in order.
fn listed(t: &Harness) -> Vec<(String, i64)> {
    t.app
        .decisions
        .page
        .rows
        .iter()
        .map(|(_, d)| (d.run_id.clone(), d.step))
        .collect()
}

fn rs(v: &[(&str, i64)]) -> Vec<(String, i64)> {
    v.iter().map(|(r, s)| (r.to_string(), *s)).collect()
}

#[test]
fn a_drilled_list_searches_and_sorts() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        // The 4 SELECTION failures (see every_count_opens_exactly_its_decisions).
        walk(&mut t, "j j j Enter");
        let natural = rs(&[("r-102", 2), ("r-102", 4), ("r-103", 2), ("r-104", 1)]);
        assert_eq!(listed(&t), natural);
        // `/refused`: the three of them that were refused (r-103 step 2
        // timed out), counted from the fixture.
        walk_more(&mut t, "/ r e f u s e d Enter");
        let refused_selection = [("r-102", 2), ("r-102", 4), ("r-104", 1)];
        assert_eq!(
            count(|d| refused(d)
                && refused_selection
                    .iter()
                    .any(|(r, s)| d["run_id"] == *r && d["step"] == *s)),
            3
        );
        assert_eq!(listed(&t), rs(&refused_selection));
        assert_eq!(t.app.decisions.page.total, Some(3));
        let text = t.text();
        assert!(text.contains("/ refused · Esc clears"), "{text}");
        insta::assert_snapshot!(format!("search_refused_{w}x{h}"), t.terminal.backend());
        // A field the list does not show: r-102 step 4 stopped at the
        // authorization boundary; the row says that is where it matched.
        walk_more(&mut t, "Esc / a u t h o r Enter");
        assert_eq!(listed(&t), rs(&[("r-102", 4)]));
        assert!(t.text().contains("[boundary]"), "{}", t.text());
        insta::assert_snapshot!(format!("search_hidden_field_{w}x{h}"), t.terminal.backend());
        // Esc clears the search: all four again.
        walk_more(&mut t, "Esc");
        assert_eq!(listed(&t), natural);
        // `s`: by run, `S`: reversed, `s`: by time (reversed: latest first).
        walk_more(&mut t, "s");
        assert_eq!(listed(&t), natural);
        assert!(t.text().contains("run ↑"), "{}", t.text());
        walk_more(&mut t, "S");
        assert_eq!(
            listed(&t),
            rs(&[("r-104", 1), ("r-103", 2), ("r-102", 4), ("r-102", 2)])
        );
        assert!(t.text().contains("run ↓"), "{}", t.text());
        walk_more(&mut t, "s");
        assert_eq!(
            listed(&t),
            rs(&[("r-103", 2), ("r-102", 4), ("r-102", 2), ("r-104", 1)])
        );
        // The decision selected before the sorts (r-102 step 2) is still
        // selected.
        let sel = t
            .app
            .decisions
            .page
            .selected()
            .map(|d| (d.run_id.clone(), d.step));
        assert_eq!(sel, Some(("r-102".to_string(), 2)));
        insta::assert_snapshot!(format!("sort_time_desc_{w}x{h}"), t.terminal.backend());
    }
}

fn walk_more(t: &mut Harness, keys: &str) {
    for word in keys.split_whitespace() {
        t.keys(word);
        t.settle_draw();
    }
}

#[test]
fn y_copies_ids_and_records_masked_and_e_writes_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let mut t = Harness::open(&db, now(), false, 120, 40).expect("opens");
    t.app.export_dir = dir.path().to_path_buf();
    walk(&mut t, "j j j Enter");
    walk_more(&mut t, "y");
    assert_eq!(t.app.clip.as_deref(), Some("r-102 2"));
    let status = t.app.status.clone().unwrap_or_default();
    assert!(
        status.starts_with("copied r-102 2 · through OSC 52"),
        "{status}"
    );
    // The record as JSON.
    t.app.clip = None;
    walk_more(&mut t, "Y");
    let clip = t.app.clip.take().expect("a record");
    let v: serde_json::Value = serde_json::from_str(&clip).expect("JSON");
    assert_eq!(v["run_id"], "r-102");
    assert_eq!(v["step"], 2);
    assert_eq!(v["rung"], "selection");
    assert_eq!(v["reason"], "subscription_still_active");
    assert_eq!(v["arguments"]["invoice_id"], "in_3101");
    // `e`: the four decisions as CSV, header first.
    walk_more(&mut t, "e");
    let status = t.app.status.clone().unwrap_or_default();
    assert!(status.starts_with("wrote 4 decisions to "), "{status}");
    let path = dir.path().join(format!(
        "rung-decisions-{}-1.csv",
        now().div_euclid(1_000_000)
    ));
    let csv = std::fs::read_to_string(&path).expect("the file it names");
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(lines[0].starts_with("run_id,step,phase,selected,rung,status,reason"));
    assert!(
        lines[1].starts_with(
            "r-102,2,modify,refund_invoice,selection,refused,subscription_still_active"
        ),
        "{csv}"
    );
    // On Runs, y copies the run id; on Tools, the tool's name.
    walk_more(&mut t, "2 j y");
    assert_eq!(t.app.clip.take().as_deref(), Some("r-102"));
    walk_more(&mut t, "6 y");
    assert_eq!(t.app.clip.take().as_deref(), Some("ask_user"));
}

/// r-103 step 1's arguments carry an API key: masked in the copied record
/// unless --no-redact.
#[test]
fn a_copied_record_masks_secrets_unless_no_redact() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for no_redact in [false, true] {
        let mut t = Harness::open(&db, now(), no_redact, 120, 40).expect("opens");
        walk(&mut t, "2 j j Enter");
        assert_eq!(
            t.app
                .run
                .timeline
                .selected()
                .map(|r| (r.run_id.as_str(), r.step)),
            Some(("r-103", 1))
        );
        walk_more(&mut t, "Y");
        let clip = t.app.clip.take().expect("a record");
        assert_eq!(clip.contains("sk-test-4f9aQ2xLk81abc"), no_redact, "{clip}");
        assert!(clip.contains("\"name_or_email\": \"Lumen\""), "{clip}");
    }
}

#[test]
fn osc52_is_base64_in_the_clipboard_sequence() {
    assert_eq!(rung::tui::osc52("hi"), "\x1b]52;c;aGk=\x07");
    assert_eq!(rung::tui::base64(b"r-102 2"), "ci0xMDIgMg==");
    assert_eq!(rung::tui::base64(b"abc"), "YWJj");
}
