//! proptest strategies for a parameter's [`Ty`], seeded with the constants the function
//! holds ([`Pool`]), and the edge values tried before any random input ([`edges`]).

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Just, Union};

use crate::pyval::{PyVal, StdType};
use crate::types::{Shape, Ty};
use crate::usage::Constants;

/// Builtin callables a parameter that is called can be given (the worker accepts these
/// names as arguments; see `execution::Call::args`).
pub const CALLABLES: &[&str] = &[
    "str",
    "len",
    "abs",
    "bool",
    "repr",
    "sorted",
    "list",
    "int",
    "tuple",
    "max",
    "operator.add",
    "operator.mul",
    "operator.lt",
    "operator.not_",
];

/// Exception classes a parameter that is raised or caught can be given.
pub const EXCEPTIONS: &[&str] = &[
    "ValueError",
    "KeyError",
    "TypeError",
    "IndexError",
    "RuntimeError",
];

/// Values mined from the function: what it compares with, searches for, slices by.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    pub ints: Vec<i128>,
    pub floats: Vec<f64>,
    pub strs: Vec<String>,
    pub bytes: Vec<Vec<u8>>,
    /// The function asks about characters' Unicode properties (`unicodedata`): its text
    /// is drawn with many more characters of odd classes (wide, combining, unnamed,
    /// zero-width), and often one character alone.
    pub unicode: bool,
    /// The function splits its text into lines (`.splitlines()`, `.split("\n")`): text of
    /// several lines of words and short constants is drawn (`name : a b` then `| c`).
    pub lines: bool,
    /// The regular expressions the function matches its text against, parsed: text that
    /// matches them, alone or inside other text, is drawn (those that do not parse are
    /// left out).
    pub regexes: Vec<regex_syntax::hir::Hir>,
}

/// Characters of the Unicode classes code branches on: accented and other scripts, wide and
/// full-width (`east_asian_width` W and F), combining marks, zero-width ones, a control
/// and an unassigned code point (no name), an emoji.
pub(crate) const ODD_CHARS: &[char] = &[
    'é', 'ß', 'Ω', '漢', '😀', '\u{0}', '\u{301}', 'Ａ', 'ｶ', '\u{3000}', '\u{200b}', '\u{200d}',
    '\u{308}', '\u{1b}', '\u{378}', 'ـ', '\u{fe0f}', 'ㄱ',
];
/// Characters of each Unicode general category (`unicodedata.category`), two each where
/// the category has them in the Basic Multilingual Plane: code that compares a category
/// with a name (`== "Lm"`, `.startswith("M")`) is drawn characters of it.
const CATEGORY_CHARS: &[(&str, &[char])] = &[
    ("Lu", &['A', 'Ω']),
    ("Ll", &['a', 'ß']),
    ("Lt", &['ǅ', 'ᾈ']),
    ("Lm", &['ʰ', 'ـ']),
    ("Lo", &['漢', 'ㄱ']),
    ("Mn", &['\u{301}', '\u{308}']),
    ("Mc", &['\u{903}', '\u{93e}']),
    ("Me", &['\u{20dd}', '\u{488}']),
    ("Nd", &['7', '٣']),
    ("Nl", &['Ⅻ', '〇']),
    ("No", &['½', '²']),
    ("Pc", &['_', '‿']),
    ("Pd", &['-', '—']),
    ("Ps", &['(', '「']),
    ("Pe", &[')', '」']),
    ("Pi", &['«', '“']),
    ("Pf", &['»', '”']),
    ("Po", &['!', '、']),
    ("Sm", &['+', '∑']),
    ("Sc", &['$', '€']),
    ("Sk", &['^', '`']),
    ("So", &['©', '°']),
    ("Zs", &[' ', '\u{3000}']),
    ("Zl", &['\u{2028}']),
    ("Zp", &['\u{2029}']),
    ("Cc", &['\u{1b}', '\u{7f}']),
    ("Cf", &['\u{200b}', '\u{ad}']),
    ("Co", &['\u{e000}']),
    ("Cn", &['\u{378}', '\u{fdd0}']),
];

