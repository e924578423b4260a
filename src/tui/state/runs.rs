//! The Runs screen's state: the keyset-paged list in the chosen order, and
//! the fuzzy filter with its matches.

use crate::store::browse::RunSort;
use crate::store::query::RunRow;
use crate::tui::paged::{Cursor, Paged};
use crate::tui::worker::FuzzyResult;

/// The Runs screen's fuzzy filter.
#[derive(Debug, Default)]
pub struct Fuzzy {
    pub input: String,
    pub typing: bool,
    /// The answer for `input` (or for an earlier input while typing).
    pub result: Option<FuzzyResult>,
    pub loading: bool,
    /// Why the last match could not be made.
    pub error: Option<String>,
    pub cursor: Cursor,
    /// The order the matches are shown in: `None` is best match first.
    pub sorted: Option<(RunSort, bool)>,
    pub rows: Vec<RunRow>,
    /// Enter was pressed while the matches were coming: open the best one
    /// when they come.
    pub open_when_ready: bool,
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

impl Default for RunsState {
    fn default() -> Self {
        RunsState {
            sort: RunSort::Id,
            desc: false,
            page: Paged::default(),
            fuzzy: Fuzzy::default(),
        }
    }
}
