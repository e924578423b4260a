//! Classification's caches (catalogue views, a task's cases, the reason
//! table) and a decision's effective menu, inherited from its run.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};

use super::stored::{StoredCase, StoredMenu, load_cases, load_catalogue, load_catalogue_schemas};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ladder::schema::{SchemaChecker, ToolSchemas};
use crate::ladder::{CatalogueView, EffectRules, ErrorStages, Menu, ReasonTable};
use crate::model::{Policy, Retrieval};
use crate::redact::Redactor;
use crate::store::finding_ids::FindingIds;
use crate::store::held::Held;
use crate::store::names::{Names, Packer};

/// Caches of what classification reads besides the run itself.
pub(crate) struct Context<'c> {
    pub(super) conn: &'c Connection,
    pub(super) reasons: ReasonTable,
    pub(super) abstain: String,
    /// `[effects]` and `[error_stages]` (format v1.1).
    pub(super) effect_rules: EffectRules,
    pub(super) error_stages: ErrorStages,
    /// Masks what the classifier stores from a trace (finding details,
    /// typed errors): the built-in patterns and the configuration's.
    pub(super) redactor: Redactor,
    /// Validates arguments against their schemas (§8), keeping compiled
    /// schemas.
    pub(super) schema_checker: SchemaChecker,
    catalogues: HashMap<String, Option<Arc<CatalogueView>>>,
    catalogue_schemas: HashMap<String, Rc<ToolSchemas>>,
    cases: HashMap<String, Rc<Vec<StoredCase>>>,
    /// Catalogues whose decisions were classified (before or after): their
    /// catalogue-level findings must be recomputed.
    pub(crate) finding_catalogues: BTreeSet<String>,
    /// Interned tool names and shared menus (schema 3).
    pub(super) packer: Packer,
    /// The verdicts' catalogues as `catalogue_ids` ids, their lists as
    /// `ladder_lists` ids (schema 6).
    pub(super) catalogue_ids: super::codes::Interned,
    pub(super) ladder_lists: super::codes::Interned,
    /// What the audit findings keep across runs.
    pub(super) audit: super::audit::AuditCache,
    /// The ids findings are stored with (this transaction's).
    pub(super) finding_ids: FindingIds,
    /// Findings being formatted on the classifying thread, stored in run
    /// order.
    pub(super) pipe: super::pipe::FindingPipe,
    /// The statements run for every decision, kept prepared.
    pub(crate) held: Held<'c>,
    /// The indexes dropped while an empty database fills
    /// ([`Context::defer_indexes`]): each one's `CREATE INDEX` statement and
    /// whether the import itself reads through it.
    deferred: Vec<(String, bool)>,
    /// The database was empty: the counts are written whole at the end of
    /// the batch, then packed ([`crate::store::agg::pack`]).
    pack_counts: bool,
}

/// The indexes of verdicts and findings that an import into an empty
/// database builds once instead of row by row: their rows arrive out of
/// key order (a rung, a time, findings a few runs late), so built as they
/// come their pages are left an eighth empty; built from the finished table
/// they are packed. With each, whether the import reads through it
/// (classifying a run again, the counts at the end), or only the reports.
/// The runs' `runs_sort` too: each run's entry would change as the run is
/// classified, and built at the end its pages lie together, read at once
/// when the file is not in the page cache.
const DEFERRABLE: [(&str, bool); 4] = [
    ("finding_rows_run", true),
    ("ladder_rung", false),
    ("ladder_time", true),
    ("runs_sort", false),
];

/// The end of a first import: the counts packed, the indexes not read
/// through built ([`Context::take_finishing`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Finishing {
    pack: bool,
    indexes: Vec<String>,
}

impl Finishing {
    /// Does it, inside the caller's transaction (again after a rollback:
    /// it changes nothing it has not done).
    pub(crate) fn run(&self, conn: &Connection) -> Result<()> {
        if self.pack {
            crate::store::agg::pack(conn)?;
        }
        for sql in &self.indexes {
            // Another rung may have built it meanwhile (`Store::open_rw`).
            let sql = match sql.strip_prefix("CREATE INDEX ") {
                Some(rest) => format!("CREATE INDEX IF NOT EXISTS {rest}"),
                None => sql.clone(),
            };
            conn.execute_batch(&sql)?;
        }
        Ok(())
    }
}

