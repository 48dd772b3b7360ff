//! Judging completion tasks (`completion_tasks`, written by `mask`): a fill is spliced into
//! its file in a working copy of the repository, and the task's judge tests (the
//! repository's own tests that execute the masked span, by node id) run in the repository's
//! environment, in the sandbox.
//!
//! One worker per repository and hash seed serves every answer of that repository: its
//! work folder is a copy of the repository's tree, and each request is `pristine` (the
//! runner puts the copy back as it was before and after it, so an answer that deletes or
//! rewrites files of the copy costs only itself) with the spliced file as its `overlay`.
//! A spliced file that does not compile is `syntax` before any test runs. Subprocesses the
//! tests start import from the working copy too (the runner puts it on `PYTHONPATH`), so
//! they see the answer, not the original. A judge's cost is its tests', not the suite's:
//! the wall-clock limit scales with the seconds `repo_tests` recorded for them.
//!
//! - [`validate`]: the original fill (the reference) must pass every judge test twice
//!   (hash seeds 0 and 1, the second time in the reverse order), and every neutral fill
//!   that parses (`None`, `pass`, the span deleted, `raise NotImplementedError`, as the
//!   span's level allows) must fail one; mutants of the span (the `mutants` library) are
//!   run and their kill rate recorded: when there are some and none fails a judge test,
//!   the task is invalid (`mutants_survive`).
//! - [`execute`]: a run's answer against the judge tests.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::time::Duration;

use schemas::{
    CompletionTask, ExecStatus, Family, File, Fingerprint, Isolation, Repo, SpanKind, TestOutcome,
    Validation, ValidationStatus,
};

use crate::env::{EnvConfig, Envs};
use execution::backend::{Backend, ExecError, Limits, WorkerSpec};
use execution::batch::Batch;
use execution::protocol::{Outcome, Overlay, PytestRun, Request, Status};

/// Characters of failure text kept in a row.
const DETAIL_CAP: usize = 1500;

/// How completion answers are judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompletionOptions {
    /// Wall-clock floor of one judge run (pytest's start and the project's imports).
    pub base_wall: Duration,
    /// The judge tests' recorded seconds are multiplied by this for the limit.
    pub factor: f64,
    /// Wall-clock ceiling of one judge run.
    pub max_wall: Duration,
    /// Address space of the test process.
    pub memory_bytes: u64,
    /// Mutants of the span run by `--validate`.
    pub mutants: usize,
    /// Run every test file of the repository for each answer, not only the judge tests
    /// (the way of benchmarks that never ask which tests execute the span; `make bench`
    /// measures its cost against the judge tests'). The verdict is still the judge tests'.
    pub whole_suite: bool,
}

impl Default for CompletionOptions {
    fn default() -> Self {
        CompletionOptions {
            base_wall: Duration::from_secs(20),
            factor: 5.0,
            max_wall: Duration::from_mins(5),
            memory_bytes: 2 << 30,
            mutants: 8,
            whole_suite: false,
        }
    }
}

impl CompletionOptions {
    /// What changes a verdict, as text for row hashes.
    pub fn digest(&self) -> String {
        format!(
            "base={:?} factor={} max={:?} memory={} mutants={} whole_suite={}",
            self.base_wall,
            self.factor,
            self.max_wall,
            self.memory_bytes,
            self.mutants,
            self.whole_suite
        )
    }

    fn limits(&self, task: &CompletionTask) -> Limits {
        if self.whole_suite {
            return self.limits_within(self.max_wall);
        }
        self.limits_for(task.tests_seconds)
    }

    /// The limits of a run of tests that took `tests_seconds` in `repo_tests`.
    pub fn limits_for(&self, tests_seconds: f64) -> Limits {
        self.limits_within(
            (self.base_wall + Duration::from_secs_f64(tests_seconds.max(0.0) * self.factor))
                .min(self.max_wall),
        )
    }

