//! The evaluation on the fixture projects, as built binaries: tasks validated, the reference
//! solvers' answers executed and scored (oracle passes every valid task, null none, mutant
//! some), answers that try to cheat get no pass, and execution resumes and shards.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use freshbench_tests::{run, run_ok, validated_pipeline};
use schemas::{Candidate, Execution, Fingerprint, FunctionTask, Score, Validation};

fn d(dir: &Path) -> &str {
    dir.to_str().expect("utf-8 temp path")
}

/// The fixtures up to validated function tasks, once for all tests.
fn dataset() -> &'static Path {
    static DATA: OnceLock<tempfile::TempDir> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        validated_pipeline(dir.path());
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
    let ok: Vec<&FunctionTask> = tasks
        .iter()
        .filter(|t| t.status == "ok".parse().unwrap())
        .collect();
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
        e.iter()
            .filter(|e| e.status == "pass".parse().unwrap())
            .count() as f64
            / e.len() as f64
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
        assert_eq!(
            e.fingerprint.is_none(),
            e.status == "pass".parse().unwrap(),
            "{e:?}"
        );
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
            .find(|s| s.breakdown == "overall".parse().unwrap() && s.k == 1)
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
        .find(|t| t.entry_point == name && t.status == "ok".parse().unwrap())
        .unwrap_or_else(|| panic!("no ok task {name}"))
}

