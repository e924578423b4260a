//! Trace format v1.1 (`trace-format.md`, `expectations.md`): one JSON
//! object → one validated record, with errors that name the record and the
//! field to fix.

use serde_json::{Map, Value};

pub use crate::error::InvalidRecord;
use crate::model::{
    Candidate, Case, Catalogue, Checker, Decision, Effect, Expectations, ExpectedCall,
    ExpectedValue, ExtraArguments, Intent, Label, MenuFields, Outcome, Policy, Progress, Record,
    Retrieval, Run, Stage, Status, Strings, Terminated, Timestamp, Tool,
};

/// Ids are strings up to this many bytes.
pub const MAX_ID_BYTES: usize = 256;

/// A parsed line: a record, or a record of a type this rung does not know.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Record(Record),
    UnknownType(String),
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Short, safe rendering of an offending value for an error message:
/// secrets masked, control characters escaped, cut.
fn shown(v: &Value) -> String {
    let s = match v {
        Value::String(s) => return crate::text::echo(s),
        // A container is shown by its start only: never serialise it whole.
        Value::Array(_) | Value::Object(_) => {
            let mut w = Limited(String::new());
            let _ = serde_json::to_writer(&mut w, v);
            w.0
        }
        other => other.to_string(),
    };
    let s = crate::redact::mask(&s);
    let s = crate::text::escape(&s);
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// A writer that keeps the first bytes written and refuses the rest.
struct Limited(String);

impl std::io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() > 4 * crate::text::ECHO_MAX {
            return Err(std::io::Error::other("enough"));
        }
        self.0.push_str(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The fields of one JSON object, taken one by one; what is left is `extra`.
struct Obj {
    map: Map<String, Value>,
    path: String,
}

type Res<T> = Result<T, String>;

impl Obj {
    fn new(v: Value, path: &str) -> Res<Obj> {
        match v {
            Value::Object(map) => Ok(Obj {
                map,
                path: path.to_string(),
            }),
            other => Err(format!(
                "field \"{path}\" must be an object, not {}",
                type_name(&other)
            )),
        }
    }

    fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// A present, non-null value.
    fn take(&mut self, key: &str) -> Option<Value> {
        match self.map.remove(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    fn missing(&self, key: &str) -> String {
        format!("missing required field \"{}\"", self.name(key))
    }

    fn wrong(&self, key: &str, want: &str, got: &Value) -> String {
        format!(
            "field \"{}\" must be {want}, not {} ({})",
            self.name(key),
            type_name(got),
            shown(got)
        )
    }

    fn opt_str(&mut self, key: &str) -> Res<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", &other)),
        }
    }

    fn req_str(&mut self, key: &str) -> Res<String> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    fn opt_id(&mut self, key: &str) -> Res<Option<String>> {
        let v = self.opt_str(key)?;
        if let Some(s) = &v
            && s.len() > MAX_ID_BYTES
        {
            return Err(format!(
                "field \"{}\" is {} bytes long; ids are at most {MAX_ID_BYTES} bytes",
                self.name(key),
                s.len()
            ));
        }
        Ok(v)
    }

    fn req_id(&mut self, key: &str) -> Res<String> {
        self.opt_id(key)?.ok_or_else(|| self.missing(key))
    }

    fn opt_bool(&mut self, key: &str) -> Res<Option<bool>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(self.wrong(key, "true or false", &other)),
        }
    }

    fn opt_int(&mut self, key: &str, min: i64) -> Res<Option<i64>> {
        match self.take(key) {
            None => Ok(None),
            // `3.0` is the integer 3: some writers print every number so.
            Some(Value::Number(n)) => match n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                    .map(|f| f as i64)
            }) {
                Some(i) if i >= min => Ok(Some(i)),
                _ => Err(format!(
                    "field \"{}\" must be an integer ≥ {min}, not {n}",
                    self.name(key)
                )),
            },
            Some(other) => Err(self.wrong(key, "an integer", &other)),
        }
    }

    fn opt_number(&mut self, key: &str) -> Res<Option<f64>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(self.wrong(key, "a number", &other)),
        }
    }

    fn opt_enum<T>(
        &mut self,
        key: &str,
        parse: fn(&str) -> Option<T>,
        spellings: fn() -> String,
    ) -> Res<Option<T>> {
        match self.opt_str(key)? {
            None => Ok(None),
            Some(s) => parse(&s).map(Some).ok_or_else(|| {
                format!(
                    "field \"{}\": {} is not one of {}",
                    self.name(key),
                    crate::text::echo(&s),
                    spellings()
                )
            }),
        }
    }

    fn opt_time(&mut self, key: &str) -> Res<Option<Timestamp>> {
        match self.opt_str(key)? {
            None => Ok(None),
            Some(s) => Timestamp::parse(&s).map(Some).ok_or_else(|| {
                format!(
                    "field \"{}\": {} is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)",
                    self.name(key),
                    shown(&Value::String(s.clone()))
                )
            }),
        }
    }

    fn opt_str_list(&mut self, key: &str) -> Res<Option<Vec<String>>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s),
                        other => {
                            return Err(format!(
                                "field \"{}[{i}]\" must be a string, not {} ({})",
                                self.name(key),
                                type_name(&other),
                                shown(&other)
                            ));
                        }
                    }
                }
                Ok(Some(out))
            }
            Some(other) => Err(self.wrong(key, "a list of strings", &other)),
        }
    }

    fn opt_obj(&mut self, key: &str) -> Res<Option<Obj>> {
        let name = self.name(key);
        self.take(key).map(|v| Obj::new(v, &name)).transpose()
    }

    fn opt_any(&mut self, key: &str) -> Option<Value> {
        self.take(key)
    }

    /// Unknown fields, kept as an object (`{}` when none).
    fn extra(self) -> Value {
        Value::Object(self.map)
    }
}

