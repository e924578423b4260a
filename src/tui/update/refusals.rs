//! The Refusals screen: a week of refusals by reason, moved a week at a
//! time; Enter lists the decisions behind a reason.

use super::decisions;
use super::table::{self, Op, Table};
use crate::store::browse::{DecisionSet, Drill};
use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::paged::Cursor;
use crate::tui::state::{App, Load};
use crate::tui::views::day as day_text;
use crate::tui::worker::{RefusalData, Request, Slot};
use crate::window::{DAY, WEEK, last_week, week_holding};

pub(super) fn ensure(app: &mut App) {
    if app.refusals.data.wants() {
        app.refusals.data.begin();
        app.request(
            Slot::Refusals,
            Request::Refusals {
                filter: app.filter.clone(),
                since: app.refusals.since,
                until: app.refusals.until,
            },
        );
    }
}

pub(super) fn take(app: &mut App, r: Box<RefusalData>) {
    app.refusals.data.set(r);
    table::apply(app, Table::Refusals, Op::Refresh);
}

/// Shows the window `[since, until)` instead.
fn shift(app: &mut App, since: i64, until: i64) {
    app.refusals.since = since;
    app.refusals.until = until;
    app.refusals.data = Load::default();
    app.refusals.cursor = Cursor::default();
    app.refusals.day = None;
    app.ensure();
}

pub(super) fn act(app: &mut App, action: Action) {
    let h = app.height(layout::List::Refusals);
    let len = app
        .refusals
        .data
        .value
        .as_ref()
        .map(|d| d.report.rows.len())
        .unwrap_or(0);
    let (s, u) = (app.refusals.since, app.refusals.until);
    match action {
        Action::WeekBack | Action::Left => shift(app, s - WEEK, u - WEEK),
        Action::WeekForward | Action::Right => shift(app, s + WEEK, u + WEEK),
        Action::ThisWeek => {
            let (since, until) = last_week(app.opts.now_us);
            shift(app, since, until)
        }
        Action::LatestWeek => {
            if let Some(t) = app.refusals.data.value.as_ref().and_then(|d| d.latest) {
                // The week of the `[`/`]` grid that holds the latest refusal.
                let (since, until) = week_holding(u, t);
                shift(app, since, until);
            }
        }
        Action::NextDay | Action::PrevDay => {
            let days = app
                .refusals
                .data
                .value
                .as_ref()
                .map(|d| d.days.len())
                .unwrap_or(0);
            if days == 0 {
                return;
            }
            let half = days / 2;
            app.refusals.day = Some(match (app.refusals.day, action == Action::NextDay) {
                (None, true) => half,
                (None, false) => days - 1,
                (Some(i), true) => (i + 1) % days,
                (Some(i), false) => (i + days - 1) % days,
            });
        }
        Action::Enter if app.refusals.day.is_some() => {
            let (Some(d), Some(i)) = (&app.refusals.data.value, app.refusals.day) else {
                return;
            };
            let count = d.days.get(i).copied().unwrap_or(0);
            let start = s - (u - s) + i as i64 * DAY;
            if count == 0 {
                app.status = Some(format!("no refusals on {}", day_text(start)));
                return;
            }
            let title = format!("refusal{{s}} on {}", day_text(start));
            let set = Drill::RefusalDay {
                since: start,
                until: start + DAY,
            };
            decisions::open(app, set, Some(count), title);
        }
        Action::Enter => {
            let Some(d) = &app.refusals.data.value else {
                return;
            };
            let at = app.refusals.view.selected(&app.refusals.cursor);
            if let Some(row) = at.and_then(|i| d.report.rows.get(i)) {
                let set = DecisionSet::Refusal {
                    reason: row.reason.clone(),
                    stage: row.stage.clone(),
                    since: s,
                    until: u,
                };
                let title = format!(
                    "refusal{{s}} with reason {} ({})",
                    row.reason.as_deref().unwrap_or("no reason"),
                    row.stage
                );
                let count = row.count;
                decisions::open(app, Drill::Set(set), Some(count), title);
            }
        }
        a => {
            if let Some(d) = a.delta(h) {
                app.refusals.cursor.move_by(d, len, h);
            }
        }
    }
}
