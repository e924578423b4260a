//! Whole runs through [`classify_run`]: derived labels and their rungs,
//! the run's first failed rung, typed error stages, and version-1 runs.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::ladder::effects::{EffectRules, RecordedEffects};
use crate::ladder::{ToolInfo, classify};
use crate::model::{
    Boundary, Effect, Expectations, ExpectedCall, ExpectedValue, FindingKind, Routing,
};

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn label(acc: &[&str]) -> Label {
    Label::new(s(acc), vec![])
}

fn call(tool: &str, arguments: Value) -> ExpectedCall {
    ExpectedCall {
        tool: tool.into(),
        arguments: arguments.as_object().map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), ExpectedValue::from_json(v.clone()).unwrap()))
                .collect::<BTreeMap<_, _>>()
        }),
        extra: Value::Null,
    }
}

/// A decision of a hand-made run: an `ok` call, or no call when `selected`
/// is `None` (then with no outcome).
fn step<'a>(n: i64, selected: Option<&'a str>, arguments: Option<&'a Value>) -> StepInput<'a> {
    StepInput {
        step: n,
        turn: n,
        menu: Menu::default(),
        catalogue: None,
        selected,
        expected: None,
        status: selected.map(|_| Status::Ok),
        stage: None,
        reason: None,
        message: None,
        result: None,
        progress: None,
        abstain: "no_applicable_tool",
        arguments,
        text: None,
        raw: None,
    }
}

/// The effect sources of the airline runs: `get_*` read-only, `think`
/// none, the rest mutating (through the config), and nothing recorded.
struct World {
    rules: EffectRules,
    recorded: RecordedEffects,
    reasons: ReasonTable,
    errors: ErrorStages,
}

impl World {
    fn new() -> World {
        World {
            rules: EffectRules::new([
                ("get_*", Effect::ReadOnly),
                ("think", Effect::None),
                ("cancel_reservation", Effect::Mutating),
                ("book_reservation", Effect::Mutating),
                ("update_*", Effect::Mutating),
            ]),
            recorded: RecordedEffects::default(),
            reasons: ReasonTable::default(),
            errors: ErrorStages::compile([
                ("(?i)not found", Stage::Semantics),
                ("^Error: cannot", Stage::Precondition),
            ])
            .unwrap(),
        }
    }

    fn run<'a>(&'a self, cases: &'a [CaseRef<'a>], success: Option<bool>) -> RunInput<'a> {
        RunInput {
            cases,
            catalogue: None,
            catalogue_view: None,
            effects: Effects {
                rules: &self.rules,
                recorded: &self.recorded,
            },
            reasons: &self.reasons,
            error_stages: &self.errors,
            success,
        }
    }
}

fn case<'a>(expectations: &'a Expectations) -> CaseRef<'a> {
    CaseRef {
        step: None,
        catalogue: None,
        label: None,
        expectations: Some(expectations),
    }
}

/// (step, label, label source, rung, arguments part) of each decision.
type Row = (
    i64,
    Option<Vec<String>>,
    Option<LabelSource>,
    Rung,
    Option<Arguments>,
);

fn rows(v: &RunVerdict) -> Vec<Row> {
    v.decisions
        .iter()
        .map(|d| {
            (
                d.step,
                d.label.as_ref().map(|(l, _)| l.acceptable.clone()),
                d.label.as_ref().map(|(_, src)| *src),
                d.classification.rung,
                d.classification.arguments,
            )
        })
        .collect()
}

fn derived(acc: &[&str]) -> (Option<Vec<String>>, Option<LabelSource>) {
    (Some(s(acc)), Some(LabelSource::Derived))
}

