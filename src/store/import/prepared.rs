//! Records made ready to be written, off the writing thread: a decision has
//! every column serialised (and its identity hashed) before the batch sees it.

use serde_json::Value;

use super::identity;
use crate::model::{Decision, MenuFields, Record, Timestamp};
use crate::store::classify::{KeptPayload, StoredDecision};
use crate::store::names::{MenuKey, menu_key};

/// A decision's payload (arguments, result and raw, as text) is kept in
/// memory for its run's audit up to this size.
const KEEP_MAX: usize = 64 << 10;

/// A record ready to be written: decisions (the bulk of any trace) have
/// every column serialised already.
pub enum Prepared {
    Decision(Box<PreparedDecision>),
    Other(Record),
    /// A decision (described) whose columns could not be written as JSON:
    /// the import stops at it.
    Unwritable(String, serde_json::Error),
}

impl Prepared {
    /// `line_len`: the size of the line the record came from, which bounds
    /// its payload's serialised size.
    pub fn with_size_hint(record: Record, line_len: usize) -> Prepared {
        match record {
            Record::Decision(d) => {
                let describe = format!("decision {} step {}", d.run_id, d.step);
                match PreparedDecision::new(*d, line_len) {
                    Ok(p) => Prepared::Decision(Box::new(p)),
                    Err(e) => Prepared::Unwritable(describe, e),
                }
            }
            other => Prepared::Other(other),
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            Prepared::Decision(d) => format!("decision {} step {}", d.run_id, d.step),
            Prepared::Other(r) => r.describe(),
            Prepared::Unwritable(describe, _) => describe.clone(),
        }
    }
}

/// A decision's columns as the store writes them, plus what classification
/// needs of it.
pub struct PreparedDecision {
    pub(super) run_id: String,
    pub(super) step: i64,
    pub(super) turn: Option<i64>,
    pub(super) at: Option<String>,
    pub(super) at_us: Option<i64>,
    pub(super) phase: Option<String>,
    pub(super) catalogue: Option<String>,
    pub(super) policy: Option<String>,
    pub(super) controls: Option<String>,
    pub(super) retrieval: Option<String>,
    pub(super) exposed: Option<String>,
    pub(super) visible: Option<String>,
    pub(super) selected: Option<String>,
    pub(super) call_id: Option<String>,
    pub(super) status: Option<&'static str>,
    pub(super) stage: Option<&'static str>,
    pub(super) reason: Option<String>,
    pub(super) outcome: Option<String>,
    pub(super) latency_ms: Option<f64>,
    pub(super) progress: Option<&'static str>,
    pub(super) expected: Option<String>,
    pub(super) extra: Option<String>,
    pub(super) arguments: Option<String>,
    pub(super) result: Option<String>,
    pub(super) raw: Option<String>,
    pub(super) stored: StoredDecision,
    /// The size of its payload's text (arguments, result, raw).
    pub(super) kept_bytes: usize,
    /// Whether `at` and `outcome` are stored (`pack::stored_at`,
    /// `pack::stored_outcome`: not when the views rebuild them).
    pub(super) at_stored: bool,
    pub(super) outcome_stored: bool,
    /// The retrieval's text up to its candidates, when it packs.
    pub(super) retrieval_head: Option<String>,
    /// What the head shares with other retrievals, and its key
    /// (`names::shared_head`).
    pub(super) retrieval_shared: Option<(String, MenuKey)>,
    /// The sharing keys of the menus: policy, trusted controls, retrieval,
    /// exposed, visible (hashed here, off the writing thread).
    pub(super) menu_keys: [Option<MenuKey>; 5],
    /// The record's identity: SHA-256 over every stored column.
    pub(super) hash: [u8; 32],
}

