//! `execute --repo-tests`: each crawled repository's own test suite, run twice in its
//! environment inside the sandbox, into `repo_tests`.
//!
//! Per repository (`repos` rows with status ok, or those named with `--repo`): the test files
//! (`files` of kind `test` named `test_*.py` or `*_test.py`), the requirement set of its
//! dependency files ([`crate::env::requirements`]) with what its test files import that those
//! do not name (or without, when that environment does not build), its environment
//! ([`crate::env::Envs`]), its
//! tree ([`crate::env::tree`]), then one `pytest` request over all test files with coverage
//! contexts per test, through a [`Batch`] of the execution library.
//!
//! One test must not cost its neighbours their outcomes and lines. When a request dies or
//! hangs (a test calls `os._exit`, loops, exhausts memory), the runner names the test that
//! was running (it reports each test's start and end on a channel of its own): that test is
//! charged (`error`, or `timeout`), and the request runs again without it (`--deselect`),
//! so every other test keeps its outcome and the lines it executed. A request that fails
//! without naming a test is retried file by file, each file the same way; only then is a
//! file charged as a whole. A test that trips the sandbox is charged `error` with the
//! violation, the others keep theirs.
//!
//! The same plan runs a second time in the same worker (a fresh pytest process over the same
//! working copy of the tree): a test whose outcome differs, or that ran only once, is flaky
//! (a test charged in the first pass is not run again: it would cost its timeout twice). A
//! repository whose environment failed gets one row `<environment>` with outcome
//! `env_error` and the installer's message; a session that ran no test at all gets one row
//! `<session>` with outcome `error` and why.
//!
//! Every row carries the hash of what produced it (the repository's files, its
//! requirements, the options and [`crate::BUILD_ID`]); a rerun keeps a repository's rows
//! only when it still matches (and never `env_error` rows, the harness's failure), unless
//! `--force` redoes them all. The table is rewritten atomically after each repository,
//! keeping the rows of every other repository. Rows are in `repos` order, then by node id.
//!
//! While the first of the two runs goes, the runner records the arguments with which the
//! tests call the repository's functions (resolve's `functions` of its source files,
//! module-level functions and methods alike; see [`watch_list`]) into `observed_calls`: per
//! function at most 32 distinct argument sets (distinct by their text, at most 2,000
//! characters each), in the literal text of `test_cases.args` / `kwargs`, each with the test
//! that first made the call and how often it was seen (counted up to 1,000). A call is kept
//! only when every argument is rebuildable from literals (numbers, strings, bytes, `None`,
//! containers of those, and the few standard types the runner's argument reader accepts:
//! `datetime`'s, `Decimal`, `Fraction`, `PurePosixPath`); the others are counted in the
//! debug log. A method's row leaves its `self` (or a class method's `cls`) out: the
//! arguments are those after it, kept only when those are literal; whoever calls it again
//! must make the instance (or name the class) itself. Positional parameters are recorded
//! positionally whether the test passed them by keyword or left their default (the value
//! the frame held); keyword-only ones and `**kwargs` in `kwargs`. The second run observes
//! nothing (its calls are the first's). Without `functions.parquet` nothing is recorded.
//! `observed_calls` is kept and rewritten with `repo_tests`: a repository's rows are kept
//! when its `repo_tests` rows are, and redone with them (the watch list is part of the
//! input hash).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use schemas::cli::{CommonArgs, Outcome as StageOutcome};
use schemas::{
    File, FileKind, FileLines, FileStatus, Function, ObservedCall, Repo, RepoStatus, RepoTest,
    TestOutcome,
};

use crate::env::requirements::{self, DepFile};
use crate::env::{cap_tail, tree, EnvConfig, EnvState, Envs};
use execution::backend::{Backend, ExecError, Limits, WorkerSpec};
use execution::batch::Batch;
use execution::protocol::{
    Isolation, Observe, ObservedFunction, PytestRun, Request, Status, TestReport, WatchedFunction,
};

/// Node id of the row of a repository whose environment did not build.
pub const ENV_NODE: &str = "<environment>";
/// Node id of the row of a session that ran no test (usage error, nothing collected, crash).
pub const SESSION_NODE: &str = "<session>";
/// Characters kept in a row's detail.
const DETAIL_CAP: usize = 2000;
/// Tests charged at the level of the whole suite before going file by file: each costs a
/// run of the whole suite.
const SUITE_RETRIES: usize = 3;
/// Tests charged within one file before the file is charged as a whole.
const FILE_RETRIES: usize = 50;
/// Distinct argument sets kept per function in `observed_calls`.
const OBSERVED_SETS: usize = 32;
/// Times one argument set is counted.
const OBSERVED_CALLS: u64 = 1000;

