//! Confusions: the cells (acceptable set → selected) ranked, or a matrix of
//! the most confused acceptable sets against the tools picked instead.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::{block, esc, fit, n, percent, search, waiting};
use crate::metrics::{self, top_share};
use crate::model::Rung;
use crate::text::{pad_left, pad_right};
use crate::tui::action::Action;
use crate::tui::layout::{self, List};
use crate::tui::mouse;
use crate::tui::state::{App, Listed};

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let (top, body) = layout::confusions(area);
    let Some(c) = &app.confusions.value else {
        f.render_widget(waiting(app.confusions.error.as_deref(), t), top);
        f.render_widget(block(" Confusion cells ", t, true), body);
        return;
    };
    let summary = match top_share(c, 2) {
        Some(s) if c.cells.len() >= 2 => format!(
            " {} selection failures in {} cells; the top two explain {}.",
            n(c.selection_failures),
            n(c.cells.len() as u64),
            percent(Some(s))
        ),
        Some(_) => format!(
            " {} selection failure{} in one cell.",
            n(c.selection_failures),
            if c.selection_failures == 1 { "" } else { "s" }
        ),
        None => " No selection failures in this filter.".to_string(),
    };
    f.render_widget(Line::styled(summary, t.header()), top);
    if c.cells.is_empty() {
        f.render_widget(block(" Confusion cells ", t, true), body);
        return;
    }
    if app.confusion.matrix {
        return draw_matrix(f, app, body);
    }
    let h = layout::list_height(List::Cells, app.size);
    let cur = &app.confusion.cursor;
    let top_row = cur.visible_top(h);
    let max = c.cells.first().map(|x| x.count).unwrap_or(1).max(1);
    let widths = [
        Constraint::Length(4),
        Constraint::Fill(3),
        Constraint::Fill(2),
        Constraint::Length(7),
        Constraint::Length(7),
        Constraint::Length(12),
    ];
    let cols = super::column_widths(body.width.saturating_sub(2), &widths);
    super::hit_rows(app, body, top_row, cur.sel, c.cells.len(), &[]);
    for row in top_row..(top_row + h).min(c.cells.len()) {
        super::hit_count(app, body, &widths, 3, row, top_row, cur.sel, vec![]);
    }
    let view = &app.confusion.view;
    let pat = view.pattern();
    let rows: Vec<Row> = (0..c.cells.len())
        .skip(top_row)
        .take(h)
        .map(|pos| {
            let i = view.at(pos);
            let x = &c.cells[i];
            let bar = "█".repeat(((x.count * 12).div_ceil(max)) as usize);
            let acceptable = fit(&esc(&x.acceptable.join(", ")), cols[1]);
            let selected = fit(&super::opt(&x.selected, "(no call)"), cols[2]);
            let row = Row::new(vec![
                // The cell's rank by count, whatever the sort.
                Cell::from(Line::from(format!("{}", i + 1)).right_aligned()),
                Cell::from(search::marked(&acceptable, &pat, t)),
                Cell::from(
                    Line::from(search::marked_spans(&selected, &pat, t))
                        .style(t.rung(Rung::Selection)),
                ),
                Cell::from(Line::from(n(x.count)).right_aligned()),
                Cell::from(Line::from(percent(Some(x.share))).right_aligned()),
                Cell::from(Span::styled(bar, t.bar())),
            ]);
            if pos == cur.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let name = |c: usize| search::head(view, metrics::Cell::COLUMNS, c, cols[c + 1]);
    let head = Row::new(vec![
        Cell::from(Line::from("#").right_aligned()),
        Cell::from(name(0)),
        Cell::from(name(1)),
        Cell::from(Line::from(name(2)).right_aligned()),
        Cell::from(Line::from("share").right_aligned()),
        Cell::from(""),
    ])
    .style(t.header());
    let mut b = block(" Confusion cells · m: matrix ", t, true).title_bottom(
        Line::from(format!(" {} of {} ", cur.sel + 1, c.cells.len())).right_aligned(),
    );
    if let Some(bar) = search::table_bar(view, cur, t) {
        b = b.title_bottom(bar);
    }
    f.render_widget(Table::new(rows, widths).header(head).block(b), body);
}

fn draw_matrix(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let Some(grid) = &app.confusion.grid else {
        return;
    };
    let (rows, cols) = (&grid.rows, &grid.cols);
    let b = block(
        format!(
            " Matrix · top {} acceptable sets × top {} selected instead · m: list ",
            rows.len(),
            cols.len()
        ),
        t,
        true,
    );
    let inner_w = area.width.saturating_sub(2) as usize;
    let label_w = 24usize.min(inner_w / 3);
    let col_w = ((inner_w - label_w) / cols.len().max(1)).clamp(4, 14);
    let (sr, sc) = app.confusion.cell;
    let mut lines = Vec::new();
    let mut head = vec![Span::styled(
        format!("{:<label_w$}", fit("acceptable ↓ / instead →", label_w)),
        t.dim(),
    )];
    // Names cut alike (search_confluence, search_code) are told apart.
    let col_names: Vec<String> = cols
        .iter()
        .map(|s| super::opt(s, "(no call)").into_owned())
        .collect();
    let col_labels = super::distinct_labels(&col_names, col_w - 1);
    for (j, name) in col_labels.iter().enumerate() {
        let style = if j == sc {
            t.header()
        } else {
            t.rung(Rung::Selection)
        };
        head.push(Span::styled(
            format!(" {}", pad_left(name, col_w - 1)),
            style,
        ));
    }
    lines.push(Line::from(head));
    let row_names: Vec<String> = rows
        .iter()
        .map(|acc| esc(&acc.join(", ")).into_owned())
        .collect();
    let row_labels = super::distinct_labels(&row_names, label_w - 1);
    for (i, label) in row_labels.iter().enumerate() {
        let mut spans = vec![Span::styled(
            pad_right(label, label_w),
            if i == sr { t.header() } else { Style::new() },
        )];
        // A click on the label selects the row; on a cell, selects it and
        // (when it has decisions) lists them, as Enter.
        let y = area.y + 2 + i as u16;
        if y + 1 < area.y + area.height {
            let to_row = mouse::to_rule(sr, i);
            super::hit(
                app,
                Rect::new(area.x + 1, y, label_w as u16, 1),
                to_row.clone(),
            );
            for (j, count) in grid.counts[i].iter().copied().enumerate() {
                let mut acts = to_row.clone();
                acts.extend(mouse::to_column(sc, j));
                if count > 0 {
                    acts.push(Action::Enter);
                }
                let x = area.x + 1 + (label_w + j * col_w) as u16;
                super::hit(app, Rect::new(x, y, col_w as u16, 1), acts);
            }
        }
        for (j, count) in grid.counts[i].iter().copied().enumerate() {
            let text = if count == 0 {
                "·".to_string()
            } else {
                n(count)
            };
            let style = if i == sr && j == sc {
                t.selected()
            } else if count == 0 {
                t.dim()
            } else {
                Style::new()
            };
            spans.push(Span::styled(format!(" {:>w$}", text, w = col_w - 1), style));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "arrows or h/j/k/l move · Enter: the decisions in the cell",
        t.dim(),
    ));
    f.render_widget(Paragraph::new(lines).block(b), area);
}
