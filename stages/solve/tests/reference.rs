//! The built `solve` binary with the reference solvers and `command:` programs, on a small
//! dataset of function tasks written in a temporary folder.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use common::*;
use schemas::{AnswerStatus, Candidate};

fn by_task(rows: &[Candidate]) -> BTreeMap<(String, i32), &Candidate> {
    rows.iter()
        .map(|c| ((c.task_id.clone(), c.sample), c))
        .collect()
}

/// Every answer compiles, when a `python3` is there to say so.
fn assert_compiles(rows: &[Candidate]) {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipping the compile check: no python3 on PATH");
        return;
    }
    let answers: Vec<&str> = rows.iter().filter_map(|c| c.answer.as_deref()).collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("answers.json");
    std::fs::write(&file, serde_json::to_string(&answers).unwrap()).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import json, sys\nfor a in json.load(open(sys.argv[1])): compile(a, 'answer', 'exec')",
        )
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn oracle_answers_the_canonical_solutions() {
    let dir = dataset(true);
    let out = solve(
        dir.path(),
        &["--run", "o", "--model", "oracle", "--samples", "2"],
    );
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "o");
    let want = solvable();
    assert_eq!(rows.len(), want.len() * 2);
    // Sorted by (task id, sample); rejected and invalid tasks left out.
    let keys: Vec<(String, i32)> = rows.iter().map(|c| (c.task_id.clone(), c.sample)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    for c in &rows {
        let f = Fixture::by_id(&c.task_id);
        assert!(f.valid && f.status == "ok");
        assert_eq!(c.status, "ok".parse().unwrap());
        assert_eq!(c.answer.as_deref(), Some(f.canonical().as_str()));
        assert_eq!(c.run, "o");
        assert_eq!(c.model, "oracle");
        assert_eq!(c.family, "function".parse().unwrap());
        assert_eq!(c.prompt_hash, solve::solver::sha256_hex(f.prompt()));
        assert_eq!(c.error, None);
    }
    assert_compiles(&rows);
    assert!(stdout(&out).contains("12 ok, 0 error"), "{}", stdout(&out));
}

#[test]
fn null_defines_the_entry_point_with_an_empty_body() {
    let dir = dataset(true);
    let out = solve(dir.path(), &["--run", "n", "--model", "null"]);
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "n");
    assert_eq!(rows.len(), solvable().len());
    for c in &rows {
        let f = Fixture::by_id(&c.task_id);
        let a = c.answer.as_deref().unwrap();
        // The imports, the signature, the docstring, and `pass`.
        assert_eq!(a, format!("{}    pass\n", f.prompt()));
        assert!(a.contains(&format!("def {}(", f.entry)));
        assert!(!a.contains("return"), "{a}");
    }
    assert_compiles(&rows);
}

/// The changed span of `b` against `a`: (prefix length, removed text, inserted text).
fn one_edit<'a>(a: &'a str, b: &'a str) -> (usize, &'a str, &'a str) {
    let prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    (
        prefix,
        &a[prefix..a.len() - suffix],
        &b[prefix..b.len() - suffix],
    )
}

#[test]
fn mutant_is_one_edit_of_the_entry_point_and_the_same_every_run() {
    let dir = dataset(true);
    for run in ["m1", "m2"] {
        let out = solve(
            dir.path(),
            &["--run", run, "--model", "mutant", "--samples", "3"],
        );
        assert_code(&out, 0);
    }
    let (m1, m2) = (candidates(dir.path(), "m1"), candidates(dir.path(), "m2"));
    assert_eq!(m1.len(), solvable().len() * 3);
    let answers = |rows: &[Candidate]| -> Vec<Option<String>> {
        rows.iter().map(|c| c.answer.clone()).collect()
    };
    assert_eq!(
        answers(&m1),
        answers(&m2),
        "the mutants differ between runs"
    );
    let mut distinct_per_task = 0;
    for c in &m1 {
        let f = Fixture::by_id(&c.task_id);
        let canonical = f.canonical();
        let a = c.answer.as_deref().unwrap();
        assert_ne!(a, canonical, "{}: not mutated", c.task_id);
        let (at, removed, inserted) = one_edit(&canonical, a);
        // One small edit, inside the function's body (after the docstring).
        assert!(
            at >= f.prompt().len() - 1,
            "{}: edit at {at} outside the body: {a}",
            c.task_id
        );
        // Within one line: an operator, a constant, a return value, a statement, a condition.
        assert!(
            !removed.contains('\n') && !inserted.contains('\n'),
            "{}: {removed:?} -> {inserted:?}",
            c.task_id
        );
        assert!(
            removed.len() + inserted.len() <= 80,
            "{removed:?} -> {inserted:?}"
        );
    }
    for f in solvable() {
        let samples: std::collections::BTreeSet<&str> = m1
            .iter()
            .filter(|c| c.task_id == f.id)
            .filter_map(|c| c.answer.as_deref())
            .collect();
        distinct_per_task += usize::from(samples.len() > 1);
    }
    assert!(distinct_per_task > 0, "every sample got the same mutant");
    assert_compiles(&m1);
}

