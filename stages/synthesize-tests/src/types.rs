//! The type of a parameter as far as input generation cares ([`Ty`]), read from an
//! annotation's text ([`parse_annotation`]), from a docstring's words ([`from_doc_words`])
//! or from a default value ([`of_value`]).

use crate::pyval::{PyVal, StdType};

/// The shape of text a function parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    Json,
    Number,
    Date,
    /// Percent-encoded text (`unquote`, `parse_qs`).
    Percent,
    /// A URL or a relative reference (`urlsplit`, `urlparse`).
    Url,
    /// Text with HTML character references (`html.unescape`).
    Html,
    /// Base64 (`b64decode`, `urlsafe_b64decode`).
    Base64,
    /// Hexadecimal digits (`bytes.fromhex`, `unhexlify`).
    Hex,
    /// An IPv4 or IPv6 address or network (`ipaddress.ip_address`).
    Ip,
    /// A UUID's text (`uuid.UUID(x)`).
    Uuid,
    /// One character (`ord(c)`, `unicodedata.category(c)`).
    Char,
    /// A codec's name (`data.decode(encoding)`, `open(path, encoding=enc)`).
    Encoding,
}

impl Shape {
    /// The shape of text a standard-library decoder takes as its first argument, from the
    /// call's name as written (`urllib.parse.unquote`, `unquote`, `base64.b64decode`).
    pub fn of_decoder(fname: &str) -> Option<Shape> {
        let short = fname.rsplit('.').next().unwrap_or(fname);
        Some(match short {
            "unquote" | "unquote_plus" | "unquote_to_bytes" | "parse_qs" | "parse_qsl" => {
                Shape::Percent
            }
            "urlparse" | "urlsplit" | "urldefrag" | "urljoin" => Shape::Url,
            "unescape" if !fname.contains("saxutils") => Shape::Html,
            "b64decode" | "urlsafe_b64decode" | "standard_b64decode" | "decodebytes"
            | "a2b_base64" => Shape::Base64,
            "fromhex" | "unhexlify" | "a2b_hex" | "b16decode" => Shape::Hex,
            "ip_address" | "ip_network" | "ip_interface" | "IPv4Address" | "IPv6Address"
            | "IPv4Network" | "IPv6Network" | "IPv4Interface" | "IPv6Interface" => Shape::Ip,
            "UUID" => Shape::Uuid,
            "ord" => Shape::Char,
            "name" | "category" | "bidirectional" | "combining" | "east_asian_width"
            | "mirrored" | "decomposition" | "decimal" | "digit" | "numeric"
                if fname.starts_with("unicodedata.") =>
            {
                Shape::Char
            }
            _ => return None,
        })
    }
}

/// What to generate for one parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// Nothing known: a mixture of the common builtin types.
    Any,
    NoneT,
    Bool,
    Int,
    Float,
    Str,
    /// Text of a shape the body parses (`json.loads(x)`, `int(x)`, `strptime(x, ...)`).
    Text(Shape),
    Bytes,
    List(Box<Ty>),
    /// Any iterable (`Iterable[int]`): lists, tuples and one-shot iterators.
    Iterable(Box<Ty>),
    /// A tuple of fixed shape (`tuple[int, str]`).
    Tuple(Vec<Ty>),
    /// A tuple of any length (`tuple[int, ...]`).
    TupleOf(Box<Ty>),
    Dict(Box<Ty>, Box<Ty>),
    Set(Box<Ty>),
    FrozenSet(Box<Ty>),
    Union(Vec<Ty>),
    Literal(Vec<PyVal>),
    /// A callable: a builtin function passed by name.
    Callable,
    /// An exception class (`ValueError`), passed by name.
    Exception,
    /// An object of a standard type the worker builds from literals (`datetime.date`).
    Std(StdType),
    /// An object read by attribute (`token.type == 'number'`, observed tokens): an attribute
    /// bag with these attributes, each of its type.
    Object(Vec<(String, Ty)>),
    /// A dict read by literal keys (`match['token']`, `row.get('id')`): a dict with these
    /// text keys, each value of its type.
    Record(Vec<(String, Ty)>),
    /// A type no literal can stand for (a class of the repository, `re.Pattern`, ...).
    Unsupported(String),
}

impl Ty {
    /// `T | None`.
    pub fn optional(t: Ty) -> Ty {
        Ty::Union(vec![t, Ty::NoneT]).flatten()
    }

