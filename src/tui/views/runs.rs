//! Runs (sortable, fuzzy-filtered) and the decision lists behind a rung, a
//! refusal reason or a confusion cell. Rows are built for the visible window
//! only.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::search::{self, marked};
use super::{badge, block, column_widths, esc, fit, minute, n, opt, pending, short_badge, yes_no};
use crate::store::browse::{DecisionRow, DecisionSort, RunSort, found_in};
use crate::store::query::RunRow;
use crate::tui::layout::{self, List};
use crate::tui::paged::{Cursor, Paged};
use crate::tui::state::App;
use crate::tui::theme::Theme;

fn sort_name(s: RunSort) -> &'static str {
    match s {
        RunSort::Id => "run",
        RunSort::Task => "task",
        RunSort::Trial => "trial",
        RunSort::Model => "model",
        RunSort::Decisions => "decisions",
        RunSort::FirstFailed => "first failed",
        RunSort::Success => "success",
        RunSort::Harm => "harm",
    }
}

/// The run cells; `as_expected`: with the verdict against the run's
/// expectations (shown when some listed run has expectations). Text is cut
/// to its column of `cols` with `…`; `why`, for a match of the fuzzy
/// filter, stands where the model would.
fn run_cells<'a>(
    r: &'a RunRow,
    as_expected: bool,
    t: &Theme,
    cols: &[usize],
    why: Option<&str>,
) -> Vec<Cell<'a>> {
    let model = match why {
        Some(w) => Cell::from(Span::styled(fit(&esc(w), cols[3]), t.dim())),
        None => Cell::from(fit(&opt(&r.model, "-"), cols[3])),
    };
    let mut cells = vec![
        Cell::from(fit(&esc(&r.run_id), cols[0])),
        Cell::from(fit(&opt(&r.task_id, "-"), cols[1])),
        Cell::from(
            Line::from(r.trial.map(|x| x.to_string()).unwrap_or_else(|| "-".into()))
                .right_aligned(),
        ),
        model,
        Cell::from(Line::from(n(r.decisions)).right_aligned()),
        Cell::from(match r.first_failed_rung {
            None => Line::styled("-", t.dim()),
            Some(rung) => Line::from(badge(rung, t)),
        }),
        Cell::from(Span::styled(
            yes_no(r.success),
            match r.success {
                Some(true) => t.good(),
                Some(false) => t.bad(),
                None => t.dim(),
            },
        )),
        Cell::from(Span::styled(
            yes_no(r.harm),
            if r.harm == Some(true) {
                t.bad()
            } else {
                t.dim()
            },
        )),
    ];
    if as_expected {
        cells.push(Cell::from(Span::styled(
            yes_no(r.as_expected),
            match r.as_expected {
                Some(true) => t.good(),
                Some(false) => t.bad(),
                None => t.dim(),
            },
        )));
    }
    cells
}

/// The column of the verdict against expectations, after the sortable ones.
const AS_EXPECTED: &str = "as expected";

/// The runs table's widths, with the as-expected column or without.
fn run_widths(as_expected: bool) -> Vec<Constraint> {
    let mut w = RUN_WIDTHS.to_vec();
    if as_expected {
        w.push(Constraint::Length(AS_EXPECTED.len() as u16));
    }
    w
}

const RUN_WIDTHS: [Constraint; 8] = [
    Constraint::Fill(3),
    Constraint::Fill(3),
    Constraint::Length(5),
    Constraint::Fill(2),
    Constraint::Length(9),
    Constraint::Length(14),
    Constraint::Length(7),
    Constraint::Length(4),
];

/// The header; `matched`: the model column shows why a run matched.
fn header(
    sort: Option<(RunSort, bool)>,
    as_expected: bool,
    t: &Theme,
    matched: bool,
) -> Row<'static> {
    let mut cells: Vec<Cell> = RunSort::ALL
        .iter()
        .map(|s| {
            let mut name = sort_name(*s).to_string();
            if matched && *s == RunSort::Model {
                name = "matched".to_string();
            }
            if let Some((by, desc)) = sort
                && by == *s
            {
                name.push_str(if desc { " ▼" } else { " ▲" });
            }
            if matches!(s, RunSort::Trial | RunSort::Decisions) {
                Cell::from(Line::from(name).right_aligned())
            } else {
                Cell::from(name)
            }
        })
        .collect();
    if as_expected {
        cells.push(Cell::from(AS_EXPECTED));
    }
    Row::new(cells).style(t.header())
}

