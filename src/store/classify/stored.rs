//! What classification reads: a run's and its decisions' stored columns,
//! a task's cases and a catalogue version as the ladder sees it.

use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;

use crate::error::Result;
use crate::ladder::schema::ToolSchemas;
use crate::ladder::{CaseRef, CatalogueView, RecordedEffects, ToolInfo, ToolMap};
use crate::model::{
    Decision, Effect, Expectations, Label, MenuFields, Policy, Progress, Retrieval, Run, Stage,
    Status,
};
use crate::store::decode::{Stored, Table};
use crate::store::names::Names;
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

/// A decision's own menu parts: trusted controls, retrieval, exposed,
/// visible.
pub(crate) type MenuParts<'a> = (
    Option<&'a [String]>,
    Option<&'a Retrieval>,
    Option<&'a [String]>,
    Option<&'a [String]>,
);

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
    /// The outcome's `message`.
    pub(super) message: Option<String>,
    /// The answer kept for a decision without a call (format v1.1).
    pub(super) text: Option<String>,
    /// Payload parts, read only when the run-level pass needs them
    /// ([`load_parts`]): `arguments` whole, `result` and `raw` as their text
    /// cut to [`PART_CHARS`].
    pub(super) arguments: Option<Value>,
    pub(super) result: Option<Value>,
    pub(super) raw: Option<Value>,
    /// What the audit reads of its payload, kept from the record just
    /// written (`None`: read back from the database).
    pub(crate) kept: Option<Box<KeptPayload>>,
}

/// What the audit reads of a decision's payload row and columns, kept from
/// the record as it was written: the very values that reading the stored
/// row back and decoding it gives, so that a run written by this batch is
/// audited without reading its payloads again.
#[derive(Default)]
pub(crate) struct KeptPayload {
    pub(super) arguments: Option<Value>,
    pub(super) result: Option<Value>,
    pub(super) raw: Option<Value>,
    /// `extra.text`, when a string.
    pub(super) text: Option<String>,
    /// The outcome's `retryable`.
    pub(super) retryable: Option<bool>,
}

impl KeptPayload {
    /// `arguments`, `result` and `raw` as written (their stored text is
    /// their compact JSON), `extra` and the outcome's `retryable`. A float
    /// is replaced by what its stored text decodes to (the parser is not
    /// exact to the last bit everywhere), as reading it back would give.
    pub(crate) fn new(
        arguments: Option<Value>,
        result: Option<Value>,
        raw: Option<Value>,
        extra: &Value,
        retryable: Option<bool>,
    ) -> KeptPayload {
        let mut kept = KeptPayload {
            arguments,
            result,
            raw,
            text: extra
                .get("text")
                .and_then(Value::as_str)
                .map(str::to_string),
            retryable,
        };
        for v in [&mut kept.arguments, &mut kept.result, &mut kept.raw]
            .into_iter()
            .flatten()
        {
            as_stored(v);
        }
        kept
    }
}

/// Replaces each float of `v` by the decoding of its JSON text.
fn as_stored(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(back) = serde_json::to_string(&*n)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Number>(&t).ok())
            {
                *n = back;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(as_stored),
        Value::Object(m) => m.values_mut().for_each(as_stored),
        _ => {}
    }
}

impl StoredDecision {
    pub(crate) fn step(&self) -> i64 {
        self.step
    }

    pub(crate) fn set_id(&mut self, id: i64) {
        self.id = id;
    }

    /// Its own menu parts as the writer packs them: trusted controls,
    /// retrieval, exposed, visible.
    pub(crate) fn menu_parts(&self) -> MenuParts<'_> {
        (
            self.menu.controls.as_deref(),
            self.menu.retrieval.as_ref(),
            self.exposed.as_deref(),
            self.menu.visible.as_deref(),
        )
    }

    /// A decision just written with row id `id`, kept for classification
    /// without reading it back.
    pub(crate) fn from_model(id: i64, d: Decision) -> StoredDecision {
        let (status, stage, reason, message) = match d.outcome {
            Some(o) => (Some(o.status), o.stage, o.reason, o.message),
            None => (None, None, None, None),
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
            message,
            text: d.text,
            arguments: None,
            result: None,
            raw: None,
            kept: None,
        }
    }
}

