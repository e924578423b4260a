//! Menus compared on the same tasks (`rung compare`): each menu's figures
//! over its own attempts, and for each metric the change against the base
//! with a paired test on what both menus ran, the admission gate, and the
//! repair a confusion cell's counterfactual menus point to. Pure: attempts
//! in, figures out.
//!
//! An attempt is a run. Two menus' attempts pair by (task, trial) when the
//! trials line up: every attempt of the tasks both ran has a trial, and no
//! (task, trial) repeats within a menu. Then a metric with at most one
//! counted decision per attempt is tested with McNemar's exact test on the
//! pairs; otherwise (trials missing or repeated, or several counted
//! decisions per attempt) with a sign test over the tasks both ran.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::budget::Percentiles;
use super::stats::{mcnemar_exact, one_sided_worse, sign_test};
use super::{PassK, Rate, pass_hat_k, task_outcomes};

mod cell;
mod gate;

pub use cell::{CellChange, CellResult, Repair, Verdict, cell_change, verdict};
pub use gate::{Gate, GateCheck, gate};

/// What a menu's first decision of a run did (labelled first decisions only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstCall {
    pub ok: bool,
    /// A wrong first call whose run selected an acceptable tool within 3
    /// turns.
    pub recovered: bool,
}

/// One run on one menu, as compare needs it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Attempt {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<i64>,
    /// The labelled first decision, when the run has one on this menu.
    pub first: Option<FirstCall>,
    pub success: Option<bool>,
    /// (numerator, denominator) of the decision-level rates over the run's
    /// decisions on this menu.
    pub selection: (u64, u64),
    pub abstention: (u64, u64),
    pub no_call: (u64, u64),
    pub violation: (u64, u64),
    /// Definition tokens of each turn (see `budget::Turn`).
    pub tokens: Vec<u64>,
}

/// The metrics compare shows, in their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    FirstCall,
    Recovered,
    Unrecovered,
    Selection,
    Abstention,
    NoCall,
    Violation,
    PassK(u32),
    TokensP50,
    TokensP95,
}

impl Metric {
    /// The json key (dotted for pass^k, as `rung check` names it).
    pub fn key(self) -> String {
        match self {
            Metric::FirstCall => "first_call_accuracy".into(),
            Metric::Recovered => "recovered_within_3".into(),
            Metric::Unrecovered => "unrecovered".into(),
            Metric::Selection => "selection_accuracy".into(),
            Metric::Abstention => "abstention_accuracy".into(),
            Metric::NoCall => "no_call_accuracy".into(),
            Metric::Violation => "violation_rate".into(),
            Metric::PassK(k) => format!("pass_hat_k.{k}"),
            Metric::TokensP50 => "definition_tokens_per_turn.p50".into(),
            Metric::TokensP95 => "definition_tokens_per_turn.p95".into(),
        }
    }

    /// How a reader names it.
    pub fn label(self) -> String {
        match self {
            Metric::FirstCall => "first-call accuracy".into(),
            Metric::Recovered => "wrong first, recovered ≤3".into(),
            Metric::Unrecovered => "wrong first, unrecovered".into(),
            Metric::Selection => "selection accuracy".into(),
            Metric::Abstention => "abstention accuracy".into(),
            Metric::NoCall => "no-call accuracy".into(),
            Metric::Violation => "violation rate".into(),
            Metric::PassK(k) => format!("pass^{k}"),
            Metric::TokensP50 => "def. tokens/turn p50".into(),
            Metric::TokensP95 => "def. tokens/turn p95".into(),
        }
    }

    /// Whether a higher value is better (`None`: neither, e.g. recovered
    /// wrong calls, which are both a wrong call and a recovery).
    pub fn higher_is_better(self) -> Option<bool> {
        match self {
            Metric::Recovered => None,
            Metric::Unrecovered | Metric::Violation | Metric::TokensP50 | Metric::TokensP95 => {
                Some(false)
            }
            _ => Some(true),
        }
    }