/// Rows `[top, top + h)` of `items` with the selected one highlighted.
fn window<'a, T>(
    items: &'a [T],
    cursor: &Cursor,
    h: usize,
    t: &Theme,
    cells: impl Fn(&'a T) -> Vec<Cell<'a>>,
) -> Vec<Row<'a>> {
    let top = cursor.visible_top(h);
    items
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, item)| {
            let row = Row::new(cells(item));
            if i == cursor.sel {
                row.style(t.selected())
            } else {
                row
            }
        })
        .collect()
}

/// "row 12 of 1,234" for a paged list.
fn position<T>(p: &Paged<T>) -> String {
    match (p.position(), p.total) {
        (Some(i), Some(t)) if t > 0 => format!(" {} of {} ", n(i + 1), n(t)),
        (None, Some(t)) => format!(" ? of {} ", n(t)),
        _ => String::new(),
    }
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let h = layout::list_height(List::Runs, app.size);
    let rs = &app.runs;
    let fz = &rs.fuzzy;
    if fz.active() || fz.typing {
        let mut title = vec![
            Span::styled(" Runs · / ", t.title()),
            Span::styled(
                format!("{}{}", esc(&fz.input), if fz.typing { "▏" } else { "" }),
                t.selected(),
            ),
        ];
        let status = match (&fz.result, fz.loading) {
            (_, true) => " matching…".to_string(),
            (_, false) if let Some(e) = &fz.error => format!(" · could not match: {} ", esc(e)),
            (Some(r), false) => format!(
                " · {}{} match{}{}{} ",
                n(r.matched),
                if r.exact { "" } else { " loose" },
                if r.matched == 1 { "" } else { "es" },
                if r.matched as usize > r.rows.len() {
                    format!(", best {}", n(r.rows.len() as u64))
                } else {
                    String::new()
                },
                match fz.sorted {
                    None => ", best first".to_string(),
                    Some((s, d)) => format!(", by {}{}", sort_name(s), if d { " ▼" } else { " ▲" }),
                }
            ),
            (None, false) => " · type to match run id, task, goal or model ".to_string(),
        };
        title.push(Span::styled(status, t.title()));
        let b = block(Line::from(title), t, true).title_bottom(
            Line::from(
                fz.result
                    .as_ref()
                    .filter(|r| !r.rows.is_empty())
                    .map(|r| format!(" {} of {} ", fz.cursor.sel + 1, r.rows.len()))
                    .unwrap_or_default(),
            )
            .right_aligned(),
        );
        if fz.result.as_ref().is_some_and(|r| r.rows.is_empty()) && !fz.loading {
            f.render_widget(
                Paragraph::new(Line::styled("no run matches", t.dim())).block(b),
                area,
            );
            return;
        }
        let exp = fz.rows.iter().any(|r| r.as_expected.is_some());
        // Why each run matched shows where its model would.
        let mut widths = run_widths(exp);
        widths[3] = Constraint::Fill(4);
        let cols = column_widths(area.width.saturating_sub(2), &widths);
        let why = |r: &RunRow| {
            fz.result
                .as_ref()
                .and_then(|x| x.why.get(&r.run_id))
                .map(String::as_str)
        };
        let rows = window(&fz.rows, &fz.cursor, h, t, |r| {
            run_cells(r, exp, t, &cols, Some(why(r).unwrap_or("")))
        });
        let cur = &fz.cursor;
        super::hit_rows(app, area, cur.visible_top(h), cur.sel, fz.rows.len(), &[]);
        f.render_widget(
            Table::new(rows, widths)
                .header(header(fz.sorted, exp, t, true))
                .block(b),
            area,
        );
        return;
    }
    let p = &rs.page;
    let title = format!(
        " Runs{} · sorted by {}{} ",
        p.total.map(|x| format!(" · {}", n(x))).unwrap_or_default(),
        sort_name(rs.sort),
        if rs.desc { " ▼" } else { " ▲" }
    );
    let b = block(title, t, true).title_bottom(Line::from(position(p)).right_aligned());
    if !p.loaded {
        f.render_widget(pending(p.error.as_deref(), t).block(b), area);
        return;
    }
    if p.rows.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled("no runs in this filter", t.dim())).block(b),
            area,
        );
        return;
    }
    let exp = p.rows.iter().any(|(_, r)| r.as_expected.is_some());
    let widths = run_widths(exp);
    let cols = column_widths(area.width.saturating_sub(2), &widths);
    let rows = window(&p.rows, &p.cursor, h, t, |(_, r)| {
        run_cells(r, exp, t, &cols, None)
    });
    let cur = &p.cursor;
    super::hit_rows(app, area, cur.visible_top(h), cur.sel, p.rows.len(), &[]);
    f.render_widget(
        Table::new(rows, widths)
            .header(header(Some((rs.sort, rs.desc)), exp, t, false))
            .block(b),
        area,
    );
}

