//! `e` (CSV) and `E` (markdown): the list on screen written to a file, as
//! the screen's report writes it (`rung report …` builders and renderers,
//! so the same escaping), in the order and sort shown. Lists held in memory
//! are rendered here; paged lists (decisions, a run's timeline, runs, a
//! kind's findings) are read and written by a worker page by page. The key
//! bar names the file.

use crate::report::model::{Cell, Column, Report, Shape};
use crate::report::{self, Format};
use crate::tui::state::{App, ComparePane, Screen};
use crate::tui::worker::{ExportList, Request, Slot};

/// Writes the current screen's list; `markdown`: as markdown, else CSV.
pub(super) fn export(app: &mut App, markdown: bool) {
    let format = if markdown {
        Format::Markdown
    } else {
        Format::Csv
    };
    let (name, title, list, noun) = match list(app, format) {
        Ok(x) => x,
        Err(why) => {
            app.status = Some(why);
            return;
        }
    };
    app.exports += 1;
    let secs = app.opts.now_us.div_euclid(1_000_000);
    let ext = if markdown { "md" } else { "csv" };
    let path = app
        .export_dir
        .join(format!("rung-{name}-{secs}-{}.{ext}", app.exports));
    app.status = Some(format!("writing {}…", path.display()));
    let request = Request::Export {
        filter: app.filter.clone(),
        list,
        markdown,
        title,
        noun,
        path,
    };
    app.request(Slot::Export, request);
}

type Listing = (&'static str, String, ExportList, &'static str);

/// The file's name part, the markdown title, the list and what its rows are.
fn list(app: &App, format: Format) -> Result<Listing, String> {
    let red = &*app.opts.redactor;
    let ready = |r: &Report| ExportList::Ready {
        text: report::render(r, format),
        rows: r.data_rows().count() as u64,
    };
    let not_yet = || "nothing to export yet: the list is still loading".to_string();
    Ok(match app.screen {
        Screen::Decisions => {
            let set = app.decisions.set.clone().ok_or_else(not_yet)?;
            let list = ExportList::Decisions {
                set,
                view: app.decisions.view.clone(),
            };
            ("decisions", app.decisions.heading(), list, "decisions")
        }
        Screen::Run => {
            let run_id = app
                .run
                .run_id
                .clone()
                .ok_or("open a run first (2, Enter)")?;
            let title = format!("Run {run_id}");
            ("run", title, ExportList::Timeline { run_id }, "decisions")
        }
        Screen::Runs if app.runs.fuzzy.active() => {
            let r = report::runs::build(&app.runs.fuzzy.rows, red);
            ("runs", r.title.clone(), ready(&r), "runs")
        }
        Screen::Runs => {
            let list = ExportList::Runs {
                sort: app.runs.sort,
                desc: app.runs.desc,
            };
            ("runs", "Runs".into(), list, "runs")
        }
        Screen::FindingList => {
            let set = app.findings.list.set.clone().ok_or_else(not_yet)?;
            let title = format!("Findings of kind {}", set.kind);
            let list = ExportList::Findings {
                set,
                sort: app.findings.list.sort,
                desc: app.findings.list.desc,
            };
            ("findings", title, list, "findings")
        }
        Screen::Ladder => {
            let (c, b) = app.ladder.counts.value.as_ref().ok_or_else(not_yet)?;
            let mut r = report::ladder::build(c, b, red);
            // A row per rung, as the funnel shows them.
            if r.rows.len() == app.ladder.rows.len() {
                r.rows = (0..r.rows.len())
                    .map(|p| r.rows[app.ladder.view.at(p)].clone())
                    .collect();
            }
            ("ladder", r.title.clone(), ready(&r), "rungs")
        }
        Screen::Refusals => {
            let d = app.refusals.data.value.as_ref().ok_or_else(not_yet)?;
            let mut rep = d.report.clone();
            rep.rows = shown(&app.refusals.view, &d.report.rows);
            let r = report::refusals::build(&rep, d.runs_affected, red);
            ("refusals", r.title.clone(), ready(&r), "rows")
        }
        Screen::Confusions => {
            let c = app.confusions.value.as_ref().ok_or_else(not_yet)?;
            let mut c = c.clone();
            c.cells = shown(&app.confusion.view, &c.cells);
            let r = report::confusions::build(&c, red);
            ("confusions", r.title.clone(), ready(&r), "cells")
        }
        Screen::Findings => {
            let d = app.findings.data.value.as_ref().ok_or_else(not_yet)?;
            let r = kinds_report(&shown(&app.findings.view, &d.rows), red);
            ("findings", r.title.clone(), ready(&r), "kinds")
        }
        Screen::Tools => {
            let data = app.tools.data.value.as_ref().ok_or_else(not_yet)?;
            let list: Vec<_> = app
                .tool_rows()
                .iter()
                .map(|&i| data[i].usage.clone())
                .collect();
            let r = report::tools::build(&list, red);
            ("tools", r.title.clone(), ready(&r), "tools")
        }
        Screen::Compare => {
            let c = app.compare.result.value.as_ref().ok_or_else(|| {
                "nothing to export: pick a base (b) and a candidate (Space) first".to_string()
            })?;
            let mut c = (**c).clone();
            if app.compare.pane == ComparePane::Cells {
                c.cells = shown(&app.compare.cells_view, &c.cells);
            }
            let text =
                report::compare::render(&c, format, false, red).map_err(|e| e.to_string())?;
            let rows = c.cells.len() as u64;
            let list = ExportList::Ready { text, rows };
            ("compare", "Compare".into(), list, "cells")
        }
        Screen::Tool | Screen::ToolDiff => {
            return Err("e/E write a list: this screen shows one tool".into());
        }
    })
}

/// `rows` in the order the table shows them.
fn shown<T: Clone>(view: &crate::tui::state::TableView, rows: &[T]) -> Vec<T> {
    (0..rows.len()).map(|p| rows[view.at(p)].clone()).collect()
}

/// The Findings screen's table as a report: a row per kind.
fn kinds_report(rows: &[crate::store::browse::KindCount], m: &crate::redact::Redactor) -> Report {
    let mut r = Report::new(
        "Findings by kind",
        Shape::List("kinds"),
        vec![
            Column::new("kind", "kind"),
            Column::new("count", "count").right(),
            Column::new("runs", "runs").right(),
            Column::new("previous", "prev wk").right(),
            Column::new("change", "change").right().reading_only(),
            Column::new("undated", "undated").right(),
        ],
    );
    for k in rows {
        r.row(vec![
            Cell::text(m, &k.kind),
            Cell::Count(k.count),
            Cell::Count(k.runs),
            Cell::Count(k.previous),
            Cell::text(m, &report::change(k.count, k.previous)),
            Cell::Count(k.undated),
        ]);
    }
    r
}
