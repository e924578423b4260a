//! A source file's fingerprint, by which `rung import` knows a file it has
//! imported before: its size, modification time and a hash of its content
//! (all of it up to [`WHOLE`]; beyond, its first and last MB and
//! [`BLOCKS`] blocks spread between, so that a large file is recognised
//! without reading it).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use sha2::{Digest, Sha256};

/// Files up to this size are hashed whole.
pub const WHOLE: u64 = 4 << 20;
/// The head and the tail hashed of a larger file.
const END: u64 = 1 << 20;
/// Blocks hashed between them.
const BLOCKS: u64 = 32;
const BLOCK: u64 = 64 << 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub size: u64,
    /// Nanoseconds since the epoch.
    pub mtime_ns: i64,
    pub hash: [u8; 32],
}

impl Fingerprint {
    /// `None` when the file cannot be read as a plain file (it is then
    /// imported, and its reader reports what is wrong).
    pub fn of(path: &Path) -> Option<Fingerprint> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let mtime = meta.modified().ok()?;
        let mtime_ns = match mtime.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_nanos()).ok()?,
            Err(e) => -i64::try_from(e.duration().as_nanos()).ok()?,
        };
        let size = meta.len();
        let mut f = std::fs::File::open(path).ok()?;
        let mut h = Sha256::new();
        h.update(size.to_le_bytes());
        let mut buf = vec![0u8; 64 << 10];
        let mut take = |f: &mut std::fs::File, at: u64, len: u64| -> Option<()> {
            f.seek(SeekFrom::Start(at)).ok()?;
            let mut left = len;
            while left > 0 {
                let n = (left as usize).min(buf.len());
                f.read_exact(&mut buf[..n]).ok()?;
                h.update(&buf[..n]);
                left -= n as u64;
            }
            Some(())
        };
        if size <= WHOLE {
            take(&mut f, 0, size)?;
        } else {
            take(&mut f, 0, END)?;
            let span = size - 2 * END - BLOCK;
            for i in 0..BLOCKS {
                take(&mut f, END + span * (i + 1) / (BLOCKS + 1), BLOCK)?;
            }
            take(&mut f, size - END, END)?;
        }
        // The file changed while it was read: no fingerprint to trust.
        let after = std::fs::metadata(path).ok()?;
        if after.len() != size || after.modified().ok()? != mtime {
            return None;
        }
        Some(Fingerprint {
            size,
            mtime_ns,
            hash: h.finalize().into(),
        })
    }
}
