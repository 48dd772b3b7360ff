//! The pipeline on the fixture projects: crawl, resolve, classify as built binaries.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use freshbench_tests::{pipeline, root, run, table_text};
use schemas::{Classification, File, Function, Module, Reference, Repo};

fn fixture_dataset() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    pipeline(dir.path());
    dir
}

#[test]
fn two_runs_give_identical_tables() {
    let a = fixture_dataset();
    let b = fixture_dataset();
    macro_rules! same {
        ($t:ty) => {{
            let x: Vec<$t> = schemas::read_table(a.path()).unwrap();
            let y: Vec<$t> = schemas::read_table(b.path()).unwrap();
            assert!(!x.is_empty(), "{} is empty", <$t as schemas::Table>::NAME);
            assert!(
                x == y,
                "{} differs between two runs",
                <$t as schemas::Table>::NAME
            );
        }};
    }
    same!(Repo);
    same!(File);
    same!(Module);
    same!(Function);
    same!(Reference);
    same!(Classification);
}

/// The hand-written expected resolution of every reference in the ledger fixture.
#[test]
fn ledger_references_match_the_hand_written_expectation() {
    let dir = fixture_dataset();
    let repos: Vec<Repo> = schemas::read_table(dir.path()).unwrap();
    let ledger = repos
        .iter()
        .find(|r| r.name == "ledger")
        .expect("ledger crawled");
    let functions: Vec<Function> = schemas::read_table(dir.path()).unwrap();
    let refs: Vec<Reference> = schemas::read_table(dir.path()).unwrap();
    let by_id: BTreeMap<&str, &Function> = functions
        .iter()
        .map(|f| (f.function_id.as_str(), f))
        .collect();
    let got: BTreeSet<String> = refs
        .iter()
        .filter(|r| r.repo_id == ledger.repo_id)
        .filter_map(|r| {
            let f = by_id[r.function_id.as_str()];
            f.path.starts_with("src/ledger/").then(|| {
                format!(
                    "{}\t{}\t{}\t{}\t{}",
                    f.path,
                    f.qualname,
                    r.chain,
                    r.kind,
                    r.target.as_deref().unwrap_or("-")
                )
            })
        })
        .collect();
    let text = std::fs::read_to_string(root().join("data/fixtures/ledger/EXPECTED_REFERENCES.tsv"))
        .unwrap();
    let want: BTreeSet<String> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let missing: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "ledger references differ from EXPECTED_REFERENCES.tsv\nexpected, not found:\n{}\nfound, not expected:\n{}",
        missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        extra.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// Every function of the fixtures with its class and reasons, as a reviewed snapshot.
#[test]
fn fixture_classifications_snapshot() {
    let dir = fixture_dataset();
    let repos: Vec<Repo> = schemas::read_table(dir.path()).unwrap();
    let names: BTreeMap<&str, &str> = repos
        .iter()
        .map(|r| (r.repo_id.as_str(), r.name.as_str()))
        .collect();
    let functions: Vec<Function> = schemas::read_table(dir.path()).unwrap();
    let classes: Vec<Classification> = schemas::read_table(dir.path()).unwrap();
    let by_id: BTreeMap<&str, &Classification> = classes
        .iter()
        .map(|c| (c.function_id.as_str(), c))
        .collect();
    let mut lines: Vec<String> = functions
        .iter()
        .map(|f| {
            let c = by_id[f.function_id.as_str()];
            format!(
                "{}/{}::{} {} [{}]",
                names[f.repo_id.as_str()],
                f.path,
                f.qualname,
                c.class,
                c.reasons.join(", ")
            )
        })
        .collect();
    lines.sort();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn every_file_kind_and_skip_reason_is_recorded() {
    let dir = fixture_dataset();
    let text = table_text::<File>(dir.path());
    assert!(
        text.contains("legacy_latin1.py") && text.contains("not valid UTF-8"),
        "the latin-1 file is skipped with its reason"
    );
    let modules: Vec<Module> = schemas::read_table(dir.path()).unwrap();
    let broken = modules
        .iter()
        .find(|m| m.path.ends_with("broken.py"))
        .expect("broken.py parsed");
    assert_eq!(broken.parse_status, "syntax_error".parse().unwrap());
    assert!(!broken.errors.is_empty());
    assert!(
        broken.functions > 0,
        "the functions that still parse are kept"
    );
}

fn assert_refused(stage: &str, dir: &Path, table_file: &str, needle: &str) {
    let out = run(stage, &["-q", "--data", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stage} should exit 2: {err}");
    assert!(
        err.contains(table_file) && err.contains(needle),
        "{stage}'s message should name {table_file} and say `{needle}`: {err}"
    );
}

#[test]
fn corrupt_or_foreign_tables_stop_the_next_stage_with_exit_2() {
    let dir = fixture_dataset();
    // A corrupt table.
    let files = dir.path().join("files.parquet");
    let good = std::fs::read(&files).unwrap();
    std::fs::write(&files, &good[..good.len() / 2]).unwrap();
    assert_refused(
        "resolve",
        dir.path(),
        "files.parquet",
        "not a readable Parquet file",
    );
    std::fs::write(&files, good).unwrap();
    // A table of another schema version: a Parquet file stamped with version 0.
    let functions = dir.path().join("functions.parquet");
    restamp(&functions, "0");
    assert_refused(
        "classify",
        dir.path(),
        "functions.parquet",
        &format!(
            "schema version 0, but this freshbench expects version {}",
            schemas::SCHEMA_VERSION
        ),
    );
    // A table missing.
    std::fs::remove_file(dir.path().join("references.parquet")).unwrap();
    std::fs::remove_file(&functions).unwrap();
    assert_refused(
        "classify",
        dir.path(),
        "functions.parquet",
        "run `resolve` first",
    );
}

/// Rewrites a table's stamp to another version, keeping its rows (as an older release would have written it).
fn restamp(path: &Path, version: &str) {
    let bytes = std::fs::read(path).unwrap();
    let key = "freshbench.schema_version".to_string();
    // The stamp is in the footer's key-value metadata; rewriting it in place keeps the
    // file valid when the new value has the same length as the old one.
    let old = schemas::SCHEMA_VERSION.to_string();
    assert_eq!(old.len(), version.len(), "same-length versions only");
    let pos = bytes
        .windows(key.len())
        .rposition(|w| w == key.as_bytes())
        .expect("stamp present");
    let after = &bytes[pos + key.len()..];
    let vpos = after
        .windows(old.len())
        .position(|w| w == old.as_bytes())
        .expect("version after key");
    let mut out = bytes.clone();
    let at = pos + key.len() + vpos;
    out[at..at + old.len()].copy_from_slice(version.as_bytes());
    std::fs::write(path, out).unwrap();
}

/// Regression: `classify --print-default-config`, as the README gives it, failed because
/// `--data` was required.
#[test]
fn classify_prints_its_default_config_without_a_dataset() {
    let out = run("classify", &["--print-default-config"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.parse::<toml::Table>().is_ok(), "{text}");
    // Modes that need a dataset still say so.
    let out = run("classify", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--data DIR is required"));
}
