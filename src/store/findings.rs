//! Findings: the findings report (what the filtered decisions and their
//! catalogues raised) and one decision's findings.

use std::collections::{HashMap, HashSet};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use super::filter_sql::{FilterSql, kept_runs, push_in};
use super::paging::{Anchor, Key, Page, Spec};
use crate::error::Result;
use crate::filter::Filter;
use crate::model::FindingKind;

/// One stored finding.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FindingRow {
    pub kind: String,
    pub catalogue: Option<String>,
    pub task_id: Option<String>,
    pub run_id: Option<String>,
    pub step: Option<i64>,
    pub tool: Option<String>,
    pub detail: String,
}

/// The findings a filter selects, as SQL over `findings x` with the
/// columns of [`FindingRow`]: those about the filtered decisions, about the
/// runs with a filtered decision (a missing call or output names no step),
/// plus the catalogue-level findings of the catalogues those decisions use
/// (all findings when unfiltered). `select` is what the query returns.
pub fn selected(f: &Filter, select: &str, tail: &str) -> (String, Vec<Sql>) {
    selected_from(f, "findings x", Among::Every, select, tail)
}

/// Which findings the `source` of [`selected_from`] holds.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Among {
    /// Every one: under a run-level filter, those about the runs kept are
    /// listed by id first.
    Every,
    /// A few, already chosen (the runs the kept counts cannot answer):
    /// each is tested. A list of ids would be the runs' every finding,
    /// which SQLite would then read (at 5,000,000 decisions, the findings
    /// summary under a model: 69.6 s against 0.3 s).
    Few,
}

/// [`selected`], among a few findings chosen by the caller when `few`
/// (each tested, see [`Among::Few`]).
fn selected_among(f: &Filter, few: bool, select: &str) -> (String, Vec<Sql>) {
    let among = if few { Among::Few } else { Among::Every };
    selected_from(f, "findings x", among, select, "")
}

/// [`selected`] from `source` (`findings x`, perhaps joined to more).
pub(super) fn selected_from(
    f: &Filter,
    source: &str,
    among: Among,
    select: &str,
    tail: &str,
) -> (String, Vec<Sql>) {
    if f.is_empty() {
        return (format!("SELECT {select} FROM {source} {tail}"), Vec::new());
    }
    let listed = among == Among::Every && f.has_run_filter();
    // Under run-level filters alone a decision is kept when its run is,
    // and `only` below keeps only the findings about the runs kept (or
    // about no run): the decision or run a finding names need only have a
    // verdict, looked up without its run (at 5,000,000 decisions, the
    // findings under a tag that one run in 16 has: 1.0 -> 0.7 s counted).
    let run_level = listed && !f.has_decision_filter();
    // The decision clause, used twice below (a finding's step, its run).
    let (clause, mut args) = if run_level {
        ("1=1".to_string(), Vec::new())
    } else {
        f.decision_clause()
    };
    args.extend_from_within(..);
    let from = f.from();
    let named = if run_level { "FROM ladder l" } else { from };
    let catalogue_only = Filter {
        catalogues: f.catalogues.clone(),
        ..Filter::default()
    } == *f;
    let cat_clause = if catalogue_only {
        let mut s = String::from("1=1");
        push_in(&mut s, &mut args, "x.catalogue", &f.catalogues);
        s
    } else {
        let (c2, a2) = f.counting_clause();
        args.extend(a2);
        format!("x.catalogue IN (SELECT DISTINCT l.catalogue {from} WHERE {c2})")
    };
    // Under a run-level filter every finding selected is about a run it
    // keeps, or about no run: said once more as a list of finding ids, so
    // that SQLite reads only those findings (through `finding_rows_run`)
    // instead of testing every finding (at 5,000,000 decisions, the
    // findings summary under one task: 0.01 s against 5.2 s).
    let only = if listed {
        let (runs, run_args) = kept_runs(f);
        args.extend(run_args);
        format!(
            "AND x.id IN (SELECT q.id FROM finding_rows q WHERE q.run_id IS NULL
                OR q.run_id IN (SELECT n.id FROM finding_names n WHERE n.name IN ({runs})))"
        )
    } else {
        String::new()
    };
    (
        format!(
            "SELECT {select} FROM {source} WHERE
               ((x.step IS NOT NULL AND EXISTS (SELECT 1 {named}
                   WHERE l.run_id = x.run_id AND l.step = x.step AND {clause}))
               OR (x.step IS NULL AND x.run_id IS NOT NULL AND EXISTS (SELECT 1 {named}
                   WHERE l.run_id = x.run_id AND {clause}))
               OR (x.step IS NULL AND x.run_id IS NULL AND {cat_clause}))
               {only}
             {tail}"
        ),
        args,
    )
}

