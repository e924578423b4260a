//! The expectations a step-less case sets for a whole run (format v1.1,
//! `expectations.md` §2): the calls a correct run makes, the strings its
//! answer contains, and how strictly their arguments compare.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Checker, ExtraArguments, Strings};

/// The key of an expected argument value that lists alternatives.
pub const ONE_OF: &str = "@one_of";
/// In an `@one_of` list: the key may also be missing.
pub const ABSENT: &str = "@absent";

/// One expected argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum ExpectedValue {
    /// Exactly this JSON value (after normalisation).
    Is(Value),
    /// `{"@one_of": [...]}`: any of `values`; `absent` when the list held
    /// `"@absent"` (the key may be missing).
    OneOf { values: Vec<Value>, absent: bool },
}

impl ExpectedValue {
    /// Reads an expected argument value. An object with the key `@one_of`
    /// is the alternatives form: it must hold a non-empty list and nothing
    /// else. The error says what is wrong, for the reader to put behind the
    /// field's name.
    pub fn from_json(v: Value) -> Result<ExpectedValue, String> {
        let Value::Object(mut m) = v else {
            return Ok(ExpectedValue::Is(v));
        };
        let Some(list) = m.remove(ONE_OF) else {
            return Ok(ExpectedValue::Is(Value::Object(m)));
        };
        if let Some(other) = m.keys().next() {
            return Err(format!(
                "an {ONE_OF} object holds only the list of alternatives, not also {other:?}"
            ));
        }
        let Value::Array(items) = list else {
            return Err(format!("{ONE_OF} must hold a non-empty list of values"));
        };
        if items.is_empty() {
            return Err(format!(
                "{ONE_OF} is an empty list; it must hold at least one value"
            ));
        }
        let mut absent = false;
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Value::String(s) if s == ABSENT => absent = true,
                other => values.push(other),
            }
        }
        Ok(ExpectedValue::OneOf { values, absent })
    }

    /// The recorded form, `@absent` last in an `@one_of` list.
    pub fn to_json(&self) -> Value {
        match self {
            ExpectedValue::Is(v) => v.clone(),
            ExpectedValue::OneOf { values, absent } => {
                let mut list = values.clone();
                if *absent {
                    list.push(Value::String(ABSENT.to_string()));
                }
                let mut m = Map::new();
                m.insert(ONE_OF.to_string(), Value::Array(list));
                Value::Object(m)
            }
        }
    }

    /// Whether a missing key satisfies this value.
    pub fn allows_absent(&self) -> bool {
        matches!(self, ExpectedValue::OneOf { absent: true, .. })
    }
}

/// One call a correct run makes.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedCall {
    pub tool: String,
    /// The keys the call must carry, by name; `None` when the case gave no
    /// `arguments` (any arguments match).
    pub arguments: Option<BTreeMap<String, ExpectedValue>>,
    /// Unknown fields of the recorded object.
    pub extra: Value,
}

impl ExpectedCall {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("tool".into(), Value::String(self.tool.clone()));
        if let Some(args) = &self.arguments {
            m.insert(
                "arguments".into(),
                Value::Object(args.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
            );
        }
        if let Value::Object(extra) = &self.extra {
            for (k, v) in extra {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        Value::Object(m)
    }
}

/// What a step-less case expects of a run as a whole. `calls` and
/// `outputs` are `None` when the case does not say (an empty list is an
/// expectation: no required call, no string).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expectations {
    pub calls: Option<Vec<ExpectedCall>>,
    pub outputs: Option<Vec<String>>,
    pub strings: Strings,
    pub extra_arguments: ExtraArguments,
    /// Whose rules judge the calls (BFCL's for BFCL results).
    pub checker: Checker,
}

impl Expectations {
    /// Whether the case sets expectations for its runs (expected calls or
    /// expected outputs, even empty lists).
    pub fn is_set(&self) -> bool {
        self.calls.is_some() || self.outputs.is_some()
    }

    /// The record fields as a JSON object (`{}` when nothing is set; the
    /// two modes only when they differ from their defaults), for the store
    /// to keep and hash. The native reader reads it back.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(calls) = &self.calls {
            m.insert(
                "expected_calls".into(),
                Value::Array(calls.iter().map(ExpectedCall::to_json).collect()),
            );
        }
        if let Some(outputs) = &self.outputs {
            m.insert(
                "expected_outputs".into(),
                Value::Array(outputs.iter().cloned().map(Value::String).collect()),
            );
        }
        if self.strings != Strings::default() {
            m.insert("strings".into(), self.strings.as_str().into());
        }
        if self.extra_arguments != ExtraArguments::default() {
            m.insert(
                "extra_arguments".into(),
                self.extra_arguments.as_str().into(),
            );
        }
        if self.checker != Checker::default() {
            m.insert("checker".into(), self.checker.as_str().into());
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_of_reads_its_list_and_the_absent_marker() {
        assert_eq!(
            ExpectedValue::from_json(json!({"@one_of": ["economy", "@absent", 1]})),
            Ok(ExpectedValue::OneOf {
                values: vec![json!("economy"), json!(1)],
                absent: true
            })
        );
        assert_eq!(
            ExpectedValue::from_json(json!({"cabin": "economy"})),
            Ok(ExpectedValue::Is(json!({"cabin": "economy"})))
        );
        assert_eq!(
            ExpectedValue::from_json(json!({"@one_of": []})),
            Err("@one_of is an empty list; it must hold at least one value".to_string())
        );
        assert_eq!(
            ExpectedValue::from_json(json!({"@one_of": "economy"})),
            Err("@one_of must hold a non-empty list of values".to_string())
        );
        assert_eq!(
            ExpectedValue::from_json(json!({"@one_of": [1], "x": 2})),
            Err(
                "an @one_of object holds only the list of alternatives, not also \"x\"".to_string()
            )
        );
    }

    #[test]
    fn expectations_write_back_what_was_read() {
        let e = Expectations {
            calls: Some(vec![ExpectedCall {
                tool: "book".into(),
                arguments: Some(BTreeMap::from([(
                    "cabin".to_string(),
                    ExpectedValue::OneOf {
                        values: vec![json!("economy")],
                        absent: true,
                    },
                )])),
                extra: json!({"note": "x"}),
            }]),
            outputs: Some(vec!["1,628".into()]),
            strings: Strings::Loose,
            extra_arguments: ExtraArguments::Ignore,
            checker: Checker::Bfcl,
        };
        assert_eq!(
            e.to_json(),
            json!({"expected_calls": [{"tool": "book", "note": "x",
                      "arguments": {"cabin": {"@one_of": ["economy", "@absent"]}}}],
                   "expected_outputs": ["1,628"], "strings": "loose", "checker": "bfcl"})
        );
        assert!(e.is_set());
        assert!(!Expectations::default().is_set());
        assert_eq!(Expectations::default().to_json(), json!({}));
    }
}
