//! The Findings screen (7) driven headless on a hand-made trace: counts by
//! kind in the week and the week before, undated findings, a kind's list,
//! Enter opening the run at the decision, and the Run screen's mark on the
//! decisions that carry findings.

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::store::browse::KindCount;
use rung::tui::Screen;
use rung::tui::harness::Harness;

/// The end of the fixture's latest week.
const NOW: &str = "2026-11-23T00:00:00Z";

/// One catalogue (with a `control` nobody trusts: a catalogue finding) and
/// four runs: c1 and c2 in the week of 2026-11-16, p1 the week before, u1
/// with no time at all.
const TRACE: &str = r#"{"type":"catalogue","version":"k1","tools":[{"name":"get_plan","family":"billing","effect":"read_only","description":"Reads a plan."},{"name":"cancel_plan","family":"billing","effect":"mutating","description":"Cancels a plan by id, like pl_7."},{"name":"banner","family":"control","effect":"none","description":"A vendor banner."}]}
{"type":"run","run_id":"c1","task_id":"t1","goal":"Cancel Acme's plan.","intent":"act","catalogue":"k1","started_at":"2026-11-18T10:00:00Z"}
{"type":"decision","run_id":"c1","step":1,"at":"2026-11-18T10:00:01Z","selected":"cancel_plan","arguments":{"plan_id":"pl_7"},"outcome":{"status":"ok"}}
{"type":"decision","run_id":"c1","step":2,"at":"2026-11-18T10:00:05Z","selected":null,"raw":"Let me confirm that with billing.","outcome":{"status":"not_run"}}
{"type":"run","run_id":"c2","task_id":"t2","goal":"Is the plan active?","intent":"inform","catalogue":"k1","started_at":"2026-11-19T09:00:00Z"}
{"type":"decision","run_id":"c2","step":1,"at":"2026-11-19T09:00:01Z","selected":"get_plan","arguments":{"plan_id":"pl_1"},"outcome":{"status":"ok"},"result":{"plan_id":"pl_1","active":true}}
{"type":"decision","run_id":"c2","step":2,"at":"2026-11-19T09:00:04Z","selected":null,"raw":"I'll check with billing first.","outcome":{"status":"not_run"}}
{"type":"run","run_id":"p1","task_id":"t2","goal":"Is plan pl_2 active?","intent":"inform","catalogue":"k1","started_at":"2026-11-11T09:00:00Z"}
{"type":"decision","run_id":"p1","step":1,"selected":"get_plan","arguments":{"plan_id":"pl_2"},"outcome":{"status":"ok"},"result":{"plan_id":"pl_2"}}
{"type":"decision","run_id":"p1","step":2,"selected":"cancel_plan","arguments":{"plan_id":"pl_2"},"outcome":{"status":"ok"}}
{"type":"run","run_id":"u1","task_id":"t3","goal":"Show plan pl_3.","catalogue":"k1"}
{"type":"decision","run_id":"u1","step":1,"selected":"get_plan","arguments":{"plan_id":"pl_3"},"outcome":{"status":"ok"},"result":{"plan_id":"pl_3"}}
{"type":"decision","run_id":"u1","step":2,"selected":"get_plan","arguments":{"plan_id":"pl_3"},"outcome":{"status":"ok"},"result":{"plan_id":"pl_3"}}
"#;

fn now() -> i64 {
    rung::model::Timestamp::parse(NOW).unwrap().micros()
}

fn open(dir: &Path, w: u16, h: u16) -> Harness {
    open_trace(dir, TRACE, w, h)
}

fn open_trace(dir: &Path, text: &str, w: u16, h: u16) -> Harness {
    let trace = dir.join("t.jsonl");
    std::fs::write(&trace, text).unwrap();
    let db: PathBuf = dir.join("t.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![trace],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
    t.draw();
    t.start();
    t.settle_draw();
    t
}

fn k(kind: &str, count: u64, runs: u64, previous: u64, undated: u64) -> KindCount {
    KindCount {
        kind: kind.into(),
        count,
        runs,
        previous,
        undated,
    }
}

fn rows(t: &Harness) -> Vec<KindCount> {
    t.app.findings.data.value.as_ref().unwrap().rows.clone()
}

#[test]
fn counts_by_kind_with_the_week_before_and_the_undated_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = open(dir.path(), 120, 40);
    t.keys("7");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Findings);
    // c1: unsourced pl_7 (copied from the description) and "Let me"; c2:
    // "I'll check"; p1 (the week before): a write under inform; u1 (no
    // time): a repeated read; the catalogue's untrusted control.
    assert_eq!(
        rows(&t),
        vec![
            k("announced_no_call", 2, 2, 0, 0),
            k("id_from_description", 1, 1, 0, 0),
            k("unsourced_id", 1, 1, 0, 0),
            k("control_impostor", 0, 0, 0, 1),
            k("repeated_call", 0, 0, 0, 1),
            k("write_under_inform", 0, 0, 1, 0),
        ]
    );
    let text = t.text();
    for line in [
        "Findings by kind · 2026-11-16 → 2026-11-23 (UTC, 7 days)",
        "4 findings in 2 runs (previous window: 1) · 2 undated",
        "announced_no_call",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    // The week before: p1's write; the undated ones stay.
    t.keys("[");
    t.settle_draw();
    assert_eq!(
        rows(&t),
        vec![
            k("write_under_inform", 1, 1, 0, 0),
            k("control_impostor", 0, 0, 0, 1),
            k("repeated_call", 0, 0, 0, 1),
        ]
    );
    assert!(t.text().contains("1 finding in 1 run (previous window: 0)"));
    // Back to this week.
    t.keys("t");
    t.settle_draw();
    assert_eq!(rows(&t).len(), 6);
}

