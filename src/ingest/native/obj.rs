//! The fields of one JSON object, taken one by one with errors that name
//! them; what is left is `extra`.

use serde_json::{Map, Value};

use super::*;

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Short, safe rendering of an offending value for an error message:
/// secrets masked, control characters escaped, cut.
pub(super) fn shown(v: &Value) -> String {
    let s = match v {
        Value::String(s) => return crate::text::echo(s),
        // A container is shown by its start only: never serialise it whole.
        Value::Array(_) | Value::Object(_) => {
            let mut w = Limited(String::new());
            let _ = serde_json::to_writer(&mut w, v);
            w.0
        }
        other => other.to_string(),
    };
    let s = crate::redact::mask(&s);
    let s = crate::text::escape(&s);
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// A writer that keeps the first bytes written and refuses the rest.
pub(super) struct Limited(String);

impl std::io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() > 4 * crate::text::ECHO_MAX {
            return Err(std::io::Error::other("enough"));
        }
        self.0.push_str(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The fields of one JSON object, taken one by one; what is left is `extra`.
pub(super) struct Obj {
    pub(super) map: Map<String, Value>,
    pub(super) path: String,
}

pub(super) type Res<T> = Result<T, String>;

impl Obj {
    pub(super) fn new(v: Value, path: &str) -> Res<Obj> {
        match v {
            Value::Object(map) => Ok(Obj {
                map,
                path: path.to_string(),
            }),
            other => Err(format!(
                "field \"{path}\" must be an object, not {}",
                type_name(&other)
            )),
        }
    }

    pub(super) fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// A present, non-null value.
    pub(super) fn take(&mut self, key: &str) -> Option<Value> {
        match self.map.remove(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    pub(super) fn missing(&self, key: &str) -> String {
        format!("missing required field \"{}\"", self.name(key))
    }

    pub(super) fn wrong(&self, key: &str, want: &str, got: &Value) -> String {
        format!(
            "field \"{}\" must be {want}, not {} ({})",
            self.name(key),
            type_name(got),
            shown(got)
        )
    }

    pub(super) fn opt_str(&mut self, key: &str) -> Res<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", &other)),
        }
    }

    pub(super) fn req_str(&mut self, key: &str) -> Res<String> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    pub(super) fn opt_id(&mut self, key: &str) -> Res<Option<String>> {
        let v = self.opt_str(key)?;
        if let Some(s) = &v
            && s.len() > MAX_ID_BYTES
        {
            return Err(format!(
                "field \"{}\" is {} bytes long; ids are at most {MAX_ID_BYTES} bytes",
                self.name(key),
                s.len()
            ));
        }
        Ok(v)
    }

    pub(super) fn req_id(&mut self, key: &str) -> Res<String> {
        self.opt_id(key)?.ok_or_else(|| self.missing(key))
    }

    pub(super) fn opt_bool(&mut self, key: &str) -> Res<Option<bool>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(self.wrong(key, "true or false", &other)),
        }
    }

    pub(super) fn opt_int(&mut self, key: &str, min: i64) -> Res<Option<i64>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match integer(&n) {
                Some(i) if i >= min => Ok(Some(i)),
                _ => Err(format!(
                    "field \"{}\" must be an integer ≥ {min}, not {n}",
                    self.name(key)
                )),
            },
            Some(other) => Err(self.wrong(key, "an integer", &other)),
        }
    }

    pub(super) fn opt_number(&mut self, key: &str) -> Res<Option<f64>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(self.wrong(key, "a number", &other)),
        }
    }

    pub(super) fn opt_enum<T>(
        &mut self,
        key: &str,
        parse: fn(&str) -> Option<T>,
        spellings: fn() -> String,
    ) -> Res<Option<T>> {
        match self.opt_str(key)? {
            None => Ok(None),
            Some(s) => parse(&s).map(Some).ok_or_else(|| {
                format!(
                    "field \"{}\": {} is not one of {}",
                    self.name(key),
                    crate::text::echo(&s),
                    spellings()
                )
            }),
        }
    }

    pub(super) fn opt_time(&mut self, key: &str) -> Res<Option<Timestamp>> {
        match self.opt_str(key)? {
            None => Ok(None),
            Some(s) => Timestamp::parse(&s).map(Some).ok_or_else(|| {
                format!(
                    "field \"{}\": {} is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)",
                    self.name(key),
                    shown(&Value::String(s.clone()))
                )
            }),
        }
    }

    pub(super) fn opt_str_list(&mut self, key: &str) -> Res<Option<Vec<String>>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s),
                        other => {
                            return Err(format!(
                                "field \"{}[{i}]\" must be a string, not {} ({})",
                                self.name(key),
                                type_name(&other),
                                shown(&other)
                            ));
                        }
                    }
                }
                Ok(Some(out))
            }
            Some(other) => Err(self.wrong(key, "a list of strings", &other)),
        }
    }

    pub(super) fn opt_obj(&mut self, key: &str) -> Res<Option<Obj>> {
        let name = self.name(key);
        self.take(key).map(|v| Obj::new(v, &name)).transpose()
    }

    pub(super) fn opt_any(&mut self, key: &str) -> Option<Value> {
        self.take(key)
    }

    /// Unknown fields, kept as an object (`{}` when none).
    pub(super) fn extra(self) -> Value {
        Value::Object(self.map)
    }
}

/// A JSON number as an integer: `3.0` is the integer 3 (some writers print
/// every number so); a fraction or a float beyond exact integers is not.
pub(super) fn integer(n: &serde_json::Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
            .map(|f| f as i64)
    })
}