    fn limits_within(&self, wall: Duration) -> Limits {
        Limits {
            wall,
            cpu_seconds: wall.as_secs().max(1),
            memory_bytes: self.memory_bytes,
            processes: 128,
            file_size_bytes: 256 << 20,
            open_files: 1024,
            output_bytes: 4 << 20,
            disk_bytes: 1 << 30,
        }
    }
}

/// The completion tasks of a dataset (none when `completion_tasks.parquet` is absent).
pub fn load(dir: &std::path::Path) -> anyhow::Result<Vec<CompletionTask>> {
    use anyhow::Context as _;
    if !schemas::table_exists::<CompletionTask>(dir) {
        return Ok(Vec::new());
    }
    schemas::read_table(dir).context("reading the completion tasks mask wrote")
}

/// The file text with `fill` in place of the task's span. The fill's indentation is
/// normalized: leading blank space of its first line goes (the prefix ends where the span
/// begins), and for statement, block and function spans, when its other lines are indented
/// less than the span (an answer written at column 0), the span's indentation is put before
/// each of them. Trailing blank space goes too (the suffix holds what follows the span).
pub fn splice(task: &CompletionTask, fill: &str) -> String {
    let mut out = String::with_capacity(task.prefix.len() + fill.len() + task.suffix.len());
    out.push_str(&task.prefix);
    out.push_str(&normalize_fill(task.span_kind, &task.indent, fill));
    out.push_str(&task.suffix);
    out
}

/// A fill as it is spliced (see [`splice`]).
pub fn normalize_fill(kind: SpanKind, indent: &str, fill: &str) -> String {
    let fill = fill.trim_end();
    let mut lines = fill.split('\n');
    let first = lines.next().unwrap_or("").trim_start();
    let rest: Vec<&str> = lines.collect();
    if kind == SpanKind::Expression || rest.is_empty() {
        return std::iter::once(first)
            .chain(rest.iter().copied())
            .collect::<Vec<_>>()
            .join("\n");
    }
    let width = |l: &str| l.len() - l.trim_start().len();
    let least = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| width(l))
        .min()
        .unwrap_or(indent.len());
    let mut out = vec![first.to_string()];
    for l in rest {
        if least < indent.len() && !l.trim().is_empty() {
            out.push(format!("{indent}{}", &l[least.min(width(l))..]));
        } else {
            out.push(l.to_string());
        }
    }
    out.join("\n")
}

/// The neutral fills of a task's level, each with its name: answers that know nothing, which
/// a sound judge must reject (`None` and the span deleted for an expression; `pass`, which
/// stands for `None` and the deleted span too, and `raise NotImplementedError` for the other
/// levels). Those that equal the reference are left out.
pub fn neutral_fills(task: &CompletionTask) -> Vec<(&'static str, String)> {
    let fills: &[(&str, &str)] = match task.span_kind {
        SpanKind::Expression => &[("None", "None"), ("deleted", "")],
        // As statements, `None` compiles to what `pass` does (nothing), and the span deleted
        // is `pass` again or an empty block that does not compile: `pass` stands for both.
        _ => &[
            ("pass", "pass"),
            ("raise NotImplementedError", "raise NotImplementedError"),
        ],
    };
    fills
        .iter()
        .filter(|(_, f)| f.trim() != task.reference.trim())
        .map(|(n, f)| (*n, (*f).to_string()))
        .collect()
}

/// How one answer did against the judge tests.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeVerdict {
    pub status: ExecStatus,
    pub passed: i32,
    pub total: i32,
    pub fingerprint: Option<Fingerprint>,
    pub detail: Option<String>,
    pub seconds: f64,
    pub isolation: Isolation,
    /// Each judge test's outcome in the task's order (for the stability check).
    pub outcomes: Vec<String>,
}

