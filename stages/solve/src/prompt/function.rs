//! The `function` family: implement a function from its signature and docstring.

use super::{Api, Message, Prompt};
use crate::clean;
use crate::task::Task;

/// The system message of chat requests.
pub const SYSTEM: &str = "You are an expert Python programmer. You write correct, complete Python code and answer with code only.";

/// Where a completion stops: the next top-level definition or script code (the classic
/// `HumanEval` set; four, the most the `OpenAI` API takes).
pub const COMPLETION_STOP: [&str; 4] = ["\ndef ", "\nclass ", "\nif __name__", "\nprint("];

/// The user message: the request, then the task prompt in a Python block.
pub fn user_message(task: &Task) -> String {
    let mut prompt = task.prompt.clone();
    if !prompt.ends_with('\n') {
        prompt.push('\n');
    }
    format!(
        "Implement the Python function `{entry}` whose signature and docstring follow. You may use the imports shown. \
         Answer with the complete function, signature included, in one ```python code block.\n\n```python\n{prompt}```\n",
        entry = task.entry_point,
    )
}

pub fn build(task: &Task, api: Api) -> Prompt {
    match api {
        Api::Chat => Prompt::Chat(vec![
            Message {
                role: "system",
                content: SYSTEM.to_string(),
            },
            Message {
                role: "user",
                content: user_message(task),
            },
        ]),
        Api::Completions => Prompt::Completion {
            prompt: task.prompt.clone(),
            stop: COMPLETION_STOP.iter().map(|s| (*s).to_string()).collect(),
        },
    }
}

pub fn answer(task: &Task, api: Api, text: &str) -> String {
    match api {
        Api::Chat => clean::clean(text, &task.prompt, &task.entry_point),
        Api::Completions => {
            // A chatty model may close a fence it imagined: the code ends there.
            let cut = if text.trim_start().starts_with("```") {
                ""
            } else {
                text.find("\n```").map_or(text, |i| &text[..=i])
            };
            let mut whole = task.prompt.clone();
            whole.push_str(cut);
            clean::clean(&whole, &task.prompt, &task.entry_point)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Family;

    fn task() -> Task {
        Task {
            task_id: "t".into(),
            family: Family::Function,
            prompt: "import math\n\n\ndef hyp(a: float, b: float) -> float:\n    \"\"\"Hypotenuse.\"\"\"\n"
                .into(),
            entry_point: "hyp".into(),
            canonical_solution: String::new(),
            completion: None,
            assertion: None,
        }
    }

    #[test]
    fn chat_messages_hold_the_prompt_in_a_block() {
        let Prompt::Chat(m) = build(&task(), Api::Chat) else {
            panic!("a chat prompt")
        };
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].role, "system");
        assert_eq!(m[1].role, "user");
        assert!(m[1].content.contains("`hyp`"));
        assert!(m[1]
            .content
            .ends_with("```python\nimport math\n\n\ndef hyp(a: float, b: float) -> float:\n    \"\"\"Hypotenuse.\"\"\"\n```\n"));
    }

    #[test]
    fn completions_send_the_raw_prompt() {
        assert_eq!(
            build(&task(), Api::Completions),
            Prompt::Completion {
                prompt: task().prompt,
                stop: COMPLETION_STOP.iter().map(|s| (*s).to_string()).collect()
            }
        );
    }

    #[test]
    fn a_completion_continues_the_prompt() {
        let t = task();
        assert_eq!(
            answer(&t, Api::Completions, "    return math.hypot(a, b)\n"),
            format!("{}    return math.hypot(a, b)\n", t.prompt)
        );
        assert_eq!(
            answer(
                &t,
                Api::Completions,
                "    return math.hypot(a, b)\n```\nThis uses hypot."
            ),
            format!("{}    return math.hypot(a, b)\n", t.prompt)
        );
        assert_eq!(
            answer(
                &t,
                Api::Chat,
                "```python\ndef hyp(a, b):\n    return math.hypot(a, b)\n```"
            ),
            "import math\n\ndef hyp(a, b):\n    return math.hypot(a, b)\n"
        );
    }
}
