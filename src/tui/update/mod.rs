//! `update`, the only code that changes the state: the actions every screen
//! shares (tabs, back, help, typing, the filter) here, each screen's own in
//! its module. `update` does no I/O: it queues tagged requests in
//! `App::outbox` for the runner to hand to the workers and takes their
//! answers back as `Action::Loaded` (see `requests`).
//!
//! A screen is a `Screen` variant, a state struct in `state/`, a module here
//! with `ensure` (ask for what it shows) and `act` (its keys), its bindings
//! in the keymap and a view. The exhaustive `match`es on `Screen` (here, in
//! the keymap and in `views::draw`) and, for a new kind of request, on
//! `Slot` and `Response` (in `requests`) list every place to fill in.

mod compare;
mod confusions;
mod copy;
mod decisions;
mod export;
mod findings;
mod form;
mod ladder;
mod refusals;
mod requests;
mod run;
mod runs;
mod search;
mod table;
mod tools;
mod viewer;

use super::action::Action;
use super::layout;
use super::paged::Paged;
use super::state::{App, Load, Screen};

impl App {
    /// Queues what the first screen needs (called after the first frame).
    pub fn start(&mut self) {
        self.empty.begin();
        self.request(super::worker::Slot::Empty, super::worker::Request::Empty);
        self.ensure();
    }

    /// Sends the requests the current screen needs and does not have.
    fn ensure(&mut self) {
        match self.screen {
            Screen::Ladder => ladder::ensure(self),
            Screen::Runs => runs::ensure(self),
            Screen::Run => run::ensure(self),
            Screen::Refusals => refusals::ensure(self),
            Screen::Confusions => confusions::ensure(self),
            Screen::Tools => tools::ensure(self),
            Screen::Tool => tools::ensure_tool(self),
            Screen::Decisions => decisions::ensure(self),
            Screen::Findings => findings::ensure(self),
            Screen::FindingList => findings::ensure_list(self),
            Screen::Compare => compare::ensure(self),
            Screen::ToolDiff => compare::ensure_tool_diff(self),
        }
    }

    /// The database changed under the TUI (`rung serve` or an import wrote
    /// to it): everything shown is asked for again.
    pub fn data_changed(&mut self) {
        self.completions = Load::default();
        self.empty.begin();
        self.request(super::worker::Slot::Empty, super::worker::Request::Empty);
        self.filter_changed();
    }

    /// Forgets everything the filter shaped, then reloads the screen.
    fn filter_changed(&mut self) {
        self.ladder.counts = Load::default();
        self.ladder.metrics = Load::default();
        self.ladder.trend = Load::default();
        self.confusions = Load::default();
        self.confusion.grid = None;
        self.runs.page = Paged::default();
        self.runs.fuzzy.result = None;
        self.runs.fuzzy.rows.clear();
        self.refusals.data = Load::default();
        if let (Some(s), Some(u)) = (self.filter.since, self.filter.until) {
            self.refusals.since = s;
            self.refusals.until = u;
        }
        self.tools.data = Load::default();
        self.tools.matches = None;
        self.tool.audit = Load::default();
        self.decisions.page = Paged::default();
        self.findings.data = Load::default();
        self.findings.list.page = Paged::default();
        if let (Some(s), Some(u)) = (self.filter.since, self.filter.until) {
            self.findings.since = s;
            self.findings.until = u;
        }
        compare::filter_changed(self);
        if let Some(row) = self.run.timeline.selected() {
            self.run.want_step = Some(row.step);
        }
        self.run.timeline = Paged::default();
        self.run.viewer = None;
        self.ensure();
    }

    /// Shows `screen`; Esc returns to the one before (a bounded history).
    fn go(&mut self, screen: Screen) {
        if screen == self.screen {
            return;
        }
        self.back.push(self.screen);
        if self.back.len() > 64 {
            self.back.remove(0);
        }
        self.screen = screen;
        self.help = false;
        self.ensure();
    }
}

/// Applies one action: the only place the state changes.
pub fn update(app: &mut App, action: Action) {
    match action {
        Action::Loaded(done) => return app.receive(*done),
        Action::Resize(w, h) => {
            app.size = (w, h);
            let hh = app.height(layout::List::Runs);
            app.runs.page.cursor.fit(app.runs.page.rows.len(), hh);
            return;
        }
        Action::Quit => {
            app.quit = true;
            return;
        }
        _ => {}
    }
    if app.editing_filter {
        return form::act(app, action);
    }
    if app.help {
        // The keys that move scroll the help; any other key closes it (the
        // keymap sends `Help` for them while it is open) and does nothing
        // else.
        let max = app.help_max.get();
        // A page: the lines the popup shows (see `views::frame::help`).
        let page = (app.size.1 as usize).saturating_sub(4).max(1);
        app.help_top = match action {
            Action::Up => app.help_top.saturating_sub(1),
            Action::Down => app.help_top + 1,
            Action::PageUp => app.help_top.saturating_sub(page),
            Action::PageDown => app.help_top + page,
            Action::Top => 0,
            Action::Bottom => max,
            Action::MoveBy(d) => app.help_top.saturating_add_signed(d),
            _ => {
                app.help = false;
                return;
            }
        }
        .min(max);
        return;
    }
    if app.is_typing() {
        return typing(app, action);
    }
    app.status = None;
    match action {
        Action::Help => {
            app.help = true;
            app.help_top = 0;
        }
        Action::Go(s) => app.go(s),
        Action::NextTab | Action::PrevTab => {
            let tabs = Screen::TABS;
            let i = tabs
                .iter()
                .position(|s| *s == app.screen.tab())
                .unwrap_or(0);
            let j = if action == Action::NextTab {
                (i + 1) % tabs.len()
            } else {
                (i + tabs.len() - 1) % tabs.len()
            };
            app.go(tabs[j]);
        }
        Action::EditFilter => form::open(app),
        Action::ClearFilter => form::clear(app),
        Action::Back => back(app),
        Action::Copy => copy::id(app),
        Action::CopyRecord => copy::record(app),
        Action::Export => export::export(app, false),
        Action::ExportMarkdown => export::export(app, true),
        _ => {
            if let Some(op) = table::op_of(&action)
                && table::act(app, op)
            {
                return;
            }
            screen_action(app, action)
        }
    }
}

