//! Runs the `resolve` binary on a small dataset written with the table contract and checks
//! the three tables it writes and its exit codes.

use std::path::Path;
use std::process::{Command, Output};

use schemas::{
    examples, CodeDateSource, File, Function, HistoryFile, Module, Reference, Repo, RepoStatus,
    Snapshot, SnapshotRole, SourceKind, Timestamp,
};

fn repo(id: &str, cutoff: Option<&str>, published: Option<&str>) -> Repo {
    Repo {
        published_at: published.and_then(Timestamp::parse),
        cutoff: cutoff.and_then(Timestamp::parse),
        ..examples::repo(id, id)
    }
}

fn file(repo_id: &str, path: &str, kind: &str, content: Option<&str>) -> File {
    File {
        repo_id: repo_id.into(),
        path: path.into(),
        kind: kind.parse().unwrap(),
        sha256: schemas::id::sha256_hex(content.unwrap_or("").as_bytes()),
        size: content.map_or(0, |c| c.len() as i64),
        content: content.map(str::to_string),
        status: (if content.is_some() { "ok" } else { "skipped" })
            .parse()
            .unwrap(),
        reason: content.is_none().then(|| "not UTF-8".to_string()),
        changed_lines: None,
        line_dates: None,
        bytes: None,
    }
}

fn dataset(dir: &Path) {
    let repos = vec![
        Repo {
            source: SourceKind::Pypi,
            version: Some("2.0".into()),
            ..repo("r-ledger", Some("2024-01-01"), Some("2024-06-01"))
        },
        repo("r-tiny", None, None),
    ];
    let service = file(
        "r-ledger",
        "src/ledger/service.py",
        "source",
        Some("import os\nfrom .accounts import Account\n\n\ndef open_account(name):\n    \"\"\"Open one.\"\"\"\n    return Account(name, os.getcwd())\n\n\ndef unchanged():\n    return len([])\n"),
    );
    // The release before the cutoff: `unchanged` only reformatted, `open_account`
    // different, `accounts.py` the same file, the test not there yet.
    let snapshot = Snapshot {
        repo_id: "r-ledger".into(),
        version: "1.0".into(),
        role: SnapshotRole::Baseline,
        published_at: Timestamp::parse("2023-06-01"),
        artifact: Some(schemas::Artifact::Sdist),
        url: None,
        sha256: None,
        status: RepoStatus::Ok,
        reason: None,
        files: 2,
        files_differing: 1,
    };
    let history = vec![
        HistoryFile {
            repo_id: "r-ledger".into(),
            version: "1.0".into(),
            path: "src/ledger/accounts.py".into(),
            sha256: "same".into(),
            content: None,
            reason: None,
        },
        HistoryFile {
            repo_id: "r-ledger".into(),
            version: "1.0".into(),
            path: "src/ledger/service.py".into(),
            sha256: "old".into(),
            content: Some("def open_account(name):\n    return name\n\ndef unchanged( ):\n    return len( [ ] )  # the same code\n".into()),
            reason: None,
        },
    ];
    schemas::write_table(dir, &[snapshot]).unwrap();
    schemas::write_table(dir, &history).unwrap();
    let files = vec![
        file("r-tiny", "tiny.py", "source", Some("def f(:\n    pass\n\ndef g():\n    return h()\n")),
        file("r-ledger", "src/ledger/__init__.py", "source", Some("from .service import open_account\n")),
        file("r-ledger", "src/ledger/accounts.py", "source", Some("class Account:\n    def __init__(self, name, cwd):\n        self.name = name\n")),
        service,
        file("r-ledger", "tests/test_service.py", "test", Some("from ledger import open_account\n\ndef test_open():\n    assert open_account('a')\n")),
        file("r-ledger", "pyproject.toml", "dependency", Some("[project]\nname = 'ledger'\n")),
        file("r-ledger", "src/ledger/binary.py", "source", None),
    ];
    schemas::write_table(dir, &repos).unwrap();
    schemas::write_table(dir, &files).unwrap();
}

fn run(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_resolve"))
        .arg("--data")
        .arg(dir)
        .arg("-q")
        .arg("--jobs")
        .arg("2")
        .output()
        .unwrap()
}

