//! Mapping to records: questions, answers, results and scores joined by
//! entry, each entry and model one run, each decoded call one decision.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::OJson;
use super::answers::{answer_case, expected_calls};
use super::convo::Out;
use super::decode::{Decoded, decode};
use super::files::{
    File, Key, Kind, classify, entry_id, is_fc_model, is_irrelevance, is_multi_turn, is_relevance,
    is_stringly,
};
use super::menu::{functions_of, menu_name, menu_names, menu_of, tool_definition, turns_of};
use super::scores::verdicts;
use crate::error::InputError;

/// One question entry.
pub(super) struct Question<'a> {
    line: u64,
    id: String,
    entry: &'a OJson,
}

/// A question file's entries, and their index by id.
pub(super) struct QuestionFile<'a> {
    file: usize,
    key: &'a Key,
    entries: Vec<Question<'a>>,
    by_id: HashMap<String, usize>,
}

impl QuestionFile<'_> {
    fn get(&self, id: &str) -> Option<&Question<'_>> {
        self.by_id.get(id).map(|&n| &self.entries[n])
    }
}

/// A possible-answer file's ground truths by id, with their line.
pub(super) struct AnswerFile<'a> {
    file: usize,
    key: &'a Key,
    by_id: HashMap<String, (u64, &'a OJson)>,
}

/// What mapping produced for one file.
#[derive(Debug, Default)]
pub struct Mapped {
    pub out: Out,
    pub errors: Vec<InputError>,
}

