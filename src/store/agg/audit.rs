//! The tool audit's counts kept (schema 10, `agg_audit`): for every
//! decision on a catalogue, which rule made each of its tools visible or
//! hid it, without a row per tool and decision. A tool no list of the
//! decision names (not a trusted control, not among the first k ranked
//! candidates, not in the recorded visible menu) gets its rule from the
//! policy's facts alone, so each decision is counted once by its policy's
//! class (ceiling, open world, retrieval, recorded menu) and once per
//! family the policy allows; the tools its lists name and whose rule
//! differs from that are counted as corrections by tool and rule. A
//! decision whose stored menu does not read so is explained the long way
//! and counted by tool and rule. [`tool_counts`] sums a key's rows back
//! into one tool's rules. Rows go into one blob per key, as
//! [`super::tokens`] does.

use std::collections::BTreeMap;
use std::rc::Rc;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Row, params_from_iter};
use rustc_hash::FxHashMap as HashMap;

use super::read::Scope;
use super::tokens::{put, take, unzigzag, zigzag};
use super::{AggNames, Dim, Rows};
use crate::error::Result;
use crate::model::{Effect, Rule};
use crate::store::rule_scan::{MenuFacts, RuleScan, by_retrieval, hides};

/// What a row counts (its first dim).
const CLASS: i64 = 0;
const ALLOWS: i64 = 1;
const TOOL: i64 = 2;
const LONG: i64 = 3;
/// A class row's second dim: how its decisions' policy reads families.
const NO_POLICY: i64 = -3;
const ANY_FAMILY: i64 = -1;
const SOME_FAMILIES: i64 = -2;
/// The second dim of a row that names nothing.
const NO_NAME: i64 = -4;
/// A ceiling as stored: its place in `Effect::ALL`, or this for none.
const NO_CEILING: i64 = -1;

/// (ceiling, open world allowed, retrieval recorded, visible menu recorded).
type Class = (i64, bool, bool, bool);

/// A policy's allowed families, by their index in the catalogue's.
type Families = Rc<[bool]>;

/// Decisions by (visible, rule), and the decisions counted.
pub(crate) type ByRule = (BTreeMap<(bool, Rule), u64>, u64);

/// (visible, rule, decisions) by rule, and the decisions counted.
pub type Kept = (Vec<(bool, String, u64)>, u64);

/// One group's audit counts while a day is read.
#[derive(Default)]
pub(super) struct Acc {
    /// Decisions by how the policy reads families, and class.
    classes: HashMap<(i64, Class), i64>,
    /// Decisions by their policy's allowed families (as cached: the same
    /// list for every decision of a policy), and class; each family is
    /// counted at the end.
    allows: HashMap<(usize, Class), (Families, i64)>,
    /// Corrections by tool (its place in the catalogue) and rule.
    tools: Vec<[i64; RULES]>,
    /// Decisions explained the long way: their tools' rules, and how many.
    named: HashMap<(String, Rule), i64>,
    long: i64,
    /// The lists naming each name id at the decision counted
    /// ([`CONTROL`], [`VISIBLE`], [`RANKED`]), and the ids flagged.
    flags: Vec<u8>,
    flagged: Vec<u64>,
}

/// A trusted control, in the recorded visible menu, among rule 5's first
/// k candidates.
const CONTROL: u8 = 1;
const VISIBLE: u8 = 2;
const RANKED: u8 = 4;

const RULES: usize = Rule::ALL.len();

fn ceiling(e: Option<Effect>) -> i64 {
    e.and_then(|e| Effect::ALL.iter().position(|x| *x == e))
        .map_or(NO_CEILING, |i| i as i64)
}

fn rule_code(r: Rule) -> i64 {
    Rule::ALL.iter().position(|x| *x == r).unwrap_or(0) as i64
}

