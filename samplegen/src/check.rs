//! The generator's own bookkeeping: validates every record against
//! trace-format.md and classifies every decision as ladder.md says, so each
//! sample set can assert the numbers its README promises.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::{
    Case, Catalogue, Decision, Label, Menu, Policy, Progress, Record, Retrieval, Run, Status,
    TraceSet, default_stage,
};
use crate::time;

pub const NO_CALL: &str = "@no_call";
pub const RUNGS: &[&str] = &[
    "coverage",
    "exposure",
    "discovery",
    "selection",
    "representation",
    "schema",
    "semantics",
    "authorization",
    "precondition",
    "unclassified",
    "execution",
    "progress",
    "unlabelled",
    "passed",
];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub kind: &'static str,
    pub catalogue: Option<String>,
    pub task_id: Option<String>,
    pub run_id: Option<String>,
    pub step: Option<u32>,
    pub tool: Option<String>,
}

pub struct Classified<'a> {
    pub d: &'a Decision,
    pub run: &'a Run,
    pub catalogue: Option<String>,
    pub label: Option<Label>,
    pub first: bool,
    pub rung: &'static str,
    pub routing: Option<&'static str>,
    pub boundary: Option<&'static str>,
    pub violated: bool,
    pub in_registry: bool,
    pub in_exposed: bool,
    pub in_retrieved: bool,
    pub k: Option<u32>,
    pub abstain: String,
    /// definition tokens of the catalogue tools in `retrieved` (decisions with a catalogue)
    pub tokens: Option<u64>,
    /// The menu the model saw (`retrieved` without `@no_call`), when
    /// anything about the menu is known.
    pub menu: Option<BTreeSet<String>>,
}

impl Classified<'_> {
    pub fn selected(&self) -> &str {
        self.d.selected.as_deref().unwrap_or(NO_CALL)
    }
    pub fn turn(&self) -> u32 {
        self.d.turn.unwrap_or(self.d.step)
    }
    pub fn correct(&self) -> bool {
        self.label
            .as_ref()
            .is_some_and(|l| l.acceptable.iter().any(|a| a == self.selected()))
    }
    /// Time of the decision for windows: its `at`, else its run's `started_at`.
    pub fn time(&self) -> Option<i64> {
        self.d
            .at
            .as_deref()
            .or(self.run.started_at.as_deref())
            .and_then(time::parse)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Rate {
    pub num: usize,
    pub den: usize,
}

impl Rate {
    pub fn show(&self) -> String {
        if self.den == 0 {
            return "n/a (0/0)".into();
        }
        format!(
            "{}/{} = {:.2}%",
            self.num,
            self.den,
            100.0 * self.num as f64 / self.den as f64
        )
    }
    pub fn value(&self) -> Option<f64> {
        (self.den > 0).then(|| self.num as f64 / self.den as f64)
    }
}

pub struct Metrics {
    pub capability_coverage: Rate,
    pub exposure_recall: Rate,
    pub tool_recall_at_k: BTreeMap<u32, Rate>,
    pub selection_accuracy: Rate,
    pub abstention_accuracy: Rate,
    pub no_call_accuracy: Rate,
    pub violation_rate: Rate,
    pub first_call_accuracy: Rate,
    pub recovery_within_3: Rate,
    /// k -> (value, tasks)
    pub pass_hat_k: BTreeMap<usize, (f64, usize)>,
    /// (mean, p50, p95, decisions)
    pub definition_tokens: Option<(f64, u64, u64, usize)>,
    /// tasks (per catalogue) whose first tool varies / tasks with two or more runs
    pub inconsistent_tasks: Rate,
}

/// Runs of a task on a catalogue, and the first tools they chose.
type FirstTools<'a> = (usize, BTreeSet<Option<&'a str>>);

/// (reason, stage) -> (count, distinct runs, previous)
type RefusalGroups<'a> =
    BTreeMap<(Option<String>, &'static str), (usize, BTreeSet<&'a str>, usize)>;

