//! Aggregates of `ladder.md` over any filtered set of decisions: the ladder
//! counts, the routing rates, pass^k, definition tokens, confusion cells,
//! refusals by reason and tool usage; and the four metrics over runs with
//! expectations (`expectations.md`). Pure: facts in, numbers out.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::model::Rung;

pub mod budget;
pub mod compare;
pub mod consistency;
pub mod diff;
mod expect;
mod matrix;
pub mod stats;
mod trend;
pub use expect::{ExpectAcc, ExpectationFacts, ExpectationMetrics};
pub use matrix::{Matrix, matrix};
pub use trend::{RefusalTrend, refusal_trend, runs_affected};

/// A rate with its numerator and denominator; `value` is null when the
/// denominator is 0.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Rate {
    pub value: Option<f64>,
    pub numerator: u64,
    pub denominator: u64,
}

impl Rate {
    pub fn new(numerator: u64, denominator: u64) -> Rate {
        Rate {
            value: (denominator > 0).then(|| numerator as f64 / denominator as f64),
            numerator,
            denominator,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    num: u64,
    den: u64,
}

impl Tally {
    fn count(&mut self, in_denominator: bool, in_numerator: bool) {
        if in_denominator {
            self.den += 1;
            if in_numerator {
                self.num += 1;
            }
        }
    }
    fn rate(self) -> Rate {
        Rate::new(self.num, self.den)
    }
}

/// What the metrics need of one classified decision.
#[derive(Debug, Clone, Copy, Default)]
pub struct DecisionFacts {
    pub rung: Option<Rung>,
    pub labelled: bool,
    pub in_registry: bool,
    pub in_exposed: bool,
    pub in_retrieved: bool,
    pub selected_ok: bool,
    pub retrieval_k: Option<u32>,
    pub is_first: bool,
    pub recovered: bool,
    pub abstain_expected: bool,
    pub abstained: bool,
    pub no_call_expected: bool,
    pub no_call: bool,
    pub violated: bool,
    pub definition_tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassK {
    pub value: f64,
    pub tasks: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefinitionTokens {
    pub mean: Option<f64>,
    pub p50: Option<u64>,
    pub p95: Option<u64>,
    pub decisions: u64,
}

/// `rung report metrics --format json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    pub capability_coverage: Rate,
    pub exposure_recall: Rate,
    pub tool_recall_at_k: BTreeMap<u32, Rate>,
    pub selection_accuracy: Rate,
    pub abstention_accuracy: Rate,
    pub no_call_accuracy: Rate,
    pub violation_rate: Rate,
    pub first_call_accuracy: Rate,
    pub recovery_within_3: Rate,
    pub pass_hat_k: BTreeMap<u32, PassK>,
    pub definition_tokens: DefinitionTokens,
    /// Tasks whose first tool varies across trials on one catalogue, over
    /// tasks with two or more trials (`consistency`); filled in by the
    /// caller that knows the runs.
    pub inconsistent_tasks: Rate,
    /// The four metrics over runs with expectations (format v1.1), as
    /// top-level keys beside the others.
    #[serde(flatten)]
    pub expectations: ExpectationMetrics,
}

/// `rung report ladder --format json`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LadderCounts {
    pub decisions: u64,
    pub labelled: u64,
    /// By rung, in [`Rung::ALL`] order.
    pub rungs: [u64; Rung::COUNT],
}

impl LadderCounts {
    pub fn add(&mut self, rung: Rung, labelled: bool) {
        self.decisions += 1;
        if labelled {
            self.labelled += 1;
        }
        self.rungs[rung as usize] += 1;
    }

    pub fn count(&self, rung: Rung) -> u64 {
        self.rungs[rung as usize]
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut rungs = serde_json::Map::new();
        for r in Rung::ALL {
            rungs.insert(r.as_str().into(), self.count(*r).into());
        }
        serde_json::json!({"decisions": self.decisions, "labelled": self.labelled, "rungs": rungs})
    }
}

/// Accumulates the decision-level metrics one decision at a time.
#[derive(Debug, Default)]
pub struct MetricsAcc {
    coverage: Tally,
    exposure: Tally,
    recall: BTreeMap<u32, Tally>,
    selection: Tally,
    abstention: Tally,
    no_call: Tally,
    violation: Tally,
    first_call: Tally,
    recovery: Tally,
    tokens: Vec<u64>,
}

/// How many numbers [`MetricsAcc::tallies`] gives: the denominator and the
/// numerator of coverage, exposure recall, recall at k, selection,
/// abstention, no-call, violation, first call and recovery, in that order.
pub const TALLIES: usize = 18;

impl MetricsAcc {
    pub fn add(&mut self, f: &DecisionFacts) {
        if let Some(t) = f.definition_tokens {
            self.tokens.push(t);
        }
        self.add_tallies(f.retrieval_k, &MetricsAcc::tallies(f));
    }

    /// What one decision adds to each tally (see [`TALLIES`]): counts kept
    /// elsewhere are sums of these.
    pub fn tallies(f: &DecisionFacts) -> [u64; TALLIES] {
        let mut t = [Tally::default(); TALLIES / 2];
        if f.labelled {
            t[0].count(true, f.in_registry);
            t[1].count(f.in_registry, f.in_exposed);
            if f.retrieval_k.is_some() {
                t[2].count(f.in_exposed, f.in_retrieved);
            }
            t[3].count(f.in_retrieved, f.selected_ok);
            t[4].count(f.abstain_expected, f.abstained);
            t[5].count(f.no_call_expected, f.no_call);
            t[6].count(true, f.violated);
            t[7].count(f.is_first, f.selected_ok);
            t[8].count(f.is_first && !f.selected_ok, f.recovered);
        }
        let mut out = [0; TALLIES];
        for (i, t) in t.iter().enumerate() {
            out[2 * i] = t.den;
            out[2 * i + 1] = t.num;
        }
        out
    }

    /// Adds summed [`MetricsAcc::tallies`] of decisions with retrieval `k`
    /// (every recorded k has its rate, null when nothing labelled counts
    /// towards it).
    pub fn add_tallies(&mut self, k: Option<u32>, c: &[u64; TALLIES]) {
        let mut tallies = [
            &mut self.coverage,
            &mut self.exposure,
            &mut Tally::default(),
            &mut self.selection,
            &mut self.abstention,
            &mut self.no_call,
            &mut self.violation,
            &mut self.first_call,
            &mut self.recovery,
        ];
        for (i, t) in tallies.iter_mut().enumerate() {
            if i != 2 {
                t.den += c[2 * i];
                t.num += c[2 * i + 1];
            }
        }
        if let Some(k) = k {
            let r = self.recall.entry(k).or_default();
            r.den += c[4];
            r.num += c[5];
        }
    }

    /// Adds `n` decisions whose definitions took `tokens` tokens.
    pub fn add_tokens(&mut self, tokens: u64, n: u64) {
        self.tokens.extend(std::iter::repeat_n(tokens, n as usize));
    }

    pub fn finish(mut self, pass_hat_k: BTreeMap<u32, PassK>) -> Metrics {
        Metrics {
            capability_coverage: self.coverage.rate(),
            exposure_recall: self.exposure.rate(),
            tool_recall_at_k: self.recall.iter().map(|(k, t)| (*k, t.rate())).collect(),
            selection_accuracy: self.selection.rate(),
            abstention_accuracy: self.abstention.rate(),
            no_call_accuracy: self.no_call.rate(),
            violation_rate: self.violation.rate(),
            first_call_accuracy: self.first_call.rate(),
            recovery_within_3: self.recovery.rate(),
            pass_hat_k,
            definition_tokens: definition_tokens(&mut self.tokens),
            inconsistent_tasks: Rate::default(),
            expectations: ExpectationMetrics::default(),
        }
    }
}

/// Nearest-rank percentile `p` (1..=100) of sorted values.
pub fn nearest_rank(sorted: &[u64], p: u64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as u64).div_ceil(100).max(1);
    Some(sorted[(rank - 1) as usize])
}

pub fn definition_tokens(values: &mut [u64]) -> DefinitionTokens {
    values.sort_unstable();
    let n = values.len() as u64;
    DefinitionTokens {
        mean: (n > 0).then(|| values.iter().sum::<u64>() as f64 / n as f64),
        p50: nearest_rank(values, 50),
        p95: nearest_rank(values, 95),
        decisions: n,
    }
}

/// C(n, k) exactly while it fits, else in floating point.
fn choose(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        match acc.checked_mul((n - i) as u128) {
            Some(v) => acc = v / (i as u128 + 1),
            None => {
                let mut f = 1.0f64;
                for j in 0..k {
                    f = f * (n - j) as f64 / (j + 1) as f64;
                }
                return f;
            }
        }
    }
    acc as f64
}

