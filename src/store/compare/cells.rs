//! The base's confusion cells with every candidate's paired decisions
//! (`rung compare --cell`, the Compare screen's cells).

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, params_from_iter};

use super::{JOINED, on};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::metrics::compare::CellResult;
use crate::metrics::confusions;
use crate::model::Rung;
use crate::store::decode::{Stored, Table};
use crate::store::filter_sql::FilterSql;
use crate::text::echo;

/// Where a decision sits in its run: the first decision, else its step.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Position {
    First,
    Step(i64),
}

/// A decision's place among a menu's attempts: what pairs it with another
/// menu's decision.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DecisionKey {
    pub task_id: String,
    pub trial: Option<i64>,
    pub position: Position,
}

/// One decision of a cell (the base's) or paired with one (a candidate's).
#[derive(Debug, Clone, PartialEq)]
pub struct CellDecision {
    pub key: DecisionKey,
    pub run_id: String,
    pub step: i64,
    pub selected: Option<String>,
    /// `selected ∈ acceptable` under this menu's label (None: unlabelled).
    pub ok: Option<bool>,
    /// The names the model saw.
    pub retrieved: Vec<String>,
}

/// A confusion cell: sorted acceptable names and what was selected.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellSpec {
    pub acceptable: Vec<String>,
    pub selected: Option<String>,
}

impl CellSpec {
    /// `a,b→c` (`->` for `→`; `(no call)` or `@no_call` for no call).
    pub fn parse(s: &str) -> Result<CellSpec> {
        let (a, b) = s.split_once('→').or_else(|| s.split_once("->")).ok_or_else(|| {
            Error::usage(format!(
                "--cell {}: write it ACCEPTABLE→SELECTED (or ACCEPTABLE->SELECTED), e.g. 'search_sharepoint→search_confluence'",
                echo(s)
            ))
        })?;
        let mut acceptable: Vec<String> = a
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect();
        if acceptable.is_empty() {
            return Err(Error::usage(format!(
                "--cell {}: no acceptable tool before the arrow",
                echo(s)
            )));
        }
        acceptable.sort();
        acceptable.dedup();
        let b = b.trim();
        let selected = match b {
            "" | "(no call)" | "@no_call" => None,
            b => Some(b.to_string()),
        };
        Ok(CellSpec {
            acceptable,
            selected,
        })
    }

    /// `a, b → c` for a reader.
    pub fn show(&self) -> String {
        format!(
            "{} → {}",
            self.acceptable.join(", "),
            self.selected.as_deref().unwrap_or("(no call)")
        )
    }

    /// The tools of the pair: acceptable and selected.
    pub fn tools(&self) -> Vec<String> {
        let mut v = self.acceptable.clone();
        if let Some(s) = &self.selected
            && !v.contains(s)
        {
            v.push(s.clone());
        }
        v
    }
}

/// Decisions on `catalogue` with a task (and `extra` SQL), as cells and
/// pairing need them, with their acceptable names; `keep` says which to
/// keep, so memory holds only what is asked for.
fn decisions_on(
    conn: &Connection,
    f: &Filter,
    catalogue: &str,
    extra: &str,
    keep: impl Fn(&DecisionKey) -> bool,
) -> Result<Vec<(CellDecision, Option<Vec<String>>)>> {
    let (clause, args) = on(f, catalogue).decision_clause();
    let mut stmt = conn.prepare(&format!(
        "SELECT l.decision_id, l.run_id, l.step, r.task_id, r.trial, l.is_first, l.selected,
                l.selected_ok, l.acceptable, l.retrieved
         {JOINED} WHERE {clause} AND r.task_id IS NOT NULL {extra}
         ORDER BY r.task_id, r.trial, l.run_id, l.step"
    ))?;
    let names = crate::store::names::Names::load(conn)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let row = || format!("row decision_id {id}");
        let stored = Stored::new(conn, Table::Ladder, &row).with_names(&names);
        let key = DecisionKey {
            task_id: r.get(3)?,
            trial: r.get(4)?,
            position: if r.get::<_, bool>(5)? {
                Position::First
            } else {
                Position::Step(r.get(2)?)
            },
        };
        if !keep(&key) {
            continue;
        }
        let acceptable = stored.list("acceptable", r.get(8)?)?;
        let selected: Option<String> = r.get(6)?;
        out.push((
            CellDecision {
                key,
                run_id: r.get(1)?,
                step: r.get(2)?,
                selected,
                ok: r.get(7)?,
                retrieved: stored.list("retrieved", r.get(9)?)?.unwrap_or_default(),
            },
            acceptable,
        ));
    }
    Ok(out)
}

