//! `unsourced_id` and `id_from_description`: a write whose arguments carry
//! an identifier that no earlier result of the run returned, that no
//! earlier lookup found (a read-only call that succeeded with it), and that
//! neither the goal nor the scope (the account a session is locked to)
//! contains (the billing chapter's `sub_31`, cancelled for
//! the wrong customer); and, reported beside it, the same identifier found
//! in what a visible tool's documents say (the model copied an example).

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::{
    AuditFinding, AuditRun, AuditStep, DocField, Fate, What, contains_token, cut, quote,
    value_mentions,
};
use crate::model::{Effect, FindingKind, Status};

/// Longest string taken for an identifier, in bytes (longer text is not
/// one); at most this many identifiers are checked per decision.
const MAX_ID_BYTES: usize = 256;
const MAX_IDS: usize = 64;

/// A key whose string values are identifiers: `id`, or ending in `_id`,
/// `Id`, `_ids` or `Ids`.
pub fn is_id_key(key: &str) -> bool {
    key == "id"
        || key.ends_with("_id")
        || key.ends_with("Id")
        || key.ends_with("_ids")
        || key.ends_with("Ids")
}

/// A prefixed identifier: ASCII letters, then `_` or `-`, then ASCII
/// letters and digits with at least one digit (`sub_31`, `in_3101`,
/// `ORD-1234`; not `2026-09-30`, not `$150.00`, not `read_only`).
pub fn is_prefixed_id(s: &str) -> bool {
    let Some(sep) = s.find(['_', '-']) else {
        return false;
    };
    let (prefix, rest) = (&s[..sep], &s[sep + 1..]);
    !prefix.is_empty()
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_alphanumeric())
        && rest.bytes().any(|b| b.is_ascii_digit())
}

/// One identifier in a call's arguments: where (`subscription_id`,
/// `items[0].id`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdArg {
    pub path: String,
    pub value: String,
}

/// The identifiers of a call's arguments, in document order, each value
/// once: the strings under an identifier key (each string of a list under
/// it), and any string shaped like a prefixed identifier.
pub fn identifiers(arguments: &Value) -> Vec<IdArg> {
    fn walk(v: &Value, path: &str, id_key: bool, out: &mut Vec<IdArg>) {
        if out.len() >= MAX_IDS {
            return;
        }
        match v {
            Value::String(s)
                if !s.trim().is_empty()
                    && s.len() <= MAX_ID_BYTES
                    && (id_key || is_prefixed_id(s))
                    && !out.iter().any(|a| a.value == *s) =>
            {
                out.push(IdArg {
                    path: path.to_string(),
                    value: s.clone(),
                });
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{path}[{i}]"), id_key, out);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(x, &p, is_id_key(k), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(arguments, "", false, &mut out);
    out
}

/// Where an unsourced value was seen before its call, if anywhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// In the arguments of an earlier call (step, tool).
    Arguments(i64, String),
    /// In an earlier answer (`text` or `raw`).
    Answer(i64),
}

/// One identifier of a write that nothing in the run had returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsourcedArg {
    pub arg: IdArg,
    /// Where it was last seen before the call.
    pub last_seen: Option<Seen>,
}

/// The `unsourced_id` finding's facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsourced {
    pub effect: Effect,
    pub fate: Fate,
    pub ids: Vec<UnsourcedArg>,
}

impl Unsourced {
    pub(super) fn detail(&self, tool: &str, mask: &dyn Fn(&str) -> String) -> String {
        let args: Vec<String> = self
            .ids
            .iter()
            .map(|u| {
                let seen = match &u.last_seen {
                    None => "never seen earlier in the run".to_string(),
                    Some(Seen::Arguments(step, t)) => {
                        format!(
                            "last seen in the arguments of step {step} ({})",
                            cut(&mask(t))
                        )
                    }
                    Some(Seen::Answer(step)) => format!("last seen in the answer of step {step}"),
                };
                format!(
                    "{} = {} ({seen})",
                    cut(&mask(&u.arg.path)),
                    quote(&u.arg.value, mask)
                )
            })
            .collect();
        let what = if self.ids.len() == 1 {
            "an identifier"
        } else {
            "identifiers"
        };
        format!(
            "{} ({}) was called with {what} that no earlier result of the run returned and neither its goal nor its scope contains: {}; {}",
            cut(&mask(tool)),
            self.effect,
            args.join("; "),
            self.fate.text(mask)
        )
    }
}

/// Where an unsourced value was found in a tool's documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocHit {
    pub arg: IdArg,
    /// The tool whose documents hold it.
    pub tool: String,
    pub field: DocField,
    /// Found in the run's recorded definitions rather than its catalogue.
    pub definitions: bool,
}

/// The `id_from_description` finding's facts.
#[derive(Debug, Clone, PartialEq)]
pub struct FromDescription {
    /// The decision's catalogue, when the hit is there.
    pub catalogue: Option<String>,
    pub hits: Vec<DocHit>,
}

impl FromDescription {
    pub(super) fn detail(&self, mask: &dyn Fn(&str) -> String) -> String {
        let hits: Vec<String> = self
            .hits
            .iter()
            .map(|h| {
                let place = if h.definitions {
                    "the run's tool definitions".to_string()
                } else {
                    match &self.catalogue {
                        Some(c) => format!("catalogue {}", cut(&mask(c))),
                        None => "its catalogue".to_string(),
                    }
                };
                format!(
                    "{} = {} appears in the {} of {} ({place})",
                    cut(&mask(&h.arg.path)),
                    quote(&h.arg.value, mask),
                    h.field.as_str(),
                    cut(&mask(&h.tool))
                )
            })
            .collect();
        format!(
            "{}: the model copied an example from a tool's documents instead of looking the id up",
            hits.join("; ")
        )
    }
}

