//! Menus compared and catalogues diffed (`rung compare`, `rung diff`, the
//! Compare screen): each catalogue's attempts as the comparison needs
//! them, the base's confusion cells with every candidate's paired
//! decisions, the stored tool definitions and the labels that moved
//! between two versions. What the figures mean is the core's
//! (`metrics::compare`, `metrics::diff`); this reads them out.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use rusqlite::{Connection, params, params_from_iter};
use serde_json::Value;

use super::decode::{Stored, Table};
use super::filter_sql::FilterSql;
use super::verdicts;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::metrics::compare::{
    Attempt, CellChange, CellResult, Comparison, FirstCall, Gate, MenuSummary, Metric, Verdict,
    cell_change, compare, gate, metrics_of, summarize, verdict,
};
use crate::metrics::diff::{CatalogueDiff, Pointer, ToolDef, diff_catalogues};
use crate::metrics::{LadderCounts, confusions};
use crate::model::Rung;
use crate::text::echo;

/// A catalogue version the database knows.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogueInfo {
    pub version: String,
    pub created_at: Option<String>,
    pub tools: u64,
}

/// Every stored catalogue version, oldest first (by `created_at`, then
/// version; undated last).
pub fn catalogues(conn: &Connection) -> Result<Vec<CatalogueInfo>> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.version, c.created_at, (SELECT count(*) FROM tools t WHERE t.catalogue = c.version)
         FROM catalogues c ORDER BY c.created_at IS NULL, c.created_at, c.version",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(CatalogueInfo {
                version: r.get(0)?,
                created_at: r.get(1)?,
                tools: r.get::<_, i64>(2)? as u64,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// A usage error for a version the database does not hold.
fn unknown(version: &str, known: &[CatalogueInfo]) -> Error {
    let names: Vec<String> = known.iter().map(|c| echo(&c.version)).collect();
    Error::usage(format!(
        "no catalogue version {} in the database; known: {}",
        echo(version),
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ))
}

/// Checks that every version is stored.
pub fn require(conn: &Connection, versions: &[&str]) -> Result<()> {
    let known = catalogues(conn)?;
    for v in versions {
        if !known.iter().any(|c| c.version == *v) {
            return Err(unknown(v, &known));
        }
    }
    Ok(())
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(xs)) => xs
            .iter()
            .map(|x| match x {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The tools of one catalogue version as a diff compares them, by name.
pub fn tool_defs(conn: &Connection, version: &str) -> Result<Vec<ToolDef>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, family, effect, open_world, description, record FROM tools
         WHERE catalogue = ?1 ORDER BY name",
    )?;
    let mut rows = stmt.query(params![version])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let name: String = r.get(0)?;
        let row = || format!("row catalogue {} name {}", echo(version), echo(&name));
        let record: Value = Stored::new(conn, Table::Tools, &row)
            .json("record", r.get(5)?)?
            .unwrap_or(Value::Null);
        out.push(ToolDef {
            family: r.get(1)?,
            effect: r.get(2)?,
            open_world: r.get(3)?,
            description: r.get(4)?,
            use_when: strings(record.get("use_when")),
            avoid_when: strings(record.get("avoid_when")),
            input_schema: record.get("input_schema").cloned(),
            name,
        });
    }
    Ok(out)
}

/// Acceptable names by (task, step).
type Labels = BTreeMap<(String, Option<i64>), Vec<String>>;

/// The acceptable names each (task, step) accepts under `version`: the case
/// for that version, else the one for no version.
fn labels_under(conn: &Connection, version: &str) -> Result<Labels> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, task_id, step, catalogue, acceptable FROM cases
         WHERE catalogue = ?1 OR catalogue IS NULL ORDER BY id",
    )?;
    let mut rows = stmt.query(params![version])?;
    let mut specific = BTreeMap::new();
    let mut general = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let row = || format!("row id {id}");
        let acceptable = Stored::new(conn, Table::Cases, &row)
            .list("acceptable", r.get(4)?)?
            .unwrap_or_default();
        let key = (r.get::<_, String>(1)?, r.get::<_, Option<i64>>(2)?);
        let into = if r.get::<_, Option<String>>(3)?.is_some() {
            &mut specific
        } else {
            &mut general
        };
        into.insert(key, acceptable);
    }
    for (k, v) in specific {
        general.insert(k, v);
    }
    Ok(general)
}

