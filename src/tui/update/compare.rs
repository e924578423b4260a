//! The Compare screen (pick a base and candidates among the catalogue
//! versions, fuzzy; the menus side by side; the base's cells, Enter: a
//! cell's attempts on every menu) and the Tool diff screen (`d` on Tools).

use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::store::compare::{
    CatalogueInfo, CellAttempts, CellSpec, CompareAsk, CompareReport, ToolDiffView,
};
use crate::tui::action::Action;
use crate::tui::paged::Cursor;
use crate::tui::state::{App, ComparePane, Load, OpenCell, Screen, ToolDiffState, rows_in};
use crate::tui::worker::{Request, Slot};

/// The significance level the screen tests at (as `rung compare`'s default).
pub const ALPHA: f64 = 0.05;

pub(super) fn ensure(app: &mut App) {
    let c = &mut app.compare;
    if c.catalogues.wants() {
        c.catalogues.begin();
        app.request(Slot::Catalogues, Request::Catalogues);
        return;
    }
    if let Some(open) = &mut app.compare.open {
        if open.data.wants() {
            open.data.begin();
            let menus = open.menus.clone();
            let request = Request::CellAttempts {
                filter: app.filter.clone(),
                base: menus[0].clone(),
                candidates: menus[1..].to_vec(),
                cell: open.cell.clone(),
            };
            app.request(Slot::CellAttempts, request);
        }
        return;
    }
    let c = &mut app.compare;
    if let Some(base) = c.base.clone()
        && !c.candidates.is_empty()
        && c.result.wants()
    {
        c.result.begin();
        let ask = CompareAsk {
            base,
            candidates: c.candidates.clone(),
            cell: None,
            alpha: ALPHA,
            max_tokens: None,
        };
        let filter = app.filter.clone();
        app.request(Slot::Compare, Request::Compare { filter, ask });
    }
}

/// The catalogues arrived: the first pick is the oldest against the newest.
pub(super) fn take_catalogues(app: &mut App, v: Vec<CatalogueInfo>) {
    let c = &mut app.compare;
    if c.base.is_none() && v.len() >= 2 {
        c.base = Some(v[0].version.clone());
        c.candidates = vec![v[v.len() - 1].version.clone()];
    }
    // Forget picks the database no longer has.
    c.base = c.base.take().filter(|b| v.iter().any(|x| &x.version == b));
    c.candidates.retain(|x| v.iter().any(|y| &y.version == x));
    c.catalogues.set(v);
    super::table::apply(
        app,
        super::table::Table::CompareMenus,
        super::table::Op::Refresh,
    );
    find(app);
    ensure(app);
}

pub(super) fn take_compare(app: &mut App, r: Arc<CompareReport>) {
    app.compare.result.set(r);
    super::table::apply(
        app,
        super::table::Table::CompareCells,
        super::table::Op::Refresh,
    );
}

pub(super) fn take_cell(app: &mut App, a: Option<CellAttempts>) {
    if let Some(open) = &mut app.compare.open {
        open.data.set(a);
    }
    super::table::apply(
        app,
        super::table::Table::CompareAttempts,
        super::table::Op::Refresh,
    );
}

/// The comparison is asked again (the picks or the filter changed).
pub(super) fn changed(app: &mut App) {
    app.compare.result = Load::default();
    app.compare.open = None;
    app.compare.cells = Cursor::default();
}

/// The filter or the database changed: the catalogues are read again (the
/// picks stay where the versions still exist), the comparison asked again.
pub(super) fn filter_changed(app: &mut App) {
    changed(app);
    app.compare.catalogues = Load::default();
}

/// Matches the typed find against the catalogue versions, best first.
pub(super) fn find(app: &mut App) {
    let Some(data) = &app.compare.catalogues.value else {
        return;
    };
    let pattern = app.compare.find.trim();
    app.compare.matches = if pattern.is_empty() {
        None
    } else {
        let matcher = SkimMatcherV2::default().smart_case();
        let mut scored: Vec<(i64, usize)> = data
            .iter()
            .enumerate()
            .filter_map(|(i, c)| matcher.fuzzy_match(&c.version, pattern).map(|s| (s, i)))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        Some(scored.into_iter().map(|(_, i)| i).collect())
    };
    app.compare.cursor = Cursor::default();
}

/// Esc: closes an open cell, then clears a find.
pub(super) fn back(app: &mut App) -> bool {
    if app.compare.open.take().is_some() {
        return true;
    }
    if app.compare.matches.is_some() {
        app.compare.find.clear();
        find(app);
        return true;
    }
    false
}

fn cells_height(app: &App) -> usize {
    let c = &app.compare;
    rows_in(app.size, c.pane, c.open.is_some(), ComparePane::Cells)
}

