//! Named queries for reports, explain and the TUI. Filters choose which
//! decisions (or runs) enter a count; what a decision *is* was decided by
//! the classifier and is only read here.

use std::collections::{BTreeMap, HashMap};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use crate::error::{Error, Result};
use crate::metrics::{
    self, Confusions, DecisionFacts, LadderCounts, Metrics, MetricsAcc, Refusal, ToolUsage,
};
use crate::model::{FindingKind, Rung};

pub use crate::filter::Filter;

/// Appends ` AND column IN (?, ...)` for a flag's values (nothing when none).
fn push_in(sql: &mut String, args: &mut Vec<Sql>, column: &str, values: &[String]) {
    if values.is_empty() {
        return;
    }
    sql.push_str(&format!(" AND {column} IN ("));
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            sql.push(',');
        }
        sql.push('?');
        args.push(Sql::Text(v.clone()));
    }
    sql.push(')');
}

fn push_run_level(f: &Filter, sql: &mut String, args: &mut Vec<Sql>) {
    push_in(sql, args, "r.model", &f.models);
    push_in(sql, args, "r.task_id", &f.tasks);
    push_in(sql, args, "r.run_id", &f.runs);
    for (k, v) in &f.tags {
        sql.push_str(
            " AND EXISTS (SELECT 1 FROM json_each(r.tags) t WHERE t.key = ? AND t.value = ?)",
        );
        args.push(Sql::Text(k.clone()));
        args.push(Sql::Text(v.clone()));
    }
}

/// A filter as SQL: the store's half of [`Filter`].
pub trait FilterSql {
    /// A WHERE clause over `ladder l JOIN runs r`.
    fn decision_clause(&self) -> (String, Vec<Sql>);
    /// A WHERE clause over `runs r` for run-level reports (pass^k, runs):
    /// a run's time is its `started_at`, else its earliest decision's.
    fn run_clause(&self) -> (String, Vec<Sql>);
    /// The FROM clause the decision filters need: `runs` is joined only when
    /// a run-level filter is set (it is a cost on every row otherwise).
    fn from(&self) -> &'static str;
}

impl FilterSql for Filter {
    fn decision_clause(&self) -> (String, Vec<Sql>) {
        let mut sql = String::from("1=1");
        let mut args = Vec::new();
        if let Some(s) = self.since {
            sql.push_str(" AND l.time_us >= ?");
            args.push(Sql::Integer(s));
        }
        if let Some(u) = self.until {
            sql.push_str(" AND l.time_us < ?");
            args.push(Sql::Integer(u));
        }
        push_in(&mut sql, &mut args, "l.catalogue", &self.catalogues);
        push_in(&mut sql, &mut args, "l.phase", &self.phases);
        push_run_level(self, &mut sql, &mut args);
        (sql, args)
    }

    fn run_clause(&self) -> (String, Vec<Sql>) {
        let mut sql = String::from("1=1");
        let mut args = Vec::new();
        if let Some(s) = self.since {
            sql.push_str(" AND COALESCE(r.started_us, r.first_at_us) >= ?");
            args.push(Sql::Integer(s));
        }
        if let Some(u) = self.until {
            sql.push_str(" AND COALESCE(r.started_us, r.first_at_us) < ?");
            args.push(Sql::Integer(u));
        }
        push_in(&mut sql, &mut args, "r.catalogue", &self.catalogues);
        push_run_level(self, &mut sql, &mut args);
        (sql, args)
    }

    fn from(&self) -> &'static str {
        if self.has_run_filter() {
            "FROM ladder l JOIN runs r ON r.run_id = l.run_id"
        } else {
            "FROM ladder l"
        }
    }
}

fn rung_of(s: &str) -> Rung {
    Rung::parse(s).unwrap_or(Rung::Unclassified)
}

/// Decisions by rung (`rung report ladder`).
pub fn ladder(conn: &Connection, f: &Filter) -> Result<LadderCounts> {
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.rung, l.label_source IS NOT NULL, count(*) {from} WHERE {clause}
         GROUP BY l.rung, l.label_source IS NOT NULL"
    ))?;
    let mut counts = LadderCounts::default();
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(row) = rows.next()? {
        let rung: String = row.get(0)?;
        let labelled: bool = row.get(1)?;
        let n: i64 = row.get(2)?;
        let rung = rung_of(&rung);
        counts.decisions += n as u64;
        if labelled {
            counts.labelled += n as u64;
        }
        counts.rungs[rung as usize] += n as u64;
    }
    Ok(counts)
}

