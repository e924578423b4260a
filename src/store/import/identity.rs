//! A record's identity: SHA-256 over every stored column, so that a record
//! imported twice is recognised and a changed one is not (docs/schema.md).
//! Changing what is hashed makes every stored record look changed.

use sha2::{Digest, Sha256};

use super::prepared::PreparedDecision;
use crate::model::Run;

/// Feeds stored columns to a hash, each framed so that no two different
/// rows can share a byte stream.
pub(super) struct ColumnHash(Sha256);

impl ColumnHash {
    pub(super) fn new() -> ColumnHash {
        ColumnHash(Sha256::new())
    }

    pub(super) fn text(&mut self, s: Option<&str>) {
        match s {
            None => self.0.update([0u8]),
            Some(s) => {
                self.0.update([1u8]);
                self.0.update((s.len() as u64).to_le_bytes());
                self.0.update(s.as_bytes());
            }
        }
    }

    pub(super) fn int(&mut self, i: Option<i64>) {
        match i {
            None => self.0.update([0u8]),
            Some(i) => {
                self.0.update([1u8]);
                self.0.update(i.to_le_bytes());
            }
        }
    }

    pub(super) fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// A decision's identity, from its prepared columns.
pub(super) fn decision(p: &PreparedDecision) -> [u8; 32] {
    let mut h = ColumnHash::new();
    h.text(Some(&p.run_id));
    h.int(Some(p.step));
    h.int(p.turn);
    h.int(p.at_us);
    for t in [
        &p.phase,
        &p.catalogue,
        &p.policy,
        &p.controls,
        &p.retrieval,
        &p.exposed,
        &p.visible,
        &p.selected,
        &p.call_id,
        &p.outcome,
    ] {
        h.text(t.as_deref());
    }
    h.int(p.latency_ms.map(|l| l.to_bits() as i64));
    h.text(p.progress);
    for t in [&p.expected, &p.extra, &p.arguments, &p.result, &p.raw] {
        h.text(t.as_deref());
    }
    h.finish()
}

/// The columns of a run record as stored, serialised.
pub(super) struct RunColumns {
    pub policy: Option<String>,
    pub controls: Option<String>,
    pub retrieval: Option<String>,
    pub visible: Option<String>,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub tags: Option<String>,
    pub extra: Option<String>,
}

/// A run record's identity.
pub(super) fn run(r: &Run, c: &RunColumns) -> [u8; 32] {
    let mut h = ColumnHash::new();
    for t in [
        &Some(r.run_id.clone()),
        &r.task_id,
        &r.goal,
        &r.model,
        &r.menu.catalogue,
        &r.selector,
    ] {
        h.text(t.as_deref());
    }
    h.int(r.trial);
    h.text(r.intent.map(|i| i.as_str()));
    for t in [
        &c.policy,
        &c.controls,
        &c.retrieval,
        &c.visible,
        &c.started,
        &c.ended,
    ] {
        h.text(t.as_deref());
    }
    h.text(r.terminated.map(|t| t.as_str()));
    h.int(r.success.map(i64::from));
    h.int(r.harm.map(i64::from));
    for t in [&r.scope, &c.tags, &c.extra] {
        h.text(t.as_deref());
    }
    h.finish()
}

/// A case record's identity: its key, its label (sorted lists), note and
/// extra fields.
pub(super) fn case(
    key: &str,
    acceptable: &str,
    forbidden: &str,
    note: Option<&str>,
    extra: Option<&str>,
) -> [u8; 32] {
    let mut h = ColumnHash::new();
    for t in [Some(key), Some(acceptable), Some(forbidden), note, extra] {
        h.text(t);
    }
    h.finish()
}
