//! The OTLP JSON encoding: `AnyValue`s in every encoding exporters write,
//! attribute lists, camel or snake case field names, times in nanoseconds.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::ingest::openai::kind;

/// Span or event attributes, by key.
pub type Attrs = BTreeMap<String, Value>;

/// An OTLP `AnyValue` as plain JSON: `intValue` is often a string, empty
/// `{}` is null; a value that is not an AnyValue object is taken as is.
pub fn any_value(v: &Value) -> Value {
    let Value::Object(o) = v else {
        return v.clone();
    };
    let get = |camel: &str, snake: &str| o.get(camel).or_else(|| o.get(snake));
    if let Some(s) = get("stringValue", "string_value") {
        return s.clone();
    }
    if let Some(b) = get("boolValue", "bool_value") {
        return match b {
            Value::String(s) => json!(s == "true"),
            other => other.clone(),
        };
    }
    if let Some(i) = get("intValue", "int_value") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(|n| json!(n)).unwrap_or(i.clone()),
            other => other.clone(),
        };
    }
    if let Some(d) = get("doubleValue", "double_value") {
        return match d {
            Value::String(s) => s
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(|f| json!(f))
                .unwrap_or(d.clone()),
            other => other.clone(),
        };
    }
    if let Some(a) = get("arrayValue", "array_value") {
        let values = a.get("values").and_then(Value::as_array);
        return Value::Array(values.into_iter().flatten().map(any_value).collect());
    }
    if let Some(kv) = get("kvlistValue", "kvlist_value") {
        return Value::Object(
            attributes(kv.get("values"))
                .into_iter()
                .collect::<Map<String, Value>>(),
        );
    }
    if let Some(b) = get("bytesValue", "bytes_value") {
        return b.clone();
    }
    if o.is_empty() {
        return Value::Null;
    }
    v.clone()
}

/// An OTLP attribute list (`[{key, value}]`) as a map.
pub fn attributes(list: Option<&Value>) -> Attrs {
    let mut out = Attrs::new();
    for kv in list.and_then(Value::as_array).into_iter().flatten() {
        if let Some(k) = kv.get("key").and_then(Value::as_str) {
            out.insert(
                k.to_string(),
                kv.get("value").map(any_value).unwrap_or(Value::Null),
            );
        }
    }
    out
}

pub fn get<'a>(o: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    o.get(camel).or_else(|| o.get(snake))
}

pub fn nanos(v: Option<&Value>) -> Option<i128> {
    let n = match v? {
        Value::String(s) => s.parse::<i128>().ok()?,
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))?,
        _ => return None,
    };
    (n > 0).then_some(n)
}

pub fn rfc3339(ns: i128) -> Option<String> {
    let secs = i64::try_from(ns.div_euclid(1_000_000_000)).ok()?;
    let sub = ns.rem_euclid(1_000_000_000) as u32;
    chrono::DateTime::from_timestamp(secs, sub)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// Whether a value is an OTLP export (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    match v {
        Value::Object(_) => match get(v, "resourceSpans", "resource_spans") {
            Some(Value::Array(_)) => Vec::new(),
            Some(other) => vec![format!("\"resourceSpans\" is {}, not a list", kind(other))],
            None => vec!["no \"resourceSpans\" list at the top level".to_string()],
        },
        other => vec![format!("an OTLP export is an object, not {}", kind(other))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_values_in_every_encoding() {
        let cases = [
            (json!({"stringValue": "x"}), json!("x")),
            (json!({"intValue": "1024"}), json!(1024)),
            (json!({"intValue": 7}), json!(7)),
            (json!({"doubleValue": 0.5}), json!(0.5)),
            (json!({"doubleValue": "0.25"}), json!(0.25)),
            (json!({"doubleValue": "NaN"}), json!("NaN")),
            (json!({"boolValue": true}), json!(true)),
            (
                json!({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "2"}]}}),
                json!(["a", 2]),
            ),
            (json!({"arrayValue": {}}), json!([])),
            (
                json!({"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": false}}]}}),
                json!({"k": false}),
            ),
            (json!({"string_value": "snake"}), json!("snake")),
            (json!({}), Value::Null),
        ];
        for (v, want) in cases {
            assert_eq!(any_value(&v), want, "{v}");
        }
    }
}
