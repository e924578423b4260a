//! Reading traces: files, folders and stdin, plain or gzip, into the import
//! batch. rung's own JSON Lines stream line by line; the importers (OTLP,
//! provider transcripts, tau-bench, SWE-agent) read a JSON document and
//! turn it into rung-format JSON values, so every record passes the same
//! validation, identity hashing and classification.

pub mod anthropic;
pub mod bfcl;
pub mod convo;
mod ctx;
pub mod detect;
pub mod fingerprint;
pub mod gemini;
pub mod inspect;
pub mod langfuse;
mod lines;
pub mod locate;
pub mod messages;
pub mod native;
pub mod openai;
pub mod otlp;
pub mod read;
pub mod recordings;
pub mod responses;
mod sink;
pub mod swe_agent;
pub mod tau_bench;
pub mod walk;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::read::MultiGzDecoder;
use serde_json::Value;

use crate::error::{Error, InputError, InvalidRecord, RecordError, Result};
use crate::model::Record;
use convo::Out;
use ctx::Ctx;
pub use detect::{Drops, Format};
use lines::{Start, read_native_from};
use locate::Doc;
use native::Parsed;
use read::{Limits, LineError, Lines};
pub use sink::RecordSink;

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

/// Expands the command-line paths: `-` is stdin, a folder means every
/// regular file in it (recursively, links to folders not followed) that
/// `format` reads (see [`accepts`]), ordered by full path compared byte by
/// byte; what a folder holds that cannot be read is skipped with a warning
/// through `warn`, and so are (with a note) the trace-like files the format
/// leaves, naming the `--format` that reads them. A folder with no file to
/// read is an error that says what the folder means and what it holds.
pub fn expand(
    paths: &[PathBuf],
    format: Option<Format>,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<Source>> {
    let accept = accepts(format);
    let means = format.map_or(detect::AUTO_FOLDER_FILES, Format::folder_files);
    let of_format = match format {
        None => String::new(),
        Some(f) => format!(" for --format {}", f.as_str()),
    };
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(Source::stdin());
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|e| {
            let why = match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => walk::broken_link(p, &e),
                _ => format!("cannot read: {e}"),
            };
            Error::Input(InputError::at(&p.display().to_string(), None, None, why))
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            let mut skipped = Vec::new();
            let mut left = std::collections::BTreeMap::new();
            walk::walk(p, accept, &mut found, &mut left, &mut |w| skipped.push(w))?;
            skipped.sort();
            skipped.into_iter().for_each(&mut *warn);
            // Files another format would read, left out by this one.
            let traces: Vec<(String, u64)> = left
                .into_iter()
                .filter(|(e, _)| {
                    [".json", ".json.gz", ".jsonl", ".jsonl.gz", ".traj", ".eval"]
                        .contains(&e.as_str())
                })
                .collect();
            let holds = traces
                .iter()
                .map(|(e, n)| {
                    format!(
                        "{n} *{e} file{} (to read {}: {})",
                        if *n == 1 { "" } else { "s" },
                        if *n == 1 { "it" } else { "them" },
                        detect::format_hint(e)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            if found.is_empty() {
                let why = if holds.is_empty() {
                    format!(
                        "no trace files to import: a folder means its {means} files (at any depth){of_format}, and it holds none"
                    )
                } else {
                    format!(
                        "no trace files to import: a folder means its {means} files (at any depth){of_format}; it holds {holds}"
                    )
                };
                return Err(Error::Input(InputError::at(
                    &p.display().to_string(),
                    None,
                    None,
                    why,
                )));
            }
            if !holds.is_empty() {
                warn(format!(
                    "{}: not read: {holds}; a folder means its {means} files{of_format}",
                    p.display()
                ));
            }
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
    pub reader: Box<dyn BufRead + Send>,
    pub gzip: bool,
}

/// Opens a source as a buffered reader, decompressing gzip (detected by its
/// magic bytes, whatever the name).
pub fn open(source: &Source, bytes: Arc<AtomicU64>) -> Result<Opened> {
    let raw: Box<dyn Read + Send> = match &source.path {
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
            reader: Box::new(BufReader::with_capacity(
                1 << 18,
                MultiGzDecoder::new(reader),
            )),
            gzip: true,
        })
    } else {
        Ok(Opened {
            reader: Box::new(reader),
            gzip: false,
        })
    }
}

/// Parses one line's bytes as a JSON value, with errors that say where;
/// a line over the limits is refused before anything is built.
pub fn parse_json_line(bytes: &[u8], limits: &Limits) -> std::result::Result<Value, String> {
    parse_json_text(json_line_text(bytes, limits)?)
}

/// One line's bytes as text, checked against the limits before anything
/// is built.
pub fn json_line_text<'a>(
    bytes: &'a [u8],
    limits: &Limits,
) -> std::result::Result<&'a str, String> {
    // A byte-order mark (some editors write one) is not part of the JSON.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    read::check_json(bytes, limits).map_err(|e| e.message)?;
    std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "invalid UTF-8 at byte {} of the line; trace files must be UTF-8",
            e.valid_up_to() + 1
        )
    })
}

