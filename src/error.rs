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

/// What went wrong with one record: which record (when its key could be
/// read) and what to fix. The readers and the import batch both return it;
/// the reader adds the file and line.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordError {
    pub record: Option<String>,
    pub message: String,
}

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
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn usage(msg: impl Into<String>) -> Error {
        Error::Usage(msg.into())
    }
}

/// A time that cannot be read is a usage error.
impl From<crate::window::TimeError> for Error {
    fn from(e: crate::window::TimeError) -> Error {
        Error::Usage(e.0)
    }
}
