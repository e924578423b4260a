//! Search, sort and export on every screen (issue 16): `/` marks what it
//! finds and `n`/`N` move between the matches; `s` cycles the sorted
//! column and `S` reverses it (the arrow in the header) without losing the
//! selected row; `e`/`E` write the list as CSV or markdown. The counts are
//! worked out here from the desk fixture (tests/fixtures/tui/desk.jsonl);
//! each view is snapshotted at 120x40 and 80x24.

use std::path::{Path, PathBuf};

use clap::Parser;
use rung::tui::harness::Harness;

mod tui_util;
use tui_util::{decisions, fixture, now};

fn import_file(dir: &Path, file: &Path) -> PathBuf {
    let db = dir.join("s.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![file.to_path_buf()],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    db
}

fn walk(t: &mut Harness, keys: &str) {
    t.draw();
    t.start();
    t.settle_draw();
    more(t, keys);
}

fn more(t: &mut Harness, keys: &str) {
    for word in keys.split_whitespace() {
        t.keys(word);
        t.settle_draw();
    }
}

fn typed(t: &mut Harness, text: &str) {
    t.type_text(text);
    t.settle_draw();
}

/// The reason (and stage) of the selected Refusals row.
fn refusal_selected(t: &Harness) -> String {
    let rs = &t.app.refusals;
    let d = rs.data.value.as_ref().expect("the report");
    let i = rs.view.selected(&rs.cursor).expect("a row");
    d.report.rows[i].reason.clone().unwrap_or_default()
}

fn export_path(t: &Harness, dir: &Path, name: &str, n: u32, ext: &str) -> PathBuf {
    let _ = t;
    dir.join(format!(
        "rung-{name}-{}-{n}.{ext}",
        now().div_euclid(1_000_000)
    ))
}

#[test]
fn refusals_search_sort_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    // The reasons of refused decisions (this window and the one before)
    // that say "subscription": subscription_still_active (r-102 step 2) and
    // subscription_not_found (r-104 step 1).
    let mut reasons: Vec<String> = decisions()
        .iter()
        .filter(|d| d["outcome"]["status"] == "refused")
        .filter_map(|d| d["outcome"]["reason"].as_str().map(str::to_string))
        .filter(|r| r.contains("subscription"))
        .collect();
    reasons.sort();
    reasons.dedup();
    assert_eq!(reasons.len(), 2);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        t.app.export_dir = dir.path().to_path_buf();
        walk(&mut t, "4 /");
        typed(&mut t, "subscription");
        more(&mut t, "Enter");
        assert_eq!(t.app.refusals.view.hits.len(), reasons.len());
        // The first match from the selection (not_permitted) on.
        assert_eq!(refusal_selected(&t), "subscription_still_active");
        let text = t.text();
        assert!(
            text.contains("/ subscription · match 1 of 2 · n/N"),
            "{text}"
        );
        insta::assert_snapshot!(format!("refusals_search_{w}x{h}"), t.terminal.backend());
        more(&mut t, "n");
        assert_eq!(refusal_selected(&t), "subscription_not_found");
        assert!(t.text().contains("match 2 of 2"), "{}", t.text());
        // Round the end, and back.
        more(&mut t, "n");
        assert_eq!(refusal_selected(&t), "subscription_still_active");
        more(&mut t, "N");
        assert_eq!(refusal_selected(&t), "subscription_not_found");
        // Esc clears the search; `s` sorts by reason, `S` reverses; the
        // selected row stays selected.
        more(&mut t, "Esc g j");
        assert_eq!(refusal_selected(&t), "outside_intent");
        more(&mut t, "s");
        assert!(t.text().contains("reason ↑"), "{}", t.text());
        more(&mut t, "S");
        let text = t.text();
        assert!(text.contains("reason ↓"), "{text}");
        assert_eq!(refusal_selected(&t), "outside_intent");
        let order: Vec<usize> = t.app.refusals.view.order.clone();
        let d = t.app.refusals.data.value.as_ref().unwrap();
        let shown: Vec<&str> = order
            .iter()
            .map(|&i| d.report.rows[i].reason.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(
            shown,
            vec![
                "subscription_still_active",
                "subscription_not_found",
                "outside_intent",
                "not_permitted"
            ]
        );
        assert_eq!(t.app.refusals.cursor.sel, 2);
        insta::assert_snapshot!(format!("refusals_sorted_{w}x{h}"), t.terminal.backend());
        // Enter opens the selected reason's decisions, whatever the sort.
        more(&mut t, "Enter");
        assert!(
            t.text().contains("1 refusal with reason outside_intent"),
            "{}",
            t.text()
        );
        more(&mut t, "Esc");
        // `e`: the rows as the report writes them, in the order shown.
        more(&mut t, "e");
        let path = export_path(&t, dir.path(), "refusals", 1, "csv");
        let status = t.app.status.clone().unwrap_or_default();
        assert_eq!(status, format!("wrote 4 rows to {}", path.display()));
        let csv = std::fs::read_to_string(&path).expect("the file it names");
        let window = "2026-11-16T00:00:00Z,2026-11-23T00:00:00Z";
        assert_eq!(
            csv,
            format!(
                "reason,stage,count,runs,previous,since,until\r\n\
                 subscription_still_active,precondition,1,1,0,{window}\r\n\
                 subscription_not_found,semantics,0,0,1,{window}\r\n\
                 outside_intent,authorization,1,1,0,{window}\r\n\
                 not_permitted,authorization,1,1,0,{window}\r\n"
            )
        );
    }
}

