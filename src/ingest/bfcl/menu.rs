//! Questions as menus: an entry's functions, its user messages, BFCL's
//! types as JSON Schema, and names given with `_` for `.` mapped back.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::OJson;
use super::convo::Out;
use super::files::{func_doc_stem, is_multi_turn};

/// A BFCL parameter type as a JSON Schema type; `None` for no constraint
/// (`any`, and names BFCL does not know). The Java and JavaScript names
/// follow BFCL's own conversion for function-calling models.
pub fn json_schema_type(t: &str) -> Option<&'static str> {
    Some(match t {
        "dict" | "object" | "HashMap" | "Hashtable" => "object",
        "float" | "number" | "double" => "number",
        "integer" | "int" | "long" | "short" | "byte" | "Bigint" => "integer",
        "string" | "String" | "char" => "string",
        "boolean" | "bool" | "Boolean" => "boolean",
        "array" | "list" | "tuple" | "ArrayList" | "Array" | "Queue" | "Stack" | "Set" => "array",
        "null" => "null",
        _ => return None,
    })
}

/// One schema node with BFCL's types mapped, at any depth (`properties`,
/// `items`, `additionalProperties`); other keywords are kept as they are.
fn schema_node(node: &Value) -> Value {
    let Value::Object(m) = node else {
        return node.clone();
    };
    let mut out = m.clone();
    if let Some(Value::String(t)) = m.get("type") {
        match json_schema_type(t) {
            Some(j) => {
                out.insert("type".into(), json!(j));
            }
            None => {
                out.remove("type");
            }
        }
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        let converted: Map<String, Value> = props
            .iter()
            .map(|(k, v)| (k.clone(), schema_node(v)))
            .collect();
        out.insert("properties".into(), Value::Object(converted));
    }
    for key in ["items", "additionalProperties"] {
        if let Some(v @ Value::Object(_)) = m.get(key) {
            out.insert(key.into(), schema_node(v));
        }
    }
    Value::Object(out)
}

/// A BFCL function's `parameters` as a JSON Schema object. For Java and
/// JavaScript entries each top-level argument is a string, as BFCL offers
/// them to function-calling models.
pub fn input_schema(parameters: Option<&Value>, stringly: bool) -> Value {
    let mut schema = match parameters {
        Some(p @ Value::Object(_)) => schema_node(p),
        _ => json!({"properties": {}}),
    };
    if let Value::Object(m) = &mut schema {
        m.insert("type".into(), json!("object"));
        if stringly && let Some(Value::Object(props)) = m.get_mut("properties") {
            for prop in props.values_mut() {
                if let Value::Object(p) = prop
                    && p.contains_key("type")
                {
                    p.insert("type".into(), json!("string"));
                }
            }
        }
    }
    schema
}

/// A function as a tool definition rung reads: name, description and
/// `input_schema`.
pub(super) fn tool_definition(f: &Value, stringly: bool) -> Value {
    let mut d = Map::new();
    d.insert("name".into(), f.get("name").cloned().unwrap_or(Value::Null));
    if let Some(desc) = f.get("description") {
        d.insert("description".into(), desc.clone());
    }
    d.insert(
        "input_schema".into(),
        input_schema(f.get("parameters"), stringly),
    );
    Value::Object(d)
}

/// The name a function-calling model gave, mapped back to the menu: BFCL
/// offers `a.b` as `a_b` (OpenAI and others refuse dots) and compares the
/// two. `None` when the name is already on the menu or maps to nothing.
pub fn menu_name(given: &str, menu: &[String]) -> Option<String> {
    if menu.iter().any(|m| m == given) {
        return None;
    }
    menu.iter()
        .find(|m| m.contains('.') && m.replace('.', "_") == given)
        .cloned()
}

/// An entry's functions (the menu), in order.
pub(super) fn functions_of(entry: &OJson) -> Vec<Value> {
    match entry.get("function") {
        Some(OJson::Arr(a)) => a.iter().map(OJson::to_value).collect(),
        Some(f @ OJson::Obj(_)) => vec![f.to_value()],
        _ => Vec::new(),
    }
}

pub(super) fn menu_names(functions: &[Value]) -> Vec<String> {
    functions
        .iter()
        .filter_map(|f| f.get("name").and_then(Value::as_str).map(String::from))
        .collect()
}

