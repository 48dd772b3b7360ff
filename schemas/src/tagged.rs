//! Tagged values (written by the execute worker: `{"t": "int", "v": "12"}`, see
//! `execute::value`; `test_cases.expected_json`, `assertion_tasks.value_json`) turned
//! into Python expressions: publish's `HumanEval` export and the assertion family's
//! answers and claims.
//!
//! The JSON is read by a small reader of its own rather than `serde_json`, for two reasons:
//! a float must come out as exactly the double Python wrote (its number text is parsed by
//! Rust's correctly rounded `f64::from_str`, whereas `serde_json` without its
//! `float_roundtrip` feature may be one unit off in the last place), and a Python string
//! may hold lone surrogates (`'\ud800'`), which `json.dumps` writes as `\ud800` and a Rust
//! `String` cannot hold: strings are kept as code points here and written back as Python
//! escapes.

use std::fmt::Write as _;

/// A JSON value, numbers kept as their text and strings as code points.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    Str(Vec<u32>),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Why a tagged value (or its JSON text) cannot be read or turned into Python.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TaggedError(pub String);

impl From<&str> for TaggedError {
    fn from(s: &str) -> TaggedError {
        TaggedError(s.to_string())
    }
}

impl From<String> for TaggedError {
    fn from(s: String) -> TaggedError {
        TaggedError(s)
    }
}

/// Reads one JSON document.
pub fn parse_json(text: &str) -> Result<Json, TaggedError> {
    let mut r = Reader {
        s: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let v = r.value()?;
    r.ws();
    if r.at != r.s.len() {
        return Err(TaggedError(format!("trailing text at byte {}", r.at)));
    }
    Ok(v)
}

struct Reader<'a> {
    s: &'a [u8],
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Json, TaggedError> {
        self.ws();
        self.depth += 1;
        if self.depth > 400 {
            return Err(TaggedError("nested too deep".into()));
        }
        let out = match self.s.get(self.at) {
            None => Err(TaggedError("unexpected end".into())),
            Some(b'{') => {
                self.at += 1;
                let mut fields = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let key: String = self
                            .string()?
                            .into_iter()
                            .map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
                            .collect();
                        if !self.eat(b':') {
                            return Err(TaggedError(format!("expected `:` at byte {}", self.at)));
                        }
                        fields.push((key, self.value()?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(TaggedError(format!(
                                "expected `,` or `}}` at byte {}",
                                self.at
                            )));
                        }
                    }
                }
                Ok(Json::Object(fields))
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(TaggedError(format!(
                                "expected `,` or `]` at byte {}",
                                self.at
                            )));
                        }
                    }
                }
                Ok(Json::Array(items))
            }
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.at;
                while self
                    .s
                    .get(self.at)
                    .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.at])
                    .map_err(|e| TaggedError(e.to_string()))?;
                Ok(Json::Number(text.to_string()))
            }
            Some(b) => Err(TaggedError(format!(
                "unexpected `{}` at byte {}",
                *b as char, self.at
            ))),
        };
        self.depth -= 1;
        out
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, TaggedError> {
        if self.s[self.at..].starts_with(w.as_bytes()) {
            self.at += w.len();
            Ok(v)
        } else {
            Err(TaggedError(format!("unexpected text at byte {}", self.at)))
        }
    }

    fn hex4(&mut self) -> Result<u32, TaggedError> {
        let digits = self
            .s
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .ok_or_else(|| TaggedError("short \\u escape".into()))?;
        let v = u32::from_str_radix(digits, 16).map_err(|_| "bad \\u escape")?;
        self.at += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<Vec<u32>, TaggedError> {
        if self.s.get(self.at) != Some(&b'"') {
            return Err(TaggedError(format!(
                "expected a string at byte {}",
                self.at
            )));
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.at) else {
                return Err(TaggedError("unterminated string".into()));
            };
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(out);
                }
                b'\\' => {
                    let e = *self.s.get(self.at + 1).ok_or("unterminated escape")?;
                    self.at += 2;
                    let c = match e {
                        b'"' => 0x22,
                        b'\\' => 0x5c,
                        b'/' => 0x2f,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => 0x0a,
                        b'r' => 0x0d,
                        b't' => 0x09,
                        b'u' => {
                            let hi = self.hex4()?;
                            // A surrogate pair is one character; a lone surrogate stays as is.
                            if (0xd800..0xdc00).contains(&hi)
                                && self.s[self.at..].starts_with(b"\\u")
                            {
                                let save = self.at;
                                self.at += 2;
                                let lo = self.hex4()?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                                } else {
                                    self.at = save;
                                    hi
                                }
                            } else {
                                hi
                            }
                        }
                        _ => return Err(TaggedError(format!("bad escape `\\{}`", e as char))),
                    };
                    out.push(c);
                }
                _ => {
                    // One UTF-8 character.
                    let len = match b {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let bytes = self
                        .s
                        .get(self.at..self.at + len)
                        .ok_or("truncated UTF-8")?;
                    let ch = std::str::from_utf8(bytes)
                        .map_err(|e| e.to_string())?
                        .chars()
                        .next()
                        .ok_or("empty")?;
                    out.push(ch as u32);
                    self.at += len;
                }
            }
        }
    }
}

