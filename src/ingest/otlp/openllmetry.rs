//! Old OpenLLMetry (Traceloop): `llm.request.functions` (a JSON list or
//! `llm.request.functions.N.*`), `gen_ai.completion.N.*` and
//! `gen_ai.prompt.N.*`. Current releases write the GenAI conventions.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::llm::{
    InMsg, OutMsg, indexed, indexed_in, indexed_inputs, is_call_list, json_attr, openai_calls, s_of,
};
use super::wire::Attrs;
use crate::ingest::convo::{Args, Call};

/// The menu: `llm.request.functions`.
pub fn defs(a: &Attrs) -> Option<Vec<Value>> {
    if let Some(Value::Array(d)) = json_attr(a.get("llm.request.functions")) {
        return Some(d);
    }
    let funcs = indexed(a, "llm.request.functions");
    if funcs.is_empty() {
        return None;
    }
    Some(
        funcs
            .values()
            .map(|f| {
                let mut d = Map::new();
                for k in ["name", "description"] {
                    if let Some(v) = s_of(f, k) {
                        d.insert(k.into(), json!(v));
                    }
                }
                if let Some(p) = json_attr(f.get("parameters").copied()) {
                    d.insert("parameters".into(), p);
                }
                Value::Object(d)
            })
            .collect(),
    )
}

/// The first `gen_ai.completion.N`: content, tool calls (a JSON list or
/// `tool_calls.N.*`), or a legacy `function_call`. Koog writes each of
/// parallel calls as a completion of its own, its content the call list:
/// the completions after the first that hold only calls are the same
/// turn's calls.
pub fn output(a: &Attrs) -> Option<OutMsg> {
    let old = indexed(a, "gen_ai.completion");
    let mut msgs = old.values();
    let mut o = completion(msgs.next()?);
    if !o.calls.is_empty() {
        for m in msgs {
            let next = completion(m);
            if next.calls.is_empty() || next.text.is_some() {
                break;
            }
            o.calls.extend(next.calls);
        }
    }
    Some(o)
}

/// One `gen_ai.completion.N` message.
fn completion(m: &BTreeMap<&str, &Value>) -> OutMsg {
    let content = m.get("content").copied();
    let content_calls = json_attr(content).filter(is_call_list);
    let mut o = OutMsg {
        text: if content_calls.is_some() {
            None
        } else {
            s_of(m, "content")
        },
        calls: Vec::new(),
    };
    if let Some(list) = &content_calls {
        o.calls = openai_calls(list);
    }
    if let Some(tc) = m.get("tool_calls").and_then(|v| json_attr(Some(v))) {
        o.calls.extend(openai_calls(&tc));
    }
    for tc in indexed_in(m, "tool_calls").values() {
        o.calls.push(Call {
            id: s_of(tc, "id"),
            name: s_of(tc, "name"),
            arguments: Args::from_value(tc.get("arguments").copied()),
        });
    }
    if o.calls.is_empty()
        && let Some(name) = s_of(m, "function_call.name")
    {
        o.calls.push(Call {
            id: None,
            name: Some(name),
            arguments: Args::from_value(m.get("function_call.arguments").copied()),
        });
    }
    o
}

/// `gen_ai.prompt.N.*`, when there are any.
pub fn inputs(a: &Attrs) -> Option<Vec<InMsg>> {
    let msgs = indexed(a, "gen_ai.prompt");
    (!msgs.is_empty()).then(|| indexed_inputs(&msgs, ""))
}

/// `gen_ai.completion.0.finish_reason`.
pub fn finish(a: &Attrs) -> Option<Vec<String>> {
    a.get("gen_ai.completion.0.finish_reason")
        .and_then(Value::as_str)
        .map(|s| vec![s.to_string()])
}
