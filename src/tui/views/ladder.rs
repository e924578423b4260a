//! Ladder (home): the funnel, the routing rates, the top confusion cells and
//! the refusal trend.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline};

use super::{block, esc, n, pending, percent};
use crate::metrics::Rate;
use crate::model::Rung;
use crate::tui::action::Action;
use crate::tui::state::{App, LadderRow, Listed, TREND_DAYS};

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    // The left column (the funnel, and the cells under it) takes two fifths
    // of a wide screen, so that long tool names show whole there.
    let left_w = if area.width >= 120 {
        (area.width * 2 / 5).max(58)
    } else {
        42
    };
    let (left, right) = super::columns(area, left_w);
    // Borders, the header line and one line per rung (`passed` included).
    let [funnel, cells] = left.layout(&Layout::vertical([
        Constraint::Length(Rung::COUNT as u16 + 3),
        Constraint::Fill(1),
    ]));
    let mut rates_h = if area.height >= 30 { 15 } else { 12 };
    if app
        .ladder
        .metrics
        .value
        .as_ref()
        .is_some_and(|m| m.expectations.runs_as_expected.denominator > 0)
    {
        // Two more lines: runs as expected, agreement with success.
        rates_h += 2;
    }
    let [rates, trend] = right.layout(&Layout::vertical([
        Constraint::Length(rates_h),
        Constraint::Fill(1),
    ]));
    draw_funnel(f, app, funnel);
    draw_trend(f, app, trend);
    draw_rates(f, app, rates);
    draw_cells(f, app, cells);
}

fn draw_funnel(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let Some((c, boundary)) = &app.ladder.counts.value else {
        f.render_widget(
            pending(app.ladder.counts.error.as_deref(), t).block(block(" Ladder ", t, true)),
            area,
        );
        return;
    };
    let inner_w = area.width.saturating_sub(2) as usize;
    let mut title = format!(
        " Ladder · {} decisions, {} labelled ",
        n(c.decisions),
        n(c.labelled)
    );
    if title.chars().count() > inner_w {
        title = format!(" Ladder · {} · {} labelled ", n(c.decisions), n(c.labelled));
    }
    // name(15) count(9) share(7) boundary(6) spaces: the bar takes the rest
    let show_b = inner_w >= 52;
    let bar_w = inner_w.saturating_sub(15 + 9 + 7 + 3 + if show_b { 8 } else { 0 });
    // Bars are scaled to the largest failing rung, so that a mostly passing
    // (or mostly unlabelled) set still shows where it fails; `unlabelled`
    // and `passed` are drawn dim and capped.
    let max = Rung::ALL
        .iter()
        .filter(|r| r.is_failure())
        .map(|r| c.count(*r))
        .max()
        .filter(|m| *m > 0)
        .unwrap_or_else(|| c.count(Rung::Passed).max(c.count(Rung::Unlabelled)));
    // A bar longer than the scale (passed, mostly) is cut, and says so.
    let mut capped = false;
    let view = &app.ladder.view;
    let head = |c: usize| view.head(LadderRow::COLUMNS, c);
    let bndry = match (view.sort, view.desc) {
        (Some(2), false) => " bndry¹↑",
        (Some(2), true) => " bndry¹↓",
        _ => "  bndry¹",
    };
    let mut lines = vec![Line::styled(
        format!(
            "{:<15}{:>9} {:<bar_w$} {:>6}{}",
            head(0),
            head(1),
            "",
            "share",
            if show_b { bndry } else { "" }
        ),
        t.header(),
    )];
    let pat = view.pattern();
    for (i, r) in (0..Rung::ALL.len()).map(|p| (p, &Rung::ALL[view.at(p).min(Rung::ALL.len() - 1)]))
    {
        let count = c.count(*r);
        let share = (c.decisions > 0).then(|| count as f64 / c.decisions as f64);
        let len = if max > 0 {
            ((count as f64 / max as f64) * bar_w as f64).ceil() as usize
        } else {
            0
        };
        let bar = if len > bar_w && bar_w > 0 {
            capped = true;
            format!("{}»", "█".repeat(bar_w - 1))
        } else {
            format!("{:<bar_w$}", "█".repeat(len))
        };
        let b = boundary
            .iter()
            .find(|(s, _)| s == r.as_str())
            .map(|(_, n)| n.to_string())
            .unwrap_or_default();
        let sel = i == app.ladder.cursor.sel;
        let row_style = if sel { t.selected() } else { Style::new() };
        // The count Enter opens is marked on the selected row.
        let on_count = sel && !(show_b && app.ladder.boundary);
        let on_b = sel && show_b && app.ladder.boundary;
        let mut spans: Vec<Span> = super::search::marked_spans(r.as_str(), &pat, t)
            .into_iter()
            .map(|s| Span::styled(s.content, t.rung(*r).patch(s.style)))
            .collect();
        spans.push(Span::raw(
            " ".repeat(15usize.saturating_sub(r.as_str().len())),
        ));
        spans.extend([
            Span::styled(
                format!("{:>9} ", n(count)),
                if on_count { t.focus() } else { Style::new() },
            ),
            Span::styled(bar, if r.is_failure() { t.rung(*r) } else { t.dim() }),
            Span::raw(format!(" {:>6}", percent(share))),
        ]);
        if show_b {
            spans.push(Span::raw("  "));
            spans.push(Span::styled(
                format!("{b:>6}"),
                if on_b { t.focus() } else { t.dim() },
            ));
        }
        lines.push(Line::from(spans).style(row_style));
    }
    let mut b = block(title, t, true);
    if let Some(bar) = super::search::table_bar(view, &app.ladder.cursor, t) {
        b = b.title_bottom(bar);
    }
    if show_b {
        b = b.title_bottom(Line::styled(" ¹ counted by boundary alone ", t.dim()));
    }
    if capped {
        b = b.title_bottom(Line::styled(" » bar cut ", t.dim()).right_aligned());
    }
    f.render_widget(Paragraph::new(lines).block(b), area);
    // A click on a rung selects it; on its count (or its boundary count),
    // drills like Enter.
    let sel = app.ladder.cursor.sel;
    super::hit_lines(app, area, 2, 0, sel, Rung::ALL.len(), &[]);
    for i in 0..Rung::ALL.len() {
        let y = area.y + 2 + i as u16;
        if y + 1 >= area.y + area.height {
            break;
        }
        let to = |col: Action| {
            vec![
                Action::MoveBy(i as isize - sel as isize),
                col,
                Action::Enter,
            ]
        };
        super::hit(app, Rect::new(area.x + 1 + 15, y, 9, 1), to(Action::Left));
        if show_b {
            let bx = area.x + 1 + (15 + 9 + 1 + bar_w + 1 + 6 + 2) as u16;
            super::hit(app, Rect::new(bx, y, 6, 1), to(Action::Right));
        }
    }
}

