//! `solve`: a model's answers to the tasks, into `DIR/runs/<run>/candidates.parquet`.
//!
//! Reads `function_tasks` (status `ok`) and `validations` (only `valid` tasks; without that
//! table it stops and says to run `execute --validate`, unless `--unvalidated`), and asks a
//! solver ([`spec::Spec`]) for `--samples` answers per task:
//! - the reference solvers ([`reference`]): `oracle` (the reference solution), `null` (the
//!   entry point with an empty body) and `mutant` (one mutation from the `mutants` library
//!   within the entry point, picked by a hash of task id and sample);
//! - `openai:MODEL@URL` ([`openai`]): an OpenAI-compatible endpoint, chat or completions,
//!   with retries and backoff, and an answer cache ([`cache`]) so a rerun asks nothing twice;
//! - `command:PROGRAM` ([`command`]): a program reading the task as JSON on stdin.
//!
//! The prompt is built per task family ([`prompt`]) and the model's text becomes code in
//! [`clean`]; the row keeps both (`answer`, `raw`), the sha256 of the exact request sent
//! (`prompt_hash`), tokens and latency. Rows are sorted by (task id, sample).
//!
//! A rerun resumes: rows of the run's table with status `ok` are kept, and only the
//! (task, sample) pairs missing or with status `error` are asked. The table is written
//! atomically every `--checkpoint-secs` (10) while answers come in and at the end, so a
//! killed run loses at most the answers of the last seconds. A table made with another model
//! spec is refused (a new `--run` name, or `--force` to replace it). With `--shard i/n` the
//! run writes `candidates-i-of-n.parquet`; `--merge-shards` joins the shards of a run into
//! `candidates.parquet`.
//!
//! Why blocking `ureq` and threads rather than an async runtime: ureq is already the
//! workspace's HTTP client (crawl uses it), a pool of N threads each making one blocking
//! request at a time is all that tens of concurrent requests to a model server need (the
//! time is spent waiting for the model, not in the client), and the stage builds without
//! tokio or another runtime. The same pool runs `command:` programs and reference solvers.

pub mod backoff;
pub mod cache;
pub mod clean;
pub mod command;
pub mod openai;
pub mod prompt;
pub mod python;
pub mod reference;
pub mod solver;
pub mod spec;
pub mod task;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use schemas::cli::{check_run_name, CommonArgs, Outcome};
use schemas::Candidate;

use crate::backoff::Backoff;
use crate::cache::Cache;
use crate::prompt::Api;
use crate::reference::Reference;
use crate::solver::{run_pool, Answer, Solver};
use crate::spec::Spec;
use crate::task::{Selection, Shard, Task};

/// Ask a model (or a reference solver) for answers to the tasks, into
/// DIR/runs/RUN/candidates.parquet.
// Each flag is an independent switch of the command line.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Parser)]
#[command(name = "solve", version, about, long_about = None)]
pub struct Args {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The run's name: answers go to DIR/runs/RUN/ (letters, digits, `.`, `_`, `-`).
    #[arg(long, value_name = "NAME")]
    pub run: String,
    /// Who answers: `oracle`, `null`, `mutant` (reference solvers), `openai:MODEL@URL` (an
    /// OpenAI-compatible API, URL its base such as `http://127.0.0.1:8000/v1`) or
    /// `command:PROGRAM [ARGS...]` (reads the task as JSON on stdin, prints the answer).
    #[arg(long, value_name = "SPEC", required_unless_present = "merge_shards")]
    pub model: Option<String>,
    /// The endpoint of `openai:` models: `chat` (/chat/completions) or `completions`
    /// (/completions; the answer is the prompt followed by the completion).
    #[arg(long, value_enum, default_value_t = Api::Chat)]
    pub api: Api,
    /// The environment variable holding the API key (sent as a bearer token; unset is fine
    /// for local servers).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// Answers per task (sample 0 to N-1); each is asked and cached on its own.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub samples: u32,
    /// Sampling temperature sent to the model (and given to `command:` programs).
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    pub temperature: f64,
    /// Most tokens an answer may have.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_tokens: u32,
    /// Answers asked at once (threads, each making one request or running one program).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub concurrency: usize,
    /// Retries of a request after a 429, a 5xx or a transport error, with exponential
    /// backoff (or the server's Retry-After).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// Seconds one request (or one run of a `command:` program) may take.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub timeout: f64,
    /// The answer cache of `openai:` models (default: `$FRESHBENCH_CACHE/solve`, else
    /// `.cache/solve` in the working directory). Deleting it is safe.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the answer cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Only this task (a `task_id` of `function_tasks`); repeatable.
    #[arg(long = "task", value_name = "ID")]
    pub tasks: Vec<String>,
    /// At most N tasks (the first in task id order, after --task and before --shard).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only the tasks whose index in task id order is i-1 modulo n; the answers go to
    /// DIR/runs/RUN/candidates-i-of-n.parquet (join them with --merge-shards).
    #[arg(long, value_name = "i/n")]
    pub shard: Option<Shard>,
    /// Join the shard tables of the run (candidates-i-of-n.parquet, all n of them) into
    /// candidates.parquet, and ask nothing.
    #[arg(long, conflicts_with = "shard")]
    pub merge_shards: bool,
    /// Solve every ok task when DIR/validations.parquet is missing (normally `execute
    /// --validate` must have run).
    #[arg(long)]
    pub unvalidated: bool,
    /// Replace the run's table instead of resuming it (needed when it was made with
    /// another model spec). Cached answers are still used; see --no-cache.
    #[arg(long)]
    pub force: bool,
    /// Seconds between checkpoints of the table while answers come in.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, hide = true)]
    pub checkpoint_secs: f64,
    /// The first retry's backoff in milliseconds (doubling up to a minute).
    #[arg(long, value_name = "MS", default_value_t = 1000, hide = true)]
    pub retry_base_ms: u64,
}

