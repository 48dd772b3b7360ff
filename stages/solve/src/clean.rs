//! From a model's text to the code of a `function` answer.
//!
//! 1. Reasoning a model printed before its answer (`<think>...</think>`) is dropped.
//! 2. The code is taken from markdown fences (```` ```python ````, ```` ```py ````, a bare
//!    ```` ``` ````, `~~~`; an unclosed fence runs to the end, as when `max_tokens` cut the
//!    answer). Of several blocks, the first that defines `def ENTRY_POINT` at the top level
//!    wins (else the first that defines it anywhere); when none does, all Python blocks are
//!    joined. Without a fence, the whole text is the code.
//! 3. An answer that is only a function body (indented, or unindented with a `return` and no
//!    `def`/`class`) is put under the prompt's signature and docstring, reindented to the
//!    prompt's body indentation; what follows the body (helpers) is kept after it.
//! 4. The import lines at the top of the task prompt that the answer lacks are prepended
//!    (`from __future__` ones first, the others after the answer's own `__future__` lines).
//!
//! Helpers and imports of the model are kept. An answer that defines the entry point only
//! inside a class, or not at all, is kept as it is: running it will say it fails.

/// The cleaned code of `raw`, an answer to a task with this prompt and entry point.
pub fn clean(raw: &str, prompt: &str, entry_point: &str) -> String {
    let text = raw.replace("\r\n", "\n");
    let text = strip_think(&text);
    let code = extract_code(text, entry_point);
    let code = match as_body(&code, entry_point) {
        Some(body) => attach_body(prompt, entry_point, &body),
        None => code,
    };
    if code.trim().is_empty() {
        return String::new();
    }
    let code = add_missing_imports(&code, prompt);
    finish(&code)
}

/// Drops leading blank lines and trailing whitespace, and ends the text with one newline.
fn finish(code: &str) -> String {
    let lines: Vec<&str> = code.lines().skip_while(|l| l.trim().is_empty()).collect();
    let mut out = lines.join("\n").trim_end().to_string();
    out.push('\n');
    out
}

/// The reasoning tags of models that think aloud: `<think>` (`DeepSeek-R1`, `Qwen3`, `QwQ` and
/// the servers in front of them) and `<thinking>`.
pub const THINK_TAGS: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// The text after a model's reasoning: a `<think>...</think>` (or `<thinking>...
/// </thinking>`) block at the start is dropped (all of the text when it never closes, see
/// [`unclosed_think`]), and so is everything up to a closing tag without an opening one
/// (servers and chat templates that put `<think>` into the prompt, so the text starts
/// inside the reasoning).
pub fn strip_think(text: &str) -> &str {
    split_think(text).0
}

/// Whether `text` is reasoning that never ends: it opens a `<think>` (or `<thinking>`)
/// block and never closes it, as when `max_tokens` cut the answer inside it
/// (`finish_reason` `length`). Such a text has no answer: it is answered with an empty one
/// (an `ok` row, which then fails when executed: the model's failure, not the harness's).
pub fn unclosed_think(text: &str) -> bool {
    !split_think(text).1
}

/// The answer after the reasoning, and whether the reasoning (if any) was closed.
fn split_think(text: &str) -> (&str, bool) {
    let trimmed = text.trim_start();
    for (open, close) in THINK_TAGS {
        if let Some(rest) = trimmed.strip_prefix(open) {
            return rest
                .find(close)
                .map_or(("", false), |i| (&rest[i + close.len()..], true));
        }
    }
    let first_close = THINK_TAGS
        .iter()
        .filter_map(|(_, close)| text.find(close).map(|i| (i, close.len())))
        .min();
    match first_close {
        Some((i, len)) if !THINK_TAGS.iter().any(|(open, _)| text[..i].contains(open)) => {
            (&text[i + len..], true)
        }
        _ => (text, true),
    }
}

/// One fenced block of a markdown text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The info string's first word, lowercased (`python`, `py`; empty for a bare fence).
    pub lang: String,
    pub code: String,
}

impl Block {
    fn is_python(&self) -> bool {
        self.lang.is_empty() || self.lang.starts_with("py")
    }
}

