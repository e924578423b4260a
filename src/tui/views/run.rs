//! Run: the run's header, the decision timeline on the left; on the right
//! the selected decision's detail (laid out in `detail`) or the payload
//! viewer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::detail::detail_lines;
use super::{block, esc, loading, n, opt, pending, short_badge, waiting, yes_no};
use crate::store::browse::{DecisionRow, DecisionSort, PayloadColumn, found_in};
use crate::tui::action::Action;
use crate::tui::layout::{self, List};
use crate::tui::payload::human_bytes;
use crate::tui::state::{App, Viewer};

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let Some(run_id) = &app.run.run_id else {
        let lines = vec![
            Line::raw(""),
            Line::raw("No run is open."),
            Line::raw(""),
            Line::raw("Open one from Runs (2, then Enter), or from any decision list:"),
            Line::raw(
                "Enter on a rung of the Ladder (1), a reason in Refusals (4), a cell in Confusions (5),",
            ),
            Line::raw("or a finding of a kind in Findings (7)."),
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
        // When it started, then the verdicts, then what ran: the line is cut
        // (with `…`) from its least telling end.
        if let Some(s) = &h.started_at {
            let when = crate::model::Timestamp::parse(s)
                .map(|t| format!("{} UTC", super::minute(t.micros())))
                .unwrap_or_else(|| esc(s).into_owned());
            first.push(Span::raw(format!("{when} · ")));
        }
        first.push(Span::raw("success "));
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
        if let Some(ok) = h.as_expected {
            first.push(Span::raw(" · as expected "));
            first.push(Span::styled(
                yes_no(Some(ok)),
                if ok { t.good() } else { t.bad() },
            ));
        }
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
        for b in bits {
            first.push(Span::raw(format!(" · {b}")));
        }
        goal = super::fit_line(
            vec![
                Span::styled(" goal ", t.header()),
                Span::raw(opt(&h.goal, "(none recorded)").into_owned()),
            ],
            area.width as usize,
        );
    } else if let Some(None) = &app.run.header.value {
        goal = Line::styled(" no run record: known only from its decisions", t.dim());
    }
    let first = super::fit_line(first, area.width as usize);
    f.render_widget(Paragraph::new(vec![first, goal]), area);
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
    // The order, when it is not by step (`s`/`S`).
    let title = match (app.run.sort, app.run.desc) {
        (DecisionSort::Natural, false) => " Decisions ".to_string(),
        (DecisionSort::Natural, true) => " Decisions · by step ↓ ".to_string(),
        (s, d) => format!(
            " Decisions · by {} {} ",
            s.as_str(),
            if d { "↓" } else { "↑" }
        ),
    };
    let mut b =
        block(title, t, !app.run.focus_detail).title_bottom(Line::from(pos).right_aligned());
    // `/` in the timeline: how many decisions match (of those held when the
    // run is longer than the rows held).
    let pat = crate::find::pattern(&app.run.find);
    let typing_here = app.run.typing && !app.run.focus_detail;
    if typing_here || !pat.is_empty() {
        let hits = tl
            .rows
            .iter()
            .filter(|(_, d)| !found_in(d, &pat).is_empty())
            .count() as u64;
        let held = if tl.more_before || tl.more_after {
            " held"
        } else {
            ""
        };
        let count = format!(
            "{} match{}{held} · n/N",
            n(hits),
            if hits == 1 { "" } else { "es" }
        );
        b = b.title_bottom(super::search::bar(
            &app.run.find,
            typing_here,
            Some(count),
            t,
        ));
    }
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
    // Narrow: step, phase, selected, rung, outcome. Wide: turn and progress
    // too. A run with expected calls adds what the matching walk said of
    // each call.
    let wide = area.width >= 60;
    let phase = area.width >= 44;
    let matched = tl
        .rows
        .iter()
        .any(|(_, d)| d.matching.is_some() || d.label_source.as_deref() == Some("derived"));
    let top = tl.cursor.visible_top(h);
    let focus = if app.run.focus_detail {
        vec![Action::Left]
    } else {
        vec![]
    };
    super::hit_rows(app, area, top, tl.cursor.sel, tl.rows.len(), &focus);
    app.hits.borrow_mut().add_wheel(area, focus);
    let shown = || tl.rows.iter().skip(top).take(h).map(|(_, d)| d);
    // Steps and turns show whole, however large.
    // Room for the sort's arrow when the steps are the sorted column.
    let by_step = app.run.sort == DecisionSort::Run
        || (app.run.sort == DecisionSort::Natural && app.run.desc);
    let step_w = super::number_width(shown().map(|d| d.step), if by_step { 6 } else { 4 });
    let turn_w = super::number_width(shown().map(|d| d.turn), 4);
    let (widths, head): (Vec<Constraint>, Vec<&str>) = if wide {
        (
            vec![
                Constraint::Length(1),
                Constraint::Length(step_w),
                Constraint::Length(turn_w),
                Constraint::Length(8),
                Constraint::Fill(3),
                Constraint::Length(9),
                Constraint::Fill(2),
                Constraint::Length(8),
            ],
            vec![
                "", "step", "turn", "phase", "selected", "rung", "outcome", "progress",
            ],
        )
    } else if phase {
        (
            vec![
                Constraint::Length(1),
                Constraint::Length(step_w),
                Constraint::Length(8),
                Constraint::Fill(2),
                Constraint::Length(9),
                Constraint::Fill(2),
            ],
            vec!["", "step", "phase", "selected", "rung", "outcome"],
        )
    } else {
        (
            vec![
                Constraint::Length(1),
                Constraint::Length(step_w),
                Constraint::Fill(3),
                Constraint::Length(9),
                Constraint::Fill(2),
            ],
            vec!["", "step", "selected", "rung", "outcome"],
        )
    };
    let (mut widths, mut head) = (widths, head);
    if matched {
        // After the outcome.
        let at = head
            .iter()
            .position(|h| *h == "outcome")
            .map_or(head.len(), |i| i + 1);
        widths.insert(at, Constraint::Length(MATCHING_W));
        head.insert(at, "expected");
    }
    // Text cut to its column with `…`.
    let cols = super::column_widths(area.width.saturating_sub(2), &widths);
    let rows: Vec<Row> = tl
        .rows
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, (_, d))| {
            // A mark on decisions that carry findings (their detail lists them).
            let mark = if d.findings > 0 {
                Span::styled("!", t.warn())
            } else {
                Span::raw(" ")
            };
            let mut cells = vec![
                Cell::from(mark),
                Cell::from(Line::from(d.step.to_string()).right_aligned()),
            ];
            if wide {
                cells.push(Cell::from(Line::from(d.turn.to_string()).right_aligned()));
            }
            // The text columns, cut to fit: each is in the column its place
            // in `cells` says.
            let fit = |s: String, at: usize| {
                Cell::from(super::search::marked(&super::fit(&s, cols[at]), &pat, t))
            };
            if phase {
                cells.push(fit(opt(&d.phase, "-").into_owned(), cells.len()));
            }
            cells.push(fit(opt(&d.selected, "(no call)").into_owned(), cells.len()));
            cells.push(Cell::from(Line::from(short_badge(d.rung, t))));
            // A decision that matched on a field the timeline does not
            // show says which, before its outcome.
            let mut out = Vec::new();
            // (A refusal's outcome shows its reason, not its status.)
            let refused = d.status.as_deref() == Some("refused");
            let hidden: Vec<&str> = found_in(d, &pat)
                .into_iter()
                .filter(|f| match *f {
                    "run" | "boundary" | "acceptable" => true,
                    "phase" => !phase,
                    "status" => refused,
                    _ => false,
                })
                .collect();
            if let Some(note) = super::search::hidden(&hidden, t) {
                out.push(note);
            }
            out.extend(super::search::marked_spans(
                &super::runs::short_outcome(d),
                &pat,
                t,
            ));
            let at = cells.len();
            cells.push(Cell::from(super::fit_line(out, cols[at])));
            if matched {
                cells.push(Cell::from(matching_cell(d, t)));
            }
            if wide {
                cells.push(fit(opt(&d.progress, "-").into_owned(), cells.len()));
            }
            let row = Row::new(cells);
            if i == tl.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    // The sorted column carries the arrow.
    let arrow = if app.run.desc { "↓" } else { "↑" };
    let sorted = match app.run.sort {
        DecisionSort::Natural if app.run.desc => "step",
        DecisionSort::Run => "step",
        DecisionSort::Selected => "selected",
        DecisionSort::Rung => "rung",
        _ => "",
    };
    let head: Vec<String> = head
        .iter()
        .map(|h| {
            if *h == sorted {
                format!("{h} {arrow}")
            } else {
                h.to_string()
            }
        })
        .collect();
    let head = Row::new(head).style(t.header());
    f.render_widget(Table::new(rows, widths).header(head).block(b), area);
}