impl<'c> Context<'c> {
    /// A configuration is validated before it is stored or used, so its
    /// patterns compile; one that does not is an error here all the same,
    /// never a classifier without masking or error stages.
    pub(crate) fn new(conn: &'c Connection, config: &Config) -> Result<Context<'c>> {
        Ok(Context {
            conn,
            reasons: config.reason_table(),
            abstain: config.abstain().to_string(),
            effect_rules: config.effect_rules(),
            error_stages: config.error_stages().map_err(Error::usage)?,
            redactor: Redactor::new(&config.redact.patterns, false)?,
            schema_checker: SchemaChecker::new(),
            catalogues: HashMap::new(),
            catalogue_schemas: HashMap::new(),
            cases: HashMap::new(),
            finding_catalogues: BTreeSet::new(),
            packer: Packer::default(),
            catalogue_ids: super::codes::Interned::catalogues(),
            ladder_lists: super::codes::Interned::lists(),
            audit: super::audit::AuditCache::new(config)?,
            finding_ids: FindingIds::default(),
            pipe: super::pipe::FindingPipe::new(config),
            held: Held::new(conn),
            deferred: Vec::new(),
            pack_counts: false,
        })
    }

    /// When no verdict and no finding is stored yet, drops the
    /// [`DEFERRABLE`] indexes within the caller's transaction (a rollback
    /// brings them back): [`Context::build_deferred`] builds those the
    /// import reads through before it does, [`Context::take_finishing`]
    /// the rest at the end.
    pub(crate) fn defer_indexes(&mut self) -> Result<()> {
        let empty: bool = self.conn.query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM ladder_rows)
                AND NOT EXISTS (SELECT 1 FROM finding_rows)",
            [],
            |r| r.get(0),
        )?;
        if !empty {
            return Ok(());
        }
        self.pack_counts = true;
        for (name, needed) in DEFERRABLE {
            let sql: Option<String> = self
                .conn
                .query_row(
                    "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                    [name],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(sql) = sql {
                self.conn.execute_batch(&format!("DROP INDEX \"{name}\""))?;
                self.deferred.push((sql, needed));
            }
        }
        Ok(())
    }

    /// Builds the dropped indexes the import reads through (none when
    /// [`Context::defer_indexes`] dropped none, or they were built).
    pub(crate) fn build_deferred(&mut self) -> Result<()> {
        self.build(|needed| needed)
    }

    /// What is left for the end of the batch, after the counts (which an
    /// import counts after its commit, `agg::parallel`): packing the counts
    /// when the database was empty, then building every index still
    /// dropped (on the pages packing freed).
    pub(crate) fn take_finishing(&mut self) -> Finishing {
        Finishing {
            pack: std::mem::take(&mut self.pack_counts),
            indexes: std::mem::take(&mut self.deferred)
                .into_iter()
                .map(|(sql, _)| sql)
                .collect(),
        }
    }

    fn build(&mut self, which: impl Fn(bool) -> bool) -> Result<()> {
        let (now, later) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|(_, needed)| which(*needed));
        self.deferred = later;
        for (sql, _) in now {
            self.conn.execute_batch(&sql)?;
        }
        Ok(())
    }

    /// The interner of tool names and menus for this batch.
    pub(crate) fn packer(&mut self) -> &mut Packer {
        &mut self.packer
    }

    /// The interned tool names.
    pub(crate) fn names(&mut self) -> Result<&Names> {
        self.packer.names(self.conn)
    }

    /// Forgets a cached catalogue (it changed).
    pub(crate) fn forget_catalogue(&mut self, version: &str) {
        self.catalogues.remove(version);
        self.audit.forget(version);
        self.catalogue_schemas.remove(version);
    }

    /// The argument schemas of a known catalogue's tools.
    pub(super) fn catalogue_schemas(&mut self, version: &str) -> Result<Option<Rc<ToolSchemas>>> {
        if self.catalogue(version)?.is_none() {
            return Ok(None);
        }
        if let Some(s) = self.catalogue_schemas.get(version) {
            return Ok(Some(s.clone()));
        }
        let s = Rc::new(load_catalogue_schemas(self.conn, version)?);
        self.catalogue_schemas
            .insert(version.to_string(), s.clone());
        Ok(Some(s))
    }

    /// Forgets a task's cached cases (one was added or replaced).
    pub(crate) fn forget_cases(&mut self, task_id: &str) {
        self.cases.remove(task_id);
    }

    pub(crate) fn catalogue(&mut self, version: &str) -> Result<Option<Arc<CatalogueView>>> {
        if let Some(c) = self.catalogues.get(version) {
            return Ok(c.clone());
        }
        let view = load_catalogue(self.conn, version)?.map(Arc::new);
        self.catalogues.insert(version.to_string(), view.clone());
        Ok(view)
    }

    /// The cases of a run's task (none without a task).
    pub(super) fn run_cases(&mut self, task_id: Option<&str>) -> Result<Rc<Vec<StoredCase>>> {
        match task_id {
            Some(t) => self.cases(t),
            None => Ok(Rc::new(Vec::new())),
        }
    }

    fn cases(&mut self, task_id: &str) -> Result<Rc<Vec<StoredCase>>> {
        if let Some(c) = self.cases.get(task_id) {
            return Ok(c.clone());
        }
        let rows = load_cases(self.conn, task_id)?;
        let rows = Rc::new(rows);
        self.cases.insert(task_id.to_string(), rows.clone());
        Ok(rows)
    }
}

