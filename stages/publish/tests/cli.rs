//! The built `publish` binary on a dataset written by hand.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::{publish, published, s, show, write_dataset, DATE, PUBLISHED};
use schemas::{FunctionTask, Repo, Slice, Table, TestCase, Validation};
use sha2::{Digest, Sha256};

fn manifest(folder: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap()).unwrap()
}

fn read<T: Table>(folder: &Path) -> Vec<T> {
    schemas::read_table_from(&folder.join("data").join(format!("{}.parquet", T::NAME))).unwrap()
}

/// Every file of the folder but the manifest, relative and sorted.
fn files(folder: &Path) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &path, out);
            } else if path != "manifest.json" {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(folder, "", &mut out);
    out.sort();
    out
}

#[test]
fn publishes_only_valid_tasks_of_allowed_repositories() {
    let (tmp, folder) = published();

    let tasks: Vec<FunctionTask> = read(&folder);
    let ids: Vec<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(ids, PUBLISHED, "only ok, valid tasks of the MIT repository");
    let cases: Vec<TestCase> = read(&folder);
    assert_eq!(cases.len(), 11);
    assert!(cases
        .iter()
        .all(|c| PUBLISHED.contains(&c.task_id.as_str())));
    let validations: Vec<Validation> = read(&folder);
    let vids: Vec<&str> = validations.iter().map(|v| v.task_id.as_str()).collect();
    assert_eq!(vids, ["t-clamp", "t-words", "t-pairs"]);
    let repos: Vec<Repo> = read(&folder);
    assert_eq!(
        repos.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["mitpkg"],
        "only repositories with a published task"
    );
    let slices: Vec<Slice> = read(&folder);
    assert_eq!(slices.len(), 1);
    assert_eq!(slices[0].task_id, "t-clamp");
    assert!(!folder.join("data/functions.parquet").exists());

    let m = manifest(&folder);
    assert_eq!(m["schema_version"], schemas::SCHEMA_VERSION);
    assert_eq!(m["freshbench_version"], env!("CARGO_PKG_VERSION"));
    // Regression: the commit was `git rev-parse HEAD` of wherever publish ran (or the
    // runtime FRESHBENCH_COMMIT), not the build's.
    assert_eq!(
        m["freshbench_commit"],
        serde_json::to_value(publish::commit()).unwrap()
    );
    assert_ne!(m["freshbench_commit"], common::RUNTIME_COMMIT);
    assert_eq!(m["freshbench_build"], publish::BUILD_ID);
    assert_eq!(publish::BUILD_ID.len(), 32);
    assert_eq!(m["date"], DATE);
    assert_eq!(m["name"], "freshbench");
    assert_eq!(m["cutoff"], "2026-09-01T00:00:00Z");
    assert_eq!(m["cutoff_source"], "repos");
    assert_eq!(m["license_policy"]["source"], "default");
    let sel = &m["selection"];
    assert_eq!(
        (
            &sel["tasks_read"],
            &sel["tasks_rejected"],
            &sel["tasks_not_valid"],
            &sel["tasks_excluded_by_license"],
            &sel["tasks_published"]
        ),
        (
            &serde_json::json!(8),
            &serde_json::json!(1),
            &serde_json::json!(2),
            &serde_json::json!(2),
            &serde_json::json!(3)
        )
    );
    let src = &m["sources"][0];
    assert_eq!(m["sources"].as_array().unwrap().len(), 1);
    assert_eq!(
        (
            &src["name"],
            &src["version"],
            &src["license"],
            &src["tasks"]
        ),
        (
            &serde_json::json!("mitpkg"),
            &serde_json::json!("1.2.0"),
            &serde_json::json!("MIT"),
            &serde_json::json!(3)
        )
    );
    assert_eq!(src["url"], "https://example.invalid/mitpkg-1.2.0.tar.gz");
    assert_eq!(src["published_at"], "2026-10-01T12:00:00Z");

    // The excluded repositories, named with their license and the tasks left out.
    let excluded: Vec<(String, String, String, u64)> = m["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["version"].as_str().unwrap().to_string(),
                e["license"].as_str().unwrap_or("null").to_string(),
                e["tasks_left_out"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        excluded,
        [
            ("gplpkg".into(), "0.3.0".into(), "GPL-3.0-only".into(), 1),
            ("nolic".into(), "2.0.0".into(), "null".into(), 1)
        ]
    );

    // Row counts of every table.
    let tables: BTreeMap<String, u64> = m["tables"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["rows"].as_u64().unwrap()))
        .collect();
    let want: BTreeMap<String, u64> = [
        ("function_tasks", 3),
        ("repos", 1),
        ("slices", 1),
        ("test_cases", 11),
        ("validations", 3),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(tables, want);
    for (name, t) in m["tables"].as_object().unwrap() {
        assert_eq!(t["path"], format!("data/{name}.parquet"));
    }

    // The hash and size of every file but the manifest, and no other.
    let hashed: Vec<String> = m["files"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(hashed, files(&folder));
    assert!(hashed.contains(&"function_tasks.jsonl".to_string()));
    assert!(hashed.contains(&"README.md".to_string()));
    for (rel, f) in m["files"].as_object().unwrap() {
        let bytes = std::fs::read(folder.join(rel)).unwrap();
        assert_eq!(f["sha256"], hex::encode(Sha256::digest(&bytes)), "{rel}");
        assert_eq!(f["bytes"], bytes.len(), "{rel}");
    }
    assert_eq!(m["exports"]["function_tasks.jsonl"]["tasks"], 3);
    assert_eq!(m["exports"]["function_tasks.jsonl"]["cases"], 11);

    // The card: one config per table, the license, the excluded repositories.
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    let (header, body) = card
        .strip_prefix("---\n")
        .and_then(|c| c.split_once("\n---\n"))
        .expect("a YAML header");
    let header = format!("{header}\n");
    for name in want.keys() {
        assert!(
            header.contains(&format!(
                "- config_name: {name}\n  data_files:\n  - split: test\n    path: \"data/{name}.parquet\"\n"
            )),
            "{name} in\n{header}"
        );
    }
    assert!(header.contains("license:\n- mit\n"), "{header}");
    assert!(header.contains("pretty_name: \"freshbench 2026-12-01\""));
    assert!(
        !header.contains("jsonl"),
        "no config for the export: {header}"
    );
    assert!(
        body.contains("| gplpkg | 0.3.0 | GPL-3.0-only | 1 |"),
        "{body}"
    );
    assert!(body.contains("| nolic | 2.0.0 | none | 1 |"), "{body}");
    assert!(body.contains("### `test_cases`"));
    assert!(body.contains("publish --verify freshbench-2026-12-01"));
    // The slices: what a row is, and every column of the table documented.
    assert!(
        body.contains(
            "| `slices` | `data/slices.parquet` | 1 | the difficulty of a published task"
        ),
        "{body}"
    );
    assert!(body.contains("null unless `status` is `ok`"), "{body}");
    let slices = &body[body.find("### `slices`").expect("the slices' columns")..];
    for column in [
        "status", "reason", "esv", "mcl", "dfi", "depth", "inputs", "units_ok",
    ] {
        assert!(
            slices.contains(&format!("| `{column}` |")),
            "{column} in {slices}"
        );
    }
    assert!(slices.contains("| `esv` | int32 | yes |"), "{slices}");

    // Nothing left beside the snapshot (the temporary folder was renamed).
    let beside: Vec<String> = std::fs::read_dir(tmp.path().join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside, [format!("freshbench-{DATE}")]);

    // The same input gives the same files (the manifest aside, it records nothing of time).
    let again = publish(
        tmp.path(),
        &[
            "--data", "data", "--out", "again", "--date", DATE, "--export", "jsonl", "-q",
        ],
    );
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    let other = tmp.path().join("again").join(format!("freshbench-{DATE}"));
    assert_eq!(manifest(&other)["files"], m["files"], "deterministic bytes");
}

#[test]
fn an_existing_snapshot_is_never_overwritten() {
    let (tmp, folder) = published();
    let before = std::fs::read(folder.join("manifest.json")).unwrap();
    let out = publish(
        tmp.path(),
        &["--data", "data", "--out", "snapshots", "--date", DATE],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "snapshots/freshbench-{DATE} exists; snapshots are immutable; choose another --date or --name"
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(folder.join("manifest.json")).unwrap(), before);
    // Another name is another snapshot.
    let out = publish(
        tmp.path(),
        &[
            "--data",
            "data",
            "--out",
            "snapshots",
            "--date",
            DATE,
            "--name",
            "fb-test",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(tmp
        .path()
        .join(format!("snapshots/fb-test-{DATE}/manifest.json"))
        .is_file());
}

#[test]
fn verify_passes_intact_and_names_a_changed_file() {
    let (tmp, folder) = published();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("OK: "));

    // One byte of a data file changed.
    let target = folder.join("data/test_cases.parquet");
    let mut bytes = std::fs::read(&target).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    std::fs::write(&target, &bytes).unwrap();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("MISMATCH data/test_cases.parquet: sha256"),
        "{report}"
    );
    let named: Vec<&str> = report
        .lines()
        .filter_map(|l| l.strip_prefix("MISMATCH "))
        .collect();
    assert!(
        named
            .iter()
            .all(|l| l.starts_with("data/test_cases.parquet:")),
        "only the changed file is named: {report}"
    );

    // A row count that differs from the manifest (a file replaced with a valid table of
    // other rows, its hash updated in the manifest).
    let (tmp2, folder2) = published();
    let cases: Vec<TestCase> = read(&folder2);
    schemas::write_table_to(&folder2.join("data/test_cases.parquet"), &cases[..5]).unwrap();
    let mut m = manifest(&folder2);
    let bytes = std::fs::read(folder2.join("data/test_cases.parquet")).unwrap();
    m["files"]["data/test_cases.parquet"] = serde_json::json!({
        "sha256": hex::encode(Sha256::digest(&bytes)), "bytes": bytes.len()
    });
    std::fs::write(folder2.join("manifest.json"), m.to_string()).unwrap();
    let out = publish(tmp2.path(), &["--verify", s(&folder2)]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("MISMATCH data/test_cases.parquet: 5 rows but the manifest says 11"),
        "{}",
        show(&out)
    );

    // A missing manifest is an error.
    std::fs::remove_file(folder.join("manifest.json")).unwrap();
    let out = publish(tmp.path(), &["--verify", s(&folder)]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the manifest"));
}

#[test]
fn refuses_without_validations() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), false);
    let out = publish(
        tmp.path(),
        &["--data", ".", "--out", "snap", "--date", DATE],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("run `execute --data . --validate` first"),
        "{err}"
    );
    assert!(!tmp.path().join("snap").exists());
}

