//! The Confusions screen's state: the list of cells or the matrix built
//! from them (the cells themselves are `App::confusions`, shared with the
//! Ladder screen).

use super::TableView;
use crate::metrics::Matrix;
use crate::tui::paged::Cursor;

/// Matrix size shown.
pub const MATRIX: usize = 8;

#[derive(Debug, Default)]
pub struct ConfusionsState {
    pub matrix: bool,
    /// Built when the cells arrive (not on every key or frame).
    pub grid: Option<Matrix>,
    pub cursor: Cursor,
    /// (row, column) in the matrix.
    pub cell: (usize, usize),
    /// The list's sort and search.
    pub view: TableView,
}
