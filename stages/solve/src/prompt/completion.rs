//! The `completion` family: fill a masked span of a repository file.
//!
//! - Completions endpoint: a fill-in-the-middle prompt in the model's format ([`Fim`]): the
//!   prefix and the suffix between the sentinels, the cross-file context before the prefix
//!   (`# file: PATH` comment headers, or the format's file separator when it has one, then
//!   the task file's path).
//! - Chat endpoint: a system and a user message showing the context, then the file with a
//!   marker ([`crate::task::MASK`], or a variant the file does not hold) where the span is,
//!   the level of the span, and the request for only the code that replaces the marker, in
//!   one fenced block.
//!
//! Both stay within `--prompt-budget` tokens ([`tokens`]): context snippets are dropped from
//! the lowest ranked while they take more than half of it, then whole lines of the prefix
//! are dropped from its start and of the suffix from its end (the prefix keeps three
//! quarters of what is left, unless the suffix needs less), the lines next to the span
//! always kept. What was dropped is said in the prompt itself (`# [N lines omitted]`), so
//! the same task and budget always give the same prompt and its hash tells them apart. The
//! reference is never in a prompt: only the prefix, the suffix and the context are.

use std::fmt::Write as _;

use schemas::{ContextSnippet, SpanKind};

use super::{Api, Fim, Message, NoPrompt, Options, Prompt};
use crate::fill;
use crate::task::{Completion, Task, MASK};

/// The system message of chat requests.
pub const SYSTEM: &str = "You are an expert Python programmer. You fill in code that is missing from a file of a repository, and answer with that code only.";

/// Tokens the instructions and headers of a prompt are counted as, besides the file.
pub const OVERHEAD: usize = 120;

/// Tokens of a text, the unit of `--prompt-budget` (and of mask's context budget): each run
/// of letters, digits and `_` is one, each other character that is not blank is one.
pub fn tokens(text: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            if !in_word {
                n += 1;
            }
            in_word = true;
        } else {
            in_word = false;
            if !c.is_whitespace() {
                n += 1;
            }
        }
    }
    n
}

/// The part of a task's file and context that goes into a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Window<'a> {
    /// The prefix kept (with a note on the lines dropped before it).
    pub prefix: String,
    /// The suffix kept (with a note on the lines dropped after it).
    pub suffix: String,
    /// The context snippets kept, best first.
    pub context: Vec<&'a ContextSnippet>,
    pub prefix_lines_dropped: usize,
    pub suffix_lines_dropped: usize,
    pub context_dropped: usize,
}

impl Window<'_> {
    pub fn truncated(&self) -> bool {
        self.prefix_lines_dropped + self.suffix_lines_dropped + self.context_dropped > 0
    }
}

fn snippet_tokens(s: &ContextSnippet) -> usize {
    tokens(&s.path) + tokens(&s.text) + 4
}

/// The note put where lines were dropped.
pub fn omitted(n: usize) -> String {
    format!("# [{n} lines omitted]\n")
}

/// What of `c` fits in `budget` tokens (see the module's documentation).
pub fn window(c: &Completion, budget: usize) -> Window<'_> {
    let mut context: Vec<&ContextSnippet> = c.context.iter().collect();
    // Best first (mask writes them so; ties keep the table's order).
    context.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut ctx: usize = context.iter().map(|s| snippet_tokens(s)).sum();
    while ctx > budget / 2 {
        let Some(last) = context.pop() else { break };
        ctx -= snippet_tokens(last);
    }
    let context_dropped = c.context.len() - context.len();
    let avail = budget.saturating_sub(ctx + OVERHEAD);
    let (pt, st) = (tokens(&c.prefix), tokens(&c.suffix));
    let mut w = Window {
        prefix: c.prefix.clone(),
        suffix: c.suffix.clone(),
        context,
        prefix_lines_dropped: 0,
        suffix_lines_dropped: 0,
        context_dropped,
    };
    if pt + st <= avail {
        return w;
    }
    let (mut p_share, mut s_share) = (avail * 3 / 4, avail - avail * 3 / 4);
    if st < s_share {
        p_share = avail - st;
        s_share = st;
    } else if pt < p_share {
        s_share = avail - pt;
        p_share = pt;
    }
    // The prefix: its last (partial) line always, then whole lines back from it.
    let lines: Vec<&str> = c.prefix.split_inclusive('\n').collect();
    let mut used = 0;
    let mut keep = 0;
    for (i, l) in lines.iter().enumerate().rev() {
        let t = tokens(l);
        if i + 1 < lines.len() && used + t > p_share {
            break;
        }
        used += t;
        keep += 1;
    }
    let dropped = lines.len() - keep;
    if dropped > 0 {
        w.prefix = omitted(dropped) + &lines[dropped..].concat();
        w.prefix_lines_dropped = dropped;
    }
    // The suffix: its first (partial) line always, then whole lines on from it.
    let lines: Vec<&str> = c.suffix.split_inclusive('\n').collect();
    let mut used = 0;
    let mut keep = 0;
    for (i, l) in lines.iter().enumerate() {
        let t = tokens(l);
        if i > 0 && used + t > s_share {
            break;
        }
        used += t;
        keep += 1;
    }
    let dropped = lines.len() - keep;
    if dropped > 0 {
        let mut kept = lines[..keep].concat();
        if !kept.ends_with('\n') {
            kept.push('\n');
        }
        w.suffix = kept + &omitted(dropped);
        w.suffix_lines_dropped = dropped;
    }
    w
}