impl JudgeVerdict {
    fn infra(task: &CompletionTask, why: &str) -> JudgeVerdict {
        JudgeVerdict {
            status: ExecStatus::Infra,
            passed: 0,
            total: task.tests.len() as i32,
            fingerprint: None,
            detail: Some(why.to_string()),
            seconds: 0.0,
            isolation: Isolation::None,
            outcomes: Vec::new(),
        }
    }
}

/// What a repository's judge workers run in: its environment and its tree.
#[derive(Debug, Clone)]
pub struct RepoWorker {
    pub spec: WorkerSpec,
    /// The environment's key and the tree's folder, for row hashes.
    pub key: String,
    /// The repository's test files (what `whole_suite` runs).
    pub test_files: Vec<String>,
    /// The arguments each of its pytest runs gets ([`crate::repo_tests::pytest_args`]).
    pub pytest_args: Vec<String>,
    /// The text of each file of kind `test`, by path (what assertion tasks rewrite).
    pub test_sources: BTreeMap<String, String>,
}

/// The worker specification of a repository ([`crate::repo_tests::prepare`], the one place
/// it is made). `Err`: why not (an environment that did not build), which makes the rows
/// `infra`.
pub fn repo_worker(
    repo: &Repo,
    files: &[&File],
    envs: &Envs,
) -> anyhow::Result<Result<RepoWorker, String>> {
    Ok(match crate::repo_tests::prepare(repo, files, envs)? {
        crate::repo_tests::Setup::Ready { spec, key, .. } => Ok(RepoWorker {
            spec,
            key,
            test_files: crate::repo_tests::test_files(files),
            pytest_args: crate::repo_tests::pytest_args(files),
            test_sources: files
                .iter()
                .filter(|f| f.kind == schemas::FileKind::Test)
                .filter_map(|f| Some((f.path.clone(), f.content.clone()?)))
                .collect(),
        }),
        crate::repo_tests::Setup::EnvFailed { message, .. } => Err(format!(
            "environment: the repository's environment did not build: {}",
            crate::env::cap_tail(&message, 300)
        )),
    })
}

/// Sets up the judge workers of the repositories `repo_ids` (environments built once each,
/// in order): per repository id, its worker or why none.
pub fn repo_workers(
    dir: &std::path::Path,
    repo_ids: &[&str],
    envs: Option<&EnvConfig>,
) -> anyhow::Result<HashMap<String, Result<RepoWorker, String>>> {
    use anyhow::Context as _;
    let mut wanted: Vec<&str> = repo_ids.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut out = HashMap::new();
    if wanted.is_empty() {
        return Ok(out);
    }
    let Some(cfg) = envs else {
        for id in wanted {
            out.insert(id.to_string(), Err(crate::tasks::NO_ENVS.to_string()));
        }
        return Ok(out);
    };
    let repos: Vec<Repo> = schemas::read_table(dir).context("reading repos")?;
    let files: Vec<File> = schemas::read_table(dir).context("reading files")?;
    let mut cfg = cfg.clone();
    std::fs::create_dir_all(&cfg.cache_dir)
        .with_context(|| format!("creating the cache folder {}", cfg.cache_dir.display()))?;
    cfg.cache_dir = std::fs::canonicalize(&cfg.cache_dir)
        .with_context(|| format!("resolving the cache folder {}", cfg.cache_dir.display()))?;
    let envs = Envs::open(cfg).context("opening the environment cache")?;
    for id in wanted {
        let Some(repo) = repos.iter().find(|r| r.repo_id == id) else {
            out.insert(
                id.to_string(),
                Err(format!("the repository {id} is not in repos.parquet")),
            );
            continue;
        };
        let mine: Vec<&File> = files.iter().filter(|f| f.repo_id == id).collect();
        let w =
            repo_worker(repo, &mine, &envs).with_context(|| format!("repository {}", repo.name))?;
        out.insert(id.to_string(), w);
    }
    Ok(out)
}

/// Per repository id, its judge worker or why none.
pub type RepoWorkers = HashMap<String, Result<RepoWorker, String>>;

