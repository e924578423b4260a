//! The smaller store of schema 5 (see `schema_v5.sql`): retrieval
//! candidates as characters, and a decision's `at` and `outcome` left out
//! where the other columns give them back byte for byte.
//!
//! Candidates: a packed retrieval's `p` is a string whose first character
//! is `0x80 + e` and then, per candidate, `0x80 + tool name id` and its
//! score: `0x7f` for none, else `0x80 + zigzag(n)` where the score is
//! `n / 10^e` (computed as SQLite computes `n / 1e…` in the view: one
//! correctly rounded division). A retrieval whose scores do not all come
//! back bit for bit so (or whose numbers do not fit) keeps schema 3's `c`.
//! Every character is a code point from 0x7f up to below the surrogates, so
//! the string needs no JSON escape and `unicode()` reads it in SQL.

use std::fmt::Write as _;

use rusqlite::{Connection, params};

use crate::error::Result;

/// A stored decision's `at` as the views show it, over a table aliased
/// `alias` (see `schema_v5.sql`).
macro_rules! at_text {
    ($alias:literal) => {
        concat!(
            "CASE WHEN ",
            $alias,
            ".at IS NULL THEN CASE WHEN ",
            $alias,
            ".at_us IS NOT NULL THEN strftime('%Y-%m-%dT%H:%M:%SZ', ",
            $alias,
            ".at_us / 1000000, 'unixepoch') END WHEN ",
            $alias,
            ".at = X'' THEN NULL ELSE ",
            $alias,
            ".at END"
        )
    };
}
pub(crate) use at_text;

/// A stored decision's `outcome` as the views show it, over a table
/// aliased `alias` (schema 7: a non-empty blob is the id, in decimal
/// digits, of the `menus` row holding its text; see `names::outcome_id`).
macro_rules! outcome_text {
    ($alias:literal) => {
        concat!(
            "CASE WHEN length(",
            $alias,
            ".outcome) > 0 AND typeof(",
            $alias,
            ".outcome) = 'blob' THEN (SELECT body FROM menus WHERE id = CAST(",
            $alias,
            ".outcome AS INTEGER)) WHEN ",
            $alias,
            ".outcome IS NULL THEN CASE WHEN ",
            $alias,
            ".status IS NULL THEN NULL WHEN ",
            $alias,
            ".stage IS NULL AND ",
            $alias,
            ".reason IS NULL THEN json_object('status', ",
            $alias,
            ".status) WHEN ",
            $alias,
            ".reason IS NULL THEN json_object('status', ",
            $alias,
            ".status, 'stage', ",
            $alias,
            ".stage) WHEN ",
            $alias,
            ".stage IS NULL THEN json_object('status', ",
            $alias,
            ".status, 'reason', ",
            $alias,
            ".reason) ELSE json_object('status', ",
            $alias,
            ".status, 'stage', ",
            $alias,
            ".stage, 'reason', ",
            $alias,
            ".reason) END WHEN ",
            $alias,
            ".outcome = X'' THEN NULL ELSE ",
            $alias,
            ".outcome END"
        )
    };
}
pub(crate) use outcome_text;

/// The first code point of a value.
const BASE: u32 = 0x80;
/// A candidate without a score.
const NO_SCORE: u32 = 0x7f;
/// Values stay below the surrogates (one to three UTF-8 bytes).
const LIMIT: u32 = 0xd800 - BASE;
/// The largest decimal exponent tried.
const MAX_E: i32 = 6;

fn push(out: &mut String, v: u32) -> Option<()> {
    (v < LIMIT).then_some(())?;
    out.push(char::from_u32(BASE + v)?);
    Some(())
}

fn zigzag(n: i64) -> Option<u32> {
    let z = if n >= 0 { n * 2 } else { -n * 2 - 1 };
    u32::try_from(z).ok()
}

fn unzigzag(z: u32) -> i64 {
    let z = z as i64;
    if z % 2 == 1 { -(z + 1) / 2 } else { z / 2 }
}

fn scale(e: i32) -> f64 {
    10f64.powi(e)
}

