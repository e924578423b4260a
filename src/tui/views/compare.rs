//! Compare: the catalogue versions to pick from (B the base, C a
//! candidate), the menus side by side with each change against the base
//! (`*`: significant at 0.05, by `rung compare`'s paired tests; no mark:
//! not significant), the base's confusion cells with how
//! many of each cell's attempts every menu got right, and one cell's
//! attempts on every menu. Also the Tool diff screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{block, esc, n, pending, waiting};
use crate::metrics::compare::{Change, Metric};
use crate::metrics::diff::Piece;
use crate::store::compare::{CatalogueInfo, CellDecision, CellRow, CompareReport, MenuFigures};
use crate::tui::action::Action;
use crate::tui::state::{App, AttemptRow, ComparePane, Listed, panes};
use crate::tui::theme::Theme;

/// A metric's name, short enough for the screen.
fn label(m: Metric) -> String {
    match m {
        Metric::FirstCall => "first-call accuracy".into(),
        Metric::Recovered => "wrong, recovered ≤3".into(),
        Metric::Unrecovered => "wrong, unrecovered".into(),
        Metric::Selection => "selection accuracy".into(),
        Metric::Abstention => "abstention acc.".into(),
        Metric::NoCall => "no-call accuracy".into(),
        Metric::Violation => "violation rate".into(),
        Metric::TokensP50 => "tokens/turn p50".into(),
        Metric::TokensP95 => "tokens/turn p95".into(),
        m => m.label(),
    }
}

/// The metrics the screen shows, one row each.
const METRICS: [Metric; 10] = [
    Metric::FirstCall,
    Metric::Recovered,
    Metric::Unrecovered,
    Metric::Selection,
    Metric::Abstention,
    Metric::NoCall,
    Metric::Violation,
    Metric::PassK(1),
    Metric::TokensP50,
    Metric::TokensP95,
];

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let c = &app.compare;
    let p = panes(area, c.pane, c.open.is_some());
    draw_menus(f, app, p.menus);
    if c.open.is_some() {
        return draw_attempts(f, app, p.cells);
    }
    let t = &app.opts.theme;
    let Some(r) = &c.result.value else {
        let msg = if c.base.is_none() || c.candidates.is_empty() {
            Paragraph::new(Line::styled(
                if c.catalogues.value.as_ref().is_some_and(|v| v.len() < 2) {
                    "Comparing needs two catalogue versions; this database has fewer."
                } else {
                    "Pick a base (b) and a candidate (Space) among the menus."
                },
                t.dim(),
            ))
            .wrap(Wrap { trim: true })
        } else {
            pending(c.result.error.as_deref(), t)
        };
        f.render_widget(msg.block(block(" Compare ", t, false)), p.table);
        f.render_widget(block(" Cells ", t, false), p.cells);
        return;
    };
    draw_table(f, app, r, p.table);
    draw_cells(f, app, r, p.cells);
}

fn mark(app: &App, version: &str) -> &'static str {
    let c = &app.compare;
    if c.base.as_deref() == Some(version) {
        "B"
    } else if c.candidates.iter().any(|x| x == version) {
        "C"
    } else {
        " "
    }
}

