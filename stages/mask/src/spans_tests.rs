use super::*;

const SAMPLE: &str = r#"import os


def area(width, height):
    """Area of a rectangle.

    result = width * height  (text of the docstring)
    """
    # scaled = compute(width)  (text of a comment)
    total = width * height
    if total > 100:
        log(total, "big")
        total = cap(total)
    return total


class Shape:
    """A shape."""

    def __init__(self, name):
        self.name = name.strip()  # trailing comment

    @property
    def describe(self):
        for part in self.parts():
            print(part)
        else:
            pass
        try:
            value = compute(self.name)
        except ValueError as e:
            raise RuntimeError(str(e)) from e
        finally:
            cleanup()
        while self.pending() and not done:
            step(lambda x: x + offset)
        return f"{self.name}: {value}"

def one_liner(x): return x * 2
"#;

fn parse(source: &str) -> tree_sitter::Tree {
    let mut p = crate::repo::parser().unwrap();
    p.parse(source, None).unwrap()
}

fn spans(source: &str) -> Vec<Span> {
    let tree = parse(source);
    find_spans(source, tree.root_node())
}

fn texts(source: &str, kind: SpanKind) -> Vec<String> {
    spans(source)
        .into_iter()
        .filter(|s| s.kind == kind)
        .map(|s| source[s.start_byte..s.end_byte].to_string())
        .collect()
}

