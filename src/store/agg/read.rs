//! Reading the kept counts: which filters they answer ([`scope`]) and the
//! sums the reports and screens need.

use std::collections::HashMap;

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use rustc_hash::FxHashMap;

use super::{
    CONFUSIONS, DAY, FIRSTS, KINDS, NO_BOUNDARY, NO_K, NO_SELECTED, REASONS, RUNGS, TALLIES, TOOLS,
};
use crate::error::{Result, StoredError};
use crate::filter::Filter;
use crate::metrics::consistency::{Consistency, FirstChoice, consistency as group};
use crate::metrics::{Confusions, LadderCounts, MetricsAcc, Rate, confusions_counted};
use crate::store::filter_sql::{TAG_PAIRS, push_in};

/// The `agg_keys k` a filter selects, when the counts answer it exactly:
/// no task or run filter, no tag filter but one that keeps every verdict
/// ([`tags_keep_everything`]), a window on whole days (UTC), and every
/// day counted (nothing in `agg_dirty`).
pub struct Scope {
    pub(super) clause: String,
    pub(super) args: Vec<Sql>,
}

pub fn scope(conn: &Connection, f: &Filter) -> Result<Option<Scope>> {
    if !f.tasks.is_empty() || !f.runs.is_empty() {
        return Ok(None);
    }
    let whole_days = |t: Option<i64>| t.is_none_or(|t| t.rem_euclid(DAY) == 0);
    if !whole_days(f.since) || !whole_days(f.until) {
        return Ok(None);
    }
    // A database written before schema 8 has no counts (read-only opens
    // of one are refused, but be safe), and a listed day is out of date.
    let fresh = conn
        .query_row("SELECT NOT EXISTS (SELECT 1 FROM agg_dirty)", [], |r| {
            r.get::<_, bool>(0)
        })
        .optional();
    if !matches!(fresh, Ok(Some(true))) {
        return Ok(None);
    }
    if !f.tags.is_empty() && !tags_keep_everything(conn, f)? {
        return Ok(None);
    }
    let mut clause = String::new();
    let mut args = Vec::new();
    if f.since.is_none() && f.until.is_none() {
        clause.push_str("k.whole = 1");
    } else {
        clause.push_str("k.whole = 0");
        if let Some(s) = f.since {
            clause.push_str(" AND k.day >= ?");
            args.push(Sql::Integer(s.div_euclid(DAY)));
        }
        if let Some(u) = f.until {
            clause.push_str(" AND k.day < ?");
            args.push(Sql::Integer(u.div_euclid(DAY)));
        }
    }
    if !f.catalogues.is_empty() {
        let mut ids = String::from("SELECT id FROM catalogue_ids WHERE 1=1");
        push_in(&mut ids, &mut args, "version", &f.catalogues);
        clause.push_str(&format!(" AND k.catalogue IN ({ids})"));
    }
    push_in(&mut clause, &mut args, "k.phase", &f.phases);
    push_in(&mut clause, &mut args, "k.model", &f.models);
    Ok(Some(Scope { clause, args }))
}

/// Whether the filter's tags keep every verdict the counts hold, so that
/// the counts answer the filter as if no tag were given: every stored run
/// has the tags (the runs of the tag texts `agg_tags` counts that have
/// them are all the runs), and every verdict has a run (no key is
/// `runless`, schema 15). Tags keep whole runs, and the counts hold no
/// tags: any other tag filter is counted the long way. A suite tag that
/// every run of a database carries is common (one database per suite, or
/// a tag an importer writes on every run, as the BFCL importer does
/// `bfcl_version`): at 5,000,000 decisions the ladder under it
/// took 2.9 s the long way. Read only while the counts are fresh.
fn tags_keep_everything(conn: &Connection, f: &Filter) -> Result<bool> {
    let mut kept = String::from("SELECT COALESCE(sum(g.runs), 0) FROM agg_tags g WHERE 1=1");
    let mut args = Vec::new();
    for (k, v) in &f.tags {
        kept.push_str(&format!(
            " AND g.tags IN (SELECT a.tags FROM {TAG_PAIRS} WHERE t.key = ? AND t.value = ?)"
        ));
        args.push(Sql::Text(k.clone()));
        args.push(Sql::Text(v.clone()));
    }
    let every: bool = conn
        .prepare_cached(&format!(
            "SELECT ({kept}) = (SELECT count(*) FROM runs)
                 AND NOT EXISTS (SELECT 1 FROM agg_keys WHERE runless = 1)"
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))?;
    Ok(every)
}

/// `SELECT {cols} FROM {kind} a JOIN agg_keys k ... WHERE scope {and} GROUP BY {group}`.
fn sum_sql(s: &Scope, kind: usize, cols: &str, and: &str, group: &str) -> String {
    format!(
        "SELECT {cols} FROM {} a JOIN agg_keys k ON k.id = a.key {} WHERE {}{and}
         GROUP BY {group} ORDER BY {group}",
        KINDS[kind].table, NAMED[kind], s.clause
    )
}

