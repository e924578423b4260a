//! Expected calls and outputs (format v1.1, `expectations.md`).

use serde_json::Value;

use super::*;

/// The fields of a case that set its run's expectations (format v1.1).
pub(super) const EXPECTATION_FIELDS: [&str; 5] = [
    "expected_calls",
    "expected_outputs",
    "strings",
    "extra_arguments",
    "checker",
];

/// Reads fields with `read` and leaves them in the record's `extra` as
/// well: format v1.1 fields that importers and the store have always kept
/// there (a decision's `text`), so that stored records and their hashes do
/// not change, and the store keeps them before it has columns of its own.
pub(super) fn kept_in_extra<T>(
    o: &mut Obj,
    keys: &[&str],
    read: impl FnOnce(&mut Obj) -> Res<T>,
) -> Res<T> {
    let recorded: Vec<(String, Value)> = keys
        .iter()
        .filter_map(|k| o.map.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let value = read(o)?;
    o.map.extend(recorded);
    Ok(value)
}

/// Reads the expectations a case stored as [`Expectations::to_json`] (or
/// any object with those fields, such as a stored case's `extra`), with the
/// checks of a case record; other fields are ignored.
pub fn expectations(v: Value) -> Result<Expectations, String> {
    expectation_fields(&mut Obj::new(v, "")?)
}

/// `expected_calls`, `expected_outputs`, `strings`, `extra_arguments` and
/// `checker`.
pub(super) fn expectation_fields(o: &mut Obj) -> Res<Expectations> {
    let calls = match o.take("expected_calls") {
        None => None,
        Some(Value::Array(items)) => {
            let mut calls = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                calls.push(expected_call(item, &format!("expected_calls[{i}]"))?);
            }
            Some(calls)
        }
        Some(other) => {
            return Err(o.wrong(
                "expected_calls",
                "a list of {tool, arguments} objects",
                &other,
            ));
        }
    };
    Ok(Expectations {
        calls,
        outputs: o.opt_str_list("expected_outputs")?,
        strings: o
            .opt_enum("strings", Strings::parse, Strings::spellings)?
            .unwrap_or_default(),
        extra_arguments: o
            .opt_enum(
                "extra_arguments",
                ExtraArguments::parse,
                ExtraArguments::spellings,
            )?
            .unwrap_or_default(),
        checker: o
            .opt_enum("checker", Checker::parse, Checker::spellings)?
            .unwrap_or_default(),
    })
}

pub(super) fn expected_call(v: Value, path: &str) -> Res<ExpectedCall> {
    let mut c = Obj::new(v, path)?;
    let tool = c.req_id("tool")?;
    if tool.starts_with('@') {
        return Err(format!(
            "field \"{}\": \"{}\" is not a tool name (names starting with '@' are reserved)",
            c.name("tool"),
            shown_id(&tool)
        ));
    }
    let arguments = match c.opt_obj("arguments")? {
        None => None,
        Some(mut args) => {
            let mut out = std::collections::BTreeMap::new();
            for (key, value) in std::mem::take(&mut args.map) {
                let v = ExpectedValue::from_json(value)
                    .map_err(|why| format!("field \"{}\": {why}", args.name(&shown_id(&key))))?;
                out.insert(key, v);
            }
            Some(out)
        }
    };
    Ok(ExpectedCall {
        tool,
        arguments,
        extra: c.extra(),
    })
}