/// A Python string literal (single-quoted, ASCII only: everything else escaped) of the
/// given code points.
pub fn py_str(code_points: &[u32]) -> String {
    let mut out = String::from("'");
    for &c in code_points {
        match c {
            0x5c => out.push_str("\\\\"),
            0x27 => out.push_str("\\'"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from_u32(c).unwrap_or('?')),
            0..=0xff => {
                let _ = write!(out, "\\x{c:02x}");
            }
            0x100..=0xffff => {
                let _ = write!(out, "\\u{c:04x}");
            }
            _ => {
                let _ = write!(out, "\\U{c:08x}");
            }
        }
    }
    out.push('\'');
    out
}

/// A Python string literal of a Rust string.
pub fn py_str_of(s: &str) -> String {
    py_str(&s.chars().map(|c| c as u32).collect::<Vec<_>>())
}

fn field<'a>(fields: &'a [(String, Json)], name: &str) -> Option<&'a Json> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

fn text(j: &Json) -> Option<String> {
    match j {
        Json::Str(cps) => cps.iter().map(|&c| char::from_u32(c)).collect(),
        _ => None,
    }
}

/// A Python float literal for a number's JSON text (or Python's `"nan"`, `"inf"`, `"-inf"`).
fn py_float(j: &Json) -> Result<String, TaggedError> {
    match j {
        Json::Number(t) => {
            let f: f64 = t
                .parse()
                .map_err(|_| TaggedError(format!("not a float: {t}")))?;
            if f.is_finite() {
                // Rust's shortest round-trip form is a valid Python float literal and always
                // holds a `.` or an exponent (`1.0`, `1e-7`, `1e16`).
                Ok(format!("{f:?}"))
            } else {
                Ok(if f > 0.0 {
                    "float('inf')".into()
                } else {
                    "-float('inf')".into()
                })
            }
        }
        Json::Str(_) => match text(j).as_deref() {
            Some("nan") => Ok("float('nan')".into()),
            Some("inf") => Ok("float('inf')".into()),
            Some("-inf") => Ok("-float('inf')".into()),
            other => Err(TaggedError(format!("not a float: {other:?}"))),
        },
        _ => Err(TaggedError(
            "a float's value is neither a number nor nan/inf".into(),
        )),
    }
}

/// The Python expression for a tagged value, as the check function of the `HumanEval` export
/// compares it: builtin values as literals (exact types: `1`, `1.0` and `True` differ),
/// `_It([...], truncated)` for a returned iterator's first items and `_Obj(type, repr)` for
/// any other object, both names defined by that function.
pub fn to_python(value: &Json) -> Result<String, TaggedError> {
    to_python_with(value, Objects::Wrapped)
}

/// How [`to_python_with`] writes an object that is no builtin value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Objects {
    /// `_It([...], truncated)` and `_Obj(type, repr)` ([`to_python`]).
    Wrapped,
    /// As a reader would write it: the object's `repr`, an iterator's items as a list.
    Repr,
}

