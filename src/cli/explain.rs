//! `rung explain RUN [STEP] [--tool NAME]`: the ladder walk and, for every
//! catalogue tool, visible or hidden and the rule that says why.

use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::{Global, log, open_read, print};
use crate::error::{Error, Result};
use crate::ladder::{ToolVisibility, label_text};
use crate::redact::Redactor;
use crate::report::json_text;
use crate::store::{self, Explained, MatchRow, RunExpectations};
use crate::text::{escape, truncate};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The run id.
    pub run: String,
    /// The decision's step (all decisions of the run when left out).
    pub step: Option<i64>,
    /// Only this tool's visibility.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ExplainFormat,
}

pub fn run(g: &Global, args: &ExplainArgs) -> Result<()> {
    let start = Instant::now();
    let store = open_read(g)?;
    let config = store.config()?;
    let redactor = Redactor::new(&config.redact.patterns, g.no_redact)?;
    let run = store::explain_run(&store.conn, &config, &args.run, args.step)?;
    let mut explained = run.decisions;
    if let Some(tool) = &args.tool {
        for e in &mut explained {
            e.tools.retain(|t| &t.name == tool);
        }
    }
    if let Some(tool) = &args.tool
        && explained.iter().all(|e| e.tools.is_empty())
    {
        return Err(Error::usage(format!(
            "{tool:?} is not a tool of the catalogue (or recorded menu) of run {}{}",
            args.run,
            args.step.map(|s| format!(" step {s}")).unwrap_or_default()
        )));
    }
    let text = match args.format {
        ExplainFormat::Json => {
            let v = match args.step {
                Some(_) => to_json(&explained[0]),
                None => json!({
                    "run_id": args.run,
                    "decisions": explained.iter().map(to_json).collect::<Vec<_>>(),
                    "expectations": run.expectations.as_ref().map(expectations_json),
                }),
            };
            json_text(&v)
        }
        ExplainFormat::Text => {
            let mut parts: Vec<String> = explained.iter().map(|e| to_text(e, &redactor)).collect();
            if args.step.is_none()
                && let Some(x) = &run.expectations
            {
                parts.push(expectations_text(x, &redactor));
            }
            parts.join("\n")
        }
    };
    tracing::info!(
        run = %escape(&args.run),
        step = args.step,
        tool = args.tool.as_deref().map(|t| escape(t).into_owned()),
        format = %format!("{:?}", args.format).to_lowercase(),
        decisions = explained.len(),
        elapsed_ms = log::elapsed_ms(start),
        "explain"
    );
    print(&text)
}

fn tool_json(t: &ToolVisibility) -> Value {
    json!({"name": t.name, "visible": t.visible, "rule": t.rule.as_str(), "why": t.why})
}

/// The `cli.md` shape of one explained decision.
pub fn to_json(e: &Explained) -> Value {
    json!({
        "run_id": e.run_id,
        "step": e.step,
        "selected": e.selected,
        "call_id": e.call_id,
        "rung": e.rung.as_str(),
        "routing": e.routing,
        "boundary": e.boundary,
        "arguments": e.arguments_part,
        "progress": e.progress,
        "violated": e.violated,
        "reason": e.reason,
        "label": e.label.as_ref().map(|(l, source)| json!({
            "acceptable": l.acceptable, "forbidden": l.forbidden, "source": source
        })),
        "tools": e.tools.iter().map(tool_json).collect::<Vec<_>>(),
        "findings": e.findings.iter().map(|f| json!({"kind": f.kind, "detail": f.detail})).collect::<Vec<_>>(),
        "matching": e.matching,
    })
}

/// The run's verdict against its expectations, as `explain RUN --format
/// json` carries it.
pub fn expectations_json(x: &RunExpectations) -> Value {
    json!({
        "as_expected": x.as_expected,
        "expected_calls": x.expected_calls,
        "matching": x.matching,
        "expected_outputs": x.expected_outputs,
        "missing_outputs": x.missing_outputs,
    })
}

/// One matching row's status for reading: `matched ✓`, `MISMATCH`, ….
fn status_text(r: &MatchRow) -> String {
    match r.status.as_str() {
        "matched" => "matched ✓".to_string(),
        "mismatch" => "MISMATCH".to_string(),
        "missing" => "MISSING".to_string(),
        "unexpected" => "UNEXPECTED".to_string(),
        "not_made" => "not made (not required)".to_string(),
        other => other.to_string(),
    }
}

