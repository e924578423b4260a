//! Python calls, as prompting models write them and BFCL's `ast_parse` reads
//! them: `[f(a=1, b="x"), mod.g(c=[1, 2.5], d={"k": None})]`.

use serde_json::{Map, Value, json};

use super::Call;

/// Decodes the calls in a prompting model's answer, after BFCL's
/// clean-up (surrounding backticks, newlines and spaces; brackets added
/// when missing). Only keyword arguments count, as in BFCL.
pub fn decode(text: &str) -> Result<Vec<Call>, String> {
    let t = text.trim_matches(|c| c == '`' || c == '\n' || c == ' ');
    let mut s = String::with_capacity(t.len() + 2);
    if !t.starts_with('[') {
        s.push('[');
    }
    s.push_str(t);
    if !t.ends_with(']') {
        s.push(']');
    }
    let mut p = Parser {
        chars: s.chars().collect(),
        pos: 0,
    };
    let calls = p.call_list()?;
    p.space();
    if p.pos != p.chars.len() {
        return Err(format!(
            "not Python calls (unexpected text at character {})",
            p.pos
        ));
    }
    Ok(calls)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

enum Expr {
    Value(Value),
    /// A bare name or dotted path.
    Name(String),
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.space();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "not Python calls (expected {c:?} at character {})",
                self.pos
            ))
        }
    }

    fn call_list(&mut self) -> Result<Vec<Call>, String> {
        self.expect('[')?;
        let mut calls = Vec::new();
        if self.eat(']') {
            return Ok(calls);
        }
        loop {
            let name = self.dotted()?;
            self.expect('(')?;
            calls.push(Call {
                name,
                arguments: Value::Object(self.arguments()?),
            });
            if self.eat(',') {
                if self.eat(']') {
                    return Ok(calls);
                }
                continue;
            }
            self.expect(']')?;
            return Ok(calls);
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.space();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        (self.pos > start && !self.chars[start].is_ascii_digit())
            .then(|| self.chars[start..self.pos].iter().collect())
    }

    fn dotted(&mut self) -> Result<String, String> {
        let mut name = self.ident().ok_or_else(|| {
            format!(
                "not Python calls (expected a function name at character {})",
                self.pos
            )
        })?;
        while self.peek() == Some('.') {
            self.pos += 1;
            let part = self
                .ident()
                .ok_or("not Python calls (a name ends with a dot)")?;
            name.push('.');
            name.push_str(&part);
        }
        Ok(name)
    }

    /// The arguments after `(`, through `)`: keyword ones kept.
    fn arguments(&mut self) -> Result<Map<String, Value>, String> {
        let mut args = Map::new();
        if self.eat(')') {
            return Ok(args);
        }
        loop {
            self.space();
            let save = self.pos;
            let keyword = self.ident().filter(|_| {
                self.space();
                self.peek() == Some('=') && self.chars.get(self.pos + 1) != Some(&'=')
            });
            match keyword {
                Some(k) => {
                    self.pos += 1;
                    let v = self.value()?;
                    args.insert(k, v);
                }
                None => {
                    // A positional argument: read and ignored.
                    self.pos = save;
                    self.value()?;
                }
            }
            if self.eat(',') {
                if self.eat(')') {
                    return Ok(args);
                }
                continue;
            }
            self.expect(')')?;
            return Ok(args);
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        Ok(match self.expr()? {
            Expr::Value(v) => v,
            Expr::Name(n) => json!(n),
        })
    }

    fn expr(&mut self) -> Result<Expr, String> {
        self.space();
        let Some(c) = self.peek() else {
            return Err("not Python calls (the text ends inside a call)".into());
        };
        match c {
            '[' | '(' => {
                let close = if c == '[' { ']' } else { ')' };
                self.pos += 1;
                let mut items = Vec::new();
                if !self.eat(close) {
                    loop {
                        items.push(self.value()?);
                        if self.eat(',') {
                            if self.eat(close) {
                                break;
                            }
                            continue;
                        }
                        self.expect(close)?;
                        break;
                    }
                }
                Ok(Expr::Value(Value::Array(items)))
            }
            '{' => {
                self.pos += 1;
                let mut m = Map::new();
                if !self.eat('}') {
                    loop {
                        let k = match self.value()? {
                            Value::String(s) => s,
                            other => other.to_string(),
                        };
                        self.expect(':')?;
                        let v = self.value()?;
                        m.insert(k, v);
                        if self.eat(',') {
                            if self.eat('}') {
                                break;
                            }
                            continue;
                        }
                        self.expect('}')?;
                        break;
                    }
                }
                Ok(Expr::Value(Value::Object(m)))
            }
            '"' | '\'' => Ok(Expr::Value(Value::String(self.string()?))),
            '-' | '+' | '0'..='9' | '.' => Ok(Expr::Value(self.number()?)),
            c if c.is_alphabetic() || c == '_' => {
                let name = self.dotted()?;
                // String prefixes: r"..", b"..", u"..", f"..".
                if matches!(self.peek(), Some('"' | '\''))
                    && name.len() <= 2
                    && name.chars().all(|c| "rRbBuUfF".contains(c))
                {
                    return Ok(Expr::Value(Value::String(self.string()?)));
                }
                if self.eat('(') {
                    // A call as a value: BFCL keeps {name: {args}}.
                    let args = self.arguments()?;
                    return Ok(Expr::Value(json!({ name: args })));
                }
                Ok(match name.as_str() {
                    "True" => Expr::Value(json!(true)),
                    "False" => Expr::Value(json!(false)),
                    "None" => Expr::Value(Value::Null),
                    _ => Expr::Name(name),
                })
            }
            other => Err(format!(
                "not Python calls ({other:?} at character {} starts no value)",
                self.pos
            )),
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        let mut negative = false;
        while let Some(c @ ('-' | '+')) = self.peek() {
            negative ^= c == '-';
            self.pos += 1;
            self.space();
        }
        let digits_start = self.pos;
        while self.peek().is_some_and(|c| {
            c.is_ascii_digit()
                || "._eE".contains(c)
                || ((c == '-' || c == '+')
                    && matches!(self.chars.get(self.pos.wrapping_sub(1)), Some('e' | 'E')))
        }) {
            self.pos += 1;
        }
        let text: String = self.chars[digits_start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        let bad = || format!("not Python calls (a bad number at character {start})");
        let is_float = text.contains(['.', 'e', 'E']);
        let v = if is_float {
            let f: f64 = text.parse().map_err(|_| bad())?;
            json!(if negative { -f } else { f })
        } else {
            let i: i64 = text.parse().map_err(|_| bad())?;
            json!(if negative { -i } else { i })
        };
        Ok(v)
    }

    fn string(&mut self) -> Result<String, String> {
        let Some(quote) = self.peek() else {
            return Err("not Python calls (a string expected at the end)".into());
        };
        let triple = self.chars.get(self.pos + 1) == Some(&quote)
            && self.chars.get(self.pos + 2) == Some(&quote);
        self.pos += if triple { 3 } else { 1 };
        let mut s = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err("not Python calls (a string is not closed)".into());
            };
            self.pos += 1;
            if c == quote {
                if !triple {
                    return Ok(s);
                }
                if self.chars.get(self.pos) == Some(&quote)
                    && self.chars.get(self.pos + 1) == Some(&quote)
                {
                    self.pos += 2;
                    return Ok(s);
                }
                s.push(c);
                continue;
            }
            if c != '\\' {
                s.push(c);
                continue;
            }
            let Some(e) = self.peek() else {
                return Err("not Python calls (a string is not closed)".into());
            };
            self.pos += 1;
            match e {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                '0' => s.push('\0'),
                '\\' | '\'' | '"' => s.push(e),
                '\n' => {}
                'x' | 'u' | 'U' => {
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = self.chars.iter().skip(self.pos).take(n).collect();
                    let ch = u32::from_str_radix(&hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or("not Python calls (a bad escape in a string)")?;
                    self.pos += n;
                    s.push(ch);
                }
                other => {
                    s.push('\\');
                    s.push(other);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::decode;

    fn py(s: &str) -> std::result::Result<Vec<(String, Value)>, String> {
        decode(s).map(|cs| cs.into_iter().map(|c| (c.name, c.arguments)).collect())
    }

    #[test]
    fn prompting_answers_decode_as_python_calls() {
        assert_eq!(
            py(
                "[geo.route(start='Paris', end=\"Lyon\", stops=[1, -2.5, 3e2], opts={'fast': True, 'toll': None}, pair=(1, 2))]"
            ),
            Ok(vec![(
                "geo.route".into(),
                json!({"start": "Paris", "end": "Lyon", "stops": [1, -2.5, 300.0], "opts": {"fast": true, "toll": null}, "pair": [1, 2]})
            )])
        );
        // BFCL's clean-up: backticks and newlines around, brackets added.
        assert_eq!(
            py("```\nf(a=1), g(b='x')\n```"),
            Ok(vec![
                ("f".into(), json!({"a": 1})),
                ("g".into(), json!({"b": "x"}))
            ])
        );
        // Positional arguments are dropped, names are kept as text, a call
        // as a value is {name: arguments}, escapes and triple quotes read.
        assert_eq!(
            py(r#"[sort('report.pdf', key=len, then=h(n=2), s='it\'s\n', t="""a"b""", u=r'x')]"#),
            Ok(vec![(
                "sort".into(),
                json!({"key": "len", "then": {"h": {"n": 2}}, "s": "it's\n", "t": "a\"b", "u": "x"})
            )])
        );
        assert_eq!(py("[]"), Ok(vec![]));
        assert_eq!(py("f()"), Ok(vec![("f".into(), json!({}))]));
        // Text is no call.
        assert!(py("I cannot do that.").is_err());
        assert!(py("[f(a=1)").is_ok(), "a missing bracket is added");
        assert!(py("[f(a=]").is_err());
        assert!(py("[[f(a=1)]]").is_err());
        assert!(py("['f(a=1)']").is_err());
    }
}
