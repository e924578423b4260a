//! Byte-stable JSON output: compact like serde_json, with object keys in one
//! fixed order whatever serde_json's `preserve_order` feature says.

use serde_json::Value;

/// Keys written first, in this order; any other key follows, sorted by code point.
const KEY_ORDER: &[&str] = &[
    "type",
    "version",
    "created_at",
    "abstain",
    "run_id",
    "task_id",
    "trial",
    "step",
    "turn",
    "at",
    "goal",
    "intent",
    "model",
    "catalogue",
    "selector",
    "scope",
    "started_at",
    "ended_at",
    "terminated",
    "success",
    "harm",
    "phase",
    "policy",
    "trusted_controls",
    "retrieval",
    "exposed",
    "visible",
    "selected",
    "call_id",
    "arguments",
    "raw",
    "outcome",
    "latency_ms",
    "result",
    "progress",
    "expected",
    "acceptable",
    "forbidden",
    "note",
    "tags",
    "tools",
    "name",
    "family",
    "effect",
    "idempotent",
    "open_world",
    "description",
    "use_when",
    "avoid_when",
    "input_schema",
    "output_schema",
    "owner",
    "provenance",
    "approval",
    "keywords",
    "status",
    "stage",
    "reason",
    "message",
    "retryable",
    "k",
    "query",
    "candidates",
    "score",
    "allowed_families",
    "max_effect",
    "allow_open_world",
    "ok",
    "properties",
    "required",
    "additionalProperties",
];

fn key_rank(k: &str) -> usize {
    KEY_ORDER
        .iter()
        .position(|x| *x == k)
        .unwrap_or(KEY_ORDER.len())
}

/// Appends `s` as a JSON string literal, escaped exactly as serde_json does.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xf) as usize] as char);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Appends `v` compactly, object keys in [`KEY_ORDER`] then by code point.
pub fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| key_rank(a).cmp(&key_rank(b)).then_with(|| a.cmp(b)));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, k);
                out.push(':');
                write_value(out, &m[k.as_str()]);
            }
            out.push('}');
        }
    }
}

/// One JSON Lines record.
pub fn line(v: &Value) -> String {
    let mut s = String::with_capacity(256);
    write_value(&mut s, v);
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_matches_serde_json() {
        for s in [
            "plain",
            "quote \" back \\ slash",
            "\u{1b}[2J\u{1b}[31mred\u{1b}[0m",
            "tab\tnl\ncr\r\u{8}\u{c}\u{0}\u{1f}",
            "unicode é ✓ 🦀 / slash",
        ] {
            let mut out = String::new();
            write_str(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
    }

    #[test]
    fn keys_in_fixed_order() {
        let v = serde_json::json!({"zeta": 1, "step": 2, "type": "decision", "alpha": [1.5, null]});
        assert_eq!(
            line(&v),
            "{\"type\":\"decision\",\"step\":2,\"alpha\":[1.5,null],\"zeta\":1}\n"
        );
    }
}