fn menus_height(app: &App) -> usize {
    let c = &app.compare;
    rows_in(app.size, c.pane, c.open.is_some(), ComparePane::Menus)
}

pub(super) fn act(app: &mut App, action: Action) {
    match action {
        Action::Left => app.compare.pane = ComparePane::Menus,
        Action::Right => app.compare.pane = ComparePane::Cells,
        Action::SetBase => set_base(app),
        Action::ToggleCandidate => toggle_candidate(app),
        _ => {}
    }
    if let Some(open) = &mut app.compare.open {
        let len = open
            .data
            .value
            .as_ref()
            .and_then(|d| d.as_ref())
            .map_or(0, |d| d.base.len());
        let h = rows_in(app.size, app.compare.pane, true, ComparePane::Cells);
        if let Some(d) = action.delta(h) {
            open.cursor.move_by(d, len, h);
        }
        return;
    }
    match app.compare.pane {
        ComparePane::Menus => {
            let h = menus_height(app);
            let len = app.compare.rows().len();
            if let Some(d) = action.delta(h) {
                app.compare.cursor.move_by(d, len, h);
            }
        }
        ComparePane::Cells => {
            let h = cells_height(app);
            let Some(r) = app.compare.result.value.clone() else {
                return;
            };
            if let Some(d) = action.delta(h) {
                app.compare.cells.move_by(d, r.cells.len(), h);
            } else if action == Action::Enter
                && let Some(row) = app
                    .compare
                    .cells_view
                    .selected(&app.compare.cells)
                    .and_then(|i| r.cells.get(i))
            {
                open_cell(app, row.cell.clone());
            }
        }
    }
}

fn open_cell(app: &mut App, cell: CellSpec) {
    app.compare.open = Some(OpenCell {
        cell,
        menus: app.compare.menus(),
        data: Load::default(),
        cursor: Cursor::default(),
        view: Default::default(),
    });
    ensure(app);
}

fn set_base(app: &mut App) {
    let Some(v) = app.compare.selected_menu().map(|c| c.version.clone()) else {
        return;
    };
    let c = &mut app.compare;
    if c.base.as_ref() == Some(&v) {
        return;
    }
    c.candidates.retain(|x| *x != v);
    if let Some(old) = c.base.replace(v)
        && c.candidates.is_empty()
    {
        // The old base becomes the candidate, so that there is a comparison.
        c.candidates.push(old);
    }
    changed(app);
    ensure(app);
}

fn toggle_candidate(app: &mut App) {
    let Some(v) = app.compare.selected_menu().map(|c| c.version.clone()) else {
        return;
    };
    let c = &mut app.compare;
    if c.base.as_ref() == Some(&v) {
        app.status = Some("that is the base: b makes another catalogue the base".into());
        return;
    }
    match c.candidates.iter().position(|x| *x == v) {
        Some(i) => {
            c.candidates.remove(i);
        }
        None => c.candidates.push(v),
    }
    // In the catalogues' order, whatever the order of the picks.
    if let Some(list) = &c.catalogues.value {
        c.candidates
            .sort_by_key(|x| list.iter().position(|y| &y.version == x));
    }
    if app.compare.base.is_none() {
        app.compare.base = Some(app.compare.candidates.remove(0));
    }
    changed(app);
    ensure(app);
}

/// `d` on Tools: the tool between its catalogue and the nearest other
/// version that has it.
pub(super) fn open_tool_diff(app: &mut App, catalogue: String, name: String) {
    app.tool_diff = ToolDiffState {
        catalogue,
        name,
        ..Default::default()
    };
    app.go(Screen::ToolDiff);
}

pub(super) fn ensure_tool_diff(app: &mut App) {
    let t = &mut app.tool_diff;
    if t.data.wants() {
        t.data.begin();
        let request = Request::ToolDiff {
            catalogue: t.catalogue.clone(),
            name: t.name.clone(),
        };
        app.request(Slot::ToolDiff, request);
    }
}

pub(super) fn take_tool_diff(app: &mut App, d: Box<ToolDiffView>) {
    app.tool_diff.data.set(d);
}

pub(super) fn act_tool_diff(app: &mut App, action: Action) {
    let s = &mut app.tool_diff.scroll;
    match action {
        Action::Down => *s = s.saturating_add(1),
        Action::Up => *s = s.saturating_sub(1),
        Action::PageDown => *s = s.saturating_add(10),
        Action::PageUp => *s = s.saturating_sub(10),
        Action::MoveBy(n) => *s = s.saturating_add_signed(n as i16),
        Action::Top => *s = 0,
        _ => {}
    }
}
