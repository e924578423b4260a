//! The TUI's one state, `App`: a struct per screen, the filter, the cache of
//! decision details and the requests in flight. Only `update` changes it;
//! the views read it.

mod compare;
pub mod complete;
mod confusions;
mod decisions;
mod findings;
mod form;
mod ladder;
mod refusals;
mod rows;
mod run;
mod runs;
mod screen;
mod table;
mod tools;

use std::collections::HashMap;
use std::sync::Arc;

pub use compare::{
    ComparePane, ComparePanes, CompareState, OpenCell, ToolDiffState, WIDE, panes, rows_in,
};
pub use confusions::{ConfusionsState, MATRIX};
pub use decisions::DecisionsState;
pub use findings::{FindingListState, FindingsState};
pub use form::{FilterForm, form_of, parse_form};
pub use ladder::{LadderState, TREND_DAYS};
pub use refusals::RefusalsState;
pub use rows::{AttemptRow, LadderRow, attempt_rows};
pub use run::{DetailCache, PayloadSearch, RunState, Viewer, failing};
pub use runs::{Fuzzy, RunsState};
pub use screen::Screen;
pub use table::{Listed, SortKey, TableView, narrowed, out_of_sight, sorted_by};
pub use tools::{ToolState, ToolsState};

use super::layout;
use super::theme::Theme;
use super::worker::{DetailView, Request, Slot};
use crate::filter::Filter;
use crate::metrics::Confusions;
use crate::store::browse::{Anchor, FilterHints};

/// A value a worker computes: held, being computed, or failed (the error
/// is shown where the value would be).
#[derive(Debug, Clone)]
pub struct Load<T> {
    pub value: Option<T>,
    pub loading: bool,
    pub error: Option<String>,
}

impl<T> Default for Load<T> {
    fn default() -> Self {
        Load {
            value: None,
            loading: false,
            error: None,
        }
    }
}

impl<T> Load<T> {
    /// Neither held nor asked for (a failed value is asked for again).
    pub fn wants(&self) -> bool {
        self.value.is_none() && !self.loading
    }
    /// It is being asked for.
    pub fn begin(&mut self) {
        self.loading = true;
        self.error = None;
    }
    pub fn set(&mut self, v: T) {
        self.value = Some(v);
        self.loading = false;
        self.error = None;
    }
    pub fn fail(&mut self, e: String) {
        self.loading = false;
        self.error = Some(e);
    }
}

/// Options the runner gives the app.
#[derive(Debug, Clone)]
pub struct Options {
    /// The clock (`RUNG_NOW` or the system's), UTC microseconds.
    pub now_us: i64,
    pub theme: Theme,
    /// Secrets are shown (`--no-redact`): the screen says so.
    pub no_redact: bool,
    /// What every string from a trace is masked with before it is drawn.
    pub redactor: Arc<crate::redact::Redactor>,
}

/// The requests sent and not yet answered: only the answer to the latest
/// request of a slot is taken, the others are stale.
#[derive(Debug, Default)]
pub struct Inflight {
    seq: u64,
    latest: HashMap<Slot, u64>,
    /// The anchor each paged slot's latest request asked for.
    anchors: HashMap<Slot, Anchor>,
}

impl Inflight {
    /// A new request number for `slot`, superseding the slot's earlier ones.
    pub fn next(&mut self, slot: Slot) -> u64 {
        self.seq += 1;
        self.latest.insert(slot, self.seq);
        self.seq
    }
    pub fn set_anchor(&mut self, slot: Slot, anchor: Anchor) {
        self.anchors.insert(slot, anchor);
    }
    pub fn is_latest(&self, slot: Slot, seq: u64) -> bool {
        self.latest.get(&slot) == Some(&seq)
    }
    pub fn waiting(&self, slot: Slot) -> bool {
        self.latest.contains_key(&slot)
    }
    /// The slot's latest request is answered (or abandoned); returns the
    /// anchor it asked for.
    pub fn done(&mut self, slot: Slot) -> Option<Anchor> {
        self.latest.remove(&slot);
        self.anchors.remove(&slot)
    }
    pub fn len(&self) -> usize {
        self.latest.len()
    }
    pub fn is_empty(&self) -> bool {
        self.latest.is_empty()
    }
}

