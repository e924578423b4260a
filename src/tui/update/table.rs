//! `s`, `S`, `/` and `n`/`N` on the tables held whole in memory (issue 16):
//! every one goes through `TableView` (state/table.rs), so they sort, keep
//! their selection and search alike. The Tools list and the Compare menus
//! keep their fuzzy find (it narrows them); `n`/`N` there step through the
//! rows it left.

use crate::model::Rung;
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::Cursor;
use crate::tui::state::{App, ComparePane, LadderRow, Listed, Screen, TableView, rows_in};

/// The tables of the screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    Ladder,
    Refusals,
    Cells,
    Kinds,
    Tools,
    CompareCells,
    CompareMenus,
    /// An open Compare cell's attempts.
    CompareAttempts,
    /// The Tool screen's "why visible" rules.
    Rules,
}

/// What to do to a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Sort,
    Reverse,
    /// `/`: start typing.
    Find,
    /// The search text changed.
    Typed,
    /// `n` (true) or `N`.
    Step(bool),
    /// The rows changed: order them again.
    Refresh,
}

/// The table the current screen's keys act on, if it has one.
pub(super) fn current(app: &App) -> Option<Table> {
    Some(match app.screen {
        Screen::Ladder => Table::Ladder,
        Screen::Refusals => Table::Refusals,
        Screen::Confusions if !app.confusion.matrix => Table::Cells,
        Screen::Findings => Table::Kinds,
        Screen::Tools => Table::Tools,
        Screen::Compare if app.compare.open.is_some() => Table::CompareAttempts,
        Screen::Compare => match app.compare.pane {
            ComparePane::Cells => Table::CompareCells,
            ComparePane::Menus => Table::CompareMenus,
        },
        Screen::Tool => Table::Rules,
        _ => return None,
    })
}

/// The search being typed into on the current screen's table, if any.
pub(super) fn typing(app: &App) -> bool {
    match current(app) {
        Some(t) => view(app, t).is_some_and(|v| v.typing),
        None => false,
    }
}

fn view(app: &App, t: Table) -> Option<&TableView> {
    Some(match t {
        Table::Ladder => &app.ladder.view,
        Table::Refusals => &app.refusals.view,
        Table::Cells => &app.confusion.view,
        Table::Kinds => &app.findings.view,
        Table::CompareCells => &app.compare.cells_view,
        Table::CompareAttempts => &app.compare.open.as_ref()?.view,
        Table::Rules => &app.tool.view,
        Table::Tools | Table::CompareMenus => return None,
    })
}

/// The search text of the current table (for typing into).
pub(super) fn input(app: &mut App) -> Option<(&mut String, &mut bool)> {
    let v = match current(app)? {
        Table::Ladder => &mut app.ladder.view,
        Table::Refusals => &mut app.refusals.view,
        Table::Cells => &mut app.confusion.view,
        Table::Kinds => &mut app.findings.view,
        Table::CompareCells => &mut app.compare.cells_view,
        Table::CompareAttempts => &mut app.compare.open.as_mut()?.view,
        Table::Rules => &mut app.tool.view,
        Table::Tools | Table::CompareMenus => return None,
    };
    Some((&mut v.find, &mut v.typing))
}

/// Esc: clears the current table's search; false when there was none.
pub(super) fn clear(app: &mut App) -> bool {
    let cleared = match input(app) {
        Some((find, typing)) => {
            *typing = false;
            let had = !find.is_empty();
            find.clear();
            had
        }
        None => false,
    };
    if cleared {
        act(app, Op::Typed);
    }
    cleared
}

/// The key's table operation, if it is one.
pub(super) fn op_of(action: &Action) -> Option<Op> {
    Some(match action {
        Action::Sort => Op::Sort,
        Action::Reverse => Op::Reverse,
        Action::Find => Op::Find,
        Action::NextMatch => Op::Step(true),
        Action::PrevMatch => Op::Step(false),
        _ => return None,
    })
}