/// The fixture's catalogue tools.
fn tools() -> Vec<serde_json::Value> {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "catalogue")
        .and_then(|c| c["tools"].as_array().cloned())
        .unwrap()
}

#[test]
fn confusions_search_sort_and_markdown_export() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        t.app.export_dir = dir.path().to_path_buf();
        // The four SELECTION failures' cells (by hand, as in tui_drill):
        // only r-103 step 2 ([ask_user] → send_email) says "send".
        walk(&mut t, "5 /");
        typed(&mut t, "send");
        more(&mut t, "Enter");
        assert_eq!(t.app.confusion.view.hits.len(), 1);
        let text = t.text();
        assert!(text.contains("/ send · match 1 of 1 · n/N"), "{text}");
        insta::assert_snapshot!(format!("confusions_search_{w}x{h}"), t.terminal.backend());
        // `/` again for a text in no cell.
        more(&mut t, "Esc /");
        typed(&mut t, "zzz");
        more(&mut t, "Enter");
        assert!(t.text().contains("/ zzz · no match"), "{}", t.text());
        more(&mut t, "n");
        assert_eq!(t.app.status.as_deref(), Some("no row matches \"zzz\""));
        // Sorted by what was selected instead, reversed: send_email,
        // refund_invoice, delete_customer, cancel_subscription; the
        // selected cell ([ask_user] → send_email, found above) stays.
        more(&mut t, "Esc s s S");
        // (The header cuts the name at 80 columns, not the arrow's place.)
        let text = t.text();
        assert!(
            text.contains(if w >= 110 {
                "selected instead ↓"
            } else {
                "↓"
            }),
            "{text}"
        );
        let c = t.app.confusions.value.as_ref().unwrap();
        let shown: Vec<String> = t
            .app
            .confusion
            .view
            .order
            .iter()
            .map(|&i| c.cells[i].selected.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            shown,
            vec![
                "send_email",
                "refund_invoice",
                "delete_customer",
                "cancel_subscription"
            ]
        );
        assert_eq!(t.app.confusion.cursor.sel, 0);
        insta::assert_snapshot!(format!("confusions_sorted_{w}x{h}"), t.terminal.backend());
        // `E`: markdown, as `rung report confusions` writes it, in this order.
        more(&mut t, "E");
        let path = export_path(&t, dir.path(), "confusions", 1, "md");
        assert_eq!(
            t.app.status.clone().unwrap_or_default(),
            format!("wrote 4 cells to {}", path.display())
        );
        let md = std::fs::read_to_string(&path).expect("the file it names");
        assert_eq!(
            md,
            "## Confusion cells\n\n\
             4 selection failures in 4 cells, by (acceptable, selected) pair.\n\n\
             | acceptable | selected instead | count | share |\n\
             | --- | --- | ---: | ---: |\n\
             | ask_user | send_email | 1 | 25.0% |\n\
             | cancel_subscription | refund_invoice | 1 | 25.0% |\n\
             | ask_user | delete_customer | 1 | 25.0% |\n\
             | find_customer | cancel_subscription | 1 | 25.0% |\n\n\
             The top two cells explain 2 of 4 selection failures (50.0%).\n"
        );
    }
}