/// One cell of the base with its decisions and each candidate's paired
/// decision (None: the candidate did not run that attempt).
#[derive(Debug, Clone, PartialEq)]
pub struct CellAttempts {
    pub cell: CellSpec,
    pub base: Vec<CellDecision>,
    /// Per candidate, per base decision.
    pub candidates: Vec<Vec<Option<CellDecision>>>,
}

impl CellAttempts {
    /// A candidate's result on the cell.
    pub fn result(&self, i: usize, catalogue: &str) -> CellResult {
        let paired: Vec<&CellDecision> = self.candidates[i].iter().flatten().collect();
        CellResult {
            catalogue: catalogue.to_string(),
            paired: paired.len() as u64,
            right: paired.iter().filter(|d| d.ok == Some(true)).count() as u64,
        }
    }
}

/// How many cells compare shows without `--cell`.
pub const TOP_CELLS: usize = 10;

/// The base's confusion cells (the top ten, or the one asked for) with
/// every candidate's decisions paired by task, trial and position.
pub fn cells(
    conn: &Connection,
    f: &Filter,
    base: &str,
    candidates: &[String],
    only: Option<&CellSpec>,
) -> Result<Vec<CellAttempts>> {
    let mut failures = decisions_on(
        conn,
        f,
        base,
        &format!("AND l.rung = '{}'", Rung::Selection),
        |_| true,
    )?;
    for (_, a) in &mut failures {
        if let Some(a) = a {
            a.sort();
            a.dedup();
        }
    }
    let c = confusions(
        failures
            .iter()
            .map(|(d, a)| (a.clone().unwrap_or_default(), d.selected.clone())),
    );
    let specs: Vec<CellSpec> = match only {
        Some(spec) => {
            if !c
                .cells
                .iter()
                .any(|x| x.acceptable == spec.acceptable && x.selected == spec.selected)
            {
                let top: Vec<String> = c
                    .cells
                    .iter()
                    .take(3)
                    .map(|x| {
                        CellSpec {
                            acceptable: x.acceptable.clone(),
                            selected: x.selected.clone(),
                        }
                        .show()
                    })
                    .collect();
                return Err(Error::usage(format!(
                    "--cell {}: {} has no selection failure in that cell{}",
                    echo(&spec.show()),
                    echo(base),
                    if top.is_empty() {
                        String::new()
                    } else {
                        format!("; its top cells: {}", echo(&top.join("; ")))
                    }
                )));
            }
            vec![spec.clone()]
        }
        None => c
            .cells
            .iter()
            .take(TOP_CELLS)
            .map(|x| CellSpec {
                acceptable: x.acceptable.clone(),
                selected: x.selected.clone(),
            })
            .collect(),
    };
    let mut out: Vec<CellAttempts> = specs
        .into_iter()
        .map(|cell| CellAttempts {
            base: failures
                .iter()
                .filter(|(d, a)| {
                    a.as_ref() == Some(&cell.acceptable) && d.selected == cell.selected
                })
                .map(|(d, _)| d.clone())
                .collect(),
            cell,
            candidates: Vec::new(),
        })
        .collect();
    drop(failures);
    let wanted: HashSet<DecisionKey> = out
        .iter()
        .flat_map(|c| c.base.iter().map(|d| d.key.clone()))
        .collect();
    for cand in candidates {
        let mut found: HashMap<DecisionKey, CellDecision> = HashMap::new();
        let mut repeated: HashSet<DecisionKey> = HashSet::new();
        for (d, _) in decisions_on(conn, f, cand, "", |k| wanted.contains(k))? {
            // A key seen twice cannot pair one attempt with one attempt.
            let k = d.key.clone();
            if found.insert(k.clone(), d).is_some() {
                repeated.insert(k);
            }
        }
        for k in &repeated {
            found.remove(k);
        }
        for c in &mut out {
            c.candidates
                .push(c.base.iter().map(|d| found.get(&d.key).cloned()).collect());
        }
    }
    Ok(out)
}
