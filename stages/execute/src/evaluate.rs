//! The two stage jobs that judge solutions of function tasks ([`crate::tasks`]):
//!
//! - `--validate`: every `ok` task is run with its original solution (twice: in a worker
//!   with hash randomization off and in one with `PYTHONHASHSEED=1`) and with an empty one;
//!   `validations` says per task whether the original passes every case, the empty body
//!   fails, and the results are the same over both runs. Only valid tasks count downstream.
//! - `--run NAME`: every answer of `runs/NAME/candidates` is run against its task's cases;
//!   `runs/NAME/executions` gets its status, cases passed and the failure fingerprint.
//!
//! Both are resumable (rows already written are kept; a checkpoint is written every 30 s)
//! and run `--jobs` workers side by side, one persistent worker per interpreter per job.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use schemas::cli::{check_run_name, CommonArgs, Outcome as StageOutcome};
use schemas::{Candidate, Execution, FunctionTask, Validation};

use crate::backend::{Backend, WorkerSpec};
use crate::batch::Batch;
use crate::process::{ProcessBackend, ProcessOptions};
use crate::tasks::{self, Interpreters, JudgeOptions, TaskCases, Verdict};

/// What both jobs share.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    pub jobs: usize,
    pub judge: JudgeOptions,
    pub force: bool,
    pub require_isolation: bool,
    /// The interpreter of tasks that use only the standard library.
    pub python: PathBuf,
    /// How to build environments for tasks that import third-party packages (`None`: don't).
    pub envs: Option<crate::env::EnvConfig>,
    /// `(i, n)` of `--shard i/n`.
    pub shard: Option<(usize, usize)>,
    /// Seconds between checkpoints.
    pub checkpoint: Duration,
}

/// Writes the rows made so far now and then, so that a killed run keeps them.
struct Checkpoint {
    every: Duration,
    last: Instant,
}

impl Checkpoint {
    fn every(every: Duration) -> Checkpoint {
        Checkpoint {
            every,
            last: Instant::now(),
        }
    }

    /// Saves `rows` when the last save is older than the interval; a failed save is logged
    /// (the final one, which the caller makes, reports its error).
    fn now_and_then<T>(&mut self, rows: &T, save: impl Fn(&T) -> anyhow::Result<()>) {
        if self.last.elapsed() > self.every {
            if let Err(e) = save(rows) {
                tracing::warn!(error = %e, "checkpoint failed");
            }
            self.last = Instant::now();
        }
    }
}

/// One thread's workers: a pair (hash seed 0 and 1) per interpreter it has needed.
struct Workers<'b> {
    backend: &'b dyn Backend,
    limits: crate::backend::Limits,
    pairs: HashMap<(PathBuf, Vec<String>), (Batch<'b>, Batch<'b>)>,
}

impl<'b> Workers<'b> {
    fn pair(&mut self, python: &Path, preload: &[String]) -> &mut (Batch<'b>, Batch<'b>) {
        let (backend, limits) = (self.backend, self.limits);
        self.pairs
            .entry((python.to_path_buf(), preload.to_vec()))
            .or_insert_with(|| {
                let spec = WorkerSpec {
                    interpreter: Some(python.to_path_buf()),
                    preload: preload.to_vec(),
                    ..WorkerSpec::default()
                };
                let other = WorkerSpec {
                    hash_seed: 1,
                    ..spec.clone()
                };
                (
                    Batch::new(backend, &spec, &limits),
                    Batch::new(backend, &other, &limits),
                )
            })
    }
}

