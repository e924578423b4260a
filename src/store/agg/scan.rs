//! Counts one day's verdicts (through the `ladder_time` index) into the
//! rows of every count table, by catalogue, phase and model.

use std::collections::HashMap;

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::{
    DAY, Dim, Group, KINDS, NO_BOUNDARY, NO_K, REASONS, RUNGS, Rows, TALLIES, TOKENS, TOOLS, add,
};
use crate::error::Result;
use crate::metrics::{DecisionFacts, MetricsAcc};
use crate::model::{Rung, Status};
use crate::store::decode::{Stored, Table};
use crate::store::dense;
use crate::store::names::Names;
use crate::store::tools::{ListKey, list_body, plain_ids};

/// The columns every count needs, for the verdicts whose time is in
/// [?1, ?2) (or NULL: `{time}` is replaced).
fn select(time: &str) -> String {
    format!(
        "SELECT l.catalogue, d.phase, r.model, l.rung,
                CASE l.boundary WHEN 0 THEN 'representation' WHEN 1 THEN 'schema'
                     WHEN 2 THEN 'semantics' WHEN 3 THEN 'authorization' WHEN 4 THEN 'precondition'
                     WHEN 5 THEN 'unclassified' WHEN 6 THEN 'execution' ELSE l.boundary END,
                l.label_source IS NOT NULL, l.in_registry, l.in_exposed, l.in_retrieved,
                l.selected_ok, l.retrieval_k, l.is_first, l.recovered, l.abstain_expected,
                l.abstained, l.no_call_expected, d.selected IS NULL, l.violated,
                l.definition_tokens, l.retrieved, d.selected, d.status = '{refused}',
                CASE WHEN d.status = '{refused}' THEN
                     CASE WHEN l.reason IS NULL THEN d.reason WHEN l.reason = X'' THEN NULL
                          ELSE l.reason END END,
                l.controls, l.decision_id
         FROM ladder_rows l LEFT JOIN decision_rows d ON d.id = l.decision_id
         LEFT JOIN runs r ON r.run_id = d.run_id
         WHERE {time}",
        refused = Status::Refused,
    )
}

/// Per tool: visible, selected, wrongly, refused, controlled.
type ToolCounts = [i64; 5];

/// One group's counts while a day is read.
#[derive(Default)]
struct Acc {
    kinds: [Rows; 5],
    /// Tool counts by name id (the retrieved lists), named at the end.
    by_id: Vec<ToolCounts>,
}

pub(super) struct Scanner {
    names: Names,
    /// Each distinct controls list's names, decoded once.
    controls: HashMap<ListKey, Vec<String>>,
    ids: Vec<u64>,
}

impl Scanner {
    pub fn new(conn: &Connection) -> Result<Scanner> {
        Ok(Scanner {
            names: Names::load(conn)?,
            controls: HashMap::new(),
            ids: Vec::new(),
        })
    }

