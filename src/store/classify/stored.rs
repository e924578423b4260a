//! What classification reads: a run's and its decisions' stored columns,
//! a task's cases and a catalogue version as the ladder sees it.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension};

use crate::error::Result;
use crate::ladder::{CaseRef, CatalogueView, ToolInfo};
use crate::model::{
    Decision, Effect, Label, MenuFields, Policy, Progress, Retrieval, Run, Stage, Status,
};
use crate::store::decode::{Stored, Table};
use crate::text::echo;

/// The menu fields of a run or decision as stored.
#[derive(Default)]
pub(crate) struct StoredMenu {
    pub(super) catalogue: Option<String>,
    pub(super) policy: Option<Policy>,
    pub(super) controls: Option<Vec<String>>,
    pub(super) retrieval: Option<Retrieval>,
    pub(super) visible: Option<Vec<String>>,
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
    pub(super) id: i64,
    pub(super) step: i64,
    pub(super) turn: i64,
    pub(super) at_us: Option<i64>,
    pub(super) phase: Option<String>,
    pub(super) menu: StoredMenu,
    pub(super) exposed: Option<Vec<String>>,
    pub(super) selected: Option<String>,
    pub(super) status: Option<Status>,
    pub(super) stage: Option<Stage>,
    pub(super) reason: Option<String>,
    pub(super) progress: Option<Progress>,
    pub(super) expected: Option<Label>,
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

pub(super) struct StoredCase {
    pub(super) step: Option<i64>,
    pub(super) catalogue: Option<String>,
    pub(super) label: Label,
}

impl StoredCase {
    pub(super) fn as_ref(&self) -> CaseRef<'_> {
        CaseRef {
            step: self.step,
            catalogue: self.catalogue.as_deref(),
            label: (!self.label.acceptable.is_empty()).then_some(&self.label),
            expectations: None,
        }
    }
}

pub(crate) struct StoredRun {
    pub(super) task_id: Option<String>,
    pub(super) started_us: Option<i64>,
    pub(super) menu: StoredMenu,
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
    let mut stmt = conn.prepare_cached(
        "SELECT task_id, started_us, catalogue, policy, trusted_controls, retrieval, visible
         FROM runs WHERE run_id = ?1",
    )?;
    let mut rows = stmt.query([run_id])?;
    let Some(r) = rows.next()? else {
        return Ok(None);
    };
    let row = || format!("row run_id {}", echo(run_id));
    let at = Stored::new(conn, Table::Runs, &row);
    Ok(Some(StoredRun {
        task_id: r.get(0)?,
        started_us: r.get(1)?,
        menu: StoredMenu {
            catalogue: r.get(2)?,
            policy: at.policy("policy", r.get(3)?)?,
            controls: at.list("trusted_controls", r.get(4)?)?,
            retrieval: at.retrieval("retrieval", r.get(5)?)?,
            visible: at.list("visible", r.get(6)?)?,
        },
    }))
}

pub(super) const DECISION_COLUMNS: &str = "SELECT id, step, turn, at_us, phase, catalogue, policy,
    trusted_controls, retrieval, exposed, visible, selected, status, stage, reason, progress,
    expected FROM decisions";

/// A row of [`DECISION_COLUMNS`] of run `run_id`.
pub(super) fn decision_row(
    conn: &Connection,
    run_id: &str,
    r: &rusqlite::Row<'_>,
) -> Result<StoredDecision> {
    let id: i64 = r.get(0)?;
    let step: i64 = r.get(1)?;
    let row = || format!("row id {id} (run {} step {step})", echo(run_id));
    let at = Stored::new(conn, Table::Decisions, &row);
    Ok(StoredDecision {
        id,
        step,
        turn: r.get::<_, Option<i64>>(2)?.unwrap_or(step),
        at_us: r.get(3)?,
        phase: r.get(4)?,
        menu: StoredMenu {
            catalogue: r.get(5)?,
            policy: at.policy("policy", r.get(6)?)?,
            controls: at.list("trusted_controls", r.get(7)?)?,
            retrieval: at.retrieval("retrieval", r.get(8)?)?,
            visible: at.list("visible", r.get(10)?)?,
        },
        exposed: at.list("exposed", r.get(9)?)?,
        selected: r.get(11)?,
        status: at.spelled_opt("status", r.get(12)?, Status::parse, Status::spellings)?,
        stage: at.spelled_opt("stage", r.get(13)?, Stage::parse, Stage::spellings)?,
        reason: r.get(14)?,
        progress: at.spelled_opt("progress", r.get(15)?, Progress::parse, Progress::spellings)?,
        expected: at.label("expected", r.get(16)?)?,
    })
}

/// A run's decisions in step order.
pub(crate) fn load_decisions(conn: &Connection, run_id: &str) -> Result<Vec<StoredDecision>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{DECISION_COLUMNS} WHERE run_id = ?1 ORDER BY step"
    ))?;
    let mut rows = stmt.query([run_id])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(decision_row(conn, run_id, r)?);
    }
    Ok(out)
}

/// The cases of a task.
pub(super) fn load_cases(conn: &Connection, task_id: &str) -> Result<Vec<StoredCase>> {
    let mut stmt = conn.prepare_cached(
        "SELECT key, step, catalogue, acceptable, forbidden FROM cases WHERE task_id = ?1",
    )?;
    let mut rows = stmt.query([task_id])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let key: String = r.get(0)?;
        let row = || format!("row key {key}");
        let at = Stored::new(conn, Table::Cases, &row);
        let label = at.label_lists(("acceptable", r.get(3)?), ("forbidden", r.get(4)?))?;
        out.push(StoredCase {
            step: r.get(1)?,
            catalogue: r.get(2)?,
            label: label.ok_or_else(|| {
                at.damaged("acceptable", "a case without an acceptable set".to_string())
            })?,
        });
    }
    Ok(out)
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
    let mut rows = stmt.query([version])?;
    let mut tools = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let name: String = r.get(0)?;
        let row = || format!("row catalogue {} name {}", echo(version), echo(&name));
        let at = Stored::new(conn, Table::Tools, &row);
        let info = ToolInfo {
            family: r.get(1)?,
            effect: at.spelled("effect", r.get(2)?, Effect::parse, Effect::spellings)?,
            open_world: r.get(3)?,
            idempotent: r.get(4)?,
            tokens: r.get::<_, i64>(5)? as u64,
        };
        tools.insert(name, info);
    }
    Ok(Some(CatalogueView {
        version: version.to_string(),
        abstain,
        tools,
    }))
}
