//! Drawing: a pure function of the state. Nothing here reads the database or
//! changes the app; every string from a trace is escaped before it reaches a
//! cell, and only the visible rows of a list are built.

mod confusions;
mod ladder;
mod refusals;
pub mod run;
mod runs;
mod tools;

use std::borrow::Cow;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::app::{App, FilterForm, Screen};
use super::keymap;
use super::layout;
use super::theme::Theme;
use crate::model::Timestamp;
use crate::text;

/// Draws the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let area = f.area();
    if area.width < layout::MIN.0 || area.height < layout::MIN.1 {
        let msg = format!(
            "terminal too small: {}x{} (rung needs at least {}x{}; enlarge the window, or q to quit)",
            area.width,
            area.height,
            layout::MIN.0,
            layout::MIN.1
        );
        f.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let parts = layout::frame(area);
    tabs(f, app, parts.tabs);
    filter_bar(f, app, parts.filter);
    if app.empty.value == Some(true) {
        empty(f, app, parts.body);
    } else {
        match app.screen {
            Screen::Ladder => ladder::draw(f, app, parts.body),
            Screen::Runs => runs::draw(f, app, parts.body),
            Screen::Run => run::draw(f, app, parts.body),
            Screen::Refusals => refusals::draw(f, app, parts.body),
            Screen::Confusions => confusions::draw(f, app, parts.body),
            Screen::Tools => tools::draw(f, app, parts.body),
            Screen::Tool => tools::draw_tool(f, app, parts.body),
            Screen::Decisions => runs::draw_decisions(f, app, parts.body),
        }
    }
    key_bar(f, app, parts.keys);
    if app.editing_filter {
        filter_form(f, app, area);
    } else if app.help {
        help(f, app, area);
    }
}

/// A trace string made safe for a cell.
pub fn esc(s: &str) -> Cow<'_, str> {
    text::escape(s)
}

/// An optional trace string, or `none` when absent.
pub fn opt<'a>(s: &'a Option<String>, none: &'a str) -> Cow<'a, str> {
    match s {
        Some(s) => esc(s),
        None => Cow::Borrowed(none),
    }
}

pub fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
}

pub fn percent(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{:.1}%", v * 100.0),
        None => "n/a".to_string(),
    }
}

/// `2026-11-20 09:00` (UTC).
pub fn minute(us: i64) -> String {
    Timestamp(us)
        .to_datetime()
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

/// `2026-11-20` (UTC).
pub fn day(us: i64) -> String {
    Timestamp(us).to_datetime().format("%Y-%m-%d").to_string()
}

/// A number with thousands separators.
pub fn n(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A one-line sparkline of counts (`▁▂▃▅▇█`, blank for zero).
pub fn spark(values: &[u64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = values.iter().copied().max().unwrap_or(0);
    values
        .iter()
        .map(|&v| {
            if v == 0 || max == 0 {
                '·'
            } else {
                BARS[((v * 7).div_ceil(max)).min(7) as usize]
            }
        })
        .collect()
}

/// A rung name as a short coloured badge.
pub fn badge<'a>(rung: &str, theme: &Theme) -> Span<'a> {
    let text = match rung {
        "passed" => "passed".to_string(),
        r => r.to_uppercase(),
    };
    Span::styled(text, theme.rung(rung))
}

/// A rung as a badge of at most 9 columns, for narrow tables.
pub fn short_badge<'a>(rung: &str, theme: &Theme) -> Span<'a> {
    let text = match rung {
        "passed" => "passed",
        "representation" => "REPRESENT",
        "authorization" => "AUTHORIZE",
        "precondition" => "PRECOND",
        "unclassified" => "UNCLASS",
        "coverage" => "COVERAGE",
        "exposure" => "EXPOSURE",
        "discovery" => "DISCOVERY",
        "selection" => "SELECTION",
        "schema" => "SCHEMA",
        "semantics" => "SEMANTICS",
        "execution" => "EXECUTION",
        "progress" => "PROGRESS",
        other => other,
    };
    Span::styled(text.to_string(), theme.rung(rung))
}

/// Words of `text` in lines of at most `width` columns (long words cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_w = 0;
    for word in text.split(' ') {
        let w = word.chars().count();
        if cur_w > 0 && cur_w + 1 + w > width {
            lines.push(std::mem::take(&mut cur));
            cur_w = 0;
        }
        if cur_w > 0 {
            cur.push(' ');
            cur_w += 1;
        }
        if w > width {
            for c in word.chars() {
                if cur_w == width {
                    lines.push(std::mem::take(&mut cur));
                    cur_w = 0;
                }
                cur.push(c);
                cur_w += 1;
            }
        } else {
            cur.push_str(word);
            cur_w += w;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// `lead` (of `lead_w` columns) followed by `text` wrapped to `width`, the
/// continuation lines indented under the text (or by 4 when the lead is
/// wide).
pub fn hang<'a>(
    lead: Vec<Span<'a>>,
    lead_w: usize,
    text: &str,
    style: Style,
    width: usize,
) -> Vec<Line<'a>> {
    let indent = if lead_w * 2 <= width { lead_w } else { 4 };
    let mut out = Vec::new();
    if lead_w * 2 > width && !text.is_empty() {
        out.push(Line::from(lead));
        for l in wrap(text, width.saturating_sub(indent)) {
            out.push(Line::from(vec![
                Span::raw(" ".repeat(indent)),
                Span::styled(l, style),
            ]));
        }
        return out;
    }
    let mut lines = wrap(text, width.saturating_sub(indent)).into_iter();
    let mut first = lead;
    first.push(Span::styled(lines.next().unwrap_or_default(), style));
    out.push(Line::from(first));
    for l in lines {
        out.push(Line::from(vec![
            Span::raw(" ".repeat(indent)),
            Span::styled(l, style),
        ]));
    }
    out
}

/// A bordered block with a title in the title style.
pub fn block<'a>(title: impl Into<Line<'a>>, theme: &Theme, focused: bool) -> Block<'a> {
    let b = Block::bordered().title(title).title_style(theme.title());
    if focused {
        b.border_style(theme.focus_border())
    } else {
        b
    }
}

/// The loading placeholder.
pub fn loading(theme: &Theme) -> Line<'static> {
    Line::styled("loading…", theme.dim())
}

