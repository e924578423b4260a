//! The visible menu's budget per catalogue (`rung report budget`): each
//! run's turns on a catalogue, read once in run and step order, and the
//! catalogue's own size (tools and definition tokens: the flat menu).

use std::collections::{BTreeMap, HashMap};

use rusqlite::types::FromSqlError;
use rusqlite::{Connection, params, params_from_iter};
use rustc_hash::FxHashSet;

use super::decode::{Stored, Table};
use super::filter_sql::FilterSql;
use super::halves::{each_kept_run, keeps_few_runs, run_count};
use crate::error::Result;
use crate::filter::Filter;
use crate::metrics::budget::{Budget, BudgetAcc, Turn};
use crate::model::FindingKind;

/// The finding kind that says a run's menu changed, when rung has it.
const MENU_CHANGED: &str = "menu_changed";

/// One budget per catalogue with decisions under the filter, by version.
/// Under a filter the kept counts answer (`agg::run_read::budget_scope`),
/// the runs counted whole come from `agg_runs`, and only the others are
/// read.
pub fn budget(conn: &Connection, f: &Filter) -> Result<Vec<Budget>> {
    let kept = super::agg::run_read::budget_scope(conn, f)?;
    budget_with(conn, f, kept)
}

/// [`budget`] from every decision (the kept counts unread).
pub fn budget_long(conn: &Connection, f: &Filter) -> Result<Vec<Budget>> {
    budget_with(conn, f, None)
}

