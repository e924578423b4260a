//! `rung check --min METRIC=VALUE --max METRIC=VALUE`: a CI gate over the
//! metrics, exit 1 when a bound fails.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{FilterArgs, Global, log, open_read, print, window};
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
    "inconsistent_tasks",
    "expected_call_recall",
    "argument_accuracy",
    "runs_as_expected",
    "agreement_with_success",
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
    // k counts trials or menu slots: 1 or more.
    let k_of = |k: &str, example: &str| -> std::result::Result<u32, String> {
        match k.parse::<u32>() {
            Ok(k) if k >= 1 => Ok(k),
            _ => Err(format!(
                "{name}: {k:?} is not a k of 1 or more, e.g. {example}"
            )),
        }
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
        ("inconsistent_tasks", None) => rate(&m.inconsistent_tasks),
        ("expected_call_recall", None) => rate(&m.expectations.expected_call_recall),
        ("argument_accuracy", None) => rate(&m.expectations.argument_accuracy),
        ("runs_as_expected", None) => rate(&m.expectations.runs_as_expected),
        ("agreement_with_success", None) => rate(&m.expectations.agreement_with_success),
        ("tool_recall_at_k", Some(k)) => {
            let k = k_of(k, "tool_recall_at_k.8")?;
            match m.tool_recall_at_k.get(&k) {
                Some(r) => rate(r),
                None => empty(&format!("no decision recorded k={k}")),
            }
        }
        ("pass_hat_k", Some(k)) => {
            let k = k_of(k, "pass_hat_k.3")?;
            match m.pass_hat_k.get(&k) {
                Some(p) => Measured {
                    value: Some(p.value),
                    over: plural(p.tasks, "task"),
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
                over: plural(t.decisions, "decision"),
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
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| Error::usage(format!("{s:?}: {v:?} is not a number")))?;
    Ok((k.trim().to_string(), v))
}

fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A number for reading: at most 4 decimals, trailing zeros dropped.
fn fmt(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// The measured value as shown next to its bound: rounded for reading,
/// unless rounding would make it look as if the bound held when it does
/// not (or the other way round); then in full.
fn shown(v: f64, bound: f64, is_min: bool, ok: bool) -> String {
    let short = fmt(v);
    let r: f64 = short.parse().unwrap_or(v);
    let looks_ok = if is_min { r >= bound } else { r <= bound };
    if looks_ok == ok { short } else { v.to_string() }
}

/// The bounds as (text, is_min) in the order the command line gave them
/// (clap keeps `--min` and `--max` apart), so the lines read like the
/// command; any the command line does not show go last, mins first.
fn in_command_line_order(
    args: &CheckArgs,
    argv: impl Iterator<Item = std::ffi::OsString>,
) -> Vec<(String, bool)> {
    let (mut mins, mut maxs) = (args.min.iter(), args.max.iter());
    let mut out = Vec::new();
    for a in argv {
        let a = a.to_string_lossy();
        let next = if a == "--min" || a.starts_with("--min=") {
            mins.next().map(|b| (b.clone(), true))
        } else if a == "--max" || a.starts_with("--max=") {
            maxs.next().map(|b| (b.clone(), false))
        } else {
            None
        };
        out.extend(next);
    }
    out.extend(mins.map(|b| (b.clone(), true)));
    out.extend(maxs.map(|b| (b.clone(), false)));
    out
}

pub fn run(g: &Global, args: &CheckArgs) -> Result<ExitCode> {
    if args.min.is_empty() && args.max.is_empty() {
        return Err(Error::usage(
            "give at least one --min METRIC=VALUE or --max METRIC=VALUE",
        ));
    }
    let mut bounds = Vec::new();
    for (b, is_min) in in_command_line_order(args, std::env::args_os().skip(1)) {
        bounds.push((parse_bound(&b)?, is_min));
    }
    let start = Instant::now();
    let store = open_read(g)?;
    let f = window::filter(&args.filter, false)?;
    let redactor = crate::redact::Redactor::new(&store.config()?.redact.patterns, g.no_redact)?;
    window::values_exist(&store.conn, &f, &redactor)?;
    let m = query::metrics(&store.conn, &f)?;
    let mut failures = 0usize;
    let checked = bounds.len();
    let mut out = String::new();
    for ((name, bound), is_min) in bounds {
        let measured = lookup(&m, &name).map_err(Error::usage)?;
        let op = if is_min { ">=" } else { "<=" };
        let (ok, shown) = match measured.value {
            Some(v) => {
                let ok = if is_min { v >= bound } else { v <= bound };
                (ok, shown(v, bound, is_min, ok))
            }
            None => (args.allow_empty, "n/a".to_string()),
        };
        failures += usize::from(!ok);
        tracing::debug!(
            metric = %crate::text::escape(&name),
            op,
            bound,
            value = measured.value,
            over = %measured.over,
            ok,
            "check bound"
        );
        out.push_str(&format!(
            "{}  {name} = {shown} ({}) {op} {}{}\n",
            if ok { "ok  " } else { "FAIL" },
            measured.over,
            bound,
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
    tracing::info!(
        bounds = checked,
        failed = failures,
        allow_empty = args.allow_empty,
        filter = %args.filter.describe(),
        elapsed_ms = log::elapsed_ms(start),
        "check"
    );
    print(&out)?;
    Ok(if failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_keep_the_command_line_order() {
        let args = CheckArgs {
            min: vec!["a=1".into(), "c=3".into()],
            max: vec!["b=2".into()],
            allow_empty: false,
            filter: FilterArgs::default(),
        };
        let argv = ["check", "--min", "a=1", "--max=b=2", "--min", "c=3"];
        assert_eq!(
            in_command_line_order(&args, argv.iter().map(|s| s.into())),
            [
                ("a=1".into(), true),
                ("b=2".into(), false),
                ("c=3".into(), true)
            ]
        );
        // Not from a command line: mins, then maxes.
        assert_eq!(
            in_command_line_order(&args, std::iter::empty()),
            [
                ("a=1".into(), true),
                ("c=3".into(), true),
                ("b=2".into(), false)
            ]
        );
    }

    #[test]
    fn a_rounded_value_never_looks_like_the_wrong_verdict() {
        // 1/14 rounds to 0.0714, which would look within <= 0.0714.
        assert_eq!(
            shown(1.0 / 14.0, 0.0714, false, false),
            "0.07142857142857142"
        );
        assert_eq!(shown(1.0 / 14.0, 0.1, false, true), "0.0714");
        assert_eq!(shown(0.5, 0.5, true, true), "0.5");
        assert_eq!(shown(188.0, 187.0, false, false), "188");
    }
}
