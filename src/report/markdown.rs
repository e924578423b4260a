//! The markdown format: a `##` title, paragraphs on one line each (documents
//! wrap them), and a GitHub-flavoured table with every markdown column whole.

use super::model::{Column, Report};
use crate::text::escape_multiline;

/// A markdown table cell (or header): every cell goes through here, so
/// escaping for markdown is made in one place. Trace text is made inert
/// (see [`inert`]) and pipes are escaped so they do not split the cell.
pub fn cell(text: &str) -> String {
    inert(text).replace('|', "\\|")
}

/// A paragraph (or a block, such as a list) and its newline: every line of
/// prose goes through here. Builders have escaped the trace text in it for
/// a terminal; here it is made inert for markdown (see [`inert`]).
pub fn prose(text: &str) -> String {
    format!("{}\n", inert(&escape_multiline(text)))
}

/// Text from a trace as markdown shows it: HTML escaped (no `<script>`, no
/// `<img onerror>`, no `<https://…>` autolink) and brackets escaped, so no
/// link or remote image (`![](https://…)`) is made from it; a backslash is
/// itself escaped so none of these escapes can be undone.
fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '[' => out.push_str("\\["),
            ']' => out.push_str("\\]"),
            c => out.push(c),
        }
    }
    out
}

/// The report as markdown: title, summary, table (or the empty line), notes.
pub fn render(r: &Report) -> String {
    let mut out = format!("## {}\n\n", escape_multiline(&r.title));
    if let Some(e) = r.empty_now().filter(|e| e.whole) {
        out.push_str(&prose(e.text));
        return out;
    }
    for p in r.summary.iter().filter_map(|p| p.markdown.as_deref()) {
        out.push_str(&prose(p));
        out.push('\n');
    }
    match r.empty_now() {
        Some(e) => out.push_str(&prose(e.text)),
        None => out.push_str(&table(r)),
    }
    for n in r.notes.iter().filter_map(|n| n.markdown.as_deref()) {
        out.push('\n');
        out.push_str(&prose(n));
    }
    out
}

/// The rows as a markdown table: headers, alignments, a line per row.
fn table(r: &Report) -> String {
    let shown: Vec<(usize, &Column)> = r
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.markdown)
        .collect();
    let mut out = String::from("|");
    for (_, c) in &shown {
        out.push_str(&format!(" {} |", cell(&c.header)));
    }
    out.push_str("\n|");
    for (_, c) in &shown {
        out.push_str(if c.right { " ---: |" } else { " --- |" });
    }
    out.push('\n');
    for row in &r.rows {
        out.push('|');
        for (i, c) in &shown {
            out.push_str(&format!(" {} |", cell(&c.read(&row.cells[*i]))));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Cell, Column, Place, Prose, Shape};

    #[test]
    fn markdown_escapes_pipes_and_keeps_notes_out_of_the_table() {
        let mut r = Report::new(
            "Things",
            Shape::List("things"),
            vec![
                Column::new("name", "name"),
                Column::new("n", "n").right(),
                Column::new("why", "why")
                    .in_table(Place::Note)
                    .markdown_only(),
                Column::new("id", "id").data_only(),
            ],
        );
        r.row(vec![
            Cell::text("a|b"),
            Cell::Count(7),
            Cell::text("because"),
            Cell::Int(1),
        ]);
        r.row(vec![
            Cell::text("long name"),
            Cell::Count(12),
            Cell::None,
            Cell::Int(2),
        ]);
        r.summary.push(Prose::both("Two things.".into()));
        r.notes
            .push(Prose::each("table only".into(), "a\nb".into()));
        assert_eq!(
            render(&r),
            "## Things\n\nTwo things.\n\n| name | n | why |\n| --- | ---: | --- |\n\
             | a\\|b | 7 | because |\n| long name | 12 |  |\n\na\nb\n"
        );
    }

    #[test]
    fn markdown_escapes_html_links_and_images() {
        let mut r = Report::new(
            "Reasons",
            Shape::List("reasons"),
            vec![Column::new("reason", "reason")],
        );
        for c in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "![t](https://evil.example/p.png)",
            "[click](https://evil.example)",
            "R&D \\| a|b",
        ] {
            r.row(vec![Cell::text(c)]);
        }
        r.notes
            .push(Prose::both("see <b>[this](https://x.example)</b>".into()));
        assert_eq!(
            render(&r),
            "## Reasons\n\n| reason |\n| --- |\n\
             | &lt;script&gt;alert(1)&lt;/script&gt; |\n\
             | &lt;img src=x onerror=alert(1)&gt; |\n\
             | !\\[t\\](https://evil.example/p.png) |\n\
             | \\[click\\](https://evil.example) |\n\
             | R&amp;D \\\\\\| a\\|b |\n\
             \nsee &lt;b&gt;\\[this\\](https://x.example)&lt;/b&gt;\n"
        );
    }
}
