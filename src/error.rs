//! Errors that reach the user, each with what to do next.

use std::fmt;

/// An input problem located in a trace: `path:line: record: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub path: Option<String>,
    pub line: Option<u64>,
    pub record: Option<String>,
    pub message: String,
}

impl InputError {
    pub fn at(
        path: &str,
        line: Option<u64>,
        record: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        InputError {
            path: Some(path.to_string()),
            line,
            record,
            message: message.into(),
        }
    }

    pub fn plain(message: impl Into<String>) -> Self {
        InputError {
            path: None,
            line: None,
            record: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(p), Some(l)) => write!(f, "{p}:{l}: ")?,
            (Some(p), None) => write!(f, "{p}: ")?,
            _ => {}
        }
        if let Some(r) = &self.record {
            write!(f, "{r}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

/// A record that cannot be kept as it is: which record (when its key could
/// be read) and what to fix. The readers and the import batch both return
/// it; the reader adds the file and line.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidRecord {
    pub record: Option<String>,
    pub message: String,
}

/// Why the import batch did not keep a record.
#[derive(Debug)]
pub enum RecordError {
    /// The record is wrong: skipped (and reported) under `--keep-going`,
    /// the import's error otherwise.
    Invalid(InvalidRecord),
    /// The database failed, or what it holds does not decode: the import
    /// stops, whatever `--keep-going` says, and it is never reported as a
    /// bad record.
    Db(Box<Error>),
}

impl From<InvalidRecord> for RecordError {
    fn from(e: InvalidRecord) -> RecordError {
        RecordError::Invalid(e)
    }
}

impl From<Error> for RecordError {
    fn from(e: Error) -> RecordError {
        RecordError::Db(Box::new(e))
    }
}

impl From<serde_json::Error> for RecordError {
    fn from(e: serde_json::Error) -> RecordError {
        RecordError::Db(Box::new(Error::Json(e)))
    }
}

impl From<rusqlite::Error> for RecordError {
    fn from(e: rusqlite::Error) -> RecordError {
        RecordError::Db(Box::new(Error::Db(e)))
    }
}

/// A stored value that does not decode: the database, table, row and
/// column it came from. rung wrote it, so the database was damaged (or
/// written by something else) since.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredError {
    /// The database file (empty for an in-memory one).
    pub db: String,
    pub table: &'static str,
    /// The row as a user finds it again: `row id 17 (run "r-1" step 3)`.
    pub row: String,
    pub column: &'static str,
    pub message: String,
}

impl fmt::Display for StoredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.db.is_empty() {
            write!(f, "{}: ", self.db)?;
        }
        write!(
            f,
            "table {}, {}, column {}: {}",
            self.table, self.row, self.column, self.message
        )
    }
}

impl std::error::Error for StoredError {}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input in a trace (exit 2).
    #[error("{0}")]
    Input(#[from] InputError),
    /// A command used wrongly (exit 2).
    #[error("{0}")]
    Usage(String),
    #[error("database error: {0}")]
    Db(#[from] rusqlite::Error),
    /// A stored value that does not decode (exit 2, never a default).
    #[error("{0}")]
    Stored(#[from] StoredError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A value rung could not write as JSON (a map key that is not a
    /// string, or a serialiser that failed).
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn usage(msg: impl Into<String>) -> Error {
        Error::Usage(msg.into())
    }
}

/// `[redact] patterns[1] "ab(": not a valid regular expression: ...`
impl fmt::Display for crate::redact::BadPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[redact] patterns[{}] {}: not a valid regular expression: {}",
            self.index,
            crate::text::echo(&self.pattern),
            self.message
        )
    }
}

/// A configured pattern that does not compile is a usage error.
impl From<crate::redact::BadPattern> for Error {
    fn from(e: crate::redact::BadPattern) -> Error {
        Error::Usage(e.to_string())
    }
}

/// A time that cannot be read is a usage error.
impl From<crate::window::TimeError> for Error {
    fn from(e: crate::window::TimeError) -> Error {
        Error::Usage(e.0)
    }
}
