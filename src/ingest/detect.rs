//! Which format a file is in: rung's own JSON Lines (decided from its first
//! non-blank line, so that it can stream), else the shape of the first JSON
//! value (or of its first item, for a list).

use std::path::Path;

use serde_json::Value;

use super::{
    anthropic, bfcl, gemini, inspect, langfuse, messages, openai, otlp, responses, swe_agent,
    tau_bench,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Rung,
    Otlp,
    Langfuse,
    OpenAi,
    OpenAiResponses,
    Anthropic,
    Gemini,
    TauBench,
    SweAgent,
    Inspect,
    Messages,
    /// BFCL's files, read together (never auto-detected).
    Bfcl,
}

/// What an import does with a part an importer recognised but could not
/// map (a call with no tool name, a tool span that answers no call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drops {
    /// The import fails, unless `--keep-going`.
    Fatal,
    /// The import goes on; each is counted in the summary and listed with
    /// `-v` (or `--keep-going`).
    Counted,
}

/// The importers, in the order auto-detection tries them.
pub const IMPORTERS: &[Format] = &[
    Format::Otlp,
    Format::Inspect,
    Format::Langfuse,
    Format::TauBench,
    Format::SweAgent,
    Format::OpenAiResponses,
    Format::Gemini,
    Format::OpenAi,
    Format::Anthropic,
    Format::Messages,
];

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Rung => "rung",
            Format::Otlp => "otlp",
            Format::Langfuse => "langfuse",
            Format::OpenAi => "openai",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::TauBench => "tau-bench",
            Format::SweAgent => "swe-agent",
            Format::Inspect => "inspect",
            Format::Messages => "messages",
            Format::Bfcl => "bfcl",
        }
    }

    /// Whether a JSON list can be one record of this format (a transcript
    /// list), not only a list of records.
    fn reads_lists(self) -> bool {
        matches!(
            self,
            Format::Messages | Format::OpenAiResponses | Format::Gemini
        )
    }

    /// Whether a JSON list of this format holds one record per item (else
    /// the whole list is one record).
    pub fn splits(self, list: &Value) -> bool {
        match self {
            Format::Messages => false,
            _ => !(self.reads_lists() && self.check(list).is_empty()),
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        [Format::Rung, Format::Bfcl]
            .iter()
            .chain(IMPORTERS)
            .copied()
            .find(|f| f.as_str() == s)
    }

    /// Why a value (a record of this format) is not one; empty when it is.
    pub fn check(self, v: &Value) -> Vec<String> {
        match self {
            Format::Rung => rung_reason(v).into_iter().collect(),
            Format::Otlp => otlp::check(v),
            Format::Langfuse => langfuse::check(v),
            Format::OpenAi => openai::check(v),
            Format::OpenAiResponses => responses::check(v),
            Format::Anthropic => anthropic::check(v),
            Format::Gemini => gemini::check(v),
            Format::TauBench => tau_bench::check(v),
            Format::SweAgent => swe_agent::check(v),
            Format::Inspect => inspect::check(v),
            Format::Messages => messages::check(v),
            Format::Bfcl => bfcl::check(v),
        }
    }

    /// What dropping a part means in this format: span traces (OTLP,
    /// Langfuse) count and list them, so that one span a convention cannot
    /// map never costs the rest of the trace (nor a `rung serve` payload).
    pub fn drops(self) -> Drops {
        match self {
            Format::Otlp | Format::Langfuse => Drops::Counted,
            _ => Drops::Fatal,
        }
    }

    /// Which files of a folder this format reads.
    pub fn accepts(self) -> fn(&Path) -> bool {
        match self {
            Format::Rung => super::is_trace_file,
            Format::SweAgent => |p| name_ends(p, &[".traj", ".json", ".jsonl"]),
            Format::Inspect => |p| name_ends(p, &[".eval", ".json", ".json.gz"]),
            _ => |p| name_ends(p, &[".json", ".jsonl", ".json.gz", ".jsonl.gz"]),
        }
    }
}

fn name_ends(p: &Path, ends: &[&str]) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    ends.iter().any(|e| name.ends_with(e))
}

