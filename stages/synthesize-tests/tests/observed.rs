//! Observed calls (`observed_calls`, the arguments the repository's own tests passed) as
//! the search's first seeds, through the built binary on a dataset written here: a date
//! classifier whose deep branches need a well-formed ISO date, which the generator does not
//! make alone. With the seeds it reaches every arc and has cases `from_observed`; with
//! `--no-observed`, under the same call budget, it does not. A function without observed
//! rows keeps its row across both runs (its `config_hash` does not change), a function
//! whose observations change is made again.

use std::path::Path;
use std::process::Command;

use schemas::{
    examples, Classification, Function, FunctionClass, FunctionTask, ObservedCall, Param,
    ParamKind, Reference, TaskStatus, TestCase,
};

const STAMP: &str = r#"def classify_stamp(stamp):
    parts = stamp.split("-")
    if len(parts) != 3:
        return "bad"
    y, m, d = parts
    if not (y.isdigit() and m.isdigit() and d.isdigit()):
        return "bad"
    if len(y) != 4 or not 1 <= int(m) <= 12 or not 1 <= int(d) <= 31:
        return "range"
    if int(m) == 2 and int(d) > 29:
        return "february"
    if int(y) % 4 == 0:
        return "leap"
    return "ok""#;

const DOUBLE: &str = "def double(x):\n    if x < 0:\n        return 0\n    return 2 * x";

fn function(id: &str, name: &str, source: &str, params: &[&str]) -> Function {
    let mut f = examples::function(id, "r-1");
    f.qualname = name.into();
    f.name = name.into();
    f.source = source.into();
    f.end_byte = source.len() as i64;
    f.lines = source.lines().count() as i32;
    f.end_line = f.lines;
    f.params = params
        .iter()
        .map(|p| Param {
            name: (*p).into(),
            kind: ParamKind::PositionalOrKeyword,
            annotation: None,
            default: None,
        })
        .collect();
    f
}

fn observed(ordinal: i32, args: &str) -> ObservedCall {
    ObservedCall {
        repo_id: "r-1".into(),
        function_id: "f-stamp".into(),
        ordinal,
        args: args.into(),
        kwargs: "{}".into(),
        node_id: "tests/test_dates.py::test_classify".into(),
        calls: 1,
        input_hash: "0".repeat(32),
    }
}

fn dataset(dir: &Path) {
    let functions = vec![
        function("f-stamp", "classify_stamp", STAMP, &["stamp"]),
        function("f-double", "double", DOUBLE, &["x"]),
    ];
    let classes: Vec<Classification> = functions
        .iter()
        .map(|f| Classification {
            function_id: f.function_id.clone(),
            repo_id: f.repo_id.clone(),
            class: FunctionClass::SelfContained,
            reasons: Vec::new(),
            libraries: Vec::new(),
            internal_deps: Vec::new(),
            config_hash: "0".repeat(16),
        })
        .collect();
    schemas::write_table(dir, &functions).unwrap();
    schemas::write_table(dir, &classes).unwrap();
    schemas::write_table::<Reference>(dir, &[]).unwrap();
    // What the tests passed: a date, and one of February; also a call with an object of
    // the repository, which no literal stands for (left out).
    schemas::write_table(
        dir,
        &[
            observed(0, "['2023-05-17']"),
            observed(1, "['2024-02-30']"),
            observed(2, "[Stamp('x')]"),
        ],
    )
    .unwrap();
}

fn python() -> String {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python");
    if venv.exists() {
        venv.display().to_string()
    } else {
        "python3".into()
    }
}

fn synthesize(dir: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_synthesize-tests"))
        .args(["--data", dir.to_str().unwrap(), "-q", "--no-envs"])
        .args(["--seconds", "600", "--jobs", "1", "--calls", "120"])
        .args(["--mutants", "0", "--python", &python()])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn rows(dir: &Path) -> (Vec<FunctionTask>, Vec<TestCase>) {
    (
        schemas::read_table(dir).unwrap(),
        schemas::read_table(dir).unwrap(),
    )
}

fn task<'a>(tasks: &'a [FunctionTask], id: &str) -> &'a FunctionTask {
    tasks.iter().find(|t| t.function_id == id).unwrap()
}