#[test]
fn derived_labels_and_their_rungs() {
    let world = World::new();
    let e = Expectations {
        calls: Some(vec![
            call(
                "get_reservation_details",
                json!({"reservation_id": "NQNU5R"}),
            ),
            call("cancel_reservation", json!({"reservation_id": "NQNU5R"})),
            call("book_reservation", json!({"cabin": "economy"})),
            call("update_reservation_flights", json!({"cabin": "economy"})),
        ]),
        ..Expectations::default()
    };
    let cases = [case(&e)];
    let right = json!({"reservation_id": "NQNU5R"});
    let wrong = json!({"reservation_id": "ZZZ"});
    let business = json!({"cabin": "business"});
    let bags = json!({"total_baggages": 0});
    let mut steps = vec![
        step(1, Some("get_reservation_details"), Some(&right)),
        step(2, Some("think"), None),
        step(3, Some("cancel_reservation"), Some(&wrong)),
        step(4, Some("cancel_reservation"), Some(&right)),
        step(5, Some("update_reservation_baggages"), Some(&bags)),
        step(6, Some("book_reservation"), Some(&business)),
        step(7, Some("book_reservation"), Some(&business)),
        step(8, Some("book_reservation"), Some(&business)),
        step(9, Some("book_reservation"), Some(&business)),
        step(10, None, None),
    ];
    // A mismatch whose write timed out fails at EXECUTION first.
    steps[6].status = Some(Status::Unknown);
    // A mismatch that made no progress: SEMANTICS comes first on the walk.
    steps[7].progress = Some(Progress::None);
    // A refused call is no call: the boundary names its rung, no label.
    steps[8].status = Some(Status::Refused);
    steps[8].reason = Some("outside_intent");
    let v = classify_run(&world.run(&cases, Some(false)), &steps);
    let mismatch = Some(Arguments::Mismatch);
    let with =
        |n: i64, l: (Option<Vec<String>>, Option<LabelSource>), r: Rung, a| (n, l.0, l.1, r, a);
    assert_eq!(
        rows(&v),
        vec![
            with(1, derived(&["get_reservation_details"]), Rung::Passed, None),
            (2, None, None, Rung::Unlabelled, None),
            with(
                3,
                derived(&["cancel_reservation"]),
                Rung::Semantics,
                mismatch
            ),
            with(4, derived(&["cancel_reservation"]), Rung::Passed, None),
            with(
                5,
                derived(&["book_reservation", "update_reservation_flights"]),
                Rung::Selection,
                None
            ),
            with(6, derived(&["book_reservation"]), Rung::Semantics, mismatch),
            with(7, derived(&["book_reservation"]), Rung::Execution, mismatch),
            with(8, derived(&["book_reservation"]), Rung::Semantics, mismatch),
            (9, None, None, Rung::Authorization, None),
            with(
                10,
                derived(&["book_reservation", "update_reservation_flights"]),
                Rung::Selection,
                None
            ),
        ]
    );
    // Derived labels are labels: the parts and metric facts follow.
    let d3 = &v.decisions[2].classification;
    assert_eq!(
        (d3.labelled, d3.routing, d3.boundary, d3.selected_ok),
        (true, None, None, Some(true))
    );
    let d5 = &v.decisions[4].classification;
    assert_eq!(
        (d5.routing, d5.selected_ok),
        (Some(Routing::Selection), Some(false))
    );
    // The last decision carries the missing calls, so it is the run's
    // first failure only after step 3.
    assert_eq!(v.first_failed_rung, Some(Rung::Semantics));
    let x = v.expectations.as_ref().unwrap();
    assert!(!x.as_expected);
    assert_eq!(
        x.findings
            .iter()
            .map(|f| (f.kind(), f.step()))
            .collect::<Vec<_>>(),
        vec![
            (FindingKind::MissingCall, None),
            (FindingKind::MissingCall, None),
            (FindingKind::ArgumentMismatch, Some(3)),
            (FindingKind::UnexpectedCall, Some(5)),
            (FindingKind::ArgumentMismatch, Some(6)),
            (FindingKind::ArgumentMismatch, Some(7)),
            (FindingKind::ArgumentMismatch, Some(8)),
        ]
    );
    // Required: cancel, book, update (3), one matched; judged calls: steps
    // 1, 3, 4, 6, 7, 8 (6), two matched.
    assert_eq!(
        x.facts,
        ExpectationFacts {
            required_calls: 3,
            matched_required: 1,
            judged_calls: 6,
            matched_calls: 2,
            as_expected: false,
            success: Some(false),
        }
    );
}

