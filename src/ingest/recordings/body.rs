//! One recorded HTTP body: which API and which side of the exchange it is,
//! and a fingerprint of each message it holds, so that the bodies of one
//! conversation can be found among many.
//!
//! A fingerprint keeps what the model and the tools said (roles, texts,
//! calls with their ids, names and arguments, results) and leaves out what
//! a client may rewrite when it sends a turn back: a response's extra
//! fields (`refusal`, `annotations`, `caller`), Gemini's `thoughtSignature`
//! (re-encoded by SDKs), thinking and reasoning (which some clients drop),
//! and arguments' spacing (compared parsed).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::ingest::detect::{self, Format};
use crate::ingest::{anthropic, convo, gemini, openai, responses};
use crate::model::canonical;

/// The provider APIs whose bodies are paired into conversations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// OpenAI Chat Completions.
    Chat,
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Responses.
    Responses,
    /// Gemini `generateContent`.
    Gemini,
}

impl Api {
    pub fn from_format(f: Format) -> Option<Api> {
        match f {
            Format::OpenAi => Some(Api::Chat),
            Format::Anthropic => Some(Api::Anthropic),
            Format::OpenAiResponses => Some(Api::Responses),
            Format::Gemini => Some(Api::Gemini),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Api::Chat => "openai",
            Api::Anthropic => "anthropic",
            Api::Responses => "openai-responses",
            Api::Gemini => "gemini",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Request,
    Response,
}

/// A message's fingerprint: the SHA-256 of the canonical JSON of what it
/// says.
pub type Fp = [u8; 32];

/// What pairing needs to know of a body (its content is read again when
/// its conversation is mapped).
#[derive(Debug, Clone)]
pub struct Body {
    pub api: Api,
    pub side: Side,
    /// A request's messages (or input items, or contents), a response's
    /// turn: (index in the body's list, fingerprint), in order. Items a
    /// client may leave out when it sends a turn back (reasoning) have none.
    pub fps: Vec<(usize, Fp)>,
    /// A response's id.
    pub id: Option<String>,
    /// A Responses API request's `previous_response_id`.
    pub previous: Option<String>,
    /// A plain chat request that is as much Anthropic's as OpenAI's (no
    /// shape of either's own): its fingerprints read as Anthropic's, used
    /// when it pairs with an Anthropic response.
    pub alt: Option<Vec<(usize, Fp)>>,
}

impl Body {
    /// Reads an ambiguous chat request as Anthropic's.
    pub fn become_anthropic(&mut self) {
        if let Some(alt) = self.alt.take() {
            self.api = Api::Anthropic;
            self.fps = alt;
        }
    }
}

/// Reads a body: a provider request or response of one of the APIs, as one
/// JSON object (`format` named, or detected). A transcript that carries a
/// harness's `run_id`, a Responses body holding both `input` and `output`,
/// and lists are whole runs of their own, not bodies to pair.
pub fn classify(v: &Value, format: Option<Format>) -> Option<Body> {
    let Value::Object(o) = v else {
        return None;
    };
    if o.contains_key("run_id") {
        return None;
    }
    let f = match format {
        Some(f) => f.check(v).is_empty().then_some(f)?,
        None => detect::detect(v, "").ok()??,
    };
    let api = Api::from_format(f)?;
    let body = |side, fps, id: Option<&Value>, previous: Option<&Value>| {
        Some(Body {
            api,
            side,
            fps,
            id: id.and_then(Value::as_str).map(String::from),
            previous: previous.and_then(Value::as_str).map(String::from),
            alt: None,
        })
    };
    match api {
        Api::Chat if openai::is_response(o) => {
            let m = openai::response_message(o).ok()??;
            body(
                Side::Response,
                vec![(0, fp(&chat_message(&m)))],
                o.get("id"),
                None,
            )
        }
        Api::Chat => {
            let msgs = o.get("messages")?.as_array()?;
            let mut b = body(Side::Request, fps(msgs, chat_message), None, None)?;
            if format.is_none() && anthropic::check(v).is_empty() {
                b.alt = Some(fps(msgs, anthropic_message));
                let model = o.get("model").and_then(Value::as_str).unwrap_or("");
                if model.starts_with("claude") {
                    b.become_anthropic();
                }
            }
            Some(b)
        }
        Api::Anthropic if anthropic::is_response(o) => {
            let m = anthropic::response_message(o);
            body(
                Side::Response,
                vec![(0, fp(&anthropic_message(&m)))],
                o.get("id"),
                None,
            )
        }
        Api::Anthropic => {
            let msgs = o.get("messages")?.as_array()?;
            body(Side::Request, fps(msgs, anthropic_message), None, None)
        }
        Api::Responses => match (o.get("input"), o.get("output")) {
            (Some(_), Some(_)) => None,
            (None, Some(Value::Array(items))) => {
                body(Side::Response, item_fps(items), o.get("id"), None)
            }
            (Some(Value::Array(items)), None) => body(
                Side::Request,
                item_fps(items),
                None,
                o.get("previous_response_id"),
            ),
            (Some(Value::String(s)), None) => body(
                Side::Request,
                vec![(0, fp(&json!(["message", "user", s])))],
                None,
                o.get("previous_response_id"),
            ),
            _ => None,
        },
        Api::Gemini => match (o.get("contents"), o.get("candidates")) {
            (Some(Value::Array(contents)), None) => {
                body(Side::Request, fps(contents, gemini_content), None, None)
            }
            (None, Some(_)) => {
                let c = gemini_turn(o)?;
                let id = gemini::get(v, "responseId", "response_id");
                body(Side::Response, vec![(0, fp(&gemini_content(&c)))], id, None)
            }
            _ => None,
        },
    }
}

/// A Gemini response's turn: its first candidate's content, the model's.
pub fn gemini_turn(o: &Map<String, Value>) -> Option<Value> {
    let mut c = o
        .get("candidates")?
        .as_array()?
        .first()?
        .get("content")?
        .clone();
    if let Value::Object(m) = &mut c {
        m.entry("role").or_insert_with(|| json!("model"));
    }
    Some(c)
}

fn fp(v: &Value) -> Fp {
    canonical::digest(v)
}

fn fps(list: &[Value], norm: fn(&Value) -> Value) -> Vec<(usize, Fp)> {
    list.iter()
        .enumerate()
        .map(|(i, m)| (i, fp(&norm(m))))
        .collect()
}

fn s(v: Option<&Value>) -> Value {
    v.filter(|x| x.is_string()).cloned().unwrap_or(Value::Null)
}

/// Arguments compared parsed: JSON text is read, spacing aside.
fn args(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(t)) => serde_json::from_str(t).unwrap_or_else(|_| json!(t)),
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// Text of a content field, empty as none.
fn text(v: Option<&Value>) -> Value {
    match convo::content_text(v) {
        Some(t) if !t.is_empty() => json!(t),
        _ => Value::Null,
    }
}

fn chat_message(m: &Value) -> Value {
    let calls: Vec<Value> = m
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let f = c.get("function");
            json!([
                s(c.get("id")),
                s(f.and_then(|f| f.get("name")).or_else(|| c.get("name"))),
                args(
                    f.and_then(|f| f.get("arguments"))
                        .or_else(|| c.get("arguments"))
                )
            ])
        })
        .chain(
            m.get("function_call")
                .filter(|f| f.is_object())
                .map(|f| json!([null, s(f.get("name")), args(f.get("arguments"))])),
        )
        .collect();
    json!({
        "role": s(m.get("role")),
        "text": text(m.get("content")),
        "calls": calls,
        "tool_call_id": s(m.get("tool_call_id")),
    })
}

