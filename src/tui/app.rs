//! The TUI's one state, its actions, and `update`, the only code that changes
//! the state. `update` does no I/O: it queues tagged requests in `outbox`
//! for the runner to hand to the workers, and takes their answers back as
//! `Action::Loaded`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::layout;
use super::paged::{Cursor, Paged};
use super::payload::Indent;
use super::theme::Theme;
use super::worker::{
    Chunk, DetailView, Done, FuzzyResult, RefusalData, Request, Response, Slot, ToolRow,
};
use crate::filter::Filter;
use crate::metrics::{Confusions, LadderCounts, Matrix, Metrics};
use crate::model::Rung;
use crate::store::browse::{
    Anchor, DecisionRow, DecisionSet, FilterHints, PayloadColumn, RunHeader, RunSort, ToolAudit,
    ToolDef, cmp_key, run_key, step_key,
};
use crate::store::query::RunRow;
use crate::window::{DAY, WEEK};

/// Days of the refusal trend on the Ladder screen.
pub const TREND_DAYS: u32 = 28;
/// Decision details kept in memory.
const DETAIL_CACHE: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Screen {
    Ladder,
    Runs,
    Run,
    Refusals,
    Confusions,
    Tools,
    /// A tool's definition and visibility audit (from Tools).
    Tool,
    /// A list of decisions (from a rung, a refusal reason or a cell).
    Decisions,
}

impl Screen {
    /// The six screens of the tab bar, in number-key order.
    pub const TABS: [Screen; 6] = [
        Screen::Ladder,
        Screen::Runs,
        Screen::Run,
        Screen::Refusals,
        Screen::Confusions,
        Screen::Tools,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Screen::Ladder => "Ladder",
            Screen::Runs => "Runs",
            Screen::Run => "Run",
            Screen::Refusals => "Refusals",
            Screen::Confusions => "Confusions",
            Screen::Tools => "Tools",
            Screen::Tool => "Tool",
            Screen::Decisions => "Decisions",
        }
    }

    /// The tab a screen belongs to.
    pub fn tab(self) -> Screen {
        match self {
            Screen::Tool => Screen::Tools,
            Screen::Decisions => Screen::Ladder,
            s => s,
        }
    }
}

/// What the keyboard can ask for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Quit,
    Help,
    Back,
    Go(Screen),
    NextTab,
    PrevTab,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Enter,
    /// `/`: start typing a fuzzy filter (Runs) or a find (Tools).
    Find,
    Sort,
    Reverse,
    NextFailing,
    PrevFailing,
    ToggleHidden,
    ShowArguments,
    ShowResult,
    ShowRaw,
    ToggleMatrix,
    WeekBack,
    WeekForward,
    ThisWeek,
    LatestWeek,
    EditFilter,
    ClearFilter,
    /// Typing: a character, a deletion, the end of typing.
    Type(char),
    Backspace,
    ClearInput,
    Submit,
    Cancel,
    NextField,
    PrevField,
    Resize(u16, u16),
    Loaded(Box<Done>),
}

/// A value a worker computes, with whether it is being computed.
#[derive(Debug, Clone)]
pub struct Load<T> {
    pub value: Option<T>,
    pub loading: bool,
}

impl<T> Default for Load<T> {
    fn default() -> Self {
        Load {
            value: None,
            loading: false,
        }
    }
}

impl<T> Load<T> {
    fn wants(&self) -> bool {
        self.value.is_none() && !self.loading
    }
    fn set(&mut self, v: T) {
        self.value = Some(v);
        self.loading = false;
    }
}

#[derive(Debug, Default)]
pub struct LadderState {
    pub cursor: Cursor,
    pub counts: Load<(LadderCounts, Vec<(String, u64)>)>,
    pub metrics: Load<Box<Metrics>>,
    pub trend: Load<Vec<u64>>,
}

/// The Runs screen's fuzzy filter.
#[derive(Debug, Default)]
pub struct Fuzzy {
    pub input: String,
    pub typing: bool,
    /// The answer for `input` (or for an earlier input while typing).
    pub result: Option<FuzzyResult>,
    pub loading: bool,
    pub cursor: Cursor,
    /// The order the matches are shown in: `None` is best match first.
    pub sorted: Option<(RunSort, bool)>,
    pub rows: Vec<RunRow>,
}

impl Fuzzy {
    pub fn active(&self) -> bool {
        !self.input.trim().is_empty()
    }
}

#[derive(Debug)]
pub struct RunsState {
    pub sort: RunSort,
    pub desc: bool,
    pub page: Paged<RunRow>,
    pub fuzzy: Fuzzy,
}

/// A payload shown in the Run screen's right pane, a few chunks at a time.
#[derive(Debug, Clone)]
pub struct Viewer {
    pub decision_id: i64,
    pub column: PayloadColumn,
    pub total: Option<u64>,
    /// Consecutive chunks (at most 3).
    pub chunks: VecDeque<Chunk>,
    /// Known chunk starts with the indenter state there, by start.
    pub checkpoints: Vec<(u64, Indent)>,
    pub scroll: usize,
    pub loading: bool,
    /// Scroll to the end once the last chunk arrives.
    want_bottom: bool,
}

impl Viewer {
    pub fn lines(&self) -> impl Iterator<Item = &String> {
        self.chunks.iter().flat_map(|c| c.lines.iter())
    }
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.lines.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn add_checkpoint(&mut self, at: u64, st: Indent) {
        match self.checkpoints.binary_search_by_key(&at, |c| c.0) {
            Ok(_) => {}
            Err(i) => self.checkpoints.insert(i, (at, st)),
        }
    }
    pub fn at_end(&self) -> bool {
        match (self.chunks.back(), self.total) {
            (Some(c), Some(t)) => c.end >= t,
            _ => false,
        }
    }
}

