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

/// What `decision_rows.record_hash` keeps of a decision's identity (schema
/// 13): the first 16 bytes of its SHA-256, enough to tell two decisions
/// apart, half the bytes of a column every decision has.
pub(super) fn kept(hash: &[u8; 32]) -> &[u8] {
    &hash[..16]
}

/// A stored `record_hash` is this identity: as [`kept`] (16 bytes), or
/// whole, as databases before schema 13 hold it (32 bytes).
pub(super) fn same(stored: &[u8], hash: &[u8; 32]) -> bool {
    stored == kept(hash) || stored == &hash[..]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_identity_is_the_hash_or_its_first_16_bytes() {
        let h: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
        assert_eq!(kept(&h), &h[..16]);
        assert!(same(kept(&h), &h), "as written since schema 13");
        assert!(same(&h, &h), "as written before");
        for other in [&h[..15], &h[..17], &h[..31], &[][..]] {
            assert!(!same(other, &h), "{} bytes", other.len());
        }
        let mut late = h;
        late[20] ^= 1;
        assert!(!same(&late, &h), "32 bytes are compared whole");
        let mut early = h;
        early[3] ^= 1;
        assert!(!same(&early[..16], &h));
    }
}