/// The fenced blocks of `text`, in order. A fence is three or more backticks or tildes,
/// indented or not; it closes with a line of at least as many of the same character. The
/// fence's indentation is removed from its lines. An unclosed fence runs to the end.
pub fn fenced_blocks(text: &str) -> Vec<Block> {
    struct Open {
        ch: char,
        count: usize,
        indent: usize,
        lang: String,
        lines: Vec<String>,
    }
    let mut blocks = Vec::new();
    let mut open: Option<Open> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let ch = trimmed.chars().next().unwrap_or(' ');
        let count = if ch == '`' || ch == '~' {
            trimmed.chars().take_while(|&c| c == ch).count()
        } else {
            0
        };
        match &mut open {
            Some(o) => {
                if ch == o.ch && count >= o.count && trimmed[count..].trim().is_empty() {
                    let o = open.take().expect("an open fence");
                    blocks.push(Block {
                        lang: o.lang,
                        code: o.lines.join("\n"),
                    });
                } else {
                    // Remove the fence's indentation (as much of it as the line has).
                    let strip = line
                        .char_indices()
                        .take_while(|&(i, c)| i < o.indent && c == ' ')
                        .count();
                    o.lines.push(line[strip..].to_string());
                }
            }
            None if count >= 3 => {
                let info = trimmed[count..].trim();
                if ch == '`' && info.contains('`') {
                    continue; // inline code such as ```x```, not a fence
                }
                let lang = info
                    .trim_start_matches('{')
                    .trim_start_matches('.')
                    .split(|c: char| c.is_whitespace() || c == '}' || c == ',')
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                open = Some(Open {
                    ch,
                    count,
                    indent,
                    lang,
                    lines: Vec::new(),
                });
            }
            None => {}
        }
    }
    if let Some(o) = open {
        if !o.lines.is_empty() {
            blocks.push(Block {
                lang: o.lang,
                code: o.lines.join("\n"),
            });
        }
    }
    blocks
}

