//! Python input values as the search builds them ([`PyVal`]), and their text as Python
//! literals: the form `test_cases.args` stores and the execute worker evaluates (plain
//! literals, plus `float('nan')`, `float('inf')`, `set()`, `frozenset(...)`, a few builtin
//! callables by name and the standard constructors of [`StdType`], see
//! `execution::Call::args`).

use std::fmt::Write as _;

/// A Python value the search can pass as an argument.
#[derive(Debug, Clone, PartialEq)]
pub enum PyVal {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<PyVal>),
    Tuple(Vec<PyVal>),
    Set(Vec<PyVal>),
    FrozenSet(Vec<PyVal>),
    Dict(Vec<(PyVal, PyVal)>),
    /// A one-shot iterator over the items (`iter([1, 2])`).
    Iter(Vec<PyVal>),
    /// A builtin callable passed by name (`len`, `str`, `operator.add`).
    Callable(&'static str),
    /// An object of a standard type built from literal arguments
    /// (`datetime.date(2024, 2, 29)`, `decimal.Decimal('1.5')`).
    Std(StdType, Vec<PyVal>),
    /// An attribute bag, `types.SimpleNamespace(type='number', value=3)`: what stands for an
    /// object the function reads by attribute (a token, a record). The worker reads at most
    /// [`NAMESPACE_ATTRS`] attributes, each named by an identifier; it writes an observed
    /// object of a class written in Python as the bag of its data attributes.
    Namespace(Vec<(String, PyVal)>),
}

/// The most attributes a namespace may have: the worker's `ARG_NAMESPACE_ATTRS`.
pub const NAMESPACE_ATTRS: usize = 32;

/// A standard type the worker builds from literal positional arguments: the constructors
/// of the worker's `ARG_CONSTRUCTORS` (`stages/execution/python/values.py`), which reads
/// exactly these and writes observed values with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StdType {
    DateTime,
    Date,
    Time,
    TimeDelta,
    /// A fixed offset from UTC (`datetime.timezone(datetime.timedelta(0, 3600, 0))`), also a
    /// datetime's eighth argument.
    TimeZone,
    Decimal,
    Fraction,
    PurePosixPath,
    /// A compiled regular expression of a str pattern, `re.compile('(\d+)', 2)`: the
    /// pattern and, when not the default, its flags (among the worker's
    /// `ARG_REGEX_FLAGS`).
    Pattern,
}

impl StdType {
    pub const ALL: [StdType; 9] = [
        StdType::DateTime,
        StdType::Date,
        StdType::Time,
        StdType::TimeDelta,
        StdType::TimeZone,
        StdType::Decimal,
        StdType::Fraction,
        StdType::PurePosixPath,
        StdType::Pattern,
    ];

    /// The constructor's name as a literal writes it, `module.Name`.
    pub fn name(self) -> &'static str {
        match self {
            StdType::DateTime => "datetime.datetime",
            StdType::Date => "datetime.date",
            StdType::Time => "datetime.time",
            StdType::TimeDelta => "datetime.timedelta",
            StdType::TimeZone => "datetime.timezone",
            StdType::Decimal => "decimal.Decimal",
            StdType::Fraction => "fractions.Fraction",
            StdType::PurePosixPath => "pathlib.PurePosixPath",
            StdType::Pattern => "re.compile",
        }
    }

    pub fn from_name(name: &str) -> Option<StdType> {
        StdType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// How many arguments the worker takes: at least, at most.
    pub fn arity(self) -> (usize, usize) {
        match self {
            StdType::DateTime => (3, 8),
            StdType::Date => (3, 3),
            StdType::Time => (0, 4),
            StdType::TimeDelta => (0, 3),
            StdType::TimeZone | StdType::Decimal | StdType::PurePosixPath => (1, 1),
            StdType::Fraction => (2, 2),
            StdType::Pattern => (1, 2),
        }
    }

    /// Whether `arg` may be argument `at` (from 0): an int, one string (a decimal's, a
    /// path's, a pattern's), a time zone (a datetime's eighth) or a duration (a time
    /// zone's offset).
    fn accepts_at(self, at: usize, arg: &PyVal) -> bool {
        match (self, at) {
            (StdType::DateTime, 7) => matches!(arg, PyVal::Std(StdType::TimeZone, _)),
            (StdType::TimeZone, _) => matches!(arg, PyVal::Std(StdType::TimeDelta, _)),
            (StdType::Decimal | StdType::PurePosixPath | StdType::Pattern, 0) => {
                matches!(arg, PyVal::Str(_))
            }
            (StdType::Pattern, _) => {
                matches!(arg, PyVal::Int(f) if *f >= 0 && *f & !REGEX_FLAGS == 0)
            }
            _ => matches!(arg, PyVal::Int(_)),
        }
    }

    /// Whether `args` are arguments the worker accepts for this type (their count and
    /// kinds, a nested time zone's own included; the values themselves are the
    /// constructor's to check).
    pub fn accepts(self, args: &[PyVal]) -> bool {
        let (least, most) = self.arity();
        (least..=most).contains(&args.len())
            && args.iter().enumerate().all(|(at, a)| {
                self.accepts_at(at, a)
                    && match a {
                        PyVal::Std(t, inner) => t.accepts(inner),
                        _ => true,
                    }
            })
    }
}

