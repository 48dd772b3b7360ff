//! Each operator on small functions: the exact edits it makes, and the rules that hold for
//! all of them (docstrings and comments untouched, every mutant parses, determinism, span).

use mutants::{mutants, Mutant, MutantError, Operator, Options};

fn only(op: Operator) -> Options {
    Options {
        operators: vec![op],
        ..Options::default()
    }
}

/// `original -> replacement` for every mutant of `source` made by `op`.
fn edits(source: &str, op: Operator) -> Vec<String> {
    mutants(source, &only(op))
        .unwrap()
        .into_iter()
        .map(|m| {
            assert_eq!(m.operator, op);
            format!("{} -> {}", m.original, m.replacement)
        })
        .collect()
}

#[test]
fn arithmetic() {
    let src = "def f(a, b):\n    c = a + b - 1\n    c += a * b / 2 // 3\n    c -= a % b ** 2\n    c *= 2\n    c /= 2\n    return -c @ a\n";
    assert_eq!(
        edits(src, Operator::Arithmetic),
        [
            "+ -> -",
            "- -> +",
            "+= -> -=",
            "* -> /",
            "/ -> *",
            "/ -> //",
            "// -> *",
            "// -> /",
            "-= -> +=",
            "% -> *",
            "** -> *",
            "*= -> /=",
            "/= -> *=",
            "/= -> //=",
            "-c -> c",
        ]
    );
}

#[test]
fn comparison() {
    let src = "def f(a, b):\n    return a < b <= 3 or a > b or a >= b or a == b or a != b or a in b or a not in b or a is b or a is not b\n";
    assert_eq!(
        edits(src, Operator::Comparison),
        [
            "< -> <=",
            "<= -> <",
            "> -> >=",
            ">= -> >",
            "== -> !=",
            "!= -> ==",
            "in -> not in",
            "not in -> in",
            "is -> is not",
            "is not -> is",
        ]
    );
}

#[test]
fn boolean() {
    let src = "def f(a, b):\n    x = a and b or not a\n    return x is True or False\n";
    assert_eq!(
        edits(src, Operator::Boolean),
        [
            "and -> or",
            "or -> and",
            "not a -> a",
            "True -> False",
            "or -> and",
            "False -> True"
        ]
    );
}

#[test]
fn constants() {
    let src = "def f(a):\n    \"\"\"Doc 1.\"\"\"\n    x = [0, 7, 0x1F, 'ab', b\"c\", '', None, 2.5]\n    return f\"{a}!\"\n";
    assert_eq!(
        edits(src, Operator::Constant),
        [
            "0 -> 1",
            "7 -> 6",
            "7 -> 8",
            "0x1F -> 0x1e",
            "0x1F -> 0x20",
            "'ab' -> ''",
            "b\"c\" -> b\"\"",
            "f\"{a}!\" -> f\"\"",
        ]
    );
}

#[test]
fn return_values() {
    let src = "def f(a):\n    if a:\n        return a, 1\n    if not a:\n        return None\n    if a is None:\n        return\n    return a + 1\n";
    assert_eq!(
        edits(src, Operator::Return),
        ["a, 1 -> None", "a + 1 -> None"]
    );
}

#[test]
fn statement_deletion() {
    let src = "def f(a):\n    \"\"\"Doc.\"\"\"\n    a.sort()\n    b = a[0]\n    if b:\n        b += 1\n    return b\n\ndef g():\n    x = 1\n";
    assert_eq!(
        edits(src, Operator::StatementDeletion),
        ["a.sort() -> pass", "b = a[0] -> pass"]
    );
}

#[test]
fn slice_bounds() {
    let src = "def f(a, i, n):\n    return a[i:n - 1] + a[:2] + a[::i] + a[1:]\n";
    assert_eq!(
        edits(src, Operator::SliceBound),
        [
            "i -> i + 1",
            "i -> i - 1",
            "n - 1 -> (n - 1) + 1",
            "n - 1 -> (n - 1) - 1",
            "2 -> 2 + 1",
            "2 -> 2 - 1",
            "1 -> 1 + 1",
            "1 -> 1 - 1",
        ]
    );
}

#[test]
fn negation() {
    let src = "def f(a, b):\n    if a > b:\n        return 1\n    elif a:\n        return 2\n    while not b:\n        b = 1\n    return 3\n";
    assert_eq!(
        edits(src, Operator::Negation),
        ["a > b -> not (a > b)", "a -> not a", "not b -> b"]
    );
}

#[test]
fn docstrings_and_comments_are_untouched() {
    let src = "\"\"\"Module 1 + 2.\"\"\"\n# x = 1 + 2 < 3\n\n\nclass C:\n    \"Class 1 - 2 True.\" \"more\"\n\n    def m(self):  # return 1 + 1\n        '''Method 3 * 4 and 5.'''\n        return 5\n";
    let all = mutants(src, &Options::default()).unwrap();
    let docstrings_and_comments = [
        src.find("\"\"\"Module").unwrap()..src.find("\n# x").unwrap(),
        src.find("# x").unwrap()..src.find("\n\n\nclass").unwrap(),
        src.find("\"Class").unwrap()..src.find("\"more\"").unwrap() + 6,
        src.find("# return").unwrap()..src.find("1 + 1\n").unwrap() + 5,
        src.find("'''Method").unwrap()..src.find("5.'''").unwrap() + 5,
    ];
    for m in &all {
        for span in &docstrings_and_comments {
            assert!(
                m.end_byte <= span.start || m.start_byte >= span.end,
                "{m:?} touches {:?}",
                &src[span.clone()]
            );
        }
    }
    let listed: Vec<_> = all
        .iter()
        .map(|m| (m.operator, m.replacement.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            (Operator::Constant, "4"),
            (Operator::Constant, "6"),
            (Operator::Return, "None")
        ]
    );
}