#[derive(Debug, Default)]
pub struct RunState {
    pub run_id: Option<String>,
    pub header: Load<Option<RunHeader>>,
    pub timeline: Paged<DecisionRow>,
    /// Keys go to the detail pane (else to the timeline).
    pub focus_detail: bool,
    pub scroll: u16,
    pub show_hidden: bool,
    pub viewer: Option<Viewer>,
    /// A step to select once the timeline holds it.
    pub want_step: Option<i64>,
}

#[derive(Debug, Default)]
pub struct RefusalsState {
    pub since: i64,
    pub until: i64,
    pub data: Load<Box<RefusalData>>,
    pub cursor: Cursor,
}

#[derive(Debug, Default)]
pub struct ConfusionsState {
    pub matrix: bool,
    /// Built when the cells arrive (not on every key or frame).
    pub grid: Option<Matrix>,
    pub cursor: Cursor,
    /// (row, column) in the matrix.
    pub cell: (usize, usize),
}

#[derive(Debug, Default)]
pub struct ToolsState {
    pub data: Load<Vec<ToolRow>>,
    pub cursor: Cursor,
    pub find: String,
    pub typing: bool,
    /// Indices into `data` that match `find`, best first (None: all).
    pub matches: Option<Vec<usize>>,
}

#[derive(Debug, Default)]
pub struct ToolState {
    pub catalogue: String,
    pub name: String,
    pub def: Load<Option<Box<ToolDef>>>,
    pub audit: Load<ToolAudit>,
    pub scroll: u16,
}

#[derive(Debug, Default)]
pub struct DecisionsState {
    pub set: Option<DecisionSet>,
    pub title: String,
    pub page: Paged<DecisionRow>,
}

/// The filter bar's fields as typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterForm {
    pub fields: [String; 6],
    pub field: usize,
    pub error: Option<String>,
}

impl FilterForm {
    pub const LABELS: [&'static str; 6] = ["model", "catalogue", "phase", "since", "until", "tag"];
    pub const HELP: [&'static str; 6] = [
        "comma-separated: any of them",
        "catalogue versions, comma-separated",
        "runtime phases, comma-separated",
        "RFC 3339 with offset, or relative: 30m 24h 7d 2w",
        "exclusive end; empty: now when since is set",
        "KEY=VALUE, comma-separated: all must hold",
    ];
}

/// Options the runner gives the app.
#[derive(Debug, Clone)]
pub struct Options {
    /// The clock (`RUNG_NOW` or the system's), UTC microseconds.
    pub now_us: i64,
    pub theme: Theme,
    /// Secrets are shown (`--no-redact`): the screen says so.
    pub no_redact: bool,
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
    pub ladder: LadderState,
    pub confusions: Load<Confusions>,
    pub runs: RunsState,
    pub run: RunState,
    pub refusals: RefusalsState,
    pub confusion: ConfusionsState,
    pub tools: ToolsState,
    pub tool: ToolState,
    pub decisions: DecisionsState,
    pub details: HashMap<i64, Arc<DetailView>>,
    detail_order: VecDeque<i64>,
    detail_wanted: Option<i64>,
    /// The last problem a worker reported, shown in the key bar.
    pub status: Option<String>,
    /// Requests `update` made, for the runner to send.
    pub outbox: Vec<(Slot, u64, Request)>,
    seq: u64,
    latest: HashMap<Slot, u64>,
    anchors: HashMap<Slot, Anchor>,
}

impl App {
    /// A new app on the Ladder screen; nothing is loaded until `start`.
    pub fn new(opts: Options, size: (u16, u16)) -> App {
        let until = opts.now_us;
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
            ladder: LadderState::default(),
            confusions: Load::default(),
            runs: RunsState {
                sort: RunSort::Id,
                desc: false,
                page: Paged::default(),
                fuzzy: Fuzzy::default(),
            },
            run: RunState::default(),
            refusals: RefusalsState {
                since: until - WEEK,
                until,
                ..Default::default()
            },
            confusion: ConfusionsState::default(),
            tools: ToolsState::default(),
            tool: ToolState::default(),
            decisions: DecisionsState::default(),
            details: HashMap::new(),
            detail_order: VecDeque::new(),
            detail_wanted: None,
            status: None,
            outbox: Vec::new(),
            seq: 0,
            latest: HashMap::new(),
            anchors: HashMap::new(),
            opts,
        }
    }

    /// Queues what the first screen needs (called after the first frame).
    pub fn start(&mut self) {
        self.empty.loading = true;
        self.request(Slot::Empty, Request::Empty);
        self.ensure();
    }

    /// Requests still unanswered.
    pub fn pending(&self) -> usize {
        self.latest.len()
    }

    pub fn is_typing(&self) -> bool {
        self.editing_filter
            || (self.screen == Screen::Runs && self.runs.fuzzy.typing)
            || (self.screen == Screen::Tools && self.tools.typing)
    }

    fn request(&mut self, slot: Slot, request: Request) {
        self.seq += 1;
        self.latest.insert(slot, self.seq);
        self.outbox.push((slot, self.seq, request));
    }

    fn request_page(&mut self, slot: Slot, anchor: Anchor) {
        self.anchors.insert(slot, anchor.clone());
        let request = match slot {
            Slot::Runs => Request::Runs {
                filter: self.filter.clone(),
                sort: self.runs.sort,
                desc: self.runs.desc,
                anchor,
            },
            Slot::Timeline => Request::Timeline {
                filter: self.filter.clone(),
                run_id: self.run.run_id.clone().unwrap_or_default(),
                anchor,
            },
            Slot::Decisions => Request::Decisions {
                filter: self.filter.clone(),
                set: self
                    .decisions
                    .set
                    .clone()
                    .unwrap_or(DecisionSet::Rung("passed".into())),
                anchor,
            },
            _ => return,
        };
        self.request(slot, request);
    }

    fn height(&self, of: layout::List) -> usize {
        layout::list_height(of, self.size)
    }

