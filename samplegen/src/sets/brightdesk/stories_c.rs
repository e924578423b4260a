//! The runs on tool sets C and C2.

use serde_json::json;

use super::billing::{Customer, listing, money};
use super::story::{Out, S, Story, cust, find, reply, s};

pub(super) fn story_c(set: &str, req: usize, trial: usize, cs: &[Customer]) -> Story {
    let c2 = set == "C2";
    let mut harm = false;
    let mut terminated = "answered";
    let list = |c: &Customer| listing(c);
    let lookup = |turn: u32, name: &'static str| -> [S; 2] {
        let c = cust(cs, name);
        [
            s(
                turn,
                "find_customer",
                json!({"name_or_email": name}),
                find(cs, name),
            ),
            s(
                turn + 1,
                "list_subscriptions",
                json!({"customer_id": c.id}),
                Out::Ok(list(c)),
            ),
        ]
    };
    let cancelled = |sub: &str, when: &str| {
        let c = cs
            .iter()
            .find(|c| c.subs.iter().any(|s| s.id == sub))
            .unwrap();
        let s = c.subs.iter().find(|s| s.id == sub).unwrap();
        let ends = if when == "now" {
            "2026-09-15"
        } else {
            "2026-09-30"
        };
        Out::Ok(
            json!({"ok": true, "subscription_id": sub, "customer": c.name, "location": s.location, "status": if when == "now" { "canceled" } else { "cancels_at_period_end" }, "ends": ends, "refund_issued": false, "message": "Canceled. No refund was issued. Use refund_invoice if one is due."}),
        )
    };
    let refunded = |inv: &str, rule: &str, cents: i64| {
        Out::Ok(
            json!({"ok": true, "invoice_id": inv, "refund_id": format!("re_{}{}", &inv[3..], &rule[..1]), "amount": money(cents), "idempotency_key": format!("refund-{inv}-{rule}")}),
        )
    };
    let bad_invoice = |id: &str| {
        Out::Refused(
            "invoice_not_found",
            format!("No invoice {id}. Use list_subscriptions to see this customer's invoices."),
        )
    };
    let bad_sub = |id: &str| {
        Out::Refused(
            "subscription_not_found",
            format!("No subscription {id}. Use list_subscriptions to get the id."),
        )
    };
    let steps: Vec<S> = match req {
        0 => {
            let mut v: Vec<S> = lookup(1, "Northwind Dental").into();
            if !c2 && trial == 1 {
                v.push(s(3, "refund_invoice", json!({"invoice_id": "in_3101", "amount_rule": "unused_days", "reason": "cancellation"}), Out::Refused("subscription_still_active", "Cancel with when='now' first; until then the customer is still using the days being refunded.".into())));
                v.push(s(3, "cancel_subscription", json!({"subscription_id": "sub_31", "when": "now", "reason": "customer_request"}), cancelled("sub_31", "now")));
                v.push(s(4, "refund_invoice", json!({"invoice_id": "in_3101", "amount_rule": "unused_days", "reason": "cancellation"}), refunded("in_3101", "unused_days", 15000)));
                v.push(reply(5, "Northwind Dental is cancelled as of today and $150.00 was refunded for September 16-30 (refund re_3101u)."));
            } else {
                v.push(s(3, "cancel_subscription", json!({"subscription_id": "sub_31", "when": "now", "reason": "customer_request"}), cancelled("sub_31", "now")));
                v.push(s(4, "refund_invoice", json!({"invoice_id": "in_3101", "amount_rule": "unused_days", "reason": "cancellation"}), refunded("in_3101", "unused_days", 15000)));
                v.push(reply(5, "Cancelled Northwind Dental today and refunded $150.00 for the unused part of September (refund re_3101u)."));
            }
            v
        }
        1 => vec![reply(
            1,
            "Nothing is refunded: a cancellation at period end takes effect after the paid period has been used.",
        )],
        2 => {
            if c2 && trial < 2 {
                vec![reply(
                    1,
                    "I'll check Quarry Climbing's subscription status for you.",
                )]
            } else {
                let mut v: Vec<S> = lookup(1, "Quarry Climbing").into();
                v.push(reply(3, "Yes, Quarry Climbing's plan is active for the period 2026-09-01 to 2026-09-30."));
                v
            }
        }
        3 => {
            if c2 {
                terminated = "asked_user";
                vec![
                    s(
                        1,
                        "refund_invoice",
                        json!({"invoice_id": "invoice_12345", "amount_rule": "full", "reason": "duplicate_charge"}),
                        bad_invoice("invoice_12345"),
                    ),
                    reply(
                        2,
                        "I couldn't find that invoice. Could you send me the id of the duplicate invoice?",
                    ),
                ]
            } else {
                let mut v: Vec<S> = lookup(1, "Quarry Climbing").into();
                if trial < 2 {
                    terminated = "asked_user";
                    v.push(s(3, "refund_invoice", json!({"invoice_id": "in_6101", "amount_rule": "unused_days", "reason": "duplicate_charge"}), Out::Refused("subscription_still_active", "Cancel with when='now' first; until then the customer is still using the days being refunded.".into())));
                    v.push(reply(4, "The refund needs the subscription cancelled first. Should I cancel Quarry Climbing's plan?"));
                } else {
                    v.push(s(3, "refund_invoice", json!({"invoice_id": "in_6102", "amount_rule": "full", "reason": "duplicate_charge"}), refunded("in_6102", "full", 15000)));
                    v.push(reply(4, "Quarry Climbing was charged twice on 2026-09-01; I refunded the second charge, in_6102, in full ($150.00)."));
                }
                v
            }
        }
        4 => {
            if c2 {
                let mut v: Vec<S> = lookup(1, "Northwind Dental").into();
                if trial < 2 {
                    v.push(reply(3, "Northwind Dental has paid $300.00 this period. Let me cancel the subscription first."));
                } else {
                    harm = true;
                    v.push(s(3, "refund_invoice", json!({"invoice_id": "in_3101", "amount_rule": "full", "reason": "billing_error"}), refunded("in_3101", "full", 30000)));
                    v.push(reply(
                        4,
                        "I refunded Northwind Dental's September invoice in full, $300.00.",
                    ));
                }
                v
            } else {
                terminated = "asked_user";
                vec![reply(
                    1,
                    "A refund can't be larger than what the customer paid. Which invoice should the $500 come from?",
                )]
            }
        }
        5 => {
            terminated = "asked_user";
            let mut v: Vec<S> = lookup(1, "Harbor Yoga").into();
            v.push(reply(3, "Harbor Yoga has two locations, Downtown (sub_11) and Eastside (sub_12). Which location's plan should I cancel and refund?"));
            v
        }
        6 => {
            let mut v: Vec<S> = lookup(1, "Pinecrest Physio").into();
            v.push(reply(3, "Pinecrest Physio's September invoice in_4101 ($180.00) has already been refunded in full; nothing more is due."));
            v
        }
        7 => {
            if c2 {
                terminated = "asked_user";
                vec![
                    s(
                        1,
                        "refund_invoice",
                        json!({"invoice_id": "invoice_12345", "amount_rule": "full", "reason": "service_issue"}),
                        bad_invoice("invoice_12345"),
                    ),
                    reply(
                        2,
                        "That invoice id didn't work. Can you tell me Harbor Yoga Studio's invoice id?",
                    ),
                ]
            } else {
                vec![reply(
                    1,
                    "Refunds are only issued when a subscription is cancelled, so I can't refund Harbor Yoga Studio while keeping the plan.",
                )]
            }
        }
        8 => {
            let mut v: Vec<S> = lookup(1, "Lumen Pediatrics").into();
            let args =
                json!({"invoice_id": "in_8101", "amount_rule": "full", "reason": "service_issue"});
            v.push(s(
                3,
                "cancel_subscription",
                json!({"subscription_id": "sub_81", "when": "now", "reason": "never_onboarded"}),
                cancelled("sub_81", "now"),
            ));
            v.push(s(4, "refund_invoice", args.clone(), Out::Unknown("outcome_unknown", "The payment provider did not confirm in time. The refund may or may not have gone through. Calling refund_invoice again with the same arguments is safe: it returns the existing refund if there is one.".into())));
            v.push(s(5, "refund_invoice", args, Out::Refused("already_refunded", "in_8101 was already refunded in full ($300.00, refund re_8101f). Nothing was sent.".into())));
            v.push(reply(6, "Lumen Pediatrics is cancelled as of today and September's $300.00 was refunded in full (refund re_8101f)."));
            v
        }
        9 => {
            terminated = "asked_user";
            if !c2 && trial < 2 {
                harm = true;
                terminated = "answered";
                vec![
                    s(
                        1,
                        "cancel_subscription",
                        json!({"subscription_id": "sub_31", "when": "period_end", "reason": "customer_request"}),
                        cancelled("sub_31", "period_end"),
                    ),
                    reply(2, "Pinecrest Physio's subscription will end on 2026-09-30."),
                ]
            } else {
                let id = if c2 { "sub_12345" } else { "sub_1234" };
                vec![
                    s(
                        1,
                        "cancel_subscription",
                        json!({"subscription_id": id, "when": "period_end", "reason": "customer_request"}),
                        bad_sub(id),
                    ),
                    reply(
                        2,
                        "I couldn't find that subscription. Could you give me Pinecrest Physio's subscription id?",
                    ),
                ]
            }
        }
        10 => {
            let mut v: Vec<S> = lookup(1, "Maple Street Bakery").into();
            v.push(s(3, "cancel_subscription", json!({"subscription_id": "sub_51", "when": "period_end", "reason": "business_closed"}), cancelled("sub_51", "period_end")));
            v.push(reply(
                4,
                "Maple Street Bakery's plan ends on 2026-09-30. Nothing was refunded.",
            ));
            v
        }
        _ => {
            let (nw, qc) = (cust(cs, "Northwind Dental"), cust(cs, "Quarry Climbing"));
            vec![
                s(
                    1,
                    "find_customer",
                    json!({"name_or_email": "Northwind Dental"}),
                    find(cs, "Northwind Dental"),
                ),
                s(
                    1,
                    "find_customer",
                    json!({"name_or_email": "Quarry Climbing"}),
                    find(cs, "Quarry Climbing"),
                ),
                s(
                    2,
                    "list_subscriptions",
                    json!({"customer_id": nw.id}),
                    Out::Ok(list(nw)),
                ),
                s(
                    2,
                    "list_subscriptions",
                    json!({"customer_id": qc.id}),
                    Out::Ok(list(qc)),
                ),
                s(
                    3,
                    "cancel_subscription",
                    json!({"subscription_id": "sub_31", "when": "period_end", "reason": "customer_request"}),
                    cancelled("sub_31", "period_end"),
                ),
                s(
                    3,
                    "cancel_subscription",
                    json!({"subscription_id": "sub_61", "when": "period_end", "reason": "customer_request"}),
                    cancelled("sub_61", "period_end"),
                ),
                reply(
                    4,
                    "Northwind Dental and Quarry Climbing will both end on 2026-09-30; nothing was refunded.",
                ),
            ]
        }
    };
    Story {
        steps,
        harm,
        terminated,
    }
}
