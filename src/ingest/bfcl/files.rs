//! BFCL's files and folder layout: what a file is (from its first line),
//! its version and category (from its name), its model (from its folder),
//! and its lines parsed in key order.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::OJson;
use crate::error::InputError;
use crate::ingest::read::{self, Limits};

/// Which file set a file belongs to: BFCL's version (when its name says it)
/// and its category, in the names BFCL uses since v2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub version: Option<String>,
    pub category: String,
}

impl Key {
    /// Whether two files belong to the same set: the same category, and the
    /// same version where both names give one.
    pub(super) fn matches(&self, other: &Key) -> bool {
        self.category == other.category
            && match (&self.version, &other.version) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// v1's category names as BFCL renamed them in v2 (`relevance` was the
/// should-not-call set, now `irrelevance`).
fn v1_category(c: &str) -> String {
    match c {
        "multiple_function" => "multiple",
        "parallel_function" => "parallel",
        "parallel_multiple_function" => "parallel_multiple",
        "relevance" => "irrelevance",
        "executable_simple" => "exec_simple",
        "executable_multiple_function" => "exec_multiple",
        "executable_parallel_function" => "exec_parallel",
        "executable_parallel_multiple_function" => "exec_parallel_multiple",
        other => other,
    }
    .to_string()
}

/// The version and category a file stem names (`BFCL_v3_simple`,
/// `gorilla_openfunctions_v1_test_relevance`, or v1's bare score names such
/// as `simple`).
pub fn key_of(stem: &str) -> Key {
    if let Some(c) = stem.strip_prefix("gorilla_openfunctions_v1_test_") {
        return Key {
            version: Some("v1".into()),
            category: v1_category(c),
        };
    }
    if let Some(rest) = stem.strip_prefix("BFCL_v") {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Some(c) = rest[digits.len()..].strip_prefix('_')
            && !digits.is_empty()
        {
            return Key {
                version: Some(format!("v{digits}")),
                category: c.to_string(),
            };
        }
    }
    Key {
        version: None,
        category: v1_category(stem),
    }
}

/// A file name without its extension (`.json`, `.jsonl`, either gzipped).
pub(super) fn stem(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let name = name
        .strip_suffix(".jsonl")
        .or_else(|| name.strip_suffix(".json"))
        .unwrap_or(name);
    name.to_string()
}

/// The model of a result or score file: the folder holding it.
fn model_of(path: &Path) -> Option<String> {
    let parent = path.parent()?;
    let parent = if parent.as_os_str().is_empty() {
        std::env::current_dir().ok()?
    } else {
        parent.to_path_buf()
    };
    let name = parent.file_name()?.to_str()?.to_string();
    (!name.is_empty()).then_some(name)
}

/// Whether BFCL treats a model as a function-calling one, whose text answer
/// is no call (a prompting model's text is Python calls to decode): BFCL's
/// own test, `FC` in the name.
pub(super) fn is_fc_model(model: &str) -> bool {
    model.contains("FC") || model.to_ascii_lowercase().contains("-fc")
}

pub(super) fn is_irrelevance(category: &str) -> bool {
    category.contains("irrelevance")
}

pub(super) fn is_relevance(category: &str) -> bool {
    category.contains("relevance") && !is_irrelevance(category)
}

pub(super) fn is_multi_turn(category: &str) -> bool {
    category.starts_with("multi_turn")
}

/// Java and JavaScript entries: function-calling models see every argument
/// as a string, and answer so.
pub(super) fn is_stringly(category: &str) -> bool {
    category.contains("java")
}

/// The file holding a multi-turn class's function docs, as BFCL names it.
pub(super) fn func_doc_stem(class: &str) -> String {
    match class {
        "GorillaFileSystem" => "gorilla_file_system".into(),
        "MathAPI" => "math_api".into(),
        "MessageAPI" => "message_api".into(),
        "TwitterAPI" => "posting_api".into(),
        "TicketAPI" => "ticket_api".into(),
        "TradingBot" => "trading_bot".into(),
        "TravelAPI" => "travel_booking".into(),
        "VehicleControlAPI" => "vehicle_control".into(),
        "WebSearchAPI" => "web_search".into(),
        other => {
            // Other classes: their name in snake case (`NotesAPI` → `notes_api`).
            let mut s = String::new();
            let mut prev_lower = false;
            for c in other.chars() {
                if c.is_ascii_uppercase() && prev_lower {
                    s.push('_');
                }
                prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
                s.push(c.to_ascii_lowercase());
            }
            s
        }
    }
}

/// One input file, its lines parsed.
#[derive(Debug, Clone)]
pub struct File {
    pub display: String,
    pub path: PathBuf,
    pub lines: Vec<(u64, OJson)>,
}

impl File {
    /// Parses JSON Lines; lines that are not JSON, or that would take more
    /// memory than `limits` allow once parsed, come back as errors.
    pub fn parse(
        display: &str,
        path: &Path,
        bytes: &[u8],
        limits: &Limits,
    ) -> (File, Vec<InputError>) {
        let mut lines = Vec::new();
        let mut errors = Vec::new();
        for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
            let n = i as u64 + 1;
            let raw = if n == 1 {
                raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw)
            } else {
                raw
            };
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Err(e) = read::check_json(raw, limits) {
                errors.push(InputError::at(display, Some(n), None, e.message));
                continue;
            }
            match serde_json::from_slice::<OJson>(raw) {
                Ok(v) => lines.push((n, v)),
                // The first line is no entry (a pretty-printed document?):
                // one error for the file, not one per line.
                Err(_) if lines.is_empty() && errors.is_empty() => {
                    errors.push(InputError::at(
                        display,
                        Some(n),
                        None,
                        format!("not a BFCL file: line {n} is not a whole JSON object (BFCL files are JSON Lines: one entry per line)"),
                    ));
                    lines.clear();
                    break;
                }
                Err(e) => {
                    let msg = e.to_string();
                    let msg = msg.find(" at line ").map_or(&msg[..], |i| &msg[..i]);
                    errors.push(InputError::at(
                        display,
                        Some(n),
                        None,
                        format!(
                            "invalid JSON at column {}: {msg} (BFCL files are JSON Lines: one entry per line)",
                            e.column()
                        ),
                    ));
                }
            }
        }
        (
            File {
                display: display.to_string(),
                path: path.to_path_buf(),
                lines,
            },
            errors,
        )
    }
}

