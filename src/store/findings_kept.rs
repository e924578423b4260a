//! The findings summary under a decision filter (a phase, a catalogue, a
//! window the kept counts do not answer), counted in two reads instead of
//! one lookup per finding: the decisions the filter keeps, as (run, step)
//! keys sorted by run, then every finding, tested against its run's keys.
//! Each read is split by id between the caller's connection and a second
//! read-only one, one per core (a database in memory is read whole).
//!
//! The selection is [`super::findings::selected`]'s: a finding about a step
//! counts when that decision is kept, one about a run with no step when
//! any of the run's decisions is, one about neither when its catalogue is
//! named by the filter (a catalogue filter alone) or used by a kept
//! decision. At 5,000,000 decisions and 6,400,000 findings, the summary
//! under `--catalogue` took 6.4 s and under `--phase` 4.5 s with SQLite
//! looking every finding's decision up; 1.7-2.2 s and 1.2-1.6 s so.

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use rustc_hash::{FxHashMap, FxHashSet};

use super::filter_sql::FilterSql;
use super::findings::FindingGroup;
use super::halves::{each_kept_run, id_range, in_two, keeps_few_runs, run_count, second_reader};
use crate::error::Result;
use crate::filter::Filter;

/// `finding_names` ids beyond this many per name plus a million are read
/// the long way (a bit and an offset are kept per id).
const IDS_PER_NAME: i64 = 4;

/// The finding names: which ids have one, and each name's id.
struct Names {
    ids: FxHashMap<Box<str>, u32>,
    named: Vec<u64>,
}

impl Names {
    /// `None` when the ids are too sparse, or a name or id is not what
    /// rung writes (the long way then answers exactly).
    fn load(conn: &Connection) -> Result<Option<Names>> {
        let (count, max): (i64, i64) = conn.query_row(
            "SELECT count(*), COALESCE(max(id), 0) FROM finding_names",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if max > count.saturating_mul(IDS_PER_NAME) + 1_000_000 || max >= i64::from(u32::MAX) {
            return Ok(None);
        }
        let mut names = Names {
            ids: FxHashMap::with_capacity_and_hasher(count.max(0) as usize, Default::default()),
            named: vec![0; max.max(0) as usize / 64 + 1],
        };
        let mut stmt = conn.prepare("SELECT id, name FROM finding_names")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let (Ok(id), ValueRef::Text(name)) = (u32::try_from(id), r.get_ref(1)?) else {
                return Ok(None);
            };
            let Ok(name) = std::str::from_utf8(name) else {
                return Ok(None);
            };
            names.named[id as usize / 64] |= 1 << (id % 64);
            names.ids.insert(name.into(), id);
        }
        Ok(Some(names))
    }

    /// The id of a stored value when it names something.
    fn named(&self, v: ValueRef) -> Option<u32> {
        match v {
            ValueRef::Integer(id) => u32::try_from(id).ok().filter(|&id| {
                self.named
                    .get(id as usize / 64)
                    .is_some_and(|w| w >> (id % 64) & 1 == 1)
            }),
            _ => None,
        }
    }

    fn slots(&self) -> usize {
        self.named.len() * 64
    }
}

/// The runs a run-level filter keeps: by finding name id, and by name
/// those that no finding names (they have no finding, but their decisions'
/// catalogues count).
struct Runs {
    named: Vec<u64>,
    unnamed: FxHashSet<Box<str>>,
}

impl Runs {
    /// `None` when a run's name is not UTF-8 (the long way answers).
    fn read(conn: &Connection, f: &Filter, names: &Names) -> Result<Option<Runs>> {
        let mut runs = Runs {
            named: vec![0; names.named.len()],
            unnamed: FxHashSet::default(),
        };
        let whole = each_kept_run(conn, f, |name| {
            let Ok(name) = std::str::from_utf8(name) else {
                return Ok(false);
            };
            match names.ids.get(name) {
                Some(&id) => runs.named[id as usize / 64] |= 1 << (id % 64),
                None => {
                    runs.unnamed.insert(name.into());
                }
            }
            Ok(true)
        })?;
        Ok(whole.then_some(runs))
    }

    /// Whether the run (its name, and its id when a finding names it) is
    /// kept.
    fn keeps(&self, name: &[u8], id: Option<u32>) -> bool {
        match id {
            Some(id) => self.named[id as usize / 64] >> (id % 64) & 1 == 1,
            None => std::str::from_utf8(name).is_ok_and(|n| self.unnamed.contains(n)),
        }
    }
}

/// The decisions a filter keeps: per run (by finding name id) its steps,
/// in a part per connection that read them.
struct Kept {
    parts: Vec<Keys>,
    /// The catalogues (ids) of the kept decisions.
    catalogues: FxHashSet<i64>,
}

