//! The Ladder screen: asks for the funnel, the rates, the cells and the
//! trend; Enter lists the decisions at the selected rung.

use super::decisions;
use crate::model::Rung;
use crate::store::browse::{DecisionSet, Drill};
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
    let at = app.ladder.view.at(app.ladder.cursor.sel);
    let rung = Rung::ALL[at.min(Rung::ALL.len() - 1)];
    let counts = app.ladder.counts.value.as_ref();
    if let Some(d) = action.delta(h) {
        app.ladder.cursor.move_by(d, Rung::ALL.len(), h);
    } else if matches!(action, Action::Left | Action::Right) {
        app.ladder.boundary = action == Action::Right;
    } else if action == Action::Enter && app.ladder.boundary {
        let count = counts
            .and_then(|(_, b)| b.iter().find(|(s, _)| s == rung.as_str()))
            .map(|(_, n)| *n)
            .unwrap_or(0);
        if count == 0 {
            app.status = Some(format!("no decision has the boundary {}", rung.as_str()));
            return;
        }
        let title = format!("decision{{s}} whose boundary is {}", rung.as_str());
        decisions::open(
            app,
            Drill::Boundary(rung.as_str().to_string()),
            Some(count),
            title,
        );
    } else if action == Action::Enter {
        let count = counts.map(|(c, _)| c.count(rung));
        let title = match rung {
            Rung::Passed => "labelled decision{s} that passed every rung".to_string(),
            Rung::Unlabelled => {
                "unlabelled decision{s}: no label, and nothing failed at the boundary or progress"
                    .to_string()
            }
            _ => format!(
                "decision{{s}} that failed at {}",
                rung.as_str().to_uppercase()
            ),
        };
        decisions::open(app, Drill::Set(DecisionSet::Rung(rung)), count, title);
    }
}
