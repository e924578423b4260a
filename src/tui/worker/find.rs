//! `/` in the payload viewer (issue 16): a search through a payload of any
//! size, chunk by chunk as the viewer shows it — indented, masked (the
//! chunks never cut a secret, see `payload::chunk_len`) and escaped — so a
//! match is one the user would see: a secret is not found by its plain
//! text unless --no-redact. A match that runs from one chunk into the next
//! is found: the tail of each chunk's last line is carried into the next
//! when the chunk was cut inside a line. Only one chunk is held at a time.

use rusqlite::Connection;

use super::chain::Chains;
use crate::error::Result;
use crate::redact::Redactor;
use crate::store::browse::{PayloadColumn, PayloadReader};
use crate::tui::payload::{self, ChunkText, Indent};

/// Where a match starts, as the viewer addresses its lines: the chunk (its
/// start and the indenter's state there), the line in the chunk's lines
/// (pieces), the column in that line (characters); and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub start: u64,
    pub state: Indent,
    pub line: usize,
    pub col: usize,
    /// Characters (the match may run on into the next line or chunk).
    pub len: usize,
}

impl Hit {
    fn key(&self) -> (u64, usize, usize) {
        (self.start, self.line, self.col)
    }
}

/// A search's answer: the match (none: the text is nowhere), whether the
/// search went round the end to find it, and the chunk starts it passed
/// (checkpoints for the viewer).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub hit: Option<Hit>,
    pub wrapped: bool,
    pub points: Vec<(u64, Indent)>,
}

/// Where to search from: a position (chunk start, its state, line, column)
/// and whether a match there counts (a new search from the top of the
/// screen) or only after it (`n`, from the current match).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct From {
    pub start: u64,
    pub state: Indent,
    pub line: usize,
    pub col: usize,
    pub inclusive: bool,
}

/// The tail of a chunk's last line, carried into the next chunk when that
/// one continues the line.
struct Carry {
    text: String,
    chars: usize,
    start: u64,
    state: Indent,
    /// The line (piece index in its chunk) where the carried line begins,
    /// and the column of the tail's first character in that line.
    base: usize,
    col0: usize,
}

/// What the walk does after a match.
enum Flow {
    Go,
    Stop,
}

