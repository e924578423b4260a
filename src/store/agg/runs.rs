//! Each run's menu budget and findings kept (schema 11, `agg_runs`), for
//! `rung report budget` and the findings summary: written for every run the
//! findings' recount reads ([`super::findings`]), from the same read of its
//! verdicts and findings ([`RunRead`]).
//!
//! A run whose verdicts all fall on one day (or all have no time) enters a
//! report under a model and a whole-day window whole or not at all, so its
//! counts add up: such a run has its day, model and counts here. Any other
//! run (its verdicts on several days, none, or a finding about a step it
//! has no verdict for) has a row with no day, and the reports read it the
//! long way ([`super::run_read`]).
//!
//! `counts` is LEB128 varints: the budget, then the findings. The budget:
//! the number of catalogues, then per catalogue (by id) its id (zigzag),
//! `turns * 2 + changed` (its menu changed), its `menu_changed` findings,
//! the tools visible on each turn and then the number of turns with
//! tokens and their tokens, each list ascending as its first value and
//! each next one's difference from the one before (the percentiles need
//! no turn's order). The findings: the number of kinds, then per kind (by
//! id, zigzag) `tools * 2 + has_none`, the findings of no tool when it
//! has them, and per tool (by `agg_names` id) the id's difference from the
//! kind's tool before (from 0, zigzag) times 4 plus its findings when 1 to
//! 3 (else plus 0, the findings following).

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::DAY;
use super::tokens::{put, take, unzigzag, zigzag};
use crate::error::Result;
use crate::metrics::budget::BudgetAcc;
use crate::store::names::Names;

/// `agg_runs.day` of a run none of whose verdicts has a time.
pub(crate) const NO_DAY: i64 = -2_147_483_648;

/// One verdict of a run, with its decision's step and turn.
pub(super) struct RunDecision {
    pub step: i64,
    /// `turn`, else `step`.
    pub turn: i64,
    pub time: Option<i64>,
    pub catalogue: Option<i64>,
    /// The stored menu (`retrieved`) when it is text.
    pub retrieved: Option<String>,
    pub tokens: Option<i64>,
    pub id: i64,
}

/// One finding of a run, as stored (ids).
pub(super) struct RunFinding {
    pub kind: i64,
    pub step: Option<i64>,
    pub tool: Option<i64>,
    pub catalogue: Option<i64>,
}

/// A run's verdicts (in step order) and findings.
pub(super) struct RunRead {
    pub decisions: Vec<RunDecision>,
    pub findings: Vec<RunFinding>,
}

impl RunRead {
    /// Reads the run `name` (its findings by `finding_names` id `fid`).
    pub fn read(conn: &Connection, name: &str, fid: Option<i64>) -> Result<RunRead> {
        let mut decisions = Vec::new();
        {
            let mut s = conn.prepare_cached(
                "SELECT d.step, COALESCE(d.turn, d.step), l.time_us, l.catalogue, l.retrieved,
                        l.definition_tokens, l.decision_id
                 FROM decision_rows d JOIN ladder_rows l ON l.decision_id = d.id
                 WHERE d.run_id = ?1 ORDER BY d.step",
            )?;
            let mut rows = s.query([name])?;
            while let Some(r) = rows.next()? {
                let retrieved = match r.get_ref(4)? {
                    ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
                    _ => None,
                };
                decisions.push(RunDecision {
                    step: r.get(0)?,
                    turn: r.get(1)?,
                    time: r.get(2)?,
                    catalogue: r.get(3)?,
                    retrieved,
                    tokens: r.get(5)?,
                    id: r.get(6)?,
                });
            }
        }
        let mut findings = Vec::new();
        if let Some(fid) = fid {
            let mut s = conn.prepare_cached(
                "SELECT kind, step, tool, catalogue FROM finding_rows WHERE run_id = ?1",
            )?;
            let mut rows = s.query([fid])?;
            while let Some(r) = rows.next()? {
                findings.push(RunFinding {
                    kind: r.get(0)?,
                    step: r.get(1)?,
                    tool: r.get(2)?,
                    catalogue: r.get(3)?,
                });
            }
        }
        Ok(RunRead {
            decisions,
            findings,
        })
    }
}

