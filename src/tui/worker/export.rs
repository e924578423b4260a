//! Copy and export (issue 16): a decision's record as JSON for the
//! clipboard (`Y`) and a whole decision list as CSV (`e`), both masked by
//! the redactor unless --no-redact.

use std::io::Write;
use std::path::Path;

use rusqlite::Connection;
use serde_json::{Value, json};

use super::Shared;
use crate::error::Result;
use crate::filter::Filter;
use crate::report::csv::field;
use crate::report::model::Cell;
use crate::store::browse::{
    self, Anchor, DecisionRow, Drill, ListView, PayloadColumn, drill_page_view,
};

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

/// The columns of an exported decision list.
const HEADER: [&str; 12] = [
    "run_id",
    "step",
    "phase",
    "selected",
    "rung",
    "status",
    "reason",
    "boundary",
    "acceptable",
    "time_us",
    "violated",
    "findings",
];

/// Writes every decision of the list, in its sort and search, to `path`
/// as CSV (the reports' escaping, secrets masked); returns the rows.
pub fn write_csv(
    conn: &Connection,
    shared: &Shared,
    f: &Filter,
    set: &Drill,
    view: &ListView,
    path: &Path,
    cancelled: &dyn Fn() -> bool,
) -> Result<u64> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let text = |s: &str| field(&Cell::text(&shared.redactor, s));
    let line: Vec<String> = HEADER.iter().map(|h| text(h)).collect();
    write!(out, "{}\r\n", line.join(","))?;
    let mut anchor = Anchor::First;
    let mut n = 0u64;
    loop {
        if cancelled() {
            break;
        }
        let page = drill_page_view(conn, f, set, view, &anchor, 1000)?;
        for (_, d) in &page.rows {
            let opt = |s: &Option<String>| text(s.as_deref().unwrap_or(""));
            let cells = [
                text(&d.run_id),
                d.step.to_string(),
                opt(&d.phase),
                opt(&d.selected),
                text(d.rung.as_str()),
                opt(&d.status),
                opt(&d.reason),
                opt(&d.boundary),
                text(&d.acceptable.join(" ")),
                d.time_us.map(|t| t.to_string()).unwrap_or_default(),
                d.violated.to_string(),
                d.findings.to_string(),
            ];
            write!(out, "{}\r\n", cells.join(","))?;
            n += 1;
        }
        match (page.more_after, page.rows.last()) {
            (true, Some((k, _))) => anchor = Anchor::After(k.clone()),
            _ => break,
        }
    }
    out.flush()?;
    Ok(n)
}
