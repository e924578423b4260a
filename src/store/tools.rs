//! Catalogue tools: usage per tool (`rung report tools`), flags and stored
//! definitions for the Tools screen, and the "why was it visible" audit.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::decode::{Stored, Table};
use super::dense;
use super::filter_sql::{FilterSql, push_in};
use super::findings::FindingRow;
use super::menu::MenuRow;
use super::names::Names;
use super::rule_scan::{RuleScan, scan_sql};
use crate::error::Result;
use crate::filter::Filter;
use crate::ladder::{self, Menu};
use crate::metrics::ToolUsage;
use crate::model::{Rule, Rung, Status};
use crate::text::echo;

/// Per catalogue tool usage (`rung report tools`), by (catalogue, name).
pub fn tools(conn: &Connection, f: &Filter) -> Result<Vec<ToolUsage>> {
    let mut sql = String::from("SELECT catalogue, name, family, effect FROM tools WHERE 1=1");
    let mut args = Vec::new();
    push_in(&mut sql, &mut args, "catalogue", &f.catalogues);
    sql.push_str(" ORDER BY catalogue, name");
    let mut list: Vec<ToolUsage> = conn
        .prepare(&sql)?
        .query_map(params_from_iter(args), |r| {
            Ok(ToolUsage {
                catalogue: r.get(0)?,
                name: r.get(1)?,
                family: r.get(2)?,
                effect: r.get(3)?,
                visible: 0,
                selected: 0,
                selected_wrongly: 0,
                refused: 0,
                refused_by_reason: BTreeMap::new(),
                never_selected: true,
                trusted_control: false,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut index: HashMap<String, HashMap<String, usize>> = HashMap::new();
    for (i, t) in list.iter().enumerate() {
        index
            .entry(t.catalogue.clone())
            .or_default()
            .insert(t.name.clone(), i);
    }
    if let Some(s) = super::agg::read::scope(conn, f)? {
        let (sums, reasons) = super::agg::read::tools(conn, &s)?;
        for t in &mut list {
            let key = (t.catalogue.clone(), t.name.clone());
            if let Some(c) = sums.get(&key) {
                t.visible = c[0];
                t.selected = c[1];
                t.selected_wrongly = c[2];
                t.refused = c[3];
                t.trusted_control = c[4] > 0;
            }
            for (reason, n) in reasons.get(&key).into_iter().flatten() {
                *t.refused_by_reason.entry(reason.clone()).or_default() += n;
            }
            t.never_selected = t.selected == 0;
        }
        return Ok(list);
    }
    // The stored verdicts directly: the catalogue and the controls as ids
    // (each distinct controls list decoded once), the reason only where
    // the decision was refused.
    let by_id = catalogue_tools(conn, &index)?;
    let (clause, args) = f.counting_rows_clause();
    let from = f.rows_from();
    let refused = format!("d.status = '{}'", Status::Refused);
    let mut stmt = conn.prepare(&format!(
        "SELECT l.catalogue, l.retrieved, d.selected, l.rung = '{}', {refused},
                CASE WHEN {refused} THEN
                     CASE WHEN l.reason IS NULL THEN d.reason WHEN l.reason = X'' THEN NULL
                          ELSE l.reason END END,
                l.decision_id, l.controls
         {from} WHERE {clause} AND l.catalogue IS NOT NULL",
        Rung::Selection,
    ))?;
    let interned = Names::load(conn)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    // Pinned menus repeat the same text: parse each distinct one once.
    let mut parsed: HashMap<String, Vec<String>> = HashMap::new();
    // The controls lists seen, per catalogue (few distinct ones).
    let mut controls: HashSet<(i64, ListKey)> = HashSet::new();
    let mut id_places: HashMap<i64, IdPlaces> = HashMap::new();
    let mut ids: Vec<u64> = Vec::new();
    let mut seen: Vec<usize> = Vec::new();
    while let Some(r) = rows.next()? {
        let cat: i64 = r.get(0)?;
        let Some(&tools) = by_id.get(&cat) else {
            continue;
        };
        let retrieved = r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        let wrong: bool = r.get(3)?;
        let refused: bool = r.get::<_, Option<bool>>(4)?.unwrap_or(false);
        // Most lists are name ids whose names are all known: counted
        // through the ids without spelling a name.
        let known = id_places
            .entry(cat)
            .or_insert_with(|| places_by_id(&interned, tools))
            .places(&interned, retrieved, &mut ids, &mut seen);
        if known {
            for &i in &seen {
                list[i].visible += 1;
            }
        } else {
            if parsed.len() > 10_000 {
                parsed.clear();
            }
            let names = match parsed.get(retrieved) {
                Some(names) => names,
                None => {
                    let id: i64 = r.get(6)?;
                    let row = || format!("row decision_id {id}");
                    let list = Stored::new(conn, Table::Ladder, &row)
                        .with_names(&interned)
                        .list("retrieved", Some(retrieved.to_string()))?
                        .unwrap_or_default();
                    parsed.entry(retrieved.to_string()).or_insert(list)
                }
            };
            for n in names.iter() {
                if let Some(&i) = tools.get(n) {
                    list[i].visible += 1;
                }
            }
        }
        let c = match r.get_ref(7)? {
            ValueRef::Null => None,
            ValueRef::Integer(i) => Some(ListKey::Id(i)),
            _ => Some(ListKey::Text(r.get(7)?)),
        };
        if let Some(c) = c
            && !controls.contains(&(cat, c.clone()))
        {
            let id: i64 = r.get(6)?;
            let row = || format!("row decision_id {id}");
            let body = list_body(conn, &c)?;
            let names = Stored::new(conn, Table::Ladder, &row)
                .with_names(&interned)
                .list("controls", body)?
                .unwrap_or_default();
            for n in names {
                if let Some(&i) = tools.get(&n) {
                    list[i].trusted_control = true;
                }
            }
            controls.insert((cat, c));
        }
        let selected = r
            .get_ref(2)?
            .as_str_or_null()
            .map_err(rusqlite::Error::from)?;
        if let Some(&i) = selected.and_then(|s| tools.get(s)) {
            list[i].selected += 1;
            if wrong {
                list[i].selected_wrongly += 1;
            }
            if refused {
                list[i].refused += 1;
                let reason: Option<String> = r.get(5)?;
                *list[i]
                    .refused_by_reason
                    .entry(reason.unwrap_or_default())
                    .or_default() += 1;
            }
        }
    }
    for t in &mut list {
        t.never_selected = t.selected == 0;
    }
    Ok(list)
}

/// `catalogue_ids` id → the catalogue's tools (name → place in the usage
/// list), for the catalogues that have tools.
fn catalogue_tools<'a>(
    conn: &Connection,
    index: &'a HashMap<String, HashMap<String, usize>>,
) -> Result<HashMap<i64, &'a HashMap<String, usize>>> {
    let mut out = HashMap::new();
    let mut stmt = conn.prepare("SELECT id, version FROM catalogue_ids")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(tools) = index.get(r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?) {
            out.insert(r.get(0)?, tools);
        }
    }
    Ok(out)
}

/// A catalogue's tools by name id: their places in the usage list.
struct IdPlaces(Vec<Option<usize>>);

fn places_by_id(names: &Names, tools: &HashMap<String, usize>) -> IdPlaces {
    IdPlaces(
        (0..names.len() as u64)
            .map(|id| names.name(id).and_then(|n| tools.get(n).copied()))
            .collect(),
    )
}

impl IdPlaces {
    /// The places of the tools a stored list of name ids names (packed
    /// JSON written plainly, or dense), `None` for any other text or an id
    /// not in `tool_names` (decoded the long way, which says what is wrong).
    fn places(&self, names: &Names, text: &str, ids: &mut Vec<u64>, out: &mut Vec<usize>) -> bool {
        out.clear();
        let read = if text.starts_with(dense::LIST) {
            dense::list_ids(text).map(|v| *ids = v)
        } else {
            plain_ids(text, ids)
        };
        if read.is_none() || ids.iter().any(|&id| names.name(id).is_none()) {
            return false;
        }
        out.extend(ids.iter().filter_map(|&id| self.0[id as usize]));
        true
    }
}

/// The ids of `[1,2,3]` (no spaces, no leading zeros, at most 18 digits
/// each) into `ids`; `None` for any other text.
pub(super) fn plain_ids(text: &str, ids: &mut Vec<u64>) -> Option<()> {
    ids.clear();
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    if inner.is_empty() {
        return Some(());
    }
    for part in inner.split(',') {
        let b = part.as_bytes();
        let plain = !b.is_empty()
            && b.len() <= 18
            && b.iter().all(u8::is_ascii_digit)
            && (b[0] != b'0' || b.len() == 1);
        if !plain {
            return None;
        }
        ids.push(part.parse().ok()?);
    }
    Some(())
}

/// A stored list column of `ladder_rows`: a `ladder_lists` id, or a text
/// kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum ListKey {
    Id(i64),
    Text(String),
}

