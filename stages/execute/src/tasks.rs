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
//! `syntax`, `runtime` (it broke while running) or `logic` (it ran and was wrong).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use schemas::{FunctionTask, Reference, TestCase};

use crate::backend::{ExecError, Limits};
use crate::batch::Batch;
use crate::protocol::{Call, Isolation, Outcome, Request, Status, Target};
use crate::value::{Tolerance, Value};

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
        .filter(|t| t.status == "ok")
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

/// The expectation of a case; `Err` when its row holds neither a value nor an exception.
pub fn expected_of(case: &TestCase) -> Result<Expected, String> {
    if let Some(e) = &case.expected_exception {
        return Ok(Expected::Raises(e.clone()));
    }
    let json = case
        .expected_json
        .as_deref()
        .ok_or_else(|| format!("case {} records no expected value", case.case_id))?;
    serde_json::from_str(json)
        .map(Expected::Value)
        .map_err(|e| format!("case {}: expected value unreadable: {e}", case.case_id))
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
    /// The process died, printed too much, hit a resource limit, or the harness failed.
    Broken,
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
        Status::Crash | Status::OutputLimit | Status::ResourceLimit | Status::HarnessError => {
            CaseVerdict::Broken
        }
    }
}

/// A solution's run over a task's cases.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// `pass`, `fail`, `error`, `timeout`, `memory`, `syntax` or `sandbox_violation`.
    pub status: &'static str,
    pub cases_passed: i32,
    pub cases_total: i32,
    /// `syntax`, `runtime` or `logic`; `None` on a pass.
    pub fingerprint: Option<&'static str>,
    /// The first failing case's story, capped.
    pub detail: Option<String>,
    /// Seconds the calls took (their own time, as the worker measured it).
    pub seconds: f64,
    /// Per case, how it went (for the stability check).
    pub per_case: Vec<CaseVerdict>,
    /// Per case, the behaviour seen (value or exception type), for the stability check.
    pub behaviour: Vec<String>,
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

/// Runs `source` (imported as [`MODULE`]) over every case of `task` through `batch`.
/// `Err` only when no worker can start.
pub fn judge(
    batch: &mut Batch<'_>,
    source: &str,
    task: &TaskCases,
    opts: &JudgeOptions,
) -> Result<Verdict, ExecError> {
    batch.set_limits(&opts.limits);
    let total = task.cases.len() as i32;
    let mut per_case = Vec::with_capacity(task.cases.len());
    let mut behaviours = Vec::with_capacity(task.cases.len());
    let mut first_failure: Option<(CaseVerdict, String)> = None;
    let mut worst: Option<CaseVerdict> = None;
    let mut seconds = 0.0;
    let mut timeouts = 0;
    let mut isolation = Isolation::default();
    for case in &task.cases {
        let expected = match expected_of(case) {
            Ok(e) => e,
            Err(why) => {
                per_case.push(CaseVerdict::Broken);
                behaviours.push("unreadable case".into());
                first_failure.get_or_insert((CaseVerdict::Broken, why));
                worst = Some(CaseVerdict::Broken);
                continue;
            }
        };
        let skip = timeouts >= opts.max_timeouts || matches!(worst, Some(CaseVerdict::Syntax));
        if skip {
            per_case.push(CaseVerdict::Broken);
            behaviours.push("not run".into());
            continue;
        }
        let req = Request::Call(Call {
            target: Target::Source {
                name: MODULE.into(),
                text: source.into(),
            },
            function: task.task.entry_point.clone(),
            args: case.args.clone(),
            kwargs: case.kwargs.clone(),
            coverage: false,
            fresh: false,
        });
        let o = batch.run(&req)?;
        isolation = o.isolation;
        seconds += if o.seconds > 0.0 {
            o.seconds
        } else {
            o.wall_seconds
        };
        let v = judge_case(&expected, &o);
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
    }
    let passed = per_case.iter().filter(|v| **v == CaseVerdict::Pass).count() as i32;
    let (status, fingerprint) = match worst {
        None if passed == total => ("pass", None),
        None => ("error", Some("runtime")),
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
        isolation,
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
    }
}