/// The routing rates as lines `width` columns wide: each ratio keeps every
/// digit (without thousands separators when they do not all fit) and the
/// names give way, in one column for all.
fn rate_lines<'a>(
    rates: &[(String, &Rate)],
    t: &crate::tui::theme::Theme,
    width: usize,
) -> Vec<Line<'a>> {
    let ratio = |r: &Rate, sep: bool| {
        if sep {
            format!("{}/{}", n(r.numerator), n(r.denominator))
        } else {
            format!("{}/{}", r.numerator, r.denominator)
        }
    };
    let widest = |sep: bool| {
        rates
            .iter()
            .map(|(_, r)| ratio(r, sep).chars().count())
            .max()
            .unwrap_or(0)
    };
    let sep = 21 + 7 + 2 + widest(true) <= width;
    let name_w = width.saturating_sub(7 + 2 + widest(sep)).min(21);
    rates
        .iter()
        .map(|(name, r)| {
            Line::from(vec![
                Span::raw(format!("{:<name_w$}", super::fit(name, name_w))),
                Span::styled(format!("{:>7}", percent(r.value)), t.header()),
                Span::styled(format!("  {}", ratio(r, sep)), t.dim()),
            ])
        })
        .collect()
}

fn draw_rates(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let b = block(" Routing rates ", t, false);
    let Some(m) = &app.ladder.metrics.value else {
        f.render_widget(
            pending(app.ladder.metrics.error.as_deref(), t).block(b),
            area,
        );
        return;
    };
    let w = area.width.saturating_sub(2) as usize;
    let named = |name: &str, r| (name.to_string(), r);
    let head = [
        named("capability coverage", &m.capability_coverage),
        named("exposure recall", &m.exposure_recall),
    ];
    let recall: Vec<(String, &Rate)> = m
        .tool_recall_at_k
        .iter()
        .map(|(k, r)| (format!("tool recall@{k}"), r))
        .collect();
    let tail = [
        named("selection accuracy", &m.selection_accuracy),
        named("abstention accuracy", &m.abstention_accuracy),
        named("no-call accuracy", &m.no_call_accuracy),
        named("violation rate", &m.violation_rate),
        named("first-call accuracy", &m.first_call_accuracy),
        named("recovery within 3", &m.recovery_within_3),
    ];
    let e = &m.expectations;
    let mut tail: Vec<(String, &Rate)> = tail.to_vec();
    if e.runs_as_expected.denominator > 0 {
        // Runs with expectations (format v1.1): rung's verdict, and how
        // often it agrees with the recorded success.
        tail.push(named("runs as expected", &e.runs_as_expected));
        tail.push(named("agrees with success", &e.agreement_with_success));
    }
    let all: Vec<(String, &Rate)> = head.iter().chain(&recall).chain(&tail).cloned().collect();
    let mut lines = rate_lines(&all, t, w);
    let tail_lines = lines.split_off(head.len() + recall.len());
    if m.tool_recall_at_k.is_empty() {
        lines.push(super::fit_line(
            vec![Span::styled(
                "tool recall@k        (no retrieval recorded)",
                t.dim(),
            )],
            w,
        ));
    }
    lines.extend(tail_lines);
    if let Some(p) = m.pass_hat_k.get(&1) {
        let mut spans = vec![
            Span::raw(format!("{:<21}", "pass^1")),
            Span::styled(format!("{:>7.3}", p.value), t.header()),
            Span::styled(format!("  {} tasks", p.tasks), t.dim()),
        ];
        if let Some((k, pk)) = m.pass_hat_k.iter().next_back().filter(|(k, _)| **k > 1) {
            spans.push(Span::styled(format!("  pass^{k} {:.3}", pk.value), t.dim()));
        }
        lines.push(super::fit_line(spans, w));
    }
    f.render_widget(Paragraph::new(lines).block(b), area);
}

