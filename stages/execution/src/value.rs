//! Python values as the worker reports them: tagged by exact type, so that judging happens
//! here, in Rust, out of the candidate's reach.
//!
//! The worker tags a value by its *exact* type: a subclass of `int`, or any object with an
//! `__eq__` that always says True, becomes [`Value::Object`] (its type name and `repr`) and
//! never equals an expected `int`. Comparison ([`Value::same`]) is structural and strict
//! about types (`1`, `1.0` and `True` differ; a tuple is not a list), treats NaN as equal to
//! NaN and `-0.0` as `0.0`, and ignores order inside sets and dicts. [`Value::matches`] is
//! the same comparison with floats compared within a [`Tolerance`].
//!
//! A returned iterator (a generator, `map`, `zip`, ...; also inside a returned list or
//! tuple) is drawn by the worker while the call is still measured and reported as
//! [`Value::Iter`]: its first items, at most [`ITER_ITEMS`] in all. An object whose `repr`
//! shows a memory address differs from one process to
//! the next: [`Value::is_stable`] tells such values apart.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// The most items the worker draws from a returned iterator (`ITER_ITEMS` of
/// `python/values.py`).
pub const ITER_ITEMS: usize = 1000;

/// A Python value, tagged by its exact type (JSON: `{"t": "int", "v": "12"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "v", rename_all = "lowercase")]
pub enum Value {
    None,
    Bool(bool),
    /// Decimal digits: Python ints have no size limit.
    Int(String),
    #[serde(with = "float_json")]
    Float(f64),
    Str(String),
    /// Lowercase hex of the bytes.
    Bytes(String),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Set(Vec<Value>),
    Frozenset(Vec<Value>),
    /// Key/value pairs in the dict's order.
    Dict(Vec<(Value, Value)>),
    /// A returned iterator (exact type with `__next__` and `__iter__`: a generator, `map`,
    /// `filter`, `zip`, an `itertools` object, `iter(list)`), drawn by the worker: the items
    /// in order, at most [`ITER_ITEMS`]; `truncated` when it still had not ended then (it
    /// may have held exactly that many). Iterators inside a returned list or tuple (three
    /// levels deep) and among the items are drawn too, [`ITER_ITEMS`] items in all. JSON: `{"t": "iter", "v": {"items": [..],
    /// "truncated": false}}`.
    Iter {
        items: Vec<Value>,
        truncated: bool,
    },
    /// Anything else (including subclasses of the types above): its type's qualified name and
    /// its `repr`, capped.
    Object {
        #[serde(rename = "type")]
        type_name: String,
        repr: String,
    },
}

impl Value {
    /// An `int`.
    pub fn int(i: i64) -> Value {
        Value::Int(i.to_string())
    }

    /// A `str`.
    pub fn str(s: &str) -> Value {
        Value::Str(s.to_string())
    }

    /// Whether `self` and `other` are the same value (see the module doc for the rules).
    pub fn same(&self, other: &Value) -> bool {
        self.canonical() == other.canonical()
    }

    /// Whether `self` matches `expected`: [`Value::same`], except that floats need only be
    /// close ([`Tolerance::close`]). Structural and strict about types as `same` is (an
    /// `int` never matches a `float`, a list never a tuple nor an iterator, a truncated
    /// iterator never a complete one); dicts need the same keys (compared by canonical
    /// text, no tolerance) with matching values; sets and frozensets ignore order (each
    /// element paired with a distinct one of the other: exact pairs first, then a maximum
    /// matching within tolerance); objects need the same type and `repr`.
    pub fn matches(&self, expected: &Value, tol: Tolerance) -> bool {
        match (self, expected) {
            (Value::None, Value::None) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b))
            | (Value::Str(a), Value::Str(b))
            | (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => tol.close(*a, *b),
            (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => {
                in_order(a, b, tol)
            }
            (
                Value::Iter {
                    items: a,
                    truncated: ta,
                },
                Value::Iter {
                    items: b,
                    truncated: tb,
                },
            ) => ta == tb && in_order(a, b, tol),
            (Value::Set(a), Value::Set(b)) | (Value::Frozenset(a), Value::Frozenset(b)) => {
                let a: Vec<&Value> = a.iter().collect();
                let b: Vec<&Value> = b.iter().collect();
                any_order(&a, &b, tol)
            }
            (Value::Dict(a), Value::Dict(b)) => dicts_match(a, b, tol),
            (
                Value::Object {
                    type_name: ta,
                    repr: ra,
                },
                Value::Object {
                    type_name: tb,
                    repr: rb,
                },
            ) => ta == tb && ra == rb,
            _ => false,
        }
    }

