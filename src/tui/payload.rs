//! Arguments and results as pretty JSON, produced lazily in bounded chunks:
//! a streaming re-indenter carries its state from one chunk to the next, so a
//! 100 MB result is read, indented, masked and escaped 64 KB at a time.
//! A chunk never ends inside a secret (the cut moves out of it), so masking
//! chunk by chunk hides as much as masking the whole.

use crate::redact::{self, Redactor};
use crate::text;

/// Bytes of stored JSON per chunk (before the cut moves to a line end).
pub const CHUNK: usize = 64 * 1024;
/// How far past `CHUNK` a chunk may run to end at a line break.
pub const EXTRA: usize = 16 * 1024;
/// How many bytes to read for one chunk: `CHUNK + EXTRA`, and the margin
/// that shows whether a secret runs across the cut.
pub const READ: usize = CHUNK + EXTRA + redact::MARGIN;
/// Longest line kept as one piece; longer lines are cut into pieces so that
/// drawing a screenful never touches more than a bounded amount of text.
pub const PIECE: usize = 2000;
/// Deepest nesting that still indents further (a pathological `[[[[...` must
/// not turn 64 KB into megabytes of spaces).
const MAX_INDENT: u32 = 32;

/// The re-indenter's state between two bytes of compact JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Indent {
    pub depth: u32,
    in_str: bool,
    esc: bool,
    /// A line break is owed before the next significant byte.
    nl: bool,
    /// The last significant byte opened a container (`{}` stays on one line).
    open: bool,
}

impl Indent {
    fn newline(&self, out: &mut Vec<u8>) {
        out.push(b'\n');
        for _ in 0..self.depth.min(MAX_INDENT) {
            out.extend_from_slice(b"  ");
        }
    }

    /// Whether a chunk may end right after this state: a comma outside any
    /// string was the last byte, so the owed line break starts a new line.
    pub fn at_line_end(&self) -> bool {
        !self.in_str && self.nl && !self.open
    }

    /// Feeds bytes, appending the indented text to `out` when given.
    pub fn feed(&mut self, bytes: &[u8], out: Option<&mut Vec<u8>>) {
        match out {
            Some(o) => {
                for &c in bytes {
                    self.step(c, o);
                }
            }
            None => self.skip(bytes),
        }
    }

    /// [`Indent::feed`] without the text: the state after `bytes`, the
    /// inside of strings passed over to the next quote or backslash.
    fn skip(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_str {
                if self.esc {
                    self.esc = false;
                    i += 1;
                    continue;
                }
                match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    None => return,
                    Some(j) => {
                        if bytes[i + j] == b'\\' {
                            self.esc = true;
                        } else {
                            self.in_str = false;
                        }
                        i += j + 1;
                    }
                }
                continue;
            }
            match bytes[i] {
                b' ' | b'\n' | b'\r' | b'\t' => {}
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.open = false;
                    self.nl = false;
                }
                c => {
                    self.nl = false;
                    self.open = false;
                    match c {
                        b'{' | b'[' => {
                            self.depth += 1;
                            self.nl = true;
                            self.open = true;
                        }
                        b',' => self.nl = true,
                        b'"' => self.in_str = true,
                        _ => {}
                    }
                }
            }
            i += 1;
        }
    }

    fn step(&mut self, c: u8, o: &mut Vec<u8>) {
        if self.in_str {
            o.push(c);
            if self.esc {
                self.esc = false;
            } else if c == b'\\' {
                self.esc = true;
            } else if c == b'"' {
                self.in_str = false;
            }
            return;
        }
        match c {
            b' ' | b'\n' | b'\r' | b'\t' => {}
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if !self.open {
                    self.newline(o);
                }
                self.open = false;
                self.nl = false;
                o.push(c);
            }
            _ => {
                if self.nl {
                    self.newline(o);
                    self.nl = false;
                }
                self.open = false;
                match c {
                    b'{' | b'[' => {
                        o.push(c);
                        self.depth += 1;
                        self.nl = true;
                        self.open = true;
                    }
                    b',' => {
                        o.push(c);
                        self.nl = true;
                    }
                    b':' => o.extend_from_slice(b": "),
                    b'"' => {
                        o.push(c);
                        self.in_str = true;
                    }
                    _ => o.push(c),
                }
            }
        }
    }
}

