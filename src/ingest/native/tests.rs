use super::*;
use serde_json::json;

fn err(v: Value) -> String {
    match parse(v) {
        Err(e) => format!("{}: {}", e.record.unwrap_or_default(), e.message),
        Ok(p) => panic!("expected an error, got {p:?}"),
    }
}

#[test]
fn errors_name_record_and_field() {
    assert_eq!(
        err(
            json!({"type":"decision","run_id":"r-9","step":3,"selected":"x","expected":{"acceptable":["void_invoice"],"forbidden":["void_invoice"]}})
        ),
        "decision r-9 step 3: \"acceptable\" and \"forbidden\" both contain \"void_invoice\"; a name cannot be both"
    );
    assert_eq!(
        err(
            json!({"type":"catalogue","version":"v1","tools":[{"name":"a","family":"f","effect":"write","description":"d"}]})
        ),
        "catalogue v1: field \"tools[0].effect\": \"write\" is not one of none, read_only, mutating, destructive"
    );
    assert_eq!(
        err(json!({"type":"run","run_id":"r1","started_at":"2026-09-15 10:00"})),
        "run r1: field \"started_at\": \"2026-09-15 10:00\" is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)"
    );
    assert_eq!(
        err(json!({"type":"run","run_id":"r1","started_at":"2026-09-15T10:00:00"})),
        "run r1: field \"started_at\": \"2026-09-15T10:00:00\" is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)"
    );
    assert_eq!(
        err(json!({"type":"decision","run_id":"r1","step":1})),
        "decision r1 step 1: missing required field \"selected\" (use null when no tool was called)"
    );
    assert_eq!(
        err(json!({"type":"decision","run_id":"r1","step":"2","selected":null})),
        "decision r1: field \"step\" must be an integer, not a string (\"2\")"
    );
    assert_eq!(
        err(json!({"type":"decision","run_id":"r1","step":0,"selected":null})),
        "decision r1 step 0: field \"step\" must be an integer ≥ 1, not 0"
    );
    assert_eq!(
        err(json!({"type":"decision","run_id":"r1","step":1,"selected":null,"expected":{}})),
        "decision r1 step 1: field \"expected\" is empty; give it an \"acceptable\" list or leave it out"
    );
    assert_eq!(
        err(json!({"type":"decision","run_id":"r1","step":1,"selected":null,"expected":null})),
        "decision r1 step 1: field \"expected\" is null; leave it out for an unlabelled decision"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","acceptable":[]})),
        "case t: field \"acceptable\" is empty; a case needs at least one acceptable name (@no_call for \"no tool call\")"
    );
    assert_eq!(
        err(
            json!({"type":"decision","run_id":"r1","step":1,"selected":"a","outcome":{"status":"failed"}})
        ),
        "decision r1 step 1: field \"outcome.status\": \"failed\" is not one of ok, refused, error, unknown, not_run"
    );
    assert_eq!(
        err(json!({"type":"run","run_id":"r1","tags":{"t":0.6}})),
        "run r1: field \"tags.t\" must be a string (tags are a string map), not a number (0.6)"
    );
    assert_eq!(
        err(
            json!({"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"candidates":[]}})
        ),
        "decision r1 step 1: missing required field \"retrieval.k\" (how many candidates the retriever kept)"
    );
    assert_eq!(
        err(
            json!({"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"k":2,"candidates":[{"name":"a","score":0.5},{"name":5}]}})
        ),
        "decision r1 step 1: field \"retrieval.candidates[1].name\" must be a string, not a number (5)"
    );
    assert_eq!(
        err(
            json!({"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"k":2,"candidates":[{"name":"a","score":"high"}]}})
        ),
        "decision r1 step 1: field \"retrieval.candidates[0].score\" must be a number, not a string (\"high\")"
    );
}

#[test]
fn cases_with_expectations_are_checked() {
    assert_eq!(
        err(
            json!({"type":"case","task_id":"airline/26","step":2,"expected_calls":[{"tool":"cancel_reservation"}]})
        ),
        "case airline/26 step 2: field \"expected_calls\": expectations belong to the run as a whole, so a case with expected_calls has no \"step\" (leave \"step\" out, or put the label for that step in a case of its own)"
    );
    assert_eq!(
        err(
            json!({"type":"case","task_id":"airline/26","step":1,"acceptable":["x"],"expected_outputs":["1,628"]})
        ),
        "case airline/26 step 1: field \"expected_outputs\": expectations belong to the run as a whole, so a case with expected_outputs has no \"step\" (leave \"step\" out, or put the label for that step in a case of its own)"
    );
    assert_eq!(
        err(
            json!({"type":"case","task_id":"t","expected_calls":[{"tool":"book","arguments":{"cabin":{"@one_of":[]}}}]})
        ),
        "case t: field \"expected_calls[0].arguments.cabin\": @one_of is an empty list; it must hold at least one value"
    );
    assert_eq!(
        err(
            json!({"type":"case","task_id":"t","expected_calls":[{"tool":"a"},{"tool":"book","arguments":{"cabin":{"@one_of":"economy"}}}]})
        ),
        "case t: field \"expected_calls[1].arguments.cabin\": @one_of must hold a non-empty list of values"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":[{"arguments":{}}]})),
        "case t: missing required field \"expected_calls[0].tool\""
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":[{"tool":"@no_call"}]})),
        "case t: field \"expected_calls[0].tool\": \"@no_call\" is not a tool name (names starting with '@' are reserved)"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":[{"tool":"a","arguments":[1]}]})),
        "case t: field \"expected_calls[0].arguments\" must be an object, not a list"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":{"tool":"a"}})),
        "case t: field \"expected_calls\" must be a list of {tool, arguments} objects, not an object ({\"tool\":\"a\"})"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_outputs":[1628]})),
        "case t: field \"expected_outputs[0]\" must be a string, not a number (1628)"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":[],"strings":"fuzzy"})),
        "case t: field \"strings\": \"fuzzy\" is not one of exact, loose"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":[],"extra_arguments":"warn"})),
        "case t: field \"extra_arguments\": \"warn\" is not one of ignore, reject"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","expected_calls":[],"checker":"gorilla"})),
        "case t: field \"checker\": \"gorilla\" is not one of rung, bfcl"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","note":"nothing to check"})),
        "case t: a case needs \"acceptable\", \"expected_calls\" or \"expected_outputs\" (at least one)"
    );
    assert_eq!(
        err(json!({"type":"case","task_id":"t","forbidden":["x"],"expected_outputs":[]})),
        "case t: field \"forbidden\" needs an \"acceptable\" list beside it (what was right instead)"
    );
    assert_eq!(
        err(json!({"type":"decision","run_id":"r1","step":1,"selected":null,"text":42})),
        "decision r1 step 1: field \"text\" must be a string, not a number (42)"
    );
}

#[test]
fn expectations_are_read_and_read_back() {
    let record = json!({"type":"case","task_id":"airline/26","catalogue":null,
        "expected_calls":[
            {"tool":"get_reservation_details","arguments":{"reservation_id":"NQNU5R"}},
            {"tool":"cancel_reservation","arguments":{"reservation_id":"NQNU5R"},"why":"refund"},
            {"tool":"book_reservation","arguments":{"cabin":{"@one_of":["economy","basic_economy","@absent"]}}},
            {"tool":"think"}],
        "expected_outputs":["1,628"],
        "strings":"loose","extra_arguments":"reject","checker":"bfcl","owner":"qa"});
    let Parsed::Record(Record::Case(c)) = parse(record).unwrap() else {
        panic!()
    };
    assert_eq!(c.label, None);
    assert_eq!(c.step, None);
    // The store keeps the new fields in `extra` until it has columns.
    assert_eq!(
        c.extra.as_object().unwrap().keys().collect::<Vec<_>>(),
        [
            "checker",
            "expected_calls",
            "expected_outputs",
            "extra_arguments",
            "owner",
            "strings"
        ]
    );
    assert_eq!(expectations(c.extra.clone()).as_ref(), Ok(&c.expectations));
    let e = &c.expectations;
    assert_eq!(
        (e.strings, e.extra_arguments, e.checker),
        (Strings::Loose, ExtraArguments::Reject, Checker::Bfcl)
    );
    assert_eq!(e.outputs, Some(vec!["1,628".to_string()]));
    let calls = e.calls.as_ref().unwrap();
    assert_eq!(
        calls.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
        [
            "get_reservation_details",
            "cancel_reservation",
            "book_reservation",
            "think"
        ]
    );
    assert_eq!(calls[1].extra, json!({"why": "refund"}));
    assert_eq!(calls[3].arguments, None);
    assert_eq!(
        calls[2].arguments.as_ref().unwrap()["cabin"],
        ExpectedValue::OneOf {
            values: vec![json!("economy"), json!("basic_economy")],
            absent: true
        }
    );
    // What the store keeps reads back to the same expectations.
    assert_eq!(expectations(e.to_json()).as_ref(), Ok(e));
    // A label and expectations together; `text` on a decision.
    let Parsed::Record(Record::Case(c)) = parse(json!({"type":"case","task_id":"t",
        "acceptable":["a"],"expected_calls":[]}))
    .unwrap() else {
        panic!()
    };
    assert_eq!(c.label, Some(Label::new(vec!["a".into()], vec![])));
    assert_eq!(c.expectations.calls, Some(vec![]));
    let Parsed::Record(Record::Decision(d)) = parse(json!({"type":"decision","run_id":"r",
        "step":4,"selected":null,"text":"Your refund is $1,628."}))
    .unwrap() else {
        panic!()
    };
    assert_eq!(d.text.as_deref(), Some("Your refund is $1,628."));
    // Importers have always written `text`; the store keeps it in extra.
    assert_eq!(d.extra, json!({"text": "Your refund is $1,628."}));
}

#[test]
fn unknown_fields_kept_and_unknown_types_counted() {
    let p = parse(json!({"type":"run","run_id":"r1","harness":"v2","success":true})).unwrap();
    let Parsed::Record(Record::Run(r)) = p else {
        panic!()
    };
    assert_eq!(r.extra, json!({"harness": "v2"}));
    assert_eq!(r.success, Some(true));
    assert_eq!(
        parse(json!({"type":"span","x":1})).unwrap(),
        Parsed::UnknownType("span".into())
    );
}
