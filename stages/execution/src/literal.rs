//! Python literal expressions read into [`Value`]s, without running Python.
//!
//! An assertion task asks a model for the value an expression has (`assert f(3) == ___`);
//! its answer is judged by reading the predicted text as a Python *literal* and comparing it
//! with the value the worker reported ([`Value::same`], [`Value::matches`]). The text is
//! untrusted, so it is never evaluated on the host: [`parse_literal`] parses it with
//! tree-sitter's Python grammar and builds the value itself from the syntax tree, accepting
//! only the forms below and refusing everything else with a [`LiteralError`] that says why.
//!
//! The text is one expression (surrounding whitespace and comments are fine; `\r\n` reads as
//! `\n`, as Python reads source). Accepted:
//! - `None`, `True`, `False`;
//! - ints in every Python form (decimal, `0x`, `0o`, `0b`, underscores between digits),
//!   of any size up to [`MAX_INT_DIGITS`] decimal digits (Python's own default limit for
//!   turning an int into digits, which the worker does to report one); floats (`1.5`,
//!   `1e-3`, `.5`, `5.`, `1_000.5`), correctly rounded (`1e400` is `inf`, as in Python);
//!   `+` and `-` in front of a number, repeated or not (`- -1`);
//! - `float('nan')`, `float('inf')`, `float('-infinity')` and the other spellings Python's
//!   `float` reads as NaN or an infinity (any case, surrounding whitespace), with or without
//!   a sign in front (`-float('inf')`);
//! - strings and bytes with any of the prefixes `r`, `u`, `b`, `br`, `rb` (any case), in
//!   single, double or triple quotes, with every escape Python knows except `\N{NAME}`
//!   (see below), an unknown escape (`\q`) kept as it is written, as Python does;
//!   adjacent literals concatenated (`'a' 'b'`; mixing `str` and `bytes` is a syntax error
//!   as in Python); `bytes.fromhex('00ff')` (the form `schemas::tagged` writes bytes in);
//! - tuples (`()`, `(1,)`, `1, 2` at the top), lists, sets, dicts, parentheses; the calls
//!   `set()`, `frozenset()`, `tuple()`, `list()`, `dict()` without arguments, and
//!   `set(..)`, `frozenset(..)` of one list, tuple or set display.
//!
//! Refused as not literal ([`LiteralError::NotLiteral`], naming the offending text): names,
//! attributes, subscripts, every other call, operators (`1 + 2`, `~1`, `not x`, a sign on
//! anything but a number), complex numbers (`2j`, `1+2j`), comprehensions, lambdas,
//! f-strings, starred items, conditional and assignment expressions, `...`, and elements of
//! a set or keys of a dict that Python could not hash (a list, a set, a dict).
//!
//! Deliberate limits:
//! - Sets, frozensets and dict keys drop duplicates by *exact* equality of
//!   [`Value::canonical`] texts (a later duplicate key replaces the value and keeps the
//!   first key's place, as in Python), except that a value holding a NaN is never a
//!   duplicate (each `float('nan')` is a new object in Python). Python's `{1, 1.0, True}`
//!   has one element; here it has three.
//! - A Rust `String` cannot hold a lone surrogate (`'\ud800'` in Python): such an escape is
//!   refused as not literal (`what`: "lone surrogate"). A pair of escapes such as
//!   `'\ud83d\ude00'` is two code points in Python, not one emoji, so it is refused too
//!   (`what`: "surrogate pair").
//! - `\N{NAME}` escapes are refused as not literal: there is no table of Unicode names here.
//! - At most [`MAX_DEPTH`] nested brackets, parentheses, signs and calls
//!   ([`LiteralError::TooDeep`]); at most [`MAX_INPUT_BYTES`] of text
//!   ([`LiteralError::TooLarge`]).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use tree_sitter::{Node, Parser};

use crate::value::Value;

/// The longest text [`parse_literal`] reads: 1 MiB.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// The most brackets, parentheses, signs and calls nested in one another.
pub const MAX_DEPTH: usize = 100;

/// The most decimal digits of an int (Python's default `sys.get_int_max_str_digits()`).
pub const MAX_INT_DIGITS: usize = 4300;

/// Bits of a `0x`/`0o`/`0b` int beyond which it has more than [`MAX_INT_DIGITS`] digits for
/// sure (2^14300 has 4305), checked before converting it to decimal.
const MAX_INT_BITS: usize = 14_300;

/// The most characters of offending text an error quotes.
const QUOTED_CHARS: usize = 60;

/// Why an answer is not a Python literal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    /// The text does not parse as one Python expression.
    #[error("not one Python expression: {why}")]
    Syntax { why: String },
    /// A valid expression, but not a literal (a name, a call, an operator, ...).
    #[error("not a literal: {what}")]
    NotLiteral { what: String },
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// Longer than [`MAX_INPUT_BYTES`].
    #[error("longer than {MAX_INPUT_BYTES} bytes")]
    TooLarge,
    /// An int of more than [`MAX_INT_DIGITS`] decimal digits.
    #[error("an int of more than {MAX_INT_DIGITS} decimal digits")]
    IntTooLarge,
    /// tree-sitter failed: a bug (of this crate or its grammar), not bad input.
    #[error("bug: the Python parser failed: {why}")]
    Internal { why: String },
}

fn syntax(why: impl Into<String>) -> LiteralError {
    LiteralError::Syntax { why: why.into() }
}

fn not_literal(what: impl Into<String>) -> LiteralError {
    LiteralError::NotLiteral { what: what.into() }
}

/// Reads `text` as one Python literal expression (see the module doc for what is accepted).
pub fn parse_literal(text: &str) -> Result<Value, LiteralError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(LiteralError::TooLarge);
    }
    // Python reads `\r\n` and a lone `\r` in source as `\n` (inside strings too).
    let normalized;
    let text = if text.contains('\r') {
        normalized = text.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        text
    };
    // Whitespace as Python's tokenizer knows it; Python refuses a null character anywhere.
    let src = text.trim_matches([' ', '\t', '\n', '\x0c']);
    if src.contains('\0') {
        return Err(syntax("a null character"));
    }
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| LiteralError::Internal { why: e.to_string() })?;
    let tree = parser
        .parse(src, None)
        .ok_or_else(|| LiteralError::Internal {
            why: "tree-sitter returned no tree".into(),
        })?;
    let root = tree.root_node();
    let reader = Reader { src };
    if root.has_error() {
        return Err(reader.syntax_error(root));
    }
    let statements = items(root);
    let statement = match statements.as_slice() {
        [] => return Err(syntax("no expression")),
        [one] => *one,
        more => {
            return Err(syntax(format!(
                "{} statements, not one expression",
                more.len()
            )))
        }
    };
    if statement.kind() != "expression_statement" {
        return Err(syntax(format!(
            "a statement (`{}`), not an expression",
            cap(reader.text(statement))
        )));
    }
    reader.statement(statement)
}