impl Args {
    fn check(&self) -> anyhow::Result<()> {
        check_run_name(&self.run)?;
        if self.samples == 0 {
            anyhow::bail!("--samples 0: give at least 1");
        }
        if self.concurrency == 0 {
            anyhow::bail!("--concurrency 0: give at least 1");
        }
        if self.max_tokens == 0 {
            anyhow::bail!("--max-tokens 0: give at least 1");
        }
        if !self.temperature.is_finite() || self.temperature < 0.0 {
            anyhow::bail!("--temperature {}: give a number >= 0", self.temperature);
        }
        // A year at most: `Duration::from_secs_f64` takes no larger values.
        let max_secs = 365.0 * 86_400.0;
        if !(self.timeout > 0.0 && self.timeout <= max_secs) {
            anyhow::bail!(
                "--timeout {}: give a positive number of seconds",
                self.timeout
            );
        }
        if !(self.checkpoint_secs >= 0.0 && self.checkpoint_secs <= max_secs) {
            anyhow::bail!("--checkpoint-secs must be between 0 and a year");
        }
        Ok(())
    }

    fn run_dir(&self) -> PathBuf {
        self.common.data.join("runs").join(&self.run)
    }

    /// The table this invocation writes.
    fn out_path(&self) -> PathBuf {
        let name = match self.shard {
            Some(s) => format!("candidates-{}-of-{}.parquet", s.index, s.count),
            None => "candidates.parquet".to_string(),
        };
        self.run_dir().join(name)
    }

    fn cache(&self) -> Option<Cache> {
        if self.no_cache {
            return None;
        }
        Some(Cache::new(self.cache_dir.clone().unwrap_or_else(|| {
            std::env::var_os("FRESHBENCH_CACHE")
                .filter(|v| !v.is_empty())
                .map_or_else(|| PathBuf::from(".cache"), PathBuf::from)
                .join("solve")
        })))
    }

    fn solver(&self, spec: &Spec) -> Box<dyn Solver> {
        let timeout = Duration::from_secs_f64(self.timeout);
        match spec {
            Spec::Oracle => Box::new(Reference::Oracle),
            Spec::Null => Box::new(Reference::Null),
            Spec::Mutant => Box::new(Reference::Mutant),
            Spec::OpenAi { model, base_url } => Box::new(openai::OpenAi::new(
                openai::Config {
                    spec: spec.to_string(),
                    model: model.clone(),
                    base_url: base_url.clone(),
                    api: self.api,
                    api_key: std::env::var(&self.api_key_env)
                        .ok()
                        .filter(|k| !k.trim().is_empty()),
                    temperature: self.temperature,
                    max_tokens: self.max_tokens,
                    retries: self.retries,
                    timeout,
                    backoff: Backoff {
                        base: Duration::from_millis(self.retry_base_ms),
                        ..Backoff::default()
                    },
                },
                self.cache(),
            )),
            Spec::Command { program, args } => Box::new(command::CommandSolver {
                program: program.clone(),
                args: args.clone(),
                temperature: self.temperature,
                max_tokens: self.max_tokens,
                timeout,
            }),
        }
    }
}

type Key = (String, i32);

fn key_of(c: &Candidate) -> Key {
    (c.task_id.clone(), c.sample)
}

