//! One import = one transaction. Records are written as they stream in; at
//! the end references are checked, everything the batch touched is
//! reclassified, and the transaction commits (or nothing of it is kept).

use std::collections::BTreeMap;

use rusqlite::{Connection, params};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Store;
use super::classify::{self, Context, StoredDecision, StoredRun};
use crate::config::Config;
use crate::error::{InputError, RecordError, Result};
use crate::ingest::RecordSink;
use crate::model::canonical;
use crate::model::{Case, Catalogue, Decision, MenuFields, Record, Run, Timestamp};

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
    done: bool,
}

/// The run whose decisions are streaming in.
struct Pending {
    run_id: String,
    /// The decisions this batch wrote for it, in arrival order.
    decisions: Vec<StoredDecision>,
    /// No row of this run existed before these decisions.
    fresh: bool,
}

/// A record ready to be written: decisions (the bulk of any trace) have
/// every column serialised already.
pub enum Prepared {
    Decision(Box<PreparedDecision>),
    Other(Record),
}

impl Prepared {
    /// `line_len`: the size of the line the record came from, which bounds
    /// its payload's serialised size.
    pub fn with_size_hint(record: Record, line_len: usize) -> Prepared {
        match record {
            Record::Decision(d) => {
                Prepared::Decision(Box::new(PreparedDecision::new(*d, line_len)))
            }
            other => Prepared::Other(other),
        }
    }

    fn describe(&self) -> String {
        match self {
            Prepared::Decision(d) => format!("decision {} step {}", d.run_id, d.step),
            Prepared::Other(r) => r.describe(),
        }
    }
}

/// A decision's columns as the store writes them, plus what classification
/// needs of it.
pub struct PreparedDecision {
    run_id: String,
    step: i64,
    turn: Option<i64>,
    at: Option<String>,
    at_us: Option<i64>,
    phase: Option<String>,
    catalogue: Option<String>,
    policy: Option<String>,
    controls: Option<String>,
    retrieval: Option<String>,
    exposed: Option<String>,
    visible: Option<String>,
    selected: Option<String>,
    call_id: Option<String>,
    status: Option<&'static str>,
    stage: Option<&'static str>,
    reason: Option<String>,
    outcome: Option<String>,
    latency_ms: Option<f64>,
    progress: Option<&'static str>,
    expected: Option<String>,
    extra: Option<String>,
    arguments: Option<String>,
    result: Option<String>,
    raw: Option<String>,
    stored: StoredDecision,
    /// The record's identity: SHA-256 over every stored column.
    hash: [u8; 32],
}

/// Feeds stored columns to a hash, each framed so that no two different
/// rows can share a byte stream.
struct ColumnHash(Sha256);

impl ColumnHash {
    fn text(&mut self, s: Option<&str>) {
        match s {
            None => self.0.update([0u8]),
            Some(s) => {
                self.0.update([1u8]);
                self.0.update((s.len() as u64).to_le_bytes());
                self.0.update(s.as_bytes());
            }
        }
    }
    fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }

    fn int(&mut self, i: Option<i64>) {
        match i {
            None => self.0.update([0u8]),
            Some(i) => {
                self.0.update([1u8]);
                self.0.update(i.to_le_bytes());
            }
        }
    }
}

