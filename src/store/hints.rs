//! The filter bar's hints: a few known values of each field, most common first.

use rusqlite::Connection;

use super::filter_sql::TAG_PAIRS;
use crate::error::Result;

/// The `--tag` check's three queries (see [`unmatched`]).
static TAG_SQL: std::sync::OnceLock<[String; 3]> = std::sync::OnceLock::new();

/// Known values for the filter bar's fields (a few of each, most common first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterHints {
    pub models: Vec<String>,
    pub catalogues: Vec<String>,
    pub phases: Vec<String>,
    pub tags: Vec<String>,
}

pub fn filter_hints(conn: &Connection) -> Result<FilterHints> {
    let list = |sql: &str| -> Result<Vec<String>> {
        Ok(conn
            .prepare_cached(sql)?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?)
    };
    Ok(FilterHints {
        models: list(
            "SELECT model FROM runs WHERE model IS NOT NULL GROUP BY model ORDER BY count(*) DESC, model LIMIT 12",
        )?,
        catalogues: list("SELECT version FROM catalogues ORDER BY version LIMIT 12")?,
        // Every decision's phase, from the counts the completions read.
        phases: super::completion::catalogues_and_phases(conn)?
            .1
            .into_iter()
            .take(12)
            .map(|(phase, _)| phase)
            .collect(),
        // Every run's tags, from their counts (`agg_tags`, schema 14): a
        // tags text that is not a JSON object names no tag.
        tags: list(&format!(
            "SELECT t.key || '=' || t.value FROM {TAG_PAIRS}
             GROUP BY 1 ORDER BY sum(a.runs) DESC, 1 LIMIT 12"
        ))?,
    })
}

/// A filter value that matches nothing stored: the flag, the value, a few
/// known values (most common first) and how many there are in all.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched {
    pub flag: &'static str,
    pub value: String,
    pub known: Vec<String>,
    pub total: u64,
}

/// How many known values an [`Unmatched`] lists.
pub const KNOWN_SHOWN: usize = 12;

/// The first value of `f`'s value filters (model, catalogue, task, phase,
/// run, tag) that no stored row has, with the values that exist.
pub fn unmatched(conn: &Connection, f: &crate::filter::Filter) -> Result<Option<Unmatched>> {
    // (flag, the values given, does one exist, the known ones, how many)
    type Check = (
        &'static str,
        Vec<Vec<String>>,
        &'static str,
        &'static str,
        &'static str,
    );
    let checks: [Check; 5] = [
        (
            "--model",
            f.models.iter().map(|v| vec![v.clone()]).collect(),
            "SELECT 1 FROM runs WHERE model = ?1",
            "SELECT model FROM runs WHERE model IS NOT NULL GROUP BY model ORDER BY count(*) DESC, model",
            "SELECT count(DISTINCT model) FROM runs",
        ),
        (
            "--catalogue",
            f.catalogues.iter().map(|v| vec![v.clone()]).collect(),
            "SELECT 1 FROM catalogues WHERE version = ?1",
            "SELECT version FROM catalogues ORDER BY version",
            "SELECT count(*) FROM catalogues",
        ),
        (
            "--task",
            f.tasks.iter().map(|v| vec![v.clone()]).collect(),
            "SELECT 1 FROM runs WHERE task_id = ?1",
            "SELECT task_id FROM runs WHERE task_id IS NOT NULL GROUP BY task_id ORDER BY count(*) DESC, task_id",
            "SELECT count(DISTINCT task_id) FROM runs",
        ),
        (
            "--phase",
            f.phases.iter().map(|v| vec![v.clone()]).collect(),
            "SELECT 1 FROM ladder WHERE phase = ?1",
            "SELECT phase FROM ladder WHERE phase IS NOT NULL GROUP BY phase ORDER BY count(*) DESC, phase",
            "SELECT count(DISTINCT phase) FROM ladder",
        ),
        (
            "--run",
            f.runs.iter().map(|v| vec![v.clone()]).collect(),
            "SELECT 1 FROM runs WHERE run_id = ?1",
            "SELECT run_id FROM runs ORDER BY run_id",
            "SELECT count(*) FROM runs",
        ),
    ];
    let tags: Vec<Vec<String>> = f
        .tags
        .iter()
        .map(|(k, v)| vec![k.clone(), v.clone()])
        .collect();
    // From the tag counts, as the filter reads them (a text that names no
    // tag is passed over).
    let tag_sql = TAG_SQL.get_or_init(|| {
        [
            format!("SELECT 1 FROM {TAG_PAIRS} WHERE t.key = ?1 AND t.value = ?2"),
            format!(
                "SELECT t.key || '=' || t.value FROM {TAG_PAIRS}
                 GROUP BY 1 ORDER BY sum(a.runs) DESC, 1"
            ),
            format!("SELECT count(*) FROM (SELECT DISTINCT t.key, t.value FROM {TAG_PAIRS})"),
        ]
    });
    let tag_check: Check = ("--tag", tags, &tag_sql[0], &tag_sql[1], &tag_sql[2]);
    for (flag, values, exists, known, total) in checks.into_iter().chain(std::iter::once(tag_check))
    {
        for v in values {
            let found = conn
                .prepare_cached(&format!("{exists} LIMIT 1"))?
                .exists(rusqlite::params_from_iter(v.iter()))?;
            if found {
                continue;
            }
            let known: Vec<String> = conn
                .prepare_cached(&format!("{known} LIMIT {KNOWN_SHOWN}"))?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            let total: i64 = conn.query_row(total, [], |r| r.get(0))?;
            return Ok(Some(Unmatched {
                flag,
                value: v.join("="),
                known,
                total: total as u64,
            }));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::Store;

    #[test]
    fn tag_hints_count_every_run_and_skip_texts_that_name_no_tag() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        store
            .conn
            .execute_batch(
                "INSERT INTO runs (run_id, tags) VALUES ('a', '{\"suite\":\"x\",\"n\":3}'),
                    ('b', '{\"suite\":\"y\"}'), ('c', NULL), ('d', 'not json'),
                    ('e', '{\"suite\":\"y\"}'), ('f', '[\"y\"]'), ('g', '\"y\"');",
            )
            .unwrap();
        let h = filter_hints(&store.conn).unwrap();
        // Most runs first, then by text; numbers as written.
        assert_eq!(h.tags, ["suite=y", "n=3", "suite=x"]);
        assert!(h.phases.is_empty());
        // A tag no run has is said so with the same known values; one that
        // a run has is not, whatever the other runs' texts hold.
        let tag = |k: &str, v: &str| crate::filter::Filter {
            tags: vec![(k.to_string(), v.to_string())],
            ..crate::filter::Filter::default()
        };
        assert_eq!(
            unmatched(&store.conn, &tag("suite", "z")).unwrap(),
            Some(Unmatched {
                flag: "--tag",
                value: "suite=z".to_string(),
                known: vec!["suite=y".into(), "n=3".into(), "suite=x".into()],
                total: 3,
            })
        );
        assert_eq!(unmatched(&store.conn, &tag("suite", "y")).unwrap(), None);
    }
}
