//! Possible answers as cases: BFCL's lists of acceptable values as
//! `expected_calls` (`expectations.md` §2), each answer key resolved to its
//! function as BFCL's checker finds it.

use serde_json::{Map, Value, json};

use super::OJson;

/// Alternatives a dict-typed argument expands to before its acceptable
/// values are given per key instead (`{"key": {"@one_of": [...]}}`).
const MAX_DICT_ALTERNATIVES: usize = 256;

/// The original (BFCL) type of a parameter schema.
fn bfcl_type(prop: Option<&Value>) -> Option<&str> {
    prop.and_then(|p| p.get("type")).and_then(Value::as_str)
}

/// Pushes a value unless an equal one is there.
fn push_unique(list: &mut Vec<Value>, v: Value) {
    if !list.contains(&v) {
        list.push(v);
    }
}

/// The expected value of one argument from BFCL's list of acceptable values:
/// a bare value when there is one, else `{"@one_of": [...]}`; `""` (may be
/// left out) becomes `"@absent"`, and for a string argument also the empty
/// string itself, which BFCL's string comparison accepts too. Dict-typed
/// arguments (and lists of them) list acceptable values per key; they are
/// expanded into the whole objects they allow.
pub fn expected_value(acceptable: &OJson, prop: Option<&Value>, newer: bool) -> Value {
    let list: &[OJson] = match acceptable {
        OJson::Arr(a) => a,
        other => std::slice::from_ref(other),
    };
    let mut alts: Vec<Value> = Vec::new();
    let mut absent = false;
    for v in list {
        if v.is_empty_string() {
            if !absent {
                absent = true;
                alts.push(json!("@absent"));
            }
            if matches!(bfcl_type(prop), Some("string" | "any")) {
                push_unique(&mut alts, json!(""));
            }
            continue;
        }
        for a in alternatives(v, prop, newer) {
            push_unique(&mut alts, a);
        }
    }
    if !absent
        && alts.len() == 1
        && let Some(only) = alts.pop()
    {
        return only;
    }
    json!({"@one_of": alts})
}

/// The literal values one acceptable value stands for.
fn alternatives(v: &OJson, prop: Option<&Value>, newer: bool) -> Vec<Value> {
    let ty = bfcl_type(prop);
    match v {
        OJson::Obj(pairs) if ty == Some("dict") => expand_dict(pairs, newer, false),
        OJson::Arr(items)
            if matches!(ty, Some("array" | "tuple"))
                && bfcl_type(prop.and_then(|p| p.get("items"))) == Some("dict")
                && !items.is_empty()
                && items.iter().all(|i| matches!(i, OJson::Obj(_))) =>
        {
            let dicts = || {
                items.iter().filter_map(|i| match i {
                    OJson::Obj(pairs) => Some(pairs.as_slice()),
                    _ => None,
                })
            };
            let per_item: Vec<Vec<Value>> = dicts().map(|d| expand_dict(d, newer, false)).collect();
            let mut lists: Vec<Vec<Value>> = vec![Vec::new()];
            for options in per_item {
                if lists.len() * options.len() > MAX_DICT_ALTERNATIVES {
                    // Too many lists: each item one object, `@one_of` per key.
                    let list = dicts().flat_map(|d| expand_dict(d, newer, true)).collect();
                    return vec![Value::Array(list)];
                }
                lists = lists
                    .iter()
                    .flat_map(|l| {
                        options.iter().map(move |o| {
                            let mut l = l.clone();
                            l.push(o.clone());
                            l
                        })
                    })
                    .collect();
            }
            lists.into_iter().map(Value::Array).collect()
        }
        other => vec![other.to_value()],
    }
}