const FINDING_COLUMNS: &str = "x.kind, x.catalogue, x.task_id, x.run_id, x.step, x.tool, x.detail";

/// How many findings the filter selects.
pub fn count_findings(conn: &Connection, f: &Filter) -> Result<u64> {
    let (sql, args) = if f.is_empty() {
        if let Some(n) = super::agg::findings::total(conn)? {
            return Ok(n);
        }
        // The view's rows without its joins: those of a known kind.
        (
            "SELECT count(*) FROM finding_rows p WHERE p.kind IN (SELECT id FROM finding_kinds)"
                .to_string(),
            Vec::new(),
        )
    } else {
        selected(f, "count(*)", "")
    };
    let n: i64 = conn.query_row(&sql, params_from_iter(args), |r| r.get(0))?;
    Ok(n as u64)
}

/// The findings of one kind and tool, counted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FindingGroup {
    pub kind: String,
    pub tool: Option<String>,
    pub findings: u64,
    /// Distinct runs they concern (0 for catalogue-level findings).
    pub runs: u64,
}

/// The findings the filter selects, counted by (kind, tool), in that
/// order (a null tool first).
pub fn finding_groups(conn: &Connection, f: &Filter) -> Result<Vec<FindingGroup>> {
    if let Some(s) = super::agg::run_read::scope(conn, f)? {
        return super::agg::run_read::finding_groups(conn, &s, f);
    }
    // A decision filter: two reads, not a lookup per finding.
    if f.has_decision_filter()
        && let Some(groups) = super::findings_kept::finding_groups(conn, f)?
    {
        return Ok(groups);
    }
    finding_groups_long(conn, f)
}

/// [`finding_groups`] from the findings themselves.
pub fn finding_groups_long(conn: &Connection, f: &Filter) -> Result<Vec<FindingGroup>> {
    let (sql, args) = selected(
        f,
        "x.kind, x.tool, count(*), count(DISTINCT x.run_id)",
        "GROUP BY x.kind, x.tool ORDER BY x.kind, x.tool",
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args), |r| {
            Ok(FindingGroup {
                kind: r.get(0)?,
                tool: r.get(1)?,
                findings: r.get::<_, i64>(2)? as u64,
                runs: r.get::<_, i64>(3)? as u64,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Findings of one decision, by kind then tool.
pub fn decision_findings(conn: &Connection, run_id: &str, step: i64) -> Result<Vec<FindingRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
         WHERE run_id = ?1 AND step = ?2 ORDER BY kind, tool, detail",
    )?;
    let rows = stmt
        .query_map(rusqlite::params![run_id, step], |r| {
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
    Ok(rows)
}

/// Whether a finding kind is about one decision (those that name a run
/// but no step, `missing_call` and `missing_output`, are about the run).
pub fn is_decision_kind(kind: FindingKind) -> bool {
    matches!(
        kind,
        FindingKind::ExposureMismatch
            | FindingKind::HiddenProposal
            | FindingKind::UnclassifiedReason
            | FindingKind::LabelConflict
            | FindingKind::UnsourcedId
            | FindingKind::IdFromDescription
            | FindingKind::AnnouncedNoCall
            | FindingKind::WriteUnderInform
            | FindingKind::RepeatedCall
            | FindingKind::ArgumentMismatch
            | FindingKind::UnexpectedCall
            | FindingKind::SchemaViolation
    )
}

/// Each kind's counts with its distinct runs counted, the kinds with none
/// left out, most found first (then by name): the Findings screen's rows.
pub(crate) fn kind_rows<R>(kinds: impl Iterator<Item = (KindCount, HashSet<R>)>) -> Vec<KindCount> {
    let mut rows: Vec<KindCount> = kinds
        .map(|(mut k, runs)| {
            k.runs = runs.len() as u64;
            k
        })
        .collect();
    rows.retain(|k| k.count + k.previous + k.undated > 0);
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.kind.cmp(&b.kind)));
    rows
}

/// The findings of one kind in a window, counted, beside the window of the
/// same length before it (the Findings screen).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KindCount {
    pub kind: String,
    /// Findings whose decision falls in `[since, until)`.
    pub count: u64,
    /// Distinct runs of those.
    pub runs: u64,
    /// Findings in the window of the same length before.
    pub previous: u64,
    /// Findings with no time: catalogue findings, and those of decisions
    /// (or runs) with no time of their own or of their run.
    pub undated: u64,
}

/// The Findings screen's counts: per kind with any finding in the two
/// windows or undated, by count descending then kind; and the distinct
/// runs over all kinds in the window.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FindingCounts {
    pub rows: Vec<KindCount>,
    pub runs: u64,
}

