//! Python literal values read from source with tree-sitter: a parameter's default value and
//! the constants a function's body holds.

use tree_sitter::{Node, Parser};

use crate::pyval::PyVal;

/// A parser for Python.
pub fn python_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("tree-sitter-python matches the tree-sitter library (a bug in freshbench's build otherwise)");
    parser
}

/// The value of a literal expression's text (`None`, `-1`, `(1, 'a')`, `{}`), `None` when the
/// text is not a literal (`sys.maxsize`, `object()`).
pub fn parse_literal(text: &str) -> Option<PyVal> {
    parse_with(text, value_of)
}

/// The value of the expression `text` (one expression, nothing after it), read by
/// `value` from its tree-sitter node.
pub fn parse_with(text: &str, value: impl Fn(Node<'_>, &str) -> Option<PyVal>) -> Option<PyVal> {
    let src = format!("_ = {text}\n");
    let tree = python_parser().parse(&src, None)?;
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return None;
    }
    let stmt = root.named_child(0)?;
    let assign = stmt.named_child(0)?;
    let node = assign.child_by_field_name("right")?;
    value(node, &src)
}

/// The value of a literal node.
pub fn value_of(node: Node<'_>, src: &str) -> Option<PyVal> {
    let text = node.utf8_text(src.as_bytes()).ok()?;
    match node.kind() {
        "none" => Some(PyVal::None),
        "true" => Some(PyVal::Bool(true)),
        "false" => Some(PyVal::Bool(false)),
        "integer" => parse_int(text).map(PyVal::Int),
        "float" => text.replace('_', "").parse::<f64>().ok().map(PyVal::Float),
        "string" => string_value(node, src),
        "concatenated_string" => {
            let mut parts = Vec::new();
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                parts.push(string_value(c, src)?);
            }
            match parts.first()? {
                PyVal::Str(_) => Some(PyVal::Str(
                    parts
                        .iter()
                        .filter_map(|p| match p {
                            PyVal::Str(s) => Some(s.as_str()),
                            _ => None,
                        })
                        .collect(),
                )),
                _ => None,
            }
        }
        "unary_operator" => {
            let op = node.child_by_field_name("operator")?;
            let arg = value_of(node.child_by_field_name("argument")?, src)?;
            match (op.kind(), arg) {
                ("-", PyVal::Int(i)) => Some(PyVal::Int(-i)),
                ("-", PyVal::Float(f)) => Some(PyVal::Float(-f)),
                ("+", v @ (PyVal::Int(_) | PyVal::Float(_))) => Some(v),
                _ => None,
            }
        }
        "parenthesized_expression" => value_of(node.named_child(0)?, src),
        "tuple" | "list" | "set" => {
            let mut items = Vec::new();
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                if c.kind() == "comment" {
                    continue;
                }
                items.push(value_of(c, src)?);
            }
            Some(match node.kind() {
                "tuple" => PyVal::Tuple(items),
                "list" => PyVal::List(items),
                _ => PyVal::Set(items),
            })
        }
        "dictionary" => {
            let mut items = Vec::new();
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                if c.kind() != "pair" {
                    return None;
                }
                let k = value_of(c.child_by_field_name("key")?, src)?;
                let v = value_of(c.child_by_field_name("value")?, src)?;
                items.push((k, v));
            }
            Some(PyVal::Dict(items))
        }
        _ => None,
    }
}

fn parse_int(text: &str) -> Option<i128> {
    let t = text.replace('_', "").to_ascii_lowercase();
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(o) = t.strip_prefix("0o") {
        (o.to_string(), 8)
    } else if let Some(b) = t.strip_prefix("0b") {
        (b.to_string(), 2)
    } else {
        (t.trim_end_matches(['l', 'j']).to_string(), 10)
    };
    if t.ends_with('j') {
        return None; // complex
    }
    i128::from_str_radix(&digits, radix).ok()
}

/// A `string` node's value: prefixes (`r`, `b`, `u`) honoured, escapes decoded; `None` for
/// f-strings (their value depends on what they interpolate).
fn string_value(node: Node<'_>, src: &str) -> Option<PyVal> {
    let mut prefix = String::new();
    let mut body = String::new();
    let mut cursor = node.walk();
    for c in node.children(&mut cursor) {
        let text = c.utf8_text(src.as_bytes()).ok()?;
        match c.kind() {
            "string_start" => {
                prefix = text.trim_end_matches(['"', '\'']).to_ascii_lowercase();
            }
            "string_content" | "escape_sequence" => body.push_str(text),
            "interpolation" => return None,
            _ => {}
        }
    }
    if prefix.contains('f') {
        return None;
    }
    let raw = prefix.contains('r');
    let decoded = if raw {
        body
    } else {
        resolve::decode_escapes(&body)
    };
    if prefix.contains('b') {
        Some(PyVal::Bytes(
            decoded.chars().map(|c| c as u32 as u8).collect(),
        ))
    } else {
        Some(PyVal::Str(decoded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(parse_literal("None"), Some(PyVal::None));
        assert_eq!(parse_literal("-3"), Some(PyVal::Int(-3)));
        assert_eq!(parse_literal("0x1F"), Some(PyVal::Int(31)));
        assert_eq!(parse_literal("1e-3"), Some(PyVal::Float(1e-3)));
        assert_eq!(parse_literal("'a\\tb'"), Some(PyVal::Str("a\tb".into())));
        assert_eq!(parse_literal("r'a\\tb'"), Some(PyVal::Str("a\\tb".into())));
        assert_eq!(
            parse_literal("b'\\x00z'"),
            Some(PyVal::Bytes(vec![0, b'z']))
        );
        assert_eq!(
            parse_literal("(1, 'x')"),
            Some(PyVal::Tuple(vec![PyVal::Int(1), PyVal::Str("x".into())]))
        );
        assert_eq!(parse_literal("{}"), Some(PyVal::Dict(vec![])));
        assert_eq!(parse_literal("sys.maxsize"), None);
        assert_eq!(parse_literal("f'{x}'"), None);
    }
}
