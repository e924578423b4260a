//! The frame around every screen: the tab bar, the filter bar, the key bar
//! (the screen's keys from the keymap), the help popup and the filter
//! editor, and the page an empty database shows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::{block, esc, minute};
use crate::tui::action::Action;
use crate::tui::keymap;
use crate::tui::state::{App, FilterForm, Screen};
use crate::tui::theme::Theme;

pub(super) fn tabs(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    // Every title, spaced, while they fit; then closer; then unpadded (eight
    // titles in 80 columns); then the current tab's title and the others'
    // numbers.
    let titles: usize = Screen::TABS.iter().map(|s| s.title().chars().count()).sum();
    let n = Screen::TABS.len();
    let crumb = matches!(
        app.screen,
        Screen::Tool | Screen::Decisions | Screen::ToolDiff | Screen::FindingList
    )
    .then(|| format!("  › {}", app.screen.title()));
    let room =
        (area.width as usize).saturating_sub(crumb.as_ref().map_or(0, |c| c.chars().count()));
    let (gap, all, pad) = if 6 + titles + 5 * n <= room {
        (" ", true, true)
    } else if 6 + titles + 4 * n <= room {
        ("", true, true)
    } else if 4 + titles + 3 * n <= room {
        (" ", true, false)
    } else {
        (" ", false, true)
    };
    let mut spans = vec![Span::styled(if pad { " rung " } else { "rung" }, t.title())];
    let mut x = area.x + spans[0].width() as u16;
    for (i, s) in Screen::TABS.iter().enumerate() {
        let key = s.number().unwrap_or(i as u8 + 1);
        let here = app.screen.tab() == *s;
        spans.push(Span::raw(gap));
        let tab = Span::styled(
            match (all || here, pad) {
                (true, true) => format!(" {key} {} ", s.title()),
                (true, false) => format!("{key} {}", s.title()),
                (false, _) => format!(" {key} "),
            },
            t.tab(here),
        );
        x += gap.len() as u16;
        let w = tab.width() as u16;
        // A click on a tab goes to its screen.
        super::hit(app, Rect::new(x, area.y, w, 1), vec![Action::Go(*s)]);
        x += w;
        spans.push(tab);
    }
    if let Some(c) = crumb {
        spans.push(Span::styled(c, t.header()));
    }
    f.render_widget(Line::from(spans), area);
}

pub(super) fn filter_bar(f: &mut Frame, app: &App, area: Rect) {
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
    let key = |a: Action| keymap::global_key(app, &a);
    spans.push(Span::styled(
        format!("  {} edit", key(Action::EditFilter)),
        t.dim(),
    ));
    if !parts.is_empty() {
        spans.push(Span::styled(
            format!(" · {} clear", key(Action::ClearFilter)),
            t.dim(),
        ));
    }
    if app.opts.no_redact {
        spans.push(Span::styled("  secrets shown (--no-redact)", t.bad()));
    }
    f.render_widget(Line::from(spans), area);
}