/// ceil(Unicode scalar values / 4) of the RFC 8785 canonical JSON of
/// `{name, description, input_schema}` (the schemas here hold no floats, so
/// sorted keys and serde_json's escaping are canonical).
pub fn definition_tokens(t: &crate::model::Tool) -> u64 {
    fn canon(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::json::write_str(out, k);
                    out.push(':');
                    canon(&m[k.as_str()], out);
                }
                out.push('}');
            }
            serde_json::Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    canon(x, out);
                }
                out.push(']');
            }
            other => crate::json::write_value(out, other),
        }
    }
    let v = serde_json::json!({
        "name": t.name,
        "description": t.description,
        "input_schema": t.input_schema.clone().unwrap_or(serde_json::Value::Null),
    });
    let mut s = String::new();
    canon(&v, &mut s);
    (s.chars().count() as u64).div_ceil(4)
}

pub struct RefusalRow {
    pub reason: Option<String>,
    pub stage: &'static str,
    pub count: usize,
    pub runs: usize,
    pub previous: usize,
}

pub struct Analysis<'a> {
    pub catalogues: BTreeMap<String, Catalogue>,
    pub runs: BTreeMap<String, &'a Run>,
    pub decisions: Vec<Classified<'a>>,
    /// The ladder's findings (ladder.md).
    pub findings: Vec<Finding>,
    /// The audit findings of issue 12 (`crate::audit`).
    pub audit: Vec<Finding>,
    pub cases: usize,
}