/// Esc: first closes what the screen has open, then returns to the screen
/// before.
fn back(app: &mut App) {
    let closed = match app.screen {
        Screen::Run => run::back(app),
        Screen::Runs => runs::back(app),
        Screen::Tools => tools::back(app),
        // An open cell's search goes first, then the cell.
        Screen::Compare => table::clear(app) || compare::back(app),
        Screen::Decisions => decisions::back(app),
        Screen::Refusals => app.refusals.day.take().is_some() || table::clear(app),
        Screen::Ladder | Screen::Confusions | Screen::Findings | Screen::Tool => table::clear(app),
        Screen::FindingList => findings::back_list(app),
        _ => false,
    };
    if closed {
        return;
    }
    if let Some(prev) = app.back.pop() {
        app.screen = prev;
        app.ensure();
    }
}

/// Keys while typing the Runs screen's fuzzy filter or the Tools or
/// Compare screen's find.
fn typing(app: &mut App, action: Action) {
    if table::typing(app) {
        return table_typing(app, action);
    }
    if app.screen == Screen::Run {
        return search::typing(app, action);
    }
    if app.screen == Screen::FindingList {
        return findings::typing_list(app, action);
    }
    let screen = app.screen;
    let (input, typing) = match screen {
        Screen::Runs => (&mut app.runs.fuzzy.input, &mut app.runs.fuzzy.typing),
        Screen::Compare => (&mut app.compare.find, &mut app.compare.typing),
        Screen::Decisions => (&mut app.decisions.view.find, &mut app.decisions.typing),
        _ => (&mut app.tools.find, &mut app.tools.typing),
    };
    let changed = match action {
        Action::Type(_) | Action::Backspace | Action::ClearInput => edit_input(input, action),
        Action::Submit => {
            // Enter keeps the filter and, on Runs and Tools, opens the
            // selected match at once (the matches still coming: the best
            // one, when they come).
            *typing = false;
            match screen {
                Screen::Runs if app.runs.fuzzy.loading => {
                    app.runs.fuzzy.open_when_ready = true;
                    return;
                }
                Screen::Runs | Screen::Tools => screen_action(app, Action::Enter),
                _ => {}
            }
            false
        }
        Action::Cancel | Action::Back => {
            input.clear();
            *typing = false;
            true
        }
        Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::MoveBy(_) => {
            screen_action(app, action);
            false
        }
        _ => false,
    };
    if changed {
        match screen {
            Screen::Runs => runs::run_fuzzy(app),
            Screen::Compare => compare::find(app),
            Screen::Decisions => decisions::reload(app),
            _ => tools::find(app),
        }
    }
}

/// Keys while typing a table's search: each change marks the matches and
/// selects the first from the selection on; Enter keeps the search (`n`/`N`
/// then move between its matches), Esc clears it.
fn table_typing(app: &mut App, action: Action) {
    let Some((input, typing)) = table::input(app) else {
        return;
    };
    let changed = match action {
        Action::Type(_) | Action::Backspace | Action::ClearInput => edit_input(input, action),
        Action::Submit => {
            *typing = false;
            false
        }
        Action::Cancel | Action::Back => {
            input.clear();
            *typing = false;
            true
        }
        Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
            screen_action(app, action);
            false
        }
        _ => false,
    };
    if changed {
        table::act(app, table::Op::Typed);
    }
}

/// An action for the current screen's own keys.
fn screen_action(app: &mut App, action: Action) {
    match app.screen {
        Screen::Ladder => ladder::act(app, action),
        Screen::Runs => runs::act(app, action),
        Screen::Run => run::act(app, action),
        Screen::Refusals => refusals::act(app, action),
        Screen::Confusions => confusions::act(app, action),
        Screen::Tools => tools::act(app, action),
        Screen::Tool => tools::act_tool(app, action),
        Screen::Decisions => decisions::act(app, action),
        Screen::Findings => findings::act(app, action),
        Screen::FindingList => findings::act_list(app, action),
        Screen::Compare => compare::act(app, action),
        Screen::ToolDiff => compare::act_tool_diff(app, action),
    }
}

/// A key that edits a search's text: a character, Backspace or clear;
/// whether the text changed.
pub(super) fn edit_input(input: &mut String, action: Action) -> bool {
    match action {
        Action::Type(c) => {
            input.push(c);
            true
        }
        Action::Backspace => input.pop().is_some(),
        Action::ClearInput => {
            let had = !input.is_empty();
            input.clear();
            had
        }
        _ => false,
    }
}
