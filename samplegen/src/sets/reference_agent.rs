//! `reference-agent`: the 230-tool catalogue, 240 labelled tasks run five times
//! each on menu `menu-42`, and the same attempts replayed on `menu-43`, where
//! `search_confluence` and `search_sharepoint` are merged into `search_wiki`
//! (tool-ecosystems-at-scale.txt, 14.5); and the counterfactual menus B
//! (sharper descriptions) and C (one of the pair hidden) replaying the top
//! cell's 72 attempts (menu D is `menu-43`).

use serde_json::{Value, json};

use super::run;
use crate::check::{self, Analysis};
use crate::model::{Case, Catalogue, Decision, Record, Retrieval, Tool, TraceSet};
use crate::rng::Rng;
use crate::time::{at, fmt};
use crate::tools230;

const MODEL: &str = "gpt-4.1-mini";
const K: u32 = 10;
const CONTROLS: [&str; 2] = ["ask_user", "no_applicable_tool"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    SharePoint,
    Confluence,
    Incident,
    Escalation,
    NoCall,
    Abstain,
    Other,
}

struct Task {
    id: String,
    kind: Kind,
    goal: String,
    intent: &'static str,
    acceptable: Vec<String>,
    /// what a wrong first attempt picks instead
    confusable: Option<String>,
    /// ranked candidates on menu-42 (names, scores)
    candidates: Vec<(String, f64)>,
    args: Value,
}

/// What one attempt did with its first call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Attempt {
    Right,
    /// wrong first call, then the right tool within three turns (recovery at turn 2 or 3)
    Recovered(u32),
    Unrecovered,
}

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