/// The objects a dict answer (`{key: [acceptable values]}`) allows. Since
/// v2 BFCL lets a key whose list has `""` be left out; v1 counts the keys
/// and takes `""` as a value. Past `MAX_DICT_ALTERNATIVES` objects (or
/// when `per_key_form` asks for it), one object with `@one_of` per key stands
/// for them.
fn expand_dict(pairs: &[(String, OJson)], newer: bool, per_key_form: bool) -> Vec<Value> {
    // Per key: its options, None meaning left out.
    let mut per_key: Vec<(&str, Vec<Option<Value>>)> = Vec::new();
    for (k, v) in pairs {
        let mut opts: Vec<Option<Value>> = Vec::new();
        let mut add = |o: Option<Value>| {
            if !opts.contains(&o) {
                opts.push(o);
            }
        };
        match v {
            OJson::Arr(list) => {
                for x in list {
                    if x.is_empty_string() && newer {
                        add(None);
                    }
                    add(Some(x.to_value()));
                }
            }
            // v1 nests a dict answer without a list around it.
            OJson::Obj(inner) => {
                for o in expand_dict(inner, newer, false) {
                    add(Some(o));
                }
            }
            other => add(Some(other.to_value())),
        }
        per_key.push((k, opts));
    }
    let count = per_key
        .iter()
        .try_fold(1usize, |n, (_, o)| n.checked_mul(o.len().max(1)));
    if per_key_form || count.is_none_or(|n| n > MAX_DICT_ALTERNATIVES) {
        let mut m = Map::new();
        for (k, mut opts) in per_key {
            let single = match opts.as_mut_slice() {
                [Some(v)] => Some(v.take()),
                _ => None,
            };
            let v = match single {
                Some(v) => v,
                None => {
                    let list: Vec<Value> = opts
                        .into_iter()
                        .map(|o| o.unwrap_or_else(|| json!("@absent")))
                        .collect();
                    json!({"@one_of": list})
                }
            };
            m.insert(k.to_string(), v);
        }
        return vec![Value::Object(m)];
    }
    let mut objects: Vec<Map<String, Value>> = vec![Map::new()];
    for (k, opts) in per_key {
        objects = objects
            .iter()
            .flat_map(|o| {
                opts.iter().map(move |opt| {
                    let mut o = o.clone();
                    if let Some(v) = opt {
                        o.insert(k.to_string(), v.clone());
                    }
                    o
                })
            })
            .collect();
    }
    objects.into_iter().map(Value::Object).collect()
}

/// BFCL v1 finds a possible answer's function (its key may carry a suffix:
/// `spotify.play_1`, `calculate_bmi 2`) as the first function of the entry
/// whose name the key contains; later versions by equal name.
fn answer_function<'f>(key: &str, functions: &'f [Value], newer: bool) -> Option<&'f Value> {
    functions.iter().find(|f| {
        let name = f.get("name").and_then(Value::as_str).unwrap_or("");
        if newer {
            name == key
        } else {
            !name.is_empty() && key.contains(name)
        }
    })
}

/// A possible answer's calls in order, as (key, arguments): a dict of them
/// (v1) or a list of one-key dicts (since v2). `None` when the answer is not
/// of this shape (multi-turn, agentic and executable categories).
fn answer_calls(gt: &OJson) -> Option<(Vec<(&str, &OJson)>, bool)> {
    match gt {
        OJson::Obj(pairs) if !pairs.is_empty() => {
            Some((pairs.iter().map(|(k, v)| (k.as_str(), v)).collect(), false))
        }
        OJson::Arr(items) if !items.is_empty() => {
            let mut calls = Vec::new();
            for item in items {
                match item {
                    OJson::Obj(pairs) if pairs.len() == 1 => {
                        calls.push((pairs[0].0.as_str(), &pairs[0].1))
                    }
                    _ => return None,
                }
            }
            Some((calls, true))
        }
        _ => None,
    }
}

/// The expected calls of an entry from its possible answer. `functions` is
/// the entry's menu (when the question is known); an answer key that names
/// no function stays as written (BFCL then fails the entry whatever the
/// model does).
pub fn expected_calls(
    gt: &OJson,
    functions: Option<&[Value]>,
    category: &str,
) -> Option<Vec<Value>> {
    let (calls, newer) = answer_calls(gt)?;
    // BFCL's simple checker takes the entry's (only) function as it is.
    let simple = !category.contains("parallel") && !category.contains("multiple");
    let mut out = Vec::new();
    for (key, params) in calls {
        let f = functions.and_then(|fs| {
            if simple {
                fs.first()
            } else {
                answer_function(key, fs, newer)
            }
        });
        let tool = f
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(key);
        let props = f
            .and_then(|f| f.get("parameters"))
            .and_then(|p| p.get("properties"));
        let mut call = Map::new();
        call.insert("tool".into(), json!(tool));
        if let OJson::Obj(pairs) = params {
            let mut args = Map::new();
            for (name, acceptable) in pairs {
                let prop = props.and_then(|p| p.get(name));
                args.insert(name.clone(), expected_value(acceptable, prop, newer));
            }
            call.insert("arguments".into(), Value::Object(args));
        }
        out.push(Value::Object(call));
    }
    Some(out)
}

/// The case of an entry with a possible answer (expectations.md §2),
/// judged by BFCL's checker (`docs/bfcl.md` §5).
pub fn answer_case(task_id: &str, calls: Vec<Value>) -> Value {
    json!({
        "type": "case",
        "task_id": task_id,
        "expected_calls": calls,
        "strings": "loose",
        "extra_arguments": "reject",
        "checker": "bfcl",
    })
}

#[cfg(test)]
mod tests;
