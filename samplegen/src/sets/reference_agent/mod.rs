//! `reference-agent`: the 230-tool catalogue, 240 labelled tasks run five times
//! each on menu `menu-42`, and the same attempts replayed on `menu-43`, where
//! `search_confluence` and `search_sharepoint` are merged into `search_wiki`
//! (tool-ecosystems-at-scale.txt, 14.5); and the counterfactual menus B
//! (sharper descriptions) and C (one of the pair hidden) replaying the top
//! cell's 72 attempts (menu D is `menu-43`).

mod counterfactual;
mod readme;
mod runs;
mod tasks;

use serde_json::Value;

use crate::check::{self, Analysis};
use crate::model::{Case, Catalogue, Record, TraceSet};
use crate::rng::Rng;
use crate::tools230;
use counterfactual::{counterfactuals, menu_42b};
use readme::{counterfactual_section, readme};
use runs::runs_for;
use tasks::{build_tasks, plan_attempts};

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