    /// Sends the requests the current screen needs and does not have.
    fn ensure(&mut self) {
        let f = self.filter.clone();
        match self.screen {
            Screen::Ladder => {
                if self.ladder.counts.wants() {
                    self.ladder.counts.loading = true;
                    self.request(Slot::Ladder, Request::Ladder(f.clone()));
                }
                if self.confusions.wants() {
                    self.confusions.loading = true;
                    self.request(Slot::Confusions, Request::Confusions(f.clone()));
                }
                if self.ladder.trend.wants() {
                    self.ladder.trend.loading = true;
                    let until = f.until.unwrap_or(self.opts.now_us);
                    self.request(
                        Slot::Trend,
                        Request::Trend {
                            filter: f.clone(),
                            until,
                            days: TREND_DAYS,
                        },
                    );
                }
                if self.ladder.metrics.wants() {
                    self.ladder.metrics.loading = true;
                    self.request(Slot::Metrics, Request::Metrics(f));
                }
            }
            Screen::Runs => {
                if !self.runs.page.loaded && !self.runs.page.loading {
                    let a = self.runs.page.reset(Anchor::First);
                    self.request_page(Slot::Runs, a);
                }
                if self.runs.fuzzy.active() && self.runs.fuzzy.result.is_none() {
                    self.run_fuzzy();
                }
            }
            Screen::Run => {
                if self.run.run_id.is_some()
                    && !self.run.timeline.loaded
                    && !self.run.timeline.loading
                {
                    let anchor = match self.run.want_step {
                        Some(s) => Anchor::Around(step_key(s)),
                        None => Anchor::First,
                    };
                    let a = self.run.timeline.reset(anchor);
                    self.request_page(Slot::Timeline, a);
                }
                if let Some(id) = &self.run.run_id
                    && self.run.header.wants()
                {
                    self.run.header.loading = true;
                    let id = id.clone();
                    self.request(Slot::RunHeader, Request::RunHeader(id));
                }
                self.want_detail();
            }
            Screen::Refusals => {
                if self.refusals.data.wants() {
                    self.refusals.data.loading = true;
                    self.request(
                        Slot::Refusals,
                        Request::Refusals {
                            filter: f,
                            since: self.refusals.since,
                            until: self.refusals.until,
                        },
                    );
                }
            }
            Screen::Confusions => {
                if self.confusions.wants() {
                    self.confusions.loading = true;
                    self.request(Slot::Confusions, Request::Confusions(f));
                }
            }
            Screen::Tools => {
                if self.tools.data.wants() {
                    self.tools.data.loading = true;
                    self.request(Slot::Tools, Request::Tools(f));
                }
            }
            Screen::Tool => {
                let (catalogue, name) = (self.tool.catalogue.clone(), self.tool.name.clone());
                if self.tool.def.wants() {
                    self.tool.def.loading = true;
                    self.request(
                        Slot::ToolDef,
                        Request::ToolDef {
                            catalogue: catalogue.clone(),
                            name: name.clone(),
                        },
                    );
                }
                if self.tool.audit.wants() {
                    self.tool.audit.loading = true;
                    self.request(
                        Slot::ToolAudit,
                        Request::ToolAudit {
                            filter: f,
                            catalogue,
                            name,
                        },
                    );
                }
            }
            Screen::Decisions => {
                if self.decisions.set.is_some()
                    && !self.decisions.page.loaded
                    && !self.decisions.page.loading
                {
                    let a = self.decisions.page.reset(Anchor::First);
                    self.request_page(Slot::Decisions, a);
                }
            }
        }
    }

    /// Forgets everything the filter shaped, then reloads the screen.
    /// The database changed under the TUI (`rung serve` or an import wrote
    /// to it): everything shown is asked for again.
    pub fn data_changed(&mut self) {
        self.empty.loading = true;
        self.request(Slot::Empty, Request::Empty);
        self.filter_changed();
    }

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

    fn open_run(&mut self, run_id: String, step: Option<i64>) {
        let same = self.run.run_id.as_deref() == Some(run_id.as_str());
        if !same {
            self.run = RunState::default();
            self.run.run_id = Some(run_id);
        } else {
            self.run.viewer = None;
            self.run.focus_detail = false;
            self.run.scroll = 0;
        }
        self.run.want_step = step;
        match step {
            Some(s) if same && self.run.timeline.rows.iter().any(|(_, r)| r.step == s) => {
                self.select_step(s);
            }
            _ => self.run.timeline = Paged::default(),
        }
        self.go(Screen::Run);
    }

    fn select_step(&mut self, step: i64) {
        let h = self.height(layout::List::Timeline);
        if let Some(i) = self
            .run
            .timeline
            .rows
            .iter()
            .position(|(_, r)| r.step == step)
        {
            self.run
                .timeline
                .cursor
                .to(i, self.run.timeline.rows.len(), h);
            self.run.want_step = None;
            self.detail_moved();
        }
    }

    /// The selected decision changed: reset the detail pane and ask for it.
    fn detail_moved(&mut self) {
        self.run.scroll = 0;
        self.run.viewer = None;
        self.want_detail();
    }

    fn want_detail(&mut self) {
        if self.screen != Screen::Run {
            return;
        }
        let Some(id) = self.run.timeline.selected().map(|r| r.decision_id) else {
            return;
        };
        if self.details.contains_key(&id) {
            return;
        }
        if self.detail_wanted == Some(id) && self.latest.contains_key(&Slot::Detail) {
            return;
        }
        self.detail_wanted = Some(id);
        self.request(Slot::Detail, Request::Detail(id));
    }

    pub fn selected_detail(&self) -> Option<&Arc<DetailView>> {
        let id = self.run.timeline.selected()?.decision_id;
        self.details.get(&id)
    }

    fn open_decisions(&mut self, set: DecisionSet, title: String) {
        self.decisions = DecisionsState {
            set: Some(set),
            title,
            page: Paged::default(),
        };
        self.go(Screen::Decisions);
    }

