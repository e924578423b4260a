//! Table-driven tests of the ladder, each expected value worked out by hand
//! from `ladder.md`.

use super::*;
use crate::model::{
    Candidate, Effect, FindingKind, Label, Policy, Progress, Retrieval, Rule, Rung, Stage, Status,
};

fn tool(family: &str, effect: Effect, open_world: bool) -> ToolInfo {
    ToolInfo {
        family: family.into(),
        effect,
        open_world,
        idempotent: false,
        tokens: 10,
    }
}

/// A small coding catalogue:
/// read_file, search_code (repository, read_only); edit_file (repository,
/// mutating); run_tests (ci, read_only); deploy_release (deploy,
/// destructive, open world); web_fetch (web, read_only, open world);
/// ask_user, no_applicable_tool (control, none).
fn catalogue() -> CatalogueView {
    let mut tools = ToolMap::new();
    tools.insert(
        "read_file".into(),
        tool("repository", Effect::ReadOnly, false),
    );
    tools.insert(
        "search_code".into(),
        tool("repository", Effect::ReadOnly, false),
    );
    tools.insert(
        "edit_file".into(),
        tool("repository", Effect::Mutating, false),
    );
    tools.insert("run_tests".into(), tool("ci", Effect::ReadOnly, false));
    tools.insert(
        "deploy_release".into(),
        tool("deploy", Effect::Destructive, true),
    );
    tools.insert("web_fetch".into(), tool("web", Effect::ReadOnly, true));
    tools.insert("ask_user".into(), tool("control", Effect::None, false));
    tools.insert(
        "no_applicable_tool".into(),
        tool("control", Effect::None, false),
    );
    CatalogueView {
        version: "repo-1".into(),
        abstain: None,
        tools,
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn label(acc: &[&str], forb: &[&str]) -> Label {
    Label::new(s(acc), s(forb))
}

fn policy(families: Option<&[&str]>, max: Option<Effect>, open: bool) -> Policy {
    Policy {
        allowed_families: families.map(s),
        max_effect: max,
        allow_open_world: open,
        extra: serde_json::Value::Null,
    }
}

fn retrieval(k: u32, names: &[(&str, f64)]) -> Retrieval {
    Retrieval {
        k,
        selector: None,
        query: None,
        candidates: names
            .iter()
            .map(|(n, sc)| Candidate {
                name: n.to_string(),
                score: Some(*sc),
                extra: serde_json::Value::Null,
            })
            .collect(),
        extra: serde_json::Value::Null,
    }
}

struct Case<'a> {
    menu: Menu<'a>,
    selected: Option<&'a str>,
    label: Option<&'a Label>,
    status: Option<Status>,
    stage: Option<Stage>,
    reason: Option<&'a str>,
    progress: Option<Progress>,
}

impl<'a> Case<'a> {
    fn new(menu: Menu<'a>, selected: Option<&'a str>, label: Option<&'a Label>) -> Self {
        Case {
            menu,
            selected,
            label,
            status: Some(Status::Ok),
            stage: None,
            reason: None,
            progress: None,
        }
    }
    fn run(&self) -> Classification {
        classify(
            &DecisionInput {
                menu: self.menu,
                selected: self.selected,
                label: self.label,
                status: self.status,
                stage: self.stage,
                reason: self.reason,
                progress: self.progress,
                abstain: "no_applicable_tool",
            },
            &ReasonTable::default(),
        )
    }
}

#[test]
fn every_rung_of_the_walk() {
    let cat = catalogue();
    let controls = s(&["ask_user", "no_applicable_tool"]);
    let discover = policy(Some(&["repository"]), Some(Effect::ReadOnly), false);
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&discover),
        controls: &controls,
        ..Menu::default()
    };
    let r = retrieval(1, &[("search_code", 0.9), ("read_file", 0.5)]);
    let with_retrieval = Menu {
        retrieval: Some(&r),
        ..menu
    };

    let pr = label(&["open_pull_request"], &[]);
    let edit = label(&["edit_file"], &[]);
    let read = label(&["read_file"], &[]);
    let search = label(&["search_code"], &[]);

    // COVERAGE: nothing anywhere can open a pull request.
    assert_eq!(
        Case::new(menu, Some("read_file"), Some(&pr)).run().rung,
        Rung::Coverage
    );
    // EXPOSURE: edit_file is mutating, above the read_only ceiling.
    assert_eq!(
        Case::new(menu, Some("read_file"), Some(&edit)).run().rung,
        Rung::Exposure
    );
    // DISCOVERY: read_file ranks 2nd with k=1.
    assert_eq!(
        Case::new(with_retrieval, Some("search_code"), Some(&read))
            .run()
            .rung,
        Rung::Discovery
    );
    // SELECTION: read_file was visible, search_code chosen.
    assert_eq!(
        Case::new(menu, Some("search_code"), Some(&read)).run().rung,
        Rung::Selection
    );

    // The boundary, after a passed routing walk.
    let boundary = |status, stage, reason| {
        let mut c = Case::new(with_retrieval, Some("search_code"), Some(&search));
        c.status = status;
        c.stage = stage;
        c.reason = reason;
        c.run()
    };
    assert_eq!(
        boundary(Some(Status::Refused), None, Some("call_in_text")).rung,
        Rung::Representation
    );
    assert_eq!(
        boundary(Some(Status::Refused), Some(Stage::Schema), Some("whatever")).rung,
        Rung::Schema
    );
    assert_eq!(
        boundary(Some(Status::Refused), None, Some("target_not_from_lookup")).rung,
        Rung::Semantics
    );
    assert_eq!(
        boundary(Some(Status::Refused), None, Some("outside_intent")).rung,
        Rung::Authorization
    );
    assert_eq!(
        boundary(Some(Status::Refused), None, Some("existing_ticket")).rung,
        Rung::Precondition
    );
    assert_eq!(
        boundary(Some(Status::Refused), None, Some("budget_exceeded")).rung,
        Rung::Unclassified
    );
    assert_eq!(
        boundary(Some(Status::Refused), None, None).rung,
        Rung::Unclassified
    );
    // A recorded stage wins over the reason's.
    assert_eq!(
        boundary(
            Some(Status::Refused),
            Some(Stage::Precondition),
            Some("outside_intent")
        )
        .rung,
        Rung::Precondition
    );
    assert_eq!(
        boundary(Some(Status::Error), None, Some("rate_limited")).rung,
        Rung::Execution
    );
    assert_eq!(
        boundary(Some(Status::Unknown), None, None).rung,
        Rung::Execution
    );
    assert_eq!(
        boundary(Some(Status::NotRun), None, None).rung,
        Rung::Passed
    );
    assert_eq!(boundary(None, None, None).rung, Rung::Passed);

    // PROGRESS after a passed boundary.
    let mut c = Case::new(with_retrieval, Some("search_code"), Some(&search));
    c.progress = Some(Progress::Regressed);
    assert_eq!(c.run().rung, Rung::Progress);
    c.progress = Some(Progress::None);
    assert_eq!(c.run().rung, Rung::Progress);
    c.progress = Some(Progress::Advanced);
    assert_eq!(c.run().rung, Rung::Passed);
}

