//! `rung check --min METRIC=VALUE --max METRIC=VALUE`: a CI gate over the
//! metrics, exit 1 when a bound fails.

use std::process::ExitCode;

use clap::Args;

use super::{FilterArgs, Global, open_read, print, window};
use crate::error::{Error, Result};
use crate::metrics::Metrics;
use crate::store::query;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Lower bound (inclusive), e.g. selection_accuracy=0.9; repeatable.
    #[arg(long, value_name = "METRIC=VALUE")]
    pub min: Vec<String>,
    /// Upper bound (inclusive), e.g. violation_rate=0; repeatable.
    #[arg(long, value_name = "METRIC=VALUE")]
    pub max: Vec<String>,
    /// A metric with an empty denominator passes instead of failing.
    #[arg(long)]
    pub allow_empty: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
}

/// A measured metric: value and what it was measured over.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub value: Option<f64>,
    /// `7/8`, `20 tasks`, `1200 decisions`.
    pub over: String,
}

const RATES: &[&str] = &[
    "capability_coverage",
    "exposure_recall",
    "selection_accuracy",
    "abstention_accuracy",
    "no_call_accuracy",
    "violation_rate",
    "first_call_accuracy",
    "recovery_within_3",
];

/// Looks a (dotted) metric up; `Err` when the name is not a metric at all.
pub fn lookup(m: &Metrics, name: &str) -> std::result::Result<Measured, String> {
    let rate = |r: &crate::metrics::Rate| Measured {
        value: r.value,
        over: format!("{}/{}", r.numerator, r.denominator),
    };
    let empty = |what: &str| Measured {
        value: None,
        over: what.to_string(),
    };
    let (head, tail) = match name.split_once('.') {
        Some((h, t)) => (h, Some(t)),
        None => (name, None),
    };
    let r = match (head, tail) {
        ("capability_coverage", None) => rate(&m.capability_coverage),
        ("exposure_recall", None) => rate(&m.exposure_recall),
        ("selection_accuracy", None) => rate(&m.selection_accuracy),
        ("abstention_accuracy", None) => rate(&m.abstention_accuracy),
        ("no_call_accuracy", None) => rate(&m.no_call_accuracy),
        ("violation_rate", None) => rate(&m.violation_rate),
        ("first_call_accuracy", None) => rate(&m.first_call_accuracy),
        ("recovery_within_3", None) => rate(&m.recovery_within_3),
        ("tool_recall_at_k", Some(k)) => {
            let k: u32 = k
                .parse()
                .map_err(|_| format!("{name}: k must be a number, e.g. tool_recall_at_k.8"))?;
            match m.tool_recall_at_k.get(&k) {
                Some(r) => rate(r),
                None => empty(&format!("no decision recorded k={k}")),
            }
        }
        ("pass_hat_k", Some(k)) => {
            let k: u32 = k
                .parse()
                .map_err(|_| format!("{name}: k must be a number, e.g. pass_hat_k.3"))?;
            match m.pass_hat_k.get(&k) {
                Some(p) => Measured {
                    value: Some(p.value),
                    over: format!("{} tasks", p.tasks),
                },
                None => empty(&format!("no task has {k} trials")),
            }
        }
        ("definition_tokens", Some(part)) => {
            let t = &m.definition_tokens;
            let value = match part {
                "mean" => t.mean,
                "p50" => t.p50.map(|v| v as f64),
                "p95" => t.p95.map(|v| v as f64),
                "decisions" => Some(t.decisions as f64),
                _ => {
                    return Err(format!(
                        "{name}: definition_tokens has mean, p50, p95 and decisions"
                    ));
                }
            };
            Measured {
                value,
                over: format!("{} decisions", t.decisions),
            }
        }
        _ => {
            return Err(format!(
                "{name:?} is not a metric; use one of {}, tool_recall_at_k.K, pass_hat_k.K, definition_tokens.mean|p50|p95",
                RATES.join(", ")
            ));
        }
    };
    Ok(r)
}

fn parse_bound(s: &str) -> Result<(String, f64)> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| Error::usage(format!("{s:?}: write a bound as METRIC=VALUE")))?;
    let v: f64 = v
        .trim()
        .parse()
        .map_err(|_| Error::usage(format!("{s:?}: {v:?} is not a number")))?;
    Ok((k.trim().to_string(), v))
}

fn fmt(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

pub fn run(g: &Global, args: &CheckArgs) -> Result<ExitCode> {
    if args.min.is_empty() && args.max.is_empty() {
        return Err(Error::usage(
            "give at least one --min METRIC=VALUE or --max METRIC=VALUE",
        ));
    }
    let mut bounds = Vec::new();
    for b in &args.min {
        bounds.push((parse_bound(b)?, true));
    }
    for b in &args.max {
        bounds.push((parse_bound(b)?, false));
    }
    let store = open_read(g)?;
    let f = window::filter(&args.filter, false)?;
    let m = query::metrics(&store.conn, &f)?;
    let mut failed = false;
    let mut out = String::new();
    for ((name, bound), is_min) in bounds {
        let measured = lookup(&m, &name).map_err(Error::usage)?;
        let op = if is_min { ">=" } else { "<=" };
        let (ok, shown) = match measured.value {
            Some(v) => (if is_min { v >= bound } else { v <= bound }, fmt(v)),
            None => (args.allow_empty, "n/a".to_string()),
        };
        failed |= !ok;
        out.push_str(&format!(
            "{}  {name} = {shown} ({}) {op} {}{}\n",
            if ok { "ok  " } else { "FAIL" },
            measured.over,
            fmt(bound),
            if measured.value.is_none() {
                if args.allow_empty {
                    "  [empty, allowed]"
                } else {
                    "  [empty denominator]"
                }
            } else {
                ""
            }
        ));
    }
    print(&out)?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
