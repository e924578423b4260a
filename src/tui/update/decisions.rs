//! The Decisions screen: the decisions behind a rung, a refusal reason or a
//! confusion cell, paged from SQLite; Enter opens the run at the decision.

use super::run;
use crate::store::browse::{Anchor, DecisionRow, Drill, Page, drill_key, sorted_key};
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::Paged;
use crate::tui::state::{App, DecisionsState, Screen};
use crate::tui::worker::{Request, Slot};

/// Shows the decisions of `set` under `title`; `count` is the number the
/// screen showed for them (the title says it).
pub(super) fn open(app: &mut App, set: Drill, count: Option<u64>, title: String) {
    app.decisions = DecisionsState {
        set: Some(set),
        title,
        count,
        page: Paged::default(),
        view: Default::default(),
        typing: false,
    };
    app.go(Screen::Decisions);
}

pub(super) fn ensure(app: &mut App) {
    if app.decisions.set.is_some() && !app.decisions.page.loaded && !app.decisions.page.loading {
        let a = app.decisions.page.reset(Anchor::First);
        request_page(app, a);
    }
}

fn request_page(app: &mut App, anchor: Anchor) {
    let Some(set) = app.decisions.set.clone() else {
        return;
    };
    let request = Request::Decisions {
        filter: app.filter.clone(),
        set,
        view: app.decisions.view.clone(),
        anchor: anchor.clone(),
    };
    app.request_page(Slot::Decisions, anchor, request);
}

pub(super) fn take_page(app: &mut App, anchor: Option<Anchor>, page: Page<DecisionRow>) {
    let h = app.height(layout::List::Decisions);
    if let Some(a) = anchor
        && let Some(next) = app.decisions.page.apply(&a, page, h)
    {
        request_page(app, next);
    }
}

/// Reads the list again from its first row (the sort or search changed).
pub(super) fn reload(app: &mut App) {
    let a = app.decisions.page.reset(Anchor::First);
    request_page(app, a);
}

/// Reads the list again in its new order, around the decision that was
/// selected (it stays selected).
fn resort(app: &mut App) {
    let (Some(set), Some(row)) = (&app.decisions.set, app.decisions.page.selected()) else {
        return reload(app);
    };
    let key = match set {
        // Computed lists keep decision order.
        Drill::Rule { .. } => drill_key(row, set),
        _ => sorted_key(row, app.decisions.view.sort).unwrap_or_else(|| drill_key(row, set)),
    };
    let a = app.decisions.page.reset(Anchor::Around(key));
    request_page(app, a);
}

/// Esc with a search in force clears it.
pub(super) fn back(app: &mut App) -> bool {
    if app.decisions.view.find.is_empty() {
        return false;
    }
    app.decisions.view.find.clear();
    reload(app);
    true
}

pub(super) fn act(app: &mut App, action: Action) {
    let h = app.height(layout::List::Decisions);
    match action {
        Action::Find => {
            app.decisions.typing = true;
            return;
        }
        Action::Sort => {
            app.decisions.view.sort = app.decisions.view.sort.next();
            return resort(app);
        }
        Action::Reverse => {
            app.decisions.view.desc = !app.decisions.view.desc;
            return resort(app);
        }
        Action::NextMatch | Action::PrevMatch => {
            // A search narrows the list: every row is a match.
            if app.decisions.view.find.trim().is_empty() {
                app.status = Some("n/N move between matches: search with / first".into());
                return;
            }
            let d = if action == Action::NextMatch { 1 } else { -1 };
            if let Some(a) = app.decisions.page.move_by(d, h) {
                request_page(app, a);
            }
            return;
        }
        _ => {}
    }
    if matches!(action, Action::Top | Action::Bottom) {
        let a = if action == Action::Top {
            Anchor::First
        } else {
            Anchor::Last
        };
        let a = app.decisions.page.reset(a);
        request_page(app, a);
    } else if let Some(d) = action.delta(h) {
        if let Some(a) = app.decisions.page.move_by(d, h) {
            request_page(app, a);
        }
    } else if action == Action::Enter
        && let Some(row) = app.decisions.page.selected()
    {
        let (run, step) = (row.run_id.clone(), row.step);
        run::open(app, run, Some(step));
    }
}