#[test]
fn parts_are_kept_beside_the_rung() {
    let cat = catalogue();
    let menu = Menu {
        catalogue: Some(&cat),
        ..Menu::default()
    };
    let read = label(&["read_file"], &["deploy_release"]);
    let mut c = Case::new(menu, Some("deploy_release"), Some(&read));
    c.status = Some(Status::Refused);
    c.reason = Some("outside_intent");
    c.progress = Some(Progress::None);
    let r = c.run();
    assert_eq!(r.rung, Rung::Selection);
    assert_eq!(r.routing, Some(Routing::Selection));
    assert_eq!(r.boundary, Some(Boundary::Authorization));
    assert_eq!(r.progress, Some(Progress::None));
    assert!(r.violated);
    assert_eq!(
        (r.in_registry, r.in_exposed, r.in_retrieved, r.selected_ok),
        (Some(true), Some(true), Some(true), Some(false))
    );
}

#[test]
fn unlabelled_no_call_and_abstain() {
    let cat = catalogue();
    let controls = s(&["ask_user", "no_applicable_tool"]);
    let menu = Menu {
        catalogue: Some(&cat),
        controls: &controls,
        ..Menu::default()
    };
    // Unlabelled: the routing walk is skipped, the boundary still counts.
    let mut c = Case::new(menu, Some("edit_file"), None);
    c.status = Some(Status::Unknown);
    let r = c.run();
    assert_eq!(
        (r.rung, r.routing, r.labelled),
        (Rung::Execution, Some(Routing::Unlabelled), false)
    );
    // Failing nowhere without a label is `unlabelled`, never `passed`
    // (`passed` means judged); progress still fails it.
    assert_eq!(
        Case::new(menu, Some("edit_file"), None).run().rung,
        Rung::Unlabelled
    );
    let mut c = Case::new(menu, None, None);
    c.status = Some(Status::NotRun);
    assert_eq!(c.run().rung, Rung::Unlabelled);
    c.progress = Some(Progress::None);
    assert_eq!(c.run().rung, Rung::Progress);

    // @no_call: a null selection matches it; a tool call does not.
    let no_call = label(&["@no_call"], &[]);
    let mut c = Case::new(menu, None, Some(&no_call));
    c.status = Some(Status::NotRun);
    let r = c.run();
    assert_eq!(
        (r.rung, r.no_call_expected, r.selected_ok),
        (Rung::Passed, true, Some(true))
    );
    let r = Case::new(menu, Some("read_file"), Some(&no_call)).run();
    assert_eq!(r.rung, Rung::Selection);

    // Null selection against a tool label: a SELECTION failure, hidden_proposal does not apply.
    let read = label(&["read_file"], &[]);
    let r = Case::new(menu, None, Some(&read)).run();
    assert_eq!(r.rung, Rung::Selection);
    assert!(r.findings.is_empty());

    // Abstain.
    let abstain = label(&["no_applicable_tool", "ask_user"], &[]);
    let r = Case::new(menu, Some("no_applicable_tool"), Some(&abstain)).run();
    assert_eq!(
        (r.rung, r.abstain_expected, r.abstained),
        (Rung::Passed, true, true)
    );
    let r = Case::new(menu, Some("ask_user"), Some(&abstain)).run();
    assert_eq!(
        (r.rung, r.abstain_expected, r.abstained),
        (Rung::Passed, true, false)
    );
}

