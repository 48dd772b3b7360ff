//! A function's code as a syntax tree, hashed (`functions.code_hash`): what makes two
//! definitions "the same code" for the code date, whatever their formatting.
//!
//! The hash is over the definition's syntax tree in pre-order: each node's kind, the text
//! of named leaves (identifiers), the value of string and number literals (so `'a'` and
//! `"a"` are one, and `00` and `0`), and the end of each node with children (the tree's shape). Left out:
//! comments, the function's own name (a renamed function holds the same code), its
//! docstring (an edited docstring changes no behaviour), parentheses around expressions and
//! commas (a formatter adds and removes them: the grouping they express is already the
//! tree's shape, and a tuple is a node of its own, written `(a, b)` or `a, b`; the same for
//! a parenthesized list of context managers), and line continuations. Decorators are in:
//! they change what the definition does. Whitespace never enters a syntax tree.

use tree_sitter::Node;

use crate::docstring::literal_value;
use crate::kinds::{fields, kinds};

/// The code hash (32 hex digits) of the definition `def` with its `decorators`.
pub(crate) fn code_hash(src: &str, def: Node<'_>, decorators: &[Node<'_>]) -> String {
    let mut out = Vec::with_capacity(def.byte_range().len());
    for d in decorators {
        feed(src, *d, None, &mut out);
    }
    let skip_name = def.child_by_field_id(fields().name);
    let skip_doc = def
        .child_by_field_id(fields().body)
        .and_then(|b| docstring_node(b));
    let skips = [skip_name, skip_doc];
    feed(src, def, Some(&skips), &mut out);
    schemas::id::content_id(&[b"code/1", &out])
}

/// The docstring statement of a body, when its first statement is a lone string.
fn docstring_node(body: Node<'_>) -> Option<Node<'_>> {
    let k = kinds();
    let mut c = body.walk();
    let first = body
        .named_children(&mut c)
        .find(|n| n.kind_id() != k.comment)?;
    if first.kind_id() != k.expression_statement {
        return None;
    }
    let mut c2 = first.walk();
    let named: Vec<Node<'_>> = first
        .named_children(&mut c2)
        .filter(|n| n.kind_id() != k.comment)
        .collect();
    match named.as_slice() {
        [only] if only.kind_id() == k.string || only.kind_id() == k.concatenated_string => {
            Some(first)
        }
        _ => None,
    }
}

/// Appends `node`'s part of the hash input, leaving out the nodes in `skips`. Iterative:
/// a deeply nested expression must not overflow the stack.
fn feed(src: &str, node: Node<'_>, skips: Option<&[Option<Node<'_>>]>, out: &mut Vec<u8>) {
    /// A node to visit, or the end of one (its children done).
    enum Step<'t> {
        /// A node, and whether its parent's own parentheses are left out.
        Visit(Node<'t>, bool),
        End,
    }
    let k = kinds();
    let mut stack = vec![Step::Visit(node, false)];
    while let Some(step) = stack.pop() {
        let (node, parens_dropped) = match step {
            Step::End => {
                out.extend_from_slice(&u16::MAX.to_le_bytes());
                continue;
            }
            Step::Visit(n, t) => (n, t),
        };
        if skips.is_some_and(|s| s.iter().flatten().any(|n| *n == node)) {
            continue;
        }
        let kind = node.kind_id();
        let anonymous = !node.is_named();
        if kind == k.comment
            || node.kind() == "line_continuation"
            || (anonymous && node.kind() == ",")
            || (parens_dropped && anonymous && matches!(node.kind(), "(" | ")"))
        {
            continue;
        }
        let mut c = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut c).collect();
        if kind == k.parenthesized_expression {
            // `(x)` is `x`: only the inner expression counts.
            for child in children.into_iter().rev().filter(Node::is_named) {
                stack.push(Step::Visit(child, false));
            }
            continue;
        }
        // A bare `a, b` is the tuple `(a, b)`: one kind for both, their parentheses left out.
        // The same for targets: `(a, b) = x` is `a, b = x`.
        let tuple_like = kind == k.expression_list
            || kind == k.tuple
            || matches!(node.kind(), "tuple_pattern" | "pattern_list");
        // `with (a as x, b as y):` is `with a as x, b as y:`.
        let drop_parens = tuple_like || node.kind() == "with_clause";
        let kind = if tuple_like { k.tuple } else { kind };
        out.extend_from_slice(&kind.to_le_bytes());
        if kind == k.string {
            let text = src.get(node.byte_range()).unwrap_or("");
            if let Some(value) = literal_value(text) {
                // The literal's value, whatever its quotes and escapes.
                push_text(out, &value);
                continue;
            }
        }
        if children.is_empty() {
            match node.kind() {
                // An f-string's quotes: its prefix counts, not which quote it uses.
                "string_start" => {
                    let text = src.get(node.byte_range()).unwrap_or("");
                    push_text(out, text.trim_end_matches(['"', '\'']));
                }
                "string_end" => {}
                // A number by its value: `00` is `0`, `0x10` is `16`, `1_000` is `1000`.
                "integer" | "float" => {
                    let text = src.get(node.byte_range()).unwrap_or("");
                    push_text(out, &number_value(text));
                }
                _ if node.is_named() => push_text(out, src.get(node.byte_range()).unwrap_or("")),
                _ => {}
            }
            continue;
        }
        stack.push(Step::End);
        for child in children.into_iter().rev() {
            stack.push(Step::Visit(child, drop_parens));
        }
    }
}

