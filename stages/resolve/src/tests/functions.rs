//! Function extraction: qualnames, spans, parameters, docstrings and metrics.

use super::{analyze, dedent, func};
use crate::analyze_file;

#[test]
fn qualnames_follow_python() {
    let a = analyze(
        "
        def top(): pass
        class A:
            def m(self): pass
            class B:
                async def n(self): pass
        def outer():
            def inner():
                def deepest(): pass
            class C:
                def m(self): pass
            if True:
                for _ in x:
                    def in_block(): pass
        ",
    );
    let got: Vec<_> = a.functions.iter().map(|f| f.qualname.as_str()).collect();
    assert_eq!(
        got,
        [
            "top",
            "A.m",
            "A.B.n",
            "outer",
            "outer.<locals>.inner",
            "outer.<locals>.inner.<locals>.deepest",
            "outer.<locals>.C.m",
            "outer.<locals>.in_block",
        ]
    );
    let m = func(&a, "A.B.n");
    assert!(m.is_method && m.is_async && !m.is_nested);
    assert_eq!(m.class_name.as_deref(), Some("A.B"));
    assert_eq!(m.name, "n");
    let cm = func(&a, "outer.<locals>.C.m");
    assert!(cm.is_method && cm.is_nested);
    assert_eq!(cm.class_name.as_deref(), Some("outer.<locals>.C"));
    let inner = func(&a, "outer.<locals>.inner");
    assert!(!inner.is_method && inner.is_nested && inner.class_name.is_none());
}

#[test]
fn spans_include_decorators() {
    let src = dedent(
        "
        import x

        @first
        @second.attr(1)
        def f(a):
            return a
        ",
    );
    let a = analyze_file(&src, "m", false).unwrap();
    let f = &a.functions[0];
    assert_eq!(
        f.source(&src),
        "@first\n@second.attr(1)\ndef f(a):\n    return a"
    );
    assert_eq!((f.start_line, f.end_line), (3, 6));
    assert_eq!(f.decorators, ["first", "second.attr(1)"]);
}

#[test]
fn every_parameter_kind() {
    let a = analyze("def f(a, b: int = 2, /, c=3, *args: str, d, e: 'E' = 4, **kw: Any) -> Dict[str, int]: pass\n");
    let f = func(&a, "f");
    let got: Vec<_> = f
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.kind.as_str(),
                p.annotation.as_deref(),
                p.default.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a", "positional_only", None, None),
            ("b", "positional_only", Some("int"), Some("2")),
            ("c", "positional_or_keyword", None, Some("3")),
            ("args", "var_positional", Some("str"), None),
            ("d", "keyword_only", None, None),
            ("e", "keyword_only", Some("'E'"), Some("4")),
            ("kw", "var_keyword", Some("Any"), None),
        ]
    );
    assert_eq!(f.returns.as_deref(), Some("Dict[str, int]"));
    let g = analyze("def g(self, *, key=None, **rest): pass\n");
    let kinds: Vec<_> = g.functions[0]
        .params
        .iter()
        .map(|p| p.kind.as_str())
        .collect();
    assert_eq!(
        kinds,
        ["positional_or_keyword", "keyword_only", "var_keyword"]
    );
}

#[test]
fn docstrings_are_cleaned_values() {
    let a = analyze(
        r#"
        def multi():
            """Summary line.

            Details, indented
                more.
            """
        def single():
            'It\'s a \t tab.'
        def raw():
            r"""Raw \n stays."""
        def concat():
            "Part one, " "part two."
        def fstring():
            f"""Not a docstring {x}."""
        def later():
            x = 1
            "Not first."
        def commented():
            # a comment first
            """Still the docstring."""
        "#,
    );
    assert_eq!(
        func(&a, "multi").docstring.as_deref(),
        Some("Summary line.\n\nDetails, indented\n    more.")
    );
    assert_eq!(
        func(&a, "single").docstring.as_deref(),
        Some("It's a   tab."),
        "tabs expanded as inspect.cleandoc does"
    );
    assert_eq!(func(&a, "raw").docstring.as_deref(), Some(r"Raw \n stays."));
    assert_eq!(
        func(&a, "concat").docstring.as_deref(),
        Some("Part one, part two.")
    );
    assert_eq!(func(&a, "fstring").docstring, None);
    assert_eq!(func(&a, "later").docstring, None);
    assert_eq!(
        func(&a, "commented").docstring.as_deref(),
        Some("Still the docstring.")
    );
}