/// The flags a pattern may be compiled with: the worker's `ARG_REGEX_FLAGS` (IGNORECASE 2,
/// MULTILINE 8, DOTALL 16, UNICODE 32, VERBOSE 64, ASCII 256).
pub const REGEX_FLAGS: i128 = 2 | 8 | 16 | 32 | 64 | 256;

/// The names a case may pass as a value, as the worker reads and writes them: its
/// `ARG_BUILTINS` by bare name and its `ARG_OPERATORS` as `operator.NAME`
/// (`stages/execution/python/values.py`; a test checks the two lists agree). An observed
/// call that passed `int` or `operator.add` is a seed like any other.
pub const ARG_NAMES: &[&str] = &[
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytes",
    "callable",
    "chr",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hex",
    "int",
    "isinstance",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "oct",
    "ord",
    "pow",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
    "ArithmeticError",
    "AssertionError",
    "Exception",
    "IndexError",
    "KeyError",
    "LookupError",
    "RuntimeError",
    "StopIteration",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
    "operator.abs",
    "operator.add",
    "operator.and_",
    "operator.concat",
    "operator.contains",
    "operator.eq",
    "operator.floordiv",
    "operator.ge",
    "operator.getitem",
    "operator.gt",
    "operator.invert",
    "operator.le",
    "operator.lt",
    "operator.mod",
    "operator.mul",
    "operator.ne",
    "operator.neg",
    "operator.not_",
    "operator.or_",
    "operator.pos",
    "operator.pow",
    "operator.sub",
    "operator.truediv",
    "operator.truth",
    "operator.xor",
];

impl PyVal {
    /// The builtin callable (or exception class) `name` names, when the worker takes it as
    /// an argument ([`ARG_NAMES`]).
    pub fn named(name: &str) -> Option<PyVal> {
        ARG_NAMES
            .iter()
            .find(|n| **n == name)
            .map(|n| PyVal::Callable(n))
    }

    /// The value as a Python literal (`ast.literal_eval`-style, with the worker's extensions).
    pub fn literal(&self) -> String {
        let mut out = String::new();
        self.write_literal(&mut out);
        out
    }

    fn write_literal(&self, out: &mut String) {
        fn items(out: &mut String, vals: &[PyVal]) {
            for (i, v) in vals.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                v.write_literal(out);
            }
        }
        match self {
            PyVal::None => out.push_str("None"),
            PyVal::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            PyVal::Int(i) => {
                let _ = write!(out, "{i}");
            }
            PyVal::Float(f) => out.push_str(&float_literal(*f)),
            PyVal::Str(s) => out.push_str(&str_literal(s)),
            PyVal::Bytes(b) => out.push_str(&bytes_literal(b)),
            PyVal::List(v) => {
                out.push('[');
                items(out, v);
                out.push(']');
            }
            PyVal::Tuple(v) => {
                out.push('(');
                items(out, v);
                if v.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            PyVal::Set(v) if v.is_empty() => out.push_str("set()"),
            PyVal::Set(v) => {
                out.push('{');
                items(out, v);
                out.push('}');
            }
            PyVal::FrozenSet(v) if v.is_empty() => out.push_str("frozenset()"),
            PyVal::FrozenSet(v) => {
                out.push_str("frozenset({");
                items(out, v);
                out.push_str("})");
            }
            PyVal::Dict(kv) => {
                out.push('{');
                for (i, (k, v)) in kv.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_literal(out);
                    out.push_str(": ");
                    v.write_literal(out);
                }
                out.push('}');
            }
            PyVal::Iter(v) => {
                out.push_str("iter([");
                items(out, v);
                out.push_str("])");
            }
            PyVal::Callable(name) => out.push_str(name),
            PyVal::Std(t, args) => {
                out.push_str(t.name());
                out.push('(');
                items(out, args);
                out.push(')');
            }
            PyVal::Namespace(attrs) => {
                out.push_str("types.SimpleNamespace(");
                for (i, (k, v)) in attrs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k);
                    out.push('=');
                    v.write_literal(out);
                }
                out.push(')');
            }
        }
    }

    /// A rough size (nodes and characters), for preferring smaller inputs.
    pub fn size(&self) -> usize {
        match self {
            PyVal::None | PyVal::Bool(_) | PyVal::Callable(_) => 1,
            PyVal::Int(i) => 1 + (i.unsigned_abs().checked_ilog10().unwrap_or(0) as usize),
            PyVal::Float(_) => 2,
            PyVal::Str(s) => 1 + s.chars().count(),
            PyVal::Bytes(b) => 1 + b.len(),
            PyVal::List(v)
            | PyVal::Tuple(v)
            | PyVal::Set(v)
            | PyVal::FrozenSet(v)
            | PyVal::Iter(v)
            | PyVal::Std(_, v) => 1 + v.iter().map(PyVal::size).sum::<usize>(),
            PyVal::Dict(kv) => 1 + kv.iter().map(|(k, v)| k.size() + v.size()).sum::<usize>(),
            PyVal::Namespace(kv) => 1 + kv.iter().map(|(_, v)| 1 + v.size()).sum::<usize>(),
        }
    }

    /// Whether the value can be a set element or dict key (hashable in Python).
    pub fn hashable(&self) -> bool {
        match self {
            PyVal::List(_)
            | PyVal::Set(_)
            | PyVal::Dict(_)
            | PyVal::Iter(_)
            | PyVal::Namespace(_) => false,
            PyVal::Tuple(v) | PyVal::FrozenSet(v) => v.iter().all(PyVal::hashable),
            _ => true,
        }
    }
}

