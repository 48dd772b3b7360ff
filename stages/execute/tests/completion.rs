//! The completion judge end to end: crawl's tables and two completion tasks written
//! directly for a tiny project, `execute --validate` and `execute --run` run on them.
//!
//! - Validation: the original fill passes its judge tests twice, the neutral fills fail,
//!   mutants of the span are run and counted; a task whose judges do not notice a neutral
//!   fill is invalid with its reason.
//! - Bad answers, each a row with its status, and the next answer judged on a clean copy:
//!   a fill that does not parse, one that breaks the file's imports, one that loops, one
//!   that deletes the working copy; a fill that differs only in a subprocess shows that
//!   the subprocesses tests start import the working copy, not the original tree.
//!
//! Needs uv and the package registry (or uv's cache) to build the environment: skips with
//! a printed reason when either is missing.

use std::path::Path;
use std::process::Command;

use schemas::{
    examples, AnswerStatus, Candidate, CompletionTask, ExecStatus, Execution, Family, File,
    FileStatus, Repo, SpanKind, Validation,
};

fn file(repo_id: &str, path: &str, kind: &str, content: &str) -> File {
    File {
        repo_id: repo_id.into(),
        path: path.into(),
        kind: kind.parse().unwrap(),
        sha256: schemas::id::sha256_hex(content.as_bytes()),
        size: content.len() as i64,
        content: Some(content.into()),
        status: FileStatus::Ok,
        reason: None,
        changed_lines: None,
        line_dates: None,
        bytes: None,
    }
}

const CALC: &str = "\
def add(a, b):
    return a + b


def scale(xs, k):
    out = []
    for x in xs:
        out.append(x * k)
    return out


def label(x):
    return 'big' if x > 10 else 'small'
";

const TEST_CALC: &str = "\
import subprocess
import sys

from judgeproj.calc import add, label, scale


def test_add():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0


def test_add_in_a_subprocess():
    code = 'from judgeproj.calc import add; print(add(2, 3))'
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == '5'


def test_scale():
    assert scale([1, 2], 3) == [3, 6]


def test_label_runs():
    assert label(3) in ('big', 'small', None)
";

/// A task masking `text` (its first occurrence after `after`) in calc.py.
fn task(id: &str, kind: SpanKind, after: &str, text: &str, tests: &[&str]) -> CompletionTask {
    let from = CALC.find(after).unwrap();
    let start = from + CALC[from..].find(text).unwrap();
    let end = start + text.len();
    let line = |b: usize| CALC[..b].matches('\n').count() as i32 + 1;
    let line_start = CALC[..start].rfind('\n').map_or(0, |i| i + 1);
    CompletionTask {
        task_id: id.into(),
        repo_id: "r-judge".into(),
        function_id: None,
        path: "src/judgeproj/calc.py".into(),
        span_kind: kind,
        start_byte: start as i64,
        end_byte: end as i64,
        start_line: line(start),
        end_line: line(end),
        prefix: CALC[..start].into(),
        suffix: CALC[end..].into(),
        reference: text.into(),
        indent: CALC[line_start..start].into(),
        tests: tests
            .iter()
            .map(|t| format!("tests/test_calc.py::{t}"))
            .collect(),
        tests_seconds: 0.2,
        ..examples::completion_task(id, "r-judge")
    }
}

fn dataset(dir: &Path) -> Vec<CompletionTask> {
    let repos = vec![Repo {
        version: Some("0.1.0".into()),
        ..examples::repo("r-judge", "judgeproj")
    }];
    let files = vec![
        file(
            "r-judge",
            "pyproject.toml",
            "dependency",
            "[project]\nname = \"judgeproj\"\nversion = \"0.1.0\"\ndependencies = []\n\n[project.optional-dependencies]\ntest = [\"pytest\"]\n",
        ),
        file("r-judge", "src/judgeproj/__init__.py", "source", ""),
        file("r-judge", "src/judgeproj/calc.py", "source", CALC),
        file("r-judge", "tests/test_calc.py", "test", TEST_CALC),
    ];
    let tasks = vec![
        task(
            "c-add",
            SpanKind::Expression,
            "def add",
            "a + b",
            &["test_add", "test_add_in_a_subprocess"],
        ),
        task(
            "c-scale",
            SpanKind::Block,
            "for x in xs:",
            "out.append(x * k)",
            &["test_scale"],
        ),
        // Its only judge accepts anything: `None` passes it, so the task is invalid.
        task(
            "c-label",
            SpanKind::Expression,
            "def label",
            "'big' if x > 10 else 'small'",
            &["test_label_runs"],
        ),
    ];
    schemas::write_table(dir, &repos).unwrap();
    schemas::write_table(dir, &files).unwrap();
    schemas::write_table(dir, &tasks).unwrap();
    tasks
}

fn execute(data: &Path, cache: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_execute"))
        .arg("--data")
        .arg(data)
        .arg("--cache-dir")
        .arg(cache)
        .args(["--judge-base-timeout", "8", "-q"])
        .args(args)
        .output()
        .unwrap()
}

