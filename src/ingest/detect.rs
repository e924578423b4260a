//! Which format a file is in: rung's own JSON Lines (decided from its first
//! non-blank line, so that it can stream), else the shape of the first JSON
//! value (or of its first item, for a list).

use std::path::Path;

use serde_json::Value;

use super::{anthropic, openai, otlp, swe_agent, tau_bench};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Rung,
    Otlp,
    OpenAi,
    Anthropic,
    TauBench,
    SweAgent,
}

/// The importers, in the order auto-detection tries them.
pub const IMPORTERS: &[Format] = &[
    Format::Otlp,
    Format::TauBench,
    Format::SweAgent,
    Format::OpenAi,
    Format::Anthropic,
];

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Rung => "rung",
            Format::Otlp => "otlp",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::TauBench => "tau-bench",
            Format::SweAgent => "swe-agent",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        [Format::Rung]
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
            Format::OpenAi => openai::check(v),
            Format::Anthropic => anthropic::check(v),
            Format::TauBench => tau_bench::check(v),
            Format::SweAgent => swe_agent::check(v),
        }
    }

    /// Which files of a folder this format reads.
    pub fn accepts(self) -> fn(&Path) -> bool {
        match self {
            Format::Rung => super::is_trace_file,
            Format::SweAgent => |p| name_ends(p, &[".traj", ".json", ".jsonl"]),
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
        let why = f.check(rec);
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
    }

    #[test]
    fn failure_lists_every_format_with_reasons() {
        let e = detect(&json!({"foo": 1}), "it has no \"type\" field").unwrap_err();
        assert_eq!(
            e,
            "matches no known trace format; tried:\n  rung: it has no \"type\" field\n  otlp: no \"resourceSpans\" list at the top level\n  tau-bench: no \"traj\" list; no \"task_id\"\n  swe-agent: no \"history\" list\n  openai: no \"messages\" list\n  anthropic: no \"messages\" list\nname one with --format (auto, rung, otlp, openai, anthropic, tau-bench, swe-agent)"
        );
    }
}
