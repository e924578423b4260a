//! The denser menus of schema 7 (see `schema_v7.sql`): a `menus` row's
//! name list, packed retrieval or policy as a short string of characters
//! instead of JSON, rebuilt byte for byte by the `decisions` view (in SQL)
//! and by the decoders (`decode.rs`).
//!
//! A number `v` is the one character U+0020 + v (so up to 94 takes one
//! UTF-8 byte, up to 2,014 two, below the surrogates three); the first
//! character says the kind, which no JSON text starts with:
//! - `l`: a name list, one `tool_names` id per character (`[]` is `l`);
//! - `r`: a packed retrieval: `k`; its head's `menus` id `h` (0: none) as
//!   `h >> 15` and `h & 32767`; the exponent `e`; then per candidate its
//!   `tool_names` id and its score: 0 for none, else 1 + zigzag(n − m)
//!   where the score is `n / 10^e` (as in schema 5, see `pack.rs`) and `m`
//!   the previous scored candidate's `n` (0 for the first): ranked scores
//!   differ by little, so most take one byte;
//! - `p`: a policy `{"allowed_families":[F],"max_effect":"M",
//!   "allow_open_world":B}` as `p`, `t` or `f` for B, M, `"`, then F as
//!   written (M holds no `"`).
//!
//! A value that does not fit (a number past the surrogates) keeps schema
//! 5's JSON form, which every reader still reads.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params};

use super::names::is_packed_list;
use super::pack;
use crate::error::Result;

/// The character of the number 0.
const OFF: u32 = 0x20;
/// Numbers stay below the surrogates.
const LIMIT: u64 = (0xd800 - OFF) as u64;
/// A head id is split into `h >> SPLIT` and `h & (2^SPLIT - 1)`.
const SPLIT: u32 = 15;

/// The first character of a dense name list.
pub(crate) const LIST: char = 'l';
/// The first character of a dense retrieval.
pub(crate) const RETRIEVAL: char = 'r';
/// The first character of a dense policy.
pub(crate) const POLICY: char = 'p';

fn push(out: &mut String, v: u64) -> Option<()> {
    (v < LIMIT).then_some(())?;
    out.push(char::from_u32(OFF + v as u32)?);
    Some(())
}

fn value(c: char) -> Option<u64> {
    (c as u32).checked_sub(OFF).map(u64::from)
}

fn zigzag(n: i64) -> Option<u64> {
    let z = if n >= 0 {
        n.checked_mul(2)?
    } else {
        n.checked_mul(-2)?.checked_sub(1)?
    };
    u64::try_from(z).ok()
}

fn unzigzag(z: u64) -> i64 {
    let z = z as i64;
    if z % 2 == 1 { -(z + 1) / 2 } else { z / 2 }
}

/// A name list of `tool_names` ids, or `None` when an id does not fit.
pub(crate) fn list_body(ids: &[i64]) -> Option<String> {
    let mut out = String::with_capacity(1 + ids.len() * 2);
    out.push(LIST);
    for &id in ids {
        push(&mut out, u64::try_from(id).ok()?)?;
    }
    Some(out)
}

/// The ids of a dense list; `None` when it is not one rung wrote.
pub(crate) fn list_ids(body: &str) -> Option<Vec<u64>> {
    body.strip_prefix(LIST)?.chars().map(value).collect()
}

/// A packed retrieval: `k`, its head's menus id (0: none) and its
/// candidates (tool name id, score); `None` when they do not pack so.
pub(crate) fn retrieval_body(
    k: u32,
    head: i64,
    candidates: &[(i64, Option<f64>)],
) -> Option<String> {
    let (e, fixed) = pack::fixed_scores(candidates)?;
    let head = u64::try_from(head).ok()?;
    let mut out = String::with_capacity(5 + candidates.len() * 3);
    out.push(RETRIEVAL);
    push(&mut out, u64::from(k))?;
    push(&mut out, head >> SPLIT)?;
    push(&mut out, head & ((1 << SPLIT) - 1))?;
    push(&mut out, e as u64)?;
    let mut last = 0i64;
    for (&(id, _), n) in candidates.iter().zip(fixed) {
        push(&mut out, u64::try_from(id).ok()?)?;
        match n {
            None => push(&mut out, 0)?,
            Some(n) => {
                push(&mut out, zigzag(n.checked_sub(last)?)?.checked_add(1)?)?;
                last = n;
            }
        }
    }
    Some(out)
}