/// One thread's judge workers: per repository and hash seed, a worker over its tree.
pub struct Judges<'b> {
    backend: &'b dyn Backend,
    workers: &'b HashMap<String, Result<RepoWorker, String>>,
    opts: CompletionOptions,
    batches: BTreeMap<(String, u32), Batch<'b>>,
    /// A tighter wall-clock limit for the runs of one task (validation's neutral fills and
    /// mutants: a few times what the reference took, so a fill that loops costs seconds).
    tight_wall: Option<Duration>,
}

impl<'b> Judges<'b> {
    pub fn new(
        backend: &'b dyn Backend,
        workers: &'b HashMap<String, Result<RepoWorker, String>>,
        opts: CompletionOptions,
    ) -> Judges<'b> {
        Judges {
            backend,
            workers,
            opts,
            batches: BTreeMap::new(),
            tight_wall: None,
        }
    }

    /// Runs `req` in the worker of repository `repo_id` with hash seed `seed`, within
    /// `limits` (and the tight wall-clock limit when one is set). `Ok(Err(why))`: the
    /// repository has no worker (its environment did not build).
    pub fn run(
        &mut self,
        repo_id: &str,
        seed: u32,
        mut limits: Limits,
        req: &Request,
    ) -> Result<Result<Outcome, String>, ExecError> {
        let worker = match self.workers.get(repo_id) {
            Some(Ok(w)) => w,
            Some(Err(why)) => return Ok(Err(why.clone())),
            None => return Ok(Err("no worker for its repository".into())),
        };
        if let Some(w) = self.tight_wall {
            limits.wall = limits.wall.min(w);
            limits.cpu_seconds = limits.wall.as_secs().max(1);
        }
        let (backend, spec) = (self.backend, &worker.spec);
        let batch = self
            .batches
            .entry((repo_id.to_string(), seed))
            .or_insert_with(|| {
                let spec = WorkerSpec {
                    hash_seed: seed,
                    ..spec.clone()
                };
                Batch::new(backend, &spec, &limits)
            });
        batch.set_limits(&limits);
        batch.run(req).map(Ok)
    }

    /// The worker of a repository, when it has one.
    pub fn worker(&self, repo_id: &str) -> Option<&RepoWorker> {
        self.workers.get(repo_id).and_then(|w| w.as_ref().ok())
    }

    /// The judge's options.
    pub fn options(&self) -> &CompletionOptions {
        &self.opts
    }

    /// Sets (or clears) the tight wall-clock limit of the runs that follow.
    pub fn set_tight_wall(&mut self, wall: Option<Duration>) {
        self.tight_wall = wall;
    }

    /// Runs the judge tests with the file `text` in place of the task's file (seed 0 or 1;
    /// `reverse`: the tests in the reverse order).
    pub fn judge_text(
        &mut self,
        task: &CompletionTask,
        text: &str,
        seed: u32,
        reverse: bool,
    ) -> Result<JudgeVerdict, ExecError> {
        let Some(worker) = self.worker(&task.repo_id) else {
            let why = match self.workers.get(&task.repo_id) {
                Some(Err(why)) => why.clone(),
                _ => "no worker for its repository".into(),
            };
            return Ok(JudgeVerdict::infra(task, &why));
        };
        let mut ids = if self.opts.whole_suite {
            worker.test_files.clone()
        } else {
            task.tests.clone()
        };
        if reverse {
            ids.reverse();
        }
        let req = Request::Pytest(PytestRun {
            rootdir: ".".into(),
            node_ids: ids,
            coverage: false,
            extra_args: worker.pytest_args.clone(),
            pristine: true,
            overlay: vec![Overlay {
                path: task.path.clone(),
                text: text.to_string(),
            }],
            capture: false,
            trace: None,
            observe: None,
        });
        match self.run(&task.repo_id, seed, self.opts.limits(task), &req)? {
            Ok(o) => Ok(verdict(task, &o)),
            Err(why) => Ok(JudgeVerdict::infra(task, &why)),
        }
    }

    /// [`Judges::judge_text`] of a fill spliced into the task's file.
    pub fn judge(
        &mut self,
        task: &CompletionTask,
        fill: &str,
        seed: u32,
        reverse: bool,
    ) -> Result<JudgeVerdict, ExecError> {
        self.judge_text(task, &splice(task, fill), seed, reverse)
    }
}