/// Parses one JSON value (a line of a trace file) into a record.
pub fn parse(value: Value) -> Result<Parsed, InvalidRecord> {
    let mut obj = Obj::new(value, "").map_err(|_| InvalidRecord {
        record: None,
        message: "each line must be a JSON object with a \"type\" field".to_string(),
    })?;
    let ty = match obj.map.remove("type") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(InvalidRecord {
                record: None,
                message: format!(
                    "field \"type\" must be a string, not {} ({})",
                    type_name(&other),
                    shown(&other)
                ),
            });
        }
        None => {
            return Err(InvalidRecord {
                record: None,
                message: "missing required field \"type\" (catalogue, run, decision or case)"
                    .to_string(),
            });
        }
    };
    let describe = describe_key(&ty, &obj.map);
    let fail = |message: String| InvalidRecord {
        record: describe.clone(),
        message,
    };
    let record = match ty.as_str() {
        "catalogue" => Record::Catalogue(catalogue(obj).map_err(fail)?),
        "run" => Record::Run(Box::new(run(obj).map_err(fail)?)),
        "decision" => Record::Decision(Box::new(decision(obj).map_err(fail)?)),
        "case" => Record::Case(Box::new(case(obj).map_err(fail)?)),
        _ => return Ok(Parsed::UnknownType(ty)),
    };
    Ok(Parsed::Record(record))
}

/// How to name a record in an error before it is parsed, from whatever of
/// its key can be read.
fn describe_key(ty: &str, map: &Map<String, Value>) -> Option<String> {
    let s = |k: &str| map.get(k).and_then(Value::as_str).map(shown_id);
    let n = |k: &str| map.get(k).and_then(Value::as_i64);
    match ty {
        "catalogue" => Some(match s("version") {
            Some(v) => format!("catalogue {v}"),
            None => "catalogue".to_string(),
        }),
        "run" => Some(match s("run_id") {
            Some(r) => format!("run {r}"),
            None => "run".to_string(),
        }),
        "decision" => Some(match (s("run_id"), n("step")) {
            (Some(r), Some(st)) => format!("decision {r} step {st}"),
            (Some(r), None) => format!("decision {r}"),
            _ => "decision".to_string(),
        }),
        "case" => Some(match (s("task_id"), n("step")) {
            (Some(t), Some(st)) => format!("case {t} step {st}"),
            (Some(t), None) => format!("case {t}"),
            _ => "case".to_string(),
        }),
        _ => None,
    }
}

/// A key from a trace (a tag name) inside a field path: escaped and cut.
fn key_shown(k: &str) -> String {
    crate::text::truncate(&crate::text::escape(k), crate::text::ECHO_MAX).into_owned()
}