fn tabs(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let mut spans = vec![Span::styled(" rung ", t.title())];
    for (i, s) in Screen::TABS.iter().enumerate() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!(" {} {} ", i + 1, s.title()),
            t.tab(app.screen.tab() == *s),
        ));
    }
    if matches!(app.screen, Screen::Tool | Screen::Decisions) {
        spans.push(Span::styled(
            format!("  › {}", app.screen.title()),
            t.header(),
        ));
    }
    f.render_widget(Line::from(spans), area);
}

fn filter_bar(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let flt = &app.filter;
    let mut parts: Vec<String> = Vec::new();
    let list = |name: &str, v: &[String]| format!("{name}={}", esc(&v.join(",")));
    if !flt.models.is_empty() {
        parts.push(list("model", &flt.models));
    }
    if !flt.catalogues.is_empty() {
        parts.push(list("catalogue", &flt.catalogues));
    }
    if !flt.phases.is_empty() {
        parts.push(list("phase", &flt.phases));
    }
    if flt.since.is_some() || flt.until.is_some() {
        parts.push(format!(
            "time={}..{}",
            flt.since.map(minute).unwrap_or_default(),
            flt.until.map(minute).unwrap_or_default()
        ));
    }
    for (k, v) in &flt.tags {
        parts.push(format!("tag {}={}", esc(k), esc(v)));
    }
    let mut spans = vec![Span::styled(" filter: ", t.header())];
    if parts.is_empty() {
        spans.push(Span::styled("none (all decisions)", t.dim()));
    } else {
        spans.push(Span::raw(parts.join(" · ")));
    }
    spans.push(Span::styled("  f edit", t.dim()));
    if !parts.is_empty() {
        spans.push(Span::styled(" · F clear", t.dim()));
    }
    if app.opts.no_redact {
        spans.push(Span::styled("  secrets shown (--no-redact)", t.bad()));
    }
    f.render_widget(Line::from(spans), area);
}

fn key_bar(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let mut spans = Vec::new();
    if let Some(s) = &app.status {
        spans.push(Span::styled(format!(" {} ", esc(s)), t.warn()));
    }
    // The screen's keys as far as they fit, then always `? help` and `q quit`.
    let pairs = keymap::bar_pairs(app);
    let (mut own, tail): (Vec<_>, Vec<_>) = pairs
        .into_iter()
        .partition(|(k, _)| !matches!(*k, "?" | "q"));
    let width = |p: &[(&str, &str)]| -> usize {
        p.iter()
            .map(|(k, w)| k.chars().count() + w.chars().count() + 3)
            .sum()
    };
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let room = (area.width as usize).saturating_sub(used + width(&tail));
    while !own.is_empty() && width(&own) > room {
        own.pop();
    }
    for (k, what) in own.into_iter().chain(tail) {
        spans.push(Span::styled(format!(" {k}"), t.key()));
        spans.push(Span::raw(format!(" {what} ")));
    }
    f.render_widget(Line::from(spans), area);
}

