//! Findings: the findings report (what the filtered decisions and their
//! catalogues raised) and one decision's findings.

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

/// Findings about the filtered decisions, about the runs with a filtered
/// decision (a missing call or output names no step), plus the
/// catalogue-level findings of the catalogues those decisions use (all
/// findings when unfiltered).
/// Ordered by (kind, catalogue, task_id, run_id, step, tool), nulls first.
pub fn findings(conn: &Connection, f: &Filter) -> Result<Vec<FindingRow>> {
    let cols = "x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail";
    let order = "ORDER BY x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail";
    let (sql, args) = if f.is_empty() {
        (format!("SELECT {cols} FROM findings x {order}"), Vec::new())
    } else {
        let (clause, mut args) = f.decision_clause();
        let (run_clause, run_args) = f.decision_clause();
        args.extend(run_args);
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
                "SELECT {cols} FROM findings x WHERE
                   (x.step IS NOT NULL AND EXISTS (SELECT 1 {from}
                       WHERE l.run_id = x.run_id AND l.step = x.step AND {clause}))
                   OR (x.step IS NULL AND x.run_id IS NOT NULL AND EXISTS (SELECT 1 {from}
                       WHERE l.run_id = x.run_id AND {run_clause}))
                   OR (x.step IS NULL AND x.run_id IS NULL AND {cat_clause})
                 {order}"
            ),
            args,
        )
    };
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args), |r| {
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

/// Whether a finding kind is about one decision (those that name a run
/// but no step, `missing_call` and `missing_output`, are about the run).
pub fn is_decision_kind(kind: FindingKind) -> bool {
    matches!(
        kind,
        FindingKind::ExposureMismatch
            | FindingKind::HiddenProposal
            | FindingKind::UnclassifiedReason
            | FindingKind::LabelConflict
            | FindingKind::ArgumentMismatch
            | FindingKind::UnexpectedCall
            | FindingKind::SchemaViolation
    )
}