    /// Whether the value reads the same in every process: false when an [`Value::Object`]
    /// anywhere inside shows a memory address in its `repr` (`<Foo object at 0x7f..>`,
    /// `<function f at 0x..>`), which no expected value can match reliably.
    pub fn is_stable(&self) -> bool {
        match self {
            Value::Object { repr, .. } => !(repr.contains(" at 0x") || repr.contains("object at")),
            Value::List(v)
            | Value::Tuple(v)
            | Value::Set(v)
            | Value::Frozenset(v)
            | Value::Iter { items: v, .. } => v.iter().all(Value::is_stable),
            Value::Dict(kv) => kv.iter().all(|(k, v)| k.is_stable() && v.is_stable()),
            Value::None
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Bytes(_) => true,
        }
    }

    /// A deterministic text for the value: equal texts mean [`Value::same`].
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut String) {
        fn seq(out: &mut String, open: &str, items: &[Value], close: &str, sorted: bool) {
            let mut parts: Vec<String> = items.iter().map(Value::canonical).collect();
            if sorted {
                parts.sort();
            }
            out.push_str(open);
            out.push_str(&parts.join(","));
            out.push_str(close);
        }
        match self {
            Value::None => out.push_str("None"),
            Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Value::Int(s) => {
                out.push_str("i:");
                out.push_str(s);
            }
            Value::Float(f) => {
                out.push_str("f:");
                if f.is_nan() {
                    out.push_str("nan");
                } else if *f == 0.0 {
                    out.push_str("0.0");
                } else {
                    let _ = write!(out, "{f:?}");
                }
            }
            Value::Str(s) => {
                let _ = write!(out, "s:{s:?}");
            }
            Value::Bytes(h) => {
                out.push_str("b:");
                out.push_str(h);
            }
            Value::List(v) => seq(out, "[", v, "]", false),
            Value::Tuple(v) => seq(out, "(", v, ")", false),
            Value::Set(v) => seq(out, "set{", v, "}", true),
            Value::Frozenset(v) => seq(out, "frozenset{", v, "}", true),
            Value::Iter { items, truncated } => {
                seq(out, "iter[", items, "", false);
                out.push_str(if *truncated { ";more]" } else { "]" });
            }
            Value::Dict(kv) => {
                let mut parts: Vec<String> = kv
                    .iter()
                    .map(|(k, v)| format!("{}:{}", k.canonical(), v.canonical()))
                    .collect();
                parts.sort();
                out.push_str("dict{");
                out.push_str(&parts.join(","));
                out.push('}');
            }
            Value::Object { type_name, repr } => {
                let _ = write!(out, "obj:{type_name:?}:{repr:?}");
            }
        }
    }
}

/// How close two floats must be to match ([`Value::matches`]), with the semantics of
/// Python's `math.isclose`: `|a - b| <= max(rel * max(|a|, |b|), abs)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance (of the larger magnitude).
    pub rel: f64,
    /// Absolute tolerance (for values near zero).
    pub abs: f64,
}

impl Default for Tolerance {
    /// `rel` 1e-9 (`math.isclose`'s default), `abs` 1e-12.
    fn default() -> Tolerance {
        Tolerance {
            rel: 1e-9,
            abs: 1e-12,
        }
    }
}

impl Tolerance {
    /// Floats must be equal (NaN still matches NaN, and `-0.0` matches `0.0`).
    pub const EXACT: Tolerance = Tolerance { rel: 0.0, abs: 0.0 };

    /// Whether `a` and `b` are close: NaN matches only NaN, an infinity only the same
    /// infinity, finite values within the tolerance.
    #[allow(clippy::float_cmp)] // exactly equal (equal infinities included) is close
    pub fn close(self, a: f64, b: f64) -> bool {
        if a.is_nan() || b.is_nan() {
            return a.is_nan() && b.is_nan();
        }
        if a == b {
            return true;
        }
        if a.is_infinite() || b.is_infinite() {
            return false;
        }
        (a - b).abs() <= (self.rel * a.abs().max(b.abs())).max(self.abs)
    }
}

