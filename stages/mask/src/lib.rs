//! `mask`: completion tasks (`ExecRepoBench`'s family): a repository file with one syntax span
//! masked, judged by the repository's own tests that execute it.
//!
//! Reads `repos` and `files` (crawl), `functions` (resolve) and `repo_tests` (execute
//! `--repo-tests`) from the dataset directory and writes `completion_tasks`. Every source
//! file (never a test file) is parsed with tree-sitter-python and its spans found at four
//! levels, expression, statement, block and function ([`spans`]). A span goes through
//! gates, each counted in the summary on stderr: its size ([`spans::Limits`]); the
//! coverage rule ([`coverage`]): every statement of it executed by a passing, non-flaky
//! test, those tests being its judges; and the leak gate (a long reference that appears
//! elsewhere in its own file). A seeded choice ([`select`]) keeps up to `--per-file` spans
//! of a file and `--per-repo` of a repository, balanced across the levels, code after the
//! cutoff first. Each task gets cross-file context ranked from its prefix and suffix only
//! ([`context`], [`bm25`]) within `--context-budget` tokens, and the code date of the
//! function holding it (`functions`). `execute --validate` then checks each task by
//! running its judges on the reference and on neutral fills.
//!
//! The mask: `prefix + reference + suffix` is the file's text exactly. An expression span
//! starts at the expression's first character; statement, block and function spans at the
//! first character of their first line's code, the line's indentation staying at the end
//! of the prefix and recorded as `indent`. Every span ends at its last character of code:
//! a newline, a trailing comment and what follows stay in the suffix.

pub mod assertions;
pub mod bm25;
pub mod context;
pub mod coverage;
mod error;
pub mod repo;
pub mod select;
pub mod spans;
pub mod summary;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write as _;

use anyhow::Context as _;
use clap::Parser;
use schemas::cli::{CommonArgs, Outcome};
use schemas::{CompletionTask, File, Function, Repo, RepoStatus, RepoTest};

pub use error::MaskError;
pub use repo::{mask_repo, RepoInput};
pub use spans::Limits;
pub use summary::Summary;

/// Make completion tasks: one AST span of a repository file masked, judged by the
/// repository's own tests that execute it.
#[derive(Debug, Clone, Parser)]
#[command(name = "mask", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Seed of the choice of spans (the same seed and inputs give the same tasks).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// At most this many tasks per file, balanced across the four levels (a repository of
    /// a few large modules needs a high cap to reach --per-repo).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub per_file: usize,
    /// At most this many tasks per repository, balanced across the four levels.
    #[arg(long, value_name = "M", default_value_t = 64)]
    pub per_repo: usize,
    /// Leave out spans whose judge tests took longer than this in `repo_tests`, summed
    /// (every answer costs a run of them; validating a task, about ten).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub max_judge_seconds: f64,
    /// Tokens of cross-file context per task (words split at blank space and punctuation).
    #[arg(long, value_name = "TOKENS", default_value_t = 2048)]
    pub context_budget: usize,
    /// Fewest non-blank characters of a span (a span also needs an identifier).
    #[arg(long, value_name = "N", default_value_t = Limits::default().min_chars)]
    pub min_chars: usize,
    /// Most bytes of a span.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_chars)]
    pub max_chars: usize,
    /// Most lines of an expression or statement span.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_statement_lines)]
    pub max_statement_lines: i32,
    /// Most lines of a block span (the body of an if, for, while, with or try).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_block_lines)]
    pub max_block_lines: i32,
    /// Most lines of a function span (a def's body after its docstring).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_function_lines)]
    pub max_function_lines: i32,
    /// Repositories worked on in parallel [default: the available parallelism].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Which families to make: `completion`, `assertion`, or both (`all`). Assertion
    /// tasks run the repositories' tests in the sandbox (their environments from the
    /// cache `execute --repo-tests` filled).
    #[arg(long, value_name = "FAMILY", default_value = "all")]
    pub family: Families,
    /// Assertions per repository (each gives a value task on the original program, one per
    /// mutated variant, and a true and a false verify task when it has a variant).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub assertions_per_repo: usize,
    /// Mutants tried per assertion to find its variants.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub assertion_mutants: usize,
    /// Mutated variants kept per assertion.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub variants: usize,
    /// Only this repository (its name, `repo_id` or spec as in `repos.parquet`); repeatable.
    /// Default: every repository crawl recorded with status ok.
    #[arg(long = "repo", value_name = "NAME")]
    pub repos: Vec<String>,
    #[command(flatten)]
    pub backend: execution::BackendArgs,
    /// Address space of a test process, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub memory_mb: u64,
    #[command(flatten)]
    pub env: execute::env::EnvArgs,
}

