//! The decision detail of the Run screen's right pane: the ladder walk,
//! the label, the menu the model saw, findings and payload sizes, laid out
//! for the pane's width.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{badge, esc, hang, opt};
use crate::ladder::label_text;
use crate::model::Rung;
use crate::store::browse::MenuItem;
use crate::text::truncate;
use crate::tui::layout;
use crate::tui::payload::human_bytes;
use crate::tui::state::App;
use crate::tui::theme::Theme;
use crate::tui::worker::DetailView;

fn state_span<'a>(state: &str, failed_here: bool, t: &Theme) -> Span<'a> {
    match state {
        "passed" => Span::styled("✓ passed      ", t.good()),
        "failed" if failed_here => Span::styled("✗ FAILED ←    ", t.bad()),
        "failed" => Span::styled("✗ failed      ", t.warn()),
        "not reached" => Span::styled("· not reached ", t.dim()),
        _ => Span::styled("– skipped     ", t.dim()),
    }
}

/// The tool column of the menu table: as wide as the longest name, within
/// what the pane allows.
fn menu_name_width(width: usize, longest: usize) -> usize {
    width
        .saturating_sub(4 + 1 + 16 + 12)
        .clamp(10, 32)
        .min(longest.max(4))
}

/// One menu entry: a table line, and the why on the lines below when it
/// does not fit beside it.
fn menu_lines<'a>(
    i: Option<usize>,
    m: &MenuItem,
    same_why: bool,
    selected: Option<&str>,
    name_w: usize,
    width: usize,
    t: &Theme,
) -> Vec<Line<'a>> {
    let rank = m.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into());
    let score = m
        .score
        .map(|s| format!("{s:.2}"))
        .unwrap_or_else(|| "-".into());
    let chosen = selected == Some(m.name.as_str());
    let name_style = if chosen {
        t.header()
    } else if m.visible {
        Style::new()
    } else {
        t.dim()
    };
    let name = truncate(&esc(&m.name), name_w).into_owned();
    let why = esc(&m.why).into_owned();
    let fixed = 4 + 1 + name_w + 16 + 12;
    let beside = fixed + why.chars().count() <= width;
    let mut line = Line::from(vec![
        Span::styled(
            match i {
                Some(i) => format!("{:>3} ", i + 1),
                None => "    ".to_string(),
            },
            t.dim(),
        ),
        Span::styled(
            format!("{}{:<name_w$}", if chosen { "▸" } else { " " }, name),
            name_style,
        ),
        Span::styled(
            format!(" {:<15}", m.rule),
            if m.visible { t.good() } else { t.warn() },
        ),
        Span::raw(format!(" {rank:>4} {score:>5} ")),
    ]);
    if beside {
        line.push_span(Span::styled(why, t.dim()));
        return vec![line];
    }
    let mut out = vec![line];
    if same_why {
        // The entry above gave the same reason: say it once.
        return out;
    }
    for l in super::wrap(&why, width.saturating_sub(6)) {
        out.push(Line::styled(format!("      {l}"), t.dim()));
    }
    out
}

