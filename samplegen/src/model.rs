//! Typed records of rung's trace format (trace-format.md), built by the sample
//! sets, checked by `check`, and written as JSON Lines by `to_value`.

use serde_json::{Map, Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    None,
    ReadOnly,
    Mutating,
    Destructive,
}

impl Effect {
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::None => "none",
            Effect::ReadOnly => "read_only",
            Effect::Mutating => "mutating",
            Effect::Destructive => "destructive",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: String,
    pub family: String,
    pub effect: Effect,
    pub idempotent: bool,
    pub open_world: bool,
    pub description: String,
    pub use_when: Vec<String>,
    pub avoid_when: Vec<String>,
    pub keywords: Vec<String>,
    pub input_schema: Option<Value>,
    pub output_schema: Option<Value>,
    pub owner: Option<String>,
    pub provenance: Option<String>,
    pub approval: Option<String>,
}

impl Tool {
    pub fn new(name: &str, family: &str, effect: Effect, description: &str) -> Self {
        Tool {
            name: name.into(),
            family: family.into(),
            effect,
            idempotent: matches!(effect, Effect::None | Effect::ReadOnly),
            open_world: false,
            description: description.into(),
            use_when: vec![],
            avoid_when: vec![],
            keywords: vec![],
            input_schema: None,
            output_schema: None,
            owner: None,
            provenance: None,
            approval: None,
        }
    }
    pub fn schema(mut self, s: Value) -> Self {
        self.input_schema = Some(s);
        self
    }
    pub fn output(mut self, s: Value) -> Self {
        self.output_schema = Some(s);
        self
    }
    pub fn open_world(mut self) -> Self {
        self.open_world = true;
        self
    }
    pub fn idempotent(mut self, v: bool) -> Self {
        self.idempotent = v;
        self
    }
    pub fn use_when(mut self, xs: &[&str]) -> Self {
        self.use_when = xs.iter().map(|s| s.to_string()).collect();
        self
    }
    pub fn avoid_when(mut self, xs: &[&str]) -> Self {
        self.avoid_when = xs.iter().map(|s| s.to_string()).collect();
        self
    }
    pub fn keywords(mut self, xs: &[&str]) -> Self {
        self.keywords = xs.iter().map(|s| s.to_string()).collect();
        self
    }
    pub fn governed(mut self, owner: &str, provenance: &str, approval: &str) -> Self {
        self.owner = Some(owner.into());
        self.provenance = Some(provenance.into());
        self.approval = Some(approval.into());
        self
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        m.insert("family".into(), json!(self.family));
        m.insert("effect".into(), json!(self.effect.as_str()));
        m.insert("idempotent".into(), json!(self.idempotent));
        m.insert("open_world".into(), json!(self.open_world));
        m.insert("description".into(), json!(self.description));
        for (k, xs) in [
            ("use_when", &self.use_when),
            ("avoid_when", &self.avoid_when),
            ("keywords", &self.keywords),
        ] {
            if !xs.is_empty() {
                m.insert(k.into(), json!(xs));
            }
        }
        if let Some(s) = &self.input_schema {
            m.insert("input_schema".into(), s.clone());
        }
        if let Some(s) = &self.output_schema {
            m.insert("output_schema".into(), s.clone());
        }
        for (k, v) in [
            ("owner", &self.owner),
            ("provenance", &self.provenance),
            ("approval", &self.approval),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        Value::Object(m)
    }
}

/// A control capability (family `control`, effect `none`, closed-world).
pub fn control(name: &str, description: &str) -> Tool {
    Tool::new(name, "control", Effect::None, description).schema(json!({
        "type": "object",
        "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 300}},
        "required": ["reason"],
        "additionalProperties": false
    }))
}

#[derive(Clone, Debug)]
pub struct Catalogue {
    pub version: String,
    pub created_at: Option<String>,
    pub abstain: Option<String>,
    pub tools: Vec<Tool>,
}

impl Catalogue {
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!("catalogue"));
        m.insert("version".into(), json!(self.version));
        if let Some(c) = &self.created_at {
            m.insert("created_at".into(), json!(c));
        }
        if let Some(a) = &self.abstain {
            m.insert("abstain".into(), json!(a));
        }
        m.insert(
            "tools".into(),
            Value::Array(self.tools.iter().map(Tool::to_value).collect()),
        );
        Value::Object(m)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Policy {
    pub allowed_families: Option<Vec<String>>,
    pub max_effect: Option<Effect>,
    pub allow_open_world: Option<bool>,
}

impl Policy {
    pub fn new(families: &[&str], max_effect: Effect) -> Self {
        Policy {
            allowed_families: Some(families.iter().map(|s| s.to_string()).collect()),
            max_effect: Some(max_effect),
            allow_open_world: None,
        }
    }
    pub fn open_world(mut self) -> Self {
        self.allow_open_world = Some(true);
        self
    }
    /// Rules 2-4 of ladder.md: the rule that hides `t`, if any.
    pub fn hides(&self, t: &Tool) -> Option<&'static str> {
        if let Some(f) = &self.allowed_families
            && !f.contains(&t.family)
        {
            return Some("family");
        }
        if let Some(e) = self.max_effect
            && t.effect > e
        {
            return Some("effect");
        }
        if t.open_world && self.allow_open_world != Some(true) {
            return Some("open_world");
        }
        None
    }
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        if let Some(f) = &self.allowed_families {
            m.insert("allowed_families".into(), json!(f));
        }
        if let Some(e) = self.max_effect {
            m.insert("max_effect".into(), json!(e.as_str()));
        }
        if let Some(o) = self.allow_open_world {
            m.insert("allow_open_world".into(), json!(o));
        }
        Value::Object(m)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Retrieval {
    pub k: u32,
    pub selector: Option<String>,
    pub query: Option<String>,
    pub candidates: Vec<(String, f64)>,
}

impl Retrieval {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("k".into(), json!(self.k));
        if let Some(s) = &self.selector {
            m.insert("selector".into(), json!(s));
        }
        if let Some(q) = &self.query {
            m.insert("query".into(), json!(q));
        }
        m.insert(
            "candidates".into(),
            Value::Array(
                self.candidates
                    .iter()
                    .map(|(n, s)| json!({"name": n, "score": s}))
                    .collect(),
            ),
        );
        Value::Object(m)
    }
}

