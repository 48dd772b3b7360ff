//! The two stage jobs that judge solutions of function tasks ([`crate::tasks`]):
//!
//! - `--validate`: every `ok` task is run with its original solution (twice: in a worker
//!   with hash randomization off and in one with `PYTHONHASHSEED=1`) and with its empty
//!   solution (the body replaced by `pass`, the same text the `null` solver answers);
//!   `validations` says per task whether the original passes every case, the empty body
//!   fails, and the results are the same over both runs. Only valid tasks count downstream.
//! - `--run NAME`: every answer of `runs/NAME/candidates` is run against its task's cases;
//!   `runs/NAME/executions` gets its status, cases passed and the failure fingerprint.
//!
//! Both are resumable: a rerun keeps a row only when the hash of exactly what produced it
//! (the candidate's answer, the task and its cases, where its code runs, the judge's options
//! and execute's build id: [`crate::BUILD_ID`]) still matches, and never keeps an `infra`
//! row (the harness failed: a rerun tries again). Rows are written every few seconds
//! ([`schemas::cli::Checkpoint`]) and at the end, and `--jobs` threads of the one pool
//! ([`schemas::pool`]) run side by side, each with one persistent worker pair per
//! interpreter. `--run` splits with `--shard i/n`, and `--merge-shards` joins a complete set
//! of shard files ([`schemas::shards`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use schemas::cli::{check_run_name, CommonArgs, Outcome as StageOutcome, ResumeArgs, Shard};
use schemas::{
    AnswerStatus, AssertionTask, Candidate, CompletionTask, ExecStatus, Execution, Family,
    Isolation, Validation, ValidationStatus,
};

use crate::assertion;
use crate::completion::{self, CompletionOptions, Judges, RepoWorkers};
use crate::tasks::{self, CodeRef, Interpreters, JudgeOptions, TaskCases, TimeRule, Verdict};
use execution::backend::{Backend, ExecError, WorkerSpec};
use execution::batch::Batch;

/// What both jobs share.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    pub jobs: usize,
    pub judge: JudgeOptions,
    pub force: bool,
    /// Where code runs.
    pub backend: execution::BackendArgs,
    /// The interpreter of tasks that use only the standard library.
    pub python: PathBuf,
    /// How to build environments for tasks that import third-party packages (`None`: don't).
    pub envs: Option<crate::env::EnvConfig>,
    /// `--shard i/n`.
    pub shard: Option<Shard>,
    pub resume: ResumeArgs,
    /// How completion answers are judged.
    pub completion: CompletionOptions,
    /// `--run`: how a function task's case limits follow from its reference's time on this
    /// machine (`None`: every case gets `judge.limits`, `--fixed-time-limit`).
    pub time: Option<TimeRule>,
}

/// One thread's workers: a pair (hash seed 0 and 1) per interpreter it has needed, and the
/// judge workers of the repositories of completion and assertion tasks. Also what `slice`
/// runs its traced executions in.
pub struct Workers<'b> {
    backend: &'b dyn Backend,
    limits: execution::backend::Limits,
    pairs: HashMap<(PathBuf, Vec<String>), (Batch<'b>, Batch<'b>)>,
    pub judges: Judges<'b>,
}

/// A task of any family that execute judges.
#[derive(Clone, Copy)]
pub enum Item<'a> {
    Function(&'a TaskCases),
    Completion(&'a CompletionTask),
    Assertion(&'a AssertionTask),
}

impl<'a> Item<'a> {
    pub fn task_id(&self) -> &'a str {
        match self {
            Item::Function(t) => &t.task.task_id,
            Item::Completion(t) => &t.task_id,
            Item::Assertion(t) => &t.task_id,
        }
    }

    pub fn family(&self) -> Family {
        match self {
            Item::Function(_) => Family::Function,
            Item::Completion(_) => Family::Completion,
            Item::Assertion(_) => Family::Assertion,
        }
    }

    /// The repository whose judge worker it needs (completion and assertion tasks).
    pub fn repo_id(self) -> Option<&'a str> {
        match self {
            Item::Function(_) => None,
            Item::Completion(t) => Some(&t.repo_id),
            Item::Assertion(t) => Some(&t.repo_id),
        }
    }
}