/// The detail document of one decision, laid out for a pane `width` wide
/// (prose wraps with a hanging indent; table lines are clipped).
pub fn detail_lines<'a>(
    dv: &'a DetailView,
    show_hidden: bool,
    width: usize,
    t: &Theme,
) -> Vec<Line<'a>> {
    let d = &dv.detail;
    let e = &d.explained;
    let mut lines = Vec::new();
    let mut head = format!("step {} · turn {}", e.step, e.turn);
    if let Some(p) = &e.phase {
        head.push_str(&format!(" · phase {}", esc(p)));
    }
    if let Some(at) = &d.at {
        head.push_str(&format!(" · {}", esc(at)));
    }
    head.push_str(&match &e.catalogue {
        Some(c) => format!(" · catalogue {}", esc(c)),
        None => " · no catalogue".to_string(),
    });
    lines.extend(hang(vec![], 0, &head, t.dim(), width));
    let key = |k: &str| vec![Span::styled(format!("{k:<10}"), t.header())];
    let mut sel = opt(&e.selected, "no tool call").into_owned();
    if let Some(c) = &e.call_id {
        sel.push_str(&format!("  (call {})", esc(c)));
    }
    lines.extend(hang(key("selected"), 10, &sel, Style::new(), width));
    match &e.label {
        Some((l, src)) => lines.extend(hang(
            key("label"),
            10,
            &format!("{} ({src})", esc(&label_text(l))),
            Style::new(),
            width,
        )),
        None => lines.extend(hang(key("label"), 10, "none (unlabelled)", t.dim(), width)),
    }
    let mut verdict = key("rung");
    verdict.push(badge(e.rung, t));
    if e.violated {
        verdict.push(Span::styled(
            "  violated: selected a forbidden tool",
            t.bad(),
        ));
    }
    lines.push(Line::from(verdict));
    let outcome = match &e.status {
        Some(s) => {
            let mut o = esc(s).into_owned();
            if let Some(stage) = &d.stage {
                o.push_str(&format!(" at {}", esc(stage)));
            }
            if let Some(r) = &e.reason {
                o.push_str(&format!(" ({})", esc(r)));
            }
            if let Some(ms) = d.latency_ms {
                o.push_str(&format!(" · {ms} ms"));
            }
            o
        }
        None => "none recorded".to_string(),
    };
    lines.extend(hang(key("outcome"), 10, &outcome, Style::new(), width));
    if let Some(m) = &e.message {
        lines.extend(hang(key("message"), 10, &esc(m), Style::new(), width));
    }
    if let Some(p) = &e.progress {
        lines.extend(hang(key("progress"), 10, &esc(p), Style::new(), width));
    }

    lines.push(Line::raw(""));
    lines.push(Line::styled("Ladder walk", t.title()));
    for w in &e.walk {
        let name = if w.rung == Rung::Execution && e.boundary.is_none() {
            "boundary"
        } else {
            w.rung.as_str()
        };
        let lead = vec![
            Span::raw(format!("  {name:<15}")),
            state_span(w.state, w.state == "failed" && w.rung == e.rung, t),
        ];
        lines.extend(hang(lead, 31, &esc(&w.note), Style::new(), width));
    }

    lines.push(Line::raw(""));
    let source = if d.menu_recorded {
        "the recorded visible menu, in order"
    } else {
        "no menu recorded: the classifier's retrieved set"
    };
    lines.push(Line::styled(
        format!("Menu the model saw · {} tools", d.menu.len()),
        t.title(),
    ));
    lines.extend(hang(vec![Span::raw("  ")], 2, source, t.dim(), width));
    let longest = d
        .menu
        .iter()
        .chain(d.hidden.iter())
        .map(|m| esc(&m.name).chars().count())
        .max()
        .unwrap_or(4);
    let name_w = menu_name_width(width, longest);
    lines.push(Line::styled(
        format!(
            "{:<4} {:<name_w$} {:<15} {:>4} {:>5} why",
            "  #", "tool", "rule", "rank", "score"
        ),
        t.header(),
    ));
    let selected = e.selected.as_deref();
    for (i, m) in d.menu.iter().enumerate() {
        let same = i > 0 && d.menu[i - 1].why == m.why;
        lines.extend(menu_lines(Some(i), m, same, selected, name_w, width, t));
    }
    if d.menu.is_empty() {
        lines.push(Line::styled(
            "  (nothing is known about this menu)",
            t.dim(),
        ));
    }
    if show_hidden {
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled(format!("Hidden tools · {} ", d.hidden.len()), t.title()),
            Span::styled("(v hides) · the rule that hid each", t.dim()),
        ]));
        for (i, m) in d.hidden.iter().enumerate() {
            let same = i > 0 && d.hidden[i - 1].why == m.why;
            lines.extend(menu_lines(None, m, same, selected, name_w, width, t));
        }
    } else if !d.hidden.is_empty() {
        lines.extend(hang(
            vec![Span::raw("  ")],
            2,
            &format!(
                "{} catalogue tools were hidden · v lists them with the rule that hid each",
                d.hidden.len()
            ),
            t.dim(),
            width,
        ));
    }

    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("Findings · {}", e.findings.len()),
        t.title(),
    ));
    for fi in &e.findings {
        lines.extend(hang(
            vec![Span::styled(format!("  {}: ", fi.kind), t.warn())],
            fi.kind.chars().count() + 4,
            &esc(&fi.detail),
            Style::new(),
            width,
        ));
    }

    lines.push(Line::raw(""));
    match (d.arguments_bytes, &dv.arguments) {
        (None, _) => lines.push(Line::styled("Arguments · none recorded", t.title())),
        (Some(b), Some(args)) => {
            lines.push(Line::from(vec![
                Span::styled("Arguments", t.title()),
                Span::styled(format!(" · {} · a: full view", human_bytes(b)), t.dim()),
            ]));
            for l in args {
                lines.push(Line::raw(format!("  {l}")));
            }
        }
        (Some(b), None) => lines.push(Line::from(vec![
            Span::styled("Arguments", t.title()),
            Span::styled(format!(" · {} · press a to view", human_bytes(b)), t.dim()),
        ])),
    }
    let payload = |name: &str, bytes: Option<u64>, key: char| match bytes {
        None => Line::from(vec![Span::styled(
            format!("{name} · none recorded"),
            t.title(),
        )]),
        Some(b) => Line::from(vec![
            Span::styled(name.to_string(), t.title()),
            Span::styled(
                format!(" · {} · press {key} to view", human_bytes(b)),
                t.dim(),
            ),
        ]),
    };
    lines.push(payload("Result", d.result_bytes, 'r'));
    if d.raw_bytes.is_some() {
        lines.push(payload("Raw output", d.raw_bytes, 'o'));
    }
    lines
}

/// Lines of the selected decision's detail as drawn now (for scrolling to
/// the end), 0 when it has not arrived.
pub fn detail_len(app: &App) -> usize {
    let Some(dv) = app.selected_detail() else {
        return 0;
    };
    let area = Rect::new(
        0,
        0,
        app.size.0.max(layout::MIN.0),
        app.size.1.max(layout::MIN.1),
    );
    let detail = layout::run(layout::frame(area).body, app.run.focus_detail).2;
    let width = detail.width.saturating_sub(2) as usize;
    detail_lines(dv, app.run.show_hidden, width, &app.opts.theme).len()
}