/// The verdict of a judge run's outcome: `pass` only when every judge test passed.
pub fn verdict(task: &CompletionTask, o: &Outcome) -> JudgeVerdict {
    let total = task.tests.len() as i32;
    let base = JudgeVerdict {
        status: ExecStatus::Error,
        passed: 0,
        total,
        fingerprint: Some(Fingerprint::Runtime),
        detail: None,
        seconds: o.wall_seconds,
        isolation: o.isolation,
        outcomes: Vec::new(),
    };
    let story = || {
        let mut s = format!("status {}", o.status.as_str());
        if let Some(d) = &o.detail {
            s.push_str(": ");
            s.push_str(d);
        }
        if let Some(e) = &o.exception {
            let _ = write!(s, "; {}: {}", e.type_name, e.message);
        }
        Some(crate::env::cap_tail(&s, DETAIL_CAP))
    };
    match o.status {
        Status::Ok => {}
        Status::Exception
            if o.tests.is_empty()
                && o.exception
                    .as_ref()
                    .is_some_and(|e| e.type_name == "SyntaxError") =>
        {
            return JudgeVerdict {
                status: ExecStatus::Syntax,
                fingerprint: Some(Fingerprint::Syntax),
                detail: story(),
                ..base
            };
        }
        Status::Timeout => {
            return JudgeVerdict {
                status: ExecStatus::Timeout,
                detail: story(),
                ..base
            }
        }
        Status::Memory => {
            return JudgeVerdict {
                status: ExecStatus::Memory,
                detail: story(),
                ..base
            }
        }
        Status::SandboxViolation => {
            return JudgeVerdict {
                status: ExecStatus::SandboxViolation,
                detail: story(),
                ..base
            }
        }
        Status::HarnessError => {
            return JudgeVerdict {
                status: ExecStatus::Infra,
                fingerprint: None,
                detail: story(),
                ..base
            }
        }
        _ => {
            return JudgeVerdict {
                detail: story(),
                ..base
            }
        }
    }
    let by_id: HashMap<&str, &execution::protocol::TestReport> =
        o.tests.iter().map(|t| (t.node_id.as_str(), t)).collect();
    let mut passed = 0;
    let mut any_error = false;
    let mut first_failure: Option<String> = None;
    let mut outcomes = Vec::with_capacity(task.tests.len());
    for id in &task.tests {
        let got = by_id.get(id.as_str());
        let outcome = got.map_or("missing", |t| t.outcome.as_str());
        outcomes.push(outcome.to_string());
        match got.map(|t| t.outcome) {
            Some(TestOutcome::Passed) => passed += 1,
            Some(TestOutcome::Failed) => {
                first_failure.get_or_insert_with(|| {
                    format!(
                        "{id} failed: {}",
                        got.and_then(|t| t.detail.clone()).unwrap_or_default()
                    )
                });
            }
            _ => {
                any_error = true;
                first_failure.get_or_insert_with(|| {
                    if let Some(t) = got {
                        format!("{id} {outcome}: {}", t.detail.clone().unwrap_or_default())
                    } else {
                        // Not collected: the answer broke the test module's import, say.
                        let collection = o
                            .tests
                            .iter()
                            .find(|t| t.outcome != TestOutcome::Passed)
                            .and_then(|t| t.detail.clone())
                            .unwrap_or_default();
                        format!(
                            "{id} did not run (pytest exit code {:?}): {collection}",
                            o.exit_code
                        )
                    }
                });
            }
        }
    }
    let status = if passed == total {
        ExecStatus::Pass
    } else if any_error {
        ExecStatus::Error
    } else {
        ExecStatus::Fail
    };
    JudgeVerdict {
        status,
        passed,
        fingerprint: match status {
            ExecStatus::Pass => None,
            ExecStatus::Fail => Some(Fingerprint::Logic),
            _ => Some(Fingerprint::Runtime),
        },
        detail: first_failure.map(|d| crate::env::cap_tail(&d, DETAIL_CAP)),
        outcomes,
        ..base
    }
}

