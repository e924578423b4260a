//! `rung compare BASE CANDIDATE...`: menus side by side on the same tasks,
//! with paired tests, the base's confusion cells, a verdict for one cell
//! and the admission gate (exit 1 when a candidate fails it).

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{FilterArgs, Global, log, open_read, print, window};
use crate::error::{Error, Result};
use crate::redact::Redactor;
use crate::report::{self, Format};
use crate::store::compare::{self, CellSpec, CompareAsk};

/// `--help`: what the command shows and its JSON.
pub const LONG_ABOUT: &str = "Compares catalogue versions (menus) run on the same tasks. For each menu, \
side by side: runs, labelled first calls, first-call accuracy, wrong first calls recovered within \
3 turns and unrecovered (shares of labelled first calls), selection, abstention and no-call \
accuracy, violation rate, pass^k and definition tokens per turn (p50, p95); for each metric the \
change against BASE on what both ran, with a paired test: McNemar's exact test on runs paired by \
task and trial when the trials line up (every run of the shared tasks has a trial, none repeats), \
otherwise a sign test over the tasks both ran (over paired runs for tokens); a change whose \
p-value is above --alpha is marked \"not significant\". Then failures by rung with deltas, and \
BASE's confusion cells (the top 10, or --cell) with how many of each cell's attempts every \
candidate got right (paired by task, trial and position: the first decision, else the step).\n\n\
With --cell, each candidate's difference from BASE around the pair is recognised as rung diff \
sees it (only the pair's descriptions or hints changed; the pair unchanged but one of it absent \
from every recorded menu of the cell's attempts; the pair merged into one new tool), and the \
pattern gives the repair: sharper descriptions remove the error → they were ambiguous; hiding \
one does but descriptions do not → the router knows what the model is not told; only merging \
does → the distinction does not belong in the model's decision. Removing the error means every \
paired attempt right.\n\n\
--gate exits 1 unless every candidate is no worse than BASE on first-call accuracy and on \
unrecovered wrong first calls (one-sided at --alpha: significantly worse fails, as does no \
paired run at all) and, with --max-tokens, within that many definition tokens per turn at p95.\n\n\
JSON: {\"base\", \"candidates\", \"alpha\", \"max_tokens\", \"menus\": [the base first: \
{\"catalogue\", \"attempts\", \"labelled\", \"tasks\", rates as {value, numerator, \
denominator}, \"pass_hat_k\", \"definition_tokens_per_turn\": {p50, p95}, \"ladder\"}], \
\"comparisons\": [per candidate: {\"candidate\", \"pairing\": {tasks, by_trial, attempts}, \
\"changes\": [{\"metric\", \"base\", \"candidate\", \"change\", \"test\", \"pairs\", \"up\", \
\"down\", \"p_value\", \"significant\"}], \"rungs\": deltas}], \"cells\": [{\"acceptable\", \
\"selected\", \"attempts\", \"candidates\": [{\"catalogue\", \"paired\", \"right\", \
\"change\"}]}], \"verdict\": {\"repair\", \"text\"} or null, \"gate\": {\"passed\", \
\"candidates\": [...]} or null}. CSV: a line per (section, key, menu).";

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The incumbent catalogue version.
    pub base: String,
    /// Candidate catalogue versions.
    #[arg(required = true)]
    pub candidates: Vec<String>,
    /// One confusion cell of BASE: 'ACCEPTABLE→SELECTED' (or ->; several
    /// acceptable names comma-separated; `(no call)` for no call).
    #[arg(long, value_name = "CELL")]
    pub cell: Option<String>,
    /// Exit 1 unless every candidate passes the admission gate.
    #[arg(long)]
    pub gate: bool,
    /// Significance level of the tests.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// The gate's ceiling on definition tokens per turn at p95.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub filter: FilterArgs,
}

pub fn run(g: &Global, args: &CompareArgs) -> Result<ExitCode> {
    let start = Instant::now();
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(Error::usage(format!(
            "--alpha {}: a significance level is between 0 and 1, e.g. 0.05",
            args.alpha
        )));
    }
    if !args.filter.catalogue.is_empty() {
        return Err(Error::usage(
            "--catalogue does not apply to compare: name the menus as BASE and CANDIDATE",
        ));
    }
    if args.candidates.contains(&args.base) {
        return Err(Error::usage(format!(
            "{} is the base: a candidate must be another catalogue version",
            crate::text::echo(&args.base)
        )));
    }
    let cell = args.cell.as_deref().map(CellSpec::parse).transpose()?;
    let f = window::filter(&args.filter, false)?;
    let store = open_read(g)?;
    let config = store.config()?;
    let redactor = Redactor::new(&config.redact.patterns, g.no_redact)?;
    let mask = |s: &str| redactor.apply(s).into_owned();
    let ask = CompareAsk {
        base: args.base.clone(),
        candidates: args.candidates.clone(),
        cell,
        alpha: args.alpha,
        max_tokens: args.max_tokens,
    };
    let c = compare::compare_menus(&store.conn, &f, &ask, &mask)?;
    let text = report::compare::render(&c, args.format, args.gate)?;
    let passed = c.gate_passed();
    tracing::info!(
        base = %crate::text::escape(&args.base),
        candidates = args.candidates.len(),
        filter = %args.filter.describe(),
        gate = args.gate,
        passed,
        elapsed_ms = log::elapsed_ms(start),
        "compare"
    );
    print(&text)?;
    if args.gate && !passed {
        if !g.quiet {
            let failed: Vec<String> = c
                .gates
                .iter()
                .filter(|x| !x.passed)
                .map(|x| crate::text::echo(&x.candidate))
                .collect();
            eprintln!("gate failed: not admitted: {}", failed.join(", "));
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
