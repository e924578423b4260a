//! Reading each run's kept budget and findings (`agg_runs`, see
//! [`super::runs`]): which filters they answer ([`scope`]), the budget's
//! turns per catalogue ([`budget`]) and the findings summary
//! ([`finding_groups`]) of the runs counted whole; the runs without a day
//! are read the long way by the callers.

use std::collections::{BTreeMap, HashMap};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params_from_iter};

use super::DAY;
use super::runs::{CatalogueTurns, NO_DAY, Unpacked, unpack};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::store::filter_sql::{kept_runs, push_in};
use crate::store::findings::{Among, FindingGroup, selected_from};

/// The `agg_runs a` rows a filter selects (those with a day), when the
/// kept rows answer it exactly: no filter but run-level ones (models,
/// tasks, run ids, tags: each keeps or leaves a whole run) and a window on
/// whole days (UTC), and nothing waiting to be counted again.
pub struct Scope {
    clause: String,
    args: Vec<Sql>,
    /// The catalogues (versions) a budget keeps: all when empty.
    catalogues: Vec<String>,
}

pub fn scope(conn: &Connection, f: &Filter) -> Result<Option<Scope>> {
    if !f.catalogues.is_empty() {
        return Ok(None);
    }
    budget_scope(conn, f)
}

/// [`scope`] for the budget, which the kept rows also answer under
/// catalogues: a run's counts hold each catalogue's part of its budget
/// apart (its turns and its `menu_changed` findings on that catalogue),
/// and the budget is counted per catalogue, so a catalogue filter keeps
/// those parts and no other (at 5,000,000 decisions, `rung report budget
/// --catalogue` took 3.1 s the long way).
pub fn budget_scope(conn: &Connection, f: &Filter) -> Result<Option<Scope>> {
    let run_level_and_window = f.phases.is_empty();
    let whole_days = |t: Option<i64>| t.is_none_or(|t| t.rem_euclid(DAY) == 0);
    if !run_level_and_window || !whole_days(f.since) || !whole_days(f.until) {
        return Ok(None);
    }
    // A database before schema 11 has no `agg_runs` (read-only opens of
    // one are refused, but be safe: the last test fails to prepare), and a
    // listed day or run is out of date.
    let fresh = conn
        .query_row(
            "SELECT NOT EXISTS (SELECT 1 FROM agg_dirty)
                AND NOT EXISTS (SELECT 1 FROM agg_finding_runs)
                AND NOT EXISTS (SELECT 1 FROM agg_runs WHERE 0)",
            [],
            |r| r.get::<_, bool>(0),
        )
        .optional();
    if !matches!(fresh, Ok(Some(true))) {
        return Ok(None);
    }
    let mut clause = String::from("a.day IS NOT NULL");
    let mut args = Vec::new();
    if f.since.is_some() || f.until.is_some() {
        clause.push_str(&format!(" AND a.day <> {NO_DAY}"));
    }
    if let Some(s) = f.since {
        clause.push_str(" AND a.day >= ?");
        args.push(Sql::Integer(s.div_euclid(DAY)));
    }
    if let Some(u) = f.until {
        clause.push_str(" AND a.day < ?");
        args.push(Sql::Integer(u.div_euclid(DAY)));
    }
    if !f.models.is_empty() {
        let mut ids = String::from("SELECT id FROM agg_names WHERE 1=1");
        push_in(&mut ids, &mut args, "name", &f.models);
        clause.push_str(&format!(" AND a.model IN ({ids})"));
    }
    // Tasks, run ids and tags: the runs they keep, as the `runs` table says
    // now (a tag written there by hand counts at once). At 5,000,000
    // decisions, the findings summary under a tag every run has: 7.1 s
    // the long way.
    let runs_named = Filter {
        tasks: f.tasks.clone(),
        runs: f.runs.clone(),
        tags: f.tags.clone(),
        ..Filter::default()
    };
    if !runs_named.is_empty() {
        let (runs, run_args) = kept_runs(&runs_named);
        clause.push_str(&format!(" AND a.run_id IN ({runs})"));
        args.extend(run_args);
    }
    Ok(Some(Scope {
        clause,
        args,
        catalogues: f.catalogues.clone(),
    }))
}

/// Calls `each` with every catalogue's part of the budget of each run the
/// scope selects, by the catalogue's version.
pub(crate) fn budget(
    conn: &Connection,
    s: &Scope,
    mut each: impl FnMut(&str, &CatalogueTurns),
) -> Result<()> {
    let versions = super::read::id_names(conn, "SELECT id, version FROM catalogue_ids")?;
    each_kept(conn, s, false, |(cats, _)| {
        for c in &cats {
            // (A catalogue id that names nothing enters no budget: the
            // writer leaves such verdicts out.)
            if let Some(v) = versions.get(&c.catalogue)
                && (s.catalogues.is_empty() || s.catalogues.contains(v))
            {
                each(v, c);
            }
        }
    })
}

