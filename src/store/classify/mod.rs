//! The classification pass: reads the runs an import touched, walks the
//! ladder for each of their decisions and writes the verdicts and findings.

mod audit;
mod catalogue;
mod codes;
mod context;
mod explain;
mod judge;
pub mod matching;
mod pipe;
mod schema;
mod stored;

use rusqlite::params;

pub(crate) use context::Context;
pub use explain::{Explained, RunExpectations, RunExplained, explain, explain_run};
use judge::judge;
use pipe::{Entry, Job, Row};
pub(crate) use stored::{
    KeptPayload, StoredDecision, StoredRun, load_catalogue, load_decisions, load_run,
};

use crate::error::Result;
use crate::ladder::errors::ErrorStageSource;
use crate::ladder::schema::{SchemaCheck, SchemaFinding};
use crate::model::Label;
use crate::store::held::Hot;

/// A SQL text built once per call site (the statement cache keys on it).
macro_rules! once_sql {
    ($e:expr) => {{
        static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        SQL.get_or_init(|| $e).as_str()
    }};
}

/// Classifies every run in `temp.touched_runs` (plus the runs of touched
/// tasks and catalogues) that the batch has not already classified
/// (`temp.classified_runs`), then the catalogue-level findings. Returns the
/// number of runs classified here.
pub(crate) fn reclassify_touched(ctx: &mut Context<'_>) -> Result<u64> {
    ctx.build_deferred()?;
    let conn = ctx.conn;
    conn.execute_batch(
        "INSERT OR IGNORE INTO touched_runs
            SELECT run_id FROM runs WHERE task_id IN (SELECT task_id FROM touched_tasks);
         INSERT OR IGNORE INTO touched_runs
            SELECT run_id FROM runs WHERE catalogue IN (SELECT version FROM touched_catalogues);
         INSERT OR IGNORE INTO touched_runs
            SELECT DISTINCT run_id FROM decision_rows
            WHERE catalogue IN (SELECT version FROM touched_catalogues);",
    )?;
    let mut n = 0;
    {
        let mut runs = conn.prepare(
            "SELECT run_id FROM touched_runs
             WHERE run_id NOT IN (SELECT run_id FROM classified_runs) ORDER BY run_id",
        )?;
        let mut rows = runs.query([])?;
        while let Some(row) = rows.next()? {
            let run_id: String = row.get(0)?;
            classify_run(ctx, &run_id)?;
            n += 1;
        }
    }
    ctx.pipe.drain(conn, &mut ctx.finding_ids)?;
    for c in std::mem::take(&mut ctx.finding_catalogues) {
        conn.prepare_cached("INSERT OR IGNORE INTO finding_catalogues VALUES (?1)")?
            .execute([c])?;
    }
    let catalogues: Vec<String> = conn
        .prepare("SELECT version FROM finding_catalogues ORDER BY version")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for version in catalogues {
        catalogue::catalogue_findings(conn, &version)?;
    }
    Ok(n)
}

fn classify_run(ctx: &mut Context<'_>, run_id: &str) -> Result<()> {
    let run = load_run(ctx.conn, run_id)?.unwrap_or_else(StoredRun::bare);
    let conn = ctx.conn;
    let decisions = load_decisions(conn, ctx.names()?, run_id)?;
    classify_loaded(ctx, run_id, run, decisions, false)
}

