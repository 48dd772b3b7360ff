//! `execute --repo-tests`: each crawled repository's own test suite, run twice in its
//! environment inside the sandbox, into `repo_tests`.
//!
//! Per repository (`repos` rows with status ok, or those named with `--repo`): the test files
//! (`files` of kind `test` named `test_*.py` or `*_test.py`), the requirement set of its
//! dependency files ([`crate::env::requirements`]), its environment ([`crate::env::Envs`]), its
//! tree ([`crate::env::tree`]), then one `pytest` request over all test files with coverage
//! contexts per test, through a [`Batch`] of the execution library. Should that request fail
//! as a whole (timeout, crash, memory, output), each test file gets a request of its own, so
//! that one hanging file costs only its own rows. The same plan runs a second time in the
//! same worker (a fresh pytest process over the same working copy of the tree): a test whose
//! outcome differs, or that ran only once, is flaky. A repository whose environment failed
//! gets one row `<environment>` with outcome `env_error` and the installer's message; a
//! session that ran no test at all gets one row `<session>` with outcome `error` and why.
//!
//! The table is rewritten atomically after each repository, keeping the rows of every
//! other repository; a rerun skips the repositories already in it unless `--force`. Rows are
//! in `repos` order, then by node id.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use schemas::cli::{CommonArgs, Outcome as StageOutcome};
use schemas::{File, FileLines, Repo, RepoTest};

use crate::backend::{Backend, ExecError, Limits, WorkerSpec};
use crate::batch::Batch;
use crate::env::requirements::{self, DepFile};
use crate::env::{cap_tail, tree, EnvConfig, EnvState, Envs};
use crate::process::{ProcessBackend, ProcessOptions};
use crate::protocol::{Isolation, PytestRun, Request, Status, TestOutcome};

/// Node id of the row of a repository whose environment did not build.
pub const ENV_NODE: &str = "<environment>";
/// Node id of the row of a session that ran no test (usage error, nothing collected, crash).
pub const SESSION_NODE: &str = "<session>";
/// Characters kept in a row's detail.
const DETAIL_CAP: usize = 2000;

/// What `--repo-tests` needs.
#[derive(Debug, Clone)]
pub struct RepoTestsOptions {
    /// Repositories to run (name, repo id or spec); empty: every repository with status ok.
    pub repos: Vec<String>,
    /// Run repositories already in `repo_tests` again.
    pub force: bool,
    /// Wall-clock (and CPU) limit of one pytest request.
    pub timeout: Duration,
    /// Repositories run in parallel.
    pub jobs: usize,
    /// Address space of the test process.
    pub memory_bytes: u64,
    pub env: EnvConfig,
    pub require_isolation: bool,
}

/// What happened to one repository, for the summary.
#[derive(Debug, Clone, Default)]
pub struct RepoSummary {
    pub name: String,
    pub repo_id: String,
    /// `built`, `reused`, `failed`, `failed (cached)`, `-` (not needed), `done` (skipped).
    pub env: String,
    pub tests: usize,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub skipped: usize,
    pub flaky: usize,
    pub seconds: f64,
    pub env_seconds: f64,
    pub isolation: String,
    /// No test files, or no test ran.
    pub no_tests: bool,
    pub env_failed: bool,
    /// Already in the table (not run again).
    pub already_done: bool,
}

