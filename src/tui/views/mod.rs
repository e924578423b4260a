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
pub mod search;
mod tools;

use std::cell::RefCell;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::action::Action;
use super::layout;
use super::state::{App, Screen};
use super::theme::Theme;
use crate::model::{Rung, Timestamp};
use crate::redact::Redactor;
use crate::text::Shown;

/// Draws the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let _drawing = Drawing::begin(&app.opts.redactor);
    app.hits.borrow_mut().clear();
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

thread_local! {
    /// The redactor of the frame being drawn (see [`draw`]).
    static REDACTOR: RefCell<Option<Arc<Redactor>>> = const { RefCell::new(None) };
}

/// Sets the redactor [`esc`] masks with while a frame is drawn.
struct Drawing;

impl Drawing {
    fn begin(r: &Arc<Redactor>) -> Drawing {
        REDACTOR.with(|x| *x.borrow_mut() = Some(r.clone()));
        Drawing
    }
}

impl Drop for Drawing {
    fn drop(&mut self) {
        REDACTOR.with(|x| *x.borrow_mut() = None);
    }
}

/// A trace string made safe for a cell: secrets masked (by the app's
/// redactor: the built-in patterns, the configuration's `[redact]`
/// patterns, nothing under `--no-redact`), then escaped to one line. Every
/// string from a trace reaches a cell through here or [`opt`].
pub fn esc(s: &str) -> Shown {
    // Outside a frame (a helper called on its own), the built-in patterns
    // still mask.
    with_redactor(|r| r.show(s))
}

/// The redactor of the frame being drawn (the built-in patterns outside a
/// frame).
fn with_redactor<T>(f: impl FnOnce(&Redactor) -> T) -> T {
    REDACTOR.with(|x| match &*x.borrow() {
        Some(r) => f(r),
        None => f(&Redactor::default()),
    })
}

/// A multi-line trace string, line by line: masked as a whole (so a secret
/// over several lines is found), each line escaped.
pub fn esc_lines(s: &str) -> Vec<Shown> {
    with_redactor(|r| r.show_lines(s))
}

/// A JSON value from a trace with every string in it masked (and the
/// values of secret-named keys), for pretty-printing.
pub fn masked_json(v: &serde_json::Value) -> serde_json::Value {
    with_redactor(|r| r.mask_value(v).into_value())
}

/// An optional trace string (masked and escaped), or `none` when absent.
pub fn opt(s: &Option<String>, none: &'static str) -> Shown {
    match s {
        Some(s) => esc(s),
        None => Shown::ours(none),
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

/// `s` cut to `w` terminal columns, the cut marked with `…`.
pub fn fit(s: &str, w: usize) -> String {
    crate::text::truncate(s, w).into_owned()
}

/// A line of styled pieces cut to `w` columns, the cut marked with `…`
/// (in the style of the piece it falls in).
pub fn fit_line<'a>(spans: Vec<Span<'a>>, w: usize) -> Line<'a> {
    let total: usize = spans.iter().map(|s| s.width()).sum();
    if total <= w {
        return Line::from(spans);
    }
    let mut out = Vec::new();
    let mut used = 0;
    for s in spans {
        let sw = s.width();
        if used + sw < w {
            used += sw;
            out.push(s);
            continue;
        }
        // What fits of this piece in all but the last column, then `…`.
        let room = w - used;
        let mut cut = String::new();
        for c in s.content.chars() {
            let next = format!("{cut}{c}");
            if crate::text::width(&next) + 1 > room {
                break;
            }
            cut = next;
        }
        if room > 0 {
            cut.push('…');
        }
        out.push(Span::styled(cut, s.style));
        break;
    }
    Line::from(out)
}

/// Labels of at most `w` columns for `names` (already escaped), told apart
/// wherever the names differ: a name shows whole when it fits, else cut at
/// its end with `…`; names that would read the same keep their ends instead
/// (`…nfluence`, `…rch_code`), and when those are the same too they are
/// numbered.
pub fn distinct_labels(names: &[String], w: usize) -> Vec<String> {
    let keep_end = |s: &str| -> String {
        let mut end = String::new();
        for c in s.chars().rev() {
            let next = format!("{c}{end}");
            if crate::text::width(&next) + 1 > w {
                break;
            }
            end = next;
        }
        format!("…{end}")
    };
    let clash = |labels: &[String], i: usize| {
        labels
            .iter()
            .enumerate()
            .any(|(j, l)| j != i && *l == labels[i] && names[j] != names[i])
    };
    let mut labels: Vec<String> = names.iter().map(|s| fit(s, w)).collect();
    let clashing: Vec<usize> = (0..names.len()).filter(|&i| clash(&labels, i)).collect();
    for &i in &clashing {
        labels[i] = keep_end(&names[i]);
    }
    let still: Vec<usize> = clashing
        .into_iter()
        .filter(|&i| clash(&labels, i))
        .collect();
    for i in still {
        let tag = format!("{}", i + 1);
        labels[i] = format!("{}{tag}", fit(&names[i], w.saturating_sub(tag.len())));
    }
    labels
}

