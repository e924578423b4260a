//! The Runs screen: the paged list in the chosen sort, and the fuzzy
//! filter (matched by a worker, sorted here); Enter opens the run.

use super::run;
use crate::store::browse::{Anchor, Page, RunSort, cmp_key, run_key};
use crate::store::query::RunRow;
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::Cursor;
use crate::tui::state::{App, Fuzzy};
use crate::tui::worker::{FuzzyResult, Request, Slot};

pub(super) fn ensure(app: &mut App) {
    if !app.runs.page.loaded && !app.runs.page.loading {
        let a = app.runs.page.reset(Anchor::First);
        request_page(app, a);
    }
    if app.runs.fuzzy.active() && app.runs.fuzzy.result.is_none() {
        run_fuzzy(app);
    }
}

fn request_page(app: &mut App, anchor: Anchor) {
    let request = Request::Runs {
        filter: app.filter.clone(),
        sort: app.runs.sort,
        desc: app.runs.desc,
        anchor: anchor.clone(),
    };
    app.request_page(Slot::Runs, anchor, request);
}

pub(super) fn take_page(app: &mut App, anchor: Option<Anchor>, page: Page<RunRow>) {
    let h = app.height(layout::List::Runs);
    if let Some(a) = anchor
        && let Some(next) = app.runs.page.apply(&a, page, h)
    {
        request_page(app, next);
    }
}

/// Asks for the matches of the typed pattern (or clears them).
pub(super) fn run_fuzzy(app: &mut App) {
    let pattern = app.runs.fuzzy.input.trim().to_string();
    if pattern.is_empty() {
        app.runs.fuzzy.result = None;
        app.runs.fuzzy.rows.clear();
        app.runs.fuzzy.loading = false;
        app.runs.fuzzy.error = None;
        app.inflight.done(Slot::Fuzzy);
        return;
    }
    app.runs.fuzzy.loading = true;
    app.runs.fuzzy.error = None;
    app.runs.fuzzy.open_when_ready = false;
    app.request(
        Slot::Fuzzy,
        Request::Fuzzy {
            filter: app.filter.clone(),
            pattern,
        },
    );
}

pub(super) fn take_fuzzy(app: &mut App, r: FuzzyResult) {
    app.runs.fuzzy.loading = false;
    app.runs.fuzzy.error = None;
    app.runs.fuzzy.result = Some(r);
    app.runs.fuzzy.cursor = Cursor::default();
    sort_fuzzy_rows(app);
    if std::mem::take(&mut app.runs.fuzzy.open_when_ready)
        && let Some(r) = app.runs.fuzzy.rows.first()
    {
        let id = r.run_id.clone();
        run::open(app, id, None);
    }
}

fn sort_fuzzy_rows(app: &mut App) {
    let h = app.height(layout::List::Runs);
    let fz = &mut app.runs.fuzzy;
    let Some(result) = &fz.result else {
        fz.rows.clear();
        return;
    };
    fz.rows = result.rows.clone();
    if let Some((sort, desc)) = fz.sorted {
        fz.rows.sort_by(|a, b| {
            let o = cmp_key(&run_key(a, sort), &run_key(b, sort));
            if desc { o.reverse() } else { o }
        });
    }
    fz.cursor.fit(fz.rows.len(), h);
}

/// The next sort column after `s`.
fn next_sort(s: RunSort) -> RunSort {
    let i = RunSort::ALL.iter().position(|x| *x == s).unwrap_or(0);
    RunSort::ALL[(i + 1) % RunSort::ALL.len()]
}

/// Esc with a fuzzy filter in force clears it.
pub(super) fn back(app: &mut App) -> bool {
    if !app.runs.fuzzy.active() {
        return false;
    }
    app.runs.fuzzy = Fuzzy::default();
    app.inflight.done(Slot::Fuzzy);
    true
}

pub(super) fn act(app: &mut App, action: Action) {
    if matches!(action, Action::NextMatch | Action::PrevMatch) {
        // The fuzzy filter narrows the list: every row is a match.
        if !app.runs.fuzzy.active() {
            app.status = Some("n/N move between matches: filter with / first".into());
            return;
        }
        let step = if action == Action::NextMatch {
            Action::Down
        } else {
            Action::Up
        };
        return act_fuzzy(app, step);
    }
    if app.runs.fuzzy.active() {
        return act_fuzzy(app, action);
    }
    let h = app.height(layout::List::Runs);
    match action {
        Action::Top | Action::Bottom => {
            let a = if action == Action::Top {
                Anchor::First
            } else {
                Anchor::Last
            };
            let a = app.runs.page.reset(a);
            request_page(app, a);
        }
        Action::Enter => {
            if let Some(r) = app.runs.page.selected() {
                let id = r.run_id.clone();
                run::open(app, id, None);
            }
        }
        Action::Find => {
            app.runs.fuzzy.typing = true;
            app.runs.fuzzy.cursor = Cursor::default();
        }
        Action::Sort | Action::Reverse => {
            // Keep the selected run in view under the new order.
            let keep = app.runs.page.selected().cloned();
            if action == Action::Sort {
                app.runs.sort = next_sort(app.runs.sort);
            } else {
                app.runs.desc = !app.runs.desc;
            }
            let anchor = match keep {
                Some(r) => Anchor::Around(run_key(&r, app.runs.sort)),
                None => Anchor::First,
            };
            let a = app.runs.page.reset(anchor);
            request_page(app, a);
        }
        a => {
            if let Some(d) = a.delta(h)
                && let Some(next) = app.runs.page.move_by(d, h)
            {
                request_page(app, next);
            }
        }
    }
}

/// Keys over the fuzzy matches (held whole in memory).
fn act_fuzzy(app: &mut App, action: Action) {
    let h = app.height(layout::List::Runs);
    let fz = &mut app.runs.fuzzy;
    if let Some(d) = action.delta(h) {
        fz.cursor.move_by(d, fz.rows.len(), h);
        return;
    }
    match action {
        Action::Enter => {
            if let Some(r) = fz.rows.get(fz.cursor.sel) {
                let id = r.run_id.clone();
                run::open(app, id, None);
            }
        }
        Action::Find => fz.typing = true,
        Action::Sort | Action::Reverse => {
            let (sort, desc) = fz.sorted.unwrap_or((app.runs.sort, app.runs.desc));
            fz.sorted = Some(if action == Action::Sort {
                (
                    if fz.sorted.is_none() {
                        sort
                    } else {
                        next_sort(sort)
                    },
                    desc,
                )
            } else {
                (sort, !desc)
            });
            sort_fuzzy_rows(app);
        }
        _ => {}
    }
}
