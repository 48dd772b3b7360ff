//! `execute`: the stage that checks tasks by running them. It runs code only through the
//! execution library (the `execution` crate: backends, workers, the runner, the protocol,
//! values); this crate holds its modes and the per-family judges the other stages reuse.
//!
//! Repositories run in environments of their own ([`env`]): one virtual environment per
//! dependency set, built with uv from the dependency files crawl recorded and cached by a
//! hash of what defines it, and the repository's tree written from crawl's `files`.
//!
//! The binary (`execute`) has four modes, one per invocation:
//! - `--check-sandbox`: start one worker and print the isolation it got;
//! - `--repo-tests`: each crawled repository's own test suite, twice, in its environment
//!   ([`repo_tests`]): reads `repos` and `files`, writes `repo_tests` (per test: outcome,
//!   time, flakiness over two runs and the lines it executed per file), which later lets a
//!   masked span be judged by exactly the tests that run it;
//! - `--validate`: every `ok` function task checked by running it ([`evaluate`]): reads
//!   `function_tasks` and `test_cases`, writes `validations`;
//! - `--run NAME`: a run's answers judged against their tasks' cases ([`evaluate`]): reads
//!   `runs/NAME/candidates`, writes `runs/NAME/executions` (`--shard i/n` a part of them,
//!   `--merge-shards` the complete set of parts into one table).
//!
//! Rows that a rerun keeps carry a hash of what made them, which includes [`BUILD_ID`]: a
//! hash of this crate's code (and of the runner and the contract), recorded at build time.

pub mod assertion;
pub mod completion;
pub mod env;
pub mod evaluate;
pub mod repo_tests;
pub mod tasks;

use std::io::Write as _;

use clap::Parser;
use schemas::cli::{CommonArgs, Outcome as StageOutcome, ResumeArgs, Shard};

/// A hash of the code that judges (this crate, its Python runner, the table contract and
/// the mutants library), recorded at build time by `build.rs`: part of the hash of every
/// row execute keeps on a rerun, so rows made by another build are made again.
pub const BUILD_ID: &str = env!("FRESHBENCH_BUILD_ID");

pub use execution::{
    ArcCoverage, Backend, BackendArgs, Batch, Call, Criterion, ExceptionInfo, ExecError, Failure,
    Isolation, Limits, Outcome, PytestRun, Request, Role, SliceInput, SliceStatement, SliceUnit,
    Status, Target, TestReport, Trace, UnitStatus, Value, Worker, WorkerInfo, WorkerSpec,
};

