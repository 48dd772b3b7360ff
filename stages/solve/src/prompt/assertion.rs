//! The `assertion` family: say what value a real test assertion sees (`value` form), or
//! whether an assertion with a claimed value holds (`verify` form).
//!
//! - Chat endpoint: a system and a user message showing the code the test runs (each file
//!   under a `# file: PATH` header, in mask's order: the mutated function first on a mutated
//!   task), then the test as the model sees it (the test file's imports and the test
//!   function). Value form: the test holds `??` ([`VALUE_MARK`]) where the expected value
//!   was; the request is for the subject's value as a Python literal (or, for an object
//!   without one, the expression its repr shows; for `raises`, the exception type's name),
//!   alone in one fenced block. Verify form: the test holds the assertion with its claim;
//!   the request is for exactly `True` or `False`.
//! - Completions endpoint (a base model continuing text): the code files under `# file:`
//!   headers (the best last, next to the test), then the test file. Value form: the test
//!   cut right at `??`, so that the continuation is the value; with a FIM format
//!   (`--fim-preset`, `openai-fim:`) the value form is a fill-in-the-middle prompt instead,
//!   the test before `??` as the prefix and after it as the suffix (the FIM layout of
//!   completion tasks, [`completion::fim_text`]), so that the model sees the rest of the
//!   assertion too. Verify form (with or without FIM: it has no hole): the whole test, then
//!   a comment asking whether the assertion passes and `# Answer:`. Plain prompts stop at
//!   a newline; FIM prompts at the format's stops.
//!
//! Both stay within `--prompt-budget` tokens: the code snippets are dropped from the last
//! (lowest ranked) while the prompt is over it, the first always kept (on a mutated task it
//! is the mutated code, without which the task cannot be answered). The answer, the
//! original value and whether the task is mutated never reach a prompt.
//!
//! The model's text becomes an answer in [`clean`], the family's one cleaning.

use std::fmt::Write as _;

use schemas::{AssertionForm, AssertionKind, ContextSnippet, SpanKind};

use super::completion::{self, fence, tokens, with_newline, Window, OVERHEAD};
use super::{Api, Fim, Message, NoPrompt, Options, Prompt};
use crate::clean::{fenced_blocks, strip_think};
use crate::fill::END_MARKERS;
use crate::task::{Assertion, Completion, Task, VALUE_MARK};

/// The system message of chat requests.
pub const SYSTEM: &str = "You are an expert Python programmer. You work out exactly what Python code does when it runs by reading it, and answer with only what is asked.";

/// Where a plain completion stops: the value (or the verdict) ends with its line.
pub const PLAIN_STOP: &str = "\n";

fn snippet_tokens(s: &ContextSnippet) -> usize {
    tokens(&s.path) + tokens(&s.text) + 4
}

/// The code snippets that fit in `budget` tokens with the test, in the table's order (see
/// the module's documentation), and how many were dropped.
pub fn context(a: &Assertion, budget: usize) -> (Vec<&ContextSnippet>, usize) {
    let mut ctx: Vec<&ContextSnippet> = a.code_context.iter().collect();
    let fixed = tokens(&a.test_source) + tokens(&a.masked_assertion) + OVERHEAD;
    let mut used: usize = ctx.iter().map(|s| snippet_tokens(s)).sum();
    while ctx.len() > 1 && fixed + used > budget {
        let last = ctx.pop().expect("more than one snippet");
        used -= snippet_tokens(last);
    }
    let dropped = a.code_context.len() - ctx.len();
    (ctx, dropped)
}

/// The byte offset of [`VALUE_MARK`] in the test: the one in the masked assertion (the first
/// `??` of the test when the assertion is not found in it).
pub fn mark_at(a: &Assertion) -> Option<usize> {
    let in_assertion = a.masked_assertion.find(VALUE_MARK);
    if let (Some(start), Some(off)) = (a.test_source.find(&a.masked_assertion), in_assertion) {
        return Some(start + off);
    }
    a.test_source.find(VALUE_MARK)
}

