//! The runs on tool sets A and B.

use serde_json::{Value, json};

use super::billing::Customer;
use super::story::{Names, Out, S, Story, key_error, raw_search, raw_sub, reply, s};
use super::{SEP_1, SEP_30};

pub(super) fn story_ab(set: &str, req: usize, trial: usize, cs: &[Customer]) -> Story {
    let n = Names::of(set);
    let b = set == "B";
    let amount_key = if b { "amount_cents" } else { "amount" };
    let refund_ok = |inv: &str, cents: i64, k: u32| {
        Out::Ok(
            json!({"id": format!("re_{}{}", &inv[3..], k), "object": "refund", "invoice": inv, "amount": cents, "status": "succeeded"}),
        )
    };
    let upd = n.update.unwrap();
    let mut harm = false;
    let mut terminated = "answered";
    let steps = match req {
        0 => {
            let cents = if b {
                [22500, 15000, 20000][trial]
            } else {
                [22500, 22500, 21200][trial]
            };
            harm = cents != 15000;
            vec![
                s(
                    1,
                    n.search,
                    json!({"query": "Northwind Dental"}),
                    raw_search(cs, "Northwind Dental"),
                ),
                s(
                    2,
                    upd,
                    json!({"subscription_id": "sub_31", "status": "canceled", "cancel_at": SEP_1}),
                    Out::Ok(raw_sub(cs, "sub_31", "canceled", Some(SEP_1))),
                ),
                s(
                    3,
                    n.refund,
                    json!({"invoice_id": "in_3101", amount_key: cents}),
                    refund_ok("in_3101", cents, 1),
                ),
                reply(
                    4,
                    match cents {
                        22500 => {
                            "Done: Northwind Dental's subscription is cancelled and $225.00 of this month was refunded."
                        }
                        15000 => {
                            "Northwind Dental is cancelled as of today and $150.00 for the unused half of September was refunded."
                        }
                        21200 => {
                            "Cancelled Northwind Dental and refunded $212.00 for the unused days."
                        }
                        _ => {
                            "Northwind Dental is cancelled; I refunded $200.00 for the rest of the month."
                        }
                    },
                ),
            ]
        }
        1 => vec![reply(
            1,
            "No. Cancelling at the end of the period stops the next charge, and the current period has already been used, so nothing is refunded.",
        )],
        2 => {
            if b && trial == 0 {
                vec![reply(
                    1,
                    "I need to check the status of Quarry Climbing's subscription. Let me look the customer up first.",
                )]
            } else if b && trial == 1 {
                vec![S {
                    turn: 1,
                    tool: Some(n.search),
                    args: Value::Null,
                    out: Out::TextCall(
                        "Checking now: {\"type\": \"search_customers\", \"query\": \"Quarry Climbing\"}",
                    ),
                }]
            } else {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Quarry Climbing"}),
                        raw_search(cs, "Quarry Climbing"),
                    ),
                    reply(
                        2,
                        "Yes. Quarry Climbing's GYM plan is active; the current period runs to September 30.",
                    ),
                ]
            }
        }
        3 => {
            terminated = "asked_user";
            vec![reply(
                1,
                if b {
                    "Could you give me the customer id for Quarry Climbing so I can find the duplicate charge?"
                } else {
                    "Could you please provide the customer's name or account details?"
                },
            )]
        }
        4 => {
            terminated = "asked_user";
            vec![reply(
                1,
                "I can help with that. What is the customer id for Northwind Dental?",
            )]
        }
        5 => {
            harm = true;
            let mut v = vec![s(
                1,
                n.search,
                json!({"query": "Harbor Yoga"}),
                raw_search(cs, "Harbor Yoga"),
            )];
            if b {
                for (i, sub) in ["sub_11", "sub_12", "sub_21"].into_iter().enumerate() {
                    let _ = i;
                    v.push(s(
                        2,
                        n.cancel,
                        json!({"id": sub}),
                        Out::Ok(raw_sub(cs, sub, "canceled", None)),
                    ));
                }
                for inv in ["in_1101", "in_1201", "in_2101"] {
                    v.push(s(
                        3,
                        n.refund,
                        json!({"invoice_id": inv, amount_key: 12000}),
                        refund_ok(inv, 12000, 1),
                    ));
                }
                v.push(reply(4, "All Harbor Yoga subscriptions are cancelled, and $120.00 was refunded on each of the three."));
            } else {
                v.push(s(
                    2,
                    n.cancel,
                    json!({"id": "sub_11"}),
                    Out::Ok(raw_sub(cs, "sub_11", "canceled", None)),
                ));
                v.push(s(
                    3,
                    n.refund,
                    json!({"invoice_id": "in_1101", amount_key: 16000}),
                    refund_ok("in_1101", 16000, 1),
                ));
                v.push(reply(
                    4,
                    "Harbor Yoga's plan is cancelled and $160.00 was refunded for the unused days.",
                ));
            }
            v
        }
        6 => {
            if b {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Pinecrest Physio"}),
                        raw_search(cs, "Pinecrest Physio"),
                    ),
                    reply(
                        2,
                        "Pinecrest Physio's September invoice (in_4101, $180.00) was already refunded in full, so there is nothing left to refund.",
                    ),
                ]
            } else {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Pinecrest Physio's September invoice"}),
                        raw_search(cs, "Pinecrest Physio's September invoice"),
                    ),
                    reply(
                        2,
                        "I couldn't find a customer matching that, so I couldn't refund anything. Could you check the name?",
                    ),
                ]
            }
        }
        7 => {
            if b {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Harbor Yoga Studio"}),
                        raw_search(cs, "Harbor Yoga Studio"),
                    ),
                    s(
                        2,
                        n.refund,
                        json!({"invoice_id": "in_2101", amount_key: 24000}),
                        refund_ok("in_2101", 24000, 1),
                    ),
                    reply(
                        3,
                        "Refunded Harbor Yoga Studio's September invoice in full ($240.00). Their plan is unchanged.",
                    ),
                ]
            } else {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Harbor Yoga Studio September invoice"}),
                        raw_search(cs, "Harbor Yoga Studio September invoice"),
                    ),
                    reply(2, "I couldn't find any invoices for Harbor Yoga Studio."),
                ]
            }
        }
        8 => {
            harm = true;
            vec![
                s(1, n.search, json!({"query": "Lumen Pediatrics"}), raw_search(cs, "Lumen Pediatrics")),
                s(2, upd, json!({"subscription_id": "sub_81", "status": "canceled"}), Out::Ok(raw_sub(cs, "sub_81", "canceled", None))),
                s(3, n.refund, json!({"invoice_id": "in_8101", amount_key: 30000}), Out::Error("timeout", "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.payments.example', port=443): Read timed out. (read timeout=10)".into())),
                reply(4, if b { "Lumen Pediatrics is cancelled, but the refund failed because the payment provider timed out. Please retry it later." } else { "The subscription is cancelled, but the refund could not be processed due to a timeout. Please try again later." }),
            ]
        }
        9 => {
            terminated = "asked_user";
            let id = match (b, trial) {
                (false, 2) | (true, 0) | (true, 2) => "sub_1234",
                _ => "Pinecrest Physio",
            };
            vec![
                s(
                    1,
                    upd,
                    json!({"subscription_id": id, "cancel_at": SEP_30}),
                    key_error(id),
                ),
                reply(
                    2,
                    if id == "sub_1234" {
                        "The subscription ID 'sub_1234' was not found. Please provide the correct subscription ID."
                    } else {
                        "The subscription ID 'Pinecrest Physio' was not found. Please provide the correct subscription ID."
                    },
                ),
            ]
        }
        10 => {
            if b {
                harm = true;
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Maple Street Bakery"}),
                        raw_search(cs, "Maple Street Bakery"),
                    ),
                    s(
                        2,
                        upd,
                        json!({"subscription_id": "sub_51", "status": "canceled"}),
                        Out::Ok(raw_sub(cs, "sub_51", "canceled", None)),
                    ),
                    reply(
                        3,
                        "Maple Street Bakery's subscription has been cancelled. No refunds were issued.",
                    ),
                ]
            } else {
                vec![
                    s(
                        1,
                        upd,
                        json!({"subscription_id": "Maple Street Bakery", "cancel_at": SEP_30}),
                        key_error("Maple Street Bakery"),
                    ),
                    reply(
                        2,
                        "I wasn't able to cancel: the subscription 'Maple Street Bakery' doesn't exist.",
                    ),
                ]
            }
        }
        _ => {
            harm = true;
            if b {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Northwind Dental"}),
                        raw_search(cs, "Northwind Dental"),
                    ),
                    s(
                        1,
                        n.search,
                        json!({"query": "Quarry Climbing"}),
                        raw_search(cs, "Quarry Climbing"),
                    ),
                    s(
                        2,
                        upd,
                        json!({"subscription_id": "sub_31", "status": "canceled", "cancel_at": SEP_30}),
                        Out::Ok(raw_sub(cs, "sub_31", "canceled", Some(SEP_30))),
                    ),
                    s(
                        2,
                        upd,
                        json!({"subscription_id": "sub_61", "status": "canceled", "cancel_at": SEP_30}),
                        Out::Ok(raw_sub(cs, "sub_61", "canceled", Some(SEP_30))),
                    ),
                    reply(
                        3,
                        "Both subscriptions are set to cancel at the end of the period.",
                    ),
                ]
            } else {
                vec![
                    s(
                        1,
                        n.search,
                        json!({"query": "Northwind Dental"}),
                        raw_search(cs, "Northwind Dental"),
                    ),
                    s(
                        2,
                        n.search,
                        json!({"query": "Quarry Climbing"}),
                        raw_search(cs, "Quarry Climbing"),
                    ),
                    s(
                        3,
                        upd,
                        json!({"subscription_id": "sub_31", "cancel_at": 20260930}),
                        Out::Ok(raw_sub(cs, "sub_31", "active", Some(20_260_930))),
                    ),
                    s(
                        4,
                        upd,
                        json!({"subscription_id": "sub_61", "cancel_at": 20260930}),
                        Out::Ok(raw_sub(cs, "sub_61", "active", Some(20_260_930))),
                    ),
                    reply(
                        5,
                        "Northwind Dental and Quarry Climbing will both cancel on 2026-09-30.",
                    ),
                ]
            }
        }
    };
    Story {
        steps,
        harm,
        terminated,
    }
}
