//! The queries behind the TUI: keyset pages of runs and decisions, one run's
//! timeline, a decision's menu and payloads, windowed refusals, tool audits.
//! Every page is `WHERE (key, id) > (?, ?) ORDER BY key, id LIMIT n`, never
//! an OFFSET, so the millionth row costs what the first does.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::sync::LazyLock;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::classify::{load_catalogue, parse_list, parse_policy, parse_retrieval};
use super::query::{Filter, FilterSql, FindingRow, RunRow};
use super::{Explained, explain};
use crate::config::Config;
use crate::error::Result;
use crate::ladder::{self, Menu, Sets};
use crate::model::{Label, Policy, Retrieval, Rung};
use crate::window::DAY;

/// A row's position in a keyset order: the sort key and a unique tiebreak.
pub type Key = (Sql, Sql);

/// Where a page starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Anchor {
    First,
    Last,
    /// Rows strictly after this key.
    After(Key),
    /// Rows strictly before this key.
    Before(Key),
    /// A page centred on this key (the row itself included when it exists).
    Around(Key),
}

/// One page of a keyset-ordered list.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub rows: Vec<(Key, T)>,
    /// Rows before `rows[0]` in the whole list, when it was counted.
    pub before: Option<u64>,
    /// All rows of the list, when it was counted.
    pub total: Option<u64>,
    pub more_before: bool,
    pub more_after: bool,
    /// For `Around`: the index of the anchor row (or of the first row after it).
    pub focus: Option<usize>,
}

/// How one list is ordered and filtered.
struct Spec<'a> {
    /// Columns after the key and id (the mapper sees them from index 2).
    select: &'a str,
    /// `FROM ... WHERE ...` without the keyset condition.
    from_where: String,
    args: Vec<Sql>,
    key: &'a str,
    /// A unique tiebreak; `None` when `key` is unique on its own.
    id: Option<&'a str>,
    desc: bool,
}