/// Run untrusted Python in a sandbox, in one of four modes: --check-sandbox (the isolation
/// this machine gives), --repo-tests (the repositories' own test suites), --validate (check
/// every function task by running it), --run NAME (judge a model's answers).
#[derive(Debug, Parser)]
#[command(name = "execute", version, about, long_about = None)]
#[allow(clippy::struct_excessive_bools)] // command-line switches
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Start one worker and print the isolation it got (namespaces or rlimits-only, its uid,
    /// the network it sees); exit 1 with --require-isolation when namespaces are missing.
    #[arg(long)]
    pub check_sandbox: bool,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Build the docker backend's image (a Debian base with Python, and the runner's tools
    /// from wheels, without a registry) on the engines of --docker-host, where it is missing;
    /// with --force, again.
    #[arg(long)]
    pub build_image: bool,
    #[command(flatten)]
    pub env: env::EnvArgs,
    /// Run each crawled repository's own test suite (twice, in its environment, in the
    /// sandbox) and write `repo_tests`: outcome, time, flakiness and lines executed per test.
    #[arg(long)]
    pub repo_tests: bool,
    /// Only this repository (its name, `repo_id` or spec as in `repos.parquet`); repeatable.
    /// Default: every repository crawl recorded with status ok.
    #[arg(long = "repo", value_name = "NAME")]
    pub repos: Vec<String>,
    /// Redo the rows already written (with --repo-tests: repositories already in
    /// `repo_tests.parquet`; with --validate or --run: every task or candidate), instead of
    /// keeping those whose inputs are unchanged.
    #[arg(long)]
    pub force: bool,
    /// Wall-clock and CPU seconds for one pytest run of a repository's tests (a run that
    /// exceeds it is retried file by file, each file with this limit).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub timeout: u64,
    /// Repositories run in parallel.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Address space of a test process, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub memory_mb: u64,
    /// Check every task by running it and write `validations` (only valid tasks count
    /// downstream). A function task: the original twice (hash seeds 0 and 1) and an empty
    /// body once. A completion task (`completion_tasks`, written by mask): the original
    /// fill against its judge tests twice (hash seeds 0 and 1, the second time in the
    /// reverse order), each neutral fill (`pass`, `None`, the span deleted, `raise
    /// NotImplementedError`) once (each must fail), and `--mutants` mutants of the span
    /// (their kill rate is recorded; judges that kill none of them make the task invalid).
    #[arg(long)]
    pub validate: bool,
    /// Run the answers of `runs/NAME/candidates` against their tasks' cases and write
    /// `runs/NAME/executions` (status, cases passed, failure fingerprint).
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    /// With --run: only every n-th candidate from the i-th (1-based), written to
    /// `runs/NAME/executions-i-of-n.parquet`; `--merge-shards` joins the shards afterwards.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// With --run: join the complete set of shard files (all n of one count, no row twice)
    /// into `runs/NAME/executions.parquet` and remove them; an incomplete or inconsistent
    /// set is refused (exit 2) and nothing is deleted.
    #[arg(long, requires = "run", conflicts_with = "shard")]
    pub merge_shards: bool,
    /// With --validate: wall-clock and CPU seconds one test case may take. With --run: the
    /// limit of a case whose reference could not be timed (and of every case with
    /// --fixed-time-limit); the reference itself is timed with --time-factor times this.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    pub case_timeout: f64,
    /// With --run: a function task's case may take this many times what its reference
    /// solution took on that case, measured on this machine in the same run (at least
    /// --time-floor), so that a verdict does not depend on the machine's speed. Recorded in
    /// each execution row with the reference's time and the limit.
    #[arg(long, value_name = "X", default_value_t = tasks::TimeRule::DEFAULT_FACTOR)]
    pub time_factor: f64,
    /// With --run: the least wall-clock seconds a function task's case gets.
    #[arg(long, value_name = "SECS", default_value_t = tasks::TimeRule::DEFAULT_FLOOR_SECONDS)]
    pub time_floor: f64,
    /// With --run: give every case the fixed --case-timeout instead of a limit derived from
    /// its reference's time (as before; for comparison).
    #[arg(long)]
    pub fixed_time_limit: bool,
    /// With --validate or --run: don't build environments for tasks that import
    /// third-party packages (they are recorded as not runnable).
    #[arg(long)]
    pub no_envs: bool,
    /// With --validate: mutants of each completion task's span that are run against its
    /// judge tests (the share they kill is recorded; 0: none).
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub mutants: usize,
    /// With --validate or --run: a completion judge's wall-clock limit is this many seconds
    /// plus 5 times the seconds its tests took in `repo_tests`, at most 300.
    #[arg(long, value_name = "SECS", default_value_t = 20)]
    pub judge_base_timeout: u64,
    /// With --run: judge each completion answer by running every test file of its
    /// repository, not only the tests that execute the span (for comparison: `make bench`
    /// measures what it costs; the verdict is still the judge tests').
    #[arg(long)]
    pub whole_suite: bool,
    #[command(flatten)]
    pub resume: ResumeArgs,
}

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<StageOutcome> {
    let jobs = [
        args.build_image,
        args.check_sandbox,
        args.repo_tests,
        args.validate,
        args.run.is_some(),
    ];
    if jobs.iter().filter(|j| **j).count() > 1 {
        anyhow::bail!(
            "give one of --build-image, --check-sandbox, --repo-tests, --validate, --run (see `execute --help`)"
        );
    }
    if args.shard.is_some() && args.run.is_none() {
        anyhow::bail!("--shard splits the candidates of a run: give --run NAME too");
    }
    if args.build_image {
        return build_image(args);
    }
    if args.validate || args.run.is_some() {
        return evaluate_tasks(args);
    }
    match (args.check_sandbox, args.repo_tests) {
        (true, false) => check_sandbox(args),
        (false, true) => {
            if args.jobs == 0 {
                anyhow::bail!("--jobs 0: give at least 1");
            }
            if args.timeout == 0 {
                anyhow::bail!("--timeout 0: give the seconds a test run may take (at least 1)");
            }
            let opts = repo_tests::RepoTestsOptions {
                repos: args.repos.clone(),
                force: args.force,
                timeout: std::time::Duration::from_secs(args.timeout),
                jobs: args.jobs,
                memory_bytes: args.memory_mb.saturating_mul(1 << 20),
                env: args.env.config(),
                backend: args.backend.clone(),
            };
            repo_tests::run(&args.common, &opts)
        }
        (true, true) => anyhow::bail!("--check-sandbox and --repo-tests: give one of them"),
        (false, false) => anyhow::bail!(
            "nothing to do: give --validate (check the tasks), --run NAME (judge a model's answers), --repo-tests (run the repositories' test suites), --check-sandbox or --build-image (see `execute --help`)"
        ),
    }
}

