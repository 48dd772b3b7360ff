//! The built `solve` binary with `file:` answers (`EvalPlus`, human-eval, `BigCodeBench`
//! samples): the same answers as a `command:` program printing the same samples gives,
//! error rows for what the file lacks, a rerun that follows the file, bad lines refused.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use schemas::{AnswerStatus, AssertionTask, Candidate, Validation};

/// A `command:` program answering from a samples file as `file:` reads it: the task's lines
/// (its own id or `freshbench/<id>`), the `sample`-th of them, `solution` over `completion`;
/// a function task's completion follows its prompt (unless it opens with a fence), a
/// completion task's whole-file solution gives the text between prefix and suffix.
const ANSWER_PY: &str = r#"import json, sys

task = json.load(sys.stdin)
tid = task["task_id"]
lines = []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if line.strip():
            lines.append(json.loads(line))
mine = [o for o in lines if o["task_id"] in (tid, "freshbench/" + tid)]
if task["sample"] >= len(mine):
    sys.exit("no sample %d for %s" % (task["sample"], tid))
o = mine[task["sample"]]
if isinstance(o.get("solution"), str):
    text = o["solution"]
    c = task.get("completion")
    if c and text.startswith(c["prefix"]) and text[len(c["prefix"]):].rstrip().endswith(c["suffix"].rstrip()):
        rest = text[len(c["prefix"]):].rstrip()
        cut = len(c["suffix"].rstrip())
        text = rest[: len(rest) - cut] if cut else rest
elif task["family"] == "function" and not o["completion"].lstrip().startswith(("```", "~~~")):
    text = task["prompt"] + o["completion"]
else:
    text = o["completion"]
sys.stdout.write(text)
"#;

/// A dataset of the three families: function and completion tasks (common's), and the
/// assertion tasks with their validations added.
fn all_families() -> tempfile::TempDir {
    let dir = completion_dataset(true);
    let a = assertion_dataset(false);
    let rows: Vec<AssertionTask> = schemas::read_table(a.path()).unwrap();
    let mut v: Vec<Validation> = schemas::read_table(dir.path()).unwrap();
    v.extend(schemas::read_table::<Validation>(a.path()).unwrap());
    schemas::write_table(dir.path(), &rows).unwrap();
    schemas::write_table(dir.path(), &v).unwrap();
    dir
}

fn obj(id: &str, field: &str, text: &str) -> serde_json::Value {
    serde_json::json!({ "task_id": id, field: text })
}

fn write_lines(path: &Path, lines: &[serde_json::Value]) {
    let mut text = lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    std::fs::write(path, text).unwrap();
}

/// Two samples per solvable task of every family, in the forms harnesses write, some ids
/// exported; plus a line of a task the run does not solve and one of no task at all.
fn samples() -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for (i, f) in solvable().into_iter().enumerate() {
        let id = if i % 2 == 0 {
            format!("freshbench/{}", f.id)
        } else {
            f.id.to_string()
        };
        // human-eval: the body after the prompt (the reference).
        out.push(obj(&id, "completion", f.body));
        // EvalPlus / BigCodeBench: a whole program, fenced for some, wrong.
        let wrong = format!("{}\n    \"\"\"{}\"\"\"\n    return None\n", f.def, f.doc);
        let solution = if i % 3 == 0 {
            format!("Here it is:\n```python\n{wrong}```\n")
        } else {
            wrong
        };
        out.push(obj(f.id, "solution", &solution));
    }
    for (i, m) in solvable_masked().into_iter().enumerate() {
        out.push(obj(
            &format!("freshbench/{}", m.id),
            "completion",
            m.reference,
        ));
        let second = if i % 2 == 0 {
            obj(m.id, "solution", &m.spliced("pass"))
        } else {
            obj(
                m.id,
                "completion",
                &format!("```python\n{}\n```", m.reference),
            )
        };
        out.push(second);
    }
    for a in solvable_asserted() {
        out.push(obj(
            &format!("freshbench/{}", a.task_id),
            "completion",
            &a.answer,
        ));
        out.push(obj(
            &a.task_id,
            "solution",
            &format!("```python\n{}\n```", a.answer),
        ));
    }
    out.push(obj("t07", "completion", "    return 0\n"));
    out.push(obj("HumanEval/0", "completion", "    return 1\n"));
    out
}

