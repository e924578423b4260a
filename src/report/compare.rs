//! `rung compare BASE CANDIDATE...`: the menus side by side (a column per
//! menu, each metric's change against the base and its p-value on the rows
//! under it), failures by rung with their deltas, the base's confusion
//! cells with how many of each cell's attempts every candidate got right,
//! the verdict for one cell and the gate. Tables and markdown show these as
//! sections; CSV is one long list (a line per section, key and menu); JSON
//! is one object (see `json`).

use serde_json::{Value, json};

use super::model::{Cell, Column, Groups, Prose, Report, Shape, esc};
use super::{Format, csv, markdown, table};
use crate::error::Result;
use crate::metrics::Rate;
use crate::metrics::compare::{Change, Metric, Test};
use crate::model::Rung;
use crate::store::compare::{CompareReport, MenuFigures};

/// `0.0352`, `<0.0001`.
pub fn p_text(p: f64) -> String {
    if p < 0.0001 {
        "<0.0001".to_string()
    } else {
        format!("{p:.4}")
    }
}

/// A rate for reading: `90.25%`, `n/a`.
fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".to_string(), |v| format!("{:.2}%", v * 100.0))
}

/// A metric's value for reading.
fn value_text(m: Metric, v: Option<f64>) -> String {
    match (m, v) {
        (_, None) => "n/a".to_string(),
        (Metric::PassK(_), Some(v)) => format!("{v:.4}"),
        (Metric::TokensP50 | Metric::TokensP95, Some(v)) => format!("{v:.0}"),
        (_, v) => pct(v),
    }
}

/// A change for reading: points for rates, raw for the rest.
fn change_text(c: &Change) -> String {
    match (c.metric, c.change) {
        (_, None) => "—".to_string(),
        (Metric::PassK(_), Some(d)) => format!("{d:+.4}"),
        (Metric::TokensP50 | Metric::TokensP95, Some(d)) => format!("{d:+.0}"),
        (_, Some(d)) => format!("{:+.2} pt", d * 100.0),
    }
}

/// The p-value cell: marked "not significant" above alpha (`short`:
/// "n.s.", where the words would push a table past its width).
fn p_cell(c: &Change, short: bool) -> String {
    match c.p_value {
        None => "—".to_string(),
        Some(p) if c.significant => p_text(p),
        Some(p) if short => format!("{} n.s.", p_text(p)),
        Some(p) => format!("{} not significant", p_text(p)),
    }
}

fn test_name(t: Test) -> &'static str {
    match t {
        Test::Mcnemar => "McNemar",
        Test::SignAttempts => "sign test over attempts",
        Test::SignTasks => "sign test over tasks",
    }
}

fn fraction(r: Rate) -> String {
    format!("{}/{} = {}", r.numerator, r.denominator, pct(r.value))
}

/// Two reading columns per menu: the table's (short) and markdown's (a
/// rate with its counts) view of the same figure.
fn menu_columns(c: &CompareReport, first: &'static str) -> Vec<Column> {
    let mut cols = vec![Column::new("key", first).reading_only()];
    for (i, m) in c.menus.iter().enumerate() {
        let name = esc(&m.summary.catalogue);
        let header = if i == 0 {
            format!("{name} (base)")
        } else {
            name
        };
        let mut short = Column::new("menu", header.clone()).right().reading_only();
        short.markdown = false;
        cols.push(short);
        cols.push(Column::new("menu", header).right().markdown_only());
    }
    cols
}

/// A row of `menu_columns`: the first cell, then per menu (table,
/// markdown) texts.
fn menu_row(first: String, per_menu: Vec<(String, String)>) -> Vec<Cell> {
    let mut v = vec![Cell::Text(first)];
    for (t, m) in per_menu {
        v.push(Cell::Text(t));
        v.push(Cell::Text(m));
    }
    v
}

/// The same text in both views.
fn both(s: String) -> (String, String) {
    (s.clone(), s)
}

