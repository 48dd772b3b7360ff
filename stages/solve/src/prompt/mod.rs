//! What is sent to a model for a task, and how its text becomes an answer: one module per
//! task family (`function` now; `completion` and `assertion` add a module and an arm to
//! each `match` below).

pub mod function;

use serde::Serialize;

use crate::task::{Family, Task};

/// Which endpoint of an OpenAI-compatible API is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Api {
    /// `/chat/completions`: a system and a user message; the answer is cleaned code.
    Chat,
    /// `/completions`: the raw task prompt, continued by the model; the answer is the prompt
    /// followed by the continuation.
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
        stop: Vec<&'static str>,
    },
}

/// The prompt of a task for an API.
pub fn build(task: &Task, api: Api) -> Prompt {
    match task.family {
        Family::Function => function::build(task, api),
        // `task::load` reads function tasks only until the mask stage writes the others.
        Family::Completion | Family::Assertion => unreachable!(
            "solve loads no {} task: the family has no prompt module yet",
            task.family
        ),
    }
}

/// The answer (code) from a model's text: for chat (and `command:` solvers) the whole
/// answer, for completions the continuation of the prompt.
pub fn answer(task: &Task, api: Api, text: &str) -> String {
    match task.family {
        Family::Function => function::answer(task, api, text),
        Family::Completion | Family::Assertion => unreachable!(
            "solve loads no {} task: the family has no prompt module yet",
            task.family
        ),
    }
}
