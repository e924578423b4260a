//! The filter editor's completion (issue 16): the values the database holds
//! for model, catalogue, phase and tags (keys, then a key's values), fuzzy,
//! each with its count (computed here from the fixture's own records), in a
//! popup under the field; Tab picks, ↑/↓ choose; and a filter that would
//! keep nothing is said so before it is applied. Snapshots at 120x40 and
//! 80x24.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use rung::tui::harness::Harness;

mod tui_util;
use tui_util::{fixture, now};

fn import(dir: &Path, files: &[PathBuf]) -> PathBuf {
    let db = dir.join("c.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: files.to_vec(),
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    db
}

fn records(kind: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == kind)
        .collect()
}

/// How many records have each value of `field`.
fn tally(
    of: &[serde_json::Value],
    field: impl Fn(&serde_json::Value) -> Option<String>,
) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for r in of {
        if let Some(v) = field(r) {
            *m.entry(v).or_insert(0) += 1;
        }
    }
    m
}

fn open(db: &Path, w: u16, h: u16) -> Harness {
    let mut t = Harness::open(db, now(), false, w, h).unwrap();
    t.draw();
    t.start();
    t.settle_draw();
    t
}

/// The popup's list: (value, count, unit).
fn popup(t: &Harness) -> Vec<(String, u64, &'static str)> {
    t.app
        .popup()
        .into_iter()
        .map(|c| (c.insert, c.count, c.unit))
        .collect()
}

#[test]
fn each_field_completes_the_stored_values_with_their_counts() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[fixture()]);
    let runs = records("run");
    let decisions = records("decision");
    let models = tally(&runs, |r| r["model"].as_str().map(str::to_string));
    let phases = tally(&decisions, |d| d["phase"].as_str().map(str::to_string));
    // A decision's catalogue is its own, else its run's.
    let catalogue_of = |d: &serde_json::Value| {
        d["catalogue"].as_str().map(str::to_string).or_else(|| {
            runs.iter()
                .find(|r| r["run_id"] == d["run_id"])
                .and_then(|r| r["catalogue"].as_str().map(str::to_string))
        })
    };
    let catalogues = tally(&decisions, catalogue_of);
    let suites = tally(&runs, |r| r["tags"]["suite"].as_str().map(str::to_string));
    assert_eq!(models.len(), 2);
    assert_eq!(phases.len(), 3);

    let mut t = open(&db, 120, 40);
    t.keys("f");
    t.settle_draw();
    // Model: `4` matches gpt-4o only; `q` qwen3:8b only.
    t.type_text("4");
    assert_eq!(popup(&t), vec![("gpt-4o".into(), models["gpt-4o"], "runs")]);
    t.keys("Backspace");
    assert_eq!(popup(&t), vec![], "nothing typed, no popup");
    t.type_text("q");
    assert_eq!(
        popup(&t),
        vec![("qwen3:8b".into(), models["qwen3:8b"], "runs")]
    );
    // Catalogue.
    t.keys("C-u Tab");
    assert_eq!(t.app.form.field, 1);
    t.type_text("dk");
    assert_eq!(
        popup(&t),
        vec![("desk-1".into(), catalogues["desk-1"], "decisions")]
    );
    // Phase: `e` is in discover and release, not in modify.
    t.keys("C-u Tab");
    t.type_text("e");
    let mut want = vec![
        ("discover".to_string(), phases["discover"], "decisions"),
        ("release".to_string(), phases["release"], "decisions"),
    ];
    want.sort_by_key(|b| std::cmp::Reverse(b.1));
    assert_eq!(popup(&t), want);
    // Tag: keys (runs with the key), then the key's values.
    t.keys("C-u Tab Tab Tab");
    assert_eq!(t.app.form.field, 5);
    t.type_text("su");
    assert_eq!(
        popup(&t),
        vec![("suite=".into(), runs.len() as u64, "runs")]
    );
    t.keys("Tab");
    assert_eq!(t.app.form.fields[5], "suite=");
    assert_eq!(
        popup(&t),
        vec![
            ("suite=m18".into(), suites["m18"], "runs"),
            ("suite=m19".into(), suites["m19"], "runs"),
        ]
    );
    // ↓ chooses, Tab picks; the popup goes away.
    t.keys("Down Tab");
    assert_eq!(t.app.form.fields[5], "suite=m19");
    assert_eq!(popup(&t), vec![]);
    // Enter applies the tag (it keeps r-103 and r-104).
    t.keys("Enter");
    t.settle_draw();
    assert!(!t.app.editing_filter);
    assert_eq!(
        t.app.filter.tags,
        vec![("suite".to_string(), "m19".to_string())]
    );
    let kept = decisions
        .iter()
        .filter(|d| d["run_id"] == "r-103" || d["run_id"] == "r-104")
        .count();
    assert!(
        t.text().contains(&format!("Ladder · {kept} decisions")),
        "{}",
        t.text()
    );
}