/// Sequences that match item by item.
fn in_order(a: &[Value], b: &[Value], tol: Tolerance) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.matches(y, tol))
}

/// Multisets that match: every item of `a` paired with a distinct item of `b` it matches.
/// Items with the same canonical text are paired first; the rest by augmenting paths (a
/// maximum bipartite matching, so the answer does not depend on the order of the items).
fn any_order(a: &[&Value], b: &[&Value], tol: Tolerance) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut match_a: Vec<Option<usize>> = vec![None; a.len()];
    let mut match_b: Vec<Option<usize>> = vec![None; b.len()];
    let mut by_text: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (j, y) in b.iter().enumerate().rev() {
        by_text.entry(y.canonical()).or_default().push(j);
    }
    for (i, x) in a.iter().enumerate() {
        if let Some(j) = by_text.get_mut(&x.canonical()).and_then(Vec::pop) {
            match_a[i] = Some(j);
            match_b[j] = Some(i);
        }
    }
    (0..a.len()).all(|i| match_a[i].is_some() || augment(i, a, b, tol, &mut match_a, &mut match_b))
}

/// Finds (breadth first) a path from the unpaired `a[start]` to an unpaired item of `b`
/// alternating between unpaired and paired edges, and flips it: one more pair.
fn augment(
    start: usize,
    a: &[&Value],
    b: &[&Value],
    tol: Tolerance,
    match_a: &mut [Option<usize>],
    match_b: &mut [Option<usize>],
) -> bool {
    let mut reached_from: Vec<Option<usize>> = vec![None; b.len()];
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(i) = queue.pop_front() {
        for j in 0..b.len() {
            if reached_from[j].is_some() || !a[i].matches(b[j], tol) {
                continue;
            }
            reached_from[j] = Some(i);
            if let Some(k) = match_b[j] {
                queue.push_back(k);
                continue;
            }
            let mut j = j;
            while let Some(i) = reached_from[j] {
                let before = match_a[i];
                match_a[i] = Some(j);
                match_b[j] = Some(i);
                match before {
                    Some(p) => j = p,
                    None => break,
                }
            }
            return true;
        }
    }
    false
}

/// Dicts with the same keys (by canonical text) whose values match.
fn dicts_match(a: &[(Value, Value)], b: &[(Value, Value)], tol: Tolerance) -> bool {
    // Python allows keys with the same text (two NaNs): their values pair up in any order.
    fn by_key(kv: &[(Value, Value)]) -> BTreeMap<String, Vec<&Value>> {
        let mut m: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
        for (k, v) in kv {
            m.entry(k.canonical()).or_default().push(v);
        }
        m
    }
    if a.len() != b.len() {
        return false;
    }
    let (ka, kb) = (by_key(a), by_key(b));
    ka.len() == kb.len()
        && ka
            .iter()
            .all(|(k, va)| kb.get(k).is_some_and(|vb| any_order(va, vb, tol)))
}