/// Applies `op` to the current screen's table; false when it has none.
pub(super) fn act(app: &mut App, op: Op) -> bool {
    match current(app) {
        Some(t) => {
            apply(app, t, op);
            true
        }
        None => false,
    }
}

/// Builds the Ladder's rows from its counts (when they come).
pub(super) fn ladder_rows(app: &mut App) {
    let Some((c, b)) = &app.ladder.counts.value else {
        return;
    };
    app.ladder.rows = Rung::ALL
        .iter()
        .map(|r| LadderRow {
            rung: *r,
            count: c.count(*r),
            boundary: b.iter().find(|(s, _)| s == r.as_str()).map(|(_, n)| *n),
        })
        .collect();
    apply(app, Table::Ladder, Op::Refresh);
}

/// Applies `op` to table `t`.
pub(super) fn apply(app: &mut App, t: Table, op: Op) {
    let status = match t {
        Table::Ladder => {
            let h = Rung::ALL.len();
            let l = &mut app.ladder;
            run(&l.rows, &mut l.view, &mut l.cursor, h, op)
        }
        Table::Refusals => {
            let h = layout::list_height(layout::List::Refusals, app.size);
            let r = &mut app.refusals;
            let rows = r.data.value.as_ref().map_or(&[][..], |d| &d.report.rows);
            run(rows, &mut r.view, &mut r.cursor, h, op)
        }
        Table::Cells => {
            let h = layout::list_height(layout::List::Cells, app.size);
            let rows = app.confusions.value.as_ref().map_or(&[][..], |c| &c.cells);
            let c = &mut app.confusion;
            run(rows, &mut c.view, &mut c.cursor, h, op)
        }
        Table::Kinds => {
            let h = layout::list_height(layout::List::Findings, app.size);
            let f = &mut app.findings;
            let rows = f.data.value.as_ref().map_or(&[][..], |d| &d.rows);
            run(rows, &mut f.view, &mut f.cursor, h, op)
        }
        Table::CompareCells => {
            let c = &mut app.compare;
            let h = rows_in(app.size, c.pane, false, ComparePane::Cells);
            let rows = c.result.value.as_ref().map_or(&[][..], |r| &r.cells);
            run(rows, &mut c.cells_view, &mut c.cells, h, op)
        }
        Table::CompareAttempts => {
            let h = rows_in(app.size, app.compare.pane, true, ComparePane::Cells);
            let Some(open) = &mut app.compare.open else {
                return;
            };
            let Some(Some(a)) = &open.data.value else {
                return;
            };
            let rows = crate::tui::state::attempt_rows(a);
            run(&rows, &mut open.view, &mut open.cursor, h, op)
        }
        Table::Rules => {
            let tool = &mut app.tool;
            let rows = tool.audit.value.as_ref().map_or(&[][..], |a| &a.rules[..]);
            // The rules are all in sight (the pane scrolls as a whole).
            let h = rows.len().max(1);
            let mut cursor = Cursor {
                sel: tool.rule,
                top: 0,
            };
            let status = run(rows, &mut tool.view, &mut cursor, h, op);
            tool.rule = cursor.sel;
            status
        }
        Table::Tools => {
            let h = layout::list_height(layout::List::Tools, app.size);
            let ts = &mut app.tools;
            match op {
                Op::Find => {
                    ts.typing = true;
                    None
                }
                Op::Step(forward) => {
                    let len = ts.len();
                    step_all(&mut ts.cursor, len, h, forward, &ts.find)
                }
                _ => {
                    let rows = ts.data.value.as_ref().map_or(&[][..], |d| &d[..]);
                    let keep = ts.rows().get(ts.cursor.sel).copied();
                    resort(rows, &mut ts.view, op);
                    let order = ts.rows();
                    reselect(&mut ts.cursor, &order, keep, h);
                    None
                }
            }
        }
        Table::CompareMenus => {
            let c = &mut app.compare;
            let h = rows_in(app.size, c.pane, c.open.is_some(), ComparePane::Menus);
            match op {
                Op::Find => {
                    c.typing = true;
                    None
                }
                Op::Step(forward) => {
                    let len = c.rows().len();
                    step_all(&mut c.cursor, len, h, forward, &c.find)
                }
                _ => {
                    let rows = c.catalogues.value.as_ref().map_or(&[][..], |d| &d[..]);
                    let keep = c.rows().get(c.cursor.sel).copied();
                    resort(rows, &mut c.menus_view, op);
                    let order = c.rows();
                    reselect(&mut c.cursor, &order, keep, h);
                    None
                }
            }
        }
    };
    if let Some(s) = status {
        app.status = Some(s);
    }
}

