//! What the screens ask the workers (`Request`) and what comes back
//! (`Response`, tagged with its slot and number in a `Done`), with the
//! values only the TUI needs.

use std::sync::Arc;

use super::Slot;
pub use super::export::ExportList;
use crate::filter::Filter;
use crate::metrics::{Confusions, LadderCounts, Metrics, RefusalReport, ToolUsage};
use crate::store::browse::{
    Anchor, DecisionRow, DecisionSort, Detail, Drill, FilterHints, FindingCounts, FindingItem,
    FindingSet, ListView, Page, PayloadColumn, RunHeader, RunSort, ToolAudit, ToolDef, ToolFlags,
};
use crate::store::compare::{
    CatalogueInfo, CellAttempts, CellSpec, CompareAsk, CompareReport, ToolDiffView,
};
use crate::store::query::RunRow;
use crate::tui::payload::Indent;

/// How many rows a page request asks for.
pub const PAGE: usize = 100;
/// Fuzzy matches kept (best first).
pub const FUZZY_KEEP: usize = 2000;
/// Payloads up to this size are shown inline in the decision detail.
pub const INLINE_ARGS: u64 = 16 * 1024;

#[derive(Debug, Clone)]
pub enum Request {
    Empty,
    Ladder(Filter),
    Metrics(Filter),
    Confusions(Filter),
    Trend {
        filter: Filter,
        until: i64,
        days: u32,
    },
    Refusals {
        filter: Filter,
        since: i64,
        until: i64,
    },
    Tools(Filter),
    ToolDef {
        catalogue: String,
        name: String,
    },
    ToolAudit {
        filter: Filter,
        catalogue: String,
        name: String,
    },
    Hints,
    Completions,
    Keeps(Filter),
    Runs {
        filter: Filter,
        sort: RunSort,
        desc: bool,
        anchor: Anchor,
    },
    Fuzzy {
        filter: Filter,
        pattern: String,
    },
    RunHeader(String),
    Timeline {
        filter: Filter,
        run_id: String,
        /// The order (`s`/`S`): step order unless sorted.
        sort: DecisionSort,
        desc: bool,
        anchor: Anchor,
    },
    NextFailing {
        filter: Filter,
        run_id: String,
        step: i64,
        forward: bool,
    },
    Detail(i64),
    Payload {
        decision_id: i64,
        column: PayloadColumn,
        start: u64,
        state: Indent,
    },
    /// Checkpoints (chunk starts and states) from `from` to the last chunk.
    PayloadSeek {
        decision_id: i64,
        column: PayloadColumn,
        from: (u64, Indent),
    },
    Decisions {
        filter: Filter,
        set: Drill,
        view: ListView,
        anchor: Anchor,
    },
    /// Findings per kind in `[since, until)` and the window before.
    Findings {
        filter: Filter,
        since: i64,
        until: i64,
    },
    /// A page of one kind's findings.
    FindingList {
        filter: Filter,
        set: FindingSet,
        /// The sorted column (of `FindingItem`'s columns) and direction.
        sort: Option<usize>,
        desc: bool,
        anchor: Anchor,
    },
    /// The stored catalogue versions (the Compare screen's picker).
    Catalogues,
    /// Menus side by side (the Compare screen).
    Compare {
        filter: Filter,
        ask: CompareAsk,
    },
    /// One cell's attempts on every menu.
    CellAttempts {
        filter: Filter,
        base: String,
        candidates: Vec<String>,
        cell: CellSpec,
    },
    /// One tool between two catalogue versions.
    ToolDiff {
        catalogue: String,
        name: String,
    },
    /// `Y`: a decision's record as JSON, secrets masked (unless
    /// --no-redact), for the clipboard.
    Record(Box<DecisionRow>),
    /// `/` in the payload viewer: the next (previous) match from `from`.
    PayloadFind {
        decision_id: i64,
        column: PayloadColumn,
        pattern: String,
        from: super::find::From,
        forward: bool,
    },
    /// `n`/`N` after `/` in a run's timeline: the next (previous) step past
    /// `step` whose decision contains `pattern`.
    NextMatch {
        filter: Filter,
        run_id: String,
        step: i64,
        forward: bool,
        pattern: String,
    },
    /// `e`/`E`: a whole list, as CSV or markdown, into `path`.
    Export {
        filter: Filter,
        list: ExportList,
        markdown: bool,
        /// The markdown heading.
        title: String,
        /// What a row is, plural (`decisions`, `rows`), for the key bar.
        noun: &'static str,
        path: std::path::PathBuf,
    },
}