/// A dense retrieval's `k`, head id and candidates; `None` when it is not
/// one rung wrote.
pub(crate) type DenseRetrieval = (u32, u64, Vec<(u64, Option<f64>)>);

/// Reads [`retrieval_body`]'s string back.
pub(crate) fn retrieval_parts(body: &str) -> Option<DenseRetrieval> {
    let mut values = body.strip_prefix(RETRIEVAL)?.chars().map(value);
    let k = u32::try_from(values.next()??).ok()?;
    let head = (values.next()?? << SPLIT) + values.next()??;
    let e = values.next()??;
    if e > 6 {
        return None;
    }
    let mut out = Vec::new();
    let mut last = 0i64;
    while let Some(id) = values.next() {
        let score = match values.next()?? {
            0 => None,
            z => {
                last += unzigzag(z - 1);
                Some(pack::score(last, e as i32))
            }
        };
        out.push((id?, score));
    }
    Some((k, head, out))
}

const POLICY_HEAD: &str = "{\"allowed_families\":[";
const POLICY_EFFECT: &str = "],\"max_effect\":\"";
const POLICY_OPEN: &str = "\",\"allow_open_world\":";

/// A policy's JSON as a dense string, when it has that one shape.
pub(crate) fn policy_body(json: &str) -> Option<String> {
    let rest = json.strip_prefix(POLICY_HEAD)?.strip_suffix('}')?;
    let (rest, open) = match rest.strip_suffix("true") {
        Some(r) => (r, 't'),
        None => (rest.strip_suffix("false")?, 'f'),
    };
    let rest = rest.strip_suffix(POLICY_OPEN)?;
    let at = rest.rfind(POLICY_EFFECT)?;
    let (families, effect) = (&rest[..at], &rest[at + POLICY_EFFECT.len()..]);
    if effect.contains('"') {
        return None;
    }
    Some(format!("{POLICY}{open}{effect}\"{families}"))
}

/// A dense policy's JSON (what [`policy_body`] was given).
pub(crate) fn policy_json(body: &str) -> Option<String> {
    let rest = body.strip_prefix(POLICY)?;
    let open = match rest.chars().next()? {
        't' => "true",
        'f' => "false",
        _ => return None,
    };
    let (effect, families) = rest[1..].split_once('"')?;
    Some(format!(
        "{POLICY_HEAD}{families}{POLICY_EFFECT}{effect}{POLICY_OPEN}{open}}}"
    ))
}

/// The first character of a dense inline label (`decision_rows.expected`).
pub(crate) const LABEL: char = 'e';

