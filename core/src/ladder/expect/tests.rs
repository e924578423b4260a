//! The matching walk on hand-made runs; every expected value worked out by
//! hand from `expectations.md` §4–§6.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::model::FindingKind;

/// An expected call from its tool and `arguments` as recorded (`null`: no
/// `arguments`).
fn call(tool: &str, arguments: Value) -> ExpectedCall {
    ExpectedCall {
        tool: tool.into(),
        arguments: match arguments {
            Value::Null => None,
            Value::Object(m) => Some(
                m.into_iter()
                    .map(|(k, v)| (k, ExpectedValue::from_json(v).unwrap()))
                    .collect::<BTreeMap<_, _>>(),
            ),
            other => panic!("arguments must be an object, not {other}"),
        },
        extra: Value::Null,
    }
}

fn modes(strings: Strings, extra: ExtraArguments) -> Expectations {
    Expectations {
        strings,
        extra_arguments: extra,
        ..Expectations::default()
    }
}

fn keys(d: &[KeyDiff]) -> Vec<&str> {
    d.iter().map(|k| k.key.as_str()).collect()
}

/// (what, expected arguments, actual arguments, strings, extra arguments,
/// the keys that differ)
type ArgumentRow = (
    &'static str,
    Value,
    Value,
    Strings,
    ExtraArguments,
    Vec<&'static str>,
);