/// A finding's time: its decision's (`ladder.time_us`, the decision's `at`
/// or its run's start); for a finding about a run with no step (a missing
/// call or output), the run's earliest decision's; none for catalogue
/// findings.
const FINDING_TIME: &str = "(CASE WHEN x.step IS NOT NULL THEN \
(SELECT l2.time_us FROM ladder l2 WHERE l2.run_id = x.run_id AND l2.step = x.step) \
WHEN x.run_id IS NOT NULL THEN \
(SELECT min(l2.time_us) FROM ladder l2 WHERE l2.run_id = x.run_id) END)";

/// The findings the filter selects, counted per kind in `[since, until)`,
/// in the window of the same length before, and undated.
pub fn finding_counts(
    conn: &Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<FindingCounts> {
    if f.is_empty()
        && let Some(c) = super::agg::findings::counts(conn, since, until)?
    {
        return Ok(c);
    }
    // Under a filter: only the findings of the runs the kept counts place
    // in the two windows (or nowhere) are timed, each tested against the
    // filter (at 5,000,000 decisions, under a model: 3.1 s when every
    // finding the filter keeps was).
    let prev = since - (until - since);
    counted(conn, f, since, until, few_timed(conn, f, None, prev, until))
}

/// The findings (of `kind`, or of every kind) worth timing for the window
/// under `f`: those [`super::agg::findings::timed_in`] names, or none to
/// say every finding the filter keeps when it names tasks or run ids
/// (their few runs' findings are listed at once: under one task at
/// 5,000,000 decisions, 0.001 s against 0.13 s).
fn few_timed(
    conn: &Connection,
    f: &Filter,
    kind: Option<&str>,
    since: i64,
    until: i64,
) -> Option<(String, Vec<Sql>)> {
    if !f.tasks.is_empty() || !f.runs.is_empty() {
        return None;
    }
    super::agg::findings::timed_in(conn, kind, since, until)
}

/// [`finding_counts`] from the findings themselves.
pub fn finding_counts_long(
    conn: &Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<FindingCounts> {
    counted(conn, f, since, until, None)
}

/// [`finding_counts`] of the findings the filter selects, among `few` (see
/// [`super::agg::findings::timed_in`]) when given.
fn counted(
    conn: &Connection,
    f: &Filter,
    since: i64,
    until: i64,
    few: Option<(String, Vec<Sql>)>,
) -> Result<FindingCounts> {
    let (inner, mut args) = selected_among(
        f,
        few.is_some(),
        &format!("x.id AS id, x.kind AS kind, x.run_id AS run_id, {FINDING_TIME} AS t"),
    );
    let mut inner = format!("SELECT y.kind, y.run_id, y.t FROM ({inner}) y");
    if let Some((ids, id_args)) = few {
        inner.push_str(&format!(" WHERE y.id IN ({ids})"));
        args.extend(id_args);
    }
    let prev = since - (until - since);
    // One pass, counted here: in SQL each use of the finding's time would
    // evaluate its subquery again (seven per row), and the runs over all
    // kinds would take a second pass.
    let mut kinds: HashMap<String, (KindCount, HashSet<String>)> = HashMap::new();
    let mut all_runs: HashSet<String> = HashSet::new();
    let mut stmt = conn.prepare(&inner)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let kind: String = r.get(0)?;
        let run_id: Option<String> = r.get(1)?;
        let t: Option<i64> = r.get(2)?;
        let (k, runs) = kinds.entry(kind).or_insert_with_key(|kind| {
            (
                KindCount {
                    kind: kind.clone(),
                    ..KindCount::default()
                },
                HashSet::new(),
            )
        });
        match t {
            None => k.undated += 1,
            Some(t) if t >= since && t < until => {
                k.count += 1;
                if let Some(run) = run_id {
                    if !all_runs.contains(&run) {
                        all_runs.insert(run.clone());
                    }
                    runs.insert(run);
                }
            }
            Some(t) if t >= prev && t < since => k.previous += 1,
            Some(_) => {}
        }
    }
    let rows = kind_rows(kinds.into_values());
    Ok(FindingCounts {
        rows,
        runs: all_runs.len() as u64,
    })
}

/// The findings a Findings list shows: one kind, in `[since, until)` or
/// undated.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FindingSet {
    pub kind: String,
    pub since: i64,
    pub until: i64,
}