impl Spec<'_> {
    fn cond(&self, forward: bool, inclusive: bool) -> String {
        // forward = the list's own direction.
        let up = forward != self.desc;
        let op = match (up, inclusive) {
            (true, false) => ">",
            (true, true) => ">=",
            (false, false) => "<",
            (false, true) => "<=",
        };
        match self.id {
            Some(id) => format!(" AND ({}, {id}) {op} (?, ?)", self.key),
            None => format!(" AND {} {op} ?", self.key),
        }
    }

    fn order(&self, forward: bool) -> String {
        let dir = if forward != self.desc { "ASC" } else { "DESC" };
        match self.id {
            Some(id) => format!("ORDER BY {} {dir}, {id} {dir}", self.key),
            None => format!("ORDER BY {} {dir}", self.key),
        }
    }

    fn key_args(&self, k: &Key) -> Vec<Sql> {
        match self.id {
            Some(_) => vec![k.0.clone(), k.1.clone()],
            None => vec![k.0.clone()],
        }
    }

    fn id_expr(&self) -> &str {
        self.id.unwrap_or(self.key)
    }

    /// Up to `n` rows from `from` (exclusive unless `inclusive`), in the
    /// list's order when `forward`, else backwards; plus whether more follow.
    fn fetch<T>(
        &self,
        conn: &Connection,
        from: Option<&Key>,
        inclusive: bool,
        forward: bool,
        n: usize,
        map: &dyn Fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<(Vec<(Key, T)>, bool)> {
        let mut sql = format!(
            "SELECT {}, {}, {} {}",
            self.key,
            self.id_expr(),
            self.select,
            self.from_where
        );
        let mut args = self.args.clone();
        if let Some(k) = from {
            sql.push_str(&self.cond(forward, inclusive));
            args.extend(self.key_args(k));
        }
        sql.push(' ');
        sql.push_str(&self.order(forward));
        sql.push_str(&format!(" LIMIT {}", n + 1));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        let mut out = Vec::with_capacity(n + 1);
        while let Some(r) = rows.next()? {
            let key: Sql = r.get(0)?;
            let id: Sql = r.get(1)?;
            out.push(((key, id), map(r)?));
        }
        let more = out.len() > n;
        out.truncate(n);
        Ok((out, more))
    }

    fn count(&self, conn: &Connection, before: Option<&Key>) -> Result<u64> {
        let mut sql = format!("SELECT count(*) {}", self.from_where);
        let mut args = self.args.clone();
        if let Some(k) = before {
            sql.push_str(&self.cond(false, false));
            args.extend(self.key_args(k));
        }
        let n: i64 = conn
            .prepare_cached(&sql)?
            .query_row(params_from_iter(args), |r| r.get(0))?;
        Ok(n as u64)
    }

    fn page<T>(
        &self,
        conn: &Connection,
        anchor: &Anchor,
        n: usize,
        map: &dyn Fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Page<T>> {
        let n = n.max(1);
        Ok(match anchor {
            Anchor::First => {
                let (rows, more_after) = self.fetch(conn, None, false, true, n, map)?;
                let total = if more_after {
                    self.count(conn, None)?
                } else {
                    rows.len() as u64
                };
                Page {
                    rows,
                    before: Some(0),
                    total: Some(total),
                    more_before: false,
                    more_after,
                    focus: None,
                }
            }
            Anchor::Last => {
                let (mut rows, more_before) = self.fetch(conn, None, false, false, n, map)?;
                rows.reverse();
                let total = if more_before {
                    self.count(conn, None)?
                } else {
                    rows.len() as u64
                };
                Page {
                    before: Some(total - rows.len() as u64),
                    rows,
                    total: Some(total),
                    more_before,
                    more_after: false,
                    focus: None,
                }
            }
            Anchor::After(k) => {
                let (rows, more_after) = self.fetch(conn, Some(k), false, true, n, map)?;
                Page {
                    rows,
                    before: None,
                    total: None,
                    more_before: true,
                    more_after,
                    focus: None,
                }
            }
            Anchor::Before(k) => {
                let (mut rows, more_before) = self.fetch(conn, Some(k), false, false, n, map)?;
                rows.reverse();
                Page {
                    rows,
                    before: None,
                    total: None,
                    more_before,
                    more_after: true,
                    focus: None,
                }
            }
            Anchor::Around(k) => {
                let half = n / 2;
                let (mut rows, more_before) = self.fetch(conn, Some(k), false, false, half, map)?;
                rows.reverse();
                let focus = rows.len();
                let (after, more_after) = self.fetch(conn, Some(k), true, true, n - half, map)?;
                rows.extend(after);
                let before = if more_before {
                    self.count(conn, rows.first().map(|r| &r.0))?
                } else {
                    0
                };
                let total = if more_after || more_before {
                    self.count(conn, None)?
                } else {
                    rows.len() as u64
                };
                Page {
                    rows,
                    before: Some(before),
                    total: Some(total),
                    more_before,
                    more_after,
                    focus: Some(focus),
                }
            }
        })
    }
}

/// Lowers this connection's page cache: the TUI keeps several readers open
/// and must stay small.
pub fn tune_reader(conn: &Connection) -> Result<()> {
    conn.execute_batch("PRAGMA cache_size = -16384;")?;
    Ok(())
}

/// `WHERE` text over `runs r`: the run-level filters, and when decision-level
/// ones are set, runs with at least one matching decision.
fn runs_where(f: &Filter) -> (String, Vec<Sql>) {
    let mut g = f.clone();
    g.since = None;
    g.until = None;
    g.catalogues.clear();
    g.phases.clear();
    let (mut clause, mut args) = g.run_clause();
    if f.has_decision_filter() {
        let (dc, da) = f.decision_clause();
        clause.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM ladder l WHERE l.run_id = r.run_id AND {dc})"
        ));
        args.extend(da);
    }
    (format!("FROM runs r WHERE {clause}"), args)
}

// ---- runs ---------------------------------------------------------------

/// The columns the runs table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunSort {
    Id,
    Task,
    Trial,
    Model,
    Decisions,
    FirstFailed,
    Success,
    Harm,
}

impl RunSort {
    pub const ALL: [RunSort; 8] = [
        RunSort::Id,
        RunSort::Task,
        RunSort::Trial,
        RunSort::Model,
        RunSort::Decisions,
        RunSort::FirstFailed,
        RunSort::Success,
        RunSort::Harm,
    ];