/// A SELECTION failure's acceptable list, read from column `col` of `r`,
/// and its names: such a failure always has a label, so NULL, or an id no
/// list has, is an error (the column read as text, where it is not).
/// `known` gives a list already decoded by its key.
pub(super) fn failure_acceptable<T: Clone, S: std::hash::BuildHasher>(
    conn: &Connection,
    r: &rusqlite::Row<'_>,
    col: usize,
    row: &dyn Fn() -> String,
    known: &mut HashMap<ListKey, T, S>,
    keep: impl FnOnce(Vec<String>) -> T,
) -> Result<T> {
    let key = match r.get_ref(col)? {
        ValueRef::Integer(i) => ListKey::Id(i),
        _ => ListKey::Text(r.get(col)?),
    };
    if let Some(t) = known.get(&key) {
        return Ok(t.clone());
    }
    let body: String = match list_body(conn, &key)? {
        Some(body) => body,
        None => r.get(col)?,
    };
    let names = Stored::new(conn, Table::Ladder, row)
        .list("acceptable", Some(body))?
        .unwrap_or_default();
    let t = keep(names);
    known.insert(key, t.clone());
    Ok(t)
}

/// The text a stored list stands for (as the `ladder` view reads it).
pub(super) fn list_body(conn: &Connection, key: &ListKey) -> Result<Option<String>> {
    Ok(match key {
        ListKey::Id(id) => conn
            .prepare_cached("SELECT body FROM ladder_lists WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?,
        ListKey::Text(t) => Some(t.clone()),
    })
}

/// Flags of a catalogue tool the usage report does not carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolFlags {
    pub open_world: bool,
    /// A later import carried a different definition (description drift or
    /// catalogue conflict).
    pub drifted: bool,
}

