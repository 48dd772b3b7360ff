//! The built `crawl` binary: exit codes, what it prints, and its help.

use std::path::Path;
use std::process::{Command, Output};

fn crawl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crawl"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn project(root: &Path) -> String {
    std::fs::create_dir_all(root.join("proj/pkg")).unwrap();
    std::fs::write(root.join("proj/pkg/m.py"), "x = 1\n").unwrap();
    format!("path:{}", root.join("proj").display())
}

#[test]
fn exit_0_when_every_source_is_ok() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = crawl(&["--data", &data.display().to_string(), &project(tmp.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("repos: 1 ok, 0 skipped, 0 error"),
        "{stdout}"
    );
    assert!(stdout.contains("files: 1 kept, 0 skipped"), "{stdout}");
    assert!(data.join("repos.parquet").is_file() && data.join("files.parquet").is_file());
}

#[test]
fn exit_1_when_a_source_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let missing = format!("path:{}", tmp.path().join("nope").display());
    let out = crawl(&[
        "-q",
        "--data",
        &data.display().to_string(),
        &missing,
        &project(tmp.path()),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("source `{missing}` failed")) && stderr.contains("no such folder"),
        "{stderr}"
    );
    assert!(text(&out.stdout).contains("repos: 1 ok, 0 skipped, 1 error"));
}

#[test]
fn exit_2_on_errors_of_use() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data").display().to_string();
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "sources = [\"attrs\"]\n").unwrap();
    let out = crawl(&["--data", &data, "--sources", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("source `attrs`") && stderr.contains("write `pypi:NAME[==VERSION]`"),
        "{stderr}"
    );

    std::fs::write(&bad, "sources = [\"pypi:attrs\"\n").unwrap();
    let out = crawl(&["--data", &data, "--sources", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bad.toml"),
        "{}",
        text(&out.stderr)
    );

    let out = crawl(&["--data", &data, "--since", "last week", "pypi:attrs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("YYYY-MM-DD"));

    // Regression: a day the month does not have was read as a day of the next month.
    for impossible in ["2026-02-30", "2026-04-31", "2025-02-29"] {
        let out = crawl(&["--data", &data, "--since", impossible, "pypi:attrs"]);
        assert_eq!(out.status.code(), Some(2), "{impossible}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(impossible) && stderr.contains("YYYY-MM-DD with a day the month has"),
            "{stderr}"
        );
    }
    assert!(!Path::new(&data).join("repos.parquet").exists());

    let out = crawl(&["--data", &data]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no sources"));

    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = crawl(&["--data", &file.display().to_string(), &project(tmp.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("dataset directory"),
        "{}",
        text(&out.stderr)
    );

    assert_eq!(crawl(&["--data", &data, "--bogus"]).status.code(), Some(2));
    assert!(
        !tmp.path().join("data").exists(),
        "nothing written on an error of use"
    );
}

#[test]
fn help_documents_every_option() {
    let out = crawl(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for option in [
        "--data <DIR>",
        "--quiet",
        "--verbose",
        "[SOURCE]...",
        "--sources <FILE.toml>",
        "--since <YYYY-MM-DD>",
        "--index-url <URL>",
        "--max-file-bytes <N>",
        "--max-archive-bytes <N>",
        "--cache <DIR>",
        "pypi:NAME",
        "git:URL",
        "path:DIR",
        "1048576",
        "536870912",
    ] {
        assert!(help.contains(option), "--help lacks `{option}`:\n{help}");
    }
}
