//! Arguments against the declared schema (`expectations.md` §8): every
//! call of a tool whose definition carries a JSON Schema for its arguments
//! (the decision's catalogue, else the run's recorded tool definitions) is
//! validated with the `jsonschema` crate; a name no definition has is an
//! unknown tool. Pure functions and a cache of compiled schemas; the store
//! applies the verdict to a decision with no recorded outcome
//! ([`boundary`]) and writes the `schema_violation` finding
//! ([`SchemaFinding`]).
//!
//! A run judged by BFCL's checker (`"checker": "bfcl"` on its case) has its
//! arguments checked by BFCL's rules instead ([`bfcl`]): required
//! arguments, undeclared ones, and BFCL's types.

pub mod bfcl;

use rustc_hash::FxHashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::model::{ExpectedCall, Stage, Status};

/// Longest text of one failing path in a finding's detail, in characters.
pub const VIOLATION_CHARS: usize = 120;
/// Most failing paths a finding lists.
pub const MAX_VIOLATIONS: usize = 20;
/// Most compiled schemas kept at once.
const CACHE_SIZE: usize = 1_024;
/// Most malformed keywords dropped from one schema before it is given up.
const MAX_REPAIRS: usize = 16;

/// One failing path of a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// A JSON Pointer into the arguments (`""`: the arguments themselves;
    /// for `required`, the missing key's place).
    pub path: String,
    /// The keyword that failed (`type`, `required`, `enum`, ...).
    pub keyword: String,
    /// What failed, with the value where it helps (mask it before showing).
    pub message: String,
}

impl Violation {
    pub fn new(path: impl Into<String>, keyword: &str, message: impl Into<String>) -> Violation {
        Violation {
            path: path.into(),
            keyword: keyword.to_string(),
            message: message.into(),
        }
    }
}

/// A JSON Pointer token for `key` (`~` and `/` escaped).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The tools some definitions give, each with its argument schema (if it
/// carries one).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolSchemas {
    /// Each schema with its JSON text, the key of its compiled validator
    /// (written once here, not for every call checked against it).
    /// Hashed: looked up for every call checked.
    by_name: FxHashMap<String, Option<(Value, String)>>,
}

fn keyed(schema: Value) -> (Value, String) {
    let key = schema.to_string();
    (schema, key)
}

impl ToolSchemas {
    /// From a run's recorded `tool_definitions`: a list of definitions in
    /// the MCP (`inputSchema`), Anthropic and rung (`input_schema`), OpenAI
    /// (`{"type": "function", "function": {"name", "parameters"}}`),
    /// Responses or Gemini (`parameters`, `parametersJsonSchema`) shape.
    /// The first definition of a name wins; anything else gives nothing.
    pub fn from_definitions(defs: &Value) -> ToolSchemas {
        let mut by_name = FxHashMap::default();
        for def in defs.as_array().into_iter().flatten() {
            let inner = def.get("function").filter(|f| f.is_object());
            let field = |k: &str| def.get(k).or_else(|| inner.and_then(|f| f.get(k)));
            let Some(name) = field("name").and_then(Value::as_str) else {
                continue;
            };
            let schema = [
                "input_schema",
                "inputSchema",
                "parameters",
                "parametersJsonSchema",
            ]
            .iter()
            .find_map(|k| field(k).filter(|s| s.is_object()))
            .cloned();
            by_name
                .entry(name.to_string())
                .or_insert_with(|| schema.map(keyed));
        }
        ToolSchemas { by_name }
    }

    /// From a catalogue's tools: each name with its `input_schema`.
    pub fn from_tools<'a>(tools: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>) -> Self {
        let mut by_name = FxHashMap::default();
        for (name, schema) in tools {
            by_name
                .entry(name.to_string())
                .or_insert_with(|| schema.filter(|s| s.is_object()).cloned().map(keyed));
        }
        ToolSchemas { by_name }
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// `None`: no definition has the name; `Some(None)`: one has, with no
    /// schema.
    pub fn get(&self, name: &str) -> Option<Option<&Value>> {
        self.get_keyed(name).map(|s| s.map(|(v, _)| v))
    }

    /// As [`ToolSchemas::get`], each schema with its JSON text.
    fn get_keyed(&self, name: &str) -> Option<Option<(&Value, &str)>> {
        self.by_name
            .get(name)
            .map(|s| s.as_ref().map(|(v, k)| (v, k.as_str())))
    }
}

/// What §8 says of one decision.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaCheck {
    /// No call, no recorded arguments, no definition to check against, or a
    /// schema that cannot be used.
    NotChecked,
    Valid,
    Invalid(Vec<Violation>),
    /// Definitions exist and none has the selected name.
    UnknownTool,
}

