//! The audit findings of one run (issue 12: `unsourced_id`,
//! `id_from_description`, `announced_no_call`, `write_under_inform`,
//! `menu_changed`, `repeated_call`), computed by
//! [`crate::ladder::audit::audit_run`] after the run's decisions are
//! classified, and recomputed whenever the run is: a new decision, a
//! catalogue that sets a tool's effect or changes its documents, new
//! cases, a replaced run record.
//!
//! It reads what classification does not: the run's goal, scope, intent and
//! recorded tool definitions, each decision's arguments, answer (`text`,
//! `raw`) and `retryable`, and the results of the decisions before the
//! last write that carries an identifier (only those can source one), each
//! in one query per run. A finding's detail is masked with the configured
//! redactor before it is stored.

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::params;
use rustc_hash::FxHashMap;
use serde_json::Value;

use super::context::{Context, effective, effective_with};
use super::stored::{StoredDecision, StoredMenu};
use crate::config::Config;
use crate::error::Result;
use crate::ladder::audit::{self, Announce, AuditRun, AuditStep, ToolDoc, identifiers};
use crate::ladder::{CatalogueView, EffectRules, Effects, ReasonTable, RecordedEffects};
use crate::model::{Effect, Intent, Status};
use crate::redact::Redactor;
use crate::store::decode::{Stored, Table};
use crate::text::echo;

/// The finding kinds computed here, for clearing a run's old ones.
const AUDIT_KINDS: &str = "'unsourced_id','id_from_description','announced_no_call',\
'write_under_inform','menu_changed','repeated_call'";

/// What the audit keeps across runs: the documents of each catalogue's
/// tools.
pub(crate) struct AuditCache {
    docs: HashMap<String, Arc<Vec<ToolDoc>>>,
}

impl AuditCache {
    /// A `[redact]` pattern that does not compile is an error (the
    /// configuration was checked when it was loaded or read back, but a
    /// finding stored unmasked is never the fallback).
    pub(crate) fn new(config: &Config) -> Result<AuditCache> {
        Redactor::new(&config.redact.patterns, false)?;
        Ok(AuditCache {
            docs: HashMap::new(),
        })
    }

    /// Forgets a catalogue's documents (it changed).
    pub(crate) fn forget(&mut self, version: &str) {
        self.docs.remove(version);
    }
}

/// What the audit reads of the configuration: its phrases, effects and
/// reasons (the classifying thread's own copy).
pub(super) struct AuditTools {
    announce: Announce,
    rules: EffectRules,
    reasons: ReasonTable,
}

impl AuditTools {
    pub(super) fn new(config: &Config) -> AuditTools {
        AuditTools {
            announce: config.announce(),
            rules: config.effect_rules(),
            reasons: config.reason_table(),
        }
    }
}

/// The documents of a catalogue's tools, cached.
fn docs(ctx: &mut Context<'_>, version: &str) -> Result<Arc<Vec<ToolDoc>>> {
    if let Some(d) = ctx.audit.docs.get(version) {
        return Ok(d.clone());
    }
    let mut stmt = ctx
        .conn
        .prepare_cached("SELECT name, record FROM tools WHERE catalogue = ?1 ORDER BY name")?;
    let mut rows = stmt.query([version])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let name: String = r.get(0)?;
        let row = || format!("row catalogue {} name {}", echo(version), echo(&name));
        let at = Stored::new(ctx.conn, Table::Tools, &row);
        let record: Option<Value> = at.json("record", r.get(1)?)?;
        if let Some(doc) = record.as_ref().and_then(ToolDoc::from_record) {
            out.push(doc);
        }
    }
    let out = Arc::new(out);
    ctx.audit.docs.insert(version.to_string(), out.clone());
    Ok(out)
}

/// What one decision adds to classification's view of it.
#[derive(Default)]
struct Payload {
    arguments: Option<Value>,
    result: Option<Value>,
    raw: Option<Value>,
    text: Option<String>,
    retryable: Option<bool>,
}

/// What the audit reads of the run record.
#[derive(Default)]
struct RunFacts {
    goal: Option<String>,
    scope: Option<String>,
    intent: Option<Intent>,
    /// `tool_definitions`, as the run recorded them.
    definitions: Option<Value>,
}

/// The run's goal, scope, intent and recorded tool definitions.
fn run_facts(ctx: &Context<'_>, run_id: &str) -> Result<RunFacts> {
    let mut stmt = ctx
        .conn
        .prepare_cached("SELECT goal, scope, intent, extra FROM runs WHERE run_id = ?1")?;
    let mut rows = stmt.query([run_id])?;
    let Some(r) = rows.next()? else {
        return Ok(RunFacts::default());
    };
    let row = || format!("row run_id {}", echo(run_id));
    let at = Stored::new(ctx.conn, Table::Runs, &row);
    let extra: Option<Value> = at.json("extra", r.get(3)?)?;
    Ok(RunFacts {
        goal: r.get(0)?,
        scope: r.get(1)?,
        intent: at.spelled_opt("intent", r.get(2)?, Intent::parse, Intent::spellings)?,
        definitions: extra.and_then(|mut e| e.get_mut("tool_definitions").map(Value::take)),
    })
}

