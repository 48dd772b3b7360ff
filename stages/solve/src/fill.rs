//! From a model's text to the fill of a `completion` answer: the text that replaces the
//! masked span (execute re-indents it to the span and splices it between prefix and suffix).
//!
//! 1. Reasoning (`<think>...</think>`) is dropped, and the text is cut at the first
//!    sentinel or end-of-text marker: the FIM format's ([`crate::prompt::Fim::markers`]) and
//!    the angle-bracket ones of every known format ([`END_MARKERS`]).
//! 2. The code is taken from the first Python fenced block (of chat answers; of completions
//!    only when the text starts with a fence, and a fence the model closed ends the code).
//! 3. A repeated end of the prefix is dropped: whole lines equal to the prefix's last lines,
//!    then the start of the first line when it repeats the end of the prefix's last line
//!    (`return a + b` after `    return `). Likewise a repeated start of the suffix: whole
//!    lines equal to the suffix's first lines, then the end of the last line repeating the
//!    start of the suffix's first line (`a, b)` before `)`). Line repeats count only when
//!    they are substantial (two lines, or a dozen characters that are not blank), and
//!    bracket-only repeats only when they unbalance the fill.
//! 4. Indentation is normalized to the span's: the first line starts at the span (no
//!    leading blanks) and the others (of statement, block and function spans; an
//!    expression's are inside brackets or strings) are indented as in the file. An answer whose first
//!    line is indented is taken as indented from there; an answer starting at column 0 whose
//!    other lines are less indented than the span (or, after a first line opening a block,
//!    whose next line is not deeper than the span) is taken as written at column 0. Repeats of the whole prefix or suffix (the
//!    file from its first line, or to its last) count however short.
//! 5. An expression span keeps a single expression: the text up to the first line end
//!    outside brackets and strings, without a trailing comment.
//! 6. Trailing blanks and newlines are stripped (the suffix holds what follows the span);
//!    blank lines inside hold nothing.

use schemas::SpanKind;

use crate::clean::{fenced_blocks, strip_think};

/// End-of-text and sentinel markers of the known formats an answer is always cut at (those
/// a Python file hardly holds: `</s>` or `[SUFFIX]`, which a string or list may hold, only
/// for the formats that use them).
pub const END_MARKERS: &[&str] = &[
    "<|endoftext|>",
    "<|EOT|>",
    "<EOT>",
    "<|im_end|>",
    "<|end|>",
    "<｜end▁of▁sentence｜>",
    "<|file_sep|>",
    "<file_sep>",
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<fim_prefix>",
    "<fim_suffix>",
    "<fim_middle>",
    "<fim_pad>",
    "<repo_name>",
    "<PRE>",
    "<SUF>",
    "<MID>",
    "<｜fim▁begin｜>",
    "<｜fim▁hole｜>",
    "<｜fim▁end｜>",
];

/// What cleaning needs of the task and the request.
#[derive(Debug, Clone, Copy)]
pub struct Spec<'a> {
    pub kind: SpanKind,
    pub prefix: &'a str,
    pub suffix: &'a str,
    pub indent: &'a str,
    /// Further markers to cut at (the FIM format's).
    pub markers: &'a [String],
    /// A chat (or `command:`) answer rather than a FIM completion.
    pub chat: bool,
}

/// The fill of `raw`.
pub fn clean(raw: &str, spec: &Spec<'_>) -> String {
    let text = raw.replace("\r\n", "\n");
    let text = strip_think(&text);
    let text = cut_at_markers(text, spec.markers);
    let code = extract(text, spec.chat);
    let mut code = code.trim_end().to_string();
    if spec.kind == SpanKind::Expression {
        code = unquote_inline(&code).to_string();
    }
    let mut lines: Vec<String> = code
        .split('\n')
        .skip_while(|l| l.trim().is_empty())
        .map(str::to_string)
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let base = drop_repeated_prefix(&mut lines, spec.prefix);
    drop_repeated_suffix(&mut lines, spec.suffix);
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    if lines.is_empty() {
        return String::new();
    }
    let out = if spec.kind == SpanKind::Expression {
        // Its other lines are inside brackets or strings: where they start is no matter, or
        // part of a string's value.
        lines[0] = lines[0].trim_start().to_string();
        single_expression(&lines.join("\n")).to_string()
    } else {
        let base = base.unwrap_or_else(|| width(&lines[0]));
        reindent(&lines, base, spec.indent)
    };
    out.trim_end().to_string()
}