/// Calls `each` with the unpacked counts of every run the scope selects
/// (their findings too when `findings`).
fn each_kept(
    conn: &Connection,
    s: &Scope,
    findings: bool,
    mut each: impl FnMut(Unpacked),
) -> Result<()> {
    let mut stmt = conn.prepare(&format!(
        "SELECT a.run_id, a.counts FROM agg_runs a WHERE {}",
        s.clause
    ))?;
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let bytes = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
        let Some(counts) = unpack(bytes, findings) else {
            return Err(not_packed(r));
        };
        each(counts);
    }
    Ok(())
}

/// The findings of the runs read the long way, and of no run, counted by
/// kind and tool under `f`.
fn long_way(f: &Filter) -> (String, Vec<Sql>) {
    selected_from(
        f,
        "(SELECT v.* FROM finding_rows p JOIN findings v ON v.id = p.id WHERE p.run_id IS NULL
          UNION ALL
          SELECT v.* FROM agg_runs a CROSS JOIN finding_names n ON n.name = a.run_id
          CROSS JOIN finding_rows p ON p.run_id = n.id JOIN findings v ON v.id = p.id
          WHERE a.day IS NULL) x",
        Among::Few,
        "x.kind, x.tool, count(*), count(DISTINCT x.run_id)",
        "GROUP BY x.kind, x.tool",
    )
}

fn not_packed(r: &rusqlite::Row) -> Error {
    let run: String = r.get(0).unwrap_or_default();
    Error::usage(format!(
        "agg_runs row run_id {}: counts is not packed counts",
        crate::text::escape(&run)
    ))
}

/// The findings the filter selects counted by (kind, tool), in that order
/// (a null tool first), as `findings::finding_groups`: those of the runs
/// counted whole from their kept counts, the others' (runs without a day,
/// findings of no run) read under the filter.
pub fn finding_groups(conn: &Connection, s: &Scope, f: &Filter) -> Result<Vec<FindingGroup>> {
    let kinds: HashMap<i64, String> = conn
        .prepare("SELECT id, name FROM finding_kinds")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    // The kept rows' counts, by kind and tool id (named at the end).
    let mut by_id: HashMap<(i64, Option<i64>), (u64, u64)> = HashMap::new();
    each_kept(conn, s, true, |(_, groups)| {
        for (kind, tool, n) in groups {
            let g = by_id.entry((kind, tool)).or_default();
            g.0 += n;
            g.1 += 1;
        }
    })?;
    let mut named: BTreeMap<(String, Option<String>), (u64, u64)> = BTreeMap::new();
    let mut tool_name = conn.prepare_cached("SELECT name FROM agg_names WHERE id = ?1")?;
    let mut tool_names: HashMap<i64, Option<String>> = HashMap::new();
    for ((kind, tool), (n, runs)) in by_id {
        let Some(kind) = kinds.get(&kind) else {
            continue;
        };
        let tool = match tool {
            None => None,
            Some(t) => match tool_names.get(&t) {
                Some(name) => name.clone(),
                None => {
                    let name = tool_name
                        .query_row([t], |r| r.get::<_, String>(0))
                        .optional()?;
                    tool_names.insert(t, name.clone());
                    name
                }
            },
        };
        // (Tools are `agg_names` ids, never removed; a finding's tool id
        // that named nothing was kept as none, as the view shows it.)
        let g = named.entry((kind.clone(), tool)).or_default();
        g.0 += n;
        g.1 += runs;
    }
    let (sql, args) = long_way(f);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let g = named.entry((r.get(0)?, r.get(1)?)).or_default();
        g.0 += r.get::<_, i64>(2)? as u64;
        g.1 += r.get::<_, i64>(3)? as u64;
    }
    Ok(named
        .into_iter()
        .map(|((kind, tool), (findings, runs))| FindingGroup {
            kind,
            tool,
            findings,
            runs,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::{Store, query_plan};

    /// The long way reads the findings of the runs without a day (found
    /// through `agg_runs_long`) and of no run, whatever the filter: never a
    /// list of the findings of every run the filter keeps.
    #[test]
    fn the_long_way_starts_from_the_runs_without_a_day() {
        let store = Store::open_rw(Path::new(":memory:")).unwrap();
        let v = |s: &str| vec![s.to_string()];
        for f in [
            Filter {
                models: v("gpt-4o"),
                ..Filter::default()
            },
            Filter {
                tags: vec![("suite".into(), "m19".into())],
                ..Filter::default()
            },
        ] {
            let plan = query_plan(&store.conn, &long_way(&f).0);
            assert!(
                plan.starts_with(
                    "CO-ROUTINE x; COMPOUND QUERY; LEFT-MOST SUBQUERY; \
                     SEARCH p USING COVERING INDEX finding_rows_run (run_id=?);"
                ),
                "{f:?}: {plan}"
            );
            assert!(
                plan.contains("UNION ALL; SCAN a USING INDEX agg_runs_long;"),
                "{f:?}: {plan}"
            );
            // No list of finding ids (`finding_rows q`).
            assert!(!plan.contains("SEARCH q "), "{f:?}: {plan}");
        }
    }
}
