//! The 240 labelled tasks and the plan of which attempts go wrong.

use serde_json::{Value, json};

use super::{Attempt, CONTROLS, Kind, Task};
use crate::model::Tool;
use crate::rng::Rng;

const POLICIES: [&str; 30] = [
    "travel and expenses",
    "parental leave",
    "remote work",
    "data retention",
    "customer refunds",
    "vendor onboarding",
    "acceptable use",
    "bring your own device",
    "gift and hospitality",
    "overtime pay",
    "company car",
    "relocation support",
    "whistleblowing",
    "conflict of interest",
    "code of conduct",
    "sick leave",
    "training budget",
    "home office equipment",
    "on-call compensation",
    "information classification",
    "password",
    "visitor access",
    "records disposal",
    "anti-bribery",
    "price discount approval",
    "contract signature authority",
    "customer data export",
    "social media",
    "volunteering days",
    "performance review",
];
const SERVICES: [&str; 20] = [
    "payments-api",
    "checkout-web",
    "search-indexer",
    "auth-gateway",
    "email-sender",
    "billing-worker",
    "inventory-sync",
    "reporting-etl",
    "mobile-bff",
    "feature-store",
    "notifications",
    "ledger",
    "fraud-scoring",
    "image-resizer",
    "webhooks",
    "session-store",
    "rate-limiter",
    "pdf-renderer",
    "geo-lookup",
    "audit-log",
];
const TOPICS: [&str; 12] = [
    "the Q3 price change",
    "SSO login failures",
    "the Berlin office move",
    "the EU data residency request",
    "the annual security audit",
    "duplicate invoices from Acme Health",
    "the warehouse migration",
    "the partner API rollout",
    "slow checkout on mobile",
    "the new onboarding flow",
    "last week's outage",
    "the holiday support rota",
];

fn id_for(key: &str, n: usize) -> String {
    let prefix: String = key
        .split('_')
        .map(|w| w[..1].to_ascii_uppercase())
        .collect();
    format!("{prefix}-{}", 1000 + n * 37 % 9000)
}

fn other_goal(tool: &str, n: usize) -> (String, &'static str, Value) {
    let (op, key) = tool.split_once('_').unwrap();
    let words = key.replace('_', " ");
    let topic = TOPICS[n % TOPICS.len()];
    let id = id_for(key, n);
    let idk = format!("{key}_id");
    match op {
        "get" => (
            format!("Pull up {words} {id} and summarise it."),
            "inform",
            json!({idk: id}),
        ),
        "list" => (
            format!("Which {words}s are still open this week?"),
            "inform",
            json!({"status": "open"}),
        ),
        "search" => (
            format!("Find any {words} that mentions {topic}."),
            "inform",
            json!({"query": topic}),
        ),
        "query" => (
            format!("How many rows did last night's load add to the {words} for orders?"),
            "inform",
            json!({"sql": "select count(*) from analytics.public.orders where loaded_at >= current_date - 1"}),
        ),
        "export" => (
            format!("Export this quarter's {words}s about {topic} to a spreadsheet."),
            "prepare",
            json!({"filter": topic}),
        ),
        "track" => (
            format!("Where is {words} {id} right now?"),
            "inform",
            json!({idk: id}),
        ),
        "create" | "draft" | "upload" | "trigger" => (
            format!("Create a {words} for {topic}."),
            "act",
            json!({"title": topic}),
        ),
        "update" | "toggle" => (
            format!("Set the owner of {words} {id} to the platform team."),
            "act",
            json!({idk: id, "fields": {"owner": "platform-team"}}),
        ),
        "comment" | "send" | "publish" => (
            format!("Post on {words} {id} that the fix for {topic} shipped."),
            "act",
            json!({idk: id, "text": format!("The fix for {topic} shipped today.")}),
        ),
        "assign" | "escalate" | "invite" | "share" | "grant" => (
            format!("Hand {words} {id} to the platform team."),
            "act",
            json!({idk: id, "to": "platform-team"}),
        ),
        _ => (
            format!("Please {op} {words} {id}; it was raised about {topic}."),
            "act",
            json!({idk: id, "reason": format!("requested in chat about {topic}")}),
        ),
    }
}

