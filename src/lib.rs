//! rung: a terminal trace inspector and debugging ladder for tool-using AI
//! agents. The binary is a thin shell over this library.

pub mod cli;
pub mod config;
pub mod error;
pub mod ingest;
pub mod ladder;
mod memory;
pub mod metrics;
pub mod model;
pub mod redact;
pub mod report;
pub mod store;
pub mod text;
pub mod tui;
