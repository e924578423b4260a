//! Decisions: keyset pages of a decision list (a rung, a confusion cell, a
//! refusal group), one run's timeline, the next failing step, a run's steps.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::decode::{Stored, Table};
use super::filter_sql::FilterSql;
use super::paging::{Anchor, Key, Page, Spec};
use super::refusals::{refusal_stage, refused};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::model::Rung;

/// One decision as lists and the run timeline show it.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRow {
    pub decision_id: i64,
    pub run_id: String,
    pub step: i64,
    pub turn: i64,
    pub phase: Option<String>,
    pub selected: Option<String>,
    /// Checked to be a rung when read (a damaged row is an error).
    pub rung: Rung,
    pub status: Option<String>,
    pub reason: Option<String>,
    pub boundary: Option<String>,
    pub progress: Option<String>,
    /// The label's acceptable names (empty when unlabelled).
    pub acceptable: Vec<String>,
    pub labelled: bool,
    pub time_us: Option<i64>,
    pub violated: bool,
    /// How many findings are about this decision.
    pub findings: u64,
    /// Where the label came from: `inline`, `case` or `derived` (format
    /// v1.1: from the run's expected calls).
    pub label_source: Option<String>,
    /// What the run's matching walk said of its call: the status
    /// (`matched`, `mismatch`, `unexpected`) and the expected call's number.
    pub matching: Option<(String, Option<u32>)>,
}

pub(super) const DECISION_COLUMNS: &str = "l.decision_id, l.run_id, l.step, l.turn, l.phase, l.selected, \
l.rung, l.status, l.reason, l.boundary, l.progress, l.acceptable, l.time_us, l.violated, \
l.label_source, (SELECT m.status || ':' || COALESCE(m.expected, '') FROM matching m \
WHERE m.run_id = l.run_id AND m.step = l.step ORDER BY m.seq LIMIT 1), \
(SELECT count(*) FROM findings f WHERE f.run_id = l.run_id AND f.step = l.step)";

pub(super) fn decision_row(conn: &Connection, r: &Row<'_>, at: usize) -> Result<DecisionRow> {
    let decision_id: i64 = r.get(at)?;
    let row = || format!("row decision_id {decision_id}");
    let ladder = Stored::new(conn, Table::Ladder, &row);
    let rung = ladder.spelled("rung", r.get(at + 6)?, Rung::parse, Rung::spellings)?;
    let acceptable = ladder.list("acceptable", r.get(at + 11)?)?;
    Ok(DecisionRow {
        decision_id,
        run_id: r.get(at + 1)?,
        step: r.get(at + 2)?,
        turn: r.get(at + 3)?,
        phase: r.get(at + 4)?,
        selected: r.get(at + 5)?,
        rung,
        status: r.get(at + 7)?,
        reason: r.get(at + 8)?,
        boundary: r.get(at + 9)?,
        progress: r.get(at + 10)?,
        labelled: acceptable.is_some(),
        acceptable: acceptable.unwrap_or_default(),
        time_us: r.get(at + 12)?,
        violated: r.get(at + 13)?,
        label_source: r.get(at + 14)?,
        matching: r.get::<_, Option<String>>(at + 15)?.and_then(|m| {
            let (status, n) = m.split_once(':')?;
            Some((status.to_string(), n.parse().ok()))
        }),
        findings: r.get::<_, i64>(at + 16)? as u64,
    })
}

/// Which decisions a decision list shows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DecisionSet {
    /// Decisions whose first failed rung is this one (`passed` too).
    Rung(Rung),
    /// A confusion cell: SELECTION failures with this acceptable set (sorted)
    /// that selected this tool (`None`: no call).
    Cell {
        acceptable: Vec<String>,
        selected: Option<String>,
    },
    /// Refusals with this reason and stage in `[since, until)`.
    Refusal {
        reason: Option<String>,
        stage: String,
        since: i64,
        until: i64,
    },
}

pub(super) fn decision_spec<'a>(f: &Filter, set: &DecisionSet) -> Result<Spec<'a>> {
    let (clause, mut args) = f.decision_clause();
    let mut from_where = format!("FROM ladder l JOIN runs r ON r.run_id = l.run_id WHERE {clause}");
    let (key, id) = match set {
        DecisionSet::Rung(rung) => {
            from_where.push_str(" AND l.rung = ?");
            args.push(Sql::Text(rung.as_str().to_string()));
            ("l.decision_id", None)
        }
        DecisionSet::Cell {
            acceptable,
            selected,
        } => {
            from_where.push_str(&format!(
                " AND l.rung = '{}' AND l.acceptable = ? AND l.selected IS ?",
                Rung::Selection
            ));
            args.push(Sql::Text(serde_json::to_string(acceptable)?));
            args.push(selected.clone().map(Sql::Text).unwrap_or(Sql::Null));
            ("l.decision_id", None)
        }
        DecisionSet::Refusal {
            reason,
            stage,
            since,
            until,
        } => {
            from_where.push_str(&format!(
                " AND {} AND l.reason IS ? AND {} = ? AND l.time_us >= ? AND l.time_us < ?",
                refused(),
                refusal_stage()
            ));
            args.push(reason.clone().map(Sql::Text).unwrap_or(Sql::Null));
            args.push(Sql::Text(stage.clone()));
            args.push(Sql::Integer(*since));
            args.push(Sql::Integer(*until));
            ("l.time_us", Some("l.decision_id"))
        }
    };
    Ok(Spec {
        select: DECISION_COLUMNS,
        from_where,
        args,
        key,
        id,
        desc: false,
        one_pass: None,
    })
}