/// The `agg_names` joins of each count table (`n1`, `n2`: its named dims).
const NAMED: [&str; 6] = [
    "",
    "",
    "",
    "JOIN agg_names n1 ON n1.id = a.tool",
    "JOIN agg_names n1 ON n1.id = a.tool JOIN agg_names n2 ON n2.id = a.reason",
    "JOIN agg_names n1 ON n1.id = a.task_id LEFT JOIN agg_names n2 ON n2.id = a.selected",
];

/// Decisions by rung (as `verdicts::ladder`).
pub fn ladder(conn: &Connection, s: &Scope) -> Result<LadderCounts> {
    let mut stmt = conn.prepare(&sum_sql(
        s,
        RUNGS,
        "a.rung, a.labelled, sum(a.decisions)",
        "",
        "a.rung, a.labelled",
    ))?;
    let mut counts = LadderCounts::default();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(row) = rows.next()? {
        crate::store::verdicts::add_rungs(conn, &mut counts, row)?;
    }
    Ok(counts)
}

/// Decisions on one catalogue (as a count over `ladder` by catalogue).
pub fn catalogue_decisions(conn: &Connection, s: &Scope, catalogue: &str) -> Result<u64> {
    let mut args = s.args.clone();
    args.push(Sql::Text(catalogue.to_string()));
    let n: i64 = conn
        .prepare_cached(&format!(
            "SELECT COALESCE(sum(a.decisions), 0) FROM {} a JOIN agg_keys k ON k.id = a.key
             WHERE {} AND k.catalogue = (SELECT id FROM catalogue_ids WHERE version = ?)",
            KINDS[RUNGS].table, s.clause
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))?;
    Ok(n as u64)
}

/// Decisions by boundary (as `verdicts::boundary_profile`).
pub fn boundaries(conn: &Connection, s: &Scope) -> Result<Vec<(String, u64)>> {
    let mut stmt = conn.prepare(&sum_sql(
        s,
        RUNGS,
        "a.boundary, sum(a.decisions)",
        &format!(" AND a.boundary IS NOT {NO_BOUNDARY}"),
        "a.boundary",
    ))?;
    let rows = stmt
        .query_map(params_from_iter(&s.args), |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The decision-level metrics' tallies and definition tokens.
pub fn metrics(conn: &Connection, s: &Scope) -> Result<MetricsAcc> {
    let counts = &KINDS[TALLIES].counts[1..];
    let sums: Vec<String> = counts.iter().map(|c| format!("sum(a.{c})")).collect();
    let mut stmt = conn.prepare(&sum_sql(
        s,
        TALLIES,
        &format!("a.retrieval_k, {}", sums.join(", ")),
        "",
        "a.retrieval_k",
    ))?;
    let mut acc = MetricsAcc::default();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let k: i64 = r.get(0)?;
        let mut c = [0u64; crate::metrics::TALLIES];
        for (i, v) in c.iter_mut().enumerate() {
            *v = r.get::<_, i64>(i + 1)?.max(0) as u64;
        }
        acc.add_tallies((k != NO_K).then_some(k as u32), &c);
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT a.key, a.counts FROM agg_tokens a JOIN agg_keys k ON k.id = a.key WHERE {}",
        s.clause
    ))?;
    let mut sums: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let key: i64 = r.get(0)?;
        let pairs = super::tokens::unpack(r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?)
            .ok_or_else(|| {
                crate::error::Error::usage(format!("agg_tokens row key {key}: not packed counts"))
            })?;
        for (t, n) in pairs {
            *sums.entry(t).or_default() += n;
        }
    }
    for (t, n) in sums {
        acc.add_tokens(t as u64, n.max(0) as u64);
    }
    Ok(acc)
}

/// Per (catalogue version, tool name): visible, selected, selected wrongly,
/// refused, named by the controls.
pub type ToolSums = HashMap<(String, String), [u64; 5]>;
/// Per (catalogue version, tool name): refusals by reason.
pub type ReasonSums = HashMap<(String, String), Vec<(String, u64)>>;