fn fail(set: &str, msg: String) -> ! {
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

struct Sets {
    registry: BTreeSet<String>,
    exposed: BTreeSet<String>,
    retrieved: BTreeSet<String>,
}

fn rank_visible(r: &Retrieval, exposed: &BTreeSet<String>, controls: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut ranked = vec![];
    for (n, _) in &r.candidates {
        if exposed.contains(n) && !controls.contains(n) && seen.insert(n.clone()) {
            ranked.push(n.clone());
        }
    }
    ranked.truncate(r.k as usize);
    ranked
}

pub fn analyze(set: &TraceSet) -> Analysis<'_> {
    let name = set.name;
    let records = set.records();
    let mut catalogues: BTreeMap<String, Catalogue> = BTreeMap::new();
    let mut findings: BTreeSet<Finding> = BTreeSet::new();
    let mut runs: BTreeMap<String, &Run> = BTreeMap::new();
    let mut decisions: BTreeMap<(String, u32), &Decision> = BTreeMap::new();
    let mut cases: BTreeMap<(String, Option<u32>, Option<String>), &Case> = BTreeMap::new();

    for r in &records {
        match r {
            Record::Catalogue(c) => {
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
                match catalogues.get_mut(&c.version) {
                    None => {
                        catalogues.insert(c.version.clone(), c.clone());
                    }
                    Some(stored) => {
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
                                    if s.description != t.description
                                        || s.input_schema != t.input_schema
                                    {
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
                }
            }
            Record::Run(r) => {
                let what = format!("run {}", r.run_id);
                check_time(name, &what, &r.started_at);
                check_time(name, &what, &r.ended_at);
                check_menu(name, &what, &r.menu);
                if runs.insert(r.run_id.clone(), r).is_some() {
                    fail(name, format!("{what} twice"));
                }
            }
            Record::Decision(d) => {
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
            Record::Case(c) => {
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
        }
    }
    for r in runs.values() {
        if let Some(c) = &r.catalogue
            && !catalogues.contains_key(c)
        {
            fail(
                name,
                format!("run {} names missing catalogue {c}", r.run_id),
            );
        }
    }
    for c in cases.values() {
        if let Some(v) = &c.catalogue
            && !catalogues.contains_key(v)
        {
            fail(
                name,
                format!("case {} names missing catalogue {v}", c.task_id),
            );
        }
    }

    // first decision (smallest step) of every run
    let mut first_step: HashMap<&str, u32> = HashMap::new();
    for (run_id, step) in decisions.keys() {
        first_step.entry(run_id.as_str()).or_insert(*step);
    }

    let mut out = vec![];
    let mut token_cache: HashMap<(String, String), u64> = HashMap::new();
    // (catalogue, trusted name) pairs seen on decisions
    let mut trusted_on: BTreeSet<(String, String)> = BTreeSet::new();
    for ((run_id, step), d) in &decisions {
        let what = format!("decision {run_id}/{step}");
        let Some(run) = runs.get(run_id.as_str()).copied() else {
            fail(name, format!("{what}: no run record"));
        };
        let cat_name = d.catalogue.clone().or(run.catalogue.clone());
        let cat = cat_name.as_ref().map(|c| {
            catalogues
                .get(c)
                .unwrap_or_else(|| fail(name, format!("{what}: missing catalogue {c}")))
        });
        let policy: Option<&Policy> = d.menu.policy.as_ref().or(run.menu.policy.as_ref());
        let controls: Vec<String> = d
            .menu
            .trusted_controls
            .clone()
            .or(run.menu.trusted_controls.clone())
            .unwrap_or_default();
        let retrieval: Option<&Retrieval> =
            d.menu.retrieval.as_ref().or(run.menu.retrieval.as_ref());
        let visible: Option<&Vec<String>> = d.menu.visible.as_ref().or(run.menu.visible.as_ref());
        let first = first_step[run_id.as_str()] == *step;

        // label
        let case_for = |s: Option<u32>, c: Option<String>| -> Option<&Case> {
            let t = run.task_id.clone()?;
            cases.get(&(t, s, c)).copied()
        };
        let mut case =
            case_for(Some(*step), cat_name.clone()).or_else(|| case_for(Some(*step), None));
        if case.is_none() && first {
            case = case_for(None, cat_name.clone()).or_else(|| case_for(None, None));
        }
        let label = d.expected.clone().or(case.map(|c| c.label.clone()));
        if let (Some(e), Some(c)) = (&d.expected, case)
            && *e != c.label
        {
            findings.insert(Finding {
                kind: "label_conflict",
                catalogue: cat_name.clone(),
                task_id: run.task_id.clone(),
                run_id: Some(run_id.clone()),
                step: Some(*step),
                tool: None,
            });
        }

        // sets
        let cat_names: BTreeSet<String> = cat
            .map(|c| c.tools.iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default();
        let no_evidence =
            cat.is_none() && d.exposed.is_none() && visible.is_none() && retrieval.is_none();
        let mut registry = cat_names.clone();
        registry.extend(controls.iter().cloned());
        registry.insert(NO_CALL.into());
        registry.extend(d.exposed.iter().flatten().cloned());
        registry.extend(visible.into_iter().flatten().cloned());
        let mut exposed: BTreeSet<String> = match (&d.exposed, policy, cat) {
            (Some(e), _, _) => e.iter().cloned().collect(),
            (None, Some(p), Some(c)) => c
                .tools
                .iter()
                .filter(|t| p.hides(t).is_none())
                .map(|t| t.name.clone())
                .collect(),
            _ => registry.clone(),
        };
        exposed.extend(controls.iter().cloned());
        exposed.insert(NO_CALL.into());
        exposed.extend(visible.into_iter().flatten().cloned());
        let mut retrieved: BTreeSet<String> = match (visible, retrieval) {
            (Some(v), _) => v.iter().cloned().collect(),
            (None, Some(r)) => {
                let mut s: BTreeSet<String> = controls.iter().cloned().collect();
                s.extend(rank_visible(r, &exposed, &controls));
                s
            }
            _ => exposed.clone(),
        };
        retrieved.insert(NO_CALL.into());
        let selected = d.selected.clone().unwrap_or(NO_CALL.into());
        let mut sets = Sets {
            registry,
            exposed,
            retrieved,
        };
        if no_evidence {
            for s in [&mut sets.registry, &mut sets.exposed, &mut sets.retrieved] {
                s.extend(label.iter().flat_map(|l| l.acceptable.iter().cloned()));
                s.insert(selected.clone());
            }
        }

        // routing walk
        let hit = |s: &BTreeSet<String>| {
            label
                .as_ref()
                .is_some_and(|l| l.acceptable.iter().any(|a| s.contains(a)))
        };
        let (in_registry, in_exposed, in_retrieved) = (
            hit(&sets.registry),
            hit(&sets.exposed),
            hit(&sets.retrieved),
        );
        let routing = match &label {
            None => Some("unlabelled"),
            Some(l) => {
                if !in_registry {
                    Some("coverage")
                } else if !in_exposed {
                    Some("exposure")
                } else if !in_retrieved {
                    Some("discovery")
                } else if !l.acceptable.contains(&selected) {
                    Some("selection")
                } else {
                    None
                }
            }
        };
        let boundary = match &d.outcome {
            Some(o) => match o.status {
                Status::Refused => Some(
                    o.stage
                        .or_else(|| o.reason.as_deref().and_then(default_stage))
                        .unwrap_or("unclassified"),
                ),
                Status::Error | Status::Unknown => Some("execution"),
                Status::Ok | Status::NotRun => None,
            },
            None => None,
        };
        let stalled = matches!(d.progress, Some(Progress::None | Progress::Regressed));
        let rung = match (routing, boundary) {
            (Some(r), _) if r != "unlabelled" => r,
            (_, Some(b)) => b,
            _ if stalled => "progress",
            // `passed` means judged (expectations.md §1).
            _ if routing == Some("unlabelled") => "unlabelled",
            _ => "passed",
        };
        let violated = label
            .as_ref()
            .is_some_and(|l| l.forbidden.contains(&selected));

        // findings about this decision
        let mk = |kind: &'static str, tool: Option<String>| Finding {
            kind,
            catalogue: cat_name.clone(),
            task_id: run.task_id.clone(),
            run_id: Some(run_id.clone()),
            step: Some(*step),
            tool,
        };
        if let Some(c) = cat {
            for n in visible
                .into_iter()
                .flatten()
                .chain(d.exposed.iter().flatten())
            {
                if controls.contains(n) {
                    continue;
                }
                let bad = match c.tool(n) {
                    None => true,
                    Some(t) => policy.is_some_and(|p| p.hides(t).is_some()),
                };
                if bad {
                    findings.insert(mk("exposure_mismatch", Some(n.clone())));
                }
            }
            if let Some(v) = visible {
                for tc in &controls {
                    if !v.contains(tc) {
                        findings.insert(mk("exposure_mismatch", Some(tc.clone())));
                    }
                }
                if let Some(r) = retrieval {
                    let top = rank_visible(r, &sets.exposed, &controls);
                    for t in &c.tools {
                        if controls.contains(&t.name)
                            || policy.is_some_and(|p| p.hides(t).is_some())
                        {
                            continue;
                        }
                        if top.contains(&t.name) != v.contains(&t.name) {
                            findings.insert(mk("exposure_mismatch", Some(t.name.clone())));
                        }
                    }
                }
            }
            for tc in &controls {
                trusted_on.insert((c.version.clone(), tc.clone()));
                if let Some(t) = c.tool(tc)
                    && (t.family != "control"
                        || t.effect != crate::model::Effect::None
                        || t.open_world)
                {
                    findings.insert(Finding {
                        kind: "invalid_control",
                        catalogue: Some(c.version.clone()),
                        task_id: None,
                        run_id: None,
                        step: None,
                        tool: Some(tc.clone()),
                    });
                }
            }
        }
        let known_menu =
            cat.is_some() || visible.is_some() || d.exposed.is_some() || retrieval.is_some();
        let menu = known_menu.then(|| {
            let mut m = sets.retrieved.clone();
            m.remove(NO_CALL);
            m
        });
        if known_menu && d.selected.is_some() && !sets.retrieved.contains(&selected) {
            findings.insert(mk("hidden_proposal", Some(selected.clone())));
        }
        if let Some(o) = &d.outcome
            && o.status == Status::Refused
            && o.stage.is_none()
            && o.reason.as_deref().and_then(default_stage).is_none()
        {
            findings.insert(mk("unclassified_reason", d.selected.clone()));
        }
        // expectations.md §8: the arguments against the tool's schema.
        if let (Some(c), Some(sel), Some(args)) = (cat, d.selected.as_ref(), d.arguments.as_ref())
            && let Some(schema) = c.tool(sel).and_then(|t| t.input_schema.as_ref())
            && !schema_accepts(schema, args)
        {
            findings.insert(mk("schema_violation", Some(sel.clone())));
        }

        out.push(Classified {
            d,
            run,
            catalogue: cat_name.clone(),
            label,
            first,
            rung,
            routing,
            boundary,
            violated,
            in_registry,
            in_exposed,
            in_retrieved,
            k: retrieval.map(|r| r.k),
            abstain: cat
                .and_then(|c| c.abstain.clone())
                .unwrap_or("no_applicable_tool".into()),
            tokens: cat.map(|c| {
                sets.retrieved
                    .iter()
                    .filter_map(|n| c.tool(n))
                    .map(|t| {
                        *token_cache
                            .entry((c.version.clone(), t.name.clone()))
                            .or_insert_with(|| definition_tokens(t))
                    })
                    .sum()
            }),
            menu,
        });
    }
    for c in catalogues.values() {
        for t in &c.tools {
            if t.family == "control" && !trusted_on.contains(&(c.version.clone(), t.name.clone())) {
                findings.insert(Finding {
                    kind: "control_impostor",
                    catalogue: Some(c.version.clone()),
                    task_id: None,
                    run_id: None,
                    step: None,
                    tool: Some(t.name.clone()),
                });
            }
        }
    }
    let audit = crate::audit::findings(&catalogues, &out);
    Analysis {
        catalogues,
        runs,
        decisions: out,
        findings: findings.into_iter().collect(),
        audit,
        cases: cases.len(),
    }
}

impl<'a> Analysis<'a> {
    /// Decisions whose run passes `keep` (e.g. one catalogue).
    pub fn filter(&self, keep: impl Fn(&Classified) -> bool) -> Vec<&Classified<'a>> {
        self.decisions.iter().filter(|c| keep(c)).collect()
    }

    pub fn all(&self) -> Vec<&Classified<'a>> {
        self.filter(|_| true)
    }

    pub fn ladder(ds: &[&Classified]) -> BTreeMap<&'static str, usize> {
        let mut m: BTreeMap<&'static str, usize> = RUNGS.iter().map(|r| (*r, 0)).collect();
        for d in ds {
            *m.get_mut(d.rung).unwrap() += 1;
        }
        m
    }

    /// `rung report ladder --format json` for these decisions.
    pub fn ladder_json(ds: &[&Classified]) -> String {
        let labelled = ds.iter().filter(|d| d.label.is_some()).count();
        let rungs = Self::ladder(ds)
            .iter()
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect::<Vec<_>>()
            .join(",");
        format!(
            "{{\"decisions\":{},\"labelled\":{labelled},\"rungs\":{{{rungs}}}}}",
            ds.len()
        )
    }

    pub fn metrics(&self, ds: &[&Classified]) -> Metrics {
        let lab: Vec<&&Classified> = ds.iter().filter(|d| d.label.is_some()).collect();
        let rate = |xs: &mut dyn Iterator<Item = bool>| {
            let mut r = Rate::default();
            for x in xs {
                r.den += 1;
                r.num += x as usize;
            }
            r
        };
        let mut recall = BTreeMap::new();
        for d in lab.iter().filter(|d| d.in_exposed) {
            if let Some(k) = d.k {
                let r: &mut Rate = recall.entry(k).or_default();
                r.den += 1;
                r.num += d.in_retrieved as usize;
            }
        }
        let acc = |d: &Classified, name: &str| {
            d.label
                .as_ref()
                .unwrap()
                .acceptable
                .iter()
                .any(|a| a == name)
        };
        // recovery: wrong labelled first decisions, then a later turn within 3
        let mut by_run: HashMap<&str, Vec<&Classified>> = HashMap::new();
        for d in &self.decisions {
            by_run.entry(d.run.run_id.as_str()).or_default().push(d);
        }
        let recovered = |d: &Classified| {
            let acc = &d.label.as_ref().unwrap().acceptable;
            let t0 = d.turn();
            by_run[d.run.run_id.as_str()].iter().any(|o| {
                o.turn() > t0 && o.turn() <= t0 + 3 && acc.iter().any(|a| a == o.selected())
            })
        };
        // pass^k over the runs of these decisions
        let run_ids: BTreeSet<&str> = ds.iter().map(|d| d.run.run_id.as_str()).collect();
        let mut tasks: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for id in run_ids {
            let r = self.runs[id];
            if let (Some(t), Some(s)) = (&r.task_id, r.success) {
                let e = tasks.entry(t.as_str()).or_default();
                e.0 += 1;
                e.1 += s as usize;
            }
        }
        let max_n = tasks.values().map(|(n, _)| *n).max().unwrap_or(0);
        let mut pass = BTreeMap::new();
        for k in 1..=max_n {
            let vals: Vec<f64> = tasks
                .values()
                .filter(|(n, _)| *n >= k)
                .map(|(n, c)| pass_ratio(*c, *n, k))
                .collect();
            pass.insert(
                k,
                (vals.iter().sum::<f64>() / vals.len() as f64, vals.len()),
            );
        }
        Metrics {
            capability_coverage: rate(&mut lab.iter().map(|d| d.in_registry)),
            exposure_recall: rate(&mut lab.iter().filter(|d| d.in_registry).map(|d| d.in_exposed)),
            tool_recall_at_k: recall,
            selection_accuracy: rate(
                &mut lab.iter().filter(|d| d.in_retrieved).map(|d| d.correct()),
            ),
            abstention_accuracy: rate(
                &mut lab
                    .iter()
                    .filter(|d| acc(d, &d.abstain))
                    .map(|d| d.selected() == d.abstain),
            ),
            no_call_accuracy: rate(
                &mut lab
                    .iter()
                    .filter(|d| acc(d, NO_CALL))
                    .map(|d| d.d.selected.is_none()),
            ),
            violation_rate: rate(&mut lab.iter().map(|d| d.violated)),
            first_call_accuracy: rate(&mut lab.iter().filter(|d| d.first).map(|d| d.correct())),
            recovery_within_3: rate(
                &mut lab
                    .iter()
                    .filter(|d| d.first && !d.correct())
                    .map(|d| recovered(d)),
            ),
            pass_hat_k: pass,
            inconsistent_tasks: {
                // first decisions of runs with a task, by (catalogue, task)
                let mut groups: BTreeMap<(Option<&str>, &str), FirstTools> = BTreeMap::new();
                for d in ds.iter().filter(|d| d.first) {
                    if let Some(t) = &d.run.task_id {
                        let g = groups.entry((d.catalogue.as_deref(), t)).or_default();
                        g.0 += 1;
                        g.1.insert(d.d.selected.as_deref());
                    }
                }
                let mut r = Rate::default();
                for (n, tools) in groups.values() {
                    if *n >= 2 {
                        r.den += 1;
                        r.num += (tools.len() > 1) as usize;
                    }
                }
                r
            },
            definition_tokens: {
                let mut t: Vec<u64> = ds.iter().filter_map(|d| d.tokens).collect();
                t.sort_unstable();
                let rank = |p: usize| t[(p * t.len()).div_ceil(100).max(1) - 1];
                (!t.is_empty()).then(|| {
                    (
                        t.iter().sum::<u64>() as f64 / t.len() as f64,
                        rank(50),
                        rank(95),
                        t.len(),
                    )
                })
            },
        }
    }

    /// Confusion cells: (sorted acceptable, selected) -> count, over SELECTION rungs,
    /// in report order.
    pub fn confusions(ds: &[&Classified]) -> Vec<(Vec<String>, Option<String>, usize)> {
        let mut m: BTreeMap<(Vec<String>, Option<String>), usize> = BTreeMap::new();
        for d in ds.iter().filter(|d| d.rung == "selection") {
            let mut a = d.label.as_ref().unwrap().acceptable.clone();
            a.sort();
            *m.entry((a, d.d.selected.clone())).or_default() += 1;
        }
        let mut v: Vec<_> = m.into_iter().map(|((a, s), n)| (a, s, n)).collect();
        v.sort_by(|x, y| {
            y.2.cmp(&x.2)
                .then_with(|| x.0.cmp(&y.0))
                .then_with(|| x.1.cmp(&y.1))
        });
        v
    }

    /// Refusals by (reason, stage) in `[since, until)`, previous in the window before.
    pub fn refusals(ds: &[&Classified], since: i64, until: i64) -> Vec<RefusalRow> {
        let len = until - since;
        let mut m: RefusalGroups = BTreeMap::new();
        for d in ds {
            let Some(o) = &d.d.outcome else { continue };
            if o.status != Status::Refused {
                continue;
            }
            let t = d.time().expect("every sample refusal is dated");
            let key = (o.reason.clone(), d.boundary.unwrap());
            if (since..until).contains(&t) {
                let e = m.entry(key).or_default();
                e.0 += 1;
                e.1.insert(d.run.run_id.as_str());
            } else if (since - len..since).contains(&t) {
                m.entry(key).or_default().2 += 1;
            }
        }
        let mut rows: Vec<RefusalRow> = m
            .into_iter()
            .map(|((reason, stage), (count, runs, previous))| RefusalRow {
                reason,
                stage,
                count,
                runs: runs.len(),
                previous,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.reason.cmp(&b.reason))
                .then_with(|| a.stage.cmp(b.stage))
        });
        rows
    }

    /// `first_failed_rung` of a run: the rung of its lowest-step decision
    /// that failed (neither `passed` nor `unlabelled`).
    pub fn first_failed_rung(&self, run_id: &str) -> Option<&'static str> {
        self.decisions
            .iter()
            .filter(|d| d.run.run_id == run_id && d.rung != "passed" && d.rung != "unlabelled")
            .min_by_key(|d| d.d.step)
            .map(|d| d.rung)
    }

    /// Every finding, the ladder's and the audit's, in report order.
    pub fn all_findings(&self) -> Vec<Finding> {
        let mut v: Vec<Finding> = self.findings.iter().chain(&self.audit).cloned().collect();
        v.sort();
        v
    }

    pub fn find(&self, run_id: &str, step: u32) -> &Classified<'a> {
        self.decisions
            .iter()
            .find(|d| d.run.run_id == run_id && d.d.step == step)
            .unwrap_or_else(|| panic!("no decision {run_id}/{step}"))
    }
}

