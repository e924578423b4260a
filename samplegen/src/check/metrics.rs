//! The ladder counts and metrics of ladder.md over a list of classified
//! decisions, the confusion cells and the refusal groups.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Analysis, Classified, NO_CALL, RUNGS};
use crate::model::Status;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Rate {
    pub num: usize,
    pub den: usize,
}

impl Rate {
    pub fn show(&self) -> String {
        if self.den == 0 {
            return "n/a (0/0)".into();
        }
        format!(
            "{}/{} = {:.2}%",
            self.num,
            self.den,
            100.0 * self.num as f64 / self.den as f64
        )
    }
    pub fn value(&self) -> Option<f64> {
        (self.den > 0).then(|| self.num as f64 / self.den as f64)
    }
}

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
    /// k -> (value, tasks)
    pub pass_hat_k: BTreeMap<usize, (f64, usize)>,
    /// (mean, p50, p95, decisions)
    pub definition_tokens: Option<(f64, u64, u64, usize)>,
    /// tasks (per catalogue) whose first tool varies / tasks with two or more runs
    pub inconsistent_tasks: Rate,
}

/// Runs of a task on a catalogue, and the first tools they chose.
type FirstTools<'a> = (usize, BTreeSet<Option<&'a str>>);

/// (reason, stage) -> (count, distinct runs, previous)
type RefusalGroups<'a> =
    BTreeMap<(Option<String>, &'static str), (usize, BTreeSet<&'a str>, usize)>;

pub struct RefusalRow {
    pub reason: Option<String>,
    pub stage: &'static str,
    pub count: usize,
    pub runs: usize,
    pub previous: usize,
}

impl Analysis<'_> {
    pub fn ladder(ds: &[&Classified]) -> BTreeMap<&'static str, usize> {
        let mut m: BTreeMap<&'static str, usize> = RUNGS.iter().map(|r| (*r, 0)).collect();
        for d in ds {
            *m.get_mut(d.rung).unwrap() += 1;
        }
        m
    }

    pub fn metrics(&self, ds: &[&Classified]) -> Metrics {
        let lab: Vec<&&Classified> = ds.iter().filter(|d| d.label.is_some()).collect();
        Metrics {
            capability_coverage: rate(lab.iter().map(|d| d.in_registry)),
            exposure_recall: rate(lab.iter().filter(|d| d.in_registry).map(|d| d.in_exposed)),
            tool_recall_at_k: recall_at_k(&lab),
            selection_accuracy: rate(lab.iter().filter(|d| d.in_retrieved).map(|d| d.correct())),
            abstention_accuracy: rate(
                lab.iter()
                    .filter(|d| accepts(d, &d.abstain))
                    .map(|d| d.selected() == d.abstain),
            ),
            no_call_accuracy: rate(
                lab.iter()
                    .filter(|d| accepts(d, NO_CALL))
                    .map(|d| d.d.selected.is_none()),
            ),
            violation_rate: rate(lab.iter().map(|d| d.violated)),
            first_call_accuracy: rate(lab.iter().filter(|d| d.first).map(|d| d.correct())),
            recovery_within_3: self.recovery_within_3(&lab),
            pass_hat_k: self.pass_hat_k(ds),
            inconsistent_tasks: inconsistent_tasks(ds),
            definition_tokens: token_stats(ds),
        }
    }

    /// Wrong labelled first decisions, and how many of them a later turn
    /// within 3 of the same run put right.
    fn recovery_within_3(&self, lab: &[&&Classified]) -> Rate {
        let mut by_run: HashMap<&str, Vec<&Classified>> = HashMap::new();
        for d in &self.decisions {
            by_run.entry(d.run.run_id.as_str()).or_default().push(d);
        }
        let recovered = |d: &Classified| {
            let acc = &d.label.as_ref().unwrap().acceptable;
            let t0 = d.turn();
            by_run[d.run.run_id.as_str()].iter().any(|o| {
                o.turn() > t0 && o.turn() <= t0 + 3 && acc.iter().any(|a| a == o.selected())
            })
        };
        rate(
            lab.iter()
                .filter(|d| d.first && !d.correct())
                .map(|d| recovered(d)),
        )
    }

    /// pass^k over the runs of these decisions: k -> (value, tasks).
    fn pass_hat_k(&self, ds: &[&Classified]) -> BTreeMap<usize, (f64, usize)> {
        let run_ids: BTreeSet<&str> = ds.iter().map(|d| d.run.run_id.as_str()).collect();
        let mut tasks: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for id in run_ids {
            let r = self.runs[id];
            if let (Some(t), Some(s)) = (&r.task_id, r.success) {
                let e = tasks.entry(t.as_str()).or_default();
                e.0 += 1;
                e.1 += s as usize;
            }
        }
        let max_n = tasks.values().map(|(n, _)| *n).max().unwrap_or(0);
        let mut pass = BTreeMap::new();
        for k in 1..=max_n {
            let vals: Vec<f64> = tasks
                .values()
                .filter(|(n, _)| *n >= k)
                .map(|(n, c)| pass_ratio(*c, *n, k))
                .collect();
            pass.insert(
                k,
                (vals.iter().sum::<f64>() / vals.len() as f64, vals.len()),
            );
        }
        pass
    }

    /// Confusion cells: (sorted acceptable, selected) -> count, over SELECTION rungs,
    /// in report order.
    pub fn confusions(ds: &[&Classified]) -> Vec<(Vec<String>, Option<String>, usize)> {
        let mut m: BTreeMap<(Vec<String>, Option<String>), usize> = BTreeMap::new();
        for d in ds.iter().filter(|d| d.rung == "selection") {
            let mut a = d.label.as_ref().unwrap().acceptable.clone();
            a.sort();
            *m.entry((a, d.d.selected.clone())).or_default() += 1;
        }
        let mut v: Vec<_> = m.into_iter().map(|((a, s), n)| (a, s, n)).collect();
        v.sort_by(|x, y| {
            y.2.cmp(&x.2)
                .then_with(|| x.0.cmp(&y.0))
                .then_with(|| x.1.cmp(&y.1))
        });
        v
    }

    /// Refusals by (reason, stage) in `[since, until)`, previous in the window before.
    pub fn refusals(ds: &[&Classified], since: i64, until: i64) -> Vec<RefusalRow> {
        let len = until - since;
        let mut m: RefusalGroups = BTreeMap::new();
        for d in ds {
            let Some(o) = &d.d.outcome else { continue };
            if o.status != Status::Refused {
                continue;
            }
            let t = d.time().expect("every sample refusal is dated");
            let key = (o.reason.clone(), d.boundary.unwrap());
            if (since..until).contains(&t) {
                let e = m.entry(key).or_default();
                e.0 += 1;
                e.1.insert(d.run.run_id.as_str());
            } else if (since - len..since).contains(&t) {
                m.entry(key).or_default().2 += 1;
            }
        }
        let mut rows: Vec<RefusalRow> = m
            .into_iter()
            .map(|((reason, stage), (count, runs, previous))| RefusalRow {
                reason,
                stage,
                count,
                runs: runs.len(),
                previous,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.reason.cmp(&b.reason))
                .then_with(|| a.stage.cmp(b.stage))
        });
        rows
    }

    /// `first_failed_rung` of a run: the rung of its lowest-step decision
    /// that failed (neither `passed` nor `unlabelled`).
    pub fn first_failed_rung(&self, run_id: &str) -> Option<&'static str> {
        self.decisions
            .iter()
            .filter(|d| d.run.run_id == run_id && d.rung != "passed" && d.rung != "unlabelled")
            .min_by_key(|d| d.d.step)
            .map(|d| d.rung)
    }
}

