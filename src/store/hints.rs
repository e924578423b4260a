//! The filter bar's hints: a few known values of each field, most common first.

use rusqlite::Connection;

use crate::error::Result;

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
        // Phases are few: a bounded sample of the ladder is enough to name them.
        phases: list(
            "SELECT phase FROM (SELECT phase FROM ladder WHERE phase IS NOT NULL LIMIT 200000)
             GROUP BY phase ORDER BY count(*) DESC, phase LIMIT 12",
        )?,
        tags: list(
            "SELECT t.key || '=' || t.value FROM (SELECT tags FROM runs WHERE tags IS NOT NULL LIMIT 20000) x,
                    json_each(x.tags) t
             GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 12",
        )?,
    })
}
