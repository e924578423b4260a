//! `rung report budget`: per catalogue, the visible menu against the flat
//! one (every catalogue tool on every turn): tools and definition tokens
//! per turn at p50 and p95, a run at the p50 and p95 run lengths, the share
//! the disclosed menu saves, and the runs whose menu changed mid-run. A
//! table takes a grid per catalogue with a row per quantity; CSV is a line
//! per catalogue; JSON `{"catalogues": [...]}`.

use serde_json::json;

use super::model::{Cell, Column, Empty, Group, Groups, Prose, Report, Shape, count, esc, percent};
use super::{Format, csv, json_text, markdown, table};
use crate::metrics::budget::{Budget, RunCost};

fn opt(v: Option<u64>) -> Cell {
    v.map_or(Cell::None, Cell::Count)
}

fn reading(list: &[Budget]) -> Report {
    let mut r = Report::new(
        "Menu budget",
        Shape::List("rows"),
        vec![
            Column::new("catalogue", "catalogue").markdown_only(),
            Column::new("quantity", "quantity").reading_only(),
            Column::new("disclosed", "disclosed")
                .right()
                .none("n/a")
                .reading_only(),
            Column::new("flat", "flat").right().none("").reading_only(),
            Column::new("saved", "saved")
                .right()
                .none("")
                .reading_only(),
        ],
    );
    r.empty = Some(Empty {
        text: "No decisions on a catalogue.",
        whole: true,
    });
    let mut groups = Vec::new();
    for b in list {
        let start = r.rows.len();
        let cat = || Cell::text(&b.catalogue);
        let fewer = |v: Option<u64>| {
            v.filter(|v| *v <= b.tools)
                .map_or(Cell::None, |v| Cell::Text(format!("{} fewer", b.tools - v)))
        };
        for (label, v) in [
            ("tools visible per turn, p50", b.visible_per_turn.p50),
            ("tools visible per turn, p95", b.visible_per_turn.p95),
        ] {
            r.row(vec![
                cat(),
                Cell::text(label),
                opt(v),
                Cell::Count(b.tools),
                fewer(v),
            ]);
        }
        let share = |d: Option<u64>, flat: u64| {
            d.filter(|_| flat > 0)
                .map_or(Cell::None, |d| Cell::Share(1.0 - d as f64 / flat as f64))
        };
        for (label, v) in [
            ("definition tokens per turn, p50", b.tokens_per_turn.p50),
            ("definition tokens per turn, p95", b.tokens_per_turn.p95),
        ] {
            r.row(vec![
                cat(),
                Cell::text(label),
                opt(v),
                Cell::Count(b.flat_tokens_per_turn),
                share(v, b.flat_tokens_per_turn),
            ]);
        }
        for (pct, cost) in [("p50", b.per_run_p50), ("p95", b.per_run_p95)] {
            let Some(RunCost {
                turns,
                disclosed,
                flat,
                saved,
            }) = cost
            else {
                continue;
            };
            r.row(vec![
                cat(),
                Cell::Text(format!(
                    "tokens per run at the {pct} length ({})",
                    count(turns, "turn", "turns")
                )),
                opt(disclosed),
                Cell::Count(flat),
                Cell::opt_share(saved),
            ]);
        }
        r.row(vec![
            cat(),
            Cell::text("runs whose menu changed mid-run"),
            Cell::Count(b.menu_changed_runs),
            Cell::None,
            Cell::None,
        ]);
        if let Some(n) = b.menu_changed_findings {
            r.row(vec![
                cat(),
                Cell::text("menu_changed findings"),
                Cell::Count(n),
                Cell::None,
                Cell::None,
            ]);
        }
        groups.push(Group {
            rows: start..r.rows.len(),
            heading: format!(
                "Catalogue {}: {} in the catalogue; {}, {}",
                esc(&b.catalogue),
                count(b.tools, "tool", "tools"),
                count(b.runs, "run", "runs"),
                count(b.turns, "turn", "turns"),
            ),
            footer: match (b.per_run_p50, b.per_run_p95) {
                (Some(a), Some(z)) => format!(
                    "The disclosed menu saves {} of the flat menu's definition traffic on a \
                     typical run and {} on a long one.",
                    a.saved.map_or("n/a".to_string(), percent),
                    z.saved.map_or("n/a".to_string(), percent),
                ),
                _ => "No runs.".to_string(),
            },
        });
    }
    r.groups = Groups::Split(groups);
    r.summary.push(Prose::both(
        "disclosed: what the model saw; flat: every catalogue tool on every turn. A turn counts \
         once however many calls it made; a run's tokens are the tokens per turn at a \
         percentile times the run length at the same percentile. Tokens are an estimate \
         (characters / 4)."
            .to_string(),
    ));
    r
}