/// C(c,k) / C(n,k), as a product so that large n does not overflow.
fn pass_ratio(c: usize, n: usize, k: usize) -> f64 {
    if k > c {
        return 0.0;
    }
    (0..k).map(|i| (c - i) as f64 / (n - i) as f64).product()
}

/// Markdown rows of a ladder count table, in ladder order.
pub fn ladder_table(ds: &[&Classified]) -> String {
    let counts = Analysis::ladder(ds);
    let mut s = String::from("| rung | decisions |\n| --- | ---: |\n");
    for r in RUNGS {
        s.push_str(&format!("| {r} | {} |\n", counts[r]));
    }
    s
}

/// Markdown rows of a metrics table.
pub fn metrics_table(m: &Metrics) -> String {
    let mut s = String::from("| metric | value |\n| --- | --- |\n");
    let mut row = |k: &str, r: &Rate| s.push_str(&format!("| {k} | {} |\n", r.show()));
    row("capability_coverage", &m.capability_coverage);
    row("exposure_recall", &m.exposure_recall);
    for (k, r) in &m.tool_recall_at_k {
        row(&format!("tool_recall_at_k.{k}"), r);
    }
    row("selection_accuracy", &m.selection_accuracy);
    row("abstention_accuracy", &m.abstention_accuracy);
    row("no_call_accuracy", &m.no_call_accuracy);
    row("violation_rate", &m.violation_rate);
    row("first_call_accuracy", &m.first_call_accuracy);
    row("recovery_within_3", &m.recovery_within_3);
    row("inconsistent_tasks", &m.inconsistent_tasks);
    for (k, (v, t)) in &m.pass_hat_k {
        s.push_str(&format!("| pass_hat_k.{k} | {v:.4} over {t} tasks |\n"));
    }
    if let Some((mean, p50, p95, n)) = m.definition_tokens {
        s.push_str(&format!(
            "| definition_tokens (estimate) | mean {mean:.1}, p50 {p50}, p95 {p95} over {n} decisions |\n"
        ));
    }
    s
}

