//! The decision detail of the Run screen's right pane: the ladder walk,
//! the label, the menu the model saw, findings and payload sizes, laid out
//! for the pane's width.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{badge, esc, hang, opt};
use crate::ladder::schema::SchemaFinding;
use crate::ladder::{WalkState, label_text};
use crate::model::{FindingKind, Rung};
use crate::store::browse::MenuItem;
use crate::store::{MatchRow, RunExpectations};
use crate::text::truncate;
use crate::tui::layout;
use crate::tui::payload::human_bytes;
use crate::tui::state::App;
use crate::tui::theme::Theme;
use crate::tui::worker::DetailView;

fn state_span<'a>(state: WalkState, failed_here: bool, t: &Theme) -> Span<'a> {
    match state {
        WalkState::Passed => Span::styled("✓ passed      ", t.good()),
        WalkState::Failed if failed_here => Span::styled("✗ FAILED ←    ", t.bad()),
        WalkState::Failed => Span::styled("✗ failed      ", t.warn()),
        WalkState::NotReached => Span::styled("· not reached ", t.dim()),
        WalkState::Skipped => Span::styled("– skipped     ", t.dim()),
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
    for r in &e.matching {
        let (text, style) = match_verdict(r);
        lines.extend(hang(key("expected"), 10, &text, style(t), width));
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
            state_span(w.state, w.state == WalkState::Failed && w.rung == e.rung, t),
        ];
        lines.extend(hang(lead, 31, &esc(&w.note), Style::new(), width));
    }

    if let Some(x) = &d.expectations {
        lines.push(Line::raw(""));
        lines.extend(expectation_lines(x, e.step, width, t));
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
        // A schema violation lists each failing path on a line of its own.
        let split = (fi.kind == FindingKind::SchemaViolation.as_str())
            .then(|| SchemaFinding::split_detail(&fi.detail))
            .flatten();
        let text = match &split {
            Some((head, _, what)) => format!("{head}; {what}"),
            None => fi.detail.clone(),
        };
        lines.extend(hang(
            vec![Span::styled(format!("  {}: ", fi.kind), t.warn())],
            fi.kind.chars().count() + 4,
            &esc(&text),
            Style::new(),
            width,
        ));
        for path in split.map(|(_, paths, _)| paths).unwrap_or_default() {
            lines.extend(hang(vec![Span::raw("    ")], 4, &esc(path), t.bad(), width));
        }
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

/// What the matching walk said of a decision's call, for its `expected`
/// line, and how to style it.
fn match_verdict(r: &MatchRow) -> (String, fn(&Theme) -> Style) {
    let n = r.expected.map(|n| format!(" {n}")).unwrap_or_default();
    match r.status.as_str() {
        "matched" => (
            format!("✓ matches expected call{n} ({})", esc(&r.tool)),
            Theme::good,
        ),
        "mismatch" => (
            format!(
                "✗ differs from expected call{n} ({}): {}",
                esc(&r.tool),
                esc(r.keys.as_deref().unwrap_or_default())
            ),
            Theme::bad,
        ),
        "unexpected" => (
            format!(
                "✗ unexpected: a {} call no expected call accounts for",
                esc(r.effect.as_deref().unwrap_or("mutating"))
            ),
            Theme::bad,
        ),
        other => (esc(other).into_owned(), Theme::dim),
    }
}

/// The run's matching table (this decision's rows marked `▸`) and its
/// missing outputs.
fn expectation_lines<'a>(x: &RunExpectations, step: i64, width: usize, t: &Theme) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    let verdict = if x.as_expected {
        Span::styled("the run went as expected", t.good())
    } else {
        Span::styled("the run did not go as expected", t.bad())
    };
    if let Some(n) = x.expected_calls {
        lines.push(Line::from(vec![
            Span::styled(format!("Expected calls · {n} · "), t.title()),
            verdict.clone(),
        ]));
        let tool_w = x
            .matching
            .iter()
            .map(|r| esc(&r.tool).chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 28);
        lines.push(Line::styled(
            format!("{:>4} {:<tool_w$} {:>5}  status", "#", "tool", "step"),
            t.header(),
        ));
        for r in &x.matching {
            let mine = r.step == Some(step);
            let n = r
                .expected
                .map(|n| n.to_string())
                .unwrap_or_else(|| "-".into());
            let at = r.step.map(|s| s.to_string()).unwrap_or_else(|| "-".into());
            let (status, style) = match r.status.as_str() {
                "matched" => ("✓ matched".to_string(), t.good()),
                "mismatch" => ("✗ mismatch".to_string(), t.bad()),
                "missing" => ("✗ missing".to_string(), t.bad()),
                "unexpected" => ("✗ unexpected".to_string(), t.bad()),
                "not_made" => ("· not made (not required)".to_string(), t.dim()),
                other => (esc(other).into_owned(), Style::new()),
            };
            let lead = vec![
                Span::styled(
                    format!("{}{n:>3} ", if mine { "▸" } else { " " }),
                    if mine { t.header() } else { t.dim() },
                ),
                Span::raw(format!(
                    "{:<tool_w$} {at:>5}  ",
                    truncate(&esc(&r.tool), tool_w)
                )),
                Span::styled(status.clone(), style),
            ];
            let indent = 4 + 1 + tool_w + 1 + 5 + 2;
            match &r.keys {
                Some(k) => {
                    let mut lead = lead;
                    lead.push(Span::raw("  "));
                    lines.extend(hang(
                        lead,
                        indent + status.chars().count() + 2,
                        &esc(k),
                        Style::new(),
                        width,
                    ))
                }
                None => lines.push(Line::from(lead)),
            }
        }
    }
    if x.expected_outputs > 0 {
        if x.expected_calls.is_none() {
            lines.push(Line::from(vec![
                Span::styled("Expectations · ", t.title()),
                verdict,
            ]));
        }
        if x.missing_outputs.is_empty() {
            lines.push(Line::from(vec![
                Span::styled("Expected outputs · ", t.title()),
                Span::styled(
                    format!("{n} of {n} found in the answers", n = x.expected_outputs),
                    t.good(),
                ),
            ]));
        } else {
            lines.push(Line::styled(
                format!(
                    "Missing outputs · {} of {} in no answer",
                    x.missing_outputs.len(),
                    x.expected_outputs
                ),
                t.title(),
            ));
            for o in &x.missing_outputs {
                lines.extend(hang(
                    vec![Span::raw("  ")],
                    2,
                    &esc(&format!("{o:?}")),
                    t.bad(),
                    width,
                ));
            }
        }
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
