//! Tools: the catalogue with usage counts and marks, and one tool's
//! definition with the answer to "why was this tool visible?".

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{block, esc, n, pending, percent, search, waiting};
use crate::store::tools::RuleCount;
use crate::tui::action::Action;
use crate::tui::layout::{self, List};
use crate::tui::state::{App, Listed, out_of_sight};
use crate::tui::worker::ToolRow;

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let ts = &app.tools;
    let Some(data) = &ts.data.value else {
        f.render_widget(
            pending(ts.data.error.as_deref(), t).block(block(" Tools ", t, true)),
            area,
        );
        return;
    };
    let order = app.tool_rows();
    // The pruning queue: never selected, trusted controls aside.
    let never = data.iter().filter(|x| x.usage.prunable()).count();
    let drifted = data.iter().filter(|x| x.flags.drifted).count();
    let cats: std::collections::BTreeSet<&str> =
        data.iter().map(|x| x.usage.catalogue.as_str()).collect();
    let mut title = vec![Span::styled(
        format!(
            " Tools · {} in {} catalogue{} · {} never selected · {} drifted ",
            n(data.len() as u64),
            cats.len(),
            if cats.len() == 1 { "" } else { "s" },
            never,
            drifted
        ),
        t.title(),
    )];
    if ts.typing || ts.matches.is_some() {
        title.push(Span::styled(" / ", t.title()));
        title.push(Span::styled(
            format!("{}{}", esc(&ts.find), if ts.typing { "▏" } else { "" }),
            t.selected(),
        ));
        title.push(Span::styled(format!(" {} found ", order.len()), t.title()));
    }
    let b = block(Line::from(title), t, true).title_bottom(
        Line::from(if order.is_empty() {
            String::new()
        } else {
            format!(" {} of {} ", ts.cursor.sel + 1, order.len())
        })
        .right_aligned(),
    );
    if order.is_empty() {
        let msg = if data.is_empty() {
            "no catalogue tools in this database"
        } else {
            "no tool matches"
        };
        f.render_widget(Paragraph::new(Line::styled(msg, t.dim())).block(b), area);
        return;
    }
    let h = layout::list_height(List::Tools, app.size);
    let top = ts.cursor.visible_top(h);
    // Narrow: no catalogue column (when there is one), no family, short marks.
    let narrow = area.width < 110;
    let show_cat = !narrow || cats.len() > 1;
    // Sortable columns (`s`) carry the arrow of the sort.
    let name = |c: usize| ts.view.head(ToolRow::COLUMNS, c);
    let right = |c: usize| Cell::from(Line::from(name(c)).right_aligned());
    let mut head = Vec::new();
    let mut widths = Vec::new();
    if show_cat {
        head.push(Cell::from(name(0)));
        widths.push(Constraint::Fill(2));
    }
    head.push(Cell::from(name(1)));
    widths.push(Constraint::Fill(3));
    if !narrow {
        head.push(Cell::from("family"));
        widths.push(Constraint::Fill(2));
    }
    head.push(Cell::from(name(2)));
    widths.push(Constraint::Length(11));
    if !narrow {
        head.push(Cell::from("open"));
        widths.push(Constraint::Length(4));
    }
    head.extend([right(3), right(4), right(5), right(6), Cell::from("marks")]);
    // A sorted count column widens for its arrow.
    let room =
        |col: usize, w: u16| Constraint::Length(if ts.view.sort == Some(col) { w + 2 } else { w });
    widths.extend([
        room(3, 8),
        room(4, 8),
        room(5, 7),
        room(6, 7),
        Constraint::Fill(2),
    ]);
    // Text cut to its column with `…`.
    let cols = super::column_widths(area.width.saturating_sub(2), &widths);
    let marks_w = cols.last().copied().unwrap_or(0);
    let pat = crate::find::pattern(&ts.find);
    // A click selects a tool; on a count Enter drills from, drills.
    super::hit_rows(app, area, top, ts.cursor.sel, order.len(), &[]);
    let first_count = widths.len() - 5;
    for row in top..(top + h).min(order.len()) {
        for (col, at) in [(1, 0), (2, 1), (3, 3)] {
            let pick = crate::tui::mouse::to_column(ts.col, col);
            let at = first_count + at;
            super::hit_count(app, area, &widths, at, row, top, ts.cursor.sel, pick);
        }
    }
    let rows: Vec<Row> = order
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, &k)| {
            let x = &data[k];
            let u = &x.usage;
            let mut marks = Vec::new();
            if narrow && x.flags.open_world {
                marks.push(Span::styled("open ", t.dim()));
            }
            if u.prunable() {
                marks.push(Span::styled(
                    if narrow { "never " } else { "never selected " },
                    t.warn(),
                ));
            } else if u.trusted_control {
                marks.push(Span::styled(
                    if narrow { "ctrl " } else { "trusted control " },
                    t.dim(),
                ));
            }
            if x.flags.drifted {
                marks.push(Span::styled(
                    if narrow { "drift" } else { "drifted" },
                    t.bad(),
                ));
            }
            // The separating space after the last mark takes no room.
            if let Some(last) = marks.last_mut() {
                *last = Span::styled(last.content.trim_end().to_string(), last.style);
            }
            // The count Enter opens (h/l) is marked on the selected row.
            let num_at = |v: u64, col: usize| {
                let c = Cell::from(Line::from(n(v)).right_aligned());
                if i == ts.cursor.sel && ts.col == col {
                    c.style(t.focus())
                } else {
                    c
                }
            };
            let num = |v: u64| Cell::from(Line::from(n(v)).right_aligned());
            let mut cells = Vec::new();
            let fit =
                |s: &str, at: usize| Cell::from(search::marked(&super::fit(s, cols[at]), &pat, t));
            if show_cat {
                cells.push(fit(&esc(&u.catalogue), cells.len()));
            }
            // A find that matched a field not shown says which.
            let mut shown = vec!["tool", "effect"];
            if show_cat {
                shown.push("catalogue");
            }
            if !narrow {
                shown.push("family");
            }
            let mut name = search::marked_spans(&esc(&u.name), &pat, t);
            if let Some(note) = search::hidden(&out_of_sight(x, &pat, &shown), t) {
                name.insert(0, note);
            }
            let at = cells.len();
            cells.push(Cell::from(super::fit_line(name, cols[at])));
            if !narrow {
                cells.push(fit(&esc(&u.family), cells.len()));
            }
            cells.push(fit(&esc(&u.effect), cells.len()));
            if !narrow {
                cells.push(Cell::from(if x.flags.open_world { "yes" } else { "" }));
            }
            cells.extend([
                num_at(u.visible, 1),
                num_at(u.selected, 2),
                num(u.selected_wrongly),
                num_at(u.refused, 3),
                Cell::from(super::fit_line(marks, marks_w)),
            ]);
            let row = Row::new(cells);
            if i == ts.cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect();
    let head = Row::new(head).style(t.header());
    f.render_widget(Table::new(rows, widths).header(head).block(b), area);
}