/// The labels that moved between two versions: for each (task, step)
/// labelled under both, every (old acceptable, new acceptable) pair.
pub fn label_pointers(conn: &Connection, old: &str, new: &str) -> Result<Vec<Pointer>> {
    let a = labels_under(conn, old)?;
    let b = labels_under(conn, new)?;
    let mut out = BTreeSet::new();
    for (key, olds) in &a {
        let Some(news) = b.get(key) else { continue };
        for r in olds {
            for n in news.iter().filter(|n| !olds.contains(n)) {
                out.insert(Pointer {
                    removed: r.clone(),
                    added: n.clone(),
                    task: key.0.clone(),
                });
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// `rung diff OLD NEW`; `mask` is applied to each description before the
/// word diff (secrets are masked, not diffed).
pub fn diff(
    conn: &Connection,
    old: &str,
    new: &str,
    mask: &dyn Fn(&str) -> String,
) -> Result<CatalogueDiff> {
    require(conn, &[old, new])?;
    let masked = |mut v: Vec<ToolDef>| {
        for t in &mut v {
            t.description = mask(&t.description);
            for h in t.use_when.iter_mut().chain(t.avoid_when.iter_mut()) {
                *h = mask(h);
            }
        }
        v
    };
    let a = masked(tool_defs(conn, old)?);
    let b = masked(tool_defs(conn, new)?);
    let pointers = label_pointers(conn, old, new)?;
    Ok(diff_catalogues(old, new, &a, &b, &pointers))
}

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
    let mut turns: Vec<i64> = Vec::new();
    while let Some(r) = rows.next()? {
        let run_id: String = r.get(0)?;
        if out.last().is_none_or(|a| a.run_id != run_id) {
            turns.clear();
            out.push(Attempt {
                run_id,
                task_id: r.get(1)?,
                trial: r.get(2)?,
                success: r.get(3)?,
                ..Attempt::default()
            });
        }
        let a = out.last_mut().expect("pushed");
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
    Ok(out)
}

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
    let names = super::names::Names::load(conn)?;
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

/// One tool between two catalogue versions (the Tools screen's `d`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDiffView {
    pub name: String,
    pub catalogue: String,
    /// The versions compared, older first.
    pub pair: Option<(String, String)>,
    /// What changed, when the tool is in both and differs.
    pub change: Option<crate::metrics::diff::ToolChange>,
    /// What the comparison found, in words (trace names unescaped).
    pub summary: String,
}

/// Diffs tool `name` of `catalogue` against the nearest older version that
/// has a tool of that name, else the nearest newer one; with none, says
/// what became of it (renamed or merged) where a neighbour version tells.
pub fn tool_diff(
    conn: &Connection,
    catalogue: &str,
    name: &str,
    mask: &dyn Fn(&str) -> String,
) -> Result<ToolDiffView> {
    let all = catalogues(conn)?;
    let Some(at) = all.iter().position(|c| c.version == catalogue) else {
        return Err(unknown(catalogue, &all));
    };
    let has = |v: &str| -> Result<bool> {
        Ok(conn
            .prepare_cached("SELECT 1 FROM tools WHERE catalogue = ?1 AND name = ?2")?
            .exists(params![v, name])?)
    };
    let older = all[..at].iter().rev().map(|c| c.version.as_str());
    let newer = all[at + 1..].iter().map(|c| c.version.as_str());
    let mut pair = None;
    for v in older {
        if has(v)? {
            pair = Some((v.to_string(), catalogue.to_string()));
            break;
        }
    }
    if pair.is_none() {
        for v in newer {
            if has(v)? {
                pair = Some((catalogue.to_string(), v.to_string()));
                break;
            }
        }
    }
    let mut view = ToolDiffView {
        name: name.to_string(),
        catalogue: catalogue.to_string(),
        pair: pair.clone(),
        change: None,
        summary: String::new(),
    };
    if let Some((old, new)) = pair {
        let d = diff(conn, &old, &new, mask)?;
        view.change = d.change_of(name).cloned();
        view.summary = match &view.change {
            Some(c) => format!(
                "{name} changed from {old} to {new}: {}",
                c.fields
                    .iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("{name} is the same in {old} and {new}"),
        };
        return Ok(view);
    }
    // In no other version: what did a neighbour make of it?
    let mut said = Vec::new();
    if let Some(next) = all.get(at + 1) {
        let d = diff(conn, catalogue, &next.version, mask)?;
        let went = d.successors(name);
        match went[..] {
            [] => {}
            [r] if r.from.len() > 1 => said.push(format!(
                "in {} it is merged into {} (with {})",
                next.version,
                r.into,
                r.from
                    .iter()
                    .filter(|f| *f != name)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            [r] => said.push(format!("in {} it is renamed to {}", next.version, r.into)),
            _ => said.push(format!(
                "in {} it is split into {}",
                next.version,
                went.iter()
                    .map(|r| r.into.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    if at > 0 {
        let prev = &all[at - 1];
        let d = diff(conn, &prev.version, catalogue, mask)?;
        if let Some(r) = d.renamed.iter().find(|r| r.into == name) {
            said.push(format!(
                "it {} {} of {}",
                if r.from.len() > 1 {
                    "merges"
                } else {
                    "renames"
                },
                r.from.join(", "),
                prev.version
            ));
        }
    }
    view.summary = if said.is_empty() {
        format!("{name} is only in {catalogue}: no other version has a tool of that name")
    } else {
        format!("{name} is only in {catalogue}; {}", said.join("; "))
    };
    Ok(view)
}