impl PreparedDecision {
    pub fn new(mut d: Decision, line_len: usize) -> PreparedDecision {
        let [policy, controls, retrieval, visible] = Batch::run_params(&d.menu);
        let outcome = d.outcome.as_ref();
        let arguments = d.arguments.take().map(|v| text(&v));
        let raw = d.raw.take().map(|v| text(&v));
        let extra = extra_text(&d.extra);
        d.extra = Value::Null;
        // Serialise the result last and drop the parsed value at once, so a
        // huge result is held at most twice.
        let result = d.result.take().map(|v| {
            if line_len > crate::memory::HUGE {
                let t = text_sized(&v, line_len);
                drop(v);
                crate::memory::release();
                t
            } else {
                text(&v)
            }
        });
        let mut p = PreparedDecision {
            run_id: d.run_id.clone(),
            step: d.step,
            turn: d.turn,
            at: d.at.map(Timestamp::to_rfc3339),
            at_us: d.at.map(Timestamp::micros),
            phase: d.phase.clone(),
            catalogue: d.menu.catalogue.clone(),
            policy,
            controls,
            retrieval,
            exposed: json_opt(&d.exposed),
            visible,
            selected: d.selected.clone(),
            call_id: d.call_id.take(),
            status: outcome.map(|o| o.status.as_str()),
            stage: outcome.and_then(|o| o.stage).map(|s| s.as_str()),
            reason: outcome.and_then(|o| o.reason.clone()),
            outcome: outcome.map(|o| serde_json::to_string(o).expect("serialises")),
            latency_ms: d.latency_ms,
            progress: d.progress.map(|p| p.as_str()),
            expected: json_opt(&d.expected),
            extra,
            arguments,
            result,
            raw,
            stored: StoredDecision::from_model(0, d),
            hash: [0; 32],
        };
        let mut h = ColumnHash(Sha256::new());
        h.text(Some(&p.run_id));
        h.int(Some(p.step));
        h.int(p.turn);
        h.int(p.at_us);
        for t in [
            &p.phase,
            &p.catalogue,
            &p.policy,
            &p.controls,
            &p.retrieval,
            &p.exposed,
            &p.visible,
            &p.selected,
            &p.call_id,
            &p.outcome,
        ] {
            h.text(t.as_deref());
        }
        h.int(p.latency_ms.map(|l| l.to_bits() as i64));
        h.text(p.progress);
        for t in [&p.expected, &p.extra, &p.arguments, &p.result, &p.raw] {
            h.text(t.as_deref());
        }
        p.hash = h.finish();
        p
    }
}

/// A SQL text built once per call site (the statement cache keys on it).
macro_rules! once {
    ($e:expr) => {{
        static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        SQL.get_or_init(|| $e).as_str()
    }};
}

fn json_opt<T: serde::Serialize>(v: &Option<T>) -> Option<String> {
    v.as_ref()
        .map(|v| serde_json::to_string(v).expect("serialises"))
}

fn text(v: &Value) -> String {
    serde_json::to_string(v).expect("serialises")
}

