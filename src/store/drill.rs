//! Drill-downs: the decisions behind every count the TUI shows, as named
//! queries paged by keyset. The rung, confusion cell and refusal group
//! lists live in `decisions` ([`DecisionSet`]); this file adds the others —
//! a boundary count, a day of refusals, a tool's visible / selected /
//! refused counts and a rule row of a tool's "why visible" audit — and
//! [`drill_page`], one entry point for all of them.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use super::decisions::{DECISION_COLUMNS, DecisionRow, DecisionSet, decision_row, decisions_page};
use super::filter_sql::FilterSql;
use super::paging::{Anchor, Key, Page, Spec};
use super::refusals::refused;
use super::rule_scan::{RuleScan, scan_sql};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::model::Rule;

/// Which of a tool's counts (the Tools screen's columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCount {
    /// Decisions on its catalogue whose retrieved set held the tool.
    Visible,
    /// Decisions that selected it.
    Selected,
    /// Decisions that selected it and were refused.
    Refused,
}

impl ToolCount {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCount::Visible => "visible",
            ToolCount::Selected => "selected",
            ToolCount::Refused => "refused",
        }
    }
}

/// The decisions behind one number on screen.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Drill {
    /// A rung, a confusion cell or a refusal group.
    Set(DecisionSet),
    /// Decisions whose boundary is this stage (the Ladder's bndry column).
    Boundary(String),
    /// Refusals in `[since, until)` (a day of the Refusals sparkline; the
    /// screen's window ignores the filter's own).
    RefusalDay { since: i64, until: i64 },
    /// A tool's visible, selected or refused count.
    Tool {
        catalogue: String,
        name: String,
        count: ToolCount,
    },
    /// The decisions on which one exposure rule made a tool visible (or hid
    /// it), among every decision on the catalogue.
    Rule {
        catalogue: String,
        name: String,
        visible: bool,
        rule: String,
        /// How many there are, as the tool's audit counted them (the list's
        /// total and positions); `None`: counted with a page that shows them.
        decisions: Option<u64>,
    },
}

/// One page of the decisions behind `drill`, by decision order (time order
/// for refusals).
pub fn drill_page(
    conn: &Connection,
    f: &Filter,
    drill: &Drill,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    match drill {
        Drill::Set(set) => decisions_page(conn, f, set, anchor, n),
        Drill::Rule {
            catalogue,
            name,
            visible,
            rule,
            decisions,
        } => {
            let scan = RuleScan::new(conn, catalogue, name)?;
            let (Some(scan), Some(want)) = (scan, Rule::parse(rule)) else {
                return Ok(no_rows());
            };
            let Some(catalogue_id) = scan.catalogue_id else {
                return Ok(no_rows());
            };
            let mut seek = RuleSeek {
                scan,
                f,
                catalogue_id,
                want: (*visible, want),
            };
            seek.page(conn, anchor, n.max(1), *decisions)
        }
        _ => match spec(f, drill) {
            Some(spec) => spec.page_counted(
                conn,
                anchor,
                n,
                &|r| decision_row(conn, r, 2),
                known_total(conn, f, drill)?,
            ),
            None => Err(Error::usage("this decision list has no query")),
        },
    }
}

/// How many decisions a drill lists, from the counts kept for the screens
/// when they answer it (`None`: counted with the page).
fn known_total(conn: &Connection, f: &Filter, drill: &Drill) -> Result<Option<u64>> {
    use super::agg::read as agg;
    let Some(s) = agg::scope(conn, f)? else {
        return Ok(None);
    };
    Ok(match drill {
        Drill::Boundary(stage) => Some(
            agg::boundaries(conn, &s)?
                .into_iter()
                .find(|(b, _)| b == stage)
                .map_or(0, |(_, n)| n),
        ),
        Drill::Tool {
            catalogue,
            name,
            count,
        } => {
            let (sums, _) = agg::tools(conn, &s)?;
            let c = sums
                .get(&(catalogue.clone(), name.clone()))
                .copied()
                .unwrap_or_default();
            Some(match count {
                ToolCount::Visible => c[0],
                ToolCount::Selected => c[1],
                ToolCount::Refused => c[3],
            })
        }
        _ => None,
    })
}