/// One finding in a Findings list.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingItem {
    pub id: i64,
    pub row: FindingRow,
    pub time_us: Option<i64>,
}

/// One page of the findings of a kind, in the order they were stored.
pub fn findings_page(
    conn: &Connection,
    f: &Filter,
    set: &FindingSet,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<FindingItem>> {
    findings_page_sorted(conn, f, set, None, false, anchor, n)
}

/// What a Findings list sorts by (the TUI's columns: run, step, tool,
/// catalogue, time): the SQL over the list's rows, and the same value of
/// an item (its key in the sorted list, with its id).
const FINDING_SORTS: [&str; 5] = [
    "COALESCE(y.run_id, '')",
    "COALESCE(y.step, -1)",
    "COALESCE(y.tool, '')",
    "COALESCE(y.catalogue, '')",
    "COALESCE(y.t, -1)",
];

/// The key of `item` in a Findings list sorted by column `sort` (see
/// [`findings_page_sorted`]; `None`: the stored order).
pub fn finding_sorted_key(item: &FindingItem, sort: Option<usize>) -> Key {
    let r = &item.row;
    let text = |s: &Option<String>| Sql::Text(s.clone().unwrap_or_default());
    let value = match sort {
        None => Sql::Integer(item.id),
        Some(0) => text(&r.run_id),
        Some(1) => Sql::Integer(r.step.unwrap_or(-1)),
        Some(2) => text(&r.tool),
        Some(3) => text(&r.catalogue),
        Some(_) => Sql::Integer(item.time_us.unwrap_or(-1)),
    };
    (value, Sql::Integer(item.id))
}

/// [`findings_page`] sorted by column `sort` of [`FINDING_SORTS`] (ties
/// in the stored order), descending when `desc`.
pub fn findings_page_sorted(
    conn: &Connection,
    f: &Filter,
    set: &FindingSet,
    sort: Option<usize>,
    desc: bool,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<FindingItem>> {
    // Only the findings of the runs the kept counts place in the window
    // are timed, each tested against the filter (at 5,000,000 decisions,
    // a week's first page: 8.3 s when every finding of the kind was).
    let few = few_timed(conn, f, Some(&set.kind), set.since, set.until);
    let (inner, mut args) = selected_among(
        f,
        few.is_some(),
        &format!("x.id AS id, {FINDING_COLUMNS}, {FINDING_TIME} AS t"),
    );
    // The inner query's columns come out under their own names.
    let mut from_where =
        format!("FROM ({inner}) y WHERE y.kind = ? AND (y.t IS NULL OR (y.t >= ? AND y.t < ?))");
    args.push(Sql::Text(set.kind.clone()));
    args.push(Sql::Integer(set.since));
    args.push(Sql::Integer(set.until));
    if let Some((ids, id_args)) = few {
        from_where.push_str(&format!(" AND y.id IN ({ids})"));
        args.extend(id_args);
    }
    let spec = Spec {
        select: "y.kind, y.catalogue, y.task_id, y.run_id, y.step, y.tool, y.detail, y.t",
        from_where,
        args,
        key: sort.map_or("y.id", |c| FINDING_SORTS[c.min(FINDING_SORTS.len() - 1)]),
        id: sort.map(|_| "y.id"),
        desc,
        one_pass: None,
    };
    spec.page(conn, anchor, n, &|r| {
        Ok(FindingItem {
            // (Column 0 is the sort key; 1 the id, or the key when that is
            // the id.)
            id: r.get(1)?,
            row: FindingRow {
                kind: r.get(2)?,
                catalogue: r.get(3)?,
                task_id: r.get(4)?,
                run_id: r.get(5)?,
                step: r.get(6)?,
                tool: r.get(7)?,
                detail: r.get(8)?,
            },
            time_us: r.get(9)?,
        })
    })
}

/// The key of a finding in a Findings list.
pub fn finding_key(item: &FindingItem) -> Key {
    (Sql::Integer(item.id), Sql::Integer(item.id))
}

/// Phrases many finding details share, each stored as one control
/// character (schema 4; the `findings` view in `schema_v4.sql` spells
/// them out in the reverse order). Never change a phrase or its
/// character: stored details depend on them.
const PHRASES: &[(u8, &str)] = &[
    (1, ": additionalProperties: not a declared property"),
    (
        2,
        "; it executed anyway (ok): the action boundary let an invalid call through",
    ),
    (
        3,
        " was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: ",
    ),
    (4, " (never seen earlier in the run)"),
    (5, "the arguments of "),
    (6, " fail its schema: "),
    (7, ": required: missing"),
    (8, "; it was refused"),
    (14, "the visible menu changed "),
    (15, " times within the run; first here, after step "),
    (16, ", which was not in the visible menu; "),
    (
        17,
        " executed (ok) in a run whose intent is inform: an inform request changes nothing",
    ),
    (18, "executed (ok)"),
    (19, " (mutating)"),
    (
        20,
        ", which no stage maps; add it to [reasons] in the config",
    ),
    (21, "refused with reason "),
    (22, "; the inline label wins"),
    (23, "inline expected acceptable "),
    (24, " differs from the case "),
    (25, "selected "),
    (26, "; removed "),
    (27, "added "),
];

/// The character that stands for the finding's tool in a packed detail.
const TOOL_MARK: char = '\u{1f}';

/// A detail packed with [`PHRASES`] and its tool, or `None` when it (or
/// its tool) holds a control character a packed detail uses.
pub(super) fn pack_detail(detail: &str, tool: Option<&str>) -> Option<String> {
    let marked = |s: &str| s.chars().any(|c| ('\u{1}'..='\u{1f}').contains(&c));
    if marked(detail) || tool.is_some_and(marked) {
        return None;
    }
    let mut out = match tool {
        Some(t) if !t.is_empty() => detail.replace(t, &TOOL_MARK.to_string()),
        _ => detail.to_string(),
    };
    for ((mark, _), finder) in PHRASES.iter().zip(phrase_finders()) {
        // As `str::replace`: every non-overlapping match, left to right.
        let mut found = finder.find_iter(out.as_bytes()).peekable();
        if found.peek().is_none() {
            continue;
        }
        let mut next = String::with_capacity(out.len());
        let mut last = 0;
        for at in found {
            next.push_str(&out[last..at]);
            next.push(char::from(*mark));
            last = at + finder.needle().len();
        }
        next.push_str(&out[last..]);
        out = next;
    }
    Some(out)
}

/// A packed detail spelled out, as the `findings` view does: each phrase
/// character its phrase, the tool mark the tool (nothing without one),
/// in one pass (no phrase holds a character that stands for another).
pub(super) fn unpack_detail(packed: &str, tool: Option<&str>) -> String {
    static TABLE: std::sync::OnceLock<[Option<&'static str>; 32]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [None; 32];
        for (mark, phrase) in PHRASES {
            t[*mark as usize] = Some(*phrase);
        }
        t
    });
    let mut out = String::with_capacity(packed.len() * 3);
    let mut last = 0;
    for (i, &b) in packed.as_bytes().iter().enumerate() {
        if b >= 32 {
            continue;
        }
        let with = if b == TOOL_MARK as u8 {
            Some(tool.unwrap_or(""))
        } else {
            table[b as usize]
        };
        if let Some(with) = with {
            out.push_str(&packed[last..i]);
            out.push_str(with);
            last = i + 1;
        }
    }
    out.push_str(&packed[last..]);
    out
}

/// A searcher per phrase of [`PHRASES`], in its order, built once.
fn phrase_finders() -> &'static [memchr::memmem::Finder<'static>] {
    static FINDERS: std::sync::OnceLock<Vec<memchr::memmem::Finder<'static>>> =
        std::sync::OnceLock::new();
    FINDERS.get_or_init(|| {
        PHRASES
            .iter()
            .map(|(_, p)| memchr::memmem::Finder::new(p.as_bytes()))
            .collect()
    })
}

