//! Reading traces: files, folders and stdin, plain or gzip, line by line,
//! into the import batch. Format readers turn their input into rung-format
//! JSON values, so every record passes the same validation.

pub mod native;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::read::MultiGzDecoder;
use serde_json::Value;

use crate::error::{Error, InputError, Result};
use crate::model::canonical::{self, HashWriter};
use crate::store::Batch;
use native::Parsed;
use sha2::{Digest, Sha256};

/// One input: a file or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// How messages name it: the path as given, or `<stdin>`.
    pub display: String,
    /// `None` for standard input.
    pub path: Option<PathBuf>,
}

impl Source {
    pub fn stdin() -> Source {
        Source {
            display: "<stdin>".to_string(),
            path: None,
        }
    }
}

/// Whether a file found inside a folder is a rung trace file.
pub fn is_trace_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
}

/// Expands the command-line paths: `-` is stdin, a folder means every file
/// in it (recursively) that `accept` takes, ordered by full path compared
/// byte by byte.
pub fn expand(paths: &[PathBuf], accept: fn(&Path) -> bool) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(Source::stdin());
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|e| {
            Error::Input(InputError::at(
                &p.display().to_string(),
                None,
                None,
                format!("cannot read: {e}"),
            ))
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(p, accept, &mut found)?;
            found.sort_by(|a: &PathBuf, b| {
                a.as_os_str()
                    .as_encoded_bytes()
                    .cmp(b.as_os_str().as_encoded_bytes())
            });
            out.extend(found.into_iter().map(|f| Source {
                display: f.display().to_string(),
                path: Some(f),
            }));
        } else {
            out.push(Source {
                display: p.display().to_string(),
                path: Some(p.clone()),
            });
        }
    }
    Ok(out)
}

fn walk(dir: &Path, accept: fn(&Path) -> bool, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::Input(InputError::at(
            &dir.display().to_string(),
            None,
            None,
            format!("cannot read the folder: {e}"),
        ))
    })?;
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        let meta = std::fs::metadata(&path)?;
        if meta.is_dir() {
            walk(&path, accept, out)?;
        } else if accept(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Counts bytes read from the underlying input, for the progress display.
struct Counting<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened source.
pub struct Opened {
    pub reader: Box<dyn BufRead>,
    pub gzip: bool,
}

/// Opens a source as a buffered reader, decompressing gzip (detected by its
/// magic bytes, whatever the name).
pub fn open(source: &Source, bytes: Arc<AtomicU64>) -> Result<Opened> {
    let raw: Box<dyn Read> = match &source.path {
        None => Box::new(io::stdin()),
        Some(p) => Box::new(File::open(p).map_err(|e| {
            Error::Input(InputError::at(
                &source.display,
                None,
                None,
                format!("cannot open: {e}"),
            ))
        })?),
    };
    let mut reader = BufReader::with_capacity(1 << 18, Counting { inner: raw, bytes });
    let head = reader.fill_buf().map_err(|e| {
        Error::Input(InputError::at(
            &source.display,
            None,
            None,
            format!("cannot read: {e}"),
        ))
    })?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Opened {
            reader: Box::new(BufReader::with_capacity(1 << 18, MultiGzDecoder::new(reader))),
            gzip: true,
        })
    } else {
        Ok(Opened {
            reader: Box::new(reader),
            gzip: false,
        })
    }
}

/// Reads one line (without its terminator) into `buf`; false at the end.
/// Errors name the line being read (a corrupt gzip stream shows here).
pub fn read_line(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    source: &Source,
    line: u64,
) -> Result<bool> {
    buf.clear();
    match reader.read_until(b'\n', buf) {
        Ok(0) => Ok(false),
        Ok(_) => {
            if buf.last() == Some(&b'\n') {
                buf.pop();
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
            }
            Ok(true)
        }
        Err(e) => {
            let what = if e.kind() == io::ErrorKind::InvalidInput
                || e.kind() == io::ErrorKind::InvalidData
                || e.kind() == io::ErrorKind::UnexpectedEof
            {
                format!("the gzip stream is corrupt or truncated ({e}); re-create the file")
            } else {
                format!("cannot read: {e}")
            };
            Err(Error::Input(InputError::at(
                &source.display,
                Some(line),
                None,
                what,
            )))
        }
    }
}