/// The key of a row within `drill` (to page around it).
pub fn drill_key(row: &DecisionRow, drill: &Drill) -> Key {
    match drill {
        Drill::Set(set) => super::decisions::decision_key(row, set),
        Drill::RefusalDay { .. } => (
            row.time_us.map(Sql::Integer).unwrap_or(Sql::Null),
            Sql::Integer(row.decision_id),
        ),
        _ => (Sql::Integer(row.decision_id), Sql::Integer(row.decision_id)),
    }
}

/// The query of a drill read straight from SQL (`None`: paged elsewhere).
fn spec<'a>(f: &Filter, drill: &Drill) -> Option<Spec<'a>> {
    let (clause, mut args) = match drill {
        Drill::RefusalDay { .. } => f.without_window().decision_clause(),
        _ => f.decision_clause(),
    };
    let mut from_where = format!("FROM ladder l JOIN runs r ON r.run_id = l.run_id WHERE {clause}");
    let mut key = ("l.decision_id", None);
    match drill {
        Drill::Boundary(stage) => {
            from_where.push_str(" AND l.boundary = ?");
            args.push(Sql::Text(stage.clone()));
        }
        Drill::RefusalDay { since, until } => {
            from_where.push_str(&format!(
                " AND {} AND l.time_us >= ? AND l.time_us < ?",
                refused()
            ));
            args.push(Sql::Integer(*since));
            args.push(Sql::Integer(*until));
            key = ("l.time_us", Some("l.decision_id"));
        }
        Drill::Tool {
            catalogue,
            name,
            count,
        } => {
            args.push(Sql::Text(catalogue.clone()));
            args.push(Sql::Text(name.clone()));
            from_where.push_str(&match count {
                ToolCount::Visible => " AND l.catalogue = ? AND EXISTS \
                     (SELECT 1 FROM json_each(l.retrieved) j \
                     WHERE j.value = (SELECT id FROM tool_names WHERE name = ?))"
                    .to_string(),
                ToolCount::Selected => " AND l.catalogue = ? AND l.selected = ?".to_string(),
                ToolCount::Refused => {
                    format!(" AND l.catalogue = ? AND l.selected = ? AND {}", refused())
                }
            });
        }
        Drill::Set(_) | Drill::Rule { .. } => return None,
    }
    Some(Spec {
        select: DECISION_COLUMNS,
        from_where,
        args,
        key: key.0,
        id: key.1,
        desc: false,
        one_pass: None,
    })
}

/// A list with nothing in it (a tool or rule the catalogue does not know).
fn no_rows() -> Page<DecisionRow> {
    Page {
        rows: Vec::new(),
        before: Some(0),
        total: Some(0),
        more_before: false,
        more_after: false,
        focus: None,
    }
}

/// The decisions one rule of a tool's "why visible" audit gave, paged by
/// seeking: the rule is computed, not stored, so a page walks the
/// catalogue's decisions from its anchor in decision order (each one's rule
/// read from its stored menu ids, [`RuleScan`]) until it holds `n` of them
/// and knows whether another follows, and reads the listed rows by id.
struct RuleSeek<'a> {
    scan: RuleScan,
    f: &'a Filter,
    catalogue_id: i64,
    want: (bool, Rule),
}