/// pass^k by τ-bench's estimator: for each k, the mean over tasks with
/// n ≥ k trials of C(c,k)/C(n,k). `tasks` yields (n, c) per task.
pub fn pass_hat_k(tasks: &[(u64, u64)]) -> BTreeMap<u32, PassK> {
    let max_n = tasks.iter().map(|(n, _)| *n).max().unwrap_or(0);
    let mut out = BTreeMap::new();
    for k in 1..=max_n {
        let eligible: Vec<&(u64, u64)> = tasks.iter().filter(|(n, _)| *n >= k).collect();
        let sum: f64 = eligible
            .iter()
            .map(|(n, c)| choose(*c, k) / choose(*n, k))
            .sum();
        out.insert(
            k as u32,
            PassK {
                value: sum / eligible.len() as f64,
                tasks: eligible.len() as u64,
            },
        );
    }
    out
}

/// Groups run outcomes into (n, c) per task, in task order (pass^k adds
/// them up in that order). Hashed as they come and the tasks sorted once:
/// half a million runs in an ordered map compared their names 8 million
/// times.
pub fn task_outcomes<'a>(runs: impl IntoIterator<Item = (&'a str, bool)>) -> Vec<(u64, u64)> {
    let mut by_task: rustc_hash::FxHashMap<&str, (u64, u64)> = Default::default();
    for (task, success) in runs {
        let e = by_task.entry(task).or_default();
        e.0 += 1;
        if success {
            e.1 += 1;
        }
    }
    let mut tasks: Vec<(&str, (u64, u64))> = by_task.into_iter().collect();
    // Task names are distinct: the order is total.
    tasks.sort_unstable_by_key(|(task, _)| *task);
    tasks.into_iter().map(|(_, outcome)| outcome).collect()
}

