//! Catalogue versions as the comparison and `rung diff` read them: the
//! versions the database knows, their stored tool definitions, the labels
//! that moved between two versions, and one tool's diff.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, params};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::metrics::diff::{CatalogueDiff, Pointer, ToolDef, diff_catalogues};
use crate::store::decode::{Stored, Table};
use crate::text::echo;

/// A catalogue version the database knows.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogueInfo {
    pub version: String,
    pub created_at: Option<String>,
    pub tools: u64,
}

/// Every stored catalogue version, oldest first (by `created_at`, then
/// version; undated last).
pub fn catalogues(conn: &Connection) -> Result<Vec<CatalogueInfo>> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.version, c.created_at, (SELECT count(*) FROM tools t WHERE t.catalogue = c.version)
         FROM catalogues c ORDER BY c.created_at IS NULL, c.created_at, c.version",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(CatalogueInfo {
                version: r.get(0)?,
                created_at: r.get(1)?,
                tools: r.get::<_, i64>(2)? as u64,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// A usage error for a version the database does not hold.
fn unknown(version: &str, known: &[CatalogueInfo]) -> Error {
    let names: Vec<String> = known.iter().map(|c| echo(&c.version)).collect();
    Error::usage(format!(
        "no catalogue version {} in the database; known: {}",
        echo(version),
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ))
}

/// Checks that every version is stored.
pub fn require(conn: &Connection, versions: &[&str]) -> Result<()> {
    let known = catalogues(conn)?;
    for v in versions {
        if !known.iter().any(|c| c.version == *v) {
            return Err(unknown(v, &known));
        }
    }
    Ok(())
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(xs)) => xs
            .iter()
            .map(|x| match x {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The tools of one catalogue version as a diff compares them, by name.
pub fn tool_defs(conn: &Connection, version: &str) -> Result<Vec<ToolDef>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, family, effect, open_world, description, record FROM tools
         WHERE catalogue = ?1 ORDER BY name",
    )?;
    let mut rows = stmt.query(params![version])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let name: String = r.get(0)?;
        let row = || format!("row catalogue {} name {}", echo(version), echo(&name));
        let record: Value = Stored::new(conn, Table::Tools, &row)
            .json("record", r.get(5)?)?
            .unwrap_or(Value::Null);
        out.push(ToolDef {
            family: r.get(1)?,
            effect: r.get(2)?,
            open_world: r.get(3)?,
            description: r.get(4)?,
            use_when: strings(record.get("use_when")),
            avoid_when: strings(record.get("avoid_when")),
            input_schema: record.get("input_schema").cloned(),
            name,
        });
    }
    Ok(out)
}

/// Acceptable names by (task, step).
type Labels = BTreeMap<(String, Option<i64>), Vec<String>>;

/// The acceptable names each (task, step) accepts under `version`: the case
/// for that version, else the one for no version.
fn labels_under(conn: &Connection, version: &str) -> Result<Labels> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, task_id, step, catalogue, acceptable FROM cases
         WHERE catalogue = ?1 OR catalogue IS NULL ORDER BY id",
    )?;
    let mut rows = stmt.query(params![version])?;
    let mut specific = BTreeMap::new();
    let mut general = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let row = || format!("row id {id}");
        let acceptable = Stored::new(conn, Table::Cases, &row)
            .list("acceptable", r.get(4)?)?
            .unwrap_or_default();
        let key = (r.get::<_, String>(1)?, r.get::<_, Option<i64>>(2)?);
        let into = if r.get::<_, Option<String>>(3)?.is_some() {
            &mut specific
        } else {
            &mut general
        };
        into.insert(key, acceptable);
    }
    for (k, v) in specific {
        general.insert(k, v);
    }
    Ok(general)
}

