//! Run: the decision timeline on the left; on the right the selected
//! decision's ladder walk, the menu the model saw, findings and payloads.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{badge, block, esc, hang, loading, n, opt, pending, stored_badge, waiting, yes_no};
use crate::ladder::label_text;
use crate::model::Rung;
use crate::store::browse::{MenuItem, PayloadColumn};
use crate::text::truncate;
use crate::tui::layout::{self, List};
use crate::tui::payload::human_bytes;
use crate::tui::state::{App, Viewer};
use crate::tui::theme::Theme;
use crate::tui::worker::DetailView;

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let Some(run_id) = &app.run.run_id else {
        let lines = vec![
            Line::raw(""),
            Line::raw("No run is open."),
            Line::raw(""),
            Line::raw("Open one from Runs (2, then Enter), or from any decision list:"),
            Line::raw(
                "Enter on a rung of the Ladder (1), a reason in Refusals (4), a cell in Confusions (5).",
            ),
        ];
        f.render_widget(Paragraph::new(lines).block(block(" Run ", t, true)), area);
        return;
    };
    let (head, timeline, detail) = layout::run(area, app.run.focus_detail);
    draw_header(f, app, run_id, head);
    if timeline.width > 0 {
        draw_timeline(f, app, timeline);
    }
    match &app.run.viewer {
        Some(v) => draw_viewer(f, app, v, detail),
        None => draw_detail(f, app, detail),
    }
}

fn draw_header(f: &mut Frame, app: &App, run_id: &str, area: Rect) {
    let t = &app.opts.theme;
    let mut first = vec![Span::styled(format!(" run {} · ", esc(run_id)), t.title())];
    let mut goal = match &app.run.header.error {
        Some(e) => Line::styled(format!(" could not load: {}", esc(e)), t.bad()),
        None => Line::styled(" loading…", t.dim()),
    };
    if let Some(Some(h)) = &app.run.header.value {
        let mut bits = Vec::new();
        if let Some(task) = &h.task_id {
            bits.push(format!("task {}", esc(task)));
        }
        if let Some(trial) = h.trial {
            bits.push(format!("trial {trial}"));
        }
        if let Some(m) = &h.model {
            bits.push(esc(m).into_owned());
        }
        if let Some(c) = &h.catalogue {
            bits.push(format!("catalogue {}", esc(c)));
        }
        if let Some(term) = &h.terminated {
            bits.push(esc(term).into_owned());
        }
        if let Some(s) = &h.started_at {
            bits.push(esc(s).into_owned());
        }
        first.push(Span::raw(bits.join(" · ")));
        first.push(Span::raw(" · success "));
        first.push(Span::styled(
            yes_no(h.success),
            if h.success == Some(false) {
                t.bad()
            } else {
                t.good()
            },
        ));
        first.push(Span::raw(" · harm "));
        first.push(Span::styled(
            yes_no(h.harm),
            if h.harm == Some(true) {
                t.bad()
            } else {
                Style::new()
            },
        ));
        goal = Line::from(vec![
            Span::styled(" goal ", t.header()),
            Span::raw(opt(&h.goal, "(none recorded)").into_owned()),
        ]);
    } else if let Some(None) = &app.run.header.value {
        goal = Line::styled(" no run record: known only from its decisions", t.dim());
    }
    f.render_widget(Paragraph::new(vec![Line::from(first), goal]), area);
}