/// Everything the ladder needs for one stored decision, with the run's menu
/// fields inherited where the decision records none.
pub(crate) struct Effective<'a> {
    pub catalogue: Option<Arc<CatalogueView>>,
    pub catalogue_name: Option<&'a str>,
    pub policy: Option<&'a Policy>,
    pub controls: &'a [String],
    pub retrieval: Option<&'a Retrieval>,
    pub visible: Option<&'a [String]>,
}

impl<'a> Effective<'a> {
    /// The abstain name in force: the catalogue's, else `default`.
    pub(super) fn abstain_or<'s>(&'s self, default: &'s str) -> &'s str {
        self.catalogue
            .as_deref()
            .and_then(|c| c.abstain.as_deref())
            .unwrap_or(default)
    }

    pub(super) fn menu<'m>(&'m self, exposed: Option<&'m [String]>) -> Menu<'m> {
        Menu {
            catalogue: self.catalogue.as_deref(),
            policy: self.policy,
            controls: self.controls,
            retrieval: self.retrieval,
            exposed,
            visible: self.visible,
        }
    }
}

pub(super) fn effective<'a>(
    ctx: &mut Context<'_>,
    d: &'a StoredMenu,
    run: &'a StoredMenu,
) -> Result<Effective<'a>> {
    let catalogue = match d.catalogue.as_deref().or(run.catalogue.as_deref()) {
        Some(c) => ctx.catalogue(c)?,
        None => None,
    };
    Ok(effective_with(d, run, catalogue))
}

/// [`effective`] with the catalogue view already looked up.
pub(super) fn effective_with<'a>(
    d: &'a StoredMenu,
    run: &'a StoredMenu,
    catalogue: Option<Arc<CatalogueView>>,
) -> Effective<'a> {
    let catalogue_name = d.catalogue.as_deref().or(run.catalogue.as_deref());
    Effective {
        catalogue,
        catalogue_name,
        policy: d.policy.as_ref().or(run.policy.as_ref()),
        controls: d
            .controls
            .as_deref()
            .or(run.controls.as_deref())
            .unwrap_or(&[]),
        retrieval: d.retrieval.as_ref().or(run.retrieval.as_ref()),
        visible: d.visible.as_deref().or(run.visible.as_deref()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{OrderedTable, Redact};
    use crate::store::classify::audit::AuditCache;

    /// A configuration `validate` would refuse, as a corrupt or hand-edited
    /// stored one could hold: a `[redact]` pattern that does not compile.
    fn bad_redact() -> Config {
        Config {
            redact: Redact {
                patterns: vec!["cus_[0-9]+".into(), "ab(".into()],
            },
            ..Config::default()
        }
    }

    #[test]
    fn a_redact_pattern_that_does_not_compile_is_an_error_not_no_masking() {
        let conn = Connection::open_in_memory().unwrap();
        let Err(e) = Context::new(&conn, &bad_redact()) else {
            panic!("a classifier was built without the configured masking");
        };
        assert!(matches!(e, Error::Usage(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "[redact] patterns[1] \"ab(\": not a valid regular expression: unclosed group"
        );
        let Err(e) = AuditCache::new(&bad_redact()) else {
            panic!("the audit was built without the configured masking");
        };
        assert_eq!(
            e.to_string(),
            "[redact] patterns[1] \"ab(\": not a valid regular expression: unclosed group"
        );
    }

    #[test]
    fn an_error_stage_pattern_that_does_not_compile_is_an_error_not_no_stages() {
        let conn = Connection::open_in_memory().unwrap();
        let config = Config {
            error_stages: OrderedTable(vec![("ab(".into(), "execution".into())]),
            ..Config::default()
        };
        let Err(e) = Context::new(&conn, &config) else {
            panic!("a classifier was built without the configured error stages");
        };
        assert!(matches!(e, Error::Usage(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "[error_stages] \"ab(\": not a regular expression: regex parse error:\n    ab(\n      ^\nerror: unclosed group"
        );
    }

    #[test]
    fn a_valid_configuration_builds_the_context() {
        let conn = Connection::open_in_memory().unwrap();
        let mut config = bad_redact();
        config.redact.patterns.pop();
        assert!(Context::new(&conn, &config).is_ok());
        assert!(AuditCache::new(&config).is_ok());
    }
}