    /// A total, NULL-free sort key (keyset comparisons cannot see NULLs).
    fn key(self) -> &'static str {
        match self {
            RunSort::Id => "r.run_id",
            RunSort::Task => "COALESCE(r.task_id, '')",
            RunSort::Trial => "COALESCE(r.trial, -1)",
            RunSort::Model => "COALESCE(r.model, '')",
            RunSort::Decisions => "r.decisions",
            RunSort::FirstFailed => RUNG_ORDER.as_str(),
            RunSort::Success => "COALESCE(r.success, -1)",
            RunSort::Harm => "COALESCE(r.harm, -1)",
        }
    }
}

/// Ladder order of `r.first_failed_rung` (none last), written from
/// [`Rung::failed_order`] so that it agrees with [`run_key`].
static RUNG_ORDER: LazyLock<String> = LazyLock::new(|| {
    let mut sql = String::from("CASE r.first_failed_rung");
    for r in Rung::ALL.iter().filter(|r| **r != Rung::Passed) {
        sql.push_str(&format!(
            " WHEN '{}' THEN {}",
            r.as_str(),
            Rung::failed_order(Some(*r))
        ));
    }
    sql.push_str(&format!(" ELSE {} END", Rung::NOT_FAILED_ORDER));
    sql
});

const RUN_COLUMNS: &str = "r.run_id, r.task_id, r.trial, r.model, r.catalogue, r.decisions, \
r.first_failed_rung, r.success, r.harm";

fn run_row(r: &Row<'_>, at: usize) -> rusqlite::Result<RunRow> {
    Ok(RunRow {
        run_id: r.get(at)?,
        task_id: r.get(at + 1)?,
        trial: r.get(at + 2)?,
        model: r.get(at + 3)?,
        catalogue: r.get(at + 4)?,
        decisions: r.get::<_, i64>(at + 5)? as u64,
        first_failed_rung: r.get(at + 6)?,
        success: r.get(at + 7)?,
        harm: r.get(at + 8)?,
    })
}

/// One page of runs in the filter, sorted by `sort`. With decision-level
/// filters (window, phase, catalogue) a run is listed when one of its
/// decisions matches; its counts stay whole-run.
pub fn runs_page(
    conn: &Connection,
    f: &Filter,
    sort: RunSort,
    desc: bool,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<RunRow>> {
    let (from_where, args) = runs_where(f);
    let spec = Spec {
        select: RUN_COLUMNS,
        from_where,
        args,
        key: sort.key(),
        id: (sort != RunSort::Id).then_some("r.run_id"),
        desc,
    };
    spec.page(conn, anchor, n, &|r| run_row(r, 2))
}

/// The sort key of a run row, for anchoring a page on it.
pub fn run_key(row: &RunRow, sort: RunSort) -> Key {
    let text = |s: &Option<String>| Sql::Text(s.clone().unwrap_or_default());
    let b = |v: Option<bool>| Sql::Integer(v.map(i64::from).unwrap_or(-1));
    let key = match sort {
        RunSort::Id => Sql::Text(row.run_id.clone()),
        RunSort::Task => text(&row.task_id),
        RunSort::Trial => Sql::Integer(row.trial.unwrap_or(-1)),
        RunSort::Model => text(&row.model),
        RunSort::Decisions => Sql::Integer(row.decisions as i64),
        RunSort::FirstFailed => Sql::Integer(Rung::failed_order(
            row.first_failed_rung.as_deref().and_then(Rung::parse),
        )),
        RunSort::Success => b(row.success),
        RunSort::Harm => b(row.harm),
    };
    (key, Sql::Text(row.run_id.clone()))
}

/// Orders two sort keys as SQLite's `ORDER BY` does (integers before
/// text), so rows sorted in memory agree with the pages.
pub fn cmp_key(a: &Key, b: &Key) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let one = |x: &Sql, y: &Sql| match (x, y) {
        (Sql::Integer(p), Sql::Integer(q)) => p.cmp(q),
        (Sql::Text(p), Sql::Text(q)) => p.cmp(q),
        (Sql::Integer(_), _) => Ordering::Less,
        (_, Sql::Integer(_)) => Ordering::Greater,
        _ => Ordering::Equal,
    };
    one(&a.0, &b.0).then_with(|| one(&a.1, &b.1))
}

/// A run with its goal, as the fuzzy filter sees it.
#[derive(Debug, Clone)]
pub struct RunText {
    pub row: RunRow,
    pub goal: Option<String>,
}

