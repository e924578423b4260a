//! `rung diff OLD NEW`: a row per tool added, removed or changed between
//! two catalogue versions, the renamed-or-merged candidates said beside the
//! tools they concern, and each changed description as a word diff
//! (`[-removed-]`, `{+added+}`) under its row. JSON:
//! `{old, new, added, removed, renamed_or_merged, changed, unchanged}`.

use serde_json::json;

use super::model::{Cell, Column, Empty, Place, Prose, Report, Shape, count, esc};
use crate::metrics::diff::{CatalogueDiff, Renamed, show_word_diff};

fn names(v: &[String]) -> String {
    v.iter().map(|s| esc(s)).collect::<Vec<_>>().join(", ")
}

fn tasks(n: u64) -> String {
    format!("labels of {}", count(n, "task", "tasks"))
}

/// What a new tool took over, in words (the summary says whose labels).
fn took_over(r: &Renamed) -> String {
    format!(
        "{} {}",
        if r.from.len() > 1 {
            "merges"
        } else {
            "renames"
        },
        names(&r.from)
    )
}

pub fn build(d: &CatalogueDiff) -> Report {
    let mut r = Report::new(
        &format!("Catalogue diff: {} → {}", d.old, d.new),
        Shape::List("tools"),
        vec![
            Column::new("name", "tool").flex(),
            Column::new("change", "change"),
            Column::new("into", "into").data_only(),
            Column::new("from", "from").data_only(),
            Column::new("fields", "fields").data_only(),
            Column::new("tasks", "tasks").data_only(),
            Column::new("detail", "detail").reading_only().flex(),
            Column::new("description_diff", "description and hints (word diff)")
                .none("")
                .in_table(Place::Note),
        ],
    );
    r.table_title = Some(format!("Catalogue diff: {} → {}", d.old, d.new));
    for name in &d.added {
        let took = d.renamed.iter().find(|x| &x.into == name);
        r.row(vec![
            Cell::text(name),
            Cell::text("added"),
            Cell::None,
            took.map_or(Cell::None, |x| Cell::List(x.from.clone())),
            Cell::List(vec![]),
            took.map_or(Cell::None, |x| Cell::Count(x.tasks)),
            Cell::Text(took.map_or("new".to_string(), took_over)),
            Cell::None,
        ]);
    }
    for name in &d.removed {
        let went = d.successors(name);
        let into: Vec<String> = went.iter().map(|x| x.into.clone()).collect();
        r.row(vec![
            Cell::text(name),
            Cell::text("removed"),
            if into.is_empty() {
                Cell::None
            } else {
                Cell::Text(into.join(" "))
            },
            Cell::None,
            Cell::List(vec![]),
            Cell::None,
            Cell::Text(match went[..] {
                [] => "gone".to_string(),
                [x] if x.from.len() > 1 => format!("merged into {}", esc(&x.into)),
                [x] => format!("renamed to {}", esc(&x.into)),
                _ => format!("split into {}", names(&into)),
            }),
            Cell::None,
        ]);
    }
    for c in &d.changed {
        let fields: Vec<String> = c.fields.iter().map(|f| f.as_str().to_string()).collect();
        r.row(vec![
            Cell::text(&c.name),
            Cell::text("changed"),
            Cell::None,
            Cell::None,
            Cell::List(fields.clone()),
            Cell::None,
            Cell::Text(names(&fields)),
            {
                let parts: Vec<String> = c
                    .description
                    .as_ref()
                    .map(|p| show_word_diff(p))
                    .into_iter()
                    .chain(c.hints_text())
                    .collect();
                if parts.is_empty() {
                    Cell::None
                } else {
                    Cell::Text(parts.join(" — "))
                }
            },
        ]);
    }
    r.empty = Some(Empty {
        text: "No differences: both versions define the same tools the same way.",
        whole: false,
    });
    let mut summary = format!(
        "{} → {}: {} added, {} removed, {} changed, {} unchanged.",
        esc(&d.old),
        esc(&d.new),
        d.added.len(),
        d.removed.len(),
        d.changed.len(),
        d.unchanged
    );
    for x in &d.renamed {
        summary.push_str(&format!(
            " {}: {} → {} ({}).",
            if x.from.len() > 1 {
                "Merged"
            } else {
                "Renamed"
            },
            names(&x.from),
            esc(&x.into),
            tasks(x.tasks)
        ));
    }
    r.summary.push(Prose::both(summary));
    if !d.changed.is_empty() {
        r.notes.push(Prose::both(
            "A description's word diff shows removed words as [-…-] and added ones as {+…+}; \
             hints are use_when and avoid_when."
                .to_string(),
        ));
    }
    r.json = Some(json!({
        "old": d.old,
        "new": d.new,
        "added": d.added,
        "removed": d.removed,
        "renamed_or_merged": d.renamed.iter().map(|x| json!({
            "into": x.into, "from": x.from, "kind": x.kind(), "tasks": x.tasks,
        })).collect::<Vec<_>>(),
        "changed": d.changed.iter().map(|c| json!({
            "name": c.name,
            "fields": c.fields,
            "description_diff": c.description.as_ref().map(|p| show_word_diff(p)),
            "description_words": c.description,
            "use_when": c.use_when.as_ref().map(|(a, b)| json!({"old": a, "new": b})),
            "avoid_when": c.avoid_when.as_ref().map(|(a, b)| json!({"old": a, "new": b})),
        })).collect::<Vec<_>>(),
        "unchanged": d.unchanged,
    }));
    r
}
