//! `atlas-chains`: three weeks of Atlas's account assistant, whose chains are
//! bounded by an intent gate, a scope lock and ticket preconditions
//! (composing-tools-and-chains.txt). The latest week's refusals by reason are
//! the chapter's: outside_intent 41, existing_ticket 18, scope_drift 6, precondition 4.

use serde_json::{Value, json};

use super::{run, schema};
use crate::check::{self, Analysis};
use crate::model::{Catalogue, Decision, Effect, Record, Tool, TraceSet, control};
use crate::rng::Rng;
use crate::time::{at, fmt};

const MODEL: &str = "claude-sonnet-4.5";
const CONTROLS: [&str; 2] = ["ask_user", "no_applicable_tool"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// four reads in one turn, then an answer with citations
    Investigate,
    /// an inform question the model tries to act on: refused outside_intent (n times)
    ActsUnasked(u32),
    /// search, then open a ticket
    TicketOpened,
    /// search finds open tickets; open_ticket refused existing_ticket (n times)
    TicketExists(u32),
    /// open_ticket without searching first: refused precondition
    TicketNoSearch,
    /// a reference in retrieved text pulls the chain to another account
    ScopeDrift,
    /// an email the session's role may not send
    EmailScope,
}

struct Account {
    id: &'static str,
    name: &'static str,
    related: (&'static str, &'static str),
}

const ACCOUNTS: [Account; 8] = [
    Account {
        id: "4471",
        name: "Henderson Industrial Supply",
        related: ("4470", "Henderson Holdings"),
    },
    Account {
        id: "5120",
        name: "Acme Health",
        related: ("5121", "Acme Health Labs"),
    },
    Account {
        id: "3318",
        name: "Orbit Freight",
        related: ("3301", "Orbit Logistics Group"),
    },
    Account {
        id: "2290",
        name: "Juniper Books",
        related: ("2291", "Juniper Books Wholesale"),
    },
    Account {
        id: "6042",
        name: "Calder Engineering",
        related: ("6040", "Calder Group"),
    },
    Account {
        id: "7315",
        name: "Bluewater Marinas",
        related: ("7316", "Bluewater Yacht Services"),
    },
    Account {
        id: "1188",
        name: "Solstice Foods",
        related: ("1180", "Solstice Holdings"),
    },
    Account {
        id: "9023",
        name: "Redwood Dental Partners",
        related: ("9024", "Redwood Dental South"),
    },
];

fn catalogue() -> Catalogue {
    let s = schema;
    let acct = json!({"accountId": {"type": "string", "pattern": "^[0-9]{4}$"}});
    let read = |name: &str, family: &str, d: &str| {
        Tool::new(name, family, Effect::ReadOnly, d).schema(s(acct.clone(), &["accountId"]))
    };
    let mut tools = vec![
        read("get_account_summary", "accounts", "Returns one account's balance, amount past due, payment terms and account manager, with the resolved account name. Reads only. Results carry nextStepHints: suggestions, not permission."),
        read("get_open_invoices", "billing", "Lists the account's unpaid invoices with amount, due date and dispute status. Reads only; safe to call in parallel with the other account reads."),
        read("get_payment_history", "billing", "Returns the last 90 days of payments for the account, including rejected ones and why they were rejected (for example an expired mandate). Reads only."),
        read("search_tickets", "tickets", "Finds support tickets about the account, open and closed, with their reference, status and subject. open_ticket needs this search first, for the same account, in the same run."),
        read("get_contract_terms", "contracts", "Returns the account's contract terms: discounts, thresholds, payment terms and effective dates, with the clause each comes from. Contract text can mention other companies; those are references, not the account this run is about."),
        read("list_orders", "orders", "Lists the account's current orders with amount, discount applied and status. Reads only."),
        Tool::new("open_ticket", "tickets", Effect::Mutating, "Opens a support ticket for the account. Refused unless search_tickets ran first for this account; refused with existing_ticket when open tickets exist, unless supersedesExisting carries a reason.")
            .idempotent(false)
            .schema(s(json!({"accountId": {"type": "string", "pattern": "^[0-9]{4}$"}, "subject": {"type": "string", "maxLength": 200}, "supersedesExisting": {"type": "string", "maxLength": 500}}), &["accountId", "subject"])),
        Tool::new("apply_discount", "orders", Effect::Mutating, "Applies a contract discount to one order and returns the new total. Only for requests that ask for a change: a question about discounts is answered, and the change offered, not made.")
            .idempotent(true)
            .schema(s(json!({"accountId": {"type": "string"}, "orderId": {"type": "string", "pattern": "^ORD-[0-9]+$"}, "percent": {"type": "number", "minimum": 0, "maximum": 30}}), &["accountId", "orderId", "percent"])),
        Tool::new("send_account_email", "email", Effect::Mutating, "Emails the account's billing contact from the account manager's address. Needs the account-manager role; support staff get insufficient_scope.")
            .open_world()
            .idempotent(false)
            .schema(s(json!({"accountId": {"type": "string"}, "subject": {"type": "string", "maxLength": 200}, "body": {"type": "string", "maxLength": 8000}}), &["accountId", "subject", "body"])),
    ];
    tools.push(control(
        "ask_user",
        "Ask the person for something only they know. Never used to confirm what a tool returned.",
    ));
    tools.push(control(
        "no_applicable_tool",
        "Say that no available tool can move the request forward, and why.",
    ));
    Catalogue {
        version: "atlas-7".into(),
        created_at: Some("2026-10-20T00:00:00Z".into()),
        abstain: None,
        tools,
    }
}