/// `op` on a table of `rows`; what the key bar should say, if anything.
fn run<T: Listed>(
    rows: &[T],
    view: &mut TableView,
    cursor: &mut Cursor,
    h: usize,
    op: Op,
) -> Option<String> {
    match op {
        Op::Sort => view.cycle(rows, cursor, h),
        Op::Reverse => view.reverse(rows, cursor, h),
        Op::Refresh => view.refresh(rows, cursor, h),
        Op::Find => view.typing = true,
        Op::Typed => view.search(rows, cursor, h),
        Op::Step(forward) => {
            let pat = view.pattern();
            if pat.is_empty() {
                return Some("n/N move between matches: search with / first".into());
            }
            if !view.step(cursor, forward, h) {
                return Some(format!("no row matches {pat:?}"));
            }
        }
    }
    None
}

/// A sort of a list narrowed by a fuzzy find (the find keeps its rows).
fn resort<T: Listed>(rows: &[T], view: &mut TableView, op: Op) {
    let mut scratch = Cursor::default();
    match op {
        Op::Sort => view.cycle(rows, &mut scratch, 1),
        Op::Reverse => view.reverse(rows, &mut scratch, 1),
        _ => view.refresh(rows, &mut scratch, 1),
    }
}

/// Selects the row `keep` (a data index) in `order` again, if it is there.
fn reselect(cursor: &mut Cursor, order: &[usize], keep: Option<usize>, h: usize) {
    match keep.and_then(|k| order.iter().position(|&i| i == k)) {
        Some(p) => cursor.to(p, order.len(), h),
        None => cursor.fit(order.len(), h),
    }
}

/// `n`/`N` in a list a find narrowed: every row matches, so the next row,
/// wrapping around.
fn step_all(
    cursor: &mut Cursor,
    len: usize,
    h: usize,
    forward: bool,
    find: &str,
) -> Option<String> {
    if find.trim().is_empty() {
        return Some("n/N move between matches: find with / first".into());
    }
    if len == 0 {
        return Some(format!("nothing matches {:?}", find.trim()));
    }
    let next = if forward {
        (cursor.sel + 1) % len
    } else {
        (cursor.sel + len - 1) % len
    };
    cursor.to(next, len, h);
    None
}

impl App {
    /// A table's search is being typed on the current screen.
    pub fn table_typing(&self) -> bool {
        typing(self)
    }
}

impl App {
    /// A search is in force on the current screen (`n`/`N` move between
    /// its matches).
    pub fn searching(&self) -> bool {
        let typed = |s: &str| !crate::find::pattern(s).is_empty();
        match self.screen {
            Screen::Run => {
                typed(&self.run.find)
                    || self
                        .run
                        .viewer
                        .as_ref()
                        .is_some_and(|v| !v.search.find.is_empty())
            }
            Screen::Decisions => typed(&self.decisions.view.find),
            Screen::FindingList => typed(&self.findings.list.find),
            Screen::Runs => self.runs.fuzzy.active(),
            Screen::Tools => self.tools.matches.is_some(),
            Screen::Compare if self.compare.pane == ComparePane::Menus => {
                self.compare.matches.is_some()
            }
            _ => match current(self).and_then(|t| view(self, t)) {
                Some(v) => !v.pattern().is_empty(),
                None => false,
            },
        }
    }
}