fn draw_menus(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let c = &app.compare;
    let focused = c.pane == ComparePane::Menus;
    if area.height <= 1 {
        // A narrow screen while another pane has the keys: one line.
        let line = Line::from(vec![
            Span::styled(" base ", t.header()),
            Span::raw(c.base.as_deref().map(esc).unwrap_or_default().into_owned()),
            Span::styled(" · candidates ", t.header()),
            Span::raw(
                c.candidates
                    .iter()
                    .map(|x| esc(x).into_owned())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            Span::styled("  h: pick menus", t.dim()),
        ]);
        // A click on it gives the menus the keys.
        if c.open.is_none() {
            super::hit(app, area, vec![Action::Left]);
        }
        f.render_widget(line, area);
        return;
    }
    let mut title = vec![Span::styled(" Menus ", t.title())];
    if let Some(by) = c.menus_view.sorted_by(CatalogueInfo::COLUMNS) {
        title.push(Span::styled(format!("· {by} "), t.title()));
    }
    if c.typing || c.matches.is_some() {
        title.push(Span::styled("/ ", t.title()));
        title.push(Span::styled(
            format!("{}{}", esc(&c.find), if c.typing { "▏" } else { "" }),
            t.selected(),
        ));
        title.push(Span::raw(" "));
    }
    let b = block(Line::from(title), t, focused)
        .title_bottom(Line::styled(" b base · Space candidate ", t.dim()).right_aligned());
    let Some(list) = &c.catalogues.value else {
        f.render_widget(pending(c.catalogues.error.as_deref(), t).block(b), area);
        return;
    };
    let rows = c.rows();
    if rows.is_empty() {
        let msg = if list.is_empty() {
            "no catalogue versions in this database"
        } else {
            "no version matches"
        };
        f.render_widget(Paragraph::new(Line::styled(msg, t.dim())).block(b), area);
        return;
    }
    let h = area.height.saturating_sub(2) as usize;
    let top = c.cursor.visible_top(h);
    // A click on a menu gives the menus the keys and selects it (while no
    // cell is open: the keys then move in its attempts).
    if c.open.is_none() {
        super::hit(app, area, vec![Action::Left]);
        super::hit_lines(app, area, 1, top, c.cursor.sel, rows.len(), &[Action::Left]);
    }
    let pat = crate::find::pattern(&c.find);
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, &k)| {
            let cat = &list[k];
            let m = mark(app, &cat.version);
            // The find's text marked in the version; a long version is
            // cut with `…` at the border.
            let version = esc(&cat.version).into_owned();
            let pad = 14usize.saturating_sub(crate::text::width(&version));
            let mut spans = vec![Span::styled(
                format!(" {m} "),
                if m == " " { t.dim() } else { t.key() },
            )];
            spans.extend(super::search::marked_spans(&version, &pat, t));
            spans.push(Span::raw(" ".repeat(pad)));
            spans.push(Span::styled(format!(" {:>4} tools", n(cat.tools)), t.dim()));
            let line = super::fit_line(spans, area.width.saturating_sub(2) as usize);
            if focused && i == c.cursor.sel {
                line.style(t.selected())
            } else {
                line
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines).block(b), area);
}

/// How a column spells its figures: a rate with its numerator and
/// denominator, and how many decimals (fewer where columns are narrow).
#[derive(Clone, Copy)]
struct Fit {
    counts: bool,
    places: usize,
}

/// A metric's value on one menu.
fn value(m: &MenuFigures, metric: Metric, fit: Fit) -> String {
    let p = fit.places;
    match (metric, m.summary.value(metric)) {
        (_, None) => "n/a".to_string(),
        (Metric::PassK(_), Some(v)) => format!("{v:.prec$}", prec = p + 2),
        (Metric::TokensP50 | Metric::TokensP95, Some(v)) => format!("{v:.0}"),
        (_, Some(v)) => match m.summary.rate(metric) {
            Some(r) if fit.counts => {
                format!("{}/{} {:.p$}%", r.numerator, r.denominator, v * 100.0)
            }
            _ => format!("{:.p$}%", v * 100.0),
        },
    }
}

/// A change against the base, short: `+6.25` points for rates.
fn delta(c: &Change, fit: Fit) -> String {
    let p = fit.places;
    match (c.metric, c.change) {
        (_, None) => "—".to_string(),
        (Metric::PassK(_), Some(d)) => format!("{d:+.prec$}", prec = p + 2),
        (Metric::TokensP50 | Metric::TokensP95, Some(d)) => format!("{d:+.0}"),
        (_, Some(d)) => format!("{:+.p$}", d * 100.0),
    }
}

/// The style of a change: better or worse when significant, dim when not.
fn change_style(c: &Change, t: &Theme) -> Style {
    let better = match (c.metric.higher_is_better(), c.change) {
        (Some(h), Some(d)) if d != 0.0 => Some((d > 0.0) == h),
        _ => None,
    };
    match better {
        _ if !c.significant => t.dim(),
        Some(true) => t.good(),
        Some(false) => t.bad(),
        None => Style::new(),
    }
}