    /// The type of one item of a collection of this type (`Any` for what is no
    /// collection): what a `*args` parameter's values are when the body uses the tuple as a
    /// whole (`for f in funcs: f(x)` says each is a callable).
    #[must_use]
    pub fn item(self) -> Ty {
        match self {
            Ty::List(t) | Ty::Iterable(t) | Ty::TupleOf(t) | Ty::Set(t) | Ty::FrozenSet(t) => *t,
            Ty::Tuple(ts) => Ty::Union(ts).flatten(),
            Ty::Union(ms) => Ty::Union(ms.into_iter().map(Ty::item).collect()).flatten(),
            _ => Ty::Any,
        }
    }

    /// A collection of unknown items given `item` as their type (`Iterable[Any]` made
    /// `Iterable[str]`), or of text items given the shape `item` is of; anything else
    /// unchanged.
    #[must_use]
    pub fn with_item(self, item: &Ty) -> Ty {
        // Items of no type take the used one; text items, the shape the uses parse them as
        // (`encodings: list[str]`, each given to `.decode`, is a list of codec names).
        let fill = |t: Box<Ty>| {
            Box::new(
                if *t == Ty::Any || (*t == Ty::Str && matches!(item, Ty::Text(_))) {
                    item.clone()
                } else {
                    *t
                },
            )
        };
        match self {
            Ty::List(t) => Ty::List(fill(t)),
            Ty::Iterable(t) => Ty::Iterable(fill(t)),
            Ty::TupleOf(t) => Ty::TupleOf(fill(t)),
            Ty::Set(t) => Ty::Set(fill(t)),
            Ty::FrozenSet(t) => Ty::FrozenSet(fill(t)),
            Ty::Union(ms) => Ty::Union(ms.into_iter().map(|m| m.with_item(item)).collect()),
            other => other,
        }
    }

    /// A dict of values of unknown type given `value` as their type (`for k, v in
    /// d.items(): v.append(k)`); anything else unchanged.
    #[must_use]
    pub fn with_value(self, value: &Ty) -> Ty {
        match self {
            Ty::Dict(k, v) if *v == Ty::Any => Ty::Dict(k, Box::new(value.clone())),
            Ty::Union(ms) => Ty::Union(ms.into_iter().map(|m| m.with_value(value)).collect()),
            other => other,
        }
    }

    /// Unions flattened, duplicates removed, a one-member union unwrapped.
    #[must_use]
    pub fn flatten(self) -> Ty {
        match self {
            Ty::Union(members) => {
                let mut out: Vec<Ty> = Vec::new();
                for m in members {
                    match m.flatten() {
                        Ty::Union(inner) => {
                            for i in inner {
                                if !out.contains(&i) {
                                    out.push(i);
                                }
                            }
                        }
                        other => {
                            if !out.contains(&other) {
                                out.push(other);
                            }
                        }
                    }
                }
                if out.contains(&Ty::Any) {
                    return Ty::Any;
                }
                if out.len() == 1 {
                    out.pop().unwrap_or(Ty::Any)
                } else {
                    Ty::Union(out)
                }
            }
            other => other,
        }
    }

    /// Whether a value of this type can be generated at all.
    pub fn generatable(&self) -> bool {
        match self {
            Ty::Unsupported(_) => false,
            Ty::List(t) | Ty::Iterable(t) | Ty::TupleOf(t) | Ty::Set(t) | Ty::FrozenSet(t) => {
                t.generatable()
            }
            Ty::Tuple(ts) => ts.iter().all(Ty::generatable),
            Ty::Dict(k, v) => k.generatable() && v.generatable(),
            // A union is generatable when one member is; the others are dropped.
            Ty::Union(ts) => ts.iter().any(Ty::generatable),
            _ => true,
        }
    }

    /// The type with ungeneratable union members removed.
    #[must_use]
    pub fn prune(self) -> Ty {
        match self {
            Ty::Union(ts) => Ty::Union(
                ts.into_iter()
                    .filter(Ty::generatable)
                    .map(Ty::prune)
                    .collect(),
            )
            .flatten(),
            Ty::List(t) => Ty::List(Box::new(t.prune())),
            Ty::Iterable(t) => Ty::Iterable(Box::new(t.prune())),
            Ty::TupleOf(t) => Ty::TupleOf(Box::new(t.prune())),
            Ty::Set(t) => Ty::Set(Box::new(t.prune())),
            Ty::FrozenSet(t) => Ty::FrozenSet(Box::new(t.prune())),
            Ty::Tuple(ts) => Ty::Tuple(ts.into_iter().map(Ty::prune).collect()),
            Ty::Dict(k, v) => Ty::Dict(Box::new(k.prune()), Box::new(v.prune())),
            // An attribute or a key's value no literal can stand for is drawn as anything.
            Ty::Object(attrs) => Ty::Object(prune_fields(attrs)),
            Ty::Record(keys) => Ty::Record(prune_fields(keys)),
            other => other,
        }
    }
}