#[test]
fn a_kind_lists_its_findings_and_enter_opens_the_run_at_the_decision() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = open(dir.path(), 120, 40);
    t.keys("7");
    t.settle_draw();
    t.keys("Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::FindingList);
    let listed: Vec<(Option<String>, Option<i64>)> = t
        .app
        .findings
        .list
        .page
        .rows
        .iter()
        .map(|(_, x)| (x.row.run_id.clone(), x.row.step))
        .collect();
    assert_eq!(
        listed,
        vec![(Some("c1".into()), Some(2)), (Some("c2".into()), Some(2))]
    );
    let text = t.text();
    assert!(
        text.contains("announced_no_call · 2026-11-16 → 2026-11-23, and undated"),
        "{text}"
    );
    // The selected finding's detail, whole.
    assert!(
        text.contains(
            "the answer announces an action: \"Let me confirm that with billing.\"; no tool was called"
        ),
        "{text}"
    );
    t.keys("j Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Run);
    let sel = t.app.run.timeline.selected().unwrap();
    assert_eq!((sel.run_id.as_str(), sel.step), ("c2", 2));
    // The Run screen marks the decisions that carry findings.
    let marks: Vec<(i64, u64)> = t
        .app
        .run
        .timeline
        .rows
        .iter()
        .map(|(_, r)| (r.step, r.findings))
        .collect();
    assert_eq!(marks, vec![(1, 0), (2, 1)]);
    let text = t.text();
    let line = |step: &str| {
        text.lines()
            .find(|l| l.contains(&format!("    {step} ")) && l.contains('│'))
            .unwrap_or_else(|| panic!("no timeline row for step {step} in\n{text}"))
            .to_string()
    };
    assert!(line("2").starts_with("│!"), "{}", line("2"));
    assert!(line("1").starts_with("│ "), "{}", line("1"));
    // Esc goes back to the list, then to the kinds.
    t.keys("Esc");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::FindingList);
    t.keys("Esc");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Findings);
}

#[test]
fn a_catalogue_finding_has_no_run_to_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = open(dir.path(), 80, 24);
    t.keys("7");
    t.settle_draw();
    // control_impostor is the fourth kind.
    t.keys("j j j Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::FindingList);
    let item = t.app.findings.list.page.selected().unwrap();
    assert_eq!(
        (
            item.row.kind.as_str(),
            item.row.run_id.as_deref(),
            item.time_us
        ),
        ("control_impostor", None, None)
    );
    t.keys("Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::FindingList);
    assert!(
        t.text()
            .contains("a catalogue finding: it is about a catalogue's tool, not a run"),
        "{}",
        t.text()
    );
}

/// A run whose expected call was never made: the finding names the run but
/// no step, so it takes the time of the run's first decision (not
/// "undated"), and Enter opens the run at its start.
const MISSING: &str = r#"{"type":"catalogue","version":"k2","tools":[{"name":"get_plan","family":"billing","effect":"read_only","description":"Reads a plan."},{"name":"cancel_plan","family":"billing","effect":"mutating","description":"Cancels a plan."}]}
{"type":"case","task_id":"t9","expected_calls":[{"tool":"cancel_plan","arguments":{"plan_id":"pl_9"}}]}
{"type":"run","run_id":"m1","task_id":"t9","goal":"Cancel plan pl_9.","intent":"act","catalogue":"k2","started_at":"2026-11-20T08:00:00Z"}
{"type":"decision","run_id":"m1","step":1,"at":"2026-11-20T08:00:01Z","selected":"get_plan","arguments":{"plan_id":"pl_9"},"outcome":{"status":"ok"},"result":{"plan_id":"pl_9","active":true}}
{"type":"decision","run_id":"m1","step":2,"at":"2026-11-20T08:00:03Z","selected":null,"text":"The plan is active.","outcome":{"status":"not_run"}}
"#;

#[test]
fn a_run_finding_is_dated_by_its_run_and_opens_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = open_trace(dir.path(), MISSING, 120, 40);
    t.keys("7");
    t.settle_draw();
    assert_eq!(rows(&t), vec![k("missing_call", 1, 1, 0, 0)]);
    t.keys("Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::FindingList);
    let item = t.app.findings.list.page.selected().unwrap();
    assert_eq!(
        (item.row.run_id.as_deref(), item.row.step, item.time_us),
        (
            Some("m1"),
            None,
            Some(
                rung::model::Timestamp::parse("2026-11-20T08:00:01Z")
                    .unwrap()
                    .micros()
            )
        )
    );
    t.keys("Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Run);
    let sel = t.app.run.timeline.selected().unwrap();
    assert_eq!((sel.run_id.as_str(), sel.step), ("m1", 1));
}