pub fn tools(conn: &Connection, s: &Scope) -> Result<(ToolSums, ReasonSums)> {
    let cat = "(SELECT version FROM catalogue_ids WHERE id = k.catalogue)";
    let sums: Vec<String> = KINDS[TOOLS]
        .counts
        .iter()
        .map(|c| format!("sum(a.{c})"))
        .collect();
    let mut stmt = conn.prepare(&sum_sql(
        s,
        TOOLS,
        &format!("{cat}, n1.name, {}", sums.join(", ")),
        " AND k.catalogue IS NOT NULL",
        "k.catalogue, n1.name",
    ))?;
    let mut out = ToolSums::new();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let Some(version) = r.get::<_, Option<String>>(0)? else {
            continue;
        };
        let mut c = [0u64; 5];
        for (i, v) in c.iter_mut().enumerate() {
            *v = r.get::<_, i64>(i + 2)?.max(0) as u64;
        }
        out.insert((version, r.get(1)?), c);
    }
    let mut stmt = conn.prepare(&sum_sql(
        s,
        REASONS,
        &format!("{cat}, n1.name, n2.name, sum(a.decisions)"),
        " AND k.catalogue IS NOT NULL",
        "k.catalogue, n1.name, n2.name",
    ))?;
    let mut reasons = ReasonSums::new();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let Some(version) = r.get::<_, Option<String>>(0)? else {
            continue;
        };
        reasons
            .entry((version, r.get(1)?))
            .or_default()
            .push((r.get(2)?, r.get::<_, i64>(3)?.max(0) as u64));
    }
    Ok((out, reasons))
}

/// Each run's first decision, grouped by catalogue and task
/// (`consistency::consistency` of them). The counts are summed by ids as
/// the rows come and each (catalogue, task, tool) named once after:
/// grouping by names in SQL sorted half a million texts at 5,000,000
/// decisions. Ids and names are one to one (both name tables are unique),
/// so the groups are the same.
pub fn consistency(conn: &Connection, s: &Scope) -> Result<Consistency> {
    let mut stmt = conn.prepare(&format!(
        "SELECT k.catalogue, a.task_id, a.selected, a.decisions
         FROM {} a JOIN agg_keys k ON k.id = a.key WHERE {}",
        KINDS[FIRSTS].table, s.clause
    ))?;
    let mut sums: FxHashMap<(Option<i64>, i64, i64), i64> = FxHashMap::default();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let key = (r.get(0)?, r.get(1)?, r.get(2)?);
        *sums.entry(key).or_default() += r.get::<_, i64>(3)?;
    }
    let catalogues = id_names(conn, "SELECT id, version FROM catalogue_ids")?;
    let names = id_names(conn, "SELECT id, name FROM agg_names")?;
    let mut unnamed = None;
    let firsts = sums
        .into_iter()
        .filter_map(|((catalogue, task, selected), n)| {
            // (A task without its name is left out, as a join would.)
            let task_id = names.get(&task)?.clone();
            let selected = match selected {
                NO_SELECTED => None,
                id => match names.get(&id) {
                    Some(name) => Some(name.clone()),
                    None => {
                        unnamed.get_or_insert(StoredError {
                            db: conn.path().unwrap_or_default().to_string(),
                            table: "agg_firsts",
                            row: format!("task {task}"),
                            column: "selected",
                            message: format!("tool {id} is not in agg_names"),
                        });
                        return None;
                    }
                },
            };
            Some((
                FirstChoice {
                    // (A catalogue without its version reads as none, as the
                    // subquery did.)
                    catalogue: catalogue.and_then(|id| catalogues.get(&id).cloned()),
                    task_id,
                    selected,
                },
                n.max(0) as u64,
            ))
        });
    let grouped = group(firsts);
    match unnamed {
        Some(e) => Err(e.into()),
        None => Ok(grouped),
    }
}

/// Confusion cells (as `verdicts::confusions`): the SELECTION failures
/// kept by acceptable list and selected tool, summed by ids in a hash and
/// each id named once.
pub fn confusions(conn: &Connection, s: &Scope) -> Result<Confusions> {
    let mut stmt = conn.prepare(&format!(
        "SELECT a.acceptable, a.selected, a.decisions
         FROM {} a JOIN agg_keys k ON k.id = a.key WHERE {}",
        KINDS[CONFUSIONS].table, s.clause
    ))?;
    let mut sums: FxHashMap<(i64, i64), i64> = FxHashMap::default();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        *sums.entry((r.get(0)?, r.get(1)?)).or_default() += r.get::<_, i64>(2)?;
    }
    let mut lookup = conn.prepare_cached("SELECT name FROM agg_names WHERE id = ?1")?;
    let mut names: FxHashMap<i64, String> = FxHashMap::default();
    let mut name = |id: i64, column: &'static str| -> Result<String> {
        if let Some(n) = names.get(&id) {
            return Ok(n.clone());
        }
        let n: Option<String> = lookup.query_row([id], |r| r.get(0)).optional()?;
        let n = n.ok_or_else(|| stored(conn, column, id, "is not in agg_names"))?;
        names.insert(id, n.clone());
        Ok(n)
    };
    let mut lists: FxHashMap<i64, Vec<String>> = FxHashMap::default();
    let mut cells = Vec::with_capacity(sums.len());
    for ((acceptable, selected), n) in sums {
        let list = match lists.get(&acceptable) {
            Some(l) => l.clone(),
            None => {
                let text = name(acceptable, "acceptable")?;
                let l: Vec<String> = serde_json::from_str(&text).map_err(|e| {
                    stored(
                        conn,
                        "acceptable",
                        acceptable,
                        &format!("is not a list ({e})"),
                    )
                })?;
                lists.insert(acceptable, l.clone());
                l
            }
        };
        let selected = match selected {
            NO_SELECTED => None,
            id => Some(name(id, "selected")?),
        };
        cells.push(((list, selected), n.max(0) as u64));
    }
    Ok(confusions_counted(cells))
}

