//! The binary's answers to bad input: what is missing, and what to run first.

use std::process::Command;

fn slice() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slice"))
}

#[test]
fn without_data_it_says_what_to_give() {
    let out = slice().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--data"), "{err}");
}

#[test]
fn without_validations_it_says_what_to_run_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = slice()
        .args(["--data", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("execute --data") && err.contains("--validate"),
        "{err}"
    );
}

#[test]
fn zero_jobs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = slice()
        .args(["--data", dir.path().to_str().unwrap(), "--jobs", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--jobs 0"));
}