/// The end of the chunk that starts at `start` (in `buf`, which holds the
/// bytes from `start` on, [`READ`] of them when the payload has as many):
/// just after the first comma outside a string past `CHUNK`, else at most
/// `CHUNK + EXTRA` bytes on a UTF-8 boundary; then moved out of any secret
/// the cut would split (before it, or past it when it starts the chunk).
/// Secrets are looked for [`redact::MARGIN`] bytes either side of the cut
/// ([`Redactor::safe_cut`]), not over the whole chunk: the walk to the end
/// of a 100 MB payload reads every chunk.
/// Returns (length, state at the end).
pub fn chunk_len(buf: &[u8], state: Indent, redactor: &Redactor) -> (usize, Indent) {
    out_of_secrets(buf, state, structural_len(buf, state), redactor)
}

/// [`chunk_len`]'s second step: the structural end `cut` of the chunk that
/// starts in `state` moved out of any secret it would split.
pub fn out_of_secrets(
    buf: &[u8],
    state: Indent,
    cut: (usize, Indent),
    redactor: &Redactor,
) -> (usize, Indent) {
    let (len, st) = cut;
    if len >= buf.len() || redactor.disabled {
        return (len, st);
    }
    let look = &buf[..buf.len().min(len + redact::MARGIN)];
    let text = match std::str::from_utf8(look) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&look[..e.valid_up_to()]).unwrap_or(""),
    };
    let cut = redactor.safe_cut(text, len);
    if cut == len || cut == 0 {
        return (len, st);
    }
    let mut st = state;
    st.feed(&buf[..cut], None);
    (cut, st)
}

/// [`chunk_len`]'s first step: the end where the structure allows.
pub fn structural_len(buf: &[u8], state: Indent) -> (usize, Indent) {
    let mut st = state;
    if buf.len() <= CHUNK {
        st.feed(buf, None);
        return (buf.len(), st);
    }
    st.feed(&buf[..CHUNK], None);
    let limit = buf.len().min(CHUNK + EXTRA);
    let mut i = CHUNK;
    let mut scratch = Vec::new();
    while i < limit {
        st.step(buf[i], &mut scratch);
        scratch.clear();
        i += 1;
        if st.at_line_end() {
            return (i, st);
        }
    }
    if i == buf.len() {
        return (i, st);
    }
    // No line end nearby (a huge string): cut on a character boundary.
    let mut end = i;
    while end > CHUNK && (buf[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    let mut st = state;
    st.feed(&buf[..end], None);
    (end, st)
}

/// A chunk's text as the viewer shows it before long lines are cut into
/// pieces: its lines, masked and escaped; and whether the first continues
/// the previous chunk's last line (the chunk was cut inside a line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkText {
    pub lines: Vec<String>,
    pub continues: bool,
}

impl ChunkText {
    /// The lines the viewer shows: each line cut into pieces of [`PIECE`]
    /// characters.
    pub fn pieces(self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.lines.len());
        for line in self.lines {
            push_pieces(&mut out, line);
        }
        out
    }
}

/// Indents `bytes` from `state`, then masks secrets (over the whole chunk)
/// and escapes control characters line by line (see [`render`]).
pub fn chunk_text(bytes: &[u8], state: Indent, redactor: &Redactor) -> ChunkText {
    let mut st = state;
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 4);
    st.feed(bytes, Some(&mut out));
    let text = String::from_utf8_lossy(&out);
    let text = redactor.apply(&text);
    let continues = !text.starts_with('\n');
    let mut parts = text.split('\n');
    if !continues {
        parts.next();
    }
    ChunkText {
        lines: parts.map(|l| text::escape(l).into_owned()).collect(),
        continues,
    }
}

/// Plain text (a decoded `raw` string) as [`chunk_text`] gives a chunk.
pub fn text_lines(s: &str, redactor: &Redactor) -> ChunkText {
    let masked = redactor.apply(s);
    ChunkText {
        lines: masked
            .split('\n')
            .map(|l| text::escape(l).into_owned())
            .collect(),
        continues: false,
    }
}

/// Indents `bytes` from `state`, then masks secrets (over the whole chunk)
/// and escapes control characters line by line, cutting long lines into
/// pieces.
pub fn render(bytes: &[u8], state: Indent, redactor: &Redactor) -> Vec<String> {
    chunk_text(bytes, state, redactor).pieces()
}

