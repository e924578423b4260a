//! Where things go on the screen. Drawing and `update` both use these, so
//! the number of rows a list shows (for paging and scrolling) is the number
//! drawing gives it.

use ratatui::layout::{Constraint, Layout, Rect};

/// The smallest terminal rung draws in.
pub const MIN: (u16, u16) = (80, 24);

/// The parts of every frame: tab bar, filter bar, body, key bar.
pub struct Frame {
    pub tabs: Rect,
    pub filter: Rect,
    pub body: Rect,
    pub keys: Rect,
}

pub fn frame(area: Rect) -> Frame {
    let [tabs, filter, body, keys] = area.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ]));
    Frame {
        tabs,
        filter,
        body,
        keys,
    }
}

/// Run screen: header, timeline (left), detail (right). Below 100 columns
/// a focused detail pane takes the whole width.
pub fn run(body: Rect, focus_detail: bool) -> (Rect, Rect, Rect) {
    let [header, rest] = body.layout(&Layout::vertical([
        Constraint::Length(2),
        Constraint::Fill(1),
    ]));
    let left = if rest.width >= 120 {
        rest.width * 9 / 20
    } else if rest.width >= 100 {
        rest.width * 2 / 5
    } else if focus_detail {
        0
    } else {
        rest.width / 2
    };
    let [timeline, detail] = rest.layout(&Layout::horizontal([
        Constraint::Length(left),
        Constraint::Fill(1),
    ]));
    (header, timeline, detail)
}

/// Refusals screen: summary with the per-day sparkline, then the table.
pub fn refusals(body: Rect) -> (Rect, Rect) {
    let [top, table] = body.layout(&Layout::vertical([
        Constraint::Length(5),
        Constraint::Fill(1),
    ]));
    (top, table)
}

/// Confusions screen: a summary line, then the cells or the matrix.
pub fn confusions(body: Rect) -> (Rect, Rect) {
    let [top, table] = body.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
    ]));
    (top, table)
}

/// Findings screen: the summary line, then the kinds.
pub fn findings(body: Rect) -> (Rect, Rect) {
    let [top, table] = body.layout(&Layout::vertical([
        Constraint::Length(3),
        Constraint::Fill(1),
    ]));
    (top, table)
}

/// A kind's findings: the list, then the selected finding's detail.
pub fn finding_list(body: Rect) -> (Rect, Rect) {
    let [list, detail] = body.layout(&Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(6),
    ]));
    (list, detail)
}

/// The scrolling lists `update` needs the height of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    Runs,
    Timeline,
    Detail,
    Decisions,
    Refusals,
    Cells,
    Tools,
    Findings,
    FindingList,
}

/// Rows of data a list shows in a terminal of `size` (inside borders and
/// below its header row).
pub fn list_height(list: List, size: (u16, u16)) -> usize {
    let area = Rect::new(0, 0, size.0.max(MIN.0), size.1.max(MIN.1));
    let body = frame(area).body;
    let table = |r: Rect| r.height.saturating_sub(3) as usize;
    match list {
        List::Runs | List::Decisions | List::Tools => table(body),
        List::Timeline => table(run(body, false).1),
        List::Detail => run(body, false).2.height.saturating_sub(2) as usize,
        List::Refusals => table(refusals(body).1),
        List::Cells => table(confusions(body).1),
        List::Findings => table(findings(body).1),
        List::FindingList => table(finding_list(body).0),
    }
}
