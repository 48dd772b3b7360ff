//! `command:PROGRAM ARGS...`: any program that reads one task as a JSON object on stdin
//! (`task_id`, `family`, `prompt`, `entry_point`, `sample`, `temperature`, `max_tokens`;
//! with `--seed N` also `seed`, N plus the sample index, for a program that samples to
//! make reproducible; completion tasks also `completion`: `path`, `span_kind`, `prefix`, `suffix`, `indent`
//! and `context`, with `prompt` the file with `<MASK>` where the span is; assertion tasks
//! also `assertion`: `path`, `form`, `kind`, `subject`, `test_source`, `masked_assertion`,
//! `code_context` and, in the verify form, `claim`, with `prompt` the test source; never
//! the answer, the original value or whether the program is mutated) and prints its answer
//! on stdout (completion tasks: the fill; assertion tasks: the value, or `True` / `False`;
//! cleaned as a chat answer is). A non-zero exit or a run past `--timeout` is an error
//! answer with the tail of stderr as the reason.

use std::io::Write as _;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::openai::tail;
use crate::prompt;
use crate::solver::{sha256_hex, Answer, Solver};
use crate::task::{Assertion, Completion, Task};

/// A program to ask.
#[derive(Debug, Clone)]
pub struct CommandSolver {
    pub program: String,
    pub args: Vec<String>,
    pub temperature: f64,
    pub max_tokens: u32,
    /// `--seed`: sample `s` gets `seed + s` (`None`: no `seed` member).
    pub seed: Option<u32>,
    pub timeout: Duration,
}

/// What the program reads on stdin.
#[derive(Debug, Serialize)]
pub struct Input<'a> {
    pub task_id: &'a str,
    pub family: &'a str,
    pub prompt: &'a str,
    pub entry_point: &'a str,
    pub sample: u32,
    pub temperature: f64,
    pub max_tokens: u32,
    /// `--seed` plus the sample index (absent without `--seed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<CompletionInput<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assertion: Option<AssertionInput<'a>>,
}

/// The test and code of an assertion task, as the program reads it: what a prompt shows.
#[derive(Debug, Serialize)]
pub struct AssertionInput<'a> {
    pub path: &'a str,
    pub form: &'a str,
    pub kind: &'a str,
    pub subject: &'a str,
    pub test_source: &'a str,
    pub masked_assertion: &'a str,
    pub code_context: &'a [schemas::ContextSnippet],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<&'a str>,
}

impl<'a> From<&'a Assertion> for AssertionInput<'a> {
    fn from(a: &'a Assertion) -> Self {
        AssertionInput {
            path: &a.path,
            form: a.form.as_str(),
            kind: a.kind.as_str(),
            subject: &a.subject,
            test_source: &a.test_source,
            masked_assertion: &a.masked_assertion,
            code_context: &a.code_context,
            claim: a.claim.as_deref(),
        }
    }
}

/// The masked file of a completion task, as the program reads it.
#[derive(Debug, Serialize)]
pub struct CompletionInput<'a> {
    pub path: &'a str,
    pub span_kind: &'a str,
    pub prefix: &'a str,
    pub suffix: &'a str,
    pub indent: &'a str,
    pub context: &'a [schemas::ContextSnippet],
}

impl<'a> From<&'a Completion> for CompletionInput<'a> {
    fn from(c: &'a Completion) -> Self {
        CompletionInput {
            path: &c.path,
            span_kind: c.span_kind.as_str(),
            prefix: &c.prefix,
            suffix: &c.suffix,
            indent: &c.indent,
            context: &c.context,
        }
    }
}

/// How a run of the program ended.
enum Ended {
    Exited(std::process::ExitStatus),
    TimedOut,
}