    fn run_fuzzy(&mut self) {
        let pattern = self.runs.fuzzy.input.trim().to_string();
        if pattern.is_empty() {
            self.runs.fuzzy.result = None;
            self.runs.fuzzy.rows.clear();
            self.runs.fuzzy.loading = false;
            self.latest.remove(&Slot::Fuzzy);
            return;
        }
        self.runs.fuzzy.loading = true;
        self.request(
            Slot::Fuzzy,
            Request::Fuzzy {
                filter: self.filter.clone(),
                pattern,
            },
        );
    }

    fn sort_fuzzy_rows(&mut self) {
        let fz = &mut self.runs.fuzzy;
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
        let h = layout::list_height(layout::List::Runs, self.size);
        fz.cursor.fit(fz.rows.len(), h);
    }

    fn tools_find(&mut self) {
        let Some(data) = &self.tools.data.value else {
            return;
        };
        let pattern = self.tools.find.trim();
        if pattern.is_empty() {
            self.tools.matches = None;
        } else {
            let matcher = SkimMatcherV2::default().smart_case();
            let mut scored: Vec<(i64, usize)> = data
                .iter()
                .enumerate()
                .filter_map(|(i, t)| {
                    let u = &t.usage;
                    [&u.name, &u.family, &u.catalogue]
                        .iter()
                        .filter_map(|s| matcher.fuzzy_match(s, pattern))
                        .max()
                        .map(|s| (s, i))
                })
                .collect();
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            self.tools.matches = Some(scored.into_iter().map(|(_, i)| i).collect());
        }
        self.tools.cursor = Cursor::default();
    }

    /// The tool rows shown, in order (indices into `tools.data`).
    pub fn tool_rows(&self) -> Vec<usize> {
        match (&self.tools.matches, &self.tools.data.value) {
            (Some(m), _) => m.clone(),
            (None, Some(d)) => (0..d.len()).collect(),
            _ => Vec::new(),
        }
    }

    fn tools_len(&self) -> usize {
        match (&self.tools.matches, &self.tools.data.value) {
            (Some(m), _) => m.len(),
            (None, Some(d)) => d.len(),
            _ => 0,
        }
    }

    fn apply_filter_form(&mut self) {
        match parse_form(&self.form, self.opts.now_us) {
            Ok(f) => {
                self.form.error = None;
                self.editing_filter = false;
                if f != self.filter {
                    self.filter = f;
                    self.filter_changed();
                }
            }
            Err(e) => self.form.error = Some(e),
        }
    }

    fn open_viewer(&mut self, column: PayloadColumn) {
        let Some(d) = self.selected_detail().cloned() else {
            return;
        };
        let total = match column {
            PayloadColumn::Arguments => d.detail.arguments_bytes,
            PayloadColumn::Result => d.detail.result_bytes,
            PayloadColumn::Raw => d.detail.raw_bytes,
        };
        if total.is_none() {
            self.status = Some(format!("this decision recorded no {}", column.as_str()));
            return;
        }
        let id = d.detail.decision_id;
        self.run.viewer = Some(Viewer {
            decision_id: id,
            column,
            total,
            chunks: VecDeque::new(),
            checkpoints: vec![(0, Indent::default())],
            scroll: 0,
            loading: true,
            want_bottom: false,
        });
        self.run.focus_detail = true;
        self.request(
            Slot::Payload,
            Request::Payload {
                decision_id: id,
                column,
                start: 0,
                state: Indent::default(),
            },
        );
    }

    fn viewer_request(&mut self, start: u64, state: Indent) {
        let Some(v) = &mut self.run.viewer else {
            return;
        };
        v.loading = true;
        let (decision_id, column) = (v.decision_id, v.column);
        self.request(
            Slot::Payload,
            Request::Payload {
                decision_id,
                column,
                start,
                state,
            },
        );
    }

    /// Scrolls the payload viewer, reading neighbouring chunks as needed.
    fn viewer_scroll(&mut self, delta: isize) {
        let h = self.height(layout::List::Detail);
        let Some(v) = &mut self.run.viewer else {
            return;
        };
        let len = v.len();
        v.scroll = (v.scroll as isize + delta).clamp(0, len.saturating_sub(1) as isize) as usize;
        if v.loading {
            return;
        }
        let next = v
            .chunks
            .back()
            .filter(|c| c.end < c.total && v.scroll + 2 * h >= len)
            .map(|c| (c.end, c.end_state));
        let prev = v
            .chunks
            .front()
            .filter(|c| c.start > 0 && v.scroll < h)
            .and_then(|c| {
                v.checkpoints
                    .iter()
                    .rev()
                    .find(|(at, _)| *at < c.start)
                    .copied()
            });
        if let Some((s, st)) = next {
            self.viewer_request(s, st);
        } else if let Some((s, st)) = prev {
            self.viewer_request(s, st);
        }
    }

    fn viewer_top(&mut self) {
        let Some(v) = &mut self.run.viewer else {
            return;
        };
        v.scroll = 0;
        if v.chunks.front().is_some_and(|c| c.start > 0) {
            v.want_bottom = false;
            self.viewer_request(0, Indent::default());
        }
    }

    fn viewer_bottom(&mut self) {
        let h = self.height(layout::List::Detail);
        let Some(v) = &mut self.run.viewer else {
            return;
        };
        if v.at_end() {
            v.scroll = (v.len() + 1).saturating_sub(h);
            return;
        }
        v.want_bottom = true;
        v.loading = true;
        let from = *v.checkpoints.last().expect("the start is a checkpoint");
        let (decision_id, column) = (v.decision_id, v.column);
        self.request(
            Slot::PayloadSeek,
            Request::PayloadSeek {
                decision_id,
                column,
                from,
            },
        );
    }

