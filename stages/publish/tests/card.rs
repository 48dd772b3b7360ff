//! The card names its snapshot among the quarters: its YAML header (read line by line, and
//! by `PyYAML` when a Python with it is at hand) has the configs `latest`, the default, and
//! the quarter's on files of the snapshot; the card and the manifest name the quarter and
//! the cutoff; and the card states the task-version rule from `publish::version`, whose
//! ids are unchanged by any column outside a family's rule and changed by each one in it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{publish, published, show, write_assertion, write_completion, write_dataset, DATE};
use proptest::prelude::*;
use publish::version::{self, TASK_ID_RULES};
use schemas::{examples, Family};
use serde_json::{json, Value};

fn manifest(folder: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap()).unwrap()
}

/// The card's YAML header and body.
fn card(folder: &Path) -> (String, String) {
    let text = std::fs::read_to_string(folder.join("README.md")).unwrap();
    let (header, body) = text
        .strip_prefix("---\n")
        .and_then(|c| c.split_once("\n---\n"))
        .expect("a YAML header between two `---` lines");
    (format!("{header}\n"), body.to_string())
}

/// A config of the header: name, default, (split, path) of each data file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    name: String,
    default: bool,
    files: Vec<(String, String)>,
}

/// A YAML scalar as the card writes it: plain, or double-quoted (JSON's syntax).
fn scalar(text: &str) -> String {
    if text.starts_with('"') {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    } else {
        text.to_string()
    }
}

/// The header read by lines: every top-level line a `key:` or `key: value`, every other
/// line a list item or an indented line under one, and the `configs` list in the shape the
/// Hub reads (`config_name`, `data_files` of `split` and `path`, `default: true`).
fn header_configs(header: &str) -> (Vec<String>, Vec<Config>) {
    let mut keys = Vec::new();
    let mut configs: Vec<Config> = Vec::new();
    let mut in_configs = false;
    for line in header.lines() {
        if !line.starts_with([' ', '-']) {
            let (key, _) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("not a `key:` line: {line:?}"));
            assert!(
                key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{line:?}"
            );
            keys.push(key.to_string());
            in_configs = key == "configs";
            continue;
        }
        if !in_configs {
            assert!(line.starts_with("- "), "a list item: {line:?}");
            continue;
        }
        if let Some(name) = line.strip_prefix("- config_name: ") {
            configs.push(Config {
                name: scalar(name),
                default: false,
                files: Vec::new(),
            });
            continue;
        }
        let c = configs.last_mut().expect("a config_name first");
        if line == "  data_files:" {
        } else if let Some(split) = line.strip_prefix("  - split: ") {
            c.files.push((scalar(split), String::new()));
        } else if let Some(path) = line.strip_prefix("    path: ") {
            let f = c.files.last_mut().expect("a split first");
            assert!(f.1.is_empty(), "one path per split: {line:?}");
            f.1 = scalar(path);
        } else if line == "  default: true" {
            c.default = true;
        } else {
            panic!("unexpected line in configs: {line:?}");
        }
    }
    (keys, configs)
}

/// An interpreter with `PyYAML`: `$PUBLISH_TEST_PYTHON`, the tools venv or `python3`.
fn yaml_python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("PUBLISH_TEST_PYTHON").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import yaml"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Runs `script` with `python`, `input` on its standard input; its last line as JSON.
fn run_python(python: &Path, script: &str, input: &str) -> Value {
    use std::io::Write as _;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap()
}

const YAML: &str = r#"
import json, sys, yaml
meta = yaml.safe_load(sys.stdin.read())
print(json.dumps([
    {"name": c["config_name"], "default": c.get("default", False),
     "files": [[f["split"], f["path"]] for f in c["data_files"]]}
    for c in meta["configs"]
]))
"#;

