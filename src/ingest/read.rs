//! Reading input in bounded memory, whatever it holds: lines no longer than
//! `--max-line`, stretches of blank lines skipped without keeping them, a
//! document read whole only up to `--max-line`, and every JSON value checked
//! (nesting, and the memory it would take once parsed) before serde_json
//! builds it. serde_json's `Value` takes 32 bytes or more per element, so a
//! 100 MB line of `1,1,1,…` would need gigabytes: such a line is refused with
//! an error naming it instead.

use std::io::{self, BufRead};

/// `--max-line`'s default: 256 MB.
pub const DEFAULT_MAX_LINE: usize = 256 << 20;

/// Deepest nesting of arrays and objects accepted (serde_json's own limit).
pub const MAX_DEPTH: usize = 128;

/// What one import may hold in memory at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest line (and the largest document an importer reads
    /// whole), in bytes; also the most memory one parsed record may take.
    pub max_line: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_line: DEFAULT_MAX_LINE,
        }
    }
}

/// A size as `--max-line` takes it: bytes, or with a unit (`64KB`, `256MB`,
/// `1GB`; `K`, `M`, `G` and `KiB`… too, all powers of 1024).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 256MB, 1GB, 65536)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("{s:?} is not a size (e.g. 256MB, 1GB, 65536)")),
    };
    let bytes = n
        .checked_mul(mult)
        .filter(|b| *b >= 1 && *b <= usize::MAX as u64 / 2)
        .ok_or_else(|| format!("{s:?} is out of range"))?;
    Ok(bytes as usize)
}

/// `256 MB` for a limit in messages.
pub fn size_text(n: usize) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Why the next line could not be read.
#[derive(Debug)]
pub enum LineError {
    /// The source could not be read (a corrupt gzip stream shows here).
    Io { line: u64, error: io::Error },
    /// Line `line` is longer than the limit; its rest is skipped by the
    /// next read.
    TooLong { line: u64 },
    /// More blank bytes than the limit in a row, up to line `line`.
    Blank { line: u64 },
}

impl LineError {
    pub fn line(&self) -> u64 {
        match self {
            LineError::Io { line, .. }
            | LineError::TooLong { line }
            | LineError::Blank { line } => *line,
        }
    }

    /// The message (the caller adds `path:line: `).
    pub fn message(&self, limits: &Limits) -> String {
        let max = size_text(limits.max_line);
        match self {
            LineError::Io { error, .. } => super::read_error(error),
            LineError::TooLong { .. } => format!(
                "the line is longer than {max} (--max-line); each record is one line, so this is not a trace line (or raise --max-line)"
            ),
            LineError::Blank { .. } => format!(
                "more than {max} of blank lines with no record (--max-line); this does not look like a trace file"
            ),
        }
    }
}

/// The non-blank lines of a source, each at most `max_line` bytes. Blank
/// lines are counted and skipped without being kept.
pub struct Lines<'r> {
    reader: &'r mut dyn BufRead,
    max_line: usize,
    /// The number of the last line read (or skipped).
    pub line: u64,
    /// The rest of an over-long line is to be skipped first.
    skipping: bool,
}

