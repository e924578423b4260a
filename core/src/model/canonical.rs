//! Canonical JSON (RFC 8785, JCS) for definition hashes, token estimates and
//! record identity: the same content always gives the same bytes.

use std::convert::Infallible;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// Where canonical bytes go. The buffers and the hasher here cannot fail
/// (`Error = Infallible`), so their callers need no error path.
pub trait Sink {
    type Error;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;
}

impl Sink for Vec<u8> {
    type Error = Infallible;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Infallible> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// Writes `value` as JCS canonical JSON.
pub fn write<W: Sink>(value: &Value, out: &mut W) -> Result<(), W::Error> {
    match value {
        Value::Null => out.write_all(b"null"),
        Value::Bool(true) => out.write_all(b"true"),
        Value::Bool(false) => out.write_all(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write(item, out)?;
            }
            out.write_all(b"]")
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object<W: Sink>(map: &Map<String, Value>, out: &mut W) -> Result<(), W::Error> {
    let mut keys: Vec<&String> = map.keys().collect();
    // serde_json's map iterates in UTF-8 byte order; JCS orders by UTF-16 code
    // units, which differs only when a key holds characters above U+FFFF.
    if keys.iter().any(|k| k.chars().any(|c| c > '\u{FFFF}')) {
        keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    }
    out.write_all(b"{")?;
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write_string(key, out)?;
        out.write_all(b":")?;
        write(&map[key], out)?;
    }
    out.write_all(b"}")
}

/// JSON string escaping as JCS (ECMAScript `JSON.stringify`) does it.
pub fn write_string<W: Sink>(s: &str, out: &mut W) -> Result<(), W::Error> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x09 => Some(b"\\t"),
            0x0a => Some(b"\\n"),
            0x0c => Some(b"\\f"),
            0x0d => Some(b"\\r"),
            0x00..=0x1f => None,
            _ => continue,
        };
        out.write_all(&bytes[start..i])?;
        match escape {
            Some(e) => out.write_all(e)?,
            None => {
                // A control byte: `\u00XX`, the hex digits in lowercase.
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let e = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ];
                out.write_all(&e)?
            }
        }
        start = i + 1;
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

fn write_number<W: Sink>(n: &Number, out: &mut W) -> Result<(), W::Error> {
    if let Some(u) = n.as_u64() {
        return write_u64(u, out);
    }
    if let Some(i) = n.as_i64() {
        out.write_all(b"-")?;
        return write_u64(i.unsigned_abs(), out);
    }
    let f = n.as_f64().unwrap_or(0.0);
    let a = f.abs();
    if f == 0.0 || !f.is_finite() {
        return out.write_all(b"0");
    }
    // In this range Rust's shortest round-trip form is the ES form (no
    // exponent); outside it ES switches to exponents.
    if (1e-6..1e21).contains(&a) {
        let mut s = String::new();
        let _ = write!(s, "{f}"); // formatting into a String cannot fail
        return out.write_all(s.as_bytes());
    }
    out.write_all(es_number(f).as_bytes())
}

/// Decimal digits without the formatting machinery (records are full of
/// small integers).
fn write_u64<W: Sink>(mut u: u64, out: &mut W) -> Result<(), W::Error> {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    out.write_all(&buf[i..])
}

/// ECMAScript number serialisation (JCS section 3.2.2.3) of a float outside
/// the range where Rust's shortest form already is it.
fn es_number(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return "0".to_string();
    }
    // Rust's `{:e}` prints the shortest round-tripping digits, as ES does.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n = exp + 1;
    let mut s = String::new();
    if f < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-n) as usize));
        s.push_str(&digits);
    } else {
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if n > 0 { '+' } else { '-' });
        s.push_str(&(n - 1).abs().to_string());
    }
    s
}

/// Canonical JSON as a string.
pub fn to_string(value: &Value) -> String {
    let mut out = Vec::new();
    let Ok(()) = write(value, &mut out);
    // Every piece written is ASCII or a whole `&str`, so this is UTF-8; the
    // lossy arm only keeps a wrong writer from panicking.
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Feeds SHA-256 through a buffer: the writer emits many tiny pieces, so
/// large values hash without a copy and without a call per piece.
struct HashSink {
    hasher: Sha256,
    buf: Vec<u8>,
}

impl HashSink {
    const CAPACITY: usize = 1 << 14;
}

impl Sink for HashSink {
    type Error = Infallible;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Infallible> {
        if self.buf.len() + bytes.len() > Self::CAPACITY {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
        if bytes.len() >= Self::CAPACITY {
            self.hasher.update(bytes);
        } else {
            self.buf.extend_from_slice(bytes);
        }
        Ok(())
    }
}

/// SHA-256 of the canonical JSON of `value`.
pub fn digest(value: &Value) -> [u8; 32] {
    let mut w = HashSink {
        hasher: Sha256::new(),
        buf: Vec::with_capacity(HashSink::CAPACITY),
    };
    let Ok(()) = write(value, &mut w);
    w.hasher.update(&w.buf);
    w.hasher.finalize().into()
}

/// SHA-256 of the canonical JSON of `value`, in lowercase hex.
pub fn sha256_hex(value: &Value) -> String {
    hex(&digest(value))
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The object a definition hash and a token estimate are computed over.
pub fn definition(name: &str, description: &str, input_schema: Option<&Value>) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::String(name.into()));
    m.insert("description".into(), Value::String(description.into()));
    m.insert(
        "input_schema".into(),
        input_schema.cloned().unwrap_or(Value::Null),
    );
    Value::Object(m)
}

/// Token estimate of a canonical JSON text: ceil(Unicode scalar values / 4).
pub fn tokens(canonical: &str) -> u64 {
    (canonical.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sorted_and_numbers_in_es_form() {
        let v: Value = serde_json::from_str(
            r#"{"b":1.0,"a":[1e21,1.5e-7,0.000001,100,-0.5,123456.789,-0.0,1e20,0.91,5e-324,-42,0,-9223372036854775808,18446744073709551615]}"#,
        )
        .unwrap();
        assert_eq!(
            to_string(&v),
            r#"{"a":[1e+21,1.5e-7,0.000001,100,-0.5,123456.789,0,100000000000000000000,0.91,5e-324,-42,0,-9223372036854775808,18446744073709551615],"b":1}"#
        );
    }

    #[test]
    fn strings_escaped_as_jcs() {
        let v = json!({"s": "a\"b\\c\n\u{1b}[2J\u{7f}é"});
        assert_eq!(to_string(&v), "{\"s\":\"a\\\"b\\\\c\\n\\u001b[2J\u{7f}é\"}");
    }

    #[test]
    fn utf16_key_order() {
        // U+1F600 (surrogates D83D..) sorts before U+FB01 in UTF-16, after it in UTF-8.
        let v = json!({"\u{fb01}": 1, "\u{1f600}": 2});
        assert_eq!(to_string(&v), "{\"\u{1f600}\":2,\"\u{fb01}\":1}");
    }

    #[test]
    fn definition_hash_is_stable() {
        let d = definition("read_file", "Return one file.", None);
        assert_eq!(
            to_string(&d),
            r#"{"description":"Return one file.","input_schema":null,"name":"read_file"}"#
        );
        assert_eq!(sha256_hex(&d).len(), 64);
        // 73 scalar values -> 19 tokens
        assert_eq!(tokens(&to_string(&d)), 19);
    }
}