pub(super) fn key_bar(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let mut spans = Vec::new();
    if let Some(s) = &app.status {
        spans.push(Span::styled(format!(" {} ", esc(s)), t.warn()));
    }
    // The screen's keys as far as they fit, then always `? help` and `q quit`.
    let (mut own, tail) = keymap::bar_pairs(app);
    let width = |p: &[(String, &str)]| -> usize {
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

pub(super) fn empty(f: &mut Frame, app: &App, area: Rect) {
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

fn pairs_lines<'a>(title: &'a str, pairs: &[(String, &'static str)], t: &Theme) -> Vec<Line<'a>> {
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

pub(super) fn help(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let mut lines = Vec::new();
    let own = keymap::screen_pairs(app);
    let title = format!("{} screen", app.screen.title());
    lines.extend(pairs_lines(&title, &own, t));
    lines.extend(pairs_lines("Everywhere", &keymap::global_pairs(app), t));
    lines.extend(pairs_lines(
        "While typing a filter",
        &keymap::typing_pairs(app),
        t,
    ));
    lines.pop();
    let r = centered(
        area,
        60,
        (lines.len() as u16 + 2).min(area.height.saturating_sub(2)),
    );
    // Lines that do not fit scroll (↑/↓, PgUp/PgDn, the wheel); the frame
    // says when there are more above or below.
    let rows = r.height.saturating_sub(2) as usize;
    let max = lines.len().saturating_sub(rows);
    app.help_max.set(max);
    let top = app.help_top.min(max);
    let more = match (top > 0, top < max) {
        (false, false) => String::new(),
        (true, false) => " ↑ more ".to_string(),
        (false, true) => " more ↓ ".to_string(),
        (true, true) => " ↑ more ↓ ".to_string(),
    };
    let title = if max > 0 {
        " help · ↑↓ PgUp PgDn scroll · any other key closes "
    } else {
        " help · any key closes "
    };
    let shown: Vec<Line> = lines.into_iter().skip(top).take(rows).collect();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(shown)
            .block(block(title, t, true).title_bottom(Line::styled(more, t.key()).right_aligned())),
        r,
    );
}

pub(super) fn filter_form(f: &mut Frame, app: &App, area: Rect) {
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
        // (The completions, when they show, stand where this line would.)
        if active
            && app.popup().is_empty()
            && let Some(k) = known(i)
        {
            lines.push(Line::styled(format!("             known: {k}"), t.dim()));
        }
    }
    lines.push(Line::raw(""));
    if let Some(e) = &form.error {
        lines.push(Line::styled(esc(e).into_owned(), t.bad()));
    }
    if form.checking.is_some() {
        lines.push(Line::styled("checking what the filter keeps…", t.dim()));
    }
    if form.warned.is_some() {
        let enter = keymap::form_key(app, &Action::Submit);
        lines.push(Line::styled(
            format!("matches nothing: no decision is in this filter. {enter} applies it anyway; edit to change it."),
            t.bad(),
        ));
    }
    lines.push(Line::styled(
        keymap::form_pairs(app)
            .iter()
            .map(|(k, w)| format!("{k} {w}"))
            .collect::<Vec<_>>()
            .join(" · "),
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
    completions(f, app, r, area);
}

/// Rows the completion popup lists at most.
const POPUP_ROWS: usize = 8;

/// The completion popup, under the active field of the editor drawn in
/// `form`: the values the database holds that match what is typed, each
/// with its count, the one Tab picks highlighted.
fn completions(f: &mut Frame, app: &App, form: Rect, area: Rect) {
    let t = &app.opts.theme;
    let list = app.popup();
    if list.is_empty() {
        return;
    }
    let pick = app.form.pick.min(list.len() - 1);
    // Values shown as any trace text is: masked, escaped, cut.
    let values: Vec<String> = list.iter().map(|c| esc(&c.insert).into_owned()).collect();
    let counts: Vec<String> = list
        .iter()
        .map(|c| format!("{} {}", super::n(c.count), c.unit))
        .collect();
    let count_w = counts.iter().map(|c| c.chars().count()).max().unwrap_or(0);
    // Under the field's text: past the border, the two intro lines, the
    // fields above, and the label column.
    let x = form.x + 1 + 12;
    let y = form.y + 1 + 2 + app.form.field as u16 + 1;
    let room_w = (area.x + area.width).saturating_sub(x) as usize;
    let value_w = values
        .iter()
        .map(|v| crate::text::width(v))
        .max()
        .unwrap_or(0)
        .min(room_w.saturating_sub(count_w + 6).max(8));
    let w = (value_w + count_w + 6).min(room_w) as u16;
    let rows = list.len().min(POPUP_ROWS);
    let h = (rows as u16 + 2).min((area.y + area.height).saturating_sub(y));
    if h < 3 || w < 12 {
        return;
    }
    let shown = h as usize - 2;
    let top = (pick + 1).saturating_sub(shown);
    let lines: Vec<Line> = (top..list.len().min(top + shown))
        .map(|i| {
            let value = super::fit(&values[i], value_w);
            let style = if i == pick {
                t.selected()
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(format!(" {value:<value_w$} "), style),
                Span::styled(format!(" {:>count_w$} ", counts[i]), t.dim()),
            ])
        })
        .collect();
    let title = format!(
        " {} of {} · {} pick ",
        pick + 1,
        list.len(),
        keymap::form_key(app, &Action::Pick)
    );
    let r = Rect::new(x, y, w, h);
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(lines).block(block(title, t, false)), r);
}
