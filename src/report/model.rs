//! The row model every report is built as: a title, prose, typed columns and
//! rows of typed cells. A report builds one; `table`, `markdown`, `csv` and
//! `json` render any of them, so a new report is one file that builds a model.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::redact::{Masked, MaskedValue, Redactor};
use crate::text::escape;

/// One value of a row, typed so that each format writes it its own way.
/// Text can only come in masked (see [`Masked`]): a builder makes text
/// cells with [`Cell::text`] and the report's [`Redactor`].
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Text from a trace or the store, secrets masked, otherwise raw: every
    /// renderer escapes it its own way.
    Text(Masked),
    /// A signed whole number (a step, a trial).
    Int(i64),
    /// A count.
    Count(u64),
    /// A share of one: a percent to read (`61.5%`), the full value as data.
    Share(f64),
    /// A number read with `places` decimals, the full value as data.
    Decimal {
        value: f64,
        places: usize,
    },
    /// A rate's numerator over its denominator: `7/8` to read.
    Fraction {
        numerator: u64,
        denominator: u64,
    },
    /// A count with its noun: `1 task`, `3 tasks`.
    Counted {
        n: u64,
        one: &'static str,
        many: &'static str,
    },
    Bool(bool),
    /// Names: comma-separated to read, space-separated in CSV, an array in JSON.
    List(Vec<Masked>),
    /// A JSON value: compact JSON in CSV.
    Json(MaskedValue),
    /// Nothing: empty in CSV, null in JSON, the column's placeholder to read.
    None,
}

impl Cell {
    /// Text, masked by `m`.
    pub fn text(m: &Redactor, s: &str) -> Cell {
        Cell::Text(m.mask_text(s))
    }

    /// rung's own fixed words.
    pub fn ours(s: &'static str) -> Cell {
        Cell::Text(Masked::ours(s))
    }

    /// Text masked by `m`, or [`Cell::None`] when there is none.
    pub fn opt_text(m: &Redactor, s: Option<&str>) -> Cell {
        s.map_or(Cell::None, |s| Cell::text(m, s))
    }

    /// Names, each masked by `m`.
    pub fn list(m: &Redactor, names: &[String]) -> Cell {
        Cell::List(names.iter().map(|s| m.mask_text(s)).collect())
    }

    /// A JSON value, every string in it masked by `m`.
    pub fn json(m: &Redactor, v: &Value) -> Cell {
        Cell::Json(m.mask_value(v))
    }

    pub fn opt_int(n: Option<i64>) -> Cell {
        n.map_or(Cell::None, Cell::Int)
    }

    pub fn opt_count(n: Option<u64>) -> Cell {
        n.map_or(Cell::None, Cell::Count)
    }

    pub fn opt_share(v: Option<f64>) -> Cell {
        v.map_or(Cell::None, Cell::Share)
    }

    pub fn opt_bool(b: Option<bool>) -> Cell {
        b.map_or(Cell::None, Cell::Bool)
    }
}

/// How the table format shows a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A column of the grid.
    Column,
    /// Left out (said some other way, e.g. by the groups, or data only).
    Hidden,
    /// The whole text, indented and wrapped under its row.
    Note,
    /// A second grid under the first, (first column, this column), for the
    /// rows where this cell is not [`Cell::None`]; the header given.
    Aside(&'static str),
}

/// A column: its JSON key (the CSV header), how it reads and where it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The JSON key and CSV header.
    pub key: &'static str,
    /// The header tables and markdown show (a catalogue's name, for a
    /// column per menu).
    pub header: Cow<'static, str>,
    /// The table's header (narrower), when it differs from `header`.
    pub table_header: Option<&'static str>,
    /// Right-aligned (numbers).
    pub right: bool,
    /// May be cut with `…` so a table fits the width.
    pub flex: bool,
    /// What [`Cell::None`] reads as.
    pub none: &'static str,
    /// What true and false read as.
    pub yes_no: (&'static str, &'static str),
    pub csv: bool,
    pub json: bool,
    pub markdown: bool,
    pub table: Place,
}

impl Column {
    /// A column every format shows.
    pub fn new(key: &'static str, header: impl Into<Cow<'static, str>>) -> Column {
        Column {
            key,
            header: header.into(),
            table_header: None,
            right: false,
            flex: false,
            none: "",
            yes_no: ("yes", "no"),
            csv: true,
            json: true,
            markdown: true,
            table: Place::Column,
        }
    }

