//! What is sent to a model for a task, and how its text becomes an answer: one module per
//! task family (`function`, `completion`, `assertion`), and the fill-in-the-middle formats
//! of completion models ([`fim`]).

pub mod assertion;
pub mod completion;
pub mod fim;
pub mod function;

use serde::Serialize;

use crate::task::{Family, Task};

pub use fim::Fim;

/// Which endpoint of an OpenAI-compatible API is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Api {
    /// `/chat/completions`: a system and a user message; the answer is cleaned code.
    Chat,
    /// `/completions`: the raw task prompt, continued by the model; the answer is the prompt
    /// followed by the continuation (completion tasks: a fill-in-the-middle prompt, the
    /// answer the fill; assertion tasks: the test cut where the value goes, the answer the
    /// value).
    Completions,
}

impl Api {
    pub fn as_str(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Completions => "completions",
        }
    }

    /// The endpoint's path under the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Api::Chat => "/chat/completions",
            Api::Completions => "/completions",
        }
    }
}

/// The default of `--prompt-budget`.
pub const DEFAULT_BUDGET: usize = 6000;

/// How prompts are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub api: Api,
    /// The FIM format of completion tasks (and of assertion tasks' value form) on the
    /// completions endpoint.
    pub fim: Option<Fim>,
    /// Most tokens ([`completion::tokens`]) of a completion task's context, prefix and
    /// suffix together (of an assertion task's code and test).
    pub budget: usize,
}

impl Options {
    /// Chat prompts with the default budget (what `command:` programs' answers are cleaned
    /// as).
    pub fn chat() -> Options {
        Options {
            api: Api::Chat,
            fim: None,
            budget: DEFAULT_BUDGET,
        }
    }

    /// What shapes the prompt of a task of `family`, as text for row hashes.
    pub fn digest(&self, family: Family) -> String {
        match family {
            Family::Completion | Family::Assertion => format!(
                "budget={} {}",
                self.budget,
                self.fim
                    .as_ref()
                    .map_or_else(|| "fim=none".into(), Fim::digest)
            ),
            Family::Function => String::new(),
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

/// The prompt part of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    Chat(Vec<Message>),
    Completion {
        prompt: String,
        /// Stop sequences (at most 4, the common API limit).
        stop: Vec<String>,
    },
}

/// A task that cannot be asked this way (recorded as the answer's error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NoPrompt(pub String);

/// The prompt of a task.
pub fn build(task: &Task, opts: &Options) -> Result<Prompt, NoPrompt> {
    match task.family {
        Family::Function => Ok(function::build(task, opts.api)),
        Family::Completion => completion::build(task, opts),
        Family::Assertion => assertion::build(task, opts),
    }
}

/// The answer (code) from a model's text: for chat (and `command:` solvers) the whole
/// answer, for completions the continuation of the prompt (completion tasks: the fill;
/// assertion tasks: the value or the verdict).
pub fn answer(task: &Task, opts: &Options, text: &str) -> String {
    match task.family {
        Family::Function => function::answer(task, opts.api, text),
        Family::Completion => completion::answer(task, opts, text),
        Family::Assertion => assertion::answer(task, opts, text),
    }
}