/// The failure profile: the ladder plus decisions counted by boundary alone.
pub fn boundary_profile(conn: &Connection, f: &Filter) -> Result<Vec<(String, u64)>> {
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.boundary, count(*) {from} WHERE {clause} AND l.boundary IS NOT NULL
         GROUP BY l.boundary"
    ))?;
    let rows = stmt
        .query_map(params_from_iter(args), |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Every metric of `ladder.md` (`rung report metrics`).
pub fn metrics(conn: &Connection, f: &Filter) -> Result<Metrics> {
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.label_source IS NOT NULL, l.in_registry, l.in_exposed, l.in_retrieved,
                l.selected_ok, l.retrieval_k, l.is_first, l.recovered, l.abstain_expected,
                l.abstained, l.no_call_expected, l.selected IS NULL, l.violated,
                l.definition_tokens
         {from} WHERE {clause}"
    ))?;
    let mut acc = MetricsAcc::default();
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let b = |i: usize| -> rusqlite::Result<bool> {
            Ok(r.get::<_, Option<bool>>(i)?.unwrap_or(false))
        };
        acc.add(&DecisionFacts {
            rung: None,
            labelled: b(0)?,
            in_registry: b(1)?,
            in_exposed: b(2)?,
            in_retrieved: b(3)?,
            selected_ok: b(4)?,
            retrieval_k: r.get::<_, Option<i64>>(5)?.map(|k| k as u32),
            is_first: b(6)?,
            recovered: b(7)?,
            abstain_expected: b(8)?,
            abstained: b(9)?,
            no_call_expected: b(10)?,
            no_call: b(11)?,
            violated: b(12)?,
            definition_tokens: r.get::<_, Option<i64>>(13)?.map(|t| t as u64),
        });
    }
    let pass = pass_hat_k(conn, f)?;
    Ok(acc.finish(pass))
}

