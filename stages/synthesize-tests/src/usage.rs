//! What a function's body says about its parameters and the values that matter to it: how
//! each parameter is used (`len(x)`, `x + 1`, `x.split()`, `x[i]`, iteration, calls,
//! comparisons, `isinstance`), the constants the body holds (numbers, strings it compares
//! with or searches for, dictionary keys, slice bounds), the exceptions it raises itself,
//! and where its header and docstring end (for the prompt).

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::literal::{python_parser, value_of};
use crate::pyval::{PyVal, StdType, NAMESPACE_ATTRS};
use crate::types::{Shape, Ty};

/// A base kind a use of a parameter points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Int,
    Float,
    Str,
    Bytes,
    Bool,
    List,
    /// Only iterated over: lists, tuples and one-shot iterators all fit.
    Iterable,
    Tuple,
    Dict,
    Set,
    Callable,
    /// Raised or caught: an exception class.
    Exception,
    /// Checked against a standard type the worker builds (`isinstance(x, datetime.date)`).
    Std(StdType),
}

impl Kind {
    pub fn ty(self) -> Ty {
        let any = || Box::new(Ty::Any);
        match self {
            Kind::Int => Ty::Int,
            Kind::Float => Ty::Float,
            Kind::Str => Ty::Str,
            Kind::Bytes => Ty::Bytes,
            Kind::Bool => Ty::Bool,
            Kind::List => Ty::List(any()),
            Kind::Iterable => Ty::Iterable(any()),
            Kind::Tuple => Ty::TupleOf(any()),
            Kind::Dict => Ty::Dict(Box::new(Ty::Str), any()),
            Kind::Set => Ty::Set(any()),
            Kind::Callable => Ty::Callable,
            Kind::Exception => Ty::Exception,
            Kind::Std(t) => Ty::Std(t),
        }
    }
}

/// How one parameter is used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    /// Votes per kind (a telling method call counts more than `len(x)`).
    pub votes: BTreeMap<Kind, u32>,
    /// Kinds it is checked against with `isinstance`: every one should be generated.
    pub isinstance: BTreeSet<Kind>,
    /// Compared with `None`.
    pub none_checked: bool,
    /// Text it is parsed as, when some call parses it.
    pub shape: Option<Shape>,
    /// The text, bytes and integer constants it is compared with for equality (`x == "eol"`,
    /// `x != 3`, `x in ("a", "b")`, `code == b"\xc0"`), in order of appearance, at most [`EQUALS`]: each is
    /// a value of its own to draw (`elif escapes == "whitespace-one-line":` is taken by
    /// that text alone, which text drawn from all the function's constants seldom is).
    pub equals: Vec<PyVal>,
}

/// The most constants one parameter's [`Evidence::equals`] keeps.
pub const EQUALS: usize = 16;

impl Evidence {
    fn vote(&mut self, k: Kind, n: u32) {
        *self.votes.entry(k).or_default() += n;
    }

    fn equal_to(&mut self, v: PyVal) {
        if self.equals.len() < EQUALS && !self.equals.contains(&v) {
            self.equals.push(v);
        }
    }

    /// The type the uses point to, `None` when they say nothing.
    pub fn ty(&self) -> Option<Ty> {
        let mut members: Vec<Ty> = Vec::new();
        if let Some(&best) = self.votes.values().max() {
            for (k, &n) in &self.votes {
                // A type check (`isinstance(x, str)`) has a branch for other types: a kind
                // the uses point to less often is one of them (`x.keys()` beside many
                // comparisons with text), unless only one weak use says so.
                if n * 2 > best || (!self.isinstance.is_empty() && n >= 2) {
                    members.push(k.ty());
                }
            }
        }
        for k in &self.isinstance {
            let t = k.ty();
            if !members.contains(&t) {
                members.push(t);
            }
        }
        if members.is_empty() {
            return None;
        }
        if self.none_checked {
            members.push(Ty::NoneT);
        }
        Some(self.shaped(Ty::Union(members).flatten()))
    }

    /// `str` made the shape of text the body parses, when it parses one.
    pub fn shaped(&self, t: Ty) -> Ty {
        let Some(shape) = self.shape else { return t };
        match t {
            Ty::Str => Ty::Text(shape),
            Ty::Union(ms) => Ty::Union(
                ms.into_iter()
                    .map(|m| if m == Ty::Str { Ty::Text(shape) } else { m })
                    .collect(),
            ),
            other => other,
        }
    }
}

/// Constants found in the body (docstring excluded), in order of first appearance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constants {
    pub ints: Vec<i128>,
    pub floats: Vec<f64>,
    pub strs: Vec<String>,
    pub bytes: Vec<Vec<u8>>,
    /// Regular expressions the function matches its text against (`re.match(r"\d+", s)`,
    /// `re.compile(...)`), in Python's syntax, with the flags given beside them written
    /// inline (`(?i)`): text that matches them is drawn ([`crate::regex_text`]).
    pub regexes: Vec<String>,
}

impl Constants {
    /// Adds a value (numbers, strings and bytes; the items of a tuple or list of them).
    pub fn add(&mut self, v: PyVal) {
        if let PyVal::Tuple(items)
        | PyVal::List(items)
        | PyVal::Set(items)
        | PyVal::FrozenSet(items) = v
        {
            for i in items {
                self.add(i);
            }
            return;
        }
        match v {
            PyVal::Int(i) if !self.ints.contains(&i) => self.ints.push(i),
            PyVal::Float(f) if !self.floats.iter().any(|g| g.to_bits() == f.to_bits()) => {
                self.floats.push(f);
            }
            PyVal::Str(s) if !self.strs.contains(&s) && s.chars().count() <= 64 => {
                self.strs.push(s);
            }
            PyVal::Bytes(b) if !self.bytes.contains(&b) && b.len() <= 64 => self.bytes.push(b),
            _ => {}
        }
    }
}

impl Analysis {
    /// How the items of parameter `p` are used, when a `for` walks it with a plain name.
    pub fn items(&self, p: &str) -> Option<&Evidence> {
        self.evidence.get(&format!("{p}[]"))
    }

    /// The type the uses of `key` point to (a parameter, `PARAM[]` its items, `KEY.NAME`
    /// an attribute): its own evidence's, joined by an object with the attributes read of
    /// it (`token.type == 'number'` and `token.value / 100`: an object whose `type` is text
    /// and whose `value` a number), each typed the same way; `None` when nothing is said.
    pub fn ty_of(&self, key: &str) -> Option<Ty> {
        let own = self.evidence.get(key).and_then(Evidence::ty);
        let attrs: Vec<(String, Ty)> = self
            .evidence
            .keys()
            .filter_map(|k| k.strip_prefix(key)?.strip_prefix('.'))
            .filter(|a| !a.contains(['.', '[']))
            .take(NAMESPACE_ATTRS)
            .map(|a| {
                let t = self.ty_of(&format!("{key}.{a}")).unwrap_or(Ty::Any);
                (a.to_string(), t)
            })
            .collect();
        let keys: Vec<(String, Ty)> = self
            .evidence
            .keys()
            .filter_map(|k| {
                let name = k
                    .strip_prefix(key)?
                    .strip_prefix("['")?
                    .strip_suffix("']")?;
                is_field_name(name).then_some(name)
            })
            .take(NAMESPACE_ATTRS)
            .map(|k| {
                let t = self.ty_of(&format!("{key}['{k}']")).unwrap_or(Ty::Any);
                (k.to_string(), t)
            })
            .collect();
        let mut members: Vec<Ty> = Vec::new();
        if !keys.is_empty() {
            members.push(Ty::Record(keys));
        }
        if !attrs.is_empty() {
            members.push(Ty::Object(attrs));
        }
        if members.is_empty() {
            return own;
        }
        // A dict read by its keys is that record, not any dict.
        match own {
            Some(Ty::Dict(..)) if matches!(members[0], Ty::Record(_)) => {}
            Some(t) => members.insert(0, t),
            None => {}
        }
        Some(Ty::Union(members).flatten())
    }
}

/// What the analysis of one function found.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The function's name.
    pub name: String,
    /// Per parameter name; and under `NAME[]` ([`Analysis::items`]), how the items of a
    /// parameter a `for` walks are used, through the loop's name (`for f in funcs: f(x)`).
    pub evidence: BTreeMap<String, Evidence>,
    pub constants: Constants,
    /// Exception types the function raises itself (`raise ValueError(...)`).
    pub raises: BTreeSet<String>,
    /// Pairs of parameters compared with each other for equality (`assert width ==
    /// height`): one whose uses say nothing is of the other's type.
    pub equal_params: BTreeSet<(String, String)>,
    /// Byte offset where the body starts (after the header's `:`).
    pub body_start: usize,
    /// Byte offset just past the docstring statement, when there is one.
    pub docstring_end: Option<usize>,
    /// Byte offset of the `def` (after decorators).
    pub def_start: usize,
}

const STR_METHODS: &[&str] = &[
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "lower",
    "upper",
    "startswith",
    "endswith",
    "replace",
    "join",
    "format",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "title",
    "capitalize",
    "casefold",
    "splitlines",
    "partition",
    "rpartition",
    "encode",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "expandtabs",
    "isidentifier",
    "isnumeric",
    "isdecimal",
    "swapcase",
    "removeprefix",
    "removesuffix",
    "find",
    "rfind",
    "rindex",
];
const LIST_METHODS: &[&str] = &[
    "append", "extend", "insert", "sort", "reverse", "remove", "pop",
];
const DICT_METHODS: &[&str] = &[
    "items",
    "keys",
    "values",
    "get",
    "setdefault",
    "update",
    "popitem",
];
const SET_METHODS: &[&str] = &[
    "add",
    "discard",
    "union",
    "intersection",
    "difference",
    "issubset",
    "issuperset",
    "symmetric_difference",
    "isdisjoint",
];
/// Methods and attributes of a compiled regular expression that no builtin type has.
const PATTERN_ATTRS: &[&str] = &[
    "match",
    "fullmatch",
    "search",
    "finditer",
    "findall",
    "sub",
    "subn",
    "groupindex",
    "pattern",
];
/// Attributes of the standard types the worker builds and of numbers, each with the kind it
/// points to and whether it is a method: read on a parameter (a method called), they say
/// what it is (and make it no attribute bag's).
const STD_ATTRS: &[(&str, Kind, bool)] = &[
    ("year", Kind::Std(StdType::Date), false),
    ("month", Kind::Std(StdType::Date), false),
    ("day", Kind::Std(StdType::Date), false),
    ("weekday", Kind::Std(StdType::Date), true),
    ("isoweekday", Kind::Std(StdType::Date), true),
    ("isoformat", Kind::Std(StdType::Date), true),
    ("isocalendar", Kind::Std(StdType::Date), true),
    ("strftime", Kind::Std(StdType::Date), true),
    ("toordinal", Kind::Std(StdType::Date), true),
    ("timetuple", Kind::Std(StdType::Date), true),
    ("hour", Kind::Std(StdType::Time), false),
    ("minute", Kind::Std(StdType::Time), false),
    ("second", Kind::Std(StdType::Time), false),
    ("microsecond", Kind::Std(StdType::Time), false),
    ("tzinfo", Kind::Std(StdType::DateTime), false),
    ("utcoffset", Kind::Std(StdType::DateTime), true),
    ("astimezone", Kind::Std(StdType::DateTime), true),
    ("timestamp", Kind::Std(StdType::DateTime), true),
    ("total_seconds", Kind::Std(StdType::TimeDelta), true),
    ("quantize", Kind::Std(StdType::Decimal), true),
    ("as_tuple", Kind::Std(StdType::Decimal), true),
    ("numerator", Kind::Std(StdType::Fraction), false),
    ("denominator", Kind::Std(StdType::Fraction), false),
    ("limit_denominator", Kind::Std(StdType::Fraction), true),
    ("suffix", Kind::Std(StdType::PurePosixPath), false),
    ("suffixes", Kind::Std(StdType::PurePosixPath), false),
    ("stem", Kind::Std(StdType::PurePosixPath), false),
    ("with_suffix", Kind::Std(StdType::PurePosixPath), true),
    ("with_name", Kind::Std(StdType::PurePosixPath), true),
    ("with_stem", Kind::Std(StdType::PurePosixPath), true),
    ("as_posix", Kind::Std(StdType::PurePosixPath), true),
    ("is_absolute", Kind::Std(StdType::PurePosixPath), true),
    ("relative_to", Kind::Std(StdType::PurePosixPath), true),
    ("joinpath", Kind::Std(StdType::PurePosixPath), true),
    ("real", Kind::Float, false),
    ("imag", Kind::Float, false),
    ("conjugate", Kind::Float, true),
    ("hex", Kind::Float, true),
    ("as_integer_ratio", Kind::Float, true),
];