/// The test files of a repository: kind `test`, named `test_*.py` or `*_test.py`, sorted.
pub fn test_files(files: &[&File]) -> Vec<String> {
    let mut out: Vec<String> = files
        .iter()
        .filter(|f| f.kind == "test" && f.status == "ok" && f.content.is_some())
        .filter(|f| {
            let base = f.path.rsplit('/').next().unwrap_or(&f.path);
            Path::new(base).extension().is_some_and(|e| e == "py")
                && (base.starts_with("test_") || base.ends_with("_test.py"))
        })
        .map(|f| f.path.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The stage body of `--repo-tests`.
pub fn run(common: &CommonArgs, opts: &RepoTestsOptions) -> anyhow::Result<StageOutcome> {
    let dir = &common.data;
    let repos: Vec<Repo> =
        schemas::read_table(dir).context("reading the repositories crawl found")?;
    let files: Vec<File> = schemas::read_table(dir).context("reading the files crawl recorded")?;
    let selected = select(&repos, &opts.repos)?;
    let existing: Vec<RepoTest> = if schemas::table_exists::<RepoTest>(dir) {
        schemas::read_table(dir)
            .context("reading the repo_tests written before (delete it or pass --force)")?
    } else {
        Vec::new()
    };
    let done: HashSet<String> = existing.iter().map(|r| r.repo_id.clone()).collect();
    let todo: Vec<&Repo> = selected
        .iter()
        .copied()
        .filter(|r| opts.force || !done.contains(&r.repo_id))
        .collect();
    let mut by_repo: HashMap<&str, Vec<&File>> = HashMap::new();
    for f in &files {
        by_repo.entry(f.repo_id.as_str()).or_default().push(f);
    }
    let order: HashMap<String, usize> = repos
        .iter()
        .enumerate()
        .map(|(i, r)| (r.repo_id.clone(), i))
        .collect();
    let redo: HashSet<&str> = todo.iter().map(|r| r.repo_id.as_str()).collect();
    let kept: Vec<RepoTest> = existing
        .iter()
        .filter(|r| !redo.contains(r.repo_id.as_str()))
        .cloned()
        .collect();
    tracing::info!(
        selected = selected.len(),
        to_run = todo.len(),
        already_done = selected.len() - todo.len(),
        "repository tests"
    );

    let envs = if todo.is_empty() {
        None
    } else {
        let mut cfg = opts.env.clone();
        std::fs::create_dir_all(&cfg.cache_dir)
            .with_context(|| format!("creating the cache folder {}", cfg.cache_dir.display()))?;
        cfg.cache_dir = std::fs::canonicalize(&cfg.cache_dir)
            .with_context(|| format!("resolving the cache folder {}", cfg.cache_dir.display()))?;
        Some(Envs::open(cfg).context("opening the environment cache")?)
    };
    let backend = ProcessBackend::new(ProcessOptions {
        require_isolation: opts.require_isolation,
        ..ProcessOptions::default()
    });
    let bar = schemas::cli::progress(common, todo.len() as u64, "repos");
    let state = Mutex::new((kept, Vec::<Option<RepoSummary>>::new()));
    if let Ok(mut s) = state.lock() {
        s.1 = vec![None; todo.len()];
    }
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1).min(todo.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(repo_row) = todo.get(i) else { return };
                if first_error.lock().map_or(true, |e| e.is_some()) {
                    return;
                }
                let Some(envs) = envs.as_ref() else { return };
                let files = by_repo
                    .get(repo_row.repo_id.as_str())
                    .map_or(&[][..], Vec::as_slice);
                match run_repo(repo_row, files, envs, &backend, opts) {
                    Ok((rows, summary)) => {
                        let mut s = state
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        s.0.extend(rows);
                        sort_rows(&mut s.0, &order);
                        s.1[i] = Some(summary);
                        if let Err(e) = schemas::write_table(dir, &s.0) {
                            let mut fe = first_error
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner);
                            fe.get_or_insert(anyhow::Error::new(e).context("writing repo_tests"));
                        }
                    }
                    Err(e) => {
                        let mut fe = first_error
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        fe.get_or_insert(e.context(format!("repository {}", repo_row.name)));
                    }
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = first_error
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        return Err(e);
    }
    let (rows, summaries) = state
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if todo.is_empty() && !schemas::table_exists::<RepoTest>(dir) {
        // Nothing to run and no table yet: write an empty one, so later stages find it.
        schemas::write_table(dir, &rows).context("writing repo_tests")?;
    }
    let mut ran: HashMap<String, RepoSummary> = summaries
        .into_iter()
        .flatten()
        .map(|s| (s.repo_id.clone(), s))
        .collect();
    let mut all = Vec::new();
    for r in &selected {
        let s = ran.remove(&r.repo_id).unwrap_or_else(|| {
            let done: Vec<RepoTest> = rows
                .iter()
                .filter(|x| x.repo_id == r.repo_id)
                .cloned()
                .collect();
            RepoSummary {
                env: "done".into(),
                already_done: true,
                ..summarize(r, &done)
            }
        });
        all.push(s);
    }
    print_summary(&all).context("printing the summary")?;
    let lacking = all
        .iter()
        .any(|s| !s.already_done && (s.env_failed || s.no_tests));
    Ok(if lacking {
        StageOutcome::Lacking
    } else {
        StageOutcome::Success
    })
}

/// The repositories to run: those named (by name, repo id or spec), else every one with
/// status ok, in table order.
fn select<'a>(repos: &'a [Repo], names: &[String]) -> anyhow::Result<Vec<&'a Repo>> {
    if names.is_empty() {
        return Ok(repos.iter().filter(|r| r.status == "ok").collect());
    }
    for n in names {
        let Some(r) = repos
            .iter()
            .find(|r| &r.name == n || &r.repo_id == n || &r.spec == n)
        else {
            anyhow::bail!("--repo {n}: no such repository in repos.parquet (give its name, repo_id or spec as crawl recorded it)");
        };
        if r.status != "ok" {
            anyhow::bail!("--repo {n}: crawl recorded it as `{}` ({}); only repositories with status ok have files to run", r.status, r.reason.as_deref().unwrap_or("no reason"));
        }
    }
    Ok(repos
        .iter()
        .filter(|r| {
            names
                .iter()
                .any(|n| &r.name == n || &r.repo_id == n || &r.spec == n)
        })
        .collect())
}

