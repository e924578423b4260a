//! Where the readers put what they read. The store's import batch is the
//! sink rung uses; the readers know only this trait, so reading traces does
//! not depend on how or where records are kept.

use crate::error::RecordError;
use crate::model::Record;

/// Takes validated records, one at a time, in the order they were read.
pub trait RecordSink {
    /// A record made ready to be kept. Preparing needs no sink, so the
    /// reading thread does it while the sink is busy with earlier records.
    type Prepared: Send;

    /// Prepares `record`; `line_len` is the size of the line it came from
    /// (0 when unknown), a hint for the size of what is kept.
    fn prepare(record: Record, line_len: usize) -> Self::Prepared;

    /// Keeps a prepared record. `source` is `path:line`. On error nothing
    /// of the record was kept.
    fn add_prepared(&mut self, source: &str, record: Self::Prepared) -> Result<(), RecordError>;

    /// Keeps one record (see [`RecordSink::add_prepared`]).
    fn add(&mut self, source: &str, record: Record) -> Result<(), RecordError>
    where
        Self: Sized,
    {
        self.add_prepared(source, Self::prepare(record, 0))
    }

    /// Notes a record of a type this rung does not know (`at`: `path:line`).
    fn unknown_type(&mut self, ty: &str, at: &str);

    /// Whether bad records are skipped (each reported) rather than fatal.
    fn keep_going(&self) -> bool;

    /// Counts a bad record skipped under `keep_going`.
    fn skipped(&mut self);
}
