//! How a searched list looks, the same on every screen (issue 16): the
//! text found marked in the cells shown, the fields that matched out of
//! sight named in brackets, and the search itself at the foot of the list
//! with where the selection is among its matches.

use ratatui::text::{Line, Span};

use super::esc;
use crate::find;
use crate::tui::paged::Cursor;
use crate::tui::state::TableView;
use crate::tui::theme::Theme;

/// `text` (already escaped) with every occurrence of `pat` (a
/// [`find::pattern`]) marked.
pub fn marked(text: &str, pat: &str, t: &Theme) -> Line<'static> {
    let spans = marked_spans(text, pat, t);
    Line::from(spans)
}

/// [`marked`] as spans, to put beside others.
pub fn marked_spans(text: &str, pat: &str, t: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut at = 0;
    for r in find::occurrences(text, pat) {
        if r.start > at {
            spans.push(Span::raw(text[at..r.start].to_string()));
        }
        spans.push(Span::styled(text[r.clone()].to_string(), t.matched()));
        at = r.end;
    }
    spans.push(Span::raw(text[at..].to_string()));
    spans
}

/// `[family, catalogue] `: the fields a row matched on that it does not
/// show (none: nothing).
pub fn hidden(fields: &[&str], t: &Theme) -> Option<Span<'static>> {
    if fields.is_empty() {
        return None;
    }
    Some(Span::styled(
        format!("[{}] ", fields.join(", ")),
        t.matched(),
    ))
}

/// The search at the foot of a list: `/ text▏` while typing, then how many
/// rows match and which of them is selected (`match 2 of 5`, `n/N`).
pub fn bar(find: &str, typing: bool, count: Option<String>, t: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(" / ", t.key()),
        Span::raw(esc(find).into_owned()),
    ];
    if typing {
        spans.push(Span::styled("▏ (Enter keep, Esc clear) ", t.dim()));
    } else {
        if let Some(c) = count {
            spans.push(Span::styled(format!(" · {c}"), t.header()));
        }
        spans.push(Span::styled(" · Esc clears ", t.dim()));
    }
    Line::from(spans)
}

/// A table's search bar, when a search is typed or in force.
pub fn table_bar(view: &TableView, cursor: &Cursor, t: &Theme) -> Option<Line<'static>> {
    if !view.typing && view.pattern().is_empty() {
        return None;
    }
    let total = view.hits.len();
    let count = match (total, view.hit_index(cursor)) {
        (0, _) => "no match".to_string(),
        (n, Some(i)) => format!("match {i} of {n} · n/N"),
        (1, None) => "1 match · n".to_string(),
        (n, None) => format!("{n} matches · n/N"),
    };
    let mut line = bar(&view.find, view.typing, Some(count.clone()), t);
    if view.typing && !view.pattern().is_empty() {
        line.spans
            .push(Span::styled(format!("{count} "), t.header()));
    }
    Some(line)
}

/// A line of the payload viewer with every occurrence of `pat` (ASCII
/// letters in any case, as the viewer's search compares) marked, and the
/// characters `current` of the match the search is on marked more.
pub fn payload_line(
    line: &str,
    pat: &str,
    current: Option<std::ops::Range<usize>>,
    t: &Theme,
) -> Line<'static> {
    // Styles per byte boundary: 0 plain, 1 a match, 2 the current match.
    let mut marks: Vec<(usize, usize, u8)> = Vec::new();
    if !pat.is_empty() {
        let folded = line.to_ascii_lowercase();
        let p = pat.to_ascii_lowercase();
        let mut at = 0;
        while let Some(i) = folded[at..].find(&p) {
            let s = at + i;
            marks.push((s, s + p.len(), 1));
            at = s + p.len().max(1);
        }
    }
    if let Some(r) = current {
        let byte = |c: usize| line.char_indices().nth(c).map_or(line.len(), |(b, _)| b);
        let (s, e) = (byte(r.start), byte(r.end));
        marks.retain(|m| m.1 <= s || m.0 >= e);
        marks.push((s, e, 2));
        marks.sort_unstable();
    }
    let mut spans = Vec::new();
    let mut at = 0;
    for (s, e, kind) in marks {
        if s < at || e > line.len() {
            continue;
        }
        if s > at {
            spans.push(Span::raw(line[at..s].to_string()));
        }
        let style = if kind == 2 { t.selected() } else { t.matched() };
        spans.push(Span::styled(line[s..e].to_string(), style));
        at = e;
    }
    spans.push(Span::raw(line[at..].to_string()));
    Line::from(spans)
}

/// A sortable column's header in `width` columns: its name, cut with `…`
/// when the sort's arrow would not fit beside it.
pub fn head(view: &TableView, columns: &[&str], col: usize, width: usize) -> String {
    sorted_head(columns, view.sort, view.desc, col, width)
}

/// [`head`] for a list sorted by the store (its own column and direction).
pub fn sorted_head(
    columns: &[&str],
    sort: Option<usize>,
    desc: bool,
    col: usize,
    width: usize,
) -> String {
    let name = columns.get(col).copied().unwrap_or("");
    if sort != Some(col) {
        return name.to_string();
    }
    let arrow = if desc { "↓" } else { "↑" };
    let room = width.saturating_sub(2).max(1);
    format!("{} {arrow}", super::fit(name, room))
}