fn metric_rows(c: &CompareReport) -> Report {
    let base = c.base();
    let mut r = Report::new(
        &format!(
            "Compare menus: {} (base) against {}",
            base.summary.catalogue,
            c.menus[1..]
                .iter()
                .map(|m| m.summary.catalogue.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Shape::List("rows"),
        menu_columns(c, "metric"),
    );
    r.table_title = Some(r.title.clone());
    let sp = spelling(c);
    let each = |f: &dyn Fn(&MenuFigures) -> (String, String)| -> Vec<(String, String)> {
        c.menus.iter().map(f).collect()
    };
    let cand = |f: &dyn Fn(usize) -> String| -> Vec<(String, String)> {
        std::iter::once(both(String::new()))
            .chain((0..c.comparisons.len()).map(|i| both(f(i))))
            .collect()
    };
    let mut sections = vec![(0, "attempts".to_string())];
    r.row(menu_row(
        "runs".into(),
        each(&|m| both(m.summary.attempts.to_string())),
    ));
    r.row(menu_row(
        "labelled first calls".into(),
        each(&|m| both(m.summary.labelled.to_string())),
    ));
    r.row(menu_row(
        "tasks".into(),
        each(&|m| both(m.summary.tasks.to_string())),
    ));
    r.row(menu_row(
        "  paired with the base".into(),
        cand(&|i| {
            let p = &c.comparisons[i].pairing;
            if p.by_trial {
                format!("{} runs", p.attempts)
            } else {
                format!("{} tasks", p.tasks)
            }
        }),
    ));
    sections.push((
        r.rows.len(),
        "metrics (change: candidate − base, paired)".to_string(),
    ));
    for (mi, &metric) in c.metrics.iter().enumerate() {
        r.row(menu_row(
            metric.label(),
            each(&|m| {
                let v = value_cell(m, metric, sp);
                match m.summary.rate(metric) {
                    Some(rate) => (v, fraction(rate)),
                    None => both(v),
                }
            }),
        ));
        let change = |i: usize| &c.comparisons[i].changes[mi];
        r.row(menu_row(
            "  change".into(),
            cand(&|i| change_text(change(i))),
        ));
        r.row(
            (0..r.columns.len())
                .map(|k| match k {
                    0 => Cell::text("  p"),
                    k if k < 3 => Cell::text(""),
                    // (table, markdown) of candidate (k - 3) / 2
                    k => {
                        let ch = change((k - 3) / 2);
                        Cell::Text(p_cell(ch, !sp.words && k % 2 == 1))
                    }
                })
                .collect(),
        );
    }
    r.groups = Groups::Sections(sections);
    let mut pairing = Vec::new();
    for cmp in &c.comparisons {
        let p = &cmp.pairing;
        pairing.push(if p.by_trial {
            format!(
                "{}: {} tasks both ran, {} runs paired by task and trial ({})",
                esc(&cmp.candidate),
                p.tasks,
                p.attempts,
                test_name(Test::Mcnemar)
            )
        } else {
            format!(
                "{}: {} tasks both ran; trials do not line up ({})",
                esc(&cmp.candidate),
                p.tasks,
                test_name(Test::SignTasks)
            )
        });
    }
    r.summary
        .push(Prose::both(format!("{}.", pairing.join("; "))));
    let note = |ns: &str| {
        format!(
            "change: the candidate minus the base on what both ran. p: two-sided, McNemar's \
             exact test on runs paired by task and trial (rates with one counted decision per \
             run), otherwise a sign test (over paired runs for tokens, over tasks for the \
             rest); \"not significant\"{ns} when p is above alpha {}. Wrong first calls, \
             recovered or not, are shares of labelled first calls.",
            c.alpha
        )
    };
    r.notes.push(Prose::each(
        note(if sp.words { "" } else { " (n.s.)" }),
        note(""),
    ));
    r
}

/// How the table spells its cells: a rate with its counts (`1083/1200
/// 90.25%`) and "not significant" in words, where the grid fits the width
/// with them.
#[derive(Clone, Copy)]
struct Spelling {
    counts: bool,
    words: bool,
}

/// A metric's value as the table shows it.
fn value_cell(m: &MenuFigures, metric: Metric, sp: Spelling) -> String {
    let v = value_text(metric, m.summary.value(metric));
    match m.summary.rate(metric) {
        Some(r) if sp.counts && r.denominator > 0 => {
            format!("{}/{} {v}", r.numerator, r.denominator)
        }
        _ => v,
    }
}

/// The width of the metrics grid spelled `sp`.
fn grid_width(c: &CompareReport, sp: Spelling) -> usize {
    let label = c
        .metrics
        .iter()
        .map(|m| m.label().chars().count())
        .chain([22])
        .max()
        .unwrap_or(0);
    let column = |i: usize| {
        let m = &c.menus[i];
        let name = m.summary.catalogue.chars().count() + if i == 0 { 7 } else { 0 };
        let values = c
            .metrics
            .iter()
            .map(|&x| value_cell(m, x, sp).chars().count());
        let changes = (i > 0)
            .then(|| {
                c.comparisons[i - 1].changes.iter().map(|ch| {
                    p_cell(ch, !sp.words)
                        .chars()
                        .count()
                        .max(change_text(ch).chars().count())
                })
            })
            .into_iter()
            .flatten();
        values.chain(changes).chain([name, 9]).max().unwrap_or(0)
    };
    label + (0..c.menus.len()).map(|i| 2 + column(i)).sum::<usize>()
}

/// The fullest spelling that fits the table's width.
fn spelling(c: &CompareReport) -> Spelling {
    [(true, true), (false, true), (false, false)]
        .into_iter()
        .map(|(counts, words)| Spelling { counts, words })
        .find(|&sp| grid_width(c, sp) <= table::WIDTH)
        .unwrap_or(Spelling {
            counts: false,
            words: false,
        })
}

/// A count, with its delta against the base's for a candidate (`i > 0`).
fn delta(i: usize, n: u64, base: u64) -> String {
    if i == 0 {
        n.to_string()
    } else {
        format!("{n} ({:+})", n as i64 - base as i64)
    }
}

fn rung_rows(c: &CompareReport) -> Report {
    let mut r = Report::new(
        "Failures by rung",
        Shape::List("rungs"),
        menu_columns(c, "rung"),
    );
    let base = &c.base().ladder;
    for rung in Rung::ALL {
        let counts: Vec<u64> = c.menus.iter().map(|m| m.ladder.count(*rung)).collect();
        if counts.iter().all(|n| *n == 0) {
            continue;
        }
        let shown = c
            .menus
            .iter()
            .enumerate()
            .map(|(i, m)| both(delta(i, m.ladder.count(*rung), base.count(*rung))))
            .collect();
        r.row(menu_row(rung.as_str().to_string(), shown));
    }
    let shown = c
        .menus
        .iter()
        .enumerate()
        .map(|(i, m)| both(delta(i, m.ladder.decisions, base.decisions)))
        .collect();
    r.row(menu_row("decisions".to_string(), shown));
    r.summary.push(Prose::both(
        "Each decision counted once, at its first failed rung; a candidate's delta against \
         the base in brackets. Rungs with no decision on any menu are left out."
            .to_string(),
    ));
    r
}

fn cell_rows(c: &CompareReport) -> Report {
    let base = &c.base().summary.catalogue;
    let mut cols = vec![Column::new("cell", "cell (acceptable → selected)").markdown_only()];
    cols.extend(menu_columns(c, ""));
    let mut r = Report::new(
        &format!("Confusion cells of {base}"),
        Shape::List("cells"),
        cols,
    );
    // The table names each cell above its rows.
    r.columns[1].markdown = false;
    let mut sections = Vec::new();
    for row in &c.cells {
        sections.push((
            r.rows.len(),
            format!("{} ({} attempts)", row.cell.show(), row.attempts),
        ));
        let mut shown = vec![both(format!("0/{}", row.attempts))];
        shown.extend(
            row.results
                .iter()
                .map(|res| both(format!("{}/{}", res.right, res.paired))),
        );
        let mut cells = vec![Cell::Text(row.cell.show())];
        cells.extend(menu_row("  right/paired".to_string(), shown));
        r.row(cells);
        if !row.changes.is_empty() {
            let mut shown = vec![both(String::new())];
            shown.extend(row.changes.iter().map(|k| both(k.as_str().to_string())));
            let mut cells = vec![Cell::text("how it differs")];
            cells.extend(menu_row("  how it differs".to_string(), shown));
            r.row(cells);
        }
    }
    r.groups = Groups::Sections(sections);
    r.summary.push(Prose::both(format!(
        "How many of each cell's attempts every menu got right: right/paired, where paired \
         counts the cell's attempts the menu ran too (same task, trial and position in the run); \
         {} got every one wrong.{}",
        esc(base),
        if c.cells.iter().any(|x| !x.changes.is_empty()) {
            " How each candidate differs from the base around the pair: descriptions (only \
             the pair's descriptions or hints), hidden (one of the pair absent from every \
             recorded menu), merged (the pair replaced by one new tool), other."
        } else {
            ""
        }
    )));
    r.empty = Some(super::model::Empty {
        text: "The base has no selection failures.",
        whole: false,
    });
    if let Some(v) = &c.verdict {
        r.notes.push(Prose::both(format!("Verdict: {}", v.text)));
    }
    r
}

fn gate_rows(c: &CompareReport) -> Report {
    let mut r = Report::new(
        "Gate",
        Shape::List("gate"),
        vec![
            Column::new("candidate", "candidate").flex(),
            Column::new("check", "check").reading_only(),
            Column::new("result", "result"),
            Column::new("detail", "detail").flex(),
        ],
    );
    for g in &c.gates {
        for k in &g.checks {
            let label = match k.check.as_str() {
                "first_call_accuracy" => "first-call accuracy",
                "unrecovered" => "unrecovered",
                _ => "tokens/turn p95",
            };
            r.row(vec![
                Cell::text(&g.candidate),
                Cell::text(label),
                Cell::text(if k.passed { "ok" } else { "FAIL" }),
                Cell::text(&k.detail),
            ]);
        }
    }
    let failed: Vec<String> = c
        .gates
        .iter()
        .filter(|g| !g.passed)
        .map(|g| esc(&g.candidate))
        .collect();
    r.summary.push(Prose::both(format!(
        "Admission: no worse than {} on first-call accuracy and unrecovered wrong first calls \
         (one-sided, alpha {}){}.",
        esc(&c.base().summary.catalogue),
        c.alpha,
        c.max_tokens
            .map(|m| format!(", and at most {m} definition tokens per turn at p95"))
            .unwrap_or_default()
    )));
    r.notes.push(Prose::both(if failed.is_empty() {
        "Every candidate passes.".to_string()
    } else {
        format!("Not admitted: {}.", failed.join(", "))
    }));
    r
}

/// The long list CSV writes: a line per (section, key, menu): sections
/// `metric`, `rung`, `cell` and, with `--gate`, `gate` (value: passed).
fn data_rows(c: &CompareReport, gate: bool) -> Report {
    let mut r = Report::new(
        "Compare",
        Shape::List("rows"),
        vec![
            Column::new("section", "section"),
            Column::new("key", "key"),
            Column::new("catalogue", "catalogue"),
            Column::new("value", "value"),
            Column::new("numerator", "numerator"),
            Column::new("denominator", "denominator"),
            Column::new("change", "change"),
            Column::new("p_value", "p_value"),
            Column::new("test", "test"),
            Column::new("pairs", "pairs"),
            Column::new("significant", "significant"),
            Column::new("detail", "detail"),
        ],
    );
    let num = |v: Option<f64>| v.map_or(Cell::None, |value| Cell::Decimal { value, places: 4 });
    for (mi, &metric) in c.metrics.iter().enumerate() {
        for (i, m) in c.menus.iter().enumerate() {
            let rate = m.summary.rate(metric);
            let ch = (i > 0).then(|| &c.comparisons[i - 1].changes[mi]);
            r.row(vec![
                Cell::text("metric"),
                Cell::Text(metric.key()),
                Cell::text(&m.summary.catalogue),
                num(m.summary.value(metric)),
                rate.map_or(Cell::None, |x| Cell::Count(x.numerator)),
                rate.map_or(Cell::None, |x| Cell::Count(x.denominator)),
                num(ch.and_then(|x| x.change)),
                num(ch.and_then(|x| x.p_value)),
                ch.map_or(Cell::None, |x| Cell::text(x.test.as_str())),
                ch.map_or(Cell::None, |x| Cell::Count(x.pairs)),
                ch.filter(|x| x.p_value.is_some())
                    .map_or(Cell::None, |x| Cell::Bool(x.significant)),
                Cell::None,
            ]);
        }
    }
    let base = &c.base().ladder;
    for rung in Rung::ALL {
        for (i, m) in c.menus.iter().enumerate() {
            let n = m.ladder.count(*rung);
            r.row(vec![
                Cell::text("rung"),
                Cell::text(rung.as_str()),
                Cell::text(&m.summary.catalogue),
                Cell::Count(n),
                Cell::None,
                Cell::None,
                if i == 0 {
                    Cell::None
                } else {
                    Cell::Int(n as i64 - base.count(*rung) as i64)
                },
                Cell::None,
                Cell::None,
                Cell::None,
                Cell::None,
                Cell::None,
            ]);
        }
    }
    for row in &c.cells {
        let key = row.cell.show();
        let mut push = |cat: &str, right: u64, paired: u64| {
            r.row(vec![
                Cell::text("cell"),
                Cell::text(&key),
                Cell::text(cat),
                Cell::Count(right),
                Cell::Count(right),
                Cell::Count(paired),
                Cell::None,
                Cell::None,
                Cell::None,
                Cell::None,
                Cell::None,
                Cell::None,
            ]);
        };
        push(&c.base().summary.catalogue, 0, row.attempts);
        for res in &row.results {
            push(&res.catalogue, res.right, res.paired);
        }
    }
    if gate {
        for g in &c.gates {
            for k in &g.checks {
                r.row(vec![
                    Cell::text("gate"),
                    Cell::text(&k.check),
                    Cell::text(&g.candidate),
                    Cell::Bool(k.passed),
                    Cell::None,
                    Cell::None,
                    Cell::None,
                    Cell::None,
                    Cell::None,
                    Cell::None,
                    Cell::None,
                    Cell::text(&k.detail),
                ]);
            }
        }
    }
    r
}

/// The whole comparison as one JSON object: `base`, `candidates`, `alpha`,
/// `max_tokens`, `menus` (the base first: figures, `rungs`), `comparisons`
/// (per candidate: `pairing`, `changes` in metric order, `rungs` deltas),
/// `cells` (the base's, most first: `attempts` and per candidate `paired`,
/// `right` and, with `--cell`, `change`), `verdict` and `gate` (null
/// unless asked).
pub fn json(c: &CompareReport, gate: bool) -> Result<Value> {
    let rungs = |m: &MenuFigures| m.ladder.to_json();
    let base = c.base();
    let mut menus = Vec::with_capacity(c.menus.len());
    for m in &c.menus {
        let mut v = serde_json::to_value(&m.summary)?;
        v["ladder"] = rungs(m);
        menus.push(v);
    }
    Ok(json!({
        "base": base.summary.catalogue,
        "candidates": c.menus[1..].iter().map(|m| &m.summary.catalogue).collect::<Vec<_>>(),
        "alpha": c.alpha,
        "max_tokens": c.max_tokens,
        "menus": menus,
        "comparisons": c.comparisons.iter().zip(&c.menus[1..]).map(|(cmp, m)| {
            let deltas: serde_json::Map<String, Value> = Rung::ALL.iter().map(|r| {
                (r.as_str().to_string(), json!(m.ladder.count(*r) as i64 - base.ladder.count(*r) as i64))
            }).collect();
            json!({
                "candidate": cmp.candidate,
                "pairing": cmp.pairing,
                "changes": cmp.changes,
                "rungs": deltas,
            })
        }).collect::<Vec<_>>(),
        "cells": c.cells.iter().map(|row| json!({
            "acceptable": row.cell.acceptable,
            "selected": row.cell.selected,
            "attempts": row.attempts,
            "candidates": row.results.iter().enumerate().map(|(i, res)| {
                let mut v = json!({"catalogue": res.catalogue, "paired": res.paired, "right": res.right});
                if let Some(k) = row.changes.get(i) {
                    v["change"] = json!(k.as_str());
                }
                v
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "verdict": c.verdict,
        "gate": gate.then(|| json!({
            "passed": c.gate_passed(),
            "candidates": c.gates,
        })),
    }))
}

/// The comparison in one format; `gate`: say the gate too.
pub fn render(c: &CompareReport, format: Format, gate: bool) -> Result<String> {
    let mut sections = vec![metric_rows(c), rung_rows(c), cell_rows(c)];
    if gate {
        sections.push(gate_rows(c));
    }
    Ok(match format {
        Format::Json => super::json_text(&json(c, gate)?),
        Format::Csv => csv::render(&data_rows(c, gate)),
        Format::Table => sections
            .iter()
            .map(table::render)
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Markdown => sections
            .iter()
            .map(markdown::render)
            .collect::<Vec<_>>()
            .join("\n"),
    })
}
