//! The mutation operators: for one syntax node, the edits each operator makes there.
//! Every edit replaces one span of the original source; which nodes are visited (and which,
//! like docstrings, are not) is [`crate::walk`]'s concern.

use tree_sitter::Node;

use crate::mutant::Operator;

/// One candidate rewrite: `source[start..end]` becomes `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub operator: Operator,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

/// Which operators are on, indexed by `Operator as usize`.
pub(crate) type Enabled = [bool; Operator::ALL.len()];

/// Collects the edits of the enabled operators at `node` into `out`.
pub(crate) fn edits_at(node: Node<'_>, source: &str, enabled: Enabled, out: &mut Vec<Edit>) {
    let on = |op: Operator| enabled[op as usize];
    let mut push = |operator: Operator, span: Node<'_>, replacement: &str| {
        if on(operator) {
            out.push(Edit {
                operator,
                start: span.start_byte(),
                end: span.end_byte(),
                replacement: replacement.to_string(),
            });
        }
    };
    match node.kind() {
        "binary_operator" | "augmented_assignment" => {
            if let Some(op) = node.child_by_field_name("operator") {
                for r in arithmetic(op.kind()) {
                    push(Operator::Arithmetic, op, r);
                }
            }
        }
        "unary_operator" => {
            let op = node.child_by_field_name("operator");
            let arg = node.child_by_field_name("argument");
            if let (Some(op), Some(arg)) = (op, arg) {
                if op.kind() == "-" {
                    push(Operator::Arithmetic, node, text(arg, source));
                }
            }
        }
        "comparison_operator" => {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                if !child.is_named() {
                    for r in comparison(child.kind()) {
                        push(Operator::Comparison, child, r);
                    }
                }
            }
        }
        "boolean_operator" => {
            if let Some(op) = node.child_by_field_name("operator") {
                match op.kind() {
                    "and" => push(Operator::Boolean, op, "or"),
                    "or" => push(Operator::Boolean, op, "and"),
                    _ => {}
                }
            }
        }
        "not_operator" => {
            if let Some(arg) = node.child_by_field_name("argument") {
                push(Operator::Boolean, node, text(arg, source));
            }
        }
        "true" => push(Operator::Boolean, node, "False"),
        "false" => push(Operator::Boolean, node, "True"),
        "integer" => {
            for r in integer(text(node, source)) {
                push(Operator::Constant, node, &r);
            }
        }
        "string" => {
            if let Some(r) = emptied_string(node, source) {
                push(Operator::Constant, node, &r);
            }
        }
        "return_statement" => {
            if let Some(value) = code_children(node).next() {
                if value.kind() != "none" && on(Operator::Return) {
                    out.push(Edit {
                        operator: Operator::Return,
                        start: value.start_byte(),
                        end: node.end_byte(),
                        replacement: "None".to_string(),
                    });
                }
            }
        }
        "expression_statement" => {
            let in_block = node
                .parent()
                .filter(|p| matches!(p.kind(), "block" | "module"))
                .is_some_and(|p| code_children(p).nth(1).is_some());
            if in_block {
                push(Operator::StatementDeletion, node, "pass");
            }
        }
        "slice" => {
            for bound in slice_bounds(node) {
                let b = wrapped(bound, source);
                push(Operator::SliceBound, bound, &format!("{b} + 1"));
                push(Operator::SliceBound, bound, &format!("{b} - 1"));
            }
        }
        "if_statement" | "elif_clause" | "while_statement" => {
            if let Some(c) = node.child_by_field_name("condition") {
                push(Operator::Negation, c, &negated(c, source));
            }
        }
        _ => {}
    }
}

/// The replacements of an arithmetic operator token (plain or augmented).
fn arithmetic(op: &str) -> &'static [&'static str] {
    match op {
        "+" => &["-"],
        "-" => &["+"],
        "*" => &["/"],
        "/" => &["*", "//"],
        "//" => &["*", "/"],
        "%" | "**" => &["*"],
        "+=" => &["-="],
        "-=" => &["+="],
        "*=" => &["/="],
        "/=" => &["*=", "//="],
        "//=" => &["*=", "/="],
        "%=" | "**=" => &["*="],
        _ => &[],
    }
}

