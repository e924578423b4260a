//! The filter bar's completions: every model, catalogue, phase and tag
//! (key and value) stored, with how many runs or decisions have it; and
//! whether a filter keeps any decision (to warn before it empties the
//! screen).

use rusqlite::Connection;

use super::filter_sql::FilterSql;
use crate::error::Result;
use crate::filter::Filter;

/// Known values of the filter's fields with their counts, most common first
/// (then by value). Models and tags count runs; catalogues and phases count
/// decisions (the unit each field filters).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completions {
    pub models: Vec<(String, u64)>,
    pub catalogues: Vec<(String, u64)>,
    pub phases: Vec<(String, u64)>,
    /// (key, value, runs).
    pub tags: Vec<(String, String, u64)>,
}

/// The index the model counts (and filters on them) read: created when a
/// database is opened to write, so that a database made before it gains
/// it; a database without it is still answered, by a scan. Since schema 14
/// it holds each run's task and success too (pass^k under a model filter
/// reads it alone); the migration makes it so. (Catalogue and
/// phase counts come from the kept counts, `agg_*`; while those do not
/// answer, from a scan of the verdicts.)
pub(super) const INDEXES: &str =
    "CREATE INDEX IF NOT EXISTS runs_model ON runs (model, task_id, success);";

fn pairs(conn: &Connection, sql: &str) -> Result<Vec<(String, u64)>> {
    Ok(conn
        .prepare_cached(sql)?
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?
        .collect::<rusqlite::Result<_>>()?)
}

/// Values with their counts, most common first (then by value).
type Counted = Vec<(String, u64)>;