/// Whether a name is written the same by serde_json and SQLite's JSON
/// functions (printable ASCII other than `"` and `\`).
fn plain(name: &str) -> bool {
    name.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

/// An inline label's JSON as rung writes it (`{"acceptable":[…],
/// "forbidden":[…]}`), when its names are plain: what the view rebuilds.
pub(crate) fn label_json(acceptable: &[String], forbidden: &[String]) -> Option<String> {
    let mut out = String::from("{\"acceptable\":[");
    for (i, list) in [acceptable, forbidden].into_iter().enumerate() {
        if i == 1 {
            out.push_str("],\"forbidden\":[");
        }
        for (j, n) in list.iter().enumerate() {
            plain(n).then_some(())?;
            if j > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(n);
            out.push('"');
        }
    }
    out.push_str("]}");
    Some(out)
}

/// An inline label as `e`, its acceptable names' ids, the number 0, its
/// forbidden names' ids (tool name ids are never 0).
pub(crate) fn label_body(acceptable: &[i64], forbidden: &[i64]) -> Option<String> {
    let mut out = String::with_capacity(2 + acceptable.len() + forbidden.len());
    out.push(LABEL);
    for &id in acceptable {
        push(&mut out, u64::try_from(id).ok().filter(|&v| v > 0)?)?;
    }
    push(&mut out, 0)?;
    for &id in forbidden {
        push(&mut out, u64::try_from(id).ok().filter(|&v| v > 0)?)?;
    }
    Some(out)
}

/// A dense label's acceptable and forbidden ids.
pub(crate) fn label_ids(body: &str) -> Option<(Vec<u64>, Vec<u64>)> {
    let values: Vec<u64> = body
        .strip_prefix(LABEL)?
        .chars()
        .map(value)
        .collect::<Option<_>>()?;
    let at = values.iter().position(|&v| v == 0)?;
    let (a, f) = (&values[..at], &values[at + 1..]);
    if f.contains(&0) {
        return None;
    }
    Some((a.to_vec(), f.to_vec()))
}

/// Converts the menus an older database holds (schema 5's forms) to schema 7, in the
/// migration's transaction: packed lists, retrievals with `p` and policies
/// of the one shape become dense; the rest stays as it is.
pub(crate) fn compact_existing(conn: &Connection) -> Result<()> {
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String)> = {
            let mut s = conn.prepare_cached(
                "SELECT id, body FROM menus WHERE id > ?1 ORDER BY id LIMIT 10000",
            )?;
            s.query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            break;
        };
        after = last.0;
        for (id, body) in rows {
            let Some(new) = dense_of(&body) else {
                continue;
            };
            conn.prepare_cached("UPDATE menus SET body = ?2 WHERE id = ?1")?
                .execute(params![id, new])?;
        }
    }
    let mut packer = super::names::Packer::default();
    // Inline labels.
    rewrite_texts(conn, "expected", |conn, text| {
        Ok(packer.label_body(conn, text)?.map(Sql::Text))
    })?;
    // Outcomes the views do not rebuild: each distinct text once in `menus`.
    rewrite_texts(conn, "outcome", |conn, text| {
        Ok(Some(Sql::Blob(packer.outcome_id(conn, text)?)))
    })?;
    Ok(())
}

/// Rewrites each text in `decision_rows.column` to what `f` gives for it
/// (left as it is where `f` gives nothing), ten thousand rows at a time.
fn rewrite_texts(
    conn: &Connection,
    column: &str,
    mut f: impl FnMut(&Connection, &str) -> Result<Option<Sql>>,
) -> Result<()> {
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String)> = {
            let mut s = conn.prepare_cached(&format!(
                "SELECT id, {column} FROM decision_rows
                 WHERE id > ?1 AND typeof({column}) = 'text' ORDER BY id LIMIT 10000"
            ))?;
            s.query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = last.0;
        for (id, text) in rows {
            if let Some(new) = f(conn, &text)? {
                conn.prepare_cached(&format!(
                    "UPDATE decision_rows SET {column} = ?2 WHERE id = ?1"
                ))?
                .execute(params![id, new])?;
            }
        }
    }
}

