//! One import = one transaction. Records are written as they stream in; at
//! the end references are checked, everything the batch touched is
//! reclassified, and the transaction commits (or nothing of it is kept).

use std::collections::BTreeMap;

use rusqlite::{Connection, params};

use super::Store;
use super::classify::{self, Context, StoredDecision, StoredRun};
use crate::config::Config;
use crate::error::{InputError, InvalidRecord, RecordError, Result};
use crate::ingest::RecordSink;
use crate::ingest::fingerprint::Fingerprint;
use crate::model::Record;

/// A SQL text built once per call site (the statement cache keys on it).
macro_rules! once {
    ($e:expr) => {{
        static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        SQL.get_or_init(|| $e).as_str()
    }};
}

mod decisions;
mod identity;
mod prepared;
mod records;
mod touched;

pub use prepared::{Prepared, PreparedDecision};
pub(crate) use touched::{begin_touched, take_reclassify_due, touch_all};

#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// Skip bad records (each reported) instead of failing the batch.
    pub keep_going: bool,
    /// A record whose key exists with different content replaces it.
    pub replace: bool,
}

/// New, unchanged and replaced records of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub new: u64,
    pub unchanged: u64,
    pub replaced: u64,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ImportSummary {
    pub catalogues: Counts,
    pub runs: Counts,
    pub decisions: Counts,
    pub cases: Counts,
    /// Tools added to catalogue versions.
    pub tools_added: u64,
    /// Changed definitions seen under an existing version (kept apart, not applied).
    pub tools_changed: u64,
    /// Tools added to a catalogue version stored before (or earlier in the
    /// batch). A catalogue seen again is never counted as replaced:
    /// catalogues never change, they only gain tools.
    pub tools_added_later: u64,
    /// Records skipped with --keep-going.
    pub skipped: u64,
    /// Records of types this rung does not know: type → (count, first place).
    pub unknown_types: BTreeMap<String, (u64, String)>,
    /// Runs whose decisions were classified again.
    pub reclassified_runs: u64,
    pub warnings: Vec<String>,
}

pub struct Batch<'a> {
    conn: &'a Connection,
    opts: ImportOptions,
    import_id: i64,
    ctx: Context<'a>,
    pub summary: ImportSummary,
    last_bare_run: String,
    /// The run whose decisions are streaming in, with the decisions this
    /// batch wrote: classified when the stream moves on to another run.
    pending: Option<Pending>,
    /// A run whose record this batch inserted as a new row: its decisions,
    /// when they come next, are all new too.
    new_run: Option<String>,
    /// The last run record written, for its decisions' inheritance.
    last_run: Option<(String, StoredRun)>,
    /// Whether the current run (`last_bare_run`) is in `touched_runs`.
    run_touched: bool,
    /// Ids of the source paths written (schema 4).
    source_paths: crate::store::compact::SourcePaths,
    done: bool,
}

/// The run whose decisions are streaming in.
struct Pending {
    run_id: String,
    /// The decisions this batch wrote for it, in arrival order.
    decisions: Vec<StoredDecision>,
    /// No row of this run existed before these decisions.
    fresh: bool,
    /// The payload text of these decisions: their payloads are kept for
    /// the run's audit up to [`RUN_KEEP_MAX`] in all.
    kept_bytes: usize,
}

/// The most payload text a run's decisions keep in memory for its audit;
/// a run with more reads its payloads back from the database.
const RUN_KEEP_MAX: usize = 8 << 20;

/// The readers hand their records to the batch.
impl RecordSink for Batch<'_> {
    type Prepared = Prepared;

    fn prepare(record: Record, line_len: usize) -> Prepared {
        Prepared::with_size_hint(record, line_len)
    }

    fn add_prepared(
        &mut self,
        source: &str,
        record: Prepared,
    ) -> std::result::Result<(), RecordError> {
        Batch::add_prepared(self, source, record)
    }

    fn unknown_type(&mut self, ty: &str, at: &str) {
        Batch::unknown_type(self, ty, at)
    }

    fn keep_going(&self) -> bool {
        self.opts.keep_going
    }

    fn skipped(&mut self) {
        self.summary.skipped += 1;
    }
}

