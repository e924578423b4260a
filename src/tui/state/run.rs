//! The Run screen's state: one run's timeline, the selected decision's
//! detail pane, the payload viewer, and the cache of decision details.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::Load;
use crate::store::browse::{DecisionRow, DecisionSort, PayloadColumn, RunHeader};
use crate::tui::paged::Paged;
use crate::tui::payload::Indent;
use crate::tui::worker::find::Hit;
use crate::tui::worker::{Chunk, DetailView};

/// Whether a timeline row failed a rung: its rung is neither `passed` nor
/// `unlabelled`. The store's `next_failing` skips the same rows.
pub fn failing(row: &DecisionRow) -> bool {
    row.rung.is_failure()
}

/// Decision details kept in memory.
const DETAIL_CACHE: usize = 256;

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
    /// `/` in the timeline: the text (`n`/`N` then go to the next or
    /// previous decision containing it, instead of the next failing one).
    pub find: String,
    /// `/` is being typed (into the viewer's search when one is open and
    /// has the keys, else into the timeline's).
    pub typing: bool,
    /// The timeline's order (`s`/`S`): step order unless sorted.
    pub sort: DecisionSort,
    pub desc: bool,
}

impl RunState {
    /// The timeline is in another order than by step.
    pub fn sorted(&self) -> bool {
        self.sort != DecisionSort::Natural || self.desc
    }
}

/// `/` in the payload viewer: the text, the match shown, and a search the
/// worker is making.
#[derive(Debug, Clone, Default)]
pub struct PayloadSearch {
    pub find: String,
    pub hit: Option<Hit>,
    pub searching: bool,
    /// The last search went round an end to find its match.
    pub wrapped: bool,
    /// The last search found nothing.
    pub missing: bool,
    /// Scroll to the match when its chunk arrives.
    pub want: bool,
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
    /// Why the last chunk could not be read.
    pub error: Option<String>,
    /// Scroll to the end once the last chunk arrives.
    pub want_bottom: bool,
    pub search: PayloadSearch,
}

impl Viewer {
    /// A viewer of `column` of a decision, before its first chunk.
    pub fn new(decision_id: i64, column: PayloadColumn, total: Option<u64>) -> Viewer {
        Viewer {
            decision_id,
            column,
            total,
            chunks: VecDeque::new(),
            checkpoints: vec![(0, Indent::default())],
            scroll: 0,
            loading: true,
            error: None,
            want_bottom: false,
            search: PayloadSearch::default(),
        }
    }

    /// The line (in `lines()`) where `hit` starts, when its chunk is held.
    pub fn line_of(&self, hit: &Hit) -> Option<usize> {
        let mut before = 0;
        for c in &self.chunks {
            if c.start == hit.start {
                return Some(before + hit.line);
            }
            before += c.lines.len();
        }
        None
    }

    /// The chunk holding line `line` of `lines()`: its start, its state and
    /// the line within it.
    pub fn locate(&self, line: usize) -> Option<(u64, Indent, usize)> {
        let mut before = 0;
        let mut prev_state = None;
        for c in &self.chunks {
            let state = self
                .checkpoints
                .binary_search_by_key(&c.start, |p| p.0)
                .ok()
                .map(|i| self.checkpoints[i].1)
                .or(prev_state)?;
            if line < before + c.lines.len() {
                return Some((c.start, state, line - before));
            }
            before += c.lines.len();
            prev_state = Some(c.end_state);
        }
        None
    }
    pub fn lines(&self) -> impl Iterator<Item = &String> {
        self.chunks.iter().flat_map(|c| c.lines.iter())
    }
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.lines.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn add_checkpoint(&mut self, at: u64, st: Indent) {
        match self.checkpoints.binary_search_by_key(&at, |c| c.0) {
            Ok(_) => {}
            Err(i) => self.checkpoints.insert(i, (at, st)),
        }
    }
    /// The last known chunk start (the payload's start when none is known
    /// beyond it).
    pub fn last_checkpoint(&self) -> (u64, Indent) {
        self.checkpoints
            .last()
            .copied()
            .unwrap_or((0, Indent::default()))
    }
    pub fn at_end(&self) -> bool {
        match (self.chunks.back(), self.total) {
            (Some(c), Some(t)) => c.end >= t,
            _ => false,
        }
    }
}

/// Decision details by id, the most recent `DETAIL_CACHE` kept.
#[derive(Debug, Default)]
pub struct DetailCache {
    by_id: HashMap<i64, Arc<DetailView>>,
    order: VecDeque<i64>,
    /// The decision whose detail was asked for last.
    pub wanted: Option<i64>,
    /// A decision whose detail could not be read, and why.
    pub failed: Option<(i64, String)>,
}

impl DetailCache {
    pub fn get(&self, id: i64) -> Option<&Arc<DetailView>> {
        self.by_id.get(&id)
    }
    pub fn contains(&self, id: i64) -> bool {
        self.by_id.contains_key(&id)
    }
    /// Why the detail of `id` could not be read, if it could not.
    pub fn error(&self, id: i64) -> Option<&str> {
        match &self.failed {
            Some((f, e)) if *f == id => Some(e),
            _ => None,
        }
    }
    pub fn insert(&mut self, d: Arc<DetailView>) {
        let id = d.detail.decision_id;
        if self.by_id.insert(id, d).is_none() {
            self.order.push_back(id);
            while self.order.len() > DETAIL_CACHE {
                if let Some(old) = self.order.pop_front() {
                    self.by_id.remove(&old);
                }
            }
        }
    }
}
