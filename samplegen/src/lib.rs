//! Deterministic generators for rung's bundled sample traces and synthetic benchmark data.