fn status_of(v: CaseVerdict) -> (&'static str, Option<&'static str>) {
    match v {
        CaseVerdict::Pass => ("pass", None),
        CaseVerdict::Wrong => ("fail", Some("logic")),
        CaseVerdict::Raised | CaseVerdict::Broken => ("error", Some("runtime")),
        CaseVerdict::Memory => ("memory", Some("runtime")),
        CaseVerdict::Timeout => ("timeout", Some("runtime")),
        CaseVerdict::SandboxViolation => ("sandbox_violation", Some("runtime")),
        CaseVerdict::Syntax => ("syntax", Some("syntax")),
    }
}

/// The empty solution of a task: its entry point taking anything and doing nothing.
pub fn null_solution(entry_point: &str) -> String {
    format!("def {entry_point}(*args, **kwargs):\n    pass\n")
}

/// The interpreter and preloaded modules each task's code runs with: the tools' interpreter
/// for tasks that use only the standard library, the repository's environment (built or
/// reused from the cache) for those that import third-party packages.
pub struct Interpreters {
    default: PathBuf,
    by_repo: HashMap<String, Result<PathBuf, String>>,
    needs: BTreeMap<String, BTreeSet<String>>,
    third_party: HashMap<String, bool>,
}

/// Where a task's code runs.
pub type Placement = Result<(PathBuf, Vec<String>), String>;

impl Interpreters {
    /// Reads `references` for the tasks' functions and builds (or finds in the cache) an
    /// environment per repository whose tasks need third-party packages. With `cfg` `None`
    /// no environment is built and such tasks get an error.
    pub fn prepare(
        dir: &Path,
        tasks: &[&FunctionTask],
        default: PathBuf,
        cfg: Option<crate::env::EnvConfig>,
    ) -> anyhow::Result<Interpreters> {
        let wanted: BTreeSet<&str> = tasks.iter().map(|t| t.function_id.as_str()).collect();
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
        for t in tasks {
            let mods = crate::env::functions::third_party(
                refs_of
                    .get(t.function_id.as_str())
                    .map_or(&[][..], Vec::as_slice),
            );
            third_party.insert(t.task_id.clone(), !mods.is_empty());
            if !mods.is_empty() {
                needs.entry(t.repo_id.clone()).or_default().extend(mods);
            }
        }
        let by_repo = match cfg {
            Some(cfg) => crate::env::functions::interpreters(dir, &needs, cfg)?,
            None => needs
                .keys()
                .map(|k| {
                    (
                        k.clone(),
                        Err("no environment built (--no-envs)".to_string()),
                    )
                })
                .collect(),
        };
        Ok(Interpreters {
            default,
            by_repo,
            needs,
            third_party,
        })
    }

    /// The interpreter and preloaded modules for `task`, or why it has none.
    pub fn for_task(&self, task: &FunctionTask) -> Placement {
        if !self
            .third_party
            .get(&task.task_id)
            .copied()
            .unwrap_or(false)
        {
            return Ok((self.default.clone(), Vec::new()));
        }
        let preload = self
            .needs
            .get(&task.repo_id)
            .map(|m| m.iter().cloned().collect())
            .unwrap_or_default();
        self.by_repo
            .get(&task.repo_id)
            .cloned()
            .unwrap_or_else(|| Err("no environment".into()))
            .map(|p| (p, preload))
    }
}

/// Parses `--shard i/n` (1 <= i <= n) into `(i, n)`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let shard: schemas::cli::Shard = s.parse().map_err(|e| format!("--shard {e}"))?;
    Ok((shard.index, shard.count))
}

/// Seconds since `t0`.
pub fn since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ExceptionInfo;

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
        assert_eq!(status_of(CaseVerdict::Wrong), ("fail", Some("logic")));
        assert_eq!(status_of(CaseVerdict::Syntax), ("syntax", Some("syntax")));
    }

    #[test]
    fn addresses_are_blanked() {
        assert_eq!(
            without_addresses("<m.Yes object at 0x7fae03775c90> and <f at 0x1>"),
            "<m.Yes object at 0x...> and <f at 0x...>"
        );
        assert_eq!(without_addresses("at 0x, plain"), "at 0x, plain");
    }

    #[test]
    fn shards_parse() {
        assert_eq!(parse_shard("2/4"), Ok((2, 4)));
        assert!(parse_shard("0/4").is_err());
        assert!(parse_shard("5/4").is_err());
        assert!(parse_shard("1").is_err());
    }
}
