//! `execute --repo-tests` records the arguments with which a repository's own tests call
//! its functions into `observed_calls`: the fixture repository `data/fixtures/textkit`, its
//! crawl tables written directly (no third-party requirements), resolve's `functions` rows
//! for three of its functions (a module-level one with a keyword-only default, a
//! `@classmethod` and a `@staticmethod`), the binary run, and the rows checked with their
//! exact text; a rerun keeps them, a changed file redoes them.
//!
//! Needs uv and the package registry (or uv's cache) to build the environment: skips with
//! a printed reason when either is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use schemas::{examples, File, FileStatus, Function, ObservedCall, Repo, RepoTest, TestOutcome};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/fixtures/textkit")
}

fn file(path: &str, kind: &str, content: &str) -> File {
    File {
        repo_id: "r-textkit".into(),
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

/// The fixture's Python files and pyproject.toml (the latin-1 module, which no test
/// imports, left out).
fn files() -> Vec<File> {
    let root = fixture();
    let mut out = vec![file(
        "pyproject.toml",
        "dependency",
        &std::fs::read_to_string(root.join("pyproject.toml")).unwrap(),
    )];
    for (dir, kind) in [("textkit", "source"), ("tests", "test")] {
        let mut names: Vec<String> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| Path::new(n).extension().is_some_and(|e| e == "py"))
            .collect();
        names.sort();
        for n in names {
            if let Ok(text) = std::fs::read_to_string(root.join(dir).join(&n)) {
                out.push(file(&format!("{dir}/{n}"), kind, &text));
            }
        }
    }
    out
}

/// A `functions` row for the definition of `qualname` whose first line (its first
/// decorator's, as resolve records it) is `first` in `path` of the fixture.
fn function(id: &str, path: &str, qualname: &str, first: &str, decorators: &[&str]) -> Function {
    let text = std::fs::read_to_string(fixture().join(path)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| *l == first).unwrap();
    let end = (start + 1..lines.len())
        .find(|&i| {
            !lines[i].trim().is_empty()
                && lines[i].len() - lines[i].trim_start().len()
                    <= first.len() - first.trim_start().len()
                && !lines[i].trim_start().starts_with("def ")
        })
        .unwrap_or(lines.len());
    let name = qualname.rsplit('.').next().unwrap();
    Function {
        path: path.into(),
        module: path.trim_end_matches(".py").replace('/', "."),
        qualname: qualname.into(),
        name: name.into(),
        class_name: qualname.rsplit_once('.').map(|(c, _)| c.to_string()),
        is_method: qualname.contains('.'),
        start_line: start as i32 + 1,
        end_line: end as i32,
        decorators: decorators.iter().map(|d| (*d).to_string()).collect(),
        source: lines[start..end].join("\n"),
        ..examples::function(id, "r-textkit")
    }
}

fn dataset(dir: &Path) {
    let repos: Vec<Repo> = vec![Repo {
        version: Some("0.4.2".into()),
        ..examples::repo("r-textkit", "textkit")
    }];
    schemas::write_table(dir, &repos).unwrap();
    schemas::write_table(dir, &files()).unwrap();
    let functions = vec![
        function(
            "f-truncate",
            "textkit/strings.py",
            "truncate",
            "def truncate(text: str, width: int = 20, *, ellipsis: str = \"...\") -> str:",
            &[],
        ),
        function(
            "f-from-text",
            "textkit/table.py",
            "Table.from_text",
            "    @classmethod",
            &["classmethod"],
        ),
        function(
            "f-split-line",
            "textkit/table.py",
            "Table.split_line",
            "    @staticmethod",
            &["staticmethod"],
        ),
    ];
    schemas::write_table(dir, &functions).unwrap();
}

fn execute(data: &Path, cache: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_execute"))
        .arg("--data")
        .arg(data)
        .arg("--repo-tests")
        .arg("--cache-dir")
        .arg(cache)
        .arg("--timeout")
        .arg("120")
        .arg("-q")
        .output()
        .unwrap()
}

/// (function, ordinal, args, kwargs, test name, calls) of the rows.
fn brief(rows: &[ObservedCall]) -> Vec<(String, i32, String, String, String, i32)> {
    rows.iter()
        .map(|r| {
            (
                r.function_id.clone(),
                r.ordinal,
                r.args.clone(),
                r.kwargs.clone(),
                r.node_id.rsplit("::").next().unwrap().to_string(),
                r.calls,
            )
        })
        .collect()
}

fn row(
    function: &str,
    ordinal: i32,
    args: &str,
    kwargs: &str,
    test: &str,
    calls: i32,
) -> (String, i32, String, String, String, i32) {
    (
        function.into(),
        ordinal,
        args.into(),
        kwargs.into(),
        test.into(),
        calls,
    )
}

#[test]
fn the_tests_calls_of_textkit_are_observed() {
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
    let tests: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    if let [only] = tests.as_slice() {
        if only.outcome == TestOutcome::EnvError {
            println!(
                "SKIP: the environment did not build with {}; no registry? {}",
                uv.display(),
                only.detail.as_deref().unwrap_or("")
            );
            return;
        }
    }
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let calls: Vec<ObservedCall> = schemas::read_table(&data).unwrap();
    let hash = &tests[0].input_hash;
    assert!(calls
        .iter()
        .all(|c| c.repo_id == "r-textkit" && &c.input_hash == hash));
    let got = brief(&calls);
    let ellipsis = "{'ellipsis': '...'}";
    assert_eq!(
        got,
        vec![
            // The class method without `cls`; its defaults as the frame held them.
            row(
                "f-from-text",
                0,
                r"['name, qty\napple, 3\n\npear, 5, ripe\n', ',', True]",
                "{}",
                "test_table",
                1
            ),
            // The static method keeps its first argument: called by from_text, then by a
            // test, by keyword.
            row(
                "f-split-line",
                0,
                "['name, qty', ',']",
                "{}",
                "test_table",
                1
            ),
            row(
                "f-split-line",
                1,
                "['apple, 3', ',']",
                "{}",
                "test_table",
                1
            ),
            row(
                "f-split-line",
                2,
                "['pear, 5, ripe', ',']",
                "{}",
                "test_table",
                1
            ),
            row("f-split-line", 3, "['a;b ; c', ';']", "{}", "test_table", 1),
            // Parametrized cases; a keyword-only parameter in kwargs.
            row(
                "f-truncate",
                0,
                "['hello', 10]",
                ellipsis,
                "test_truncate[hello-10-hello]",
                1
            ),
            row(
                "f-truncate",
                1,
                "['hello world', 8]",
                ellipsis,
                "test_truncate[hello world-8-hello...]",
                1
            ),
            row(
                "f-truncate",
                2,
                "['hello', 2]",
                ellipsis,
                "test_truncate[hello-2-..]",
                1
            ),
            row(
                "f-truncate",
                3,
                "['', 0]",
                ellipsis,
                "test_truncate[-0-]",
                1
            ),
            row(
                "f-truncate",
                4,
                "['abcdefgh', 5]",
                "{'ellipsis': '~'}",
                "test_truncate_custom_ellipsis_and_error",
                1
            ),
            row(
                "f-truncate",
                5,
                "['abc', -1]",
                ellipsis,
                "test_truncate_custom_ellipsis_and_error",
                1
            ),
        ],
        "{stdout}\n{stderr}"
    );

    // A rerun keeps them; a changed test file redoes the repository and its calls.
    let again = execute(&data, &cache);
    assert_eq!(again.status.code(), Some(0));
    let calls2: Vec<ObservedCall> = schemas::read_table(&data).unwrap();
    assert_eq!(calls2, calls);
    let mut fs = files();
    let t = fs
        .iter_mut()
        .find(|f| f.path == "tests/test_strings.py")
        .unwrap();
    let text = t.content.clone().unwrap()
        + "\n\ndef test_more():\n    assert truncate('xyz', 1, ellipsis='') == 'x'\n";
    *t = file("tests/test_strings.py", "test", &text);
    schemas::write_table(&data, &fs).unwrap();
    let third = execute(&data, &cache);
    assert_eq!(third.status.code(), Some(0));
    let calls3: Vec<ObservedCall> = schemas::read_table(&data).unwrap();
    let tests3: Vec<RepoTest> = schemas::read_table(&data).unwrap();
    assert_ne!(&tests3[0].input_hash, hash);
    assert!(calls3.iter().all(|c| c.input_hash == tests3[0].input_hash));
    assert!(
        brief(&calls3).contains(&row(
            "f-truncate",
            6,
            "['xyz', 1]",
            "{'ellipsis': ''}",
            "test_more",
            1
        )),
        "{calls3:?}"
    );
}
