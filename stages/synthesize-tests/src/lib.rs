//! `synthesize-tests`: test cases for `function` tasks (`Code2Bench`'s family), found by a
//! coverage-guided, property-based search and recorded by running the original.
//!
//! Reads `functions`, `classifications` and `references` from the dataset directory and
//! writes `function_tasks` and `test_cases`. For every self-contained or weakly
//! self-contained function: each parameter gets a proptest strategy from its annotation,
//! default value, docstring or uses in the body ([`synth::param_specs`], [`usage`]),
//! seeded with the constants the function holds ([`strategy`]); the search ([`search`])
//! runs edge values and then generated inputs against the original in the execute worker
//! under coverage, keeps an input when it covers a new branch arc, shrinks it with its value
//! tree and mutates kept inputs, until every arc is covered or the budget is spent. The
//! smallest set of cases covering the same arcs is kept, plus a few edge cases; each is run
//! again in a fresh process of a worker with another hash seed (a function whose results
//! differ is rejected), and mutants of the original (the `mutants` library) are run against
//! them for the mutation score. The task's prompt is the signature and docstring with the
//! imports ([`task`]). All code runs through the `execute` library, in its sandbox.
//!
//! When the dataset has `observed_calls` (the arguments `execute --repo-tests` saw the
//! repository's own tests pass, [`observed`]), a function's rows that fit its entry point
//! are the search's first seeds, mutated like its own inputs, and their values' types
//! outrank the guessed ones; cases from them are marked `from_observed`. `--no-observed`
//! ignores the table (the bench's with/without comparison). A task's `config_hash` holds
//! the digest of the rows it was made with ([`synth::config_hash`]), so a rerun remakes a
//! function whose observations changed, or that is run with or without them. The summary
//! counts the candidates with observed calls, those of them at full arc coverage, and the
//! cases from observed.

pub mod doc;
pub mod exec;
pub mod literal;
pub mod observed;
pub mod pyval;
pub mod regex_text;
pub mod search;
pub mod shapes;
pub mod strategy;
pub mod synth;
pub mod task;
#[cfg(test)]
mod test_python;
pub mod types;
pub mod usage;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use execute::tasks::{CodeRef, Interpreters};
use execution::{default_interpreter, Batch, Limits, WorkerSpec};
use schemas::cli::{CommonArgs, Outcome, ResumeArgs};
use schemas::{
    Classification, Function, FunctionClass, FunctionTask, ObservedCall, Reference, TaskStatus,
    TestCase,
};

/// A hash of the code that makes function tasks (this crate, the execution library and its
/// runner, the mutants library, resolve's literal decoder, the contract), recorded at build
/// time by `build.rs`: part of every task's `config_hash`, so a rerun remakes the tasks an
/// older build of freshbench made.
pub const BUILD_ID: &str = env!("FRESHBENCH_BUILD_ID");

use crate::search::Budget;
use crate::synth::{Batches, Options, Synthesized};