/// One confusion cell: the acceptable set and what was selected instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    pub acceptable: Vec<String>,
    pub selected: Option<String>,
    pub count: u64,
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confusions {
    pub selection_failures: u64,
    pub cells: Vec<Cell>,
}

/// Compares strings by Unicode code point (UTF-8 byte order is the same).
fn cmp_opt(a: &Option<String>, b: &Option<String>) -> std::cmp::Ordering {
    // null first, then by code point
    a.cmp(b)
}

/// Confusion cells over SELECTION failures: (sorted acceptable, selected).
pub fn confusions(failures: impl IntoIterator<Item = (Vec<String>, Option<String>)>) -> Confusions {
    confusions_counted(failures.into_iter().map(|f| (f, 1)))
}

/// [`confusions`] from failures already counted: each (acceptable,
/// selected) pair with how many failures it stands for (a pair may come
/// more than once, and lists in any order: they are summed).
pub fn confusions_counted(
    failures: impl IntoIterator<Item = ((Vec<String>, Option<String>), u64)>,
) -> Confusions {
    let mut counts: HashMap<(Vec<String>, Option<String>), u64> = HashMap::new();
    let mut total = 0;
    for ((mut acceptable, selected), n) in failures {
        if n == 0 {
            continue;
        }
        acceptable.sort();
        acceptable.dedup();
        *counts.entry((acceptable, selected)).or_default() += n;
        total += n;
    }
    let mut cells: Vec<Cell> = counts
        .into_iter()
        .map(|((acceptable, selected), count)| Cell {
            acceptable,
            selected,
            count,
            share: count as f64 / total as f64,
        })
        .collect();
    cells.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.acceptable.cmp(&b.acceptable))
            .then_with(|| cmp_opt(&a.selected, &b.selected))
    });
    Confusions {
        selection_failures: total,
        cells,
    }
}

/// The share of all SELECTION failures that the top `n` cells explain.
pub fn top_share(c: &Confusions, n: usize) -> Option<f64> {
    (c.selection_failures > 0).then(|| {
        c.cells.iter().take(n).map(|x| x.count).sum::<u64>() as f64 / c.selection_failures as f64
    })
}

