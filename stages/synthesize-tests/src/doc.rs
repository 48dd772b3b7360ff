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
