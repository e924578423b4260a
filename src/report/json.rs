//! The JSON format: the report's head fields beside its rows as objects
//! keyed by the columns' JSON keys (or, for a one-record report, the rows
//! as one object), unless the report carries the spec's fixed shape.

use serde_json::{Map, Number, Value};

use super::model::{Cell, Report, Shape};
use crate::text::safe_json;

/// Pretty JSON, safe for a terminal, with a final newline.
pub fn json_text(v: &Value) -> String {
    // `{:#}` is serde_json's pretty printer (two-space indent).
    let mut s = safe_json(format!("{v:#}"));
    s.push('\n');
    s
}

/// A cell as JSON: text raw (escaping is for the terminal, after).
pub fn value(cell: &Cell) -> Value {
    let float = |v: f64| Number::from_f64(v).map_or(Value::Null, Value::Number);
    match cell {
        Cell::Text(s) => Value::String(s.as_str().to_string()),
        Cell::Int(n) => (*n).into(),
        Cell::Count(n) => (*n).into(),
        Cell::Share(v) | Cell::Decimal { value: v, .. } => float(*v),
        Cell::Fraction {
            numerator,
            denominator,
        } => serde_json::json!({"numerator": numerator, "denominator": denominator}),
        Cell::Counted { n, .. } => (*n).into(),
        Cell::Bool(b) => Value::Bool(*b),
        Cell::List(v) => v
            .iter()
            .map(|s| Value::String(s.as_str().to_string()))
            .collect(),
        Cell::Json(v) => v.get().clone(),
        Cell::None => Value::Null,
    }
}

/// The report as JSON.
pub fn render(r: &Report) -> String {
    json_text(&to_value(r))
}

/// The report's JSON value.
pub fn to_value(r: &Report) -> Value {
    if let Some(v) = &r.json {
        return v.get().clone();
    }
    let mut obj: Map<String, Value> = r
        .head
        .iter()
        .map(|(k, c)| (k.to_string(), value(c)))
        .collect();
    match r.shape {
        Shape::List(list) => {
            let rows = r
                .data_rows()
                .map(|row| {
                    r.columns
                        .iter()
                        .zip(&row.cells)
                        .filter(|(c, _)| c.json)
                        .map(|(c, cell)| (c.key.to_string(), value(cell)))
                        .collect::<Map<_, _>>()
                        .into()
                })
                .collect::<Vec<Value>>();
            obj.insert(list.to_string(), rows.into());
        }
        Shape::Wide {
            nest,
            key,
            value: v,
        } => {
            let fields: Map<String, Value> = r
                .data_rows()
                .map(|row| (key_text(&row.cells[key]), value(&row.cells[v])))
                .collect();
            obj.insert(nest.to_string(), fields.into());
        }
    }
    obj.into()
}

/// A cell naming a field of a one-record report.
fn key_text(cell: &Cell) -> String {
    match value(cell) {
        Value::String(s) => s,
        v => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Redactor;
    use crate::report::model::Column;

    fn t(s: &str) -> Cell {
        Cell::text(&Redactor::default(), s)
    }
    use serde_json::json;

    #[test]
    fn rows_become_objects_of_their_json_columns() {
        let mut r = Report::new(
            "T",
            Shape::List("things"),
            vec![
                Column::new("name", "name"),
                Column::new("tags", "tags"),
                Column::new("share", "share"),
                Column::new("since", "since").csv_only(),
                Column::new("shown", "shown").reading_only(),
            ],
        );
        r.head.push(("total", Cell::Count(1)));
        r.row(vec![
            t("a\u{1b}"),
            Cell::list(&Redactor::default(), &["x".into()]),
            Cell::Share(0.25),
            t("2026-01-01T00:00:00Z"),
            t("25.0%"),
        ]);
        r.reading_row(vec![
            Cell::None,
            Cell::None,
            Cell::None,
            Cell::None,
            Cell::None,
        ]);
        r.row(vec![
            Cell::None,
            Cell::list(&Redactor::default(), &[]),
            Cell::Share(f64::NAN),
            Cell::None,
            Cell::None,
        ]);
        assert_eq!(
            to_value(&r),
            json!({"total": 1, "things": [
                {"name": "a\u{1b}", "tags": ["x"], "share": 0.25},
                {"name": null, "tags": [], "share": null},
            ]})
        );
        // The terminal sees the control character escaped.
        assert!(render(&r).contains(r#""name": "a\u001b""#));
    }

    #[test]
    fn a_wide_report_is_one_object() {
        let mut r = Report::new(
            "T",
            Shape::Wide {
                nest: "by",
                key: 0,
                value: 1,
            },
            vec![Column::new("k", "k"), Column::new("n", "n")],
        );
        r.head.push(("total", Cell::Count(3)));
        r.row(vec![t("a"), Cell::Count(1)]);
        r.row(vec![t("b"), Cell::Count(2)]);
        assert_eq!(to_value(&r), json!({"total": 3, "by": {"a": 1, "b": 2}}));
    }
}
