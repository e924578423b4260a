//! Mapping one trace: inference spans become turns and their calls
//! decisions, tool spans give the calls' outcomes, and the trace's spans
//! the run record.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::Source;
use super::kept::kept;
use super::llm::{Llm, def_name, read_llm};
use super::rung_attrs::{apply_rung, run_attrs};
use super::runs::{self, RunSpans};
use super::span::Span;
use super::tools;
use super::wire::rfc3339;
use crate::ingest::convo::{self, Draft, Out};

/// Maps one trace: one run per agent run in it (see `runs::split`).
pub fn map_trace(trace_id: &str, mut spans: Vec<Span>, from: Source, out: &mut Out) {
    spans.sort_by_key(|s| (s.start.unwrap_or(i128::MIN), s.order));
    for run in runs::split(trace_id, spans) {
        map_run(trace_id, run, from, out);
    }
}

/// Maps the spans of one run.
fn map_run(trace_id: &str, run: RunSpans, from: Source, out: &mut Out) {
    let RunSpans {
        run_id: default_id,
        agent_span,
        spans,
    } = run;
    let llm_spans: Vec<(usize, Llm)> = spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_inference())
        .map(|(i, s)| (i, read_llm(s)))
        .collect();
    let tool_spans: Vec<usize> = (0..spans.len()).filter(|i| spans[*i].is_tool()).collect();
    let mut run = run_attrs(&spans);
    if llm_spans.is_empty() && tool_spans.is_empty() && run.is_empty() {
        // Not an agent trace at all.
        return;
    }
    let run_id = match run.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => default_id,
    };
    run.remove("id");

    // Turns: one per inference span, in time order.
    let mut drafts: Vec<Draft> = Vec::new();
    let mut defs_seen: Vec<Value> = Vec::new();
    for (turn, (si, llm)) in llm_spans.iter().enumerate() {
        let s = &spans[*si];
        let mut base = Map::new();
        if let Some(at) = s.start.and_then(rfc3339) {
            base.insert("at".into(), json!(at));
        }
        if let Some(defs) = &llm.defs {
            let names: Vec<String> = defs.iter().filter_map(def_name).collect();
            base.insert("visible".into(), json!(names));
            for d in defs {
                if !defs_seen.contains(d) {
                    defs_seen.push(d.clone());
                }
            }
        }
        base.insert("otel".into(), kept(s));
        for why in &llm.problems {
            out.drop_part(
                s.line,
                Some(format!("run {run_id} ({})", s.context())),
                format!("dropped part of an inference span: {why}"),
            );
        }
        let Some(msg) = &llm.output else {
            continue;
        };
        let mk = |f: Map<String, Value>, seq: i64| Draft {
            fields: f,
            line: s.line,
            context: Some(s.context()),
            turn: turn as i64 + 1,
            seq,
            has_result: false,
        };
        if msg.calls.is_empty() {
            let mut f = base.clone();
            f.extend(convo::no_call_fields(msg.text.clone(), false));
            apply_rung(&mut f, s);
            drafts.push(mk(f, 0));
            continue;
        }
        let mut text = msg.text.clone().filter(|t| !t.trim().is_empty());
        for (seq, call) in msg.calls.iter().enumerate() {
            let Some(name) = &call.name else {
                out.drop_part(
                    s.line,
                    Some(format!("run {run_id} ({})", s.context())),
                    "dropped a tool call with no tool name",
                );
                continue;
            };
            let mut f = base.clone();
            f.insert("selected".into(), json!(name));
            if let Some(id) = &call.id {
                f.insert("call_id".into(), json!(id));
            }
            let what = match &call.id {
                Some(id) => format!(
                    "call {} to {}",
                    crate::text::echo(id),
                    crate::text::echo(name)
                ),
                None => format!("the call to {}", crate::text::echo(name)),
            };
            convo::put_arguments(
                &mut f,
                call.arguments.clone(),
                s.line,
                &Some(format!("run {run_id} ({})", s.context())),
                &what,
                out,
            );
            if let Some(t) = text.take() {
                f.insert("text".into(), json!(t));
            }
            apply_rung(&mut f, s);
            drafts.push(mk(f, seq as i64));
        }
    }

    // Tool spans: to their call by id, else by name; a tool span whose turn
    // recorded no output messages stands for the call itself.
    tools::attach(&run_id, &spans, &llm_spans, &tool_spans, &mut drafts, out);

    // Turns with no output and no tool span: a finish reason that is not a
    // tool call means a text answer; otherwise the turn cannot be mapped.
    let answered_turns: HashSet<i64> = drafts.iter().map(|d| d.turn).collect();
    for (turn, (si, llm)) in llm_spans.iter().enumerate() {
        if llm.output.is_some() || answered_turns.contains(&(turn as i64 + 1)) {
            continue;
        }
        let s = &spans[*si];
        let answered = !llm.finish.is_empty()
            && llm
                .finish
                .iter()
                .all(|r| !r.contains("tool") && !r.contains("function"));
        if !answered {
            if !llm.problems.is_empty() {
                // Already dropped, with the reason its output is missing.
                continue;
            }
            out.drop_part(
                s.line,
                Some(format!("run {run_id} ({})", s.context())),
                "dropped an inference span that recorded no output messages (enable content capture in the instrumentation) and no execute_tool span naming its calls",
            );
            continue;
        }
        let mut f = Map::new();
        if let Some(at) = s.start.and_then(rfc3339) {
            f.insert("at".into(), json!(at));
        }
        if let Some(defs) = &llm.defs {
            f.insert(
                "visible".into(),
                json!(defs.iter().filter_map(def_name).collect::<Vec<_>>()),
            );
        }
        f.insert("otel".into(), kept(s));
        f.insert("selected".into(), Value::Null);
        apply_rung(&mut f, s);
        drafts.push(Draft {
            fields: f,
            line: s.line,
            context: Some(s.context()),
            turn: turn as i64 + 1,
            seq: 0,
            has_result: false,
        });
    }

    // Results the next turns' inputs carry, for calls no tool span
    // answered: the first later turn whose input holds a response with the
    // call's id, its last such response (the newest, when ids repeat).
    let mut responses: HashMap<&str, Vec<(usize, &Value)>> = HashMap::new();
    for (li, (_, l)) in llm_spans.iter().enumerate() {
        for m in &l.inputs {
            if let (Some(id), Some(r)) = (&m.tool_call_id, &m.response) {
                let seen = responses.entry(id.as_str()).or_default();
                match seen.last_mut() {
                    Some(last) if last.0 == li => last.1 = r,
                    _ => seen.push((li, r)),
                }
            }
        }
    }
    for d in drafts.iter_mut().filter(|d| !d.has_result) {
        let Some(id) = d.call_id() else {
            continue;
        };
        let turn = d.turn.max(0) as usize;
        let found = responses
            .get(id)
            .and_then(|v| v.iter().find(|(li, _)| *li >= turn))
            .map(|(_, r)| (*r).clone());
        if let Some(content) = found {
            let outcome = d.fields.get("outcome").cloned();
            d.set_result(convo::result_value(content), None);
            if let Some(o) = outcome {
                d.fields.insert("outcome".into(), o);
            }
        }
    }

    // Turn numbers in time order, decisions from tool spans with no turn
    // placed by their own time.
    number_turns(&mut drafts);

    // The run record.
    run.insert("type".into(), json!("run"));
    run.insert("run_id".into(), json!(run_id));
    if !run.contains_key("model")
        && let Some(m) = llm_spans.iter().find_map(|(_, l)| l.model.clone())
    {
        run.insert("model".into(), json!(m));
    }
    if !run.contains_key("goal")
        && let Some(g) = llm_spans.first().and_then(|(_, l)| {
            l.inputs
                .iter()
                .find(|m| m.role == "user" && m.text.is_some())
                .and_then(|m| m.text.clone())
        })
    {
        run.insert("goal".into(), json!(g));
    }
    if let Some(start) = spans.iter().filter_map(|s| s.start).min().and_then(rfc3339) {
        run.entry("started_at").or_insert(json!(start));
    }
    if let Some(end) = spans.iter().filter_map(|s| s.end).max().and_then(rfc3339) {
        run.entry("ended_at").or_insert(json!(end));
    }
    run.insert("trace_id".into(), json!(trace_id));
    if let Some(svc) = spans.iter().find_map(|s| s.service.clone()) {
        run.insert("service_name".into(), json!(svc));
    }
    if !defs_seen.is_empty() {
        run.insert("tool_definitions".into(), Value::Array(defs_seen));
    }
    let others: Vec<Value> = spans
        .iter()
        .filter(|s| !s.is_inference() && !s.is_tool())
        .map(kept)
        .collect();
    if !others.is_empty() {
        run.insert("other_spans".into(), Value::Array(others));
    }
    if let Some(a) = agent_span {
        run.insert("agent_span_id".into(), json!(a));
    }
    run.insert("imported_from".into(), json!(from.as_str()));
    let (line, context) = spans
        .first()
        .map_or((0, None), |s| (s.line, Some(s.context())));
    out.push(Value::Object(run), line, context);
    convo::emit(&run_id, drafts, out);
}

/// Renumbers turns 1.. in time order: inference spans hold turns 1..n
/// already; a decision with turn 0 (a tool span before any inference span)
/// gets a turn of its own, placed by its time.
fn number_turns(drafts: &mut [Draft]) {
    let orphans: Vec<usize> = (0..drafts.len()).filter(|&i| drafts[i].turn == 0).collect();
    if orphans.is_empty() {
        return;
    }
    // Orphans come before every inference span (none preceded them), in
    // the order they were found.
    let n = orphans.len() as i64;
    for d in drafts.iter_mut().filter(|d| d.turn > 0) {
        d.turn += n;
    }
    for (k, i) in orphans.into_iter().enumerate() {
        drafts[i].turn = k as i64 + 1;
    }
}
