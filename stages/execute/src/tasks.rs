//! Function tasks run against their test cases: the judge every later step shares.
//!
//! A solution (the original, an empty body, a model's answer) is imported in the worker as
//! a module of its own and its entry point called with each case's arguments, all the
//! cases of one solution in one process forked from the runner (a call that misbehaves
//! ends that process; the next case gets a new one). Each outcome is judged here, in Rust,
//! out of the code's reach ([`judge_case`]): a case expecting a value passes when the call
//! returned a value that [`Value::matches`] it (floats within a tolerance, NaN equal to
//! NaN, order ignored in sets and dicts); a case expecting an exception passes when the
//! call raised one of the same type.
//!
//! A solution's run gets one status ([`Verdict`]): `pass` (every case), `syntax` (the
//! module does not compile), `sandbox_violation`, `timeout`, `memory`, `error` (some case
//! raised where it should have returned, or the process died) or `fail` (every case ran,
//! some gave the wrong value), with the failure fingerprint of `Code2Bench`'s diagnosis:
//! `syntax`, `runtime` (it broke while running) or `logic` (it ran and was wrong). When the
//! harness itself failed (no worker could start, the environment did not build, the harness
//! refused a case) the status is `infra`: nothing is known of the solution.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use schemas::{ExecStatus, Fingerprint, FunctionTask, Reference, TaskStatus, TestCase};

use execution::backend::{ExecError, Limits};
use execution::batch::Batch;
use execution::protocol::{Call, Isolation, Outcome, Request, Status, Target};
use execution::value::{Tolerance, Value};

/// The module name a solution is imported as.
pub const MODULE: &str = "fb_solution";

/// Exceptions that say the module itself does not compile.
const SYNTAX_ERRORS: &[&str] = &["SyntaxError", "IndentationError", "TabError"];

/// A task with its cases, in their order.
#[derive(Debug, Clone)]
pub struct TaskCases {
    pub task: FunctionTask,
    pub cases: Vec<TestCase>,
}

/// The `ok` function tasks of `dir` with their cases, in `task_id` order.
pub fn load_function_tasks(dir: &Path) -> anyhow::Result<Vec<TaskCases>> {
    let tasks: Vec<FunctionTask> = schemas::read_table(dir).with_context(|| {
        format!(
            "reading the function tasks of {} (run `synthesize-tests --data {}` first)",
            dir.display(),
            dir.display()
        )
    })?;
    let cases: Vec<TestCase> = schemas::read_table(dir).context("reading test_cases")?;
    let mut by_task: HashMap<String, Vec<TestCase>> = HashMap::new();
    for c in cases {
        by_task.entry(c.task_id.clone()).or_default().push(c);
    }
    let mut out: Vec<TaskCases> = tasks
        .into_iter()
        .filter(|t| t.status == TaskStatus::Ok)
        .map(|task| {
            let mut cases = by_task.remove(&task.task_id).unwrap_or_default();
            cases.sort_by_key(|c| c.ordinal);
            TaskCases { task, cases }
        })
        .collect();
    out.sort_by(|a, b| a.task.task_id.cmp(&b.task.task_id));
    Ok(out)
}

/// What one case expects, read from its row.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Value(Value),
    Raises(String),
}

/// A case whose row holds no expectation the judge can read: the harness's problem (the
/// row is `infra`), not the solution's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableCase(pub String);

impl From<String> for UnreadableCase {
    fn from(s: String) -> UnreadableCase {
        UnreadableCase(s)
    }
}

impl From<&str> for UnreadableCase {
    fn from(s: &str) -> UnreadableCase {
        UnreadableCase(s.to_string())
    }
}

/// The expectation of a case; `Err` when its row holds neither a value nor an exception.
pub fn expected_of(case: &TestCase) -> Result<Expected, UnreadableCase> {
    if let Some(e) = &case.expected_exception {
        return Ok(Expected::Raises(e.clone()));
    }
    let json = case.expected_json.as_deref().ok_or_else(|| {
        UnreadableCase(format!("case {} records no expected value", case.case_id))
    })?;
    serde_json::from_str(json)
        .map(Expected::Value)
        .map_err(|e| {
            UnreadableCase(format!(
                "case {}: expected value unreadable: {e}",
                case.case_id
            ))
        })
}