fn draw_table(f: &mut Frame, app: &App, r: &CompareReport, area: Rect) {
    let t = &app.opts.theme;
    let menus = r.menus.len() as u16;
    let inner = area.width.saturating_sub(2 + 20);
    let per = inner / menus.max(1);
    let fit = Fit {
        counts: per >= 26,
        places: if per >= 17 { 2 } else { 1 },
    };
    let paired: Vec<String> = r
        .comparisons
        .iter()
        .map(|c| {
            if c.pairing.by_trial {
                format!("{} runs", n(c.pairing.attempts))
            } else {
                format!("{} tasks", n(c.pairing.tasks))
            }
        })
        .collect();
    let title = format!(
        " {} against the base {} · paired {} · *: significant at {} ",
        r.menus[1..]
            .iter()
            .map(|m| esc(&m.summary.catalogue).into_owned())
            .collect::<Vec<_>>()
            .join(", "),
        esc(&r.base().summary.catalogue),
        paired.join(", "),
        r.alpha
    );
    let rows: Vec<Row> = METRICS
        .iter()
        .map(|&metric| {
            let mut cells = vec![Cell::from(label(metric))];
            cells.push(Cell::from(
                Line::from(value(r.base(), metric, fit)).right_aligned(),
            ));
            for (i, m) in r.menus[1..].iter().enumerate() {
                let ch = r.comparisons[i].changes.iter().find(|c| c.metric == metric);
                let mut spans = vec![Span::raw(value(m, metric, fit))];
                if let Some(ch) = ch {
                    spans.push(Span::styled(
                        format!(" {}", delta(ch, fit)),
                        change_style(ch, t),
                    ));
                    spans.push(Span::styled(
                        if ch.significant { "*" } else { " " },
                        change_style(ch, t),
                    ));
                }
                cells.push(Cell::from(Line::from(spans).right_aligned()));
            }
            Row::new(cells)
        })
        .collect();
    let mut head = vec![Cell::from("metric")];
    let mut widths = vec![Constraint::Length(19)];
    widths.extend(r.menus.iter().map(|_| Constraint::Fill(1)));
    // A long name is cut at its end with `…`, not at its start.
    let cols = super::column_widths(area.width.saturating_sub(2), &widths);
    for (i, m) in r.menus.iter().enumerate() {
        let name = esc(&m.summary.catalogue).into_owned();
        let col = cols[i + 1];
        head.push(Cell::from(
            Line::from(if i == 0 {
                format!("{} (base)", super::fit(&name, col.saturating_sub(7)))
            } else {
                format!("{} ", super::fit(&name, col.saturating_sub(1)))
            })
            .right_aligned(),
        ));
    }
    let head = Row::new(head).style(t.header());
    f.render_widget(
        Table::new(rows, widths)
            .header(head)
            .block(block(title, t, false)),
        area,
    );
}

