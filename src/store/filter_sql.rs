//! A [`Filter`] as SQL: which decisions (or runs) enter a count. The
//! filter itself is plain data in the core; this is the store's half.

use rusqlite::types::Value as Sql;

use crate::filter::Filter;

/// Appends ` AND column IN (?, ...)` for a flag's values (nothing when none).
pub(super) fn push_in(sql: &mut String, args: &mut Vec<Sql>, column: &str, values: &[String]) {
    if values.is_empty() {
        return;
    }
    sql.push_str(&format!(" AND {column} IN ("));
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            sql.push(',');
        }
        sql.push('?');
        args.push(Sql::Text(v.clone()));
    }
    sql.push(')');
}

/// The start of a WHERE clause: the filter's time window over `time`.
fn window(f: &Filter, time: &str) -> (String, Vec<Sql>) {
    let mut sql = String::from("1=1");
    let mut args = Vec::new();
    if let Some(s) = f.since {
        sql.push_str(&format!(" AND {time} >= ?"));
        args.push(Sql::Integer(s));
    }
    if let Some(u) = f.until {
        sql.push_str(&format!(" AND {time} < ?"));
        args.push(Sql::Integer(u));
    }
    (sql, args)
}

/// Every (key, value) of every stored tags text, as a FROM clause: `a` a
/// row of `agg_tags` (a tags text and how many runs have it, kept by
/// triggers on `runs`), `t` one of its pairs. Only a JSON object names
/// tags: any other text (one written by hand with `sqlite3`) names none,
/// rather than failing the query.
pub(super) const TAG_PAIRS: &str = "agg_tags a, json_each(CASE
    WHEN json_valid(a.tags) AND json_type(a.tags) = 'object' THEN a.tags END) t";

/// Where the run-level filters are compared: over the runs themselves, or
/// over the decisions (or verdicts) of the runs they keep.
#[derive(Clone, Copy, PartialEq)]
enum Over {
    /// `runs r` alone: `+` before the model and catalogue columns (see
    /// [`run_list_clause`]).
    RunList,
    /// `runs r` alone, as SQLite plans it.
    Runs,
    /// Decisions joined to `runs r`; `by_id`: the runs a tag keeps named
    /// by id (see [`push_run_level`]).
    Decisions { by_id: bool },
}

/// The run-level filters.
fn push_run_level(f: &Filter, sql: &mut String, args: &mut Vec<Sql>, over: Over) {
    push_in(
        sql,
        args,
        if over == Over::RunList {
            "+r.model"
        } else {
            "r.model"
        },
        &f.models,
    );
    push_in(sql, args, "r.task_id", &f.tasks);
    push_in(sql, args, "r.run_id", &f.runs);
    if f.tags.is_empty() {
        return;
    }
    // A run's tags are one of the few texts `agg_tags` counts (kept by
    // triggers on `runs`): each tag is looked for in those texts once, not
    // in every run's (or, over decisions, every decision's run's) text.
    // Over decisions, for a count of every decision kept (`by_id`, see
    // [`FilterSql::counting_clause`]), the runs kept are named by id, so
    // that SQLite reads their decisions through the run id's index instead
    // of every verdict with its run looked up.
    let by_id = over == Over::Decisions { by_id: true };
    let column = if by_id {
        sql.push_str(" AND r.run_id IN (SELECT run_id FROM runs WHERE 1=1");
        "tags"
    } else {
        "r.tags"
    };
    for (k, v) in &f.tags {
        sql.push_str(&format!(
            " AND {column} IN (SELECT a.tags FROM {TAG_PAIRS} WHERE t.key = ? AND t.value = ?)"
        ));
        args.push(Sql::Text(k.clone()));
        args.push(Sql::Text(v.clone()));
    }
    if by_id {
        sql.push(')');
    }
}

/// A filter as SQL: the store's half of [`Filter`].
pub trait FilterSql {
    /// A WHERE clause over `ladder l JOIN runs r`.
    fn decision_clause(&self) -> (String, Vec<Sql>);
    /// [`FilterSql::decision_clause`] for a count over every decision the
    /// filter keeps: a tag's runs named by id, so that SQLite starts from
    /// them rather than from every verdict (at 5,000,000 decisions and a
    /// tag one run in sixteen has: the ladder report 0.6 s against 9.4 s).
    /// Not where an index serves the rest of the query better (a page in
    /// id order, the SELECTION failures through `ladder_rung`), nor under a
    /// time window: SQLite keeps no statistics to weigh the list against
    /// it, and would start from the list (the refusals report, a week by
    /// default and a tag every run has: 1.1 s against 0.05 s).
    fn counting_clause(&self) -> (String, Vec<Sql>);
    /// A WHERE clause over `runs r` for run-level reports (pass^k, runs):
    /// a run's time is its `started_at`, else its earliest decision's.
    fn run_clause(&self) -> (String, Vec<Sql>);
    /// The FROM clause the decision filters need: `runs` is joined only when
    /// a run-level filter is set (it is a cost on every row otherwise).
    fn from(&self) -> &'static str;
    /// [`FilterSql::from`] for a count that reads only the verdict's own
    /// columns (not `run_id`, `step`, `turn`, `phase`, `selected`, `status`
    /// or `reason`): without a run-level or phase filter, `ladder_verdicts`,
    /// which looks no decision up.
    fn verdicts_from(&self) -> &'static str;
    /// [`FilterSql::decision_clause`] over [`FilterSql::rows_from`]: the
    /// stored verdicts `ladder_rows l` (catalogue as its id) and their
    /// decisions `decision_rows d`.
    fn rows_clause(&self) -> (String, Vec<Sql>);
    /// [`FilterSql::rows_clause`] for a count over every decision the
    /// filter keeps (see [`FilterSql::counting_clause`]).
    fn counting_rows_clause(&self) -> (String, Vec<Sql>);
    /// The FROM clause of a report that reads the stored verdicts directly
    /// (codes and list ids, not the `ladder` view's texts): `ladder_rows l`
    /// with `decision_rows d` (and `runs r` for a run-level filter).
    fn rows_from(&self) -> &'static str;
}

