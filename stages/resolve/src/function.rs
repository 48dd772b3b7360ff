//! What a function definition says about itself: span, parameters, return annotation,
//! decorators, docstring and size. (Complexity, generator-ness and the names it uses come
//! from the walk, which sees its body.)

use schemas::ParamKind;
use tree_sitter::Node;

use crate::docstring::{cleandoc, literal_value};
use crate::kinds::{fields, kinds, Kinds};
use crate::model::FunctionInfo;

/// Describes the definition `def` (a `function_definition`); `outer` is the node that
/// starts it (the `decorated_definition` when decorated, else `def` itself). Names,
/// qualname, nesting and body metrics are left for the caller.
pub(crate) fn describe(
    src: &str,
    def: Node<'_>,
    outer: Node<'_>,
    decorators: &[Node<'_>],
) -> FunctionInfo {
    let (k, f) = (kinds(), fields());
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("");
    let start = outer.start_position();
    let end = outer.end_position();
    let end_line = if end.column == 0 && end.row > start.row {
        end.row
    } else {
        end.row + 1
    };
    let source = text(outer);
    FunctionInfo {
        qualname: String::new(),
        name: String::new(),
        class_name: None,
        is_method: false,
        is_nested: false,
        is_async: def
            .child(0)
            .is_some_and(|c| !c.is_named() && c.kind() == "async"),
        is_generator: false,
        returns_value: false,
        writes_globals: false,
        start_byte: outer.start_byte(),
        end_byte: outer.end_byte(),
        start_line: start.row as u32 + 1,
        end_line: end_line as u32,
        params: def
            .child_by_field_id(f.parameters)
            .map(|p| params(src, p, k))
            .unwrap_or_default(),
        returns: def
            .child_by_field_id(f.return_type)
            .map(|r| text(r).to_string()),
        decorators: decorators
            .iter()
            .map(|&d| decorator_text(src, d, k))
            .collect(),
        docstring: def
            .child_by_field_id(f.body)
            .and_then(|b| docstring(src, b, k)),
        lines: count_lines(source),
        complexity: 1,
        has_syntax_error: outer.has_error(),
        code_hash: crate::fingerprint::code_hash(src, def, decorators),
        free_names: Vec::new(),
    }
}

/// Lines that are neither blank nor comments.
pub(crate) fn count_lines(source: &str) -> u32 {
    source
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .count() as u32
}

fn decorator_text(src: &str, d: Node<'_>, k: &Kinds) -> String {
    let mut c = d.walk();
    let expr = d.named_children(&mut c).find(|n| n.kind_id() != k.comment);
    let text = expr.map_or_else(
        || {
            src.get(d.byte_range())
                .unwrap_or("")
                .trim_start_matches('@')
        },
        |e| src.get(e.byte_range()).unwrap_or(""),
    );
    text.trim().to_string()
}

fn params(src: &str, node: Node<'_>, k: &Kinds) -> Vec<schemas::Param> {
    let f = fields();
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("").to_string();
    let mut out: Vec<schemas::Param> = Vec::new();
    let mut keyword_only = false;
    let mut c = node.walk();
    let kids: Vec<Node<'_>> = node
        .named_children(&mut c)
        .filter(|n| n.kind_id() != k.comment)
        .collect();
    for p in kids {
        let id = p.kind_id();
        let plain = |keyword_only: bool| {
            if keyword_only {
                ParamKind::KeywordOnly
            } else {
                ParamKind::PositionalOrKeyword
            }
        };
        let mut push =
            |name: String, kind: ParamKind, annotation: Option<String>, default: Option<String>| {
                out.push(schemas::Param {
                    name,
                    kind,
                    annotation,
                    default,
                });
            };
        if id == k.identifier || id == k.tuple_pattern {
            push(text(p), plain(keyword_only), None, None);
        } else if id == k.default_parameter || id == k.typed_default_parameter {
            let name = p.child_by_field_id(f.name).map(text).unwrap_or_default();
            let annotation = p.child_by_field_id(f.type_).map(text);
            let default = p.child_by_field_id(f.value).map(text);
            push(name, plain(keyword_only), annotation, default);
        } else if id == k.typed_parameter {
            let annotation = p.child_by_field_id(f.type_).map(text);
            let mut c2 = p.walk();
            let inner = p
                .named_children(&mut c2)
                .find(|n| n.kind_id() != k.comment && Some(*n) != p.child_by_field_id(f.type_));
            match inner {
                Some(i) if i.kind_id() == k.list_splat_pattern => {
                    push(
                        splat_name(src, i, k),
                        ParamKind::VarPositional,
                        annotation,
                        None,
                    );
                    keyword_only = true;
                }
                Some(i) if i.kind_id() == k.dictionary_splat_pattern => {
                    push(
                        splat_name(src, i, k),
                        ParamKind::VarKeyword,
                        annotation,
                        None,
                    );
                }
                Some(i) => push(text(i), plain(keyword_only), annotation, None),
                None => {}
            }
        } else if id == k.list_splat_pattern {
            push(splat_name(src, p, k), ParamKind::VarPositional, None, None);
            keyword_only = true;
        } else if id == k.dictionary_splat_pattern {
            push(splat_name(src, p, k), ParamKind::VarKeyword, None, None);
        } else if id == k.keyword_separator {
            keyword_only = true;
        } else if id == k.positional_separator {
            for q in &mut out {
                if q.kind == ParamKind::PositionalOrKeyword {
                    q.kind = ParamKind::PositionalOnly;
                }
            }
        }
    }
    out
}

fn splat_name(src: &str, node: Node<'_>, k: &Kinds) -> String {
    let mut c = node.walk();
    let id = node
        .named_children(&mut c)
        .find(|n| n.kind_id() == k.identifier);
    id.map_or_else(
        || {
            src.get(node.byte_range())
                .unwrap_or("")
                .trim_start_matches('*')
                .to_string()
        },
        |i| src.get(i.byte_range()).unwrap_or("").to_string(),
    )
}

/// The docstring: the body's first statement when it is a lone string expression (plain
/// or implicitly concatenated; not an f-string or bytes), its value cleaned.
fn docstring(src: &str, body: Node<'_>, k: &Kinds) -> Option<String> {
    let mut c = body.walk();
    let first = body
        .named_children(&mut c)
        .find(|n| n.kind_id() != k.comment)?;
    if first.kind_id() != k.expression_statement {
        return None;
    }
    let mut c2 = first.walk();
    let mut exprs = first
        .named_children(&mut c2)
        .filter(|n| n.kind_id() != k.comment);
    let expr = exprs.next()?;
    if exprs.next().is_some() {
        return None;
    }
    let value = if expr.kind_id() == k.string {
        literal_value(src.get(expr.byte_range())?)?
    } else if expr.kind_id() == k.concatenated_string {
        let mut c3 = expr.walk();
        let mut out = String::new();
        for s in expr
            .named_children(&mut c3)
            .filter(|n| n.kind_id() == k.string)
        {
            out.push_str(&literal_value(src.get(s.byte_range())?)?);
        }
        out
    } else {
        return None;
    };
    Some(cleandoc(&value))
}
