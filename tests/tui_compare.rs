//! The Compare screen (`8`) and the Tool diff (`d` on Tools), driven by
//! keys over the hand-counted compare fixture (tests/fixtures/compare/, see
//! tests/compare/): what the screen shows for the picks a user makes,
//! and snapshots at 120x40 and 80x24.

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::tui::Screen;
use rung::tui::harness::Harness;

fn import(dir: &Path, paths: &[PathBuf]) -> PathBuf {
    let db = dir.join("c.db");
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

fn now() -> i64 {
    rung::model::Timestamp::parse("2026-11-23T00:00:00Z")
        .unwrap()
        .micros()
}

fn open(dir: &tempfile::TempDir, w: u16, h: u16) -> Harness {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare");
    let db = import(dir.path(), &[fixture]);
    let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
    t.draw();
    t.start();
    t.settle_draw();
    t
}

fn keys(t: &mut Harness, spec: &str) {
    for word in spec.split_whitespace() {
        match word.strip_prefix('=') {
            Some(text) => t.type_text(text),
            None => t.keys(word),
        }
        t.settle_draw();
    }
}

fn picks(t: &Harness) -> (Option<String>, Vec<String>) {
    (t.app.compare.base.clone(), t.app.compare.candidates.clone())
}

#[test]
fn compare_screen_picks_menus_and_opens_a_cell() {
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let dir = tempfile::tempdir().unwrap();
        let mut t = open(&dir, w, h);
        keys(&mut t, "8");
        assert_eq!(t.app.screen, Screen::Compare);
        // The oldest against the newest at first.
        assert_eq!(picks(&t), (Some("kb-1".into()), vec!["kb-4".into()]));
        let text = t.text();
        assert!(
            text.contains(" kb-4 against the base kb-1 · paired 3 tasks"),
            "{text}"
        );
        // Add kb-2 and kb-3: the candidates keep the catalogues' order.
        keys(&mut t, "h j Space j Space l");
        assert_eq!(
            picks(&t),
            (
                Some("kb-1".into()),
                vec!["kb-2".into(), "kb-3".into(), "kb-4".into()]
            )
        );
        let text = t.text();
        assert!(
            text.contains(
                "kb-2, kb-3, kb-4 against the base kb-1 · paired 6 runs, 6 runs, 3 tasks"
            ),
            "{text}"
        );
        // kb-2's tokens per turn, 67 against 56 on every paired run: significant.
        assert!(text.contains("67 +11*"), "{text}");
        insta::assert_snapshot!(format!("compare_{w}x{h}"), t.terminal.backend());
        // The cell's three attempts on every menu.
        keys(&mut t, "Enter");
        let text = t.text();
        if w == 120 {
            // t1/1, t1/2, t2/2: the base's pick, then kb-2's, kb-3's, kb-4's.
            for line in [
                "t1               1 ✗ search_docs     ✓ search_policy  ✓ search_all      — not run",
                "t1               2 ✗ search_docs     ✗ search_docs    ✓ search_all      — not run",
                "t2               2 ✗ search_docs     ✓ search_policy  ✓ search_all      — not run",
            ] {
                assert!(text.contains(line), "{line}\n{text}");
            }
        }
        assert!(
            text.contains("right: kb-2 2/3, kb-3 3/3, kb-4 0/0"),
            "{text}"
        );
        insta::assert_snapshot!(format!("compare_cell_{w}x{h}"), t.terminal.backend());
        // Esc closes the cell, then leaves the screen.
        keys(&mut t, "Esc");
        assert!(t.app.compare.open.is_none());
        assert_eq!(t.app.screen, Screen::Compare);
    }
}

#[test]
fn base_and_find() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = open(&dir, 120, 40);
    keys(&mut t, "8 h j j b");
    assert_eq!(picks(&t), (Some("kb-3".into()), vec!["kb-4".into()]));
    assert!(
        t.text().contains(" kb-4 against the base kb-3"),
        "{}",
        t.text()
    );
    // The base is not a candidate too.
    keys(&mut t, "Space");
    assert_eq!(
        t.app.status.as_deref(),
        Some("that is the base: b makes another catalogue the base")
    );
    // A fuzzy find narrows the menus; Space takes the one found.
    keys(&mut t, "/ =kb2 Enter Space");
    assert_eq!(
        picks(&t),
        (Some("kb-3".into()), vec!["kb-2".into(), "kb-4".into()])
    );
    let text = t.text();
    assert!(text.contains("┌ Menus / kb2 ─"), "{text}");
    // Esc clears the find; the cursor is back on the first menu, kb-1.
    keys(&mut t, "Esc Space");
    assert_eq!(
        picks(&t),
        (
            Some("kb-3".into()),
            vec!["kb-1".into(), "kb-2".into(), "kb-4".into()]
        )
    );
}

