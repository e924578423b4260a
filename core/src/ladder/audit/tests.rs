//! The six audit findings on hand-made runs, with their near misses.

use serde_json::{Value, json};

use super::*;
use crate::ladder::effects::{EffectRules, RecordedEffects};
use crate::ladder::{CatalogueView, ToolInfo};

/// A value that lives as long as the test (steps borrow their payloads).
fn v(x: Value) -> &'static Value {
    Box::leak(Box::new(x))
}

fn names(v: &[&str]) -> &'static [String] {
    Box::leak(
        v.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

/// The billing tools: lookups read-only, the rest writes (from the
/// configuration's `[effects]`); nothing recorded.
struct World {
    rules: EffectRules,
    recorded: RecordedEffects,
    reasons: ReasonTable,
    announce: Announce,
    definitions: Vec<ToolDoc>,
}

impl World {
    fn new() -> World {
        World {
            rules: EffectRules::new([
                ("find_*", Effect::ReadOnly),
                ("list_*", Effect::ReadOnly),
                ("get_*", Effect::ReadOnly),
                ("cancel_*", Effect::Mutating),
                ("refund_*", Effect::Destructive),
            ]),
            recorded: RecordedEffects::default(),
            reasons: ReasonTable::default(),
            announce: Announce::default(),
            definitions: Vec::new(),
        }
    }

    fn run<'a>(&'a self, goal: Option<&'a str>, intent: Option<Intent>) -> AuditRun<'a> {
        AuditRun {
            goal,
            scope: None,
            intent,
            effects: Effects {
                rules: &self.rules,
                recorded: &self.recorded,
            },
            definitions: &self.definitions,
            reasons: &self.reasons,
            announce: &self.announce,
        }
    }
}

/// An `ok` call at step `n` (turn `n`) with its arguments and result.
fn call(n: i64, tool: &'static str, args: Value, result: Option<Value>) -> AuditStep<'static> {
    AuditStep {
        step: n,
        turn: n,
        phase: None,
        menu: Menu::default(),
        docs: &[],
        selected: Some(tool),
        status: Some(Status::Ok),
        stage: None,
        reason: None,
        retryable: None,
        arguments: Some(v(args)),
        result: result.map(v),
        text: None,
        raw: None,
    }
}

/// A reply without a call at step `n`, its words in `raw`.
fn reply(n: i64, words: &str) -> AuditStep<'static> {
    AuditStep {
        step: n,
        turn: n,
        phase: None,
        menu: Menu::default(),
        docs: &[],
        selected: None,
        status: Some(Status::NotRun),
        stage: None,
        reason: None,
        retryable: None,
        arguments: None,
        result: None,
        text: None,
        raw: Some(v(json!(words))),
    }
}

fn refused(mut s: AuditStep<'static>, reason: &'static str) -> AuditStep<'static> {
    s.status = Some(Status::Refused);
    s.reason = Some(reason);
    s.retryable = Some(false);
    s
}

/// (kind, step, tool, detail) of each finding, the detail unmasked.
fn shown(found: &[AuditFinding]) -> Vec<(FindingKind, i64, Option<&str>, String)> {
    found
        .iter()
        .map(|f| {
            (
                f.kind,
                f.step,
                f.tool.as_deref(),
                f.detail(&|s| s.to_string()),
            )
        })
        .collect()
}

fn kinds(found: &[AuditFinding]) -> Vec<(FindingKind, i64)> {
    found.iter().map(|f| (f.kind, f.step)).collect()
}

// ---- identifiers ----------------------------------------------------------

#[test]
fn prefixed_identifiers_and_identifier_keys() {
    for yes in [
        "sub_31",
        "in_3101",
        "ORD-1234",
        "cus_3Nw8",
        "invoice_12345",
        "a_1",
    ] {
        assert!(is_prefixed_id(yes), "{yes}");
    }
    for no in [
        "2026-09-30",
        "$150.00",
        "read_only",
        "sub_",
        "_31",
        "sub_31_a",
        "sub 31",
        "31_sub",
        "période_1",
        "sub_3.1",
    ] {
        assert!(!is_prefixed_id(no), "{no}");
    }
    for yes in [
        "id",
        "subscription_id",
        "customerId",
        "invoice_ids",
        "userIds",
    ] {
        assert!(is_id_key(yes), "{yes}");
    }
    for no in ["paid", "valid", "identity", "ids", "ID"] {
        assert!(!is_id_key(no), "{no}");
    }
    let found = identifiers(&json!({
        "subscription_id": "Pinecrest Physio",
        "invoice_ids": ["in_1", "in_2", 7],
        "amount": "150.00",
        "when": "2026-09-30",
        "note": "refund sub_9 too",
        "items": [{"id": "x"}, {"sku": "SKU-77"}],
        "again": "in_1",
        "empty_id": " "
    }));
    let got: Vec<(&str, &str)> = found
        .iter()
        .map(|a| (a.path.as_str(), a.value.as_str()))
        .collect();
    // serde_json keeps keys sorted: again, amount, empty_id, invoice_ids, ...
    assert_eq!(
        got,
        vec![
            ("again", "in_1"),
            ("invoice_ids[1]", "in_2"),
            ("items[0].id", "x"),
            ("items[1].sku", "SKU-77"),
            ("subscription_id", "Pinecrest Physio"),
        ]
    );
}