/// The named children of `node` that are not comments or line continuations.
fn items(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect()
}

/// At most [`QUOTED_CHARS`] characters of `text`.
fn cap(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Whether a NaN is anywhere in `v` (such a value equals no other in Python).
fn has_nan(v: &Value) -> bool {
    match v {
        Value::Float(f) => f.is_nan(),
        Value::List(items)
        | Value::Tuple(items)
        | Value::Set(items)
        | Value::Frozenset(items)
        | Value::Iter { items, .. } => items.iter().any(has_nan),
        Value::Dict(kv) => kv.iter().any(|(k, v)| has_nan(k) || has_nan(v)),
        Value::None
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Str(_)
        | Value::Bytes(_)
        | Value::Object { .. } => false,
    }
}

/// The name of the first unhashable type inside `v` (a list, a set, a dict), if any.
fn unhashable(v: &Value) -> Option<&'static str> {
    match v {
        Value::List(_) => Some("list"),
        Value::Set(_) => Some("set"),
        Value::Dict(_) => Some("dict"),
        Value::Tuple(items) => items.iter().find_map(unhashable),
        _ => None,
    }
}

/// `items` without the later of two equal elements (see the module doc).
fn dedup(items: Vec<Value>) -> Vec<Value> {
    let mut seen = HashSet::new();
    items
        .into_iter()
        .filter(|v| has_nan(v) || seen.insert(v.canonical()))
        .collect()
}

/// A decoded string literal.
enum Lit {
    Str(String),
    Bytes(Vec<u8>),
}

struct Reader<'s> {
    src: &'s str,
}

impl<'s> Reader<'s> {
    fn text(&self, node: Node<'_>) -> &'s str {
        &self.src[node.byte_range()]
    }

    /// [`LiteralError::NotLiteral`] naming what `node` is and quoting it.
    fn not_literal(&self, node: Node<'_>) -> LiteralError {
        let kind = node.kind();
        let label = match kind {
            "identifier" => "name".to_string(),
            "binary_operator"
            | "comparison_operator"
            | "boolean_operator"
            | "not_operator"
            | "unary_operator" => "operator".to_string(),
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => "comprehension".to_string(),
            "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => {
                "starred expression".to_string()
            }
            "named_expression" => "assignment expression".to_string(),
            other => other.replace('_', " "),
        };
        not_literal(format!("{label} `{}`", cap(self.text(node))))
    }

    /// The first ERROR or MISSING node under `root` (which has one), as a syntax error.
    fn syntax_error(&self, root: Node<'_>) -> LiteralError {
        let mut node = root;
        loop {
            if node.is_error() || node.is_missing() {
                break;
            }
            let mut cursor = node.walk();
            let next = node
                .children(&mut cursor)
                .find(|c| c.is_error() || c.is_missing() || c.has_error());
            match next {
                Some(c) => node = c,
                None => break,
            }
        }
        let at = node.start_position();
        let (line, column) = (at.row + 1, at.column + 1);
        if node.is_missing() {
            syntax(format!(
                "`{}` missing at line {line} column {column}",
                node.kind()
            ))
        } else {
            let text = self.text(node);
            if text.is_empty() {
                syntax(format!("unexpected end at line {line} column {column}"))
            } else {
                syntax(format!(
                    "unexpected `{}` at line {line} column {column}",
                    cap(text)
                ))
            }
        }
    }

    /// The top expression statement: one expression, or a tuple without parentheses.
    fn statement(&self, statement: Node<'_>) -> Result<Value, LiteralError> {
        let parts = items(statement);
        if let Some(p) = parts
            .iter()
            .find(|p| matches!(p.kind(), "assignment" | "augmented_assignment" | "yield"))
        {
            return Err(syntax(format!(
                "a statement (`{}`), not an expression",
                cap(self.text(*p))
            )));
        }
        let mut cursor = statement.walk();
        let comma = statement.children(&mut cursor).any(|c| c.kind() == ",");
        match parts.as_slice() {
            [one] if !comma => self.value(*one, 0),
            _ => parts
                .iter()
                .map(|p| self.value(*p, 1))
                .collect::<Result<_, _>>()
                .map(Value::Tuple),
        }
    }

    /// The value of the expression `node`, which `depth` constructs enclose.
    fn value(&self, node: Node<'_>, depth: usize) -> Result<Value, LiteralError> {
        let inner = depth + 1;
        let construct = matches!(
            node.kind(),
            "unary_operator"
                | "parenthesized_expression"
                | "tuple"
                | "list"
                | "set"
                | "dictionary"
                | "call"
        );
        if construct && inner > MAX_DEPTH {
            return Err(LiteralError::TooDeep);
        }
        match node.kind() {
            "none" => Ok(Value::None),
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            "integer" => int_literal(self.text(node)),
            "float" => float_literal(self.text(node)),
            "string" | "concatenated_string" => Ok(match self.strings(node)? {
                Lit::Str(s) => Value::Str(s),
                Lit::Bytes(b) => Value::Bytes(hex::encode(b)),
            }),
            "unary_operator" => self.signed(node, inner),
            "parenthesized_expression" => match items(node).as_slice() {
                [one] => self.value(*one, inner),
                _ => Err(self.not_literal(node)),
            },
            "tuple" => self.elements(node, inner).map(Value::Tuple),
            "list" => self.elements(node, inner).map(Value::List),
            "set" => self.set_elements(node, inner).map(Value::Set),
            "dictionary" => self.dict(node, inner),
            "call" => self.call(node, inner),
            _ => Err(self.not_literal(node)),
        }
    }

    /// `-x` or `+x` of a number `x`.
    fn signed(&self, node: Node<'_>, inner: usize) -> Result<Value, LiteralError> {
        let op = node.child_by_field_name("operator").map(|o| o.kind());
        let (Some(minus), Some(arg)) = (
            match op {
                Some("-") => Some(true),
                Some("+") => Some(false),
                _ => None,
            },
            node.child_by_field_name("argument"),
        ) else {
            return Err(self.not_literal(node));
        };
        match self.value(arg, inner)? {
            Value::Int(digits) if minus => Ok(Value::Int(match digits.strip_prefix('-') {
                Some(positive) => positive.to_string(),
                None if digits == "0" => digits,
                None => format!("-{digits}"),
            })),
            Value::Float(f) if minus => Ok(Value::Float(-f)),
            v @ (Value::Int(_) | Value::Float(_)) => Ok(v),
            _ => Err(self.not_literal(node)),
        }
    }