/// Cells of a decision in a list: run, step, phase, selected, rung, outcome
/// (narrow: without the label, with short badges and times); text is cut
/// to its column of `cols` with `…`.
fn decision_cells<'a>(
    d: &'a DecisionRow,
    narrow: bool,
    t: &Theme,
    cols: &[usize],
) -> Vec<Cell<'a>> {
    if narrow {
        return vec![
            Cell::from(fit(&esc(&d.run_id), cols[0])),
            Cell::from(Line::from(d.step.to_string()).right_aligned()),
            Cell::from(fit(&opt(&d.phase, "-"), cols[2])),
            Cell::from(fit(&opt(&d.selected, "(no call)"), cols[3])),
            Cell::from(Line::from(short_badge(d.rung, t))),
            Cell::from(fit(&short_outcome(d), cols[5])),
            Cell::from(
                d.time_us
                    .map(|us| minute(us)[5..].to_string())
                    .unwrap_or_default(),
            ),
        ];
    }
    vec![
        Cell::from(fit(&esc(&d.run_id), cols[0])),
        Cell::from(Line::from(d.step.to_string()).right_aligned()),
        Cell::from(fit(&opt(&d.phase, "-"), cols[2])),
        Cell::from(fit(&opt(&d.selected, "(no call)"), cols[3])),
        Cell::from(Line::from(badge(d.rung, t))),
        Cell::from(fit(&outcome(d), cols[5])),
        Cell::from(fit(
            &if d.labelled {
                esc(&d.acceptable.join(", ")).into_owned()
            } else {
                "(unlabelled)".to_string()
            },
            cols[6],
        )),
        Cell::from(d.time_us.map(minute).unwrap_or_default()),
    ]
}

/// The outcome in a few words: the reason of a refusal (the rung badge
/// beside it names the stage), `error: reason`, `ok`, `not run`.
pub fn short_outcome(d: &DecisionRow) -> String {
    let reason = d.reason.as_deref().map(|r| esc(r).into_owned());
    match d.status.as_deref() {
        Some("refused") => reason.unwrap_or_else(|| "refused".into()),
        Some("error") => format!("error: {}", reason.unwrap_or_default()),
        Some("unknown") => format!("unknown: {}", reason.unwrap_or_default()),
        Some("not_run") => "not run".into(),
        Some(s) => esc(s).into_owned(),
        None => "-".into(),
    }
}

/// `refused: reason`, `ok`, `-`.
pub fn outcome(d: &DecisionRow) -> String {
    match (&d.status, &d.reason) {
        (Some(s), Some(r)) => format!("{}: {}", esc(s), esc(r)),
        (Some(s), None) => esc(s).into_owned(),
        (None, _) => "-".to_string(),
    }
}

