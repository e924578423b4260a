//! The table format: aligned columns fitted to 80 characters, prose wrapped,
//! notes under their rows, groups as labels or as a grid each. The grid
//! engine is here too; cells reach it already escaped.

use std::borrow::Cow;

use super::model::{Cell, Column, Groups, Place, Report, Row};
use crate::text::{escape, truncate, width};

/// The width tables and prose are fitted to.
pub const WIDTH: usize = 80;

/// Widest a table cell gets before it is cut with `…`.
const MAX_CELL: usize = 60;

/// Narrowest a flexible column is cut to when a table is too wide.
const MIN_FLEX: usize = 10;

/// A grid of cells with a header; cells are already escaped.
pub struct Grid {
    pub headers: Vec<String>,
    /// Right-aligned columns (numbers).
    pub right: Vec<bool>,
    /// Columns that may be cut (with `…`) so the table fits in [`WIDTH`].
    pub flex: Vec<bool>,
    pub rows: Vec<Vec<String>>,
    /// Text shown under a row in tables (indented and wrapped).
    pub notes: Vec<Option<String>>,
    /// Labels shown above a row in tables: (row index, label).
    pub sections: Vec<(usize, String)>,
}

impl Grid {
    pub fn new(headers: &[&str], right: &[bool]) -> Grid {
        Grid {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            right: right.to_vec(),
            flex: vec![false; headers.len()],
            rows: Vec::new(),
            notes: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// Marks columns (by index) that may be cut to fit the width.
    pub fn flexible(mut self, columns: &[usize]) -> Grid {
        for &c in columns {
            self.flex[c] = true;
        }
        self
    }

    /// A label line above the next row in tables (cut to the width).
    pub fn section(&mut self, label: String) {
        self.sections.push((self.rows.len(), label));
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
        self.notes.push(None);
    }

    /// A row with text printed under it in tables.
    pub fn row_with_note(&mut self, cells: Vec<String>, note: String) {
        self.rows.push(cells);
        self.notes.push(Some(note));
    }

    /// Column widths: the widest cell (cut at [`MAX_CELL`]), then flexible
    /// columns narrowed, widest first, until the table fits in [`WIDTH`].
    fn widths(&self) -> Vec<usize> {
        let mut natural = Natural::new(&self.headers);
        for r in &self.rows {
            natural.add(r);
        }
        natural.fit(&self.flex)
    }

    /// Aligned columns separated by two spaces, fitted to [`WIDTH`] where
    /// the flexible columns allow it; notes under their rows.
    pub fn table(&self) -> String {
        let widths = self.widths();
        let mut out = line(&self.headers, &widths, &self.right);
        out.push_str(&rule(&widths, &self.right));
        // Sections are kept in row order: a cursor walks them with the rows.
        let mut sections = self.sections.iter().peekable();
        for (i, (r, note)) in self.rows.iter().zip(&self.notes).enumerate() {
            while let Some((_, label)) = sections.next_if(|(at, _)| *at == i) {
                out.push_str(&truncate(label, WIDTH));
                out.push('\n');
            }
            out.push_str(&line(r, &widths, &self.right));
            if let Some(note) = note {
                out.push_str(&wrap(note, WIDTH, "    "));
            }
        }
        out
    }
}

/// The natural widths of a grid's columns, measured a row at a time (so a
/// streamed table can be measured without keeping its rows): the widest
/// cell of each column, cut at [`MAX_CELL`], and its header.
#[derive(Debug, Clone)]
pub struct Natural {
    headers: Vec<usize>,
    widths: Vec<usize>,
}

impl Natural {
    pub fn new(headers: &[String]) -> Natural {
        let headers: Vec<usize> = headers.iter().map(|h| width(h)).collect();
        Natural {
            widths: headers.clone(),
            headers,
        }
    }

    /// Measures one row of (escaped) cells.
    pub fn add(&mut self, cells: &[String]) {
        for (w, c) in self.widths.iter_mut().zip(cells) {
            *w = (*w).max(width(c).min(MAX_CELL));
        }
    }

    /// Takes in what `other` measured (of the same columns).
    pub fn merge(&mut self, other: &Natural) {
        for (w, o) in self.widths.iter_mut().zip(&other.widths) {
            *w = (*w).max(*o);
        }
    }

    /// Measures one cell of column `col` whose width is `w` already (as
    /// [`Natural::add`] of a row with that cell).
    pub fn add_width(&mut self, col: usize, w: usize) {
        self.widths[col] = self.widths[col].max(w.min(MAX_CELL));
    }

    /// The widths: flexible columns narrowed, widest first, until the table
    /// fits in [`WIDTH`] (never below their header or [`MIN_FLEX`]).
    pub fn fit(&self, flex: &[bool]) -> Vec<usize> {
        let n = self.widths.len();
        let mut widths = self.widths.clone();
        let floor: Vec<usize> = (0..n)
            .map(|i| {
                if flex[i] {
                    widths[i].min(self.headers[i].max(MIN_FLEX))
                } else {
                    widths[i]
                }
            })
            .collect();
        let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * n.saturating_sub(1);
        while total(&widths) > WIDTH {
            let widest = (0..n)
                .filter(|&i| widths[i] > floor[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)));
            match widest {
                Some(i) => widths[i] -= 1,
                None => break,
            }
        }
        widths
    }
}

/// One line of a grid: cells cut to their widths and aligned, separated by
/// two spaces, trailing spaces dropped.
pub fn line(cells: &[String], widths: &[usize], right: &[bool]) -> String {
    let mut s = String::new();
    for (i, c) in cells.iter().enumerate() {
        let c = truncate(c, widths[i]);
        let pad = widths[i].saturating_sub(width(&c));
        let last = i + 1 == cells.len();
        if right[i] {
            s.push_str(&" ".repeat(pad));
            s.push_str(&c);
        } else {
            s.push_str(&c);
            if !last {
                s.push_str(&" ".repeat(pad));
            }
        }
        if !last {
            s.push_str("  ");
        }
    }
    s.trim_end().to_string() + "\n"
}

/// [`line`] added to `out`, each cell given with its width (as
/// [`crate::text::width`] measures it): no allocation unless a cell is cut.
pub fn line_into(out: &mut String, cells: &[(&str, usize)], widths: &[usize], right: &[bool]) {
    let start = out.len();
    for (i, &(c, w)) in cells.iter().enumerate() {
        let (c, w) = if w <= widths[i] {
            (Cow::Borrowed(c), w)
        } else {
            let c = truncate(c, widths[i]);
            let w = width(&c);
            (c, w)
        };
        let pad = widths[i].saturating_sub(w);
        let last = i + 1 == cells.len();
        if right[i] {
            spaces(out, pad);
            out.push_str(&c);
        } else {
            out.push_str(&c);
            if !last {
                spaces(out, pad);
            }
        }
        if !last {
            out.push_str("  ");
        }
    }
    let kept = out[start..].trim_end().len();
    out.truncate(start + kept);
    out.push('\n');
}

fn spaces(out: &mut String, n: usize) {
    const S: &str = "                                                                ";
    let mut n = n;
    while n > 0 {
        let k = n.min(S.len());
        out.push_str(&S[..k]);
        n -= k;
    }
}

/// The rule under a grid's header.
pub fn rule(widths: &[usize], right: &[bool]) -> String {
    let cells: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
    line(&cells, widths, right)
}

/// Word-wraps one line of (escaped) text to `width` columns, each line
/// starting with `indent`; a word longer than a line is cut across lines.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let printable = |s: &str| s.bytes().all(|b| (0x20..0x7f).contains(&b));
    if printable(text) && printable(indent) {
        return wrap_ascii(text, width, indent);
    }
    wrap_chars(text, width, indent)
}