impl PreparedDecision {
    pub fn new(mut d: Decision, line_len: usize) -> serde_json::Result<PreparedDecision> {
        let [policy, controls, retrieval, visible] = menu_columns(&d.menu)?;
        let outcome = d.outcome.as_ref();
        let arguments_value = d.arguments.take();
        let arguments = arguments_value.as_ref().map(text);
        let raw_value = d.raw.take();
        let raw = raw_value.as_ref().map(text);
        let extra = extra_text(&d.extra);
        // Serialise the result last and drop the parsed value at once, so a
        // huge result is held at most twice.
        let mut result_value = None;
        let result = d
            .result
            .take()
            .map(|v| {
                if line_len > crate::memory::HUGE {
                    let t = text_sized(&v, line_len);
                    drop(v);
                    crate::memory::release();
                    t
                } else {
                    let t = text(&v);
                    result_value = Some(v);
                    Ok(t)
                }
            })
            .transpose()?;
        // A small payload is kept for the audit of its run (see `KeptPayload`).
        let kept_bytes = [&arguments, &result, &raw]
            .iter()
            .map(|t| t.as_ref().map_or(0, String::len))
            .sum::<usize>();
        let kept =
            (kept_bytes <= KEEP_MAX && (result.is_none() || result_value.is_some())).then(|| {
                Box::new(KeptPayload::new(
                    arguments_value,
                    result_value,
                    raw_value,
                    &d.extra,
                    outcome.and_then(|o| o.retryable),
                ))
            });
        d.extra = Value::Null;
        let retrieval_head = d
            .menu
            .retrieval
            .as_ref()
            .and_then(crate::store::names::retrieval_head);
        let retrieval_shared = match (&d.menu.retrieval, &retrieval_head) {
            (Some(r), Some(head)) => crate::store::names::shared_head(r.k, head),
            _ => None,
        };
        let mut p = PreparedDecision {
            retrieval_head,
            retrieval_shared,
            run_id: d.run_id.clone(),
            step: d.step,
            turn: d.turn,
            at: d.at.map(Timestamp::to_rfc3339),
            at_us: d.at.map(Timestamp::micros),
            phase: d.phase.clone(),
            catalogue: d.menu.catalogue.clone(),
            policy,
            controls,
            retrieval,
            exposed: json_opt(&d.exposed)?,
            visible,
            selected: d.selected.clone(),
            call_id: d.call_id.take(),
            status: outcome.map(|o| o.status.as_str()),
            stage: outcome.and_then(|o| o.stage).map(|s| s.as_str()),
            reason: outcome.and_then(|o| o.reason.clone()),
            outcome: outcome.map(serde_json::to_string).transpose()?,
            latency_ms: d.latency_ms,
            progress: d.progress.map(|p| p.as_str()),
            expected: json_opt(&d.expected)?,
            extra,
            arguments,
            result,
            raw,
            stored: StoredDecision::from_model(0, d),
            kept_bytes,
            at_stored: false,
            outcome_stored: false,
            menu_keys: [None; 5],
            hash: [0; 32],
        };
        p.stored.kept = kept;
        // What of `at` and `outcome` the views cannot rebuild (schema 5).
        p.at_stored = crate::store::pack::stored_own_at(p.at.as_deref(), p.at_us);
        p.outcome_stored = crate::store::pack::stored_outcome(
            p.outcome.as_deref(),
            p.status,
            p.stage,
            p.reason.as_deref(),
        )
        .is_some();
        p.hash = identity::decision(&p);
        // The three name lists share their keys (kind 2): a list stored as
        // one field's menu is the same row for the others (the trusted
        // controls that are also the visible menu, an exposed menu that
        // retrieval did not narrow).
        for (i, (t, kind)) in [
            (&p.policy, 1),
            (&p.controls, 2),
            (&p.retrieval, 3),
            (&p.exposed, 2),
            (&p.visible, 2),
        ]
        .into_iter()
        .enumerate()
        {
            p.menu_keys[i] = t.as_deref().map(|t| menu_key(kind, t));
        }
        Ok(p)
    }
}

pub(super) fn json_opt<T: serde::Serialize>(v: &Option<T>) -> serde_json::Result<Option<String>> {
    v.as_ref().map(serde_json::to_string).transpose()
}

/// A JSON value's compact text, as `Value`'s `Display` writes it, written
/// straight into bytes (`Display` goes through a formatter per piece: 2.5%
/// of an import's time went to it).
pub(super) fn text(v: &Value) -> String {
    text_into(v, Vec::new())
}

/// Serialises a value into a buffer sized up front (no doubling copies).
fn text_sized(v: &Value, size_hint: usize) -> serde_json::Result<String> {
    Ok(text_into(v, Vec::with_capacity(size_hint)))
}

fn text_into(v: &Value, mut out: Vec<u8>) -> String {
    // A `Value` always serialises (its keys are strings) into UTF-8.
    match serde_json::to_writer(&mut out, v) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => v.to_string(),
    }
}

pub(super) fn extra_text(v: &Value) -> Option<String> {
    match v {
        Value::Object(m) if m.is_empty() => None,
        other => Some(text(other)),
    }
}

/// A run's or decision's menu fields as stored: policy, trusted controls,
/// retrieval, visible.
pub(super) fn menu_columns(m: &MenuFields) -> serde_json::Result<[Option<String>; 4]> {
    Ok([
        json_opt(&m.policy)?,
        json_opt(&m.trusted_controls)?,
        json_opt(&m.retrieval)?,
        json_opt(&m.visible)?,
    ])
}
