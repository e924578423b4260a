//! The filter editor: `f` opens it (and asks for the known values), typing
//! edits a field, Enter applies the filter to every screen, Esc undoes the
//! edits; `F` clears the filter.

use crate::filter::Filter;
use crate::tui::action::Action;
use crate::tui::state::{App, FilterForm, form_of, parse_form};
use crate::tui::worker::{Request, Slot};

pub(super) fn open(app: &mut App) {
    app.editing_filter = true;
    app.form.error = None;
    if app.hints.wants() {
        app.hints.begin();
        app.request(Slot::Hints, Request::Hints);
    }
}

pub(super) fn clear(app: &mut App) {
    app.form = FilterForm::default();
    if !app.filter.is_empty() {
        app.filter = Filter::default();
        app.filter_changed();
    }
}

fn apply(app: &mut App) {
    match parse_form(&app.form, app.opts.now_us) {
        Ok(f) => {
            app.form.error = None;
            app.editing_filter = false;
            if f != app.filter {
                app.filter = f;
                app.filter_changed();
            }
        }
        Err(e) => app.form.error = Some(e),
    }
}

pub(super) fn act(app: &mut App, action: Action) {
    let f = &mut app.form;
    match action {
        Action::Type(c) => f.fields[f.field].push(c),
        Action::Backspace => {
            f.fields[f.field].pop();
        }
        Action::ClearInput => f.fields[f.field].clear(),
        Action::NextField | Action::Down => f.field = (f.field + 1) % f.fields.len(),
        Action::PrevField | Action::Up => f.field = (f.field + f.fields.len() - 1) % f.fields.len(),
        Action::Submit => apply(app),
        Action::Cancel | Action::Back => {
            app.editing_filter = false;
            app.form = form_of(&app.filter, app.opts.now_us);
        }
        _ => {}
    }
}