/// Make test cases for function tasks by a coverage-guided search, gated on coverage and a
/// mutation score.
#[derive(Debug, Parser)]
#[command(name = "synthesize-tests", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The Python interpreter of the workers (default: .tools/venv/bin/python, else python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Functions synthesized in parallel (one pair of workers each).
    #[arg(long, value_name = "N", default_value_t = default_jobs())]
    pub jobs: usize,
    /// Calls of the original one function's search may make (shrinking included).
    #[arg(long, value_name = "N", default_value_t = Budget::default().calls)]
    pub calls: usize,
    /// Seconds one function's search may take. A safety net: the call budget is what keeps
    /// runs reproducible, a search cut by the clock may differ between runs.
    #[arg(long, value_name = "SECS", default_value_t = Budget::default().seconds)]
    pub seconds: f64,
    /// Stop a search after this many calls in a row that covered nothing new.
    #[arg(long, value_name = "N", default_value_t = Budget::default().stall)]
    pub stall: usize,
    /// At most this many test cases per task (edge cases included).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub max_cases: usize,
    /// Edge cases kept per task beyond those that cover something.
    #[arg(long, value_name = "N", default_value_t = Budget::default().edge_cases)]
    pub edge_cases: usize,
    /// At most this many mutants per task for the mutation score (0: none).
    #[arg(long, value_name = "N", default_value_t = 40)]
    pub mutants: usize,
    /// A task must cover at least this share of the original's arcs (1.0: all of them).
    #[arg(long, value_name = "SHARE", default_value_t = 1.0)]
    pub min_coverage: f64,
    /// A task must kill at least this share of its mutants.
    #[arg(long, value_name = "SHARE", default_value_t = 0.5)]
    pub min_mutation_score: f64,
    /// Wall-clock seconds one call of the original may take (an input that takes longer is
    /// no test case).
    #[arg(long, value_name = "SECS", default_value_t = 2)]
    pub call_timeout: u64,
    /// Address space of a call's process, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub memory_mb: u64,
    /// Only functions whose id, qualified name or `module.qualname` is this; repeatable.
    #[arg(long = "function", value_name = "NAME")]
    pub functions: Vec<String>,
    /// Ignore `observed_calls` (the arguments the repository's tests passed): search from
    /// generated inputs and guessed types alone.
    #[arg(long)]
    pub no_observed: bool,
    /// Mixed into each function's random seed (which is its id's hash): 0 gives the usual
    /// runs; other values give other, equally reproducible ones, to see how much a figure
    /// owes to chance (`make bench`'s `SEEDS`). Part of the tasks' `config_hash`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Synthesize again the functions that already have a task made with these options.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub backend: execution::BackendArgs,
    /// Do not build environments: functions that use third-party packages are rejected
    /// (`environment`) instead of run in their repository's environment.
    #[arg(long)]
    pub no_envs: bool,
    /// The cache folder of environments (default: `$FRESHBENCH_CACHE`, else `.cache`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// The uv to build environments with (default: `$FRESHBENCH_UV`, `.tools/venv/bin/uv`, uv
    /// on `PATH`; without one, `python -m venv` and pip).
    #[arg(long, value_name = "PATH")]
    pub uv: Option<PathBuf>,
    /// Seconds one installer command may take.
    #[arg(long, value_name = "SECS", default_value_t = 1200)]
    pub env_timeout: u64,
    #[command(flatten)]
    pub resume: ResumeArgs,
}

fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(4)
}

impl Args {
    fn options(&self) -> anyhow::Result<Options> {
        if self.jobs == 0 {
            anyhow::bail!("--jobs 0: give at least 1");
        }
        if self.calls == 0 {
            anyhow::bail!("--calls 0: a search needs at least one call");
        }
        if !(0.0..=1.0).contains(&self.min_coverage)
            || !(0.0..=1.0).contains(&self.min_mutation_score)
        {
            anyhow::bail!("--min-coverage and --min-mutation-score are shares between 0 and 1");
        }
        if self.max_cases == 0 {
            anyhow::bail!("--max-cases 0: a task needs at least one case");
        }
        if self.call_timeout == 0 || !self.seconds.is_finite() || self.seconds <= 0.0 {
            anyhow::bail!("--call-timeout and --seconds must be positive");
        }
        Ok(Options {
            budget: Budget {
                calls: self.calls,
                seconds: self.seconds,
                stall: self.stall.max(1),
                edge_cases: self.edge_cases,
                // The reservoir is what mutants the cases miss are tried against: without
                // mutants, no call is spent filling it once the search is done.
                reservoir: if self.mutants == 0 {
                    0
                } else {
                    Budget::default().reservoir
                },
                ..Budget::default()
            },
            max_cases: self.max_cases,
            mutants: self.mutants,
            min_coverage: self.min_coverage,
            min_mutation_score: self.min_mutation_score,
            limits: Limits {
                wall: Duration::from_secs(self.call_timeout),
                cpu_seconds: self.call_timeout,
                memory_bytes: self.memory_mb.saturating_mul(1 << 20),
                ..Limits::default()
            },
            python: self.python.clone().unwrap_or_else(default_interpreter),
            seed: self.seed,
        })
    }
}

