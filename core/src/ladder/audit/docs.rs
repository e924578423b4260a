//! What a model reads about a tool, for `id_from_description`: its
//! description, its use/avoid hints and its input schema, from a catalogue
//! tool record or from a run's recorded tool definitions.

use serde_json::Value;

use super::{any_text, contains_token};

/// Where in a tool's documents a value was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocField {
    Description,
    UseWhen,
    AvoidWhen,
    Schema,
}

impl DocField {
    pub fn as_str(self) -> &'static str {
        match self {
            DocField::Description => "description",
            DocField::UseWhen => "use_when hints",
            DocField::AvoidWhen => "avoid_when hints",
            DocField::Schema => "input schema",
        }
    }
}

/// The texts a model reads about one tool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolDoc {
    pub name: String,
    pub description: Option<String>,
    pub use_when: Vec<String>,
    pub avoid_when: Vec<String>,
    pub schema: Option<Value>,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

impl ToolDoc {
    /// A catalogue tool as recorded (`name`, `description`, `use_when`,
    /// `avoid_when`, `input_schema`); `None` without a name.
    pub fn from_record(v: &Value) -> Option<ToolDoc> {
        Some(ToolDoc {
            name: v.get("name")?.as_str()?.to_string(),
            description: v
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            use_when: strings(v.get("use_when")),
            avoid_when: strings(v.get("avoid_when")),
            schema: v.get("input_schema").filter(|s| !s.is_null()).cloned(),
        })
    }

    /// A run's `tool_definitions`: a list of definitions in the MCP
    /// (`inputSchema`), OpenAI (`{"type":"function","function":{...}}`,
    /// `parameters`) or Anthropic (`input_schema`) shape; anything else
    /// gives nothing.
    pub fn from_definitions(defs: &Value) -> Vec<ToolDoc> {
        let mut out = Vec::new();
        for def in defs.as_array().into_iter().flatten() {
            let d = def.get("function").filter(|f| f.is_object()).unwrap_or(def);
            let Some(name) = d.get("name").and_then(Value::as_str) else {
                continue;
            };
            let schema = ["inputSchema", "input_schema", "parameters"]
                .iter()
                .find_map(|k| d.get(*k).filter(|s| !s.is_null()))
                .cloned();
            out.push(ToolDoc {
                name: name.to_string(),
                description: d
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                use_when: strings(d.get("use_when")),
                avoid_when: strings(d.get("avoid_when")),
                schema,
            });
        }
        out
    }

    /// The first field whose text holds `value` as a token.
    pub fn mentions(&self, value: &str) -> Option<DocField> {
        if self
            .description
            .as_deref()
            .is_some_and(|d| contains_token(d, value))
        {
            return Some(DocField::Description);
        }
        if self.use_when.iter().any(|h| contains_token(h, value)) {
            return Some(DocField::UseWhen);
        }
        if self.avoid_when.iter().any(|h| contains_token(h, value)) {
            return Some(DocField::AvoidWhen);
        }
        if self
            .schema
            .as_ref()
            .is_some_and(|s| any_text(s, &mut |t| contains_token(t, value)))
        {
            return Some(DocField::Schema);
        }
        None
    }
}