/// Runs `work` over `items` on `jobs` threads, each with its own [`Workers`]; `sink` gets
/// each result on the calling thread, in completion order. Stops early when a worker
/// cannot start at all (that error is returned).
fn parallel<T: Sync, R: Send>(
    opts: &EvalOptions,
    items: &[T],
    work: impl Fn(&mut Workers<'_>, &T) -> anyhow::Result<R> + Sync,
    mut sink: impl FnMut(usize, R),
) -> anyhow::Result<()> {
    let backend = ProcessBackend::new(ProcessOptions {
        require_isolation: opts.require_isolation,
        ..ProcessOptions::default()
    });
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<R>)>();
    let mut fatal = None;
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.clamp(1, items.len().max(1)) {
            let tx = tx.clone();
            let (next, failed, backend, work) = (&next, &failed, &backend, &work);
            scope.spawn(move || {
                let mut workers = Workers {
                    backend,
                    limits: opts.judge.limits,
                    pairs: HashMap::new(),
                };
                while !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = work(&mut workers, item);
                    if r.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    if tx.send((i, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            match r {
                Ok(r) => sink(i, r),
                Err(e) => {
                    fatal.get_or_insert(e);
                }
            }
        }
    });
    match fatal {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn interpreters(
    dir: &Path,
    tasks: &[&FunctionTask],
    opts: &EvalOptions,
) -> anyhow::Result<Interpreters> {
    Interpreters::prepare(dir, tasks, opts.python.clone(), opts.envs.clone())
}

// ---------------------------------------------------------------------------------------
// Validations

/// `execute --validate`.
pub fn validate(common: &CommonArgs, opts: &EvalOptions) -> anyhow::Result<StageOutcome> {
    let dir = &common.data;
    let all = tasks::load_function_tasks(dir)?;
    let old: Vec<Validation> = if !opts.force && schemas::table_exists::<Validation>(dir) {
        schemas::read_table(dir).context("reading the validations written before")?
    } else {
        Vec::new()
    };
    // A row is kept when its task still has the same number of cases (a task whose cases
    // were made again with other options is checked again).
    let cases_of: HashMap<&str, usize> = all
        .iter()
        .map(|t| (t.task.task_id.as_str(), t.cases.len()))
        .collect();
    let mut done: BTreeMap<String, Validation> = old
        .into_iter()
        .filter(|v| cases_of.get(v.task_id.as_str()) == Some(&(v.cases as usize)))
        .map(|v| (v.task_id.clone(), v))
        .collect();
    let todo: Vec<&TaskCases> = all
        .iter()
        .filter(|t| !done.contains_key(&t.task.task_id))
        .collect();
    tracing::info!(
        tasks = all.len(),
        already_done = done.len(),
        todo = todo.len(),
        "validating function tasks"
    );
    let task_rows: Vec<&FunctionTask> = todo.iter().map(|t| &t.task).collect();
    let interp = interpreters(dir, &task_rows, opts)?;
    let bar = schemas::cli::progress(common, todo.len() as u64, "tasks");
    let mut checkpoint = Checkpoint::every(opts.checkpoint);
    let save = |done: &BTreeMap<String, Validation>| -> anyhow::Result<()> {
        let rows: Vec<Validation> = done.values().cloned().collect();
        schemas::write_table(dir, &rows).context("writing validations")?;
        Ok(())
    };
    let result = parallel(
        opts,
        &todo,
        |workers, t| validate_one(workers, &interp, t, &opts.judge),
        |_, v| {
            bar.inc(1);
            done.insert(v.task_id.clone(), v);
            checkpoint.now_and_then(&done, save);
        },
    );
    bar.finish_and_clear();
    save(&done)?;
    result.context("a worker could not start; the validations made so far are saved, rerun to complete the rest")?;
    let rows: Vec<&Validation> = done.values().collect();
    let valid = rows.iter().filter(|v| v.valid).count();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for v in rows.iter().filter(|v| !v.valid) {
        let r = v.reason.as_deref().unwrap_or("?");
        *reasons.entry(r.split(':').next().unwrap_or(r)).or_default() += 1;
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "validated {} function tasks: {valid} valid",
        rows.len()
    )?;
    for (r, n) in &reasons {
        writeln!(out, "  {r:<24} {n}")?;
    }
    Ok(if valid == 0 && !rows.is_empty() {
        StageOutcome::Lacking
    } else {
        StageOutcome::Success
    })
}

fn validate_one(
    workers: &mut Workers<'_>,
    interp: &Interpreters,
    t: &TaskCases,
    judge: &JudgeOptions,
) -> anyhow::Result<Validation> {
    let task = &t.task;
    let base = Validation {
        task_id: task.task_id.clone(),
        family: "function".into(),
        original_passes: false,
        null_fails: false,
        stable: false,
        valid: false,
        cases: t.cases.len() as i32,
        original_seconds: 0.0,
        reason: None,
        isolation: String::new(),
    };
    if t.cases.is_empty() {
        return Ok(Validation {
            reason: Some("no_cases: the task has no test cases".into()),
            ..base
        });
    }
    let (python, preload) = match interp.for_task(task) {
        Ok(p) => p,
        Err(why) => {
            return Ok(Validation {
                reason: Some(format!("environment: {why}")),
                ..base
            })
        }
    };
    let (primary, other) = workers.pair(&python, &preload);
    let a = tasks::judge(primary, &task.canonical_solution, t, judge)?;
    let b = tasks::judge(other, &task.canonical_solution, t, judge)?;
    let null = tasks::judge(primary, &tasks::null_solution(&task.entry_point), t, judge)?;
    let original_passes = a.status == "pass";
    let null_fails = null.status != "pass";
    let stable = a.behaviour == b.behaviour;
    let reason = if !original_passes {
        Some(format!(
            "original_fails: {} ({})",
            a.detail.clone().unwrap_or_default(),
            a.status
        ))
    } else if !stable {
        Some(unstable_reason(&a, &b))
    } else if !null_fails {
        Some("null_passes: an empty body passes every case".into())
    } else {
        None
    };
    Ok(Validation {
        original_passes,
        null_fails,
        stable,
        valid: original_passes && null_fails && stable,
        original_seconds: a.seconds,
        reason,
        isolation: a.isolation.as_str().into(),
        ..base
    })
}

fn unstable_reason(a: &Verdict, b: &Verdict) -> String {
    let i = a
        .behaviour
        .iter()
        .zip(&b.behaviour)
        .position(|(x, y)| x != y)
        .unwrap_or(0);
    let clip = |s: &str| s.chars().take(200).collect::<String>();
    format!(
        "unstable: case {i} gave {} then {} (PYTHONHASHSEED 0 and 1)",
        clip(a.behaviour.get(i).map_or("", String::as_str)),
        clip(b.behaviour.get(i).map_or("", String::as_str))
    )
}

// ---------------------------------------------------------------------------------------
// Runs

/// The folder of a run.
pub fn run_dir(dir: &Path, run: &str) -> PathBuf {
    dir.join("runs").join(run)
}

fn shard_file(i: usize, n: usize) -> String {
    format!("executions-{i}-of-{n}.parquet")
}

/// The candidates of a run: `candidates.parquet`, or when it is absent the shards solve
/// wrote (`candidates-I-of-N.parquet`).
fn read_candidates(rdir: &Path) -> anyhow::Result<Vec<Candidate>> {
    let whole = schemas::table_path::<Candidate>(rdir);
    if whole.is_file() {
        return Ok(schemas::read_table_from(&whole)?);
    }
    let mut rows = Vec::new();
    let mut found = false;
    if let Ok(entries) = std::fs::read_dir(rdir) {
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("candidates-") && n.ends_with(".parquet"))
            })
            .collect();
        paths.sort();
        for p in paths {
            found = true;
            rows.extend(schemas::read_table_from::<Candidate>(&p)?);
        }
    }
    if !found {
        anyhow::bail!(
            "{} has no candidates: run `solve --data DIR --run NAME --model SPEC` first",
            rdir.display()
        );
    }
    Ok(rows)
}

/// `execute --run NAME`.
pub fn run_candidates(
    common: &CommonArgs,
    run: &str,
    opts: &EvalOptions,
) -> anyhow::Result<StageOutcome> {
    check_run_name(run)?;
    let dir = &common.data;
    let rdir = run_dir(dir, run);
    if !rdir.is_dir() {
        anyhow::bail!(
            "no run {run:?} in {}: run `solve --data {} --run {run} --model SPEC` first",
            dir.display(),
            dir.display()
        );
    }
    let mut candidates = read_candidates(&rdir)?;
    candidates.sort_by(|a, b| (&a.task_id, a.sample).cmp(&(&b.task_id, b.sample)));
    candidates.dedup_by(|a, b| a.task_id == b.task_id && a.sample == b.sample);
    let all = tasks::load_function_tasks(dir)?;
    let valid: Option<BTreeSet<String>> = if schemas::table_exists::<Validation>(dir) {
        let v: Vec<Validation> = schemas::read_table(dir).context("reading validations")?;
        Some(
            v.into_iter()
                .filter(|v| v.valid)
                .map(|v| v.task_id)
                .collect(),
        )
    } else {
        tracing::warn!("no validations.parquet: every ok task is run (run `execute --validate` to count only valid ones)");
        None
    };
    let by_id: HashMap<&str, &TaskCases> =
        all.iter().map(|t| (t.task.task_id.as_str(), t)).collect();
    let mut unknown = 0usize;
    let mut invalid = 0usize;
    let mine: Vec<&Candidate> = candidates
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            opts.shard
                .is_none_or(|(index, count)| schemas::cli::Shard { index, count }.holds(*i))
        })
        .map(|(_, c)| c)
        .filter(|c| {
            if !by_id.contains_key(c.task_id.as_str()) {
                unknown += 1;
                return false;
            }
            if valid.as_ref().is_some_and(|v| !v.contains(&c.task_id)) {
                invalid += 1;
                return false;
            }
            true
        })
        .collect();
    if unknown > 0 {
        tracing::warn!(
            candidates = unknown,
            "candidates of tasks that are not ok function tasks of this dataset are left out"
        );
    }
    if invalid > 0 {
        tracing::info!(
            candidates = invalid,
            "candidates of tasks that failed validation are left out"
        );
    }
    let out_path = match opts.shard {
        Some((i, n)) => rdir.join(shard_file(i, n)),
        None => schemas::table_path::<Execution>(&rdir),
    };
    let key = |task: &str, sample: i32| (task.to_string(), sample);
    let mut done: BTreeMap<(String, i32), Execution> = BTreeMap::new();
    if !opts.force && out_path.is_file() {
        for e in schemas::read_table_from::<Execution>(&out_path)? {
            done.insert(key(&e.task_id, e.sample), e);
        }
    }
    let wanted: BTreeSet<(String, i32)> = mine.iter().map(|c| key(&c.task_id, c.sample)).collect();
    done.retain(|k, _| wanted.contains(k));
    let todo: Vec<&Candidate> = mine
        .into_iter()
        .filter(|c| !done.contains_key(&key(&c.task_id, c.sample)))
        .collect();
    tracing::info!(
        run,
        candidates = wanted.len(),
        already_done = done.len(),
        todo = todo.len(),
        "executing candidates"
    );
    let task_rows: Vec<&FunctionTask> = todo
        .iter()
        .filter_map(|c| by_id.get(c.task_id.as_str()).map(|t| &t.task))
        .collect();
    let interp = interpreters(dir, &task_rows, opts)?;
    let bar = schemas::cli::progress(common, todo.len() as u64, "candidates");
    let save = |done: &BTreeMap<(String, i32), Execution>| -> anyhow::Result<()> {
        let rows: Vec<Execution> = done.values().cloned().collect();
        schemas::write_table_to(&out_path, &rows)
            .with_context(|| format!("writing {}", out_path.display()))?;
        Ok(())
    };
    let mut checkpoint = Checkpoint::every(opts.checkpoint);
    let t0 = Instant::now();
    let result = parallel(
        opts,
        &todo,
        |workers, c| {
            let t = by_id[c.task_id.as_str()];
            execute_one(workers, &interp, run, t, c, &opts.judge)
        },
        |_, e| {
            bar.inc(1);
            done.insert(key(&e.task_id, e.sample), e);
            checkpoint.now_and_then(&done, save);
        },
    );
    bar.finish_and_clear();
    save(&done)?;
    result.context("a worker could not start; the executions made so far are saved, rerun to complete the rest")?;
    let elapsed = t0.elapsed().as_secs_f64();
    let rows: Vec<&Execution> = done.values().collect();
    let mut by_status: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &rows {
        *by_status.entry(e.status.as_str()).or_default() += 1;
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "run {run}: {} executions in {} ({} new in {elapsed:.1} s)",
        rows.len(),
        out_path.display(),
        todo.len()
    )?;
    for (s, n) in &by_status {
        writeln!(out, "  {s:<18} {n}")?;
    }
    Ok(StageOutcome::Success)
}

