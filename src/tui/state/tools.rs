//! The Tools screen's state (tool usage with a find) and the Tool screen's
//! (one tool's definition and visibility audit).

use super::{Load, TableView, narrowed};
use crate::store::browse::{ToolAudit, ToolDef};
use crate::tui::paged::Cursor;
use crate::tui::worker::ToolRow;

#[derive(Debug, Default)]
pub struct ToolsState {
    pub data: Load<Vec<ToolRow>>,
    pub cursor: Cursor,
    /// The column under the cursor (`h`/`l`): 0 the tool (Enter: why
    /// visible?), then its visible, selected and refused counts (Enter:
    /// the decisions behind the count).
    pub col: usize,
    pub find: String,
    pub typing: bool,
    /// Indices into `data` that match `find`, best first (None: all).
    pub matches: Option<Vec<usize>>,
    /// The sort (the find narrows the list by its own `matches`).
    pub view: TableView,
}

impl ToolsState {
    /// The rows shown, in order (indices into `data`).
    pub fn rows(&self) -> Vec<usize> {
        match &self.data.value {
            Some(d) => narrowed(&self.matches, &self.view, d.len()),
            None => Vec::new(),
        }
    }

    /// How many rows are shown.
    pub fn len(&self) -> usize {
        match (&self.matches, &self.data.value) {
            (Some(m), _) => m.len(),
            (None, Some(d)) => d.len(),
            _ => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Default)]
pub struct ToolState {
    pub catalogue: String,
    pub name: String,
    pub def: Load<Option<Box<ToolDef>>>,
    pub audit: Load<ToolAudit>,
    pub scroll: u16,
    /// The audit's rule row under the cursor (Enter: its decisions): a
    /// position in `view`'s order.
    pub rule: usize,
    /// The rules' sort and search.
    pub view: TableView,
}