pub(super) struct StoredCase {
    pub(super) step: Option<i64>,
    pub(super) catalogue: Option<String>,
    /// None for a case that only carries expectations.
    pub(super) label: Option<Label>,
    pub(super) expectations: Option<Expectations>,
}

impl StoredCase {
    pub(super) fn as_ref(&self) -> CaseRef<'_> {
        CaseRef {
            step: self.step,
            catalogue: self.catalogue.as_deref(),
            label: self.label.as_ref().filter(|l| !l.acceptable.is_empty()),
            expectations: self.expectations.as_ref(),
        }
    }
}

pub(crate) struct StoredRun {
    pub(super) task_id: Option<String>,
    pub(super) started_us: Option<i64>,
    pub(super) menu: StoredMenu,
    /// Its recorded `success`, for `agreement_with_success`.
    pub(super) success: Option<bool>,
    /// The MCP annotations of its recorded `tool_definitions`.
    pub(super) recorded_effects: RecordedEffects,
    /// The tools of its recorded `tool_definitions`, with their argument
    /// schemas (`expectations.md` §8).
    pub(super) tool_schemas: ToolSchemas,
}

impl StoredRun {
    /// A run record just written, kept for classifying its decisions.
    pub(crate) fn from_model(r: Run) -> StoredRun {
        let defs = r.extra.get("tool_definitions");
        StoredRun {
            recorded_effects: defs
                .map(RecordedEffects::from_definitions)
                .unwrap_or_default(),
            tool_schemas: defs.map(ToolSchemas::from_definitions).unwrap_or_default(),
            task_id: r.task_id,
            started_us: r.started_at.map(|t| t.micros()),
            menu: r.menu.into(),
            success: r.success,
        }
    }

    /// A run known only from its decisions.
    pub(crate) fn bare() -> StoredRun {
        StoredRun {
            task_id: None,
            started_us: None,
            menu: StoredMenu::default(),
            success: None,
            recorded_effects: RecordedEffects::default(),
            tool_schemas: ToolSchemas::default(),
        }
    }
}

pub(crate) fn load_run(conn: &Connection, run_id: &str) -> Result<Option<StoredRun>> {
    let mut stmt = conn.prepare_cached(
        "SELECT task_id, started_us, catalogue, policy, trusted_controls, retrieval, visible,
                success,
                CASE WHEN json_valid(extra) THEN extra -> '$.tool_definitions' END
         FROM runs WHERE run_id = ?1",
    )?;
    let mut rows = stmt.query([run_id])?;
    let Some(r) = rows.next()? else {
        return Ok(None);
    };
    let row = || format!("row run_id {}", echo(run_id));
    let at = Stored::new(conn, Table::Runs, &row);
    // `->` gives the value as JSON text, whatever its type.
    let defs: Option<Value> = r
        .get::<_, Option<String>>(8)?
        .and_then(|d| serde_json::from_str(&d).ok());
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
        success: r.get(7)?,
        recorded_effects: defs
            .as_ref()
            .map(RecordedEffects::from_definitions)
            .unwrap_or_default(),
        tool_schemas: defs
            .as_ref()
            .map(ToolSchemas::from_definitions)
            .unwrap_or_default(),
    }))
}