#[test]
fn a_value_occurs_only_as_a_whole_token() {
    assert!(contains_token("cancel sub_31 now", "sub_31"));
    assert!(contains_token("sub_31", "sub_31"));
    assert!(contains_token("(\"sub_31\")", "sub_31"));
    assert!(!contains_token("sub_312", "sub_31"));
    assert!(!contains_token("xsub_31", "sub_31"));
    assert!(!contains_token("sub_31", "sub_3"));
    // A later occurrence counts when an earlier one touches a word.
    assert!(contains_token("sub_312 and sub_31.", "sub_31"));
    assert!(contains_token("Pinecrest Physio wants", "Pinecrest Physio"));
    assert!(!contains_token("", "x"));
    assert!(!contains_token("x", ""));
    assert!(value_mentions(
        &json!({"subs": [{"id": "sub_31"}]}),
        "sub_31"
    ));
    assert!(value_mentions(&json!({"sub_31": true}), "sub_31"));
    assert!(value_mentions(&json!([12345]), "12345"));
    assert!(!value_mentions(&json!({"id": "sub_311"}), "sub_31"));
}

// ---- unsourced_id and id_from_description ---------------------------------

fn billing_c() -> (&'static CatalogueView, &'static [ToolDoc]) {
    let mut cat = CatalogueView {
        version: "billing-C".into(),
        ..CatalogueView::default()
    };
    let info = |effect| ToolInfo {
        family: "billing".into(),
        effect,
        open_world: false,
        idempotent: true,
        tokens: 0,
    };
    cat.tools
        .insert("find_customer".into(), info(Effect::ReadOnly));
    cat.tools
        .insert("list_subscriptions".into(), info(Effect::ReadOnly));
    cat.tools
        .insert("cancel_subscription".into(), info(Effect::Mutating));
    let docs = vec![
        ToolDoc::from_record(&json!({
            "name": "cancel_subscription",
            "description": "Cancels one subscription. subscription_id comes from list_subscriptions, like sub_31.",
            "input_schema": {"type": "object", "properties": {"subscription_id": {"type": "string"}}}
        }))
        .unwrap(),
        ToolDoc::from_record(&json!({
            "name": "find_customer",
            "description": "Looks customers up by name.",
            "avoid_when": ["you already have cus_1234"]
        }))
        .unwrap(),
    ];
    (Box::leak(Box::new(cat)), Box::leak(docs.into_boxed_slice()))
}