/// One function to synthesize, with the interpreter it runs on (or why it has none).
struct Job<'a> {
    pos: usize,
    f: &'a Function,
    class: FunctionClass,
    /// The interpreter and the packages its workers import before serving.
    python: Result<(PathBuf, Vec<String>), String>,
}

/// The classes that make function tasks.
pub const CLASSES: &[FunctionClass] = &[
    FunctionClass::SelfContained,
    FunctionClass::WeaklySelfContained,
];

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    let opts = args.options()?;
    let dir = args.common.data()?;
    let functions: Vec<Function> =
        schemas::read_table(dir).context("reading the functions found by resolve")?;
    let classes: Vec<Classification> =
        schemas::read_table(dir).context("reading the classes classify gave the functions")?;
    let references: Vec<Reference> =
        schemas::read_table(dir).context("reading the references found by resolve")?;
    let class_of: HashMap<&str, FunctionClass> = classes
        .iter()
        .map(|c| (c.function_id.as_str(), c.class))
        .collect();
    let mut refs_of: HashMap<&str, Vec<&Reference>> = HashMap::new();
    for r in &references {
        refs_of.entry(r.function_id.as_str()).or_default().push(r);
    }
    let observed_of = read_observed(dir, args.no_observed)?;
    let observed_rows = |id: &str| observed_of.get(id).map_or(&[][..], Vec::as_slice);
    let wanted = |f: &Function| {
        args.functions.is_empty()
            || args.functions.iter().any(|w| {
                *w == f.function_id
                    || *w == f.qualname
                    || *w == format!("{}.{}", f.module, f.qualname)
            })
    };
    let candidates: Vec<(&Function, FunctionClass)> = functions
        .iter()
        .filter_map(|f| {
            class_of
                .get(f.function_id.as_str())
                .filter(|c| CLASSES.contains(c))
                .map(|c| (f, *c))
        })
        .filter(|(f, _)| wanted(f))
        .collect();
    if !args.functions.is_empty() && candidates.is_empty() {
        anyhow::bail!(
            "no self-contained or weakly self-contained function matches --function {}: give a function_id, qualname or module.qualname of such a function",
            args.functions.join(", ")
        );
    }

    // What an earlier run already made with the same options is kept (resume); with
    // --function, the rows of the other functions stay as they are.
    let mut existing: BTreeMap<String, Synthesized> = BTreeMap::new();
    if schemas::table_exists::<FunctionTask>(dir) {
        let tasks: Vec<FunctionTask> =
            schemas::read_table(dir).context("reading the function tasks of an earlier run")?;
        let cases: Vec<TestCase> = if schemas::table_exists::<TestCase>(dir) {
            schemas::read_table(dir).context("reading the test cases of an earlier run")?
        } else {
            Vec::new()
        };
        let mut cases_of: HashMap<String, Vec<TestCase>> = HashMap::new();
        for c in cases {
            cases_of.entry(c.task_id.clone()).or_default().push(c);
        }
        for t in tasks {
            let cases = cases_of.remove(&t.task_id).unwrap_or_default();
            existing.insert(t.function_id.clone(), Synthesized { task: t, cases });
        }
    }
    let keep: HashSet<&str> = candidates
        .iter()
        .map(|(f, _)| f.function_id.as_str())
        .collect();
    let mut others: Vec<Synthesized> = Vec::new();
    let mut done: BTreeMap<String, Synthesized> = BTreeMap::new();
    for (id, s) in existing {
        if keep.contains(id.as_str()) {
            // Kept when made by this build with these options, and not the harness's
            // failure (a rerun tries those again).
            let config = synth::config_hash(&opts, observed_rows(&id));
            if !args.force && s.task.config_hash == config && s.task.status != TaskStatus::Infra {
                done.insert(id, s);
            }
        } else if !args.functions.is_empty() {
            others.push(s);
        }
    }
    let todo: Vec<(usize, &Function, FunctionClass)> = candidates
        .iter()
        .enumerate()
        .filter(|(_, (f, _))| !done.contains_key(&f.function_id))
        .map(|(i, (f, c))| (i, *f, *c))
        .collect();
    tracing::info!(
        candidates = candidates.len(),
        already_done = done.len(),
        todo = todo.len(),
        jobs = args.jobs,
        "synthesizing"
    );

    // Where each function runs: the tools' interpreter, or its repository's environment
    // for functions that use third-party packages (execute's one placement of function code).
    let todo_refs: Vec<CodeRef<'_>> = todo
        .iter()
        .map(|(_, f, _)| CodeRef {
            key: &f.function_id,
            function_id: &f.function_id,
            repo_id: &f.repo_id,
        })
        .collect();
    let mut interp = Interpreters::plan(dir, &todo_refs, opts.python.clone())?;
    interp.build(
        &todo_refs,
        (!args.no_envs).then(|| execute::env::EnvConfig {
            cache_dir: args
                .cache_dir
                .clone()
                .unwrap_or_else(execute::env::default_cache_dir),
            python: opts.python.clone(),
            uv: args.uv.clone().or_else(execute::env::find_uv),
            rebuild: false,
            timeout: Duration::from_secs(args.env_timeout),
            allow_sdist_builds: false,
            sdist_index: execute::env::default_sdist_index(),
        }),
    )?;
    let todo: Vec<Job<'_>> = todo
        .into_iter()
        .zip(&todo_refs)
        .map(|((pos, f, class), r)| Job {
            pos,
            f,
            class,
            python: interp.placement(*r),
        })
        .collect();

    let backend = args.backend.backend()?;
    let backend = &*backend;
    let bar = schemas::cli::progress(&args.common, todo.len() as u64, "functions");
    let mut checkpoint = args.resume.checkpoint()?;
    let result = schemas::pool::stream(
        &todo,
        args.jobs,
        // A pair of workers per interpreter each thread has needed.
        HashMap::<(PathBuf, Vec<String>), Batches<'_>>::new,
        |pairs, job| {
            let refs = refs_of
                .get(job.f.function_id.as_str())
                .map_or(&[][..], Vec::as_slice);
            let (python, preload) = match &job.python {
                Err(why) => {
                    return Ok(synth::infra(
                        job.f,
                        job.class,
                        &opts,
                        &format!("environment: {why}"),
                    ))
                }
                Ok(p) => p,
            };
            let batches = pairs
                .entry((python.clone(), preload.clone()))
                .or_insert_with(|| {
                    let spec = WorkerSpec {
                        interpreter: Some(python.clone()),
                        preload: preload.clone(),
                        ..WorkerSpec::default()
                    };
                    Batches {
                        primary: Batch::new(backend, &spec, &opts.limits),
                        recheck: Batch::new(
                            backend,
                            &WorkerSpec {
                                hash_seed: 1,
                                ..spec.clone()
                            },
                            &opts.limits,
                        ),
                    }
                });
            let observed = observed_rows(&job.f.function_id);
            match synth::synthesize(job.f, job.class, refs, observed, &opts, batches) {
                Ok(s) => Ok(s),
                // No worker may start by configuration: the run stops.
                Err(e) if e.is_configuration() => {
                    Err(anyhow::Error::new(e).context(format!("synthesizing {}", job.f.qualname)))
                }
                // A worker that could not start this time: the harness's failure, tried
                // again by a rerun.
                Err(e) => Ok(synth::infra(job.f, job.class, &opts, &e.to_string())),
            }
        },
        |i, s| {
            bar.inc(1);
            let pos = todo[i].pos;
            tracing::debug!(function = %candidates[pos].0.qualname, status = %s.task.status, reason = ?s.task.reason, cases = s.task.cases, "synthesized");
            done.insert(candidates[pos].0.function_id.clone(), s);
            // A checkpoint now and then: a killed run keeps what it made.
            if checkpoint.due() {
                if let Err(e) = save(dir, &candidates, &done, &others) {
                    tracing::warn!(error = %e, "checkpoint failed");
                }
            }
            std::ops::ControlFlow::Continue(())
        },
    );
    bar.finish_and_clear();
    save(dir, &candidates, &done, &others)?;
    result.context("no worker may run code; the tasks made so far are saved")?;
    let counts = summary(&candidates, &done, &observed_of).context("printing the summary")?;
    // Nothing usable came out, or some functions could not be tried: the run is lacking.
    Ok(if (counts.ok == 0 && counts.rows > 0) || counts.infra > 0 {
        Outcome::Lacking
    } else {
        Outcome::Success
    })
}

