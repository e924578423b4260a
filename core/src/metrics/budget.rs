//! The visible menu's budget (`rung report budget`): per catalogue, tools
//! visible and definition tokens per turn, what a run costs at the p50 and
//! p95 run lengths, what the flat menu (every catalogue tool on every turn)
//! would cost for the same runs, and the runs whose menu changed mid-run
//! (the cacheable prefix broke). Pure: turns in, figures out.

use serde::Serialize;

use super::nearest_rank;

/// One model turn of a run: its first decision's menu.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The turn number (`turn`, else `step`).
    pub turn: i64,
    /// Tools the model saw (the retrieved set without `@no_call`).
    pub visible: u64,
    /// Definition tokens of the catalogue tools it saw.
    pub tokens: Option<u64>,
    /// The visible set, as a comparable key (the sorted names).
    pub menu: String,
}

/// A p50 and p95 (nearest rank); null when there is nothing to rank.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Percentiles {
    pub p50: Option<u64>,
    pub p95: Option<u64>,
}

impl Percentiles {
    pub fn of(values: &mut [u64]) -> Percentiles {
        values.sort_unstable();
        Percentiles {
            p50: nearest_rank(values, 50),
            p95: nearest_rank(values, 95),
        }
    }
}

/// What a run of a given length costs, disclosed and flat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunCost {
    /// The run length (turns) at this percentile.
    pub turns: u64,
    /// Definition tokens per turn at the same percentile × turns.
    pub disclosed: Option<u64>,
    /// The whole catalogue's definitions × turns.
    pub flat: u64,
    /// 1 − disclosed / flat; null when either is unknown or flat is 0.
    pub saved: Option<f64>,
}

/// One catalogue's budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    pub catalogue: String,
    /// Tools in the catalogue: what a flat menu shows every turn.
    pub tools: u64,
    /// Definition tokens of the whole catalogue: a flat menu's turn.
    pub flat_tokens_per_turn: u64,
    pub runs: u64,
    pub turns: u64,
    pub visible_per_turn: Percentiles,
    pub tokens_per_turn: Percentiles,
    pub run_turns: Percentiles,
    pub per_run_p50: Option<RunCost>,
    pub per_run_p95: Option<RunCost>,
    /// Runs whose visible set differs between two of their turns.
    pub menu_changed_runs: u64,
    /// Stored `menu_changed` findings on this catalogue, where rung knows
    /// that finding kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub menu_changed_findings: Option<u64>,
}

/// Accumulates one catalogue's runs.
#[derive(Debug, Default)]
pub struct BudgetAcc {
    visible: Vec<u64>,
    tokens: Vec<u64>,
    run_turns: Vec<u64>,
    changed: u64,
}

impl BudgetAcc {
    /// Adds a run from its decisions' turns, in step order: a turn with
    /// several decisions (parallel calls) counts once, with the menu of its
    /// first decision.
    pub fn add_run(&mut self, decisions: &[Turn]) {
        let (turns, changed) = BudgetAcc::turns_of(
            decisions
                .iter()
                .map(|t| (t.turn, t.visible, t.tokens, t.menu.as_str())),
        );
        self.add_turns(&turns, changed);
    }

    /// Adds a run whose turns were counted already (as [`BudgetAcc::add_run`]
    /// counts them: each turn once, with its first decision's menu): each
    /// turn's visible tools and tokens, and whether its menu changed.
    pub fn add_turns(&mut self, turns: &[(u64, Option<u64>)], changed: bool) {
        if turns.is_empty() {
            return;
        }
        for &(visible, tokens) in turns {
            self.visible.push(visible);
            if let Some(k) = tokens {
                self.tokens.push(k);
            }
        }
        self.run_turns.push(turns.len() as u64);
        if changed {
            self.changed += 1;
        }
    }

    /// [`BudgetAcc::add_turns`] with the run's turns as two lists (their
    /// order does not matter): the visible tools of each turn, and the
    /// tokens of those that have them.
    pub fn add_counted(&mut self, visible: &[u64], tokens: &[u64], changed: bool) {
        if visible.is_empty() {
            return;
        }
        self.visible.extend_from_slice(visible);
        self.tokens.extend_from_slice(tokens);
        self.run_turns.push(visible.len() as u64);
        if changed {
            self.changed += 1;
        }
    }

    /// A run's turns as [`BudgetAcc::add_run`] counts them from its
    /// decisions' (turn, visible, tokens, menu) in step order: each turn
    /// once (its first decision), as (visible, tokens), and whether the
    /// menu changed between two of them.
    pub fn turns_of<'a>(
        decisions: impl IntoIterator<Item = (i64, u64, Option<u64>, &'a str)>,
    ) -> (Vec<(u64, Option<u64>)>, bool) {
        let mut seen: rustc_hash::FxHashSet<i64> = Default::default();
        let mut out = Vec::new();
        let mut first_menu: Option<&str> = None;
        let mut changed = false;
        for (turn, visible, tokens, menu) in decisions {
            if !seen.insert(turn) {
                continue;
            }
            out.push((visible, tokens));
            match first_menu {
                None => first_menu = Some(menu),
                Some(m) if m != menu => changed = true,
                Some(_) => {}
            }
        }
        (out, changed)
    }

