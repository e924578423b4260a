//! The SQLite store, the only SQL in rung: opening and migrating the
//! database (here), the import batch (`import/`), the classification pass
//! (`classify/`), and one module of named queries per entity (runs,
//! decisions, refusals, tools, findings, ...), paged by keyset (`paging`).
//! A stored value that does not decode is an error naming its row
//! (`decode`), never a default.

pub mod agg;
pub mod budget;
mod classify;
mod compact;
pub mod compare;
pub mod completion;
pub mod consistency;
pub mod decisions;
mod decode;
mod dense;
pub mod detail;
pub mod drill;
pub mod filter_sql;
mod finding_ids;
pub mod finding_list;
pub mod findings;
pub mod findings_kept;
mod halves;
mod held;
pub mod hints;
mod import;
mod menu;
mod menu_bytes;
mod names;
pub mod next_match;
mod pack;
pub mod paging;
pub mod payload;
pub mod refusals;
mod rule_long;
mod rule_scan;
pub mod runs;
pub mod sorted;
pub mod tools;
pub mod verdicts;
mod watch;

/// The queries behind the TUI, under the path the TUI has always used.
pub mod browse {
    pub use super::decisions::{
        DecisionRow, DecisionSet, decision_id, decision_key, decisions_page, is_empty,
        next_failing, step_key, timeline_page,
    };
    pub use super::detail::{Detail, MenuItem, decision_detail};
    pub use super::drill::{
        DecisionSort, Drill, FOUND_IN, ListView, ToolCount, drill_key, drill_page, drill_page_view,
        found_in,
    };
    pub use super::findings::{
        FindingCounts, FindingItem, FindingSet, KindCount, finding_counts, finding_key,
        finding_sorted_key, findings_page, findings_page_sorted,
    };
    pub use super::hints::{FilterHints, Unmatched, filter_hints, unmatched};
    pub use super::paging::{Anchor, Key, Page, cmp_key};
    pub use super::payload::{PayloadColumn, PayloadReader, payload_bytes, payload_read};
    pub use super::refusals::{latest_refusal, refusal_items, refusals_per_day};
    #[doc(hidden)]
    pub use super::rule_long::rules_the_long_way;
    pub use super::runs::{RunHeader, RunSort, RunText, run_header, run_key, runs_page, scan_runs};
    pub use super::sorted::{sorted_key, timeline_key, timeline_page_sorted};
    pub use super::tools::{
        RuleCount, ToolAudit, ToolDef, ToolFlags, tool_audit, tool_def, tool_flags,
    };
    pub use super::tune_reader;
}

/// The named queries behind reports, under the path reports have always used.
pub mod query {
    pub use super::decisions::run_steps;
    pub use super::filter_sql::FilterSql;
    pub use super::finding_list::{
        FindingNames, StoredFinding, findings, for_each_finding, for_each_stored,
    };
    pub use super::findings::{
        FindingGroup, FindingRow, count_findings, decision_findings, finding_groups,
        is_decision_kind,
    };
    pub use super::refusals::refusals;
    pub use super::runs::{
        DecisionsKept, RunRow, RunTally, decisions_kept, for_each_run, for_each_run_kept,
        run_tally, run_tally_kept, runs,
    };
    pub use super::tools::tools;
    pub use super::verdicts::{boundary_profile, confusions, ladder, metrics, pass_hat_k};
    pub use crate::filter::Filter;
}

use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

pub use classify::matching::{MatchRow, run_matching};
pub use classify::{Explained, RunExpectations, RunExplained, explain, explain_run};
pub use import::{Batch, Counts, ImportOptions, ImportSummary, Prepared};
pub use watch::{ChangeWatch, changed_since};

use crate::config::Config;
use crate::error::{Error, Result};

/// Schema migrations; index + 1 is the `user_version` each one produces.
const MIGRATIONS: &[&str] = &[
    include_str!("schema_v1.sql"),
    include_str!("schema_v2.sql"),
    include_str!("schema_v3.sql"),
    include_str!("schema_v4.sql"),
    include_str!("schema_v5.sql"),
    include_str!("schema_v6.sql"),
    include_str!("schema_v7.sql"),
    include_str!("schema_v8.sql"),
    include_str!("schema_v9.sql"),
    include_str!("schema_v10.sql"),
    include_str!("schema_v11.sql"),
    include_str!("schema_v12.sql"),
    include_str!("schema_v13.sql"),
    include_str!("schema_v14.sql"),
    include_str!("schema_v15.sql"),
];

