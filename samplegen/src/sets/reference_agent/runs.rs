//! One attempt of a task on a menu, recorded as a run and its decisions.

use serde_json::{Value, json};

use super::{Attempt, CONTROLS, K, Kind, MODEL, Task};
use crate::model::{Decision, Record, Retrieval};
use crate::sets::run;
use crate::time::{at, fmt};

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
pub(super) struct Replay {
    pub(super) version: &'static str,
    pub(super) prefix: &'static str,
    /// The day of trial 1, and the hour runs start.
    pub(super) day: i64,
    pub(super) hour: i64,
    pub(super) selector: &'static str,
    pub(super) merged: bool,
}

/// One attempt of a task on a menu: the run and its decisions.
#[allow(clippy::too_many_arguments)]
pub(super) fn one_run(
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

pub(super) fn runs_for(tasks: &[Task], plan: &[[Attempt; 5]], merged: bool, out: &mut Vec<Record>) {
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