pub(super) const DECISION_COLUMNS: &str = "SELECT id, step, turn, at_us, phase, catalogue,
    COALESCE((SELECT body FROM menus WHERE id = policy), policy),
    COALESCE((SELECT body FROM menus WHERE id = trusted_controls), trusted_controls),
    COALESCE((SELECT body FROM menus WHERE id = retrieval), retrieval),
    COALESCE((SELECT body FROM menus WHERE id = exposed), exposed),
    COALESCE((SELECT body FROM menus WHERE id = visible), visible),
    selected, status, stage, reason, progress, expected,
    CASE WHEN typeof(outcome) = 'blob' THEN
        (SELECT CASE WHEN json_valid(m.body) AND json_type(m.body, '$.message') = 'text'
                     THEN json_extract(m.body, '$.message') END
         FROM menus m WHERE m.id = CAST(outcome AS INTEGER))
    WHEN json_valid(outcome) THEN
        CASE WHEN json_type(outcome, '$.message') = 'text' THEN json_extract(outcome, '$.message') END
    END,
    CASE WHEN json_valid(extra) THEN
        CASE WHEN json_type(extra, '$.text') = 'text' THEN json_extract(extra, '$.text') END
    END
    FROM decision_rows";

/// A row of [`DECISION_COLUMNS`] of run `run_id`.
pub(super) fn decision_row(
    conn: &Connection,
    names: &Names,
    run_id: &str,
    r: &rusqlite::Row<'_>,
) -> Result<StoredDecision> {
    let id: i64 = r.get(0)?;
    let step: i64 = r.get(1)?;
    let row = || format!("row id {id} (run {} step {step})", echo(run_id));
    let at = Stored::new(conn, Table::Decisions, &row).with_names(names);
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
        message: r.get(17)?,
        text: r.get(18)?,
        arguments: None,
        result: None,
        raw: None,
        kept: None,
    })
}

/// The longest `result` or `raw` text the run-level pass reads, in
/// characters: error patterns and expected outputs look at this much.
pub(super) const PART_CHARS: i64 = 65_536;

/// Which payload parts [`load_parts`] reads.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Parts {
    /// Every decision's arguments (the run has expected calls).
    pub(super) arguments: bool,
    /// Every decision's raw output (the run has expected outputs).
    pub(super) raw: bool,
    /// The result of `error` outcomes without a message (error patterns).
    pub(super) error_results: bool,
}

/// Reads the payload parts the run-level pass needs into `decisions`.
pub(super) fn load_parts(
    conn: &Connection,
    run_id: &str,
    decisions: &mut [StoredDecision],
    parts: Parts,
) -> Result<()> {
    if !(parts.arguments || parts.raw || parts.error_results) {
        return Ok(());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT arguments,
            CASE WHEN ?2 THEN substr(CASE WHEN json_valid(raw) AND json_type(raw) = 'text'
                THEN json_extract(raw, '$') ELSE raw END, 1, ?4) END,
            CASE WHEN ?3 THEN substr(CASE WHEN json_valid(result) AND json_type(result) = 'text'
                THEN json_extract(result, '$') ELSE result END, 1, ?4) END
         FROM payloads WHERE decision_id = ?1",
    )?;
    for d in decisions.iter_mut() {
        let want_result =
            parts.error_results && d.status == Some(Status::Error) && d.message.is_none();
        if !(parts.arguments || parts.raw || want_result) {
            continue;
        }
        if !(parts.raw || want_result)
            && let Some(kept) = &mut d.kept
        {
            // Only the arguments, and this batch just wrote them: the audit
            // takes them back afterwards (`audit::gather`).
            d.arguments = kept.arguments.take();
            continue;
        }
        let mut rows = stmt.query(rusqlite::params![d.id, parts.raw, want_result, PART_CHARS])?;
        let Some(r) = rows.next()? else { continue };
        if parts.arguments
            && let Some(a) = r.get::<_, Option<String>>(0)?
        {
            let row = || {
                format!(
                    "row decision_id {} (run {} step {})",
                    d.id,
                    echo(run_id),
                    d.step
                )
            };
            d.arguments = Stored::new(conn, Table::Payloads, &row).json("arguments", Some(a))?;
        }
        d.raw = r.get::<_, Option<String>>(1)?.map(Value::String);
        d.result = r.get::<_, Option<String>>(2)?.map(Value::String);
    }
    Ok(())
}