/// Whether a rule shows the tool.
pub fn rule_visible(r: Rule) -> bool {
    matches!(
        r,
        Rule::TrustedControl | Rule::Retrieved | Rule::Eligible | Rule::Flat | Rule::Recorded
    )
}

/// The rule of a tool none of a decision's lists names: `policy` is
/// (its family allowed, ceiling, open world allowed), or `None`.
fn base_rule(
    policy: Option<(bool, i64, bool)>,
    retrieval: bool,
    recorded: bool,
    effect: i64,
    open_world: bool,
) -> Rule {
    if let Some((family_ok, ceiling, world)) = policy {
        if !family_ok {
            return Rule::Family;
        }
        if ceiling != NO_CEILING && effect > ceiling {
            return Rule::Effect;
        }
        if open_world && !world {
            return Rule::OpenWorld;
        }
    }
    let by = if retrieval {
        Rule::NotRetrieved
    } else if policy.is_some() {
        Rule::Eligible
    } else {
        Rule::Flat
    };
    if recorded && rule_visible(by) {
        Rule::NotRecorded
    } else {
        by
    }
}

impl Acc {
    /// Counts one decision of `scan`'s catalogue (its row read by the
    /// scanner, [`RuleScan`]'s columns from `scan.at`).
    /// `retrieved`: the verdict's `retrieved` ids when already read.
    pub(super) fn decision(
        &mut self,
        conn: &Connection,
        scan: &mut RuleScan,
        r: &Row<'_>,
        retrieved: Option<&[u64]>,
    ) -> Result<()> {
        let read = match scan.menu(conn, r, retrieved)? {
            Some(m) => scan.k_of(conn, r, &m)?.map(|k| (m, k)),
            None => None,
        };
        let Some((m, k)) = read else {
            let id: i64 = r.get(scan.at)?;
            for (name, _, rule) in scan.explain_all(conn, id)? {
                *self.named.entry((name, rule)).or_default() += 1;
            }
            self.long += 1;
            return Ok(());
        };
        self.fast(scan, &m, k);
        Ok(())
    }

    fn fast(&mut self, scan: &RuleScan, m: &MenuFacts, k: Option<u32>) {
        let (retrieval, recorded) = (k.is_some(), m.visible);
        let policy = m.policy.as_ref();
        let (how, ceil, world) = match policy {
            None => (NO_POLICY, NO_CEILING, false),
            Some(p) if p.families.is_some() => (SOME_FAMILIES, ceiling(p.max_effect), p.open_world),
            Some(p) => (ANY_FAMILY, ceiling(p.max_effect), p.open_world),
        };
        let class = (ceil, world, retrieval, recorded);
        *self.classes.entry((how, class)).or_default() += 1;
        if let Some(fs) = policy.and_then(|p| p.families.as_ref()) {
            let at = fs.as_ptr() as usize;
            self.allows
                .entry((at, class))
                .or_insert_with(|| (fs.clone(), 0))
                .1 += 1;
        }
        let n = scan.tool_names.len();
        if self.tools.len() < n {
            self.tools.resize(n, [0; RULES]);
        }
        // Each listed name's lists, as flags by name id.
        let mut flags = std::mem::take(&mut self.flags);
        for &id in &self.flagged {
            flags[id as usize] = 0;
        }
        self.flagged.clear();
        let mut flag = |flags: &mut Vec<u8>, id: u64, f: u8| {
            let i = id as usize;
            if flags.len() <= i {
                flags.resize(i + 1, 0);
            }
            if flags[i] == 0 {
                self.flagged.push(id);
            }
            flags[i] |= f;
        };
        for &id in m.controls.iter() {
            flag(&mut flags, id, CONTROL);
        }
        if recorded {
            for &id in &scan.visible {
                flag(&mut flags, id, VISIBLE);
            }
        }
        let has =
            |flags: &Vec<u8>, id: u64, f: u8| flags.get(id as usize).is_some_and(|x| x & f != 0);
        // Rule 5's first k exposed, non-control candidates (first
        // occurrences, in recorded order), as `Sets` ranks.
        if let Some(k) = k {
            let mut ranked = 0;
            for &id in &scan.candidates {
                if ranked >= k {
                    break;
                }
                if has(&flags, id, RANKED | CONTROL) {
                    continue;
                }
                let exposed = Some(id) == scan.no_call
                    || has(&flags, id, VISIBLE)
                    || scan.listed_or_allowed(id, m);
                if exposed {
                    flag(&mut flags, id, RANKED);
                    ranked += 1;
                }
            }
        }
        // Only the listed tools' rule can differ from their class's.
        for i in 0..self.flagged.len() {
            let u = self.flagged[i];
            let f = flags[u as usize];
            let Some(t) = scan.tool(u) else {
                continue;
            };
            let by_rule = if f & CONTROL != 0 {
                (true, Rule::TrustedControl)
            } else if let Some(rule) = policy.and_then(|p| hides(p, t)) {
                (false, rule)
            } else {
                by_retrieval(retrieval, f & RANKED != 0, m)
            };
            let shown = f & VISIBLE != 0;
            let truth = match (recorded, shown == by_rule.0, shown) {
                (false, ..) | (true, true, _) => by_rule.1,
                (true, false, true) => Rule::Recorded,
                (true, false, false) => Rule::NotRecorded,
            };
            let base = base_rule(
                policy.map(|p| {
                    let ok = p.families.as_ref().is_none_or(|f| f[t.family]);
                    (ok, ceil, world)
                }),
                retrieval,
                recorded,
                ceiling(Some(t.effect)),
                t.open_world,
            );
            if truth != base {
                let row = &mut self.tools[t.place];
                row[truth as usize] += 1;
                row[base as usize] -= 1;
            }
        }
        self.flags = flags;
    }

