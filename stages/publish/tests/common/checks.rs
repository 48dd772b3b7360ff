//! Runs HumanEval-shaped checks through the execution library, in its sandboxed worker, as
//! every stage runs task code: the exported programs are task references and answers, so
//! they never run in a bare interpreter, even in a test. Shared by `tests/cli.rs` (through
//! `common`) and `src/humaneval_tests.rs` (by path).

use execution::{run_batch, Limits, ProcessBackend, ProcessOptions, Request, Status, WorkerSpec};

/// One verdict per (program, test, entry point): the program (prompt + completion) and its
/// `check` function run as one module, then `check(entry_point)`: "pass", "fail: <assert
/// message>" or "error: <type>: <message>". `Err` says why no worker could start.
pub fn run_checks(rows: &[(String, String, String)]) -> Result<Vec<String>, String> {
    let requests: Vec<Request> = rows
        .iter()
        .map(|(program, test, entry)| {
            let source =
                format!("{program}\n{test}\n\ndef __freshbench_check():\n    check({entry})\n");
            Request::call_source(&source, "__freshbench_check", "[]")
        })
        .collect();
    let backend = ProcessBackend::new(ProcessOptions::default());
    let outcomes = run_batch(
        &backend,
        &WorkerSpec::default(),
        &requests,
        &Limits::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok(outcomes
        .iter()
        .map(|o| match (o.status, &o.exception) {
            (Status::Ok, _) => "pass".to_string(),
            (Status::Exception, Some(e)) if e.type_name == "AssertionError" => {
                format!("fail: {}", e.message)
            }
            (_, Some(e)) => format!("error: {}: {}", e.type_name, e.message),
            (status, None) => format!(
                "error: {status:?}: {}",
                o.detail.as_deref().unwrap_or("no detail")
            ),
        })
        .collect())
}