/// Writes both tables: the tasks in the order of the candidates, then the others kept.
fn save(
    dir: &std::path::Path,
    candidates: &[(&Function, FunctionClass)],
    done: &BTreeMap<String, Synthesized>,
    others: &[Synthesized],
) -> anyhow::Result<()> {
    let mut tasks = Vec::new();
    let mut cases = Vec::new();
    for (f, _) in candidates {
        let Some(s) = done.get(&f.function_id) else {
            continue;
        };
        // The code's date is the function's, as resolve has it now: not a product of the
        // synthesis, so a kept task takes the current one.
        let mut task = s.task.clone();
        task.code_date = f.code_date;
        task.code_date_source = f.code_date_source;
        task.after_cutoff = f.after_cutoff;
        tasks.push(task);
        cases.extend(s.cases.iter().cloned());
    }
    for s in others {
        tasks.push(s.task.clone());
        cases.extend(s.cases.iter().cloned());
    }
    schemas::write_table(dir, &cases).context("writing test_cases")?;
    schemas::write_table(dir, &tasks).context("writing function_tasks")?;
    Ok(())
}

/// Of the candidates with a row: those with observed calls, of them those at full arc
/// coverage, and the cases from observed of the ok tasks.
fn observed_counts(
    candidates: &[(&Function, FunctionClass)],
    done: &BTreeMap<String, Synthesized>,
    observed_of: &HashMap<String, Vec<ObservedCall>>,
) -> (usize, usize, usize) {
    let mut seeded = 0;
    let mut full = 0;
    let mut cases = 0;
    for (f, _) in candidates {
        let Some(s) = done.get(&f.function_id) else {
            continue;
        };
        if observed_of.contains_key(&f.function_id) {
            seeded += 1;
            if s.task.arcs_total > 0 && s.task.arcs_covered == s.task.arcs_total {
                full += 1;
            }
        }
        if s.task.status == TaskStatus::Ok {
            cases += s.cases.iter().filter(|c| c.from_observed).count();
        }
    }
    (seeded, full, cases)
}

