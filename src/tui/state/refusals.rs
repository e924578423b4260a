//! The Refusals screen's state: the week shown and its report.

use super::Load;
use crate::tui::paged::Cursor;
use crate::tui::worker::RefusalData;

#[derive(Debug, Default)]
pub struct RefusalsState {
    pub since: i64,
    pub until: i64,
    pub data: Load<Box<RefusalData>>,
    pub cursor: Cursor,
}
