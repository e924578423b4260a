//! The visible menu's budget per catalogue (`rung report budget`): each
//! run's turns on a catalogue, read once in run and step order, and the
//! catalogue's own size (tools and definition tokens: the flat menu).

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Connection, params, params_from_iter};

use super::decode::{Stored, Table};
use super::filter_sql::FilterSql;
use crate::error::Result;
use crate::filter::Filter;
use crate::metrics::budget::{Budget, BudgetAcc, Turn};
use crate::model::FindingKind;

/// The finding kind that says a run's menu changed, when rung has it.
const MENU_CHANGED: &str = "menu_changed";

/// One budget per catalogue with decisions under the filter, by version.
pub fn budget(conn: &Connection, f: &Filter) -> Result<Vec<Budget>> {
    // The decisions in their (run_id, step) index's order, each verdict
    // looked up by its id: sorting every verdict with its menu instead
    // takes a temporary b-tree the size of the store.
    let (clause, args) = f.rows_clause();
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
         WHERE {clause} ORDER BY d.run_id, d.step"
    ))?;
    let names = super::names::Names::load(conn)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let mut accs: BTreeMap<String, BudgetAcc> = BTreeMap::new();
    // The current run's turns, per catalogue.
    let mut run: Option<String> = None;
    let mut turns: BTreeMap<String, Vec<Turn>> = BTreeMap::new();
    // Pinned menus repeat the same text: count each distinct one once.
    let mut sizes: HashMap<String, u64> = HashMap::new();
    // Per catalogue, the runs with a decision on it (the filter's runs a
    // `menu_changed` finding counts for), in run order.
    let with_findings = FindingKind::parse(MENU_CHANGED).is_some();
    let mut ran: HashMap<String, Vec<String>> = HashMap::new();
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
    while let Some(r) = rows.next()? {
        let run_id: String = r.get(0)?;
        if run.as_deref() != Some(run_id.as_str()) {
            flush(&run, &mut turns, &mut accs);
            run = Some(run_id);
        }
        let catalogue: String = r.get(1)?;
        let menu: String = r.get(3)?;
        if sizes.len() > 10_000 {
            sizes.clear();
        }
        let visible = match packed_len(&menu, &names).or_else(|| sizes.get(&menu).copied()) {
            Some(n) => n,
            None => {
                let id: i64 = r.get(5)?;
                let row = || format!("row decision_id {id}");
                let n = Stored::new(conn, Table::Ladder, &row)
                    .with_names(&names)
                    .list("retrieved", Some(menu.clone()))?
                    .unwrap_or_default()
                    .len() as u64;
                sizes.insert(menu.clone(), n);
                n
            }
        };
        turns.entry(catalogue).or_default().push(Turn {
            turn: r.get(2)?,
            visible,
            tokens: r.get::<_, Option<i64>>(4)?.map(|t| t as u64),
            menu,
        });
    }
    flush(&run, &mut turns, &mut accs);
    drop(rows);
    drop(stmt);
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
            Some(menu_changed_findings(conn, &cat, &runs)?)
        } else {
            None
        };
        out.push(acc.finish(&cat, tools as u64, flat as u64, findings));
    }
    Ok(out)
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