#[test]
fn exposure_rules_apply_in_order() {
    let cat = catalogue();
    // ask_user is a trusted control even though the policy's families exclude "control".
    let controls = s(&["ask_user"]);
    // deploy_release: family deploy not allowed (rule 2) although also above the
    // ceiling (3) and open world (4); edit_file: effect (3); web_fetch: open world (4).
    let p = policy(
        Some(&["repository", "ci", "web"]),
        Some(Effect::ReadOnly),
        false,
    );
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&p),
        controls: &controls,
        ..Menu::default()
    };
    let rules: Vec<(String, bool, Rule)> = explain_tools(menu, None, None)
        .into_iter()
        .map(|t| (t.name, t.visible, t.rule))
        .collect();
    assert_eq!(
        rules,
        vec![
            ("ask_user".into(), true, Rule::TrustedControl),
            ("deploy_release".into(), false, Rule::Family),
            ("edit_file".into(), false, Rule::Effect),
            ("no_applicable_tool".into(), false, Rule::Family),
            ("read_file".into(), true, Rule::Eligible),
            ("run_tests".into(), true, Rule::Eligible),
            ("search_code".into(), true, Rule::Eligible),
            ("web_fetch".into(), false, Rule::OpenWorld),
        ]
    );
    // No policy, no retrieval: flat.
    let flat = Menu {
        catalogue: Some(&cat),
        ..Menu::default()
    };
    assert!(
        explain_tools(flat, None, None)
            .iter()
            .all(|t| t.visible && t.rule == Rule::Flat)
    );
}

#[test]
fn retrieval_rank_skips_controls_hidden_tools_and_repeats() {
    let cat = catalogue();
    let controls = s(&["ask_user"]);
    let p = policy(Some(&["repository", "ci"]), Some(Effect::ReadOnly), false);
    // ask_user (control) and edit_file (hidden by effect) do not use up k;
    // search_code's repeat counts once. Ranks: search_code 1, read_file 2, run_tests 3.
    let r = retrieval(
        2,
        &[
            ("ask_user", 0.99),
            ("edit_file", 0.95),
            ("search_code", 0.9),
            ("search_code", 0.8),
            ("read_file", 0.6),
            ("run_tests", 0.5),
        ],
    );
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&p),
        controls: &controls,
        retrieval: Some(&r),
        ..Menu::default()
    };
    let sets = Sets::new(menu, None, None);
    assert_eq!(sets.rank("search_code"), Some((1, Some(0.9))));
    assert_eq!(sets.rank("read_file"), Some((2, Some(0.6))));
    assert_eq!(sets.rank("run_tests"), Some((3, Some(0.5))));
    assert_eq!(sets.rank("edit_file"), None);
    assert_eq!(
        sets.retrieved_names(),
        s(&["ask_user", "read_file", "search_code"])
    );
    let tools = explain_tools(menu, None, None);
    let run_tests = tools.iter().find(|t| t.name == "run_tests").unwrap();
    assert_eq!(
        (run_tests.visible, run_tests.rule),
        (false, Rule::NotRetrieved)
    );
    assert_eq!(
        run_tests.why,
        "eligible, not retrieved: rank 3 (score 0.5) > k=2"
    );
    let web = tools.iter().find(|t| t.name == "web_fetch").unwrap();
    assert_eq!((web.visible, web.rule), (false, Rule::Family));
    // The label's tool ranked 3rd: DISCOVERY, and recall@2 counts it.
    let rt = label(&["run_tests"], &[]);
    let r = Case::new(menu, Some("search_code"), Some(&rt)).run();
    assert_eq!(
        (r.rung, r.retrieval_k, r.in_exposed, r.in_retrieved),
        (Rung::Discovery, Some(2), Some(true), Some(false))
    );
}

