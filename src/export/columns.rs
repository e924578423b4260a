//! The exported tables' columns: a name and a kind per column, the Arrow
//! schema they make, and the builders that collect one batch of rows read
//! from SQLite.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Int64Builder, ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use rusqlite::Row;

use crate::error::{Error, Result, StoredError};
use crate::redact::Redactor;

/// What turns stored values into exported ones: the redactor for every
/// string, and tool names by id for a database that stores name lists as ids
/// (`tool_names`); empty when it stores names.
pub struct Decode<'a> {
    pub redactor: &'a Redactor,
    pub names: &'a HashMap<i64, String>,
}

/// A stored list of tool names: names, or ids of `names`.
pub fn name_list(
    text: &str,
    names: &HashMap<i64, String>,
) -> std::result::Result<Vec<String>, String> {
    let items: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|e| format!("not a JSON list: {e}"))?;
    items
        .into_iter()
        .map(|v| match v {
            serde_json::Value::String(s) => Ok(s),
            serde_json::Value::Number(n) => n
                .as_i64()
                .and_then(|id| names.get(&id).cloned())
                .ok_or_else(|| format!("{n} is not the id of a tool name")),
            v => Err(format!("{v} is not a tool name")),
        })
        .collect()
}

/// How a column is read from SQLite and written to Parquet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text: identifiers, names and free text from a trace (run ids, tool
    /// names, reasons, descriptions, tags) and rung's own words (rungs),
    /// its secrets masked unless `--no-redact`, as the reports mask every
    /// string they print.
    Text,
    /// A 64-bit integer.
    Int,
    /// SQLite's 0/1 as a boolean.
    Bool,
    /// Microseconds since the epoch as a UTC timestamp.
    Time,
    /// A JSON list of strings as a list of strings.
    List,
}

#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
}

pub const fn col(name: &'static str, kind: Kind) -> Column {
    Column { name, kind }
}

/// The Arrow schema of a table: every column nullable (SQLite's NULL).
pub fn schema(columns: &[Column]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| {
            let t = match c.kind {
                Kind::Text => DataType::Utf8,
                Kind::Int => DataType::Int64,
                Kind::Bool => DataType::Boolean,
                Kind::Time => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                Kind::List => DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
            };
            Field::new(c.name, t, true)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

enum Builder {
    Text(StringBuilder),
    Int(Int64Builder),
    Bool(BooleanBuilder),
    Time(TimestampMicrosecondBuilder),
    List(ListBuilder<StringBuilder>),
}

/// One batch of rows being collected, column by column.
pub struct Batch {
    table: &'static str,
    columns: &'static [Column],
    schema: SchemaRef,
    builders: Vec<Builder>,
    rows: usize,
}

impl Batch {
    pub fn new(table: &'static str, columns: &'static [Column], schema: SchemaRef) -> Batch {
        let builders = columns
            .iter()
            .map(|c| match c.kind {
                Kind::Text => Builder::Text(StringBuilder::new()),
                Kind::Int => Builder::Int(Int64Builder::new()),
                Kind::Bool => Builder::Bool(BooleanBuilder::new()),
                Kind::Time => {
                    Builder::Time(TimestampMicrosecondBuilder::new().with_timezone("UTC"))
                }
                Kind::List => Builder::List(ListBuilder::new(StringBuilder::new())),
            })
            .collect();
        Batch {
            table,
            columns,
            schema,
            builders,
            rows: 0,
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Appends one SQLite row: column `i` is the row's value `at(i)`.
    pub fn push(
        &mut self,
        row: &Row<'_>,
        at: &dyn Fn(usize) -> usize,
        decode: &Decode<'_>,
    ) -> Result<()> {
        for (i, (c, b)) in self.columns.iter().zip(&mut self.builders).enumerate() {
            let at = at(i);
            match b {
                Builder::Text(b) => {
                    let v: Option<String> = row.get(at)?;
                    match v {
                        Some(s) => b.append_value(decode.redactor.apply(&s)),
                        None => b.append_null(),
                    }
                }
                Builder::Int(b) => b.append_option(row.get::<_, Option<i64>>(at)?),
                Builder::Bool(b) => b.append_option(row.get::<_, Option<bool>>(at)?),
                Builder::Time(b) => b.append_option(row.get::<_, Option<i64>>(at)?),
                Builder::List(b) => match row.get::<_, Option<String>>(at)? {
                    None => b.append_null(),
                    Some(text) => {
                        let list = name_list(&text, decode.names).map_err(|message| {
                            Error::Stored(StoredError {
                                db: String::new(),
                                table: self.table,
                                row: format!("exported row {}", self.rows + 1),
                                column: c.name,
                                message,
                            })
                        })?;
                        for name in &list {
                            b.values().append_value(decode.redactor.apply(name));
                        }
                        b.append(true);
                    }
                },
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// The rows collected as a record batch; the builders start empty again.
    pub fn take(&mut self) -> Result<RecordBatch> {
        let arrays: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| -> ArrayRef {
                match b {
                    Builder::Text(b) => Arc::new(b.finish()),
                    Builder::Int(b) => Arc::new(b.finish()),
                    Builder::Bool(b) => Arc::new(b.finish()),
                    Builder::Time(b) => Arc::new(b.finish()),
                    Builder::List(b) => Arc::new(b.finish()),
                }
            })
            .collect();
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|e| Error::Io(std::io::Error::other(format!("{}: {e}", self.table))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_lists_are_names_or_ids_of_names() {
        let names = HashMap::from([(3, "search".to_string()), (17, "refund".to_string())]);
        assert_eq!(
            name_list(r#"["refund","search"]"#, &HashMap::new()),
            Ok(vec!["refund".to_string(), "search".to_string()])
        );
        assert_eq!(
            name_list("[17,3]", &names),
            Ok(vec!["refund".to_string(), "search".to_string()])
        );
        assert_eq!(name_list("[]", &names), Ok(vec![]));
        assert_eq!(
            name_list("[4]", &names),
            Err("4 is not the id of a tool name".to_string())
        );
        assert_eq!(
            name_list("[true]", &names),
            Err("true is not a tool name".to_string())
        );
        assert!(
            name_list("{", &names)
                .unwrap_err()
                .starts_with("not a JSON list: ")
        );
    }
}
