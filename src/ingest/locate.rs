//! Byte positions inside a JSON document, so that records read out of one
//! big JSON file can still name the line they came from. A tolerant
//! structural scan: serde_json does the real parsing and reports syntax
//! errors; this only finds where values start.

/// A document's bytes with an index of its lines: the count of line ends
/// before every block of [`BLOCK`] bytes (a few bytes per 4 KB, however
/// many lines there are).
pub struct Doc<'a> {
    pub bytes: &'a [u8],
    blocks: Vec<u64>,
    /// Lines before the first byte (blank lines read but not kept).
    base: u64,
}

const BLOCK: usize = 4096;

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Doc<'a> {
    pub fn new(bytes: &'a [u8]) -> Doc<'a> {
        Doc::starting_after(bytes, 0)
    }

    /// A document whose first byte is on line `base + 1`.
    pub fn starting_after(bytes: &'a [u8], base: u64) -> Doc<'a> {
        let mut blocks = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut n = 0u64;
        blocks.push(0);
        for block in bytes.chunks(BLOCK) {
            n += block.iter().filter(|&&b| b == b'\n').count() as u64;
            blocks.push(n);
        }
        Doc {
            bytes,
            blocks,
            base,
        }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> u64 {
        let offset = offset.min(self.bytes.len());
        let k = offset / BLOCK;
        let within = self.bytes[k * BLOCK..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        self.base + self.blocks[k] + within + 1
    }

    /// The first byte at or after `i` that is not whitespace (a UTF-8 byte
    /// order mark at the very start counts as whitespace).
    pub fn skip_ws(&self, mut i: usize) -> usize {
        if i == 0 && self.bytes.starts_with(&[0xef, 0xbb, 0xbf]) {
            i = 3;
        }
        while i < self.bytes.len() && is_ws(self.bytes[i]) {
            i += 1;
        }
        i
    }

    /// The end (exclusive) of the string whose opening quote is at `i`.
    fn string_end(&self, i: usize) -> Option<usize> {
        let b = self.bytes;
        let mut j = i + 1;
        while j < b.len() {
            match b[j] {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                _ => j += 1,
            }
        }
        None
    }

    /// The end (exclusive) of the value starting at `i`; `None` when it is
    /// not terminated.
    pub fn value_end(&self, i: usize) -> Option<usize> {
        let b = self.bytes;
        match *b.get(i)? {
            b'"' => self.string_end(i),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut j = i;
                while j < b.len() {
                    match b[j] {
                        b'"' => {
                            j = self.string_end(j)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(j + 1);
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                None
            }
            _ => {
                let mut j = i;
                while j < b.len() && !is_ws(b[j]) && !matches!(b[j], b',' | b']' | b'}') {
                    j += 1;
                }
                Some(j)
            }
        }
    }

    /// The top-level values, as (start, end) byte ranges: one for a JSON
    /// document, one per line for JSON Lines. An unterminated last value
    /// runs to the end, for serde_json to report.
    pub fn values(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = self.skip_ws(0);
        while i < self.bytes.len() {
            match self.value_end(i) {
                Some(end) if end > i => {
                    out.push((i, end));
                    i = self.skip_ws(end);
                }
                _ => {
                    out.push((i, self.bytes.len()));
                    break;
                }
            }
        }
        out
    }

    /// Start offsets of the items of the array starting at `start` (empty
    /// when it is not an array).
    pub fn items(&self, start: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if self.bytes.get(start) != Some(&b'[') {
            return out;
        }
        let mut i = self.skip_ws(start + 1);
        while i < self.bytes.len() && self.bytes[i] != b']' {
            out.push(i);
            let Some(end) = self.value_end(i) else {
                break;
            };
            i = self.skip_ws(end);
            if self.bytes.get(i) == Some(&b',') {
                i = self.skip_ws(i + 1);
            } else {
                break;
            }
        }
        out
    }

    /// Start offset of member `key`'s value in the object starting at
    /// `start`.
    pub fn member(&self, start: usize, key: &str) -> Option<usize> {
        if self.bytes.get(start) != Some(&b'{') {
            return None;
        }
        let mut i = self.skip_ws(start + 1);
        while self.bytes.get(i) == Some(&b'"') {
            let kend = self.string_end(i)?;
            let raw = &self.bytes[i + 1..kend - 1];
            let matches = if raw.contains(&b'\\') {
                serde_json::from_slice::<String>(&self.bytes[i..kend])
                    .ok()
                    .as_deref()
                    == Some(key)
            } else {
                raw == key.as_bytes()
            };
            i = self.skip_ws(kend);
            if self.bytes.get(i) != Some(&b':') {
                return None;
            }
            let vstart = self.skip_ws(i + 1);
            if matches {
                return Some(vstart);
            }
            i = self.skip_ws(self.value_end(vstart)?);
            if self.bytes.get(i) == Some(&b',') {
                i = self.skip_ws(i + 1);
            } else {
                return None;
            }
        }
        None
    }

    /// The first of `keys` present in the object at `start`.
    pub fn member_any(&self, start: usize, keys: &[&str]) -> Option<usize> {
        keys.iter().find_map(|k| self.member(start, k))
    }

    /// Lines of the items of the array starting at `start` (empty when it
    /// is not an array).
    pub fn array_lines(&self, start: usize) -> Vec<u64> {
        self.items(start)
            .into_iter()
            .map(|i| self.line_of(i))
            .collect()
    }

    /// Lines of the items of the array at member `key` of the object at
    /// `start` (empty when absent).
    pub fn item_lines(&self, start: usize, key: &str) -> Vec<u64> {
        self.member(start, key)
            .map(|a| self.items(a).into_iter().map(|i| self.line_of(i)).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_items_members_and_lines() {
        let text =
            "{\"a\": [1, {\"x\": \"]}\\\"\"},\n  [2]],\n \"b\\u0063\": {\"k\": 3}}\n{\"a\": []}\n";
        let doc = Doc::new(text.as_bytes());
        let values = doc.values();
        assert_eq!(values.len(), 2);
        assert_eq!(doc.line_of(values[1].0), 4);
        let a = doc.member(values[0].0, "a").unwrap();
        let items = doc.items(a);
        assert_eq!(items.len(), 3);
        assert_eq!(doc.line_of(items[2]), 2);
        assert_eq!(
            &text[items[1]..doc.value_end(items[1]).unwrap()],
            "{\"x\": \"]}\\\"\"}"
        );
        let bc = doc.member(values[0].0, "bc").unwrap();
        assert_eq!(doc.line_of(bc), 3);
        assert!(doc.member(values[0].0, "zz").is_none());
        assert!(doc.items(doc.member(values[1].0, "a").unwrap()).is_empty());
    }

    #[test]
    fn lines_across_index_blocks_and_after_skipped_lines() {
        let text = format!("{}x\n{}y", "\n".repeat(5000), " ".repeat(9000));
        let doc = Doc::new(text.as_bytes());
        let x = text.find('x').unwrap();
        let y = text.find('y').unwrap();
        assert_eq!(doc.line_of(0), 1);
        assert_eq!(doc.line_of(x), 5001);
        assert_eq!(doc.line_of(y), 5002);
        assert_eq!(doc.line_of(text.len()), 5002);
        let doc = Doc::starting_after(text.as_bytes(), 10);
        assert_eq!(doc.line_of(y), 5012);
    }

    #[test]
    fn unterminated_value_runs_to_the_end() {
        let doc = Doc::new(b"\xef\xbb\xbf {\"a\": [1, 2");
        assert_eq!(doc.values(), vec![(4, 15)]);
    }
}
