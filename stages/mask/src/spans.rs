//! The spans a completion task can mask, found with tree-sitter-python: four syntax levels,
//! each a whole node (or a run of whole statements), never a random fragment and never
//! inside a docstring or a comment.
//!
//! - `expression`: the right-hand side of an assignment, an argument of a call (a keyword
//!   argument's value), the condition of an `if`, `elif` or `while`, a returned value. Only
//!   the whole expression of such a slot, never a part of it, and never one that Python may
//!   not evaluate when its statement runs (inside a lambda, a comprehension, a conditional
//!   expression or a boolean operator), since the coverage rule judges it by its statement.
//! - `statement`: one simple statement alone on its lines: an assignment, a return with a
//!   value, an expression statement that is a call (or an awaited call), `raise`, `assert`,
//!   `del`; never `pass`, a docstring, an import, `global` or a bare `return`.
//! - `block`: the statements of the body of an `if`/`elif`/`else`, `for`, `while`, `with`
//!   or `try`/`except`/`finally`, from the first statement's first character to the last
//!   statement's last (comments after it stay in the suffix; a string opening the block,
//!   a comment written as a string, stays in the prefix).
//! - `function`: the body of a `def`, its signature and docstring kept: the span starts at
//!   the first statement after the docstring.
//!
//! Statement, block and function spans start at the first character of their first line's
//! code: the line's indentation stays in the prefix (and is the task's `indent`). Bodies
//! on their header's line (`if x: y()`) and statements sharing a line (`a; b`) are left
//! out. A span carries its [`Unit`]s, the statements whose execution the coverage rule
//! asks for.

use tree_sitter::Node;

use schemas::SpanKind;

/// A statement a span holds (or, for an expression, the statement it is evaluated in),
/// with the 1-based lines coverage may record its execution under: every line of a simple
/// statement (a multi-line call records its continuation lines), the header lines of a
/// compound one (decorators and signature of a `def`, a condition spread over lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Unit {
    pub first: i32,
    pub last: i32,
}

/// One candidate span of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub kind: SpanKind,
    /// Byte offset of the first masked character.
    pub start_byte: usize,
    /// Byte offset just past the last masked character.
    pub end_byte: usize,
    /// 1-based first and last lines.
    pub start_line: i32,
    pub end_line: i32,
    /// The statements the coverage rule requires executed, in source order.
    pub units: Vec<Unit>,
    /// Identifiers inside the span.
    pub identifiers: usize,
}

/// The size limits of spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fewest non-blank characters of a span.
    pub min_chars: usize,
    /// Most bytes of a span.
    pub max_chars: usize,
    /// Most lines of an expression or statement span.
    pub max_statement_lines: i32,
    /// Most lines of a block span.
    pub max_block_lines: i32,
    /// Most lines of a function span.
    pub max_function_lines: i32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_chars: 3,
            max_chars: 2000,
            max_statement_lines: 8,
            max_block_lines: 12,
            max_function_lines: 40,
        }
    }
}

/// Why a span failed the size gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeGate {
    /// No identifier, or fewer non-blank characters than `min_chars`, or no statement for
    /// the coverage rule to judge.
    TooSmall,
    /// More bytes or lines than its level allows.
    TooBig,
}

impl Limits {
    /// `None` when the span's size is within the limits.
    pub fn check(&self, span: &Span, source: &str) -> Option<SizeGate> {
        let text = &source[span.start_byte..span.end_byte];
        let chars = text.chars().filter(|c| !c.is_whitespace()).count();
        if span.identifiers == 0 || chars < self.min_chars || span.units.is_empty() {
            return Some(SizeGate::TooSmall);
        }
        let lines = span.end_line - span.start_line + 1;
        let max_lines = match span.kind {
            SpanKind::Expression | SpanKind::Statement => self.max_statement_lines,
            SpanKind::Block => self.max_block_lines,
            SpanKind::Function => self.max_function_lines,
        };
        (text.len() > self.max_chars || lines > max_lines).then_some(SizeGate::TooBig)
    }
}