/// Decisions by catalogue and by phase, most common first (then by value):
/// from the kept counts, else one pass over the verdicts.
pub(super) fn catalogues_and_phases(conn: &Connection) -> Result<(Counted, Counted)> {
    let mut catalogues: Vec<(String, u64)> = Vec::new();
    let mut phases: Vec<(String, u64)> = Vec::new();
    let rows = match super::agg::read::scope(conn, &Filter::default())? {
        Some(s) => super::agg::read::catalogue_phases(conn, &s)?,
        None => conn
            .prepare_cached(
                "SELECT catalogue, phase, count(*) FROM ladder GROUP BY catalogue, phase",
            )?
            .query_map([], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, i64>(2)? as u64,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    let add =
        |v: &mut Vec<(String, u64)>, k: String, n: u64| match v.iter_mut().find(|(x, _)| *x == k) {
            Some((_, m)) => *m += n,
            None => v.push((k, n)),
        };
    for (c, p, n) in rows {
        if let Some(c) = c {
            add(&mut catalogues, c, n);
        }
        if let Some(p) = p {
            add(&mut phases, p, n);
        }
    }
    let order = |v: &mut Vec<(String, u64)>| v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    order(&mut catalogues);
    order(&mut phases);
    Ok((catalogues, phases))
}

/// Every value the filter bar completes, with its count.
pub fn completions(conn: &Connection) -> Result<Completions> {
    let (catalogues, phases) = catalogues_and_phases(conn)?;
    let models = pairs(
        conn,
        "SELECT model, count(*) FROM runs WHERE model IS NOT NULL
         GROUP BY model ORDER BY count(*) DESC, model",
    )?;
    let tags = tags(conn)?;
    Ok(Completions {
        models,
        catalogues,
        phases,
        tags,
    })
}

/// Every tag (key, value) with how many runs have it, most common first.
/// Only text values: the filter compares a tag's value as text, so a number
/// or a list offered here would match nothing. Runs share few distinct tag
/// sets, and `agg_tags` (schema 14, kept by triggers on `runs`) counts the
/// runs of each stored text: each is read once, and not the runs (at
/// 5,000,000 decisions their table is 197 MB, a second's read from disk).
/// A text that is not a JSON object offers nothing.
fn tags(conn: &Connection) -> Result<Vec<(String, String, u64)>> {
    let mut runs: std::collections::HashMap<(String, String), u64> = Default::default();
    let mut stmt = conn.prepare_cached("SELECT tags, runs FROM agg_tags")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let Ok(text) = r.get_ref(0)?.as_str() else {
            continue;
        };
        let n = r.get::<_, i64>(1)? as u64;
        let Ok(serde_json::Value::Object(map)) = serde_json::from_str(text) else {
            continue;
        };
        for (key, value) in map {
            if let serde_json::Value::String(value) = value {
                *runs.entry((key, value)).or_default() += n;
            }
        }
    }
    let mut tags: Vec<(String, String, u64)> =
        runs.into_iter().map(|((k, v), n)| (k, v, n)).collect();
    tags.sort_unstable_by(|a, b| b.2.cmp(&a.2).then_with(|| (&a.0, &a.1).cmp(&(&b.0, &b.1))));
    Ok(tags)
}

/// Whether `f` keeps at least one decision, through the same WHERE clause
/// the screens count with (stops at the first).
pub fn filter_keeps_any(conn: &Connection, f: &Filter) -> Result<bool> {
    let (clause, args) = f.decision_clause();
    let sql = format!("SELECT EXISTS (SELECT 1 {} WHERE {clause})", f.from());
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(rusqlite::params_from_iter(args), |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE runs (run_id TEXT PRIMARY KEY, model TEXT, tags TEXT, task_id TEXT,
                                success INTEGER);
             CREATE TABLE ladder (decision_id INTEGER PRIMARY KEY, run_id TEXT, catalogue TEXT,
                                  phase TEXT, time_us INTEGER);
             INSERT INTO runs (run_id, model, tags) VALUES ('a', 'm1', '{\"suite\":\"x\",\"n\":3}'),
                                     ('b', 'm1', '{\"suite\":\"y\"}'),
                                     ('c', 'm2', NULL), ('d', NULL, 'not json'),
                                     ('e', 'm2', '{\"suite\":\"y\"}'), ('f', NULL, '[\"y\"]');
             INSERT INTO ladder (run_id, catalogue, phase) VALUES
                ('a', 'v1', 'plan'), ('a', 'v1', 'act'), ('b', 'v2', 'act'),
                ('c', NULL, 'act'), ('d', 'v1', NULL);",
        )
        .unwrap();
        conn.execute_batch(INDEXES).unwrap();
        // The tag counts as the migration fills them from the runs above.
        conn.execute_batch(include_str!("schema_v14.sql")).unwrap();
        conn
    }

    #[test]
    fn every_value_comes_with_its_count_most_common_first() {
        let c = completions(&db()).unwrap();
        let s = |v: &[(&str, u64)]| {
            v.iter()
                .map(|(a, n)| (a.to_string(), *n))
                .collect::<Vec<_>>()
        };
        assert_eq!(c.models, s(&[("m1", 2), ("m2", 2)]));
        assert_eq!(c.catalogues, s(&[("v1", 3), ("v2", 1)]));
        assert_eq!(c.phases, s(&[("act", 3), ("plan", 1)]));
        // Text values only (a number would not match the filter); text
        // that is not a JSON object has no tags; two runs with the same
        // tags count twice.
        assert_eq!(
            c.tags,
            vec![
                ("suite".to_string(), "y".to_string(), 2),
                ("suite".to_string(), "x".to_string(), 1),
            ]
        );
    }

    #[test]
    fn the_tag_counts_follow_every_write_of_a_run() {
        let conn = db();
        // Inserted with tags, changed to another run's, cleared, set where
        // there were none, deleted: `agg_tags` keeps up through its triggers.
        conn.execute_batch(
            "INSERT INTO runs (run_id, model, tags) VALUES ('g', NULL, '{\"suite\":\"x\"}'), ('h', NULL, '{\"suite\":\"z\"}'),
                                     ('i', NULL, NULL);
             UPDATE runs SET tags = '{\"suite\":\"y\"}' WHERE run_id = 'h';
             UPDATE runs SET tags = NULL WHERE run_id = 'a';
             UPDATE runs SET tags = '{\"suite\":\"x\",\"n\":3}' WHERE run_id = 'c';
             UPDATE runs SET model = 'm3', tags = tags WHERE run_id = 'b';
             DELETE FROM runs WHERE run_id IN ('f', 'i');",
        )
        .unwrap();
        let pairs = |sql: &str| -> Vec<(String, i64)> {
            conn.prepare(sql)
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        let kept = pairs("SELECT tags, runs FROM agg_tags ORDER BY tags");
        let counted = pairs(
            "SELECT tags, count(*) FROM runs WHERE tags IS NOT NULL GROUP BY tags ORDER BY tags",
        );
        assert_eq!(kept, counted);
        // No row of a count fallen to 0 ('[\"y\"]', a's and h's first).
        assert_eq!(
            kept,
            [
                ("not json", 1),
                ("{\"suite\":\"x\",\"n\":3}", 1),
                ("{\"suite\":\"x\"}", 1),
                ("{\"suite\":\"y\"}", 3),
            ]
            .map(|(t, n)| (t.to_string(), n))
        );
        assert_eq!(
            completions(&conn).unwrap().tags,
            vec![
                ("suite".to_string(), "y".to_string(), 3),
                ("suite".to_string(), "x".to_string(), 2),
            ]
        );
    }

    #[test]
    fn a_filter_that_keeps_nothing_is_told_apart() {
        let conn = db();
        let f = |models: &[&str], phases: &[&str]| Filter {
            models: models.iter().map(|s| s.to_string()).collect(),
            phases: phases.iter().map(|s| s.to_string()).collect(),
            ..Filter::default()
        };
        assert!(filter_keeps_any(&conn, &f(&["m1"], &["plan"])).unwrap());
        assert!(filter_keeps_any(&conn, &f(&["m2"], &[])).unwrap());
        assert!(!filter_keeps_any(&conn, &f(&["m2"], &["plan"])).unwrap());
        assert!(!filter_keeps_any(&conn, &f(&["nope"], &[])).unwrap());
    }
}
