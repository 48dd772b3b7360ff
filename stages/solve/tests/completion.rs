//! The built `solve` binary on completion tasks (a small `completion_tasks` table written in
//! a temporary folder): the reference solvers' fills, the family filter, validation.

mod common;

use std::process::Command;

use common::*;
use schemas::{AnswerStatus, Candidate, Family};

/// Every answer spliced into its file compiles, when a `python3` is there to say so.
fn assert_spliced_compile(rows: &[Candidate]) {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipping the compile check: no python3 on PATH");
        return;
    }
    let files: Vec<String> = rows
        .iter()
        .filter_map(|c| {
            c.answer
                .as_deref()
                .map(|a| Masked::by_id(&c.task_id).spliced(a))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("files.json");
    std::fs::write(&file, serde_json::to_string(&files).unwrap()).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg("import json, sys\nfor a in json.load(open(sys.argv[1])): compile(a, 'file', 'exec')")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn ids(rows: &[Candidate]) -> Vec<&str> {
    rows.iter().map(|c| c.task_id.as_str()).collect()
}

#[test]
fn oracle_answers_the_masked_text() {
    let dir = completion_dataset(false);
    let out = solve(
        dir.path(),
        &["--run", "o", "--model", "oracle", "--samples", "2"],
    );
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "o");
    assert_eq!(rows.len(), solvable_masked().len() * 2);
    for c in &rows {
        let m = Masked::by_id(&c.task_id);
        assert_eq!(m.valid, Some(true), "{} is not valid", c.task_id);
        assert_eq!(c.family, Family::Completion);
        assert_eq!(c.status, AnswerStatus::Ok);
        assert_eq!(c.answer.as_deref(), Some(m.reference));
        assert_eq!(c.prompt_hash.len(), 64);
        assert_eq!(c.input_hash.len(), 32);
    }
    // One prompt hash per task, whatever the sample.
    let hashes: std::collections::BTreeSet<&str> =
        rows.iter().map(|c| c.prompt_hash.as_str()).collect();
    assert_eq!(hashes.len(), solvable_masked().len());
    assert_spliced_compile(&rows);
}

#[test]
fn null_answers_the_neutral_fill() {
    let dir = completion_dataset(false);
    let out = solve(dir.path(), &["--run", "n", "--model", "null"]);
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "n");
    assert_eq!(ids(&rows), ["c01", "c02", "c03", "c04"]);
    for c in &rows {
        let want = if c.task_id == "c01" { "None" } else { "pass" };
        assert_eq!(c.answer.as_deref(), Some(want), "{}", c.task_id);
    }
    assert_spliced_compile(&rows);
}

#[test]
fn mutant_fills_are_one_edit_of_the_span_and_the_same_every_run() {
    let dir = completion_dataset(false);
    for run in ["m1", "m2"] {
        let out = solve(
            dir.path(),
            &["--run", run, "--model", "mutant", "--samples", "3"],
        );
        assert_code(&out, 0);
    }
    let (m1, m2) = (candidates(dir.path(), "m1"), candidates(dir.path(), "m2"));
    assert_eq!(m1.len(), solvable_masked().len() * 3);
    let answers = |rows: &[Candidate]| -> Vec<Option<String>> {
        rows.iter().map(|c| c.answer.clone()).collect()
    };
    assert_eq!(
        answers(&m1),
        answers(&m2),
        "the mutants differ between runs"
    );
    for c in &m1 {
        let m = Masked::by_id(&c.task_id);
        let a = c.answer.as_deref().unwrap();
        assert_ne!(a, m.reference, "{}: not mutated", c.task_id);
        // One edit within the reference: a common start and end leave a short change.
        let same_start = m
            .reference
            .bytes()
            .zip(a.bytes())
            .take_while(|(x, y)| x == y)
            .count();
        let same_end = m
            .reference
            .bytes()
            .rev()
            .zip(a.bytes().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let changed = m.reference.len().saturating_sub(same_start + same_end);
        assert!(changed <= 40, "{}: {a:?}", c.task_id);
    }
    assert_spliced_compile(&m1);
}

#[test]
fn families_are_read_together_or_apart() {
    let dir = completion_dataset(true);
    let out = solve(dir.path(), &["--run", "all", "--model", "oracle"]);
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "all");
    let functions = solvable().len();
    assert_eq!(rows.len(), functions + solvable_masked().len());
    // In task id order across the families.
    let keys = ids(&rows);
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    assert_eq!(
        rows.iter()
            .filter(|c| c.family == Family::Completion)
            .count(),
        solvable_masked().len()
    );
    let out = solve(
        dir.path(),
        &["--run", "f", "--model", "oracle", "--family", "function"],
    );
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "f");
    assert_eq!(rows.len(), functions);
    assert!(rows.iter().all(|c| c.family == Family::Function));
    let out = solve(
        dir.path(),
        &["--run", "c", "--model", "oracle", "--family", "completion"],
    );
    assert_code(&out, 0);
    assert_eq!(
        ids(&candidates(dir.path(), "c")),
        ["c01", "c02", "c03", "c04"]
    );
    // A task left out by --family, or not valid, is named.
    for (args, says) in [
        (vec!["--family", "function", "--task", "c01"], "--family"),
        (vec!["--task", "c05"], "not valid"),
        (vec!["--task", "c06"], "no row of family `completion`"),
    ] {
        let out = solve(
            dir.path(),
            &[&["--run", "x", "--model", "oracle"][..], &args].concat(),
        );
        assert_code(&out, 2);
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_missing_table_says_who_writes_it() {
    // Only function tasks: --family completion asks for mask's table.
    let dir = dataset(true);
    let out = solve(
        dir.path(),
        &["--run", "x", "--model", "oracle", "--family", "completion"],
    );
    assert_code(&out, 2);
    assert!(stderr(&out).contains("mask"), "{}", stderr(&out));
    // Only completion tasks: `all` solves them, --family function asks for synthesize-tests.
    let dir = completion_dataset(false);
    let out = solve(
        dir.path(),
        &["--run", "x", "--model", "oracle", "--family", "function"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("synthesize-tests"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn prompt_options_that_do_not_fit_are_refused() {
    let dir = completion_dataset(false);
    for (args, says) in [
        (
            vec![
                "--model",
                "openai:m@http://127.0.0.1:9/v1",
                "--fim-preset",
                "qwen",
            ],
            "--api completions",
        ),
        (
            vec!["--model", "openai-fim:m@http://127.0.0.1:9/v1"],
            "--fim-preset",
        ),
        (
            vec![
                "--model",
                "openai-fim:qwen@http://127.0.0.1:9/v1",
                "--api",
                "chat",
            ],
            "completions endpoint",
        ),
        (
            vec![
                "--model",
                "openai:m@http://127.0.0.1:9/v1",
                "--api",
                "completions",
            ],
            "--fim-preset",
        ),
        (
            vec![
                "--model",
                "openai-fim:m@http://127.0.0.1:9/v1",
                "--fim-prefix",
                "<P>",
            ],
            "--fim-suffix",
        ),
        (
            vec!["--model", "oracle", "--prompt-budget", "10"],
            "--prompt-budget",
        ),
    ] {
        let out = solve(dir.path(), &[&["--run", "x"][..], &args].concat());
        assert_code(&out, 2);
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}
