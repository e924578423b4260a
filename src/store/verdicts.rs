//! Counts over the classifier's verdicts (the `ladder` table): decisions by
//! rung and by boundary, every metric, pass^k, confusion cells. What a
//! decision *is* was decided by the classifier and is only read here.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Connection, params_from_iter};

use super::agg::read as agg;
use super::decode::{Stored, Table};
use super::filter_sql::FilterSql;
use super::tools::{ListKey, failure_acceptable};
use crate::error::Result;
use crate::filter::Filter;
use crate::metrics::{
    self, Confusions, DecisionFacts, ExpectAcc, ExpectationFacts, ExpectationMetrics, LadderCounts,
    Metrics, MetricsAcc,
};
use crate::model::Rung;
use crate::text::echo;

/// Decisions by rung (`rung report ladder`).
pub fn ladder(conn: &Connection, f: &Filter) -> Result<LadderCounts> {
    if let Some(s) = agg::scope(conn, f)? {
        return agg::ladder(conn, &s);
    }
    let (clause, args) = f.counting_clause();
    let from = f.verdicts_from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.rung, l.label_source IS NOT NULL, count(*) {from} WHERE {clause}
         GROUP BY l.rung, l.label_source IS NOT NULL"
    ))?;
    let mut counts = LadderCounts::default();
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(row) = rows.next()? {
        add_rungs(conn, &mut counts, row)?;
    }
    Ok(counts)
}

/// Adds one group of a rung count to `counts`: the row's stored rung, whether
/// labelled, and how many decisions.
pub(super) fn add_rungs(
    conn: &Connection,
    counts: &mut LadderCounts,
    row: &rusqlite::Row<'_>,
) -> Result<()> {
    let rung: String = row.get(0)?;
    let labelled: bool = row.get(1)?;
    let n: i64 = row.get(2)?;
    let group = || format!("rows with rung {}", echo(&rung));
    let rung = Stored::new(conn, Table::Ladder, &group).spelled(
        "rung",
        rung.clone(),
        Rung::parse,
        Rung::spellings,
    )?;
    counts.decisions += n as u64;
    if labelled {
        counts.labelled += n as u64;
    }
    counts.rungs[rung as usize] += n as u64;
    Ok(())
}

/// The failure profile: the ladder plus decisions counted by boundary alone.
pub fn boundary_profile(conn: &Connection, f: &Filter) -> Result<Vec<(String, u64)>> {
    if let Some(s) = agg::scope(conn, f)? {
        return agg::boundaries(conn, &s);
    }
    let (clause, args) = f.counting_clause();
    let from = f.verdicts_from();
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
    let acc = match agg::scope(conn, f)? {
        Some(s) => agg::metrics(conn, &s)?,
        None => metrics_acc(conn, f)?,
    };
    let pass = pass_hat_k(conn, f)?;
    let mut m = acc.finish(pass);
    m.expectations = expectation_metrics(conn, f)?;
    m.inconsistent_tasks = super::consistency::rate(conn, f)?;
    Ok(m)
}

/// The decision-level metrics from every verdict the filter keeps.
fn metrics_acc(conn: &Connection, f: &Filter) -> Result<MetricsAcc> {
    let (clause, args) = f.counting_clause();
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
    Ok(acc)
}

/// The four metrics over the runs with expectations that the run-level
/// filters select (`--phase` does not apply), from what the classifier
/// stored on each run.
pub fn expectation_metrics(conn: &Connection, f: &Filter) -> Result<ExpectationMetrics> {
    let (sql, args) = expectation_sql(f);
    let mut stmt = conn.prepare(&sql)?;
    let mut acc = ExpectAcc::default();
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let n = |i: usize| -> rusqlite::Result<u64> {
            Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0).max(0) as u64)
        };
        acc.add(&ExpectationFacts {
            as_expected: r.get(0)?,
            success: r.get(1)?,
            required_calls: n(2)?,
            matched_required: n(3)?,
            judged_calls: n(4)?,
            matched_calls: n(5)?,
        });
    }
    Ok(acc.finish())
}