#[test]
fn findings_kinds_search_and_sort() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        // The kinds of the week (by hand: hidden_proposal 2, menu_changed
        // 2, schema_violation 1, unsourced_id 1): one says "schema".
        walk(&mut t, "7 /");
        typed(&mut t, "schema");
        more(&mut t, "Enter");
        assert_eq!(t.app.findings.view.hits.len(), 1);
        assert!(t.text().contains("/ schema · match 1 of 1"), "{}", t.text());
        insta::assert_snapshot!(format!("findings_search_{w}x{h}"), t.terminal.backend());
        // Count ascending (ties keep the list's order), then reversed.
        more(&mut t, "Esc s s");
        let kinds = |t: &Harness| -> Vec<String> {
            let d = t.app.findings.data.value.as_ref().unwrap();
            t.app
                .findings
                .view
                .order
                .iter()
                .map(|&i| d.rows[i].kind.clone())
                .collect()
        };
        assert_eq!(
            kinds(&t),
            vec![
                "schema_violation",
                "unsourced_id",
                "hidden_proposal",
                "menu_changed"
            ]
        );
        // The selection (schema_violation, found above) stays on its row.
        assert_eq!(t.app.findings.cursor.sel, 0);
        more(&mut t, "S");
        assert!(t.text().contains("count ↓"), "{}", t.text());
        assert_eq!(t.app.findings.cursor.sel, 2);
        insta::assert_snapshot!(format!("findings_sorted_{w}x{h}"), t.terminal.backend());
    }
}

#[test]
fn tools_sort_and_a_match_out_of_sight() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    // Tools of the billing family, from the fixture's catalogue.
    let billing = tools().iter().filter(|t| t["family"] == "billing").count();
    assert_eq!(billing, 4);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        walk(&mut t, "6 /");
        typed(&mut t, "billing");
        assert_eq!(t.app.tools.len(), billing);
        // At 80 columns the family column is not shown: each row says
        // where it matched.
        let text = t.text();
        assert_eq!(text.contains("[family]"), w < 110, "{text}");
        insta::assert_snapshot!(format!("tools_find_{w}x{h}"), t.terminal.backend());
        // Sorted by visible (the 4th column `s` reaches), the selected
        // tool (cancel_subscription) staying selected.
        more(&mut t, "Esc j s s s s");
        let text = t.text();
        assert!(text.contains("visible ↑"), "{text}");
        more(&mut t, "y");
        assert_eq!(t.app.clip.take().as_deref(), Some("cancel_subscription"));
        let data = t.app.tools.data.value.as_ref().unwrap();
        let visible: Vec<u64> = t
            .app
            .tool_rows()
            .iter()
            .map(|&i| data[i].usage.visible)
            .collect();
        assert_eq!(visible, vec![2, 2, 9, 10, 10, 12, 12, 12]);
        insta::assert_snapshot!(format!("tools_sorted_{w}x{h}"), t.terminal.backend());
    }
}

#[test]
fn ladder_sorts_by_count_and_keeps_the_selected_rung() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        // SELECTION (4th rung) selected, then by count, largest first:
        // passed 7, selection 4, authorization 1, then the empty rungs in
        // ladder order.
        walk(&mut t, "j j j s s S");
        assert!(t.text().contains("count ↓"), "{}", t.text());
        let order: Vec<&str> = t
            .app
            .ladder
            .view
            .order
            .iter()
            .take(3)
            .map(|&i| t.app.ladder.rows[i].rung.as_str())
            .collect();
        assert_eq!(order, vec!["passed", "selection", "authorization"]);
        assert_eq!(t.app.ladder.cursor.sel, 1);
        insta::assert_snapshot!(format!("ladder_sorted_{w}x{h}"), t.terminal.backend());
        // Enter drills into the selected rung whatever the order.
        more(&mut t, "Enter");
        assert!(
            t.text().contains("4 decisions that failed at SELECTION"),
            "{}",
            t.text()
        );
    }
}

