//! The typed fast path for the common records (decisions and runs): a line
//! read straight into typed structs, without a `serde_json::Value` for the
//! whole record. It takes only lines it can read exactly as [`parse`] does
//! and says `None` for anything else — an unknown field, a duplicate key, a
//! wrong type, a number out of range, any value [`parse`] would refuse —
//! so that the caller reads that line by the general path, whose records
//! and error messages are the reference.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value};

use super::*;

/// A line's record by the fast path, or `None` for the general path.
pub fn parse_fast(text: &str) -> Option<Parsed> {
    let record = if text.starts_with(r#"{"type":"decision","#) {
        let d: FastDecision = serde_json::from_str(text).ok()?;
        Record::Decision(Box::new(d.into_model()?))
    } else if text.starts_with(r#"{"type":"run","#) {
        let r: FastRun = serde_json::from_str(text).ok()?;
        Record::Run(Box::new(r.into_model()?))
    } else {
        return None;
    };
    Some(Parsed::Record(record))
}

/// A field that is there, even as `null` (`Some(None)`), told from one
/// that is not (`None`, by `#[serde(default)]`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn no_extra() -> Value {
    Value::Object(Map::new())
}

/// An id as [`Obj::opt_id`] takes it.
fn id(s: Option<String>) -> Option<Option<String>> {
    match s {
        Some(s) if s.len() > MAX_ID_BYTES => None,
        s => Some(s),
    }
}

/// An integer ≥ `min` as [`Obj::opt_int`] takes it.
fn int(n: Option<Number>, min: i64) -> Option<Option<i64>> {
    let Some(n) = n else {
        return Some(None);
    };
    let i = super::obj::integer(&n)?;
    (i >= min).then_some(Some(i))
}

/// A spelling of an enum as [`Obj::opt_enum`] takes it.
fn spelled<T>(s: Option<Cow<'_, str>>, parse: fn(&str) -> Option<T>) -> Option<Option<T>> {
    match s {
        None => Some(None),
        Some(s) => parse(&s).map(Some),
    }
}

