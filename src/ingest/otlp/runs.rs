//! Which spans of a trace make one run. A trace is one run, unless it holds
//! several agent runs: then each agent-run root (an `invoke_agent`, `agent
//! run` or OpenInference `AGENT` span with no agent-run span above it) is a
//! run with the spans below it, and the spans under none of them a run of
//! their own when they hold any model call or tool execution.

use std::collections::HashMap;

use super::span::Span;

/// The spans of one run, in time order.
pub struct RunSpans {
    /// The run id unless a `rung.run.id` attribute says otherwise: the
    /// trace id, or `TRACE-SPAN` for one of several agent runs.
    pub run_id: String,
    /// The agent-run root's span id, when the trace held several.
    pub agent_span: Option<String>,
    pub spans: Vec<Span>,
}

/// Splits a trace's spans (in time order) into runs.
pub fn split(trace_id: &str, spans: Vec<Span>) -> Vec<RunSpans> {
    let by_id: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span_id.as_str(), i))
        .collect();
    // For each span, the topmost agent-run span on its way to the root
    // (itself included). The walk is bounded: ids may form a cycle.
    let root_of: Vec<Option<usize>> = (0..spans.len())
        .map(|i| {
            let mut top = None;
            let mut at = Some(i);
            for _ in 0..=spans.len() {
                let Some(j) = at else { break };
                if spans[j].is_agent_run() {
                    top = Some(j);
                }
                at = spans[j]
                    .parent
                    .as_deref()
                    .and_then(|p| by_id.get(p).copied())
                    .filter(|&p| p != j);
            }
            top
        })
        .collect();
    let mut roots: Vec<usize> = root_of.iter().flatten().copied().collect();
    roots.sort_unstable();
    roots.dedup();
    if roots.len() <= 1 {
        return vec![RunSpans {
            run_id: trace_id.to_string(),
            agent_span: None,
            spans,
        }];
    }
    let mut runs: Vec<RunSpans> = roots
        .iter()
        .map(|&r| RunSpans {
            run_id: format!("{trace_id}-{}", spans[r].span_id),
            agent_span: Some(spans[r].span_id.clone()),
            spans: Vec::new(),
        })
        .collect();
    let mut rest = RunSpans {
        run_id: trace_id.to_string(),
        agent_span: None,
        spans: Vec::new(),
    };
    for (s, root) in spans.into_iter().zip(root_of) {
        match root.and_then(|r| roots.binary_search(&r).ok()) {
            Some(k) => runs[k].spans.push(s),
            None => rest.spans.push(s),
        }
    }
    runs.push(rest);
    runs
}