fn on_c(mut s: AuditStep<'static>) -> AuditStep<'static> {
    let (cat, docs) = billing_c();
    s.menu = Menu {
        catalogue: Some(cat),
        ..Menu::default()
    };
    s.docs = docs;
    s
}

#[test]
fn a_write_with_an_id_no_lookup_returned_is_unsourced_and_copied_from_the_description() {
    // Brightdesk C, "cancel Pinecrest Physio at the end of the period": the
    // model writes sub_31, Northwind's subscription, from the description.
    let w = World::new();
    let run = w.run(
        Some("Pinecrest Physio wants to stop at the end of this billing period."),
        Some(Intent::Act),
    );
    let steps = [
        on_c(call(
            1,
            "cancel_subscription",
            json!({"subscription_id": "sub_31", "when": "period_end"}),
            Some(json!({"ok": true, "subscription_id": "sub_31", "customer": "Northwind Dental"})),
        )),
        on_c(reply(
            2,
            "Pinecrest Physio's subscription will end on 2026-09-30.",
        )),
    ];
    assert_eq!(
        shown(&audit_run(&run, &steps)),
        vec![
            (
                FindingKind::UnsourcedId,
                1,
                Some("cancel_subscription"),
                "cancel_subscription (mutating) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: subscription_id = \"sub_31\" (never seen earlier in the run); executed (ok)".to_string()
            ),
            (
                FindingKind::IdFromDescription,
                1,
                Some("cancel_subscription"),
                "subscription_id = \"sub_31\" appears in the description of cancel_subscription (catalogue billing-C): the model copied an example from a tool's documents instead of looking the id up".to_string()
            ),
        ]
    );
}

#[test]
fn an_id_in_the_goal_is_not_unsourced() {
    let w = World::new();
    let run = w.run(Some("Please cancel sub_77 today."), None);
    let steps = [call(
        1,
        "cancel_subscription",
        json!({"subscription_id": "sub_77"}),
        None,
    )];
    assert_eq!(audit_run(&run, &steps), vec![]);
    // A goal holding a longer id does not source a shorter one.
    let run = w.run(Some("Please cancel sub_777 today."), None);
    assert_eq!(
        kinds(&audit_run(&run, &steps)),
        vec![(FindingKind::UnsourcedId, 1)]
    );
}

#[test]
fn an_id_in_the_scope_the_session_is_locked_to_is_not_unsourced() {
    // Atlas: the session is locked to account 3318; the ticket names it.
    let w = World::new();
    let mut run = w.run(Some("Orbit Freight's card was declined twice."), None);
    let steps = [call(1, "cancel_ticket", json!({"accountId": "3318"}), None)];
    assert_eq!(
        kinds(&audit_run(&run, &steps)),
        vec![(FindingKind::UnsourcedId, 1)]
    );
    run.scope = Some("3318");
    assert_eq!(audit_run(&run, &steps), vec![]);
}

#[test]
fn an_id_from_a_result_two_steps_earlier_is_not_unsourced() {
    // Northwind, looked up first: find_customer, list_subscriptions, a
    // word to the user, then the cancel with the id the listing returned.
    let w = World::new();
    let run = w.run(Some("Northwind Dental is cancelling today."), None);
    let steps = [
        on_c(call(
            1,
            "find_customer",
            json!({"name_or_email": "Northwind Dental"}),
            Some(json!({"matches": [{"customer_id": "cus_3Nw8"}]})),
        )),
        on_c(call(
            2,
            "list_subscriptions",
            json!({"customer_id": "cus_3Nw8"}),
            Some(json!({"subscriptions": [{"subscription_id": "sub_31"}]})),
        )),
        on_c(reply(3, "Found the plan.")),
        on_c(call(
            4,
            "cancel_subscription",
            json!({"subscription_id": "sub_31", "when": "now"}),
            Some(json!({"ok": true})),
        )),
    ];
    assert_eq!(audit_run(&run, &steps), vec![]);
}

#[test]
fn an_id_a_lookup_found_earlier_is_not_unsourced() {
    // τ-bench: the user gives their id in the conversation, a lookup finds
    // them with it, the booking carries it.
    let w = World::new();
    let run = w.run(None, None);
    let book = || call(3, "cancel_booking", json!({"user_id": "mia_li_3668"}), None);
    let lookup = || {
        call(
            1,
            "get_user_details",
            json!({"user_id": "mia_li_3668"}),
            Some(json!({"name": "Mia Li", "reservations": ["NQNU5R"]})),
        )
    };
    assert_eq!(audit_run(&run, &[lookup(), book()]), vec![]);
    // A lookup that failed found nothing; a write's arguments source
    // nothing either.
    let mut failed = lookup();
    failed.status = Some(Status::Error);
    assert_eq!(
        kinds(&audit_run(&run, &[failed, book()])),
        vec![(FindingKind::UnsourcedId, 3)]
    );
    let write = call(1, "cancel_other", json!({"user_id": "mia_li_3668"}), None);
    assert_eq!(
        kinds(&audit_run(&run, &[write, book()])),
        vec![(FindingKind::UnsourcedId, 1), (FindingKind::UnsourcedId, 3)]
    );
}

#[test]
fn a_read_tool_is_never_unsourced_nor_a_tool_of_unknown_effect() {
    let w = World::new();
    let run = w.run(None, None);
    let steps = [
        call(
            1,
            "get_subscription",
            json!({"subscription_id": "sub_99"}),
            None,
        ),
        call(2, "transfer_to_human", json!({"ticket_id": "T-100"}), None),
    ];
    assert_eq!(audit_run(&run, &steps), vec![]);
}

#[test]
fn its_own_result_or_a_later_one_does_not_source_an_id_and_the_detail_says_where_it_was_seen() {
    let w = World::new();
    let run = w.run(None, None);
    let steps = [
        call(
            1,
            "find_customer",
            json!({"name": "Quarry"}),
            Some(json!({"id": "cus_6Qc5"})),
        ),
        // The model mentions in_6102 in words, then refunds it: no result
        // ever returned it, and the refund is refused.
        reply(2, "I'll refund in_6102."),
        refused(
            call(
                3,
                "refund_invoice",
                json!({"invoice_id": "in_6102", "customer_id": "cus_6Qc5"}),
                Some(json!({"error": "no such invoice"})),
            ),
            "invoice_not_found",
        ),
        call(4, "refund_invoice", json!({"invoice_id": "in_6102"}), None),
        call(
            5,
            "get_invoice",
            json!({"invoice_id": "in_6102"}),
            Some(json!({"id": "in_6102"})),
        ),
    ];
    let found = audit_run(&run, &steps);
    let unsourced: Vec<_> = shown(&found)
        .into_iter()
        .filter(|f| f.0 == FindingKind::UnsourcedId)
        .collect();
    assert_eq!(
        unsourced,
        vec![
            (
                FindingKind::UnsourcedId,
                3,
                Some("refund_invoice"),
                "refund_invoice (destructive) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: invoice_id = \"in_6102\" (last seen in the answer of step 2); refused (semantics)".to_string()
            ),
            (
                FindingKind::UnsourcedId,
                4,
                Some("refund_invoice"),
                "refund_invoice (destructive) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: invoice_id = \"in_6102\" (last seen in the arguments of step 3 (refund_invoice)); executed (ok)".to_string()
            ),
        ]
    );
}

#[test]
fn id_from_description_looks_at_hints_schemas_and_recorded_definitions_of_visible_tools() {
    let mut w = World::new();
    // close_ticket is a write by its MCP annotations (effects, §3).
    let defs = json!([
        {"type": "function", "function": {"name": "close_ticket",
            "annotations": {"destructiveHint": true},
            "parameters": {"properties": {"ticket_id": {"examples": ["T-4242"]}}}}},
        {"name": "other", "inputSchema": {"description": "no ids"}}
    ]);
    w.definitions = ToolDoc::from_definitions(&defs);
    w.recorded = RecordedEffects::from_definitions(&defs);
    let run = w.run(None, None);
    let steps = [
        on_c(call(
            1,
            "cancel_subscription",
            json!({"customer_id": "cus_1234"}),
            None,
        )),
        call(2, "close_ticket", json!({"ticket_id": "T-4242"}), None),
    ];
    let found: Vec<_> = shown(&audit_run(&run, &steps))
        .into_iter()
        .filter(|f| f.0 == FindingKind::IdFromDescription)
        .map(|f| (f.1, f.3))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, "customer_id = \"cus_1234\" appears in the avoid_when hints of find_customer (catalogue billing-C): the model copied an example from a tool's documents instead of looking the id up".to_string()),
            (2, "ticket_id = \"T-4242\" appears in the input schema of close_ticket (the run's tool definitions): the model copied an example from a tool's documents instead of looking the id up".to_string()),
        ]
    );
    // A catalogue tool the menu hid was not read.
    let mut hidden = on_c(call(
        1,
        "cancel_subscription",
        json!({"customer_id": "cus_1234"}),
        None,
    ));
    hidden.menu.visible = Some(names(&["cancel_subscription", "list_subscriptions"]));
    assert_eq!(
        kinds(&audit_run(&run, &[hidden])),
        vec![(FindingKind::UnsourcedId, 1)]
    );
}

#[test]
fn values_in_details_are_masked_escaped_and_cut() {
    let w = World::new();
    let run = w.run(None, None);
    let long = format!("sk-{}\u{1b}[2J", "x".repeat(200));
    let steps = [call(
        1,
        "cancel_subscription",
        json!({"subscription_id": long}),
        None,
    )];
    let found = audit_run(&run, &steps);
    let detail = found[0].detail(&|s: &str| s.replace("sk-", "[MASKED]-"));
    assert!(
        detail.contains("subscription_id = \"[MASKED]-xxxx"),
        "{detail}"
    );
    assert!(!detail.contains('\u{1b}'), "{detail}");
    let quoted = detail
        .split(" = ")
        .nth(1)
        .unwrap()
        .split(" (never")
        .next()
        .unwrap();
    assert_eq!(quoted.chars().count(), 121, "{quoted}");
    assert!(quoted.ends_with('…'));
}

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