fn prune_fields(fields: Vec<(String, Ty)>) -> Vec<(String, Ty)> {
    fields
        .into_iter()
        .map(|(k, t)| (k, if t.generatable() { t.prune() } else { Ty::Any }))
        .collect()
}

impl Ty {
    /// The fields of an object (its attributes) or of a record (its keys), with their types.
    pub fn fields(&self) -> Option<&[(String, Ty)]> {
        match self {
            Ty::Object(f) | Ty::Record(f) => Some(f),
            _ => None,
        }
    }

    /// A value of this object or record type with these fields: an attribute bag or a dict
    /// (`None` for any other type).
    pub fn with_fields(&self, fields: Vec<(String, PyVal)>) -> Option<PyVal> {
        match self {
            Ty::Object(_) => Some(PyVal::Namespace(fields)),
            Ty::Record(_) => Some(PyVal::Dict(
                fields
                    .into_iter()
                    .map(|(k, v)| (PyVal::Str(k), v))
                    .collect(),
            )),
            _ => None,
        }
    }
}

/// The type of a value (a default, a constant the function compares with).
pub fn of_value(v: &PyVal) -> Ty {
    fn elem(items: &[PyVal]) -> Ty {
        items.first().map_or(Ty::Any, of_value)
    }
    match v {
        PyVal::None => Ty::NoneT,
        PyVal::Bool(_) => Ty::Bool,
        PyVal::Int(_) => Ty::Int,
        PyVal::Float(_) => Ty::Float,
        PyVal::Str(_) => Ty::Str,
        PyVal::Bytes(_) => Ty::Bytes,
        PyVal::List(v) => Ty::List(Box::new(elem(v))),
        PyVal::Iter(v) => Ty::Iterable(Box::new(elem(v))),
        PyVal::Tuple(v) if v.is_empty() => Ty::TupleOf(Box::new(Ty::Any)),
        PyVal::Tuple(v) => Ty::Tuple(v.iter().map(of_value).collect()),
        PyVal::Set(v) => Ty::Set(Box::new(elem(v))),
        PyVal::FrozenSet(v) => Ty::FrozenSet(Box::new(elem(v))),
        PyVal::Dict(kv) => kv.first().map_or_else(
            || Ty::Dict(Box::new(Ty::Str), Box::new(Ty::Any)),
            |(k, v)| Ty::Dict(Box::new(of_value(k)), Box::new(of_value(v))),
        ),
        PyVal::Callable(_) => Ty::Callable,
        PyVal::Std(t, _) => Ty::Std(*t),
        PyVal::Namespace(attrs) => Ty::Object(
            attrs
                .iter()
                .map(|(k, v)| (k.clone(), of_value(v)))
                .collect(),
        ),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Num(String),
    Open,
    Close,
    Comma,
    Pipe,
    Ellipsis,
    Minus,
}

fn tokenize(text: &str) -> Option<Vec<Tok>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | '\r' | '\\' => i += 1,
            '[' | '(' => {
                out.push(Tok::Open);
                i += 1;
            }
            ']' | ')' => {
                out.push(Tok::Close);
                i += 1;
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1;
            }
            '|' => {
                out.push(Tok::Pipe);
                i += 1;
            }
            '-' => {
                out.push(Tok::Minus);
                i += 1;
            }
            '.' if chars.get(i + 1) == Some(&'.') && chars.get(i + 2) == Some(&'.') => {
                out.push(Tok::Ellipsis);
                i += 3;
            }
            '"' | '\'' => {
                let q = c;
                let mut s = String::new();
                i += 1;
                while i < chars.len() && chars[i] != q {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        i += 1;
                    }
                    s.push(chars[i]);
                    i += 1;
                }
                i += 1;
                out.push(Tok::Str(s));
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                    i += 1;
                }
                out.push(Tok::Num(chars[start..i].iter().collect()));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
                {
                    i += 1;
                }
                out.push(Tok::Name(chars[start..i].iter().collect()));
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn union(&mut self) -> Option<Ty> {
        let mut members = vec![self.primary()?];
        while self.peek() == Some(&Tok::Pipe) {
            self.pos += 1;
            members.push(self.primary()?);
        }
        Some(Ty::Union(members).flatten())
    }

    /// `[a, b, ...]` after a name: the argument list.
    fn args(&mut self) -> Option<Vec<Ty>> {
        let mut out = Vec::new();
        if self.peek() != Some(&Tok::Open) {
            return Some(out);
        }
        self.pos += 1;
        loop {
            match self.peek() {
                Some(Tok::Close) => {
                    self.pos += 1;
                    return Some(out);
                }
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::Ellipsis) => {
                    self.pos += 1;
                    out.push(Ty::Unsupported("...".into()));
                }
                Some(Tok::Open) => {
                    // Callable's parameter list `[int, str]`: parsed and dropped.
                    self.pos += 1;
                    let mut inner = Vec::new();
                    while !matches!(self.peek(), Some(Tok::Close) | None) {
                        if self.peek() == Some(&Tok::Comma) {
                            self.pos += 1;
                            continue;
                        }
                        inner.push(self.union()?);
                    }
                    self.pos += 1;
                    out.push(Ty::Tuple(inner));
                }
                None => return None,
                _ => out.push(self.union()?),
            }
        }
    }

    /// The values of `Literal[...]`.
    fn literal_args(&mut self) -> Option<Vec<PyVal>> {
        if self.next()? != Tok::Open {
            return None;
        }
        let mut out = Vec::new();
        let mut negative = false;
        loop {
            match self.next()? {
                Tok::Close => return Some(out),
                Tok::Comma => {}
                Tok::Minus => negative = true,
                Tok::Str(s) => out.push(PyVal::Str(s)),
                Tok::Num(n) => {
                    let v = if let Ok(i) = n.parse::<i128>() {
                        PyVal::Int(if negative { -i } else { i })
                    } else {
                        let f: f64 = n.parse().ok()?;
                        PyVal::Float(if negative { -f } else { f })
                    };
                    negative = false;
                    out.push(v);
                }
                Tok::Name(n) => out.push(match n.as_str() {
                    "None" => PyVal::None,
                    "True" => PyVal::Bool(true),
                    "False" => PyVal::Bool(false),
                    _ => return None,
                }),
                _ => return None,
            }
        }
    }

    fn primary(&mut self) -> Option<Ty> {
        self.depth += 1;
        if self.depth > 40 {
            return None;
        }
        let t = match self.next()? {
            Tok::Str(inner) => parse_annotation(&inner),
            Tok::Num(_) | Tok::Minus | Tok::Ellipsis => Ty::Unsupported("value".into()),
            Tok::Name(name) => {
                let short = name.rsplit('.').next().unwrap_or(&name).to_string();
                if short == "Literal" {
                    let vals = self.literal_args()?;
                    self.depth -= 1;
                    return Some(Ty::Literal(vals));
                }
                let args = self.args()?;
                named(&short, args)
            }
            _ => return None,
        };
        self.depth -= 1;
        Some(t)
    }
}

