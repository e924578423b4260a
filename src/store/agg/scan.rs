//! Counts one day's verdicts (through the `ladder_time` index) into the
//! rows of every count table, by catalogue, phase and model.

use rustc_hash::FxHashMap as HashMap;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};

use super::{
    AUDIT, CONFUSIONS, DAY, Dim, FIRSTS, Group, KINDS, NO_BOUNDARY, NO_K, NO_SELECTED, REASONS,
    RUNGS, Rows, TALLIES, TOKENS, TOOLS, add, audit,
};
use crate::error::Result;
use crate::metrics::{DecisionFacts, MetricsAcc};
use crate::model::{Rung, Status};
use crate::store::decode::{Stored, Table};
use crate::store::dense;
use crate::store::names::Names;
use crate::store::rule_scan::{RuleScan, scan_columns};
use crate::store::tools::{ListKey, failure_acceptable, list_body, plain_ids};

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
                l.controls, l.decision_id, r.task_id, d.id IS NOT NULL, l.acceptable,
                r.run_id IS NULL, {audit}
         FROM ladder_rows l LEFT JOIN decision_rows d ON d.id = l.decision_id
         LEFT JOIN runs r ON r.run_id = d.run_id
         LEFT JOIN menus rm ON rm.id = d.retrieval
         WHERE {time}",
        refused = Status::Refused,
        audit = scan_columns("rm.body"),
    )
}

/// An acceptable list as `agg_confusions` keeps it: its names sorted by
/// code point, each once, as a JSON array.
pub(super) fn kept_list(mut names: Vec<String>) -> String {
    names.sort_unstable();
    names.dedup();
    serde_json::Value::from(names).to_string()
}

/// Where the tool audit's columns ([`scan_columns`]) start.
const AUDIT_AT: usize = 29;

/// Per tool: visible, selected, wrongly, refused, controlled.
type ToolCounts = [i64; 5];

/// One group's counts while a day is read (no allocation per row).
#[derive(Default)]
struct Acc {
    /// (rung, boundary, labelled) as places in the scanner's `dims`.
    rungs: HashMap<(usize, usize, bool), i64>,
    tallies: HashMap<i64, Vec<i64>>,
    tokens: HashMap<i64, i64>,
    /// Tool counts by name id (the retrieved lists), named at the end.
    by_id: Vec<ToolCounts>,
    by_name: HashMap<String, ToolCounts>,
    reasons: HashMap<(String, String), i64>,
    /// First decisions by (task, selected tool or none).
    firsts: HashMap<(String, Option<String>), i64>,
    /// SELECTION failures by (acceptable list as kept, selected tool or
    /// none).
    confusions: HashMap<(String, Option<String>), i64>,
    /// The tool audit's counts (a group has one catalogue).
    audit: audit::Acc,
}

impl Acc {
    fn tool(&mut self, name: &str, counts: &ToolCounts) {
        let row = match self.by_name.get_mut(name) {
            Some(row) => row,
            None => self.by_name.entry(name.to_string()).or_default(),
        };
        for (a, b) in row.iter_mut().zip(counts) {
            *a += b;
        }
    }

    fn rows(self, dims: &[Dim], names: &Names, scan: Option<&RuleScan>) -> Counts {
        let mut out: Counts = Default::default();
        if let Some(scan) = scan {
            out[AUDIT] = self.audit.rows(scan);
        }
        for ((rung, boundary, labelled), n) in self.rungs {
            out[RUNGS].insert(
                vec![
                    dims[rung].clone(),
                    dims[boundary].clone(),
                    Dim::Int(labelled as i64),
                ],
                vec![n],
            );
        }
        for (k, counts) in self.tallies {
            out[TALLIES].insert(vec![Dim::Int(k)], counts);
        }
        for (t, n) in self.tokens {
            out[TOKENS].insert(vec![Dim::Int(t)], vec![n]);
        }
        for (name, counts) in self.by_name {
            add(&mut out[TOOLS], vec![Dim::Text(name)], &counts);
        }
        for (id, counts) in self.by_id.iter().enumerate() {
            if counts[0] != 0
                && let Some(name) = names.name(id as u64)
            {
                add(&mut out[TOOLS], vec![Dim::Text(name.to_string())], counts);
            }
        }
        for ((tool, reason), n) in self.reasons {
            out[REASONS].insert(vec![Dim::Text(tool), Dim::Text(reason)], vec![n]);
        }
        for ((task, selected), n) in self.firsts {
            let selected = selected.map_or(Dim::Int(NO_SELECTED), Dim::Text);
            out[FIRSTS].insert(vec![Dim::Text(task), selected], vec![n]);
        }
        for ((acceptable, selected), n) in self.confusions {
            let selected = selected.map_or(Dim::Int(NO_SELECTED), Dim::Text);
            out[CONFUSIONS].insert(vec![Dim::Text(acceptable), selected], vec![n]);
        }
        out
    }
}