    /// The attempt's (numerator, denominator) for a rate metric.
    fn of(self, a: &Attempt) -> Option<(u64, u64)> {
        let first = |f: fn(FirstCall) -> bool| a.first.map(|x| (f(x) as u64, 1));
        let nonzero = |r: (u64, u64)| (r.1 > 0).then_some(r);
        match self {
            Metric::FirstCall => first(|f| f.ok),
            Metric::Recovered => first(|f| !f.ok && f.recovered),
            Metric::Unrecovered => first(|f| !f.ok && !f.recovered),
            Metric::Selection => nonzero(a.selection),
            Metric::Abstention => nonzero(a.abstention),
            Metric::NoCall => nonzero(a.no_call),
            Metric::Violation => nonzero(a.violation),
            Metric::PassK(1) => a.success.map(|s| (s as u64, 1)),
            _ => None,
        }
    }

    fn is_rate(self) -> bool {
        !matches!(
            self,
            Metric::TokensP50 | Metric::TokensP95 | Metric::PassK(2..)
        )
    }
}

/// One menu's figures over its own attempts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MenuSummary {
    pub catalogue: String,
    /// Runs with a decision on this menu.
    pub attempts: u64,
    /// Attempts whose first decision is labelled.
    pub labelled: u64,
    /// Distinct tasks of those attempts.
    pub tasks: u64,
    pub first_call_accuracy: Rate,
    /// Wrong first calls recovered within 3 turns, over labelled attempts.
    pub recovered_within_3: Rate,
    /// Wrong first calls never recovered, over labelled attempts.
    pub unrecovered: Rate,
    pub selection_accuracy: Rate,
    pub abstention_accuracy: Rate,
    pub no_call_accuracy: Rate,
    pub violation_rate: Rate,
    pub pass_hat_k: BTreeMap<u32, PassK>,
    pub definition_tokens_per_turn: Percentiles,
}

impl MenuSummary {
    pub fn rate(&self, m: Metric) -> Option<Rate> {
        Some(match m {
            Metric::FirstCall => self.first_call_accuracy,
            Metric::Recovered => self.recovered_within_3,
            Metric::Unrecovered => self.unrecovered,
            Metric::Selection => self.selection_accuracy,
            Metric::Abstention => self.abstention_accuracy,
            Metric::NoCall => self.no_call_accuracy,
            Metric::Violation => self.violation_rate,
            _ => return None,
        })
    }

    /// A metric's value (a rate's share, pass^k, or tokens).
    pub fn value(&self, m: Metric) -> Option<f64> {
        match m {
            Metric::PassK(k) => self.pass_hat_k.get(&k).map(|p| p.value),
            Metric::TokensP50 => self.definition_tokens_per_turn.p50.map(|v| v as f64),
            Metric::TokensP95 => self.definition_tokens_per_turn.p95.map(|v| v as f64),
            m => self.rate(m).and_then(|r| r.value),
        }
    }
}

fn sum_rate(attempts: &[&Attempt], m: Metric) -> Rate {
    let (n, d) = attempts
        .iter()
        .filter_map(|a| m.of(a))
        .fold((0, 0), |(n, d), (a, b)| (n + a, d + b));
    Rate::new(n, d)
}

fn tasks_of(attempts: &[&Attempt]) -> Vec<(u64, u64)> {
    task_outcomes(attempts.iter().filter_map(|a| {
        a.success
            .map(|s| (a.task_id.as_deref().unwrap_or(a.run_id.as_str()), s))
    }))
}

fn tokens_of(attempts: &[&Attempt]) -> Percentiles {
    let mut t: Vec<u64> = attempts
        .iter()
        .flat_map(|a| a.tokens.iter().copied())
        .collect();
    Percentiles::of(&mut t)
}

/// A menu's figures over `attempts`.
pub fn summarize(catalogue: &str, attempts: &[Attempt]) -> MenuSummary {
    let all: Vec<&Attempt> = attempts.iter().collect();
    let tasks: BTreeSet<&str> = attempts
        .iter()
        .filter_map(|a| a.task_id.as_deref())
        .collect();
    MenuSummary {
        catalogue: catalogue.to_string(),
        attempts: attempts.len() as u64,
        labelled: attempts.iter().filter(|a| a.first.is_some()).count() as u64,
        tasks: tasks.len() as u64,
        first_call_accuracy: sum_rate(&all, Metric::FirstCall),
        recovered_within_3: sum_rate(&all, Metric::Recovered),
        unrecovered: sum_rate(&all, Metric::Unrecovered),
        selection_accuracy: sum_rate(&all, Metric::Selection),
        abstention_accuracy: sum_rate(&all, Metric::Abstention),
        no_call_accuracy: sum_rate(&all, Metric::NoCall),
        violation_rate: sum_rate(&all, Metric::Violation),
        pass_hat_k: pass_hat_k(&tasks_of(&all)),
        definition_tokens_per_turn: tokens_of(&all),
    }
}