impl FilterSql for Filter {
    fn decision_clause(&self) -> (String, Vec<Sql>) {
        decision_clause_by(self, false)
    }

    fn counting_clause(&self) -> (String, Vec<Sql>) {
        decision_clause_by(self, !self.has_window())
    }

    fn rows_clause(&self) -> (String, Vec<Sql>) {
        rows_clause_by(self, false)
    }

    fn counting_rows_clause(&self) -> (String, Vec<Sql>) {
        rows_clause_by(self, !self.has_window())
    }

    fn rows_from(&self) -> &'static str {
        if self.has_run_filter() {
            "FROM ladder_rows l JOIN decision_rows d ON d.id = l.decision_id
             JOIN runs r ON r.run_id = d.run_id"
        } else {
            "FROM ladder_rows l LEFT JOIN decision_rows d ON d.id = l.decision_id"
        }
    }

    fn run_clause(&self) -> (String, Vec<Sql>) {
        run_clause(self, Over::Runs)
    }

    fn from(&self) -> &'static str {
        if self.has_run_filter() {
            "FROM ladder l JOIN runs r ON r.run_id = l.run_id"
        } else {
            "FROM ladder l"
        }
    }

    fn verdicts_from(&self) -> &'static str {
        if self.has_run_filter() || !self.phases.is_empty() {
            self.from()
        } else {
            "FROM ladder_verdicts l"
        }
    }
}

fn decision_clause_by(f: &Filter, by_id: bool) -> (String, Vec<Sql>) {
    let (mut sql, mut args) = window(f, "l.time_us");
    push_in(&mut sql, &mut args, "l.catalogue", &f.catalogues);
    push_in(&mut sql, &mut args, "l.phase", &f.phases);
    push_run_level(f, &mut sql, &mut args, Over::Decisions { by_id });
    (sql, args)
}

/// [`FilterSql::rows_clause`], the runs a tag keeps named by id or not
/// (`by_id`, see [`FilterSql::counting_clause`]).
pub(super) fn rows_clause_by(f: &Filter, by_id: bool) -> (String, Vec<Sql>) {
    let (mut sql, mut args) = window(f, "l.time_us");
    if !f.catalogues.is_empty() {
        let mut ids = String::from("SELECT id FROM catalogue_ids WHERE 1=1");
        push_in(&mut ids, &mut args, "version", &f.catalogues);
        sql.push_str(&format!(" AND l.catalogue IN ({ids})"));
    }
    push_in(&mut sql, &mut args, "d.phase", &f.phases);
    push_run_level(f, &mut sql, &mut args, Over::Decisions { by_id });
    (sql, args)
}

fn run_clause(f: &Filter, over: Over) -> (String, Vec<Sql>) {
    let (mut sql, mut args) = window(f, "COALESCE(r.started_us, r.first_at_us)");
    let catalogue = if over == Over::RunList {
        "+r.catalogue"
    } else {
        "r.catalogue"
    };
    push_in(&mut sql, &mut args, catalogue, &f.catalogues);
    push_run_level(f, &mut sql, &mut args, over);
    (sql, args)
}

/// [`FilterSql::run_clause`] for a list or a count of the runs themselves
/// (the Runs screen, its tally, `rung report runs`). A model or a
/// catalogue keeps a large share of the runs (a few values each), and
/// through its index SQLite would look up each kept run's row: at
/// 5,000,000 decisions a third of the 197 MB runs table read at random,
/// over a second from disk. Compared after a unary `+`, which no index
/// serves, they are read from `runs_sort` (schema 13), which holds every
/// column these read: 0.1 s from disk. A task or run filter keeps its
/// index (few runs each).
pub(super) fn run_list_clause(f: &Filter) -> (String, Vec<Sql>) {
    run_clause(f, Over::RunList)
}

/// The ids of the runs the run-level filters (model, task, run, tag) keep,
/// as a query over `runs r`. A model is compared as in a list of runs
/// ([`run_list_clause`]): through its index SQLite would read each kept
/// run's row for its id (at 5,000,000 decisions, two models' 332,499 runs:
/// 0.83 s, most of it reading pages; from `runs_sort`, 0.04 s).
pub(super) fn kept_runs(f: &Filter) -> (String, Vec<Sql>) {
    let mut sql = String::from("SELECT r.run_id FROM runs r WHERE 1=1");
    let mut args = Vec::new();
    push_run_level(f, &mut sql, &mut args, Over::RunList);
    (sql, args)
}