/// The families `mask` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Families {
    All,
    Completion,
    Assertion,
}

impl Families {
    fn completion(self) -> bool {
        matches!(self, Families::All | Families::Completion)
    }

    fn assertion(self) -> bool {
        matches!(self, Families::All | Families::Assertion)
    }
}

/// What shapes the tasks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    pub limits: Limits,
    pub seed: u64,
    pub per_file: usize,
    pub per_repo: usize,
    pub context_budget: usize,
    /// Spans whose judge tests took longer in `repo_tests` (summed) are left out.
    pub max_judge_seconds: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limits: Limits::default(),
            seed: 0,
            per_file: 32,
            per_repo: 64,
            context_budget: 2048,
            max_judge_seconds: 30.0,
        }
    }
}

impl Args {
    /// The options, checked.
    pub fn options(&self) -> Result<Options, MaskError> {
        let positive = |flag: &'static str, v: i64| {
            if v < 1 {
                Err(MaskError::BadOption {
                    flag,
                    value: v.to_string(),
                    expected: "give at least 1",
                })
            } else {
                Ok(())
            }
        };
        positive("--per-file", self.per_file as i64)?;
        positive("--per-repo", self.per_repo as i64)?;
        positive("--min-chars", self.min_chars as i64)?;
        positive("--max-statement-lines", i64::from(self.max_statement_lines))?;
        positive("--max-block-lines", i64::from(self.max_block_lines))?;
        positive("--max-function-lines", i64::from(self.max_function_lines))?;
        if self.max_chars < self.min_chars {
            return Err(MaskError::BadOption {
                flag: "--max-chars",
                value: self.max_chars.to_string(),
                expected: "give at least --min-chars",
            });
        }
        if self.max_judge_seconds.is_nan() || self.max_judge_seconds <= 0.0 {
            return Err(MaskError::BadOption {
                flag: "--max-judge-seconds",
                value: self.max_judge_seconds.to_string(),
                expected: "give a positive number of seconds",
            });
        }
        if self.jobs == Some(0) {
            return Err(MaskError::BadOption {
                flag: "--jobs",
                value: "0".into(),
                expected: "give at least 1 thread",
            });
        }
        Ok(Options {
            limits: Limits {
                min_chars: self.min_chars,
                max_chars: self.max_chars,
                max_statement_lines: self.max_statement_lines,
                max_block_lines: self.max_block_lines,
                max_function_lines: self.max_function_lines,
            },
            seed: self.seed,
            per_file: self.per_file,
            per_repo: self.per_repo,
            context_budget: self.context_budget,
            max_judge_seconds: self.max_judge_seconds,
        })
    }
}

/// The tables `mask` reads.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    pub repos: &'a [Repo],
    pub files: &'a [File],
    pub functions: &'a [Function],
    pub repo_tests: &'a [RepoTest],
}

impl<'a> Inputs<'a> {
    /// Functions and repository tests, grouped by repository id.
    #[allow(clippy::type_complexity)]
    fn functions_and_tests_by_repo(
        &self,
    ) -> (
        HashMap<&'a str, Vec<&'a Function>>,
        HashMap<&'a str, Vec<&'a RepoTest>>,
    ) {
        let mut functions: HashMap<&str, Vec<&Function>> = HashMap::new();
        for f in self.functions {
            functions.entry(f.repo_id.as_str()).or_default().push(f);
        }
        let mut tests: HashMap<&str, Vec<&RepoTest>> = HashMap::new();
        for t in self.repo_tests {
            tests.entry(t.repo_id.as_str()).or_default().push(t);
        }
        (functions, tests)
    }
}

