//! The generator's own reading of the six audit findings (issue 12), so
//! each sample set can promise their counts: unsourced_id,
//! id_from_description, announced_no_call, write_under_inform,
//! menu_changed, repeated_call. Written from the definitions, not
//! from rung's code; the samples record no `[effects]` configuration and no
//! tool definitions, so a tool's effect is its catalogue's.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::check::{Classified, Finding};
use crate::model::{Catalogue, Effect, Status, Tool};

const ANNOUNCE: &[&str] = &[
    "let me",
    "i'll check",
    "i will search",
    "i need to check",
    "first, i'll",
];
const NOT_ANNOUNCE: &[&str] = &["let me know"];

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `needle` in `hay` with no identifier character touching it.
fn has_token(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    hay.match_indices(needle).any(|(i, m)| {
        let before = hay[..i].chars().last();
        let after = hay[i + m.len()..].chars().next();
        let edge_ok =
            |c: Option<char>, n: Option<char>| !(c.is_some_and(is_word) && n.is_some_and(is_word));
        edge_ok(before, needle.chars().next()) && edge_ok(after, needle.chars().last())
    })
}

/// Every string, number and key of a JSON value.
fn texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|x| texts(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                texts(x, out);
            }
        }
        _ => {}
    }
}

fn mentions(v: &Value, needle: &str) -> bool {
    let mut t = vec![];
    texts(v, &mut t);
    t.iter().any(|s| has_token(s, needle))
}

fn id_key(k: &str) -> bool {
    k == "id" || ["_id", "Id", "_ids", "Ids"].iter().any(|e| k.ends_with(e))
}

/// letters, `_` or `-`, then letters and digits with a digit
fn prefixed(s: &str) -> bool {
    let Some(i) = s.find(['_', '-']) else {
        return false;
    };
    let (a, b) = (&s[..i], &s[i + 1..]);
    !a.is_empty()
        && a.chars().all(|c| c.is_ascii_alphabetic())
        && !b.is_empty()
        && b.chars().all(|c| c.is_ascii_alphanumeric())
        && b.chars().any(|c| c.is_ascii_digit())
}

/// The identifier values of a call's arguments, each once.
fn ids(v: &Value, under_id_key: bool, out: &mut Vec<String>) {
    match v {
        Value::String(s)
            if !s.trim().is_empty() && (under_id_key || prefixed(s)) && !out.contains(s) =>
        {
            out.push(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| ids(x, under_id_key, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| ids(x, id_key(k), out)),
        _ => {}
    }
}

fn tool<'c>(cats: &'c BTreeMap<String, Catalogue>, d: &Classified) -> Option<&'c Tool> {
    let name = d.d.selected.as_deref()?;
    cats.get(d.catalogue.as_deref()?)?.tool(name)
}

fn writes(cats: &BTreeMap<String, Catalogue>, d: &Classified) -> bool {
    tool(cats, d).is_some_and(|t| matches!(t.effect, Effect::Mutating | Effect::Destructive))
}

fn status(d: &Classified) -> Option<Status> {
    d.d.outcome.as_ref().map(|o| o.status)
}

fn executed(d: &Classified) -> bool {
    d.d.selected.is_some() && matches!(status(d), Some(Status::Ok | Status::Unknown))
}

fn finding(kind: &'static str, d: &Classified, tool: Option<String>) -> Finding {
    Finding {
        kind,
        catalogue: d.catalogue.clone(),
        task_id: d.run.task_id.clone(),
        run_id: Some(d.run.run_id.clone()),
        step: Some(d.d.step),
        tool,
    }
}

/// Whether an answer announces an action, and whether it writes a call
/// out as text.
fn announces(text: &str, known: &dyn Fn(&str) -> bool) -> (bool, bool) {
    let lower: String = text
        .chars()
        .map(|c| {
            if c == '\u{2019}' {
                '\''
            } else {
                c.to_lowercase().next().unwrap_or(c)
            }
        })
        .collect();
    let said = ANNOUNCE.iter().any(|p| {
        lower.match_indices(p).any(|(i, m)| {
            let before = lower[..i].chars().last().is_some_and(char::is_alphanumeric);
            let after = lower[i + m.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
            let ignored = NOT_ANNOUNCE.iter().any(|n| lower[i..].starts_with(n));
            !before && !after && !ignored
        })
    });
    let written = text.match_indices('{').any(|(i, _)| {
        let mut it = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
        matches!(it.next(), Some(Ok(Value::Object(m))) if m.len() >= 2
            && ["name", "type", "tool", "tool_name", "function"].iter()
                .find_map(|k| m.get(*k).and_then(Value::as_str))
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) && known(n)))
    }) || lower.contains("<tool_call>");
    (said, written)
}

/// The audit findings of every run: `ds` in (run, step) order.
pub fn findings(cats: &BTreeMap<String, Catalogue>, ds: &[Classified]) -> Vec<Finding> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < ds.len() {
        let run_id = &ds[i].run.run_id;
        let end = (i..ds.len())
            .find(|&j| ds[j].run.run_id != *run_id)
            .unwrap_or(ds.len());
        run(cats, &ds[i..end], &mut out);
        i = end;
    }
    out.into_iter().collect()
}