pub fn draw_decisions(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.opts.theme;
    let h = layout::list_height(List::Decisions, app.size);
    let ds = &app.decisions;
    let p = &ds.page;
    // The count drilled into, then what the decisions are; a list that no
    // longer holds that many (the data changed) says how many it holds.
    let searching = !ds.view.find.trim().is_empty();
    let title = match (ds.count, p.total) {
        (Some(_), Some(t)) if searching => format!(
            " {} · {} match{} ",
            esc(&ds.heading()),
            n(t),
            if t == 1 { "" } else { "es" }
        ),
        (Some(c), Some(t)) if c != t => format!(" {} · {} now ", esc(&ds.heading()), n(t)),
        (Some(_), _) => format!(" {} ", esc(&ds.heading())),
        (None, t) => format!(
            " {}{} ",
            esc(&ds.heading()),
            t.map(|x| format!(" · {}", n(x))).unwrap_or_default()
        ),
    };
    let view = &ds.view;
    let pat = view.find.trim().to_lowercase();
    let mut b = block(title, t, true).title_bottom(Line::from(position(p)).right_aligned());
    if ds.typing || !pat.is_empty() {
        b = b.title_bottom(search::bar(&view.find, ds.typing, None, t));
    }
    if !p.loaded {
        f.render_widget(pending(p.error.as_deref(), t).block(b), area);
        return;
    }
    if p.rows.is_empty() {
        let msg = if pat.is_empty() {
            "no decisions in this filter"
        } else {
            "no decision in this list matches the search"
        };
        f.render_widget(Paragraph::new(Line::styled(msg, t.dim())).block(b), area);
        return;
    }
    let narrow = area.width < 110;
    let top = p.cursor.visible_top(h);
    super::hit_rows(app, area, top, p.cursor.sel, p.rows.len(), &[]);
    let step_w = super::number_width(p.rows.iter().skip(top).take(h).map(|(_, d)| d.step), 5);
    let mut widths = vec![
        Constraint::Fill(if narrow { 1 } else { 2 }),
        Constraint::Length(step_w),
        Constraint::Length(9),
        Constraint::Fill(2),
        Constraint::Length(if narrow { 9 } else { 14 }),
        Constraint::Fill(2),
    ];
    // The sorted column says so (s cycles, S reverses).
    let arrow = if view.desc { " ↓" } else { " ↑" };
    let named = |s: DecisionSort, text: &str| -> String {
        if view.sort == s && s != DecisionSort::Natural {
            format!("{text}{arrow}")
        } else {
            text.to_string()
        }
    };
    let mut head = vec![
        Cell::from(named(DecisionSort::Run, "run")),
        Cell::from(Line::from("step").right_aligned()),
        Cell::from("phase"),
        Cell::from(named(DecisionSort::Selected, "selected")),
        Cell::from(named(DecisionSort::Rung, "rung")),
        Cell::from("outcome"),
    ];
    let time = if view.sort == DecisionSort::Natural && view.desc {
        "time (UTC) ↓".to_string()
    } else {
        named(DecisionSort::Time, "time (UTC)")
    };
    if narrow {
        widths.push(Constraint::Length(11));
        head.push(Cell::from(if time.ends_with(')') {
            time
        } else {
            format!("time{arrow}")
        }));
    } else {
        widths.extend([Constraint::Fill(2), Constraint::Length(16)]);
        head.extend([Cell::from("acceptable"), Cell::from(time)]);
    }
    let cols = column_widths(area.width.saturating_sub(2), &widths);
    // Cut to their columns with `…`; a search marks what it found instead.
    let rows = window(&p.rows, &p.cursor, h, t, |(_, d)| {
        let mut cells = decision_cells(d, narrow, t, &cols);
        if !pat.is_empty() {
            found_cells(&mut cells, d, narrow, &pat, t);
        }
        cells
    });
    let head = Row::new(head).style(t.header());
    f.render_widget(Table::new(rows, widths).header(head).block(b), area);
}

/// A searched list's row: the matched text marked in the cells shown, and
/// the fields that matched but are not shown named in the outcome cell.
fn found_cells(cells: &mut [Cell<'_>], d: &DecisionRow, narrow: bool, pat: &str, t: &Theme) {
    let fields = found_in(d, pat);
    let shown: &[&str] = if narrow {
        &["run", "phase", "selected", "status", "reason"]
    } else {
        &["run", "phase", "selected", "status", "reason", "acceptable"]
    };
    cells[0] = Cell::from(marked(&esc(&d.run_id), pat, t));
    cells[2] = Cell::from(marked(&opt(&d.phase, "-"), pat, t));
    cells[3] = Cell::from(marked(&opt(&d.selected, "(no call)"), pat, t));
    let out = if narrow { short_outcome(d) } else { outcome(d) };
    let mut line = marked(&out, pat, t);
    let hidden: Vec<&str> = fields
        .iter()
        .filter(|f| !shown.contains(f) && **f != "rung")
        .copied()
        .collect();
    if let Some(note) = search::hidden(&hidden, t) {
        line.spans.insert(0, note);
    }
    cells[5] = Cell::from(line);
    if !narrow && d.labelled {
        cells[6] = Cell::from(marked(&esc(&d.acceptable.join(", ")), pat, t));
    }
}
