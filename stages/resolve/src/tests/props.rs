//! Property tests: on generated Python made of random nestings of functions, classes and
//! `if` blocks, every function is found with the qualname Python gives it, and its spans
//! slice the source exactly to its text, with line spans that agree with byte spans.

use std::fmt::Write as _;

use proptest::prelude::*;

use crate::analyze_file;

#[derive(Debug, Clone)]
enum Stmt {
    Def {
        name: usize,
        decorated: bool,
        is_async: bool,
        body: Vec<Stmt>,
    },
    Class {
        name: usize,
        body: Vec<Stmt>,
    },
    If {
        body: Vec<Stmt>,
    },
    Simple(usize),
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let leaf = (0usize..4).prop_map(Stmt::Simple);
    leaf.prop_recursive(5, 40, 4, |inner| {
        let body = prop::collection::vec(inner, 1..4);
        prop_oneof![
            (0usize..5, any::<bool>(), any::<bool>(), body.clone()).prop_map(
                |(name, decorated, is_async, body)| Stmt::Def {
                    name,
                    decorated,
                    is_async,
                    body
                }
            ),
            (0usize..5, body.clone()).prop_map(|(name, body)| Stmt::Class { name, body }),
            body.prop_map(|body| Stmt::If { body }),
        ]
    })
}

/// An expected function: qualname and the byte range of its text.
struct Expected {
    qualname: String,
    start: usize,
    end: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Parent {
    Module,
    Class,
    Function,
}

fn render(
    stmts: &[Stmt],
    indent: usize,
    prefix: &str,
    parent: Parent,
    out: &mut String,
    expected: &mut Vec<Expected>,
) {
    let pad = "    ".repeat(indent);
    for s in stmts {
        match s {
            Stmt::Simple(n) => {
                let line = [
                    "x = 1",
                    "pass",
                    "# just a comment\n{pad}y = call(x)",
                    "return helper(z)",
                ][*n];
                if *n == 3 && parent != Parent::Function {
                    let _ = writeln!(out, "{pad}pass");
                } else {
                    let _ = writeln!(out, "{pad}{}", line.replace("{pad}", &pad));
                }
            }
            Stmt::If { body } => {
                let _ = writeln!(out, "{pad}if cond:");
                render(body, indent + 1, prefix, parent, out, expected);
            }
            Stmt::Class { name, body } => {
                let name = format!("C{name}");
                let _ = writeln!(out, "{pad}class {name}(Base):");
                let q = qualify(prefix, parent, &name);
                render(body, indent + 1, &q, Parent::Class, out, expected);
            }
            Stmt::Def {
                name,
                decorated,
                is_async,
                body,
            } => {
                let name = format!("f{name}");
                let start = out.len() + pad.len();
                if *decorated {
                    let _ = writeln!(out, "{pad}@deco(1)");
                }
                let kw = if *is_async { "async def" } else { "def" };
                let _ = writeln!(out, "{pad}{kw} {name}(a, *b, c=2):");
                let q = qualify(prefix, parent, &name);
                let index = expected.len();
                expected.push(Expected {
                    qualname: q.clone(),
                    start,
                    end: 0,
                });
                render(body, indent + 1, &q, Parent::Function, out, expected);
                // The function ends where its last line's text ends.
                expected[index].end = out.trim_end().len();
                out.push('\n');
            }
        }
    }
}

fn qualify(prefix: &str, parent: Parent, name: &str) -> String {
    match parent {
        Parent::Module => name.to_string(),
        Parent::Class => format!("{prefix}.{name}"),
        Parent::Function => format!("{prefix}.<locals>.{name}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn spans_slice_the_source_to_each_function(stmts in prop::collection::vec(stmt(), 1..5)) {
        let mut src = String::new();
        let mut expected = Vec::new();
        render(&stmts, 0, "", Parent::Module, &mut src, &mut expected);
        let a = analyze_file(&src, "m", false).unwrap();
        prop_assert!(a.errors.is_empty(), "generated code parses: {:?}\n{}", a.errors, src);
        prop_assert_eq!(a.functions.len(), expected.len(), "{}", src);
        expected.sort_by_key(|e| e.start);
        for (f, e) in a.functions.iter().zip(&expected) {
            prop_assert_eq!(&f.qualname, &e.qualname);
            prop_assert_eq!((f.start_byte, f.end_byte), (e.start, e.end), "{}\n{}", f.qualname, src);
            prop_assert_eq!(f.source(&src), &src[e.start..e.end]);
            let line_of = |byte: usize| src[..byte].matches('\n').count() as u32 + 1;
            prop_assert_eq!(f.start_line, line_of(f.start_byte));
            prop_assert_eq!(f.end_line, line_of(f.end_byte - 1));
            prop_assert_eq!(f.end_line - f.start_line + 1, f.source(&src).lines().count() as u32);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Broken code is data: any text analyzes without panicking, and spans stay in bounds.
    #[test]
    fn any_text_analyzes(src in "(def |class |async |if |\\(|\\)|:|\\n|    |x|y\\.z|=|:=|'|\"\"\"|@|lambda |for |in |\\[|\\]|,|import |from |\\.|\\*|global |nonlocal |yield |return |é|\\\\)*") {
        let a = analyze_file(&src, "pkg.m", false).unwrap();
        for f in &a.functions {
            prop_assert!(f.start_byte <= f.end_byte && f.end_byte <= src.len());
            prop_assert!(src.get(f.start_byte..f.end_byte).is_some());
            prop_assert!(f.start_line <= f.end_line);
        }
        let _ = crate::resolve_repo(&[("pkg/m.py", src.as_str()), ("pkg/__init__.py", "from .m import *\n")]).unwrap();
    }
}
