//! Menus compared and catalogues diffed (`rung compare`, `rung diff`, the
//! Compare screen): each catalogue's attempts as the comparison needs
//! them, the base's confusion cells with every candidate's paired
//! decisions, the stored tool definitions and the labels that moved
//! between two versions. What the figures mean is the core's
//! (`metrics::compare`, `metrics::diff`); this reads them out.

use rusqlite::{Connection, params_from_iter};

use super::filter_sql::FilterSql;
use super::verdicts;
use crate::error::Result;
use crate::filter::Filter;
use crate::metrics::LadderCounts;
use crate::metrics::compare::{
    Attempt, CellChange, CellResult, Comparison, FirstCall, Gate, MenuSummary, Metric, Verdict,
    cell_change, compare, gate, metrics_of, summarize, verdict,
};

mod catalogues;
mod cells;

pub use catalogues::{
    CatalogueInfo, ToolDiffView, catalogues, diff, label_pointers, require, tool_defs, tool_diff,
};
pub use cells::{CellAttempts, CellDecision, CellSpec, DecisionKey, Position, TOP_CELLS, cells};

/// `filter` narrowed to one catalogue.
fn on(f: &Filter, catalogue: &str) -> Filter {
    Filter {
        catalogues: vec![catalogue.to_string()],
        ..f.clone()
    }
}

const JOINED: &str = "FROM ladder l JOIN runs r ON r.run_id = l.run_id";

/// Every run with a decision on `catalogue` (under the filter's other
/// flags), as the comparison needs it, by run id.
pub fn attempts(conn: &Connection, f: &Filter, catalogue: &str) -> Result<Vec<Attempt>> {
    let (clause, args) = on(f, catalogue).decision_clause();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.run_id, r.task_id, r.trial, r.success, l.turn,
                l.label_source IS NOT NULL, l.is_first, l.selected_ok, l.recovered,
                l.in_retrieved, l.abstain_expected, l.abstained, l.no_call_expected,
                l.selected IS NULL, l.violated, l.definition_tokens
         {JOINED} WHERE {clause} ORDER BY l.run_id, l.step"
    ))?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let mut out: Vec<Attempt> = Vec::new();
    // The run being read (rows come by run id); kept in `out` when the
    // next run starts.
    let mut current: Option<Attempt> = None;
    let mut turns: Vec<i64> = Vec::new();
    while let Some(r) = rows.next()? {
        let run_id: String = r.get(0)?;
        let a = match &mut current {
            Some(a) if a.run_id == run_id => a,
            slot => {
                out.extend(slot.take());
                turns.clear();
                slot.insert(Attempt {
                    run_id,
                    task_id: r.get(1)?,
                    trial: r.get(2)?,
                    success: r.get(3)?,
                    ..Attempt::default()
                })
            }
        };
        let b = |i: usize| -> rusqlite::Result<bool> {
            Ok(r.get::<_, Option<bool>>(i)?.unwrap_or(false))
        };
        let turn: i64 = r.get(4)?;
        if !turns.contains(&turn) {
            turns.push(turn);
            if let Some(t) = r.get::<_, Option<i64>>(15)? {
                a.tokens.push(t as u64);
            }
        }
        let labelled = b(5)?;
        if !labelled {
            continue;
        }
        let ok = b(7)?;
        if b(6)? {
            a.first = Some(FirstCall {
                ok,
                recovered: b(8)?,
            });
        }
        let count = |t: &mut (u64, u64), den: bool, num: bool| {
            if den {
                t.1 += 1;
                t.0 += num as u64;
            }
        };
        count(&mut a.selection, b(9)?, ok);
        count(&mut a.abstention, b(10)?, b(11)?);
        count(&mut a.no_call, b(12)?, b(13)?);
        count(&mut a.violation, true, b(14)?);
    }
    out.extend(current);
    Ok(out)
}

/// One menu of a comparison: its figures and its ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct MenuFigures {
    pub summary: MenuSummary,
    pub ladder: LadderCounts,
}