/// What the summary counted.
struct Counts {
    rows: usize,
    ok: usize,
    infra: usize,
}

/// The rows of `observed_calls` by function, empty when the table is absent or ignored
/// (said once, at info level).
fn read_observed(
    dir: &std::path::Path,
    ignore: bool,
) -> anyhow::Result<HashMap<String, Vec<ObservedCall>>> {
    if ignore {
        tracing::info!("--no-observed: observed_calls ignored, no observed seeds");
        return Ok(HashMap::new());
    }
    if !schemas::table_exists::<ObservedCall>(dir) {
        tracing::info!(
            "no observed_calls table (execute --repo-tests writes it): no observed seeds"
        );
        return Ok(HashMap::new());
    }
    let rows: Vec<ObservedCall> = schemas::read_table(dir)
        .context("reading the calls execute observed the repositories' tests make")?;
    let n = rows.len();
    let by = observed::by_function(rows);
    tracing::info!(
        rows = n,
        functions = by.len(),
        "observed calls seed the search"
    );
    Ok(by)
}

fn summary(
    candidates: &[(&Function, FunctionClass)],
    done: &BTreeMap<String, Synthesized>,
    observed_of: &HashMap<String, Vec<ObservedCall>>,
) -> std::io::Result<Counts> {
    let mut out = std::io::stdout().lock();
    let rows: Vec<&FunctionTask> = candidates
        .iter()
        .filter_map(|(f, _)| done.get(&f.function_id).map(|s| &s.task))
        .collect();
    let ok = rows.iter().filter(|t| t.status == TaskStatus::Ok).count();
    let skipped = rows
        .iter()
        .filter(|t| {
            t.status == TaskStatus::Infra && execute::tasks::skipped_on_request(t.reason.as_deref())
        })
        .count();
    let infra = rows
        .iter()
        .filter(|t| t.status == TaskStatus::Infra)
        .count()
        - skipped;
    writeln!(
        out,
        "synthesized {} function tasks: {ok} ok, {} rejected, {} not tried",
        rows.len(),
        rows.len() - ok - infra - skipped,
        infra + skipped
    )?;
    let full = rows
        .iter()
        .filter(|t| t.arcs_total > 0 && t.arcs_covered == t.arcs_total)
        .count();
    let cases: i32 = rows
        .iter()
        .filter(|t| t.status == TaskStatus::Ok)
        .map(|t| t.cases)
        .sum();

    writeln!(out, "  full arc coverage       {full:>6} of {}", rows.len())?;
    writeln!(out, "  test cases (ok tasks)   {cases:>6}")?;
    let (seeded, seeded_full, from_observed) = observed_counts(candidates, done, observed_of);
    if !observed_of.is_empty() {
        writeln!(
            out,
            "  with observed calls     {seeded:>6} of {}",
            rows.len()
        )?;
        writeln!(
            out,
            "    full arc coverage     {seeded_full:>6} of {seeded} (without: {} of {})",
            full - seeded_full,
            rows.len() - seeded
        )?;
        writeln!(out, "  cases from observed     {from_observed:>6}")?;
    }
    let mut scores: Vec<f64> = rows.iter().filter_map(|t| t.mutation_score).collect();
    scores.sort_by(f64::total_cmp);
    if !scores.is_empty() {
        writeln!(
            out,
            "  median mutation score   {:>6.2}",
            scores[scores.len() / 2]
        )?;
    }
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &rows {
        if let Some(r) = &t.reason {
            for part in r.split("; ") {
                *reasons
                    .entry(part.split(':').next().unwrap_or(part))
                    .or_default() += 1;
            }
        }
    }
    if !reasons.is_empty() {
        writeln!(out, "reasons:")?;
        for (r, n) in reasons {
            writeln!(out, "  {r:<24} {n:>6}")?;
        }
    }
    if skipped > 0 {
        writeln!(
            out,
            "{skipped} functions need their repository's environment, not built (--no-envs)"
        )?;
    }
    if infra > 0 {
        writeln!(
            out,
            "{infra} functions could not be tried (infra: the harness failed); rerun the same command to try them"
        )?;
    }
    if ok == 0 && !rows.is_empty() {
        writeln!(
            out,
            "no usable task came out: see the reasons above (or --min-coverage and --min-mutation-score)"
        )?;
    }
    Ok(Counts {
        rows: rows.len(),
        ok,
        infra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_mutants_no_call_fills_the_reservoir() {
        let opts = |extra: &[&str]| {
            let mut argv = vec!["synthesize-tests", "--data", "d"];
            argv.extend_from_slice(extra);
            Args::try_parse_from(argv).unwrap().options().unwrap()
        };
        assert_eq!(opts(&["--mutants", "0"]).budget.reservoir, 0);
        assert_eq!(opts(&[]).budget.reservoir, Budget::default().reservoir);
    }
}