/// A group's rows of every kind.
pub(super) type Counts = [Rows; KINDS.len()];

pub(super) struct Scanner {
    names: Names,
    /// Each catalogue's audit scan (by `catalogue_ids` id; `None`: not
    /// stored, or no tools).
    audits: HashMap<i64, Option<RuleScan>>,
    /// Each distinct controls list's names, decoded once.
    controls: HashMap<ListKey, Vec<String>>,
    /// Each distinct acceptable list as `agg_confusions` keeps it (its
    /// names sorted, each once, as JSON), made once.
    acceptable: HashMap<ListKey, String>,
    /// The rungs and boundaries seen (few), counted by their place here.
    dims: Vec<Dim>,
    ids: Vec<u64>,
}

impl Scanner {
    pub fn new(conn: &Connection) -> Result<Scanner> {
        Ok(Scanner {
            names: Names::load(conn)?,
            audits: HashMap::default(),
            controls: HashMap::default(),
            acceptable: HashMap::default(),
            dims: Vec::new(),
            ids: Vec::new(),
        })
    }

    fn dim(&mut self, v: ValueRef<'_>) -> rusqlite::Result<usize> {
        let found = self.dims.iter().position(|d| match (d, v) {
            (Dim::Int(a), ValueRef::Integer(b)) => *a == b,
            (Dim::Text(a), ValueRef::Text(b)) => a.as_bytes() == b,
            _ => false,
        });
        Ok(match found {
            Some(i) => i,
            None => {
                self.dims.push(Dim::read(v)?);
                self.dims.len() - 1
            }
        })
    }

