//! Findings: the findings report (what the filtered decisions and their
//! catalogues raised) and one decision's findings.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use super::filter_sql::{FilterSql, push_in};
use crate::error::Result;
use crate::filter::Filter;
use crate::model::FindingKind;

/// One stored finding.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FindingRow {
    pub kind: String,
    pub catalogue: Option<String>,
    pub task_id: Option<String>,
    pub run_id: Option<String>,
    pub step: Option<i64>,
    pub tool: Option<String>,
    pub detail: String,
}

/// The findings a filter selects, as SQL over `findings x` with the
/// columns of [`FindingRow`]: those about the filtered decisions, plus the
/// catalogue-level findings of the catalogues those decisions use (all
/// findings when unfiltered). `select` is what the query returns.
fn selected(f: &Filter, select: &str, tail: &str) -> (String, Vec<Sql>) {
    if f.is_empty() {
        return (
            format!("SELECT {select} FROM findings x {tail}"),
            Vec::new(),
        );
    }
    let (clause, mut args) = f.decision_clause();
    let from = f.from();
    let catalogue_only = Filter {
        catalogues: f.catalogues.clone(),
        ..Filter::default()
    } == *f;
    let cat_clause = if catalogue_only {
        let mut s = String::from("1=1");
        push_in(&mut s, &mut args, "x.catalogue", &f.catalogues);
        s
    } else {
        let (c2, a2) = f.decision_clause();
        args.extend(a2);
        format!("x.catalogue IN (SELECT DISTINCT l.catalogue {from} WHERE {c2})")
    };
    (
        format!(
            "SELECT {select} FROM findings x WHERE
               (x.step IS NOT NULL AND EXISTS (SELECT 1 {from}
                   WHERE l.run_id = x.run_id AND l.step = x.step AND {clause}))
               OR (x.step IS NULL AND x.run_id IS NULL AND {cat_clause})
             {tail}"
        ),
        args,
    )
}

const FINDING_COLUMNS: &str = "x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail";

/// Calls `each` with every finding the filter selects, one at a time (so
/// memory does not grow with their number): `ordered`, by (kind,
/// catalogue, task_id, run_id, step, tool, detail), nulls first; else in
/// storage order (for measuring).
pub fn for_each_finding(
    conn: &Connection,
    f: &Filter,
    ordered: bool,
    mut each: impl FnMut(FindingRow) -> Result<()>,
) -> Result<()> {
    let order = if ordered {
        "ORDER BY x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail"
    } else {
        ""
    };
    let (sql, args) = selected(f, FINDING_COLUMNS, order);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        each(FindingRow {
            kind: r.get(0)?,
            catalogue: r.get(1)?,
            task_id: r.get(2)?,
            run_id: r.get(3)?,
            step: r.get(4)?,
            tool: r.get(5)?,
            detail: r.get(6)?,
        })?;
    }
    Ok(())
}

/// Findings about the filtered decisions, plus the catalogue-level findings
/// of the catalogues those decisions use (all findings when unfiltered).
/// Ordered by (kind, catalogue, task_id, run_id, step, tool), nulls first.
/// A list in memory: [`for_each_finding`] streams them.
pub fn findings(conn: &Connection, f: &Filter) -> Result<Vec<FindingRow>> {
    let mut out = Vec::new();
    for_each_finding(conn, f, true, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// How many findings the filter selects.
pub fn count_findings(conn: &Connection, f: &Filter) -> Result<u64> {
    let (sql, args) = selected(f, "count(*)", "");
    let n: i64 = conn.query_row(&sql, params_from_iter(args), |r| r.get(0))?;
    Ok(n as u64)
}

/// The findings of one kind and tool, counted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FindingGroup {
    pub kind: String,
    pub tool: Option<String>,
    pub findings: u64,
    /// Distinct runs they concern (0 for catalogue-level findings).
    pub runs: u64,
}

/// The findings the filter selects, counted by (kind, tool), in that
/// order (a null tool first).
pub fn finding_groups(conn: &Connection, f: &Filter) -> Result<Vec<FindingGroup>> {
    let (sql, args) = selected(
        f,
        "x.kind, x.tool, count(*), count(DISTINCT x.run_id)",
        "GROUP BY x.kind, x.tool ORDER BY x.kind, x.tool",
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args), |r| {
            Ok(FindingGroup {
                kind: r.get(0)?,
                tool: r.get(1)?,
                findings: r.get::<_, i64>(2)? as u64,
                runs: r.get::<_, i64>(3)? as u64,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Findings of one decision, by kind then tool.
pub fn decision_findings(conn: &Connection, run_id: &str, step: i64) -> Result<Vec<FindingRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
         WHERE run_id = ?1 AND step = ?2 ORDER BY kind, tool, detail",
    )?;
    let rows = stmt
        .query_map(rusqlite::params![run_id, step], |r| {
            Ok(FindingRow {
                kind: r.get(0)?,
                catalogue: r.get(1)?,
                task_id: r.get(2)?,
                run_id: r.get(3)?,
                step: r.get(4)?,
                tool: r.get(5)?,
                detail: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Whether a finding kind is about one decision.
pub fn is_decision_kind(kind: FindingKind) -> bool {
    matches!(
        kind,
        FindingKind::ExposureMismatch
            | FindingKind::HiddenProposal
            | FindingKind::UnclassifiedReason
            | FindingKind::LabelConflict
            | FindingKind::UnsourcedId
            | FindingKind::IdFromDescription
            | FindingKind::AnnouncedNoCall
            | FindingKind::WriteUnderInform
            | FindingKind::RepeatedCall
    )
}