#[test]
fn a_label_of_its_own_wins_over_the_derived_one() {
    let world = World::new();
    let read = label(&["get_user_details"]);
    let cancel = label(&["cancel_reservation"]);
    let e = Expectations {
        calls: Some(vec![call("book_reservation", json!({"cabin": "economy"}))]),
        ..Expectations::default()
    };
    // The step-less case labels the first decision and sets the run's
    // expectations; a step case labels step 2.
    let cases = [
        CaseRef {
            step: None,
            catalogue: None,
            label: Some(&read),
            expectations: Some(&e),
        },
        CaseRef {
            step: Some(2),
            catalogue: None,
            label: Some(&cancel),
            expectations: None,
        },
    ];
    let business = json!({"cabin": "business"});
    let mut steps = vec![
        step(1, Some("get_user_details"), None),
        step(2, Some("book_reservation"), Some(&business)),
        step(3, None, None),
    ];
    steps[2].expected = Some(&cancel);
    let v = classify_run(&world.run(&cases, None), &steps);
    assert_eq!(
        rows(&v),
        vec![
            (
                1,
                Some(s(&["get_user_details"])),
                Some(LabelSource::Case),
                Rung::Passed,
                None
            ),
            // The case's label decides the routing walk (SELECTION); the
            // walk still marks the arguments.
            (
                2,
                Some(s(&["cancel_reservation"])),
                Some(LabelSource::Case),
                Rung::Selection,
                Some(Arguments::Mismatch)
            ),
            (
                3,
                Some(s(&["cancel_reservation"])),
                Some(LabelSource::Inline),
                Rung::Selection,
                None
            ),
        ]
    );
    // The inline label keeps the missing book_reservation off step 3.
    assert_eq!(
        v.decisions[2].walk,
        Some(WalkResult::EndedShort {
            acceptable: s(&["book_reservation"])
        })
    );
}

#[test]
fn first_failed_rung_when_required_calls_are_missing_at_the_end() {
    let world = World::new();
    let e = Expectations {
        calls: Some(vec![
            call("get_user_details", Value::Null),
            call("cancel_reservation", Value::Null),
        ]),
        ..Expectations::default()
    };
    let cases = [case(&e)];
    let first_failed = |steps: &[StepInput<'_>]| {
        let v = classify_run(&world.run(&cases, None), steps);
        (
            v.first_failed_rung,
            v.decisions
                .iter()
                .map(|d| d.classification.rung)
                .collect::<Vec<_>>(),
        )
    };
    // The last decision made a call: nobody is blamed, the run fails at
    // SELECTION.
    assert_eq!(
        first_failed(&[step(1, None, None), step(2, Some("get_user_details"), None)]),
        (Some(Rung::Selection), vec![Rung::Unlabelled, Rung::Passed])
    );
    // A decision that failed earlier names the run's rung instead.
    let mut failed = vec![
        step(1, Some("get_user_details"), None),
        step(2, Some("think"), None),
    ];
    failed[0].status = Some(Status::Error);
    assert_eq!(
        first_failed(&failed),
        (
            Some(Rung::Execution),
            vec![Rung::Execution, Rung::Unlabelled]
        )
    );
    // The last decision made no call: it carries the blame.
    assert_eq!(
        first_failed(&[step(1, Some("get_user_details"), None), step(2, None, None)]),
        (Some(Rung::Selection), vec![Rung::Passed, Rung::Selection])
    );
    // Everything required was made: no failure.
    assert_eq!(
        first_failed(&[
            step(1, Some("cancel_reservation"), None),
            step(2, None, None)
        ]),
        (None, vec![Rung::Passed, Rung::Unlabelled])
    );
    // No decisions at all, calls expected: the run still fails.
    assert_eq!(first_failed(&[]), (Some(Rung::Selection), vec![]));
    // Outputs only: no walk, no derived label, no SELECTION for the run.
    let outputs = Expectations {
        outputs: Some(s(&["NQNU5R"])),
        ..Expectations::default()
    };
    let cases = [case(&outputs)];
    let mut answer = step(2, None, None);
    answer.text = Some("Your reservation nqnu5r is cancelled.");
    let v = classify_run(
        &world.run(&cases, Some(true)),
        &[step(1, Some("cancel_reservation"), None), answer],
    );
    assert_eq!(rows(&v)[0].3, Rung::Unlabelled);
    assert_eq!(v.first_failed_rung, None);
    let x = v.expectations.unwrap();
    assert_eq!((x.walk.is_none(), x.as_expected), (true, true));
    assert_eq!(
        x.facts,
        ExpectationFacts {
            as_expected: true,
            success: Some(true),
            ..ExpectationFacts::default()
        }
    );
}