/// The completion tasks of a dataset (repositories with status `ok`, by repository id,
/// each repository's by path and span) and the counters; `jobs` repositories at a time,
/// `done` called after each. The result does not depend on `jobs`.
pub fn mask_dataset(
    inputs: &Inputs<'_>,
    opts: &Options,
    jobs: usize,
    done: &(dyn Fn() + Sync),
) -> Result<(Vec<CompletionTask>, Summary), MaskError> {
    // Checked once here, so that a build whose grammar does not fit fails before any work.
    drop(repo::parser()?);
    let ok: HashSet<&str> = inputs
        .repos
        .iter()
        .filter(|r| r.status == RepoStatus::Ok)
        .map(|r| r.repo_id.as_str())
        .collect();
    let mut files: BTreeMap<&str, Vec<&File>> = BTreeMap::new();
    for f in inputs
        .files
        .iter()
        .filter(|f| ok.contains(f.repo_id.as_str()))
    {
        files.entry(f.repo_id.as_str()).or_default().push(f);
    }
    let (functions, tests) = inputs.functions_and_tests_by_repo();
    let work: Vec<(&str, Vec<&File>)> = files.into_iter().collect();
    let init = || repo::parser().expect("the grammar was checked to fit above");
    let results = schemas::pool::map(&work, jobs, init, |parser, (repo_id, files)| {
        let input = RepoInput {
            repo_id,
            files,
            functions: functions.get(repo_id).map_or(&[], Vec::as_slice),
            tests: tests.get(repo_id).map_or(&[], Vec::as_slice),
        };
        let out = mask_repo(parser, &input, opts);
        done();
        out
    });
    let mut rows = Vec::new();
    let mut summary = Summary::default();
    for (mut part, s) in results {
        rows.append(&mut part);
        summary.merge(&s);
    }
    Ok((rows, summary))
}

