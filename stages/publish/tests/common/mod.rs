//! A small dataset written by hand with `schemas::io`: four repositories (MIT, GPL-3.0-only,
//! no license, and an MIT one without valid tasks), function tasks made from real Python
//! functions with their test cases (values recorded by running them), validations with one
//! invalid task, and slices.

#![allow(dead_code)] // each test binary uses part of it

pub mod checks;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use schemas::{
    examples, CodeDateSource, Family, FunctionTask, LicenseSource, PromptKind, Repo, Slice,
    SourceKind, TaskStatus, TestCase, Timestamp, Validation,
};

pub const DATE: &str = "2026-12-01";
/// The tasks that must be published (valid, of the MIT repository), in table order.
pub const PUBLISHED: [&str; 3] = ["t-clamp", "t-words", "t-pairs"];

pub fn repo(id: &str, name: &str, version: &str, license: Option<&str>) -> Repo {
    Repo {
        source: SourceKind::Pypi,
        spec: format!("pypi:{name}=={version}"),
        version: Some(version.into()),
        commit: Some(format!("tree-{id}")),
        published_at: Some(Timestamp::parse("2026-10-01T12:00:00Z").unwrap()),
        url: Some(format!("https://example.invalid/{name}-{version}.tar.gz")),
        license: license.map(str::to_string),
        license_source: license.map(|_| LicenseSource::Metadata),
        cutoff: Some(Timestamp::parse("2026-09-01").unwrap()),
        files_total: 4,
        ..examples::repo(id, name)
    }
}

pub fn task(id: &str, repo: &str, entry: &str, prompt: &str, canonical: &str) -> FunctionTask {
    FunctionTask {
        prompt: prompt.into(),
        prompt_kind: if canonical.starts_with(prompt) {
            PromptKind::Docstring
        } else {
            PromptKind::Synthesized
        },
        entry_point: entry.into(),
        canonical_solution: canonical.into(),
        cases: 0,
        arcs_covered: 4,
        arcs_total: 4,
        branches_covered: 2,
        branches_total: 2,
        ..examples::function_task(id, repo)
    }
}

pub fn case(
    task: &str,
    ordinal: i32,
    args: &str,
    kwargs: &str,
    expected: Result<(&str, &str), &str>,
) -> TestCase {
    let (repr, json, exc) = match expected {
        Ok((repr, json)) => (Some(repr.to_string()), Some(json.to_string()), None),
        Err(exc) => (None, None, Some(exc.to_string())),
    };
    TestCase {
        case_id: format!("{task}-c{ordinal}"),
        task_id: task.into(),
        ordinal,
        args: args.into(),
        kwargs: kwargs.into(),
        expected_repr: repr,
        expected_json: json,
        expected_exception: exc,
        is_edge: ordinal == 0,
        from_observed: false,
        arcs: 1,
    }
}

fn validation(task: &str, valid: bool) -> Validation {
    Validation {
        reason: (!valid).then(|| "original_fails: case 0 returned 2".to_string()),
        ..examples::validation(task, valid)
    }
}

const CLAMP_PROMPT: &str =
    "def clamp(x: float, low: float, high: float) -> float:\n    \"\"\"Clamp x into [low, high].\"\"\"\n";
const CLAMP_BODY: &str =
    "    if low > high:\n        raise ValueError(\"low > high\")\n    return max(low, min(x, high))\n";
const WORDS_PROMPT: &str = "def word_freq(text: str, lower: bool = True) -> dict[str, int]:\n    \"\"\"How often each word occurs.\"\"\"\n";
const WORDS_BODY: &str = "    counts = {}\n    for word in text.split():\n        if lower:\n            word = word.lower()\n        counts[word] = counts.get(word, 0) + 1\n    return counts\n";
/// A synthesized prompt: its docstring is not the original's.
const PAIRS_PROMPT: &str = "def pairs(xs):\n    \"\"\"Behave as these examples show.\n\n    >>> pairs([1, 2, 3])\n    [(1, 2), (2, 3)]\n    \"\"\"\n";
const PAIRS_SOLUTION: &str = "def pairs(xs):\n    return list(zip(xs, xs[1:]))\n";

