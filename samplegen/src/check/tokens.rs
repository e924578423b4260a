//! `definition_tokens`: the estimated prompt cost of one tool definition.

/// ceil(Unicode scalar values / 4) of the RFC 8785 canonical JSON of
/// `{name, description, input_schema}` (the schemas here hold no floats, so
/// sorted keys and serde_json's escaping are canonical).
pub fn definition_tokens(t: &crate::model::Tool) -> u64 {
    fn canon(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::json::write_str(out, k);
                    out.push(':');
                    canon(&m[k.as_str()], out);
                }
                out.push('}');
            }
            serde_json::Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    canon(x, out);
                }
                out.push(']');
            }
            other => crate::json::write_value(out, other),
        }
    }
    let v = serde_json::json!({
        "name": t.name,
        "description": t.description,
        "input_schema": t.input_schema.clone().unwrap_or(serde_json::Value::Null),
    });
    let mut s = String::new();
    canon(&v, &mut s);
    (s.chars().count() as u64).div_ceil(4)
}