/// The assertion tasks of a dataset, `jobs` repositories at a time in the sandbox.
///
/// # Errors
/// When no worker may start by configuration, or the environments cannot be opened.
pub fn assertion_dataset(
    dir: &std::path::Path,
    inputs: &Inputs<'_>,
    opts: &assertions::AssertionOptions,
    exec: &ExecSetup,
    jobs: usize,
    done: &(dyn Fn() + Sync),
) -> anyhow::Result<(Vec<schemas::AssertionTask>, assertions::AssertionSummary)> {
    let ok: Vec<&str> = {
        let mut v: Vec<&str> = inputs
            .repos
            .iter()
            .filter(|r| r.status == RepoStatus::Ok)
            .map(|r| r.repo_id.as_str())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let workers = execute::completion::repo_workers(dir, &ok, Some(&exec.env))?;
    let backend = exec.backend.backend()?;
    let backend = &*backend;
    let judge = execute::completion::CompletionOptions {
        memory_bytes: exec.memory_bytes,
        ..execute::completion::CompletionOptions::default()
    };
    let mut files: HashMap<&str, Vec<&File>> = HashMap::new();
    for f in inputs.files {
        files.entry(f.repo_id.as_str()).or_default().push(f);
    }
    let (functions, tests) = inputs.functions_and_tests_by_repo();
    let empty_f: Vec<&File> = Vec::new();
    let results = schemas::pool::map(
        &ok,
        jobs,
        || execute::completion::Judges::new(backend, &workers, judge),
        |judges, repo_id| {
            let input = RepoInput {
                repo_id,
                files: files.get(repo_id).unwrap_or(&empty_f),
                functions: functions.get(repo_id).map_or(&[], Vec::as_slice),
                tests: tests.get(repo_id).map_or(&[], Vec::as_slice),
            };
            let out = assertions::assertion_repo(judges, &input, opts);
            done();
            out
        },
    );
    let mut rows = Vec::new();
    let mut summary = assertions::AssertionSummary::default();
    for r in results {
        let (mut part, s) = r.context("a sandboxed worker may not start")?;
        rows.append(&mut part);
        summary.merge(&s);
    }
    Ok((rows, summary))
}

/// What running repository tests needs (assertion tasks).
#[derive(Debug, Clone)]
pub struct ExecSetup {
    pub env: execute::env::EnvConfig,
    /// Where code runs.
    pub backend: execution::BackendArgs,
    pub memory_bytes: u64,
}

/// Writes a family's table, prints its summary on stderr and, when it has no row, `empty`;
/// `true` when it has none.
fn write_family<T: schemas::Table>(
    dir: &std::path::Path,
    rows: &[T],
    render: impl FnOnce(&mut std::io::StderrLock<'static>) -> std::io::Result<()>,
    empty: &str,
) -> anyhow::Result<bool> {
    let path = schemas::write_table(dir, rows).with_context(|| format!("writing {}", T::NAME))?;
    tracing::info!(path = %path.display(), rows = rows.len(), "wrote");
    let mut err = std::io::stderr().lock();
    render(&mut err).context("printing the summary")?;
    if rows.is_empty() {
        writeln!(err, "{empty}").context("printing the summary")?;
    }
    Ok(rows.is_empty())
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The stage: read, mask, write `completion_tasks`, summarize on stderr.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    let opts = args.options()?;
    let dir = args.common.data()?;
    if !schemas::table_exists::<RepoTest>(dir) {
        return Err(MaskError::NoRepoTests {
            path: schemas::table_path::<RepoTest>(dir),
            dir: dir.to_path_buf(),
        }
        .into());
    }
    let repo_tests: Vec<RepoTest> =
        schemas::read_table(dir).context("reading the repository tests execute ran")?;
    let repos: Vec<Repo> =
        schemas::read_table(dir).context("reading the repositories crawl recorded")?;
    let repos: Vec<Repo> = execute::repo_tests::select(&repos, &args.repos)?
        .into_iter()
        .cloned()
        .collect();
    let files: Vec<File> = schemas::read_table(dir).context("reading the files crawl recorded")?;
    let functions: Vec<Function> =
        schemas::read_table(dir).context("reading the functions resolve found")?;
    let inputs = Inputs {
        repos: &repos,
        files: &files,
        functions: &functions,
        repo_tests: &repo_tests,
    };
    let repo_count = repos.iter().filter(|r| r.status == RepoStatus::Ok).count();
    tracing::info!(
        repos = repo_count,
        files = files.len(),
        functions = functions.len(),
        repo_tests = repo_tests.len(),
        "masking"
    );
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let mut lacking = false;
    if args.family.completion() {
        let bar = schemas::cli::progress(&args.common, repo_count as u64, "repos");
        let (rows, summary) = mask_dataset(&inputs, &opts, jobs, &|| bar.inc(1))?;
        bar.finish_and_clear();
        lacking |= write_family(
            dir,
            &rows,
            |err| summary.render(err),
            "mask: no completion task: no span passed the gates above (is `repo_tests` from a run with coverage, and do its tests pass?)",
        )?;
    }
    if args.family.assertion() {
        let aopts = assertions::AssertionOptions {
            per_repo: args.assertions_per_repo,
            tries: args.assertion_mutants,
            variants: args.variants,
            context_budget: args.context_budget,
            seed: args.seed,
            max_test_seconds: args.max_judge_seconds,
        };
        let exec = ExecSetup {
            env: args.env.config(),
            backend: args.backend.clone(),
            memory_bytes: args.memory_mb.saturating_mul(1 << 20),
        };
        let bar = schemas::cli::progress(&args.common, repo_count as u64, "repos (assertions)");
        let (rows, summary) = assertion_dataset(dir, &inputs, &aopts, &exec, jobs, &|| bar.inc(1))?;
        bar.finish_and_clear();
        lacking |= write_family(
            dir,
            &rows,
            |err| summary.render(err),
            "mask: no assertion task: no assertion passed the gates above (do the repositories' tests pass in `repo_tests`, and did their environments build?)",
        )?;
    }
    Ok(if lacking {
        Outcome::Lacking
    } else {
        Outcome::Success
    })
}
