//! Where a function sits in Python source, found with tree-sitter (which also reads text
//! with syntax errors, so a model's broken answer still has its functions found), and the
//! neutral version of a function: its body replaced by `pass`, the one "empty solution"
//! that validation runs and the `null` reference solver answers.

use tree_sitter::{Node, Parser};

/// The bytes of one top-level function definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSpan {
    /// Start of the definition, its decorators included.
    pub start: usize,
    /// End of the definition (the end of its last statement).
    pub end: usize,
    /// Start of the body's first statement.
    pub body_start: usize,
    /// End of the body.
    pub body_end: usize,
    /// Whether the body starts on a line of its own (not `def f(): return 1`).
    pub body_on_own_line: bool,
    /// The indentation of the body's first line (when on a line of its own).
    pub body_indent: String,
    /// End of the docstring statement, when the body starts with one.
    pub docstring_end: Option<usize>,
}

fn parse(source: &str) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .ok()?;
    parser.parse(source, None)
}

/// The last top-level definition of `name` (the one Python binds), `def` or `async def`,
/// with or without decorators. `None` when there is none at the top level.
pub fn find_function(source: &str, name: &str) -> Option<FunctionSpan> {
    let tree = parse(source)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut found = None;
    for child in root.named_children(&mut cursor) {
        let (outer, def) = match child.kind() {
            "function_definition" => (child, child),
            "decorated_definition" => match child.child_by_field_name("definition") {
                Some(d) if d.kind() == "function_definition" => (child, d),
                _ => continue,
            },
            _ => continue,
        };
        let is_it = def
            .child_by_field_name("name")
            .and_then(|n| n.utf8_text(source.as_bytes()).ok())
            == Some(name);
        if is_it {
            if let Some(span) = span_of(source, outer, def) {
                found = Some(span);
            }
        }
    }
    found
}

fn span_of(source: &str, outer: Node<'_>, def: Node<'_>) -> Option<FunctionSpan> {
    let body = def.child_by_field_name("body")?;
    let body_start = body.start_byte();
    let line_start = source[..body_start].rfind('\n').map_or(0, |i| i + 1);
    let before = &source[line_start..body_start];
    let body_on_own_line = before.chars().all(char::is_whitespace);
    let docstring_end = body.named_child(0).and_then(|first| {
        let is_doc = first.kind() == "expression_statement"
            && first.named_child_count() == 1
            && first.named_child(0).is_some_and(|s| s.kind() == "string");
        is_doc.then(|| first.end_byte())
    });
    Some(FunctionSpan {
        start: outer.start_byte(),
        end: outer.end_byte(),
        body_start,
        body_end: body.end_byte(),
        body_on_own_line,
        body_indent: if body_on_own_line {
            before.to_string()
        } else {
            String::new()
        },
        docstring_end,
    })
}

/// Why there is no neutral version of a function.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the source has no top-level `def {0}`")]
pub struct NoFunction(pub String);

/// `source` with the top-level function `entry_point`'s body replaced by `pass` (its
/// signature, decorators, docstring and everything else of the source kept): it defines
/// the function and does nothing. Validation's "the empty body fails" and the `null`
/// reference solver both use it, so they test the same thing.
pub fn null_function(source: &str, entry_point: &str) -> Result<String, NoFunction> {
    let f = find_function(source, entry_point).ok_or_else(|| NoFunction(entry_point.into()))?;
    let mut out = String::with_capacity(source.len());
    match f.docstring_end {
        Some(doc_end) if f.body_on_own_line => {
            out.push_str(&source[..doc_end]);
            out.push('\n');
            out.push_str(&f.body_indent);
            out.push_str("pass");
        }
        _ => {
            out.push_str(&source[..f.body_start]);
            out.push_str("pass");
        }
    }
    out.push_str(&source[f.body_end..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_top_level_definition() {
        let src = "import re\n\n\n@cache\ndef f(x: int) -> int:\n    \"\"\"Doc.\"\"\"\n    return x\n\n\nclass C:\n    def g(self):\n        pass\n";
        let f = find_function(src, "f").unwrap();
        assert_eq!(&src[f.start..f.start + 6], "@cache");
        assert_eq!(
            &src[f.body_start..f.body_end],
            "\"\"\"Doc.\"\"\"\n    return x"
        );
        assert_eq!(
            &src[f.body_start..f.docstring_end.unwrap()],
            "\"\"\"Doc.\"\"\""
        );
        assert_eq!(f.body_indent, "    ");
        assert!(f.body_on_own_line);
        // Methods are not top-level functions.
        assert_eq!(find_function(src, "g"), None);
        assert_eq!(find_function(src, "h"), None);
    }

    #[test]
    fn one_line_bodies_and_redefinitions() {
        let src = "def f(): return 1\n\nasync def f(x):\n  return x\n";
        let f = find_function(src, "f").unwrap();
        assert_eq!(&src[f.body_start..f.body_end], "return x");
        assert_eq!(f.body_indent, "  ");
        assert_eq!(f.docstring_end, None);
        let one = find_function("def g(): return 1\n", "g").unwrap();
        assert!(!one.body_on_own_line);
    }

    #[test]
    fn null_functions_keep_signature_and_docstring() {
        let src = "import re\n\ndef f(x, *, y=1):\n    \"\"\"Doc.\"\"\"\n    return x\n";
        assert_eq!(
            null_function(src, "f").unwrap(),
            "import re\n\ndef f(x, *, y=1):\n    \"\"\"Doc.\"\"\"\n    pass\n"
        );
        assert_eq!(
            null_function("def g(): return 1\n", "g").unwrap(),
            "def g(): pass\n"
        );
        assert_eq!(
            null_function("def g(): return 1\n", "h"),
            Err(NoFunction("h".into()))
        );
    }
}