#[test]
fn run_timeline_search_and_sort() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    let refused_102: Vec<i64> = decisions()
        .iter()
        .filter(|d| d["run_id"] == "r-102" && d["outcome"]["status"] == "refused")
        .map(|d| d["step"].as_i64().unwrap())
        .collect();
    assert_eq!(refused_102, vec![2, 3, 4]);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        let step = |t: &Harness| t.app.run.timeline.selected().map(|r| r.step);
        // r-102, then `/refused`: the selection goes to the first match as
        // it is typed.
        walk(&mut t, "2 j Enter /");
        typed(&mut t, "refused");
        more(&mut t, "Enter");
        assert_eq!(step(&t), Some(refused_102[0]));
        let text = t.text();
        assert!(text.contains("/ refused · 3 matches · n/N"), "{text}");
        insta::assert_snapshot!(format!("timeline_search_{w}x{h}"), t.terminal.backend());
        more(&mut t, "n");
        assert_eq!(step(&t), Some(refused_102[1]));
        more(&mut t, "n");
        assert_eq!(step(&t), Some(refused_102[2]));
        more(&mut t, "n");
        assert_eq!(
            t.app.status.as_deref(),
            Some("no later decision of this run contains \"refused\"")
        );
        more(&mut t, "N");
        assert_eq!(step(&t), Some(refused_102[1]));
        // A field the timeline does not show: steps 3 and 4 were stopped at
        // the authorization boundary.
        more(&mut t, "Esc /");
        typed(&mut t, "authorization");
        more(&mut t, "Enter");
        assert_eq!(step(&t), Some(3));
        // (Cut to its column at 80.)
        assert!(t.text().contains("[bound"), "{}", t.text());
        // Without a search, n/N go to the failing decisions again.
        more(&mut t, "Esc g n");
        assert_eq!(step(&t), Some(2));
        // Sorted by rung (step 3 selected stays selected): authorization,
        // passed, precondition, selection (by name).
        more(&mut t, "j s s s");
        assert!(t.text().contains("by rung ↑"), "{}", t.text());
        assert_eq!(step(&t), Some(3));
        let rungs: Vec<String> = t
            .app
            .run
            .timeline
            .rows
            .iter()
            .map(|(_, d)| d.rung.as_str().to_string())
            .collect();
        let mut sorted = rungs.clone();
        sorted.sort();
        assert_eq!(rungs, sorted);
        insta::assert_snapshot!(format!("timeline_sorted_{w}x{h}"), t.terminal.backend());
    }
}

/// A key the built-in patterns mask, with the searched word inside.
const SECRET: &str = "sk-proj-NEEDLE4f9aQ2xLk81abcdEFGH";

/// A result of about 250 KB: `NEEDLE` once in a short string, once inside
/// an API key (shown masked), and once in a long string across the cut
/// between the viewer's first and second chunks. Returns the trace file.
fn needles(dir: &Path) -> PathBuf {
    use rung::redact::Redactor;
    use rung::tui::payload::{self, Indent};
    let mut s = String::from("{\"rows\":[");
    for i in 0..300 {
        s.push_str(&format!("\"row {i:05} lorem ipsum\","));
    }
    s.push_str("\"the NEEDLE in a row\",");
    s.push_str(&format!("\"key {SECRET}\","));
    let long_at = s.len() + 1;
    s.push_str(&format!("\"{}\"", "x".repeat(200_000)));
    s.push_str("]}");
    // Where the viewer cuts the first chunk (inside the long string: no
    // comma after it for 200 KB), computed as the viewer does.
    let (cut, _) = payload::chunk_len(
        &s.as_bytes()[..payload::READ],
        Indent::default(),
        &Redactor::default(),
    );
    assert!(
        cut > long_at && cut < long_at + 200_000,
        "the cut is in the long string"
    );
    s.replace_range(cut - 3..cut + 3, "NEEDLE");
    let line = format!(
        "{{\"type\":\"decision\",\"run_id\":\"big\",\"step\":1,\"at\":\"2026-11-20T09:00:00Z\",\
         \"selected\":\"export\",\"outcome\":{{\"status\":\"ok\"}},\"result\":{s}}}\n"
    );
    let path = dir.join("needles.jsonl");
    std::fs::write(&path, line).unwrap();
    path
}