/// Streams every run in the filter (by `run_id`) to `visit` until it breaks.
pub fn scan_runs(
    conn: &Connection,
    f: &Filter,
    visit: &mut dyn FnMut(RunText) -> ControlFlow<()>,
) -> Result<()> {
    let (from_where, args) = runs_where(f);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS}, r.goal {from_where} ORDER BY r.run_id"
    ))?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let t = RunText {
            row: run_row(r, 0)?,
            goal: r.get(9)?,
        };
        if visit(t).is_break() {
            break;
        }
    }
    Ok(())
}

/// Everything the Run screen's header shows about a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunHeader {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<i64>,
    pub goal: Option<String>,
    pub intent: Option<String>,
    pub model: Option<String>,
    pub catalogue: Option<String>,
    pub terminated: Option<String>,
    pub success: Option<bool>,
    pub harm: Option<bool>,
    pub started_at: Option<String>,
    pub decisions: u64,
    pub first_failed_rung: Option<String>,
}

pub fn run_header(conn: &Connection, run_id: &str) -> Result<Option<RunHeader>> {
    Ok(conn
        .prepare_cached(
            "SELECT run_id, task_id, trial, goal, intent, model, catalogue, terminated, success,
                    harm, started_at, decisions, first_failed_rung
             FROM runs WHERE run_id = ?1",
        )?
        .query_row([run_id], |r| {
            Ok(RunHeader {
                run_id: r.get(0)?,
                task_id: r.get(1)?,
                trial: r.get(2)?,
                goal: r.get(3)?,
                intent: r.get(4)?,
                model: r.get(5)?,
                catalogue: r.get(6)?,
                terminated: r.get(7)?,
                success: r.get(8)?,
                harm: r.get(9)?,
                started_at: r.get(10)?,
                decisions: r.get::<_, i64>(11)? as u64,
                first_failed_rung: r.get(12)?,
            })
        })
        .optional()?)
}

// ---- decisions ----------------------------------------------------------

/// One decision as lists and the run timeline show it.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRow {
    pub decision_id: i64,
    pub run_id: String,
    pub step: i64,
    pub turn: i64,
    pub phase: Option<String>,
    pub selected: Option<String>,
    pub rung: String,
    pub status: Option<String>,
    pub reason: Option<String>,
    pub boundary: Option<String>,
    pub progress: Option<String>,
    /// The label's acceptable names (empty when unlabelled).
    pub acceptable: Vec<String>,
    pub labelled: bool,
    pub time_us: Option<i64>,
    pub violated: bool,
}

const DECISION_COLUMNS: &str = "l.decision_id, l.run_id, l.step, l.turn, l.phase, l.selected, \
l.rung, l.status, l.reason, l.boundary, l.progress, l.acceptable, l.time_us, l.violated";

fn decision_row(r: &Row<'_>, at: usize) -> rusqlite::Result<DecisionRow> {
    let acceptable: Option<String> = r.get(at + 11)?;
    Ok(DecisionRow {
        decision_id: r.get(at)?,
        run_id: r.get(at + 1)?,
        step: r.get(at + 2)?,
        turn: r.get(at + 3)?,
        phase: r.get(at + 4)?,
        selected: r.get(at + 5)?,
        rung: r.get(at + 6)?,
        status: r.get(at + 7)?,
        reason: r.get(at + 8)?,
        boundary: r.get(at + 9)?,
        progress: r.get(at + 10)?,
        labelled: acceptable.is_some(),
        acceptable: acceptable
            .and_then(|a| serde_json::from_str(&a).ok())
            .unwrap_or_default(),
        time_us: r.get(at + 12)?,
        violated: r.get(at + 13)?,
    })
}

/// Which decisions a decision list shows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DecisionSet {
    /// Decisions whose first failed rung is this one (`passed` too).
    Rung(String),
    /// A confusion cell: SELECTION failures with this acceptable set (sorted)
    /// that selected this tool (`None`: no call).
    Cell {
        acceptable: Vec<String>,
        selected: Option<String>,
    },
    /// Refusals with this reason and stage in `[since, until)`.
    Refusal {
        reason: Option<String>,
        stage: String,
        since: i64,
        until: i64,
    },
}