struct Week {
    start: i64,
    acts_unasked: (u32, u32),
    exists: (u32, u32),
    scope: u32,
    no_search: u32,
    email: u32,
}

/// (refusal count, runs) for outside_intent and existing_ticket; the other reasons one per run.
fn weeks() -> [Week; 3] {
    [
        Week {
            start: at(2026, 11, 2, 0, 0, 0),
            acts_unasked: (24, 23),
            exists: (31, 28),
            scope: 4,
            no_search: 9,
            email: 2,
        },
        Week {
            start: at(2026, 11, 9, 0, 0, 0),
            acts_unasked: (29, 27),
            exists: (22, 21),
            scope: 5,
            no_search: 7,
            email: 3,
        },
        Week {
            start: at(2026, 11, 16, 0, 0, 0),
            acts_unasked: (41, 37),
            exists: (18, 17),
            scope: 6,
            no_search: 4,
            email: 0,
        },
    ]
}

const RUNS_PER_WEEK: usize = 140;

fn kinds(w: &Week, rng: &mut Rng) -> Vec<Kind> {
    let mut v = vec![];
    let spread =
        |(count, runs): (u32, u32)| (0..runs).map(move |i| if i < count - runs { 2 } else { 1 });
    v.extend(spread(w.acts_unasked).map(Kind::ActsUnasked));
    v.extend(spread(w.exists).map(Kind::TicketExists));
    v.extend((0..w.scope).map(|_| Kind::ScopeDrift));
    v.extend((0..w.no_search).map(|_| Kind::TicketNoSearch));
    v.extend((0..w.email).map(|_| Kind::EmailScope));
    v.extend((0..20).map(|_| Kind::TicketOpened));
    while v.len() < RUNS_PER_WEEK {
        v.push(Kind::Investigate);
    }
    rng.shuffle(&mut v);
    v
}

struct Chain<'a> {
    run_id: &'a str,
    t: i64,
    step: u32,
    turn: u32,
    out: Vec<Decision>,
}

impl Chain<'_> {
    fn next_turn(&mut self) {
        self.turn += 1;
        self.t += 4;
    }
    fn call(&mut self, tool: &str, args: Value) -> Decision {
        self.step += 1;
        Decision::new(self.run_id, self.step, Some(tool))
            .turn(self.turn)
            .at(self.t)
            .call(&format!("toolu_{:02}", self.step), args)
    }
    fn ok(&mut self, tool: &str, args: Value, result: Value) {
        let d = self
            .call(tool, args)
            .ok()
            .latency(200 + 60 * self.step as u64)
            .result(result)
            .advanced();
        self.out.push(d);
    }
    fn refuse(&mut self, tool: &str, args: Value, reason: &str, msg: &str) {
        let d = self
            .call(tool, args)
            .refused(reason, msg)
            .result(json!({"ok": false, "error": reason, "message": msg}));
        self.out.push(d);
    }
    fn answer(&mut self) {
        self.step += 1;
        let d = Decision::new(self.run_id, self.step, None)
            .turn(self.turn)
            .at(self.t)
            .not_run();
        self.out.push(d);
    }
}

