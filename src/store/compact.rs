//! The smaller store of schema 4: a decision's source as one integer, a
//! retrieval's selector and query shared (see `schema_v4.sql`), and the
//! upgrade of a schema-3 database to it.

use std::collections::HashMap;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;

/// A stored source (`decision_rows.source`) as its `path:line` text, over
/// a table aliased `alias`.
macro_rules! source_text {
    ($alias:literal) => {
        concat!(
            "CASE WHEN ",
            $alias,
            ".source_at IS NOT NULL THEN (SELECT path FROM source_paths WHERE id = ",
            $alias,
            ".source_at >> 32) || ':' || (",
            $alias,
            ".source_at & 4294967295) ELSE ",
            $alias,
            ".source END"
        )
    };
}
pub(crate) use source_text;

/// Lines up to this number are packed with their path.
const MAX_LINE: u64 = u32::MAX as u64;

/// Splits `path:line` where the line reads back as written (no sign, no
/// leading zero) and fits in 32 bits.
fn split(source: &str) -> Option<(&str, u64)> {
    let (path, line) = source.rsplit_once(':')?;
    let n: u64 = line.parse().ok()?;
    (n <= MAX_LINE && n.to_string() == line).then_some((path, n))
}

/// The ids of source paths, looked up or added as a batch writes.
#[derive(Default)]
pub(crate) struct SourcePaths {
    ids: HashMap<String, i64>,
}

impl SourcePaths {
    /// The values to store for a source, `source` and `source_at`: NULL
    /// and `path id × 2^32 + line`, or the text itself and NULL when it
    /// does not split.
    pub(crate) fn value(&mut self, conn: &Connection, source: &str) -> Result<(Sql, Sql)> {
        let text = || Ok((Sql::Text(source.to_string()), Sql::Null));
        let Some((path, line)) = split(source) else {
            return text();
        };
        let id = match self.ids.get(path) {
            Some(&id) => id,
            None => {
                let found: Option<i64> = conn
                    .prepare_cached("SELECT id FROM source_paths WHERE path = ?1")?
                    .query_row([path], |r| r.get(0))
                    .optional()?;
                let id = match found {
                    Some(id) => id,
                    None => {
                        conn.prepare_cached("INSERT INTO source_paths (path) VALUES (?1)")?
                            .execute([path])?;
                        conn.last_insert_rowid()
                    }
                };
                self.ids.insert(path.to_string(), id);
                id
            }
        };
        if !(0..1 << 31).contains(&id) {
            return text();
        }
        Ok((Sql::Null, Sql::Integer((id << 32) | line as i64)))
    }
}

/// Converts what a schema-3 database holds to schema 4, in the migration's
/// transaction: sources to integers, retrieval heads shared.
pub(crate) fn compact_existing(conn: &Connection) -> Result<()> {
    let mut paths = SourcePaths::default();
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String)> = {
            let mut s = conn.prepare_cached(
                "SELECT id, source FROM decision_rows
                 WHERE id > ?1 AND source_at IS NULL AND typeof(source) = 'text'
                 ORDER BY id LIMIT 5000",
            )?;
            s.query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            break;
        };
        after = last.0;
        for (id, source) in rows {
            let (text, at) = paths.value(conn, &source)?;
            if let Sql::Integer(_) = at {
                conn.prepare_cached(
                    "UPDATE decision_rows SET source = ?2, source_at = ?3 WHERE id = ?1",
                )?
                .execute(params![id, text, at])?;
            }
        }
    }
    // Packed retrievals with a selector or a query: the head moves to a
    // row of its own, one per distinct head.
    let rows: Vec<(i64, String, String, String)> = {
        let mut s = conn.prepare(
            "SELECT id, body -> '$.k', json_remove(body, '$.c', '$.k'), body -> '$.c'
             FROM menus
             WHERE json_valid(body) AND json_type(body, '$.c') = 'array'
               AND json_type(body, '$.k') = 'integer'
               AND json_type(body, '$.h') IS NULL
               AND (json_type(body, '$.selector') IS NOT NULL
                    OR json_type(body, '$.query') IS NOT NULL)
             ORDER BY id",
        )?;
        s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    let mut heads: HashMap<String, i64> = HashMap::new();
    for (id, k, head, c) in rows {
        let head_id = match heads.get(&head) {
            Some(&h) => h,
            None => {
                conn.prepare_cached("INSERT INTO menus (body) VALUES (?1)")?
                    .execute([&head])?;
                let h = conn.last_insert_rowid();
                heads.insert(head, h);
                h
            }
        };
        conn.prepare_cached("UPDATE menus SET body = ?2 WHERE id = ?1")?
            .execute(params![
                id,
                format!("{{\"k\":{k},\"h\":{head_id},\"c\":{c}}}")
            ])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn sources_split_only_where_they_read_back() {
        assert_eq!(split("a/b.jsonl:12"), Some(("a/b.jsonl", 12)));
        assert_eq!(split("c:/x.jsonl:3"), Some(("c:/x.jsonl", 3)));
        assert_eq!(split("a.jsonl:012"), None);
        assert_eq!(split("a.jsonl:+1"), None);
        assert_eq!(split("a.jsonl"), None);
        assert_eq!(split("a.jsonl:4294967296"), None);
        assert_eq!(split("a.jsonl:4294967295"), Some(("a.jsonl", 4294967295)));
    }
}