/// Stores one finding (its detail packed where it can be). A writer that
/// stores many keeps a [`super::finding_ids::FindingIds`] instead.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_finding(
    conn: &Connection,
    kind: FindingKind,
    catalogue: Option<&str>,
    task_id: Option<&str>,
    run_id: Option<&str>,
    step: Option<i64>,
    tool: Option<&str>,
    detail: &str,
) -> Result<()> {
    super::finding_ids::FindingIds::default()
        .insert(conn, kind, catalogue, task_id, run_id, step, tool, detail)
}

/// Packs the details a schema-3 database holds (the upgrade to schema 4).
pub(crate) fn pack_existing(conn: &Connection) -> Result<()> {
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, Option<String>, String)> = {
            let mut s = conn.prepare_cached(
                "SELECT id, tool, detail FROM finding_rows WHERE id > ?1 AND packed = 0
                 ORDER BY id LIMIT 5000",
            )?;
            s.query_map([after], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = last.0;
        for (id, tool, detail) in rows {
            if let Some(p) = pack_detail(&detail, tool.as_deref()) {
                conn.prepare_cached(
                    "UPDATE finding_rows SET detail = ?2, packed = 1 WHERE id = ?1",
                )?
                .execute(rusqlite::params![id, p])?;
            }
        }
    }
}

