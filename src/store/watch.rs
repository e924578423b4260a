//! Whether the database changed: SQLite's `data_version` moves when another
//! connection commits, so a viewer asks a cheap question now and then
//! instead of reading everything again (`rung serve` writes while the TUI
//! is open on the same file).

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::error::Result;

/// Whether `conn` has seen a commit by another connection since `last`
/// was taken (updating `last`). `None` the first time: nothing to compare.
pub fn changed_since(conn: &Connection, last: &mut Option<i64>) -> Result<bool> {
    let now: i64 = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
    let changed = last.is_some_and(|l| l != now);
    *last = Some(now);
    Ok(changed)
}

/// A read-only connection kept open to tell when the database changes.
pub struct ChangeWatch {
    conn: Connection,
    last: Option<i64>,
}

impl ChangeWatch {
    pub fn open(path: &Path) -> Result<ChangeWatch> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let mut w = ChangeWatch { conn, last: None };
        w.changed()?;
        Ok(w)
    }

    /// Whether another connection committed since the last call.
    pub fn changed(&mut self) -> Result<bool> {
        changed_since(&self.conn, &mut self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_elsewhere_is_seen_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER);")
            .unwrap();
        let mut w = ChangeWatch::open(&path).unwrap();
        assert!(!w.changed().unwrap());
        writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
        assert!(w.changed().unwrap());
        assert!(!w.changed().unwrap());
        // Its own reads change nothing.
        let n: i64 = w
            .conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert!(!w.changed().unwrap());
    }
}
