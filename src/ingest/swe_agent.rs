//! SWE-agent trajectories (`*.traj`): `history` holds OpenAI-format
//! messages (function calling, or the older text protocol where the harness
//! parses an `action` out of the text: a call written as text). No tool
//! schemas, reward or ground truth are recorded.

use serde_json::{Map, Value, json};

use super::convo::{self, Out};
use super::openai::{self, kind};

/// Why a value is not a SWE-agent trajectory (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    let Value::Object(o) = v else {
        return vec![format!("a trajectory is an object, not {}", kind(v))];
    };
    match o.get("history") {
        Some(Value::Array(h)) => match h.iter().position(|m| m.get("role").is_none()) {
            Some(i) => vec![format!("history[{i}] has no \"role\"")],
            None => Vec::new(),
        },
        Some(other) => vec![format!("\"history\" is {}, not a list", kind(other))],
        None => vec!["no \"history\" list".to_string()],
    }
}

/// Maps one trajectory to a run and its decisions.
pub fn map(
    v: &Value,
    record_line: u64,
    message_lines: &[u64],
    out: &mut Out,
) -> Result<(), String> {
    let convo::Checked {
        o,
        list,
        items: history,
    } = convo::checked(v, "history", check(v), "a SWE-agent trajectory")?;
    let run_id = format!("swe-agent-{}", convo::short_hash(list));
    let record = Some(format!("run {run_id}"));
    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    // The in-context demonstration is not the request.
    let is_demo = |m: &Map<String, Value>| {
        m.get("is_demo")
            .is_some_and(|d| d == &json!(true) || d == &json!("True"))
    };
    let msgs = openai::read_messages(history, message_lines, record_line, &record, is_demo, out);
    if let Some(g) = msgs.goal {
        run.insert("goal".into(), json!(g));
    }
    // `trajectory` repeats `history`; the replay configuration is not kept.
    for key in ["info", "environment"] {
        if let Some(x) = o.get(key) {
            run.insert(format!("swe_agent_{key}"), x.clone());
        }
    }
    run.insert("imported_from".into(), json!("swe-agent"));
    out.push(Value::Object(run), record_line, None);
    convo::decisions(&run_id, None, msgs.items, &record, out);
    Ok(())
}