/// The masked assertion named in a sentence: in inline code when it is one line.
fn named(a: &Assertion) -> String {
    let s = a.masked_assertion.trim();
    match s.lines().next() {
        Some(first) if s.contains('\n') && !first.contains('`') => {
            format!("the assertion starting `{}`", first.trim())
        }
        _ if s.contains('\n') || s.contains('`') => match a.form {
            AssertionForm::Value => format!("the assertion holding {VALUE_MARK}"),
            AssertionForm::Verify => "the assertion of the test".to_string(),
        },
        _ => format!("the assertion `{s}`"),
    }
}

/// `text` in inline code, when it can be.
fn code_span(text: &str) -> String {
    let t = text.trim();
    if t.contains('`') || t.contains('\n') {
        format!("\"{}\"", t.lines().next().unwrap_or(""))
    } else {
        format!("`{t}`")
    }
}

/// What the chat request asks, after the code and the test.
fn question(a: &Assertion) -> String {
    let assertion = named(a);
    match (a.form, a.kind) {
        (AssertionForm::Verify, _) => format!(
            "Does {assertion} pass when this test runs? Answer with exactly one word: True if it passes, False if it fails."
        ),
        (AssertionForm::Value, AssertionKind::Raises) => format!(
            "The block of {assertion} raises an exception (its first line: {subject}). Of which type? \
             Answer with only the exception type's name that replaces {VALUE_MARK} (such as `ValueError`, or \
             `pkg.errors.ParseError` for a class of the repository), in one ```python code block.",
            subject = code_span(&a.subject),
        ),
        (AssertionForm::Value, kind) => {
            let note = match kind {
                AssertionKind::Approx => " It is compared as a float, within a small tolerance.",
                AssertionKind::Truth => {
                    " Give the value itself, not only whether it is true."
                }
                _ => "",
            };
            format!(
                "What is the value of {subject} when {assertion} runs? {VALUE_MARK} stands for it: the assertion \
                 passes with it in place.{note} Answer with only the value, written as a Python literal (such as \
                 `[1, 'a']`, `{{'k': 2.5}}` or `None`) or, for an object that has no literal, as its repr shows it \
                 (such as `Money(1250)`), in one ```python code block.",
                subject = code_span(&a.subject),
            )
        }
    }
}

/// The user message of a chat request.
pub fn user_message(a: &Assertion, ctx: &[&ContextSnippet]) -> String {
    let mut texts: Vec<&str> = vec![&a.test_source];
    texts.extend(ctx.iter().map(|s| s.text.as_str()));
    let f = fence(&texts);
    let mut out = String::new();
    if !ctx.is_empty() {
        out.push_str("Code of the repository that the test runs:\n\n");
        for s in ctx {
            let _ = write!(
                out,
                "{f}python\n# file: {}\n{}{f}\n\n",
                s.path,
                with_newline(&s.text)
            );
        }
    }
    let what = match a.form {
        AssertionForm::Value => {
            format!(", with {VALUE_MARK} in place of the expected value of one assertion")
        }
        AssertionForm::Verify => String::new(),
    };
    let _ = write!(
        out,
        "A test of the repository, from `{path}`{what}:\n\n{f}python\n# file: {path}\n{test}{f}\n\n",
        path = a.path,
        test = with_newline(&a.test_source),
    );
    out.push_str(&question(a));
    out.push('\n');
    out
}

/// The code files as a plain text, the best last (next to the test), each under a
/// `# file: PATH` header.
fn plain_head(ctx: &[&ContextSnippet]) -> String {
    let mut out = String::new();
    for s in ctx.iter().rev() {
        let _ = writeln!(out, "# file: {}\n{}", s.path, with_newline(&s.text));
    }
    out
}

/// The prompt of the completions endpoint without FIM (see the module's documentation).
pub fn plain_text(a: &Assertion, ctx: &[&ContextSnippet]) -> Result<String, NoPrompt> {
    let mut out = plain_head(ctx);
    let _ = writeln!(out, "# file: {}", a.path);
    match a.form {
        AssertionForm::Value => {
            let at = mark_at(a).ok_or_else(|| no_mark(a))?;
            out.push_str(&a.test_source[..at]);
        }
        AssertionForm::Verify => {
            out.push_str(&with_newline(&a.test_source));
            out.push_str(
                "\n\n# Does this assertion of the test above pass when the test runs (True or False)?\n",
            );
            for line in a.masked_assertion.trim().lines() {
                let _ = writeln!(out, "#     {line}");
            }
            out.push_str("# Answer:");
        }
    }
    Ok(out)
}

