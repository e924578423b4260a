//! A span as the mapping sees it, whatever it was read from, and what kind
//! of work it records: a model turn, a tool execution, or something else.

use serde_json::Value;

use super::wire::Attrs;

/// One span, with what the mapping needs.
#[derive(Debug, Clone, Default)]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
    /// The parent span's id; `None` for a trace's root.
    pub parent: Option<String>,
    pub name: String,
    pub start: Option<i128>,
    pub end: Option<i128>,
    pub attrs: Attrs,
    pub error: bool,
    pub status_message: Option<String>,
    pub exception: Option<String>,
    pub line: u64,
    pub order: usize,
    pub service: Option<String>,
    /// Its `gen_ai.*` events (messages before semantic conventions 1.37).
    pub events: Vec<Event>,
    /// What the source says the span is, when no attribute says so (a
    /// Langfuse observation written by Langfuse's own SDK).
    pub hint: Option<Hint>,
    /// About how many bytes it took in its source (to bound what is held).
    pub size: usize,
}

/// A span event the mapping reads.
#[derive(Debug, Clone)]
pub struct Event {
    pub name: String,
    pub attrs: Attrs,
}

/// A span's kind as its source states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    Inference,
    Tool,
}

/// `gen_ai.operation.name` values of a model call.
const INFERENCE_OPERATIONS: &[&str] =
    &["chat", "text_completion", "generate_content", "completion"];

impl Span {
    pub fn str(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(Value::as_str)
    }

    pub fn is_inference(&self) -> bool {
        match self.str("gen_ai.operation.name") {
            Some(op) => INFERENCE_OPERATIONS.contains(&op),
            None => {
                self.str("openinference.span.kind") == Some("LLM")
                    || matches!(self.str("llm.request.type"), Some("chat" | "completion"))
                    || self.attrs.contains_key("gen_ai.output.messages")
                    || self
                        .attrs
                        .keys()
                        .any(|k| k.starts_with("gen_ai.completion."))
                    || self.hint == Some(Hint::Inference)
            }
        }
    }

    /// A tool execution: `execute_tool`, an OpenInference or Traceloop
    /// tool span, or (Koog, pydantic-ai) a span that names the tool it ran
    /// and no operation.
    pub fn is_tool(&self) -> bool {
        let op = self.str("gen_ai.operation.name");
        op == Some("execute_tool")
            || self.str("openinference.span.kind") == Some("TOOL")
            || self.str("traceloop.span.kind") == Some("tool")
            || (op.is_none()
                && ((self.attrs.contains_key("gen_ai.tool.name") && !self.is_inference())
                    || self.hint == Some(Hint::Tool)))
    }

    /// The root of one agent run: `invoke_agent`, pydantic-ai's `agent
    /// run` / `NAME run`, or an OpenInference `AGENT` span.
    pub fn is_agent_run(&self) -> bool {
        self.str("gen_ai.operation.name") == Some("invoke_agent")
            || self.str("openinference.span.kind") == Some("AGENT")
            || self.name == "agent run"
            || (self.name.ends_with(" run")
                && (self.attrs.contains_key("gen_ai.agent.name")
                    || self.attrs.contains_key("agent_name")))
    }

    pub fn context(&self) -> String {
        format!("span {}", self.span_id)
    }

    /// The tool a tool span ran.
    pub fn tool_name(&self) -> Option<String> {
        self.str("gen_ai.tool.name")
            .or_else(|| self.str("tool.name"))
            .or_else(|| {
                (self.str("traceloop.span.kind") == Some("tool"))
                    .then(|| self.str("traceloop.entity.name"))
                    .flatten()
            })
            .or_else(|| self.name.strip_prefix("execute_tool "))
            .map(String::from)
    }

    /// The call id a tool span answers.
    pub fn tool_call_id(&self) -> Option<String> {
        ["gen_ai.tool.call.id", "tool_call.id", "tool.id"]
            .iter()
            .find_map(|k| self.attrs.get(*k).and_then(call_id))
    }
}

/// A call id: a string, or (Microsoft Agent Framework) a list whose last
/// item is the call's own id after the response's.
pub fn call_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(items) => items
            .iter()
            .rev()
            .find_map(|i| i.as_str().filter(|s| !s.is_empty()))
            .map(String::from),
        _ => None,
    }
}
