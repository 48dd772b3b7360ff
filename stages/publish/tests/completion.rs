//! The built `publish` binary on a dataset with completion tasks: what is published of
//! them (tasks, validations, the repositories' files and their hash), the card, the
//! JSON-lines export, the cutoff, and `--verify` over the repositories' files.

mod common;

use std::path::{Path, PathBuf};

use common::{publish, s, show, write_completion, write_dataset, COMPLETION_PUBLISHED, DATE};
use schemas::{CompletionTask, File, FunctionTask, Table, Validation};
use sha2::{Digest, Sha256};

fn manifest(folder: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap()).unwrap()
}

fn read<T: Table>(folder: &Path) -> Vec<T> {
    schemas::read_table_from(&folder.join("data").join(format!("{}.parquet", T::NAME))).unwrap()
}

/// The dataset with completion tasks in a tempdir, published with `extra` options to
/// `snap/freshbench-DATE`.
fn published(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_completion(tmp.path());
    let mut args = vec!["--data", ".", "--out", "snap", "--date", DATE, "-q"];
    args.extend_from_slice(extra);
    let out = publish(tmp.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    (tmp, folder)
}

fn source<'a>(m: &'a serde_json::Value, repo_id: &str) -> &'a serde_json::Value {
    m["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["repo_id"] == repo_id)
        .unwrap_or_else(|| panic!("source {repo_id} in {m:#}"))
}

#[test]
fn completion_tasks_are_published_with_their_repository() {
    let (tmp, folder) = published(&["--export", "jsonl"]);

    let tasks: Vec<CompletionTask> = read(&folder);
    let ids: Vec<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(
        ids, COMPLETION_PUBLISHED,
        "valid tasks of the MIT repository"
    );
    let validations: Vec<Validation> = read(&folder);
    assert!(validations
        .iter()
        .any(|v| v.task_id == "c-expr" && v.family == schemas::Family::Completion));
    assert!(!validations.iter().any(|v| v.task_id == "c-gpl"));
    // The function tasks are published as before, beside them.
    assert_eq!(read::<FunctionTask>(&folder).len(), 3);

    // Every file of the repository of the published completion tasks, and no other's.
    let files: Vec<File> = read(&folder);
    let paths: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.repo_id.as_str(), f.path.as_str()))
        .collect();
    assert_eq!(
        paths,
        [
            ("r-mit", "pkg/mod.py"),
            ("r-mit", "tests/test_mod.py"),
            ("r-mit", "pkg/util.py")
        ]
    );

    let m = manifest(&folder);
    assert_eq!(m["tables"]["completion_tasks"]["rows"], 2);
    assert_eq!(m["tables"]["files"]["rows"], 3);
    let src = source(&m, "r-mit");
    assert_eq!(src["spec"], "pypi:mitpkg==1.2.0");
    assert_eq!(src["files"], 3);
    // The files hash, computed here as the card tells a reader to.
    let mut listing: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.path.clone(), f.sha256.clone()))
        .collect();
    listing.sort();
    let text: String = listing
        .iter()
        .flat_map(|(p, h)| [p.as_str(), "\t", h.as_str(), "\n"])
        .collect();
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    assert_eq!(src["files_sha256"], hash.as_str());
    // 3 function tasks and 2 completion tasks from it.
    assert_eq!(src["tasks"], 5);
    assert_eq!(
        m["families"],
        serde_json::json!({
            "completion": {"tasks": 2, "by_level": {"block": 1, "expression": 1}},
            "function": {"tasks": 3, "by_level": {}},
        })
    );
    assert_eq!(m["selection"]["tasks_published"], 5);
    assert_eq!(m["selection"]["tasks_excluded_by_license"], 3);

    // The export: one line per published completion task, with its repository and judges.
    let jsonl = std::fs::read_to_string(folder.join("completion_tasks.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["task_id"], "freshbench/c-expr");
    assert_eq!(rows[0]["span_kind"], "expression");
    assert_eq!(rows[1]["span_kind"], "block");
    assert_eq!(rows[0]["repo"]["files_sha256"], hash.as_str());
    assert_eq!(
        rows[0]["repo"]["url"],
        "https://example.invalid/mitpkg-1.2.0.tar.gz"
    );
    assert_eq!(
        rows[0]["tests"],
        serde_json::json!(["tests/test_mod.py::test_add"])
    );
    assert_eq!(rows[0]["reference"], "a + b");
    assert_eq!(rows[0]["context"][0]["path"], "pkg/util.py");
    assert_eq!(rows[0]["code_date"], "2026-09-10T00:00:00Z");
    let export = &m["exports"]["completion_tasks.jsonl"];
    assert_eq!(
        (&export["format"], &export["tasks"], &export["cases"]),
        (
            &serde_json::json!("freshbench-completion"),
            &serde_json::json!(2),
            &serde_json::json!(2)
        )
    );
    // The HumanEval export is still the function tasks'.
    assert_eq!(m["exports"]["function_tasks.jsonl"]["tasks"], 3);

    // The card: the family and its levels, how it is judged, the files and their hash.
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(
        card.contains("| `completion` | 2 | expression 1, block 1 |"),
        "{card}"
    );
    assert!(card.contains("| `function` | 3 |  |"), "{card}");
    assert!(card.contains("## How a completion task is judged"));
    assert!(card.contains("- config_name: completion_tasks\n"));
    assert!(card.contains("- config_name: files\n"));
    assert!(card.contains(&format!(
        "| mitpkg | 1.2.0 | `pypi:mitpkg==1.2.0` | 3 | `{hash}` |"
    )));
    assert!(card.contains("The repositories' files are in `data/files.parquet` (3 rows)"));
    assert!(card.contains("### `completion_tasks`") && card.contains("### `files`"));
    assert!(card.contains(
        "| (no config) | `completion_tasks.jsonl` | 2 | a completion task with its repository"
    ));
    assert!(card.contains("## HumanEval-shaped export\n\n`function_tasks.jsonl`"));

    // Verify checks the new files too.
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let hashed = m["files"].as_object().unwrap();
    for f in [
        "completion_tasks.jsonl",
        "data/completion_tasks.parquet",
        "data/files.parquet",
    ] {
        assert!(hashed.contains_key(f), "{f}");
    }
}

/// A files table whose rows were changed (its file hash updated in the manifest, so only
/// the repositories' hash can tell) fails `--verify`, naming the repository.
#[test]
fn verify_checks_the_repositories_files() {
    let (tmp, folder) = published(&[]);
    let path = folder.join("data/files.parquet");
    let mut files: Vec<File> = read(&folder);
    files[0].content = Some("def add(a, b):\n    return a - b\n".into());
    schemas::write_table_to(&path, &files).unwrap();
    let mut m = manifest(&folder);
    let bytes = std::fs::read(&path).unwrap();
    m["files"]["data/files.parquet"] = serde_json::json!({
        "sha256": hex::encode(Sha256::digest(&bytes)), "bytes": bytes.len()
    });
    std::fs::write(folder.join("manifest.json"), m.to_string()).unwrap();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(
            "MISMATCH data/files.parquet: 1 file row(s) whose text does not hash to their \
             sha256 (first: pkg/mod.py of r-mit)"
        ),
        "{report}"
    );

    // A file row dropped: the repository's hash and count differ.
    files.remove(0);
    schemas::write_table_to(&path, &files).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    m["files"]["data/files.parquet"] = serde_json::json!({
        "sha256": hex::encode(Sha256::digest(&bytes)), "bytes": bytes.len()
    });
    m["tables"]["files"]["rows"] = serde_json::json!(2);
    std::fs::write(folder.join("manifest.json"), m.to_string()).unwrap();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("the files of repository mitpkg (r-mit) hash to"),
        "{report}"
    );
    assert!(
        report.contains("2 files of repository mitpkg (r-mit) but the manifest says 3"),
        "{report}"
    );
}