    /// The counts as rows of `agg_audit` (names spelled out).
    pub(super) fn rows(self, scan: &RuleScan) -> Rows {
        let mut out = Rows::default();
        let b = |v: bool| Dim::Int(v as i64);
        let class_dims = |c: Class| [Dim::Int(c.0), b(c.1), b(c.2), b(c.3)];
        for ((how, c), n) in self.classes {
            let mut dims = vec![Dim::Int(CLASS), Dim::Int(how)];
            dims.extend(class_dims(c));
            super::add(&mut out, dims, &[n]);
        }
        let mut allows: HashMap<(usize, Class), i64> = HashMap::default();
        for ((_, c), (fs, n)) in self.allows {
            for (family, _) in fs.iter().enumerate().filter(|(_, on)| **on) {
                *allows.entry((family, c)).or_default() += n;
            }
        }
        for ((family, c), n) in allows {
            let mut dims = vec![
                Dim::Int(ALLOWS),
                Dim::Text(scan.family_names[family].clone()),
            ];
            dims.extend(class_dims(c));
            super::add(&mut out, dims, &[n]);
        }
        let tool_dims = |name: String, rule: Rule| {
            vec![
                Dim::Int(TOOL),
                Dim::Text(name),
                Dim::Int(rule_code(rule)),
                Dim::Int(0),
                Dim::Int(0),
                Dim::Int(0),
            ]
        };
        for (place, row) in self.tools.iter().enumerate() {
            for (&rule, &n) in Rule::ALL.iter().zip(row) {
                if n != 0 {
                    super::add(
                        &mut out,
                        tool_dims(scan.tool_names[place].clone(), rule),
                        &[n],
                    );
                }
            }
        }
        for ((name, rule), n) in self.named {
            super::add(&mut out, tool_dims(name, rule), &[n]);
        }
        if self.long > 0 {
            let mut dims = vec![Dim::Int(LONG), Dim::Int(NO_NAME)];
            dims.extend([0, 0, 0, 0].map(Dim::Int));
            super::add(&mut out, dims, &[self.long]);
        }
        out
    }
}