/// The metrics to compare for these menus: the rates, pass^k for every k
/// any menu has, and the token percentiles.
pub fn metrics_of(menus: &[&MenuSummary]) -> Vec<Metric> {
    let mut v = vec![
        Metric::FirstCall,
        Metric::Recovered,
        Metric::Unrecovered,
        Metric::Selection,
        Metric::Abstention,
        Metric::NoCall,
        Metric::Violation,
    ];
    let ks: BTreeSet<u32> = menus
        .iter()
        .flat_map(|m| m.pass_hat_k.keys().copied())
        .collect();
    v.extend(ks.into_iter().map(Metric::PassK));
    v.extend([Metric::TokensP50, Metric::TokensP95]);
    v
}

/// Which test a change was judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// McNemar's exact test on attempts paired by task and trial.
    Mcnemar,
    /// A sign test over paired attempts (token figures, trials lined up).
    SignAttempts,
    /// A sign test over the tasks both menus ran.
    SignTasks,
}

impl Test {
    pub fn as_str(self) -> &'static str {
        match self {
            Test::Mcnemar => "mcnemar",
            Test::SignAttempts => "sign_attempts",
            Test::SignTasks => "sign_tasks",
        }
    }
}

/// One metric's change from the base to a candidate, on what both ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub metric: Metric,
    /// The base's value on the paired units.
    pub base: Option<f64>,
    /// The candidate's value on the paired units.
    pub candidate: Option<f64>,
    /// candidate − base.
    pub change: Option<f64>,
    pub test: Test,
    /// Paired units that entered the test (attempt pairs or tasks).
    pub pairs: u64,
    /// Units where the candidate is higher, and lower (ties left out).
    pub up: u64,
    pub down: u64,
    /// Two-sided; null only when nothing paired.
    pub p_value: Option<f64>,
    /// The p-value is at most alpha.
    pub significant: bool,
}

impl serde::Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl Change {
    /// One-sided: how unlikely it is, were the menus alike, that the
    /// candidate is this much worse (null for a metric with no better
    /// direction, or nothing paired).
    pub fn p_worse(&self) -> Option<f64> {
        let higher = self.metric.higher_is_better()?;
        self.p_value?;
        Some(if higher {
            one_sided_worse(self.down, self.up)
        } else {
            one_sided_worse(self.up, self.down)
        })
    }
}

/// How the two menus' attempts pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pairing {
    /// Tasks both menus ran.
    pub tasks: u64,
    /// Trials line up: attempts pair by (task, trial).
    pub by_trial: bool,
    /// Attempts paired by (task, trial) (0 when trials do not line up).
    pub attempts: u64,
}

/// A candidate against the base: the pairing and every metric's change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub candidate: String,
    pub pairing: Pairing,
    pub changes: Vec<Change>,
}

type TrialKey<'a> = (&'a str, i64);

/// The attempts of the tasks both menus ran, and whether their trials line
/// up (then the (task, trial) pairs).
struct Paired<'a> {
    tasks: BTreeSet<&'a str>,
    pairs: Option<Vec<(&'a Attempt, &'a Attempt)>>,
    base: Vec<&'a Attempt>,
    cand: Vec<&'a Attempt>,
}