fn empty(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let lines = vec![
        Line::raw(""),
        Line::styled("This database has no decisions yet.", t.header()),
        Line::raw(""),
        Line::raw("Import traces, then open rung again:"),
        Line::styled(
            "  rung import PATH...      (files or folders of .jsonl)",
            t.key(),
        ),
        Line::styled(
            "  rung PATH...             (import, then open this view)",
            t.key(),
        ),
        Line::raw(""),
        Line::raw("The trace format: docs/trace-format.md in rung's repository."),
    ];
    f.render_widget(Paragraph::new(lines).block(block(" rung ", t, false)), area);
}

/// A rectangle of `w` x `h` centred in `area` (clamped to it).
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn pairs_lines<'a>(
    title: &'a str,
    pairs: &[(&'static str, &'static str)],
    t: &Theme,
) -> Vec<Line<'a>> {
    let mut lines = vec![Line::styled(title, t.header())];
    for (k, what) in pairs {
        lines.push(Line::from(vec![
            Span::styled(format!("  {k:<10}"), t.key()),
            Span::raw(*what),
        ]));
    }
    lines.push(Line::raw(""));
    lines
}

fn help(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let mut lines = Vec::new();
    let own = keymap::help_pairs(&keymap::screen_bindings(app.screen));
    let title = format!("{} screen", app.screen.title());
    lines.extend(pairs_lines(&title, &own, t));
    lines.extend(pairs_lines("Everywhere", &keymap::global_pairs(), t));
    lines.extend(pairs_lines(
        "While typing a filter",
        &keymap::help_pairs(&keymap::TYPING.iter().collect::<Vec<_>>()),
        t,
    ));
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let r = centered(area, 60, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .block(block(" help · any key closes ", t, true))
            .wrap(Wrap { trim: false }),
        r,
    );
}

fn filter_form(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let form = &app.form;
    let hints = app.hints.value.as_ref();
    let known = |i: usize| -> Option<String> {
        let h = hints?;
        let v = match i {
            0 => &h.models,
            1 => &h.catalogues,
            2 => &h.phases,
            5 => &h.tags,
            _ => return None,
        };
        (!v.is_empty()).then(|| {
            v.iter()
                .map(|s| esc(s).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        })
    };
    let mut lines = vec![
        Line::styled(
            "Applies to every screen. Empty fields do not filter.",
            t.dim(),
        ),
        Line::raw(""),
    ];
    for (i, label) in FilterForm::LABELS.iter().enumerate() {
        let active = i == form.field;
        let value = esc(&form.fields[i]).into_owned();
        let mut spans = vec![
            Span::styled(
                format!("{} {label:<10}", if active { "›" } else { " " }),
                if active { t.key() } else { Style::new() },
            ),
            Span::styled(
                format!("{value}{}", if active { "▏" } else { "" }),
                if active { t.selected() } else { Style::new() },
            ),
        ];
        if active {
            spans.push(Span::styled(format!("  {}", FilterForm::HELP[i]), t.dim()));
        }
        lines.push(Line::from(spans));
        if active && let Some(k) = known(i) {
            lines.push(Line::styled(format!("             known: {k}"), t.dim()));
        }
    }
    lines.push(Line::raw(""));
    if let Some(e) = &form.error {
        lines.push(Line::styled(esc(e).into_owned(), t.bad()));
    }
    lines.push(Line::styled(
        "Enter apply · Esc cancel · Tab/↓ next field · C-u clear field",
        t.dim(),
    ));
    let r = centered(area, 76, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .block(block(" filter ", t, true))
            .wrap(Wrap { trim: false }),
        r,
    );
}

/// Splits `area` into a left and right column of `left` width.
pub fn columns(area: Rect, left: u16) -> (Rect, Rect) {
    let [a, b] = area.layout(&Layout::horizontal([
        Constraint::Length(left),
        Constraint::Fill(1),
    ]));
    (a, b)
}
