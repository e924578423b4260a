//! `rung explain`: stored decisions walked through the ladder from the same
//! inputs the classifier used (the whole run, for derived labels), with
//! every catalogue tool's visibility and the run's matching table.

use rusqlite::Connection;

use super::context::Context;
use super::judge::judge;
use super::matching::{self, MatchRow};
use super::stored::{StoredRun, load_decisions, load_run};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ladder::{self, DecisionInput};
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
    /// The arguments part (format v1.1): `mismatch` or none.
    pub arguments_part: Option<String>,
    pub progress: Option<String>,
    pub violated: bool,
    /// The label and its source: `inline`, `case` or `derived`.
    pub label: Option<(Label, &'static str)>,
    pub status: Option<String>,
    /// The recorded reason, or `error:<stage>` for a typed error.
    pub reason: Option<String>,
    pub message: Option<String>,
    pub arguments: Option<String>,
    pub walk: Vec<ladder::WalkStep>,
    pub tools: Vec<ladder::ToolVisibility>,
    pub findings: Vec<crate::store::findings::FindingRow>,
    /// The rows of the run's matching table about this decision's call.
    pub matching: Vec<MatchRow>,
}

/// What a run with expectations was found to do against them.
#[derive(Debug, Clone, PartialEq)]
pub struct RunExpectations {
    pub as_expected: bool,
    /// Expected calls given (`None`: the case sets none).
    pub expected_calls: Option<usize>,
    /// The matching table (empty without expected calls).
    pub matching: Vec<MatchRow>,
    /// Expected outputs given, and those no answer contains (masked).
    pub expected_outputs: usize,
    pub missing_outputs: Vec<String>,
}

/// `rung explain RUN [STEP]`: the decisions explained and the run's
/// expectations.
#[derive(Debug, Clone)]
pub struct RunExplained {
    pub run_id: String,
    pub decisions: Vec<Explained>,
    /// `None` for a run without expectations.
    pub expectations: Option<RunExpectations>,
}

/// Explains one stored decision: the ladder walk and every catalogue tool's
/// visibility, from the same inputs the classifier used.
pub fn explain(conn: &Connection, config: &Config, run_id: &str, step: i64) -> Result<Explained> {
    let mut r = explain_run(conn, config, run_id, Some(step))?;
    Ok(r.decisions.remove(0))
}

/// Explains a run's decisions (only `step`, when given) and its
/// expectations, from the same inputs the classifier used.
pub fn explain_run(
    conn: &Connection,
    config: &Config,
    run_id: &str,
    step: Option<i64>,
) -> Result<RunExplained> {
    let mut ctx = Context::new(conn, config)?;
    let run = load_run(conn, run_id)?.unwrap_or_else(StoredRun::bare);
    let names = crate::store::names::Names::load(conn)?;
    let mut decisions = load_decisions(conn, &names, run_id)?;
    let steps: Vec<i64> = decisions.iter().map(|d| d.step).collect();
    if decisions.is_empty() {
        return Err(Error::usage(format!(
            "no run {run_id:?} with decisions in the database (see `rung report runs`)"
        )));
    }
    if let Some(s) = step
        && !steps.contains(&s)
    {
        let list: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
        return Err(Error::usage(format!(
            "run {run_id} has no step {s}; its steps are {}",
            list.join(", ")
        )));
    }
    let judged = judge(&mut ctx, run_id, &run, &mut decisions)?;
    let mask = |s: &str| ctx.redactor.apply(s).into_owned();
    let table: Vec<MatchRow> = match &judged.expectations {
        Some(e) => {
            let selected: Vec<Option<&str>> = judged
                .decisions
                .iter()
                .map(|d| d.selected.as_deref())
                .collect();
            matching::rows(e, &judged.verdict, &selected, &judged.call_effects, &mask)
        }
        None => Vec::new(),
    };

    let mut out = Vec::new();
    for (i, d) in judged.decisions.iter().enumerate() {
        if step.is_some_and(|s| s != d.step) {
            continue;
        }
        let eff = &judged.effs[i];
        let v = &judged.verdict.decisions[i];
        let c = &v.classification;
        let label = v.label.as_ref().map(|(l, _)| l);
        let menu = eff.menu(d.exposed.as_deref());
        let (status, stage, reason) = judged.outcome(i);
        let input = DecisionInput {
            menu,
            selected: d.selected.as_deref(),
            label,
            status,
            stage,
            reason,
            progress: d.progress,
            abstain: eff.abstain_or(&ctx.abstain),
        };
        let tools = ladder::explain_tools(menu, label, d.selected.as_deref());
        let walk = ladder::walk(c, &input, &tools);
        let (call_id, message, arguments): (Option<String>, Option<String>, Option<String>) = conn
            .query_row(
                "SELECT d.call_id, json_extract(CASE WHEN typeof(d.outcome) = 'blob'
                     THEN (SELECT body FROM menus WHERE id = CAST(d.outcome AS INTEGER))
                     ELSE d.outcome END,
                     '$.message'), p.arguments
                 FROM decision_rows d LEFT JOIN payloads p ON p.decision_id = d.id WHERE d.id = ?1",
                [d.id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
        out.push(Explained {
            run_id: run_id.to_string(),
            step: d.step,
            turn: d.turn,
            phase: d.phase.clone(),
            catalogue: eff.catalogue_name.map(str::to_string),
            selected: d.selected.clone(),
            call_id,
            rung: c.rung,
            routing: c.routing.map(|r| r.as_str().to_string()),
            boundary: c.boundary.map(|b| b.as_str().to_string()),
            arguments_part: c.arguments.map(|a| a.as_str().to_string()),
            progress: d.progress.map(|p| p.as_str().to_string()),
            violated: c.violated,
            label: v.label.as_ref().map(|(l, s)| (l.clone(), s.as_str())),
            status: d.status.map(|s| s.as_str().to_string()),
            reason: match &c.error {
                Some(e) => Some(e.reason()),
                None => reason.map(str::to_string),
            },
            message,
            arguments,
            walk,
            tools,
            findings: crate::store::findings::decision_findings(conn, run_id, d.step)?,
            matching: table
                .iter()
                .filter(|r| r.step == Some(d.step))
                .cloned()
                .collect(),
        });
    }
    let expectations = match (&judged.expectations, &judged.verdict.expectations) {
        (Some(e), Some(x)) => Some(RunExpectations {
            as_expected: x.as_expected,
            expected_calls: e.calls.as_ref().map(Vec::len),
            matching: table,
            expected_outputs: e.outputs.as_ref().map_or(0, Vec::len),
            missing_outputs: x.missing_outputs.iter().map(|o| mask(o)).collect(),
        }),
        _ => None,
    };
    Ok(RunExplained {
        run_id: run_id.to_string(),
        decisions: out,
        expectations,
    })
}