/// The user messages of a question: v1 has one bare string, later versions
/// a list of turns, each a list of `{role, content}` messages.
pub(super) fn turns_of(question: Option<&OJson>) -> Vec<Vec<Value>> {
    match question {
        Some(OJson::Str(s)) => vec![vec![json!({"role": "user", "content": s})]],
        Some(OJson::Arr(turns)) => turns
            .iter()
            .map(|t| match t {
                OJson::Arr(msgs) => msgs.iter().map(OJson::to_value).collect(),
                other => vec![other.to_value()],
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A multi-turn entry's menu: its classes' functions, less the excluded
/// ones; `held` are withheld until the turn that adds them back.
pub(super) struct Menu {
    pub(super) functions: Vec<Value>,
    pub(super) held: Vec<(usize, Vec<String>)>,
    /// False when function docs are missing: then no menu is recorded.
    pub(super) known: bool,
}

/// The menu of an entry of `category`; `run` names the run in what is
/// dropped (function docs missing from `docs`).
pub(super) fn menu_of(
    entry: &OJson,
    category: &str,
    docs: &HashMap<String, Vec<Value>>,
    run: &str,
    out: &mut Out,
    line: u64,
) -> Menu {
    if !is_multi_turn(category) || entry.get("function").is_some() {
        return Menu {
            functions: functions_of(entry),
            held: Vec::new(),
            known: true,
        };
    }
    let mut functions = Vec::new();
    let mut missing = Vec::new();
    if let Some(OJson::Arr(classes)) = entry.get("involved_classes") {
        for c in classes.iter().filter_map(OJson::as_str) {
            match docs.get(&func_doc_stem(c)) {
                Some(fs) => functions.extend(fs.iter().cloned()),
                None => missing.push(c.to_string()),
            }
        }
    }
    if !missing.is_empty() {
        out.drop_part(
            line,
            Some(format!("run {run}")),
            format!(
                "the menu is unknown: no function docs for {} (import BFCL's multi_turn_func_doc/{} with the questions)",
                missing.join(", "),
                missing
                    .iter()
                    .map(|c| format!("{}.json", func_doc_stem(c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    let names = |v: Option<&OJson>| -> Vec<String> {
        match v {
            Some(OJson::Arr(a)) => a
                .iter()
                .filter_map(OJson::as_str)
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        }
    };
    let excluded = names(entry.get("excluded_function"));
    functions.retain(|f| {
        let n = f.get("name").and_then(Value::as_str).unwrap_or("");
        !excluded.iter().any(|e| e == n)
    });
    let mut held = Vec::new();
    if let Some(OJson::Obj(missed)) = entry.get("missed_function") {
        for (turn, list) in missed {
            if let Ok(t) = turn.parse::<usize>() {
                held.push((t, names(Some(list))));
            }
        }
    }
    Menu {
        functions,
        held,
        known: missing.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_map_to_json_schema() {
        let params = json!({
            "type": "dict",
            "required": ["a"],
            "properties": {
                "a": {"type": "integer", "description": "d"},
                "b": {"type": "float", "default": 1.5},
                "c": {"type": "tuple", "items": {"type": "float"}},
                "d": {"type": "any"},
                "e": {"type": "dict", "properties": {"x": {"type": "boolean"}, "y": {"type": "array", "items": {"type": "dict", "properties": {"z": {"type": "string", "enum": ["p", "q"]}}}}}},
                "f": {"type": "array", "items": {"type": "String"}},
                "g": {"type": "HashMap"},
                "h": {"type": "mystery"}
            }
        });
        assert_eq!(
            input_schema(Some(&params), false),
            json!({
                "type": "object",
                "required": ["a"],
                "properties": {
                    "a": {"type": "integer", "description": "d"},
                    "b": {"type": "number", "default": 1.5},
                    "c": {"type": "array", "items": {"type": "number"}},
                    "d": {},
                    "e": {"type": "object", "properties": {"x": {"type": "boolean"}, "y": {"type": "array", "items": {"type": "object", "properties": {"z": {"type": "string", "enum": ["p", "q"]}}}}}},
                    "f": {"type": "array", "items": {"type": "string"}},
                    "g": {"type": "object"},
                    "h": {}
                }
            })
        );
        // Java and JavaScript: every typed top-level argument is a string.
        let java = json!({"type": "dict", "properties": {"n": {"type": "long"}, "m": {"type": "HashMap"}, "k": {"description": "untyped"}}});
        assert_eq!(
            input_schema(Some(&java), true),
            json!({"type": "object", "properties": {"n": {"type": "string"}, "m": {"type": "string"}, "k": {"description": "untyped"}}})
        );
        assert_eq!(
            input_schema(None, false),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn names_with_underscores_map_back_through_the_menu() {
        let menu: Vec<String> = [
            "math.factorial",
            "math_factorial2",
            "a.b.c",
            "geo.find_route",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            menu_name("math_factorial", &menu),
            Some("math.factorial".into())
        );
        assert_eq!(menu_name("a_b_c", &menu), Some("a.b.c".into()));
        assert_eq!(
            menu_name("geo_find_route", &menu),
            Some("geo.find_route".into())
        );
        // On the menu as given, or nothing to map to: kept.
        assert_eq!(menu_name("math_factorial2", &menu), None);
        assert_eq!(menu_name("math.factorial", &menu), None);
        assert_eq!(menu_name("python", &menu), None);
    }
}
