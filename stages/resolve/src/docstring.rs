//! Docstrings: the value of a string literal (prefix and quotes removed, the common escape
//! sequences of non-raw strings decoded) cleaned like Python's `inspect.cleandoc`.

/// The value of one string literal's source text (`r"""..."""`, `'a\n'`), or `None` when it
/// is not a plain string (an f-string or bytes, which Python does not take as a docstring).
pub fn literal_value(literal: &str) -> Option<String> {
    let quote_at = literal.find(['"', '\''])?;
    let prefix = &literal[..quote_at];
    if prefix.chars().any(|c| matches!(c, 'f' | 'F' | 'b' | 'B')) {
        return None;
    }
    let raw = prefix.chars().any(|c| matches!(c, 'r' | 'R'));
    let body = &literal[quote_at..];
    let q = &body[..1];
    let triple = if q == "\"" { "\"\"\"" } else { "'''" };
    let width = if body.len() >= 6 && body.starts_with(triple) && body.ends_with(triple) {
        3
    } else {
        1
    };
    if body.len() < 2 * width || !body.ends_with(q) {
        // Unterminated (a parse error): no value.
        return None;
    }
    let inner = &body[width..body.len() - width];
    let inner = inner.replace("\r\n", "\n");
    Some(if raw { inner } else { decode_escapes(&inner) })
}

/// Decodes Python's escape sequences in a non-raw string: `\\ \' \" \a \b \f \n \r \t \v`,
/// octal `\ooo`, `\xhh`, `\uXXXX`, `\UXXXXXXXX` and line continuations; `\N{...}` and unknown
/// escapes are kept as written, as Python keeps unknown ones.
pub fn decode_escapes(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.peek() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\x07')),
            'b' => Some(Some('\x08')),
            'f' => Some(Some('\x0c')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\x0b')),
            _ => None,
        };
        if let Some(ch) = simple {
            chars.next();
            out.extend(ch);
            continue;
        }
        let (radix, max) = match e {
            '0'..='7' => (8, 3),
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            _ => {
                out.push('\\');
                continue;
            }
        };
        let mut probe = chars.clone();
        if radix == 16 {
            probe.next();
        }
        let mut digits = String::new();
        while digits.len() < max {
            match probe.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    probe.next();
                }
                _ => break,
            }
        }
        let exact = radix == 8 || digits.len() == max;
        match u32::from_str_radix(&digits, radix)
            .ok()
            .filter(|_| exact)
            .and_then(char::from_u32)
        {
            Some(ch) if !digits.is_empty() => {
                out.push(ch);
                chars = probe;
            }
            _ => out.push('\\'),
        }
    }
    out
}

/// Python's `inspect.cleandoc` (3.11): tabs expanded, the first line's leading whitespace
/// removed, the common indentation of the other lines removed, and leading and trailing
/// empty lines dropped.
pub fn cleandoc(doc: &str) -> String {
    let expanded = expand_tabs(doc);
    let mut lines: Vec<&str> = expanded.split('\n').collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter_map(|l| {
            let content = l.trim_start();
            (!content.is_empty()).then(|| l.len() - content.len())
        })
        .min();
    if let Some(first) = lines.first_mut() {
        *first = first.trim_start();
    }
    if let Some(m) = margin {
        for l in lines.iter_mut().skip(1) {
            // The margin counts bytes of leading whitespace; slicing at a char boundary
            // keeps multi-byte whitespace (rare) intact.
            let cut = l
                .char_indices()
                .map(|(i, _)| i)
                .find(|&i| i >= m)
                .unwrap_or(l.len());
            *l = &l[cut..];
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let start = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    lines[start..].join("\n")
}

fn expand_tabs(s: &str) -> String {
    if !s.contains('\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut col = 0usize;
    for c in s.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            _ => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_values() {
        assert_eq!(literal_value(r#""""Doc.""""#).unwrap(), "Doc.");
        assert_eq!(literal_value(r"'a\tb'").unwrap(), "a\tb");
        assert_eq!(literal_value(r"r'a\tb'").unwrap(), r"a\tb");
        assert_eq!(
            literal_value(r#"u"x\u00e9\x41\101\N{DASH}\q""#).unwrap(),
            r"xéAA\N{DASH}\q"
        );
        assert_eq!(literal_value("'''line\\\ncont'''").unwrap(), "linecont");
        assert_eq!(literal_value("\"\"").unwrap(), "");
        assert_eq!(literal_value("''''''").unwrap(), "");
        assert!(literal_value("f'{x}'").is_none());
        assert!(literal_value("b'x'").is_none());
        assert!(literal_value("Rb'x'").is_none());
        assert!(literal_value("'unterminated é").is_none());
        assert!(literal_value("'").is_none());
    }

    #[test]
    fn cleandoc_like_inspect() {
        assert_eq!(
            cleandoc("  Summary.\n\n    Body line.\n      Indented.\n    "),
            "Summary.\n\nBody line.\n  Indented."
        );
        assert_eq!(
            cleandoc("\n    Starts on the second line.\n    "),
            "Starts on the second line."
        );
        assert_eq!(cleandoc("One line."), "One line.");
        assert_eq!(cleandoc("a\n\tb"), "a\nb");
        assert_eq!(cleandoc("   \n   \n"), "   ", "as inspect.cleandoc does");
        // A whitespace-only line deeper than the margin stays (as inspect keeps it).
        assert_eq!(cleandoc("x\n  y\n    \n  z"), "x\ny\n  \nz");
    }
}
