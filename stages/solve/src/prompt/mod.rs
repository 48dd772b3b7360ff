//! What is sent to a model for a task, and how its text becomes an answer: one module per
//! task family (`function`, `completion`, `assertion`), and the fill-in-the-middle formats
//! of completion models ([`fim`]).
//!
//! Chat prompts are a system message (the family's: [`function::SYSTEM`],
//! [`completion::SYSTEM`], [`assertion::SYSTEM`]) and a user message; `--system` replaces
//! the system message (an empty text drops it) and `--system-role user` puts its text at the
//! start of the user message instead, for models whose chat template has no system role
//! ([`Options::system`], [`SystemRole`]). Before a family cleans a model's text, reasoning
//! at its start is dropped ([`crate::clean::strip_think`]); a text that is nothing but
//! unfinished reasoning is an empty answer ([`crate::clean::unclosed_think`]).

pub mod assertion;
pub mod completion;
pub mod fim;
pub mod function;

use serde::Serialize;

use crate::clean;
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
    /// The system text of chat prompts (`--system`): `None` the family's own, `Some("")`
    /// none at all.
    pub system: Option<String>,
    /// Where the system text goes (`--system-role`).
    pub system_role: SystemRole,
}

/// Where the system text of a chat prompt goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SystemRole {
    /// A message of role `system` before the user message.
    #[default]
    System,
    /// The start of the first user message (then a blank line), for chat templates without
    /// a system role.
    User,
}

impl Options {
    /// Chat prompts with the default budget (what `command:` programs' answers are cleaned
    /// as).
    pub fn chat() -> Options {
        Options {
            api: Api::Chat,
            fim: None,
            budget: DEFAULT_BUDGET,
            system: None,
            system_role: SystemRole::System,
        }
    }

    /// What shapes chat prompts beyond the family's defaults, as text for row hashes (empty
    /// when nothing does: the family's system message as a system message).
    pub fn system_digest(&self) -> String {
        if self.api != Api::Chat {
            return String::new();
        }
        let mut parts: Vec<String> = Vec::new();
        if let Some(text) = &self.system {
            parts.push(format!("system={text:?}"));
        }
        if self.system_role == SystemRole::User {
            parts.push("system_role=user".into());
        }
        parts.join(" ")
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
    let prompt = match task.family {
        Family::Function => function::build(task, opts.api),
        Family::Completion => completion::build(task, opts)?,
        Family::Assertion => assertion::build(task, opts)?,
    };
    Ok(place_system(prompt, opts))
}

/// A chat prompt with the system text of `opts`: the family's message replaced by
/// `--system` (dropped when that is empty), or moved to the start of the first user message
/// with `--system-role user`. Other prompts (and the defaults) are left as they are.
fn place_system(prompt: Prompt, opts: &Options) -> Prompt {
    let Prompt::Chat(mut messages) = prompt else {
        return prompt;
    };
    if opts.system.is_none() && opts.system_role == SystemRole::System {
        return Prompt::Chat(messages);
    }
    let at = messages.iter().position(|m| m.role == "system");
    let own = at.map(|i| messages.remove(i).content);
    let text = opts.system.clone().or(own).unwrap_or_default();
    if text.is_empty() {
        return Prompt::Chat(messages);
    }
    match opts.system_role {
        SystemRole::System => messages.insert(
            0,
            Message {
                role: "system",
                content: text,
            },
        ),
        SystemRole::User => match messages.iter_mut().find(|m| m.role == "user") {
            Some(user) => user.content = format!("{text}\n\n{}", user.content),
            None => messages.insert(
                0,
                Message {
                    role: "user",
                    content: text,
                },
            ),
        },
    }
    Prompt::Chat(messages)
}

/// The answer (code) from a model's text: for chat (and `command:` solvers) the whole
/// answer, for completions the continuation of the prompt (completion tasks: the fill;
/// assertion tasks: the value or the verdict). Reasoning at the start of the text is
/// dropped first; a text that is only reasoning that never closes (cut by `max_tokens`)
/// gives an empty answer, whatever the family (a completion is not its prompt alone then).
pub fn answer(task: &Task, opts: &Options, text: &str) -> String {
    if clean::unclosed_think(text) {
        return String::new();
    }
    let text = clean::strip_think(text);
    match task.family {
        Family::Function => function::answer(task, opts.api, text),
        Family::Completion => completion::answer(task, opts, text),
        Family::Assertion => assertion::answer(task, opts, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> Task {
        Task {
            task_id: "t".into(),
            family: Family::Function,
            prompt: "def f(x):\n    \"\"\"Id.\"\"\"\n".into(),
            entry_point: "f".into(),
            canonical_solution: String::new(),
            completion: None,
            assertion: None,
        }
    }

    fn messages(opts: &Options) -> Vec<(&'static str, String)> {
        let Prompt::Chat(m) = build(&task(), opts).unwrap() else {
            panic!("a chat prompt")
        };
        m.into_iter().map(|m| (m.role, m.content)).collect()
    }

    #[test]
    fn the_system_text_is_replaced_dropped_or_moved() {
        let user = function::user_message(&task());
        assert_eq!(
            messages(&Options::chat()),
            [
                ("system", function::SYSTEM.to_string()),
                ("user", user.clone())
            ]
        );
        let given = Options {
            system: Some("Be terse.".into()),
            ..Options::chat()
        };
        assert_eq!(
            messages(&given),
            [("system", "Be terse.".to_string()), ("user", user.clone())]
        );
        let none = Options {
            system: Some(String::new()),
            ..Options::chat()
        };
        assert_eq!(messages(&none), [("user", user.clone())]);
        let moved = Options {
            system_role: SystemRole::User,
            ..Options::chat()
        };
        assert_eq!(
            messages(&moved),
            [("user", format!("{}\n\n{user}", function::SYSTEM))]
        );
        let both = Options {
            system: Some("Be terse.".into()),
            system_role: SystemRole::User,
            ..Options::chat()
        };
        assert_eq!(messages(&both), [("user", format!("Be terse.\n\n{user}"))]);
        // Completions prompts have no system message to change.
        let comp = Options {
            api: Api::Completions,
            ..both.clone()
        };
        assert!(matches!(
            build(&task(), &comp).unwrap(),
            Prompt::Completion { .. }
        ));
        assert_eq!(Options::chat().system_digest(), "");
        assert_eq!(comp.system_digest(), "");
        assert_eq!(
            both.system_digest(),
            "system=\"Be terse.\" system_role=user"
        );
        assert_ne!(none.system_digest(), Options::chat().system_digest());
    }

    #[test]
    fn reasoning_is_dropped_before_cleaning() {
        let t = task();
        let opts = Options::chat();
        assert_eq!(
            answer(
                &t,
                &opts,
                "<think>easy</think>\n```python\ndef f(x):\n    return x\n```"
            ),
            "def f(x):\n    return x\n"
        );
        // Cut inside the reasoning: an empty answer, on either endpoint.
        assert_eq!(answer(&t, &opts, "<think>\ndef f(x):\n    return x"), "");
        let comp = Options {
            api: Api::Completions,
            ..Options::chat()
        };
        assert_eq!(answer(&t, &comp, "<thinking>\nhmm"), "");
        assert_eq!(
            answer(&t, &comp, "<think>easy</think>    return x\n"),
            format!("{}    return x\n", t.prompt)
        );
    }
}
