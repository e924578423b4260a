//! Stored menus read straight from their bytes, for scans over every
//! decision: a dense retrieval's k and candidate ids, a name list's ids and
//! a dense policy's fields, without building strings. Each reader accepts
//! exactly what the full decoders (`dense.rs`, `decode.rs`) accept or says
//! `None`, and the caller then decodes the long way.

use super::dense;

/// The next character of UTF-8 `b` from `*i` (at most 4 bytes, continuation
/// bytes checked), moving `*i` past it.
#[inline]
fn next_char(b: &[u8], i: &mut usize) -> Option<u32> {
    let c0 = *b.get(*i)?;
    // The usual characters first: one byte, or two (never overlong from
    // 0xc2 on).
    if c0 < 0x80 {
        *i += 1;
        return Some(u32::from(c0));
    }
    if (0xc2..=0xdf).contains(&c0) {
        let c1 = *b.get(*i + 1)?;
        if c1 & 0xc0 != 0x80 {
            return None;
        }
        *i += 2;
        return Some((u32::from(c0 & 0x1f) << 6) | u32::from(c1 & 0x3f));
    }
    let (len, init) = match c0 {
        0x00..=0x7f => (1, u32::from(c0)),
        0xc2..=0xdf => (2, u32::from(c0 & 0x1f)),
        0xe0..=0xef => (3, u32::from(c0 & 0x0f)),
        0xf0..=0xf4 => (4, u32::from(c0 & 0x07)),
        _ => return None,
    };
    let mut c = init;
    for k in 1..len {
        let b = *b.get(*i + k)?;
        if b & 0xc0 != 0x80 {
            return None;
        }
        c = (c << 6) | u32::from(b & 0x3f);
    }
    // No overlong form, no surrogate, nothing past U+10FFFF (as `str`).
    let least = [0, 0, 0x80, 0x800, 0x1_0000][len];
    if c < least || (0xd800..=0xdfff).contains(&c) || c > 0x10_ffff {
        return None;
    }
    *i += len;
    Some(c)
}

/// The number a dense character stands for (`dense::value`).
fn value(c: u32) -> Option<u64> {
    c.checked_sub(0x20).map(u64::from)
}

/// A dense retrieval's k and candidate ids into `ids`; `None` when
/// `dense::retrieval_parts` would not read it.
pub(super) fn retrieval_ids(b: &[u8], ids: &mut Vec<u64>) -> Option<u32> {
    ids.clear();
    if b.first() != Some(&(dense::RETRIEVAL as u8)) {
        return None;
    }
    let mut i = 1;
    let mut next = || -> Option<Option<u64>> {
        if i == b.len() {
            return Some(None);
        }
        Some(Some(value(next_char(b, &mut i)?)?))
    };
    let k = u32::try_from(next()??).ok()?;
    next()??;
    next()??;
    if next()?? > 6 {
        return None;
    }
    while let Some(id) = next()? {
        // Each candidate has its score's character.
        next()??;
        ids.push(id);
    }
    Some(k)
}

