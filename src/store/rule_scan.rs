//! One catalogue tool's exposure rule (rules 1–6 of ladder.md, as
//! `explain_tools` gives it) on every decision of its catalogue, read from
//! the stored ids without building each decision's menu: the controls,
//! policy and exposed lists are decoded once per distinct stored value (a
//! policy as the few facts the rules read), a dense retrieval is read for
//! its k and candidate ids only, and the recorded visible menu is the
//! verdict's `retrieved` (the classifier writes the recorded visible menu
//! there, sorted, without `@no_call`). Whatever does not read so (a value
//! that does not decode, an unusual form) is explained the long way, as
//! [`super::tools::explain_one`] does, so the answer is the same.

use std::collections::HashMap;
use std::rc::Rc;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Row};
use rustc_hash::FxHashMap;

use super::decode::{Stored, Table};
use super::filter_sql::FilterSql;
use super::menu::{MENU_SELECT, MenuRow, menu_row};
use super::menu_bytes;
use super::names::Names;
use super::tools::{ListKey, explain_one};
use crate::error::Result;
use crate::filter::Filter;
use crate::ladder::{self, CatalogueView, Menu, ToolInfo, ToolVisibility};
use crate::model::{Effect, NO_CALL, Rule};

/// The columns [`RuleScan::rule`] reads, over `ladder_rows l JOIN
/// decision_rows d`: the menu fields as stored (ids or text), the dense
/// retrieval's body (`BODY`: read here, or NULL and read when needed),
/// whether a visible menu is recorded, the verdict's retrieved set and the
/// run when a field is inherited from it.
const SCAN_SELECT: &str = "l.decision_id, d.policy, d.trusted_controls, d.retrieval, BODY, \
d.exposed, d.visible IS NOT NULL, l.retrieved, \
CASE WHEN d.policy IS NULL OR d.trusted_controls IS NULL OR d.retrieval IS NULL \
OR d.visible IS NULL THEN d.run_id END";

/// The rows of the decisions on a catalogue (its id bound after the
/// filter's arguments) in `f`, as [`SCAN_SELECT`], with `extra` (SQL after
/// the filter, e.g. a decision id bound) and `order` appended. `bodies`:
/// the retrieval bodies are read by the query (cheaper when most rows need
/// them), else one by one when a row needs its own.
pub(super) fn scan_sql(
    f: &Filter,
    bodies: bool,
    extra: &str,
    order: &str,
) -> (String, Vec<rusqlite::types::Value>) {
    let (clause, args) = f.rows_clause();
    let runs = if f.has_run_filter() {
        " JOIN runs r ON r.run_id = d.run_id"
    } else {
        ""
    };
    (
        format!(
            "SELECT {} FROM ladder_rows l JOIN decision_rows d ON d.id = l.decision_id{runs}
             WHERE {clause} AND l.catalogue = ? {extra} {order}",
            scan_columns(if bodies {
                "(SELECT body FROM menus WHERE id = d.retrieval)"
            } else {
                "NULL"
            })
        ),
        args,
    )
}

/// [`SCAN_SELECT`], the retrieval body read as `body` (SQL; `NULL`: read
/// when needed).
pub(super) fn scan_columns(body: &str) -> String {
    SCAN_SELECT.replace("BODY", body)
}

/// What the rules read of a policy: the catalogue families it allows (by
/// their index in the catalogue's families; `None`: any), its effect
/// ceiling and whether open-world tools pass.
#[derive(Clone)]
pub(super) struct PolicyFacts {
    pub(super) families: Option<Rc<[bool]>>,
    pub(super) max_effect: Option<Effect>,
    pub(super) open_world: bool,
}

/// What the rules read of a catalogue tool.
#[derive(Clone, Copy)]
pub(super) struct ToolFacts {
    pub(super) family: usize,
    pub(super) effect: Effect,
    pub(super) open_world: bool,
    /// Its place among the catalogue's tools (in name order).
    pub(super) place: usize,
}

/// Rules 2–4 (`ladder::policy_hides`) over the facts.
pub(super) fn hides(p: &PolicyFacts, t: &ToolFacts) -> Option<Rule> {
    if let Some(f) = &p.families
        && !f[t.family]
    {
        return Some(Rule::Family);
    }
    if p.max_effect.is_some_and(|m| t.effect > m) {
        return Some(Rule::Effect);
    }
    if t.open_world && !p.open_world {
        return Some(Rule::OpenWorld);
    }
    None
}