/// What `--repo-tests` needs.
#[derive(Debug, Clone)]
pub struct RepoTestsOptions {
    /// Repositories to run (name, repo id or spec); empty: every repository with status ok.
    pub repos: Vec<String>,
    /// Run repositories again even when their rows' inputs are unchanged.
    pub force: bool,
    /// Wall-clock (and CPU) limit of one pytest request.
    pub timeout: Duration,
    /// Repositories run in parallel.
    pub jobs: usize,
    /// Address space of the test process.
    pub memory_bytes: u64,
    pub env: EnvConfig,
    /// Where code runs.
    pub backend: execution::BackendArgs,
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

/// The test files of a repository: kind `test`, named `test_*.py` or `*_test.py`, and, when
/// its pytest configuration says `--doctest-modules`, the modules with doctests under its
/// `testpaths` ([`crate::env::pytest_config`]); sorted.
pub fn test_files(files: &[&File]) -> Vec<String> {
    let ok = |f: &&&File| f.status == FileStatus::Ok && f.content.is_some();
    let is_py = |path: &str| Path::new(path).extension().is_some_and(|e| e == "py");
    let mut out: Vec<String> = files
        .iter()
        .filter(ok)
        .filter(|f| f.kind == FileKind::Test)
        .filter(|f| {
            let base = f.path.rsplit('/').next().unwrap_or(&f.path);
            is_py(base) && (base.starts_with("test_") || base.ends_with("_test.py"))
        })
        .map(|f| f.path.clone())
        .collect();
    // A project whose configuration collects its modules' doctests: those modules too
    // (the ones under its testpaths that hold an example; pytest never collects setup.py).
    let config = pytest_config(files);
    if config.doctest_modules() {
        out.extend(
            files
                .iter()
                .filter(ok)
                .filter(|f| matches!(f.kind, FileKind::Source | FileKind::Test))
                .filter(|f| is_py(&f.path) && config.in_testpaths(&f.path))
                .filter(|f| {
                    let base = f.path.rsplit('/').next().unwrap_or(&f.path);
                    base != "setup.py" && base != "conftest.py" && base != "__main__.py"
                })
                .filter(|f| f.content.as_deref().is_some_and(|c| c.contains(">>>")))
                .map(|f| f.path.clone()),
        );
    }
    out.sort();
    out.dedup();
    out
}

/// The repository's pytest configuration, from the files at its root.
fn pytest_config(files: &[&File]) -> crate::env::pytest_config::PytestConfig {
    let root: Vec<(&str, &str)> = files
        .iter()
        .filter(|f| f.status == FileStatus::Ok && !f.path.contains('/'))
        .filter_map(|f| Some((f.path.as_str(), f.content.as_deref()?)))
        .collect();
    crate::env::pytest_config::find(&root)
}

/// The arguments every pytest run of the repository's tests gets
/// ([`crate::env::pytest_config::run_args`]): the suite here, a judge's test in
/// [`crate::completion`] and [`crate::assertion`].
pub fn pytest_args(files: &[&File]) -> Vec<String> {
    crate::env::pytest_config::run_args(&pytest_config(files))
}

/// The requirements of a repository's environment, from its dependency files.
fn repo_requirements(repo: &Repo, files: &[&File]) -> Vec<String> {
    let deps: Vec<DepFile<'_>> = files
        .iter()
        .filter(|f| f.kind == FileKind::Dependency && f.status == FileStatus::Ok)
        .filter_map(|f| {
            f.content.as_deref().map(|c| DepFile {
                path: &f.path,
                content: c,
            })
        })
        .collect();
    requirements::extract(&repo.name, &deps)
}

/// The requirements of the environment its tests are first tried in: those of its
/// dependency files ([`repo_requirements`]) and the distributions of what its test files
/// import that those do not name ([`crate::env::functions::test_imports`]). The same as the
/// declared ones when the tests import nothing more.
fn test_requirements(repo: &Repo, files: &[&File]) -> Vec<String> {
    let imported = crate::env::functions::test_imports(files);
    if imported.is_empty() {
        return repo_requirements(repo, files);
    }
    crate::env::functions::requirements_for(repo, files, &imported)
}

/// The functions a repository's tests are watched calling: resolve's `functions` of its
/// source files (not its tests), each with the lines its code object may start at (the
/// first decorator's, which resolve records as `start_line`, and the `def`'s) and whether
/// its first parameter is a method's `self`/`cls` (a method not decorated `staticmethod`).
/// Sorted by function id.
pub fn watch_list(functions: &[&Function], files: &[&File]) -> Vec<WatchedFunction> {
    let sources: BTreeSet<&str> = files
        .iter()
        .filter(|f| f.kind == FileKind::Source && f.status == FileStatus::Ok)
        .map(|f| f.path.as_str())
        .collect();
    let mut out: Vec<WatchedFunction> = functions
        .iter()
        .filter(|f| sources.contains(f.path.as_str()) && !f.has_syntax_error)
        .map(|f| {
            let def = f
                .source
                .lines()
                .position(|l| {
                    let t = l.trim_start();
                    t.starts_with("def ") || t.starts_with("async def ")
                })
                .map_or(f.start_line, |i| f.start_line + i as i32);
            let mut lines = vec![f.start_line];
            if def != f.start_line {
                lines.push(def);
            }
            let is_static = f
                .decorators
                .iter()
                .any(|d| d == "staticmethod" || d.ends_with(".staticmethod"));
            WatchedFunction {
                id: f.function_id.clone(),
                path: f.path.clone(),
                lines,
                qualname: f.qualname.clone(),
                drop_first: f.is_method && !is_static,
            }
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The hash of what makes a repository's rows: its files, its requirements, the options
/// that can change an outcome, and this build.
pub fn input_hash(
    repo: &Repo,
    files: &[&File],
    watch: &[WatchedFunction],
    opts: &RepoTestsOptions,
) -> String {
    let mut listing: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    listing.sort_unstable();
    let mut text = String::new();
    for (p, h) in listing {
        let _ = writeln!(text, "{p}\t{h}");
    }
    let reqs = format!(
        "{}\n--\n{}",
        repo_requirements(repo, files).join("\n"),
        test_requirements(repo, files).join("\n")
    );
    let mut watched = String::new();
    for w in watch {
        let _ = writeln!(
            watched,
            "{}\t{}\t{:?}\t{}\t{}",
            w.id, w.path, w.lines, w.qualname, w.drop_first
        );
    }
    let options = format!(
        "timeout={:?} memory={} python={} backend={}",
        opts.timeout,
        opts.memory_bytes,
        opts.env.python.display(),
        opts.backend.backend.as_str()
    );
    schemas::id::content_id(&[
        b"repo_tests/1",
        crate::BUILD_ID.as_bytes(),
        repo.repo_id.as_bytes(),
        text.as_bytes(),
        reqs.as_bytes(),
        options.as_bytes(),
        watched.as_bytes(),
    ])
}

/// The stage body of `--repo-tests`.
pub fn run(common: &CommonArgs, opts: &RepoTestsOptions) -> anyhow::Result<StageOutcome> {
    let dir = common.data()?;
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
    let mut by_repo: HashMap<&str, Vec<&File>> = HashMap::new();
    for f in &files {
        by_repo.entry(f.repo_id.as_str()).or_default().push(f);
    }
    let files_of = |id: &str| by_repo.get(id).map_or(&[][..], Vec::as_slice);
    let functions: Vec<Function> = if schemas::table_exists::<Function>(dir) {
        schemas::read_table(dir).context("reading the functions resolve found")?
    } else {
        tracing::debug!("no functions.parquet: the tests' calls are not observed");
        Vec::new()
    };
    let mut functions_by_repo: HashMap<&str, Vec<&Function>> = HashMap::new();
    for f in &functions {
        functions_by_repo
            .entry(f.repo_id.as_str())
            .or_default()
            .push(f);
    }
    let watches: HashMap<&str, Vec<WatchedFunction>> = selected
        .iter()
        .map(|r| {
            let fs = functions_by_repo
                .get(r.repo_id.as_str())
                .map_or(&[][..], Vec::as_slice);
            (r.repo_id.as_str(), watch_list(fs, files_of(&r.repo_id)))
        })
        .collect();
    let hashes: HashMap<&str, String> = selected
        .iter()
        .map(|r| {
            (
                r.repo_id.as_str(),
                input_hash(r, files_of(&r.repo_id), &watches[r.repo_id.as_str()], opts),
            )
        })
        .collect();
    let existing_calls: Vec<ObservedCall> = if schemas::table_exists::<ObservedCall>(dir) {
        schemas::read_table(dir)
            .context("reading the observed_calls written before (delete it or pass --force)")?
    } else {
        Vec::new()
    };
    // A repository's rows are kept when every one of them was made from exactly these inputs
    // and none is the harness's failure.
    let mut stale: BTreeSet<&str> = BTreeSet::new();
    for row in &existing {
        let current = hashes.get(row.repo_id.as_str());
        if current.is_some_and(|h| *h != row.input_hash) || row.outcome == TestOutcome::EnvError {
            stale.insert(row.repo_id.as_str());
        }
    }
    let done: BTreeSet<&str> = existing
        .iter()
        .map(|r| r.repo_id.as_str())
        .filter(|id| !stale.contains(id))
        .collect();
    let todo: Vec<&Repo> = selected
        .iter()
        .copied()
        .filter(|r| opts.force || !done.contains(r.repo_id.as_str()))
        .collect();
    let order: HashMap<String, usize> = repos
        .iter()
        .enumerate()
        .map(|(i, r)| (r.repo_id.clone(), i))
        .collect();
    let redo: BTreeSet<&str> = todo.iter().map(|r| r.repo_id.as_str()).collect();
    let mut rows: Vec<RepoTest> = existing
        .iter()
        .filter(|r| !redo.contains(r.repo_id.as_str()))
        .cloned()
        .collect();
    // A repository's observed calls are kept exactly when its rows are (and were made by the
    // same run); redone with them.
    let kept_hash: HashMap<&str, &str> = rows
        .iter()
        .map(|r| (r.repo_id.as_str(), r.input_hash.as_str()))
        .collect();
    let mut calls: Vec<ObservedCall> = existing_calls
        .into_iter()
        .filter(|c| kept_hash.get(c.repo_id.as_str()) == Some(&c.input_hash.as_str()))
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
    let backend = opts.backend.backend()?;
    let backend = &*backend;
    let bar = schemas::cli::progress(common, todo.len() as u64, "repos");
    let mut ran: HashMap<String, RepoSummary> = HashMap::new();
    let mut write_error: Option<anyhow::Error> = None;
    let result = match &envs {
        None => Ok(()),
        Some(envs) => schemas::pool::stream(
            &todo,
            opts.jobs,
            || (),
            |(), repo| {
                let hash = &hashes[repo.repo_id.as_str()];
                let watch = &watches[repo.repo_id.as_str()];
                run_repo(
                    repo,
                    files_of(&repo.repo_id),
                    hash,
                    watch,
                    envs,
                    backend,
                    opts,
                )
                .with_context(|| format!("repository {}", repo.name))
            },
            |_, (new_rows, new_calls, summary)| {
                bar.inc(1);
                rows.extend(new_rows);
                sort_rows(&mut rows, &order);
                calls.extend(new_calls);
                sort_calls(&mut calls, &order);
                ran.insert(summary.repo_id.clone(), summary);
                // Written after each repository: a killed run keeps the repositories done.
                // observed_calls first: rows of repo_tests without their calls would be kept
                // by a rerun that then has no calls for them.
                if let Err(e) = schemas::write_table(dir, &calls) {
                    write_error = Some(anyhow::Error::new(e).context("writing observed_calls"));
                    return ControlFlow::Break(());
                }
                if let Err(e) = schemas::write_table(dir, &rows) {
                    write_error = Some(anyhow::Error::new(e).context("writing repo_tests"));
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            },
        ),
    };
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    result?;
    if todo.is_empty() && !schemas::table_exists::<RepoTest>(dir) {
        // Nothing to run and no table yet: write an empty one, so later stages find it.
        schemas::write_table(dir, &rows).context("writing repo_tests")?;
    }
    if todo.is_empty() && !schemas::table_exists::<ObservedCall>(dir) {
        schemas::write_table(dir, &calls).context("writing observed_calls")?;
    }
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
/// status ok, in table order (`--repo` of execute and mask).
///
/// # Errors
/// A name that is no repository, or one crawl did not record as ok.
pub fn select<'a>(repos: &'a [Repo], names: &[String]) -> anyhow::Result<Vec<&'a Repo>> {
    if names.is_empty() {
        return Ok(repos
            .iter()
            .filter(|r| r.status == RepoStatus::Ok)
            .collect());
    }
    for n in names {
        let Some(r) = repos
            .iter()
            .find(|r| &r.name == n || &r.repo_id == n || &r.spec == n)
        else {
            anyhow::bail!("--repo {n}: no such repository in repos.parquet (give its name, repo_id or spec as crawl recorded it)");
        };
        if r.status != RepoStatus::Ok {
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

fn sort_calls(rows: &mut [ObservedCall], order: &HashMap<String, usize>) {
    rows.sort_by(|a, b| {
        let ka = order.get(&a.repo_id).copied().unwrap_or(usize::MAX);
        let kb = order.get(&b.repo_id).copied().unwrap_or(usize::MAX);
        ka.cmp(&kb)
            .then_with(|| a.repo_id.cmp(&b.repo_id))
            .then_with(|| a.function_id.cmp(&b.function_id))
            .then_with(|| a.ordinal.cmp(&b.ordinal))
    });
}

/// The calls of the watched functions one pass saw, over all its requests: per function its
/// distinct argument sets in order of first sight (at most [`OBSERVED_SETS`]), each with the
/// first test seen making it and its count (summed, up to [`OBSERVED_CALLS`]), and the calls
/// skipped as not literal.
#[derive(Debug, Default)]
struct Observed {
    functions: BTreeMap<String, ObservedSets>,
}

#[derive(Debug, Default)]
struct ObservedSets {
    sets: Vec<(String, String, String, u64)>,
    skipped: u64,
}

impl Observed {
    fn add(&mut self, seen: &[ObservedFunction]) {
        for f in seen {
            let mine = self.functions.entry(f.function_id.clone()).or_default();
            mine.skipped += f.skipped;
            let mut calls = f.calls.clone();
            calls.sort_by_key(|c| c.ordinal);
            for c in calls {
                if let Some(s) = mine
                    .sets
                    .iter_mut()
                    .find(|s| s.0 == c.args && s.1 == c.kwargs)
                {
                    s.3 = (s.3 + c.calls).min(OBSERVED_CALLS);
                } else if mine.sets.len() < OBSERVED_SETS {
                    mine.sets
                        .push((c.args, c.kwargs, c.node_id, c.calls.min(OBSERVED_CALLS)));
                }
            }
        }
    }

    fn rows(&self, repo_id: &str, input_hash: &str) -> Vec<ObservedCall> {
        let mut out = Vec::new();
        for (id, f) in &self.functions {
            if f.skipped > 0 {
                tracing::debug!(repo = repo_id, function = %id, skipped = f.skipped, kept = f.sets.len(), "calls with arguments not rebuildable from literals");
            }
            for (i, (args, kwargs, node_id, calls)) in f.sets.iter().enumerate() {
                out.push(ObservedCall {
                    repo_id: repo_id.to_string(),
                    function_id: id.clone(),
                    ordinal: i as i32,
                    args: args.clone(),
                    kwargs: kwargs.clone(),
                    node_id: node_id.clone(),
                    calls: i32::try_from(*calls).unwrap_or(i32::MAX),
                    input_hash: input_hash.to_string(),
                });
            }
        }
        out
    }
}

/// One pass over a repository's tests: each node id's outcome, or why nothing ran.
#[derive(Debug, Default)]
struct Pass {
    tests: BTreeMap<String, TestReport>,
    /// Went file by file (the whole request had failed without naming a test).
    per_file: bool,
    /// Tests charged with the end of their process (run once only), by node id.
    charged: BTreeMap<String, TestReport>,
    isolation: Option<Isolation>,
    /// What the observer saw (first pass only).
    observed: Observed,
}

/// What a repository's tests run in, or why nothing can.
#[derive(Debug, Clone)]
pub enum Setup {
    /// Its environment and its tree: the worker specification (hash seed 0) and a key of
    /// both, for row hashes.
    Ready {
        spec: WorkerSpec,
        key: String,
        env_label: &'static str,
    },
    /// Its environment did not build.
    EnvFailed {
        env_label: &'static str,
        message: String,
    },
}

/// The one place a repository's tests get their worker: its environment (built once, from
/// its dependency files) and its tree (written once), the tree's import root and its
/// `.dist-info` on `sys.path`. The runner works in a copy of the tree and puts that copy's
/// import root on `PYTHONPATH` too, so the subprocesses tests start import the copy (an
/// answer spliced into it), never the original tree. Used by `--repo-tests` and by the
/// completion judge ([`crate::completion`]).
pub fn prepare(repo: &Repo, files: &[&File], envs: &Envs) -> anyhow::Result<Setup> {
    let declared = repo_requirements(repo, files);
    let wanted = test_requirements(repo, files);
    tracing::info!(repo = %repo.name, requirements = ?wanted, "environment");
    let mut env = envs.ensure(&wanted).context("preparing the environment")?;
    if wanted != declared {
        if let EnvState::Failed { message, .. } = &env.state {
            // What the tests import may be no distribution of that name, or one that cannot
            // go with the declared ones: the declared requirements alone, as before.
            tracing::warn!(
                repo = %repo.name,
                added = ?wanted.iter().filter(|r| !declared.contains(r)).collect::<Vec<_>>(),
                why = %cap_tail(message, 300),
                "the environment with what the tests import did not build; without it"
            );
            env = envs
                .ensure(&declared)
                .context("preparing the environment")?;
        }
    }
    if let EnvState::Failed { message, .. } = &env.state {
        return Ok(Setup::EnvFailed {
            env_label: env.state.label(),
            message: message.clone(),
        });
    }
    // Every kept file: sources, tests and the data files (text or bytes) the suite reads.
    let kept: Vec<&File> = files
        .iter()
        .copied()
        .filter(|f| f.status == FileStatus::Ok)
        .collect();
    let version = repo.version.as_deref().unwrap_or("0");
    let tree = tree::materialize(
        &envs.config().cache_dir.join("trees"),
        &repo.repo_id,
        &repo.name,
        version,
        &kept,
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
        env: Vec::new(),
        preload: Vec::new(),
        hash_seed: 0,
    };
    Ok(Setup::Ready {
        key: format!("{}:{}", env.key, tree.root.display()),
        env_label: env.state.label(),
        spec,
    })
}

/// Runs one repository: environment, tree, two passes; its rows and summary.
pub fn run_repo(
    repo: &Repo,
    files: &[&File],
    input_hash: &str,
    watch: &[WatchedFunction],
    envs: &Envs,
    backend: &dyn Backend,
    opts: &RepoTestsOptions,
) -> anyhow::Result<(Vec<RepoTest>, Vec<ObservedCall>, RepoSummary)> {
    let t0 = Instant::now();
    let mut summary = RepoSummary {
        name: repo.name.clone(),
        repo_id: repo.repo_id.clone(),
        env: "-".into(),
        isolation: "-".into(),
        ..RepoSummary::default()
    };
    let row = |node_id: &str, outcome: TestOutcome, isolation: Isolation, detail: &str| RepoTest {
        repo_id: repo.repo_id.clone(),
        node_id: node_id.into(),
        outcome,
        seconds: 0.0,
        flaky: false,
        lines: Vec::new(),
        isolation,
        detail: Some(cap_tail(detail, DETAIL_CAP)),
        input_hash: input_hash.to_string(),
    };
    let tests = test_files(files);
    if tests.is_empty() {
        tracing::warn!(repo = %repo.name, "no test files");
        summary.no_tests = true;
        return Ok((Vec::new(), Vec::new(), summary));
    }
    let spec = match prepare(repo, files, envs)? {
        Setup::Ready {
            spec, env_label, ..
        } => {
            summary.env = env_label.into();
            summary.env_seconds = t0.elapsed().as_secs_f64();
            spec
        }
        Setup::EnvFailed { env_label, message } => {
            summary.env = env_label.into();
            summary.env_seconds = t0.elapsed().as_secs_f64();
            summary.env_failed = true;
            summary.seconds = t0.elapsed().as_secs_f64();
            let r = RepoTest {
                seconds: summary.env_seconds,
                ..row(ENV_NODE, TestOutcome::EnvError, Isolation::None, &message)
            };
            return Ok((vec![r], Vec::new(), summary));
        }
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
    let observe = (!watch.is_empty()).then(|| Observe::new(watch.to_vec()));
    let args = pytest_args(files);
    let first = match run_pass(
        &mut batch,
        &args,
        &tests,
        None,
        observe.as_ref(),
        opts.timeout,
    ) {
        Ok(p) => p,
        Err(e) if e.is_configuration() => return Err(e.into()),
        Err(e) => {
            let r = row(
                SESSION_NODE,
                TestOutcome::Error,
                Isolation::None,
                &format!("the worker did not start in this environment: {e}"),
            );
            summary.seconds = t0.elapsed().as_secs_f64();
            summary.no_tests = true;
            summary.errors = 1;
            return Ok((vec![r], Vec::new(), summary));
        }
    };
    let second = run_pass(&mut batch, &args, &tests, Some(&first), None, opts.timeout)
        .map_err(anyhow::Error::new)
        .context("second run")?;
    drop(batch);
    let isolation = first
        .isolation
        .or(second.isolation)
        .unwrap_or(Isolation::None);
    let mut rows = merge(repo, &first, &second, isolation, input_hash);
    rows.sort_by(|a, b| a.node_id.cmp(&b.node_id));
    let calls = first.observed.rows(&repo.repo_id, input_hash);
    summary = RepoSummary {
        env: summary.env,
        env_seconds: summary.env_seconds,
        isolation: isolation.as_str().into(),
        seconds: t0.elapsed().as_secs_f64(),
        ..summarize(repo, &rows)
    };
    Ok((rows, calls, summary))
}

fn pytest(
    args: &[String],
    node_ids: Vec<String>,
    deselect: &BTreeSet<String>,
    observe: Option<&Observe>,
) -> Request {
    // A file that fails to import is one `error` row; the others still run.
    let mut extra_args = args.to_vec();
    extra_args.push("--continue-on-collection-errors".into());
    for id in deselect {
        extra_args.push("--deselect".into());
        extra_args.push(id.clone());
    }
    Request::Pytest(PytestRun {
        rootdir: ".".into(),
        node_ids,
        coverage: true,
        extra_args,
        pristine: false,
        overlay: Vec::new(),
        capture: false,
        trace: None,
        observe: observe.cloned(),
    })
}

/// Whether a failed request is worth retrying (without the test that ended it, or file by
/// file).
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

fn outcome_of(status: Status) -> TestOutcome {
    if status == Status::Timeout {
        TestOutcome::Timeout
    } else {
        TestOutcome::Error
    }
}

fn why(o: &execution::protocol::Outcome) -> String {
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

/// How a run of some node ids went, after charging the tests that ended their process.
enum Ran {
    /// Every test reported (those charged are in the pass's `charged`).
    Done(Vec<TestReport>),
    /// The request failed without naming a test (or charged too many), or ran no test.
    Failed(Box<execution::protocol::Outcome>),
}

/// Runs `node_ids` (deselecting `pass.charged`); while the request dies or hangs with a test
/// named as running, that test is charged and the request runs again without it, at most
/// `retries` times.
fn run_charging(
    batch: &mut Batch<'_>,
    args: &[String],
    node_ids: &[String],
    pass: &mut Pass,
    observe: Option<&Observe>,
    retries: usize,
) -> Result<Ran, ExecError> {
    for _ in 0..=retries {
        let deselect: BTreeSet<String> = pass.charged.keys().cloned().collect();
        let o = batch.run(&pytest(args, node_ids.to_vec(), &deselect, observe))?;
        pass.isolation.get_or_insert(o.isolation);
        // A request that died sends nothing; one that finished, what its tests called
        // (a rerun without a charged test sees the same calls again: merged by their text).
        pass.observed.add(&o.observed);
        if let Some(e) = &o.observe_error {
            tracing::warn!(error = %e, "the observer's record was lost");
        }
        if o.status == Status::SandboxViolation {
            tracing::warn!(detail = ?o.detail, "the test suite tripped the sandbox");
        }
        if !o.tests.is_empty() {
            return Ok(Ran::Done(o.tests));
        }
        let culprit = o
            .running_test
            .clone()
            .filter(|t| whole_request_failed(o.status) && !pass.charged.contains_key(t));
        let Some(culprit) = culprit else {
            return Ok(Ran::Failed(Box::new(o)));
        };
        tracing::warn!(test = %culprit, status = o.status.as_str(), "a test ended its process; running the others without it");
        let report = TestReport {
            node_id: culprit.clone(),
            outcome: outcome_of(o.status),
            seconds: o.wall_seconds,
            detail: Some(format!("the test ended its test process ({})", why(&o))),
            lines: Vec::new(),
        };
        pass.charged.insert(culprit, report);
    }
    Ok(Ran::Failed(Box::new(execution::protocol::Outcome::failed(
        Status::Crash,
        format!("more than {retries} tests ended their process"),
        pass.isolation.unwrap_or_default(),
        Duration::ZERO,
    ))))
}

/// One pass. The second (`first` given) deselects the tests the first charged (they are
/// not run twice) and goes file by file when the first did.
fn run_pass(
    batch: &mut Batch<'_>,
    args: &[String],
    tests: &[String],
    first: Option<&Pass>,
    observe: Option<&Observe>,
    timeout: Duration,
) -> Result<Pass, ExecError> {
    let mut pass = Pass {
        charged: first.map(|f| f.charged.clone()).unwrap_or_default(),
        ..Pass::default()
    };
    let per_file = first.is_some_and(|f| f.per_file);
    if !per_file {
        match run_charging(batch, args, tests, &mut pass, observe, SUITE_RETRIES)? {
            Ran::Done(reports) => {
                for t in reports {
                    pass.tests.insert(t.node_id.clone(), t);
                }
                return Ok(pass);
            }
            Ran::Failed(o) if !whole_request_failed(o.status) => {
                let detail = if o.status == Status::Ok && o.exit_code == Some(5) {
                    format!("pytest collected no tests; {}", why(&o))
                } else {
                    format!("no test ran; {}", why(&o))
                };
                pass.tests.insert(
                    SESSION_NODE.into(),
                    session_test(SESSION_NODE, TestOutcome::Error, detail),
                );
                return Ok(pass);
            }
            Ran::Failed(o) => {
                tracing::warn!(
                    status = o.status.as_str(),
                    "the whole test run failed: going file by file"
                );
            }
        }
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
                    TestOutcome::Timeout,
                    "not run: the repository's time budget ran out".into(),
                ),
            );
            continue;
        }
        match run_charging(
            batch,
            args,
            std::slice::from_ref(file),
            &mut pass,
            observe,
            FILE_RETRIES,
        )? {
            Ran::Done(reports) => {
                for t in reports {
                    pass.tests.insert(t.node_id.clone(), t);
                }
            }
            Ran::Failed(o) => {
                pass.tests.insert(
                    file.clone(),
                    session_test(file, outcome_of(o.status), why(&o)),
                );
            }
        }
    }
    Ok(pass)
}

fn session_test(node_id: &str, outcome: TestOutcome, detail: String) -> TestReport {
    TestReport {
        node_id: node_id.into(),
        outcome,
        seconds: 0.0,
        detail: Some(detail),
        lines: Vec::new(),
    }
}

/// Rows from two passes: the first's outcome, lines and time; flaky when the outcomes differ
/// or a test ran in one pass only. A test charged with the end of its process is in both
/// passes' `charged` (it ran once) and is not flaky for that.
fn merge(
    repo: &Repo,
    first: &Pass,
    second: &Pass,
    isolation: Isolation,
    input_hash: &str,
) -> Vec<RepoTest> {
    let all_first: BTreeMap<&String, &TestReport> =
        first.tests.iter().chain(first.charged.iter()).collect();
    let all_second: BTreeMap<&String, &TestReport> =
        second.tests.iter().chain(second.charged.iter()).collect();
    let ids: BTreeSet<&String> = all_first.keys().chain(all_second.keys()).copied().collect();
    ids.into_iter()
        .filter_map(|id| {
            let a = all_first.get(id).copied();
            let b = all_second.get(id).copied();
            let main = a.or(b)?;
            let flaky = a.map(|t| t.outcome) != b.map(|t| t.outcome);
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
                outcome: main.outcome,
                seconds: main.seconds,
                flaky,
                lines,
                isolation,
                detail: detail.map(|d| cap_tail(&d, DETAIL_CAP)),
                input_hash: input_hash.to_string(),
            })
        })
        .collect()
}

fn summarize(repo: &Repo, rows: &[RepoTest]) -> RepoSummary {
    let mut s = RepoSummary {
        name: repo.name.clone(),
        repo_id: repo.repo_id.clone(),
        isolation: rows
            .first()
            .map_or("-".into(), |r| r.isolation.as_str().to_string()),
        ..RepoSummary::default()
    };
    for r in rows {
        match r.outcome {
            TestOutcome::EnvError => {
                s.env_failed = true;
                continue;
            }
            _ if r.node_id == SESSION_NODE => {
                s.errors += 1;
                continue;
            }
            TestOutcome::Passed => s.passed += 1,
            TestOutcome::Failed => s.failed += 1,
            TestOutcome::Skipped => s.skipped += 1,
            TestOutcome::Error | TestOutcome::Timeout => s.errors += 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, kind: FileKind, text: &str) -> File {
        File {
            repo_id: "r".into(),
            path: path.into(),
            kind,
            sha256: String::new(),
            size: text.len() as i64,
            content: Some(text.into()),
            bytes: None,
            status: FileStatus::Ok,
            reason: None,
            changed_lines: None,
            line_dates: None,
        }
    }

    #[test]
    fn doctest_modules_follow_the_configuration() {
        let doc = "def f():\n    \"\"\"\n    >>> f()\n    1\n    \"\"\"\n    return 1\n";
        let mut files = vec![
            file("tests/test_a.py", FileKind::Test, "def test_a(): pass\n"),
            file("tests/conftest.py", FileKind::Test, ">>> no\n"),
            file("src/pkg/mod.py", FileKind::Source, doc),
            file("src/pkg/plain.py", FileKind::Source, "x = 1\n"),
            file("docs/conf.py", FileKind::Source, doc),
            file("setup.py", FileKind::Dependency, doc),
        ];
        let refs: Vec<&File> = files.iter().collect();
        assert_eq!(test_files(&refs), ["tests/test_a.py"]);
        files.push(file(
            "pyproject.toml",
            FileKind::Dependency,
            "[tool.pytest]\naddopts = [\"--doctest-modules\"]\ntestpaths = [\"src\", \"tests\"]\n",
        ));
        let refs: Vec<&File> = files.iter().collect();
        assert_eq!(test_files(&refs), ["src/pkg/mod.py", "tests/test_a.py"]);
    }

    #[test]
    fn test_imports_add_what_the_dependency_files_do_not_name() {
        let test = "import os\nimport pytest\nimport numpy as np\nfrom hypothesis import given\n\
                    from yaml import safe_load\nfrom pkg.util import f\nfrom helpers import h\n\
                    from . import conftest\nfrom attrs import define\nfrom vendored import *\n\
                    try:\n    import simplejson as json\nexcept ImportError:\n    import json\n\
                    def test_x():\n    import scipy\n";
        let files = [
            file("src/pkg/__init__.py", FileKind::Source, ""),
            file("src/pkg/util.py", FileKind::Source, "def f(): pass\n"),
            file("tests/test_a.py", FileKind::Test, test),
            file("tests/helpers.py", FileKind::Test, "def h(): pass\n"),
            file("tests/conftest.py", FileKind::Test, "import pytest\n"),
            file("tests/broken.py", FileKind::Test, "import (\n"),
            file(
                "pyproject.toml",
                FileKind::Dependency,
                "[project]\nname = \"pkg\"\ndependencies = [\"attrs>=23\", \"numpy\"]\n",
            ),
        ];
        let refs: Vec<&File> = files.iter().collect();
        // Module level only (not `scipy`, imported in a test), the first binding of a name
        // (`simplejson`, the import tried first), and neither the standard library, the
        // runner, nor the repository's own modules (`pkg`, `helpers`).
        let imported: Vec<String> = crate::env::functions::test_imports(&refs)
            .into_iter()
            .collect();
        assert_eq!(
            imported,
            [
                "attrs",
                "hypothesis",
                "numpy",
                "simplejson",
                "vendored",
                "yaml"
            ]
        );
        let repo = schemas::examples::repo("r", "pkg");
        let declared = repo_requirements(&repo, &refs);
        let wanted = test_requirements(&repo, &refs);
        let added: Vec<&String> = wanted.iter().filter(|r| !declared.contains(r)).collect();
        // Declared ones are not asked for twice (`attrs`, `numpy`); `yaml` is PyYAML's.
        assert_eq!(added, ["PyYAML", "hypothesis", "simplejson", "vendored"]);
        assert!(
            declared.iter().all(|r| wanted.contains(r)),
            "{declared:?} {wanted:?}"
        );
        // With nothing more imported, the two are the same list.
        let plain = [files[0].clone(), files[6].clone()];
        let refs: Vec<&File> = plain.iter().collect();
        assert_eq!(
            test_requirements(&repo, &refs),
            repo_requirements(&repo, &refs)
        );
    }
}
