//! §8 on hand-made definitions and calls; every failing path worked out by
//! hand from `expectations.md` §8 and, for BFCL's rules, from BFCL's
//! `type_checker` (`docs/bfcl.md` §2.4).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::model::ExpectedValue;

fn paths(v: &[Violation]) -> Vec<(String, String)> {
    v.iter()
        .map(|v| (v.path.clone(), v.keyword.clone()))
        .collect()
}

fn p(path: &str, keyword: &str) -> (String, String) {
    (path.to_string(), keyword.to_string())
}

fn validate(schema: Value, args: Value) -> Option<Vec<Violation>> {
    SchemaChecker::new().validate(&schema, &args)
}

#[test]
fn definitions_in_every_recorded_shape_give_their_schemas() {
    let defs = json!([
        {"name": "lookup", "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}}},
        {"name": "mcp_tool", "inputSchema": {"type": "object"}},
        {"type": "function", "function": {"name": "openai_tool", "parameters": {"type": "object", "required": ["q"]}}},
        {"type": "function", "name": "responses_tool", "parameters": {"type": "object"}},
        {"name": "gemini_tool", "parametersJsonSchema": {"type": "object"}},
        {"name": "bare"},
        {"name": "lookup", "input_schema": {"type": "object", "required": ["second"]}},
        {"description": "no name"},
        "not a definition"
    ]);
    let s = ToolSchemas::from_definitions(&defs);
    assert_eq!(
        s.get("lookup"),
        Some(Some(
            &json!({"type": "object", "properties": {"id": {"type": "string"}}})
        )),
        "the first definition of a name wins"
    );
    assert_eq!(s.get("mcp_tool"), Some(Some(&json!({"type": "object"}))));
    assert_eq!(
        s.get("openai_tool"),
        Some(Some(&json!({"type": "object", "required": ["q"]})))
    );
    assert!(matches!(s.get("responses_tool"), Some(Some(_))));
    assert!(matches!(s.get("gemini_tool"), Some(Some(_))));
    assert_eq!(s.get("bare"), Some(None));
    assert_eq!(s.get("missing"), None);
    assert!(ToolSchemas::from_definitions(&json!({"name": "x"})).is_empty());
}

#[test]
fn each_keyword_tool_definitions_use_names_its_failing_path() {
    let schema = json!({
        "type": "object",
        "required": ["name", "size"],
        "additionalProperties": false,
        "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
            "size": {"type": "integer", "minimum": 1, "maximum": 10},
            "cabin": {"enum": ["economy", "business"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "when": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "mode": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}
        }
    });
    let got = validate(
        schema.clone(),
        json!({"name": "A", "size": 11, "cabin": "first", "tags": ["a", 2],
               "when": [1], "mode": 3, "extra": true}),
    )
    .unwrap();
    let mut got = paths(&got);
    got.sort();
    assert_eq!(
        got,
        [
            p("/cabin", "enum"),
            p("/extra", "additionalProperties"),
            p("/mode", "oneOf"),
            p("/name", "minLength"),
            p("/name", "pattern"),
            p("/size", "maximum"),
            p("/tags/1", "type"),
            p("/when", "anyOf"),
        ]
    );
    let missing = validate(schema.clone(), json!({"name": "abcdef", "size": 0})).unwrap();
    let mut missing = paths(&missing);
    missing.sort();
    assert_eq!(missing, [p("/name", "maxLength"), p("/size", "minimum"),]);
    let required = validate(schema.clone(), json!({})).unwrap();
    assert_eq!(
        paths(&required),
        [p("/name", "required"), p("/size", "required")]
    );
    assert_eq!(required[0].message, "missing");
    assert_eq!(
        validate(schema, json!({"name": "ab", "size": 3})),
        Some(vec![])
    );
}

#[test]
fn arguments_that_are_not_an_object_are_invalid() {
    // With or without a root type: tool arguments are an object.
    for schema in [
        json!({"type": "object", "properties": {}}),
        json!({"properties": {"q": {"type": "string"}}}),
    ] {
        for args in [json!("q=1"), json!([1]), json!(null)] {
            let v = validate(schema.clone(), args.clone()).unwrap();
            assert_eq!(paths(&v), [p("", "type")], "{schema} {args}");
        }
    }
}

#[test]
fn unknown_keywords_are_ignored_and_malformed_ones_left_out() {
    // Unknown keywords, and `format`, which validates nothing by default.
    assert_eq!(
        validate(
            json!({"type": "object", "x-ui": {"widget": "x"}, "properties": {"mail": {"type": "string", "format": "email", "examples": ["a@b.c"]}}}),
            json!({"mail": "not an address"})
        ),
        Some(vec![])
    );
    // A type name JSON Schema lacks (BFCL's `dict`), a `required` that is
    // no list: each is left out, the rest still checks.
    let v = validate(
        json!({"type": "object", "required": "id", "properties": {"opts": {"type": "dict"}, "n": {"type": "integer"}}}),
        json!({"opts": 1, "n": "x"}),
    )
    .unwrap();
    assert_eq!(paths(&v), [p("/n", "type")]);
    // An unknown dialect is dropped rather than refusing the schema.
    let v = validate(
        json!({"$schema": "https://example.com/no-such-draft", "type": "object", "required": ["a"]}),
        json!({}),
    )
    .unwrap();
    assert_eq!(paths(&v), [p("/a", "required")]);
    // A reference that cannot be resolved offline: the schema is not used.
    assert_eq!(
        validate(
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
            json!({"a": 1})
        ),
        None
    );
}

fn schemas(defs: Value) -> ToolSchemas {
    ToolSchemas::from_definitions(&defs)
}

#[test]
fn which_definition_a_call_is_checked_against() {
    let recorded = schemas(json!([
        {"name": "book", "input_schema": {"type": "object", "required": ["day"]}},
        {"name": "ping"}
    ]));
    let catalogue = ToolSchemas::from_tools([
        (
            "book",
            Some(&json!({"type": "object", "required": ["cabin"]})),
        ),
        ("other", None),
    ]);
    let none = ToolSchemas::default();
    let mut c = SchemaChecker::new();
    let args = json!({"day": "mon"});
    let call = |selected, catalogue, recorded, arguments| CallToCheck {
        selected,
        arguments,
        catalogue,
        recorded,
        pseudo: &["no_applicable_tool"],
        bfcl: None,
    };
    // The catalogue's definition first.
    assert_eq!(
        c.check(&call(
            Some("book"),
            Some(&catalogue),
            &recorded,
            Some(&args)
        )),
        SchemaCheck::Invalid(vec![Violation::new("/cabin", "required", "missing")])
    );
    // Else the recorded one.
    assert_eq!(
        c.check(&call(Some("book"), None, &recorded, Some(&args))),
        SchemaCheck::Valid
    );
    // A name no definition has, where definitions exist: unknown.
    assert_eq!(
        c.check(&call(Some("bok"), None, &recorded, Some(&args))),
        SchemaCheck::UnknownTool
    );
    assert_eq!(
        c.check(&call(Some("bok"), Some(&catalogue), &none, None)),
        SchemaCheck::UnknownTool
    );
    // In the recorded definitions though not in the catalogue: known.
    assert_eq!(
        c.check(&call(
            Some("ping"),
            Some(&catalogue),
            &recorded,
            Some(&args)
        )),
        SchemaCheck::NotChecked
    );
    // Nothing to check: no definitions at all, no call, no recorded
    // arguments, a definition without a schema, the abstain name.
    for (selected, cat, rec, a) in [
        (Some("bok"), None, &none, Some(&args)),
        (None, Some(&catalogue), &recorded, Some(&args)),
        (Some("book"), None, &recorded, None),
        (Some("other"), Some(&catalogue), &none, Some(&args)),
        (
            Some("no_applicable_tool"),
            Some(&catalogue),
            &recorded,
            Some(&args),
        ),
    ] {
        assert_eq!(
            c.check(&call(selected, cat, rec, a)),
            SchemaCheck::NotChecked,
            "{selected:?}"
        );
    }
}

#[test]
fn only_a_decision_without_an_outcome_is_refused_by_the_schema() {
    let invalid = SchemaCheck::Invalid(vec![Violation::new("/a", "required", "missing")]);
    assert_eq!(
        boundary(&invalid, None),
        Some((Status::Refused, Stage::Schema, "schema_violation"))
    );
    assert_eq!(
        boundary(&SchemaCheck::UnknownTool, None),
        Some((Status::Refused, Stage::Representation, "unknown_tool"))
    );
    for status in Status::ALL {
        assert_eq!(boundary(&invalid, Some(*status)), None, "{status}");
        assert_eq!(boundary(&SchemaCheck::UnknownTool, Some(*status)), None);
    }
    assert_eq!(boundary(&SchemaCheck::Valid, None), None);
    assert_eq!(boundary(&SchemaCheck::NotChecked, None), None);
}

#[test]
fn the_finding_names_each_path_masked_and_cut_and_what_happened() {
    let f = SchemaFinding {
        step: 3,
        tool: "send_mail".into(),
        violations: vec![
            Violation::new("/to", "type", "expected string, got integer 5"),
            Violation::new(
                "",
                "additionalProperties",
                format!("token sk-{}", "x".repeat(200)),
            ),
        ],
        status: Some(Status::Ok),
    };
    let mask = |s: &str| s.replace("sk-", "[masked]-");
    let lines = f.paths(&mask);
    assert_eq!(lines[0], "/to: type: expected string, got integer 5");
    assert_eq!(lines[1].chars().count(), VIOLATION_CHARS + 1);
    assert!(lines[1].starts_with("/: additionalProperties: token [masked]-xxx"));
    assert!(lines[1].ends_with('…'));
    assert_eq!(
        f.detail(&|s: &str| s.to_string())
            .split("; ")
            .last()
            .unwrap(),
        "it executed anyway (ok): the action boundary let an invalid call through"
    );
    let ends = |status: Option<Status>| {
        let f = SchemaFinding {
            status,
            ..f.clone()
        };
        f.detail(&mask).rsplit("; ").next().unwrap().to_string()
    };
    assert_eq!(
        ends(None),
        "nothing ran it (no recorded outcome), so it counts as refused at schema"
    );
    assert_eq!(ends(Some(Status::Refused)), "it was refused");
    assert_eq!(ends(Some(Status::NotRun)), "it was never run");
    assert!(
        f.detail(&mask)
            .starts_with("the arguments of send_mail fail its schema: /to: type:")
    );
    // A screen reads the paths back, one per line.
    let detail = f.detail(&mask);
    let (head, paths, what) = SchemaFinding::split_detail(&detail).unwrap();
    assert_eq!(head, "the arguments of send_mail fail its schema");
    assert_eq!(paths, lines.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        what,
        "it executed anyway (ok): the action boundary let an invalid call through"
    );
    assert_eq!(SchemaFinding::split_detail("something else"), None);
}

// BFCL's rules.

/// An expected call of `tool` from its recorded `arguments`.
fn expected(tool: &str, arguments: Value) -> ExpectedCall {
    let Value::Object(m) = arguments else {
        panic!()
    };
    ExpectedCall {
        tool: tool.into(),
        arguments: Some(
            m.into_iter()
                .map(|(k, v)| (k, ExpectedValue::from_json(v).unwrap()))
                .collect::<BTreeMap<_, _>>(),
        ),
        extra: Value::Null,
    }
}

fn bfcl(schema: &Value, args: Value, answers: &[ExpectedCall]) -> Vec<(String, String)> {
    let of: Vec<&ExpectedCall> = answers.iter().collect();
    paths(&bfcl::check(schema, &args, &of))
}

#[test]
fn bfcl_integers_floats_and_nested_items() {
    let schema = json!({"type": "object", "required": ["days"], "properties": {
        "days": {"type": "integer"},
        "rate": {"type": "number"},
        "values": {"type": "array", "items": {"type": "number"}},
        "ids": {"type": "array", "items": {"type": "integer"}}
    }});
    let answer = [expected(
        "f",
        json!({"days": 3, "rate": 4.5, "values": [2.0, 4.0], "ids": [1, 2]}),
    )];
    // A number with a fraction is no integer (JSON Schema would take it).
    assert_eq!(
        bfcl(&schema, json!({"days": 3.0}), &answer),
        [p("/days", "type")]
    );
    assert_eq!(
        bfcl(&schema, json!({"days": "3"}), &answer),
        [p("/days", "type")]
    );
    // An integer passes for a float at the top, not inside an array.
    assert_eq!(bfcl(&schema, json!({"days": 3, "rate": 4}), &answer), []);
    assert_eq!(
        bfcl(&schema, json!({"days": 3, "values": [2.0, 4]}), &answer),
        [p("/values/1", "items")]
    );
    assert_eq!(
        bfcl(&schema, json!({"days": 3, "ids": [1, 2.5]}), &answer),
        [p("/ids/1", "items")]
    );
    let v = bfcl::check(
        &schema,
        &json!({"days": 3, "values": [2, 4]}),
        &[&answer[0]],
    );
    assert_eq!(v[0].message, "expected float items, got integer 2");
    let v = bfcl::check(&schema, &json!({"days": "3"}), &[&answer[0]]);
    assert_eq!(v[0].message, "expected integer, got string \"3\"");
    // Required first, then every argument the function does not declare.
    assert_eq!(
        bfcl(&schema, json!({"permeability": 0.5}), &answer),
        [p("/days", "required"), p("/permeability", "properties")]
    );
    assert_eq!(bfcl(&schema, json!([3]), &answer), [p("", "type")]);
}

#[test]
fn bfcl_any_is_a_string_and_answers_written_as_variables_pass() {
    let schema = json!({"type": "object", "properties": {
        "x": {},
        "n": {"type": "integer"},
        "pts": {"type": "array", "items": {"type": "number"}},
        "opt": {"type": "array", "items": {"type": "number"}}
    }});
    let strings = [expected("f", json!({"x": "abc", "n": 1}))];
    assert_eq!(bfcl(&schema, json!({"x": 5}), &strings), [p("/x", "type")]);
    assert_eq!(bfcl(&schema, json!({"x": "5"}), &strings), []);
    // The answer's first acceptable value (not "") gives the type a
    // "variable" may have.
    let variables = [expected(
        "f",
        json!({"x": 5, "n": {"@one_of": ["", "@absent", "count"]}, "pts": [1, 2], "opt": {"@one_of": ["@absent", [1.5]]}}),
    )];
    assert_eq!(bfcl(&schema, json!({"x": 5, "n": "count"}), &variables), []);
    assert_eq!(
        bfcl(&schema, json!({"n": 2.5}), &variables),
        [p("/n", "type")]
    );
    // Items of the answer's item type pass; an answer that may be left out
    // lets any items pass.
    assert_eq!(bfcl(&schema, json!({"pts": [1, 2]}), &variables), []);
    assert_eq!(bfcl(&schema, json!({"opt": [1, 2]}), &variables), []);
    // Several expected calls of the tool: any of them may be the one.
    let two = [
        expected("f", json!({"n": 1})),
        expected("f", json!({"n": "k"})),
    ];
    assert_eq!(bfcl(&schema, json!({"n": "k"}), &two), []);
    // No expected call of the tool: the declared types only.
    assert_eq!(
        bfcl(&schema, json!({"pts": [1.0, 2]}), &[]),
        [p("/pts/1", "items")]
    );
}

#[test]
fn bfcl_checker_replaces_json_schema_for_the_run() {
    let recorded = schemas(json!([
        {"name": "f", "input_schema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 10}}}}
    ]));
    let answers = [expected("f", json!({"n": 3}))];
    let call = |args: &Value, bfcl: Option<&[ExpectedCall]>| {
        SchemaChecker::new().check(&CallToCheck {
            selected: Some("f"),
            arguments: Some(args),
            catalogue: None,
            recorded: &recorded,
            pseudo: &[],
            bfcl,
        })
    };
    // BFCL checks no `minimum`, and takes no 3.0 for an integer.
    assert_eq!(call(&json!({"n": 3}), Some(&answers)), SchemaCheck::Valid);
    assert!(matches!(
        call(&json!({"n": 3}), None),
        SchemaCheck::Invalid(_)
    ));
    assert!(matches!(
        call(&json!({"n": 30.0}), Some(&answers)),
        SchemaCheck::Invalid(_)
    ));
    assert_eq!(call(&json!({"n": 30.0}), None), SchemaCheck::Valid);
}
