//! The Findings screen: a week of findings by kind, beside the week
//! before, moved a week at a time; Enter lists a kind's findings
//! (FindingList), and Enter there opens the run at the finding's decision.

use super::run;
use crate::store::browse::{Anchor, FindingItem, FindingSet, Page};
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::{Cursor, Paged};
use crate::tui::state::{App, FindingListState, Listed, Load, Screen};
use crate::tui::worker::{Request, Slot};
use crate::window::WEEK;

pub(super) fn ensure(app: &mut App) {
    if app.findings.data.wants() {
        app.findings.data.begin();
        app.request(
            Slot::Findings,
            Request::Findings {
                filter: app.filter.clone(),
                since: app.findings.since,
                until: app.findings.until,
            },
        );
    }
}

pub(super) fn take(app: &mut App, c: Box<crate::store::browse::FindingCounts>) {
    app.findings.data.set(c);
    super::table::apply(app, super::table::Table::Kinds, super::table::Op::Refresh);
}

/// Shows the window `[since, until)` instead.
fn shift(app: &mut App, since: i64, until: i64) {
    app.findings.since = since;
    app.findings.until = until;
    app.findings.data = Load::default();
    app.findings.cursor = Cursor::default();
    app.ensure();
}

pub(super) fn act(app: &mut App, action: Action) {
    let h = app.height(layout::List::Findings);
    let len = app
        .findings
        .data
        .value
        .as_ref()
        .map(|d| d.rows.len())
        .unwrap_or(0);
    let (s, u) = (app.findings.since, app.findings.until);
    match action {
        Action::WeekBack | Action::Left => shift(app, s - WEEK, u - WEEK),
        Action::WeekForward | Action::Right => shift(app, s + WEEK, u + WEEK),
        Action::ThisWeek => {
            let now = app.opts.now_us;
            shift(app, now - WEEK, now)
        }
        Action::Enter => {
            let Some(d) = &app.findings.data.value else {
                return;
            };
            let at = app.findings.view.selected(&app.findings.cursor);
            if let Some(row) = at.and_then(|i| d.rows.get(i)) {
                app.findings.list = FindingListState {
                    set: Some(FindingSet {
                        kind: row.kind.clone(),
                        since: s,
                        until: u,
                    }),
                    page: Paged::default(),
                    find: String::new(),
                    typing: false,
                    sort: None,
                    desc: false,
                };
                app.go(Screen::FindingList);
            }
        }
        a => {
            if let Some(d) = a.delta(h) {
                app.findings.cursor.move_by(d, len, h);
            }
        }
    }
}

pub(super) fn ensure_list(app: &mut App) {
    let l = &app.findings.list;
    if l.set.is_some() && !l.page.loaded && !l.page.loading {
        let a = app.findings.list.page.reset(Anchor::First);
        request_page(app, a);
    }
}

fn request_page(app: &mut App, anchor: Anchor) {
    let Some(set) = app.findings.list.set.clone() else {
        return;
    };
    let l = &app.findings.list;
    let request = Request::FindingList {
        filter: app.filter.clone(),
        set,
        sort: l.sort,
        desc: l.desc,
        anchor: anchor.clone(),
    };
    app.request_page(Slot::FindingList, anchor, request);
}

pub(super) fn take_page(app: &mut App, anchor: Option<Anchor>, page: Page<FindingItem>) {
    let h = app.height(layout::List::FindingList);
    if let Some(a) = anchor
        && let Some(next) = app.findings.list.page.apply(&a, page, h)
    {
        request_page(app, next);
    }
}

/// `n`/`N` in a kind's findings: the next (previous) finding read that
/// contains the text, round the rows read.
fn step_list(app: &mut App, forward: bool, inclusive: bool) {
    let pat = crate::find::pattern(&app.findings.list.find);
    if pat.is_empty() {
        app.status = Some("n/N move between matches: search with / first".into());
        return;
    }
    let h = app.height(layout::List::FindingList);
    let p = &app.findings.list.page;
    let hits: Vec<usize> = p
        .rows
        .iter()
        .enumerate()
        .filter(|(_, (_, x))| {
            x.fields()
                .iter()
                .any(|(_, v)| crate::find::contains(v, &pat))
        })
        .map(|(i, _)| i)
        .collect();
    let at = p.cursor.sel;
    let next = if forward {
        hits.iter()
            .find(|&&i| i > at || (inclusive && i == at))
            .or(hits.first())
    } else {
        hits.iter().rev().find(|&&i| i < at).or(hits.last())
    };
    match next {
        Some(&i) => {
            let len = p.rows.len();
            app.findings.list.page.cursor.to(i, len, h);
        }
        None => app.status = Some(format!("no finding read contains {pat:?}")),
    }
}

/// Keys while typing the search of a kind's findings.
pub(super) fn typing_list(app: &mut App, action: Action) {
    let l = &mut app.findings.list;
    match action {
        Action::Type(c) => l.find.push(c),
        Action::Backspace => {
            l.find.pop();
        }
        Action::ClearInput => l.find.clear(),
        Action::Submit => {
            l.typing = false;
            return;
        }
        Action::Cancel | Action::Back => {
            l.find.clear();
            l.typing = false;
            return;
        }
        _ => return,
    }
    // The first match from the selection on, as the text is typed.
    if !crate::find::pattern(&app.findings.list.find).is_empty() {
        step_list(app, true, true);
    }
}

/// Esc with a search in force clears it.
pub(super) fn back_list(app: &mut App) -> bool {
    let had = !app.findings.list.find.is_empty();
    app.findings.list.find.clear();
    had
}

pub(super) fn act_list(app: &mut App, action: Action) {
    let h = app.height(layout::List::FindingList);
    match action {
        Action::Find => {
            app.findings.list.typing = true;
            return;
        }
        Action::NextMatch | Action::PrevMatch => {
            return step_list(app, action == Action::NextMatch, false);
        }
        Action::Sort | Action::Reverse => {
            let l = &mut app.findings.list;
            if action == Action::Sort {
                let n = <FindingItem as Listed>::COLUMNS.len();
                l.sort = match l.sort {
                    None => Some(0),
                    Some(c) if c + 1 < n => Some(c + 1),
                    Some(_) => None,
                };
            } else {
                l.desc = !l.desc;
            }
            // Read again in the new order, around the finding selected.
            let anchor = match l.page.selected() {
                Some(x) => Anchor::Around(crate::store::browse::finding_sorted_key(x, l.sort)),
                None => Anchor::First,
            };
            let a = app.findings.list.page.reset(anchor);
            return request_page(app, a);
        }
        _ => {}
    }
    if matches!(action, Action::Top | Action::Bottom) {
        let a = if action == Action::Top {
            Anchor::First
        } else {
            Anchor::Last
        };
        let a = app.findings.list.page.reset(a);
        request_page(app, a);
    } else if let Some(d) = action.delta(h) {
        if let Some(a) = app.findings.list.page.move_by(d, h) {
            request_page(app, a);
        }
    } else if action == Action::Enter
        && let Some(item) = app.findings.list.page.selected()
    {
        match (&item.row.run_id, item.row.step) {
            (Some(run_id), step) => {
                let run_id = run_id.clone();
                run::open(app, run_id, step);
            }
            _ => {
                app.status = Some(
                    "a catalogue finding: it is about a catalogue's tool, not a run".to_string(),
                )
            }
        }
    }
}