fn pair<'a>(base: &'a [Attempt], cand: &'a [Attempt]) -> Paired<'a> {
    let tasks_b: BTreeSet<&str> = base.iter().filter_map(|a| a.task_id.as_deref()).collect();
    let tasks_c: BTreeSet<&str> = cand.iter().filter_map(|a| a.task_id.as_deref()).collect();
    let tasks: BTreeSet<&str> = tasks_b.intersection(&tasks_c).copied().collect();
    let keep = |xs: &'a [Attempt]| -> Vec<&'a Attempt> {
        xs.iter()
            .filter(|a| a.task_id.as_deref().is_some_and(|t| tasks.contains(t)))
            .collect()
    };
    let (b, c) = (keep(base), keep(cand));
    let index = |xs: &[&'a Attempt]| -> Option<HashMap<TrialKey<'a>, &'a Attempt>> {
        let mut m = HashMap::new();
        for a in xs {
            let key = (a.task_id.as_deref()?, a.trial?);
            if m.insert(key, *a).is_some() {
                return None;
            }
        }
        Some(m)
    };
    let pairs = match (index(&b), index(&c)) {
        (Some(ib), Some(ic)) => {
            let mut v: Vec<(TrialKey, &Attempt, &Attempt)> = ib
                .iter()
                .filter_map(|(k, x)| ic.get(k).map(|y| (*k, *x, *y)))
                .collect();
            v.sort_by(|x, y| x.0.cmp(&y.0));
            Some(v.into_iter().map(|(_, x, y)| (x, y)).collect())
        }
        _ => None,
    };
    Paired {
        tasks,
        pairs,
        base: b,
        cand: c,
    }
}

fn by_task<'a>(xs: &[&'a Attempt]) -> BTreeMap<&'a str, Vec<&'a Attempt>> {
    let mut m: BTreeMap<&str, Vec<&Attempt>> = BTreeMap::new();
    for a in xs {
        if let Some(t) = a.task_id.as_deref() {
            m.entry(t).or_default().push(a);
        }
    }
    m
}

fn mean(v: &[u64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<u64>() as f64 / v.len() as f64)
}

/// Counts units by whether the candidate's value is higher or lower.
fn signs(units: &[(f64, f64)]) -> (u64, u64) {
    let up = units.iter().filter(|(b, c)| c > b).count() as u64;
    let down = units.iter().filter(|(b, c)| c < b).count() as u64;
    (up, down)
}

fn change(
    metric: Metric,
    base: Option<f64>,
    candidate: Option<f64>,
    test: Test,
    pairs: u64,
    up_down: (u64, u64),
    alpha: f64,
) -> Change {
    let (up, down) = up_down;
    let p_value = (pairs > 0).then(|| match test {
        Test::Mcnemar => mcnemar_exact(down, up),
        Test::SignAttempts | Test::SignTasks => sign_test(up, down),
    });
    Change {
        metric,
        change: base.zip(candidate).map(|(b, c)| c - b),
        base,
        candidate,
        test,
        pairs,
        up,
        down,
        significant: p_value.is_some_and(|p| p <= alpha),
        p_value,
    }
}

/// One rate metric, paired.
fn rate_change(p: &Paired, metric: Metric, alpha: f64) -> Change {
    if let Some(pairs) = &p.pairs {
        let used: Vec<((u64, u64), (u64, u64))> = pairs
            .iter()
            .filter_map(|(b, c)| metric.of(b).zip(metric.of(c)))
            .collect();
        if used.iter().all(|(b, c)| b.1 == 1 && c.1 == 1) {
            let nb = used.iter().map(|(b, _)| b.0).sum::<u64>();
            let nc = used.iter().map(|(_, c)| c.0).sum::<u64>();
            let n = used.len() as u64;
            let val = |x: u64| (n > 0).then(|| x as f64 / n as f64);
            let up = used.iter().filter(|(b, c)| c.0 > b.0).count() as u64;
            let down = used.iter().filter(|(b, c)| c.0 < b.0).count() as u64;
            return change(
                metric,
                val(nb),
                val(nc),
                Test::Mcnemar,
                n,
                (up, down),
                alpha,
            );
        }
    }
    // A sign test over tasks: each task's rate on each menu.
    let (tb, tc) = (by_task(&p.base), by_task(&p.cand));
    let mut units = Vec::new();
    let (mut sb, mut sc) = ((0, 0), (0, 0));
    for t in &p.tasks {
        let rb = sum_rate(tb.get(t).map_or(&[][..], |v| v), metric);
        let rc = sum_rate(tc.get(t).map_or(&[][..], |v| v), metric);
        if let (Some(vb), Some(vc)) = (rb.value, rc.value) {
            units.push((vb, vc));
            sb = (sb.0 + rb.numerator, sb.1 + rb.denominator);
            sc = (sc.0 + rc.numerator, sc.1 + rc.denominator);
        }
    }
    change(
        metric,
        Rate::new(sb.0, sb.1).value,
        Rate::new(sc.0, sc.1).value,
        Test::SignTasks,
        units.len() as u64,
        signs(&units),
        alpha,
    )
}