#[test]
fn missing_outputs_make_a_run_not_as_expected() {
    let world = World::new();
    let e = Expectations {
        calls: Some(vec![]),
        outputs: Some(s(&["1,628", "refund"])),
        ..Expectations::default()
    };
    let cases = [case(&e)];
    let mut answer = step(2, None, None);
    answer.text = Some("The difference is $1628.");
    let v = classify_run(
        &world.run(&cases, Some(false)),
        &[step(1, Some("get_reservation_details"), None), answer],
    );
    let x = v.expectations.unwrap();
    assert_eq!(
        x.findings,
        vec![ExpectationFinding::MissingOutput {
            output: "refund".into()
        }]
    );
    assert_eq!(x.missing_outputs, s(&["refund"]));
    assert!(!x.as_expected);
    assert_eq!(x.facts.success, Some(false));
    // No required call expected, none missing: nothing is blamed.
    assert_eq!(v.first_failed_rung, None);
}

#[test]
fn effects_come_from_the_catalogue_before_the_config_and_annotations() {
    let world = World {
        rules: EffectRules::new([("get_*", Effect::ReadOnly)]),
        recorded: RecordedEffects::from_definitions(&json!([
            {"name": "book_flight", "annotations": {"destructiveHint": true}},
            {"name": "lookup", "annotations": {"readOnlyHint": true}}
        ])),
        ..World::new()
    };
    let mut cat = CatalogueView::default();
    cat.tools.insert(
        "get_fare".into(),
        ToolInfo {
            family: "fares".into(),
            effect: Effect::Mutating,
            open_world: false,
            idempotent: false,
            tokens: 0,
        },
    );
    let e = Expectations {
        calls: Some(vec![
            call("get_fare", json!({"id": 1})),
            call("lookup", Value::Null),
            call("book_flight", Value::Null),
        ]),
        ..Expectations::default()
    };
    let cases = [case(&e)];
    let mut run = world.run(&cases, None);
    run.catalogue_view = Some(&cat);
    let two = json!({"id": 2});
    let menu = Menu {
        catalogue: Some(&cat),
        ..Menu::default()
    };
    let mut steps = vec![
        step(1, Some("get_fare"), Some(&two)),
        step(2, Some("lookup"), None),
        step(3, Some("book_flight"), None),
    ];
    steps[0].menu = menu;
    let v = classify_run(&run, &steps);
    // get_fare is mutating by the catalogue though the config says
    // read-only: required, so the other id is a mismatch.
    assert!(matches!(
        v.decisions[0].walk,
        Some(WalkResult::Mismatch { expected: 0, .. })
    ));
    let w = v.expectations.unwrap().walk.unwrap();
    assert_eq!(
        w.expected.iter().map(|x| x.effect).collect::<Vec<_>>(),
        vec![
            Some(Effect::Mutating),
            Some(Effect::ReadOnly),
            Some(Effect::Destructive)
        ]
    );
}