/// The share of `true` among `xs`.
fn rate(xs: impl Iterator<Item = bool>) -> Rate {
    let mut r = Rate::default();
    for x in xs {
        r.den += 1;
        r.num += x as usize;
    }
    r
}

/// Whether `name` is acceptable for a labelled decision.
fn accepts(d: &Classified, name: &str) -> bool {
    d.label
        .as_ref()
        .unwrap()
        .acceptable
        .iter()
        .any(|a| a == name)
}

/// Tool recall at each `k` over labelled decisions whose tool was exposed.
fn recall_at_k(lab: &[&&Classified]) -> BTreeMap<u32, Rate> {
    let mut recall = BTreeMap::new();
    for d in lab.iter().filter(|d| d.in_exposed) {
        if let Some(k) = d.k {
            let r: &mut Rate = recall.entry(k).or_default();
            r.den += 1;
            r.num += d.in_retrieved as usize;
        }
    }
    recall
}

/// Tasks (per catalogue) whose first tool varies, over tasks with two or
/// more runs.
fn inconsistent_tasks(ds: &[&Classified]) -> Rate {
    // first decisions of runs with a task, by (catalogue, task)
    let mut groups: BTreeMap<(Option<&str>, &str), FirstTools> = BTreeMap::new();
    for d in ds.iter().filter(|d| d.first) {
        if let Some(t) = &d.run.task_id {
            let g = groups.entry((d.catalogue.as_deref(), t)).or_default();
            g.0 += 1;
            g.1.insert(d.d.selected.as_deref());
        }
    }
    let mut r = Rate::default();
    for (n, tools) in groups.values() {
        if *n >= 2 {
            r.den += 1;
            r.num += (tools.len() > 1) as usize;
        }
    }
    r
}

/// (mean, p50, p95, decisions) of the menus' definition tokens.
fn token_stats(ds: &[&Classified]) -> Option<(f64, u64, u64, usize)> {
    let mut t: Vec<u64> = ds.iter().filter_map(|d| d.tokens).collect();
    t.sort_unstable();
    let rank = |p: usize| t[(p * t.len()).div_ceil(100).max(1) - 1];
    (!t.is_empty()).then(|| {
        (
            t.iter().sum::<u64>() as f64 / t.len() as f64,
            rank(50),
            rank(95),
            t.len(),
        )
    })
}

/// C(c,k) / C(n,k), as a product so that large n does not overflow.
fn pass_ratio(c: usize, n: usize, k: usize) -> f64 {
    if k > c {
        return 0.0;
    }
    (0..k).map(|i| (c - i) as f64 / (n - i) as f64).product()
}
