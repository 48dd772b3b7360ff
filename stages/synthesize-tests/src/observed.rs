//! The arguments the repository's own tests called a function with (`observed_calls`,
//! written by `execute --repo-tests`): the first seeds of the search and the strongest
//! evidence of a parameter's type.
//!
//! A row's `args` and `kwargs` are the literals of `test_cases.args` and `kwargs` (a list
//! and a dict with string keys, in the worker's literal language: plain literals plus
//! `set()`, `frozenset(...)`, `float('nan')`, `iter(...)` and the standard constructors of
//! [`StdType`], `datetime.date(2024, 2, 29)`, and the builtins and `operator` functions
//! the worker passes by name, `int`, `operator.add`, and attribute bags,
//! `types.SimpleNamespace(type='number', value=3)`, which is how the worker writes an object
//! of a class written in Python: the data attributes it had); a row whose text is not such a
//! literal is left out. Rows match a
//! function by `function_id` and are used only when their call shape fits the task's entry
//! point ([`Input::from_example`]: positionals in parameter order, keywords by name, every
//! parameter without a default given): synthesize-tests builds tasks of functions and static
//! methods only (an instance method is rejected as `method`), so a row recorded with a
//! receiver never fits and is left out.
//!
//! The search runs the fitting rows before anything else ([`crate::search::Search::with_seeds`])
//! and mutates them like its own inputs; a parameter's observed value types join its
//! annotation and the best guess from its default, docstring and uses ([`observed_types`],
//! read by [`crate::synth::param_specs`]). The rows of a function are part of its task's
//! `config_hash` ([`crate::synth::config_hash`], through [`digest`]): a new observation
//! makes the task again.

use std::collections::{BTreeMap, HashMap};

use schemas::id::content_id;
use schemas::ObservedCall;
use tree_sitter::Node;

use crate::doc::Example;
use crate::literal::value_of;
use crate::pyval::{PyVal, StdType, NAMESPACE_ATTRS};
use crate::search::{Input, ParamSpec};
use crate::types::{of_value, Ty};

/// The rows of each function, in `ordinal` order (then by text, for rows that share one).
pub fn by_function(rows: Vec<ObservedCall>) -> HashMap<String, Vec<ObservedCall>> {
    let mut out: HashMap<String, Vec<ObservedCall>> = HashMap::new();
    for r in rows {
        out.entry(r.function_id.clone()).or_default().push(r);
    }
    for rows in out.values_mut() {
        rows.sort_by(|a, b| (a.ordinal, &a.args, &a.kwargs).cmp(&(b.ordinal, &b.args, &b.kwargs)));
    }
    out
}

