//! `execute --repo-tests` end to end: crawl's tables written directly for a tiny project
//! (no third-party requirements: its environment needs only pytest and coverage), the
//! binary run on them, and the rows of `repo_tests` checked: passing and failing tests,
//! lines executed, the project's version through `importlib.metadata`, a flaky test, an
//! environment that does not build, a repository without tests, a rerun that skips what
//! is done (and redoes what changed), and a test file whose tests end their own process.
//!
//! Needs uv and the package registry (or uv's cache) to build the environment: skips with
//! a printed reason when either is missing.

use std::path::Path;
use std::process::Command;

use schemas::{examples, File, FileStatus, Isolation, Repo, RepoTest, TestOutcome};

fn repo(id: &str, name: &str) -> Repo {
    Repo {
        version: Some("1.2.3".into()),
        ..examples::repo(id, name)
    }
}

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

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";

const TEST_CALC: &str = "\
import importlib.metadata

from tinyproj.calc import add, sub


def test_add():
    assert add(2, 3) == 5


def test_sub_wrong():
    assert sub(2, 3) == 1


def test_version_from_metadata():
    assert importlib.metadata.version('tinyproj') == '1.2.3'
";

// Passes the first time, fails the second: the two runs share the worker's private copy of
// the tree (each run is a fresh pytest process), and the first leaves a marker in it.
const TEST_FLAKY: &str = "\
import pathlib


def test_passes_only_once():
    marker = pathlib.Path(__file__).with_name('.ran-once')
    seen = marker.exists()
    marker.write_text('x')
    assert not seen
";

fn dataset(dir: &Path) {
    let repos = vec![
        repo("r-tiny", "tinyproj"),
        repo("r-broken", "brokenenv"),
        repo("r-none", "notests"),
    ];
    let files = vec![
        file(
            "r-tiny",
            "pyproject.toml",
            "dependency",
            "[project]\nname = \"tinyproj\"\nversion = \"1.2.3\"\ndependencies = []\n\n[project.optional-dependencies]\ntest = [\"pytest\"]\n",
        ),
        file("r-tiny", "src/tinyproj/__init__.py", "source", ""),
        file("r-tiny", "src/tinyproj/calc.py", "source", CALC),
        file("r-tiny", "tests/test_calc.py", "test", TEST_CALC),
        file("r-tiny", "tests/test_flaky.py", "test", TEST_FLAKY),
        file("r-tiny", "tests/conftest.py", "test", ""),
        // A requirement uv refuses to parse: the environment fails offline.
        file("r-broken", "requirements.txt", "dependency", "bad-req (((\n"),
        file("r-broken", "tests/test_x.py", "test", "def test_x():\n    pass\n"),
        file("r-none", "notests/__init__.py", "source", "X = 1\n"),
    ];
    schemas::write_table(dir, &repos).unwrap();
    schemas::write_table(dir, &files).unwrap();
}

fn execute(data: &Path, cache: &Path) -> std::process::Output {
    execute_with(data, cache, 120)
}

fn execute_with(data: &Path, cache: &Path, timeout: u32) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_execute"))
        .arg("--data")
        .arg(data)
        .arg("--repo-tests")
        .arg("--cache-dir")
        .arg(cache)
        .arg("--timeout")
        .arg(timeout.to_string())
        .arg("-q")
        .output()
        .unwrap()
}

/// One repository's suite in a fresh dataset (the shared environment cache, `timeout`
/// seconds a request): its `repo_tests` rows and the binary's output; `None`, with a printed
/// reason, when uv is missing or the environment did not build.
fn run_suite(
    repos: &[Repo],
    files: &[File],
    timeout: u32,
) -> Option<(Vec<RepoTest>, std::process::Output)> {
    if execute::env::find_uv().is_none() {
        println!("SKIP: no uv (run `make setup`, or set FRESHBENCH_UV)");
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    schemas::write_table(&data, repos).unwrap();
    schemas::write_table(&data, files).unwrap();
    let out = execute_with(&data, &shared_cache(), timeout);
    let rows: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    if rows.iter().any(|r| r.outcome == TestOutcome::EnvError) {
        println!("SKIP: the environment did not build (no registry?)");
        return None;
    }
    Some((rows, out))
}

/// Each row's test name and outcome.
fn outcomes(rows: &[RepoTest]) -> Vec<(&str, TestOutcome)> {
    rows.iter()
        .map(|r| (r.node_id.rsplit("::").next().unwrap(), r.outcome))
        .collect()
}

/// The rows without what records when they ran.
fn timeless(rows: &[RepoTest]) -> Vec<RepoTest> {
    rows.iter()
        .map(|r| RepoTest {
            seconds: 0.0,
            ..r.clone()
        })
        .collect()
}

fn lines_of<'a>(row: &'a RepoTest, path: &str) -> Option<&'a Vec<i32>> {
    row.lines.iter().find(|f| f.path == path).map(|f| &f.lines)
}