/// The schema version this rung writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

pub struct Store {
    pub conn: Connection,
    pub path: PathBuf,
}

impl Store {
    /// Opens (creating when missing) a database to write to, migrated to the
    /// current schema, in WAL mode so viewers can read during an import.
    pub fn open_rw(path: &Path) -> Result<Store> {
        let conn = Connection::open(path).map_err(|e| {
            Error::usage(format!("{}: cannot open the database: {e}", path.display()))
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.set_prepared_statement_cache_capacity(64);
        // A plan that does not depend on the values bound: otherwise SQLite
        // recompiles some statements (a LEFT JOIN's among them) each time a
        // new value is bound, and the import runs those once per run.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        if check_version(&conn, path)? == 0 {
            // A new database: decision rows are a few KB, so larger pages
            // mean fewer page splits and WAL frames. Only possible before
            // the first table (and before WAL mode).
            conn.execute_batch("PRAGMA page_size = 16384")?;
        }
        let mode = wal_mode(&conn)?;
        if mode != "wal" && path != Path::new(":memory:") {
            return Err(Error::usage(format!(
                "{}: could not switch the database to WAL mode (got {mode})",
                path.display()
            )));
        }
        // Temporary tables (the runs an import touched) and SQLite's
        // sorts spill to a file past their cache: in memory they grew with
        // the import (400 MB at 5,000,000 decisions).
        conn.execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; PRAGMA temp_store = FILE;",
        )?;
        migrate(&conn)?;
        conn.execute_batch(completion::INDEXES)?;
        // A first import builds its index of verdicts by rung after its
        // commit (`agg::parallel`): if it stopped in between, here.
        conn.execute_batch("CREATE INDEX IF NOT EXISTS ladder_rung ON ladder_rows (rung);")?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing database read-only (the TUI and reports never
    /// change it). In a folder rung cannot write to (where SQLite cannot
    /// create the shared-memory file WAL mode reads through), it is opened
    /// as immutable instead.
    pub fn open_ro(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Err(Error::usage(format!(
                "no database at {}: import traces first (rung import PATH), or point --db / RUNG_DB at one",
                path.display()
            )));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let cannot = |e| Error::usage(format!("{}: cannot open the database: {e}", path.display()));
        let mut conn = Connection::open_with_flags(path, flags).map_err(cannot)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        if let Err(e) = conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            && cannot_read_in_place(&e)
        {
            conn = Connection::open_with_flags(
                immutable_uri(path)?,
                flags | OpenFlags::SQLITE_OPEN_URI,
            )
            .map_err(cannot)?;
            let wal = wal_path(path);
            if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
                eprintln!(
                    "warning: {}: the folder is read-only, so the changes still in {} are not shown",
                    crate::text::escape(&path.display().to_string()),
                    crate::text::escape(&wal.display().to_string())
                );
            }
        }
        conn.set_prepared_statement_cache_capacity(64);
        let version = check_version(&conn, path)?;
        if version < SCHEMA_VERSION {
            return Err(Error::usage(format!(
                "{}: the database has schema version {version}; this rung needs {SCHEMA_VERSION}. Run `rung reclassify` once to upgrade it",
                path.display()
            )));
        }
        conn.execute_batch("PRAGMA cache_size = -32768;")?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The configuration kept in the database (defaults when none was
    /// ever stored). One that does not decode, or is not valid, is an error
    /// naming the database: never the defaults, which would drop the
    /// redaction patterns and the reason table.
    pub fn config(&self) -> Result<Config> {
        let v: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'config'", [], |r| {
                r.get(0)
            })
            .optional()?;
        let Some(s) = v else {
            return Ok(Config::default());
        };
        Config::from_json(&s).map_err(|m| {
            let row = || "row key \"config\"".to_string();
            decode::Stored::new(&self.conn, decode::Table::Meta, &row).error(
                "value",
                format!("{m}; store a good one with `rung --config FILE reclassify`"),
            )
        })
    }

    /// Stores `config` (checked first); true when it differs from the one
    /// kept before. A stored one that cannot be read is replaced.
    pub fn set_config(&self, config: &Config) -> Result<bool> {
        config
            .validate()
            .map_err(|m| Error::usage(format!("the configuration is not valid: {m}")))?;
        let changed = match self.config() {
            // `[keys]` is the TUI's: rebinding a key reclassifies nothing.
            Ok(stored) => !stored.classifies_like(config),
            Err(Error::Stored(_)) => true,
            Err(e) => return Err(e),
        };
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES ('config', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![config.to_json()?],
        )?;
        Ok(changed)
    }
}

/// Removes the database at `path` when nothing was ever imported into it
/// (an import that created it failed), with its WAL files; keeps it when
/// another process holds it or it holds anything. Returns whether it went.
pub fn remove_if_unused(path: &Path) -> bool {
    let unused = (|| -> rusqlite::Result<bool> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
        // No waiting: a lock means someone else is using it.
        conn.busy_timeout(std::time::Duration::ZERO)?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let empty = version == 0
            || conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM imports)", [], |r| {
                r.get::<_, bool>(0)
            })?;
        conn.execute_batch("ROLLBACK")?;
        Ok(empty)
    })()
    .unwrap_or(false);
    if unused {
        let _ = std::fs::remove_file(path);
        for ext in ["-wal", "-shm", "-journal"] {
            let mut p = path.as_os_str().to_owned();
            p.push(ext);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
    }
    unused
}

