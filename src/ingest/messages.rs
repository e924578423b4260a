//! A bare list of chat messages: what mini-swe-agent and many home-grown
//! agent loops save. OpenAI shapes (`tool_calls`, `tool` messages) or
//! Anthropic shapes (`tool_use` / `tool_result` blocks), one run per list.
//! No tool menu is recorded.
//!
//! mini-swe-agent's text protocol is read too: an assistant message with
//! one fenced `mswea_bash_command` block (or one `bash` / `sh` block that
//! the next user message answers with `<returncode>`) is a call of `bash`
//! with that command, and the next user message is its observation; a
//! non-zero return code is an execution error.

use serde_json::{Map, Value, json};

use super::anthropic;
use super::convo::{self, Args, Call, Out};
use super::openai::{self, Action, kind};

/// Item types of the OpenAI Responses API: a list holding them is a
/// Responses transcript, not a chat.
const RESPONSES_ONLY: &[&str] = &["function_call", "function_call_output", "reasoning"];

/// Why a value is not a message list (empty when it is one).
pub fn check(v: &Value) -> Vec<String> {
    let Value::Array(items) = v else {
        return vec![format!("a message list is a JSON list, not {}", kind(v))];
    };
    if items.is_empty() {
        return vec!["the list is empty".to_string()];
    }
    let mut why = Vec::new();
    for (i, m) in items.iter().enumerate() {
        match m.get("role").and_then(Value::as_str) {
            None => why.push(format!("[{i}] has no \"role\"")),
            Some(r) if !ROLES.contains(&r) => {
                why.push(format!("[{i}] has role {}", crate::text::echo(r)))
            }
            Some(_) => {}
        }
        if let Some(t) = m.get("type").and_then(Value::as_str)
            && RESPONSES_ONLY.contains(&t)
        {
            why.push(format!("[{i}] is a Responses API {t:?} item"));
        }
        if why.len() >= 3 {
            break;
        }
    }
    why
}

const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

/// Fenced code blocks in a text: (language, body).
fn fenced_blocks(text: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, Vec<&str>)> = None;
    for line in text.lines() {
        let t = line.trim_start();
        match open.take() {
            None => {
                if let Some(lang) = t.strip_prefix("```") {
                    open = Some((lang.trim(), Vec::new()));
                }
            }
            Some((lang, mut body)) => {
                if t.starts_with("```") {
                    blocks.push((lang, body.join("\n")));
                } else {
                    body.push(line);
                    open = Some((lang, body));
                }
            }
        }
    }
    blocks
}

/// mini-swe-agent's action in an assistant message that made no call.
pub fn mswea_action(m: &Map<String, Value>, next: Option<&Value>) -> Action {
    let Some(text) = convo::content_text(m.get("content")) else {
        return Action::None;
    };
    let blocks = fenced_blocks(&text);
    let bash = |cmd: &str| {
        Action::Call(Call {
            id: None,
            name: Some("bash".to_string()),
            arguments: Args::Value(json!({ "command": cmd })),
        })
    };
    let own: Vec<&String> = blocks
        .iter()
        .filter(|(l, _)| *l == "mswea_bash_command")
        .map(|(_, b)| b)
        .collect();
    match own.as_slice() {
        [one] => return bash(one),
        [] => {}
        // The harness asks for exactly one: a call it could not read.
        _ => return Action::Unreadable,
    }
    let shell: Vec<&String> = blocks
        .iter()
        .filter(|(l, _)| matches!(*l, "bash" | "sh"))
        .map(|(_, b)| b)
        .collect();
    let answered = next.is_some_and(|n| {
        n.get("role").and_then(Value::as_str) == Some("user")
            && convo::content_text(n.get("content"))
                .is_some_and(|t| t.trim_start().starts_with("<returncode>"))
    });
    match shell.as_slice() {
        [one] if answered => bash(one),
        _ => Action::None,
    }
}

/// Whether a list uses Anthropic's content blocks for its calls.
fn anthropic_shaped(items: &[Value]) -> bool {
    items
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .any(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("tool_use") || t.ends_with("tool_result"))
        })
}

/// Maps one message list to a run and its decisions. `message_lines[i]` is
/// the line of item i.
pub fn map(
    v: &Value,
    record_line: u64,
    message_lines: &[u64],
    out: &mut Out,
) -> Result<(), String> {
    // Items that are not messages are dropped at their line.
    let items = match v {
        Value::Array(items) if !items.is_empty() => items,
        _ => return Err(format!("not a message list: {}", check(v).join("; "))),
    };
    let run_id = format!("messages-{}", convo::short_hash(v));
    let record = Some(format!("run {run_id}"));
    let (conversation, goal, shape) = if anthropic_shaped(items) {
        let (conv, goal) = anthropic::read_messages(items, message_lines, record_line);
        (conv, goal, "anthropic")
    } else {
        let m = openai::read_messages_with(
            items,
            message_lines,
            record_line,
            &record,
            |_| false,
            &mswea_action,
            out,
        );
        (m.items, m.goal, "openai")
    };
    let mut run = Map::new();
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    if let Some(g) = goal {
        run.insert("goal".into(), json!(g));
    }
    run.insert("imported_from".into(), json!("messages"));
    run.insert("message_shape".into(), json!(shape));
    out.push(Value::Object(run), record_line, None);
    convo::decisions(&run_id, None, conversation, &record, out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(content: &str) -> Map<String, Value> {
        json!({"role": "assistant", "content": content})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn reads_the_command_block() {
        let call = |a: Action| match a {
            Action::Call(c) => c.arguments,
            other => panic!("{other:?}"),
        };
        let m = msg("THOUGHT: look\n\n```mswea_bash_command\nls -la\n```\n");
        assert_eq!(
            call(mswea_action(&m, None)),
            Args::Value(json!({"command": "ls -la"}))
        );
        let two = msg("```mswea_bash_command\nls\n```\n```mswea_bash_command\npwd\n```");
        assert_eq!(mswea_action(&two, None), Action::Unreadable);
        // A bash block is a call only when a return code answers it.
        let b = msg("Run it:\n```bash\ncat a.py\n```");
        let rc = json!({"role": "user", "content": "<returncode>1</returncode>\n<output>\nno\n</output>"});
        let plain = json!({"role": "user", "content": "thanks"});
        assert_eq!(
            call(mswea_action(&b, Some(&rc))),
            Args::Value(json!({"command": "cat a.py"}))
        );
        assert_eq!(mswea_action(&b, Some(&plain)), Action::None);
        assert_eq!(mswea_action(&msg("No code here."), None), Action::None);
    }

    #[test]
    fn exit_status() {
        assert_eq!(
            openai::exit_status_error("<returncode>2</returncode>\n<output>x</output>"),
            Some("exit status 2".to_string())
        );
        assert_eq!(
            openai::exit_status_error("<returncode>0</returncode>"),
            None
        );
        assert_eq!(openai::exit_status_error("diff --git"), None);
    }
}