/// A number literal's value as canonical text (decimal integers; floats as Rust prints
/// the `f64`); the text itself, lowercased, for what does not parse (imaginary numbers).
fn number_value(text: &str) -> String {
    let t = text.replace('_', "").to_ascii_lowercase();
    let (digits, radix) = match t.get(..2) {
        Some("0x") => (&t[2..], 16),
        Some("0o") => (&t[2..], 8),
        Some("0b") => (&t[2..], 2),
        _ => (t.as_str(), 10),
    };
    if let Ok(v) = u128::from_str_radix(digits, radix) {
        return v.to_string();
    }
    if radix == 10 && !t.ends_with('j') {
        if let Ok(v) = t.parse::<f64>() {
            return format!("{v:?}");
        }
    }
    t
}

fn push_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    fn hash(src: &str) -> String {
        let a = crate::parse::analyze_file(src, "m", false).unwrap();
        assert_eq!(a.functions.len(), 1, "{src}");
        a.functions[0].code_hash.clone()
    }

    const BASE: &str = "def f(x, y=1):\n    \"\"\"Adds.\"\"\"\n    s = x + y  # sum\n    return {'a': s, \"b\": [1, 2]}\n";

    #[test]
    fn formatting_comments_docstrings_and_names_do_not_count() {
        let h = hash(BASE);
        assert_eq!(h.len(), 32);
        for same in [
            // Reformatted: spaces, quotes, parentheses, trailing commas, line breaks.
            "def f( x,y = 1 ):\n    '''Adds.'''\n    s = (x + y)\n    return {\n        \"a\": s,\n        'b': [1, 2,],\n    }\n",
            // Another docstring, no comment.
            "def f(x, y=1):\n    \"\"\"Adds two numbers.\"\"\"\n    s = x + y\n    return {'a': s, 'b': [1, 2]}\n",
            // No docstring at all.
            "def f(x, y=1):\n    s = x + y\n    return {'a': s, 'b': [1, 2]}\n",
            // Renamed.
            "def g(x, y=1):\n    \"\"\"Adds.\"\"\"\n    s = x + y\n    return {'a': s, 'b': [1, 2]}\n",
            // Indented in a class (moved), escapes spelled otherwise.
            "class C:\n    @staticmethod\n    def f(x, y=1):\n        s = x + y\n        return {'\\x61': s, 'b': [1, 2]}\n",
        ] {
            let src_hash = if same.starts_with("class") {
                let a = crate::parse::analyze_file(same, "m", false).unwrap();
                // The decorator is code: without it the method's hash is the function's.
                let m = &a.functions[0];
                assert_ne!(m.code_hash, h, "a decorator counts");
                let undecorated = same.replace("    @staticmethod\n", "");
                let a = crate::parse::analyze_file(&undecorated, "m", false).unwrap();
                a.functions[0].code_hash.clone()
            } else {
                hash(same)
            };
            assert_eq!(src_hash, h, "{same}");
        }
    }

    #[test]
    fn the_light_path_gives_the_functions_hashes() {
        for src in [
            "import x\n\n@dec(1)\ndef f(a):\n    def g(b):\n        return b\n    return g(a)\n\nclass C:\n    @property\n    def p(self):\n        return 1\n    async def q(self):\n        lam = lambda: 0\n        return lam\n",
            // With a syntax error: both take the pieces.
            "def ok(a):\n    return a\n\ndef broken(:\n    pass\n\ndef after(b):\n    return b\n",
        ] {
            let full: Vec<String> = crate::parse::analyze_file(src, "m", false)
                .unwrap()
                .functions
                .into_iter()
                .map(|f| f.code_hash)
                .collect();
            let mut light = crate::parse::code_hashes(src, "m", false).unwrap();
            let mut sorted = full.clone();
            sorted.sort();
            light.sort();
            assert_eq!(light, sorted, "{src}");
            assert!(full.len() >= 2);
        }
    }

    #[test]
    fn code_changes_count() {
        let h = hash(BASE);
        for other in [
            "def f(x, y=1):\n    s = x - y\n    return {'a': s, 'b': [1, 2]}\n",
            "def f(x, y=2):\n    s = x + y\n    return {'a': s, 'b': [1, 2]}\n",
            "def f(x, y=1):\n    s = x + y\n    return {'a': s, 'b': [1, 3]}\n",
            "def f(x, z=1):\n    s = x + z\n    return {'a': s, 'b': [1, 2]}\n",
            "def f(x, y=1):\n    s = x + y\n    return {'a': s, 'b': (1, 2)}\n",
            "async def f(x, y=1):\n    s = x + y\n    return {'a': s, 'b': [1, 2]}\n",
            "def f(x, y=1):\n    s = x + y\n    return {'a': s, 'B': [1, 2]}\n",
        ] {
            assert_ne!(hash(other), h, "{other}");
        }
        // A tuple is not its element, parentheses or not.
        assert_ne!(
            hash("def f():\n    return 1,\n"),
            hash("def f():\n    return 1\n")
        );
        assert_eq!(
            hash("def f():\n    return (1, 2)\n"),
            hash("def f():\n    return 1, 2\n")
        );
        // Numbers by value.
        assert_eq!(
            hash("def f():\n    return (00, 0x10, 1_000, 1.50, 2e3)\n"),
            hash("def f():\n    return (0, 16, 1000, 1.5, 2000.0)\n")
        );
        assert_ne!(
            hash("def f():\n    return 1\n"),
            hash("def f():\n    return 1.0\n")
        );
        assert_ne!(
            hash("def f():\n    return 1j\n"),
            hash("def f():\n    return 1\n")
        );
        // A parenthesized target is the bare one; a list target is not a tuple.
        assert_eq!(
            hash("def f(p):\n    (a, b) = p\n    return a\n"),
            hash("def f(p):\n    a, b = p\n    return a\n")
        );
        assert_ne!(
            hash("def f(p):\n    [a, b] = p\n    return a\n"),
            hash("def f(p):\n    a, b = p\n    return a\n")
        );
        // Parenthesized context managers are the unparenthesized ones.
        assert_eq!(
            hash("def f(a, b):\n    with (open(a) as x, open(b) as y,):\n        pass\n"),
            hash("def f(a, b):\n    with open(a) as x, open(b) as y:\n        pass\n")
        );
        assert_ne!(
            hash("def f(a, b):\n    with open(a) as x, open(b) as y:\n        pass\n"),
            hash("def f(a, b):\n    with open(b) as x, open(a) as y:\n        pass\n")
        );
    }
}