/// Rows packed: each as its six dims (the name as an `agg_names` id) and
/// its count, zigzag LEB128 varints, in order; zero counts left out.
pub(super) fn pack(conn: &Connection, names: &mut AggNames, rows: &Rows) -> Result<Vec<u8>> {
    let mut flat: Vec<[i64; 7]> = Vec::with_capacity(rows.len());
    for (dims, c) in rows {
        if c[0] == 0 || dims.len() != 6 {
            continue;
        }
        let mut row = [0i64; 7];
        for (i, d) in dims.iter().enumerate() {
            row[i] = match d {
                Dim::Int(v) => *v,
                Dim::Text(t) => names.id(conn, t)?,
            };
        }
        row[6] = c[0];
        flat.push(row);
    }
    flat.sort_unstable();
    let mut out = Vec::with_capacity(flat.len() * 8);
    for row in flat {
        for v in row {
            put(&mut out, zigzag(v));
        }
    }
    Ok(out)
}

/// A blob's rows as stored (name ids), or `None` when it is not one.
fn unpack(bytes: &[u8]) -> Option<Vec<[i64; 7]>> {
    let mut out = Vec::with_capacity(bytes.len() / 8);
    let mut at = 0;
    while at < bytes.len() {
        let mut row = [0i64; 7];
        for v in &mut row {
            *v = unzigzag(take(bytes, &mut at)?);
        }
        out.push(row);
    }
    Some(out)
}

/// A blob's rows, names spelled out (a negative second dim stands for
/// itself).
pub(super) fn rows(bytes: &[u8], names: &AggNames) -> Option<Rows> {
    let mut out = Rows::default();
    for row in unpack(bytes)? {
        let mut dims: Vec<Dim> = row[..6].iter().map(|&v| Dim::Int(v)).collect();
        if row[1] >= 0 {
            dims[1] = names.dim(row[1]).ok()?;
        }
        super::add(&mut out, dims, &[row[6]]);
    }
    Some(out)
}

/// One catalogue tool as the kept counts are read for it.
pub(crate) struct Audited<'a> {
    pub name: &'a str,
    pub family: &'a str,
    pub effect: Effect,
    pub open_world: bool,
}

/// One tool's decisions by (visible, rule) and the decisions on its
/// catalogue (`catalogue` a `catalogue_ids` id) in the scope, from the
/// kept counts; `None` when they do not add up (read the long way).
pub(crate) fn tool_counts(
    conn: &Connection,
    s: &Scope,
    catalogue: i64,
    tool: &Audited<'_>,
) -> Result<Option<ByRule>> {
    let id_of = |name: &str| -> Result<Option<i64>> {
        Ok(conn
            .prepare_cached("SELECT id FROM agg_names WHERE name = ?1")?
            .query_row([name], |r| r.get(0))
            .optional()?)
    };
    let (tool_id, family_id) = (id_of(tool.name)?, id_of(tool.family)?);
    let mut args = s.args.clone();
    args.push(Sql::Integer(catalogue));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT a.counts FROM agg_audit a JOIN agg_keys k ON k.id = a.key
         WHERE {} AND k.catalogue = ?",
        s.clause
    ))?;
    let mut blobs = stmt.query(params_from_iter(args))?;
    let effect = ceiling(Some(tool.effect));
    let mut counts: BTreeMap<Rule, i64> = BTreeMap::new();
    let mut restricted: HashMap<Class, i64> = HashMap::default();
    let mut allowed: HashMap<Class, i64> = HashMap::default();
    let mut total = 0i64;
    while let Some(b) = blobs.next()? {
        let Some(rows) = unpack(b.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?) else {
            return Ok(None);
        };
        for [what, name, d2, d3, d4, d5, n] in rows {
            let class = (d2, d3 != 0, d4 != 0, d5 != 0);
            let base = |p| base_rule(p, class.2, class.3, effect, tool.open_world);
            match (what, name) {
                (CLASS, NO_POLICY) => *counts.entry(base(None)).or_default() += n,
                (CLASS, ANY_FAMILY) => {
                    *counts.entry(base(Some((true, d2, class.1)))).or_default() += n
                }
                (CLASS, SOME_FAMILIES) => *restricted.entry(class).or_default() += n,
                (ALLOWS, f) if Some(f) == family_id => *allowed.entry(class).or_default() += n,
                (TOOL, t) if Some(t) == tool_id => {
                    let Some(&rule) = Rule::ALL.get(d2 as usize) else {
                        return Ok(None);
                    };
                    *counts.entry(rule).or_default() += n;
                }
                _ => {}
            }
            if what == CLASS || what == LONG {
                total += n;
            }
        }
    }
    for (class, n) in restricted {
        let a = allowed.get(&class).copied().unwrap_or(0);
        *counts.entry(Rule::Family).or_default() += n - a;
        let rule = base_rule(
            Some((true, class.0, class.1)),
            class.2,
            class.3,
            effect,
            tool.open_world,
        );
        *counts.entry(rule).or_default() += a;
    }
    if total < 0 || counts.values().any(|&n| n < 0) {
        return Ok(None);
    }
    let out = counts
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| ((rule_visible(r), r), n as u64))
        .collect();
    Ok(Some((out, total as u64)))
}