/// A run's menu fields (inherited where a decision records none).
struct RunMenu {
    policy: Option<String>,
    controls: Option<String>,
    retrieval: Option<String>,
    visible: bool,
}

/// A retrieval as the rank reads it: k and the candidates' ids.
struct Candidates {
    k: u32,
    ids: Vec<u64>,
}

/// Where a menu field's value comes from (the caches key by it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Source {
    Own(ListKey),
    Run(String),
}

/// A decoded value cached by where it came from: `None` when it does not
/// read (the decision is explained the long way).
type Cache<T> = FxHashMap<Source, Option<T>>;

/// One tool's rule on decision after decision of its catalogue.
pub(super) struct RuleScan {
    pub(super) cat: CatalogueView,
    pub(super) name: String,
    pub(super) info: ToolInfo,
    /// Where [`SCAN_SELECT`]'s columns start in the rows read.
    pub(super) at: usize,
    /// The catalogue's id in `catalogue_ids` (`None`: no decision names it).
    pub(super) catalogue_id: Option<i64>,
    /// Rows whose rule needed their retrieval, of rows read (to choose
    /// whether the next query reads the bodies itself).
    pub(super) needed: (u64, u64),
    pub(super) names: Names,
    /// Names → ids: `tool_names`' ids, then ids past them for names it
    /// does not hold (they can only come from lists spelled as names).
    ids: HashMap<String, u64>,
    /// The tool audited.
    tid: u64,
    tool: ToolFacts,
    pub(super) no_call: Option<u64>,
    /// Their names, by place.
    pub(super) tool_names: Vec<String>,
    /// Catalogue tools by name id.
    by_id: Vec<Option<ToolFacts>>,
    families: HashMap<String, usize>,
    /// The catalogue's families, by their index.
    pub(super) family_names: Vec<String>,
    /// Policies stored as `menus` ids (most of them), then the others.
    policy_ids: FxHashMap<i64, Option<Option<PolicyFacts>>>,
    policies: Cache<Option<PolicyFacts>>,
    controls: Cache<Rc<[u64]>>,
    exposed: Cache<Rc<[u64]>>,
    /// No controls.
    none: Rc<[u64]>,
    run_retrievals: Cache<Option<Candidates>>,
    runs: HashMap<String, Option<RunMenu>>,
    pub(super) visible: Vec<u64>,
    pub(super) candidates: Vec<u64>,
    ranked: Vec<u64>,
    /// What the caches of lists, run retrievals and run menus hold, in
    /// 8-byte words (ids, and the text of keys and values); each is
    /// emptied when it would pass [`HELD`], so that a scan of millions of
    /// decisions with as many distinct menus stays within a few tens of
    /// megabytes.
    held: [usize; 3],
}

/// The words each cache of a [`RuleScan`] may hold (16 MB).
const HELD: usize = 1 << 21;
const LISTS: usize = 0;
const RETRIEVALS: usize = 1;
const RUNS: usize = 2;

/// The policies by `menus` id a [`RuleScan`] keeps decoded.
const POLICIES_HELD: usize = 65_536;

/// Charges `words` to a cache that holds `held`: true when the cache must
/// be emptied first (it would pass [`HELD`]).
fn over(held: &mut usize, words: usize) -> bool {
    let full = *held + words > HELD;
    if full {
        *held = 0;
    }
    *held += words;
    full
}

/// What a cache entry keyed by `src` holding `words` more costs, in words.
fn cost(src: &Source, words: usize) -> usize {
    let key = match src {
        Source::Run(text) => text.len() / 8,
        Source::Own(_) => 0,
    };
    8 + key + words
}

/// A decision's rule for the tool, or `None`: explain it the long way.
type Fast = Option<(bool, Rule)>;

/// A stored menu column's value as a cache key (`Some(None)`: NULL; `None`:
/// neither an id nor text).
fn key(r: &Row<'_>, i: usize) -> Result<Option<Option<ListKey>>> {
    Ok(match r.get_ref(i)? {
        ValueRef::Null => Some(None),
        ValueRef::Integer(n) => Some(Some(ListKey::Id(n))),
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .map(|s| Some(ListKey::Text(s.to_string()))),
        _ => None,
    })
}

impl RuleScan {
    /// `None` when the catalogue is not stored or does not list `name`.
    pub(super) fn new(conn: &Connection, catalogue: &str, name: &str) -> Result<Option<RuleScan>> {
        Self::build(conn, catalogue, Some(name))
    }

