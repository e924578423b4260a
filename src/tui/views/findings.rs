//! Findings: a week of findings by kind beside the week before (with the
//! change, and the undated ones: catalogue findings and decisions with no
//! time); and one kind's findings, each with its run, step and tool, the
//! selected one's detail whole below.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{block, day, esc, minute, n, opt, pending, search};
use crate::report::change;
use crate::store::browse::KindCount;
use crate::tui::layout::{self, List};
use crate::tui::state::{App, Listed, out_of_sight};
use crate::window::DAY;

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let fs = &app.findings;
    let (top, table) = layout::findings(area);
    let window = format!(
        " Findings by kind · {} → {} (UTC, {} days) ",
        day(fs.since),
        day(fs.until),
        (fs.until - fs.since) / DAY
    );
    let tb = block(window, t, false);
    let Some(d) = &fs.data.value else {
        f.render_widget(pending(fs.data.error.as_deref(), t).block(tb), top);
        f.render_widget(block(" ", t, true), table);
        return;
    };
    let total: u64 = d.rows.iter().map(|r| r.count).sum();
    let prev: u64 = d.rows.iter().map(|r| r.previous).sum();
    let undated: u64 = d.rows.iter().map(|r| r.undated).sum();
    let mut spans = vec![
        Span::styled(
            format!("{} finding{}", n(total), if total == 1 { "" } else { "s" }),
            t.header(),
        ),
        Span::raw(format!(
            " in {} run{} (previous window: {})",
            n(d.runs),
            if d.runs == 1 { "" } else { "s" },
            n(prev)
        )),
    ];
    if undated > 0 {
        spans.push(Span::styled(
            format!(
                " · {} undated (catalogue findings, decisions with no time)",
                n(undated)
            ),
            t.dim(),
        ));
    }
    f.render_widget(
        Paragraph::new(Line::from(spans))
            .wrap(Wrap { trim: true })
            .block(tb),
        top,
    );

    let h = layout::list_height(List::Findings, app.size);
    let view = &fs.view;
    let mut tbl = block(" kinds (Enter: the findings of one) ", t, true);
    if let Some(bar) = search::table_bar(view, &fs.cursor, t) {
        tbl = tbl.title_bottom(bar);
    }
    if d.rows.is_empty() {
        let lines = vec![
            Line::styled("No findings in this window or the one before.", t.dim()),
            Line::raw(""),
            Line::raw("[ and ] move by a week; `rung report findings` counts every finding."),
        ];
        f.render_widget(Paragraph::new(lines).block(tbl), table);
        return;
    }
    let top_row = fs.cursor.visible_top(h);
    let pat = view.pattern();
    let rows: Vec<Row> = (0..d.rows.len())
        .skip(top_row)
        .take(h)
        .map(|pos| {
            let x = &d.rows[view.at(pos)];
            let ch = change(x.count, x.previous);
            let ch_style = if ch.starts_with('+') || ch == "new" {
                t.bad()
            } else if ch.starts_with('-') || ch == "gone" {
                t.good()
            } else {
                t.dim()
            };
            let row = Row::new(vec![
                Cell::from(
                    Line::from(search::marked_spans(&esc(&x.kind), &pat, t)).style(t.warn()),
                ),
                Cell::from(Line::from(n(x.count)).right_aligned()),
                Cell::from(Line::from(n(x.runs)).right_aligned()),
                Cell::from(Line::from(n(x.previous)).right_aligned()),
                Cell::from(Line::from(Span::styled(ch, ch_style)).right_aligned()),
                Cell::from(Line::from(n(x.undated)).right_aligned()),
            ]);
            if pos == fs.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let name = |c: usize| view.head(KindCount::COLUMNS, c);
    let right = |c: usize| Cell::from(Line::from(name(c)).right_aligned());
    let head = Row::new(vec![
        Cell::from(name(0)),
        right(1),
        right(2),
        right(3),
        right(4),
        right(5),
    ])
    .style(t.header());
    let widths = [
        Constraint::Fill(1),
        Constraint::Length(8),
        Constraint::Length(7),
        Constraint::Length(8),
        Constraint::Length(7),
        Constraint::Length(8),
    ];
    super::hit_rows(app, table, top_row, fs.cursor.sel, d.rows.len(), &[]);
    for row in top_row..(top_row + h).min(d.rows.len()) {
        super::hit_count(app, table, &widths, 1, row, top_row, fs.cursor.sel, vec![]);
    }
    f.render_widget(Table::new(rows, widths).header(head).block(tbl), table);
}

pub fn draw_list(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let l = &app.findings.list;
    let (list, detail) = layout::finding_list(area);
    // The sort, said in the title too (a narrow screen drops columns).
    let columns = <crate::store::browse::FindingItem as Listed>::COLUMNS;
    let sorted = crate::tui::state::sorted_by(columns, l.sort, l.desc)
        .map_or(String::new(), |s| format!("· {s} "));
    let title = match &l.set {
        Some(s) => format!(
            " {} · {} → {}, and undated {sorted}",
            esc(&s.kind),
            day(s.since),
            day(s.until)
        ),
        None => " Findings ".to_string(),
    };
    let pos = match (l.page.position(), l.page.total) {
        (Some(i), Some(total)) if !l.page.rows.is_empty() => {
            format!(" {} of {} ", n(i + 1), n(total))
        }
        (Some(i), None) if !l.page.rows.is_empty() => format!(" {} ", n(i + 1)),
        _ => String::new(),
    };
    let mut b = block(title, t, true).title_bottom(Line::from(pos).right_aligned());
    // `/`: how many of the findings read contain the text.
    let pat = crate::find::pattern(&l.find);
    if l.typing || !pat.is_empty() {
        let hits = l
            .page
            .rows
            .iter()
            .filter(|(_, x)| {
                x.fields()
                    .iter()
                    .any(|(_, v)| crate::find::contains(v, &pat))
            })
            .count() as u64;
        let held = if l.page.more_before || l.page.more_after {
            " read"
        } else {
            ""
        };
        let count = format!(
            "{} match{}{held} · n/N",
            n(hits),
            if hits == 1 { "" } else { "es" }
        );
        b = b.title_bottom(search::bar(&l.find, l.typing, Some(count), t));
    }
    if !l.page.loaded {
        f.render_widget(pending(l.page.error.as_deref(), t).block(b), list);
        f.render_widget(block(" detail ", t, false), detail);
        return;
    }
    if l.page.rows.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled(
                "no finding of this kind in the window and the filter",
                t.dim(),
            ))
            .block(b),
            list,
        );
        f.render_widget(block(" detail ", t, false), detail);
        return;
    }
    let h = layout::list_height(List::FindingList, app.size);
    let wide = list.width >= 100;
    let (widths, head): (Vec<Constraint>, Vec<&str>) = if wide {
        (
            vec![
                Constraint::Length(16),
                Constraint::Length(4),
                Constraint::Length(20),
                Constraint::Length(12),
                Constraint::Length(16),
                Constraint::Fill(1),
            ],
            vec!["run", "step", "tool", "catalogue", "time", "detail"],
        )
    } else {
        (
            vec![
                Constraint::Length(14),
                Constraint::Length(4),
                Constraint::Length(16),
                Constraint::Fill(1),
            ],
            vec!["run", "step", "tool", "detail"],
        )
    };
    // Text cut to its column with `…`.
    let cols = super::column_widths(list.width.saturating_sub(2), &widths);
    let fit = |s: String, at: usize| Cell::from(search::marked(&super::fit(&s, cols[at]), &pat, t));
    let top = l.page.cursor.visible_top(h);
    super::hit_rows(app, list, top, l.page.cursor.sel, l.page.rows.len(), &[]);
    let rows: Vec<Row> = l
        .page
        .rows
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, (_, x))| {
            let mut cells = vec![
                fit(opt(&x.row.run_id, "-").into_owned(), 0),
                Cell::from(
                    Line::from(x.row.step.map(|s| s.to_string()).unwrap_or("-".into()))
                        .right_aligned(),
                ),
                fit(opt(&x.row.tool, "-").into_owned(), 2),
            ];
            if wide {
                cells.push(fit(opt(&x.row.catalogue, "-").into_owned(), 3));
                cells.push(Cell::from(
                    x.time_us.map(minute).unwrap_or_else(|| "undated".into()),
                ));
            }
            let at = cells.len();
            // A finding that matched on a field not shown says which.
            let shown: &[&str] = if wide {
                &["run", "tool", "catalogue", "detail"]
            } else {
                &["run", "tool", "detail"]
            };
            let mut detail: Vec<Span> = Vec::new();
            if let Some(note) = search::hidden(&out_of_sight(x, &pat, shown), t) {
                detail.push(note);
            }
            detail.extend(
                search::marked_spans(&esc(&x.row.detail), &pat, t)
                    .into_iter()
                    .map(|s| Span::styled(s.content, t.dim().patch(s.style))),
            );
            cells.push(Cell::from(super::fit_line(detail, cols[at])));
            let row = Row::new(cells);
            if i == l.page.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    // The sorted column's arrow (`s`/`S`).
    let head: Vec<String> = head
        .iter()
        .enumerate()
        .map(|(i, name)| match columns.iter().position(|c| c == name) {
            Some(c) => search::sorted_head(columns, l.sort, l.desc, c, cols[i]),
            None => name.to_string(),
        })
        .collect();
    let head = Row::new(head).style(t.header());
    f.render_widget(Table::new(rows, widths).header(head).block(b), list);

    // The selected finding's detail, whole.
    let text = l
        .page
        .selected()
        .map(|x| esc(&x.row.detail).into_owned())
        .unwrap_or_default();
    let hint = match l.page.selected() {
        Some(x) if x.row.run_id.is_some() => " detail (Enter: open the run at this decision) ",
        _ => " detail ",
    };
    f.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .block(block(hint, t, false)),
        detail,
    );
}
