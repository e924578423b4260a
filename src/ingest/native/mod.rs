//! Trace format v1.1 (`trace-format.md`, `expectations.md`): one JSON
//! object → one validated record, with errors that name the record and the
//! field to fix.

use serde_json::{Map, Value};

pub use crate::error::InvalidRecord;
use crate::model::{
    Candidate, Case, Catalogue, Checker, Decision, Effect, Expectations, ExpectedCall,
    ExpectedValue, ExtraArguments, Intent, Label, MenuFields, Outcome, Policy, Progress, Record,
    Retrieval, Run, Stage, Status, Strings, Terminated, Timestamp, Tool,
};

/// Ids are strings up to this many bytes.
pub const MAX_ID_BYTES: usize = 256;

/// A parsed line: a record, or a record of a type this rung does not know.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Record(Record),
    UnknownType(String),
}

mod expect;
mod fast;
#[cfg(test)]
mod fast_tests;
mod obj;
mod records;
#[cfg(test)]
mod tests;

pub use expect::expectations;
use expect::*;
pub use fast::parse_fast;
pub use obj::type_name;
use obj::*;
use records::*;

/// Parses one JSON value (a line of a trace file) into a record.
pub fn parse(value: Value) -> Result<Parsed, InvalidRecord> {
    let mut obj = Obj::new(value, "").map_err(|_| InvalidRecord {
        record: None,
        message: "each line must be a JSON object with a \"type\" field".to_string(),
    })?;
    let ty = match obj.map.remove("type") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(InvalidRecord {
                record: None,
                message: format!(
                    "field \"type\" must be a string, not {} ({})",
                    type_name(&other),
                    shown(&other)
                ),
            });
        }
        None => {
            return Err(InvalidRecord {
                record: None,
                message: "missing required field \"type\" (catalogue, run, decision or case)"
                    .to_string(),
            });
        }
    };
    let describe = describe_key(&ty, &obj.map);
    let fail = |message: String| InvalidRecord {
        record: describe.clone(),
        message,
    };
    let record = match ty.as_str() {
        "catalogue" => Record::Catalogue(catalogue(obj).map_err(fail)?),
        "run" => Record::Run(Box::new(run(obj).map_err(fail)?)),
        "decision" => Record::Decision(Box::new(decision(obj).map_err(fail)?)),
        "case" => Record::Case(Box::new(case(obj).map_err(fail)?)),
        _ => return Ok(Parsed::UnknownType(ty)),
    };
    Ok(Parsed::Record(record))
}

/// How to name a record in an error before it is parsed, from whatever of
/// its key can be read.
fn describe_key(ty: &str, map: &Map<String, Value>) -> Option<String> {
    let s = |k: &str| map.get(k).and_then(Value::as_str).map(shown_id);
    let n = |k: &str| map.get(k).and_then(Value::as_i64);
    match ty {
        "catalogue" => Some(match s("version") {
            Some(v) => format!("catalogue {v}"),
            None => "catalogue".to_string(),
        }),
        "run" => Some(match s("run_id") {
            Some(r) => format!("run {r}"),
            None => "run".to_string(),
        }),
        "decision" => Some(match (s("run_id"), n("step")) {
            (Some(r), Some(st)) => format!("decision {r} step {st}"),
            (Some(r), None) => format!("decision {r}"),
            _ => "decision".to_string(),
        }),
        "case" => Some(match (s("task_id"), n("step")) {
            (Some(t), Some(st)) => format!("case {t} step {st}"),
            (Some(t), None) => format!("case {t}"),
            _ => "case".to_string(),
        }),
        _ => None,
    }
}

/// A key from a trace (a tag name) inside a field path: escaped and cut.
fn key_shown(k: &str) -> String {
    crate::text::truncate(&crate::text::escape(k), crate::text::ECHO_MAX).into_owned()
}

/// An id as error messages show it: masked, escaped, and cut when very long.
fn shown_id(s: &str) -> String {
    let head = match s.char_indices().nth(320) {
        Some((i, _)) => &s[..i],
        None => s,
    };
    let masked = crate::redact::mask(head);
    let escaped = crate::text::escape(&masked);
    if escaped.chars().count() > 80 || head.len() < s.len() {
        format!("{}…", escaped.chars().take(80).collect::<String>())
    } else {
        escaped.into_owned()
    }
}