impl RuleSeek<'_> {
    /// Up to `n` kept ids past `from` (below it when `back`), nearest
    /// first, and whether another follows them.
    fn walk(
        &mut self,
        conn: &Connection,
        from: i64,
        back: bool,
        n: usize,
    ) -> Result<(Vec<i64>, bool)> {
        let (bound, order) = if back {
            ("AND l.decision_id < ?", "ORDER BY l.decision_id DESC")
        } else {
            ("AND l.decision_id > ?", "ORDER BY l.decision_id")
        };
        let (sql, mut args) = scan_sql(self.f, false, bound, order);
        args.push(Sql::Integer(self.catalogue_id));
        args.push(Sql::Integer(from));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        let mut ids = Vec::with_capacity(n);
        while let Some(r) = rows.next()? {
            if self.scan.rule(conn, r)? == Some(self.want) {
                if ids.len() == n {
                    return Ok((ids, true));
                }
                ids.push(r.get(0)?);
            }
        }
        Ok((ids, false))
    }

    /// Kept decisions below `k` (every one when `k` is `i64::MAX`).
    fn count_below(&mut self, conn: &Connection, k: i64) -> Result<u64> {
        let (sql, mut args) = scan_sql(self.f, false, "AND l.decision_id < ?", "");
        args.push(Sql::Integer(self.catalogue_id));
        args.push(Sql::Integer(k));
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        let mut n = 0u64;
        while let Some(r) = rows.next()? {
            if self.scan.rule(conn, r)? == Some(self.want) {
                n += 1;
            }
        }
        Ok(n)
    }

    /// The listed rows of `ids`, read by id.
    fn rows(conn: &Connection, ids: &[i64]) -> Result<Vec<(Key, DecisionRow)>> {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {DECISION_COLUMNS} FROM ladder l JOIN decisions d ON d.id = l.decision_id
             JOIN runs r ON r.run_id = l.run_id WHERE l.decision_id = ?"
        ))?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            let mut rows = stmt.query([id])?;
            if let Some(r) = rows.next()? {
                let row = decision_row(conn, r, 0)?;
                out.push(((Sql::Integer(id), Sql::Integer(id)), row));
            }
        }
        Ok(out)
    }

    /// One page; `total`: the rule's decisions as the audit counted them
    /// (`None`: counted here, walking them all).
    fn page(
        &mut self,
        conn: &Connection,
        anchor: &Anchor,
        n: usize,
        total: Option<u64>,
    ) -> Result<Page<DecisionRow>> {
        let id = |k: &Key| match k.1 {
            Sql::Integer(i) => i,
            _ => 0,
        };
        let total = |s: &mut Self| -> Result<u64> {
            match total {
                Some(t) => Ok(t),
                None => s.count_below(conn, i64::MAX),
            }
        };
        let page = |rows, before, total, more_before, more_after, focus| Page {
            rows,
            before,
            total,
            more_before,
            more_after,
            focus,
        };
        Ok(match anchor {
            Anchor::First => {
                let (ids, more) = self.walk(conn, i64::MIN, false, n)?;
                let t = total(self)?;
                page(Self::rows(conn, &ids)?, Some(0), Some(t), false, more, None)
            }
            Anchor::Last => {
                let (mut ids, more) = self.walk(conn, i64::MAX, true, n)?;
                ids.reverse();
                let t = total(self)?;
                let before = t.saturating_sub(ids.len() as u64);
                page(
                    Self::rows(conn, &ids)?,
                    Some(before),
                    Some(t),
                    more,
                    false,
                    None,
                )
            }
            Anchor::After(k) => {
                let (ids, more) = self.walk(conn, id(k), false, n)?;
                page(Self::rows(conn, &ids)?, None, None, true, more, None)
            }
            Anchor::Before(k) => {
                let (mut ids, more) = self.walk(conn, id(k), true, n)?;
                ids.reverse();
                page(Self::rows(conn, &ids)?, None, None, more, true, None)
            }
            Anchor::Around(k) => {
                // Up to half of the page before the anchor, the rest from it.
                let half = n / 2;
                let (mut back, more_before) = self.walk(conn, id(k), true, half.max(1))?;
                back.reverse();
                if half == 0 {
                    back.clear();
                }
                let (ahead, more_after) = self.walk(conn, id(k) - 1, false, n - half)?;
                let focus = back.len();
                let start = if back.is_empty() && ahead.is_empty() {
                    0
                } else {
                    self.count_below(conn, back.first().copied().unwrap_or(id(k)))?
                };
                back.extend(ahead);
                let t = total(self)?;
                page(
                    Self::rows(conn, &back)?,
                    Some(start),
                    Some(t),
                    more_before,
                    more_after,
                    Some(focus),
                )
            }
        })
    }
}

/// The column a decision list is sorted by (`s` cycles, `S` reverses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DecisionSort {
    /// The list's own order: decision order, time order for refusals.
    #[default]
    Natural,
    /// Run id, then step.
    Run,
    /// Time (undated first).
    Time,
    Rung,
    Selected,
}