fn no_mark(a: &Assertion) -> NoPrompt {
    NoPrompt(format!(
        "the test of this value task holds no `{VALUE_MARK}` where the value goes (masked assertion: {}); this is a bug in mask",
        a.masked_assertion.trim()
    ))
}

/// The fill-in-the-middle prompt of a value task: the test around `??`, the code before it.
pub fn fim_text(a: &Assertion, ctx: &[&ContextSnippet], fim: &Fim) -> Result<String, NoPrompt> {
    let at = mark_at(a).ok_or_else(|| no_mark(a))?;
    let file = Completion {
        path: a.path.clone(),
        span_kind: SpanKind::Expression,
        prefix: a.test_source[..at].to_string(),
        suffix: a.test_source[at + VALUE_MARK.len()..].to_string(),
        indent: String::new(),
        context: Vec::new(),
    };
    let window = Window {
        prefix: file.prefix.clone(),
        suffix: file.suffix.clone(),
        context: ctx.to_vec(),
        prefix_lines_dropped: 0,
        suffix_lines_dropped: 0,
        context_dropped: 0,
    };
    Ok(completion::fim_text(&file, &window, fim))
}

pub fn build(task: &Task, opts: &Options) -> Result<Prompt, NoPrompt> {
    let a = task.assertion.as_ref().ok_or_else(|| {
        NoPrompt("an assertion task without its test; this is a bug in solve".into())
    })?;
    let (ctx, dropped) = context(a, opts.budget);
    if dropped > 0 {
        tracing::debug!(task = %task.task_id, context_dropped = dropped, "prompt cut to --prompt-budget");
    }
    Ok(match (opts.api, a.form, &opts.fim) {
        (Api::Chat, _, _) => Prompt::Chat(vec![
            Message {
                role: "system",
                content: SYSTEM.to_string(),
            },
            Message {
                role: "user",
                content: user_message(a, &ctx),
            },
        ]),
        (Api::Completions, AssertionForm::Value, Some(fim)) => Prompt::Completion {
            prompt: fim_text(a, &ctx, fim)?,
            stop: fim.stop.iter().take(4).cloned().collect(),
        },
        (Api::Completions, _, _) => Prompt::Completion {
            prompt: plain_text(a, &ctx)?,
            stop: vec![PLAIN_STOP.to_string()],
        },
    })
}

/// The answer from a model's text: cleaned as [`clean`] says, a completion as the
/// continuation of the test (cut at the FIM format's markers when there is one).
pub fn answer(task: &Task, opts: &Options, text: &str) -> String {
    let Some(a) = &task.assertion else {
        return String::new();
    };
    match opts.api {
        Api::Chat => clean(a, text, &[], false),
        Api::Completions => {
            let markers = opts.fim.as_ref().map(Fim::markers).unwrap_or_default();
            clean(a, text, &markers, true)
        }
    }
}

/// The answer of an assertion task from a model's text (`continued`: the text continues the
/// test where the value goes, as a completion does):
///
/// 1. Reasoning (`<think>...</think>`) is dropped, and the text is cut at the first
///    end-of-text or sentinel marker ([`END_MARKERS`] and `markers`).
/// 2. The code of the first Python (or bare) fenced block is taken when there is one, else
///    the whole text; a one-line answer in inline code loses its backticks.
/// 3. Verify form: the first word (case aside, a leading `Answer:` skipped) `true`, `yes`,
///    `pass`, `passes`, `passed`, `holds` gives `True`; `false`, `no`, `fail`, `fails`,
///    `failed` gives `False`; any other text is kept as given (the judge counts it wrong).
/// 4. `raises` (value form): a `with pytest.raises(`…`):` or `self.assertRaises(`…`)`
///    wrapper and a `raise` are dropped, and the first dotted name is the answer
///    (`ValueError`, `pkg.errors.ParseError`).
/// 5. Other value tasks: a repeated assertion is dropped (the masked assertion's text
///    before and after `??`, `assert A == B` (the side that is not the subject), a
///    `subject ==` or `==` start); `pytest.approx(V)` is `V` for `approx` tasks; then a
///    single expression is kept: up to the first line end outside brackets and strings
///    (the first non-empty line unless brackets are open), an unmatched closing bracket, a
///    comment or a `;`, and (after a repeated assertion, or in a continuation, where the
///    line goes on with the assertion's other arguments) a top-level comma; surrounding
///    whitespace and a trailing comma are stripped.
pub fn clean(a: &Assertion, raw: &str, markers: &[String], continued: bool) -> String {
    let text = raw.replace("\r\n", "\n");
    let text = strip_think(&text);
    let text = cut_at(text, markers);
    let code = code_of(text);
    match (a.form, a.kind) {
        (AssertionForm::Verify, _) => verdict(&code),
        (AssertionForm::Value, AssertionKind::Raises) => exception_name(&code),
        (AssertionForm::Value, _) => value(a, &code, continued),
    }
}

