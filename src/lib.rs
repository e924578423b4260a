//! rung: a terminal trace inspector and debugging ladder for tool-using AI
//! agents. The binary is a thin shell over this library.

pub mod cli;
pub mod config;
pub mod error;
pub mod export;
pub mod ingest;
mod memory;
pub mod redact;
pub mod report;
pub mod serve;
pub mod store;
pub mod text;
pub mod tui;

// The pure core, under the paths the rest of the crate has always used.
pub use rung_core::{filter, ladder, metrics, model, window};
