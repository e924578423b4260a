//! The mouse (issue 16): a click selects a row or a tab, a click on a count
//! drills down like Enter, the wheel scrolls. Events go through the same
//! path as `rung`'s event loop (`tui::mouse::actions` on the areas of the
//! last frame drawn).

use std::path::Path;

use clap::Parser;
use rung::tui::Screen;
use rung::tui::harness::Harness;

mod tui_util;
use tui_util::{fixture, import, now};

/// Decisions of the fixture that satisfy `keep`.
fn count(keep: impl Fn(&serde_json::Value) -> bool) -> u64 {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "decision" && keep(v))
        .count() as u64
}

fn refused(d: &serde_json::Value) -> bool {
    d["outcome"]["status"] == "refused"
}

fn open(db: &Path, w: u16, h: u16) -> Harness {
    let mut t = Harness::open(db, now(), false, w, h).unwrap();
    t.draw();
    t.start();
    t.settle_draw();
    t
}

fn at(t: &Harness, text: &str) -> (u16, u16) {
    t.find(text)
        .unwrap_or_else(|| panic!("{text:?} is not on the screen:\n{}", t.text()))
}

#[test]
fn a_click_on_a_tab_shows_its_screen() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = open(&db, w, h);
        for (label, screen) in [
            ("4 Refusals", Screen::Refusals),
            ("2 Runs", Screen::Runs),
            ("8 Compare", Screen::Compare),
            ("1 Ladder", Screen::Ladder),
        ] {
            let (x, y) = at(&t, label);
            // The last letter of the title, inside the tab.
            t.click(x + label.len() as u16 - 1, y);
            t.settle_draw();
            assert_eq!(t.app.screen, screen, "{label} at {w}x{h}");
        }
        // A click between tabs' texts on the bar's name does nothing.
        t.click(1, 0);
        assert_eq!(t.app.screen, Screen::Ladder);
    }
}

#[test]
fn a_click_selects_a_row_and_the_wheel_scrolls() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let mut t = open(&db, 120, 40);
    t.keys("2");
    t.settle_draw();
    let ids: Vec<String> = t
        .app
        .runs
        .page
        .rows
        .iter()
        .map(|(_, r)| r.run_id.clone())
        .collect();
    assert_eq!(ids.len(), 4);
    let (x, y) = at(&t, &ids[2]);
    t.click(x, y);
    t.draw();
    assert_eq!(t.app.runs.page.cursor.sel, 2);
    // Back up to the first.
    let (x, y) = at(&t, &ids[0]);
    t.click(x + 40, y);
    t.draw();
    assert_eq!(t.app.runs.page.cursor.sel, 0);
    // A click below the last row selects nothing new.
    t.click(x, y + 10);
    assert_eq!(t.app.runs.page.cursor.sel, 0);
    // The wheel: three rows a notch, within the list.
    t.wheel(x, y, true);
    t.draw();
    assert_eq!(t.app.runs.page.cursor.sel, 3);
    t.wheel(x, y, false);
    t.draw();
    assert_eq!(t.app.runs.page.cursor.sel, 0);

    // In a run, the wheel over the detail scrolls the detail (focusing it).
    t.keys("Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Run);
    let (dx, dy) = at(&t, "Decision · Enter to scroll");
    t.wheel(dx, dy + 5, true);
    t.draw();
    assert!(t.app.run.focus_detail);
    assert_eq!(t.app.run.scroll, 3);
    // ... and a click on a timeline row selects it, focusing the timeline.
    let steps = t.app.run.timeline.rows.len();
    assert!(steps >= 2, "{steps}");
    let (tx, ty) = at(&t, "┌ Decisions ");
    t.click(tx + 2, ty + 3);
    t.settle_draw();
    assert!(!t.app.run.focus_detail);
    assert_eq!(t.app.run.timeline.cursor.sel, 1);
}

/// Clicks a count and checks the list it opens: `n` decisions, as the
/// title says.
fn drilled(t: &mut Harness, x: u16, y: u16, n: u64, title: &str) {
    t.click(x, y);
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Decisions, "{}", t.text());
    assert_eq!(t.app.decisions.page.total, Some(n));
    assert_eq!(t.app.decisions.page.rows.len() as u64, n);
    assert_eq!(t.app.decisions.heading(), title);
    assert!(t.text().contains(&format!("┌ {n} ")), "{}", t.text());
}