/// (catalogue, name) → flags, for every stored tool.
pub fn tool_flags(conn: &Connection) -> Result<BTreeMap<(String, String), ToolFlags>> {
    let mut out = BTreeMap::new();
    let mut stmt = conn.prepare_cached(
        "SELECT t.catalogue, t.name, t.open_world,
                (SELECT count(*) FROM tool_versions v WHERE v.catalogue = t.catalogue AND v.name = t.name) > 1
         FROM tools t",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        out.insert(
            (r.get(0)?, r.get(1)?),
            ToolFlags {
                open_world: r.get(2)?,
                drifted: r.get(3)?,
            },
        );
    }
    Ok(out)
}

/// A tool's stored definition, for the Tools screen's detail.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub catalogue: String,
    pub name: String,
    pub family: String,
    pub effect: String,
    pub open_world: bool,
    pub idempotent: bool,
    /// The catalogue record of the tool as imported (JSON).
    pub record: serde_json::Value,
    /// Other definitions seen later under the same version (drift).
    pub drift: Vec<FindingRow>,
}

pub fn tool_def(conn: &Connection, catalogue: &str, name: &str) -> Result<Option<ToolDef>> {
    let mut stmt = conn.prepare_cached(
        "SELECT family, effect, open_world, idempotent, record FROM tools
         WHERE catalogue = ?1 AND name = ?2",
    )?;
    let mut rows = stmt.query(params![catalogue, name])?;
    let Some(r) = rows.next()? else {
        return Ok(None);
    };
    let row = || format!("row catalogue {} name {}", echo(catalogue), echo(name));
    let record = Stored::new(conn, Table::Tools, &row).json("record", r.get(4)?)?;
    let mut def = ToolDef {
        catalogue: catalogue.to_string(),
        name: name.to_string(),
        family: r.get(0)?,
        effect: r.get(1)?,
        open_world: r.get(2)?,
        idempotent: r.get(3)?,
        record: record.unwrap_or(serde_json::Value::Null),
        drift: Vec::new(),
    };
    drop(rows);
    drop(stmt);
    // The catalogue's own findings (no run) through the run index: with one
    // catalogue, its index would walk every finding of every run.
    def.drift = conn
        .prepare_cached(
            "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
             WHERE id IN (SELECT id FROM finding_rows WHERE run_id IS NULL
                 AND +catalogue = (SELECT id FROM catalogue_ids WHERE version = ?1)
                 AND +tool = (SELECT id FROM finding_names WHERE name = ?2))
             ORDER BY kind, detail",
        )?
        .query_map(params![catalogue, name], |r| {
            Ok(FindingRow {
                kind: r.get(0)?,
                catalogue: r.get(1)?,
                task_id: r.get(2)?,
                run_id: r.get(3)?,
                step: r.get(4)?,
                tool: r.get(5)?,
                detail: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some(def))
}

/// How often one rule made a tool visible or hid it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleCount {
    pub visible: bool,
    pub rule: String,
    pub decisions: u64,
    /// One explanation the rule gave (the first seen).
    pub example: String,
}

/// "Why was this tool visible?" over the decisions on its catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAudit {
    /// By decisions, descending.
    pub rules: Vec<RuleCount>,
    /// Decisions on the catalogue in the filter (every one is examined).
    pub total: u64,
}

/// Counts each exposure rule for `name` over every decision on
/// `catalogue` in the filter; a rule's example is its first decision's
/// explanation. A filter the kept counts answer ([`agg::read::scope`]) is
/// counted from them (`agg::audit`), and the examples found by walking the
/// decisions from the first until every rule has one; any other filter
/// walks every decision, each one's rule read from its stored menu ids
/// ([`RuleScan`]) without building its menu.
///
/// [`agg::read::scope`]: super::agg::read::scope
pub fn tool_audit(
    conn: &Connection,
    f: &Filter,
    catalogue: &str,
    name: &str,
    cancelled: &dyn Fn() -> bool,
) -> Result<ToolAudit> {
    let empty = ToolAudit {
        rules: Vec::new(),
        total: 0,
    };
    let Some(mut scan) = RuleScan::new(conn, catalogue, name)? else {
        return Ok(empty);
    };
    let Some(cat_id) = scan.catalogue_id else {
        return Ok(empty);
    };
    let kept = match super::agg::read::scope(conn, f)? {
        Some(s) => {
            let tool = super::agg::audit::Audited {
                name,
                family: &scan.info.family,
                effect: scan.info.effect,
                open_world: scan.info.open_world,
            };
            super::agg::audit::tool_counts(conn, &s, cat_id, &tool)?
        }
        None => None,
    };
    // (visible, rule) → (decisions, the first decision's id).
    let (counts, total) = match kept {
        Some((by_rule, total)) => {
            let wanted: Vec<(bool, Rule)> = by_rule.keys().copied().collect();
            let firsts = walk(conn, f, &mut scan, cat_id, cancelled, Some(&wanted))?.0;
            if wanted.iter().all(|k| firsts.contains_key(k)) || cancelled() {
                let counts = by_rule
                    .into_iter()
                    .filter_map(|(k, n)| firsts.get(&k).map(|(_, id)| (k, (n, *id))))
                    .collect();
                (counts, total)
            } else {
                // A kept count with no decision to show for it: the counts
                // disagree with the decisions, so count them the long way.
                walk(conn, f, &mut scan, cat_id, cancelled, None)?
            }
        }
        None => walk(conn, f, &mut scan, cat_id, cancelled, None)?,
    };
    let mut rules = Vec::with_capacity(counts.len());
    for ((visible, rule), (decisions, first)) in counts {
        let example = scan
            .explain(conn, first)?
            .map(|t| t.why)
            .unwrap_or_default();
        rules.push(RuleCount {
            visible,
            rule: rule.as_str().to_string(),
            decisions,
            example,
        });
    }
    rules.sort_by(|a, b| b.decisions.cmp(&a.decisions).then(a.rule.cmp(&b.rule)));
    Ok(ToolAudit { rules, total })
}

/// (visible, rule) → (decisions, the first decision's id).
type RuleFirsts = BTreeMap<(bool, Rule), (u64, i64)>;

/// Walks the decisions on the catalogue in the filter in decision order,
/// counting each rule and its first decision, and the decisions walked;
/// with `until`, only until each of those rules has its first decision.
fn walk(
    conn: &Connection,
    f: &Filter,
    scan: &mut RuleScan,
    cat_id: i64,
    cancelled: &dyn Fn() -> bool,
    until: Option<&[(bool, Rule)]>,
) -> Result<(RuleFirsts, u64)> {
    let mut counts = RuleFirsts::new();
    let mut total = 0u64;
    let done =
        |counts: &RuleFirsts| until.is_some_and(|w| w.iter().all(|k| counts.contains_key(k)));
    // In chunks of decision ids: each chunk's query reads the retrieval
    // bodies itself when most rows of the last one needed theirs (a tool
    // the policies mostly hide needs few).
    let mut after = i64::MIN;
    let mut bodies = true;
    'chunks: while !done(&counts) {
        let (sql, mut args) = scan_sql(
            f,
            bodies,
            "AND l.decision_id > ?",
            "ORDER BY l.decision_id LIMIT 65536",
        );
        args.push(Sql::Integer(cat_id));
        args.push(Sql::Integer(after));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        scan.needed = (0, 0);
        let mut read = 0;
        while let Some(r) = rows.next()? {
            if total.is_multiple_of(4096) && cancelled() {
                break 'chunks;
            }
            total += 1;
            read += 1;
            let id: i64 = r.get(0)?;
            after = id;
            if let Some(rule) = scan.rule(conn, r)? {
                let e = counts.entry(rule).or_insert((0, id));
                e.0 += 1;
                if e.0 == 1 && done(&counts) {
                    break 'chunks;
                }
            }
        }
        if read < 65536 {
            break;
        }
        bodies = scan.needed.0 * 2 > scan.needed.1;
    }
    Ok((counts, total))
}