/// An id as error messages show it: masked, escaped, and cut when very long.
fn shown_id(s: &str) -> String {
    let head = match s.char_indices().nth(320) {
        Some((i, _)) => &s[..i],
        None => s,
    };
    let masked = crate::redact::mask(head);
    let escaped = crate::text::escape(&masked);
    if escaped.chars().count() > 80 || head.len() < s.len() {
        format!("{}…", escaped.chars().take(80).collect::<String>())
    } else {
        escaped.into_owned()
    }
}

fn catalogue(mut o: Obj) -> Res<Catalogue> {
    let version = o.req_id("version")?;
    let created_at = o.opt_time("created_at")?;
    let abstain = o.opt_id("abstain")?;
    let tools_v = o.take("tools").ok_or_else(|| o.missing("tools"))?;
    let Value::Array(items) = tools_v else {
        return Err(o.wrong("tools", "a list of tool objects", &tools_v));
    };
    let mut tools: Vec<Tool> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let t = tool(item, &format!("tools[{i}]"))?;
        if tools.iter().any(|x| x.name == t.name) {
            return Err(format!(
                "field \"tools[{i}].name\": tool {} is listed twice in this catalogue record",
                crate::text::echo(&t.name)
            ));
        }
        tools.push(t);
    }
    Ok(Catalogue {
        version,
        created_at,
        abstain,
        tools,
        extra: o.extra(),
    })
}

fn tool(v: Value, path: &str) -> Res<Tool> {
    let record = v.clone();
    let mut o = Obj::new(v, path)?;
    let name = o.req_id("name")?;
    if name.starts_with('@') {
        return Err(format!(
            "field \"{}\": tool names cannot start with '@' (reserved for @no_call)",
            o.name("name")
        ));
    }
    let family = o.req_str("family")?;
    let effect = o
        .opt_enum("effect", Effect::parse, Effect::spellings)?
        .ok_or_else(|| o.missing("effect"))?;
    let description = o.req_str("description")?;
    let open_world = o.opt_bool("open_world")?.unwrap_or(false);
    let idempotent = o.opt_bool("idempotent")?.unwrap_or(false);
    let input_schema = schema(&mut o, "input_schema")?;
    schema(&mut o, "output_schema")?;
    for key in ["use_when", "avoid_when", "keywords"] {
        o.opt_str_list(key)?;
    }
    for key in ["owner", "provenance", "approval"] {
        o.opt_str(key)?;
    }
    Ok(Tool {
        name,
        family,
        effect,
        description,
        open_world,
        idempotent,
        input_schema,
        record,
    })
}

fn schema(o: &mut Obj, key: &str) -> Res<Option<Value>> {
    match o.take(key) {
        None => Ok(None),
        Some(v @ (Value::Object(_) | Value::Bool(_))) => Ok(Some(v)),
        Some(other) => Err(o.wrong(key, "a JSON Schema object", &other)),
    }
}

fn policy(o: &mut Obj) -> Res<Option<Policy>> {
    o.opt_obj("policy")?.map(policy_obj).transpose()
}

fn policy_obj(mut p: Obj) -> Res<Policy> {
    let allowed_families = p.opt_str_list("allowed_families")?;
    let max_effect = p.opt_enum("max_effect", Effect::parse, Effect::spellings)?;
    let allow_open_world = p.opt_bool("allow_open_world")?.unwrap_or(false);
    Ok(Policy {
        allowed_families,
        max_effect,
        allow_open_world,
        extra: p.extra(),
    })
}

fn retrieval(o: &mut Obj) -> Res<Option<Retrieval>> {
    o.opt_obj("retrieval")?.map(retrieval_obj).transpose()
}

/// A candidate taken directly when it is well formed (they are many);
/// otherwise the value back, for the general path.
fn well_formed_candidate(item: Value) -> Result<Candidate, Value> {
    let Value::Object(mut m) = item else {
        return Err(item);
    };
    let name_ok = matches!(m.get("name"), Some(Value::String(_)));
    let score_ok = matches!(m.get("score"), None | Some(Value::Null | Value::Number(_)));
    if !(name_ok && score_ok) {
        return Err(Value::Object(m));
    }
    let Some(Value::String(name)) = m.remove("name") else {
        return Err(Value::Object(m));
    };
    let score = match m.remove("score") {
        Some(Value::Number(n)) => n.as_f64(),
        _ => None,
    };
    Ok(Candidate {
        name,
        score,
        extra: Value::Object(m),
    })
}