/// Whether every catalogue the decisions refer to (themselves or through
/// the run) is known: otherwise classifying now would be premature.
pub(crate) fn catalogues_known(
    ctx: &mut Context<'_>,
    run: &StoredRun,
    decisions: &[StoredDecision],
) -> Result<bool> {
    for d in decisions {
        if let Some(c) = d
            .menu
            .catalogue
            .as_deref()
            .or(run.menu.catalogue.as_deref())
            && ctx.catalogue(c)?.is_none()
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The finding kinds this pass computes per run (cleared before a run is
/// classified again).
const RUN_FINDING_KINDS: &str = concat!(
    "'exposure_mismatch','hidden_proposal','unclassified_reason','label_conflict',",
    "'missing_call','argument_mismatch','unexpected_call','missing_output',",
    "'schema_violation'"
);

/// Longest typed-error text kept in `ladder.error_detail`, in characters.
const ERROR_DETAIL_CHARS: usize = 300;

/// Classifies a run's decisions (all of them, in step order) with the
/// run-level pass ([`ladder::classify_run`]) and writes the verdicts, the
/// decision and expectation findings, the matching table and the run's
/// summary. `fresh`: nothing of the run was classified before, so there is
/// nothing old to clear. The findings are worded on the classifying thread
/// and stored a few runs later, in order (see `pipe.rs`).
pub(crate) fn classify_loaded(
    ctx: &mut Context<'_>,
    run_id: &str,
    run: StoredRun,
    mut stored: Vec<StoredDecision>,
    fresh: bool,
) -> Result<()> {
    let conn = ctx.conn;
    if !fresh {
        // Its old verdicts and findings are found through their indexes.
        ctx.build_deferred()?;
        // Its old findings are cleared below: every waiting one is stored
        // first.
        ctx.pipe.drain(conn, &mut ctx.finding_ids)?;
        let mut old = conn.prepare_cached(
            "SELECT DISTINCT catalogue FROM ladder WHERE run_id = ?1 AND catalogue IS NOT NULL",
        )?;
        let mut rows = old.query([run_id])?;
        while let Some(r) = rows.next()? {
            ctx.finding_catalogues.insert(r.get(0)?);
        }
        conn.prepare_cached(
            "DELETE FROM ladder_rows
             WHERE decision_id IN (SELECT id FROM decision_rows WHERE run_id = ?1)",
        )?
        .execute([run_id])?;
        conn.prepare_cached(once_sql!(format!(
            "DELETE FROM finding_rows WHERE run_id = (SELECT id FROM finding_names WHERE name = ?1)
             AND kind IN (SELECT id FROM finding_kinds WHERE name IN ({RUN_FINDING_KINDS}))"
        )))?
        .execute([run_id])?;
        conn.prepare_cached("DELETE FROM matching WHERE run_id = ?1")?
            .execute([run_id])?;
    }

    let mut entries = Vec::new();
    let mut judged = judge(ctx, run_id, &run, &mut stored)?;
    let decisions = judged.decisions;
    let mask = |s: &str| ctx.redactor.apply(s).into_owned();

    let mut first_at: Option<i64> = None;
    for (i, ((d, eff), v)) in decisions
        .iter()
        .zip(&judged.effs)
        .zip(&judged.verdict.decisions)
        .enumerate()
    {
        if let Some(c) = eff.catalogue_name
            && !ctx.finding_catalogues.contains(c)
        {
            ctx.finding_catalogues.insert(c.to_string());
        }
        let c = &v.classification;
        let time_us = d.at_us.or(run.started_us);
        if let Some(t) = time_us {
            first_at = Some(first_at.map_or(t, |f: i64| f.min(t)));
        }
        let label = v.label.as_ref();
        let label_json = |f: fn(&Label) -> &Vec<String>| {
            label.map(|(l, _)| serde_json::to_string(f(l))).transpose()
        };
        let (acceptable, forbidden) = (
            label_json(|l| &l.acceptable)?,
            label_json(|l| &l.forbidden)?,
        );
        let reason = match &c.error {
            Some(e) => Some(e.reason()),
            None => judged.outcome(i).2.map(str::to_string),
        };
        let (error_source, error_detail) = match &c.error {
            Some(e) => (
                Some(match &e.source {
                    ErrorStageSource::Recorded => "recorded".to_string(),
                    ErrorStageSource::Pattern(p) => format!("pattern {p}"),
                }),
                e.detail
                    .as_deref()
                    .map(|t| crate::text::truncate(&mask(t), ERROR_DETAIL_CHARS).into_owned()),
            ),
            None => (None, None),
        };
        let controls = ctx.packer.list_text(conn, eff.controls)?;
        let retrieved = ctx.packer.list_text(conn, &c.retrieved)?;
        let catalogue = match eff.catalogue_name {
            Some(c) => Some(ctx.catalogue_ids.id(conn, c)?),
            None => None,
        };
        // In this order, as the upgrade to schema 6 adds them.
        let controls = ctx.ladder_lists.id(conn, &controls)?;
        let mut list = |t: Option<String>| t.map(|t| ctx.ladder_lists.id(conn, &t)).transpose();
        let (acceptable, forbidden) = (list(acceptable)?, list(forbidden)?);
        ctx.held
            .get(
                Hot::LadderRow,
                "INSERT INTO ladder_rows (decision_id, catalogue, time_us, reason, rung, routing,
                boundary, progress, arguments, label_source, violated, acceptable, forbidden,
                in_registry, in_exposed, in_retrieved, selected_ok, retrieval_k, is_first,
                recovered, abstain_expected, abstained, no_call_expected, controls, retrieved,
                definition_tokens, error_source, error_detail)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)",
            )?
            .execute(params![
                d.id,
                catalogue,
                time_us,
                codes::reason(reason.as_deref(), d.reason.as_deref()),
                c.rung.as_str(),
                c.routing.map(codes::routing),
                c.boundary.map(codes::boundary),
                c.progress.map(codes::progress),
                c.arguments.map(codes::arguments),
                label.map(|(_, s)| codes::label_source(*s)),
                c.violated,
                acceptable,
                forbidden,
                c.in_registry,
                c.in_exposed,
                c.in_retrieved,
                c.selected_ok,
                c.retrieval_k,
                v.is_first,
                v.recovered,
                c.abstain_expected,
                c.abstained,
                c.no_call_expected,
                controls,
                retrieved,
                c.definition_tokens.map(|t| t as i64),
                error_source,
                error_detail,
            ])?;
        for f in &c.findings {
            entries.push(Entry::Ready(Row {
                kind: f.kind,
                catalogue: finding_catalogue(&mut ctx.finding_ids, conn, eff.catalogue_name)?,
                step: Some(d.step),
                tool: f.tool.clone(),
                detail: f.detail.clone(),
            }));
        }
        // The last use of this decision's check: its violations move into
        // the finding (worded on the classifying thread).
        if let Some(tool) = &d.selected
            && let SchemaCheck::Invalid(violations) =
                std::mem::replace(&mut judged.schema[i], SchemaCheck::NotChecked)
        {
            let f = SchemaFinding {
                step: d.step,
                tool: tool.clone(),
                violations,
                status: d.status,
            };
            entries.push(Entry::Schema(
                finding_catalogue(&mut ctx.finding_ids, conn, eff.catalogue_name)?,
                f,
            ));
        }
    }

    let verdict = &judged.verdict;
    let mut summary: [Option<i64>; 5] = [None; 5];
    if let (Some(e), Some(x)) = (&judged.expectations, &verdict.expectations) {
        for f in &x.findings {
            entries.push(Entry::Ready(Row {
                kind: f.kind(),
                catalogue: finding_catalogue(
                    &mut ctx.finding_ids,
                    conn,
                    judged.catalogue.as_deref(),
                )?,
                step: f.step(),
                tool: f.tool().map(str::to_string),
                detail: f.detail(&mask),
            }));
        }
        let selected: Vec<Option<&str>> = decisions.iter().map(|d| d.selected.as_deref()).collect();
        let table = matching::rows(e, verdict, &selected, &judged.call_effects, &mask);
        matching::store(conn, run_id, &table)?;
        let f = &x.facts;
        summary = [
            Some(i64::from(x.as_expected)),
            Some(f.required_calls as i64),
            Some(f.matched_required as i64),
            Some(f.judged_calls as i64),
            Some(f.matched_calls as i64),
        ];
    }
    conn.prepare_cached(
        "UPDATE runs SET decisions = ?2, first_failed_rung = ?3, first_at_us = ?4,
            as_expected = ?5, required_calls = ?6, matched_required = ?7, judged_calls = ?8,
            matched_calls = ?9
         WHERE run_id = ?1",
    )?
    .execute(params![
        run_id,
        decisions.len() as i64,
        verdict.first_failed_rung.map(|r| r.as_str()),
        first_at.or(run.started_us),
        summary[0],
        summary[1],
        summary[2],
        summary[3],
        summary[4],
    ])?;
    drop(judged);
    let task_id = run.task_id;
    let decisions = stored.len();
    let audit = audit::gather(ctx, run_id, run.menu, stored, fresh)?;
    let job = Job {
        run_id: run_id.to_string(),
        decisions,
        task_id,
        entries,
        audit,
    };
    ctx.pipe.send(conn, &mut ctx.finding_ids, job)
}

/// A finding's catalogue, interned in `catalogue_ids` now (as storing the
/// finding at once did), though the finding is stored later.
fn finding_catalogue(
    ids: &mut crate::store::finding_ids::FindingIds,
    conn: &rusqlite::Connection,
    catalogue: Option<&str>,
) -> Result<Option<String>> {
    let Some(c) = catalogue else {
        return Ok(None);
    };
    ids.catalogue(conn, c)?;
    Ok(Some(c.to_string()))
}