/// pass^k for k ≥ 2: each task's C(c,k)/C(n,k), tasks with k trials on both.
fn pass_change(p: &Paired, k: u32, alpha: f64) -> Change {
    let (tb, tc) = (by_task(&p.base), by_task(&p.cand));
    let mut units = Vec::new();
    for t in &p.tasks {
        let ob = tasks_of(tb.get(t).map_or(&[][..], |v| v));
        let oc = tasks_of(tc.get(t).map_or(&[][..], |v| v));
        let (Some(&(nb, cb)), Some(&(nc, cc))) = (ob.first(), oc.first()) else {
            continue;
        };
        let (Some(vb), Some(vc)) = (
            pass_hat_k(&[(nb, cb)]).get(&k).map(|x| x.value),
            pass_hat_k(&[(nc, cc)]).get(&k).map(|x| x.value),
        ) else {
            continue;
        };
        units.push((vb, vc));
    }
    let n = units.len();
    let avg =
        |f: fn(&(f64, f64)) -> f64| (n > 0).then(|| units.iter().map(f).sum::<f64>() / n as f64);
    change(
        Metric::PassK(k),
        avg(|u| u.0),
        avg(|u| u.1),
        Test::SignTasks,
        n as u64,
        signs(&units),
        alpha,
    )
}

/// Token percentiles: the change in the percentile over the paired
/// attempts (or the tasks both ran), tested by a sign test on each unit's
/// mean tokens per turn.
fn tokens_change(p: &Paired, metric: Metric, alpha: f64) -> Change {
    let pick = |x: Percentiles| {
        if metric == Metric::TokensP50 {
            x.p50
        } else {
            x.p95
        }
        .map(|v| v as f64)
    };
    let (units, b, c, test) = match &p.pairs {
        Some(pairs) => {
            let units: Vec<(f64, f64)> = pairs
                .iter()
                .filter_map(|(b, c)| mean(&b.tokens).zip(mean(&c.tokens)))
                .collect();
            let bs: Vec<&Attempt> = pairs.iter().map(|(b, _)| *b).collect();
            let cs: Vec<&Attempt> = pairs.iter().map(|(_, c)| *c).collect();
            (units, tokens_of(&bs), tokens_of(&cs), Test::SignAttempts)
        }
        None => {
            let (tb, tc) = (by_task(&p.base), by_task(&p.cand));
            let per_task = |v: &[&Attempt]| {
                mean(
                    &v.iter()
                        .flat_map(|a| a.tokens.iter().copied())
                        .collect::<Vec<_>>(),
                )
            };
            let units: Vec<(f64, f64)> = p
                .tasks
                .iter()
                .filter_map(|t| {
                    per_task(tb.get(t).map_or(&[][..], |v| v))
                        .zip(per_task(tc.get(t).map_or(&[][..], |v| v)))
                })
                .collect();
            (
                units,
                tokens_of(&p.base),
                tokens_of(&p.cand),
                Test::SignTasks,
            )
        }
    };
    change(
        metric,
        pick(b),
        pick(c),
        test,
        units.len() as u64,
        signs(&units),
        alpha,
    )
}

/// Every metric's change from `base` to `cand`, paired as the module says.
pub fn compare(
    candidate: &str,
    base: &[Attempt],
    cand: &[Attempt],
    metrics: &[Metric],
    alpha: f64,
) -> Comparison {
    let p = pair(base, cand);
    let changes = metrics
        .iter()
        .map(|&m| match m {
            Metric::TokensP50 | Metric::TokensP95 => tokens_change(&p, m, alpha),
            Metric::PassK(k) if k >= 2 => pass_change(&p, k, alpha),
            m => {
                debug_assert!(m.is_rate() || m == Metric::PassK(1));
                rate_change(&p, m, alpha)
            }
        })
        .collect();
    Comparison {
        candidate: candidate.to_string(),
        pairing: Pairing {
            tasks: p.tasks.len() as u64,
            by_trial: p.pairs.is_some(),
            attempts: p.pairs.as_ref().map_or(0, |v| v.len() as u64),
        },
        changes,
    }
}

#[cfg(test)]
mod tests;