/// The characters of the general categories the function's strings name, whole (`"Lm"`)
/// or by their first letter (`"M"`), when it asks about characters' properties.
fn category_chars(pool: &Pool) -> Vec<char> {
    if !pool.unicode {
        return Vec::new();
    }
    let mut out: Vec<char> = Vec::new();
    for s in &pool.strs {
        for (name, chars) in CATEGORY_CHARS {
            let named = *name == s.as_str() || (s.len() == 1 && name.starts_with(s.as_str()));
            if named {
                for &c in *chars {
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

/// How many of [`ODD_CHARS`], from the first, any code's text is drawn with now and then.
const EVERYDAY_ODD_CHARS: usize = 7;

impl Pool {
    /// The integer constants that could be lengths (1 to 64): text and bytes of exactly
    /// that many items are drawn.
    fn lengths(&self) -> Vec<usize> {
        self.ints
            .iter()
            .filter(|&&i| (1..=64).contains(&i))
            .map(|&i| i as usize)
            .collect()
    }

    /// The pool of a function's constants: each integer with its neighbours (a bound and
    /// the values just beside it); a whole float too (`n < 1e6` asks integers about it).
    pub fn from_constants(c: &Constants) -> Pool {
        let whole = c
            .floats
            .iter()
            .filter(|f| f.fract() == 0.0 && f.abs() < 1e18)
            .map(|&f| f as i128);
        let mut ints = Vec::new();
        for i in c.ints.iter().copied().chain(whole).take(24) {
            for j in [i, i - 1, i + 1] {
                if !ints.contains(&j) {
                    ints.push(j);
                }
            }
        }
        Pool {
            ints,
            floats: c.floats.iter().copied().take(16).collect(),
            strs: c.strs.iter().take(32).cloned().collect(),
            bytes: c.bytes.iter().take(16).cloned().collect(),
            unicode: false,
            lines: false,
            regexes: c
                .regexes
                .iter()
                .filter_map(|r| crate::regex_text::parse(r))
                .collect(),
        }
    }
}

fn int_strategy(pool: &Pool) -> BoxedStrategy<PyVal> {
    let mut arms: Vec<(u32, BoxedStrategy<i128>)> = vec![
        (6, (-10i64..=100).prop_map(i128::from).boxed()),
        (2, (-100_000i64..=100_000).prop_map(i128::from).boxed()),
        (1, any::<i64>().prop_map(i128::from).boxed()),
    ];
    if !pool.ints.is_empty() {
        arms.push((5, proptest::sample::select(pool.ints.clone()).boxed()));
    }
    Union::new_weighted(arms).prop_map(PyVal::Int).boxed()
}

fn float_strategy(pool: &Pool) -> BoxedStrategy<PyVal> {
    let mut arms: Vec<(u32, BoxedStrategy<f64>)> = vec![
        (5, (-100.0f64..100.0).boxed()),
        (2, (-10i32..=10).prop_map(f64::from).boxed()),
        (1, (-1e12f64..1e12).boxed()),
        (
            1,
            proptest::sample::select(vec![0.0, -0.0, 0.5, 1e-9, 1e300, -1e300, f64::MIN_POSITIVE])
                .boxed(),
        ),
        (
            1,
            proptest::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY]).boxed(),
        ),
    ];
    let mut consts: Vec<f64> = pool.floats.clone();
    consts.extend(pool.ints.iter().map(|&i| i as f64));
    if !consts.is_empty() {
        arms.push((4, proptest::sample::select(consts).boxed()));
    }
    Union::new_weighted(arms).prop_map(PyVal::Float).boxed()
}

fn char_strategy(pool: &Pool) -> BoxedStrategy<char> {
    let mut arms: Vec<(u32, BoxedStrategy<char>)> = vec![
        (8, proptest::char::range('a', 'z').boxed()),
        (2, proptest::char::range('A', 'Z').boxed()),
        (2, proptest::char::range('0', '9').boxed()),
        (
            3,
            proptest::sample::select(vec![
                ' ', ',', '.', '-', '_', '/', ':', '\n', '\t', '\'', '"',
            ])
            .boxed(),
        ),
        (
            if pool.unicode { 8 } else { 1 },
            proptest::sample::select(if pool.unicode {
                ODD_CHARS
            } else {
                &ODD_CHARS[..EVERYDAY_ODD_CHARS]
            })
            .boxed(),
        ),
    ];
    let from_pool: Vec<char> = pool.strs.iter().flat_map(|s| s.chars()).take(64).collect();
    if !from_pool.is_empty() {
        arms.push((4, proptest::sample::select(from_pool).boxed()));
    }
    let named = category_chars(pool);
    if !named.is_empty() {
        arms.push((8, proptest::sample::select(named).boxed()));
    }
    Union::new_weighted(arms).boxed()
}

/// Words shared by generated keys, paths and texts, so that a path can name a key of a
/// generated document and a word can appear in two arguments.
const WORDS: &[&str] = &[
    "a",
    "b",
    "x",
    "key",
    "name",
    "0",
    "1",
    "foo",
    "Bar",
    "hello world",
];

const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Text with a shape programs parse: numbers, dates, words, `key=value` lists, JSON,
/// dotted paths, identifiers.
fn shaped_str() -> BoxedStrategy<String> {
    let word = proptest::sample::select(WORDS.to_vec());
    Union::new_weighted(vec![
        (3, (-1000i64..1000).prop_map(|i| i.to_string()).boxed()),
        (
            2,
            (-1000.0f64..1000.0).prop_map(|f| format!("{f:.2}")).boxed(),
        ),
        (3, date_str()),
        (
            2,
            proptest::collection::vec(word.clone(), 1..5)
                .prop_map(|w| w.join(" "))
                .boxed(),
        ),
        (
            2,
            proptest::collection::vec((word.clone(), -5i32..50), 1..4)
                .prop_map(|kv| {
                    kv.iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .boxed(),
        ),
        (
            2,
            proptest::collection::vec(word.clone(), 1..4)
                .prop_map(|w| w.join("."))
                .boxed(),
        ),
        (3, json_value(2, &[]).prop_map(|v| v.to_string()).boxed()),
        (
            1,
            proptest::collection::vec(word, 1..4)
                .prop_map(|w| w.join("_").replace(' ', "_"))
                .boxed(),
        ),
    ])
    .boxed()
}

/// A date or a time as programs write them: ISO dates, day-first and month-name dates, ISO
/// date-times with `T` or a space, a `Z`, an offset or fractional seconds, and times alone
/// (`fromisoformat` and RFC 3339 parsers branch on each); a month, day or hour one past the
/// last now and then.
fn date_str() -> BoxedStrategy<String> {
    (
        (1900u32..2100, 1u32..=13, 1u32..=32),
        (0u32..=24, 0u32..60, 0u32..=60),
        (-12i32..=14, 0u32..1_000_000),
        0u8..10,
    )
        .prop_map(|((y, m, d), (h, mi, sec), (off, frac), style)| {
            let date = format!("{y:04}-{m:02}-{d:02}");
            let time = format!("{h:02}:{mi:02}:{sec:02}");
            let sign = if off < 0 { '-' } else { '+' };
            match style {
                0 | 1 => date,
                2 => format!("{d:02}/{m:02}/{y:04}"),
                3 => format!("{} {d}, {y}", MONTHS[(m as usize - 1) % 12]),
                4 => format!("{date}T{time}"),
                5 => format!("{date}T{time}Z"),
                6 => format!("{date}T{time}{sign}{:02}:00", off.unsigned_abs()),
                7 => format!("{date} {time}.{frac:06}"),
                8 => format!("{date}T{time}.{:03}z", frac % 1000),
                _ => time,
            }
        })
        .boxed()
}

/// Text of one shape, now and then any text (the parse failing is behaviour too).
fn text_strategy(shape: Shape, pool: &Pool) -> BoxedStrategy<PyVal> {
    let shaped = match shape {
        Shape::Percent
        | Shape::Url
        | Shape::Html
        | Shape::Base64
        | Shape::Hex
        | Shape::Ip
        | Shape::Uuid
        | Shape::Char
        | Shape::Encoding => crate::shapes::strategy(shape).unwrap_or_else(|| str_strategy(pool)),
        Shape::Json => json_value(3, &pool.strs)
            .prop_map(|v| v.to_string())
            .boxed(),
        Shape::Date => date_str(),
        Shape::Number => Union::new_weighted(vec![
            (3, (-1000i64..1000).prop_map(|i| i.to_string()).boxed()),
            (
                2,
                (-1000.0f64..1000.0).prop_map(|f| format!("{f:.3}")).boxed(),
            ),
            (1, (-1000i64..1000).prop_map(|i| format!(" {i} ")).boxed()),
            (
                1,
                (0i64..100_000)
                    .prop_map(|i| format!("{}_{:03}", i / 1000, i % 1000))
                    .boxed(),
            ),
        ])
        .boxed(),
    };
    Union::new_weighted(vec![(4, shaped), (1, str_strategy(pool))])
        .prop_map(PyVal::Str)
        .boxed()
}

/// A small JSON document: keys and words from [`WORDS`] and, more often, from the
/// function's own string constants (`own`), which are what its code looks up in the
/// parsed document (`if '__decimal__' in dct`).
fn json_value(depth: u32, own: &[String]) -> BoxedStrategy<serde_json::Value> {
    let words: BoxedStrategy<String> = {
        let common = proptest::sample::select(WORDS.to_vec())
            .prop_map(str::to_string)
            .boxed();
        let own: Vec<String> = own
            .iter()
            .filter(|s| !s.is_empty() && s.chars().count() <= 40)
            .cloned()
            .collect();
        if own.is_empty() {
            common
        } else {
            Union::new_weighted(vec![
                (2, proptest::sample::select(own).boxed()),
                (1, common),
            ])
            .boxed()
        }
    };
    let leaf = Union::new_weighted(vec![
        (3, (-100i64..100).prop_map(serde_json::Value::from).boxed()),
        (2, words.clone().prop_map(serde_json::Value::from).boxed()),
        (1, any::<bool>().prop_map(serde_json::Value::from).boxed()),
        (1, Just(serde_json::Value::Null).boxed()),
        (
            1,
            (-10.0f64..10.0).prop_map(serde_json::Value::from).boxed(),
        ),
    ])
    .boxed();
    if depth == 0 {
        return leaf;
    }
    let inner = json_value(depth - 1, own);
    Union::new_weighted(vec![
        (2, leaf),
        (
            3,
            proptest::collection::vec((words, inner.clone()), 0..4)
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect()))
                .boxed(),
        ),
        (
            2,
            proptest::collection::vec(inner, 0..4)
                .prop_map(serde_json::Value::Array)
                .boxed(),
        ),
    ])
    .boxed()
}

fn str_strategy(pool: &Pool) -> BoxedStrategy<String> {
    let plain = plain_str_strategy(pool);
    if pool.regexes.is_empty() {
        return plain;
    }
    // Text of the function's own patterns: alone, followed by other text (what `match`
    // accepts and `fullmatch` refuses), or after it (what `search` finds).
    let matching = Union::new(pool.regexes.iter().map(crate::regex_text::strategy)).boxed();
    let mut arms = vec![
        (5, plain.clone()),
        (6, matching.clone()),
        (
            2,
            (matching.clone(), plain.clone())
                .prop_map(|(a, b)| a + &b)
                .boxed(),
        ),
        (1, (plain, matching).prop_map(|(a, b)| a + &b).boxed()),
    ];
    if pool.regexes.len() > 1 {
        // Text that every pattern finds, one after another (`re.search(r'width (\d+)', s)`
        // and then `re.search(r'height (\d+)', s)`, each `.group(1)` raising on `None`
        // unless both are there), on one line or on lines of their own.
        let all: Vec<BoxedStrategy<String>> = pool
            .regexes
            .iter()
            .map(crate::regex_text::strategy)
            .collect();
        arms.push((
            4,
            (all, proptest::sample::select(vec![" ", "\n", ""]))
                .prop_map(|(parts, sep)| parts.join(sep))
                .boxed(),
        ));
    }
    Union::new_weighted(arms).boxed()
}

fn plain_str_strategy(pool: &Pool) -> BoxedStrategy<String> {
    let chars = proptest::collection::vec(char_strategy(pool), 0..12)
        .prop_map(|cs| cs.into_iter().collect::<String>())
        .boxed();
    let mut arms = vec![(3, chars), (2, shaped_str())];
    if pool.unicode {
        arms.push((3, char_strategy(pool).prop_map(String::from).boxed()));
    }
    // Lengths the function checks for (`len(x) != 12`): text of exactly that many characters.
    let lengths = pool.lengths();
    if !lengths.is_empty() {
        let cs = char_strategy(pool);
        arms.push((
            2,
            proptest::sample::select(lengths)
                .prop_flat_map(move |n| proptest::collection::vec(cs.clone(), n))
                .prop_map(|cs| cs.into_iter().collect::<String>())
                .boxed(),
        ));
    }
    let random = Union::new_weighted(arms).boxed();
    if pool.strs.is_empty() {
        return random;
    }
    let consts = pool.strs.clone();
    let pieces = proptest::sample::select(consts.clone());
    let pairs = bracket_pairs(pool);
    let mut arms: Vec<(u32, BoxedStrategy<String>)> = Vec::new();
    if !pairs.is_empty() {
        // Brackets the function looks for, around text that may hold one of its constants
        // or brackets of their own: `a (b superseded) c`, `[x [y] z]`. Parsers branch on
        // what stands between an opening and its closing, and random text seldom has both
        // in order.
        let words: Vec<String> = consts
            .iter()
            .filter(|c| c.chars().any(char::is_alphanumeric))
            .cloned()
            .collect();
        let words = proptest::sample::select(if words.is_empty() {
            consts.clone()
        } else {
            words
        });
        let inner = Union::new_weighted(vec![
            (2, random.clone()),
            (
                3,
                (random.clone(), words, random.clone())
                    .prop_map(|(a, b, c)| format!("{a} {b}{c}"))
                    .boxed(),
            ),
        ])
        .boxed();
        let pair = proptest::sample::select(pairs);
        let bracketed = (pair.clone(), inner.clone())
            .prop_map(|((o, c), t)| format!("{o}{t}{c}"))
            .boxed();
        let nested = (pair, inner.clone(), bracketed.clone(), inner)
            .prop_map(|((o, c), a, b, d)| format!("{o}{a}{b}{d}{c}"))
            .boxed();
        arms.push((
            3,
            (
                random.clone(),
                Union::new_weighted(vec![(3, bracketed), (1, nested)]),
                random.clone(),
            )
                .prop_map(|(a, b, c)| format!("{a}{b}{c}"))
                .boxed(),
        ));
    }
    // Runs of the characters of a short constant (`in " \t"`, `.strip(" \t")`: the set
    // of characters the code skips or splits on) between other constants and words:
    // `a\n  `, ` \n\tx`. A constant says which characters matter; how many of them stand
    // together (one space, two, a tab) is what the branches count.
    let sets: Vec<Vec<char>> = consts
        .iter()
        .map(|c| c.chars().collect::<Vec<char>>())
        .filter(|cs| (1..=8).contains(&cs.len()))
        .collect();
    if !sets.is_empty() {
        let run = proptest::sample::select(sets)
            .prop_flat_map(|cs| proptest::collection::vec(proptest::sample::select(cs), 1..=3))
            .prop_map(|cs| cs.into_iter().collect::<String>())
            .boxed();
        let word = proptest::sample::select(WORDS.to_vec())
            .prop_map(str::to_string)
            .boxed();
        let segment = Union::new_weighted(vec![(3, run), (2, pieces.clone().boxed()), (2, word)]);
        arms.push((
            3,
            proptest::collection::vec(segment, 1..6)
                .prop_map(|v| v.concat())
                .boxed(),
        ));
    }
    // Lines of words and short constants, for code that reads text line by line and each
    // line by its whitespace-separated tokens (a grammar's `name : a b`, then `| c`).
    let tokens: Vec<String> = consts
        .iter()
        .filter(|c| (1..=8).contains(&c.chars().count()) && !c.chars().any(char::is_whitespace))
        .cloned()
        .collect();
    if pool.lines && !tokens.is_empty() {
        let constant = proptest::sample::select(tokens.clone());
        let token = Union::new_weighted(vec![
            (3, proptest::sample::select(tokens).boxed()),
            (
                2,
                proptest::sample::select(WORDS.to_vec())
                    .prop_map(str::to_string)
                    .boxed(),
            ),
        ]);
        let rest = proptest::collection::vec(token, 0..4).prop_map(|t| t.join(" "));
        let word = proptest::sample::select(WORDS.to_vec());
        // A line of tokens, one led by a constant (`| c`), one whose second token is a
        // constant (`name : a b`, `key = value`), or a blank one.
        let line = Union::new_weighted(vec![
            (2, rest.clone().boxed()),
            (
                3,
                (constant.clone(), rest.clone())
                    .prop_map(|(c, r)| format!("{c} {r}"))
                    .boxed(),
            ),
            (
                3,
                (word, constant, rest)
                    .prop_map(|(w, c, r)| format!("{w} {c} {r}"))
                    .boxed(),
            ),
            (1, Just(String::new()).boxed()),
        ]);
        arms.push((
            8,
            proptest::collection::vec(line, 1..5)
                .prop_map(|ls| ls.join("\n"))
                .boxed(),
        ));
    }
    // Text between two of one constant (`/pattern/`, `*word*`, `'quoted'`), or ended by one
    // (`/pattern/i` is that and more): markup and literal syntax open and close with the
    // same mark, and code looks for the last one (`s.rfind('/')`, `endswith`).
    let short: Vec<String> = consts
        .iter()
        .filter(|c| (1..=3).contains(&c.chars().count()))
        .cloned()
        .collect();
    if !short.is_empty() {
        let mark = proptest::sample::select(short.clone());
        // After the closing mark: nothing, letters, or another of the short constants
        // (`/x/i` with `i` a key of the flags' table).
        let letters = Union::new_weighted(vec![
            (
                2,
                proptest::collection::vec(proptest::char::range('a', 'z'), 0..3)
                    .prop_map(|cs| cs.into_iter().collect::<String>())
                    .boxed(),
            ),
            (1, proptest::sample::select(short).boxed()),
        ]);
        arms.push((
            3,
            (mark, random.clone(), letters)
                .prop_map(|(m, t, tail)| format!("{m}{t}{m}{tail}"))
                .boxed(),
        ));
    }
    arms.extend(vec![
        (5, random.clone()),
        (3, proptest::sample::select(consts).boxed()),
        // A constant inside other text: `prefix + "needle" + suffix`.
        (
            3,
            (random.clone(), pieces.clone(), random)
                .prop_map(|(a, b, c)| format!("{a}{b}{c}"))
                .boxed(),
        ),
        // Constants joined, as separators and keywords often are.
        (
            2,
            proptest::collection::vec(pieces.clone(), 1..4)
                .prop_map(|v| v.concat())
                .boxed(),
        ),
        // Words and numbers with constants between them: `a=1;b=2`, `x: 3, y: 4`.
        (
            4,
            (
                proptest::collection::vec(
                    (
                        Union::new_weighted(vec![
                            (
                                2,
                                proptest::sample::select(WORDS.to_vec())
                                    .prop_map(str::to_string)
                                    .boxed(),
                            ),
                            (2, (-20i32..100).prop_map(|i| i.to_string()).boxed()),
                        ]),
                        pieces,
                    ),
                    1..5,
                ),
                any::<bool>(),
            )
                .prop_map(|(v, end)| {
                    // Ended by a constant (`a=1;`) or by a word (`1-5`, `a=1;b=2`).
                    let last = v.len() - 1;
                    v.into_iter()
                        .enumerate()
                        .fold(String::new(), |mut out, (i, (w, c))| {
                            out.push_str(&w);
                            if end || i < last {
                                out.push_str(&c);
                            }
                            out
                        })
                })
                .boxed(),
        ),
    ]);
    Union::new_weighted(arms).boxed()
}

/// The pairs of brackets (and quotes) whose both characters the function's strings hold.
fn bracket_pairs(pool: &Pool) -> Vec<(char, char)> {
    let has = |c: char| pool.strs.iter().any(|s| s.contains(c));
    [
        ('(', ')'),
        ('[', ']'),
        ('{', '}'),
        ('<', '>'),
        ('"', '"'),
        ('\'', '\''),
        ('`', '`'),
    ]
    .into_iter()
    .filter(|&(o, c)| has(o) && has(c))
    .collect()
}

fn bytes_strategy(pool: &Pool) -> BoxedStrategy<PyVal> {
    let random = proptest::collection::vec(any::<u8>(), 0..12).boxed();
    let ascii = str_strategy(pool).prop_map(String::into_bytes).boxed();
    let mut arms = vec![(3, random), (3, ascii)];
    // Lengths the function checks for or unpacks (`struct.unpack('>6B', b)`).
    let lengths = pool.lengths();
    if !lengths.is_empty() {
        arms.push((
            2,
            proptest::sample::select(lengths)
                .prop_flat_map(|n| proptest::collection::vec(any::<u8>(), n))
                .boxed(),
        ));
    }
    if !pool.bytes.is_empty() {
        arms.push((3, proptest::sample::select(pool.bytes.clone()).boxed()));
    }
    Union::new_weighted(arms).prop_map(PyVal::Bytes).boxed()
}

/// Elements of a container whose element type is unknown: containers are homogeneous far
/// more often than not, so one element kind is picked per container.
fn any_list(pool: &Pool, depth: u32) -> BoxedStrategy<Vec<PyVal>> {
    let n = 0..6usize;
    Union::new_weighted(vec![
        (
            4,
            proptest::collection::vec(int_strategy(pool), n.clone()).boxed(),
        ),
        (
            3,
            proptest::collection::vec(str_strategy(pool).prop_map(PyVal::Str), n.clone()).boxed(),
        ),
        (
            1,
            proptest::collection::vec(strategy(&Ty::List(Box::new(Ty::Int)), pool, depth + 1), n)
                .boxed(),
        ),
    ])
    .boxed()
}

fn dedup_keys(kv: Vec<(PyVal, PyVal)>) -> Vec<(PyVal, PyVal)> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (k, v) in kv {
        let lit = k.literal();
        if !seen.contains(&lit) {
            seen.push(lit);
            out.push((k, v));
        }
    }
    out
}

fn dedup(vals: Vec<PyVal>) -> Vec<PyVal> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for v in vals {
        let lit = v.literal();
        if !seen.contains(&lit) {
            seen.push(lit);
            out.push(v);
        }
    }
    out
}

/// The longest container drawn at a length the function checks for (`len(xs) > 5`).
const MAX_CHECKED_LEN: usize = 16;

/// The items of a list or tuple: `len` of them mostly, and now and then, at the top
/// levels, exactly as many as an integer constant of the function up to
/// [`MAX_CHECKED_LEN`] (with its neighbours: `len(xs) > 5` needs six).
fn sized_items(
    item: BoxedStrategy<PyVal>,
    len: std::ops::Range<usize>,
    pool: &Pool,
    depth: u32,
) -> BoxedStrategy<Vec<PyVal>> {
    let plain = proptest::collection::vec(item.clone(), len).boxed();
    let lengths: Vec<usize> = pool
        .lengths()
        .into_iter()
        .filter(|&n| n <= MAX_CHECKED_LEN)
        .collect();
    if depth > 1 || lengths.is_empty() {
        return plain;
    }
    Union::new_weighted(vec![
        (5, plain),
        (
            1,
            proptest::sample::select(lengths)
                .prop_flat_map(move |n| proptest::collection::vec(item.clone(), n))
                .boxed(),
        ),
    ])
    .boxed()
}

/// The strategy of a type. `depth` bounds nesting (deeper levels get smaller containers).
pub fn strategy(ty: &Ty, pool: &Pool, depth: u32) -> BoxedStrategy<PyVal> {
    let len = if depth > 1 { 0..3usize } else { 0..6usize };
    match ty {
        Ty::NoneT => Just(PyVal::None).boxed(),
        Ty::Bool => any::<bool>().prop_map(PyVal::Bool).boxed(),
        Ty::Int => int_strategy(pool),
        Ty::Float => float_strategy(pool),
        Ty::Str => str_strategy(pool).prop_map(PyVal::Str).boxed(),
        Ty::Text(shape) => text_strategy(*shape, pool),
        Ty::Bytes => bytes_strategy(pool),
        Ty::List(t) if **t == Ty::Any => any_list(pool, depth).prop_map(PyVal::List).boxed(),
        Ty::List(t) => {
            let items = sized_items(strategy(t, pool, depth + 1), len, pool, depth)
                .prop_map(PyVal::List)
                .boxed();
            match &**t {
                Ty::List(row) | Ty::TupleOf(row) if depth <= 1 => {
                    Union::new_weighted(vec![(3, items), (2, grid(t, row, pool, depth))]).boxed()
                }
                _ => items,
            }
        }
        Ty::Iterable(t) => Union::new_weighted(vec![
            (3, strategy(&Ty::List(t.clone()), pool, depth)),
            (
                2,
                strategy(&Ty::List(t.clone()), pool, depth)
                    .prop_map(|v| match v {
                        PyVal::List(items) => PyVal::Iter(items),
                        other => other,
                    })
                    .boxed(),
            ),
            (1, strategy(&Ty::TupleOf(t.clone()), pool, depth)),
        ])
        .boxed(),
        Ty::TupleOf(t) if **t == Ty::Any => any_list(pool, depth).prop_map(PyVal::Tuple).boxed(),
        Ty::TupleOf(t) => sized_items(strategy(t, pool, depth + 1), len, pool, depth)
            .prop_map(PyVal::Tuple)
            .boxed(),
        Ty::Tuple(ts) => ts
            .iter()
            .map(|t| strategy(t, pool, depth + 1))
            .collect::<Vec<_>>()
            .prop_map(PyVal::Tuple)
            .boxed(),
        Ty::Set(t) | Ty::FrozenSet(t) => {
            let elem = if matches!(**t, Ty::Any) || !hashable_ty(t) {
                Ty::Int
            } else {
                (**t).clone()
            };
            let frozen = matches!(ty, Ty::FrozenSet(_));
            proptest::collection::vec(strategy(&elem, pool, depth + 1), len)
                .prop_map(move |v| {
                    let v = dedup(v);
                    if frozen {
                        PyVal::FrozenSet(v)
                    } else {
                        PyVal::Set(v)
                    }
                })
                .boxed()
        }
        Ty::Dict(k, v) => {
            let key = if matches!(**k, Ty::Any) || !hashable_ty(k) {
                Ty::Str
            } else {
                (**k).clone()
            };
            let value = if matches!(**v, Ty::Any) {
                Ty::Union(vec![Ty::Int, Ty::Str])
            } else {
                (**v).clone()
            };
            proptest::collection::vec(
                (
                    strategy(&key, pool, depth + 1),
                    strategy(&value, pool, depth + 1),
                ),
                len,
            )
            .prop_map(|kv| PyVal::Dict(dedup_keys(kv)))
            .boxed()
        }
        Ty::Union(ts) => {
            let arms: Vec<(u32, BoxedStrategy<PyVal>)> = ts
                .iter()
                .filter(|t| t.generatable())
                .map(|t| {
                    (
                        if *t == Ty::NoneT { 1 } else { 4 },
                        strategy(t, pool, depth),
                    )
                })
                .collect();
            if arms.is_empty() {
                return Just(PyVal::None).boxed();
            }
            Union::new_weighted(arms).boxed()
        }
        Ty::Literal(vals) if !vals.is_empty() => proptest::sample::select(vals.clone()).boxed(),
        Ty::Callable => proptest::sample::select(CALLABLES.to_vec())
            .prop_map(PyVal::Callable)
            .boxed(),
        Ty::Exception => proptest::sample::select(EXCEPTIONS.to_vec())
            .prop_map(PyVal::Callable)
            .boxed(),
        Ty::Std(t) => std_strategy(*t, pool),
        // Every attribute (key) drawn from its own type (the code reads them all, or some: a
        // missing one would only raise AttributeError or KeyError).
        Ty::Object(fields) | Ty::Record(fields) => {
            let names: Vec<String> = fields.iter().map(|(k, _)| k.clone()).collect();
            let of = ty.clone();
            fields
                .iter()
                .map(|(_, t)| strategy(t, pool, depth + 1))
                .collect::<Vec<_>>()
                .prop_map(move |vals| {
                    of.with_fields(names.iter().cloned().zip(vals).collect())
                        .unwrap_or(PyVal::None)
                })
                .boxed()
        }
        Ty::Any | Ty::Literal(_) | Ty::Unsupported(_) => {
            if depth > 2 {
                return int_strategy(pool);
            }
            Union::new_weighted(vec![
                (4, int_strategy(pool)),
                (4, str_strategy(pool).prop_map(PyVal::Str).boxed()),
                (3, any_list(pool, depth).prop_map(PyVal::List).boxed()),
                (1, Just(PyVal::None).boxed()),
                (1, any::<bool>().prop_map(PyVal::Bool).boxed()),
                (1, float_strategy(pool)),
                (1, any_list(pool, depth).prop_map(PyVal::Tuple).boxed()),
                (1, any_list(pool, depth).prop_map(PyVal::Iter).boxed()),
                (
                    1,
                    proptest::sample::select(CALLABLES.to_vec())
                        .prop_map(PyVal::Callable)
                        .boxed(),
                ),
                (
                    1,
                    strategy(
                        &Ty::Dict(Box::new(Ty::Str), Box::new(Ty::Int)),
                        pool,
                        depth + 1,
                    ),
                ),
            ])
            .boxed()
        }
    }
}

/// A list of rows of one length (`row` the type of a row's items, `rows` of a row): a
/// rectangle, square half the time. Code that walks a grid (`for i in range(size): row =
/// matrix[i]; matrix[j][i]`) reads every row as long as the first, and as many rows as
/// columns; rows drawn each of its own length make it raise at once.
fn grid(rows: &Ty, row: &Ty, pool: &Pool, depth: u32) -> BoxedStrategy<PyVal> {
    let item = strategy(row, pool, depth + 2);
    let tuples = matches!(rows, Ty::TupleOf(_));
    (1..6usize, 1..6usize, any::<bool>())
        .prop_flat_map(move |(n, m, square)| {
            let m = if square { n } else { m };
            proptest::collection::vec(proptest::collection::vec(item.clone(), m), n)
        })
        .prop_map(move |rows| {
            PyVal::List(
                rows.into_iter()
                    .map(|r| {
                        if tuples {
                            PyVal::Tuple(r)
                        } else {
                            PyVal::List(r)
                        }
                    })
                    .collect(),
            )
        })
        .boxed()
}

fn ints(xs: &[i128]) -> Vec<PyVal> {
    xs.iter().copied().map(PyVal::Int).collect()
}

/// Valid objects of a standard type, mostly: dates in the usual centuries with the end of a
/// month and a leap day now and then, times of day, signed durations, decimals written as
/// people write them (and the special ones), fractions of small terms, relative and
/// absolute paths with suffixes.
fn std_strategy(t: StdType, pool: &Pool) -> BoxedStrategy<PyVal> {
    let year = Union::new_weighted(vec![
        (6, (1990i128..2040).boxed()),
        (1, (1i128..10000).boxed()),
        (
            1,
            proptest::sample::select(vec![1i128, 1970, 2000, 2024, 9999]).boxed(),
        ),
    ]);
    let day = Union::new_weighted(vec![(6, (1i128..29).boxed()), (1, (29i128..32).boxed())]);
    let date = (year, 1i128..13, day).prop_map(|(y, m, d)| {
        // Day 29 to 31 where the month has it; the last day otherwise.
        let last = match m {
            2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        vec![y, m, d.min(last)]
    });
    let clock = (
        0i128..24,
        0i128..60,
        0i128..60,
        prop_oneof![Just(0i128), 0i128..1_000_000],
    );
    match t {
        StdType::Date => date
            .prop_map(|v| PyVal::Std(StdType::Date, ints(&v)))
            .boxed(),
        // Now and then aware of a time zone (code often branches on `d.tzinfo is None`).
        StdType::DateTime => (
            date,
            clock,
            prop_oneof![3 => Just(None), 1 => zone_minutes().prop_map(Some)],
        )
            .prop_map(|(mut v, (h, mi, s, us), tz)| {
                v.extend([h, mi, s, us]);
                let mut args = ints(&v);
                args.extend(tz.map(zone));
                PyVal::Std(StdType::DateTime, args)
            })
            .boxed(),
        StdType::TimeZone => zone_minutes().prop_map(zone).boxed(),
        StdType::Time => clock
            .prop_map(|(h, mi, s, us)| PyVal::Std(StdType::Time, ints(&[h, mi, s, us])))
            .boxed(),
        StdType::TimeDelta => (
            -1000i128..1000,
            0i128..86_400,
            prop_oneof![Just(0i128), 0i128..1_000_000],
        )
            .prop_map(|(d, s, us)| PyVal::Std(StdType::TimeDelta, ints(&[d, s, us])))
            .boxed(),
        StdType::Fraction => (-100i128..100, 1i128..50)
            .prop_map(|(n, d)| PyVal::Std(StdType::Fraction, ints(&[n, d])))
            .boxed(),
        StdType::Decimal => Union::new_weighted(vec![
            (
                4,
                (-100_000i128..100_000, 0u32..5)
                    .prop_map(|(n, places)| decimal_text(n, places))
                    .boxed(),
            ),
            (
                1,
                proptest::sample::select(vec![
                    "0",
                    "-0",
                    "NaN",
                    "Infinity",
                    "-Infinity",
                    "1E+3",
                    "0.000",
                ])
                .prop_map(str::to_string)
                .boxed(),
            ),
        ])
        .prop_map(|s| PyVal::Std(StdType::Decimal, vec![PyVal::Str(s)]))
        .boxed(),
        StdType::PurePosixPath => {
            let part = Union::new_weighted(vec![
                (
                    3,
                    proptest::sample::select(vec![
                        "a",
                        "b",
                        "src",
                        "data",
                        "x.txt",
                        "archive.tar.gz",
                        ".hidden",
                        "..",
                        ".",
                    ])
                    .prop_map(str::to_string)
                    .boxed(),
                ),
                (1, str_strategy(pool)),
            ]);
            (any::<bool>(), proptest::collection::vec(part, 0..4))
                .prop_map(|(absolute, parts)| {
                    let joined = parts.join("/");
                    let text = if absolute {
                        format!("/{joined}")
                    } else {
                        joined
                    };
                    PyVal::Std(StdType::PurePosixPath, vec![PyVal::Str(text)])
                })
                .boxed()
        }
        StdType::Pattern => pattern_strategy(pool),
    }
}

/// Pieces of regular expressions as code writes them: classes, groups, alternatives,
/// optional and repeated parts. Each is a valid pattern on its own, and so is any
/// concatenation of them (no named group: two of one name are an error; the edges have
/// one).
const REGEX_PIECES: &[&str] = &[
    r"\d+",
    r"\w+",
    r"\s*",
    r"[a-z]+",
    r"[A-Z]",
    r"[0-9a-fA-F]+",
    r".",
    r".*",
    r"(\d+)",
    r"(\w+)",
    r"(a|b)",
    r"x?",
    r"[-_.]",
    r"=",
    r"/",
];

/// `text` as a pattern matching exactly it: every character that is special to `re`
/// (or to a VERBOSE pattern: white space, `#`) behind a backslash, as `re.escape` does.
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\r' => out.push_str(r"\r"),
            '\x0b' => out.push_str(r"\x0b"),
            '\x0c' => out.push_str(r"\x0c"),
            _ => {
                if "()[]{}?*+-|^$\\.&~# ".contains(c) {
                    out.push('\\');
                }
                out.push(c);
            }
        }
    }
    out
}