/// The hash of what makes a completion task's validation: the task, where it runs, the
/// judge's options and this build.
pub fn validation_hash(task: &CompletionTask, where_: &str, opts: &CompletionOptions) -> String {
    schemas::id::content_id(&[
        b"validation/completion/1",
        crate::BUILD_ID.as_bytes(),
        task.task_id.as_bytes(),
        task.prefix.as_bytes(),
        task.reference.as_bytes(),
        task.suffix.as_bytes(),
        task.tests.join("\n").as_bytes(),
        where_.as_bytes(),
        opts.digest().as_bytes(),
    ])
}

/// Where a task's repository runs, for row hashes: the worker's key, or why none.
pub fn placement(workers: &RepoWorkers, task: &CompletionTask) -> String {
    match workers.get(&task.repo_id) {
        Some(Ok(w)) => w.key.clone(),
        Some(Err(why)) => format!("none: {why}"),
        None => "none".into(),
    }
}

/// Validates one completion task (see the module doc).
pub fn validate(
    judges: &mut Judges<'_>,
    task: &CompletionTask,
    input_hash: &str,
) -> Result<Validation, ExecError> {
    let base = Validation {
        task_id: task.task_id.clone(),
        family: Family::Completion,
        original_passes: false,
        null_fails: false,
        stable: false,
        status: ValidationStatus::Invalid,
        valid: false,
        cases: task.tests.len() as i32,
        original_seconds: 0.0,
        mutants_total: None,
        mutants_killed: None,
        reason: None,
        isolation: Isolation::None,
        input_hash: input_hash.to_string(),
    };
    let infra = |why: &str| Validation {
        status: ValidationStatus::Infra,
        reason: Some(format!("infra: {why}")),
        ..base.clone()
    };
    if task.tests.is_empty() {
        return Ok(Validation {
            reason: Some("no_tests: the task has no judge test".into()),
            ..base
        });
    }
    let a = judges.judge(task, &task.reference, 0, false)?;
    if a.status.is_infra() {
        return Ok(infra(a.detail.as_deref().unwrap_or("")));
    }
    let isolation = a.isolation;
    if a.status != ExecStatus::Pass {
        return Ok(Validation {
            original_seconds: a.seconds,
            isolation,
            reason: Some(format!(
                "original_fails: {} ({})",
                a.detail.clone().unwrap_or_default(),
                a.status
            )),
            ..base
        });
    }
    let b = judges.judge(task, &task.reference, 1, true)?;
    // The fills below that loop stop at a few times what the reference took, not at the
    // judge's limit for model answers (20 s at least).
    let slowest = a.seconds.max(b.seconds);
    judges.tight_wall = Some(Duration::from_secs_f64(3.0 * slowest + 3.0));
    let v = validate_fills(judges, task, &a, &b, base, isolation);
    judges.tight_wall = None;
    v
}

