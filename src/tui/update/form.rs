//! The filter editor: `f` opens it (and asks for the known values and the
//! completions), typing edits a field (a popup offers the values the
//! database holds: ↑/↓ choose, Tab picks), Enter checks that the filter
//! keeps something and applies it (a filter that keeps nothing is said so
//! first: Enter again applies it anyway), Esc puts the popup away, then
//! undoes the edits; `F` clears the filter.

use crate::filter::Filter;
use crate::tui::action::Action;
use crate::tui::state::complete::{self, Candidate};
use crate::tui::state::{App, FilterForm, form_of, parse_form};
use crate::tui::worker::{Request, Slot};

pub(super) fn open(app: &mut App) {
    app.editing_filter = true;
    app.form.error = None;
    if app.hints.wants() {
        app.hints.begin();
        app.request(Slot::Hints, Request::Hints);
    }
    if app.completions.wants() {
        app.completions.begin();
        app.request(Slot::Completions, Request::Completions);
    }
}

pub(super) fn clear(app: &mut App) {
    app.form = FilterForm::default();
    if !app.filter.is_empty() {
        app.filter = Filter::default();
        app.filter_changed();
    }
}

impl App {
    /// The completions the popup offers now (none: no popup).
    pub fn popup(&self) -> Vec<Candidate> {
        let f = &self.form;
        match &self.completions.value {
            Some(c) if self.editing_filter && !f.closed => {
                let text = &f.fields[f.field];
                let list = complete::candidates(f.field, text, c);
                // A value typed out in full with nothing else like it:
                // nothing to offer.
                match list.as_slice() {
                    [only] if only.insert == complete::token(text).1 => Vec::new(),
                    _ => list,
                }
            }
            _ => Vec::new(),
        }
    }
}

fn set(app: &mut App, f: Filter) {
    app.form.error = None;
    app.form.checking = None;
    app.form.warned = None;
    app.editing_filter = false;
    if f != app.filter {
        app.filter = f;
        app.filter_changed();
    }
}

/// Enter: a filter that is the one in force, no filter, or one already
/// said to keep nothing is applied at once; another is first checked.
fn submit(app: &mut App) {
    match parse_form(&app.form, app.opts.now_us) {
        Ok(f) if f == app.filter || f.is_empty() || app.form.warned.as_ref() == Some(&f) => {
            set(app, f)
        }
        Ok(f) => {
            app.form.error = None;
            app.form.closed = true;
            app.form.warned = None;
            app.form.checking = Some(f.clone());
            app.request(Slot::Keeps, Request::Keeps(f));
        }
        Err(e) => app.form.error = Some(e),
    }
}

/// The answer to the check: a filter that keeps something is applied; one
/// that keeps nothing is said so.
pub(super) fn take_keeps(app: &mut App, f: Filter, any: bool) {
    if !app.editing_filter || app.form.checking.as_ref() != Some(&f) {
        return;
    }
    app.form.checking = None;
    if any {
        set(app, f);
    } else {
        app.form.warned = Some(f);
    }
}

/// The check failed (the worker says why in the key bar): the filter is
/// applied as if it had not been asked.
pub(super) fn keeps_failed(app: &mut App) {
    if let Some(f) = app.form.checking.take() {
        set(app, f);
    }
}

/// The field was edited: the popup opens again at its best match, and a
/// warning or a check in flight no longer holds.
fn edited(f: &mut FilterForm) {
    f.closed = false;
    f.pick = 0;
    f.warned = None;
    f.checking = None;
}

pub(super) fn act(app: &mut App, action: Action) {
    let popup = app.popup();
    let f = &mut app.form;
    let n = f.fields.len();
    match action {
        Action::Type(c) => {
            f.fields[f.field].push(c);
            edited(f);
        }
        Action::Backspace => {
            f.fields[f.field].pop();
            edited(f);
        }
        Action::ClearInput => {
            f.fields[f.field].clear();
            edited(f);
        }
        // ↑/↓ choose in the popup while it shows (the keymap sends them
        // then); otherwise they move between fields.
        Action::Down if !popup.is_empty() => f.pick = (f.pick + 1) % popup.len(),
        Action::Up if !popup.is_empty() => f.pick = (f.pick + popup.len() - 1) % popup.len(),
        Action::Pick => {
            if let Some(c) = popup.get(f.pick.min(popup.len().saturating_sub(1))) {
                f.fields[f.field] = complete::accept(&f.fields[f.field], c);
                edited(f);
                // A tag key goes on to its values; a value is done.
                f.closed = !c.insert.ends_with('=');
            }
        }
        Action::NextField | Action::Down => {
            f.field = (f.field + 1) % n;
            f.pick = 0;
        }
        Action::PrevField | Action::Up => {
            f.field = (f.field + n - 1) % n;
            f.pick = 0;
        }
        Action::Submit => submit(app),
        Action::Cancel | Action::Back if !popup.is_empty() => f.closed = true,
        Action::Cancel | Action::Back => {
            app.editing_filter = false;
            app.form = form_of(&app.filter, app.opts.now_us);
        }
        _ => {}
    }
}