pub(super) fn build_tasks(tools: &[Tool], rng: &mut Rng) -> Vec<Task> {
    let mut kinds: Vec<Kind> = [
        (Kind::SharePoint, 30),
        (Kind::Confluence, 20),
        (Kind::Incident, 20),
        (Kind::Escalation, 10),
        (Kind::NoCall, 6),
        (Kind::Abstain, 4),
        (Kind::Other, 150),
    ]
    .iter()
    .flat_map(|(k, n)| std::iter::repeat_n(*k, *n))
    .collect();
    rng.shuffle(&mut kinds);

    // the ordinary tools a task of kind Other may need
    let pool: Vec<&Tool> = tools
        .iter()
        .filter(|t| {
            t.family != "control"
                && t.family != "web"
                && ![
                    "search_confluence",
                    "search_sharepoint",
                    "get_ticket",
                    "get_incident",
                    "get_account",
                ]
                .contains(&t.name.as_str())
        })
        .collect();
    let mut order: Vec<usize> = (0..pool.len()).collect();
    rng.shuffle(&mut order);
    let mut next_other = order.into_iter();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let family_of = |n: &str| {
        tools
            .iter()
            .find(|t| t.name == n)
            .map(|t| t.family.clone())
            .unwrap()
    };

    let (mut sp, mut cf, mut inc, mut other) = (0, 0, 0, 0);
    let mut tasks = vec![];
    for (i, kind) in kinds.into_iter().enumerate() {
        let id = format!("ra-t{:03}", i + 1);
        let (goal, intent, acceptable, confusable, args): (
            String,
            &str,
            Vec<&str>,
            Option<String>,
            Value,
        ) = match kind {
            Kind::SharePoint => {
                let p = POLICIES[sp];
                sp += 1;
                (
                    format!(
                        "Where is the current {p} policy, and what does it say about approvals?"
                    ),
                    "inform",
                    vec!["search_sharepoint"],
                    Some("search_confluence".into()),
                    json!({"query": format!("{p} policy")}),
                )
            }
            Kind::Confluence => {
                let s = SERVICES[cf];
                cf += 1;
                (
                    format!("Find the runbook for restarting {s} safely."),
                    "inform",
                    vec!["search_confluence"],
                    Some("search_sharepoint".into()),
                    json!({"query": format!("{s} runbook restart")}),
                )
            }
            Kind::Incident => {
                let n = 4800 + inc * 7;
                inc += 1;
                (
                    format!(
                        "What's the latest on INC-{n}? Customers are asking whether it is fixed."
                    ),
                    "inform",
                    vec!["get_incident"],
                    Some("get_ticket".into()),
                    json!({"incident_id": format!("INC-{n}")}),
                )
            }
            Kind::Escalation => (
                format!(
                    "{} escalated yesterday's outage to their account manager. Where do we stand?",
                    [
                        "Acme Health",
                        "Northwind Dental",
                        "Harbor Yoga",
                        "Quarry Climbing",
                        "Lumen Pediatrics",
                        "Pinecrest Physio",
                        "Maple Street Bakery",
                        "Henderson Industrial",
                        "Orbit Freight",
                        "Juniper Books"
                    ][i % 10]
                ),
                "inform",
                vec!["get_account", "get_incident"],
                None,
                json!({"account_id": format!("001{:05}", i * 131 % 100_000)}),
            ),
            Kind::NoCall => (
                [
                    "What does P1 mean in our incident process?",
                    "Which of our status colours means degraded?",
                    "How long do we keep a resolved ticket open for the customer to reply?",
                    "Who approves a refund above the limit, per the policy you were given?",
                    "What time zone do on-call handovers use?",
                    "What does 'acknowledged' mean on an incident?",
                ][i % 6]
                    .into(),
                "inform",
                vec!["@no_call"],
                None,
                Value::Null,
            ),
            Kind::Abstain => (
                [
                    "Book me a train to Lisbon for next Tuesday.",
                    "Order forty new laptops for the sales team.",
                    "Translate the board deck into Japanese and print it.",
                    "Renew the office lease for another five years.",
                ][i % 4]
                    .into(),
                "act",
                vec!["ask_user", "no_applicable_tool"],
                None,
                json!({"reason": "No tool here can do this."}),
            ),
            Kind::Other => {
                let t = pool[next_other.next().unwrap()];
                other += 1;
                let (g, intent, args) = other_goal(&t.name, other);
                // a neighbour over the same object: a wrong pick a model could make
                let (op, key) = t.name.split_once('_').unwrap();
                let neighbour = ["search", "list", "get"]
                    .iter()
                    .filter(|o| **o != op)
                    .map(|o| format!("{o}_{key}"))
                    .find(|n| names.contains(&n.as_str()));
                (g, intent, vec![t.name.as_str()], neighbour, args)
            }
        };
        // menu: the acceptable tools, the confusable one, tools of the same family, then others
        let mut cands: Vec<String> = vec![];
        let push = |n: &str, cands: &mut Vec<String>| {
            if !cands.iter().any(|c| c == n) && n != "@no_call" && !CONTROLS.contains(&n) {
                cands.push(n.to_string());
            }
        };
        let confusable_first = matches!(kind, Kind::SharePoint | Kind::Incident);
        if confusable_first && let Some(c) = &confusable {
            push(c, &mut cands);
        }
        for a in &acceptable {
            push(a, &mut cands);
        }
        if let Some(c) = &confusable {
            push(c, &mut cands);
        }
        let fam = acceptable
            .iter()
            .find(|a| names.contains(a))
            .map(|a| family_of(a))
            .unwrap_or("crm".into());
        let mut same: Vec<&str> = tools
            .iter()
            .filter(|t| t.family == fam)
            .map(|t| t.name.as_str())
            .collect();
        rng.shuffle(&mut same);
        for n in same.into_iter().take(5) {
            push(n, &mut cands);
        }
        while cands.len() < 12 {
            let t = rng.pick(tools);
            push(&t.name, &mut cands);
        }
        cands.truncate(12);
        let mut score = 0.93 - rng.below(6) as f64 / 100.0;
        let candidates = cands
            .into_iter()
            .map(|n| {
                let s = (score * 100.0).round() / 100.0;
                score -= (2 + rng.below(6)) as f64 / 100.0;
                (n, s)
            })
            .collect();
        tasks.push(Task {
            id,
            kind,
            goal,
            intent,
            acceptable: acceptable.iter().map(|s| s.to_string()).collect(),
            confusable,
            candidates,
            args,
        });
    }
    tasks
}