/// One page of a decision list.
pub fn decisions_page(
    conn: &Connection,
    f: &Filter,
    set: &DecisionSet,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    // A rung's length, and a confusion cell's, are in the counts kept for
    // the screens.
    use super::agg::read;
    let scope = match set {
        DecisionSet::Refusal { .. } => None,
        _ => read::scope(conn, f)?,
    };
    let total = match (set, scope) {
        (DecisionSet::Rung(rung), Some(s)) => Some(read::ladder(conn, &s)?.count(*rung)),
        (
            DecisionSet::Cell {
                acceptable,
                selected,
            },
            Some(s),
        ) => read::confusion_cell(conn, &s, acceptable, selected.as_deref())?,
        _ => None,
    };
    decision_spec(f, set)?.page_counted(conn, anchor, n, &|r| decision_row(conn, r, 2), total)
}

/// The key of a decision row within `set`.
pub fn decision_key(row: &DecisionRow, set: &DecisionSet) -> Key {
    match set {
        DecisionSet::Refusal { .. } => (
            row.time_us.map(Sql::Integer).unwrap_or(Sql::Null),
            Sql::Integer(row.decision_id),
        ),
        _ => (Sql::Integer(row.decision_id), Sql::Integer(row.decision_id)),
    }
}

pub(super) fn timeline_spec<'a>(f: &Filter, run_id: &str) -> Spec<'a> {
    let (clause, mut args) = f.decision_clause();
    args.insert(0, Sql::Text(run_id.to_string()));
    Spec {
        select: DECISION_COLUMNS,
        from_where: format!(
            "FROM ladder l JOIN runs r ON r.run_id = l.run_id WHERE l.run_id = ? AND {clause}"
        ),
        args,
        key: "l.step",
        id: None,
        desc: false,
        one_pass: None,
    }
}

/// One page of a run's decisions (those in the filter), by step.
pub fn timeline_page(
    conn: &Connection,
    f: &Filter,
    run_id: &str,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    timeline_spec(f, run_id).page(conn, anchor, n, &|r| decision_row(conn, r, 2))
}

/// The key of a step in a run's timeline.
pub fn step_key(step: i64) -> Key {
    (Sql::Integer(step), Sql::Integer(step))
}

/// The next (or previous) decision of the run in the filter that failed
/// (not `passed`, not `unlabelled`).
pub fn next_failing(
    conn: &Connection,
    f: &Filter,
    run_id: &str,
    step: i64,
    forward: bool,
) -> Result<Option<i64>> {
    let (clause, mut args) = f.decision_clause();
    args.insert(0, Sql::Text(run_id.to_string()));
    args.insert(1, Sql::Integer(step));
    let (op, dir) = if forward { (">", "ASC") } else { ("<", "DESC") };
    // `passed` and `unlabelled` failed nowhere: skipped.
    let not_failed = Rung::ALL
        .iter()
        .filter(|r| !r.is_failure())
        .map(|r| format!("'{r}'"))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(conn
        .prepare_cached(&format!(
            "SELECT l.step FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE l.run_id = ? AND l.step {op} ? AND l.rung NOT IN ({not_failed}) AND {clause}
             ORDER BY l.step {dir} LIMIT 1"
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))
        .optional()?)
}

/// The decision id of (run, step).
pub fn decision_id(conn: &Connection, run_id: &str, step: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT id FROM decision_rows WHERE run_id = ?1 AND step = ?2")?
        .query_row(params![run_id, step], |r| r.get(0))
        .optional()?)
}

/// Steps of a run in order (an error naming the run when it has none).
pub fn run_steps(conn: &Connection, run_id: &str) -> Result<Vec<i64>> {
    let steps: Vec<i64> = conn
        .prepare_cached("SELECT step FROM decision_rows WHERE run_id = ?1 ORDER BY step")?
        .query_map([run_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if steps.is_empty() {
        let known: Option<i64> = conn
            .query_row("SELECT 1 FROM runs WHERE run_id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()?;
        return Err(Error::usage(match known {
            Some(_) => format!("run {run_id:?} has no decisions"),
            None => format!("no run {run_id:?} in the database (see `rung report runs`)"),
        }));
    }
    Ok(steps)
}

/// Whether the database holds any decision at all.
pub fn is_empty(conn: &Connection) -> Result<bool> {
    let any: Option<i64> = conn
        .query_row("SELECT 1 FROM ladder LIMIT 1", [], |r| r.get(0))
        .optional()?;
    Ok(any.is_none())
}