impl<'r> Lines<'r> {
    /// Reads from `reader`, whose first `line` lines were read already.
    pub fn new(reader: &'r mut dyn BufRead, limits: &Limits, line: u64) -> Lines<'r> {
        Lines {
            reader,
            max_line: limits.max_line,
            line,
            skipping: false,
        }
    }

    /// Reads the next line that is not blank into `buf`, without its line
    /// end (its leading blanks kept, so columns stay right); `false` at the
    /// end of the source.
    pub fn next(&mut self, buf: &mut Vec<u8>) -> Result<bool, LineError> {
        buf.clear();
        if self.skipping {
            self.skip_rest()?;
        }
        // Blank lines and the leading blanks of the next line.
        let mut blank = 0usize;
        let mut indent = 0usize;
        loop {
            let avail = fill(self.reader, self.line)?;
            if avail.is_empty() {
                return Ok(false);
            }
            let mut i = 0;
            let mut lines = 0;
            while i < avail.len() && blank + i <= self.max_line && indent <= self.max_line {
                match avail[i] {
                    b'\n' => {
                        lines += 1;
                        indent = 0;
                    }
                    b' ' | b'\t' | b'\r' => indent += 1,
                    _ => break,
                }
                i += 1;
            }
            let found = i < avail.len() && !matches!(avail[i], b'\n' | b' ' | b'\t' | b'\r');
            self.reader.consume(i);
            self.line += lines;
            blank += i;
            if indent > self.max_line {
                self.line += 1;
                self.skipping = true;
                return Err(LineError::TooLong { line: self.line });
            }
            if blank > self.max_line {
                return Err(LineError::Blank {
                    line: self.line.max(1),
                });
            }
            if found {
                break;
            }
        }
        buf.resize(indent, b' ');
        loop {
            let avail = fill(self.reader, self.line)?;
            if avail.is_empty() {
                self.line += 1;
                trim_cr(buf);
                return Ok(true);
            }
            let (take, end) = match memchr::memchr(b'\n', avail) {
                Some(p) => (p, true),
                None => (avail.len(), false),
            };
            if buf.len() + take > self.max_line {
                self.reader.consume(if end { take + 1 } else { take });
                self.line += 1;
                self.skipping = !end;
                buf.clear();
                return Err(LineError::TooLong { line: self.line });
            }
            push_capped(buf, &avail[..take], self.max_line);
            self.reader.consume(if end { take + 1 } else { take });
            if end {
                self.line += 1;
                trim_cr(buf);
                return Ok(true);
            }
        }
    }

    /// The reader, positioned after the last line read.
    pub fn reader(&mut self) -> &mut dyn BufRead {
        self.reader
    }

    /// Skips to just past the next line end.
    fn skip_rest(&mut self) -> Result<(), LineError> {
        loop {
            let avail = fill(self.reader, self.line)?;
            if avail.is_empty() {
                break;
            }
            match memchr::memchr(b'\n', avail) {
                Some(p) => {
                    self.reader.consume(p + 1);
                    break;
                }
                None => {
                    let n = avail.len();
                    self.reader.consume(n);
                }
            }
        }
        self.skipping = false;
        Ok(())
    }
}

/// The reader's buffered bytes (more read when it has none); empty at the end.
fn fill(reader: &mut dyn BufRead, line: u64) -> Result<&[u8], LineError> {
    loop {
        match reader.fill_buf() {
            Ok([]) => return Ok(&[]),
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(LineError::Io {
                    line: line + 1,
                    error,
                });
            }
        }
    }
    // Asked again (the bytes are buffered: no reading) so that the borrow
    // returned is not the one the loop holds.
    Ok(reader.fill_buf().unwrap_or(&[]))
}

fn trim_cr(buf: &mut Vec<u8>) {
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
}

/// Appends `data`, growing the buffer by doubling but never past
/// `limit + 1` bytes (a doubling at the limit would take twice the memory).
fn push_capped(buf: &mut Vec<u8>, data: &[u8], limit: usize) {
    let need = buf.len() + data.len();
    if need > buf.capacity() {
        let want = need
            .max(buf.capacity().saturating_mul(2))
            .max(64 * 1024)
            .min(limit.saturating_add(1))
            .max(need);
        let old = buf.capacity();
        buf.reserve_exact(want - buf.len());
        if old > crate::memory::HUGE {
            // The allocator keeps the smaller block it copied from: give it
            // back, or a 256 MB line costs 384 MB.
            crate::memory::release();
        }
    }
    buf.extend_from_slice(data);
}

/// Reads the rest of `reader` onto `bytes`, refusing to go past `max`
/// bytes in all: `Ok(false)` when the source is longer.
pub fn read_document(
    reader: &mut dyn BufRead,
    bytes: &mut Vec<u8>,
    max: usize,
) -> io::Result<bool> {
    loop {
        let avail = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(true);
        }
        let n = avail.len();
        if bytes.len() + n > max {
            return Ok(false);
        }
        push_capped(bytes, avail, max);
        reader.consume(n);
    }
}