    /// A scan of a catalogue's decisions for every tool at once (the
    /// counts kept, `agg::audit`), reading [`SCAN_SELECT`] from column
    /// `at`; `None` when the catalogue is not stored or lists no tool.
    pub(super) fn for_catalogue(
        conn: &Connection,
        catalogue: &str,
        at: usize,
    ) -> Result<Option<RuleScan>> {
        Ok(Self::build(conn, catalogue, None)?.map(|s| RuleScan { at, ..s }))
    }

    /// A scan for `name` (`None`: the catalogue's first tool stands in;
    /// the caller asks for each tool itself).
    fn build(conn: &Connection, catalogue: &str, name: Option<&str>) -> Result<Option<RuleScan>> {
        let Some(cat) = super::classify::load_catalogue(conn, catalogue)? else {
            return Ok(None);
        };
        let Some(name) = name.or_else(|| cat.tools.keys().next().map(String::as_str)) else {
            return Ok(None);
        };
        let name = name.to_string();
        let Some(info) = cat.tools.get(&name).cloned() else {
            return Ok(None);
        };
        let catalogue_id = conn
            .prepare_cached("SELECT id FROM catalogue_ids WHERE version = ?1")?
            .query_row([catalogue], |r| r.get(0))
            .optional()?;
        let names = Names::load(conn)?;
        let mut ids: HashMap<String, u64> = HashMap::new();
        for id in 0..names.len() as u64 {
            if let Some(n) = names.name(id) {
                ids.insert(n.to_string(), id);
            }
        }
        let mut families: HashMap<String, usize> = HashMap::new();
        let mut family_names = Vec::new();
        let mut tools = FxHashMap::default();
        let mut tool_names = Vec::new();
        let mut audited = None;
        let mut next = names.len() as u64;
        for (n, t) in cat.tools.iter() {
            let family = match families.get(&t.family) {
                Some(&f) => f,
                None => {
                    families.insert(t.family.clone(), family_names.len());
                    family_names.push(t.family.clone());
                    family_names.len() - 1
                }
            };
            let facts = ToolFacts {
                family,
                effect: t.effect,
                open_world: t.open_world,
                place: tools.len(),
            };
            let id = *ids.entry(n.clone()).or_insert_with(|| {
                next += 1;
                next - 1
            });
            tools.insert(id, facts);
            tool_names.push(n.clone());
            if *n == name {
                audited = Some((id, facts));
            }
        }
        let Some((tid, tool)) = audited else {
            return Ok(None);
        };
        let mut by_id = Vec::new();
        for (&id, t) in &tools {
            if by_id.len() <= id as usize {
                by_id.resize(id as usize + 1, None);
            }
            by_id[id as usize] = Some(*t);
        }
        let no_call = ids.get(NO_CALL).copied();
        Ok(Some(RuleScan {
            cat,
            name,
            info,
            at: 0,
            catalogue_id,
            needed: (0, 0),
            names,
            ids,
            tid,
            tool,
            no_call,
            tool_names,
            by_id,
            families,
            family_names,
            policy_ids: FxHashMap::default(),
            policies: Cache::default(),
            controls: Cache::default(),
            exposed: Cache::default(),
            none: Rc::from(Vec::new()),
            run_retrievals: Cache::default(),
            runs: HashMap::new(),
            held: [0; 3],
            visible: Vec::new(),
            candidates: Vec::new(),
            ranked: Vec::new(),
        }))
    }

