//! tau-bench trajectories (`historical_trajectories/*.json`): a list of
//! records `{task_id, trial, reward, info, traj}`, each one run. `traj`
//! holds OpenAI-format messages; a tool result starting with `Error:` is an
//! execution error. The tool menu is not recorded, so none is given.
//!
//! The task's reference actions (`info.task.actions`) and the strings its
//! answer must contain (`info.task.outputs`) become a step-less case of the
//! task (format v1.1): `expected_calls` and `expected_outputs`. Every trial
//! of a task writes the same case, so a second trial or a re-import adds
//! nothing. A run that crashed (`info.error`) ends `terminated: error`.

use serde_json::{Map, Value, json};

use super::convo::{self, Item, Out};
use super::openai::{self, kind};

/// Why a value is not a tau-bench record (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    let Value::Object(o) = v else {
        return vec![format!("a trajectory record is an object, not {}", kind(v))];
    };
    let mut why = Vec::new();
    match o.get("traj") {
        Some(Value::Array(_)) => {}
        Some(other) => why.push(format!("\"traj\" is {}, not a list", kind(other))),
        None => why.push("no \"traj\" list".to_string()),
    }
    match o.get("task_id") {
        Some(Value::Number(_) | Value::String(_)) => {}
        Some(other) => why.push(format!("\"task_id\" is {}", kind(other))),
        None => why.push("no \"task_id\"".to_string()),
    }
    why
}

/// The environment a trajectory ran in, from its policy's heading
/// (`# Airline Agent Policy` → `airline`), so that task 0 of airline and
/// task 0 of retail stay apart.
fn environment(traj: &[Value]) -> Option<String> {
    let sys = traj
        .iter()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("system"))?;
    let first = sys.get("content")?.as_str()?.lines().next()?;
    let heading = first.strip_prefix("# ")?;
    if !heading.to_ascii_lowercase().ends_with("policy") {
        return None;
    }
    let word = heading.split_whitespace().next()?.to_ascii_lowercase();
    (word.chars().all(|c| c.is_ascii_alphanumeric()) && word != "policy").then_some(word)
}

/// The environment of a file's first record that names one: the one a
/// record without a conversation (a crashed run) belongs to.
pub fn file_environment<'a>(records: impl IntoIterator<Item = &'a Value>) -> Option<String> {
    records.into_iter().find_map(|r| {
        r.get("traj")
            .and_then(Value::as_array)
            .and_then(|t| environment(t))
    })
}