/// The Python expression for a tagged value, objects written as `objects` says.
pub fn to_python_with(value: &Json, objects: Objects) -> Result<String, TaggedError> {
    let to_python = |v: &Json| to_python_with(v, objects);
    let Json::Object(fields) = value else {
        return Err(TaggedError("a tagged value is a JSON object".into()));
    };
    let tag = field(fields, "t")
        .and_then(text)
        .ok_or("a tagged value has a `t`")?;
    let v = field(fields, "v");
    let need = || v.ok_or_else(|| TaggedError(format!("`{tag}` without a value")));
    let items = |j: &Json| -> Result<Vec<String>, TaggedError> {
        match j {
            Json::Array(xs) => xs.iter().map(to_python).collect(),
            _ => Err(TaggedError(format!("`{tag}` holds no list"))),
        }
    };
    Ok(match tag.as_str() {
        "none" => "None".into(),
        "bool" => match need()? {
            Json::Bool(b) => (if *b { "True" } else { "False" }).into(),
            _ => return Err(TaggedError("bool without true/false".into())),
        },
        "int" => {
            let digits = text(need()?).ok_or("int without digits")?;
            let body = digits.strip_prefix('-').unwrap_or(&digits);
            if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
                return Err(TaggedError(format!("not an int: {digits:?}")));
            }
            digits
        }
        "float" => py_float(need()?)?,
        "str" => match need()? {
            Json::Str(cps) => py_str(cps),
            _ => return Err(TaggedError("str without a string".into())),
        },
        "bytes" => {
            let hex = text(need()?).ok_or("bytes without hex")?;
            if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(TaggedError("bytes: not hex".into()));
            }
            format!("bytes.fromhex('{hex}')")
        }
        "list" => format!("[{}]", items(need()?)?.join(", ")),
        "tuple" => {
            let xs = items(need()?)?;
            match xs.len() {
                1 => format!("({},)", xs[0]),
                _ => format!("({})", xs.join(", ")),
            }
        }
        "set" => {
            let xs = items(need()?)?;
            if xs.is_empty() {
                "set()".into()
            } else {
                format!("{{{}}}", xs.join(", "))
            }
        }
        "frozenset" => {
            let xs = items(need()?)?;
            if xs.is_empty() {
                "frozenset()".into()
            } else {
                format!("frozenset({{{}}})", xs.join(", "))
            }
        }
        "dict" => {
            let Json::Array(pairs) = need()? else {
                return Err(TaggedError("dict without pairs".into()));
            };
            let mut parts = Vec::new();
            for p in pairs {
                match p {
                    Json::Array(kv) if kv.len() == 2 => {
                        parts.push(format!("{}: {}", to_python(&kv[0])?, to_python(&kv[1])?));
                    }
                    _ => return Err(TaggedError("a dict pair is not [key, value]".into())),
                }
            }
            format!("{{{}}}", parts.join(", "))
        }
        "iter" => {
            let Json::Object(it) = need()? else {
                return Err(TaggedError("iter without items".into()));
            };
            let xs = items(field(it, "items").ok_or("iter without items")?)?;
            let truncated = matches!(field(it, "truncated"), Some(Json::Bool(true)));
            if objects == Objects::Repr {
                return Ok(format!("[{}]", xs.join(", ")));
            }
            format!(
                "_It([{}], {})",
                xs.join(", "),
                if truncated { "True" } else { "False" }
            )
        }
        "object" => {
            let Json::Object(o) = need()? else {
                return Err(TaggedError("object without type and repr".into()));
            };
            let ty = field(o, "type").ok_or("object without type")?;
            let repr = field(o, "repr").ok_or("object without repr")?;
            match (ty, repr) {
                (Json::Str(_), Json::Str(r)) if objects == Objects::Repr => r
                    .iter()
                    .map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect(),
                (Json::Str(t), Json::Str(r)) => format!("_Obj({}, {})", py_str(t), py_str(r)),
                _ => return Err(TaggedError("object type and repr are strings".into())),
            }
        }
        other => return Err(TaggedError(format!("unknown tag `{other}`"))),
    })
}

/// The Python expression for an `expected_json` text.
pub fn expected_python(expected_json: &str) -> Result<String, TaggedError> {
    to_python(&parse_json(expected_json)?)
}