/// The ids of a stored name list, dense (`l` and a character per id) or
/// plain (`[1,2]`: no spaces, no leading zeros, at most 18 digits each),
/// into `ids`; `None` for any other text.
pub(super) fn list_ids(b: &[u8], ids: &mut Vec<u64>) -> Option<()> {
    ids.clear();
    if b.first() == Some(&(dense::LIST as u8)) {
        let mut i = 1;
        while i < b.len() {
            ids.push(value(next_char(b, &mut i)?)?);
        }
        return Some(());
    }
    let inner = b.strip_prefix(b"[")?.strip_suffix(b"]")?;
    if inner.is_empty() {
        return Some(());
    }
    // One pass: digits, a comma between numbers.
    let (mut n, mut digits, mut zero) = (0u64, 0, false);
    for &c in inner {
        if c == b',' {
            if digits == 0 {
                return None;
            }
            ids.push(n);
            (n, digits, zero) = (0, 0, false);
        } else if c.is_ascii_digit() && digits < 18 && !zero {
            zero = digits == 0 && c == b'0';
            n = n * 10 + u64::from(c - b'0');
            digits += 1;
        } else {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    ids.push(n);
    Some(())
}

/// A dense policy's fields: whether open-world tools pass, the effect
/// ceiling as written and the allowed families (none escaped), or `None`
/// for any other text (decoded the long way).
pub(super) fn policy_fields(body: &str) -> Option<(bool, &str, Vec<&str>)> {
    let rest = body.strip_prefix(dense::POLICY)?;
    let open = match rest.as_bytes().first()? {
        b't' => true,
        b'f' => false,
        _ => return None,
    };
    let (effect, families) = rest[1..].split_once('"')?;
    if families.contains('\\') || families.bytes().any(|b| b < 0x20) {
        return None;
    }
    let mut out = Vec::new();
    if !families.is_empty() {
        let inner = families.strip_prefix('"')?.strip_suffix('"')?;
        for f in inner.split("\",\"") {
            if f.contains('"') {
                return None;
            }
            out.push(f);
        }
    }
    Some((open, effect, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_retrieval_reads_as_the_full_decoder_reads_it() {
        let body = dense::retrieval_body(3, 70000, &[(5, Some(0.5)), (300, None), (7, Some(0.25))])
            .unwrap();
        let mut ids = Vec::new();
        assert_eq!(retrieval_ids(body.as_bytes(), &mut ids), Some(3));
        assert_eq!(ids, [5, 300, 7]);
        let (k, _, pairs) = dense::retrieval_parts(&body).unwrap();
        assert_eq!(
            (k, pairs.iter().map(|p| p.0).collect::<Vec<_>>()),
            (3, ids.clone())
        );
        // A candidate without its score, or a bad scale: not read.
        assert_eq!(
            retrieval_ids(&body.as_bytes()[..body.len() - 1], &mut ids),
            None
        );
        assert_eq!(dense::retrieval_parts(&body[..body.len() - 1]), None);
        assert_eq!(retrieval_ids("r#  '".as_bytes(), &mut ids), None);
        assert_eq!(retrieval_ids(b"{\"k\":3}", &mut ids), None);
    }

    #[test]
    fn name_lists_read_dense_or_plain() {
        let mut ids = Vec::new();
        let dense = dense::list_body(&[1, 11, 400]).unwrap();
        assert_eq!(list_ids(dense.as_bytes(), &mut ids), Some(()));
        assert_eq!(ids, [1, 11, 400]);
        assert_eq!(list_ids(b"[1,11,0,305]", &mut ids), Some(()));
        assert_eq!(ids, [1, 11, 0, 305]);
        assert_eq!(list_ids(b"[]", &mut ids), Some(()));
        assert!(ids.is_empty());
        for other in ["[1, 2]", "[01]", "[1,]", "[\"a\"]", "1,2", "[-1]"] {
            assert_eq!(list_ids(other.as_bytes(), &mut ids), None, "{other}");
        }
    }

    #[test]
    fn dense_policies_read_their_fields() {
        let json = r#"{"allowed_families":["crm","billing"],"max_effect":"read_only","allow_open_world":true}"#;
        let body = dense::policy_body(json).unwrap();
        assert_eq!(
            policy_fields(&body),
            Some((true, "read_only", vec!["crm", "billing"]))
        );
        let none = dense::policy_body(
            r#"{"allowed_families":[],"max_effect":"none","allow_open_world":false}"#,
        )
        .unwrap();
        assert_eq!(policy_fields(&none), Some((false, "none", vec![])));
        let escaped = dense::policy_body(
            r#"{"allowed_families":["a\"b"],"max_effect":"none","allow_open_world":false}"#,
        )
        .unwrap();
        assert_eq!(policy_fields(&escaped), None);
    }
}