#[allow(clippy::unnecessary_box_returns)] // every caller stores it in a `Box`
fn arg(args: &[Ty], i: usize) -> Box<Ty> {
    Box::new(match args.get(i) {
        Some(Ty::Unsupported(s)) if s == "..." => Ty::Any,
        Some(t) => t.clone(),
        None => Ty::Any,
    })
}

/// A type name (its last dotted part) with its arguments.
fn named(name: &str, args: Vec<Ty>) -> Ty {
    match name {
        "int" | "SupportsInt" | "SupportsIndex" | "Integral" => Ty::Int,
        "float" | "SupportsFloat" | "Real" | "Number" => Ty::Union(vec![Ty::Float, Ty::Int]),
        "str" | "Text" | "AnyStr" | "LiteralString" => Ty::Str,
        "bytes" | "ByteString" => Ty::Bytes,
        "bool" => Ty::Bool,
        "None" | "NoneType" => Ty::NoneT,
        "Any" | "object" => Ty::Any,
        "Hashable" => Ty::Union(vec![Ty::Int, Ty::Str]),
        "Sized" => Ty::Union(vec![Ty::List(Box::new(Ty::Any)), Ty::Str]),
        "list" | "List" | "Sequence" | "MutableSequence" | "Collection" | "Reversible"
        | "Container" => Ty::List(arg(&args, 0)),
        "Iterable" | "Iterator" | "Generator" => Ty::Iterable(arg(&args, 0)),
        "tuple" | "Tuple" => {
            if args.len() == 2 && matches!(&args[1], Ty::Unsupported(s) if s == "...") {
                Ty::TupleOf(arg(&args, 0))
            } else if args.is_empty() {
                Ty::TupleOf(Box::new(Ty::Any))
            } else {
                Ty::Tuple(args)
            }
        }
        "dict" | "Dict" | "Mapping" | "MutableMapping" | "OrderedDict" => {
            Ty::Dict(arg(&args, 0), arg(&args, 1))
        }
        "set" | "Set" | "AbstractSet" | "MutableSet" => Ty::Set(arg(&args, 0)),
        "frozenset" | "FrozenSet" => Ty::FrozenSet(arg(&args, 0)),
        "Optional" => Ty::optional(*arg(&args, 0)),
        "Union" => Ty::Union(args).flatten(),
        "Callable" => Ty::Callable,
        "datetime" => Ty::Std(StdType::DateTime),
        "date" => Ty::Std(StdType::Date),
        "time" => Ty::Std(StdType::Time),
        "timedelta" => Ty::Std(StdType::TimeDelta),
        // The one concrete time zone the worker builds stands for any `tzinfo`.
        "timezone" | "tzinfo" => Ty::Std(StdType::TimeZone),
        "Decimal" => Ty::Std(StdType::Decimal),
        "Fraction" => Ty::Std(StdType::Fraction),
        // Pure path operations only: a function that touches the file system is not a
        // candidate (classify), so the pure flavour stands for `Path` too.
        "PurePosixPath" | "PurePath" | "Path" | "PosixPath" => Ty::Std(StdType::PurePosixPath),
        // `re.Pattern`, `typing.Pattern[str]`: a compiled str pattern.
        "Pattern" => Ty::Std(StdType::Pattern),
        "Annotated" | "Final" | "ClassVar" | "Required" | "NotRequired" => *arg(&args, 0),
        // Type variables (`T`, `KT`) and `TypeVar`-like names stand for anything.
        n if n.len() <= 2 && n.chars().all(|c| c.is_ascii_uppercase()) => Ty::Any,
        other => Ty::Unsupported(other.to_string()),
    }
}