/// The text before the first marker.
fn cut_at<'t>(text: &'t str, markers: &[String]) -> &'t str {
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

/// The first Python (else any) fenced block's code, else the text; trimmed, inline code
/// unquoted.
fn code_of(text: &str) -> String {
    let blocks = fenced_blocks(text);
    let code = blocks
        .iter()
        .find(|b| b.lang.is_empty() || b.lang.starts_with("py"))
        .or_else(|| blocks.first())
        .map_or(text, |b| b.code.as_str())
        .trim();
    if !code.contains('\n') && code.len() >= 2 && code.starts_with('`') && code.ends_with('`') {
        let inner = code.trim_matches('`');
        if !inner.contains('`') {
            return inner.trim().to_string();
        }
    }
    code.to_string()
}

/// `True` / `False` from a verify answer's first word, else the text as given.
fn verdict(code: &str) -> String {
    let mut rest = code;
    loop {
        let start = rest.trim_start_matches(|c: char| !c.is_alphanumeric());
        let len = start
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(start.len());
        let word = start[..len].to_ascii_lowercase();
        match word.as_str() {
            "answer" if len > 0 => rest = &start[len..],
            "true" | "yes" | "pass" | "passes" | "passed" | "holds" => return "True".into(),
            "false" | "no" | "fail" | "fails" | "failed" => return "False".into(),
            _ => return code.to_string(),
        }
    }
}

/// The exception type's dotted name in a `raises` answer.
fn exception_name(code: &str) -> String {
    let mut t = code.trim();
    t = t.strip_prefix("with ").map_or(t, str::trim_start);
    for wrapper in [
        "pytest.raises(",
        "raises(",
        "self.assertRaisesRegex(",
        "self.assertRaises(",
        "assertRaisesRegex(",
        "assertRaises(",
    ] {
        if let Some(rest) = t.strip_prefix(wrapper) {
            t = rest;
            break;
        }
    }
    t = t.strip_prefix("raise ").unwrap_or(t);
    dotted_name(t).map_or_else(|| code.trim().to_string(), str::to_string)
}

/// The first dotted name (`a.b.C`) of a text, after anything that cannot start one.
fn dotted_name(text: &str) -> Option<&str> {
    let start = text.find(|c: char| c.is_alphabetic() || c == '_')?;
    let t = &text[start..];
    let mut end = 0;
    let mut after_dot = true;
    for (i, c) in t.char_indices() {
        if c.is_alphanumeric() || c == '_' {
            after_dot = false;
            end = i + c.len_utf8();
        } else if c == '.' && !after_dot {
            after_dot = true;
        } else {
            break;
        }
    }
    Some(&t[..end])
}

