//! Text that matches a function's own regular expressions.
//!
//! Code that validates or takes apart text with `re.match(r"(\d+)\.(\d+)", s)` only goes
//! past its first branch on text of that shape, which random characters almost never have.
//! The pattern is written in Python's syntax; it is rewritten into the syntax
//! `regex-syntax` parses (the same parser proptest's own regex strategies use), and text
//! is drawn from the parsed expression. The drawing is this module's own rather than
//! proptest's `string_regex`: that one refuses anchors and look-arounds (which nearly every
//! validating pattern has), repeats `*` up to 32 times, and draws `\d` and `\w` from all of
//! Unicode, where code that parses numbers needs ASCII digits nearly always.

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::TestRunner;
use regex_syntax::hir::{Class, Hir, HirKind};

/// A Python pattern in `regex-syntax`'s syntax, or `None` when it uses what that syntax
/// has no counterpart for (conditionals, named Unicode escapes, a trailing backslash).
/// What only narrows a match (negative look-arounds, back-references, comments) is
/// dropped: the text drawn then matches the rest, which is still far closer than random
/// text; a positive look-around becomes a group of its own, drawn in its place.
pub fn to_rust_syntax(py: &str) -> Option<String> {
    let cs: Vec<char> = py.chars().collect();
    let mut out = String::with_capacity(py.len() + 8);
    let mut i = 0;
    // Inside a class, and whether the next character is its first (where `]` is literal
    // in Python).
    let mut in_class = false;
    let mut class_first = false;
    while i < cs.len() {
        let c = cs[i];
        if c == '\\' {
            let next = *cs.get(i + 1)?;
            i += 2;
            class_first = false;
            match next {
                'Z' => out.push_str(r"\z"),
                'b' if in_class => out.push_str(r"\x08"),
                'N' => return None,
                '1'..='9' if !in_class => {
                    // A back-reference: dropped, with the rest of its digits.
                    while i < cs.len() && cs[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                '0' => out.push_str(r"\x00"),
                c if c.is_ascii_alphanumeric() => {
                    out.push('\\');
                    out.push(c);
                }
                c if regex_syntax::is_escapeable_character(c) => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push_str(&regex_syntax::escape(&c.to_string())),
            }
            continue;
        }
        if in_class {
            let first = class_first;
            class_first = false;
            match c {
                ']' if first => out.push_str(r"\]"),
                ']' => {
                    in_class = false;
                    out.push(']');
                }
                '^' if first && out.ends_with('[') => {
                    out.push('^');
                    class_first = true;
                }
                '[' | '&' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                '-' if cs.get(i + 1) == Some(&'-') => out.push_str(r"\-"),
                c => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                class_first = true;
                out.push('[');
            }
            '(' if cs.get(i + 1) == Some(&'?') => {
                let rest: String = cs[i + 2..].iter().take(3).collect();
                // What a positive look-around asks for is text too: drawn in its place
                // (`\d+(?=px)` draws `12px`, which `search` and `match` find; `(?=.*\d).{8,}`
                // text with a digit in it).
                if rest.starts_with('=') || rest.starts_with("<=") {
                    out.push_str("(?:");
                    i += if rest.starts_with('=') { 3 } else { 4 };
                    continue;
                }
                if rest.starts_with('!')
                    || rest.starts_with("<!")
                    || rest.starts_with('#')
                    || rest.starts_with("P=")
                {
                    i = group_end(&cs, i)?;
                    continue;
                }
                if rest.starts_with('(') || rest.starts_with('>') {
                    return None;
                }
                // Flags Rust has no counterpart for (ASCII, locale, unicode) are dropped.
                out.push_str("(?");
                i += 2;
                while i < cs.len() && cs[i].is_ascii_alphabetic() {
                    if !matches!(cs[i], 'a' | 'L' | 'u') {
                        out.push(cs[i]);
                    }
                    i += 1;
                }
                if out.ends_with("(?") && cs.get(i) == Some(&')') {
                    // `(?a)` alone: nothing is left of it.
                    out.truncate(out.len() - 2);
                    i += 1;
                }
                continue;
            }
            '{' => {
                // A repetition when it reads `{m}`, `{m,}`, `{m,n}` or `{,n}`; else literal.
                let close = cs[i..].iter().position(|&d| d == '}').map(|p| i + p);
                let body: Option<String> = close.map(|e| cs[i + 1..e].iter().collect());
                match body {
                    Some(b) if is_repetition(&b) => {
                        out.push('{');
                        if b.starts_with(',') {
                            out.push('0');
                        }
                        out.push_str(&b);
                        out.push('}');
                        i = close.unwrap_or(i) + 1;
                        continue;
                    }
                    _ => out.push_str(r"\{"),
                }
            }
            '}' => out.push_str(r"\}"),
            c => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

/// `m`, `m,`, `m,n` or `,n` with decimal numbers.
fn is_repetition(b: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    match b.split_once(',') {
        None => digits(b),
        Some((lo, hi)) => {
            (lo.is_empty() || digits(lo))
                && (hi.is_empty() || digits(hi))
                && !(lo.is_empty() && hi.is_empty())
        }
    }
}

/// The index just past the `)` that closes the group opened at `open`.
fn group_end(cs: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    let mut in_class = false;
    while i < cs.len() {
        match cs[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The parsed expression of a Python pattern, or `None` when it cannot be read.
pub fn parse(py: &str) -> Option<Hir> {
    let rust = to_rust_syntax(py)?;
    regex_syntax::ParserBuilder::new()
        .nest_limit(64)
        .build()
        .parse(&rust)
        .ok()
}

/// The most times an unbounded repetition (`*`, `+`, `{m,}`) is drawn past its minimum.
const UNBOUNDED_EXTRA: u32 = 8;
/// The largest minimum a repetition is drawn with (`\d{1000}` draws 64 digits: such text
/// does not match, but no pattern in real code asks that much).
const MAX_MIN: u32 = 64;

/// Text drawn from an expression: repetitions mostly short (their minimum to two past it),
/// sometimes up to eight past it; a class's printable ASCII characters six times in seven
/// when it has any, else its characters below U+0800, else any of them; anchors and
/// look-arounds match nothing.
pub fn strategy(h: &Hir) -> BoxedStrategy<String> {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Just(String::new()).boxed(),
        HirKind::Literal(l) => Just(String::from_utf8_lossy(&l.0).into_owned()).boxed(),
        HirKind::Class(c) => class_strategy(c),
        HirKind::Capture(cap) => strategy(&cap.sub),
        HirKind::Repetition(r) => {
            let min = r.min.min(MAX_MIN);
            let max = r.max.map_or(min + UNBOUNDED_EXTRA, |m| m.max(min));
            let short = min..=max.min(min + 2);
            let long = min..=max.min(min + UNBOUNDED_EXTRA);
            let sub = strategy(&r.sub);
            Union::new_weighted(vec![(4, short), (1, long)])
                .prop_flat_map(move |n| proptest::collection::vec(sub.clone(), n as usize))
                .prop_map(|parts| parts.concat())
                .boxed()
        }
        HirKind::Concat(subs) => subs
            .iter()
            .map(strategy)
            .collect::<Vec<_>>()
            .prop_map(|parts| parts.concat())
            .boxed(),
        HirKind::Alternation(subs) => Union::new(subs.iter().map(strategy)).boxed(),
    }
}

fn class_strategy(c: &Class) -> BoxedStrategy<String> {
    let ranges: Vec<(u32, u32)> = match c {
        Class::Unicode(u) => u
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        Class::Bytes(b) => b
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
    };
    let clip = |lo: u32, hi: u32| -> Vec<(u32, u32)> {
        ranges
            .iter()
            .filter_map(|&(a, b)| {
                let (a, b) = (a.max(lo), b.min(hi));
                (a <= b).then_some((a, b))
            })
            .collect()
    };
    // Beyond printable ASCII, the characters of the oldest scripts (below U+0800: Latin,
    // Greek, Cyrillic, Hebrew, Arabic...): every Python agrees on their classes, where a
    // digit or letter added in a recent Unicode version is not one to Python 3.11's `re`.
    let printable = clip(0x20, 0x7e);
    let old = clip(0, 0x7ff);
    let pick = |rs: Vec<(u32, u32)>| {
        proptest::sample::select(rs)
            .prop_flat_map(|(a, b)| a..=b)
            .prop_map(|cp| char::from_u32(cp).unwrap_or('?').to_string())
            .boxed()
    };
    match (printable.is_empty(), old.is_empty()) {
        (true, true) if ranges.is_empty() => Just(String::new()).boxed(),
        (true, true) => pick(ranges),
        (true, false) => pick(old),
        (false, _) => Union::new_weighted(vec![(6, pick(printable)), (1, pick(old))]).boxed(),
    }
}

/// `n` distinct texts (fewer when the expression has fewer) drawn the same way every time.
pub fn examples(h: &Hir, n: usize) -> Vec<String> {
    let s = strategy(h);
    let mut runner = TestRunner::deterministic();
    let mut out: Vec<String> = Vec::new();
    for _ in 0..n * 8 {
        if out.len() >= n {
            break;
        }
        if let Ok(tree) = s.new_tree(&mut runner) {
            let v = proptest::strategy::ValueTree::current(&tree);
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_syntax_is_rewritten() {
        for (py, rust) in [
            (r"^\d+\Z", r"^\d+\z"),
            (r"a{,3}", r"a{0,3}"),
            (r"{x}", r"\{x\}"),
            (r"[]a]", r"[\]a]"),
            (r"[^]a]", r"[^\]a]"),
            (r"[a[&~]", r"[a\[\&\~]"),
            (r"(?!x)ab(?<!c)", r"ab"),
            (r"a(?=x)b(?<=c)", r"a(?:x)b(?:c)"),
            (r"(?P<n>a)(?P=n)", r"(?P<n>a)"),
            (r"(a)\1b", r"(a)b"),
            (r"(?#note)a", r"a"),
            (r"(?ai)a", r"(?i)a"),
            (r"(?a)b", r"b"),
            (r"[\b]", r"[\x08]"),
        ] {
            assert_eq!(to_rust_syntax(py).as_deref(), Some(rust), "{py}");
        }
        assert_eq!(to_rust_syntax("a\\"), None);
        assert_eq!(to_rust_syntax(r"(?(1)a|b)"), None);
        assert_eq!(to_rust_syntax(r"\N{DASH}"), None);
    }

    /// What is drawn from real code's patterns matches them in Python's own `re` (the
    /// whole text, `re.fullmatch`); a bare python3 compiles the patterns, no repository
    /// code runs.
    #[test]
    fn drawn_text_matches_in_python() {
        let patterns = [
            r"^(\d+)\.(\d+)(?:\.(\d+))?$",
            r"[A-Za-z_][A-Za-z0-9_]*",
            r"(?i)0x[0-9a-f]{2,8}",
            r"^\s*(?P<key>\w+)\s*=\s*(?P<value>.*?)\s*$",
            r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?Z?\Z",
            r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?",
            r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$",
            r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?",
            r"(?x) (\d+) \s* (ms|s|m|h)  # a duration",
            r"\[(?P<section>[^]]+)\]",
            r"[^,;]+(?:[,;][^,;]+)*",
        ];
        let mut cases: Vec<(String, String)> = Vec::new();
        for p in patterns {
            let h = parse(p).unwrap_or_else(|| panic!("{p} parses"));
            for t in examples(&h, 6) {
                cases.push((p.to_string(), t));
            }
        }
        assert!(cases.len() >= patterns.len() * 3, "{}", cases.len());
        let json = serde_json::to_string(&cases).expect("json");
        let script = "import json, re, sys\n\
            bad = [(p, t) for p, t in json.load(sys.stdin) if not re.fullmatch(p, t)]\n\
            print(json.dumps(bad))\n";
        let Some(stdout) =
            crate::test_python::json_through(script, &json, "check the drawn text against")
        else {
            return;
        };
        let bad: Vec<(String, String)> = serde_json::from_slice(&stdout).expect("json back");
        assert!(bad.is_empty(), "text that does not match: {bad:?}");
    }

    #[test]
    fn examples_are_deterministic_and_distinct() {
        let h = parse(r"[a-z]{1,5}\d").expect("parses");
        let a = examples(&h, 5);
        assert_eq!(a, examples(&h, 5));
        assert_eq!(a.len(), 5);
        let mut sorted = a.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 5, "{a:?}");
        // A pattern with one text has one example, however many are asked for.
        assert_eq!(
            examples(&parse("abc").expect("parses"), 4),
            vec!["abc".to_string()]
        );
    }

    /// Printable ASCII is drawn from `\d` and `\w` most of the time, not all of Unicode.
    #[test]
    fn classes_prefer_printable_ascii() {
        let h = parse(r"\w").expect("parses");
        let texts = examples(&h, 40);
        let ascii = texts.iter().filter(|t| t.is_ascii()).count();
        assert!(ascii * 2 > texts.len(), "{texts:?}");
        assert!(texts.iter().all(|t| t.chars().count() == 1), "{texts:?}");
    }
}