/// `--validate` and `--run`.
fn evaluate_tasks(args: &Args) -> anyhow::Result<StageOutcome> {
    if args.jobs == 0 {
        anyhow::bail!("--jobs 0: give at least 1");
    }
    if !(args.case_timeout > 0.0 && args.case_timeout.is_finite()) {
        anyhow::bail!(
            "--case-timeout {}: give a positive number of seconds",
            args.case_timeout
        );
    }
    if !(args.time_factor >= 1.0 && args.time_factor.is_finite()) {
        anyhow::bail!(
            "--time-factor {}: give a number of at least 1 (a case's limit is that many times its reference's time)",
            args.time_factor
        );
    }
    if !(args.time_floor > 0.0 && args.time_floor.is_finite() && args.time_floor <= 3600.0) {
        anyhow::bail!(
            "--time-floor {}: give a positive number of seconds (at most 3600)",
            args.time_floor
        );
    }
    let python = args.env.interpreter();
    let judge = tasks::JudgeOptions {
        limits: Limits {
            wall: std::time::Duration::from_secs_f64(args.case_timeout),
            cpu_seconds: args.case_timeout.ceil() as u64,
            memory_bytes: args.memory_mb.saturating_mul(1 << 20),
            ..Limits::default()
        },
        ..tasks::JudgeOptions::default()
    };
    let opts = evaluate::EvalOptions {
        jobs: args.jobs,
        judge,
        force: args.force,
        backend: args.backend.clone(),
        envs: (!args.no_envs).then(|| args.env.config()),
        python,
        shard: args.shard,
        resume: args.resume,
        completion: completion::CompletionOptions {
            base_wall: std::time::Duration::from_secs(args.judge_base_timeout.max(1)),
            memory_bytes: args.memory_mb.saturating_mul(1 << 20),
            mutants: args.mutants,
            whole_suite: args.whole_suite,
            ..completion::CompletionOptions::default()
        },
        time: (!args.fixed_time_limit).then(|| tasks::TimeRule {
            factor: args.time_factor,
            floor: std::time::Duration::from_secs_f64(args.time_floor),
        }),
    };
    match &args.run {
        Some(run) if args.merge_shards => evaluate::merge_shards(&args.common, run),
        Some(run) => evaluate::run_candidates(&args.common, run, &opts),
        None => evaluate::validate(&args.common, &opts),
    }
}

/// `--build-image`: the docker backend's image, where it is missing.
fn build_image(args: &Args) -> anyhow::Result<StageOutcome> {
    let opts = execution::image::BuildOptions {
        hosts: args.backend.hosts(),
        force: args.force,
        pip_python: args.env.interpreter(),
        temp_root: None,
    };
    let tag = execution::image::default_tag();
    if !args.common.quiet {
        eprintln!("build-image: {tag} on {}", opts.hosts.join(", "));
    }
    let r = execution::image::build(&opts)?;
    let mut out = std::io::stdout().lock();
    for h in &r.present {
        writeln!(
            out,
            "{tag}: present on {h} (nothing to do; --force builds it again)"
        )?;
    }
    if !r.imported.is_empty() {
        writeln!(
            out,
            "{tag}: built in {:.1} s (Debian {:.1} s, wheels {:.1} s: {}; import {:.1} s), {} MiB, imported into {}",
            (r.debootstrap + r.wheels + r.import).as_secs_f64(),
            r.debootstrap.as_secs_f64(),
            r.wheels.as_secs_f64(),
            r.wheel_files.join(" "),
            r.import.as_secs_f64(),
            r.size_bytes >> 20,
            r.imported.join(", ")
        )?;
    }
    Ok(StageOutcome::Success)
}