/// A line's text (from [`json_line_text`]) as a JSON value.
pub fn parse_json_text(text: &str) -> std::result::Result<Value, String> {
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

/// Live counters an import exposes to its progress display.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes: Arc<AtomicU64>,
    pub decisions: AtomicU64,
    pub total_bytes: AtomicU64,
}

/// Feeds one rung-format value through validation into the batch. The
/// outer error stops the import (the database failed); the inner one is a
/// bad record, for the caller to report or skip.
pub fn add_value(
    batch: &mut impl RecordSink,
    value: Value,
    path: &str,
    line: u64,
) -> Result<std::result::Result<(), InputError>> {
    let at = format!("{path}:{line}");
    let bad = |e: InvalidRecord| InputError {
        path: Some(path.to_string()),
        line: Some(line),
        record: e.record,
        message: e.message,
    };
    match native::parse(value) {
        Ok(Parsed::Record(record)) => match batch.add(&at, record) {
            Ok(()) => Ok(Ok(())),
            Err(RecordError::Invalid(e)) => Ok(Err(bad(e))),
            Err(RecordError::Db(e)) => Err(*e),
        },
        Ok(Parsed::UnknownType(ty)) => {
            batch.unknown_type(&ty, &at);
            Ok(Ok(()))
        }
        Err(e) => Ok(Err(bad(e))),
    }
}

/// The message for an error while reading a source's bytes.
fn read_error(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::InvalidInput
        || e.kind() == io::ErrorKind::InvalidData
        || e.kind() == io::ErrorKind::UnexpectedEof
    {
        format!("the gzip stream is corrupt or truncated ({e}); re-create the file")
    } else {
        format!("cannot read: {e}")
    }
}

/// Imports a rung-format source into the batch, line by line.
pub fn read_native(
    batch: &mut impl RecordSink,
    source: &Source,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
) -> Result<()> {
    let Opened { mut reader, gzip } = open(source, progress.bytes.clone())?;
    read_native_from(
        batch,
        source,
        reader.as_mut(),
        Start::Fresh,
        gzip,
        &Limits::default(),
        progress,
        skip,
    )
}

/// The `--format` values `rung import` accepts.
pub const FORMATS: &[&str] = &[
    "auto",
    "rung",
    "otlp",
    "langfuse",
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "tau-bench",
    "swe-agent",
    "inspect",
    "messages",
    "bfcl",
];

/// Reads `--format`: a format, or `None` for auto-detection.
pub fn parse_format(s: &str) -> Result<Option<Format>> {
    if s == "auto" {
        return Ok(None);
    }
    Format::parse(s).map(Some).ok_or_else(|| {
        Error::usage(format!(
            "--format {s:?}: known formats are {}",
            FORMATS.join(", ")
        ))
    })
}

/// Which files of a folder an import in this format reads: `*.jsonl` and
/// `*.jsonl.gz` for auto-detection and rung's format (as trace-format.md
/// defines a folder); each importer's own files when its format is named
/// ([`Format::folder_files`]).
pub fn accepts(format: Option<Format>) -> fn(&Path) -> bool {
    match format {
        None => detect::auto_accepts,
        Some(f) => f.accepts(),
    }
}

/// How to read the sources of one import.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// `None`: detect each file's format.
    pub format: Option<Format>,
    /// Binds runs read by the importers that name no catalogue to this
    /// catalogue version (`--catalogue`).
    pub catalogue: Option<String>,
    /// Line, document and parsed-size limits (`--max-line`).
    pub limits: Limits,
}