/// Markdown rows of the confusion cells.
pub fn confusions_table(ds: &[&Classified]) -> String {
    let cells = Analysis::confusions(ds);
    let total: usize = cells.iter().map(|c| c.2).sum();
    let mut s = format!(
        "selection_failures: {total}\n\n| acceptable | selected | count | share |\n| --- | --- | ---: | ---: |\n"
    );
    for (a, sel, n) in cells {
        s.push_str(&format!(
            "| {} | {} | {n} | {:.4} |\n",
            a.join(", "),
            sel.as_deref().unwrap_or("(no call)"),
            n as f64 / total as f64
        ));
    }
    s
}

/// Markdown rows of findings counted by kind and tool (`rung report
/// findings`, its summary).
pub fn findings_summary_table(fs: &[Finding]) -> String {
    type Group<'a> = (usize, BTreeSet<&'a str>);
    let mut groups: BTreeMap<(&str, Option<&str>), Group> = BTreeMap::new();
    for f in fs {
        let g = groups.entry((f.kind, f.tool.as_deref())).or_default();
        g.0 += 1;
        g.1.extend(f.run_id.as_deref());
    }
    let mut s = String::from("| kind | tool | findings | runs |\n| --- | --- | ---: | ---: |\n");
    for ((kind, tool), (n, runs)) in groups {
        s.push_str(&format!(
            "| {kind} | {} | {n} | {} |\n",
            tool.unwrap_or("—"),
            runs.len()
        ));
    }
    s
}