fn run(cats: &BTreeMap<String, Catalogue>, run: &[Classified], out: &mut BTreeSet<Finding>) {
    let r = run[0].run;
    for (j, d) in run.iter().enumerate() {
        let selected = d.d.selected.clone();
        // unsourced_id / id_from_description
        if writes(cats, d)
            && let Some(args) = &d.d.arguments
        {
            let mut vals = vec![];
            ids(args, false, &mut vals);
            let unsourced: Vec<&String> = vals
                .iter()
                .filter(|v| {
                    !r.goal.as_deref().is_some_and(|g| has_token(g, v))
                        && !r.scope.as_deref().is_some_and(|g| has_token(g, v))
                        && !run[..j].iter().any(|e| {
                            e.d.result.as_ref().is_some_and(|x| mentions(x, v))
                                || (status(e) == Some(Status::Ok)
                                    && tool(cats, e).is_some_and(|t| t.effect == Effect::ReadOnly)
                                    && e.d.arguments.as_ref().is_some_and(|x| mentions(x, v)))
                        })
                })
                .collect();
            if !unsourced.is_empty() {
                out.insert(finding("unsourced_id", d, selected.clone()));
                let cat = d.catalogue.as_ref().and_then(|c| cats.get(c));
                let copied = cat.is_some_and(|c| {
                    c.tools
                        .iter()
                        .filter(|t| d.menu.as_ref().is_none_or(|m| m.contains(&t.name)))
                        .any(|t| {
                            let mut doc = vec![t.description.clone()];
                            doc.extend(t.use_when.iter().cloned());
                            doc.extend(t.avoid_when.iter().cloned());
                            if let Some(s) = &t.input_schema {
                                texts(s, &mut doc);
                            }
                            unsourced
                                .iter()
                                .any(|v| doc.iter().any(|x| has_token(x, v)))
                        })
                });
                if copied {
                    out.insert(finding("id_from_description", d, selected.clone()));
                }
            }
        }
        // announced_no_call
        let no_call =
            |x: &Classified| x.d.selected.is_none() || x.boundary == Some("representation");
        if no_call(d)
            && !run.iter().any(|o| o.turn() == d.turn() && !no_call(o))
            && let Some(raw) = &d.d.raw
        {
            let cat = d.catalogue.as_ref().and_then(|c| cats.get(c));
            let nothing_known = cat.is_none() && d.menu.is_none();
            let known = |n: &str| {
                nothing_known
                    || d.catalogue
                        .as_ref()
                        .and_then(|c| cats.get(c))
                        .is_some_and(|c| c.tool(n).is_some())
                    || d.menu.as_ref().is_some_and(|m| m.contains(n))
                    || d.d.selected.as_deref() == Some(n)
            };
            let (said, written) = announces(raw, &known);
            // an announcement followed by a call later in the run did act
            let acted_later = run[j + 1..].iter().any(|o| !no_call(o));
            if written || (said && !acted_later) {
                out.insert(finding("announced_no_call", d, selected.clone()));
            }
        }
        // write_under_inform
        if r.intent == Some("inform") && executed(d) && writes(cats, d) {
            out.insert(finding("write_under_inform", d, selected.clone()));
        }
        // repeated_call
        if let Some(name) = &selected {
            let same_args = |e: &Classified| e.d.arguments == d.d.arguments;
            let earlier = (0..j).rev().find(|&i| {
                let e = &run[i];
                e.d.selected.as_deref() == Some(name)
                    && e.turn() < d.turn()
                    && same_args(e)
                    && match e.d.outcome.as_ref() {
                        Some(o) if o.status == Status::Ok => true,
                        Some(o) if matches!(o.status, Status::Refused | Status::Error) => {
                            o.retryable == Some(false)
                        }
                        _ => false,
                    }
            });
            if let Some(i) = earlier {
                let precondition = run[i].boundary == Some("precondition");
                // the target changed under the run: preview again
                let conflict = |x: &Classified| {
                    x.d.outcome.as_ref().is_some_and(|o| {
                        matches!(o.status, Status::Refused | Status::Error)
                            && o.reason
                                .as_deref()
                                .is_some_and(|r| r.ends_with("version_conflict"))
                    })
                };
                let reset = run[i + 1..j]
                    .iter()
                    .any(|x| conflict(x) || (executed(x) && (precondition || writes(cats, x))));
                if !reset {
                    out.insert(finding("repeated_call", d, selected.clone()));
                }
            }
        }
    }
    // menu_changed: at the first decision whose menu differs from the one
    // before it (decisions with no known menu are skipped)
    let menus: Vec<&Classified> = run.iter().filter(|d| d.menu.is_some()).collect();
    if let Some(w) = menus.windows(2).find(|w| w[0].menu != w[1].menu) {
        out.insert(finding("menu_changed", w[1], None));
    }
}
