//! A small dataset built by hand, whose views' results are worked out in the .slt files:
//!
//! - repos `alpha` (r1) and `beta` (r2);
//! - function tasks t1 (alpha, valid), t2 (alpha, valid), t3 (beta, found invalid), t4
//!   (beta, rejected, never validated); a completion task c1 (beta, valid) and the three
//!   assertion tasks of assertion `a1` (alpha, value form, not validated): `a1` on the
//!   original program and `a1-m0`, `a1-m1` on two mutated variants; t1..t4 are functions
//!   f1..f4 (file `m.py`), c1 masks a statement of `pkg/mod.py`, its code dated 2026-09-10;
//! - slices of t1 and t2 (status `ok`) with ESV 10 and 40 and equal MCL and DFI: difficulty
//!   `low` and `medium` (tertiles of the mean normalized rank, as score buckets them); c1's
//!   slice timed out (status `timeout`, no figures): `unknown`;
//! - run `oracle` (model `oracle`): 2 samples of t1, t2, t3, all passing but t3's second;
//!   scored: overall pass@1 1.0 [0.75, 1.0], difficulty low and medium 1.0;
//! - run `mutant` (model `mutant`): 2 samples of t1 (one passes), t2 (none), c1 (both);
//!   not scored, so its difficulty comes from executions and slices.

#![allow(dead_code)] // each test binary uses part of it

use std::path::Path;

use schemas::{
    examples, AssertionForm, AssertionKind, AssertionTask, Candidate, CompletionTask,
    ContextSnippet, Execution, FunctionTask, Repo, Score, Slice, SliceStatus, TestCase, Validation,
};

pub fn repo(id: &str, name: &str) -> Repo {
    Repo {
        version: Some("1.0".into()),
        files_total: 3,
        ..examples::repo(id, name)
    }
}

pub fn function_task(id: &str, repo: &str, class: &str, status: &str, cases: i32) -> FunctionTask {
    FunctionTask {
        class: class.parse().unwrap(),
        entry_point: format!("fn_{id}"),
        status: status.parse().unwrap(),
        reason: (status != "ok").then(|| "coverage: 1/2 arcs".to_string()),
        cases,
        // t1's code is newer than the cutoff, the others' is not.
        after_cutoff: Some(id == "t1"),
        // t1 is function f1 (of `m.py`), t2 f2...
        function_id: format!("f{}", &id[1..]),
        ..examples::function_task(id, repo)
    }
}

fn completion_task(id: &str, repo: &str, tests: usize) -> CompletionTask {
    CompletionTask {
        span_kind: schemas::SpanKind::Statement,
        start_byte: 10,
        end_byte: 20,
        prefix: "def g():\n".into(),
        reference: "    return 1".into(),
        tests: (0..tests)
            .map(|i| format!("tests/test_mod.py::test_{i}"))
            .collect(),
        function_id: None,
        after_cutoff: Some(true),
        code_date: schemas::Timestamp::parse("2026-09-10"),
        code_date_source: Some(schemas::CodeDateSource::GitHistory),
        ..examples::completion_task(id, repo)
    }
}