/// Whether a builtin or standard type has an attribute of this name, read (`called`: called)
/// on a parameter: a data attribute of a date, a fraction, a path or a number, a dunder, or
/// a method of text, a list, a dict, a set, a pattern, a number, a date or a path when it
/// is called. Such an attribute is no attribute of an object of the repository's; a method's
/// name not called (`token.is_integer`, `node.index`) may well be one.
fn known_attribute(name: &str, called: bool) -> bool {
    if name.starts_with("__") && name.ends_with("__") || matches!(name, "groupindex" | "pattern") {
        return true;
    }
    if let Some((_, _, method)) = STD_ATTRS.iter().find(|(n, _, _)| *n == name) {
        return called || !method;
    }
    called
        && (STR_METHODS.contains(&name)
            || LIST_METHODS.contains(&name)
            || DICT_METHODS.contains(&name)
            || SET_METHODS.contains(&name)
            || PATTERN_ATTRS.contains(&name)
            || matches!(
                name,
                "decode" | "bit_length" | "to_bytes" | "is_integer" | "index" | "count" | "copy"
            ))
}

/// What the `%` conversions of a format string ask of a single argument: a number when
/// every conversion is numeric (`%d`, `%i`, `%x`, `%f`, ...), `None` otherwise (`%s`, `%r`
/// take anything; several conversions take a tuple).
fn format_kind(fmt: &str) -> Option<Kind> {
    let mut convs = Vec::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        // Flags, width, precision, then the conversion character.
        while let Some(&n) = chars.peek() {
            if n.is_ascii_digit() || matches!(n, '-' | '+' | ' ' | '#' | '.' | '*') {
                chars.next();
            } else {
                break;
            }
        }
        match chars.next() {
            Some('%') | None => {}
            Some(conv) => convs.push(conv),
        }
    }
    match convs.as_slice() {
        ['d' | 'i' | 'u' | 'x' | 'X' | 'o'] => Some(Kind::Int),
        ['f' | 'F' | 'e' | 'E' | 'g' | 'G'] => Some(Kind::Float),
        _ => None,
    }
}

/// The keys a format names and the kind each conversion asks for: `%(name)s` (any: `None`),
/// `%(n)d` (a number); for `str.format` text (`braces`), `{name}` and `{name:d}`. Keys that
/// are no identifier (`{0}`, `{a.b}`'s attribute part aside) are left out.
fn format_keys(fmt: &str, braces: bool) -> Vec<(String, Option<Kind>)> {
    let mut out: Vec<(String, Option<Kind>)> = Vec::new();
    let mut push = |name: &str, kind: Option<Kind>| {
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        if valid && !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_string(), kind));
        }
    };
    if braces {
        let mut rest = fmt;
        while let Some(i) = rest.find('{') {
            rest = &rest[i + 1..];
            if rest.starts_with('{') {
                rest = &rest[1..];
                continue;
            }
            let Some(end) = rest.find('}') else { break };
            let field = &rest[..end];
            let (name, spec) = field.split_once(':').unwrap_or((field, ""));
            let name = name.split(['.', '[', '!']).next().unwrap_or(name);
            let kind = match spec.chars().last() {
                Some('d' | 'x' | 'X' | 'o' | 'b' | 'n') => Some(Kind::Int),
                Some('f' | 'F' | 'e' | 'E' | 'g' | 'G' | '%') => Some(Kind::Float),
                _ => None,
            };
            push(name, kind);
            rest = &rest[end + 1..];
        }
    } else {
        let mut rest = fmt;
        while let Some(i) = rest.find("%(") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let name = &rest[..end];
            let conv = rest[end + 1..]
                .chars()
                .find(|c| !(c.is_ascii_digit() || matches!(c, '-' | '+' | ' ' | '#' | '.')));
            let kind = match conv {
                Some('d' | 'i' | 'u' | 'x' | 'X' | 'o') => Some(Kind::Int),
                Some('f' | 'F' | 'e' | 'E' | 'g' | 'G') => Some(Kind::Float),
                _ => None,
            };
            push(name, kind);
            rest = &rest[end + 1..];
        }
    }
    out
}

/// Standard-library calls whose first argument is bytes (`zlib.decompress(data, ...)`).
const BYTES_CALLS: &[&str] = &[
    "zlib.compress",
    "zlib.decompress",
    "zlib.crc32",
    "zlib.adler32",
    "gzip.compress",
    "gzip.decompress",
    "bz2.compress",
    "bz2.decompress",
    "lzma.compress",
    "lzma.decompress",
    "BytesIO",
    "io.BytesIO",
    "binascii.hexlify",
    "binascii.b2a_hex",
    "binascii.crc32",
    "int.from_bytes",
    "memoryview",
];

const ITERATING_CALLS: &[&str] = &[
    "sorted",
    "list",
    "set",
    "tuple",
    "zip",
    "enumerate",
    "sum",
    "max",
    "min",
    "map",
    "filter",
    "any",
    "all",
    "iter",
    "reversed",
    "frozenset",
    "dict",
    "next",
];

/// Analyzes a function's text (dedented so it parses alone); `None` when it does not parse
/// or holds no function.
pub fn analyze(source: &str, params: &[String]) -> Option<Analysis> {
    analyze_bound(source, params, &BTreeMap::new())
}

/// [`analyze`], with what the function's imported names are bound to
/// ([`crate::task::bindings`]): a call is read by the name it qualifies to, so
/// `isnan(x)` after `from math import isnan` tells what `math.isnan(x)` does.
pub fn analyze_bound(
    source: &str,
    params: &[String],
    bindings: &BTreeMap<String, String>,
) -> Option<Analysis> {
    let tree = python_parser().parse(source, None)?;
    let root = tree.root_node();
    let func = find_function(root)?;
    let body = func.child_by_field_name("body")?;
    let mut a = Analysis {
        name: func
            .child_by_field_name("name")?
            .utf8_text(source.as_bytes())
            .ok()?
            .to_string(),
        body_start: body.start_byte(),
        def_start: func.start_byte(),
        ..Analysis::default()
    };
    // The `:` ending the header: the body node starts after it (and after a comment).
    let mut cursor = func.walk();
    for c in func.children(&mut cursor) {
        if c.kind() == ":" {
            a.body_start = c.end_byte();
        }
    }
    let docstring = body.named_child(0).filter(|s| {
        s.kind() == "expression_statement" && s.named_child(0).is_some_and(|e| e.kind() == "string")
    });
    a.docstring_end = docstring.map(|d| d.end_byte());
    let names: BTreeSet<&str> = params.iter().map(String::as_str).collect();
    for p in params {
        let mut e = Evidence::default();
        // A parameter named for what it takes (the name is its author's word for it).
        if matches!(
            p.as_str(),
            "iterable" | "iterator" | "iterables" | "it" | "seq_or_iter"
        ) {
            e.vote(Kind::Iterable, 3);
        }
        a.evidence.insert(p.clone(), e);
    }
    let mut loops = BTreeMap::new();
    loop_names(body, source, &names, &mut loops);
    let mut numbers = BTreeMap::new();
    local_numbers(body, source, &names, &mut numbers);
    // Defaults that are type names (`_str_type=(str, bytes)`), for `isinstance(x, _str_type)`.
    let mut type_defaults: BTreeMap<String, Vec<Kind>> = BTreeMap::new();
    if let Some(ps) = func.child_by_field_name("parameters") {
        let mut c = ps.walk();
        for p in ps.named_children(&mut c) {
            if !matches!(p.kind(), "default_parameter" | "typed_default_parameter") {
                continue;
            }
            let (Some(n), Some(v)) = (
                p.child_by_field_name("name"),
                p.child_by_field_name("value"),
            ) else {
                continue;
            };
            let text = |n: Node<'_>| n.utf8_text(source.as_bytes()).unwrap_or("");
            let v = strip_parens(v);
            let names: Vec<Node<'_>> = if v.kind() == "tuple" {
                let mut c = v.walk();
                v.named_children(&mut c).collect()
            } else {
                vec![v]
            };
            let kinds: Vec<Kind> = names
                .iter()
                .filter_map(|n| kind_of_type_name(text(*n)))
                .collect();
            if !kinds.is_empty() && kinds.len() == names.len() {
                type_defaults.insert(text(n).to_string(), kinds);
            }
        }
    }
    let mut parts = BTreeMap::new();
    split_parts(body, source, &names, &mut parts);
    let mut ctx = Walk {
        type_defaults,
        parts: parts
            .into_iter()
            .filter_map(|(k, v)| Some((k, v?)))
            .collect(),
        part_equals: BTreeMap::new(),
        src: source,
        params: &names,
        loops,
        numbers: numbers
            .into_iter()
            .filter_map(|(k, v)| Some((k, v?)))
            .collect(),
        docstring: docstring.map(|d| d.id()),
        bindings,
        a: &mut a,
    };
    ctx.walk(body);
    ctx.compose_parts();
    // Defaults in the header and annotations are not constants of the body.
    Some(a)
}

/// The names `for` loops and comprehensions bind to the items of a parameter
/// (`for f in funcs`, `[n for n in names]`, `for a in args[:3]`), each to the key
/// `PARAM[]`, and the names a plain assignment makes another name for a parameter
/// (`token = value`), each to the key `PARAM`: found before the walk, since a
/// comprehension's body comes before its `for`. A name bound to two different keys, or that
/// is a parameter itself, is left out.
fn loop_names(
    node: Node<'_>,
    src: &str,
    params: &BTreeSet<&str>,
    out: &mut BTreeMap<String, String>,
) {
    if matches!(node.kind(), "for_statement" | "for_in_clause") {
        let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
        if let (Some(l), Some(r)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right").map(strip_parens),
        ) {
            // `for a in args[:3]` walks the items of `args` too.
            let r = match r.child_by_field_name("value") {
                Some(v)
                    if r.kind() == "subscript"
                        && r.child_by_field_name("subscript")
                            .is_some_and(|i| i.kind() == "slice") =>
                {
                    strip_parens(v)
                }
                _ => r,
            };
            // `for p in sorted(packages, key=...)`, `reversed(xs)`, `list(xs)`: the same items.
            let r = match items_kept(r, src) {
                Some(v) => v,
                None => r,
            };
            let (name, over) = (text(l), text(r));
            if l.kind() == "identifier"
                && r.kind() == "identifier"
                && params.contains(over.as_str())
                && !params.contains(name.as_str())
            {
                let key = format!("{over}[]");
                bind(out, name, key);
            }
            // `for i, x in enumerate(p)`: `x` is an item of `p`; `for a, b in zip(p, q)`: `a`
            // of `p`, `b` of `q`.
            if r.kind() == "call" && matches!(l.kind(), "pattern_list" | "tuple_pattern") {
                let callee = r.child_by_field_name("function").map(text);
                let args: Vec<Node<'_>> = r
                    .child_by_field_name("arguments")
                    .map(|a| {
                        let mut c = a.walk();
                        a.named_children(&mut c).collect()
                    })
                    .unwrap_or_default();
                let mut c = l.walk();
                let names: Vec<Node<'_>> = l.named_children(&mut c).collect();
                let pairs: Vec<(Node<'_>, Node<'_>)> = match callee.as_deref() {
                    Some("enumerate") if names.len() == 2 && !args.is_empty() => {
                        vec![(names[1], args[0])]
                    }
                    Some("zip") if names.len() == args.len() => {
                        names.iter().copied().zip(args.iter().copied()).collect()
                    }
                    _ => Vec::new(),
                };
                for (n, a) in pairs {
                    let (name, over) = (text(n), text(a));
                    if n.kind() == "identifier"
                        && a.kind() == "identifier"
                        && params.contains(over.as_str())
                        && !params.contains(name.as_str())
                    {
                        bind(out, name, format!("{over}[]"));
                    }
                }
            }
            // `for k, v in d.items()`, `for v in d.values()`, `for k in d.keys()`: a dict's
            // keys are its items (`d[]`, as `for k in d` says), its values `d{}`.
            if let Some((dict, method)) = dict_view(r, src, params) {
                let names: Vec<Node<'_>> = if l.kind() == "identifier" {
                    vec![l]
                } else if matches!(l.kind(), "pattern_list" | "tuple_pattern") {
                    let mut c = l.walk();
                    l.named_children(&mut c).collect()
                } else {
                    Vec::new()
                };
                let keys: &[&str] = match (method, names.len()) {
                    ("items", 2) => &["[]", "{}"],
                    ("values", 1) => &["{}"],
                    ("keys", 1) => &["[]"],
                    _ => &[],
                };
                for (n, suffix) in names.iter().zip(keys) {
                    let name = text(*n);
                    if n.kind() == "identifier" && !params.contains(name.as_str()) {
                        bind(out, name, format!("{dict}{suffix}"));
                    }
                }
            }
        }
    }
    // `sorted(xs, key=lambda p: p.name)`, `max(xs, key=...)`, `map(lambda x: ..., xs)`,
    // `filter(lambda x: ..., xs)`: the lambda's parameter is an item of `xs`.
    if node.kind() == "call" {
        lambda_items(node, src, params, out);
    }
    if node.kind() == "assignment" {
        let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
        if let (Some(l), Some(r)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right").map(strip_parens),
        ) {
            let (name, of) = (text(l), text(r));
            if l.kind() == "identifier"
                && r.kind() == "identifier"
                && params.contains(of.as_str())
                && !params.contains(name.as_str())
            {
                bind(out, name.clone(), of);
            }
            // `row = matrix[i]`: an item of the parameter, as a loop's name is.
            if l.kind() == "identifier"
                && r.kind() == "subscript"
                && !params.contains(name.as_str())
            {
                if let (Some(v), Some(i)) = (
                    r.child_by_field_name("value").map(strip_parens),
                    r.child_by_field_name("subscript").map(strip_parens),
                ) {
                    if v.kind() == "identifier"
                        && params.contains(text(v).as_str())
                        && matches!(i.kind(), "identifier" | "binary_operator")
                    {
                        bind(out, name, format!("{}[]", text(v)));
                    }
                }
            }
        }
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    for c in children {
        loop_names(c, src, params, out);
    }
}