fn list_of(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| match x {
                    serde_json::Value::String(s) => esc(s).into_owned(),
                    other => esc(&other.to_string()).into_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The visibility audit: rule by rule, how often the tool was visible or
/// hidden over the decisions on its catalogue.
/// The "why visible" lines, and where each rule's lines start (and how
/// many there are) among them, for the mouse.
fn audit_lines<'a>(app: &'a App, width: usize) -> (Vec<Line<'a>>, Vec<(usize, usize)>) {
    let mut at = Vec::new();
    let t = &app.opts.theme;
    let mut lines = vec![Line::styled(
        "Why was this tool visible? Rule by rule, over the decisions on its catalogue",
        t.title(),
    )];
    match &app.tool.audit.value {
        None if let Some(e) = &app.tool.audit.error => lines.push(Line::styled(
            format!("  could not walk them: {}", esc(e)),
            t.bad(),
        )),
        None => lines.push(Line::styled(
            "  walking the exposure rules over the decisions… (other keys still work)",
            t.dim(),
        )),
        Some(a) => {
            let scope = format!("  all {} decisions in the filter", n(a.total));
            lines.push(Line::styled(scope, t.dim()));
            if a.rules.is_empty() {
                lines.push(Line::styled(
                    "  no decisions on this catalogue in the filter",
                    t.dim(),
                ));
            } else {
                // The sorted column's arrow (`s`/`S`); the shown column is
                // named only when it is sorted.
                let view = &app.tool.view;
                let cols = <RuleCount as Listed>::COLUMNS;
                let shown = if view.sort == Some(0) {
                    search::head(view, cols, 0, 8)
                } else {
                    String::new()
                };
                lines.push(Line::styled(
                    format!(
                        "  {:<8} {:<16} {:>9} {:>7}  example reason",
                        shown,
                        search::head(view, cols, 1, 16),
                        search::head(view, cols, 2, 9),
                        "share"
                    ),
                    t.header(),
                ));
            }
            let view = &app.tool.view;
            let pat = view.pattern();
            if view.typing || !pat.is_empty() {
                let cursor = crate::tui::paged::Cursor {
                    sel: app.tool.rule,
                    top: 0,
                };
                if let Some(bar) = search::table_bar(view, &cursor, t) {
                    lines.push(bar);
                }
            }
            for i in 0..a.rules.len() {
                let rc = &a.rules[view.at(i)];
                let share = (a.total > 0).then(|| rc.decisions as f64 / a.total as f64);
                // The rule Enter opens: marked, its count underlined.
                let on = i == app.tool.rule;
                let lead = vec![
                    Span::styled(
                        format!(
                            "{} {:<8}",
                            if on { "›" } else { " " },
                            if rc.visible { "visible" } else { "hidden" }
                        ),
                        if rc.visible { t.good() } else { t.warn() },
                    ),
                    Span::styled(
                        format!(
                            " {:<16} {:>9} {:>7}  ",
                            rc.rule,
                            n(rc.decisions),
                            percent(share)
                        ),
                        if on {
                            t.focus()
                        } else if view.is_hit(i) {
                            t.matched()
                        } else {
                            ratatui::style::Style::new()
                        },
                    ),
                ];
                let start = lines.len();
                lines.extend(super::hang(lead, 47, &esc(&rc.example), t.dim(), width));
                at.push((start, lines.len() - start));
            }
        }
    }
    (lines, at)
}

pub fn draw_tool(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let ts = &app.tool;
    let title = format!(
        " {} · catalogue {} · j/k rule · Enter its decisions · Esc back ",
        esc(&ts.name),
        esc(&ts.catalogue)
    );
    let b = block(title, t, true);
    let width = area.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let def = match &ts.def.value {
        None => {
            lines.push(waiting(ts.def.error.as_deref(), t));
            None
        }
        Some(None) => {
            lines.push(Line::styled("this tool is not in the catalogue", t.dim()));
            None
        }
        Some(Some(d)) => Some(d),
    };
    if let Some(d) = def {
        let r = &d.record;
        let s = |k: &str| {
            r.get(k)
                .and_then(|v| v.as_str())
                .map(|s| esc(s).into_owned())
        };
        let mut facts = format!(
            "family {} · effect {} · {} · {}",
            esc(&d.family),
            esc(&d.effect),
            if d.open_world {
                "open-world"
            } else {
                "closed-world"
            },
            if d.idempotent {
                "idempotent"
            } else {
                "not idempotent"
            }
        );
        for k in ["owner", "provenance", "approval"] {
            if let Some(v) = s(k) {
                facts.push_str(&format!(" · {k} {v}"));
            }
        }
        lines.extend(super::hang(vec![], 0, &facts, t.dim(), width));
        if !d.drift.is_empty() {
            let note = format!(
                "{} later definition change{} under this version: the first definition stays in use (below)",
                d.drift.len(),
                if d.drift.len() == 1 { "" } else { "s" }
            );
            lines.extend(super::hang(vec![], 0, &note, t.bad(), width));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled("Description (what the model sees)", t.title()));
        let description = r.get("description").and_then(|v| v.as_str()).unwrap_or("");
        for l in super::esc_lines(description) {
            lines.extend(super::hang(
                vec![Span::raw("  ")],
                2,
                &l,
                ratatui::style::Style::new(),
                width,
            ));
        }
    }
    lines.push(Line::raw(""));
    let (audit, rules) = audit_lines(app, width);
    // A click on a rule picks it; on its count, lists its decisions. (The
    // lines above are wrapped to the width already: a line is a row.)
    let base = lines.len();
    for (i, (start, len)) in rules.into_iter().enumerate() {
        let pick = crate::tui::mouse::to_rule(ts.rule, i);
        for k in 0..len {
            let Some(row) = (base + start + k).checked_sub(ts.scroll as usize) else {
                continue;
            };
            let y = area.y + 1 + row as u16;
            if row as u16 + 2 >= area.height {
                continue;
            }
            super::hit(app, Rect::new(area.x + 1, y, width as u16, 1), pick.clone());
            if k == 0 {
                let mut drill = pick.clone();
                drill.push(Action::Enter);
                super::hit(app, Rect::new(area.x + 1 + 28, y, 9, 1), drill);
            }
        }
    }
    lines.extend(audit);
    if let Some(d) = def {
        let r = &d.record;
        for (key, name) in [("use_when", "Use when"), ("avoid_when", "Avoid when")] {
            let items = r.get(key).map(list_of).unwrap_or_default();
            if !items.is_empty() {
                lines.push(Line::raw(""));
                lines.push(Line::styled(name, t.title()));
                for i in items {
                    lines.push(Line::raw(format!("  • {i}")));
                }
            }
        }
        let keywords = r.get("keywords").map(list_of).unwrap_or_default();
        if !keywords.is_empty() {
            lines.push(Line::raw(""));
            lines.push(Line::from(vec![
                Span::styled("Keywords  ", t.title()),
                Span::raw(keywords.join(", ")),
            ]));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled("Input schema", t.title()));
        match r.get("input_schema") {
            Some(v) if !v.is_null() => {
                let pretty =
                    serde_json::to_string_pretty(&super::masked_json(v)).unwrap_or_default();
                for l in crate::text::safe_json(pretty).lines() {
                    lines.push(Line::raw(format!("  {}", esc(l))));
                }
            }
            _ => lines.push(Line::styled("  none recorded", t.dim())),
        }
        if !d.drift.is_empty() {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "Definition changes under this version",
                t.bad(),
            ));
            for fi in &d.drift {
                lines.push(Line::raw(format!("  {}: {}", fi.kind, esc(&fi.detail))));
            }
        }
    }
    f.render_widget(
        Paragraph::new(lines)
            .block(b)
            .wrap(Wrap { trim: false })
            .scroll((ts.scroll, 0)),
        area,
    );
}