/// The menu fields a run can pin and a decision can override.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Menu {
    pub policy: Option<Policy>,
    pub trusted_controls: Option<Vec<String>>,
    pub retrieval: Option<Retrieval>,
    pub visible: Option<Vec<String>>,
}

impl Menu {
    fn write(&self, m: &mut Map<String, Value>) {
        if let Some(p) = &self.policy {
            m.insert("policy".into(), p.to_value());
        }
        if let Some(t) = &self.trusted_controls {
            m.insert("trusted_controls".into(), json!(t));
        }
        if let Some(r) = &self.retrieval {
            m.insert("retrieval".into(), r.to_value());
        }
        if let Some(v) = &self.visible {
            m.insert("visible".into(), json!(v));
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Run {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<u32>,
    pub goal: Option<String>,
    pub intent: Option<&'static str>,
    pub model: Option<String>,
    pub catalogue: Option<String>,
    pub selector: Option<String>,
    pub menu: Menu,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub terminated: Option<&'static str>,
    pub success: Option<bool>,
    pub harm: Option<bool>,
    pub scope: Option<String>,
    pub tags: Vec<(String, String)>,
}

pub const INTENTS: &[&str] = &["inform", "prepare", "act"];
pub const TERMINATED: &[&str] = &[
    "answered",
    "asked_user",
    "step_limit",
    "timeout",
    "needs_confirmation",
    "harness_stopped",
    "error",
];

impl Run {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!("run"));
        m.insert("run_id".into(), json!(self.run_id));
        let strs = [
            ("task_id", self.task_id.as_deref()),
            ("goal", self.goal.as_deref()),
            ("intent", self.intent),
            ("model", self.model.as_deref()),
            ("catalogue", self.catalogue.as_deref()),
            ("selector", self.selector.as_deref()),
            ("started_at", self.started_at.as_deref()),
            ("ended_at", self.ended_at.as_deref()),
            ("terminated", self.terminated),
            ("scope", self.scope.as_deref()),
        ];
        for (k, v) in strs {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        if let Some(t) = self.trial {
            m.insert("trial".into(), json!(t));
        }
        if let Some(s) = self.success {
            m.insert("success".into(), json!(s));
        }
        if let Some(h) = self.harm {
            m.insert("harm".into(), json!(h));
        }
        self.menu.write(&mut m);
        if !self.tags.is_empty() {
            let t: Map<String, Value> = self
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            m.insert("tags".into(), Value::Object(t));
        }
        Value::Object(m)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    Refused,
    Error,
    Unknown,
    NotRun,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Refused => "refused",
            Status::Error => "error",
            Status::Unknown => "unknown",
            Status::NotRun => "not_run",
        }
    }
}

/// The boundary stages a trace may record (trace-format.md).
pub const STAGES: &[&str] = &[
    "representation",
    "schema",
    "semantics",
    "authorization",
    "precondition",
    "execution",
];

/// The default reason -> stage table of trace-format.md.
pub fn default_stage(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "unparseable" | "unknown_tool" | "call_in_text" | "malformed_call" => "representation",
        "invalid_argument" | "schema_violation" | "missing_argument" | "unexpected_argument" => {
            "schema"
        }
        "not_found"
        | "invoice_not_found"
        | "subscription_not_found"
        | "customer_not_found"
        | "case_not_found"
        | "target_not_from_lookup"
        | "scope_drift"
        | "not_current_period"
        | "already_refunded"
        | "version_conflict"
        | "case_version_conflict" => "semantics",
        "not_permitted" | "outside_intent" | "insufficient_scope" | "awaiting_approval"
        | "approval_rejected" => "authorization",
        "precondition"
        | "existing_ticket"
        | "subscription_still_active"
        | "confirmation_invalid"
        | "no_change" => "precondition",
        "timeout" | "outcome_unknown" | "provider_error" | "rate_limited" | "internal_error" => {
            "execution"
        }
        _ => return None,
    })
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: Status,
    pub stage: Option<&'static str>,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub retryable: Option<bool>,
}