/// Compiled regular expressions: one to three pieces of [`REGEX_PIECES`] or of the
/// function's string constants (escaped: code often matches its own words), anchored now
/// and then; mostly of the default flags, sometimes ignoring case or multiline.
fn pattern_strategy(pool: &Pool) -> BoxedStrategy<PyVal> {
    let mut pieces: Vec<String> = REGEX_PIECES.iter().map(|p| (*p).to_string()).collect();
    pieces.extend(
        pool.strs
            .iter()
            .filter(|s| !s.is_empty() && s.chars().count() <= 20)
            .map(|s| regex_escape(s)),
    );
    (
        proptest::collection::vec(proptest::sample::select(pieces), 1..4),
        0u8..4,
        prop_oneof![6 => Just(None), 1 => Just(Some(2i128)), 1 => Just(Some(8i128))],
    )
        .prop_map(|(parts, anchors, flags)| {
            let body = parts.concat();
            let text = match anchors {
                1 => format!("^{body}"),
                2 => format!("^{body}$"),
                _ => body,
            };
            let mut args = vec![PyVal::Str(text)];
            args.extend(flags.map(PyVal::Int));
            PyVal::Std(StdType::Pattern, args)
        })
        .boxed()
}

/// The decimal text of `n / 10**places` (`-12.5` from -125 and 1).
fn decimal_text(n: i128, places: u32) -> String {
    if places == 0 {
        return n.to_string();
    }
    let digits = format!("{:0>width$}", n.unsigned_abs(), width = places as usize + 1);
    let (int, frac) = digits.split_at(digits.len() - places as usize);
    format!("{}{int}.{frac}", if n < 0 { "-" } else { "" })
}

