//! `rung export --format parquet DIR`: the runs, decisions with their
//! verdicts, refusals, findings and tools as Parquet files, partitioned by
//! day, for a warehouse engine to hold every machine's verdicts
//! (`docs/scale.md` has the layout and a query for each report).
//!
//! Streamed: rows are read in day order and written a batch at a time, so
//! memory does not grow with the database. The tables are written under a
//! staging folder inside DIR (`.rung-export-PID/new`); at the end the
//! tables of an earlier export are moved aside into it (`old`), the new
//! ones moved into place, and the staging folder removed with the old
//! ones. An error at any point moves back what was moved and removes the
//! staging folder: a failed export leaves DIR as it was.

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
    let created = prepare_dir(dir, o.force)?;
    let result = export_into(conn, dir, o);
    if result.is_err()
        && let Some(top) = created
    {
        // Nothing was left in the folders made for the export: removed
        // again (each only when empty), from DIR up to the first made.
        for d in dir.ancestors() {
            if std::fs::remove_dir(d).is_err() || d == top {
                break;
            }
        }
    }
    result
}

/// [`export`] into `dir`, which exists: the tables written under a staging
/// folder in it, then moved into place ([`replace_tables`]).
fn export_into(conn: &Connection, dir: &Path, o: &Options) -> Result<Vec<TableSummary>> {
    // A file where a table's folder goes is refused before any work (and
    // again when the folders are moved).
    for t in TABLES {
        table_folder(&dir.join(t))?;
    }
    // Sorting (runs and findings by day) spills to temporary files, not
    // memory, so that memory stays flat with the database's size.
    conn.execute_batch("PRAGMA temp_store = FILE")?;
    // One read transaction: every table from the same snapshot, even while
    // an import commits beside the export.
    let snapshot = conn.unchecked_transaction()?;
    let stage = dir.join(format!(".rung-export-{}", std::process::id()));
    // Made here, or the error is returned without touching what is there.
    std::fs::create_dir(&stage).map_err(|e| cannot_write(dir, e))?;
    let written = write_tables(&snapshot, &stage.join(NEW), o);
    drop(snapshot);
    let summary = match written {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage);
            return Err(e);
        }
    };
    replace_tables(dir, &stage, &mut |from, to| std::fs::rename(from, to))?;
    Ok(summary)
}

/// Where the new tables are written in the staging folder.
const NEW: &str = "new";
/// Where the old tables are moved in the staging folder.
const OLD: &str = "old";

/// Moves the table folders of an earlier export in `dir` (if any) into
/// `stage/old`, then the new ones from `stage/new` into `dir`, then removes
/// `stage` with the old tables. On an error every folder moved is moved
/// back and `stage` removed: `dir` is as it was. (`rename` moves a folder:
/// `std::fs::rename`, or a failing one in tests.)
fn replace_tables(
    dir: &Path,
    stage: &Path,
    rename: &mut dyn FnMut(&Path, &Path) -> std::io::Result<()>,
) -> Result<()> {
    let (new, old) = (stage.join(NEW), stage.join(OLD));
    // The tables moved aside, then those moved in.
    let mut aside: Vec<&str> = Vec::new();
    let mut placed: Vec<&str> = Vec::new();
    let mut swap = || -> Result<()> {
        std::fs::create_dir(&old).map_err(|e| cannot_write(&old, e))?;
        for t in TABLES {
            let to = dir.join(t);
            if table_folder(&to)? {
                rename(&to, &old.join(t)).map_err(|e| cannot_write(&to, e))?;
                aside.push(t);
            }
        }
        for t in TABLES {
            let to = dir.join(t);
            rename(&new.join(t), &to).map_err(|e| cannot_write(&to, e))?;
            placed.push(t);
        }
        Ok(())
    };
    let swapped = swap();
    if let Err(e) = swapped {
        // Undone newest first: the new tables back into the stage, the old
        // ones back into DIR.
        let mut lost = Vec::new();
        for t in placed.iter().rev() {
            let _ = rename(&dir.join(t), &new.join(t));
        }
        for t in aside.iter().rev() {
            if let Err(e) = rename(&old.join(t), &dir.join(t)) {
                lost.push(format!("{t}/ ({e})"));
            }
        }
        if lost.is_empty() {
            let _ = std::fs::remove_dir_all(stage);
            return Err(e);
        }
        // The earlier tables that could not be put back stay in the stage
        // (never removed with it), and the error says where.
        lost.reverse();
        return Err(Error::usage(format!(
            "{e}; the earlier export's {} could not be moved back and are in {}",
            lost.join(", "),
            old.display()
        )));
    }
    // The new tables are in place: the export is done. The old ones are
    // removed with the stage; if that fails they stay there, and a warning
    // names the folder.
    if let Err(e) = std::fs::remove_dir_all(stage) {
        tracing::warn!(stage = %stage.display(), error = %e, "export: stage not removed");
        eprintln!(
            "warning: the export is written, but the earlier tables it replaced could not be \
             removed from {}: {e}",
            crate::text::escape(&stage.display().to_string())
        );
    }
    Ok(())
}

/// Whether `path` holds a table folder (of an earlier export) to replace:
/// false when nothing is there; an error when anything but a folder (or a
/// link to one) is in the way.
fn table_folder(path: &Path) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Err(not_a_directory(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A link to nothing is in the way too.
            match std::fs::symlink_metadata(path) {
                Ok(_) => Err(not_a_directory(path)),
                Err(_) => Ok(false),
            }
        }
        Err(e) => Err(cannot_write(path, e)),
    }
}