    pub fn right(mut self) -> Column {
        self.right = true;
        self
    }

    pub fn flex(mut self) -> Column {
        self.flex = true;
        self
    }

    pub fn none(mut self, text: &'static str) -> Column {
        self.none = text;
        self
    }

    pub fn yes_no(mut self, yes: &'static str, no: &'static str) -> Column {
        self.yes_no = (yes, no);
        self
    }

    pub fn table_header(mut self, header: &'static str) -> Column {
        self.table_header = Some(header);
        self
    }

    pub fn in_table(mut self, place: Place) -> Column {
        self.table = place;
        self
    }

    /// Derived for reading (tables and markdown): not in CSV or JSON.
    pub fn reading_only(mut self) -> Column {
        self.csv = false;
        self.json = false;
        self
    }

    /// Data (CSV and JSON) only.
    pub fn data_only(mut self) -> Column {
        self.markdown = false;
        self.table = Place::Hidden;
        self
    }

    /// CSV only (JSON says it once, at the top).
    pub fn csv_only(mut self) -> Column {
        self.json = false;
        self.data_only()
    }

    pub fn markdown_only(mut self) -> Column {
        self.table = Place::Hidden;
        self.reading_only()
    }

    /// The header the table shows.
    pub fn table_heading(&self) -> &str {
        self.table_header.unwrap_or(&self.header)
    }

    /// How a cell of this column reads in a table or in markdown: escaped
    /// text, not yet fitted or quoted.
    pub fn read(&self, cell: &Cell) -> String {
        match cell {
            Cell::Text(s) => s.shown().into_owned(),
            Cell::Int(n) => n.to_string(),
            Cell::Count(n) => n.to_string(),
            Cell::Share(v) => percent(*v),
            Cell::Decimal { value, places } => format!("{value:.places$}"),
            Cell::Fraction {
                numerator,
                denominator,
            } => format!("{numerator}/{denominator}"),
            Cell::Counted { n, one, many } => count(*n, one, many),
            Cell::Bool(b) => (if *b { self.yes_no.0 } else { self.yes_no.1 }).to_string(),
            Cell::List(v) => escape(&join(v, ", ")).into_owned(),
            Cell::Json(v) => crate::text::safe_json(v.get().to_string()),
            Cell::None => self.none.to_string(),
        }
    }
}

/// A row; `reading_only` rows (a "nothing here" line) are left out of CSV
/// and JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub cells: Vec<Cell>,
    pub reading_only: bool,
}

/// A paragraph for tables (wrapped to the width) and markdown (one line):
/// either may be left out or differ. Builders escape what they put in it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prose {
    pub table: Option<String>,
    pub markdown: Option<String>,
}

impl Prose {
    pub fn both(text: String) -> Prose {
        Prose {
            table: Some(text.clone()),
            markdown: Some(text),
        }
    }

    pub fn each(table: String, markdown: String) -> Prose {
        Prose {
            table: Some(table),
            markdown: Some(markdown),
        }
    }

    pub fn markdown(text: String) -> Prose {
        Prose {
            table: None,
            markdown: Some(text),
        }
    }
}

/// How a table groups its rows (markdown shows the rows plain).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Groups {
    #[default]
    None,
    /// Label lines above rows inside one grid: (first row, label), in row
    /// order.
    Sections(Vec<(usize, String)>),
    /// A grid per group, with a heading above and a footer below.
    Split(Vec<Group>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub rows: Range<usize>,
    pub heading: String,
    pub footer: String,
}

/// What shows when there are no rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Empty {
    pub text: &'static str,
    /// The whole report (but the markdown title) is this line; otherwise
    /// it stands in for the table between the prose.
    pub whole: bool,
}

/// How the rows are records for CSV and JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A record per row: a CSV line each, JSON `{list: [{key: value}]}`.
    List(&'static str),
    /// The rows are fields of one record: one CSV line, with a column per
    /// row named by its `key` cell holding its `value` cell; JSON
    /// `{nest: {key: value}}`.
    Wide {
        nest: &'static str,
        key: usize,
        value: usize,
    },
}

