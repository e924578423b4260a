//! A model turn as an inference span records it: the menu it was given,
//! what it answered, its input messages, finish reasons and model, read
//! through each convention in turn (GenAI semantic conventions first, then
//! OpenInference, then old OpenLLMetry).

use std::collections::BTreeMap;

use serde_json::Value;

use super::span::Span;
use super::wire::Attrs;
use super::{events, genai, openinference, openllmetry};
use crate::ingest::convo::{Args, Call};

/// One model turn as an inference span records it.
pub struct Llm {
    pub defs: Option<Vec<Value>>,
    /// `None` when the span recorded no output messages.
    pub output: Option<OutMsg>,
    pub inputs: Vec<InMsg>,
    pub finish: Vec<String>,
    pub model: Option<String>,
    /// Attributes or events that were there but could not be read.
    pub problems: Vec<String>,
}

/// What the model answered: its text and calls.
#[derive(Default)]
pub struct OutMsg {
    pub text: Option<String>,
    pub calls: Vec<Call>,
}

/// One input message (or one part of it).
pub struct InMsg {
    pub role: String,
    pub text: Option<String>,
    pub tool_call_id: Option<String>,
    pub response: Option<Value>,
}

/// Attributes holding a JSON list, and what is lost when one does not.
const JSON_LISTS: &[(&str, &str)] = &[
    ("gen_ai.output.messages", "what the model answered"),
    (
        "gen_ai.input.messages",
        "its input (and the results it carries)",
    ),
    ("gen_ai.tool.definitions", "the menu"),
];

/// Reads a model turn off an inference span.
pub fn read_llm(s: &Span) -> Llm {
    let a = &s.attrs;
    let mut problems = Vec::new();
    for (key, what) in JSON_LISTS {
        if let Some(v) = a.get(*key).filter(|v| !v.is_null())
            && !matches!(json_attr(Some(v)), Some(Value::Array(_)))
        {
            problems.push(format!(
                "{key} is not a JSON list, so {what} could not be read"
            ));
        }
    }
    let defs = genai::defs(a)
        .or_else(|| genai::pydantic_defs(a))
        .or_else(|| openinference::defs(a))
        .or_else(|| openllmetry::defs(a));
    let output = genai::output(a)
        .or_else(|| openinference::output(a))
        .or_else(|| openllmetry::output(a))
        .or_else(|| openinference::output_value(a))
        .or_else(|| match events::output(&s.events)? {
            Ok(o) => Some(o),
            Err(why) => {
                problems.push(why);
                None
            }
        });
    let inputs = genai::inputs(a)
        .or_else(|| openinference::inputs(a))
        .or_else(|| openllmetry::inputs(a))
        .or_else(|| events::inputs(&s.events))
        .unwrap_or_default();
    let finish = genai::finish(a)
        .or_else(|| openinference::finish(a))
        .or_else(|| openllmetry::finish(a))
        .unwrap_or_default();
    let model = s
        .str("gen_ai.request.model")
        .map(String::from)
        .or_else(|| openinference::invocation_model(a))
        .or_else(|| s.str("llm.request.model").map(String::from))
        .or_else(|| s.str("gen_ai.response.model").map(String::from))
        .or_else(|| s.str("llm.model_name").map(String::from));
    Llm {
        defs,
        output,
        inputs,
        finish,
        model,
        problems,
    }
}

/// A JSON attribute: a JSON string parsed, or a structured value as is.
pub fn json_attr(v: Option<&Value>) -> Option<Value> {
    match v? {
        Value::String(s) => serde_json::from_str(s).ok(),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// Attributes grouped by index, keyed by what follows it.
pub type Indexed<'a> = BTreeMap<usize, BTreeMap<&'a str, &'a Value>>;

/// `prefix.N.rest` attributes grouped by N, keyed by `rest`.
pub fn indexed<'a>(attrs: &'a Attrs, prefix: &str) -> Indexed<'a> {
    let mut out: Indexed<'a> = BTreeMap::new();
    let p = format!("{prefix}.");
    for (k, v) in attrs.range(p.clone()..) {
        let Some(rest) = k.strip_prefix(&p) else {
            break;
        };
        if let Some((n, key)) = rest.split_once('.')
            && let Ok(n) = n.parse::<usize>()
        {
            out.entry(n).or_default().insert(key, v);
        }
    }
    out
}

/// The same, over a sub-map produced by `indexed`.
pub fn indexed_in<'a>(attrs: &BTreeMap<&'a str, &'a Value>, prefix: &str) -> Indexed<'a> {
    let mut out: Indexed<'a> = BTreeMap::new();
    let p = format!("{prefix}.");
    for (k, v) in attrs {
        if let Some(rest) = k.strip_prefix(&p)
            && let Some((n, key)) = rest.split_once('.')
            && let Ok(n) = n.parse::<usize>()
        {
            out.entry(n).or_default().insert(key, v);
        }
    }
    out
}

/// A string member of a grouped attribute.
pub fn s_of(m: &BTreeMap<&str, &Value>, k: &str) -> Option<String> {
    m.get(k).and_then(|v| v.as_str()).map(String::from)
}

/// A tool definition's name: `name` or `function.name`.
pub fn def_name(d: &Value) -> Option<String> {
    d.get("name")
        .or_else(|| d.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
        .map(String::from)
}

/// Calls of an OpenAI-style `tool_calls` list.
pub fn openai_calls(list: &Value) -> Vec<Call> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|tc| {
            let f = tc.get("function");
            Call {
                id: tc.get("id").and_then(Value::as_str).map(String::from),
                name: f
                    .and_then(|f| f.get("name"))
                    .or_else(|| tc.get("name"))
                    .and_then(Value::as_str)
                    .map(String::from),
                arguments: Args::from_value(
                    f.and_then(|f| f.get("arguments"))
                        .or_else(|| tc.get("arguments")),
                ),
            }
        })
        .collect()
}

/// Input messages written as `prefix.N.{prefix2}role`, `content`,
/// `tool_call_id` (OpenInference and old OpenLLMetry).
pub fn indexed_inputs(msgs: &Indexed<'_>, prefix: &str) -> Vec<InMsg> {
    msgs.values()
        .map(|m| {
            let role = s_of(m, &format!("{prefix}role")).unwrap_or_default();
            let content = m
                .get(format!("{prefix}content").as_str())
                .map(|v| (*v).clone());
            InMsg {
                text: content.as_ref().and_then(|c| c.as_str()).map(String::from),
                tool_call_id: s_of(m, &format!("{prefix}tool_call_id")),
                response: (role == "tool").then(|| content.unwrap_or(Value::Null)),
                role,
            }
        })
        .collect()
}

/// Whether a message's content is a list of OpenAI tool call objects
/// (`{"id", "type": "function", "function": {"name", ...}}`), as the
/// instrumentation recorded them, not text the model wrote.
pub fn is_call_list(v: &Value) -> bool {
    let Value::Array(items) = v else {
        return false;
    };
    !items.is_empty()
        && items.iter().all(|c| {
            c.get("type").and_then(Value::as_str) == Some("function")
                && c.get("id").is_some_and(Value::is_string)
                && c.get("function")
                    .and_then(|f| f.get("name"))
                    .is_some_and(Value::is_string)
        })
}