/// A cell of the base with each candidate's result.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRow {
    pub cell: CellSpec,
    /// The base's attempts in the cell.
    pub attempts: u64,
    /// Per candidate, in order.
    pub results: Vec<CellResult>,
    /// Per candidate, how it differs from the base around the pair (with
    /// `--cell` only).
    pub changes: Vec<CellChange>,
}

/// What `rung compare` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareReport {
    pub alpha: f64,
    pub max_tokens: Option<u64>,
    /// The base first, then the candidates in order.
    pub menus: Vec<MenuFigures>,
    pub metrics: Vec<Metric>,
    /// Per candidate.
    pub comparisons: Vec<Comparison>,
    pub gates: Vec<Gate>,
    pub cells: Vec<CellRow>,
    /// With `--cell`: the repair the candidates point to.
    pub verdict: Option<Verdict>,
}

impl CompareReport {
    pub fn base(&self) -> &MenuFigures {
        &self.menus[0]
    }

    pub fn gate_passed(&self) -> bool {
        self.gates.iter().all(|g| g.passed)
    }
}

/// What `rung compare` is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareAsk {
    pub base: String,
    pub candidates: Vec<String>,
    pub cell: Option<CellSpec>,
    pub alpha: f64,
    pub max_tokens: Option<u64>,
}

/// `rung compare`: every menu's figures, the changes against the base, the
/// gate, the base's cells and, for one cell, the verdict.
pub fn compare_menus(
    conn: &Connection,
    f: &Filter,
    ask: &CompareAsk,
    mask: &dyn Fn(&str) -> String,
) -> Result<CompareReport> {
    let mut all: Vec<&str> = vec![ask.base.as_str()];
    all.extend(ask.candidates.iter().map(String::as_str));
    require(conn, &all)?;
    let mut runs = Vec::new();
    let mut menus = Vec::new();
    for c in &all {
        let a = attempts(conn, f, c)?;
        menus.push(MenuFigures {
            summary: summarize(c, &a),
            ladder: verdicts::ladder(conn, &on(f, c))?,
        });
        runs.push(a);
    }
    let summaries: Vec<&MenuSummary> = menus.iter().map(|m| &m.summary).collect();
    let metrics = metrics_of(&summaries);
    let mut comparisons = Vec::new();
    let mut gates = Vec::new();
    for (i, c) in ask.candidates.iter().enumerate() {
        let cmp = compare(c, &runs[0], &runs[i + 1], &metrics, ask.alpha);
        gates.push(gate(&cmp, &menus[i + 1].summary, ask.alpha, ask.max_tokens));
        comparisons.push(cmp);
    }
    drop(runs);
    let cell_attempts = cells(conn, f, &ask.base, &ask.candidates, ask.cell.as_ref())?;
    let mut rows = Vec::new();
    let mut verdict_ = None;
    for ca in &cell_attempts {
        let results: Vec<CellResult> = ask
            .candidates
            .iter()
            .enumerate()
            .map(|(i, c)| ca.result(i, c))
            .collect();
        let mut changes = Vec::new();
        if ask.cell.is_some() {
            for (i, c) in ask.candidates.iter().enumerate() {
                let d = diff(conn, &ask.base, c, mask)?;
                let menus: Vec<Vec<String>> = ca.candidates[i]
                    .iter()
                    .flatten()
                    .map(|d| d.retrieved.clone())
                    .collect();
                changes.push(cell_change(&d, &ca.cell.tools(), &menus));
            }
            let pairs: Vec<(CellChange, CellResult)> = changes
                .iter()
                .copied()
                .zip(results.iter().cloned())
                .collect();
            verdict_ = Some(verdict(ca.base.len() as u64, &pairs));
        }
        rows.push(CellRow {
            cell: ca.cell.clone(),
            attempts: ca.base.len() as u64,
            results,
            changes,
        });
    }
    Ok(CompareReport {
        alpha: ask.alpha,
        max_tokens: ask.max_tokens,
        menus,
        metrics,
        comparisons,
        gates,
        cells: rows,
        verdict: verdict_,
    })
}