#[test]
fn recorded_menu_is_the_truth() {
    let cat = catalogue();
    let controls = s(&["ask_user"]);
    let p = policy(Some(&["repository"]), Some(Effect::ReadOnly), false);
    // The runtime showed deploy_release (the policy hides it) and not search_code
    // (the policy allows it), and left out the trusted control.
    let visible = s(&["read_file", "deploy_release"]);
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&p),
        controls: &controls,
        visible: Some(&visible),
        ..Menu::default()
    };
    let tools = explain_tools(menu, None, None);
    let get = |n: &str| tools.iter().find(|t| t.name == n).unwrap().clone();
    assert_eq!(
        (get("deploy_release").visible, get("deploy_release").rule),
        (true, Rule::Recorded)
    );
    assert_eq!(
        get("deploy_release").why,
        "in the recorded visible menu though rule family hides it: family deploy is not allowed (allowed: repository)"
    );
    assert_eq!(
        (get("search_code").visible, get("search_code").rule),
        (false, Rule::NotRecorded)
    );
    assert_eq!(
        (get("read_file").visible, get("read_file").rule),
        (true, Rule::Eligible)
    );
    // The control: rule 1 shows it, the menu lacks it.
    assert_eq!(
        (get("ask_user").visible, get("ask_user").rule),
        (false, Rule::NotRecorded)
    );

    // The ladder follows the recorded menu: search_code was not in front of the model.
    let search = label(&["search_code"], &[]);
    let r = Case::new(menu, Some("read_file"), Some(&search)).run();
    assert_eq!(r.rung, Rung::Discovery);
    // deploy_release is in registry/exposed/retrieved because it was recorded.
    let deploy = label(&["deploy_release"], &[]);
    assert_eq!(
        Case::new(menu, Some("deploy_release"), Some(&deploy))
            .run()
            .rung,
        Rung::Passed
    );

    // Findings: deploy_release hidden by the policy yet shown; the control missing.
    // (search_code missing is a narrower menu with no retrieval: not a mismatch.)
    let f: Vec<(FindingKind, Option<String>)> = r
        .findings
        .iter()
        .map(|f| (f.kind, f.tool.clone()))
        .collect();
    assert_eq!(
        f,
        vec![
            (FindingKind::ExposureMismatch, Some("ask_user".into())),
            (FindingKind::ExposureMismatch, Some("deploy_release".into())),
        ]
    );
}

#[test]
fn exposure_mismatch_against_retrieval_and_unknown_names() {
    let cat = catalogue();
    let p = policy(Some(&["repository", "ci"]), Some(Effect::ReadOnly), false);
    let r = retrieval(1, &[("search_code", 0.9), ("read_file", 0.6)]);
    // read_file ranks 2 > k=1 yet shown; search_code ranks 1 yet missing;
    // open_pr is in no catalogue.
    let visible = s(&["read_file", "open_pr"]);
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&p),
        retrieval: Some(&r),
        visible: Some(&visible),
        ..Menu::default()
    };
    let c = Case::new(menu, Some("read_file"), None).run();
    let f: Vec<(Option<String>, String)> = c
        .findings
        .iter()
        .map(|f| (f.tool.clone(), f.detail.clone()))
        .collect();
    assert_eq!(
        f,
        vec![
            (Some("open_pr".into()), "open_pr is in the recorded visible menu but not in catalogue repo-1".into()),
            (Some("read_file".into()), "read_file is in the recorded visible menu but was not retrieved (rank 2 (score 0.6) > k=1)".into()),
            (Some("search_code".into()), "search_code was retrieved (rank 1 (score 0.9) ≤ k=1) but is missing from the recorded visible menu".into()),
        ]
    );
}

