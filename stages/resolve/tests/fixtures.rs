//! The fixture projects of `data/fixtures`: the name-resolution fixture (`ledger`), whose
//! references must match its hand-written `EXPECTED_REFERENCES.tsv` (rules in
//! `EXPECTED_REFERENCES.md`) row for row, and the syntax-error file of `sensors`.

use std::path::{Path, PathBuf};

fn python_files(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "py") {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn fixture(name: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/fixtures")
        .join(name);
    if root.is_dir() {
        Some(root)
    } else {
        println!("skipped: fixture {} is missing", root.display());
        None
    }
}

#[test]
fn a_syntax_error_keeps_the_functions_around_it() {
    let Some(root) = fixture("sensors") else {
        return;
    };
    let source = std::fs::read_to_string(root.join("sensors/broken.py")).unwrap();
    let a = resolve::analyze_file(&source, "sensors.broken", false).unwrap();
    assert!(!a.errors.is_empty());
    let got: Vec<_> = a
        .functions
        .iter()
        .map(|f| (f.qualname.as_str(), f.has_syntax_error))
        .collect();
    assert_eq!(
        got,
        [
            ("celsius_to_kelvin", false),
            ("kelvin_to_celsius", true),
            ("hpa_to_inhg", false),
            ("inhg_to_hpa", false)
        ]
    );
}

#[test]
fn ledger_references_match_the_hand_written_expectations() {
    let Some(root) = fixture("ledger") else {
        return;
    };
    let expected_path = root.join("EXPECTED_REFERENCES.tsv");
    if !expected_path.exists() {
        println!("skipped: {} is missing", expected_path.display());
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap();
    let files = python_files(&root);
    let resolved = resolve::resolve_repo(&files).unwrap();
    let mut got = vec!["path\tqualname\tchain\tkind\ttarget".to_string()];
    for file in resolved
        .iter()
        .filter(|f| f.path.starts_with("src/ledger/"))
    {
        for (f, resolutions) in file.analysis.functions.iter().zip(&file.resolutions) {
            for (n, r) in f.free_names.iter().zip(resolutions) {
                got.push(format!(
                    "{}\t{}\t{}\t{}\t{}",
                    file.path,
                    f.qualname,
                    n.chain,
                    r.kind.as_str(),
                    r.target.as_deref().unwrap_or("-")
                ));
            }
        }
    }
    let expected: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    let missing: Vec<&&str> = expected
        .iter()
        .filter(|e| !got.iter().any(|g| g == **e))
        .collect();
    let extra: Vec<&String> = got
        .iter()
        .filter(|g| !expected.contains(&g.as_str()))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing:\n{missing:#?}\nunexpected:\n{extra:#?}"
    );
    assert_eq!(got, expected, "same rows, same order");
}
