//! BFCL's checker (`checker: "bfcl"`, docs/bfcl.md §5) on hand-made runs.

use super::*;

fn bfcl(strings: Strings) -> Expectations {
    Expectations {
        strings,
        extra_arguments: ExtraArguments::Reject,
        checker: Checker::Bfcl,
        ..Expectations::default()
    }
}

#[test]
fn bfcl_loosens_strings_only_where_its_checker_does() {
    let is = |v: Value| ExpectedValue::from_json(v).unwrap();
    let rung = modes(Strings::Loose, ExtraArguments::Reject);
    let as_bfcl = bfcl(Strings::Loose);
    // (what, expected, actual, loose anywhere, loose as BFCL)
    let rows = [
        (
            "the argument",
            json!("San Francisco, CA"),
            json!("san francisco ca"),
            true,
            true,
        ),
        (
            "a list's items",
            json!(["New York", "LA"]),
            json!(["new-york", "la"]),
            true,
            true,
        ),
        (
            "a list in a list",
            json!([["New York"]]),
            json!([["new york"]]),
            true,
            false,
        ),
        (
            "a dict's values",
            json!({"city": "New York"}),
            json!({"city": "newyork"}),
            true,
            true,
        ),
        (
            "a dict in a dict",
            json!({"a": {"b": "X-Y"}}),
            json!({"a": {"b": "xy"}}),
            true,
            true,
        ),
        (
            "a list in a dict",
            json!({"tags": ["Red"]}),
            json!({"tags": ["red"]}),
            true,
            false,
        ),
        (
            "the dicts of a list",
            json!([{"k": "Up Town"}]),
            json!([{"k": "uptown"}]),
            true,
            true,
        ),
        (
            "a list in the dicts of a list",
            json!([{"k": ["A"]}]),
            json!([{"k": ["a"]}]),
            true,
            false,
        ),
        (
            "keys stay exact",
            json!({"City": "x"}),
            json!({"city": "x"}),
            false,
            false,
        ),
    ];
    for (what, want, got, anywhere, loose_as_bfcl) in rows {
        assert_eq!(
            argument_matches(&is(want.clone()), &got, &rung),
            anywhere,
            "{what}"
        );
        assert_eq!(
            argument_matches(&is(want), &got, &as_bfcl),
            loose_as_bfcl,
            "{what}"
        );
    }
    // Exact strings stay exact under BFCL's checker too.
    assert!(!argument_matches(
        &is(json!("LA")),
        &json!("la"),
        &bfcl(Strings::Exact)
    ));
    // Numbers by value everywhere.
    assert!(argument_matches(
        &is(json!([2.0, 4.0])),
        &json!([2, 4]),
        &as_bfcl
    ));
}

#[test]
fn bfcl_judges_every_call_whatever_its_effect() {
    // A lookup and a tool of unknown effect: rung's walk leaves them
    // unjudged; BFCL's checker requires the expected lookup and judges the
    // extra call.
    let calls = vec![
        call("get_price", json!({"symbol": "AAPL"})),
        call("get_price", json!({"symbol": "MSFT"})),
    ];
    let aapl = json!({"symbol": "AAPL"});
    let goog = json!({"symbol": "GOOG"});
    let run = [
        d(1, Some("get_price"), None, Some(&aapl), None),
        d(2, Some("get_price"), None, Some(&goog), None),
        d(3, Some("python"), None, Some(&aapl), None),
    ];
    let w = walk_calls(&calls, &[RO, RO], &Expectations::default(), &run);
    assert_eq!(
        (w.results[1].clone(), w.results[2].clone(), w.missing()),
        (
            Some(WalkResult::NotJudged),
            Some(WalkResult::NotJudged),
            vec![]
        )
    );
    let w = walk_calls(&calls, &[RO, RO], &bfcl(Strings::Loose), &run);
    assert_eq!(w.results[0], matched(0));
    assert!(matches!(
        w.results[1],
        Some(WalkResult::Mismatch { expected: 1, .. })
    ));
    assert_eq!(
        w.results[2],
        Some(WalkResult::Unexpected {
            acceptable: vec!["get_price".into()]
        })
    );
    assert_eq!(w.missing(), vec![1]);
    // A call refused at the boundary (its arguments fail the schema) is
    // still judged, and matches nothing even with equal values.
    let refused = [d(
        1,
        Some("get_price"),
        Some(Status::Refused),
        Some(&aapl),
        None,
    )];
    let w = walk_calls(&calls[..1], &[None], &bfcl(Strings::Loose), &refused);
    assert_eq!(
        w.results[0],
        Some(WalkResult::Mismatch {
            expected: 0,
            keys: vec![]
        })
    );
    assert_eq!(
        diffs_text(&[], &|s: &str| s.to_string()),
        "no argument differs, but the call was refused, so it matches nothing"
    );
    let w = walk_calls(&calls[..1], &[None], &Expectations::default(), &refused);
    assert_eq!(w.results[0], None, "rung's walk skips a refused call");
}

#[test]
fn bfcl_counts_the_calls() {
    let calls = vec![call("f", Value::Null)];
    let x = json!({});
    let one = [d(1, Some("f"), None, Some(&x), None)];
    let two = [
        d(1, Some("f"), None, Some(&x), None),
        d(2, Some("f"), None, Some(&x), None),
    ];
    let text = [d(1, None, None, None, None)];
    let b = bfcl(Strings::Loose);
    assert!(!wrong_count(&calls, &b, &one));
    assert!(wrong_count(&calls, &b, &two));
    assert!(wrong_count(&calls, &b, &text));
    assert!(!wrong_count(&calls, &Expectations::default(), &two));
}

#[test]
fn bfcl_reads_one_of_inside_a_dict_answer() {
    // The per-key form the BFCL importer writes for a dict answer with too
    // many combinations: each key its own alternatives, "@absent" letting
    // it be left out.
    let want = ExpectedValue::from_json(json!({
        "mode": "AIR_DRY",
        "wind": {"@one_of": ["MID", "@absent", ""]},
        "temp": {"@one_of": ["@absent", 24]}
    }))
    .unwrap();
    let b = bfcl(Strings::Loose);
    for (got, ok) in [
        (json!({"mode": "air_dry", "wind": "mid", "temp": 24}), true),
        (json!({"mode": "AIR_DRY"}), true),
        (json!({"mode": "AIR_DRY", "wind": ""}), true),
        (json!({"mode": "AIR_DRY", "wind": "HIGH"}), false),
        (json!({"wind": "MID"}), false),
        (json!({"mode": "AIR_DRY", "fan": 1}), false),
    ] {
        assert_eq!(argument_matches(&want, &got, &b), ok, "{got}");
    }
    // rung's own checker reads the object literally.
    assert!(!argument_matches(
        &want,
        &json!({"mode": "AIR_DRY"}),
        &modes(Strings::Loose, ExtraArguments::Reject)
    ));
}