/// The rows of an earlier run of this table, after checking they are of the same model.
fn existing_rows(path: &Path, model: &str, force: bool) -> anyhow::Result<Vec<Candidate>> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    if force {
        tracing::info!(path = %path.display(), "--force: replacing the run's answers");
        return Ok(Vec::new());
    }
    let rows: Vec<Candidate> = schemas::read_table_from(path).with_context(|| {
        format!(
            "reading the answers of an earlier run in {}",
            path.display()
        )
    })?;
    if let Some(other) = rows.iter().find(|r| r.model != model) {
        anyhow::bail!(
            "{}: this run was made with model `{}`, not `{model}`; use a new --run name, or --force to replace its answers",
            path.display(),
            other.model
        );
    }
    Ok(rows)
}

fn save(path: &Path, rows: &BTreeMap<Key, Candidate>) -> anyhow::Result<()> {
    let rows: Vec<Candidate> = rows.values().cloned().collect();
    schemas::write_table_to(path, &rows)
        .with_context(|| format!("writing the answers to {}", path.display()))
}

fn candidate(run: &str, model: &str, task: &Task, sample: u32, a: Answer) -> Candidate {
    let ok = a.is_ok();
    Candidate {
        run: run.to_string(),
        task_id: task.task_id.clone(),
        family: task.family.as_str().to_string(),
        sample: sample as i32,
        model: model.to_string(),
        prompt_hash: a.prompt_hash,
        answer: a.answer,
        raw: a.raw,
        status: if ok { "ok" } else { "error" }.to_string(),
        error: a.error,
        tokens_in: a.tokens_in,
        tokens_out: a.tokens_out,
        latency_ms: a.latency_ms,
    }
}

/// The stage.
pub fn run(args: &Args) -> anyhow::Result<Outcome> {
    args.check()?;
    if args.merge_shards {
        return merge_shards(args);
    }
    let given = args.model.as_deref().unwrap_or_default();
    let spec: Spec = given.parse()?;
    let model = spec.to_string();
    let dir = &args.common.data;
    let tasks = task::load(
        dir,
        &Selection {
            unvalidated: args.unvalidated,
            tasks: args.tasks.clone(),
            limit: args.limit,
            shard: args.shard,
        },
    )?;
    let path = args.out_path();
    let mut rows: BTreeMap<Key, Candidate> = existing_rows(&path, &model, args.force)?
        .into_iter()
        .map(|c| (key_of(&c), c))
        .collect();
    let wanted: Vec<(&Task, u32)> = tasks
        .iter()
        .flat_map(|t| (0..args.samples).map(move |s| (t, s)))
        .collect();
    let kept = wanted
        .iter()
        .filter(|(t, s)| {
            rows.get(&(t.task_id.clone(), *s as i32))
                .is_some_and(|c| c.status == "ok")
        })
        .count();
    let jobs: Vec<(&Task, u32)> = wanted
        .iter()
        .copied()
        .filter(|(t, s)| {
            rows.get(&(t.task_id.clone(), *s as i32))
                .is_none_or(|c| c.status != "ok")
        })
        .collect();
    tracing::info!(
        run = %args.run,
        model = %model,
        tasks = tasks.len(),
        samples = args.samples,
        kept,
        to_ask = jobs.len(),
        concurrency = args.concurrency,
        "solving"
    );
    if tasks.is_empty() {
        tracing::warn!("no task to solve: function_tasks has no ok (and valid) task selected");
    }

    let solver = args.solver(&spec);
    let bar = schemas::cli::progress(&args.common, jobs.len() as u64, "answers");
    let checkpoint = Duration::from_secs_f64(args.checkpoint_secs);
    let mut last_save = Instant::now();
    let mut fatal: Option<anyhow::Error> = None;
    let mut save_error: Option<anyhow::Error> = None;
    let (mut asked, mut cached) = (0usize, 0usize);
    run_pool(solver.as_ref(), &jobs, args.concurrency, |i, r| {
        let (task, sample) = jobs[i];
        bar.inc(1);
        match r {
            Ok(a) => {
                if a.cached {
                    cached += 1;
                } else {
                    asked += 1;
                }
                if let Some(e) = &a.error {
                    tracing::debug!(task = %task.task_id, sample, error = %e, "no answer");
                }
                let c = candidate(&args.run, &model, task, sample, a);
                rows.insert(key_of(&c), c);
            }
            Err(e) => {
                fatal.get_or_insert(e);
                return false;
            }
        }
        if last_save.elapsed() >= checkpoint {
            if let Err(e) = save(&path, &rows) {
                save_error = Some(e);
                return false;
            }
            last_save = Instant::now();
        }
        true
    });
    bar.finish_and_clear();
    if let Some(e) = save_error {
        return Err(e);
    }
    save(&path, &rows)?;
    if let Some(e) = fatal {
        return Err(e.context(format!(
            "the model could not be asked; the answers so far are saved in {}, rerun to complete the rest",
            path.display()
        )));
    }
    let selected: Vec<&Candidate> = wanted
        .iter()
        .filter_map(|(t, s)| rows.get(&(t.task_id.clone(), *s as i32)))
        .collect();
    let errors: Vec<&Candidate> = selected
        .iter()
        .copied()
        .filter(|c| c.status != "ok")
        .collect();
    summary(&Summary {
        path: &path,
        model: &model,
        tasks: tasks.len(),
        answers: selected.len(),
        errors: &errors,
        kept,
        asked,
        cached,
    })
    .context("printing the summary")?;
    Ok(if errors.is_empty() {
        Outcome::Success
    } else {
        Outcome::Lacking
    })
}