/// Simple statements (tree-sitter-python's `_simple_statement`).
const SIMPLE: &[&str] = &[
    "expression_statement",
    "return_statement",
    "delete_statement",
    "raise_statement",
    "pass_statement",
    "break_statement",
    "continue_statement",
    "global_statement",
    "nonlocal_statement",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "assert_statement",
    "print_statement",
    "exec_statement",
    "type_alias_statement",
];

/// Compound statements (`_compound_statement`) and the `elif` clause, whose condition is
/// evaluated on a line of its own.
const COMPOUND: &[&str] = &[
    "if_statement",
    "elif_clause",
    "for_statement",
    "while_statement",
    "try_statement",
    "with_statement",
    "function_definition",
    "class_definition",
    "decorated_definition",
    "match_statement",
];

/// Nodes inside which an expression may not be evaluated when its statement runs.
const LAZY: &[&str] = &[
    "lambda",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
    "conditional_expression",
    "boolean_operator",
];

fn is_statement(kind: &str) -> bool {
    SIMPLE.contains(&kind) || COMPOUND.contains(&kind)
}

/// A string alone as a statement: a docstring, or text Python compiles to nothing.
fn is_string_statement(node: Node<'_>) -> bool {
    node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node
            .named_child(0)
            .is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string" | "ellipsis"))
}

/// Statements that run no code of their own: coverage never records them, so the rule
/// does not ask for them (`pass`, `global`, `nonlocal`, lone strings, and `try:` itself,
/// whose body statements are asked for instead).
fn runs_nothing(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "pass_statement" | "global_statement" | "nonlocal_statement" | "try_statement"
    ) || is_string_statement(node)
}

fn line(row: usize) -> i32 {
    row as i32 + 1
}

/// The lines coverage may record a statement under (see [`Unit`]).
fn unit_of(node: Node<'_>) -> Unit {
    let first = line(node.start_position().row);
    let body = match node.kind() {
        "decorated_definition" => node
            .child_by_field_name("definition")
            .and_then(|d| d.child_by_field_name("body")),
        "if_statement" | "elif_clause" => node.child_by_field_name("consequence"),
        k if COMPOUND.contains(&k) => node.child_by_field_name("body"),
        _ => None,
    };
    let last = match body {
        Some(b) if b.kind() != "comment" => line(b.start_position().row).max(first + 1) - 1,
        Some(_) => first,
        None if COMPOUND.contains(&node.kind()) => first,
        None => line(node.end_position().row),
    };
    Unit {
        first,
        last: last.max(first),
    }
}