/// Maps a set of BFCL files to rung-format records, per file (the records
/// of a run go with its result file, a case with its answer or question
/// file), with the errors found in each.
pub fn map_files(files: &[File]) -> Vec<Mapped> {
    let mut mapped: Vec<Mapped> = files.iter().map(|_| Mapped::default()).collect();
    let mut kinds: Vec<Option<Kind>> = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        match classify(f) {
            Ok(k) => kinds.push(k),
            Err(why) => {
                mapped[i]
                    .errors
                    .push(InputError::at(&f.display, None, None, why));
                kinds.push(None);
            }
        }
    }

    // Questions and answers by file, entries by id.
    let mut questions: Vec<QuestionFile<'_>> = Vec::new();
    let mut answers: Vec<AnswerFile<'_>> = Vec::new();
    let mut docs: HashMap<String, Vec<Value>> = HashMap::new();
    for (i, (f, k)) in files.iter().zip(&kinds).enumerate() {
        match k {
            Some(Kind::Question(key)) => {
                let mut entries = Vec::new();
                let mut by_id = HashMap::new();
                for (line, v) in &f.lines {
                    let Some(id) = entry_id(v) else {
                        mapped[i].errors.push(InputError::at(
                            &f.display,
                            Some(*line),
                            None,
                            "a question entry needs a string \"id\"",
                        ));
                        continue;
                    };
                    if by_id.contains_key(&id) {
                        mapped[i].errors.push(InputError::at(
                            &f.display,
                            Some(*line),
                            Some(format!("entry {id}")),
                            "this id is on an earlier line too",
                        ));
                        continue;
                    }
                    by_id.insert(id.clone(), entries.len());
                    entries.push(Question {
                        line: *line,
                        id,
                        entry: v,
                    });
                }
                questions.push(QuestionFile {
                    file: i,
                    key,
                    entries,
                    by_id,
                });
            }
            Some(Kind::Answer(key)) => {
                let mut by_id = HashMap::new();
                for (line, v) in &f.lines {
                    match (entry_id(v), v.get("ground_truth")) {
                        (Some(id), Some(gt)) => {
                            by_id.insert(id, (*line, gt));
                        }
                        _ => mapped[i].errors.push(InputError::at(
                            &f.display,
                            Some(*line),
                            None,
                            "a possible answer needs \"id\" and \"ground_truth\"",
                        )),
                    }
                }
                answers.push(AnswerFile {
                    file: i,
                    key,
                    by_id,
                });
            }
            Some(Kind::FuncDoc(stem)) => {
                docs.insert(
                    stem.clone(),
                    f.lines.iter().map(|(_, v)| v.to_value()).collect(),
                );
            }
            _ => {}
        }
    }
    let question_file = |key: &Key| {
        questions
            .iter()
            .filter(|q| q.key.matches(key))
            .max_by_key(|q| q.key.version == key.version)
    };

    // Cases from question files: irrelevance and relevance entries.
    for qf in &questions {
        let key = qf.key;
        for q in &qf.entries {
            let case = if is_irrelevance(&key.category) {
                json!({"type": "case", "task_id": q.id, "acceptable": ["@no_call"]})
            } else if is_relevance(&key.category) {
                let names = menu_names(&functions_of(q.entry));
                if names.is_empty() {
                    continue;
                }
                json!({"type": "case", "task_id": q.id, "acceptable": names})
            } else {
                continue;
            };
            mapped[qf.file].out.push(case, q.line, None);
        }
    }

    // Cases from possible answers.
    for af in &answers {
        let key = af.key;
        let qf = question_file(key);
        let mut ids: Vec<(&String, &(u64, &OJson))> = af.by_id.iter().collect();
        ids.sort_by_key(|(_, (line, _))| *line);
        for (id, (line, gt)) in ids {
            let functions = qf.and_then(|q| q.get(id)).map(|q| functions_of(q.entry));
            let Some(calls) = expected_calls(gt, functions.as_deref(), &key.category) else {
                continue;
            };
            mapped[af.file]
                .out
                .push(answer_case(id, calls), *line, None);
        }
    }

    // Score files by model and key.
    let mut scores: Vec<(&str, &Key, usize)> = Vec::new();
    for (i, k) in kinds.iter().enumerate() {
        if let Some(Kind::Score { key, model }) = k {
            scores.push((model, key, i));
        }
    }

    // Runs from result files.
    for (i, k) in kinds.iter().enumerate() {
        let Some(Kind::Result { key, model }) = k else {
            continue;
        };
        let f = &files[i];
        let Some(qf) = question_file(key) else {
            mapped[i].errors.push(InputError::at(
                &f.display,
                None,
                None,
                format!(
                    "no question file for BFCL category {:?}{}: import the question files with the results (or the BFCL folder holding question/ and result/)",
                    key.category,
                    key.version.as_deref().map(|v| format!(" ({v})")).unwrap_or_default()
                ),
            ));
            continue;
        };
        let answer_file = answers.iter().find(|a| a.key.matches(key));
        // Result entries paired with questions: by id, or by position when
        // the results carry none (as BFCL v1 paired them).
        let mut results: Vec<(u64, &OJson, &Question<'_>)> = Vec::new();
        // The entry of each result line, for v1's numbered verdicts.
        let mut by_line: Vec<Option<&str>> = Vec::with_capacity(f.lines.len());
        for (pos, (line, v)) in f.lines.iter().enumerate() {
            let by_id = match v.get("id") {
                Some(OJson::Str(id)) => Some(qf.get(id)),
                _ => None,
            };
            let q = match by_id {
                Some(q) => q,
                None => qf.entries.get(pos),
            };
            by_line.push(q.map(|q| q.id.as_str()));
            let Some(q) = q else {
                let what = entry_id(v)
                    .map_or_else(|| format!("result {}", pos + 1), |id| format!("entry {id}"));
                mapped[i].errors.push(InputError::at(
                    &f.display,
                    Some(*line),
                    Some(what),
                    format!("no such entry in {}", files[qf.file].display),
                ));
                continue;
            };
            results.push((*line, v, q));
        }
        let verdicts = scores
            .iter()
            .find(|(m, k, _)| *m == model.as_str() && k.matches(key))
            .map(|(_, _, s)| verdicts(&files[*s], &by_line, &mut mapped[*s].errors));
        let fc = is_fc_model(model);
        let mut out = Out::default();
        for (line, v, q) in &results {
            let gt = answer_file
                .and_then(|a| a.by_id.get(&q.id))
                .map(|(_, gt)| *gt);
            let verdict = verdicts
                .as_ref()
                .map(|vs| vs.failing.get(&q.id).map(|(_, s)| *s));
            let r = RunInput {
                model,
                key,
                question: q,
                result: v,
                gt,
                verdict,
                fc,
                docs: &docs,
            };
            if let Err(why) = map_run(&r, *line, &mut out) {
                mapped[i].errors.push(InputError::at(
                    &f.display,
                    Some(*line),
                    Some(format!("run {model}/{}", q.id)),
                    why,
                ));
            }
        }
        mapped[i].out.records.extend(out.records);
        mapped[i].out.dropped.extend(out.dropped);
    }
    mapped
}