    fn take_chunk(&mut self, c: Chunk) {
        let h = self.height(layout::List::Detail);
        let Some(v) = &mut self.run.viewer else {
            return;
        };
        v.loading = false;
        v.total = Some(c.total);
        v.add_checkpoint(c.end, c.end_state);
        let n = c.lines.len();
        if v.chunks.back().is_some_and(|b| b.end == c.start) {
            v.chunks.push_back(c);
            if v.chunks.len() > 3 {
                let gone = v.chunks.pop_front().map(|x| x.lines.len()).unwrap_or(0);
                v.scroll = v.scroll.saturating_sub(gone);
            }
        } else if v.chunks.front().is_some_and(|f| f.start == c.end) {
            v.chunks.push_front(c);
            v.scroll += n;
            if v.chunks.len() > 3 {
                v.chunks.pop_back();
            }
        } else {
            v.chunks.clear();
            v.chunks.push_back(c);
            v.scroll = 0;
        }
        if v.want_bottom {
            if v.at_end() {
                v.want_bottom = false;
                v.scroll = (v.len() + 1).saturating_sub(h);
            } else if let Some((s, st)) = v.chunks.back().map(|c| (c.end, c.end_state)) {
                self.viewer_request(s, st);
            }
        }
    }

    fn cache_detail(&mut self, d: Arc<DetailView>) {
        let id = d.detail.decision_id;
        if self.details.insert(id, d).is_none() {
            self.detail_order.push_back(id);
            while self.detail_order.len() > DETAIL_CACHE {
                if let Some(old) = self.detail_order.pop_front() {
                    self.details.remove(&old);
                }
            }
        }
    }

    fn receive(&mut self, done: Done) {
        let current = self.latest.get(&done.slot) == Some(&done.seq);
        if let Response::Detail(d) = done.response {
            // Still valid even when superseded: keep it.
            if current {
                self.latest.remove(&done.slot);
            }
            self.cache_detail(d);
            return;
        }
        if !current {
            return;
        }
        self.latest.remove(&done.slot);
        let anchor = self.anchors.remove(&done.slot);
        match done.response {
            Response::Error(e) => {
                self.status = Some(e);
                self.clear_loading(done.slot);
            }
            Response::Empty(e) => self.empty.set(e),
            Response::Ladder(c, b) => self.ladder.counts.set((c, b)),
            Response::Metrics(m) => self.ladder.metrics.set(m),
            Response::Confusions(c) => {
                let n = c.cells.len();
                self.confusion.grid = Some(Matrix::of(&c, MATRIX));
                self.confusions.set(c);
                let h = self.height(layout::List::Cells);
                self.confusion.cursor.fit(n, h);
            }
            Response::Trend(t) => self.ladder.trend.set(t),
            Response::Refusals(r) => {
                let n = r.report.rows.len();
                self.refusals.data.set(r);
                let h = self.height(layout::List::Refusals);
                self.refusals.cursor.fit(n, h);
            }
            Response::Tools(t) => {
                self.tools.data.set(t);
                self.tools_find();
            }
            Response::ToolDef(d) => self.tool.def.set(d),
            Response::ToolAudit(a) => self.tool.audit.set(a),
            Response::Hints(h) => self.hints.set(h),
            Response::Runs(page) => {
                let h = self.height(layout::List::Runs);
                if let Some(a) = anchor
                    && let Some(next) = self.runs.page.apply(&a, page, h)
                {
                    self.request_page(Slot::Runs, next);
                }
            }
            Response::Fuzzy(r) => {
                self.runs.fuzzy.loading = false;
                self.runs.fuzzy.result = Some(r);
                self.runs.fuzzy.cursor = Cursor::default();
                self.sort_fuzzy_rows();
            }
            Response::RunHeader(h) => self.run.header.set(h),
            Response::Timeline(run_id, page) => {
                if self.run.run_id.as_deref() != Some(run_id.as_str()) {
                    return;
                }
                let h = self.height(layout::List::Timeline);
                if let Some(a) = anchor {
                    let next = self.run.timeline.apply(&a, page, h);
                    if let Some(step) = self.run.want_step {
                        self.select_step(step);
                    }
                    if let Some(next) = next {
                        self.request_page(Slot::Timeline, next);
                    }
                    self.detail_moved_keep_viewer();
                }
            }
            Response::NextFailing(step) => match step {
                Some(s) => {
                    self.run.want_step = Some(s);
                    let a = self.run.timeline.reset(Anchor::Around(step_key(s)));
                    self.request_page(Slot::Timeline, a);
                }
                None => self.status = Some("no further failing decision in this run".into()),
            },
            Response::Detail(_) => {}
            Response::Payload(c) => self.take_chunk(*c),
            Response::PayloadSeek(points) => {
                if let Some(v) = &mut self.run.viewer {
                    for (at, st) in points.iter().copied() {
                        v.add_checkpoint(at, st);
                    }
                    // Start one chunk before the last, so that a short last
                    // chunk still ends a full screen; the last is appended.
                    let i = points.len().saturating_sub(2);
                    if let Some((s, st)) = points.get(i).copied() {
                        self.viewer_request(s, st);
                    }
                }
            }
            Response::Decisions(page) => {
                let h = self.height(layout::List::Decisions);
                if let Some(a) = anchor
                    && let Some(next) = self.decisions.page.apply(&a, page, h)
                {
                    self.request_page(Slot::Decisions, next);
                }
            }
        }
    }

    fn detail_moved_keep_viewer(&mut self) {
        if self.run.viewer.is_none() {
            self.want_detail();
        }
    }