/// The tasks of one assertion `id` of `repo` with `variants` mutated variants, in the value
/// form: the original (task `id`) and one task per variant (`id-m0`, `id-m1`, ...), all of
/// group `id`.
fn assertion_tasks(id: &str, repo: &str, variants: usize) -> Vec<AssertionTask> {
    let original = AssertionTask {
        task_id: id.into(),
        group_id: id.into(),
        repo_id: repo.into(),
        test_node_id: "tests/test_mod.py::test_g".into(),
        path: "tests/test_mod.py".into(),
        line: 3,
        start_byte: 30,
        end_byte: 46,
        kind: AssertionKind::Equal,
        form: AssertionForm::Value,
        subject: "g()".into(),
        test_source: "def test_g():\n    assert g() == ??\n".into(),
        masked_assertion: "assert g() == ??".into(),
        code_context: vec![ContextSnippet {
            path: "pkg/mod.py".into(),
            text: "def g():\n    return 1\n".into(),
            score: 1.0,
        }],
        context_tokens: 6,
        context_budget: 2000,
        mutated: false,
        mutant_id: None,
        mutated_path: None,
        mutated_text: None,
        mutation: None,
        value_json: r#"{"t": "int", "v": "1"}"#.into(),
        value_python: "1".into(),
        original_json: r#"{"t": "int", "v": "1"}"#.into(),
        claim: None,
        answer: "1".into(),
        tests_seconds: 0.1,
        record_seconds: 0.0,
        code_date: None,
        code_date_source: None,
        after_cutoff: None,
    };
    let mutated = (0..variants).map(|i| AssertionTask {
        task_id: format!("{id}-m{i}"),
        code_context: vec![ContextSnippet {
            path: "pkg/mod.py".into(),
            text: "def g():\n    return 2\n".into(),
            score: 1.0,
        }],
        mutated: true,
        mutant_id: Some(format!("m{i}")),
        mutated_path: Some("pkg/mod.py".into()),
        mutated_text: Some("def g():\n    return 2\n".into()),
        mutation: Some("pkg/mod.py:2: 1 -> 2".into()),
        value_json: r#"{"t": "int", "v": "2"}"#.into(),
        value_python: "2".into(),
        answer: "2".into(),
        ..original.clone()
    });
    std::iter::once(original.clone()).chain(mutated).collect()
}

fn validation(task: &str, family: &str, valid: bool) -> Validation {
    Validation {
        family: family.parse().unwrap(),
        reason: (!valid).then(|| "original fails".to_string()),
        ..examples::validation(task, valid)
    }
}

fn test_case(task: &str, ordinal: i32) -> TestCase {
    TestCase {
        case_id: format!("{task}-c{ordinal}"),
        task_id: task.into(),
        ordinal,
        args: format!("[{ordinal}]"),
        kwargs: "{}".into(),
        expected_repr: Some(format!("{}", 2 * ordinal)),
        expected_json: None,
        expected_exception: None,
        is_edge: ordinal == 0,
        from_observed: false,
        arcs: 2,
    }
}

/// A slice of status `ok` with this ESV, MCL 5 and DFI 1.
fn slice(task: &str, family: &str, esv: i32) -> Slice {
    Slice {
        esv: Some(esv),
        mcl: Some(5),
        dfi: Some(1),
        ..examples::slice(task, family.parse().unwrap())
    }
}

/// A slice whose run timed out: no figures.
fn timed_out(task: &str, family: &str) -> Slice {
    examples::unmeasured_slice(task, family.parse().unwrap(), SliceStatus::Timeout)
}

fn candidate(run: &str, task: &str, family: &str, sample: i32) -> Candidate {
    Candidate {
        run: run.into(),
        task_id: task.into(),
        family: family.parse().unwrap(),
        sample,
        model: run.into(),
        prompt_hash: "h".into(),
        answer: Some("def f(x):\n    return 2 * x\n".into()),
        raw: None,
        status: "ok".parse().unwrap(),
        error: None,
        tokens_in: None,
        tokens_out: None,
        latency_ms: 1.0,
        cost: None,
        input_hash: "h".into(),
    }
}

fn execution(run: &str, task: &str, sample: i32, pass: bool) -> Execution {
    Execution {
        run: run.into(),
        task_id: task.into(),
        sample,
        status: (if pass { "pass" } else { "fail" }).parse().unwrap(),
        cases_passed: if pass { 3 } else { 1 },
        cases_total: 3,
        seconds: 0.01,
        fingerprint: (!pass).then_some(schemas::Fingerprint::Logic),
        detail: None,
        isolation: "namespaces".parse().unwrap(),
        reference_seconds: None,
        time_limit_seconds: None,
        time_factor: None,
        time_floor_seconds: None,
        input_hash: "h".into(),
    }
}

fn score(run: &str, breakdown: &str, group: &str, pass: f64, ci: (f64, f64), tasks: i64) -> Score {
    Score {
        run: run.into(),
        breakdown: breakdown.parse().unwrap(),
        group_key: group.into(),
        k: 1,
        pass_at_k: pass,
        ci_low: ci.0,
        ci_high: ci.1,
        tasks,
    }
}