/// The type an annotation's source text names; [`Ty::Unsupported`] for what no literal
/// can stand for, [`Ty::Any`] when the text is not a type expression at all.
pub fn parse_annotation(text: &str) -> Ty {
    let Some(toks) = tokenize(text) else {
        return Ty::Any;
    };
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    match p.union() {
        Some(t) if p.pos == p.toks.len() => t,
        _ => Ty::Any,
    }
}

/// The type named by a docstring's type words (`int`, `list of str`, `str or None`,
/// `iterable`, `callable`, `dict`); `None` when the words name no type this knows.
pub fn from_doc_words(words: &str) -> Option<Ty> {
    let lower = words.trim().trim_end_matches(['.', ',']).to_lowercase();
    if lower.is_empty() {
        return None;
    }
    // `str or None`, `int, optional`, `list | tuple`.
    let mut optional = false;
    let mut members = Vec::new();
    for part in lower
        .split(" or ")
        .flat_map(|p| p.split('|'))
        .flat_map(|p| p.split(','))
    {
        let part = part.trim();
        if part == "optional" {
            optional = true;
            continue;
        }
        if part == "none" {
            members.push(Ty::NoneT);
            continue;
        }
        if part.is_empty() {
            continue;
        }
        members.push(doc_word(part)?);
    }
    if members.is_empty() {
        return None;
    }
    let t = Ty::Union(members).flatten();
    Some(if optional { Ty::optional(t) } else { t })
}