#[test]
fn allow_license_replaces_the_default_list() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    let out = publish(
        tmp.path(),
        &[
            "--data",
            ".",
            "--out",
            "snap",
            "--date",
            DATE,
            "--allow-license",
            "GPL-3.0-only",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    let tasks: Vec<FunctionTask> = read(&folder);
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].task_id, "t-gpl");
    let m = manifest(&folder);
    assert_eq!(
        m["license_policy"]["allowed"],
        serde_json::json!(["GPL-3.0-only"])
    );
    let excluded: Vec<&str> = m["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(excluded, ["mitpkg", "nolic"]);
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(card.contains("license:\n- gpl-3.0\n"));

    // The same from a file, together with a flag.
    std::fs::write(tmp.path().join("lic.toml"), "allow = [\"MIT\"]\n").unwrap();
    let out = publish(
        tmp.path(),
        &[
            "--data",
            ".",
            "--out",
            "snap2",
            "--date",
            DATE,
            "--licenses",
            "lic.toml",
            "--allow-license",
            "GPL-3.0-only",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let tasks: Vec<FunctionTask> = read(&tmp.path().join(format!("snap2/freshbench-{DATE}")));
    assert_eq!(tasks.len(), 4);

    // Nothing allowed: nothing written, exit 1.
    let out = publish(
        tmp.path(),
        &[
            "--data",
            ".",
            "--out",
            "snap3",
            "--date",
            DATE,
            "--allow-license",
            "LicenseRef-nothing",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(!tmp.path().join(format!("snap3/freshbench-{DATE}")).exists());

    // A bad option is an error.
    let out = publish(
        tmp.path(),
        &["--data", ".", "--out", "snap4", "--date", "2026-02-30"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn the_jsonl_export_checks_the_reference_and_rejects_a_wrong_solution() {
    let (_tmp, folder) = published();
    let text = std::fs::read_to_string(folder.join("function_tasks.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        PUBLISHED
            .map(|t| format!("freshbench/{t}"))
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    for (r, line) in rows.iter().zip(text.lines()) {
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "canonical_solution",
                "entry_point",
                "prompt",
                "task_id",
                "test"
            ],
            "HumanEval's fields and no other"
        );
        assert!(line.starts_with("{\"task_id\":\"freshbench/t-"), "{line}");
    }
    // The docstring prompt is completed by the body; the synthesized one by the whole solution.
    assert!(rows[0]["canonical_solution"]
        .as_str()
        .unwrap()
        .starts_with("    if low > high:"));
    assert!(rows[2]["canonical_solution"]
        .as_str()
        .unwrap()
        .starts_with("def pairs(xs):"));

    let mut runs = Vec::new();
    for r in &rows {
        let prompt = r["prompt"].as_str().unwrap();
        for body in [
            r["canonical_solution"].as_str().unwrap(),
            "    return None\n",
        ] {
            runs.push((
                format!("{prompt}{body}"),
                r["test"].as_str().unwrap().to_string(),
                r["entry_point"].as_str().unwrap().to_string(),
            ));
        }
    }
    let verdicts = match common::checks::run_checks(&runs) {
        Ok(v) => v,
        Err(why) => {
            eprintln!("SKIPPED: the exported checks were not run: {why}");
            return;
        }
    };
    assert_eq!(verdicts.len(), 6);
    for (i, v) in verdicts.iter().enumerate() {
        if i % 2 == 0 {
            assert_eq!(v, "pass", "reference of {}", ids[i / 2]);
        } else {
            assert!(
                v.starts_with("fail: case "),
                "wrong solution of {}: {v}",
                ids[i / 2]
            );
        }
    }
}

#[test]
fn help_documents_every_option() {
    let out = Command::new(env!("CARGO_BIN_EXE_publish"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for opt in [
        "--data",
        "--out",
        "--name",
        "--date",
        "--cutoff",
        "--allow-license",
        "--licenses",
        "--export",
        "--no-repo-files",
        "--verify",
        "--quiet",
        "--verbose",
    ] {
        assert!(help.contains(opt), "{opt} in\n{help}");
    }
}

#[test]
fn cutoff_option_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    let out = publish(
        tmp.path(),
        &[
            "--data",
            ".",
            "--out",
            "snap",
            "--date",
            DATE,
            "--cutoff",
            "2026-08-15",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    let m = manifest(&folder);
    assert_eq!(m["cutoff"], "2026-08-15T00:00:00Z");
    assert_eq!(m["cutoff_source"], "--cutoff");
    assert!(m["exports"].as_object().unwrap().is_empty());
    assert!(!folder.join("function_tasks.jsonl").exists());
    // Only the task whose code is known to be newer than the cutoff: t-pairs' date is only
    // its release's (an upper bound), t-words has none; t-gpl's license keeps it out.
    let tasks: Vec<FunctionTask> = read(&folder);
    let got: Vec<(&str, Option<bool>)> = tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.after_cutoff))
        .collect();
    assert_eq!(got, [("t-clamp", Some(true))]);
    assert_eq!(m["selection"]["tasks_old"], 3);
    assert_eq!(m["selection"]["tasks_excluded_by_license"], 1);
    let card = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(
        card.contains("3 valid tasks of older code were left out"),
        "{card}"
    );

    // --include-old keeps them, marked.
    let out = publish(
        tmp.path(),
        &[
            "--data",
            ".",
            "--out",
            "snap",
            "--date",
            "2026-12-02",
            "--cutoff",
            "2026-08-15",
            "--include-old",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let tasks: Vec<FunctionTask> = read(&tmp.path().join("snap/freshbench-2026-12-02"));
    let got: Vec<(&str, Option<bool>)> = tasks
        .iter()
        .map(|t| (t.task_id.as_str(), t.after_cutoff))
        .collect();
    assert_eq!(
        got,
        [
            ("t-clamp", Some(true)),
            ("t-words", Some(false)),
            ("t-pairs", Some(false))
        ]
    );
}