fn by_key(rows: &[Candidate]) -> BTreeMap<(String, i32), &Candidate> {
    rows.iter()
        .map(|c| ((c.task_id.clone(), c.sample), c))
        .collect()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

fn script(dir: &Path) -> PathBuf {
    let p = dir.join("answer.py");
    std::fs::write(&p, ANSWER_PY).unwrap();
    p
}

#[test]
fn file_and_command_give_the_same_answers() {
    let dir = all_families();
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("samples.jsonl");
    write_lines(&file, &samples());
    let spec = format!("file:{}", path_str(&file));
    let out = solve(
        dir.path(),
        &["--run", "f", "--model", &spec, "--samples", "2"],
    );
    assert_code(&out, 0);
    let err = stderr(&out);
    assert!(
        err.contains("1 answers name no task of the dataset (HumanEval/0)"),
        "{err}"
    );
    let cmd = format!(
        "command:python3 {} {}",
        path_str(&script(work.path())),
        path_str(&file)
    );
    let out = solve(
        dir.path(),
        &["--run", "c", "--model", &cmd, "--samples", "2"],
    );
    assert_code(&out, 0);

    let (f, c) = (candidates(dir.path(), "f"), candidates(dir.path(), "c"));
    let tasks = solvable().len() + solvable_masked().len() + solvable_asserted().len();
    assert_eq!(f.len(), tasks * 2);
    assert_eq!(c.len(), f.len());
    let (fk, ck) = (by_key(&f), by_key(&c));
    assert_eq!(fk.keys().collect::<Vec<_>>(), ck.keys().collect::<Vec<_>>());
    for (key, a) in &fk {
        let b = ck[key];
        assert_eq!(a.status, AnswerStatus::Ok, "{a:?}");
        assert_eq!(a.answer, b.answer, "{key:?}: file and command differ");
        assert_eq!(a.family, b.family);
        assert_eq!(a.model, spec);
        assert_eq!((a.tokens_in, a.tokens_out, a.cost), (None, None, None));
        assert!(a.raw.is_some());
    }
    // The first samples are the references, each family's way.
    for fx in solvable() {
        let a = fk[&(fx.id.to_string(), 0)];
        assert_eq!(a.answer.as_deref(), Some(fx.canonical().as_str()));
        assert_eq!(a.raw.as_deref(), Some(fx.body), "raw is the file's text");
        let wrong = fk[&(fx.id.to_string(), 1)].answer.as_deref().unwrap();
        assert!(
            wrong.contains("return None") && !wrong.contains("```"),
            "{wrong}"
        );
    }
    for (i, m) in solvable_masked().into_iter().enumerate() {
        let answer = |s: i32| fk[&(m.id.to_string(), s)].answer.as_deref().unwrap();
        assert_eq!(answer(0), m.reference, "{}", m.id);
        // The whole file's fill, or the fenced reference.
        let second = if i % 2 == 0 { "pass" } else { m.reference };
        assert_eq!(answer(1), second, "{}", m.id);
    }
    for t in solvable_asserted() {
        for s in [0, 1] {
            let a = fk[&(t.task_id.clone(), s)].answer.as_deref().unwrap();
            assert_eq!(a, t.answer, "{} sample {s}", t.task_id);
        }
    }
}

#[test]
fn a_rerun_keeps_the_answers_until_the_file_changes() {
    let dir = dataset(true);
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("samples.jsonl");
    let lines: Vec<serde_json::Value> = solvable()
        .iter()
        .map(|f| obj(f.id, "completion", f.body))
        .collect();
    write_lines(&file, &lines);
    let spec = format!("file:{}", path_str(&file));
    let args = ["--run", "f", "--model", spec.as_str()];
    assert_code(&solve(dir.path(), &args), 0);
    let first = candidates(dir.path(), "f");
    let out = solve(dir.path(), &args);
    assert_code(&out, 0);
    let n = solvable().len();
    assert!(
        stdout(&out).contains(&format!("{n} kept from an earlier run")),
        "{}",
        stdout(&out)
    );
    // Another answer to t01: every answer is made again, t01's is the new one.
    let mut changed = lines.clone();
    changed[0] = obj("t01", "completion", "    return a - b\n");
    write_lines(&file, &changed);
    let out = solve(dir.path(), &args);
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("0 kept from an earlier run"),
        "{}",
        stdout(&out)
    );
    let again = candidates(dir.path(), "f");
    let (a, b) = (by_key(&first), by_key(&again));
    let t01 = ("t01".to_string(), 0);
    assert!(b[&t01]
        .answer
        .as_deref()
        .unwrap()
        .ends_with("return a - b\n"));
    assert_ne!(a[&t01].input_hash, b[&t01].input_hash);
    let t02 = ("t02".to_string(), 0);
    assert_eq!(a[&t02].answer, b[&t02].answer);
}