/// Offsets from UTC in minutes: whole hours and the odd ones in use, now and then any the
/// constructor takes (under a day either way).
fn zone_minutes() -> BoxedStrategy<i128> {
    Union::new_weighted(vec![
        (
            3,
            proptest::sample::select(vec![0i128, 60, 120, -300, -480, 330, 345, 540, 840, -720])
                .boxed(),
        ),
        (1, (-1439i128..1440).boxed()),
    ])
    .boxed()
}

/// The fixed time zone `minutes` east of UTC, as the worker builds it
/// (`datetime.timezone(datetime.timedelta(0, 3600, 0))`).
fn zone(minutes: i128) -> PyVal {
    PyVal::Std(
        StdType::TimeZone,
        vec![PyVal::Std(StdType::TimeDelta, ints(&[0, minutes * 60, 0]))],
    )
}

/// The typical object of a standard type.
fn std_typical(t: StdType) -> PyVal {
    let args = match t {
        StdType::DateTime => ints(&[2024, 1, 2, 3, 4, 5]),
        StdType::Date => ints(&[2024, 2, 29]),
        StdType::Time => ints(&[12, 30]),
        StdType::TimeDelta => ints(&[1, 3600]),
        StdType::TimeZone => return zone(0),
        StdType::Decimal => vec![PyVal::Str("1.50".into())],
        StdType::Fraction => ints(&[1, 3]),
        StdType::PurePosixPath => vec![PyVal::Str("a/b.txt".into())],
        StdType::Pattern => vec![PyVal::Str(r"\w+".into())],
    };
    PyVal::Std(t, args)
}

