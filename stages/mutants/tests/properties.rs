//! Property tests: a mutant changes the source only within its span, whatever the
//! arithmetic or comparison expression.

use mutants::{mutants, Options};
use proptest::prelude::*;

/// A small arithmetic or comparison expression over `a`, `b` and integer literals.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        (0u32..20).prop_map(|n| n.to_string()),
        Just("a[1:b]".to_string()),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let op = prop_oneof![
            Just("+"),
            Just("-"),
            Just("*"),
            Just("/"),
            Just("//"),
            Just("%"),
            Just("**"),
            Just("<"),
            Just("<="),
            Just("=="),
            Just("!="),
            Just(">"),
            Just("in"),
            Just("not in"),
            Just("is not"),
            Just("and"),
            Just("or"),
        ];
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(l, o, r)| format!("({l} {o} {r})")),
            inner.clone().prop_map(|e| format!("-{e}")),
            inner.prop_map(|e| format!("(not {e})")),
        ]
    })
}

proptest! {
    #[test]
    fn mutants_differ_only_within_their_span(e in expression(), augmented in any::<bool>()) {
        let body = if augmented { format!("    x = 1\n    x += {e}\n    return x") } else { format!("    return {e}") };
        let source = format!("def f(a, b):\n    \"\"\"Doc.\"\"\"\n{body}\n");
        let all = mutants(&source, &Options::default()).unwrap();
        prop_assert!(!all.is_empty());
        for m in &all {
            let (start, end) = (m.start_byte, m.end_byte);
            prop_assert_ne!(&m.source, &source);
            prop_assert_eq!(&m.source[..start], &source[..start]);
            let tail = source.len() - end;
            prop_assert_eq!(&m.source[m.source.len() - tail..], &source[end..]);
            prop_assert_eq!(m.source.len() - tail, start + m.replacement.len());
            prop_assert_eq!(&m.source[start..start + m.replacement.len()], m.replacement.as_str());
            prop_assert_eq!(&source[start..end], m.original.as_str());
        }
        prop_assert_eq!(mutants(&source, &Options::default()).unwrap(), all);
    }
}