/// One decision as §8 sees it.
#[derive(Debug, Clone, Copy)]
pub struct CallToCheck<'a> {
    pub selected: Option<&'a str>,
    /// The recorded arguments (`None`: not recorded, so not checked).
    pub arguments: Option<&'a Value>,
    /// The tools of the decision's catalogue (`None`: it has none).
    pub catalogue: Option<&'a ToolSchemas>,
    /// The tools of the run's recorded definitions.
    pub recorded: &'a ToolSchemas,
    /// Names that are no tool to define: the abstain name and the trusted
    /// controls.
    pub pseudo: &'a [&'a str],
    /// With BFCL's checker: the run's expected calls (its "variable" rule
    /// reads their acceptable values).
    pub bfcl: Option<&'a [ExpectedCall]>,
}

/// Validates calls, keeping each compiled schema for the next call.
#[derive(Default)]
pub struct SchemaChecker {
    /// By the schema's JSON text.
    cache: FxHashMap<String, Option<Arc<jsonschema::Validator>>>,
}

impl SchemaChecker {
    pub fn new() -> SchemaChecker {
        SchemaChecker::default()
    }

    /// §8 for one decision.
    pub fn check(&mut self, call: &CallToCheck<'_>) -> SchemaCheck {
        let Some(tool) = call.selected else {
            return SchemaCheck::NotChecked;
        };
        if call.pseudo.contains(&tool) {
            return SchemaCheck::NotChecked;
        }
        let found = call
            .catalogue
            .and_then(|c| c.get_keyed(tool))
            .or_else(|| call.recorded.get_keyed(tool));
        let schema = match found {
            Some(schema) => schema,
            None if call.catalogue.is_some() || !call.recorded.is_empty() => {
                return SchemaCheck::UnknownTool;
            }
            None => return SchemaCheck::NotChecked,
        };
        let (Some((schema, key)), Some(arguments)) = (schema, call.arguments) else {
            return SchemaCheck::NotChecked;
        };
        let violations = match call.bfcl {
            Some(expected) => {
                let of_tool: Vec<&ExpectedCall> =
                    expected.iter().filter(|c| c.tool == tool).collect();
                bfcl::check(schema, arguments, &of_tool)
            }
            None => match self.validate_keyed(schema, key, arguments) {
                Some(v) => v,
                None => return SchemaCheck::NotChecked,
            },
        };
        if violations.is_empty() {
            SchemaCheck::Valid
        } else {
            SchemaCheck::Invalid(violations)
        }
    }

    /// JSON Schema validation of `arguments` against a tool's `schema`:
    /// its failing paths, or `None` when the schema cannot be used. Tool
    /// arguments are an object: a schema without a root `type` is read as
    /// `"type": "object"`. A keyword the validator refuses (a malformed
    /// value, a type name JSON Schema lacks) is left out; an unknown
    /// keyword is ignored.
    pub fn validate(&mut self, schema: &Value, arguments: &Value) -> Option<Vec<Violation>> {
        self.validate_keyed(schema, &schema.to_string(), arguments)
    }

    /// [`SchemaChecker::validate`] with the schema's JSON text given.
    fn validate_keyed(
        &mut self,
        schema: &Value,
        key: &str,
        arguments: &Value,
    ) -> Option<Vec<Violation>> {
        let validator = match self.cache.get(key) {
            Some(v) => v.as_ref()?,
            None => {
                if self.cache.len() >= CACHE_SIZE {
                    self.cache.clear();
                }
                self.cache
                    .entry(key.to_string())
                    .or_insert(compile(schema).map(Arc::new))
                    .as_ref()?
            }
        };
        // Most calls are valid: answered without building any error.
        if validator.is_valid(arguments) {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        for e in validator.iter_errors(arguments).take(MAX_VIOLATIONS) {
            let at = e.instance_path().as_str().to_string();
            match e.kind() {
                jsonschema::error::ValidationErrorKind::Required { property } => {
                    let key = property
                        .as_str()
                        .map_or_else(|| property.to_string(), String::from);
                    out.push(Violation::new(
                        format!("{at}/{}", pointer_token(&key)),
                        "required",
                        "missing",
                    ));
                }
                jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                    for key in unexpected {
                        out.push(Violation::new(
                            format!("{at}/{}", pointer_token(key)),
                            "additionalProperties",
                            "not a declared property",
                        ));
                    }
                }
                kind => out.push(Violation::new(at, kind.keyword(), e.to_string())),
            }
        }
        out.truncate(MAX_VIOLATIONS);
        Some(out)
    }
}