#[test]
fn tool_diff_from_the_tools_screen() {
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let dir = tempfile::tempdir().unwrap();
        let mut t = open(&dir, w, h);
        // search_docs of kb-1, kb-2, kb-4 match; Enter opens the first
        // (kb-1's), Esc goes back to the matches; the second is kb-2's.
        keys(&mut t, "6 / =search_docs Enter Esc j d");
        assert_eq!(t.app.screen, Screen::ToolDiff);
        assert_eq!(
            (
                t.app.tool_diff.catalogue.as_str(),
                t.app.tool_diff.name.as_str()
            ),
            ("kb-2", "search_docs")
        );
        let text = t.text();
        assert!(
            text.contains("search_docs changed from kb-1 to kb-2: description"),
            "{text}"
        );
        assert!(
            text.contains("Engineering [-docs.-] {+docs only; not policy.+}"),
            "{text}"
        );
        insta::assert_snapshot!(format!("tool_diff_{w}x{h}"), t.terminal.backend());
        keys(&mut t, "Esc");
        assert_eq!(t.app.screen, Screen::Tools);
    }
    // A tool no other version has: what became of it.
    let dir = tempfile::tempdir().unwrap();
    let mut t = open(&dir, 120, 40);
    // Enter opens the one found; d there shows what became of it.
    keys(&mut t, "6 / =search_all Enter d");
    let summary = "search_all is only in kb-3; in kb-4 it is split into search_docs, \
                   search_policy; it merges search_docs, search_policy of kb-2";
    assert_eq!(
        t.app.tool_diff.data.value.as_ref().unwrap().summary,
        summary
    );
    // Wrapped in the pane.
    let text = t.text();
    assert!(text.contains(&summary[..100]), "{text}");
}

#[test]
fn an_open_cells_attempts_sort_and_search() {
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let dir = tempfile::tempdir().unwrap();
        let mut t = open(&dir, w, h);
        keys(&mut t, "8 h j Space j Space l Enter");
        let tasks = |t: &Harness| -> Vec<(String, Option<i64>)> {
            let open = t.app.compare.open.as_ref().unwrap();
            let a = open.data.value.clone().flatten().unwrap();
            (0..a.base.len())
                .map(|p| {
                    let d = &a.base[open.view.at(p)];
                    (d.key.task_id.clone(), d.key.trial)
                })
                .collect()
        };
        let t1 = |n| ("t1".to_string(), Some(n));
        let t2 = ("t2".to_string(), Some(2));
        assert_eq!(tasks(&t), vec![t1(1), t1(2), t2.clone()]);
        // t1/2 selected; sorted by the candidates right (t1/2: kb-3 only;
        // the others: kb-2 and kb-3), it comes first and stays selected.
        keys(&mut t, "j s s s s");
        assert_eq!(tasks(&t), vec![t1(2), t1(1), t2.clone()]);
        let open = t.app.compare.open.as_ref().unwrap();
        assert_eq!(open.cursor.sel, 0);
        assert!(t.text().contains("kb-4 · right ↑"), "{}", t.text());
        // Reversed: the ties keep their order.
        keys(&mut t, "S");
        assert_eq!(tasks(&t), vec![t1(1), t2.clone(), t1(2)]);
        assert_eq!(t.app.compare.open.as_ref().unwrap().cursor.sel, 2);
        // By task (past the list's own order), still reversed.
        keys(&mut t, "s s");
        assert_eq!(t.app.compare.open.as_ref().unwrap().view.sort, Some(0));
        assert!(t.text().contains("task ↓"), "{}", t.text());
        assert_eq!(tasks(&t), vec![t2.clone(), t1(1), t1(2)]);
        // `/`: the attempts whose fields (a pick, the task) hold the text.
        keys(&mut t, "/ =t1 Enter");
        let open = t.app.compare.open.as_ref().unwrap();
        assert_eq!(open.view.hits, vec![1, 2]);
        // (t1/2, selected, matches: it stays selected.)
        assert_eq!(open.cursor.sel, 2);
        insta::assert_snapshot!(format!("compare_cell_sorted_{w}x{h}"), t.terminal.backend());
        keys(&mut t, "n");
        assert_eq!(t.app.compare.open.as_ref().unwrap().cursor.sel, 1);
        keys(&mut t, "N");
        assert_eq!(t.app.compare.open.as_ref().unwrap().cursor.sel, 2);
        // Esc clears the search, then closes the cell.
        keys(&mut t, "Esc");
        assert!(t.app.compare.open.is_some());
        assert!(t.app.compare.open.as_ref().unwrap().view.find.is_empty());
        keys(&mut t, "Esc");
        assert!(t.app.compare.open.is_none());
    }
}