fn decision_spec<'a>(f: &Filter, set: &DecisionSet) -> Spec<'a> {
    let (clause, mut args) = f.decision_clause();
    let mut from_where = format!("FROM ladder l JOIN runs r ON r.run_id = l.run_id WHERE {clause}");
    let (key, id) = match set {
        DecisionSet::Rung(rung) => {
            from_where.push_str(" AND l.rung = ?");
            args.push(Sql::Text(rung.clone()));
            ("l.decision_id", None)
        }
        DecisionSet::Cell {
            acceptable,
            selected,
        } => {
            from_where
                .push_str(" AND l.rung = 'selection' AND l.acceptable = ? AND l.selected IS ?");
            args.push(Sql::Text(
                serde_json::to_string(acceptable).expect("serialises"),
            ));
            args.push(selected.clone().map(Sql::Text).unwrap_or(Sql::Null));
            ("l.decision_id", None)
        }
        DecisionSet::Refusal {
            reason,
            stage,
            since,
            until,
        } => {
            from_where.push_str(
                " AND l.status = 'refused' AND l.reason IS ? AND COALESCE(l.boundary, 'unclassified') = ?
                  AND l.time_us >= ? AND l.time_us < ?",
            );
            args.push(reason.clone().map(Sql::Text).unwrap_or(Sql::Null));
            args.push(Sql::Text(stage.clone()));
            args.push(Sql::Integer(*since));
            args.push(Sql::Integer(*until));
            ("l.time_us", Some("l.decision_id"))
        }
    };
    Spec {
        select: DECISION_COLUMNS,
        from_where,
        args,
        key,
        id,
        desc: false,
    }
}

/// One page of a decision list.
pub fn decisions_page(
    conn: &Connection,
    f: &Filter,
    set: &DecisionSet,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    decision_spec(f, set).page(conn, anchor, n, &|r| decision_row(r, 2))
}

/// The key of a decision row within `set`.
pub fn decision_key(row: &DecisionRow, set: &DecisionSet) -> Key {
    match set {
        DecisionSet::Refusal { .. } => (
            row.time_us.map(Sql::Integer).unwrap_or(Sql::Null),
            Sql::Integer(row.decision_id),
        ),
        _ => (Sql::Integer(row.decision_id), Sql::Integer(row.decision_id)),
    }
}

fn timeline_spec<'a>(f: &Filter, run_id: &str) -> Spec<'a> {
    let (clause, mut args) = f.decision_clause();
    args.insert(0, Sql::Text(run_id.to_string()));
    Spec {
        select: DECISION_COLUMNS,
        from_where: format!(
            "FROM ladder l JOIN runs r ON r.run_id = l.run_id WHERE l.run_id = ? AND {clause}"
        ),
        args,
        key: "l.step",
        id: None,
        desc: false,
    }
}

/// One page of a run's decisions (those in the filter), by step.
pub fn timeline_page(
    conn: &Connection,
    f: &Filter,
    run_id: &str,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    timeline_spec(f, run_id).page(conn, anchor, n, &|r| decision_row(r, 2))
}

/// The key of a step in a run's timeline.
pub fn step_key(step: i64) -> Key {
    (Sql::Integer(step), Sql::Integer(step))
}

/// The next (or previous) decision of the run in the filter that did not pass.
pub fn next_failing(
    conn: &Connection,
    f: &Filter,
    run_id: &str,
    step: i64,
    forward: bool,
) -> Result<Option<i64>> {
    let (clause, mut args) = f.decision_clause();
    args.insert(0, Sql::Text(run_id.to_string()));
    args.insert(1, Sql::Integer(step));
    let (op, dir) = if forward { (">", "ASC") } else { ("<", "DESC") };
    Ok(conn
        .prepare_cached(&format!(
            "SELECT l.step FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE l.run_id = ? AND l.step {op} ? AND l.rung <> 'passed' AND {clause}
             ORDER BY l.step {dir} LIMIT 1"
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))
        .optional()?)
}

/// The decision id of (run, step).
pub fn decision_id(conn: &Connection, run_id: &str, step: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT id FROM decisions WHERE run_id = ?1 AND step = ?2")?
        .query_row(params![run_id, step], |r| r.get(0))
        .optional()?)
}

// ---- one decision -------------------------------------------------------

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