    /// The items of a tuple, list or set display.
    fn elements(&self, node: Node<'_>, inner: usize) -> Result<Vec<Value>, LiteralError> {
        items(node)
            .into_iter()
            .map(|c| self.value(c, inner))
            .collect()
    }

    /// The items of `node` as the elements of a set: hashable, without duplicates.
    fn set_elements(&self, node: Node<'_>, inner: usize) -> Result<Vec<Value>, LiteralError> {
        let items = self.elements(node, inner)?;
        if let Some(kind) = items.iter().find_map(unhashable) {
            return Err(not_literal(format!(
                "unhashable {kind} in a set: `{}`",
                cap(self.text(node))
            )));
        }
        Ok(dedup(items))
    }

    fn dict(&self, node: Node<'_>, inner: usize) -> Result<Value, LiteralError> {
        let mut pairs: Vec<(Value, Value)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for pair in items(node) {
            let (Some(k), Some(v)) = (
                pair.child_by_field_name("key"),
                pair.child_by_field_name("value"),
            ) else {
                return Err(self.not_literal(pair));
            };
            if pair.kind() != "pair" {
                return Err(self.not_literal(pair));
            }
            let key = self.value(k, inner)?;
            if let Some(kind) = unhashable(&key) {
                return Err(not_literal(format!(
                    "unhashable {kind} as a dict key: `{}`",
                    cap(self.text(k))
                )));
            }
            let value = self.value(v, inner)?;
            if !has_nan(&key) {
                let text = key.canonical();
                if let Some(&i) = index.get(&text) {
                    pairs[i].1 = value;
                    continue;
                }
                index.insert(text, pairs.len());
            }
            pairs.push((key, value));
        }
        Ok(Value::Dict(pairs))
    }

    /// The few calls that make literal values.
    fn call(&self, node: Node<'_>, inner: usize) -> Result<Value, LiteralError> {
        let (Some(function), Some(arguments)) = (
            node.child_by_field_name("function"),
            node.child_by_field_name("arguments"),
        ) else {
            return Err(self.not_literal(node));
        };
        if arguments.kind() != "argument_list" {
            return Err(self.not_literal(node));
        }
        let name = match function.kind() {
            "identifier" => self.text(function).to_string(),
            "attribute" => match (
                function.child_by_field_name("object"),
                function.child_by_field_name("attribute"),
            ) {
                (Some(o), Some(a)) if o.kind() == "identifier" => {
                    format!("{}.{}", self.text(o), self.text(a))
                }
                _ => return Err(self.not_literal(node)),
            },
            _ => return Err(self.not_literal(node)),
        };
        let args = items(arguments);
        let is_str = |n: &Node<'_>| matches!(n.kind(), "string" | "concatenated_string");
        match (name.as_str(), args.as_slice()) {
            ("set", []) => Ok(Value::Set(Vec::new())),
            ("frozenset", []) => Ok(Value::Frozenset(Vec::new())),
            ("tuple", []) => Ok(Value::Tuple(Vec::new())),
            ("list", []) => Ok(Value::List(Vec::new())),
            ("dict", []) => Ok(Value::Dict(Vec::new())),
            ("set" | "frozenset", [arg]) if matches!(arg.kind(), "list" | "tuple" | "set") => {
                if inner + 1 > MAX_DEPTH {
                    return Err(LiteralError::TooDeep);
                }
                let items = self.set_elements(*arg, inner + 1)?;
                Ok(if name == "set" {
                    Value::Set(items)
                } else {
                    Value::Frozenset(items)
                })
            }
            ("float", [arg]) if is_str(arg) => match self.strings(*arg)? {
                Lit::Str(s) => special_float(&s).ok_or_else(|| self.not_literal(node)),
                Lit::Bytes(_) => Err(self.not_literal(node)),
            },
            ("bytes.fromhex", [arg]) if is_str(arg) => match self.strings(*arg)? {
                Lit::Str(s) => from_hex(&s).ok_or_else(|| self.not_literal(node)),
                Lit::Bytes(_) => Err(self.not_literal(node)),
            },
            _ => Err(self.not_literal(node)),
        }
    }

    /// A string literal, or adjacent ones concatenated.
    fn strings(&self, node: Node<'_>) -> Result<Lit, LiteralError> {
        let parts = if node.kind() == "concatenated_string" {
            items(node)
        } else {
            vec![node]
        };
        let mut out: Option<Lit> = None;
        for part in parts {
            if part.kind() != "string" {
                return Err(self.not_literal(part));
            }
            let lit = string_literal(self.text(part))?;
            out = Some(match (out, lit) {
                (None, lit) => lit,
                (Some(Lit::Str(mut a)), Lit::Str(b)) => {
                    a.push_str(&b);
                    Lit::Str(a)
                }
                (Some(Lit::Bytes(mut a)), Lit::Bytes(b)) => {
                    a.extend(b);
                    Lit::Bytes(a)
                }
                _ => return Err(syntax("cannot mix bytes and nonbytes literals")),
            });
        }
        out.ok_or_else(|| LiteralError::Internal {
            why: "a concatenated string without strings".into(),
        })
    }
}

/// The text of `float(..)`'s argument, when Python reads it as NaN or an infinity.
fn special_float(s: &str) -> Option<Value> {
    let t = s.trim().to_lowercase();
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(&t)),
    };
    let f = match body {
        "nan" => f64::NAN,
        "inf" | "infinity" => f64::INFINITY,
        _ => return None,
    };
    Some(Value::Float(if negative { -f } else { f }))
}

/// `bytes.fromhex(s)`: pairs of hex digits, ASCII whitespace allowed between pairs (not
/// inside one).
fn from_hex(s: &str) -> Option<Value> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    loop {
        while b
            .get(i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        {
            i += 1;
        }
        let Some(&hi) = b.get(i) else { break };
        let lo = *b.get(i + 1)?;
        if !(hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit()) {
            return None;
        }
        out.push(char::from(hi.to_ascii_lowercase()));
        out.push(char::from(lo.to_ascii_lowercase()));
        i += 2;
    }
    Some(Value::Bytes(out))
}