/// A score as `n` at exponent `e`, when `n / 10^e` is the very same f64.
fn fixed(s: f64, e: i32) -> Option<i64> {
    let n = (s * scale(e)).round();
    if !n.is_finite() || n.abs() > LIMIT as f64 {
        return None;
    }
    let n = n as i64;
    ((n as f64 / scale(e)).to_bits() == s.to_bits()).then_some(n)
}

/// The smallest exponent `e` at which every score is `n / 10^e` bit for
/// bit, with each score's `n` (also schema 7's, see `dense.rs`).
pub(super) fn fixed_scores(candidates: &[(i64, Option<f64>)]) -> Option<(i32, Vec<Option<i64>>)> {
    let e = (0..=MAX_E).find(|&e| {
        candidates
            .iter()
            .all(|(_, s)| s.is_none_or(|s| fixed(s, e).is_some()))
    })?;
    let n = candidates
        .iter()
        .map(|&(_, s)| match s {
            None => Some(None),
            Some(s) => fixed(s, e).map(Some),
        })
        .collect::<Option<Vec<_>>>()?;
    Some((e, n))
}

/// `n / 10^e` as the views compute it (one correctly rounded division).
pub(super) fn score(n: i64, e: i32) -> f64 {
    n as f64 / scale(e)
}

/// The `p` string of candidates (tool name id, score), or `None` when they
/// do not pack so.
pub(crate) fn candidates_text(candidates: &[(i64, Option<f64>)]) -> Option<String> {
    let (e, _) = fixed_scores(candidates)?;
    let mut out = String::with_capacity(1 + candidates.len() * 4);
    push(&mut out, e as u32)?;
    for &(id, score) in candidates {
        push(&mut out, u32::try_from(id).ok()?)?;
        match score {
            None => out.push(char::from_u32(NO_SCORE)?),
            Some(s) => push(&mut out, zigzag(fixed(s, e)?)?)?,
        }
    }
    Some(out)
}

/// The candidates of a `p` string; `None` when it is not one rung wrote.
pub(crate) fn candidates_from_text(p: &str) -> Option<Vec<(u64, Option<f64>)>> {
    let mut chars = p.chars().map(|c| c as u32);
    let e = chars.next()?.checked_sub(BASE)? as i32;
    if e > MAX_E {
        return None;
    }
    let mut out = Vec::new();
    while let Some(id) = chars.next() {
        let id = id.checked_sub(BASE)? as u64;
        let score = match chars.next()? {
            NO_SCORE => None,
            z => Some(unzigzag(z.checked_sub(BASE)?) as f64 / scale(e)),
        };
        out.push((id, score));
    }
    Some(out)
}

/// A packed retrieval's body: `head` (`{"k":…` with its `h` or selector
/// and query) then the candidates as `p`, else as schema 3's `c`.
pub(crate) fn retrieval_body(head: &str, candidates: &[(i64, Option<f64>)]) -> String {
    let mut body = String::with_capacity(head.len() + candidates.len() * 10 + 8);
    body.push_str(head);
    if let Some(p) = candidates_text(candidates) {
        body.push_str(",\"p\":\"");
        body.push_str(&p);
        body.push_str("\"}");
        return body;
    }
    body.push_str(",\"c\":[");
    for (i, (id, score)) in candidates.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        let _ = write!(body, "{id},");
        // A score read from JSON is finite, so it always serialises (as
        // serde_json writes it: the text read back is the same).
        match score.and_then(serde_json::Number::from_f64) {
            Some(n) => {
                let _ = write!(body, "{n}");
            }
            None => body.push_str("null"),
        }
    }
    body.push_str("]}");
    body
}