#[test]
fn missing_tasks_and_samples_are_error_rows() {
    let dir = dataset(true);
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("samples.jsonl");
    // t01 twice, t02 once, the other tasks not at all; a JSON array this time.
    let lines = vec![
        obj("t01", "completion", "    return a + b\n"),
        obj(
            "freshbench/t01",
            "solution",
            "def add(a, b):\n    return b + a\n",
        ),
        obj("t02", "completion", "    return x\n"),
    ];
    std::fs::write(&file, serde_json::to_string_pretty(&lines).unwrap()).unwrap();
    let spec = format!("file:{}", path_str(&file));
    let out = solve(
        dir.path(),
        &["--run", "f", "--model", &spec, "--samples", "2"],
    );
    assert_code(&out, 1);
    let n = solvable().len();
    let errors = (n - 2) * 2 + 1;
    assert!(
        stdout(&out).contains(&format!("{} ok, {errors} error", 3)),
        "{}",
        stdout(&out)
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{} of {n} tasks have no answer in the file",
            n - 2
        )),
        "{err}"
    );
    assert!(
        err.contains("1 tasks have fewer than --samples 2 answers"),
        "{err}"
    );
    let rows = candidates(dir.path(), "f");
    let rows = by_key(&rows);
    assert_eq!(rows.len(), n * 2);
    assert_eq!(rows[&("t01".to_string(), 1)].status, AnswerStatus::Ok);
    let short = rows[&("t02".to_string(), 1)];
    assert_eq!(short.status, AnswerStatus::Error);
    assert_eq!(
        short.error.as_deref(),
        Some(
            format!(
                "no sample 1 for this task in {} (it holds 1 for it)",
                path_str(&file)
            )
            .as_str()
        )
    );
    let absent = rows[&("t03".to_string(), 0)];
    assert_eq!(absent.status, AnswerStatus::Error);
    assert!(
        absent
            .error
            .as_deref()
            .unwrap()
            .starts_with(&format!("no answer for this task in {}", path_str(&file))),
        "{absent:?}"
    );
    // More samples in the file than asked: the first taken, a warning.
    let out = solve(
        dir.path(),
        &["--run", "g", "--model", &spec, "--task", "t01"],
    );
    assert_code(&out, 0);
    assert!(
        stderr(&out).contains("1 tasks have more answers in the file than --samples 1 (up to 2)"),
        "{}",
        stderr(&out)
    );
    let g = candidates(dir.path(), "g");
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].raw.as_deref(), Some("    return a + b\n"));
}

#[test]
fn bad_lines_stop_the_run_naming_file_and_line() {
    let dir = dataset(true);
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("samples.jsonl");
    let good = obj("t01", "completion", "    return a + b\n").to_string();
    for (bad, says) in [
        (
            "{\"task_id\": \"t02\", \"completion\": \"x\"",
            "not valid JSON",
        ),
        (
            "{\"task_id\": \"t02\", \"answer\": \"x\"}",
            "has no `completion` or `solution`",
        ),
        ("{\"completion\": \"x\"}", "no `task_id`"),
    ] {
        std::fs::write(&file, format!("{good}\n\n{bad}\n{good}\n")).unwrap();
        let spec = format!("file:{}", path_str(&file));
        let out = solve(dir.path(), &["--run", "b", "--model", &spec]);
        assert_code(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{}:3: ", path_str(&file))) && err.contains(says),
            "{bad}: {err}"
        );
        assert!(
            !candidates_path(dir.path(), "b").exists(),
            "a table was written"
        );
    }
    let out = solve(
        dir.path(),
        &["--run", "b", "--model", "file:/nonexistent/samples.jsonl"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("--model file:/nonexistent/samples.jsonl: cannot read it"),
        "{}",
        stderr(&out)
    );
}
