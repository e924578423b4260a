//! A decision's menu as stored: its own menu fields, the run's where it
//! records none, and the classifier's retrieved set and label.

use rusqlite::{Connection, Row};

use super::decode::{Stored, Table};
use super::names::Names;
use crate::error::Result;
use crate::model::{Label, Policy, Retrieval};
use crate::text::echo;

/// A decision's menu fields with the run's inherited where it records none.
pub(super) struct MenuRow {
    pub catalogue: Option<String>,
    pub policy: Option<Policy>,
    pub controls: Vec<String>,
    pub retrieval: Option<Retrieval>,
    pub exposed: Option<Vec<String>>,
    pub visible: Option<Vec<String>>,
    pub retrieved: Vec<String>,
    pub label: Option<Label>,
    pub selected: Option<String>,
}

/// Columns over `ladder l JOIN decision_rows d LEFT JOIN runs r`, read by
/// [`menu_row`]. The bit mask says which menu fields the run supplied, so
/// that a value that does not decode is blamed on the right row.
pub(super) const MENU_SELECT: &str = "l.decision_id, l.run_id, l.step, \
(d.policy IS NULL) + 2 * (d.trusted_controls IS NULL) + 4 * (d.retrieval IS NULL) \
+ 8 * (d.visible IS NULL), \
COALESCE(d.catalogue, r.catalogue), \
COALESCE((SELECT body FROM menus WHERE id = d.policy), d.policy, r.policy), \
COALESCE((SELECT body FROM menus WHERE id = d.trusted_controls), d.trusted_controls, \
r.trusted_controls), \
COALESCE((SELECT body FROM menus WHERE id = d.retrieval), d.retrieval, r.retrieval), \
COALESCE((SELECT body FROM menus WHERE id = d.exposed), d.exposed), \
COALESCE((SELECT body FROM menus WHERE id = d.visible), d.visible, r.visible), \
l.retrieved, l.acceptable, l.forbidden, d.selected";

/// Reads [`MENU_SELECT`] from column `at` on.
pub(super) fn menu_row(
    conn: &Connection,
    names: &Names,
    r: &Row<'_>,
    at: usize,
) -> Result<MenuRow> {
    let id: i64 = r.get(at)?;
    let run_id: String = r.get(at + 1)?;
    let step: i64 = r.get(at + 2)?;
    let inherited: i64 = r.get(at + 3)?;
    let decision = || format!("row id {id} (run {} step {step})", echo(&run_id));
    let run = || format!("row run_id {}", echo(&run_id));
    let verdict = || format!("row decision_id {id}");
    let own = Stored::new(conn, Table::Decisions, &decision).with_names(names);
    let of_run = Stored::new(conn, Table::Runs, &run).with_names(names);
    let ladder = Stored::new(conn, Table::Ladder, &verdict).with_names(names);
    let from = |bit: i64| if inherited & bit != 0 { &of_run } else { &own };
    let c = at + 4;
    Ok(MenuRow {
        catalogue: r.get(c)?,
        policy: from(1).policy("policy", r.get(c + 1)?)?,
        controls: from(2)
            .list("trusted_controls", r.get(c + 2)?)?
            .unwrap_or_default(),
        retrieval: from(4).retrieval("retrieval", r.get(c + 3)?)?,
        exposed: own.list("exposed", r.get(c + 4)?)?,
        visible: from(8).list("visible", r.get(c + 5)?)?,
        retrieved: ladder.list("retrieved", r.get(c + 6)?)?.unwrap_or_default(),
        label: ladder.label_lists(("acceptable", r.get(c + 7)?), ("forbidden", r.get(c + 8)?))?,
        selected: r.get(c + 9)?,
    })
}
