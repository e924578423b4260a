//! What an import marks for classifying again, kept in temporary tables
//! for the length of its transaction: runs, tasks and catalogue versions
//! touched, catalogues whose findings are due, runs already classified.

use rusqlite::Connection;

use super::Batch;
use crate::error::{RecordError, Result};

/// One way a record marks something for the end of the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Touch {
    /// A run whose decisions are classified at the end.
    Run,
    /// A task whose cases changed: its runs are classified again.
    Task,
    /// A catalogue version that gained tools: its runs are classified again.
    Catalogue,
    /// A catalogue version whose catalogue-level findings are recomputed.
    Findings,
    /// A run classified earlier in the batch whose inputs changed since.
    UnclassifyRun,
    /// The runs of a task, classified earlier in the batch.
    UnclassifyTask,
    /// The runs on a catalogue version, classified earlier in the batch.
    UnclassifyCatalogue,
}

impl Touch {
    fn sql(self) -> &'static str {
        match self {
            Touch::Run => "INSERT OR IGNORE INTO touched_runs VALUES (?1)",
            Touch::Task => "INSERT OR IGNORE INTO touched_tasks VALUES (?1)",
            Touch::Catalogue => "INSERT OR IGNORE INTO touched_catalogues VALUES (?1)",
            Touch::Findings => "INSERT OR IGNORE INTO finding_catalogues VALUES (?1)",
            Touch::UnclassifyRun => "DELETE FROM classified_runs WHERE run_id = ?1",
            Touch::UnclassifyTask => {
                "DELETE FROM classified_runs WHERE run_id IN (SELECT run_id FROM runs WHERE task_id = ?1)"
            }
            Touch::UnclassifyCatalogue => {
                "DELETE FROM classified_runs WHERE run_id IN
                    (SELECT run_id FROM runs WHERE catalogue = ?1
                     UNION SELECT run_id FROM decision_rows WHERE catalogue = ?1)"
            }
        }
    }
}

impl Batch<'_> {
    /// Marks `key` (a run id, task id or catalogue version) as `what` says.
    pub(super) fn touch(&self, what: Touch, key: &str) -> std::result::Result<(), RecordError> {
        self.conn
            .prepare_cached(what.sql())
            .and_then(|mut s| s.execute([key]))
            .map(|_| ())
            .map_err(RecordError::from)
    }
}

/// Opens a write transaction with empty "touched" sets.
pub(crate) fn begin_touched(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         CREATE TEMP TABLE IF NOT EXISTS touched_runs (run_id TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS touched_tasks (task_id TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS touched_catalogues (version TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS finding_catalogues (version TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TABLE IF NOT EXISTS classified_runs (run_id TEXT PRIMARY KEY) WITHOUT ROWID;
         DELETE FROM touched_runs; DELETE FROM touched_tasks;
         DELETE FROM touched_catalogues; DELETE FROM finding_catalogues;
         DELETE FROM classified_runs;",
    )?;
    Ok(())
}

/// Marks every stored run and catalogue for reclassification.
pub(crate) fn touch_all(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "INSERT OR IGNORE INTO touched_runs SELECT run_id FROM runs;
         INSERT OR IGNORE INTO finding_catalogues SELECT version FROM catalogues;",
    )?;
    Ok(())
}

/// Whether a schema upgrade left everything stored to be classified again
/// (the `reclassify` meta key); clears the mark. Inside the write
/// transaction, so the mark goes only with the reclassification.
pub(crate) fn take_reclassify_due(conn: &Connection) -> Result<bool> {
    let n = conn.execute("DELETE FROM meta WHERE key = 'reclassify'", [])?;
    Ok(n > 0)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::Store;

    const TEMP: [&str; 5] = [
        "touched_runs",
        "touched_tasks",
        "touched_catalogues",
        "finding_catalogues",
        "classified_runs",
    ];

    /// The table each kind of touch changes, and by how many rows (the
    /// match is exhaustive: a new kind must say where it goes).
    fn effect(t: Touch) -> (&'static str, i64) {
        match t {
            Touch::Run => ("touched_runs", 1),
            Touch::Task => ("touched_tasks", 1),
            Touch::Catalogue => ("touched_catalogues", 1),
            Touch::Findings => ("finding_catalogues", 1),
            Touch::UnclassifyRun | Touch::UnclassifyTask | Touch::UnclassifyCatalogue => {
                ("classified_runs", -1)
            }
        }
    }

    fn counts(conn: &Connection) -> Vec<i64> {
        TEMP.iter()
            .map(|t| {
                conn.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
                    .unwrap()
            })
            .collect()
    }

    /// A touch names its table by kind, so a misspelt table cannot reach
    /// another one (as a string's catch-all arm once sent it to
    /// `finding_catalogues`): each kind changes its own table and no other.
    #[test]
    fn each_touch_changes_its_own_table_and_no_other() {
        for t in [
            Touch::Run,
            Touch::Task,
            Touch::Catalogue,
            Touch::Findings,
            Touch::UnclassifyRun,
            Touch::UnclassifyTask,
            Touch::UnclassifyCatalogue,
        ] {
            let store = Store::open_rw(Path::new(":memory:")).unwrap();
            let conn = &store.conn;
            begin_touched(conn).unwrap();
            // Run, task and catalogue "x", classified earlier in the batch.
            conn.execute_batch(
                "INSERT INTO runs (run_id, task_id, catalogue) VALUES ('x', 'x', 'x');
                 INSERT INTO classified_runs VALUES ('x');",
            )
            .unwrap();
            let before = counts(conn);
            assert_eq!(conn.execute(t.sql(), ["x"]).unwrap(), 1, "{t:?}");
            let (table, by) = effect(t);
            let expected: Vec<i64> = TEMP
                .iter()
                .zip(&before)
                .map(|(name, n)| if *name == table { n + by } else { *n })
                .collect();
            assert_eq!(counts(conn), expected, "{t:?}");
        }
    }
}