impl Request {
    /// Aggregates over the whole filter run on the heavy threads.
    pub(super) fn heavy(&self) -> bool {
        matches!(
            self,
            Request::Ladder(_)
                | Request::Metrics(_)
                | Request::Confusions(_)
                | Request::Trend { .. }
                | Request::Refusals { .. }
                | Request::Tools(_)
                | Request::ToolAudit { .. }
                | Request::Hints
                | Request::Completions
                | Request::Keeps(_)
                | Request::Findings { .. }
                | Request::Compare { .. }
                | Request::CellAttempts { .. }
                | Request::ToolDiff { .. }
                | Request::Decisions {
                    set: Drill::Rule { .. },
                    ..
                }
                | Request::Export { .. }
                | Request::PayloadFind { .. }
        )
    }
}

/// The weekly refusal report with what the screen adds to it.
#[derive(Debug, Clone)]
pub struct RefusalData {
    pub report: RefusalReport,
    pub runs_affected: u64,
    /// Per row of `report.rows`: refusals per day over the window.
    pub per_day: Vec<Vec<u64>>,
    /// All refusals per day over the previous and current window.
    pub days: Vec<u64>,
    pub latest: Option<i64>,
}

/// One row of the Tools screen.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRow {
    pub usage: ToolUsage,
    pub flags: ToolFlags,
}

/// A decision's detail plus its arguments, pretty, when they are small.
#[derive(Debug, Clone)]
pub struct DetailView {
    pub detail: Detail,
    pub arguments: Option<Vec<String>>,
}

/// A piece of a payload, pretty.
#[derive(Debug, Clone)]
pub struct Chunk {
    pub start: u64,
    pub end: u64,
    pub total: u64,
    pub end_state: Indent,
    pub lines: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct FuzzyResult {
    pub pattern: String,
    /// Best first.
    pub rows: Vec<RunRow>,
    pub matched: u64,
    /// Why each row matched, by run id: the field and the part of it that
    /// matched (`goal: …Northwind Dental is…`), raw (the view escapes it).
    pub why: std::collections::HashMap<String, String>,
    /// Every word was found as written (case aside) in the runs shown;
    /// false: no run has them all, and the rows are loose (fuzzy) matches.
    pub exact: bool,
}

#[derive(Debug, Clone)]
pub enum Response {
    Empty(bool),
    Ladder(LadderCounts, Vec<(String, u64)>),
    Metrics(Box<Metrics>),
    Confusions(Confusions),
    Trend(Vec<u64>),
    Refusals(Box<RefusalData>),
    Tools(Vec<ToolRow>),
    ToolDef(Option<Box<ToolDef>>),
    ToolAudit(ToolAudit),
    Hints(FilterHints),
    Completions(Box<crate::store::completion::Completions>),
    /// The filter asked about, and whether it keeps any decision.
    Keeps(Filter, bool),
    Runs(Page<RunRow>),
    Fuzzy(FuzzyResult),
    RunHeader(Option<RunHeader>),
    Timeline(String, Page<DecisionRow>),
    NextFailing(Option<i64>),
    Detail(Arc<DetailView>),
    Payload(Box<Chunk>),
    PayloadSeek(Vec<(u64, Indent)>),
    Decisions(Page<DecisionRow>),
    Findings(Box<FindingCounts>),
    FindingList(Page<FindingItem>),
    Catalogues(Vec<CatalogueInfo>),
    Compare(Arc<CompareReport>),
    CellAttempts(Box<Option<CellAttempts>>),
    ToolDiff(Box<ToolDiffView>),
    /// Text for the clipboard, and what it is.
    Clip(String, String),
    /// A payload search's answer.
    PayloadFound(Box<super::find::Found>),
    /// The step `NextMatch` found.
    NextMatch(Option<i64>),
    /// A list written: the file and its rows.
    Exported(std::path::PathBuf, u64, &'static str),
    Error(String),
}

/// A worker's answer, tagged with the request it answers.
#[derive(Debug, Clone)]
pub struct Done {
    pub slot: Slot,
    pub seq: u64,
    pub response: Response,
}

/// Two answers are the same answer when they answer the same request.
impl PartialEq for Done {
    fn eq(&self, other: &Done) -> bool {
        self.slot == other.slot && self.seq == other.seq
    }
}