/// A run's decisions in step order.
pub(crate) fn load_decisions(
    conn: &Connection,
    names: &Names,
    run_id: &str,
) -> Result<Vec<StoredDecision>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{DECISION_COLUMNS} WHERE run_id = ?1 ORDER BY step"
    ))?;
    let mut rows = stmt.query([run_id])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(decision_row(conn, names, run_id, r)?);
    }
    Ok(out)
}

/// The cases of a task.
pub(super) fn load_cases(conn: &Connection, task_id: &str) -> Result<Vec<StoredCase>> {
    let mut stmt = conn.prepare_cached(
        "SELECT key, step, catalogue, acceptable, forbidden, extra FROM cases WHERE task_id = ?1",
    )?;
    let mut rows = stmt.query([task_id])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let key: String = r.get(0)?;
        let row = || format!("row key {key}");
        let at = Stored::new(conn, Table::Cases, &row);
        // A case that only carries expectations stores `null` lists.
        let list = |i: usize| -> Result<Option<String>> {
            Ok(r.get::<_, Option<String>>(i)?.filter(|s| s != "null"))
        };
        let label = at.label_lists(("acceptable", list(3)?), ("forbidden", list(4)?))?;
        // The expectations are kept in `extra` (format v1.1).
        let expectations = match at.json::<Value>("extra", r.get(5)?)? {
            Some(extra @ Value::Object(_)) => {
                let e = crate::ingest::native::expectations(extra).map_err(|m| {
                    at.damaged(
                        "extra",
                        format!("the stored expectations do not read back ({m})"),
                    )
                })?;
                e.is_set().then_some(e)
            }
            _ => None,
        };
        if label.is_none() && expectations.is_none() {
            return Err(at.damaged(
                "acceptable",
                "a case with neither an acceptable set nor expectations".to_string(),
            ));
        }
        out.push(StoredCase {
            step: r.get(1)?,
            catalogue: r.get(2)?,
            label,
            expectations,
        });
    }
    Ok(out)
}

/// A catalogue version as the ladder sees it (first definitions win).
/// The argument schemas of a catalogue's tools (`expectations.md` §8).
pub(super) fn load_catalogue_schemas(conn: &Connection, version: &str) -> Result<ToolSchemas> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, CASE WHEN json_valid(record) THEN record -> '$.input_schema' END
         FROM tools WHERE catalogue = ?1",
    )?;
    let rows: Vec<(String, Option<Value>)> = stmt
        .query_map([version], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?
                    .and_then(|s| serde_json::from_str(&s).ok()),
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ToolSchemas::from_tools(
        rows.iter().map(|(n, s)| (n.as_str(), s.as_ref())),
    ))
}

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
    let mut tools = ToolMap::new();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept payload is what reading the stored row back gives: floats as
    /// their stored text decodes, `extra.text` when a string.
    #[test]
    fn a_kept_payload_holds_what_the_stored_row_decodes_to() {
        let text = r#"[6.934698245112694e+276, {"a": -2.693554001703998e+265, "n": 12}, 0.5, "x"]"#;
        let parsed: Value = serde_json::from_str(text).unwrap();
        let stored: Value = serde_json::from_str(&parsed.to_string()).unwrap();
        // (Without serde_json's `float_roundtrip`, which a dependency turns
        // on today, these floats do not come back as they were written.)
        let extra = serde_json::json!({"text": "done", "other": 1});
        let kept = KeptPayload::new(
            Some(parsed.clone()),
            Some(serde_json::json!({"r": parsed.clone()})),
            None,
            &extra,
            Some(true),
        );
        assert_eq!(kept.arguments.as_ref(), Some(&stored));
        assert_eq!(kept.result, Some(serde_json::json!({ "r": stored })));
        assert_eq!(kept.raw, None);
        assert_eq!(kept.text.as_deref(), Some("done"));
        assert_eq!(kept.retryable, Some(true));
        // `text` that is not a string is not an answer.
        let kept = KeptPayload::new(None, None, None, &serde_json::json!({"text": 3}), None);
        assert_eq!(kept.text, None);
    }
}