/// A JSON text over the limits: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooBig {
    /// Byte offset where the limit was crossed.
    pub offset: usize,
    pub message: String,
}

/// Bytes of memory one parsed element takes, roughly: a `Value` (32 bytes)
/// plus the spare room of the vector holding it.
const ELEMENT: usize = 48;
/// An object member: the key's `String`, the value, and the map's share.
const MEMBER: usize = 96;

/// Checks JSON text (one value, or several in a row) before it is parsed:
/// nesting at most [`MAX_DEPTH`], and the memory serde_json would take for
/// it at most `limits.max_line`. A cheap scan that builds nothing; syntax is
/// left to the parser.
pub fn check_json(bytes: &[u8], limits: &Limits) -> Result<(), TooBig> {
    let budget = limits.max_line;
    let mut cost = 0usize;
    // One bit per open container: set for an object.
    let mut stack = [0u64; MAX_DEPTH.div_ceil(64) + 1];
    let mut depth = 0usize;
    let mut expect_key = false;
    // The last significant byte, to see where a scalar starts.
    let mut prev = b'[';
    let mut i = 0;
    let n = bytes.len();
    let in_object = |stack: &[u64], depth: usize| {
        depth > 0 && stack[(depth - 1) / 64] & (1 << ((depth - 1) % 64)) != 0
    };
    while i < n {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'"' => {
                let start = i;
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &bytes[i.min(n)..]) {
                        Some(p) if bytes[i + p] == b'\\' => i += p + 2,
                        Some(p) => {
                            i += p + 1;
                            break;
                        }
                        None => {
                            i = n;
                            break;
                        }
                    }
                }
                let len = i.min(n) - start;
                cost += if expect_key { MEMBER } else { ELEMENT } + len;
                expect_key = false;
                prev = b'"';
                if cost > budget {
                    return Err(too_big(start, budget));
                }
                continue;
            }
            b'{' | b'[' => {
                cost += ELEMENT;
                if depth >= MAX_DEPTH {
                    return Err(TooBig {
                        offset: i,
                        message: format!(
                            "JSON nested deeper than {MAX_DEPTH} levels (at column {})",
                            i + 1
                        ),
                    });
                }
                let (w, b) = (depth / 64, depth % 64);
                if c == b'{' {
                    stack[w] |= 1 << b;
                    expect_key = true;
                } else {
                    stack[w] &= !(1 << b);
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                expect_key = false;
            }
            b',' => expect_key = in_object(&stack, depth),
            b':' => {}
            _ => {
                // A number or a literal starts after `[`, `,` or `:`.
                if matches!(prev, b'[' | b',' | b':') {
                    cost += ELEMENT;
                }
            }
        }
        if cost > budget {
            return Err(too_big(i, budget));
        }
        prev = c;
        i += 1;
    }
    Ok(())
}