/// The local names bound once, to a number the function's own constants make (`minute =
/// 60`, `hour = minute * 60`, `limit = 1e3 + delta`), in the order they are bound: a
/// threshold the body compares with is often such a name or such an expression, and the
/// values beside it are what its branches need. A name bound again (`end += 1`, a loop's
/// name, a second assignment) is no constant (`None`).
fn local_numbers(
    node: Node<'_>,
    src: &str,
    params: &BTreeSet<&str>,
    out: &mut BTreeMap<String, Option<PyVal>>,
) {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
    let rebound = |out: &mut BTreeMap<String, Option<PyVal>>, n: Node<'_>| {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                out.insert(text(n), None);
            } else if matches!(
                n.kind(),
                "pattern_list" | "tuple_pattern" | "list_pattern" | "list_splat_pattern"
            ) {
                let mut c = n.walk();
                stack.extend(n.named_children(&mut c));
            }
        }
    };
    match node.kind() {
        "assignment" => {
            if let Some(l) = node.child_by_field_name("left") {
                let name = text(l);
                let value = (l.kind() == "identifier"
                    && !params.contains(name.as_str())
                    && !out.contains_key(&name))
                .then(|| node.child_by_field_name("right"))
                .flatten()
                .and_then(|r| fold(r, src, &|n: &str| out.get(n).cloned().flatten()));
                match value {
                    Some(v) => {
                        out.insert(name, Some(v));
                    }
                    None => rebound(out, l),
                }
            }
        }
        "augmented_assignment" | "for_statement" | "for_in_clause" | "named_expression" => {
            if let Some(l) = node
                .child_by_field_name("left")
                .or_else(|| node.child_by_field_name("name"))
            {
                rebound(out, l);
            }
        }
        _ => {}
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    for c in children {
        local_numbers(c, src, params, out);
    }
}

/// The number an expression of numeric literals and named numbers (`name`) makes with
/// `+`, `-`, `*`, `/`, `//`, `%` and `**` (`None` for anything else, an overflow, a division
/// by zero, a power past 64 or a float that is no finite number).
fn fold(node: Node<'_>, src: &str, name: &dyn Fn(&str) -> Option<PyVal>) -> Option<PyVal> {
    let node = strip_parens(node);
    match node.kind() {
        "integer" | "float" | "unary_operator" if value_of(node, src).is_some() => {
            value_of(node, src).filter(|v| matches!(v, PyVal::Int(_) | PyVal::Float(_)))
        }
        "unary_operator" => {
            let op = node.child_by_field_name("operator")?;
            match (
                op.kind(),
                fold(node.child_by_field_name("argument")?, src, name)?,
            ) {
                ("-", PyVal::Int(i)) => i.checked_neg().map(PyVal::Int),
                ("-", PyVal::Float(f)) => Some(PyVal::Float(-f)),
                ("+", v) => Some(v),
                _ => None,
            }
        }
        "identifier" => name(node.utf8_text(src.as_bytes()).ok()?),
        "binary_operator" => {
            let left = fold(node.child_by_field_name("left")?, src, name)?;
            let right = fold(node.child_by_field_name("right")?, src, name)?;
            let op = node.child_by_field_name("operator")?.kind();
            let value = match (left, right) {
                (PyVal::Int(a), PyVal::Int(b)) => fold_ints(op, a, b),
                (a, b) => fold_floats(op, as_float(&a)?, as_float(&b)?).map(PyVal::Float),
            }?;
            (!matches!(value, PyVal::Float(x) if !x.is_finite())).then_some(value)
        }
        _ => None,
    }
}

fn as_float(v: &PyVal) -> Option<f64> {
    match v {
        PyVal::Int(i) => Some(*i as f64),
        PyVal::Float(x) => Some(*x),
        _ => None,
    }
}

/// `a OP b` on integers as Python computes it (`//` and `%` round towards minus infinity).
fn fold_ints(op: &str, a: i128, b: i128) -> Option<PyVal> {
    let floor_div = |a: i128, b: i128| {
        let q = a.checked_div(b)?;
        Some(if a % b != 0 && (a < 0) != (b < 0) {
            q - 1
        } else {
            q
        })
    };
    match op {
        "+" => a.checked_add(b).map(PyVal::Int),
        "-" => a.checked_sub(b).map(PyVal::Int),
        "*" => a.checked_mul(b).map(PyVal::Int),
        "//" => floor_div(a, b).map(PyVal::Int),
        "%" => floor_div(a, b)
            .and_then(|q| a.checked_sub(q.checked_mul(b)?))
            .map(PyVal::Int),
        "/" if b != 0 => Some(PyVal::Float(a as f64 / b as f64)),
        "**" if (0..=64).contains(&b) => a.checked_pow(u32::try_from(b).ok()?).map(PyVal::Int),
        _ => None,
    }
}

fn fold_floats(op: &str, a: f64, b: f64) -> Option<f64> {
    Some(match op {
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        "/" if b != 0.0 => a / b,
        "**" if b.abs() <= 64.0 => a.powf(b),
        _ => return None,
    })
}

/// How many attributes or keys deep an evidence key is (`token.type` 1, `row['a'].b` 2).
fn depth(key: &str) -> usize {
    key.matches('.').count() + key.matches("['").count()
}

/// A record key the evidence keys can hold: short text without quotes, brackets or dots
/// (what `PARAM['KEY']` must parse back from).
fn is_field_name(k: &str) -> bool {
    !k.is_empty() && k.chars().count() <= 40 && !k.contains(['\'', '[', ']', '.', '\\', '\n'])
}

/// `(PARAM, METHOD)` for `PARAM.items()`, `PARAM.values()` or `PARAM.keys()`.
fn dict_view<'s>(n: Node<'_>, src: &'s str, params: &BTreeSet<&str>) -> Option<(&'s str, &'s str)> {
    let f = n
        .child_by_field_name("function")
        .filter(|_| n.kind() == "call")?;
    let args = n.child_by_field_name("arguments")?;
    if f.kind() != "attribute" || args.named_child_count() != 0 {
        return None;
    }
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).ok();
    let (obj, method) = (
        f.child_by_field_name("object")?,
        text(f.child_by_field_name("attribute")?)?,
    );
    let dict = text(obj)?;
    (obj.kind() == "identifier"
        && params.contains(dict)
        && matches!(method, "items" | "values" | "keys"))
    .then_some((dict, method))
}

/// `name` bound to `key` in `out`; made ambiguous (empty) when it is bound to another key.
/// A part of a parameter's text cut by a literal separator: `a, sep, b = p.partition("_")`
/// binds `a` to part 0 and `b` to part 2; `x, y = p.split(".", 1)` and `p.split(".")[1]`
/// name parts 0 and 1.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Part {
    param: String,
    index: usize,
    sep: String,
    /// `partition`/`rpartition` (the separator is part 1) rather than `split`/`rsplit`.
    partition: bool,
}

