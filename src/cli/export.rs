//! `rung export --format parquet DIR`: the database as Parquet files for
//! a warehouse engine (layout and queries: docs/scale.md).

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};

use super::{FilterArgs, Global, log, open_read, window};
use crate::error::Result;
use crate::export::{self, Options};
use crate::redact::Redactor;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Parquet,
}

pub const LONG_ABOUT: &str = "Writes the runs, the decisions with their rung and parts, the \
refusals, the findings and the catalogue tools as Parquet files, partitioned by day: \
DIR/TABLE/day=YYYY-MM-DD/part-0.parquet (day=undated for rows without a time; tools/part-0.parquet \
is not partitioned). A decision's day is its time (its `at`, else its run's `started_at`), a run's \
its `started_at` (else its first decision's), a finding's its decision's or run's. The report \
filters select the decisions exported (with their runs, refusals and findings): what the \
decision-level reports count; docs/scale.md says which reports need an export without them. \
Every string from a trace (ids, names, free text) is masked as in the reports unless \
--no-redact. DIR must be new or empty; --force replaces the tables of an earlier export in it \
(a failed export leaves DIR as it was). docs/scale.md has the SQL of each report over these \
files.";

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "parquet")]
    pub format: ExportFormat,
    /// The directory to write (created if missing; must be empty unless --force).
    pub dir: PathBuf,
    /// Replace the tables of an earlier export in DIR.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
}

pub fn run(g: &Global, args: &ExportArgs) -> Result<()> {
    let start = Instant::now();
    let store = open_read(g)?;
    let config = store.config()?;
    let redactor = Redactor::new(&config.redact.patterns, g.no_redact)?;
    let opts = Options {
        force: args.force,
        filter: window::filter(&args.filter, false)?,
        redactor,
    };
    let summary = export::export(&store.conn, &args.dir, &opts)?;
    let counts = summary
        .iter()
        .map(|t| format!("{} {}", t.rows, t.table))
        .collect::<Vec<_>>()
        .join(", ");
    let files: u64 = summary.iter().map(|t| t.files).sum();
    tracing::info!(
        dir = %args.dir.display(),
        filter = %args.filter.describe(),
        tables = %counts,
        files,
        elapsed_ms = log::elapsed_ms(start),
        "export"
    );
    if !g.quiet {
        eprintln!(
            "exported {counts} to {} ({files} files)",
            crate::text::escape(&args.dir.display().to_string())
        );
    }
    Ok(())
}