/// The header's configs point to files of the snapshot, the manifest lists them, and
/// `latest` (the only default) and the quarter's read the same tasks.
fn check_configs(folder: &Path, configs: &[Config], quarter: &str) {
    let m = manifest(folder);
    let defaults: Vec<&str> = configs
        .iter()
        .filter(|c| c.default)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(defaults, [version::LATEST], "{configs:?}");
    assert_eq!(configs[0].name, version::LATEST, "the default first");
    for c in configs {
        assert_eq!(c.files.len(), 1, "{c:?}");
        let (split, path) = &c.files[0];
        assert_eq!(split, "test");
        assert!(folder.join(path).is_file(), "{c:?}: no {path}");
        assert!(m["files"].get(path).is_some(), "{path} in the manifest");
        assert!(
            Path::new(path).extension().is_some_and(|e| e == "parquet"),
            "{path}: one builder, Parquet's"
        );
    }
    let by_name: BTreeMap<&str, &str> = configs
        .iter()
        .map(|c| (c.name.as_str(), c.files[0].1.as_str()))
        .collect();
    assert_eq!(by_name.len(), configs.len(), "config names are unique");
    assert_eq!(by_name.get(quarter), by_name.get(version::LATEST));
    for (name, t) in m["tables"].as_object().unwrap() {
        assert_eq!(
            by_name.get(name.as_str()).copied(),
            t["path"].as_str(),
            "{name}"
        );
    }
}

#[test]
fn the_header_has_latest_by_default_and_the_quarter_on_the_snapshots_files() {
    let (_tmp, folder) = published();
    let (header, _) = card(&folder);
    let (keys, configs) = header_configs(&header);
    for key in ["pretty_name", "license", "tags", "configs"] {
        assert!(keys.iter().any(|k| k == key), "{key} in {keys:?}");
    }
    check_configs(&folder, &configs, "2026q4");
    assert_eq!(configs[0].files[0].1, "data/function_tasks.parquet");
    assert_eq!(configs[1].name, "2026q4");
    assert!(!configs[1].default);
    // Only the function family is published: no family-suffixed config.
    assert!(configs.iter().all(|c| !c.name.contains('-')), "{configs:?}");

    let Some(python) = yaml_python() else {
        eprintln!("SKIPPED: the YAML parse of the header: no Python with PyYAML");
        return;
    };
    let parsed = run_python(&python, YAML, &header);
    let by_lines: Vec<Value> = configs
        .iter()
        .map(|c| json!({"name": c.name, "default": c.default, "files": c.files}))
        .collect();
    assert_eq!(
        parsed,
        Value::Array(by_lines),
        "PyYAML reads the configs as the lines say"
    );
}

