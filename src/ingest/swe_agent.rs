//! SWE-agent trajectories (`*.traj`): `history` holds OpenAI-format
//! messages: function calling, or the older text protocol where the harness
//! parses an `action` out of the text and answers with a user message (the
//! observation). A text action is a call of the command it names when the
//! system prompt documents that command (`create`, `edit`, `submit`...),
//! else of the tool `bash`. No tool schemas, reward or ground truth are
//! recorded.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::convo::{self, Args, Call, Out};
use super::openai::{self, Action, kind};

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
    let commands = documented_commands(history);
    let read_action = |m: &Map<String, Value>, _: Option<&Value>| match m.get("action") {
        Some(Value::String(a)) if !a.trim().is_empty() => Action::Call(action_call(a, &commands)),
        _ => Action::None,
    };
    let msgs = openai::read_messages_with(
        history,
        message_lines,
        record_line,
        &record,
        is_demo,
        &read_action,
        out,
    );
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

/// SWE-agent's own commands, used when no system prompt documents any.
const DEFAULT_COMMANDS: &[&str] = &[
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "submit",
    "search_dir",
    "search_file",
    "find_file",
];

/// The commands the system prompt documents under `COMMANDS:`, each with
/// its signature's lines (the first starts with the name; empty when none
/// is given). Both layouts SWE-agent has written are read: `name:` with an
/// indented `signature:`, and `name <args> - description` on one line.
fn documented_commands(history: &[Value]) -> BTreeMap<String, Vec<String>> {
    let system = history
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("system"))
        .find_map(|m| convo::content_text(m.get("content")))
        .unwrap_or_default();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Some(start) = system.find("COMMANDS:") else {
        for c in DEFAULT_COMMANDS {
            out.insert(c.to_string(), Vec::new());
        }
        return out;
    };
    let mut current: Option<String> = None;
    // The lines that follow continue the current signature.
    let mut in_signature = false;
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    for line in system[start + "COMMANDS:".len()..].lines() {
        if line.trim().is_empty() {
            in_signature = false;
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            in_signature = false;
            if let Some(sig) = line.trim_start().strip_prefix("signature:")
                && let Some(c) = &current
            {
                out.insert(c.clone(), vec![sig.trim().to_string()]);
                in_signature = true;
            }
            continue;
        }
        // The prose after the list ("Please note...", "RESPONSE FORMAT:").
        if line.starts_with(|c: char| c.is_ascii_uppercase()) {
            break;
        }
        if in_signature {
            if let Some(c) = &current {
                let sig = out.entry(c.clone()).or_default();
                match line.split_once(" - ") {
                    Some((head, _)) => {
                        sig.push(head.trim().to_string());
                        in_signature = false;
                    }
                    None => sig.push(line.trim().to_string()),
                }
            }
            continue;
        }
        if let Some(name) = line.trim_end().strip_suffix(':')
            && ident(name)
        {
            out.insert(name.to_string(), Vec::new());
            current = Some(name.to_string());
            continue;
        }
        let name = line.split_whitespace().next().unwrap_or("");
        if !ident(name) {
            continue;
        }
        let (head, described) = match line.split_once(" - ") {
            Some((head, _)) => (head, true),
            None => (line, false),
        };
        out.insert(name.to_string(), vec![head.trim().to_string()]);
        current = Some(name.to_string());
        in_signature = !described;
    }
    out
}

/// The call a text action makes: the documented command it names, with
/// its arguments read by the command's signature where that is plain
/// (`open <path> [<line_number>]`, `edit <start_line>:<end_line>` and a
/// body); anything else is a shell command, a call of `bash`.
fn action_call(action: &str, commands: &BTreeMap<String, Vec<String>>) -> Call {
    let action = action.trim_end();
    let name = action.split_whitespace().next().unwrap_or("");
    match commands.get(name) {
        Some(sig) => Call {
            id: None,
            name: Some(name.to_string()),
            arguments: signature_arguments(action, sig)
                .map(|m| Args::Value(Value::Object(m)))
                .unwrap_or(Args::Absent),
        },
        None => Call {
            id: None,
            name: Some("bash".to_string()),
            arguments: Args::Value(json!({ "command": action })),
        },
    }
}