/// An assertion task's value as a person writes it ([`Objects::Repr`]); for a `raises`
/// task (its value the exception type's qualified name, a tagged `str`) the bare name:
/// `ValueError`, `pkg.errors.ParseError`. The one rendering of `assertion_tasks`'
/// `value_python`, `claim` and the memorized answer, so that texts compare equal exactly
/// when the values do.
pub fn assertion_python(value_json: &str, raises: bool) -> Result<String, TaggedError> {
    let j = parse_json(value_json)?;
    if raises {
        if let Json::Object(fields) = &j {
            if let (Some(t), Some(Json::Str(cps))) =
                (field(fields, "t").and_then(text), field(fields, "v"))
            {
                if t == "str" {
                    return Ok(cps
                        .iter()
                        .map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
                        .collect());
                }
            }
        }
        return Err(TaggedError("a raises value is a tagged str".into()));
    }
    to_python_with(&j, Objects::Repr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json_exactly() {
        let j = parse_json(r#"{"t":"float","v":2.2250738585072014e-308}"#).unwrap();
        assert_eq!(to_python(&j).unwrap(), "2.2250738585072014e-308");
        let s = parse_json(r#""a\"\\\/\n\u00e9\ud83d\ude00\ud800x""#).unwrap();
        assert_eq!(
            s,
            Json::Str(vec![
                0x61, 0x22, 0x5c, 0x2f, 0x0a, 0xe9, 0x1f600, 0xd800, 0x78
            ])
        );
        assert_eq!(
            py_str(&[0x61, 0x27, 0x5c, 0x0a, 0x07, 0xe9, 0x6f22, 0x1f600, 0xd800]),
            r"'a\'\\\n\x07\xe9\u6f22\U0001f600\ud800'"
        );
        assert_eq!(
            parse_json("\"é漢\"").unwrap(),
            Json::Str(vec![0xe9, 0x6f22])
        );
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "\"x", "tru", "[1] 2"] {
            assert!(parse_json(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tagged_values_to_python() {
        let cases = [
            (r#"{"t":"none"}"#, "None"),
            (r#"{"t":"bool","v":true}"#, "True"),
            (r#"{"t":"int","v":"-12"}"#, "-12"),
            (r#"{"t":"float","v":1.0}"#, "1.0"),
            (r#"{"t":"float","v":1e16}"#, "1e16"),
            (r#"{"t":"float","v":-0.0}"#, "-0.0"),
            (r#"{"t":"float","v":"nan"}"#, "float('nan')"),
            (r#"{"t":"float","v":"-inf"}"#, "-float('inf')"),
            (r#"{"t":"str","v":"it's"}"#, r"'it\'s'"),
            (r#"{"t":"bytes","v":"00ff"}"#, "bytes.fromhex('00ff')"),
            (r#"{"t":"tuple","v":[{"t":"int","v":"1"}]}"#, "(1,)"),
            (r#"{"t":"tuple","v":[]}"#, "()"),
            (r#"{"t":"set","v":[]}"#, "set()"),
            (
                r#"{"t":"frozenset","v":[{"t":"int","v":"1"},{"t":"int","v":"2"}]}"#,
                "frozenset({1, 2})",
            ),
            (
                r#"{"t":"dict","v":[[{"t":"str","v":"a"},{"t":"list","v":[]}]]}"#,
                "{'a': []}",
            ),
            (
                r#"{"t":"iter","v":{"items":[{"t":"int","v":"2"}],"truncated":false}}"#,
                "_It([2], False)",
            ),
            (
                r#"{"t":"object","v":{"type":"decimal.Decimal","repr":"Decimal('1')"}}"#,
                r"_Obj('decimal.Decimal', 'Decimal(\'1\')')",
            ),
        ];
        for (json, py) in cases {
            assert_eq!(expected_python(json).unwrap(), py, "{json}");
        }
        for bad in [
            r#"{"t":"int","v":"1.5"}"#,
            r#"{"t":"bytes","v":"0"}"#,
            r#"{"t":"mystery","v":1}"#,
            r#"{"v":1}"#,
            r"[1]",
        ] {
            assert!(expected_python(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn assertion_values_as_written() {
        let obj = r#"{"t":"list","v":[{"t":"object","v":{"type":"m.Money","repr":"Money(1250)"}},{"t":"iter","v":{"items":[{"t":"int","v":"2"}],"truncated":false}}]}"#;
        assert_eq!(assertion_python(obj, false).unwrap(), "[Money(1250), [2]]");
        assert_eq!(
            assertion_python(r#"{"t":"str","v":"ValueError"}"#, true).unwrap(),
            "ValueError"
        );
        assert_eq!(
            assertion_python(r#"{"t":"str","v":"ValueError"}"#, false).unwrap(),
            "'ValueError'"
        );
        assert!(assertion_python(r#"{"t":"int","v":"1"}"#, true).is_err());
    }
}