fn candidate(task_id: &str, sample: i32, answer: &str) -> Candidate {
    Candidate {
        run: "bad".into(),
        task_id: task_id.into(),
        family: Family::Completion,
        sample,
        model: "hand".into(),
        prompt_hash: "p".into(),
        answer: Some(answer.into()),
        raw: Some(answer.into()),
        status: AnswerStatus::Ok,
        error: None,
        tokens_in: None,
        tokens_out: None,
        latency_ms: 0.0,
        cost: None,
        input_hash: format!("h{sample}"),
    }
}

#[test]
fn completion_tasks_are_validated_and_bad_answers_cost_only_themselves() {
    if execute::env::find_uv().is_none() {
        println!("SKIP: no uv (run `make setup`, or set FRESHBENCH_UV)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let cache = tmp.path().join("cache");
    dataset(&data);
    let out = execute(&data, &cache, &["--validate", "--mutants", "4"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows: Vec<Validation> = schemas::read_table(&data).unwrap();
    if rows
        .iter()
        .any(|v| v.reason.as_deref().unwrap_or("").contains("did not build"))
    {
        println!("SKIP: the environment (pytest and coverage only) did not build; no registry? {stdout}\n{stderr}");
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let by = |id: &str| rows.iter().find(|v| v.task_id == id).unwrap();
    for id in ["c-add", "c-scale"] {
        let v = by(id);
        assert_eq!(v.family, Family::Completion);
        assert!(
            v.valid && v.original_passes && v.null_fails && v.stable,
            "{v:?}"
        );
        assert!(v.mutants_total.unwrap() > 0, "{v:?}");
        assert!(v.mutants_killed.unwrap() > 0, "{v:?}");
    }
    let label = by("c-label");
    assert!(!label.valid, "{label:?}");
    assert!(
        label.reason.as_deref().unwrap().starts_with("null_passes"),
        "{label:?}"
    );
    assert!(
        stdout.contains("validated 3 completion tasks: 2 valid"),
        "{stdout}"
    );

    // A rerun keeps every row (nothing changed).
    let again = execute(&data, &cache, &["--validate", "--mutants", "4"]);
    assert_eq!(again.status.code(), Some(0));
    let rows2: Vec<Validation> = schemas::read_table(&data).unwrap();
    assert_eq!(rows, rows2);

    // A run of bad answers, judged one after the other by the same workers.
    let answers = [
        "a + b",                                  // 0 right
        "a +",                                    // 1 does not parse
        "a + b\nimport judgeproj_no_such_module", // 2 breaks the file's imports
        "next(x for x in iter(int, 1) if x)",     // 3 loops
        "__import__('shutil').rmtree(__import__('os').getcwd(), ignore_errors=True) or a + b", // 4 deletes the working copy
        "a + b",                                               // 5 right: on a clean copy
        "(a + b) if __import__('sys').argv[0] != '-c' else 0", // 6 wrong only in a subprocess
        "a - b",                                               // 7 wrong
    ];
    let cands: Vec<Candidate> = answers
        .iter()
        .enumerate()
        .map(|(i, a)| candidate("c-add", i as i32, a))
        .chain([candidate("c-scale", 0, "out.append(x * k)")])
        .collect();
    let rdir = data.join("runs").join("bad");
    std::fs::create_dir_all(&rdir).unwrap();
    schemas::write_table(&rdir, &cands).unwrap();
    let out = execute(&data, &cache, &["--run", "bad"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ex: Vec<Execution> = schemas::read_table(&rdir).unwrap();
    assert_eq!(ex.len(), cands.len(), "{stdout}\n{stderr}");
    let st = |task: &str, s: i32| {
        ex.iter()
            .find(|e| e.task_id == task && e.sample == s)
            .unwrap()
    };
    let status = |s: i32| st("c-add", s).status;
    assert_eq!(status(0), ExecStatus::Pass, "{:?}", st("c-add", 0));
    assert_eq!(status(1), ExecStatus::Syntax, "{:?}", st("c-add", 1));
    assert_eq!(status(2), ExecStatus::Error, "{:?}", st("c-add", 2));
    assert_eq!(status(3), ExecStatus::Timeout, "{:?}", st("c-add", 3));
    assert!(!status(4).is_infra(), "{:?}", st("c-add", 4));
    assert_eq!(status(5), ExecStatus::Pass, "{:?}", st("c-add", 5));
    let sub = st("c-add", 6);
    assert_eq!(
        (sub.status, sub.cases_passed, sub.cases_total),
        (ExecStatus::Fail, 1, 2),
        "the subprocess must import the answer: {sub:?}"
    );
    assert_eq!(status(7), ExecStatus::Fail, "{:?}", st("c-add", 7));
    assert_eq!(st("c-scale", 0).status, ExecStatus::Pass);
    assert!(ex.iter().all(|e| e.cases_total >= 1));
    // The worker's copy of the tree was never the original: the tree in the cache is whole.
    let trees = cache.join("trees");
    let calc = walk(&trees)
        .into_iter()
        .find(|p| p.ends_with("src/judgeproj/calc.py"))
        .expect("the tree in the cache");
    assert_eq!(std::fs::read_to_string(calc).unwrap(), CALC);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
