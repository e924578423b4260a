//! rung-core: the domain of rung (the trace model), the debugging ladder,
//! the metrics, and the report filter and time window they are asked
//! about. Pure functions over model values: no SQLite, no terminal, no
//! command line, so the compiler keeps those out.

#![forbid(unsafe_code)]
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

pub mod filter;
pub mod ladder;
pub mod metrics;
pub mod model;
pub mod window;