/// `WHERE` text over `runs r`: the run-level filters, and when decision-level
/// ones are set, runs with at least one matching decision.
pub(super) fn runs_where(f: &Filter) -> (String, Vec<Sql>) {
    let mut g = f.clone();
    g.since = None;
    g.until = None;
    g.catalogues.clear();
    g.phases.clear();
    let (mut clause, mut args) = run_list_clause(&g);
    if f.has_decision_filter() {
        let (dc, da) = f.decision_clause();
        clause.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM ladder l WHERE l.run_id = r.run_id AND {dc})"
        ));
        args.extend(da);
    }
    (format!("FROM runs r WHERE {clause}"), args)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::{Store, query_plan};

    /// The plan of a count over `from` under a filter's clause.
    fn count_plan(store: &Store, from: &str, (clause, _): (String, Vec<Sql>)) -> String {
        query_plan(
            &store.conn,
            &format!("SELECT count(*) {from} WHERE {clause}"),
        )
    }

    #[test]
    fn a_tag_filter_reads_the_decisions_of_the_runs_it_keeps_by_run_id() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        let f = Filter {
            tags: vec![("suite".into(), "m19".into())],
            ..Filter::default()
        };
        // The tag looked for in the kept tag texts once; the runs with one
        // of them listed by id; their decisions read through the run id.
        let kept = "LIST SUBQUERY 2; SCAN runs; LIST SUBQUERY 1; SCAN a; \
                    SCAN t VIRTUAL TABLE INDEX 1:; CREATE BLOOM FILTER";
        assert_eq!(
            count_plan(&store, f.from(), f.counting_clause()),
            format!(
                "SEARCH r USING COVERING INDEX sqlite_autoindex_runs_1 (run_id=?); {kept}; \
                 SEARCH d USING COVERING INDEX sqlite_autoindex_decision_rows_1 (run_id=?); \
                 SEARCH l USING INTEGER PRIMARY KEY (rowid=?); \
                 SEARCH c USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"
            )
        );
        assert_eq!(
            count_plan(&store, f.rows_from(), f.counting_rows_clause()),
            format!(
                "SEARCH r USING COVERING INDEX sqlite_autoindex_runs_1 (run_id=?); {kept}; \
                 SEARCH d USING COVERING INDEX sqlite_autoindex_decision_rows_1 (run_id=?); \
                 SEARCH l USING INTEGER PRIMARY KEY (rowid=?)"
            )
        );
    }

    #[test]
    fn under_a_time_window_a_tag_is_checked_on_the_decisions_the_window_keeps() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        let f = Filter {
            tags: vec![("suite".into(), "m19".into())],
            since: Some(0),
            ..Filter::default()
        };
        let plan = count_plan(&store, f.from(), f.counting_clause());
        assert!(
            plan.starts_with("SEARCH l USING INDEX ladder_time (time_us>?); "),
            "{plan}"
        );
    }

    #[test]
    fn a_run_filter_reads_only_the_findings_of_the_runs_it_keeps() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        let f = Filter {
            tasks: vec!["t-1".into()],
            ..Filter::default()
        };
        let (sql, _) = crate::store::findings::selected(&f, "count(*)", "");
        let plan = query_plan(&store.conn, &sql);
        // The findings by id, from a list of those about no run or about a
        // run of the task (found through `runs_task`); nothing scanned.
        assert!(
            plan.starts_with(
                "SEARCH x USING INTEGER PRIMARY KEY (rowid=?); LIST SUBQUERY 6; \
                 MULTI-INDEX OR; INDEX 1; SEARCH q USING COVERING INDEX finding_rows_run (run_id=?); \
                 INDEX 2; LIST SUBQUERY 5; \
                 SEARCH n USING COVERING INDEX sqlite_autoindex_finding_names_1 (name=?); \
                 LIST SUBQUERY 4; SEARCH r USING INDEX runs_task (task_id=?); \
                 SEARCH q USING COVERING INDEX finding_rows_run (run_id=?);"
            ),
            "{plan}"
        );
        assert!(!plan.contains("SCAN"), "{plan}");
        // The decision (or run) a finding names looked up without its run,
        // which the list above already checked.
        assert!(
            plan.contains(
                "CORRELATED SCALAR SUBQUERY 1; \
                 SEARCH d USING COVERING INDEX sqlite_autoindex_decision_rows_1 (run_id=? AND step=?); \
                 SEARCH l USING INTEGER PRIMARY KEY (rowid=?); CORRELATED SCALAR SUBQUERY 2; \
                 SEARCH d USING COVERING INDEX sqlite_autoindex_decision_rows_1 (run_id=?); \
                 SEARCH l USING INTEGER PRIMARY KEY (rowid=?); LIST SUBQUERY 3;"
            ),
            "{plan}"
        );
    }
}