/// A signature's placeholder: `<name>`, optionally quoted; `None` for
/// anything else (a flag, literal text).
fn placeholder(tok: &str) -> Option<&str> {
    let t = tok
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .or_else(|| tok.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
        .unwrap_or(tok);
    let name = t.strip_prefix('<')?.strip_suffix('>')?;
    (!name.is_empty() && !name.contains(['<', '>', ' '])).then_some(name)
}

/// Reads an action's arguments by its command's signature; `None` when the
/// signature is not plain or the action does not fit it.
fn signature_arguments(action: &str, sig: &[String]) -> Option<Map<String, Value>> {
    let mut sig_lines = sig.iter();
    let first_sig = sig_lines.next()?;
    let mut lines = action.lines();
    let words = shell_words(lines.next()?)?;
    let mut words = words.into_iter().skip(1);
    let mut args = Map::new();
    for tok in first_sig.split_whitespace().skip(1) {
        let (inner, optional) = match tok.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            Some(inner) => (inner, true),
            None => (tok, false),
        };
        let word = match words.next() {
            Some(w) => w,
            None if optional => break,
            None => return None,
        };
        if let Some((a, b)) = inner.split_once(':') {
            let (a, b) = (placeholder(a)?, placeholder(b)?);
            let (x, y) = word.split_once(':')?;
            args.insert(a.into(), json!(x));
            args.insert(b.into(), json!(y));
        } else {
            args.insert(placeholder(inner)?.into(), json!(word));
        }
    }
    if words.next().is_some() {
        return None;
    }
    // A body on the lines after, up to its terminator (`end_of_edit`).
    let rest: Vec<&str> = lines.collect();
    match (sig_lines.next(), sig_lines.next()) {
        (None, _) if rest.is_empty() => {}
        (Some(body), end) => {
            let body = placeholder(body)?;
            let end = end.map(String::as_str);
            let text: Vec<&str> = rest
                .into_iter()
                .take_while(|l| Some(l.trim_end()) != end)
                .collect();
            args.insert(body.into(), json!(text.join("\n")));
        }
        _ => return None,
    }
    Some(args)
}

/// Splits a command line into words as a shell would: quotes group and
/// are removed, a backslash escapes outside single quotes. `None` when a
/// quote is not closed.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        x => word.push(x),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        x => word.push(x),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            c if c.is_whitespace() => {
                if std::mem::take(&mut in_word) {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_from_both_prompt_layouts() {
        let yaml = "Intro.\nCOMMANDS:\nopen:\n  docstring: opens a file\n  signature: open <path> [<line_number>]\n  arguments:\n    - path (string) [required]: the path\n\nedit:\n  docstring: replaces lines\n  signature: edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit\n  arguments:\n    - start_line (integer)\n\nsubmit:\n  signature: submit '<flag>'\n\nPlease note the indentation.\nls:\n";
        let h = vec![json!({"role": "system", "content": yaml})];
        let c = documented_commands(&h);
        assert_eq!(
            c.into_iter().collect::<Vec<_>>(),
            vec![
                (
                    "edit".to_string(),
                    vec![
                        "edit <start_line>:<end_line>".to_string(),
                        "<replacement_text>".to_string(),
                        "end_of_edit".to_string()
                    ]
                ),
                (
                    "open".to_string(),
                    vec!["open <path> [<line_number>]".to_string()]
                ),
                ("submit".to_string(), vec!["submit '<flag>'".to_string()]),
            ]
        );
        let one_line = "COMMANDS:\nscroll_down - moves down\nfind_file <file_name> [<dir>] - finds files\nedit <start_line>:<end_line>\n<replacement_text>\nend_of_edit - replaces lines\n\nRESPONSE FORMAT:\n";
        let h = vec![json!({"role": "system", "content": one_line})];
        let c = documented_commands(&h);
        assert_eq!(c.len(), 3, "{c:?}");
        assert_eq!(c["scroll_down"], vec!["scroll_down".to_string()]);
        assert_eq!(c["edit"].len(), 3);
        assert_eq!(c["edit"][2], "end_of_edit");
    }

    #[test]
    fn actions_become_calls() {
        let h = vec![
            json!({"role": "system", "content": "COMMANDS:\nopen <path> [<line_number>] - opens\nedit <start_line>:<end_line>\n<replacement_text>\nend_of_edit - edits\nsubmit - submits\ndecompile <binary> [--function_name <f>] - decompiles\n"}),
        ];
        let c = documented_commands(&h);
        let call = |a: &str| {
            let c = action_call(a, &c);
            (c.name.unwrap(), c.arguments)
        };
        assert_eq!(
            call("open \"src/a b.py\" 14\n"),
            (
                "open".into(),
                Args::Value(json!({"path": "src/a b.py", "line_number": "14"}))
            )
        );
        assert_eq!(
            call("edit 3:4\n    x = 1\n    y = 2\nend_of_edit\n"),
            (
                "edit".into(),
                Args::Value(
                    json!({"start_line": "3", "end_line": "4", "replacement_text": "    x = 1\n    y = 2"})
                )
            )
        );
        assert_eq!(call("submit\n"), ("submit".into(), Args::Value(json!({}))));
        // Not plain, or not fitting: the command without arguments.
        assert_eq!(call("decompile a.out"), ("decompile".into(), Args::Absent));
        assert_eq!(call("open a b c"), ("open".into(), Args::Absent));
        assert_eq!(
            call("edit 3\nx\nend_of_edit"),
            ("edit".into(), Args::Absent)
        );
        assert_eq!(
            call("python  run.py --x 'a b'\n"),
            (
                "bash".into(),
                Args::Value(json!({"command": "python  run.py --x 'a b'"}))
            )
        );
    }
}
