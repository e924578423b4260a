//! The CSV format (RFC 4180, CRLF lines): a header row of the JSON keys and
//! a line per data row, or one line for a report that is one record.

use super::model::{Cell, Report, Shape, join};
use crate::text::{escape, safe_json};

/// One CSV field from one cell: every field (headers too) is written here,
/// so escaping for spreadsheets is made in one place. Text is escaped for a
/// terminal, kept from being read as a formula (see [`inert`]) and quoted
/// when it needs to be.
pub fn field(cell: &Cell) -> String {
    let text = match cell {
        Cell::Text(s) => inert(s.shown().into_owned()),
        Cell::Int(n) => n.to_string(),
        Cell::Count(n) => n.to_string(),
        Cell::Share(v) | Cell::Decimal { value: v, .. } => v.to_string(),
        Cell::Fraction {
            numerator,
            denominator,
        } => format!("{numerator}/{denominator}"),
        Cell::Counted { n, .. } => n.to_string(),
        Cell::Bool(b) => b.to_string(),
        // Spaces, not commas: the names stay one unquoted field.
        Cell::List(v) => inert(escape(&join(v, " ")).into_owned()),
        Cell::Json(v) => safe_json(v.get().to_string()),
        Cell::None => String::new(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// Text a spreadsheet would take for a formula (starting with `=`, `+`,
/// `-`, `@`, a tab or a carriage return) gets a `'` in front, unless it is
/// a number (`-1.5`, `+7`).
fn inert(text: String) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.parse::<f64>().is_err() {
        format!("'{text}")
    } else {
        text
    }
}

fn line<'a>(cells: impl Iterator<Item = &'a Cell>) -> String {
    let mut s = cells.map(field).collect::<Vec<_>>().join(",");
    s.push_str("\r\n");
    s
}

/// The report as CSV.
pub fn render(r: &Report) -> String {
    match r.shape {
        Shape::List(_) => {
            let cols: Vec<usize> = (0..r.columns.len()).filter(|&i| r.columns[i].csv).collect();
            let headers: Vec<Cell> = cols.iter().map(|&i| Cell::ours(r.columns[i].key)).collect();
            let mut out = line(headers.iter());
            for row in r.data_rows() {
                out.push_str(&line(cols.iter().map(|&i| &row.cells[i])));
            }
            out
        }
        // One line, so that weekly files append cleanly.
        Shape::Wide { key, value, .. } => {
            let headers: Vec<Cell> = r.head.iter().map(|(k, _)| Cell::ours(k)).collect();
            let mut out = line(
                headers
                    .iter()
                    .chain(r.data_rows().map(|row| &row.cells[key])),
            );
            out.push_str(&line(
                r.head
                    .iter()
                    .map(|(_, c)| c)
                    .chain(r.data_rows().map(|row| &row.cells[value])),
            ));
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Redactor;
    use crate::report::model::{Column, Report};

    fn t(s: &str) -> Cell {
        Cell::text(&Redactor::default(), s)
    }

    #[test]
    fn csv_quotes_per_rfc4180() {
        assert_eq!(field(&t("x,y")), "\"x,y\"");
        assert_eq!(field(&t("say \"hi\"")), "\"say \"\"hi\"\"\"");
        assert_eq!(field(&t("a\nb")), "a\\nb");
        assert_eq!(
            field(&Cell::list(&Redactor::default(), &["a".into(), "b".into()])),
            "a b"
        );
        assert_eq!(
            field(&Cell::json(
                &Redactor::default(),
                &serde_json::json!({"x": 1, "y": 2})
            )),
            "\"{\"\"x\"\":1,\"\"y\"\":2}\""
        );
        assert_eq!(field(&Cell::None), "");
    }

    #[test]
    fn text_that_looks_like_a_formula_gets_an_apostrophe() {
        let text = |s: &str| field(&t(s));
        assert_eq!(
            text("=HYPERLINK(\"http://x\")"),
            "\"'=HYPERLINK(\"\"http://x\"\")\""
        );
        assert_eq!(text("+1+cmd"), "'+1+cmd");
        assert_eq!(text("-2+3"), "'-2+3");
        assert_eq!(text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(text("-"), "'-");
        // control characters are escaped first: a tab is no longer one
        assert_eq!(text("\tx"), "\\tx");
        assert_eq!(text("a=b"), "a=b");
        // numbers written as text, and number cells, stay as they are
        assert_eq!(text("-1.5"), "-1.5");
        assert_eq!(text("+7"), "+7");
        assert_eq!(field(&Cell::Int(-3)), "-3");
        assert_eq!(field(&Cell::Share(-0.25)), "-0.25");
        assert_eq!(
            field(&Cell::list(
                &Redactor::default(),
                &["=cmd".into(), "b".into()]
            )),
            "'=cmd b"
        );
    }

    #[test]
    fn a_list_has_a_line_per_data_row_and_a_wide_report_one_line() {
        let cols = || {
            vec![
                Column::new("name", "name"),
                Column::new("n", "n"),
                Column::new("shown", "shown").reading_only(),
            ]
        };
        let mut r = Report::new("T", Shape::List("t"), cols());
        r.row(vec![t("a"), Cell::Count(1), t("x")]);
        r.reading_row(vec![t("none"), Cell::None, Cell::None]);
        r.row(vec![t("b"), Cell::Share(0.5), t("y")]);
        assert_eq!(render(&r), "name,n\r\na,1\r\nb,0.5\r\n");
        let mut r = Report::new(
            "T",
            Shape::Wide {
                nest: "by",
                key: 0,
                value: 1,
            },
            cols(),
        );
        r.head.push(("total", Cell::Count(3)));
        r.row(vec![t("a"), Cell::Count(1), Cell::None]);
        r.row(vec![t("b"), Cell::Count(2), Cell::None]);
        assert_eq!(render(&r), "total,a,b\r\n3,1,2\r\n");
    }
}