/// The literal of a float: Rust's shortest round-trip text, which Python reads back
/// exactly; `float('nan')` and `float('inf')` for the non-finite ones.
pub fn float_literal(f: f64) -> String {
    if f.is_nan() {
        "float('nan')".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "float('inf')".into()
        } else {
            "float('-inf')".into()
        }
    } else {
        let s = format!("{f:?}");
        // `{:?}` gives `1e300` and `0.1`; both are Python floats as long as they hold a `.`,
        // `e` or are `inf`/`nan` (handled above).
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}

/// A Python string literal for any text: double quotes, escapes for `\`, `"` and control
/// characters, everything else as itself (the worker reads UTF-8).
pub fn str_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            // Line and paragraph separators end a line in some readers; escape them too.
            '\u{2028}' | '\u{2029}' | '\u{85}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Python bytes literal.
pub fn bytes_literal(b: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            0x20..=0x7e => out.push(byte as char),
            _ => {
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// Positional arguments as the `args` literal of a call: a list.
pub fn args_literal(args: &[PyVal]) -> String {
    PyVal::List(args.to_vec()).literal()
}

/// Keyword arguments as the `kwargs` literal of a call: a dict with string keys.
pub fn kwargs_literal(kwargs: &[(String, PyVal)]) -> String {
    PyVal::Dict(
        kwargs
            .iter()
            .map(|(k, v)| (PyVal::Str(k.clone()), v.clone()))
            .collect(),
    )
    .literal()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`ARG_NAMES`] is the worker's `ARG_BUILTINS` and `operator.` + `ARG_OPERATORS`.
    #[test]
    fn the_names_are_the_workers() {
        let src = include_str!("../../execution/python/values.py");
        let tuple = |var: &str| -> Vec<String> {
            let start = src.find(&format!("\n{var} = (")).expect(var) + var.len() + 5;
            let body = &src[start..start + src[start..].find(')').unwrap()];
            body.lines()
                .map(|l| l.split('#').next().unwrap())
                .flat_map(|l| l.split(','))
                .map(|w| w.trim().trim_matches('"').to_string())
                .filter(|w| !w.is_empty())
                .collect()
        };
        let mut want = tuple("ARG_BUILTINS");
        want.extend(
            tuple("ARG_OPERATORS")
                .iter()
                .map(|n| format!("operator.{n}")),
        );
        assert!(want.len() > 60, "{want:?}");
        assert_eq!(
            ARG_NAMES,
            want.iter().map(String::as_str).collect::<Vec<_>>()
        );
        assert_eq!(PyVal::named("int"), Some(PyVal::Callable("int")));
        assert_eq!(PyVal::named("open"), None);
    }

    #[test]
    fn literals() {
        assert_eq!(PyVal::Float(1.0).literal(), "1.0");
        assert_eq!(PyVal::Float(1e300).literal(), "1e300");
        assert_eq!(PyVal::Float(-0.0).literal(), "-0.0");
        assert_eq!(PyVal::Float(f64::NAN).literal(), "float('nan')");
        assert_eq!(PyVal::Tuple(vec![PyVal::Int(1)]).literal(), "(1,)");
        assert_eq!(PyVal::Set(vec![]).literal(), "set()");
        assert_eq!(
            PyVal::Std(
                StdType::Date,
                vec![PyVal::Int(2024), PyVal::Int(2), PyVal::Int(29)]
            )
            .literal(),
            "datetime.date(2024, 2, 29)"
        );
        assert_eq!(
            PyVal::Std(StdType::Decimal, vec![PyVal::Str("-1.5".into())]).literal(),
            "decimal.Decimal(\"-1.5\")"
        );
        let rx = |args: Vec<PyVal>| PyVal::Std(StdType::Pattern, args);
        assert_eq!(
            rx(vec![PyVal::Str(r"(\d+)".into()), PyVal::Int(2)]).literal(),
            r#"re.compile("(\\d+)", 2)"#
        );
        assert!(StdType::Pattern.accepts(&[PyVal::Str("a".into())]));
        assert!(StdType::Pattern.accepts(&[PyVal::Str("a".into()), PyVal::Int(2 | 8)]));
        // re.DEBUG (128) prints; a bytes pattern is not written.
        assert!(!StdType::Pattern.accepts(&[PyVal::Str("a".into()), PyVal::Int(128)]));
        assert!(!StdType::Pattern.accepts(&[PyVal::Bytes(b"a".to_vec())]));
        // The worker's ARG_REGEX_FLAGS (its tests check the same number).
        assert_eq!(REGEX_FLAGS, 378);
        assert_eq!(
            PyVal::Std(StdType::Time, vec![]).literal(),
            "datetime.time()"
        );
        assert_eq!(
            StdType::from_name("fractions.Fraction"),
            Some(StdType::Fraction)
        );
        assert_eq!(StdType::from_name("Fraction"), None);
        assert!(StdType::Fraction.accepts(&[PyVal::Int(1), PyVal::Int(3)]));
        assert!(!StdType::Fraction.accepts(&[PyVal::Int(1)]));
        assert!(!StdType::Decimal.accepts(&[PyVal::Float(1.5)]));
        // A time zone: a datetime's eighth argument only, and of a duration only.
        let hour = PyVal::Std(
            StdType::TimeDelta,
            vec![PyVal::Int(0), PyVal::Int(3600), PyVal::Int(0)],
        );
        let zone = PyVal::Std(StdType::TimeZone, vec![hour.clone()]);
        let mut when: Vec<PyVal> = [2024, 1, 2, 3, 4, 5, 0].map(PyVal::Int).to_vec();
        when.push(zone.clone());
        assert!(StdType::DateTime.accepts(&when));
        assert_eq!(
            PyVal::Std(StdType::DateTime, when.clone()).literal(),
            "datetime.datetime(2024, 1, 2, 3, 4, 5, 0, \
             datetime.timezone(datetime.timedelta(0, 3600, 0)))"
        );
        assert!(!StdType::DateTime.accepts(&[
            PyVal::Int(2024),
            PyVal::Int(1),
            PyVal::Int(2),
            zone
        ]));
        assert!(!StdType::TimeZone.accepts(&[PyVal::Int(3600)]));
        when[7] = PyVal::Std(
            StdType::TimeZone,
            vec![PyVal::Std(StdType::TimeDelta, vec![PyVal::Str("x".into())])],
        );
        assert!(!StdType::DateTime.accepts(&when));
        assert_eq!(
            PyVal::Str("a\"b\\\n\u{1}é".into()).literal(),
            "\"a\\\"b\\\\\\n\\x01é\""
        );
        assert_eq!(
            PyVal::Bytes(vec![0, b'a', 255]).literal(),
            "b\"\\x00a\\xff\""
        );
        assert_eq!(
            kwargs_literal(&[("sep".into(), PyVal::Str(",".into()))]),
            "{\"sep\": \",\"}"
        );
        let token = PyVal::Namespace(vec![
            ("type".into(), PyVal::Str("number".into())),
            ("value".into(), PyVal::List(vec![PyVal::Namespace(vec![])])),
        ]);
        assert_eq!(
            token.literal(),
            "types.SimpleNamespace(type=\"number\", value=[types.SimpleNamespace()])"
        );
        assert!(!token.hashable());
        // The worker's bound on a namespace's attributes.
        let src = include_str!("../../execution/python/values.py");
        assert!(src.contains(&format!("\nARG_NAMESPACE_ATTRS = {NAMESPACE_ATTRS}\n")));
    }
}