/// How one case went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaseVerdict {
    Pass,
    /// It returned the wrong value, or raised the wrong exception where one was expected.
    Wrong,
    /// It raised where a value was expected (or the entry point is missing).
    Raised,
    Syntax,
    Timeout,
    Memory,
    SandboxViolation,
    /// The process died, printed too much or hit a resource limit.
    Broken,
    /// The harness failed on it (a bad case, a protocol error): not the solution's doing.
    Infra,
}

/// Judges one outcome against what the case expects.
pub fn judge_case(expected: &Expected, o: &Outcome) -> CaseVerdict {
    match o.status {
        Status::Ok => match expected {
            Expected::Value(v)
                if o.value
                    .as_ref()
                    .is_some_and(|got| got.matches(v, Tolerance::default())) =>
            {
                CaseVerdict::Pass
            }
            _ => CaseVerdict::Wrong,
        },
        Status::Exception => {
            let got = o.exception.as_ref().map_or("", |e| e.type_name.as_str());
            if SYNTAX_ERRORS.contains(&got)
                && o.exception
                    .as_ref()
                    .is_some_and(|e| e.traceback.contains("exec_module") || e.traceback.is_empty())
            {
                return CaseVerdict::Syntax;
            }
            match expected {
                Expected::Raises(t) if t == got => CaseVerdict::Pass,
                Expected::Raises(_) => CaseVerdict::Wrong,
                Expected::Value(_) => CaseVerdict::Raised,
            }
        }
        Status::Timeout => CaseVerdict::Timeout,
        Status::Memory => CaseVerdict::Memory,
        Status::SandboxViolation => CaseVerdict::SandboxViolation,
        Status::Crash | Status::OutputLimit | Status::ResourceLimit => CaseVerdict::Broken,
        Status::HarnessError => CaseVerdict::Infra,
    }
}

/// A solution's run over a task's cases.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub status: ExecStatus,
    pub cases_passed: i32,
    pub cases_total: i32,
    /// `None` on a pass and on `infra`.
    pub fingerprint: Option<Fingerprint>,
    /// The first failing case's story, capped.
    pub detail: Option<String>,
    /// Seconds the calls took (their own time, as the worker measured it).
    pub seconds: f64,
    /// Per case, how it went (for the stability check).
    pub per_case: Vec<CaseVerdict>,
    /// Per case, the behaviour seen (value or exception type), for the stability check.
    pub behaviour: Vec<String>,
    /// Per case, the wall-clock seconds its whole request took, fork and import included:
    /// what a case's wall-clock limit is measured against (`None`: not run).
    pub case_seconds: Vec<Option<f64>>,
    /// The isolation the calls had.
    pub isolation: Isolation,
}

/// How a solution is run.
#[derive(Debug, Clone, Copy)]
pub struct JudgeOptions {
    /// Limits of one case.
    pub limits: Limits,
    /// Cases after this many timeouts are not run (they count as failed): a solution that
    /// loops forever would otherwise cost a timeout per case.
    pub max_timeouts: usize,
}

impl Default for JudgeOptions {
    fn default() -> JudgeOptions {
        JudgeOptions {
            limits: Limits {
                wall: Duration::from_secs(5),
                cpu_seconds: 5,
                ..Limits::default()
            },
            max_timeouts: 1,
        }
    }
}

/// How the time limit of a function task's case follows from its reference solution's
/// time on that case, measured on this machine in the same run (as `EvalPlus` does):
/// `max(floor, factor * reference)`. A machine twice as slow gives the reference twice the
/// time and the answer twice the limit, so a verdict does not depend on the machine's
/// speed; the floor keeps the start-up noise of very fast cases from deciding anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeRule {
    pub factor: f64,
    pub floor: Duration,
}

impl TimeRule {
    /// `execute --time-factor`'s default (`EvalPlus`'s factor).
    pub const DEFAULT_FACTOR: f64 = 4.0;
    /// `execute --time-floor`'s default, in seconds.
    pub const DEFAULT_FLOOR_SECONDS: f64 = 1.0;