/// pass^k over the runs the run-level filters select (`--phase` does not
/// apply). A run without a `task_id` counts as a task of its own.
pub fn pass_hat_k(conn: &Connection, f: &Filter) -> Result<BTreeMap<u32, metrics::PassK>> {
    let (clause, args) = f.run_clause();
    let mut stmt = conn.prepare(&format!(
        "SELECT COALESCE('t:' || r.task_id, 'r:' || r.run_id), r.success FROM runs r
         WHERE r.success IS NOT NULL AND {clause}"
    ))?;
    let runs = stmt
        .query_map(params_from_iter(args), |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let tasks = metrics::task_outcomes(runs.iter().map(|(t, s)| (t.as_str(), *s)));
    Ok(metrics::pass_hat_k(&tasks))
}

/// Confusion cells over SELECTION failures (`rung report confusions`).
pub fn confusions(conn: &Connection, f: &Filter) -> Result<Confusions> {
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.acceptable, l.selected {from} WHERE {clause} AND l.rung = 'selection'"
    ))?;
    let items = stmt
        .query_map(params_from_iter(args), |r| {
            let acc: String = r.get(0)?;
            Ok((
                serde_json::from_str::<Vec<String>>(&acc).unwrap_or_default(),
                r.get::<_, Option<String>>(1)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(metrics::confusions(items))
}

/// Refused decisions in the filter (any time), for the refusal report.
pub fn refusals(conn: &Connection, f: &Filter) -> Result<Vec<Refusal>> {
    let (clause, args) = f.without_window().decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.reason, COALESCE(l.boundary, 'unclassified'), l.run_id, l.time_us
         {from} WHERE {clause} AND l.status = 'refused'"
    ))?;
    let rows = stmt
        .query_map(params_from_iter(args), |r| {
            Ok(Refusal {
                reason: r.get(0)?,
                stage: r.get(1)?,
                run_id: r.get(2)?,
                time_us: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Per catalogue tool usage (`rung report tools`), by (catalogue, name).
pub fn tools(conn: &Connection, f: &Filter) -> Result<Vec<ToolUsage>> {
    let mut sql = String::from("SELECT catalogue, name, family, effect FROM tools WHERE 1=1");
    let mut args = Vec::new();
    push_in(&mut sql, &mut args, "catalogue", &f.catalogues);
    sql.push_str(" ORDER BY catalogue, name");
    let mut list: Vec<ToolUsage> = conn
        .prepare(&sql)?
        .query_map(params_from_iter(args), |r| {
            Ok(ToolUsage {
                catalogue: r.get(0)?,
                name: r.get(1)?,
                family: r.get(2)?,
                effect: r.get(3)?,
                visible: 0,
                selected: 0,
                selected_wrongly: 0,
                refused: 0,
                refused_by_reason: BTreeMap::new(),
                never_selected: true,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut index: HashMap<String, HashMap<String, usize>> = HashMap::new();
    for (i, t) in list.iter().enumerate() {
        index
            .entry(t.catalogue.clone())
            .or_default()
            .insert(t.name.clone(), i);
    }
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.catalogue, l.retrieved, l.selected, l.rung = 'selection', l.status = 'refused',
                l.reason
         {from} WHERE {clause} AND l.catalogue IS NOT NULL"
    ))?;
    let mut rows = stmt.query(params_from_iter(args))?;
    // Pinned menus repeat the same text: parse each distinct one once.
    let mut parsed: HashMap<String, Vec<String>> = HashMap::new();
    while let Some(r) = rows.next()? {
        let cat: String = r.get(0)?;
        let Some(tools) = index.get(&cat) else {
            continue;
        };
        let retrieved: String = r.get(1)?;
        let selected: Option<String> = r.get(2)?;
        let wrong: bool = r.get(3)?;
        let refused: bool = r.get::<_, Option<bool>>(4)?.unwrap_or(false);
        if parsed.len() > 10_000 {
            parsed.clear();
        }
        let names = parsed
            .entry(retrieved)
            .or_insert_with_key(|k| serde_json::from_str(k).unwrap_or_default());
        for n in names.iter() {
            if let Some(&i) = tools.get(n) {
                list[i].visible += 1;
            }
        }
        if let Some(&i) = selected.as_ref().and_then(|s| tools.get(s)) {
            list[i].selected += 1;
            if wrong {
                list[i].selected_wrongly += 1;
            }
            if refused {
                list[i].refused += 1;
                let reason: Option<String> = r.get(5)?;
                *list[i]
                    .refused_by_reason
                    .entry(reason.unwrap_or_default())
                    .or_default() += 1;
            }
        }
    }
    for t in &mut list {
        t.never_selected = t.selected == 0;
    }
    Ok(list)
}

/// One row of `rung report runs`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunRow {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<i64>,
    pub model: Option<String>,
    pub catalogue: Option<String>,
    pub decisions: u64,
    pub first_failed_rung: Option<String>,
    pub success: Option<bool>,
    pub harm: Option<bool>,
}

/// Runs with their decisions and first failed rung, by `run_id`. With a
/// decision filter (window, phase, catalogue), only the run's matching
/// decisions count and runs without any are left out.
pub fn runs(conn: &Connection, f: &Filter) -> Result<Vec<RunRow>> {
    let (clause, args) = if f.has_decision_filter() {
        let mut g = f.clone();
        g.catalogues.clear();
        g.since = None;
        g.until = None;
        g.run_clause()
    } else {
        f.run_clause()
    };
    let mut rows: Vec<RunRow> = conn
        .prepare(&format!(
            "SELECT r.run_id, r.task_id, r.trial, r.model, r.catalogue, r.decisions,
                    r.first_failed_rung, r.success, r.harm
             FROM runs r WHERE {clause} ORDER BY r.run_id"
        ))?
        .query_map(params_from_iter(args), |r| {
            Ok(RunRow {
                run_id: r.get(0)?,
                task_id: r.get(1)?,
                trial: r.get(2)?,
                model: r.get(3)?,
                catalogue: r.get(4)?,
                decisions: r.get::<_, i64>(5)? as u64,
                first_failed_rung: r.get(6)?,
                success: r.get(7)?,
                harm: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if !f.has_decision_filter() {
        return Ok(rows);
    }
    let (clause, args) = f.decision_clause();
    let from = f.from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.run_id, l.rung {from} WHERE {clause} ORDER BY l.run_id, l.step"
    ))?;
    let mut agg: HashMap<String, (u64, Option<String>)> = HashMap::new();
    let mut q = stmt.query(params_from_iter(args))?;
    while let Some(r) = q.next()? {
        let run_id: String = r.get(0)?;
        let rung: String = r.get(1)?;
        let e = agg.entry(run_id).or_default();
        e.0 += 1;
        if e.1.is_none() && rung != "passed" {
            e.1 = Some(rung);
        }
    }
    rows.retain_mut(|row| match agg.get(&row.run_id) {
        Some((n, first)) => {
            row.decisions = *n;
            row.first_failed_rung.clone_from(first);
            true
        }
        None => false,
    });
    Ok(rows)
}

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

/// Findings about the filtered decisions, plus the catalogue-level findings
/// of the catalogues those decisions use (all findings when unfiltered).
/// Ordered by (kind, catalogue, task_id, run_id, step, tool), nulls first.
pub fn findings(conn: &Connection, f: &Filter) -> Result<Vec<FindingRow>> {
    let cols = "x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail";
    let order = "ORDER BY x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail";
    let (sql, args) = if f.is_empty() {
        (format!("SELECT {cols} FROM findings x {order}"), Vec::new())
    } else {
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
                "SELECT {cols} FROM findings x WHERE
                   (x.step IS NOT NULL AND EXISTS (SELECT 1 {from}
                       WHERE l.run_id = x.run_id AND l.step = x.step AND {clause}))
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

/// Steps of a run in order (an error naming the run when it has none).
pub fn run_steps(conn: &Connection, run_id: &str) -> Result<Vec<i64>> {
    let steps: Vec<i64> = conn
        .prepare_cached("SELECT step FROM decisions WHERE run_id = ?1 ORDER BY step")?
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

/// Whether a finding kind is about one decision.
pub fn is_decision_kind(kind: FindingKind) -> bool {
    matches!(
        kind,
        FindingKind::ExposureMismatch
            | FindingKind::HiddenProposal
            | FindingKind::UnclassifiedReason
            | FindingKind::LabelConflict
    )
}