/// Converts what a schema-4 database holds to schema 5, in the migration's
/// transaction: packed retrievals' candidates to characters where they
/// come back bit for bit (`at` and `outcome` are done in SQL).
pub(crate) fn compact_existing(conn: &Connection) -> Result<()> {
    let rows: Vec<(i64, String)> = {
        let mut s = conn.prepare(
            "SELECT id, body FROM menus
             WHERE json_valid(body) AND json_type(body, '$.c') = 'array'
               AND json_type(body, '$.k') = 'integer' AND json_type(body, '$.p') IS NULL
             ORDER BY id",
        )?;
        s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    for (id, body) in rows {
        // rung wrote `c` last: `{…,"c":[id,score,…]}`.
        let Some(at) = body.rfind(",\"c\":[") else {
            continue;
        };
        let Some(flat) = body[at + 5..]
            .strip_suffix('}')
            .and_then(|c| serde_json::from_str::<Vec<Option<f64>>>(c).ok())
        else {
            continue;
        };
        if flat.len() % 2 != 0 {
            continue;
        }
        let Some(pairs) = flat
            .chunks(2)
            .map(|p| {
                let id = p[0].filter(|v| *v >= 0.0 && v.fract() == 0.0)? as i64;
                Some((id, p[1]))
            })
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        if candidates_text(&pairs).is_none() {
            continue;
        }
        let new = retrieval_body(&body[..at], &pairs);
        conn.prepare_cached("UPDATE menus SET body = ?2 WHERE id = ?1")?
            .execute(params![id, new])?;
    }
    Ok(())
}

/// A decision's `at` as stored: none when it is the whole-second UTC
/// rendering of `at_us` the views rebuild (`strftime`), else the text.
pub(crate) fn stored_at(at: Option<&str>, at_us: Option<i64>) -> Option<&str> {
    let (Some(text), Some(us)) = (at, at_us) else {
        return at;
    };
    if !whole_second_text(text, us) {
        return at;
    }
    match chrono::DateTime::from_timestamp_micros(us) {
        Some(t) if t.format("%Y-%m-%dT%H:%M:%SZ").to_string() == text => None,
        _ => at,
    }
}

/// Whether `text` can be the whole-second UTC rendering of `us`: a whole
/// second from 1970 on, in 20 characters (a four-digit year).
fn whole_second_text(text: &str, us: i64) -> bool {
    us >= 0 && us % 1_000_000 == 0 && text.len() == 20
}

/// Whether [`stored_at`] keeps `at` when `at` is the RFC 3339 text rung
/// writes for `at_us` itself (`Timestamp::to_rfc3339`, as an import does):
/// that text is the whole-second rendering exactly when `at_us` is a whole
/// second from 1970 on with a four-digit year, so nothing is formatted
/// again to compare.
pub(crate) fn stored_own_at(at: Option<&str>, at_us: Option<i64>) -> bool {
    let kept = match (at, at_us) {
        (Some(text), Some(us)) => !whole_second_text(text, us),
        (at, _) => at.is_some(),
    };
    debug_assert_eq!(kept, stored_at(at, at_us).is_some(), "{at:?} {at_us:?}");
    kept
}

/// A decision's `outcome` as stored: none when it says only its status,
/// stage and reason (the views rebuild it from those columns, in that
/// order, with `json_object`), else the text.
pub(crate) fn stored_outcome<'a>(
    outcome: Option<&'a str>,
    status: Option<&str>,
    stage: Option<&str>,
    reason: Option<&str>,
) -> Option<&'a str> {
    let (Some(text), Some(status)) = (outcome, status) else {
        return outcome;
    };
    let rebuilt = rebuilt_outcome(status, stage, reason);
    if rebuilt.as_deref() == Some(text) {
        None
    } else {
        outcome
    }
}

