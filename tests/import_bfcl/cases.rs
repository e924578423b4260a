use super::*;

#[test]
fn v1_folder_one_entry_per_bfcl_error_type() {
    let (_dir, db) = setup();
    let s = import(&db, &["--format", "bfcl", &bfcl("v1")]);
    // 13 simple, 2 multiple, 3 parallel, 2 parallel-multiple and 3
    // irrelevance entries; simple_9 made two calls, each parallel entry
    // two; the three irrelevance cases are labelled and the 20 possible
    // answers are cases with expected calls.
    assert!(
        s.contains("23 runs, 29 decisions, 23 cases from 19 files"),
        "{s}"
    );
    let m = "example-model-FC";

    // A dotted name the model gave with underscores, an optional argument
    // left out.
    let d = stored(&db, &format!("{m}/simple_0"));
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].step, d[0].turn, d[0].selected.as_deref()),
        (1, Some(1), Some("geometry.circle_area"))
    );
    assert_eq!(d[0].arguments, Some(json!({"radius": 4})));
    assert_eq!(
        d[0].extra,
        Some(json!({"bfcl_name": "geometry_circle_area"}))
    );
    assert!(d[0].outcome.is_none() && d[0].status.is_none());
    // The run's menu: every decision sees it.
    assert_eq!(d[0].visible, None);
    assert_eq!(
        run_column(&db, &format!("{m}/simple_0"), "visible"),
        json!(["geometry.circle_area"])
    );
    assert_eq!(
        run_column(&db, &format!("{m}/simple_0"), "goal"),
        "What is the area of a circle of radius 4 cm?"
    );
    assert_eq!(
        run_column(&db, &format!("{m}/simple_0"), "tags"),
        json!({"bfcl_category": "simple", "bfcl_version": "v1"})
    );
    let extra = run_extra(&db, &format!("{m}/simple_0"));
    assert_eq!(
        extra["tool_definitions"],
        json!([{
            "name": "geometry.circle_area",
            "description": "Area of a circle from its radius.",
            "input_schema": {"type": "object", "required": ["radius"], "properties": {
                "radius": {"type": "integer", "description": "Radius."},
                "unit": {"type": "string", "description": "Unit of length, default cm."}}}
        }])
    );
    assert_eq!(
        (
            &extra["bfcl_input_token_count"],
            &extra["bfcl_output_token_count"],
            &extra["bfcl_latency"]
        ),
        (&json!(100), &json!(10), &json!(0.5))
    );
    assert_eq!(
        extra["bfcl_possible_answer"],
        json!({"geometry.circle_area": {"radius": [4], "unit": ["cm", "centimeters", ""]}})
    );

    // wrong_func_name: a name on no menu stays as given.
    assert_eq!(
        calls(&db, &format!("{m}/simple_1")),
        [(1, Some(1), Some("currency_convert".into()))]
    );
    // decoder_failed: a text answer is one decision with no call.
    let d = stored(&db, &format!("{m}/simple_8"));
    assert_eq!((d.len(), d[0].selected.as_deref()), (1, None));
    assert_eq!(
        d[0].raw,
        Some(json!(
            "Which date do you mean? Daylight saving time changes the answer."
        ))
    );
    // wrong_count: two calls, one turn.
    let d = stored(&db, &format!("{m}/simple_9"));
    assert_eq!(
        d.iter()
            .map(|d| (d.step, d.turn, d.arguments.clone()))
            .collect::<Vec<_>>(),
        [
            (
                1,
                Some(1),
                Some(json!({"texts": ["hello"], "target": "es"}))
            ),
            (
                2,
                Some(1),
                Some(json!({"texts": ["thank you"], "target": "es"}))
            )
        ]
    );
    // type_error:simple keeps the arguments as the model wrote them.
    assert_eq!(
        stored(&db, &format!("{m}/simple_3"))[0].arguments,
        Some(json!({"city": "Lyon", "days": "3"}))
    );
    // Parallel calls in the model's order.
    assert_eq!(
        stored(&db, &format!("{m}/parallel_multiple_function_0"))
            .iter()
            .map(|d| (d.selected.clone().unwrap(), d.arguments.clone().unwrap()))
            .collect::<Vec<_>>(),
        [
            ("math.lcm".to_string(), json!({"a": 4, "b": 6})),
            ("math.gcd".to_string(), json!({"a": 12, "b": 18}))
        ]
    );
    // Irrelevance: a call to the menu's tool; a made-up tool with code for
    // arguments, which BFCL cannot decode, is no call.
    assert_eq!(
        calls(&db, &format!("{m}/relevance_1")),
        [(1, Some(1), Some("health.bmi".into()))]
    );
    let d = stored(&db, &format!("{m}/relevance_2"));
    assert_eq!((d.len(), d[0].selected.as_deref()), (1, None));
    assert_eq!(
        d[0].raw,
        Some(json!([{"python": "import math\nprint(math.factorial(17))"}]))
    );
    assert_eq!(
        d[0].extra.as_ref().unwrap()["bfcl_decode_error"],
        "call 1: the arguments of \"python\" are not JSON (expected value at line 1 column 1)"
    );

    // BFCL's verdicts: success is false exactly for the entries its score
    // files list.
    let runs = report(&db, "runs");
    let failed: Vec<&str> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["success"] == json!(false))
        .map(|r| r["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        [
            "multiple_function_1",
            "parallel_function_1",
            "parallel_function_2",
            "parallel_multiple_function_1",
            "relevance_1",
            "simple_1",
            "simple_2",
            "simple_3",
            "simple_4",
            "simple_5",
            "simple_6",
            "simple_7",
            "simple_8",
            "simple_9"
        ]
    );
    assert!(
        runs["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["success"].is_boolean() && r["model"] == m)
    );
    let r = run_of(&runs, &format!("{m}/simple_4"));
    assert_eq!(r["task_id"], "simple_4");
    assert_eq!(
        run_extra(&db, &format!("{m}/simple_4"))["bfcl_error"],
        json!([
            "Nested type checking failed for parameter 'values'. Expected outer type array with inner type <class 'float'>. Parameter value: [2, 4, 6]."
        ])
    );

    // The irrelevance entries are labelled; the BFCL-judged first decision
    // of relevance_1 fails at selection, the others pass.
    assert_eq!(
        cases(&db),
        BTreeMap::from([
            ("relevance_0".to_string(), json!(["@no_call"])),
            ("relevance_1".to_string(), json!(["@no_call"])),
            ("relevance_2".to_string(), json!(["@no_call"])),
        ])
    );
    assert_eq!(
        run_of(&runs, &format!("{m}/relevance_1"))["first_failed_rung"],
        "selection"
    );

    // The possible answers are expected calls, judged by BFCL's checker:
    // those BFCL passed went as expected, those it failed did not (simple_4's
    // [2, 4, 6] included: BFCL's types take no integer in an array of
    // floats). The irrelevance entries have no expected calls.
    let as_expected: BTreeMap<String, (Value, Value)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["task_id"].as_str().unwrap().to_string(),
                (r["as_expected"].clone(), r["success"].clone()),
            )
        })
        .collect();
    for (task, (verdict, success)) in &as_expected {
        if task.starts_with("relevance_") {
            assert_eq!(verdict, &Value::Null, "{task}");
        } else {
            assert_eq!(verdict, success, "{task}");
        }
    }
    assert_eq!(
        json_of(rung(&db, &["report", "metrics", "--format", "json"]))["agreement_with_success"],
        json!({"value": 1.0, "numerator": 20, "denominator": 20})
    );
    for id in ["relevance_0", "relevance_2"] {
        assert_eq!(
            run_of(&runs, &format!("{m}/{id}"))["first_failed_rung"],
            Value::Null
        );
    }

    // Categories are tags; v1's names read as BFCL names them since v2.
    let parallel = json_of(rung(
        &db,
        &[
            "report",
            "runs",
            "--tag",
            "bfcl_category=parallel",
            "--format",
            "json",
        ],
    ));
    let ids: Vec<&str> = parallel["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "parallel_function_0",
            "parallel_function_1",
            "parallel_function_2"
        ]
    );
    let wrong_count = json_of(rung(
        &db,
        &[
            "report",
            "runs",
            "--tag",
            "bfcl_error_type=parallel_function_checker_no_order:wrong_count",
            "--format",
            "json",
        ],
    ));
    assert_eq!(wrong_count["runs"].as_array().unwrap().len(), 1);
    let irrelevance = json_of(rung(
        &db,
        &[
            "report",
            "runs",
            "--tag",
            "bfcl_category=irrelevance",
            "--format",
            "json",
        ],
    ));
    assert_eq!(irrelevance["runs"].as_array().unwrap().len(), 3);

    // Importing again changes nothing.
    let again = import(&db, &["--format", "bfcl", &bfcl("v1")]);
    assert!(again.contains("imported 0 catalogues, 0 runs"), "{again}");
}

