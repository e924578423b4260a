//! What is exported and where it is read: the documented views
//! (`decision_ladder`, `tool_drift`) and the documented columns of
//! `docs/schema.md` (the `ladder` verdict, `runs`, `findings`, `tools`),
//! never the menus' storage. `ladder.retrieved` is read as names, or as
//! ids of `tool_names` where the store interns them (`columns::name_list`). Every query here yields, first, the row's
//! time in microseconds (its day's partition; NULL: undated), then the
//! table's columns in order, ordered by that time.

use rusqlite::types::Value as Sql;

use super::columns::{Column, Kind::*, col};
use crate::filter::Filter;
use crate::store::filter_sql::FilterSql;

/// A decision with its rung and parts: the `decision_ladder` view plus the
/// verdict's facts the metrics count.
pub const DECISIONS: &[Column] = &[
    col("run_id", Text),
    col("step", Int),
    col("turn", Int),
    col("phase", Text),
    col("at", Text),
    col("time", Time),
    col("catalogue", Text),
    col("task_id", Text),
    col("model", Text),
    col("selected", Text),
    col("rung", Text),
    col("routing", Text),
    col("boundary", Text),
    col("arguments", Text),
    col("progress", Text),
    col("violated", Bool),
    col("outcome", Text),
    col("stage", Text),
    col("reason", Text),
    col("acceptable", List),
    col("forbidden", List),
    col("label_source", Text),
    col("in_registry", Bool),
    col("in_exposed", Bool),
    col("in_retrieved", Bool),
    col("selected_ok", Bool),
    col("retrieval_k", Int),
    col("is_first", Bool),
    col("recovered", Bool),
    col("abstain_expected", Bool),
    col("abstained", Bool),
    col("no_call_expected", Bool),
    col("retrieved", List),
    col("definition_tokens", Int),
];

/// The SELECT list of [`DECISIONS`] over `decision_ladder v` and `ladder l`.
const DECISION_SELECT: &str = "l.time_us,
    v.run_id, v.step, l.turn, v.phase, v.at, l.time_us, v.catalogue, v.task_id, v.model,
    v.selected, v.rung, v.routing, v.boundary, v.arguments, v.progress, v.violated,
    v.outcome, v.stage, v.reason, v.acceptable, v.forbidden, v.label_source,
    l.in_registry, l.in_exposed, l.in_retrieved, l.selected_ok, l.retrieval_k, l.is_first,
    l.recovered, l.abstain_expected, l.abstained, l.no_call_expected, l.retrieved,
    l.definition_tokens, COALESCE(l.boundary, 'unclassified')";

/// Where `outcome` is in [`DECISIONS`] (the refusals are split off by it).
pub const DECISION_OUTCOME: usize = 16;

/// A refused decision with the stage the ladder assigns it (`unclassified`
/// when none): the `refusals` view with the decision's time.
pub const REFUSALS: &[Column] = &[
    col("run_id", Text),
    col("step", Int),
    col("at", Text),
    col("time", Time),
    col("catalogue", Text),
    col("task_id", Text),
    col("model", Text),
    col("selected", Text),
    col("reason", Text),
    col("stage", Text),
];

/// [`REFUSALS`] read from the same rows as decisions: for each column, its
/// index among the values after the partition time of [`DECISION_SELECT`]
/// (the last one, after [`DECISIONS`], is the stage).
pub const REFUSAL_FROM_DECISION: &[usize] = &[0, 1, 4, 5, 6, 7, 8, 9, 18, DECISIONS.len()];

pub const RUNS: &[Column] = &[
    col("run_id", Text),
    col("task_id", Text),
    col("trial", Int),
    col("model", Text),
    col("catalogue", Text),
    col("started_at", Text),
    col("time", Time),
    col("success", Bool),
    col("harm", Bool),
    col("decisions", Int),
    col("first_failed_rung", Text),
    col("as_expected", Bool),
    col("required_calls", Int),
    col("matched_required", Int),
    col("judged_calls", Int),
    col("matched_calls", Int),
    col("tags", Text),
];

