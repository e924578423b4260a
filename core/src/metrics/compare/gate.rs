//! The admission gate: a candidate no worse than the base on first calls
//! and unrecovered wrong calls, and within the token ceiling.

use serde::Serialize;

use super::{Comparison, MenuSummary, Metric};

/// One check of the admission gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateCheck {
    /// `first_call_accuracy`, `unrecovered` or `definition_tokens_per_turn.p95`.
    pub check: String,
    pub passed: bool,
    /// Why, in words.
    pub detail: String,
}

/// A candidate's admission: no worse than the base on first calls and on
/// unrecovered wrong calls (one-sided, at alpha), and within the token
/// ceiling per turn at p95 when one is given.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gate {
    pub candidate: String,
    pub passed: bool,
    pub checks: Vec<GateCheck>,
}

fn fmt_p(p: f64) -> String {
    if p < 0.0001 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {p:.4}")
    }
}

/// The gate for one candidate.
pub fn gate(c: &Comparison, cand: &MenuSummary, alpha: f64, max_tokens: Option<u64>) -> Gate {
    let mut checks = Vec::new();
    for m in [Metric::FirstCall, Metric::Unrecovered] {
        let ch = c.changes.iter().find(|x| x.metric == m);
        let check = m.key();
        let (passed, detail) = match ch.and_then(|x| x.p_worse().map(|p| (x, p))) {
            None => (
                false,
                "no attempts paired with the base: nothing shows it is no worse".to_string(),
            ),
            Some((x, p)) => {
                let worse = if m.higher_is_better() == Some(true) {
                    x.down
                } else {
                    x.up
                };
                let better = x.up + x.down - worse;
                let passed = p > alpha;
                (
                    passed,
                    format!(
                        "{worse} worse, {better} better: {} {} {alpha}",
                        fmt_p(p),
                        if passed { ">" } else { "<=" }
                    ),
                )
            }
        };
        checks.push(GateCheck {
            check,
            passed,
            detail,
        });
    }
    if let Some(max) = max_tokens {
        let (passed, detail) = match cand.definition_tokens_per_turn.p95 {
            Some(p95) => (
                p95 <= max,
                format!(
                    "p95 is {p95} tokens per turn, {} {max}",
                    if p95 <= max { "within" } else { "above" }
                ),
            ),
            None => (false, "no definition tokens measured".to_string()),
        };
        checks.push(GateCheck {
            check: Metric::TokensP95.key(),
            passed,
            detail,
        });
    }
    Gate {
        candidate: c.candidate.clone(),
        passed: checks.iter().all(|x| x.passed),
        checks,
    }
}