/// One refused decision as the refusal report needs it.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub reason: Option<String>,
    pub stage: String,
    pub run_id: String,
    pub time_us: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefusalRow {
    pub reason: Option<String>,
    pub stage: String,
    pub count: u64,
    pub runs: u64,
    pub previous: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RefusalReport {
    pub since_us: i64,
    pub until_us: i64,
    pub rows: Vec<RefusalRow>,
    pub undated: u64,
}

/// Refusals by (reason, stage) in `[since, until)`, with the count in the
/// window of the same length just before.
pub fn refusals(
    items: impl IntoIterator<Item = Refusal>,
    since_us: i64,
    until_us: i64,
) -> RefusalReport {
    let prev_since = since_us - (until_us - since_us);
    type Key = (Option<String>, String);
    let mut current: HashMap<Key, (u64, HashSet<String>)> = HashMap::new();
    let mut previous: HashMap<Key, u64> = HashMap::new();
    let mut undated = 0;
    for r in items {
        let Some(t) = r.time_us else {
            undated += 1;
            continue;
        };
        let key = (r.reason, r.stage);
        if t >= since_us && t < until_us {
            let e = current.entry(key).or_default();
            e.0 += 1;
            e.1.insert(r.run_id);
        } else if t >= prev_since && t < since_us {
            *previous.entry(key).or_default() += 1;
        }
    }
    let mut keys: HashSet<Key> = current.keys().cloned().collect();
    keys.extend(previous.keys().cloned());
    let mut rows: Vec<RefusalRow> = keys
        .into_iter()
        .map(|k| {
            let (count, runs) = current
                .get(&k)
                .map(|(c, r)| (*c, r.len() as u64))
                .unwrap_or((0, 0));
            RefusalRow {
                previous: previous.get(&k).copied().unwrap_or(0),
                reason: k.0,
                stage: k.1,
                count,
                runs,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| cmp_opt(&a.reason, &b.reason))
            .then_with(|| a.stage.cmp(&b.stage))
    });
    RefusalReport {
        since_us,
        until_us,
        rows,
        undated,
    }
}

/// Per catalogue tool usage (`rung report tools`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUsage {
    pub name: String,
    pub catalogue: String,
    pub family: String,
    pub effect: String,
    pub visible: u64,
    pub selected: u64,
    pub selected_wrongly: u64,
    pub refused: u64,
    /// `refused` by the refusal's reason; a refusal without a reason is
    /// counted under `""`.
    pub refused_by_reason: BTreeMap<String, u64>,
    pub never_selected: bool,
    /// A trusted control of a decision on its catalogue (in the filter):
    /// always visible and rightly seldom chosen, so never in the pruning
    /// queue.
    pub trusted_control: bool,
}