/// One tool's audit from the kept counts alone: (visible, rule,
/// decisions) by rule, and the decisions on its catalogue; `None` when
/// they do not answer the filter (or the tool is not in the catalogue).
pub fn kept(
    conn: &Connection,
    f: &crate::filter::Filter,
    catalogue: &str,
    name: &str,
) -> Result<Option<Kept>> {
    let Some(s) = super::read::scope(conn, f)? else {
        return Ok(None);
    };
    let Some(cat) = crate::store::classify::load_catalogue(conn, catalogue)? else {
        return Ok(None);
    };
    let Some(t) = cat.tools.get(name) else {
        return Ok(None);
    };
    let id: Option<i64> = conn
        .prepare_cached("SELECT id FROM catalogue_ids WHERE version = ?1")?
        .query_row([catalogue], |r| r.get(0))
        .optional()?;
    let Some(id) = id else {
        return Ok(None);
    };
    let tool = Audited {
        name,
        family: &t.family,
        effect: t.effect,
        open_world: t.open_world,
    };
    Ok(tool_counts(conn, &s, id, &tool)?.map(|(by, total)| {
        let rules = by
            .into_iter()
            .map(|((v, r), n)| (v, r.as_str().to_string(), n))
            .collect();
        (rules, total)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_no_list_names_takes_its_rule_from_the_policy() {
        let read_only = ceiling(Some(Effect::ReadOnly));
        let mutating = ceiling(Some(Effect::Mutating));
        let p = |ok, world| Some((ok, read_only, world));
        assert_eq!(
            base_rule(p(false, true), true, true, 0, false),
            Rule::Family
        );
        assert_eq!(
            base_rule(p(true, true), true, false, mutating, false),
            Rule::Effect
        );
        assert_eq!(
            base_rule(p(true, false), false, false, 0, true),
            Rule::OpenWorld
        );
        assert_eq!(
            base_rule(p(true, false), true, true, 0, false),
            Rule::NotRetrieved
        );
        assert_eq!(
            base_rule(p(true, false), false, false, 0, false),
            Rule::Eligible
        );
        assert_eq!(
            base_rule(p(true, false), false, true, 0, false),
            Rule::NotRecorded
        );
        assert_eq!(base_rule(None, false, false, mutating, true), Rule::Flat);
        assert_eq!(base_rule(None, false, true, 0, false), Rule::NotRecorded);
        assert_eq!(
            base_rule(Some((true, NO_CEILING, true)), false, false, 3, true),
            Rule::Eligible
        );
    }
}