pub fn function_tasks() -> Vec<FunctionTask> {
    let mut tasks = function_tasks_undated();
    // Code dates: t-clamp's and t-gpl's code is new (2026-09-10, from release history);
    // t-pairs' only has its release's date (an upper bound); the others have none.
    for t in &mut tasks {
        let (date, source) = match t.task_id.as_str() {
            "t-clamp" | "t-gpl" => ("2026-09-10", CodeDateSource::ReleaseHistory),
            "t-pairs" => ("2026-10-01", CodeDateSource::ReleaseDate),
            _ => continue,
        };
        t.code_date = Timestamp::parse(date);
        t.code_date_source = Some(source);
    }
    tasks
}

fn function_tasks_undated() -> Vec<FunctionTask> {
    let mut rejected = task(
        "t-rejected",
        "r-mit",
        "noisy",
        "def noisy():\n    \"\"\"Prints.\"\"\"\n",
        "def noisy():\n    \"\"\"Prints.\"\"\"\n    print(1)\n",
    );
    rejected.status = TaskStatus::Rejected;
    rejected.reason = Some("no_usable_input: returns nothing".into());
    vec![
        task(
            "t-clamp",
            "r-mit",
            "clamp",
            CLAMP_PROMPT,
            &format!("{CLAMP_PROMPT}{CLAMP_BODY}"),
        ),
        task(
            "t-invalid",
            "r-mit",
            "double",
            "def double(x):\n    \"\"\"Twice x.\"\"\"\n",
            "def double(x):\n    \"\"\"Twice x.\"\"\"\n    return x * 2\n",
        ),
        task(
            "t-words",
            "r-mit",
            "word_freq",
            WORDS_PROMPT,
            &format!("{WORDS_PROMPT}{WORDS_BODY}"),
        ),
        rejected,
        task("t-pairs", "r-mit", "pairs", PAIRS_PROMPT, PAIRS_SOLUTION),
        task(
            "t-novalidation",
            "r-mit",
            "inc",
            "def inc(x):\n    \"\"\"x + 1.\"\"\"\n",
            "def inc(x):\n    \"\"\"x + 1.\"\"\"\n    return x + 1\n",
        ),
        task(
            "t-gpl",
            "r-gpl",
            "neg",
            "def neg(x):\n    \"\"\"Minus x.\"\"\"\n",
            "def neg(x):\n    \"\"\"Minus x.\"\"\"\n    return -x\n",
        ),
        task(
            "t-none",
            "r-none",
            "half",
            "def half(x):\n    \"\"\"Half of x.\"\"\"\n",
            "def half(x):\n    \"\"\"Half of x.\"\"\"\n    return x / 2\n",
        ),
    ]
}