impl Outcome {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("status".into(), json!(self.status.as_str()));
        if let Some(s) = self.stage {
            m.insert("stage".into(), json!(s));
        }
        if let Some(r) = &self.reason {
            m.insert("reason".into(), json!(r));
        }
        if let Some(r) = &self.message {
            m.insert("message".into(), json!(r));
        }
        if let Some(r) = self.retryable {
            m.insert("retryable".into(), json!(r));
        }
        Value::Object(m)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub acceptable: Vec<String>,
    pub forbidden: Vec<String>,
}

impl Label {
    pub fn new(acceptable: &[&str], forbidden: &[&str]) -> Self {
        Label {
            acceptable: acceptable.iter().map(|s| s.to_string()).collect(),
            forbidden: forbidden.iter().map(|s| s.to_string()).collect(),
        }
    }
    fn write(&self, m: &mut Map<String, Value>) {
        m.insert("acceptable".into(), json!(self.acceptable));
        if !self.forbidden.is_empty() {
            m.insert("forbidden".into(), json!(self.forbidden));
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Advanced,
    None,
    Regressed,
}

impl Progress {
    pub fn as_str(self) -> &'static str {
        match self {
            Progress::Advanced => "advanced",
            Progress::None => "none",
            Progress::Regressed => "regressed",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Decision {
    pub run_id: String,
    pub step: u32,
    pub turn: Option<u32>,
    pub at: Option<String>,
    pub phase: Option<String>,
    pub catalogue: Option<String>,
    pub menu: Menu,
    pub exposed: Option<Vec<String>>,
    pub selected: Option<String>,
    pub call_id: Option<String>,
    pub arguments: Option<Value>,
    pub raw: Option<String>,
    pub outcome: Option<Outcome>,
    pub latency_ms: Option<u64>,
    pub result: Option<Value>,
    pub progress: Option<Progress>,
    pub expected: Option<Label>,
}

impl Decision {
    pub fn new(run_id: &str, step: u32, selected: Option<&str>) -> Self {
        Decision {
            run_id: run_id.into(),
            step,
            selected: selected.map(str::to_string),
            ..Default::default()
        }
    }
    pub fn turn(mut self, t: u32) -> Self {
        self.turn = Some(t);
        self
    }
    pub fn at(mut self, t: i64) -> Self {
        self.at = Some(crate::time::fmt(t));
        self
    }
    pub fn phase(mut self, p: &str) -> Self {
        self.phase = Some(p.into());
        self
    }
    pub fn catalogue(mut self, c: &str) -> Self {
        self.catalogue = Some(c.into());
        self
    }
    pub fn policy(mut self, p: Policy) -> Self {
        self.menu.policy = Some(p);
        self
    }
    pub fn retrieval(mut self, r: Retrieval) -> Self {
        self.menu.retrieval = Some(r);
        self
    }
    pub fn visible(mut self, v: &[&str]) -> Self {
        self.menu.visible = Some(v.iter().map(|s| s.to_string()).collect());
        self
    }
    pub fn call(mut self, id: &str, args: Value) -> Self {
        self.call_id = Some(id.into());
        self.arguments = Some(args);
        self
    }
    pub fn args(mut self, args: Value) -> Self {
        self.arguments = Some(args);
        self
    }
    pub fn raw(mut self, r: &str) -> Self {
        self.raw = Some(r.into());
        self
    }
    pub fn latency(mut self, ms: u64) -> Self {
        self.latency_ms = Some(ms);
        self
    }
    pub fn result(mut self, r: Value) -> Self {
        self.result = Some(r);
        self
    }
    pub fn progress(mut self, p: Progress) -> Self {
        self.progress = Some(p);
        self
    }
    pub fn advanced(self) -> Self {
        self.progress(Progress::Advanced)
    }
    pub fn stalled(self) -> Self {
        self.progress(Progress::None)
    }
    pub fn expected(mut self, l: Label) -> Self {
        self.expected = Some(l);
        self
    }
    fn outcome(
        mut self,
        status: Status,
        stage: Option<&'static str>,
        reason: Option<&str>,
        message: Option<&str>,
        retryable: Option<bool>,
    ) -> Self {
        self.outcome = Some(Outcome {
            status,
            stage,
            reason: reason.map(str::to_string),
            message: message.map(str::to_string),
            retryable,
        });
        self
    }
    pub fn ok(self) -> Self {
        self.outcome(Status::Ok, None, None, None, None)
    }
    pub fn not_run(self) -> Self {
        self.outcome(Status::NotRun, None, None, None, None)
    }
    /// Refused by the action boundary, the stage left for rung to infer from `reason`.
    pub fn refused(self, reason: &str, message: &str) -> Self {
        self.outcome(
            Status::Refused,
            None,
            Some(reason),
            Some(message),
            Some(false),
        )
    }
    /// Refused, with the stage recorded by the harness.
    pub fn refused_at(self, stage: &'static str, reason: &str, message: &str) -> Self {
        self.outcome(
            Status::Refused,
            Some(stage),
            Some(reason),
            Some(message),
            Some(false),
        )
    }
    pub fn error(self, reason: &str, message: &str, retryable: bool) -> Self {
        self.outcome(
            Status::Error,
            Some("execution"),
            Some(reason),
            Some(message),
            Some(retryable),
        )
    }
    pub fn unknown(self, reason: &str, message: &str) -> Self {
        self.outcome(
            Status::Unknown,
            None,
            Some(reason),
            Some(message),
            Some(true),
        )
    }
    pub fn retryable(mut self, r: bool) -> Self {
        if let Some(o) = &mut self.outcome {
            o.retryable = Some(r);
        }
        self
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!("decision"));
        m.insert("run_id".into(), json!(self.run_id));
        m.insert("step".into(), json!(self.step));
        if let Some(t) = self.turn {
            m.insert("turn".into(), json!(t));
        }
        for (k, v) in [
            ("at", &self.at),
            ("phase", &self.phase),
            ("catalogue", &self.catalogue),
            ("call_id", &self.call_id),
            ("raw", &self.raw),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        self.menu.write(&mut m);
        if let Some(e) = &self.exposed {
            m.insert("exposed".into(), json!(e));
        }
        m.insert("selected".into(), json!(self.selected));
        if let Some(a) = &self.arguments {
            m.insert("arguments".into(), a.clone());
        }
        if let Some(o) = &self.outcome {
            m.insert("outcome".into(), o.to_value());
        }
        if let Some(l) = self.latency_ms {
            m.insert("latency_ms".into(), json!(l));
        }
        if let Some(r) = &self.result {
            m.insert("result".into(), r.clone());
        }
        if let Some(p) = self.progress {
            m.insert("progress".into(), json!(p.as_str()));
        }
        if let Some(l) = &self.expected {
            let mut e = Map::new();
            l.write(&mut e);
            m.insert("expected".into(), Value::Object(e));
        }
        Value::Object(m)
    }
}

#[derive(Clone, Debug)]
pub struct Case {
    pub task_id: String,
    pub step: Option<u32>,
    pub catalogue: Option<String>,
    pub label: Label,
    pub note: Option<String>,
}

impl Case {
    pub fn new(task_id: &str, acceptable: &[&str], forbidden: &[&str]) -> Self {
        Case {
            task_id: task_id.into(),
            step: None,
            catalogue: None,
            label: Label::new(acceptable, forbidden),
            note: None,
        }
    }
    pub fn step(mut self, s: u32) -> Self {
        self.step = Some(s);
        self
    }
    pub fn catalogue(mut self, c: &str) -> Self {
        self.catalogue = Some(c.into());
        self
    }
    pub fn note(mut self, n: &str) -> Self {
        self.note = Some(n.into());
        self
    }
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!("case"));
        m.insert("task_id".into(), json!(self.task_id));
        if let Some(s) = self.step {
            m.insert("step".into(), json!(s));
        }
        if let Some(c) = &self.catalogue {
            m.insert("catalogue".into(), json!(c));
        }
        self.label.write(&mut m);
        if let Some(n) = &self.note {
            m.insert("note".into(), json!(n));
        }
        Value::Object(m)
    }
}

#[derive(Clone, Debug)]
pub enum Record {
    Catalogue(Catalogue),
    Run(Run),
    Decision(Decision),
    Case(Case),
}

impl Record {
    pub fn to_value(&self) -> Value {
        match self {
            Record::Catalogue(c) => c.to_value(),
            Record::Run(r) => r.to_value(),
            Record::Decision(d) => d.to_value(),
            Record::Case(c) => c.to_value(),
        }
    }
}

/// One sample set: its files (in the byte order rung imports them) and README.
pub struct TraceSet {
    pub name: &'static str,
    pub files: Vec<(String, Vec<Record>)>,
    pub readme: String,
}

impl TraceSet {
    pub fn new(name: &'static str) -> Self {
        TraceSet {
            name,
            files: vec![],
            readme: String::new(),
        }
    }
    pub fn file(&mut self, name: &str) -> &mut Vec<Record> {
        if let Some(i) = self.files.iter().position(|(n, _)| n == name) {
            return &mut self.files[i].1;
        }
        self.files.push((name.to_string(), vec![]));
        &mut self.files.last_mut().unwrap().1
    }
    /// Every record in import order (files by name compared byte by byte).
    pub fn records(&self) -> Vec<&Record> {
        let mut files: Vec<&(String, Vec<Record>)> = self.files.iter().collect();
        files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        files.iter().flat_map(|(_, rs)| rs.iter()).collect()
    }
}