    fn clear_loading(&mut self, slot: Slot) {
        match slot {
            Slot::Empty => self.empty.loading = false,
            Slot::Ladder => self.ladder.counts.loading = false,
            Slot::Metrics => self.ladder.metrics.loading = false,
            Slot::Confusions => self.confusions.loading = false,
            Slot::Trend => self.ladder.trend.loading = false,
            Slot::Refusals => self.refusals.data.loading = false,
            Slot::Tools => self.tools.data.loading = false,
            Slot::ToolDef => self.tool.def.loading = false,
            Slot::ToolAudit => self.tool.audit.loading = false,
            Slot::Hints => self.hints.loading = false,
            Slot::Runs => self.runs.page.loading = false,
            Slot::Fuzzy => self.runs.fuzzy.loading = false,
            Slot::RunHeader => self.run.header.loading = false,
            Slot::Timeline => self.run.timeline.loading = false,
            Slot::Decisions => self.decisions.page.loading = false,
            Slot::Payload | Slot::PayloadSeek => {
                if let Some(v) = &mut self.run.viewer {
                    v.loading = false;
                }
            }
            Slot::NextFailing | Slot::Detail => {}
        }
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

/// The filter the form describes, or what is wrong with it.
pub fn parse_form(form: &FilterForm, now_us: i64) -> Result<Filter, String> {
    let now = chrono::DateTime::from_timestamp_micros(now_us).unwrap_or_default();
    let time = |flag: &str, s: &str| -> Result<Option<i64>, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        crate::window::parse_time(flag, s, now)
            .map(Some)
            .map_err(|e| e.to_string())
    };
    let since = time("since", &form.fields[3])?;
    let until = time("until", &form.fields[4])?;
    let (since, until) = crate::window::complete(since, until, now_us, false);
    if let (Some(s), Some(u)) = (since, until)
        && s >= u
    {
        return Err("the window is empty: since is not before until".into());
    }
    let mut tags = Vec::new();
    for t in split_list(&form.fields[5]) {
        let (k, v) = t
            .split_once('=')
            .ok_or_else(|| format!("tag {t:?}: use KEY=VALUE"))?;
        tags.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(Filter {
        since,
        until,
        models: split_list(&form.fields[0]),
        catalogues: split_list(&form.fields[1]),
        phases: split_list(&form.fields[2]),
        tags,
        ..Filter::default()
    })
}

/// The next sort column after `s`.
fn next_sort(s: RunSort) -> RunSort {
    let i = RunSort::ALL.iter().position(|x| *x == s).unwrap_or(0);
    RunSort::ALL[(i + 1) % RunSort::ALL.len()]
}

/// Matrix size shown.
pub const MATRIX: usize = 8;

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
        return filter_form(app, action);
    }
    if app.help {
        // Any key closes help; navigation keys also act.
        app.help = false;
        if matches!(action, Action::Help | Action::Back | Action::Cancel) {
            return;
        }
    }
    if app.is_typing() {
        return typing(app, action);
    }
    app.status = None;
    match action {
        Action::Help => app.help = true,
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
        Action::EditFilter => {
            app.editing_filter = true;
            app.form.error = None;
            if app.hints.wants() {
                app.hints.loading = true;
                app.request(Slot::Hints, Request::Hints);
            }
        }
        Action::ClearFilter => {
            app.form = FilterForm::default();
            if !app.filter.is_empty() {
                app.filter = Filter::default();
                app.filter_changed();
            }
        }
        Action::Back => back(app),
        _ => screen_action(app, action),
    }
}

fn back(app: &mut App) {
    if app.screen == Screen::Run && app.run.viewer.is_some() {
        app.run.viewer = None;
        return;
    }
    if app.screen == Screen::Run && app.run.focus_detail {
        app.run.focus_detail = false;
        return;
    }
    if app.screen == Screen::Runs && app.runs.fuzzy.active() {
        app.runs.fuzzy = Fuzzy::default();
        app.latest.remove(&Slot::Fuzzy);
        return;
    }
    if app.screen == Screen::Tools && app.tools.matches.is_some() {
        app.tools.find.clear();
        app.tools_find();
        return;
    }
    if let Some(prev) = app.back.pop() {
        app.screen = prev;
        app.ensure();
    }
}

fn typing(app: &mut App, action: Action) {
    let runs = app.screen == Screen::Runs;
    let input = if runs {
        &mut app.runs.fuzzy.input
    } else {
        &mut app.tools.find
    };
    let changed = match action {
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
        Action::Submit => {
            if runs {
                app.runs.fuzzy.typing = false;
            } else {
                app.tools.typing = false;
            }
            false
        }
        Action::Cancel | Action::Back => {
            input.clear();
            if runs {
                app.runs.fuzzy.typing = false;
            } else {
                app.tools.typing = false;
            }
            true
        }
        Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
            screen_action(app, action);
            false
        }
        _ => false,
    };
    if changed {
        if runs {
            app.run_fuzzy();
        } else {
            app.tools_find();
        }
    }
}

fn filter_form(app: &mut App, action: Action) {
    let f = &mut app.form;
    match action {
        Action::Type(c) => f.fields[f.field].push(c),
        Action::Backspace => {
            f.fields[f.field].pop();
        }
        Action::ClearInput => f.fields[f.field].clear(),
        Action::NextField | Action::Down => f.field = (f.field + 1) % f.fields.len(),
        Action::PrevField | Action::Up => f.field = (f.field + f.fields.len() - 1) % f.fields.len(),
        Action::Submit => app.apply_filter_form(),
        Action::Cancel | Action::Back => {
            app.editing_filter = false;
            app.form = form_of(&app.filter, app.opts.now_us);
        }
        _ => {}
    }
}

/// The form that shows a filter (used to undo edits on Esc).
pub fn form_of(f: &Filter, _now_us: i64) -> FilterForm {
    let time = |t: Option<i64>| {
        t.map(|t| crate::model::Timestamp(t).to_rfc3339())
            .unwrap_or_default()
    };
    FilterForm {
        fields: [
            f.models.join(","),
            f.catalogues.join(","),
            f.phases.join(","),
            time(f.since),
            time(f.until),
            f.tags
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(","),
        ],
        field: 0,
        error: None,
    }
}

/// Movement amount for an action in a list of `h` visible rows.
fn delta(action: &Action, h: usize) -> Option<isize> {
    let page = (h.max(2) - 1) as isize;
    Some(match action {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -page,
        Action::PageDown => page,
        Action::Top => isize::MIN / 2,
        Action::Bottom => isize::MAX / 2,
        _ => return None,
    })
}

