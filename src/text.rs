//! Untrusted text made safe for a terminal: control characters and escape
//! sequences shown escaped (`\x1b[2J`), never interpreted; and [`Shown`],
//! trace text masked (by a [`Redactor`]) then escaped, the form every trace
//! string takes on its way to a terminal.

use std::borrow::Cow;

use crate::redact::{Masked, Redactor};

/// Characters a terminal could act on or that show as nothing: C0 and C1
/// controls, DEL, the bidirectional overrides that reorder what is shown,
/// and the zero-width and invisible format characters (zero-width space
/// and joiners, word joiner, byte-order mark, soft hyphen, line and
/// paragraph separators, tag characters) that hide text or leave a screen
/// cell holding a glyph the terminal draws elsewhere.
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
        || is_invisible(c)
}

/// Whether `s` holds an [`is_unsafe`] character other than `\n` when
/// `newline_ok`. Every unsafe character is an ASCII control or not ASCII:
/// plain printable ASCII is passed over a byte at a time.
fn has_unsafe(s: &str, newline_ok: bool) -> bool {
    let b = s.as_bytes();
    let Some(i) = b
        .iter()
        .position(|&c| !((0x20..0x7f).contains(&c) || (newline_ok && c == b'\n')))
    else {
        return false;
    };
    // `i` is a char boundary: the byte there is ASCII or starts a char.
    s[i..]
        .chars()
        .any(|c| is_unsafe(c) && !(newline_ok && c == '\n'))
}

/// Zero-width and invisible format characters.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{34f}' | '\u{180e}' | '\u{200b}'..='\u{200d}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{206a}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e007f}')
}