#[test]
fn the_viewer_finds_masked_text_across_a_chunk_cut() {
    let dir = tempfile::tempdir().unwrap();
    let trace = needles(dir.path());
    let db = import_file(dir.path(), &trace);
    // Placed: the short one, the one across the cut, the one in the key;
    // the key is masked unless --no-redact.
    for (no_redact, expected) in [(false, 2usize), (true, 3)] {
        for (w, h) in [(120u16, 40u16), (80, 24)] {
            let mut t = Harness::open(&db, now(), no_redact, w, h).expect("opens");
            walk(&mut t, "2 Enter r /");
            typed(&mut t, "needle");
            more(&mut t, "Enter");
            let hit = |t: &Harness| {
                let v = t.app.run.viewer.as_ref().expect("the viewer");
                let hit = v.search.hit.expect("a match");
                assert!(v.line_of(&hit).is_some(), "its chunk is shown");
                (hit.start, hit.line, hit.col)
            };
            let first = hit(&t);
            let text = t.text();
            assert!(text.contains("the NEEDLE in a row"), "{text}");
            assert!(text.contains("/ needle · n/N next/prev"), "{text}");
            if !no_redact {
                insta::assert_snapshot!(format!("viewer_search_{w}x{h}"), t.terminal.backend());
            }
            let mut seen = vec![first];
            loop {
                more(&mut t, "n");
                let at = hit(&t);
                if at == first {
                    break;
                }
                seen.push(at);
                assert!(seen.len() <= 3, "more matches than placed: {seen:?}");
            }
            assert_eq!(seen.len(), expected, "no_redact {no_redact}: {seen:?}");
            let status = t.app.status.clone().unwrap_or_default();
            assert_eq!(status, "search went round the end");
            // The last: the one across the cut, from the first chunk's
            // last line into the second's first (read too, to show it).
            more(&mut t, "N");
            let v = t.app.run.viewer.as_ref().unwrap();
            let h = v.search.hit.unwrap();
            let lines: Vec<&String> = v.lines().collect();
            let at = v.line_of(&h).unwrap();
            assert!(
                lines[at].ends_with("NEE"),
                "{}",
                &lines[at][lines[at].len() - 20..]
            );
            assert!(lines[at + 1].starts_with("DLE"), "{}", &lines[at + 1][..20]);
            if !no_redact && w == 120 {
                insta::assert_snapshot!("viewer_search_across_the_cut", t.terminal.backend());
            }
        }
    }
}

#[test]
fn a_drilled_list_exports_as_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    let mut t = Harness::open(&db, now(), false, 120, 40).expect("opens");
    t.app.export_dir = dir.path().to_path_buf();
    // The 4 SELECTION failures, latest first (`s s S`: by time, reversed).
    walk(&mut t, "j j j Enter s s S E");
    let path = export_path(&t, dir.path(), "decisions", 1, "md");
    assert_eq!(
        t.app.status.clone().unwrap_or_default(),
        format!("wrote 4 decisions to {}", path.display())
    );
    let md = std::fs::read_to_string(&path).expect("the file it names");
    assert_eq!(
        md,
        "## 4 decisions that failed at SELECTION\n\n\
         | run | step | phase | selected | rung | status | reason | boundary | acceptable | time (µs) | violated | findings |\n\
         | --- | ---: | --- | --- | --- | --- | --- | --- | --- | ---: | --- | ---: |\n\
         | r-103 | 2 | release | send_email | selection | error | timeout | execution | ask_user | 1795082409000000 | yes | 1 |\n\
         | r-102 | 4 | modify | delete_customer | selection | refused | not_permitted | authorization | ask_user | 1795010411000000 | yes | 1 |\n\
         | r-102 | 2 | modify | refund_invoice | selection | refused | subscription_still_active | precondition | cancel_subscription | 1795010404000000 | yes | 2 |\n\
         | r-104 | 1 | discover | cancel_subscription | selection | refused | subscription_not_found | semantics | find_customer | 1794297601000000 | no | 2 |\n"
    );
}

#[test]
fn a_kinds_findings_search_says_where_they_matched() {
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &fixture());
    // The task "lumen-export" is r-103's only (the fixture's run records).
    let lumen: Vec<String> = std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "run" && v["task_id"] == "lumen-export")
        .map(|v| v["run_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(lumen, vec!["r-103"]);
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        // hidden_proposal's findings: r-102 step 4 and r-103 step 2.
        walk(&mut t, "7 Enter /");
        typed(&mut t, "lumen");
        more(&mut t, "Enter");
        let sel = t.app.findings.list.page.selected().unwrap();
        assert_eq!(sel.row.run_id.as_deref(), Some("r-103"));
        let text = t.text();
        assert!(text.contains("/ lumen · 1 match · n/N"), "{text}");
        assert!(text.contains("[task]"), "{text}");
        insta::assert_snapshot!(format!("finding_list_search_{w}x{h}"), t.terminal.backend());
        // `n` goes round to the same (only) match.
        more(&mut t, "n");
        let sel = t.app.findings.list.page.selected().unwrap();
        assert_eq!(sel.row.run_id.as_deref(), Some("r-103"));
    }
}

