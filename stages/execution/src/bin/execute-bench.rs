//! Throughput of the execution library against the usual alternative, measured in one run.
//!
//! Ours: one persistent, isolated worker per batch (the calls of one function served by one
//! process forked from it). The alternative, as the `HumanEval` and `EvalPlus` harnesses do
//! it: a fresh `python3` process per
//! call with rlimits, which defines the function, calls it and prints the result.
//! Prints a table of calls per second and the ratio, the worker's memory and the start-up
//! cost of a batch (time from asking for a worker to its first answer). Where a Docker engine
//! with freshbench's image is reachable, the same calls go through the docker backend too (a
//! container per worker), with its ratio to the process backend and the start-up cost of one
//! container over several starts.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use execution::{Backend, Limits, ProcessBackend, ProcessOptions, Request, Status, WorkerSpec};

/// Calls per second of the execution library against a fresh Python process per call.
#[derive(Debug, Parser)]
#[command(name = "execute-bench", about, long_about = None)]
struct Args {
    /// Calls through the persistent worker, per case.
    #[arg(long, default_value_t = 500)]
    calls: usize,
    /// Calls of the alternative (a fresh process each), per case.
    #[arg(long, default_value_t = 40)]
    baseline_calls: usize,
    /// The Python interpreter (default: .tools/venv/bin/python, else python3).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Containers started one after another to measure the docker backend's start-up.
    #[arg(long, default_value_t = 8)]
    starts: usize,
}

const SMALL: &str = "def add(a, b):\n    return a + b\n";

const TYPICAL: &str = r#"import re
from collections import Counter


def summarize(text, top=3, min_len=3):
    """Normalizes text, counts its words and returns a short summary line."""
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    cleaned = re.sub(r"[^a-z0-9\s-]", " ", text.lower())
    words = [w.strip("-") for w in cleaned.split()]
    words = [w for w in words if len(w) >= min_len]
    if not words:
        return ""
    counts = Counter(words)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = []
    for word, n in ranked[:top]:
        if n > 1:
            parts.append(f"{word} x{n}")
        else:
            parts.append(word)
    longest = max(words, key=len)
    vowels = sum(1 for ch in cleaned if ch in "aeiou")
    ratio = vowels / max(1, len(cleaned.replace(" ", "")))
    if ratio > 0.4:
        tone = "soft"
    elif ratio > 0.3:
        tone = "even"
    else:
        tone = "hard"
    title = " ".join(p.capitalize() for p in parts)
    return f"{title} | longest={longest} | {len(counts)} distinct | {tone}"
"#;

const TYPICAL_ARGS: &str = r#"["The quick brown fox jumps over the lazy dog; the dog sleeps, the fox runs off-road and the end is near."]"#;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// The calls of one function share a forked process (the default).
    Plain,
    /// The same, measuring branch arcs per call.
    Coverage,
    /// A process forked from the worker per call (`Call::fresh`).
    Fresh,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Plain => "off",
            Mode::Coverage => "on",
            Mode::Fresh => "off, fresh",
        }
    }
}

struct Case {
    name: &'static str,
    source: &'static str,
    function: &'static str,
    args: &'static str,
}

fn ours(
    backend: &dyn Backend,
    spec: &WorkerSpec,
    case: &Case,
    mode: Mode,
    calls: usize,
) -> anyhow::Result<(f64, Duration, Option<u64>)> {
    let limits = Limits::default();
    let mut req = Request::call_source(case.source, case.function, case.args)
        .with_coverage(mode == Mode::Coverage);
    if let (Request::Call(c), Mode::Fresh) = (&mut req, mode) {
        c.fresh = true;
    }
    let t0 = Instant::now();
    let mut worker = backend.start(spec, &limits)?;
    let first = worker.call(&req, &limits)?;
    let startup = t0.elapsed();
    anyhow::ensure!(first.status == Status::Ok, "{}: {first:?}", case.name);
    let t1 = Instant::now();
    for _ in 0..calls {
        let o = worker.call(&req, &limits)?;
        anyhow::ensure!(o.status == Status::Ok, "{}: {o:?}", case.name);
    }
    let rate = calls as f64 / t1.elapsed().as_secs_f64();
    Ok((rate, startup, worker.memory_bytes()))
}

