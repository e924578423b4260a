//! The tool audit the long way: each decision's rule from `explain_one`
//! over its whole menu, as the audit computed it before it read the stored
//! ids (kept so that tests check the ways agree decision by decision).

use rusqlite::Connection;

use super::filter_sql::FilterSql;
use super::menu::{MENU_SELECT, menu_row};
use super::rule_scan::RuleScan;
use super::tools::explain_one;
use crate::error::Result;
use crate::filter::Filter;

/// Each decision's rule for `name` the long way, in decision order: (id,
/// visible, rule, why) from `explain_one` over the decision's whole menu,
/// as the audit computed it before it read the stored ids. Kept so that
/// tests check the two agree decision by decision.
#[doc(hidden)]
pub fn rules_the_long_way(
    conn: &Connection,
    f: &Filter,
    catalogue: &str,
    name: &str,
) -> Result<Vec<(i64, bool, String, String)>> {
    let Some(scan) = RuleScan::new(conn, catalogue, name)? else {
        return Ok(Vec::new());
    };
    let (clause, mut args) = f.decision_clause();
    args.insert(0, rusqlite::types::Value::Text(catalogue.to_string()));
    let mut stmt = conn.prepare(&format!(
        "SELECT {MENU_SELECT} FROM ladder l JOIN decision_rows d ON d.id = l.decision_id
         JOIN runs r ON r.run_id = l.run_id
         WHERE l.catalogue = ? AND {clause} ORDER BY l.decision_id"
    ))?;
    let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let m = menu_row(conn, &scan.names, r, 0)?;
        if let Some(t) = explain_one(&scan.cat, name, &scan.info, &m) {
            out.push((r.get(0)?, t.visible, t.rule.as_str().to_string(), t.why));
        }
    }
    Ok(out)
}