/// [`expectation_metrics`]' statement: the runs with expectations first,
/// from their index (`runs_expected`, few entries), each then looked up to
/// be filtered. `CROSS JOIN` keeps that order, where SQLite would otherwise
/// read every run of a model filter through `runs_model` (a third of a
/// 5,000,000-decision database's runs, 1.1 s from disk) to find the few
/// with expectations.
fn expectation_sql(f: &Filter) -> (String, Vec<rusqlite::types::Value>) {
    let (clause, args) = f.run_clause();
    (
        format!(
            "SELECT r.as_expected, r.success, r.required_calls, r.matched_required,
                    r.judged_calls, r.matched_calls
             FROM runs e CROSS JOIN runs r ON r.rowid = e.rowid
             WHERE e.as_expected IS NOT NULL AND {clause}"
        ),
        args,
    )
}

/// pass^k over the runs the run-level filters select (`--phase` does not
/// apply). A run without a `task_id` counts as a task of its own.
///
/// Read in two parts: the runs with a task from the index of runs by task
/// and success alone (no run's row is read under no filter), then the few
/// without one by their id. Keys are `t:` and the task, `r:` and the run.
pub fn pass_hat_k(conn: &Connection, f: &Filter) -> Result<BTreeMap<u32, metrics::PassK>> {
    let (clause, args) = f.run_clause();
    let mut runs: Vec<(String, bool)> = Vec::new();
    for sql in pass_sql(&clause) {
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query(params_from_iter(&args))?;
        while let Some(r) = rows.next()? {
            runs.push((r.get(0)?, r.get(1)?));
        }
    }
    let tasks = metrics::task_outcomes(runs.iter().map(|(t, s)| (t.as_str(), *s)));
    Ok(metrics::pass_hat_k(&tasks))
}

/// [`pass_hat_k`]'s two statements under the run clause `clause`: the
/// runs with a task (from `runs_task`, or under a model filter
/// `runs_model`, each holding the task and success), then those without.
fn pass_sql(clause: &str) -> [String; 2] {
    [
        ("'t:' || r.task_id", "NOT NULL"),
        ("'r:' || r.run_id", "NULL"),
    ]
    .map(|(key, which)| {
        format!(
            "SELECT {key}, r.success FROM runs r
             WHERE r.task_id IS {which} AND r.success IS NOT NULL AND {clause}"
        )
    })
}

/// Confusion cells over SELECTION failures (`rung report confusions`),
/// from the stored verdicts: each distinct acceptable list decoded once.
pub fn confusions(conn: &Connection, f: &Filter) -> Result<Confusions> {
    if let Some(s) = agg::scope(conn, f)? {
        return agg::confusions(conn, &s);
    }
    // The SELECTION failures through `ladder_rung`: fewer than a tag's
    // runs' decisions, so not `counting_rows_clause`.
    let (clause, args) = f.rows_clause();
    let from = f.rows_from();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.acceptable, d.selected, l.decision_id {from} WHERE {clause} AND l.rung = '{}'",
        Rung::Selection
    ))?;
    let mut items = Vec::new();
    let mut decoded: HashMap<ListKey, Vec<String>> = HashMap::new();
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(2)?;
        let row = || format!("row decision_id {id}");
        let acceptable = failure_acceptable(conn, r, 0, &row, &mut decoded, |names| names)?;
        items.push((acceptable, r.get::<_, Option<String>>(1)?));
    }
    Ok(metrics::confusions(items))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::{Store, query_plan};

    #[test]
    fn run_metrics_under_a_model_filter_read_no_runs_row_but_the_expected_ones() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        let model = Filter {
            models: vec!["m".into()],
            ..Filter::default()
        };
        // pass^k: the runs with a task from `runs_model`, which holds
        // their task and success (schema 14).
        let [with_task, _] = pass_sql(&model.run_clause().0);
        assert_eq!(
            query_plan(&store.conn, &with_task),
            "SEARCH r USING COVERING INDEX runs_model (model=? AND task_id>?)"
        );
        // The expectation metrics: the runs with expectations first.
        assert_eq!(
            query_plan(&store.conn, &expectation_sql(&model).0),
            "SEARCH e USING COVERING INDEX runs_expected (as_expected>?); \
             SEARCH r USING INTEGER PRIMARY KEY (rowid=?)"
        );
    }
}
