//! rung-core: the domain of rung (the trace model), the debugging ladder
//! and the metrics. Pure functions over model values: no SQLite, no
//! terminal, no command line, so the compiler keeps those out.

#![forbid(unsafe_code)]

pub mod ladder;
pub mod metrics;
pub mod model;