#[test]
fn hidden_proposal_and_unclassified_reason() {
    let cat = catalogue();
    let p = policy(Some(&["repository"]), Some(Effect::ReadOnly), false);
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&p),
        ..Menu::default()
    };
    let mut c = Case::new(menu, Some("deploy_release"), None);
    c.status = Some(Status::Refused);
    c.reason = Some("budget_exceeded");
    let r = c.run();
    assert_eq!(r.rung, Rung::Unclassified);
    let f: Vec<(FindingKind, String)> = r
        .findings
        .iter()
        .map(|f| (f.kind, f.detail.clone()))
        .collect();
    assert_eq!(
        f,
        vec![
            (
                FindingKind::HiddenProposal,
                "selected deploy_release, which was not in the visible menu; refused (unclassified)".into()
            ),
            (
                FindingKind::UnclassifiedReason,
                "refused with reason budget_exceeded, which no stage maps; add it to [reasons] in the config".into()
            ),
        ]
    );
    // Executed while hidden: the detail says so.
    let r = Case::new(menu, Some("edit_file"), None).run();
    assert_eq!(
        r.findings[0].detail,
        "selected edit_file, which was not in the visible menu; executed (ok)"
    );
}

#[test]
fn no_evidence_reduces_to_selection() {
    // No catalogue and no recorded menu: only the selection check applies.
    let menu = Menu::default();
    let l = label(&["lookup_order"], &[]);
    assert_eq!(
        Case::new(menu, Some("lookup_order"), Some(&l)).run().rung,
        Rung::Passed
    );
    let r = Case::new(menu, Some("cancel_order"), Some(&l)).run();
    assert_eq!(r.rung, Rung::Selection);
    assert!(r.findings.is_empty());
    assert_eq!(r.definition_tokens, None);
    // A recorded menu without a catalogue is evidence: an unlisted label is COVERAGE.
    let visible = s(&["lookup_order"]);
    let menu = Menu {
        visible: Some(&visible),
        ..Menu::default()
    };
    let other = label(&["refund_order"], &[]);
    assert_eq!(
        Case::new(menu, Some("lookup_order"), Some(&other))
            .run()
            .rung,
        Rung::Coverage
    );
    // ...and a call outside that menu is a hidden proposal.
    let r = Case::new(menu, Some("refund_order"), None).run();
    assert_eq!(r.findings[0].kind, FindingKind::HiddenProposal);
    let tools = explain_tools(menu, None, None);
    assert_eq!(tools.len(), 1);
    assert_eq!(
        (tools[0].name.as_str(), tools[0].rule),
        ("lookup_order", Rule::Recorded)
    );
}

#[test]
fn label_resolution_prefers_the_most_specific_case() {
    let a = label(&["a"], &[]);
    let b = label(&["b"], &[]);
    let c = label(&["c"], &[]);
    let d = label(&["d"], &[]);
    let cases = [
        CaseRef {
            step: None,
            catalogue: None,
            label: Some(&a),
            expectations: None,
        },
        CaseRef {
            step: None,
            catalogue: Some("menu-C"),
            label: Some(&b),
            expectations: None,
        },
        CaseRef {
            step: Some(2),
            catalogue: None,
            label: Some(&c),
            expectations: None,
        },
        CaseRef {
            step: Some(2),
            catalogue: Some("menu-C"),
            label: Some(&d),
            expectations: None,
        },
    ];
    let got = |step, cat, first| {
        matching_case(&cases, step, cat, first).map(|c| c.label.unwrap().acceptable[0].clone())
    };
    assert_eq!(got(2, Some("menu-C"), false), Some("d".into()));
    assert_eq!(got(2, Some("menu-A"), false), Some("c".into()));
    assert_eq!(got(2, None, false), Some("c".into()));
    assert_eq!(got(1, Some("menu-C"), true), Some("b".into()));
    assert_eq!(got(1, Some("menu-A"), true), Some("a".into()));
    assert_eq!(got(3, Some("menu-C"), false), None);
    // A step-less case applies to the first decision only.
    assert_eq!(got(5, None, true), Some("a".into()));
    assert_eq!(got(5, None, false), None);

    // Inline replaces the case as a whole; a difference is a label_conflict.
    let inline = label(&["x"], &["a"]);
    let (l, conflict) = resolve_label(Some(&inline), &cases, 2, Some("menu-C"), false);
    assert_eq!(
        l.map(|(l, s)| (l.acceptable.clone(), s)),
        Some((s(&["x"]), LabelSource::Inline))
    );
    assert_eq!(
        conflict.unwrap().detail,
        "inline expected acceptable [x], forbidden [a] differs from the case (step 2, catalogue menu-C) acceptable [d]; the inline label wins"
    );
    let same = label(&["d"], &[]);
    let (_, conflict) = resolve_label(Some(&same), &cases, 2, Some("menu-C"), false);
    assert!(conflict.is_none());
    let (l, _) = resolve_label(None, &cases, 9, None, false);
    assert!(l.is_none());

    // A case with expectations only is chosen as a whole and labels
    // nothing: no fallback to a less specific case, and no conflict.
    let mut cases = cases.to_vec();
    cases[1].label = None;
    assert_eq!(got_from(&cases, 1, Some("menu-C"), true), None);
    let (l, conflict) = resolve_label(Some(&inline), &cases, 1, Some("menu-C"), true);
    assert_eq!(l.map(|(_, s)| s), Some(LabelSource::Inline));
    assert!(conflict.is_none());
    assert_eq!(got_from(&cases, 1, Some("menu-A"), true), Some("a".into()));
}