fn draw_cells(f: &mut Frame, app: &App, r: &CompareReport, area: Rect) {
    let t = &app.opts.theme;
    let c = &app.compare;
    let focused = c.pane == ComparePane::Cells;
    let b = block(
        format!(
            " Cells of {}: right/paired per menu · Enter: the attempts ",
            esc(&r.base().summary.catalogue)
        ),
        t,
        focused,
    );
    if r.cells.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled("the base has no selection failures", t.dim())).block(b),
            area,
        );
        return;
    }
    let h = area.height.saturating_sub(3) as usize;
    let top = c.cells.visible_top(h);
    // A click on a cell gives the cells the keys and selects it; on one of
    // its counts, opens it (as Enter).
    super::hit(app, area, vec![Action::Right]);
    super::hit_rows(app, area, top, c.cells.sel, r.cells.len(), &[Action::Right]);
    let mut counts = vec![Constraint::Fill(3)];
    counts.extend(r.menus.iter().map(|_| Constraint::Fill(1)));
    for row in top..(top + h).min(r.cells.len()) {
        let y = area.y + 2 + (row - top) as u16;
        let (x0, _) = super::column_rect(area, &counts, 1);
        let (xn, wn) = super::column_rect(area, &counts, counts.len() - 1);
        let acts = vec![
            Action::Right,
            Action::MoveBy(row as isize - c.cells.sel as isize),
            Action::Enter,
        ];
        super::hit(app, Rect::new(x0, y, (xn + wn).saturating_sub(x0), 1), acts);
    }
    let view = &c.cells_view;
    let pat = view.pattern();
    let rows: Vec<Row> = (0..r.cells.len())
        .skip(top)
        .take(h)
        .map(|i| {
            let row = &r.cells[view.at(i)];
            let mut cells = vec![Cell::from(super::search::marked(
                &esc(&row.cell.show()),
                &pat,
                t,
            ))];
            cells.push(Cell::from(
                Line::from(format!("0/{}", row.attempts)).right_aligned(),
            ));
            for res in &row.results {
                let style = if res.fixes() { t.good() } else { Style::new() };
                cells.push(Cell::from(
                    Line::styled(format!("{}/{}", res.right, res.paired), style).right_aligned(),
                ));
            }
            let row = Row::new(cells);
            if focused && i == c.cells.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let cell_head = match view.head(CellRow::COLUMNS, 0).strip_prefix("cell") {
        Some(arrow) => format!("cell (acceptable → selected){arrow}"),
        None => "cell (acceptable → selected)".to_string(),
    };
    let mut head = vec![Cell::from(cell_head)];
    let mut widths = vec![Constraint::Fill(3)];
    widths.extend(r.menus.iter().map(|_| Constraint::Fill(1)));
    let cols = super::column_widths(area.width.saturating_sub(2), &widths);
    // The base's column sorts by its attempts (`s`).
    let arrow = match (view.sort, view.desc) {
        (Some(1), false) => " ↑",
        (Some(1), true) => " ↓",
        _ => "",
    };
    for (k, (m, col)) in r.menus.iter().zip(&cols[1..]).enumerate() {
        let name = esc(&m.summary.catalogue).into_owned();
        let name = if k == 0 && !arrow.is_empty() {
            format!("{}{arrow}", super::fit(&name, col.saturating_sub(2)))
        } else {
            super::fit(&name, *col)
        };
        head.push(Cell::from(Line::from(name).right_aligned()));
    }
    let mut b = b.title_bottom(
        Line::from(format!(" {} of {} ", c.cells.sel + 1, r.cells.len())).right_aligned(),
    );
    if focused && let Some(bar) = super::search::table_bar(view, &c.cells, t) {
        b = b.title_bottom(bar);
    }
    f.render_widget(
        Table::new(rows, widths)
            .header(Row::new(head).style(t.header()))
            .block(b),
        area,
    );
}

/// A menu's decision in the attempts list: its tool and ✓ or ✗.
fn pick<'a>(d: Option<&CellDecision>, pat: &str, t: &Theme) -> Line<'a> {
    match d {
        None => Line::styled("— not run", t.dim()),
        Some(d) => {
            let (m, style) = match d.ok {
                Some(true) => ("✓", t.good()),
                Some(false) => ("✗", t.bad()),
                None => ("?", t.dim()),
            };
            let name = d
                .selected
                .as_deref()
                .map_or(crate::text::Shown::ours("(no call)"), esc)
                .into_owned();
            let mut spans = vec![Span::styled(format!("{m} "), style)];
            spans.extend(super::search::marked_spans(&name, pat, t));
            Line::from(spans)
        }
    }
}

fn draw_attempts(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let Some(open) = &app.compare.open else {
        return;
    };
    let title = format!(
        " {} · every menu's pick · Esc back ",
        esc(&open.cell.show())
    );
    let b = block(title, t, true);
    let Some(data) = &open.data.value else {
        f.render_widget(pending(open.data.error.as_deref(), t).block(b), area);
        return;
    };
    let Some(a) = data else {
        f.render_widget(
            Paragraph::new(Line::styled(
                "the base has no attempts in this cell now",
                t.dim(),
            ))
            .block(b),
            area,
        );
        return;
    };
    let h = area.height.saturating_sub(3) as usize;
    let top = open.cursor.visible_top(h);
    super::hit_rows(app, area, top, open.cursor.sel, a.base.len(), &[]);
    let view = &open.view;
    let pat = view.pattern();
    let rows: Vec<Row> = (0..a.base.len())
        .skip(top)
        .take(h)
        .map(|pos| {
            let i = view.at(pos);
            let d = &a.base[i];
            let mut cells = vec![
                Cell::from(super::search::marked(&esc(&d.key.task_id), &pat, t)),
                Cell::from(
                    Line::from(d.key.trial.map_or("—".into(), |x| x.to_string())).right_aligned(),
                ),
                Cell::from(pick(Some(d), &pat, t)),
            ];
            for cand in &a.candidates {
                cells.push(Cell::from(pick(cand[i].as_ref(), &pat, t)));
            }
            let row = Row::new(cells);
            if pos == open.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let cols = AttemptRow::COLUMNS;
    let mut head = vec![
        Cell::from(super::search::head(view, cols, 0, 12)),
        Cell::from(Line::from(super::search::head(view, cols, 1, 5)).right_aligned()),
    ];
    let mut widths = vec![Constraint::Length(12), Constraint::Length(5)];
    // The base's column sorts by its pick, the last by the candidates
    // right.
    let arrow = |col: usize| match (view.sort == Some(col), view.desc) {
        (false, _) => "",
        (true, false) => " ↑",
        (true, true) => " ↓",
    };
    let last = open.menus.len() - 1;
    for (i, m) in open.menus.iter().enumerate() {
        let name = esc(m).into_owned();
        let mut label = if i == 0 {
            format!("{name} (base){}", arrow(2))
        } else {
            name
        };
        if i == last && view.sort == Some(3) {
            label.push_str(&format!(" · right{}", arrow(3)));
        }
        head.push(Cell::from(label));
        widths.push(Constraint::Fill(1));
    }
    let right: Vec<String> = a
        .candidates
        .iter()
        .zip(&open.menus[1..])
        .map(|(c, m)| {
            let paired = c.iter().flatten().count();
            let ok = c.iter().flatten().filter(|d| d.ok == Some(true)).count();
            format!("{} {ok}/{paired}", esc(m))
        })
        .collect();
    let mut b = b.title_bottom(
        Line::from(format!(
            " {} of {} · right: {} ",
            open.cursor.sel + 1,
            a.base.len(),
            right.join(", ")
        ))
        .right_aligned(),
    );
    if let Some(bar) = super::search::table_bar(view, &open.cursor, t) {
        b = b.title_bottom(bar);
    }
    f.render_widget(
        Table::new(rows, widths)
            .header(Row::new(head).style(t.header()))
            .block(b),
        area,
    );
}

/// The Tool diff screen: what changed in one tool between two versions.
pub fn draw_tool_diff(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let d = &app.tool_diff;
    let title = format!(
        " {} · catalogue {} · j/k scroll · Esc back ",
        esc(&d.name),
        esc(&d.catalogue)
    );
    let b = block(title, t, true);
    let Some(v) = &d.data.value else {
        f.render_widget(
            Paragraph::new(waiting(d.data.error.as_deref(), t))
                .wrap(Wrap { trim: true })
                .block(b),
            area,
        );
        return;
    };
    let mut lines = vec![Line::styled(esc(&v.summary).into_owned(), t.header())];
    if let Some((old, new)) = &v.pair {
        lines.push(Line::styled(
            format!("compared: {} → {}", esc(old), esc(new)),
            t.dim(),
        ));
    }
    if let Some(c) = &v.change {
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("changed: ", t.header()),
            Span::raw(
                c.fields
                    .iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        ]));
        if let Some(pieces) = &c.description {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "description ([-removed-] {+added+}):",
                t.header(),
            ));
            let mut spans = Vec::new();
            for (i, p) in pieces.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::raw(" "));
                }
                spans.push(match p {
                    Piece::Same(s) => Span::raw(esc(s).into_owned()),
                    Piece::Removed(s) => Span::styled(format!("[-{}-]", esc(s)), t.bad()),
                    Piece::Added(s) => Span::styled(format!("{{+{}+}}", esc(s)), t.good()),
                });
            }
            lines.push(Line::from(spans));
        }
        if let Some(h) = c.hints_text() {
            lines.push(Line::raw(""));
            lines.push(Line::styled("hints:", t.header()));
            lines.push(Line::raw(esc(&h).into_owned()));
        }
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((d.scroll, 0))
            .block(b),
        area,
    );
}