    /// The wall-clock limit of a case whose reference took `reference_seconds`.
    pub fn limit(&self, reference_seconds: f64) -> Duration {
        Duration::from_secs_f64(
            (self.factor * reference_seconds.max(0.0)).max(self.floor.as_secs_f64()),
        )
    }

    /// `base` with the wall-clock limit of a case whose reference took
    /// `reference_seconds`, and CPU seconds to match (at least one).
    pub fn limits(&self, base: &Limits, reference_seconds: f64) -> Limits {
        let wall = self.limit(reference_seconds);
        Limits {
            wall,
            cpu_seconds: (wall.as_secs_f64().ceil() as u64).max(1),
            ..*base
        }
    }

    /// The limits the reference itself is timed with: `factor` times the fixed case limit,
    /// so that a slower machine still times it rather than cutting it off.
    pub fn reference_limits(&self, base: &Limits) -> Limits {
        let wall = base.wall.mul_f64(self.factor.max(1.0));
        Limits {
            wall,
            cpu_seconds: (wall.as_secs_f64().ceil() as u64).max(1),
            ..*base
        }
    }

    /// What of the rule can change a verdict, for a row's hash (measured times are not
    /// part of it: they are this machine's, not the row's inputs).
    pub fn digest(&self) -> String {
        format!("time_factor={} time_floor={:?}", self.factor, self.floor)
    }
}

/// The reference's time on each case of `task` (the whole request's wall-clock time, what
/// the limit applies to), from one run of it through `batch` with `limits`: `None` for a
/// case it did not pass.
pub fn reference_times(
    batch: &mut Batch<'_>,
    task: &TaskCases,
    opts: &JudgeOptions,
    limits: &Limits,
) -> Result<Vec<Option<f64>>, ExecError> {
    let v = judge_with(batch, &task.task.canonical_solution, task, opts, |_| {
        *limits
    })?;
    Ok(v.per_case
        .iter()
        .zip(&v.case_seconds)
        .map(|(verdict, secs)| secs.filter(|_| *verdict == CaseVerdict::Pass))
        .collect())
}

fn cap(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} ...", &s[..end])
}

