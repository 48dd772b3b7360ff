//! The evaluation on the fixture projects, as built binaries: tasks validated, the reference
//! solvers' answers executed and scored (oracle passes every valid task, null none, mutant
//! some), answers that try to cheat get no pass, and execution resumes and shards.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use freshbench_tests::{pipeline, run, run_ok};
use schemas::{Candidate, Execution, FunctionTask, Score, Validation};

fn d(dir: &Path) -> &str {
    dir.to_str().expect("utf-8 temp path")
}

/// The fixtures up to validated function tasks, once for all tests.
fn dataset() -> &'static Path {
    static DATA: OnceLock<tempfile::TempDir> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        pipeline(dir.path());
        let p = d(dir.path());
        run_ok(
            "synthesize-tests",
            &[
                "-q",
                "--data",
                p,
                "--no-envs",
                "--seconds",
                "600",
                "--jobs",
                "2",
            ],
        );
        run_ok(
            "execute",
            &["-q", "--data", p, "--validate", "--no-envs", "--jobs", "2"],
        );
        dir
    })
    .path()
}

/// `run` solved by the reference solver `model` and executed, in `dir`.
fn solve_and_execute(dir: &Path, run_name: &str, model: &str) {
    let p = d(dir);
    run_ok(
        "solve",
        &["-q", "--data", p, "--run", run_name, "--model", model],
    );
    run_ok(
        "execute",
        &[
            "-q",
            "--data",
            p,
            "--run",
            run_name,
            "--no-envs",
            "--jobs",
            "2",
        ],
    );
}

fn executions(dir: &Path, run_name: &str) -> Vec<Execution> {
    schemas::read_table_from(&dir.join("runs").join(run_name).join("executions.parquet")).unwrap()
}

fn valid_tasks(dir: &Path) -> Vec<String> {
    let v: Vec<Validation> = schemas::read_table(dir).unwrap();
    v.into_iter()
        .filter(|v| v.valid)
        .map(|v| v.task_id)
        .collect()
}

#[test]
fn validations_check_every_ok_task() {
    let dir = dataset();
    let tasks: Vec<FunctionTask> = schemas::read_table(dir).unwrap();
    let ok: Vec<&FunctionTask> = tasks.iter().filter(|t| t.status == "ok").collect();
    let v: Vec<Validation> = schemas::read_table(dir).unwrap();
    assert_eq!(v.len(), ok.len(), "one validation per ok task");
    for row in &v {
        assert!(row.original_passes, "{row:?}");
        assert!(row.stable, "{row:?}");
        assert_eq!(
            row.valid,
            row.original_passes && row.null_fails && row.stable
        );
        assert!(row.cases > 0);
        if !row.valid {
            assert!(row.reason.is_some(), "{row:?}");
        }
    }
    assert!(
        valid_tasks(dir).len() * 10 >= ok.len() * 9,
        "most tasks are valid"
    );
}

#[test]
fn reference_solvers_pass_all_none_and_some() {
    let src = dataset();
    let tmp = copy_of(src);
    let dir = tmp.path();
    let valid = valid_tasks(dir);
    for (name, model) in [("oracle", "oracle"), ("null", "null"), ("mutant", "mutant")] {
        solve_and_execute(dir, name, model);
        let cands: Vec<Candidate> =
            schemas::read_table_from(&dir.join("runs").join(name).join("candidates.parquet"))
                .unwrap();
        assert_eq!(
            cands.len(),
            valid.len(),
            "{name}: one answer per valid task"
        );
    }
    let pass_rate = |name: &str| {
        let e = executions(dir, name);
        assert_eq!(e.len(), valid.len(), "{name}: one execution per answer");
        e.iter().filter(|e| e.status == "pass").count() as f64 / e.len() as f64
    };
    assert!(
        (pass_rate("oracle") - 1.0).abs() < 1e-9,
        "oracle passes every valid task"
    );
    assert!(pass_rate("null").abs() < 1e-9, "null passes none");
    let m = pass_rate("mutant");
    assert!(m > 0.0 && m < 1.0, "mutant passes some, not all: {m}");
    // Failures carry a fingerprint; passes none.
    for e in executions(dir, "null")
        .iter()
        .chain(&executions(dir, "mutant"))
    {
        assert_eq!(e.fingerprint.is_none(), e.status == "pass", "{e:?}");
        assert!(e.cases_passed <= e.cases_total);
    }

    // score: pass@1 of each run, and a report with all three.
    let report = dir.join("report.html");
    run_ok(
        "score",
        &[
            "-q",
            "--data",
            d(dir),
            "--run",
            "oracle",
            "--run",
            "null",
            "--run",
            "mutant",
            "--report",
            report.to_str().unwrap(),
        ],
    );
    let overall = |name: &str| -> f64 {
        let s: Vec<Score> =
            schemas::read_table_from(&dir.join("runs").join(name).join("scores.parquet")).unwrap();
        s.iter()
            .find(|s| s.breakdown == "overall" && s.k == 1)
            .expect("an overall pass@1 row")
            .pass_at_k
    };
    assert!((overall("oracle") - 1.0).abs() < 1e-9);
    assert!(overall("null").abs() < 1e-9);
    assert!((overall("mutant") - m).abs() < 1e-9);
    let html = std::fs::read_to_string(&report).unwrap();
    for name in ["oracle", "null", "mutant", "<svg"] {
        assert!(html.contains(name), "report lacks {name}");
    }
}