fn sort_rows(rows: &mut [RepoTest], order: &HashMap<String, usize>) {
    rows.sort_by(|a, b| {
        let ka = order.get(&a.repo_id).copied().unwrap_or(usize::MAX);
        let kb = order.get(&b.repo_id).copied().unwrap_or(usize::MAX);
        ka.cmp(&kb)
            .then_with(|| a.repo_id.cmp(&b.repo_id))
            .then_with(|| a.node_id.cmp(&b.node_id))
    });
}

/// One pass over a repository's tests: each node id's outcome, or why nothing ran.
#[derive(Debug, Default)]
struct Pass {
    tests: BTreeMap<String, TestOutcome>,
    /// Went file by file (the whole request had failed).
    per_file: bool,
    isolation: Option<Isolation>,
}

/// Runs one repository: environment, tree, two passes; its rows and summary.
pub fn run_repo(
    repo: &Repo,
    files: &[&File],
    envs: &Envs,
    backend: &dyn Backend,
    opts: &RepoTestsOptions,
) -> anyhow::Result<(Vec<RepoTest>, RepoSummary)> {
    let t0 = Instant::now();
    let mut summary = RepoSummary {
        name: repo.name.clone(),
        repo_id: repo.repo_id.clone(),
        env: "-".into(),
        isolation: "-".into(),
        ..RepoSummary::default()
    };
    let tests = test_files(files);
    if tests.is_empty() {
        tracing::warn!(repo = %repo.name, "no test files");
        summary.no_tests = true;
        return Ok((Vec::new(), summary));
    }
    let deps: Vec<DepFile<'_>> = files
        .iter()
        .filter(|f| f.kind == "dependency" && f.status == "ok")
        .filter_map(|f| {
            f.content.as_deref().map(|c| DepFile {
                path: &f.path,
                content: c,
            })
        })
        .collect();
    let reqs = requirements::extract(&repo.name, &deps);
    tracing::info!(repo = %repo.name, requirements = ?reqs, "environment");
    let env = envs.ensure(&reqs).context("preparing the environment")?;
    summary.env = env.state.label().into();
    summary.env_seconds = t0.elapsed().as_secs_f64();
    if let EnvState::Failed { message, .. } = &env.state {
        summary.env_failed = true;
        summary.seconds = t0.elapsed().as_secs_f64();
        let row = RepoTest {
            repo_id: repo.repo_id.clone(),
            node_id: ENV_NODE.into(),
            outcome: "env_error".into(),
            seconds: summary.env_seconds,
            flaky: false,
            lines: Vec::new(),
            isolation: "-".into(),
            detail: Some(cap_tail(message, DETAIL_CAP)),
        };
        return Ok((vec![row], summary));
    }
    let sources: Vec<(&str, &str)> = files
        .iter()
        .filter(|f| f.status == "ok")
        .filter_map(|f| f.content.as_deref().map(|c| (f.path.as_str(), c)))
        .collect();
    let version = repo.version.as_deref().unwrap_or("0");
    let tree = tree::materialize(
        &envs.config().cache_dir.join("trees"),
        &repo.repo_id,
        &repo.name,
        version,
        &sources,
    )
    .context("writing the repository's tree")?;
    let spec = WorkerSpec {
        interpreter: Some(env.python.clone()),
        readonly: vec![tree.meta.clone()],
        tree: Some(tree.root.clone()),
        sys_path: vec![
            tree.import_root.clone(),
            tree.meta.to_string_lossy().into_owned(),
        ],
        // For the subprocesses tests start (`python -c "import pkg"`), which do not get the
        // runner's `sys.path`: the read-only original tree (the worker's own imports come
        // first from its working copy). A later user that edits the working copy (a masked
        // span) must know that such subprocesses see the original.
        env: vec![(
            "PYTHONPATH".into(),
            format!(
                "{}:{}",
                tree.root.join(&tree.import_root).display(),
                tree.meta.display()
            ),
        )],
        preload: Vec::new(),
        hash_seed: 0,
    };
    let limits = Limits {
        wall: opts.timeout,
        cpu_seconds: opts.timeout.as_secs().max(1),
        memory_bytes: opts.memory_bytes,
        processes: 128,
        file_size_bytes: 256 << 20,
        open_files: 1024,
        output_bytes: 16 << 20,
        disk_bytes: 1 << 30,
    };
    let mut batch = Batch::new(backend, &spec, &limits);
    let first = match run_pass(&mut batch, &tests, false, opts.timeout) {
        Ok(p) => p,
        Err(ExecError::IsolationUnavailable { reason }) => {
            anyhow::bail!("isolation required but not available: {reason}")
        }
        Err(e) => {
            let row = session_row(
                repo,
                "-",
                &format!("the worker did not start in this environment: {e}"),
            );
            summary.seconds = t0.elapsed().as_secs_f64();
            summary.no_tests = true;
            summary.errors = 1;
            return Ok((vec![row], summary));
        }
    };
    let second = run_pass(&mut batch, &tests, first.per_file, opts.timeout)
        .map_err(anyhow::Error::new)
        .context("second run")?;
    drop(batch);
    let isolation = first
        .isolation
        .or(second.isolation)
        .map_or("-", Isolation::as_str)
        .to_string();
    let mut rows = merge(repo, &first, &second, &isolation);
    rows.sort_by(|a, b| a.node_id.cmp(&b.node_id));
    summary = RepoSummary {
        env: summary.env,
        env_seconds: summary.env_seconds,
        isolation,
        seconds: t0.elapsed().as_secs_f64(),
        ..summarize(repo, &rows)
    };
    Ok((rows, summary))
}