const RUN_SELECT: &str = "COALESCE(r.started_us, r.first_at_us),
    r.run_id, r.task_id, r.trial, r.model, r.catalogue, r.started_at,
    COALESCE(r.started_us, r.first_at_us), r.success, r.harm, r.decisions, r.first_failed_rung,
    r.as_expected, r.required_calls, r.matched_required, r.judged_calls, r.matched_calls, r.tags";

pub const FINDINGS: &[Column] = &[
    col("kind", Text),
    col("catalogue", Text),
    col("task_id", Text),
    col("run_id", Text),
    col("step", Int),
    col("tool", Text),
    col("detail", Text),
    col("time", Time),
];

pub const TOOLS: &[Column] = &[
    col("catalogue", Text),
    col("name", Text),
    col("family", Text),
    col("effect", Text),
    col("open_world", Bool),
    col("idempotent", Bool),
    col("definition_tokens", Int),
    col("definition_hash", Text),
    col("drifted", Bool),
    col("description", Text),
];

/// A query and its parameters.
pub struct Query {
    pub sql: String,
    pub args: Vec<Sql>,
}

/// The decisions in the filter, by time (undated first).
pub fn decisions(f: &Filter) -> Query {
    let (clause, args) = f.decision_clause();
    let from = f.from();
    Query {
        sql: format!(
            "SELECT {DECISION_SELECT} {from}
             JOIN decision_ladder v ON v.run_id = l.run_id AND v.step = l.step
             WHERE {clause} ORDER BY l.time_us"
        ),
        args,
    }
}

/// The runs the filter selects (with a decision filter, those with a
/// decision in it), by time: their stored, whole-run fields.
pub fn runs(f: &Filter) -> Query {
    let mut g = f.clone();
    g.since = None;
    g.until = None;
    g.catalogues.clear();
    g.phases.clear();
    let (mut clause, mut args) = g.run_clause();
    if f.has_decision_filter() {
        let (dc, da) = f.decision_clause();
        let from = f.from();
        clause.push_str(&format!(
            " AND r.run_id IN (SELECT l.run_id {from} WHERE {dc})"
        ));
        args.extend(da);
    }
    Query {
        sql: format!("SELECT {RUN_SELECT} FROM runs r WHERE {clause} ORDER BY 1"),
        args,
    }
}

/// The findings `rung report findings` shows under the filter, by time:
/// a decision's at the decision's time, a run's at the run's, a
/// catalogue's undated.
pub fn findings(f: &Filter) -> Query {
    let time = "CASE WHEN x.step IS NOT NULL
            THEN (SELECT t.time_us FROM ladder t WHERE t.run_id = x.run_id AND t.step = x.step)
            WHEN x.run_id IS NOT NULL
            THEN (SELECT COALESCE(t.started_us, t.first_at_us) FROM runs t WHERE t.run_id = x.run_id)
        END";
    let select = format!(
        "{time} AS time_us, x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool,
                x.detail, {time}"
    );
    let order = "ORDER BY time_us, x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.id";
    let (sql, args) = crate::store::findings::selected(f, &select, order);
    Query { sql, args }
}

/// Every tool of every catalogue (or of `--catalogue`): not partitioned.
pub fn tools(f: &Filter) -> Query {
    let mut sql = String::from(
        "SELECT NULL, t.catalogue, t.name, t.family, t.effect, t.open_world, t.idempotent,
                t.definition_tokens, t.definition_hash,
                EXISTS (SELECT 1 FROM tool_drift d WHERE d.catalogue = t.catalogue AND d.name = t.name),
                t.description
         FROM tools t WHERE 1=1",
    );
    let mut args = Vec::new();
    if !f.catalogues.is_empty() {
        sql.push_str(" AND t.catalogue IN (");
        for (i, c) in f.catalogues.iter().enumerate() {
            sql.push_str(if i == 0 { "?" } else { ", ?" });
            args.push(Sql::Text(c.clone()));
        }
        sql.push(')');
    }
    sql.push_str(" ORDER BY t.catalogue, t.name");
    Query { sql, args }
}
