//! Executions per second of a run's candidates: the execution library (one persistent,
//! isolated worker; the cases of one candidate in one process forked from it; judged in
//! Rust) against the way `HumanEval`-style harnesses do it (a fresh `python3` per candidate,
//! with rlimits, that defines the answer, runs every case as an assertion and prints how
//! many passed). Both run the same candidates in the same run; the table gives candidates
//! per second, the ratio, and how often the two verdicts agree.

use std::collections::HashMap;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use execute::tasks::{self, JudgeOptions};
use execution::{Batch, Limits, ProcessBackend, ProcessOptions, WorkerSpec};
use schemas::Candidate;

/// Candidates per second through the sandbox against a fresh Python process per candidate.
#[derive(Debug, Parser)]
#[command(name = "candidates-bench", about, long_about = None)]
struct Args {
    /// The dataset directory (function tasks, test cases).
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// The run whose candidates are executed (`DIR/runs/NAME/candidates.parquet`).
    #[arg(long, value_name = "NAME")]
    run: String,
    /// At most this many candidates (the first ones in task order).
    #[arg(long, default_value_t = 200)]
    limit: usize,
    /// The Python interpreter (default: .tools/venv/bin/python, else python3).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
}

/// The alternative's harness: reads the answer and the cases as JSON on stdin, runs each
/// case as `candidate(*args, **kwargs) == expected` (or the expected exception's type),
/// prints the number passed.
const HARNESS: &str = r#"
import json, sys, math, operator
job = json.load(sys.stdin)
ns = {}
exec(compile(job["answer"], "candidate.py", "exec"), ns)
fn = ns[job["entry_point"]]
env = {"__builtins__": __builtins__, "operator": operator, "nan": float("nan"), "inf": float("inf")}
passed = 0
for case in job["cases"]:
    try:
        args = eval(case["args"], env)
        kwargs = eval(case["kwargs"], env)
        got = fn(*args, **kwargs)
        if hasattr(got, "__next__"):
            got = list(got)
        if case["exception"] is None:
            want = eval(case["expected"], env)
            if hasattr(want, "__next__"):
                want = list(want)
            ok = got == want or (isinstance(got, float) and isinstance(want, float) and math.isclose(got, want))
            passed += bool(ok)
    except BaseException as e:
        if case["exception"] == type(e).__qualname__:
            passed += 1
print(passed)
"#;

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let python = args
        .python
        .clone()
        .unwrap_or_else(execution::default_interpreter);
    let all = tasks::load_function_tasks(&args.data)?;
    let by_id: HashMap<&str, &tasks::TaskCases> =
        all.iter().map(|t| (t.task.task_id.as_str(), t)).collect();
    let cands: Vec<Candidate> = schemas::read_table_from(
        &args
            .data
            .join("runs")
            .join(&args.run)
            .join("candidates.parquet"),
    )?;
    let todo: Vec<(&Candidate, &tasks::TaskCases)> = cands
        .iter()
        .filter(|c| c.status == schemas::AnswerStatus::Ok && c.answer.is_some())
        .filter_map(|c| by_id.get(c.task_id.as_str()).map(|t| (c, *t)))
        .take(args.limit)
        .collect();
    if todo.is_empty() {
        anyhow::bail!("no candidates with answers of ok tasks in run {}", args.run);
    }
    let cases: usize = todo.iter().map(|(_, t)| t.cases.len()).sum();

    // Ours.
    let backend = ProcessBackend::new(ProcessOptions::default());
    let opts = JudgeOptions::default();
    let spec = WorkerSpec {
        interpreter: Some(python.clone()),
        ..WorkerSpec::default()
    };
    let t0 = Instant::now();
    let mut batch = Batch::new(&backend, &spec, &opts.limits);
    let mut ours = Vec::new();
    for (c, t) in &todo {
        let v = tasks::judge(&mut batch, c.answer.as_deref().unwrap_or(""), t, &opts)?;
        ours.push(v.status == schemas::ExecStatus::Pass);
    }
    let ours_secs = t0.elapsed().as_secs_f64();

    // The alternative: a fresh python3 per candidate.
    let t0 = Instant::now();
    let mut theirs = Vec::new();
    for (c, t) in &todo {
        let job = serde_json::json!({
            "answer": c.answer,
            "entry_point": t.task.entry_point,
            "cases": t.cases.iter().map(|k| serde_json::json!({
                "args": k.args, "kwargs": k.kwargs,
                "expected": k.expected_repr, "exception": k.expected_exception,
            })).collect::<Vec<_>>(),
        });
        let mut cmd = Command::new(&python);
        cmd.args(["-I", "-c", HARNESS])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let limits = Limits::default();
        // SAFETY: only async-signal-safe setrlimit calls between fork and exec.
        #[allow(unsafe_code)]
        unsafe {
            cmd.pre_exec(move || {
                let set = |r, v: u64| {
                    let l = libc::rlimit {
                        rlim_cur: v,
                        rlim_max: v,
                    };
                    libc::setrlimit(r, &raw const l);
                };
                set(libc::RLIMIT_CPU, limits.cpu_seconds);
                set(libc::RLIMIT_AS, limits.memory_bytes);
                Ok(())
            });
        }
        let mut child = cmd.spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(job.to_string().as_bytes());
        }
        let deadline = Instant::now() + Duration::from_secs(10 * t.cases.len().max(1) as u64);
        let out = loop {
            if let Some(_status) = child.try_wait()? {
                break child.wait_with_output()?;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                break child.wait_with_output()?;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let passed: usize = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(0);
        theirs.push(passed == t.cases.len());
    }
    let theirs_secs = t0.elapsed().as_secs_f64();

    let n = todo.len() as f64;
    let agree = ours.iter().zip(&theirs).filter(|(a, b)| a == b).count();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "candidates benchmark: run {}, {} candidates, {cases} test cases",
        args.run,
        todo.len()
    )?;
    writeln!(
        out,
        "| harness | seconds | candidates/s | cases/s | passes |"
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    for (name, secs, v) in [
        (
            "freshbench (sandboxed, persistent worker)",
            ours_secs,
            &ours,
        ),
        (
            "fresh python3 per candidate (rlimits only)",
            theirs_secs,
            &theirs,
        ),
    ] {
        writeln!(
            out,
            "| {name} | {secs:.2} | {:.1} | {:.1} | {} |",
            n / secs,
            cases as f64 / secs,
            v.iter().filter(|p| **p).count()
        )?;
    }
    writeln!(
        out,
        "ratio: freshbench runs {:.1}x the candidates per second; verdicts agree on {agree} of {}",
        theirs_secs / ours_secs,
        todo.len()
    )?;
    Ok(())
}
