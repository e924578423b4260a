//! Drill-downs: the decisions behind every count the TUI shows, as named
//! queries paged by keyset. The rung, confusion cell and refusal group
//! lists live in `decisions` ([`DecisionSet`]); this file adds the others —
//! a boundary count, a day of refusals, a tool's visible / selected /
//! refused counts and a rule row of a tool's "why visible" audit — and
//! [`drill_page`], one entry point for all of them.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};

use super::classify::load_catalogue;
use super::decisions::{DECISION_COLUMNS, DecisionRow, DecisionSet, decision_row, decisions_page};
use super::filter_sql::FilterSql;
use super::menu::{MENU_SELECT, menu_row};
use super::paging::{Anchor, Key, Page, Spec};
use super::refusals::refused;
use super::tools::explain_one;
use crate::error::{Error, Result};
use crate::filter::Filter;

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
    /// it): the first `cap` decisions on the catalogue, as the audit walks.
    Rule {
        catalogue: String,
        name: String,
        visible: bool,
        rule: String,
        cap: u64,
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
            cap,
        } => RuleWalk::new(conn, f, catalogue, name, *visible, rule, *cap)?.page(
            conn,
            anchor,
            n.max(1),
        ),
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
    })
}

/// The walk of a tool's "why visible" audit, keeping the decisions one rule
/// gave: the rule is computed, not stored, so a page walks the audited
/// decisions once (reading only their menus), keeps the ids the rule gave,
/// and reads the listed rows by id.
struct RuleWalk {
    /// The kept decision ids, ascending.
    ids: Vec<i64>,
}

impl RuleWalk {
    fn new(
        conn: &Connection,
        f: &Filter,
        catalogue: &str,
        name: &str,
        visible: bool,
        rule: &str,
        cap: u64,
    ) -> Result<RuleWalk> {
        let Some(cat) = load_catalogue(conn, catalogue)? else {
            return Ok(RuleWalk { ids: Vec::new() });
        };
        let Some(info) = cat.tools.get(name).cloned() else {
            return Ok(RuleWalk { ids: Vec::new() });
        };
        let (clause, mut args) = f.decision_clause();
        args.insert(0, Sql::Text(catalogue.to_string()));
        // The audit walks the first `cap` decisions: the same ones here.
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {MENU_SELECT} FROM ladder l JOIN decision_rows d ON d.id = l.decision_id
             JOIN runs r ON r.run_id = l.run_id
             WHERE l.catalogue = ? AND {clause} ORDER BY l.decision_id LIMIT {cap}"
        ))?;
        let names = crate::store::names::Names::load(conn)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        let mut ids = Vec::new();
        while let Some(r) = rows.next()? {
            let m = menu_row(conn, &names, r, 0)?;
            if explain_one(&cat, name, &info, &m)
                .is_some_and(|t| t.visible == visible && t.rule.as_str() == rule)
            {
                ids.push(r.get(0)?);
            }
        }
        Ok(RuleWalk { ids })
    }

    /// The listed rows of `ids`, read by id.
    fn rows(&self, conn: &Connection, ids: &[i64]) -> Result<Vec<(Key, DecisionRow)>> {
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

    fn page(&self, conn: &Connection, anchor: &Anchor, n: usize) -> Result<Page<DecisionRow>> {
        let id = |k: &Key| match k.1 {
            Sql::Integer(i) => i,
            _ => 0,
        };
        let ids = &self.ids;
        let total = ids.len();
        // Kept ids below `k`, and below-or-at `k`.
        let below = |k: i64| ids.partition_point(|&i| i < k);
        let through = |k: i64| ids.partition_point(|&i| i <= k);
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
                let end = n.min(total);
                let rows = self.rows(conn, &ids[..end])?;
                page(rows, Some(0), Some(total as u64), false, end < total, None)
            }
            Anchor::Last => {
                let start = total.saturating_sub(n);
                let rows = self.rows(conn, &ids[start..])?;
                page(
                    rows,
                    Some(start as u64),
                    Some(total as u64),
                    start > 0,
                    false,
                    None,
                )
            }
            Anchor::After(k) => {
                let start = through(id(k));
                let end = (start + n).min(total);
                let rows = self.rows(conn, &ids[start..end])?;
                page(rows, None, None, true, end < total, None)
            }
            Anchor::Before(k) => {
                let end = below(id(k));
                let start = end.saturating_sub(n);
                let rows = self.rows(conn, &ids[start..end])?;
                page(rows, None, None, start > 0, true, None)
            }
            Anchor::Around(k) => {
                let half = n / 2;
                let at = below(id(k));
                let start = at.saturating_sub(half.max(1));
                let more_before = start > 0;
                let start = if half == 0 { at } else { start };
                let focus = at - start;
                let end = (at + (n - half)).min(total);
                let rows = self.rows(conn, &ids[start..end])?;
                let before = if rows.is_empty() { 0 } else { start as u64 };
                page(
                    rows,
                    Some(before),
                    Some(total as u64),
                    more_before,
                    end < total,
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
