//! The possible answers of the fixtures and of BFCL's public files as cases.

use std::path::Path;

use super::*;
use crate::ingest::bfcl::files::{File, entry_id, key_of, stem};
use crate::ingest::bfcl::menu::{functions_of, menu_names};
use crate::ingest::bfcl::testutil::{fixture, o};
use crate::ingest::read::Limits;

#[test]
fn acceptable_values_become_one_of_and_absent() {
    let s = json!({"type": "string"});
    let i = json!({"type": "integer"});
    let ev = |a: &str, p: &Value| expected_value(&o(a), Some(p), true);
    assert_eq!(ev("[5]", &i), json!(5));
    assert_eq!(ev("[5, 5.0]", &i), json!({"@one_of": [5, 5.0]}));
    assert_eq!(ev(r#"["", 0]"#, &i), json!({"@one_of": ["@absent", 0]}));
    // A string argument: BFCL's comparison takes an empty string too.
    assert_eq!(
        ev(r#"["cm", "centimeters", ""]"#, &s),
        json!({"@one_of": ["cm", "centimeters", "@absent", ""]})
    );
    assert_eq!(ev(r#"[""]"#, &s), json!({"@one_of": ["@absent", ""]}));
    assert_eq!(
        ev(r#"[["a", "b"], ["b", "a"]]"#, &json!({"type": "array"})),
        json!({"@one_of": [["a", "b"], ["b", "a"]]})
    );
    assert_eq!(ev("[]", &i), json!({"@one_of": []}));
    // Unknown type (the question is not known): no empty string.
    assert_eq!(
        expected_value(&o(r#"["", "x"]"#), None, true),
        json!({"@one_of": ["@absent", "x"]})
    );
}

#[test]
fn dict_answers_expand_to_the_objects_they_allow() {
    let dict = json!({"type": "dict", "properties": {}});
    let answer = o(r#"[{"size": ["large", "L"], "milk": ["oat", ""]}]"#);
    // Since v2 a key with "" may be left out, or be "".
    assert_eq!(
        expected_value(&answer, Some(&dict), true),
        json!({"@one_of": [
            {"size": "large", "milk": "oat"}, {"size": "large"}, {"size": "large", "milk": ""},
            {"size": "L", "milk": "oat"}, {"size": "L"}, {"size": "L", "milk": ""}
        ]})
    );
    // v1 counts the keys: "" is only a value.
    assert_eq!(
        expected_value(&answer, Some(&dict), false),
        json!({"@one_of": [
            {"size": "large", "milk": "oat"}, {"size": "large", "milk": ""},
            {"size": "L", "milk": "oat"}, {"size": "L", "milk": ""}
        ]})
    );
    // v1 nests a dict answer without its list.
    assert_eq!(
        expected_value(
            &o(r#"[{"range": {"min": [1], "max": [9]}}]"#),
            Some(&dict),
            false
        ),
        json!({"range": {"min": 1, "max": 9}})
    );
    // A list of dicts: each item expands, in order.
    let list = json!({"type": "array", "items": {"type": "dict"}});
    assert_eq!(
        expected_value(
            &o(r#"[[{"f": ["age"], "op": [">", "gt"]}, {"f": ["job"]}]]"#),
            Some(&list),
            true
        ),
        json!({"@one_of": [[{"f": "age", "op": ">"}, {"f": "job"}], [{"f": "age", "op": "gt"}, {"f": "job"}]]})
    );
    // Past the limit, one object with @one_of per key.
    let keys: Vec<String> = (0..9).map(|k| format!(r#""k{k}": ["a", "b"]"#)).collect();
    let big = o(&format!("[{{{}}}]", keys.join(", ")));
    let got = expected_value(&big, Some(&dict), true);
    assert_eq!(got["k0"], json!({"@one_of": ["a", "b"]}));
    assert_eq!(got.as_object().unwrap().len(), 9);
    let single = o(r#"[{"k": ["a"], "m": ["b", ""]}]"#);
    assert_eq!(
        expand_dict(
            match &single {
                OJson::Arr(a) => match &a[0] {
                    OJson::Obj(p) => p,
                    _ => panic!(),
                },
                _ => panic!(),
            },
            true,
            true
        ),
        vec![json!({"k": "a", "m": {"@one_of": ["b", "@absent", ""]}})]
    );
}

/// The expected calls of every answer in a fixture file, by id.
fn cases(question: &str, answer: &str) -> Vec<Value> {
    let q = fixture(question);
    let a = fixture(answer);
    let category = key_of(&stem(Path::new(answer))).category;
    a.lines
        .iter()
        .map(|(_, v)| {
            let id = entry_id(v).unwrap();
            let entry = q
                .lines
                .iter()
                .find(|(_, e)| entry_id(e).as_deref() == Some(&id))
                .unwrap();
            let functions = functions_of(&entry.1);
            let calls = expected_calls(v.get("ground_truth").unwrap(), Some(&functions), &category)
                .unwrap();
            answer_case(&id, calls)
        })
        .collect()
}

#[test]
fn v1_possible_answers_make_these_cases() {
    let simple = cases(
        "v1/question/gorilla_openfunctions_v1_test_simple.json",
        "v1/possible_answer/gorilla_openfunctions_v1_test_simple.json",
    );
    assert_eq!(simple.len(), 13);
    let case = |id: &str, calls: Value| json!({"type": "case", "task_id": id, "expected_calls": calls, "strings": "loose", "extra_arguments": "reject", "checker": "bfcl"});
    assert_eq!(
        simple[0],
        case(
            "simple_0",
            json!([{"tool": "geometry.circle_area", "arguments": {"radius": 4, "unit": {"@one_of": ["cm", "centimeters", "@absent", ""]}}}])
        )
    );
    assert_eq!(
        simple[2],
        case(
            "simple_2",
            json!([{"tool": "book_table", "arguments": {"restaurant": "Luigi's", "party_size": 4, "time": {"@one_of": ["@absent", ""]}}}])
        )
    );
    assert_eq!(
        simple[4],
        case(
            "simple_4",
            json!([{"tool": "stats.mean", "arguments": {"values": [2.0, 4.0, 6.0]}}])
        )
    );
    assert_eq!(
        simple[5],
        case(
            "simple_5",
            json!([{"tool": "flight.search", "arguments": {"origin": {"@one_of": ["Boston", "BOS"]}, "destination": {"@one_of": ["Denver", "DEN"]}}}])
        )
    );
    assert_eq!(
        simple[12],
        case(
            "simple_12",
            json!([{"tool": "calendar.add_event", "arguments": {"title": "Standup", "when": {"@one_of": [{"date": "2025-03-14", "time": "09:00"}, {"date": "2025-03-14", "time": "9:00"}]}}}])
        )
    );
    let multiple = cases(
        "v1/question/gorilla_openfunctions_v1_test_multiple_function.json",
        "v1/possible_answer/gorilla_openfunctions_v1_test_multiple_function.json",
    );
    assert_eq!(
        multiple[0],
        case(
            "multiple_function_0",
            json!([{"tool": "car.rent", "arguments": {"city": "Lisbon", "days": 3}}])
        )
    );
    // Suffixed keys (`_1`, ` 2`) resolve to their function, in order.
    let parallel = cases(
        "v1/question/gorilla_openfunctions_v1_test_parallel_function.json",
        "v1/possible_answer/gorilla_openfunctions_v1_test_parallel_function.json",
    );
    assert_eq!(
        parallel[0],
        case(
            "parallel_function_0",
            json!([
                {"tool": "weather.current", "arguments": {"city": "Oslo", "units": {"@one_of": ["@absent", "", "metric"]}}},
                {"tool": "weather.current", "arguments": {"city": "Cairo", "units": {"@one_of": ["@absent", "", "metric"]}}}
            ])
        )
    );
    let tools: Vec<&Value> = parallel[2]["expected_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["tool"])
        .collect();
    assert_eq!(
        tools,
        [
            &json!("alarm.set"),
            &json!("alarm.set"),
            &json!("alarm.set")
        ]
    );
    // Two functions: the answer's order, not the alphabet's.
    let pm = cases(
        "v1/question/gorilla_openfunctions_v1_test_parallel_multiple_function.json",
        "v1/possible_answer/gorilla_openfunctions_v1_test_parallel_multiple_function.json",
    );
    assert_eq!(
        pm[1],
        case(
            "parallel_multiple_function_1",
            json!([
                {"tool": "email.send", "arguments": {"to": "ana@example.com", "subject": {"@one_of": ["Launch", "The launch"]}, "body": {"@one_of": ["@absent", ""]}}},
                {"tool": "sms.send", "arguments": {"number": "555-0101", "text": "on my way"}}
            ])
        )
    );
}

#[test]
fn v4_possible_answers_make_these_cases() {
    let simple = cases(
        "v4/question/BFCL_v4_simple_python.json",
        "v4/possible_answer/BFCL_v4_simple_python.json",
    );
    assert_eq!(
        simple,
        vec![
            json!({"type": "case", "task_id": "simple_python_0", "strings": "loose", "extra_arguments": "reject", "checker": "bfcl", "expected_calls": [
                {"tool": "lights.set", "arguments": {
                    "room": {"@one_of": ["living room", "Living Room"]},
                    "settings": {"@one_of": [{"brightness": 40, "color": "warm white"}, {"brightness": 40}, {"brightness": 40, "color": ""}]}}}]}),
            json!({"type": "case", "task_id": "simple_python_1", "strings": "loose", "extra_arguments": "reject", "checker": "bfcl", "expected_calls": [
                {"tool": "math.power", "arguments": {"base": 2, "exponent": 10, "mod": {"@one_of": ["@absent", 1]}}}]}),
        ]
    );
    // Multi-turn answers are Python calls judged by the state they
    // leave: no expected calls.
    let mt = fixture("v4/possible_answer/BFCL_v4_multi_turn_miss_func.json");
    assert_eq!(
        expected_calls(
            mt.lines[0].1.get("ground_truth").unwrap(),
            None,
            "multi_turn_miss_func"
        ),
        None
    );
}

#[test]
fn odd_answers_keep_what_they_say() {
    let fs = vec![
        json!({"name": "find_card_in_deck", "parameters": {"properties": {"rank": {"type": "string"}}}}),
    ];
    // BFCL 2024's parallel_multiple_function_179 has a "deck" key that
    // is no function: an expected call no model makes.
    let gt = o(r#"{"find_card_in_deck": {"rank": ["Ace"]}, "deck": [[], ""]}"#);
    assert_eq!(
        expected_calls(&gt, Some(&fs), "parallel_multiple"),
        Some(vec![
            json!({"tool": "find_card_in_deck", "arguments": {"rank": "Ace"}}),
            json!({"tool": "deck"})
        ])
    );
    // v1 finds a function by containment: the first whose name the key holds.
    let fs2 = vec![json!({"name": "calc"}), json!({"name": "calc_area"})];
    assert_eq!(
        expected_calls(&o(r#"{"calc_area": {}}"#), Some(&fs2), "multiple").unwrap()[0]["tool"],
        json!("calc")
    );
    assert_eq!(
        expected_calls(&o(r#"[{"calc_area": {}}]"#), Some(&fs2), "multiple").unwrap()[0]["tool"],
        json!("calc_area")
    );
    // The simple checker takes the entry's function whatever the key.
    assert_eq!(
        expected_calls(&o(r#"[{"other": {}}]"#), Some(&fs2), "simple").unwrap()[0]["tool"],
        json!("calc")
    );
    assert_eq!(
        expected_calls(&o(r#"["a(b=1)"]"#), None, "exec_simple"),
        None
    );
}

/// Every possible answer of the public BFCL files (2024-08-11 and the v4
/// cut) maps to expected calls on its entry's menu.
#[test]
#[ignore = "needs ../shared"]
fn real_possible_answers_resolve_on_their_menus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-traces");
    let mut seen = Vec::new();
    let (mut per_key, mut refused) = (Vec::new(), Vec::new());
    for (dir, prefix) in [
        ("bfcl-results/2024-08-11", "gorilla_openfunctions_v1_test_"),
        ("bfcl-v4", "BFCL_v4_"),
    ] {
        let answers = root.join(dir).join("possible_answer");
        let mut names: Vec<String> = std::fs::read_dir(&answers)
            .unwrap_or_else(|e| panic!("{}: {e}", answers.display()))
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.contains("multi_turn"))
            .collect();
        names.sort();
        for name in names {
            let read = |sub: &str| {
                let p = root.join(dir).join(sub).join(&name);
                File::parse(&name, &p, &std::fs::read(&p).unwrap(), &Limits::default()).0
            };
            let (q, a) = (read("question"), read("possible_answer"));
            let category = key_of(&stem(Path::new(&name))).category;
            let (mut calls, mut unresolved) = (0, Vec::new());
            for (_, v) in &a.lines {
                let id = entry_id(v).unwrap();
                let entry = &q
                    .lines
                    .iter()
                    .find(|(_, e)| entry_id(e).as_deref() == Some(&id))
                    .unwrap()
                    .1;
                let menu = functions_of(entry);
                let case = answer_case(
                    &id,
                    expected_calls(v.get("ground_truth").unwrap(), Some(&menu), &category).unwrap(),
                );
                let text = case.to_string();
                if text.contains("\"@one_of\"") && nested_one_of(&case["expected_calls"]) {
                    per_key.push(id.clone());
                }
                if let Err(e) = crate::ingest::native::parse(case) {
                    refused.push(format!("{id}: {}", e.message));
                }
            }
            for (_, v) in &a.lines {
                let id = entry_id(v).unwrap();
                let entry = &q
                    .lines
                    .iter()
                    .find(|(_, e)| entry_id(e).as_deref() == Some(&id))
                    .unwrap()
                    .1;
                let menu = functions_of(entry);
                let names = menu_names(&menu);
                for c in
                    expected_calls(v.get("ground_truth").unwrap(), Some(&menu), &category).unwrap()
                {
                    calls += 1;
                    let tool = c["tool"].as_str().unwrap();
                    if !names.iter().any(|n| n == tool) {
                        unresolved.push(format!("{id}:{tool}"));
                    }
                }
            }
            seen.push((
                name.trim_start_matches(prefix).to_string(),
                a.lines.len(),
                calls,
                unresolved,
            ));
        }
    }
    eprintln!("per-key: {per_key:?}");
    assert_eq!(
        refused,
        Vec::<String>::new(),
        "every case reads as a native case"
    );
    let s = |n: &str, e, c, u: &[&str]| {
        (
            n.to_string(),
            e,
            c,
            u.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        seen,
        vec![
            s("multiple_function.json", 200, 200, &[]),
            s("parallel_function.json", 200, 539, &[]),
            s(
                "parallel_multiple_function.json",
                200,
                608,
                &["parallel_multiple_function_179:deck"]
            ),
            s("simple.json", 400, 400, &[]),
            s("live_multiple.json", 50, 50, &[]),
            s("live_simple.json", 50, 50, &[]),
            s("multiple.json", 50, 50, &[]),
            s("parallel.json", 30, 73, &[]),
            s("parallel_multiple.json", 30, 64, &[]),
            s("simple_python.json", 50, 50, &[]),
        ]
    );
}

/// Whether an `@one_of` sits inside an expected argument value (the
/// per-key form of a dict answer with too many combinations).
fn nested_one_of(calls: &Value) -> bool {
    fn inside(v: &Value, top: bool) -> bool {
        match v {
            Value::Object(m) if m.contains_key("@one_of") => {
                !top || m["@one_of"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| inside(x, false))
            }
            Value::Object(m) => m.values().any(|x| inside(x, false)),
            Value::Array(a) => a.iter().any(|x| inside(x, false)),
            _ => false,
        }
    }
    calls.as_array().unwrap().iter().any(|c| {
        c.get("arguments")
            .and_then(Value::as_object)
            .is_some_and(|a| a.values().any(|v| inside(v, true)))
    })
}
