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
        let parsed = parse_line(&buf, limits);
        bytes_in_chunk += line_len;
        if buf.capacity() > crate::memory::HUGE {
            // A huge line: give its buffer back before the record is stored.
            buf = Vec::new();
        }
        let item = parsed_item::<S>(parsed, source, line, line_len);
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

/// A line parsed: by the typed fast path when it takes the line (see
/// [`native::parse_fast`]), else as a JSON value for [`native::parse`].
enum LineParse {
    Fast(Parsed),
    Value(std::result::Result<serde_json::Value, String>),
}

fn parse_line(bytes: &[u8], limits: &Limits) -> LineParse {
    match json_line_text(bytes, limits) {
        Ok(text) => match native::parse_fast(text) {
            Some(parsed) => LineParse::Fast(parsed),
            None => LineParse::Value(parse_json_text(text)),
        },
        Err(message) => LineParse::Value(Err(message)),
    }
}

/// One parsed line as the writer takes it.
fn parsed_item<S: RecordSink>(
    parsed: LineParse,
    source: &Source,
    line: u64,
    line_len: usize,
) -> Parsed2<S::Prepared> {
    let parsed = match parsed {
        LineParse::Fast(parsed) => Ok(Ok(parsed)),
        LineParse::Value(Ok(value)) => Ok(native::parse(value)),
        LineParse::Value(Err(message)) => Err(message),
    };
    match parsed {
        Err(message) => Parsed2::Bad(InputError::at(&source.display, Some(line), None, message)),
        Ok(parsed) => match parsed {
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
    }
}

/// Lines read but not parsed yet, in order: their bytes end to end.
#[derive(Default)]
struct RawChunk {
    bytes: Vec<u8>,
    /// Each line's number and end in `bytes`, or a line that could not be
    /// read (the reader stopped after it unless going on).
    lines: Vec<RawLine>,
}

enum RawLine {
    Line { line: u64, end: usize },
    Bad(InputError),
    Fatal(Error),
}

/// How many threads parse a plain (not gzip) source's lines.
const PARSERS: usize = 2;

/// Reads lines on its own thread and hands chunks of them to [`PARSERS`]
/// parsing threads in turn (chunk `i` to parser `i % PARSERS`), so that
/// the writer, taking the parsed chunks in the same turn, sees them in
/// order.
fn read_raw_lines(
    reader: &mut (dyn BufRead + Send),
    source: &Source,
    start: Start,
    keep_going: bool,
    limits: &Limits,
    outs: Vec<std::sync::mpsc::SyncSender<RawChunk>>,
) {
    let (first, mut buf, mut have) = match start {
        Start::Fresh => (0, Vec::new(), false),
        Start::Read { line, bytes } => (line, bytes, true),
    };
    let mut lines = Lines::new(reader, limits, first);
    let mut chunk = RawChunk::default();
    let mut turn = 0usize;
    let send = |chunk: RawChunk, turn: &mut usize| -> bool {
        let ok = outs[*turn % outs.len()].send(chunk).is_ok();
        *turn += 1;
        ok
    };
    loop {
        if !std::mem::take(&mut have) {
            match lines.next(&mut buf) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e @ LineError::TooLong { .. }) => {
                    let bad =
                        InputError::at(&source.display, Some(e.line()), None, e.message(limits));
                    chunk.lines.push(RawLine::Bad(bad));
                    if !keep_going {
                        break;
                    }
                    continue;
                }
                Err(e) => {
                    let fatal =
                        InputError::at(&source.display, Some(e.line()), None, e.message(limits));
                    chunk.lines.push(RawLine::Fatal(fatal.into()));
                    break;
                }
            }
        }
        if buf.len() > crate::memory::HUGE && !chunk.lines.is_empty() {
            // Huge lines go alone, so at most one of them is in flight.
            if !send(std::mem::take(&mut chunk), &mut turn) {
                return;
            }
        }
        if chunk.bytes.is_empty() && buf.len() > crate::memory::HUGE {
            // Hand the huge line's buffer over rather than copy it.
            chunk.bytes = std::mem::take(&mut buf);
            crate::memory::release();
        } else {
            chunk.bytes.extend_from_slice(&buf);
        }
        chunk.lines.push(RawLine::Line {
            line: lines.line,
            end: chunk.bytes.len(),
        });
        if (chunk.lines.len() >= CHUNK || chunk.bytes.len() > 1 << 22)
            && !send(std::mem::take(&mut chunk), &mut turn)
        {
            return;
        }
    }
    if !chunk.lines.is_empty() {
        send(chunk, &mut turn);
    }
}

/// Parses the chunks one reading thread hands this parser, in order.
fn parse_raw_chunks<S: RecordSink>(
    source: &Source,
    limits: &Limits,
    input: std::sync::mpsc::Receiver<RawChunk>,
    out: std::sync::mpsc::SyncSender<Vec<Parsed2<S::Prepared>>>,
) {
    for chunk in input {
        let mut parsed = Vec::with_capacity(chunk.lines.len());
        let mut start = 0usize;
        for raw in chunk.lines {
            parsed.push(match raw {
                RawLine::Line { line, end } => {
                    let bytes = &chunk.bytes[start..end];
                    start = end;
                    let value = parse_line(bytes, limits);
                    parsed_item::<S>(value, source, line, bytes.len())
                }
                RawLine::Bad(e) => Parsed2::Bad(e),
                RawLine::Fatal(e) => Parsed2::Fatal(e),
            });
        }
        if chunk.bytes.len() > crate::memory::HUGE {
            drop(chunk.bytes);
            crate::memory::release();
        }
        if out.send(parsed).is_err() {
            return; // the writer stopped
        }
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
    std::thread::scope(|scope| {
        // The parsed chunks, in order: from one thread that reads and
        // parses (a gzip source, whose corruption the reader must be asked
        // about), else from parsers taking turns behind one reader.
        let parsed: Box<dyn Iterator<Item = Vec<Parsed2<S::Prepared>>>> = if gzip {
            let (tx, rx) = std::sync::mpsc::sync_channel(8);
            scope.spawn(move || {
                parse_lines::<S>(reader, source, start, gzip, keep_going, limits, tx)
            });
            Box::new(rx.into_iter())
        } else {
            let mut raw_txs = Vec::with_capacity(PARSERS);
            let mut outs = Vec::with_capacity(PARSERS);
            for _ in 0..PARSERS {
                let (raw_tx, raw_rx) = std::sync::mpsc::sync_channel(4);
                let (tx, rx) = std::sync::mpsc::sync_channel(4);
                scope.spawn(move || parse_raw_chunks::<S>(source, limits, raw_rx, tx));
                raw_txs.push(raw_tx);
                outs.push(rx);
            }
            scope.spawn(move || read_raw_lines(reader, source, start, keep_going, limits, raw_txs));
            let mut turn = 0usize;
            Box::new(std::iter::from_fn(move || {
                let next = outs[turn % PARSERS].recv().ok();
                turn += 1;
                next
            }))
        };
        for item in parsed.flatten() {
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