fn doc_word(part: &str) -> Option<Ty> {
    // `list of str`, `list[int]`, `sequence of ints`.
    if let Some((outer, inner)) = part.split_once(" of ") {
        let inner_ty = doc_word(inner.trim_end_matches('s')).unwrap_or(Ty::Any);
        return Some(match doc_word(outer)? {
            Ty::List(_) => Ty::List(Box::new(inner_ty)),
            Ty::Iterable(_) => Ty::Iterable(Box::new(inner_ty)),
            Ty::TupleOf(_) => Ty::TupleOf(Box::new(inner_ty)),
            Ty::Set(_) => Ty::Set(Box::new(inner_ty)),
            Ty::Dict(k, _) => Ty::Dict(k, Box::new(inner_ty)),
            other => other,
        });
    }
    if part.contains('[') {
        return match parse_annotation(part) {
            Ty::Unsupported(_) | Ty::Any => None,
            t => Some(t),
        };
    }
    let word = part.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
    Some(match word {
        "int" | "integer" | "ints" | "integers" => Ty::Int,
        "float" | "floats" | "number" | "numbers" | "real" | "numeric" => {
            Ty::Union(vec![Ty::Float, Ty::Int])
        }
        "str" | "string" | "strings" | "text" | "unicode" => Ty::Str,
        "bytes" => Ty::Bytes,
        "bool" | "boolean" => Ty::Bool,
        "list" | "lists" | "sequence" | "array" | "collection" => Ty::List(Box::new(Ty::Any)),
        "iterable" | "iterables" | "iterator" => Ty::Iterable(Box::new(Ty::Any)),
        "tuple" | "tuples" => Ty::TupleOf(Box::new(Ty::Any)),
        "dict" | "dictionary" | "mapping" | "map" => Ty::Dict(Box::new(Ty::Str), Box::new(Ty::Any)),
        "set" | "sets" => Ty::Set(Box::new(Ty::Any)),
        "frozenset" => Ty::FrozenSet(Box::new(Ty::Any)),
        "callable" | "function" | "func" => Ty::Callable,
        "datetime" => Ty::Std(StdType::DateTime),
        "timedelta" => Ty::Std(StdType::TimeDelta),
        "decimal" => Ty::Std(StdType::Decimal),
        "fraction" => Ty::Std(StdType::Fraction),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_take_the_type_and_the_shape_their_uses_give() {
        let codec = Ty::Text(Shape::Encoding);
        let list = |t: Ty| Ty::List(Box::new(t));
        assert_eq!(list(Ty::Any).with_item(&Ty::Int), list(Ty::Int));
        assert_eq!(list(Ty::Str).with_item(&codec), list(codec.clone()));
        assert_eq!(
            Ty::optional(list(Ty::Str)).with_item(&codec),
            Ty::optional(list(codec.clone()))
        );
        // Typed items keep their type.
        assert_eq!(list(Ty::Int).with_item(&codec), list(Ty::Int));
    }

    #[test]
    fn annotations() {
        assert_eq!(parse_annotation("int"), Ty::Int);
        assert_eq!(
            parse_annotation("Optional[List[str]]"),
            Ty::Union(vec![Ty::List(Box::new(Ty::Str)), Ty::NoneT])
        );
        assert_eq!(
            parse_annotation("list[int] | None"),
            Ty::Union(vec![Ty::List(Box::new(Ty::Int)), Ty::NoneT])
        );
        assert_eq!(
            parse_annotation("typing.Tuple[int, ...]"),
            Ty::TupleOf(Box::new(Ty::Int))
        );
        assert_eq!(
            parse_annotation("Dict[str, 'Tuple[int, str]']"),
            Ty::Dict(
                Box::new(Ty::Str),
                Box::new(Ty::Tuple(vec![Ty::Int, Ty::Str]))
            )
        );
        assert_eq!(
            parse_annotation("Literal['a', -1, None]"),
            Ty::Literal(vec![PyVal::Str("a".into()), PyVal::Int(-1), PyVal::None])
        );
        assert_eq!(parse_annotation("Callable[[int, str], bool]"), Ty::Callable);
        assert_eq!(
            parse_annotation("re.Pattern[str]"),
            Ty::Std(StdType::Pattern)
        );
        assert_eq!(
            parse_annotation("re.Match"),
            Ty::Unsupported("Match".into())
        );
        assert_eq!(parse_annotation("T"), Ty::Any);
        assert_eq!(
            parse_annotation("Optional[datetime.date]"),
            Ty::Union(vec![Ty::Std(StdType::Date), Ty::NoneT])
        );
        assert_eq!(
            parse_annotation("Union[int, Decimal]"),
            Ty::Union(vec![Ty::Int, Ty::Std(StdType::Decimal)])
        );
        assert_eq!(parse_annotation("what is this?"), Ty::Any);
    }

    #[test]
    fn doc_words() {
        assert_eq!(from_doc_words("int"), Some(Ty::Int));
        assert_eq!(
            from_doc_words("list of str"),
            Some(Ty::List(Box::new(Ty::Str)))
        );
        assert_eq!(
            from_doc_words("str, optional"),
            Some(Ty::Union(vec![Ty::Str, Ty::NoneT]))
        );
        assert_eq!(from_doc_words("a widget"), None);
    }
}