fn not_a_directory(path: &Path) -> Error {
    Error::usage(format!("{} exists and is not a directory", path.display()))
}

fn cannot_write(path: &Path, e: std::io::Error) -> Error {
    Error::usage(format!("cannot write {}: {e}", path.display()))
}

/// DIR must be a directory that is empty or missing (created here); one
/// that holds anything is refused unless `force`, and then only the
/// exported tables in it are replaced. Returns the topmost folder created
/// (DIR or one of its parents) when DIR was missing.
fn prepare_dir(dir: &Path, force: bool) -> Result<Option<PathBuf>> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => Err(not_a_directory(dir)),
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
            Ok(None)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // The topmost missing folder, removed again if the export fails.
            let top = dir
                .ancestors()
                .take_while(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_err())
                .last()
                .map(Path::to_path_buf);
            std::fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
            Ok(top)
        }
        Err(e) => Err(cannot_write(dir, e)),
    }
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::io;

    use super::*;

    /// Every entry under `dir`, relative, with a file's bytes (a folder's:
    /// none).
    fn listing(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(base).unwrap().to_path_buf();
                if p.is_dir() {
                    out.insert(rel, None);
                    walk(base, &p, out);
                } else {
                    out.insert(rel, Some(std::fs::read(&p).unwrap()));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(dir, dir, &mut out);
        out
    }

    fn put(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// DIR holding an earlier export (without `refusals/`) and a file of
    /// its own, and a stage holding the five new tables; DIR's listing
    /// before the stage was made.
    fn old_and_new() -> (
        tempfile::TempDir,
        PathBuf,
        BTreeMap<PathBuf, Option<Vec<u8>>>,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        for t in TABLES.iter().filter(|t| **t != "refusals") {
            put(
                &dir.join(t).join("day=2020-01-01").join(writer::PART),
                &format!("old {t}"),
            );
        }
        put(&dir.join("NOTES.txt"), "mine");
        let before = listing(&dir);
        let stage = dir.join(".rung-export-1");
        for t in TABLES {
            put(
                &stage.join(NEW).join(t).join(writer::PART),
                &format!("new {t}"),
            );
        }
        (tmp, stage, before)
    }

    #[test]
    fn a_move_that_fails_at_any_point_leaves_dir_as_it_was() {
        // Four old tables moved aside, five new ones moved in.
        for fail in 0..9 {
            let (_tmp, stage, before) = old_and_new();
            let dir = stage.parent().unwrap().to_path_buf();
            let mut calls = 0;
            let r = replace_tables(&dir, &stage, &mut |from, to| {
                calls += 1;
                if calls == fail + 1 {
                    return Err(io::Error::other("injected"));
                }
                std::fs::rename(from, to)
            });
            let e = r.unwrap_err().to_string();
            assert!(e.contains("injected"), "{fail}: {e}");
            assert!(!stage.exists(), "{fail}");
            assert_eq!(listing(&dir), before, "{fail}");
        }
        // Without a failure: the new tables, the file kept, no stage.
        let (_tmp, stage, _) = old_and_new();
        let dir = stage.parent().unwrap().to_path_buf();
        replace_tables(&dir, &stage, &mut |from, to| std::fs::rename(from, to)).unwrap();
        let mut want: Vec<PathBuf> = TABLES
            .iter()
            .flat_map(|t| [PathBuf::from(t), Path::new(t).join(writer::PART)])
            .collect();
        want.push("NOTES.txt".into());
        want.sort();
        assert_eq!(listing(&dir).into_keys().collect::<Vec<_>>(), want);
        assert_eq!(
            std::fs::read_to_string(dir.join("tools").join(writer::PART)).unwrap(),
            "new tools"
        );
    }

    #[test]
    fn old_tables_that_cannot_be_moved_back_stay_in_the_stage_and_are_named() {
        let (_tmp, stage, _) = old_and_new();
        let dir = stage.parent().unwrap().to_path_buf();
        let old_runs = stage.join(OLD).join("runs");
        let r = replace_tables(&dir, &stage, &mut |from, to| {
            if from == stage.join(NEW).join("decisions") || from == old_runs {
                return Err(io::Error::other("injected"));
            }
            std::fs::rename(from, to)
        });
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("could not be moved back and are in")
                && e.contains("runs/ (injected)")
                && !e.contains("findings/"),
            "{e}"
        );
        // Never removed: the earlier runs are where the error says.
        assert_eq!(
            std::fs::read_to_string(old_runs.join("day=2020-01-01").join(writer::PART)).unwrap(),
            "old runs"
        );
        // The others are back.
        assert_eq!(
            std::fs::read_to_string(dir.join("findings/day=2020-01-01").join(writer::PART))
                .unwrap(),
            "old findings"
        );
        assert!(!dir.join("runs").exists());
    }

    #[test]
    fn anything_but_a_folder_where_a_table_goes_is_in_the_way() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("tools");
        assert!(!table_folder(&p).unwrap());
        std::fs::create_dir(&p).unwrap();
        assert!(table_folder(&p).unwrap());
        std::fs::remove_dir(&p).unwrap();
        std::fs::write(&p, "x").unwrap();
        assert_eq!(
            table_folder(&p).unwrap_err().to_string(),
            format!("{} exists and is not a directory", p.display())
        );
        #[cfg(unix)]
        {
            std::fs::remove_file(&p).unwrap();
            std::os::unix::fs::symlink(tmp.path().join("nowhere"), &p).unwrap();
            assert!(table_folder(&p).is_err());
        }
    }
}