/// How many SELECTION failures one confusion cell holds (as
/// [`confusions`] counts it): `acceptable` as the ladder stores it, which
/// the kept counts name sorted and each once (`None` for another list:
/// count it the long way), and the selected tool (`None`: no call).
pub fn confusion_cell(
    conn: &Connection,
    s: &Scope,
    acceptable: &[String],
    selected: Option<&str>,
) -> Result<Option<u64>> {
    let text = serde_json::to_string(acceptable)?;
    if super::scan::kept_list(acceptable.to_vec()) != text {
        return Ok(None);
    }
    let mut args = s.args.clone();
    args.push(Sql::Text(text));
    let selected = match selected {
        Some(name) => {
            args.push(Sql::Text(name.to_string()));
            "(SELECT id FROM agg_names WHERE name = ?)".to_string()
        }
        None => NO_SELECTED.to_string(),
    };
    let n: i64 = conn
        .prepare_cached(&format!(
            "SELECT COALESCE(sum(a.decisions), 0) FROM {} a JOIN agg_keys k ON k.id = a.key
             WHERE {} AND a.acceptable = (SELECT id FROM agg_names WHERE name = ?)
             AND a.selected = {selected}",
            KINDS[CONFUSIONS].table, s.clause
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))?;
    Ok(Some(n.max(0) as u64))
}

/// A kept confusion count that does not read back.
fn stored(conn: &Connection, column: &'static str, id: i64, what: &str) -> StoredError {
    StoredError {
        db: conn.path().unwrap_or_default().to_string(),
        table: "agg_confusions",
        row: format!("{column} {id}"),
        column,
        message: format!("name {id} {what}"),
    }
}

/// `(id, name)` rows as a map.
pub(super) fn id_names(conn: &Connection, sql: &str) -> Result<FxHashMap<i64, String>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The `inconsistent_tasks` rate (as [`consistency`]'s `rate`): per
/// (catalogue, task), how many runs and whether more than one tool was
/// chosen first. Grouped in a hash as the rows come (no sort), without
/// naming or ordering the choices.
pub fn first_rate(conn: &Connection, s: &Scope) -> Result<Rate> {
    struct Task {
        trials: i64,
        first: Sql,
        varies: bool,
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT k.catalogue, a.task_id, a.selected, a.decisions
         FROM {} a JOIN agg_keys k ON k.id = a.key WHERE {}",
        KINDS[FIRSTS].table, s.clause
    ))?;
    // Task ids and selected tools are `agg_names` ids (schema 9).
    let mut tasks: HashMap<(Option<i64>, i64), Task> = HashMap::new();
    let mut rows = stmt.query(params_from_iter(&s.args))?;
    while let Some(r) = rows.next()? {
        let key = (r.get::<_, Option<i64>>(0)?, r.get::<_, i64>(1)?);
        let selected = r.get_ref(2)?;
        let n: i64 = r.get(3)?;
        match tasks.get_mut(&key) {
            Some(t) => {
                t.trials += n;
                t.varies |= ValueRef::from(&t.first) != selected;
            }
            None => {
                let first: Sql = r.get(2)?;
                tasks.insert(
                    key,
                    Task {
                        trials: n,
                        first,
                        varies: false,
                    },
                );
            }
        }
    }
    let with_trials = tasks.values().filter(|t| t.trials >= 2);
    let (mut varying, mut n) = (0u64, 0u64);
    for t in with_trials {
        n += 1;
        varying += u64::from(t.varies);
    }
    Ok(Rate::new(varying, n))
}

/// Decisions by catalogue version and phase (as `ladder` counted by both;
/// a decision without either has NULL).
pub fn catalogue_phases(conn: &Connection, s: &Scope) -> Result<Vec<CataloguePhase>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT (SELECT version FROM catalogue_ids WHERE id = k.catalogue), k.phase,
                sum(a.decisions)
         FROM {} a JOIN agg_keys k ON k.id = a.key WHERE {} GROUP BY k.catalogue, k.phase",
        KINDS[RUNGS].table, s.clause
    ))?;
    let rows = stmt
        .query_map(params_from_iter(&s.args), |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?.max(0) as u64))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// (catalogue version, phase, decisions).
pub type CataloguePhase = (Option<String>, Option<String>, u64);