#[test]
fn arguments_compare_after_normalisation() {
    use ExtraArguments::{Ignore, Reject};
    use Strings::{Exact, Loose};
    let rows: Vec<ArgumentRow> = vec![
        (
            "numbers by value",
            json!({"amount": 1, "nights": 2.0}),
            json!({"amount": 1.0, "nights": 2}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "nested numbers",
            json!({"p": {"x": 2.50, "y": [1, 2.0]}}),
            json!({"p": {"y": [1.0, 2], "x": 2.5}}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "a different number",
            json!({"amount": 1628}),
            json!({"amount": 1628.5}),
            Exact,
            Ignore,
            vec!["amount"],
        ),
        (
            "integers beyond f64 precision compare exactly",
            json!({"id": 9007199254740993_i64}),
            json!({"id": 9007199254740992_i64}),
            Exact,
            Ignore,
            vec!["id"],
        ),
        (
            "objects regardless of key order",
            serde_json::from_str(r#"{"o": {"a": 1, "b": {"c": 2, "d": 3}}}"#).unwrap(),
            serde_json::from_str(r#"{"o": {"b": {"d": 3, "c": 2}, "a": 1}}"#).unwrap(),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "an object with an extra nested key differs",
            json!({"o": {"a": 1}}),
            json!({"o": {"a": 1, "b": 2}}),
            Exact,
            Ignore,
            vec!["o"],
        ),
        (
            "arrays in order",
            json!({"flights": ["HAT266", "HAT112"]}),
            json!({"flights": ["HAT112", "HAT266"]}),
            Exact,
            Ignore,
            vec!["flights"],
        ),
        (
            "strings exactly by default",
            json!({"cabin": "Economy"}),
            json!({"cabin": "economy"}),
            Exact,
            Ignore,
            vec!["cabin"],
        ),
        (
            "loose strings: case, spaces and ,./-_*^",
            json!({"city": "New York, N.Y.", "op": "a*b^c", "d": "2024-05-19"}),
            json!({"city": "new york ny", "op": "ABC", "d": "20240519"}),
            Loose,
            Ignore,
            vec![],
        ),
        (
            "loose strings: ' becomes \"",
            json!({"q": "it's", "nested": [{"s": "O'Hare"}]}),
            json!({"q": "IT\"S", "nested": [{"s": "o\"hare"}]}),
            Loose,
            Ignore,
            vec![],
        ),
        (
            "loose strings still differ in letters",
            json!({"city": "Boston"}),
            json!({"city": "Austin"}),
            Loose,
            Ignore,
            vec!["city"],
        ),
        (
            "types differ: a string is not a number, true is not 1",
            json!({"n": 1, "b": true}),
            json!({"n": "1", "b": 1}),
            Loose,
            Ignore,
            vec!["b", "n"],
        ),
        (
            "@one_of matches any listed value",
            json!({"cabin": {"@one_of": ["economy", "basic_economy"]}}),
            json!({"cabin": "basic_economy"}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "@one_of and nothing listed",
            json!({"cabin": {"@one_of": ["economy", "basic_economy"]}}),
            json!({"cabin": "business"}),
            Exact,
            Ignore,
            vec!["cabin"],
        ),
        (
            "@one_of normalises its values too",
            json!({"n": {"@one_of": [1, 2]}}),
            json!({"n": 2.0}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "@absent: the key may be missing",
            json!({"unit": {"@one_of": ["celsius", "@absent"]}}),
            json!({"city": "Paris"}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "@absent: a present key must still be listed",
            json!({"unit": {"@one_of": ["celsius", "@absent"]}}),
            json!({"unit": "kelvin"}),
            Exact,
            Ignore,
            vec!["unit"],
        ),
        (
            "@absent: null is present, not absent",
            json!({"unit": {"@one_of": ["celsius", "@absent"]}}),
            json!({"unit": null}),
            Exact,
            Ignore,
            vec!["unit"],
        ),
        (
            "a missing key without @absent",
            json!({"reservation_id": "NQNU5R"}),
            json!({}),
            Exact,
            Ignore,
            vec!["reservation_id"],
        ),
        (
            "extra keys are ignored by default",
            json!({"reservation_id": "NQNU5R"}),
            json!({"reservation_id": "NQNU5R", "reason": "change of plan"}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "extra_arguments reject: an unlisted key is a mismatch",
            json!({"reservation_id": "NQNU5R"}),
            json!({"reservation_id": "NQNU5R", "reason": "change of plan"}),
            Exact,
            Reject,
            vec!["reason"],
        ),
        (
            "reject with no expected arguments: every key is extra",
            Value::Null,
            json!({"b": 1, "a": 2}),
            Exact,
            Reject,
            vec!["a", "b"],
        ),
        (
            "no expected arguments: anything matches",
            Value::Null,
            json!({"b": 1}),
            Exact,
            Ignore,
            vec![],
        ),
        (
            "arguments that are not an object have no keys",
            json!({"reservation_id": "NQNU5R"}),
            json!("reservation_id=NQNU5R"),
            Exact,
            Reject,
            vec!["reservation_id"],
        ),
    ];
    for (what, expected, actual, strings, extra, want) in rows {
        let diffs = argument_diffs(&call("t", expected), Some(&actual), &modes(strings, extra));
        assert_eq!(keys(&diffs), want, "{what}");
    }
    // Missing arguments altogether: every expected key is missing.
    let d = argument_diffs(&call("t", json!({"id": 1})), None, &Expectations::default());
    assert_eq!(
        d,
        vec![KeyDiff {
            key: "id".into(),
            expected: Some(ExpectedValue::Is(json!(1))),
            actual: None
        }]
    );
}

#[test]
fn loose_and_output_forms() {
    assert_eq!(
        loose("New York, N.Y. 10_001-A*B^C/D 'x'"),
        "newyorkny10001abcd\"x\""
    );
    assert_eq!(
        output_form("Total: $1,628.50 REFUND"),
        "total: $1628.50 refund"
    );
}

/// A decision of a hand-made run: step, selected, status, arguments, effect.
fn d<'a>(
    step: i64,
    selected: Option<&'a str>,
    status: Option<Status>,
    arguments: Option<&'a Value>,
    effect: Option<Effect>,
) -> WalkCall<'a> {
    WalkCall {
        step,
        selected,
        status,
        arguments,
        effect,
    }
}

const OK: Option<Status> = Some(Status::Ok);
const RO: Option<Effect> = Some(Effect::ReadOnly);
const MUT: Option<Effect> = Some(Effect::Mutating);

fn matched(j: usize) -> Option<WalkResult> {
    Some(WalkResult::Matched { expected: j })
}

fn unexpected(tools: &[&str]) -> Option<WalkResult> {
    Some(WalkResult::Unexpected {
        acceptable: tools.iter().map(|t| t.to_string()).collect(),
    })
}

/// The airline case of `expectations.md` §2, with one lookup, walked over
/// a run that shows every branch of §4.
#[test]
fn the_walk_over_a_run_with_every_branch() {
    let calls = vec![
        call(
            "get_reservation_details",
            json!({"reservation_id": "NQNU5R"}),
        ),
        call("cancel_reservation", json!({"reservation_id": "NQNU5R"})),
        call(
            "book_reservation",
            json!({"cabin": {"@one_of": ["economy", "basic_economy"]}, "amount": 1628}),
        ),
    ];
    let effects = [RO, MUT, MUT];
    let wrong_id = json!({"reservation_id": "ZZZZZZ"});
    let right_id = json!({"reservation_id": "NQNU5R"});
    let business = json!({"cabin": "business", "amount": 1628});
    let economy = json!({"amount": 1628.0, "cabin": "economy", "insurance": "no"});
    let bags = json!({"reservation_id": "NQNU5R", "total_baggages": 0});
    let run = [
        // A lookup with other arguments than the reference's: not judged.
        d(1, Some("get_reservation_details"), OK, Some(&wrong_id), RO),
        d(2, Some("get_reservation_details"), OK, Some(&right_id), RO),
        // A required call with the wrong id: a mismatch against call 1 ...
        d(3, Some("cancel_reservation"), OK, Some(&wrong_id), MUT),
        // ... and the retry matches it.
        d(4, Some("cancel_reservation"), None, Some(&right_id), MUT),
        d(5, None, None, None, None),
        // A mutating call nothing expects: book_reservation is still due.
        d(6, Some("update_reservation_baggages"), OK, Some(&bags), MUT),
        // Refused and failed calls changed nothing: not matched.
        d(
            7,
            Some("book_reservation"),
            Some(Status::Refused),
            Some(&economy),
            MUT,
        ),
        d(
            8,
            Some("book_reservation"),
            Some(Status::Error),
            Some(&economy),
            MUT,
        ),
        d(
            9,
            Some("book_reservation"),
            Some(Status::NotRun),
            Some(&economy),
            MUT,
        ),
        // A no-effect tool and an unknown-effect tool are never unexpected.
        d(10, Some("think"), OK, None, Some(Effect::None)),
        d(11, Some("transfer_to_agent"), OK, None, None),
        d(12, Some("book_reservation"), OK, Some(&business), MUT),
        // `unknown` is a call; numbers by value; the extra key is ignored.
        d(
            13,
            Some("book_reservation"),
            Some(Status::Unknown),
            Some(&economy),
            MUT,
        ),
        // Each expected call matches at most one call.
        d(14, Some("cancel_reservation"), OK, Some(&right_id), MUT),
        d(15, None, None, None, None),
    ];
    let w = walk_calls(&calls, &effects, &Expectations::default(), &run);
    assert_eq!(
        w.results,
        vec![
            Some(WalkResult::NotJudged),
            matched(0),
            Some(WalkResult::Mismatch {
                expected: 1,
                keys: vec![KeyDiff {
                    key: "reservation_id".into(),
                    expected: Some(ExpectedValue::Is(json!("NQNU5R"))),
                    actual: Some(json!("ZZZZZZ")),
                }],
            }),
            matched(1),
            None,
            unexpected(&["book_reservation"]),
            None,
            None,
            None,
            Some(WalkResult::NotJudged),
            Some(WalkResult::NotJudged),
            Some(WalkResult::Mismatch {
                expected: 2,
                keys: vec![KeyDiff {
                    key: "cabin".into(),
                    expected: Some(ExpectedValue::OneOf {
                        values: vec![json!("economy"), json!("basic_economy")],
                        absent: false,
                    }),
                    actual: Some(json!("business")),
                }],
            }),
            matched(2),
            unexpected(&["@no_call"]),
            None,
        ]
    );
    assert_eq!(
        w.expected,
        vec![
            ExpectedState {
                effect: RO,
                required: false,
                matched: Some(2)
            },
            ExpectedState {
                effect: MUT,
                required: true,
                matched: Some(4)
            },
            ExpectedState {
                effect: MUT,
                required: true,
                matched: Some(13)
            },
        ]
    );
    assert!(w.missing().is_empty());
}

#[test]
fn required_versus_optional_expected_calls() {
    // A lookup (read_only), a no-effect note, an unknown-effect tool and a
    // destructive one; the run makes none of them.
    let calls = vec![
        call("get_user_details", json!({"user_id": "u1"})),
        call("think", Value::Null),
        call("send_certificate", json!({"amount": 50})),
        call("cancel_reservation", Value::Null),
    ];
    let effects = [RO, Some(Effect::None), None, Some(Effect::Destructive)];
    let other_user = json!({"user_id": "u2"});
    let run = [
        // The lookup with other arguments: optional, so no mismatch.
        d(1, Some("get_user_details"), OK, Some(&other_user), RO),
        d(2, Some("get_user_details"), OK, Some(&other_user), RO),
    ];
    let w = walk_calls(&calls, &effects, &Expectations::default(), &run);
    assert_eq!(
        w.results,
        vec![Some(WalkResult::NotJudged), Some(WalkResult::NotJudged)]
    );
    assert_eq!(
        w.expected.iter().map(|e| e.required).collect::<Vec<_>>(),
        vec![false, false, true, true]
    );
    // The unknown-effect and the destructive calls are missing; the last
    // decision made a call, so nobody is blamed here.
    assert_eq!(w.missing(), vec![2, 3]);
}

#[test]
fn a_run_that_ends_without_its_required_calls() {
    let calls = vec![
        call("cancel_reservation", json!({"reservation_id": "A"})),
        call("book_reservation", Value::Null),
        call("get_user_details", Value::Null),
    ];
    let effects = [MUT, MUT, RO];
    let a = json!({"reservation_id": "A"});
    let run = [
        d(1, Some("cancel_reservation"), OK, Some(&a), MUT),
        d(2, None, None, None, None),
        d(3, None, Some(Status::NotRun), None, None),
    ];
    let w = walk_calls(&calls, &effects, &Expectations::default(), &run);
    // Only the last decision is blamed, with the tools still required (the
    // optional lookup is not among them).
    assert_eq!(
        w.results,
        vec![
            matched(0),
            None,
            Some(WalkResult::EndedShort {
                acceptable: vec!["book_reservation".into()]
            })
        ]
    );
    assert_eq!(w.missing(), vec![1]);
    assert_eq!(
        w.results[2].as_ref().unwrap().derived_label(None),
        Some(Label::new(vec!["book_reservation".into()], vec![]))
    );
    // Nothing required left: the last text decision is not judged.
    let w = walk_calls(&calls[..1], &effects[..1], &Expectations::default(), &run);
    assert_eq!(w.results, vec![matched(0), None, None]);
}

#[test]
fn expected_calls_of_one_tool_match_in_list_order() {
    let calls = vec![
        call("book", json!({"to": "JFK"})),
        call("book", json!({"to": "LAX"})),
    ];
    let lax = json!({"to": "LAX"});
    let jfk = json!({"to": "JFK"});
    let sfo = json!({"to": "SFO"});
    let run = [
        d(1, Some("book"), OK, Some(&lax), MUT),
        // A mismatch is against the first unmatched required call of the tool.
        d(2, Some("book"), OK, Some(&sfo), MUT),
        d(3, Some("book"), OK, Some(&jfk), MUT),
    ];
    let w = walk_calls(&calls, &[MUT, MUT], &Expectations::default(), &run);
    assert_eq!(w.results[0], matched(1));
    assert!(matches!(
        w.results[1],
        Some(WalkResult::Mismatch { expected: 0, .. })
    ));
    assert_eq!(w.results[2], matched(0));
}

#[test]
fn strings_and_extra_arguments_apply_to_the_walk() {
    let calls = vec![call("search", json!({"city": "New York"}))];
    let args = json!({"city": "new-york", "limit": 5});
    let run = [d(1, Some("search"), OK, Some(&args), MUT)];
    let exact = walk_calls(&calls, &[MUT], &Expectations::default(), &run);
    assert!(matches!(
        exact.results[0],
        Some(WalkResult::Mismatch { .. })
    ));
    let loose = modes(Strings::Loose, ExtraArguments::Ignore);
    assert_eq!(
        walk_calls(&calls, &[MUT], &loose, &run).results[0],
        matched(0)
    );
    let strict = modes(Strings::Loose, ExtraArguments::Reject);
    assert_eq!(
        walk_calls(&calls, &[MUT], &strict, &run).results[0],
        Some(WalkResult::Mismatch {
            expected: 0,
            keys: vec![KeyDiff {
                key: "limit".into(),
                expected: None,
                actual: Some(json!(5))
            }]
        })
    );
}

#[test]
fn outputs_are_found_ignoring_commas_and_case_one_text_at_a_time() {
    let outputs: Vec<String> = ["1,628", "Refund", "yes no", "ABSENT", "43,00"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let raw = json!({"content": "We will issue a REFUND today."});
    let texts = [
        (Some("Your total comes to $1628."), None),
        (None, Some(&raw)),
        (Some("yes"), None),
        (Some(" no"), None),
        (Some("4300 points"), None),
    ];
    assert_eq!(
        missing_outputs(&outputs, texts),
        vec!["yes no", "ABSENT"],
        "1,628 is in 1628; Refund is in the raw output; \"yes no\" spans two texts; 43,00 is in 4300"
    );
    assert!(missing_outputs(&[], texts).is_empty());
}

#[test]
fn findings_name_what_differs_masked_and_cut() {
    let calls = vec![
        call("cancel_reservation", json!({"reservation_id": "NQNU5R"})),
        call(
            "book_reservation",
            json!({"cabin": {"@one_of": ["economy", "@absent"]}, "payment_id": "card_secret"}),
        ),
        call("send_certificate", Value::Null),
    ];
    let long = "x".repeat(200);
    let wrong = json!({"cabin": "business", "payment_id": "card_secret", "note": long});
    let bags = json!({});
    let run = [
        d(3, Some("book_reservation"), OK, Some(&wrong), MUT),
        d(5, Some("update_reservation_baggages"), OK, Some(&bags), MUT),
    ];
    let e = Expectations::default();
    let w = walk_calls(&calls, &[MUT, MUT, None], &e, &run);
    let found = findings(&calls, &e, &w, &run, &["1,628"]);
    let mask = |s: &str| s.replace("secret", "••••");
    let shown: Vec<(FindingKind, Option<i64>, Option<&str>, String)> = found
        .iter()
        .map(|f| (f.kind(), f.step(), f.tool(), f.detail(&mask)))
        .collect();
    assert_eq!(
        shown,
        vec![
            (
                FindingKind::MissingCall,
                None,
                Some("cancel_reservation"),
                "expected call 1 (cancel_reservation) with reservation_id: \"NQNU5R\" was never made"
                    .to_string()
            ),
            (
                FindingKind::MissingCall,
                None,
                Some("book_reservation"),
                "expected call 2 (book_reservation) with cabin: one of [\"economy\"] or absent, payment_id: \"card_••••\" was never made; step 3 called book_reservation with other arguments: cabin: expected one of [\"economy\"] or absent, got \"business\""
                    .to_string()
            ),
            (
                FindingKind::MissingCall,
                None,
                Some("send_certificate"),
                "expected call 3 (send_certificate) with any arguments was never made".to_string()
            ),
            (
                FindingKind::ArgumentMismatch,
                Some(3),
                Some("book_reservation"),
                "book_reservation was called with arguments that differ from expected call 2: cabin: expected one of [\"economy\"] or absent, got \"business\""
                    .to_string()
            ),
            (
                FindingKind::UnexpectedCall,
                Some(5),
                Some("update_reservation_baggages"),
                "update_reservation_baggages (mutating) matches no expected call; still expected: book_reservation, cancel_reservation, send_certificate"
                    .to_string()
            ),
            (
                FindingKind::MissingOutput,
                None,
                None,
                "no answer contains \"1,628\" (compared lowercased, without commas)".to_string()
            ),
        ]
    );
    // A long value is cut after masking; a rejected extra key says so.
    let strict = modes(Strings::Exact, ExtraArguments::Reject);
    let w = walk_calls(&calls, &[MUT, MUT, None], &strict, &run[..1]);
    let f = findings(&calls, &strict, &w, &run[..1], &[]);
    let ExpectationFinding::ArgumentMismatch { keys, .. } = &f[3] else {
        panic!("{f:?}")
    };
    assert_eq!(
        super::findings::diffs_text(keys, &mask),
        format!(
            "cabin: expected one of [\"economy\"] or absent, got \"business\"; note: not expected, got \"{}…",
            "x".repeat(119)
        )
    );
}

mod bfcl;