/// A copy of the validated dataset, so tests that write runs do not meet.
fn copy_of(src: &Path) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
        }
    }
    tmp
}

fn task_named(dir: &Path, name: &str) -> FunctionTask {
    let tasks: Vec<FunctionTask> = schemas::read_table(dir).unwrap();
    tasks
        .into_iter()
        .find(|t| t.entry_point == name && t.status == "ok")
        .unwrap_or_else(|| panic!("no ok task {name}"))
}

fn candidate(run_name: &str, task: &FunctionTask, sample: i32, answer: &str) -> Candidate {
    Candidate {
        run: run_name.into(),
        task_id: task.task_id.clone(),
        family: "function".into(),
        sample,
        model: "command:hand-written".into(),
        prompt_hash: "0".repeat(64),
        answer: Some(answer.into()),
        raw: Some(answer.into()),
        status: "ok".into(),
        error: None,
        tokens_in: None,
        tokens_out: None,
        latency_ms: 0.0,
    }
}

#[test]
fn answers_that_cheat_or_break_get_what_they_deserve() {
    let tmp = copy_of(dataset());
    let dir = tmp.path();
    let t = task_named(dir, "is_prime");
    let canonical = t.canonical_solution.clone();
    let answers: Vec<(&str, String)> = vec![
        ("pass", canonical.clone()),
        ("syntax", "def is_prime(n):\n    return n >\n".into()),
        (
            "error",
            "def is_prime(n):\n    raise RuntimeError('no')\n".into(),
        ),
        ("fail", "def is_prime(n):\n    return n % 2 == 1\n".into()),
        (
            "timeout",
            "def is_prime(n):\n    while True:\n        pass\n".into(),
        ),
        // Exits the process before the harness can judge: no pass.
        (
            "error",
            "import os\ndef is_prime(n):\n    os._exit(0)\n".into(),
        ),
        // An object that says it equals anything is still an object.
        (
            "fail",
            "class Yes:\n    def __eq__(self, o):\n        return True\ndef is_prime(n):\n    return Yes()\n"
                .into(),
        ),
        // Printing a fake verdict changes nothing.
        (
            "fail",
            "def is_prime(n):\n    print('PASS', flush=True)\n    return None\n".into(),
        ),
    ];
    let rows: Vec<Candidate> = answers
        .iter()
        .enumerate()
        .map(|(i, (_, a))| candidate("hand", &t, i as i32, a))
        .collect();
    let rdir = dir.join("runs").join("hand");
    schemas::write_table_to(&rdir.join("candidates.parquet"), &rows).unwrap();
    let args = [
        "-q",
        "--data",
        d(dir),
        "--run",
        "hand",
        "--no-envs",
        "--case-timeout",
        "1",
    ];
    run_ok("execute", &args);
    let got: BTreeMap<i32, Execution> = executions(dir, "hand")
        .into_iter()
        .map(|e| (e.sample, e))
        .collect();
    for (i, (want, _)) in answers.iter().enumerate() {
        let e = &got[&(i as i32)];
        assert_eq!(&e.status, want, "sample {i}: {e:?}");
    }
    assert_eq!(got[&1].fingerprint.as_deref(), Some("syntax"));
    assert_eq!(got[&2].fingerprint.as_deref(), Some("runtime"));
    assert_eq!(got[&3].fingerprint.as_deref(), Some("logic"));
    assert!(got[&3].cases_passed > 0 && got[&3].cases_passed < got[&3].cases_total);
    assert!(got[&3].detail.as_deref().unwrap_or("").contains("expected"));

    // A rerun has nothing left to do and leaves the table as it was.
    let before = executions(dir, "hand");
    let out = run_ok("execute", &args[1..]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("(0 new"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let strip = |v: Vec<Execution>| -> Vec<Execution> {
        v.into_iter()
            .map(|mut e| {
                e.seconds = 0.0;
                e
            })
            .collect()
    };
    assert_eq!(strip(before.clone()), strip(executions(dir, "hand")));

    // Shards make the same rows as one run.
    std::fs::remove_file(rdir.join("executions.parquet")).unwrap();
    for s in ["1/3", "2/3", "3/3"] {
        let mut a = args.to_vec();
        a.extend(["--shard", s]);
        run_ok("execute", &a);
    }
    run_ok(
        "execute",
        &["-q", "--data", d(dir), "--run", "hand", "--merge"],
    );
    assert_eq!(strip(before), strip(executions(dir, "hand")));
    assert!(!rdir.join("executions-1-of-3.parquet").exists());
}

#[test]
fn bad_input_says_what_to_do() {
    let tmp = copy_of(dataset());
    let dir = tmp.path();
    let out = run("execute", &["--data", d(dir), "--run", "nosuch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("solve"));
    let out = run("execute", &["--data", d(dir), "--run", "../x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        "execute",
        &["--data", d(dir), "--validate", "--shard", "1/2"],
    );
    assert_eq!(out.status.code(), Some(2));
    let empty = tempfile::tempdir().unwrap();
    let out = run("execute", &["--data", d(empty.path()), "--validate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("synthesize-tests"));
}
