//! Stored values read back into model values: policies, retrieval
//! candidates, labels, name lists and spelled enums. rung wrote them, so a
//! value that does not decode means the database was changed or damaged:
//! it is an error naming the database, table, row and column, never a
//! default (a default can change a decision's rung).

use rusqlite::Connection;
use serde::de::DeserializeOwned;

use super::dense;
use super::names::{Names, is_packed_list};
use crate::error::{Error, Result, StoredError};
use crate::model::{Candidate, Effect, Label, Policy, Retrieval};
use crate::text::echo;

/// What the user can do about a damaged database.
const DAMAGED: &str = "the database was changed outside rung or is damaged: import the traces again into a new database";

/// The tables whose stored values are decoded, as errors name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    Meta,
    Runs,
    Decisions,
    Payloads,
    Cases,
    Tools,
    Ladder,
}

impl Table {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Table::Meta => "meta",
            Table::Runs => "runs",
            Table::Decisions => "decisions",
            Table::Payloads => "payloads",
            Table::Cases => "cases",
            Table::Tools => "tools",
            Table::Ladder => "ladder",
        }
    }
}

/// One stored row whose values are being decoded. `row` says which row as
/// a user finds it again (`row id 17 (run "r-1" step 3)`); it runs only on
/// error.
pub(crate) struct Stored<'a> {
    conn: &'a Connection,
    table: Table,
    row: &'a dyn Fn() -> String,
    /// The interned tool names, for packed lists and menus.
    names: Option<&'a Names>,
}

impl<'a> Stored<'a> {
    pub(crate) fn new(conn: &'a Connection, table: Table, row: &'a dyn Fn() -> String) -> Self {
        Stored {
            conn,
            table,
            row,
            names: None,
        }
    }

    /// Reads packed lists and menus (ids) with these names.
    pub(crate) fn with_names(mut self, names: &'a Names) -> Self {
        self.names = Some(names);
        self
    }

    fn ids_to_names(&self, column: &'static str, ids: &[u64]) -> Result<Vec<String>> {
        let Some(names) = self.names else {
            return Err(self.damaged(column, "a packed list was not expected here".into()));
        };
        names.ids_to_names(ids).map_err(|m| self.damaged(column, m))
    }

    /// The error for a value of `column` in this row.
    pub(crate) fn error(&self, column: &'static str, message: String) -> Error {
        Error::Stored(StoredError {
            db: self.conn.path().unwrap_or_default().to_string(),
            table: self.table.as_str(),
            row: (self.row)(),
            column,
            message,
        })
    }

    pub(crate) fn damaged(&self, column: &'static str, what: String) -> Error {
        self.error(column, format!("{what}; {DAMAGED}"))
    }

    /// A JSON column (NULL: `None`).
    pub(crate) fn json<T: DeserializeOwned>(
        &self,
        column: &'static str,
        s: Option<String>,
    ) -> Result<Option<T>> {
        s.map(|s| {
            serde_json::from_str(&s)
                .map_err(|e| self.damaged(column, format!("the stored JSON does not decode ({e})")))
        })
        .transpose()
    }

    /// A list of names stored as JSON: names, or packed as ids.
    pub(crate) fn list(
        &self,
        column: &'static str,
        s: Option<String>,
    ) -> Result<Option<Vec<String>>> {
        match s {
            Some(t) if t.starts_with(dense::LIST) => {
                let ids = dense::list_ids(&t).ok_or_else(|| {
                    self.damaged(column, "the packed list does not decode".into())
                })?;
                self.ids_to_names(column, &ids).map(Some)
            }
            Some(t) if is_packed_list(&t) => match self.json::<Vec<u64>>(column, Some(t))? {
                Some(ids) => self.ids_to_names(column, &ids).map(Some),
                None => Ok(None),
            },
            s => self.json(column, s),
        }
    }

    /// A column holding one spelling of an enum (a rung, a status, ...).
    pub(crate) fn spelled<T>(
        &self,
        column: &'static str,
        s: String,
        parse: fn(&str) -> Option<T>,
        spellings: fn() -> String,
    ) -> Result<T> {
        parse(&s).ok_or_else(|| {
            self.damaged(
                column,
                format!("{} is not one of {}", echo(&s), spellings()),
            )
        })
    }

    /// Like [`Stored::spelled`], for a column that may be NULL.
    pub(crate) fn spelled_opt<T>(
        &self,
        column: &'static str,
        s: Option<String>,
        parse: fn(&str) -> Option<T>,
        spellings: fn() -> String,
    ) -> Result<Option<T>> {
        s.map(|s| self.spelled(column, s, parse, spellings))
            .transpose()
    }

    /// An exposure policy.
    pub(crate) fn policy(&self, column: &'static str, s: Option<String>) -> Result<Option<Policy>> {
        let s = match s {
            // Dense (schema 7): its JSON rebuilt as the views rebuild it.
            Some(t) if t.starts_with(dense::POLICY) => {
                Some(dense::policy_json(&t).ok_or_else(|| {
                    self.damaged(column, "the packed policy does not decode".into())
                })?)
            }
            s => s,
        };
        let Some(p) = self.json::<PolicyRow>(column, s)? else {
            return Ok(None);
        };
        let max_effect = match p.max_effect {
            None => None,
            Some(e) => Some(Effect::parse(&e).ok_or_else(|| {
                self.damaged(
                    column,
                    format!(
                        "max_effect {} is not one of {}",
                        echo(&e),
                        Effect::spellings()
                    ),
                )
            })?),
        };
        Ok(Some(Policy {
            allowed_families: p.allowed_families,
            max_effect,
            allow_open_world: p.allow_open_world,
            extra: serde_json::Value::Null,
        }))
    }

