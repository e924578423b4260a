//! A list report written a row at a time, so that a listing of any length
//! takes little memory: the same text, in every format, as rendering the
//! whole [`Report`]. For reports of [`Shape::List`] with no head fields, no
//! reading-only rows and a table of plain columns (no note or aside
//! column), with section labels above rows; a report with JSON of its own
//! gives its head ([`Stream::json_head`]) and rows ([`Stream::json_row`]). A table's column
//! widths are measured in a first pass ([`Stream::natural`]).

use serde_json::{Map, Value};

use super::Format;
use super::model::{Cell, Place, Report, Shape};
use super::table::{Natural, WIDTH, line, rule, wrap};
use crate::error::Result;
use crate::text::{escape, escape_multiline, safe_json, truncate};

/// The writer of one report's rows in one format.
#[derive(Clone)]
pub struct Stream<'a> {
    r: &'a Report,
    format: Format,
    /// The columns the format shows, by index.
    shown: Vec<usize>,
    /// Table column widths.
    widths: Vec<usize>,
    right: Vec<bool>,
    rows: u64,
}

impl<'a> Stream<'a> {
    /// The table's columns, by index, in a template these rows suit.
    fn table_columns(r: &Report) -> Vec<usize> {
        debug_assert!(matches!(r.shape, Shape::List(_)) && r.head.is_empty());
        debug_assert!(
            r.columns
                .iter()
                .all(|c| matches!(c.table, Place::Column | Place::Hidden))
        );
        (0..r.columns.len())
            .filter(|&i| r.columns[i].table == Place::Column)
            .collect()
    }

    /// A first pass's measure of a table's columns: [`Stream::measure`]
    /// each row.
    pub fn natural(template: &Report) -> Natural {
        let headers: Vec<String> = Self::table_columns(template)
            .iter()
            .map(|&i| template.columns[i].table_heading().to_string())
            .collect();
        Natural::new(&headers)
    }

    /// Measures one row of cells for a table.
    pub fn measure(template: &Report, natural: &mut Natural, cells: &[Cell]) {
        let read: Vec<String> = Self::table_columns(template)
            .iter()
            .map(|&i| template.columns[i].read(&cells[i]))
            .collect();
        natural.add(&read);
    }

    /// A table's columns measured over every row of the batches `produce`
    /// hands over: `rows` gives a batch's rows to measure, and the batches
    /// are measured on two threads ([`super::parallel::ordered`]).
    pub fn measure_all<B: Send>(
        template: &Report,
        produce: impl FnOnce(&mut dyn FnMut(B) -> Result<()>) -> Result<()>,
        rows: impl Fn(B, &mut dyn FnMut(&[Cell])) + Sync,
    ) -> Result<Natural> {
        let mut natural = Self::natural(template);
        super::parallel::ordered(
            produce,
            |batch| {
                let mut n = Self::natural(template);
                rows(batch, &mut |cells| Self::measure(template, &mut n, cells));
                n
            },
            |n| {
                natural.merge(&n);
                Ok(())
            },
        )?;
        Ok(natural)
    }

