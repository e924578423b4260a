//! Renderers for report results: aligned tables, markdown, CSV (RFC 4180)
//! and the JSON shapes of `cli.md`. Pure: results in, text out. Every string
//! from a trace is escaped before it is printed.

use serde_json::{Value, json};

use crate::metrics::{
    Confusions, LadderCounts, Metrics, Rate, RefusalReport, ToolUsage, top_share,
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

/// A grid of cells with a header; cells are already escaped.
pub struct Grid {
    pub headers: Vec<String>,
    /// Right-aligned columns (numbers).
    pub right: Vec<bool>,
    pub rows: Vec<Vec<String>>,
}

/// Widest a table cell gets before it is cut with `…`.
const MAX_CELL: usize = 60;

impl Grid {
    pub fn new(headers: &[&str], right: &[bool]) -> Grid {
        Grid {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            right: right.to_vec(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Aligned columns separated by two spaces; long cells cut.
    pub fn table(&self) -> String {
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| truncate(c, MAX_CELL).into_owned())
                    .collect()
            })
            .collect();
        let width = |i: usize| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain(std::iter::once(self.headers[i].chars().count()))
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.headers.len()).map(width).collect();
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = widths[i] - c.chars().count();
                let last = i + 1 == cells.len();
                if self.right[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
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
        for r in &rows {
            out.push_str(&line(r));
        }
        out
    }

    /// A GitHub-flavoured markdown table.
    pub fn markdown(&self) -> String {
        let cell = |c: &str| c.replace('|', "\\|");
        let mut out = String::from("|");
        for h in &self.headers {
            out.push_str(&format!(" {} |", cell(h)));
        }
        out.push_str("\n|");
        for r in &self.right {
            out.push_str(if *r { " ---: |" } else { " --- |" });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for c in row {
                out.push_str(&format!(" {} |", cell(c)));
            }
            out.push('\n');
        }
        out
    }
}

/// One CSV field, RFC 4180 quoted when it needs to be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV with a header row; cells are escaped text.
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

fn percent(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{:.1}%", v * 100.0),
        None => "n/a".to_string(),
    }
}

fn full(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
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

// ---- ladder -------------------------------------------------------------

pub fn ladder(c: &LadderCounts, boundary: &[(String, u64)], format: Format) -> String {
    match format {
        Format::Json => json_text(&c.to_json()),
        Format::Csv => {
            let rows: Vec<Vec<String>> = Rung::ALL
                .iter()
                .map(|r| vec![r.as_str().to_string(), c.count(*r).to_string()])
                .collect();
            csv(&["rung", "count"], &rows)
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
            let head = format!(
                "{} decisions, {} labelled; each counted once, at its first failed rung\n",
                c.decisions, c.labelled
            );
            if format == Format::Table {
                format!("{head}\n{}", g.table())
            } else {
                format!("## Ladder\n\n{head}\n{}", g.markdown())
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
                    format!("{} tasks", p.tasks),
                ]);
            }
            let t = &m.definition_tokens;
            let est = |v: Option<String>| v.unwrap_or_else(|| "n/a".into());
            g.row(vec![
                "definition_tokens.mean (estimate)".into(),
                est(t.mean.map(|v| format!("{v:.1}"))),
                format!("{} decisions", t.decisions),
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

fn selected_text(s: &Option<String>) -> String {
    opt_or(s, "(no call)")
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
                        escape(&x.acceptable.join(" ")).into_owned(),
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
            );
            for x in &c.cells {
                g.row(vec![
                    escape(&x.acceptable.join(", ")).into_owned(),
                    selected_text(&x.selected),
                    x.count.to_string(),
                    percent(Some(x.share)),
                ]);
            }
            let summary = match top_share(c, 2) {
                Some(s) if c.cells.len() >= 2 => format!(
                    "The top two cells explain {} of {} selection failures.\n",
                    percent(Some(s)),
                    c.selection_failures
                ),
                Some(s) => format!(
                    "The top cell explains {} of {} selection failures.\n",
                    percent(Some(s)),
                    c.selection_failures
                ),
                None => "No selection failures.\n".to_string(),
            };
            if format == Format::Table {
                format!("{}\n{summary}", g.table())
            } else {
                format!("## Confusion cells\n\n{}\n{summary}", g.markdown())
            }
        }
    }
}

// ---- refusals -----------------------------------------------------------

fn change(count: u64, previous: u64) -> String {
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

pub fn refusals(r: &RefusalReport, runs_affected: u64, format: Format) -> String {
    match format {
        Format::Json => json_text(&refusals_json(r)),
        Format::Csv => {
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
                    ]
                })
                .collect();
            csv(&["reason", "stage", "count", "runs", "previous"], &rows)
        }
        Format::Table | Format::Markdown => {
            let mut g = Grid::new(
                &["reason", "stage", "count", "runs", "previous", "change"],
                &[false, false, true, true, true, true],
            );
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
            let since = Timestamp(r.since_us).to_rfc3339();
            let until = Timestamp(r.until_us).to_rfc3339();
            let total: u64 = r.rows.iter().map(|x| x.count).sum();
            let prev_total: u64 = r.rows.iter().map(|x| x.previous).sum();
            let mover = r
                .rows
                .iter()
                .max_by_key(|x| {
                    (
                        (x.count as i64 - x.previous as i64).abs(),
                        std::cmp::Reverse(x.reason.clone()),
                    )
                })
                .filter(|x| x.count != x.previous)
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
            let summary = format!(
                "{total} refusals in {runs_affected} runs (previous window: {prev_total}){mover}."
            );
            let undated = if r.undated > 0 {
                format!(
                    "\n{} refusals have no time and are not in any window.\n",
                    r.undated
                )
            } else {
                String::new()
            };
            if format == Format::Table {
                format!(
                    "Refusals by reason, [{since}, {until})\n{summary}\n\n{}{undated}",
                    g.table()
                )
            } else {
                format!(
                    "## Refusals by reason, {since} to {until}\n\n{summary}\n\n{}{undated}",
                    g.markdown()
                )
            }
        }
    }
}