/// One fresh process per call, with rlimits, printing the result's repr.
fn baseline(python: &PathBuf, case: &Case, calls: usize) -> anyhow::Result<f64> {
    let program = format!(
        "{}\nimport sys\nprint(repr({}(*{})))\n",
        case.source, case.function, case.args
    );
    let t0 = Instant::now();
    for _ in 0..calls {
        let mut cmd = Command::new(python);
        cmd.arg("-c")
            .arg(&program)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[allow(unsafe_code)]
        // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                for (res, val) in [
                    (libc::RLIMIT_AS, 1u64 << 30),
                    (libc::RLIMIT_CPU, 10),
                    (libc::RLIMIT_FSIZE, 16 << 20),
                    (libc::RLIMIT_NOFILE, 256),
                    (libc::RLIMIT_CORE, 0),
                ] {
                    let lim = libc::rlimit {
                        rlim_cur: val,
                        rlim_max: val,
                    };
                    if libc::setrlimit(res, &raw const lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let out = cmd.output()?;
        anyhow::ensure!(
            out.status.success(),
            "baseline failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(calls as f64 / t0.elapsed().as_secs_f64())
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let python = args
        .python
        .clone()
        .unwrap_or_else(execution::default_interpreter);
    let backend = ProcessBackend::new(ProcessOptions::default());
    let spec = WorkerSpec {
        interpreter: Some(python.clone()),
        ..WorkerSpec::default()
    };
    let cases = [
        Case {
            name: "small (add)",
            source: SMALL,
            function: "add",
            args: "[1, 2]",
        },
        Case {
            name: "typical (30-line str)",
            source: TYPICAL,
            function: "summarize",
            args: TYPICAL_ARGS,
        },
    ];
    let probe = backend.start(&spec, &Limits::default())?;
    println!(
        "python: {} ({}), isolation: {}",
        probe.info().python,
        python.display(),
        probe.isolation().as_str()
    );
    drop(probe);
    println!(
        "{:<24} {:>11} {:>14} {:>16} {:>8} {:>11} {:>10}",
        "case", "coverage", "ours calls/s", "fresh proc/s", "ratio", "startup ms", "RSS MiB"
    );
    let mut out = std::io::stdout().lock();
    let mut process_rates = Vec::new();
    for case in &cases {
        let base = baseline(&python, case, args.baseline_calls)?;
        for mode in [Mode::Plain, Mode::Coverage, Mode::Fresh] {
            let calls = if mode == Mode::Fresh {
                args.calls / 4
            } else {
                args.calls
            };
            let (rate, startup, rss) = ours(&backend, &spec, case, mode, calls)?;
            process_rates.push(rate);
            writeln!(
                out,
                "{:<24} {:>11} {:>14.0} {:>16.1} {:>7.1}x {:>11.0} {:>10}",
                case.name,
                mode.label(),
                rate,
                base,
                rate / base,
                startup.as_secs_f64() * 1000.0,
                rss.map_or_else(
                    || "?".into(),
                    |b| format!("{:.1}", b as f64 / f64::from(1 << 20))
                ),
            )?;
        }
    }
    writeln!(
        out,
        "ours: one worker in namespaces; a function's calls share one process forked from it \
         (fresh: one fork per call). fresh proc: `python -c` per call with rlimits, no isolation. \
         startup: from asking for a worker to its first answer; RSS: the runner's."
    )?;
    docker(&args, &cases, &process_rates, &mut out)?;
    Ok(())
}

/// The same calls through the docker backend, and the start-up cost of a container.
fn docker(
    args: &Args,
    cases: &[Case],
    process_rates: &[f64],
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    let backend = match execution::docker::try_local() {
        Ok(Some(b)) => b,
        Ok(None) => {
            writeln!(
                out,
                "docker: SKIP, no engine reachable at {}",
                execution::docker::LOCAL_SOCKET
            )?;
            return Ok(());
        }
        Err(e) => {
            writeln!(out, "docker: SKIP, {e}")?;
            return Ok(());
        }
    };
    // The image's own Python (the tools' interpreter is replaced by it).
    let spec = WorkerSpec::default();
    let limits = Limits::default();
    let mut starts = Vec::new();
    for _ in 0..args.starts.max(1) {
        let t0 = Instant::now();
        let mut w = backend.start(&spec, &limits)?;
        let o = w.call(&Request::call_source(SMALL, "add", "[1, 2]"), &limits)?;
        anyhow::ensure!(o.status == Status::Ok, "docker: {o:?}");
        starts.push(t0.elapsed());
        drop(w);
    }
    starts.sort();
    writeln!(
        out,
        "docker: {} containers started one after another: start to first answer median {:.0} ms, min {:.0} ms, max {:.0} ms (process backend: the startup column above)",
        starts.len(),
        starts[starts.len() / 2].as_secs_f64() * 1000.0,
        starts[0].as_secs_f64() * 1000.0,
        starts[starts.len() - 1].as_secs_f64() * 1000.0,
    )?;
    writeln!(
        out,
        "{:<24} {:>11} {:>16} {:>17} {:>10} {:>11}",
        "case", "coverage", "docker calls/s", "process calls/s", "ratio", "startup ms"
    )?;
    let mut i = 0;
    for case in cases {
        for mode in [Mode::Plain, Mode::Coverage, Mode::Fresh] {
            let calls = if mode == Mode::Fresh {
                args.calls / 4
            } else {
                args.calls
            };
            let (rate, startup, _) = ours(&backend, &spec, case, mode, calls)?;
            let process = process_rates.get(i).copied().unwrap_or(f64::NAN);
            i += 1;
            writeln!(
                out,
                "{:<24} {:>11} {:>16.0} {:>17.0} {:>9.2}x {:>11.0}",
                case.name,
                mode.label(),
                rate,
                process,
                rate / process,
                startup.as_secs_f64() * 1000.0,
            )?;
        }
    }
    writeln!(
        out,
        "docker: one container per worker (network none, read-only root, all capabilities dropped, user 10001), the same runner; ratio: docker calls/s over the process backend's."
    )?;
    let left = backend.own_containers()?;
    writeln!(
        out,
        "docker: containers left after the bench: {}",
        left.len()
    )?;
    Ok(())
}
