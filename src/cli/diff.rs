//! `rung diff OLD NEW`: two catalogue versions compared tool by tool.

use std::time::Instant;

use clap::Args;

use super::{Global, log, open_read, print};
use crate::error::Result;
use crate::redact::Redactor;
use crate::report::{self, Format};
use crate::store::compare;

/// `--help`: what the command shows and its JSON.
pub const LONG_ABOUT: &str = "Compares two catalogue versions: tools added and removed; removed tools \
whose labels (acceptable sets of cases for the same task and step) now point at a new tool, as \
renamed-or-merged candidates; and per tool in both, which of description, hints (use_when, \
avoid_when), schema, family, effect and open_world changed, with a word diff of the \
description ([-removed-] {+added+}; secrets masked unless --no-redact).\n\n\
JSON: {\"old\", \"new\", \"added\": [names], \"removed\": [names], \"renamed_or_merged\": \
[{\"into\", \"from\": [names], \"kind\": \"renamed\"|\"merged\", \"tasks\"}], \"changed\": \
[{\"name\", \"fields\": [...], \"description_diff\", \"description_words\": [{\"op\", \"text\"}], \"use_when\" and \"avoid_when\": {\"old\", \
\"new\"} or null}], \
\"unchanged\"}; every list by name. CSV: a line per tool added, removed or changed.";

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The older catalogue version.
    pub old: String,
    /// The newer catalogue version.
    pub new: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

pub fn run(g: &Global, args: &DiffArgs) -> Result<()> {
    let start = Instant::now();
    let store = open_read(g)?;
    let config = store.config()?;
    let redactor = Redactor::new(&config.redact.patterns, g.no_redact)?;
    let mask = |s: &str| redactor.apply(s).into_owned();
    let d = compare::diff(&store.conn, &args.old, &args.new, &mask)?;
    let built = report::diff::build(&d);
    tracing::info!(
        old = %crate::text::escape(&args.old),
        new = %crate::text::escape(&args.new),
        added = d.added.len(),
        removed = d.removed.len(),
        changed = d.changed.len(),
        elapsed_ms = log::elapsed_ms(start),
        "diff"
    );
    print(&report::render(&built, args.format))
}
