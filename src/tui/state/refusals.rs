//! The Refusals screen's state: the week shown and its report.

use super::{Load, TableView};
use crate::tui::paged::Cursor;
use crate::tui::worker::RefusalData;

#[derive(Debug, Default)]
pub struct RefusalsState {
    pub since: i64,
    pub until: i64,
    pub data: Load<Box<RefusalData>>,
    pub cursor: Cursor,
    /// A day of the per-day sparkline picked with `d`/`D` (an index into
    /// `RefusalData::days`: the previous window's days, then this one's);
    /// Enter then lists that day's refusals instead of a reason's.
    pub day: Option<usize>,
    /// The reasons' sort and search.
    pub view: TableView,
}