/// A digest of what of a function's rows shapes its search (their order and arguments),
/// 32 hex digits; `None` without rows.
pub fn digest(rows: &[ObservedCall]) -> Option<String> {
    if rows.is_empty() {
        return None;
    }
    let mut parts: Vec<Vec<u8>> = vec![b"observed/1".to_vec()];
    for r in rows {
        parts.push(r.ordinal.to_le_bytes().to_vec());
        parts.push(r.args.as_bytes().to_vec());
        parts.push(r.kwargs.as_bytes().to_vec());
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Some(content_id(&refs))
}

/// The call of a row: `None` when `args` is not a list literal or `kwargs` not a dict
/// literal with string keys.
pub fn parse(row: &ObservedCall) -> Option<Example> {
    let PyVal::List(args) = parse_value(&row.args)? else {
        return None;
    };
    let kwargs = match parse_value(&row.kwargs)? {
        PyVal::Dict(kv) => kv
            .into_iter()
            .map(|(k, v)| match k {
                PyVal::Str(k) => Some((k, v)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    Some(Example { args, kwargs })
}

/// The inputs of the rows that parse and fit `params`, without repeats, in row order; and
/// how many rows were left out.
pub fn inputs(params: &[ParamSpec], rows: &[ObservedCall]) -> (Vec<Input>, usize) {
    let mut out: Vec<Input> = Vec::new();
    let mut left_out = 0;
    for r in rows {
        match parse(r).and_then(|ex| Input::from_example(params, &ex)) {
            Some(input) if !out.contains(&input) => out.push(input),
            Some(_) => {}
            None => left_out += 1,
        }
    }
    (out, left_out)
}

/// Per parameter name, the type of the values the rows gave it (several types: their
/// union; `None` observed makes it optional). Extra positionals and `**kwargs` values vote
/// for the `*args` and `**kwargs` parameters.
pub fn observed_types(params: &[ParamSpec], inputs: &[Input]) -> BTreeMap<String, Ty> {
    let mut seen: BTreeMap<String, Vec<Ty>> = BTreeMap::new();
    let mut vote = |name: &str, v: &PyVal| {
        let t = of_value(v);
        let ts = seen.entry(name.to_string()).or_default();
        if !ts.contains(&t) {
            ts.push(t);
        }
    };
    let var_pos = params
        .iter()
        .find(|p| p.kind == schemas::ParamKind::VarPositional);
    let var_kw = params
        .iter()
        .find(|p| p.kind == schemas::ParamKind::VarKeyword);
    for input in inputs {
        for (p, v) in params.iter().zip(&input.values) {
            if let Some(v) = v {
                vote(&p.name, v);
            }
        }
        if let Some(p) = var_pos {
            for v in &input.varargs {
                vote(&p.name, v);
            }
        }
        if let Some(p) = var_kw {
            for (_, v) in &input.extra_kwargs {
                vote(&p.name, v);
            }
        }
    }
    seen.into_iter()
        .map(|(name, ts)| (name, Ty::Union(ts).flatten()))
        .collect()
}

/// The value of a literal in the worker's literal language.
pub fn parse_value(text: &str) -> Option<PyVal> {
    crate::literal::parse_with(text, value_in)
}

fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// [`value_of`] with containers walked here, so that the worker's extensions may sit inside.
fn value_in(node: Node<'_>, src: &str) -> Option<PyVal> {
    match node.kind() {
        "parenthesized_expression" => value_in(node.named_child(0)?, src),
        "tuple" | "list" | "set" => {
            let items = children(node)
                .into_iter()
                .map(|c| value_in(c, src))
                .collect::<Option<Vec<_>>>()?;
            Some(match node.kind() {
                "tuple" => PyVal::Tuple(items),
                "list" => PyVal::List(items),
                _ => PyVal::Set(items),
            })
        }
        "dictionary" => {
            let mut items = Vec::new();
            for c in children(node) {
                if c.kind() != "pair" {
                    return None;
                }
                let k = value_in(c.child_by_field_name("key")?, src)?;
                let v = value_in(c.child_by_field_name("value")?, src)?;
                items.push((k, v));
            }
            Some(PyVal::Dict(items))
        }
        "call" => {
            let func = node.child_by_field_name("function")?;
            let name = func.utf8_text(src.as_bytes()).ok()?;
            let args = children(node.child_by_field_name("arguments")?);
            if name == "types.SimpleNamespace" {
                // Keywords only, each an identifier, as the worker reads them.
                let mut attrs: Vec<(String, PyVal)> = Vec::new();
                for a in &args {
                    if a.kind() != "keyword_argument" {
                        return None;
                    }
                    let k = a
                        .child_by_field_name("name")?
                        .utf8_text(src.as_bytes())
                        .ok()?;
                    if attrs.iter().any(|(n, _)| n == k) {
                        return None;
                    }
                    attrs.push((
                        k.to_string(),
                        value_in(a.child_by_field_name("value")?, src)?,
                    ));
                }
                return (attrs.len() <= NAMESPACE_ATTRS).then_some(PyVal::Namespace(attrs));
            }
            if let Some(t) = StdType::from_name(name) {
                // Positional literals only, as the worker reads them (`-1` is a literal).
                let vals = args
                    .iter()
                    .map(|a| match a.kind() {
                        "keyword_argument" | "list_splat" | "dictionary_splat" => None,
                        _ => value_in(*a, src),
                    })
                    .collect::<Option<Vec<_>>>()?;
                return t.accepts(&vals).then_some(PyVal::Std(t, vals));
            }
            let items = |v: Option<PyVal>| match v {
                None => Some(Vec::new()),
                Some(PyVal::List(xs) | PyVal::Tuple(xs) | PyVal::Set(xs)) => Some(xs),
                Some(_) => None,
            };
            let arg = match args.as_slice() {
                [] => None,
                [a] => Some(value_in(*a, src)?),
                _ => return None,
            };
            match name {
                "set" => items(arg).map(PyVal::Set),
                "frozenset" => items(arg).map(PyVal::FrozenSet),
                "iter" => items(arg).map(PyVal::Iter),
                "float" => match arg? {
                    PyVal::Str(s) => match s.as_str() {
                        "nan" => Some(PyVal::Float(f64::NAN)),
                        "inf" => Some(PyVal::Float(f64::INFINITY)),
                        "-inf" => Some(PyVal::Float(f64::NEG_INFINITY)),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            }
        }
        // A builtin callable, or `operator.NAME`, as the worker writes them.
        "identifier" | "attribute" => PyVal::named(node.utf8_text(src.as_bytes()).ok()?),
        _ => value_of(node, src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemas::ParamKind;

    fn row(function_id: &str, ordinal: i32, args: &str, kwargs: &str) -> ObservedCall {
        ObservedCall {
            repo_id: "r".into(),
            function_id: function_id.into(),
            ordinal,
            args: args.into(),
            kwargs: kwargs.into(),
            node_id: "tests/test_m.py::test_f".into(),
            calls: 1,
            input_hash: "0".repeat(32),
        }
    }

    fn param(name: &str, kind: ParamKind, has_default: bool) -> ParamSpec {
        ParamSpec {
            name: name.into(),
            kind,
            ty: Ty::Any,
            has_default,
        }
    }

    #[test]
    fn parses_the_worker_literals() {
        let ex = parse(&row(
            "f",
            0,
            "[1, 'a', (2.5, None), set(), frozenset([1]), float('nan'), [iter([1])]]",
            "{'sep': ',', \"n\": -3}",
        ))
        .unwrap();
        assert_eq!(ex.args.len(), 7);
        assert_eq!(ex.args[0], PyVal::Int(1));
        assert_eq!(ex.args[1], PyVal::Str("a".into()));
        assert_eq!(
            ex.args[2],
            PyVal::Tuple(vec![PyVal::Float(2.5), PyVal::None])
        );
        assert_eq!(ex.args[3], PyVal::Set(vec![]));
        assert_eq!(ex.args[4], PyVal::FrozenSet(vec![PyVal::Int(1)]));
        assert!(matches!(ex.args[5], PyVal::Float(f) if f.is_nan()));
        assert_eq!(
            ex.args[6],
            PyVal::List(vec![PyVal::Iter(vec![PyVal::Int(1)])])
        );
        assert_eq!(
            ex.kwargs,
            vec![
                ("sep".to_string(), PyVal::Str(",".into())),
                ("n".to_string(), PyVal::Int(-3)),
            ]
        );
        // An object read by attribute, as the worker writes it; a positional or repeated
        // attribute is no namespace.
        let ex = parse(&row(
            "f",
            0,
            "[types.SimpleNamespace(type='number', value=[1, types.SimpleNamespace()])]",
            "{}",
        ))
        .unwrap();
        assert_eq!(
            ex.args[0],
            PyVal::Namespace(vec![
                ("type".into(), PyVal::Str("number".into())),
                (
                    "value".into(),
                    PyVal::List(vec![PyVal::Int(1), PyVal::Namespace(vec![])])
                ),
            ])
        );
        for bad in [
            "[types.SimpleNamespace(1)]",
            "[types.SimpleNamespace(a=1, a=2)]",
        ] {
            assert!(parse(&row("f", 0, bad, "{}")).is_none(), "{bad}");
        }
        // Objects of standard types, as the worker writes them.
        let ex = parse(&row(
            "f",
            0,
            "[datetime.datetime(2024, 1, 2, 3, 4, 5, 0), decimal.Decimal('-1.5'), \
             fractions.Fraction(1, -3), pathlib.PurePosixPath('a/b'), [datetime.timedelta(-1, 0, 0)]]",
            "{'at': datetime.time(12, 30, 0, 0)}",
        ))
        .unwrap();
        assert_eq!(
            ex.args[0].literal(),
            "datetime.datetime(2024, 1, 2, 3, 4, 5, 0)"
        );
        assert_eq!(
            ex.args[1],
            PyVal::Std(StdType::Decimal, vec![PyVal::Str("-1.5".into())])
        );
        assert_eq!(ex.args[2].literal(), "fractions.Fraction(1, -3)");
        assert_eq!(ex.args[3].literal(), "pathlib.PurePosixPath(\"a/b\")");
        assert_eq!(ex.args[4].literal(), "[datetime.timedelta(-1, 0, 0)]");
        assert_eq!(ex.kwargs[0].1.literal(), "datetime.time(12, 30, 0, 0)");
        // An aware datetime, its zone written as the worker writes it.
        let aware = "datetime.datetime(2024, 1, 2, 3, 4, 5, 0, \
                     datetime.timezone(datetime.timedelta(-1, 68400, 0)))";
        let ex = parse(&row("f", 0, &format!("[{aware}]"), "{}")).unwrap();
        assert_eq!(ex.args[0].literal(), aware);
        // Builtins and `operator` functions passed by name.
        let ex = parse(&row(
            "f",
            0,
            "[int, operator.add, (dict, ValueError)]",
            "{}",
        ))
        .unwrap();
        assert_eq!(ex.args[0], PyVal::Callable("int"));
        assert_eq!(ex.args[1], PyVal::Callable("operator.add"));
        assert_eq!(ex.args[2].literal(), "(dict, ValueError)");
        // Not literals of the worker's language, or not a list and a dict of names.
        for (a, k) in [
            ("[Thing()]", "{}"),
            ("(1, 2)", "{}"),
            ("[1]", "{1: 2}"),
            ("[1]", "[]"),
            ("[1]; import os", "{}"),
            ("[1", "{}"),
            ("[open]", "{}"),
            ("[operator.itemgetter]", "{}"),
            ("[datetime.date(2024, 2)]", "{}"),
            ("[datetime.date(year=2024, month=2, day=1)]", "{}"),
            ("[decimal.Decimal(1.5)]", "{}"),
            ("[datetime.datetime.now()]", "{}"),
            (
                "[datetime.datetime(2024, 1, 2, datetime.timezone(datetime.timedelta()))]",
                "{}",
            ),
            (
                "[datetime.datetime(2024, 1, 2, 0, 0, 0, 0, datetime.timezone(3600))]",
                "{}",
            ),
            ("[os.Path('a')]", "{}"),
        ] {
            assert_eq!(parse(&row("f", 0, a, k)), None, "{a} {k}");
        }
    }

    #[test]
    fn rows_group_by_function_in_ordinal_order_and_digest_their_arguments() {
        let grouped = by_function(vec![
            row("g", 1, "[2]", "{}"),
            row("f", 0, "[1]", "{}"),
            row("g", 0, "[1]", "{}"),
        ]);
        assert_eq!(grouped.len(), 2);
        let g: Vec<i32> = grouped["g"].iter().map(|r| r.ordinal).collect();
        assert_eq!(g, vec![0, 1]);
        let d = digest(&grouped["g"]).unwrap();
        assert_eq!(d.len(), 32);
        assert_eq!(digest(&[]), None);
        // The node and the counts do not change the search; the arguments do.
        let mut other = grouped["g"].clone();
        other[0].node_id = "elsewhere".into();
        other[0].calls = 9;
        assert_eq!(digest(&other).unwrap(), d);
        other[1].args = "[3]".into();
        assert_ne!(digest(&other).unwrap(), d);
    }

    #[test]
    fn only_calls_that_fit_the_entry_point_are_inputs() {
        let params = vec![
            param("text", ParamKind::PositionalOrKeyword, false),
            param("sep", ParamKind::PositionalOrKeyword, true),
            param("strict", ParamKind::KeywordOnly, true),
        ];
        let rows = vec![
            row("f", 0, "['a,b']", "{}"),
            row("f", 1, "['a;b', ';']", "{'strict': True}"),
            // The same call again: one input.
            row("f", 2, "['a,b']", "{}"),
            // A receiver first (an instance method's row): too many positionals.
            row("f", 3, "['self', 'a', ',']", "{'x': 1}"),
            // A required parameter missing, a name no parameter has, given twice.
            row("f", 4, "[]", "{'sep': ','}"),
            row("f", 5, "['a']", "{'other': 1}"),
            row("f", 6, "['a']", "{'text': 'b'}"),
            row("f", 7, "[Obj()]", "{}"),
        ];
        let (inputs, left_out) = inputs(&params, &rows);
        assert_eq!(inputs.len(), 2);
        assert_eq!(left_out, 5);
        assert_eq!(
            inputs[1].values,
            vec![
                Some(PyVal::Str("a;b".into())),
                Some(PyVal::Str(";".into())),
                Some(PyVal::Bool(true))
            ]
        );
        assert_eq!(
            inputs[1].literals(&params),
            (
                "[\"a;b\", \";\"]".to_string(),
                "{\"strict\": True}".to_string()
            )
        );
    }

    #[test]
    fn observed_types_are_the_union_of_what_the_tests_passed() {
        let params = vec![
            param("x", ParamKind::PositionalOrKeyword, false),
            param("y", ParamKind::PositionalOrKeyword, true),
            param("rest", ParamKind::VarPositional, false),
        ];
        let rows = vec![
            row("f", 0, "[1, 'a']", "{}"),
            row("f", 1, "[2.5, None, [1], [2]]", "{}"),
            row("f", 2, "[3]", "{}"),
        ];
        let (inputs, _) = inputs(&params, &rows);
        let types = observed_types(&params, &inputs);
        assert_eq!(types["x"], Ty::Union(vec![Ty::Int, Ty::Float]));
        assert_eq!(types["y"], Ty::Union(vec![Ty::Str, Ty::NoneT]));
        assert_eq!(types["rest"], Ty::List(Box::new(Ty::Int)));
        assert_eq!(types.len(), 3);
    }
}
