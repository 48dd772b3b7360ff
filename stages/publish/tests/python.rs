//! The snapshot read back by Python's tools: pyarrow (each Parquet file: rows, column names,
//! types and nullability against the schemas crate), and the Hugging Face `datasets`
//! library when it is installed (each config of the card's YAML header, and each file as
//! plain Parquet). Each test is skipped, saying why, when its tool is missing.
//!
//! The interpreter is `$PUBLISH_TEST_PYTHON`, else the project's `.tools/venv/bin/python`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use arrow::datatypes::{DataType, Field};
use common::{published, show, tools_python};
use schemas::{FunctionTask, Repo, Slice, Table, TestCase, Validation};

/// pyarrow's name of an Arrow type (`str(pa.DataType)`).
fn pyarrow_type(dt: &DataType) -> String {
    match dt {
        DataType::Utf8 => "string".into(),
        DataType::Boolean => "bool".into(),
        DataType::Int32 => "int32".into(),
        DataType::Int64 => "int64".into(),
        DataType::UInt32 => "uint32".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Float64 => "double".into(),
        DataType::Binary => "binary".into(),
        DataType::Timestamp(_, Some(tz)) => format!("timestamp[us, tz={tz}]"),
        DataType::Timestamp(_, None) => "timestamp[us]".into(),
        DataType::List(f) => {
            let null = if f.is_nullable() { "" } else { " not null" };
            format!("list<{}: {}{null}>", f.name(), pyarrow_type(f.data_type()))
        }
        DataType::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| {
                    let null = if f.is_nullable() { "" } else { " not null" };
                    format!("{}: {}{null}", f.name(), pyarrow_type(f.data_type()))
                })
                .collect();
            format!("struct<{}>", inner.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// (name, pyarrow type, nullable) of every column of a table, as written.
fn expected_columns<T: Table>() -> (String, Vec<(String, String, bool)>) {
    let cols = T::fields()
        .iter()
        .map(|f: &Field| {
            (
                f.name().clone(),
                pyarrow_type(f.data_type()),
                f.is_nullable(),
            )
        })
        .collect();
    (T::NAME.to_string(), cols)
}

fn run_python(python: &Path, script: &str, folder: &Path, home: &Path) -> serde_json::Value {
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(folder)
        .env("HF_HOME", home.join("hf"))
        .env("HF_DATASETS_CACHE", home.join("hf/datasets"))
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_HUB_DISABLE_TELEMETRY", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {}", show(&out)))
}

const PYARROW: &str = r#"
import json, pathlib, sys
import pyarrow.parquet as pq
root = pathlib.Path(sys.argv[1])
out = {}
for path in sorted((root / "data").glob("*.parquet")):
    t = pq.read_table(path)
    meta = t.schema.metadata or {}
    out[path.stem] = {
        "rows": t.num_rows,
        "columns": [[f.name, str(f.type), f.nullable] for f in t.schema],
        "stamp": meta.get(b"freshbench.table", b"").decode(),
    }
print(json.dumps(out))
"#;

#[test]
fn pyarrow_reads_every_table_as_written() {
    let python = match tools_python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: pyarrow read-back: {why}");
            return;
        }
    };
    let (tmp, folder) = published();
    let got = run_python(&python, PYARROW, &folder, tmp.path());
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
            .unwrap();
    let expected: BTreeMap<String, Vec<(String, String, bool)>> = [
        expected_columns::<FunctionTask>(),
        expected_columns::<TestCase>(),
        expected_columns::<Validation>(),
        expected_columns::<Repo>(),
        expected_columns::<Slice>(),
    ]
    .into_iter()
    .collect();
    let names: Vec<&String> = got.as_object().unwrap().keys().collect();
    assert_eq!(names, expected.keys().collect::<Vec<_>>());
    for (name, cols) in &expected {
        let t = &got[name];
        assert_eq!(t["rows"], manifest["tables"][name]["rows"], "{name}: rows");
        assert_eq!(t["stamp"], name.as_str());
        let read: Vec<(String, String, bool)> = t["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c[0].as_str().unwrap().to_string(),
                    c[1].as_str().unwrap().to_string(),
                    c[2].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(&read, cols, "{name}: columns");
    }
}

