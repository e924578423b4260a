//! Writing decision records as they stream in, run by run: a run's
//! decisions are classified as soon as the stream moves on to another run.

use rusqlite::{OptionalExtension, params};

use super::identity;
use super::prepared::PreparedDecision;
use super::touched::Touch;
use super::{Batch, Pending, differs};
use crate::error::{RecordError, Result};
use crate::store::classify::{self, StoredRun};
use crate::store::compact::source_text;
use crate::store::held::Hot;

/// [`Batch::stored_decision`]'s answer for a stored decision with the same
/// identity (a row id is never negative).
const UNCHANGED: i64 = -1;

impl Batch<'_> {
    /// The stored decision at (`run_id`, `step`): `None` when there is none,
    /// [`UNCHANGED`] when it is this one (counted), its row id when it
    /// differs and `--replace` lets it be overwritten; otherwise the error.
    fn stored_decision(
        &mut self,
        run_id: &str,
        step: i64,
        hash: &[u8; 32],
    ) -> std::result::Result<Option<i64>, RecordError> {
        let row: Option<(i64, Vec<u8>, Option<String>)> = self
            .conn
            .prepare_cached(concat!(
                "SELECT d.id, d.record_hash, ",
                source_text!("d"),
                " FROM decision_rows d WHERE d.run_id = ?1 AND d.step = ?2"
            ))
            .and_then(|mut s| {
                s.query_row(params![run_id, step], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })
                .optional()
            })?;
        match row {
            None => Ok(None),
            Some((_, stored, _)) if identity::same(&stored, hash) => {
                self.summary.decisions.unchanged += 1;
                Ok(Some(UNCHANGED))
            }
            Some((_, _, stored_source)) if !self.opts.replace => {
                // Named here: the batch names only other records (see
                // `Batch::add_prepared`).
                Err(match differs("decision", stored_source) {
                    RecordError::Invalid(mut e) => {
                        e.record = Some(format!("decision {run_id} step {step}"));
                        RecordError::Invalid(e)
                    }
                    db => db,
                })
            }
            Some((id, _, _)) => Ok(Some(id)),
        }
    }

    /// Writes a decision that met a stored one of its key in a run taken
    /// for fresh (a repeat within the batch), as for any other run.
    fn add_decision_again(
        &mut self,
        source: &str,
        d: PreparedDecision,
    ) -> std::result::Result<(), RecordError> {
        if let Some(p) = &mut self.pending {
            p.fresh = false;
        }
        self.add_decision(source, d)
    }

    /// Classifies the pending run now, when everything it needs is known;
    /// otherwise the end of the batch does it.
    pub(super) fn flush_pending(&mut self) -> Result<()> {
        let Some(Pending {
            run_id,
            mut decisions,
            fresh,
            ..
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
            conn.prepare_cached("SELECT count(*) FROM decision_rows WHERE run_id = ?1")?
                .query_row([&run_id], |r| r.get(0))?
        };
        if stored as usize != decisions.len() {
            // The run has decisions from elsewhere: classify it whole.
            decisions = classify::load_decisions(conn, self.ctx.names()?, &run_id)?;
        } else {
            decisions.sort_by_key(|d| d.step());
        }
        if classify::catalogues_known(&mut self.ctx, &run, &decisions)? {
            classify::classify_loaded(&mut self.ctx, &run_id, run, decisions, fresh)?;
            conn.prepare_cached("INSERT OR IGNORE INTO classified_runs VALUES (?1)")?
                .execute([&run_id])?;
        }
        Ok(())
    }

    pub(super) fn add_decision(
        &mut self,
        source: &str,
        d: PreparedDecision,
    ) -> std::result::Result<(), RecordError> {
        let hash = &d.hash;
        if d.run_id != self.last_bare_run {
            // A failure here is the database's (or its stored data's), not
            // this record's: it stops the import.
            self.flush_pending()?;
            let created = self
                .conn
                .prepare_cached(
                    "INSERT INTO runs (run_id) VALUES (?1) ON CONFLICT(run_id) DO NOTHING",
                )
                .and_then(|mut s| s.execute([&d.run_id]))?
                == 1;
            let was_classified = self
                .conn
                .prepare_cached("DELETE FROM classified_runs WHERE run_id = ?1")
                .and_then(|mut s| s.execute([&d.run_id]))?
                == 1;
            let new_record = self.new_run.take().is_some_and(|r| r == d.run_id);
            self.last_bare_run.clone_from(&d.run_id);
            self.pending = Some(Pending {
                run_id: d.run_id.clone(),
                decisions: Vec::new(),
                // Nothing of this run was stored before this stretch of its
                // decisions: there is nothing old to count or clear.
                fresh: (created || new_record) && !was_classified,
                kept_bytes: 0,
            });
            self.run_touched = false;
        }
        // A decision already stored is looked up first, so that re-reading
        // it writes nothing (not even its menus). A run none of whose rows
        // existed before needs no look-up: a repeat within the batch meets
        // the unique key instead.
        let fresh = self
            .pending
            .as_ref()
            .is_some_and(|p| p.fresh && p.run_id == d.run_id);
        let existing: Option<i64> = if fresh {
            None
        } else {
            self.stored_decision(&d.run_id, d.step, hash)?
        };
        if existing == Some(UNCHANGED) {
            return Ok(());
        }
        // The menus, packed (ids of names, shared menus stored once).
        let conn = self.conn;
        let packer = self.ctx.packer();
        let (controls, retrieval, exposed, visible) = d.stored.menu_parts();
        let [k_policy, k_controls, k_retrieval, k_exposed, k_visible] = d.menu_keys;
        let policy_id = match (&d.policy, k_policy) {
            (Some(p), Some(k)) => Some(packer.menu_keyed(conn, k, |_, _| Ok(p.clone()))?),
            _ => None,
        };
        let mut list = |k: Option<_>, names: Option<&[String]>| match (k, names) {
            (Some(k), Some(n)) => packer.list_menu_keyed(conn, k, n).map(Some),
            _ => Ok(None),
        };
        let controls_id = list(k_controls, controls)?;
        let exposed_id = list(k_exposed, exposed)?;
        let visible_id = list(k_visible, visible)?;
        let retrieval_id = match (retrieval, &d.retrieval, k_retrieval) {
            (Some(r), Some(text), Some(k)) => Some(packer.retrieval_menu_keyed(
                conn,
                k,
                r,
                d.retrieval_head.as_deref(),
                d.retrieval_shared.as_ref(),
                text,
            )?),
            _ => None,
        };
        // An inline label of plain names as characters (schema 6).
        let dense_expected = match &d.expected {
            Some(text) => packer.label_body(conn, text)?,
            None => None,
        };
        let expected = dense_expected.as_deref().or(d.expected.as_deref());
        let (source_text, source_at) = self.source_paths.value(conn, source)?;
        // What the views rebuild is not stored (schema 5).
        let at = d.at.as_deref().filter(|_| d.at_stored);
        let outcome = d.outcome.as_deref().filter(|_| d.outcome_stored);
        // Each distinct outcome text stored once (schema 7).
        let outcome = match outcome {
            Some(text) => Some(packer.outcome_id(conn, text)?),
            None => None,
        };
        let values = params![
            d.run_id,
            d.step,
            d.turn,
            at,
            d.at_us,
            d.phase,
            d.catalogue,
            policy_id,
            controls_id,
            retrieval_id,
            exposed_id,
            visible_id,
            d.selected,
            d.call_id,
            d.status,
            d.stage,
            d.reason,
            outcome,
            d.latency_ms,
            d.progress,
            expected,
            d.extra,
            identity::kept(hash),
            source_text,
            self.import_id,
            source_at,
        ];
        const COLUMNS: &str = "run_id, step, turn, at, at_us, phase, catalogue, policy,
            trusted_controls, retrieval, exposed, visible, selected, call_id, status, stage, reason,
            outcome, latency_ms, progress, expected, extra, record_hash, source, import_id,
            source_at";
        let id = match existing {
            Some(id) => {
                self.summary.decisions.replaced += 1;
                self.conn
                    .prepare_cached(once!(format!(
                        "UPDATE decision_rows SET ({COLUMNS}) = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,
                         ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24,
                         ?25, ?26) WHERE id = ?27"
                    )))
                    .and_then(|mut s| {
                        let mut v: Vec<&dyn rusqlite::ToSql> = values.to_vec();
                        v.push(&id);
                        s.execute(v.as_slice())
                    })?;
                self.conn
                    .prepare_cached("DELETE FROM payloads WHERE decision_id = ?1")
                    .and_then(|mut s| s.execute([id]))?;
                id
            }
            None => {
                let inserted = self
                    .ctx
                    .held
                    .get(
                        Hot::DecisionRow,
                        once!(format!(
                            "INSERT INTO decision_rows ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6,
                             ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                             ?21, ?22, ?23, ?24, ?25, ?26)
                             ON CONFLICT(run_id, step) DO NOTHING"
                        )),
                    )?
                    .execute(values)?
                    == 1;
                if !inserted {
                    // A repeat within a fresh run: judged like any stored one.
                    let again = self.stored_decision(&d.run_id, d.step, hash)?;
                    debug_assert!(again.is_some());
                    if again == Some(UNCHANGED) {
                        return Ok(());
                    }
                    return self.add_decision_again(source, d);
                }
                self.summary.decisions.new += 1;
                self.conn.last_insert_rowid()
            }
        };
        let PreparedDecision {
            run_id,
            step,
            arguments,
            result,
            raw,
            mut stored,
            kept_bytes: payload_bytes,
            ..
        } = d;
        if arguments.is_some() || result.is_some() || raw.is_some() {
            let huge = result
                .as_ref()
                .is_some_and(|r| r.len() > crate::memory::HUGE);
            let stmt = self.ctx.held.get(
                Hot::Payload,
                "INSERT INTO payloads (decision_id, arguments, result, raw) VALUES (?1, ?2, ?3, ?4)",
            )?;
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
            })()?;
            // The statement is kept: SQLite's copy of the payload goes now,
            // as it would with the statement put back in the cache.
            stmt.clear_bindings();
            if huge {
                crate::memory::release();
            }
        }
        if !self.run_touched {
            self.touch(Touch::Run, &run_id)?;
            self.run_touched = true;
        }
        if let Some(Pending {
            run_id: pending_run,
            decisions: list,
            kept_bytes,
            ..
        }) = &mut self.pending
            && *pending_run == run_id
        {
            list.retain(|x| x.step() != step);
            stored.set_id(id);
            *kept_bytes = kept_bytes.saturating_add(payload_bytes);
            if *kept_bytes > super::RUN_KEEP_MAX {
                // Too much to hold: the run's audit reads them back.
                list.iter_mut().for_each(|x| x.kept = None);
                stored.kept = None;
            }
            list.push(stored);
        }
        Ok(())
    }
}
