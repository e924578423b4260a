//! Drawing: a pure function of the state. Nothing here reads the database or
//! changes the app; every string from a trace is escaped before it reaches a
//! cell, and only the visible rows of a list are built.

mod compare;
mod confusions;
pub mod detail;
mod findings;
mod frame;
mod ladder;
mod refusals;
mod run;
mod runs;
mod tools;

use std::borrow::Cow;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::layout;
use super::state::{App, Screen};
use super::theme::Theme;
use crate::model::{Rung, Timestamp};
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
    frame::tabs(f, app, parts.tabs);
    frame::filter_bar(f, app, parts.filter);
    if app.empty.value == Some(true) {
        frame::empty(f, app, parts.body);
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
            Screen::Findings => findings::draw(f, app, parts.body),
            Screen::FindingList => findings::draw_list(f, app, parts.body),
            Screen::Compare => compare::draw(f, app, parts.body),
            Screen::ToolDiff => compare::draw_tool_diff(f, app, parts.body),
        }
    }
    frame::key_bar(f, app, parts.keys);
    if app.editing_filter {
        frame::filter_form(f, app, area);
    } else if app.help {
        frame::help(f, app, area);
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

/// A rung as a coloured badge: `passed`, or the failed rung in capitals.
pub fn badge<'a>(rung: Rung, theme: &Theme) -> Span<'a> {
    let text = match rung {
        Rung::Passed | Rung::Unlabelled => rung.as_str().to_string(),
        r => r.as_str().to_uppercase(),
    };
    Span::styled(text, theme.rung(rung))
}

/// A rung as a badge of at most 9 columns, for narrow tables.
pub fn short_badge<'a>(rung: Rung, theme: &Theme) -> Span<'a> {
    let text = match rung {
        Rung::Passed => "passed",
        Rung::Unlabelled => "no label",
        Rung::Representation => "REPRESENT",
        Rung::Authorization => "AUTHORIZE",
        Rung::Precondition => "PRECOND",
        Rung::Unclassified => "UNCLASS",
        Rung::Coverage => "COVERAGE",
        Rung::Exposure => "EXPOSURE",
        Rung::Discovery => "DISCOVERY",
        Rung::Selection => "SELECTION",
        Rung::Schema => "SCHEMA",
        Rung::Semantics => "SEMANTICS",
        Rung::Execution => "EXECUTION",
        Rung::Progress => "PROGRESS",
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

/// What stands where a value will be: why it could not be loaded, or the
/// loading placeholder while it is coming.
pub fn waiting(error: Option<&str>, theme: &Theme) -> Line<'static> {
    match error {
        Some(e) => Line::styled(format!("could not load: {}", esc(e)), theme.bad()),
        None => loading(theme),
    }
}

/// `waiting` as a paragraph, wrapped so that a long error shows whole.
pub fn pending(error: Option<&str>, theme: &Theme) -> Paragraph<'static> {
    Paragraph::new(waiting(error, theme)).wrap(Wrap { trim: true })
}

/// Splits `area` into a left and right column of `left` width.
pub fn columns(area: Rect, left: u16) -> (Rect, Rect) {
    let [a, b] = area.layout(&Layout::horizontal([
        Constraint::Length(left),
        Constraint::Fill(1),
    ]));
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rung_shows_as_its_badge() {
        // (A stored name no rung has is the store's error, naming the row.)
        let t = Theme { color: true };
        let b = badge(Rung::Passed, &t);
        assert_eq!((b.content.as_ref(), b.style), ("passed", t.good()));
        let b = badge(Rung::Authorization, &t);
        assert_eq!(b.content, "AUTHORIZATION");
        assert_eq!(short_badge(Rung::Authorization, &t).content, "AUTHORIZE");
    }
}