/// A stored payload of a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadColumn {
    Arguments,
    Result,
    Raw,
}

impl PayloadColumn {
    pub fn as_str(self) -> &'static str {
        match self {
            PayloadColumn::Arguments => "arguments",
            PayloadColumn::Result => "result",
            PayloadColumn::Raw => "raw",
        }
    }

    fn column(self) -> &'static std::ffi::CStr {
        match self {
            PayloadColumn::Arguments => c"arguments",
            PayloadColumn::Result => c"result",
            PayloadColumn::Raw => c"raw",
        }
    }
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
}

/// A decision's menu fields with the run's inherited where it records none.
struct MenuRow {
    catalogue: Option<String>,
    policy: Option<Policy>,
    controls: Vec<String>,
    retrieval: Option<Retrieval>,
    exposed: Option<Vec<String>>,
    visible: Option<Vec<String>>,
    retrieved: Vec<String>,
    label: Option<Label>,
    selected: Option<String>,
}

const MENU_SELECT: &str = "COALESCE(d.catalogue, r.catalogue), COALESCE(d.policy, r.policy), \
COALESCE(d.trusted_controls, r.trusted_controls), COALESCE(d.retrieval, r.retrieval), d.exposed, \
COALESCE(d.visible, r.visible), l.retrieved, l.acceptable, l.forbidden, d.selected";

fn menu_row(r: &Row<'_>, at: usize) -> rusqlite::Result<MenuRow> {
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

/// Byte length of a stored payload without reading it.
pub fn payload_bytes(conn: &Connection, decision_id: i64, col: PayloadColumn) -> Option<u64> {
    conn.blob_open(
        rusqlite::MAIN_DB,
        c"payloads",
        col.column(),
        decision_id,
        true,
    )
    .ok()
    .map(|b| b.len() as u64)
}

/// An open payload for reading piece by piece. Keep one open while reading
/// a payload in sequence: SQLite remembers where it is in the value's
/// overflow pages, while a fresh handle walks them from the start.
pub struct PayloadReader<'c> {
    blob: rusqlite::blob::Blob<'c>,
}

impl<'c> PayloadReader<'c> {
    pub fn open(conn: &'c Connection, decision_id: i64, col: PayloadColumn) -> Result<Self> {
        let blob = conn.blob_open(
            rusqlite::MAIN_DB,
            c"payloads",
            col.column(),
            decision_id,
            true,
        )?;
        Ok(PayloadReader { blob })
    }

    pub fn len(&self) -> u64 {
        self.blob.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Up to `len` bytes from byte `offset`.
    pub fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let size = self.len();
        let start = offset.min(size);
        let n = (len as u64).min(size - start) as usize;
        let mut buf = vec![0u8; n];
        self.blob.read_at_exact(&mut buf, start as usize)?;
        Ok(buf)
    }
}

/// Up to `len` bytes of a stored payload from byte `offset` (incremental
/// blob I/O: a 100 MB result is never read whole).
pub fn payload_read(
    conn: &Connection,
    decision_id: i64,
    col: PayloadColumn,
    offset: u64,
    len: usize,
) -> Result<Vec<u8>> {
    let blob = conn.blob_open(
        rusqlite::MAIN_DB,
        c"payloads",
        col.column(),
        decision_id,
        true,
    )?;
    let size = blob.len() as u64;
    let start = offset.min(size);
    let n = (len as u64).min(size - start) as usize;
    let mut buf = vec![0u8; n];
    blob.read_at_exact(&mut buf, start as usize)?;
    Ok(buf)
}

/// The Run screen's detail of one decision: explain's walk and tool rules,
/// the menu in recorded order with retrieval ranks, payload sizes.
pub fn decision_detail(conn: &Connection, config: &Config, decision_id: i64) -> Result<Detail> {
    let (run_id, step, at, latency_ms, stage, m): (
        String,
        i64,
        Option<String>,
        Option<f64>,
        Option<String>,
        MenuRow,
    ) = conn
        .prepare_cached(&format!(
            "SELECT l.run_id, l.step, d.at, d.latency_ms, l.boundary, {MENU_SELECT}
             FROM ladder l JOIN decisions d ON d.id = l.decision_id
             LEFT JOIN runs r ON r.run_id = l.run_id WHERE l.decision_id = ?1"
        ))?
        .query_row([decision_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                menu_row(r, 5)?,
            ))
        })?;
    let explained = explain(conn, config, &run_id, step)?;
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
    })
}

