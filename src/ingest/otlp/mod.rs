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
mod events;
mod genai;
mod kept;
mod llm;
mod map;
mod openinference;
mod openllmetry;
mod proto;
mod rung_attrs;
mod runs;
mod span;
mod tools;
mod wire;

pub use collect::{Collector, json_spans};
pub use map::map_trace;
pub use proto::spans as proto_spans;
pub use span::{Hint, Span};
pub use wire::{Attrs, any_value, check};

/// Where the spans of a trace were read from (the run's `imported_from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// An OTLP export: JSON in a file, or received by `rung serve`.
    Otlp,
    /// A Langfuse trace export.
    Langfuse,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Otlp => "otlp",
            Source::Langfuse => "langfuse",
        }
    }
}

#[cfg(test)]
mod tests;