#[test]
fn completion_tasks_follow_the_cutoff() {
    // c-block's code date is only its release's: old unless --include-old.
    let (_tmp, folder) = published(&["--cutoff", "2026-08-15"]);
    let tasks: Vec<CompletionTask> = read(&folder);
    let got: Vec<(&str, Option<bool>)> = tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.after_cutoff))
        .collect();
    assert_eq!(got, [("c-expr", Some(true))]);
    let m = manifest(&folder);
    // Old: t-words, t-pairs, t-novalidation's... (3 function tasks) and c-block.
    assert_eq!(m["selection"]["tasks_old"], 4);
    assert_eq!(
        m["families"]["completion"],
        serde_json::json!({"tasks": 1, "by_level": {"expression": 1}})
    );

    let (_tmp, folder) = published(&["--cutoff", "2026-08-15", "--include-old"]);
    let tasks: Vec<CompletionTask> = read(&folder);
    let got: Vec<(&str, Option<bool>)> = tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.after_cutoff))
        .collect();
    assert_eq!(got, [("c-expr", Some(true)), ("c-block", Some(false))]);
}

#[test]
fn without_repository_files_the_manifest_keeps_their_hash() {
    let (tmp, folder) = published(&["--no-repo-files"]);
    assert!(!folder.join("data/files.parquet").exists());
    let m = manifest(&folder);
    assert!(m["tables"].get("files").is_none());
    let src = source(&m, "r-mit");
    assert_eq!(src["files"], 3);
    assert_eq!(src["files_sha256"].as_str().unwrap().len(), 64);
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(card.contains("made with `--no-repo-files`"), "{card}");
    assert!(!card.contains("- config_name: files\n"));
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn completion_tasks_without_files_is_an_error_that_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_completion(tmp.path());
    std::fs::remove_file(tmp.path().join("files.parquet")).unwrap();
    let out = publish(
        tmp.path(),
        &["--data", ".", "--out", "snap", "--date", DATE],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("files.parquet: no files") && err.contains("crawl"),
        "{err}"
    );
    assert!(!tmp
        .path()
        .join("snap")
        .join(format!("freshbench-{DATE}"))
        .exists());
}

/// A dataset without completion tasks (made before mask) publishes as before: no
/// completion table, no files, no completion export, the card without the family.
#[test]
fn without_completion_tasks_nothing_of_them_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    // A files table alone does not bring the repositories' files in.
    schemas::write_table(
        tmp.path(),
        &[common::file("r-mit", "pkg/mod.py", "x = 1\n")],
    )
    .unwrap();
    let out = publish(
        tmp.path(),
        &[
            "--data", ".", "--out", "snap", "--date", DATE, "--export", "jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    for absent in [
        "data/completion_tasks.parquet",
        "data/files.parquet",
        "completion_tasks.jsonl",
    ] {
        assert!(!folder.join(absent).exists(), "{absent}");
    }
    let m = manifest(&folder);
    assert_eq!(
        m["families"],
        serde_json::json!({"function": {"tasks": 3, "by_level": {}}})
    );
    assert!(m["sources"][0]["files_sha256"].is_null());
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(!card.contains("completion task is judged") && !card.contains("| `completion` |"));
    assert!(card.contains("| `function` | 3 |  |"), "{card}");
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}