/// Floats travel as JSON numbers, or as `"nan"`, `"inf"`, `"-inf"`.
mod float_json {
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::trivially_copy_pass_by_ref)] // serde's `with` passes a reference
    pub fn serialize<S: Serializer>(f: &f64, s: S) -> Result<S::Ok, S::Error> {
        if f.is_nan() {
            s.serialize_str("nan")
        } else if f.is_infinite() {
            s.serialize_str(if *f > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(*f)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Num(f64),
            Text(String),
        }
        match Repr::deserialize(d)? {
            Repr::Num(f) => Ok(f),
            Repr::Text(t) => match t.as_str() {
                "nan" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(serde::de::Error::custom(format!("not a float: {other:?}"))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_sameness() {
        let v: Value = serde_json::from_str(
            r#"{"t":"tuple","v":[{"t":"float","v":"nan"},{"t":"set","v":[{"t":"int","v":"2"},{"t":"int","v":"1"}]}]}"#,
        )
        .unwrap();
        let w = Value::Tuple(vec![
            Value::Float(f64::NAN),
            Value::Set(vec![Value::int(1), Value::int(2)]),
        ]);
        assert!(v.same(&w));
        assert!(!Value::List(vec![]).same(&Value::Tuple(vec![])));
        assert!(!Value::int(1).same(&Value::Float(1.0)));
        assert!(!Value::int(1).same(&Value::Bool(true)));
        assert!(Value::Float(-0.0).same(&Value::Float(0.0)));
        let back: Value = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
        assert!(back.same(&w));
    }

    fn f(x: f64) -> Value {
        Value::Float(x)
    }

    fn iter(items: Vec<Value>, truncated: bool) -> Value {
        Value::Iter { items, truncated }
    }

    fn obj(type_name: &str, repr: &str) -> Value {
        Value::Object {
            type_name: type_name.into(),
            repr: repr.into(),
        }
    }

    #[test]
    fn iter_json_shape_and_canonical_text() {
        let v: Value = serde_json::from_str(
            r#"{"t":"iter","v":{"items":[{"t":"int","v":"1"},{"t":"none"}],"truncated":true}}"#,
        )
        .unwrap();
        assert_eq!(v, iter(vec![Value::int(1), Value::None], true));
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(
            text,
            r#"{"t":"iter","v":{"items":[{"t":"int","v":"1"},{"t":"none"}],"truncated":true}}"#
        );
        let items = vec![Value::int(1), Value::int(2)];
        let texts = [
            iter(items.clone(), false).canonical(),
            iter(items.clone(), true).canonical(),
            Value::List(items.clone()).canonical(),
            Value::Tuple(items).canonical(),
        ];
        for (i, a) in texts.iter().enumerate() {
            for b in &texts[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(!iter(vec![], false).same(&Value::List(vec![])));
        assert!(iter(vec![f(f64::NAN)], false).same(&iter(vec![f(f64::NAN)], false)));
    }

    #[test]
    fn objects_showing_an_address_are_unstable() {
        let addr = obj("Foo", "<mod.Foo object at 0x7f3a2c1d0e80>");
        let func = obj("function", "<function f at 0x7f3a2c1d0e80>");
        assert!(!addr.is_stable());
        assert!(!func.is_stable());
        assert!(obj("Point", "Point(x=1, y=2)").is_stable());
        assert!(
            Value::str("<Foo object at 0x1>").is_stable(),
            "a str is data"
        );
        assert!(!Value::List(vec![Value::int(1), addr.clone()]).is_stable());
        assert!(!Value::Dict(vec![(Value::int(1), Value::Set(vec![func.clone()]))]).is_stable());
        assert!(!Value::Dict(vec![(func, Value::None)]).is_stable());
        assert!(!iter(vec![addr], false).is_stable());
        assert!(Value::Tuple(vec![f(1.0), Value::None, Value::Bytes("00".into())]).is_stable());
    }

    #[test]
    fn floats_match_within_tolerance_like_math_isclose() {
        let t = Tolerance::default();
        assert!(f(0.1 + 0.2).matches(&f(0.3), t));
        assert!(!f(0.1 + 0.2).same(&f(0.3)));
        assert!(f(1e10).matches(&f(1e10 + 1e-1), t), "relative");
        assert!(!f(1e10).matches(&f(1e10 + 100.0), t));
        assert!(f(0.0).matches(&f(1e-13), t), "absolute, near zero");
        assert!(!f(0.0).matches(&f(1e-11), t));
        assert!(f(-0.0).matches(&f(0.0), t));
        assert!(f(f64::NAN).matches(&f(f64::NAN), t));
        assert!(!f(f64::NAN).matches(&f(1.0), t) && !f(1.0).matches(&f(f64::NAN), t));
        assert!(f(f64::INFINITY).matches(&f(f64::INFINITY), t));
        assert!(!f(f64::INFINITY).matches(&f(f64::NEG_INFINITY), t));
        assert!(!f(f64::INFINITY).matches(&f(f64::MAX), t));
        let loose = Tolerance {
            rel: 0.0,
            abs: f64::INFINITY,
        };
        assert!(
            !f(f64::INFINITY).matches(&f(1.0), loose),
            "inf is never close to finite"
        );
        assert!(!f(1.0).matches(&f(1.0 + 1e-15), Tolerance::EXACT));
        assert!(f(1.0).matches(&f(1.0), Tolerance::EXACT));
        // The same text as math.isclose(1.0, 1.0 + 2e-9) == False.
        assert!(!f(1.0).matches(&f(1.0 + 2e-9), t));
    }

    #[test]
    fn matching_is_strict_about_types() {
        let t = Tolerance::default();
        let items = vec![Value::int(1), f(2.0)];
        assert!(!Value::int(1).matches(&f(1.0), t));
        assert!(!Value::int(1).matches(&Value::Bool(true), t));
        assert!(!f(1.0).matches(&Value::Bool(true), t));
        assert!(!Value::List(items.clone()).matches(&Value::Tuple(items.clone()), t));
        assert!(!iter(items.clone(), false).matches(&Value::List(items.clone()), t));
        assert!(!iter(items.clone(), false).matches(&iter(items.clone(), true), t));
        assert!(
            iter(items.clone(), true).matches(&iter(vec![Value::int(1), f(2.0 + 1e-12)], true), t)
        );
        assert!(!Value::Set(items.clone()).matches(&Value::Frozenset(items.clone()), t));
        assert!(!Value::List(items.clone()).matches(&Value::List(vec![Value::int(1)]), t));
        assert!(!Value::Str("1".into()).matches(&Value::Bytes("31".into()), t));
        assert!(!obj("A", "x").matches(&obj("B", "x"), t));
        assert!(!obj("A", "x").matches(&obj("A", "y"), t));
        assert!(obj("A", "x").matches(&obj("A", "x"), t));
        assert!(Value::List(vec![Value::Tuple(vec![f(0.1 + 0.2)])])
            .matches(&Value::List(vec![Value::Tuple(vec![f(0.3)])]), t));
    }

    #[test]
    fn dicts_match_by_key_text_and_values_within_tolerance() {
        let t = Tolerance::default();
        let d = |pairs: Vec<(Value, Value)>| Value::Dict(pairs);
        let a = d(vec![
            (Value::str("x"), f(0.1 + 0.2)),
            (Value::int(2), Value::None),
        ]);
        let b = d(vec![
            (Value::int(2), Value::None),
            (Value::str("x"), f(0.3)),
        ]);
        assert!(a.matches(&b, t) && b.matches(&a, t));
        // Keys are compared exactly: no tolerance on a float key.
        let ka = d(vec![(f(0.1 + 0.2), Value::None)]);
        let kb = d(vec![(f(0.3), Value::None)]);
        assert!(!ka.matches(&kb, t));
        assert!(!a.matches(&d(vec![(Value::str("x"), f(0.3))]), t));
        assert!(!a.matches(
            &d(vec![
                (Value::str("y"), f(0.3)),
                (Value::int(2), Value::None)
            ]),
            t
        ));
        // Two NaN keys (possible in Python): their values pair up in any order.
        let n1 = d(vec![
            (f(f64::NAN), Value::int(1)),
            (f(f64::NAN), Value::int(2)),
        ]);
        let n2 = d(vec![
            (f(f64::NAN), Value::int(2)),
            (f(f64::NAN), Value::int(1)),
        ]);
        assert!(n1.matches(&n2, t));
        assert!(!n1.matches(
            &d(vec![
                (f(f64::NAN), Value::int(1)),
                (f(f64::NAN), Value::int(1))
            ]),
            t
        ));
    }

    #[test]
    fn sets_match_in_any_order_each_element_once() {
        let tol = Tolerance::default();
        let near = Value::Set(vec![f(1.0), f(2.0 + 1e-12), Value::str("a")]);
        let exact = Value::Set(vec![Value::str("a"), f(2.0), f(1.0)]);
        assert!(near.matches(&exact, tol) && exact.matches(&near, tol));
        assert!(!near.same(&exact));
        // Each element is used once: {1.0, 1.0 + tiny} does not match {1.0, 5.0}.
        let twins = Value::Set(vec![f(1.0), f(1.0 + 1e-12)]);
        let apart = Value::Set(vec![f(1.0), f(5.0)]);
        assert!(!twins.matches(&apart, tol) && !apart.matches(&twins, tol));
        // Pairing the exact twins (1.0) first would leave `above` and `below`, which are
        // not close to each other; the matching pairs them with 1.0 instead.
        let (one, above, below) = (1.0, 1.0 + 0.9e-9, 1.0 - 0.9e-9);
        assert!(!f(above).matches(&f(below), tol));
        assert!(f(one).matches(&f(above), tol) && f(one).matches(&f(below), tol));
        let left = Value::Frozenset(vec![f(one), f(above)]);
        let right = Value::Frozenset(vec![f(below), f(one)]);
        assert!(left.matches(&right, tol) && right.matches(&left, tol));
        assert!(!Value::Set(vec![f(1.0)]).matches(&Value::Set(vec![f(1.0), f(1.0)]), tol));
    }

    /// Values of every kind (floats included: NaN, infinities, -0.0).
    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::None),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::int),
            "[1-9][0-9]{18,30}".prop_map(Value::Int),
            any::<f64>().prop_map(Value::Float),
            prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-0.0)].prop_map(Value::Float),
            ".{0,8}".prop_map(Value::Str),
            "([0-9a-f]{2}){0,4}".prop_map(Value::Bytes),
            ("[A-Za-z.]{1,8}", ".{0,12}").prop_map(|(t, r)| obj(&t, &r)),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| collections(&inner))
    }

    /// Values without floats, from a small domain, so that two of them are often equal.
    fn small_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::None),
            any::<bool>().prop_map(Value::Bool),
            (0i64..3).prop_map(Value::int),
            "[ab]{0,1}".prop_map(Value::Str),
            "(00|ff){0,1}".prop_map(Value::Bytes),
            "[ab]".prop_map(|r| obj("T", &r)),
        ];
        leaf.prop_recursive(3, 16, 3, |inner| collections(&inner))
    }

    fn collections(inner: &BoxedStrategy<Value>) -> impl Strategy<Value = Value> + 'static {
        let items = || prop::collection::vec(inner.clone(), 0..4);
        prop_oneof![
            items().prop_map(Value::List),
            items().prop_map(Value::Tuple),
            items().prop_map(Value::Set),
            items().prop_map(Value::Frozenset),
            (items(), any::<bool>())
                .prop_map(|(items, truncated)| Value::Iter { items, truncated }),
            prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(Value::Dict),
        ]
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_value_matches_itself(v in any_value()) {
            prop_assert!(v.matches(&v, Tolerance::default()), "{v:?}");
            prop_assert!(v.matches(&v, Tolerance::EXACT), "{v:?}");
            prop_assert!(v.matches(&v.clone(), Tolerance::default()));
        }

        #[test]
        fn without_floats_matching_is_symmetric_and_is_sameness(a in small_value(), b in small_value()) {
            let t = Tolerance::default();
            prop_assert_eq!(a.matches(&b, t), b.matches(&a, t), "{:?} / {:?}", a, b);
            prop_assert_eq!(a.matches(&b, t), a.same(&b), "{:?} / {:?}", a, b);
        }

        #[test]
        fn reordering_sets_and_dicts_keeps_a_match(v in any_value(), seed in any::<u64>()) {
            let w = shuffled(&v, seed);
            prop_assert!(v.matches(&w, Tolerance::default()), "{v:?} / {w:?}");
            prop_assert!(w.matches(&v, Tolerance::default()), "{w:?} / {v:?}");
        }
    }

    /// `v` with the elements of its sets and the pairs of its dicts in another order.
    fn shuffled(v: &Value, seed: u64) -> Value {
        fn rotate<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
            let mut out = items.to_vec();
            if !out.is_empty() {
                let k = (seed % out.len() as u64) as usize;
                out.rotate_left(k);
                if seed & 1 == 1 {
                    out.reverse();
                }
            }
            out
        }
        let s = seed.rotate_left(7) ^ 0x9e37_79b9_7f4a_7c15;
        let inner = |items: &[Value]| items.iter().map(|x| shuffled(x, s)).collect::<Vec<_>>();
        match v {
            Value::Set(items) => Value::Set(rotate(&inner(items), seed)),
            Value::Frozenset(items) => Value::Frozenset(rotate(&inner(items), seed)),
            Value::List(items) => Value::List(inner(items)),
            Value::Tuple(items) => Value::Tuple(inner(items)),
            Value::Iter { items, truncated } => Value::Iter {
                items: inner(items),
                truncated: *truncated,
            },
            Value::Dict(kv) => {
                let kv: Vec<(Value, Value)> = kv
                    .iter()
                    .map(|(k, x)| (k.clone(), shuffled(x, s)))
                    .collect();
                Value::Dict(rotate(&kv, seed))
            }
            other => other.clone(),
        }
    }
}
