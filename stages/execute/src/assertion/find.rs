//! Assertions of a test file that can become tasks, found with tree-sitter, and the
//! rewritten test files that record their subjects' values (capture) or check an answer.
//!
//! A test function is a module-level `def test*` or a `def test*` method of a module-level
//! `class Test*` (pytest's default collection); its node id is `path::name` or
//! `path::Class::name`. Inside it, an assertion is a candidate when it is not inside a
//! loop, a nested function or class, a `try` or a `with pytest.raises` block (its value
//! could then be computed many times, or never be reached), and has one of these forms:
//! - `assert X == V` or `assert V == X` where V is *expected-like* and X is not;
//!   `assert X is None/True/False`; `assert V in X` (X, the container, is the subject);
//!   `self.assertEqual(X, V)` and its typed kin, `self.assertIs(X, V)`,
//!   `self.assertIn(V, X)`: kind `equal`;
//! - the same with `V = pytest.approx(..)` / `approx(..)`, or `self.assertAlmostEqual(X, V)`:
//!   kind `approx`;
//! - `self.assertTrue(X)` / `self.assertFalse(X)`: kind `truth`;
//! - `with pytest.raises(E):` / `with raises(E):` / `with self.assertRaises(E):` (one
//!   with-item): kind `raises`, the subject the block.
//!
//! *Expected-like*: a literal (numbers, strings, `None`, `True`, `False`), a container of
//! expected-like items, a signed number, a dotted name (`Color.RED`), or a call of a
//! dotted name with expected-like arguments (`Money(1250)`, `Decimal("1.5")`). A bare name
//! is not: its value would be written elsewhere in the test, in sight of the model.

use tree_sitter::{Node, Parser, Tree};

use schemas::AssertionKind;

/// One candidate assertion of a test file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The test's node id.
    pub node_id: String,
    /// Bytes of the test function (its `def` line to its end; a decorated function from
    /// its first decorator).
    pub function: (usize, usize),
    /// The enclosing class's header line when a method (`class TestX:`).
    pub class_header: Option<String>,
    /// Bytes of what the capture rewrites: the statement, or the `raises` call.
    pub target: (usize, usize),
    /// 1-based line of the assertion.
    pub line: usize,
    pub kind: AssertionKind,
    /// Bytes of the subject (for `raises`: the with-block's first statement).
    pub subject: (usize, usize),
    /// The assertion as the model sees it in the value form, with [`PLACEHOLDER`] where
    /// the expected value was.
    pub masked: String,
}

/// Where the value goes in a masked assertion.
pub const PLACEHOLDER: &str = "??";

impl Candidate {
    /// The key of the capture of this candidate in its test file (unique per place).
    pub fn key(&self) -> String {
        format!("b{}", self.target.0)
    }

    /// The subject's source text.
    pub fn subject_text<'a>(&self, source: &'a str) -> &'a str {
        &source[self.subject.0..self.subject.1]
    }

    /// The assertion with `claim` in place of the placeholder (the verify form).
    pub fn with_claim(&self, claim: &str) -> String {
        self.masked.replacen(PLACEHOLDER, claim, 1)
    }
}

/// A tree-sitter parser for Python.
///
/// # Panics
/// When the grammar does not fit the tree-sitter library (a bug in the build).
pub fn parser() -> Parser {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("tree-sitter-python fits the tree-sitter library of this build");
    p
}

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    &src[n.byte_range()]
}