fn build_tasks(tools: &[Tool], rng: &mut Rng) -> Vec<Task> {
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
fn plan_attempts(tasks: &[Task], rng: &mut Rng) -> Vec<[Attempt; 5]> {
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

fn result_for(tool: &str, right: bool, task: &Task) -> Value {
    if right {
        match task.kind {
            Kind::SharePoint => {
                json!({"hits": 3, "top": {"title": format!("{} policy (2026)", task.args["query"].as_str().unwrap().trim_end_matches(" policy")), "site": "People & Policies"}})
            }
            Kind::Confluence => {
                json!({"hits": 2, "top": {"title": format!("Runbook: {}", task.args["query"].as_str().unwrap()), "space": "SRE"}})
            }
            Kind::Incident => {
                json!({"id": task.args["incident_id"], "status": "monitoring", "summary": "Checkout errors for saved cards; fix deployed, watching error rate.", "updated": "35 minutes ago"})
            }
            _ => json!({"ok": true, "items": 1 + task.id.len() % 4}),
        }
    } else {
        match tool {
            "search_confluence" => {
                json!({"hits": 0, "note": "Confluence holds engineering pages. Company and customer policy lives in SharePoint."})
            }
            "search_sharepoint" => {
                json!({"hits": 0, "note": "SharePoint holds company policy. Runbooks and service docs live in Confluence."})
            }
            "get_ticket" => {
                json!({"ticket": null, "note": "No service desk ticket has that id. INC- ids are incidents: get_incident reads them."})
            }
            _ => {
                json!({"ok": true, "items": 0, "note": format!("Nothing matched; {} may fit this request better.", task.acceptable[0])})
            }
        }
    }
}

fn menu_43(c: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = vec![];
    for (n, s) in c {
        let n = if n == "search_confluence" || n == "search_sharepoint" {
            "search_wiki"
        } else {
            n.as_str()
        };
        if !out.iter().any(|(m, _)| m == n) {
            out.push((n.to_string(), *s));
        }
    }
    out
}

fn right_tool(t: &Task, merged: bool, trial: usize) -> Option<String> {
    let a = &t.acceptable[trial % t.acceptable.len()];
    if a == "@no_call" {
        return None;
    }
    if merged && (a == "search_sharepoint" || a == "search_confluence") {
        return Some("search_wiki".into());
    }
    Some(a.clone())
}

fn args_for(t: &Task, tool: &str) -> Value {
    match tool {
        "search_wiki" => {
            json!({"query": t.args["query"], "source": if t.kind == Kind::SharePoint { "policy" } else { "engineering" }})
        }
        "get_ticket" => json!({"ticket_id": t.args["incident_id"]}),
        "get_account" => json!({"account_id": t.args["account_id"].as_str().unwrap_or("00100001")}),
        "get_incident" if t.kind == Kind::Escalation => json!({"incident_id": "INC-4799"}),
        "search_confluence" | "search_sharepoint" => json!({"query": t.args["query"]}),
        "no_applicable_tool" => {
            json!({"reason": "No available tool books travel, buys equipment or signs leases."})
        }
        _ if tool == t.acceptable[0] => t.args.clone(),
        _ => json!({"query": t.goal.split_whitespace().take(5).collect::<Vec<_>>().join(" ")}),
    }
}

/// How one replay records its runs.
struct Replay {
    version: &'static str,
    prefix: &'static str,
    /// The day of trial 1, and the hour runs start.
    day: i64,
    hour: i64,
    selector: &'static str,
    merged: bool,
}

/// One attempt of a task on a menu: the run and its decisions.
#[allow(clippy::too_many_arguments)]
fn one_run(
    rp: &Replay,
    t: &Task,
    ti: usize,
    trial: usize,
    attempt: Attempt,
    candidates: Vec<(String, f64)>,
    wrong: &str,
    out: &mut Vec<Record>,
) {
    let t0 = at(2026, 11, rp.day + trial as i64, rp.hour, 0, 0) + 110 * ti as i64;
    let run_id = format!("{}-t{:03}-{}", rp.prefix, ti + 1, trial + 1);
    let mut r = run(
        &run_id,
        &t.id,
        trial as u32 + 1,
        &t.goal,
        t.intent,
        MODEL,
        rp.version,
        t0,
    );
    r.selector = Some(rp.selector.into());
    r.menu.trusted_controls = Some(CONTROLS.iter().map(|s| s.to_string()).collect());
    r.menu.retrieval = Some(Retrieval {
        k: K,
        selector: None,
        query: None,
        candidates,
    });
    let right = right_tool(t, rp.merged, trial);
    let mut ds = vec![];
    let mut step = 0;
    let mut push = |tool: Option<&str>, ok: bool, dt: i64, ds: &mut Vec<Decision>| {
        step += 1;
        let mut d = Decision::new(&run_id, step, tool).at(t0 + dt);
        d = match tool {
            None => d.not_run(),
            Some(tool) => d
                .call(&format!("c{step}"), args_for(t, tool))
                .ok()
                .latency(90 + (dt as u64 * 7) % 400)
                .result(result_for(tool, ok, t))
                .progress(if ok {
                    crate::model::Progress::Advanced
                } else {
                    crate::model::Progress::None
                }),
        };
        ds.push(d);
    };
    let (success, end) = match attempt {
        Attempt::Right => {
            push(right.as_deref(), true, 3, &mut ds);
            (true, 9)
        }
        Attempt::Recovered(turn) => {
            push(Some(wrong), false, 3, &mut ds);
            if turn == 3 {
                push(Some(wrong), false, 8, &mut ds);
            }
            push(right.as_deref(), true, 13, &mut ds);
            (true, 19)
        }
        Attempt::Unrecovered => {
            push(Some(wrong), false, 3, &mut ds);
            push(Some(wrong), false, 8, &mut ds);
            (false, 14)
        }
    };
    r.ended_at = Some(fmt(t0 + end));
    r.terminated = Some(if t.kind == Kind::Abstain {
        "asked_user"
    } else {
        "answered"
    });
    r.success = Some(success);
    out.push(Record::Run(r));
    out.extend(ds.into_iter().map(Record::Decision));
}

fn runs_for(tasks: &[Task], plan: &[[Attempt; 5]], merged: bool, out: &mut Vec<Record>) {
    let rp = if merged {
        Replay {
            version: "menu-43",
            prefix: "m43",
            day: 10,
            hour: 8,
            selector: "kw-overlap@1",
            merged: true,
        }
    } else {
        Replay {
            version: "menu-42",
            prefix: "m42",
            day: 2,
            hour: 8,
            selector: "kw-overlap@1",
            merged: false,
        }
    };
    for (ti, t) in tasks.iter().enumerate() {
        for (trial, &planned) in plan[ti].iter().enumerate() {
            let mut attempt = planned;
            // the merged menu removes the wiki confusion: those attempts now start right
            if merged && matches!(t.kind, Kind::SharePoint | Kind::Confluence) {
                attempt = Attempt::Right;
            }
            let candidates = if merged {
                menu_43(&t.candidates)
            } else {
                t.candidates.clone()
            };
            let wrong = t.confusable.clone().unwrap_or_default();
            one_run(&rp, t, ti, trial, attempt, candidates, &wrong, out);
        }
    }
}

/// The sharper descriptions of menu B: each of the pair says what it is
/// for and what it is not for.
fn menu_42b() -> Vec<Tool> {
    let mut tools = tools230::catalogue();
    for t in &mut tools {
        match t.name.as_str() {
            "search_confluence" => {
                t.description = "Searches Confluence, the engineering wiki: runbooks, design notes and service docs. Engineering material only; not for company or customer policy, which lives in SharePoint. Returns the 20 best matches with title, location and an excerpt. Reads only; calling it again is safe.".into();
                t.use_when =
                    vec!["the request is about a service, a runbook or how a system works".into()];
                t.avoid_when = vec![
                    "the request asks what a company, HR, finance or customer policy says".into(),
                ];
            }
            "search_sharepoint" => {
                t.description = "Searches SharePoint, where company and customer policy lives: HR, finance, legal, contracts and price lists. Policy documents only; not for engineering runbooks or service docs, which live in Confluence. Returns the 20 best matches with title, location and an excerpt. Reads only; calling it again is safe.".into();
                t.use_when = vec!["the request asks what a policy says or where it is".into()];
                t.avoid_when =
                    vec!["the request is about a service, a runbook or an outage".into()];
            }
            _ => {}
        }
    }
    tools
}

/// The attempts of the `search_sharepoint → search_confluence` cell on
/// menu-42, replayed on menu B (sharper descriptions: 39 of 72 right) and
/// menu C (the policy profile's router hides `search_confluence`: 70 of
/// 72 right). Menu D is menu-43, which replays every attempt (72 of 72).
fn counterfactuals(tasks: &[Task], plan: &[[Attempt; 5]]) -> (Vec<Record>, Vec<Record>) {
    let cell: Vec<(usize, usize)> = tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::SharePoint)
        .flat_map(|(ti, _)| (0..5).map(move |trial| (ti, trial)))
        .filter(|&(ti, trial)| plan[ti][trial] != Attempt::Right)
        .collect();
    assert_eq!(cell.len(), 72);
    // A generator of its own, so that the other sets stay as they were.
    let mut rng = Rng::new(0x5EED_0230_0042_000B);
    let mut order = cell.clone();
    rng.shuffle(&mut order);
    let b_right: Vec<(usize, usize)> = order[..39].to_vec();
    rng.shuffle(&mut order);
    let c_wrong: Vec<(usize, usize)> = order[..2].to_vec();
    let b = Replay {
        version: "menu-42b",
        prefix: "m42b",
        day: 10,
        hour: 13,
        selector: "kw-overlap@1",
        merged: false,
    };
    let c = Replay {
        version: "menu-42c",
        prefix: "m42c",
        day: 10,
        hour: 16,
        selector: "profile-router@1",
        merged: false,
    };
    let (mut rb, mut rc) = (vec![], vec![]);
    for &(ti, trial) in &cell {
        let t = &tasks[ti];
        let planned = plan[ti][trial];
        let attempt = if b_right.contains(&(ti, trial)) {
            Attempt::Right
        } else {
            planned
        };
        one_run(
            &b,
            t,
            ti,
            trial,
            attempt,
            t.candidates.clone(),
            "search_confluence",
            &mut rb,
        );
        // The router knows a policy request needs SharePoint: the menu
        // drops search_confluence; ten of the rest are retrieved.
        let hidden: Vec<(String, f64)> = t
            .candidates
            .iter()
            .filter(|(n, _)| n != "search_confluence")
            .cloned()
            .collect();
        // Two attempts still start on a neighbour in the menu, then recover.
        let neighbour = hidden
            .iter()
            .take(K as usize)
            .map(|(n, _)| n.clone())
            .find(|n| n != "search_sharepoint")
            .expect("a neighbour in the menu");
        let attempt = if c_wrong.contains(&(ti, trial)) {
            Attempt::Recovered(2)
        } else {
            Attempt::Right
        };
        one_run(&c, t, ti, trial, attempt, hidden, &neighbour, &mut rc);
    }
    (rb, rc)
}

pub fn build() -> TraceSet {
    let mut set = TraceSet::new("reference-agent");
    let mut rng = Rng::new(0x5EED_0230_0042_0014);
    let tools = tools230::catalogue();
    let tasks = build_tasks(&tools, &mut rng);
    let plan = plan_attempts(&tasks, &mut rng);
    set.file("catalogues.jsonl").extend([
        Record::Catalogue(Catalogue {
            version: "menu-42".into(),
            created_at: Some("2026-10-26T00:00:00Z".into()),
            abstain: None,
            tools,
        }),
        Record::Catalogue(Catalogue {
            version: "menu-43".into(),
            created_at: Some("2026-11-09T00:00:00Z".into()),
            abstain: None,
            tools: tools230::merged(),
        }),
        Record::Catalogue(Catalogue {
            version: "menu-42b".into(),
            created_at: Some("2026-11-09T00:00:00Z".into()),
            abstain: None,
            tools: menu_42b(),
        }),
        Record::Catalogue(Catalogue {
            version: "menu-42c".into(),
            created_at: Some("2026-11-09T00:00:00Z".into()),
            abstain: None,
            tools: tools230::catalogue(),
        }),
    ]);
    let mut cases = vec![];
    for t in &tasks {
        let acc: Vec<&str> = t.acceptable.iter().map(String::as_str).collect();
        match t.kind {
            Kind::SharePoint | Kind::Confluence => {
                cases.push(Case::new(&t.id, &acc, &[]));
                cases.push(
                    Case::new(&t.id, &["search_wiki"], &[])
                        .catalogue("menu-43")
                        .note("the capability is the same; the merged menu names it search_wiki"),
                );
            }
            Kind::Escalation => cases.push(
                Case::new(&t.id, &acc, &[])
                    .note("an escalation may start from the incident or from the account"),
            ),
            Kind::NoCall => cases.push(
                Case::new(&t.id, &acc, &[]).note("answerable from the system prompt: no tool"),
            ),
            Kind::Abstain => cases.push(Case::new(&t.id, &acc, &[]).note("no tool can do this")),
            _ => cases.push(Case::new(&t.id, &acc, &[])),
        }
    }
    set.file("cases.jsonl")
        .extend(cases.into_iter().map(Record::Case));
    let mut r42 = vec![];
    runs_for(&tasks, &plan, false, &mut r42);
    set.file("runs-menu-42.jsonl").extend(r42);
    let mut r43 = vec![];
    runs_for(&tasks, &plan, true, &mut r43);
    set.file("runs-menu-43.jsonl").extend(r43);
    let (rb, rc) = counterfactuals(&tasks, &plan);
    set.file("runs-menu-42b.jsonl").extend(rb);
    set.file("runs-menu-42c.jsonl").extend(rc);

    let a = check::analyze(&set);
    // The only findings: a wrongly chosen tool given arguments its schema
    // does not take (expectations.md §8), which it ran anyway.
    assert!(
        a.findings.iter().all(|f| f.kind == "schema_violation"),
        "reference-agent findings: {:?}",
        &a.findings[..a.findings.len().min(5)]
    );
    assert_eq!(a.findings.len(), 28);
    let d42 = a.filter(|d| d.catalogue.as_deref() == Some("menu-42"));
    let d43 = a.filter(|d| d.catalogue.as_deref() == Some("menu-43"));
    // The cell's 72 attempts on the four menus: 0, 39, 70, 72 right.
    let cell: Vec<(&str, u32)> = d42
        .iter()
        .filter(|d| {
            d.first
                && d.rung == "selection"
                && d.d.selected.as_deref() == Some("search_confluence")
                && d.label.as_ref().unwrap().acceptable == ["search_sharepoint"]
        })
        .map(|d| (d.run.task_id.as_deref().unwrap(), d.run.trial.unwrap()))
        .collect();
    assert_eq!(cell.len(), 72);
    let right_on = |version: &str| {
        a.filter(|d| d.catalogue.as_deref() == Some(version) && d.first)
            .iter()
            .filter(|d| cell.contains(&(d.run.task_id.as_deref().unwrap(), d.run.trial.unwrap())))
            .map(|d| d.correct())
            .fold((0, 0), |(r, n), ok| (r + ok as usize, n + 1))
    };
    assert_eq!(right_on("menu-42"), (0, 72));
    assert_eq!(right_on("menu-42b"), (39, 72));
    assert_eq!(right_on("menu-42c"), (70, 72));
    assert_eq!(right_on("menu-43"), (72, 72));
    let cell_rows: Vec<(&str, &str, &str, usize)> = [
        ("A", "menu-42", "the incumbent"),
        ("B", "menu-42b", "descriptions"),
        ("C", "menu-42c", "hidden"),
        ("D", "menu-43", "merged"),
    ]
    .iter()
    .map(|&(m, v, how)| (m, v, how, right_on(v).0))
    .collect();
    let m42 = a.metrics(&d42);
    let m43 = a.metrics(&d43);
    assert_eq!(
        (m42.first_call_accuracy.num, m42.first_call_accuracy.den),
        (1083, 1200)
    );
    assert_eq!(
        (m42.recovery_within_3.num, m42.recovery_within_3.den),
        (79, 117)
    );
    assert_eq!(
        (m43.first_call_accuracy.num, m43.first_call_accuracy.den),
        (1158, 1200)
    );
    assert_eq!(
        (m43.recovery_within_3.num, m43.recovery_within_3.den),
        (29, 42)
    );
    let c42 = Analysis::confusions(&d42);
    let total: usize = c42.iter().map(|c| c.2).sum();
    assert_eq!(total, 117);
    assert_eq!(
        (c42[0].0.clone(), c42[0].1.clone(), c42[0].2),
        (
            vec!["search_sharepoint".to_string()],
            Some("search_confluence".into()),
            72
        )
    );
    assert_eq!(
        (c42[1].0.clone(), c42[1].1.clone(), c42[1].2),
        (
            vec!["get_incident".to_string()],
            Some("get_ticket".into()),
            31
        )
    );
    assert!(c42[2].2 < 31);
    assert_eq!(
        Analysis::confusions(&d43)
            .iter()
            .map(|c| c.2)
            .sum::<usize>(),
        42
    );
    for d in &a.decisions {
        assert!(
            d.rung != "discovery" && d.rung != "exposure" && d.rung != "coverage",
            "{}: {}",
            d.run.run_id,
            d.rung
        );
    }
    set.readme = readme(&a, &d42, &d43) + &counterfactual_section(&a, &cell_rows);
    set
}

/// The README's sections on the four menus of the top cell and on the
/// menus' budget (what `rung compare` and `rung report budget` print).
fn counterfactual_section(a: &Analysis, cells: &[(&str, &str, &str, usize)]) -> String {
    let mut rows = String::new();
    for (menu, version, how, right) in cells {
        rows.push_str(&format!("| {menu} | `{version}` | {how} | {right} |\n"));
    }
    let mut budget = String::new();
    for version in ["menu-42", "menu-42b", "menu-42c", "menu-43"] {
        let ds = a.filter(|d| d.catalogue.as_deref() == Some(version));
        let mut tokens: Vec<u64> = ds.iter().filter_map(|d| d.tokens).collect();
        tokens.sort_unstable();
        let mut turns: std::collections::BTreeMap<&str, u64> = Default::default();
        for d in &ds {
            *turns.entry(d.run.run_id.as_str()).or_default() += 1;
        }
        let mut lengths: Vec<u64> = turns.into_values().collect();
        lengths.sort_unstable();
        let rank = |v: &[u64], p: usize| v[(p * v.len()).div_ceil(100).max(1) - 1];
        let tools = &a.catalogues[version].tools;
        let flat: u64 = tools.iter().map(check::definition_tokens).sum();
        let (t50, t95) = (rank(&tokens, 50), rank(&tokens, 95));
        let (l50, l95) = (rank(&lengths, 50), rank(&lengths, 95));
        budget.push_str(&format!(
            "| `{version}` | {} | {} | {t50} | {t95} | {l50} | {l95} | {flat} | {:.2}% |\n",
            tools.len(),
            lengths.len(),
            100.0 * (1.0 - (t50 * l50) as f64 / (flat * l50) as f64),
        ));
    }
    format!(
        r#"
## Four menus on the top cell (`rung compare`)

The chapter's counterfactual replay of the 72 attempts of the
`search_sharepoint → search_confluence` cell, with the outcome labels
unchanged. Menu A is `menu-42`. Menu B, `menu-42b`, keeps both tools but
rewrites their descriptions with an explicit boundary and adds use/avoid
hints (`rung diff menu-42 menu-42b`: two tools changed, description and
hints). Menu C, `menu-42c`, is `menu-42` tool for tool, but the policy
profile's router (`profile-router@1`) leaves `search_confluence` out of the
menu. Menu D is `menu-43`, where the pair is merged (`rung diff menu-42
menu-43`: search_confluence and search_sharepoint merged into search_wiki;
the labels of 50 tasks point there). B and C replay only the cell's 72
attempts, with the same tasks and trials (B on 2026-11-10 to 14 at 13:00,
C at 16:00); `menu-43` replays all 1,200.

`rung compare menu-42 menu-42b menu-42c menu-43 --cell 'search_sharepoint→search_confluence'`:

| menu | catalogue | how it differs | right of 72 |
| --- | --- | --- | ---: |
{rows}
B leaves errors, so the descriptions were not the whole problem; C leaves
two, so hiding one of the pair is not the repair either; only D removes the
error: the verdict is to merge, since the difference between the two tools
carries nothing the model can use reliably. `rung compare menu-42 menu-43
--gate` admits `menu-43` (75 first calls better and none worse; 25
unrecovered wrong first calls fewer and none more); `rung compare menu-43
menu-42 --gate` exits 1.

## The menus' budget (`rung report budget`)

Every turn sees 12 tools (the two controls and ten retrieved) of a catalogue
of about 230; a run's tokens are the tokens per turn at a percentile times
the run length at the same percentile; flat is every catalogue tool on every
turn. No run's menu changes mid-run (each run pins its menu).

| catalogue | tools | runs | tokens/turn p50 | tokens/turn p95 | run turns p50 | run turns p95 | flat tokens/turn | saved at p50 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
{budget}"#
    )
}

fn cells(ds: &[&check::Classified]) -> String {
    check::confusions_table(ds)
}

fn readme(a: &Analysis, d42: &[&check::Classified], d43: &[&check::Classified]) -> String {
    let m42 = a.metrics(d42);
    let m43 = a.metrics(d43);
    format!(
        r#"# reference-agent

Reference Agent's selection replay from the tool-ecosystems chapter (14.5): a
governed catalogue of **230 tools** (`menu-42`: eleven internal integrations,
vendor MCP servers and a tail, plus the `ask_user` and `no_applicable_tool`
controls), **240 labelled tasks**, each attempted **5 times**: 1,200 runs.
Every run pins its menu on the run record: the two trusted controls plus a
keyword retrieval with `k = 10` over 12 scored candidates, so the model saw 12
tools. No decision records its own menu.

Then the same 1,200 attempts are replayed against the candidate menu
`menu-43`, where `search_confluence` and `search_sharepoint` are merged into
`search_wiki(query, source)`. The tasks, model settings and attempt count stay
fixed; the 50 wiki tasks carry a second, catalogue-specific label
(`case.catalogue: menu-43`, acceptable `search_wiki`), since the capability
survived the rename. The other 190 tasks have one label for both menus.

Files: `catalogues.jsonl` (`menu-42`, `menu-43` and the counterfactual
menus `menu-42b` and `menu-42c` described below), `cases.jsonl` (290 labels,
all step-less: they label each run's first decision), `runs-menu-42.jsonl`,
`runs-menu-43.jsonl`, and `runs-menu-42b.jsonl`, `runs-menu-42c.jsonl` (the
top cell's 72 attempts on menus B and C).

Tasks: 30 ask for a company policy (acceptable `search_sharepoint`), 20 for an
engineering runbook (`search_confluence`), 20 for an incident by its INC- id
(`get_incident`), 10 escalations where either the incident or the account is
a fine start (`get_account`, `get_incident`), 6 answerable with no tool
(`@no_call`), 4 that no tool can do (`no_applicable_tool` or `ask_user`), and
150 single-tool tasks across the catalogue.

Only first calls are labelled. A wrong first call is always a SELECTION
failure (the acceptable tool was among the 12 visible). After it, a recovering
run calls the right tool on turn 2 or 3; a run that does not recover repeats
the wrong tool once (`progress: none`, unlabelled, so it lands on the PROGRESS
rung) and answers without the data. Later decisions are unlabelled, so the
only SELECTION decisions are the wrong first calls.

## The numbers (`rung report metrics --catalogue menu-42 --format json`)

| | `menu-42` | `menu-43` (merged) |
| --- | --- | --- |
| first_call_accuracy | {fc42} | {fc43} |
| wrong first calls | 117 | 42 |
| recovery_within_3 | {rc42} | {rc43} |
| unrecovered wrong first calls | 38 | 13 |
| selection_accuracy | {sa42} | {sa43} |
| pass_hat_k.1 | {p42:.4} | {p43:.4} |

1,083 / 1,200 = 90.25% and 1,158 / 1,200 = 96.50%; 79 wrong first calls on
`menu-42` recover within three turns and 38 do not. Here `selection_accuracy`
equals first-call accuracy because only first decisions are labelled and every
acceptable tool was retrieved; `tool_recall_at_k.10` is 1.0 on both menus.

## Confusions

`rung report confusions --catalogue menu-42` (the top two cells explain
(72 + 31) / 117 = 88.03% of wrong first calls; the third cell, three runbook
requests sent to SharePoint, is fixed by the merge too, which is why
`menu-43` gains 75 first calls, not 72):

{c42}
`rung report confusions --catalogue menu-43`:

{c43}
## Ladder

{n42}
{n43}
The ladder's only findings are 28 `schema_violation`s: a wrongly chosen
tool given arguments its schema does not take (a `query` it does not
declare, its id missing), which ran anyway. The audit finds each wrong call
sent a second time with the same arguments (`repeated_call`): the
unrecovered runs and those that recover on turn 3, on `menu-42`, `menu-42b`
and `menu-43`; and two questions on `menu-42c` answered with a Confluence
write, a wrongly chosen tool that changed a page in a run whose intent is
inform (`write_under_inform`). By kind and tool (`rung report findings`):

{findings}
`rung report refusals` is empty (nothing is refused). Dates: `menu-42` attempts run 2026-11-02 to 2026-11-06 (one trial a
day), the replay 2026-11-10 to 2026-11-14; `RUNG_NOW=2026-11-15T00:00:00Z`
puts the default 7-day window on the replay week.
"#,
        fc42 = m42.first_call_accuracy.show(),
        fc43 = m43.first_call_accuracy.show(),
        rc42 = m42.recovery_within_3.show(),
        rc43 = m43.recovery_within_3.show(),
        sa42 = m42.selection_accuracy.show(),
        sa43 = m43.selection_accuracy.show(),
        p42 = m42.pass_hat_k[&1].0,
        p43 = m43.pass_hat_k[&1].0,
        c42 = cells(d42),
        c43 = cells(d43),
        n42 = super::numbers_section(a, "`--catalogue menu-42`", d42),
        n43 = super::numbers_section(a, "`--catalogue menu-43`", d43),
        findings = crate::check::findings_summary_table(&a.all_findings()),
    )
}
