//! Stored payloads (arguments, results, raw lines), read by size and in
//! pieces through incremental blob I/O: a 100 MB result is never read whole.

use rusqlite::Connection;

use crate::error::Result;

/// A stored payload of a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadColumn {
    Arguments,
    Result,
    Raw,
}

impl PayloadColumn {
    pub fn as_str(self) -> &'static str {
        match self {
            PayloadColumn::Arguments => "arguments",
            PayloadColumn::Result => "result",
            PayloadColumn::Raw => "raw",
        }
    }

    fn column(self) -> &'static std::ffi::CStr {
        match self {
            PayloadColumn::Arguments => c"arguments",
            PayloadColumn::Result => c"result",
            PayloadColumn::Raw => c"raw",
        }
    }
}

/// Byte length of a stored payload without reading it.
pub fn payload_bytes(conn: &Connection, decision_id: i64, col: PayloadColumn) -> Option<u64> {
    conn.blob_open(
        rusqlite::MAIN_DB,
        c"payloads",
        col.column(),
        decision_id,
        true,
    )
    .ok()
    .map(|b| b.len() as u64)
}

/// An open payload for reading piece by piece. Keep one open while reading
/// a payload in sequence: SQLite remembers where it is in the value's
/// overflow pages, while a fresh handle walks them from the start.
pub struct PayloadReader<'c> {
    blob: rusqlite::blob::Blob<'c>,
}

impl<'c> PayloadReader<'c> {
    pub fn open(conn: &'c Connection, decision_id: i64, col: PayloadColumn) -> Result<Self> {
        let blob = conn.blob_open(
            rusqlite::MAIN_DB,
            c"payloads",
            col.column(),
            decision_id,
            true,
        )?;
        Ok(PayloadReader { blob })
    }

    pub fn len(&self) -> u64 {
        self.blob.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Up to `len` bytes from byte `offset`.
    pub fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let size = self.len();
        let start = offset.min(size);
        let n = (len as u64).min(size - start) as usize;
        let mut buf = vec![0u8; n];
        self.blob.read_at_exact(&mut buf, start as usize)?;
        Ok(buf)
    }
}

/// Up to `len` bytes of a stored payload from byte `offset` (incremental
/// blob I/O: a 100 MB result is never read whole).
pub fn payload_read(
    conn: &Connection,
    decision_id: i64,
    col: PayloadColumn,
    offset: u64,
    len: usize,
) -> Result<Vec<u8>> {
    let blob = conn.blob_open(
        rusqlite::MAIN_DB,
        c"payloads",
        col.column(),
        decision_id,
        true,
    )?;
    let size = blob.len() as u64;
    let start = offset.min(size);
    let n = (len as u64).min(size - start) as usize;
    let mut buf = vec![0u8; n];
    blob.read_at_exact(&mut buf, start as usize)?;
    Ok(buf)
}