/// The parameter, separator and kind of cut a call `p.partition(S)` / `p.split(S[, n])`
/// makes, `p` a parameter and `S` a literal.
fn cut_of(call: Node<'_>, src: &str, params: &BTreeSet<&str>) -> Option<(String, String, bool)> {
    if call.kind() != "call" {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    if f.kind() != "attribute" {
        return None;
    }
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
    let obj = strip_parens(f.child_by_field_name("object")?);
    let method = text(f.child_by_field_name("attribute")?);
    let partition = match method.as_str() {
        "partition" | "rpartition" => true,
        "split" | "rsplit" => false,
        _ => return None,
    };
    let param = text(obj);
    if obj.kind() != "identifier" || !params.contains(param.as_str()) {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let Some(PyVal::Str(sep)) = value_of(args.named_child(0)?, src) else {
        return None;
    };
    (!sep.is_empty()).then_some((param, sep, partition))
}

/// Local names bound by unpacking a cut of a parameter's text (`a, sep, b =
/// p.partition("_")`), each to its [`Part`]; a name bound twice is `None`.
fn split_parts(
    node: Node<'_>,
    src: &str,
    params: &BTreeSet<&str>,
    out: &mut BTreeMap<String, Option<Part>>,
) {
    if node.kind() == "assignment" {
        if let (Some(l), Some(r)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right").map(strip_parens),
        ) {
            if let (true, Some((param, sep, partition))) = (
                matches!(l.kind(), "pattern_list" | "tuple_pattern"),
                cut_of(r, src, params),
            ) {
                let mut c = l.walk();
                for (index, n) in l.named_children(&mut c).enumerate() {
                    let name = n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
                    if n.kind() != "identifier" || params.contains(name.as_str()) {
                        continue;
                    }
                    let part = Part {
                        param: param.clone(),
                        index,
                        sep: sep.clone(),
                        partition,
                    };
                    let again = out.contains_key(&name);
                    out.insert(name, (!again).then_some(part));
                }
            }
        }
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    for c in children {
        split_parts(c, src, params, out);
    }
}

/// What `sorted(xs, ...)`, `reversed(xs)`, `list(xs)`, `tuple(xs)`, `set(xs)`,
/// `frozenset(xs)` or `iter(xs)` walks: `xs`, whose items they keep.
fn items_kept<'t>(n: Node<'t>, src: &str) -> Option<Node<'t>> {
    if n.kind() != "call" {
        return None;
    }
    let f = n.child_by_field_name("function")?;
    let name = f.utf8_text(src.as_bytes()).ok()?;
    if !matches!(
        name,
        "sorted" | "reversed" | "list" | "tuple" | "set" | "frozenset" | "iter"
    ) {
        return None;
    }
    let args = n.child_by_field_name("arguments")?;
    let first = args.named_child(0)?;
    (first.kind() != "keyword_argument").then(|| strip_parens(first))
}

/// A lambda given to `sorted`, `min`, `max` (as `key=`), `map` or `filter` (first) over a
/// parameter: its one parameter names the items.
fn lambda_items(
    call: Node<'_>,
    src: &str,
    params: &BTreeSet<&str>,
    out: &mut BTreeMap<String, String>,
) {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
    let Some(f) = call.child_by_field_name("function") else {
        return;
    };
    let Some(arglist) = call.child_by_field_name("arguments") else {
        return;
    };
    let mut c = arglist.walk();
    let args: Vec<Node<'_>> = arglist.named_children(&mut c).collect();
    let (lambda, over) = match text(f).as_str() {
        "sorted" | "min" | "max" => (
            args.iter().find_map(|a| {
                (a.kind() == "keyword_argument"
                    && a.child_by_field_name("name")
                        .is_some_and(|n| text(n) == "key"))
                .then(|| a.child_by_field_name("value"))
                .flatten()
            }),
            args.first().copied(),
        ),
        "map" | "filter" if args.len() == 2 => (args.first().copied(), args.get(1).copied()),
        _ => return,
    };
    let (Some(lambda), Some(over)) = (lambda.map(strip_parens), over.map(strip_parens)) else {
        return;
    };
    if lambda.kind() != "lambda"
        || over.kind() != "identifier"
        || !params.contains(text(over).as_str())
    {
        return;
    }
    let Some(ps) = lambda.child_by_field_name("parameters") else {
        return;
    };
    let mut c = ps.walk();
    let names: Vec<Node<'_>> = ps.named_children(&mut c).collect();
    if let [one] = names.as_slice() {
        let name = text(*one);
        if one.kind() == "identifier" && !params.contains(name.as_str()) {
            bind(out, name, format!("{}[]", text(over)));
        }
    }
}

fn bind(out: &mut BTreeMap<String, String>, name: String, key: String) {
    let ambiguous = out.get(&name).is_some_and(|k| *k != key);
    out.insert(name, if ambiguous { String::new() } else { key });
}

fn find_function(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind() == "function_definition" {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(find_function)
}

struct Walk<'s, 'a> {
    src: &'s str,
    params: &'s BTreeSet<&'s str>,
    /// Loop names bound to a parameter's items ([`loop_names`]; empty: ambiguous).
    loops: BTreeMap<String, String>,
    /// Local names bound once to a number ([`local_numbers`]).
    numbers: BTreeMap<String, PyVal>,
    docstring: Option<usize>,
    /// What imported names are bound to ([`analyze_bound`]).
    bindings: &'s BTreeMap<String, String>,
    /// Parameters whose defaults are type names, with their kinds (`_str_type=(str, bytes)`).
    type_defaults: BTreeMap<String, Vec<Kind>>,
    /// Local names bound to a part of a parameter's text ([`split_parts`]).
    parts: BTreeMap<String, Part>,
    /// Per split of a parameter's text, the constants each part is compared with.
    part_equals: BTreeMap<(String, String, bool), BTreeMap<usize, Vec<String>>>,
    a: &'a mut Analysis,
}

impl Walk<'_, '_> {
    fn text(&self, n: Node<'_>) -> &str {
        n.utf8_text(self.src.as_bytes()).unwrap_or("")
    }

    /// A dotted name with its first part replaced by what an import bound it to
    /// (`isnan` as `math.isnan`, `np.array` as `numpy.array`); as written otherwise.
    fn qualified(&self, name: &str) -> String {
        let (head, rest) = name.split_at(name.find('.').unwrap_or(name.len()));
        match self.bindings.get(head) {
            Some(b) => format!("{b}{rest}"),
            None => name.to_string(),
        }
    }

    /// The parameter a node is, when it is a bare parameter name; or `PARAM[]` when it is
    /// a loop's name for a parameter's items; or `KEY.NAME` when it is an attribute of one
    /// of those, or of an item picked by a literal index (`token.type`, `args[0].value`,
    /// two attributes deep at most) that no builtin or standard type has
    /// ([`Analysis::ty_of`] makes the attributes an object's).
    fn param(&self, n: Node<'_>) -> Option<String> {
        let n = strip_parens(n);
        // `row['id']`, `row.get('id')`: a key of a record (its value).
        if let Some((of, key)) = self.literal_key(n) {
            let base = self.param(of)?;
            return (depth(&base) < 2).then(|| format!("{base}['{key}']"));
        }
        if n.kind() == "attribute" {
            let (obj, attr) = (
                strip_parens(n.child_by_field_name("object")?),
                n.child_by_field_name("attribute")?,
            );
            let name = self.text(attr);
            if known_attribute(name, is_called(n)) {
                return None;
            }
            let base = match obj.kind() {
                "subscript"
                    if obj
                        .child_by_field_name("subscript")
                        .is_some_and(|i| strip_parens(i).kind() == "integer") =>
                {
                    let of = self.param(obj.child_by_field_name("value")?)?;
                    format!("{of}[]")
                }
                _ => self.param(obj)?,
            };
            if depth(&base) >= 2 || base.ends_with("[][]") {
                return None;
            }
            return Some(format!("{base}.{name}"));
        }
        if n.kind() != "identifier" {
            return None;
        }
        let name = self.text(n);
        if self.params.contains(name) {
            return Some(name.to_string());
        }
        self.loops.get(name).filter(|k| !k.is_empty()).cloned()
    }

    /// `P[]` for an item of a parameter picked by a computed index (`matrix[j]`, whose own
    /// subscript `matrix[j][i]` says the items are sequences too), or by an integer. A
    /// text key is [`Walk::param`]'s (a record's key); a slice is no item.
    fn item_of(&self, n: Node<'_>) -> Option<String> {
        let n = strip_parens(n);
        if n.kind() != "subscript" {
            return None;
        }
        let index = strip_parens(n.child_by_field_name("subscript")?);
        if !matches!(index.kind(), "identifier" | "binary_operator" | "integer") {
            return None;
        }
        let p = self.param(n.child_by_field_name("value")?)?;
        (depth(&p) == 0 && !p.contains('[')).then(|| format!("{p}[]"))
    }

    /// The number an expression makes ([`fold`]), through the local names bound to one.
    fn number(&self, n: Node<'_>) -> Option<PyVal> {
        fold(n, self.src, &|name: &str| self.numbers.get(name).cloned())
    }

    /// The kind of node an operand stands for: a folded expression or a name bound to a
    /// number reads as the literal it makes (`x < limit` as `x < 1005.0`).
    fn operand_kind(&self, n: Node<'_>) -> &'static str {
        match (n.kind(), self.number(n)) {
            ("identifier" | "binary_operator", Some(PyVal::Int(_))) => "integer",
            ("identifier" | "binary_operator", Some(PyVal::Float(_))) => "float",
            (k, _) => k,
        }
    }

    /// What `n` indexes and the key, when `n` reads a text key that can name a record's
    /// field: `x['id']` or `x.get('id')` / `x.get('id', default)`.
    fn literal_key<'t>(&self, n: Node<'t>) -> Option<(Node<'t>, String)> {
        let (of, key) = match n.kind() {
            "subscript" => (
                n.child_by_field_name("value")?,
                n.child_by_field_name("subscript")?,
            ),
            "call" => {
                let f = strip_parens(n.child_by_field_name("function")?);
                if f.kind() != "attribute"
                    || self.text(f.child_by_field_name("attribute")?) != "get"
                {
                    return None;
                }
                let args = n.child_by_field_name("arguments")?;
                if args.named_child_count() > 2 {
                    return None;
                }
                (f.child_by_field_name("object")?, args.named_child(0)?)
            }
            _ => return None,
        };
        match value_of(strip_parens(key), self.src)? {
            PyVal::Str(k) if is_field_name(&k) => Some((of, k)),
            _ => None,
        }
    }

    fn ev(&mut self, p: &str) -> &mut Evidence {
        self.a.evidence.entry(p.to_string()).or_default()
    }

    fn walk(&mut self, node: Node<'_>) {
        if Some(node.id()) == self.docstring {
            return;
        }
        match node.kind() {
            // A nested function or class is the body's business too (its constants count),
            // but its own parameters shadow ours; good enough to walk it.
            "integer" | "float" | "string" | "concatenated_string" => {
                if let Some(v) = value_of(node, self.src) {
                    self.a.constants.add(v);
                }
                if node.kind() != "concatenated_string" {
                    return;
                }
            }
            "unary_operator" => {
                if let Some(v) = value_of(node, self.src) {
                    self.a.constants.add(v);
                    return;
                }
            }
            "call" => self.call(node),
            "attribute" => self.attribute(node),
            "subscript" => self.subscript(node),
            "binary_operator" | "augmented_assignment" => {
                if node.kind() == "binary_operator" {
                    if let Some(v) = self.number(node) {
                        self.a.constants.add(v);
                    }
                }
                self.arithmetic(node);
            }
            "comparison_operator" => self.comparison(node),
            "for_statement" | "for_in_clause" => {
                if let Some(p) = node
                    .child_by_field_name("right")
                    .and_then(|r| self.param(r))
                {
                    self.ev(&p).vote(Kind::Iterable, 2);
                }
            }
            "except_clause" => {
                if let Some(p) = node.named_child(0).and_then(|c| self.param(c)) {
                    self.ev(&p).vote(Kind::Exception, 6);
                }
            }
            "raise_statement" => {
                if let Some(p) = node.named_child(0).and_then(|c| self.param(c)) {
                    self.ev(&p).vote(Kind::Exception, 6);
                }
                if let Some(e) = node.named_child(0) {
                    let callee = if e.kind() == "call" {
                        e.child_by_field_name("function").unwrap_or(e)
                    } else {
                        e
                    };
                    let name = self.text(callee);
                    let short = name.rsplit('.').next().unwrap_or(name).to_string();
                    if !short.is_empty() {
                        self.a.raises.insert(short);
                    }
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for c in children {
            self.walk(c);
        }
    }

    /// `re.match(PATTERN, p)` and its kin: `p` is text, and a literal pattern (with the
    /// flags passed beside it) joins the constants' regular expressions. (A compiled
    /// pattern's methods say nothing more of their argument here: `tree.search(key)` has
    /// the same name.)
    fn regex_call(&mut self, fname: &str, args: &[Node<'_>]) {
        let (module, method) = fname.rsplit_once('.').unwrap_or(("", fname));
        let text_at = match method {
            "match" | "fullmatch" | "search" | "findall" | "finditer" | "split" => Some(1),
            "sub" | "subn" => Some(2),
            "compile" => None,
            _ => return,
        };
        if module != "re" {
            return;
        }
        // A pattern of bytes (`b"..."`, `"...".encode()`) matches bytes.
        let bytes_pattern = args.first().is_some_and(|a| {
            let a = strip_parens(*a);
            matches!(value_of(a, self.src), Some(PyVal::Bytes(_)))
                || (a.kind() == "call"
                    && a.child_by_field_name("function").is_some_and(|f| {
                        f.kind() == "attribute"
                            && f.child_by_field_name("attribute")
                                .is_some_and(|m| self.text(m) == "encode")
                            && f.child_by_field_name("object").is_some_and(|o| {
                                matches!(o.kind(), "string" | "concatenated_string")
                            })
                    }))
        });
        if let Some(p) = text_at
            .and_then(|i| args.get(i))
            .and_then(|a| self.param(*a))
        {
            let kind = if bytes_pattern {
                Kind::Bytes
            } else {
                Kind::Str
            };
            self.ev(&p).vote(kind, 3);
        }
        let Some(PyVal::Str(pattern)) = args
            .first()
            .filter(|a| a.kind() != "keyword_argument")
            .and_then(|a| value_of(strip_parens(*a), self.src))
        else {
            return;
        };
        let rest: String = args[1..]
            .iter()
            .map(|a| self.text(*a))
            .collect::<Vec<_>>()
            .join(" ");
        let mut flags = String::new();
        for (letter, names) in [
            ('i', ["re.I", "re.IGNORECASE"]),
            ('x', ["re.X", "re.VERBOSE"]),
            ('s', ["re.S", "re.DOTALL"]),
            ('m', ["re.M", "re.MULTILINE"]),
        ] {
            if names.iter().any(|n| {
                rest.match_indices(n).any(|(at, _)| {
                    !rest[at + n.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            }) {
                flags.push(letter);
            }
        }
        let full = if flags.is_empty() {
            pattern
        } else {
            format!("(?{flags}){pattern}")
        };
        if !self.a.constants.regexes.contains(&full) && self.a.constants.regexes.len() < 8 {
            self.a.constants.regexes.push(full);
        }
    }

    fn call(&mut self, node: Node<'_>) {
        let Some(f) = node.child_by_field_name("function") else {
            return;
        };
        if let Some(key) = self.param(node) {
            self.ev(&key);
        }
        if let Some(p) = self.param(f) {
            self.ev(&p).vote(Kind::Callable, 6);
            // A method of an object (`token.serialize()`): its arguments are looked at too.
            if strip_parens(f).kind() != "attribute" {
                return;
            }
        }
        let fname = self.qualified(self.text(f));
        let args: Vec<Node<'_>> = node
            .child_by_field_name("arguments")
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        let first_param = args.first().and_then(|a| self.param(*a));
        if let Some(p) = &first_param {
            let shape = if fname == "loads" || fname.ends_with("json.loads") {
                Some(Shape::Json)
            } else if fname.ends_with("fromisoformat") || fname.ends_with("strptime") {
                Some(Shape::Date)
            } else if matches!(
                fname.as_str(),
                "int" | "float" | "Decimal" | "Fraction" | "decimal.Decimal" | "fractions.Fraction"
            ) {
                Some(Shape::Number)
            } else {
                Shape::of_decoder(&fname)
            };
            if let Some(shape) = shape {
                let e = self.ev(p);
                e.shape = Some(shape);
                e.vote(Kind::Str, 2);
            }
        }
        // `"{name}: {n:d}".format_map(p)`, `"...".format(**p)`: a mapping with those keys.
        if let Some(fmt_obj) = strip_parens(f)
            .child_by_field_name("object")
            .filter(|_| strip_parens(f).kind() == "attribute")
        {
            let method = strip_parens(f)
                .child_by_field_name("attribute")
                .map(|m| self.text(m).to_string());
            let mapping = match method.as_deref() {
                Some("format_map") => args.first().and_then(|a| self.param(*a)),
                Some("format") => args
                    .iter()
                    .find(|a| a.kind() == "dictionary_splat")
                    .and_then(|a| a.named_child(0))
                    .and_then(|a| self.param(a)),
                _ => None,
            };
            if let (Some(p), Some(PyVal::Str(text))) =
                (mapping, value_of(strip_parens(fmt_obj), self.src))
            {
                let keys = format_keys(&text, true);
                if !keys.is_empty() && depth(&p) < 2 {
                    self.record_keys(&p, &keys);
                }
            }
        }
        // A codec's name: `data.decode(p)`, `text.encode(p)`, `codecs.lookup(p)`,
        // `str(data, p)`, `codecs.decode(data, p)`, and any `encoding=p`.
        let codec_at = match fname.rsplit_once('.').map_or(fname.as_str(), |(_, m)| m) {
            _ if fname == "codecs.lookup" => Some(0),
            "decode" | "encode" if fname.starts_with("codecs.") => Some(1),
            "decode" | "encode" if strip_parens(f).kind() == "attribute" => Some(0),
            "str" | "bytes" if fname == "str" || fname == "bytes" => Some(1),
            _ => None,
        };
        let mut codec_params: Vec<String> = codec_at
            .and_then(|i| args.get(i))
            .filter(|a| a.kind() != "keyword_argument")
            .and_then(|a| self.param(*a))
            .into_iter()
            .collect();
        for a in &args {
            if a.kind() == "keyword_argument"
                && a.child_by_field_name("name")
                    .is_some_and(|n| self.text(n) == "encoding")
            {
                codec_params.extend(a.child_by_field_name("value").and_then(|v| self.param(v)));
            }
        }
        for p in codec_params {
            let e = self.ev(&p);
            e.shape = Some(Shape::Encoding);
            e.vote(Kind::Str, 3);
        }
        // `map(p, xs)`, `filter(p, xs)`, `reduce(p, xs)`, `sorted(xs, key=p)`: `p` is
        // called by the callee.
        let short = fname.rsplit('.').next().unwrap_or(&fname);
        if matches!(
            short,
            "map" | "filter" | "reduce" | "starmap" | "filterfalse" | "takewhile" | "dropwhile"
        ) {
            if let Some(p) = &first_param {
                self.ev(p).vote(Kind::Callable, 6);
            }
        }
        if let Some(arglist) = node.child_by_field_name("arguments") {
            let mut c = arglist.walk();
            let kws: Vec<Node<'_>> = arglist
                .named_children(&mut c)
                .filter(|n| n.kind() == "keyword_argument")
                .collect();
            for kw in kws {
                let is_key = kw
                    .child_by_field_name("name")
                    .is_some_and(|n| matches!(self.text(n), "key" | "default_factory"));
                if let (true, Some(p)) = (
                    is_key,
                    kw.child_by_field_name("value").and_then(|v| self.param(v)),
                ) {
                    self.ev(&p).vote(Kind::Callable, 6);
                }
            }
        }
        self.regex_call(&fname, &args);
        if BYTES_CALLS.contains(&fname.as_str()) {
            if let Some(p) = &first_param {
                self.ev(p).vote(Kind::Bytes, 4);
            }
        }
        // `struct.unpack('>6B', p)`: `p` is bytes of exactly the format's size, which joins
        // the constants (the strategies draw bytes of the lengths found there).
        if matches!(short, "unpack" | "unpack_from") {
            if let (Some(fmt), Some(p)) = (args.first(), args.get(1).and_then(|a| self.param(*a))) {
                if let Some(PyVal::Str(f)) = value_of(strip_parens(*fmt), self.src) {
                    self.ev(&p).vote(Kind::Bytes, 6);
                    if let Some(n) = struct_size(&f) {
                        self.a.constants.add(PyVal::Int(n as i128));
                    }
                } else if fname.starts_with("struct.") {
                    // A format made at run time (`">%dl" % n`): bytes still, of no known size.
                    self.ev(&p).vote(Kind::Bytes, 6);
                }
            }
        }
        match fname.as_str() {
            "len" => {
                if let Some(p) = first_param {
                    let e = self.ev(&p);
                    e.vote(Kind::List, 1);
                    e.vote(Kind::Str, 1);
                }
            }
            "range" => {
                for a in &args {
                    if let Some(p) = self.param(*a) {
                        self.ev(&p).vote(Kind::Int, 3);
                    }
                }
            }
            "int" | "float" => {
                if let Some(p) = first_param {
                    let e = self.ev(&p);
                    e.vote(Kind::Str, 1);
                    e.vote(Kind::Int, 1);
                    e.vote(Kind::Float, 1);
                }
            }
            "abs" | "round" | "divmod" | "pow" | "chr" | "hex" | "oct" | "bin" => {
                if let Some(p) = first_param {
                    self.ev(&p).vote(Kind::Int, 2);
                }
            }
            "ord" => {
                if let Some(p) = first_param {
                    self.ev(&p).vote(Kind::Str, 3);
                }
            }
            "isinstance" => {
                if let (Some(p), Some(types)) = (first_param, args.get(1)) {
                    let mut kinds = Vec::new();
                    let t = strip_parens(*types);
                    if t.kind() == "tuple" {
                        let mut c = t.walk();
                        for n in t.named_children(&mut c) {
                            kinds.extend(kind_of_type_name(self.text(n)));
                        }
                    } else if let Some(ks) = self.type_defaults.get(self.text(t)) {
                        // `isinstance(obj, _str_type)` with `_str_type=(str, bytes)`.
                        kinds.extend(ks.iter().copied());
                    } else {
                        kinds.extend(kind_of_type_name(self.text(t)));
                    }
                    let e = self.ev(&p);
                    for k in kinds {
                        e.isinstance.insert(k);
                        e.vote(k, 1);
                    }
                }
            }
            name if ITERATING_CALLS.contains(&name)
                || name.rsplit('.').next() == Some("join")
                || name.starts_with("itertools.") =>
            {
                for a in &args {
                    if let Some(p) = self.param(*a) {
                        self.ev(&p).vote(Kind::Iterable, 2);
                    }
                }
            }
            // `unicodedata.name(ch)`, `.category(ch)`: a character (its shape comes from
            // `Shape::of_decoder`); `unicodedata.normalize(form, text)`: text.
            name if name.starts_with("unicodedata.") => {
                let at = usize::from(name.ends_with("normalize"));
                for a in args.iter().skip(at).take(1) {
                    if let Some(p) = self.param(*a) {
                        self.ev(&p).vote(Kind::Str, 2);
                    }
                }
            }
            name if name.starts_with("math.") => {
                for a in &args {
                    if let Some(p) = self.param(*a) {
                        let e = self.ev(&p);
                        e.vote(Kind::Float, 2);
                        e.vote(Kind::Int, 2);
                    }
                }
            }
            _ => {}
        }
    }

    fn attribute(&mut self, node: Node<'_>) {
        let (Some(obj), Some(attr)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("attribute"),
        ) else {
            return;
        };
        // An attribute of an object: known to be read, even when nothing says of what type;
        // and says nothing else of the object (`token.is_integer` is no float's method).
        if let Some(key) = self.param(node) {
            self.ev(&key);
            return;
        }
        let Some(p) = self.param(obj) else {
            return;
        };
        let attr = self.text(attr).to_string();
        let called = is_called(node);
        let a = attr.as_str();
        let std = STD_ATTRS
            .iter()
            .find(|(n, _, method)| *n == a && (!method || called))
            .map(|(_, k, _)| *k);
        // `s.replace(b"\n", b"")`: a method text and bytes share, given bytes, is bytes'.
        let bytes_args = called
            && node
                .parent()
                .and_then(|c| c.child_by_field_name("arguments"))
                .is_some_and(|args| {
                    let mut c = args.walk();
                    let found = args
                        .named_children(&mut c)
                        .any(|x| matches!(value_of(x, self.src), Some(PyVal::Bytes(_))));
                    found
                });
        let e = self.ev(&p);
        if let Some(k) = std {
            e.vote(k, 3);
        } else if STR_METHODS.contains(&a) && bytes_args {
            e.vote(Kind::Bytes, 3);
        } else if STR_METHODS.contains(&a) {
            e.vote(Kind::Str, 3);
        } else if a == "decode" {
            e.vote(Kind::Bytes, 3);
        } else if LIST_METHODS.contains(&a) {
            e.vote(Kind::List, 3);
        } else if DICT_METHODS.contains(&a) {
            e.vote(Kind::Dict, 3);
        } else if SET_METHODS.contains(&a) {
            e.vote(Kind::Set, 3);
        } else if PATTERN_ATTRS.contains(&a) {
            e.vote(Kind::Std(StdType::Pattern), 3);
        } else if a == "bit_length" || a == "to_bytes" {
            e.vote(Kind::Int, 3);
        } else if a == "is_integer" {
            e.vote(Kind::Float, 3);
        } else if a == "index" || a == "count" {
            e.vote(Kind::List, 1);
            e.vote(Kind::Str, 1);
        }
    }

    fn subscript(&mut self, node: Node<'_>) {
        // A record's key: known to be read, even when nothing says of what type.
        if let Some(key) = self.param(node) {
            self.ev(&key);
        }
        let Some(p) = node
            .child_by_field_name("value")
            .and_then(|v| self.param(v).or_else(|| self.item_of(v)))
        else {
            return;
        };
        let index = node.child_by_field_name("subscript");
        let kind = index.map(|i| strip_parens(i).kind().to_string());
        let e = self.ev(&p);
        match kind.as_deref() {
            Some("string" | "concatenated_string") => e.vote(Kind::Dict, 3),
            Some("slice") => {
                e.vote(Kind::Str, 1);
                e.vote(Kind::List, 1);
            }
            _ => {
                e.vote(Kind::List, 2);
                e.vote(Kind::Str, 1);
            }
        }
    }

    fn arithmetic(&mut self, node: Node<'_>) {
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return;
        };
        let op = node
            .child_by_field_name("operator")
            .map(|o| self.text(o).trim_end_matches('=').to_string())
            .unwrap_or_default();
        for (side, other) in [(left, right), (right, left)] {
            let Some(p) = self.param(side) else {
                continue;
            };
            let other = strip_parens(other);
            let other_kind = self.operand_kind(other);
            // `"%d items" % n`: the conversions say what `n` is.
            let on_right = side == right;
            let format_arg =
                (op == "%" && on_right && matches!(other.kind(), "string" | "concatenated_string"))
                    .then(|| format_kind(self.text(other)));
            // `'"%(tablename)s" [label=%(columns)s]' % toks`: a mapping with those keys.
            if format_arg.is_some() {
                let keys = value_of(other, self.src).map_or_else(Vec::new, |v| match v {
                    PyVal::Str(f) => format_keys(&f, false),
                    _ => Vec::new(),
                });
                if !keys.is_empty() && depth(&p) < 2 {
                    self.record_keys(&p, &keys);
                    continue;
                }
            }
            let e = self.a.evidence.entry(p).or_default();
            // `[True] * n`, `"-" * width`: a sequence repeated, so the parameter counts.
            if op == "*"
                && matches!(
                    other.kind(),
                    "string" | "concatenated_string" | "list" | "list_comprehension" | "tuple"
                )
            {
                e.vote(Kind::Int, 3);
                continue;
            }
            match other_kind {
                "integer" => {
                    if op == "%" && side == left {
                        // `x % 2` (numbers) or `fmt % args` (strings): numbers are likelier
                        // with a number on the right.
                        e.vote(Kind::Int, 2);
                    } else if op == "*" {
                        // Floats too, at half an integer's weight as with every integer
                        // literal: a float literal elsewhere then tips `6 * h` to both.
                        e.vote(Kind::Int, 2);
                        e.vote(Kind::Float, 1);
                        e.vote(Kind::Str, 1);
                        e.vote(Kind::List, 1);
                    } else {
                        e.vote(Kind::Int, 2);
                        e.vote(Kind::Float, 1);
                    }
                }
                "float" => e.vote(Kind::Float, 3),
                "string" | "concatenated_string" if format_arg.is_some() => {
                    match format_arg.flatten() {
                        Some(k) => e.vote(k, 3),
                        None => e.vote(Kind::Str, 1),
                    }
                }
                "string" | "concatenated_string" => e.vote(Kind::Str, 3),
                "list" | "list_comprehension" => e.vote(Kind::List, 3),
                "tuple" => e.vote(Kind::Tuple, 2),
                _ => {
                    if matches!(
                        op.as_str(),
                        "-" | "/" | "//" | "**" | "<<" | ">>" | "&" | "^"
                    ) {
                        e.vote(Kind::Int, 1);
                        e.vote(Kind::Float, 1);
                    }
                }
            }
        }
    }

    /// For `p[i] == "c"` (a parameter, a literal index from -4 to 3, a one-character
    /// constant): the parameter and a text with `c` at `i` and one character more beyond.
    fn char_at(&self, side: Node<'_>, other: Node<'_>) -> Option<(String, String)> {
        let side = strip_parens(side);
        if side.kind() != "subscript" {
            return None;
        }
        let v = strip_parens(side.child_by_field_name("value")?);
        let p = self.text(v).to_string();
        if v.kind() != "identifier" || !self.params.contains(p.as_str()) {
            return None;
        }
        let Some(PyVal::Int(i)) = value_of(side.child_by_field_name("subscript")?, self.src) else {
            return None;
        };
        let Some(PyVal::Str(c)) = value_of(strip_parens(other), self.src) else {
            return None;
        };
        if c.chars().count() != 1 || !(-4..=3).contains(&i) {
            return None;
        }
        let text = if i >= 0 {
            format!("{}{c}x", "x".repeat(i as usize))
        } else {
            format!("x{c}{}", "x".repeat((-i - 1) as usize))
        };
        Some((p, text))
    }

    /// The part of a parameter's text a node is: a name bound to one, or `p.split(S)[i]`.
    fn part_at(&self, n: Node<'_>) -> Option<Part> {
        let n = strip_parens(n);
        if n.kind() == "identifier" {
            return self.parts.get(self.text(n)).cloned();
        }
        if n.kind() != "subscript" {
            return None;
        }
        let (param, sep, partition) = cut_of(
            strip_parens(n.child_by_field_name("value")?),
            self.src,
            self.params,
        )?;
        let Some(PyVal::Int(i)) = value_of(n.child_by_field_name("subscript")?, self.src) else {
            return None;
        };
        let index = usize::try_from(i).ok().filter(|&i| i < 8)?;
        Some(Part {
            param,
            index,
            sep,
            partition,
        })
    }

    /// The texts that make the compared parts what they are compared with: each compared
    /// constant at its place, joined by the separator (`manylinux2014` and `x86_64`
    /// compared with the parts of `arch.partition("_")` make `manylinux2014_x86_64`),
    /// a filler word where a part is compared with nothing; at most [`EQUALS`] per split,
    /// as values the parameter is compared with.
    fn compose_parts(&mut self) {
        let splits = std::mem::take(&mut self.part_equals);
        for ((param, sep, partition), by_index) in splits {
            let Some(&last) = by_index.keys().max() else {
                continue;
            };
            let mut texts: Vec<String> = vec![String::new()];
            for index in 0..=last {
                if partition && index == 1 {
                    continue;
                }
                let choices: Vec<String> = by_index
                    .get(&index)
                    .cloned()
                    .unwrap_or_else(|| vec!["x".to_string()]);
                let glue = if texts[0].is_empty() && index == 0 {
                    ""
                } else {
                    sep.as_str()
                };
                texts = texts
                    .iter()
                    .flat_map(|t| choices.iter().map(move |c| format!("{t}{glue}{c}")))
                    .take(EQUALS)
                    .collect();
            }
            let e = self.ev(&param);
            e.vote(Kind::Str, 3);
            for t in texts {
                e.equal_to(PyVal::Str(t));
            }
        }
    }

    /// A parameter read as a mapping by the keys of a format (`fmt % p`,
    /// `fmt.format_map(p)`, `fmt.format(**p)`): each key a record's field, of the kind its
    /// conversion asks for (text when it takes anything).
    fn record_keys(&mut self, p: &str, keys: &[(String, Option<Kind>)]) {
        self.ev(p).vote(Kind::Dict, 3);
        for (k, kind) in keys {
            let e = self.ev(&format!("{p}['{k}']"));
            match kind {
                Some(kind) => e.vote(*kind, 3),
                None => e.vote(Kind::Str, 1),
            }
        }
    }

    fn comparison(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let operands: Vec<Node<'_>> = children.iter().copied().filter(Node::is_named).collect();
        let ops: Vec<String> = children
            .iter()
            .filter(|c| !c.is_named())
            .map(|c| self.text(*c).to_string())
            .collect();
        // `a < b` pairs in order, with the operator between them.
        for (i, pair) in operands.windows(2).enumerate() {
            let op = ops.get(i).map_or("", String::as_str);
            // `tag[0] == "h"`, `s[-1] == "/"`: text with that character there, and another
            // after (before) it, is a value to draw.
            if matches!(op, "==" | "!=") {
                if let Some(t) = self.char_at(pair[0], pair[1]) {
                    let (p, text) = t;
                    self.ev(&p).equal_to(PyVal::Str(text));
                }
            }
            // A part of a parameter's text compared with text constants.
            if matches!(op, "==" | "!=" | "in" | "not") {
                if let Some(part) = self.part_at(pair[0]) {
                    let other = strip_parens(pair[1]);
                    let values: Vec<String> = match value_of(other, self.src) {
                        Some(PyVal::Str(v)) if matches!(op, "==" | "!=") => vec![v],
                        Some(PyVal::Tuple(items) | PyVal::List(items) | PyVal::Set(items))
                            if matches!(op, "in" | "not") =>
                        {
                            items
                                .into_iter()
                                .filter_map(|v| match v {
                                    PyVal::Str(s) => Some(s),
                                    _ => None,
                                })
                                .collect()
                        }
                        _ => Vec::new(),
                    };
                    if !values.is_empty() {
                        let slot = self
                            .part_equals
                            .entry((part.param, part.sep, part.partition))
                            .or_default()
                            .entry(part.index)
                            .or_default();
                        for v in values {
                            if slot.len() < 8 && !slot.contains(&v) {
                                slot.push(v);
                            }
                        }
                    }
                }
            }
            if matches!(op, "==" | "!=") {
                if let (Some(a), Some(b)) = (self.param(pair[0]), self.param(pair[1])) {
                    if a != b && !a.contains(['.', '[']) && !b.contains(['.', '[']) {
                        self.a.equal_params.insert((a.clone(), b.clone()));
                        self.a.equal_params.insert((b, a));
                    }
                }
            }
            for (side, other, left) in [(pair[0], pair[1], true), (pair[1], pair[0], false)] {
                let Some(p) = self.param(side) else {
                    continue;
                };
                let other = strip_parens(other);
                let other_kind = self.operand_kind(other);
                let e = self.a.evidence.entry(p).or_default();
                if other.kind() == "none" {
                    e.none_checked = true;
                    continue;
                }
                if op == "in" || op == "not" {
                    // `x in p`: p is a container; `p in "abc"`: p is a string.
                    if left {
                        if matches!(other.kind(), "string" | "concatenated_string") {
                            // `p in b"\r\n"`: bytes, as a bytes literal is.
                            let bytes = matches!(value_of(other, self.src), Some(PyVal::Bytes(_)));
                            e.vote(if bytes { Kind::Bytes } else { Kind::Str }, 3);
                        }
                        // `p in ("a", "b")`: each item is a value p is compared with.
                        if matches!(other.kind(), "tuple" | "list" | "set") {
                            if let Some(
                                PyVal::Tuple(items) | PyVal::List(items) | PyVal::Set(items),
                            ) = value_of(other, self.src)
                            {
                                for v in items {
                                    if matches!(v, PyVal::Str(_) | PyVal::Int(_) | PyVal::Bytes(_))
                                    {
                                        e.equal_to(v);
                                    }
                                }
                            }
                        }
                    } else {
                        e.vote(Kind::List, 1);
                        e.vote(Kind::Str, 1);
                        e.vote(Kind::Dict, 1);
                    }
                    continue;
                }
                let literal = value_of(other, self.src);
                if op == "==" || op == "!=" {
                    if let Some(v @ (PyVal::Str(_) | PyVal::Int(_) | PyVal::Bytes(_))) = &literal {
                        e.equal_to(v.clone());
                    }
                }
                match other_kind {
                    "integer" => {
                        e.vote(Kind::Int, 2);
                        e.vote(Kind::Float, 1);
                    }
                    "float" => e.vote(Kind::Float, 3),
                    // `code == b"\xc0"`: bytes.
                    "string" | "concatenated_string"
                        if matches!(literal, Some(PyVal::Bytes(_))) =>
                    {
                        e.vote(Kind::Bytes, 3);
                    }
                    "string" | "concatenated_string" => e.vote(Kind::Str, 3),
                    "true" | "false" => e.vote(Kind::Bool, 3),
                    _ => {}
                }
            }
        }
    }
}

/// The size of a `struct` format in standard sizes (`'>6B'` is 6, `'<HI'` is 6); native
/// alignment is not added. `None` for what is not a format.
fn struct_size(fmt: &str) -> Option<usize> {
    let body = fmt.trim_start_matches(['@', '=', '<', '>', '!']);
    let mut total = 0usize;
    let mut count: Option<usize> = None;
    for c in body.chars() {
        if let Some(d) = c.to_digit(10) {
            count = Some(
                count
                    .unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add(d as usize)?,
            );
            continue;
        }
        let size = match c {
            'x' | 'c' | 'b' | 'B' | '?' | 's' | 'p' => 1,
            'h' | 'H' | 'e' => 2,
            'i' | 'I' | 'l' | 'L' | 'f' => 4,
            'q' | 'Q' | 'd' | 'n' | 'N' | 'P' => 8,
            ' ' => continue,
            _ => return None,
        };
        total = total.checked_add(size * count.take().unwrap_or(1))?;
    }
    (count.is_none() && total > 0).then_some(total)
}

/// Whether a node is what a call calls (`x.split` in `x.split()`).
fn is_called(n: Node<'_>) -> bool {
    n.parent()
        .is_some_and(|c| c.kind() == "call" && c.child_by_field_name("function") == Some(n))
}

fn strip_parens(mut n: Node<'_>) -> Node<'_> {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

fn kind_of_type_name(name: &str) -> Option<Kind> {
    let short = name.rsplit('.').next().unwrap_or(name);
    Some(match short {
        "int" | "Integral" => Kind::Int,
        "float" | "Real" | "Number" => Kind::Float,
        "str" => Kind::Str,
        "bytes" => Kind::Bytes,
        "bool" => Kind::Bool,
        "list" | "Sequence" | "MutableSequence" => Kind::List,
        "Iterable" | "Iterator" | "Generator" => Kind::Iterable,
        "tuple" => Kind::Tuple,
        "dict" | "Mapping" | "MutableMapping" => Kind::Dict,
        "set" | "frozenset" | "Set" => Kind::Set,
        "datetime" => Kind::Std(StdType::DateTime),
        "date" => Kind::Std(StdType::Date),
        "time" => Kind::Std(StdType::Time),
        "timedelta" => Kind::Std(StdType::TimeDelta),
        "timezone" | "tzinfo" => Kind::Std(StdType::TimeZone),
        "Decimal" => Kind::Std(StdType::Decimal),
        "Fraction" => Kind::Std(StdType::Fraction),
        "PurePath" | "PurePosixPath" | "Path" => Kind::Std(StdType::PurePosixPath),
        "Pattern" => Kind::Std(StdType::Pattern),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn uses_point_to_types() {
        let src = "def f(a, b, c, d, e):\n    \"\"\"Doc 'not a constant'.\"\"\"\n    if a is None:\n        return 0\n    for x in b:\n        pass\n    if isinstance(e, (int, str)):\n        raise ValueError('bad')\n    return a.split(',') + [c + 1] + d['key']\n";
        let a = analyze(src, &params(&["a", "b", "c", "d", "e"])).unwrap();
        assert_eq!(a.name, "f");
        assert_eq!(
            a.evidence["a"].ty(),
            Some(Ty::Union(vec![Ty::Str, Ty::NoneT]))
        );
        assert_eq!(a.evidence["b"].ty(), Some(Ty::Iterable(Box::new(Ty::Any))));
        assert_eq!(a.evidence["c"].ty(), Some(Ty::Int));
        assert_eq!(
            a.evidence["d"].ty(),
            Some(Ty::Dict(Box::new(Ty::Str), Box::new(Ty::Any)))
        );
        assert_eq!(
            a.evidence["e"].ty(),
            Some(Ty::Union(vec![Ty::Int, Ty::Str]))
        );
        assert!(a.raises.contains("ValueError"));
        assert!(a.constants.strs.contains(&",".to_string()));
        assert!(a.constants.strs.contains(&"key".to_string()));
        assert!(!a.constants.strs.iter().any(|s| s.contains("constant")));
        assert!(a.constants.ints.contains(&1));
        assert!(a.docstring_end.is_some());
    }

    #[test]
    fn imported_names_are_read_as_what_they_are_bound_to() {
        // `from math import isnan`, `from binascii import hexlify`, `import numpy as np`.
        let src = "def f(first, data, blob, s):\n    if isnan(first):\n        return 1\n    \
                   return hexlify(data), np.frombuffer(blob), s.replace(b'\\n', b'')\n";
        let names = params(&["first", "data", "blob", "s"]);
        let bound: BTreeMap<String, String> = [
            ("isnan", "math.isnan"),
            ("hexlify", "binascii.hexlify"),
            ("np", "numpy"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let a = analyze_bound(src, &names, &bound).unwrap();
        assert_eq!(
            a.evidence["first"].ty(),
            Some(Ty::Union(vec![Ty::Int, Ty::Float]))
        );
        assert_eq!(a.evidence["data"].ty(), Some(Ty::Bytes));
        // A method text and bytes share, given bytes: bytes.
        assert_eq!(a.evidence["s"].ty(), Some(Ty::Bytes));
        // Unbound, the names say nothing.
        let a = analyze(src, &names).unwrap();
        assert_eq!(a.evidence["first"].ty(), None);
        assert_eq!(a.evidence["data"].ty(), None);
    }

    #[test]
    fn parts_compared_with_constants_make_whole_texts() {
        let a = analyze(
            "def f(arch, name):\n    arches = [arch]\n    prefix, sep, suffix = arch.partition('_')\n    if prefix == 'manylinux2014':\n        if suffix in {'i686', 'x86_64'}:\n            arches.append(suffix)\n    elif prefix == 'manylinux2010':\n        pass\n    if name.split('.')[1] == 'py':\n        return 1\n    return arches\n",
            &params(&["arch", "name"]),
        )
        .unwrap();
        let strs = |v: &[&str]| {
            v.iter()
                .map(|s| PyVal::Str((*s).into()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            a.evidence["arch"].equals,
            strs(&[
                "manylinux2014_i686",
                "manylinux2014_x86_64",
                "manylinux2010_i686",
                "manylinux2010_x86_64"
            ])
        );
        assert_eq!(a.evidence["name"].equals, strs(&["x.py"]));
        let b = analyze(
            "def hn(tag):\n    if tag[0] == 'h' and len(tag) == 2:\n        n = tag[1]\n        if '0' < n <= '9':\n            return int(n)\n    if tag[-1] == '/':\n        return -1\n    return 0\n",
            &params(&["tag"]),
        )
        .unwrap();
        assert_eq!(b.evidence["tag"].equals, strs(&["hx", "x/"]));
        assert_eq!(a.evidence["arch"].ty(), Some(Ty::Str));
    }

    #[test]
    fn a_type_check_against_a_default_reads_its_types() {
        let a = analyze(
            "def f(obj, _str_type=(str, bytes), _iter_exception=Exception):\n    if isinstance(obj, _str_type):\n        return False\n    try:\n        iter(obj)\n    except _iter_exception:\n        return False\n    return True\n",
            &params(&["obj", "_str_type", "_iter_exception"]),
        )
        .unwrap();
        let e = &a.evidence["obj"];
        assert!(
            e.isinstance.contains(&Kind::Str) && e.isinstance.contains(&Kind::Bytes),
            "{e:?}"
        );
    }

    #[test]
    fn a_format_with_named_keys_makes_a_record() {
        let a = analyze(
            "def f(toks, row, opts):\n    a = '\"%(tablename)s\" | %(columns)s %(n)03d' % toks\n    \
             b = '{name}: {size:d} {{x}}'.format_map(row)\n    return a, b, '{k}'.format(**opts)\n",
            &params(&["toks", "row", "opts"]),
        )
        .unwrap();
        let record = |keys: &[(&str, Ty)]| {
            Some(Ty::Record(
                keys.iter()
                    .map(|(k, t)| (k.to_string(), t.clone()))
                    .collect(),
            ))
        };
        assert_eq!(
            a.ty_of("toks"),
            record(&[("columns", Ty::Str), ("n", Ty::Int), ("tablename", Ty::Str)])
        );
        assert_eq!(
            a.ty_of("row"),
            record(&[("name", Ty::Str), ("size", Ty::Int)])
        );
        assert_eq!(a.ty_of("opts"), record(&[("k", Ty::Str)]));
        assert_eq!(format_keys("%(a)s %% %(b)x", false).len(), 2);
        assert!(format_keys("{0} {} {{lit}}", true).is_empty());
    }

    #[test]
    fn codec_names_are_drawn_where_a_codec_is_asked_for() {
        let a = analyze(
            "def f(string, encodings, enc, other):\n    for encoding in encodings:\n        \
             return string.decode(encoding)\n    open('x', encoding=enc)\n    \
             return str(string, other)\n",
            &params(&["string", "encodings", "enc", "other"]),
        )
        .unwrap();
        let codec = Some(Ty::Text(Shape::Encoding));
        assert_eq!(a.items("encodings").and_then(Evidence::ty), codec);
        assert_eq!(a.evidence["enc"].ty(), codec);
        assert_eq!(a.evidence["other"].ty(), codec);
        assert_eq!(a.evidence["string"].ty(), Some(Ty::Bytes));
    }

    #[test]
    fn unicodedata_takes_characters() {
        let a = analyze(
            "def f(ucs):\n    try:\n        return bool(unicodedata.name(ucs))\n    except ValueError:\n        return False\n",
            &params(&["ucs"]),
        )
        .unwrap();
        assert_eq!(a.evidence["ucs"].ty(), Some(Ty::Text(Shape::Char)));
        let a = analyze(
            "def f(form, text, c):\n    return unicodedata.normalize(form, text), ord(c)\n",
            &params(&["form", "text", "c"]),
        )
        .unwrap();
        assert_eq!(a.evidence["text"].ty(), Some(Ty::Str));
        assert_eq!(a.evidence["c"].ty(), Some(Ty::Text(Shape::Char)));
    }

    #[test]
    fn regex_methods_point_to_a_compiled_pattern() {
        let a = analyze(
            "def f(rx, rules, s):\n    for r in rules:\n        if r.fullmatch(s):\n            return 1\n    return rx.sub('', s.strip())\n",
            &params(&["rx", "rules", "s"]),
        )
        .unwrap();
        assert_eq!(a.evidence["rx"].ty(), Some(Ty::Std(StdType::Pattern)));
        assert_eq!(
            a.items("rules").and_then(Evidence::ty),
            Some(Ty::Std(StdType::Pattern))
        );
        assert_eq!(a.evidence["s"].ty(), Some(Ty::Str));
    }

    #[test]
    fn decoders_give_their_argument_a_shape() {
        let a = analyze(
            "def f(u, b, h, ip, n):\n    x = urllib.parse.unquote(u)\n    y = base64.urlsafe_b64decode(b)\n    z = bytes.fromhex(h)\n    w = ipaddress.ip_network(ip)\n    return x, y, z, w, n.unquote_me(n)\n",
            &params(&["u", "b", "h", "ip", "n"]),
        )
        .unwrap();
        assert_eq!(a.evidence["u"].ty(), Some(Ty::Text(Shape::Percent)));
        assert_eq!(a.evidence["b"].ty(), Some(Ty::Text(Shape::Base64)));
        assert_eq!(a.evidence["h"].ty(), Some(Ty::Text(Shape::Hex)));
        assert_eq!(a.evidence["ip"].ty(), Some(Ty::Text(Shape::Ip)));
        assert_eq!(a.evidence.get("n").and_then(|e| e.shape), None);
    }

    #[test]
    fn dicts_read_by_literal_keys_are_records() {
        let a = analyze(
            "def f(match, table, row):\n    first = match['token'][:1]\n    if not match['ascending']:\n        first = first.upper()\n    for letter, subs in table.items():\n        for sub in subs:\n            first += sub\n    return first * len(match['token']), row.get('id', 0) + 1, row['n'] < 5\n",
            &params(&["match", "table", "row"]),
        )
        .unwrap();
        let Some(Ty::Record(keys)) = a.ty_of("match") else {
            panic!("match: {:?}", a.ty_of("match"));
        };
        let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["ascending", "token"]);
        let Some(Ty::Record(keys)) = a.ty_of("row") else {
            panic!("row: {:?}", a.ty_of("row"));
        };
        assert_eq!(keys, [("id".into(), Ty::Int), ("n".into(), Ty::Int)]);
        // A dict walked by `.items()`: its values are what the loop's second name is.
        assert!(
            matches!(a.ty_of("table{}"), Some(Ty::Iterable(_))),
            "{:?}",
            a.ty_of("table{}")
        );
        assert!(
            matches!(a.ty_of("table"), Some(Ty::Dict(..))),
            "{:?}",
            a.ty_of("table")
        );
    }

    #[test]
    fn a_float_literal_beside_integer_ones_makes_a_number_of_either_kind() {
        let a = analyze(
            "def f(v1, v2, h, n):\n    while h < 0: h += 1\n    while h > 1: h -= 1\n    if 6 * h < 1: return v1 + (v2 - v1) * 6 * h\n    if 2 * h < 1: return v2\n    if 3 * h < 2: return v1 + (v2 - v1) * ((2.0 / 3) - h) * 6\n    return n * 2 + (n < 3)\n",
            &params(&["v1", "v2", "h", "n"]),
        )
        .unwrap();
        assert_eq!(
            a.evidence["h"].ty(),
            Some(Ty::Union(vec![Ty::Int, Ty::Float]))
        );
        assert_eq!(a.evidence["n"].ty(), Some(Ty::Int));
    }

    #[test]
    fn a_bytes_pattern_matches_bytes() {
        let a = analyze(
            "def f(err, out):\n    x = re.sub(r\"\\[\\d+ refs\\]\".encode(), \"\".encode(), err)\n    return x, re.match(b'a+', out)\n",
            &params(&["err", "out"]),
        )
        .unwrap();
        assert_eq!(a.evidence["err"].ty(), Some(Ty::Bytes));
        assert_eq!(a.evidence["out"].ty(), Some(Ty::Bytes));
    }

    #[test]
    fn thresholds_made_of_constants_are_folded() {
        let a = analyze(
            "def f(seconds, guesses, end):\n    minute = 60\n    hour = minute * 60\n    month = hour * 24 * 31\n    delta = 5\n    while end < 3:\n        end += 1\n    step = 2\n    step = step * 3\n    if seconds < month:\n        return 1\n    if guesses < 1e3 + delta:\n        return 2\n    return end < hour // 7\n",
            &params(&["seconds", "guesses", "end"]),
        )
        .unwrap();
        assert_eq!(fold_ints("//", 7, -2), Some(PyVal::Int(-4)));
        assert_eq!(fold_ints("%", -7, 2), Some(PyVal::Int(1)));
        assert_eq!(fold_ints("//", 7, 0), None);
        for want in [3600, 2_678_400, 514] {
            assert!(
                a.constants.ints.contains(&want),
                "{want} in {:?}",
                a.constants.ints
            );
        }
        assert!(a.constants.floats.contains(&1005.0));
        // A name bound twice is no constant: `step * 3` folds to nothing.
        assert!(!a.constants.ints.contains(&6) && !a.constants.ints.contains(&18));
        // A comparison with a folded threshold votes as one with the literal.
        assert_eq!(a.evidence["seconds"].ty(), Some(Ty::Int));
        assert_eq!(a.evidence["guesses"].ty(), Some(Ty::Float));
    }

    #[test]
    fn regex_patterns_join_the_constants() {
        let a = analyze(
            "def f(s, t, n):\n    m = re.match(r'(\\d+)\\.(\\d+)', s, re.I | re.VERBOSE)\n    rx = re.compile('[a-z]+', flags=re.M)\n    u = re.sub('x', 'y', t)\n    v = re.search(n, 'abc', re.IGNORECASE_NOT)\n    return m, rx, u, v\n",
            &params(&["s", "t", "n"]),
        )
        .unwrap();
        assert_eq!(
            a.constants.regexes,
            vec![
                r"(?ix)(\d+)\.(\d+)".to_string(),
                "(?m)[a-z]+".into(),
                "x".into()
            ]
        );
        assert_eq!(a.evidence["s"].ty(), Some(Ty::Str));
        assert_eq!(a.evidence["t"].ty(), Some(Ty::Str));
        // A pattern that is a parameter is no literal: nothing joins, and it is no text
        // argument.
        assert_ne!(a.evidence.get("n").and_then(Evidence::ty), Some(Ty::Str));
    }

    #[test]
    fn constants_compared_for_equality_are_kept() {
        let a = analyze(
            "def f(mode, n, other):\n    if mode == 'eol':\n        return 1\n    elif mode != \"ws\":\n        pass\n    if n in (3, 'x', 4.5) or mode in ['a', 'eol']:\n        return 2\n    assert n == other\n    return n < 7\n",
            &params(&["mode", "n", "other"]),
        )
        .unwrap();
        let strs = |v: &[&str]| {
            v.iter()
                .map(|s| PyVal::Str((*s).into()))
                .collect::<Vec<_>>()
        };
        assert_eq!(a.evidence["mode"].equals, strs(&["eol", "ws", "a"]));
        // A float is no value to draw by equality; `<` is no equality.
        assert_eq!(
            a.evidence["n"].equals,
            vec![PyVal::Int(3), PyVal::Str("x".into())]
        );
        assert!(a
            .equal_params
            .contains(&("other".to_string(), "n".to_string())));
        assert!(a
            .equal_params
            .contains(&("n".to_string(), "other".to_string())));
        // A bytes constant is a value to draw, and makes the parameter bytes.
        let a = analyze(
            "def f(code, fp):\n    if code == b'\\xc2':\n        return False\n    elif code in (b'\\xc3', b'\\xc4'):\n        return True\n    raise Exception(ord(code))\n",
            &params(&["code", "fp"]),
        )
        .unwrap();
        let e = &a.evidence["code"];
        assert_eq!(
            e.equals,
            vec![
                PyVal::Bytes(vec![0xc2]),
                PyVal::Bytes(vec![0xc3]),
                PyVal::Bytes(vec![0xc4])
            ]
        );
        // `ord(code)` takes a character too, so text stays in.
        assert!(
            matches!(e.ty(), Some(Ty::Union(ms)) if ms.contains(&Ty::Bytes)),
            "{e:?}"
        );
    }

    #[test]
    fn a_type_check_lets_weaker_uses_in() {
        // `escapes.keys()` beside four comparisons with text: without the `isinstance`
        // check, text alone; with it, a mapping too.
        let body = "    if escapes == 'a' or escapes == 'b' or escapes == 'c' or escapes == 'd':\n        pass\n    return list(escapes.keys())\n";
        let without = analyze(&format!("def f(escapes):\n{body}"), &params(&["escapes"])).unwrap();
        assert_eq!(without.ty_of("escapes"), Some(Ty::Str));
        let with = analyze(
            &format!("def f(escapes):\n    if isinstance(escapes, str):\n        pass\n{body}"),
            &params(&["escapes"]),
        )
        .unwrap();
        let t = with.ty_of("escapes").unwrap();
        assert!(
            matches!(&t, Ty::Union(ms) if ms.contains(&Ty::Str) && ms.iter().any(|m| matches!(m, Ty::Dict(..)))),
            "{t:?}"
        );
    }

    #[test]
    fn rows_picked_by_index_are_items() {
        let a = analyze(
            "def f(matrix, grid, size):\n    for i in range(size):\n        row = matrix[i]\n        row.append(1)\n        grid[i][0] += 1\n",
            &params(&["matrix", "grid", "size"]),
        )
        .unwrap();
        // `row = matrix[i]` names an item; `grid[i][0]` subscripts one.
        assert_eq!(a.ty_of("matrix[]"), Some(Ty::List(Box::new(Ty::Any))));
        assert!(
            a.evidence["grid[]"].votes.contains_key(&Kind::List),
            "{:?}",
            a.evidence
        );
    }

    #[test]
    fn isinstance_with_standard_types() {
        let a = analyze(
            "def f(x):\n    if isinstance(x, (datetime.datetime, date)):\n        return x.year\n    if isinstance(x, Decimal):\n        return 1\n    return 0\n",
            &params(&["x"]),
        )
        .unwrap();
        // `x.year` points to a date (and makes `x` no attribute bag).
        assert_eq!(
            a.ty_of("x"),
            Some(Ty::Union(vec![
                Ty::Std(StdType::Date),
                Ty::Std(StdType::DateTime),
                Ty::Std(StdType::Decimal)
            ]))
        );
    }

    #[test]
    fn attributes_read_make_an_object() {
        let a = analyze(
            "def f(token, args, path, n):
    t = token
    if t.type == 'number' and t.is_integer:
        return t.value / 100, t.serialize()
    if len(args) == 1 and args[0].type == 'ident':
        return [a.unit.lower() for a in args[1:]]
    return path.suffix, n.bit_length(), t.lower()
",
            &params(&["token", "args", "path", "n"]),
        )
        .unwrap();
        let obj = |attrs: &[(&str, Ty)]| {
            Ty::Object(
                attrs
                    .iter()
                    .map(|(k, t)| (k.to_string(), t.clone()))
                    .collect(),
            )
        };
        // An alias's attributes are the parameter's; a called one is a method (a callable);
        // `lower()` is a method of text.
        assert_eq!(
            a.ty_of("token"),
            Some(Ty::Union(vec![
                Ty::Str,
                obj(&[
                    ("is_integer", Ty::Any),
                    ("serialize", Ty::Callable),
                    ("type", Ty::Str),
                    ("value", Ty::Int),
                ])
            ]))
        );
        // Items picked by index or walked from a slice: their attributes, nested once.
        assert_eq!(
            a.ty_of("args[]"),
            Some(obj(&[("type", Ty::Str), ("unit", Ty::Str),]))
        );
        // Attributes of standard types and numbers say what the parameter is.
        assert_eq!(a.ty_of("path"), Some(Ty::Std(StdType::PurePosixPath)));
        assert_eq!(a.ty_of("n"), Some(Ty::Int));
    }

    #[test]
    fn struct_formats_give_bytes_of_their_size() {
        let a = analyze(
            "def f(packed):\n    return _struct.unpack('>6B', packed)\n",
            &params(&["packed"]),
        )
        .unwrap();
        assert_eq!(a.evidence["packed"].ty(), Some(Ty::Bytes));
        assert!(a.constants.ints.contains(&6));
        assert_eq!(struct_size("<HI"), Some(6));
        assert_eq!(struct_size(">4I"), Some(16));
        assert_eq!(struct_size("hello"), None);
        // A format made at run time: bytes still.
        let a = analyze(
            "def f(s):\n    n = len(s) // 4\n    return struct.unpack('>%dl' % n, s)\n",
            &params(&["s"]),
        )
        .unwrap();
        assert_eq!(a.evidence["s"].ty(), Some(Ty::Bytes));
    }

    #[test]
    fn loops_tell_the_items_of_what_they_walk() {
        let a = analyze(
            "def f(names, abbr, funcs, data):\n    hits = [n for n in names if n.startswith(abbr)]\n    for g in funcs:\n        data = g(data)\n    return hits, data\n",
            &params(&["names", "abbr", "funcs", "data"]),
        )
        .unwrap();
        assert_eq!(a.items("names").and_then(Evidence::ty), Some(Ty::Str));
        assert_eq!(a.items("funcs").and_then(Evidence::ty), Some(Ty::Callable));
        assert_eq!(
            a.evidence["names"].ty(),
            Some(Ty::Iterable(Box::new(Ty::Any)))
        );
        assert!(a.items("abbr").is_none());
        // One name over two parameters says nothing of either.
        let b = analyze(
            "def f(xs, ys):\n    for x in xs:\n        x.upper()\n    for x in ys:\n        x + 1\n",
            &params(&["xs", "ys"]),
        )
        .unwrap();
        assert!(b.items("xs").is_none() && b.items("ys").is_none());
        // `enumerate` and `zip` name the items of what they walk.
        let c = analyze(
            "def f(parts, kind, keys, vals):\n    for i, node in enumerate(parts):\n        if node.kind == kind:\n            return i\n    for k, v in zip(keys, vals):\n        k.upper()\n        v + 1\n    return -1\n",
            &params(&["parts", "kind", "keys", "vals"]),
        )
        .unwrap();
        assert_eq!(
            c.ty_of("parts[]"),
            Some(Ty::Object(vec![("kind".to_string(), Ty::Any)]))
        );
        assert_eq!(c.items("keys").and_then(Evidence::ty), Some(Ty::Str));
        assert_eq!(c.items("vals").and_then(Evidence::ty), Some(Ty::Int));
        // `sorted(...)` keeps the items, and a key's lambda names one.
        let d = analyze(
            "def f(packages, base_url):\n    out = []\n    for package in sorted(packages, key=lambda p: p.archive_file):\n        out.append(package.simple_index_entry(base_url))\n    return out\n",
            &params(&["packages", "base_url"]),
        )
        .unwrap();
        assert_eq!(
            d.ty_of("packages[]"),
            Some(Ty::Object(vec![
                ("archive_file".to_string(), Ty::Any),
                ("simple_index_entry".to_string(), Ty::Callable),
            ]))
        );
    }

    #[test]
    fn format_arguments_and_called_parameters() {
        let b = analyze(
            "def f(n, name, fn, items):\n    m = \"%05d rows\" % n\n    t = \"%s!\" % name\n    return sorted(map(fn, items), key=fn), m, t\n",
            &params(&["n", "name", "fn", "items"]),
        )
        .unwrap();
        assert_eq!(b.evidence["n"].ty(), Some(Ty::Int));
        assert_eq!(b.evidence["fn"].ty(), Some(Ty::Callable));
        assert_ne!(b.evidence["name"].ty(), Some(Ty::Int));
        assert_eq!(format_kind("%.2f%%"), Some(Kind::Float));
        let r = analyze(
            "def f(count, width):\n    return [True] * count, '-' * width + '|'\n",
            &params(&["count", "width"]),
        )
        .unwrap();
        assert_eq!(r.evidence["count"].ty(), Some(Ty::Int));
        assert_eq!(r.evidence["width"].ty(), Some(Ty::Int));
        let z = analyze(
            "def f(blob, raw):\n    return zlib.decompress(blob, 31), io.BytesIO(raw)\n",
            &params(&["blob", "raw"]),
        )
        .unwrap();
        assert_eq!(z.evidence["blob"].ty(), Some(Ty::Bytes));
        assert_eq!(z.evidence["raw"].ty(), Some(Ty::Bytes));
        assert_eq!(format_kind("%d of %d"), None);
    }
}
