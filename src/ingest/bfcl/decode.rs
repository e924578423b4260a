//! Results: BFCL's decoder. A function-calling model's answer is a list of
//! `{name: "<arguments as JSON text>"}`; a prompting model's is Python calls
//! ([`super::python`]); anything else decodes to no call at all.

use serde_json::{Value, json};

use super::OJson;
use super::python;

/// One call decoded from a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The name as the model gave it.
    pub name: String,
    pub arguments: Value,
}

/// What BFCL's decoder makes of one model answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    Calls(Vec<Call>),
    /// No call: text, an empty list, or calls BFCL cannot decode (then
    /// `why` says what failed).
    NoCall {
        raw: Option<Value>,
        why: Option<String>,
    },
}

/// Decodes one answer as BFCL does: a function-calling model's answer is a
/// list of `{name: "<arguments as JSON text>"}`, and anything else (text,
/// a call whose arguments are not JSON) decodes to no call at all; a
/// prompting model's text is Python calls, `[f(a=1), g(b="x")]`.
pub fn decode(answer: &OJson, fc: bool) -> Decoded {
    match answer {
        OJson::Arr(items) if items.is_empty() => Decoded::NoCall {
            raw: None,
            why: None,
        },
        OJson::Arr(items) => {
            let mut calls = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match decode_item(item) {
                    Ok(c) => calls.push(c),
                    Err(why) => {
                        return Decoded::NoCall {
                            raw: Some(answer.to_value()),
                            why: Some(format!("call {}: {why}", i + 1)),
                        };
                    }
                }
            }
            Decoded::Calls(calls)
        }
        OJson::Str(s) if !fc => match python::decode(s) {
            Ok(calls) if !calls.is_empty() => Decoded::Calls(calls),
            Ok(_) => Decoded::NoCall {
                raw: Some(json!(s)),
                why: None,
            },
            Err(why) => Decoded::NoCall {
                raw: Some(json!(s)),
                why: Some(why),
            },
        },
        OJson::Str(s) => Decoded::NoCall {
            raw: Some(json!(s)),
            why: None,
        },
        other => Decoded::NoCall {
            raw: Some(other.to_value()),
            why: Some("the answer is neither a list of calls nor text".into()),
        },
    }
}

fn decode_item(item: &OJson) -> std::result::Result<Call, String> {
    let OJson::Obj(pairs) = item else {
        return Err("not a {name: arguments} object".into());
    };
    // BFCL takes the first key.
    let Some((name, args)) = pairs.first() else {
        return Err("an empty object names no function".into());
    };
    let arguments = match args {
        OJson::Str(text) => serde_json::from_str::<Value>(text).map_err(|e| {
            format!(
                "the arguments of {} are not JSON ({e})",
                crate::text::echo(name)
            )
        })?,
        OJson::Obj(_) => args.to_value(),
        other => {
            return Err(format!(
                "the arguments of {} are {}, not JSON text",
                crate::text::echo(name),
                crate::ingest::native::type_name(&other.to_value())
            ));
        }
    };
    Ok(Call {
        name: name.clone(),
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::bfcl::testutil::o;

    #[test]
    fn function_calling_answers_decode_as_bfcl_decodes_them() {
        assert_eq!(
            decode(&o(r#"[{"a_b": "{\"x\": 1}"}, {"c": "{}"}]"#), true),
            Decoded::Calls(vec![
                Call {
                    name: "a_b".into(),
                    arguments: json!({"x": 1})
                },
                Call {
                    name: "c".into(),
                    arguments: json!({})
                },
            ])
        );
        assert_eq!(
            decode(&o("[]"), true),
            Decoded::NoCall {
                raw: None,
                why: None
            }
        );
        assert_eq!(
            decode(&o(r#""I need the date.""#), true),
            Decoded::NoCall {
                raw: Some(json!("I need the date.")),
                why: None
            }
        );
        // One undecodable call makes the whole answer no call (BFCL's
        // decoder raises): made-up tools with code for arguments, empty
        // objects, arguments that are not text.
        let bad = r#"[{"f": "{}"}, {"python": "import math\nprint(1)"}]"#;
        assert_eq!(
            decode(&o(bad), true),
            Decoded::NoCall {
                raw: Some(o(bad).to_value()),
                why: Some("call 2: the arguments of \"python\" are not JSON (expected value at line 1 column 1)".into())
            }
        );
        for (answer, why) in [
            ("[{}]", "call 1: an empty object names no function"),
            (r#"["f(x=1)"]"#, "call 1: not a {name: arguments} object"),
            (
                r#"[{"f": 5}]"#,
                "call 1: the arguments of \"f\" are a number, not JSON text",
            ),
            (
                r#"{"f": "{}"}"#,
                "the answer is neither a list of calls nor text",
            ),
        ] {
            match decode(&o(answer), true) {
                Decoded::NoCall { why: Some(w), .. } => assert_eq!(w, why, "{answer}"),
                other => panic!("{answer}: {other:?}"),
            }
        }
        // Arguments given as an object are taken as they are.
        assert_eq!(
            decode(&o(r#"[{"f": {"x": [1]}}]"#), true),
            Decoded::Calls(vec![Call {
                name: "f".into(),
                arguments: json!({"x": [1]})
            }])
        );
    }
}