    pub fn finish(
        mut self,
        catalogue: &str,
        tools: u64,
        flat_tokens_per_turn: u64,
        menu_changed_findings: Option<u64>,
    ) -> Budget {
        let turns = self.visible.len() as u64;
        let tokens = Percentiles::of(&mut self.tokens);
        let run_turns = Percentiles::of(&mut self.run_turns);
        let cost = |len: Option<u64>, per_turn: Option<u64>| {
            len.map(|turns| {
                let disclosed = per_turn.map(|t| t * turns);
                let flat = flat_tokens_per_turn * turns;
                RunCost {
                    turns,
                    disclosed,
                    flat,
                    saved: disclosed
                        .filter(|_| flat > 0)
                        .map(|d| 1.0 - d as f64 / flat as f64),
                }
            })
        };
        Budget {
            catalogue: catalogue.to_string(),
            tools,
            flat_tokens_per_turn,
            runs: self.run_turns.len() as u64,
            turns,
            visible_per_turn: Percentiles::of(&mut self.visible),
            per_run_p50: cost(run_turns.p50, tokens.p50),
            per_run_p95: cost(run_turns.p95, tokens.p95),
            tokens_per_turn: tokens,
            run_turns,
            menu_changed_runs: self.changed,
            menu_changed_findings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(turn: i64, menu: &str, tokens: u64) -> Turn {
        Turn {
            turn,
            visible: menu.split(',').count() as u64,
            tokens: Some(tokens),
            menu: menu.to_string(),
        }
    }

    #[test]
    fn a_catalogue_budget_by_hand() {
        let mut acc = BudgetAcc::default();
        // r1: three turns on one menu (a,b): 100 tokens each.
        acc.add_run(&[
            turn(1, "a,b", 100),
            turn(2, "a,b", 100),
            turn(3, "a,b", 100),
        ]);
        // r2: one turn, menu a,b,c: 150.
        acc.add_run(&[turn(1, "a,b,c", 150)]);
        // r3: two decisions in turn 1 (parallel calls) then a new menu on
        // turn 2: the menu changed mid-run; two turns.
        acc.add_run(&[
            turn(1, "a", 50),
            turn(1, "a,b,c,d", 999),
            turn(2, "a,c", 100),
        ]);
        let b = acc.finish("m", 10, 500, None);
        // turns: visible 2,2,2,3,1,2 → sorted 1,2,2,2,2,3: p50 rank 3 → 2, p95 rank 6 → 3
        assert_eq!(b.turns, 6);
        assert_eq!(
            b.visible_per_turn,
            Percentiles {
                p50: Some(2),
                p95: Some(3)
            }
        );
        // tokens 100,100,100,150,50,100 → 50,100,100,100,100,150: p50 100, p95 150
        assert_eq!(
            b.tokens_per_turn,
            Percentiles {
                p50: Some(100),
                p95: Some(150)
            }
        );
        // run lengths 3,1,2 → 1,2,3: p50 rank 2 → 2, p95 rank 3 → 3
        assert_eq!(
            b.run_turns,
            Percentiles {
                p50: Some(2),
                p95: Some(3)
            }
        );
        assert_eq!(b.runs, 3);
        assert_eq!(
            b.per_run_p50,
            Some(RunCost {
                turns: 2,
                disclosed: Some(200),
                flat: 1000,
                saved: Some(0.8)
            })
        );
        assert_eq!(
            b.per_run_p95,
            Some(RunCost {
                turns: 3,
                disclosed: Some(450),
                flat: 1500,
                saved: Some(0.7)
            })
        );
        assert_eq!(b.menu_changed_runs, 1);
        assert_eq!(b.menu_changed_findings, None);
    }

    #[test]
    fn turns_counted_before_add_up_as_the_runs_do() {
        // r3 of the test above: turn 1 twice (the first decision's menu
        // counts), then a new menu on turn 2.
        let run = [
            turn(1, "a", 50),
            turn(1, "a,b,c,d", 999),
            turn(2, "a,c", 100),
        ];
        let (turns, changed) = BudgetAcc::turns_of(
            run.iter()
                .map(|t| (t.turn, t.visible, t.tokens, t.menu.as_str())),
        );
        assert_eq!(turns, vec![(1, Some(50)), (2, Some(100))]);
        assert!(changed);
        let mut by_runs = BudgetAcc::default();
        by_runs.add_run(&run);
        by_runs.add_run(&[turn(1, "a,b", 70)]);
        let mut by_turns = BudgetAcc::default();
        by_turns.add_turns(&turns, changed);
        by_turns.add_turns(&[(2, Some(70))], false);
        // A run with no turn is no run.
        by_turns.add_turns(&[], true);
        let mut counted = BudgetAcc::default();
        counted.add_counted(&[2, 1], &[100, 50], true);
        counted.add_counted(&[2], &[70], false);
        counted.add_counted(&[], &[], true);
        let by_runs = by_runs.finish("m", 4, 90, None);
        assert_eq!(by_runs, by_turns.finish("m", 4, 90, None));
        assert_eq!(by_runs, counted.finish("m", 4, 90, None));
    }

    #[test]
    fn no_runs_no_figures() {
        let b = BudgetAcc::default().finish("m", 3, 90, Some(0));
        assert_eq!(b.runs, 0);
        assert_eq!(b.per_run_p50, None);
        assert_eq!(b.tokens_per_turn, Percentiles::default());
        assert_eq!(
            serde_json::to_value(&b).unwrap()["menu_changed_findings"],
            serde_json::json!(0)
        );
    }
}