fn draw_timeline(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let tl = &app.run.timeline;
    let h = layout::list_height(List::Timeline, app.size);
    let total = tl.total.map(n).unwrap_or_default();
    let pos = match tl.position() {
        Some(i) if !tl.rows.is_empty() => format!(" {} of {} ", n(i + 1), total),
        _ => String::new(),
    };
    let b = block(" Decisions ", t, !app.run.focus_detail)
        .title_bottom(Line::from(pos).right_aligned());
    if !tl.loaded {
        f.render_widget(pending(tl.error.as_deref(), t).block(b), area);
        return;
    }
    if tl.rows.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled(
                "no decisions of this run in the filter",
                t.dim(),
            ))
            .block(b),
            area,
        );
        return;
    }
    // Narrow: step, phase, selected, rung, outcome. Wide: turn and progress too.
    let wide = area.width >= 60;
    let phase = area.width >= 44;
    let top = tl.cursor.visible_top(h);
    let rows: Vec<Row> = tl
        .rows
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, (_, d))| {
            let mut cells = vec![Cell::from(Line::from(d.step.to_string()).right_aligned())];
            if wide {
                cells.push(Cell::from(Line::from(d.turn.to_string()).right_aligned()));
            }
            if phase {
                cells.push(Cell::from(opt(&d.phase, "-").into_owned()));
            }
            cells.push(Cell::from(opt(&d.selected, "(no call)").into_owned()));
            cells.push(Cell::from(Line::from(stored_badge(&d.rung, true, t))));
            cells.push(Cell::from(super::runs::short_outcome(d)));
            if wide {
                cells.push(Cell::from(opt(&d.progress, "-").into_owned()));
            }
            let row = Row::new(cells);
            if i == tl.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let (widths, head): (Vec<Constraint>, Vec<&str>) = if wide {
        (
            vec![
                Constraint::Length(4),
                Constraint::Length(4),
                Constraint::Length(8),
                Constraint::Fill(3),
                Constraint::Length(9),
                Constraint::Fill(2),
                Constraint::Length(8),
            ],
            vec![
                "step", "turn", "phase", "selected", "rung", "outcome", "progress",
            ],
        )
    } else if phase {
        (
            vec![
                Constraint::Length(4),
                Constraint::Length(8),
                Constraint::Fill(2),
                Constraint::Length(9),
                Constraint::Fill(2),
            ],
            vec!["step", "phase", "selected", "rung", "outcome"],
        )
    } else {
        (
            vec![
                Constraint::Length(4),
                Constraint::Fill(3),
                Constraint::Length(9),
                Constraint::Fill(2),
            ],
            vec!["step", "selected", "rung", "outcome"],
        )
    };
    let head = Row::new(head).style(t.header());
    f.render_widget(Table::new(rows, widths).header(head).block(b), area);
}

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

fn draw_detail(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let title = if app.run.focus_detail {
        " Decision · j/k scroll · Esc timeline "
    } else {
        " Decision · Enter to scroll "
    };
    let b = block(title, t, app.run.focus_detail);
    let Some(dv) = app.selected_detail() else {
        let error = app
            .run
            .timeline
            .selected()
            .and_then(|r| app.details.error(r.decision_id));
        let msg = if app.run.timeline.rows.is_empty() {
            Paragraph::new("")
        } else {
            pending(error, t)
        };
        f.render_widget(msg.block(b), area);
        return;
    };
    let width = area.width.saturating_sub(2) as usize;
    let lines = detail_lines(dv, app.run.show_hidden, width, t);
    let max = lines
        .len()
        .saturating_sub(area.height.saturating_sub(2) as usize) as u16;
    f.render_widget(
        Paragraph::new(lines)
            .block(b)
            .scroll((app.run.scroll.min(max), 0)),
        area,
    );
}

fn draw_viewer(f: &mut Frame, app: &App, v: &Viewer, area: Rect) {
    let t = &app.opts.theme;
    let name = match v.column {
        PayloadColumn::Arguments => "arguments",
        PayloadColumn::Result => "result",
        PayloadColumn::Raw => "raw output",
    };
    let span = match (v.chunks.front(), v.chunks.back()) {
        (Some(a), Some(b)) if a.start > 0 || b.end < b.total => {
            format!(" · bytes {}–{} of {}", n(a.start), n(b.end), n(b.total))
        }
        _ => String::new(),
    };
    let title = format!(
        " {name} · {}{span} · j/k scroll · g/G ends · Esc close ",
        v.total.map(human_bytes).unwrap_or_default()
    );
    let b = block(title, t, true);
    let h = layout::list_height(List::Detail, app.size);
    if v.chunks.is_empty() {
        f.render_widget(pending(v.error.as_deref(), t).block(b), area);
        return;
    }
    let mut lines: Vec<Line> = v
        .lines()
        .skip(v.scroll)
        .take(h)
        .map(|l| Line::raw(l.as_str()))
        .collect();
    let shown = v.scroll + lines.len();
    if lines.len() < h {
        if v.at_end() {
            lines.push(Line::styled("(end)", t.dim()));
        } else if let Some(e) = &v.error {
            lines.push(waiting(Some(e), t));
        } else if v.loading || shown >= v.len() {
            lines.push(loading(t));
        }
    }
    f.render_widget(
        Paragraph::new(lines).block(b).wrap(Wrap { trim: false }),
        area,
    );
}
