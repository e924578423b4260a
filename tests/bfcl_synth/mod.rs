//! Result and score files of the shape BFCL writes (`SOURCE.md` of
//! ../shared/real-traces/bfcl-results/2024-08-11), made from the possible
//! answers: one function-calling "model" answers every entry right, each
//! other one perturbs every entry one way, and BFCL's verdict on each
//! answer is derived by BFCL's rules (`docs/bfcl.md` §2):
//!
//! - right: each expected call with, per argument, its first acceptable
//!   value that is not `""` (left out when there is none). BFCL passes it,
//!   except where its own data makes it fail: an answer key that names no
//!   function (`cannot_find_description`), an answer argument the function
//!   does not declare (`unexpected_param`), a required argument the answer
//!   does not give (`missing_required`). Those entries are not perturbed.
//! - wrong name: the first call's name prefixed `zz_` → `wrong_func_name`;
//! - missing required: a required argument dropped → `missing_required`;
//! - wrong type: an integer or boolean argument given as a string →
//!   `type_error:simple`;
//! - wrong value: a string argument given a string no answer has →
//!   `value_error:string`;
//! - extra call: the first call made twice → `wrong_count`;
//! - text: an answer in words → `ast_decoder:decoder_failed`.
//!
//! In the categories BFCL v1 checks without order (all but simple), the
//! perturbed call's error is a `cannot_find_match` whose candidate has that
//! sub-type. In irrelevance the right answer (and the text one) is text,
//! every other model calls the menu's function: `decoder_success`.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Perturb {
    None,
    WrongName,
    MissingRequired,
    WrongType,
    WrongValue,
    ExtraCall,
    Text,
}

const MODELS: [(&str, Perturb); 7] = [
    ("synth-correct-FC", Perturb::None),
    ("synth-wrong-name-FC", Perturb::WrongName),
    ("synth-missing-required-FC", Perturb::MissingRequired),
    ("synth-wrong-type-FC", Perturb::WrongType),
    ("synth-wrong-value-FC", Perturb::WrongValue),
    ("synth-extra-call-FC", Perturb::ExtraCall),
    ("synth-text-FC", Perturb::Text),
];

const CATEGORIES: [&str; 5] = [
    "simple",
    "multiple_function",
    "parallel_function",
    "parallel_multiple_function",
    "relevance",
];

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// One call of an answer: the function's name as BFCL wrote it, and its
/// arguments.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    function: Option<Value>,
    args: Map<String, Value>,
}

fn is_empty_string(v: &Value) -> bool {
    v.as_str() == Some("")
}

/// The first acceptable value that is not `""`; dict answers (v1 lists
/// acceptable values per key, or nests a dict) made whole the same way.
fn pick(values: &Value) -> Option<Value> {
    let list = values.as_array()?;
    list.iter().find(|v| !is_empty_string(v)).map(whole)
}

fn whole(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let chosen = match x {
                        Value::Array(_) => pick(x).unwrap_or(json!("")),
                        Value::Object(_) => whole(x),
                        other => other.clone(),
                    };
                    (k.clone(), chosen)
                })
                .collect(),
        ),
        Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
            Value::Array(items.iter().map(whole).collect())
        }
        other => other.clone(),
    }
}

fn props(f: &Value) -> Option<&Map<String, Value>> {
    f["parameters"]["properties"].as_object()
}

fn declared(f: &Value, param: &str) -> Option<String> {
    props(f)?
        .get(param)?
        .get("type")?
        .as_str()
        .map(String::from)
}