#[test]
fn v4_folder_multi_turn_relevance_and_a_prompting_model() {
    let (_dir, db) = setup();
    let s = import(&db, &["--format", "bfcl", &bfcl("v4")]);
    assert!(
        s.contains("7 runs, 11 decisions, 4 cases from 14 files"),
        "{s}"
    );

    // Multi-turn: each answer of each turn is a model turn; the function
    // BFCL withholds until turn 1 is missing from the menu before it, and
    // the excluded one from every menu.
    let run = "demo-model-FC/multi_turn_miss_func_0";
    let d = stored(&db, run);
    let got: Vec<_> = d
        .iter()
        .map(|d| {
            (
                d.step,
                d.turn,
                d.selected.clone(),
                d.visible.clone().unwrap(),
                d.extra.clone().unwrap()["bfcl_turn"].clone(),
            )
        })
        .collect();
    let early = json!(["create_note", "list_notes"]);
    let later = json!(["create_note", "archive_note", "list_notes"]);
    assert_eq!(
        got,
        [
            (
                1,
                Some(1),
                Some("create_note".into()),
                early.clone(),
                json!(0)
            ),
            (2, Some(2), None, early, json!(0)),
            (
                3,
                Some(3),
                Some("archive_note".into()),
                later.clone(),
                json!(1)
            ),
            (4, Some(4), None, later.clone(), json!(1)),
            (5, Some(5), None, later, json!(2)),
        ]
    );
    assert_eq!(d[3].raw, Some(json!("Archived.")));
    let extra = run_extra(&db, run);
    let defs: Vec<&str> = extra["tool_definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(defs, ["create_note", "archive_note", "list_notes"]);
    assert_eq!(
        extra["bfcl_missed_function"],
        json!({"1": ["archive_note"]})
    );
    assert_eq!(extra["bfcl_involved_classes"], json!(["NotesAPI"]));
    let runs = report(&db, "runs");
    assert_eq!(
        run_column(&db, run, "goal"),
        "Create a note 'groceries' that says 'milk'."
    );
    // Menus change by turn: the run records none.
    assert_eq!(run_column(&db, run, "visible"), Value::Null);
    assert_eq!(
        run_column(&db, run, "tags"),
        json!({"bfcl_category": "multi_turn_miss_func", "bfcl_version": "v4", "bfcl_error_type": "multi_turn:execution_response_mismatch"})
    );
    assert_eq!(run_of(&runs, run)["success"], false);

    // A function-calling answer whose arguments are not JSON: no call.
    let d = stored(&db, "demo-model-FC/simple_python_1");
    assert_eq!((d.len(), d[0].selected.as_deref()), (1, None));
    assert_eq!(
        d[0].raw,
        Some(json!([{"math_power": "{base: 2, exponent: 10}"}]))
    );
    assert_eq!(
        run_of(&runs, "demo-model-FC/simple_python_1")["success"],
        false
    );
    assert_eq!(
        run_of(&runs, "demo-model-FC/simple_python_0")["success"],
        true
    );

    // A prompting model's text is Python calls.
    let d = stored(&db, "demo-model/simple_python_0");
    assert_eq!(d[0].selected.as_deref(), Some("lights.set"));
    assert_eq!(
        d[0].arguments,
        Some(json!({"room": "living room", "settings": {"brightness": 40, "color": "warm white"}}))
    );
    assert_eq!(d[0].extra, None, "no name to map back");
    let d = stored(&db, "demo-model/simple_python_1");
    assert_eq!(
        (d[0].selected.as_deref(), d[0].arguments.clone()),
        (
            Some("math.power"),
            Some(json!({"base": 2, "exponent": 10, "mod": -1}))
        )
    );
    // No score file for it: no verdict.
    assert_eq!(
        run_of(&runs, "demo-model/simple_python_0")["success"],
        Value::Null
    );

    // An empty answer on the irrelevance set is one decision, no call; a
    // relevance entry accepts any of its menu's tools.
    assert_eq!(
        calls(&db, "demo-model-FC/irrelevance_0"),
        [(1, Some(1), None)]
    );
    assert_eq!(
        cases(&db),
        BTreeMap::from([
            ("irrelevance_0".to_string(), json!(["@no_call"])),
            (
                "live_relevance_0-0-0".to_string(),
                json!(["image.generate", "web.search"])
            ),
        ])
    );
    let r = run_of(&runs, "demo-model-FC/live_relevance_0-0-0");
    assert_eq!(
        run_column(&db, "demo-model-FC/live_relevance_0-0-0", "goal"),
        "Draw a lighthouse at dusk in watercolour."
    );
    assert_eq!(r["first_failed_rung"], Value::Null);
    assert_eq!(
        run_extra(&db, "demo-model-FC/live_relevance_0-0-0")["bfcl_question"],
        json!([[{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "Draw a lighthouse at dusk in watercolour."}]])
    );
}

#[test]
fn files_given_one_by_one_join_like_the_folder() {
    let (_dir, db) = setup();
    let q = bfcl("v1/question/gorilla_openfunctions_v1_test_simple.json");
    let a = bfcl("v1/possible_answer/gorilla_openfunctions_v1_test_simple.json");
    let r = bfcl("v1/result/example-model-FC/gorilla_openfunctions_v1_test_simple_result.json");
    let s = import(&db, &["--format", "bfcl", &r, &a, &q]);
    assert!(
        s.contains("13 runs, 14 decisions, 13 cases from 3 files"),
        "{s}"
    );
    // No score file: no verdicts.
    let runs = report(&db, "runs");
    assert!(
        runs["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["success"].is_null())
    );
}

#[test]
fn results_without_their_questions_are_refused() {
    let (_dir, db) = setup();
    let r = bfcl("v1/result/example-model-FC/gorilla_openfunctions_v1_test_simple_result.json");
    let out = rung(&db, &["import", "--format", "bfcl", &r]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "{r}: no question file for BFCL category \"simple\" (v1): import the question files with the results (or the BFCL folder holding question/ and result/)"
        )
    );
    // --keep-going imports what joins.
    let q = bfcl("v1/question/gorilla_openfunctions_v1_test_relevance.json");
    let rr = bfcl("v1/result/example-model-FC/gorilla_openfunctions_v1_test_relevance_result.json");
    let out = rung(
        &db,
        &["import", "--format", "bfcl", "--keep-going", &r, &rr, &q],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("3 runs, 3 decisions, 3 cases from 3 files"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("skipped: "), "{}", out.stderr);
    // Not a BFCL file at all.
    let other = fixture("tau-bench-mini.json");
    let out = rung(&db, &["import", "--format", "bfcl", &other]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "{other}:1: not a BFCL file: line 1 is not a whole JSON object (BFCL files are JSON Lines: one entry per line)"
        )
    );
}

#[test]
fn multi_turn_without_its_function_docs_records_no_menu() {
    let (_dir, db) = setup();
    let q = bfcl("v4/question/BFCL_v4_multi_turn_miss_func.json");
    let r = bfcl("v4/result/demo-model-FC/BFCL_v4_multi_turn_miss_func_result.json");
    let out = rung(&db, &["import", "--format", "bfcl", &q, &r]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "{r}:1: run demo-model-FC/multi_turn_miss_func_0: the menu is unknown: no function docs for NotesAPI (import BFCL's multi_turn_func_doc/notes_api.json with the questions) (--keep-going imports the rest and lists each part it dropped)"
        )
    );
    let out = rung(&db, &["import", "--format", "bfcl", "--keep-going", &q, &r]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("1 run, 5 decisions"), "{}", out.stderr);
    let run = "demo-model-FC/multi_turn_miss_func_0";
    assert_eq!(run_column(&db, run, "visible"), Value::Null);
    assert_eq!(run_extra(&db, run)["tool_definitions"], Value::Null);
    assert!(stored(&db, run).iter().all(|d| d.visible.is_none()));
}