/// Calls `stop` on each byte of `text` outside strings and comment bodies (a comment's `#`
/// itself is shown), with the bracket depth before it; the offset of the first byte `stop`
/// accepts.
fn walk(text: &str, mut stop: impl FnMut(usize, u8, i64) -> bool) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth: i64 = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if stop(i, c, depth) {
            return Some(i);
        }
        match c {
            b'"' | b'\'' => {
                i = crate::fill::past_string(b, i);
                continue;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A single expression at the start of `text` (see [`clean`], step 5).
fn expression(text: &str, at_comma: bool) -> &str {
    let t = text.trim_start();
    let end = walk(t, |i, c, depth| {
        depth <= 0
            && match c {
                b'\n' => !t[..i].trim_end().ends_with('\\'),
                b')' | b']' | b'}' | b'#' | b';' => true,
                b',' => at_comma,
                _ => false,
            }
    })
    .unwrap_or(t.len());
    t[..end].trim_end().trim_end_matches(',').trim_end()
}

/// `A == B` split at its first top-level `==`.
fn split_eq(t: &str) -> Option<(&str, &str)> {
    let b = t.as_bytes();
    let at = walk(t, |i, c, depth| {
        depth == 0
            && c == b'='
            && b.get(i + 1) == Some(&b'=')
            && !(i > 0 && matches!(b[i - 1], b'=' | b'!' | b'<' | b'>'))
    })?;
    Some((t[..at].trim(), t[at + 2..].trim()))
}

fn squashed(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A value answer (see [`clean`], step 5).
fn value(a: &Assertion, code: &str, continued: bool) -> String {
    let mut t: &str = code.trim();
    let mut at_comma = continued;
    // The masked assertion repeated with the value in place of `??`.
    if let Some(off) = a.masked_assertion.find(VALUE_MARK) {
        let before = a.masked_assertion[..off].trim_start();
        let after = a.masked_assertion[off + VALUE_MARK.len()..].trim_end();
        if !before.trim().is_empty() && t.starts_with(before) {
            t = t[before.len()..].trim_start();
            if !after.trim().is_empty() {
                t = t.strip_suffix(after).map_or(t, str::trim_end);
            }
            at_comma = true;
        } else if before.trim().is_empty() && !after.trim().is_empty() && t.ends_with(after) {
            t = t[..t.len() - after.len()].trim_end();
        }
    }
    // `assert A == B`: the side that is not the subject.
    if let Some(rest) = t.strip_prefix("assert ") {
        if let Some((left, right)) = split_eq(rest) {
            let subject = squashed(&a.subject);
            t = if squashed(right) == subject && squashed(left) != subject {
                left
            } else {
                right
            };
            at_comma = true;
        }
    }
    // `subject == V`, `== V`.
    let subject = a.subject.trim();
    if !subject.is_empty() {
        if let Some(rest) = t.strip_prefix(subject) {
            if let Some(v) = rest.trim_start().strip_prefix("==") {
                t = v.trim_start();
            }
        }
    }
    if let Some(v) = t.strip_prefix("==") {
        t = v.trim_start();
    }
    let mut e = expression(t, at_comma);
    if a.kind == AssertionKind::Approx {
        for wrapper in ["pytest.approx(", "approx("] {
            if let Some(inner) = e.strip_prefix(wrapper) {
                e = expression(inner, true);
                break;
            }
        }
    }
    e.trim().trim_end_matches([',', ';']).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{assertion_task, raises_task};
    use crate::prompt::fim::Preset;
    use schemas::AssertionTask;

    fn task(row: &AssertionTask) -> Task {
        Task::from(row)
    }

    fn value_task() -> Task {
        task(&assertion_task("a1", AssertionForm::Value, false))
    }

    fn chat(t: &Task) -> String {
        let Prompt::Chat(m) = build(t, &Options::chat()).unwrap() else {
            panic!("a chat prompt")
        };
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].content, SYSTEM);
        m[1].content.clone()
    }

    fn at(text: &str, part: &str) -> usize {
        text.find(part)
            .unwrap_or_else(|| panic!("{part:?} not in {text:?}"))
    }

    #[test]
    fn the_value_prompt_shows_the_code_then_the_test_with_the_mark() {
        let t = value_task();
        let u = chat(&t);
        assert!(
            u.starts_with("Code of the repository that the test runs:\n\n```python\n# file: pkg/prices.py\ndef total("),
            "{u}"
        );
        assert!(at(&u, "# file: pkg/prices.py") < at(&u, "# file: pkg/__init__.py"));
        assert!(
            u.contains("# file: tests/test_prices.py\nimport pytest\n\nfrom pkg.prices import parse_price, total\n"),
            "{u}"
        );
        assert!(
            u.contains("    assert total(prices, discount=1) == ??\n```"),
            "{u}"
        );
        assert!(u.contains("from `tests/test_prices.py`, with ?? in place of the expected value"));
        assert!(
            u.contains("What is the value of `total(prices, discount=1)` when the assertion `assert total(prices, discount=1) == ??` runs?"),
            "{u}"
        );
        assert!(u.contains("Python literal") && u.contains("`Money(1250)`"));
        assert!(u.contains("one ```python code block"));
        assert!(at(&u, "def total(") < at(&u, "def test_total():"));
        // Neither the answer nor the original value.
        assert!(!u.contains("== 5"), "{u}");
    }

    #[test]
    fn the_raises_prompt_asks_for_the_type() {
        let u = chat(&task(&raises_task("r1", AssertionForm::Value, false)));
        assert!(u.contains("    with pytest.raises(??):\n        parse_price(None)\n"));
        assert!(u.contains("Of which type?"), "{u}");
        assert!(u.contains("`parse_price(None)`"), "{u}");
        assert!(u.contains("`ValueError`") && u.contains("`pkg.errors.ParseError`"));
        assert!(!u.contains("raises(TypeError"), "{u}");
    }

    #[test]
    fn the_verify_prompt_shows_the_claim_and_asks_true_or_false() {
        for mutated in [false, true] {
            let row = assertion_task("v1", AssertionForm::Verify, mutated);
            let u = chat(&task(&row));
            assert!(
                u.contains("    assert total(prices, discount=1) == 5\n```"),
                "{u}"
            );
            assert!(!u.contains("??"), "{u}");
            assert!(
                u.contains("Does the assertion `assert total(prices, discount=1) == 5` pass when this test runs? Answer with exactly one word: True if it passes, False if it fails."),
                "{u}"
            );
            // The mutated code is shown; whether it is mutated is not said.
            assert_eq!(u.contains("sum(prices) + discount"), mutated);
            assert!(!u.contains("mutat"), "{u}");
        }
    }

    #[test]
    fn completions_continue_the_test_at_the_mark() {
        let opts = Options {
            api: Api::Completions,
            ..Options::chat()
        };
        let Prompt::Completion { prompt, stop } = build(&value_task(), &opts).unwrap() else {
            panic!()
        };
        assert_eq!(stop, ["\n"]);
        // The best snippet last, next to the test.
        assert!(
            prompt.starts_with(
                "# file: pkg/__init__.py\n\"\"\"Prices.\"\"\"\n\n# file: pkg/prices.py\ndef total("
            ),
            "{prompt}"
        );
        assert!(
            prompt.ends_with("# file: tests/test_prices.py\nimport pytest\n\nfrom pkg.prices import parse_price, total\n\n\ndef test_total():\n    prices = [1, 2, 3]\n    assert total(prices, discount=1) == "),
            "{prompt}"
        );
        let Prompt::Completion { prompt, .. } =
            build(&task(&raises_task("r", AssertionForm::Value, false)), &opts).unwrap()
        else {
            panic!()
        };
        assert!(prompt.ends_with("    with pytest.raises("), "{prompt}");
        // Verify: the whole test and the question.
        let Prompt::Completion { prompt, stop } = build(
            &task(&assertion_task("v", AssertionForm::Verify, false)),
            &opts,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(stop, ["\n"]);
        assert!(
            prompt.ends_with("    assert total(prices, discount=1) == 5\n\n\n# Does this assertion of the test above pass when the test runs (True or False)?\n#     assert total(prices, discount=1) == 5\n# Answer:"),
            "{prompt}"
        );
    }

    #[test]
    fn fim_formats_put_the_mark_between_prefix_and_suffix() {
        let fim = Preset::Qwen.fim();
        let opts = Options {
            api: Api::Completions,
            fim: Some(fim.clone()),
            budget: 6000,
            ..Options::chat()
        };
        let Prompt::Completion { prompt, stop } = build(&value_task(), &opts).unwrap() else {
            panic!()
        };
        assert_eq!(stop, fim.stop);
        assert!(
            prompt.starts_with("<|file_sep|>pkg/__init__.py\n"),
            "{prompt}"
        );
        assert!(
            prompt.contains("<|file_sep|>tests/test_prices.py\n<|fim_prefix|>import pytest\n"),
            "{prompt}"
        );
        assert!(
            prompt.ends_with(
                "    assert total(prices, discount=1) == <|fim_suffix|>\n<|fim_middle|>"
            ),
            "{prompt}"
        );
        // Verify tasks have no hole: the plain form.
        let Prompt::Completion { prompt, stop } = build(
            &task(&assertion_task("v", AssertionForm::Verify, false)),
            &opts,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(stop, ["\n"]);
        assert!(prompt.ends_with("# Answer:") && !prompt.contains("<|fim"));
    }

    #[test]
    fn a_small_budget_drops_the_lowest_ranked_code_but_never_the_first() {
        let row = assertion_task("a", AssertionForm::Value, true);
        let a = task(&row).assertion.unwrap();
        let (kept, dropped) = context(&a, 6000);
        assert_eq!((kept.len(), dropped), (2, 0));
        let (kept, dropped) = context(&a, 10);
        assert_eq!((kept.len(), dropped), (1, 1));
        assert_eq!(kept[0].path, "pkg/prices.py");
        let small = Options {
            budget: 10,
            ..Options::chat()
        };
        let Prompt::Chat(m) = build(&task(&row), &small).unwrap() else {
            panic!()
        };
        assert!(!m[1].content.contains("pkg/__init__.py"));
        assert!(m[1].content.contains("sum(prices) + discount"));
    }

    #[test]
    fn the_mark_is_found_in_the_assertion() {
        let mut row = assertion_task("a", AssertionForm::Value, false);
        // A `??` in a string of the test before the assertion is not the mark.
        row.test_source = row.test_source.replace(
            "    prices = [1, 2, 3]\n",
            "    prices = [1, 2, 3]  # ?? not here\n",
        );
        let a = task(&row).assertion.unwrap();
        assert_eq!(&a.test_source[mark_at(&a).unwrap() - 3..], "== ??\n");
        row.test_source = row.test_source.replace("== ??", "== X");
        row.masked_assertion = "assert total(prices, discount=1) == X".into();
        let t = task(&row);
        let opts = Options {
            api: Api::Completions,
            ..Options::chat()
        };
        // A comment's `??` is taken as a last resort; without any, the prompt is refused.
        assert!(build(&t, &opts).is_ok());
        row.test_source = row.test_source.replace("# ?? not here", "");
        let err = build(&task(&row), &opts).unwrap_err();
        assert!(err.0.contains("bug in mask"), "{err}");
    }

    fn cleaned(row: &AssertionTask, raw: &str, continued: bool) -> String {
        clean(task(row).assertion.as_ref().unwrap(), raw, &[], continued)
    }

    #[test]
    fn messy_value_answers() {
        let row = assertion_task("a", AssertionForm::Value, false);
        for (raw, want) in [
            ("5", "5"),
            ("  5  \n", "5"),
            ("```python\n5\n```", "5"),
            (
                "The value is:\n\n```python\n[1, 'a']\n```\nbecause...",
                "[1, 'a']",
            ),
            (
                "```\n{'a': 1,\n 'b': [2, 3]}\n```",
                "{'a': 1,\n 'b': [2, 3]}",
            ),
            ("`Money(1250)`", "Money(1250)"),
            ("```python\nassert total(prices, discount=1) == 5\n```", "5"),
            ("assert total(prices, discount=1) == 5, 'the sum'", "5"),
            ("assert total(prices,discount=1) == (5, 6)", "(5, 6)"),
            ("assert 5 == total(prices, discount=1)", "5"),
            ("total(prices, discount=1) == 5", "5"),
            ("== 5", "5"),
            ("5,", "5"),
            ("5;", "5"),
            ("5  # the sum less one", "5"),
            ("5\n\nThe sum 6 less the discount 1.", "5"),
            ("\n\n'a, b'\nmore", "'a, b'"),
            (
                "<think>\nsum is 6, minus 1\n</think>\n```python\n5\n```",
                "5",
            ),
            ("'#' + 'x'", "'#' + 'x'"),
            ("1, 2", "1, 2"),
            ("", ""),
        ] {
            assert_eq!(cleaned(&row, raw, false), want, "{raw:?}");
        }
        // A continuation goes on with the rest of the assertion's line.
        for (raw, want) in [
            (" 5", "5"),
            ("5)", "5"),
            (" Money(1250))  # x", "Money(1250)"),
            ("5, 'message')", "5"),
            ("[1,\n 2]\n", "[1,\n 2]"),
            ("5<|endoftext|>junk", "5"),
        ] {
            assert_eq!(cleaned(&row, raw, true), want, "{raw:?}");
        }
    }

    #[test]
    fn repeated_assertions_of_other_shapes() {
        let mut row = assertion_task("a", AssertionForm::Value, false);
        row.masked_assertion = "self.assertEqual(total(prices, discount=1), ??)".into();
        row.test_source = row.test_source.replace(
            "assert total(prices, discount=1) == ??",
            &row.masked_assertion,
        );
        for (raw, want) in [
            ("self.assertEqual(total(prices, discount=1), 5)", "5"),
            (
                "self.assertEqual(total(prices, discount=1), (5, 6))",
                "(5, 6)",
            ),
            ("self.assertEqual(total(prices, discount=1), 5, 'msg')", "5"),
            ("(5, 6)", "(5, 6)"),
        ] {
            assert_eq!(cleaned(&row, raw, false), want, "{raw:?}");
        }
        row.kind = AssertionKind::Approx;
        row.masked_assertion = "assert total(prices, discount=1) == pytest.approx(??)".into();
        for (raw, want) in [
            ("pytest.approx(0.3)", "0.3"),
            ("approx(0.3, rel=1e-6)", "0.3"),
            ("0.30000000000000004", "0.30000000000000004"),
            (
                "assert total(prices, discount=1) == pytest.approx(0.3)",
                "0.3",
            ),
        ] {
            assert_eq!(cleaned(&row, raw, false), want, "{raw:?}");
        }
    }

    #[test]
    fn messy_raises_answers() {
        let row = raises_task("r", AssertionForm::Value, false);
        for (raw, want) in [
            ("TypeError", "TypeError"),
            ("```python\nTypeError\n```", "TypeError"),
            ("`TypeError`", "TypeError"),
            ("with pytest.raises(TypeError):", "TypeError"),
            ("pytest.raises(TypeError, match='no price')", "TypeError"),
            (
                "```python\nwith pytest.raises(TypeError):\n    parse_price(None)\n```",
                "TypeError",
            ),
            (
                "self.assertRaises(pkg.errors.PriceError)",
                "pkg.errors.PriceError",
            ),
            ("raise TypeError('no price')", "TypeError"),
            ("TypeError: no price", "TypeError"),
            ("builtins.TypeError.", "builtins.TypeError"),
            ("(TypeError, ValueError)", "TypeError"),
            ("", ""),
        ] {
            assert_eq!(cleaned(&row, raw, false), want, "{raw:?}");
        }
        assert_eq!(cleaned(&row, "TypeError):", true), "TypeError");
    }

    #[test]
    fn messy_verify_answers() {
        let row = assertion_task("v", AssertionForm::Verify, false);
        for (raw, want) in [
            ("True", "True"),
            ("false", "False"),
            ("**True**", "True"),
            ("Yes, it passes.", "True"),
            ("no", "False"),
            ("Passes", "True"),
            ("holds", "True"),
            ("FAILS: the mutant adds the discount", "False"),
            ("Answer: False", "False"),
            ("```\nTrue\n```", "True"),
            ("`False`", "False"),
            (" True", "True"),
            ("<think>it fails?</think>True", "True"),
            ("The assertion passes.", "The assertion passes."),
            ("maybe", "maybe"),
            ("", ""),
        ] {
            assert_eq!(cleaned(&row, raw, false), want, "{raw:?}");
        }
    }

    #[test]
    fn answers_by_endpoint() {
        let t = value_task();
        assert_eq!(answer(&t, &Options::chat(), "```python\n5\n```"), "5");
        let fim = Options {
            api: Api::Completions,
            fim: Some(Preset::Starcoder.fim()),
            budget: 6000,
            ..Options::chat()
        };
        assert_eq!(answer(&t, &fim, "5<file_sep>tests/x.py"), "5");
        let plain = Options {
            api: Api::Completions,
            ..Options::chat()
        };
        assert_eq!(answer(&t, &plain, " 5, 'msg')"), "5");
    }
}
