//! Parameter types named in a docstring, in the usual styles: Sphinx (`:type x: int`,
//! `:param int x:`), Google (`x (int): ...`, `x (str, optional): ...`) and `NumPy`
//! (`x : list of str`).

use std::collections::BTreeMap;

use crate::types::{from_doc_words, Ty};

/// The types the docstring gives the named parameters (only those it names with a type
/// this knows).
pub fn doc_types(doc: &str, params: &[String]) -> BTreeMap<String, Ty> {
    let mut out = BTreeMap::new();
    let mut put = |name: &str, words: &str| {
        if params.iter().any(|p| p == name) && !out.contains_key(name) {
            if let Some(t) = from_doc_words(words) {
                out.insert(name.to_string(), t);
            }
        }
    };
    for raw in doc.lines() {
        let line = raw.trim();
        // Sphinx: `:type x: int`.
        if let Some(rest) = line.strip_prefix(":type ") {
            if let Some((name, words)) = rest.split_once(':') {
                put(name.trim(), words);
            }
            continue;
        }
        // Sphinx: `:param int x: ...`.
        if let Some(rest) = line.strip_prefix(":param ") {
            if let Some((head, _)) = rest.split_once(':') {
                let parts: Vec<&str> = head.split_whitespace().collect();
                if parts.len() >= 2 {
                    put(parts[parts.len() - 1], &parts[..parts.len() - 1].join(" "));
                }
            }
            continue;
        }
        // Google: `x (int): ...`, `x (str, optional): ...`.
        if let Some((head, _)) = line.split_once("):") {
            if let Some((name, words)) = head.split_once(" (") {
                if !name.contains(' ') {
                    put(name.trim_start_matches('*'), words);
                }
            }
            continue;
        }
        // NumPy: `x : int` (alone on its line).
        if let Some((name, words)) = line.split_once(" : ") {
            let name = name.trim();
            if !name.contains(' ') {
                put(name.trim_start_matches('*'), words);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles() {
        let names: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        let doc = "Does things.\n\n:type a: int\n:param str b: the text\n\nArgs:\n    c (list of int): numbers\n    d (str, optional): name\n\nParameters\n----------\ne : float\n    A ratio.\n";
        let t = doc_types(doc, &names);
        assert_eq!(t["a"], Ty::Int);
        assert_eq!(t["b"], Ty::Str);
        assert_eq!(t["c"], Ty::List(Box::new(Ty::Int)));
        assert_eq!(t["d"], Ty::Union(vec![Ty::Str, Ty::NoneT]));
        assert_eq!(t["e"], Ty::Union(vec![Ty::Float, Ty::Int]));
    }
}

/// A call of the function shown in its docstring (`>>> f(1, 'a', sep=',')`), with literal
/// arguments only.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub args: Vec<crate::pyval::PyVal>,
    pub kwargs: Vec<(String, crate::pyval::PyVal)>,
}

/// The calls of `name` in the docstring's examples (`>>>` and `...` lines) whose arguments
/// are all literals: inputs the author chose, tried before any generated one.
pub fn examples(doc: &str, name: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let needle = format!("{name}(");
    for raw in doc.lines() {
        let line = raw.trim_start();
        let Some(code) = line
            .strip_prefix(">>> ")
            .or_else(|| line.strip_prefix("... "))
        else {
            continue;
        };
        let mut from = 0;
        while let Some(at) = code[from..].find(&needle) {
            let start = from + at;
            from = start + needle.len();
            // Not a longer name ending in ours (`my_f(`) nor an attribute (`x.f(`).
            if code[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            {
                continue;
            }
            let Some(end) = closing_paren(code, start + needle.len() - 1) else {
                break;
            };
            if let Some(e) = parse_call(&code[start..=end]) {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
            if out.len() >= 16 {
                return out;
            }
        }
    }
    out
}

/// The index of the `)` closing the `(` at `open`, skipping strings.
fn closing_paren(code: &str, open: usize) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut i = open;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

fn parse_call(text: &str) -> Option<Example> {
    let src = format!("{text}\n");
    let tree = crate::literal::python_parser().parse(&src, None)?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let call = root.named_child(0)?.named_child(0)?;
    if call.kind() != "call" {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let mut e = Example {
        args: Vec::new(),
        kwargs: Vec::new(),
    };
    let mut cursor = args.walk();
    for a in args.named_children(&mut cursor) {
        match a.kind() {
            "comment" => {}
            "keyword_argument" => {
                let name = a
                    .child_by_field_name("name")?
                    .utf8_text(src.as_bytes())
                    .ok()?;
                let value = crate::literal::value_of(a.child_by_field_name("value")?, &src)?;
                e.kwargs.push((name.to_string(), value));
            }
            _ => {
                if !e.kwargs.is_empty() {
                    return None;
                }
                e.args.push(crate::literal::value_of(a, &src)?);
            }
        }
    }
    Some(e)
}

#[cfg(test)]
mod example_tests {
    use super::*;
    use crate::pyval::PyVal;

    #[test]
    fn calls_with_literal_arguments_are_taken() {
        let doc = "Tail.\n\n    >>> list(tail(3, 'ABCDEFG'))\n    ['E', 'F', 'G']\n    >>> tail(n=2, iterable=[1, (2, 3)])\n    >>> tail(x, [1])\n    >>> my_tail(1, 2)\n    >>> obj.tail(1, 2)\n";
        let ex = examples(doc, "tail");
        assert_eq!(
            ex,
            vec![
                Example {
                    args: vec![PyVal::Int(3), PyVal::Str("ABCDEFG".into())],
                    kwargs: vec![]
                },
                Example {
                    args: vec![],
                    kwargs: vec![
                        ("n".into(), PyVal::Int(2)),
                        (
                            "iterable".into(),
                            PyVal::List(vec![
                                PyVal::Int(1),
                                PyVal::Tuple(vec![PyVal::Int(2), PyVal::Int(3)])
                            ])
                        ),
                    ],
                },
            ]
        );
    }
}
