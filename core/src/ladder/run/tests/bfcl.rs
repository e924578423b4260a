//! BFCL's checker (`checker: "bfcl"`, docs/bfcl.md §5) on hand-made runs.

use super::*;

#[test]
fn bfcl_fails_a_wrong_count_at_selection_before_any_argument() {
    use crate::model::{Checker, ExtraArguments, Strings};
    let world = World::new();
    let e = Expectations {
        calls: Some(vec![call(
            "translate",
            json!({"texts": ["hello", "thanks"]}),
        )]),
        strings: Strings::Loose,
        extra_arguments: ExtraArguments::Reject,
        checker: Checker::Bfcl,
        ..Expectations::default()
    };
    let cases = [case(&e)];
    let hello = json!({"texts": ["hello"]});
    let thanks = json!({"texts": ["thanks"]});
    let both = json!({"texts": ["Hello", "thanks"]});
    // BFCL's decoded calls have no outcome.
    let bare = |n, selected, args| StepInput {
        status: None,
        ..step(n, selected, args)
    };
    let judged = |steps: &[StepInput<'_>]| {
        let v = classify_run(&world.run(&cases, None), steps);
        let x = v.expectations.as_ref().unwrap();
        (v.first_failed_rung, x.as_expected)
    };
    // One list split into two calls: wrong_count, SELECTION, though the
    // first call's rung is SEMANTICS.
    let split = [
        bare(1, Some("translate"), Some(&hello)),
        bare(2, Some("translate"), Some(&thanks)),
    ];
    let v = classify_run(&world.run(&cases, None), &split);
    assert_eq!(v.decisions[0].classification.rung, Rung::Semantics);
    assert_eq!(judged(&split), (Some(Rung::Selection), false));
    // One call, a value wrong: SEMANTICS.
    assert_eq!(
        judged(&[bare(1, Some("translate"), Some(&hello))]),
        (Some(Rung::Semantics), false)
    );
    // Right, loosely: as expected.
    assert_eq!(
        judged(&[bare(1, Some("translate"), Some(&both))]),
        (None, true)
    );
    // Refused at SCHEMA (as §8 treats an invalid call with no outcome):
    // SCHEMA, and the expected call is still missing.
    let mut refused = bare(1, Some("translate"), Some(&both));
    refused.status = Some(Status::Refused);
    refused.stage = Some(Stage::Schema);
    refused.reason = Some("schema_violation");
    assert_eq!(judged(&[refused]), (Some(Rung::Schema), false));
    // A text answer: no call, SELECTION.
    assert_eq!(
        judged(&[bare(1, None, None)]),
        (Some(Rung::Selection), false)
    );
    // A tool that is not the expected one, whatever its effect: SELECTION.
    assert_eq!(
        judged(&[bare(1, Some("lookup"), Some(&both))]),
        (Some(Rung::Selection), false)
    );
}