/// Columns for numbers as wide as the widest of `values` (at least `min`):
/// a step or a count shows whole, never cut to its last digits.
pub fn number_width(values: impl Iterator<Item = i64>, min: u16) -> u16 {
    values
        .map(|v| v.to_string().len() as u16)
        .max()
        .unwrap_or(0)
        .max(min)
}

/// The widths a `Table` (no selection column, one column between columns,
/// as the views draw them) gives columns of these constraints in `width`
/// columns: for cutting cell text to fit with `…`.
pub fn column_widths(width: u16, constraints: &[Constraint]) -> Vec<usize> {
    Layout::horizontal(constraints.to_vec())
        .spacing(1)
        .split(Rect::new(0, 0, width, 1))
        .iter()
        .map(|r| r.width as usize)
        .collect()
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

/// A click in `area` sends `actions` (see `tui::mouse`).
pub fn hit(app: &App, area: Rect, actions: Vec<Action>) {
    app.hits.borrow_mut().add(area, actions);
}

/// The rows of a table drawn in `area` (bordered, one header line) from
/// row `top` of `len`, the selection at `sel`: a click on a row selects it
/// (after `pre`, e.g. the key that focuses the pane).
pub fn hit_rows(app: &App, area: Rect, top: usize, sel: usize, len: usize, pre: &[Action]) {
    hit_lines(app, area, 2, top, sel, len, pre);
}

/// As [`hit_rows`], for lines of a list starting `head` lines below the
/// top of `area` (border included).
pub fn hit_lines(
    app: &App,
    area: Rect,
    head: u16,
    top: usize,
    sel: usize,
    len: usize,
    pre: &[Action],
) {
    let inner = area.height.saturating_sub(head + 1) as usize;
    for i in 0..inner.min(len.saturating_sub(top)) {
        let r = Rect::new(
            area.x + 1,
            area.y + head + i as u16,
            area.width.saturating_sub(2),
            1,
        );
        let mut acts = pre.to_vec();
        acts.push(Action::MoveBy((top + i) as isize - sel as isize));
        hit(app, r, acts);
    }
}

/// The x and width of column `i` of a table of `widths` in `area`
/// (bordered, one column between columns, as the views draw tables).
pub fn column_rect(area: Rect, constraints: &[Constraint], i: usize) -> (u16, u16) {
    let w = column_widths(area.width.saturating_sub(2), constraints);
    let x = area.x
        + 1
        + w[..i.min(w.len())]
            .iter()
            .map(|c| *c as u16 + 1)
            .sum::<u16>();
    (x, w.get(i).copied().unwrap_or(0) as u16)
}

/// A count a click drills into, like Enter: in column `col` of the row at
/// `top + i` of a table in `area` (bordered, one header line); `pick` puts
/// the column cursor on it.
#[allow(clippy::too_many_arguments)]
pub fn hit_count(
    app: &App,
    area: Rect,
    constraints: &[Constraint],
    col: usize,
    row: usize,
    top: usize,
    sel: usize,
    pick: Vec<Action>,
) {
    let (x, w) = column_rect(area, constraints, col);
    let y = area.y + 2 + (row - top) as u16;
    if y + 1 >= area.y + area.height {
        return;
    }
    let mut acts = vec![Action::MoveBy(row as isize - sel as isize)];
    acts.extend(pick);
    acts.push(Action::Enter);
    hit(app, Rect::new(x, y, w, 1), acts);
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
    fn labels_cut_alike_are_told_apart() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            distinct_labels(
                &names(&["search_confluence", "search_code", "get_ticket"]),
                9
            ),
            vec!["…nfluence", "…rch_code", "get_tick…"]
        );
        // Fitting names are left whole; equal names stay equal.
        assert_eq!(
            distinct_labels(&names(&["a", "search_code", "a"]), 12),
            vec!["a", "search_code", "a"]
        );
        // Same start and end: numbered.
        assert_eq!(
            distinct_labels(&names(&["search_a_common_end", "search_b_common_end"]), 8),
            vec!["search…1", "search…2"]
        );
    }

    #[test]
    fn cut_text_ends_with_an_ellipsis() {
        assert_eq!(fit("search_confluence", 10), "search_co…");
        assert_eq!(fit("short", 10), "short");
        let l = fit_line(
            vec![
                Span::raw("   72 "),
                Span::styled("[search_sharepoint]", Style::new()),
            ],
            16,
        );
        assert_eq!(l.to_string(), "   72 [search_s…");
        assert_eq!(
            column_widths(20, &[Constraint::Length(5), Constraint::Fill(1)]),
            vec![5, 14]
        );
    }

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