    /// Writes every row of the batches `produce` hands over, each batch
    /// with how many rows come before it: `rows` writes a batch's rows
    /// with the writer it is given. The batches are written on two threads
    /// ([`super::parallel::ordered`]) and `write` gets their text in order.
    pub fn write_all<B: Send>(
        &self,
        produce: impl FnOnce(&mut dyn FnMut((u64, B)) -> Result<()>) -> Result<()>,
        rows: impl Fn(B, &mut Stream<'a>, &mut String) + Sync,
        mut write: impl FnMut(&str) -> Result<()> + Send,
    ) -> Result<()> {
        super::parallel::ordered(
            produce,
            |(first, batch)| {
                let mut s = self.after(first);
                let mut text = String::new();
                rows(batch, &mut s, &mut text);
                text
            },
            |text| write(&text),
        )
    }

    /// A writer for the rows of `template` (which has none); `natural` is
    /// the first pass's measure for a table.
    pub fn new(template: &'a Report, format: Format, natural: &Natural) -> Stream<'a> {
        let r = template;
        let shown: Vec<usize> = match format {
            Format::Table => Self::table_columns(r),
            Format::Markdown => (0..r.columns.len())
                .filter(|&i| r.columns[i].markdown)
                .collect(),
            Format::Csv => (0..r.columns.len()).filter(|&i| r.columns[i].csv).collect(),
            Format::Json => (0..r.columns.len())
                .filter(|&i| r.columns[i].json)
                .collect(),
        };
        let (widths, right) = if format == Format::Table {
            let flex: Vec<bool> = shown.iter().map(|&i| r.columns[i].flex).collect();
            let right = shown.iter().map(|&i| r.columns[i].right).collect();
            (natural.fit(&flex), right)
        } else {
            (Vec::new(), Vec::new())
        };
        Stream {
            r,
            format,
            shown,
            widths,
            right,
            rows: 0,
        }
    }

    /// This writer as it stands after `rows` rows (for a batch of rows
    /// written apart from those before it).
    pub fn after(&self, rows: u64) -> Stream<'a> {
        Stream {
            rows,
            ..self.clone()
        }
    }

    /// Everything before the first row.
    pub fn head(&self) -> String {
        let r = self.r;
        let mut out = String::new();
        match self.format {
            Format::Table => {
                if let Some(t) = &r.table_title {
                    out.push_str(&escape(t));
                    out.push('\n');
                }
                for p in r.summary.iter().filter_map(|p| p.table.as_deref()) {
                    out.push_str(&wrap(&escape(p), WIDTH, ""));
                    out.push('\n');
                }
                let headers: Vec<String> = self
                    .shown
                    .iter()
                    .map(|&i| r.columns[i].table_heading().to_string())
                    .collect();
                out.push_str(&line(&headers, &self.widths, &self.right));
                out.push_str(&rule(&self.widths, &self.right));
            }
            Format::Markdown => {
                use super::markdown::{cell, prose};
                out.push_str(&format!("## {}\n\n", escape_multiline(&r.title)));
                for p in r.summary.iter().filter_map(|p| p.markdown.as_deref()) {
                    out.push_str(&prose(p));
                    out.push('\n');
                }
                out.push('|');
                for &i in &self.shown {
                    out.push_str(&format!(" {} |", cell(&r.columns[i].header)));
                }
                out.push_str("\n|");
                for &i in &self.shown {
                    out.push_str(if r.columns[i].right {
                        " ---: |"
                    } else {
                        " --- |"
                    });
                }
                out.push('\n');
            }
            Format::Csv => {
                let headers: Vec<Cell> = self
                    .shown
                    .iter()
                    .map(|&i| Cell::ours(r.columns[i].key))
                    .collect();
                out.push_str(&csv_line(headers.iter()));
            }
            Format::Json => {
                // (A one-record report is never streamed.)
                let (Shape::List(list) | Shape::Wide { nest: list, .. }) = r.shape;
                out.push_str(&format!("{{\n  {}: [\n", Value::from(list)));
            }
        }
        out
    }

    /// Writes one row (after its section label, if it starts a section)
    /// to `out`.
    pub fn row(&mut self, section: Option<&str>, cells: &[Cell], out: &mut String) {
        let r = self.r;
        match self.format {
            Format::Table => {
                if let Some(label) = section {
                    out.push_str(&truncate(&escape(label), WIDTH));
                    out.push('\n');
                }
                let read: Vec<String> = self
                    .shown
                    .iter()
                    .map(|&i| r.columns[i].read(&cells[i]))
                    .collect();
                out.push_str(&line(&read, &self.widths, &self.right));
            }
            Format::Markdown => {
                out.push('|');
                for &i in &self.shown {
                    let text = super::markdown::cell(&r.columns[i].read(&cells[i]));
                    out.push_str(&format!(" {text} |"));
                }
                out.push('\n');
            }
            Format::Csv => out.push_str(&csv_line(self.shown.iter().map(|&i| &cells[i]))),
            Format::Json => {
                let obj: Map<String, Value> = self
                    .shown
                    .iter()
                    .map(|&i| (r.columns[i].key.to_string(), super::json::value(&cells[i])))
                    .collect();
                self.json_row(&Value::from(obj), out);
                return;
            }
        }
        self.rows += 1;
    }

    /// Writes one JSON row given whole (for a report whose JSON is not its
    /// columns': see [`Stream::json_head`]).
    pub fn json_row(&mut self, row: &Value, out: &mut String) {
        if self.rows > 0 {
            out.push_str(",\n");
        }
        // Pretty JSON two levels in: four more spaces a line.
        let text = safe_json(format!("{row:#}"));
        for (n, l) in text.split('\n').enumerate() {
            if n > 0 {
                out.push('\n');
            }
            out.push_str("    ");
            out.push_str(l);
        }
        self.rows += 1;
    }

    /// The JSON before the first row for a report whose JSON is its own:
    /// `whole` is that JSON with an empty list under the last key.
    pub fn json_head(whole: &Value) -> String {
        let text = safe_json(format!("{whole:#}"));
        let head = text.strip_suffix("[]\n}");
        debug_assert!(head.is_some(), "the list is the last key: {text}");
        format!("{}[\n", head.unwrap_or(&text))
    }

    /// Everything after the last row.
    pub fn tail(&self) -> String {
        let r = self.r;
        let mut out = String::new();
        match self.format {
            Format::Table => {
                for n in r.notes.iter().filter_map(|n| n.table.as_deref()) {
                    out.push('\n');
                    out.push_str(&wrap(&escape(n), WIDTH, ""));
                }
            }
            Format::Markdown => {
                for n in r.notes.iter().filter_map(|n| n.markdown.as_deref()) {
                    out.push('\n');
                    out.push_str(&super::markdown::prose(n));
                }
            }
            Format::Csv => {}
            Format::Json => out.push_str("\n  ]\n}\n"),
        }
        out
    }
}

/// One CSV line (CRLF) of fields.
fn csv_line<'c>(cells: impl Iterator<Item = &'c Cell>) -> String {
    let mut s = cells.map(super::csv::field).collect::<Vec<_>>().join(",");
    s.push_str("\r\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Rung;
    use crate::redact::Redactor;
    use crate::report::runs;
    use crate::store::query::RunRow;

    fn run(id: &str, model: Option<&str>, trial: Option<i64>, expected: Option<bool>) -> RunRow {
        RunRow {
            run_id: id.into(),
            task_id: Some(format!("task|{id}\u{1b}[31m, \"=x\" <b>")),
            trial,
            model: model.map(str::to_string),
            catalogue: Some("cat-1".into()),
            decisions: 3,
            first_failed_rung: Some(Rung::Selection).filter(|_| trial == Some(2)),
            success: trial.map(|t| t == 1),
            harm: None,
            as_expected: expected,
        }
    }

    /// The text `runs::write` gives for `list`, as the CLI prints it.
    fn streamed(list: &[RunRow], format: Format) -> String {
        let m = Redactor::default();
        let mut tally = crate::store::query::RunTally::default();
        list.iter().for_each(|r| tally.add(r));
        let mut out = String::new();
        let read = |each: &mut dyn FnMut(RunRow) -> crate::error::Result<()>| {
            list.iter().try_for_each(|r| each(r.clone()))
        };
        runs::write(&tally, &read, format, &m, &mut |text| {
            out.push_str(text);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn streamed_runs_read_as_the_whole_report_in_every_format() {
        let long = "x".repeat(90);
        let lists = [
            vec![
                run("r1", Some("m-a"), Some(1), None),
                run("r2", Some("m-a"), Some(2), None),
                run("r3", None, None, None),
                run(&long, Some("m-b"), Some(1), None),
            ],
            vec![
                run("r1", Some("m-a"), Some(1), Some(true)),
                run("r2", Some("m-a"), Some(2), Some(false)),
                run("r3", Some("m-a"), None, None),
            ],
            vec![run("only", Some("m"), Some(1), None)],
            vec![],
            // Batches of runs rendered apart: a new stretch inside the
            // second batch, the widest run id in the last.
            (0..1300)
                .map(|i| {
                    let id = if i == 1299 {
                        format!("r{i:04}-{}", "w".repeat(30))
                    } else {
                        format!("r{i:04}")
                    };
                    let model = if i < 700 { "m-a" } else { "m-b" };
                    run(&id, Some(model), Some(i % 3), Some(i % 5 == 0))
                })
                .collect(),
        ];
        let m = Redactor::default();
        for list in &lists {
            for format in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
                let whole = crate::report::render(&runs::build(list, &m), format);
                assert_eq!(streamed(list, format), whole, "{format:?}");
            }
        }
        // The first list's table: sections above their runs, the long run
        // id cut, escapes shown.
        let table = streamed(&lists[0], Format::Table);
        assert_eq!(
            table.lines().nth(4).unwrap(),
            "model m-a · catalogue cat-1",
            "{table}"
        );
        assert!(table.contains("model - · catalogue cat-1\nr3"), "{table}");
        assert!(table.contains("  task|r1\\x…      1"), "{table}");
        // The 1,300 runs: two stretches, every run once, in order.
        let table = streamed(&lists[4], Format::Table);
        assert_eq!(table.matches("model m-").count(), 2, "{table}");
        let json: serde_json::Value =
            serde_json::from_str(&streamed(&lists[4], Format::Json)).unwrap();
        let ids: Vec<&str> = json["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["run_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids.len(), 1300);
        assert_eq!((ids[0], ids[700]), ("r0000", "r0700"));
        assert!(ids[1299].starts_with("r1299-www"));
    }
}