/// What a container looks like from inside: effective capabilities, `no_new_privs`, whether
/// a shell can write to the root file system or reach the network.
const PROBE: &str = r#"import subprocess
def probe():
    status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
    sh = lambda c: subprocess.run(["sh", "-c", c], capture_output=True).returncode
    return ("capabilities %s, no_new_privs %s, root %s, network %s" % (
        status.get("CapEff", "?").strip(), status.get("NoNewPrivs", "?").strip(),
        "read-only" if sh(": > /usr/.fb-probe") else "WRITABLE",
        "unreachable" if sh("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 3)'") else "REACHABLE"))
"#;

/// `--check-sandbox`: start one worker and print the isolation it got.
fn check_sandbox(args: &Args) -> anyhow::Result<StageOutcome> {
    let spec = WorkerSpec {
        interpreter: args.env.python.clone(),
        ..WorkerSpec::default()
    };
    // Results go to stdout through `writeln!`, so a closed pipe (`| head`) ends the stage
    // quietly (exit 0 via `main_with`) instead of panicking as `println!` would.
    let mut out = std::io::stdout().lock();
    if args.backend.backend == execution::BackendKind::Docker {
        let backend = execution::DockerBackend::new(&args.backend.docker_options())?;
        let worker = backend.start(&spec, &Limits::default())?;
        let mut worker = worker;
        writeln!(out, "backend: docker")?;
        writeln!(out, "isolation: {}", worker.isolation().as_str())?;
        execution::docker::describe(&backend, &mut out)?;
        // Seen from inside, by a process the audit hook does not watch (a shell).
        let probe = execution::Request::call_source(PROBE, "probe", "[]");
        match worker.call(&probe, &Limits::default()) {
            Ok(o) if o.status == execution::Status::Ok => {
                writeln!(out, "seen inside: {}", o.repr.unwrap_or_default())?;
            }
            Ok(o) => writeln!(out, "seen inside: the probe failed ({})", o.status.as_str())?,
            Err(e) => writeln!(out, "seen inside: the probe failed ({e})")?,
        }
        return describe_worker(&mut out, worker.as_ref());
    }
    let backend = execution::ProcessBackend::new(execution::ProcessOptions {
        require_isolation: args.backend.require_isolation,
        ..execution::ProcessOptions::default()
    });
    let worker = match backend.start(&spec, &Limits::default()) {
        Ok(w) => w,
        Err(ExecError::IsolationUnavailable { reason }) => {
            writeln!(out, "isolation: rlimits-only (refused: {reason})")?;
            return Ok(StageOutcome::Lacking);
        }
        Err(e) => return Err(e.into()),
    };
    writeln!(out, "backend: {}", backend.name())?;
    writeln!(out, "isolation: {}", worker.isolation().as_str())?;
    if let Some(why) = backend.namespaces_unavailable() {
        writeln!(out, "namespaces unavailable: {why}")?;
    }
    describe_worker(&mut out, worker.as_ref())
}

/// What a started worker says of itself.
fn describe_worker(
    out: &mut dyn std::io::Write,
    worker: &dyn Worker,
) -> anyhow::Result<StageOutcome> {
    let info = worker.info();
    writeln!(out, "python: {} ({})", info.python, info.executable)?;
    writeln!(
        out,
        "coverage: {}",
        info.coverage.as_deref().unwrap_or("missing")
    )?;
    writeln!(
        out,
        "uid: {} gid: {} pid as seen inside: {}",
        info.uid, info.gid, info.pid
    )?;
    let only_lo = info.interfaces.iter().all(|i| i == "lo");
    writeln!(
        out,
        "network: {} (interfaces visible: {})",
        if only_lo { "none" } else { "the host's" },
        info.interfaces.join(", ")
    )?;
    writeln!(
        out,
        "worker memory: {} KiB",
        worker
            .memory_bytes()
            .map_or_else(|| "?".into(), |b| (b / 1024).to_string())
    )?;
    Ok(StageOutcome::Success)
}
