//! The bundled sample sets, one module each, and helpers they share.

use serde_json::{Value, json};

use crate::check::{self, Analysis};
use crate::model::{Run, TraceSet};

pub mod atlas;
pub mod brightdesk;
pub mod ladder_tour;
pub mod operations;
pub mod reference_agent;
pub mod routing;

pub fn all() -> Vec<TraceSet> {
    vec![
        ladder_tour::build(),
        brightdesk::build(),
        reference_agent::build(),
        atlas::build(),
        routing::build(),
        operations::build(),
    ]
}

/// A run with the fields every sample run has.
#[allow(clippy::too_many_arguments)]
pub fn run(
    run_id: &str,
    task_id: &str,
    trial: u32,
    goal: &str,
    intent: &'static str,
    model: &str,
    catalogue: &str,
    started: i64,
) -> Run {
    Run {
        run_id: run_id.into(),
        task_id: Some(task_id.into()),
        trial: Some(trial),
        goal: Some(goal.into()),
        intent: Some(intent),
        model: Some(model.into()),
        catalogue: Some(catalogue.into()),
        started_at: Some(crate::time::fmt(started)),
        ..Default::default()
    }
}

/// A closed JSON Schema object: every listed property, `required` as given.
pub fn schema(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// README section with the ladder and metrics of a set of decisions.
pub fn numbers_section(a: &Analysis, title: &str, ds: &[&check::Classified]) -> String {
    let m = a.metrics(ds);
    format!(
        "### {title}\n\n`rung report ladder --format json`:\n\n```json\n{}\n```\n\nIn short:\n\n{}\nThe metrics, in short:\n\n{}\n`rung report metrics --format json`:\n\n```json\n{}\n```\n\n",
        Analysis::ladder_json(ds),
        check::ladder_table(ds),
        check::metrics_table(&m),
        check::metrics_json(&m)
    )
}

/// The markdown table of `rung report refusals` for the week `[since, until)`
/// that the sets' READMEs print.
pub(crate) fn refusals_table(all: &[&check::Classified], since: i64, until: i64) -> String {
    refusal_rows(&Analysis::refusals(all, since, until))
}

/// Refusal rows as the markdown table `rung report refusals` prints.
pub(crate) fn refusal_rows(rows: &[check::RefusalRow]) -> String {
    let mut rf = String::from(
        "| reason | stage | count | runs | previous |\n| --- | --- | ---: | ---: | ---: |\n",
    );
    for r in rows {
        rf.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            r.reason.as_deref().unwrap_or("—"),
            r.stage,
            r.count,
            r.runs,
            r.previous
        ));
    }
    rf
}