#[test]
fn complexity_counts_decision_points_but_not_nested_functions() {
    let a = analyze(
        "
        def flat():
            return 1
        def branches(x):
            if x and y or z:
                pass
            elif x:
                pass
            else:
                pass
            for i in x:
                while i:
                    pass
            try:
                pass
            except A:
                pass
            except B:
                pass
            with open(x) as f:
                pass
            v = 1 if x else 2
            w = [a for a in x if a for b in a]
            match x:
                case 1: pass
                case _: pass
            def nested():
                if x: pass
            lam = lambda q: q if q else 0
        ",
    );
    assert_eq!(func(&a, "flat").complexity, 1);
    // 1 + if + and + or + elif + for + while + 2 except + ternary + 3 comprehension
    // clauses + 2 case clauses + the lambda's ternary = 16
    assert_eq!(func(&a, "branches").complexity, 16);
    assert_eq!(func(&a, "branches.<locals>.nested").complexity, 2);
}

#[test]
fn generators_returns_and_global_writes() {
    let a = analyze(
        "
        def gen():
            yield 1
        def gen_from():
            x = yield from other()
        def not_gen():
            def inner():
                yield 1
            f = lambda: (yield)
            return
        def returns():
            if x:
                return None
            return
        def only_nested_returns():
            def inner():
                return 1
        def writes():
            global G
            G = 1
        def reads():
            global G
            return G
        ",
    );
    assert!(func(&a, "gen").is_generator);
    assert!(func(&a, "gen_from").is_generator);
    assert!(!func(&a, "not_gen").is_generator);
    assert!(!func(&a, "not_gen").returns_value);
    assert!(func(&a, "returns").returns_value);
    assert!(!func(&a, "only_nested_returns").returns_value);
    assert!(func(&a, "writes").writes_globals);
    assert!(!func(&a, "reads").writes_globals);
}

#[test]
fn lines_skip_blanks_and_comments() {
    let a = analyze(
        "
        def f():
            # comment

            x = 1  # trailing comment counts as code
            '''doc
            string'''
            return x
        ",
    );
    assert_eq!(func(&a, "f").lines, 5);
}

#[test]
fn a_file_with_a_syntax_error_keeps_its_good_functions() {
    let a = analyze(
        "
        def good(a):
            return a + 1

        def broken(:
            return 2

        def also_good():
            return helper()
        ",
    );
    assert!(!a.errors.is_empty());
    assert!(a
        .errors
        .iter()
        .all(|e| e.message == "ERROR" || e.message.starts_with("MISSING ")));
    assert_eq!(a.errors[0].line, 4);
    let good = func(&a, "good");
    assert!(!good.has_syntax_error);
    assert!(func(&a, "broken").has_syntax_error);
    assert!(!func(&a, "also_good").has_syntax_error);
    assert_eq!(func(&a, "also_good").free_names[0].chain, "helper");
}

#[test]
fn an_unclosed_parenthesis_does_not_swallow_the_next_function() {
    // tree-sitter alone folds `after` into the broken `f`'s condition; parsed in pieces,
    // the error stays in `f`.
    let a = analyze(
        r#"
        import os

        def before():
            return os.sep

        def f(k):
            if k < 0:
                raise ValueError("negative"
            return k - 1

        @decorated
        def after(h):
            return h * 2

        class Later:
            def m(self):
                return helper()
        "#,
    );
    let names: Vec<_> = a
        .functions
        .iter()
        .map(|f| (f.qualname.as_str(), f.start_line, f.has_syntax_error))
        .collect();
    assert_eq!(
        names,
        [
            ("before", 3, false),
            ("f", 6, true),
            ("after", 11, false),
            ("Later.m", 16, false)
        ]
    );
    assert!(
        a.errors.iter().all(|e| (8..=10).contains(&e.line)),
        "{:?}",
        a.errors
    );
    assert_eq!(func(&a, "after").free_names[0].line, 11);
    assert_eq!(func(&a, "Later.m").free_names[0].chain, "helper");
    assert!(a.symbols.names.contains_key("os") && a.symbols.names.contains_key("Later"));
    // No keyword of the broken region passes for a name.
    assert!(
        func(&a, "f")
            .free_names
            .iter()
            .all(|n| !crate::is_keyword(&n.name)),
        "{:?}",
        func(&a, "f").free_names
    );
}

#[test]
fn an_empty_file_and_a_file_of_garbage_are_data() {
    let a = analyze("");
    assert!(a.functions.is_empty() && a.errors.is_empty());
    let b = analyze_file("}}}} def (((\n\x00\n", "m", false).unwrap();
    assert!(!b.errors.is_empty());
}