/// Width of the timeline's `expected` column.
const MATCHING_W: u16 = 8;

/// What the matching walk said of a decision's call: `✓ 2` (matched
/// expected call 2), `≠ 2` (its arguments differ), `unexp` (an unexpected
/// call), `derived` (labelled by the walk for a call left unmade).
fn matching_cell<'a>(d: &DecisionRow, t: &crate::tui::theme::Theme) -> Line<'a> {
    let n = |n: &Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
    match &d.matching {
        Some((s, e)) if s == "matched" => Line::styled(format!("✓ {}", n(e)), t.good()),
        Some((s, e)) if s == "mismatch" => Line::styled(format!("≠ {}", n(e)), t.bad()),
        Some((s, _)) if s == "unexpected" => Line::styled("unexp", t.bad()),
        Some((s, _)) => Line::raw(esc(s).into_owned()),
        None if d.label_source.as_deref() == Some("derived") => Line::styled("derived", t.warn()),
        None => Line::styled("-", t.dim()),
    }
}

fn draw_detail(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    // The wheel over the detail scrolls it (focusing it first).
    let focus = if app.run.focus_detail {
        vec![]
    } else {
        vec![Action::Right]
    };
    app.hits.borrow_mut().add_wheel(area, focus.clone());
    super::hit(app, area, focus);
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
    let mut b = block(title, t, true);
    let sr = &v.search;
    if app.run.typing || !sr.find.is_empty() {
        let state = if sr.searching {
            Some("searching…".to_string())
        } else if sr.missing {
            Some("no match (secrets are searched masked)".to_string())
        } else if sr.hit.is_some() {
            Some(format!(
                "n/N next/prev{}",
                if sr.wrapped {
                    " · went round the end"
                } else {
                    ""
                }
            ))
        } else {
            None
        };
        b = b.title_bottom(super::search::bar(&sr.find, app.run.typing, state, t));
    }
    let h = layout::list_height(List::Detail, app.size);
    if v.chunks.is_empty() {
        f.render_widget(pending(v.error.as_deref(), t).block(b), area);
        return;
    }
    // The match the search is on: its first line and its characters, which
    // may run on into the lines after it.
    let current = sr
        .hit
        .and_then(|hit| Some((v.line_of(&hit)?, hit.col, hit.len)));
    let mut lines: Vec<Line> = Vec::with_capacity(h);
    let mut spill = 0usize;
    for (i, l) in v
        .lines()
        .enumerate()
        .skip(v.scroll.saturating_sub(2))
        .take(h + 2)
    {
        let chars = l.chars().count();
        let mark = match current {
            Some((line, col, len)) if line == i => {
                spill = (col + len).saturating_sub(chars);
                Some(col..(col + len).min(chars))
            }
            Some((line, _, _)) if i > line && spill > 0 => {
                let r = 0..spill.min(chars);
                spill -= r.end;
                Some(r)
            }
            _ => None,
        };
        if i >= v.scroll {
            lines.push(super::search::payload_line(l, &sr.find, mark, t));
        }
    }
    lines.truncate(h);
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