// ---- refusals -----------------------------------------------------------

/// Refusals in `[since, until)` and in the window of the same length before
/// it (for `previous`), read through the time index; plus the undated count.
pub fn refusal_items(
    conn: &Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<(Vec<crate::metrics::Refusal>, u64)> {
    let (clause, mut args) = f.without_window().decision_clause();
    let prev = since - (until - since);
    let mut all = args.clone();
    all.push(Sql::Integer(prev));
    all.push(Sql::Integer(until));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT l.reason, COALESCE(l.boundary, 'unclassified'), l.run_id, l.time_us
         FROM ladder l JOIN runs r ON r.run_id = l.run_id
         WHERE {clause} AND l.status = 'refused' AND l.time_us >= ? AND l.time_us < ?"
    ))?;
    let items = stmt
        .query_map(params_from_iter(all), |r| {
            Ok(crate::metrics::Refusal {
                reason: r.get(0)?,
                stage: r.get(1)?,
                run_id: r.get(2)?,
                time_us: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let undated: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE {clause} AND l.status = 'refused' AND l.time_us IS NULL"
        ))?
        .query_row(params_from_iter(std::mem::take(&mut args)), |r| r.get(0))?;
    Ok((items, undated as u64))
}

/// The time of the latest dated refusal in the filter.
pub fn latest_refusal(conn: &Connection, f: &Filter) -> Result<Option<i64>> {
    let (clause, args) = f.without_window().decision_clause();
    Ok(conn
        .prepare_cached(&format!(
            "SELECT l.time_us FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE {clause} AND l.status = 'refused' AND l.time_us IS NOT NULL
             ORDER BY l.time_us DESC LIMIT 1"
        ))?
        .query_row(params_from_iter(args), |r| r.get(0))
        .optional()?)
}

/// Refusals per day over `days` days ending at `until` (oldest first).
pub fn refusals_per_day(conn: &Connection, f: &Filter, until: i64, days: u32) -> Result<Vec<u64>> {
    let since = until - DAY * days as i64;
    let (clause, mut args) = f.without_window().decision_clause();
    args.push(Sql::Integer(since));
    args.push(Sql::Integer(until));
    let mut out = vec![0u64; days as usize];
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT (l.time_us - {since}) / {DAY}, count(*) FROM ladder l JOIN runs r ON r.run_id = l.run_id
         WHERE {clause} AND l.status = 'refused' AND l.time_us >= ? AND l.time_us < ?
         GROUP BY 1"
    ))?;
    let mut rows = stmt.query(params_from_iter(args))?;
    while let Some(r) = rows.next()? {
        let day: i64 = r.get(0)?;
        let n: i64 = r.get(1)?;
        if let Some(slot) = out.get_mut(day as usize) {
            *slot = n as u64;
        }
    }
    Ok(out)
}

// ---- tools --------------------------------------------------------------

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
    let def = conn
        .prepare_cached(
            "SELECT family, effect, open_world, idempotent, record FROM tools
             WHERE catalogue = ?1 AND name = ?2",
        )?
        .query_row(params![catalogue, name], |r| {
            let record: String = r.get(4)?;
            Ok(ToolDef {
                catalogue: catalogue.to_string(),
                name: name.to_string(),
                family: r.get(0)?,
                effect: r.get(1)?,
                open_world: r.get(2)?,
                idempotent: r.get(3)?,
                record: serde_json::from_str(&record).unwrap_or(serde_json::Value::Null),
                drift: Vec::new(),
            })
        })
        .optional()?;
    let Some(mut def) = def else {
        return Ok(None);
    };
    def.drift = conn
        .prepare_cached(
            "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
             WHERE catalogue = ?1 AND tool = ?2 AND run_id IS NULL ORDER BY kind, detail",
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
    /// Decisions examined.
    pub examined: u64,
    /// Decisions on the catalogue in the filter (`examined` < this: capped).
    pub total: u64,
}