fn too_big(offset: usize, budget: usize) -> TooBig {
    TooBig {
        offset,
        message: format!(
            "the JSON would take more than {} of memory once parsed (by column {}; --max-line bounds it): too many values in one record; split it, or raise --max-line",
            size_text(budget),
            offset + 1
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: &[u8], max_line: usize) -> Vec<Result<(u64, String), String>> {
        let mut reader = io::BufReader::with_capacity(7, input);
        let limits = Limits { max_line };
        let mut lines = Lines::new(&mut reader, &limits, 0);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            match lines.next(&mut buf) {
                Ok(true) => out.push(Ok((lines.line, String::from_utf8(buf.clone()).unwrap()))),
                Ok(false) => break,
                Err(e @ LineError::Blank { .. }) => {
                    out.push(Err(format!("{}: blank", e.line())));
                    break;
                }
                Err(e) => out.push(Err(format!("{}: too long", e.line()))),
            }
        }
        out
    }

    #[test]
    fn lines_skip_blanks_and_keep_numbers_and_columns() {
        assert_eq!(
            lines_of(b"\n\n  {\"a\":1}\r\n\r\n\t\n[2]", 100),
            vec![Ok((3, "  {\"a\":1}".into())), Ok((6, "[2]".into()))]
        );
        assert_eq!(lines_of(b"", 100), vec![]);
        assert_eq!(lines_of(b"\n \n", 100), vec![]);
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_naming_it_and_the_next_line_is_read() {
        // 12 bytes on line 2 with a limit of 10; its rest is skipped
        assert_eq!(
            lines_of(b"{}\n[111111111,1]\n[3]\n", 10),
            vec![
                Ok((1, "{}".into())),
                Err("2: too long".into()),
                Ok((3, "[3]".into()))
            ]
        );
        // exactly at the limit is fine
        assert_eq!(
            lines_of(b"1234567890\n", 10),
            vec![Ok((1, "1234567890".into()))]
        );
        // a line of spaces is a line too
        assert_eq!(lines_of(&[b' '; 50], 10), vec![Err("1: too long".into())]);
        // a long line with no end
        assert_eq!(lines_of(&[b'x'; 50], 10), vec![Err("1: too long".into())]);
    }

    #[test]
    fn a_long_stretch_of_blank_lines_is_an_error() {
        let mut input = vec![b'\n'; 25];
        input.extend_from_slice(b"{}\n");
        assert_eq!(lines_of(&input, 10), vec![Err("11: blank".into())]);
        assert_eq!(lines_of(&input, 30), vec![Ok((26, "{}".into()))]);
    }

    #[test]
    fn buffers_never_double_past_the_limit() {
        let mut buf = Vec::new();
        for _ in 0..100 {
            push_capped(&mut buf, &[1u8; 1000], 100_000);
        }
        assert_eq!(buf.len(), 100_000);
        assert!(buf.capacity() <= 100_001, "{}", buf.capacity());
    }

    #[test]
    fn documents_are_read_up_to_the_limit() {
        let mut r = io::BufReader::with_capacity(4, &b"0123456789"[..]);
        let mut bytes = b"ab".to_vec();
        assert!(read_document(&mut r, &mut bytes, 12).unwrap());
        assert_eq!(bytes, b"ab0123456789");
        let mut r = io::BufReader::with_capacity(4, &b"0123456789"[..]);
        let mut bytes = Vec::new();
        assert!(!read_document(&mut r, &mut bytes, 9).unwrap());
    }

    #[test]
    fn json_is_checked_for_depth_and_size_before_parsing() {
        let l = Limits { max_line: 10_000 };
        assert_eq!(check_json(br#"{"a":[1,2,{"b":"c"}],"d":null}"#, &l), Ok(()));
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert_eq!(
            check_json(deep.as_bytes(), &l).unwrap_err().message,
            "JSON nested deeper than 128 levels (at column 129)"
        );
        assert_eq!(check_json("[".repeat(MAX_DEPTH).as_bytes(), &l), Ok(()));
        // many small values: about 48 bytes each
        let many = format!("[{}1]", "1,".repeat(300));
        let e = check_json(many.as_bytes(), &l).unwrap_err();
        assert!(e.offset > 300 && e.offset < 500, "{}", e.offset);
        assert!(
            e.message.starts_with(
                "the JSON would take more than 10000 bytes of memory once parsed (by column"
            ),
            "{}",
            e.message
        );
        // one long string costs its length: fine under the limit
        let s = format!("[\"{}\"]", "x".repeat(9000));
        assert_eq!(check_json(s.as_bytes(), &l), Ok(()));
        // strings hide structure: brackets and escapes inside do not count
        let s = format!("[\"{}\\\"{}\"]", "[".repeat(500), "{".repeat(500));
        assert_eq!(check_json(s.as_bytes(), &l), Ok(()));
        // object members cost more than array items
        let obj = format!(
            "{{{}}}",
            (0..90)
                .map(|i| format!("\"k{i}\":1"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(check_json(obj.as_bytes(), &l).is_err());
        let arr = format!(
            "[{}]",
            (0..90).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
        );
        assert_eq!(check_json(arr.as_bytes(), &l), Ok(()));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256MB"), Ok(256 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64 KiB"), Ok(64 << 10));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
        assert_eq!(size_text(256 << 20), "256 MB");
        assert_eq!(size_text(1000), "1000 bytes");
    }
}