#[test]
fn writes_modules_functions_and_references() {
    let tmp = tempfile::tempdir().unwrap();
    dataset(tmp.path());
    let out = run(tmp.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("files parsed:       5 (1 with syntax errors)"),
        "{stdout}"
    );

    let modules: Vec<Module> = schemas::read_table(tmp.path()).unwrap();
    let names: Vec<_> = modules
        .iter()
        .map(|m| {
            (
                m.repo_id.as_str(),
                m.path.as_str(),
                m.module.as_str(),
                m.parse_status.as_str(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("r-ledger", "src/ledger/__init__.py", "ledger", "ok"),
            (
                "r-ledger",
                "src/ledger/accounts.py",
                "ledger.accounts",
                "ok"
            ),
            ("r-ledger", "src/ledger/service.py", "ledger.service", "ok"),
            (
                "r-ledger",
                "tests/test_service.py",
                "tests.test_service",
                "ok"
            ),
            ("r-tiny", "tiny.py", "tiny", "syntax_error"),
        ]
    );
    assert!(modules[0].is_package);
    assert!(!modules[4].errors.is_empty());

    let functions: Vec<Function> = schemas::read_table(tmp.path()).unwrap();
    let quals: Vec<_> = functions
        .iter()
        .map(|f| (f.path.as_str(), f.qualname.as_str()))
        .collect();
    assert_eq!(
        quals,
        [
            ("src/ledger/accounts.py", "Account.__init__"),
            ("src/ledger/service.py", "open_account"),
            ("src/ledger/service.py", "unchanged"),
            ("tests/test_service.py", "test_open"),
            ("tiny.py", "f"),
            ("tiny.py", "g"),
        ]
    );
    let open = &functions[1];
    assert_eq!(open.docstring.as_deref(), Some("Open one."));
    assert_eq!(
        open.source,
        "def open_account(name):\n    \"\"\"Open one.\"\"\"\n    return Account(name, os.getcwd())"
    );
    assert_eq!(open.function_id.len(), 32);
    // Dated by its code against the release before the cutoff, not by the release.
    let dated = |f: &Function| {
        (
            f.after_cutoff,
            f.code_date.map(Timestamp::date_string),
            f.first_seen.clone(),
            f.code_date_source,
        )
    };
    let history = Some(CodeDateSource::ReleaseHistory);
    let old = (
        Some(false),
        Some("2023-06-01".into()),
        Some("1.0".into()),
        history,
    );
    let new = (Some(true), Some("2024-06-01".into()), None, history);
    assert_eq!(
        dated(&functions[0]),
        old,
        "in a file identical to the baseline's"
    );
    assert_eq!(dated(open), new, "its code changed after the cutoff");
    assert_eq!(dated(&functions[2]), old, "only reformatted");
    assert_eq!(dated(&functions[3]), new, "a new file");
    assert_eq!(functions[4].after_cutoff, None, "no cutoff");
    assert_eq!(functions[4].code_date, None, "no date at all");
    assert!(functions[4].has_syntax_error && !functions[5].has_syntax_error);

    let refs: Vec<Reference> = schemas::read_table(tmp.path()).unwrap();
    let rows: Vec<_> = refs
        .iter()
        .map(|r| {
            let f = functions
                .iter()
                .find(|f| f.function_id == r.function_id)
                .unwrap();
            (
                f.qualname.as_str(),
                r.chain.as_str(),
                r.kind.as_str(),
                r.target.as_deref(),
                r.target_path.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "open_account",
                "Account",
                "internal",
                Some("ledger.accounts.Account"),
                Some("src/ledger/accounts.py")
            ),
            (
                "open_account",
                "os.getcwd",
                "stdlib",
                Some("os.getcwd"),
                None
            ),
            ("unchanged", "len", "builtin", Some("builtins.len"), None),
            (
                "test_open",
                "open_account",
                "internal",
                Some("ledger.service.open_account"),
                Some("src/ledger/service.py")
            ),
            ("g", "h", "unresolved", None, None),
        ]
    );
    assert!(refs[0].is_call && refs[0].count == 1 && refs[0].line == 7);

    // Same input, same tables.
    let again = run(tmp.path());
    assert_eq!(again.status.code(), Some(0));
    let refs_again: Vec<Reference> = schemas::read_table(tmp.path()).unwrap();
    let functions_again: Vec<Function> = schemas::read_table(tmp.path()).unwrap();
    assert_eq!(refs, refs_again);
    assert_eq!(functions, functions_again);
}

#[test]
fn a_corrupt_input_table_is_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    dataset(tmp.path());
    std::fs::write(tmp.path().join("files.parquet"), b"not parquet at all").unwrap();
    let out = run(tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("files.parquet"), "{stderr}");
    assert!(!tmp.path().join("functions.parquet").exists());
}

#[test]
fn a_missing_input_table_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("repos.parquet") && stderr.contains("crawl"),
        "{stderr}"
    );
}

/// Regression: two identical definitions with the same qualname in one file (one under
/// `if`, one under `else`, as 38 pairs of the standard library are) got the same
/// `function_id`, so their reference rows collided.
#[test]
fn identical_definitions_get_distinct_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let src = "import sys\nif sys.platform == 'win32':\n    def f(x):\n        return len(x)\nelse:\n    def f(x):\n        return len(x)\n";
    schemas::write_table(tmp.path(), &[repo("r", None, None)]).unwrap();
    schemas::write_table(tmp.path(), &[file("r", "m.py", "source", Some(src))]).unwrap();
    assert_eq!(run(tmp.path()).status.code(), Some(0));
    let functions: Vec<Function> = schemas::read_table(tmp.path()).unwrap();
    assert_eq!(functions.len(), 2);
    assert_ne!(functions[0].function_id, functions[1].function_id);
    let refs: Vec<Reference> = schemas::read_table(tmp.path()).unwrap();
    let mut ids: Vec<_> = refs.iter().map(|r| (&r.function_id, &r.chain)).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), refs.len(), "one row per (function, chain)");
}

/// Regression: `__class__` in a method (the implicit cell of `super()`) was the only
/// unresolved name left on the real corpus.
#[test]
fn class_cell_resolves_to_the_enclosing_class() {
    let tmp = tempfile::tempdir().unwrap();
    let src = "class Base:\n    def name(self):\n        return __class__.__name__\n";
    schemas::write_table(tmp.path(), &[repo("r", None, None)]).unwrap();
    schemas::write_table(tmp.path(), &[file("r", "pkg/m.py", "source", Some(src))]).unwrap();
    assert_eq!(run(tmp.path()).status.code(), Some(0));
    let refs: Vec<Reference> = schemas::read_table(tmp.path()).unwrap();
    let r = refs
        .iter()
        .find(|r| r.name == "__class__")
        .expect("a __class__ reference");
    assert_eq!(
        (
            r.kind.as_str(),
            r.target.as_deref(),
            r.target_type.map(schemas::TargetType::as_str)
        ),
        ("internal", Some("pkg.m.Base.__name__"), Some("class"))
    );
}
