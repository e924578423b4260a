//! `rung report KIND`: every report in table, markdown, csv or json.

use std::time::Instant;

use clap::{Args, ValueEnum};

use super::{FilterArgs, Global, log, open_read, print, window};
use crate::error::{Error, Result};
use crate::metrics;
use crate::redact::Redactor;
use crate::report::{self, Format};
use crate::store::query;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Ladder,
    Metrics,
    Refusals,
    Confusions,
    Tools,
    Runs,
    Findings,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Which report.
    #[arg(value_enum)]
    pub kind: Kind,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub filter: FilterArgs,
}

pub fn run(g: &Global, args: &ReportArgs) -> Result<()> {
    let start = Instant::now();
    let store = open_read(g)?;
    let conn = &store.conn;
    let config = store.config()?;
    let m = &Redactor::new(&config.redact.patterns, g.no_redact).map_err(Error::usage)?;
    let filter = |a: &super::FilterArgs| -> Result<crate::filter::Filter> {
        let f = window::filter(a, false)?;
        window::values_exist(conn, &f, m)?;
        Ok(f)
    };
    let built = match args.kind {
        Kind::Ladder => {
            let f = filter(&args.filter)?;
            report::ladder::build(
                &query::ladder(conn, &f)?,
                &query::boundary_profile(conn, &f)?,
                m,
            )
        }
        Kind::Metrics => {
            let f = filter(&args.filter)?;
            report::metrics::build(&query::metrics(conn, &f)?, m)
        }
        Kind::Confusions => {
            let f = filter(&args.filter)?;
            report::confusions::build(&query::confusions(conn, &f)?, m)
        }
        Kind::Refusals => {
            let (f, since, until) = window::closed(&args.filter)?;
            window::values_exist(conn, &f, m)?;
            let items = query::refusals(conn, &f)?;
            let runs_affected = metrics::runs_affected(&items, since, until);
            let rep = metrics::refusals(items, since, until);
            report::refusals::build(&rep, runs_affected, m)
        }
        Kind::Tools => {
            let f = filter(&args.filter)?;
            report::tools::build(&query::tools(conn, &f)?, m)
        }
        Kind::Runs => {
            let f = filter(&args.filter)?;
            report::runs::build(&query::runs(conn, &f)?, m)
        }
        Kind::Findings => {
            let f = filter(&args.filter)?;
            report::findings::build(&query::findings(conn, &f)?, m)
        }
    };
    let text = report::render(&built, args.format);
    tracing::info!(
        kind = %format!("{:?}", args.kind).to_lowercase(),
        format = %format!("{:?}", args.format).to_lowercase(),
        filter = %args.filter.describe(),
        rows = built.rows.len(),
        elapsed_ms = log::elapsed_ms(start),
        "report"
    );
    print(&text)
}