/// Each decision's arguments, answer (`text`, `raw`: every decision's, as
/// an earlier answer tells where an id was last seen, and a call refused or
/// failed at the representation stage may have been written in words) and
/// `retryable` (read only where `repeated_call` looks at it: a refused or
/// failed decision). Results are read later, only where needed. One query
/// per run.
fn payloads(ctx: &Context<'_>, run_id: &str, decisions: &[StoredDecision]) -> Result<Vec<Payload>> {
    let mut stmt = ctx.conn.prepare_cached(concat!(
        "SELECT d.id, p.arguments, ",
        crate::store::pack::outcome_text!("d"),
        ", p.raw, d.extra
             FROM decision_rows d LEFT JOIN payloads p ON p.decision_id = d.id
             WHERE d.run_id = ?1"
    ))?;
    let index: FxHashMap<i64, usize> = decisions
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id, i))
        .collect();
    let mut out: Vec<Payload> = decisions.iter().map(|_| Payload::default()).collect();
    let mut rows = stmt.query([run_id])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        // A decision the pass does not hold (none: it holds the whole run).
        let Some(&i) = index.get(&id) else { continue };
        let d = &decisions[i];
        let row = || format!("row id {} (run {} step {})", d.id, echo(run_id), d.step);
        let payload = Stored::new(ctx.conn, Table::Payloads, &row);
        let decision = Stored::new(ctx.conn, Table::Decisions, &row);
        let retryable = if matches!(d.status, Some(Status::Refused | Status::Error)) {
            let outcome: Option<Value> = decision.json("outcome", r.get(2)?)?;
            outcome
                .as_ref()
                .and_then(|o| o.get("retryable"))
                .and_then(Value::as_bool)
        } else {
            None
        };
        let extra: Option<Value> = decision.json("extra", r.get(4)?)?;
        out[i] = Payload {
            arguments: payload.json("arguments", r.get(1)?)?,
            result: None,
            raw: payload.json("raw", r.get(3)?)?,
            text: extra
                .as_ref()
                .and_then(|e| e.get("text"))
                .and_then(Value::as_str)
                .map(str::to_string),
            retryable,
        };
    }
    Ok(out)
}

/// Reads the results of the first `n` decisions (one query).
fn read_results(
    ctx: &Context<'_>,
    run_id: &str,
    decisions: &[StoredDecision],
    payloads: &mut [Payload],
    n: usize,
) -> Result<()> {
    let Some(last) = decisions.get(n.saturating_sub(1)).filter(|_| n > 0) else {
        return Ok(());
    };
    let mut stmt = ctx.conn.prepare_cached(
        "SELECT d.id, p.result FROM decision_rows d JOIN payloads p ON p.decision_id = d.id
         WHERE d.run_id = ?1 AND d.step <= ?2 AND p.result IS NOT NULL",
    )?;
    let index: FxHashMap<i64, usize> = decisions[..n]
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id, i))
        .collect();
    let mut rows = stmt.query(params![run_id, last.step])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let Some(&i) = index.get(&id) else { continue };
        let d = &decisions[i];
        let row = || format!("row id {} (run {} step {})", d.id, echo(run_id), d.step);
        payloads[i].result =
            Stored::new(ctx.conn, Table::Payloads, &row).json("result", r.get(1)?)?;
    }
    Ok(())
}

/// What the audit of one run reads from the database, gathered by the
/// writer; [`AuditInput::findings`] computes its findings on the
/// classifying thread.
pub(super) struct AuditInput {
    run_menu: StoredMenu,
    decisions: Vec<StoredDecision>,
    /// Per decision: its catalogue's view and its tools' documents.
    catalogues: Vec<Option<Arc<CatalogueView>>>,
    docs: Vec<Arc<Vec<ToolDoc>>>,
    payloads: Vec<Payload>,
    facts: RunFacts,
    recorded: RecordedEffects,
    /// Kept results the audit does not read: freed on the classifying
    /// thread rather than the writer's.
    _unread: Vec<Option<Value>>,
}