#[test]
fn observed_seeds_reach_what_the_generator_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    dataset(dir);

    // With the observed calls.
    let stdout = synthesize(dir, &[]);
    let (tasks, cases) = rows(dir);
    let stamp = task(&tasks, "f-stamp").clone();
    assert_eq!(stamp.status, TaskStatus::Ok, "{stamp:?}");
    assert!(stamp.arcs_total > 0);
    assert_eq!(stamp.arcs_covered, stamp.arcs_total, "{stamp:?}");
    let mine: Vec<&TestCase> = cases
        .iter()
        .filter(|c| c.task_id == stamp.task_id)
        .collect();
    assert!(mine.iter().any(|c| c.from_observed), "{mine:?}");
    assert!(
        mine.iter()
            .any(|c| c.from_observed && c.args == "[\"2024-02-30\"]"),
        "{mine:?}"
    );
    let double = task(&tasks, "f-double").clone();
    let double_cases: Vec<&TestCase> = cases
        .iter()
        .filter(|c| c.task_id == double.task_id)
        .collect();
    assert!(!double_cases.is_empty() && double_cases.iter().all(|c| !c.from_observed));
    let from_observed = mine.iter().filter(|c| c.from_observed).count();
    assert!(
        stdout.contains("with observed calls          1 of 2"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("cases from observed     {from_observed:>6}")),
        "{stdout}"
    );

    // Again: both rows kept as they were.
    synthesize(dir, &[]);
    let (again, _) = rows(dir);
    assert_eq!(
        task(&again, "f-stamp").seconds.to_bits(),
        stamp.seconds.to_bits()
    );
    assert_eq!(
        task(&again, "f-double").seconds.to_bits(),
        double.seconds.to_bits()
    );

    // Without them, under the same call budget: the deep arcs are not reached. The function
    // without observed rows is not made again (same config hash).
    let stdout = synthesize(dir, &["--no-observed"]);
    let (tasks, cases) = rows(dir);
    let alone = task(&tasks, "f-stamp");
    assert_ne!(alone.config_hash, stamp.config_hash);
    assert_eq!(alone.arcs_total, stamp.arcs_total);
    assert!(alone.arcs_covered < stamp.arcs_covered, "{alone:?}");
    assert_ne!(alone.status, TaskStatus::Ok);
    eprintln!(
        "with observed: {}/{} arcs in {} calls; without: {}/{} in {} calls ({:?})",
        stamp.arcs_covered,
        stamp.arcs_total,
        stamp.calls,
        alone.arcs_covered,
        alone.arcs_total,
        alone.calls,
        alone.reason
    );
    assert!(cases.iter().all(|c| !c.from_observed));
    assert_eq!(task(&tasks, "f-double").config_hash, double.config_hash);
    assert_eq!(
        task(&tasks, "f-double").seconds.to_bits(),
        double.seconds.to_bits()
    );
    assert!(!stdout.contains("cases from observed"), "{stdout}");

    // A new observation makes the function again, with its seeds.
    let mut rows_now: Vec<ObservedCall> = schemas::read_table(dir).unwrap();
    rows_now.push(observed(3, "['1999-12-31']"));
    schemas::write_table(dir, &rows_now).unwrap();
    synthesize(dir, &[]);
    let (tasks, cases) = rows(dir);
    let redone = task(&tasks, "f-stamp");
    assert_ne!(redone.config_hash, stamp.config_hash);
    assert_ne!(redone.config_hash, alone.config_hash);
    assert_eq!(redone.arcs_covered, redone.arcs_total);
    assert!(cases
        .iter()
        .any(|c| c.task_id == redone.task_id && c.from_observed));
    assert_eq!(
        task(&tasks, "f-double").seconds.to_bits(),
        double.seconds.to_bits()
    );
}