/// `text` with memory addresses (`at 0x7f3a...`) blanked, so that a row's detail is the
/// same on every run.
fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" at 0x") {
        let (head, tail) = rest.split_at(i + " at 0x".len());
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits > 0 {
            out.push_str("...");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

fn describe(case: &TestCase, expected: &Expected, o: &Outcome) -> String {
    let want = match expected {
        Expected::Value(_) => case
            .expected_repr
            .clone()
            .unwrap_or_else(|| "a value".into()),
        Expected::Raises(t) => format!("raises {t}"),
    };
    let got = match o.status {
        Status::Ok => o.repr.clone().unwrap_or_default(),
        Status::Exception => o.exception.as_ref().map_or_else(String::new, |e| {
            format!("raised {}: {}", e.type_name, cap(&e.message, 300))
        }),
        other => format!(
            "{}{}",
            other.as_str(),
            o.detail
                .as_deref()
                .map(|d| format!(" ({})", cap(d, 300)))
                .unwrap_or_default()
        ),
    };
    cap(
        &without_addresses(&format!(
            "case {}: args {} kwargs {}: expected {want}, got {got}",
            case.ordinal, case.args, case.kwargs
        )),
        1000,
    )
}

fn behaviour(o: &Outcome) -> String {
    match o.status {
        Status::Ok => o
            .value
            .as_ref()
            .map_or_else(|| "?".into(), Value::canonical),
        Status::Exception => format!(
            "raise {}",
            o.exception.as_ref().map_or("", |e| e.type_name.as_str())
        ),
        other => other.as_str().to_string(),
    }
}

impl Verdict {
    /// The verdict of a run the harness could not make (no worker, no environment): status
    /// `infra`, nothing known of the solution.
    pub fn infra(task: &TaskCases, why: &str) -> Verdict {
        let n = task.cases.len();
        Verdict {
            status: ExecStatus::Infra,
            cases_passed: 0,
            cases_total: n as i32,
            fingerprint: None,
            detail: Some(cap(&format!("infra: {why}"), 1000)),
            seconds: 0.0,
            per_case: vec![CaseVerdict::Infra; n],
            behaviour: vec!["infra".into(); n],
            case_seconds: vec![None; n],
            isolation: Isolation::None,
        }
    }
}

/// Runs `source` (imported as [`MODULE`]) over every case of `task` through `batch`, each
/// case with `opts.limits`. A worker that cannot start makes the verdict `infra`; `Err`
/// only when no worker may start by configuration (isolation required but missing), which
/// no rerun would change.
pub fn judge(
    batch: &mut Batch<'_>,
    source: &str,
    task: &TaskCases,
    opts: &JudgeOptions,
) -> Result<Verdict, ExecError> {
    judge_with(batch, source, task, opts, |_| opts.limits)
}

/// [`judge`] with the limits of each case (by its index) from `limits_of`.
pub fn judge_with(
    batch: &mut Batch<'_>,
    source: &str,
    task: &TaskCases,
    opts: &JudgeOptions,
    limits_of: impl Fn(usize) -> Limits,
) -> Result<Verdict, ExecError> {
    let total = task.cases.len() as i32;
    let mut per_case = Vec::with_capacity(task.cases.len());
    let mut behaviours = Vec::with_capacity(task.cases.len());
    let mut case_seconds = Vec::with_capacity(task.cases.len());
    let mut first_failure: Option<(CaseVerdict, String)> = None;
    let mut worst: Option<CaseVerdict> = None;
    let mut seconds = 0.0;
    let mut timeouts = 0;
    let mut isolation = Isolation::default();
    for (i, case) in task.cases.iter().enumerate() {
        let expected = match expected_of(case) {
            Ok(e) => e,
            Err(why) => {
                // A case the harness cannot read is the harness's failure, not the solution's.
                return Ok(Verdict::infra(task, &why.0));
            }
        };
        let skip = timeouts >= opts.max_timeouts || matches!(worst, Some(CaseVerdict::Syntax));
        if skip {
            per_case.push(CaseVerdict::Broken);
            behaviours.push("not run".into());
            case_seconds.push(None);
            continue;
        }
        let req = case_request(source, task, case, None);
        batch.set_limits(&limits_of(i));
        let o = match batch.run(&req) {
            Ok(o) => o,
            Err(e) if e.is_configuration() => return Err(e),
            Err(e) => return Ok(Verdict::infra(task, &e.to_string())),
        };
        isolation = o.isolation;
        let took = if o.seconds > 0.0 {
            o.seconds
        } else {
            o.wall_seconds
        };
        seconds += took;
        let v = judge_case(&expected, &o);
        if v == CaseVerdict::Infra {
            let why = format!(
                "the harness failed on case {}: {}",
                case.ordinal,
                o.detail.as_deref().unwrap_or(o.status.as_str())
            );
            return Ok(Verdict::infra(task, &why));
        }
        if v == CaseVerdict::Timeout {
            timeouts += 1;
        }
        if v != CaseVerdict::Pass {
            if first_failure.is_none() {
                first_failure = Some((v, describe(case, &expected, &o)));
            }
            worst = Some(match worst {
                Some(w) if rank(w) >= rank(v) => w,
                _ => v,
            });
        }
        per_case.push(v);
        behaviours.push(behaviour(&o));
        case_seconds.push(Some(o.wall_seconds.max(took)));
    }
    let passed = per_case.iter().filter(|v| **v == CaseVerdict::Pass).count() as i32;
    let (status, fingerprint) = match worst {
        None if passed == total => (ExecStatus::Pass, None),
        None => (ExecStatus::Error, Some(Fingerprint::Runtime)),
        Some(w) => status_of(w),
    };
    Ok(Verdict {
        status,
        cases_passed: passed,
        cases_total: total,
        fingerprint,
        detail: first_failure.map(|(_, d)| d),
        seconds,
        per_case,
        behaviour: behaviours,
        case_seconds,
        isolation,
    })
}

/// The call of `source`'s entry point (imported as [`MODULE`]) on one case of `task`,
/// traced when `trace` is given (the `slice` stage).
pub fn case_request(
    source: &str,
    task: &TaskCases,
    case: &TestCase,
    trace: Option<execution::protocol::Trace>,
) -> Request {
    Request::Call(Call {
        target: Target::Source {
            name: MODULE.into(),
            text: source.into(),
        },
        function: task.task.entry_point.clone(),
        args: case.args.clone(),
        kwargs: case.kwargs.clone(),
        coverage: false,
        fresh: false,
        trace,
    })
}

/// Which failure names a run: the one that says most about why it failed.
fn rank(v: CaseVerdict) -> u8 {
    match v {
        CaseVerdict::Pass => 0,
        CaseVerdict::Wrong => 1,
        CaseVerdict::Raised | CaseVerdict::Broken => 2,
        CaseVerdict::Memory => 3,
        CaseVerdict::Timeout => 4,
        CaseVerdict::SandboxViolation => 5,
        CaseVerdict::Syntax => 6,
        CaseVerdict::Infra => 7,
    }
}

fn status_of(v: CaseVerdict) -> (ExecStatus, Option<Fingerprint>) {
    match v {
        CaseVerdict::Pass => (ExecStatus::Pass, None),
        CaseVerdict::Wrong => (ExecStatus::Fail, Some(Fingerprint::Logic)),
        CaseVerdict::Raised | CaseVerdict::Broken => {
            (ExecStatus::Error, Some(Fingerprint::Runtime))
        }
        CaseVerdict::Memory => (ExecStatus::Memory, Some(Fingerprint::Runtime)),
        CaseVerdict::Timeout => (ExecStatus::Timeout, Some(Fingerprint::Runtime)),
        CaseVerdict::SandboxViolation => (ExecStatus::SandboxViolation, Some(Fingerprint::Runtime)),
        CaseVerdict::Syntax => (ExecStatus::Syntax, Some(Fingerprint::Syntax)),
        CaseVerdict::Infra => (ExecStatus::Infra, None),
    }
}

/// The empty solution of a task: the reference solution with the entry point's body
/// replaced by `pass`, signature and docstring kept ([`mutants::null_function`], the same
/// text the `null` reference solver answers).
pub fn null_solution(task: &FunctionTask) -> Result<String, mutants::NoFunction> {
    mutants::null_function(&task.canonical_solution, &task.entry_point)
}

/// A digest of a task's cases as the judge reads them (ids, arguments, expectations, in
/// order): part of the hash of every row made by running them.
pub fn cases_digest(task: &TaskCases) -> String {
    let mut parts: Vec<&[u8]> = Vec::with_capacity(task.cases.len() * 6);
    for c in &task.cases {
        parts.push(c.case_id.as_bytes());
        parts.push(c.args.as_bytes());
        parts.push(c.kwargs.as_bytes());
        parts.push(c.expected_json.as_deref().unwrap_or("-").as_bytes());
        parts.push(c.expected_exception.as_deref().unwrap_or("-").as_bytes());
    }
    schemas::id::content_id(&parts)
}

impl JudgeOptions {
    /// What of the options can change a verdict, as text for a row's hash.
    pub fn digest(&self) -> String {
        format!(
            "wall={:?} cpu={} mem={} max_timeouts={}",
            self.limits.wall, self.limits.cpu_seconds, self.limits.memory_bytes, self.max_timeouts
        )
    }
}

/// Code that runs in a repository's interpreter: a task (keyed by its id) or a function
/// being synthesized (keyed by its function id).
#[derive(Debug, Clone, Copy)]
pub struct CodeRef<'a> {
    pub key: &'a str,
    pub function_id: &'a str,
    pub repo_id: &'a str,
}

impl<'a> From<&'a FunctionTask> for CodeRef<'a> {
    fn from(t: &'a FunctionTask) -> CodeRef<'a> {
        CodeRef {
            key: &t.task_id,
            function_id: &t.function_id,
            repo_id: &t.repo_id,
        }
    }
}

/// The interpreter and preloaded modules each piece of code runs with: the tools'
/// interpreter for code that uses only the standard library, the repository's environment
/// (built or reused from the cache) for code that imports third-party packages. The one
/// placement of function code, for synthesize-tests and execute alike.
pub struct Interpreters {
    default: PathBuf,
    /// Per repository whose code imports third-party packages, the requirements of its
    /// environment (or why there are none).
    requirements: BTreeMap<String, Result<Vec<String>, String>>,
    by_repo: HashMap<String, Result<PathBuf, String>>,
    needs: BTreeMap<String, BTreeSet<String>>,
    third_party: HashMap<String, bool>,
}

/// Where a piece of code runs.
pub type Placement = Result<(PathBuf, Vec<String>), String>;

/// Why code that needs its repository's environment has none when `--no-envs` was given:
/// such rows are `infra` (left out, made again by a rerun with environments) but, asked
/// for, they do not make the stage's run lacking.
pub const NO_ENVS: &str = "no environment built (--no-envs)";

/// Whether a row's reason is [`NO_ENVS`] (skipped on request) rather than a failure.
pub fn skipped_on_request(reason: Option<&str>) -> bool {
    reason.is_some_and(|r| r.contains(NO_ENVS))
}

impl Interpreters {
    /// Reads `references` (and, for code that imports third-party packages, the dependency
    /// files of its repositories) and works out where each piece runs, building nothing
    /// yet ([`Interpreters::build`] does).
    pub fn plan(
        dir: &Path,
        items: &[CodeRef<'_>],
        default: PathBuf,
    ) -> anyhow::Result<Interpreters> {
        let wanted: BTreeSet<&str> = items.iter().map(|t| t.function_id).collect();
        let refs: Vec<Reference> = if schemas::table_exists::<Reference>(dir) {
            schemas::read_table(dir).context("reading references")?
        } else {
            Vec::new()
        };
        let mut refs_of: HashMap<&str, Vec<&Reference>> = HashMap::new();
        for r in &refs {
            if wanted.contains(r.function_id.as_str()) {
                refs_of.entry(r.function_id.as_str()).or_default().push(r);
            }
        }
        let mut needs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut third_party = HashMap::new();
        for t in items {
            let mods = crate::env::functions::third_party(
                refs_of.get(t.function_id).map_or(&[][..], Vec::as_slice),
            );
            third_party.insert(t.key.to_string(), !mods.is_empty());
            if !mods.is_empty() {
                needs.entry(t.repo_id.to_string()).or_default().extend(mods);
            }
        }
        let requirements = crate::env::functions::requirement_sets(dir, &needs)?;
        Ok(Interpreters {
            default,
            requirements,
            by_repo: HashMap::new(),
            needs,
            third_party,
        })
    }

    fn imports_third_party(&self, key: &str) -> bool {
        self.third_party.get(key).copied().unwrap_or(false)
    }

    /// Builds (or finds in the cache) the environments of the repositories of `items` that
    /// need one. With `cfg` `None` none is built and such code gets an error.
    pub fn build(
        &mut self,
        items: &[CodeRef<'_>],
        cfg: Option<crate::env::EnvConfig>,
    ) -> anyhow::Result<()> {
        let repos: BTreeSet<&str> = items
            .iter()
            .filter(|t| self.imports_third_party(t.key))
            .map(|t| t.repo_id)
            .collect();
        let sets: BTreeMap<String, Result<Vec<String>, String>> = self
            .requirements
            .iter()
            .filter(|(r, _)| repos.contains(r.as_str()) && !self.by_repo.contains_key(*r))
            .map(|(r, s)| (r.clone(), s.clone()))
            .collect();
        let built = match cfg {
            Some(cfg) => crate::env::functions::interpreters(&sets, cfg)?,
            None => sets
                .keys()
                .map(|k| (k.clone(), Err(NO_ENVS.to_string())))
                .collect(),
        };
        self.by_repo.extend(built);
        Ok(())
    }

    /// What defines where `item` runs, as text for the hash of the rows made by running it:
    /// the interpreter of standard-library code, the requirements of the environment of
    /// code that imports third-party packages.
    pub fn key_of(&self, item: CodeRef<'_>) -> String {
        if !self.imports_third_party(item.key) {
            return format!("python:{}", self.default.display());
        }
        match self.requirements.get(item.repo_id) {
            Some(Ok(reqs)) => format!("env:{}", reqs.join("\n")),
            Some(Err(why)) => format!("none:{why}"),
            None => "none".into(),
        }
    }

    /// The interpreter and preloaded modules for `item` (the packages its repository's code
    /// uses, imported once per worker rather than once per call), or why it has none.
    pub fn placement(&self, item: CodeRef<'_>) -> Placement {
        if !self.imports_third_party(item.key) {
            return Ok((self.default.clone(), Vec::new()));
        }
        let preload = self
            .needs
            .get(item.repo_id)
            .map(|m| m.iter().cloned().collect())
            .unwrap_or_default();
        self.by_repo
            .get(item.repo_id)
            .cloned()
            .unwrap_or_else(|| Err("no environment".into()))
            .map(|p| (p, preload))
    }

    /// [`Interpreters::placement`] of a task.
    pub fn for_task(&self, task: &FunctionTask) -> Placement {
        self.placement(task.into())
    }
}

/// Seconds since `t0`.
pub fn since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use execution::protocol::ExceptionInfo;

    fn outcome(status: Status) -> Outcome {
        Outcome::failed(
            status,
            String::new(),
            Isolation::RlimitsOnly,
            Duration::ZERO,
        )
    }

    fn returned(v: Value) -> Outcome {
        Outcome {
            status: Status::Ok,
            value: Some(v),
            detail: None,
            ..outcome(Status::Ok)
        }
    }

    fn raised(t: &str, tb: &str) -> Outcome {
        Outcome {
            status: Status::Exception,
            exception: Some(ExceptionInfo {
                type_name: t.into(),
                message: String::new(),
                traceback: tb.into(),
            }),
            ..outcome(Status::Exception)
        }
    }

    #[test]
    fn cases_are_judged_by_value_or_exception_type() {
        let want = Expected::Value(Value::int(3));
        assert_eq!(
            judge_case(&want, &returned(Value::int(3))),
            CaseVerdict::Pass
        );
        assert_eq!(
            judge_case(&want, &returned(Value::int(4))),
            CaseVerdict::Wrong
        );
        assert_eq!(
            judge_case(&want, &raised("ValueError", "")),
            CaseVerdict::Raised
        );
        let want = Expected::Raises("ValueError".into());
        assert_eq!(
            judge_case(&want, &raised("ValueError", "x")),
            CaseVerdict::Pass
        );
        assert_eq!(
            judge_case(&want, &raised("KeyError", "x")),
            CaseVerdict::Wrong
        );
        assert_eq!(
            judge_case(&want, &returned(Value::None)),
            CaseVerdict::Wrong
        );
        assert_eq!(
            judge_case(&want, &outcome(Status::Timeout)),
            CaseVerdict::Timeout
        );
        assert_eq!(
            judge_case(
                &want,
                &raised("SyntaxError", "  File ..., in exec_module\n")
            ),
            CaseVerdict::Syntax
        );
        // A SyntaxError the function itself raises (compile() of an argument) is its
        // behaviour, not a syntax error of the solution.
        assert_eq!(
            judge_case(
                &Expected::Raises("SyntaxError".into()),
                &raised("SyntaxError", "  File \"x.py\", line 3, in f\n")
            ),
            CaseVerdict::Pass
        );
    }

    #[test]
    fn the_worst_failure_names_the_run() {
        assert!(rank(CaseVerdict::Syntax) > rank(CaseVerdict::Timeout));
        assert!(rank(CaseVerdict::Timeout) > rank(CaseVerdict::Raised));
        assert!(rank(CaseVerdict::Raised) > rank(CaseVerdict::Wrong));
        assert_eq!(
            status_of(CaseVerdict::Wrong),
            (ExecStatus::Fail, Some(Fingerprint::Logic))
        );
        assert_eq!(
            status_of(CaseVerdict::Syntax),
            (ExecStatus::Syntax, Some(Fingerprint::Syntax))
        );
        assert_eq!(status_of(CaseVerdict::Infra), (ExecStatus::Infra, None));
        assert!(rank(CaseVerdict::Infra) > rank(CaseVerdict::Syntax));
    }

    #[test]
    fn addresses_are_blanked() {
        assert_eq!(
            without_addresses("<m.Yes object at 0x7fae03775c90> and <f at 0x1>"),
            "<m.Yes object at 0x...> and <f at 0x...>"
        );
        assert_eq!(without_addresses("at 0x, plain"), "at 0x, plain");
    }
}