#[cfg(test)]
mod packing_tests {
    use super::*;

    /// What `findings` shows of a detail stored with `insert_finding`.
    fn shown(detail: &str, tool: Option<&str>) -> (String, i64) {
        let store = crate::store::Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        insert_finding(
            conn,
            FindingKind::SchemaViolation,
            Some("c1"),
            None,
            Some("r"),
            Some(1),
            tool,
            detail,
        )
        .unwrap();
        let back: String = conn
            .query_row("SELECT detail FROM findings", [], |r| r.get(0))
            .unwrap();
        let packed: i64 = conn
            .query_row("SELECT packed FROM finding_rows", [], |r| r.get(0))
            .unwrap();
        (back, packed)
    }

    /// Every kind rung writes has its row, so that none is lost to the
    /// view's join (a new kind needs a row in the next schema version).
    #[test]
    fn every_kind_is_in_finding_kinds_and_reads_back_by_name() {
        let store = crate::store::Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        for (i, kind) in FindingKind::ALL.iter().enumerate() {
            let catalogue = ["c1", "c2"][i % 2];
            insert_finding(conn, *kind, Some(catalogue), None, None, None, None, "d").unwrap();
        }
        let shown: Vec<(String, String)> = conn
            .prepare("SELECT kind, catalogue FROM findings ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let expected: Vec<(String, String)> = FindingKind::ALL
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str().to_string(), ["c1", "c2"][i % 2].to_string()))
            .collect();
        assert_eq!(shown, expected);
        let ids: (i64, i64) = conn
            .query_row(
                "SELECT count(DISTINCT catalogue), max(typeof(kind) = 'integer') FROM finding_rows",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(ids, (2, 1));
    }