/// Which attempts go wrong, and whether they recover: the chapter's numbers.
pub(super) fn plan_attempts(tasks: &[Task], rng: &mut Rng) -> Vec<[Attempt; 5]> {
    let mut plan = vec![[Attempt::Right; 5]; tasks.len()];
    let slots = |kind: Kind| -> Vec<(usize, usize)> {
        tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind == kind)
            .flat_map(|(i, _)| (0..5).map(move |a| (i, a)))
            .collect()
    };
    // (kind, wrong first calls, of which unrecovered)
    let mut assign =
        |mut s: Vec<(usize, usize)>, wrong: usize, unrecovered: usize, rng: &mut Rng| {
            rng.shuffle(&mut s);
            for (j, (i, a)) in s.into_iter().take(wrong).enumerate() {
                plan[i][a] = if j < unrecovered {
                    Attempt::Unrecovered
                } else {
                    Attempt::Recovered(2 + (rng.below(3) == 0) as u32)
                };
            }
        };
    assign(slots(Kind::SharePoint), 72, 24, rng);
    assign(slots(Kind::Confluence), 3, 1, rng);
    assign(slots(Kind::Incident), 31, 9, rng);
    // eleven scattered mistakes, one attempt each in eleven tasks with a neighbour
    let mut others: Vec<(usize, usize)> = tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::Other && t.confusable.is_some())
        .map(|(i, _)| (i, rng.below(5) as usize))
        .collect();
    rng.shuffle(&mut others);
    others.truncate(11);
    others.sort();
    assign(others, 11, 4, rng);
    plan
}
