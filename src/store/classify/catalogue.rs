//! Catalogue-level findings: description drift and definition conflicts
//! under one version, control impostors and invalid controls.

use std::collections::BTreeSet;

use rusqlite::Connection;

use super::stored::load_catalogue;
use crate::error::Result;
use crate::model::{Effect, FindingKind};
use crate::store::decode::{Stored, Table};

/// Finding kinds derived per catalogue.
const CATALOGUE_KINDS: &str =
    "'description_drift','catalogue_conflict','control_impostor','invalid_control'";

/// Recomputes the catalogue-level findings of one catalogue version.
pub(super) fn catalogue_findings(conn: &Connection, version: &str) -> Result<()> {
    conn.execute(
        &format!(
            // Through the index of findings by run (catalogue findings
            // have none): there is no index by catalogue (schema 9).
            "DELETE FROM finding_rows
             WHERE run_id IS NULL
               AND +catalogue = (SELECT id FROM catalogue_ids WHERE version = ?1)
               AND kind IN (SELECT id FROM finding_kinds WHERE name IN ({CATALOGUE_KINDS}))"
        ),
        [version],
    )?;
    let insert = |kind: FindingKind, tool: &str, detail: String| -> Result<()> {
        crate::store::findings::insert_finding(
            conn,
            kind,
            Some(version),
            None,
            None,
            None,
            Some(tool),
            &detail,
        )
    };

    // Drift and conflicts: every definition after the first, per tool.
    type Variant = (String, String, String, String, bool, bool, Option<String>);
    let variants: Vec<Variant> = conn
        .prepare(
            "SELECT name, definition_hash, family, effect, open_world, idempotent, source
             FROM tool_versions WHERE catalogue = ?1 ORDER BY name, id",
        )?
        .query_map([version], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut first: Option<&Variant> = None;
    for v in &variants {
        match first {
            Some(f) if f.0 == v.0 => {
                let seen =
                    v.6.as_deref()
                        .map(|s| format!(" at {s}"))
                        .unwrap_or_default();
                let kept =
                    f.6.as_deref()
                        .map(|s| format!(", from {s}"))
                        .unwrap_or_default();
                if f.1 != v.1 {
                    insert(
                        FindingKind::DescriptionDrift,
                        &v.0,
                        format!(
                            "{} under catalogue {version}: definition hash {} (in use{kept}) changed to {}{seen}; the first definition stays in use",
                            v.0, f.1, v.1
                        ),
                    )?;
                }
                let mut changes = Vec::new();
                if f.2 != v.2 {
                    changes.push(format!("family {} → {}", f.2, v.2));
                }
                if f.3 != v.3 {
                    changes.push(format!("effect {} → {}", f.3, v.3));
                }
                if f.4 != v.4 {
                    changes.push(format!("open_world {} → {}", f.4, v.4));
                }
                if f.5 != v.5 {
                    changes.push(format!("idempotent {} → {}", f.5, v.5));
                }
                if !changes.is_empty() {
                    insert(
                        FindingKind::CatalogueConflict,
                        &v.0,
                        format!(
                            "{} under catalogue {version}: {}{seen}; the first definition stays in use",
                            v.0,
                            changes.join(", ")
                        ),
                    )?;
                }
            }
            _ => first = Some(v),
        }
    }

    // Controls: what decisions on this catalogue trust.
    let mut trusted: BTreeSet<String> = BTreeSet::new();
    {
        let names = crate::store::names::Names::load(conn)?;
        let mut stmt = conn.prepare(
            "SELECT controls, min(decision_id) FROM ladder WHERE catalogue = ?1 GROUP BY controls",
        )?;
        let mut rows = stmt.query([version])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(1)?;
            let row = || format!("row decision_id {id}");
            let list = Stored::new(conn, Table::Ladder, &row)
                .with_names(&names)
                .list("controls", r.get(0)?)?;
            trusted.extend(list.unwrap_or_default());
        }
    }
    let Some(cat) = load_catalogue(conn, version)? else {
        return Ok(());
    };
    for (name, tool) in &cat.tools {
        if tool.family == "control" && !trusted.contains(name) {
            insert(
                FindingKind::ControlImpostor,
                name,
                format!(
                    "{name} has family control but no decision on catalogue {version} trusts it; a tool cannot make itself always visible by its family label"
                ),
            )?;
        }
    }
    for name in &trusted {
        if let Some(tool) = cat.tools.get(name)
            && (tool.family != "control" || tool.effect != Effect::None || tool.open_world)
        {
            insert(
                FindingKind::InvalidControl,
                name,
                format!(
                    "{name} is trusted as a control but catalogue {version} lists it as family {}, effect {}{}; a control must be family control, effect none, closed-world",
                    tool.family,
                    tool.effect,
                    if tool.open_world { ", open-world" } else { "" }
                ),
            )?;
        }
    }
    Ok(())
}