#[test]
fn repo_tests_of_a_tiny_project() {
    let Some(uv) = execute::env::find_uv() else {
        println!("SKIP: no uv (run `make setup`, or set FRESHBENCH_UV)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let cache = tmp.path().join("cache");
    dataset(&data);
    let out = execute(&data, &cache);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    let tiny: Vec<&RepoTest> = rows.iter().filter(|r| r.repo_id == "r-tiny").collect();
    if let [only] = tiny.as_slice() {
        if only.outcome == TestOutcome::EnvError {
            println!(
                "SKIP: the environment (pytest and coverage only) did not build with {}; no registry? {}",
                uv.display(),
                only.detail.as_deref().unwrap_or("")
            );
            return;
        }
    }
    // 1: one repository's environment failed and another has no tests.
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");

    let ids: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.repo_id.as_str(), r.node_id.as_str()))
        .collect();
    assert_eq!(
        ids,
        vec![
            ("r-tiny", "tests/test_calc.py::test_add"),
            ("r-tiny", "tests/test_calc.py::test_sub_wrong"),
            ("r-tiny", "tests/test_calc.py::test_version_from_metadata"),
            ("r-tiny", "tests/test_flaky.py::test_passes_only_once"),
            ("r-broken", "<environment>"),
        ],
        "repos order, then node id; no rows for a repository without test files"
    );
    let by = |n: &str| rows.iter().find(|r| r.node_id.ends_with(n)).unwrap();
    let add = by("::test_add");
    assert_eq!(
        (add.outcome, add.flaky),
        (TestOutcome::Passed, false),
        "{add:?}"
    );
    assert_eq!(
        lines_of(add, "src/tinyproj/calc.py"),
        Some(&vec![2]),
        "{add:?}"
    );
    assert!(lines_of(add, "tests/test_calc.py").is_some_and(|l| l.contains(&7)));
    let sub = by("::test_sub_wrong");
    assert_eq!(
        (sub.outcome, sub.flaky),
        (TestOutcome::Failed, false),
        "{sub:?}"
    );
    assert_eq!(lines_of(sub, "src/tinyproj/calc.py"), Some(&vec![6]));
    assert!(
        sub.detail.as_deref().unwrap_or("").contains("assert"),
        "{sub:?}"
    );
    let version = by("::test_version_from_metadata");
    assert_eq!(version.outcome, TestOutcome::Passed, "{version:?}");
    let flaky = by("::test_passes_only_once");
    assert_eq!(
        (flaky.outcome, flaky.flaky),
        (TestOutcome::Passed, true),
        "{flaky:?}"
    );
    assert!(flaky
        .detail
        .as_deref()
        .unwrap_or("")
        .contains("run 1 passed, run 2 failed"));
    for r in &tiny {
        assert!(
            r.isolation == Isolation::Namespaces || r.isolation == Isolation::RlimitsOnly,
            "{r:?}"
        );
        assert!(r.seconds >= 0.0);
    }
    let broken = by("<environment>");
    assert_eq!(broken.outcome, TestOutcome::EnvError);
    assert!(!broken.detail.as_deref().unwrap_or("").is_empty());
    assert!(stdout.contains("tinyproj"), "{stdout}");
    let tiny_line = stdout.lines().find(|l| l.starts_with("tinyproj")).unwrap();
    let cols: Vec<&str> = tiny_line.split_whitespace().collect();
    // name, env, tests, passed, failed, errors, skipped, flaky, seconds, env seconds
    assert_eq!(
        &cols[1..8],
        &["built", "4", "3", "1", "0", "0", "1"],
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("brokenenv") && l.contains("failed")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("notests") && l.contains("no test files")),
        "{stdout}"
    );
    // The environment is in the cache, complete, with no half-built leftover.
    let envs: Vec<String> = std::fs::read_dir(cache.join("envs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(envs.iter().all(|n| !n.contains(".tmp-")), "{envs:?}");
    assert!(envs.iter().any(|n| n.ends_with(".failed")), "{envs:?}");

    // A rerun skips the repositories already in the table, made from the same inputs: same
    // rows. The environment that failed is tried again (the harness's failure is never
    // kept), and fails again from the cache.
    let again = execute(&data, &cache);
    let stdout2 = String::from_utf8_lossy(&again.stdout);
    let rows2: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    assert_eq!(timeless(&rows2), timeless(&rows));
    assert_eq!(
        rows2
            .iter()
            .filter(|r| r.repo_id == "r-tiny")
            .collect::<Vec<_>>(),
        tiny,
        "the tiny project was not run again"
    );
    assert!(
        stdout2
            .lines()
            .any(|l| l.starts_with("brokenenv") && l.contains("failed (cached)")),
        "{stdout2}"
    );
    assert!(
        stdout2
            .lines()
            .any(|l| l.starts_with("tinyproj") && l.contains("done")),
        "{stdout2}"
    );
    // Still 1: the repository without tests is looked at again (it has no rows to skip by).
    assert_eq!(again.status.code(), Some(1), "{stdout2}");

    // --force --repo tinyproj runs it again, reusing its environment, keeping other rows.
    let forced = Command::new(env!("CARGO_BIN_EXE_execute"))
        .arg("--data")
        .arg(&data)
        .args([
            "--repo-tests",
            "--force",
            "--repo",
            "tinyproj",
            "-q",
            "--cache-dir",
        ])
        .arg(&cache)
        .output()
        .unwrap();
    let stdout3 = String::from_utf8_lossy(&forced.stdout);
    assert_eq!(forced.status.code(), Some(0), "{stdout3}");
    assert!(
        stdout3
            .lines()
            .any(|l| l.starts_with("tinyproj") && l.contains("reused")),
        "{stdout3}"
    );
    let rows3: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    assert_eq!(rows3.len(), rows.len());
    assert!(rows3.iter().any(|r| r.repo_id == "r-broken"));
}

#[test]
fn errors_of_use_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    dataset(tmp.path());
    let out = Command::new(env!("CARGO_BIN_EXE_execute"))
        .arg("--data")
        .arg(tmp.path())
        .args(["--repo-tests", "--repo", "no-such-repo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-repo"));
    let out = Command::new(env!("CARGO_BIN_EXE_execute"))
        .arg("--data")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!tmp.path().join("repo_tests.parquet").exists());
}