    #[test]
    fn packed_details_read_back_whole() {
        let long = "the arguments of get_alert fail its schema: /id: additionalProperties: not a declared property; /alert_id: required: missing; it executed anyway (ok): the action boundary let an invalid call through";
        for (detail, tool, packed) in [
            (long, Some("get_alert"), 1),
            (long, None, 1),
            (long, Some(""), 1),
            // A tool name that is also part of a phrase.
            (
                "selected added , which was not in the visible menu; executed (ok)",
                Some("added"),
                1,
            ),
            ("no phrase at all", Some("x"), 1),
            // Control characters a packed detail uses: kept as they are.
            ("refused with reason \u{1}x", Some("t"), 0),
            ("the arguments of t", Some("t\u{1f}"), 0),
        ] {
            assert_eq!(
                shown(detail, tool),
                (detail.to_string(), packed),
                "{detail:?}"
            );
        }
        // Every phrase and the tool come back, and the stored text is short.
        let all: String = PHRASES
            .iter()
            .map(|(_, p)| *p)
            .collect::<Vec<_>>()
            .join("tool");
        assert_eq!(shown(&all, Some("tool")).0, all);
        let packed = pack_detail(long, Some("get_alert")).unwrap();
        assert_eq!(packed, "\u{5}\u{1f}\u{6}/id\u{1}; /alert_id\u{7}\u{2}");
    }

    #[test]
    fn details_unpacked_here_read_as_the_view_spells_them() {
        let long = "the arguments of get_alert fail its schema: /id: additionalProperties: not a declared property; /alert_id: required: missing; it executed anyway (ok): the action boundary let an invalid call through";
        assert_eq!(
            unpack_detail(
                &pack_detail(long, Some("get_alert")).unwrap(),
                Some("get_alert")
            ),
            long
        );
        let store = crate::store::Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        // Every phrase mark, the tool mark, and marks no phrase uses (9-13,
        // 28-30 stay as they are), with and without a tool.
        let packed: String = (1u8..32).map(char::from).collect::<String>() + "end";
        for tool in [Some("tl"), None] {
            conn.execute(
                "INSERT OR IGNORE INTO finding_names (name) VALUES ('tl')",
                [],
            )
            .unwrap();
            conn.execute("DELETE FROM finding_rows", []).unwrap();
            conn.execute(
                "INSERT INTO finding_rows (kind, tool, detail, packed)
                 VALUES ((SELECT min(id) FROM finding_kinds),
                         (SELECT id FROM finding_names WHERE name = ?1), ?2, 1)",
                rusqlite::params![tool, packed],
            )
            .unwrap();
            let view: String = conn
                .query_row("SELECT detail FROM findings", [], |r| r.get(0))
                .unwrap();
            assert_eq!(unpack_detail(&packed, tool), view, "{tool:?}");
            assert!(view.ends_with("\u{1c}\u{1d}\u{1e}tlend") || tool.is_none());
        }
    }
}