/// How many terminal columns `s` takes (wide characters count two,
/// combining marks none).
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// `s` followed by spaces to `w` columns (as it is when wider).
pub fn pad_right(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

/// Spaces then `s`, to `w` columns (as it is when wider).
pub fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// One-line safe text: every unsafe character escaped (newlines too).
pub fn escape(s: &str) -> Cow<'_, str> {
    if !has_unsafe(s, false) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Multi-line safe text: like [`escape`] but newlines are kept.
pub fn escape_multiline(s: &str) -> Cow<'_, str> {
    if !has_unsafe(s, true) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c != '\n' && is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// JSON text safe for a terminal: serde_json already escapes C0 controls;
/// C1 controls and bidi overrides become `\uXXXX` escapes (still valid JSON,
/// the same value).
pub fn safe_json(s: String) -> String {
    // Newlines are kept as they are: text with no other unsafe character
    // comes back unchanged.
    if !has_unsafe(&s, true) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) && c != '\n' {
            // A character past U+FFFF (the tag characters) is written as
            // its UTF-16 surrogate pair, as JSON spells it.
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A human size: `812 B`, `64.0 KB`, `104.9 MB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Cuts `s` to at most `max` terminal columns, marking the cut with `…`
/// (a wide character that would straddle the edge is left out).
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    let room = max.saturating_sub(1);
    let mut t = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c);
        if used + w > room {
            break;
        }
        used += w;
        t.push(c);
    }
    if max > 0 {
        t.push('…');
    }
    Cow::Owned(t)
}

/// How many characters of a value from a trace an error message echoes.
pub const ECHO_MAX: usize = 120;

/// A value from a trace as a message echoes it: secrets masked, control
/// characters (newlines too) escaped, cut to [`ECHO_MAX`] characters with
/// `…`, in double quotes.
pub fn echo(s: &str) -> String {
    // Only the start is shown: masking and escaping more is wasted work
    // (a secret cut at the edge is still masked, its start being enough).
    let head = match s.char_indices().nth(4 * ECHO_MAX) {
        Some((i, _)) => &s[..i],
        None => s,
    };
    let masked = crate::redact::mask(head);
    let escaped = escape(&masked);
    let cut = s.len() > head.len() || escaped.chars().count() > ECHO_MAX;
    if cut {
        let t: String = escaped.chars().take(ECHO_MAX - 1).collect();
        format!("\"{t}…\"")
    } else {
        format!("\"{escaped}\"")
    }
}

/// Text from a trace as a terminal shows it: secrets masked, then control
/// characters escaped (see [`escape`]). Every string from a
/// trace reaches the TUI, `explain` and the reports' text through one of
/// these; it can only be made by [`Redactor::show`],
/// [`Redactor::show_multiline`], [`Masked::shown`] or, for rung's own fixed
/// words, [`Shown::ours`]. It reads as a `&str`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Shown(String);

impl Shown {
    /// rung's own words: nothing to mask or escape.
    pub fn ours(s: &'static str) -> Shown {
        Shown(s.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_owned(self) -> String {
        self.0
    }
}

impl std::ops::Deref for Shown {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Shown {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Shown {
    /// As a `str` formats: width, fill and alignment honoured (`{:<14}`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.0)
    }
}

impl From<Shown> for String {
    fn from(s: Shown) -> String {
        s.0
    }
}

impl<'a> From<Shown> for ratatui::text::Text<'a> {
    fn from(s: Shown) -> Self {
        ratatui::text::Text::raw(s.0)
    }
}

impl<'a> From<Shown> for ratatui::text::Span<'a> {
    fn from(s: Shown) -> Self {
        ratatui::text::Span::raw(s.0)
    }
}

impl Masked {
    /// As a terminal shows it: control characters escaped, on one line.
    pub fn shown(&self) -> Shown {
        Shown(escape(self.as_str()).into_owned())
    }
}

impl Redactor {
    /// `s` as a terminal shows it on one line: masked, then escaped.
    pub fn show(&self, s: &str) -> Shown {
        Shown(escape(&self.apply(s)).into_owned())
    }

    /// `s` as a terminal shows it over several lines: masked, then escaped
    /// but for its newlines.
    pub fn show_multiline(&self, s: &str) -> Shown {
        Shown(escape_multiline(&self.apply(s)).into_owned())
    }

    /// `s` as a terminal shows it, line by line: masked as a whole (a
    /// secret over several lines is found), then each line escaped.
    pub fn show_lines(&self, s: &str) -> Vec<Shown> {
        self.apply(s)
            .split('\n')
            .map(|l| Shown(escape(l).into_owned()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_scan_finds_what_the_char_scan_finds() {
        let cases = [
            ("plain ascii", false, false),
            ("line\nnext", true, false),
            ("tab\there", true, true),
            ("del\u{7f}", true, true),
            ("é then \u{9b}", true, true),
            ("é ✓ only", false, false),
            ("zero\u{200b}width", true, true),
            ("", false, false),
        ];
        for (s, any, beyond_newline) in cases {
            assert_eq!(has_unsafe(s, false), any, "{s:?}");
            assert_eq!(has_unsafe(s, true), beyond_newline, "{s:?}");
            assert_eq!(has_unsafe(s, false), s.chars().any(is_unsafe), "{s:?}");
        }
        // Newlines stay in JSON text; a C1 control after one is escaped.
        assert_eq!(safe_json("{\n  \"a\": 1\n}".into()), "{\n  \"a\": 1\n}");
        assert_eq!(safe_json("a\n\u{9b}".into()), "a\n\\u009b");
        // A tag character (past U+FFFF) is a surrogate pair, so the JSON
        // reads back as the same text.
        let tagged = safe_json(serde_json::to_string("x\u{e0041}y").unwrap());
        assert_eq!(tagged, "\"x\\udb40\\udc41y\"");
        assert_eq!(
            serde_json::from_str::<String>(&tagged).unwrap(),
            "x\u{e0041}y"
        );
    }

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape("a\u{1b}[2Jb"), "a\\x1b[2Jb");
        assert_eq!(escape("line\nnext\t"), "line\\nnext\\t");
        assert_eq!(escape("csi\u{9b}31m"), "csi\\u{9b}31m");
        assert_eq!(escape("rtl\u{202e}txt"), "rtl\\u{202e}txt");
        assert_eq!(escape("plain é ✓"), "plain é ✓");
        assert_eq!(escape_multiline("a\nb\u{7}"), "a\nb\\x07");
        assert_eq!(
            safe_json(serde_json::to_string("x\u{1b}y\u{9b}").unwrap()),
            "\"x\\u001by\\u009b\""
        );
        assert_eq!(truncate("abcdef", 4), "abc…");
    }

    #[test]
    fn zero_width_characters_are_escaped() {
        assert_eq!(escape("a\u{200b}b"), "a\\u{200b}b");
        assert_eq!(
            escape("a\u{200d}b\u{feff}c\u{2060}"),
            "a\\u{200d}b\\u{feff}c\\u{2060}"
        );
        assert_eq!(escape("soft\u{ad}hy"), "soft\\u{ad}hy");
        assert_eq!(escape("tag\u{e0041}"), "tag\\u{e0041}");
        // accents and wide characters are text
        assert_eq!(escape("cafe\u{301} 日本"), "cafe\u{301} 日本");
    }

    #[test]
    fn widths_count_terminal_columns() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("日本語"), 6);
        assert_eq!(width("cafe\u{301}"), 4);
        assert_eq!(truncate("日本語です", 5), "日本…");
        assert_eq!(truncate("日本語です", 6), "日本…");
        assert_eq!(truncate("日本語", 6), "日本語");
        assert_eq!(pad_right("日本", 6), "日本  ");
        assert_eq!(pad_left("日本", 6), "  日本");
    }

    #[test]
    fn echoes_are_masked_escaped_and_cut() {
        assert_eq!(echo("act"), "\"act\"");
        assert_eq!(echo("sk-proj-4f9aQ2xLk81abcd"), "\"••••\"");
        assert_eq!(echo("a\nERROR forged"), "\"a\\nERROR forged\"");
        let long = echo(&"x".repeat(100_000_000));
        assert_eq!(long, format!("\"{}…\"", "x".repeat(ECHO_MAX - 1)));
        // a key cut by the limit still does not show
        let key = format!(
            "{} sk-proj-4f9aQ2xLk81abcdefghijklmnop",
            "y".repeat(ECHO_MAX - 5)
        );
        assert_eq!(echo(&key), format!("\"{} ••••\"", "y".repeat(ECHO_MAX - 5)));
    }
    #[test]
    fn shown_text_pads_as_a_str_does() {
        let r = Redactor::default();
        assert_eq!(format!("[{:<6}]", r.show("kb-1")), "[kb-1  ]");
        assert_eq!(format!("[{:>6}]", r.show("kb-1")), "[  kb-1]");
        assert_eq!(format!("[{:<6}]", r.show("a\x1bb")), "[a\\x1bb]");
    }
}
