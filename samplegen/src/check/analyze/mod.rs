//! `analyze`: a set's records checked, indexed and every decision
//! classified, one step a module: `records` (check and index), `scope`
//! (what a decision inherits, its label), `menu` (the three sets), `walk`
//! (the rung), `findings`.

mod findings;
mod menu;
mod records;
mod scope;
mod walk;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Analysis, Classified, Finding, definition_tokens};
use crate::model::{Catalogue, Decision, TraceSet};
use records::Index;

/// Definition tokens by (catalogue, tool), each tool counted once.
type TokenCache = HashMap<(String, String), u64>;

pub fn analyze(set: &TraceSet) -> Analysis<'_> {
    let name = set.name;
    let records = set.records();
    let mut findings: BTreeSet<Finding> = BTreeSet::new();
    let idx = records::index(name, &records, &mut findings);
    let first_step = first_steps(&idx.decisions);
    let mut token_cache = TokenCache::new();
    let mut trusted = findings::Trusted::new();
    let mut out = vec![];
    for ((run_id, step), d) in &idx.decisions {
        let first = first_step[run_id.as_str()] == *step;
        let s = scope::resolve(name, &idx, (run_id, *step), d, first);
        out.push(classify(
            &s,
            &idx,
            &mut findings,
            &mut trusted,
            &mut token_cache,
        ));
    }
    findings::control_impostors(&idx.catalogues, &trusted, &mut findings);
    let audit = crate::audit::findings(&idx.catalogues, &out);
    Analysis {
        catalogues: idx.catalogues,
        runs: idx.runs,
        decisions: out,
        findings: findings.into_iter().collect(),
        audit,
        cases: idx.cases.len(),
    }
}

/// The first decision (smallest step) of every run.
fn first_steps<'k>(decisions: &'k BTreeMap<(String, u32), &Decision>) -> HashMap<&'k str, u32> {
    let mut first_step: HashMap<&str, u32> = HashMap::new();
    for (run_id, step) in decisions.keys() {
        first_step.entry(run_id.as_str()).or_insert(*step);
    }
    first_step
}

/// One decision labelled, walked and its findings noted.
fn classify<'a>(
    s: &scope::Scope<'a, '_>,
    idx: &Index<'a>,
    findings: &mut BTreeSet<Finding>,
    trusted: &mut findings::Trusted,
    token_cache: &mut TokenCache,
) -> Classified<'a> {
    let label = s.label(&idx.cases, findings);
    let sets = menu::sets(s, label.as_ref());
    let w = walk::walk(s.d, &s.selected, label.as_ref(), &sets);
    findings::of_decision(s, &sets, findings, trusted);
    let menu = s.known_menu().then(|| {
        let mut m = sets.retrieved.clone();
        m.remove(super::NO_CALL);
        m
    });
    Classified {
        d: s.d,
        run: s.run,
        catalogue: s.cat_name.clone(),
        label,
        first: s.first,
        rung: w.rung,
        routing: w.routing,
        boundary: w.boundary,
        violated: w.violated,
        in_registry: w.in_registry,
        in_exposed: w.in_exposed,
        in_retrieved: w.in_retrieved,
        k: s.retrieval.map(|r| r.k),
        abstain: s
            .cat
            .and_then(|c| c.abstain.clone())
            .unwrap_or("no_applicable_tool".into()),
        tokens: s.cat.map(|c| menu_tokens(c, &sets.retrieved, token_cache)),
        menu,
    }
}

/// Definition tokens of the catalogue tools on a menu.
fn menu_tokens(c: &Catalogue, retrieved: &BTreeSet<String>, cache: &mut TokenCache) -> u64 {
    retrieved
        .iter()
        .filter_map(|n| c.tool(n))
        .map(|t| {
            *cache
                .entry((c.version.clone(), t.name.clone()))
                .or_insert_with(|| definition_tokens(t))
        })
        .sum()
}
