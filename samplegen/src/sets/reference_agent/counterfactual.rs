//! The counterfactual menus B and C of the top confusion cell.

use super::runs::{Replay, one_run};
use super::{Attempt, K, Kind, Task};
use crate::model::{Record, Tool};
use crate::rng::Rng;
use crate::tools230;

/// The sharper descriptions of menu B: each of the pair says what it is
/// for and what it is not for.
pub(super) fn menu_42b() -> Vec<Tool> {
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
pub(super) fn counterfactuals(tasks: &[Task], plan: &[[Attempt; 5]]) -> (Vec<Record>, Vec<Record>) {
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