/// Compiles a tool's schema, leaving out what the validator refuses.
fn compile(schema: &Value) -> Option<jsonschema::Validator> {
    let mut schema = schema.clone();
    if let Value::Object(m) = &mut schema
        && !m.contains_key("type")
    {
        m.insert("type".into(), Value::String("object".into()));
    }
    for _ in 0..=MAX_REPAIRS {
        let at = match jsonschema::validator_for(&schema) {
            Ok(v) => return Some(v),
            Err(e) => e.instance_path().as_str().to_string(),
        };
        if !(remove_at(&mut schema, &at) || remove_dialect(&mut schema)) {
            return None;
        }
    }
    None
}

/// Removes the value at a JSON Pointer (not the root); whether it did.
fn remove_at(v: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match v.pointer_mut(parent) {
        Some(Value::Object(m)) => m.remove(&last).is_some(),
        Some(Value::Array(a)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => {
                a.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Removes a root `$schema` or `$id` the validator may not know.
fn remove_dialect(v: &mut Value) -> bool {
    let Value::Object(m) = v else {
        return false;
    };
    let a = m.remove("$schema").is_some();
    let b = m.remove("$id").is_some();
    a || b
}

/// The boundary §8 puts on a decision that has no recorded outcome: an
/// invalid call is refused at SCHEMA (`schema_violation`), an unknown tool
/// at REPRESENTATION (`unknown_tool`). A recorded outcome always wins.
pub fn boundary(
    check: &SchemaCheck,
    status: Option<Status>,
) -> Option<(Status, Stage, &'static str)> {
    if status.is_some() {
        return None;
    }
    match check {
        SchemaCheck::Invalid(_) => Some((Status::Refused, Stage::Schema, "schema_violation")),
        SchemaCheck::UnknownTool => Some((Status::Refused, Stage::Representation, "unknown_tool")),
        _ => None,
    }
}

/// The `schema_violation` finding of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFinding {
    pub step: i64,
    pub tool: String,
    pub violations: Vec<Violation>,
    /// The recorded outcome (`None`: nothing ran the call).
    pub status: Option<Status>,
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

impl SchemaFinding {
    /// One line per failing path: `path: keyword: message`, masked with
    /// `mask` (the redactor, or the identity) and cut to
    /// [`VIOLATION_CHARS`]; the arguments themselves are `/`.
    pub fn paths(&self, mask: &dyn Fn(&str) -> String) -> Vec<String> {
        self.violations
            .iter()
            .map(|v| {
                let path = if v.path.is_empty() { "/" } else { &v.path };
                let line = format!("{path}: {}: {}", v.keyword, v.message);
                cut(&mask(&line.replace('\n', "\\n")), VIOLATION_CHARS)
            })
            .collect()
    }

    /// The human detail: the tool, each failing path, and what happened to
    /// the call.
    pub fn detail(&self, mask: &dyn Fn(&str) -> String) -> String {
        let what = match self.status {
            None => "nothing ran it (no recorded outcome), so it counts as refused at schema",
            Some(Status::NotRun) => "it was never run",
            Some(Status::Refused) => "it was refused",
            Some(Status::Ok) => {
                "it executed anyway (ok): the action boundary let an invalid call through"
            }
            Some(Status::Unknown) => {
                "it may have executed (unknown): the action boundary let an invalid call through"
            }
            Some(Status::Error) => {
                "it executed anyway and failed (error): the action boundary let an invalid call through"
            }
        };
        format!(
            "the arguments of {} {DETAIL_MARK}{}; {what}",
            self.tool,
            self.paths(mask).join("; ")
        )
    }

    /// A stored detail read back into its head (`the arguments of TOOL
    /// fail its schema`), its failing paths and what happened to the call,
    /// for a screen that lists the paths one per line. `None` for a detail
    /// of another shape.
    pub fn split_detail(detail: &str) -> Option<(&str, Vec<&str>, &str)> {
        let at = detail.find(DETAIL_MARK)?;
        let head = detail[..at + DETAIL_MARK.len() - 2].trim_end();
        let rest = &detail[at + DETAIL_MARK.len()..];
        let (paths, what) = rest.rsplit_once("; ")?;
        let mut out = Vec::new();
        let mut from = 0;
        // Every path starts with `/`: split where the next one begins.
        for (i, _) in paths.match_indices("; /") {
            out.push(&paths[from..i]);
            from = i + 2;
        }
        out.push(&paths[from..]);
        Some((head, out, what))
    }
}

/// What follows the tool's name in a `schema_violation` detail.
const DETAIL_MARK: &str = "fail its schema: ";

/// A JSON value's type as a failing path names it: `integer` for a number
/// written without a fraction or exponent, `float` for one written with.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests;
