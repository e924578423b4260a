//! Maps one conversation of recorded bodies: its messages in order (each
//! request's new messages, then its response's turn) as one transcript of
//! its API, read by that API's importer. Every message keeps the file and
//! line it came from, so decisions and dropped parts name them.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::body::{self, Api, Side};
use super::pair::{Pooled, Step};
use crate::ingest::convo::Out;
use crate::ingest::locate::Doc;
use crate::ingest::{anthropic, gemini, openai, responses};

/// A line of one of the import's sources, as one number: the source's
/// index (plus one) above bit 32, the line below.
pub fn enc(src: usize, line: u64) -> u64 {
    ((src as u64 + 1) << 32) | line.min(u32::MAX as u64)
}

/// The source and line [`enc`] made; `None` for a line it did not make.
pub fn dec(at: u64) -> Option<(usize, u64)> {
    let src = (at >> 32).checked_sub(1)?;
    Some((src as usize, at & u32::MAX as u64))
}

/// A body read again to be mapped: its value, its line, and the lines of
/// the items of its list (messages, input, output, contents, choices or
/// candidates).
pub struct Loaded {
    pub value: Value,
    pub line: u64,
    pub items: Vec<u64>,
}

impl Loaded {
    /// Parses a body's bytes; `None` when they no longer hold one JSON
    /// value (the file changed since it was first read).
    pub fn parse(bytes: &[u8], api: Api, side: Side) -> Option<Loaded> {
        let doc = Doc::new(bytes);
        let &[(start, end)] = doc.values().as_slice() else {
            return None;
        };
        let value = serde_json::from_slice(&bytes[start..end]).ok()?;
        let key = match (api, side) {
            (Api::Chat | Api::Anthropic, Side::Request) => Some("messages"),
            (Api::Chat, Side::Response) => Some("choices"),
            // An Anthropic response is its turn, at its own line.
            (Api::Anthropic, Side::Response) => None,
            (Api::Responses, Side::Request) => Some("input"),
            (Api::Responses, Side::Response) => Some("output"),
            (Api::Gemini, Side::Request) => Some("contents"),
            (Api::Gemini, Side::Response) => Some("candidates"),
        };
        let items = key.map(|k| doc.item_lines(start, k)).unwrap_or_default();
        Some(Loaded {
            value,
            line: doc.line_of(start),
            items,
        })
    }
}

/// The messages of a request, in its API's list.
fn request_list(api: Api, v: &Value) -> Vec<Value> {
    let key = match api {
        Api::Chat | Api::Anthropic => "messages",
        Api::Responses => "input",
        Api::Gemini => "contents",
    };
    match v.get(key) {
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(s)) if api == Api::Responses => {
            vec![json!({"type": "message", "role": "user", "content": s})]
        }
        _ => Vec::new(),
    }
}

/// A response's turn, as the messages (or items, or contents) a request
/// holds.
fn response_turn(api: Api, o: &Map<String, Value>) -> Vec<Value> {
    match api {
        Api::Chat => openai::response_message(o)
            .ok()
            .flatten()
            .into_iter()
            .collect(),
        Api::Anthropic => vec![anthropic::response_message(o)],
        Api::Responses => o
            .get("output")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        Api::Gemini => body::gemini_turn(o).into_iter().collect(),
    }
}

fn response_id(api: Api, v: &Value) -> Option<Value> {
    match api {
        Api::Gemini => gemini::get(v, "responseId", "response_id"),
        _ => v.get("id"),
    }
    .filter(|x| x.is_string())
    .cloned()
}

fn model(api: Api, v: &Value) -> Option<Value> {
    match api {
        Api::Gemini => gemini::get(v, "modelVersion", "model_version").or_else(|| v.get("model")),
        _ => v.get("model"),
    }
    .filter(|x| x.is_string())
    .cloned()
}

/// Adds a body's tool definitions to the conversation's, each once.
fn union(all: &mut Vec<Value>, more: Option<&Value>) {
    for t in more.and_then(Value::as_array).into_iter().flatten() {
        if !all.contains(t) {
            all.push(t.clone());
        }
    }
}

