//! Selection consistency across trials (`rung report consistency`, the
//! `inconsistent_tasks` metric): per task and catalogue with two or more
//! runs, the distinct first tools chosen and how often. A task that starts
//! one way on one trial and another way on the next is unreliable even when
//! each start is acceptable.

use rustc_hash::FxHashMap;

use serde::Serialize;

use super::Rate;

/// A run's first decision, as consistency needs it (with how many runs
/// made the same one).
#[derive(Debug, Clone, PartialEq)]
pub struct FirstChoice {
    pub catalogue: Option<String>,
    pub task_id: String,
    /// The first decision's selected tool; `None` is no call.
    pub selected: Option<String>,
}

/// How often one tool was chosen first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// `null` is no call.
    pub tool: Option<String>,
    pub count: u64,
}

/// One task on one catalogue with two or more trials.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskChoices {
    pub catalogue: Option<String>,
    pub task_id: String,
    pub trials: u64,
    /// By count descending, then tool (no call first, then by code point).
    pub choices: Vec<Choice>,
}

impl TaskChoices {
    pub fn distinct(&self) -> u64 {
        self.choices.len() as u64
    }

    /// The share of trials that chose the most common first tool.
    pub fn top_share(&self) -> f64 {
        self.choices.first().map_or(0, |c| c.count) as f64 / self.trials.max(1) as f64
    }

    pub fn varies(&self) -> bool {
        self.choices.len() > 1
    }
}

/// Every (catalogue, task) with two or more trials, and the rate of those
/// whose first choice varies.
#[derive(Debug, Clone, PartialEq)]
pub struct Consistency {
    /// Tasks whose first choice varies, most varied first: more distinct
    /// tools first, then a smaller share for the most common one, then by
    /// catalogue (none first) and task id.
    pub varying: Vec<TaskChoices>,
    /// `inconsistent_tasks`: varying / tasks with two or more trials.
    pub rate: Rate,
}

/// Groups first choices, each with its number of runs, by (catalogue,
/// task). Hashed, not ordered, as they come: the varying tasks are sorted
/// whole at the end, and each one's choices by count, then tool.
pub fn consistency(firsts: impl IntoIterator<Item = (FirstChoice, u64)>) -> Consistency {
    type Key = (Option<String>, String);
    let mut groups: FxHashMap<Key, FxHashMap<Option<String>, u64>> = FxHashMap::default();
    for (f, n) in firsts {
        *groups
            .entry((f.catalogue, f.task_id))
            .or_default()
            .entry(f.selected)
            .or_default() += n;
    }
    let mut with_trials = 0;
    let mut varying = Vec::new();
    for ((catalogue, task_id), counts) in groups {
        let trials: u64 = counts.values().sum();
        if trials < 2 {
            continue;
        }
        with_trials += 1;
        if counts.len() < 2 {
            continue;
        }
        let mut choices: Vec<Choice> = counts
            .into_iter()
            .map(|(tool, count)| Choice { tool, count })
            .collect();
        // By count descending, then tool (no call first): tools are
        // distinct, so the order is total.
        choices.sort_unstable_by(|a, b| b.count.cmp(&a.count).then_with(|| a.tool.cmp(&b.tool)));
        varying.push(TaskChoices {
            catalogue,
            task_id,
            trials,
            choices,
        });
    }
    // (catalogue, task) is unique: the order is total.
    varying.sort_unstable_by(|a, b| {
        b.distinct()
            .cmp(&a.distinct())
            .then_with(|| a.top_share().total_cmp(&b.top_share()))
            .then_with(|| a.catalogue.cmp(&b.catalogue))
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
    Consistency {
        rate: Rate::new(varying.len() as u64, with_trials),
        varying,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(cat: &str, task: &str, sel: Option<&str>) -> (FirstChoice, u64) {
        (
            FirstChoice {
                catalogue: Some(cat.into()),
                task_id: task.into(),
                selected: sel.map(str::to_string),
            },
            1,
        )
    }

    #[test]
    fn varying_tasks_most_varied_first() {
        let c = consistency(vec![
            // t1 on m: a, a, b → varies (2 tools, top share 2/3)
            first("m", "t1", Some("a")),
            first("m", "t1", Some("b")),
            first("m", "t1", Some("a")),
            // t2 on m: a, b, no call → 3 tools
            first("m", "t2", Some("a")),
            first("m", "t2", None),
            first("m", "t2", Some("b")),
            // t3 on m: a, a → consistent
            first("m", "t3", Some("a")),
            first("m", "t3", Some("a")),
            // t4 on m: one trial → not counted
            first("m", "t4", Some("a")),
            // t1 on n: b, a → varies, top share 1/2
            first("n", "t1", Some("b")),
            first("n", "t1", Some("a")),
        ]);
        assert_eq!(c.rate, Rate::new(3, 4));
        let order: Vec<(&str, &str, u64, f64)> = c
            .varying
            .iter()
            .map(|t| {
                (
                    t.catalogue.as_deref().unwrap(),
                    t.task_id.as_str(),
                    t.distinct(),
                    t.top_share(),
                )
            })
            .collect();
        assert_eq!(
            order,
            vec![
                ("m", "t2", 3, 1.0 / 3.0),
                ("n", "t1", 2, 0.5),
                ("m", "t1", 2, 2.0 / 3.0)
            ]
        );
        // Counts first, then no call before names, then by name.
        let choice = |tool: Option<&str>, count| Choice {
            tool: tool.map(str::to_string),
            count,
        };
        assert_eq!(
            c.varying[0].choices,
            vec![choice(None, 1), choice(Some("a"), 1), choice(Some("b"), 1)]
        );
        assert_eq!(
            c.varying[2].choices,
            vec![choice(Some("a"), 2), choice(Some("b"), 1)]
        );
    }

    #[test]
    fn no_task_with_two_trials_is_an_empty_rate() {
        let c = consistency(vec![first("m", "t1", Some("a"))]);
        assert_eq!(c.rate, Rate::new(0, 0));
        assert!(c.varying.is_empty());
    }
}