fn execute_one(
    workers: &mut Workers<'_>,
    interp: &Interpreters,
    run: &str,
    t: &TaskCases,
    c: &Candidate,
    judge: &JudgeOptions,
) -> anyhow::Result<Execution> {
    let base = Execution {
        run: run.to_string(),
        task_id: c.task_id.clone(),
        sample: c.sample,
        status: "error".into(),
        cases_passed: 0,
        cases_total: t.cases.len() as i32,
        seconds: 0.0,
        fingerprint: None,
        detail: None,
        isolation: String::new(),
    };
    let (Some(answer), "ok") = (&c.answer, c.status.as_str()) else {
        return Ok(Execution {
            detail: Some(format!(
                "no answer: {}",
                c.error.as_deref().unwrap_or("the model gave none")
            )),
            ..base
        });
    };
    let (python, preload) = match interp.for_task(&t.task) {
        Ok(p) => p,
        Err(why) => {
            return Ok(Execution {
                detail: Some(format!("environment: {why}")),
                ..base
            })
        }
    };
    let (primary, _) = workers.pair(&python, &preload);
    let v = tasks::judge(primary, answer, t, judge)?;
    Ok(Execution {
        status: v.status.into(),
        cases_passed: v.cases_passed,
        seconds: v.seconds,
        fingerprint: v.fingerprint.map(Into::into),
        detail: v.detail,
        isolation: v.isolation.as_str().into(),
        ..base
    })
}