    /// A retrieval stage: k and the ranked candidates.
    pub(crate) fn retrieval(
        &self,
        column: &'static str,
        s: Option<String>,
    ) -> Result<Option<Retrieval>> {
        if let Some(t) = s.as_deref().filter(|t| t.starts_with(dense::RETRIEVAL)) {
            // Dense (schema 7): see `dense.rs`.
            let (k, _, pairs) = dense::retrieval_parts(t).ok_or_else(|| {
                self.damaged(column, "the packed retrieval does not decode".into())
            })?;
            return Ok(Some(self.named_candidates(column, k, pairs)?));
        }
        let Some(r) = self.json::<RetrievalRow>(column, s)? else {
            return Ok(None);
        };
        let mut candidates: Vec<Candidate> = r
            .candidates
            .into_iter()
            .map(|c| Candidate {
                name: c.name,
                score: c.score,
                extra: serde_json::Value::Null,
            })
            .collect();
        if let Some(p) = r.p {
            // Packed (schema 5): see `pack.rs`.
            let pairs = super::pack::candidates_from_text(&p).ok_or_else(|| {
                self.damaged(column, "the packed candidates do not decode".into())
            })?;
            return Ok(Some(self.named_candidates(column, r.k, pairs)?));
        } else if let Some(flat) = r.c {
            // Packed: id, score pairs.
            if flat.len() % 2 != 0 {
                return Err(self.damaged(column, "the packed candidates are not pairs".into()));
            }
            let ids: Vec<u64> = flat
                .chunks(2)
                .map(|p| p[0].and_then(|v| (v >= 0.0 && v.fract() == 0.0).then_some(v as u64)))
                .collect::<Option<_>>()
                .ok_or_else(|| self.damaged(column, "a packed candidate has no id".into()))?;
            let names = self.ids_to_names(column, &ids)?;
            candidates = names
                .into_iter()
                .zip(flat.chunks(2))
                .map(|(name, p)| Candidate {
                    name,
                    score: p[1],
                    extra: serde_json::Value::Null,
                })
                .collect();
        }
        Ok(Some(Retrieval {
            k: r.k,
            selector: None,
            query: None,
            candidates,
            extra: serde_json::Value::Null,
        }))
    }

    /// A retrieval of packed candidates (tool name id, score), named.
    fn named_candidates(
        &self,
        column: &'static str,
        k: u32,
        pairs: Vec<(u64, Option<f64>)>,
    ) -> Result<Retrieval> {
        let ids: Vec<u64> = pairs.iter().map(|(id, _)| *id).collect();
        let names = self.ids_to_names(column, &ids)?;
        Ok(Retrieval {
            k,
            selector: None,
            query: None,
            candidates: names
                .into_iter()
                .zip(pairs)
                .map(|(name, (_, score))| Candidate {
                    name,
                    score,
                    extra: serde_json::Value::Null,
                })
                .collect(),
            extra: serde_json::Value::Null,
        })
    }

    /// An inline label (`{"acceptable": [...], "forbidden": [...]}`).
    pub(crate) fn label(&self, column: &'static str, s: Option<String>) -> Result<Option<Label>> {
        if let Some(t) = s.as_deref().filter(|t| t.starts_with(dense::LABEL)) {
            // Dense (schema 7): see `dense.rs`.
            let (a, f) = dense::label_ids(t)
                .ok_or_else(|| self.damaged(column, "the packed label does not decode".into()))?;
            return Ok(Some(Label::new(
                self.ids_to_names(column, &a)?,
                self.ids_to_names(column, &f)?,
            )));
        }
        Ok(self
            .json::<LabelRow>(column, s)?
            .map(|l| Label::new(l.acceptable, l.forbidden)))
    }

    /// A label kept as two lists (`acceptable` NULL: none).
    pub(crate) fn label_lists(
        &self,
        acceptable: (&'static str, Option<String>),
        forbidden: (&'static str, Option<String>),
    ) -> Result<Option<Label>> {
        let Some(a) = self.list(acceptable.0, acceptable.1)? else {
            return Ok(None);
        };
        let f = self.list(forbidden.0, forbidden.1)?.unwrap_or_default();
        Ok(Some(Label::new(a, f)))
    }
}

/// The parts of stored JSON the ladder reads, parsed straight into typed
/// values (unknown fields ignored): this runs once per decision.
#[derive(serde::Deserialize)]
struct PolicyRow {
    allowed_families: Option<Vec<String>>,
    max_effect: Option<String>,
    #[serde(default)]
    allow_open_world: bool,
}

#[derive(serde::Deserialize)]
struct CandidateRow {
    name: String,
    score: Option<f64>,
}

#[derive(serde::Deserialize)]
struct RetrievalRow {
    k: u32,
    #[serde(default)]
    candidates: Vec<CandidateRow>,
    /// Packed (schema 3): tool name id, score, id, score, ...
    c: Option<Vec<Option<f64>>>,
    /// Packed (schema 5): the candidates as characters (`pack.rs`).
    p: Option<String>,
}

#[derive(serde::Deserialize)]
struct LabelRow {
    acceptable: Vec<String>,
    #[serde(default)]
    forbidden: Vec<String>,
}
