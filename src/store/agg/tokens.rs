//! `agg_tokens`' blob (schema 9): a key's (definition tokens, decisions)
//! pairs by tokens ascending, each as two LEB128 varints of zigzag values:
//! the tokens' difference from the pair before (from 0 for the first) and
//! the decisions.

use super::{Dim, Rows};

pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

pub(super) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn take(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// The pairs packed (zero counts left out).
pub(super) fn pack(pairs: impl IntoIterator<Item = (i64, i64)>) -> Vec<u8> {
    let mut sorted: Vec<(i64, i64)> = pairs.into_iter().filter(|p| p.1 != 0).collect();
    sorted.sort_unstable();
    let mut out = Vec::with_capacity(sorted.len() * 3);
    let mut last = 0i64;
    for (t, n) in sorted {
        put(&mut out, zigzag(t.wrapping_sub(last)));
        put(&mut out, zigzag(n));
        last = t;
    }
    out
}

/// The pairs of a packed blob, or `None` when it is not one.
pub(crate) fn unpack(bytes: &[u8]) -> Option<Vec<(i64, i64)>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut last = 0i64;
    while at < bytes.len() {
        let t = last.wrapping_add(unzigzag(take(bytes, &mut at)?));
        let n = unzigzag(take(bytes, &mut at)?);
        out.push((t, n));
        last = t;
    }
    Some(out)
}

/// A key's rows (as the count tables' generic rows: tokens → decisions).
pub(super) fn rows(bytes: &[u8]) -> Option<Rows> {
    Some(
        unpack(bytes)?
            .into_iter()
            .map(|(t, n)| (vec![Dim::Int(t)], vec![n]))
            .collect(),
    )
}

/// Rows packed.
pub(super) fn pack_rows(rows: &Rows) -> Vec<u8> {
    pack(rows.iter().filter_map(|(dims, c)| match dims.first() {
        Some(Dim::Int(t)) => Some((*t, c[0])),
        _ => None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_read_back_in_order_without_zeros() {
        let pairs = vec![(300, 2), (-5, 1), (0, 7), (1 << 40, 1), (17, 0)];
        let packed = pack(pairs);
        assert_eq!(
            unpack(&packed).unwrap(),
            vec![(-5, 1), (0, 7), (300, 2), (1 << 40, 1)]
        );
        // -5 → 9; +5 → 10; 7; +300 → 600 (two bytes); 2; ...
        assert_eq!(&packed[..6], &[9, 2, 10, 14, 0xd8, 0x04]);
        assert_eq!(unpack(&[0x80]), None);
        assert_eq!(unpack(&[]).unwrap(), vec![]);
    }
}