fn session_row(repo: &Repo, isolation: &str, detail: &str) -> RepoTest {
    RepoTest {
        repo_id: repo.repo_id.clone(),
        node_id: SESSION_NODE.into(),
        outcome: "error".into(),
        seconds: 0.0,
        flaky: false,
        lines: Vec::new(),
        isolation: isolation.into(),
        detail: Some(cap_tail(detail, DETAIL_CAP)),
    }
}

fn pytest(node_ids: Vec<String>) -> Request {
    Request::Pytest(PytestRun {
        rootdir: ".".into(),
        node_ids,
        coverage: true,
        // pytest-randomly, when a repository installs it, would reorder tests between the
        // two runs and make order-dependent tests look flaky for the wrong reason.
        // A file that fails to import is one `error` row; the others still run.
        extra_args: vec![
            "-p".into(),
            "no:randomly".into(),
            "--tb=short".into(),
            "--continue-on-collection-errors".into(),
        ],
    })
}

/// Whether a failed request is worth retrying file by file.
fn whole_request_failed(status: Status) -> bool {
    matches!(
        status,
        Status::Timeout
            | Status::Crash
            | Status::Memory
            | Status::OutputLimit
            | Status::ResourceLimit
    )
}

fn outcome_of(status: Status) -> &'static str {
    if status == Status::Timeout {
        "timeout"
    } else {
        "error"
    }
}

