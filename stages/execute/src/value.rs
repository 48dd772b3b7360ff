//! Python values as the worker reports them: tagged by exact type, so that judging happens
//! here, in Rust, out of the candidate's reach.
//!
//! The worker tags a value by its *exact* type: a subclass of `int`, or any object with an
//! `__eq__` that always says True, becomes [`Value::Object`] (its type name and `repr`) and
//! never equals an expected `int`. Comparison ([`Value::same`]) is structural and strict
//! about types (`1`, `1.0` and `True` differ; a tuple is not a list), treats NaN as equal to
//! NaN and `-0.0` as `0.0`, and ignores order inside sets and dicts.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

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
}
