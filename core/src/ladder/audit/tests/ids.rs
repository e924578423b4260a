//! unsourced_id and id_from_description, and the identifiers they look at.

use super::*;

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

pub(super) fn on_c(mut s: AuditStep<'static>) -> AuditStep<'static> {
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
    let book = || call(3, "cancel_booking", json!({"user_id": "noa_ek_5521"}), None);
    let lookup = || {
        call(
            1,
            "get_user_details",
            json!({"user_id": "noa_ek_5521"}),
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
    let write = call(1, "cancel_other", json!({"user_id": "noa_ek_5521"}), None);
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