/// Kept decisions as `run << 32 | step`, sorted; run id `i`'s are
/// `keys[start[i]..start[i + 1]]`.
struct Keys {
    keys: Vec<u64>,
    start: Vec<u32>,
}

impl Keys {
    fn of(&self, run: u32) -> &[u64] {
        let i = run as usize;
        &self.keys[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

impl Kept {
    /// Whether a decision of the run is kept.
    fn any(&self, run: u32) -> bool {
        self.parts.iter().any(|p| !p.of(run).is_empty())
    }

    /// Whether the run's decision at `step` is kept.
    fn has(&self, run: u32, step: u32) -> bool {
        let key = u64::from(run) << 32 | u64::from(step);
        self.parts
            .iter()
            .any(|p| p.of(run).binary_search(&key).is_ok())
    }

    /// `None` when a kept step is not a step rung writes (a whole number
    /// from 0 to 2^32 - 1), or a run name is not UTF-8.
    fn read(
        conn: &Connection,
        second: Option<&mut Connection>,
        f: &Filter,
        names: &Names,
    ) -> Result<Option<Kept>> {
        // The decision-level filters in SQL, the run-level ones here: with
        // both, SQLite starts from the runs kept and reads each one's
        // decisions by its id (at 5,000,000 decisions, the query alone
        // under `--phase modify --model model-b`: 2.3 s).
        let runs = if f.has_run_filter() {
            match Runs::read(conn, f, names)? {
                Some(r) => Some(r),
                None => return Ok(None),
            }
        } else {
            None
        };
        let decision_level = f.without_run_filters();
        let (clause, args) = decision_level.rows_clause();
        let from = decision_level.rows_from();
        let sql = format!(
            "SELECT d.run_id, d.step, l.catalogue {from}
             WHERE {clause} AND l.decision_id >= ? AND l.decision_id < ?"
        );
        let (lo, hi) = id_range(conn, "ladder_rows", "decision_id")?;
        let parts = in_two(conn, second, lo, hi, |c, lo, hi| {
            Kept::part(c, &sql, &args, lo, hi, names, runs.as_ref())
        })?;
        let mut kept = Kept {
            parts: Vec::new(),
            catalogues: FxHashSet::default(),
        };
        for part in parts {
            let Some((keys, c)) = part else {
                return Ok(None);
            };
            kept.catalogues.extend(c);
            let mut start = vec![0u32; names.slots() + 1];
            for k in &keys {
                start[(k >> 32) as usize + 1] += 1;
            }
            for i in 1..start.len() {
                start[i] += start[i - 1];
            }
            kept.parts.push(Keys { keys, start });
        }
        Ok(Some(kept))
    }

    /// The keys (sorted) and catalogues of the kept decisions with ids in
    /// `[lo, hi)`.
    fn part(
        conn: &Connection,
        sql: &str,
        args: &[Sql],
        lo: i64,
        hi: i64,
        names: &Names,
        runs: Option<&Runs>,
    ) -> Result<Option<(Vec<u64>, FxHashSet<i64>)>> {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query(params_from_iter(
            args.iter()
                .cloned()
                .chain([Sql::Integer(lo), Sql::Integer(hi)]),
        ))?;
        // Room for every key, reserved but not touched (growing by
        // doubling copied and touched twice as much memory: at 5,000,000
        // decisions a third of the time went to the kernel's zeroing of new
        // pages).
        let mut keys = Vec::with_capacity((hi - lo).clamp(0, 1 << 28) as usize);
        let mut catalogues = FxHashSet::default();
        // A run's decisions mostly follow each other: it is looked up once.
        let mut last_name: Vec<u8> = Vec::new();
        let mut last: Option<(Option<u32>, bool)> = None;
        while let Some(r) = rows.next()? {
            let (id, kept) = match r.get_ref(0)? {
                // A verdict without its decision: of no run.
                ValueRef::Null => (None, runs.is_none()),
                ValueRef::Text(run) => match last {
                    Some(known) if last_name == run => known,
                    _ => {
                        let id = std::str::from_utf8(run)
                            .ok()
                            .and_then(|run| names.ids.get(run).copied());
                        let kept = runs.is_none_or(|k| k.keeps(run, id));
                        last_name.clear();
                        last_name.extend_from_slice(run);
                        last = Some((id, kept));
                        (id, kept)
                    }
                },
                _ => return Ok(None),
            };
            if !kept {
                continue;
            }
            if let ValueRef::Integer(c) = r.get_ref(2)? {
                catalogues.insert(c);
            }
            // (A run no finding names has no finding to keep.)
            let Some(id) = id else {
                continue;
            };
            let step = match r.get_ref(1)? {
                ValueRef::Integer(s) => u32::try_from(s).ok(),
                _ => None,
            };
            let Some(step) = step else {
                return Ok(None);
            };
            keys.push(u64::from(id) << 32 | u64::from(step));
        }
        keys.sort_unstable();
        keys.dedup();
        if keys.len() >= u32::MAX as usize {
            return Ok(None);
        }
        Ok(Some((keys, catalogues)))
    }
}

/// One (kind, tool) of the summary, by ids.
struct Group {
    kind: i64,
    tool: Option<u32>,
    findings: u64,
    runs: u64,
    /// The first and the last run counted for it.
    first_run: Option<u32>,
    last_run: Option<u32>,
}

/// The groups of the findings with ids in a range.
struct Part {
    groups: Vec<Group>,
    /// The first and last run of a selected finding.
    first: Option<u32>,
    last: Option<u32>,
    /// The runs of the selected findings (a bit per name id).
    seen: Vec<u64>,
}

/// What a finding is tested against.
struct Selection<'a> {
    names: &'a Names,
    kept: &'a Kept,
    /// The catalogues (ids) whose own findings count.
    catalogues: FxHashSet<i64>,
    run_filter: bool,
    kinds: &'a FxHashMap<i64, String>,
}

impl Selection<'_> {
    /// Counts the selected findings by kind and tool, on two connections
    /// when there is a second. `None` when the stored rows are not as rung
    /// writes them.
    fn count(
        &self,
        conn: &Connection,
        second: Option<&mut Connection>,
    ) -> Result<Option<Vec<Group>>> {
        let (lo, hi) = id_range(conn, "finding_rows", "id")?;
        let parts = in_two(conn, second, lo, hi, |c, lo, hi| {
            self.part(c, lo, hi, false)
        })?;
        let mut merged: Option<Part> = None;
        for part in parts {
            merged = match (merged, part) {
                (None, Some(p)) => Some(p),
                (Some(a), Some(b)) => merge(a, b),
                _ => None,
            };
            if merged.is_none() {
                break;
            }
        }
        if let Some(m) = merged {
            return Ok(Some(m.groups));
        }
        // A run's findings apart: counted again by (group, run) pairs.
        Ok(self.part(conn, lo, hi, true)?.map(|p| p.groups))
    }

    /// Counts the selected findings with ids in `[lo, hi)`. Runs are
    /// counted as each group's run changes, which is exact when each run's
    /// selected findings follow each other (rung writes a run's findings
    /// together); otherwise (`None`, seen by a run coming back) with
    /// `pairs` every (group, run) pair is kept and counted once.
    fn part(&self, conn: &Connection, lo: i64, hi: i64, pairs: bool) -> Result<Option<Part>> {
        let mut groups: Vec<Group> = Vec::new();
        let mut index: FxHashMap<(i64, Option<u32>), usize> = FxHashMap::default();
        let mut seen = vec![0u64; self.names.named.len()];
        let (mut first, mut current) = (None, None);
        // With `pairs`: `group << 32 | run`, repeats dropped at the end.
        let mut pair_list: Vec<u64> = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT kind, run_id, step, tool, catalogue FROM finding_rows
             WHERE id >= ?1 AND id < ?2",
        )?;
        let mut rows = stmt.query([lo, hi])?;
        while let Some(r) = rows.next()? {
            let ValueRef::Integer(kind) = r.get_ref(0)? else {
                continue;
            };
            if !self.kinds.contains_key(&kind) {
                continue;
            }
            let raw_run = r.get_ref(1)?;
            let run = self.names.named(raw_run);
            let keep = match (r.get_ref(2)?, run) {
                (ValueRef::Null, Some(run)) => self.kept.any(run),
                (ValueRef::Null, None) => {
                    // About no run (a run id that names nothing reads as
                    // none, but a run-level filter keeps only findings with
                    // no run id at all).
                    (raw_run == ValueRef::Null || !self.run_filter)
                        && matches!(r.get_ref(4)?,
                            ValueRef::Integer(c) if self.catalogues.contains(&c))
                }
                (ValueRef::Integer(step), Some(run)) => {
                    u32::try_from(step).is_ok_and(|step| self.kept.has(run, step))
                }
                // A step of another type equals no decision's; a step of
                // no named run is about no decision.
                _ => false,
            };
            if !keep {
                continue;
            }
            let tool = self.names.named(r.get_ref(3)?);
            let g = *index.entry((kind, tool)).or_insert_with(|| {
                groups.push(Group {
                    kind,
                    tool,
                    findings: 0,
                    runs: 0,
                    first_run: None,
                    last_run: None,
                });
                groups.len() - 1
            });
            let group = &mut groups[g];
            group.findings += 1;
            let Some(run) = run else {
                continue;
            };
            if pairs {
                if group.last_run != Some(run) {
                    group.last_run = Some(run);
                    pair_list.push((g as u64) << 32 | u64::from(run));
                }
                continue;
            }
            if current != Some(run) {
                let bit = 1 << (run % 64);
                if seen[run as usize / 64] & bit != 0 {
                    return Ok(None);
                }
                seen[run as usize / 64] |= bit;
                first = first.or(Some(run));
                current = Some(run);
            }
            if group.last_run != Some(run) {
                group.first_run = group.first_run.or(Some(run));
                group.last_run = Some(run);
                group.runs += 1;
            }
        }
        pair_list.sort_unstable();
        pair_list.dedup();
        for p in &pair_list {
            groups[(p >> 32) as usize].runs += 1;
        }
        Ok(Some(Part {
            groups,
            first,
            last: current,
            seen,
        }))
    }
}