struct Summary<'a> {
    path: &'a Path,
    model: &'a str,
    tasks: usize,
    answers: usize,
    errors: &'a [&'a Candidate],
    kept: usize,
    asked: usize,
    cached: usize,
}

fn summary(s: &Summary<'_>) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "solve: {} answers of `{}` to {} tasks: {} ok, {} error; {} kept from an earlier run, {} from the cache, {} asked",
        s.answers,
        s.model,
        s.tasks,
        s.answers - s.errors.len(),
        s.errors.len(),
        s.kept,
        s.cached,
        s.asked
    )?;
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for c in s.errors {
        let r: String = c.error.as_deref().unwrap_or("").chars().take(120).collect();
        *reasons.entry(r).or_default() += 1;
    }
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (r, n) in reasons.iter().take(5) {
        writeln!(out, "  {n:>5} x {r}")?;
    }
    if !s.errors.is_empty() {
        writeln!(
            out,
            "  rerun the same command to ask again for the answers in error"
        )?;
    }
    writeln!(out, "  wrote {}", s.path.display())?;
    Ok(())
}

/// `--merge-shards`: the shard tables of the run joined into `candidates.parquet`.
fn merge_shards(args: &Args) -> anyhow::Result<Outcome> {
    let run_dir = args.run_dir();
    let mut shards: BTreeMap<usize, BTreeMap<usize, PathBuf>> = BTreeMap::new();
    let entries = std::fs::read_dir(&run_dir).with_context(|| {
        format!(
            "{}: no such run folder; run solve with --shard i/n first",
            run_dir.display()
        )
    })?;
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", run_dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let parsed = name
            .strip_prefix("candidates-")
            .and_then(|r| r.strip_suffix(".parquet"))
            .and_then(|r| r.split_once("-of-"))
            .and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)));
        if let Some((i, n)) = parsed {
            shards.entry(n).or_default().insert(i, entry.path());
        }
    }
    let (count, files) = match shards.len() {
        0 => anyhow::bail!(
            "{}: no shard tables (candidates-i-of-n.parquet); run solve with --shard i/n first",
            run_dir.display()
        ),
        1 => shards.into_iter().next().expect("one shard count"),
        _ => anyhow::bail!(
            "{}: shard tables of several shard counts ({}); remove the stale ones",
            run_dir.display(),
            shards
                .keys()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let missing: Vec<String> = (1..=count)
        .filter(|i| !files.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "{}: shards {} are missing; run solve with --shard for each of them first",
            run_dir.display(),
            missing.join(", ")
        );
    }
    let mut rows: BTreeMap<Key, Candidate> = BTreeMap::new();
    let mut models: BTreeSet<String> = BTreeSet::new();
    for path in files.values() {
        let part: Vec<Candidate> = schemas::read_table_from(path)
            .with_context(|| format!("reading the shard {}", path.display()))?;
        for c in part {
            models.insert(c.model.clone());
            if let Some(dup) = rows.insert(key_of(&c), c) {
                anyhow::bail!(
                    "{}: task {} sample {} is in two shards; rerun the shards with one --shard count",
                    run_dir.display(),
                    dup.task_id,
                    dup.sample
                );
            }
        }
    }
    if models.len() > 1 {
        anyhow::bail!(
            "{}: the shards were made with different models ({}); rerun the odd ones",
            run_dir.display(),
            models.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    let model = models.into_iter().next().unwrap_or_default();
    if let Some(given) = &args.model {
        let given = given.parse::<Spec>()?.to_string();
        if !model.is_empty() && given != model {
            anyhow::bail!("the shards were made with model `{model}`, not `{given}`");
        }
    }
    let path = run_dir.join("candidates.parquet");
    if !model.is_empty() {
        existing_rows(&path, &model, args.force)?;
    }
    save(&path, &rows)?;
    let errors = rows.values().filter(|c| c.status != "ok").count();
    println!(
        "solve: merged {count} shards: {} answers of `{model}`, {errors} error; wrote {}",
        rows.len(),
        path.display()
    );
    Ok(if errors == 0 {
        Outcome::Success
    } else {
        Outcome::Lacking
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_is_consistent() {
        use clap::CommandFactory as _;
        Args::command().debug_assert();
    }
}