fn why(o: &crate::protocol::Outcome) -> String {
    let mut s = format!("status {}", o.status.as_str());
    if let Some(d) = &o.detail {
        s.push_str(": ");
        s.push_str(d);
    }
    if let Some(e) = &o.exception {
        let _ = write!(s, "; {}: {}", e.type_name, e.message);
    }
    if let Some(c) = o.exit_code {
        let _ = write!(s, "; pytest exit code {c}");
    }
    let out = format!("{}\n{}", o.stdout.trim(), o.stderr.trim());
    if !out.trim().is_empty() {
        s.push('\n');
        s.push_str(&cap_tail(out.trim(), DETAIL_CAP));
    }
    s
}

fn run_pass(
    batch: &mut Batch<'_>,
    tests: &[String],
    per_file: bool,
    timeout: Duration,
) -> Result<Pass, ExecError> {
    let mut pass = Pass::default();
    if !per_file {
        let o = batch.run(&pytest(tests.to_vec()))?;
        pass.isolation = Some(o.isolation);
        if o.status == Status::SandboxViolation {
            tracing::warn!(detail = ?o.detail, "the test suite tripped the sandbox");
        }
        if !o.tests.is_empty() {
            for t in o.tests.iter().cloned() {
                pass.tests.insert(t.node_id.clone(), t);
            }
            return Ok(pass);
        }
        if !whole_request_failed(o.status) {
            let detail = if o.status == Status::Ok && o.exit_code == Some(5) {
                format!("pytest collected no tests; {}", why(&o))
            } else {
                format!("no test ran; {}", why(&o))
            };
            pass.tests.insert(
                SESSION_NODE.into(),
                session_test(SESSION_NODE, "error", detail),
            );
            return Ok(pass);
        }
        tracing::warn!(
            status = o.status.as_str(),
            "the whole test run failed: going file by file"
        );
    }
    pass.per_file = true;
    let budget = timeout * 3;
    let t0 = Instant::now();
    for file in tests {
        if t0.elapsed() > budget {
            pass.tests.insert(
                file.clone(),
                session_test(
                    file,
                    "timeout",
                    "not run: the repository's time budget ran out".into(),
                ),
            );
            continue;
        }
        let o = batch.run(&pytest(vec![file.clone()]))?;
        pass.isolation.get_or_insert(o.isolation);
        if o.tests.is_empty() {
            pass.tests.insert(
                file.clone(),
                session_test(file, outcome_of(o.status), why(&o)),
            );
        } else {
            for t in o.tests.iter().cloned() {
                pass.tests.insert(t.node_id.clone(), t);
            }
        }
    }
    Ok(pass)
}

