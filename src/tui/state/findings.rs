//! The Findings screen's state: the window shown and its counts per kind;
//! and the list of one kind's findings, read a page at a time.

use super::{Load, TableView};
use crate::store::browse::{FindingCounts, FindingItem, FindingSet};
use crate::tui::paged::{Cursor, Paged};

#[derive(Debug, Default)]
pub struct FindingsState {
    pub since: i64,
    pub until: i64,
    pub data: Load<Box<FindingCounts>>,
    pub cursor: Cursor,
    /// The kinds' sort and search.
    pub view: TableView,
    /// The kind whose findings are listed (the FindingList screen).
    pub list: FindingListState,
}

#[derive(Debug, Default)]
pub struct FindingListState {
    pub set: Option<FindingSet>,
    pub page: Paged<FindingItem>,
    /// `/`: the text `n`/`N` look for among the findings read.
    pub find: String,
    pub typing: bool,
    /// `s`/`S`: the sorted column (of `FindingItem`'s columns; `None`:
    /// the stored order) and direction; the store sorts.
    pub sort: Option<usize>,
    pub desc: bool,
}