// ---- tools --------------------------------------------------------------

pub fn tools(list: &[ToolUsage], format: Format) -> String {
    match format {
        Format::Json => json_text(&json!({ "tools": list })),
        Format::Csv => {
            let rows: Vec<Vec<String>> = list
                .iter()
                .map(|t| {
                    vec![
                        escape(&t.name).into_owned(),
                        escape(&t.catalogue).into_owned(),
                        escape(&t.family).into_owned(),
                        t.effect.clone(),
                        t.visible.to_string(),
                        t.selected.to_string(),
                        t.selected_wrongly.to_string(),
                        t.refused.to_string(),
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
                    "never_selected",
                ],
                &rows,
            )
        }
        Format::Table | Format::Markdown => {
            let mut g = Grid::new(
                &[
                    "catalogue",
                    "tool",
                    "family",
                    "effect",
                    "visible",
                    "selected",
                    "wrongly",
                    "refused",
                    "",
                ],
                &[false, false, false, false, true, true, true, true, false],
            );
            for t in list {
                g.row(vec![
                    escape(&t.catalogue).into_owned(),
                    escape(&t.name).into_owned(),
                    escape(&t.family).into_owned(),
                    t.effect.clone(),
                    t.visible.to_string(),
                    t.selected.to_string(),
                    t.selected_wrongly.to_string(),
                    t.refused.to_string(),
                    if t.never_selected {
                        "never selected".into()
                    } else {
                        String::new()
                    },
                ]);
            }
            let never: Vec<String> = list
                .iter()
                .filter(|t| t.never_selected)
                .map(|t| escape(&format!("{}/{}", t.catalogue, t.name)).into_owned())
                .collect();
            let queue = if never.is_empty() {
                "Every tool was selected at least once.\n".to_string()
            } else {
                format!(
                    "Pruning queue ({} never selected): {}\n",
                    never.len(),
                    never.join(", ")
                )
            };
            if format == Format::Table {
                format!("{}\n{queue}", g.table())
            } else {
                format!("## Tools\n\n{}\n{queue}", g.markdown())
            }
        }
    }
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
                        escape(&r.run_id).into_owned(),
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
            let mut g = Grid::new(
                &[
                    "run",
                    "task",
                    "trial",
                    "model",
                    "catalogue",
                    "decisions",
                    "first failed",
                    "success",
                    "harm",
                ],
                &[false, false, true, false, false, true, false, false, false],
            );
            for r in list {
                g.row(vec![
                    escape(&r.run_id).into_owned(),
                    opt_or(&r.task_id, "-"),
                    r.trial.map(|t| t.to_string()).unwrap_or_else(|| "-".into()),
                    opt_or(&r.model, "-"),
                    opt_or(&r.catalogue, "-"),
                    r.decisions.to_string(),
                    r.first_failed_rung.clone().unwrap_or_else(|| "-".into()),
                    bool_text(r.success),
                    bool_text(r.harm),
                ]);
            }
            if format == Format::Table {
                g.table()
            } else {
                format!("## Runs\n\n{}", g.markdown())
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
                        escape(&f.detail).into_owned(),
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
            let mut g = Grid::new(
                &["kind", "catalogue", "run", "step", "tool", "detail"],
                &[false, false, false, true, false, false],
            );
            for f in list {
                g.row(vec![
                    f.kind.clone(),
                    opt_or(&f.catalogue, "-"),
                    opt_or(&f.run_id, "-"),
                    f.step.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                    opt_or(&f.tool, "-"),
                    escape(&f.detail).into_owned(),
                ]);
            }
            let n = format!("{} findings\n", list.len());
            if format == Format::Table {
                format!("{}\n{n}", g.table())
            } else {
                // Markdown keeps whole details: it is read in documents.
                let mut md = String::from("## Findings\n\n");
                md.push_str(&g.markdown());
                format!("{md}\n{n}")
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
}
