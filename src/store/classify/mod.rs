//! The classification pass: reads the runs an import touched, walks the
//! ladder for each of their decisions and writes the verdicts and findings.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use rusqlite::{Connection, OptionalExtension, params};

use crate::config::Config;
use crate::error::Result;
use crate::ladder::{
    self, CaseRef, CatalogueView, DecisionInput, Menu, ReasonTable, RunStep, ToolInfo,
};
use crate::model::{
    Decision, Effect, FindingKind, Label, MenuFields, Policy, Progress, Retrieval, Run, Rung,
    Stage, Status,
};

/// Finding kinds derived per catalogue.
const CATALOGUE_KINDS: &str =
    "'description_drift','catalogue_conflict','control_impostor','invalid_control'";

pub(crate) fn parse_list(s: Option<String>) -> Option<Vec<String>> {
    s.and_then(|s| serde_json::from_str(&s).ok())
}

/// The parts of stored JSON the ladder reads, parsed straight into typed
/// values (unknown fields ignored): this runs once per decision.
#[derive(serde::Deserialize)]
struct PolicyRow {
    allowed_families: Option<Vec<String>>,
    max_effect: Option<String>,
    #[serde(default)]
    allow_open_world: bool,
}

#[derive(serde::Deserialize)]
struct CandidateRow {
    name: String,
    score: Option<f64>,
}

#[derive(serde::Deserialize)]
struct RetrievalRow {
    k: u32,
    #[serde(default)]
    candidates: Vec<CandidateRow>,
}

#[derive(serde::Deserialize)]
struct LabelRow {
    acceptable: Vec<String>,
    #[serde(default)]
    forbidden: Vec<String>,
}

pub(crate) fn parse_policy(s: Option<String>) -> Option<Policy> {
    let p: PolicyRow = serde_json::from_str(&s?).ok()?;
    Some(Policy {
        allowed_families: p.allowed_families,
        max_effect: p.max_effect.as_deref().and_then(Effect::parse),
        allow_open_world: p.allow_open_world,
        extra: serde_json::Value::Null,
    })
}

pub(crate) fn parse_retrieval(s: Option<String>) -> Option<Retrieval> {
    let r: RetrievalRow = serde_json::from_str(&s?).ok()?;
    Some(Retrieval {
        k: r.k,
        selector: None,
        query: None,
        candidates: r
            .candidates
            .into_iter()
            .map(|c| crate::model::Candidate {
                name: c.name,
                score: c.score,
                extra: serde_json::Value::Null,
            })
            .collect(),
        extra: serde_json::Value::Null,
    })
}

fn parse_label(s: Option<String>) -> Option<Label> {
    let l: LabelRow = serde_json::from_str(&s?).ok()?;
    Some(Label::new(l.acceptable, l.forbidden))
}

/// The menu fields of a run or decision as stored.
#[derive(Default)]
pub(crate) struct StoredMenu {
    catalogue: Option<String>,
    policy: Option<Policy>,
    controls: Option<Vec<String>>,
    retrieval: Option<Retrieval>,
    visible: Option<Vec<String>>,
}

impl From<MenuFields> for StoredMenu {
    fn from(m: MenuFields) -> Self {
        StoredMenu {
            catalogue: m.catalogue,
            policy: m.policy,
            controls: m.trusted_controls,
            retrieval: m.retrieval,
            visible: m.visible,
        }
    }
}

pub(crate) struct StoredDecision {
    id: i64,
    step: i64,
    turn: i64,
    at_us: Option<i64>,
    phase: Option<String>,
    menu: StoredMenu,
    exposed: Option<Vec<String>>,
    selected: Option<String>,
    status: Option<Status>,
    stage: Option<Stage>,
    reason: Option<String>,
    progress: Option<Progress>,
    expected: Option<Label>,
}

impl StoredDecision {
    pub(crate) fn step(&self) -> i64 {
        self.step
    }

    pub(crate) fn set_id(&mut self, id: i64) {
        self.id = id;
    }

    /// A decision just written with row id `id`, kept for classification
    /// without reading it back.
    pub(crate) fn from_model(id: i64, d: Decision) -> StoredDecision {
        let (status, stage, reason) = match d.outcome {
            Some(o) => (Some(o.status), o.stage, o.reason),
            None => (None, None, None),
        };
        StoredDecision {
            id,
            step: d.step,
            turn: d.turn.unwrap_or(d.step),
            at_us: d.at.map(|t| t.micros()),
            phase: d.phase,
            menu: d.menu.into(),
            exposed: d.exposed,
            selected: d.selected,
            status,
            stage,
            reason,
            progress: d.progress,
            expected: d.expected,
        }
    }
}

struct StoredCase {
    step: Option<i64>,
    catalogue: Option<String>,
    label: Label,
}

