//! Renderers for report results: aligned tables, markdown, CSV (RFC 4180)
//! and the JSON shapes of `cli.md`. Pure: results in, text out. Every string
//! from a trace is escaped before it is printed.

use serde_json::{Value, json};

use crate::metrics::{
    Confusions, LadderCounts, Metrics, Rate, RefusalReport, RefusalRow, ToolUsage, top_share,
};
use crate::model::{Rung, Timestamp};
use crate::store::query::{FindingRow, RunRow};
use crate::text::{escape, safe_json, truncate};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

/// Pretty JSON, safe for a terminal, with a final newline.
pub fn json_text(v: &Value) -> String {
    let mut s = safe_json(serde_json::to_string_pretty(v).expect("serialises"));
    s.push('\n');
    s
}

/// The width tables and prose are fitted to.
pub const WIDTH: usize = 80;

/// Widest a table cell gets before it is cut with `…`.
const MAX_CELL: usize = 60;

/// Narrowest a flexible column is cut to when a table is too wide.
const MIN_FLEX: usize = 10;

/// A grid of cells with a header; cells are already escaped.
pub struct Grid {
    pub headers: Vec<String>,
    /// Right-aligned columns (numbers).
    pub right: Vec<bool>,
    /// Columns that may be cut (with `…`) so the table fits in [`WIDTH`].
    pub flex: Vec<bool>,
    pub rows: Vec<Vec<String>>,
    /// Text shown under a row in tables (indented and wrapped).
    pub notes: Vec<Option<String>>,
    /// Labels shown above a row in tables: (row index, label).
    pub sections: Vec<(usize, String)>,
}

impl Grid {
    pub fn new(headers: &[&str], right: &[bool]) -> Grid {
        Grid {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            right: right.to_vec(),
            flex: vec![false; headers.len()],
            rows: Vec::new(),
            notes: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// Marks columns (by index) that may be cut to fit the width.
    pub fn flexible(mut self, columns: &[usize]) -> Grid {
        for &c in columns {
            self.flex[c] = true;
        }
        self
    }

    /// A label line above the next row in tables (cut to the width).
    pub fn section(&mut self, label: String) {
        self.sections.push((self.rows.len(), label));
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
        self.notes.push(None);
    }

    /// A row with text printed under it in tables.
    pub fn row_with_note(&mut self, cells: Vec<String>, note: String) {
        self.rows.push(cells);
        self.notes.push(Some(note));
    }

    /// Column widths: the widest cell (cut at [`MAX_CELL`]), then flexible
    /// columns narrowed, widest first, until the table fits in [`WIDTH`].
    fn widths(&self) -> Vec<usize> {
        let n = self.headers.len();
        let mut widths: Vec<usize> = (0..n)
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count().min(MAX_CELL))
                    .chain(std::iter::once(self.headers[i].chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let floor: Vec<usize> = (0..n)
            .map(|i| {
                if self.flex[i] {
                    widths[i].min(self.headers[i].chars().count().max(MIN_FLEX))
                } else {
                    widths[i]
                }
            })
            .collect();
        let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * n.saturating_sub(1);
        while total(&widths) > WIDTH {
            let widest = (0..n)
                .filter(|&i| widths[i] > floor[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)));
            match widest {
                Some(i) => widths[i] -= 1,
                None => break,
            }
        }
        widths
    }

    /// Aligned columns separated by two spaces, fitted to [`WIDTH`] where
    /// the flexible columns allow it; notes under their rows.
    pub fn table(&self) -> String {
        let widths = self.widths();
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let c = truncate(c, widths[i]);
                let pad = widths[i] - c.chars().count();
                let last = i + 1 == cells.len();
                if self.right[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(&c);
                } else {
                    s.push_str(&c);
                    if !last {
                        s.push_str(&" ".repeat(pad));
                    }
                }
                if !last {
                    s.push_str("  ");
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = line(&self.headers);
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        out.push_str(&line(&rule));
        for (i, (r, note)) in self.rows.iter().zip(&self.notes).enumerate() {
            for (_, label) in self.sections.iter().filter(|(at, _)| *at == i) {
                out.push_str(&truncate(label, WIDTH));
                out.push('\n');
            }
            out.push_str(&line(r));
            if let Some(note) = note {
                out.push_str(&wrap(note, WIDTH, "    "));
            }
        }
        out
    }

    /// A GitHub-flavoured markdown table (cells whole, notes left out).
    pub fn markdown(&self) -> String {
        let mut out = String::from("|");
        for h in &self.headers {
            out.push_str(&format!(" {} |", md_cell(h)));
        }
        out.push_str("\n|");
        for r in &self.right {
            out.push_str(if *r { " ---: |" } else { " --- |" });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for c in row {
                out.push_str(&format!(" {} |", md_cell(c)));
            }
            out.push('\n');
        }
        out
    }
}

/// A markdown table cell: pipes escaped so they do not split the cell,
/// and trace text made inert (see [`md_text`]).
fn md_cell(c: &str) -> String {
    md_text(c).replace('|', "\\|")
}

/// Text from a trace as markdown shows it: HTML escaped (no `<script>`, no
/// `<img onerror>`, no `<https://…>` autolink) and brackets escaped, so no
/// link or remote image (`![](https://…)`) is made from it; a backslash is
/// itself escaped so none of these escapes can be undone.
fn md_text(c: &str) -> String {
    let mut out = String::with_capacity(c.len());
    for ch in c.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '[' => out.push_str("\\["),
            ']' => out.push_str("\\]"),
            c => out.push(c),
        }
    }
    out
}

/// Word-wraps one line of (escaped) text to `width` columns, each line
/// starting with `indent`; a word longer than a line is cut across lines.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let room = width.saturating_sub(indent.chars().count()).max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let need = if cur_len == 0 {
                word.len()
            } else {
                cur_len + 1 + word.len()
            };
            if need <= room {
                if cur_len > 0 {
                    cur.push(' ');
                    cur_len += 1;
                }
                cur.extend(word.iter());
                cur_len += word.len();
                break;
            }
            if cur_len > 0 {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
                continue;
            }
            // A word wider than a whole line.
            let rest = word.split_off(room);
            lines.push(word.iter().collect());
            word = rest;
        }
    }
    if cur_len > 0 || lines.is_empty() {
        lines.push(cur);
    }
    lines
        .iter()
        .map(|l| format!("{indent}{l}\n"))
        .collect::<String>()
}