fn data(list: &[Budget]) -> Report {
    let findings = list.iter().any(|b| b.menu_changed_findings.is_some());
    let mut cols = vec![
        Column::new("catalogue", "catalogue"),
        Column::new("tools", "tools"),
        Column::new("runs", "runs"),
        Column::new("turns", "turns"),
        Column::new("visible_p50", "visible_p50"),
        Column::new("visible_p95", "visible_p95"),
        Column::new("tokens_p50", "tokens_p50"),
        Column::new("tokens_p95", "tokens_p95"),
        Column::new("flat_tokens_per_turn", "flat_tokens_per_turn"),
        Column::new("run_turns_p50", "run_turns_p50"),
        Column::new("run_turns_p95", "run_turns_p95"),
        Column::new("disclosed_run_p50", "disclosed_run_p50"),
        Column::new("flat_run_p50", "flat_run_p50"),
        Column::new("saved_p50", "saved_p50"),
        Column::new("disclosed_run_p95", "disclosed_run_p95"),
        Column::new("flat_run_p95", "flat_run_p95"),
        Column::new("saved_p95", "saved_p95"),
        Column::new("menu_changed_runs", "menu_changed_runs"),
    ];
    if findings {
        cols.push(Column::new(
            "menu_changed_findings",
            "menu_changed_findings",
        ));
    }
    let mut r = Report::new("Menu budget", Shape::List("catalogues"), cols);
    for b in list {
        let cost = |c: Option<RunCost>| {
            [
                c.and_then(|c| c.disclosed).map_or(Cell::None, Cell::Count),
                c.map_or(Cell::None, |c| Cell::Count(c.flat)),
                c.and_then(|c| c.saved).map_or(Cell::None, Cell::Share),
            ]
        };
        let mut cells = vec![
            Cell::text(&b.catalogue),
            Cell::Count(b.tools),
            Cell::Count(b.runs),
            Cell::Count(b.turns),
            opt(b.visible_per_turn.p50),
            opt(b.visible_per_turn.p95),
            opt(b.tokens_per_turn.p50),
            opt(b.tokens_per_turn.p95),
            Cell::Count(b.flat_tokens_per_turn),
            opt(b.run_turns.p50),
            opt(b.run_turns.p95),
        ];
        cells.extend(cost(b.per_run_p50));
        cells.extend(cost(b.per_run_p95));
        cells.push(Cell::Count(b.menu_changed_runs));
        if findings {
            cells.push(opt(b.menu_changed_findings));
        }
        r.row(cells);
    }
    r
}

/// The budget in one format. JSON: `{"catalogues": [{catalogue, tools,
/// flat_tokens_per_turn, runs, turns, visible_per_turn: {p50, p95},
/// tokens_per_turn, run_turns, per_run_p50: {turns, disclosed, flat,
/// saved}, per_run_p95, menu_changed_runs, menu_changed_findings}]}` by
/// catalogue.
pub fn render(list: &[Budget], format: Format) -> String {
    match format {
        Format::Json => json_text(&json!({ "catalogues": list })),
        Format::Csv => csv::render(&data(list)),
        Format::Table => table::render(&reading(list)),
        Format::Markdown => markdown::render(&reading(list)),
    }
}