/// The edge objects of a standard type: its least and greatest, zero, the ends of years
/// and months, negative durations, special decimals, empty and odd paths.
fn std_edges(t: StdType) -> Vec<PyVal> {
    let strs = |xs: &[&str]| -> Vec<Vec<PyVal>> {
        xs.iter()
            .map(|s| vec![PyVal::Str((*s).to_string())])
            .collect()
    };
    let intss = |xs: &[&[i128]]| -> Vec<Vec<PyVal>> { xs.iter().map(|v| ints(v)).collect() };
    let args: Vec<Vec<PyVal>> = match t {
        StdType::DateTime => intss(&[
            &[1i128, 1, 1][..],
            &[9999, 12, 31, 23, 59, 59, 999_999],
            &[2000, 2, 29, 0, 0, 0],
            &[2023, 12, 31, 23, 59, 59],
            &[1970, 1, 1],
        ]),
        StdType::Date => intss(&[
            &[1i128, 1, 1][..],
            &[9999, 12, 31],
            &[2023, 12, 31],
            &[2023, 1, 1],
            &[1970, 1, 1],
        ]),
        StdType::Time => intss(&[&[][..], &[23, 59, 59, 999_999], &[0, 0, 1], &[12]]),
        StdType::TimeDelta => intss(&[
            &[][..],
            &[-1],
            &[0, 0, 1],
            &[0, 59],
            &[400, 86_399],
            &[-3, 7200],
        ]),
        StdType::Decimal => strs(&[
            "0",
            "-1.5",
            "100",
            "0.001",
            "NaN",
            "Infinity",
            "-Infinity",
            "1E+3",
            "12345678901234567890.123",
        ]),
        StdType::TimeZone => {
            return [0, 60, -300, 330, 1439, -1439].map(zone).to_vec();
        }
        StdType::Fraction => intss(&[&[0i128, 1][..], &[-1, 2], &[7, 1], &[22, 7], &[1, 1000]]),
        StdType::PurePosixPath => strs(&[
            "",
            "/",
            "a",
            "/usr/lib/x.tar.gz",
            ".hidden",
            "a/../b",
            "dir/",
            "a b/c.d.e",
        ]),
        StdType::Pattern => {
            let mut out: Vec<Vec<PyVal>> =
                strs(&["", ".*", r"^(\d+)$", r"(?P<key>\w+)=(?P<value>\w*)", r"\s+"]);
            out.push(vec![PyVal::Str("a".into()), PyVal::Int(2)]);
            out
        }
    };
    let mut out: Vec<PyVal> = args.into_iter().map(|a| PyVal::Std(t, a)).collect();
    // Aware datetimes: in UTC, east and west of it.
    if t == StdType::DateTime {
        for (v, minutes) in [
            (&[2024i128, 1, 2, 3, 4, 5, 0][..], 0),
            (&[2023, 12, 31, 23, 59, 59, 0], 330),
            (&[1970, 1, 1, 0, 0, 0, 0], -300),
        ] {
            let mut a = ints(v);
            a.push(zone(minutes));
            out.push(PyVal::Std(t, a));
        }
    }
    out
}

fn hashable_ty(t: &Ty) -> bool {
    match t {
        Ty::List(_)
        | Ty::Iterable(_)
        | Ty::Dict(..)
        | Ty::Set(_)
        | Ty::Object(_)
        | Ty::Record(_) => false,
        Ty::Tuple(ts) | Ty::Union(ts) => ts.iter().all(hashable_ty),
        Ty::TupleOf(t) | Ty::FrozenSet(t) => hashable_ty(t),
        _ => true,
    }
}