#[test]
fn a_task_without_mutants_is_an_error_row() {
    let dir = dataset(false);
    let out = solve(
        dir.path(),
        &[
            "--run",
            "m",
            "--model",
            "mutant",
            "--unvalidated",
            "--task",
            "t08",
            "--task",
            "t01",
        ],
    );
    assert_code(&out, 1);
    let rows = candidates(dir.path(), "m");
    let rows = by_task(&rows);
    let noop = rows[&("t08".to_string(), 0)];
    assert_eq!(noop.status, "error".parse().unwrap());
    assert!(
        noop.error.as_deref().unwrap().contains("no mutants"),
        "{noop:?}"
    );
    assert_eq!(noop.answer, None);
    assert_eq!(rows[&("t01".to_string(), 0)].status, AnswerStatus::Ok);
}

#[test]
fn missing_validations_stop_unless_unvalidated() {
    let dir = dataset(false);
    let out = solve(dir.path(), &["--run", "o", "--model", "oracle"]);
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains("execute --data") && err.contains("--validate"),
        "{err}"
    );
    assert!(err.contains("--unvalidated"), "{err}");
    assert!(!candidates_path(dir.path(), "o").exists());
    let out = solve(
        dir.path(),
        &["--run", "o", "--model", "oracle", "--unvalidated"],
    );
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "o");
    // Every ok task, the invalid one included; the rejected one still not.
    let ids: Vec<&str> = rows.iter().map(|c| c.task_id.as_str()).collect();
    assert_eq!(ids, ["t01", "t02", "t03", "t04", "t05", "t06", "t08"]);
}

#[test]
fn bad_input_exits_2_with_what_to_do() {
    let dir = dataset(true);
    for (args, says) in [
        (vec!["--run", "x", "--model", "gpt4"], "unknown solver"),
        (vec!["--run", "x", "--model", "openai:m"], "@http"),
        (vec!["--run", "../x", "--model", "oracle"], "--run"),
        (
            vec!["--run", "x", "--model", "oracle", "--task", "t07"],
            "rejected",
        ),
        (
            vec!["--run", "x", "--model", "oracle", "--task", "t08"],
            "not valid",
        ),
        (
            vec!["--run", "x", "--model", "oracle", "--task", "nope"],
            "no such task",
        ),
        (
            vec!["--run", "x", "--model", "oracle", "--samples", "0"],
            "--samples",
        ),
        (
            vec!["--run", "x", "--model", "command:/nonexistent/prog"],
            "could not start",
        ),
    ] {
        let out = solve(dir.path(), &args);
        assert_code(&out, 2);
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    let empty = tempfile::tempdir().unwrap();
    let out = solve(empty.path(), &["--run", "x", "--model", "oracle"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("synthesize-tests"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn another_model_in_the_same_run_is_refused_unless_forced() {
    let dir = dataset(true);
    assert_code(&solve(dir.path(), &["--run", "r", "--model", "oracle"]), 0);
    let out = solve(dir.path(), &["--run", "r", "--model", "null"]);
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains("`oracle`") && err.contains("`null`") && err.contains("--force"),
        "{err}"
    );
    assert!(candidates(dir.path(), "r")
        .iter()
        .all(|c| c.model == "oracle"));
    let out = solve(dir.path(), &["--run", "r", "--model", "null", "--force"]);
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "r");
    assert_eq!(rows.len(), solvable().len());
    assert!(rows.iter().all(|c| c.model == "null"));
}

#[test]
fn limit_task_and_shards() {
    let dir = dataset(true);
    assert_code(
        &solve(
            dir.path(),
            &["--run", "all", "--model", "oracle", "--limit", "5"],
        ),
        0,
    );
    let all = candidates(dir.path(), "all");
    assert_eq!(all.len(), 5);
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = solve(
            dir.path(),
            &[
                "--run", "sh", "--model", "oracle", "--limit", "5", "--shard", &shard,
            ],
        );
        assert_code(&out, 0);
        assert!(dir
            .path()
            .join(format!("runs/sh/candidates-{i}-of-2.parquet"))
            .is_file());
    }
    assert!(!candidates_path(dir.path(), "sh").exists());
    let out = solve(dir.path(), &["--run", "sh", "--merge-shards"]);
    assert_code(&out, 0);
    let merged = candidates(dir.path(), "sh");
    let strip = |rows: &[Candidate]| -> Vec<(String, Option<String>)> {
        rows.iter()
            .map(|c| (c.task_id.clone(), c.answer.clone()))
            .collect()
    };
    assert_eq!(strip(&merged), strip(&all));
    let out = solve(
        dir.path(),
        &["--run", "one", "--model", "oracle", "--task", "t03"],
    );
    assert_code(&out, 0);
    assert_eq!(candidates(dir.path(), "one").len(), 1);
    // The merge removed the shard files it joined.
    assert!(!dir
        .path()
        .join("runs/sh/candidates-1-of-2.parquet")
        .exists());
    // A missing shard is named, and the shard there is kept.
    let out = solve(
        dir.path(),
        &[
            "--run", "sh2", "--model", "oracle", "--limit", "5", "--shard", "1/2",
        ],
    );
    assert_code(&out, 0);
    let out = solve(dir.path(), &["--run", "sh2", "--merge-shards"]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("2/2"), "{}", stderr(&out));
    assert!(dir
        .path()
        .join("runs/sh2/candidates-1-of-2.parquet")
        .is_file());
    assert!(!dir.path().join("runs/sh2/candidates.parquet").exists());
}

/// A solver program: answers a stub for most tasks, fails on `fizzbuzz`, hangs on `clamp`,
/// and prints a bare body for `add`.
const SOLVER: &str = r#"#!/bin/sh
input=$(cat)
entry=$(printf '%s' "$input" | sed -n 's/.*"entry_point":"\([^"]*\)".*/\1/p')
sample=$(printf '%s' "$input" | sed -n 's/.*"sample":\([0-9]*\).*/\1/p')
case "$entry" in
  fizzbuzz) echo "fizzbuzz is beyond me" >&2; exit 3 ;;
  clamp) sleep 30 ;;
  add) printf '    return a + b  # sample %s\n' "$sample"; exit 0 ;;
