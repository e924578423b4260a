//! Keyset paging: a list's order and filter as a [`Spec`], read a page at a
//! time as `WHERE (key, id) > (?, ?) ORDER BY key, id LIMIT n`, never an
//! OFFSET, so the millionth row costs what the first does.

use rusqlite::types::{Value as Sql, ValueRef};
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
    /// The row's locator (`r.rowid`) when no index orders the list by
    /// `key`: a page around a key is then read in one pass over the list
    /// ([`Spec::around_in_one_pass`]) rather than two ordered reads and a
    /// count, each of which would read every row.
    pub one_pass: Option<&'a str>,
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

    /// `SELECT key, id, columns FROM ... WHERE ...` (the mapper sees
    /// `columns` from index 2).
    fn select_from(&self, columns: &str) -> String {
        format!(
            "SELECT {}, {}, {columns} {}",
            self.key,
            self.id_expr(),
            self.from_where
        )
    }

    /// [`Spec::fetch`]'s statement (`from`: it starts from a key).
    fn fetch_sql(&self, from: bool, inclusive: bool, forward: bool, n: usize) -> String {
        let mut sql = self.select_from(self.select);
        if from {
            sql.push_str(&self.cond(forward, inclusive));
        }
        sql.push(' ');
        sql.push_str(&self.order(forward));
        sql.push_str(&format!(" LIMIT {}", n + 1));
        sql
    }

    /// The statements that read every row of the list whatever the page:
    /// the next page's ordered read and, with [`Spec::one_pass`], the one
    /// pass (tests read their query plans).
    #[cfg(test)]
    pub(super) fn scans(&self, n: usize) -> Vec<String> {
        let mut out = vec![self.fetch_sql(true, false, true, n)];
        if let Some(locator) = self.one_pass {
            out.push(self.select_from(locator));
        }
        out
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
        let sql = self.fetch_sql(from.is_some(), inclusive, forward, n);
        let mut args = self.args.clone();
        if let Some(k) = from {
            args.extend(self.key_args(k));
        }
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
            Anchor::Around(k) if self.one_pass.is_some() => {
                self.around_in_one_pass(conn, k, n, map)?
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

    /// [`Anchor::Around`] `k` in one pass over the list: every row's key,
    /// id and locator ([`Spec::one_pass`]) are read once, the rows nearest
    /// `k` on either side kept (at most `n + 2`), and only those read whole
    /// by their locator. The rows before the page and the whole list are
    /// counted on the way. The same page as the two ordered reads and the
    /// count give, in a third of the reading.
    fn around_in_one_pass<T>(
        &self,
        conn: &Connection,
        k: &Key,
        n: usize,
        map: &dyn Fn(&Row<'_>) -> Result<T>,
    ) -> Result<Page<T>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let locator = self.one_pass.unwrap_or("rowid");
        let half = n / 2;
        let (want_before, want_after) = (half + 1, n - half + 1);
        let desc = self.desc;
        // Rows before `k` in the list's order: the nearest kept (a heap
        // whose top is the farthest); rows from `k` on: the same.
        let mut before: BinaryHeap<Reverse<Near>> = BinaryHeap::new();
        let mut after: BinaryHeap<Near> = BinaryHeap::new();
        let (mut all, mut below) = (0u64, 0u64);
        let mut stmt = conn.prepare_cached(&self.select_from(locator))?;
        let mut rows = stmt.query(params_from_iter(self.args.iter()))?;
        while let Some(r) = rows.next()? {
            all += 1;
            let (key, id) = (Part::of_ref(r.get_ref(0)?), Part::of_ref(r.get_ref(1)?));
            let order = |other: &Key| {
                let o = cmp_parts(key, Part::of(&other.0))
                    .then_with(|| cmp_parts(id, Part::of(&other.1)));
                if desc { o.reverse() } else { o }
            };
            if order(k).is_lt() {
                below += 1;
                // Kept when nearer `k` than the farthest kept.
                if before.len() == want_before
                    && before.peek().is_some_and(|f| order(&f.0.key).is_le())
                {
                    continue;
                }
                before.push(Reverse(Near::new(key, id, r.get(2)?, desc)));
                if before.len() > want_before {
                    before.pop();
                }
            } else {
                if after.len() == want_after && after.peek().is_some_and(|f| order(&f.key).is_ge())
                {
                    continue;
                }
                after.push(Near::new(key, id, r.get(2)?, desc));
                if after.len() > want_after {
                    after.pop();
                }
            }
        }
        drop(rows);
        let mut before: Vec<Near> = before.into_iter().map(|r| r.0).collect();
        before.sort();
        let more_before = before.len() > half;
        if more_before {
            before.remove(0);
        }
        let mut after = after.into_sorted_vec();
        let more_after = after.len() > n - half;
        after.truncate(n - half);
        let rows_before = below - before.len() as u64;
        let focus = before.len();
        let mut fetch = conn.prepare_cached(&format!(
            "{} AND {locator} = ?",
            self.select_from(self.select)
        ))?;
        let mut out = Vec::with_capacity(before.len() + after.len());
        for near in before.into_iter().chain(after) {
            let mut args = self.args.clone();
            args.push(Sql::Integer(near.at));
            let mut q = fetch.query(params_from_iter(args))?;
            // A row gone since the pass (another connection's write) is
            // left out, as a page read a moment later would.
            if let Some(r) = q.next()? {
                out.push(((r.get(0)?, r.get(1)?), map(r)?));
            }
        }
        Ok(Page {
            rows: out,
            before: Some(rows_before),
            total: Some(all),
            more_before,
            more_after,
            focus: Some(focus),
        })
    }
}

/// Orders two sort keys as SQLite's `ORDER BY` does (NULL, numbers,
/// text, blobs), so rows sorted in memory agree with the pages.
pub fn cmp_key(a: &Key, b: &Key) -> std::cmp::Ordering {
    cmp_parts(Part::of(&a.0), Part::of(&b.0))
        .then_with(|| cmp_parts(Part::of(&a.1), Part::of(&b.1)))
}

/// One part of a sort key as [`cmp_key`] orders it, borrowed.
#[derive(Clone, Copy)]
enum Part<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a [u8]),
    Blob(&'a [u8]),
}