fn resolved(a: &Account, data: Value, hints: &[&str]) -> Value {
    json!({"ok": true, "data": data, "resolved": {"accountId": a.id, "accountName": a.name}, "nextStepHints": hints})
}

fn story(
    kind: Kind,
    a: &Account,
    n: usize,
    chain: &mut Chain,
) -> (&'static str, String, &'static str, bool) {
    let acct = json!({"accountId": a.id});
    let order = format!("ORD-{}", 8800 + n % 97);
    match kind {
        Kind::Investigate => {
            chain.ok(
                "get_account_summary",
                acct.clone(),
                resolved(
                    a,
                    json!({"pastDue": "$23,100", "terms": "Net 30"}),
                    &["get_open_invoices", "get_payment_history"],
                ),
            );
            chain.ok(
                "get_open_invoices",
                acct.clone(),
                resolved(a, json!({"open": 4, "disputed": 1}), &[]),
            );
            chain.ok("get_payment_history", acct.clone(), resolved(a, json!({"rejected": [{"amount": "$8,400", "on": "2026-10-14", "why": "expired mandate"}]}), &[]));
            chain.ok("search_tickets", acct.clone(), resolved(a, json!([{"reference": "TCK-2207", "status": "open", "subject": "Invoice dispute"}]), &[]));
            chain.next_turn();
            chain.answer();
            (
                "inform",
                format!("Why is {} past due, and what should I do about it?", a.name),
                "answered",
                true,
            )
        }
        Kind::ActsUnasked(times) => {
            chain.ok(
                "get_contract_terms",
                acct.clone(),
                resolved(
                    a,
                    json!({"discount": "12%", "threshold": "$25,000", "clause": "4.2"}),
                    &["list_orders"],
                ),
            );
            chain.ok(
                "list_orders",
                acct.clone(),
                resolved(
                    a,
                    json!([{"orderId": order, "amount": "$18,400", "discount": "none"}]),
                    &["apply_discount"],
                ),
            );
            chain.next_turn();
            chain.refuse("apply_discount", json!({"accountId": a.id, "orderId": order, "percent": 12}), "outside_intent", "You were asked a question. Offer this action to the user instead of performing it.");
            if times == 2 {
                chain.next_turn();
                chain.refuse("open_ticket", json!({"accountId": a.id, "subject": format!("Discount missing on {order}")}), "outside_intent", "You were asked a question. Offer this action to the user instead of performing it.");
            }
            chain.next_turn();
            chain.answer();
            (
                "inform",
                format!(
                    "Can you check whether the {} discount is being applied?",
                    a.name
                ),
                "answered",
                true,
            )
        }
        Kind::TicketOpened => {
            chain.ok(
                "search_tickets",
                acct.clone(),
                resolved(a, json!([]), &["open_ticket"]),
            );
            chain.next_turn();
            chain.ok(
                "open_ticket",
                json!({"accountId": a.id, "subject": "Mandate expired: payments rejected"}),
                resolved(a, json!({"reference": format!("TCK-{}", 2300 + n)}), &[]),
            );
            chain.next_turn();
            chain.answer();
            (
                "act",
                format!(
                    "Open a ticket for {}: their direct debit mandate expired.",
                    a.name
                ),
                "answered",
                true,
            )
        }
        Kind::TicketExists(times) => {
            chain.ok("search_tickets", acct.clone(), resolved(a, json!([{"reference": "TCK-2207", "status": "open", "subject": "Invoice dispute"}]), &["open_ticket"]));
            for _ in 0..times {
                chain.next_turn();
                chain.refuse("open_ticket", json!({"accountId": a.id, "subject": "Invoice dispute follow-up"}), "existing_ticket", "1 open ticket already exists for this account: TCK-2207. Either reference it or set supersedesExisting with a reason.");
            }
            chain.next_turn();
            chain.answer();
            (
                "act",
                format!("Raise a ticket about {}'s disputed invoice.", a.name),
                "answered",
                true,
            )
        }
        Kind::TicketNoSearch => {
            chain.refuse(
                "open_ticket",
                json!({"accountId": a.id, "subject": "Card declined twice"}),
                "precondition",
                "Search this account's tickets with search_tickets before opening one.",
            );
            chain.next_turn();
            chain.ok(
                "search_tickets",
                acct.clone(),
                resolved(a, json!([]), &["open_ticket"]),
            );
            chain.next_turn();
            chain.ok(
                "open_ticket",
                json!({"accountId": a.id, "subject": "Card declined twice"}),
                resolved(a, json!({"reference": format!("TCK-{}", 2400 + n)}), &[]),
            );
            chain.next_turn();
            chain.answer();
            (
                "act",
                format!(
                    "{}'s card was declined twice; open a ticket for billing.",
                    a.name
                ),
                "answered",
                true,
            )
        }
        Kind::ScopeDrift => {
            let (rid, rname) = a.related;
            chain.ok("get_contract_terms", acct.clone(), resolved(a, json!({"paymentTerms": "Net 45", "clause": "7.1", "note": format!("Terms are guaranteed by the parent company, {rname} (account {rid}).")}), &["get_account_summary"]));
            chain.next_turn();
            chain.refuse("get_account_summary", json!({"accountId": rid}), "scope_drift", &format!("This run is about {}. A call referencing a different account needs a new request.", a.name));
            chain.next_turn();
            chain.answer();
            (
                "inform",
                format!("What payment terms does {} have?", a.name),
                "answered",
                true,
            )
        }
        Kind::EmailScope => {
            chain.ok(
                "get_open_invoices",
                acct.clone(),
                resolved(
                    a,
                    json!({"open": 2, "disputed": 0}),
                    &["send_account_email"],
                ),
            );
            chain.next_turn();
            chain.refuse("send_account_email", json!({"accountId": a.id, "subject": "Two invoices overdue", "body": "Hello, two invoices are now overdue..."}), "insufficient_scope", "Emails to customers need the account-manager role; this session has support.");
            chain.next_turn();
            chain.answer();
            (
                "act",
                format!("Email {} a reminder about their overdue invoices.", a.name),
                "answered",
                false,
            )
        }
    }
}

