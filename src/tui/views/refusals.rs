//! Refusals: the weekly report by reason and stage, with the previous week,
//! the change, and refusals per day.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::{block, day, esc, n, pending, search, spark};
use crate::metrics::RefusalRow;
use crate::report::change;
use crate::tui::layout::{self, List};
use crate::tui::state::{App, Listed};
use crate::window::DAY;

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let rs = &app.refusals;
    let (top, table) = layout::refusals(area);
    // Days, or minutes for a window that does not start at midnight (the
    // default one ends now).
    let at = |us: i64| {
        if us.rem_euclid(DAY) == 0 {
            day(us)
        } else {
            super::minute(us)
        }
    };
    let window = format!(
        " Refusals by reason · {} → {} (UTC, {} days) ",
        at(rs.since),
        at(rs.until),
        (rs.until - rs.since) / DAY
    );
    let tb = block(window, t, false);
    let Some(d) = &rs.data.value else {
        f.render_widget(pending(rs.data.error.as_deref(), t).block(tb), top);
        f.render_widget(block(" ", t, true), table);
        return;
    };
    let r = &d.report;
    let total: u64 = r.rows.iter().map(|x| x.count).sum();
    let prev: u64 = r.rows.iter().map(|x| x.previous).sum();
    let mover = r
        .rows
        .iter()
        .max_by_key(|x| {
            (
                (x.count as i64 - x.previous as i64).abs(),
                std::cmp::Reverse(x.reason.clone()),
            )
        })
        .filter(|x| x.count != x.previous)
        .map(|x| {
            format!(
                " · biggest mover: {} {} ({} → {})",
                esc(x.reason.as_deref().unwrap_or("(no reason)")),
                change(x.count, x.previous),
                x.previous,
                x.count
            )
        })
        .unwrap_or_default();
    let inner = tb.inner(top);
    f.render_widget(tb, top);
    let [summary, sparkline] = inner.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
    ]));
    let mut spans = vec![
        Span::styled(
            format!("{} refusal{}", n(total), if total == 1 { "" } else { "s" }),
            t.header(),
        ),
        Span::raw(format!(
            " in {} run{} (previous window: {}){mover}",
            n(d.runs_affected),
            if d.runs_affected == 1 { "" } else { "s" },
            n(prev)
        )),
    ];
    if r.undated > 0 {
        spans.push(Span::styled(
            format!(" · {} undated, in no window", n(r.undated)),
            t.dim(),
        ));
    }
    f.render_widget(Line::from(spans), summary);
    // Per day over the previous and this window, two columns a day.
    let half = d.days.len() / 2;
    let wide = |v: &[u64]| -> String { spark(v).chars().flat_map(|c| [c, c]).collect() };
    let (prev_days, this_days) = d.days.split_at(half);
    let prev_start = rs.since - (rs.until - rs.since);
    // The picked day (d/D) is marked in its half of the sparkline.
    let marked = |v: &[u64], from: usize| -> Vec<Span<'static>> {
        let s = wide(v);
        match rs
            .day
            .and_then(|i| i.checked_sub(from))
            .filter(|i| *i < v.len())
        {
            Some(i) => {
                let cs: Vec<char> = s.chars().collect();
                let (a, rest) = cs.split_at(i * 2);
                let (m, z) = rest.split_at(2);
                vec![
                    Span::styled(a.iter().collect::<String>(), t.bar()),
                    Span::styled(m.iter().collect::<String>(), t.selected()),
                    Span::styled(z.iter().collect::<String>(), t.bar()),
                ]
            }
            None => vec![Span::styled(s, t.bar())],
        }
    };
    let picked = rs.day.map(|i| {
        let start = prev_start + i as i64 * DAY;
        format!(
            " · {}: {} refused, Enter lists them",
            day(start),
            n(d.days.get(i).copied().unwrap_or(0))
        )
    });
    let mut first = vec![Span::styled("per day   previous ", t.dim())];
    first.extend(marked(prev_days, 0));
    first.push(Span::styled("   this ", t.dim()));
    first.extend(marked(this_days, half));
    f.render_widget(
        Paragraph::new(vec![
            Line::from({
                let mut v = first;
                v.extend([Span::styled(
                    format!("   peak {}", n(d.days.iter().copied().max().unwrap_or(0))),
                    t.dim(),
                )]);
                v
            }),
            Line::from(vec![
                Span::styled(
                    format!(
                        "          from {}{}from {}",
                        day(prev_start),
                        " ".repeat((half * 2 + 8).saturating_sub(15)),
                        day(rs.since)
                    ),
                    t.dim(),
                ),
                Span::styled(picked.unwrap_or_default(), t.header()),
            ]),
        ]),
        sparkline,
    );

    let h = layout::list_height(List::Refusals, app.size);
    let view = &rs.view;
    let mut tbl = block(" reasons (Enter: the decisions behind one) ", t, true);
    if let Some(bar) = search::table_bar(view, &rs.cursor, t) {
        tbl = tbl.title_bottom(bar);
    }
    if r.rows.is_empty() {
        let mut lines = vec![Line::styled(
            "No refusals in this window or the one before.",
            t.dim(),
        )];
        if let Some(latest) = d.latest {
            lines.push(Line::raw(""));
            lines.push(Line::raw(format!(
                "The latest refusal in the filter is at {} — press L to review that week, or [ and ] to move by a week.",
                super::minute(latest)
            )));
        }
        f.render_widget(Paragraph::new(lines).block(tbl), table);
        return;
    }
    let top_row = rs.cursor.visible_top(h);
    let widths = [
        Constraint::Fill(3),
        Constraint::Length(14),
        Constraint::Length(7),
        Constraint::Length(6),
        Constraint::Length(7),
        Constraint::Length(7),
        Constraint::Length(9),
    ];
    let cols = super::column_widths(table.width.saturating_sub(2), &widths);
    super::hit_rows(app, table, top_row, rs.cursor.sel, r.rows.len(), &[]);
    for row in top_row..(top_row + h).min(r.rows.len()) {
        super::hit_count(app, table, &widths, 2, row, top_row, rs.cursor.sel, vec![]);
    }
    let pat = view.pattern();
    let rows: Vec<Row> = (0..r.rows.len())
        .skip(top_row)
        .take(h)
        .map(|pos| {
            let i = view.at(pos);
            let x = &r.rows[i];
            let ch = change(x.count, x.previous);
            let ch_style = if ch.starts_with('+') || ch == "new" {
                t.bad()
            } else if ch.starts_with('-') || ch == "gone" {
                t.good()
            } else {
                t.dim()
            };
            let reason = super::fit(&esc(x.reason.as_deref().unwrap_or("(no reason)")), cols[0]);
            let stage = super::fit(&esc(&x.stage), cols[1]);
            let row = Row::new(vec![
                Cell::from(search::marked(&reason, &pat, t)),
                Cell::from(
                    Line::from(search::marked_spans(&stage, &pat, t)).style(t.rung_named(&x.stage)),
                ),
                Cell::from(Line::from(n(x.count)).right_aligned()),
                Cell::from(Line::from(n(x.runs)).right_aligned()),
                Cell::from(Line::from(n(x.previous)).right_aligned()),
                Cell::from(Line::from(Span::styled(ch, ch_style)).right_aligned()),
                Cell::from(Span::styled(
                    d.per_day.get(i).map(|v| spark(v)).unwrap_or_default(),
                    t.bar(),
                )),
            ]);
            if pos == rs.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let name = |c: usize| search::head(view, RefusalRow::COLUMNS, c, cols[c]);
    let right = |c: usize| Cell::from(Line::from(name(c)).right_aligned());
    let head = Row::new(vec![
        Cell::from(name(0)),
        Cell::from(name(1)),
        right(2),
        right(3),
        right(4),
        right(5),
        Cell::from("per day"),
    ])
    .style(t.header());
    f.render_widget(Table::new(rows, widths).header(head).block(tbl), table);
}
