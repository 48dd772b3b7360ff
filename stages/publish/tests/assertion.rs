//! The built `publish` binary on a dataset with assertion tasks: what is published of them
//! (tasks, validations, their repository's files), the manifest's figures per form and
//! program, the card, the JSON-lines export, the cutoff, and `--verify` over the export.

mod common;

use std::path::{Path, PathBuf};

use common::{
    publish, s, show, write_assertion, write_completion, write_dataset, ASSERTION_PUBLISHED, DATE,
};
use schemas::{AssertionTask, File, FunctionTask, Table, Validation};
use sha2::{Digest, Sha256};

fn manifest(folder: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap()).unwrap()
}

fn read<T: Table>(folder: &Path) -> Vec<T> {
    schemas::read_table_from(&folder.join("data").join(format!("{}.parquet", T::NAME))).unwrap()
}

/// The dataset with assertion tasks in a tempdir, published with `extra` options to
/// `snap/freshbench-DATE`.
fn published(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_assertion(tmp.path());
    let mut args = vec!["--data", ".", "--out", "snap", "--date", DATE, "-q"];
    args.extend_from_slice(extra);
    let out = publish(tmp.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    (tmp, folder)
}

fn ids(tasks: &[AssertionTask]) -> Vec<(&str, Option<bool>)> {
    tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.after_cutoff))
        .collect()
}

