//! `rung report tools`: per catalogue tool, how often it was visible,
//! selected (rightly or wrongly) and refused, and the pruning queue of
//! tools never selected. Tables take one grid per catalogue.

use super::model::{Cell, Column, Empty, Group, Groups, Place, Prose, Report, Shape, count, esc};
use crate::metrics::ToolUsage;
use crate::redact::Redactor;

/// A tool's refusals by reason, most first ("outside_intent 2, not_found 1"),
/// from its counts by masked reason (reasons that read the same once
/// masked counted as one: `Redactor::mask_counts`).
fn reasons_text(masked: &serde_json::Value) -> String {
    let mut v: Vec<(&String, u64)> = masked
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, n)| (k, n.as_u64().unwrap_or(0)))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    v.iter()
        .map(|(reason, n)| {
            let reason = if reason.is_empty() {
                "(no reason)"
            } else {
                reason.as_str()
            };
            format!("{reason} {n}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tools grouped by catalogue, in list order: (catalogue, rows).
fn by_catalogue<'a>(list: &[&'a ToolUsage]) -> Vec<(&'a str, Vec<&'a ToolUsage>)> {
    let mut out: Vec<(&str, Vec<&ToolUsage>)> = Vec::new();
    for t in list {
        match out.last_mut() {
            Some((c, v)) if *c == t.catalogue => v.push(t),
            _ => out.push((&t.catalogue, vec![t])),
        }
    }
    out
}

pub fn build(list: &[ToolUsage], m: &Redactor) -> Report {
    let mut r = Report::new(
        "Tools",
        Shape::List("tools"),
        vec![
            // Markdown leads with the catalogue; a table says it once per grid.
            Column::new("catalogue", "catalogue").markdown_only(),
            Column::new("name", "tool").flex(),
            Column::new("catalogue", "catalogue").data_only(),
            Column::new("family", "family").in_table(Place::Hidden),
            Column::new("effect", "effect"),
            Column::new("visible", "visible").right(),
            Column::new("selected", "selected").right(),
            Column::new("selected_wrongly", "selected wrongly")
                .table_header("wrongly")
                .right(),
            Column::new("refused", "refused").right(),
            Column::new("refused_by_reason", "refused by reason").data_only(),
            Column::new("refused by reason", "refused by reason")
                .reading_only()
                .in_table(Place::Aside("refused, by reason")),
            Column::new("never_selected", "never selected")
                .yes_no("yes", "")
                .in_table(Place::Hidden),
        ],
    );
    for t in list {
        let reasons = m.mask_counts(&t.refused_by_reason);
        let text = (t.refused > 0).then(|| reasons_text(reasons.get()));
        r.row(vec![
            Cell::text(m, &t.catalogue),
            Cell::text(m, &t.name),
            Cell::text(m, &t.catalogue),
            Cell::text(m, &t.family),
            Cell::text(m, &t.effect),
            Cell::Count(t.visible),
            Cell::Count(t.selected),
            Cell::Count(t.selected_wrongly),
            Cell::Count(t.refused),
            Cell::Json(reasons),
            text.map_or(Cell::None, |text| Cell::text(m, &text)),
            Cell::Bool(t.never_selected),
        ]);
    }
    r.empty = Some(Empty {
        text: "No catalogue tools.",
        whole: true,
    });
    let all: Vec<&ToolUsage> = list.iter().collect();
    let mut groups = Vec::new();
    let mut at = 0;
    for (cat, tools) in by_catalogue(&all) {
        let never: Vec<String> = tools
            .iter()
            .filter(|t| t.prunable())
            .map(|t| esc(m, &t.name))
            .collect();
        groups.push(Group {
            rows: at..at + tools.len(),
            heading: format!(
                "Catalogue {}: {}, {} never selected",
                esc(m, cat),
                count(tools.len() as u64, "tool", "tools"),
                tools.iter().filter(|t| t.never_selected).count()
            ),
            footer: if never.is_empty() {
                if tools.iter().any(|t| t.never_selected) {
                    "Pruning queue: empty (only trusted controls were never selected).".to_string()
                } else {
                    "Every tool was selected at least once.".to_string()
                }
            } else {
                format!(
                    "Pruning queue (never selected, trusted controls aside): {}",
                    never.join(", ")
                )
            },
        });
        at += tools.len();
    }
    r.groups = Groups::Split(groups);
    let never: Vec<&ToolUsage> = list.iter().filter(|t| t.prunable()).collect();
    r.notes.push(Prose::markdown(if never.is_empty() {
        if list.iter().any(|t| t.never_selected) {
            "Pruning queue: empty (only trusted controls were never selected).".to_string()
        } else {
            "Every tool was selected at least once.".to_string()
        }
    } else {
        let lines: Vec<String> = by_catalogue(&never)
            .into_iter()
            .map(|(cat, tools)| {
                let names: Vec<String> = tools.iter().map(|t| esc(m, &t.name)).collect();
                format!("- {}: {}", esc(m, cat), names.join(", "))
            })
            .collect();
        format!(
            "Pruning queue ({} never selected, trusted controls aside):\n\n{}",
            count(never.len() as u64, "tool", "tools"),
            lines.join("\n")
        )
    }));
    r
}