fn required(f: &Value) -> Vec<String> {
    f["parameters"]["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

/// The right answer of an entry, and BFCL's error when even it fails.
fn right_answer(
    gt: &Map<String, Value>,
    functions: &[Value],
    simple: bool,
) -> (Vec<Call>, Option<&'static str>) {
    let mut calls = Vec::new();
    let mut error = None;
    for (key, params) in gt {
        let function = if simple {
            functions.first().cloned()
        } else {
            functions
                .iter()
                .find(|f| f["name"].as_str().is_some_and(|n| key.contains(n)))
                .cloned()
        };
        let mut args = Map::new();
        for (param, values) in params.as_object().into_iter().flatten() {
            if let Some(v) = pick(values) {
                args.insert(param.clone(), v);
            }
        }
        match &function {
            None => error = error.or(Some("cannot_find_description")),
            Some(f) => {
                if args
                    .keys()
                    .any(|k| !props(f).is_some_and(|p| p.contains_key(k)))
                {
                    error = error.or(Some("simple_function_checker:unexpected_param"));
                }
                if required(f).iter().any(|r| !args.contains_key(r)) {
                    error = error.or(Some("simple_function_checker:missing_required"));
                }
            }
        }
        let name = function
            .as_ref()
            .and_then(|f| f["name"].as_str())
            .unwrap_or(key)
            .to_string();
        calls.push(Call {
            name,
            function,
            args,
        });
    }
    (calls, error)
}

/// The values an answer accepts for one argument of one call.
fn acceptable<'a>(gt: &'a Map<String, Value>, call: usize, param: &str) -> Vec<&'a Value> {
    gt.values()
        .nth(call)
        .and_then(|p| p.get(param))
        .and_then(Value::as_array)
        .map(|l| l.iter().filter(|v| !is_empty_string(v)).collect())
        .unwrap_or_default()
}

/// Applies a perturbation; its sub-error type, or `None` when it does not
/// apply to this entry.
fn perturb(p: Perturb, calls: &mut Vec<Call>, gt: &Map<String, Value>) -> Option<&'static str> {
    match p {
        Perturb::None | Perturb::Text => None,
        Perturb::WrongName => {
            calls[0].name = format!("zz_{}", calls[0].name);
            Some("simple_function_checker:wrong_func_name")
        }
        Perturb::ExtraCall => {
            let first = calls[0].clone();
            calls.push(first);
            Some("wrong_count")
        }
        Perturb::MissingRequired => {
            for c in calls.iter_mut() {
                let f = c.function.clone()?;
                if let Some(r) = required(&f).into_iter().find(|r| c.args.contains_key(r)) {
                    c.args.remove(&r);
                    return Some("simple_function_checker:missing_required");
                }
            }
            None
        }
        Perturb::WrongType => {
            for (i, c) in calls.iter_mut().enumerate() {
                let f = c.function.clone()?;
                let found = c.args.iter().find_map(|(k, v)| {
                    let t = declared(&f, k)?;
                    let same = |x: &Value| match t.as_str() {
                        "integer" => x.is_i64() || x.is_u64(),
                        "boolean" => x.is_boolean(),
                        _ => false,
                    };
                    let all = acceptable(gt, i, k);
                    (same(v) && !all.is_empty() && all.iter().all(|x| same(x))).then(|| k.clone())
                });
                if let Some(k) = found {
                    let text = c.args[&k].to_string();
                    c.args.insert(k, Value::String(text));
                    return Some("type_error:simple");
                }
            }
            None
        }
        Perturb::WrongValue => {
            for (i, c) in calls.iter_mut().enumerate() {
                let f = c.function.clone()?;
                let found = c.args.iter().find_map(|(k, v)| {
                    let all = acceptable(gt, i, k);
                    (declared(&f, k).as_deref() == Some("string")
                        && v.is_string()
                        && !all.is_empty()
                        && all.iter().all(|x| x.is_string()))
                    .then(|| k.clone())
                });
                if let Some(k) = found {
                    c.args
                        .insert(k, json!("zq no such value, surely not an answer"));
                    return Some("value_error:string");
                }
            }
            None
        }
    }
}

fn fc_item(c: &Call) -> Value {
    let mut m = Map::new();
    m.insert(
        c.name.replace('.', "_"),
        Value::String(Value::Object(c.args.clone()).to_string()),
    );
    Value::Object(m)
}

fn functions_of(q: &Value) -> Vec<Value> {
    match &q["function"] {
        Value::Array(a) => a.clone(),
        f @ Value::Object(_) => vec![f.clone()],
        _ => Vec::new(),
    }
}