#[test]
fn error_outcomes_that_name_their_stage() {
    let world = World::new();
    let outcome =
        |status: Status, stage: Option<Stage>, message: Option<&str>, result: Option<Value>| {
            let mut d = step(1, Some("cancel_reservation"), None);
            d.status = Some(status);
            d.stage = stage;
            d.message = message;
            d.result = result.as_ref();
            let v = classify_run(&world.run(&[], None), &[d]);
            let c = v.decisions[0].classification.clone();
            (
                c.rung,
                c.boundary,
                c.error.as_ref().map(|e| e.reason()),
                c.error.and_then(|e| e.detail),
            )
        };
    let not_found = || Some(json!("Error: reservation ZZZ not found"));
    let cannot = || Some(json!("Error: cannot cancel a flown reservation"));
    // A pattern on the message.
    assert_eq!(
        outcome(Status::Error, None, Some("User Not Found"), None),
        (
            Rung::Semantics,
            Some(Boundary::Semantics),
            Some("error:semantics".to_string()),
            Some("User Not Found".to_string())
        )
    );
    // No message: the result text; the first matching pattern wins.
    assert_eq!(
        outcome(Status::Error, None, None, not_found()).0,
        Rung::Semantics
    );
    assert_eq!(
        outcome(Status::Error, None, None, cannot()),
        (
            Rung::Precondition,
            Some(Boundary::Precondition),
            Some("error:precondition".to_string()),
            Some("Error: cannot cancel a flown reservation".to_string())
        )
    );
    // Nothing matches: EXECUTION, as in version 1.
    assert_eq!(
        outcome(Status::Error, None, Some("connection reset"), cannot()),
        (Rung::Execution, Some(Boundary::Execution), None, None)
    );
    // The importer's typed error wins over the patterns.
    assert_eq!(
        outcome(
            Status::Error,
            Some(Stage::Authorization),
            Some("not found"),
            None
        )
        .0,
        Rung::Authorization
    );
    // Only `error` outcomes: a refusal follows its own reason table.
    assert_eq!(
        outcome(Status::Refused, None, Some("not found"), None),
        (Rung::Unclassified, Some(Boundary::Unclassified), None, None)
    );
    assert_eq!(
        outcome(Status::Unknown, None, Some("not found"), None).0,
        Rung::Execution
    );
}