pub fn build() -> TraceSet {
    let mut set = TraceSet::new("atlas-chains");
    set.file("catalogue.jsonl")
        .push(Record::Catalogue(catalogue()));
    let mut rng = Rng::new(0xA71A_5C4A_1250_0076);
    let mut n = 0;
    for (wi, w) in weeks().iter().enumerate() {
        let file = format!("week-{}.jsonl", &fmt(w.start)[..10]);
        for (i, kind) in kinds(w, &mut rng).into_iter().enumerate() {
            n += 1;
            let a = &ACCOUNTS[rng.below(ACCOUNTS.len() as u64) as usize];
            let day = (i / 20) as i64;
            let t0 =
                w.start + day * 86_400 + 8 * 3600 + (i % 20) as i64 * 1620 + rng.below(600) as i64;
            let run_id = format!("atlas-w{}-{:03}", wi + 1, i + 1);
            let mut chain = Chain {
                run_id: &run_id,
                t: t0 + 2,
                step: 0,
                turn: 1,
                out: vec![],
            };
            let (intent, goal, terminated, success) = story(kind, a, n, &mut chain);
            // every run is its own request from a different person: one task each
            let kind_tag = match kind {
                Kind::Investigate => "past-due-why",
                Kind::ActsUnasked(_) => "discount-check",
                Kind::TicketOpened | Kind::TicketExists(_) | Kind::TicketNoSearch => "open-ticket",
                Kind::ScopeDrift => "payment-terms",
                Kind::EmailScope => "overdue-reminder",
            };
            let mut r = run(
                &run_id,
                &format!("{run_id}-{kind_tag}"),
                0,
                &goal,
                intent,
                MODEL,
                "atlas-7",
                t0,
            );
            r.trial = None;
            r.menu.trusted_controls = Some(CONTROLS.iter().map(|s| s.to_string()).collect());
            r.scope = Some(a.id.into());
            r.ended_at = Some(fmt(chain.t + 3));
            r.terminated = Some(terminated);
            r.success = Some(success);
            r.harm = Some(false);
            set.file(&file).push(Record::Run(r));
            set.file(&file)
                .extend(chain.out.into_iter().map(Record::Decision));
        }
    }

    let a = check::analyze(&set);
    assert!(a.findings.is_empty(), "atlas findings: {:?}", a.findings);
    // The runs that sent open_ticket again after existing_ticket, unchanged.
    assert!(
        !a.audit.is_empty()
            && a.audit
                .iter()
                .all(|f| f.kind == "repeated_call" && f.tool.as_deref() == Some("open_ticket")),
        "atlas audit findings: {:?}",
        a.audit
    );
    let all = a.all();
    let w = weeks();
    let latest = Analysis::refusals(&all, w[2].start, w[2].start + 7 * 86_400);
    let got: Vec<(Option<&str>, &str, usize, usize, usize)> = latest
        .iter()
        .map(|r| (r.reason.as_deref(), r.stage, r.count, r.runs, r.previous))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("outside_intent"), "authorization", 41, 37, 29),
            (Some("existing_ticket"), "precondition", 18, 17, 22),
            (Some("scope_drift"), "semantics", 6, 6, 5),
            (Some("precondition"), "precondition", 4, 4, 7),
            (Some("insufficient_scope"), "authorization", 0, 0, 3),
        ]
    );
    set.readme = readme(&a);
    set
}