/// A typical value of the type: the first thing tried, and what the other parameters hold
/// while one parameter's edge values are tried.
pub fn typical(ty: &Ty, pool: &Pool) -> PyVal {
    match ty {
        Ty::NoneT => PyVal::None,
        Ty::Bool => PyVal::Bool(true),
        Ty::Int => PyVal::Int(
            pool.ints
                .iter()
                .copied()
                .find(|i| (1..=100).contains(i))
                .unwrap_or(3),
        ),
        Ty::Float => PyVal::Float(1.5),
        Ty::Str => PyVal::Str(
            pool.strs
                .first()
                .map_or_else(|| "abc".to_string(), |s| format!("a{s}b")),
        ),
        Ty::Text(Shape::Json) => PyVal::Str("{\"a\": {\"b\": [1, 2]}}".into()),
        Ty::Text(Shape::Number) => PyVal::Str("42".into()),
        Ty::Text(Shape::Date) => PyVal::Str("2024-02-29".into()),
        Ty::Text(other) => PyVal::Str(
            crate::shapes::edges(*other)
                .first()
                .copied()
                .unwrap_or("")
                .into(),
        ),
        Ty::Bytes => PyVal::Bytes(b"abc".to_vec()),
        Ty::List(t) | Ty::Iterable(t) => PyVal::List(typical_items(t, pool)),
        Ty::TupleOf(t) => PyVal::Tuple(typical_items(t, pool)),
        Ty::Tuple(ts) => PyVal::Tuple(ts.iter().map(|t| typical(t, pool)).collect()),
        Ty::Set(t) => PyVal::Set(dedup(typical_items(&elem_or_int(t), pool))),
        Ty::FrozenSet(t) => PyVal::FrozenSet(dedup(typical_items(&elem_or_int(t), pool))),
        Ty::Dict(k, v) => {
            let k = if matches!(**k, Ty::Any) {
                Ty::Str
            } else {
                (**k).clone()
            };
            let v = if matches!(**v, Ty::Any) {
                Ty::Int
            } else {
                (**v).clone()
            };
            let keys = dedup(vec![
                typical(&k, pool),
                edge_list(&k, pool)
                    .into_iter()
                    .nth(1)
                    .unwrap_or(PyVal::None),
            ]);
            PyVal::Dict(dedup_keys(
                keys.into_iter()
                    .map(|key| (key, typical(&v, pool)))
                    .collect(),
            ))
        }
        Ty::Union(ts) => ts
            .iter()
            .find(|t| **t != Ty::NoneT && t.generatable())
            .map_or(PyVal::None, |t| typical(t, pool)),
        Ty::Literal(vals) => vals.first().cloned().unwrap_or(PyVal::None),
        Ty::Callable => PyVal::Callable("str"),
        Ty::Exception => PyVal::Callable("ValueError"),
        Ty::Std(t) => std_typical(*t),
        Ty::Object(fields) | Ty::Record(fields) => ty
            .with_fields(
                fields
                    .iter()
                    .map(|(k, t)| (k.clone(), typical(t, pool)))
                    .collect(),
            )
            .unwrap_or(PyVal::None),
        Ty::Any | Ty::Unsupported(_) => PyVal::Int(3),
    }
}

fn elem_or_int(t: &Ty) -> Ty {
    if matches!(t, Ty::Any) || !hashable_ty(t) {
        Ty::Int
    } else {
        t.clone()
    }
}

fn typical_items(t: &Ty, pool: &Pool) -> Vec<PyVal> {
    match t {
        Ty::Any | Ty::Int => vec![PyVal::Int(3), PyVal::Int(1), PyVal::Int(2)],
        Ty::Str => vec![
            PyVal::Str("b".into()),
            PyVal::Str("a".into()),
            PyVal::Str("c".into()),
        ],
        other => {
            let e = edge_list(other, pool);
            let mut v = vec![typical(other, pool)];
            v.extend(e.into_iter().skip(1).take(2));
            v
        }
    }
}

/// Edge values of a type, the typical value first: empty, zero, negative, one element,
/// unicode, very long, NaN and the infinities, then the constants the function holds.
pub fn edge_list(ty: &Ty, pool: &Pool) -> Vec<PyVal> {
    let mut out = vec![typical(ty, pool)];
    let mut push = |v: PyVal| {
        if !out.contains(&v) {
            out.push(v);
        }
    };
    match ty {
        Ty::NoneT => {}
        Ty::Bool => push(PyVal::Bool(false)),
        Ty::Int => {
            for i in [0, 1, -1, 2, -7, 10, 1 << 31, -(1 << 63), 10i128.pow(20)] {
                push(PyVal::Int(i));
            }
            for &i in pool.ints.iter().take(12) {
                push(PyVal::Int(i));
            }
        }
        Ty::Float => {
            for f in [
                0.0,
                -0.0,
                1.0,
                -2.5,
                0.1,
                1e300,
                1e-300,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ] {
                push(PyVal::Float(f));
            }
            for &f in pool.floats.iter().take(8) {
                push(PyVal::Float(f));
            }
        }
        Ty::Str => {
            for s in [
                "",
                "a",
                " ",
                "Hello, World!",
                "é漢字😀",
                "0",
                "  padded  ",
                "line1\nline2",
                "42",
                "-3.5",
                "2024-02-29",
                "a.b",
                "{\"a\": 1}",
                "a=1,b=2",
                "CamelCase_name",
            ] {
                push(PyVal::Str(s.into()));
            }
            push(PyVal::Str("x".repeat(1000)));
            for s in pool.strs.iter().take(12) {
                push(PyVal::Str(s.clone()));
            }
            for h in pool.regexes.iter().take(4) {
                for t in crate::regex_text::examples(h, 2) {
                    push(PyVal::Str(t));
                }
            }
            // Records built with the function's own separators: `a=1;b=2` from `;` and `=`.
            let seps: Vec<&String> = pool
                .strs
                .iter()
                .filter(|s| s.chars().count() <= 3)
                .take(3)
                .collect();
            for outer in &seps {
                for inner in &seps {
                    if outer != inner {
                        push(PyVal::Str(format!("a{inner}1{outer}b{inner}2")));
                    }
                }
            }
        }
        Ty::Text(shape) => {
            let own: &[&str] = match shape {
                Shape::Json => &[
                    "[]",
                    "{}",
                    "null",
                    "1",
                    "\"a\"",
                    "[1, {\"a\": null}]",
                    "{\"a\": 1}",
                    "{",
                ],
                Shape::Number => &["0", "-7", "3.25", " 12 ", "1_000", "1e3", "abc", "0x1f"],
                Shape::Date => &[
                    "1999-12-31",
                    "29/02/2024",
                    "March 5, 2021",
                    "2024-13-01",
                    "2024-02-30",
                    "today",
                ],
                other => crate::shapes::edges(*other),
            };
            for s in own {
                push(PyVal::Str((*s).into()));
            }
            // A document keyed by each of the function's first string constants.
            if *shape == Shape::Json {
                for k in pool.strs.iter().filter(|k| k.chars().count() <= 40).take(3) {
                    let doc = serde_json::json!({ k.as_str(): 1 });
                    push(PyVal::Str(doc.to_string()));
                }
            }
            for v in edge_list(&Ty::Str, pool).into_iter().skip(1).take(4) {
                push(v);
            }
        }
        Ty::Bytes => {
            push(PyVal::Bytes(Vec::new()));
            push(PyVal::Bytes(vec![0, 255]));
            push(PyVal::Bytes(vec![b'a'; 1000]));
            for b in pool.bytes.iter().take(6) {
                push(PyVal::Bytes(b.clone()));
            }
        }
        Ty::List(t) | Ty::TupleOf(t) | Ty::Iterable(t) => {
            let wrap = |v: Vec<PyVal>| match ty {
                Ty::TupleOf(_) => PyVal::Tuple(v),
                _ => PyVal::List(v),
            };
            if matches!(ty, Ty::Iterable(_)) {
                push(PyVal::Iter(Vec::new()));
                push(PyVal::Iter(vec![
                    PyVal::Int(1),
                    PyVal::Int(2),
                    PyVal::Int(3),
                ]));
                push(PyVal::Tuple(vec![PyVal::Int(1), PyVal::Int(2)]));
            }
            let inner = if matches!(**t, Ty::Any) {
                Ty::Int
            } else {
                (**t).clone()
            };
            let elems = edge_list(&inner, pool);
            push(wrap(Vec::new()));
            push(wrap(vec![elems[0].clone()]));
            push(wrap(elems.iter().take(4).cloned().collect()));
            push(wrap(vec![elems[0].clone(); 2]));
            let mut sorted_desc: Vec<PyVal> = (0..5).rev().map(PyVal::Int).collect();
            if inner == Ty::Int {
                push(wrap(std::mem::take(&mut sorted_desc)));
                push(wrap((0..200).map(|i| PyVal::Int(i % 17)).collect()));
            }
            if matches!(**t, Ty::Any) {
                push(wrap(vec![PyVal::Str("a".into()), PyVal::Str("b".into())]));
            }
        }
        Ty::Tuple(ts) => {
            for (i, t) in ts.iter().enumerate() {
                for e in edge_list(t, pool).into_iter().skip(1).take(3) {
                    let mut v: Vec<PyVal> = ts.iter().map(|t| typical(t, pool)).collect();
                    v[i] = e;
                    push(PyVal::Tuple(v));
                }
            }
        }
        Ty::Set(_) => push(PyVal::Set(Vec::new())),
        Ty::FrozenSet(_) => push(PyVal::FrozenSet(Vec::new())),
        Ty::Dict(..) => push(PyVal::Dict(Vec::new())),
        Ty::Union(ts) => {
            let lists: Vec<Vec<PyVal>> = ts
                .iter()
                .filter(|t| t.generatable())
                .map(|t| edge_list(t, pool))
                .collect();
            // Interleave, so each member's first edges come early; all of them in the end
            // (a float's infinities come late in its list).
            let longest = lists.iter().map(Vec::len).max().unwrap_or(0).min(24);
            for i in 0..longest {
                for l in &lists {
                    if let Some(v) = l.get(i) {
                        push(v.clone());
                    }
                }
            }
        }
        Ty::Literal(vals) => {
            for v in vals {
                push(v.clone());
            }
        }
        Ty::Callable => {
            for c in CALLABLES.iter().take(4) {
                push(PyVal::Callable(c));
            }
        }
        Ty::Exception => {
            for c in EXCEPTIONS.iter().take(3) {
                push(PyVal::Callable(c));
            }
        }
        Ty::Std(t) => {
            for v in std_edges(*t) {
                push(v);
            }
        }
        // One attribute (key) at a time at its edges, the others typical (as a tuple's
        // items); then a record without one of its keys (`row.get('id')`, `'id' in row`).
        Ty::Object(fields) | Ty::Record(fields) => {
            let typicals: Vec<(String, PyVal)> = fields
                .iter()
                .map(|(k, t)| (k.clone(), typical(t, pool)))
                .collect();
            for (i, (_, t)) in fields.iter().enumerate() {
                for e in edge_list(t, pool).into_iter().skip(1).take(3) {
                    let mut v = typicals.clone();
                    v[i].1 = e;
                    push(ty.with_fields(v).unwrap_or(PyVal::None));
                }
            }
            if matches!(ty, Ty::Record(_)) {
                for i in 0..fields.len().min(3) {
                    let mut v = typicals.clone();
                    v.remove(i);
                    push(ty.with_fields(v).unwrap_or(PyVal::None));
                }
            }
        }
        Ty::Any | Ty::Unsupported(_) => {
            for v in [
                PyVal::Str("abc".into()),
                PyVal::List(vec![PyVal::Int(1), PyVal::Int(2), PyVal::Int(3)]),
                PyVal::None,
                PyVal::Int(0),
                PyVal::Str(String::new()),
                PyVal::List(Vec::new()),
                PyVal::Float(1.5),
                PyVal::Bool(true),
                PyVal::Int(-1),
                PyVal::Iter(vec![PyVal::Int(1), PyVal::Int(2)]),
            ] {
                push(v);
            }
        }
    }
    out
}