#[test]
fn a_click_on_a_count_drills_down_like_enter() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        // Refusals: the count of the reason not_permitted.
        let mut t = open(&db, w, h);
        t.keys("4");
        t.settle_draw();
        let n = count(|d| refused(d) && d["outcome"]["reason"] == "not_permitted");
        // (The summary line above names it too: the row is the one at the
        // table's left border.)
        let (x, y) = at(&t, "│not_permitted");
        let (cx, _) = at(&t, "count");
        drilled(
            &mut t,
            cx + 2,
            y,
            n,
            &format!("{n} refusal with reason not_permitted (authorization)"),
        );
        // The reason's name only selects (the row is already selected: no
        // drill).
        t.keys("Esc");
        t.settle_draw();
        t.click(x, y);
        t.settle_draw();
        assert_eq!(t.app.screen, Screen::Refusals);

        // Tools: cancel_subscription's selected and refused counts.
        let mut t = open(&db, w, h);
        t.keys("6");
        t.settle_draw();
        let (_, y) = at(&t, "cancel_subscription");
        // (The title says "never selected": the header's column.)
        let (sx, _) = at(&t, " selected wrongly");
        let n = count(|d| d["selected"] == "cancel_subscription");
        drilled(
            &mut t,
            sx + 5,
            y,
            n,
            &format!("{n} decisions that selected cancel_subscription"),
        );
        t.keys("Esc");
        t.settle_draw();
        let (rx, _) = at(&t, " refused marks");
        let n = count(|d| d["selected"] == "cancel_subscription" && refused(d));
        drilled(
            &mut t,
            rx + 4,
            y,
            n,
            &format!("{n} refused calls of cancel_subscription"),
        );

        // Ladder: the boundary count of authorization: the refusals whose
        // reason the spec's reason table puts at that stage (r-102 steps 3
        // and 4, as tests/tui_drill.rs says by hand).
        let mut t = open(&db, w, h);
        let n = count(|d| {
            refused(d)
                && matches!(
                    d["outcome"]["reason"].as_str(),
                    Some("outside_intent" | "not_permitted")
                )
        });
        assert_eq!(n, 2);
        if w >= 120 {
            let (_, ay) = at(&t, "authorization");
            let (bx, _) = at(&t, "bndry");
            drilled(
                &mut t,
                bx + 3,
                ay,
                n,
                "2 decisions whose boundary is authorization",
            );
        }
    }
}

#[test]
fn no_mouse_is_a_global_flag_in_the_help() {
    let cli = rung::cli::Cli::try_parse_from(["rung", "--no-mouse"]).unwrap();
    assert!(cli.global.no_mouse);
    let cli = rung::cli::Cli::try_parse_from(["rung", "report", "ladder", "--no-mouse"]).unwrap();
    assert!(cli.global.no_mouse);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rung"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("--no-mouse") && help.contains("The TUI leaves the mouse to the terminal"),
        "{help}"
    );
}

#[test]
fn a_click_on_a_rule_of_why_visible_picks_it_or_drills() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let mut t = open(&db, 120, 40);
    t.keys("6");
    t.settle_draw();
    t.keys("j j Enter");
    t.settle_draw();
    assert_eq!(t.app.screen, Screen::Tool);
    // delete_customer: hidden by the family rule on 10 decisions, visible by
    // the flat rule on r-104's 2 (by hand, as tests/tui_drill.rs says).
    let (x, y) = at(&t, "visible  flat");
    let line_x = x - 2;
    // On the rule's name: picked, not drilled.
    t.click(x + 2, y);
    t.draw();
    assert_eq!(t.app.screen, Screen::Tool);
    assert_eq!(t.app.tool.rule, 1);
    // Back to the first rule by a click, then on the second's count.
    let (fx, fy) = at(&t, "hidden   family");
    t.click(fx, fy);
    t.draw();
    assert_eq!(t.app.tool.rule, 0);
    drilled(
        &mut t,
        line_x + 28 + 5,
        y,
        2,
        "2 decisions where delete_customer was visible by the flat rule",
    );
}

