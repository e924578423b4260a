//! Tool spans: each to the call it answers (by call id, else by tool name
//! among the earlier turns' unanswered calls), giving its result, outcome
//! and latency; a tool span whose turn recorded no output stands for the
//! call itself.

use serde_json::{Map, Value, json};

use super::kept::kept;
use super::llm::{Llm, def_name};
use super::rung_attrs::apply_rung;
use super::span::Span;
use super::wire::rfc3339;
use crate::ingest::convo::{self, Draft, Out};

/// Matches the tool spans (`tool_spans`, indexes into `spans`) to the
/// drafts of the inference spans' calls, adding a draft for each tool span
/// that is the only record of its call; drops (into `out`) the ones that
/// answer no call.
pub fn attach(
    run_id: &str,
    spans: &[Span],
    llm_spans: &[(usize, Llm)],
    tool_spans: &[usize],
    drafts: &mut Vec<Draft>,
    out: &mut Out,
) {
    let mut matched = vec![false; drafts.len()];
    // For each span, the latest inference span (its index in `llm_spans`)
    // that started before it.
    let mut prev_llm: Vec<Option<usize>> = Vec::with_capacity(spans.len());
    let mut last = None;
    let mut next = llm_spans.iter().map(|(si, _)| *si).enumerate().peekable();
    for i in 0..spans.len() {
        prev_llm.push(last);
        if let Some(&(p, si)) = next.peek()
            && si == i
        {
            last = Some(p);
            next.next();
        }
    }
    for &ti in tool_spans {
        let t = &spans[ti];
        let id = t.tool_call_id();
        let name = t.tool_name();
        let prev = prev_llm[ti];
        let before = |d: &Draft| d.turn <= prev.map_or(0, |p| p as i64 + 1);
        let target = id
            .as_ref()
            .and_then(|id| {
                (0..drafts.len()).find(|&i| !matched[i] && drafts[i].call_id() == Some(id))
            })
            .or_else(|| {
                let name = name.as_deref()?;
                (0..drafts.len()).find(|&i| {
                    !matched[i]
                        && before(&drafts[i])
                        && drafts[i].selected() == Some(name)
                        && (id.is_none() || drafts[i].call_id().is_none())
                })
            });
        if let Some(i) = target {
            matched[i] = true;
            // The call recorded no id; the tool span did (Google ADK).
            if drafts[i].call_id().is_none()
                && let Some(id) = &id
            {
                drafts[i].fields.insert("call_id".into(), json!(id));
            }
            apply_tool(&mut drafts[i], t);
            continue;
        }
        let unrecorded = prev.is_none_or(|p| llm_spans[p].1.output.is_none());
        let Some(name) = name.filter(|_| unrecorded) else {
            out.drop_part(
                t.line,
                Some(format!("run {run_id} (span {})", t.span_id)),
                format!(
                    "dropped an execute_tool span that answers no call in the trace{}{}",
                    t.tool_name()
                        .map(|n| format!(" (tool {})", crate::text::echo(&n)))
                        .unwrap_or_default(),
                    id.map(|i| format!(" (call id {})", crate::text::echo(&i)))
                        .unwrap_or_default()
                ),
            );
            continue;
        };
        // No output recorded: the tool span is the only record of the call.
        let mut f = Map::new();
        let (turn, line, context) = match prev {
            Some(p) => {
                let s = &spans[llm_spans[p].0];
                if let Some(defs) = &llm_spans[p].1.defs {
                    f.insert(
                        "visible".into(),
                        json!(defs.iter().filter_map(def_name).collect::<Vec<_>>()),
                    );
                }
                f.insert("otel".into(), kept(s));
                (p as i64 + 1, s.line, s.context())
            }
            None => (0, t.line, format!("span {}", t.span_id)),
        };
        let at_span = prev.map(|p| &spans[llm_spans[p].0]).unwrap_or(t);
        if let Some(at) = at_span.start.and_then(rfc3339) {
            f.insert("at".into(), json!(at));
        }
        f.insert("selected".into(), json!(name));
        if let Some(id) = &id {
            f.insert("call_id".into(), json!(id));
        }
        f.insert("reconstructed_from".into(), json!("execute_tool span"));
        if let Some(p) = prev {
            apply_rung(&mut f, &spans[llm_spans[p].0]);
        }
        let mut d = Draft {
            fields: f,
            line,
            context: Some(context),
            turn,
            seq: 1000 + ti as i64,
            has_result: false,
        };
        apply_tool(&mut d, t);
        drafts.push(d);
        matched.push(true);
    }
}

/// Applies a tool span to its decision: result, outcome, latency, then its
/// own `rung.*` attributes.
fn apply_tool(d: &mut Draft, t: &Span) {
    let result = [
        "gen_ai.tool.call.result",
        "output.value",
        "traceloop.entity.output",
        "tool_response",
    ]
    .iter()
    .find_map(|k| t.attrs.get(*k))
    .cloned();
    let failed = t.error || t.attrs.contains_key("error.type");
    if failed {
        let mut o = json!({"status": "error", "stage": "execution"});
        if let Some(r) = t.attrs.get("error.type") {
            o["reason"] = r.clone();
        }
        if let Some(m) = t.status_message.as_ref().or(t.exception.as_ref()) {
            o["message"] = json!(m);
        }
        if let Some(r) = result {
            d.fields.insert("result".into(), convo::result_value(r));
        }
        d.has_result = true;
        d.fields.insert("outcome".into(), o);
    } else {
        d.set_result(convo::result_value(result.unwrap_or(Value::Null)), None);
        if d.fields.get("result") == Some(&Value::Null) {
            d.fields.remove("result");
        }
    }
    if let (Some(s), Some(e)) = (t.start, t.end)
        && e >= s
    {
        d.fields
            .insert("latency_ms".into(), json!((e - s) as f64 / 1_000_000.0));
    }
    if !d.fields.contains_key("arguments")
        && let Some(args) = [
            "gen_ai.tool.call.arguments",
            "input.value",
            "tool_arguments",
        ]
        .iter()
        .find_map(|k| t.attrs.get(*k))
    {
        let parsed = match args {
            Value::String(s) => serde_json::from_str(s).unwrap_or(args.clone()),
            other => other.clone(),
        };
        d.fields.insert("arguments".into(), parsed);
    }
    d.fields.insert("otel_tool_span".into(), kept(t));
    d.context = Some(format!(
        "{}, execute_tool span {}",
        d.context.as_deref().unwrap_or("span ?"),
        t.span_id
    ));
    apply_rung(&mut d.fields, t);
}