/// [`wrap`] of any text, a character at a time.
fn wrap_chars(text: &str, width: usize, indent: &str) -> String {
    let cols = |w: &[char]| {
        w.iter()
            .map(|c| crate::text::width(c.encode_utf8(&mut [0; 4])))
            .sum::<usize>()
    };
    let room = width.saturating_sub(crate::text::width(indent)).max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let w = cols(&word);
            let need = if cur_len == 0 { w } else { cur_len + 1 + w };
            if need <= room {
                if cur_len > 0 {
                    cur.push(' ');
                    cur_len += 1;
                }
                cur.extend(word.iter());
                cur_len += w;
                break;
            }
            if cur_len > 0 {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
                continue;
            }
            // A word wider than a whole line: as much as fits (at least
            // one character), the rest on the next line.
            let mut at = 0;
            let mut used = 0;
            while at < word.len() {
                let cw = cols(&word[at..at + 1]);
                if at > 0 && used + cw > room {
                    break;
                }
                used += cw;
                at += 1;
            }
            let rest = word.split_off(at);
            lines.push(word.iter().collect());
            word = rest;
            if word.is_empty() {
                break;
            }
        }
    }
    if cur_len > 0 || lines.is_empty() {
        lines.push(cur);
    }
    lines
        .iter()
        .map(|l| format!("{indent}{l}\n"))
        .collect::<String>()
}

