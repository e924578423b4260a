//! The Confusions screen: which tool was chosen instead of an acceptable
//! one, as a list of cells or a matrix; Enter lists a cell's decisions.

use super::decisions;
use super::table::{self, Op, Table};
use crate::metrics::{Confusions, Matrix};
use crate::store::browse::{DecisionSet, Drill};
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::state::{App, MATRIX};
use crate::tui::worker::{Request, Slot};

pub(super) fn ensure(app: &mut App) {
    if app.confusions.wants() {
        app.confusions.begin();
        app.request(Slot::Confusions, Request::Confusions(app.filter.clone()));
    }
}

pub(super) fn take(app: &mut App, c: Confusions) {
    app.confusion.grid = Some(Matrix::of(&c, MATRIX));
    app.confusions.set(c);
    table::apply(app, Table::Cells, Op::Refresh);
}

pub(super) fn act(app: &mut App, action: Action) {
    let Some(c) = &app.confusions.value else {
        if action == Action::ToggleMatrix {
            app.confusion.matrix = !app.confusion.matrix;
        }
        return;
    };
    let h = app.height(layout::List::Cells);
    if action == Action::ToggleMatrix {
        app.confusion.matrix = !app.confusion.matrix;
        return;
    }
    if app.confusion.matrix {
        return act_matrix(app, action);
    }
    let len = c.cells.len();
    if let Some(d) = action.delta(h) {
        app.confusion.cursor.move_by(d, len, h);
    } else if action == Action::Enter
        && let Some(cell) = app
            .confusion
            .view
            .selected(&app.confusion.cursor)
            .and_then(|i| c.cells.get(i))
    {
        let (acc, sel) = (cell.acceptable.clone(), cell.selected.clone());
        let count = cell.count;
        open_cell(app, acc, sel, count);
    }
}

fn act_matrix(app: &mut App, action: Action) {
    let Some(grid) = &app.confusion.grid else {
        return;
    };
    let (rows, cols) = (&grid.rows, &grid.cols);
    let (r, k) = &mut app.confusion.cell;
    match action {
        Action::Up => *r = r.saturating_sub(1),
        Action::Down => *r = (*r + 1).min(rows.len().saturating_sub(1)),
        Action::Left => *k = k.saturating_sub(1),
        Action::Right => *k = (*k + 1).min(cols.len().saturating_sub(1)),
        Action::Top => *r = 0,
        Action::Bottom => *r = rows.len().saturating_sub(1),
        Action::Enter => {
            if let (Some(acc), Some(sel)) = (rows.get(*r), cols.get(*k)) {
                let count = grid.counts[*r][*k];
                if count > 0 {
                    let (acc, sel) = (acc.clone(), sel.clone());
                    open_cell(app, acc, sel, count);
                } else {
                    app.status = Some("no decision in this cell".into());
                }
            }
        }
        _ => {}
    }
}

fn open_cell(app: &mut App, acceptable: Vec<String>, selected: Option<String>, count: u64) {
    let title = format!(
        "decision{{s}} in confusion cell [{}] → {}",
        acceptable.join(", "),
        selected.as_deref().unwrap_or("(no call)")
    );
    decisions::open(
        app,
        Drill::Set(DecisionSet::Cell {
            acceptable,
            selected,
        }),
        Some(count),
        title,
    );
}