    /// The day's counts (`None`: the verdicts without a time) by group.
    pub fn day(&mut self, conn: &Connection, day: Option<i64>) -> Result<Vec<(Group, [Rows; 5])>> {
        let (sql, args): (String, Vec<i64>) = match day {
            Some(d) => (
                select("l.time_us >= ?1 AND l.time_us < ?2"),
                vec![d * DAY, (d + 1) * DAY],
            ),
            None => (select("l.time_us IS NULL"), vec![]),
        };
        let mut groups: HashMap<Group, Acc> = HashMap::new();
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        while let Some(r) = rows.next()? {
            let group: Group = (r.get(0)?, r.get(1)?, r.get(2)?);
            let acc = groups.entry(group).or_default();
            let id: i64 = r.get(24)?;
            let row = || format!("row decision_id {id}");
            let rung: String = r.get(3)?;
            let boundary = match r.get_ref(4)? {
                ValueRef::Null => Dim::Int(NO_BOUNDARY),
                v => Dim::read(v)?,
            };
            let labelled: bool = r.get(5)?;
            add(
                &mut acc.kinds[RUNGS],
                vec![Dim::Text(rung.clone()), boundary, Dim::Int(labelled as i64)],
                &[1],
            );
            let b = |i: usize| -> rusqlite::Result<bool> {
                Ok(r.get::<_, Option<bool>>(i)?.unwrap_or(false))
            };
            let k: Option<i64> = r.get(10)?;
            let facts = DecisionFacts {
                rung: None,
                labelled,
                in_registry: b(6)?,
                in_exposed: b(7)?,
                in_retrieved: b(8)?,
                selected_ok: b(9)?,
                retrieval_k: k.map(|k| k as u32),
                is_first: b(11)?,
                recovered: b(12)?,
                abstain_expected: b(13)?,
                abstained: b(14)?,
                no_call_expected: b(15)?,
                no_call: b(16)?,
                violated: b(17)?,
                definition_tokens: None,
            };
            let mut counts = vec![1i64];
            counts.extend(MetricsAcc::tallies(&facts).iter().map(|&n| n as i64));
            add(
                &mut acc.kinds[TALLIES],
                vec![Dim::Int(k.unwrap_or(NO_K))],
                &counts,
            );
            if let Some(t) = r.get::<_, Option<i64>>(18)? {
                add(&mut acc.kinds[TOKENS], vec![Dim::Int(t)], &[1]);
            }
            if r.get_ref(0)? == ValueRef::Null {
                // Tools are counted per catalogue: without one, nothing.
                continue;
            }
            let retrieved = r.get_ref(19)?.as_str().map_err(rusqlite::Error::from)?;
            if self.read_ids(retrieved) {
                for &id in &self.ids {
                    let i = id as usize;
                    if acc.by_id.len() <= i {
                        acc.by_id.resize(i + 1, [0; 5]);
                    }
                    acc.by_id[i][0] += 1;
                }
            } else {
                let names = Stored::new(conn, Table::Ladder, &row)
                    .with_names(&self.names)
                    .list("retrieved", Some(retrieved.to_string()))?
                    .unwrap_or_default();
                for n in names {
                    add(&mut acc.kinds[TOOLS], vec![Dim::Text(n)], &[1, 0, 0, 0, 0]);
                }
            }
            let c = match r.get_ref(23)? {
                ValueRef::Null => None,
                ValueRef::Integer(i) => Some(ListKey::Id(i)),
                _ => Some(ListKey::Text(r.get(23)?)),
            };
            if let Some(c) = c {
                if !self.controls.contains_key(&c) {
                    let body = list_body(conn, &c)?;
                    let names = Stored::new(conn, Table::Ladder, &row)
                        .with_names(&self.names)
                        .list("controls", body)?
                        .unwrap_or_default();
                    self.controls.insert(c.clone(), names);
                }
                for n in &self.controls[&c] {
                    add(
                        &mut acc.kinds[TOOLS],
                        vec![Dim::Text(n.clone())],
                        &[0, 0, 0, 0, 1],
                    );
                }
            }
            if let Some(selected) = r.get::<_, Option<String>>(20)? {
                let wrong = rung == Rung::Selection.as_str();
                let refused = r.get::<_, Option<bool>>(21)?.unwrap_or(false);
                add(
                    &mut acc.kinds[TOOLS],
                    vec![Dim::Text(selected.clone())],
                    &[0, 1, wrong as i64, refused as i64, 0],
                );
                if refused {
                    let reason: Option<String> = r.get(22)?;
                    add(
                        &mut acc.kinds[REASONS],
                        vec![Dim::Text(selected), Dim::Text(reason.unwrap_or_default())],
                        &[1],
                    );
                }
            }
        }
        let mut out = Vec::with_capacity(groups.len());
        for (group, mut acc) in groups {
            for (id, counts) in acc.by_id.iter().enumerate() {
                if counts[0] != 0
                    && let Some(name) = self.names.name(id as u64)
                {
                    add(
                        &mut acc.kinds[TOOLS],
                        vec![Dim::Text(name.to_string())],
                        counts,
                    );
                }
            }
            out.push((group, acc.kinds));
        }
        debug_assert_eq!(KINDS.len(), 5);
        Ok(out)
    }

    /// A retrieved list of name ids all in `tool_names` (packed JSON written
    /// plainly, or dense) into `self.ids`; false for anything else.
    fn read_ids(&mut self, text: &str) -> bool {
        let read = if text.starts_with(dense::LIST) {
            dense::list_ids(text).map(|v| self.ids = v)
        } else {
            plain_ids(text, &mut self.ids)
        };
        read.is_some() && self.ids.iter().all(|&id| self.names.name(id).is_some())
    }
}