/// Writes `result/<model>/` and `score/<model>/` under `out` for the
/// questions and possible answers in `real`; returns a summary.
pub fn write(real: &Path, out: &Path) -> String {
    let mut summary = String::new();
    for (model, p) in MODELS {
        let rdir = out.join("result").join(model);
        let sdir = out.join("score").join(model);
        std::fs::create_dir_all(&rdir).unwrap();
        std::fs::create_dir_all(&sdir).unwrap();
        for cat in CATEGORIES {
            let stem = format!("gorilla_openfunctions_v1_test_{cat}");
            let questions = lines(&real.join("question").join(format!("{stem}.json")));
            let answers: Vec<Value> = if cat == "relevance" {
                Vec::new()
            } else {
                lines(&real.join("possible_answer").join(format!("{stem}.json")))
            };
            let simple = cat == "simple";
            let (mut results, mut failing) = (Vec::new(), Vec::new());
            for q in &questions {
                let id = q["id"].as_str().unwrap();
                let functions = functions_of(q);
                let (answer, error): (Value, Option<Value>) = if cat == "relevance" {
                    match p {
                        Perturb::None | Perturb::Text => {
                            (json!("I cannot answer that with these tools."), None)
                        }
                        _ => {
                            let name = functions[0]["name"].as_str().unwrap().replace('.', "_");
                            (
                                json!([{ name: "{}" }]),
                                Some(
                                    json!({"error_type": "relevance_error:decoder_success", "error": ["Valid syntax. Successfully decode AST when it should not."]}),
                                ),
                            )
                        }
                    }
                } else {
                    let gt = answers
                        .iter()
                        .find(|a| a["id"] == id)
                        .and_then(|a| a["ground_truth"].as_object())
                        .unwrap_or_else(|| panic!("{id}: no possible answer"));
                    let (mut calls, quirk) = right_answer(gt, &functions, simple);
                    if let Some(q) = quirk {
                        if p != Perturb::None {
                            continue;
                        }
                        let t = if q.starts_with("simple_function_checker") && !simple {
                            "parallel_function_checker_no_order:cannot_find_match".to_string()
                        } else if q == "cannot_find_description" {
                            "parallel_function_checker_no_order:cannot_find_description".to_string()
                        } else {
                            q.to_string()
                        };
                        let answer = Value::Array(calls.iter().map(fc_item).collect());
                        let error = json!({"error_type": t, "error": ["", {"Model Result Index 0": {"sub_error_type": q}}]});
                        (answer, Some(error))
                    } else if p == Perturb::Text {
                        (
                            json!("Which unit do you mean?"),
                            Some(
                                json!({"error_type": "ast_decoder:decoder_failed", "error": ["Invalid syntax. Failed to decode AST."]}),
                            ),
                        )
                    } else {
                        let sub = perturb(p, &mut calls, gt);
                        if p != Perturb::None && sub.is_none() {
                            continue;
                        }
                        let answer = Value::Array(calls.iter().map(fc_item).collect());
                        let error = sub.map(|sub| {
                            let t = match (sub, simple) {
                                ("wrong_count", true) => "simple_function_checker:wrong_count".to_string(),
                                ("wrong_count", false) => "parallel_function_checker_no_order:wrong_count".to_string(),
                                (s, true) => s.to_string(),
                                (_, false) => "parallel_function_checker_no_order:cannot_find_match".to_string(),
                            };
                            json!({"error_type": t, "error": ["", {"Model Result Index 0": {"sub_error_type": sub}}]})
                        });
                        (answer, error)
                    }
                };
                results.push(json!({"id": id, "result": answer, "input_token_count": 0, "output_token_count": 0, "latency": 0.0}));
                if let Some(mut e) = error {
                    let line = results.len();
                    e["id"] = json!(line);
                    e["model_name"] = json!(model);
                    e["test_category"] = json!(cat);
                    e["valid"] = json!(false);
                    if cat != "relevance" {
                        e["prompt"] = q.clone();
                    }
                    failing.push(e);
                }
            }
            let total = results.len();
            let correct = total - failing.len();
            let mut text = String::new();
            for r in &results {
                writeln!(text, "{r}").unwrap();
            }
            std::fs::write(rdir.join(format!("{stem}_result.json")), text).unwrap();
            let mut score = format!(
                "{}\n",
                json!({"accuracy": correct as f64 / total.max(1) as f64, "correct_count": correct, "total_count": total})
            );
            for f in &failing {
                writeln!(score, "{f}").unwrap();
            }
            std::fs::write(sdir.join(format!("{cat}_score.json")), score).unwrap();
            writeln!(
                summary,
                "{model} {cat}: {total} entries, {} failing",
                failing.len()
            )
            .unwrap();
        }
    }
    summary
}