    /// The id of a name (a fresh one for a name `tool_names` lacks).
    fn id_of(&mut self, name: &str) -> u64 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u64 + self.ids.len() as u64 + 1;
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The decision's stored menu, read the long way (`None`: no such
    /// decision).
    fn menu_of(&self, conn: &Connection, decision_id: i64) -> Result<Option<MenuRow>> {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {MENU_SELECT} FROM ladder l JOIN decision_rows d ON d.id = l.decision_id
             JOIN runs r ON r.run_id = l.run_id WHERE l.decision_id = ?"
        ))?;
        let mut rows = stmt.query([decision_id])?;
        match rows.next()? {
            Some(r) => Ok(Some(menu_row(conn, &self.names, r, 0)?)),
            None => Ok(None),
        }
    }

    /// The explanation the long way (`explain_one` over the decision's
    /// whole menu), for one decision.
    pub(super) fn explain(
        &self,
        conn: &Connection,
        decision_id: i64,
    ) -> Result<Option<ToolVisibility>> {
        let Some(m) = self.menu_of(conn, decision_id)? else {
            return Ok(None);
        };
        Ok(explain_one(&self.cat, &self.name, &self.info, &m))
    }

    /// Every catalogue tool's (visible, rule) the long way
    /// (`explain_tools` over the decision's whole menu), for one decision.
    pub(super) fn explain_all(
        &self,
        conn: &Connection,
        decision_id: i64,
    ) -> Result<Vec<(String, bool, Rule)>> {
        let Some(m) = self.menu_of(conn, decision_id)? else {
            return Ok(Vec::new());
        };
        let menu = Menu {
            catalogue: Some(&self.cat),
            policy: m.policy.as_ref(),
            controls: &m.controls,
            retrieval: m.retrieval.as_ref(),
            exposed: m.exposed.as_deref(),
            visible: m.visible.as_deref(),
        };
        Ok(
            ladder::explain_tools(menu, m.label.as_ref(), m.selected.as_deref())
                .into_iter()
                .map(|t| (t.name, t.visible, t.rule))
                .collect(),
        )
    }

    /// The rule on one row of [`scan_sql`], else the long way.
    pub(super) fn rule(&mut self, conn: &Connection, r: &Row<'_>) -> Result<Option<(bool, Rule)>> {
        self.needed.1 += 1;
        if let Some(fast) = self.fast(conn, r)? {
            return Ok(Some(fast));
        }
        let id: i64 = r.get(self.at)?;
        Ok(self.explain(conn, id)?.map(|t| (t.visible, t.rule)))
    }

    fn run(&mut self, conn: &Connection, run_id: &str) -> Result<Option<&RunMenu>> {
        if !self.runs.contains_key(run_id) {
            let text = |v: ValueRef<'_>| -> Option<Option<String>> {
                match v {
                    ValueRef::Null => Some(None),
                    ValueRef::Text(t) => std::str::from_utf8(t).ok().map(|s| Some(s.to_string())),
                    _ => None,
                }
            };
            let menu = conn
                .prepare_cached(
                    "SELECT policy, trusted_controls, retrieval, visible IS NOT NULL
                     FROM runs WHERE run_id = ?1",
                )?
                .query_row([run_id], |r| {
                    Ok((|| {
                        Some(RunMenu {
                            policy: text(r.get_ref(0).ok()?)?,
                            controls: text(r.get_ref(1).ok()?)?,
                            retrieval: text(r.get_ref(2).ok()?)?,
                            visible: r.get(3).ok()?,
                        })
                    })())
                })
                .optional()?
                .flatten();
            let text = |t: &Option<String>| t.as_ref().map_or(0, |t| t.len() / 8);
            let words = 8
                + run_id.len() / 8
                + menu.as_ref().map_or(0, |m| {
                    text(&m.policy) + text(&m.controls) + text(&m.retrieval)
                });
            if over(&mut self.held[RUNS], words) {
                self.runs.clear();
            }
            self.runs.insert(run_id.to_string(), menu);
        }
        Ok(self.runs[run_id].as_ref())
    }

    /// The text `COALESCE((SELECT body FROM menus WHERE id = v), v, run's)`
    /// gives, and the table it is blamed on; `None`: not text.
    fn text_of(conn: &Connection, src: &Source) -> Result<(Table, Option<String>)> {
        Ok(match src {
            Source::Own(ListKey::Id(id)) => (
                Table::Decisions,
                conn.prepare_cached("SELECT body FROM menus WHERE id = ?1")?
                    .query_row([id], |r| r.get::<_, String>(0))
                    .optional()?,
            ),
            // A number-like text could name a menus row: the long way.
            Source::Own(ListKey::Text(t)) if t.trim().parse::<f64>().is_ok() => {
                (Table::Decisions, None)
            }
            Source::Own(ListKey::Text(t)) => (Table::Decisions, Some(t.clone())),
            Source::Run(t) => (Table::Runs, Some(t.clone())),
        })
    }

    /// A policy's facts (`Some(None)`: no policy); `None`: not read here.
    fn read_policy(&self, conn: &Connection, src: &Source) -> Result<Option<Option<PolicyFacts>>> {
        let (table, Some(text)) = Self::text_of(conn, src)? else {
            return Ok(None);
        };
        Ok(self.policy_from(conn, table, text))
    }

    /// A policy's facts from its stored text.
    fn policy_from(
        &self,
        conn: &Connection,
        table: Table,
        text: String,
    ) -> Option<Option<PolicyFacts>> {
        let allowed = |fs: &mut dyn Iterator<Item = &str>| {
            let mut allowed = vec![false; self.families.len()];
            for f in fs {
                if let Some(&i) = self.families.get(f) {
                    allowed[i] = true;
                }
            }
            Rc::<[bool]>::from(allowed)
        };
        if let Some((open, effect, fs)) = menu_bytes::policy_fields(&text)
            && let Some(max) = Effect::parse(effect)
        {
            return Some(Some(PolicyFacts {
                families: Some(allowed(&mut fs.into_iter())),
                max_effect: Some(max),
                open_world: open,
            }));
        }
        let row = String::new;
        {
            match Stored::new(conn, table, &row).policy("policy", Some(text)) {
                Err(_) => None,
                Ok(None) => Some(None),
                Ok(Some(p)) => Some(Some(PolicyFacts {
                    families: p
                        .allowed_families
                        .map(|fs| allowed(&mut fs.iter().map(String::as_str))),
                    max_effect: p.max_effect,
                    open_world: p.allow_open_world,
                })),
            }
        }
    }

    fn policy(&mut self, conn: &Connection, src: Source) -> Result<Option<Option<PolicyFacts>>> {
        if let Source::Own(ListKey::Id(id)) = src {
            if let Some(p) = self.policy_ids.get(&id) {
                return Ok(p.clone());
            }
            let p = self.read_policy(conn, &src)?;
            // (Most decisions store a policy of their own: 263,628 of
            // 1,000,000 synthetic decisions are distinct, each about 100
            // bytes held, so the cache keeps the recent ones only.)
            if self.policy_ids.len() >= POLICIES_HELD {
                self.policy_ids.clear();
            }
            self.policy_ids.insert(id, p.clone());
            return Ok(p);
        }
        if let Some(p) = self.policies.get(&src) {
            return Ok(p.clone());
        }
        let p = self.read_policy(conn, &src)?;
        if self.policies.len() > 10_000 {
            self.policies.clear();
        }
        self.policies.insert(src, p.clone());
        Ok(p)
    }

    /// A stored name list (`column`) as ids, cached; `None`: not read.
    fn list(
        &mut self,
        conn: &Connection,
        which: fn(&mut Self) -> &mut Cache<Rc<[u64]>>,
        column: &'static str,
        src: Source,
    ) -> Result<Option<Rc<[u64]>>> {
        if let Some(c) = which(self).get(&src) {
            return Ok(c.clone());
        }
        let (table, text) = Self::text_of(conn, &src)?;
        let mut ids: Option<Rc<[u64]>> = None;
        if let Some(t) = text {
            let row = String::new;
            let names = Stored::new(conn, table, &row)
                .with_names(&self.names)
                .list(column, Some(t));
            if let Ok(names) = names {
                let names = names.unwrap_or_default();
                let v: Vec<u64> = names.iter().map(|n| self.id_of(n)).collect();
                ids = Some(Rc::from(v));
            }
        }
        let words = cost(&src, ids.as_ref().map_or(0, |v| v.len()));
        if over(&mut self.held[LISTS], words) {
            self.controls.clear();
            self.exposed.clear();
        }
        which(self).insert(src, ids.clone());
        Ok(ids)
    }

    /// A run's retrieval (inherited) as candidates into `self.candidates`
    /// (its k; `Some(None)`: none); `None`: not read here.
    fn run_retrieval(&mut self, conn: &Connection, text: String) -> Option<Option<u32>> {
        let src = Source::Run(text);
        if !self.run_retrievals.contains_key(&src) {
            let Source::Run(text) = &src else {
                return None;
            };
            let row = String::new;
            let decoded = Stored::new(conn, Table::Runs, &row)
                .with_names(&self.names)
                .retrieval("retrieval", Some(text.clone()))
                .ok();
            let got = decoded.map(|r| {
                r.map(|r| Candidates {
                    k: r.k,
                    ids: r.candidates.iter().map(|c| self.id_of(&c.name)).collect(),
                })
            });
            let ids = got
                .as_ref()
                .map_or(0, |r| r.as_ref().map_or(0, |c| c.ids.len()));
            let words = cost(&src, ids);
            if over(&mut self.held[RETRIEVALS], words) {
                self.run_retrievals.clear();
            }
            self.run_retrievals.insert(src.clone(), got);
        }
        let got = self.run_retrievals[&src].as_ref()?;
        Some(got.as_ref().map(|c| {
            self.candidates.clear();
            self.candidates.extend_from_slice(&c.ids);
            c.k
        }))
    }

    /// A dense retrieval's k, its candidates into `self.candidates` (all
    /// known names); `None`: not read here.
    fn own_retrieval(&mut self, conn: &Connection, r: &Row<'_>, id: i64) -> Result<Option<u32>> {
        self.needed.0 += 1;
        let k = match r.get_ref(self.at + 4)? {
            ValueRef::Text(b) => menu_bytes::retrieval_ids(b, &mut self.candidates),
            _ => {
                let body: Option<String> = conn
                    .prepare_cached("SELECT body FROM menus WHERE id = ?1")?
                    .query_row([id], |r| r.get(0))
                    .optional()?;
                body.and_then(|b| menu_bytes::retrieval_ids(b.as_bytes(), &mut self.candidates))
            }
        };
        let known = self
            .candidates
            .iter()
            .all(|&c| self.names.name(c).is_some());
        Ok(k.filter(|_| known))
    }

    /// The rule read from the stored ids; `None`: not this way.
    fn fast(&mut self, conn: &Connection, r: &Row<'_>) -> Result<Fast> {
        let Some(m) = self.menu(conn, r, None)? else {
            return Ok(None);
        };
        let (tid, tool) = (self.tid, self.tool);
        let by_rule = match decided(&m, tid, &tool) {
            Some(rule) => rule,
            None => {
                let Some(k) = self.k_of(conn, r, &m)? else {
                    return Ok(None);
                };
                let within = k.is_some_and(|k| self.within_k(k, tid, &m));
                by_retrieval(k.is_some(), within, &m)
            }
        };
        Ok(Some(self.recorded(by_rule, tid, m.visible)))
    }

    /// Rule 6: a recorded visible menu overrides the rule that disagrees
    /// with it (the menu read into `self.visible`).
    pub(super) fn recorded(&self, by_rule: (bool, Rule), tid: u64, visible: bool) -> (bool, Rule) {
        if !visible {
            return by_rule;
        }
        let actual = self.visible.contains(&tid);
        if actual == by_rule.0 {
            by_rule
        } else if actual {
            (true, Rule::Recorded)
        } else {
            (false, Rule::NotRecorded)
        }
    }

    /// A decision's menu as the rules read it (its recorded visible menu
    /// into `self.visible`: the verdict's `retrieved`, given as `read` when
    /// the caller read its ids, all in `tool_names`); `None`: not this way.
    pub(super) fn menu(
        &mut self,
        conn: &Connection,
        r: &Row<'_>,
        read: Option<&[u64]>,
    ) -> Result<Option<MenuFacts>> {
        let at = self.at;
        let (Some(policy), Some(controls), Some(retrieval), Some(exposed)) = (
            key(r, at + 1)?,
            key(r, at + 2)?,
            key(r, at + 3)?,
            key(r, at + 5)?,
        ) else {
            return Ok(None);
        };
        let own_visible: bool = r.get(at + 6)?;
        let (mut run_policy, mut run_controls, mut run_retrieval, mut run_visible) =
            (None, None, None, false);
        if let Some(id) = r.get::<_, Option<String>>(at + 8)? {
            match self.run(conn, &id)? {
                None => return Ok(None),
                Some(m) => {
                    run_policy = m.policy.clone();
                    run_controls = m.controls.clone();
                    run_retrieval = m.retrieval.clone();
                    run_visible = m.visible;
                }
            }
        }
        let pick = |own: Option<ListKey>, run: Option<String>| match own {
            Some(k) => Some(Source::Own(k)),
            None => run.map(Source::Run),
        };
        let controls = match pick(controls, run_controls) {
            None => self.none.clone(),
            Some(src) => match self.list(conn, |s| &mut s.controls, "trusted_controls", src)? {
                Some(c) => c,
                None => return Ok(None),
            },
        };
        let policy = match pick(policy, run_policy) {
            None => None,
            Some(src) => match self.policy(conn, src)? {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        let exposed = match exposed {
            None => None,
            Some(k) => match self.list(conn, |s| &mut s.exposed, "exposed", Source::Own(k))? {
                Some(e) => Some(e),
                None => return Ok(None),
            },
        };
        let visible = own_visible || run_visible;
        if let (true, Some(ids)) = (visible, read) {
            self.visible.clear();
            self.visible.extend_from_slice(ids);
        } else if visible {
            let b = match r.get_ref(at + 7)? {
                ValueRef::Text(b) => b,
                _ => return Ok(None),
            };
            if menu_bytes::list_ids(b, &mut self.visible).is_none()
                || !self.visible.iter().all(|&id| self.names.name(id).is_some())
            {
                return Ok(None);
            }
        }
        Ok(Some(MenuFacts {
            controls,
            policy,
            exposed,
            visible,
            retrieval,
            run_retrieval,
        }))
    }

    /// The decision's retrieval: its k (`Some(None)`: none recorded) with
    /// its candidates in `self.candidates`; `None`: not read here.
    pub(super) fn k_of(
        &mut self,
        conn: &Connection,
        r: &Row<'_>,
        m: &MenuFacts,
    ) -> Result<Option<Option<u32>>> {
        Ok(match (&m.retrieval, &m.run_retrieval) {
            (Some(ListKey::Id(id)), _) => self.own_retrieval(conn, r, *id)?.map(Some),
            (Some(ListKey::Text(_)), _) => None,
            (None, None) => Some(None),
            (None, Some(t)) => self.run_retrieval(conn, t.clone()),
        })
    }

    /// Whether a name id is exposed at a decision (as `Sets` ranks).
    fn is_exposed(&self, id: u64, m: &MenuFacts) -> bool {
        Some(id) == self.no_call
            || (m.visible && self.visible.contains(&id))
            || self.listed_or_allowed(id, m)
    }

    /// Whether a name id is exposed by the recorded exposed set, else by
    /// the policy (any catalogue tool without one).
    pub(super) fn listed_or_allowed(&self, id: u64, m: &MenuFacts) -> bool {
        match (&m.exposed, &m.policy) {
            (Some(e), _) => e.contains(&id),
            (None, Some(p)) => self.tool(id).is_some_and(|t| hides(p, t).is_none()),
            (None, None) => self.tool(id).is_some(),
        }
    }

    /// A catalogue tool's facts by name id.
    pub(super) fn tool(&self, id: u64) -> Option<&ToolFacts> {
        self.by_id.get(id as usize).and_then(Option::as_ref)
    }

    /// Whether the tool ranks within `k` among the exposed, non-control
    /// candidates (first occurrences, in recorded order), as `Sets` ranks.
    fn within_k(&mut self, k: u32, tid: u64, m: &MenuFacts) -> bool {
        if !self.candidates.contains(&tid) {
            return false;
        }
        self.ranked.clear();
        for &id in &self.candidates {
            if self.ranked.len() >= k as usize {
                return false;
            }
            if self.ranked.contains(&id) || m.controls.contains(&id) || !self.is_exposed(id, m) {
                continue;
            }
            if id == tid {
                return true;
            }
            self.ranked.push(id);
        }
        false
    }
}

/// A decision's menu as the rules read it (inherited fields applied; the
/// retrieval still to be read).
pub(super) struct MenuFacts {
    pub(super) controls: Rc<[u64]>,
    pub(super) policy: Option<PolicyFacts>,
    exposed: Option<Rc<[u64]>>,
    /// A visible menu is recorded (read into `RuleScan::visible`).
    pub(super) visible: bool,
    retrieval: Option<ListKey>,
    run_retrieval: Option<String>,
}

/// Rules 1–4: a trusted control is visible, a tool the policy hides is
/// hidden; `None`: the retrieval decides.
pub(super) fn decided(m: &MenuFacts, tid: u64, tool: &ToolFacts) -> Option<(bool, Rule)> {
    if m.controls.contains(&tid) {
        return Some((true, Rule::TrustedControl));
    }
    m.policy
        .as_ref()
        .and_then(|p| hides(p, tool))
        .map(|rule| (false, rule))
}

/// Rule 5 (or eligible/flat without a retrieval) for a tool neither a
/// control nor hidden by the policy.
pub(super) fn by_retrieval(retrieval: bool, within: bool, m: &MenuFacts) -> (bool, Rule) {
    match (retrieval, within) {
        (true, true) => (true, Rule::Retrieved),
        (true, false) => (false, Rule::NotRetrieved),
        (false, _) if m.policy.is_some() => (true, Rule::Eligible),
        (false, _) => (true, Rule::Flat),
    }
}