/// What the views' `json_object('status', …, 'stage', …, 'reason', …)`
/// writes, when the values need no escape SQLite and serde_json might
/// write differently (only printable ASCII other than `"` and `\`).
fn rebuilt_outcome(status: &str, stage: Option<&str>, reason: Option<&str>) -> Option<String> {
    let plain = |s: &str| {
        s.bytes()
            .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    };
    let mut out = String::from("{\"status\":\"");
    plain(status).then_some(())?;
    out.push_str(status);
    out.push('"');
    for (key, v) in [("stage", stage), ("reason", reason)] {
        if let Some(v) = v {
            plain(v).then_some(())?;
            let _ = write!(out, ",\"{key}\":\"{v}\"");
        }
    }
    out.push('}');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_come_back_bit_for_bit_or_stay_as_numbers() {
        let c = [
            (3, Some(0.941)),
            (4, None),
            (17, Some(-0.25)),
            (230, Some(1.0)),
        ];
        let p = candidates_text(&c).unwrap();
        // e = 3: 941 → 1882, -250 → 499, 1000 → 2000.
        assert_eq!(p.chars().count(), 1 + 2 * 4);
        let back = candidates_from_text(&p).unwrap();
        assert_eq!(back.len(), 4);
        for ((id, s), (bid, bs)) in c.iter().zip(&back) {
            assert_eq!(*id as u64, *bid);
            assert_eq!(s.map(f64::to_bits), bs.map(f64::to_bits));
        }
        // Not a short decimal, or -0.0: kept as schema 3 did.
        assert_eq!(candidates_text(&[(1, Some(0.30000000000000004))]), None);
        assert_eq!(candidates_text(&[(1, Some(-0.0))]), None);
        assert_eq!(candidates_text(&[(1, Some(1e9))]), None);
        assert_eq!(candidates_text(&[(60_000, Some(0.5))]), None);
        assert_eq!(
            retrieval_body("{\"k\":1", &[(1, Some(0.30000000000000004))]),
            "{\"k\":1,\"c\":[1,0.30000000000000004]}"
        );
        assert_eq!(candidates_from_text(""), None);
        assert_eq!(candidates_from_text("\u{80}\u{81}"), None);
        assert_eq!(candidates_text(&[]).as_deref(), Some("\u{80}"));
    }

    /// The view reads a packed score as `n / 10^e` in SQL; schema 4's as
    /// the number text serde_json wrote. Both render the same.
    #[test]
    fn sqlite_shows_a_packed_score_as_it_showed_the_number_text() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let mut scores: Vec<f64> = (-3000..3000).map(|i| i as f64 / 1000.0).collect();
        scores.extend((0..2000).map(|i| i as f64 / 100_000.0 + 0.123));
        scores.extend([0.1, 0.2, 0.7, 12.5, 3.0, 0.000001, 0.999999, 25.0]);
        let mut packed = 0;
        for s in scores {
            let Some(p) = candidates_text(&[(1, Some(s))]) else {
                continue;
            };
            packed += 1;
            let text = serde_json::Number::from_f64(s).unwrap().to_string();
            let old: String = conn
                .query_row(
                    "SELECT json_object('score', json_extract('[' || ?1 || ']', '$[0]'))",
                    [&text],
                    |r| r.get(0),
                )
                .unwrap();
            let new: String = conn
                .query_row(
                    "SELECT json_object('score',
                        (CASE WHEN z % 2 = 1 THEN -((z + 1) / 2) ELSE z / 2 END)
                        / CAST(substr('1000000', 1, e + 1) AS REAL))
                     FROM (SELECT unicode(substr(?1, 3, 1)) - 128 AS z,
                                  unicode(substr(?1, 1, 1)) - 128 AS e)",
                    [&p],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(new, old, "{s} ({text})");
        }
        assert!(packed > 7000, "{packed}");
    }

    #[test]
    fn at_and_outcome_are_left_out_only_where_they_come_back() {
        let us = 1_780_293_606_000_000;
        assert_eq!(stored_at(Some("2026-06-01T06:00:06Z"), Some(us)), None);
        for kept in ["2026-06-01T06:00:06.000Z", "2026-06-01T06:00:07Z"] {
            assert_eq!(stored_at(Some(kept), Some(us)), Some(kept));
        }
        assert_eq!(
            stored_at(Some("2026-06-01T06:00:06Z"), Some(us + 1)),
            Some("2026-06-01T06:00:06Z")
        );
        assert_eq!(stored_at(Some("x"), None), Some("x"));
        let o = |t, st, sg, r| stored_outcome(Some(t), Some(st), sg, r);
        assert_eq!(o("{\"status\":\"ok\"}", "ok", None, None), None);
        assert_eq!(
            o(
                "{\"status\":\"refused\",\"stage\":\"authorization\",\"reason\":\"not_permitted\"}",
                "refused",
                Some("authorization"),
                Some("not_permitted")
            ),
            None
        );
        for (t, r) in [
            ("{\"status\":\"ok\",\"message\":\"m\"}", None),
            (
                "{\"status\":\"refused\",\"reason\":\"a\\\"b\"}",
                Some("a\"b"),
            ),
            ("{\"status\":\"refused\",\"reason\":\"é\"}", Some("é")),
        ] {
            assert_eq!(o(t, "refused", None, r), Some(t));
        }
    }
}