fn screen_action(app: &mut App, action: Action) {
    match app.screen {
        Screen::Ladder => {
            let h = Rung::ALL.len();
            if let Some(d) = delta(&action, h) {
                app.ladder.cursor.move_by(d, Rung::ALL.len(), h);
            } else if action == Action::Enter {
                let rung = Rung::ALL[app.ladder.cursor.sel.min(Rung::ALL.len() - 1)];
                let title = if rung == Rung::Passed {
                    "decisions that passed every rung".to_string()
                } else {
                    format!("decisions that failed at {}", rung.as_str().to_uppercase())
                };
                app.open_decisions(DecisionSet::Rung(rung.as_str().to_string()), title);
            }
        }
        Screen::Runs => runs_action(app, action),
        Screen::Run => run_action(app, action),
        Screen::Refusals => refusals_action(app, action),
        Screen::Confusions => confusions_action(app, action),
        Screen::Tools => {
            let h = app.height(layout::List::Tools);
            let len = app.tools_len();
            if let Some(d) = delta(&action, h) {
                app.tools.cursor.move_by(d, len, h);
            } else if action == Action::Find {
                app.tools.typing = true;
            } else if action == Action::Enter {
                let rows = app.tool_rows();
                if let (Some(&i), Some(data)) =
                    (rows.get(app.tools.cursor.sel), &app.tools.data.value)
                {
                    let u = &data[i].usage;
                    app.tool = ToolState {
                        catalogue: u.catalogue.clone(),
                        name: u.name.clone(),
                        ..Default::default()
                    };
                    app.go(Screen::Tool);
                }
            }
        }
        Screen::Tool => {
            let page = app.height(layout::List::Detail) as u16;
            let s = &mut app.tool.scroll;
            match action {
                Action::Down => *s = s.saturating_add(1),
                Action::Up => *s = s.saturating_sub(1),
                Action::PageDown => *s = s.saturating_add(page),
                Action::PageUp => *s = s.saturating_sub(page),
                Action::Top => *s = 0,
                _ => {}
            }
        }
        Screen::Decisions => {
            let h = app.height(layout::List::Decisions);
            if matches!(action, Action::Top | Action::Bottom) {
                let a = if action == Action::Top {
                    Anchor::First
                } else {
                    Anchor::Last
                };
                let a = app.decisions.page.reset(a);
                app.request_page(Slot::Decisions, a);
            } else if let Some(d) = delta(&action, h) {
                if let Some(a) = app.decisions.page.move_by(d, h) {
                    app.request_page(Slot::Decisions, a);
                }
            } else if action == Action::Enter
                && let Some(row) = app.decisions.page.selected()
            {
                let (run, step) = (row.run_id.clone(), row.step);
                app.open_run(run, Some(step));
            }
        }
    }
}

fn runs_action(app: &mut App, action: Action) {
    let h = app.height(layout::List::Runs);
    if app.runs.fuzzy.active() {
        let fz = &mut app.runs.fuzzy;
        if let Some(d) = delta(&action, h) {
            fz.cursor.move_by(d, fz.rows.len(), h);
            return;
        }
        match action {
            Action::Enter => {
                if let Some(r) = fz.rows.get(fz.cursor.sel) {
                    let id = r.run_id.clone();
                    app.open_run(id, None);
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
                app.sort_fuzzy_rows();
            }
            _ => {}
        }
        return;
    }
    match action {
        Action::Top | Action::Bottom => {
            let a = if action == Action::Top {
                Anchor::First
            } else {
                Anchor::Last
            };
            let a = app.runs.page.reset(a);
            app.request_page(Slot::Runs, a);
        }
        Action::Enter => {
            if let Some(r) = app.runs.page.selected() {
                let id = r.run_id.clone();
                app.open_run(id, None);
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
            app.request_page(Slot::Runs, a);
        }
        a => {
            if let Some(d) = delta(&a, h)
                && let Some(next) = app.runs.page.move_by(d, h)
            {
                app.request_page(Slot::Runs, next);
            }
        }
    }
}

fn run_action(app: &mut App, action: Action) {
    if app.run.run_id.is_none() {
        return;
    }
    let h = app.height(layout::List::Timeline);
    let dh = app.height(layout::List::Detail);
    match action {
        Action::NextFailing | Action::PrevFailing => {
            let forward = action == Action::NextFailing;
            let tl = &app.run.timeline;
            let sel = tl.cursor.sel;
            let found = if forward {
                tl.rows
                    .iter()
                    .enumerate()
                    .skip(sel + 1)
                    .find(|(_, (_, r))| r.rung != "passed")
                    .map(|(i, _)| i)
            } else {
                tl.rows
                    .iter()
                    .enumerate()
                    .take(sel)
                    .rev()
                    .find(|(_, (_, r))| r.rung != "passed")
                    .map(|(i, _)| i)
            };
            match found {
                Some(i) => {
                    let len = app.run.timeline.rows.len();
                    app.run.timeline.cursor.to(i, len, h);
                    app.detail_moved();
                }
                None if (forward && tl.more_after) || (!forward && tl.more_before) => {
                    if let Some(step) = tl.selected().map(|r| r.step) {
                        let request = Request::NextFailing {
                            filter: app.filter.clone(),
                            run_id: app.run.run_id.clone().unwrap_or_default(),
                            step,
                            forward,
                        };
                        app.request(Slot::NextFailing, request);
                    }
                }
                None => {
                    app.status = Some(format!(
                        "no {} failing decision in this run",
                        if forward { "later" } else { "earlier" }
                    ))
                }
            }
        }
        Action::ToggleHidden => {
            app.run.show_hidden = !app.run.show_hidden;
        }
        Action::ShowArguments => app.open_viewer(PayloadColumn::Arguments),
        Action::ShowResult => app.open_viewer(PayloadColumn::Result),
        Action::ShowRaw => app.open_viewer(PayloadColumn::Raw),
        Action::Right | Action::Enter if !app.run.focus_detail => app.run.focus_detail = true,
        Action::Left if app.run.focus_detail => {
            app.run.focus_detail = false;
        }
        a if app.run.focus_detail => {
            if app.run.viewer.is_some() {
                match a {
                    Action::Top => app.viewer_top(),
                    Action::Bottom => app.viewer_bottom(),
                    _ => {
                        if let Some(d) = delta(&a, dh) {
                            app.viewer_scroll(d);
                        }
                    }
                }
                return;
            }
            let page = dh.saturating_sub(1) as u16;
            let max = super::views::run::detail_len(app).saturating_sub(dh) as u16;
            let s = &mut app.run.scroll;
            match a {
                Action::Down => *s = s.saturating_add(1),
                Action::Up => *s = s.saturating_sub(1),
                Action::PageDown => *s = s.saturating_add(page),
                Action::PageUp => *s = s.saturating_sub(page),
                Action::Top => *s = 0,
                Action::Bottom => *s = max,
                _ => {}
            }
            *s = (*s).min(max);
        }
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
                app.detail_moved();
            } else {
                let a = app.run.timeline.reset(anchor);
                app.request_page(Slot::Timeline, a);
            }
        }
        a => {
            if let Some(d) = delta(&a, h) {
                let before = app.run.timeline.cursor.sel;
                if let Some(next) = app.run.timeline.move_by(d, h) {
                    app.request_page(Slot::Timeline, next);
                }
                if app.run.timeline.cursor.sel != before {
                    app.detail_moved();
                }
            }
        }
    }
}