/// A report, ready for any format.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The markdown heading (`## title`).
    pub title: String,
    /// A first line for tables, when they have one.
    pub table_title: Option<String>,
    /// Paragraphs above the table.
    pub summary: Vec<Prose>,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub groups: Groups,
    pub empty: Option<Empty>,
    /// Paragraphs below the table.
    pub notes: Vec<Prose>,
    /// Fields of the whole report: in JSON beside the rows, and leading the
    /// one line of a [`Shape::Wide`] CSV.
    pub head: Vec<(&'static str, Cell)>,
    pub shape: Shape,
    /// The JSON, when the spec fixes a shape the rows cannot give.
    pub json: Option<MaskedValue>,
}

impl Report {
    pub fn new(title: &str, shape: Shape, columns: Vec<Column>) -> Report {
        Report {
            title: title.to_string(),
            table_title: None,
            summary: Vec::new(),
            columns,
            rows: Vec::new(),
            groups: Groups::None,
            empty: None,
            notes: Vec::new(),
            head: Vec::new(),
            shape,
            json: None,
        }
    }

    /// A row of cells, one per column.
    pub fn row(&mut self, cells: Vec<Cell>) {
        debug_assert_eq!(cells.len(), self.columns.len(), "a cell per column");
        self.rows.push(Row {
            cells,
            reading_only: false,
        });
    }

    /// A row tables and markdown show but CSV and JSON leave out.
    pub fn reading_row(&mut self, cells: Vec<Cell>) {
        debug_assert_eq!(cells.len(), self.columns.len(), "a cell per column");
        self.rows.push(Row {
            cells,
            reading_only: true,
        });
    }

    /// The rows that are data (CSV and JSON).
    pub fn data_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| !r.reading_only)
    }

    /// The rows replaced by the "empty" line, if there are none.
    pub fn empty_now(&self) -> Option<&Empty> {
        self.empty.as_ref().filter(|_| self.rows.is_empty())
    }
}

/// `61.5%`, one decimal.
pub fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// `1 run`, `2 runs`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Masked texts joined with `sep`.
pub fn join(v: &[Masked], sep: &str) -> String {
    v.iter().map(Masked::as_str).collect::<Vec<_>>().join(sep)
}

/// Text from a trace, masked by `m` and escaped, or `none` when there is
/// none: for prose and headings.
pub fn opt_or(m: &Redactor, s: Option<&str>, none: &str) -> String {
    s.map(|s| esc(m, s)).unwrap_or_else(|| none.to_string())
}

/// Text from a trace, masked by `m` and escaped: for prose and headings.
pub fn esc(m: &Redactor, s: &str) -> String {
    m.show(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_by_their_type_and_column() {
        let m = Redactor::default();
        let c = Column::new("k", "k").none("-").yes_no("yes", "");
        assert_eq!(c.read(&Cell::text(&m, "a\u{1b}[2Jb")), "a\\x1b[2Jb");
        assert_eq!(
            c.read(&Cell::text(&m, "key sk-proj-4f9aQ2xLk81abcd")),
            "key ••••"
        );
        assert_eq!(c.read(&Cell::Share(0.615)), "61.5%");
        assert_eq!(
            c.read(&Cell::Decimal {
                value: 0.25,
                places: 3
            }),
            "0.250"
        );
        assert_eq!(
            c.read(&Cell::Fraction {
                numerator: 7,
                denominator: 8
            }),
            "7/8"
        );
        let tasks = |n| Cell::Counted {
            n,
            one: "task",
            many: "tasks",
        };
        assert_eq!(c.read(&tasks(1)), "1 task");
        assert_eq!(c.read(&tasks(0)), "0 tasks");
        assert_eq!(c.read(&Cell::Bool(true)), "yes");
        assert_eq!(c.read(&Cell::Bool(false)), "");
        assert_eq!(c.read(&Cell::None), "-");
        assert_eq!(
            c.read(&Cell::list(&m, &["a".into(), "b\n".into()])),
            "a, b\\n"
        );
        let off = Redactor::new(&[], true).unwrap();
        assert_eq!(
            c.read(&Cell::text(&off, "key sk-proj-4f9aQ2xLk81abcd")),
            "key sk-proj-4f9aQ2xLk81abcd"
        );
    }
}
