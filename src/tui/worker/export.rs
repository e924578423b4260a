//! Copy and export (issue 16): a decision's record as JSON for the
//! clipboard (`Y`) and a whole list as CSV (`e`) or markdown (`E`), all
//! masked by the redactor unless --no-redact.

use std::io::Write;
use std::path::Path;

use rusqlite::Connection;
use serde_json::{Value, json};

use super::Shared;
use crate::error::Result;
use crate::filter::Filter;
use crate::redact::Redactor;
use crate::report::Format;
use crate::report::csv::field;
use crate::report::markdown;
use crate::report::model::{Cell, Column, Report};
use crate::store::browse::{
    self, Anchor, DecisionRow, Drill, FindingItem, FindingSet, ListView, Page, PayloadColumn,
    RunSort, drill_page_view,
};
use crate::store::query::RunRow;

/// Arguments up to this size go into a copied record; larger ones are named
/// by their size.
const RECORD_ARGS: u64 = 256 * 1024;

/// A decision's record as pretty JSON with its arguments, secrets masked.
pub fn record(conn: &Connection, shared: &Shared, d: &DecisionRow) -> Result<String> {
    let size = browse::payload_bytes(conn, d.decision_id, PayloadColumn::Arguments);
    let arguments = match size {
        Some(n) if n <= RECORD_ARGS => {
            let bytes =
                browse::payload_read(conn, d.decision_id, PayloadColumn::Arguments, 0, n as usize)?;
            serde_json::from_slice::<Value>(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        }
        Some(n) => json!(format!("({n} bytes: see the Run screen)")),
        None => Value::Null,
    };
    let v = json!({
        "run_id": d.run_id,
        "step": d.step,
        "turn": d.turn,
        "phase": d.phase,
        "selected": d.selected,
        "rung": d.rung.as_str(),
        "status": d.status,
        "reason": d.reason,
        "boundary": d.boundary,
        "progress": d.progress,
        "acceptable": if d.labelled { json!(d.acceptable) } else { Value::Null },
        "label_source": d.label_source,
        "time_us": d.time_us,
        "violated": d.violated,
        "findings": d.findings,
        "arguments": arguments,
    });
    let text = serde_json::to_string_pretty(&v)?;
    Ok(shared.redactor.apply(&text).into_owned())
}

/// What `e`/`E` writes: a list the worker reads page by page, or a report
/// the screen already rendered from the rows it holds.
#[derive(Debug, Clone)]
pub enum ExportList {
    /// A drilled decision list in its sort and search.
    Decisions { set: Drill, view: ListView },
    /// A run's timeline.
    Timeline { run_id: String },
    /// The runs in the Runs screen's sort.
    Runs { sort: RunSort, desc: bool },
    /// One kind's findings, in the list's sort (`None`: stored order).
    Findings {
        set: FindingSet,
        sort: Option<usize>,
        desc: bool,
    },
    /// Rendered by the screen: the text and how many rows it holds.
    Ready { text: String, rows: u64 },
}

/// The columns of an exported decision list (the CSV header is the keys).
fn decision_columns() -> Vec<Column> {
    vec![
        Column::new("run_id", "run"),
        Column::new("step", "step").right(),
        Column::new("phase", "phase"),
        Column::new("selected", "selected").none("(no call)"),
        Column::new("rung", "rung"),
        Column::new("status", "status"),
        Column::new("reason", "reason"),
        Column::new("boundary", "boundary"),
        Column::new("acceptable", "acceptable"),
        Column::new("time_us", "time (µs)").right(),
        Column::new("violated", "violated").yes_no("yes", "no"),
        Column::new("findings", "findings").right(),
    ]
}

/// A decision as a row of [`decision_columns`], its text masked by `m`.
fn decision_cells(d: &DecisionRow, m: &Redactor) -> Vec<Cell> {
    let opt = |s: &Option<String>| Cell::text(m, s.as_deref().unwrap_or(""));
    vec![
        Cell::text(m, &d.run_id),
        Cell::Int(d.step),
        opt(&d.phase),
        opt(&d.selected),
        Cell::text(m, d.rung.as_str()),
        opt(&d.status),
        opt(&d.reason),
        opt(&d.boundary),
        Cell::list(m, &d.acceptable),
        Cell::opt_int(d.time_us),
        Cell::Bool(d.violated),
        Cell::Count(d.findings),
    ]
}

/// Writes rows of `columns` as CSV or as a markdown table under `title`,
/// a row at a time, with the reports' own escaping (`csv::field`,
/// `markdown::cell`).
struct RowWriter<W: Write> {
    out: W,
    columns: Vec<Column>,
    markdown: bool,
}

impl<W: Write> RowWriter<W> {
    fn start(mut out: W, columns: Vec<Column>, markdown: bool, title: &str) -> Result<Self> {
        if markdown {
            write!(out, "## {}\n\n|", crate::text::escape(title))?;
            for c in &columns {
                write!(out, " {} |", markdown::cell(&c.header))?;
            }
            write!(out, "\n|")?;
            for c in &columns {
                write!(out, "{}", if c.right { " ---: |" } else { " --- |" })?;
            }
            writeln!(out)?;
        } else {
            let head: Vec<String> = columns.iter().map(|c| field(&Cell::ours(c.key))).collect();
            write!(out, "{}\r\n", head.join(","))?;
        }
        Ok(RowWriter {
            out,
            columns,
            markdown,
        })
    }

    fn row(&mut self, cells: &[Cell]) -> Result<()> {
        if self.markdown {
            write!(self.out, "|")?;
            for (c, cell) in self.columns.iter().zip(cells) {
                write!(self.out, " {} |", markdown::cell(&c.read(cell)))?;
            }
            writeln!(self.out)?;
        } else {
            let line: Vec<String> = cells.iter().map(field).collect();
            write!(self.out, "{}\r\n", line.join(","))?;
        }
        Ok(())
    }
}

/// Every page of a keyset-paged list, from the first, until `cancelled`.
fn each_page<T>(
    cancelled: &dyn Fn() -> bool,
    mut page: impl FnMut(&Anchor) -> Result<Page<T>>,
    mut take: impl FnMut(&T) -> Result<()>,
) -> Result<()> {
    let mut anchor = Anchor::First;
    while !cancelled() {
        let p = page(&anchor)?;
        for (_, row) in &p.rows {
            take(row)?;
        }
        match (p.more_after, p.rows.last()) {
            (true, Some((k, _))) => anchor = Anchor::After(k.clone()),
            _ => break,
        }
    }
    Ok(())
}

/// Writes `list` to `path` as CSV or markdown (secrets masked); returns
/// how many rows it wrote.
#[allow(clippy::too_many_arguments, reason = "one request's fields")]
pub fn write_list(
    conn: &Connection,
    shared: &Shared,
    f: &Filter,
    list: &ExportList,
    markdown: bool,
    title: &str,
    path: &Path,
    cancelled: &dyn Fn() -> bool,
) -> Result<u64> {
    let m = &shared.redactor;
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut n = 0u64;
    match list {
        ExportList::Ready { text, rows } => {
            let mut file = file;
            file.write_all(text.as_bytes())?;
            file.flush()?;
            return Ok(*rows);
        }
        ExportList::Decisions { .. } | ExportList::Timeline { .. } => {
            let mut w = RowWriter::start(file, decision_columns(), markdown, title)?;
            let page = |a: &Anchor| match list {
                ExportList::Decisions { set, view } => drill_page_view(conn, f, set, view, a, 1000),
                ExportList::Timeline { run_id } => browse::timeline_page(conn, f, run_id, a, 1000),
                _ => unreachable_list(),
            };
            each_page(cancelled, page, |d: &DecisionRow| {
                n += 1;
                w.row(&decision_cells(d, m))
            })?;
            w.out.flush()?;
        }
        ExportList::Runs { sort, desc } => {
            let mut rows = Vec::new();
            each_page(
                cancelled,
                |a| browse::runs_page(conn, f, *sort, *desc, a, 1000),
                |r: &RunRow| {
                    rows.push(r.clone());
                    Ok(())
                },
            )?;
            n = rows.len() as u64;
            write_report(file, &crate::report::runs::build(&rows, m), markdown)?;
        }
        ExportList::Findings { set, sort, desc } => {
            let mut rows = Vec::new();
            each_page(
                cancelled,
                |a| browse::findings_page_sorted(conn, f, set, *sort, *desc, a, 1000),
                |r: &FindingItem| {
                    rows.push(r.row.clone());
                    Ok(())
                },
            )?;
            n = rows.len() as u64;
            write_report(file, &crate::report::findings::build(&rows, m), markdown)?;
        }
    }
    Ok(n)
}

/// A list of no query (`Ready` is written before paging).
fn unreachable_list<T>() -> Result<Page<T>> {
    Err(crate::error::Error::usage("this list has no query"))
}

fn write_report(mut out: impl Write, r: &Report, markdown: bool) -> Result<()> {
    let format = if markdown {
        Format::Markdown
    } else {
        Format::Csv
    };
    out.write_all(crate::report::render(r, format).as_bytes())?;
    out.flush()?;
    Ok(())
}
