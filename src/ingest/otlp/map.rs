//! Mapping one trace: inference spans become turns and their calls
//! decisions, tool spans give the calls' outcomes, and the trace's spans
//! the run record.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::llm::{Llm, def_name, read_llm};
use super::rung_attrs::{apply_rung, run_attrs, rung_key_known};
use super::span::Span;
use super::wire::rfc3339;
use crate::ingest::convo::{self, Draft, Out};

/// Attribute keys the mapping consumes; the others are kept on the record.
fn consumed(key: &str) -> bool {
    const EXACT: &[&str] = &[
        "gen_ai.operation.name",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "openinference.span.kind",
        "input.value",
        "input.mime_type",
        "output.value",
        "output.mime_type",
        "llm.request.functions",
        "traceloop.entity.input",
        "traceloop.entity.output",
        "tool.name",
        "tool_call.id",
        "tool.id",
    ];
    const PREFIXES: &[&str] = &[
        "llm.input_messages.",
        "llm.output_messages.",
        "llm.tools.",
        "llm.request.functions.",
        "gen_ai.prompt.",
        "gen_ai.completion.",
    ];
    EXACT.contains(&key)
        || PREFIXES.iter().any(|p| key.starts_with(p))
        || (key.starts_with("rung.") && rung_key_known(key))
}

/// Span attributes kept on a record: the unmapped ones, with the span id.
fn kept(s: &Span) -> Value {
    let rest: Map<String, Value> = s
        .attrs
        .iter()
        .filter(|(k, _)| !consumed(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    json!({"span_id": s.span_id, "name": s.name, "attributes": rest})
}

/// Applies an execute_tool span to its decision: result, outcome, latency,
/// then its own `rung.*` attributes.
fn apply_tool(d: &mut Draft, t: &Span) {
    let result = t
        .attrs
        .get("gen_ai.tool.call.result")
        .or_else(|| t.attrs.get("output.value"))
        .or_else(|| t.attrs.get("traceloop.entity.output"))
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
        && let Some(args) = t
            .attrs
            .get("gen_ai.tool.call.arguments")
            .or_else(|| t.attrs.get("input.value"))
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

/// Maps one trace.
pub fn map_trace(trace_id: &str, mut spans: Vec<Span>, out: &mut Out) {
    spans.sort_by_key(|s| (s.start.unwrap_or(i128::MIN), s.order));
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
        _ => trace_id.to_string(),
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
                Some(id) => format!("call {id:?} to {name:?}"),
                None => format!("the call to {name:?}"),
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
    for ti in tool_spans {
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
                        .map(|n| format!(" (tool {n:?})"))
                        .unwrap_or_default(),
                    id.map(|i| format!(" (call id {i:?})")).unwrap_or_default()
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
    run.insert("imported_from".into(), json!("otlp"));
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