/// An environment cache shared by the tests that need a working environment (it is keyed by
/// what defines each environment, so sharing it changes no result, only the time).
fn shared_cache() -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("repo-tests-cache")
}

/// A rerun redoes a repository whose files changed, and keeps the others.
#[test]
fn a_changed_file_makes_its_repository_run_again() {
    if execute::env::find_uv().is_none() {
        println!("SKIP: no uv (run `make setup`, or set FRESHBENCH_UV)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let cache = shared_cache();
    let repos = vec![repo("r-tiny", "tinyproj")];
    let mut files = vec![
        file("r-tiny", "src/tinyproj/__init__.py", "source", ""),
        file("r-tiny", "src/tinyproj/calc.py", "source", CALC),
        file("r-tiny", "tests/test_calc.py", "test", TEST_CALC),
    ];
    schemas::write_table(&data, &repos).unwrap();
    schemas::write_table(&data, &files).unwrap();
    execute(&data, &cache);
    let rows: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    if rows.iter().any(|r| r.outcome == TestOutcome::EnvError) {
        println!("SKIP: the environment did not build (no registry?)");
        return;
    }
    let sub = |rows: &[RepoTest]| {
        rows.iter()
            .find(|r| r.node_id.ends_with("::test_sub_wrong"))
            .unwrap()
            .outcome
    };
    assert_eq!(sub(&rows), TestOutcome::Failed);
    // `sub` fixed: the row made from the old file must not survive the rerun.
    files[1] = file(
        "r-tiny",
        "src/tinyproj/calc.py",
        "source",
        &CALC.replace("a - b", "a - b + 2"),
    );
    schemas::write_table(&data, &files).unwrap();
    execute(&data, &cache);
    let rows: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    assert_eq!(sub(&rows), TestOutcome::Passed, "{rows:?}");
}

const HOSTILE_CALC: &str = "def double(x):\n    return 2 * x\n";

const TEST_HOSTILE: &str = "\
import os
import signal

from hostileproj.calc import double


def test_passes():
    assert double(2) == 4


def test_fails():
    assert double(2) == 5


def test_exits():
    os._exit(0)


def test_kills_parent():
    os.kill(os.getppid(), signal.SIGKILL)


def test_loops():
    while True:
        pass


def test_passes_after():
    assert double(3) == 6
";

/// Regression: one test that ended its process (os._exit, a loop to the limit) cost its
/// whole file one `error` row, and the passing tests beside it lost their outcomes and the
/// lines they executed. Now each test gets its own row with its own outcome.
#[test]
fn tests_that_end_their_process_are_charged_alone() {
    let repos = vec![repo("r-hostile", "hostileproj")];
    let files = vec![
        file("r-hostile", "src/hostileproj/__init__.py", "source", ""),
        file(
            "r-hostile",
            "src/hostileproj/calc.py",
            "source",
            HOSTILE_CALC,
        ),
        file("r-hostile", "tests/test_hostile.py", "test", TEST_HOSTILE),
    ];
    let Some((rows, out)) = run_suite(&repos, &files, 8) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let got = outcomes(&rows);
    assert_eq!(
        got,
        vec![
            ("test_exits", TestOutcome::Error),
            ("test_fails", TestOutcome::Failed),
            ("test_kills_parent", TestOutcome::Error),
            ("test_loops", TestOutcome::Timeout),
            ("test_passes", TestOutcome::Passed),
            ("test_passes_after", TestOutcome::Passed),
        ],
        "{stdout}\n{stderr}"
    );
    let by = |n: &str| rows.iter().find(|r| r.node_id.ends_with(n)).unwrap();
    for name in ["::test_passes", "::test_passes_after", "::test_fails"] {
        let r = by(name);
        assert!(!r.flaky, "{r:?}");
        assert!(
            lines_of(r, "src/hostileproj/calc.py") == Some(&vec![2]),
            "{name} lost its lines: {r:?}"
        );
    }
    assert!(
        by("::test_exits")
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("ended its test process"),
        "{:?}",
        by("::test_exits")
    );
    assert!(
        by("::test_kills_parent")
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("sandbox violation"),
        "{:?}",
        by("::test_kills_parent")
    );
}

/// A project of an older layout whose tests extra asks for a lint plugin and whose pytest
/// configuration turns it on (base58's): the plugin is not installed (pytest-flake8 1.3
/// cannot load under pytest 9, and its items check style, not code), its option leaves
/// `addopts`, and the rest of `addopts` still holds (`-k` here deselects one test).
#[test]
fn a_lint_plugin_in_the_configuration_does_not_stop_the_suite() {
    let repos = vec![repo("r-lint", "lintproj")];
    let cfg = "[metadata]\nname = lintproj\n\n[options.extras_require]\ntests =\n\t\
               pytest-flake8\n\n[tool:pytest]\naddopts = --flake8 -k 'not test_sub_wrong'\n";
    let files = vec![
        file("r-lint", "setup.cfg", "dependency", cfg),
        file("r-lint", "src/lintproj/__init__.py", "source", ""),
        file("r-lint", "src/lintproj/calc.py", "source", CALC),
        file(
            "r-lint",
            "tests/test_calc.py",
            "test",
            &TEST_CALC.replace("tinyproj", "lintproj"),
        ),
    ];
    let Some((rows, out)) = run_suite(&repos, &files, 120) else {
        return;
    };
    let got = outcomes(&rows);
    assert_eq!(
        got,
        vec![
            ("test_add", TestOutcome::Passed),
            ("test_version_from_metadata", TestOutcome::Passed),
        ],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What a suite imports and no dependency file names is installed beside the declared
/// requirements (`six` here), and when that environment cannot build (no distribution is
/// named like the module a test imports), the suite runs in the declared one, as before.
#[test]
fn what_the_tests_import_is_installed_or_left_out() {
    let repos = vec![repo("r-six", "sixproj"), repo("r-ghost", "ghostproj")];
    let uses_six = "from six import PY3\n\n\ndef test_six():\n    assert PY3\n";
    let optional = "try:\n    import freshbench_no_such_distribution_q7 as ghost\n\
                    except ImportError:\n    ghost = None\n\n\ndef test_ghost():\n    \
                    assert ghost is None\n";
    let files = vec![
        file("r-six", "src/sixproj/__init__.py", "source", ""),
        file("r-six", "tests/test_six.py", "test", uses_six),
        file("r-ghost", "src/ghostproj/__init__.py", "source", ""),
        file("r-ghost", "tests/test_ghost.py", "test", optional),
    ];
    let Some((rows, out)) = run_suite(&repos, &files, 120) else {
        return;
    };
    assert_eq!(
        outcomes(&rows),
        vec![
            ("test_six", TestOutcome::Passed),
            ("test_ghost", TestOutcome::Passed),
        ],
        "{rows:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
