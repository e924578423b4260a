//! `rung export --format parquet DIR`: the runs, decisions with their
//! verdicts, refusals, findings and tools as Parquet files, partitioned by
//! day, for a warehouse engine to hold every machine's verdicts
//! (`docs/scale.md` has the layout and a query for each report).
//!
//! Streamed: rows are read in day order and written a batch at a time, so
//! memory does not grow with the database. The tables are written under a
//! staging directory inside DIR and moved into place at the end: a failed
//! export leaves DIR as it was.

pub mod columns;
mod source;
pub mod writer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params_from_iter};

use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::redact::Redactor;
use columns::Decode;
use source::Query;
use writer::TableWriter;

/// The exported tables, in the order they are written.
pub const TABLES: [&str; 5] = ["runs", "decisions", "refusals", "findings", "tools"];

pub struct Options {
    /// Replace the tables of an earlier export in DIR.
    pub force: bool,
    pub filter: Filter,
    /// Masks free text (reasons, details, descriptions, tags).
    pub redactor: Redactor,
}

/// What was written, per table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    pub table: &'static str,
    pub rows: u64,
    pub files: u64,
}

/// Exports the database behind `conn` into `dir`.
pub fn export(conn: &Connection, dir: &Path, o: &Options) -> Result<Vec<TableSummary>> {
    prepare_dir(dir, o.force)?;
    let stage = dir.join(format!(".rung-export-{}", std::process::id()));
    // Sorting (runs and findings by day) spills to temporary files, not
    // memory, so that memory stays flat with the database's size.
    conn.execute_batch("PRAGMA temp_store = FILE")?;
    // One read transaction: every table from the same snapshot, even while
    // an import commits beside the export.
    let snapshot = conn.unchecked_transaction()?;
    let result = std::fs::create_dir(&stage)
        .map_err(|e| cannot_write(dir, e))
        .and_then(|_| write_tables(&snapshot, &stage, o));
    drop(snapshot);
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage);
            return Err(e);
        }
    };
    for t in TABLES {
        let to = dir.join(t);
        if to.exists() {
            std::fs::remove_dir_all(&to).map_err(|e| cannot_write(&to, e))?;
        }
        std::fs::rename(stage.join(t), &to).map_err(|e| cannot_write(&to, e))?;
    }
    std::fs::remove_dir_all(&stage).map_err(|e| cannot_write(&stage, e))?;
    Ok(summary)
}

fn cannot_write(path: &Path, e: std::io::Error) -> Error {
    Error::usage(format!("cannot write {}: {e}", path.display()))
}

/// DIR must be a directory that is empty or missing (created here); one
/// that holds anything is refused unless `force`, and then only the
/// exported tables in it are replaced.
fn prepare_dir(dir: &Path, force: bool) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(Error::usage(format!(
                "{} exists and is not a directory",
                dir.display()
            )));
        }
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).map_err(|e| cannot_write(dir, e))?;
            if !force && entries.next().is_some() {
                return Err(Error::usage(format!(
                    "{} is not empty: export into a new or empty directory, or pass --force \
                     to replace the tables of an earlier export in it ({})",
                    dir.display(),
                    TABLES.map(|t| format!("{t}/")).join(", ")
                )));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
        }
        Err(e) => return Err(cannot_write(dir, e)),
    }
    Ok(())
}

fn write_tables(conn: &Connection, stage: &Path, o: &Options) -> Result<Vec<TableSummary>> {
    let f = &o.filter;
    let names = tool_names(conn)?;
    let r = &Decode {
        redactor: &o.redactor,
        names: &names,
    };
    let mut out = Vec::new();
    let mut done = |w: TableWriter, table: &'static str| -> Result<()> {
        let (rows, files) = w.finish()?;
        out.push(TableSummary { table, rows, files });
        Ok(())
    };

    let mut runs = TableWriter::new(stage, "runs", source::RUNS, true);
    stream(conn, source::runs(f), |time, row| {
        runs.push(time, row, &|i| i + 1, r)
    })?;
    done(runs, "runs")?;

    // Refusals are the refused decisions: one pass writes both.
    let mut decisions = TableWriter::new(stage, "decisions", source::DECISIONS, true);
    let mut refusals = TableWriter::new(stage, "refusals", source::REFUSALS, true);
    let outcome = source::DECISION_OUTCOME + 1;
    stream(conn, source::decisions(f), |time, row| {
        decisions.push(time, row, &|i| i + 1, r)?;
        if row.get::<_, Option<String>>(outcome)?.as_deref() == Some("refused") {
            refusals.push(time, row, &|i| source::REFUSAL_FROM_DECISION[i] + 1, r)?;
        }
        Ok(())
    })?;
    done(decisions, "decisions")?;
    done(refusals, "refusals")?;

    let mut findings = TableWriter::new(stage, "findings", source::FINDINGS, true);
    stream(conn, source::findings(f), |time, row| {
        findings.push(time, row, &|i| i + 1, r)
    })?;
    done(findings, "findings")?;

    let mut tools = TableWriter::new(stage, "tools", source::TOOLS, false);
    stream(conn, source::tools(f), |time, row| {
        tools.push(time, row, &|i| i + 1, r)
    })?;
    done(tools, "tools")?;
    Ok(out)
}

/// Tool names by id, for a database that keeps its name lists as ids of
/// an interned `tool_names` table; none for one that keeps names.
fn tool_names(conn: &Connection) -> Result<HashMap<i64, String>> {
    let interned: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'tool_names')",
        [],
        |r| r.get(0),
    )?;
    if !interned {
        return Ok(HashMap::new());
    }
    let mut stmt = conn.prepare("SELECT id, name FROM tool_names")?;
    let names = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(names)
}

/// Runs `q` and hands each row, with its partition time (value 0), to `each`.
fn stream(
    conn: &Connection,
    q: Query,
    mut each: impl FnMut(Option<i64>, &rusqlite::Row<'_>) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare(&q.sql)?;
    let mut rows = stmt.query(params_from_iter(q.args))?;
    while let Some(row) = rows.next()? {
        let time: Option<i64> = row.get(0)?;
        each(time, row)?;
    }
    Ok(())
}

/// The path of a table's partition file (for readers and tests).
pub fn part_path(dir: &Path, table: &str, time_us: Option<i64>) -> PathBuf {
    if table == "tools" {
        dir.join(table).join(writer::PART)
    } else {
        dir.join(table)
            .join(writer::day_dir(time_us))
            .join(writer::PART)
    }
}
