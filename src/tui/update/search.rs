//! `/` on the Run screen (issue 16): in the timeline, `n`/`N` then move to
//! the next or previous decision containing the text (the rows held first,
//! then the store beyond them); in the payload viewer, the worker searches
//! the payload chunk by chunk as it is shown (masked) and the viewer jumps
//! to the match.

use super::run;
use crate::find;
use crate::store::browse::found_in;
use crate::tui::action::Action;
use crate::tui::state::App;
use crate::tui::worker::find::{Found, From};
use crate::tui::worker::{Request, Slot};

/// Whether keys go to the payload viewer (open, with the keys).
fn in_viewer(app: &App) -> bool {
    app.run.focus_detail && app.run.viewer.is_some()
}

/// `/`: starts typing into the viewer's search or the timeline's.
pub(super) fn start(app: &mut App) {
    app.run.typing = true;
    if let (true, Some(v)) = (in_viewer(app), &mut app.run.viewer) {
        v.search.find.clear();
        v.search.hit = None;
        v.search.missing = false;
    } else {
        app.run.find.clear();
    }
}

/// A key while typing a search on the Run screen.
pub(super) fn typing(app: &mut App, action: Action) {
    let viewer = in_viewer(app);
    let input = match (&mut app.run.viewer, viewer) {
        (Some(v), true) => &mut v.search.find,
        _ => &mut app.run.find,
    };
    let changed = match action {
        Action::Type(_) | Action::Backspace | Action::ClearInput => {
            super::edit_input(input, action)
        }
        Action::Submit => {
            app.run.typing = false;
            if viewer {
                // A payload may be 100 MB: it is searched once the text is
                // typed, from the top of the screen.
                search_viewer(app, true, true);
            }
            return;
        }
        Action::Cancel | Action::Back => {
            input.clear();
            app.run.typing = false;
            if let Some(v) = &mut app.run.viewer {
                v.search.hit = None;
            }
            return;
        }
        _ => false,
    };
    if changed && !viewer {
        // The timeline's rows are at hand: the first match from the
        // selection on is selected as the text is typed.
        step_timeline(app, true, true);
    }
}

/// `n`/`N` on the Run screen: between matches when a search is in force
/// (the viewer's when it has the keys), else `None` (the next failing).
pub(super) fn step(app: &mut App, forward: bool) -> bool {
    if in_viewer(app) {
        let has = app
            .run
            .viewer
            .as_ref()
            .is_some_and(|v| !v.search.find.is_empty());
        if has {
            search_viewer(app, forward, false);
        }
        return has;
    }
    if find::pattern(&app.run.find).is_empty() {
        return false;
    }
    step_timeline(app, forward, false);
    true
}

/// Esc: clears the viewer's search, then the timeline's; false when
/// neither was in force.
pub(super) fn clear(app: &mut App) -> bool {
    if let (true, Some(v)) = (in_viewer(app), &mut app.run.viewer)
        && !v.search.find.is_empty()
    {
        v.search = Default::default();
        return true;
    }
    if !in_viewer(app) && !app.run.find.is_empty() {
        app.run.find.clear();
        return true;
    }
    false
}

/// Selects the next (previous) decision of the timeline that matches, from
/// the selection (`inclusive`: the selection itself counts).
fn step_timeline(app: &mut App, forward: bool, inclusive: bool) {
    let pat = find::pattern(&app.run.find);
    if pat.is_empty() {
        return;
    }
    let hit = |d: &crate::store::browse::DecisionRow| !found_in(d, &pat).is_empty();
    let none = format!(
        "no {} decision of this run contains {:?}",
        if forward { "later" } else { "earlier" },
        app.run.find.trim()
    );
    let pattern = app.run.find.clone();
    run::hop(
        app,
        forward,
        inclusive,
        hit,
        none,
        |filter, run_id, step| {
            let request = Request::NextMatch {
                filter,
                run_id,
                step,
                forward,
                pattern,
            };
            (Slot::NextMatch, request)
        },
    );
}

/// The store's answer to `n`/`N` beyond the rows held.
pub(super) fn take_next_match(app: &mut App, step: Option<i64>) {
    match step {
        Some(s) => run::go_to_step(app, s),
        None => {
            app.status = Some(format!(
                "no further decision of this run contains {:?}",
                app.run.find.trim()
            ))
        }
    }
}

/// Asks the worker for the next (previous) match in the payload: from the
/// top of the screen for a new search, else from the match shown.
fn search_viewer(app: &mut App, forward: bool, new: bool) {
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    if v.search.find.is_empty() {
        return;
    }
    let from = match (&v.search.hit, new) {
        (Some(h), false) => From {
            start: h.start,
            state: h.state,
            line: h.line,
            col: h.col,
            inclusive: false,
        },
        _ => match v.locate(v.scroll) {
            Some((start, state, line)) => From {
                start,
                state,
                line,
                col: 0,
                inclusive: true,
            },
            None => From {
                start: 0,
                state: Default::default(),
                line: 0,
                col: 0,
                inclusive: true,
            },
        },
    };
    v.search.searching = true;
    v.search.missing = false;
    let request = Request::PayloadFind {
        decision_id: v.decision_id,
        column: v.column,
        pattern: v.search.find.clone(),
        from,
        forward,
    };
    app.status = Some("searching…".into());
    app.request(Slot::PayloadFind, request);
}

/// The worker's answer: shows the match (asking for its chunk when it is
/// not held).
pub(super) fn take_found(app: &mut App, found: Found) {
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    v.search.searching = false;
    for (at, st) in found.points.iter().copied() {
        v.add_checkpoint(at, st);
    }
    v.search.wrapped = found.wrapped;
    app.status = None;
    let Some(hit) = found.hit else {
        v.search.missing = true;
        app.status = Some(format!(
            "{:?} is nowhere in this {} (as shown: secrets masked)",
            v.search.find,
            v.column.as_str()
        ));
        return;
    };
    v.search.hit = Some(hit);
    if found.wrapped {
        app.status = Some("search went round the end".into());
    }
    if let Some(line) = v.line_of(&hit) {
        v.scroll = context(v, line);
        // The chunks around it, as scrolling would read them.
        super::viewer::scroll(app, 0);
        return;
    }
    v.search.want = true;
    v.loading = true;
    v.error = None;
    let (decision_id, column) = (v.decision_id, v.column);
    app.request(
        Slot::Payload,
        Request::Payload {
            decision_id,
            column,
            start: hit.start,
            state: hit.state,
        },
    );
}

/// A chunk arrived (`start..end`): when it holds the match waited for,
/// scroll to it.
pub(super) fn chunk_arrived(app: &mut App, start: u64, _end: u64) {
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    if !v.search.want {
        return;
    }
    if let Some(hit) = v.search.hit
        && hit.start == start
        && let Some(line) = v.line_of(&hit)
    {
        v.search.want = false;
        v.scroll = context(v, line);
        super::viewer::scroll(app, 0);
    }
}

/// The first line to show so that the match on `line` is in sight: up to
/// two short lines above it (a long line wraps over many rows).
fn context(v: &crate::tui::state::Viewer, line: usize) -> usize {
    let mut top = line;
    for l in v
        .lines()
        .take(line)
        .collect::<Vec<_>>()
        .iter()
        .rev()
        .take(2)
    {
        if l.chars().count() > 200 {
            break;
        }
        top -= 1;
    }
    top
}