/// The text before the first marker.
fn cut_at_markers<'t>(text: &'t str, markers: &[String]) -> &'t str {
    let end = END_MARKERS
        .iter()
        .copied()
        .chain(markers.iter().map(String::as_str))
        .filter(|m| !m.is_empty())
        .filter_map(|m| text.find(m))
        .min()
        .unwrap_or(text.len());
    &text[..end]
}

/// The code of the text: the first Python fenced block (see the module's documentation).
fn extract(text: &str, chat: bool) -> String {
    if chat || text.trim_start().starts_with("```") || text.trim_start().starts_with("~~~") {
        let blocks = fenced_blocks(text);
        if let Some(b) = blocks
            .iter()
            .find(|b| b.lang.is_empty() || b.lang.starts_with("py"))
            .or_else(|| blocks.first())
        {
            return b.code.clone();
        }
        return text.to_string();
    }
    // A completion that closed a fence it imagined: the code ends there.
    match text.find("\n```") {
        Some(i) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// `` `a + b` `` → `a + b` (a one-line answer in inline code).
fn unquote_inline(code: &str) -> &str {
    let t = code.trim();
    if t.len() >= 2 && !t.contains('\n') && t.starts_with('`') && t.ends_with('`') {
        let inner = t.trim_matches('`');
        if !inner.contains('`') {
            return inner;
        }
    }
    code
}

fn width(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn nonblank(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

/// Opening minus closing brackets (strings not told apart: a heuristic's input).
fn balance(s: &str) -> i64 {
    s.chars()
        .map(|c| match c {
            '(' | '[' | '{' => 1,
            ')' | ']' | '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Whether matched lines are evidence of a repeat: two non-blank lines, or a dozen
/// non-blank characters.
fn substantial(lines: usize, chars: usize) -> bool {
    lines >= 2 || chars >= 12
}

/// Drops a repeated end of the prefix from the start of `lines`. Returns the indentation of
/// the line the fill starts in when that line was cut (the answer's base column).
fn drop_repeated_prefix(lines: &mut Vec<String>, prefix: &str) -> Option<usize> {
    let p: Vec<&str> = prefix.split('\n').collect();
    let (partial, full) = p.split_last().expect("split gives one piece");
    let partial_t = partial.trim_start();
    // Whole lines: the most that match, leaving something.
    let mut best = 0;
    for m in (1..lines.len().min(full.len() + 1)).rev() {
        let tail = &full[full.len() - m..];
        if !tail
            .iter()
            .zip(lines.iter())
            .all(|(a, b)| a.trim() == b.trim())
        {
            continue;
        }
        let mut count = tail.iter().filter(|l| !l.trim().is_empty()).count();
        let mut chars: usize = tail.iter().map(|l| nonblank(l)).sum();
        if !partial_t.trim().is_empty() && lines[m].trim_start().starts_with(partial_t) {
            count += 1;
            chars += nonblank(partial_t);
        }
        // The whole prefix repeated (the file from its first line) is evidence enough.
        if substantial(count, chars) || (m == full.len() && count > 0) {
            best = m;
            break;
        }
    }
    lines.drain(..best);
    let first = lines.first()?.clone();
    let cut = prefix_overlap(partial_t, first.trim_start());
    if cut == 0 {
        return None;
    }
    let w = width(&first);
    lines[0] = first[w + cut..].to_string();
    Some(w)
}

/// Bytes at the start of `line` (without its indentation) that repeat the end of `partial`
/// (the prefix's last line without its indentation).
fn prefix_overlap(partial: &str, line: &str) -> usize {
    for k in (1..=partial.len().min(line.len())).rev() {
        let start = partial.len() - k;
        if !partial.is_char_boundary(start) || !line.is_char_boundary(k) {
            continue;
        }
        let o = &partial[start..];
        if !line.starts_with(o) {
            continue;
        }
        let first = o.chars().next().expect("non-empty");
        let last = o.chars().next_back().expect("non-empty");
        // Whole words on both sides.
        if is_ident(first) && partial[..start].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        if is_ident(last) && line[k..].chars().next().is_some_and(is_ident) {
            continue;
        }
        if o.chars().any(is_ident) {
            return k;
        }
    }
    0
}

/// Drops a repeated start of the suffix from the end of `lines`.
fn drop_repeated_suffix(lines: &mut Vec<String>, suffix: &str) {
    let s: Vec<&str> = suffix.split('\n').collect();
    let (partial, full) = s.split_first().expect("split gives one piece");
    let partial_t = partial.trim_end();
    // Whole lines: the earliest start from which every line repeats the suffix's lines
    // (the last one maybe cut short), leaving something.
    for j in 1..lines.len() {
        let rest = &lines[j..];
        if rest.len() > full.len() {
            continue;
        }
        let matches = rest.iter().zip(full.iter()).enumerate().all(|(i, (a, b))| {
            a.trim() == b.trim()
                || (i + 1 == rest.len() && !a.trim().is_empty() && b.trim().starts_with(a.trim()))
        });
        if !matches {
            continue;
        }
        let mut count = rest.iter().filter(|l| !l.trim().is_empty()).count();
        let mut chars: usize = rest.iter().map(|l| nonblank(l)).sum();
        if !partial_t.trim().is_empty() && lines[j - 1].trim_end().ends_with(partial_t.trim()) {
            count += 1;
            chars += nonblank(partial_t);
        }
        // The whole rest of the file repeated is evidence enough.
        let to_the_end = full[rest.len()..].iter().all(|l| l.trim().is_empty());
        if substantial(count, chars) || (to_the_end && count > 0) {
            lines.truncate(j);
            break;
        }
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if let Some(last) = lines.last_mut() {
        let l = last.trim_end();
        let cut = suffix_overlap(partial_t.trim_start(), partial_t, l);
        if cut > 0 {
            *last = l[..l.len() - cut].to_string();
        }
    }
}

/// Bytes at the end of `line` that repeat the start of the suffix's first line (`first`,
/// tried with its leading blanks, `whole`, and without).
fn suffix_overlap(first: &str, whole: &str, line: &str) -> usize {
    for cand in [whole, first] {
        for k in (1..=cand.len().min(line.len())).rev() {
            if !cand.is_char_boundary(k) || !line.is_char_boundary(line.len() - k) {
                continue;
            }
            let o = &cand[..k];
            if o.trim().is_empty() || !line.ends_with(o) {
                continue;
            }
            let head = &line[..line.len() - k];
            let first_c = o.chars().next().expect("non-empty");
            let last_c = o.chars().next_back().expect("non-empty");
            if is_ident(last_c) && cand[k..].chars().next().is_some_and(is_ident) {
                continue;
            }
            if is_ident(first_c) && head.chars().next_back().is_some_and(is_ident) {
                continue;
            }
            if o.chars().any(is_ident) {
                if head.trim().is_empty() {
                    continue; // all of the line: more likely the fill itself
                }
                return k;
            }
            // Only marks: a repeat when it closes more than the fill opens, or a `:` `,` `;`
            // no fill ends with when the suffix starts with it.
            let t = o.trim_start();
            if (balance(line) < 0 && balance(head) > balance(line))
                || t.starts_with([':', ',', ';'])
            {
                return k;
            }
        }
    }
    0
}

/// The lines as a fill: the first without indentation, the others indented for the span.
/// `base` is the answer's own column of the first line.
fn reindent(lines: &[String], base: usize, indent: &str) -> String {
    let others = &lines[1..];
    let least = others
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| width(l))
        .min();
    let first = lines[0].trim_start();
    let opens = first
        .split(" #")
        .next()
        .unwrap_or(first)
        .trim_end()
        .ends_with(':');
    // Written where the span is (a completion, or a chat answer in place): kept. After a
    // line opening a block, its body must be deeper than the span.
    let next = others
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| width(l));
    let in_place = base == 0
        && (indent.is_empty()
            || (least.is_none_or(|w| w >= indent.len())
                && (!opens || next.is_none_or(|w| w > indent.len()))));
    let mut out = vec![first.to_string()];
    for l in others {
        if l.trim().is_empty() {
            out.push(String::new());
        } else if in_place {
            out.push(l.trim_end().to_string());
        } else {
            let strip = width(l).min(base);
            out.push(format!("{indent}{}", l[strip..].trim_end()));
        }
    }
    out.join("\n")
}

/// The index just past the Python string literal whose opening quote is at `i` (single or
/// triple quoted; backslash escapes skipped; an unclosed single-quoted string ends at its
/// line's end, an unclosed triple-quoted one at the text's end).
pub(crate) fn past_string(b: &[u8], mut i: usize) -> usize {
    let q = b[i];
    let triple = b.len() >= i + 3 && b[i + 1] == q && b[i + 2] == q;
    let close: &[u8] = if triple { &b[i..i + 3] } else { &b[i..=i] };
    i += close.len();
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i..].starts_with(close) {
            return i + close.len();
        }
        if !triple && b[i] == b'\n' {
            return i;
        }
        i += 1;
    }
    i
}

/// The first expression of the text: up to the first line end outside brackets and strings
/// (not after a `\`), without a comment at the top level.
pub fn single_expression(text: &str) -> &str {
    let b = text.as_bytes();
    let mut depth: i64 = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = past_string(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'#' => {
                if depth <= 0 {
                    return text[..i].trim_end();
                }
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\n' if depth <= 0 && !text[..i].trim_end().ends_with('\\') => {
                return text[..i].trim_end();
            }
            _ => {}
        }
        i += 1;
    }
    text.trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFIX: &str = "def add(a, b):\n    return ";

    fn spec<'a>(kind: SpanKind, prefix: &'a str, suffix: &'a str, indent: &'a str) -> Spec<'a> {
        Spec {
            kind,
            prefix,
            suffix,
            indent,
            markers: &[],
            chat: true,
        }
    }

    fn expr(raw: &str) -> String {
        clean(raw, &spec(SpanKind::Expression, PREFIX, "\n", "    "))
    }

    #[test]
    fn the_fill_alone_is_kept() {
        assert_eq!(expr("a + b"), "a + b");
        assert_eq!(expr("a + b\n"), "a + b");
        assert_eq!(expr("```python\na + b\n```"), "a + b");
        assert_eq!(expr("Here:\n```py\na + b\n```\nDone."), "a + b");
        assert_eq!(expr("`a + b`"), "a + b");
        assert_eq!(expr(""), "");
        assert_eq!(expr("```python\n```"), "");
    }

    #[test]
    fn trailing_newlines_are_stripped_the_same_way() {
        for raw in [
            "a + b",
            "a + b\n",
            "a + b\n\n\n",
            "a + b  \r\n",
            "\n\na + b",
        ] {
            assert_eq!(expr(raw), "a + b", "{raw:?}");
        }
        let s = spec(SpanKind::Block, "def f(x):\n    ", "\n", "    ");
        assert_eq!(
            clean("y = x\n    return y\n\n", &s),
            clean("y = x\n    return y", &s)
        );
    }

    #[test]
    fn sentinels_and_end_markers_cut() {
        let fim = crate::prompt::fim::Preset::Codestral.fim().markers();
        let s = Spec {
            markers: &fim,
            chat: false,
            ..spec(SpanKind::Expression, PREFIX, "\n", "    ")
        };
        assert_eq!(clean("a + b<|endoftext|>junk", &s), "a + b");
        assert_eq!(clean("a + b[SUFFIX]\n", &s), "a + b");
        assert_eq!(clean("a + b</s>", &s), "a + b");
        assert_eq!(clean("a + b<file_sep>other.py\n", &s), "a + b");
        assert_eq!(clean("a + b <EOT>", &s), "a + b");
        assert_eq!(clean("a + b<｜fim▁end｜>", &s), "a + b");
        // `</s>` and `[SUFFIX]` cut only in the formats that use them.
        assert_eq!(expr("'</s>' + b"), "'</s>' + b");
        assert_eq!(expr("[SUFFIX] + b"), "[SUFFIX] + b");
        // Reasoning goes.
        assert_eq!(
            expr("<think>hmm, a - b?</think>\n```python\na + b\n```"),
            "a + b"
        );
    }

    #[test]
    fn a_completion_ends_at_a_fence_it_closes() {
        let s = Spec {
            chat: false,
            ..spec(SpanKind::Expression, PREFIX, "\n", "    ")
        };
        assert_eq!(clean("a + b\n```\nThis adds.", &s), "a + b");
        assert_eq!(clean("```python\na + b\n```", &s), "a + b");
    }

    #[test]
    fn a_repeated_prefix_is_dropped() {
        assert_eq!(expr("return a + b"), "a + b");
        assert_eq!(expr("    return a + b"), "a + b");
        assert_eq!(expr("def add(a, b):\n    return a + b"), "a + b");
        assert_eq!(
            expr("```python\ndef add(a, b):\n    return a + b\n```"),
            "a + b"
        );
        // Not a word of the prefix: kept.
        assert_eq!(expr("return_value + 1"), "return_value + 1");
        let s = spec(SpanKind::Expression, "    y = f(a, ", ")\n", "    ");
        assert_eq!(clean("y = f(a, b)", &s), "b");
        assert_eq!(clean("f(a, b)", &s), "b");
        // A statement after the last prefix line equal to it stays (nothing else is left).
        let s = spec(
            SpanKind::Statement,
            "def f(self):\n    self.count += 1\n    ",
            "\n",
            "    ",
        );
        assert_eq!(clean("self.count += 1", &s), "self.count += 1");
        // Whole lines only when substantial.
        let s = spec(SpanKind::Block, "def f(x):\n    y = 1\n    ", "\n", "    ");
        assert_eq!(
            clean("y = 1\nz = 2", &s),
            "y = 1\n    z = 2",
            "one short line is no evidence"
        );
        assert_eq!(clean("def f(x):\n    y = 1\n    z = 2", &s), "z = 2");
    }

    #[test]
    fn a_repeated_suffix_is_dropped() {
        let s = spec(
            SpanKind::Expression,
            "def g(x):\n    y = f(",
            ")\n    return y\n\n\ndef h():\n    pass\n",
            "    ",
        );
        assert_eq!(clean("a, b)", &s), "a, b");
        assert_eq!(clean("a, b)\n    return y", &s), "a, b");
        assert_eq!(
            clean("a, b)\n    return y\n\n\ndef h():\n    pa", &s),
            "a, b"
        );
        // A balanced fill keeps its closing bracket.
        assert_eq!(clean("g(a)", &s), "g(a)");
        let s = spec(SpanKind::Expression, "    if ", ":\n        pass\n", "    ");
        assert_eq!(clean("x > 0:", &s), "x > 0");
        let s = spec(SpanKind::Expression, "    y = ", " if c else d\n", "    ");
        assert_eq!(clean("x if c else d", &s), "x");
        // A FIM model going on with the suffix.
        let s = Spec {
            chat: false,
            ..spec(
                SpanKind::Block,
                "def clamp(x, lo, hi):\n    ",
                "\n    return x\n\n\ndef main():\n    print(clamp(1, 2, 3))\n",
                "    ",
            )
        };
        assert_eq!(
            clean(
                "if x < lo:\n        return lo\n    return x\n\n\ndef main():\n    print(clamp(1, 2, 3))\n",
                &s
            ),
            "if x < lo:\n        return lo"
        );
    }

    #[test]
    fn blocks_are_indented_for_the_span() {
        let s = spec(
            SpanKind::Block,
            "def f(xs):\n    ",
            "\n    return t\n",
            "    ",
        );
        // In place (as a completion writes it).
        let placed = "t = 0\n    for x in xs:\n        t += x";
        assert_eq!(clean(placed, &s), placed);
        // At column 0 (a chat answer dedented).
        assert_eq!(clean("t = 0\nfor x in xs:\n    t += x", &s), placed);
        assert_eq!(
            clean("for x in xs:\n    t += x", &s),
            "for x in xs:\n        t += x"
        );
        assert_eq!(
            clean("for x in xs:\n        t += x", &s),
            "for x in xs:\n        t += x"
        );
        // Indented as in the file, first line too.
        assert_eq!(
            clean("    t = 0\n    for x in xs:\n        t += x", &s),
            placed
        );
        // Indented from elsewhere: rebased.
        let deep = spec(
            SpanKind::Block,
            "class A:\n    def f(self):\n        ",
            "\n",
            "        ",
        );
        assert_eq!(
            clean("  x = 1\n  if x:\n    y = 2", &deep),
            "x = 1\n        if x:\n          y = 2"
        );
        // Blank lines inside hold nothing.
        assert_eq!(
            clean("t = 0\n   \nfor x in xs:\n    t += x", &s),
            "t = 0\n\n    for x in xs:\n        t += x"
        );
    }

    #[test]
    fn a_reference_is_its_own_fill() {
        let cases = [
            (
                SpanKind::Block,
                "    ",
                "if x < lo:\n        return lo\n    if x > hi:\n        return hi",
            ),
            (
                SpanKind::Block,
                "        ",
                "for k in d:\n            t += d[k]\n        t *= 2",
            ),
            (SpanKind::Statement, "    ", "x = [\n        1,\n    ]"),
            (SpanKind::Function, "", "def area(r):\n    return r * r"),
            (SpanKind::Function, "    ", "def m(self):\n        return 1"),
            (SpanKind::Expression, "    ", "f(\n  a,\n)"),
        ];
        for (kind, indent, reference) in cases {
            let prefix = format!("class A:\n{indent}");
            for chat in [true, false] {
                let s = Spec {
                    chat,
                    ..spec(kind, &prefix, "\n", indent)
                };
                assert_eq!(clean(reference, &s), reference, "{kind:?} chat={chat}");
            }
        }
    }

    #[test]
    fn an_expression_is_one_expression() {
        assert_eq!(expr("a + b\nprint(a)"), "a + b");
        assert_eq!(expr("a + b  # the sum"), "a + b");
        assert_eq!(expr("f(a,  # first\n  b)"), "f(a,  # first\n  b)");
        assert_eq!(expr("    \"\"\"a\nb\"\"\""), "\"\"\"a\nb\"\"\"");
        assert_eq!(expr("a + \\\n    b\nmore"), "a + \\\n    b");
        assert_eq!(expr("'#' + b\nx"), "'#' + b");
        assert_eq!(expr("\"\"\"a\nb\"\"\" + c\nd"), "\"\"\"a\nb\"\"\" + c");
        assert_eq!(single_expression("(a\n)"), "(a\n)");
        // Statement spans keep every line (shifted to the span, written at column 0).
        let s = spec(SpanKind::Statement, "def f():\n    ", "\n", "    ");
        assert_eq!(clean("x = [\n    1,\n]", &s), "x = [\n        1,\n    ]");
        assert_eq!(
            clean("x = [\n        1,\n    ]", &s),
            "x = [\n        1,\n    ]"
        );
    }

    #[test]
    fn functions_at_column_0() {
        let s = spec(
            SpanKind::Function,
            "import math\n\n\n",
            "\n\n\ndef main():\n    pass\n",
            "",
        );
        let f = "def area(r):\n    return math.pi * r ** 2";
        assert_eq!(clean(f, &s), f);
        assert_eq!(clean(&format!("```python\n{f}\n```"), &s), f);
        assert_eq!(clean(&format!("{f}\n\n\ndef main():\n    pass\n"), &s), f);
        assert_eq!(clean(&format!("import math\n\n\n{f}"), &s), f);
    }

    proptest::proptest! {
        /// Cleaning a clean fill changes nothing (of lines that open no block: after a line
        /// ending in `:` without a deeper one, indentation is ambiguous).
        #[test]
        fn cleaning_is_idempotent(lines in proptest::collection::vec(
            proptest::sample::select(vec![
                "x = 1", "    y = 2", "        z()", "", "return x", "a + b",
                "f(a, b)", ")", "# note", "```", "  w = [", "]",
            ]),
            0..8,
        )) {
            for kind in [SpanKind::Expression, SpanKind::Block] {
                for chat in [true, false] {
                    let s = Spec {
                        chat,
                        ..spec(kind, "def f(a, b):\n    ", "\n    return a\n", "    ")
                    };
                    let once = clean(&lines.join("\n"), &s);
                    proptest::prop_assert_eq!(clean(&once, &s), once.clone());
                }
            }
        }
    }
}
