//! The built `solve` binary on assertion tasks (a small `assertion_tasks` table with its
//! validations, written in a temporary folder): the reference solvers' answers — `memorized`
//! right on every task of the original program and wrong on every mutated one — the family
//! filter and validation.

mod common;

use common::*;
use schemas::{AnswerStatus, Candidate, Family};

fn ids(rows: &[Candidate]) -> Vec<&str> {
    rows.iter().map(|c| c.task_id.as_str()).collect()
}

fn solvable_ids() -> Vec<String> {
    solvable_asserted().into_iter().map(|r| r.task_id).collect()
}

/// Runs `solve` with `model` on the assertion tasks alone; its answers.
fn run(dir: &std::path::Path, run: &str, model: &str, code: i32) -> Vec<Candidate> {
    let out = solve(
        dir,
        &["--run", run, "--model", model, "--family", "assertion"],
    );
    assert_code(&out, code);
    candidates(dir, run)
}

#[test]
fn memorized_is_right_on_the_original_program_and_wrong_under_the_mutant() {
    let dir = assertion_dataset(false);
    let rows = run(dir.path(), "r", "memorized", 0);
    assert_eq!(ids(&rows), solvable_ids());
    let (mut original_right, mut mutated_right) = (0, 0);
    for c in &rows {
        let t = asserted_by_id(&c.task_id);
        assert_eq!(c.family, Family::Assertion);
        assert_eq!(c.status, AnswerStatus::Ok, "{c:?}");
        assert_eq!(c.model, "memorized");
        assert_eq!(c.prompt_hash.len(), 64);
        let right = c.answer.as_deref() == Some(t.answer.as_str());
        assert_eq!(
            right, !t.mutated,
            "{}: {:?} for {}",
            c.task_id, c.answer, t.answer
        );
        if t.mutated {
            mutated_right += usize::from(right);
        } else {
            original_right += usize::from(right);
        }
    }
    let originals = rows
        .iter()
        .filter(|c| !asserted_by_id(&c.task_id).mutated)
        .count();
    assert_eq!((original_right, mutated_right), (originals, 0));
    // The answers themselves: the original values, and verdicts on the original claims.
    let answer = |id: &str| {
        rows.iter()
            .find(|c| c.task_id == id)
            .and_then(|c| c.answer.clone())
            .unwrap()
    };
    assert_eq!(answer("a01"), "5");
    assert_eq!(answer("a02"), "5");
    assert_eq!(answer("a04"), "True");
    assert_eq!(answer("a05"), "False");
    assert_eq!(answer("a07"), "TypeError");
}

#[test]
fn oracle_is_right_and_null_wrong_everywhere() {
    let dir = assertion_dataset(false);
    let oracle = run(dir.path(), "o", "oracle", 0);
    let null = run(dir.path(), "n", "null", 0);
    assert_eq!(ids(&oracle), solvable_ids());
    assert_eq!(ids(&null), solvable_ids());
    for (o, n) in oracle.iter().zip(&null) {
        let t = asserted_by_id(&o.task_id);
        assert_eq!(o.answer.as_deref(), Some(t.answer.as_str()));
        assert_eq!(n.answer.as_deref(), Some("None"));
        assert_ne!(t.answer, "None");
        // The same prompt for every reference solver.
        assert_eq!(o.prompt_hash, n.prompt_hash);
    }
}

#[test]
fn mutant_leaves_assertion_tasks_out() {
    // Its mutants are the mutated tasks mask made: a run of it has no assertion answer,
    // neither right nor in error.
    let dir = assertion_dataset(true);
    let out = solve(dir.path(), &["--run", "m", "--model", "mutant"]);
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "m");
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|c| c.family != Family::Assertion),
        "{rows:?}"
    );
}

#[test]
fn families_are_read_together_or_apart() {
    let dir = assertion_dataset(true);
    let out = solve(dir.path(), &["--run", "all", "--model", "memorized"]);
    assert_code(&out, 0);
    let rows = candidates(dir.path(), "all");
    assert_eq!(rows.len(), solvable().len() + solvable_asserted().len());
    // On function tasks memorized answers the reference.
    for c in rows.iter().filter(|c| c.family == Family::Function) {
        assert_eq!(
            c.answer.as_deref(),
            Some(Fixture::by_id(&c.task_id).canonical().as_str())
        );
    }
    let out = solve(
        dir.path(),
        &["--run", "f", "--model", "oracle", "--family", "function"],
    );
    assert_code(&out, 0);
    assert!(candidates(dir.path(), "f")
        .iter()
        .all(|c| c.family == Family::Function));
    let only = run(dir.path(), "a", "oracle", 0);
    assert_eq!(ids(&only), solvable_ids());
    for (args, says) in [
        (vec!["--family", "function", "--task", "a01"], "--family"),
        (vec!["--task", "a09"], "not valid (unstable)"),
        (vec!["--task", "a10"], "no row of family `assertion`"),
    ] {
        let out = solve(
            dir.path(),
            &[&["--run", "x", "--model", "oracle"][..], &args].concat(),
        );
        assert_code(&out, 2);
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    // --family assertion without the table asks for mask's.
    let functions = dataset(true);
    let out = solve(
        functions.path(),
        &["--run", "x", "--model", "oracle", "--family", "assertion"],
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("assertion tasks of mask"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn command_programs_get_the_test_and_their_answers_are_cleaned() {
    let dir = assertion_dataset(false);
    let script = dir.path().join("solver.sh");
    // Repeats the assertion for value tasks, says "Yes, it passes." for verify tasks.
    std::fs::write(
        &script,
        r#"#!/bin/sh
input=$(cat)
case "$input" in
  *'"form":"verify"'*) echo "Yes, it passes." ;;
  *'"kind":"raises"'*) printf '```python\nwith pytest.raises(TypeError):\n```\n' ;;
  *) printf '```python\nassert total(prices, discount=1) == 5\n```\n' ;;
esac
"#,
    )
    .unwrap();
    let model = format!("command:sh {}", script.display());
    let rows = run(dir.path(), "c", &model, 0);
    for c in &rows {
        let t = asserted_by_id(&c.task_id);
        let want = match (t.form, t.kind) {
            (schemas::AssertionForm::Verify, _) => "True",
            (_, schemas::AssertionKind::Raises) => "TypeError",
            _ => "5",
        };
        assert_eq!(c.answer.as_deref(), Some(want), "{c:?}");
    }
}