/// Whether a tool's JSON Schema accepts a call's arguments (a schema
/// without a root `type` is an object's, as tool arguments are).
fn schema_accepts(schema: &serde_json::Value, args: &serde_json::Value) -> bool {
    let mut schema = schema.clone();
    if let Some(m) = schema.as_object_mut() {
        m.entry("type").or_insert_with(|| "object".into());
    }
    jsonschema::validator_for(&schema).map_or(true, |v| v.is_valid(args))
}

/// Markdown rows of a findings list.
pub fn findings_table(fs: &[Finding]) -> String {
    let o = |x: &Option<String>| x.clone().unwrap_or("—".into());
    let mut s = String::from(
        "| kind | catalogue | task | run | step | tool |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for f in fs {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            f.kind,
            o(&f.catalogue),
            o(&f.task_id),
            o(&f.run_id),
            f.step.map(|s| s.to_string()).unwrap_or("—".into()),
            o(&f.tool)
        ));
    }
    s
}

/// `rung report metrics --format json`, one metric a line.
pub fn metrics_json(m: &Metrics) -> String {
    let rate = |r: &Rate| serde_json::json!({"value": r.value(), "numerator": r.num, "denominator": r.den});
    let mut rows: Vec<(String, serde_json::Value)> = vec![
        ("capability_coverage".into(), rate(&m.capability_coverage)),
        ("exposure_recall".into(), rate(&m.exposure_recall)),
        (
            "tool_recall_at_k".into(),
            serde_json::Value::Object(
                m.tool_recall_at_k
                    .iter()
                    .map(|(k, r)| (k.to_string(), rate(r)))
                    .collect(),
            ),
        ),
        ("selection_accuracy".into(), rate(&m.selection_accuracy)),
        ("abstention_accuracy".into(), rate(&m.abstention_accuracy)),
        ("no_call_accuracy".into(), rate(&m.no_call_accuracy)),
        ("violation_rate".into(), rate(&m.violation_rate)),
        ("first_call_accuracy".into(), rate(&m.first_call_accuracy)),
        ("recovery_within_3".into(), rate(&m.recovery_within_3)),
    ];
    // The four metrics over runs with expectations (format v1.1): no
    // sample sets expected calls or outputs, so each is empty.
    for k in [
        "expected_call_recall",
        "argument_accuracy",
        "runs_as_expected",
        "agreement_with_success",
    ] {
        rows.push((
            k.into(),
            serde_json::json!({"value": null, "numerator": 0, "denominator": 0}),
        ));
    }
    rows.push((
        "pass_hat_k".into(),
        serde_json::Value::Object(
            m.pass_hat_k
                .iter()
                .map(|(k, (v, t))| (k.to_string(), serde_json::json!({"value": v, "tasks": t})))
                .collect(),
        ),
    ));
    rows.push((
        "definition_tokens".into(),
        match m.definition_tokens {
            Some((mean, p50, p95, n)) => {
                serde_json::json!({"mean": mean, "p50": p50, "p95": p95, "decisions": n})
            }
            None => serde_json::json!({"mean": null, "p50": null, "p95": null, "decisions": 0}),
        },
    ));
    rows.push(("inconsistent_tasks".into(), rate(&m.inconsistent_tasks)));
    let body: Vec<String> = rows
        .iter()
        .map(|(k, v)| {
            let mut s = format!(" \"{k}\": ");
            crate::json::write_value(&mut s, v);
            s
        })
        .collect();
    format!("{{\n{}\n}}", body.join(",\n"))
}