fn retrieval_obj(mut r: Obj) -> Res<Retrieval> {
    let k = r.opt_int("k", 0)?.ok_or_else(|| {
        format!(
            "missing required field \"{}\" (how many candidates the retriever kept)",
            r.name("k")
        )
    })?;
    let selector = r.opt_str("selector")?;
    let query = r.opt_str("query")?;
    let mut candidates = Vec::new();
    if let Some(v) = r.take("candidates") {
        let Value::Array(items) = v else {
            return Err(r.wrong("candidates", "a list of {name, score} objects", &v));
        };
        candidates.reserve(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match well_formed_candidate(item) {
                Ok(c) => candidates.push(c),
                Err(item) => {
                    // The general path, for its precise error message.
                    let mut c = Obj::new(item, &format!("{}[{i}]", r.name("candidates")))?;
                    candidates.push(Candidate {
                        name: c.req_str("name")?,
                        score: c.opt_number("score")?,
                        extra: c.extra(),
                    });
                }
            }
        }
    }
    Ok(Retrieval {
        k: u32::try_from(k).unwrap_or(u32::MAX),
        selector,
        query,
        candidates,
        extra: r.extra(),
    })
}

fn menu(o: &mut Obj) -> Res<MenuFields> {
    Ok(MenuFields {
        catalogue: o.opt_id("catalogue")?,
        policy: policy(o)?,
        trusted_controls: o.opt_str_list("trusted_controls")?,
        retrieval: retrieval(o)?,
        visible: o.opt_str_list("visible")?,
    })
}

fn run(mut o: Obj) -> Res<Run> {
    let run_id = o.req_id("run_id")?;
    let task_id = o.opt_id("task_id")?;
    let trial = o.opt_int("trial", 0)?;
    let goal = o.opt_str("goal")?;
    let intent = o.opt_enum("intent", Intent::parse, Intent::spellings)?;
    let model = o.opt_str("model")?;
    let selector = o.opt_str("selector")?;
    let menu = menu(&mut o)?;
    let started_at = o.opt_time("started_at")?;
    let ended_at = o.opt_time("ended_at")?;
    let terminated = o.opt_enum("terminated", Terminated::parse, Terminated::spellings)?;
    let success = o.opt_bool("success")?;
    let harm = o.opt_bool("harm")?;
    let scope = o.opt_str("scope")?;
    let mut tags = Vec::new();
    if let Some(mut t) = o.opt_obj("tags")? {
        for (k, v) in std::mem::take(&mut t.map) {
            match v {
                Value::String(s) => tags.push((k, s)),
                other => {
                    return Err(format!(
                        "field \"tags.{}\" must be a string (tags are a string map), not {} ({})",
                        key_shown(&k),
                        type_name(&other),
                        shown(&other)
                    ));
                }
            }
        }
    }
    Ok(Run {
        run_id,
        task_id,
        trial,
        goal,
        intent,
        model,
        selector,
        menu,
        started_at,
        ended_at,
        terminated,
        success,
        harm,
        scope,
        tags,
        extra: o.extra(),
    })
}

fn label(o: &mut Obj, what: &str) -> Res<Label> {
    let acceptable = o
        .opt_str_list("acceptable")?
        .ok_or_else(|| o.missing("acceptable"))?;
    if acceptable.is_empty() {
        return Err(format!(
            "field \"{}\" is empty; {what} needs at least one acceptable name (@no_call for \"no tool call\")",
            o.name("acceptable")
        ));
    }
    let forbidden = o.opt_str_list("forbidden")?.unwrap_or_default();
    if let Some(both) = acceptable.iter().find(|a| forbidden.contains(a)) {
        return Err(format!(
            "\"acceptable\" and \"forbidden\" both contain {}; a name cannot be both",
            crate::text::echo(both)
        ));
    }
    Ok(Label::new(acceptable, forbidden))
}