fn int(i: i64) -> String {
    format!(r#"{{"t":"int","v":"{i}"}}"#)
}

pub fn test_cases() -> Vec<TestCase> {
    let word_dict = |pairs: &[(&str, i64)]| {
        let items: Vec<String> = pairs
            .iter()
            .map(|(w, n)| format!(r#"[{{"t":"str","v":"{w}"}},{}]"#, int(*n)))
            .collect();
        format!(r#"{{"t":"dict","v":[{}]}}"#, items.join(","))
    };
    vec![
        case("t-clamp", 0, "[5, 0, 3]", "{}", Ok(("3", &int(3)))),
        case(
            "t-clamp",
            1,
            "[1.5, 0.0, 1.0]",
            "{}",
            Ok(("1.0", r#"{"t":"float","v":1.0}"#)),
        ),
        case("t-clamp", 2, "[0, 2, 1]", "{}", Err("ValueError")),
        case(
            "t-clamp",
            3,
            "[float('nan'), 0.0, 1.0]",
            "{}",
            Ok(("0.0", r#"{"t":"float","v":0.0}"#)),
        ),
        case(
            "t-clamp",
            4,
            "[-0.25, -1.0, 1.0]",
            "{}",
            Ok(("-0.25", r#"{"t":"float","v":-0.25}"#)),
        ),
        case("t-invalid", 0, "[1]", "{}", Ok(("2", &int(2)))),
        case(
            "t-words",
            0,
            "['The cat the end']",
            "{}",
            Ok((
                "{'the': 2, 'cat': 1, 'end': 1}",
                &word_dict(&[("the", 2), ("cat", 1), ("end", 1)]),
            )),
        ),
        case(
            "t-words",
            1,
            "['The cat the end']",
            "{'lower': False}",
            Ok((
                "{'The': 1, 'cat': 1, 'the': 1, 'end': 1}",
                &word_dict(&[("The", 1), ("cat", 1), ("the", 1), ("end", 1)]),
            )),
        ),
        case(
            "t-words",
            2,
            "['']",
            "{}",
            Ok(("{}", r#"{"t":"dict","v":[]}"#)),
        ),
        case(
            "t-pairs",
            0,
            "[[1, 2, 3]]",
            "{}",
            Ok((
                "[(1, 2), (2, 3)]",
                &format!(
                    r#"{{"t":"list","v":[{{"t":"tuple","v":[{},{}]}},{{"t":"tuple","v":[{},{}]}}]}}"#,
                    int(1),
                    int(2),
                    int(2),
                    int(3)
                ),
            )),
        ),
        case(
            "t-pairs",
            1,
            "[[]]",
            "{}",
            Ok(("[]", r#"{"t":"list","v":[]}"#)),
        ),
        case(
            "t-pairs",
            2,
            "['abc']",
            "{}",
            Ok((
                "[('a', 'b'), ('b', 'c')]",
                r#"{"t":"list","v":[{"t":"tuple","v":[{"t":"str","v":"a"},{"t":"str","v":"b"}]},{"t":"tuple","v":[{"t":"str","v":"b"},{"t":"str","v":"c"}]}]}"#,
            )),
        ),
        case("t-novalidation", 0, "[1]", "{}", Ok(("2", &int(2)))),
        case("t-gpl", 0, "[1]", "{}", Ok(("-1", &int(-1)))),
        case(
            "t-none",
            0,
            "[1]",
            "{}",
            Ok(("0.5", r#"{"t":"float","v":0.5}"#)),
        ),
    ]
}

pub fn repos() -> Vec<Repo> {
    vec![
        repo("r-mit", "mitpkg", "1.2.0", Some("MIT")),
        repo("r-gpl", "gplpkg", "0.3.0", Some("GPL-3.0-only")),
        repo("r-none", "nolic", "2.0.0", None),
        repo("r-idle", "idlepkg", "0.1.0", Some("MIT")),
    ]
}

pub fn validations() -> Vec<Validation> {
    vec![
        validation("t-clamp", true),
        validation("t-invalid", false),
        validation("t-words", true),
        validation("t-pairs", true),
        validation("t-gpl", true),
        validation("t-none", true),
    ]
}

fn slice(task: &str) -> Slice {
    Slice {
        esv: Some(3),
        mcl: Some(5),
        dfi: Some(2),
        ..examples::slice(task, Family::Function)
    }
}

/// Writes the dataset into `dir`; without validations when `validated` is false.
pub fn write_dataset(dir: &Path, validated: bool) {
    schemas::write_table(dir, &repos()).unwrap();
    schemas::write_table(dir, &function_tasks()).unwrap();
    schemas::write_table(dir, &test_cases()).unwrap();
    if validated {
        schemas::write_table(dir, &validations()).unwrap();
    }
    schemas::write_table(dir, &[slice("t-clamp"), slice("t-gpl")]).unwrap();
}

/// A commit id that publish must not record: the runtime `FRESHBENCH_COMMIT` of
/// [`publish`] (the build's commit is what counts, recorded at build time).
pub const RUNTIME_COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Runs the built `publish` binary in `cwd`, with a [`RUNTIME_COMMIT`] in its environment.
pub fn publish(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_publish"))
        .args(args)
        .current_dir(cwd)
        .env("FRESHBENCH_COMMIT", RUNTIME_COMMIT)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

pub fn show(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A tempdir with the dataset in `data/`, published to `snapshots/freshbench-DATE` with
/// the jsonl export; returns (tempdir, snapshot folder).
pub fn published() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    // publish runs in a git checkout of its own, whose HEAD is not freshbench's build.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(tmp.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let _ = git(&["init", "-q"]) && git(&["commit", "-q", "--allow-empty", "-m", "other"]);
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    write_dataset(&data, true);
    let out = publish(
        tmp.path(),
        &[
            "--data",
            "data",
            "--out",
            "snapshots",
            "--date",
            DATE,
            "--export",
            "jsonl",
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp
        .path()
        .join("snapshots")
        .join(format!("freshbench-{DATE}"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("snapshots/freshbench-{DATE}")
    );
    (tmp, folder)
}

/// A Python interpreter with pyarrow: `$PUBLISH_TEST_PYTHON`, else the project's tools venv
/// (`.tools/venv/bin/python`); `Err` says why there is none.
pub fn tools_python() -> Result<PathBuf, String> {
    let path = match std::env::var_os("PUBLISH_TEST_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python"),
    };
    if !path.exists() {
        return Err(format!(
            "{} does not exist (run `make setup`, or set PUBLISH_TEST_PYTHON)",
            path.display()
        ));
    }
    let ok = Command::new(&path)
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        return Err(format!("{} has no pyarrow", path.display()));
    }
    Ok(path)
}

/// A `files` row of repository `repo` holding `content`, hashed as crawl hashes it.
pub fn file(repo: &str, path: &str, content: &str) -> schemas::File {
    use sha2::{Digest, Sha256};
    schemas::File {
        repo_id: repo.into(),
        path: path.into(),
        kind: if path.starts_with("tests/") {
            schemas::FileKind::Test
        } else {
            schemas::FileKind::Source
        },
        sha256: hex::encode(Sha256::digest(content.as_bytes())),
        size: content.len() as i64,
        content: Some(content.into()),
        bytes: None,
        status: schemas::FileStatus::Ok,
        reason: None,
        changed_lines: None,
        line_dates: None,
    }
}

/// The completion tasks: of the MIT repository `c-expr` (an expression, code of
/// 2026-09-10 from its history), `c-block` (a block, dated only by its release) and
/// `c-invalid` (not valid); of the GPL one `c-gpl` (valid, left out for its license).
pub const COMPLETION_PUBLISHED: [&str; 2] = ["c-expr", "c-block"];

/// Adds completion tasks, their validations and the repositories' files to the dataset
/// of [`write_dataset`] in `dir`.
pub fn write_completion(dir: &Path) {
    use schemas::{CompletionTask, SpanKind};
    let task = |id: &str, repo: &str, kind: SpanKind, date: Option<(&str, CodeDateSource)>| {
        CompletionTask {
            span_kind: kind,
            code_date: date.and_then(|(d, _)| Timestamp::parse(d)),
            code_date_source: date.map(|(_, s)| s),
            context: vec![schemas::ContextSnippet {
                path: "pkg/util.py".into(),
                text: "def helper():\n    return 0\n".into(),
                score: 0.5,
            }],
            ..examples::completion_task(id, repo)
        }
    };
    let tasks = vec![
        task(
            "c-expr",
            "r-mit",
            SpanKind::Expression,
            Some(("2026-09-10", CodeDateSource::ReleaseHistory)),
        ),
        task(
            "c-block",
            "r-mit",
            SpanKind::Block,
            Some(("2026-10-01", CodeDateSource::ReleaseDate)),
        ),
        task("c-invalid", "r-mit", SpanKind::Statement, None),
        task(
            "c-gpl",
            "r-gpl",
            SpanKind::Function,
            Some(("2026-09-10", CodeDateSource::GitHistory)),
        ),
    ];
    schemas::write_table(dir, &tasks).unwrap();
    let mut validations: Vec<Validation> = schemas::read_table(dir).unwrap();
    for (id, valid) in [
        ("c-expr", true),
        ("c-block", true),
        ("c-invalid", false),
        ("c-gpl", true),
    ] {
        validations.push(Validation {
            family: Family::Completion,
            mutants_total: Some(4),
            mutants_killed: Some(3),
            ..validation(id, valid)
        });
    }
    schemas::write_table(dir, &validations).unwrap();
    let files = vec![
        file("r-mit", "pkg/mod.py", "def add(a, b):\n    return a + b\n"),
        file("r-gpl", "gpl/mod.py", "x = 1\n"),
        file(
            "r-mit",
            "tests/test_mod.py",
            "from pkg.mod import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        ),
        file("r-mit", "pkg/util.py", "def helper():\n    return 0\n"),
        file("r-idle", "idle.py", ""),
    ];
    schemas::write_table(dir, &files).unwrap();
}

/// An assertion task `id` of the assertion `group` of repository `repo`, in `form` (value
/// unless `verify`), on the original program or on mutant `mutant`, its code dated `date`.
pub fn assertion_task(
    id: &str,
    group: &str,
    repo: &str,
    verify: bool,
    mutant: Option<&str>,
    date: Option<(&str, CodeDateSource)>,
) -> schemas::AssertionTask {
    use schemas::{AssertionForm, AssertionKind, ContextSnippet};
    let value = if mutant.is_some() { "-1" } else { "3" };
    let shown = if verify { "3" } else { "??" };
    schemas::AssertionTask {
        task_id: id.into(),
        group_id: group.into(),
        repo_id: repo.into(),
        test_node_id: "tests/test_mod.py::test_add".into(),
        path: "tests/test_mod.py".into(),
        line: 4,
        start_byte: 45,
        end_byte: 66,
        kind: AssertionKind::Equal,
        form: if verify {
            AssertionForm::Verify
        } else {
            AssertionForm::Value
        },
        subject: "add(1, 2)".into(),
        test_source: format!(
            "from pkg.mod import add\n\ndef test_add():\n    assert add(1, 2) == {shown}\n"
        ),
        masked_assertion: format!("assert add(1, 2) == {shown}"),
        code_context: vec![ContextSnippet {
            path: "pkg/mod.py".into(),
            text: if mutant.is_some() {
                "def add(a, b):\n    return a - b\n".into()
            } else {
                "def add(a, b):\n    return a + b\n".into()
            },
            score: 1.0,
        }],
        context_tokens: 9,
        context_budget: 2000,
        mutated: mutant.is_some(),
        mutant_id: mutant.map(str::to_string),
        mutated_path: mutant.map(|_| "pkg/mod.py".to_string()),
        mutated_text: mutant.map(|_| "def add(a, b):\n    return a - b\n".to_string()),
        mutation: mutant.map(|_| "pkg/mod.py:2: a + b -> a - b".to_string()),
        value_json: format!("{{\"t\": \"int\", \"v\": \"{value}\"}}"),
        value_python: value.into(),
        original_json: "{\"t\": \"int\", \"v\": \"3\"}".into(),
        claim: verify.then(|| "3".to_string()),
        answer: match (verify, mutant.is_some()) {
            (true, false) => "True".into(),
            (true, true) => "False".into(),
            (false, _) => value.into(),
        },
        tests_seconds: 0.1,
        record_seconds: 0.0,
        code_date: date.and_then(|(d, _)| Timestamp::parse(d)),
        code_date_source: date.map(|(_, s)| s),
        after_cutoff: None,
    }
}

/// The assertion tasks: of the MIT repository, assertion `g-add` with `a-o` (the original,
/// value form), `a-m1` (a variant, value form), `a-m2` (a variant, not valid), `a-vo` and
/// `a-vm` (the original and a variant in the verify form; `a-vm`'s code dated only by its
/// release); of the GPL one `a-gpl` (valid, left out for its license).
pub const ASSERTION_PUBLISHED: [&str; 4] = ["a-o", "a-m1", "a-vo", "a-vm"];

/// Adds the assertion tasks, their validations and the MIT repository's files (unless
/// already there) to the dataset of [`write_dataset`] in `dir`.
pub fn write_assertion(dir: &Path) {
    let history = Some(("2026-09-10", CodeDateSource::ReleaseHistory));
    let tasks = vec![
        assertion_task("a-o", "g-add", "r-mit", false, None, history),
        assertion_task("a-m1", "g-add", "r-mit", false, Some("m1"), history),
        assertion_task("a-m2", "g-add", "r-mit", false, Some("m2"), history),
        assertion_task("a-vo", "g-add", "r-mit", true, None, history),
        assertion_task(
            "a-vm",
            "g-add",
            "r-mit",
            true,
            Some("m1"),
            Some(("2026-10-01", CodeDateSource::ReleaseDate)),
        ),
        assertion_task("a-gpl", "g-gpl", "r-gpl", false, None, history),
    ];
    schemas::write_table(dir, &tasks).unwrap();
    let mut validations: Vec<Validation> = schemas::read_table(dir).unwrap();
    for t in &tasks {
        validations.push(Validation {
            family: Family::Assertion,
            ..validation(&t.task_id, t.task_id != "a-m2")
        });
    }
    schemas::write_table(dir, &validations).unwrap();
    let mut files: Vec<schemas::File> = if schemas::table_exists::<schemas::File>(dir) {
        schemas::read_table(dir).unwrap()
    } else {
        Vec::new()
    };
    for f in [
        file("r-mit", "pkg/mod.py", "def add(a, b):\n    return a + b\n"),
        file(
            "r-mit",
            "tests/test_mod.py",
            "from pkg.mod import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        ),
        file("r-gpl", "gpl/mod.py", "x = 1\n"),
    ] {
        if !files
            .iter()
            .any(|g| g.repo_id == f.repo_id && g.path == f.path)
        {
            files.push(f);
        }
    }
    schemas::write_table(dir, &files).unwrap();
}