/// The text of the viewer's match: the line it is on, from its column.
fn at_hit(t: &Harness) -> String {
    let v = t.app.run.viewer.as_ref().expect("the viewer");
    let hit = v.search.hit.expect("a match");
    let at = v.line_of(&hit).expect("its chunk is shown");
    let line = v.lines().nth(at).unwrap();
    line.chars().skip(hit.col).collect()
}

#[test]
fn n_and_n_shift_visit_the_matches_in_order_and_go_round() {
    // About 680 KB (ten chunks of the viewer): the word five times,
    // in any case, far apart, each followed by its label.
    let dir = tempfile::tempdir().unwrap();
    let mut s = String::from("{\"rows\":[");
    let labels = ["alpha", "bravo", "charlie", "delta", "echo"];
    let spellings = ["needle", "NEEDLE", "NeEdLe", "nEEDLE", "Needle"];
    for i in 0..20_000 {
        match [150, 4_000, 9_500, 14_000, 19_900]
            .iter()
            .position(|&k| k == i)
        {
            Some(k) => s.push_str(&format!("\"{} {}\",", spellings[k], labels[k])),
            None => s.push_str(&format!("\"row {i:05} lorem ipsum dolor sit\",")),
        }
    }
    s.push_str("\"end\"]}");
    let line = format!(
        "{{\"type\":\"decision\",\"run_id\":\"big\",\"step\":1,\"at\":\"2026-11-20T09:00:00Z\",\
         \"selected\":\"export\",\"outcome\":{{\"status\":\"ok\"}},\"result\":{s}}}\n"
    );
    let trace = dir.path().join("five.jsonl");
    std::fs::write(&trace, line).unwrap();
    let db = import_file(dir.path(), &trace);
    let mut t = Harness::open(&db, now(), false, 120, 40).expect("opens");
    walk(&mut t, "2 Enter r /");
    typed(&mut t, "needle");
    more(&mut t, "Enter");
    let label = |t: &Harness| {
        let text = at_hit(t);
        let (word, rest) = text.split_at(6);
        assert_eq!(word.to_lowercase(), "needle", "{text}");
        rest.trim_start()
            .split('"')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(label(&t), "alpha");
    // Twice round forwards (the second time over chunks already cut),
    // then twice round backwards.
    for _ in 0..2 {
        for want in ["bravo", "charlie", "delta", "echo"] {
            more(&mut t, "n");
            assert_eq!(label(&t), want);
            assert_eq!(t.app.status, None);
        }
        more(&mut t, "n");
        assert_eq!(label(&t), "alpha");
        assert_eq!(t.app.status.as_deref(), Some("search went round the end"));
    }
    for _ in 0..2 {
        more(&mut t, "N");
        assert_eq!(label(&t), "echo");
        assert_eq!(t.app.status.as_deref(), Some("search went round the end"));
        for want in ["delta", "charlie", "bravo", "alpha"] {
            more(&mut t, "N");
            assert_eq!(label(&t), want);
            assert_eq!(t.app.status, None);
        }
    }
    assert!(t.text().contains("needle alpha"), "{}", t.text());
}

#[test]
fn the_why_visible_rules_sort_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let db = tui_util::import(dir.path());
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, now(), false, w, h).expect("opens");
        // delete_customer: hidden by the family rule on 10 decisions,
        // visible by the flat rule on r-104's 2 (tests/tui_drill.rs).
        walk(&mut t, "6 j j Enter");
        let rules = |t: &Harness| -> Vec<String> {
            let tool = &t.app.tool;
            let a = tool.audit.value.as_ref().expect("the audit");
            (0..a.rules.len())
                .map(|p| a.rules[tool.view.at(p)].rule.clone())
                .collect()
        };
        assert_eq!(rules(&t), vec!["family", "flat"]);
        // By rule name, then reversed: flat first; family stays selected.
        more(&mut t, "s s S");
        assert_eq!(rules(&t), vec!["flat", "family"]);
        assert_eq!(t.app.tool.rule, 1);
        let text = t.text();
        assert!(text.contains("rule ↓"), "{text}");
        insta::assert_snapshot!(format!("tool_rules_sorted_{w}x{h}"), t.terminal.backend());
        // Enter drills into the selected rule, as shown.
        more(&mut t, "Enter");
        assert_eq!(
            t.app.decisions.heading(),
            "10 decisions where delete_customer was hidden by the family rule"
        );
        more(&mut t, "Esc");
        // `/` finds the rules whose fields hold the text.
        more(&mut t, "/");
        typed(&mut t, "flat");
        more(&mut t, "Enter");
        assert_eq!(t.app.tool.view.hits, vec![0]);
        assert_eq!(t.app.tool.rule, 0);
        assert!(t.text().contains("/ flat · match 1 of 1"), "{}", t.text());
        more(&mut t, "Enter");
        assert_eq!(
            t.app.decisions.heading(),
            "2 decisions where delete_customer was visible by the flat rule"
        );
        // Esc back to the Tool screen, Esc clears the search, Esc leaves.
        more(&mut t, "Esc Esc");
        assert_eq!(t.app.screen, rung::tui::Screen::Tool);
        assert!(t.app.tool.view.find.is_empty());
        more(&mut t, "Esc");
        assert_eq!(t.app.screen, rung::tui::Screen::Tools);
    }
}