/// The statement an expression is evaluated in, or `None` when it may not be evaluated
/// every time that statement runs.
fn enclosing_statement(node: Node<'_>) -> Option<Node<'_>> {
    let mut n = node.parent()?;
    loop {
        if LAZY.contains(&n.kind()) {
            return None;
        }
        if is_statement(n.kind()) {
            // A decorated def runs from its first decorator.
            return Some(match n.parent() {
                Some(p) if p.kind() == "decorated_definition" => p,
                _ => n,
            });
        }
        n = n.parent()?;
    }
}

/// The end of the last token of `node` that is not a comment (tree-sitter puts a comment
/// that follows a block's last statement inside the block).
fn code_end(node: Node<'_>) -> Option<usize> {
    if node.kind() == "comment" {
        return None;
    }
    let count = node.child_count();
    if count == 0 {
        return (node.end_byte() > node.start_byte()).then_some(node.end_byte());
    }
    (0..count)
        .rev()
        .filter_map(|i| node.child(i))
        .find_map(code_end)
}

/// Whether only blank space precedes `byte` on its line.
fn starts_line(source: &str, byte: usize) -> bool {
    let start = source[..byte].rfind('\n').map_or(0, |i| i + 1);
    source[start..byte].chars().all(|c| c == ' ' || c == '\t')
}

/// Whether only blank space or a comment follows `byte` on its line.
fn ends_line(source: &str, byte: usize) -> bool {
    let rest = &source[byte..];
    let line = rest.split('\n').next().unwrap_or("");
    let line = line.trim_start_matches([' ', '\t', '\r']);
    line.is_empty() || line.starts_with('#')
}

/// Counts identifiers inside `[start, end)` under `node`.
fn identifiers_in(node: Node<'_>, start: usize, end: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= start || n.start_byte() >= end {
            continue;
        }
        if n.kind() == "identifier" && n.start_byte() >= start && n.end_byte() <= end {
            count += 1;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    count
}

/// Every statement unit inside the statements `nodes` (nested ones included).
fn units_within(nodes: &[Node<'_>]) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut stack: Vec<Node<'_>> = nodes.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        let kind = n.kind();
        let inside_decorated = kind == "function_definition" || kind == "class_definition";
        let decorated = inside_decorated
            && n.parent()
                .is_some_and(|p| p.kind() == "decorated_definition");
        if is_statement(kind) && !runs_nothing(n) && !decorated {
            units.push(unit_of(n));
        }
        if SIMPLE.contains(&kind) {
            continue;
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    units.sort_unstable();
    units.dedup();
    units
}

/// The statements of a block, comments left out.
fn statements_of(block: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// Finds the candidate spans of a parsed file, in source order; one span per byte range
/// (a range found at two levels is kept at the larger one: function, block, statement,
/// expression).
pub fn find_spans(source: &str, root: Node<'_>) -> Vec<Span> {
    let cx = Cx {
        source,
        newlines: source
            .bytes()
            .enumerate()
            .filter_map(|(i, b)| (b == b'\n').then_some(i))
            .collect(),
    };
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        visit(&cx, n, &mut found);
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    let rank = |k: SpanKind| match k {
        SpanKind::Function => 0,
        SpanKind::Block => 1,
        SpanKind::Statement => 2,
        SpanKind::Expression => 3,
    };
    found.sort_by_key(|s: &Span| (s.start_byte, s.end_byte, rank(s.kind)));
    found.dedup_by(|b, a| a.start_byte == b.start_byte && a.end_byte == b.end_byte);
    found
}

/// A file's text and where its lines start.
struct Cx<'a> {
    source: &'a str,
    newlines: Vec<usize>,
}

impl Cx<'_> {
    /// 1-based line of a byte.
    fn line_of(&self, byte: usize) -> i32 {
        self.newlines.partition_point(|&n| n < byte) as i32 + 1
    }
}

fn visit(cx: &Cx<'_>, n: Node<'_>, out: &mut Vec<Span>) {
    match n.kind() {
        "assignment" | "augmented_assignment" => {
            if let Some(right) = n.child_by_field_name("right") {
                // `a = b = c`: the slot of `a` holds another assignment, not an expression.
                if !matches!(
                    right.kind(),
                    "assignment" | "augmented_assignment" | "yield"
                ) {
                    expression(cx, right, out);
                }
            }
        }
        "argument_list" => {
            let mut cursor = n.walk();
            for arg in n.named_children(&mut cursor) {
                match arg.kind() {
                    "keyword_argument" => {
                        if let Some(v) = arg.child_by_field_name("value") {
                            expression(cx, v, out);
                        }
                    }
                    "comment" | "list_splat" | "dictionary_splat" => {}
                    _ => expression(cx, arg, out),
                }
            }
        }
        "if_statement" | "elif_clause" | "while_statement" => {
            if let Some(c) = n.child_by_field_name("condition") {
                expression(cx, c, out);
            }
        }
        "return_statement" => {
            if let Some(v) = n
                .named_children(&mut n.walk())
                .find(|c| c.kind() != "comment")
            {
                expression(cx, v, out);
            }
        }
        _ => {}
    }
    if SIMPLE.contains(&n.kind()) {
        statement(cx, n, out);
    }
    for body in bodies(n) {
        block(cx, body, SpanKind::Block, out);
    }
    if n.kind() == "function_definition" {
        if let Some(body) = n.child_by_field_name("body") {
            block(cx, body, SpanKind::Function, out);
        }
    }
}

/// The bodies of `if`, `for`, `while`, `with` and `try` (with their clauses) that are
/// block spans.
fn bodies(n: Node<'_>) -> Vec<Node<'_>> {
    let field = match n.kind() {
        "if_statement" | "elif_clause" => "consequence",
        "for_statement" | "while_statement" | "with_statement" | "try_statement"
        | "else_clause" => "body",
        "except_clause" | "finally_clause" => {
            let mut cursor = n.walk();
            return n
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "block")
                .collect();
        }
        _ => return Vec::new(),
    };
    n.child_by_field_name(field)
        .filter(|b| b.kind() == "block")
        .into_iter()
        .collect()
}

/// Expressions too plain to be a task: a name or a literal alone is a guess from the
/// context, not code to write (and a neutral fill of the same shape tells little).
fn is_atom(node: Node<'_>) -> bool {
    let plain_string = |n: Node<'_>| {
        n.kind() == "string"
            && !n
                .named_children(&mut n.walk())
                .any(|c| c.kind() == "interpolation")
    };
    plain_string(node)
        || matches!(
            node.kind(),
            "identifier" | "integer" | "float" | "true" | "false" | "none" | "ellipsis"
        )
        || (matches!(node.kind(), "list" | "tuple" | "dictionary" | "set")
            && node.named_child_count() == 0)
}

fn expression(cx: &Cx<'_>, node: Node<'_>, out: &mut Vec<Span>) {
    if node.has_error() || node.kind() == "comment" || is_atom(node) {
        return;
    }
    let Some(stmt) = enclosing_statement(node) else {
        return;
    };
    let Some(end) = code_end(node) else { return };
    out.push(Span {
        kind: SpanKind::Expression,
        start_byte: node.start_byte(),
        end_byte: end,
        start_line: cx.line_of(node.start_byte()),
        end_line: cx.line_of(end - 1),
        units: vec![unit_of(stmt)],
        identifiers: identifiers_in(node, node.start_byte(), end),
    });
}

/// Simple statements that are statement spans.
fn statement_kind_ok(n: Node<'_>) -> bool {
    match n.kind() {
        "expression_statement" => {
            if n.named_child_count() != 1 {
                return false;
            }
            let Some(c) = n.named_child(0) else {
                return false;
            };
            match c.kind() {
                "assignment" => c.child_by_field_name("right").is_some(),
                "augmented_assignment" | "call" => true,
                "await" => c.named_child(0).is_some_and(|x| x.kind() == "call"),
                _ => false,
            }
        }
        "return_statement" => n.named_child_count() > 0,
        "raise_statement" | "assert_statement" | "delete_statement" => true,
        _ => false,
    }
}

fn statement(cx: &Cx<'_>, n: Node<'_>, out: &mut Vec<Span>) {
    if n.has_error() || !statement_kind_ok(n) {
        return;
    }
    let Some(end) = code_end(n) else { return };
    if !starts_line(cx.source, n.start_byte()) || !ends_line(cx.source, end) {
        return;
    }
    out.push(Span {
        kind: SpanKind::Statement,
        start_byte: n.start_byte(),
        end_byte: end,
        start_line: cx.line_of(n.start_byte()),
        end_line: cx.line_of(end - 1),
        units: units_within(&[n]),
        identifiers: identifiers_in(n, n.start_byte(), end),
    });
}

fn block(cx: &Cx<'_>, body: Node<'_>, kind: SpanKind, out: &mut Vec<Span>) {
    if body.has_error() {
        return;
    }
    let mut stmts = statements_of(body);
    // A function's docstring stays in the prefix; so does a string opening another block
    // (a comment written as a string).
    if stmts.first().is_some_and(|s| is_string_statement(*s)) {
        stmts.remove(0);
    }
    let (Some(first), Some(last)) = (stmts.first().copied(), stmts.last().copied()) else {
        return;
    };
    let Some(end) = code_end(last) else { return };
    if !starts_line(cx.source, first.start_byte()) || !ends_line(cx.source, end) {
        return;
    }
    out.push(Span {
        kind,
        start_byte: first.start_byte(),
        end_byte: end,
        start_line: cx.line_of(first.start_byte()),
        end_line: cx.line_of(end - 1),
        units: units_within(&stmts),
        identifiers: identifiers_in(body, first.start_byte(), end),
    });
}

/// The indentation of the line `byte` is on (its leading blank space).
pub fn indent_at(source: &str, byte: usize) -> &str {
    let start = source[..byte].rfind('\n').map_or(0, |i| i + 1);
    let line = &source[start..];
    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..width]
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