/// The code of an answer: the fenced block that defines the entry point, else all Python
/// blocks joined, else the whole text.
pub fn extract_code(text: &str, entry_point: &str) -> String {
    let blocks = fenced_blocks(text);
    if blocks.is_empty() {
        return text.to_string();
    }
    let python: Vec<&Block> = blocks.iter().filter(|b| b.is_python()).collect();
    let defining = python
        .iter()
        .copied()
        .find(|b| defines_top_level(&b.code, entry_point))
        .or_else(|| {
            python
                .iter()
                .copied()
                .find(|b| defines(&b.code, entry_point))
        })
        .or_else(|| blocks.iter().find(|b| defines(&b.code, entry_point)));
    if let Some(b) = defining {
        return b.code.clone();
    }
    let pool: Vec<&Block> = if python.is_empty() {
        blocks.iter().collect()
    } else {
        python
    };
    pool.iter()
        .map(|b| b.code.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Whether `line` (without its indentation) defines `name`: `def name(`, `async def name(`,
/// `def name[T](`, or an assignment `name = ...` / `name: T = ...`.
fn line_defines(line: &str, name: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix("async").map_or(t, str::trim_start);
    if let Some(rest) = t.strip_prefix("def ") {
        return rest
            .trim_start()
            .strip_prefix(name)
            .is_some_and(|after| after.trim_start().starts_with(['(', '[']));
    }
    if let Some(after) = line.trim_start().strip_prefix(name) {
        let after = after.trim_start();
        return (after.starts_with('=') && !after.starts_with("==")) || after.starts_with(':');
    }
    false
}

/// Whether the code defines `name` anywhere (in a class, nested, or at the top level).
pub fn defines(code: &str, name: &str) -> bool {
    code.lines().any(|l| line_defines(l, name))
}

/// Whether the code defines `name` at column 0.
pub fn defines_top_level(code: &str, name: &str) -> bool {
    code.lines()
        .filter(|l| !l.starts_with([' ', '\t']))
        .any(|l| line_defines(l, name))
}

fn is_import(line: &str) -> bool {
    line.starts_with("import ") || (line.starts_with("from ") && line.contains(" import"))
}

fn is_definition(line: &str) -> bool {
    line.starts_with("def ")
        || line.starts_with("async def ")
        || line.starts_with("class ")
        || line.starts_with('@')
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// An answer that is a function body: the imports before it, the body's lines, and what
/// follows the body (helpers).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Body {
    imports: Vec<String>,
    lines: Vec<String>,
    rest: Vec<String>,
}

/// The answer as a function body, when it is one and does not define the entry point.
fn as_body(code: &str, entry_point: &str) -> Option<Body> {
    if defines(code, entry_point) {
        return None;
    }
    let lines: Vec<&str> = code.lines().collect();
    let mut i = 0;
    let mut imports = Vec::new();
    while i < lines.len() && (lines[i].trim().is_empty() || is_import(lines[i])) {
        if !lines[i].trim().is_empty() {
            imports.push(lines[i].to_string());
        }
        i += 1;
    }
    let rest = &lines[i..];
    let first = rest.first()?;
    if !first.starts_with([' ', '\t']) {
        // An unindented body: statements with a `return` at column 0 and no definition.
        let top = || rest.iter().filter(|l| !l.starts_with([' ', '\t']));
        let returns = top().any(|l| {
            l == &"return"
                || l.starts_with("return ")
                || l.starts_with("return(")
                || l.starts_with("yield ")
        });
        if !returns || top().any(|l| is_definition(l)) {
            return None;
        }
        return Some(Body {
            imports,
            lines: rest.iter().map(|l| (*l).to_string()).collect(),
            rest: Vec::new(),
        });
    }
    // An indented body runs to the first line at column 0; what follows is kept after it.
    let end = rest
        .iter()
        .position(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t']))
        .unwrap_or(rest.len());
    Some(Body {
        imports,
        lines: rest[..end].iter().map(|l| (*l).to_string()).collect(),
        rest: rest[end..].iter().map(|l| (*l).to_string()).collect(),
    })
}

/// The prompt followed by the body, reindented to the prompt's body indentation.
fn attach_body(prompt: &str, entry_point: &str, body: &Body) -> String {
    let indent = mutants::find_function(prompt, entry_point)
        .filter(|f| f.body_on_own_line && !f.body_indent.is_empty())
        .map_or_else(|| "    ".to_string(), |f| f.body_indent);
    let common = body
        .lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indentation(l))
        .reduce(|a, b| {
            let n = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            &a[..n]
        })
        .unwrap_or("")
        .to_string();
    let mut out = String::new();
    for imp in &body.imports {
        if !prompt.lines().any(|l| l.trim() == imp.trim()) {
            out.push_str(imp);
            out.push('\n');
        }
    }
    out.push_str(prompt);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for line in &body.lines {
        if line.trim().is_empty() {
            out.push('\n');
            continue;
        }
        out.push_str(&indent);
        out.push_str(line.strip_prefix(common.as_str()).unwrap_or(line));
        out.push('\n');
    }
    for line in &body.rest {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The import statements at the top of the prompt (before its first definition), one
/// string each; a parenthesized import over several lines is one.
pub fn prompt_imports(prompt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = prompt.lines();
    while let Some(line) = lines.next() {
        if is_definition(line) {
            break;
        }
        if !is_import(line) {
            continue;
        }
        let mut unit = line.trim_end().to_string();
        if line.contains('(') && !line.contains(')') {
            for more in lines.by_ref() {
                unit.push('\n');
                unit.push_str(more.trim_end());
                if more.contains(')') {
                    break;
                }
            }
        }
        out.push(unit);
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the code already holds this import statement.
fn has_import(code: &str, unit: &str) -> bool {
    if unit.contains('\n') {
        squash(code).contains(&squash(unit))
    } else {
        code.lines().any(|l| l.trim() == unit.trim())
    }
}

/// The code with the prompt's top imports it lacks put in front.
pub fn add_missing_imports(code: &str, prompt: &str) -> String {
    let missing: Vec<String> = prompt_imports(prompt)
        .into_iter()
        .filter(|u| !has_import(code, u))
        .collect();
    if missing.is_empty() {
        return code.to_string();
    }
    let (future, others): (Vec<&String>, Vec<&String>) = missing
        .iter()
        .partition(|u| u.starts_with("from __future__"));
    let lines: Vec<&str> = code.lines().collect();
    // After the answer's own `from __future__` lines (which must come first in a module).
    let head = lines
        .iter()
        .rposition(|l| l.starts_with("from __future__"))
        .map_or(0, |i| i + 1);
    let mut out = String::new();
    for u in &future {
        out.push_str(u);
        out.push('\n');
    }
    for l in &lines[..head] {
        out.push_str(l);
        out.push('\n');
    }
    for u in &others {
        out.push_str(u);
        out.push('\n');
    }
    if !others.is_empty()
        && lines
            .get(head)
            .is_some_and(|l| !l.trim().is_empty() && !is_import(l))
    {
        out.push('\n');
    }
    for l in &lines[head..] {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "import re\nfrom collections import Counter\n\n\ndef word_count(text: str) -> dict[str, int]:\n    \"\"\"Count the words of ``text``.\"\"\"\n";
    const SOLUTION: &str = "import re\nfrom collections import Counter\n\n\ndef word_count(text: str) -> dict[str, int]:\n    \"\"\"Count the words of ``text``.\"\"\"\n    return dict(Counter(re.findall(r\"\\w+\", text.lower())))\n";

    fn c(raw: &str) -> String {
        clean(raw, PROMPT, "word_count")
    }

    #[test]
    fn a_fenced_complete_answer_is_the_solution() {
        let raw = format!("Here is the function:\n\n```python\n{SOLUTION}```\n\nIt counts words.");
        assert_eq!(c(&raw), SOLUTION);
    }

    #[test]
    fn fence_languages() {
        for open in [
            "```python",
            "```py",
            "```",
            "```Python3",
            "~~~python",
            "````python",
        ] {
            let close = if open.starts_with('~') {
                "~~~"
            } else if open.starts_with("````") {
                "````"
            } else {
                "```"
            };
            let raw = format!("Sure.\n{open}\n{SOLUTION}{close}\nDone.");
            assert_eq!(c(&raw), SOLUTION, "fence {open}");
        }
    }

    #[test]
    fn no_fence_is_the_whole_text() {
        assert_eq!(c(SOLUTION), SOLUTION);
        assert_eq!(c(&format!("\n\n{SOLUTION}\n\n\n")), SOLUTION);
        assert_eq!(c(&SOLUTION.replace('\n', "\r\n")), SOLUTION);
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let raw = format!("```python\n{SOLUTION}");
        assert_eq!(c(&raw), SOLUTION);
    }

    #[test]
    fn the_block_defining_the_entry_point_wins() {
        let raw = format!(
            "First a helper:\n```python\ndef tokenize(s):\n    return s.split()\n```\nThen:\n```python\n{SOLUTION}```\nUsage:\n```python\nprint(word_count('a b a'))\n```\n"
        );
        assert_eq!(c(&raw), SOLUTION);
    }

    #[test]
    fn a_python_block_beats_other_languages() {
        let raw = format!(
            "```bash\npip install nothing\n```\n```python\n{SOLUTION}```\n```text\n{{'a': 1}}\n```"
        );
        assert_eq!(c(&raw), SOLUTION);
        // With only other languages, those are taken.
        let raw = format!("```python3.11\n{SOLUTION}```");
        assert_eq!(c(&raw), SOLUTION);
        let raw = format!("```text\n{SOLUTION}```");
        assert_eq!(c(&raw), SOLUTION);
    }

    #[test]
    fn blocks_without_the_entry_point_are_joined() {
        let raw = "```python\nimport re\nfrom collections import Counter\n```\nand\n```python\ndef helper():\n    return 1\n```\n";
        assert_eq!(
            c(raw),
            "import re\nfrom collections import Counter\n\ndef helper():\n    return 1\n"
        );
    }

    #[test]
    fn helpers_and_extra_imports_are_kept() {
        let raw = "```python\nimport re\nimport string\nfrom collections import Counter\n\n\ndef _words(text):\n    return re.findall(r\"\\w+\", text.lower())\n\n\ndef word_count(text: str) -> dict[str, int]:\n    return dict(Counter(_words(text)))\n```";
        let got = c(raw);
        assert!(got.starts_with("import re\nimport string\n"), "{got}");
        assert!(got.contains("def _words(text):"));
        assert!(got.contains("def word_count(text: str)"));
    }

    #[test]
    fn missing_prompt_imports_are_prepended() {
        let raw = "```python\ndef word_count(text: str) -> dict[str, int]:\n    return dict(Counter(re.findall(r\"\\w+\", text.lower())))\n```";
        assert_eq!(
            c(raw),
            "import re\nfrom collections import Counter\n\ndef word_count(text: str) -> dict[str, int]:\n    return dict(Counter(re.findall(r\"\\w+\", text.lower())))\n"
        );
        // Only the missing one.
        let raw = "import re\ndef word_count(text):\n    return {}\n";
        assert_eq!(
            c(raw),
            "from collections import Counter\nimport re\ndef word_count(text):\n    return {}\n"
        );
    }

    #[test]
    fn future_imports_stay_first() {
        let prompt = "from __future__ import annotations\nimport math\n\n\ndef f(x: float) -> float:\n    \"\"\"Root.\"\"\"\n";
        let got = clean("def f(x):\n    return math.sqrt(x)\n", prompt, "f");
        assert_eq!(
            got,
            "from __future__ import annotations\nimport math\n\ndef f(x):\n    return math.sqrt(x)\n"
        );
        let got = clean(
            "from __future__ import annotations\n\ndef f(x):\n    return math.sqrt(x)\n",
            prompt,
            "f",
        );
        assert_eq!(
            got,
            "from __future__ import annotations\nimport math\n\ndef f(x):\n    return math.sqrt(x)\n"
        );
    }

    #[test]
    fn multi_line_imports() {
        let prompt = "from typing import (\n    Any,\n    Optional,\n)\n\n\ndef f(x: Optional[Any]) -> bool:\n    \"\"\"Is None.\"\"\"\n";
        assert_eq!(
            prompt_imports(prompt),
            ["from typing import (\n    Any,\n    Optional,\n)"]
        );
        let with = "from typing import (Any, Optional)\ndef f(x):\n    return x is None\n";
        // Not the same text: prepended (a repeated import is harmless).
        assert!(clean(with, prompt, "f").starts_with("from typing import (\n"));
        let same =
            "from typing import (\n    Any,\n    Optional,\n)\ndef f(x):\n    return x is None\n";
        assert_eq!(clean(same, prompt, "f"), same);
    }

    #[test]
    fn prompt_imports_stop_at_the_definition() {
        let prompt = "import os.path\nfrom a import b as c\n\n@decorator\ndef f():\n    \"\"\"import x\"\"\"\n";
        assert_eq!(
            prompt_imports(prompt),
            ["import os.path", "from a import b as c"]
        );
        assert!(prompt_imports("def f():\n    import re\n").is_empty());
    }

    #[test]
    fn an_indented_body_goes_under_the_prompt() {
        let raw = "```python\n    words = re.findall(r\"\\w+\", text.lower())\n    return dict(Counter(words))\n```";
        assert_eq!(
            c(raw),
            format!("{PROMPT}    words = re.findall(r\"\\w+\", text.lower())\n    return dict(Counter(words))\n")
        );
    }

    #[test]
    fn a_body_is_reindented_to_the_prompt() {
        // Two-space body, four-space prompt: shifted to the docstring's indentation (the
        // nested block keeps its relative depth, which Python accepts).
        let raw = "  if not text:\n    return {}\n  return dict(Counter(text.split()))\n";
        assert_eq!(
            c(raw),
            format!("{PROMPT}    if not text:\n      return {{}}\n    return dict(Counter(text.split()))\n")
        );
        // A prompt with a two-space body.
        let prompt = "def g(x):\n  \"\"\"Twice.\"\"\"\n";
        assert_eq!(
            clean("        return 2 * x\n", prompt, "g"),
            "def g(x):\n  \"\"\"Twice.\"\"\"\n  return 2 * x\n"
        );
    }

    #[test]
    fn an_unindented_body_with_a_return() {
        let raw = "counts = Counter(text.split())\nreturn dict(counts)";
        assert_eq!(
            c(raw),
            format!("{PROMPT}    counts = Counter(text.split())\n    return dict(counts)\n")
        );
    }

    #[test]
    fn a_body_keeps_its_helpers_and_own_imports() {
        let raw = "import string\n    return _count(text)\n\n\ndef _count(t):\n    return {}\n";
        let got = c(raw);
        assert_eq!(
            got,
            format!("import string\n{PROMPT}    return _count(text)\n\n\ndef _count(t):\n    return {{}}\n")
        );
    }

    #[test]
    fn code_that_is_not_a_body_is_kept() {
        // Defines another name: kept as it is (it will fail), imports still added.
        let raw = "def count_words(text):\n    return {}\n";
        assert_eq!(
            c(raw),
            format!("import re\nfrom collections import Counter\n\n{raw}")
        );
        // Statements without a return are no body.
        let raw = "x = 1\nprint(x)\n";
        assert!(c(raw).ends_with(raw));
    }

    #[test]
    fn the_entry_point_inside_a_class_is_kept() {
        let raw = "class Solution:\n    def word_count(self, text):\n        return {}\n";
        assert_eq!(
            c(raw),
            format!("import re\nfrom collections import Counter\n\n{raw}")
        );
    }

    #[test]
    fn an_assignment_defines_the_entry_point() {
        let raw = "word_count = lambda text: dict(Counter(re.findall(r'\\w+', text.lower())))\n";
        assert!(c(raw).ends_with(raw));
        assert!(!line_defines("word_count == 3", "word_count"));
        assert!(line_defines("word_count: Callable = f", "word_count"));
        assert!(!line_defines("def word_counter(x):", "word_count"));
        assert!(line_defines("async def word_count (x):", "word_count"));
        assert!(line_defines("def word_count[T](x: T):", "word_count"));
    }

    #[test]
    fn reasoning_is_dropped() {
        let raw = format!("<think>\nMaybe ```python\ndef word_count(t): pass\n```\n</think>\n```python\n{SOLUTION}```");
        assert_eq!(c(&raw), SOLUTION);
        // The opening tag was part of the prompt.
        let raw = format!("I should count.\n</think>\n\n{SOLUTION}");
        assert_eq!(c(&raw), SOLUTION);
        // Never closed: nothing but reasoning.
        assert_eq!(
            c("<think>\nhmm ```python\ndef word_count(t): pass\n```"),
            ""
        );
        assert_eq!(strip_think("plain"), "plain");
    }

    #[test]
    fn every_kind_of_reasoning_is_dropped() {
        // `<thinking>` as well as `<think>`, after blank lines too.
        let raw = format!("\n<thinking>\nCount words.\n</thinking>\n```python\n{SOLUTION}```");
        assert_eq!(c(&raw), SOLUTION);
        assert_eq!(strip_think("<think>a</think>b"), "b");
        assert_eq!(strip_think("<thinking>a</thinking>b"), "b");
        // A lone closing tag of either kind: the server dropped the opening one.
        assert_eq!(strip_think("Let me see.\n</thinking>\nx = 1"), "\nx = 1");
        assert_eq!(strip_think("hm </think> x </think> y"), " x </think> y");
        // A tag inside the answer, after code, is the answer's.
        assert_eq!(
            strip_think("x = '<think>'\ny = '</think>'"),
            "x = '<think>'\ny = '</think>'"
        );
        // Never closed (cut by max_tokens): no answer at all.
        assert!(unclosed_think("<think>\nstill thinking"));
        assert!(unclosed_think("  <thinking>\nstill"));
        assert!(!unclosed_think("<think>done</think>x = 1"));
        assert!(!unclosed_think("plain"));
        assert!(!unclosed_think("done</think>x"));
        assert_eq!(c("<thinking>\n```python\ndef word_count(t): pass\n```"), "");
    }

    #[test]
    fn empty_answers_stay_empty() {
        assert_eq!(c(""), "");
        assert_eq!(c("   \n\n"), "");
        assert_eq!(c("```python\n```"), "");
    }

    #[test]
    fn indented_fences_are_dedented() {
        let raw = "1. Do this:\n   ```python\n   def word_count(text):\n       return {}\n   ```\n";
        assert_eq!(
            extract_code(raw, "word_count"),
            "def word_count(text):\n    return {}"
        );
    }

    #[test]
    fn inline_triple_backticks_are_no_fence() {
        assert!(fenced_blocks("use ```x``` here").is_empty());
        let blocks = fenced_blocks("```{.python}\nx = 1\n```");
        assert_eq!(blocks[0].lang, "python");
    }

    #[test]
    fn the_top_level_definition_is_preferred() {
        let raw = "```python\nclass A:\n    def word_count(self):\n        pass\n```\n```python\ndef word_count(text):\n    return {}\n```";
        assert_eq!(
            extract_code(raw, "word_count"),
            "def word_count(text):\n    return {}"
        );
    }

    proptest::proptest! {
        /// Cleaning a cleaned answer changes nothing, whatever the lines it is made of.
        #[test]
        fn cleaning_is_idempotent(lines in proptest::collection::vec(
            proptest::sample::select(vec![
                "def word_count(text):", "    return 1", "return x", "import re",
                "from collections import Counter", "```", "x = 1", "", "  y = 2",
                "class A:", "@decorator", "    def word_count(self):",
            ]),
            0..12,
        )) {
            let once = c(&lines.join("\n"));
            proptest::prop_assert_eq!(c(&once), once.clone());
        }
    }
}