const DATASETS: &str = r#"
import json, pathlib, sys
import datasets
root = pathlib.Path(sys.argv[1])
configs = datasets.get_dataset_config_names(str(root))
out = {"version": datasets.__version__, "configs": {}, "plain": {}}
for name in configs:
    ds = datasets.load_dataset(str(root), name, split="test")
    out["configs"][name] = {"rows": ds.num_rows, "columns": ds.column_names}
for path in sorted((root / "data").glob("*.parquet")):
    ds = datasets.load_dataset("parquet", data_files={"test": str(path)}, split="test")
    out["plain"][path.stem] = {"rows": ds.num_rows, "columns": ds.column_names}
ds = datasets.load_dataset("json", data_files=str(root / "function_tasks.jsonl"), split="train")
out["jsonl"] = {"rows": ds.num_rows, "columns": ds.column_names}
print(json.dumps(out))
"#;

#[test]
fn hugging_face_datasets_loads_every_config_of_the_card() {
    let python = match tools_python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: datasets read-back: {why}");
            return;
        }
    };
    let has_datasets = Command::new(&python)
        .args(["-c", "import datasets"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_datasets {
        eprintln!(
            "SKIPPED: datasets read-back: `import datasets` fails in {} (add datasets to \
             pipelines/requirements-tools.txt, or set PUBLISH_TEST_PYTHON)",
            python.display()
        );
        return;
    }
    let (tmp, folder) = published();
    let got = run_python(&python, DATASETS, &folder, tmp.path());
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
            .unwrap();
    let columns = |name: &str| -> Vec<String> {
        let docs = schemas::describe::all_tables();
        let doc = docs.iter().find(|d| d.name == name).unwrap();
        doc.columns.iter().map(|c| c.name.to_string()).collect()
    };
    let tables = manifest["tables"].as_object().unwrap();
    // Every config of the card: `latest` and the quarter's on the function tasks, one per
    // table.
    let typed: publish::manifest::Manifest = serde_json::from_value(manifest.clone()).unwrap();
    let card_configs = publish::version::configs(&typed);
    let mut want_configs: Vec<String> = card_configs.iter().map(|c| c.name.clone()).collect();
    want_configs.sort();
    let mut configs: Vec<String> = got["configs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    configs.sort();
    assert_eq!(configs, want_configs, "datasets {}", got["version"]);
    assert!(configs.iter().any(|c| c == "latest") && configs.iter().any(|c| c == "2026q4"));
    let table_of = |path: &str| -> String {
        tables
            .iter()
            .find(|(_, t)| t["path"] == path)
            .map(|(name, _)| name.clone())
            .unwrap()
    };
    for c in &card_configs {
        let name = table_of(&c.path);
        let d = &got["configs"][&c.name];
        assert_eq!(d["rows"], tables[&name]["rows"], "config {}: rows", c.name);
        assert_eq!(
            d["columns"],
            serde_json::json!(columns(&name)),
            "config {}",
            c.name
        );
    }
    for (name, t) in tables {
        for how in ["configs", "plain"] {
            let d = &got[how][name];
            assert_eq!(d["rows"], t["rows"], "{how} {name}: rows");
            let cols: Vec<String> = d["columns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            assert_eq!(cols, columns(name), "{how} {name}: columns");
        }
    }
    let he = &got["jsonl"];
    assert_eq!(
        he["rows"],
        manifest["exports"]["function_tasks.jsonl"]["tasks"]
    );
    assert_eq!(
        he["columns"],
        serde_json::json!([
            "task_id",
            "prompt",
            "entry_point",
            "canonical_solution",
            "test"
        ])
    );
}

/// The completion tables read back by pyarrow as written, and each repository's files hash
/// recomputed in Python the way the card says.
#[test]
fn pyarrow_reads_the_completion_tables_and_recomputes_the_files_hash() {
    const HASH: &str = r#"
import hashlib, json, pathlib, sys
import pyarrow.parquet as pq
root = pathlib.Path(sys.argv[1])
rows = pq.read_table(root / "data/files.parquet", columns=["repo_id", "path", "sha256"]).to_pylist()
out = {}
for repo in sorted({r["repo_id"] for r in rows}):
    listing = sorted((r["path"], r["sha256"]) for r in rows if r["repo_id"] == repo)
    out[repo] = hashlib.sha256("".join(f"{p}\t{h}\n" for p, h in listing).encode()).hexdigest()
print(json.dumps(out))
"#;
    let python = match tools_python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: pyarrow read-back of completion tasks: {why}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    common::write_dataset(tmp.path(), true);
    common::write_completion(tmp.path());
    let out = common::publish(
        tmp.path(),
        &["--data", ".", "--out", "snap", "--date", common::DATE, "-q"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{}", common::DATE));
    let got = run_python(&python, PYARROW, &folder, tmp.path());
    for (name, cols) in [
        expected_columns::<schemas::CompletionTask>(),
        expected_columns::<schemas::File>(),
    ] {
        let read: Vec<(String, String, bool)> = got[&name]["columns"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} in {got}"))
            .iter()
            .map(|c| {
                (
                    c[0].as_str().unwrap().to_string(),
                    c[1].as_str().unwrap().to_string(),
                    c[2].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(read, cols, "{name}: columns");
    }
    let hashes = run_python(&python, HASH, &folder, tmp.path());
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
            .unwrap();
    let src = manifest["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["repo_id"] == "r-mit")
        .unwrap();
    assert_eq!(hashes, serde_json::json!({"r-mit": src["files_sha256"]}));
}

/// The assertion tasks read back by pyarrow as written (their list of structs, their
/// nullable program columns), and their JSON-lines export by Python's json.
#[test]
fn pyarrow_reads_the_assertion_tasks() {
    const JSONL: &str = r#"
import json, pathlib, sys
root = pathlib.Path(sys.argv[1])
rows = [json.loads(l) for l in (root / "assertion_tasks.jsonl").read_text().splitlines()]
print(json.dumps([[r["task_id"], r["mutated"], r["mutated_text"], r["answer"]] for r in rows]))
"#;
    let python = match tools_python() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: pyarrow read-back of assertion tasks: {why}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    common::write_dataset(tmp.path(), true);
    common::write_assertion(tmp.path());
    let out = common::publish(
        tmp.path(),
        &[
            "--data",
            ".",
            "--out",
            "snap",
            "--date",
            common::DATE,
            "--export",
            "jsonl",
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{}", common::DATE));
    let got = run_python(&python, PYARROW, &folder, tmp.path());
    let (name, cols) = expected_columns::<schemas::AssertionTask>();
    let read: Vec<(String, String, bool)> = got[&name]["columns"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} in {got}"))
        .iter()
        .map(|c| {
            (
                c[0].as_str().unwrap().to_string(),
                c[1].as_str().unwrap().to_string(),
                c[2].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(read, cols, "{name}: columns");
    assert_eq!(got[&name]["rows"], 4);
    let rows = run_python(&python, JSONL, &folder, tmp.path());
    assert_eq!(
        rows,
        serde_json::json!([
            ["freshbench/a-o", false, null, "3"],
            [
                "freshbench/a-m1",
                true,
                "def add(a, b):\n    return a - b\n",
                "-1"
            ],
            ["freshbench/a-vo", false, null, "True"],
            [
                "freshbench/a-vm",
                true,
                "def add(a, b):\n    return a - b\n",
                "False"
            ]
        ])
    );
}