/// Parses one line's bytes as a JSON value, with errors that say where.
pub fn parse_json_line(bytes: &[u8]) -> std::result::Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "invalid UTF-8 at byte {} of the line; trace files must be UTF-8",
            e.valid_up_to() + 1
        )
    })?;
    serde_json::from_str(text).map_err(|e| {
        format!(
            "invalid JSON at column {}: {}",
            e.column(),
            strip_position(&e.to_string())
        )
    })
}

fn strip_position(msg: &str) -> &str {
    msg.find(" at line ").map(|i| &msg[..i]).unwrap_or(msg)
}

/// SHA-256 of a value's canonical JSON: a record's identity for re-import.
pub fn record_hash(v: &Value) -> [u8; 32] {
    let mut h = HashWriter(Sha256::new());
    canonical::write(v, &mut h).expect("hashing cannot fail");
    h.0.finalize().into()
}

/// Live counters an import exposes to its progress display.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes: Arc<AtomicU64>,
    pub decisions: AtomicU64,
    pub total_bytes: AtomicU64,
}

/// Feeds one rung-format value through validation into the batch; returns
/// the error for the caller to report or skip.
pub fn add_value(
    batch: &mut Batch<'_>,
    value: Value,
    path: &str,
    line: u64,
) -> std::result::Result<(), InputError> {
    let hash = record_hash(&value);
    let at = format!("{path}:{line}");
    match native::parse(value) {
        Ok(Parsed::Record(record)) => batch.add(&at, record, &hash).map_err(|e| InputError {
            path: Some(path.to_string()),
            line: Some(line),
            record: e.record,
            message: e.message,
        }),
        Ok(Parsed::UnknownType(ty)) => {
            batch.unknown_type(&ty, &at);
            Ok(())
        }
        Err(e) => Err(InputError {
            path: Some(path.to_string()),
            line: Some(line),
            record: e.record,
            message: e.message,
        }),
    }
}

/// Imports rung-format sources into the batch, line by line.
pub fn read_native(
    batch: &mut Batch<'_>,
    source: &Source,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
) -> Result<()> {
    let Opened { mut reader, gzip } = open(source, progress.bytes.clone())?;
    let mut buf = Vec::new();
    let mut line = 0u64;
    let keep_going = batch.options().keep_going;
    loop {
        line += 1;
        if !read_line(reader.as_mut(), &mut buf, source, line)? {
            break;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = parse_json_line(&buf);
        if buf.capacity() > 1 << 24 {
            // A huge line: give its buffer back before the record is stored.
            buf = Vec::new();
        }
        let is_decision = matches!(&parsed, Ok(Value::Object(m)) if m.get("type").and_then(Value::as_str) == Some("decision"));
        let result = match parsed {
            Ok(value) => add_value(batch, value, &source.display, line),
            Err(message) => Err(InputError::at(&source.display, Some(line), None, message)),
        };
        match result {
            Ok(()) => {
                if is_decision {
                    progress.decisions.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(e) if keep_going => {
                batch.summary.skipped += 1;
                skip(&e);
            }
            Err(e) => {
                // Corruption inside a gzip stream can decode as garbage that
                // only the final checksum exposes: say so rather than blame
                // the JSON.
                if gzip {
                    check_gzip_rest(reader.as_mut(), source, line)?;
                }
                return Err(e.into());
            }
        }
    }
    Ok(())
}

/// Reads a gzip stream to its end; an error there means it is corrupt.
fn check_gzip_rest(reader: &mut dyn BufRead, source: &Source, line: u64) -> Result<()> {
    let mut sink = [0u8; 1 << 16];
    loop {
        match reader.read(&mut sink) {
            Ok(0) => return Ok(()),
            Ok(_) => continue,
            Err(e) => {
                return Err(Error::Input(InputError::at(
                    &source.display,
                    Some(line),
                    None,
                    format!("the gzip stream is corrupt or truncated ({e}); re-create the file"),
                )));
            }
        }
    }
}

/// The `--format` values `rung import` accepts.
pub const FORMATS: &[&str] = &["auto", "rung"];

/// Reads one source in the given format (`auto` detects it) into the batch.
pub fn read_source(
    batch: &mut Batch<'_>,
    source: &Source,
    format: &str,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
) -> Result<()> {
    match format {
        "auto" | "rung" => read_native(batch, source, progress, skip),
        other => Err(Error::usage(format!(
            "--format {other:?}: known formats are {}",
            FORMATS.join(", ")
        ))),
    }
}