/// A decimal, `0x`, `0o` or `0b` int.
fn int_literal(text: &str) -> Result<Value, LiteralError> {
    if text.ends_with(['j', 'J']) {
        return Err(not_literal(format!("complex number `{}`", cap(text))));
    }
    let invalid = || syntax(format!("invalid int literal `{}`", cap(text)));
    let lower = text.to_ascii_lowercase();
    let (radix, body) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        _ => (10, lower.as_str()),
    };
    let digits =
        without_underscores(body, radix != 10, |c| c.is_digit(radix)).ok_or_else(invalid)?;
    let significant = digits.trim_start_matches('0');
    if radix == 10 {
        if !significant.is_empty() && significant.len() != digits.len() {
            return Err(syntax(format!(
                "leading zeros in decimal int literal `{}`",
                cap(text)
            )));
        }
        if significant.len() > MAX_INT_DIGITS {
            return Err(LiteralError::IntTooLarge);
        }
        return Ok(Value::Int(if significant.is_empty() {
            "0".into()
        } else {
            significant.into()
        }));
    }
    to_decimal(significant, radix).map(Value::Int)
}

/// `body` without its underscores, when each stands between two digits (or, with
/// `leading`, at the start before a digit: `0x_ff`); `None` when it is empty, holds a
/// non-digit, or an underscore elsewhere.
fn without_underscores(body: &str, leading: bool, digit: impl Fn(char) -> bool) -> Option<String> {
    let cs: Vec<char> = body.chars().collect();
    let mut out = String::with_capacity(cs.len());
    for (i, &c) in cs.iter().enumerate() {
        if c == '_' {
            let before = if i == 0 { leading } else { digit(cs[i - 1]) };
            let after = cs.get(i + 1).is_some_and(|&n| digit(n));
            if !(before && after) {
                return None;
            }
        } else if digit(c) {
            out.push(c);
        } else {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The decimal digits of the int whose `radix` digits (2, 8 or 16; no leading zeros) are
/// `digits`.
fn to_decimal(digits: &str, radix: u32) -> Result<String, LiteralError> {
    const LIMB: u64 = 1_000_000_000;
    let Some(first) = digits.chars().next() else {
        return Ok("0".into());
    };
    let bits_per_digit = radix.trailing_zeros() as usize;
    let first_bits = 32 - first.to_digit(radix).unwrap_or(1).leading_zeros() as usize;
    if (digits.len() - 1) * bits_per_digit + first_bits > MAX_INT_BITS {
        return Err(LiteralError::IntTooLarge);
    }
    // Little-endian limbs of nine decimal digits.
    let mut limbs: Vec<u32> = Vec::new();
    for c in digits.chars() {
        let mut carry = u64::from(c.to_digit(radix).unwrap_or(0));
        for limb in &mut limbs {
            let v = u64::from(*limb) * u64::from(radix) + carry;
            *limb = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        while carry > 0 {
            limbs.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
    }
    let mut out = String::new();
    for (i, limb) in limbs.iter().rev().enumerate() {
        if i == 0 {
            let _ = write!(out, "{limb}");
        } else {
            let _ = write!(out, "{limb:09}");
        }
    }
    if out.is_empty() {
        out.push('0');
    }
    if out.len() > MAX_INT_DIGITS {
        return Err(LiteralError::IntTooLarge);
    }
    Ok(out)
}

/// A float literal, correctly rounded.
fn float_literal(text: &str) -> Result<Value, LiteralError> {
    if text.ends_with(['j', 'J']) {
        return Err(not_literal(format!("complex number `{}`", cap(text))));
    }
    let invalid = || syntax(format!("invalid float literal `{}`", cap(text)));
    let b = text.as_bytes();
    let mut plain = String::with_capacity(b.len());
    for (i, &c) in b.iter().enumerate() {
        match c {
            // Only between two digits: not next to `.`, `e` or a sign.
            b'_' => {
                let between = i > 0
                    && b[i - 1].is_ascii_digit()
                    && b.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !between {
                    return Err(invalid());
                }
            }
            b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-' => plain.push(char::from(c)),
            _ => return Err(invalid()),
        }
    }
    plain
        .parse::<f64>()
        .map(Value::Float)
        .map_err(|_| invalid())
}

/// A single string literal's text (prefix, quotes and all) decoded.
fn string_literal(text: &str) -> Result<Lit, LiteralError> {
    let Some(prefix_len) = text.find(['\'', '"']) else {
        return Err(syntax(format!("not a string: `{}`", cap(text))));
    };
    let prefix = text[..prefix_len].to_ascii_lowercase();
    let (raw, bytes) = match prefix.as_str() {
        "" | "u" => (false, false),
        "r" => (true, false),
        "b" => (false, true),
        "br" | "rb" => (true, true),
        "f" | "fr" | "rf" | "t" | "tr" | "rt" => {
            return Err(not_literal(format!("f-string `{}`", cap(text))))
        }
        _ => return Err(syntax(format!("invalid string prefix `{}`", cap(&prefix)))),
    };
    let rest = &text[prefix_len..];
    let triple = rest.len() >= 6 && (rest.starts_with("'''") || rest.starts_with("\"\"\""));
    let q = if triple { 3 } else { 1 };
    if rest.len() < 2 * q || !rest.ends_with(&rest[..q]) {
        return Err(syntax(format!("unterminated string `{}`", cap(text))));
    }
    let units = decode_body(&rest[q..rest.len() - q], raw, bytes, triple)?;
    let bug = || LiteralError::Internal {
        why: "a decoded code unit out of range".into(),
    };
    if bytes {
        units
            .into_iter()
            .map(|u| u8::try_from(u).map_err(|_| bug()))
            .collect::<Result<_, _>>()
            .map(Lit::Bytes)
    } else {
        units
            .into_iter()
            .map(|u| char::from_u32(u).ok_or_else(bug))
            .collect::<Result<_, _>>()
            .map(Lit::Str)
    }
}

/// `n` hex digits at `cs[*i..]`, consumed.
fn hex_digits(cs: &[char], i: &mut usize, n: usize) -> Option<u32> {
    let digits = cs.get(*i..*i + n)?;
    let mut v = 0u32;
    for c in digits {
        v = v * 16 + c.to_digit(16)?;
    }
    *i += n;
    Some(v)
}

/// The code points (bytes: the byte values) of a string literal's body.
fn decode_body(body: &str, raw: bool, bytes: bool, triple: bool) -> Result<Vec<u32>, LiteralError> {
    let ascii_only = || syntax("bytes can only contain ASCII literal characters");
    let cs: Vec<char> = body.chars().collect();
    let mut out = Vec::with_capacity(cs.len());
    let mut at = 0;
    while at < cs.len() {
        let ch = cs[at];
        at += 1;
        if bytes && !ch.is_ascii() {
            return Err(ascii_only());
        }
        if ch == '\n' && !triple {
            return Err(syntax("a line break in a single-quoted string"));
        }
        if ch != '\\' {
            out.push(u32::from(ch));
            continue;
        }
        let Some(&esc) = cs.get(at) else {
            return Err(syntax("a string ending in a backslash"));
        };
        at += 1;
        if bytes && !esc.is_ascii() {
            return Err(ascii_only());
        }
        if raw {
            out.extend([u32::from('\\'), u32::from(esc)]);
            continue;
        }
        match esc {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(u32::from(esc)),
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'f' => out.push(0x0c),
            'n' => out.push(0x0a),
            'r' => out.push(0x0d),
            't' => out.push(0x09),
            'v' => out.push(0x0b),
            '0'..='7' => {
                let mut code = esc.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match cs.get(at).and_then(|c| c.to_digit(8)) {
                        Some(digit) => {
                            code = code * 8 + digit;
                            at += 1;
                        }
                        None => break,
                    }
                }
                // Python keeps the low byte of `b'\777'`; in a str it is U+01FF.
                out.push(if bytes { code & 0xff } else { code });
            }
            'x' => {
                let code =
                    hex_digits(&cs, &mut at, 2).ok_or_else(|| syntax("truncated \\xXX escape"))?;
                out.push(code);
            }
            'u' | 'U' if !bytes => {
                let width = if esc == 'u' { 4 } else { 8 };
                let code = hex_digits(&cs, &mut at, width)
                    .ok_or_else(|| syntax(format!("truncated \\{esc} escape")))?;
                if code > 0x10_ffff {
                    return Err(syntax("illegal Unicode character in a \\U escape"));
                }
                if (0xd800..0xe000).contains(&code) {
                    let low_follows = || {
                        let mut next = at + 2;
                        cs.get(at..next) == Some(&['\\', 'u'][..])
                            && hex_digits(&cs, &mut next, 4)
                                .is_some_and(|lo| (0xdc00..0xe000).contains(&lo))
                    };
                    let paired = (0xd800..0xdc00).contains(&code) && low_follows();
                    return Err(not_literal(if paired {
                        "surrogate pair"
                    } else {
                        "lone surrogate"
                    }));
                }
                out.push(code);
            }
            'N' if !bytes => {
                let close = cs[at..].iter().position(|&c| c == '}');
                return Err(match (cs.get(at), close) {
                    (Some('{'), Some(len)) if len > 1 => {
                        let name: String = cs[at..=at + len].iter().collect();
                        not_literal(format!(
                            "\\N{} escape (no Unicode name table here)",
                            cap(&name)
                        ))
                    }
                    _ => syntax("malformed \\N character escape"),
                });
            }
            // Unknown escapes stay as written (Python warns, and keeps them).
            _ => out.extend([u32::from('\\'), u32::from(esc)]),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn int(digits: &str) -> Value {
        Value::Int(digits.into())
    }

    fn float(x: f64) -> Value {
        Value::Float(x)
    }

    fn text(s: &str) -> Value {
        Value::str(s)
    }

    fn bytes(hex: &str) -> Value {
        Value::Bytes(hex.into())
    }

    /// `text` reads as exactly `want`: order and the sign of zero included (compared as
    /// `Debug` text, in which NaN equals NaN).
    fn accepts(cases: &[(&str, Value)]) {
        for (text, want) in cases {
            match parse_literal(text) {
                Ok(got) => assert_eq!(format!("{got:?}"), format!("{want:?}"), "{text:?}"),
                Err(e) => panic!("{text:?} refused: {e}"),
            }
        }
    }

    fn error(text: &str) -> LiteralError {
        match parse_literal(text) {
            Ok(v) => panic!("{text:?} accepted as {v:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn constants_and_ints() {
        accepts(&[
            ("None", Value::None),
            ("True", Value::Bool(true)),
            ("False", Value::Bool(false)),
            ("0", int("0")),
            ("00", int("0")),
            ("0_0", int("0")),
            ("42", int("42")),
            ("1_000_000", int("1000000")),
            ("-5", int("-5")),
            ("+5", int("5")),
            ("- -1", int("1")),
            ("--1", int("1")),
            ("-+-7", int("7")),
            ("-0", int("0")),
            ("-(3)", int("-3")),
            ("0x1F", int("31")),
            ("0X_ff", int("255")),
            ("0xdead_BEEF", int("3735928559")),
            ("0o17", int("15")),
            ("0O_7_7", int("63")),
            ("0b1010", int("10")),
            ("0B_1_0", int("2")),
            ("0x0", int("0")),
            ("0x000", int("0")),
            ("-0x10", int("-16")),
            ("0x00000001", int("1")),
            ("0x3b9aca00", int("1000000000")),
            (
                "0xffffffffffffffffffffffffffffffff",
                int("340282366920938463463374607431768211455"),
            ),
            ("0o777777777777777777777777", int("4722366482869645213695")),
            (
                "0b1000000000000000000000000000000000000000000000000000000000000000000000",
                int("590295810358705651712"),
            ),
            (
                "123456789012345678901234567890",
                int("123456789012345678901234567890"),
            ),
            (
                "-123456789012345678901234567890",
                int("-123456789012345678901234567890"),
            ),
        ]);
        let most = "9".repeat(MAX_INT_DIGITS);
        accepts(&[(most.as_str(), int(&most))]);
        // 3500 hex digits: 4215 decimal digits, within the limit.
        let hex = format!("0x{}", "f".repeat(3500));
        let Value::Int(digits) = parse_literal(&hex).unwrap() else {
            panic!("not an int")
        };
        assert_eq!(digits.len(), 4215);
        assert!(
            digits.starts_with("26299003") && digits.ends_with("375"),
            "{digits:.8}"
        );
    }

    #[test]
    fn floats() {
        accepts(&[
            ("1.5", float(1.5)),
            ("1e-3", float(1e-3)),
            ("1E3", float(1000.0)),
            (".5", float(0.5)),
            ("5.", float(5.0)),
            ("1.e5", float(1e5)),
            ("1_000.5", float(1000.5)),
            ("1e1_0", float(1e10)),
            ("1_0.2_5e+0_1", float(102.5)),
            ("0.1", float(0.1)),
            ("-0.0", float(-0.0)),
            ("0.0", float(0.0)),
            ("-2.5", float(-2.5)),
            ("- -2.5", float(2.5)),
            ("1e400", float(f64::INFINITY)),
            ("-1e400", float(f64::NEG_INFINITY)),
            ("1e-400", float(0.0)),
            (
                "2.2250738585072014e-308",
                float(2.225_073_858_507_201_4e-308),
            ),
            ("5e-324", float(5e-324)),
            ("1.7976931348623157e308", float(f64::MAX)),
            // Correctly rounded: halfway between two doubles, to even.
            ("9007199254740993.0", float(9_007_199_254_740_992.0)),
            ("float('nan')", float(f64::NAN)),
            ("float(\"NaN\")", float(f64::NAN)),
            ("float('-nan')", float(f64::NAN)),
            ("float('inf')", float(f64::INFINITY)),
            ("float('+inf')", float(f64::INFINITY)),
            ("float('-inf')", float(f64::NEG_INFINITY)),
            ("-float('inf')", float(f64::NEG_INFINITY)),
            ("+float('inf')", float(f64::INFINITY)),
            ("float(\"infinity\")", float(f64::INFINITY)),
            ("float('  -Infinity\\n')", float(f64::NEG_INFINITY)),
            ("float('INF')", float(f64::INFINITY)),
            ("float('i' 'nf')", float(f64::INFINITY)),
        ]);
    }

    #[test]
    fn strings_and_bytes() {
        accepts(&[
            ("'a'", text("a")),
            ("\"a\"", text("a")),
            ("''", text("")),
            ("\"\"", text("")),
            ("''''''", text("")),
            ("'''a\nb'''", text("a\nb")),
            ("\"\"\"it's \"q\" \"\"\"", text("it's \"q\" ")),
            ("'''a''b'''", text("a''b")),
            ("u'x'", text("x")),
            ("U'x'", text("x")),
            ("r'\\n'", text("\\n")),
            ("R'\\n'", text("\\n")),
            ("r'\\''", text("\\'")),
            ("r'a\\\nb'", text("a\\\nb")),
            ("r'\\N{DIGIT ONE}'", text("\\N{DIGIT ONE}")),
            (
                r#"'\n\t\\\'\"\a\b\f\v\r\0'"#,
                text("\n\t\\'\"\x07\x08\x0c\x0b\r\0"),
            ),
            (r"'\101\7\0101\777'", text("A\x07\x081\u{1ff}")),
            (r"'\x41\xe9'", text("Aé")),
            (r"'\u00e9\u6F22'", text("é漢")),
            (r"'\U0001F600'", text("😀")),
            ("'é漢😀'", text("é漢😀")),
            ("'a\\\nb'", text("ab")),
            ("'''a\\\nb'''", text("ab")),
            (r"'\q\d\8'", text("\\q\\d\\8")),
            ("'\"'", text("\"")),
            ("\"'\"", text("'")),
            ("'#'", text("#")),
            ("b'abc'", bytes("616263")),
            ("B'\\x00\\xff'", bytes("00ff")),
            ("b''", bytes("")),
            ("b'''a\nb'''", bytes("610a62")),
            (r"b'\777\101'", bytes("ff41")),
            (r"b'\u1234'", bytes("5c7531323334")),
            (r"b'\N{X}'", bytes("5c4e7b587d")),
            ("rb'\\n'", bytes("5c6e")),
            ("bR'x'", bytes("78")),
            ("Rb'\\x'", bytes("5c78")),
            ("BR'\\''", bytes("5c27")),
            ("'a' 'b'", text("ab")),
            ("'a' r'\\n' \"c\" '''d'''", text("a\\ncd")),
            ("b'a' B'b' rb'\\c'", bytes("61625c63")),
            ("('a'\n 'b')", text("ab")),
            ("('a' # first\n 'b')", text("ab")),
            ("'a' \\\n'b'", text("ab")),
        ]);
    }

    #[test]
    fn containers() {
        let (one, two) = (int("1"), int("2"));
        accepts(&[
            ("(1)", one.clone()),
            ("((1))", one.clone()),
            ("(\n1\n)", one.clone()),
            ("()", Value::Tuple(vec![])),
            ("(1,)", Value::Tuple(vec![one.clone()])),
            ("1,", Value::Tuple(vec![one.clone()])),
            ("1, 2", Value::Tuple(vec![one.clone(), two.clone()])),
            ("1, 2,", Value::Tuple(vec![one.clone(), two.clone()])),
            ("(1, 2,)", Value::Tuple(vec![one.clone(), two.clone()])),
            ("((),)", Value::Tuple(vec![Value::Tuple(vec![])])),
            ("[]", Value::List(vec![])),
            ("[1,]", Value::List(vec![one.clone()])),
            (
                "[1, [2, []]]",
                Value::List(vec![
                    one.clone(),
                    Value::List(vec![two.clone(), Value::List(vec![])]),
                ]),
            ),
            (
                "[\n  1,  # one\n  2,\n]",
                Value::List(vec![one.clone(), two.clone()]),
            ),
            ("{1, 2}", Value::Set(vec![one.clone(), two.clone()])),
            ("{2, 1, 2, 1}", Value::Set(vec![two.clone(), one.clone()])),
            ("{0.0, -0.0}", Value::Set(vec![float(0.0)])),
            // Only exact duplicates go: Python would keep one element.
            (
                "{1, 1.0, True}",
                Value::Set(vec![one.clone(), float(1.0), Value::Bool(true)]),
            ),
            (
                "{float('nan'), float('nan')}",
                Value::Set(vec![float(f64::NAN), float(f64::NAN)]),
            ),
            (
                "{(1, 2), frozenset(), (1, 2)}",
                Value::Set(vec![
                    Value::Tuple(vec![one.clone(), two.clone()]),
                    Value::Frozenset(vec![]),
                ]),
            ),
            ("{}", Value::Dict(vec![])),
            (
                "{'a': 1, 'b': [2],}",
                Value::Dict(vec![
                    (text("a"), one.clone()),
                    (text("b"), Value::List(vec![two.clone()])),
                ]),
            ),
            (
                "{1: 'a', 2: 'c', 1: 'b'}",
                Value::Dict(vec![(one.clone(), text("b")), (two.clone(), text("c"))]),
            ),
            (
                "{(1,): None, frozenset({1}): b''}",
                Value::Dict(vec![
                    (Value::Tuple(vec![one.clone()]), Value::None),
                    (Value::Frozenset(vec![one.clone()]), bytes("")),
                ]),
            ),
            (
                "{float('nan'): 1, float('nan'): 2}",
                Value::Dict(vec![
                    (float(f64::NAN), one.clone()),
                    (float(f64::NAN), two.clone()),
                ]),
            ),
            (
                "[1, 'a', {2: (3.5, None)}]",
                Value::List(vec![
                    one.clone(),
                    text("a"),
                    Value::Dict(vec![(
                        two.clone(),
                        Value::Tuple(vec![float(3.5), Value::None]),
                    )]),
                ]),
            ),
        ]);
    }

    #[test]
    fn calls_that_make_values() {
        let (one, two) = (int("1"), int("2"));
        accepts(&[
            ("set()", Value::Set(vec![])),
            ("frozenset()", Value::Frozenset(vec![])),
            ("tuple()", Value::Tuple(vec![])),
            ("list()", Value::List(vec![])),
            ("dict()", Value::Dict(vec![])),
            ("set( )", Value::Set(vec![])),
            ("set([1, 2, 1])", Value::Set(vec![one.clone(), two.clone()])),
            ("set((1,))", Value::Set(vec![one.clone()])),
            ("set({2})", Value::Set(vec![two.clone()])),
            ("set([])", Value::Set(vec![])),
            (
                "frozenset({1, 2})",
                Value::Frozenset(vec![one.clone(), two.clone()]),
            ),
            ("frozenset([1],)", Value::Frozenset(vec![one.clone()])),
            ("frozenset((2, 2))", Value::Frozenset(vec![two.clone()])),
            ("frozenset(())", Value::Frozenset(vec![])),
            ("bytes.fromhex('00ff')", bytes("00ff")),
            ("bytes.fromhex('')", bytes("")),
            ("bytes.fromhex(' 00 FF\\n\\tAb ')", bytes("00ffab")),
            ("bytes . fromhex(\"0a\")", bytes("0a")),
        ]);
    }

    #[test]
    fn whitespace_comments_and_line_ends() {
        let one = int("1");
        accepts(&[
            ("  1  ", one.clone()),
            ("1\n", one.clone()),
            ("\n\n1\n\n", one.clone()),
            ("\t1\r\n", one.clone()),
            ("\x0c1 \x0c", one.clone()),
            ("1 # one", one.clone()),
            ("# the answer\n1", one.clone()),
            ("'''a\r\nb\rc'''", text("a\nb\nc")),
            ("[1, \\\n 2]", Value::List(vec![one, int("2")])),
        ]);
    }

    #[test]
    fn syntax_errors() {
        for text in [
            "",
            "   \n",
            "# only a comment",
            "1 2",
            "1; 2",
            "1\n2",
            "[1, 2",
            "(1",
            "{1: }",
            "[,]",
            "'abc",
            "'a\nb'",
            "x = 1",
            "x += 1",
            "yield 1",
            "import os",
            "def f(): pass",
            "pass",
            "012",
            "0_12",
            "1__0",
            "1_",
            "0x",
            "0x_",
            "0b102",
            "0o8",
            "1e",
            "1_.5",
            "1._5",
            "1e_5",
            "1L",
            "0xffL",
            r"'\x4'",
            r"'\xg0'",
            r"'\u12'",
            r"'\U0011000'",
            r"'\U00110000'",
            r"'\N'",
            r"'\N{}'",
            "b'é'",
            r"br'\é'",
            "'a' b'b'",
            "b'a' 'b'",
            "ur'x'",
            "bu'x'",
            "'a\0b'",
            "1\0",
        ] {
            assert!(
                matches!(error(text), LiteralError::Syntax { .. }),
                "{text:?}: {:?}",
                error(text)
            );
        }
    }

    #[test]
    fn not_literals() {
        for (text, what) in [
            ("x", "name `x`"),
            ("nan", "name `nan`"),
            ("inf", "name"),
            ("os.path", "attribute `os.path`"),
            ("a[0]", "subscript"),
            ("f(1)", "call `f(1)`"),
            ("print(1)", "call"),
            ("float('1.5')", "call"),
            ("float(1)", "call"),
            ("float(b'nan')", "call"),
            ("float('nan', 1)", "call"),
            ("set(1, 2)", "call"),
            ("set(x)", "call"),
            ("set('ab')", "call"),
            ("frozenset('ab')", "call"),
            ("frozenset(([1]))", "call"),
            ("list([1])", "call"),
            ("tuple((1,))", "call"),
            ("dict(a=1)", "call"),
            ("set(*x)", "call"),
            ("bytes.fromhex('0')", "call"),
            ("bytes.fromhex('0 0')", "call"),
            ("bytes.fromhex('zz')", "call"),
            ("bytes.fromhex(b'00')", "call"),
            ("bytes.fromhex(x)", "call"),
            ("bytes.hex('00')", "call"),
            ("int.fromhex('00')", "call"),
            ("x.y.fromhex('00')", "call"),
            ("1 + 2", "operator `1 + 2`"),
            ("1+2j", "operator"),
            ("2 * 3", "operator"),
            ("1 < 2", "operator"),
            ("True and False", "operator"),
            ("not True", "operator"),
            ("~1", "operator `~1`"),
            ("-x", "name"),
            ("-True", "operator `-True`"),
            ("-'a'", "operator"),
            ("-(1,)", "operator"),
            ("-[]", "operator"),
            ("2j", "complex number `2j`"),
            ("1.5J", "complex number"),
            ("-1e3j", "complex number"),
            ("[x for x in y]", "comprehension"),
            ("(x for x in y)", "comprehension"),
            ("{x: 1 for x in y}", "comprehension"),
            ("{x for x in y}", "comprehension"),
            ("lambda: 1", "lambda"),
            ("f'{x}'", "f-string `f'{x}'`"),
            ("f'a'", "f-string"),
            ("rf'a'", "f-string"),
            ("Fr'a'", "f-string"),
            ("'a' f'b'", "f-string"),
            ("[*a]", "starred"),
            ("{**a}", "starred expression `**a`"),
            ("*a,", "starred"),
            ("1 if True else 2", "conditional expression"),
            ("...", "ellipsis"),
            ("[...]", "ellipsis"),
            ("(x := 1)", "assignment expression"),
            ("await x", "await"),
            (r"'\ud800'", "lone surrogate"),
            (r"'\udc00\ud800'", "lone surrogate"),
            (r"'\U0000DFFF'", "lone surrogate"),
            (r"'\ud83d\ude00'", "surrogate pair"),
            (r"'\ud83d\\ude00'", "lone surrogate"),
            (r"'\N{DIGIT ONE}'", r"\N{DIGIT ONE}"),
            ("{[1]}", "unhashable list in a set"),
            ("{(1, [2])}", "unhashable list"),
            ("{{1}}", "unhashable set"),
            ("set([{}])", "unhashable dict"),
            ("{[]: 1}", "unhashable list as a dict key"),
            ("{{}: 1}", "unhashable dict"),
            ("[1, x]", "name `x`"),
            ("{1: x}", "name"),
        ] {
            match error(text) {
                LiteralError::NotLiteral { what: got } => {
                    assert!(got.contains(what), "{text:?}: {got:?} lacks {what:?}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        let long = format!("f({})", "1, ".repeat(100));
        let LiteralError::NotLiteral { what } = error(&long) else {
            panic!("{long:?}")
        };
        assert!(
            what.chars().count() < 80 && what.ends_with("…`"),
            "{what:?}"
        );
    }

    #[test]
    fn limits() {
        let nested = |n: usize, inner: &str| format!("{}{inner}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_literal(&nested(MAX_DEPTH, "1")).is_ok());
        assert_eq!(
            parse_literal(&nested(MAX_DEPTH + 1, "")),
            Err(LiteralError::TooDeep)
        );
        assert_eq!(
            parse_literal(&nested(100_000, "")),
            Err(LiteralError::TooDeep)
        );
        let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        assert!(parse_literal(&parens(MAX_DEPTH)).is_ok());
        assert_eq!(
            parse_literal(&parens(MAX_DEPTH + 1)),
            Err(LiteralError::TooDeep)
        );
        let signs = |n: usize| format!("{}1", "-".repeat(n));
        assert_eq!(parse_literal(&signs(MAX_DEPTH)), Ok(int("1")));
        assert_eq!(
            parse_literal(&signs(MAX_DEPTH + 1)),
            Err(LiteralError::TooDeep)
        );
        let sets = format!("{}{}", "frozenset([".repeat(60), "])".repeat(60));
        assert_eq!(parse_literal(&sets), Err(LiteralError::TooDeep));
        let tuple = format!("1, {}", nested(MAX_DEPTH, ""));
        assert_eq!(parse_literal(&tuple), Err(LiteralError::TooDeep));

        let big = format!("[{}]", "0, ".repeat(MAX_INPUT_BYTES / 3 + 1));
        assert_eq!(parse_literal(&big), Err(LiteralError::TooLarge));
        let under = format!("'{}'", "a".repeat(MAX_INPUT_BYTES - 2));
        assert!(parse_literal(&under).is_ok());

        let digits = "1".repeat(MAX_INT_DIGITS + 1);
        assert_eq!(parse_literal(&digits), Err(LiteralError::IntTooLarge));
        assert_eq!(
            parse_literal(&format!("0x{}", "f".repeat(3600))),
            Err(LiteralError::IntTooLarge)
        );
        assert_eq!(
            parse_literal(&format!("0b{}", "1".repeat(100_000))),
            Err(LiteralError::IntTooLarge)
        );
        // 14_300 bits pass the first check; their 4305 digits do not pass the second.
        assert_eq!(
            parse_literal(&format!("0b1{}", "0".repeat(14_299))),
            Err(LiteralError::IntTooLarge)
        );
        assert_eq!(
            parse_literal(&format!("0x{}1", "0".repeat(20_000))),
            Ok(int("1"))
        );
    }

    /// Characters a string may hold, the awkward ones often.
    fn any_char() -> impl Strategy<Value = char> {
        prop_oneof![
            any::<char>(),
            prop::sample::select(vec![
                '\'',
                '"',
                '\\',
                '\n',
                '\r',
                '\t',
                '\0',
                '\x7f',
                'é',
                '\u{ff}',
                '\u{100}',
                '漢',
                '😀',
                '\u{10ffff}',
                '{',
                '}',
                '#',
            ]),
        ]
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::None),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::int),
            "-?[1-9][0-9]{18,80}".prop_map(Value::Int),
            any::<f64>().prop_map(Value::Float),
            prop::sample::select(vec![
                -0.0,
                0.0,
                5e-324,
                f64::MAX,
                f64::MIN_POSITIVE,
                1e16,
                1e-7,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ])
            .prop_map(Value::Float),
            prop::collection::vec(any_char(), 0..10)
                .prop_map(|cs| Value::Str(cs.into_iter().collect())),
            prop::collection::vec(any::<u8>(), 0..6).prop_map(|b| Value::Bytes(hex::encode(b))),
        ]
    }

    /// `items` without repeated canonical texts.
    fn distinct(items: Vec<Value>) -> Vec<Value> {
        let mut seen = HashSet::new();
        items
            .into_iter()
            .filter(|v| seen.insert(v.canonical()))
            .collect()
    }

    /// Values Python can hash: scalars, tuples and frozensets of them.
    fn hashable() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(2, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Tuple),
                prop::collection::vec(inner, 0..3).prop_map(|v| Value::Frozenset(distinct(v))),
            ]
        })
    }

    /// Values of every kind a literal makes, nested up to three levels.
    fn literal_value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 32, 4, |inner| {
            let keys = || prop::collection::vec(hashable(), 0..4).prop_map(distinct);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::List),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Tuple),
                keys().prop_map(Value::Set),
                keys().prop_map(Value::Frozenset),
                (keys(), prop::collection::vec(inner, 4)).prop_map(|(keys, values)| {
                    Value::Dict(keys.into_iter().zip(values).collect())
                }),
            ]
        })
    }

    /// The Python text `schemas::tagged` writes for `v` (as a reader would: objects as
    /// their `repr`).
    fn python_text(v: &Value) -> String {
        let json = serde_json::to_string(v).unwrap();
        schemas::tagged::to_python_with(
            &schemas::tagged::parse_json(&json).unwrap(),
            schemas::tagged::Objects::Repr,
        )
        .unwrap()
    }

    proptest! {
        #[test]
        fn reads_back_what_the_renderer_writes(v in literal_value()) {
            let text = python_text(&v);
            match parse_literal(&text) {
                Ok(got) => prop_assert!(
                    got.same(&v),
                    "{text}\n read as {}\n wrote  {}",
                    got.canonical(),
                    v.canonical()
                ),
                Err(e) => prop_assert!(false, "{text}: {e}"),
            }
        }

        #[test]
        fn never_panics(text in "[\\[\\](){}:,'\"\\\\ a-z0-9_.+\\-#\n\rjxuNbrf*=]{0,40}") {
            let _ = parse_literal(&text);
        }

        #[test]
        fn reads_any_int_exactly(digits in "[1-9][0-9]{0,200}", negative in any::<bool>()) {
            let sign = if negative { "-" } else { "" };
            let want = int(&format!("{sign}{digits}"));
            prop_assert_eq!(parse_literal(&format!("{sign}{digits}")), Ok(want.clone()));
            // The same number written in hex and octal, by long division here.
            let (mut hex, mut oct) = (String::new(), String::new());
            for (radix, out) in [(16u32, &mut hex), (8u32, &mut oct)] {
                let mut n: Vec<u32> = digits.chars().map(|c| c.to_digit(10).unwrap()).collect();
                while !n.is_empty() {
                    let mut rest = 0;
                    let mut quotient = Vec::new();
                    for d in &n {
                        let cur = rest * 10 + d;
                        if !(quotient.is_empty() && cur / radix == 0) {
                            quotient.push(cur / radix);
                        }
                        rest = cur % radix;
                    }
                    out.insert(0, char::from_digit(rest, radix).unwrap());
                    n = quotient;
                }
            }
            prop_assert_eq!(parse_literal(&format!("{sign}0x{hex}")), Ok(want.clone()));
            prop_assert_eq!(parse_literal(&format!("{sign}0o{oct}")), Ok(want));
        }
    }
}