pub struct App {
    pub screen: Screen,
    pub back: Vec<Screen>,
    pub filter: Filter,
    pub form: FilterForm,
    /// The filter editor is open.
    pub editing_filter: bool,
    pub help: bool,
    pub quit: bool,
    pub size: (u16, u16),
    pub opts: Options,
    pub empty: Load<bool>,
    pub hints: Load<FilterHints>,
    /// The filter editor's completions (asked for when it opens).
    pub completions: Load<crate::store::completion::Completions>,
    pub ladder: LadderState,
    pub confusions: Load<Confusions>,
    pub runs: RunsState,
    pub run: RunState,
    pub refusals: RefusalsState,
    pub confusion: ConfusionsState,
    pub tools: ToolsState,
    pub tool: ToolState,
    pub decisions: DecisionsState,
    pub findings: FindingsState,
    pub compare: CompareState,
    pub tool_diff: ToolDiffState,
    pub details: DetailCache,
    /// The last problem a worker reported, shown in the key bar.
    pub status: Option<String>,
    /// Requests `update` made, for the runner to send.
    pub outbox: Vec<(Slot, u64, Request)>,
    /// Text for the terminal's clipboard (OSC 52), for the runner to write.
    pub clip: Option<String>,
    /// Where `e` writes a list (the working directory unless set).
    pub export_dir: std::path::PathBuf,
    /// Lists written so far (numbers the next file).
    pub exports: u32,
    pub inflight: Inflight,
    /// The keys in force (the configuration's `[keys]` over the defaults).
    pub keys: std::sync::Arc<crate::tui::keymap::Keymap>,
    /// What each area of the last frame does when clicked: written by
    /// drawing (its only output besides the cells), read by the mouse.
    pub hits: std::cell::RefCell<crate::tui::mouse::Hits>,
    /// The help popup's first line shown (↑/↓/PgUp/PgDn scroll it), and
    /// the last first line there is, as the last frame drew it.
    pub help_top: usize,
    pub help_max: std::cell::Cell<usize>,
}

impl App {
    /// A new app on the Ladder screen; nothing is loaded until `start`.
    pub fn new(opts: Options, size: (u16, u16)) -> App {
        let (since, until) = crate::window::last_week(opts.now_us);
        App {
            screen: Screen::Ladder,
            back: Vec::new(),
            filter: Filter::default(),
            form: FilterForm::default(),
            editing_filter: false,
            help: false,
            quit: false,
            size,
            empty: Load::default(),
            hints: Load::default(),
            completions: Load::default(),
            ladder: LadderState::default(),
            confusions: Load::default(),
            runs: RunsState::default(),
            run: RunState::default(),
            refusals: RefusalsState {
                since,
                until,
                ..Default::default()
            },
            confusion: ConfusionsState::default(),
            tools: ToolsState::default(),
            tool: ToolState::default(),
            decisions: DecisionsState::default(),
            findings: FindingsState {
                since,
                until,
                ..Default::default()
            },
            compare: CompareState::default(),
            tool_diff: ToolDiffState::default(),
            details: DetailCache::default(),
            status: None,
            outbox: Vec::new(),
            clip: None,
            export_dir: std::path::PathBuf::from("."),
            exports: 0,
            inflight: Inflight::default(),
            keys: Default::default(),
            hits: Default::default(),
            help_top: 0,
            help_max: Default::default(),
            opts,
        }
    }

    /// Requests still unanswered.
    pub fn pending(&self) -> usize {
        self.inflight.len()
    }

    pub fn is_typing(&self) -> bool {
        self.editing_filter
            || (self.screen == Screen::Runs && self.runs.fuzzy.typing)
            || (self.screen == Screen::Tools && self.tools.typing)
            || (self.screen == Screen::Compare && self.compare.typing)
            || (self.screen == Screen::Decisions && self.decisions.typing)
            || self.table_typing()
            || (self.screen == Screen::Run && self.run.typing)
            || (self.screen == Screen::FindingList && self.findings.list.typing)
    }

    /// Rows a list shows at the current terminal size.
    pub fn height(&self, of: layout::List) -> usize {
        layout::list_height(of, self.size)
    }

    /// The detail of the decision selected in the Run screen's timeline,
    /// when it has arrived.
    pub fn selected_detail(&self) -> Option<&Arc<DetailView>> {
        let id = self.run.timeline.selected()?.decision_id;
        self.details.get(id)
    }

    /// The tool rows shown, in order (indices into `tools.data`).
    pub fn tool_rows(&self) -> Vec<usize> {
        self.tools.rows()
    }
}