/// The path under which a file with this fingerprint was imported, if one
/// was.
pub fn imported_before(
    store: &Store,
    fp: &crate::ingest::fingerprint::Fingerprint,
) -> Result<Option<String>> {
    Ok(store
        .conn
        .prepare_cached(
            "SELECT path FROM source_files WHERE size = ?1 AND mtime_ns = ?2 AND hash = ?3
             ORDER BY id DESC LIMIT 1",
        )?
        .query_row(params![fp.size as i64, fp.mtime_ns, &fp.hash[..]], |r| {
            r.get(0)
        })
        .optional()?)
}

/// Classifies everything stored again, in one transaction.
pub fn reclassify_all(store: &Store) -> Result<u64> {
    let conn = &store.conn;
    import::begin_touched(conn)?;
    // A stored configuration that fails to decode or compile rolls back
    // like any other failure.
    let result = store.config().and_then(|config| {
        let mut ctx = classify::Context::new(conn, &config)?;
        stored_as_imported(conn)?;
        import::touch_all(conn)?;
        import::take_reclassify_due(conn)?;
        let n = classify::reclassify_touched(&mut ctx)?;
        agg::refresh_touched(conn)?;
        Ok(n)
    });
    match result {
        Ok(n) => {
            conn.execute_batch("COMMIT")?;
            Ok(n)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// What writes by hand through the `decisions` view leave different from
/// an import of the same decisions, made as an import makes it: a
/// decision whose run is not stored (inserted, or moved to a run id no
/// run has) gets a bare run, as a trace's decision does, so that it is
/// classified; a verdict or payload whose decision is gone (deleted
/// through the view) is dropped, as the decision's line left out of a
/// trace leaves none.
fn stored_as_imported(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "INSERT OR IGNORE INTO runs (run_id)
             SELECT DISTINCT d.run_id FROM decision_rows d
             WHERE d.run_id IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.run_id = d.run_id);
         DELETE FROM ladder_rows
             WHERE NOT EXISTS (SELECT 1 FROM decision_rows d WHERE d.id = ladder_rows.decision_id);
         DELETE FROM payloads
             WHERE NOT EXISTS (SELECT 1 FROM decision_rows d WHERE d.id = payloads.decision_id);",
    )?;
    Ok(())
}

/// Switches to WAL mode. Two rungs creating the same new file both ask at
/// once, and SQLite answers one of them "busy" at once (not waiting, to
/// break the deadlock): that one asks again until the busy timeout.
pub(crate) fn wal_mode(conn: &Connection) -> Result<String> {
    let start = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return Ok(r?),
        }
    }
}

/// Whether a read-only open failed only because SQLite could not set up
/// WAL reading beside the file (a read-only folder).
fn cannot_read_in_place(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    )
}

/// `file:PATH?immutable=1`, the path escaped for a URI.
fn immutable_uri(path: &Path) -> Result<String> {
    let abs = std::path::absolute(path)?;
    let mut uri = String::from("file:");
    for c in abs.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push_str("?immutable=1");
    Ok(uri)
}