fn got_from(cases: &[CaseRef<'_>], step: i64, cat: Option<&str>, first: bool) -> Option<String> {
    matching_case(cases, step, cat, first).and_then(|c| c.label.map(|l| l.acceptable[0].clone()))
}

#[test]
fn recovery_within_three_turns() {
    let l = label(&["read_file"], &[]);
    let steps = [
        RunStep {
            step: 1,
            turn: 1,
            selected: Some("search_code"),
        },
        RunStep {
            step: 2,
            turn: 1,
            selected: Some("read_file"),
        }, // same turn: parallel, not a recovery
        RunStep {
            step: 3,
            turn: 5,
            selected: Some("read_file"),
        }, // turn 5 > 1 + 3
    ];
    assert!(!recovered_within_3(&steps[0], &l, &steps));
    let steps = [
        RunStep {
            step: 1,
            turn: 1,
            selected: Some("search_code"),
        },
        RunStep {
            step: 4,
            turn: 4,
            selected: Some("read_file"),
        },
    ];
    assert!(recovered_within_3(&steps[0], &l, &steps));
    let nc = label(&["@no_call"], &[]);
    let steps = [
        RunStep {
            step: 1,
            turn: 1,
            selected: Some("search_code"),
        },
        RunStep {
            step: 2,
            turn: 2,
            selected: None,
        },
    ];
    assert!(recovered_within_3(&steps[0], &nc, &steps));
}

#[test]
fn definition_tokens_sum_over_the_menu() {
    let cat = catalogue();
    let visible = s(&["read_file", "search_code", "unknown_tool"]);
    let menu = Menu {
        catalogue: Some(&cat),
        visible: Some(&visible),
        ..Menu::default()
    };
    // two catalogue tools of 10 tokens each; the unknown name adds nothing
    assert_eq!(
        Case::new(menu, Some("read_file"), None)
            .run()
            .definition_tokens,
        Some(20)
    );
}

#[test]
fn recovery_window_does_not_overflow() {
    let l = label(&["read_file"], &[]);
    let steps = [
        RunStep {
            step: 1,
            turn: i64::MAX - 1,
            selected: Some("search_code"),
        },
        RunStep {
            step: 2,
            turn: i64::MAX,
            selected: Some("read_file"),
        },
    ];
    assert!(recovered_within_3(&steps[0], &l, &steps));
}

#[test]
fn only_a_recorded_visible_menu_overrides_the_rules() {
    let cat = catalogue();
    let p = policy(Some(&["repository"]), Some(Effect::ReadOnly), false);
    // A recorded exposed set without visible: the rules explain each tool.
    let exposed = s(&["read_file"]);
    let menu = Menu {
        catalogue: Some(&cat),
        policy: Some(&p),
        exposed: Some(&exposed),
        ..Menu::default()
    };
    let tools = explain_tools(menu, None, None);
    let search = tools.iter().find(|t| t.name == "search_code").unwrap();
    assert_eq!((search.visible, search.rule), (true, Rule::Eligible));
    // No catalogue and no recorded visible menu: nothing to list.
    let menu = Menu {
        exposed: Some(&exposed),
        ..Menu::default()
    };
    assert!(explain_tools(menu, None, None).is_empty());
}