/// The text searched, and how each match is compared: ASCII letters in any
/// case (other characters as they are, so positions do not move).
fn fold(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// Searches `column` of decision `id` for `pattern`; `forward` from
/// `from` (the first match after it, going round from the top), else the
/// last match before it (going round from the bottom). `None` when a newer
/// request made the answer stale. The chunks walked are remembered in
/// `chains` (and the ones known there are not cut again).
#[allow(clippy::too_many_arguments, reason = "one request's fields")]
pub fn find(
    conn: &Connection,
    redactor: &Redactor,
    chains: &Chains,
    id: i64,
    column: PayloadColumn,
    pattern: &str,
    from: From,
    forward: bool,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<Found>> {
    let reader = PayloadReader::open(conn, id, column)?;
    let anchor = fold(pattern)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .max_by_key(|w| w.len())
        .unwrap_or("")
        .to_string();
    let walk = Walk {
        reader: &reader,
        redactor,
        column,
        total: reader.len(),
        pat: fold(pattern),
        finder: memchr::memmem::Finder::new(anchor.as_bytes()).into_owned(),
        anchor,
        cancelled,
        chains,
        key: (id, column, reader.len()),
        cuts: Default::default(),
    };
    let found = search(&walk, from, forward);
    chains.put(walk.key, &walk.cuts.borrow());
    found
}

/// [`find`] over `walk`.
fn search(walk: &Walk, from: From, forward: bool) -> Result<Option<Found>> {
    let at = (from.start, from.line, from.col);
    let after = |h: &Hit| {
        if from.inclusive {
            h.key() >= at
        } else {
            h.key() > at
        }
    };
    let mut points = Vec::new();
    let mut hit = None;
    let mut wrapped = false;
    if forward {
        let done = walk.scan((from.start, from.state), &mut points, |h| {
            if after(&h) {
                hit = Some(h);
                Flow::Stop
            } else {
                Flow::Go
            }
        })?;
        if !done {
            return Ok(None);
        }
        if hit.is_none() {
            wrapped = true;
            let done = walk.scan((0, Indent::default()), &mut points, |h| {
                if h.key() < at {
                    hit = Some(h);
                }
                Flow::Stop
            })?;
            if !done {
                return Ok(None);
            }
        }
    } else {
        let done = walk.scan((0, Indent::default()), &mut points, |h| {
            if h.key() < at {
                hit = Some(h);
                Flow::Go
            } else {
                Flow::Stop
            }
        })?;
        if !done {
            return Ok(None);
        }
        if hit.is_none() {
            wrapped = true;
            let done = walk.scan((from.start, from.state), &mut points, |h| {
                hit = Some(h);
                Flow::Go
            })?;
            if !done {
                return Ok(None);
            }
        }
    }
    points.sort_by_key(|p| p.0);
    points.dedup_by_key(|p| p.0);
    Ok(Some(Found {
        hit,
        wrapped,
        points,
    }))
}

struct Walk<'a> {
    reader: &'a PayloadReader<'a>,
    redactor: &'a Redactor,
    column: PayloadColumn,
    total: u64,
    pat: String,
    /// The pattern's longest run of ASCII letters and digits (folded),
    /// and a finder of it.
    anchor: String,
    finder: memchr::memmem::Finder<'static>,
    cancelled: &'a dyn Fn() -> bool,
    /// The chunks known, this payload's key among them, and the chunks cut
    /// by this search (remembered when it ends).
    chains: &'a Chains,
    key: super::chain::PayloadKey,
    cuts: std::cell::RefCell<Vec<(u64, Indent, usize, Indent)>>,
}

impl Walk<'_> {
    /// The text of the chunk at `start` as the viewer shows it (see
    /// `worker::answer::chunk`), its length and end state, and whether a
    /// match may begin in it (see [`Walk::may_hold`]); no text when none
    /// can. `carried`: the chunk before left a tail a match may run on
    /// from.
    fn chunk(
        &self,
        start: u64,
        state: Indent,
        carried: bool,
    ) -> Result<(Option<ChunkText>, usize, Indent, bool)> {
        let known = self.chains.get(self.key, start, state);
        let buf = match known {
            // Its bytes and the few after it a match may run on into.
            Some((len, _)) => self.reader.read(start, len + self.pat.len())?,
            None => self.reader.read(start, payload::READ)?,
        };
        let (len, end) = match known {
            Some(k) => k,
            None => {
                let (len, end) = payload::chunk_len(&buf, state, self.redactor);
                self.cuts.borrow_mut().push((start, state, len, end));
                (len, end)
            }
        };
        let hold = self.may_hold(&buf, len);
        if !carried && !hold {
            return Ok((None, len, end, false));
        }
        let bytes = &buf[..len];
        let raw_whole = self.column == PayloadColumn::Raw && start == 0 && len as u64 == self.total;
        if raw_whole && let Ok(serde_json::Value::String(s)) = serde_json::from_slice(bytes) {
            return Ok((Some(payload::text_lines(&s, self.redactor)), len, end, hold));
        }
        Ok((
            Some(payload::chunk_text(bytes, state, self.redactor)),
            len,
            end,
            hold,
        ))
    }

    /// Whether a match may begin in the chunk of `len` bytes at the start
    /// of `buf`, judged from the stored bytes without indenting or masking
    /// them: in arguments and results (JSON), the indenter only adds or
    /// drops white space and punctuation and the masking only takes text
    /// away, so the longest run of letters and digits in the pattern shows
    /// in the stored bytes wherever it shows on screen — when the bytes are
    /// printable ASCII (nothing for the escaping to spell out as
    /// `\u{..}`). A match running into the next chunk is looked for in the
    /// bytes after `len` too.
    fn may_hold(&self, buf: &[u8], len: usize) -> bool {
        if self.column == PayloadColumn::Raw || self.anchor.len() < 3 {
            return true;
        }
        let look = &buf[..buf.len().min(len + self.pat.len())];
        if look.iter().any(|&b| !(0x20..0x7f).contains(&b)) {
            return true;
        }
        self.finder.find(&look.to_ascii_lowercase()).is_some()
    }

    /// Walks the chunks from `from` to the end, calling `visit` with each
    /// match in order until it says stop; records the chunk starts in
    /// `points`. False when cancelled.
    fn scan(
        &self,
        from: (u64, Indent),
        points: &mut Vec<(u64, Indent)>,
        mut visit: impl FnMut(Hit) -> Flow,
    ) -> Result<bool> {
        let pat_chars = self.pat.chars().count();
        if pat_chars == 0 {
            return Ok(true);
        }
        let (mut start, mut state) = from;
        let mut carry: Option<Carry> = None;
        points.push(from);
        while start < self.total {
            if (self.cancelled)() {
                return Ok(false);
            }
            let (text, len, end, hold) = self.chunk(start, state, carry.is_some())?;
            if len == 0 {
                break;
            }
            let Some(text) = text else {
                // No match begins here, nor any carried into the next.
                carry = None;
                start += len as u64;
                state = end;
                points.push((start, state));
                continue;
            };
            // The line (piece) each line of the chunk starts on.
            let mut base = 0usize;
            let last = text.lines.len().saturating_sub(1);
            for (li, line) in text.lines.iter().enumerate() {
                let chars = line.chars().count();
                let joined = if li == 0 && text.continues {
                    carry.take()
                } else {
                    None
                };
                let (hay, offset) = match &joined {
                    Some(c) => (format!("{}{line}", c.text), c.chars),
                    None => (line.clone(), 0),
                };
                let folded = fold(&hay);
                let mut from_byte = 0;
                while let Some(i) = folded[from_byte..].find(&self.pat) {
                    let b = from_byte + i;
                    from_byte = b + self.pat.len().max(1);
                    let c = hay[..b].chars().count();
                    let hit = match &joined {
                        Some(cr) if c < offset => {
                            let (p, col) = payload::piece_of(cr.col0 + c);
                            Hit {
                                start: cr.start,
                                state: cr.state,
                                line: cr.base + p,
                                col,
                                len: pat_chars,
                            }
                        }
                        _ => {
                            let (p, col) = payload::piece_of(c - offset);
                            Hit {
                                start,
                                state,
                                line: base + p,
                                col,
                                len: pat_chars,
                            }
                        }
                    };
                    if let Flow::Stop = visit(hit) {
                        return Ok(true);
                    }
                }
                if li == last && pat_chars > 1 {
                    // The tail that may begin a match the next chunk ends.
                    let keep = (pat_chars - 1).min(chars);
                    let skip = chars - keep;
                    carry = Some(Carry {
                        text: line.chars().skip(skip).collect(),
                        chars: keep,
                        start,
                        state,
                        base,
                        col0: skip,
                    });
                }
                base += payload::pieces_in(chars);
            }
            if !hold {
                // No match begins in this chunk: none runs on from it.
                carry = None;
            }
            start += len as u64;
            state = end;
            points.push((start, state));
        }
        Ok(true)
    }
}