fn wal_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push("-wal");
    PathBuf::from(p)
}

/// Whether an error is SQLite saying another connection holds the lock.
pub fn is_busy(e: &Error) -> bool {
    matches!(
        e,
        Error::Db(db) if matches!(
            db.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    )
}

/// A lock error of a writing command, said as what it means.
pub fn explain_busy(e: Error, path: &Path) -> Error {
    if is_busy(&e) {
        Error::usage(format!(
            "{}: another rung process is importing into (or reclassifying) this database; it stayed locked for {} s. Try again when it finishes",
            path.display(),
            BUSY_TIMEOUT.as_secs()
        ))
    } else {
        e
    }
}

/// How long a writer waits for another one to finish.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Lowers this connection's page cache: the TUI keeps several readers open
/// and must stay small.
pub fn tune_reader(conn: &Connection) -> Result<()> {
    conn.execute_batch("PRAGMA cache_size = -16384;")?;
    Ok(())
}

fn check_version(conn: &Connection, path: &Path) -> Result<i64> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| {
            if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ) {
                return Error::Db(e);
            }
            Error::usage(format!(
                "{}: not a rung database (or not SQLite at all): {e}",
                path.display()
            ))
        })?;
    if version > SCHEMA_VERSION {
        return Err(Error::usage(format!(
            "{}: this database was written by a newer rung (schema version {version}; this rung understands up to {SCHEMA_VERSION}). Upgrade rung, or use another --db",
            path.display()
        )));
    }
    if version == 0 {
        // A non-empty SQLite file without our version is someone else's.
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        // Another rung may have created the schema between the two reads.
        let again: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if again > 0 {
            return check_version(conn, path);
        }
        if tables > 0 {
            return Err(Error::usage(format!(
                "{}: this SQLite file is not a rung database (it has tables but no rung schema version)",
                path.display()
            )));
        }
    }
    Ok(version)
}

fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version >= SCHEMA_VERSION {
        return Ok(());
    }
    // Under the write lock, and read again: another rung creating the same
    // new file may have migrated it meanwhile.
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)?;
        if i + 1 == 3 {
            // Schema 3 packs the menus a schema-2 database holds as text.
            names::pack_existing(&tx)?;
        }
        if i + 1 == 4 {
            // Schema 4 converts sources and retrieval heads.
            compact::compact_existing(&tx)?;
            findings::pack_existing(&tx)?;
        }
        if i + 1 == 5 {
            // Schema 5 packs retrieval candidates as characters.
            pack::compact_existing(&tx)?;
        }
        if i + 1 == 7 {
            // Schema 7 writes menus as characters (lists, retrievals, policies).
            dense::compact_existing(&tx)?;
        }
        // Schema 8 lists every stored day for the counts kept for the
        // screens; they are counted after the last schema's tables exist
        // (below).
        if i + 1 == 9 {
            // Schema 9 packs the token counts and lists every run with
            // findings, to be counted for the Findings screen.
            agg::pack_tokens_v8(&tx)?;
            tx.execute_batch(
                "INSERT INTO agg_finding_runs SELECT name FROM finding_names
                 WHERE id IN (SELECT DISTINCT run_id FROM finding_rows WHERE run_id IS NOT NULL)",
            )?;
        }
        tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))?;
    }
    // The counts kept for the screens are counted by this rung's code, which
    // writes every count table: only once every schema's tables exist.
    if version < 12 {
        // Schema 10 counts every stored day again for the tool audit (and
        // the days and findings schemas 8 and 9 listed), schema 12 for the
        // confusion cells.
        agg::recount_every_day(&tx)?;
    }
    if version < 11 {
        // Schema 11 keeps each run's budget and findings.
        agg::runs::fill_all(&tx)?;
    }
    if (12..15).contains(&version) {
        // Schema 15 lists the days of the keys with no model, whose
        // verdicts may have no run (below 12, every day is counted above).
        agg::refresh(&tx)?;
    }
    tx.commit()?;
    Ok(())
}

/// The query plan's lines for `sql` (tests of which index a read uses).
#[cfg(test)]
pub(crate) fn query_plan(conn: &rusqlite::Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    // Every parameter NULL: the plan does not depend on their values.
    let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
    let rows = stmt
        .query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap();
    rows.join("; ")
}