/// The replacements of a comparison operator token.
fn comparison(op: &str) -> &'static [&'static str] {
    match op {
        "<" => &["<="],
        "<=" => &["<"],
        ">" => &[">="],
        ">=" => &[">"],
        "==" => &["!="],
        "!=" => &["=="],
        "in" => &["not in"],
        "not in" => &["in"],
        "is" => &["is not"],
        "is not" => &["is"],
        _ => &[],
    }
}

/// An integer literal moved by one, in its own base: `n+1` and `n-1`, or only `1` for zero.
/// Complex (`1j`) and Python 2 long (`1L`) literals, and values past `u128`, are left alone.
fn integer(literal: &str) -> Vec<String> {
    let digits: String = literal.chars().filter(|&c| c != '_').collect();
    let lower = digits.to_ascii_lowercase();
    let (radix, prefix, body) = match lower.get(..2) {
        Some("0x") => (16, &digits[..2], &digits[2..]),
        Some("0o") => (8, &digits[..2], &digits[2..]),
        Some("0b") => (2, &digits[..2], &digits[2..]),
        _ => (10, "", digits.as_str()),
    };
    let Ok(n) = u128::from_str_radix(body, radix) else {
        return Vec::new();
    };
    let format = |v: u128| -> String {
        let b = match radix {
            16 => format!("{v:x}"),
            8 => format!("{v:o}"),
            2 => format!("{v:b}"),
            _ => v.to_string(),
        };
        format!("{prefix}{b}")
    };
    if n == 0 {
        return vec![format(1)];
    }
    [n.checked_add(1), Some(n - 1)]
        .into_iter()
        .flatten()
        .map(format)
        .collect()
}

/// A non-empty string literal made empty, keeping its prefix (`b`, `r`, `f`) and quote.
fn emptied_string(node: Node<'_>, source: &str) -> Option<String> {
    let start = node.child(0).filter(|c| c.kind() == "string_start")?;
    let end = node
        .child(node.child_count().checked_sub(1)?)
        .filter(|c| c.kind() == "string_end")?;
    if start.end_byte() == end.start_byte() {
        return None; // already empty
    }
    let opening = text(start, source);
    let quote = opening.chars().last()?;
    let prefix = opening.trim_end_matches(['"', '\'']);
    Some(format!("{prefix}{quote}{quote}"))
}

/// The start and stop expressions of a slice, those present (the step is not a bound).
fn slice_bounds(node: Node<'_>) -> Vec<Node<'_>> {
    let mut bounds = Vec::new();
    let mut colons = 0;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.kind() == ":" {
            colons += 1;
        } else if child.is_named() && !child.is_extra() && colons < 2 {
            bounds.push(child);
        }
    }
    bounds
}

/// `not c`, parenthesized unless `c` is an atom; `not x` negated is `x`.
fn negated(c: Node<'_>, source: &str) -> String {
    if c.kind() == "not_operator" {
        if let Some(arg) = c.child_by_field_name("argument") {
            return text(arg, source).to_string();
        }
    }
    format!("not {}", wrapped(c, source))
}

/// The node's text, parenthesized unless it is an atom that binds tighter than any operator.
fn wrapped(node: Node<'_>, source: &str) -> String {
    let t = text(node, source);
    let atom = matches!(
        node.kind(),
        "identifier"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "string"
            | "attribute"
            | "subscript"
            | "call"
            | "parenthesized_expression"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
    );
    if atom {
        t.to_string()
    } else {
        format!("({t})")
    }
}

/// The named children that are code, not comments.
pub(crate) fn code_children(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    (0..node.named_child_count())
        .filter_map(move |i| node.named_child(i))
        .filter(|c| !c.is_extra() && c.kind() != "comment")
}

pub(crate) fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    &source[node.start_byte()..node.end_byte()]
}

#[cfg(test)]
mod tests {
    use super::integer;

    #[test]
    fn integers_move_by_one_in_their_base() {
        assert_eq!(integer("0"), ["1"]);
        assert_eq!(integer("7"), ["8", "6"]);
        assert_eq!(integer("1_000"), ["1001", "999"]);
        assert_eq!(integer("0x1F"), ["0x20", "0x1e"]);
        assert_eq!(integer("0o7"), ["0o10", "0o6"]);
        assert_eq!(integer("0b10"), ["0b11", "0b1"]);
        assert!(integer("3j").is_empty());
        assert!(integer("3L").is_empty());
    }
}
