//! JSON whose objects keep their keys in file order: BFCL reads its possible
//! answers and results as Python dicts, in that order.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value whose objects keep their keys in the order written.
#[derive(Debug, Clone, PartialEq)]
pub enum OJson {
    Null,
    Bool(bool),
    Num(Number),
    Str(String),
    Arr(Vec<OJson>),
    Obj(Vec<(String, OJson)>),
}

impl OJson {
    pub fn to_value(&self) -> Value {
        match self {
            OJson::Null => Value::Null,
            OJson::Bool(b) => Value::Bool(*b),
            OJson::Num(n) => Value::Number(n.clone()),
            OJson::Str(s) => Value::String(s.clone()),
            OJson::Arr(a) => Value::Array(a.iter().map(OJson::to_value).collect()),
            OJson::Obj(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }

    /// A key's value; with a repeated key, the last (as Python reads it).
    pub fn get(&self, key: &str) -> Option<&OJson> {
        match self {
            OJson::Obj(o) => o.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            OJson::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn is_empty_string(&self) -> bool {
        matches!(self, OJson::Str(s) if s.is_empty())
    }
}

impl<'de> Deserialize<'de> for OJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<OJson, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OJson;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, b: bool) -> std::result::Result<OJson, E> {
                Ok(OJson::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> std::result::Result<OJson, E> {
                Ok(OJson::Num(n.into()))
            }
            fn visit_u64<E>(self, n: u64) -> std::result::Result<OJson, E> {
                Ok(OJson::Num(n.into()))
            }
            fn visit_f64<E>(self, n: f64) -> std::result::Result<OJson, E> {
                Ok(Number::from_f64(n).map_or(OJson::Null, OJson::Num))
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<OJson, E> {
                Ok(OJson::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> std::result::Result<OJson, E> {
                Ok(OJson::Str(s))
            }
            fn visit_unit<E>(self) -> std::result::Result<OJson, E> {
                Ok(OJson::Null)
            }
            fn visit_none<E>(self) -> std::result::Result<OJson, E> {
                Ok(OJson::Null)
            }
            fn visit_some<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<OJson, D::Error> {
                OJson::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<OJson, A::Error> {
                let mut items = Vec::new();
                while let Some(x) = seq.next_element()? {
                    items.push(x);
                }
                Ok(OJson::Arr(items))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<OJson, A::Error> {
                let mut pairs = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, OJson>()? {
                    pairs.push((k, v));
                }
                Ok(OJson::Obj(pairs))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::bfcl::testutil::o;
    use serde_json::json;

    #[test]
    fn ordered_json_keeps_key_order_and_the_last_repeat() {
        let v = o(r#"{"b": 1, "a": [true, null, 2.5, "x"], "b": 3}"#);
        let OJson::Obj(pairs) = &v else { panic!() };
        let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        assert_eq!(v.get("b"), Some(&o("3")));
        assert_eq!(v.to_value(), json!({"a": [true, null, 2.5, "x"], "b": 3}));
    }
}