/// The matching table and the missing outputs, for reading.
pub fn expectations_text(x: &RunExpectations, redactor: &Redactor) -> String {
    let esc = |s: &str| escape(&redactor.apply(s)).into_owned();
    let mut out = String::new();
    out.push_str(&format!(
        "expectations: {}\n",
        if x.as_expected {
            "the run went as expected"
        } else {
            "the run did NOT go as expected"
        }
    ));
    if let Some(n) = x.expected_calls {
        let required = x
            .matching
            .iter()
            .filter(|r| r.required == Some(true))
            .filter_map(|r| r.expected)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        out.push_str(&format!("\nexpected calls: {n} ({required} required)\n"));
        let width = x
            .matching
            .iter()
            .map(|r| r.tool.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 40);
        out.push_str(&format!(
            "  {:>3}  {:<width$}  {:>5}  status\n",
            "#", "tool", "step"
        ));
        for r in &x.matching {
            let n = r
                .expected
                .map(|n| n.to_string())
                .unwrap_or_else(|| "-".into());
            let step = r.step.map(|s| s.to_string()).unwrap_or_else(|| "-".into());
            let mut line = format!(
                "  {n:>3}  {:<width$}  {step:>5}  {}",
                esc(&truncate(&r.tool, width)),
                status_text(r)
            );
            if let Some(k) = &r.keys {
                line.push_str(&format!("  {}", esc(k)));
            } else if r.status == "missing"
                && let Some(a) = &r.arguments
            {
                line.push_str(&format!("  expected {}", esc(&truncate(a, 160))));
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    if x.expected_outputs > 0 {
        if x.missing_outputs.is_empty() {
            out.push_str(&format!(
                "\nexpected outputs: {n} of {n} found in the answers\n",
                n = x.expected_outputs
            ));
        } else {
            out.push_str(&format!(
                "\nexpected outputs: {} of {} missing from every answer\n",
                x.missing_outputs.len(),
                x.expected_outputs
            ));
            for o in &x.missing_outputs {
                out.push_str(&format!("  {}\n", esc(&format!("{o:?}"))));
            }
        }
    }
    out
}

/// The human reading of one explained decision.
pub fn to_text(e: &Explained, redactor: &Redactor) -> String {
    let esc = |s: &str| escape(s).into_owned();
    let mut out = String::new();
    let mut head = format!(
        "decision {} step {} · turn {}",
        esc(&e.run_id),
        e.step,
        e.turn
    );
    if let Some(p) = &e.phase {
        head.push_str(&format!(" · phase {}", esc(p)));
    }
    match &e.catalogue {
        Some(c) => head.push_str(&format!(" · catalogue {}", esc(c))),
        None => head.push_str(" · no catalogue"),
    }
    out.push_str(&head);
    out.push('\n');
    let selected = match &e.selected {
        Some(s) => esc(s),
        None => "no tool call".to_string(),
    };
    let call = e
        .call_id
        .as_deref()
        .map(|c| format!(" (call {})", esc(c)))
        .unwrap_or_default();
    out.push_str(&format!("selected:  {selected}{call}\n"));
    if let Some(a) = &e.arguments {
        out.push_str(&format!(
            "arguments: {}\n",
            esc(&truncate(&redactor.apply(a), 200))
        ));
    }
    match &e.label {
        Some((l, source)) => {
            out.push_str(&format!("label:     {} ({source})\n", esc(&label_text(l))))
        }
        None => out.push_str("label:     none (unlabelled)\n"),
    }
    for r in &e.matching {
        let what = match (r.status.as_str(), r.expected) {
            ("matched", Some(n)) => format!("matches expected call {n} ({}) ✓", esc(&r.tool)),
            ("mismatch", Some(n)) => format!(
                "differs from expected call {n} ({}): {}",
                esc(&r.tool),
                esc(&redactor.apply(r.keys.as_deref().unwrap_or_default()))
            ),
            ("unexpected", _) => format!(
                "unexpected: a {} call no expected call accounts for",
                r.effect.as_deref().unwrap_or("mutating")
            ),
            (other, _) => other.to_string(),
        };
        out.push_str(&format!("expected:  {what}\n"));
    }
    let outcome = match &e.status {
        Some(s) => {
            let mut t = s.clone();
            if let Some(r) = &e.reason {
                t.push_str(&format!(", reason {}", esc(r)));
            }
            if let Some(m) = &e.message {
                t.push_str(&format!(": {}", esc(&truncate(&redactor.apply(m), 160))));
            }
            t
        }
        None => "none recorded".to_string(),
    };
    out.push_str(&format!("outcome:   {outcome}\n"));
    let mut verdict = e.rung.as_str().to_uppercase();
    if e.violated {
        verdict.push_str(" · violated: selected a forbidden tool");
    }
    out.push_str(&format!("rung:      {verdict}\n\nladder walk\n"));
    for w in &e.walk {
        let name = if w.rung == crate::model::Rung::Execution && e.boundary.is_none() {
            "boundary"
        } else {
            w.rung.as_str()
        };
        let state = if w.state == crate::ladder::WalkState::Failed && w.rung == e.rung {
            "FAILED ←"
        } else {
            w.state.as_str()
        };
        out.push_str(&format!("  {name:<15} {state:<12} {}\n", esc(&w.note)));
    }
    let visible = e.tools.iter().filter(|t| t.visible).count();
    out.push_str(&format!(
        "\ntools: {} visible, {} hidden\n",
        visible,
        e.tools.len() - visible
    ));
    let width = e
        .tools
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(4)
        .min(40);
    for t in &e.tools {
        out.push_str(&format!(
            "  {:<7} {:<width$}  {:<15} {}\n",
            if t.visible { "visible" } else { "hidden" },
            esc(&t.name),
            t.rule.as_str(),
            esc(&t.why),
        ));
    }
    if !e.findings.is_empty() {
        out.push_str("\nfindings\n");
        for f in &e.findings {
            out.push_str(&format!("  {}: {}\n", f.kind, esc(&f.detail)));
        }
    }
    out
}
