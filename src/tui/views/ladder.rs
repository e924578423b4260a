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
use crate::tui::state::{App, TREND_DAYS};

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let left_w = if area.width >= 120 { 58 } else { 42 };
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
    let title = format!(
        " Ladder · {} decisions, {} labelled ",
        n(c.decisions),
        n(c.labelled)
    );
    let inner_w = area.width.saturating_sub(2) as usize;
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
    let mut lines = vec![Line::styled(
        format!(
            "{:<15}{:>9} {:<bar_w$} {:>6}{}",
            "rung",
            "count",
            "",
            "share",
            if show_b { "  bndry¹" } else { "" }
        ),
        t.header(),
    )];
    for (i, r) in Rung::ALL.iter().enumerate() {
        let count = c.count(*r);
        let share = (c.decisions > 0).then(|| count as f64 / c.decisions as f64);
        let len = if max > 0 {
            ((count as f64 / max as f64) * bar_w as f64).ceil() as usize
        } else {
            0
        };
        let bar = format!("{:<bar_w$}", "█".repeat(len.min(bar_w)));
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
        let mut spans = vec![
            Span::styled(format!("{:<15}", r.as_str()), t.rung(*r)),
            Span::styled(
                format!("{:>9} ", n(count)),
                if on_count { t.focus() } else { Style::new() },
            ),
            Span::styled(bar, if r.is_failure() { t.rung(*r) } else { t.dim() }),
            Span::raw(format!(" {:>6}", percent(share))),
        ];
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
    if show_b {
        b = b.title_bottom(Line::styled(" ¹ counted by boundary alone ", t.dim()));
    }
    f.render_widget(Paragraph::new(lines).block(b), area);
}

fn rate_line<'a>(name: &str, r: &Rate, t: &crate::tui::theme::Theme) -> Line<'a> {
    Line::from(vec![
        Span::raw(format!("{name:<21}")),
        Span::styled(format!("{:>7}", percent(r.value)), t.header()),
        Span::styled(
            format!("  {}/{}", n(r.numerator), n(r.denominator)),
            t.dim(),
        ),
    ])
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
    let mut lines = vec![
        rate_line("capability coverage", &m.capability_coverage, t),
        rate_line("exposure recall", &m.exposure_recall, t),
    ];
    for (k, r) in &m.tool_recall_at_k {
        lines.push(rate_line(&format!("tool recall@{k}"), r, t));
    }
    if m.tool_recall_at_k.is_empty() {
        lines.push(Line::styled(
            "tool recall@k        (no retrieval recorded)",
            t.dim(),
        ));
    }
    lines.extend([
        rate_line("selection accuracy", &m.selection_accuracy, t),
        rate_line("abstention accuracy", &m.abstention_accuracy, t),
        rate_line("no-call accuracy", &m.no_call_accuracy, t),
        rate_line("violation rate", &m.violation_rate, t),
        rate_line("first-call accuracy", &m.first_call_accuracy, t),
        rate_line("recovery within 3", &m.recovery_within_3, t),
    ]);
    let e = &m.expectations;
    if e.runs_as_expected.denominator > 0 {
        // Runs with expectations (format v1.1): rung's verdict, and how
        // often it agrees with the recorded success.
        lines.push(rate_line("runs as expected", &e.runs_as_expected, t));
        lines.push(rate_line(
            "agrees with success",
            &e.agreement_with_success,
            t,
        ));
    }
    if let Some(p) = m.pass_hat_k.get(&1) {
        let mut spans = vec![
            Span::raw(format!("{:<21}", "pass^1")),
            Span::styled(format!("{:>7.3}", p.value), t.header()),
            Span::styled(format!("  {} tasks", p.tasks), t.dim()),
        ];
        if let Some((k, pk)) = m.pass_hat_k.iter().next_back().filter(|(k, _)| **k > 1) {
            spans.push(Span::styled(format!("  pass^{k} {:.3}", pk.value), t.dim()));
        }
        lines.push(Line::from(spans));
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
    let lines: Vec<Line> = c
        .cells
        .iter()
        .take(rows)
        .map(|x| {
            Line::from(vec![
                Span::styled(format!("{:>5} ", n(x.count)), t.header()),
                Span::styled(format!("{:>6} ", percent(Some(x.share))), t.dim()),
                Span::raw(format!("[{}]", esc(&x.acceptable.join(", ")))),
                Span::styled(" → ", t.dim()),
                Span::styled(
                    super::opt(&x.selected, "(no call)").into_owned(),
                    t.rung(Rung::Selection),
                ),
            ])
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
        Line::from(vec![
            Span::styled(format!("{} ", n(total)), t.header()),
            Span::raw(format!(
                "refused · {} in the last 7 days · to {}",
                n(week),
                super::day(until)
            )),
        ]),
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