/// The labels that moved between two versions: for each (task, step)
/// labelled under both, every (old acceptable, new acceptable) pair.
pub fn label_pointers(conn: &Connection, old: &str, new: &str) -> Result<Vec<Pointer>> {
    let a = labels_under(conn, old)?;
    let b = labels_under(conn, new)?;
    let mut out = BTreeSet::new();
    for (key, olds) in &a {
        let Some(news) = b.get(key) else { continue };
        for r in olds {
            for n in news.iter().filter(|n| !olds.contains(n)) {
                out.insert(Pointer {
                    removed: r.clone(),
                    added: n.clone(),
                    task: key.0.clone(),
                });
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// `rung diff OLD NEW`; `mask` is applied to each description before the
/// word diff (secrets are masked, not diffed).
pub fn diff(
    conn: &Connection,
    old: &str,
    new: &str,
    mask: &dyn Fn(&str) -> String,
) -> Result<CatalogueDiff> {
    require(conn, &[old, new])?;
    let masked = |mut v: Vec<ToolDef>| {
        for t in &mut v {
            t.description = mask(&t.description);
            for h in t.use_when.iter_mut().chain(t.avoid_when.iter_mut()) {
                *h = mask(h);
            }
        }
        v
    };
    let a = masked(tool_defs(conn, old)?);
    let b = masked(tool_defs(conn, new)?);
    let pointers = label_pointers(conn, old, new)?;
    Ok(diff_catalogues(old, new, &a, &b, &pointers))
}

/// One tool between two catalogue versions (the Tools screen's `d`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDiffView {
    pub name: String,
    pub catalogue: String,
    /// The versions compared, older first.
    pub pair: Option<(String, String)>,
    /// What changed, when the tool is in both and differs.
    pub change: Option<crate::metrics::diff::ToolChange>,
    /// What the comparison found, in words (trace names unescaped).
    pub summary: String,
}

/// Diffs tool `name` of `catalogue` against the nearest older version that
/// has a tool of that name, else the nearest newer one; with none, says
/// what became of it (renamed or merged) where a neighbour version tells.
pub fn tool_diff(
    conn: &Connection,
    catalogue: &str,
    name: &str,
    mask: &dyn Fn(&str) -> String,
) -> Result<ToolDiffView> {
    let all = catalogues(conn)?;
    let Some(at) = all.iter().position(|c| c.version == catalogue) else {
        return Err(unknown(catalogue, &all));
    };
    let has = |v: &str| -> Result<bool> {
        Ok(conn
            .prepare_cached("SELECT 1 FROM tools WHERE catalogue = ?1 AND name = ?2")?
            .exists(params![v, name])?)
    };
    let older = all[..at].iter().rev().map(|c| c.version.as_str());
    let newer = all[at + 1..].iter().map(|c| c.version.as_str());
    let mut pair = None;
    for v in older {
        if has(v)? {
            pair = Some((v.to_string(), catalogue.to_string()));
            break;
        }
    }
    if pair.is_none() {
        for v in newer {
            if has(v)? {
                pair = Some((catalogue.to_string(), v.to_string()));
                break;
            }
        }
    }
    let mut view = ToolDiffView {
        name: name.to_string(),
        catalogue: catalogue.to_string(),
        pair: pair.clone(),
        change: None,
        summary: String::new(),
    };
    if let Some((old, new)) = pair {
        let d = diff(conn, &old, &new, mask)?;
        view.change = d.change_of(name).cloned();
        view.summary = match &view.change {
            Some(c) => format!(
                "{name} changed from {old} to {new}: {}",
                c.fields
                    .iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("{name} is the same in {old} and {new}"),
        };
        return Ok(view);
    }
    // In no other version: what did a neighbour make of it?
    let mut said = Vec::new();
    if let Some(next) = all.get(at + 1) {
        let d = diff(conn, catalogue, &next.version, mask)?;
        let went = d.successors(name);
        match went[..] {
            [] => {}
            [r] if r.from.len() > 1 => said.push(format!(
                "in {} it is merged into {} (with {})",
                next.version,
                r.into,
                r.from
                    .iter()
                    .filter(|f| *f != name)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            [r] => said.push(format!("in {} it is renamed to {}", next.version, r.into)),
            _ => said.push(format!(
                "in {} it is split into {}",
                next.version,
                went.iter()
                    .map(|r| r.into.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    if at > 0 {
        let prev = &all[at - 1];
        let d = diff(conn, &prev.version, catalogue, mask)?;
        if let Some(r) = d.renamed.iter().find(|r| r.into == name) {
            said.push(format!(
                "it {} {} of {}",
                if r.from.len() > 1 {
                    "merges"
                } else {
                    "renames"
                },
                r.from.join(", "),
                prev.version
            ));
        }
    }
    view.summary = if said.is_empty() {
        format!("{name} is only in {catalogue}: no other version has a tool of that name")
    } else {
        format!("{name} is only in {catalogue}; {}", said.join("; "))
    };
    Ok(view)
}
