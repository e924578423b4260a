//! Reports: each kind builds one row model ([`model::Report`]) from its
//! results, and [`render`] writes any model as an aligned table, markdown,
//! CSV (RFC 4180) or the JSON shapes of `cli.md`. Pure: results in, text
//! out. Every string from a trace is escaped before it is printed.
//!
//! A new report is one file here that builds a `Report`.

pub mod model;

pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;

pub mod budget;
pub mod compare;
pub mod confusions;
pub mod consistency;
pub mod diff;
pub mod findings;
pub mod ladder;
pub mod metrics;
pub mod parallel;
pub mod refusals;
pub mod runs;
pub mod stream;
pub mod tools;

pub use json::json_text;
pub use model::Report;
pub use refusals::change;
pub use table::{WIDTH, wrap};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

/// The report in one format.
pub fn render(r: &Report, format: Format) -> String {
    match format {
        Format::Table => table::render(r),
        Format::Markdown => markdown::render(r),
        Format::Csv => csv::render(r),
        Format::Json => json::render(r),
    }
}