impl StoredCase {
    fn as_ref(&self) -> CaseRef<'_> {
        CaseRef {
            step: self.step,
            catalogue: self.catalogue.as_deref(),
            label: &self.label,
        }
    }
}

/// Caches of what classification reads besides the run itself.
pub(crate) struct Context<'c> {
    conn: &'c Connection,
    reasons: ReasonTable,
    abstain: String,
    catalogues: HashMap<String, Option<Rc<CatalogueView>>>,
    cases: HashMap<String, Rc<Vec<StoredCase>>>,
    /// Catalogues whose decisions were classified (before or after): their
    /// catalogue-level findings must be recomputed.
    pub(crate) finding_catalogues: BTreeSet<String>,
}

impl<'c> Context<'c> {
    pub(crate) fn new(conn: &'c Connection, config: &Config) -> Context<'c> {
        Context {
            conn,
            reasons: config.reason_table(),
            abstain: config.abstain().to_string(),
            catalogues: HashMap::new(),
            cases: HashMap::new(),
            finding_catalogues: BTreeSet::new(),
        }
    }

    /// Forgets a cached catalogue (it changed).
    pub(crate) fn forget_catalogue(&mut self, version: &str) {
        self.catalogues.remove(version);
    }

    /// Forgets a task's cached cases (one was added or replaced).
    pub(crate) fn forget_cases(&mut self, task_id: &str) {
        self.cases.remove(task_id);
    }

    pub(crate) fn catalogue(&mut self, version: &str) -> Result<Option<Rc<CatalogueView>>> {
        if let Some(c) = self.catalogues.get(version) {
            return Ok(c.clone());
        }
        let view = load_catalogue(self.conn, version)?.map(Rc::new);
        self.catalogues.insert(version.to_string(), view.clone());
        Ok(view)
    }

    /// The cases of a run's task (none without a task).
    fn run_cases(&mut self, task_id: Option<&str>) -> Result<Rc<Vec<StoredCase>>> {
        match task_id {
            Some(t) => self.cases(t),
            None => Ok(Rc::new(Vec::new())),
        }
    }

    fn cases(&mut self, task_id: &str) -> Result<Rc<Vec<StoredCase>>> {
        if let Some(c) = self.cases.get(task_id) {
            return Ok(c.clone());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT step, catalogue, acceptable, forbidden FROM cases WHERE task_id = ?1",
        )?;
        let rows = stmt
            .query_map([task_id], |r| {
                let acc: String = r.get(2)?;
                let forb: String = r.get(3)?;
                Ok(StoredCase {
                    step: r.get(0)?,
                    catalogue: r.get(1)?,
                    label: Label::new(
                        serde_json::from_str(&acc).unwrap_or_default(),
                        serde_json::from_str(&forb).unwrap_or_default(),
                    ),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let rows = Rc::new(rows);
        self.cases.insert(task_id.to_string(), rows.clone());
        Ok(rows)
    }
}

/// A catalogue version as the ladder sees it (first definitions win).
pub(crate) fn load_catalogue(conn: &Connection, version: &str) -> Result<Option<CatalogueView>> {
    let abstain: Option<Option<String>> = conn
        .prepare_cached("SELECT abstain FROM catalogues WHERE version = ?1")?
        .query_row([version], |r| r.get(0))
        .optional()?;
    let Some(abstain) = abstain else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT name, family, effect, open_world, idempotent, definition_tokens
         FROM tools WHERE catalogue = ?1",
    )?;
    let tools = stmt
        .query_map([version], |r| {
            let effect: String = r.get(2)?;
            Ok((
                r.get::<_, String>(0)?,
                ToolInfo {
                    family: r.get(1)?,
                    effect: Effect::parse(&effect).unwrap_or(Effect::Destructive),
                    open_world: r.get(3)?,
                    idempotent: r.get(4)?,
                    tokens: r.get::<_, i64>(5)? as u64,
                },
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some(CatalogueView {
        version: version.to_string(),
        abstain,
        tools,
    }))
}

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
        catalogue_findings(conn, &version)?;
    }
    Ok(n)
}

pub(crate) struct StoredRun {
    task_id: Option<String>,
    started_us: Option<i64>,
    menu: StoredMenu,
}

impl StoredRun {
    /// A run record just written, kept for classifying its decisions.
    pub(crate) fn from_model(r: Run) -> StoredRun {
        StoredRun {
            task_id: r.task_id,
            started_us: r.started_at.map(|t| t.micros()),
            menu: r.menu.into(),
        }
    }

    /// A run known only from its decisions.
    pub(crate) fn bare() -> StoredRun {
        StoredRun {
            task_id: None,
            started_us: None,
            menu: StoredMenu::default(),
        }
    }
}

pub(crate) fn load_run(conn: &Connection, run_id: &str) -> Result<Option<StoredRun>> {
    Ok(conn
        .prepare_cached(
            "SELECT task_id, started_us, catalogue, policy, trusted_controls, retrieval, visible
             FROM runs WHERE run_id = ?1",
        )?
        .query_row([run_id], |r| {
            Ok(StoredRun {
                task_id: r.get(0)?,
                started_us: r.get(1)?,
                menu: StoredMenu {
                    catalogue: r.get(2)?,
                    policy: parse_policy(r.get(3)?),
                    controls: parse_list(r.get(4)?),
                    retrieval: parse_retrieval(r.get(5)?),
                    visible: parse_list(r.get(6)?),
                },
            })
        })
        .optional()?)
}

const DECISION_COLUMNS: &str = "SELECT id, step, turn, at_us, phase, catalogue, policy,
    trusted_controls, retrieval, exposed, visible, selected, status, stage, reason, progress,
    expected FROM decisions";

fn decision_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredDecision> {
    let step: i64 = r.get(1)?;
    let status: Option<String> = r.get(12)?;
    let stage: Option<String> = r.get(13)?;
    let progress: Option<String> = r.get(15)?;
    Ok(StoredDecision {
        id: r.get(0)?,
        step,
        turn: r.get::<_, Option<i64>>(2)?.unwrap_or(step),
        at_us: r.get(3)?,
        phase: r.get(4)?,
        menu: StoredMenu {
            catalogue: r.get(5)?,
            policy: parse_policy(r.get(6)?),
            controls: parse_list(r.get(7)?),
            retrieval: parse_retrieval(r.get(8)?),
            visible: parse_list(r.get(10)?),
        },
        exposed: parse_list(r.get(9)?),
        selected: r.get(11)?,
        status: status.as_deref().and_then(Status::parse),
        stage: stage.as_deref().and_then(Stage::parse),
        reason: r.get(14)?,
        progress: progress.as_deref().and_then(Progress::parse),
        expected: parse_label(r.get(16)?),
    })
}

/// A run's decisions in step order.
pub(crate) fn load_decisions(conn: &Connection, run_id: &str) -> Result<Vec<StoredDecision>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{DECISION_COLUMNS} WHERE run_id = ?1 ORDER BY step"
    ))?;
    let rows = stmt
        .query_map([run_id], decision_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Everything the ladder needs for one stored decision, with the run's menu
/// fields inherited where the decision records none.
pub(crate) struct Effective<'a> {
    pub catalogue: Option<Rc<CatalogueView>>,
    pub catalogue_name: Option<&'a str>,
    pub policy: Option<&'a Policy>,
    pub controls: &'a [String],
    pub retrieval: Option<&'a Retrieval>,
    pub visible: Option<&'a [String]>,
}

impl<'a> Effective<'a> {
    /// The abstain name in force: the catalogue's, else `default`.
    fn abstain_or<'s>(&'s self, default: &'s str) -> &'s str {
        self.catalogue
            .as_deref()
            .and_then(|c| c.abstain.as_deref())
            .unwrap_or(default)
    }

    fn menu<'m>(&'m self, exposed: Option<&'m [String]>) -> Menu<'m> {
        Menu {
            catalogue: self.catalogue.as_deref(),
            policy: self.policy,
            controls: self.controls,
            retrieval: self.retrieval,
            exposed,
            visible: self.visible,
        }
    }
}

fn effective<'a>(
    ctx: &mut Context<'_>,
    d: &'a StoredMenu,
    run: &'a StoredMenu,
) -> Result<Effective<'a>> {
    let catalogue_name = d.catalogue.as_deref().or(run.catalogue.as_deref());
    let catalogue = match catalogue_name {
        Some(c) => ctx.catalogue(c)?,
        None => None,
    };
    Ok(Effective {
        catalogue,
        catalogue_name,
        policy: d.policy.as_ref().or(run.policy.as_ref()),
        controls: d
            .controls
            .as_deref()
            .or(run.controls.as_deref())
            .unwrap_or(&[]),
        retrieval: d.retrieval.as_ref().or(run.retrieval.as_ref()),
        visible: d.visible.as_deref().or(run.visible.as_deref()),
    })
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
        if first_failed.is_none() && c.rung != Rung::Passed {
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
    Ok(())
}

/// Recomputes the catalogue-level findings of one catalogue version.
fn catalogue_findings(conn: &Connection, version: &str) -> Result<()> {
    conn.execute(
        &format!("DELETE FROM findings WHERE catalogue = ?1 AND kind IN ({CATALOGUE_KINDS})"),
        [version],
    )?;
    let insert = |kind: FindingKind, tool: &str, detail: String| -> Result<()> {
        conn.prepare_cached(
            "INSERT INTO findings (kind, catalogue, tool, detail) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![kind.as_str(), version, tool, detail])?;
        Ok(())
    };

    // Drift and conflicts: every definition after the first, per tool.
    type Variant = (String, String, String, String, bool, bool, Option<String>);
    let variants: Vec<Variant> = conn
        .prepare(
            "SELECT name, definition_hash, family, effect, open_world, idempotent, source
             FROM tool_versions WHERE catalogue = ?1 ORDER BY name, id",
        )?
        .query_map([version], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut first: Option<&Variant> = None;
    for v in &variants {
        match first {
            Some(f) if f.0 == v.0 => {
                let seen =
                    v.6.as_deref()
                        .map(|s| format!(" at {s}"))
                        .unwrap_or_default();
                let kept =
                    f.6.as_deref()
                        .map(|s| format!(", from {s}"))
                        .unwrap_or_default();
                if f.1 != v.1 {
                    insert(
                        FindingKind::DescriptionDrift,
                        &v.0,
                        format!(
                            "{} under catalogue {version}: definition hash {} (in use{kept}) changed to {}{seen}; the first definition stays in use",
                            v.0, f.1, v.1
                        ),
                    )?;
                }
                let mut changes = Vec::new();
                if f.2 != v.2 {
                    changes.push(format!("family {} → {}", f.2, v.2));
                }
                if f.3 != v.3 {
                    changes.push(format!("effect {} → {}", f.3, v.3));
                }
                if f.4 != v.4 {
                    changes.push(format!("open_world {} → {}", f.4, v.4));
                }
                if f.5 != v.5 {
                    changes.push(format!("idempotent {} → {}", f.5, v.5));
                }
                if !changes.is_empty() {
                    insert(
                        FindingKind::CatalogueConflict,
                        &v.0,
                        format!(
                            "{} under catalogue {version}: {}{seen}; the first definition stays in use",
                            v.0,
                            changes.join(", ")
                        ),
                    )?;
                }
            }
            _ => first = Some(v),
        }
    }

    // Controls: what decisions on this catalogue trust.
    let mut trusted: BTreeSet<String> = BTreeSet::new();
    {
        let mut stmt = conn.prepare("SELECT DISTINCT controls FROM ladder WHERE catalogue = ?1")?;
        let mut rows = stmt.query([version])?;
        while let Some(row) = rows.next()? {
            let s: String = row.get(0)?;
            let list: Vec<String> = serde_json::from_str(&s).unwrap_or_default();
            trusted.extend(list);
        }
    }
    let Some(cat) = load_catalogue(conn, version)? else {
        return Ok(());
    };
    for (name, tool) in &cat.tools {
        if tool.family == "control" && !trusted.contains(name) {
            insert(
                FindingKind::ControlImpostor,
                name,
                format!(
                    "{name} has family control but no decision on catalogue {version} trusts it; a tool cannot make itself always visible by its family label"
                ),
            )?;
        }
    }
    for name in &trusted {
        if let Some(tool) = cat.tools.get(name)
            && (tool.family != "control" || tool.effect != Effect::None || tool.open_world)
        {
            insert(
                FindingKind::InvalidControl,
                name,
                format!(
                    "{name} is trusted as a control but catalogue {version} lists it as family {}, effect {}{}; a control must be family control, effect none, closed-world",
                    tool.family,
                    tool.effect,
                    if tool.open_world { ", open-world" } else { "" }
                ),
            )?;
        }
    }
    Ok(())
}

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
    pub findings: Vec<super::findings::FindingRow>,
}

/// Explains one stored decision: the ladder walk and every catalogue tool's
/// visibility, from the same inputs the classifier used.
pub fn explain(conn: &Connection, config: &Config, run_id: &str, step: i64) -> Result<Explained> {
    let mut ctx = Context::new(conn, config);
    let run = load_run(conn, run_id)?.unwrap_or(StoredRun {
        task_id: None,
        started_us: None,
        menu: StoredMenu::default(),
    });
    // One decision, and whether it is the run's first (for step-less cases).
    let found = conn
        .prepare_cached(&format!(
            "{DECISION_COLUMNS} WHERE run_id = ?1 AND step = ?2"
        ))?
        .query_row(params![run_id, step], decision_row)
        .optional()?;
    let Some(d) = found else {
        let steps: Vec<String> = crate::store::decisions::run_steps(conn, run_id)
            .unwrap_or_default()
            .iter()
            .map(|s| s.to_string())
            .collect();
        return Err(crate::error::Error::usage(if steps.is_empty() {
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
        findings: super::findings::decision_findings(conn, run_id, step)?,
    })
}