/// Walks the exposure rules for `name` over (at most `cap`) decisions on
/// `catalogue` in the filter, in decision order, and counts each rule.
pub fn tool_audit(
    conn: &Connection,
    f: &Filter,
    catalogue: &str,
    name: &str,
    cap: u64,
    cancelled: &dyn Fn() -> bool,
) -> Result<ToolAudit> {
    let Some(cat) = load_catalogue(conn, catalogue)? else {
        return Ok(ToolAudit {
            rules: Vec::new(),
            examined: 0,
            total: 0,
        });
    };
    let Some(info) = cat.tools.get(name).cloned() else {
        return Ok(ToolAudit {
            rules: Vec::new(),
            examined: 0,
            total: 0,
        });
    };
    let (clause, mut args) = f.decision_clause();
    args.insert(0, Sql::Text(catalogue.to_string()));
    let total: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM ladder l JOIN runs r ON r.run_id = l.run_id
             WHERE l.catalogue = ? AND {clause}"
        ))?
        .query_row(params_from_iter(args.clone()), |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {MENU_SELECT} FROM ladder l JOIN decisions d ON d.id = l.decision_id
         JOIN runs r ON r.run_id = l.run_id
         WHERE l.catalogue = ? AND {clause} ORDER BY l.decision_id LIMIT {cap}"
    ))?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let mut counts: BTreeMap<(bool, String), (u64, String)> = BTreeMap::new();
    let mut examined = 0u64;
    while let Some(r) = rows.next()? {
        if examined.is_multiple_of(1024) && cancelled() {
            break;
        }
        let m = menu_row(r, 0)?;
        // Rules 1-6 for one tool look at no other tool except through the
        // ranks, which depend only on the recorded candidates: a view of the
        // catalogue with the tool and the candidates gives the same answer
        // as the whole catalogue, at the cost of k tools instead of all.
        let mut view = ladder::CatalogueView {
            version: cat.version.clone(),
            abstain: cat.abstain.clone(),
            tools: BTreeMap::new(),
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
        examined += 1;
        let tools = ladder::explain_tools(menu, m.label.as_ref(), m.selected.as_deref());
        if let Some(t) = tools.into_iter().find(|t| t.name == name) {
            let e = counts
                .entry((t.visible, t.rule.as_str().to_string()))
                .or_insert_with(|| (0, t.why));
            e.0 += 1;
        }
    }
    let mut rules: Vec<RuleCount> = counts
        .into_iter()
        .map(|((visible, rule), (decisions, example))| RuleCount {
            visible,
            rule,
            decisions,
            example,
        })
        .collect();
    rules.sort_by(|a, b| b.decisions.cmp(&a.decisions).then(a.rule.cmp(&b.rule)));
    Ok(ToolAudit {
        rules,
        examined,
        total: total as u64,
    })
}

// ---- the filter bar -----------------------------------------------------

/// Known values for the filter bar's fields (a few of each, most common first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterHints {
    pub models: Vec<String>,
    pub catalogues: Vec<String>,
    pub phases: Vec<String>,
    pub tags: Vec<String>,
}

pub fn filter_hints(conn: &Connection) -> Result<FilterHints> {
    let list = |sql: &str| -> Result<Vec<String>> {
        Ok(conn
            .prepare_cached(sql)?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?)
    };
    Ok(FilterHints {
        models: list(
            "SELECT model FROM runs WHERE model IS NOT NULL GROUP BY model ORDER BY count(*) DESC, model LIMIT 12",
        )?,
        catalogues: list("SELECT version FROM catalogues ORDER BY version LIMIT 12")?,
        // Phases are few: a bounded sample of the ladder is enough to name them.
        phases: list(
            "SELECT phase FROM (SELECT phase FROM ladder WHERE phase IS NOT NULL LIMIT 200000)
             GROUP BY phase ORDER BY count(*) DESC, phase LIMIT 12",
        )?,
        tags: list(
            "SELECT t.key || '=' || t.value FROM (SELECT tags FROM runs WHERE tags IS NOT NULL LIMIT 20000) x,
                    json_each(x.tags) t
             GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 12",
        )?,
    })
}

/// Whether the database holds any decision at all.
pub fn is_empty(conn: &Connection) -> Result<bool> {
    let any: Option<i64> = conn
        .query_row("SELECT 1 FROM ladder LIMIT 1", [], |r| r.get(0))
        .optional()?;
    Ok(any.is_none())
}

#[cfg(test)]
mod tests;