/// Clears the old audit findings of one run whose decisions were just
/// classified (all of them, in step order) and reads what its audit needs
/// (`None`: a run without decisions has none). `fresh`: the run was never
/// classified, so it has no old findings to clear.
pub(super) fn gather(
    ctx: &mut Context<'_>,
    run_id: &str,
    run_menu: StoredMenu,
    decisions: Vec<StoredDecision>,
    fresh: bool,
) -> Result<Option<AuditInput>> {
    let conn = ctx.conn;
    if !fresh {
        conn.prepare_cached(&format!(
            "DELETE FROM finding_rows WHERE run_id = (SELECT id FROM finding_names WHERE name = ?1)
             AND kind IN (SELECT id FROM finding_kinds WHERE name IN ({AUDIT_KINDS}))"
        ))?
        .execute([run_id])?;
    }
    if decisions.is_empty() {
        return Ok(None);
    }
    let facts = run_facts(ctx, run_id)?;
    let recorded = facts
        .definitions
        .as_ref()
        .map(RecordedEffects::from_definitions)
        .unwrap_or_default();
    let mut decisions = decisions;
    // Decisions this batch just wrote carry their payloads (see
    // `KeptPayload`): read back only when some does not.
    let kept = decisions.iter().all(|d| d.kept.is_some());
    let mut kept_results = Vec::new();
    let mut payloads = if kept {
        decisions
            .iter_mut()
            .filter_map(|d| {
                let k = *d.kept.take()?;
                kept_results.push(k.result);
                Some(Payload {
                    // Lent to the run-level pass when it read them.
                    arguments: k.arguments.or_else(|| d.arguments.take()),
                    result: None,
                    raw: k.raw,
                    text: k.text,
                    retryable: k
                        .retryable
                        .filter(|_| matches!(d.status, Some(Status::Refused | Status::Error))),
                })
            })
            .collect()
    } else {
        decisions.iter_mut().for_each(|d| d.kept = None);
        payloads(ctx, run_id, &decisions)?
    };

    let mut catalogues = Vec::with_capacity(decisions.len());
    let mut cat_docs = Vec::with_capacity(decisions.len());
    for d in &decisions {
        let eff = effective(ctx, &d.menu, &run_menu)?;
        cat_docs.push(match eff.catalogue_name {
            Some(c) if eff.catalogue.is_some() => docs(ctx, c)?,
            _ => Arc::new(Vec::new()),
        });
        catalogues.push(eff.catalogue);
    }

    // Results can only source an identifier of a later write: read those
    // before the last write that carries one, and only then.
    let effects = Effects {
        rules: &ctx.effect_rules,
        recorded: &recorded,
    };
    let last_write =
        decisions
            .iter()
            .zip(&payloads)
            .zip(&catalogues)
            .rposition(|((d, p), catalogue)| {
                let effect = d
                    .selected
                    .as_deref()
                    .and_then(|t| effects.of(t, catalogue.as_deref()))
                    .map(|(e, _)| e);
                matches!(effect, Some(Effect::Mutating | Effect::Destructive))
                    && p.arguments
                        .as_ref()
                        .is_some_and(|a| !identifiers(a).is_empty())
            });
    if let Some(n) = last_write {
        if kept {
            // As `read_results` reads them: the first `n` decisions' results.
            for (p, r) in payloads.iter_mut().zip(&mut kept_results).take(n) {
                p.result = r.take();
            }
        } else {
            read_results(ctx, run_id, &decisions, &mut payloads, n)?;
        }
    }
    Ok(Some(AuditInput {
        run_menu,
        decisions,
        catalogues,
        docs: cat_docs,
        payloads,
        facts,
        recorded,
        _unread: kept_results,
    }))
}

impl AuditInput {
    /// Computes the run's audit findings, masked, onto `out` in order.
    pub(super) fn findings(
        &self,
        tools: &AuditTools,
        mask: &dyn Fn(&str) -> String,
        out: &mut Vec<super::pipe::Row>,
    ) {
        let run_docs = self
            .facts
            .definitions
            .as_ref()
            .map(ToolDoc::from_definitions)
            .unwrap_or_default();
        let menus: Vec<_> = self
            .decisions
            .iter()
            .zip(&self.catalogues)
            .map(|(d, c)| effective_with(&d.menu, &self.run_menu, c.clone()))
            .collect();
        let steps: Vec<AuditStep<'_>> = self
            .decisions
            .iter()
            .zip(&self.payloads)
            .zip(&menus)
            .zip(&self.docs)
            .map(|(((d, p), eff), docs)| AuditStep {
                step: d.step,
                turn: d.turn,
                phase: d.phase.as_deref(),
                menu: eff.menu(d.exposed.as_deref()),
                docs,
                selected: d.selected.as_deref(),
                status: d.status,
                stage: d.stage,
                reason: d.reason.as_deref(),
                retryable: p.retryable,
                arguments: p.arguments.as_ref(),
                result: p.result.as_ref(),
                text: p.text.as_deref(),
                raw: p.raw.as_ref(),
            })
            .collect();
        let input = AuditRun {
            goal: self.facts.goal.as_deref(),
            scope: self.facts.scope.as_deref(),
            intent: self.facts.intent,
            effects: Effects {
                rules: &tools.rules,
                recorded: &self.recorded,
            },
            definitions: &run_docs,
            reasons: &tools.reasons,
            announce: &tools.announce,
        };
        for f in audit::audit_run(&input, &steps) {
            out.push(super::pipe::Row {
                kind: f.kind,
                catalogue: menus[f.at].catalogue_name.map(str::to_string),
                step: Some(f.step),
                detail: f.detail(mask),
                tool: f.tool,
            });
        }
    }
}
