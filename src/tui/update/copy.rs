//! Copy and export (issue 16): `y` copies the selected row's id (a run id,
//! `run step`, a tool name), `Y` the selected decision's record as JSON
//! (masked by the worker unless --no-redact), both through the terminal's
//! OSC 52 clipboard (`e`/`E`, the export, is in `export`).

use crate::tui::state::{App, Screen};
use crate::tui::worker::{Request, Slot};

/// What the key bar says after a copy: OSC 52 is not supported everywhere.
const OSC52: &str =
    "through OSC 52: a terminal without it (or tmux without set-clipboard) copies nothing";

/// Hands `text` to the runner for the clipboard and says what was copied.
pub(super) fn take_clip(app: &mut App, text: String, what: &str, json: bool) {
    app.status = Some(format!(
        "copied {what}{} · {OSC52}",
        if json { " as JSON" } else { "" }
    ));
    app.clip = Some(text);
}

/// The selected decision on a screen that lists decisions.
fn selected_decision(app: &App) -> Option<&crate::store::browse::DecisionRow> {
    match app.screen {
        Screen::Decisions => app.decisions.page.selected(),
        Screen::Run => app.run.timeline.selected(),
        _ => None,
    }
}

pub(super) fn id(app: &mut App) {
    let id = match app.screen {
        Screen::Runs => app.runs.page.selected().map(|r| r.run_id.clone()),
        Screen::Decisions | Screen::Run => {
            selected_decision(app).map(|d| format!("{} {}", d.run_id, d.step))
        }
        Screen::Tools => {
            let rows = app.tool_rows();
            match (rows.get(app.tools.cursor.sel), &app.tools.data.value) {
                (Some(&i), Some(data)) => data.get(i).map(|t| t.usage.name.clone()),
                _ => None,
            }
        }
        Screen::Tool => Some(app.tool.name.clone()).filter(|s| !s.is_empty()),
        _ => None,
    };
    match id {
        Some(id) => {
            let what = id.clone();
            take_clip(app, id, &what, false)
        }
        None => app.status = Some("nothing to copy here: y copies a run, decision or tool".into()),
    }
}

pub(super) fn record(app: &mut App) {
    match selected_decision(app).cloned() {
        Some(d) => app.request(Slot::Record, Request::Record(Box::new(d))),
        None => {
            app.status = Some("Y copies a decision: select one in a decision list or a run".into())
        }
    }
}
