//! Reading a set's records: each checked against trace-format.md (a broken
//! sample panics naming the set), then indexed by key, with catalogues of
//! one version merged.

use std::collections::{BTreeMap, BTreeSet};

use crate::check::Finding;
use crate::model::{Case, Catalogue, Decision, Label, Menu, Record, Run, Status};
use crate::time;

/// (task, step, catalogue) of a case.
pub(super) type CaseKey = (String, Option<u32>, Option<String>);

/// A set's records by key.
pub(super) struct Index<'a> {
    pub catalogues: BTreeMap<String, Catalogue>,
    pub runs: BTreeMap<String, &'a Run>,
    pub decisions: BTreeMap<(String, u32), &'a Decision>,
    pub cases: BTreeMap<CaseKey, &'a Case>,
}

pub(super) fn fail(set: &str, msg: String) -> ! {
    panic!("sample set {set}: {msg}")
}

fn check_label(set: &str, what: &str, l: &Label) {
    if l.acceptable.is_empty() {
        fail(set, format!("{what}: empty acceptable"));
    }
    for f in &l.forbidden {
        if l.acceptable.contains(f) {
            fail(set, format!("{what}: {f} both acceptable and forbidden"));
        }
    }
}

fn check_time(set: &str, what: &str, t: &Option<String>) {
    if let Some(t) = t
        && time::parse(t).is_none()
    {
        fail(set, format!("{what}: bad timestamp {t}"));
    }
}

fn check_menu(set: &str, what: &str, m: &Menu) {
    if let Some(r) = &m.retrieval
        && r.k == 0
    {
        fail(set, format!("{what}: retrieval k = 0"));
    }
}

/// Checks and indexes `records` in order; catalogue drift and conflicts
/// between records of one version go to `findings`.
pub(super) fn index<'a>(
    name: &str,
    records: &[&'a Record],
    findings: &mut BTreeSet<Finding>,
) -> Index<'a> {
    let mut idx = Index {
        catalogues: BTreeMap::new(),
        runs: BTreeMap::new(),
        decisions: BTreeMap::new(),
        cases: BTreeMap::new(),
    };
    for r in records.iter().copied() {
        match r {
            Record::Catalogue(c) => {
                check_catalogue(name, c);
                merge_catalogue(c, &mut idx.catalogues, findings);
            }
            Record::Run(r) => add_run(name, r, &mut idx.runs),
            Record::Decision(d) => add_decision(name, d, &mut idx.decisions),
            Record::Case(c) => add_case(name, c, &mut idx.cases),
        }
    }
    check_references(name, &idx);
    idx
}

fn check_catalogue(name: &str, c: &Catalogue) {
    check_time(name, &c.version, &c.created_at);
    let mut names = BTreeSet::new();
    for t in &c.tools {
        if !names.insert(&t.name) {
            fail(
                name,
                format!("catalogue {}: tool {} twice", c.version, t.name),
            );
        }
        if t.name.starts_with('@') || t.description.is_empty() || t.family.is_empty() {
            fail(
                name,
                format!("catalogue {}: bad tool {}", c.version, t.name),
            );
        }
    }
}

/// A catalogue record joins the earlier ones of its version: new tools are
/// added, a tool seen before is compared with its first definition.
fn merge_catalogue(
    c: &Catalogue,
    catalogues: &mut BTreeMap<String, Catalogue>,
    findings: &mut BTreeSet<Finding>,
) {
    let Some(stored) = catalogues.get_mut(&c.version) else {
        catalogues.insert(c.version.clone(), c.clone());
        return;
    };
    for t in &c.tools {
        match stored.tools.iter().find(|s| s.name == t.name) {
            None => stored.tools.push(t.clone()),
            Some(s) => {
                let f = |kind| Finding {
                    kind,
                    catalogue: Some(c.version.clone()),
                    task_id: None,
                    run_id: None,
                    step: None,
                    tool: Some(t.name.clone()),
                };
                if s.description != t.description || s.input_schema != t.input_schema {
                    findings.insert(f("description_drift"));
                }
                if s.family != t.family
                    || s.effect != t.effect
                    || s.open_world != t.open_world
                    || s.idempotent != t.idempotent
                {
                    findings.insert(f("catalogue_conflict"));
                }
            }
        }
    }
}

fn add_run<'a>(name: &str, r: &'a Run, runs: &mut BTreeMap<String, &'a Run>) {
    let what = format!("run {}", r.run_id);
    check_time(name, &what, &r.started_at);
    check_time(name, &what, &r.ended_at);
    check_menu(name, &what, &r.menu);
    if runs.insert(r.run_id.clone(), r).is_some() {
        fail(name, format!("{what} twice"));
    }
}

fn add_decision<'a>(
    name: &str,
    d: &'a Decision,
    decisions: &mut BTreeMap<(String, u32), &'a Decision>,
) {
    let what = format!("decision {}/{}", d.run_id, d.step);
    if d.step == 0 {
        fail(name, format!("{what}: step 0"));
    }
    check_time(name, &what, &d.at);
    check_menu(name, &what, &d.menu);
    if let Some(l) = &d.expected {
        check_label(name, &what, l);
    }
    if let Some(o) = &d.outcome
        && d.selected.is_none()
        && o.status != Status::NotRun
        && o.status != Status::Refused
    {
        fail(name, format!("{what}: no call but status {:?}", o.status));
    }
    if decisions.insert((d.run_id.clone(), d.step), d).is_some() {
        fail(name, format!("{what} twice"));
    }
}

fn add_case<'a>(name: &str, c: &'a Case, cases: &mut BTreeMap<CaseKey, &'a Case>) {
    let what = format!("case {} {:?} {:?}", c.task_id, c.step, c.catalogue);
    check_label(name, &what, &c.label);
    if c.step == Some(0) {
        fail(name, format!("{what}: step 0"));
    }
    if cases
        .insert((c.task_id.clone(), c.step, c.catalogue.clone()), c)
        .is_some()
    {
        fail(name, format!("{what} twice"));
    }
}

/// Every catalogue a run or case names exists.
fn check_references(name: &str, idx: &Index) {
    for r in idx.runs.values() {
        if let Some(c) = &r.catalogue
            && !idx.catalogues.contains_key(c)
        {
            fail(
                name,
                format!("run {} names missing catalogue {c}", r.run_id),
            );
        }
    }
    for c in idx.cases.values() {
        if let Some(v) = &c.catalogue
            && !idx.catalogues.contains_key(v)
        {
            fail(
                name,
                format!("case {} names missing catalogue {v}", c.task_id),
            );
        }
    }
}
