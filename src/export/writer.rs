//! One exported table written as Parquet files partitioned by day: rows
//! arrive ordered by their day (undated ones first), a batch of
//! [`BATCH_ROWS`] rows at most is held in memory, and each batch becomes a
//! row group of the day's file `TABLE/day=YYYY-MM-DD/part-0.parquet`
//! (`TABLE/day=undated/...` for rows without a time; an unpartitioned
//! table is `TABLE/part-0.parquet`).

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use rusqlite::Row;

use super::columns::{Batch, Column, Decode, schema};
use crate::error::{Error, Result};

/// Rows per batch and per row group: the memory an export holds at once.
pub const BATCH_ROWS: usize = 65_536;

/// The partition of rows that have no time.
pub const UNDATED: &str = "undated";

/// The file name of every partition's (single) file.
pub const PART: &str = "part-0.parquet";

/// The partition directory name of a time: `day=2026-11-30`, `day=undated`.
pub fn day_dir(time_us: Option<i64>) -> String {
    let day = time_us
        .and_then(chrono::DateTime::from_timestamp_micros)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| UNDATED.to_string());
    format!("day={day}")
}

pub struct TableWriter {
    name: &'static str,
    /// `DIR/TABLE` (under the export's staging directory).
    root: PathBuf,
    partitioned: bool,
    schema: SchemaRef,
    batch: Batch,
    /// The partition being written and its file.
    current: Option<(String, PathBuf, ArrowWriter<File>)>,
    pub rows: u64,
    pub files: u64,
}

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(std::io::Error::other(format!("{}: {e}", path.display())))
}

impl TableWriter {
    pub fn new(
        dir: &Path,
        name: &'static str,
        columns: &'static [Column],
        partitioned: bool,
    ) -> TableWriter {
        let schema = schema(columns);
        TableWriter {
            name,
            root: dir.join(name),
            partitioned,
            batch: Batch::new(name, columns, schema.clone()),
            schema,
            current: None,
            rows: 0,
            files: 0,
        }
    }

    /// Adds one row (column `i` is the row's value `at(i)`) to the
    /// partition of `time_us`; rows must come in day order.
    pub fn push(
        &mut self,
        time_us: Option<i64>,
        row: &Row<'_>,
        at: &dyn Fn(usize) -> usize,
        decode: &Decode<'_>,
    ) -> Result<()> {
        let part = if self.partitioned {
            day_dir(time_us)
        } else {
            String::new()
        };
        if self.current.as_ref().map(|c| &c.0) != Some(&part) {
            self.finish_part()?;
            self.open(part)?;
        }
        self.batch.push(row, at, decode)?;
        self.rows += 1;
        if self.batch.rows() >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn open(&mut self, part: String) -> Result<()> {
        let dir = self.root.join(&part);
        std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
        let path = dir.join(PART);
        if path.exists() {
            // Rows of one day must come together; a second file for a day
            // would mean the source was not in day order.
            return Err(io(&path, "written twice: the rows were not in day order"));
        }
        let file = File::create(&path).map_err(|e| io(&path, e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(BATCH_ROWS))
            .set_created_by(format!("rung {}", env!("CARGO_PKG_VERSION")))
            .build();
        let writer = ArrowWriter::try_new(file, self.schema.clone(), Some(props))
            .map_err(|e| io(&path, e))?;
        self.current = Some((part, path, writer));
        self.files += 1;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.batch.rows() == 0 {
            return Ok(());
        }
        let batch = self.batch.take()?;
        let Some((_, path, w)) = self.current.as_mut() else {
            return Ok(());
        };
        w.write(&batch).map_err(|e| io(path, e))?;
        // A row group per batch: what is encoded leaves memory now.
        w.flush().map_err(|e| io(path, e))
    }

    fn finish_part(&mut self) -> Result<()> {
        self.flush()?;
        if let Some((_, path, w)) = self.current.take() {
            w.close().map_err(|e| io(&path, e))?;
        }
        Ok(())
    }

    /// Closes the last file. A table without rows still gets one (empty)
    /// file, so that every table can be read.
    pub fn finish(mut self) -> Result<(u64, u64)> {
        if self.current.is_none() && self.rows == 0 {
            let part = if self.partitioned {
                day_dir(None)
            } else {
                String::new()
            };
            self.open(part)?;
        }
        self.finish_part()?;
        tracing::debug!(
            table = self.name,
            rows = self.rows,
            files = self.files,
            "exported"
        );
        Ok((self.rows, self.files))
    }
}