impl DecisionSort {
    pub const ALL: [DecisionSort; 5] = [
        DecisionSort::Natural,
        DecisionSort::Run,
        DecisionSort::Time,
        DecisionSort::Rung,
        DecisionSort::Selected,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DecisionSort::Natural => "list order",
            DecisionSort::Run => "run",
            DecisionSort::Time => "time",
            DecisionSort::Rung => "rung",
            DecisionSort::Selected => "selected",
        }
    }

    pub fn next(self) -> DecisionSort {
        let i = DecisionSort::ALL
            .iter()
            .position(|s| *s == self)
            .unwrap_or(0);
        DecisionSort::ALL[(i + 1) % DecisionSort::ALL.len()]
    }

    /// The SQL key (`None`: the list's own).
    pub(super) fn key(self) -> Option<&'static str> {
        Some(match self {
            DecisionSort::Natural => return None,
            DecisionSort::Run => "l.run_id || printf(':%012d', l.step)",
            DecisionSort::Time => "COALESCE(l.time_us, -1)",
            DecisionSort::Rung => "l.rung",
            DecisionSort::Selected => "COALESCE(l.selected, '')",
        })
    }
}

/// How a decision list is shown: its sort and the text `/` searched for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ListView {
    pub sort: DecisionSort,
    pub desc: bool,
    /// Decisions whose run, phase, selected tool, rung, status, reason,
    /// boundary or acceptable tools contain this text (any case).
    pub find: String,
}

/// The fields `/` searches in a decision list, as SQL over `ladder l`.
pub const FOUND_IN: [(&str, &str); 8] = [
    ("run", "l.run_id"),
    ("phase", "l.phase"),
    ("selected", "l.selected"),
    ("rung", "l.rung"),
    ("status", "l.status"),
    ("reason", "l.reason"),
    ("boundary", "l.boundary"),
    ("acceptable", "l.acceptable"),
];

/// One page of `drill` sorted and searched as `view` says. The rule sets
/// are walked, not queried: they keep decision order (a search still
/// narrows them).
pub fn drill_page_view(
    conn: &Connection,
    f: &Filter,
    drill: &Drill,
    view: &ListView,
    anchor: &Anchor,
    n: usize,
) -> Result<Page<DecisionRow>> {
    if *view == ListView::default() {
        return drill_page(conn, f, drill, anchor, n);
    }
    let mut spec = match drill {
        Drill::Set(set) => super::decisions::decision_spec(f, set)?,
        Drill::Rule { .. } => {
            // Computed sets: decision order; the search narrows the page.
            let mut page = drill_page(conn, f, drill, anchor, n)?;
            let pat = view.find.to_lowercase();
            if !pat.is_empty() {
                page.rows.retain(|(_, d)| !found_in(d, &pat).is_empty());
                page.total = None;
            }
            return Ok(page);
        }
        _ => match spec(f, drill) {
            Some(s) => s,
            None => return Err(Error::usage("this decision list has no query")),
        },
    };
    if let Some(key) = view.sort.key() {
        spec.key = key;
        spec.id = Some("l.decision_id");
    }
    spec.desc = view.desc;
    let pat = view.find.trim().to_lowercase();
    if !pat.is_empty() {
        let any = FOUND_IN
            .iter()
            .map(|(_, col)| format!("instr(lower(COALESCE({col}, '')), ?) > 0"))
            .collect::<Vec<_>>()
            .join(" OR ");
        spec.from_where.push_str(&format!(" AND ({any})"));
        for _ in FOUND_IN {
            spec.args.push(Sql::Text(pat.clone()));
        }
    }
    spec.page(conn, anchor, n, &|r| decision_row(conn, r, 2))
}

/// Which of `FOUND_IN`'s fields of `d` contain `pat` (lower case), by the
/// rule every searched list of the TUI follows (`crate::find`).
pub fn found_in(d: &DecisionRow, pat: &str) -> Vec<&'static str> {
    if pat.is_empty() {
        return Vec::new();
    }
    // As SQL sees the column: a JSON array.
    let acceptable = serde_json::to_string(&d.acceptable).unwrap_or_default();
    crate::find::found_in(
        &[
            ("run", Some(&d.run_id)),
            ("phase", d.phase.as_deref()),
            ("selected", d.selected.as_deref()),
            ("rung", Some(d.rung.as_str())),
            ("status", d.status.as_deref()),
            ("reason", d.reason.as_deref()),
            ("boundary", d.boundary.as_deref()),
            ("acceptable", d.labelled.then_some(acceptable.as_str())),
        ],
        pat,
    )
}