#[test]
fn a_click_on_a_matrix_cell_selects_it_and_a_count_drills() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    // The fixture's selection failures: acceptable set → the tool picked.
    let wrong = |acc: &str, sel: &str| {
        count(|d| {
            d["selected"] == sel
                && d["expected"]["acceptable"]
                    .as_array()
                    .is_some_and(|a| a.len() == 1 && a[0] == acc)
        })
    };
    assert_eq!(wrong("find_customer", "cancel_subscription"), 1);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = open(&db, w, h);
        t.keys("5 m");
        t.settle_draw();
        assert!(t.app.confusion.matrix);
        assert_eq!(t.app.confusion.cell, (0, 0));
        // The rows: ask_user, cancel_subscription, find_customer; the
        // columns: cancel_subscription, delete_customer, refund_invoice,
        // send_email. An empty cell (·) is only selected.
        let (_, y_ask) = at(&t, "│ask_user");
        let (_, y_find) = at(&t, "│find_customer");
        // The x of the last character of the `j`th count in row `y`.
        let cell_x = |t: &Harness, y: u16, j: usize| -> u16 {
            let text = t.text();
            let line: Vec<char> = text.lines().nth(y as usize).unwrap().chars().collect();
            let mut ends = Vec::new();
            for i in 1..line.len() {
                if line[i] == ' ' && line[i - 1] != ' ' && line[i - 1] != '│' {
                    ends.push(i as u16 - 1);
                }
            }
            // The first word is the row's label.
            ends[1 + j]
        };
        let refund = cell_x(&t, y_ask, 2);
        t.click(refund, y_ask);
        t.settle_draw();
        assert_eq!(t.app.screen, Screen::Confusions);
        assert_eq!(t.app.confusion.cell, (0, 2), "the empty cell is selected");
        // The label selects its row, keeping the column.
        t.click(2, y_find);
        t.draw();
        assert_eq!(t.app.confusion.cell, (2, 2));
        // find_customer → cancel_subscription: 1 decision, listed.
        let cancel = cell_x(&t, y_find, 0);
        let n = wrong("find_customer", "cancel_subscription");
        drilled(
            &mut t,
            cancel,
            y_find,
            n,
            "1 decision in confusion cell [find_customer] → cancel_subscription",
        );
        assert_eq!(t.app.confusion.cell, (2, 0));
    }
}

#[test]
fn clicks_on_the_compare_screen_pick_menus_cells_and_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare");
    let db = dir.path().join("c.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![fixture],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = open(&db, w, h);
        t.keys("8");
        t.settle_draw();
        use rung::tui::state::ComparePane;
        if w < 110 {
            // Narrow: the menus are one line until they have the keys; a
            // click on it gives them the keys.
            assert!(t.find(" kb-3 ").is_none());
            let (x, y) = at(&t, "h: pick menus");
            t.click(x, y);
            t.settle_draw();
            assert_eq!(t.app.compare.pane, ComparePane::Menus);
        }
        // A click on a menu: the menus have the keys, kb-3 is selected.
        let (x, y) = at(&t, " kb-3 ");
        t.click(x + 2, y);
        t.settle_draw();
        assert_eq!(t.app.compare.pane, ComparePane::Menus);
        assert_eq!(t.app.compare.selected_menu().unwrap().version, "kb-3");
        if w < 110 {
            // The cells show as their frame's top line; a click on it gives
            // them the keys.
            let (x, y) = at(&t, "Cells of kb-1");
            t.click(x, y);
            t.settle_draw();
            assert_eq!(t.app.compare.pane, ComparePane::Cells);
        }
        // A click on the cell's name: the cells have the keys, nothing opens.
        let (cx, cy) = at(&t, "search_policy → search_docs");
        t.click(cx + 3, cy);
        t.settle_draw();
        assert_eq!(t.app.compare.pane, ComparePane::Cells);
        assert!(t.app.compare.open.is_none());
        // A click on the base's count (0/3): the cell's three attempts.
        let (bx, by) = at(&t, "0/3");
        t.click(bx + 1, by);
        t.settle_draw();
        let open = t.app.compare.open.as_ref().expect("the cell opened");
        let attempts = open.data.value.clone().flatten().expect("its attempts");
        assert_eq!(attempts.base.len(), 3);
        assert!(
            t.text().contains(" 1 of 3 · right: kb-4 0/0 "),
            "{}",
            t.text()
        );
        // A click on the third attempt selects it.
        let (tx, ty) = at(&t, "t2 ");
        t.click(tx, ty);
        t.draw();
        assert_eq!(t.app.compare.open.as_ref().unwrap().cursor.sel, 2);
        assert!(t.text().contains(" 3 of 3 · right: "), "{}", t.text());
    }
}
