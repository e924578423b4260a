//! The Run screen: one run's timeline (paged), the selected decision's
//! detail (cached by id), next/previous failing decision, and the keys of
//! the detail pane (the payload viewer's are in `viewer`).

use super::viewer;
use crate::filter::Filter;
use crate::store::browse::{Anchor, DecisionRow, Page, PayloadColumn, step_key, timeline_key};
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::Paged;
use crate::tui::state::{App, RunState, Screen, failing};
use crate::tui::worker::{Request, Slot};

/// Opens `run_id` on the Run screen, at `step` when given.
pub(super) fn open(app: &mut App, run_id: String, step: Option<i64>) {
    let same = app.run.run_id.as_deref() == Some(run_id.as_str());
    if !same {
        app.run = RunState::default();
        app.run.run_id = Some(run_id);
    } else {
        app.run.viewer = None;
        app.run.focus_detail = false;
        app.run.scroll = 0;
    }
    app.run.want_step = step;
    match step {
        Some(s) if same && app.run.timeline.rows.iter().any(|(_, r)| r.step == s) => {
            select_step(app, s);
        }
        _ => app.run.timeline = Paged::default(),
    }
    app.go(Screen::Run);
}

pub(super) fn ensure(app: &mut App) {
    if app.run.run_id.is_some() && !app.run.timeline.loaded && !app.run.timeline.loading {
        // A sorted timeline opens at its top (a step is not its key).
        let anchor = match app.run.want_step {
            Some(s) if !app.run.sorted() => Anchor::Around(step_key(s)),
            _ => Anchor::First,
        };
        let a = app.run.timeline.reset(anchor);
        request_page(app, a);
    }
    if let Some(id) = &app.run.run_id
        && app.run.header.wants()
    {
        app.run.header.begin();
        let id = id.clone();
        app.request(Slot::RunHeader, Request::RunHeader(id));
    }
    want_detail(app);
}

fn request_page(app: &mut App, anchor: Anchor) {
    let Some(run_id) = app.run.run_id.clone() else {
        return;
    };
    let request = Request::Timeline {
        filter: app.filter.clone(),
        run_id,
        sort: app.run.sort,
        desc: app.run.desc,
        anchor: anchor.clone(),
    };
    app.request_page(Slot::Timeline, anchor, request);
}

pub(super) fn take_timeline(
    app: &mut App,
    anchor: Option<Anchor>,
    run_id: String,
    page: Page<DecisionRow>,
) {
    if app.run.run_id.as_deref() != Some(run_id.as_str()) {
        return;
    }
    let h = app.height(layout::List::Timeline);
    if let Some(a) = anchor {
        let next = app.run.timeline.apply(&a, page, h);
        if let Some(step) = app.run.want_step {
            select_step(app, step);
        }
        if let Some(next) = next {
            request_page(app, next);
        }
        if app.run.viewer.is_none() {
            want_detail(app);
        }
    }
}

pub(super) fn take_next_failing(app: &mut App, step: Option<i64>) {
    match step {
        Some(s) => go_to_step(app, s),
        None => app.status = Some("no further failing decision in this run".into()),
    }
}

/// `s`/`S`: the timeline in another order, read again around the decision
/// that was selected (it stays selected).
fn sort(app: &mut App, reverse: bool) {
    if reverse {
        app.run.desc = !app.run.desc;
    } else {
        app.run.sort = app.run.sort.next();
    }
    let anchor = match app.run.timeline.selected() {
        Some(row) => {
            app.run.want_step = Some(row.step);
            Anchor::Around(timeline_key(row, app.run.sort))
        }
        None => Anchor::First,
    };
    let a = app.run.timeline.reset(anchor);
    request_page(app, a);
}

/// Reads the timeline around `step` and selects it.
pub(super) fn go_to_step(app: &mut App, step: i64) {
    app.run.want_step = Some(step);
    let a = app.run.timeline.reset(Anchor::Around(step_key(step)));
    request_page(app, a);
}

fn select_step(app: &mut App, step: i64) {
    let h = app.height(layout::List::Timeline);
    if let Some(i) = app
        .run
        .timeline
        .rows
        .iter()
        .position(|(_, r)| r.step == step)
    {
        let len = app.run.timeline.rows.len();
        app.run.timeline.cursor.to(i, len, h);
        app.run.want_step = None;
        detail_moved(app);
    }
}

/// The selected decision changed: reset the detail pane and ask for it.
fn detail_moved(app: &mut App) {
    app.run.scroll = 0;
    app.run.viewer = None;
    want_detail(app);
}

/// Asks for the selected decision's detail unless it is cached or asked.
fn want_detail(app: &mut App) {
    if app.screen != Screen::Run {
        return;
    }
    let Some(id) = app.run.timeline.selected().map(|r| r.decision_id) else {
        return;
    };
    if app.details.contains(id) {
        return;
    }
    if app.details.wanted == Some(id) && app.inflight.waiting(Slot::Detail) {
        return;
    }
    app.details.wanted = Some(id);
    app.details.failed = None;
    app.request(Slot::Detail, Request::Detail(id));
}

/// Esc closes the payload viewer, then leaves the detail pane.
pub(super) fn back(app: &mut App) -> bool {
    if super::search::clear(app) {
        return true;
    }
    if app.run.viewer.is_some() {
        app.run.viewer = None;
        return true;
    }
    if app.run.focus_detail {
        app.run.focus_detail = false;
        return true;
    }
    false
}