fn draw_cells(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let b = block(" Top confusion cells · 5: all ", t, false);
    let Some(c) = &app.confusions.value else {
        f.render_widget(pending(app.confusions.error.as_deref(), t).block(b), area);
        return;
    };
    if c.cells.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled("no selection failures", t.dim())).block(b),
            area,
        );
        return;
    }
    let rows = area.height.saturating_sub(2) as usize;
    let w = area.width.saturating_sub(2) as usize;
    let lines: Vec<Line> = c
        .cells
        .iter()
        .take(rows)
        .map(|x| {
            super::fit_line(
                vec![
                    Span::styled(format!("{:>5} ", n(x.count)), t.header()),
                    Span::styled(format!("{:>6} ", percent(Some(x.share))), t.dim()),
                    Span::raw(format!("[{}]", esc(&x.acceptable.join(", ")))),
                    Span::styled(" → ", t.dim()),
                    Span::styled(
                        super::opt(&x.selected, "(no call)").into_owned(),
                        t.rung(Rung::Selection),
                    ),
                ],
                w,
            )
        })
        .collect();
    f.render_widget(Paragraph::new(lines).block(b), area);
}

fn draw_trend(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let title = format!(" Refusals per day, last {TREND_DAYS} days ");
    let b = block(title, t, false);
    let Some(days) = &app.ladder.trend.value else {
        f.render_widget(pending(app.ladder.trend.error.as_deref(), t).block(b), area);
        return;
    };
    let total: u64 = days.iter().sum();
    let week: u64 = days.iter().rev().take(7).sum();
    let until = app.filter.until.unwrap_or(app.opts.now_us);
    let inner = b.inner(area);
    f.render_widget(b, area);
    if inner.height == 0 {
        return;
    }
    let spark_h = inner.height.saturating_sub(2).min(6);
    let [line, spark, axis] = inner.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(spark_h),
        Constraint::Length(1),
    ]));
    let first = until - (TREND_DAYS as i64 - 1) * crate::window::DAY;
    let last = until - crate::window::DAY;
    // Each day gets as many columns as fit, so the axis lines up.
    let per_day = (spark.width as usize / days.len().max(1)).max(1);
    let wide: Vec<u64> = days
        .iter()
        .flat_map(|d| std::iter::repeat_n(*d, per_day))
        .collect();
    let (a, z) = (super::day(first), super::day(last));
    let gap = (wide.len().min(spark.width as usize)).saturating_sub(a.len() + z.len());
    f.render_widget(
        Line::styled(format!("{a}{}{z}", " ".repeat(gap)), t.dim()),
        axis,
    );
    f.render_widget(
        super::fit_line(
            vec![
                Span::styled(format!("{} ", n(total)), t.header()),
                Span::raw(format!(
                    "refused · {} in the last 7 days · to {}",
                    n(week),
                    super::day(until)
                )),
            ],
            line.width as usize,
        ),
        line,
    );
    if total == 0 {
        f.render_widget(Line::styled("no refusals in these days", t.dim()), spark);
    } else {
        f.render_widget(
            Sparkline::default().data(wide.as_slice()).style(t.bar()),
            spark,
        );
    }
}