/// Reads one source into the batch. Bad records are reported through
/// `skip` with `--keep-going` (else they fail the import); parts an
/// importer recognised but could not map go to `dropped`: always for the
/// formats whose drops are counted (`Format::drops`), else the same way.
pub fn read_source(
    batch: &mut impl RecordSink,
    source: &Source,
    opts: &ReadOptions,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
    dropped: &mut dyn FnMut(&InputError),
) -> Result<()> {
    let Opened { mut reader, gzip } = open(source, progress.bytes.clone())?;
    let mut ctx = Ctx {
        batch,
        source,
        opts,
        progress,
        skip,
        dropped,
    };
    let limits = &opts.limits;
    // A zipped Inspect log (`.eval`). A stream that breaks at once (a
    // corrupt gzip) says so here: asked again, a decoder may answer that
    // it has ended.
    if matches!(opts.format, None | Some(Format::Inspect)) {
        let zipped = reader
            .fill_buf()
            .map_err(|e| InputError::at(&source.display, Some(1), None, read_error(&e)))?
            .starts_with(b"PK\x03\x04");
        if zipped {
            return ctx.eval_archive(reader.as_mut());
        }
    }
    if opts.format == Some(Format::Rung) {
        return read_native_from(
            ctx.batch,
            source,
            reader.as_mut(),
            Start::Fresh,
            gzip,
            limits,
            progress,
            ctx.skip,
        );
    }
    if let Some(f) = opts.format {
        return ctx.documents(reader.as_mut(), Vec::new(), 0, Some(f), "");
    }
    // Auto: the first non-blank line decides whether this is rung's own
    // format, which streams; anything else is read whole. Blank lines
    // before it are counted, not kept.
    let mut first = Vec::new();
    let mut lines = Lines::new(reader.as_mut(), limits, 0);
    loop {
        match lines.next(&mut first) {
            Ok(true) => break,
            Ok(false) => return Ok(()),
            Err(e) => {
                let bad = InputError::at(&source.display, Some(e.line()), None, e.message(limits));
                if matches!(e, LineError::TooLong { .. }) && ctx.keep_going() {
                    ctx.bad(bad)?;
                    continue;
                }
                return Err(bad.into());
            }
        }
    }
    let line = lines.line;
    {
        let text = first.trim_ascii();
        // A rung record, or a line no importer claims (an unknown record
        // type, a line that is not JSON) in a JSON Lines file: rung's
        // reader takes it, so such lines are counted or reported with
        // their line number like any other, and the rest still streams.
        // A line over the limits is left to rung's reader too, which
        // reports it at its line without building it.
        let parsed = if read::check_json(text, limits).is_err() || detect::is_rung_line(text) {
            None
        } else {
            Some(serde_json::from_slice::<Value>(text))
        };
        let jsonl = source.path.as_ref().is_some_and(|p| is_trace_file(p));
        let claimed = match &parsed {
            None => false,
            Some(Ok(v)) => matches!(detect::detect(v, ""), Ok(Some(_))),
            // Not JSON on its own: a pretty-printed document starts like this.
            Some(Err(_)) => !jsonl,
        };
        let rung_line = |v: &Value| v.is_object() && v.get("type").is_some_and(Value::is_string);
        let take = match &parsed {
            None => true,
            Some(Ok(v)) => !claimed && (jsonl || rung_line(v)),
            Some(Err(_)) => !claimed,
        };
        if take {
            let start = Start::Read { line, bytes: first };
            return read_native_from(
                ctx.batch,
                source,
                reader.as_mut(),
                start,
                gzip,
                limits,
                progress,
                ctx.skip,
            );
        }
        // (`None` was taken by rung's reader above.)
        let why = match parsed {
            Some(Ok(v)) => format!(
                "line {line} is not a rung record: {}",
                detect::rung_reason(&v).unwrap_or_default()
            ),
            Some(Err(_)) | None => {
                format!("line {line} is not a whole JSON object (rung traces are JSON Lines)")
            }
        };
        // The document resumes at the first line (its end included).
        first.push(b'\n');
        ctx.documents(reader.as_mut(), first, line - 1, None, &why)
    }
}

/// Feeds what an importer that reads several sources together (BFCL) made
/// of one of them: its bad records (each skipped with --keep-going, else the
/// import's error), then its records.
#[allow(clippy::too_many_arguments)]
pub(crate) fn feed<S: RecordSink>(
    batch: &mut S,
    source: &Source,
    opts: &ReadOptions,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
    dropped: &mut dyn FnMut(&InputError),
    bad: Vec<InputError>,
    out: Out,
) -> Result<()> {
    let mut ctx = Ctx {
        batch,
        source,
        opts,
        progress,
        skip,
        dropped,
    };
    for e in bad {
        ctx.bad(e)?;
    }
    ctx.commit(out, Format::Bfcl.drops())
}

/// Reads the rest of a source that is read whole onto `bytes`: `false`
/// when it is larger than `--max-line` (see [`too_large`]). A stream that
/// breaks (a corrupt gzip) is an error naming the line it broke in.
pub(crate) fn read_whole(
    reader: &mut dyn BufRead,
    bytes: &mut Vec<u8>,
    display: &str,
    limits: &Limits,
) -> Result<bool> {
    read::read_document(reader, bytes, limits.max_line).map_err(|e| {
        // The line the stream broke in: the lines read whole before it, plus one.
        let line = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        Error::Input(InputError::at(display, Some(line), None, read_error(&e)))
    })
}

/// The error for a source read whole that is larger than `--max-line`.
pub(crate) fn too_large(display: &str, limits: &Limits) -> InputError {
    InputError::at(
        display,
        None,
        None,
        format!(
            "the file is larger than {} (--max-line); this format is read whole, so it must fit (raise --max-line, or split the file)",
            read::size_text(limits.max_line)
        ),
    )
}