pub(super) fn act(app: &mut App, action: Action) {
    if app.run.run_id.is_none() {
        return;
    }
    let h = app.height(layout::List::Timeline);
    match action {
        Action::Find => super::search::start(app),
        Action::Sort | Action::Reverse if !app.run.focus_detail => {
            sort(app, action == Action::Reverse)
        }
        Action::NextFailing | Action::PrevFailing | Action::NextMatch | Action::PrevMatch => {
            let forward = matches!(action, Action::NextFailing | Action::NextMatch);
            if !super::search::step(app, forward) {
                next_failing(app, forward);
            }
        }
        Action::ToggleHidden => {
            app.run.show_hidden = !app.run.show_hidden;
        }
        Action::ShowArguments => viewer::open(app, PayloadColumn::Arguments),
        Action::ShowResult => viewer::open(app, PayloadColumn::Result),
        Action::ShowRaw => viewer::open(app, PayloadColumn::Raw),
        Action::Right | Action::Enter if !app.run.focus_detail => app.run.focus_detail = true,
        Action::Left if app.run.focus_detail => {
            app.run.focus_detail = false;
        }
        a if app.run.focus_detail => act_detail(app, a),
        Action::Top | Action::Bottom => {
            let anchor = if action == Action::Top {
                Anchor::First
            } else {
                Anchor::Last
            };
            if (action == Action::Top && !app.run.timeline.more_before)
                || (action == Action::Bottom && !app.run.timeline.more_after)
            {
                let d = if action == Action::Top {
                    isize::MIN / 2
                } else {
                    isize::MAX / 2
                };
                app.run.timeline.move_by(d, h);
                detail_moved(app);
            } else {
                let a = app.run.timeline.reset(anchor);
                request_page(app, a);
            }
        }
        a => {
            if let Some(d) = a.delta(h) {
                let before = app.run.timeline.cursor.sel;
                if let Some(next) = app.run.timeline.move_by(d, h) {
                    request_page(app, next);
                }
                if app.run.timeline.cursor.sel != before {
                    detail_moved(app);
                }
            }
        }
    }
}

/// `n`/`N`: the next failing decision among the rows held, else asks the
/// worker beyond them.
fn next_failing(app: &mut App, forward: bool) {
    let none = format!(
        "no {} failing decision in this run",
        if forward { "later" } else { "earlier" }
    );
    hop(
        app,
        forward,
        false,
        failing,
        none,
        |filter, run_id, step| {
            let request = Request::NextFailing {
                filter,
                run_id,
                step,
                forward,
            };
            (Slot::NextFailing, request)
        },
    );
}

/// Moves the timeline's selection to the next (previous) row that `hit`
/// takes, from the selection (`inclusive`: the selection itself counts);
/// beyond the rows held, asks the worker with the request `ask` makes from
/// the filter, run and selected step; else says `none`.
pub(super) fn hop(
    app: &mut App,
    forward: bool,
    inclusive: bool,
    hit: impl Fn(&DecisionRow) -> bool,
    none: String,
    ask: impl FnOnce(Filter, String, i64) -> (Slot, Request),
) {
    let h = app.height(layout::List::Timeline);
    let tl = &app.run.timeline;
    let sel = tl.cursor.sel;
    let found = if forward {
        let from = if inclusive { sel } else { sel + 1 };
        tl.rows
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, (_, r))| hit(r))
            .map(|(i, _)| i)
    } else {
        let to = if inclusive { sel + 1 } else { sel };
        tl.rows
            .iter()
            .enumerate()
            .take(to)
            .rev()
            .find(|(_, (_, r))| hit(r))
            .map(|(i, _)| i)
    };
    match found {
        Some(i) => {
            let len = tl.rows.len();
            app.run.timeline.cursor.to(i, len, h);
            detail_moved(app);
        }
        None if app.run.sorted() && (tl.more_after || tl.more_before) => {
            app.status = Some(
                "in a sorted timeline n/N look among the rows read: s back to step order"
                    .to_string(),
            )
        }
        None if (forward && tl.more_after) || (!forward && tl.more_before) => {
            if let (Some(step), Some(run_id)) =
                (tl.selected().map(|r| r.step), app.run.run_id.clone())
            {
                let (slot, request) = ask(app.filter.clone(), run_id, step);
                app.request(slot, request);
            }
        }
        None => app.status = Some(none),
    }
}

/// Keys in the detail pane: the payload viewer's when one is open, else
/// scrolling the detail.
fn act_detail(app: &mut App, a: Action) {
    let dh = app.height(layout::List::Detail);
    if app.run.viewer.is_some() {
        match a {
            Action::Top => viewer::top(app),
            Action::Bottom => viewer::bottom(app),
            _ => {
                if let Some(d) = a.delta(dh) {
                    viewer::scroll(app, d);
                }
            }
        }
        return;
    }
    let page = dh.saturating_sub(1) as u16;
    let max = crate::tui::views::detail::detail_len(app).saturating_sub(dh) as u16;
    let s = &mut app.run.scroll;
    match a {
        Action::Down => *s = s.saturating_add(1),
        Action::Up => *s = s.saturating_sub(1),
        Action::PageDown => *s = s.saturating_add(page),
        Action::PageUp => *s = s.saturating_sub(page),
        Action::MoveBy(n) => *s = s.saturating_add_signed(n as i16),
        Action::Top => *s = 0,
        Action::Bottom => *s = max,
        _ => {}
    }
    *s = (*s).min(max);
}
