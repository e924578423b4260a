//! BFCL's checks of a call's arguments against its function (its
//! `simple_function_checker` and `type_checker`, `docs/bfcl.md` §2.4), for
//! runs whose case says `"checker": "bfcl"`. They replace JSON Schema
//! validation there because BFCL's types are Python's: an `integer` is a
//! number written without a fraction (JSON Schema takes `5.0`), an integer
//! passes for a `float` argument but not inside an array of floats, and an
//! argument without a type (BFCL's `any`) must be a string. What BFCL
//! checks, in its order: required arguments, then per argument: declared
//! at all, then its type.
//!
//! The schema is the tool definition the BFCL importer writes: BFCL's
//! types mapped to JSON Schema (`float` → `number`, `dict` → `object`,
//! `tuple` → `array`, `any` → no `type`), which this module maps back.
//!
//! BFCL's "variable" rule: a value of another type than the declared one
//! passes when the possible answer's first acceptable value (its first
//! value that is not `""`) has that type — answers written as variable
//! names. Inside an array the rule reads each acceptable list's first item.

use serde_json::Value;

use super::{MAX_VIOLATIONS, Violation, pointer_token};
use crate::model::{ExpectedCall, ExpectedValue};

/// A Python type as BFCL's checker compares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Py {
    Int,
    Float,
    Str,
    Bool,
    List,
    Dict,
    None,
}

impl Py {
    fn of(v: &Value) -> Py {
        match v {
            Value::Null => Py::None,
            Value::Bool(_) => Py::Bool,
            Value::Number(n) if n.is_f64() => Py::Float,
            Value::Number(_) => Py::Int,
            Value::String(_) => Py::Str,
            Value::Array(_) => Py::List,
            Value::Object(_) => Py::Dict,
        }
    }

    /// The type a property declares; a property without `type` is BFCL's
    /// `any`, checked as a string. `None`: a type BFCL does not check.
    fn declared(prop: &Value) -> Option<Py> {
        match prop.get("type") {
            None => Some(Py::Str),
            Some(Value::String(t)) => match t.as_str() {
                "integer" => Some(Py::Int),
                "number" => Some(Py::Float),
                "string" => Some(Py::Str),
                "boolean" => Some(Py::Bool),
                "array" => Some(Py::List),
                "object" => Some(Py::Dict),
                _ => None,
            },
            Some(_) => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Py::Int => "integer",
            Py::Float => "float",
            Py::Str => "string",
            Py::Bool => "boolean",
            Py::List => "array",
            Py::Dict => "object",
            Py::None => "null",
        }
    }
}

fn is_empty_string(v: &Value) -> bool {
    matches!(v, Value::String(s) if s.is_empty())
}

/// The type of the first acceptable value that is not `""`.
fn first_type<'v>(values: impl IntoIterator<Item = &'v Value>) -> Option<Py> {
    values.into_iter().find(|v| !is_empty_string(v)).map(Py::of)
}

/// An expected value's acceptable values, and whether `""` (may be left
/// out) was among them.
fn acceptable(e: &ExpectedValue) -> (&[Value], bool) {
    match e {
        ExpectedValue::Is(v) => (std::slice::from_ref(v), false),
        ExpectedValue::OneOf { values, absent } => (values, *absent),
    }
}

/// BFCL's checks of `arguments` against `schema`; `expected` are the
/// run's expected calls of this tool (for the variable rule).
pub fn check(schema: &Value, arguments: &Value, expected: &[&ExpectedCall]) -> Vec<Violation> {
    let Value::Object(args) = arguments else {
        return vec![Violation::new(
            "",
            "type",
            format!(
                "the arguments are {}, not an object",
                Py::of(arguments).name()
            ),
        )];
    };
    let mut out = Vec::new();
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if !args.contains_key(name) {
            out.push(Violation::new(
                format!("/{}", pointer_token(name)),
                "required",
                "missing",
            ));
        }
    }
    let props = schema.get("properties").and_then(Value::as_object);
    for (key, value) in args {
        let path = format!("/{}", pointer_token(key));
        let Some(prop) = props.and_then(|p| p.get(key)) else {
            out.push(Violation::new(
                path,
                "properties",
                "not an argument the function declares",
            ));
            continue;
        };
        let answers: Vec<&ExpectedValue> = expected
            .iter()
            .filter_map(|c| c.arguments.as_ref()?.get(key))
            .collect();
        let result = if answers.is_empty() {
            check_type(&path, prop, value, None)
        } else {
            // Any expected call of the tool may be the one it answers.
            answers
                .iter()
                .map(|a| check_type(&path, prop, value, Some(a)))
                .find(Result::is_ok)
                .unwrap_or_else(|| check_type(&path, prop, value, Some(answers[0])))
        };
        if let Err(v) = result {
            out.push(v);
        }
    }
    out.truncate(MAX_VIOLATIONS);
    out
}

/// BFCL's `type_checker` for one argument against one expected value.
fn check_type(
    path: &str,
    prop: &Value,
    value: &Value,
    answer: Option<&ExpectedValue>,
) -> Result<(), Violation> {
    let Some(want) = Py::declared(prop) else {
        return Ok(());
    };
    let mut got = Py::of(value);
    // BFCL turns an integer given for a float argument into a float.
    if want == Py::Float && got == Py::Int {
        got = Py::Float;
    }
    let (values, absent) = answer.map_or((&[][..], false), acceptable);
    if got == want {
        if want == Py::List
            && let Some(items) = prop.get("items")
            && let Some(item_type) = Py::declared(items)
        {
            return check_items(path, value, item_type, answer.map(|_| (values, absent)));
        }
        return Ok(());
    }
    if first_type(values) == Some(got) {
        return Ok(());
    }
    Err(Violation::new(
        path,
        "type",
        format!(
            "expected {}, got {} {value}",
            want.name(),
            Py::of(value).name()
        ),
    ))
}

/// BFCL's one-level check of an array's items: every item of the declared
/// item type (no integer for a float here), or of the type of the first item
/// of an acceptable list. An answer that may be left out, or whose
/// acceptable values include one that is not a list, lets any items pass.
fn check_items(
    path: &str,
    value: &Value,
    item_type: Py,
    answer: Option<(&[Value], bool)>,
) -> Result<(), Violation> {
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    let first_bad = |accept: Option<Py>| {
        items
            .iter()
            .position(|i| Py::of(i) != item_type && Some(Py::of(i)) != accept)
    };
    let bad = match answer {
        None => first_bad(None),
        Some((_, true)) => None,
        Some((values, false)) => {
            let mut bad = None;
            for v in values {
                let Value::Array(list) = v else {
                    bad = None;
                    break;
                };
                match first_bad(first_type(list)) {
                    None => {
                        bad = None;
                        break;
                    }
                    Some(i) => {
                        bad.get_or_insert(i);
                    }
                }
            }
            bad
        }
    };
    match bad {
        None => Ok(()),
        Some(i) => Err(Violation::new(
            format!("{path}/{i}"),
            "items",
            format!(
                "expected {} items, got {} {}",
                item_type.name(),
                Py::of(&items[i]).name(),
                items[i]
            ),
        )),
    }
}
