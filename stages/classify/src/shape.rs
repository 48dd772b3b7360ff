//! What a function's own text says about the values it takes and gives, read with
//! tree-sitter: whether it returns a function (a `lambda`, a function or class it defines,
//! a `partial`), and which parameters it uses as objects (an attribute that no builtin
//! value has, such as `stream.getvalue()` or `cls.__subclasses__()`).
//!
//! Both decide whether a function task can be tested at all: its test cases are literal
//! inputs and a returned value compared by structure, so a function that returns a
//! function has nothing to compare, and one that needs an object of some class cannot be
//! called with literals.

use std::collections::BTreeSet;

use tree_sitter::{Node, Parser};

/// Attributes of the values a test case can hold (str, bytes, bytearray, list, dict, set,
/// frozenset, tuple, int, float, complex, bool, range, a list iterator, None; Python 3.11's
/// `dir()` of each, dunders aside), plus the dunders every value or builtin function has.
const VALUE_ATTRS: &[&str] = &[
    "__class__",
    "__doc__",
    "__module__",
    "__name__",
    "__qualname__",
    "add",
    "append",
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "capitalize",
    "casefold",
    "center",
    "clear",
    "conjugate",
    "copy",
    "count",
    "decode",
    "denominator",
    "difference",
    "difference_update",
    "discard",
    "encode",
    "endswith",
    "expandtabs",
    "extend",
    "find",
    "format",
    "format_map",
    "from_bytes",
    "fromhex",
    "fromkeys",
    "get",
    "hex",
    "imag",
    "index",
    "insert",
    "intersection",
    "intersection_update",
    "is_integer",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isdisjoint",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "issubset",
    "issuperset",
    "istitle",
    "isupper",
    "items",
    "join",
    "keys",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "numerator",
    "partition",
    "pop",
    "popitem",
    "real",
    "remove",
    "removeprefix",
    "removesuffix",
    "replace",
    "reverse",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "start",
    "startswith",
    "step",
    "stop",
    "strip",
    "swapcase",
    "symmetric_difference",
    "symmetric_difference_update",
    "title",
    "to_bytes",
    "translate",
    "union",
    "update",
    "upper",
    "values",
    "zfill",
];

/// Names whose call builds a function out of another (`functools.partial(f, 1)`).
const FUNCTION_BUILDERS: &[&str] = &["partial", "functools.partial", "partialmethod"];

/// What the text of one function shows.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Some `return` gives a function: a `lambda`, a function or class defined in the
    /// body, or a `partial(...)`.
    pub returns_function: bool,
    /// `(parameter, attribute)` for each parameter the body uses as an object: it reads an
    /// attribute of it that no literal value has, and never binds the name anew.
    pub object_params: Vec<(String, String)>,
    /// The methods the body calls, on anything, that only a file system's objects have and
    /// that change it (`leaf.mkdir(parents=True)`, `path.write_text(...)`): resolve sees no
    /// target for a method of a value, so the name is the evidence.
    pub fs_writes: Vec<String>,
}

/// Methods of `pathlib.Path` (and `os`-like objects) that write to the file system, and that
/// no builtin value has. `rename` and `replace` are left out: `str.replace` is everywhere.
const FS_WRITE_METHODS: &[&str] = &[
    "chmod",
    "hardlink_to",
    "lchmod",
    "mkdir",
    "rmdir",
    "symlink_to",
    "touch",
    "unlink",
    "write_bytes",
    "write_text",
];

/// Reads `source` (one function's text, `def` first) for the parameters `params`. Text
/// that does not parse gives an empty shape: the syntax rule rejects it on its own.
pub fn shape(source: &str, params: &[&str]) -> Shape {
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return Shape::default();
    }
    let Some(tree) = parser.parse(source, None) else {
        return Shape::default();
    };
    let root = tree.root_node();
    let Some(def) = first_def(root) else {
        return Shape::default();
    };
    let Some(body) = def.child_by_field_name("body") else {
        return Shape::default();
    };
    let src = source.as_bytes();
    let text = |n: Node| n.utf8_text(src).unwrap_or("");

    // Functions and classes defined directly in the body (at any depth of its blocks but
    // not inside another function), by name.
    let mut local_defs = BTreeSet::new();
    let mut returns = Vec::new();
    let mut rebound = BTreeSet::new();
    let mut attrs: Vec<(String, String)> = Vec::new();
    let mut fs_writes: Vec<String> = Vec::new();
    walk_body(body, &mut |n| match n.kind() {
        "function_definition" | "class_definition" => {
            if let Some(name) = n.child_by_field_name("name") {
                local_defs.insert(text(name).to_string());
            }
        }
        "return_statement" => {
            if let Some(v) = n.named_child(0) {
                returns.push(v);
            }
        }
        // `x += 1` keeps what `x` was: not a new binding.
        "assignment" | "for_statement" | "with_item" | "named_expression" => {
            let left = n
                .child_by_field_name("left")
                .or_else(|| n.child_by_field_name("name"))
                .or_else(|| {
                    n.child_by_field_name("value")
                        .filter(|_| n.kind() == "with_item")
                });
            if let Some(left) = left {
                collect_identifiers(left, &mut |id| {
                    rebound.insert(text(id).to_string());
                });
            }
        }
        "attribute" => {
            if let (Some(obj), Some(attr)) = (
                n.child_by_field_name("object"),
                n.child_by_field_name("attribute"),
            ) {
                if obj.kind() == "identifier" {
                    attrs.push((text(obj).to_string(), text(attr).to_string()));
                }
                let called = n.parent().is_some_and(|p| {
                    p.kind() == "call" && p.child_by_field_name("function") == Some(n)
                });
                let name = text(attr);
                if called
                    && FS_WRITE_METHODS.contains(&name)
                    && !fs_writes.iter().any(|w| w == name)
                {
                    fs_writes.push(name.to_string());
                }
            }
        }
        _ => {}
    });

    let returns_function = returns.iter().any(|v| {
        let v = unparenthesize(*v);
        match v.kind() {
            "lambda" => true,
            "identifier" => local_defs.contains(text(v)),
            "call" => v
                .child_by_field_name("function")
                .is_some_and(|f| FUNCTION_BUILDERS.contains(&text(f))),
            _ => false,
        }
    });

    let mut object_params = Vec::new();
    for p in params {
        if rebound.contains(*p) {
            continue;
        }
        if let Some((_, attr)) = attrs
            .iter()
            .find(|(obj, attr)| obj == p && VALUE_ATTRS.binary_search(&attr.as_str()).is_err())
        {
            object_params.push(((*p).to_string(), attr.clone()));
        }
    }
    Shape {
        returns_function,
        object_params,
        fs_writes,
    }
}