/// What the span is, for the chat request.
pub fn level(kind: SpanKind) -> &'static str {
    match kind {
        SpanKind::Expression => "a single Python expression",
        SpanKind::Statement => "one Python statement",
        SpanKind::Block => "a block of Python statements",
        SpanKind::Function => "a whole function definition (its signature, docstring and body)",
    }
}

/// A marker the file and the context do not hold: `<MASK>`, else `<MASK_1>`, ...
pub fn marker(c: &Completion) -> String {
    let holds = |m: &str| {
        c.prefix.contains(m) || c.suffix.contains(m) || c.context.iter().any(|s| s.text.contains(m))
    };
    let mut m = MASK.to_string();
    let mut i = 0;
    while holds(&m) {
        i += 1;
        m = format!("<MASK_{i}>");
    }
    m
}

/// A code fence longer than any run of backticks in the texts.
pub(crate) fn fence(texts: &[&str]) -> String {
    let longest = texts
        .iter()
        .flat_map(|t| t.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

pub(crate) fn with_newline(text: &str) -> String {
    let mut t = text.to_string();
    if !t.ends_with('\n') {
        t.push('\n');
    }
    t
}

/// The user message of a chat request.
pub fn user_message(c: &Completion, w: &Window<'_>) -> String {
    let mark = marker(c);
    let file = format!("{}{mark}{}", w.prefix, w.suffix);
    let mut texts: Vec<&str> = vec![&file];
    texts.extend(w.context.iter().map(|s| s.text.as_str()));
    let f = fence(&texts);
    let mut out = String::new();
    if !w.context.is_empty() {
        out.push_str("Code from other files of the repository:\n\n");
        for s in &w.context {
            let _ = write!(
                out,
                "{f}python\n# file: {}\n{}{f}\n\n",
                s.path,
                with_newline(&s.text)
            );
        }
    }
    let _ = write!(
        out,
        "The file `{path}`, with {mark} where code was removed:\n\n{f}python\n# file: {path}\n{file}{f}\n\n",
        path = c.path,
        file = with_newline(&file),
    );
    let _ = writeln!(
        out,
        "{mark} stands for {level}. Answer with only the code that replaces {mark}, in one ```python code block: \
         do not repeat the code before or after it, and indent its lines as they would be in the file.",
        level = level(c.span_kind),
    );
    out
}

/// The fill-in-the-middle prompt text.
pub fn fim_text(c: &Completion, w: &Window<'_>, fim: &Fim) -> String {
    let mut head = String::new();
    let mut prefix = String::new();
    if !w.context.is_empty() {
        // The best snippet last, next to the file.
        if let Some(sep) = &fim.file_sep {
            for s in w.context.iter().rev() {
                let _ = write!(head, "{sep}{}\n{}", s.path, with_newline(&s.text));
            }
            if fim.path_in_prefix {
                head.push_str(sep);
                let _ = writeln!(prefix, "{}", c.path);
            } else {
                let _ = writeln!(head, "{sep}{}", c.path);
            }
        } else {
            for s in w.context.iter().rev() {
                let _ = writeln!(prefix, "# file: {}\n{}", s.path, with_newline(&s.text));
            }
            let _ = writeln!(prefix, "# file: {}", c.path);
        }
    }
    prefix.push_str(&w.prefix);
    match fim.order {
        super::fim::Order::Psm => format!(
            "{head}{}{prefix}{}{}{}",
            fim.prefix, fim.suffix, w.suffix, fim.middle
        ),
        super::fim::Order::Spm => format!(
            "{head}{}{}{}{prefix}{}",
            fim.suffix, w.suffix, fim.prefix, fim.middle
        ),
    }
}

pub fn build(task: &Task, opts: &Options) -> Result<Prompt, NoPrompt> {
    let c = task.completion.as_ref().ok_or_else(|| {
        NoPrompt("a completion task without its file; this is a bug in solve".into())
    })?;
    let w = window(c, opts.budget);
    if w.truncated() {
        tracing::debug!(
            task = %task.task_id,
            prefix_lines_dropped = w.prefix_lines_dropped,
            suffix_lines_dropped = w.suffix_lines_dropped,
            context_dropped = w.context_dropped,
            "prompt cut to --prompt-budget"
        );
    }
    match (opts.api, &opts.fim) {
        (Api::Chat, _) => Ok(Prompt::Chat(vec![
            Message {
                role: "system",
                content: SYSTEM.to_string(),
            },
            Message {
                role: "user",
                content: user_message(c, &w),
            },
        ])),
        (Api::Completions, Some(fim)) => Ok(Prompt::Completion {
            prompt: fim_text(c, &w, fim),
            stop: fim.stop.iter().take(4).cloned().collect(),
        }),
        (Api::Completions, None) => Err(NoPrompt(
            "completion tasks on the completions endpoint need fill-in-the-middle sentinels: give --fim-preset or --fim-prefix/--fim-suffix/--fim-middle, or use --api chat".into(),
        )),
    }
}

pub fn answer(task: &Task, opts: &Options, text: &str) -> String {
    let Some(c) = &task.completion else {
        return String::new();
    };
    let fim = match opts.api {
        Api::Completions => opts.fim.as_ref(),
        Api::Chat => None,
    };
    let markers: Vec<String> = fim.map(Fim::markers).unwrap_or_default();
    fill::clean(
        text,
        &fill::Spec {
            kind: c.span_kind,
            prefix: &c.prefix,
            suffix: &c.suffix,
            indent: &c.indent,
            markers: &markers,
            chat: fim.is_none(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::fim::Preset;

    fn task() -> Task {
        let mut t = schemas::examples::completion_task("c1", "r");
        t.context = vec![
            ContextSnippet {
                path: "pkg/util.py".into(),
                text: "def twice(x):\n    return 2 * x\n".into(),
                score: 2.0,
            },
            ContextSnippet {
                path: "pkg/const.py".into(),
                text: "LIMIT = 10\n".into(),
                score: 1.0,
            },
        ];
        t.prefix = "import util\n\n\ndef add(a, b):\n    return ".into();
        t.suffix = "\n\n\ndef sub(a, b):\n    return a - b\n".into();
        Task::from(&t)
    }

    fn fim_prompt(t: &Task, fim: &Fim) -> String {
        let opts = Options {
            api: Api::Completions,
            fim: Some(fim.clone()),
            budget: 6000,
            ..Options::chat()
        };
        match build(t, &opts).unwrap() {
            Prompt::Completion { prompt, stop } => {
                assert_eq!(stop, fim.stop);
                prompt
            }
            Prompt::Chat(_) => panic!("a completion prompt"),
        }
    }

    fn at(text: &str, part: &str) -> usize {
        text.find(part)
            .unwrap_or_else(|| panic!("{part:?} not in {text:?}"))
    }

    #[test]
    fn every_preset_puts_its_sentinels_in_order() {
        let t = task();
        let c = t.completion.as_ref().unwrap();
        for p in Preset::ALL {
            let fim = p.fim();
            let text = fim_prompt(&t, &fim);
            assert!(
                !text.contains("a + b"),
                "{p:?}: the reference is in the prompt"
            );
            let (ps, ss) = (at(&text, &fim.prefix), at(&text, &fim.suffix));
            let (pre, suf) = (at(&text, &c.prefix), at(&text, &c.suffix));
            // Each sentinel right before its part; the context before the prefix.
            assert!(ps < pre && ss < suf, "{p:?}: {text}");
            assert!(at(&text, "def twice(x):") < pre, "{p:?}");
            assert!(at(&text, "LIMIT = 10") < pre, "{p:?}");
            assert!(text.contains("pkg/mod.py\n"), "{p:?}: the file's path");
            match fim.order {
                crate::prompt::fim::Order::Psm => {
                    assert!(pre < ss, "{p:?}");
                    assert!(
                        text.ends_with(&format!("{}{}", c.suffix, fim.middle)),
                        "{p:?}"
                    );
                }
                crate::prompt::fim::Order::Spm => {
                    assert!(suf < ps, "{p:?}");
                    assert!(text.ends_with(&c.prefix), "{p:?}");
                }
            }
        }
    }

    #[test]
    fn exact_fim_prompts() {
        let t = task();
        let qwen = fim_prompt(&t, &Preset::Qwen.fim());
        assert_eq!(
            qwen,
            "<|file_sep|>pkg/const.py\nLIMIT = 10\n<|file_sep|>pkg/util.py\ndef twice(x):\n    return 2 * x\n<|file_sep|>pkg/mod.py\n\
             <|fim_prefix|>import util\n\n\ndef add(a, b):\n    return <|fim_suffix|>\n\n\ndef sub(a, b):\n    return a - b\n<|fim_middle|>"
        );
        let star = fim_prompt(&t, &Preset::Starcoder.fim());
        assert!(star.contains("<file_sep>pkg/util.py\ndef twice(x):\n    return 2 * x\n<file_sep><fim_prefix>pkg/mod.py\nimport util\n"), "{star}");
        let llama = fim_prompt(&t, &Preset::Codellama.fim());
        assert!(
            llama.starts_with("<PRE> # file: pkg/const.py\nLIMIT = 10\n\n# file: pkg/util.py\n"),
            "{llama}"
        );
        assert!(
            llama.ends_with("    return  <SUF>\n\n\ndef sub(a, b):\n    return a - b\n <MID>"),
            "{llama}"
        );
        let ds = fim_prompt(&t, &Preset::Deepseek.fim());
        assert!(
            ds.starts_with("<｜fim▁begin｜># file: pkg/const.py\n"),
            "{ds}"
        );
        assert!(ds.contains("return <｜fim▁hole｜>\n\n\ndef sub"), "{ds}");
        assert!(ds.ends_with("<｜fim▁end｜>"), "{ds}");
        let cs = fim_prompt(&t, &Preset::Codestral.fim());
        assert!(
            cs.starts_with(
                "[SUFFIX]\n\n\ndef sub(a, b):\n    return a - b\n[PREFIX]# file: pkg/const.py\n"
            ),
            "{cs}"
        );
        assert!(cs.ends_with("def add(a, b):\n    return "), "{cs}");
    }

    #[test]
    fn without_context_the_prompt_is_the_plain_format() {
        let t = Task::from(&schemas::examples::completion_task("c", "r"));
        assert_eq!(
            fim_prompt(&t, &Preset::Starcoder.fim()),
            "<fim_prefix>def add(a, b):\n    return <fim_suffix>\n<fim_middle>"
        );
    }

    #[test]
    fn the_chat_prompt_shows_the_marker_and_not_the_reference() {
        let t = task();
        let Prompt::Chat(m) = build(&t, &Options::chat()).unwrap() else {
            panic!("a chat prompt")
        };
        assert_eq!(m[0].content, SYSTEM);
        let u = &m[1].content;
        assert!(
            u.contains("def add(a, b):\n    return <MASK>\n\n\ndef sub"),
            "{u}"
        );
        assert!(!u.contains("a + b"), "{u}");
        assert!(u.contains("a single Python expression"), "{u}");
        assert!(u.contains("# file: pkg/util.py\ndef twice(x):"), "{u}");
        assert!(u.contains("The file `pkg/mod.py`"), "{u}");
        // The best snippet first.
        assert!(at(u, "pkg/util.py") < at(u, "pkg/const.py"));
    }

    #[test]
    fn a_file_holding_the_marker_gets_another() {
        let mut t = schemas::examples::completion_task("c", "r");
        t.suffix = "\n# <MASK> is a word here\n".into();
        let t = Task::from(&t);
        let c = t.completion.as_ref().unwrap();
        assert_eq!(marker(c), "<MASK_1>");
        let Prompt::Chat(m) = build(&t, &Options::chat()).unwrap() else {
            panic!()
        };
        assert!(m[1].content.contains("return <MASK_1>\n"));
        // Backticks in the file lengthen the fence.
        let mut t = schemas::examples::completion_task("c", "r");
        t.suffix = "\nDOC = \"\"\"```python\nx```\"\"\"\n".into();
        let Prompt::Chat(m) = build(&Task::from(&t), &Options::chat()).unwrap() else {
            panic!()
        };
        assert!(m[1].content.contains("````python\n# file: pkg/mod.py\n"));
    }

    #[test]
    fn levels_are_named() {
        for (kind, says) in [
            (SpanKind::Statement, "one Python statement"),
            (SpanKind::Block, "a block of Python statements"),
            (SpanKind::Function, "a whole function definition"),
        ] {
            let mut t = schemas::examples::completion_task("c", "r");
            t.span_kind = kind;
            let Prompt::Chat(m) = build(&Task::from(&t), &Options::chat()).unwrap() else {
                panic!()
            };
            assert!(m[1].content.contains(says), "{kind:?}");
        }
    }

    #[test]
    fn completions_without_sentinels_are_refused() {
        let opts = Options {
            api: Api::Completions,
            fim: None,
            budget: 100,
            ..Options::chat()
        };
        assert!(build(&task(), &opts)
            .unwrap_err()
            .0
            .contains("--fim-preset"));
    }

    #[test]
    fn tokens_are_words_and_marks() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("def add(a, b):"), 8);
        assert_eq!(tokens("x_1 = 10  # é"), 5);
    }

    fn long(lines_before: usize, lines_after: usize) -> Completion {
        let mut prefix = String::new();
        for i in 0..lines_before {
            let _ = writeln!(prefix, "x{i} = {i}");
        }
        prefix.push_str("def f():\n    return ");
        let mut suffix = "\n".to_string();
        for i in 0..lines_after {
            let _ = writeln!(suffix, "y{i} = {i}");
        }
        Completion {
            path: "m.py".into(),
            span_kind: SpanKind::Expression,
            prefix,
            suffix,
            indent: "    ".into(),
            context: vec![ContextSnippet {
                path: "big.py".into(),
                text: "z = 1\n".repeat(200),
                score: 1.0,
            }],
        }
    }

    #[test]
    fn long_files_are_cut_by_lines_near_the_span() {
        let c = long(300, 300);
        let budget = 600;
        let w = window(&c, budget);
        // The context (800 tokens) exceeds half the budget: dropped.
        assert_eq!(w.context_dropped, 1);
        assert!(w.prefix_lines_dropped > 0 && w.suffix_lines_dropped > 0);
        let used = tokens(&w.prefix) + tokens(&w.suffix);
        // Within the budget, bar the notes.
        assert!(used <= budget - OVERHEAD + 20, "{used}");
        // The lines next to the span are kept; the prefix got more than the suffix.
        assert!(w.prefix.ends_with("x299 = 299\ndef f():\n    return "));
        assert!(w.suffix.starts_with("\ny0 = 0\n"));
        assert!(w.prefix.starts_with(&omitted(w.prefix_lines_dropped)));
        assert!(w.suffix.ends_with(&omitted(w.suffix_lines_dropped)));
        assert!(w.prefix_lines_dropped < w.suffix_lines_dropped);
        // Whole lines were dropped: what is kept is a tail of the prefix, a head of the suffix.
        let kept = w
            .prefix
            .strip_prefix(&omitted(w.prefix_lines_dropped))
            .unwrap();
        assert!(c.prefix.ends_with(kept));
        assert!(c.prefix[..c.prefix.len() - kept.len()].ends_with('\n'));
        let kept = w
            .suffix
            .strip_suffix(&omitted(w.suffix_lines_dropped))
            .unwrap();
        assert!(c.suffix.starts_with(kept));
        // The same every time.
        assert_eq!(window(&c, budget), w);
        // A short suffix leaves its share to the prefix.
        let c = long(300, 2);
        let w = window(&c, budget);
        assert_eq!(w.suffix_lines_dropped, 0);
        assert!(w.prefix_lines_dropped > 0);
        // A large budget cuts nothing.
        assert!(!window(&long(10, 10), 6000).truncated());
    }

    #[test]
    fn the_cut_shows_in_the_prompt_and_its_hash() {
        let mut row = schemas::examples::completion_task("c", "r");
        let c = long(300, 300);
        row.prefix.clone_from(&c.prefix);
        row.suffix.clone_from(&c.suffix);
        let t = Task::from(&row);
        let small = Options {
            budget: 400,
            ..Options::chat()
        };
        let (Prompt::Chat(a), Prompt::Chat(b)) = (
            build(&t, &small).unwrap(),
            build(&t, &Options::chat()).unwrap(),
        ) else {
            panic!()
        };
        assert!(a[1].content.contains("lines omitted]"));
        assert!(!b[1].content.contains("lines omitted]"));
        assert_ne!(a, b);
    }
}