/// Serialises a value into a buffer sized up front (no doubling copies).
fn text_sized(v: &Value, size_hint: usize) -> String {
    let mut out = Vec::with_capacity(size_hint);
    serde_json::to_writer(&mut out, v).expect("serialises");
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn extra_text(v: &Value) -> Option<String> {
    match v {
        Value::Object(m) if m.is_empty() => None,
        other => Some(text(other)),
    }
}

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

fn err(message: String) -> RecordError {
    RecordError {
        record: None,
        message,
    }
}

fn differs(kind: &str, source: Option<String>) -> RecordError {
    err(format!(
        "a different {kind} with this key was already imported{}; pass --replace to overwrite it",
        source.map(|s| format!(" (from {s})")).unwrap_or_default()
    ))
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
        begin_touched(conn)?;
        let mut changed = false;
        if let Some(c) = new_config {
            changed = store.set_config(c)?;
            if changed {
                touch_all(conn)?;
            }
        }
        let config: Config = store.config()?;
        conn.execute(
            "INSERT INTO imports (started_at, sources) VALUES (?1, ?2)",
            params![now_text(), sources],
        )?;
        let import_id = conn.last_insert_rowid();
        let batch = Batch {
            conn,
            opts,
            import_id,
            ctx: Context::new(conn, &config),
            summary: ImportSummary::default(),
            last_bare_run: String::new(),
            pending: None,
            new_run: None,
            last_run: None,
            run_touched: false,
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
        let describe = record.describe();
        let r = match record {
            Prepared::Decision(d) => self.add_decision(source, *d),
            Prepared::Other(Record::Catalogue(c)) => self.add_catalogue(source, c),
            Prepared::Other(Record::Run(r)) => self.add_run(source, *r),
            Prepared::Other(Record::Decision(d)) => {
                self.add_decision(source, PreparedDecision::new(*d, 0))
            }
            Prepared::Other(Record::Case(c)) => self.add_case(source, c),
        };
        r.map_err(|mut e| {
            e.record.get_or_insert(describe);
            e
        })
    }

    fn db(e: rusqlite::Error) -> RecordError {
        err(format!("database error: {e}"))
    }

    fn touch(&self, table: &str, key: &str) -> std::result::Result<(), RecordError> {
        let sql = match table {
            "runs" => "INSERT OR IGNORE INTO touched_runs VALUES (?1)",
            "tasks" => "INSERT OR IGNORE INTO touched_tasks VALUES (?1)",
            "catalogues" => "INSERT OR IGNORE INTO touched_catalogues VALUES (?1)",
            // A run classified earlier in the batch whose inputs changed since.
            "unclassify run" => "DELETE FROM classified_runs WHERE run_id = ?1",
            "unclassify task" => {
                "DELETE FROM classified_runs WHERE run_id IN (SELECT run_id FROM runs WHERE task_id = ?1)"
            }
            "unclassify catalogue" => {
                "DELETE FROM classified_runs WHERE run_id IN
                    (SELECT run_id FROM runs WHERE catalogue = ?1
                     UNION SELECT run_id FROM decisions WHERE catalogue = ?1)"
            }
            _ => "INSERT OR IGNORE INTO finding_catalogues VALUES (?1)",
        };
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.execute([key]))
            .map(|_| ())
            .map_err(Self::db)
    }

    fn add_catalogue(
        &mut self,
        source: &str,
        c: Catalogue,
    ) -> std::result::Result<(), RecordError> {
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO catalogues (version, created_at, abstain, extra, source, import_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(version) DO NOTHING",
            )
            .and_then(|mut s| {
                s.execute(params![
                    c.version,
                    c.created_at.map(Timestamp::to_rfc3339),
                    c.abstain,
                    text(&c.extra),
                    source,
                    self.import_id
                ])
            })
            .map_err(Self::db)?
            == 1;
        if !inserted {
            let stored: Option<String> = self
                .conn
                .query_row(
                    "SELECT abstain FROM catalogues WHERE version = ?1",
                    [&c.version],
                    |r| r.get(0),
                )
                .map_err(Self::db)?;
            if c.abstain.is_some() && stored != c.abstain {
                self.summary.warnings.push(format!(
                    "{source}: catalogue {}: abstain {:?} differs from the stored {:?}; a catalogue version is immutable, the stored one stays",
                    c.version,
                    c.abstain.as_deref().unwrap_or(""),
                    stored.as_deref().unwrap_or("(none)")
                ));
            }
        }
        let mut changed = false;
        for tool in &c.tools {
            let def =
                canonical::definition(&tool.name, &tool.description, tool.input_schema.as_ref());
            let canon = canonical::to_string(&def);
            let hash = canonical::sha256_hex(&def);
            let tokens = canonical::tokens(&canon) as i64;
            let record = text(&tool.record);
            let new_tool = self
                .conn
                .prepare_cached(
                    "INSERT INTO tools (catalogue, name, family, effect, open_world, idempotent,
                        description, definition_hash, definition_tokens, record)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                     ON CONFLICT(catalogue, name) DO NOTHING",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        c.version,
                        tool.name,
                        tool.family,
                        tool.effect.as_str(),
                        tool.open_world,
                        tool.idempotent,
                        tool.description,
                        hash,
                        tokens,
                        record
                    ])
                })
                .map_err(Self::db)?
                == 1;
            let variant = self
                .conn
                .prepare_cached(
                    "INSERT OR IGNORE INTO tool_versions (catalogue, name, definition_hash, family,
                        effect, open_world, idempotent, record, source)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        c.version,
                        tool.name,
                        hash,
                        tool.family,
                        tool.effect.as_str(),
                        tool.open_world,
                        tool.idempotent,
                        record,
                        source
                    ])
                })
                .map_err(Self::db)?
                == 1;
            if new_tool {
                self.summary.tools_added += 1;
                changed = true;
                self.touch("catalogues", &c.version)?;
                self.ctx.forget_catalogue(&c.version);
                self.touch("unclassify catalogue", &c.version)?;
            } else if variant {
                self.summary.tools_changed += 1;
                changed = true;
            }
        }
        if changed || inserted {
            self.touch("findings", &c.version)?;
        }
        if inserted {
            self.summary.catalogues.new += 1;
        } else if changed {
            self.summary.catalogues.replaced += 1;
        } else {
            self.summary.catalogues.unchanged += 1;
        }
        Ok(())
    }

    fn run_params(m: &MenuFields) -> [Option<String>; 4] {
        [
            json_opt(&m.policy),
            json_opt(&m.trusted_controls),
            json_opt(&m.retrieval),
            json_opt(&m.visible),
        ]
    }

    fn add_run(&mut self, source: &str, r: Run) -> std::result::Result<(), RecordError> {
        let [policy, controls, retrieval, visible] = Self::run_params(&r.menu);
        let tags = if r.tags.is_empty() {
            None
        } else {
            let m: serde_json::Map<String, Value> = r
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            Some(text(&Value::Object(m)))
        };
        let started = r.started_at.map(Timestamp::to_rfc3339);
        let ended = r.ended_at.map(Timestamp::to_rfc3339);
        let extra = extra_text(&r.extra);
        let hash = {
            let mut h = ColumnHash(Sha256::new());
            for t in [
                &Some(r.run_id.clone()),
                &r.task_id,
                &r.goal,
                &r.model,
                &r.menu.catalogue,
                &r.selector,
            ] {
                h.text(t.as_deref());
            }
            h.int(r.trial);
            h.text(r.intent.map(|i| i.as_str()));
            for t in [&policy, &controls, &retrieval, &visible, &started, &ended] {
                h.text(t.as_deref());
            }
            h.text(r.terminated.map(|t| t.as_str()));
            h.int(r.success.map(i64::from));
            h.int(r.harm.map(i64::from));
            for t in [&r.scope, &tags, &extra] {
                h.text(t.as_deref());
            }
            h.finish()
        };
        let hash = &hash[..];
        let values = params![
            r.run_id,
            r.task_id,
            r.trial,
            r.goal,
            r.intent.map(|i| i.as_str()),
            r.model,
            r.menu.catalogue,
            r.selector,
            policy,
            controls,
            retrieval,
            visible,
            started,
            r.started_at.map(Timestamp::micros),
            ended,
            r.terminated.map(|t| t.as_str()),
            r.success,
            r.harm,
            r.scope,
            tags,
            extra,
            hash,
            source,
            self.import_id,
        ];
        const COLUMNS: &str = "run_id, task_id, trial, goal, intent, model, catalogue, selector,
            policy, trusted_controls, retrieval, visible, started_at, started_us, ended_at,
            terminated, success, harm, scope, tags, extra, record_hash, source, import_id";
        let inserted = self
            .conn
            .prepare_cached(once!(format!(
                "INSERT INTO runs ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,
                 ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)
                 ON CONFLICT(run_id) DO NOTHING"
            )))
            .and_then(|mut s| s.execute(values))
            .map_err(Self::db)?
            == 1;
        if inserted {
            self.summary.runs.new += 1;
            let id = r.run_id.clone();
            self.run_written(r)?;
            self.new_run = Some(id);
            return Ok(());
        }
        let (stored, stored_source): (Option<Vec<u8>>, Option<String>) = self
            .conn
            .query_row(
                "SELECT record_hash, source FROM runs WHERE run_id = ?1",
                [&r.run_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(Self::db)?;
        match stored {
            Some(h) if h == hash => {
                self.summary.runs.unchanged += 1;
                return Ok(());
            }
            // A bare run (known from decisions only) is filled in.
            None => self.summary.runs.new += 1,
            Some(_) if self.opts.replace => self.summary.runs.replaced += 1,
            Some(_) => return Err(differs("run", stored_source)),
        }
        self.conn
            .prepare_cached(
                "UPDATE runs SET task_id = ?2, trial = ?3, goal = ?4, intent = ?5, model = ?6,
                    catalogue = ?7, selector = ?8, policy = ?9, trusted_controls = ?10,
                    retrieval = ?11, visible = ?12, started_at = ?13, started_us = ?14,
                    ended_at = ?15, terminated = ?16, success = ?17, harm = ?18, scope = ?19,
                    tags = ?20, extra = ?21, record_hash = ?22, source = ?23, import_id = ?24
                 WHERE run_id = ?1",
            )
            .and_then(|mut s| s.execute(values))
            .map_err(Self::db)?;
        self.run_written(r)
    }

    fn run_written(&mut self, r: Run) -> std::result::Result<(), RecordError> {
        self.touch("runs", &r.run_id)?;
        self.touch("unclassify run", &r.run_id)?;
        self.last_run = Some((r.run_id.clone(), StoredRun::from_model(r)));
        Ok(())
    }

    /// Classifies the pending run now, when everything it needs is known;
    /// otherwise the end of the batch does it.
    fn flush_pending(&mut self) -> Result<()> {
        let Some(Pending {
            run_id,
            mut decisions,
            fresh,
        }) = self.pending.take()
        else {
            return Ok(());
        };
        if decisions.is_empty() {
            return Ok(());
        }
        let conn = self.conn;
        let run = match self.last_run.take() {
            Some((id, run)) if id == run_id => run,
            other => {
                self.last_run = other;
                classify::load_run(conn, &run_id)?.unwrap_or_else(StoredRun::bare)
            }
        };
        let stored: i64 = if fresh {
            decisions.len() as i64
        } else {
            conn.prepare_cached("SELECT count(*) FROM decisions WHERE run_id = ?1")?
                .query_row([&run_id], |r| r.get(0))?
        };
        if stored as usize != decisions.len() {
            // The run has decisions from elsewhere: classify it whole.
            decisions = classify::load_decisions(conn, &run_id)?;
        } else {
            decisions.sort_by_key(|d| d.step());
        }
        if classify::catalogues_known(&mut self.ctx, &run, &decisions)? {
            classify::classify_loaded(&mut self.ctx, &run_id, &run, &decisions, fresh)?;
            conn.prepare_cached("INSERT OR IGNORE INTO classified_runs VALUES (?1)")?
                .execute([&run_id])?;
        }
        Ok(())
    }

    fn add_decision(
        &mut self,
        source: &str,
        d: PreparedDecision,
    ) -> std::result::Result<(), RecordError> {
        let hash = &d.hash[..];
        if d.run_id != self.last_bare_run {
            self.flush_pending()
                .map_err(|e| err(format!("while classifying the previous run: {e}")))?;
            let created = self
                .conn
                .prepare_cached(
                    "INSERT INTO runs (run_id) VALUES (?1) ON CONFLICT(run_id) DO NOTHING",
                )
                .and_then(|mut s| s.execute([&d.run_id]))
                .map_err(Self::db)?
                == 1;
            let was_classified = self
                .conn
                .prepare_cached("DELETE FROM classified_runs WHERE run_id = ?1")
                .and_then(|mut s| s.execute([&d.run_id]))
                .map_err(Self::db)?
                == 1;
            let new_record = self.new_run.take().is_some_and(|r| r == d.run_id);
            self.last_bare_run.clone_from(&d.run_id);
            self.pending = Some(Pending {
                run_id: d.run_id.clone(),
                decisions: Vec::new(),
                // Nothing of this run was stored before this stretch of its
                // decisions: there is nothing old to count or clear.
                fresh: (created || new_record) && !was_classified,
            });
            self.run_touched = false;
        }
        let values = params![
            d.run_id,
            d.step,
            d.turn,
            d.at,
            d.at_us,
            d.phase,
            d.catalogue,
            d.policy,
            d.controls,
            d.retrieval,
            d.exposed,
            d.visible,
            d.selected,
            d.call_id,
            d.status,
            d.stage,
            d.reason,
            d.outcome,
            d.latency_ms,
            d.progress,
            d.expected,
            d.extra,
            hash,
            source,
            self.import_id,
        ];
        const COLUMNS: &str = "run_id, step, turn, at, at_us, phase, catalogue, policy,
            trusted_controls, retrieval, exposed, visible, selected, call_id, status, stage, reason,
            outcome, latency_ms, progress, expected, extra, record_hash, source, import_id";
        let inserted = self
            .conn
            .prepare_cached(once!(format!(
                "INSERT INTO decisions ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,
                 ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
                 ON CONFLICT(run_id, step) DO NOTHING"
            )))
            .and_then(|mut s| s.execute(values))
            .map_err(Self::db)?
            == 1;
        let id = if inserted {
            self.summary.decisions.new += 1;
            self.conn.last_insert_rowid()
        } else {
            let (id, stored, stored_source): (i64, Vec<u8>, Option<String>) = self
                .conn
                .prepare_cached(
                    "SELECT id, record_hash, source FROM decisions WHERE run_id = ?1 AND step = ?2",
                )
                .and_then(|mut s| {
                    s.query_row(params![d.run_id, d.step], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })
                })
                .map_err(Self::db)?;
            if stored == hash {
                self.summary.decisions.unchanged += 1;
                return Ok(());
            }
            if !self.opts.replace {
                return Err(differs("decision", stored_source));
            }
            self.summary.decisions.replaced += 1;
            self.conn
                .prepare_cached(once!(format!(
                    "UPDATE decisions SET ({COLUMNS}) = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,
                     ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
                     WHERE id = ?26"
                )))
                .and_then(|mut s| {
                    let mut v: Vec<&dyn rusqlite::ToSql> = values.to_vec();
                    v.push(&id);
                    s.execute(v.as_slice())
                })
                .map_err(Self::db)?;
            self.conn
                .prepare_cached("DELETE FROM payloads WHERE decision_id = ?1")
                .and_then(|mut s| s.execute([id]))
                .map_err(Self::db)?;
            id
        };
        let PreparedDecision {
            run_id,
            step,
            arguments,
            result,
            raw,
            mut stored,
            ..
        } = d;
        if arguments.is_some() || result.is_some() || raw.is_some() {
            let huge = result
                .as_ref()
                .is_some_and(|r| r.len() > crate::memory::HUGE);
            let mut stmt = self
                .conn
                .prepare_cached(
                    "INSERT INTO payloads (decision_id, arguments, result, raw) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(Self::db)?;
            // SQLite copies what is bound: drop our copy before the row is
            // written, so a huge result is not held twice.
            (|| {
                stmt.raw_bind_parameter(1, id)?;
                stmt.raw_bind_parameter(2, arguments)?;
                stmt.raw_bind_parameter(3, result)?;
                stmt.raw_bind_parameter(4, raw)?;
                if huge {
                    crate::memory::release();
                }
                stmt.raw_execute()
            })()
            .map_err(Self::db)?;
            drop(stmt);
            if huge {
                crate::memory::release();
            }
        }
        if !self.run_touched {
            self.touch("runs", &run_id)?;
            self.run_touched = true;
        }
        if let Some(Pending {
            run_id: pending_run,
            decisions: list,
            ..
        }) = &mut self.pending
            && *pending_run == run_id
        {
            list.retain(|x| x.step() != step);
            stored.set_id(id);
            list.push(stored);
        }
        Ok(())
    }

    fn add_case(&mut self, source: &str, c: Case) -> std::result::Result<(), RecordError> {
        let key = serde_json::json!([c.task_id, c.step, c.catalogue]).to_string();
        // Labels are sets: sorted, so their order in the file does not matter.
        let acceptable = text(&serde_json::json!(c.label.acceptable));
        let forbidden = text(&serde_json::json!(c.label.forbidden));
        let extra = extra_text(&c.extra);
        let hash = {
            let mut h = ColumnHash(Sha256::new());
            for t in [
                &Some(key.clone()),
                &Some(acceptable.clone()),
                &Some(forbidden.clone()),
                &c.note,
                &extra,
            ] {
                h.text(t.as_deref());
            }
            h.finish()
        };
        let hash = &hash[..];
        let values = params![
            key,
            c.task_id,
            c.step,
            c.catalogue,
            acceptable,
            forbidden,
            c.note,
            extra,
            hash,
            source,
            self.import_id
        ];
        const COLUMNS: &str = "key, task_id, step, catalogue, acceptable, forbidden, note, extra,
            record_hash, source, import_id";
        let inserted = self
            .conn
            .prepare_cached(once!(format!(
                "INSERT INTO cases ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(key) DO NOTHING"
            )))
            .and_then(|mut s| s.execute(values))
            .map_err(Self::db)?
            == 1;
        if inserted {
            self.summary.cases.new += 1;
            return self.case_written(&c.task_id);
        }
        let (stored, stored_source): (Vec<u8>, Option<String>) = self
            .conn
            .query_row(
                "SELECT record_hash, source FROM cases WHERE key = ?1",
                [&key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(Self::db)?;
        if stored == hash {
            self.summary.cases.unchanged += 1;
            return Ok(());
        }
        if !self.opts.replace {
            return Err(differs("case", stored_source));
        }
        self.summary.cases.replaced += 1;
        self.conn
            .prepare_cached(once!(format!(
                "UPDATE cases SET ({COLUMNS}) = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 WHERE key = ?1"
            )))
            .and_then(|mut s| s.execute(values))
            .map_err(Self::db)?;
        self.case_written(&c.task_id)
    }

    fn case_written(&mut self, task_id: &str) -> std::result::Result<(), RecordError> {
        self.ctx.forget_cases(task_id);
        self.touch("tasks", task_id)?;
        self.touch("unclassify task", task_id)
    }

    /// Checks references, reclassifies what the batch touched and commits.
    /// With `keep_going`, records whose references resolve nowhere are
    /// reported through `skip` and left out; otherwise the first one fails
    /// the whole batch.
    pub fn finish(mut self, skip: &mut dyn FnMut(&InputError)) -> Result<ImportSummary> {
        self.flush_pending()?;
        self.check_references(skip)?;
        let eager: i64 = self
            .conn
            .query_row("SELECT count(*) FROM classified_runs", [], |r| r.get(0))?;
        self.summary.reclassified_runs =
            eager as u64 + classify::reclassify_touched(&mut self.ctx)?;
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
                    "catalogue {catalogue:?} is not defined in this import or in the database; import the catalogue record with that version (or fix the name)"
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
            let mut s = self.conn.prepare(
                "SELECT d.id, d.run_id, d.step, d.catalogue, d.source FROM decisions d
                 WHERE d.run_id IN (SELECT run_id FROM touched_runs) AND d.import_id = ?1
                   AND d.catalogue IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM catalogues c WHERE c.version = d.catalogue)
                 ORDER BY d.id",
            )?;
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
                .execute("DELETE FROM decisions WHERE id = ?1", [id])?;
            self.conn
                .execute("DELETE FROM payloads WHERE decision_id = ?1", [id])?;
            self.conn
                .execute("DELETE FROM ladder WHERE decision_id = ?1", [id])?;
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