/// Plain text (a decoded `raw` string): masked (as a whole: a private key
/// spans lines) and escaped, newlines kept.
pub fn render_text(s: &str, redactor: &Redactor) -> Vec<String> {
    text_lines(s, redactor).pieces()
}

/// Where character `col` of a line (cut into pieces of [`PIECE`]) shows:
/// (the piece, the column in it).
pub fn piece_of(col: usize) -> (usize, usize) {
    (col / PIECE, col % PIECE)
}

/// How many pieces a line of `chars` characters shows as.
pub fn pieces_in(chars: usize) -> usize {
    chars.div_ceil(PIECE).max(1)
}

fn push_pieces(lines: &mut Vec<String>, safe: String) {
    if safe.len() <= PIECE {
        lines.push(safe);
        return;
    }
    let mut piece = String::with_capacity(PIECE);
    let mut n = 0;
    for c in safe.chars() {
        piece.push(c);
        n += 1;
        if n == PIECE {
            lines.push(std::mem::take(&mut piece));
            n = 0;
        }
    }
    if !piece.is_empty() {
        lines.push(piece);
    }
}

pub use crate::text::human_bytes;

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(s: &str) -> String {
        render(s.as_bytes(), Indent::default(), &Redactor::default()).join("\n")
    }

    #[test]
    fn skipping_ends_in_the_state_feeding_does() {
        let text = br#"{"a":[1,{"b":"x,\\\"y:{"},[],{}],"c":null,"d":"q\"}", "e" : [ ] }"#;
        for cut in 0..text.len() {
            let (mut fed, mut skipped) = (Indent::default(), Indent::default());
            let mut out = Vec::new();
            fed.feed(&text[..cut], Some(&mut out));
            skipped.feed(&text[..cut], None);
            assert_eq!(fed, skipped, "after {cut} bytes");
            // and on from there
            let (mut a, mut b) = (fed, skipped);
            a.feed(&text[cut..], Some(&mut out));
            b.feed(&text[cut..], None);
            assert_eq!(a, b, "from {cut}");
        }
    }

    #[test]
    fn indents_like_serde_pretty() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"a":[1,{"b":"x,y:{"},[],{}],"c":null,"d":"q\"}"}"#).unwrap();
        let compact = serde_json::to_string(&v).unwrap();
        assert_eq!(pretty(&compact), serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn chunks_carry_state_and_end_on_line_breaks() {
        let items: Vec<String> = (0..20_000).map(|i| format!("\"item-{i}\"")).collect();
        let compact = format!("{{\"list\":[{}]}}", items.join(","));
        let bytes = compact.as_bytes();
        let mut lines = Vec::new();
        let (mut start, mut st) = (0, Indent::default());
        while start < bytes.len() {
            let (len, end) = chunk_len(&bytes[start..], st, &Redactor::default());
            let part = render(&bytes[start..start + len], st, &Redactor::default());
            if start + len < bytes.len() {
                assert!(part.last().unwrap().ends_with(','), "chunk ends a line");
            }
            lines.extend(part);
            start += len;
            st = end;
        }
        assert_eq!(lines.join("\n"), pretty(&compact));
    }

    /// Reads a payload chunk by chunk as the viewer does ([`READ`] bytes
    /// from each chunk's start).
    fn viewer_lines(bytes: &[u8], r: &Redactor) -> Vec<String> {
        let mut lines = Vec::new();
        let (mut start, mut st) = (0, Indent::default());
        while start < bytes.len() {
            let buf = &bytes[start..bytes.len().min(start + READ)];
            let (len, end) = chunk_len(buf, st, r);
            assert!(len > 0);
            lines.extend(render(&buf[..len], st, r));
            start += len;
            st = end;
        }
        lines
    }

    #[test]
    fn a_key_across_a_chunk_edge_is_masked() {
        let key = "sk-proj-4f9aQ2xLk81abcdEFGH";
        // One long string with no line break: the cut falls inside it, and
        // here 5 bytes into the key.
        let lead = br#"{"blob":""#.len();
        let before = CHUNK + EXTRA - 5 - lead - 1;
        let payload = format!(
            "{{\"blob\":\"{} {key} {}\"}}",
            "x".repeat(before),
            "y".repeat(CHUNK)
        );
        assert_eq!(&payload[CHUNK + EXTRA - 5..CHUNK + EXTRA], "sk-pr");
        let r = Redactor::default();
        let lines = viewer_lines(payload.as_bytes(), &r);
        let all = lines.concat();
        assert!(!all.contains("sk-pr"), "the key's start escaped");
        assert!(!all.contains("Q2xLk81"), "the key's end escaped");
        assert_eq!(all.matches(MASK_TEXT).count(), 1);
        // Nothing else is lost: the text is the whole payload, masked.
        let whole = render(payload.as_bytes(), Indent::default(), &r).concat();
        assert_eq!(all, whole);
        // With masking off, the key is shown whole across the edge.
        let off = Redactor::new(&[], true).unwrap();
        assert!(
            viewer_lines(payload.as_bytes(), &off)
                .concat()
                .contains(key)
        );
    }

    /// The cut as it was found before the search was narrowed to
    /// [`redact::MARGIN`] either side: over the whole chunk.
    fn whole_chunk_cut(buf: &[u8], state: Indent, r: &Redactor) -> usize {
        let (len, _) = structural_len(buf, state);
        if len >= buf.len() {
            return len;
        }
        let look = &buf[..buf.len().min(len + redact::MARGIN)];
        match r.straddling(std::str::from_utf8(look).unwrap(), len) {
            Some(s) if s.start > 0 => s.start,
            Some(s) => s.end,
            None => len,
        }
    }

    #[test]
    fn the_narrow_search_cuts_where_a_whole_chunk_search_does() {
        // Keys every 61 bytes of one long string (no line break, so the cut
        // falls inside it) and a list of keys with commas: wherever the
        // structural cut lands, before, inside or after a key, the cut is
        // the one a search over the whole chunk gives, and never in a key.
        let r = Redactor::default();
        let key = |i: usize| format!("sk-proj-{i:08}abcdEFGHijkl");
        for shift in 0..70 {
            let blob: String = (0..2_000)
                .map(|i| format!("{} {} ", "x".repeat(20), key(i)))
                .collect();
            let payload = format!("{{\"blob\":\"{}{blob}\"}}", "y".repeat(shift));
            let bytes = payload.as_bytes();
            let buf = &bytes[..bytes.len().min(READ)];
            let (len, _) = chunk_len(buf, Indent::default(), &r);
            assert_eq!(
                len,
                whole_chunk_cut(buf, Indent::default(), &r),
                "shift {shift}"
            );
            let text = std::str::from_utf8(&buf[..buf.len().min(len + redact::MARGIN)]).unwrap();
            assert!(
                r.straddling(text, len).is_none(),
                "shift {shift}: cut in a key"
            );
            let list: String = (0..4_000).map(|i| format!("\"{}\",", key(i))).collect();
            let payload = format!("{{\"keys\":[{}{list}\"end\"]}}", "1,".repeat(shift));
            let buf = &payload.as_bytes()[..READ];
            let (len, _) = chunk_len(buf, Indent::default(), &r);
            assert_eq!(
                len,
                whole_chunk_cut(buf, Indent::default(), &r),
                "list, shift {shift}"
            );
        }
    }

    const MASK_TEXT: &str = crate::redact::MASK;

    #[test]
    fn masks_escapes_and_cuts() {
        let lines = render(
            br#"{"k":"sk-test-4f9aQ2xLk81","e":"\u001b[2J","c":"a\u009bb"}"#,
            Indent::default(),
            &Redactor::default(),
        );
        assert_eq!(lines[1], "  \"k\": \"••••\",");
        assert_eq!(lines[2], "  \"e\": \"\\u001b[2J\",");
        // serde keeps C1 controls raw in strings: they are escaped here
        let raw_c1 = "{\"c\":\"a\u{9b}b\"}";
        let lines = render(raw_c1.as_bytes(), Indent::default(), &Redactor::default());
        assert_eq!(lines[1], "  \"c\": \"a\\u{9b}b\"");
        let long = format!("\"{}\"", "x".repeat(PIECE * 2 + 10));
        let lines = render(long.as_bytes(), Indent::default(), &Redactor::default());
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].chars().count(), PIECE);
    }
}
