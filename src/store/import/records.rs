//! Writing catalogue, run and case records: insert, or recognise the stored
//! one, or replace it (`--replace`), and mark what must be classified again.

use rusqlite::params;
use serde_json::Value;

use super::identity;
use super::prepared::{extra_text, menu_columns, text};
use super::touched::Touch;
use super::{Batch, differs};
use crate::error::RecordError;
use crate::model::canonical;
use crate::model::{Case, Catalogue, Run, Timestamp};
use crate::store::classify::StoredRun;

impl Batch<'_> {
    pub(super) fn add_catalogue(
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
            })?
            == 1;
        if !inserted {
            let stored: Option<String> = self.conn.query_row(
                "SELECT abstain FROM catalogues WHERE version = ?1",
                [&c.version],
                |r| r.get(0),
            )?;
            if c.abstain.is_some() && stored != c.abstain {
                self.summary.warnings.push(format!(
                    "{source}: catalogue {}: abstain {} differs from the stored {}; a catalogue version is immutable, the stored one stays",
                    c.version,
                    crate::text::echo(c.abstain.as_deref().unwrap_or("")),
                    crate::text::echo(stored.as_deref().unwrap_or("(none)"))
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
                })?
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
                })?
                == 1;
            if new_tool {
                self.summary.tools_added += 1;
                if !inserted {
                    self.summary.tools_added_later += 1;
                }
                changed = true;
                self.touch(Touch::Catalogue, &c.version)?;
                self.ctx.forget_catalogue(&c.version);
                self.touch(Touch::UnclassifyCatalogue, &c.version)?;
            } else if variant {
                self.summary.tools_changed += 1;
                changed = true;
            }
        }
        if changed || inserted {
            self.touch(Touch::Findings, &c.version)?;
        }
        // A version seen again is not replaced (what it gained is counted
        // in `tools_added_later` and `tools_changed`).
        if inserted {
            self.summary.catalogues.new += 1;
        } else if !changed {
            self.summary.catalogues.unchanged += 1;
        }
        Ok(())
    }

    pub(super) fn add_run(&mut self, source: &str, r: Run) -> std::result::Result<(), RecordError> {
        let [policy, controls, retrieval, visible] = menu_columns(&r.menu)?;
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
        let cols = identity::RunColumns {
            policy,
            controls,
            retrieval,
            visible,
            started,
            ended,
            tags,
            extra,
        };
        let hash = identity::run(&r, &cols);
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
            cols.policy,
            cols.controls,
            cols.retrieval,
            cols.visible,
            cols.started,
            r.started_at.map(Timestamp::micros),
            cols.ended,
            r.terminated.map(|t| t.as_str()),
            r.success,
            r.harm,
            r.scope,
            cols.tags,
            cols.extra,
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
            .and_then(|mut s| s.execute(values))?
            == 1;
        if inserted {
            self.summary.runs.new += 1;
            let id = r.run_id.clone();
            self.run_written(r)?;
            self.new_run = Some(id);
            return Ok(());
        }
        let (stored, stored_source): (Option<Vec<u8>>, Option<String>) = self.conn.query_row(
            "SELECT record_hash, source FROM runs WHERE run_id = ?1",
            [&r.run_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
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
            .and_then(|mut s| s.execute(values))?;
        self.run_written(r)
    }

    fn run_written(&mut self, r: Run) -> std::result::Result<(), RecordError> {
        self.touch(Touch::Run, &r.run_id)?;
        self.touch(Touch::UnclassifyRun, &r.run_id)?;
        self.last_run = Some((r.run_id.clone(), StoredRun::from_model(r)));
        Ok(())
    }

    pub(super) fn add_case(
        &mut self,
        source: &str,
        c: Case,
    ) -> std::result::Result<(), RecordError> {
        let key = serde_json::json!([c.task_id, c.step, c.catalogue]).to_string();
        // Labels are sets: sorted, so their order in the file does not matter.
        let acceptable = text(&serde_json::json!(c.label.as_ref().map(|l| &l.acceptable)));
        let forbidden = text(&serde_json::json!(c.label.as_ref().map(|l| &l.forbidden)));
        let extra = extra_text(&c.extra);
        let hash = identity::case(
            &key,
            &acceptable,
            &forbidden,
            c.note.as_deref(),
            extra.as_deref(),
        );
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
            .and_then(|mut s| s.execute(values))?
            == 1;
        if inserted {
            self.summary.cases.new += 1;
            return self.case_written(&c.task_id);
        }
        let (stored, stored_source): (Vec<u8>, Option<String>) = self.conn.query_row(
            "SELECT record_hash, source FROM cases WHERE key = ?1",
            [&key],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
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
            .and_then(|mut s| s.execute(values))?;
        self.case_written(&c.task_id)
    }

    fn case_written(&mut self, task_id: &str) -> std::result::Result<(), RecordError> {
        self.ctx.forget_cases(task_id);
        self.touch(Touch::Task, task_id)?;
        self.touch(Touch::UnclassifyTask, task_id)
    }
}