/// Writes runs' rows of `agg_runs` (inside the recount's savepoint).
pub(super) struct Writer {
    /// Whether `agg_runs` is there (not while a database is upgraded to
    /// schema 10: schema 11 fills it whole).
    on: bool,
    names: Names,
    /// `catalogue_ids`' ids: a verdict on another enters no budget.
    catalogues: HashSet<i64>,
    /// The `menu_changed` kind's id, when stored.
    menu_changed: Option<i64>,
    /// `agg_names` ids of models and of tools by `finding_names` id (none:
    /// an id that names nothing, as the `findings` view shows it).
    models: HashMap<String, i64>,
    tools: HashMap<i64, Option<i64>>,
    /// Menus decoded the long way, by their text.
    sizes: HashMap<String, u64>,
}

impl Writer {
    /// Whether `agg_runs` is there.
    pub fn on(&self) -> bool {
        self.on
    }

    pub fn new(conn: &Connection) -> Result<Writer> {
        let catalogues = conn
            .prepare_cached("SELECT id FROM catalogue_ids")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let menu_changed = conn
            .prepare_cached("SELECT id FROM finding_kinds WHERE name = 'menu_changed'")?
            .query_map([], |r| r.get(0))?
            .next()
            .transpose()?;
        let on = conn
            .prepare_cached(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agg_runs'",
            )?
            .exists([])?;
        Ok(Writer {
            on,
            names: Names::load(conn)?,
            catalogues,
            menu_changed,
            models: HashMap::new(),
            tools: HashMap::new(),
            sizes: HashMap::new(),
        })
    }

    /// Counts the run `name` again from `run` (no row when it has neither
    /// a verdict nor a finding). A run whose stored rows cannot be counted
    /// (a damaged menu) is left to be read the long way, where the report
    /// names the damaged row; the other runs keep their counts.
    pub fn write(&mut self, conn: &Connection, name: &str, run: &RunRead) -> Result<()> {
        if !self.on {
            return Ok(());
        }
        match self.count(conn, name, run) {
            Ok(()) => Ok(()),
            Err(_) => self.write_long(conn, name),
        }
    }