fn decision(mut o: Obj) -> Res<Decision> {
    let run_id = o.req_id("run_id")?;
    let step = o.opt_int("step", 1)?.ok_or_else(|| o.missing("step"))?;
    let turn = o.opt_int("turn", 0)?;
    let at = o.opt_time("at")?;
    let phase = o.opt_str("phase")?;
    let menu = menu(&mut o)?;
    let exposed = o.opt_str_list("exposed")?;
    let selected = match o.map.remove("selected") {
        None => {
            return Err(
                "missing required field \"selected\" (use null when no tool was called)"
                    .to_string(),
            );
        }
        Some(Value::Null) => None,
        Some(Value::String(s)) if s.starts_with('@') => {
            return Err(format!(
                "field \"selected\": {} is not a tool name; use null when no tool was called",
                crate::text::echo(&s)
            ));
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => return Err(o.wrong("selected", "a tool name or null", &other)),
    };
    let call_id = o.opt_str("call_id")?;
    let arguments = o.opt_any("arguments");
    let raw = o.opt_any("raw");
    let outcome = match o.opt_obj("outcome")? {
        None => None,
        Some(mut oc) => {
            let status = oc
                .opt_enum("status", Status::parse, Status::spellings)?
                .ok_or_else(|| oc.missing("status"))?;
            Some(Outcome {
                status,
                stage: oc.opt_enum("stage", Stage::parse, Stage::spellings)?,
                reason: oc.opt_str("reason")?,
                message: oc.opt_str("message")?,
                retryable: oc.opt_bool("retryable")?,
                extra: oc.extra(),
            })
        }
    };
    let latency_ms = o.opt_number("latency_ms")?;
    let result = o.opt_any("result");
    let progress = o.opt_enum("progress", Progress::parse, Progress::spellings)?;
    let text = kept_in_extra(&mut o, &["text"], |o| o.opt_str("text"))?;
    let expected = match o.map.remove("expected") {
        None => None,
        Some(Value::Null) => {
            return Err(
                "field \"expected\" is null; leave it out for an unlabelled decision".to_string(),
            );
        }
        Some(v) => {
            let mut e = Obj::new(v, "expected")?;
            if e.map.is_empty() {
                return Err(
                    "field \"expected\" is empty; give it an \"acceptable\" list or leave it out"
                        .to_string(),
                );
            }
            Some(label(&mut e, "an inline label")?)
        }
    };
    Ok(Decision {
        run_id,
        step,
        turn,
        at,
        phase,
        menu,
        exposed,
        selected,
        call_id,
        arguments,
        raw,
        outcome,
        latency_ms,
        result,
        progress,
        expected,
        text,
        extra: o.extra(),
    })
}

fn case(mut o: Obj) -> Res<Case> {
    let task_id = o.req_id("task_id")?;
    let step = o.opt_int("step", 1)?;
    let catalogue = o.opt_id("catalogue")?;
    let expectations = kept_in_extra(&mut o, &EXPECTATION_FIELDS, expectation_fields)?;
    if step.is_some() {
        for (key, set) in [
            ("expected_calls", expectations.calls.is_some()),
            ("expected_outputs", expectations.outputs.is_some()),
        ] {
            if set {
                return Err(format!(
                    "field \"{key}\": expectations belong to the run as a whole, so a case with {key} has no \"step\" (leave \"step\" out, or put the label for that step in a case of its own)"
                ));
            }
        }
    }
    let label = if o.map.get("acceptable").is_some_and(|v| !v.is_null()) {
        Some(label(&mut o, "a case")?)
    } else if o.map.get("forbidden").is_some_and(|v| !v.is_null()) {
        return Err(
            "field \"forbidden\" needs an \"acceptable\" list beside it (what was right instead)"
                .to_string(),
        );
    } else {
        None
    };
    if label.is_none() && !expectations.is_set() {
        return Err(
            "a case needs \"acceptable\", \"expected_calls\" or \"expected_outputs\" (at least one)"
                .to_string(),
        );
    }
    let note = o.opt_str("note")?;
    Ok(Case {
        task_id,
        step,
        catalogue,
        label,
        expectations,
        note,
        extra: o.extra(),
    })
}

/// The fields of a case that set its run's expectations (format v1.1).
const EXPECTATION_FIELDS: [&str; 5] = [
    "expected_calls",
    "expected_outputs",
    "strings",
    "extra_arguments",
    "checker",
];

/// Reads fields with `read` and leaves them in the record's `extra` as
/// well: format v1.1 fields that importers and the store have always kept
/// there (a decision's `text`), so that stored records and their hashes do
/// not change, and the store keeps them before it has columns of its own.
fn kept_in_extra<T>(o: &mut Obj, keys: &[&str], read: impl FnOnce(&mut Obj) -> Res<T>) -> Res<T> {
    let recorded: Vec<(String, Value)> = keys
        .iter()
        .filter_map(|k| o.map.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let value = read(o)?;
    o.map.extend(recorded);
    Ok(value)
}

/// Reads the expectations a case stored as [`Expectations::to_json`] (or
/// any object with those fields, such as a stored case's `extra`), with the
/// checks of a case record; other fields are ignored.
pub fn expectations(v: Value) -> Result<Expectations, String> {
    expectation_fields(&mut Obj::new(v, "")?)
}

/// `expected_calls`, `expected_outputs`, `strings`, `extra_arguments` and
/// `checker`.
fn expectation_fields(o: &mut Obj) -> Res<Expectations> {
    let calls = match o.take("expected_calls") {
        None => None,
        Some(Value::Array(items)) => {
            let mut calls = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                calls.push(expected_call(item, &format!("expected_calls[{i}]"))?);
            }
            Some(calls)
        }
        Some(other) => {
            return Err(o.wrong(
                "expected_calls",
                "a list of {tool, arguments} objects",
                &other,
            ));
        }
    };
    Ok(Expectations {
        calls,
        outputs: o.opt_str_list("expected_outputs")?,
        strings: o
            .opt_enum("strings", Strings::parse, Strings::spellings)?
            .unwrap_or_default(),
        extra_arguments: o
            .opt_enum(
                "extra_arguments",
                ExtraArguments::parse,
                ExtraArguments::spellings,
            )?
            .unwrap_or_default(),
        checker: o
            .opt_enum("checker", Checker::parse, Checker::spellings)?
            .unwrap_or_default(),
    })
}

fn expected_call(v: Value, path: &str) -> Res<ExpectedCall> {
    let mut c = Obj::new(v, path)?;
    let tool = c.req_id("tool")?;
    if tool.starts_with('@') {
        return Err(format!(
            "field \"{}\": \"{}\" is not a tool name (names starting with '@' are reserved)",
            c.name("tool"),
            shown_id(&tool)
        ));
    }
    let arguments = match c.opt_obj("arguments")? {
        None => None,
        Some(mut args) => {
            let mut out = std::collections::BTreeMap::new();
            for (key, value) in std::mem::take(&mut args.map) {
                let v = ExpectedValue::from_json(value)
                    .map_err(|why| format!("field \"{}\": {why}", args.name(&shown_id(&key))))?;
                out.insert(key, v);
            }
            Some(out)
        }
    };
    Ok(ExpectedCall {
        tool,
        arguments,
        extra: c.extra(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        match parse(v) {
            Err(e) => format!("{}: {}", e.record.unwrap_or_default(), e.message),
            Ok(p) => panic!("expected an error, got {p:?}"),
        }
    }

    #[test]
    fn errors_name_record_and_field() {
        assert_eq!(
            err(
                json!({"type":"decision","run_id":"r-9","step":3,"selected":"x","expected":{"acceptable":["void_invoice"],"forbidden":["void_invoice"]}})
            ),
            "decision r-9 step 3: \"acceptable\" and \"forbidden\" both contain \"void_invoice\"; a name cannot be both"
        );
        assert_eq!(
            err(
                json!({"type":"catalogue","version":"v1","tools":[{"name":"a","family":"f","effect":"write","description":"d"}]})
            ),
            "catalogue v1: field \"tools[0].effect\": \"write\" is not one of none, read_only, mutating, destructive"
        );
        assert_eq!(
            err(json!({"type":"run","run_id":"r1","started_at":"2026-09-15 10:00"})),
            "run r1: field \"started_at\": \"2026-09-15 10:00\" is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)"
        );
        assert_eq!(
            err(json!({"type":"run","run_id":"r1","started_at":"2026-09-15T10:00:00"})),
            "run r1: field \"started_at\": \"2026-09-15T10:00:00\" is not an RFC 3339 timestamp with an offset (e.g. 2026-09-15T10:00:04Z)"
        );
        assert_eq!(
            err(json!({"type":"decision","run_id":"r1","step":1})),
            "decision r1 step 1: missing required field \"selected\" (use null when no tool was called)"
        );
        assert_eq!(
            err(json!({"type":"decision","run_id":"r1","step":"2","selected":null})),
            "decision r1: field \"step\" must be an integer, not a string (\"2\")"
        );
        assert_eq!(
            err(json!({"type":"decision","run_id":"r1","step":0,"selected":null})),
            "decision r1 step 0: field \"step\" must be an integer ≥ 1, not 0"
        );
        assert_eq!(
            err(json!({"type":"decision","run_id":"r1","step":1,"selected":null,"expected":{}})),
            "decision r1 step 1: field \"expected\" is empty; give it an \"acceptable\" list or leave it out"
        );
        assert_eq!(
            err(json!({"type":"decision","run_id":"r1","step":1,"selected":null,"expected":null})),
            "decision r1 step 1: field \"expected\" is null; leave it out for an unlabelled decision"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","acceptable":[]})),
            "case t: field \"acceptable\" is empty; a case needs at least one acceptable name (@no_call for \"no tool call\")"
        );
        assert_eq!(
            err(
                json!({"type":"decision","run_id":"r1","step":1,"selected":"a","outcome":{"status":"failed"}})
            ),
            "decision r1 step 1: field \"outcome.status\": \"failed\" is not one of ok, refused, error, unknown, not_run"
        );
        assert_eq!(
            err(json!({"type":"run","run_id":"r1","tags":{"t":0.6}})),
            "run r1: field \"tags.t\" must be a string (tags are a string map), not a number (0.6)"
        );
        assert_eq!(
            err(
                json!({"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"candidates":[]}})
            ),
            "decision r1 step 1: missing required field \"retrieval.k\" (how many candidates the retriever kept)"
        );
        assert_eq!(
            err(
                json!({"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"k":2,"candidates":[{"name":"a","score":0.5},{"name":5}]}})
            ),
            "decision r1 step 1: field \"retrieval.candidates[1].name\" must be a string, not a number (5)"
        );
        assert_eq!(
            err(
                json!({"type":"decision","run_id":"r1","step":1,"selected":null,"retrieval":{"k":2,"candidates":[{"name":"a","score":"high"}]}})
            ),
            "decision r1 step 1: field \"retrieval.candidates[0].score\" must be a number, not a string (\"high\")"
        );
    }

    #[test]
    fn cases_with_expectations_are_checked() {
        assert_eq!(
            err(
                json!({"type":"case","task_id":"airline/26","step":2,"expected_calls":[{"tool":"cancel_reservation"}]})
            ),
            "case airline/26 step 2: field \"expected_calls\": expectations belong to the run as a whole, so a case with expected_calls has no \"step\" (leave \"step\" out, or put the label for that step in a case of its own)"
        );
        assert_eq!(
            err(
                json!({"type":"case","task_id":"airline/26","step":1,"acceptable":["x"],"expected_outputs":["1,628"]})
            ),
            "case airline/26 step 1: field \"expected_outputs\": expectations belong to the run as a whole, so a case with expected_outputs has no \"step\" (leave \"step\" out, or put the label for that step in a case of its own)"
        );
        assert_eq!(
            err(
                json!({"type":"case","task_id":"t","expected_calls":[{"tool":"book","arguments":{"cabin":{"@one_of":[]}}}]})
            ),
            "case t: field \"expected_calls[0].arguments.cabin\": @one_of is an empty list; it must hold at least one value"
        );
        assert_eq!(
            err(
                json!({"type":"case","task_id":"t","expected_calls":[{"tool":"a"},{"tool":"book","arguments":{"cabin":{"@one_of":"economy"}}}]})
            ),
            "case t: field \"expected_calls[1].arguments.cabin\": @one_of must hold a non-empty list of values"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_calls":[{"arguments":{}}]})),
            "case t: missing required field \"expected_calls[0].tool\""
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_calls":[{"tool":"@no_call"}]})),
            "case t: field \"expected_calls[0].tool\": \"@no_call\" is not a tool name (names starting with '@' are reserved)"
        );
        assert_eq!(
            err(
                json!({"type":"case","task_id":"t","expected_calls":[{"tool":"a","arguments":[1]}]})
            ),
            "case t: field \"expected_calls[0].arguments\" must be an object, not a list"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_calls":{"tool":"a"}})),
            "case t: field \"expected_calls\" must be a list of {tool, arguments} objects, not an object ({\"tool\":\"a\"})"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_outputs":[1628]})),
            "case t: field \"expected_outputs[0]\" must be a string, not a number (1628)"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_calls":[],"strings":"fuzzy"})),
            "case t: field \"strings\": \"fuzzy\" is not one of exact, loose"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_calls":[],"extra_arguments":"warn"})),
            "case t: field \"extra_arguments\": \"warn\" is not one of ignore, reject"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","expected_calls":[],"checker":"gorilla"})),
            "case t: field \"checker\": \"gorilla\" is not one of rung, bfcl"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","note":"nothing to check"})),
            "case t: a case needs \"acceptable\", \"expected_calls\" or \"expected_outputs\" (at least one)"
        );
        assert_eq!(
            err(json!({"type":"case","task_id":"t","forbidden":["x"],"expected_outputs":[]})),
            "case t: field \"forbidden\" needs an \"acceptable\" list beside it (what was right instead)"
        );
        assert_eq!(
            err(json!({"type":"decision","run_id":"r1","step":1,"selected":null,"text":42})),
            "decision r1 step 1: field \"text\" must be a string, not a number (42)"
        );
    }

    #[test]
    fn expectations_are_read_and_read_back() {
        let record = json!({"type":"case","task_id":"airline/26","catalogue":null,
            "expected_calls":[
                {"tool":"get_reservation_details","arguments":{"reservation_id":"NQNU5R"}},
                {"tool":"cancel_reservation","arguments":{"reservation_id":"NQNU5R"},"why":"refund"},
                {"tool":"book_reservation","arguments":{"cabin":{"@one_of":["economy","basic_economy","@absent"]}}},
                {"tool":"think"}],
            "expected_outputs":["1,628"],
            "strings":"loose","extra_arguments":"reject","checker":"bfcl","owner":"qa"});
        let Parsed::Record(Record::Case(c)) = parse(record).unwrap() else {
            panic!()
        };
        assert_eq!(c.label, None);
        assert_eq!(c.step, None);
        // The store keeps the new fields in `extra` until it has columns.
        assert_eq!(
            c.extra.as_object().unwrap().keys().collect::<Vec<_>>(),
            [
                "checker",
                "expected_calls",
                "expected_outputs",
                "extra_arguments",
                "owner",
                "strings"
            ]
        );
        assert_eq!(expectations(c.extra.clone()).as_ref(), Ok(&c.expectations));
        let e = &c.expectations;
        assert_eq!(
            (e.strings, e.extra_arguments, e.checker),
            (Strings::Loose, ExtraArguments::Reject, Checker::Bfcl)
        );
        assert_eq!(e.outputs, Some(vec!["1,628".to_string()]));
        let calls = e.calls.as_ref().unwrap();
        assert_eq!(
            calls.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
            [
                "get_reservation_details",
                "cancel_reservation",
                "book_reservation",
                "think"
            ]
        );
        assert_eq!(calls[1].extra, json!({"why": "refund"}));
        assert_eq!(calls[3].arguments, None);
        assert_eq!(
            calls[2].arguments.as_ref().unwrap()["cabin"],
            ExpectedValue::OneOf {
                values: vec![json!("economy"), json!("basic_economy")],
                absent: true
            }
        );
        // What the store keeps reads back to the same expectations.
        assert_eq!(expectations(e.to_json()).as_ref(), Ok(e));
        // A label and expectations together; `text` on a decision.
        let Parsed::Record(Record::Case(c)) = parse(json!({"type":"case","task_id":"t",
            "acceptable":["a"],"expected_calls":[]}))
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.label, Some(Label::new(vec!["a".into()], vec![])));
        assert_eq!(c.expectations.calls, Some(vec![]));
        let Parsed::Record(Record::Decision(d)) = parse(json!({"type":"decision","run_id":"r",
            "step":4,"selected":null,"text":"Your refund is $1,628."}))
        .unwrap() else {
            panic!()
        };
        assert_eq!(d.text.as_deref(), Some("Your refund is $1,628."));
        // Importers have always written `text`; the store keeps it in extra.
        assert_eq!(d.extra, json!({"text": "Your refund is $1,628."}));
    }

    #[test]
    fn unknown_fields_kept_and_unknown_types_counted() {
        let p = parse(json!({"type":"run","run_id":"r1","harness":"v2","success":true})).unwrap();
        let Parsed::Record(Record::Run(r)) = p else {
            panic!()
        };
        assert_eq!(r.extra, json!({"harness": "v2"}));
        assert_eq!(r.success, Some(true));
        assert_eq!(
            parse(json!({"type":"span","x":1})).unwrap(),
            Parsed::UnknownType("span".into())
        );
    }
}
