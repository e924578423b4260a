//! announced_no_call, write_under_inform, menu_changed, repeated_call, and the findings' order.

use super::ids::on_c;
use super::*;

// ---- announced_no_call ----------------------------------------------------

#[test]
fn an_answer_that_announces_a_lookup_and_makes_no_call() {
    let w = World::new();
    let run = w.run(None, Some(Intent::Inform));
    let steps = [reply(
        1,
        "I need to check the status of Quarry Climbing's subscription. Let me look the customer up first.",
    )];
    assert_eq!(
        shown(&audit_run(&run, &steps)),
        vec![(
            FindingKind::AnnouncedNoCall,
            1,
            None,
            "the answer announces an action: \"I need to check the status of Quarry Climbing's subscription.\"; no tool was called, so a harness loop takes it for the final answer".to_string()
        )]
    );
}

#[test]
fn a_call_written_as_text_and_refused_at_representation() {
    let w = World::new();
    let run = w.run(None, None);
    let mut s = refused(
        call(1, "search_customers", Value::Null, None),
        "call_in_text",
    );
    s.arguments = None;
    s.raw = Some(v(json!(
        "Checking now: {\"type\": \"search_customers\", \"query\": \"Quarry Climbing\"}"
    )));
    assert_eq!(
        shown(&audit_run(&run, &[s])),
        vec![(
            FindingKind::AnnouncedNoCall,
            1,
            Some("search_customers"),
            "the answer writes a call out as text: \"{\\\"type\\\": \\\"search_customers\\\", \\\"query\\\": \\\"Quarry Climbing\\\"}\"; no tool was called, so a harness loop takes it for the final answer".to_string()
        )]
    );
    let mut t = reply(2, "<tool_call>\n{\"name\": \"lookup\"}\n</tool_call>");
    t.text = Some("Let me look.");
    assert_eq!(
        shown(&audit_run(&run, &[t]))[0].3,
        "the answer announces an action: \"Let me look.\"; the answer writes a call out as text: \"<tool_call>\\n{\\\"name\\\": \\\"lookup\\\"}\\n</tool_call>\"; no tool was called, so a harness loop takes it for the final answer"
    );
}

#[test]
fn announce_near_misses() {
    let w = World::new();
    let run = w.run(None, None);
    for words in [
        "Yes. Quarry Climbing's GYM plan is active.",
        "Let me know if you need anything else.",
        "The outlet menu is closed.",
        "Use {\"type\": \"text\", \"text\": \"hi\"} blocks.",
        "An object {\"name\": \"unknown tool name\", \"x\": 1} with a sentence for a name.",
        "{\"name\": \"only_a_name\"}",
    ] {
        let mut s = on_c(reply(1, words));
        s.menu.visible = Some(names(&["find_customer"]));
        assert_eq!(audit_run(&run, &[s]), vec![], "{words}");
    }
    // The same message called a tool too (a text part and a call of one turn).
    let mut text = reply(1, "Let me check that.");
    text.turn = 1;
    let mut c = call(2, "find_customer", json!({"name": "x"}), None);
    c.turn = 1;
    assert_eq!(audit_run(&run, &[text, c]), vec![]);
    // An announcement the run then acted on: the user answered, the lookup
    // came. A call written as text counts all the same.
    let ask = reply(1, "First, I'll need your user ID.");
    let later = call(2, "find_customer", json!({"name": "x"}), None);
    assert_eq!(audit_run(&run, &[ask, later]), vec![]);
    assert_eq!(
        kinds(&audit_run(&run, &[ask])),
        vec![(FindingKind::AnnouncedNoCall, 1)]
    );
    let written = reply(1, "{\"name\": \"find_customer\", \"arguments\": {}}");
    assert_eq!(
        kinds(&audit_run(&run, &[written, later])),
        vec![(FindingKind::AnnouncedNoCall, 1)]
    );
    // A call that executed, whatever its words.
    let mut c = call(1, "find_customer", json!({"name": "x"}), None);
    c.raw = Some(v(json!("Let me search.")));
    assert_eq!(audit_run(&run, &[c]), vec![]);
}

#[test]
fn announce_phrases_are_words_in_any_case_with_either_apostrophe_and_configurable() {
    let w = World::new();
    let run = w.run(None, None);
    for words in [
        "I’ll check the plan.",
        "FIRST, I'LL look it up.",
        "ok—let me.",
    ] {
        assert_eq!(
            kinds(&audit_run(&run, &[reply(1, words)])),
            vec![(FindingKind::AnnouncedNoCall, 1)],
            "{words}"
        );
    }
    let mut w = World::new();
    w.announce = Announce::new(&["on it", " "], &[]);
    let run = w.run(None, None);
    assert_eq!(audit_run(&run, &[reply(1, "Let me search.")]), vec![]);
    assert_eq!(
        shown(&audit_run(&run, &[reply(1, "Sure. On it!")]))[0].3,
        "the answer announces an action: \"On it!\"; no tool was called, so a harness loop takes it for the final answer"
    );
}

// ---- write_under_inform ---------------------------------------------------