    /// Leaves the run `name` to be read the long way (a row with no day).
    pub fn write_long(&self, conn: &Connection, name: &str) -> Result<()> {
        if self.on {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO agg_runs (run_id, day, model, counts) VALUES (?1, NULL, NULL, X'')",
            )?
            .execute([name])?;
        }
        Ok(())
    }

    fn count(&mut self, conn: &Connection, name: &str, run: &RunRead) -> Result<()> {
        if run.decisions.is_empty() && run.findings.is_empty() {
            conn.prepare_cached("DELETE FROM agg_runs WHERE run_id = ?1")?
                .execute([name])?;
            return Ok(());
        }
        let model: Option<String> = conn
            .prepare_cached("SELECT model FROM runs WHERE run_id = ?1")?
            .query_map([name], |r| r.get(0))?
            .next()
            .transpose()?
            .flatten();
        let model = match model {
            Some(m) => Some(self.model_id(conn, &m)?),
            None => None,
        };
        let mut counts = self.budget(conn, run)?;
        let mut findings = Vec::with_capacity(run.findings.len());
        for f in &run.findings {
            let tool = match f.tool {
                Some(t) => self.tool_id(conn, t)?,
                None => None,
            };
            findings.push((f.kind, tool));
        }
        pack_findings(&findings, &mut counts);
        conn.prepare_cached(
            "INSERT OR REPLACE INTO agg_runs (run_id, day, model, counts) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(rusqlite::params![name, day_of(run), model, counts])?;
        Ok(())
    }

    fn model_id(&mut self, conn: &Connection, model: &str) -> Result<i64> {
        if let Some(&id) = self.models.get(model) {
            return Ok(id);
        }
        let id = name_id(conn, model)?;
        self.models.insert(model.to_string(), id);
        Ok(id)
    }

    /// A finding's tool (a `finding_names` id) as an `agg_names` id.
    fn tool_id(&mut self, conn: &Connection, tool: i64) -> Result<Option<i64>> {
        if let Some(&id) = self.tools.get(&tool) {
            return Ok(id);
        }
        let name: Option<String> = conn
            .prepare_cached("SELECT name FROM finding_names WHERE id = ?1")?
            .query_map([tool], |r| r.get(0))?
            .next()
            .transpose()?;
        let id = match name {
            Some(n) => Some(name_id(conn, &n)?),
            None => None,
        };
        self.tools.insert(tool, id);
        Ok(id)
    }

    /// The run's budget blob (empty when no turn is on a catalogue).
    fn budget(&mut self, conn: &Connection, run: &RunRead) -> Result<Vec<u8>> {
        // Per catalogue, its decisions' (turn, visible, tokens, menu).
        type Decision<'a> = (i64, u64, Option<u64>, &'a str);
        let mut by_cat: BTreeMap<i64, Vec<Decision>> = BTreeMap::new();
        for d in &run.decisions {
            let Some(cat) = d.catalogue.filter(|c| self.catalogues.contains(c)) else {
                continue;
            };
            let Some(menu) = &d.retrieved else {
                return Err(crate::error::Error::usage(format!(
                    "ladder_rows row decision_id {}: retrieved is not text",
                    d.id
                )));
            };
            if self.sizes.len() > 10_000 {
                self.sizes.clear();
            }
            let visible =
                crate::store::budget::visible(conn, &self.names, &mut self.sizes, menu, d.id)?;
            by_cat.entry(cat).or_default().push((
                d.turn,
                visible,
                d.tokens.map(|t| t as u64),
                menu,
            ));
        }
        let mut out = Vec::new();
        put(&mut out, by_cat.len() as u64);
        for (cat, turns) in by_cat {
            let (turns, changed) = BudgetAcc::turns_of(turns);
            let menu_changed = run
                .findings
                .iter()
                .filter(|f| Some(f.kind) == self.menu_changed && f.catalogue == Some(cat))
                .count();
            put(&mut out, zigzag(cat));
            put(&mut out, (turns.len() as u64) << 1 | u64::from(changed));
            put(&mut out, menu_changed as u64);
            let mut visible: Vec<u64> = turns.iter().map(|t| t.0).collect();
            let mut tokens: Vec<u64> = turns.iter().filter_map(|t| t.1).collect();
            put_ascending(&mut out, &mut visible);
            put(&mut out, tokens.len() as u64);
            put_ascending(&mut out, &mut tokens);
        }
        Ok(out)
    }
}

/// The run's `agg_runs.day`: its verdicts' one day, [`NO_DAY`], or `None`
/// (read the long way).
fn day_of(run: &RunRead) -> Option<i64> {
    let mut days = run
        .decisions
        .iter()
        .map(|d| d.time.map_or(NO_DAY, |t| t.div_euclid(DAY)));
    let day = days.next()?;
    if days.any(|d| d != day) {
        return None;
    }
    let steps: HashSet<i64> = run.decisions.iter().map(|d| d.step).collect();
    let unmatched = run
        .findings
        .iter()
        .any(|f| f.step.is_some_and(|s| !steps.contains(&s)));
    (!unmatched).then_some(day)
}

/// Appends the findings part of `counts` to `out`: (kind, tool as an
/// `agg_names` id) each.
fn pack_findings(findings: &[(i64, Option<i64>)], out: &mut Vec<u8>) {
    let mut groups: BTreeMap<i64, (u64, BTreeMap<i64, u64>)> = BTreeMap::new();
    for &(kind, tool) in findings {
        let (none, tools) = groups.entry(kind).or_default();
        match tool {
            None => *none += 1,
            Some(t) => *tools.entry(t).or_default() += 1,
        }
    }
    put(out, groups.len() as u64);
    for (kind, (none, tools)) in groups {
        put(out, zigzag(kind));
        put(out, (tools.len() as u64) << 1 | u64::from(none > 0));
        if none > 0 {
            put(out, none);
        }
        let mut last = 0i64;
        for (t, n) in tools {
            let small = if n <= 3 { n } else { 0 };
            put_wide(
                out,
                u128::from(zigzag(t.wrapping_sub(last))) << 2 | u128::from(small),
            );
            if small == 0 {
                put(out, n);
            }
            last = t;
        }
    }
}