/// One tool's "why visible" on one decision's menu, as the tool audit
/// decides it. Rules 1-6 for one tool look at no other tool except through
/// the ranks, which depend only on the recorded candidates: a view of the
/// catalogue with the tool and the candidates gives the same answer as the
/// whole catalogue, at the cost of k tools instead of all.
pub(super) fn explain_one(
    cat: &ladder::CatalogueView,
    name: &str,
    info: &ladder::ToolInfo,
    m: &MenuRow,
) -> Option<ladder::ToolVisibility> {
    let mut view = ladder::CatalogueView {
        version: cat.version.clone(),
        abstain: cat.abstain.clone(),
        tools: ladder::ToolMap::new(),
    };
    view.tools.insert(name.to_string(), info.clone());
    if let Some(ret) = &m.retrieval {
        for c in &ret.candidates {
            if let Some(t) = cat.tools.get(&c.name) {
                view.tools.insert(c.name.clone(), t.clone());
            }
        }
    }
    let menu = Menu {
        catalogue: Some(&view),
        policy: m.policy.as_ref(),
        controls: &m.controls,
        retrieval: m.retrieval.as_ref(),
        exposed: m.exposed.as_deref(),
        visible: m.visible.as_deref(),
    };
    ladder::explain_tools(menu, m.label.as_ref(), m.selected.as_deref())
        .into_iter()
        .find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::plain_ids;

    #[test]
    fn plain_id_lists_read_fast_and_anything_else_is_left_to_the_decoder() {
        let mut ids = Vec::new();
        assert_eq!(plain_ids("[1,11,0,305]", &mut ids), Some(()));
        assert_eq!(ids, [1, 11, 0, 305]);
        assert_eq!(plain_ids("[]", &mut ids), Some(()));
        assert!(ids.is_empty());
        for other in [
            "[1, 2]",
            "[01]",
            "[1,]",
            "[\"a\"]",
            "1,2",
            "[-1]",
            "[1234567890123456789]",
        ] {
            assert_eq!(plain_ids(other, &mut ids), None, "{other}");
        }
    }
}
