//! The Ladder screen's state: the funnel of rungs, the routing rates and the
//! refusal trend.

use super::{LadderRow, Load, TableView};
use crate::metrics::{LadderCounts, Metrics};
use crate::tui::paged::Cursor;

/// Days of the refusal trend on the Ladder screen.
pub const TREND_DAYS: u32 = 28;

#[derive(Debug, Default)]
pub struct LadderState {
    pub cursor: Cursor,
    /// The funnel's count column under the cursor: the rung's count
    /// (false) or the boundary count (true); `h`/`l` move between them.
    pub boundary: bool,
    pub counts: Load<(LadderCounts, Vec<(String, u64)>)>,
    pub metrics: Load<Box<Metrics>>,
    pub trend: Load<Vec<u64>>,
    /// The funnel's rows (a rung each, from `counts`), sorted by `view`.
    pub rows: Vec<LadderRow>,
    pub view: TableView,
}