/// [`validate`] once the reference passed twice: stability, the neutral fills, mutants.
fn validate_fills(
    judges: &mut Judges<'_>,
    task: &CompletionTask,
    a: &JudgeVerdict,
    b: &JudgeVerdict,
    base: Validation,
    isolation: Isolation,
) -> Result<Validation, ExecError> {
    let infra = |why: &str| Validation {
        status: ValidationStatus::Infra,
        reason: Some(format!("infra: {why}")),
        ..base.clone()
    };
    if b.status.is_infra() {
        return Ok(infra(b.detail.as_deref().unwrap_or("")));
    }
    let stable = b.status == ExecStatus::Pass && a.outcomes == b.outcomes;
    if !stable {
        // Invalid already: the neutral fills and mutants would change nothing.
        return Ok(Validation {
            original_passes: true,
            original_seconds: a.seconds,
            isolation,
            reason: Some(format!(
                "unstable: the judge tests gave {:?} then {:?} (PYTHONHASHSEED 0, then 1 in the reverse order)",
                a.outcomes, b.outcomes
            )),
            ..base
        });
    }
    let mut neutral_passes: Vec<&str> = Vec::new();
    for (name, fill) in neutral_fills(task) {
        let v = judges.judge(task, &fill, 0, false)?;
        if v.status.is_infra() {
            return Ok(infra(v.detail.as_deref().unwrap_or("")));
        }
        if v.status == ExecStatus::Pass {
            neutral_passes.push(name);
        }
    }
    if !neutral_passes.is_empty() {
        return Ok(Validation {
            original_passes: true,
            stable,
            original_seconds: a.seconds,
            isolation,
            reason: Some(format!(
                "null_passes: the neutral fill {} passes every judge test",
                neutral_passes.join(", ")
            )),
            ..base
        });
    }
    let original = splice(task, &task.reference);
    let start = task.prefix.len();
    let span = (
        start,
        start + normalize_fill(task.span_kind, &task.indent, &task.reference).len(),
    );
    let mutants = mutants::mutants(
        &original,
        &mutants::Options {
            max: Some(judges.opts.mutants),
            span: Some(span),
            ..mutants::Options::default()
        },
    )
    .unwrap_or_default();
    let mut killed = 0;
    for m in &mutants {
        let v = judges.judge_text(task, &m.source, 0, false)?;
        if v.status.is_infra() {
            return Ok(infra(v.detail.as_deref().unwrap_or("")));
        }
        if v.status != ExecStatus::Pass {
            killed += 1;
        }
    }
    // Judges that let every mutated fill through do not check what the span computes.
    let survive = !mutants.is_empty() && killed == 0;
    Ok(Validation {
        original_passes: true,
        null_fails: true,
        stable,
        status: if survive {
            ValidationStatus::Invalid
        } else {
            ValidationStatus::Valid
        },
        valid: !survive,
        original_seconds: a.seconds,
        mutants_total: Some(mutants.len() as i32),
        mutants_killed: Some(killed),
        reason: survive.then(|| {
            format!(
                "mutants_survive: none of the span's {} mutants fails a judge test",
                mutants.len()
            )
        }),
        isolation,
        ..base
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_are_reindented_to_the_span() {
        // An answer written at column 0 gets the span's indentation on its later lines.
        assert_eq!(
            normalize_fill(SpanKind::Block, "        ", "x = 1\nif x:\n    y = 2\n"),
            "x = 1\n        if x:\n            y = 2"
        );
        // Already indented: kept.
        assert_eq!(
            normalize_fill(SpanKind::Block, "    ", "  x = 1\n    y = 2"),
            "x = 1\n    y = 2"
        );
        // Expressions keep their lines as they are (indentation inside brackets is free).
        assert_eq!(
            normalize_fill(SpanKind::Expression, "    ", " f(a,\nb) \n"),
            "f(a,\nb)"
        );
        let t = schemas::examples::completion_task("t", "r");
        assert_eq!(
            splice(&t, &t.reference),
            "def add(a, b):\n    return a + b\n"
        );
    }

    #[test]
    fn neutral_fills_by_level() {
        let mut t = schemas::examples::completion_task("t", "r");
        let names = |t: &CompletionTask| {
            neutral_fills(t)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&t), ["None", "deleted"]);
        t.span_kind = SpanKind::Block;
        assert_eq!(names(&t), ["pass", "raise NotImplementedError"]);
        t.reference = "pass".into();
        assert_eq!(names(&t), ["raise NotImplementedError"]);
    }
}