#[test]
fn the_card_and_the_manifest_name_the_quarter_and_the_cutoff() {
    let (_tmp, folder) = published();
    let m = manifest(&folder);
    assert_eq!(m["quarter"], "2026Q4");
    assert_eq!(m["quarter_source"], "date");
    assert_eq!(m["cutoff"], "2026-09-01T00:00:00Z");
    assert_eq!(m["cutoff_source"], "repos");
    let (_, body) = card(&folder);
    assert!(body.contains("## Quarter and cutoff"), "{body}");
    assert!(
        body.contains("**Quarter: 2026Q4**, the benchmark's version (the quarter of the snapshot's date, 2026-12-01)"),
        "{body}"
    );
    assert!(
        body.contains("**Cutoff: 2026-09-01** (the earliest cutoff the crawl of the sources had, its `--since`)"),
        "{body}"
    );
    assert!(
        body.contains("`latest` and `2026q4` read `data/function_tasks.parquet`"),
        "{body}"
    );

    // A quarter and a cutoff given: the manifest says so, the configs follow.
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    let args = [
        "--data",
        ".",
        "--out",
        "snap",
        "--date",
        "2027-01-05",
        "--quarter",
        "2026q4",
        "--cutoff",
        "2026-08-01",
        "--include-old",
        "-q",
    ];
    let out = publish(tmp.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join("snap/freshbench-2027-01-05");
    let m = manifest(&folder);
    assert_eq!(m["quarter"], "2026Q4");
    assert_eq!(m["quarter_source"], "--quarter");
    assert_eq!(m["cutoff"], "2026-08-01T00:00:00Z");
    assert_eq!(m["cutoff_source"], "--cutoff");
    let (header, body) = card(&folder);
    check_configs(&folder, &header_configs(&header).1, "2026q4");
    assert!(body
        .contains("**Quarter: 2026Q4**, the benchmark's version (given to `publish --quarter`)"));
    assert!(body.contains("**Cutoff: 2026-08-01.**"), "{body}");

    // A quarter that is none: an error before anything is written.
    for bad in ["2026q5", "26q4", "2026-12"] {
        let out = publish(
            tmp.path(),
            &[
                "--data",
                ".",
                "--out",
                "bad",
                "--date",
                DATE,
                "--quarter",
                bad,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("give a year and a quarter as YYYYqN"),
            "{}",
            show(&out)
        );
        assert!(!tmp.path().join("bad").exists());
    }
}

/// The dataset with every family, published with `--export jsonl` to `snap/`.
fn published_families() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    write_dataset(tmp.path(), true);
    write_completion(tmp.path());
    write_assertion(tmp.path());
    let out = publish(
        tmp.path(),
        &[
            "--data", ".", "--out", "snap", "--date", DATE, "--export", "jsonl", "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let folder = tmp.path().join(format!("snap/freshbench-{DATE}"));
    (tmp, folder)
}

#[test]
fn every_family_has_a_latest_and_a_quarter_config() {
    let (_tmp, folder) = published_families();
    let (header, body) = card(&folder);
    let configs = header_configs(&header).1;
    check_configs(&folder, &configs, "2026q4");
    let versioned: Vec<(&str, &str)> = configs
        .iter()
        .take(6)
        .map(|c| (c.name.as_str(), c.files[0].1.as_str()))
        .collect();
    assert_eq!(
        versioned,
        [
            ("latest", "data/function_tasks.parquet"),
            ("2026q4", "data/function_tasks.parquet"),
            ("latest-completion", "data/completion_tasks.parquet"),
            ("2026q4-completion", "data/completion_tasks.parquet"),
            ("latest-assertion", "data/assertion_tasks.parquet"),
            ("2026q4-assertion", "data/assertion_tasks.parquet"),
        ]
    );
    assert!(
        body.contains(
            "`latest-completion` and `2026q4-completion` read `data/completion_tasks.parquet`"
        ),
        "{body}"
    );
    assert!(!header.contains("jsonl"), "no config on an export");
}

/// The rule's section of a card.
fn rule_section(body: &str) -> &str {
    let at = body
        .find("## Task ids across quarters")
        .expect("the rule's section");
    let rest = &body[at..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    &rest[..end]
}

#[test]
fn the_card_states_the_task_version_rule_of_each_published_family() {
    let (_tmp, folder) = published();
    let (_, body) = card(&folder);
    let rule = rule_section(&body);
    assert!(
        rule.contains("A task's id changes only when what defines it changes."),
        "{rule}"
    );
    assert!(rule.contains("the same fields give the same id in every quarter's snapshot"));
    assert!(rule.contains("a task kept from one quarter to the next keeps its id"));
    assert!(rule.contains("gets a new one"));
    // The function family only: the lines come from the rules in code, in their order.
    let listed: Vec<&str> = rule.lines().filter(|l| l.starts_with("- `")).collect();
    assert_eq!(listed.len(), 1, "{rule}");
    assert!(
        listed[0].starts_with(
            "- `function` (`function_tasks`): `function_id`, `prompt`, `canonical_solution`; "
        ),
        "{rule}"
    );

    let (_tmp, folder) = published_families();
    let (_, body) = card(&folder);
    let rule = rule_section(&body);
    let listed: Vec<&str> = rule.lines().filter(|l| l.starts_with("- `")).collect();
    assert_eq!(listed.len(), TASK_ID_RULES.len(), "{rule}");
    for (line, r) in listed.iter().zip(TASK_ID_RULES.iter()) {
        let inputs: Vec<String> = r.inputs.iter().map(|i| format!("`{i}`")).collect();
        let want = format!(
            "- `{}` (`{}`): {}; {}.",
            r.family.as_str(),
            version::task_table(r.family),
            inputs.join(", "),
            r.note
        );
        assert_eq!(*line, want);
    }
    assert!(rule.contains(
        "- `completion` (`completion_tasks`): `repo_id`, `path`, `start_byte`, `end_byte`, `reference`;"
    ));
    assert!(
        rule.contains("- `assertion` (`assertion_tasks`): `group_id`, `program`, `form`, `claim`;")
    );
}

/// A row of each family whose id follows the rule: a mutated assertion variant in the
/// verify form, so that each part of its id is a column's.
fn rows() -> Vec<(Family, Value)> {
    let mut f = serde_json::to_value(examples::function_task("x", "r-1")).unwrap();
    f["prompt"] = json!("def f(x):\n    \"\"\"Twice x, é ✓.\"\"\"\n");
    let c = serde_json::to_value(examples::completion_task("x", "r-1")).unwrap();
    let a = serde_json::to_value(common::assertion_task(
        "x",
        "g-1",
        "r-1",
        true,
        Some("arith:30-31:00ff"),
        None,
    ))
    .unwrap();
    let mut out = vec![
        (Family::Function, f),
        (Family::Completion, c),
        (Family::Assertion, a),
    ];
    for (family, row) in &mut out {
        row["task_id"] = json!(version::task_id(*family, &*row).unwrap());
    }
    out
}

/// Another value of the same JSON kind (a null becomes text).
fn changed(v: &Value) -> Value {
    match v {
        Value::String(s) => json!(format!("{s}~")),
        Value::Number(n) => match n.as_i64() {
            Some(i) => json!(i + 1),
            None => json!(n.as_f64().unwrap_or(0.0) + 0.5),
        },
        Value::Bool(b) => json!(!b),
        Value::Null => json!("~"),
        Value::Array(a) => {
            let mut a = a.clone();
            a.push(json!("~"));
            Value::Array(a)
        }
        Value::Object(o) => {
            let mut o = o.clone();
            o.insert("~".into(), json!(1));
            Value::Object(o)
        }
    }
}

#[test]
fn an_id_changes_with_each_defining_column_and_with_no_other() {
    for (family, row) in rows() {
        let id = row["task_id"].as_str().unwrap().to_string();
        let defining = version::defining_columns(family);
        let columns: Vec<String> = row.as_object().unwrap().keys().cloned().collect();
        for d in &defining {
            assert!(columns.iter().any(|c| c == d), "{family:?}: no column {d}");
        }
        for column in &columns {
            let mut other = row.clone();
            other[column] = changed(&row[column]);
            let got = version::task_id(family, &other).unwrap();
            if defining.contains(&column.as_str()) {
                assert_ne!(got, id, "{family:?}: {column} defines the task");
            } else {
                assert_eq!(got, id, "{family:?}: {column} is outside the id");
            }
        }
    }
    // The original program: its id names no mutant.
    let original =
        serde_json::to_value(common::assertion_task("x", "g-1", "r-1", false, None, None)).unwrap();
    let parts = version::id_parts(Family::Assertion, &original).unwrap();
    assert_eq!(parts, ["g-1", "original", "value", ""]);
}

proptest! {
    /// The same defining fields give the same id whatever the rest of the row (another
    /// quarter's dates, status, figures), and the id is the hash of those fields in order.
    #[test]
    fn the_same_fields_give_the_same_id_in_any_quarter(
        function_id in ".{0,12}",
        prompt in ".{0,24}",
        solution in ".{0,24}",
        day in 1u32..28,
        cases in 0i32..50,
    ) {
        let mut a = examples::function_task("x", "r-1");
        a.function_id = function_id.clone();
        a.prompt = prompt.clone();
        a.canonical_solution = solution.clone();
        let mut b = a.clone();
        b.code_date = schemas::Timestamp::parse(&format!("2027-02-{day:02}"));
        b.cases = cases;
        b.status = schemas::TaskStatus::Rejected;
        b.config_hash = format!("other-{day}");
        let id = version::task_id(Family::Function, &a).unwrap();
        prop_assert_eq!(&id, &version::task_id(Family::Function, &b).unwrap());
        let want = schemas::id::content_id(&[
            function_id.as_bytes(),
            prompt.as_bytes(),
            solution.as_bytes(),
        ]);
        prop_assert_eq!(&id, &want);
        b.prompt.push(' ');
        prop_assert_ne!(id, version::task_id(Family::Function, &b).unwrap());
    }
}

#[test]
fn the_cards_python_recipe_gives_the_ids_of_the_rule() {
    let (_tmp, folder) = published_families();
    let (_, body) = card(&folder);
    let rule = rule_section(&body);
    let code = rule
        .split_once("```python\n")
        .and_then(|(_, c)| c.split_once("```"))
        .expect("a Python block")
        .0;
    let python = match Command::new("python3").arg("--version").output() {
        Ok(o) if o.status.success() => PathBuf::from("python3"),
        _ => {
            eprintln!("SKIPPED: the card's Python recipe: no python3");
            return;
        }
    };
    let rows = rows();
    let input = serde_json::to_string(
        &rows
            .iter()
            .map(|(f, r)| json!([f.as_str(), r]))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let script = format!(
        "{code}\nimport json, sys\nrows = json.load(sys.stdin)\n\
         print(json.dumps([globals()[f + '_task_id'](t) for f, t in rows]))\n"
    );
    let got = run_python(&python, &script, &input);
    let want: Vec<&Value> = rows.iter().map(|(_, r)| &r["task_id"]).collect();
    assert_eq!(got, json!(want));
}