fn candidate(run_name: &str, task: &FunctionTask, sample: i32, answer: &str) -> Candidate {
    Candidate {
        run: run_name.into(),
        task_id: task.task_id.clone(),
        family: "function".parse().unwrap(),
        sample,
        model: "command:hand-written".into(),
        prompt_hash: "0".repeat(64),
        answer: Some(answer.into()),
        raw: Some(answer.into()),
        status: "ok".parse().unwrap(),
        error: None,
        tokens_in: None,
        tokens_out: None,
        latency_ms: 0.0,
        cost: None,
        input_hash: String::new(),
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
        assert_eq!(e.status.as_str(), *want, "sample {i}: {e:?}");
    }
    assert_eq!(got[&1].fingerprint, Some(Fingerprint::Syntax));
    assert_eq!(got[&2].fingerprint, Some(Fingerprint::Runtime));
    assert_eq!(got[&3].fingerprint, Some(Fingerprint::Logic));
    assert!(got[&3].cases_passed > 0 && got[&3].cases_passed < got[&3].cases_total);
    assert!(got[&3].detail.as_deref().unwrap_or("").contains("expected"));
    // Each row records the time rule: the reference timed here, the factor and floor, and
    // the limit of its slowest case.
    for e in got.values() {
        let (Some(reference), Some(limit)) = (e.reference_seconds, e.time_limit_seconds) else {
            panic!("sample {}: no reference time or limit: {e:?}", e.sample);
        };
        assert_eq!(
            (e.time_factor, e.time_floor_seconds),
            (Some(4.0), Some(1.0))
        );
        assert!((limit - (4.0 * reference).max(1.0)).abs() < 1e-9, "{e:?}");
    }

    // A rerun has nothing left to do and leaves the table as it was.
    let before = executions(dir, "hand");
    let out = run_ok("execute", &args[1..]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("(0 new"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let strip = |v: Vec<Execution>| -> Vec<Execution> { timeless(v) };
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
        &["-q", "--data", d(dir), "--run", "hand", "--merge-shards"],
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
    // Where code runs: a bad engine address, a bad limit, an engine that does not answer.
    for (args, says) in [
        (&["--docker-host", "ftp://x"][..], "tcp://"),
        (&["--cpus", "0"][..], "--cpus"),
        (
            &["--docker-host", "unix:///nonexistent/docker.sock"][..],
            "docker engine",
        ),
    ] {
        let mut all = vec![
            "--data",
            d(dir),
            "--validate",
            "--no-envs",
            "--backend",
            "docker",
        ];
        all.extend_from_slice(args);
        let out = run("execute", &all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A `command:` model for the rerun tests: it answers from a table of answers written by
/// the test, and with `flaky` it fails (exit 1, as an endpoint outage would) the first time
/// it is asked for about half of the tasks, and answers after.
const MODEL: &str = r#"
import json, os, sys
state, answers, mode = sys.argv[1], sys.argv[2], sys.argv[3]
task = json.load(sys.stdin)
tid = task["task_id"]
if mode == "flaky" and int(tid[:8], 16) % 2 == 0:
    marker = os.path.join(state, "%s-%d" % (tid, task["sample"]))
    if not os.path.exists(marker):
        open(marker, "w").close()
        sys.stderr.write("503 Service Unavailable\n")
        sys.exit(1)
sys.stdout.write(json.load(open(answers))[tid])
"#;

/// The spec of [`MODEL`] in `dir` (answers: the reference for two tasks in three, an empty
/// body for the rest, so that pass@1 is neither 0 nor 1).
fn flaky_model(dir: &Path, mode: &str) -> String {
    let tasks: Vec<FunctionTask> = schemas::read_table(dir).unwrap();
    let answers: BTreeMap<String, String> = tasks
        .iter()
        .map(|t| {
            let wrong = u64::from_str_radix(&t.task_id[8..16], 16).unwrap() % 3 == 0;
            let a = if wrong {
                format!("def {}(*args, **kwargs):\n    return None\n", t.entry_point)
            } else {
                t.canonical_solution.clone()
            };
            (t.task_id.clone(), a)
        })
        .collect();
    let model = dir.join("model.py");
    let table = dir.join("answers.json");
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(&model, MODEL).unwrap();
    std::fs::write(&table, serde_json::to_string(&answers).unwrap()).unwrap();
    format!(
        "command:python3 {} {} {} {mode}",
        model.display(),
        state.display(),
        table.display()
    )
}

fn pass_at_1(dir: &Path, run_name: &str) -> f64 {
    run_ok("score", &["-q", "--data", d(dir), "--run", run_name]);
    let s: Vec<Score> =
        schemas::read_table_from(&dir.join("runs").join(run_name).join("scores.parquet")).unwrap();
    s.iter()
        .find(|s| s.breakdown == schemas::Breakdown::Overall && s.k == 1)
        .expect("an overall pass@1 row")
        .pass_at_k
}

/// The executions without what records when they ran, sorted.
fn timeless(mut rows: Vec<Execution>) -> Vec<Execution> {
    for e in &mut rows {
        e.seconds = 0.0;
        // The reference's time here, and the limit that follows from it.
        e.reference_seconds = e.reference_seconds.map(|_| 0.0);
        e.time_limit_seconds = e.time_limit_seconds.map(|_| 0.0);
    }
    rows.sort_by(|a, b| (&a.task_id, a.sample).cmp(&(&b.task_id, b.sample)));
    rows
}

/// Regression: `execute --run` kept an execution whenever (task, sample) matched, so the
/// answers that `solve` recovered after an endpoint outage kept their old failed executions.
/// An outage, then solve and execute again, scores exactly like a clean run.
#[test]
fn an_endpoint_outage_and_a_rerun_score_like_a_clean_run() {
    let clean = copy_of(dataset());
    let spec = flaky_model(clean.path(), "clean");
    let p = d(clean.path());
    run_ok(
        "solve",
        &["-q", "--data", p, "--run", "m", "--model", &spec],
    );
    run_ok("execute", &["-q", "--data", p, "--run", "m", "--no-envs"]);
    let clean_pass = pass_at_1(clean.path(), "m");
    assert!(clean_pass > 0.2 && clean_pass < 0.9, "{clean_pass}");

    let flaky = copy_of(dataset());
    let spec = flaky_model(flaky.path(), "flaky");
    let p = d(flaky.path());
    let first = run(
        "solve",
        &["-q", "--data", p, "--run", "m", "--model", &spec],
    );
    assert_eq!(first.status.code(), Some(1), "answers in error: lacking");
    let cands: Vec<Candidate> =
        schemas::read_table_from(&flaky.path().join("runs/m/candidates.parquet")).unwrap();
    let errors = cands
        .iter()
        .filter(|c| c.status == schemas::AnswerStatus::Error)
        .count();
    assert!(
        errors * 4 > cands.len() && errors * 4 < cands.len() * 3,
        "about half fail: {errors} of {}",
        cands.len()
    );
    run_ok("execute", &["-q", "--data", p, "--run", "m", "--no-envs"]);
    assert!(pass_at_1(flaky.path(), "m") < clean_pass);
    run_ok(
        "solve",
        &["-q", "--data", p, "--run", "m", "--model", &spec],
    );
    run_ok("execute", &["-q", "--data", p, "--run", "m", "--no-envs"]);
    assert!(
        (pass_at_1(flaky.path(), "m") - clean_pass).abs() < 1e-12,
        "the rerun scores like the clean run"
    );
    assert_eq!(
        timeless(executions(flaky.path(), "m")),
        timeless(executions(clean.path(), "m"))
    );
}

/// Regression: `--validate` kept a validation whenever the task's number of cases matched,
/// so a task whose cases were made anew kept the verdict on its old cases.
#[test]
fn changed_cases_are_validated_again() {
    let tmp = copy_of(dataset());
    let dir = tmp.path();
    let t = task_named(dir, "is_prime");
    let valid = |dir: &Path| -> Validation {
        let v: Vec<Validation> = schemas::read_table(dir).unwrap();
        v.into_iter().find(|v| v.task_id == t.task_id).unwrap()
    };
    assert!(valid(dir).valid);
    // The same number of cases, one of them changed: 7 is prime, 8 is not.
    let mut cases: Vec<schemas::TestCase> = schemas::read_table(dir).unwrap();
    let case = cases
        .iter_mut()
        .find(|c| c.task_id == t.task_id && c.expected_repr.as_deref() == Some("True"))
        .expect("a case where is_prime returns True");
    case.args = "[8]".into();
    schemas::write_table(dir, &cases).unwrap();
    run_ok(
        "execute",
        &[
            "-q",
            "--data",
            d(dir),
            "--validate",
            "--no-envs",
            "--jobs",
            "2",
        ],
    );
    let v = valid(dir);
    assert!(!v.valid, "{v:?}");
    assert!(
        v.reason
            .as_deref()
            .unwrap_or("")
            .starts_with("original_fails"),
        "{v:?}"
    );
    // The same table as a validation from scratch of the changed dataset.
    let strip = |mut rows: Vec<Validation>| {
        for v in &mut rows {
            v.original_seconds = 0.0;
        }
        rows
    };
    let rerun: Vec<Validation> = schemas::read_table(dir).unwrap();
    std::fs::remove_file(dir.join("validations.parquet")).unwrap();
    run_ok(
        "execute",
        &[
            "-q",
            "--data",
            d(dir),
            "--validate",
            "--no-envs",
            "--jobs",
            "2",
        ],
    );
    let scratch: Vec<Validation> = schemas::read_table(dir).unwrap();
    assert_eq!(strip(rerun), strip(scratch));
}

/// Regression: `execute --merge` merged whatever shard files it found and deleted them.
#[test]
fn a_merge_of_an_incomplete_shard_set_is_refused_and_keeps_the_files() {
    let tmp = copy_of(dataset());
    let dir = tmp.path();
    let p = d(dir);
    run_ok(
        "solve",
        &["-q", "--data", p, "--run", "o", "--model", "oracle"],
    );
    for s in ["1/3", "3/3"] {
        run_ok(
            "execute",
            &["-q", "--data", p, "--run", "o", "--no-envs", "--shard", s],
        );
    }
    let rdir = dir.join("runs").join("o");
    let out = run(
        "execute",
        &["-q", "--data", p, "--run", "o", "--merge-shards"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2/3") && stderr.contains("missing"),
        "{stderr}"
    );
    assert!(rdir.join("executions-1-of-3.parquet").is_file());
    assert!(rdir.join("executions-3-of-3.parquet").is_file());
    assert!(!rdir.join("executions.parquet").exists());
    // A shard of another count beside them is refused too.
    run_ok(
        "execute",
        &[
            "-q",
            "--data",
            p,
            "--run",
            "o",
            "--no-envs",
            "--shard",
            "1/2",
        ],
    );
    let out = run(
        "execute",
        &["-q", "--data", p, "--run", "o", "--merge-shards"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("several shard counts"));
    std::fs::remove_file(rdir.join("executions-1-of-2.parquet")).unwrap();
    // Complete: merged, and the shard files go.
    run_ok(
        "execute",
        &[
            "-q",
            "--data",
            p,
            "--run",
            "o",
            "--no-envs",
            "--shard",
            "2/3",
        ],
    );
    run_ok(
        "execute",
        &["-q", "--data", p, "--run", "o", "--merge-shards"],
    );
    assert_eq!(executions(dir, "o").len(), valid_tasks(dir).len());
    assert!(!rdir.join("executions-2-of-3.parquet").exists());
}

/// A copy of the dataset's tables and runs without the tables named (as if their stage
/// never ran).
fn copy_without(src: &Path, drop: &[&str]) -> tempfile::TempDir {
    let tmp = copy_of(src);
    copy_runs(src, tmp.path());
    for name in drop {
        let _ = std::fs::remove_file(tmp.path().join(format!("{name}.parquet")));
    }
    tmp
}

/// A run of `stage args` killed with SIGKILL after `delay`, then run again to the end.
fn kill_and_resume(stage: &str, args: &[&str], delay: std::time::Duration) -> bool {
    let mut child = std::process::Command::new(freshbench_tests::bin(stage))
        .args(args)
        .current_dir(freshbench_tests::root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let killed = child.try_wait().unwrap().is_none();
    if killed {
        child.kill().unwrap();
    }
    child.wait().unwrap();
    let out = run(stage, args);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{stage} {args:?} after a kill: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    killed
}

/// The text of a table with the columns that record when something ran blanked.
fn timeless_text<T: schemas::Table>(path: &Path, blank: &[&str]) -> String {
    let rows: Vec<T> = schemas::read_table_from(path).unwrap();
    let mut lines: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap();
            for k in blank {
                v[*k] = serde_json::Value::Null;
            }
            v.to_string()
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// kill -9 at a random moment of each long stage, then a rerun: the tables equal those of
/// an uninterrupted run (times aside). 5 kills per stage, 20 in all; every second one with
/// a checkpoint after every row, so that kills land between and during writes.
#[test]
fn a_stage_killed_at_any_moment_resumes_to_the_same_tables() {
    use std::time::{Duration, Instant};
    struct Stage<'a> {
        name: &'a str,
        /// Tables removed from the copy before the stage runs (its own output).
        drop: &'a [&'a str],
        args: Vec<String>,
        /// The tables it writes as text, times aside.
        check: &'a dyn Fn(&Path) -> Vec<String>,
    }
    let src = dataset();
    // A fixed seed: the same moments on every run of the test.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut fraction = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let synth_check = |dir: &Path| {
        vec![
            timeless_text::<FunctionTask>(
                &dir.join("function_tasks.parquet"),
                &["seconds", "search_seconds"],
            ),
            timeless_text::<schemas::TestCase>(&dir.join("test_cases.parquet"), &[]),
        ]
    };
    let validate_check = |dir: &Path| {
        vec![timeless_text::<Validation>(
            &dir.join("validations.parquet"),
            &["original_seconds"],
        )]
    };
    let solve_check = |dir: &Path| {
        vec![timeless_text::<Candidate>(
            &dir.join("runs/k/candidates.parquet"),
            &["latency_ms"],
        )]
    };
    let run_check = |dir: &Path| {
        vec![timeless_text::<Execution>(
            &dir.join("runs/k/executions.parquet"),
            &["seconds", "reference_seconds", "time_limit_seconds"],
        )]
    };
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
    let stages = [
        Stage {
            name: "synthesize-tests",
            drop: &["function_tasks", "test_cases", "validations"],
            args: s(&["--no-envs", "--seconds", "600", "--jobs", "2", "-q"]),
            check: &synth_check,
        },
        Stage {
            name: "execute",
            drop: &["validations"],
            args: s(&["--validate", "--no-envs", "--jobs", "2", "-q"]),
            check: &validate_check,
        },
        Stage {
            name: "solve",
            drop: &[],
            args: s(&["--run", "k", "--model", "mutant", "--samples", "12", "-q"]),
            check: &solve_check,
        },
        Stage {
            name: "execute",
            drop: &[],
            args: s(&[
                "--run",
                "k",
                "--no-envs",
                "--jobs",
                "2",
                "--case-timeout",
                "0.5",
                "-q",
            ]),
            check: &run_check,
        },
    ];
    let mut kills = 0;
    let mut reference_dir = copy_of(src);
    for stage in &stages {
        // The uninterrupted run, and how long it takes.
        let clean = copy_without(reference_dir.path(), stage.drop);
        let mut args = vec!["--data".to_string(), d(clean.path()).to_string()];
        args.extend(stage.args.iter().cloned());
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let t0 = Instant::now();
        let out = run(stage.name, &a);
        assert!(out.status.code().is_some_and(|c| c <= 1), "{}", stage.name);
        let took = t0.elapsed();
        eprintln!("{} {:?}: {took:?} uninterrupted", stage.name, stage.args);
        let want = (stage.check)(clean.path());
        // Five kills that land (a run may end before its kill when the machine is busy).
        let (mut landed, mut i) = (0, 0);
        while landed < 5 && i < 15 {
            i += 1;
            let copy = copy_without(reference_dir.path(), stage.drop);
            let mut args = vec!["--data".to_string(), d(copy.path()).to_string()];
            args.extend(stage.args.iter().cloned());
            if i % 2 == 1 {
                args.extend(["--checkpoint-secs".to_string(), "0".to_string()]);
            }
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let delay = took.mul_f64(0.05 + 0.65 * fraction());
            if kill_and_resume(stage.name, &a, delay.max(Duration::from_millis(20))) {
                kills += 1;
                landed += 1;
            }
            assert_eq!(
                (stage.check)(copy.path()),
                want,
                "{} killed after {delay:?} and resumed differs from an uninterrupted run",
                stage.name
            );
        }
        // The next stage starts from this one's output.
        reference_dir = clean;
    }
    assert!(
        kills >= 20,
        "only {kills} runs were killed before they ended"
    );
}

/// Copies the `runs/` folder of `from` into `to`.
fn copy_runs(from: &Path, to: &Path) {
    let src = from.join("runs");
    let Ok(runs) = std::fs::read_dir(&src) else {
        return;
    };
    for run in runs {
        let run = run.unwrap();
        let dst = to.join("runs").join(run.file_name());
        std::fs::create_dir_all(&dst).unwrap();
        for f in std::fs::read_dir(run.path()).unwrap() {
            let f = f.unwrap();
            if f.file_type().unwrap().is_file() {
                std::fs::copy(f.path(), dst.join(f.file_name())).unwrap();
            }
        }
    }
}

/// The docker backend gives the process backend's verdicts: the validations of the
/// fixtures' function tasks, and the executions of the mutant solver's answers (the same
/// answers, judged once by each). Skipped, saying why, where no Docker engine answers.
#[test]
fn the_docker_backend_gives_the_process_backends_verdicts() {
    if let Err(why) = docker_engine() {
        println!("SKIP: {why}");
        return;
    }
    let src = dataset();
    let process = copy_of(src);
    let docker = copy_of(src);
    let key = |v: &Validation| (v.task_id.clone(), v.status, v.valid, v.cases, v.stable);
    run_ok(
        "execute",
        &[
            "-q",
            "--data",
            d(docker.path()),
            "--validate",
            "--no-envs",
            "--jobs",
            "2",
            "--force",
            "--backend",
            "docker",
        ],
    );
    let mut a: Vec<_> = schemas::read_table::<Validation>(process.path())
        .unwrap()
        .iter()
        .map(key)
        .collect();
    let dv: Vec<Validation> = schemas::read_table(docker.path()).unwrap();
    assert!(dv.iter().all(|v| v.isolation == "docker".parse().unwrap()));
    let mut b: Vec<_> = dv.iter().map(key).collect();
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(a, b, "validations differ between the backends");
    run_ok(
        "solve",
        &[
            "-q",
            "--data",
            d(process.path()),
            "--run",
            "mutant",
            "--model",
            "mutant",
        ],
    );
    copy_runs(process.path(), docker.path());
    for (dir, backend) in [(process.path(), "process"), (docker.path(), "docker")] {
        run_ok(
            "execute",
            &[
                "-q",
                "--data",
                d(dir),
                "--run",
                "mutant",
                "--no-envs",
                "--jobs",
                "2",
                "--force",
                "--backend",
                backend,
            ],
        );
    }
    let verdicts = |dir: &Path| {
        let mut v: Vec<_> = executions(dir, "mutant")
            .into_iter()
            .map(|e| (e.task_id, e.sample, e.status, e.cases_passed, e.fingerprint))
            .collect();
        v.sort_by(|x, y| (&x.0, x.1).cmp(&(&y.0, y.1)));
        v
    };
    let (pa, pb) = (verdicts(process.path()), verdicts(docker.path()));
    assert!(!pa.is_empty());
    assert_eq!(
        pa, pb,
        "the mutant run's verdicts differ between the backends"
    );
    println!(
        "equal verdicts: {} validations, {} executions",
        a.len(),
        pa.len()
    );
}

/// The docker engine of this machine, or why there is none (a test then skips).
fn docker_engine() -> Result<(), String> {
    let sock =
        std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".into());
    match sock.strip_prefix("unix://") {
        Some(path) if !Path::new(path).exists() => Err(format!("no Docker engine at {sock}")),
        _ => Ok(()),
    }
}

/// `source` with its entry point `name` wrapped to do `loops` iterations of busy work
/// first: the same results, a known share of CPU time.
fn slowed(source: &str, name: &str, loops: u64) -> String {
    // Each wrapping keeps the function it wraps under a name of its own.
    let inner = format!("_fb_unslowed_{}", source.matches("_fb_unslowed_").count());
    format!(
        "{source}\n\n{inner} = {name}\n\ndef {name}(*args, **kwargs):\n    for _ in range({loops}):\n        pass\n    return {inner}(*args, **kwargs)\n"
    )
}

#[test]
fn a_time_limit_from_the_reference_keeps_verdicts_on_a_slower_machine() {
    if let Err(why) = docker_engine() {
        println!("SKIP: {why} (the slower machine is a container with a tenth of a CPU)");
        return;
    }
    let tmp = copy_of(dataset());
    let dir = tmp.path();
    let mut t = task_named(dir, "is_prime");
    // The task's reference made slow (about 0.1 s a case here), with three of its cases.
    let loops = 8_000_000;
    t.canonical_solution = slowed(&t.canonical_solution, "is_prime", loops);
    let mut tasks: Vec<FunctionTask> = schemas::read_table(dir).unwrap();
    for x in &mut tasks {
        if x.task_id == t.task_id {
            x.canonical_solution.clone_from(&t.canonical_solution);
        }
    }
    schemas::write_table(dir, &tasks).unwrap();
    let mut cases: Vec<schemas::TestCase> = schemas::read_table(dir).unwrap();
    let mut kept = 0;
    cases.retain(|c| {
        let keep = c.task_id != t.task_id || kept < 3;
        kept += usize::from(c.task_id == t.task_id);
        keep
    });
    schemas::write_table(dir, &cases).unwrap();
    // Sample 0: the reference; sample 1: a correct answer half as slow again (a margin of
    // more than 2 under the factor of 4, for a loaded machine's noise).
    let rows = vec![
        candidate("time", &t, 0, &t.canonical_solution),
        candidate(
            "time",
            &t,
            1,
            &slowed(&t.canonical_solution, "is_prime", loops / 2),
        ),
    ];
    schemas::write_table_to(&dir.join("runs/time/candidates.parquet"), &rows).unwrap();
    let judged = |cpus: &str, extra: &[&str]| -> Vec<Execution> {
        let mut args = vec![
            "-q",
            "--data",
            d(dir),
            "--run",
            "time",
            "--no-envs",
            "--force",
            "--backend",
            "docker",
            "--cpus",
            cpus,
            "--time-floor",
            "0.2",
        ];
        args.extend_from_slice(extra);
        run_ok("execute", &args);
        let mut e = executions(dir, "time");
        e.sort_by_key(|e| e.sample);
        e
    };
    let print_rows = |what: &str, rows: &[Execution]| {
        for e in rows {
            println!(
                "{what:<26} sample {} {:<8} reference {:>6.3} s  limit {:>6.3} s  all 3 cases {:>6.3} s",
                e.sample,
                e.status.as_str(),
                e.reference_seconds.unwrap_or(f64::NAN),
                e.time_limit_seconds.unwrap_or(f64::NAN),
                e.seconds
            );
        }
    };
    // A tenth of a CPU: about ten times slower on an idle machine, still several times
    // slower when the other tests load the two CPUs the fast run shares with them.
    let fast = judged("2", &[]);
    let slow = judged("0.1", &[]);
    print_rows("rule, 2 CPUs", &fast);
    print_rows("rule, 1/10 CPU", &slow);
    let status = |rows: &[Execution]| rows.iter().map(|e| e.status.as_str()).collect::<Vec<_>>();
    assert_eq!(status(&fast), ["pass", "pass"]);
    assert_eq!(
        status(&slow),
        status(&fast),
        "the verdicts depend on the machine"
    );
    let (rf, rs) = (
        fast[0].reference_seconds.unwrap(),
        slow[0].reference_seconds.unwrap(),
    );
    assert!(
        rs > 3.0 * rf,
        "the tenth of a CPU was not slower: reference {rf:.3} s against {rs:.3} s"
    );
    // The same answers with one fixed limit that suits the fast machine: the slow machine
    // times the correct answer out (the difference the rule removes). Sample 1 takes about
    // 1.5 times the reference; the limit sits halfway (in ratio) between its time on the
    // two machines, a margin of sqrt(rs / rf) > 1.7 on either side.
    let fixed = format!("{:.3}", 1.5 * (rf * rs).sqrt());
    let fixed_fast = judged("2", &["--fixed-time-limit", "--case-timeout", &fixed]);
    let fixed_slow = judged("0.1", &["--fixed-time-limit", "--case-timeout", &fixed]);
    print_rows(&format!("fixed {fixed} s, 2 CPUs"), &fixed_fast);
    print_rows(&format!("fixed {fixed} s, 1/10 CPU"), &fixed_slow);
    assert_eq!(status(&fixed_fast), ["pass", "pass"]);
    assert_eq!(status(&fixed_slow)[1], "timeout");
    assert!(fixed_slow.iter().all(|e| e.time_factor.is_none()));
}