/// Two parts' groups together (`a`'s findings before `b`'s), or `None`
/// when a run's findings are in both apart (not just `a`'s last run
/// going on as `b`'s first).
fn merge(mut a: Part, b: Part) -> Option<Part> {
    let go_on = a.last.filter(|&r| b.first == Some(r));
    for (i, (wa, wb)) in a.seen.iter_mut().zip(&b.seen).enumerate() {
        let mut both = *wa & wb;
        if let Some(r) = go_on
            && r as usize / 64 == i
        {
            both &= !(1 << (r % 64));
        }
        if both != 0 {
            return None;
        }
        *wa |= wb;
    }
    let mut index: FxHashMap<(i64, Option<u32>), usize> = a
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| ((g.kind, g.tool), i))
        .collect();
    for g in b.groups {
        match index.get(&(g.kind, g.tool)) {
            Some(&i) => {
                let ga = &mut a.groups[i];
                ga.findings += g.findings;
                ga.runs += g.runs;
                // The run going on, counted in both.
                if go_on.is_some() && ga.last_run == go_on && g.first_run == go_on {
                    ga.runs -= 1;
                }
                ga.last_run = g.last_run.or(ga.last_run);
            }
            None => {
                index.insert((g.kind, g.tool), a.groups.len());
                a.groups.push(g);
            }
        }
    }
    a.last = b.last.or(a.last);
    Some(a)
}