/// What a schema-5-form menu body becomes in schema 7, if it changes.
fn dense_of(body: &str) -> Option<String> {
    if is_packed_list(body) || body == "[]" {
        return list_body(&serde_json::from_str::<Vec<i64>>(body).ok()?);
    }
    if body.starts_with(POLICY_HEAD) {
        return policy_body(body);
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Packed {
        k: u32,
        #[serde(default)]
        h: i64,
        p: String,
    }
    let r: Packed = serde_json::from_str(body).ok()?;
    let candidates: Vec<(i64, Option<f64>)> = pack::candidates_from_text(&r.p)?
        .into_iter()
        .map(|(id, s)| Some((i64::try_from(id).ok()?, s)))
        .collect::<Option<_>>()?;
    retrieval_body(r.k, r.h, &candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_come_back_and_small_ids_take_one_byte() {
        let body = list_body(&[1, 2, 94, 95, 228]).unwrap();
        assert_eq!(body, "l!\"~\u{7f}\u{104}");
        assert_eq!(body.len(), 1 + 3 + 1 + 2);
        assert_eq!(list_ids(&body), Some(vec![1, 2, 94, 95, 228]));
        assert_eq!(list_body(&[]).as_deref(), Some("l"));
        assert_eq!(list_ids("l"), Some(vec![]));
        assert_eq!(list_body(&[0xd800 - 0x20]), None);
        assert_eq!(list_body(&[-1]), None);
        assert_eq!(list_ids("l\u{1f}"), None);
        assert_eq!(list_ids("[1]"), None);
    }

    #[test]
    fn retrievals_come_back_bit_for_bit() {
        let c = [
            (3, Some(0.941)),
            (4, None),
            (17, Some(0.915)),
            (230, Some(1.0)),
            (5, Some(-0.25)),
        ];
        let body = retrieval_body(11, 212_305, &c).unwrap();
        // r, k, 212305 >> 15 = 6 and 212305 & 32767 = 15697, e = 3, then
        // 941 (1 + 1882), none, 915 (-26: 1 + 51), 1000 (85: 1 + 170),
        // -250 (-1250: 1 + 2499).
        let values: Vec<u32> = body.chars().skip(1).map(|c| c as u32 - 0x20).collect();
        assert_eq!(
            values,
            [11, 6, 15697, 3, 3, 1883, 4, 0, 17, 52, 230, 171, 5, 2500]
        );
        let (k, head, back) = retrieval_parts(&body).unwrap();
        assert_eq!((k, head), (11, 212_305));
        assert_eq!(back.len(), c.len());
        for ((id, s), (bid, bs)) in c.iter().zip(&back) {
            assert_eq!(*id as u64, *bid);
            assert_eq!(s.map(f64::to_bits), bs.map(f64::to_bits));
        }
        assert_eq!(retrieval_body(2, 0, &[]).as_deref(), Some("r\"  \u{20}"));
        assert_eq!(retrieval_parts("r\"  \u{20}"), Some((2, 0, vec![])));
        // Scores that are not short decimals keep schema 5's form.
        assert_eq!(
            retrieval_body(1, 0, &[(1, Some(0.30000000000000004))]),
            None
        );
        assert_eq!(retrieval_body(u32::MAX, 0, &[]), None);
        assert_eq!(retrieval_parts("r\"  \u{27}"), None);
        assert_eq!(retrieval_parts("r\"  \u{20}!"), None);
    }

    #[test]
    fn policies_of_the_one_shape_come_back_as_written() {
        for json in [
            "{\"allowed_families\":[\"wiki\",\"hr\"],\"max_effect\":\"read_only\",\"allow_open_world\":false}",
            "{\"allowed_families\":[],\"max_effect\":\"mutating\",\"allow_open_world\":true}",
            "{\"allowed_families\":[\"a\\\"],\\\"max_effect\\\":\\\"x\"],\"max_effect\":\"\",\"allow_open_world\":true}",
        ] {
            let body = policy_body(json).unwrap();
            assert_eq!(policy_json(&body).as_deref(), Some(json), "{body}");
        }
        assert_eq!(
            policy_body(
                "{\"allowed_families\":[\"wiki\"],\"max_effect\":\"read_only\",\"allow_open_world\":false}"
            )
            .as_deref(),
            Some("pfread_only\"\"wiki\"")
        );
        for kept in [
            "{\"allowed_families\":null,\"max_effect\":\"read_only\",\"allow_open_world\":false}",
            "{\"allowed_families\":[],\"max_effect\":null,\"allow_open_world\":false}",
            "{\"allowed_families\":[],\"max_effect\":\"a\\\"b\",\"allow_open_world\":false}",
            "{\"allowed_families\":[],\"max_effect\":\"x\",\"allow_open_world\":false,\"y\":1}",
        ] {
            assert_eq!(policy_body(kept), None, "{kept}");
        }
    }

    #[test]
    fn labels_come_back_and_only_plain_names_pack() {
        let a = ["get_x".to_string(), "list_y".to_string()];
        let f = ["drop_z".to_string()];
        assert_eq!(
            label_json(&a, &f).as_deref(),
            Some("{\"acceptable\":[\"get_x\",\"list_y\"],\"forbidden\":[\"drop_z\"]}")
        );
        assert_eq!(
            label_json(&[], &[]).as_deref(),
            Some("{\"acceptable\":[],\"forbidden\":[]}")
        );
        assert_eq!(label_json(&["a\"b".to_string()], &[]), None);
        assert_eq!(label_json(&[], &["é".to_string()]), None);
        let body = label_body(&[3, 200], &[7]).unwrap();
        assert_eq!(body, "e#\u{e8} '");
        assert_eq!(label_ids(&body), Some((vec![3, 200], vec![7])));
        assert_eq!(label_ids("e "), Some((vec![], vec![])));
        assert_eq!(label_body(&[0], &[]), None);
        assert_eq!(label_ids("e#"), None);
        assert_eq!(label_ids("e  "), None);
    }

    /// The view's SQL reads what the encoders write as the decoders do.
    #[test]
    fn the_view_rebuilds_what_the_decoders_read() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(include_str!("schema_v1.sql")).unwrap();
        for sql in [
            include_str!("schema_v2.sql"),
            include_str!("schema_v3.sql"),
            include_str!("schema_v4.sql"),
            include_str!("schema_v5.sql"),
            include_str!("schema_v7.sql"),
        ] {
            conn.execute_batch(sql).unwrap();
        }
        conn.execute_batch(
            "INSERT INTO tool_names (id, name) VALUES (1, 'a'), (2, 'b\"c'), (300, 'z');
             INSERT INTO menus (id, body) VALUES (7, '{\"selector\":\"s\",\"query\":\"q\"}');",
        )
        .unwrap();
        let policy =
            "{\"allowed_families\":[\"x\"],\"max_effect\":\"read_only\",\"allow_open_world\":true}";
        let bodies = [
            policy_body(policy).unwrap(),
            list_body(&[300, 1, 2]).unwrap(),
            retrieval_body(3, 7, &[(1, Some(0.5)), (2, None), (300, Some(0.25))]).unwrap(),
            list_body(&[]).unwrap(),
            retrieval_body(1, 0, &[(2, Some(12.5))]).unwrap(),
        ];
        for (i, b) in bodies.iter().enumerate() {
            conn.execute(
                "INSERT INTO menus (id, body) VALUES (?1, ?2)",
                params![10 + i as i64, b],
            )
            .unwrap();
        }
        conn.execute_batch(
            "INSERT INTO decision_rows (id, run_id, step, policy, trusted_controls, retrieval,
                 exposed, visible, record_hash)
             VALUES (1, 'r', 1, 10, 11, 12, 13, 11, X'00'), (2, 'r', 2, NULL, NULL, 14, NULL, 13, X'00');",
        )
        .unwrap();
        for (id, label) in [(1, label_body(&[300, 1], &[2])), (2, label_body(&[], &[]))] {
            conn.execute(
                "UPDATE decision_rows SET expected = ?2 WHERE id = ?1",
                params![id, label.unwrap()],
            )
            .unwrap();
        }
        let labels: Vec<String> = conn
            .prepare("SELECT expected FROM decisions ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            labels,
            [
                "{\"acceptable\":[\"z\",\"a\"],\"forbidden\":[\"b\\\"c\"]}",
                "{\"acceptable\":[],\"forbidden\":[]}"
            ]
        );
        let shown: Vec<[Option<String>; 5]> = conn
            .prepare("SELECT policy, trusted_controls, retrieval, exposed, visible FROM decisions ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?]))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            shown,
            [
                [
                    some(policy),
                    some("[\"z\",\"a\",\"b\\\"c\"]"),
                    some(
                        "{\"k\":3,\"selector\":\"s\",\"query\":\"q\",\"candidates\":[{\"name\":\"a\",\"score\":0.5},{\"name\":\"b\\\"c\"},{\"name\":\"z\",\"score\":0.25}]}"
                    ),
                    some("[]"),
                    some("[\"z\",\"a\",\"b\\\"c\"]"),
                ],
                [
                    None,
                    None,
                    some("{\"k\":1,\"candidates\":[{\"name\":\"b\\\"c\",\"score\":12.5}]}"),
                    None,
                    some("[]"),
                ],
            ]
        );
    }
}
