//! OTLP JSON trace exports (`resourceSpans` → `scopeSpans` → `spans`) in the
//! GenAI semantic conventions, OpenInference or OpenLLMetry (old and new),
//! plus the `rung.*` attributes of `docs/otel.md`. A trace is a run; each
//! inference span is one model turn; `execute_tool` spans give outcomes.
//!
//! `wire` decodes the JSON encoding, `collect` gathers spans by trace,
//! `span` says what a span records, `llm` reads a model turn through the
//! conventions (`genai`, `openinference`, `openllmetry`), `rung_attrs`
//! applies the `rung.*` attributes, and `map` turns a trace into records.

mod collect;
mod genai;
mod llm;
mod map;
mod openinference;
mod openllmetry;
mod rung_attrs;
mod span;
mod wire;

pub use collect::Collector;
pub use wire::{any_value, check};

#[cfg(test)]
mod tests;
