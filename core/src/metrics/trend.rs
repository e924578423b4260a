//! Refusals over time: the runs a window's refusals touched, and the
//! refusals per day the refusal screen draws beside the weekly report.

use std::collections::{HashMap, HashSet};

use super::{Refusal, RefusalReport, refusals};
use crate::window::DAY;

/// Distinct runs with a refusal in `[since, until)` ("runs affected").
pub fn runs_affected(items: &[Refusal], since: i64, until: i64) -> u64 {
    items
        .iter()
        .filter(|r| r.time_us.is_some_and(|t| t >= since && t < until))
        .map(|r| r.run_id.as_str())
        .collect::<HashSet<_>>()
        .len() as u64
}

/// The refusal report of a window with its runs affected and its
/// refusals per day.
#[derive(Debug, Clone, PartialEq)]
pub struct RefusalTrend {
    pub report: RefusalReport,
    pub runs_affected: u64,
    /// Per row of `report.rows`: refusals per day over the window.
    pub per_day: Vec<Vec<u64>>,
    /// All refusals per day over the previous window and this one.
    pub days: Vec<u64>,
}

/// [`refusals`] in `[since, until)` plus the counts per day: days are
/// counted from `since` (the last one may be partial), at least 1 and at
/// most 366; `days` covers the window of the same length before too.
pub fn refusal_trend(items: Vec<Refusal>, since: i64, until: i64) -> RefusalTrend {
    let days = ((until - since + DAY - 1) / DAY).clamp(1, 366) as usize;
    let prev = since - (until - since);
    let mut all_days = vec![0u64; days * 2];
    let mut by_key: HashMap<(Option<String>, String), Vec<u64>> = HashMap::new();
    for r in &items {
        let Some(t) = r.time_us else { continue };
        if t < prev || t >= until {
            continue;
        }
        if let Some(slot) = all_days.get_mut(((t - prev) / DAY) as usize) {
            *slot += 1;
        }
        if t >= since {
            let row = by_key
                .entry((r.reason.clone(), r.stage.clone()))
                .or_insert_with(|| vec![0; days]);
            if let Some(slot) = row.get_mut(((t - since) / DAY) as usize) {
                *slot += 1;
            }
        }
    }
    let runs_affected = runs_affected(&items, since, until);
    let report = refusals(items, since, until);
    let per_day = report
        .rows
        .iter()
        .map(|row| {
            by_key
                .get(&(row.reason.clone(), row.stage.clone()))
                .cloned()
                .unwrap_or_else(|| vec![0; days])
        })
        .collect();
    RefusalTrend {
        report,
        runs_affected,
        per_day,
        days: all_days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(reason: &str, run: &str, t: Option<i64>) -> Refusal {
        Refusal {
            reason: Some(reason.into()),
            stage: "authorization".into(),
            run_id: run.into(),
            time_us: t,
        }
    }

    #[test]
    fn runs_affected_counts_each_run_once_inside_the_window() {
        let items = [
            r("a", "r1", Some(10)),
            r("b", "r1", Some(11)),
            r("a", "r2", Some(19)),
            r("a", "r3", Some(20)), // at `until`: outside
            r("a", "r4", Some(9)),  // before `since`
            r("a", "r5", None),
        ];
        assert_eq!(runs_affected(&items, 10, 20), 2);
        assert_eq!(runs_affected(&items, 0, 10), 1);
        assert_eq!(runs_affected(&[], 0, 10), 0);
    }

    #[test]
    fn refusals_are_counted_per_day_of_both_windows() {
        // A three-day window [3d, 6d) and the three days before it.
        let (since, until) = (3 * DAY, 6 * DAY);
        let trend = refusal_trend(
            vec![
                r("late", "r1", Some(3 * DAY)),
                r("late", "r2", Some(3 * DAY + 5)),
                r("late", "r2", Some(5 * DAY + 1)),
                r("scope", "r3", Some(4 * DAY)),
                r("scope", "r4", Some(DAY / 2)), // previous window, day 0
                r("scope", "r5", Some(-DAY)),    // older than both: not counted
                r("late", "r6", None),
            ],
            since,
            until,
        );
        assert_eq!(trend.runs_affected, 3);
        assert_eq!(trend.days, vec![1, 0, 0, 2, 1, 1]);
        let rows: Vec<(Option<&str>, u64)> = trend
            .report
            .rows
            .iter()
            .map(|x| (x.reason.as_deref(), x.count))
            .collect();
        assert_eq!(rows, vec![(Some("late"), 3), (Some("scope"), 1)]);
        assert_eq!(trend.per_day, vec![vec![2, 0, 1], vec![0, 1, 0]]);
        assert_eq!(trend.report.undated, 1);
    }
}