#[test]
fn a_picked_value_goes_after_the_values_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[fixture()]);
    let mut t = open(&db, 120, 40);
    t.keys("f");
    t.settle_draw();
    t.type_text("gpt-4o, qw");
    t.keys("Tab");
    assert_eq!(t.app.form.fields[0], "gpt-4o, qwen3:8b");
    // Esc first puts a popup away, then closes the editor.
    t.type_text(",g");
    assert!(!popup(&t).is_empty());
    t.keys("Esc");
    assert!(t.app.editing_filter);
    assert!(popup(&t).is_empty());
    t.keys("Esc");
    assert!(!t.app.editing_filter);
}

#[test]
fn the_popup_under_the_field_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[fixture()]);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = open(&db, w, h);
        t.keys("f Down Down");
        t.settle_draw();
        // `i`: discover and modify (not release).
        t.type_text("i");
        t.keys("Down");
        t.draw();
        let text = t.text();
        assert!(text.contains(" 2 of 2 · Tab pick "), "{text}");
        insta::assert_snapshot!(format!("completion_popup_{w}x{h}"), t.terminal.backend());
    }
}

#[test]
fn a_filter_that_keeps_nothing_is_said_so_before_it_applies() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[fixture()]);
    // gpt-4o ran r-102 and r-104; neither has a decision in phase release.
    let runs = records("run");
    let gpt: Vec<&serde_json::Value> = runs.iter().filter(|r| r["model"] == "gpt-4o").collect();
    let released = records("decision")
        .iter()
        .filter(|d| d["phase"] == "release" && gpt.iter().any(|r| r["run_id"] == d["run_id"]))
        .count();
    assert_eq!(released, 0);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = open(&db, w, h);
        t.keys("f");
        t.settle_draw();
        t.type_text("gpt-4o");
        t.keys("Down Down");
        t.type_text("release");
        t.keys("Enter");
        t.settle_draw();
        assert!(t.app.editing_filter, "not applied");
        assert!(t.app.filter.is_empty());
        let text = t.text();
        assert!(
            text.contains("matches nothing: no decision is in this filter. Enter applies it"),
            "{text}"
        );
        insta::assert_snapshot!(
            format!("completion_matches_nothing_{w}x{h}"),
            t.terminal.backend()
        );
        // Editing takes the warning back; the same filter is checked again.
        t.keys("Backspace");
        t.type_text("e");
        t.draw();
        assert!(!t.text().contains("matches nothing"));
        t.keys("Enter");
        t.settle_draw();
        assert!(t.text().contains("matches nothing"));
        // Enter again applies it anyway: the screens show nothing.
        t.keys("Enter");
        t.settle_draw();
        assert!(!t.app.editing_filter);
        assert_eq!(t.app.filter.models, vec!["gpt-4o"]);
        assert_eq!(t.app.filter.phases, vec!["release"]);
        assert!(t.text().contains("Ladder · 0 decisions"), "{}", t.text());
    }
}

#[test]
fn values_from_the_trace_are_escaped_and_masked_in_the_popup() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    std::fs::write(
        &trace,
        concat!(
            r#"{"type":"run","run_id":"a","model":"m\u001b[2Jx","tags":{"note":"key sk-abcdefghijklmnop"}}"#,
            "\n",
            r#"{"type":"decision","run_id":"a","step":1,"at":"2026-11-20T10:00:00Z","phase":"p\u0007q","selected":null}"#,
            "\n",
        ),
    )
    .unwrap();
    let db = import(dir.path(), &[trace]);
    let mut t = open(&db, 120, 40);
    t.keys("f");
    t.settle_draw();
    t.type_text("m");
    t.draw();
    let text = t.text();
    assert!(text.contains(r"m\x1b[2Jx"), "{text}");
    t.keys("C-u Down Down");
    t.type_text("p");
    t.draw();
    assert!(t.text().contains(r"p\x07q"), "{}", t.text());
    t.keys("C-u Down Down Down");
    t.type_text("note=");
    t.draw();
    let text = t.text();
    assert!(!text.contains("sk-abcdefghijklmnop"), "{text}");
    assert!(text.contains("note=key "), "{text}");
}