/// Everything one run is made of.
pub(super) struct RunInput<'a> {
    model: &'a str,
    key: &'a Key,
    question: &'a Question<'a>,
    result: &'a OJson,
    gt: Option<&'a OJson>,
    /// `None`: no score file; `Some(None)`: BFCL passed it; `Some(Some(v))`:
    /// BFCL failed it with this verdict.
    verdict: Option<Option<&'a OJson>>,
    fc: bool,
    docs: &'a HashMap<String, Vec<Value>>,
}

pub(super) fn map_run(
    r: &RunInput<'_>,
    line: u64,
    out: &mut Out,
) -> std::result::Result<(), String> {
    let q = r.question;
    let run_id = format!("{}/{}", r.model, q.id);
    let Some(answer) = r.result.get("result") else {
        return Err("a result needs a \"result\"".into());
    };
    let menu = menu_of(q.entry, &r.key.category, r.docs, &run_id, out, line);
    let stringly = is_stringly(&r.key.category);
    let all_names = menu_names(&menu.functions);

    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    run.insert("task_id".into(), json!(q.id));
    run.insert("model".into(), json!(r.model));
    let turns = turns_of(q.entry.get("question"));
    let goal = turns
        .iter()
        .flatten()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str);
    if let Some(g) = goal {
        run.insert("goal".into(), json!(g));
    }
    if menu.known && menu.held.is_empty() {
        run.insert("visible".into(), json!(all_names));
    }
    let mut tags = Map::new();
    tags.insert("bfcl_category".into(), json!(r.key.category));
    if let Some(v) = &r.key.version {
        tags.insert("bfcl_version".into(), json!(v));
    }
    match r.verdict {
        None => {}
        Some(None) => {
            run.insert("success".into(), json!(true));
        }
        Some(Some(v)) => {
            run.insert("success".into(), json!(false));
            // Multi-turn verdicts nest the type in "error".
            let ty = v
                .get("error_type")
                .or_else(|| v.get("error").and_then(|e| e.get("error_type")))
                .and_then(OJson::as_str);
            if let Some(t) = ty {
                tags.insert("bfcl_error_type".into(), json!(t));
            }
            if let Some(e) = v.get("error") {
                run.insert("bfcl_error".into(), e.to_value());
            }
        }
    }
    run.insert("tags".into(), Value::Object(tags));
    if menu.known {
        run.insert(
            "tool_definitions".into(),
            Value::Array(
                menu.functions
                    .iter()
                    .map(|f| tool_definition(f, stringly))
                    .collect(),
            ),
        );
    }
    if let Some(gt) = r.gt {
        run.insert("bfcl_possible_answer".into(), gt.to_value());
    }
    let messages: usize = turns.iter().map(Vec::len).sum();
    if messages > 1 || turns.len() > 1 {
        run.insert("bfcl_question".into(), json!(turns));
    }
    if let OJson::Obj(pairs) = q.entry {
        for (k, v) in pairs {
            if !["id", "question", "function"].contains(&k.as_str()) {
                run.insert(format!("bfcl_{k}"), v.to_value());
            }
        }
    }
    if let OJson::Obj(pairs) = r.result {
        for (k, v) in pairs {
            if !["id", "result"].contains(&k.as_str()) {
                run.insert(format!("bfcl_{k}"), v.to_value());
            }
        }
    }
    run.insert("imported_from".into(), json!("bfcl"));
    out.push(Value::Object(run), line, None);

    let mut step = 0i64;
    let mut turn = 0i64;
    let mut push = |decoded: Decoded, visible: Option<&[String]>, bfcl_turn: Option<usize>| {
        turn += 1;
        let mut base = Map::new();
        base.insert("type".into(), json!("decision"));
        base.insert("run_id".into(), json!(run_id));
        base.insert("turn".into(), json!(turn));
        if let Some(v) = visible {
            base.insert("visible".into(), json!(v));
        }
        if let Some(t) = bfcl_turn {
            base.insert("bfcl_turn".into(), json!(t));
        }
        let names = visible.unwrap_or(&all_names);
        match decoded {
            Decoded::Calls(calls) => {
                for c in calls {
                    step += 1;
                    let mut d = base.clone();
                    d.insert("step".into(), json!(step));
                    let mapped = if r.fc {
                        menu_name(&c.name, names)
                    } else {
                        None
                    };
                    match mapped {
                        Some(m) => {
                            d.insert("selected".into(), json!(m));
                            d.insert("bfcl_name".into(), json!(c.name));
                        }
                        None => {
                            d.insert("selected".into(), json!(c.name));
                        }
                    }
                    d.insert("arguments".into(), c.arguments);
                    out.push(Value::Object(d), line, None);
                }
            }
            Decoded::NoCall { raw, why } => {
                step += 1;
                let mut d = base;
                d.insert("step".into(), json!(step));
                d.insert("selected".into(), Value::Null);
                if let Some(raw) = raw {
                    d.insert("raw".into(), raw);
                }
                if let Some(why) = why {
                    d.insert("bfcl_decode_error".into(), json!(why));
                }
                out.push(Value::Object(d), line, None);
            }
        }
    };
    if !is_multi_turn(&r.key.category) {
        push(decode(answer, r.fc), None, None);
        return Ok(());
    }
    // Multi-turn: a list of turns, each a list of the model's answers (steps).
    let OJson::Arr(bfcl_turns) = answer else {
        push(decode(answer, r.fc), None, None);
        return Ok(());
    };
    for (t, steps) in bfcl_turns.iter().enumerate() {
        let visible: Option<Vec<String>> = (menu.known && !menu.held.is_empty()).then(|| {
            let withheld: Vec<&String> = menu
                .held
                .iter()
                .filter(|(from, _)| *from > t)
                .flat_map(|(_, names)| names)
                .collect();
            all_names
                .iter()
                .filter(|n| !withheld.contains(n))
                .cloned()
                .collect()
        });
        match steps {
            OJson::Arr(steps) => {
                for s in steps {
                    push(decode(s, r.fc), visible.as_deref(), Some(t));
                }
            }
            other => push(decode(other, r.fc), visible.as_deref(), Some(t)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::ingest::read::Limits;

    #[test]
    fn entries_that_do_not_join_are_errors_naming_the_line() {
        let q = File::parse(
            "q/BFCL_v3_simple.json",
            Path::new("q/BFCL_v3_simple.json"),
            b"{\"id\": \"simple_0\", \"question\": [], \"function\": []}\n{\"id\": \"simple_0\", \"question\": [], \"function\": []}\nnot json\n",
            &Limits::default(),
        );
        assert_eq!(q.1.len(), 1);
        assert_eq!(
            q.1[0].to_string(),
            "q/BFCL_v3_simple.json:3: invalid JSON at column 2: expected ident (BFCL files are JSON Lines: one entry per line)"
        );
        let r = File::parse(
            "result/m/BFCL_v3_simple_result.json",
            Path::new("result/m/BFCL_v3_simple_result.json"),
            b"{\"id\": \"simple_0\", \"result\": []}\n{\"id\": \"simple_9\", \"result\": []}\n",
            &Limits::default(),
        );
        let orphan = File::parse(
            "result/m/BFCL_v3_multiple_result.json",
            Path::new("result/m/BFCL_v3_multiple_result.json"),
            b"{\"id\": \"multiple_0\", \"result\": []}\n",
            &Limits::default(),
        );
        let mapped = map_files(&[q.0, r.0, orphan.0]);
        let msgs: Vec<String> = mapped
            .iter()
            .flat_map(|m| &m.errors)
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            msgs,
            [
                "q/BFCL_v3_simple.json:2: entry simple_0: this id is on an earlier line too",
                "result/m/BFCL_v3_simple_result.json:2: entry simple_9: no such entry in q/BFCL_v3_simple.json",
                "result/m/BFCL_v3_multiple_result.json: no question file for BFCL category \"multiple\" (v3): import the question files with the results (or the BFCL folder holding question/ and result/)",
            ]
        );
        assert_eq!(
            mapped[1].out.records.len(),
            2,
            "simple_0's run and its one decision"
        );
    }
}