/// `rung report refusals --format json` for the latest week, as rung
/// prints it.
fn refusals_json(rs: &[check::RefusalRow]) -> String {
    let rows: Vec<serde_json::Value> = rs
        .iter()
        .map(|r| {
            serde_json::json!({"reason": r.reason, "stage": r.stage, "count": r.count, "runs": r.runs, "previous": r.previous})
        })
        .collect();
    check::pretty(&serde_json::json!({
        "window": {"since": "2026-11-16T00:00:00Z", "until": "2026-11-23T00:00:00Z"},
        "undated": 0,
        "rows": rows,
    }))
}

fn readme(a: &Analysis) -> String {
    let all = a.all();
    let w = weeks();
    let wk = 7 * 86_400;
    let latest = Analysis::refusals(&all, w[2].start, w[2].start + wk);
    let middle = Analysis::refusals(&all, w[1].start, w[1].start + wk);
    format!(
        r#"# atlas-chains

Three weeks of Atlas, an account assistant whose tool chains are bounded by
three checks that are not step limits: an **intent gate** (an `inform`
question may only read: `outside_intent`), a **scope lock** (a run stays on the
account it started on: `scope_drift`) and **ticket preconditions** (search
first: `precondition`; do not duplicate an open ticket: `existing_ticket`).
Reads run in parallel (four account reads share turn 1 of the "why is it
past due" chains); results carry resolved ids and `nextStepHints`.

- `catalogue.jsonl`: catalogue `atlas-7` (six reads, three writes, two controls).
- `week-2026-11-02.jsonl`, `week-2026-11-09.jsonl`, `week-2026-11-16.jsonl`:
  {RUNS_PER_WEEK} runs a week, every decision with an `at` timestamp inside its week.

Refusals record a `reason` and no `stage`: rung maps each reason with the
default table of trace-format.md (`outside_intent` and `insufficient_scope` →
authorization, `existing_ticket` and `precondition` → precondition,
`scope_drift` → semantics). No decision is labelled: this set is about the
action boundary, so its SELECTION-side metrics are n/a.

The weeks tell the chapter's story: the supersede flag on `open_ticket` cuts
duplicate-ticket refusals (31, 22, 18), while `outside_intent` grows (24, 29,
41): the gate working, and a product signal that people want the action
offered. `insufficient_scope` (support staff trying to email customers)
appears in the first two weeks and not in the latest, so it shows with count 0.

## The latest week

`RUNG_NOW=2026-11-23T00:00:00Z rung report refusals --format json`: the default
window `[now - 7d, now)` is exactly the latest week,
`[2026-11-16T00:00:00Z, 2026-11-23T00:00:00Z)`, and `previous` is the week
before.

```json
{json}
```

{latest}
## The week before

`rung report refusals --since 2026-11-09T00:00:00Z --until 2026-11-16T00:00:00Z`
(previous = the first week):

{middle}
## Ladder (all three weeks)

{numbers}
## Findings

The ladder raises none. The audit finds the runs that sent the same
`open_ticket` again right after `existing_ticket` refused it (`repeated_call`):
the refusal had already said what to do (reference the open ticket or
supersede it), so the second call could only be refused again. An
`open_ticket` sent again after the search that `precondition` asked for is the
right sequence, not a repeat. `rung report findings`:

{summary}"#,
        json = refusals_json(&latest),
        latest = super::refusal_rows(&latest),
        middle = super::refusal_rows(&middle),
        numbers = super::numbers_section(a, "All decisions", &all),
        summary = crate::check::findings_summary_table(&a.all_findings()),
    )
}