fn time(s: Option<Cow<'_, str>>) -> Option<Option<Timestamp>> {
    spelled(s, Timestamp::parse)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastPolicy<'a> {
    allowed_families: Option<Vec<String>>,
    #[serde(borrow)]
    max_effect: Option<Cow<'a, str>>,
    allow_open_world: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastCandidate {
    name: String,
    score: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastRetrieval {
    k: Option<Number>,
    selector: Option<String>,
    query: Option<String>,
    candidates: Option<Vec<FastCandidate>>,
}

/// The menu fields, flattened by hand into each record below.
struct FastMenu<'a> {
    catalogue: Option<String>,
    policy: Option<FastPolicy<'a>>,
    trusted_controls: Option<Vec<String>>,
    retrieval: Option<FastRetrieval>,
    visible: Option<Vec<String>>,
}

impl FastMenu<'_> {
    fn into_model(self) -> Option<MenuFields> {
        let policy = match self.policy {
            None => None,
            Some(p) => Some(Policy {
                allowed_families: p.allowed_families,
                max_effect: spelled(p.max_effect, Effect::parse)?,
                allow_open_world: p.allow_open_world.unwrap_or(false),
                extra: no_extra(),
            }),
        };
        let retrieval = match self.retrieval {
            None => None,
            Some(r) => Some(Retrieval {
                k: u32::try_from(int(r.k, 0)??).unwrap_or(u32::MAX),
                selector: r.selector,
                query: r.query,
                candidates: r
                    .candidates
                    .unwrap_or_default()
                    .into_iter()
                    .map(|c| Candidate {
                        name: c.name,
                        score: c.score,
                        extra: no_extra(),
                    })
                    .collect(),
                extra: no_extra(),
            }),
        };
        Some(MenuFields {
            catalogue: id(self.catalogue)?,
            policy,
            trusted_controls: self.trusted_controls,
            retrieval,
            visible: self.visible,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastOutcome<'a> {
    #[serde(borrow)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow)]
    stage: Option<Cow<'a, str>>,
    reason: Option<String>,
    message: Option<String>,
    retryable: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastLabel {
    acceptable: Option<Vec<String>>,
    forbidden: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastDecision<'a> {
    #[serde(rename = "type")]
    _type: serde::de::IgnoredAny,
    run_id: Option<String>,
    step: Option<Number>,
    turn: Option<Number>,
    #[serde(borrow)]
    at: Option<Cow<'a, str>>,
    phase: Option<String>,
    catalogue: Option<String>,
    #[serde(borrow)]
    policy: Option<FastPolicy<'a>>,
    trusted_controls: Option<Vec<String>>,
    retrieval: Option<FastRetrieval>,
    visible: Option<Vec<String>>,
    exposed: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    selected: Option<Option<String>>,
    call_id: Option<String>,
    arguments: Option<Value>,
    raw: Option<Value>,
    #[serde(borrow)]
    outcome: Option<FastOutcome<'a>>,
    latency_ms: Option<f64>,
    result: Option<Value>,
    #[serde(borrow)]
    progress: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    text: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    expected: Option<Option<FastLabel>>,
}

impl FastDecision<'_> {
    fn into_model(self) -> Option<Decision> {
        let run_id = id(self.run_id)??;
        let step = int(self.step, 1)??;
        let turn = int(self.turn, 0)?;
        let at = time(self.at)?;
        let menu = FastMenu {
            catalogue: self.catalogue,
            policy: self.policy,
            trusted_controls: self.trusted_controls,
            retrieval: self.retrieval,
            visible: self.visible,
        }
        .into_model()?;
        // Required, null when no tool was called; never an '@' name.
        let selected = self.selected?;
        if selected.as_deref().is_some_and(|s| s.starts_with('@')) {
            return None;
        }
        let outcome = match self.outcome {
            None => None,
            Some(oc) => Some(Outcome {
                status: spelled(oc.status, Status::parse)??,
                stage: spelled(oc.stage, Stage::parse)?,
                reason: oc.reason,
                message: oc.message,
                retryable: oc.retryable,
                extra: no_extra(),
            }),
        };
        let expected = match self.expected {
            None => None,
            // `null` and `{}` are refused by the general path.
            Some(l) => {
                let l = l?;
                let acceptable = l.acceptable.filter(|a| !a.is_empty())?;
                let forbidden = l.forbidden.unwrap_or_default();
                if acceptable.iter().any(|a| forbidden.contains(a)) {
                    return None;
                }
                Some(Label::new(acceptable, forbidden))
            }
        };
        // `text` is kept in `extra` as well, as it was written (null too).
        let (text, extra) = match self.text {
            None => (None, Map::new()),
            Some(t) => {
                let kept = t.clone().map_or(Value::Null, Value::String);
                (t, Map::from_iter([("text".to_string(), kept)]))
            }
        };
        Some(Decision {
            run_id,
            step,
            turn,
            at,
            phase: self.phase,
            menu,
            exposed: self.exposed,
            selected,
            call_id: self.call_id,
            arguments: self.arguments,
            raw: self.raw,
            outcome,
            latency_ms: self.latency_ms,
            result: self.result,
            progress: spelled(self.progress, Progress::parse)?,
            expected,
            text,
            extra: Value::Object(extra),
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastRun<'a> {
    #[serde(rename = "type")]
    _type: serde::de::IgnoredAny,
    run_id: Option<String>,
    task_id: Option<String>,
    trial: Option<Number>,
    goal: Option<String>,
    #[serde(borrow)]
    intent: Option<Cow<'a, str>>,
    model: Option<String>,
    selector: Option<String>,
    catalogue: Option<String>,
    #[serde(borrow)]
    policy: Option<FastPolicy<'a>>,
    trusted_controls: Option<Vec<String>>,
    retrieval: Option<FastRetrieval>,
    visible: Option<Vec<String>>,
    #[serde(borrow)]
    started_at: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ended_at: Option<Cow<'a, str>>,
    #[serde(borrow)]
    terminated: Option<Cow<'a, str>>,
    success: Option<bool>,
    harm: Option<bool>,
    scope: Option<String>,
    tags: Option<BTreeMap<String, String>>,
}

impl FastRun<'_> {
    fn into_model(self) -> Option<Run> {
        Some(Run {
            run_id: id(self.run_id)??,
            task_id: id(self.task_id)?,
            trial: int(self.trial, 0)?,
            goal: self.goal,
            intent: spelled(self.intent, Intent::parse)?,
            model: self.model,
            selector: self.selector,
            menu: FastMenu {
                catalogue: self.catalogue,
                policy: self.policy,
                trusted_controls: self.trusted_controls,
                retrieval: self.retrieval,
                visible: self.visible,
            }
            .into_model()?,
            started_at: time(self.started_at)?,
            ended_at: time(self.ended_at)?,
            terminated: spelled(self.terminated, Terminated::parse)?,
            success: self.success,
            harm: self.harm,
            scope: self.scope,
            tags: self.tags.unwrap_or_default().into_iter().collect(),
            extra: no_extra(),
        })
    }
}