#[test]
fn a_write_that_executed_under_an_inform_intent() {
    let w = World::new();
    let inform = w.run(None, Some(Intent::Inform));
    let mut unknown = call(3, "refund_invoice", json!({}), None);
    unknown.status = Some(Status::Unknown);
    let steps = [
        call(1, "find_customer", json!({"name": "x"}), None),
        call(2, "cancel_subscription", json!({}), None),
        unknown,
        refused(
            call(4, "cancel_subscription", json!({"when": "now"}), None),
            "outside_intent",
        ),
    ];
    assert_eq!(
        shown(&audit_run(&inform, &steps)),
        vec![
            (
                FindingKind::WriteUnderInform,
                2,
                Some("cancel_subscription"),
                "cancel_subscription (mutating) executed (ok) in a run whose intent is inform: an inform request changes nothing".to_string()
            ),
            (
                FindingKind::WriteUnderInform,
                3,
                Some("refund_invoice"),
                "refund_invoice (destructive) executed (outcome unknown) in a run whose intent is inform: an inform request changes nothing".to_string()
            ),
        ]
    );
    for intent in [None, Some(Intent::Act), Some(Intent::Prepare)] {
        assert_eq!(audit_run(&w.run(None, intent), &steps), vec![]);
    }
}

// ---- menu_changed ---------------------------------------------------------