#[test]
fn a_kinds_findings_sort_in_the_store_keeping_the_selection() {
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/ladder-tour");
    let dir = tempfile::tempdir().unwrap();
    let db = import_file(dir.path(), &set);
    let at = rung::model::Timestamp::parse("2026-10-16T00:00:00Z")
        .unwrap()
        .micros();
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut t = Harness::open(&db, at, false, w, h).expect("opens");
        // menu_changed: tour-02 step 4 (tour-1), tour-03 step 2 (tour-2),
        // tour-04 step 2 (tour-1), stored in that order.
        walk(&mut t, "7 Enter j");
        let runs = |t: &Harness| -> Vec<String> {
            let p = &t.app.findings.list.page;
            p.rows
                .iter()
                .map(|(_, x)| x.row.run_id.clone().unwrap_or_default())
                .collect()
        };
        let sel = |t: &Harness| {
            t.app
                .findings
                .list
                .page
                .selected()
                .and_then(|x| x.row.run_id.clone())
        };
        assert_eq!(runs(&t), ["tour-02", "tour-03", "tour-04"]);
        assert_eq!(sel(&t).as_deref(), Some("tour-03"));
        // By run, reversed.
        more(&mut t, "s S");
        assert_eq!(t.app.findings.list.page.error, None);
        assert_eq!(runs(&t), ["tour-04", "tour-03", "tour-02"]);
        assert!(t.text().contains("run ↓"), "{}", t.text());
        // By step, still reversed: step 4, then the two step 2s (ties in
        // the stored order, reversed too).
        more(&mut t, "s");
        assert_eq!(runs(&t), ["tour-02", "tour-04", "tour-03"]);
        // By catalogue: tour-2 first.
        more(&mut t, "s s");
        assert_eq!(runs(&t), ["tour-03", "tour-04", "tour-02"]);
        assert_eq!(sel(&t).as_deref(), Some("tour-03"), "still selected");
        assert_eq!(t.app.findings.list.page.cursor.sel, 0);
        insta::assert_snapshot!(
            format!("findings_kind_sorted_{w}x{h}"),
            t.terminal.backend()
        );
        // `e` writes the findings in the order shown, not the stored one.
        let out = tempfile::tempdir().unwrap();
        t.app.export_dir = out.path().to_path_buf();
        more(&mut t, "e");
        let path = out
            .path()
            .join(format!("rung-findings-{}-1.csv", at.div_euclid(1_000_000)));
        let status = t.app.status.clone().unwrap_or_default();
        assert_eq!(status, format!("wrote 3 findings to {}", path.display()));
        let csv = std::fs::read_to_string(&path).expect("the file it names");
        let order: Vec<&str> = csv
            .lines()
            .skip(1)
            .filter_map(|l| {
                ["tour-02", "tour-03", "tour-04"]
                    .into_iter()
                    .find(|r| l.contains(r))
            })
            .collect();
        assert_eq!(order, ["tour-03", "tour-04", "tour-02"], "{csv}");
        // Past the last column: the stored order again (still reversed).
        more(&mut t, "s s");
        assert_eq!(t.app.findings.list.sort, None);
        assert_eq!(runs(&t), ["tour-04", "tour-03", "tour-02"]);
        more(&mut t, "S");
        assert_eq!(runs(&t), ["tour-02", "tour-03", "tour-04"]);
        assert_eq!(sel(&t).as_deref(), Some("tour-03"));
    }
}