esac
printf 'Here it is:\n```python\ndef %s(*args, **kwargs):\n    return None\n```\n' "$entry"
"#;

#[test]
fn command_programs_read_the_task_and_print_the_answer() {
    let dir = dataset(true);
    let script = dir.path().join("solver.sh");
    std::fs::write(&script, SOLVER).unwrap();
    let model = format!("command:sh {}", script.display());
    let started = std::time::Instant::now();
    let out = solve(
        dir.path(),
        &[
            "--run",
            "c",
            "--model",
            &model,
            "--timeout",
            "1",
            "--samples",
            "2",
            "--concurrency",
            "4",
        ],
    );
    assert_code(&out, 1);
    assert!(
        started.elapsed().as_secs() < 20,
        "the hanging program was not stopped"
    );
    let rows = candidates(dir.path(), "c");
    assert_eq!(rows.len(), solvable().len() * 2);
    for c in &rows {
        let f = Fixture::by_id(&c.task_id);
        assert_eq!(c.model, model);
        assert_eq!(c.prompt_hash.len(), 64);
        match f.entry {
            "fizzbuzz" => {
                assert_eq!(c.status, "error".parse().unwrap());
                let e = c.error.as_deref().unwrap();
                assert!(e.contains("status 3") && e.contains("beyond me"), "{e}");
            }
            "clamp" => {
                assert_eq!(c.status, "error".parse().unwrap());
                assert!(c.error.as_deref().unwrap().contains("timed out"));
            }
            "add" => {
                assert_eq!(c.status, "ok".parse().unwrap());
                // A bare body goes under the prompt; the sample reached the program.
                assert_eq!(
                    c.answer.as_deref().unwrap(),
                    format!("{}    return a + b  # sample {}\n", f.prompt(), c.sample)
                );
            }
            entry => {
                assert_eq!(c.status, "ok".parse().unwrap());
                assert!(c.raw.as_deref().unwrap().contains("```python"));
                let stub = format!("def {entry}(*args, **kwargs):\n    return None\n");
                // The prompt's imports are put in front of the code of the fence.
                let want = if f.imports.is_empty() {
                    stub
                } else {
                    format!("{}\n{stub}", f.imports)
                };
                assert_eq!(c.answer.as_deref().unwrap(), want);
            }
        }
    }
    // The two samples of a task were different requests.
    let rows = by_task(&rows);
    assert_ne!(
        rows[&("t01".to_string(), 0)].prompt_hash,
        rows[&("t01".to_string(), 1)].prompt_hash
    );
}