impl ToolUsage {
    /// In the pruning queue: never selected, and not a trusted control.
    pub fn prunable(&self) -> bool {
        self.never_selected && !self.trusted_control
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_denominators_are_null() {
        let m = MetricsAcc::default().finish(BTreeMap::new());
        assert_eq!(m.selection_accuracy, Rate::new(0, 0));
        assert_eq!(m.selection_accuracy.value, None);
        assert_eq!(
            serde_json::to_string(&m.violation_rate).unwrap(),
            r#"{"value":null,"numerator":0,"denominator":0}"#
        );
        assert_eq!(
            serde_json::to_value(&m.definition_tokens).unwrap(),
            serde_json::json!({"mean": null, "p50": null, "p95": null, "decisions": 0})
        );
    }

    #[test]
    fn pass_hat_k_matches_tau_bench() {
        // task A: 4 trials, 2 successes; task B: 4 trials, 4; task C: 2 trials, 1.
        let tasks = [(4, 2), (4, 4), (2, 1)];
        let p = pass_hat_k(&tasks);
        // k=1: (2/4 + 4/4 + 1/2) / 3
        assert_eq!(
            p[&1],
            PassK {
                value: (0.5 + 1.0 + 0.5) / 3.0,
                tasks: 3
            }
        );
        // k=2: (C(2,2)/C(4,2) + 1 + 0) / 3 = (1/6 + 1 + 0) / 3
        assert_eq!(p[&2].tasks, 3);
        assert!((p[&2].value - (1.0 / 6.0 + 1.0) / 3.0).abs() < 1e-15);
        // k=3: only A and B: (0 + 1) / 2
        assert_eq!(
            p[&3],
            PassK {
                value: 0.5,
                tasks: 2
            }
        );
        assert_eq!(
            p[&4],
            PassK {
                value: 0.5,
                tasks: 2
            }
        );
        assert_eq!(p.len(), 4);
    }

    #[test]
    fn every_recorded_k_has_a_rate() {
        let mut acc = MetricsAcc::default();
        // k=8 only on an unlabelled decision: present, with an empty denominator.
        acc.add(&DecisionFacts {
            retrieval_k: Some(8),
            ..DecisionFacts::default()
        });
        acc.add(&DecisionFacts {
            labelled: true,
            in_registry: true,
            in_exposed: true,
            in_retrieved: true,
            selected_ok: true,
            retrieval_k: Some(4),
            ..DecisionFacts::default()
        });
        let m = acc.finish(BTreeMap::new());
        assert_eq!(m.tool_recall_at_k[&8], Rate::new(0, 0));
        assert_eq!(m.tool_recall_at_k[&4], Rate::new(1, 1));
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(nearest_rank(&v, 50), Some(10));
        assert_eq!(nearest_rank(&v, 95), Some(19));
        assert_eq!(nearest_rank(&[7], 95), Some(7));
        let d = definition_tokens(&mut [5, 1, 3]);
        assert_eq!(d.mean, Some(3.0));
        assert_eq!(d.p50, Some(3));
        assert_eq!(d.p95, Some(5));
    }

    /// Each cell's acceptable list, selected tool and count, in order.
    fn cells(c: &Confusions) -> Vec<(Vec<String>, Option<String>, u64)> {
        c.cells
            .iter()
            .map(|c| (c.acceptable.clone(), c.selected.clone(), c.count))
            .collect()
    }

    #[test]
    fn confusion_cells_sorted() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let c = confusions(vec![
            (s(&["b"]), Some("x".into())),
            (s(&["a", "b"]), None),
            (s(&["a"]), Some("y".into())),
            (s(&["a"]), Some("x".into())),
            (s(&["b", "a"]), Some("z".into())),
            (s(&["b"]), Some("x".into())),
        ]);
        assert_eq!(c.selection_failures, 6);
        assert_eq!(
            cells(&c),
            vec![
                (s(&["b"]), Some("x".into()), 2),
                (s(&["a"]), Some("x".into()), 1),
                (s(&["a"]), Some("y".into()), 1),
                (s(&["a", "b"]), None, 1),
                (s(&["a", "b"]), Some("z".into()), 1),
            ]
        );
        assert_eq!(c.cells[0].share, 2.0 / 6.0);
        assert_eq!(top_share(&c, 2), Some(3.0 / 6.0));
    }

    #[test]
    fn counted_confusions_are_the_failures_one_by_one() {
        // The kept counts hand over each (list, selected) once per group
        // and day: the same pair twice, lists in either order, a zero.
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let c = confusions_counted(vec![
            ((s(&["b"]), Some("x".into())), 1),
            ((s(&["a", "b"]), None), 1),
            ((s(&["a"]), Some("y".into())), 0),
            ((s(&["a"]), Some("x".into())), 1),
            ((s(&["b", "a", "b"]), None), 2),
            ((s(&["b"]), Some("x".into())), 3),
        ]);
        assert_eq!(c.selection_failures, 8);
        assert_eq!(
            cells(&c),
            vec![
                (s(&["b"]), Some("x".into()), 4),
                (s(&["a", "b"]), None, 3),
                (s(&["a"]), Some("x".into()), 1),
            ]
        );
        assert_eq!(c.cells[1].share, 3.0 / 8.0);
    }

    #[test]
    fn refusal_windows() {
        let r = |reason: &str, run: &str, t: Option<i64>| Refusal {
            reason: Some(reason.into()),
            stage: "authorization".into(),
            run_id: run.into(),
            time_us: t,
        };
        let rep = refusals(
            vec![
                r("outside_intent", "r1", Some(10)),
                r("outside_intent", "r1", Some(11)),
                r("outside_intent", "r2", Some(19)),
                r("outside_intent", "r3", Some(5)),
                r("gone", "r3", Some(0)),
                r("late", "r3", Some(20)),
                r("x", "r4", None),
            ],
            10,
            20,
        );
        assert_eq!(rep.undated, 1);
        assert_eq!(
            rep.rows,
            vec![
                RefusalRow {
                    reason: Some("outside_intent".into()),
                    stage: "authorization".into(),
                    count: 3,
                    runs: 2,
                    previous: 1
                },
                RefusalRow {
                    reason: Some("gone".into()),
                    stage: "authorization".into(),
                    count: 0,
                    runs: 0,
                    previous: 1
                },
            ]
        );
    }
}