/// `execute --run NAME --merge`: the shards' executions into `executions.parquet` (rows of
/// the existing table kept, a shard's row replacing the same candidate's), the shard files
/// removed once it is written.
pub fn merge_shards(common: &CommonArgs, run: &str) -> anyhow::Result<StageOutcome> {
    check_run_name(run)?;
    let rdir = run_dir(&common.data, run);
    let whole = schemas::table_path::<Execution>(&rdir);
    let mut rows: BTreeMap<(String, i32), Execution> = BTreeMap::new();
    if whole.is_file() {
        for e in schemas::read_table_from::<Execution>(&whole)? {
            rows.insert((e.task_id.clone(), e.sample), e);
        }
    }
    let mut shards: Vec<PathBuf> = std::fs::read_dir(&rdir)
        .with_context(|| format!("reading {}", rdir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("executions-") && n.ends_with(".parquet"))
        })
        .collect();
    shards.sort();
    if shards.is_empty() {
        anyhow::bail!(
            "no shard files (executions-I-of-N.parquet) in {}: run `execute --run {run} --shard I/N` first",
            rdir.display()
        );
    }
    for p in &shards {
        for e in schemas::read_table_from::<Execution>(p)? {
            rows.insert((e.task_id.clone(), e.sample), e);
        }
    }
    let rows: Vec<Execution> = rows.into_values().collect();
    schemas::write_table_to(&whole, &rows)?;
    for p in &shards {
        std::fs::remove_file(p).with_context(|| format!("removing {}", p.display()))?;
    }
    println!(
        "merged {} shard files into {} ({} rows)",
        shards.len(),
        whole.display(),
        rows.len()
    );
    Ok(StageOutcome::Success)
}