fn anthropic_message(m: &Value) -> Value {
    let blocks: Vec<Value> = match m.get("content") {
        Some(Value::String(t)) => vec![json!(["text", t])],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| {
                let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                Some(match ty {
                    "text" => json!(["text", s(b.get("text"))]),
                    "thinking" | "redacted_thinking" => return None,
                    t if t.ends_with("tool_use") => {
                        json!([t, s(b.get("id")), s(b.get("name")), b.get("input")])
                    }
                    t if t.ends_with("tool_result") => json!([
                        t,
                        s(b.get("tool_use_id")),
                        match text(b.get("content")) {
                            Value::Null => b.get("content").cloned().unwrap_or(Value::Null),
                            t => t,
                        },
                        b.get("is_error").and_then(Value::as_bool).unwrap_or(false)
                    ]),
                    t => json!([t]),
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    json!({"role": s(m.get("role")), "blocks": blocks})
}

fn gemini_content(c: &Value) -> Value {
    let g = |p: &Value, camel: &str, snake: &str| gemini::get(p, camel, snake).cloned();
    let parts: Vec<Value> = c
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .map(|p| {
            if let Some(fc) = g(p, "functionCall", "function_call") {
                json!(["call", s(fc.get("name")), fc.get("args"), s(fc.get("id"))])
            } else if let Some(fr) = g(p, "functionResponse", "function_response") {
                json!([
                    "response",
                    s(fr.get("name")),
                    fr.get("response"),
                    s(fr.get("id"))
                ])
            } else if let Some(code) = g(p, "executableCode", "executable_code") {
                json!(["code", code])
            } else if let Some(r) = g(p, "codeExecutionResult", "code_execution_result") {
                json!(["result", r])
            } else if let Some(t) = p.get("text") {
                json!(["text", t])
            } else {
                json!(["other"])
            }
        })
        .collect();
    let role = c.get("role").and_then(Value::as_str).unwrap_or("user");
    json!({"role": role, "parts": parts})
}

/// Responses API items: reasoning and references have no fingerprint (a
/// client may send them back or not).
fn item_fps(items: &[Value]) -> Vec<(usize, Fp)> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| {
            let ty = it.get("type").and_then(Value::as_str).unwrap_or("message");
            let v = match ty {
                "reasoning" | "item_reference" => return None,
                "message" => json!(["message", s(it.get("role")), text(it.get("content"))]),
                "function_call" => json!([
                    ty,
                    s(it.get("call_id")),
                    s(it.get("name")),
                    args(it.get("arguments"))
                ]),
                "custom_tool_call" => {
                    json!([ty, s(it.get("call_id")), s(it.get("name")), it.get("input")])
                }
                t if t.ends_with("_output") => {
                    json!([t, s(it.get("call_id")), output_text(it.get("output"))])
                }
                t => json!([t, s(it.get("call_id").or_else(|| it.get("id")))]),
            };
            Some((i, fp(&v)))
        })
        .collect()
}

fn output_text(v: Option<&Value>) -> Value {
    match v {
        Some(Value::Array(_)) => text(v),
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// The tool names a request offers, in its API's shape; `None` when it
/// names no tools.
pub fn menu(api: Api, request: &Value) -> Option<Vec<String>> {
    let list = |k: &str| request.get(k).and_then(Value::as_array);
    match api {
        Api::Chat => list("tools")
            .or_else(|| list("functions"))
            .map(|t| openai::tool_names(t)),
        Api::Anthropic => list("tools").map(|t| anthropic::tool_names(t)),
        Api::Responses => list("tools").map(|t| responses::menu_names(t)),
        Api::Gemini => list("tools").map(|t| gemini::menu(t).0),
    }
}

/// The request and response files a recordings index names, relative to
/// its folder, in order: `{NAME: {"interactions": [[REQUEST, RESPONSE,
/// ...], ...]}, ...}` (what `index.json` beside recorded bodies holds).
/// `None` when the value is not such an index.
pub fn index_pairs(v: &Value) -> Option<Vec<(String, String)>> {
    let Value::Object(o) = v else {
        return None;
    };
    if o.is_empty() {
        return None;
    }
    let mut pairs = Vec::new();
    for rec in o.values() {
        for it in rec.get("interactions")?.as_array()? {
            let it = it.as_array()?;
            let (Some(Value::String(req)), Some(Value::String(resp))) = (it.first(), it.get(1))
            else {
                return None;
            };
            pairs.push((req.clone(), resp.clone()));
        }
    }
    Some(pairs)
}

/// The key that pairs a request and a response by file name: the folder,
/// the name around its last `request` or `response` (up to the next dot
/// after it, so that `.json` and `.txt` pair), and which word it was.
pub fn name_key(path: &Path) -> Option<(PathBuf, String, String, Side)> {
    let name = path.file_name()?.to_str()?;
    let found = [("request", Side::Request), ("response", Side::Response)]
        .into_iter()
        .filter_map(|(w, side)| name.rfind(w).map(|i| (i, w.len(), side)))
        .max_by_key(|(i, _, _)| *i)?;
    let (i, len, side) = found;
    let rest = &name[i + len..];
    let stem = rest.split('.').next().unwrap_or("");
    Some((
        path.parent().map(Path::to_path_buf).unwrap_or_default(),
        name[..i].to_string(),
        stem.to_string(),
        side,
    ))
}

/// The fields of a body kept on the conversation's run under
/// `interactions`: all but the conversation itself (messages, turns,
/// tools), with a response's other choices or candidates.
pub fn rest(api: Api, side: Side, o: &Map<String, Value>) -> Map<String, Value> {
    let skip: &[&str] = match (api, side) {
        (Api::Chat, Side::Request) => &["messages", "tools", "functions"],
        (Api::Chat, Side::Response) => &["choices"],
        (Api::Anthropic, Side::Request) => &["messages", "tools"],
        (Api::Anthropic, Side::Response) => &["content", "type", "role"],
        (Api::Responses, Side::Request) => &["input", "tools"],
        (Api::Responses, Side::Response) => &["output", "tools", "object"],
        (Api::Gemini, Side::Request) => &["contents", "tools"],
        (Api::Gemini, Side::Response) => &["candidates"],
    };
    let mut rest: Map<String, Value> = o
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let list = match (api, side) {
        (Api::Chat, Side::Response) => o.get("choices"),
        (Api::Gemini, Side::Response) => o.get("candidates"),
        _ => None,
    };
    if let Some(Value::Array(items)) = list {
        if let Some(Value::Object(first)) = items.first() {
            let mut first = first.clone();
            first.remove("message");
            first.remove("content");
            if !first.is_empty() {
                let key = if api == Api::Chat {
                    "choice"
                } else {
                    "candidate"
                };
                rest.insert(key.into(), Value::Object(first));
            }
        }
        if items.len() > 1 {
            let key = if api == Api::Chat {
                "other_choices"
            } else {
                "other_candidates"
            };
            rest.insert(key.into(), json!(items[1..]));
        }
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_sent_back_has_the_fingerprint_it_had_in_its_response() {
        // The response adds refusal/annotations and spaces its arguments
        // differently from the client that sends the turn back.
        let got = json!({"role": "assistant", "content": null, "refusal": null, "annotations": [],
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "find_customer", "arguments": "{\"name\": \"Northwind\"}"}}]});
        let sent = json!({"role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "find_customer", "arguments": "{\"name\":\"Northwind\"}"}}]});
        assert_eq!(fp(&chat_message(&got)), fp(&chat_message(&sent)));
        let other = json!({"role": "assistant",
            "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "find_customer", "arguments": "{\"name\":\"Northwind\"}"}}]});
        assert_ne!(fp(&chat_message(&got)), fp(&chat_message(&other)));

        let got = json!({"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "Ab+/"}]});
        let sent = json!({"role": "model", "parts": [{"function_call": {"args": {"a": 1}, "name": "f"}, "thoughtSignature": "Ab-_"}]});
        assert_eq!(fp(&gemini_content(&got)), fp(&gemini_content(&sent)));

        let got = json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "x"},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "caller": {"type": "direct"}}]});
        let sent = json!({"role": "assistant", "content": [{"id": "toolu_1", "input": {}, "name": "f", "type": "tool_use"}]});
        assert_eq!(fp(&anthropic_message(&got)), fp(&anthropic_message(&sent)));
    }

    #[test]
    fn bodies_by_side() {
        let c = |v: Value| classify(&v, None).map(|b| (b.api, b.side, b.fps.len(), b.id));
        assert_eq!(
            c(
                json!({"object": "chat.completion", "id": "chatcmpl-1", "choices": [{"message": {"role": "assistant", "content": "hi"}}]})
            ),
            Some((Api::Chat, Side::Response, 1, Some("chatcmpl-1".into())))
        );
        assert_eq!(
            c(json!({"messages": [{"role": "user", "content": "hi"}], "model": "m"})),
            Some((Api::Chat, Side::Request, 1, None))
        );
        assert_eq!(
            c(
                json!({"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "text", "text": "hi"}]})
            ),
            Some((Api::Anthropic, Side::Response, 1, Some("msg_1".into())))
        );
        assert_eq!(
            c(
                json!({"object": "response", "id": "resp_1", "output": [{"type": "reasoning", "id": "rs_1"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]})
            ),
            Some((Api::Responses, Side::Response, 1, Some("resp_1".into())))
        );
        assert_eq!(
            c(
                json!({"candidates": [{"content": {"parts": [{"text": "hi"}]}}], "responseId": "g1"})
            ),
            Some((Api::Gemini, Side::Response, 1, Some("g1".into())))
        );
        // Whole runs, not bodies to pair.
        assert_eq!(
            c(json!({"run_id": "r", "messages": [{"role": "user", "content": "hi"}]})),
            None
        );
        assert_eq!(
            c(json!({"input": [{"role": "user", "content": "hi"}], "output": []})),
            None
        );
        assert_eq!(c(json!([{"role": "user", "content": "hi"}])), None);
        assert_eq!(c(json!({"resourceSpans": []})), None);
    }

    #[test]
    fn index_and_names() {
        let idx = json!({"rec": {"path": "x.yaml", "interactions": [["a.1.request.json", "a.1.response.txt", "https://x"]]}});
        assert_eq!(
            index_pairs(&idx),
            Some(vec![(
                "a.1.request.json".to_string(),
                "a.1.response.txt".to_string()
            )])
        );
        assert_eq!(index_pairs(&json!({"rec": {"path": "x"}})), None);
        assert_eq!(index_pairs(&json!({})), None);
        let k = |p: &str| name_key(Path::new(p)).map(|(_, a, b, s)| (a, b, s));
        assert_eq!(
            k("d/a.1.request.json"),
            Some(("a.1.".into(), "".into(), Side::Request))
        );
        assert_eq!(
            k("d/a.1.response.txt"),
            Some(("a.1.".into(), "".into(), Side::Response))
        );
        assert_eq!(
            k("d/request_7.json"),
            Some(("".into(), "_7".into(), Side::Request))
        );
        assert_eq!(k("d/a.json"), None);
    }
}
