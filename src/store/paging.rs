//! Keyset paging: a list's order and filter as a [`Spec`], read a page at a
//! time as `WHERE (key, id) > (?, ?) ORDER BY key, id LIMIT n`, never an
//! OFFSET, so the millionth row costs what the first does.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, Row, params_from_iter};

use crate::error::Result;

/// A row's position in a keyset order: the sort key and a unique tiebreak.
pub type Key = (Sql, Sql);

/// Where a page starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Anchor {
    First,
    Last,
    /// Rows strictly after this key.
    After(Key),
    /// Rows strictly before this key.
    Before(Key),
    /// A page centred on this key (the row itself included when it exists).
    Around(Key),
}

/// One page of a keyset-ordered list.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub rows: Vec<(Key, T)>,
    /// Rows before `rows[0]` in the whole list, when it was counted.
    pub before: Option<u64>,
    /// All rows of the list, when it was counted.
    pub total: Option<u64>,
    pub more_before: bool,
    pub more_after: bool,
    /// For `Around`: the index of the anchor row (or of the first row after it).
    pub focus: Option<usize>,
}

/// How one list is ordered and filtered.
pub(super) struct Spec<'a> {
    /// Columns after the key and id (the mapper sees them from index 2).
    pub select: &'a str,
    /// `FROM ... WHERE ...` without the keyset condition.
    pub from_where: String,
    pub args: Vec<Sql>,
    pub key: &'a str,
    /// A unique tiebreak; `None` when `key` is unique on its own.
    pub id: Option<&'a str>,
    pub desc: bool,
}