/// What a BFCL file holds.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    Question(Key),
    Answer(Key),
    Result {
        key: Key,
        model: String,
    },
    Score {
        key: Key,
        model: String,
    },
    /// A multi-turn class's function docs, by file stem.
    FuncDoc(String),
}

/// Why a value is not a BFCL line (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    let Value::Object(o) = v else {
        return vec![format!(
            "a BFCL line is an object, not {}",
            crate::ingest::native::type_name(v)
        )];
    };
    let known = ["question", "ground_truth", "result", "accuracy"];
    if known.iter().any(|k| o.contains_key(*k))
        || (o.contains_key("name") && o.contains_key("parameters"))
    {
        Vec::new()
    } else {
        vec!["none of \"question\", \"ground_truth\", \"result\" or \"accuracy\"".to_string()]
    }
}

pub(super) fn classify(f: &File) -> std::result::Result<Option<Kind>, String> {
    let Some((_, first)) = f.lines.first() else {
        return Ok(None);
    };
    let stem = stem(&f.path);
    let has = |k: &str| first.get(k).is_some();
    if has("accuracy") && has("total_count") {
        let model =
            model_of(&f.path).ok_or("a score file must be in a folder named after its model")?;
        let s = stem.strip_suffix("_score").unwrap_or(&stem);
        return Ok(Some(Kind::Score {
            key: key_of(s),
            model,
        }));
    }
    if has("ground_truth") {
        return Ok(Some(Kind::Answer(key_of(&stem))));
    }
    if has("question") {
        return Ok(Some(Kind::Question(key_of(&stem))));
    }
    if has("result") {
        let model = model_of(&f.path)
            .ok_or("a result file must be in a folder named after its model (result/<model>/)")?;
        let Some(s) = stem.strip_suffix("_result") else {
            return Err(format!(
                "a BFCL result file is named after its category (BFCL_v3_simple_result.json), not {stem:?}"
            ));
        };
        return Ok(Some(Kind::Result {
            key: key_of(s),
            model,
        }));
    }
    if has("name") && has("parameters") && !has("id") {
        return Ok(Some(Kind::FuncDoc(stem)));
    }
    Err("not a BFCL file: its first line has none of \"question\" (a question file), \"ground_truth\" (possible answers), \"result\" (a model's results), \"accuracy\" (a score file), or a function doc's \"name\" and \"parameters\"".into())
}

/// An entry's id: a string (an integer is read as its digits).
pub(super) fn entry_id(v: &OJson) -> Option<String> {
    match v.get("id")? {
        OJson::Str(s) => Some(s.clone()),
        OJson::Num(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_names_give_version_and_category() {
        let k = |s: &str| {
            let k = key_of(s);
            (k.version, k.category)
        };
        assert_eq!(
            k("gorilla_openfunctions_v1_test_parallel_multiple_function"),
            (Some("v1".into()), "parallel_multiple".into())
        );
        assert_eq!(
            k("gorilla_openfunctions_v1_test_relevance"),
            (Some("v1".into()), "irrelevance".into())
        );
        assert_eq!(
            k("BFCL_v4_simple_python"),
            (Some("v4".into()), "simple_python".into())
        );
        assert_eq!(
            k("BFCL_v3_live_relevance"),
            (Some("v3".into()), "live_relevance".into())
        );
        // v1's score files carry the bare category.
        assert_eq!(k("multiple_function"), (None, "multiple".into()));
        assert_eq!(k("BFCL_vx_simple"), (None, "BFCL_vx_simple".into()));
        assert_eq!(
            stem(Path::new("a/BFCL_v3_simple_result.json.gz")),
            "BFCL_v3_simple_result"
        );
        assert!(key_of("simple").matches(&key_of("gorilla_openfunctions_v1_test_simple")));
        assert!(!key_of("BFCL_v3_simple").matches(&key_of("BFCL_v4_simple")));
        assert_eq!(func_doc_stem("TwitterAPI"), "posting_api");
        assert_eq!(func_doc_stem("NotesAPI"), "notes_api");
        assert_eq!(func_doc_stem("GorillaFileSystem"), "gorilla_file_system");
    }

    #[test]
    fn which_lines_and_models_are_bfcls() {
        assert!(check(&json!({"id": "simple_0", "question": "q", "function": {}})).is_empty());
        assert!(check(&json!({"name": "cd", "parameters": {}})).is_empty());
        assert_eq!(
            check(&json!({"id": 1})),
            ["none of \"question\", \"ground_truth\", \"result\" or \"accuracy\""]
        );
        assert_eq!(check(&json!([1])), ["a BFCL line is an object, not a list"]);
        for fc in [
            "gpt-4o-2024-08-06-FC",
            "yi-large-fc",
            "mistral-large-2402-FC-Any",
        ] {
            assert!(is_fc_model(fc), "{fc}");
        }
        for prompt in [
            "gpt-4o-2024-08-06",
            "claude-3-5-sonnet-20240620",
            "gorilla-openfunctions-v2",
        ] {
            assert!(!is_fc_model(prompt), "{prompt}");
        }
    }
}
