//! The tool catalogues of sets A, B, C and C2.

use serde_json::json;

use super::story::Names;
use crate::model::{Catalogue, Effect, Tool};
use crate::sets::schema;

fn tools_ab(b: bool) -> Vec<Tool> {
    let n = Names::of(if b { "B" } else { "A" });
    let text = |a: &str, bb: &str| if b { bb.to_string() } else { a.to_string() };
    let s = schema;
    let tool =
        |name: &str, effect, a: &str, bb: &str| Tool::new(name, "billing", effect, &text(a, bb));
    vec![
        tool(n.search, Effect::ReadOnly, "Search customers.",
            "Searches Brightdesk customers and returns every customer whose business name contains the query, as the billing system's full record (subscriptions, invoices, notes). Pass a business name, not a sentence: the query is matched against names only. Look at how many customers came back, because different businesses can have almost the same name. Reads only; safe to repeat.")
            .schema(s(json!({"query": {"type": "string"}}), &["query"])),
        tool(n.first.unwrap(), Effect::ReadOnly, "Look up an account.",
            "Returns the first customer whose business name contains the text, and nothing about whether others matched too. Prefer search_customers when two businesses could share a name. Reads only.")
            .schema(s(json!({"name": {"type": "string"}}), &["name"])),
        tool(n.get.unwrap(), Effect::ReadOnly, "Get a customer.",
            "Returns one customer's full billing record by its customer_id (cus_ followed by four characters), which search_customers returns. It does not accept a business name.")
            .schema(s(json!({"customer_id": {"type": "string"}}), &["customer_id"])),
        tool(n.update.unwrap(), Effect::Mutating, "Update a subscription.",
            "Writes fields of one subscription. status 'canceled' ends it immediately; to end it at the close of the period, leave status alone and set cancel_at to the period end as a unix timestamp in seconds. Never set both. subscription_id is the id from the customer record (sub_ and digits).")
            .idempotent(false)
            .schema(s(json!({"subscription_id": {"type": "string"}, "status": {"type": "string"}, "cancel_at": {"type": "integer"}}), &["subscription_id"])),
        tool(n.cancel, Effect::Destructive, "Cancel by id.",
            "Cancels whatever the id names: given a subscription id it ends that subscription today, given an invoice id it voids that invoice. It never refunds anything.")
            .idempotent(false)
            .schema(s(json!({"id": {"type": "string"}}), &["id"])),
        tool(n.refund, Effect::Destructive, "Create a refund.",
            "Sends a refund for one invoice to the payment provider, for the amount you give, in cents ($150.00 is 15000). Nothing checks the amount against what is due: work out proration from the invoice before calling. Each call creates a new refund.")
            .open_world()
            .idempotent(false)
            .schema(s(json!({"invoice_id": {"type": "string"}, if b { "amount_cents" } else { "amount" }: {"type": "integer"}}), &["invoice_id", if b { "amount_cents" } else { "amount" }])),
    ]
}

fn tools_c(c2: bool) -> Vec<Tool> {
    let s = schema;
    let sub_id = if c2 {
        "subscription_id is the id list_subscriptions returned for this customer in this conversation; never make one up."
    } else {
        "subscription_id comes from list_subscriptions, like sub_31."
    };
    let inv_id = if c2 {
        "invoice_id is the id list_subscriptions returned for this customer in this conversation; never make one up. A refund does not need the subscription to be cancelled first."
    } else {
        "invoice_id comes from list_subscriptions, like in_3101."
    };
    vec![
        Tool::new("find_customer", "billing", Effect::ReadOnly,
            "Looks up Brightdesk customers by any part of their business name or billing email and returns each match with its customer_id and whether it matched exactly. When the matches include more than one business the request could mean, stop and ask the billing team which one; change nothing until they answer. An empty list only means no name or email contained the text. Reads only.")
            .schema(s(json!({"name_or_email": {"type": "string", "maxLength": 120}}), &["name_or_email"]))
            .use_when(&["the request names a business or an email"])
            .avoid_when(&["you already have the customer_id"])
            .governed("billing-team", "first_party", "approved"),
        Tool::new("list_subscriptions", "billing", Effect::ReadOnly,
            "Lists one customer's subscriptions with location, plan, monthly price, status and current period, and each subscription's invoices with date, amount and how much was already refunded. Money is in dollars and dates are calendar dates. customer_id comes from find_customer. Reads only.")
            .schema(s(json!({"customer_id": {"type": "string", "pattern": "^cus_[A-Za-z0-9]{4}$"}}), &["customer_id"]))
            .governed("billing-team", "first_party", "approved"),
        Tool::new("cancel_subscription", "billing", Effect::Mutating,
            &format!("Cancels one subscription, either now or at the end of the current period, and returns what it did. It never refunds anything: use refund_invoice for that. A business with several locations has one subscription per location, so ask which location when the request does not say. {sub_id} Calling it twice is safe.")).idempotent(true)
            .schema(s(json!({"subscription_id": {"type": "string", "pattern": "^sub_[0-9]+$"}, "when": {"type": "string", "enum": ["now", "period_end"]}, "reason": {"type": "string", "enum": ["customer_request", "business_closed", "never_onboarded", "billing_error", "other"]}}), &["subscription_id", "when", "reason"]))
            .governed("billing-team", "first_party", "approved"),
        Tool::new("refund_invoice", "billing", Effect::Destructive,
            &format!("Refunds one paid invoice to the card that paid it; the billing system works out the amount. amount_rule 'full' refunds what is left of the invoice; 'unused_days' refunds the rest of the current period and only after the subscription was cancelled with when='now'. {inv_id} Repeating a call with the same arguments is safe: it returns the refund that already exists.")).open_world().idempotent(true)
            .schema(s(json!({"invoice_id": {"type": "string", "pattern": "^in_[0-9]+$"}, "amount_rule": {"type": "string", "enum": ["full", "unused_days"]}, "reason": {"type": "string", "enum": ["cancellation", "duplicate_charge", "service_issue", "billing_error"]}}), &["invoice_id", "amount_rule", "reason"]))
            .governed("billing-team", "first_party", "approved"),
    ]
}

pub(super) fn catalogue(set: &str) -> Catalogue {
    let (tools, created) = match set {
        "A" => (tools_ab(false), "2026-09-01T00:00:00Z"),
        "B" => (tools_ab(true), "2026-09-08T00:00:00Z"),
        "C" => (tools_c(false), "2026-09-10T00:00:00Z"),
        _ => (tools_c(true), "2026-09-14T00:00:00Z"),
    };
    Catalogue {
        version: format!("billing-{set}"),
        created_at: Some(created.into()),
        abstain: None,
        tools,
    }
}