/// The text of an answer (its `text`, else the strings of its `raw`) holds
/// `value`.
fn answer_mentions(s: &AuditStep<'_>, value: &str) -> bool {
    s.text.is_some_and(|t| contains_token(t, value))
        || s.raw.is_some_and(|r| value_mentions(r, value))
}

/// Where `value` was last seen before step index `j` (arguments of an
/// earlier call, or an earlier answer).
fn last_seen(steps: &[AuditStep<'_>], j: usize, value: &str) -> Option<Seen> {
    steps[..j].iter().rev().find_map(|s| {
        if s.arguments.is_some_and(|a| value_mentions(a, value)) {
            Some(Seen::Arguments(
                s.step,
                s.selected.unwrap_or(crate::model::NO_CALL).to_string(),
            ))
        } else if answer_mentions(s, value) {
            Some(Seen::Answer(s.step))
        } else {
            None
        }
    })
}

/// The tools whose documents the decision could read: its catalogue's
/// tools on its menu (all of them when nothing narrows the menu), then the
/// run's recorded definitions.
/// `retrieved` remembers, per document of `s`, whether its tool is
/// retrieved (0: not asked yet, 1: yes, 2: no), for the step's other ids.
fn hit_in_docs(
    run: &AuditRun<'_>,
    s: &AuditStep<'_>,
    sets: &super::super::Sets<'_>,
    retrieved: &mut [u8],
    arg: &IdArg,
) -> Option<DocHit> {
    for (d, known) in s.docs.iter().zip(retrieved.iter_mut()) {
        if *known == 0 {
            *known = if sets.in_retrieved(&d.name) { 1 } else { 2 };
        }
        if *known == 2 {
            continue;
        }
        if let Some(field) = d.mentions(&arg.value) {
            return Some(DocHit {
                arg: arg.clone(),
                tool: d.name.clone(),
                field,
                definitions: false,
            });
        }
    }
    run.definitions.iter().find_map(|d| {
        d.mentions(&arg.value).map(|field| DocHit {
            arg: arg.clone(),
            tool: d.name.clone(),
            field,
            definitions: true,
        })
    })
}

/// Whether a decision is a lookup that can have found a value: a read-only
/// call that succeeded, with the value in its arguments (a user id given in
/// conversation, then `get_user_details` with it). The result need not
/// repeat the id it was asked for.
fn reads_ok(run: &AuditRun<'_>, e: &AuditStep<'_>) -> bool {
    e.status == Some(Status::Ok) && e.effect(&run.effects) == Some(Effect::ReadOnly)
}

/// `unsourced_id` (and `id_from_description` beside it) for every write of
/// the run.
pub(super) fn unsourced(run: &AuditRun<'_>, steps: &[AuditStep<'_>]) -> Vec<AuditFinding> {
    // Per value: 0 when the goal or scope holds it, else 1 + the index of the first
    // decision whose result holds it, else usize::MAX: a write at index j
    // has it from a source when this is <= j. Each value is looked for
    // once, however many writes carry it.
    let mut sourced_at: FxHashMap<String, usize> = FxHashMap::default();
    // Each decision's tool effect is looked up once, not once per value.
    let sources: Vec<bool> = steps.iter().map(|e| reads_ok(run, e)).collect();
    let mut first_source = |value: &str| -> usize {
        if let Some(&at) = sourced_at.get(value) {
            return at;
        }
        let at = if run.goal.is_some_and(|g| contains_token(g, value))
            || run.scope.is_some_and(|g| contains_token(g, value))
        {
            0
        } else {
            steps
                .iter()
                .zip(&sources)
                .position(|(e, &reads)| {
                    e.result.is_some_and(|r| value_mentions(r, value))
                        || (reads && e.arguments.is_some_and(|a| value_mentions(a, value)))
                })
                .map_or(usize::MAX, |k| k + 1)
        };
        sourced_at.insert(value.to_string(), at);
        at
    };
    let mut out = Vec::new();
    for (j, s) in steps.iter().enumerate() {
        let (Some(tool), Some(args)) = (s.selected, s.arguments) else {
            continue;
        };
        let Some(effect @ (Effect::Mutating | Effect::Destructive)) = s.effect(&run.effects) else {
            continue;
        };
        let ids: Vec<UnsourcedArg> = identifiers(args)
            .into_iter()
            .filter(|a| first_source(&a.value) > j)
            .map(|arg| UnsourcedArg {
                last_seen: last_seen(steps, j, &arg.value),
                arg,
            })
            .collect();
        if ids.is_empty() {
            continue;
        }
        let sets = super::super::Sets::new(s.menu, None, s.selected);
        let mut retrieved = vec![0u8; s.docs.len()];
        let hits: Vec<DocHit> = ids
            .iter()
            .filter_map(|u| hit_in_docs(run, s, &sets, &mut retrieved, &u.arg))
            .collect();
        out.push(AuditFinding {
            kind: FindingKind::UnsourcedId,
            at: j,
            step: s.step,
            tool: Some(tool.to_string()),
            what: What::Unsourced(Unsourced {
                effect,
                fate: s.fate(run.reasons),
                ids,
            }),
        });
        if !hits.is_empty() {
            out.push(AuditFinding {
                kind: FindingKind::IdFromDescription,
                at: j,
                step: s.step,
                tool: Some(tool.to_string()),
                what: What::FromDescription(FromDescription {
                    catalogue: s.menu.catalogue.map(|c| c.version.clone()),
                    hits,
                }),
            });
        }
    }
    out
}