/// Maps one record to a run and its decisions. `message_lines[i]` is the
/// line of `traj[i]`; `file_env` is the file's environment, for a record
/// whose conversation names none.
pub fn map(
    v: &Value,
    record_line: u64,
    message_lines: &[u64],
    file_env: Option<&str>,
    out: &mut Out,
) -> Result<(), String> {
    let convo::Checked {
        o,
        list,
        items: traj,
    } = convo::checked(v, "traj", check(v), "a tau-bench record")?;
    let task = o
        .get("task_id")
        .ok_or("not a tau-bench record: no \"task_id\"")?;
    let raw_task = match task {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let env = environment(traj).or_else(|| file_env.map(str::to_string));
    let task_id = format!("{}/{raw_task}", env.as_deref().unwrap_or("tau-bench"));
    let trial = o.get("trial").and_then(Value::as_i64);
    let run_id = format!(
        "{task_id}/{}-{}",
        trial.map(|t| format!("t{t}")).unwrap_or_else(|| "t".into()),
        &convo::short_hash(list)[..8]
    );
    let record = Some(format!("run {run_id}"));

    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    run.insert("task_id".into(), json!(task_id));
    if let Some(t) = trial.filter(|t| *t >= 0) {
        run.insert("trial".into(), json!(t));
    }
    if let Some(r) = o.get("reward").and_then(Value::as_f64) {
        // tau-bench counts a trial as passed when its reward is 1.
        run.insert("success".into(), json!((r - 1.0).abs() < 1e-6));
        run.insert("reward".into(), o["reward"].clone());
    }
    run.insert("tau_bench_task_id".into(), task.clone());
    if let Some(info) = o.get("info") {
        if let Some(actions) = info.get("task").and_then(|t| t.get("actions")) {
            run.insert("ground_truth_actions".into(), actions.clone());
        }
        if info.get("error").is_some_and(|e| !e.is_null()) {
            run.insert("terminated".into(), json!("error"));
        }
        run.insert("tau_bench_info".into(), info.clone());
    }
    for (k, val) in o {
        if !["task_id", "trial", "reward", "info", "traj"].contains(&k.as_str()) {
            run.insert(format!("tau_bench_{k}"), val.clone());
        }
    }

    let mut msgs = openai::read_messages(traj, message_lines, record_line, &record, |_| false, out);
    for item in &mut msgs.items {
        if let Item::Result(r) = item
            && let Value::String(s) = &r.content
            && s.starts_with("Error:")
        {
            r.error = Some(s.clone());
        }
    }
    if let Some(g) = msgs.goal.take() {
        run.insert("goal".into(), json!(g));
    }
    run.insert("imported_from".into(), json!("tau-bench"));
    if let Some(case) = o
        .get("info")
        .and_then(|i| i.get("task"))
        .and_then(|t| expectations_case(&task_id, t, record_line, &record, out))
    {
        out.push(case, record_line, None);
    }
    out.push(Value::Object(run), record_line, None);
    convo::decisions(&run_id, None, msgs.items, &record, out);
    Ok(())
}

/// The case a task's reference solution sets: `actions` (each `{name,
/// kwargs}`) as `expected_calls`, `outputs` as `expected_outputs`. `None`
/// when the task records neither list; an action that is not a
/// `{name, kwargs}` object is left out and said.
fn expectations_case(
    task_id: &str,
    task: &Value,
    line: u64,
    record: &Option<String>,
    out: &mut Out,
) -> Option<Value> {
    let actions = task.get("actions").and_then(Value::as_array);
    let outputs = task.get("outputs").and_then(Value::as_array);
    if actions.is_none() && outputs.is_none() {
        return None;
    }
    let mut case = Map::new();
    case.insert("type".into(), json!("case"));
    case.insert("task_id".into(), json!(task_id));
    if let Some(actions) = actions {
        let mut calls = Vec::with_capacity(actions.len());
        for (i, a) in actions.iter().enumerate() {
            let name = a.get("name").and_then(Value::as_str);
            let kwargs = match a.get("kwargs") {
                None | Some(Value::Null) => Some(Map::new()),
                Some(Value::Object(m)) => Some(m.clone()),
                Some(_) => None,
            };
            match (name, kwargs) {
                (Some(name), Some(kwargs)) => {
                    calls.push(json!({"tool": name, "arguments": Value::Object(kwargs)}))
                }
                _ => out.drop_part(
                    line,
                    record.clone(),
                    format!(
                        "dropped reference action {i} of task {}: not a {{name, kwargs}} object",
                        crate::text::echo(task_id)
                    ),
                ),
            }
        }
        case.insert("expected_calls".into(), Value::Array(calls));
    }
    if let Some(outputs) = outputs {
        let strings: Vec<Value> = outputs.iter().filter(|o| o.is_string()).cloned().collect();
        if strings.len() < outputs.len() {
            out.drop_part(
                line,
                record.clone(),
                format!(
                    "dropped {} expected output(s) of task {} that are not strings",
                    outputs.len() - strings.len(),
                    crate::text::echo(task_id)
                ),
            );
        }
        case.insert("expected_outputs".into(), Value::Array(strings));
    }
    Some(Value::Object(case))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_from_policy_heading() {
        let t = |s: &str| vec![json!({"role": "system", "content": s})];
        assert_eq!(
            environment(&t("# Airline Agent Policy\n\nx")),
            Some("airline".into())
        );
        assert_eq!(
            environment(&t("# Retail agent policy\n")),
            Some("retail".into())
        );
        assert_eq!(environment(&t("You are a helpful agent")), None);
        assert_eq!(environment(&[]), None);
    }
}