impl CommandSolver {
    fn input(&self, task: &Task, sample: u32) -> String {
        serde_json::to_string(&Input {
            task_id: &task.task_id,
            family: task.family.as_str(),
            prompt: &task.prompt,
            entry_point: &task.entry_point,
            sample,
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            seed: self.seed.map(|s| u64::from(s) + u64::from(sample)),
            completion: task.completion.as_ref().map(CompletionInput::from),
            assertion: task.assertion.as_ref().map(AssertionInput::from),
        })
        .expect("the input serializes")
    }

    fn spawn(&self) -> std::io::Result<Child> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so a timeout ends what it started too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.spawn()
    }
}

/// Reads a pipe to its end on a thread; the bytes arrive on the returned channel.
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
    }
    rx
}

/// Ends the child and its process group.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Solver for CommandSolver {
    fn solve(&self, task: &Task, sample: u32) -> anyhow::Result<Answer> {
        let started = Instant::now();
        let input = self.input(task, sample);
        let hash = sha256_hex(&input);
        let mut child = self.spawn().map_err(|e| {
            anyhow::anyhow!(
                "command `{}` could not start ({e}); give a program on PATH or a path to one",
                self.program
            )
        })?;
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        if let Some(mut stdin) = child.stdin.take() {
            // On a thread: a program may print before it reads everything.
            std::thread::spawn(move || {
                let _ = stdin.write_all(input.as_bytes());
            });
        }
        let deadline = started + self.timeout;
        let ended = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ended::Exited(status),
                Ok(None) if Instant::now() >= deadline => {
                    kill(&mut child);
                    break Ended::TimedOut;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    kill(&mut child);
                    return Ok(Answer::error(
                        hash,
                        format!("waiting for the command failed: {e}"),
                        started,
                    ));
                }
            }
        };
        // Descendants that kept the pipes open are not waited for long.
        let grace = Duration::from_secs(2);
        let out = stdout.recv_timeout(grace).unwrap_or_default();
        let err = stderr.recv_timeout(grace).unwrap_or_default();
        let err_tail = tail(&String::from_utf8_lossy(&err), 500);
        let why = match ended {
            Ended::TimedOut => Some(format!(
                "timed out after {} s (--timeout); stderr: {err_tail}",
                self.timeout.as_secs_f64()
            )),
            Ended::Exited(status) if !status.success() => Some(format!(
                "exited with {}; stderr: {err_tail}",
                status
                    .code()
                    .map_or_else(|| "a signal".to_string(), |c| format!("status {c}"))
            )),
            Ended::Exited(_) => None,
        };
        if let Some(why) = why {
            return Ok(Answer::error(hash, why, started));
        }
        let raw = String::from_utf8_lossy(&out).into_owned();
        let code = prompt::answer(task, &prompt::Options::chat(), &raw);
        Ok(Answer::ok(hash, code, raw, started))
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
            prompt: "def f(x):\n    \"\"\"Id.\"\"\"\n".into(),
            entry_point: "f".into(),
            canonical_solution: String::new(),
            completion: None,
            assertion: None,
        }
    }

    fn sh(script: &str, timeout: Duration) -> CommandSolver {
        CommandSolver {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            temperature: 0.0,
            max_tokens: 64,
            seed: None,
            timeout,
        }
    }

    #[test]
    fn stdout_is_the_answer_and_stdin_the_task() {
        // Echoes the task back: the answer is the JSON the program read.
        let s = sh("cat", Duration::from_secs(10));
        let a = s.solve(&task(), 3).unwrap();
        let raw = a.raw.unwrap();
        let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(v["task_id"], "t");
        assert_eq!(v["family"], "function");
        assert_eq!(v["entry_point"], "f");
        assert_eq!(v["sample"], 3);
        assert_eq!(v["max_tokens"], 64);
        assert!(v.get("seed").is_none(), "a seed without --seed");
        assert_eq!(a.prompt_hash, sha256_hex(&raw));
        // With --seed: the seed plus the sample.
        let seeded = CommandSolver {
            seed: Some(100),
            ..sh("cat", Duration::from_secs(10))
        };
        let a = seeded.solve(&task(), 3).unwrap();
        let v: serde_json::Value = serde_json::from_str(a.raw.as_deref().unwrap()).unwrap();
        assert_eq!(v["seed"], 103);
        let s = sh(
            "cat >/dev/null; printf '    return x\\n'",
            Duration::from_secs(10),
        );
        let a = s.solve(&task(), 0).unwrap();
        assert_eq!(
            a.answer.as_deref(),
            Some("def f(x):\n    \"\"\"Id.\"\"\"\n    return x\n")
        );
    }

    #[test]
    fn completion_tasks_come_with_their_file() {
        let t = Task::from(&schemas::examples::completion_task("c1", "r"));
        let a = sh("cat", Duration::from_secs(10)).solve(&t, 0).unwrap();
        let v: serde_json::Value = serde_json::from_str(a.raw.as_deref().unwrap()).unwrap();
        assert_eq!(v["family"], "completion");
        assert_eq!(v["prompt"], "def add(a, b):\n    return <MASK>\n");
        assert_eq!(v["completion"]["span_kind"], "expression");
        assert_eq!(v["completion"]["prefix"], "def add(a, b):\n    return ");
        assert_eq!(v["completion"]["indent"], "    ");
        assert!(
            !a.raw.unwrap().contains("a + b"),
            "the reference reached the program"
        );
        let a = sh(
            "cat >/dev/null; printf '```python\\nreturn a + b\\n```\\n'",
            Duration::from_secs(10),
        )
        .solve(&t, 0)
        .unwrap();
        assert_eq!(a.answer.as_deref(), Some("a + b"));
        // Function tasks get no `completion` member.
        let a = sh("cat", Duration::from_secs(10))
            .solve(&task(), 0)
            .unwrap();
        assert!(!a.raw.unwrap().contains("\"completion\""));
    }

    #[test]
    fn assertion_tasks_come_with_their_test_and_not_their_answer() {
        use schemas::AssertionForm;
        let row = crate::examples::assertion_task("a1", AssertionForm::Verify, true);
        let t = Task::from(&row);
        let a = sh("cat", Duration::from_secs(10)).solve(&t, 0).unwrap();
        let raw = a.raw.unwrap();
        let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(v["family"], "assertion");
        assert_eq!(v["prompt"], row.test_source.as_str());
        assert_eq!(v["assertion"]["form"], "verify");
        assert_eq!(v["assertion"]["kind"], "equal");
        assert_eq!(v["assertion"]["claim"], "5");
        assert_eq!(v["assertion"]["code_context"][0]["path"], "pkg/prices.py");
        for hidden in ["original_json", "mutated", "answer", "value_json"] {
            assert!(!raw.contains(hidden), "{hidden} reached the program");
        }
        let a = sh(
            "cat >/dev/null; printf '**False**, it fails.\n'",
            Duration::from_secs(10),
        )
        .solve(&t, 0)
        .unwrap();
        assert_eq!(a.answer.as_deref(), Some("False"));
    }

    #[test]
    fn failures_are_error_answers() {
        let a = sh("echo nope >&2; exit 3", Duration::from_secs(10))
            .solve(&task(), 0)
            .unwrap();
        let e = a.error.unwrap();
        assert!(e.contains("status 3") && e.contains("nope"), "{e}");
        let started = Instant::now();
        let a = sh("sleep 30", Duration::from_millis(300))
            .solve(&task(), 0)
            .unwrap();
        assert!(a.error.unwrap().contains("timed out"));
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_program_stops_the_run() {
        let s = CommandSolver {
            program: "/nonexistent/solver".into(),
            args: vec![],
            temperature: 0.0,
            max_tokens: 1,
            seed: None,
            timeout: Duration::from_secs(1),
        };
        assert!(s.solve(&task(), 0).is_err());
    }
}
