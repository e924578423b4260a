//! The chunks of the payloads searched, remembered between searches (issue
//! 16): where each chunk ends and the indenter's state there depend only
//! on the stored bytes and the masking, so once a search has walked a
//! stretch of a payload, `n`, `N` and a search going round the end pass
//! over it again without working out the cuts (indenting and looking for
//! secrets at each) a second time. Bounded: a few payloads, a fixed number
//! of chunks each (16 bytes a chunk: 100 MB of payload is 1,600 chunks).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::store::browse::PayloadColumn;
use crate::tui::payload::Indent;

/// Payloads remembered at once (the oldest goes first).
const PAYLOADS: usize = 4;
/// Chunks remembered per payload (about 6 GB of payload).
const CHUNKS: usize = 100_000;

/// A payload: its decision, column and size (a payload imported again
/// with another size is another payload).
pub type PayloadKey = (i64, PayloadColumn, u64);

/// The chunks known of each payload searched lately, shared by the workers.
#[derive(Debug, Default)]
pub struct Chains(Mutex<Inner>);

#[derive(Debug, Default)]
struct Inner {
    chains: HashMap<PayloadKey, Chain>,
    /// Payloads in the order last used (the last is the newest).
    used: Vec<PayloadKey>,
}

/// A payload's chunks: start → (the state there, the length, the state at
/// the end).
#[derive(Debug, Default)]
struct Chain(BTreeMap<u64, (Indent, u32, Indent)>);

impl Chains {
    /// The chunk at `start` (entered in `state`), if known: its length and
    /// the state at its end.
    pub fn get(&self, key: PayloadKey, start: u64, state: Indent) -> Option<(usize, Indent)> {
        let inner = self.0.lock().ok()?;
        let &(st, len, end) = inner.chains.get(&key)?.0.get(&start)?;
        (st == state).then_some((len as usize, end))
    }

    /// Remembers the chunks `cuts` found: (start, state, length, end state).
    pub fn put(&self, key: PayloadKey, cuts: &[(u64, Indent, usize, Indent)]) {
        if cuts.is_empty() {
            return;
        }
        let Ok(mut inner) = self.0.lock() else {
            return;
        };
        inner.used.retain(|k| *k != key);
        inner.used.push(key);
        while inner.used.len() > PAYLOADS {
            let old = inner.used.remove(0);
            inner.chains.remove(&old);
        }
        let chain = inner.chains.entry(key).or_default();
        for &(start, st, len, end) in cuts {
            if chain.0.len() >= CHUNKS {
                break;
            }
            chain.0.insert(start, (st, len as u32, end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_cuts_by_start_and_state_and_forgets_old_payloads() {
        let c = Chains::default();
        let s0 = Indent::default();
        let mut s1 = Indent::default();
        s1.feed(b"{\"a\":[", None);
        let key = |id| (id, PayloadColumn::Result, 100);
        c.put(key(1), &[(0, s0, 40, s1), (40, s1, 60, s0)]);
        assert_eq!(c.get(key(1), 0, s0), Some((40, s1)));
        assert_eq!(c.get(key(1), 40, s1), Some((60, s0)));
        // Another state at the same start is another chunk.
        assert_eq!(c.get(key(1), 40, s0), None);
        assert_eq!(c.get((1, PayloadColumn::Raw, 100), 0, s0), None);
        for id in 2..=PAYLOADS as i64 + 1 {
            c.put(key(id), &[(0, s0, 100, s0)]);
        }
        assert_eq!(c.get(key(1), 0, s0), None, "the oldest went");
        assert_eq!(c.get(key(2), 0, s0), Some((100, s0)));
    }
}