/// The first function definition (under decorators) at the top of the tree.
fn first_def(root: Node) -> Option<Node> {
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "function_definition" => return Some(child),
            "decorated_definition" => return child.child_by_field_name("definition"),
            _ => {}
        }
    }
    None
}

/// Visits every node of a function body, not descending into nested functions, classes
/// or lambdas (their own code, their own parameters), though the definitions themselves
/// are visited.
fn walk_body<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        f(child);
        match child.kind() {
            "function_definition" | "class_definition" | "lambda" => {}
            "decorated_definition" => {
                if let Some(def) = child.child_by_field_name("definition") {
                    f(def);
                }
            }
            _ => walk_body(child, f),
        }
    }
}

fn collect_identifiers<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    if node.kind() == "identifier" {
        f(node);
        return;
    }
    if matches!(node.kind(), "attribute" | "subscript") {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_identifiers(child, f);
    }
}

fn unparenthesize(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_attrs_are_sorted_for_binary_search() {
        assert!(VALUE_ATTRS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn returned_functions_are_seen() {
        let cases = [
            ("def f(x):\n    return lambda y: x + y\n", true),
            (
                "def deco(fn):\n    def wrapper(*a):\n        return fn(*a)\n    return wrapper\n",
                true,
            ),
            (
                "def make(n):\n    class K:\n        pass\n    return (K)\n",
                true,
            ),
            (
                "def bind(f, x):\n    return functools.partial(f, x)\n",
                true,
            ),
            (
                "def f(x):\n    def helper(y):\n        return y\n    return helper(x)\n",
                false,
            ),
            ("def f(x):\n    return x + 1\n", false),
            ("@cache\ndef f(x):\n    return lambda: 1\n", true),
        ];
        for (src, expected) in cases {
            assert_eq!(shape(src, &["x"]).returns_function, expected, "{src}");
        }
    }

    #[test]
    fn parameters_used_as_objects_are_named() {
        let s = shape(
            "def f(stream, text, n):\n    text.strip().split()\n    return stream.getvalue() + n.real\n",
            &["stream", "text", "n"],
        );
        assert_eq!(
            s.object_params,
            vec![("stream".to_string(), "getvalue".to_string())]
        );
        let s = shape(
            "def subclasses(cls):\n    return [c.__name__ for c in cls.__subclasses__()]\n",
            &["cls"],
        );
        assert_eq!(s.object_params.len(), 1);
    }

    #[test]
    fn file_system_writes_by_method_are_seen() {
        let s = shape(
            "def f(path, text):\n    leaf = path / 'a' / 'b'\n    leaf.mkdir(parents=True)\n    (leaf / 'x').write_text(text.replace('a', 'b'))\n    return leaf.touch\n",
            &["path", "text"],
        );
        assert_eq!(s.fs_writes, ["mkdir", "write_text"]);
    }

    #[test]
    fn rebound_parameters_and_nested_code_do_not_count() {
        // `x` is bound anew before its attribute is read.
        let s = shape("def f(x):\n    x = Path(x)\n    return x.stem\n", &["x"]);
        assert!(s.object_params.is_empty());
        // `dt += delta` still needs `dt` to be what it was.
        let s = shape(
            "def f(dt):\n    dt += timedelta(6 - dt.weekday())\n    return dt\n",
            &["dt"],
        );
        assert_eq!(s.object_params.len(), 1);
        // A nested function's own parameter of the same name is not the outer one.
        let s = shape(
            "def f(x):\n    def g(x):\n        return x.stem\n    return g\n",
            &["x"],
        );
        assert!(s.object_params.is_empty());
        assert!(s.returns_function);
    }

    #[test]
    fn text_that_does_not_parse_gives_nothing() {
        assert_eq!(shape("def f(:\n", &["x"]), Shape::default());
    }
}
