//! One decision as the Run screen's right pane shows it: explain's walk and
//! tool rules, the menu in recorded order with retrieval ranks, payload sizes.

use std::collections::HashMap;

use rusqlite::Connection;

use super::classify::load_catalogue;
use super::menu::{MENU_SELECT, menu_row};
use super::payload::{PayloadColumn, payload_bytes};
use super::{Explained, RunExpectations, explain_run};
use crate::config::Config;
use crate::error::Result;
use crate::ladder::{self, Menu, Sets};

/// One entry of the menu the model saw.
#[derive(Debug, Clone, PartialEq)]
pub struct MenuItem {
    pub name: String,
    pub visible: bool,
    /// The rule of `ladder.md` (`trusted_control`, `retrieved`, ...), or
    /// `recorded` for a name the catalogue does not know.
    pub rule: String,
    pub why: String,
    /// Retrieval rank among the exposed, non-control candidates, with score.
    pub rank: Option<usize>,
    pub score: Option<f64>,
}

/// Everything the Run screen's right pane shows about one decision.
#[derive(Debug, Clone)]
pub struct Detail {
    pub decision_id: i64,
    pub explained: Explained,
    pub at: Option<String>,
    pub latency_ms: Option<f64>,
    pub stage: Option<String>,
    /// The menu in recorded order (or the classifier's retrieved set, sorted,
    /// when nothing was recorded).
    pub menu: Vec<MenuItem>,
    /// Whether `menu` is the recorded visible menu.
    pub menu_recorded: bool,
    /// Catalogue tools that were hidden, with the rule that hid them.
    pub hidden: Vec<MenuItem>,
    /// Byte sizes of the stored payloads (None: not recorded).
    pub arguments_bytes: Option<u64>,
    pub result_bytes: Option<u64>,
    pub raw_bytes: Option<u64>,
    /// The run's verdict against its expectations (format v1.1): the
    /// matching table and the missing outputs; `None` without any.
    pub expectations: Option<RunExpectations>,
}

/// The Run screen's detail of one decision: explain's walk and tool rules,
/// the menu in recorded order with retrieval ranks, payload sizes.
pub fn decision_detail(conn: &Connection, config: &Config, decision_id: i64) -> Result<Detail> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT l.run_id, l.step, {}, d.latency_ms, l.boundary, {MENU_SELECT}
         FROM ladder l JOIN decision_rows d ON d.id = l.decision_id
         LEFT JOIN runs r ON r.run_id = l.run_id WHERE l.decision_id = ?1",
        super::pack::at_text!("d")
    ))?;
    let mut rows = stmt.query([decision_id])?;
    let r = rows.next()?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
    let run_id: String = r.get(0)?;
    let step: i64 = r.get(1)?;
    let at: Option<String> = r.get(2)?;
    let latency_ms: Option<f64> = r.get(3)?;
    let stage: Option<String> = r.get(4)?;
    let names = super::names::Names::load(conn)?;
    let m = menu_row(conn, &names, r, 5)?;
    drop(rows);
    drop(stmt);
    let mut run = explain_run(conn, config, &run_id, Some(step))?;
    let explained = run.decisions.remove(0);
    let expectations = run.expectations;
    let cat = match &m.catalogue {
        Some(c) => load_catalogue(conn, c)?,
        None => None,
    };
    let menu = Menu {
        catalogue: cat.as_ref(),
        policy: m.policy.as_ref(),
        controls: &m.controls,
        retrieval: m.retrieval.as_ref(),
        exposed: m.exposed.as_deref(),
        visible: m.visible.as_deref(),
    };
    let sets = Sets::new(menu, m.label.as_ref(), m.selected.as_deref());
    let rules: HashMap<&str, &ladder::ToolVisibility> = explained
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t))
        .collect();
    let item = |name: &str| {
        let (rank, score) = match sets.rank(name) {
            Some((rk, s)) => (Some(rk), s),
            None => (None, None),
        };
        match rules.get(name) {
            Some(t) => MenuItem {
                name: name.to_string(),
                visible: t.visible,
                rule: t.rule.as_str().to_string(),
                why: t.why.clone(),
                rank,
                score,
            },
            None => MenuItem {
                name: name.to_string(),
                visible: true,
                rule: "recorded".to_string(),
                why: if cat.is_some() {
                    "in the recorded menu; not a tool of the catalogue".to_string()
                } else {
                    "in the recorded menu (no catalogue is known for this decision)".to_string()
                },
                rank,
                score,
            },
        }
    };
    let menu_recorded = m.visible.is_some();
    let names: Vec<String> = match &m.visible {
        Some(v) => {
            let mut seen = std::collections::HashSet::new();
            v.iter()
                .filter(|n| seen.insert(n.as_str()))
                .cloned()
                .collect()
        }
        None => m.retrieved.clone(),
    };
    let menu_items: Vec<MenuItem> = names.iter().map(|n| item(n)).collect();
    let hidden: Vec<MenuItem> = explained
        .tools
        .iter()
        .filter(|t| !t.visible)
        .map(|t| item(&t.name))
        .collect();
    Ok(Detail {
        decision_id,
        at,
        latency_ms,
        stage,
        menu: menu_items,
        menu_recorded,
        hidden,
        arguments_bytes: payload_bytes(conn, decision_id, PayloadColumn::Arguments),
        result_bytes: payload_bytes(conn, decision_id, PayloadColumn::Result),
        raw_bytes: payload_bytes(conn, decision_id, PayloadColumn::Raw),
        explained,
        expectations,
    })
}
