//! Reading rung-format lines: one thread reads and parses them, in order,
//! in chunks; the importing thread writes them.

use super::*;

/// One line of a rung-format source, parsed off the writing thread.
pub(super) enum Parsed2<P> {
    Record {
        line: u64,
        record: P,
        is_decision: bool,
    },
    Unknown {
        line: u64,
        ty: String,
    },
    Bad(InputError),
    /// Reading the source failed: the import cannot go on.
    Fatal(Error),
}

/// Lines parsed per message between the threads: few wake-ups, bounded memory.
const CHUNK: usize = 64;

/// Reads and parses lines on its own thread, sending them in order, in chunks.
pub(super) fn parse_lines<S: RecordSink>(
    reader: &mut (dyn BufRead + Send),
    source: &Source,
    start: Start,
    gzip: bool,
    keep_going: bool,
    limits: &Limits,
    out: std::sync::mpsc::SyncSender<Vec<Parsed2<S::Prepared>>>,
) {
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut bytes_in_chunk = 0usize;
    // A first line already read (by format detection) is used as it is.
    let (first, mut buf, mut have) = match start {
        Start::Fresh => (0, Vec::new(), false),
        Start::Read { line, bytes } => (line, bytes, true),
    };
    let mut lines = Lines::new(reader, limits, first);
    loop {
        if !std::mem::take(&mut have) {
            match lines.next(&mut buf) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e @ LineError::TooLong { .. }) => {
                    let bad =
                        InputError::at(&source.display, Some(e.line()), None, e.message(limits));
                    chunk.push(Parsed2::Bad(bad));
                    if !keep_going {
                        break;
                    }
                    continue;
                }
                Err(e) => {
                    let fatal =
                        InputError::at(&source.display, Some(e.line()), None, e.message(limits));
                    chunk.push(Parsed2::Fatal(fatal.into()));
                    break;
                }
            }
        }
        let line = lines.line;
        let line_len = buf.len();
        if line_len > crate::memory::HUGE {
            // The buffer grew by doubling: let go of the smaller copies.
            crate::memory::release();
        }
        let parsed = parse_json_line(&buf, limits);
        bytes_in_chunk += line_len;
        if buf.capacity() > crate::memory::HUGE {
            // A huge line: give its buffer back before the record is stored.
            buf = Vec::new();
        }
        let item = match parsed {
            Err(message) => {
                Parsed2::Bad(InputError::at(&source.display, Some(line), None, message))
            }
            Ok(value) => match native::parse(value) {
                Ok(Parsed::Record(record)) => Parsed2::Record {
                    line,
                    is_decision: matches!(record, Record::Decision(_)),
                    record: S::prepare(record, line_len),
                },
                Ok(Parsed::UnknownType(ty)) => Parsed2::Unknown { line, ty },
                Err(e) => Parsed2::Bad(InputError {
                    path: Some(source.display.clone()),
                    line: Some(line),
                    record: e.record,
                    message: e.message,
                }),
            },
        };
        if let Parsed2::Bad(_) = &item
            && gzip
            && !keep_going
        {
            // Corruption inside a gzip stream can decode as garbage that
            // only the final checksum exposes: say so rather than blame
            // the JSON.
            if let Err(e) = check_gzip_rest(lines.reader(), source, line) {
                chunk.push(Parsed2::Fatal(e));
                break;
            }
        }
        let bad = matches!(item, Parsed2::Bad(_));
        chunk.push(item);
        if bad && !keep_going {
            // The import stops at this line: read no further.
            break;
        }
        // Huge lines go alone, so at most one of them is in flight.
        if chunk.len() >= CHUNK || bytes_in_chunk > 1 << 22 {
            bytes_in_chunk = 0;
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
            if out.send(full).is_err() {
                return; // the writer stopped
            }
        }
    }
    if !chunk.is_empty() {
        let _ = out.send(chunk);
    }
}

/// Where a rung-format reader starts.
pub(super) enum Start {
    /// At line 1.
    Fresh,
    /// Lines up to `line` were read already; `bytes` are line `line`, the
    /// first record (the blank lines before it are not kept).
    Read { line: u64, bytes: Vec<u8> },
}

/// Imports rung-format lines from an open reader: one thread reads and
/// parses, this one writes.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_native_from<S: RecordSink>(
    batch: &mut S,
    source: &Source,
    reader: &mut (dyn BufRead + Send),
    start: Start,
    gzip: bool,
    limits: &Limits,
    progress: &Progress,
    skip: &mut dyn FnMut(&InputError),
) -> Result<()> {
    let keep_going = batch.keep_going();
    let (tx, rx) = std::sync::mpsc::sync_channel(8);
    std::thread::scope(|scope| {
        scope.spawn(|| parse_lines::<S>(reader, source, start, gzip, keep_going, limits, tx));
        for item in rx.into_iter().flatten() {
            let result = match item {
                Parsed2::Record {
                    line,
                    record,
                    is_decision,
                } => {
                    let at = format!("{}:{line}", source.display);
                    match batch.add_prepared(&at, record) {
                        Ok(()) => {
                            if is_decision {
                                progress.decisions.fetch_add(1, Ordering::Relaxed);
                            }
                            Ok(())
                        }
                        Err(RecordError::Invalid(e)) => Err(InputError {
                            path: Some(source.display.clone()),
                            line: Some(line),
                            record: e.record,
                            message: e.message,
                        }),
                        // Not the record's fault: never skipped.
                        Err(RecordError::Db(e)) => return Err(*e),
                    }
                }
                Parsed2::Unknown { line, ty } => {
                    batch.unknown_type(&ty, &format!("{}:{line}", source.display));
                    Ok(())
                }
                Parsed2::Bad(e) => Err(e),
                Parsed2::Fatal(e) => return Err(e),
            };
            match result {
                Ok(()) => {}
                Err(e) if keep_going => {
                    batch.skipped();
                    skip(&e);
                }
                // Dropping the receiver stops the reading thread.
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    })
}

/// Reads a gzip stream to its end; an error there means it is corrupt.
pub(super) fn check_gzip_rest(reader: &mut dyn BufRead, source: &Source, line: u64) -> Result<()> {
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
