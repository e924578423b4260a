//! The Ladder screen: asks for the funnel, the rates, the cells and the
//! trend; Enter lists the decisions at the selected rung.

use super::decisions;
use crate::model::Rung;
use crate::store::browse::DecisionSet;
use crate::tui::action::Action;
use crate::tui::state::{App, TREND_DAYS};
use crate::tui::worker::{Request, Slot};

pub(super) fn ensure(app: &mut App) {
    let f = app.filter.clone();
    if app.ladder.counts.wants() {
        app.ladder.counts.begin();
        app.request(Slot::Ladder, Request::Ladder(f.clone()));
    }
    if app.confusions.wants() {
        app.confusions.begin();
        app.request(Slot::Confusions, Request::Confusions(f.clone()));
    }
    if app.ladder.trend.wants() {
        app.ladder.trend.begin();
        let until = f.until.unwrap_or(app.opts.now_us);
        app.request(
            Slot::Trend,
            Request::Trend {
                filter: f.clone(),
                until,
                days: TREND_DAYS,
            },
        );
    }
    if app.ladder.metrics.wants() {
        app.ladder.metrics.begin();
        app.request(Slot::Metrics, Request::Metrics(f));
    }
}

pub(super) fn act(app: &mut App, action: Action) {
    let h = Rung::ALL.len();
    if let Some(d) = action.delta(h) {
        app.ladder.cursor.move_by(d, Rung::ALL.len(), h);
    } else if action == Action::Enter {
        let rung = Rung::ALL[app.ladder.cursor.sel.min(Rung::ALL.len() - 1)];
        let title = match rung {
            Rung::Passed => "labelled decisions that passed every rung".to_string(),
            Rung::Unlabelled => {
                "unlabelled decisions: no label, and nothing failed at the boundary or progress"
                    .to_string()
            }
            _ => format!("decisions that failed at {}", rung.as_str().to_uppercase()),
        };
        decisions::open(app, DecisionSet::Rung(rung), title);
    }
}