/// `values` sorted, as the first and each next one's difference.
fn put_ascending(out: &mut Vec<u8>, values: &mut [u64]) {
    values.sort_unstable();
    let mut last = 0u64;
    for &v in values.iter() {
        put(out, v - last);
        last = v;
    }
}

/// `n` values written by [`put_ascending`].
fn take_ascending(bytes: &[u8], at: &mut usize, n: u64) -> Option<Vec<u64>> {
    let mut out = Vec::with_capacity(n.min(1 << 16) as usize);
    let mut last = 0u64;
    for _ in 0..n {
        last = last.checked_add(take(bytes, at)?)?;
        out.push(last);
    }
    Some(out)
}

/// An `agg_names` id for `name` (added when missing).
fn name_id(conn: &Connection, name: &str) -> Result<i64> {
    conn.prepare_cached("INSERT OR IGNORE INTO agg_names (name) VALUES (?1)")?
        .execute([name])?;
    Ok(conn
        .prepare_cached("SELECT id FROM agg_names WHERE name = ?1")?
        .query_row([name], |r| r.get(0))?)
}

/// One catalogue's part of a run's budget.
pub(crate) struct CatalogueTurns {
    pub catalogue: i64,
    pub changed: bool,
    pub menu_changed: u64,
    /// Each turn's visible tools, and the tokens of those with tokens
    /// (ascending).
    pub visible: Vec<u64>,
    pub tokens: Vec<u64>,
}

/// A run's `counts` read back: its budget per catalogue and, when
/// `findings`, its findings as (kind, tool as an `agg_names` id,
/// findings); `None` when it is not packed counts.
pub(crate) type Unpacked = (Vec<CatalogueTurns>, Vec<(i64, Option<i64>, u64)>);

pub(crate) fn unpack(bytes: &[u8], findings: bool) -> Option<Unpacked> {
    let mut at = 0;
    let n = take(bytes, &mut at)?;
    let mut budget = Vec::new();
    for _ in 0..n {
        let catalogue = unzigzag(take(bytes, &mut at)?);
        let v = take(bytes, &mut at)?;
        let menu_changed = take(bytes, &mut at)?;
        let visible = take_ascending(bytes, &mut at, v >> 1)?;
        let with_tokens = take(bytes, &mut at)?;
        let tokens = take_ascending(bytes, &mut at, with_tokens)?;
        budget.push(CatalogueTurns {
            catalogue,
            changed: v & 1 == 1,
            menu_changed,
            visible,
            tokens,
        });
    }
    let mut groups = Vec::new();
    if !findings {
        return Some((budget, groups));
    }
    let kinds = take(bytes, &mut at)?;
    for _ in 0..kinds {
        let kind = unzigzag(take(bytes, &mut at)?);
        let v = take(bytes, &mut at)?;
        if v & 1 == 1 {
            groups.push((kind, None, take(bytes, &mut at)?));
        }
        let mut last = 0i64;
        for _ in 0..v >> 1 {
            let x = take_wide(bytes, &mut at)?;
            let n = match (x & 3) as u64 {
                0 => take(bytes, &mut at)?,
                small => small,
            };
            last = last.wrapping_add(unzigzag(u64::try_from(x >> 2).ok()?));
            groups.push((kind, Some(last), n));
        }
    }
    (at == bytes.len()).then_some((budget, groups))
}