/// Writes the tables of `DIR` (no runs).
pub fn write_tables(dir: &Path) {
    schemas::write_table(dir, &[repo("r1", "alpha"), repo("r2", "beta")]).unwrap();
    schemas::write_table(
        dir,
        &[
            function_task("t1", "r1", "self_contained", "ok", 3),
            function_task("t2", "r1", "weakly_self_contained", "ok", 5),
            function_task("t3", "r2", "self_contained", "ok", 2),
            function_task("t4", "r2", "self_contained", "rejected", 0),
        ],
    )
    .unwrap();
    // r1: three functions, two of fresh code (one dated from its history); r2: one, old.
    let dated = |id: &str, repo: &str, after: bool, source: Option<schemas::CodeDateSource>| {
        schemas::Function {
            after_cutoff: Some(after),
            code_date_source: source,
            ..examples::function(id, repo)
        }
    };
    schemas::write_table(
        dir,
        &[
            dated(
                "f1",
                "r1",
                true,
                Some(schemas::CodeDateSource::ReleaseHistory),
            ),
            dated("f2", "r1", true, Some(schemas::CodeDateSource::ReleaseDate)),
            dated(
                "f3",
                "r1",
                false,
                Some(schemas::CodeDateSource::ReleaseHistory),
            ),
            dated("f4", "r2", false, None),
        ],
    )
    .unwrap();
    schemas::write_table(dir, &[completion_task("c1", "r2", 2)]).unwrap();
    schemas::write_table(dir, &assertion_tasks("a1", "r1", 2)).unwrap();
    schemas::write_table(
        dir,
        &[
            validation("t1", "function", true),
            validation("t2", "function", true),
            validation("t3", "function", false),
            validation("c1", "completion", true),
        ],
    )
    .unwrap();
    let cases: Vec<TestCase> = (0..3)
        .map(|i| test_case("t1", i))
        .chain((0..5).map(|i| test_case("t2", i)))
        .collect();
    schemas::write_table(dir, &cases).unwrap();
    schemas::write_table(
        dir,
        &[
            slice("t1", "function", 10),
            slice("t2", "function", 40),
            timed_out("c1", "completion"),
        ],
    )
    .unwrap();
}

/// Writes the two runs under `DIR/runs`.
pub fn write_runs(dir: &Path) {
    let run_table =
        |run: &str, table: &str| dir.join("runs").join(run).join(format!("{table}.parquet"));

    let oracle = "oracle";
    let mut candidates = Vec::new();
    let mut executions = Vec::new();
    for task in ["t1", "t2", "t3"] {
        for sample in 0..2 {
            candidates.push(candidate(oracle, task, "function", sample));
            executions.push(execution(
                oracle,
                task,
                sample,
                !(task == "t3" && sample == 1),
            ));
        }
    }
    schemas::write_table_to(&run_table(oracle, "candidates"), &candidates).unwrap();
    schemas::write_table_to(&run_table(oracle, "executions"), &executions).unwrap();
    schemas::write_table_to(
        &run_table(oracle, "scores"),
        &[
            score(oracle, "overall", "all", 1.0, (0.75, 1.0), 2),
            score(oracle, "difficulty", "low", 1.0, (1.0, 1.0), 1),
            score(oracle, "difficulty", "medium", 1.0, (1.0, 1.0), 1),
            score(oracle, "family", "function", 1.0, (0.75, 1.0), 2),
        ],
    )
    .unwrap();

    let mutant = "mutant";
    let mut candidates = Vec::new();
    let mut executions = Vec::new();
    for (task, family, passes) in [
        ("t1", "function", 1),
        ("t2", "function", 0),
        ("c1", "completion", 2),
    ] {
        for sample in 0..2 {
            candidates.push(candidate(mutant, task, family, sample));
            executions.push(execution(mutant, task, sample, sample < passes));
        }
    }
    // A sample the harness could not judge: counted by no view's pass@1.
    candidates.push(candidate(mutant, "t1", "function", 2));
    executions.push(Execution {
        status: schemas::ExecStatus::Infra,
        fingerprint: None,
        cases_passed: 0,
        ..execution(mutant, "t1", 2, false)
    });
    schemas::write_table_to(&run_table(mutant, "candidates"), &candidates).unwrap();
    schemas::write_table_to(&run_table(mutant, "executions"), &executions).unwrap();
}

/// The whole dataset: tables and runs.
pub fn write_dataset(dir: &Path) {
    write_tables(dir);
    write_runs(dir);
}