    /// The day's counts (`None`: the verdicts without a time) by group.
    pub fn day(&mut self, conn: &Connection, day: Option<i64>) -> Result<Vec<(Group, Counts)>> {
        let (sql, args): (String, Vec<i64>) = match day {
            Some(d) => (
                select("l.time_us >= ?1 AND l.time_us < ?2"),
                vec![d * DAY, (d + 1) * DAY],
            ),
            None => (select("l.time_us IS NULL"), vec![]),
        };
        let mut groups: Vec<(Group, Acc)> = Vec::new();
        let mut places: HashMap<Group, usize> = HashMap::default();
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let mut last: Option<usize> = None;
        while let Some(r) = rows.next()? {
            let cat: Option<i64> = r.get(0)?;
            let phase = r
                .get_ref(1)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?;
            let model = r
                .get_ref(2)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?;
            let runless: bool = r.get(28)?;
            let same = |g: &Group| {
                g.0 == cat && g.1.as_deref() == phase && g.2.as_deref() == model && g.3 == runless
            };
            let at = match last.filter(|&i| same(&groups[i].0)) {
                Some(i) => i,
                None => {
                    let g: Group = (
                        cat,
                        phase.map(str::to_string),
                        model.map(str::to_string),
                        runless,
                    );
                    let i = *places.entry(g.clone()).or_insert_with(|| {
                        groups.push((g, Acc::default()));
                        groups.len() - 1
                    });
                    last = Some(i);
                    i
                }
            };
            let id: i64 = r.get(24)?;
            let row = || format!("row decision_id {id}");
            let rung_ref = r.get_ref(3)?;
            let rung = rung_ref.as_str().map_err(rusqlite::Error::from)?;
            let wrong = rung == Rung::Selection.as_str();
            let rung = self.dim(rung_ref)?;
            let boundary = match r.get_ref(4)? {
                ValueRef::Null => self.dim(ValueRef::Integer(NO_BOUNDARY))?,
                v => self.dim(v)?,
            };
            let labelled: bool = r.get(5)?;
            let acc = &mut groups[at].1;
            *acc.rungs.entry((rung, boundary, labelled)).or_default() += 1;
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
            let tally = acc
                .tallies
                .entry(k.unwrap_or(NO_K))
                .or_insert_with(|| vec![0; KINDS[TALLIES].counts.len()]);
            tally[0] += 1;
            for (a, n) in tally[1..].iter_mut().zip(MetricsAcc::tallies(&facts)) {
                *a += n as i64;
            }
            if let Some(t) = r.get::<_, Option<i64>>(18)? {
                *acc.tokens.entry(t).or_default() += 1;
            }
            if r.get_ref(11)? == ValueRef::Integer(1)
                && let Some(task) = r
                    .get_ref(25)?
                    .as_str_or_null()
                    .map_err(rusqlite::Error::from)?
            {
                let selected = r.get::<_, Option<String>>(20)?;
                *acc.firsts.entry((task.to_string(), selected)).or_default() += 1;
            }
            if wrong {
                let acceptable =
                    failure_acceptable(conn, r, 27, &row, &mut self.acceptable, kept_list)?;
                let selected = r.get::<_, Option<String>>(20)?;
                *acc.confusions.entry((acceptable, selected)).or_default() += 1;
            }
            let Some(cat) = cat else {
                // Tools are counted per catalogue: without one, nothing.
                continue;
            };
            let retrieved = r.get_ref(19)?.as_str().map_err(rusqlite::Error::from)?;
            let known = self.read_ids(retrieved);
            if r.get::<_, bool>(26)? {
                // The audit reads the recorded visible menu from the same
                // column: read once.
                let ids = std::mem::take(&mut self.ids);
                let counted = match self.audit_scan(conn, cat) {
                    Ok(Some(scan)) => acc.audit.decision(conn, scan, r, known.then_some(&ids)),
                    other => other.map(|_| ()),
                };
                self.ids = ids;
                counted?;
            }
            if known {
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
                    acc.tool(&n, &[1, 0, 0, 0, 0]);
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
                    acc.tool(n, &[0, 0, 0, 0, 1]);
                }
            }
            let selected = r
                .get_ref(20)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?;
            if let Some(selected) = selected {
                let refused = r.get::<_, Option<bool>>(21)?.unwrap_or(false);
                acc.tool(selected, &[0, 1, wrong as i64, refused as i64, 0]);
                if refused {
                    let reason: Option<String> = r.get(22)?;
                    *acc.reasons
                        .entry((selected.to_string(), reason.unwrap_or_default()))
                        .or_default() += 1;
                }
            }
        }
        Ok(groups
            .into_iter()
            .map(|(g, acc)| {
                let scan =
                    g.0.and_then(|c| self.audits.get(&c))
                        .and_then(Option::as_ref);
                let rows = acc.rows(&self.dims, &self.names, scan);
                (g, rows)
            })
            .collect())
    }

    /// The audit scan of a catalogue (by `catalogue_ids` id).
    fn audit_scan(&mut self, conn: &Connection, cat: i64) -> Result<Option<&mut RuleScan>> {
        if let std::collections::hash_map::Entry::Vacant(e) = self.audits.entry(cat) {
            let version: Option<String> = conn
                .prepare_cached("SELECT version FROM catalogue_ids WHERE id = ?1")?
                .query_row([cat], |r| r.get(0))
                .optional()?;
            e.insert(match version {
                Some(v) => RuleScan::for_catalogue(conn, &v, AUDIT_AT)?,
                None => None,
            });
        }
        Ok(self.audits.get_mut(&cat).and_then(Option::as_mut))
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