/// The candidates of a test file at `path` (its node ids built from `path`).
pub fn candidates(parser: &mut Parser, path: &str, source: &str) -> Vec<Candidate> {
    let Some(tree) = parser.parse(source, None) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut out = Vec::new();
    let mut c = root.walk();
    for top in root.named_children(&mut c) {
        let (def, outer) = unwrap_decorated(top);
        match def.kind() {
            "function_definition" => {
                if let Some(name) = def.child_by_field_name("name") {
                    let name = text(name, source);
                    if name.starts_with("test") {
                        let id = format!("{path}::{name}");
                        in_function(def, outer, None, &id, source, &mut out);
                    }
                }
            }
            "class_definition" => {
                let Some(cname) = def.child_by_field_name("name") else {
                    continue;
                };
                let cname = text(cname, source);
                if !cname.starts_with("Test") {
                    continue;
                }
                let header = class_header(def, source);
                let Some(body) = def.child_by_field_name("body") else {
                    continue;
                };
                let mut bc = body.walk();
                for member in body.named_children(&mut bc) {
                    let (m, mouter) = unwrap_decorated(member);
                    if m.kind() != "function_definition" {
                        continue;
                    }
                    let Some(name) = m.child_by_field_name("name") else {
                        continue;
                    };
                    let name = text(name, source);
                    if name.starts_with("test") {
                        let id = format!("{path}::{cname}::{name}");
                        in_function(m, mouter, Some(&header), &id, source, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn unwrap_decorated(n: Node<'_>) -> (Node<'_>, Node<'_>) {
    if n.kind() == "decorated_definition" {
        if let Some(d) = n.child_by_field_name("definition") {
            return (d, n);
        }
    }
    (n, n)
}

fn class_header(class: Node<'_>, src: &str) -> String {
    let end = class
        .child_by_field_name("body")
        .map_or(class.end_byte(), |b| b.start_byte());
    src[class.start_byte()..end].trim_end().to_string()
}

fn in_function(
    def: Node<'_>,
    outer: Node<'_>,
    class_header: Option<&String>,
    node_id: &str,
    src: &str,
    out: &mut Vec<Candidate>,
) {
    let Some(body) = def.child_by_field_name("body") else {
        return;
    };
    let mut push = |target: (usize, usize),
                    line: usize,
                    kind: AssertionKind,
                    subject: (usize, usize),
                    masked: String| {
        out.push(Candidate {
            node_id: node_id.to_string(),
            function: (outer.start_byte(), outer.end_byte()),
            class_header: class_header.cloned(),
            target,
            line,
            kind,
            subject,
            masked,
        });
    };
    visit_block(body, src, &mut push);
}

type Push<'p> = dyn FnMut((usize, usize), usize, AssertionKind, (usize, usize), String) + 'p;

/// Statements of a block, descending into `if` and `with` bodies only.
fn visit_block(block: Node<'_>, src: &str, push: &mut Push<'_>) {
    let mut c = block.walk();
    for stmt in block.named_children(&mut c) {
        match stmt.kind() {
            "assert_statement" => assert_statement(stmt, src, push),
            "expression_statement" => unittest_call(stmt, src, push),
            "if_statement" => {
                let mut ic = stmt.walk();
                for part in stmt.named_children(&mut ic) {
                    match part.kind() {
                        "block" => visit_block(part, src, push),
                        "elif_clause" | "else_clause" => {
                            if let Some(b) = part
                                .child_by_field_name("consequence")
                                .or_else(|| part.child_by_field_name("body"))
                            {
                                visit_block(b, src, push);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "with_statement" => {
                if let Some(body) = stmt.child_by_field_name("body") {
                    if raises_form(stmt, body, src, push) {
                        continue; // inside an expected exception: nothing else there
                    }
                    visit_block(body, src, push);
                }
            }
            _ => {}
        }
    }
}

fn line_of(n: Node<'_>) -> usize {
    n.start_position().row + 1
}

fn assert_statement(stmt: Node<'_>, src: &str, push: &mut Push<'_>) {
    let mut c = stmt.walk();
    let exprs: Vec<Node<'_>> = stmt.named_children(&mut c).collect();
    let Some(&e) = exprs.first() else { return };
    let e = strip_parens(e);
    if e.kind() != "comparison_operator" {
        return;
    }
    let mut cc = e.walk();
    let operands: Vec<Node<'_>> = e.named_children(&mut cc).collect();
    let ops: Vec<&str> = {
        let mut oc = e.walk();
        e.children_by_field_name("operators", &mut oc)
            .map(|n| text(n, src))
            .collect()
    };
    if operands.len() != 2 || ops.len() != 1 {
        return;
    }
    let (l, r) = (operands[0], operands[1]);
    let whole = (stmt.start_byte(), stmt.end_byte());
    let prefix = &src[stmt.start_byte()..e.start_byte()];
    let masked_eq = |subject: Node<'_>| format!("assert {} == {PLACEHOLDER}", text(subject, src));
    match ops[0] {
        "==" => {
            let Some((subject, expected)) = sides(l, r, src) else {
                return;
            };
            let kind = if is_approx(expected, src) {
                AssertionKind::Approx
            } else {
                AssertionKind::Equal
            };
            let masked = format!(
                "{prefix}{}{PLACEHOLDER}{}",
                &src[e.start_byte()..expected.start_byte()],
                &src[expected.end_byte()..stmt.end_byte()]
            );
            let masked = if subject.start_byte() < expected.start_byte() {
                masked
            } else {
                // `assert V == X`: shown as `assert X == ??`.
                masked_eq(subject)
            };
            push(
                whole,
                line_of(stmt),
                kind,
                (subject.start_byte(), subject.end_byte()),
                masked,
            );
        }
        "is" if matches!(r.kind(), "none" | "true" | "false") && !pure_literal(l, src) => {
            push(
                whole,
                line_of(stmt),
                AssertionKind::Equal,
                (l.start_byte(), l.end_byte()),
                masked_eq(l),
            );
        }
        "in" if pure_literal(l, src) && !pure_literal(r, src) => {
            push(
                whole,
                line_of(stmt),
                AssertionKind::Equal,
                (r.start_byte(), r.end_byte()),
                masked_eq(r),
            );
        }
        _ => {}
    }
}

/// `self.assertEqual(X, V)` and kin, as an expression statement.
fn unittest_call(stmt: Node<'_>, src: &str, push: &mut Push<'_>) {
    let Some(call) = stmt.named_child(0).filter(|n| n.kind() == "call") else {
        return;
    };
    let Some(method) = self_method(call, src) else {
        return;
    };
    let Some(args) = call.child_by_field_name("arguments") else {
        return;
    };
    let mut ac = args.walk();
    let all: Vec<Node<'_>> = args.named_children(&mut ac).collect();
    // Keyword arguments other than `msg` change the comparison (`places=`, `delta=`).
    if all.iter().any(|a| {
        a.kind() == "keyword_argument"
            && a.child_by_field_name("name")
                .is_none_or(|n| text(n, src) != "msg")
    }) || all
        .iter()
        .any(|a| matches!(a.kind(), "list_splat" | "dictionary_splat"))
    {
        return;
    }
    let pos: Vec<Node<'_>> = all
        .into_iter()
        .filter(|a| a.kind() != "keyword_argument" && a.kind() != "comment")
        .collect();
    let whole = (stmt.start_byte(), stmt.end_byte());
    let line = line_of(stmt);
    let span = |n: Node<'_>| (n.start_byte(), n.end_byte());
    let masked_eq = |subject: Node<'_>| format!("assert {} == {PLACEHOLDER}", text(subject, src));
    match method {
        "assertEqual"
        | "assertEquals"
        | "assertListEqual"
        | "assertDictEqual"
        | "assertTupleEqual"
        | "assertSetEqual"
        | "assertSequenceEqual"
        | "assertMultiLineEqual"
        | "assertIs"
        | "assertAlmostEqual"
        | "assertAlmostEquals"
            if pos.len() == 2 =>
        {
            let (a, b) = (pos[0], pos[1]);
            let Some((subject, expected)) = sides(a, b, src) else {
                return;
            };
            let kind = if method.starts_with("assertAlmost") || is_approx(expected, src) {
                AssertionKind::Approx
            } else {
                AssertionKind::Equal
            };
            let masked = format!(
                "{}{PLACEHOLDER}{}",
                &src[stmt.start_byte()..expected.start_byte()],
                &src[expected.end_byte()..stmt.end_byte()]
            );
            push(whole, line, kind, span(subject), masked);
        }
        "assertIn" if pos.len() == 2 && pure_literal(pos[0], src) && !pure_literal(pos[1], src) => {
            push(
                whole,
                line,
                AssertionKind::Equal,
                span(pos[1]),
                masked_eq(pos[1]),
            );
        }
        "assertTrue" | "assertFalse" if pos.len() == 1 && !pure_literal(pos[0], src) => {
            push(
                whole,
                line,
                AssertionKind::Truth,
                span(pos[0]),
                masked_eq(pos[0]),
            );
        }
        _ => {}
    }
}

/// `self.NAME` of a call.
fn self_method<'s>(call: Node<'_>, src: &'s str) -> Option<&'s str> {
    let f = call.child_by_field_name("function")?;
    if f.kind() != "attribute" {
        return None;
    }
    let obj = f.child_by_field_name("object")?;
    (text(obj, src) == "self").then(|| f.child_by_field_name("attribute").map(|a| text(a, src)))?
}

/// `with pytest.raises(E):` and kin; pushes the candidate and returns true when it is one.
fn raises_form(stmt: Node<'_>, body: Node<'_>, src: &str, push: &mut Push<'_>) -> bool {
    let mut c = stmt.walk();
    let Some(clause) = stmt
        .named_children(&mut c)
        .find(|n| n.kind() == "with_clause")
    else {
        return false;
    };
    let mut ic = clause.walk();
    let items: Vec<Node<'_>> = clause.named_children(&mut ic).collect();
    let [item] = items.as_slice() else {
        return raises_among(&items, src);
    };
    let Some(value) = item.child_by_field_name("value") else {
        return false;
    };
    // `with pytest.raises(E) as e:` parses as an `as_pattern` around the call.
    let call = if value.kind() == "as_pattern" {
        match value.named_child(0) {
            Some(n) => n,
            None => return false,
        }
    } else {
        value
    };
    if call.kind() != "call" || !is_raises_call(call, src) {
        return false;
    }
    let Some(args) = call.child_by_field_name("arguments") else {
        return true;
    };
    let mut ac = args.walk();
    let pos: Vec<Node<'_>> = args
        .named_children(&mut ac)
        .filter(|a| a.kind() != "comment")
        .collect();
    // `raises(E)` or `raises(E, match=...)`: E a dotted name (a tuple of types has no one answer).
    let Some(&e) = pos.first() else { return true };
    if !matches!(e.kind(), "identifier" | "attribute")
        || pos[1..].iter().any(|a| a.kind() != "keyword_argument")
    {
        return true;
    }
    let first = body
        .named_child(0)
        .map_or((body.start_byte(), body.end_byte()), |n| {
            (n.start_byte(), n.end_byte())
        });
    let masked = format!(
        "{}{PLACEHOLDER}{}",
        &src[stmt.start_byte()..e.start_byte()],
        &src[e.end_byte()..body.start_byte()]
    )
    .trim_end()
    .to_string();
    push(
        (call.start_byte(), call.end_byte()),
        line_of(stmt),
        AssertionKind::Raises,
        first,
        masked,
    );
    true
}

fn raises_among(items: &[Node<'_>], src: &str) -> bool {
    items.iter().any(|i| {
        i.child_by_field_name("value").is_some_and(|v| {
            let v = if v.kind() == "as_pattern" {
                v.named_child(0).unwrap_or(v)
            } else {
                v
            };
            v.kind() == "call" && is_raises_call(v, src)
        })
    })
}

fn is_raises_call(call: Node<'_>, src: &str) -> bool {
    call.child_by_field_name("function").is_some_and(|f| {
        matches!(
            text(f, src),
            "pytest.raises" | "raises" | "self.assertRaises" | "self.assertRaisesRegex"
        )
    })
}

fn strip_parens(mut n: Node<'_>) -> Node<'_> {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

fn is_approx(n: Node<'_>, src: &str) -> bool {
    n.kind() == "call"
        && n.child_by_field_name("function")
            .is_some_and(|f| matches!(text(f, src), "pytest.approx" | "approx"))
}

fn dotted(n: Node<'_>) -> bool {
    match n.kind() {
        "identifier" => true,
        "attribute" => n.child_by_field_name("object").is_some_and(dotted),
        _ => false,
    }
}

/// Which side of a comparison is the subject and which the expected value: a pure literal
/// is the expected value against anything else; else an expected-like side (a constructor
/// call, `Money(1250)`) against a side that is not; when both are calls of literals
/// (`f(2) == Money(3)`), the left side is the subject (`actual == expected`, as tests
/// are written).
fn sides<'t>(l: Node<'t>, r: Node<'t>, src: &str) -> Option<(Node<'t>, Node<'t>)> {
    let (pl, pr) = (pure_literal(l, src), pure_literal(r, src));
    match (pl, pr) {
        (false, true) => Some((l, r)),
        (true, false) => Some((r, l)),
        (true, true) => None,
        (false, false) => {
            let (el, er) = (expected_like(l, src), expected_like(r, src));
            if er {
                Some((l, r))
            } else if el {
                Some((r, l))
            } else {
                None
            }
        }
    }
}

/// A literal with no call or name in it (numbers, strings, `None`, `True`, `False`, signed
/// numbers and containers of these).
pub fn pure_literal(n: Node<'_>, src: &str) -> bool {
    expected_at(n, src, 0, false)
}

/// See the module doc.
pub fn expected_like(n: Node<'_>, src: &str) -> bool {
    expected_at(n, src, 0, true)
}

fn expected_at(n: Node<'_>, src: &str, depth: usize, calls: bool) -> bool {
    if depth > 50 {
        return false;
    }
    let all_named = |n: Node<'_>| {
        let mut c = n.walk();
        let ok = n
            .named_children(&mut c)
            .filter(|k| k.kind() != "comment")
            .all(|k| expected_at(k, src, depth + 1, calls));
        ok
    };
    match n.kind() {
        "integer" | "float" | "true" | "false" | "none" => true,
        "string" => {
            !text(n, src)
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .is_empty()
                && !text(n, src)
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .any(|c| c == 'f' || c == 'F')
        }
        "concatenated_string"
        | "list"
        | "tuple"
        | "set"
        | "dictionary"
        | "pair"
        | "parenthesized_expression"
        | "keyword_argument" => {
            if n.kind() == "keyword_argument" {
                return n
                    .child_by_field_name("value")
                    .is_some_and(|v| expected_at(v, src, depth + 1, calls));
            }
            all_named(n)
        }
        "unary_operator" => n
            .child_by_field_name("argument")
            .is_some_and(|a| matches!(a.kind(), "integer" | "float")),
        "attribute" => calls && dotted(n),
        "call" => {
            calls
                && n.child_by_field_name("function").is_some_and(dotted)
                && n.child_by_field_name("arguments")
                    .is_some_and(|a| a.kind() == "argument_list" && all_named(a))
        }
        _ => false,
    }
}

/// The test file with each of `cands` rewritten to record its subject: a statement
/// becomes `__freshbench_capture__(key, (X))`, a `raises` call `__freshbench_raises__(key)`.
/// Line numbers stay as they were (newlines the statement held are kept inside the call).
pub fn capture_text(source: &str, cands: &[&Candidate]) -> String {
    rewrite(source, cands, |c| capture_of(source, c, None))
}

/// The test file with `cand` rewritten to record whether `answer` equals its subject
/// (`((X) == (answer))`, with `pytest.approx` for kind `approx`), and `others` (the other
/// candidates of its test) recorded as in [`capture_text`], so that the test runs as it
/// did when the value was recorded.
pub fn check_text(source: &str, others: &[&Candidate], cand: &Candidate, answer: &str) -> String {
    let mut all: Vec<&Candidate> = others
        .iter()
        .copied()
        .filter(|c| c.target != cand.target)
        .collect();
    all.push(cand);
    rewrite(source, &all, |c| {
        capture_of(source, c, (c.target == cand.target).then_some(answer))
    })
}

/// The candidates of the same test as `cand` in its file (itself among them).
pub fn same_test<'c>(all: &'c [Candidate], cand: &Candidate) -> Vec<&'c Candidate> {
    all.iter().filter(|c| c.node_id == cand.node_id).collect()
}

fn capture_of(source: &str, c: &Candidate, answer: Option<&str>) -> String {
    let old = &source[c.target.0..c.target.1];
    let key = c.key();
    if c.kind == AssertionKind::Raises {
        return format!("__freshbench_raises__({key:?})");
    }
    let subject = c.subject_text(source);
    let inner = match answer {
        None => format!("({subject})"),
        Some(a) if c.kind == AssertionKind::Approx => {
            format!("(({subject}) == __import__('pytest').approx({a}\n))")
        }
        Some(a) => format!("(({subject}) == ({a}\n))"),
    };
    let mut out = format!("__freshbench_capture__({key:?}, {inner}");
    let missing = old
        .matches('\n')
        .count()
        .saturating_sub(out.matches('\n').count());
    for _ in 0..missing {
        out.push('\n');
    }
    out.push(')');
    out
}

fn rewrite(source: &str, cands: &[&Candidate], with: impl Fn(&Candidate) -> String) -> String {
    let mut sorted: Vec<&&Candidate> = cands.iter().collect();
    sorted.sort_by_key(|c| c.target.0);
    let mut out = String::with_capacity(source.len() + 64 * cands.len());
    let mut at = 0;
    for c in sorted {
        if c.target.0 < at {
            continue; // overlapping (cannot happen for distinct statements)
        }
        out.push_str(&source[at..c.target.0]);
        out.push_str(&with(c));
        at = c.target.1;
    }
    out.push_str(&source[at..]);
    out
}

/// Whether a text parses as Python with no error.
pub fn parses(parser: &mut Parser, text: &str) -> bool {
    parser
        .parse(text, None)
        .as_ref()
        .map(Tree::root_node)
        .is_some_and(|r| !r.has_error())
}

/// The test as the model sees it: the file's imports, the class header when a method,
/// then the function with `shown` in place of the assertion.
pub fn test_source(parser: &mut Parser, source: &str, cand: &Candidate, shown: &str) -> String {
    let mut out = String::new();
    if let Some(tree) = parser.parse(source, None) {
        let root = tree.root_node();
        let mut c = root.walk();
        for n in root.named_children(&mut c) {
            if matches!(
                n.kind(),
                "import_statement" | "import_from_statement" | "future_import_statement"
            ) {
                out.push_str(text(n, source));
                out.push('\n');
            }
        }
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    if let Some(h) = &cand.class_header {
        out.push_str(h);
        out.push('\n');
    }
    // The function's first line starts at its indentation's end: put it back.
    let line_start = source[..cand.function.0].rfind('\n').map_or(0, |i| i + 1);
    out.push_str(&source[line_start..cand.target.0]);
    out.push_str(shown);
    out.push_str(&source[cand.target.1..cand.function.1]);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str = r#"import pytest
from pkg import f, Money


def helper():
    assert f(1) == 2


def test_forms():
    x = f(1)
    assert f(2) == 3
    assert 4 == f(3)
    assert x == expected
    assert f(4) is None
    assert "a" in f(5)
    assert f(6) == pytest.approx(0.5)
    assert f(7) == Money(1250)
    for i in range(3):
        assert f(i) == i
    with pytest.raises(ValueError, match="bad"):
        f(-1)
    with pytest.raises(KeyError) as e:
        f(-2)
        assert f(0) == 1
    if x:
        assert f(8) == [1, (2, "b")]


class TestThing:
    def test_unittest(self):
        self.assertEqual(f(9), {"k": -1})
        self.assertTrue(f(10))
        self.assertIn(3, f(11))
        self.assertAlmostEqual(f(12), 1.5, places=2)
        self.assertAlmostEqual(f(13), 1.5)
        with self.assertRaises(TypeError):
            f(None)
"#;

    fn all() -> Vec<Candidate> {
        candidates(&mut parser(), "tests/test_x.py", TEST)
    }

    #[test]
    fn finds_the_forms_and_nothing_else() {
        use AssertionKind::{Approx, Equal, Raises, Truth};
        let got: Vec<(String, usize, AssertionKind, String)> = all()
            .iter()
            .map(|c| (c.node_id.clone(), c.line, c.kind, c.masked.clone()))
            .collect();
        let f = "tests/test_x.py::test_forms".to_string();
        let u = "tests/test_x.py::TestThing::test_unittest".to_string();
        let want = vec![
            (f.clone(), 11, Equal, "assert f(2) == ??".to_string()),
            (f.clone(), 12, Equal, "assert f(3) == ??".to_string()),
            (f.clone(), 14, Equal, "assert f(4) == ??".to_string()),
            (f.clone(), 15, Equal, "assert f(5) == ??".to_string()),
            (f.clone(), 16, Approx, "assert f(6) == ??".to_string()),
            (f.clone(), 17, Equal, "assert f(7) == ??".to_string()),
            (
                f.clone(),
                20,
                Raises,
                "with pytest.raises(??, match=\"bad\"):".to_string(),
            ),
            (
                f.clone(),
                22,
                Raises,
                "with pytest.raises(??) as e:".to_string(),
            ),
            (f.clone(), 26, Equal, "assert f(8) == ??".to_string()),
            (
                u.clone(),
                31,
                Equal,
                "self.assertEqual(f(9), ??)".to_string(),
            ),
            (u.clone(), 32, Truth, "assert f(10) == ??".to_string()),
            (u.clone(), 33, Equal, "assert f(11) == ??".to_string()),
            (
                u.clone(),
                35,
                Approx,
                "self.assertAlmostEqual(f(13), ??)".to_string(),
            ),
            (
                u.clone(),
                36,
                Raises,
                "with self.assertRaises(??):".to_string(),
            ),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn capture_keeps_lines_and_parses() {
        let cands = all();
        let refs: Vec<&Candidate> = cands.iter().collect();
        let text = capture_text(TEST, &refs);
        assert_eq!(text.lines().count(), TEST.lines().count());
        assert!(parses(&mut parser(), &text), "{text}");
        assert!(text.contains("__freshbench_capture__(\"b"));
        assert!(text.contains("with __freshbench_raises__(\"b"));
        assert!(text.contains("assert f(i) == i"), "loops are left alone");
        let check = check_text(TEST, &refs, &cands[0], "3");
        assert!(check.contains("((f(2)) == (3\n))"), "{check}");
        assert!(parses(&mut parser(), &check));
        let approx = check_text(TEST, &[], &cands[4], "0.5");
        assert!(approx.contains("pytest').approx(0.5"));
    }

    #[test]
    fn shown_test_has_imports_and_the_masked_assertion() {
        let cands = all();
        let c = &cands[9];
        let shown = test_source(&mut parser(), TEST, c, &c.masked);
        assert!(shown.starts_with("import pytest\nfrom pkg import f, Money\n"));
        assert!(shown.contains("class TestThing:\n    def test_unittest(self):\n"));
        assert!(shown.contains("self.assertEqual(f(9), ??)"));
        assert!(!shown.contains("{\"k\": -1}"));
        assert_eq!(
            c.with_claim("{'k': -1}"),
            "self.assertEqual(f(9), {'k': -1})"
        );
    }
}