fn differs(kind: &str, source: Option<String>) -> RecordError {
    RecordError::Invalid(InvalidRecord {
        record: None,
        message: format!(
            "a different {kind} with this key was already imported{}; pass --replace to overwrite it",
            source.map(|s| format!(" (from {s})")).unwrap_or_default()
        ),
    })
}

impl<'a> Batch<'a> {
    /// Starts the batch's transaction.
    pub fn begin(store: &'a Store, opts: ImportOptions, sources: &str) -> Result<Batch<'a>> {
        Batch::begin_with(store, opts, sources, None).map(|(b, _)| b)
    }

    /// Like [`Batch::begin`], with a configuration from `--config`: kept in
    /// the database within the batch's transaction and used to classify
    /// this batch; when it differs from the stored one, everything stored is
    /// classified again (the returned flag).
    pub fn begin_with(
        store: &'a Store,
        opts: ImportOptions,
        sources: &str,
        new_config: Option<&Config>,
    ) -> Result<(Batch<'a>, bool)> {
        let conn = &store.conn;
        // Everything between BEGIN and the batch (whose drop rolls back) is
        // rolled back here on an error, so that a long-lived connection
        // (`rung serve`) is not left inside the failed transaction.
        let started = (|| -> Result<(bool, i64, Context<'a>)> {
            begin_touched(conn)?;
            let mut changed = false;
            if let Some(c) = new_config {
                changed = store.set_config(c)?;
                if changed {
                    touch_all(conn)?;
                }
            }
            if take_reclassify_due(conn)? && !changed {
                // A database from an older rung: its verdicts are redone.
                touch_all(conn)?;
            }
            let config: Config = store.config()?;
            conn.execute(
                "INSERT INTO imports (started_at, sources) VALUES (?1, ?2)",
                params![now_text(), sources],
            )?;
            let import_id = conn.last_insert_rowid();
            let mut ctx = Context::new(conn, &config)?;
            ctx.defer_indexes()?;
            Ok((changed, import_id, ctx))
        })();
        let (changed, import_id, ctx) = match started {
            Ok(v) => v,
            Err(e) => {
                if !conn.is_autocommit() {
                    let _ = conn.execute_batch("ROLLBACK");
                }
                return Err(e);
            }
        };
        let batch = Batch {
            conn,
            opts,
            import_id,
            ctx,
            summary: ImportSummary::default(),
            last_bare_run: String::new(),
            pending: None,
            new_run: None,
            last_run: None,
            run_touched: false,
            source_paths: Default::default(),
            done: false,
        };
        Ok((batch, changed))
    }

    /// Notes a record of an unknown type (reported once per type).
    pub fn unknown_type(&mut self, ty: &str, at: &str) {
        let e = self
            .summary
            .unknown_types
            .entry(ty.to_string())
            .or_insert_with(|| (0, at.to_string()));
        e.0 += 1;
    }

    /// Writes one record prepared with [`Prepared::with_size_hint`] (which
    /// needs no database, so it can run on another thread). `source` is
    /// `path:line`. On error nothing of the record has been written. A
    /// record identical to a stored one (the same stored content, see
    /// `record_hash`) is a no-op.
    pub fn add_prepared(
        &mut self,
        source: &str,
        record: Prepared,
    ) -> std::result::Result<(), RecordError> {
        // A decision names itself in its errors (it can fail only where
        // its key is at hand): no text is made for each one written.
        let describe = match &record {
            Prepared::Decision(_) => None,
            other => Some(other.describe()),
        };
        let r = match record {
            Prepared::Decision(d) => self.add_decision(source, *d),
            Prepared::Other(Record::Catalogue(c)) => self.add_catalogue(source, c),
            Prepared::Other(Record::Run(r)) => self.add_run(source, *r),
            Prepared::Other(Record::Decision(d)) => match PreparedDecision::new(*d, 0) {
                Ok(p) => self.add_decision(source, p),
                Err(e) => Err(e.into()),
            },
            Prepared::Unwritable(_, e) => Err(e.into()),
            Prepared::Other(Record::Case(c)) => self.add_case(source, *c),
        };
        r.map_err(|e| match e {
            RecordError::Invalid(mut e) => {
                if e.record.is_none() {
                    e.record = describe;
                }
                RecordError::Invalid(e)
            }
            db => db,
        })
    }

    /// Notes a source file read whole by this batch, so that a later import
    /// skips it while it stays the same.
    pub fn record_source(&self, path: &str, fp: &Fingerprint) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM source_files WHERE path = ?1")?
            .execute([path])?;
        self.conn
            .prepare_cached(
                "INSERT INTO source_files (path, size, mtime_ns, hash, import_id)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                path,
                fp.size as i64,
                fp.mtime_ns,
                &fp.hash[..],
                self.import_id
            ])?;
        Ok(())
    }

    /// Checks references, reclassifies what the batch touched and commits;
    /// then counts the touched days for the screens in a second transaction
    /// (`agg::parallel`), whose failure leaves them listed and is logged,
    /// never returned: the import stands.
    /// With `keep_going`, records whose references resolve nowhere are
    /// reported through `skip` and left out; otherwise the first one fails
    /// the whole batch.
    pub fn finish(self, skip: &mut dyn FnMut(&InputError)) -> Result<ImportSummary> {
        self.finish_and_record(skip, &mut |_| Ok(()))
    }

    /// [`Batch::finish`], calling `record` once every record is checked and
    /// before the commit, to record the source files read
    /// ([`Batch::record_source`]). A batch that replaced stored records
    /// with different ones first forgets the files earlier imports
    /// recorded: what they hold may no longer be what is stored, so the
    /// next import reads them again rather than skip them.
    pub fn finish_and_record(
        mut self,
        skip: &mut dyn FnMut(&InputError),
        record: &mut dyn FnMut(&Batch) -> Result<()>,
    ) -> Result<ImportSummary> {
        let start = std::time::Instant::now();
        self.flush_pending()?;
        self.check_references(skip)?;
        let s = &self.summary;
        if s.catalogues.replaced + s.runs.replaced + s.decisions.replaced + s.cases.replaced > 0 {
            self.conn.execute(
                "DELETE FROM source_files WHERE import_id IS NOT ?1",
                [self.import_id],
            )?;
        }
        record(&self)?;
        let checked = start.elapsed();
        let eager: i64 = self
            .conn
            .query_row("SELECT count(*) FROM classified_runs", [], |r| r.get(0))?;
        self.summary.reclassified_runs =
            eager as u64 + classify::reclassify_touched(&mut self.ctx)?;
        let classified = start.elapsed();
        let listed = crate::store::agg::list_touched(self.conn)?;
        let finishing = self.ctx.take_finishing();
        let listed_at = start.elapsed();
        self.conn.execute(
            "UPDATE imports SET finished_at = ?1, summary = ?2 WHERE id = ?3",
            params![
                now_text(),
                serde_json::to_string(&self.summary).unwrap_or_default(),
                self.import_id
            ],
        )?;
        self.conn.execute_batch("COMMIT")?;
        self.done = true;
        // The counts for the screens, in a transaction of their own (the
        // days they wait for stay listed meanwhile, so readers count from
        // the verdicts), on both cores; then the counts packed and the
        // indexes built that a first import left to its end.
        crate::store::agg::parallel::refresh_committed(self.conn, &listed, &|conn| {
            finishing.run(conn)
        });
        tracing::debug!(
            checked_ms = checked.as_millis() as u64,
            classified_ms = (classified - checked).as_millis() as u64,
            listed_ms = (listed_at - classified).as_millis() as u64,
            counted_and_indexed_ms = (start.elapsed() - listed_at).as_millis() as u64,
            "import finish"
        );
        Ok(std::mem::take(&mut self.summary))
    }

    fn check_references(&mut self, skip: &mut dyn FnMut(&InputError)) -> Result<()> {
        let missing = |source: Option<String>, record: String, catalogue: &str| {
            let (path, line) = split_source(source.as_deref().unwrap_or("?"));
            InputError {
                path: Some(path),
                line,
                record: Some(record),
                message: format!(
                    "catalogue {} is not defined in this import or in the database; import the catalogue record with that version (or fix the name)",
                    crate::text::echo(catalogue)
                ),
            }
        };
        let runs: Vec<(String, String, Option<String>)> = {
            let mut s = self.conn.prepare(
                "SELECT r.run_id, r.catalogue, r.source FROM runs r
                 WHERE r.run_id IN (SELECT run_id FROM touched_runs) AND r.import_id = ?1
                   AND r.catalogue IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM catalogues c WHERE c.version = r.catalogue)
                 ORDER BY r.rowid",
            )?;
            s.query_map([self.import_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let decisions: Vec<(i64, String, i64, String, Option<String>)> = {
            let mut s = self.conn.prepare(concat!(
                "SELECT d.id, d.run_id, d.step, d.catalogue, ",
                crate::store::compact::source_text!("d"),
                " FROM decision_rows d
                     WHERE d.run_id IN (SELECT run_id FROM touched_runs) AND d.import_id = ?1
                       AND d.catalogue IS NOT NULL
                       AND NOT EXISTS (SELECT 1 FROM catalogues c WHERE c.version = d.catalogue)
                     ORDER BY d.id"
            ))?;
            s.query_map([self.import_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<rusqlite::Result<_>>()?
        };
        for (run_id, catalogue, source) in runs {
            let e = missing(source, format!("run {run_id}"), &catalogue);
            if !self.opts.keep_going {
                return Err(e.into());
            }
            skip(&e);
            self.summary.skipped += 1;
            // Keep the run as a bare one: its decisions may still stand.
            self.conn.execute(
                "UPDATE runs SET task_id = NULL, trial = NULL, goal = NULL, intent = NULL,
                    model = NULL, catalogue = NULL, selector = NULL, policy = NULL,
                    trusted_controls = NULL, retrieval = NULL, visible = NULL, started_at = NULL,
                    started_us = NULL, ended_at = NULL, terminated = NULL, success = NULL,
                    harm = NULL, scope = NULL, tags = NULL, extra = NULL, record_hash = NULL,
                    source = NULL
                 WHERE run_id = ?1",
                [&run_id],
            )?;
        }
        for (id, run_id, step, catalogue, source) in decisions {
            let e = missing(source, format!("decision {run_id} step {step}"), &catalogue);
            if !self.opts.keep_going {
                return Err(e.into());
            }
            skip(&e);
            self.summary.skipped += 1;
            self.conn
                .execute("DELETE FROM decision_rows WHERE id = ?1", [id])?;
            self.conn
                .execute("DELETE FROM payloads WHERE decision_id = ?1", [id])?;
            self.conn
                .execute("DELETE FROM ladder_rows WHERE decision_id = ?1", [id])?;
        }
        Ok(())
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// Splits a stored `path:line` back into its parts.
pub(crate) fn split_source(s: &str) -> (String, Option<u64>) {
    match s.rsplit_once(':') {
        Some((p, l)) => match l.parse() {
            Ok(n) => (p.to_string(), Some(n)),
            Err(_) => (s.to_string(), None),
        },
        None => (s.to_string(), None),
    }
}

fn now_text() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