/// Byte ranges of every comment and docstring of a parsed file.
fn comments_and_docstrings(source: &str) -> Vec<(usize, usize)> {
    let tree = parse(source);
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "comment" {
            out.push((n.start_byte(), n.end_byte()));
        }
        if matches!(n.kind(), "block" | "module") {
            if let Some(first) = n.named_child(0) {
                if is_string_statement(first) {
                    out.push((first.start_byte(), first.end_byte()));
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

/// Whether a span lies inside `[a, b)` or starts or ends strictly inside it (a span that
/// holds a whole comment or string statement is fine).
fn cuts_into(s: &Span, a: usize, b: usize) -> bool {
    (a < s.start_byte && s.start_byte < b)
        || (a < s.end_byte && s.end_byte < b)
        || (a <= s.start_byte && s.end_byte <= b)
}

#[test]
fn expression_spans_are_whole_slots() {
    let got = texts(SAMPLE, SpanKind::Expression);
    for want in [
        "width * height",              // right-hand side
        "total > 100",                 // if condition
        "cap(total)",                  // right-hand side that is a call
        "compute(self.name)",          // right-hand side
        "self.name",                   // an argument
        "str(e)",                      // an argument
        "self.pending() and not done", // while condition
        "lambda x: x + offset",        // an argument that is a lambda, as a whole
        "f\"{self.name}: {value}\"",   // returned value
        "name.strip()",
    ] {
        assert!(got.iter().any(|g| g == want), "{want:?} not in {got:?}");
    }
    // Never a fragment of a slot, nor anything inside a lambda or a boolean operator.
    // A name or a literal alone is no task (`"big"` is an argument, `width` a name).
    for bad in [
        "width",
        "100",
        "x + offset",
        "self.pending()",
        "not done",
        "\"big\"",
    ] {
        assert!(!got.iter().any(|g| g == bad), "{bad:?} in {got:?}");
    }
}

#[test]
fn statement_spans_are_simple_statements_alone_on_their_lines() {
    let got = texts(SAMPLE, SpanKind::Statement);
    for want in [
        "total = width * height",
        "log(total, \"big\")",
        "total = cap(total)",
        "return total",
        "return f\"{self.name}: {value}\"",
    ] {
        assert!(got.iter().any(|g| g == want), "{want:?} not in {got:?}");
    }
    // No pass, import, docstring, one-liner body; the trailing comment is not in the span.
    for bad in ["pass", "import os", "\"\"\"A shape.\"\"\"", "return x * 2"] {
        assert!(!got.iter().any(|g| g == bad), "{bad:?} in {got:?}");
    }
    assert!(!got.iter().any(|g| g.contains('#')), "{got:?}");
}

#[test]
fn block_spans_are_bodies_of_compound_statements() {
    let got = texts(SAMPLE, SpanKind::Block);
    for want in [
        "log(total, \"big\")\n        total = cap(total)",
        "print(part)",
        "pass",
        "raise RuntimeError(str(e)) from e",
        "cleanup()",
        "step(lambda x: x + offset)",
    ] {
        assert!(got.iter().any(|g| g == want), "{want:?} not in {got:?}");
    }
    // `value = compute(...)` alone is the try body: kept once, at the block level.
    assert!(got.iter().any(|g| g == "value = compute(self.name)"));
    assert!(!texts(SAMPLE, SpanKind::Statement)
        .iter()
        .any(|g| g == "value = compute(self.name)"));
}

#[test]
fn function_spans_start_after_the_docstring() {
    let got = texts(SAMPLE, SpanKind::Function);
    assert!(
        got.iter()
            .any(|g| g.starts_with("total = width * height\n") && g.ends_with("return total")),
        "{got:?}"
    );
    assert!(
        got.iter().any(|g| g == "self.name = name.strip()"),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|g| g.starts_with("for part in self.parts():") && g.ends_with("{value}\"")),
        "{got:?}"
    );
    // The one-liner's body shares its line with the signature.
    assert_eq!(got.len(), 3, "{got:?}");
}

#[test]
fn no_span_is_in_a_docstring_or_a_comment() {
    let spans = spans(SAMPLE);
    let holes = comments_and_docstrings(SAMPLE);
    assert!(holes.len() >= 4);
    for s in &spans {
        for &(a, b) in &holes {
            assert!(
                !cuts_into(s, a, b),
                "{:?} {:?} overlaps {:?}",
                s.kind,
                &SAMPLE[s.start_byte..s.end_byte],
                &SAMPLE[a..b]
            );
        }
    }
    // Text in the docstring and the comment that looks like code is no span.
    let all: Vec<&str> = spans
        .iter()
        .map(|s| &SAMPLE[s.start_byte..s.end_byte])
        .collect();
    assert!(!all
        .iter()
        .any(|t| t.contains("result") || t.contains("scaled")));
}

#[test]
fn one_span_per_range_and_lines_match_bytes() {
    let spans = spans(SAMPLE);
    let mut ranges: Vec<(usize, usize)> =
        spans.iter().map(|s| (s.start_byte, s.end_byte)).collect();
    let n = ranges.len();
    ranges.dedup();
    assert_eq!(ranges.len(), n);
    for s in &spans {
        assert_eq!(
            s.start_line as usize,
            SAMPLE[..s.start_byte].matches('\n').count() + 1
        );
        assert_eq!(
            s.end_line as usize,
            SAMPLE[..s.end_byte].matches('\n').count() + 1
        );
        assert!(s.start_line <= s.end_line);
        if s.kind != SpanKind::Expression {
            assert!(starts_line(SAMPLE, s.start_byte));
        }
    }
}

#[test]
fn units_are_the_statements_to_execute() {
    let spans = spans(SAMPLE);
    let find = |kind, text: &str| {
        spans
            .iter()
            .find(|s| s.kind == kind && &SAMPLE[s.start_byte..s.end_byte] == text)
            .unwrap_or_else(|| panic!("{text}"))
            .clone()
    };
    // An expression is judged by its statement's line.
    let e = find(SpanKind::Expression, "total > 100");
    assert_eq!(
        e.units,
        [Unit {
            first: 11,
            last: 11
        }]
    );
    // A block: its statements; `pass` asks for nothing.
    let b = find(
        SpanKind::Block,
        "log(total, \"big\")\n        total = cap(total)",
    );
    assert_eq!(
        b.units,
        [
            Unit {
                first: 12,
                last: 12
            },
            Unit {
                first: 13,
                last: 13
            }
        ]
    );
    assert!(find(SpanKind::Block, "pass").units.is_empty());
    // A function body: every statement, nested ones included; `try:` itself asks for
    // nothing, a compound statement for its header lines.
    let f = spans
        .iter()
        .find(|s| s.kind == SpanKind::Function && SAMPLE[s.start_byte..].starts_with("for part"))
        .unwrap();
    let firsts: Vec<i32> = f.units.iter().map(|u| u.first).collect();
    assert_eq!(firsts, [25, 26, 30, 32, 34, 35, 36, 37]);
    // A decorated def is one unit from its decorator to its signature.
    let outer = spans
        .iter()
        .find(|s| s.kind == SpanKind::Block && SAMPLE[s.start_byte..].starts_with("\"\"\"A shape"));
    assert!(outer.is_none(), "a class body is no block span");
    let src = "if x:\n    @wrap(y)\n    def f():\n        return 1\n    z = f()\n";
    let tree = parse(src);
    let b = find_spans(src, tree.root_node())
        .into_iter()
        .find(|s| s.kind == SpanKind::Block)
        .unwrap();
    assert_eq!(
        b.units,
        [
            Unit { first: 2, last: 3 },
            Unit { first: 4, last: 4 },
            Unit { first: 5, last: 5 }
        ]
    );
}

#[test]
fn size_limits() {
    let spans = spans(SAMPLE);
    let limits = Limits::default();
    let by_text = |t: &str| {
        spans
            .iter()
            .find(|s| &SAMPLE[s.start_byte..s.end_byte] == t)
            .unwrap()
    };
    assert_eq!(
        limits.check(by_text("pass"), SAMPLE),
        Some(SizeGate::TooSmall)
    );
    assert_eq!(limits.check(by_text("cap(total)"), SAMPLE), None);
    let tight = Limits {
        max_block_lines: 1,
        ..limits
    };
    assert_eq!(
        tight.check(
            by_text("log(total, \"big\")\n        total = cap(total)"),
            SAMPLE
        ),
        Some(SizeGate::TooBig)
    );
    let short = Limits {
        max_chars: 8,
        ..limits
    };
    assert_eq!(
        short.check(by_text("cap(total)"), SAMPLE),
        Some(SizeGate::TooBig)
    );
}

#[test]
fn statements_sharing_a_line_are_no_statement_spans() {
    let src = "def f(a):\n    x = g(a); y = h(x)\n    return x + y\n";
    let got = texts(src, SpanKind::Statement);
    assert_eq!(got, ["return x + y"]);
}

#[test]
fn indentation_of_a_line() {
    assert_eq!(indent_at("a\n    b = 1\n", 6), "    ");
    assert_eq!(indent_at("x = 1", 4), "");
    assert_eq!(indent_at("if a:\n\tb()\n", 7), "\t");
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// A statement of a generated program: a line, or a header with a body.
    #[derive(Debug, Clone)]
    enum Stmt {
        Line(&'static str),
        Compound(&'static str, Vec<Stmt>),
    }

    const LINES: &[&str] = &[
        "x = f(a, b)",
        "return a + b",
        "y += g(x, key=k)",
        "print(x, y=h(2))",
        "pass",
        "raise ValueError(x)",
        "\"\"\"doc: x = f(a)\"\"\"",
        "z = [i for i in xs if ok(i)]",
        "w = a if cond(b) else c",
        "# note: y = g(x)",
        "del items[k]",
        "q = (a +\n    b)",
        "v = call(\n    first,\n    second)",
        "s = 1; t = u(2)",
    ];

    const HEADERS: &[&str] = &[
        "if check(x):",
        "elif_free_if = 1\nif a and b:",
        "for item in load(src):",
        "while more(q):",
        "with open(p) as fh:",
        "def helper(a, b=2):",
        "async def fetch(url):",
        "class Box:",
        "try:",
    ];

    fn stmt() -> impl Strategy<Value = Stmt> {
        let leaf = prop::sample::select(LINES).prop_map(Stmt::Line);
        leaf.prop_recursive(4, 40, 5, |inner| {
            (
                prop::sample::select(HEADERS),
                prop::collection::vec(inner, 1..5),
            )
                .prop_map(|(h, body)| Stmt::Compound(h, body))
        })
    }

    fn render(stmts: &[Stmt], indent: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        for s in stmts {
            match s {
                Stmt::Line(l) => {
                    for (i, part) in l.split('\n').enumerate() {
                        if i == 0 {
                            out.push_str(&pad);
                        }
                        out.push_str(part);
                        out.push('\n');
                    }
                }
                Stmt::Compound(h, body) => {
                    for part in h.split('\n') {
                        out.push_str(&pad);
                        out.push_str(part);
                        out.push('\n');
                    }
                    render(body, indent + 4, out);
                    if *h == "try:" {
                        out.push_str(&pad);
                        out.push_str("except KeyError:\n");
                        out.push_str(&pad);
                        out.push_str("    recover(x)\n");
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn spans_are_whole_code_and_never_in_comments_or_docstrings(
            program in prop::collection::vec(stmt(), 1..6)
        ) {
            let mut source = String::new();
            render(&program, 0, &mut source);
            let holes = comments_and_docstrings(&source);
            for s in spans(&source) {
                prop_assert!(s.start_byte < s.end_byte && s.end_byte <= source.len());
                let text = &source[s.start_byte..s.end_byte];
                prop_assert_eq!(text.trim(), text);
                let whole = format!("{}{}{}", &source[..s.start_byte], text, &source[s.end_byte..]);
                prop_assert_eq!(&whole, &source);
                prop_assert_eq!(s.start_line as usize, source[..s.start_byte].matches('\n').count() + 1);
                prop_assert_eq!(s.end_line as usize, source[..s.end_byte].matches('\n').count() + 1);
                if s.kind != SpanKind::Expression {
                    prop_assert!(starts_line(&source, s.start_byte), "{:?}", text);
                    prop_assert!(ends_line(&source, s.end_byte), "{:?}", text);
                    for u in &s.units {
                        prop_assert!(s.start_line <= u.first && u.last <= s.end_line, "{:?} {:?}", u, text);
                    }
                }
                for &(a, b) in &holes {
                    prop_assert!(!cuts_into(&s, a, b), "{:?} in {:?}", text, &source[a..b]);
                }
                prop_assert!(!text.starts_with('#') && !text.ends_with('\n'));
            }
        }
    }
}