/// One CSV field, RFC 4180 quoted when it needs to be. A field a
/// spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`,
/// a tab or a carriage return) gets a `'` in front, unless it is a number.
fn csv_field(s: &str) -> String {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']) && s.parse::<f64>().is_err();
    let s = if formula {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

/// CSV with a header row; cells are escaped text. Lines end with CRLF.
pub fn csv(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = headers
        .iter()
        .map(|h| csv_field(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push_str("\r\n");
    for r in rows {
        out.push_str(&r.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
        out.push_str("\r\n");
    }
    out
}

fn opt(s: &Option<String>) -> String {
    s.as_deref()
        .map(|s| escape(s).into_owned())
        .unwrap_or_default()
}

fn opt_or(s: &Option<String>, none: &str) -> String {
    s.as_deref()
        .map(|s| escape(s).into_owned())
        .unwrap_or_else(|| none.to_string())
}

fn esc(s: &str) -> String {
    escape(s).into_owned()
}

fn percent(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{:.1}%", v * 100.0),
        None => "n/a".to_string(),
    }
}

fn full(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// `1 run`, `2 runs`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn bool_text(b: Option<bool>) -> String {
    match b {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "-".into(),
    }
}

fn bool_csv(b: Option<bool>) -> String {
    b.map(|b| b.to_string()).unwrap_or_default()
}

/// A line of prose for a table: wrapped at [`WIDTH`] for `table`, one line
/// for markdown (documents wrap it themselves).
fn prose(format: Format, text: &str) -> String {
    if format == Format::Table {
        wrap(text, WIDTH, "")
    } else {
        format!("{text}\n")
    }
}

// ---- ladder -------------------------------------------------------------

pub fn ladder(c: &LadderCounts, boundary: &[(String, u64)], format: Format) -> String {
    match format {
        Format::Json => json_text(&c.to_json()),
        Format::Csv => {
            // One row, the json keys as columns: weekly rows append cleanly.
            let mut headers = vec!["decisions", "labelled"];
            headers.extend(Rung::ALL.iter().map(|r| r.as_str()));
            let mut row = vec![c.decisions.to_string(), c.labelled.to_string()];
            row.extend(Rung::ALL.iter().map(|r| c.count(*r).to_string()));
            csv(&headers, &[row])
        }
        Format::Table | Format::Markdown => {
            let mut g = Grid::new(
                &["rung", "decisions", "share", "by boundary alone"],
                &[false, true, true, true],
            );
            for r in Rung::ALL {
                let n = c.count(*r);
                let share = (c.decisions > 0).then(|| n as f64 / c.decisions as f64);
                let b = boundary
                    .iter()
                    .find(|(s, _)| s == r.as_str())
                    .map(|(_, n)| n.to_string())
                    .unwrap_or_default();
                g.row(vec![
                    r.as_str().to_string(),
                    n.to_string(),
                    percent(share),
                    b,
                ]);
            }
            let head = prose(
                format,
                &format!(
                    "{}, {} labelled; each counted once, at its first failed rung.",
                    count(c.decisions, "decision", "decisions"),
                    c.labelled
                ),
            );
            let foot = prose(
                format,
                "by boundary alone: the same decisions counted by the boundary check \
                 that refused or failed them, whatever rung they reached first.",
            );
            if format == Format::Table {
                format!("{head}\n{}\n{foot}", g.table())
            } else {
                format!("## Ladder\n\n{head}\n{}\n{foot}", g.markdown())
            }
        }
    }
}

// ---- metrics ------------------------------------------------------------

/// (key, rate) rows of the metrics report, nested keys dotted.
fn metric_rates(m: &Metrics) -> Vec<(String, Rate)> {
    let mut v = vec![
        ("capability_coverage".to_string(), m.capability_coverage),
        ("exposure_recall".to_string(), m.exposure_recall),
    ];
    for (k, r) in &m.tool_recall_at_k {
        v.push((format!("tool_recall_at_k.{k}"), *r));
    }
    v.extend([
        ("selection_accuracy".to_string(), m.selection_accuracy),
        ("abstention_accuracy".to_string(), m.abstention_accuracy),
        ("no_call_accuracy".to_string(), m.no_call_accuracy),
        ("violation_rate".to_string(), m.violation_rate),
        ("first_call_accuracy".to_string(), m.first_call_accuracy),
        ("recovery_within_3".to_string(), m.recovery_within_3),
    ]);
    v
}

pub fn metrics(m: &Metrics, format: Format) -> String {
    match format {
        Format::Json => json_text(&serde_json::to_value(m).expect("serialises")),
        Format::Csv => {
            // One row per dotted metric key (the names `rung check` takes);
            // pass^k puts its task count and definition tokens their
            // decision count where a rate has its denominator.
            let mut rows: Vec<Vec<String>> = metric_rates(m)
                .into_iter()
                .map(|(k, r)| {
                    vec![
                        k,
                        full(r.value),
                        r.numerator.to_string(),
                        r.denominator.to_string(),
                    ]
                })
                .collect();
            for (k, p) in &m.pass_hat_k {
                rows.push(vec![
                    format!("pass_hat_k.{k}"),
                    p.value.to_string(),
                    String::new(),
                    p.tasks.to_string(),
                ]);
            }
            let t = &m.definition_tokens;
            for (k, v) in [
                ("mean", t.mean),
                ("p50", t.p50.map(|x| x as f64)),
                ("p95", t.p95.map(|x| x as f64)),
            ] {
                rows.push(vec![
                    format!("definition_tokens.{k}"),
                    full(v),
                    String::new(),
                    t.decisions.to_string(),
                ]);
            }
            csv(&["metric", "value", "numerator", "denominator"], &rows)
        }
        Format::Table | Format::Markdown => {
            let mut g = Grid::new(&["metric", "value", "of"], &[false, true, true]);
            for (k, r) in metric_rates(m) {
                g.row(vec![
                    k,
                    percent(r.value),
                    format!("{}/{}", r.numerator, r.denominator),
                ]);
            }
            for (k, p) in &m.pass_hat_k {
                g.row(vec![
                    format!("pass_hat_k.{k}"),
                    format!("{:.3}", p.value),
                    count(p.tasks, "task", "tasks"),
                ]);
            }
            if m.pass_hat_k.is_empty() {
                // No run recorded success: say so rather than drop the row.
                g.row(vec!["pass_hat_k".into(), "n/a".into(), "0 tasks".into()]);
            }
            let t = &m.definition_tokens;
            let est = |v: Option<String>| v.unwrap_or_else(|| "n/a".into());
            g.row(vec![
                "definition_tokens.mean (estimate)".into(),
                est(t.mean.map(|v| format!("{v:.1}"))),
                count(t.decisions, "decision", "decisions"),
            ]);
            g.row(vec![
                "definition_tokens.p50 (estimate)".into(),
                est(t.p50.map(|v| v.to_string())),
                String::new(),
            ]);
            g.row(vec![
                "definition_tokens.p95 (estimate)".into(),
                est(t.p95.map(|v| v.to_string())),
                String::new(),
            ]);
            if format == Format::Table {
                g.table()
            } else {
                format!("## Metrics\n\n{}", g.markdown())
            }
        }
    }
}

// ---- confusions ---------------------------------------------------------

/// The "top two cells explain N%" sentence.
pub fn confusion_summary(c: &Confusions) -> String {
    let n = c.selection_failures;
    match top_share(c, 2) {
        Some(s) if c.cells.len() >= 2 => format!(
            "The top two cells explain {} of {} selection failures ({}).",
            c.cells[0].count + c.cells[1].count,
            n,
            percent(Some(s))
        ),
        Some(s) => format!(
            "The top cell explains {} of {} ({}).",
            c.cells[0].count,
            count(n, "selection failure", "selection failures"),
            percent(Some(s))
        ),
        None => "No selection failures.".to_string(),
    }
}

pub fn confusions(c: &Confusions, format: Format) -> String {
    match format {
        Format::Json => json_text(&serde_json::to_value(c).expect("serialises")),
        Format::Csv => {
            let rows: Vec<Vec<String>> = c
                .cells
                .iter()
                .map(|x| {
                    vec![
                        esc(&x.acceptable.join(" ")),
                        opt(&x.selected),
                        x.count.to_string(),
                        x.share.to_string(),
                    ]
                })
                .collect();
            csv(&["acceptable", "selected", "count", "share"], &rows)
        }
        Format::Table | Format::Markdown => {
            let mut g = Grid::new(
                &["acceptable", "selected instead", "count", "share"],
                &[false, false, true, true],
            )
            .flexible(&[0, 1]);
            for x in &c.cells {
                g.row(vec![
                    esc(&x.acceptable.join(", ")),
                    opt_or(&x.selected, "(no call)"),
                    x.count.to_string(),
                    percent(Some(x.share)),
                ]);
            }
            let head = prose(
                format,
                &format!(
                    "{} in {}, by (acceptable, selected) pair.",
                    count(
                        c.selection_failures,
                        "selection failure",
                        "selection failures"
                    ),
                    count(c.cells.len() as u64, "cell", "cells"),
                ),
            );
            let summary = prose(format, &confusion_summary(c));
            if format == Format::Table {
                format!("{head}\n{}\n{summary}", g.table())
            } else {
                format!("## Confusion cells\n\n{head}\n{}\n{summary}", g.markdown())
            }
        }
    }
}

// ---- refusals -----------------------------------------------------------

/// A row's change against the previous window, for reading.
pub fn change(count: u64, previous: u64) -> String {
    match (count, previous) {
        (c, 0) if c > 0 => "new".into(),
        (0, p) if p > 0 => "gone".into(),
        (c, p) => {
            let d = c as i64 - p as i64;
            if d > 0 {
                format!("+{d}")
            } else {
                d.to_string()
            }
        }
    }
}

pub fn refusals_json(r: &RefusalReport) -> Value {
    json!({
        "window": {
            "since": Timestamp(r.since_us).to_rfc3339(),
            "until": Timestamp(r.until_us).to_rfc3339(),
        },
        "rows": r.rows,
        "undated": r.undated,
    })
}

/// The row whose count moved most against the previous window; the first
/// in report order among equals; none when nothing moved.
pub fn biggest_mover(rows: &[RefusalRow]) -> Option<&RefusalRow> {
    let delta = |x: &RefusalRow| x.count.abs_diff(x.previous);
    let mut best: Option<&RefusalRow> = None;
    for x in rows {
        if delta(x) > 0 && best.is_none_or(|b| delta(x) > delta(b)) {
            best = Some(x);
        }
    }
    best
}

/// The one-line summary: total refusals, runs affected, the biggest mover.
pub fn refusal_summary(r: &RefusalReport, runs_affected: u64) -> String {
    let total: u64 = r.rows.iter().map(|x| x.count).sum();
    let prev_total: u64 = r.rows.iter().map(|x| x.previous).sum();
    let mover = biggest_mover(&r.rows)
        .map(|x| {
            format!(
                "; biggest mover: {} {} ({} → {})",
                opt_or(&x.reason, "(no reason)"),
                change(x.count, x.previous),
                x.previous,
                x.count
            )
        })
        .unwrap_or_default();
    format!(
        "{} in {} (previous window: {prev_total}){mover}.",
        count(total, "refusal", "refusals"),
        count(runs_affected, "run", "runs"),
    )
}

pub fn refusals(r: &RefusalReport, runs_affected: u64, format: Format) -> String {
    let since = Timestamp(r.since_us).to_rfc3339();
    let until = Timestamp(r.until_us).to_rfc3339();
    match format {
        Format::Json => json_text(&refusals_json(r)),
        Format::Csv => {
            // The window on every row, so weekly files can be appended.
            let rows: Vec<Vec<String>> = r
                .rows
                .iter()
                .map(|x| {
                    vec![
                        opt(&x.reason),
                        x.stage.clone(),
                        x.count.to_string(),
                        x.runs.to_string(),
                        x.previous.to_string(),
                        since.clone(),
                        until.clone(),
                    ]
                })
                .collect();
            csv(
                &[
                    "reason", "stage", "count", "runs", "previous", "since", "until",
                ],
                &rows,
            )
        }
        Format::Table | Format::Markdown => {
            let mut g = Grid::new(
                &["reason", "stage", "count", "runs", "previous", "change"],
                &[false, false, true, true, true, true],
            )
            .flexible(&[0]);
            for x in &r.rows {
                g.row(vec![
                    opt_or(&x.reason, "(no reason)"),
                    x.stage.clone(),
                    x.count.to_string(),
                    x.runs.to_string(),
                    x.previous.to_string(),
                    change(x.count, x.previous),
                ]);
            }
            let prev_since = Timestamp(r.since_us - (r.until_us - r.since_us)).to_rfc3339();
            let summary = refusal_summary(r, runs_affected);
            let summary = if format == Format::Markdown {
                prose(format, &md_text(&summary))
            } else {
                prose(format, &summary)
            };
            let mut notes = if format == Format::Table {
                format!("previous counts the window just before: [{prev_since}, {since}).")
            } else {
                format!("previous counts the window just before: {prev_since} to {since}.")
            };
            if r.undated > 0 {
                notes.push_str(&format!(
                    " {} no time and {} in no window.",
                    if r.undated == 1 {
                        "1 refusal has".to_string()
                    } else {
                        format!("{} refusals have", r.undated)
                    },
                    if r.undated == 1 { "is" } else { "are" }
                ));
            }
            let notes = prose(format, &notes);
            let body = if r.rows.is_empty() {
                "No refusals in either window.\n".to_string()
            } else if format == Format::Table {
                g.table()
            } else {
                g.markdown()
            };
            if format == Format::Table {
                format!("Refusals by reason, [{since}, {until})\n{summary}\n{body}\n{notes}")
            } else {
                format!("## Refusals by reason, {since} to {until}\n\n{summary}\n{body}\n{notes}")
            }
        }
    }
}

// ---- tools --------------------------------------------------------------

/// A tool's refusals by reason, most first ("outside_intent 2, not_found 1").
fn reasons_text(t: &ToolUsage) -> String {
    let mut v: Vec<(&String, &u64)> = t.refused_by_reason.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    v.iter()
        .map(|(reason, n)| {
            let reason = if reason.is_empty() {
                "(no reason)".to_string()
            } else {
                esc(reason)
            };
            format!("{reason} {n}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn tools(list: &[ToolUsage], format: Format) -> String {
    match format {
        Format::Json => json_text(&json!({ "tools": list })),
        Format::Csv => {
            let rows: Vec<Vec<String>> = list
                .iter()
                .map(|t| {
                    vec![
                        esc(&t.name),
                        esc(&t.catalogue),
                        esc(&t.family),
                        t.effect.clone(),
                        t.visible.to_string(),
                        t.selected.to_string(),
                        t.selected_wrongly.to_string(),
                        t.refused.to_string(),
                        // The json object as compact json (escaped for a terminal).
                        safe_json(serde_json::to_string(&t.refused_by_reason).expect("serialises")),
                        t.never_selected.to_string(),
                    ]
                })
                .collect();
            csv(
                &[
                    "name",
                    "catalogue",
                    "family",
                    "effect",
                    "visible",
                    "selected",
                    "selected_wrongly",
                    "refused",
                    "refused_by_reason",
                    "never_selected",
                ],
                &rows,
            )
        }
        Format::Markdown => {
            let mut g = Grid::new(
                &[
                    "catalogue",
                    "tool",
                    "family",
                    "effect",
                    "visible",
                    "selected",
                    "selected wrongly",
                    "refused",
                    "refused by reason",
                    "never selected",
                ],
                &[
                    false, false, false, false, true, true, true, true, false, false,
                ],
            );
            for t in list {
                g.row(vec![
                    esc(&t.catalogue),
                    esc(&t.name),
                    esc(&t.family),
                    t.effect.clone(),
                    t.visible.to_string(),
                    t.selected.to_string(),
                    t.selected_wrongly.to_string(),
                    t.refused.to_string(),
                    reasons_text(t),
                    if t.never_selected { "yes" } else { "" }.to_string(),
                ]);
            }
            let mut out = String::from("## Tools\n\n");
            if list.is_empty() {
                out.push_str("No catalogue tools.\n");
                return out;
            }
            out.push_str(&g.markdown());
            let never: Vec<&ToolUsage> = list.iter().filter(|t| t.never_selected).collect();
            if never.is_empty() {
                out.push_str("\nEvery tool was selected at least once.\n");
            } else {
                out.push_str(&format!(
                    "\nPruning queue ({} never selected):\n\n",
                    count(never.len() as u64, "tool", "tools")
                ));
                for (cat, tools) in by_catalogue(&never) {
                    let names: Vec<String> = tools.iter().map(|t| esc(&t.name)).collect();
                    out.push_str(&md_text(&format!("- {}: {}\n", esc(cat), names.join(", "))));
                }
            }
            out
        }
        Format::Table => {
            if list.is_empty() {
                return "No catalogue tools.\n".to_string();
            }
            let mut out = String::new();
            for (cat, tools) in by_catalogue(&list.iter().collect::<Vec<_>>()) {
                let never: Vec<String> = tools
                    .iter()
                    .filter(|t| t.never_selected)
                    .map(|t| esc(&t.name))
                    .collect();
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&wrap(
                    &format!(
                        "Catalogue {}: {}, {} never selected",
                        esc(cat),
                        count(tools.len() as u64, "tool", "tools"),
                        never.len()
                    ),
                    WIDTH,
                    "",
                ));
                out.push('\n');
                let mut g = Grid::new(
                    &[
                        "tool", "effect", "visible", "selected", "wrongly", "refused",
                    ],
                    &[false, false, true, true, true, true],
                )
                .flexible(&[0]);
                let mut reasons =
                    Grid::new(&["tool", "refused, by reason"], &[false, false]).flexible(&[0, 1]);
                for t in &tools {
                    g.row(vec![
                        esc(&t.name),
                        t.effect.clone(),
                        t.visible.to_string(),
                        t.selected.to_string(),
                        t.selected_wrongly.to_string(),
                        t.refused.to_string(),
                    ]);
                    if t.refused > 0 {
                        reasons.row(vec![esc(&t.name), reasons_text(t)]);
                    }
                }
                out.push_str(&g.table());
                if !reasons.rows.is_empty() {
                    out.push('\n');
                    out.push_str(&reasons.table());
                }
                out.push('\n');
                out.push_str(&if never.is_empty() {
                    "Every tool was selected at least once.\n".to_string()
                } else {
                    wrap(
                        &format!("Pruning queue (never selected): {}", never.join(", ")),
                        WIDTH,
                        "",
                    )
                });
            }
            out
        }
    }
}

/// Tools grouped by catalogue, in list order.
fn by_catalogue<'a>(list: &[&'a ToolUsage]) -> Vec<(&'a str, Vec<&'a ToolUsage>)> {
    let mut out: Vec<(&str, Vec<&ToolUsage>)> = Vec::new();
    for t in list {
        match out.last_mut() {
            Some((c, v)) if *c == t.catalogue => v.push(t),
            _ => out.push((&t.catalogue, vec![t])),
        }
    }
    out
}

// ---- runs ---------------------------------------------------------------

pub fn runs(list: &[RunRow], format: Format) -> String {
    match format {
        Format::Json => json_text(&json!({ "runs": list })),
        Format::Csv => {
            let rows: Vec<Vec<String>> = list
                .iter()
                .map(|r| {
                    vec![
                        esc(&r.run_id),
                        opt(&r.task_id),
                        r.trial.map(|t| t.to_string()).unwrap_or_default(),
                        opt(&r.model),
                        opt(&r.catalogue),
                        r.decisions.to_string(),
                        r.first_failed_rung.clone().unwrap_or_default(),
                        bool_csv(r.success),
                        bool_csv(r.harm),
                    ]
                })
                .collect();
            csv(
                &[
                    "run_id",
                    "task_id",
                    "trial",
                    "model",
                    "catalogue",
                    "decisions",
                    "first_failed_rung",
                    "success",
                    "harm",
                ],
                &rows,
            )
        }
        Format::Table | Format::Markdown => {
            let n = list.len() as u64;
            if list.is_empty() {
                return match format {
                    Format::Table => "No runs.\n".to_string(),
                    _ => "## Runs\n\nNo runs.\n".to_string(),
                };
            }
            let succeeded = list.iter().filter(|r| r.success == Some(true)).count();
            let failed = list.iter().filter(|r| r.success == Some(false)).count();
            let harmful = list.iter().filter(|r| r.harm == Some(true)).count();
            let with_rung = list
                .iter()
                .filter(|r| r.first_failed_rung.is_some())
                .count();
            let head = prose(
                format,
                &format!(
                    "{}: {succeeded} succeeded, {failed} failed, {harmful} harmful; \
                     {with_rung} reached a failed rung.",
                    count(n, "run", "runs")
                ),
            );
            // Markdown has every column; a table says model and catalogue
            // once above each stretch of runs that share them, to fit.
            let md = format == Format::Markdown;
            let mut cols: Vec<(&str, bool)> =
                vec![("run", false), ("task", false), ("trial", true)];
            if md {
                cols.extend([("model", false), ("catalogue", false)]);
            }
            cols.extend([
                ("decisions", true),
                ("first failed", false),
                ("success", false),
                ("harm", false),
            ]);
            let headers: Vec<&str> = cols.iter().map(|c| c.0).collect();
            let right: Vec<bool> = cols.iter().map(|c| c.1).collect();
            let mut g = Grid::new(&headers, &right).flexible(&[1]);
            let mut group: Option<(&Option<String>, &Option<String>)> = None;
            for r in list {
                let key = (&r.model, &r.catalogue);
                if !md && group != Some(key) {
                    g.section(format!(
                        "model {} · catalogue {}",
                        opt_or(&r.model, "-"),
                        opt_or(&r.catalogue, "-")
                    ));
                    group = Some(key);
                }
                let mut row = vec![
                    esc(&r.run_id),
                    opt_or(&r.task_id, "-"),
                    r.trial.map(|t| t.to_string()).unwrap_or_else(|| "-".into()),
                ];
                if md {
                    row.push(opt_or(&r.model, "-"));
                    row.push(opt_or(&r.catalogue, "-"));
                }
                row.extend([
                    r.decisions.to_string(),
                    r.first_failed_rung.clone().unwrap_or_else(|| "-".into()),
                    bool_text(r.success),
                    bool_text(r.harm),
                ]);
                g.row(row);
            }
            if md {
                format!("## Runs\n\n{head}\n{}", g.markdown())
            } else {
                format!("{head}\n{}", g.table())
            }
        }
    }
}

// ---- findings -----------------------------------------------------------

pub fn findings(list: &[FindingRow], format: Format) -> String {
    match format {
        Format::Json => json_text(&json!({ "findings": list })),
        Format::Csv => {
            let rows: Vec<Vec<String>> = list
                .iter()
                .map(|f| {
                    vec![
                        f.kind.clone(),
                        opt(&f.catalogue),
                        opt(&f.task_id),
                        opt(&f.run_id),
                        f.step.map(|s| s.to_string()).unwrap_or_default(),
                        opt(&f.tool),
                        esc(&f.detail),
                    ]
                })
                .collect();
            csv(
                &[
                    "kind",
                    "catalogue",
                    "task_id",
                    "run_id",
                    "step",
                    "tool",
                    "detail",
                ],
                &rows,
            )
        }
        Format::Table | Format::Markdown => {
            let n = count(list.len() as u64, "finding", "findings");
            if list.is_empty() {
                return match format {
                    Format::Table => "No findings.\n".to_string(),
                    _ => "## Findings\n\nNo findings.\n".to_string(),
                };
            }
            // A table leaves the task out (its run names it) so the tool
            // fits; markdown has every column and the detail in one.
            let md = format == Format::Markdown;
            let g = if md {
                let mut g = Grid::new(
                    &["kind", "catalogue", "task", "run", "step", "tool", "detail"],
                    &[false, false, false, false, true, false, false],
                );
                for f in list {
                    g.row(vec![
                        f.kind.clone(),
                        opt_or(&f.catalogue, "-"),
                        opt_or(&f.task_id, "-"),
                        opt_or(&f.run_id, "-"),
                        f.step.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                        opt_or(&f.tool, "-"),
                        esc(&f.detail),
                    ]);
                }
                g
            } else {
                let mut g = Grid::new(
                    &["kind", "catalogue", "run", "step", "tool"],
                    &[false, false, false, true, false],
                )
                .flexible(&[1, 2, 4]);
                for f in list {
                    // The detail whole, under its row: it is the point.
                    g.row_with_note(
                        vec![
                            f.kind.clone(),
                            opt_or(&f.catalogue, "-"),
                            opt_or(&f.run_id, "-"),
                            f.step.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                            opt_or(&f.tool, "-"),
                        ],
                        esc(&f.detail),
                    );
                }
                g
            };
            if format == Format::Table {
                format!("{n}\n\n{}", g.table())
            } else {
                format!("## Findings\n\n{n}\n\n{}", g.markdown())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_per_rfc4180() {
        assert_eq!(
            csv(&["a", "b"], &[vec!["x,y".into(), "say \"hi\"".into()]]),
            "a,b\r\n\"x,y\",\"say \"\"hi\"\"\"\r\n"
        );
    }

    #[test]
    fn table_aligns_and_markdown_escapes_pipes() {
        let mut g = Grid::new(&["name", "n"], &[false, true]);
        g.row(vec!["a|b".into(), "7".into()]);
        g.row(vec!["long name".into(), "12".into()]);
        assert_eq!(
            g.table(),
            "name        n\n─────────  ──\na|b         7\nlong name  12\n"
        );
        assert_eq!(
            g.markdown(),
            "| name | n |\n| --- | ---: |\n| a\\|b | 7 |\n| long name | 12 |\n"
        );
    }

    #[test]
    fn csv_cells_that_look_like_formulas_are_quoted_with_an_apostrophe() {
        let rows: Vec<Vec<String>> = [
            "=HYPERLINK(\"http://x\")",
            "+1+cmd",
            "-2+3",
            "@SUM(A1)",
            "\tx",
            "-1.5",
            "+7",
            "-",
            "a=b",
        ]
        .iter()
        .map(|c| vec![c.to_string()])
        .collect();
        assert_eq!(
            csv(&["cell"], &rows),
            "cell\r\n\
             \"'=HYPERLINK(\"\"http://x\"\")\"\r\n\
             '+1+cmd\r\n\
             '-2+3\r\n\
             '@SUM(A1)\r\n\
             '\tx\r\n\
             -1.5\r\n\
             +7\r\n\
             '-\r\n\
             a=b\r\n"
        );
    }

    #[test]
    fn markdown_escapes_html_links_and_images() {
        let mut g = Grid::new(&["reason"], &[false]);
        for c in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "![t](https://evil.example/p.png)",
            "[click](https://evil.example)",
            "R&D \\| a|b",
        ] {
            g.row(vec![c.into()]);
        }
        assert_eq!(
            g.markdown(),
            "| reason |\n| --- |\n\
             | &lt;script&gt;alert(1)&lt;/script&gt; |\n\
             | &lt;img src=x onerror=alert(1)&gt; |\n\
             | !\\[t\\](https://evil.example/p.png) |\n\
             | \\[click\\](https://evil.example) |\n\
             | R&amp;D \\\\\\| a\\|b |\n"
        );
    }

    #[test]
    fn wide_tables_are_fitted_by_their_flexible_columns() {
        let mut g = Grid::new(&["id", "task", "n"], &[false, false, true]).flexible(&[1]);
        g.row(vec!["r".repeat(20), "x".repeat(90), "1234567890".into()]);
        let t = g.table();
        for line in t.lines() {
            assert_eq!(line.chars().count(), 80, "{line}");
        }
        // The cut cell ends with an ellipsis; the other columns are whole.
        let row = t.lines().nth(2).unwrap();
        assert!(
            row.starts_with(&format!("{}  xxx", "r".repeat(20))),
            "{row}"
        );
        assert!(row.ends_with("x…  1234567890"), "{row}");
        // A flexible column is not cut below its floor: then the table
        // stays wider than 80 rather than becoming unreadable.
        let mut g = Grid::new(&["a", "c", "b"], &[false, false, false]).flexible(&[2]);
        g.row(vec!["y".repeat(60), "w".repeat(15), "z".repeat(20)]);
        let line = g.table().lines().nth(2).unwrap().to_string();
        assert_eq!(line.chars().count(), 60 + 2 + 15 + 2 + 10);
        assert!(line.ends_with("  zzzzzzzzz…"), "{line}");
    }

    #[test]
    fn notes_and_sections_in_tables() {
        let mut g = Grid::new(&["kind", "n"], &[false, true]);
        g.section("group one".into());
        g.row_with_note(
            vec!["a".into(), "1".into()],
            "word ".repeat(20).trim().into(),
        );
        assert_eq!(
            g.table(),
            "kind  n\n────  ─\ngroup one\na     1\n\
             \x20   word word word word word word word word word word word word word word word\n\
             \x20   word word word word word\n"
        );
        // Markdown keeps neither: documents take whole cells.
        assert_eq!(g.markdown(), "| kind | n |\n| --- | ---: |\n| a | 1 |\n");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("aa bb cc", 5, ""), "aa bb\ncc\n");
        assert_eq!(
            wrap("abcdefgh", 3, "> "),
            "> a\n> b\n> c\n> d\n> e\n> f\n> g\n> h\n"
        );
        assert_eq!(wrap("", 10, ""), "\n");
        assert_eq!(wrap("é é", 3, ""), "é é\n");
    }

    #[test]
    fn the_biggest_mover_is_the_first_of_the_largest_changes() {
        let row = |reason: &str, count: u64, previous: u64| RefusalRow {
            reason: Some(reason.into()),
            stage: "authorization".into(),
            count,
            runs: count,
            previous,
        };
        let rows = [
            row("a", 3, 2),
            row("b", 2, 0),
            row("c", 0, 2),
            row("d", 1, 1),
        ];
        assert_eq!(biggest_mover(&rows).unwrap().reason.as_deref(), Some("b"));
        assert!(biggest_mover(&[row("a", 1, 1)]).is_none());
        let r = RefusalReport {
            since_us: 0,
            until_us: 1,
            rows: rows.to_vec(),
            undated: 0,
        };
        assert_eq!(
            refusal_summary(&r, 4),
            "6 refusals in 4 runs (previous window: 5); biggest mover: b new (0 → 2)."
        );
        let one = RefusalReport {
            rows: vec![row("a", 1, 0)],
            ..r
        };
        assert_eq!(
            refusal_summary(&one, 1),
            "1 refusal in 1 run (previous window: 0); biggest mover: a new (0 → 1)."
        );
    }
}