impl Spec<'_> {
    fn cond(&self, forward: bool, inclusive: bool) -> String {
        // forward = the list's own direction.
        let up = forward != self.desc;
        let op = match (up, inclusive) {
            (true, false) => ">",
            (true, true) => ">=",
            (false, false) => "<",
            (false, true) => "<=",
        };
        match self.id {
            Some(id) => format!(" AND ({}, {id}) {op} (?, ?)", self.key),
            None => format!(" AND {} {op} ?", self.key),
        }
    }

    fn order(&self, forward: bool) -> String {
        let dir = if forward != self.desc { "ASC" } else { "DESC" };
        match self.id {
            Some(id) => format!("ORDER BY {} {dir}, {id} {dir}", self.key),
            None => format!("ORDER BY {} {dir}", self.key),
        }
    }

    fn key_args(&self, k: &Key) -> Vec<Sql> {
        match self.id {
            Some(_) => vec![k.0.clone(), k.1.clone()],
            None => vec![k.0.clone()],
        }
    }

    fn id_expr(&self) -> &str {
        self.id.unwrap_or(self.key)
    }

    /// Up to `n` rows from `from` (exclusive unless `inclusive`), in the
    /// list's order when `forward`, else backwards; plus whether more follow.
    fn fetch<T>(
        &self,
        conn: &Connection,
        from: Option<&Key>,
        inclusive: bool,
        forward: bool,
        n: usize,
        map: &dyn Fn(&Row<'_>) -> Result<T>,
    ) -> Result<(Vec<(Key, T)>, bool)> {
        let mut sql = format!(
            "SELECT {}, {}, {} {}",
            self.key,
            self.id_expr(),
            self.select,
            self.from_where
        );
        let mut args = self.args.clone();
        if let Some(k) = from {
            sql.push_str(&self.cond(forward, inclusive));
            args.extend(self.key_args(k));
        }
        sql.push(' ');
        sql.push_str(&self.order(forward));
        sql.push_str(&format!(" LIMIT {}", n + 1));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        let mut out = Vec::with_capacity(n + 1);
        while let Some(r) = rows.next()? {
            let key: Sql = r.get(0)?;
            let id: Sql = r.get(1)?;
            out.push(((key, id), map(r)?));
        }
        let more = out.len() > n;
        out.truncate(n);
        Ok((out, more))
    }

    fn count(&self, conn: &Connection, before: Option<&Key>) -> Result<u64> {
        let mut sql = format!("SELECT count(*) {}", self.from_where);
        let mut args = self.args.clone();
        if let Some(k) = before {
            sql.push_str(&self.cond(false, false));
            args.extend(self.key_args(k));
        }
        let n: i64 = conn
            .prepare_cached(&sql)?
            .query_row(params_from_iter(args), |r| r.get(0))?;
        Ok(n as u64)
    }

    pub fn page<T>(
        &self,
        conn: &Connection,
        anchor: &Anchor,
        n: usize,
        map: &dyn Fn(&Row<'_>) -> Result<T>,
    ) -> Result<Page<T>> {
        self.page_counted(conn, anchor, n, map, None)
    }

    /// [`Spec::page`] for a list whose length is known (`total`, from
    /// counts kept elsewhere): it is not counted again.
    pub fn page_counted<T>(
        &self,
        conn: &Connection,
        anchor: &Anchor,
        n: usize,
        map: &dyn Fn(&Row<'_>) -> Result<T>,
        total: Option<u64>,
    ) -> Result<Page<T>> {
        let count_all = |conn: &Connection| match total {
            Some(t) => Ok(t),
            None => self.count(conn, None),
        };
        let n = n.max(1);
        Ok(match anchor {
            Anchor::First => {
                let (rows, more_after) = self.fetch(conn, None, false, true, n, map)?;
                let total = if more_after {
                    count_all(conn)?
                } else {
                    rows.len() as u64
                };
                Page {
                    rows,
                    before: Some(0),
                    total: Some(total),
                    more_before: false,
                    more_after,
                    focus: None,
                }
            }
            Anchor::Last => {
                let (mut rows, more_before) = self.fetch(conn, None, false, false, n, map)?;
                rows.reverse();
                let total = if more_before {
                    count_all(conn)?
                } else {
                    rows.len() as u64
                };
                Page {
                    before: Some(total - rows.len() as u64),
                    rows,
                    total: Some(total),
                    more_before,
                    more_after: false,
                    focus: None,
                }
            }
            Anchor::After(k) => {
                let (rows, more_after) = self.fetch(conn, Some(k), false, true, n, map)?;
                Page {
                    rows,
                    before: None,
                    total: None,
                    more_before: true,
                    more_after,
                    focus: None,
                }
            }
            Anchor::Before(k) => {
                let (mut rows, more_before) = self.fetch(conn, Some(k), false, false, n, map)?;
                rows.reverse();
                Page {
                    rows,
                    before: None,
                    total: None,
                    more_before,
                    more_after: true,
                    focus: None,
                }
            }
            Anchor::Around(k) => {
                let half = n / 2;
                let (mut rows, more_before) = self.fetch(conn, Some(k), false, false, half, map)?;
                rows.reverse();
                let focus = rows.len();
                let (after, more_after) = self.fetch(conn, Some(k), true, true, n - half, map)?;
                rows.extend(after);
                let before = if more_before {
                    self.count(conn, rows.first().map(|r| &r.0))?
                } else {
                    0
                };
                let total = if more_after || more_before {
                    count_all(conn)?
                } else {
                    rows.len() as u64
                };
                Page {
                    rows,
                    before: Some(before),
                    total: Some(total),
                    more_before,
                    more_after,
                    focus: Some(focus),
                }
            }
        })
    }
}

/// Orders two sort keys as SQLite's `ORDER BY` does (integers before
/// text), so rows sorted in memory agree with the pages.
pub fn cmp_key(a: &Key, b: &Key) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let one = |x: &Sql, y: &Sql| match (x, y) {
        (Sql::Integer(p), Sql::Integer(q)) => p.cmp(q),
        (Sql::Text(p), Sql::Text(q)) => p.cmp(q),
        (Sql::Integer(_), _) => Ordering::Less,
        (_, Sql::Integer(_)) => Ordering::Greater,
        _ => Ordering::Equal,
    };
    one(&a.0, &b.0).then_with(|| one(&a.1, &b.1))
}

#[cfg(test)]
mod tests;
