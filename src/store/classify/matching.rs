//! The matching table of a run with expected calls (`expectations.md` §4):
//! each expected call beside the calls judged against it, the expected
//! calls never matched and the unexpected calls. Built from a run's
//! verdict, stored in `matching`, shown by `explain` and the Run screen.

use rusqlite::Connection;
use serde_json::Value;

use crate::error::Result;
use crate::ladder::RunVerdict;
use crate::ladder::expect::{WalkResult, diffs_text};
use crate::model::{Effect, Expectations};

/// Longest expected-arguments text kept in a row, in characters.
const ARGUMENTS_CHARS: usize = 1_000;

/// One row of the matching table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MatchRow {
    /// The expected call (1-based, list order); `None` for an unexpected
    /// call.
    pub expected: Option<u32>,
    pub tool: String,
    /// The run's call; `None` for an expected call never made.
    pub step: Option<i64>,
    /// `matched`, `mismatch`, `missing` (a required expected call never
    /// matched), `not_made` (one that was not required) or `unexpected`.
    pub status: String,
    /// Whether the expected call is required (`None` for an unexpected
    /// call).
    pub required: Option<bool>,
    /// The tool's effect (`None`: unknown).
    pub effect: Option<String>,
    /// The expected call's arguments as JSON (masked; `None`: any).
    pub arguments: Option<String>,
    /// For a mismatch, each differing key with the expected and the actual
    /// value (masked).
    pub keys: Option<String>,
}

fn cut(s: String, max: usize) -> String {
    if s.chars().count() <= max {
        s
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

/// The table of a judged run: expected calls in list order, each with the
/// calls judged against it (in step order) or a `missing`/`not_made` row,
/// then the unexpected calls in step order. Empty when the run has no
/// expected calls. `selected` and `call_effects` are per decision, in the
/// verdict's order.
pub fn rows(
    expectations: &Expectations,
    verdict: &RunVerdict,
    selected: &[Option<&str>],
    call_effects: &[Option<Effect>],
    mask: &dyn Fn(&str) -> String,
) -> Vec<MatchRow> {
    let (Some(calls), Some(walk)) = (
        expectations.calls.as_deref(),
        verdict.expectations.as_ref().and_then(|e| e.walk.as_ref()),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (j, (call, state)) in calls.iter().zip(&walk.expected).enumerate() {
        let arguments = call.arguments.as_ref().map(|a| {
            let v = Value::Object(a.iter().map(|(k, v)| (k.clone(), v.to_json())).collect());
            cut(mask(&v.to_string()), ARGUMENTS_CHARS)
        });
        let row = |step: Option<i64>, status: &str, keys: Option<String>| MatchRow {
            expected: Some(j as u32 + 1),
            tool: call.tool.clone(),
            step,
            status: status.to_string(),
            required: Some(state.required),
            effect: state.effect.map(|e| e.as_str().to_string()),
            arguments: arguments.clone(),
            keys,
        };
        for d in &verdict.decisions {
            match &d.walk {
                Some(WalkResult::Matched { expected }) if *expected == j => {
                    out.push(row(Some(d.step), "matched", None))
                }
                Some(WalkResult::Mismatch { expected, keys }) if *expected == j => {
                    out.push(row(Some(d.step), "mismatch", Some(diffs_text(keys, mask))))
                }
                _ => {}
            }
        }
        if state.matched.is_none() {
            let status = if state.required {
                "missing"
            } else {
                "not_made"
            };
            out.push(row(None, status, None));
        }
    }
    for (i, d) in verdict.decisions.iter().enumerate() {
        if let Some(WalkResult::Unexpected { .. }) = d.walk {
            out.push(MatchRow {
                expected: None,
                tool: selected[i].unwrap_or_default().to_string(),
                step: Some(d.step),
                status: "unexpected".to_string(),
                required: None,
                effect: call_effects[i].map(|e| e.as_str().to_string()),
                arguments: None,
                keys: None,
            });
        }
    }
    out
}

/// Replaces a run's stored matching table.
pub(super) fn store(conn: &Connection, run_id: &str, rows: &[MatchRow]) -> Result<()> {
    conn.prepare_cached("DELETE FROM matching WHERE run_id = ?1")?
        .execute([run_id])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO matching (run_id, seq, expected, tool, step, status, required, effect,
            arguments, keys) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for (seq, r) in rows.iter().enumerate() {
        stmt.execute(rusqlite::params![
            run_id,
            seq as i64,
            r.expected,
            r.tool,
            r.step,
            r.status,
            r.required,
            r.effect,
            r.arguments,
            r.keys
        ])?;
    }
    Ok(())
}

/// A run's stored matching table, in order (empty for a run without
/// expected calls).
pub fn run_matching(conn: &Connection, run_id: &str) -> Result<Vec<MatchRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT expected, tool, step, status, required, effect, arguments, keys
         FROM matching WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt
        .query_map([run_id], |r| {
            Ok(MatchRow {
                expected: r.get(0)?,
                tool: r.get(1)?,
                step: r.get(2)?,
                status: r.get(3)?,
                required: r.get(4)?,
                effect: r.get(5)?,
                arguments: r.get(6)?,
                keys: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}