impl<'a> Part<'a> {
    fn of(v: &'a Sql) -> Part<'a> {
        match v {
            Sql::Null => Part::Null,
            Sql::Integer(i) => Part::Int(*i),
            Sql::Real(r) => Part::Real(*r),
            Sql::Text(t) => Part::Text(t.as_bytes()),
            Sql::Blob(b) => Part::Blob(b),
        }
    }

    fn of_ref(v: ValueRef<'a>) -> Part<'a> {
        match v {
            ValueRef::Null => Part::Null,
            ValueRef::Integer(i) => Part::Int(i),
            ValueRef::Real(r) => Part::Real(r),
            ValueRef::Text(t) => Part::Text(t),
            ValueRef::Blob(b) => Part::Blob(b),
        }
    }

    /// The value as a key holds it.
    fn owned(self) -> Sql {
        match self {
            Part::Null => Sql::Null,
            Part::Int(i) => Sql::Integer(i),
            Part::Real(r) => Sql::Real(r),
            Part::Text(t) => Sql::Text(String::from_utf8_lossy(t).into_owned()),
            Part::Blob(b) => Sql::Blob(b.to_vec()),
        }
    }

    /// SQLite's classes in `ORDER BY`: NULL, numbers, text, blobs.
    fn class(self) -> u8 {
        match self {
            Part::Null => 0,
            Part::Int(_) | Part::Real(_) => 1,
            Part::Text(_) => 2,
            Part::Blob(_) => 3,
        }
    }
}

/// As SQLite orders values: NULL first, then numbers by value, texts by
/// their bytes (`BINARY`), blobs by theirs.
fn cmp_parts(a: Part<'_>, b: Part<'_>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Part::Int(p), Part::Int(q)) => p.cmp(&q),
        (Part::Int(p), Part::Real(q)) => (p as f64).partial_cmp(&q).unwrap_or(Ordering::Equal),
        (Part::Real(p), Part::Int(q)) => p.partial_cmp(&(q as f64)).unwrap_or(Ordering::Equal),
        (Part::Real(p), Part::Real(q)) => p.partial_cmp(&q).unwrap_or(Ordering::Equal),
        (Part::Text(p), Part::Text(q)) | (Part::Blob(p), Part::Blob(q)) => p.cmp(q),
        _ => a.class().cmp(&b.class()),
    }
}

/// A row kept by [`Spec::around_in_one_pass`]: its key and locator,
/// ordered as the list is.
struct Near {
    key: Key,
    at: i64,
    desc: bool,
}

impl Near {
    fn new(key: Part<'_>, id: Part<'_>, at: i64, desc: bool) -> Near {
        Near {
            key: (key.owned(), id.owned()),
            at,
            desc,
        }
    }
}

impl Ord for Near {
    fn cmp(&self, other: &Near) -> std::cmp::Ordering {
        let o = cmp_key(&self.key, &other.key);
        if self.desc { o.reverse() } else { o }
    }
}

impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Near) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Near {
    fn eq(&self, other: &Near) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Near {}

#[cfg(test)]
mod tests;