fn with_menu(mut s: AuditStep<'static>, visible: &[&str]) -> AuditStep<'static> {
    s.menu.visible = Some(names(visible));
    s
}

#[test]
fn a_menu_that_changes_only_in_order_has_not_changed() {
    let w = World::new();
    let run = w.run(None, None);
    let steps = [
        with_menu(
            call(1, "find_customer", json!({"a": 1}), None),
            &["a", "b", "find_customer"],
        ),
        with_menu(
            call(2, "find_customer", json!({"a": 2}), None),
            &["find_customer", "b", "a"],
        ),
        // No menu known: not compared.
        call(3, "find_customer", json!({"a": 3}), None),
    ];
    assert_eq!(audit_run(&run, &steps), vec![]);
}

#[test]
fn a_menu_that_changes_mid_run_is_one_finding_at_its_first_change() {
    let w = World::new();
    let run = w.run(None, None);
    let steps = [
        with_menu(reply(1, "ok"), &["a", "b"]),
        reply(2, "no menu here"),
        with_menu(reply(3, "ok"), &["c", "a", "b", "d"]),
        with_menu(reply(4, "ok"), &["a", "b", "c", "d"]),
        with_menu(reply(5, "ok"), &["a"]),
    ];
    assert_eq!(
        shown(&audit_run(&run, &steps)),
        vec![(
            FindingKind::MenuChanged,
            3,
            None,
            "the visible menu changed 2 times within the run; first here, after step 1: added c, d"
                .to_string()
        )]
    );
    // A phase boundary is said: its own policy changed the menu.
    let mut modify = with_menu(reply(2, "ok"), &["a", "edit"]);
    modify.phase = Some("modify");
    let mut discover = with_menu(reply(1, "ok"), &["a"]);
    discover.phase = Some("discover");
    assert_eq!(
        shown(&audit_run(&run, &[discover, modify]))[0].3,
        "the visible menu changed once within the run; first here, after step 1 (the phase changed from discover to modify): added edit"
    );
    let many: Vec<String> = (0..13).map(|i| format!("t{i:02}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let steps = [
        with_menu(reply(1, "ok"), &many),
        with_menu(reply(2, "ok"), &["x"]),
    ];
    assert_eq!(
        shown(&audit_run(&run, &steps))[0].3,
        "the visible menu changed once within the run; first here, after step 1: added x; removed t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, and 3 more"
    );
}

// ---- repeated_call --------------------------------------------------------

#[test]
fn the_same_call_again_after_it_succeeded() {
    let w = World::new();
    let run = w.run(None, None);
    let steps = [
        call(
            1,
            "get_plan",
            json!({"id": 1, "opts": {"a": true, "b": [1, 2]}}),
            None,
        ),
        call(2, "get_plan", json!({"id": 2}), None),
        call(
            3,
            "get_plan",
            json!({"opts": {"b": [1.0, 2], "a": true}, "id": 1.0}),
            None,
        ),
    ];
    assert_eq!(
        shown(&audit_run(&run, &steps)),
        vec![(
            FindingKind::RepeatedCall,
            3,
            Some("get_plan"),
            "get_plan was called again with the same arguments as step 1, which succeeded; nothing executed in between could have changed the answer".to_string()
        )]
    );
}

#[test]
fn a_repeat_after_a_final_refusal_but_not_after_a_retryable_error() {
    let w = World::new();
    let run = w.run(None, None);
    let args = || json!({"invoice_id": "in_1"});
    let mut retryable = call(1, "get_invoice", args(), None);
    retryable.status = Some(Status::Error);
    retryable.retryable = Some(true);
    let mut unknown = call(1, "get_invoice", args(), None);
    unknown.status = Some(Status::Unknown);
    let mut no_outcome = call(1, "get_invoice", args(), None);
    no_outcome.status = None;
    for first in [retryable, unknown, no_outcome] {
        let steps = [first, call(2, "get_invoice", args(), None)];
        assert_eq!(audit_run(&run, &steps), vec![], "{:?}", steps[0].status);
    }
    let steps = [
        refused(call(1, "get_invoice", args(), None), "not_found"),
        call(2, "get_invoice", args(), None),
    ];
    assert_eq!(
        shown(&audit_run(&run, &steps))[0].3,
        "get_invoice was called again with the same arguments as step 1, which was refused (semantics) with retryable: false; nothing executed in between could have changed the answer"
    );
}

#[test]
fn a_write_in_between_or_the_same_turn_is_not_a_repeat() {
    let w = World::new();
    let run = w.run(None, None);
    let refund = || json!({"invoice_id": "in_3101", "amount_rule": "unused_days"});
    // Refused "cancel first", cancelled, the same refund again: right.
    let steps = [
        refused(
            call(1, "refund_invoice", refund(), None),
            "subscription_still_active",
        ),
        call(
            2,
            "cancel_subscription",
            json!({"subscription_id": "sub_31"}),
            None,
        ),
        call(3, "refund_invoice", refund(), None),
    ];
    assert_eq!(
        kinds(&audit_run(&run, &steps))
            .into_iter()
            .filter(|k| k.0 == FindingKind::RepeatedCall)
            .count(),
        0
    );
    // Previewed, the apply refused because the case changed meanwhile,
    // previewed again: the conflict said the answer was stale.
    let preview = || json!({"caseId": "OPS-1042", "nextStatus": "resolved"});
    let steps = [
        call(1, "get_preview", preview(), None),
        refused(
            call(2, "cancel_case", json!({"proposalId": "p1"}), None),
            "case_version_conflict",
        ),
        call(3, "get_preview", preview(), None),
    ];
    assert_eq!(
        kinds(&audit_run(&run, &steps))
            .into_iter()
            .filter(|k| k.0 == FindingKind::RepeatedCall)
            .count(),
        0
    );
    // "Search this account's tickets first": refused at PRECONDITION, the
    // search, then the same call again is what the refusal asked for.
    let ticket = || json!({"accountId": "3318", "subject": "Card declined"});
    let steps = [
        refused(call(1, "open_ticket", ticket(), None), "precondition"),
        call(2, "search_tickets", json!({"accountId": "3318"}), None),
        call(3, "open_ticket", ticket(), None),
    ];
    assert_eq!(audit_run(&run, &steps), vec![]);
    // A read in between does not change a refusal at another stage.
    let steps = [
        refused(
            call(1, "get_invoice", json!({"id": "in_9"}), None),
            "not_found",
        ),
        call(2, "find_tickets", json!({"accountId": "3318"}), None),
        call(3, "get_invoice", json!({"id": "in_9"}), None),
    ];
    assert_eq!(
        kinds(&audit_run(&run, &steps)),
        vec![(FindingKind::RepeatedCall, 3)]
    );
    // Two equal calls in one turn were made together.
    let mut a = call(1, "get_plan", json!({"id": 1}), None);
    let mut b = call(2, "get_plan", json!({"id": 1}), None);
    a.turn = 1;
    b.turn = 1;
    assert_eq!(audit_run(&run, &[a, b]), vec![]);
    // A tool of unknown effect may have changed things (a coding agent's
    // edit between two runs of the same test command).
    let steps = [
        call(1, "bash", json!({"command": "python reproduce.py"}), None),
        call(2, "edit", json!({"path": "a.py"}), None),
        call(3, "bash", json!({"command": "python reproduce.py"}), None),
    ];
    assert_eq!(audit_run(&run, &steps), vec![]);
    // A write repeated after it succeeded is a repeat (nothing in between).
    let steps = [
        call(
            1,
            "cancel_subscription",
            json!({"subscription_id": "sub_31"}),
            None,
        ),
        call(
            2,
            "cancel_subscription",
            json!({"subscription_id": "sub_31"}),
            None,
        ),
    ];
    assert_eq!(
        kinds(&audit_run(&run, &steps))
            .into_iter()
            .filter(|k| k.0 == FindingKind::RepeatedCall)
            .collect::<Vec<_>>(),
        vec![(FindingKind::RepeatedCall, 2)]
    );
}

#[test]
fn findings_come_in_decision_order_then_kind() {
    let w = World::new();
    let run = w.run(Some("Inform me"), Some(Intent::Inform));
    let steps = [
        with_menu(
            call(
                1,
                "cancel_subscription",
                json!({"subscription_id": "sub_1"}),
                None,
            ),
            &["cancel_subscription"],
        ),
        with_menu(
            call(
                2,
                "cancel_subscription",
                json!({"subscription_id": "sub_1"}),
                None,
            ),
            &["cancel_subscription", "x"],
        ),
    ];
    assert_eq!(
        kinds(&audit_run(&run, &steps)),
        vec![
            (FindingKind::UnsourcedId, 1),
            (FindingKind::WriteUnderInform, 1),
            (FindingKind::UnsourcedId, 2),
            (FindingKind::WriteUnderInform, 2),
            (FindingKind::MenuChanged, 2),
            (FindingKind::RepeatedCall, 2),
        ]
    );
}
