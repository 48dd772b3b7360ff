//! Helpers for the end-to-end tests: locate (and if needed build) the stage binaries, run
//! them, and print tables as sorted text for comparison.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Once;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

static BUILD: Once = Once::new();

/// Path of a stage binary of the dev profile, built once per test process (a no-op when
/// `make test` built them already).
pub fn bin(name: &str) -> PathBuf {
    BUILD.call_once(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(root())
            .args([
                "build",
                "--quiet",
                "-p",
                "crawl",
                "-p",
                "resolve",
                "-p",
                "classify",
                "-p",
                "synthesize-tests",
                "-p",
                "execute",
                "-p",
                "solve",
                "-p",
                "score",
                "-p",
                "publish",
                "-p",
                "mask",
                "-p",
                "slice",
                "--bins",
            ])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the stage binaries failed");
    });
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let path = target.join("debug").join(name);
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// Runs a stage binary with arguments; returns its output.
pub fn run(name: &str, args: &[&str]) -> Output {
    Command::new(bin(name))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

/// Runs and asserts the exit code, showing stderr when it differs.
pub fn run_ok(name: &str, args: &[&str]) -> Output {
    let out = run(name, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs crawl, resolve and classify on the fixture projects into `dir`.
pub fn pipeline(dir: &Path) {
    let d = dir.to_str().expect("utf-8 temp path");
    run_ok(
        "crawl",
        &["-q", "--data", d, "--sources", "data/fixtures/sources.toml"],
    );
    run_ok("resolve", &["-q", "--data", d]);
    run_ok("classify", &["-q", "--data", d]);
}

/// [`pipeline`], then function tasks synthesized and every task validated (without
/// third-party environments), into `dir`.
pub fn validated_pipeline(dir: &Path) {
    pipeline(dir);
    let d = dir.to_str().expect("utf-8 temp path");
    run_ok(
        "synthesize-tests",
        &[
            "-q",
            "--data",
            d,
            "--no-envs",
            "--seconds",
            "600",
            "--jobs",
            "2",
        ],
    );
    run_ok(
        "execute",
        &["-q", "--data", d, "--validate", "--no-envs", "--jobs", "2"],
    );
}

/// A table as text: one JSON object a row, sorted.
pub fn table_text<T: schemas::Table>(dir: &Path) -> String {
    let rows: Vec<T> = schemas::read_table(dir).expect("table reads");
    let mut lines: Vec<String> = rows
        .iter()
        .map(|r| serde_json::to_string(r).expect("row serializes"))
        .collect();
    lines.sort();
    lines.join("\n")
}