/// A version-1 run (inline labels, step cases, no expectations) classifies
/// as before, decision by decision, apart from `passed` → `unlabelled` for
/// the decisions no label judged.
#[test]
fn a_version_1_run_classifies_as_before() {
    let world = World {
        errors: ErrorStages::default(),
        ..World::new()
    };
    let mut cat = CatalogueView::default();
    for (name, effect) in [
        ("read_file", Effect::ReadOnly),
        ("edit_file", Effect::Mutating),
        ("search_code", Effect::ReadOnly),
    ] {
        cat.tools.insert(
            name.into(),
            ToolInfo {
                family: "repository".into(),
                effect,
                open_world: false,
                idempotent: false,
                tokens: 7,
            },
        );
    }
    let menu = Menu {
        catalogue: Some(&cat),
        ..Menu::default()
    };
    let read = label(&["read_file"]);
    let edit = label(&["edit_file"]);
    let search = label(&["search_code"]);
    let cases = [
        CaseRef {
            step: None,
            catalogue: None,
            label: Some(&read),
            expectations: None,
        },
        CaseRef {
            step: Some(4),
            catalogue: None,
            label: Some(&edit),
            expectations: None,
        },
    ];
    let mut steps: Vec<StepInput<'_>> = [
        Some("search_code"),
        Some("read_file"),
        Some("edit_file"),
        Some("edit_file"),
        Some("edit_file"),
        None,
        Some("search_code"),
    ]
    .iter()
    .enumerate()
    .map(|(i, sel)| StepInput {
        menu,
        catalogue: Some("repo-1"),
        ..step(i as i64 + 1, *sel, None)
    })
    .collect();
    steps[2].status = Some(Status::Unknown);
    steps[3].expected = Some(&search); // differs from the step-4 case
    steps[4].status = Some(Status::Error);
    steps[4].stage = Some(Stage::Execution);
    steps[4].message = Some("Error: not found");
    steps[5].status = Some(Status::NotRun);
    steps[6].progress = Some(Progress::Regressed);
    let v = classify_run(&world.run(&cases, Some(true)), &steps);
    // Before (version 1): selection, passed, execution, selection,
    // execution, passed, progress.
    assert_eq!(
        v.decisions
            .iter()
            .map(|d| d.classification.rung)
            .collect::<Vec<_>>(),
        vec![
            Rung::Selection,
            Rung::Unlabelled,
            Rung::Execution,
            Rung::Selection,
            Rung::Execution,
            Rung::Unlabelled,
            Rung::Progress,
        ]
    );
    // Decision by decision, the same verdict as `classify` on its own.
    for (d, s) in v.decisions.iter().zip(&steps) {
        let input = s.decision_input(d.label.as_ref().map(|(l, _)| l));
        let mut alone = classify(&input, &world.reasons);
        alone.findings = d.classification.findings.clone();
        assert_eq!(d.classification, alone, "step {}", s.step);
        assert_eq!(d.walk, None);
    }
    assert_eq!(
        v.decisions
            .iter()
            .map(|d| d.label.as_ref().map(|(_, src)| *src))
            .collect::<Vec<_>>(),
        vec![
            Some(LabelSource::Case),
            None,
            None,
            Some(LabelSource::Inline),
            None,
            None,
            None
        ]
    );
    // The inline label that differs from its case still says so.
    assert_eq!(
        v.decisions[3]
            .classification
            .findings
            .iter()
            .map(|f| f.kind)
            .collect::<Vec<_>>(),
        vec![FindingKind::LabelConflict]
    );
    // The wrong first call is recovered at step 2 (read_file, turn 2).
    assert_eq!(v.decisions[0].recovered, Some(true));
    assert_eq!(v.first_failed_rung, Some(Rung::Selection));
    assert_eq!(v.expectations, None);
}

#[test]
fn the_run_has_the_expectations_of_its_most_specific_step_less_case() {
    let world = World::new();
    let general = Expectations {
        calls: Some(vec![call("cancel_reservation", Value::Null)]),
        ..Expectations::default()
    };
    let specific = Expectations {
        outputs: Some(s(&["done"])),
        ..Expectations::default()
    };
    let read = label(&["get_user_details"]);
    let cases = [
        CaseRef {
            step: None,
            catalogue: None,
            label: None,
            expectations: Some(&general),
        },
        CaseRef {
            step: None,
            catalogue: Some("airline-2"),
            label: Some(&read),
            expectations: Some(&specific),
        },
        // A step case never sets expectations.
        CaseRef {
            step: Some(1),
            catalogue: Some("airline-3"),
            label: Some(&read),
            expectations: Some(&general),
        },
    ];
    let steps = [step(1, Some("get_user_details"), None)];
    let expectations_of = |catalogue: Option<&'static str>| {
        let mut run = world.run(&cases, None);
        run.catalogue = catalogue;
        let mut steps = steps;
        steps[0].catalogue = catalogue;
        let v = classify_run(&run, &steps);
        (
            v.expectations
                .map(|x| x.findings.iter().map(|f| f.kind()).collect::<Vec<_>>()),
            v.decisions[0].label.as_ref().map(|(_, src)| *src),
        )
    };
    assert_eq!(
        expectations_of(Some("airline-2")),
        (
            Some(vec![FindingKind::MissingOutput]),
            Some(LabelSource::Case)
        )
    );
    // No step-less case with this catalogue: the catalogue-less one's
    // expectations; the step case still labels step 1.
    assert_eq!(
        expectations_of(Some("airline-3")),
        (
            Some(vec![FindingKind::MissingCall]),
            Some(LabelSource::Case)
        )
    );
    // The catalogue-less case labels nothing directly, and the lookup is
    // not judged: no label at all.
    assert_eq!(
        expectations_of(None),
        (Some(vec![FindingKind::MissingCall]), None)
    );
}

mod bfcl;