#[test]
#[ignore = "needs ../shared"]
fn bfcl_2024_08_11_question_files_all_import() {
    let p = "gorilla_openfunctions_v1_test_";
    let counts = import_with_made_up_results(
        "bfcl-results/2024-08-11",
        &[
            &format!("{p}simple"),
            &format!("{p}multiple_function"),
            &format!("{p}parallel_function"),
            &format!("{p}parallel_multiple_function"),
            &format!("{p}relevance"),
        ],
    );
    // (runs, decisions = functions called, tool definitions, names with
    // dots mapped back, cases): counted with a script from the files. Every
    // entry has a case: its possible answer's expected calls, or (for
    // irrelevance) its label.
    let want = Counts::from([
        ("simple".into(), (400, 400, 400, 167, 400)),
        ("multiple".into(), (200, 557, 557, 312, 200)),
        ("parallel".into(), (200, 200, 200, 85, 200)),
        ("parallel_multiple".into(), (200, 520, 520, 316, 200)),
        ("irrelevance".into(), (240, 240, 240, 93, 240)),
    ]);
    assert_eq!(counts, want);
}

#[test]
#[ignore = "needs ../shared"]
fn bfcl_v4_question_files_all_import() {
    let dir = shared("bfcl-v4/question");
    let mut categories: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .into_string()
                .unwrap()
                .trim_end_matches(".json")
                .to_string()
        })
        .collect();
    categories.sort();
    assert_eq!(categories.len(), 11);
    let refs: Vec<&str> = categories.iter().map(String::as_str).collect();
    let counts = import_with_made_up_results("bfcl-v4", &refs);
    // Multi-turn entries: one text answer per turn; their menus from
    // multi_turn_func_doc less the excluded functions.
    let want = Counts::from([
        ("irrelevance".into(), (240, 240, 240, 92, 240)),
        ("live_irrelevance".into(), (100, 100, 100, 12, 100)),
        ("live_multiple".into(), (50, 196, 196, 93, 50)),
        ("live_relevance".into(), (16, 44, 44, 9, 16)),
        ("live_simple".into(), (50, 50, 50, 12, 50)),
        // Multi-turn entries have no single list of expected calls.
        ("multi_turn_base".into(), (15, 53, 380, 0, 0)),
        ("multi_turn_miss_func".into(), (10, 47, 253, 0, 0)),
        ("multiple".into(), (50, 127, 127, 109, 50)),
        ("parallel".into(), (30, 30, 30, 18, 30)),
        ("parallel_multiple".into(), (30, 70, 70, 45, 30)),
        ("simple_python".into(), (50, 50, 50, 17, 50)),
    ]);
    assert_eq!(counts, want);
}

#[test]
fn the_example_configuration_marks_every_tool_mutating() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/bfcl.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let v: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(
        v,
        toml::from_str::<toml::Table>("[effects]\n\"*\" = \"mutating\"\n").unwrap()
    );
    assert!(text.contains("rung --config docs/examples/bfcl.toml import --format bfcl"));
}