/// Maps a conversation to a run and its decisions. `loaded` holds each
/// body of `steps` by its index in `pool`.
pub fn map(
    api: Api,
    steps: &[Step],
    pool: &[Pooled],
    loaded: &HashMap<usize, Loaded>,
    out: &mut Out,
) -> Result<(), String> {
    let mut msgs = Vec::new();
    let mut lines = Vec::new();
    let mut tools = Vec::new();
    let mut functions = Vec::new();
    let mut interactions = Vec::new();
    let (mut first_id, mut resp_model, mut req_model) = (None, None, None);
    let mut previous = None;
    let mut record_line = None;
    // The menu each source's decisions saw: its request's.
    let mut menus: HashMap<usize, Option<Vec<String>>> = HashMap::new();
    for (k, st) in steps.iter().enumerate() {
        let mut entry = Map::new();
        let mut added = 0;
        let mut menu = None;
        if let Some(r) = st.request {
            let (b, src) = (&loaded[&r], pool[r].src);
            record_line.get_or_insert(enc(src, b.line));
            for (i, m) in request_list(api, &b.value).into_iter().enumerate() {
                if i >= st.skip {
                    msgs.push(m);
                    lines.push(enc(src, b.items.get(i).copied().unwrap_or(b.line)));
                    added += 1;
                }
            }
            union(&mut tools, b.value.get("tools"));
            union(&mut functions, b.value.get("functions"));
            if k == 0 {
                previous = b.value.get("previous_response_id").cloned();
            }
            if req_model.is_none() {
                req_model = model(api, &b.value);
            }
            let Some(o) = b.value.as_object() else {
                return Err("a recorded body is not a JSON object".into());
            };
            entry.insert("request".into(), json!(body::rest(api, Side::Request, o)));
            menu = Some(body::menu(api, &b.value));
            menus.insert(src, menu.clone().flatten());
        }
        if let Some(s) = st.response {
            let (b, src) = (&loaded[&s], pool[s].src);
            record_line.get_or_insert(enc(src, b.line));
            let Some(o) = b.value.as_object() else {
                return Err("a recorded body is not a JSON object".into());
            };
            for (i, m) in response_turn(api, o).into_iter().enumerate() {
                msgs.push(m);
                let line = b.items.get(i).or(b.items.first()).copied();
                lines.push(enc(src, line.unwrap_or(b.line)));
            }
            if first_id.is_none() {
                first_id = response_id(api, &b.value);
            }
            if resp_model.is_none() {
                resp_model = model(api, &b.value);
            }
            entry.insert("response".into(), json!(body::rest(api, Side::Response, o)));
            if let Some(m) = menu {
                menus.insert(src, m);
            }
        }
        // A request that adds nothing and got no answer (a transcript of
        // the conversation so far) is no exchange of its own.
        if k == 0 || added > 0 || st.response.is_some() {
            interactions.push(Value::Object(entry));
        }
    }
    let record_line = record_line.unwrap_or(0);
    let mut synth = Map::new();
    let list_key = match api {
        Api::Chat | Api::Anthropic => "messages",
        Api::Responses => "input",
        Api::Gemini => "contents",
    };
    synth.insert(list_key.into(), Value::Array(msgs));
    if !tools.is_empty() {
        synth.insert("tools".into(), Value::Array(tools));
    }
    if !functions.is_empty() && api == Api::Chat {
        synth.insert("functions".into(), Value::Array(functions));
    }
    let model = resp_model.or(req_model);
    match api {
        Api::Chat | Api::Anthropic => {
            if let Some(id) = first_id {
                synth.insert("run_id".into(), id);
            }
            if let Some(m) = model {
                synth.insert("model".into(), m);
            }
            let synth = Value::Object(synth);
            if api == Api::Chat {
                openai::map(&synth, record_line, &lines, out)?;
            } else {
                anthropic::map(&synth, record_line, &lines, out)?;
            }
        }
        Api::Responses => {
            if let Some(id) = first_id {
                synth.insert("object".into(), json!("response"));
                synth.insert("id".into(), id);
            }
            if let Some(m) = model {
                synth.insert("model".into(), m);
            }
            if let Some(p @ Value::String(_)) = previous {
                synth.insert("previous_response_id".into(), p);
            }
            let at = responses::Lines {
                record: record_line,
                input: lines,
                ..Default::default()
            };
            responses::map_lines(&Value::Object(synth), &at, out)?;
        }
        Api::Gemini => {
            if let Some(id) = first_id {
                synth.insert("responseId".into(), id);
            }
            if let Some(m) = model {
                synth.insert("modelVersion".into(), m);
            }
            gemini::map_lines(&Value::Object(synth), record_line, &lines, &[], out)?;
        }
    }
    // Decisions saw their own request's menu, when the requests' differ.
    let mut distinct: Vec<&Option<Vec<String>>> = Vec::new();
    for m in menus.values() {
        if !distinct.contains(&m) {
            distinct.push(m);
        }
    }
    let per_request = distinct.len() > 1;
    for m in &mut out.records {
        let Value::Object(r) = &mut m.value else {
            continue;
        };
        match r.get("type").and_then(Value::as_str) {
            Some("run") => {
                r.remove("request");
                r.remove("response");
                r.insert("interactions".into(), Value::Array(interactions.clone()));
            }
            Some("decision") if per_request => {
                if let Some(menu) = dec(m.line).and_then(|(src, _)| menus.get(&src)) {
                    r.insert("visible".into(), json!(menu.clone().unwrap_or_default()));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_their_source() {
        assert_eq!(dec(enc(0, 7)), Some((0, 7)));
        assert_eq!(dec(enc(41, 1 << 20)), Some((41, 1 << 20)));
        assert_eq!(dec(12), None);
    }
}