/// A function that uses every operator, for the checks that hold for all mutants.
const KITCHEN_SINK: &str = r#"import math


def score(values, limit=10, *, strict=False):
    """Score `values` up to `limit`: 1 + 2 must not change."""
    total = 0  # running total
    seen = set()
    for i, v in enumerate(values[1:limit]):
        if v in seen or v is None:
            continue
        seen.add(v)
        total += v * 2 - i // 3
        while total > 100 and not strict:
            total -= math.floor(total / 2) % 7
    label = "high" if total >= limit else "low"
    return -total if strict else (total ** 2, label == 'x', values[::-1][i:])
"#;

#[test]
fn every_mutant_parses_and_differs() {
    let all = mutants(KITCHEN_SINK, &Options::default()).unwrap();
    assert!(all.len() > 50, "only {} mutants", all.len());
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .unwrap();
    for m in &all {
        // A fresh parse, not the incremental one the library uses.
        let tree = parser.parse(&m.source, None).unwrap();
        assert!(!tree.root_node().has_error(), "does not parse: {m:?}");
        assert_ne!(m.source, KITCHEN_SINK);
        assert_ne!(m.original, m.replacement);
        assert_eq!(&KITCHEN_SINK[m.start_byte..m.end_byte], m.original);
        let line = KITCHEN_SINK[..m.start_byte].matches('\n').count() + 1;
        assert_eq!(m.line, line);
    }
    for op in Operator::ALL {
        assert!(all.iter().any(|m| m.operator == op), "no {op} mutant");
    }
}

#[test]
fn order_and_ids_are_deterministic_and_unique() {
    let a = mutants(KITCHEN_SINK, &Options::default()).unwrap();
    let b = mutants(KITCHEN_SINK, &Options::default()).unwrap();
    assert_eq!(a, b);
    let keys: Vec<_> = a
        .iter()
        .map(|m| (m.start_byte, m.operator, m.replacement.clone()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let mut ids: Vec<_> = a.iter().map(|m| m.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), a.len());
    let mut sources: Vec<_> = a.iter().map(|m| m.source.as_str()).collect();
    sources.sort_unstable();
    sources.dedup();
    assert_eq!(sources.len(), a.len(), "two mutants with the same text");
}

#[test]
fn span_limits_the_sites() {
    let src = "def f(a):\n    return a + 1\n\n\ndef g(b):\n    return b - 1\n";
    let start = src.find("def g").unwrap();
    let options = Options {
        span: Some((start, src.len())),
        ..Options::default()
    };
    let inside: Vec<Mutant> = mutants(src, &options).unwrap();
    let every = mutants(src, &Options::default()).unwrap();
    assert!(!inside.is_empty());
    assert!(inside.iter().all(|m| m.start_byte >= start));
    let expected: Vec<_> = every
        .into_iter()
        .filter(|m| m.start_byte >= start)
        .collect();
    assert_eq!(inside, expected);
    assert!(matches!(
        mutants(
            src,
            &Options {
                span: Some((5, src.len() + 1)),
                ..Options::default()
            }
        ),
        Err(MutantError::Span { .. })
    ));
}

#[test]
fn max_samples_evenly() {
    let every = mutants(KITCHEN_SINK, &Options::default()).unwrap();
    let some = mutants(
        KITCHEN_SINK,
        &Options {
            max: Some(10),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(some.len(), 10);
    assert_eq!(some[0], every[0]);
    assert!(some.iter().all(|m| every.contains(m)));
    assert!(some.last().unwrap().start_byte > every[every.len() / 2].start_byte);
}

#[test]
fn unparsable_source_is_bad_input() {
    let err = mutants("def f(:\n    return 1\n", &Options::default()).unwrap_err();
    assert!(matches!(err, MutantError::Syntax { line: 1, .. }), "{err}");
}

#[test]
fn deep_nesting_does_not_overflow() {
    // The walk is a cursor loop, not recursion: a nesting this deep would overflow a
    // recursive walk on a test thread's 2 MB stack.
    let depth = 3000;
    let src = format!("x = {}1{}\n", "(".repeat(depth), " + 1)".repeat(depth));
    let all = mutants(&src, &only(Operator::Comparison)).unwrap();
    assert!(all.is_empty());
    let depth = 200;
    let src = format!("x = {}y{}\n", "(".repeat(depth), " < 1)".repeat(depth));
    let all = mutants(&src, &only(Operator::Comparison)).unwrap();
    assert_eq!(all.len(), depth);
}

#[test]
fn example_from_the_report() {
    let src = "def f(a, b):\n    if a > b:\n        return a - b\n    return b\n";
    let all = mutants(src, &Options::default()).unwrap();
    let listed: Vec<_> = all
        .iter()
        .map(|m| {
            format!(
                "{} line {}: {} -> {}",
                m.operator, m.line, m.original, m.replacement
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            "negation line 2: a > b -> not (a > b)",
            "comparison line 2: > -> >=",
            "return line 3: a - b -> None",
            "arithmetic line 3: - -> +",
            "return line 4: b -> None",
        ]
    );
    // Ids are fixed values: the same on every run, build and platform.
    let ids: Vec<_> = all.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "negation:20-25:135747ee6daf5d3c",
            "comparison:22-23:08108707b4ce87d4",
            "return:42-47:669b18c6d2d9c95b",
            "arithmetic:44-45:af63a64c860190ca",
            "return:59-60:669b18c6d2d9c95b",
        ]
    );
    assert_eq!(
        all[1].source,
        "def f(a, b):\n    if a >= b:\n        return a - b\n    return b\n"
    );
}