/// The findings summary under `f` (a decision filter), as
/// [`super::findings::finding_groups_long`] counts it; `None` when the
/// stored names or steps are not as rung writes them, or a run-level
/// filter keeps few runs (then the long way answers).
pub fn finding_groups(conn: &Connection, f: &Filter) -> Result<Option<Vec<FindingGroup>>> {
    if f.has_run_filter() && keeps_few_runs(conn, f, run_count(conn)?)? {
        return Ok(None);
    }
    let Some(names) = Names::load(conn)? else {
        return Ok(None);
    };
    let mut second = second_reader(conn);
    let Some(kept) = Kept::read(conn, second.as_mut(), f, &names)? else {
        return Ok(None);
    };
    let versions: FxHashMap<String, i64> = conn
        .prepare("SELECT version, id FROM catalogue_ids")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    // The catalogues whose own findings (no run, no step) count: those a
    // catalogue filter alone names, else those the kept decisions use.
    let catalogue_only = Filter {
        catalogues: f.catalogues.clone(),
        ..Filter::default()
    } == *f;
    let catalogues = if catalogue_only {
        f.catalogues
            .iter()
            .filter_map(|c| versions.get(c).copied())
            .collect()
    } else {
        kept.catalogues.clone()
    };
    let kinds: FxHashMap<i64, String> = conn
        .prepare("SELECT id, name FROM finding_kinds")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let selection = Selection {
        names: &names,
        kept: &kept,
        catalogues,
        run_filter: f.has_run_filter(),
        kinds: &kinds,
    };
    let Some(groups) = selection.count(conn, second.as_mut())? else {
        return Ok(None);
    };
    let mut tool_name = conn.prepare("SELECT name FROM finding_names WHERE id = ?1")?;
    let mut out = Vec::with_capacity(groups.len());
    for g in &groups {
        let tool = match g.tool {
            Some(t) => tool_name
                .query_row([t], |r| r.get::<_, String>(0))
                .optional()?,
            None => None,
        };
        out.push(FindingGroup {
            kind: kinds[&g.kind].clone(),
            tool,
            findings: g.findings,
            runs: g.runs,
        });
    }
    out.sort_by(|a, b| (&a.kind, &a.tool).cmp(&(&b.kind, &b.tool)));
    Ok(Some(out))
}
