//! Score files: BFCL's verdicts, the failing entries by id (v1 numbers them
//! by result line).

use std::collections::HashMap;

use super::OJson;
use super::files::File;
use crate::error::InputError;

/// A score file's verdicts: the failing entries by id, with their line.
pub(super) struct Verdicts<'a> {
    pub(super) failing: HashMap<String, (u64, &'a OJson)>,
}

/// A score file's failing entries, by entry id: v1 numbers them by result
/// line (1-based), later versions give the id.
pub(super) fn verdicts<'a>(
    score: &'a File,
    by_line: &[Option<&str>],
    errors: &mut Vec<InputError>,
) -> Verdicts<'a> {
    let mut failing = HashMap::new();
    for (line, v) in score.lines.iter().skip(1) {
        let prompt_id = v
            .get("prompt")
            .and_then(|p| p.get("id"))
            .and_then(OJson::as_str);
        let id = match (prompt_id, v.get("id")) {
            (Some(p), _) => Some(p.to_string()),
            (None, Some(OJson::Str(s))) => Some(s.clone()),
            (None, Some(OJson::Num(n))) => n
                .as_u64()
                .and_then(|n| *by_line.get((n as usize).checked_sub(1)?)?)
                .map(String::from),
            _ => None,
        };
        match id {
            Some(id) => {
                failing.insert(id, (*line, v));
            }
            None => errors.push(InputError::at(
                &score.display,
                Some(*line),
                None,
                "this verdict names no entry of the results (its \"id\" is neither an entry id nor a result line)",
            )),
        }
    }
    Verdicts { failing }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::ingest::bfcl::map::map_files;
    use crate::ingest::bfcl::testutil::v1_files;

    #[test]
    fn score_files_give_each_run_bfcls_verdict() {
        let files = v1_files();
        let mapped = map_files(&files);
        assert!(
            mapped
                .iter()
                .all(|m| m.errors.is_empty() && m.out.dropped.is_empty())
        );
        let runs: Vec<&Value> = mapped
            .iter()
            .flat_map(|m| &m.out.records)
            .map(|r| &r.value)
            .filter(|v| v["type"] == "run")
            .collect();
        assert_eq!(runs.len(), 23);
        let failed: Vec<&str> = runs
            .iter()
            .filter(|r| r["success"] == json!(false))
            .map(|r| r["task_id"].as_str().unwrap())
            .collect();
        // v1 numbers a failing entry by its result line: relevance's
        // line 2 is relevance_1.
        assert_eq!(
            failed,
            [
                "multiple_function_1",
                "parallel_function_1",
                "parallel_function_2",
                "parallel_multiple_function_1",
                "relevance_1",
                "simple_1",
                "simple_2",
                "simple_3",
                "simple_4",
                "simple_5",
                "simple_6",
                "simple_7",
                "simple_8",
                "simple_9"
            ]
        );
        let r = runs
            .iter()
            .find(|r| r["task_id"] == "parallel_function_1")
            .unwrap();
        assert_eq!(
            r["tags"],
            json!({"bfcl_category": "parallel", "bfcl_version": "v1", "bfcl_error_type": "parallel_function_checker_no_order:cannot_find_match"})
        );
        assert_eq!(
            r["bfcl_error"][1]["Model Result Index 1"]["sub_error_type"],
            "value_error:string"
        );
        // Every entry has its case: the possible answers' expected calls
        // (judged by BFCL's checker), and the irrelevance entries, where no
        // call is right.
        let cases: Vec<&Value> = mapped
            .iter()
            .flat_map(|m| &m.out.records)
            .map(|r| &r.value)
            .filter(|v| v["type"] == "case")
            .collect();
        assert_eq!(cases.len(), 23);
        assert!(
            cases[..20]
                .iter()
                .all(|c| c["checker"] == "bfcl" && c["expected_calls"].is_array())
        );
        assert_eq!(
            cases[20..],
            [
                &json!({"type": "case", "task_id": "relevance_0", "acceptable": ["@no_call"]}),
                &json!({"type": "case", "task_id": "relevance_1", "acceptable": ["@no_call"]}),
                &json!({"type": "case", "task_id": "relevance_2", "acceptable": ["@no_call"]}),
            ]
        );
    }
}