/// [`wrap`] of printable ASCII (a column per byte): the same lines,
/// measured in bytes.
fn wrap_ascii(text: &str, width: usize, indent: &str) -> String {
    let room = width.saturating_sub(indent.len()).max(1);
    let mut out = String::with_capacity(text.len() + 2 * indent.len() + 2);
    let emit = |out: &mut String, l: &str| {
        out.push_str(indent);
        out.push_str(l);
        out.push('\n');
    };
    let mut cur = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word;
        loop {
            let need = if cur.is_empty() {
                word.len()
            } else {
                cur.len() + 1 + word.len()
            };
            if need <= room {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(word);
                break;
            }
            if !cur.is_empty() {
                emit(&mut out, &cur);
                cur.clear();
                continue;
            }
            // A word wider than a whole line: as much as fits, the rest
            // on the next line.
            let (line, rest) = word.split_at(room.min(word.len()));
            emit(&mut out, line);
            word = rest;
            if word.is_empty() {
                break;
            }
        }
    }
    if !cur.is_empty() || out.is_empty() {
        emit(&mut out, &cur);
    }
    out
}

/// A paragraph for a table: escaped, wrapped at [`WIDTH`]. (Builders have
/// escaped the trace text in it already; escaping again changes nothing.)
fn prose(text: &str) -> String {
    wrap(&escape(text), WIDTH, "")
}

/// The report as a table: title line, summary paragraphs, the grid (or the
/// groups' grids, or the empty line), notes.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    if let Some(t) = &r.table_title {
        out.push_str(&escape(t));
        out.push('\n');
    }
    if let Some(e) = r.empty_now().filter(|e| e.whole) {
        out.push_str(e.text);
        out.push('\n');
        return out;
    }
    for p in r.summary.iter().filter_map(|p| p.table.as_deref()) {
        out.push_str(&prose(p));
        out.push('\n');
    }
    match r.empty_now() {
        Some(e) => {
            out.push_str(e.text);
            out.push('\n');
        }
        None => out.push_str(&body(r)),
    }
    for n in r.notes.iter().filter_map(|n| n.table.as_deref()) {
        out.push('\n');
        out.push_str(&prose(n));
    }
    out
}

