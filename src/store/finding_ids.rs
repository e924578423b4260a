//! Writing findings with the ids of their kind, catalogue and names
//! remembered: the classifier stores about one finding per decision, and
//! looking each name up again (or interning it, schema 5) for every one
//! of them was most of the cost of storing it.
//!
//! The ids are those the database holds within the current transaction:
//! a [`FindingIds`] lives no longer than one transaction (the
//! classification context of one import or reclassification), and ids are
//! never deleted within one, so a remembered id stays right. Names are
//! interned in the same order as before (catalogue, then task, run, tool),
//! so they get the same ids.

use rusqlite::{Connection, OptionalExtension};
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::model::FindingKind;

/// Names remembered at most (then forgotten and looked up again).
const MEMORY: usize = 100_000;

/// The ids of finding kinds, catalogues and names seen in this transaction.
#[derive(Default)]
pub(crate) struct FindingIds {
    kinds: FxHashMap<&'static str, Option<i64>>,
    catalogues: FxHashMap<String, i64>,
    names: FxHashMap<String, i64>,
}

impl FindingIds {
    /// Stores one finding (its detail packed where it can be).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn insert(
        &mut self,
        conn: &Connection,
        kind: FindingKind,
        catalogue: Option<&str>,
        task_id: Option<&str>,
        run_id: Option<&str>,
        step: Option<i64>,
        tool: Option<&str>,
        detail: &str,
    ) -> Result<()> {
        let packed = super::findings::pack_detail(detail, tool);
        self.insert_packed(
            conn,
            kind,
            catalogue,
            task_id,
            run_id,
            step,
            tool,
            detail,
            packed.as_deref(),
        )
    }

    /// [`FindingIds::insert`] with the detail already packed
    /// (`findings::pack_detail`'s answer), as another thread can pack it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn insert_packed(
        &mut self,
        conn: &Connection,
        kind: FindingKind,
        catalogue: Option<&str>,
        task_id: Option<&str>,
        run_id: Option<&str>,
        step: Option<i64>,
        tool: Option<&str>,
        detail: &str,
        packed: Option<&str>,
    ) -> Result<()> {
        let kind = self.kind(conn, kind)?;
        let catalogue = catalogue.map(|c| self.catalogue(conn, c)).transpose()?;
        let task_id = task_id.map(|n| self.name(conn, n)).transpose()?;
        let run_id = run_id.map(|n| self.name(conn, n)).transpose()?;
        let tool = tool.map(|n| self.name(conn, n)).transpose()?;
        conn.prepare_cached(
            "INSERT INTO finding_rows (kind, catalogue, task_id, run_id, step, tool, detail, packed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?
        .execute(rusqlite::params![
            kind,
            catalogue,
            task_id,
            run_id,
            step,
            tool,
            packed.unwrap_or(detail),
            packed.is_some()
        ])?;
        Ok(())
    }

    /// A kind's id (`None` for a kind the database lacks: the row then
    /// fails its NOT NULL constraint, as it always did).
    fn kind(&mut self, conn: &Connection, kind: FindingKind) -> Result<Option<i64>> {
        let name = kind.as_str();
        if let Some(id) = self.kinds.get(name) {
            return Ok(*id);
        }
        let id = conn
            .prepare_cached("SELECT id FROM finding_kinds WHERE name = ?1")?
            .query_row([name], |r| r.get(0))
            .optional()?;
        self.kinds.insert(name, id);
        Ok(id)
    }

    /// A catalogue version's `catalogue_ids` id, interned when new.
    pub(crate) fn catalogue(&mut self, conn: &Connection, version: &str) -> Result<i64> {
        if let Some(&id) = self.catalogues.get(version) {
            return Ok(id);
        }
        conn.prepare_cached("INSERT OR IGNORE INTO catalogue_ids (version) VALUES (?1)")?
            .execute([version])?;
        let id = conn
            .prepare_cached("SELECT id FROM catalogue_ids WHERE version = ?1")?
            .query_row([version], |r| r.get(0))?;
        if self.catalogues.len() >= MEMORY {
            self.catalogues.clear();
        }
        self.catalogues.insert(version.to_string(), id);
        Ok(id)
    }

    fn name(&mut self, conn: &Connection, name: &str) -> Result<i64> {
        if let Some(&id) = self.names.get(name) {
            return Ok(id);
        }
        conn.prepare_cached("INSERT OR IGNORE INTO finding_names (name) VALUES (?1)")?
            .execute([name])?;
        let id = conn
            .prepare_cached("SELECT id FROM finding_names WHERE name = ?1")?
            .query_row([name], |r| r.get(0))?;
        if self.names.len() >= MEMORY {
            self.names.clear();
        }
        self.names.insert(name.to_string(), id);
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored finding's kind, catalogue, task, run and tool ids.
    type Ids = (i64, Option<i64>, Option<i64>, Option<i64>, Option<i64>);
    type Shown = (String, Option<String>, Option<String>, Option<String>);

    fn rows(conn: &Connection) -> Vec<Ids> {
        conn.prepare("SELECT kind, catalogue, task_id, run_id, tool FROM finding_rows ORDER BY id")
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// Remembered ids are the ones interning names one finding at a time
    /// gives: catalogue, task, run, tool, in that order, each once.
    #[test]
    fn remembered_ids_match_the_interned_ones_and_read_back_by_name() {
        let store = crate::store::Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        let mut ids = FindingIds::default();
        let v = FindingKind::SchemaViolation;
        let m = FindingKind::MissingCall;
        for (kind, cat, task, run, step, tool) in [
            (v, Some("c1"), Some("t1"), Some("r1"), Some(1), Some("get")),
            (v, Some("c1"), Some("t1"), Some("r1"), Some(2), Some("get")),
            (m, Some("c2"), None, Some("r2"), None, Some("t1")),
            (v, None, Some("r2"), Some("r1"), Some(3), None),
        ] {
            ids.insert(conn, kind, cat, task, run, step, tool, "d")
                .unwrap();
        }
        // finding_names: t1 = 1, r1 = 2, get = 3, r2 = 4.
        assert_eq!(
            rows(conn),
            vec![
                (13, Some(1), Some(1), Some(2), Some(3)),
                (13, Some(1), Some(1), Some(2), Some(3)),
                (9, Some(2), None, Some(4), Some(1)),
                (13, None, Some(4), Some(2), None),
            ]
        );
        let shown: Vec<Shown> = conn
            .prepare("SELECT kind, catalogue, run_id, tool FROM findings ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            shown[2],
            (
                "missing_call".to_string(),
                Some("c2".to_string()),
                Some("r2".to_string()),
                Some("t1".to_string())
            )
        );
        let names: i64 = conn
            .query_row("SELECT count(*) FROM finding_names", [], |r| r.get(0))
            .unwrap();
        assert_eq!(names, 4);
    }

    /// Names interned before (by another writer in the same transaction)
    /// are found, not interned twice.
    #[test]
    fn a_name_stored_before_is_found() {
        let store = crate::store::Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        conn.execute_batch(
            "INSERT INTO finding_names (name) VALUES ('x'), ('r');
             INSERT INTO catalogue_ids (version) VALUES ('c0'), ('c');",
        )
        .unwrap();
        let mut ids = FindingIds::default();
        ids.insert(
            conn,
            FindingKind::RepeatedCall,
            Some("c"),
            None,
            Some("r"),
            Some(4),
            Some("x"),
            "d",
        )
        .unwrap();
        assert_eq!(rows(conn), vec![(19, Some(2), None, Some(2), Some(1))]);
    }
}
