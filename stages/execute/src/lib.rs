//! `execute`: the execution library of freshbench, and the stage that checks tasks by
//! running them.
//!
//! Every stage that runs untrusted code (repository code, synthesized tests, model answers)
//! does it through this crate, never by starting processes of its own. A [`Backend`]
//! starts [`Worker`]s: one persistent Python runner (`python/runner.py`) per batch that
//! serves many [`Request`]s (`call` a function with literal arguments, optionally measuring
//! its branch arcs; `pytest` node ids with the lines each test executed). No code runs in
//! the runner itself: the calls of one target share a process forked from it (a fresh one
//! per call with [`Call::fresh`]), each pytest request gets one, and any call that misbehaves
//! ends its process. The worker reports an [`Outcome`] per request. [`run_batch`] charges a
//! request that kills or hangs its worker with the failure and goes on with a new worker.
//! Judging is done here in Rust ([`Outcome::passes`], [`Value::same`]), out of the
//! candidate's reach. The `process` backend ([`ProcessBackend`]) and its isolation are
//! described in [`sandbox`]; a `docker` backend will fit beside it.
//!
//! The binary (`execute`) reads and writes dataset tables in later issues; for now it checks
//! the sandbox (`--check-sandbox`).

pub mod backend;
pub mod batch;
pub mod process;
pub mod protocol;
pub mod sandbox;
pub mod value;
pub mod worker;

use clap::Parser;
use schemas::cli::{CommonArgs, Outcome as StageOutcome};

pub use backend::{
    default_interpreter, Backend, ExecError, Failure, Limits, Worker, WorkerInfo, WorkerSpec,
};
pub use batch::{run_batch, Batch};
pub use process::{ProcessBackend, ProcessOptions};
pub use protocol::{
    ArcCoverage, Call, ExceptionInfo, Isolation, Outcome, PytestRun, Request, Status, Target,
    TestOutcome,
};
pub use value::Value;
pub use worker::ProcessWorker;

/// Run untrusted Python in a sandbox; check the sandbox.
#[derive(Debug, Parser)]
#[command(name = "execute", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Start one worker and print the isolation it got (namespaces or rlimits-only, its uid,
    /// the network it sees); exit 1 with --require-isolation when namespaces are missing.
    #[arg(long)]
    pub check_sandbox: bool,
    /// Refuse to run code without namespaces (exit 1) instead of falling back to rlimits only.
    #[arg(long)]
    pub require_isolation: bool,
    /// The Python interpreter of the worker (default: .tools/venv/bin/python, else python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<std::path::PathBuf>,
}

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<StageOutcome> {
    if !args.check_sandbox {
        anyhow::bail!("nothing to do: only --check-sandbox exists for now (see `execute --help`)");
    }
    let backend = ProcessBackend::new(ProcessOptions {
        require_isolation: args.require_isolation,
        ..ProcessOptions::default()
    });
    let spec = WorkerSpec {
        interpreter: args.python.clone(),
        ..WorkerSpec::default()
    };
    let worker = match backend.start(&spec, &Limits::default()) {
        Ok(w) => w,
        Err(ExecError::IsolationUnavailable { reason }) => {
            println!("isolation: rlimits-only (refused: {reason})");
            return Ok(StageOutcome::Lacking);
        }
        Err(e) => return Err(e.into()),
    };
    let info = worker.info();
    println!("backend: {}", backend.name());
    println!("isolation: {}", worker.isolation().as_str());
    if let Some(why) = backend.namespaces_unavailable() {
        println!("namespaces unavailable: {why}");
    }
    println!("python: {} ({})", info.python, info.executable);
    println!(
        "coverage: {}",
        info.coverage.as_deref().unwrap_or("missing")
    );
    println!(
        "uid: {} gid: {} pid as seen inside: {}",
        info.uid, info.gid, info.pid
    );
    let only_lo = info.interfaces.iter().all(|i| i == "lo");
    println!(
        "network: {} (interfaces visible: {})",
        if only_lo { "none" } else { "the host's" },
        info.interfaces.join(", ")
    );
    println!(
        "worker memory: {} KiB",
        worker
            .memory_bytes()
            .map_or_else(|| "?".into(), |b| (b / 1024).to_string())
    );
    Ok(StageOutcome::Success)
}