/// The same, as [`edges`] names it for callers.
pub fn edges(ty: &Ty, pool: &Pool) -> Vec<PyVal> {
    edge_list(ty, pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    fn runner() -> TestRunner {
        TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
        )
    }

    /// Code that asks `unicodedata` gets single characters of the odd classes often.
    #[test]
    fn unicode_code_gets_odd_characters() {
        let count = |unicode: bool| {
            let pool = Pool {
                unicode,
                ..Pool::default()
            };
            let s = strategy(&Ty::Str, &pool, 0);
            let mut r = runner();
            (0..400)
                .filter(|_| {
                    matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(t)
                        if t.chars().count() == 1 && ODD_CHARS[EVERYDAY_ODD_CHARS..].contains(&t.chars().next().unwrap()))
                })
                .count()
        };
        assert_eq!(count(false), 0);
        assert!(count(true) >= 8, "{}", count(true));
    }

    #[test]
    fn categories_the_function_names_give_their_characters() {
        let marks = |strs: &[&str], unicode: bool| {
            let pool = Pool {
                unicode,
                strs: strs.iter().map(|s| (*s).to_string()).collect(),
                ..Pool::default()
            };
            let s = strategy(&Ty::Str, &pool, 0);
            let mut r = runner();
            (0..300)
                .filter(|_| {
                    matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(t)
                        if t.chars().any(|c| ['\u{903}', '\u{93e}', '\u{20dd}', '\u{488}'].contains(&c)))
                })
                .count()
        };
        // `category(c)[0] == "M"`: spacing and enclosing marks too, which no other list has.
        assert!(marks(&["M"], true) >= 30, "{}", marks(&["M"], true));
        assert_eq!(
            marks(&["M"], false),
            0,
            "only where the code asks about Unicode"
        );
        assert_eq!(marks(&["Lm"], true), 0);
        assert_eq!(
            category_chars(&Pool {
                unicode: true,
                strs: vec!["Lm".into()],
                ..Pool::default()
            }),
            vec!['ʰ', 'ـ']
        );
    }

    /// Every pattern drawn compiles in Python, of the function's own odd constants too.
    #[test]
    fn patterns_compile() {
        let pool = Pool {
            strs: vec![
                "a.b".into(),
                "(x".into(),
                "[".into(),
                "\\".into(),
                "a b#c\n".into(),
            ],
            ..Pool::default()
        };
        let mut r = runner();
        let s = strategy(&Ty::Std(StdType::Pattern), &pool, 0);
        let mut lits: Vec<String> = (0..300)
            .map(|_| s.new_tree(&mut r).unwrap().current().literal())
            .collect();
        lits.extend(
            edge_list(&Ty::Std(StdType::Pattern), &pool)
                .iter()
                .map(PyVal::literal),
        );
        let program = "import re, sys\nfor line in sys.stdin:\n    eval(line, {'re': re})\n";
        let child = std::process::Command::new("python3")
            .args(["-c", program])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("SKIP patterns_compile: no python3 to compile the patterns with");
            return;
        };
        {
            use std::io::Write as _;
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, "{}", lits.join("\n")).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            lits.iter().any(|l| l.contains(r"\(x")),
            "constants escaped: {lits:?}"
        );
    }

    #[test]
    fn standard_objects_are_ones_the_worker_builds() {
        let pool = Pool::default();
        let mut r = runner();
        for t in StdType::ALL {
            let s = strategy(&Ty::Std(t), &pool, 0);
            let drawn = (0..200).map(|_| s.new_tree(&mut r).unwrap().current());
            let edges = edge_list(&Ty::Std(t), &pool);
            assert!(edges.len() > 3, "{t:?}");
            for v in drawn.chain(edges) {
                let PyVal::Std(got, args) = &v else {
                    panic!("{t:?}: not a standard object: {v:?}")
                };
                assert_eq!(*got, t);
                assert!(t.accepts(args), "{}", v.literal());
                let n: Vec<i128> = args
                    .iter()
                    .filter_map(|a| match a {
                        PyVal::Int(i) => Some(*i),
                        _ => None,
                    })
                    .collect();
                // Within the constructor's ranges: a valid object, not an error.
                match t {
                    StdType::Date | StdType::DateTime if n.len() >= 3 => {
                        assert!((1..=9999).contains(&n[0]), "{}", v.literal());
                        assert!((1..=12).contains(&n[1]), "{}", v.literal());
                        let leap = (n[0] % 4 == 0 && n[0] % 100 != 0) || n[0] % 400 == 0;
                        let last = match n[1] {
                            2 if leap => 29,
                            2 => 28,
                            4 | 6 | 9 | 11 => 30,
                            _ => 31,
                        };
                        assert!((1..=last).contains(&n[2]), "{}", v.literal());
                    }
                    StdType::Fraction => assert_ne!(n[1], 0),
                    StdType::Decimal => {
                        let PyVal::Str(text) = &args[0] else {
                            unreachable!()
                        };
                        let numeric = text.trim_start_matches('-').replace('E', "e");
                        assert!(
                            numeric.parse::<f64>().is_ok()
                                || ["NaN", "Infinity"].contains(&numeric.as_str()),
                            "{text}"
                        );
                    }
                    _ => {}
                }
            }
        }
        // Some datetimes are aware, each of a zone under a day from UTC.
        let s = strategy(&Ty::Std(StdType::DateTime), &pool, 0);
        let aware: Vec<PyVal> = (0..200)
            .map(|_| s.new_tree(&mut r).unwrap().current())
            .filter_map(|v| match v {
                PyVal::Std(_, mut a) if a.len() == 8 => a.pop(),
                _ => None,
            })
            .collect();
        assert!((20..120).contains(&aware.len()), "{}", aware.len());
        for z in aware
            .iter()
            .chain(&edge_list(&Ty::Std(StdType::TimeZone), &pool))
        {
            let PyVal::Std(StdType::TimeZone, d) = z else {
                panic!("{z:?}")
            };
            let [PyVal::Std(StdType::TimeDelta, parts)] = &d[..] else {
                panic!("{z:?}")
            };
            assert!(
                matches!(parts[..], [PyVal::Int(0), PyVal::Int(s), PyVal::Int(0)] if s.abs() < 86_400)
            );
        }
        assert_eq!(decimal_text(-125, 1), "-12.5");
        assert_eq!(decimal_text(5, 3), "0.005");
        assert_eq!(decimal_text(-7, 0), "-7");
    }

    #[test]
    fn strategies_are_deterministic_and_typed() {
        let ty = crate::types::parse_annotation("dict[str, list[int]]");
        let pool = Pool::default();
        let s = strategy(&ty, &pool, 0);
        let a: Vec<String> = {
            let mut r = runner();
            (0..20)
                .map(|_| s.new_tree(&mut r).unwrap().current().literal())
                .collect()
        };
        let b: Vec<String> = {
            let mut r = runner();
            (0..20)
                .map(|_| s.new_tree(&mut r).unwrap().current().literal())
                .collect()
        };
        assert_eq!(a, b);
        let mut r = runner();
        for _ in 0..50 {
            match s.new_tree(&mut r).unwrap().current() {
                PyVal::Dict(kv) => {
                    for (k, v) in kv {
                        assert!(matches!(k, PyVal::Str(_)));
                        assert!(matches!(v, PyVal::List(_)));
                    }
                }
                other => panic!("not a dict: {other:?}"),
            }
        }
    }

    /// An object read by attribute is drawn as an attribute bag with every attribute of its
    /// type, edge values one attribute at a time, and the worker's reader builds it.
    #[test]
    fn objects_are_attribute_bags_the_worker_reads() {
        let token = Ty::Object(vec![
            ("type".into(), Ty::Str),
            ("value".into(), Ty::Int),
            (
                "args".into(),
                Ty::List(Box::new(Ty::Object(vec![("unit".into(), Ty::Str)]))),
            ),
        ]);
        let pool = Pool {
            strs: vec!["number".into(), "percentage".into()],
            ..Pool::default()
        };
        let s = strategy(&token, &pool, 0);
        let mut r = runner();
        let mut drawn: Vec<PyVal> = (0..60)
            .map(|_| s.new_tree(&mut r).unwrap().current())
            .collect();
        let edges = edge_list(&token, &pool);
        assert!(edges.len() > 4, "{edges:?}");
        drawn.extend(edges);
        let mut typed = 0;
        for v in &drawn {
            let PyVal::Namespace(attrs) = v else {
                panic!("not a namespace: {v:?}")
            };
            let names: Vec<&str> = attrs.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(names, ["type", "value", "args"]);
            typed += usize::from(matches!(&attrs[0].1, PyVal::Str(t) if t == "number"));
        }
        assert!(typed > 0, "the function's strings reach the attributes");
        let texts: Vec<String> = drawn.iter().map(PyVal::literal).collect();
        let script = format!(
            r#"
import json, sys
sys.path.insert(0, {:?})
import values
read = values.make_arg_eval()
ok = 0
for text in json.load(sys.stdin):
    v = read(text)
    ok += type(v).__name__ == "SimpleNamespace" and isinstance(v.value, int) and all(
        type(a).__name__ == "SimpleNamespace" and isinstance(a.unit, str) for a in v.args)
print(ok)
"#,
            concat!(env!("CARGO_MANIFEST_DIR"), "/../execution/python")
        );
        let json = serde_json::to_string(&texts).expect("json");
        let Some(out) =
            crate::test_python::json_through(&script, &json, "read the drawn objects with")
        else {
            return;
        };
        assert_eq!(
            String::from_utf8_lossy(&out).trim(),
            texts.len().to_string()
        );
    }

    /// Lists are drawn at the lengths the function checks for, not only short ones.
    #[test]
    fn text_that_every_pattern_finds_is_drawn() {
        let both = |t: &str| {
            let w = t
                .find("width ")
                .is_some_and(|i| t[i + 6..].starts_with(|c: char| c.is_ascii_digit()));
            let h = t
                .find("height ")
                .is_some_and(|i| t[i + 7..].starts_with(|c: char| c.is_ascii_digit()));
            w && h
        };
        let pool = Pool {
            regexes: vec![
                crate::regex_text::parse(r"width ([0-9]+)").expect("parses"),
                crate::regex_text::parse(r"height ([0-9]+)").expect("parses"),
            ],
            ..Pool::default()
        };
        let s = strategy(&Ty::Str, &pool, 0);
        let mut r = runner();
        let found = (0..300)
            .filter(|_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(t) if both(&t)))
            .count();
        assert!(found >= 30, "{found}");
    }

    #[test]
    fn lists_of_rows_are_drawn_as_grids() {
        let s = strategy(
            &Ty::List(Box::new(Ty::List(Box::new(Ty::Int)))),
            &Pool::default(),
            0,
        );
        let mut r = runner();
        let (mut square, mut ragged) = (0, 0);
        for _ in 0..300 {
            let PyVal::List(rows) = s.new_tree(&mut r).unwrap().current() else {
                panic!("a list")
            };
            let lens: Vec<usize> = rows
                .iter()
                .map(|row| match row {
                    PyVal::List(v) => v.len(),
                    other => panic!("a row: {other:?}"),
                })
                .collect();
            if lens.len() > 1 && lens.iter().all(|&n| n == lens.len()) {
                square += 1;
            }
            if lens.windows(2).any(|w| w[0] != w[1]) {
                ragged += 1;
            }
        }
        // Square grids often, rows of their own lengths still.
        assert!(square >= 40 && ragged >= 40, "{square} {ragged}");
    }

    #[test]
    fn text_between_two_of_one_mark_is_drawn() {
        // `/pattern/` and `/pattern/i`: opened and closed by one constant, a flag after it.
        let wrapped = |t: &str| {
            t.len() >= 3
                && t.starts_with('/')
                && t[1..].contains('/')
                && t.rsplit('/')
                    .next()
                    .is_some_and(|f| f.chars().all(|c| "iu".contains(c)))
        };
        let n = texts_drawn(&["/", "i", "u"], 400, wrapped);
        assert!(n >= 10, "{n}");
    }

    #[test]
    fn lists_reach_checked_lengths() {
        let pool = Pool {
            ints: vec![5, 4, 6],
            ..Pool::default()
        };
        let s = strategy(&Ty::List(Box::new(Ty::Int)), &pool, 0);
        let mut r = runner();
        let long = (0..300)
            .filter(
                |_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::List(v) if v.len() == 6),
            )
            .count();
        assert!(long >= 10, "{long}");
        let s = strategy(&Ty::List(Box::new(Ty::Int)), &Pool::default(), 0);
        let long = (0..300)
            .filter(
                |_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::List(v) if v.len() >= 6),
            )
            .count();
        assert_eq!(long, 0);
    }

    /// A function's own pattern shapes many of its strings, and two of its edge values.
    #[test]
    fn patterns_shape_strings() {
        let version = |t: &str| {
            t.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && !b.is_empty()
                    && (a.to_owned() + b).bytes().all(|c| c.is_ascii_digit())
            })
        };
        let mut pool = Pool::default();
        let s = strategy(&Ty::Str, &pool, 0);
        let mut r = runner();
        let plain = (0..200)
            .filter(
                |_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(t) if version(&t)),
            )
            .count();
        pool.regexes = vec![crate::regex_text::parse(r"^(\d+)\.(\d+)\Z").expect("parses")];
        let s = strategy(&Ty::Str, &pool, 0);
        let shaped = (0..200)
            .filter(
                |_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(t) if version(&t)),
            )
            .count();
        assert!(plain < 10 && shaped >= 50, "{plain} {shaped}");
        let edges = edge_list(&Ty::Str, &pool);
        assert_eq!(
            edges
                .iter()
                .filter(|v| matches!(v, PyVal::Str(t) if version(t)))
                .count(),
            2,
            "{edges:?}"
        );
    }

    #[test]
    fn constants_reach_strings() {
        let hits = texts_drawn(&["needle"], 100, |x| x.contains("needle"));
        assert!(hits > 20, "only {hits} of 100 strings held the constant");
    }

    /// How many of `n` texts drawn with `strs` as the function's strings `want` holds of.
    fn texts_drawn(strs: &[&str], n: usize, want: impl Fn(&str) -> bool) -> usize {
        let pool = Pool {
            strs: strs.iter().map(|s| (*s).to_string()).collect(),
            ..Pool::default()
        };
        let s = strategy(&Ty::Str, &pool, 0);
        let mut r = runner();
        (0..n)
            .filter(|_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(x) if want(&x)))
            .count()
    }

    #[test]
    fn brackets_the_function_looks_for_enclose_its_constants() {
        let hits = texts_drawn(&["(", ")", "superseded"], 300, |x| {
            x.find('(')
                .zip(x.find("superseded"))
                .zip(x.rfind(')'))
                .is_some_and(|((o, w), c)| o < w && w < c)
        });
        assert!(
            hits > 15,
            "only {hits} of 300 strings held `(... superseded ...)`"
        );
        assert!(bracket_pairs(&Pool {
            strs: vec!["(".into()],
            ..Pool::default()
        })
        .is_empty());
    }

    #[test]
    fn dates_come_with_times_zones_and_alone() {
        let s = date_str();
        let mut r = runner();
        let drawn: Vec<String> = (0..300)
            .map(|_| s.new_tree(&mut r).unwrap().current())
            .collect();
        let count = |want: &dyn Fn(&str) -> bool| drawn.iter().filter(|d| want(d)).count();
        let iso_date =
            |d: &str| d.len() == 10 && d.as_bytes()[4] == b'-' && d.as_bytes()[7] == b'-';
        assert!(count(&iso_date) > 30);
        assert!(count(&|d: &str| d.len() > 10 && d.as_bytes()[10] == b'T') > 60);
        assert!(count(&|d: &str| d.ends_with(['Z', 'z'])) > 30);
        assert!(count(&|d: &str| d.len() > 19 && d[19..].starts_with(['+', '-'])) > 10);
        assert!(count(&|d: &str| d.len() == 8 && d.as_bytes()[2] == b':') > 10);
    }

    #[test]
    fn lines_of_tokens_are_drawn_for_code_that_reads_lines() {
        // A grammar's rule, `name : a b`, then its continuation, `| c`.
        let grammar = |x: &str| {
            let lines: Vec<Vec<&str>> = x.lines().map(|l| l.split_whitespace().collect()).collect();
            lines.len() >= 2
                && lines[0].get(1) == Some(&":")
                && lines[1..].iter().any(|t| t.first() == Some(&"|"))
        };
        let drawn = |lines: bool| {
            let pool = Pool {
                strs: vec!["|".into(), ":".into(), "::=".into()],
                lines,
                ..Pool::default()
            };
            let s = strategy(&Ty::Str, &pool, 0);
            let mut r = runner();
            (0..1000)
                .filter(|_| matches!(s.new_tree(&mut r).unwrap().current(), PyVal::Str(x) if grammar(&x)))
                .count()
        };
        let (with, without) = (drawn(true), drawn(false));
        assert!(
            with >= 4 && with > 3 * without,
            "{with} with lines, {without} without"
        );
    }

    #[test]
    fn runs_of_a_constant_s_characters_are_drawn() {
        let hits = texts_drawn(&[" \t", "\n"], 1000, |x| {
            x.rsplit_once('\n').is_some_and(|(_, tail)| {
                !tail.is_empty() && tail.len() < 4 && tail.chars().all(|c| c == ' ' || c == '\t')
            })
        });
        assert!(
            hits > 30,
            "only {hits} of 1000 strings ended in a newline and a short indent"
        );
    }

    #[test]
    fn edges_come_first_and_include_the_extremes() {
        let e = edges(&Ty::Float, &Pool::default());
        assert!(e.iter().any(|v| matches!(v, PyVal::Float(f) if f.is_nan())));
        assert!(e
            .iter()
            .any(|v| matches!(v, PyVal::Float(f) if f.is_infinite())));
        let e = edges(&Ty::List(Box::new(Ty::Str)), &Pool::default());
        assert!(e.contains(&PyVal::List(Vec::new())));
    }
}
