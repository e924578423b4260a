//! `rung explain`: one stored decision walked through the ladder from the
//! same inputs the classifier used, with every catalogue tool's visibility.

use rusqlite::{Connection, params};

use super::context::{Context, effective};
use super::stored::{DECISION_COLUMNS, StoredCase, StoredRun, decision_row, load_run};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ladder::{self, CaseRef, DecisionInput};
use crate::model::{Label, Rung};

/// Everything `rung explain` shows about one decision.
#[derive(Debug, Clone)]
pub struct Explained {
    pub run_id: String,
    pub step: i64,
    pub turn: i64,
    pub phase: Option<String>,
    pub catalogue: Option<String>,
    pub selected: Option<String>,
    pub call_id: Option<String>,
    pub rung: Rung,
    pub routing: Option<String>,
    pub boundary: Option<String>,
    pub progress: Option<String>,
    pub violated: bool,
    pub label: Option<(Label, &'static str)>,
    pub status: Option<String>,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub arguments: Option<String>,
    pub walk: Vec<ladder::WalkStep>,
    pub tools: Vec<ladder::ToolVisibility>,
    pub findings: Vec<crate::store::findings::FindingRow>,
}

/// Explains one stored decision: the ladder walk and every catalogue tool's
/// visibility, from the same inputs the classifier used.
pub fn explain(conn: &Connection, config: &Config, run_id: &str, step: i64) -> Result<Explained> {
    let mut ctx = Context::new(conn, config);
    let run = load_run(conn, run_id)?.unwrap_or_else(StoredRun::bare);
    // One decision, and whether it is the run's first (for step-less cases).
    let mut stmt = conn.prepare_cached(&format!(
        "{DECISION_COLUMNS} WHERE run_id = ?1 AND step = ?2"
    ))?;
    let mut rows = stmt.query(params![run_id, step])?;
    let found = match rows.next()? {
        Some(r) => Some(decision_row(conn, run_id, r)?),
        None => None,
    };
    drop(rows);
    drop(stmt);
    let Some(d) = found else {
        let steps: Vec<String> = match crate::store::decisions::run_steps(conn, run_id) {
            Ok(steps) => steps.iter().map(|s| s.to_string()).collect(),
            // No decisions (or no such run): said below.
            Err(Error::Usage(_)) => Vec::new(),
            Err(e) => return Err(e),
        };
        return Err(Error::usage(if steps.is_empty() {
            format!("no run {run_id:?} with decisions in the database (see `rung report runs`)")
        } else {
            format!(
                "run {run_id} has no step {step}; its steps are {}",
                steps.join(", ")
            )
        }));
    };
    let d = &d;
    let first: Option<i64> = conn
        .prepare_cached("SELECT min(step) FROM decisions WHERE run_id = ?1")?
        .query_row([run_id], |r| r.get(0))?;
    let is_first = first == Some(step);
    let cases = ctx.run_cases(run.task_id.as_deref())?;
    let case_refs: Vec<CaseRef<'_>> = cases.iter().map(StoredCase::as_ref).collect();
    let eff = effective(&mut ctx, &d.menu, &run.menu)?;
    let (label, _) = ladder::resolve_label(
        d.expected.as_ref(),
        &case_refs,
        d.step,
        eff.catalogue_name,
        is_first,
    );
    let abstain = eff.abstain_or(&ctx.abstain);
    let menu = eff.menu(d.exposed.as_deref());
    let input = DecisionInput {
        menu,
        selected: d.selected.as_deref(),
        label: label.map(|(l, _)| l),
        status: d.status,
        stage: d.stage,
        reason: d.reason.as_deref(),
        progress: d.progress,
        abstain,
    };
    let c = ladder::classify(&input, &ctx.reasons);
    let tools = ladder::explain_tools(menu, label.map(|(l, _)| l), d.selected.as_deref());
    let walk = ladder::walk(&c, &input, &tools);

    let (call_id, message, arguments): (Option<String>, Option<String>, Option<String>) = conn
        .query_row(
            "SELECT d.call_id, json_extract(d.outcome, '$.message'), p.arguments
             FROM decisions d LEFT JOIN payloads p ON p.decision_id = d.id WHERE d.id = ?1",
            [d.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
    Ok(Explained {
        run_id: run_id.to_string(),
        step,
        turn: d.turn,
        phase: d.phase.clone(),
        catalogue: eff.catalogue_name.map(str::to_string),
        selected: d.selected.clone(),
        call_id,
        rung: c.rung,
        routing: c.routing.map(|r| r.as_str().to_string()),
        boundary: c.boundary.map(|b| b.as_str().to_string()),
        progress: d.progress.map(|p| p.as_str().to_string()),
        violated: c.violated,
        label: label.map(|(l, s)| (l.clone(), s.as_str())),
        status: d.status.map(|s| s.as_str().to_string()),
        reason: d.reason.clone(),
        message,
        arguments,
        walk,
        tools,
        findings: crate::store::findings::decision_findings(conn, run_id, step)?,
    })
}
