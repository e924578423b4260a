//! rung: a terminal trace inspector and debugging ladder for tool-using AI
//! agents. The binary is a thin shell over this library.

// No unsafe code but the allocator hook in `memory` (one `allow` there).
#![deny(unsafe_code)]
// Library code returns typed errors instead of panicking; tests may unwrap.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod cli;
pub mod config;
pub mod error;
pub mod export;
pub mod find;
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