/// Files a folder holds for `--format auto`: `*.jsonl` and `*.jsonl.gz`, as
/// trace-format.md defines a directory argument (each is then detected, so
/// JSON Lines exports of other formats come along). Other importers' files
/// (`*.json`, `*.traj`) are taken from a folder when their format is named.
pub fn auto_accepts(p: &Path) -> bool {
    super::is_trace_file(p)
}

const RUNG_TYPES: &[&str] = &["catalogue", "run", "decision", "case"];

/// Why a JSON value is not a rung record, if it is not.
pub fn rung_reason(v: &Value) -> Option<String> {
    match v.get("type") {
        Some(Value::String(t)) if RUNG_TYPES.contains(&t.as_str()) => None,
        Some(Value::String(t)) => Some(format!(
            "its \"type\" is {}, not catalogue, run, decision or case",
            crate::text::echo(t)
        )),
        Some(_) => Some("its \"type\" is not a string".to_string()),
        None if v.is_object() => Some("it has no \"type\" field".to_string()),
        None => Some(format!("it is {}, not an object", openai::kind(v))),
    }
}

/// Whether the first non-blank line of a file makes it a rung trace: a
/// JSON object whose top-level "type" is a rung record type. Checked without
/// building the value, so a 100 MB first line costs no extra copy.
pub fn is_rung_line(line: &[u8]) -> bool {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct TypeOf;
    impl<'de> Visitor<'de> for TypeOf {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut ty = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "type" && ty.is_none() {
                    ty = map
                        .next_value::<Option<serde_json::Value>>()?
                        .and_then(|v| match v {
                            Value::String(s) => Some(s),
                            _ => None,
                        });
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(ty)
        }
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let mut de = serde_json::Deserializer::from_slice(line);
    match de.deserialize_map(TypeOf).and_then(|t| de.end().map(|_| t)) {
        Ok(Some(t)) => RUNG_TYPES.contains(&t.as_str()),
        _ => false,
    }
}

/// The record auto-detection looks at: the value, or a list's first item.
fn first_record(v: &Value) -> Option<&Value> {
    match v {
        Value::Array(items) => items.first(),
        other => Some(other),
    }
}

/// Detects an importer from a file's first JSON value; on failure, says
/// why each format does not fit (at most three reasons each).
pub fn detect(first: &Value, rung_why: &str) -> Result<Option<Format>, String> {
    // A whole OTLP export may also come as a list of exports.
    let Some(rec) = first_record(first) else {
        return Ok(None);
    };
    let mut tried = vec![format!("  rung: {rung_why}")];
    for f in IMPORTERS {
        // A list may be one transcript (a message list) or hold records.
        let why = match first {
            Value::Array(_) if f.reads_lists() => {
                let whole = f.check(first);
                if whole.is_empty() || *f == Format::Messages || !f.check(rec).is_empty() {
                    whole
                } else {
                    Vec::new()
                }
            }
            _ => f.check(rec),
        };
        if why.is_empty() {
            // A plain chat passes both transcript checks; Anthropic's own
            // shapes decide.
            if *f == Format::OpenAi
                && anthropic::check(rec).is_empty()
                && anthropic::has_anthropic_signs(rec)
            {
                return Ok(Some(Format::Anthropic));
            }
            return Ok(Some(*f));
        }
        let shown: Vec<String> = why.into_iter().take(3).collect();
        tried.push(format!("  {}: {}", f.as_str(), shown.join("; ")));
    }
    Err(format!(
        "matches no known trace format; tried:\n{}\nname one with --format ({})",
        tried.join("\n"),
        super::FORMATS.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_each_shape() {
        let d = |v: Value| detect(&v, "-").unwrap().map(Format::as_str);
        assert_eq!(d(json!({"resourceSpans": []})), Some("otlp"));
        assert_eq!(
            d(json!({"trace": {"id": "t"}, "observations": []})),
            Some("langfuse")
        );
        assert_eq!(d(json!([{"task_id": 1, "traj": []}])), Some("tau-bench"));
        assert_eq!(d(json!({"history": [{"role": "user"}]})), Some("swe-agent"));
        assert_eq!(
            d(json!({"messages": [{"role": "user", "content": "hi"}]})),
            Some("openai")
        );
        assert_eq!(
            d(json!({"system": "s", "messages": [{"role": "user", "content": "hi"}]})),
            Some("anthropic")
        );
        assert_eq!(
            d(
                json!({"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "a", "input": {}}]}]})
            ),
            Some("anthropic")
        );
        assert_eq!(d(json!([])), None);
        // Lists that are one transcript, and lists of records.
        let chat =
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]);
        assert_eq!(d(chat.clone()), Some("messages"));
        assert!(!Format::Messages.splits(&chat));
        let items = json!([{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]);
        assert_eq!(d(items.clone()), Some("openai-responses"));
        assert!(!Format::OpenAiResponses.splits(&items));
        let bodies =
            json!([{"object": "response", "output": []}, {"object": "response", "output": []}]);
        assert_eq!(d(bodies.clone()), Some("openai-responses"));
        assert!(Format::OpenAiResponses.splits(&bodies));
        assert_eq!(
            d(json!([{"role": "user", "parts": [{"text": "hi"}]}])),
            Some("gemini")
        );
        assert_eq!(d(json!({"candidates": []})), Some("gemini"));
        assert_eq!(
            d(json!({"input": "hi", "model": "gpt-4.1"})),
            Some("openai-responses")
        );
        assert_eq!(
            d(json!({"version": 2, "eval": {"task": "t"}, "samples": []})),
            Some("inspect")
        );
        // Response bodies: a chat completion and an Anthropic message.
        assert_eq!(
            d(
                json!({"object": "chat.completion", "id": "chatcmpl-1", "choices": [{"message": {"role": "assistant", "content": "hi"}}]})
            ),
            Some("openai")
        );
        assert_eq!(
            d(json!({"choices": [{"message": {"role": "assistant", "content": "hi"}}]})),
            Some("openai")
        );
        assert_eq!(
            d(
                json!({"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "text", "text": "hi"}]})
            ),
            Some("anthropic")
        );
    }

    #[test]
    fn near_misses_of_response_bodies_are_not_taken() {
        let why = |v: Value| detect(&v, "-").unwrap_err();
        // A streamed chunk, a legacy completion, a user message with a
        // "type", a message whose content is text: none is a response body.
        assert!(
            why(json!({"object": "chat.completion.chunk", "choices": [{"delta": {"content": "h"}}]}))
                .contains("  openai: its \"object\" is \"chat.completion.chunk\": a streamed chunk, not a whole response\n")
        );
        assert!(
            why(json!({"object": "text_completion", "choices": [{"text": "hi"}]}))
                .contains("  openai: no \"messages\" list")
        );
        assert!(
            why(json!({"choices": [{"text": "hi"}]})).contains("  openai: no \"messages\" list")
        );
        for v in [
            json!({"type": "message", "role": "user", "content": [{"type": "text", "text": "hi"}]}),
            json!({"type": "message", "role": "assistant", "content": "hi"}),
        ] {
            assert!(why(v).contains("  anthropic: no \"messages\" list"));
        }
    }

    #[test]
    fn failure_lists_every_format_with_reasons() {
        let e = detect(&json!({"foo": 1}), "it has no \"type\" field").unwrap_err();
        assert_eq!(
            e,
            "matches no known trace format; tried:\n  rung: it has no \"type\" field\n  otlp: no \"resourceSpans\" list at the top level\n  inspect: no \"eval\" object\n  langfuse: no \"trace\" object; no \"observations\" list\n  tau-bench: no \"traj\" list; no \"task_id\"\n  swe-agent: no \"history\" list\n  openai-responses: no \"input\" or \"output\" list\n  gemini: no \"contents\" or \"candidates\" list\n  openai: no \"messages\" list (a request or transcript) nor \"choices\" (a chat completion)\n  anthropic: no \"messages\" list (a request or transcript) nor \"type\": \"message\" (a response)\n  messages: a message list is a JSON list, not an object\nname one with --format (auto, rung, otlp, langfuse, openai, openai-responses, anthropic, gemini, tau-bench, swe-agent, inspect, messages, bfcl)"
        );
    }
}