impl<'b> Workers<'b> {
    /// The workers (hash seeds 0 and 1) of function code run by `python` with `preload`.
    pub fn pair(&mut self, python: &Path, preload: &[String]) -> &mut (Batch<'b>, Batch<'b>) {
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

/// Runs `work` over `items` on the pool with `opts.jobs` threads, each with its own
/// [`Workers`]; `sink` gets each result on the calling thread as it finishes. Stops early
/// when no worker may start by configuration (that error is returned).
pub fn parallel<T: Sync, R: Send>(
    opts: &EvalOptions,
    repos: &RepoWorkers,
    items: &[T],
    work: impl Fn(&mut Workers<'_>, &T) -> Result<R, ExecError> + Sync,
    mut sink: impl FnMut(R),
) -> Result<(), ExecError> {
    let backend = opts.backend.backend()?;
    let backend = &*backend;
    schemas::pool::stream(
        items,
        opts.jobs,
        || Workers {
            backend,
            limits: opts.judge.limits,
            pairs: HashMap::new(),
            judges: Judges::new(backend, repos, opts.completion),
        },
        work,
        |_, r| {
            sink(r);
            ControlFlow::Continue(())
        },
    )
}

/// The hash of what makes a validation: the task, its cases, where it runs, the judge and
/// this build.
fn validation_hash(t: &TaskCases, placement: &str, judge: &JudgeOptions) -> String {
    schemas::id::content_id(&[
        b"validation/1",
        crate::BUILD_ID.as_bytes(),
        t.task.task_id.as_bytes(),
        t.task.entry_point.as_bytes(),
        t.task.canonical_solution.as_bytes(),
        tasks::cases_digest(t).as_bytes(),
        placement.as_bytes(),
        judge.digest().as_bytes(),
    ])
}

/// The hash of what makes an execution: the candidate's answer, its task and cases, where
/// it runs, the judge and this build.
fn execution_hash(
    c: &Candidate,
    t: &TaskCases,
    placement: &str,
    judge: &JudgeOptions,
    time: Option<&TimeRule>,
) -> String {
    let time = time.map_or_else(|| "fixed".to_string(), TimeRule::digest);
    schemas::id::content_id(&[
        b"execution/2",
        time.as_bytes(),
        crate::BUILD_ID.as_bytes(),
        c.task_id.as_bytes(),
        &c.sample.to_le_bytes(),
        c.status.as_str().as_bytes(),
        c.answer.as_deref().unwrap_or("").as_bytes(),
        t.task.entry_point.as_bytes(),
        tasks::cases_digest(t).as_bytes(),
        placement.as_bytes(),
        judge.digest().as_bytes(),
    ])
}

/// [`execution_hash`] of a completion answer: the answer, the task (its text and judges),
/// where its repository runs, the judge's options and this build.
fn completion_execution_hash(
    c: &Candidate,
    t: &CompletionTask,
    placement: &str,
    opts: &CompletionOptions,
) -> String {
    schemas::id::content_id(&[
        b"execution/completion/1",
        completion::validation_hash(t, placement, opts).as_bytes(),
        &c.sample.to_le_bytes(),
        c.status.as_str().as_bytes(),
        c.answer.as_deref().unwrap_or("").as_bytes(),
    ])
}

/// An assertion answer's row hash: the task's validation hash (task, placement, build),
/// the judge's options, the answer.
fn assertion_execution_hash(c: &Candidate, validation: &str, opts: &CompletionOptions) -> String {
    schemas::id::content_id(&[
        b"execution/assertion/1",
        validation.as_bytes(),
        opts.digest().as_bytes(),
        &c.sample.to_le_bytes(),
        c.status.as_str().as_bytes(),
        c.answer.as_deref().unwrap_or("").as_bytes(),
    ])
}

/// The tasks of every family: the `ok` function tasks, the completion tasks and the
/// assertion tasks; any table may be absent (a dataset of some families), not all.
pub struct Loaded {
    pub functions: Vec<TaskCases>,
    pub completions: Vec<CompletionTask>,
    pub assertions: Vec<AssertionTask>,
}

impl Loaded {
    /// Every task, functions first.
    pub fn items(&self) -> impl Iterator<Item = Item<'_>> {
        self.functions
            .iter()
            .map(Item::Function)
            .chain(self.completions.iter().map(Item::Completion))
            .chain(self.assertions.iter().map(Item::Assertion))
    }
}

/// Reads the tasks of every family of the dataset `dir`.
pub fn load_tasks(dir: &Path) -> anyhow::Result<Loaded> {
    let completions = completion::load(dir)?;
    let assertions = assertion::load(dir)?;
    let functions = if (completions.is_empty() && assertions.is_empty())
        || schemas::table_exists::<schemas::FunctionTask>(dir)
    {
        tasks::load_function_tasks(dir)?
    } else {
        Vec::new()
    };
    Ok(Loaded {
        functions,
        completions,
        assertions,
    })
}

/// The repositories whose judge workers `items` need, sorted and distinct.
pub fn repos_of<'a>(items: impl Iterator<Item = Item<'a>>) -> Vec<&'a str> {
    let mut ids: Vec<&str> = items.filter_map(Item::repo_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Where an item's repository runs, for row hashes.
pub fn placement_of(repos: &RepoWorkers, repo_id: &str) -> String {
    match repos.get(repo_id) {
        Some(Ok(w)) => w.key.clone(),
        Some(Err(why)) => format!("none: {why}"),
        None => "none".into(),
    }
}

// ---------------------------------------------------------------------------------------
// Validations

/// `execute --validate`.
pub fn validate(common: &CommonArgs, opts: &EvalOptions) -> anyhow::Result<StageOutcome> {
    let dir = common.data()?;
    let loaded = load_tasks(dir)?;
    let (all, completions) = (&loaded.functions, &loaded.completions);
    let refs: Vec<CodeRef<'_>> = all.iter().map(|t| (&t.task).into()).collect();
    let mut interp = Interpreters::plan(dir, &refs, opts.python.clone())?;
    // The repositories of completion and assertion tasks: environments and trees (cached,
    // so quick when built before); their keys are part of the rows' hashes.
    let repos = completion::repo_workers(dir, &repos_of(loaded.items()), opts.envs.as_ref())?;
    let mut hashes: HashMap<&str, String> = all
        .iter()
        .map(|t| {
            (
                t.task.task_id.as_str(),
                validation_hash(t, &interp.key_of((&t.task).into()), &opts.judge),
            )
        })
        .collect();
    for t in completions {
        let h = completion::validation_hash(t, &completion::placement(&repos, t), &opts.completion);
        hashes.insert(t.task_id.as_str(), h);
    }
    for t in &loaded.assertions {
        let h = assertion::validation_hash(t, &placement_of(&repos, &t.repo_id));
        hashes.insert(t.task_id.as_str(), h);
    }
    let old: Vec<Validation> = if !opts.force && schemas::table_exists::<Validation>(dir) {
        schemas::read_table(dir).context("reading the validations written before")?
    } else {
        Vec::new()
    };
    // A row is kept when what made it is unchanged (the task, its cases, the judge, this
    // build) and it is not the harness's failure.
    let mut done: BTreeMap<String, Validation> = old
        .into_iter()
        .filter(|v| v.status != ValidationStatus::Infra && opts.backend.made(v.isolation))
        .filter(|v| hashes.get(v.task_id.as_str()) == Some(&v.input_hash))
        .map(|v| (v.task_id.clone(), v))
        .collect();
    // Rows of tasks that are no longer in the dataset go.
    done.retain(|id, _| hashes.contains_key(id.as_str()));
    let todo: Vec<Item<'_>> = loaded
        .items()
        .filter(|t| !done.contains_key(t.task_id()))
        .collect();
    tracing::info!(
        function_tasks = all.len(),
        completion_tasks = completions.len(),
        assertion_tasks = loaded.assertions.len(),
        already_done = done.len(),
        todo = todo.len(),
        "validating tasks"
    );
    let todo_refs: Vec<CodeRef<'_>> = todo
        .iter()
        .filter_map(|t| match t {
            Item::Function(t) => Some((&t.task).into()),
            Item::Completion(_) | Item::Assertion(_) => None,
        })
        .collect();
    interp.build(&todo_refs, opts.envs.clone())?;
    let bar = schemas::cli::progress(common, todo.len() as u64, "tasks");
    let mut checkpoint = opts.resume.checkpoint()?;
    let save = |done: &BTreeMap<String, Validation>| -> anyhow::Result<()> {
        let rows: Vec<Validation> = done.values().cloned().collect();
        schemas::write_table(dir, &rows).context("writing validations")?;
        Ok(())
    };
    let result = parallel(
        opts,
        &repos,
        &todo,
        |workers, t| match t {
            Item::Function(t) => validate_one(
                workers,
                &interp,
                t,
                &hashes[t.task.task_id.as_str()],
                &opts.judge,
            ),
            Item::Completion(t) => {
                completion::validate(&mut workers.judges, t, &hashes[t.task_id.as_str()])
            }
            Item::Assertion(t) => {
                assertion::validate(&mut workers.judges, t, &hashes[t.task_id.as_str()])
            }
        },
        |v| {
            bar.inc(1);
            done.insert(v.task_id.clone(), v);
            if checkpoint.due() {
                if let Err(e) = save(&done) {
                    tracing::warn!(error = %e, "checkpoint failed");
                }
            }
        },
    );
    bar.finish_and_clear();
    save(&done)?;
    result.context("no worker may start; the validations made so far are saved")?;
    let rows: Vec<&Validation> = done.values().collect();
    let mut out = std::io::stdout().lock();
    let mut lacking = false;
    for family in [Family::Function, Family::Completion, Family::Assertion] {
        let mine: Vec<&Validation> = rows
            .iter()
            .copied()
            .filter(|v| v.family == family)
            .collect();
        if mine.is_empty() && family != Family::Function {
            continue;
        }
        lacking |= print_validations(&mut out, family, &mine)?;
    }
    Ok(if lacking {
        StageOutcome::Lacking
    } else {
        StageOutcome::Success
    })
}

/// The summary of one family's validations; `true` when it lacks (no valid task among
/// some, or rows the harness could not make).
fn print_validations(
    out: &mut impl Write,
    family: Family,
    rows: &[&Validation],
) -> std::io::Result<bool> {
    let count = |s: ValidationStatus| rows.iter().filter(|v| v.status == s).count();
    let valid = count(ValidationStatus::Valid);
    let skipped = rows
        .iter()
        .filter(|v| {
            v.status == ValidationStatus::Infra && tasks::skipped_on_request(v.reason.as_deref())
        })
        .count();
    let infra = count(ValidationStatus::Infra) - skipped;
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for v in rows.iter().filter(|v| !v.valid) {
        let r = v.reason.as_deref().unwrap_or("?");
        *reasons.entry(r.split(':').next().unwrap_or(r)).or_default() += 1;
    }
    writeln!(
        out,
        "validated {} {family} tasks: {valid} valid",
        rows.len()
    )?;
    for (r, n) in &reasons {
        writeln!(out, "  {r:<24} {n}")?;
    }
    let (total, killed) = rows
        .iter()
        .filter(|v| v.valid)
        .filter_map(|v| Some((v.mutants_total?, v.mutants_killed?)))
        .fold((0, 0), |(t, k), (a, b)| (t + a, k + b));
    if total > 0 {
        writeln!(
            out,
            "  mutants of valid tasks killed by their judges: {killed} of {total} ({:.1}%)",
            100.0 * f64::from(killed) / f64::from(total)
        )?;
    }
    if skipped > 0 {
        writeln!(
            out,
            "  {skipped} tasks need their repository's environment, not built (--no-envs)"
        )?;
    }
    if infra > 0 {
        writeln!(
            out,
            "  {infra} tasks could not be checked (infra: the harness failed); rerun the same command to check them"
        )?;
    }
    // Lacking: none valid among tasks that were checked, or some the harness could not check.
    Ok((valid == 0 && rows.len() > skipped) || infra > 0)
}

fn validate_one(
    workers: &mut Workers<'_>,
    interp: &Interpreters,
    t: &TaskCases,
    input_hash: &str,
    judge: &JudgeOptions,
) -> Result<Validation, ExecError> {
    let task = &t.task;
    let base = Validation {
        task_id: task.task_id.clone(),
        family: Family::Function,
        original_passes: false,
        null_fails: false,
        stable: false,
        status: ValidationStatus::Invalid,
        valid: false,
        cases: t.cases.len() as i32,
        original_seconds: 0.0,
        mutants_total: None,
        mutants_killed: None,
        reason: None,
        isolation: Isolation::None,
        input_hash: input_hash.to_string(),
    };
    let infra = |why: String| Validation {
        status: ValidationStatus::Infra,
        reason: Some(format!("infra: {why}")),
        ..base.clone()
    };
    if t.cases.is_empty() {
        return Ok(Validation {
            reason: Some("no_cases: the task has no test cases".into()),
            ..base
        });
    }
    let null = match tasks::null_solution(task) {
        Ok(n) => n,
        Err(e) => {
            return Ok(Validation {
                reason: Some(format!("no_null_solution: the reference solution: {e}")),
                ..base
            })
        }
    };
    let (python, preload) = match interp.for_task(task) {
        Ok(p) => p,
        Err(why) => return Ok(infra(format!("environment: {why}"))),
    };
    let (primary, other) = workers.pair(&python, &preload);
    let a = tasks::judge(primary, &task.canonical_solution, t, judge)?;
    let b = tasks::judge(other, &task.canonical_solution, t, judge)?;
    let null = tasks::judge(primary, &null, t, judge)?;
    if let Some(v) = [&a, &b, &null].into_iter().find(|v| v.status.is_infra()) {
        return Ok(infra(v.detail.clone().unwrap_or_default()));
    }
    let original_passes = a.status == ExecStatus::Pass;
    let null_fails = null.status != ExecStatus::Pass;
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
    let valid = original_passes && null_fails && stable;
    Ok(Validation {
        original_passes,
        null_fails,
        stable,
        status: if valid {
            ValidationStatus::Valid
        } else {
            ValidationStatus::Invalid
        },
        valid,
        original_seconds: a.seconds,
        reason,
        isolation: a.isolation,
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

fn candidate_key(c: &Candidate) -> (String, i32) {
    (c.task_id.clone(), c.sample)
}

fn execution_key(e: &Execution) -> (String, i32) {
    (e.task_id.clone(), e.sample)
}

/// The candidates of a run: `candidates.parquet`, or when it is absent the complete set of
/// shard files solve wrote (an incomplete or inconsistent set is refused).
fn read_candidates(rdir: &Path) -> anyhow::Result<Vec<Candidate>> {
    let whole = schemas::table_path::<Candidate>(rdir);
    if whole.is_file() {
        return Ok(schemas::read_table_from(&whole)?);
    }
    if schemas::shards::find::<Candidate>(rdir)?.is_empty() {
        anyhow::bail!(
            "{} has no candidates: run `solve --data DIR --run NAME --model SPEC` first",
            rdir.display()
        );
    }
    let set = schemas::shards::read_complete::<Candidate, _>(rdir, candidate_key)
        .context("reading the shards of the run's candidates (or run `solve --merge-shards`)")?;
    Ok(set.rows)
}

/// `execute --run NAME`.
pub fn run_candidates(
    common: &CommonArgs,
    run: &str,
    opts: &EvalOptions,
) -> anyhow::Result<StageOutcome> {
    check_run_name(run)?;
    let dir = common.data()?;
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
    let loaded = load_tasks(dir)?;
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
    let by_id: HashMap<&str, Item<'_>> = loaded.items().map(|i| (i.task_id(), i)).collect();
    let mut unknown = 0usize;
    let mut invalid = 0usize;
    let mine: Vec<&Candidate> = candidates
        .iter()
        .enumerate()
        .filter(|(i, _)| opts.shard.is_none_or(|s| s.holds(*i)))
        .map(|(_, c)| c)
        .filter(|c| {
            let Some(family) = by_id.get(c.task_id.as_str()).map(Item::family) else {
                unknown += 1;
                return false;
            };
            if family != c.family {
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
            "candidates of tasks that are not tasks of this dataset (ok function tasks, completion tasks) are left out"
        );
    }
    if invalid > 0 {
        tracing::info!(
            candidates = invalid,
            "candidates of tasks that failed validation are left out"
        );
    }
    let out_path = match opts.shard {
        Some(s) => schemas::shards::shard_path::<Execution>(&rdir, s),
        None => schemas::table_path::<Execution>(&rdir),
    };
    let function_of = |c: &Candidate| match by_id[c.task_id.as_str()] {
        Item::Function(t) => Some(t),
        Item::Completion(_) | Item::Assertion(_) => None,
    };
    let mine_refs: Vec<CodeRef<'_>> = mine
        .iter()
        .filter_map(|c| function_of(c).map(|t| (&t.task).into()))
        .collect();
    let mut interp = Interpreters::plan(dir, &mine_refs, opts.python.clone())?;
    let judged = repos_of(mine.iter().map(|c| by_id[c.task_id.as_str()]));
    let repos = completion::repo_workers(dir, &judged, opts.envs.as_ref())?;
    let hashes: BTreeMap<(String, i32), String> = mine
        .iter()
        .map(|c| {
            let h = match by_id[c.task_id.as_str()] {
                Item::Function(t) => execution_hash(
                    c,
                    t,
                    &interp.key_of((&t.task).into()),
                    &opts.judge,
                    opts.time.as_ref(),
                ),
                Item::Completion(t) => completion_execution_hash(
                    c,
                    t,
                    &completion::placement(&repos, t),
                    &opts.completion,
                ),
                Item::Assertion(t) => assertion_execution_hash(
                    c,
                    &assertion::validation_hash(t, &placement_of(&repos, &t.repo_id)),
                    &opts.completion,
                ),
            };
            (candidate_key(c), h)
        })
        .collect();
    let mut done: BTreeMap<(String, i32), Execution> = BTreeMap::new();
    if !opts.force && out_path.is_file() {
        for e in schemas::read_table_from::<Execution>(&out_path)? {
            let k = execution_key(&e);
            // Kept only when made from exactly this answer, task and judge, and not the
            // harness's failure.
            if !e.status.is_infra()
                && opts.backend.made(e.isolation)
                && hashes.get(&k) == Some(&e.input_hash)
            {
                done.insert(k, e);
            }
        }
    }
    let todo: Vec<&Candidate> = mine
        .into_iter()
        .filter(|c| !done.contains_key(&candidate_key(c)))
        .collect();
    tracing::info!(
        run,
        candidates = hashes.len(),
        already_done = done.len(),
        todo = todo.len(),
        "executing candidates"
    );
    let todo_refs: Vec<CodeRef<'_>> = todo
        .iter()
        .filter_map(|c| function_of(c).map(|t| (&t.task).into()))
        .collect();
    interp.build(&todo_refs, opts.envs.clone())?;
    let times = match &opts.time {
        Some(rule) => time_references(common, opts, &repos, &interp, &todo, &by_id, rule)?,
        None => HashMap::new(),
    };
    let bar = schemas::cli::progress(common, todo.len() as u64, "candidates");
    let save = |done: &BTreeMap<(String, i32), Execution>| -> anyhow::Result<()> {
        let rows: Vec<Execution> = done.values().cloned().collect();
        schemas::write_table_to(&out_path, &rows)
            .with_context(|| format!("writing {}", out_path.display()))?;
        Ok(())
    };
    let mut checkpoint = opts.resume.checkpoint()?;
    let t0 = Instant::now();
    let result = parallel(
        opts,
        &repos,
        &todo,
        |workers, c| {
            let hash = &hashes[&candidate_key(c)];
            execute_one(
                workers,
                &interp,
                run,
                by_id[c.task_id.as_str()],
                c,
                hash,
                &Judging {
                    judge: &opts.judge,
                    time: opts.time.as_ref(),
                    reference: times.get(c.task_id.as_str()).map(Vec::as_slice),
                },
            )
        },
        |e| {
            bar.inc(1);
            done.insert(execution_key(&e), e);
            if checkpoint.due() {
                if let Err(e) = save(&done) {
                    tracing::warn!(error = %e, "checkpoint failed");
                }
            }
        },
    );
    bar.finish_and_clear();
    save(&done)?;
    result.context("no worker may start; the executions made so far are saved")?;
    let elapsed = t0.elapsed().as_secs_f64();
    let rows: Vec<&Execution> = done.values().collect();
    let mut by_status: BTreeMap<ExecStatus, usize> = BTreeMap::new();
    for e in &rows {
        *by_status.entry(e.status).or_default() += 1;
    }
    let skipped = rows
        .iter()
        .filter(|e| e.status.is_infra() && tasks::skipped_on_request(e.detail.as_deref()))
        .count();
    let infra = by_status.get(&ExecStatus::Infra).copied().unwrap_or(0) - skipped;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "run {run}: {} executions in {} ({} new in {elapsed:.1} s)",
        rows.len(),
        out_path.display(),
        todo.len()
    )?;
    for (s, n) in &by_status {
        writeln!(out, "  {:<18} {n}", s.as_str())?;
    }
    if skipped > 0 {
        writeln!(
            out,
            "  {skipped} candidates need their repository's environment, not built (--no-envs)"
        )?;
    }
    if infra > 0 {
        writeln!(
            out,
            "  {infra} candidates could not be judged (infra: the harness failed, not the model); rerun the same command to judge them"
        )?;
    }
    if rows.is_empty() {
        writeln!(
            out,
            "  no candidate of a valid task to judge: solve the valid tasks first (`solve --data DIR --run {run} --model SPEC`)"
        )?;
    }
    Ok(if rows.is_empty() || infra > 0 {
        StageOutcome::Lacking
    } else {
        StageOutcome::Success
    })
}

/// The function tasks' reference times on this machine (by task id, per case), for the
/// tasks of the candidates in `todo` that have an answer: each reference run once, in the
/// same kind of worker that judges the answers.
fn time_references(
    common: &CommonArgs,
    opts: &EvalOptions,
    repos: &RepoWorkers,
    interp: &Interpreters,
    todo: &[&Candidate],
    by_id: &HashMap<&str, Item<'_>>,
    rule: &TimeRule,
) -> anyhow::Result<HashMap<String, Vec<Option<f64>>>> {
    let wanted: BTreeSet<&str> = todo
        .iter()
        .filter(|c| c.status == AnswerStatus::Ok && c.answer.is_some())
        .map(|c| c.task_id.as_str())
        .filter(|id| matches!(by_id[id], Item::Function(_)))
        .collect();
    let tasks: Vec<&TaskCases> = wanted
        .iter()
        .filter_map(|id| match by_id[id] {
            Item::Function(t) => Some(t),
            _ => None,
        })
        .collect();
    let bar = schemas::cli::progress(common, tasks.len() as u64, "reference times");
    let limits = rule.reference_limits(&opts.judge.limits);
    let mut times = HashMap::new();
    parallel(
        opts,
        repos,
        &tasks,
        |workers, t| {
            let times = match interp.for_task(&t.task) {
                Ok((python, preload)) => {
                    let (primary, _) = workers.pair(&python, &preload);
                    tasks::reference_times(primary, t, &opts.judge, &limits)?
                }
                Err(_) => vec![None; t.cases.len()],
            };
            Ok((t.task.task_id.clone(), times))
        },
        |(id, t)| {
            bar.inc(1);
            times.insert(id, t);
        },
    )
    .context("no worker may start to time the reference solutions")?;
    bar.finish_and_clear();
    let untimed = times
        .values()
        .filter(|t| t.iter().any(Option::is_none))
        .count();
    if untimed > 0 {
        tracing::warn!(
            tasks = untimed,
            "some cases' reference could not be timed on this machine: they get the fixed --case-timeout"
        );
    }
    Ok(times)
}

/// How function answers are judged in a run: the fixed limits, the time rule and the
/// reference's times of the task's cases on this machine.
struct Judging<'a> {
    judge: &'a JudgeOptions,
    time: Option<&'a TimeRule>,
    reference: Option<&'a [Option<f64>]>,
}

/// Judges one candidate of either family (its task's cases, or its judge tests).
fn execute_one(
    workers: &mut Workers<'_>,
    interp: &Interpreters,
    run: &str,
    item: Item<'_>,
    c: &Candidate,
    input_hash: &str,
    how: &Judging<'_>,
) -> Result<Execution, ExecError> {
    let cases_total = match item {
        Item::Function(t) => t.cases.len(),
        Item::Completion(t) => t.tests.len(),
        Item::Assertion(_) => 1,
    } as i32;
    let base = Execution {
        run: run.to_string(),
        task_id: c.task_id.clone(),
        sample: c.sample,
        status: ExecStatus::Error,
        cases_passed: 0,
        cases_total,
        seconds: 0.0,
        fingerprint: None,
        detail: None,
        isolation: Isolation::None,
        reference_seconds: None,
        time_limit_seconds: None,
        time_factor: None,
        time_floor_seconds: None,
        input_hash: input_hash.to_string(),
    };
    let (Some(answer), AnswerStatus::Ok) = (&c.answer, c.status) else {
        return Ok(Execution {
            detail: Some(format!(
                "no answer: {}",
                c.error.as_deref().unwrap_or("the model gave none")
            )),
            ..base
        });
    };
    Ok(match item {
        Item::Function(t) => {
            let judge = how.judge;
            // A case's limit: the rule applied to its reference's time here, or the fixed
            // limit where there is no rule or no time.
            let limits_of = |case: usize| match (how.time, how.reference.and_then(|r| r.get(case)))
            {
                (Some(rule), Some(Some(secs))) => rule.limits(&judge.limits, *secs),
                _ => judge.limits,
            };
            let verdict = match interp.for_task(&t.task) {
                Ok((python, preload)) => {
                    let (primary, _) = workers.pair(&python, &preload);
                    tasks::judge_with(primary, answer, t, judge, limits_of)?
                }
                Err(why) => Verdict::infra(t, &format!("environment: {why}")),
            };
            let v = verdict;
            // The slowest case of the reference, and its limit.
            let slowest = how
                .reference
                .and_then(|r| r.iter().flatten().copied().reduce(f64::max));
            let rule = how.time;
            Execution {
                status: v.status,
                cases_passed: v.cases_passed,
                seconds: v.seconds,
                fingerprint: v.fingerprint,
                detail: v.detail,
                isolation: v.isolation,
                reference_seconds: slowest.filter(|_| rule.is_some()),
                time_limit_seconds: match (rule, slowest) {
                    (Some(rule), Some(secs)) => Some(rule.limit(secs).as_secs_f64()),
                    _ => Some(judge.limits.wall.as_secs_f64()),
                },
                time_factor: rule.map(|rule| rule.factor),
                time_floor_seconds: rule.map(|rule| rule.floor.as_secs_f64()),
                ..base
            }
        }
        Item::Completion(t) => {
            let v = workers.judges.judge(t, answer, 0, false)?;
            Execution {
                status: v.status,
                cases_passed: v.passed,
                cases_total: v.total,
                seconds: v.seconds,
                fingerprint: v.fingerprint,
                detail: v.detail,
                isolation: v.isolation,
                ..base
            }
        }
        Item::Assertion(t) => {
            let v = assertion::judge(&mut workers.judges, t, answer)?;
            Execution {
                status: v.status,
                cases_passed: i32::from(v.status == ExecStatus::Pass),
                seconds: v.seconds,
                fingerprint: v.fingerprint,
                detail: v.detail,
                isolation: v.isolation,
                ..base
            }
        }
    })
}

/// `execute --run NAME --merge-shards`: the complete set of the run's shard files
/// (`executions-I-of-N.parquet`) into `executions.parquet`, then the shard files removed.
/// An incomplete or inconsistent set is refused and nothing is deleted.
pub fn merge_shards(common: &CommonArgs, run: &str) -> anyhow::Result<StageOutcome> {
    check_run_name(run)?;
    let rdir = run_dir(common.data()?, run);
    let set = schemas::shards::merge::<Execution, _>(&rdir, execution_key, |set| {
        if let Some(e) = set.rows.iter().find(|e| e.run != run) {
            anyhow::bail!(
                "{}: a shard holds executions of run `{}`, not `{run}`; rerun that shard",
                rdir.display(),
                e.run
            );
        }
        Ok(())
    })?;
    writeln!(
        std::io::stdout().lock(),
        "merged {} shard files into {} ({} rows)",
        set.count,
        schemas::table_path::<Execution>(&rdir).display(),
        set.rows.len()
    )?;
    Ok(StageOutcome::Success)
}
