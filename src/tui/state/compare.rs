//! The Compare screen's state (the menus picked, the comparison, its cells
//! and one cell's attempts on every menu), the Tool diff screen's, and
//! where the Compare screen's panes go (the view draws there, `update`
//! scrolls by it).

use std::sync::Arc;

use ratatui::layout::{Constraint, Layout, Rect};

use super::{Load, TableView, narrowed};
use crate::store::compare::{CatalogueInfo, CellAttempts, CellSpec, CompareReport, ToolDiffView};
use crate::tui::layout;
use crate::tui::paged::Cursor;

/// Which pane of the Compare screen keys move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ComparePane {
    /// The catalogue versions: pick the base and the candidates.
    Menus,
    /// The base's confusion cells.
    #[default]
    Cells,
}

/// A cell opened on the Compare screen: its attempts on every menu.
#[derive(Debug)]
pub struct OpenCell {
    pub cell: CellSpec,
    /// The base, then the candidates, as asked.
    pub menus: Vec<String>,
    pub data: Load<Option<CellAttempts>>,
    /// Over the attempts in `view`'s order.
    pub cursor: Cursor,
    /// The attempts' sort and search.
    pub view: TableView,
}

#[derive(Debug, Default)]
pub struct CompareState {
    pub catalogues: Load<Vec<CatalogueInfo>>,
    /// In the menus pane, over `rows()`.
    pub cursor: Cursor,
    pub find: String,
    pub typing: bool,
    /// Indices into `catalogues` matching `find`, best first (None: all).
    pub matches: Option<Vec<usize>>,
    pub base: Option<String>,
    pub candidates: Vec<String>,
    pub result: Load<Arc<CompareReport>>,
    pub pane: ComparePane,
    /// In the cells pane.
    pub cells: Cursor,
    /// The cells' sort and search.
    pub cells_view: TableView,
    /// The menus' sort (the find narrows them by `matches`).
    pub menus_view: TableView,
    pub open: Option<OpenCell>,
}

impl CompareState {
    /// The catalogues shown in the menus pane, in order (indices).
    pub fn rows(&self) -> Vec<usize> {
        match &self.catalogues.value {
            Some(c) => narrowed(&self.matches, &self.menus_view, c.len()),
            None => Vec::new(),
        }
    }

    /// The catalogue under the menus cursor.
    pub fn selected_menu(&self) -> Option<&CatalogueInfo> {
        let i = *self.rows().get(self.cursor.sel)?;
        self.catalogues.value.as_ref()?.get(i)
    }

    /// The base, then the candidates.
    pub fn menus(&self) -> Vec<String> {
        self.base
            .iter()
            .chain(self.candidates.iter())
            .cloned()
            .collect()
    }
}

/// The Tool diff screen (from `d` on Tools).
#[derive(Debug, Default)]
pub struct ToolDiffState {
    pub catalogue: String,
    pub name: String,
    pub data: Load<Box<ToolDiffView>>,
    pub scroll: u16,
}

/// The Compare screen's panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComparePanes {
    /// The catalogue list (a one-line summary on a narrow screen when
    /// another pane has the keys).
    pub menus: Rect,
    /// The metrics side by side.
    pub table: Rect,
    /// The base's cells, or an open cell's attempts.
    pub cells: Rect,
}

/// Columns from which the menus list stands beside the rest.
pub const WIDE: u16 = 110;

/// Where the Compare screen's panes go in `body`. An open cell's attempts
/// take the table's room too.
pub fn panes(body: Rect, pane: ComparePane, open: bool) -> ComparePanes {
    let (menus, rest) = if body.width >= WIDE {
        let [m, r] = body.layout(&Layout::horizontal([
            Constraint::Length(30),
            Constraint::Fill(1),
        ]));
        (m, r)
    } else {
        let h = if pane == ComparePane::Menus { 7 } else { 1 };
        let [m, r] = body.layout(&Layout::vertical([
            Constraint::Length(h),
            Constraint::Fill(1),
        ]));
        (m, r)
    };
    if open {
        let table = Rect { height: 0, ..rest };
        return ComparePanes {
            menus,
            table,
            cells: rest,
        };
    }
    let [table, cells] = rest.layout(&Layout::vertical([
        Constraint::Length(13),
        Constraint::Fill(1),
    ]));
    ComparePanes {
        menus,
        table,
        cells,
    }
}

/// Rows a pane's list shows at the terminal `size` (inside its border,
/// below its header row).
pub fn rows_in(size: (u16, u16), pane: ComparePane, open: bool, which: ComparePane) -> usize {
    let area = Rect::new(0, 0, size.0.max(layout::MIN.0), size.1.max(layout::MIN.1));
    let p = panes(layout::frame(area).body, pane, open);
    match which {
        ComparePane::Menus => p.menus.height.saturating_sub(2) as usize,
        ComparePane::Cells => p.cells.height.saturating_sub(3) as usize,
    }
}