fn refusals_action(app: &mut App, action: Action) {
    let h = app.height(layout::List::Refusals);
    let len = app
        .refusals
        .data
        .value
        .as_ref()
        .map(|d| d.report.rows.len())
        .unwrap_or(0);
    let shift = |app: &mut App, since: i64, until: i64| {
        app.refusals.since = since;
        app.refusals.until = until;
        app.refusals.data = Load::default();
        app.refusals.cursor = Cursor::default();
        app.ensure();
    };
    let (s, u) = (app.refusals.since, app.refusals.until);
    match action {
        Action::WeekBack | Action::Left => shift(app, s - WEEK, u - WEEK),
        Action::WeekForward | Action::Right => shift(app, s + WEEK, u + WEEK),
        Action::ThisWeek => {
            let now = app.opts.now_us;
            shift(app, now - WEEK, now)
        }
        Action::LatestWeek => {
            if let Some(t) = app.refusals.data.value.as_ref().and_then(|d| d.latest) {
                // The week that ends at the midnight after the latest refusal.
                let until = (t.div_euclid(DAY) + 1) * DAY;
                shift(app, until - WEEK, until);
            }
        }
        Action::Enter => {
            let Some(d) = &app.refusals.data.value else {
                return;
            };
            if let Some(row) = d.report.rows.get(app.refusals.cursor.sel) {
                let set = DecisionSet::Refusal {
                    reason: row.reason.clone(),
                    stage: row.stage.clone(),
                    since: s,
                    until: u,
                };
                let title = format!(
                    "refusals: {} ({})",
                    row.reason.as_deref().unwrap_or("no reason"),
                    row.stage
                );
                app.open_decisions(set, title);
            }
        }
        a => {
            if let Some(d) = delta(&a, h) {
                app.refusals.cursor.move_by(d, len, h);
            }
        }
    }
}

fn confusions_action(app: &mut App, action: Action) {
    let Some(c) = &app.confusions.value else {
        if action == Action::ToggleMatrix {
            app.confusion.matrix = !app.confusion.matrix;
        }
        return;
    };
    let h = app.height(layout::List::Cells);
    if action == Action::ToggleMatrix {
        app.confusion.matrix = !app.confusion.matrix;
        return;
    }
    if app.confusion.matrix {
        let Some(grid) = &app.confusion.grid else {
            return;
        };
        let (rows, cols) = (&grid.rows, &grid.cols);
        let (r, k) = &mut app.confusion.cell;
        match action {
            Action::Up => *r = r.saturating_sub(1),
            Action::Down => *r = (*r + 1).min(rows.len().saturating_sub(1)),
            Action::Left => *k = k.saturating_sub(1),
            Action::Right => *k = (*k + 1).min(cols.len().saturating_sub(1)),
            Action::Top => *r = 0,
            Action::Bottom => *r = rows.len().saturating_sub(1),
            Action::Enter => {
                if let (Some(acc), Some(sel)) = (rows.get(*r), cols.get(*k)) {
                    if grid.counts[*r][*k] > 0 {
                        let (acc, sel) = (acc.clone(), sel.clone());
                        open_cell(app, acc, sel);
                    } else {
                        app.status = Some("no decision in this cell".into());
                    }
                }
            }
            _ => {}
        }
        return;
    }
    let len = c.cells.len();
    if let Some(d) = delta(&action, h) {
        app.confusion.cursor.move_by(d, len, h);
    } else if action == Action::Enter
        && let Some(cell) = c.cells.get(app.confusion.cursor.sel)
    {
        let (acc, sel) = (cell.acceptable.clone(), cell.selected.clone());
        open_cell(app, acc, sel);
    }
}

fn open_cell(app: &mut App, acceptable: Vec<String>, selected: Option<String>) {
    let title = format!(
        "confusion: [{}] → {}",
        acceptable.join(", "),
        selected.as_deref().unwrap_or("(no call)")
    );
    app.open_decisions(
        DecisionSet::Cell {
            acceptable,
            selected,
        },
        title,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_parses_like_the_command_line() {
        let now = crate::model::Timestamp::parse("2026-11-23T00:00:00Z")
            .unwrap()
            .micros();
        let mut form = FilterForm::default();
        form.fields[0] = "qwen3:8b, gpt-4o".into();
        form.fields[3] = "7d".into();
        form.fields[5] = "suite=m18".into();
        let f = parse_form(&form, now).unwrap();
        assert_eq!(f.models, vec!["qwen3:8b", "gpt-4o"]);
        assert_eq!(f.since, Some(now - WEEK));
        assert_eq!(f.until, Some(now));
        assert_eq!(f.tags, vec![("suite".to_string(), "m18".to_string())]);
        form.fields[5] = "oops".into();
        assert!(parse_form(&form, now).unwrap_err().contains("KEY=VALUE"));
    }
}