/// [`put`] of a value up to 66 bits (a tool's difference and its count).
fn put_wide(out: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn take_wide(bytes: &[u8], at: &mut usize) -> Option<u128> {
    let mut v = 0u128;
    for shift in (0..70).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u128::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Counts every run with a verdict or a finding (the upgrade to schema 11).
pub(crate) fn fill_all(conn: &Connection) -> Result<()> {
    let names: Vec<(String, Option<i64>)> = conn
        .prepare(
            "SELECT r.run_id, n.id FROM (SELECT DISTINCT run_id FROM decision_rows
                 UNION SELECT name FROM finding_names
                 WHERE id IN (SELECT DISTINCT run_id FROM finding_rows)) r
             LEFT JOIN finding_names n ON n.name = r.run_id ORDER BY 1",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut w = Writer::new(conn)?;
    for (name, fid) in names {
        // (A run whose rows cannot be read is read the long way, as one
        // that cannot be counted: the upgrade goes on.)
        match RunRead::read(conn, &name, fid) {
            Ok(run) => w.write(conn, &name, &run)?,
            Err(_) => w.write_long(conn, &name)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_back() {
        let mut b = Vec::new();
        put(&mut b, 2);
        for (cat, changed, mc, mut visible, mut tokens) in [
            (3i64, 1u64, 2u64, vec![12u64, 11, 11], vec![1351u64, 1200]),
            (-1, 0, 0, vec![0], vec![u64::MAX]),
        ] {
            put(&mut b, zigzag(cat));
            put(&mut b, (visible.len() as u64) << 1 | changed);
            put(&mut b, mc);
            put_ascending(&mut b, &mut visible);
            put(&mut b, tokens.len() as u64);
            put_ascending(&mut b, &mut tokens);
        }
        // Catalogue 3 (6), three turns, changed (7), two menu_changed;
        // visible 11, +0, +1; two with tokens: 1200 (two bytes), +151 (two).
        assert_eq!(&b[..12], &[2, 6, 7, 2, 11, 0, 1, 2, 0xb0, 0x09, 0x97, 0x01]);
        let budget_len = b.len();
        pack_findings(
            &[
                (4, Some(7)),
                (4, Some(7)),
                (2, None),
                (4, None),
                (4, Some(3)),
            ],
            &mut b,
        );
        // 2 kinds; kind 2 (4): no tool, one finding of none (1, 1); kind 4
        // (8): two tools and one finding of none (5, 1), tool 3 (+3 → 6)
        // once (25), tool 7 (+4 → 8) twice (34).
        assert_eq!(&b[budget_len..], &[2, 4, 1, 1, 8, 5, 1, 25, 34]);
        let (budget, groups) = unpack(&b, true).unwrap();
        assert_eq!(budget.len(), 2);
        assert_eq!(
            (
                budget[0].catalogue,
                budget[0].changed,
                budget[0].menu_changed
            ),
            (3, true, 2)
        );
        assert_eq!(budget[0].visible, vec![11, 11, 12]);
        assert_eq!(budget[0].tokens, vec![1200, 1351]);
        assert_eq!((budget[1].catalogue, budget[1].changed), (-1, false));
        assert_eq!(
            (&budget[1].visible[..], &budget[1].tokens[..]),
            (&[0][..], &[u64::MAX][..])
        );
        assert_eq!(
            groups,
            vec![(2, None, 1), (4, None, 1), (4, Some(3), 1), (4, Some(7), 2)]
        );
        // The budget alone need not read the findings.
        assert_eq!(unpack(&b[..budget_len], false).unwrap().0.len(), 2);
        // Cut short, or with bytes left over: not packed counts.
        assert!(unpack(&b[..b.len() - 1], true).is_none());
        let mut longer = b.clone();
        longer.push(0);
        assert!(unpack(&longer, true).is_none());
        // Five findings of one tool: the count after the difference.
        let mut five = vec![0];
        pack_findings(&[(1, Some(1)); 5], &mut five);
        assert_eq!(five, vec![0, 1, 2, 2, 8, 5]);
        assert_eq!(unpack(&five, true).unwrap().1, vec![(1, Some(1), 5)]);
        let mut none = Vec::new();
        put(&mut none, 0);
        pack_findings(&[], &mut none);
        assert_eq!(none, vec![0, 0]);
        assert_eq!(unpack(&none, true).unwrap().1, vec![]);
    }
}
