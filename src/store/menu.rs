//! A decision's menu as stored: its own menu fields, the run's where it
//! records none, and the classifier's retrieved set and label.

use rusqlite::Row;

use super::decode::{parse_list, parse_policy, parse_retrieval};
use crate::model::{Label, Policy, Retrieval};

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

pub(super) const MENU_SELECT: &str = "COALESCE(d.catalogue, r.catalogue), COALESCE(d.policy, r.policy), \
COALESCE(d.trusted_controls, r.trusted_controls), COALESCE(d.retrieval, r.retrieval), d.exposed, \
COALESCE(d.visible, r.visible), l.retrieved, l.acceptable, l.forbidden, d.selected";

pub(super) fn menu_row(r: &Row<'_>, at: usize) -> rusqlite::Result<MenuRow> {
    let acceptable: Option<String> = r.get(at + 7)?;
    let forbidden: Option<String> = r.get(at + 8)?;
    Ok(MenuRow {
        catalogue: r.get(at)?,
        policy: parse_policy(r.get(at + 1)?),
        controls: parse_list(r.get(at + 2)?).unwrap_or_default(),
        retrieval: parse_retrieval(r.get(at + 3)?),
        exposed: parse_list(r.get(at + 4)?),
        visible: parse_list(r.get(at + 5)?),
        retrieved: parse_list(r.get(at + 6)?).unwrap_or_default(),
        label: acceptable.map(|a| {
            Label::new(
                serde_json::from_str(&a).unwrap_or_default(),
                parse_list(forbidden).unwrap_or_default(),
            )
        }),
        selected: r.get(at + 9)?,
    })
}