#[test]
fn assertion_tasks_are_published_with_their_repository() {
    let (tmp, folder) = published(&["--export", "jsonl"]);

    let tasks: Vec<AssertionTask> = read(&folder);
    let got: Vec<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(
        got, ASSERTION_PUBLISHED,
        "valid tasks of the MIT repository"
    );
    // Rows as mask wrote them: the variant keeps its program.
    let variant = tasks.iter().find(|t| t.task_id == "a-m1").unwrap();
    assert!(variant.mutated && variant.mutant_id.as_deref() == Some("m1"));
    assert_eq!(
        variant.mutated_text.as_deref(),
        Some("def add(a, b):\n    return a - b\n")
    );
    let validations: Vec<Validation> = read(&folder);
    assert!(validations
        .iter()
        .any(|v| v.task_id == "a-o" && v.family == schemas::Family::Assertion));
    assert!(!validations
        .iter()
        .any(|v| v.task_id == "a-gpl" || v.task_id == "a-m2"));
    assert_eq!(read::<FunctionTask>(&folder).len(), 3);

    // The MIT repository's files, which the tests run in; not the GPL one's.
    let files: Vec<File> = read(&folder);
    let paths: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.repo_id.as_str(), f.path.as_str()))
        .collect();
    assert_eq!(
        paths,
        [("r-mit", "pkg/mod.py"), ("r-mit", "tests/test_mod.py")]
    );
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

    let m = manifest(&folder);
    assert_eq!(m["tables"]["assertion_tasks"]["rows"], 4);
    assert_eq!(m["tables"]["files"]["rows"], 2);
    assert_eq!(
        m["families"],
        serde_json::json!({
            "assertion": {
                "tasks": 4,
                "by_level": {},
                "by_form": {"value": 2, "verify": 2},
                "by_program": {"mutated": 2, "original": 2},
                "assertions": 1,
            },
            "function": {"tasks": 3, "by_level": {}},
        })
    );
    let src = m["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["repo_id"] == "r-mit")
        .unwrap();
    assert_eq!(src["files_sha256"], hash.as_str());
    assert_eq!(src["tasks"], 7);
    assert_eq!(m["selection"]["tasks_published"], 7);
    // Left out for its license: t-gpl, t-none (function tasks) and a-gpl.
    assert_eq!(m["selection"]["tasks_excluded_by_license"], 3);

    // The export: one line per published assertion task, with what reruns it.
    let jsonl = std::fs::read_to_string(folder.join("assertion_tasks.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: Vec<&str> = rows
        .iter()
        .map(|r| r["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        [
            "freshbench/a-o",
            "freshbench/a-m1",
            "freshbench/a-vo",
            "freshbench/a-vm"
        ]
    );
    let (o, v) = (&rows[0], &rows[1]);
    for field in [
        "group_id",
        "repo",
        "test_node_id",
        "path",
        "line",
        "kind",
        "form",
        "test_source",
        "masked_assertion",
        "code_context",
        "mutated",
        "mutation",
        "mutated_path",
        "mutated_text",
        "answer",
        "value_json",
    ] {
        assert!(o.get(field).is_some(), "{field} in {o}");
    }
    assert_eq!(o["group_id"], "g-add");
    assert_eq!(o["repo"]["files_sha256"], hash.as_str());
    assert_eq!(o["repo"]["spec"], "pypi:mitpkg==1.2.0");
    assert_eq!(o["test_node_id"], "tests/test_mod.py::test_add");
    assert_eq!(
        (&o["path"], &o["line"]),
        (&"tests/test_mod.py".into(), &4.into())
    );
    assert_eq!((&o["kind"], &o["form"]), (&"equal".into(), &"value".into()));
    assert_eq!(o["masked_assertion"], "assert add(1, 2) == ??");
    assert_eq!(o["code_context"][0]["path"], "pkg/mod.py");
    assert_eq!((&o["mutated"], &o["answer"]), (&false.into(), &"3".into()));
    assert!(o["mutated_text"].is_null());
    assert_eq!(v["mutated"], true);
    assert_eq!(v["mutation"], "pkg/mod.py:2: a + b -> a - b");
    assert_eq!(v["mutated_path"], "pkg/mod.py");
    assert_eq!(v["mutated_text"], "def add(a, b):\n    return a - b\n");
    assert_eq!(v["value_json"], r#"{"t": "int", "v": "-1"}"#);
    assert_eq!(v["original_json"], r#"{"t": "int", "v": "3"}"#);
    assert_eq!(
        (&rows[3]["claim"], &rows[3]["answer"]),
        (&"3".into(), &"False".into())
    );
    let export = &m["exports"]["assertion_tasks.jsonl"];
    assert_eq!(
        (&export["format"], &export["tasks"], &export["cases"]),
        (
            &serde_json::json!("freshbench-assertion"),
            &serde_json::json!(4),
            &serde_json::json!(1)
        )
    );
    // No completion tasks: no completion export.
    assert!(!folder.join("completion_tasks.jsonl").exists());

    // The card: the family by form and program, how it is judged, its table and export.
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(
        card.contains(
            "| `assertion` | 4 | form: value 2, verify 2; program: original 2, mutated 2; \
             1 assertion |"
        ),
        "{card}"
    );
    assert!(card.contains("## How an assertion task is judged"));
    assert!(!card.contains("## How a completion task is judged"));
    assert!(card.contains("## The repositories"));
    assert!(card.contains("The repositories' files are in `data/files.parquet` (2 rows)"));
    assert!(card.contains(&format!(
        "| mitpkg | 1.2.0 | `pypi:mitpkg==1.2.0` | 2 | `{hash}` |"
    )));
    assert!(card.contains("- config_name: assertion_tasks\n"));
    assert!(card.contains(
        "| `assertion_tasks` | `data/assertion_tasks.parquet` | 4 | an assertion task: a real \
         assertion of a repository test with its expected value masked, on the original \
         program or a mutated variant, in the value or verify form |"
    ));
    assert!(card.contains("### `assertion_tasks`") && card.contains("`mutated_text`"));
    assert!(card.contains(
        "| (no config) | `assertion_tasks.jsonl` | 4 | an assertion task with its test, program"
    ));
    assert!(card.contains(
        "`assertion_tasks.jsonl` has one JSON object per assertion task (4 tasks of 1 assertion)"
    ));
    assert!(card.contains("\"assertion_tasks\", split=\"test\")"));

    // Verify checks the new files too.
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let hashed = m["files"].as_object().unwrap();
    for f in [
        "assertion_tasks.jsonl",
        "data/assertion_tasks.parquet",
        "data/files.parquet",
    ] {
        assert!(hashed.contains_key(f), "{f}");
    }
}

/// An export that was changed fails `--verify`: by its hash, and by its line count when
/// the manifest's hash was changed with it.
#[test]
fn verify_checks_the_assertion_export() {
    let (tmp, folder) = published(&["--export", "jsonl"]);
    let path = folder.join("assertion_tasks.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let shorter: String = text.lines().skip(1).flat_map(|l| [l, "\n"]).collect();
    std::fs::write(&path, &shorter).unwrap();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("MISMATCH assertion_tasks.jsonl: sha256"),
        "{report}"
    );
    assert!(
        report.contains("MISMATCH assertion_tasks.jsonl: 3 lines but the manifest says 4 tasks"),
        "{report}"
    );

    // The hash made to match: the count still tells; and a line that is not JSON.
    let broken = format!("{shorter}not json\n");
    std::fs::write(&path, &broken).unwrap();
    let mut m = manifest(&folder);
    m["files"]["assertion_tasks.jsonl"] = serde_json::json!({
        "sha256": hex::encode(Sha256::digest(broken.as_bytes())), "bytes": broken.len()
    });
    std::fs::write(folder.join("manifest.json"), m.to_string()).unwrap();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!report.contains("sha256"), "{report}");
    assert!(
        report.contains("MISMATCH assertion_tasks.jsonl: line 4 is not a JSON object"),
        "{report}"
    );
}

#[test]
fn assertion_tasks_follow_the_cutoff() {
    // a-vm's code date is only its release's: old unless --include-old.
    let (_tmp, folder) = published(&["--cutoff", "2026-08-15"]);
    let tasks: Vec<AssertionTask> = read(&folder);
    assert_eq!(
        ids(&tasks),
        [
            ("a-o", Some(true)),
            ("a-m1", Some(true)),
            ("a-vo", Some(true))
        ]
    );
    let m = manifest(&folder);
    // Old: 3 function tasks and a-vm.
    assert_eq!(m["selection"]["tasks_old"], 4);
    assert_eq!(
        m["families"]["assertion"]["by_program"],
        serde_json::json!({"mutated": 1, "original": 2})
    );

    let (_tmp, folder) = published(&["--cutoff", "2026-08-15", "--include-old"]);
    let tasks: Vec<AssertionTask> = read(&folder);
    assert_eq!(
        ids(&tasks),
        [
            ("a-o", Some(true)),
            ("a-m1", Some(true)),
            ("a-vo", Some(true)),
            ("a-vm", Some(false))
        ]
    );
}

#[test]
fn assertion_tasks_without_files_is_an_error_that_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_assertion(tmp.path());
    std::fs::remove_file(tmp.path().join("files.parquet")).unwrap();
    let out = publish(
        tmp.path(),
        &["--data", ".", "--out", "snap", "--date", DATE],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("files.parquet: no files") && err.contains("assertion"),
        "{err}"
    );
}

/// Completion and assertion tasks together: one files table for both, both exports.
#[test]
fn completion_and_assertion_tasks_together() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_completion(tmp.path());
    write_assertion(tmp.path());
    let out = publish(
        tmp.path(),
        &[
            "--data", ".", "--out", "snap", "--date", DATE, "--export", "jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    let m = manifest(&folder);
    assert_eq!(
        m["tables"]["files"]["rows"], 3,
        "the MIT repository's, once"
    );
    assert_eq!(m["exports"]["completion_tasks.jsonl"]["tasks"], 2);
    assert_eq!(m["exports"]["assertion_tasks.jsonl"]["tasks"], 4);
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    let at = |needle: &str| card.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("## How a completion task is judged") < at("## How an assertion task is judged"));
    assert!(at("## How an assertion task is judged") < at("## The repositories"));
    assert_eq!(card.matches("## The repositories").count(), 1);
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// A dataset without assertion tasks publishes nothing of them.
#[test]
fn without_assertion_tasks_nothing_of_them_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_completion(tmp.path());
    let out = publish(
        tmp.path(),
        &[
            "--data", ".", "--out", "snap", "--date", DATE, "--export", "jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    assert!(!folder.join("assertion_tasks.jsonl").exists());
    assert!(!folder.join("data/assertion_tasks.parquet").exists());
    let m = manifest(&folder);
    assert!(m["families"].get("assertion").is_none());
    // The other families' entries have no assertion fields.
    assert_eq!(
        m["families"]["completion"],
        serde_json::json!({"tasks": 2, "by_level": {"block": 1, "expression": 1}})
    );
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(!card.contains("assertion_tasks") && !card.contains("| `assertion` |"));
    assert!(!card.contains("## How an assertion task is judged"));
    assert!(card.contains(
        "## The repositories\n\nCompletion tasks are judged by their repository's tests, in"
    ));
}