fn session_test(node_id: &str, outcome: &str, detail: String) -> TestOutcome {
    TestOutcome {
        node_id: node_id.into(),
        outcome: outcome.into(),
        seconds: 0.0,
        detail: Some(detail),
        lines: Vec::new(),
    }
}

/// Rows from two passes: the first's outcome, lines and time; flaky when the outcomes differ
/// or a test ran in one pass only.
fn merge(repo: &Repo, first: &Pass, second: &Pass, isolation: &str) -> Vec<RepoTest> {
    let ids: std::collections::BTreeSet<&String> =
        first.tests.keys().chain(second.tests.keys()).collect();
    ids.into_iter()
        .filter_map(|id| {
            let a = first.tests.get(id);
            let b = second.tests.get(id);
            let main = a.or(b)?;
            let flaky = a.map(|t| &t.outcome) != b.map(|t| &t.outcome);
            let mut detail = main.detail.clone().filter(|d| !d.is_empty());
            if flaky {
                let note = format!(
                    "flaky: run 1 {}, run 2 {}",
                    a.map_or("absent", |t| t.outcome.as_str()),
                    b.map_or("absent", |t| t.outcome.as_str())
                );
                let other = b
                    .and_then(|t| t.detail.clone())
                    .filter(|d| !d.is_empty() && a.is_some());
                detail = Some(
                    [Some(note), detail, other.map(|d| format!("run 2: {d}"))]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
            }
            let lines: Vec<FileLines> = if main.lines.is_empty() {
                b.map(|t| t.lines.clone()).unwrap_or_default()
            } else {
                main.lines.clone()
            };
            Some(RepoTest {
                repo_id: repo.repo_id.clone(),
                node_id: id.clone(),
                outcome: main.outcome.clone(),
                seconds: main.seconds,
                flaky,
                lines,
                isolation: isolation.into(),
                detail: detail.map(|d| cap_tail(&d, DETAIL_CAP)),
            })
        })
        .collect()
}

fn summarize(repo: &Repo, rows: &[RepoTest]) -> RepoSummary {
    let mut s = RepoSummary {
        name: repo.name.clone(),
        repo_id: repo.repo_id.clone(),
        isolation: rows.first().map_or("-".into(), |r| r.isolation.clone()),
        ..RepoSummary::default()
    };
    for r in rows {
        match r.outcome.as_str() {
            "env_error" => {
                s.env_failed = true;
                continue;
            }
            _ if r.node_id == SESSION_NODE => {
                s.errors += 1;
                continue;
            }
            "passed" => s.passed += 1,
            "failed" => s.failed += 1,
            "skipped" => s.skipped += 1,
            _ => s.errors += 1,
        }
        s.tests += 1;
        if r.flaky {
            s.flaky += 1;
        }
    }
    s.no_tests = s.tests == 0;
    s
}

/// The summary on stdout (an error, e.g. a closed pipe, goes to the caller).
fn print_summary(all: &[RepoSummary]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<24} {:<16} {:>6} {:>6} {:>6} {:>6} {:>7} {:>5} {:>9} {:>8}",
        "repository",
        "env",
        "tests",
        "passed",
        "failed",
        "errors",
        "skipped",
        "flaky",
        "seconds",
        "env_sec"
    )?;
    for s in all {
        let env = if s.no_tests && !s.env_failed && s.tests == 0 && s.errors == 0 && !s.already_done
        {
            "no test files".to_string()
        } else {
            s.env.clone()
        };
        writeln!(
            out,
            "{:<24} {:<16} {:>6} {:>6} {:>6} {:>6} {:>7} {:>5} {:>9.1} {:>8.1}",
            s.name,
            env,
            s.tests,
            s.passed,
            s.failed,
            s.errors,
            s.skipped,
            s.flaky,
            s.seconds,
            s.env_seconds
        )?;
    }
    out.flush()
}
