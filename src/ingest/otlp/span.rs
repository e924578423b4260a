//! A span as the mapping sees it, whatever it was read from, and what kind
//! of work it records: a model turn, a tool execution, or something else.

use serde_json::Value;

use super::wire::Attrs;

/// One span, with what the mapping needs.
#[derive(Debug, Clone)]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
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
}

impl Span {
    pub fn str(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(Value::as_str)
    }

    pub fn is_inference(&self) -> bool {
        match self.str("gen_ai.operation.name") {
            Some("chat" | "text_completion" | "generate_content" | "completion") => true,
            Some(_) => false,
            None => {
                self.str("openinference.span.kind") == Some("LLM")
                    || matches!(self.str("llm.request.type"), Some("chat" | "completion"))
                    || self.attrs.contains_key("gen_ai.output.messages")
                    || self
                        .attrs
                        .keys()
                        .any(|k| k.starts_with("gen_ai.completion."))
            }
        }
    }

    pub fn is_tool(&self) -> bool {
        self.str("gen_ai.operation.name") == Some("execute_tool")
            || self.str("openinference.span.kind") == Some("TOOL")
            || self.str("traceloop.span.kind") == Some("tool")
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
        self.str("gen_ai.tool.call.id")
            .or_else(|| self.str("tool_call.id"))
            .or_else(|| self.str("tool.id"))
            .map(String::from)
    }
}