/// The columns a table shows, and its note and aside columns.
struct Layout<'a> {
    shown: Vec<(usize, &'a Column)>,
    note: Option<usize>,
    aside: Option<(usize, &'static str)>,
}

impl<'a> Layout<'a> {
    fn of(columns: &'a [Column]) -> Layout<'a> {
        let mut l = Layout {
            shown: Vec::new(),
            note: None,
            aside: None,
        };
        for (i, c) in columns.iter().enumerate() {
            match c.table {
                Place::Column => l.shown.push((i, c)),
                Place::Hidden => {}
                Place::Note => l.note = Some(i),
                Place::Aside(header) => l.aside = Some((i, header)),
            }
        }
        l
    }

    fn grid(&self) -> Grid {
        let headers: Vec<&str> = self.shown.iter().map(|(_, c)| c.table_heading()).collect();
        let right: Vec<bool> = self.shown.iter().map(|(_, c)| c.right).collect();
        let flex: Vec<usize> = (0..self.shown.len())
            .filter(|&i| self.shown[i].1.flex)
            .collect();
        Grid::new(&headers, &right).flexible(&flex)
    }

    fn cells(&self, row: &Row) -> Vec<String> {
        self.shown
            .iter()
            .map(|(i, c)| c.read(&row.cells[*i]))
            .collect()
    }

    fn add(&self, g: &mut Grid, r: &Report, row: &Row) {
        match self.note {
            // A row without a note has no line under it.
            Some(n) if row.cells[n] != Cell::None => {
                g.row_with_note(self.cells(row), r.columns[n].read(&row.cells[n]))
            }
            _ => g.row(self.cells(row)),
        }
    }

    /// The (first column, aside column) grid of these rows; none when no
    /// row has an aside.
    fn aside(&self, r: &Report, rows: &[Row]) -> Option<Grid> {
        let (a, header) = self.aside?;
        let &(first, col) = self.shown.first()?;
        let mut g = Grid::new(&[col.table_heading(), header], &[false, false]).flexible(&[0, 1]);
        for row in rows.iter().filter(|row| row.cells[a] != Cell::None) {
            g.row(vec![
                col.read(&row.cells[first]),
                r.columns[a].read(&row.cells[a]),
            ]);
        }
        (!g.rows.is_empty()).then_some(g)
    }
}

/// The grid or grids of a report with rows.
fn body(r: &Report) -> String {
    let l = Layout::of(&r.columns);
    match &r.groups {
        Groups::None | Groups::Sections(_) => {
            let mut g = l.grid();
            // Sections are in row order: a cursor walks them with the rows.
            let mut sections = match &r.groups {
                Groups::Sections(s) => s.as_slice(),
                _ => &[],
            }
            .iter()
            .peekable();
            for (i, row) in r.rows.iter().enumerate() {
                while let Some((_, label)) = sections.next_if(|(at, _)| *at == i) {
                    g.section(escape(label).into_owned());
                }
                l.add(&mut g, r, row);
            }
            let mut out = g.table();
            if let Some(a) = l.aside(r, &r.rows) {
                out.push('\n');
                out.push_str(&a.table());
            }
            out
        }
        Groups::Split(groups) => {
            let mut out = String::new();
            for (i, group) in groups.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&prose(&group.heading));
                out.push('\n');
                let rows = &r.rows[group.rows.clone()];
                let mut g = l.grid();
                for row in rows {
                    l.add(&mut g, r, row);
                }
                out.push_str(&g.table());
                if let Some(a) = l.aside(r, rows) {
                    out.push('\n');
                    out.push_str(&a.table());
                }
                out.push('\n');
                out.push_str(&prose(&group.footer));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_numbers_right() {
        let mut g = Grid::new(&["name", "n"], &[false, true]);
        g.row(vec!["a|b".into(), "7".into()]);
        g.row(vec!["long name".into(), "12".into()]);
        assert_eq!(
            g.table(),
            "name        n\n─────────  ──\na|b         7\nlong name  12\n"
        );
    }

    #[test]
    fn wide_tables_are_fitted_by_their_flexible_columns() {
        let mut g = Grid::new(&["id", "task", "n"], &[false, false, true]).flexible(&[1]);
        g.row(vec!["r".repeat(20), "x".repeat(90), "1234567890".into()]);
        let t = g.table();
        for line in t.lines() {
            assert_eq!(line.chars().count(), 80, "{line}");
        }
        // The cut cell ends with an ellipsis; the other columns are whole.
        let row = t.lines().nth(2).unwrap();
        assert!(
            row.starts_with(&format!("{}  xxx", "r".repeat(20))),
            "{row}"
        );
        assert!(row.ends_with("x…  1234567890"), "{row}");
        // A flexible column is not cut below its floor: then the table
        // stays wider than 80 rather than becoming unreadable.
        let mut g = Grid::new(&["a", "c", "b"], &[false, false, false]).flexible(&[2]);
        g.row(vec!["y".repeat(60), "w".repeat(15), "z".repeat(20)]);
        let line = g.table().lines().nth(2).unwrap().to_string();
        assert_eq!(line.chars().count(), 60 + 2 + 15 + 2 + 10);
        assert!(line.ends_with("  zzzzzzzzz…"), "{line}");
    }

    #[test]
    fn notes_and_sections_in_tables() {
        let mut g = Grid::new(&["kind", "n"], &[false, true]);
        g.section("group one".into());
        g.row_with_note(
            vec!["a".into(), "1".into()],
            "word ".repeat(20).trim().into(),
        );
        assert_eq!(
            g.table(),
            "kind  n\n────  ─\ngroup one\na     1\n\
             \x20   word word word word word word word word word word word word word word word\n\
             \x20   word word word word word\n"
        );
    }

    #[test]
    fn many_sections_each_above_its_row() {
        use crate::report::model::Shape;
        let red = crate::redact::Redactor::default();
        let mut r = Report::new("Rows", Shape::List("rows"), vec![Column::new("n", "n")]);
        let mut sections = Vec::new();
        let mut want = "n\n────\n".to_string();
        for i in 0..3000usize {
            // a label above every third row, and a second one above every
            // ninth; none above the others
            if i % 3 == 0 {
                sections.push((i, format!("every third {i}")));
                want.push_str(&format!("every third {i}\n"));
            }
            if i % 9 == 0 {
                sections.push((i, format!("every ninth {i}\x1b")));
                want.push_str(&format!("every ninth {i}\\x1b\n"));
            }
            r.row(vec![Cell::text(&red, &format!("r{i}"))]);
            want.push_str(&format!("r{i}\n"));
        }
        r.groups = Groups::Sections(sections);
        // (the widest cell, r2999, sets the column's width)
        assert_eq!(render(&r), want.replacen("n\n────\n", "n\n─────\n", 1));
        let mut g = Grid::new(&["k"], &[false]);
        g.section("first".into());
        g.row(vec!["a".into()]);
        g.row(vec!["b".into()]);
        g.section("second".into());
        g.section("third".into());
        g.row(vec!["c".into()]);
        assert_eq!(g.table(), "k\n─\nfirst\na\nb\nsecond\nthird\nc\n");
    }

    #[test]
    fn wide_characters_keep_the_columns_aligned() {
        let mut g = Grid::new(&["tool", "n"], &[false, true]);
        g.row(vec!["検索".into(), "7".into()]);
        g.row(vec!["search".into(), "12".into()]);
        assert_eq!(
            g.table(),
            "tool     n\n──────  ──\n検索     7\nsearch  12\n"
        );
        // cut to a flexible column's width in columns, not characters
        let mut g = Grid::new(&["id", "task"], &[false, false]).flexible(&[1]);
        g.row(vec!["r".repeat(60), "日本語のタスク名です".into()]);
        let row = g.table().lines().nth(2).unwrap().to_string();
        // 18 columns of room: eight wide characters and the ellipsis
        assert_eq!(crate::text::width(&row), 60 + 2 + 17, "{row}");
        assert!(row.ends_with("日本語のタスク名…"), "{row}");
    }

    #[test]
    fn ascii_is_wrapped_as_any_text_is() {
        let texts = [
            "",
            " ",
            "a",
            "one two  three   four",
            "  leading and trailing  ",
            "/id; /limit; /query; /meeting_recording_id",
            &"x".repeat(200),
            &format!("short {} tail", "y".repeat(81)),
            &"ab cd ".repeat(40),
        ];
        for t in texts {
            for (w, indent) in [(80, "    "), (80, ""), (10, "  "), (3, "    "), (1, "")] {
                assert_eq!(wrap(t, w, indent), wrap_chars(t, w, indent), "{t:?} {w}");
            }
        }
    }

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("日本 語で", 5, ""), "日本\n語で\n");
        assert_eq!(wrap("日本語です", 4, ""), "日本\n語で\nす\n");
        assert_eq!(wrap("aa bb cc", 5, ""), "aa bb\ncc\n");
        assert_eq!(
            wrap("abcdefgh", 3, "> "),
            "> a\n> b\n> c\n> d\n> e\n> f\n> g\n> h\n"
        );
        assert_eq!(wrap("", 10, ""), "\n");
        assert_eq!(wrap("é é", 3, ""), "é é\n");
    }

    fn tools_like() -> Report {
        use crate::report::model::{Group, Prose, Shape};
        let mut r = Report::new(
            "Things",
            Shape::List("things"),
            vec![
                Column::new("name", "name"),
                Column::new("n", "count").table_header("n").right(),
                Column::new("why", "why").in_table(Place::Aside("why, in full")),
                Column::new("id", "id").data_only(),
            ],
        );
        r.row(vec![
            Cell::text(&crate::redact::Redactor::default(), "a"),
            Cell::Count(7),
            Cell::None,
            Cell::Int(1),
        ]);
        r.row(vec![
            Cell::text(&crate::redact::Redactor::default(), "b"),
            Cell::Count(12),
            Cell::text(&crate::redact::Redactor::default(), "x y"),
            Cell::Int(2),
        ]);
        r.row(vec![
            Cell::text(&crate::redact::Redactor::default(), "c\u{1b}"),
            Cell::Count(1),
            Cell::None,
            Cell::Int(3),
        ]);
        r.groups = Groups::Split(vec![
            Group {
                rows: 0..2,
                heading: "Group one".into(),
                footer: "End one.".into(),
            },
            Group {
                rows: 2..3,
                heading: "Group two".into(),
                footer: "End two.".into(),
            },
        ]);
        r.notes.push(Prose::markdown("markdown only".into()));
        r
    }

    #[test]
    fn split_groups_get_a_grid_each_with_their_aside_rows() {
        assert_eq!(
            render(&tools_like()),
            "Group one\n\nname   n\n────  ──\na      7\nb     12\n\n\
             name  why, in full\n────  ────────────\nb     x y\n\nEnd one.\n\n\
             Group two\n\nname   n\n─────  ─\nc\\x1b  1\n\nEnd two.\n"
        );
    }

    #[test]
    fn an_empty_report_prints_its_empty_line() {
        use crate::report::model::{Empty, Prose};
        let mut r = tools_like();
        r.rows.clear();
        r.groups = Groups::None;
        r.table_title = Some("Title".into());
        r.summary.push(Prose::both("Summary.".into()));
        r.notes.push(Prose::both("Note.".into()));
        r.empty = Some(Empty {
            text: "Nothing.",
            whole: false,
        });
        assert_eq!(render(&r), "Title\nSummary.\n\nNothing.\n\nNote.\n");
        r.empty = Some(Empty {
            text: "Nothing.",
            whole: true,
        });
        assert_eq!(render(&r), "Title\nNothing.\n");
        // Without an empty line, the header of an empty grid.
        r.empty = None;
        assert_eq!(render(&r), "Title\nSummary.\n\nname  n\n────  ─\n\nNote.\n");
    }
}