fn budget_with(
    conn: &Connection,
    f: &Filter,
    kept: Option<super::agg::run_read::Scope>,
) -> Result<Vec<Budget>> {
    let mut accs: BTreeMap<String, BudgetAcc> = BTreeMap::new();
    // Per catalogue, the `menu_changed` findings of the runs counted whole.
    let mut kept_findings: HashMap<String, u64> = HashMap::new();
    if let Some(s) = &kept {
        super::agg::run_read::budget(conn, s, |cat, c| {
            accs.entry(cat.to_string())
                .or_default()
                .add_counted(&c.visible, &c.tokens, c.changed);
            *kept_findings.entry(cat.to_string()).or_default() += c.menu_changed;
        })?;
    }
    // Per catalogue, the runs read here with a decision on it (the
    // filter's runs a `menu_changed` finding counts for), in run order.
    let mut ran: HashMap<String, Vec<String>> = HashMap::new();
    let only = if kept.is_some() {
        " AND d.run_id IN (SELECT run_id FROM agg_runs WHERE day IS NULL)"
    } else {
        ""
    };
    scan(conn, f, only, &mut accs, &mut ran)?;
    let with_findings = FindingKind::parse(MENU_CHANGED).is_some();
    let mut out = Vec::new();
    for (cat, acc) in accs {
        let (tools, flat): (i64, i64) = conn.query_row(
            "SELECT count(*), COALESCE(sum(definition_tokens), 0) FROM tools WHERE catalogue = ?1",
            params![cat],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let findings = if with_findings {
            let mut runs = ran.remove(&cat).unwrap_or_default();
            runs.sort_unstable();
            Some(match kept {
                Some(_) => {
                    kept_findings.get(&cat).copied().unwrap_or(0)
                        + menu_changed_read(conn, &cat, &runs)?
                }
                None => menu_changed_findings(conn, &cat, &runs)?,
            })
        } else {
            None
        };
        out.push(acc.finish(&cat, tools as u64, flat as u64, findings));
    }
    Ok(out)
}

/// Reads the decisions under the filter (and `only`, more SQL) in their
/// (run_id, step) index's order, each verdict looked up by its id (sorting
/// every verdict with its menu instead takes a temporary b-tree the size of
/// the store), into `accs`, and the runs with a decision on each
/// catalogue into `ran`.
fn scan(
    conn: &Connection,
    f: &Filter,
    only: &str,
    accs: &mut BTreeMap<String, BudgetAcc>,
    ran: &mut HashMap<String, Vec<String>>,
) -> Result<()> {
    // A run-level filter keeping many runs is applied here, to the runs
    // read in order: in SQL, SQLite starts from those runs and reads each
    // one's decisions through its id (at 5,000,000 decisions,
    // `--phase modify --model model-b` took 3.0 s; 1.7 s so).
    let kept =
        if only.is_empty() && f.has_run_filter() && !keeps_few_runs(conn, f, run_count(conn)?)? {
            let mut kept: FxHashSet<Box<str>> = FxHashSet::default();
            each_kept_run(conn, f, |run| {
                let run = std::str::from_utf8(run)
                    .map_err(|e| rusqlite::Error::from(FromSqlError::Other(Box::new(e))))?;
                kept.insert(run.into());
                Ok(true)
            })?;
            Some(kept)
        } else {
            None
        };
    let without = kept.as_ref().map(|_| f.without_run_filters());
    let f = without.as_ref().unwrap_or(f);
    let (clause, args) = f.counting_rows_clause();
    let runs = if f.has_run_filter() {
        "JOIN runs r ON r.run_id = d.run_id"
    } else {
        ""
    };
    let mut stmt = conn.prepare(&format!(
        "SELECT d.run_id, c.version, COALESCE(d.turn, d.step), l.retrieved, l.definition_tokens,
                l.decision_id
         FROM decision_rows d JOIN ladder_rows l ON l.decision_id = d.id
         JOIN catalogue_ids c ON c.id = l.catalogue {runs}
         WHERE {clause}{only} ORDER BY d.run_id, d.step"
    ))?;
    let names = super::names::Names::load(conn)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    // The current run's turns, per catalogue.
    let mut run: Option<String> = None;
    let mut turns: BTreeMap<String, Vec<Turn>> = BTreeMap::new();
    // Pinned menus repeat the same text: count each distinct one once.
    let mut sizes: HashMap<String, u64> = HashMap::new();
    let with_findings = FindingKind::parse(MENU_CHANGED).is_some();
    let mut flush = |run: &Option<String>,
                     turns: &mut BTreeMap<String, Vec<Turn>>,
                     accs: &mut BTreeMap<String, BudgetAcc>| {
        for (cat, ts) in std::mem::take(turns) {
            if let (true, Some(id)) = (with_findings, run) {
                ran.entry(cat.clone()).or_default().push(id.clone());
            }
            accs.entry(cat).or_default().add_run(&ts);
        }
    };
    // The run last left out by `kept`.
    let mut left_out: Option<String> = None;
    while let Some(r) = rows.next()? {
        if let Some(kept) = &kept {
            let name = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
            if left_out.as_deref() == Some(name) {
                continue;
            }
            if !kept.contains(name) {
                left_out = Some(name.to_string());
                continue;
            }
        }
        let run_id: String = r.get(0)?;
        if run.as_deref() != Some(run_id.as_str()) {
            flush(&run, &mut turns, accs);
            run = Some(run_id);
        }
        let catalogue: String = r.get(1)?;
        let Ok(menu) = r.get::<_, String>(3) else {
            let id: i64 = r.get(5)?;
            return Err(crate::error::Error::usage(format!(
                "ladder_rows row decision_id {id}: retrieved is not text"
            )));
        };
        if sizes.len() > 10_000 {
            sizes.clear();
        }
        let visible = visible(conn, &names, &mut sizes, &menu, r.get(5)?)?;
        turns.entry(catalogue).or_default().push(Turn {
            turn: r.get(2)?,
            visible,
            tokens: r.get::<_, Option<i64>>(4)?.map(|t| t as u64),
            menu,
        });
    }
    flush(&run, &mut turns, accs);
    Ok(())
}

/// How many tools a stored menu shows: a packed list counted as it is, any
/// other text decoded (once per text, through `sizes`); a menu that does
/// not decode is an error naming its row.
pub(super) fn visible(
    conn: &Connection,
    names: &super::names::Names,
    sizes: &mut HashMap<String, u64>,
    menu: &str,
    decision_id: i64,
) -> Result<u64> {
    if let Some(n) = packed_len(menu, names).or_else(|| sizes.get(menu).copied()) {
        return Ok(n);
    }
    let row = || format!("row decision_id {decision_id}");
    let n = Stored::new(conn, Table::Ladder, &row)
        .with_names(names)
        .list("retrieved", Some(menu.to_string()))?
        .unwrap_or_default()
        .len() as u64;
    sizes.insert(menu.to_string(), n);
    Ok(n)
}

/// How many names a stored packed list holds (`[3,17]` or dense `l…`),
/// when every id names a tool: what decoding it into names and counting
/// them gives, without building the names. `None` for any other text (a
/// list of names, a value the decoder refuses): decode that whole.
fn packed_len(text: &str, names: &super::names::Names) -> Option<u64> {
    // An empty plain list is left to the decoder, as any other text.
    if text == "[]" {
        return None;
    }
    let mut ids = Vec::new();
    super::menu_bytes::list_ids(text.as_bytes(), &mut ids)?;
    ids.iter()
        .all(|&id| names.name(id).is_some())
        .then_some(ids.len() as u64)
}

/// `menu_changed` findings on a catalogue: those of no run and those of
/// `runs` (sorted; the filter's runs with a decision on the catalogue).
fn menu_changed_findings(conn: &Connection, catalogue: &str, runs: &[String]) -> Result<u64> {
    let mut stmt =
        conn.prepare("SELECT x.run_id FROM findings x WHERE x.kind = ?1 AND x.catalogue = ?2")?;
    count_in_runs(&mut stmt, catalogue, runs)
}

/// `menu_changed` findings on a catalogue of no run and of the runs read
/// the long way (`agg_runs` without a day) that are in `runs` (sorted):
/// the others' are kept with their counts.
fn menu_changed_read(conn: &Connection, catalogue: &str, runs: &[String]) -> Result<u64> {
    let mut stmt = conn.prepare_cached(
        "SELECT NULL FROM finding_rows x
         WHERE x.run_id IS NULL AND x.kind = (SELECT id FROM finding_kinds WHERE name = ?1)
           AND x.catalogue = (SELECT id FROM catalogue_ids WHERE version = ?2)
         UNION ALL
         SELECT n.name FROM agg_runs a CROSS JOIN finding_names n ON n.name = a.run_id
         CROSS JOIN finding_rows x ON x.run_id = n.id
         WHERE a.day IS NULL AND x.kind = (SELECT id FROM finding_kinds WHERE name = ?1)
           AND x.catalogue = (SELECT id FROM catalogue_ids WHERE version = ?2)",
    )?;
    count_in_runs(&mut stmt, catalogue, runs)
}

/// How many `menu_changed` findings `stmt` selects on `catalogue` (its
/// first column their run) are of no run or of one of `runs` (sorted).
fn count_in_runs(stmt: &mut rusqlite::Statement, catalogue: &str, runs: &[String]) -> Result<u64> {
    let mut rows = stmt.query(params![MENU_CHANGED, catalogue])?;
    let mut n = 0;
    while let Some(r) = rows.next()? {
        let counts = match r.get::<_, Option<String>>(0)? {
            None => true,
            Some(id) => runs.binary_search(&id).is_ok(),
        };
        n += u64::from(counts);
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::names::Names;

    fn names() -> Names {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE tool_names (id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO tool_names VALUES (0, 'a'), (3, 'b'), (17, 'c');",
        )
        .unwrap();
        Names::load(&conn).unwrap()
    }

    #[test]
    fn a_packed_list_is_counted_without_its_names() {
        let n = names();
        assert_eq!(packed_len("[3,17]", &n), Some(2));
        assert_eq!(packed_len("[0]", &n), Some(1));
        assert_eq!(packed_len("[17,3,0]", &n), Some(3));
        // Dense: `l`, then U+0020 + id per name.
        assert_eq!(packed_len("l#1", &n), Some(2));
        assert_eq!(packed_len("l", &n), Some(0));
    }

    #[test]
    fn anything_else_is_left_to_the_decoder() {
        let n = names();
        // An id not in tool_names: the decoder reports the damage.
        assert_eq!(packed_len("[3,4]", &n), None);
        assert_eq!(packed_len("l$", &n), None);
        // Names, an empty list, spaces, a leading zero, a sign, a huge id.
        for t in [
            r#"["a","b"]"#,
            "[]",
            "[3, 17]",
            "[03]",
            "[-3]",
            "[3,]",
            "[99999999999999999999999]",
            "3,17",
        ] {
            assert_eq!(packed_len(t, &n), None, "{t}");
        }
    }
}
