//! The classification pass: reads the runs an import touched, walks the
//! ladder for each of their decisions and writes the verdicts and findings.

mod audit;
mod catalogue;
mod context;
mod explain;
mod stored;

use rusqlite::params;

pub(crate) use context::Context;
use context::effective;
pub use explain::{Explained, explain};
use stored::StoredCase;
pub(crate) use stored::{StoredDecision, StoredRun, load_catalogue, load_decisions, load_run};

use crate::error::Result;
use crate::ladder::{self, CaseRef, DecisionInput, RunStep};
use crate::model::{Label, Rung};

/// Classifies every run in `temp.touched_runs` (plus the runs of touched
/// tasks and catalogues) that the batch has not already classified
/// (`temp.classified_runs`), then the catalogue-level findings. Returns the
/// number of runs classified here.
pub(crate) fn reclassify_touched(ctx: &mut Context<'_>) -> Result<u64> {
    let conn = ctx.conn;
    conn.execute_batch(
        "INSERT OR IGNORE INTO touched_runs
            SELECT run_id FROM runs WHERE task_id IN (SELECT task_id FROM touched_tasks);
         INSERT OR IGNORE INTO touched_runs
            SELECT run_id FROM runs WHERE catalogue IN (SELECT version FROM touched_catalogues);
         INSERT OR IGNORE INTO touched_runs
            SELECT DISTINCT run_id FROM decisions
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
    let decisions = load_decisions(ctx.conn, run_id)?;
    classify_loaded(ctx, run_id, &run, &decisions, false)
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

/// Classifies a run's decisions (all of them, in step order) and writes the
/// verdicts, the decision findings and the run's summary. `fresh`: nothing
/// of the run was classified before, so there is nothing old to clear.
pub(crate) fn classify_loaded(
    ctx: &mut Context<'_>,
    run_id: &str,
    run: &StoredRun,
    decisions: &[StoredDecision],
    fresh: bool,
) -> Result<()> {
    let conn = ctx.conn;
    if !fresh {
        let mut old = conn.prepare_cached(
            "SELECT DISTINCT catalogue FROM ladder WHERE run_id = ?1 AND catalogue IS NOT NULL",
        )?;
        let mut rows = old.query([run_id])?;
        while let Some(r) = rows.next()? {
            ctx.finding_catalogues.insert(r.get(0)?);
        }
    }
    let cases = ctx.run_cases(run.task_id.as_deref())?;
    let case_refs: Vec<CaseRef<'_>> = cases.iter().map(StoredCase::as_ref).collect();

    if !fresh {
        conn.prepare_cached("DELETE FROM ladder WHERE run_id = ?1")?
            .execute([run_id])?;
        conn.prepare_cached(concat!(
            "DELETE FROM findings WHERE run_id = ?1 AND kind IN (",
            "'exposure_mismatch','hidden_proposal','unclassified_reason','label_conflict'",
            ")"
        ))?
        .execute([run_id])?;
    }

    let steps: Vec<RunStep<'_>> = decisions
        .iter()
        .map(|d| RunStep {
            step: d.step,
            turn: d.turn,
            selected: d.selected.as_deref(),
        })
        .collect();

    let mut first_failed: Option<Rung> = None;
    let mut first_at: Option<i64> = None;
    for (i, d) in decisions.iter().enumerate() {
        let is_first = i == 0;
        let eff = effective(ctx, &d.menu, &run.menu)?;
        if let Some(c) = eff.catalogue_name
            && !ctx.finding_catalogues.contains(c)
        {
            ctx.finding_catalogues.insert(c.to_string());
        }
        let (label, conflict) = ladder::resolve_label(
            d.expected.as_ref(),
            &case_refs,
            d.step,
            eff.catalogue_name,
            is_first,
        );
        let abstain = eff.abstain_or(&ctx.abstain);
        let input = DecisionInput {
            menu: eff.menu(d.exposed.as_deref()),
            selected: d.selected.as_deref(),
            label: label.map(|(l, _)| l),
            status: d.status,
            stage: d.stage,
            reason: d.reason.as_deref(),
            progress: d.progress,
            abstain,
        };
        let mut c = ladder::classify(&input, &ctx.reasons);
        c.findings.extend(conflict);
        let recovered = match (is_first, label, c.selected_ok) {
            (true, Some((l, _)), Some(false)) => {
                Some(ladder::recovered_within_3(&steps[0], l, &steps))
            }
            _ => None,
        };
        if first_failed.is_none() && c.rung.is_failure() {
            first_failed = Some(c.rung);
        }
        let time_us = d.at_us.or(run.started_us);
        if let Some(t) = time_us {
            first_at = Some(first_at.map_or(t, |f: i64| f.min(t)));
        }
        let label_json = |f: fn(&Label) -> &Vec<String>| {
            label.map(|(l, _)| serde_json::to_string(f(l)).expect("serialises"))
        };
        conn.prepare_cached(
            "INSERT INTO ladder (decision_id, run_id, step, turn, catalogue, phase, time_us,
                selected, status, reason, rung, routing, boundary, progress, violated,
                label_source, acceptable, forbidden, in_registry, in_exposed, in_retrieved,
                selected_ok, retrieval_k, is_first, recovered, abstain_expected, abstained,
                no_call_expected, controls, retrieved, definition_tokens)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
        )?
        .execute(params![
            d.id,
            run_id,
            d.step,
            d.turn,
            eff.catalogue_name,
            d.phase,
            time_us,
            d.selected,
            d.status.map(|s| s.as_str()),
            d.reason,
            c.rung.as_str(),
            c.routing.map(|r| r.as_str()),
            c.boundary.map(|b| b.as_str()),
            c.progress.map(|p| p.as_str()),
            c.violated,
            label.map(|(_, s)| s.as_str()),
            label_json(|l| &l.acceptable),
            label_json(|l| &l.forbidden),
            c.in_registry,
            c.in_exposed,
            c.in_retrieved,
            c.selected_ok,
            c.retrieval_k,
            is_first,
            recovered,
            c.abstain_expected,
            c.abstained,
            c.no_call_expected,
            serde_json::to_string(eff.controls).expect("serialises"),
            serde_json::to_string(&c.retrieved).expect("serialises"),
            c.definition_tokens.map(|t| t as i64),
        ])?;
        for f in &c.findings {
            conn.prepare_cached(
                "INSERT INTO findings (kind, catalogue, task_id, run_id, step, tool, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                f.kind.as_str(),
                eff.catalogue_name,
                run.task_id,
                run_id,
                d.step,
                f.tool,
                f.detail
            ])?;
        }
    }
    conn.prepare_cached(
        "UPDATE runs SET decisions = ?2, first_failed_rung = ?3, first_at_us = ?4 WHERE run_id = ?1",
    )?
    .execute(params![
        run_id,
        decisions.len() as i64,
        first_failed.map(|r| r.as_str()),
        first_at.or(run.started_us)
    ])?;
    audit::audit_run(ctx, run_id, run, decisions)
}
