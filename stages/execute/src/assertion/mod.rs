//! The assertion family (`assertion_tasks`, written by `mask`): a real assertion of a
//! repository test, its expected value masked, the answer recorded by execution on the
//! original program or on a mutated variant of it.
//!
//! - [`find`]: the candidate assertions of a test file and the rewritten test files that
//!   record a subject's value (`__freshbench_capture__`, installed by the runner when a
//!   pytest request asks for `capture`) or check an answer;
//! - [`record`]: one test run with its candidates captured, on a program (the repository,
//!   or the repository with one mutated file), as `mask` records values and `--validate`
//!   records them again;
//! - [`judge`]: an answer's verdict. A value answer is parsed as a Python literal by
//!   [`execution::literal`] (no eval on the host) and compared with the recorded value by
//!   [`Value::matches`] (kind `approx`: within pytest's default tolerance); an answer that
//!   is no literal (`Money(1250)`), or a literal for a value that is an object, is put into
//!   the assertion (`(X) == (answer)`) and that one test run on the task's program, where
//!   Python's `==` decides as the test itself would. A `raises` answer is the exception
//!   type's name (`ValueError`, or a dotted suffix of the qualified name). A verify answer
//!   is `True` or `False`.
//! - [`validate`]: the value recorded again twice (hash seeds 0 and 1) must be the row's
//!   (`unstable` otherwise: a set's order under another hash seed, say, when the test
//!   turned it into a list); the oracle answer passes; `None` fails; on a mutated variant
//!   the original program's value fails (so that a memorized answer is wrong).

pub mod find;

use std::time::Duration;

use schemas::{
    AssertionForm, AssertionKind, AssertionTask, ExecStatus, Family, Fingerprint, Isolation,
    Validation, ValidationStatus,
};

use crate::completion::Judges;
use execution::backend::ExecError;
use execution::protocol::{Outcome, Overlay, PytestRun, Request, Status};
use execution::value::{Tolerance, Value};

pub use find::{Candidate, PLACEHOLDER};

/// pytest.approx's default tolerance (relative 1e-6, absolute 1e-12).
pub const APPROX: Tolerance = Tolerance {
    rel: 1e-6,
    abs: 1e-12,
};

/// The tolerance of a kind's comparison.
pub fn tolerance(kind: AssertionKind) -> Tolerance {
    if kind == AssertionKind::Approx {
        APPROX
    } else {
        Tolerance::default()
    }
}

/// The assertion tasks of a dataset (none when the table is absent).
pub fn load(dir: &std::path::Path) -> anyhow::Result<Vec<AssertionTask>> {
    use anyhow::Context as _;
    if !schemas::table_exists::<AssertionTask>(dir) {
        return Ok(Vec::new());
    }
    schemas::read_table(dir).context("reading the assertion tasks mask wrote")
}

/// The program a test runs on: the repository, with one mutated file or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program<'a> {
    /// `(path, whole text)` of the mutated file.
    pub mutated: Option<(&'a str, &'a str)>,
}

impl<'a> Program<'a> {
    /// The program of a task.
    pub fn of(task: &'a AssertionTask) -> Program<'a> {
        Program {
            mutated: task
                .mutated_path
                .as_deref()
                .zip(task.mutated_text.as_deref()),
        }
    }
}

/// What one recording run gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Per capture key: how many times the place ran and the first value.
    pub values: std::collections::BTreeMap<String, (u32, Value)>,
    /// The run did not finish, or the rewritten file did not compile: why.
    pub failure: Option<String>,
    pub seconds: f64,
    pub isolation: Isolation,
    /// The harness failed (no worker, a protocol error): nothing is known.
    pub infra: bool,
}

/// Runs test `node_id` of `path` with `test_text` (a rewritten test file) on `program`, in
/// repository `repo_id`'s worker of hash seed `seed`, and returns what its captures recorded.
///
/// # Errors
/// When no worker may start by configuration.
#[allow(clippy::too_many_arguments)]
pub fn record(
    judges: &mut Judges<'_>,
    repo_id: &str,
    node_ids: &[String],
    path: &str,
    test_text: &str,
    program: Program<'_>,
    seed: u32,
    tests_seconds: f64,
) -> Result<Recorded, ExecError> {
    let mut overlay = vec![Overlay {
        path: path.to_string(),
        text: test_text.to_string(),
    }];
    if let Some((p, t)) = program.mutated {
        overlay.push(Overlay {
            path: p.to_string(),
            text: t.to_string(),
        });
    }
    let extra_args = judges
        .worker(repo_id)
        .map(|w| w.pytest_args.clone())
        .unwrap_or_default();
    let req = Request::Pytest(PytestRun {
        rootdir: ".".into(),
        node_ids: node_ids.to_vec(),
        coverage: false,
        extra_args,
        pristine: true,
        overlay,
        capture: true,
        trace: None,
        observe: None,
    });
    let limits = judges.options().limits_for(tests_seconds);
    let o = match judges.run(repo_id, seed, limits, &req)? {
        Ok(o) => o,
        Err(why) => {
            return Ok(Recorded {
                values: std::collections::BTreeMap::new(),
                failure: Some(why),
                seconds: 0.0,
                isolation: Isolation::None,
                infra: true,
            })
        }
    };
    Ok(recorded(&o))
}

fn recorded(o: &Outcome) -> Recorded {
    let failure = match o.status {
        Status::Ok => None,
        s => Some(crate::env::cap_tail(
            &format!(
                "status {}{}{}",
                s.as_str(),
                o.detail
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default(),
                o.exception
                    .as_ref()
                    .map(|e| format!("; {}: {}", e.type_name, e.message))
                    .unwrap_or_default()
            ),
            1500,
        )),
    };
    Recorded {
        values: o
            .captures
            .iter()
            .map(|c| (c.key.clone(), (c.count, c.value.clone())))
            .collect(),
        failure,
        seconds: o.wall_seconds,
        isolation: o.isolation,
        infra: o.status == Status::HarnessError,
    }
}

/// The candidate a task was made from, found again in its test file, with every candidate
/// of its test (itself among them: what a recording run captures).
pub fn candidate_of(task: &AssertionTask, test_text: &str) -> Option<(Candidate, Vec<Candidate>)> {
    let mut parser = find::parser();
    let mine: Vec<Candidate> = find::candidates(&mut parser, &task.path, test_text)
        .into_iter()
        .filter(|c| c.node_id == task.test_node_id)
        .collect();
    let me = mine
        .iter()
        .find(|c| c.target == (task.start_byte as usize, task.end_byte as usize))?
        .clone();
    Some((me, mine))
}

/// An answer's verdict on an assertion task.
#[derive(Debug, Clone, PartialEq)]
pub struct AssertionVerdict {
    pub status: ExecStatus,
    pub fingerprint: Option<Fingerprint>,
    pub detail: Option<String>,
    pub seconds: f64,
    pub isolation: Isolation,
}

impl AssertionVerdict {
    fn of(status: ExecStatus, detail: Option<String>) -> AssertionVerdict {
        AssertionVerdict {
            status,
            fingerprint: match status {
                ExecStatus::Pass | ExecStatus::Infra => None,
                ExecStatus::Fail => Some(Fingerprint::Logic),
                ExecStatus::Syntax => Some(Fingerprint::Syntax),
                _ => Some(Fingerprint::Runtime),
            },
            detail,
            seconds: 0.0,
            isolation: Isolation::None,
        }
    }
}

/// A verify answer read as a truth value (`True`/`False`, any case; anything else: none).
pub fn truth(answer: &str) -> Option<bool> {
    match answer
        .trim()
        .trim_end_matches('.')
        .to_ascii_lowercase()
        .as_str()
    {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Whether an exception type name answers a `raises` task whose value is `qualname`: the
/// whole qualified name or a dotted suffix of it (`ParseError`, `errors.ParseError`).
pub fn names_exception(answer: &str, qualname: &str) -> bool {
    let a = answer.trim();
    !a.is_empty()
        && a.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
        && (a == qualname || qualname.ends_with(&format!(".{a}")))
}

/// Judges `answer` on `task` (see the module doc); runs its test only when a value answer
/// is no literal, or the value is an object.
///
/// # Errors
/// When no worker may start by configuration.
pub fn judge(
    judges: &mut Judges<'_>,
    task: &AssertionTask,
    answer: &str,
) -> Result<AssertionVerdict, ExecError> {
    use AssertionVerdict as V;
    let expected: Value = match serde_json::from_str(&task.value_json) {
        Ok(v) => v,
        Err(e) => {
            return Ok(V::of(
                ExecStatus::Infra,
                Some(format!("the task's recorded value does not read: {e}")),
            ))
        }
    };
    if task.form == AssertionForm::Verify {
        let want = truth(&task.answer);
        return Ok(match truth(answer) {
            Some(t) if Some(t) == want => V::of(ExecStatus::Pass, None),
            Some(t) => V::of(
                ExecStatus::Fail,
                Some(format!(
                    "answered {}, the assertion {}",
                    if t { "True" } else { "False" },
                    if t { "fails" } else { "holds" }
                )),
            ),
            None => V::of(
                ExecStatus::Fail,
                Some(format!(
                    "not True or False: {}",
                    crate::env::cap_tail(answer, 200)
                )),
            ),
        });
    }
    if task.kind == AssertionKind::Raises {
        let Value::Str(qualname) = &expected else {
            return Ok(V::of(
                ExecStatus::Infra,
                Some("a raises task's value is not a type name".into()),
            ));
        };
        return Ok(if names_exception(answer, qualname) {
            V::of(ExecStatus::Pass, None)
        } else {
            V::of(
                ExecStatus::Fail,
                Some(format!(
                    "answered {}, raised {qualname}",
                    crate::env::cap_tail(answer.trim(), 200)
                )),
            )
        });
    }
    let literal = execution::literal::parse_literal(answer);
    if let Ok(v) = &literal {
        if v.matches(&expected, tolerance(task.kind)) {
            return Ok(V::of(ExecStatus::Pass, None));
        }
        if !has_object(&expected) {
            return Ok(V::of(
                ExecStatus::Fail,
                Some(format!(
                    "answered {}, the value is {}",
                    crate::env::cap_tail(answer.trim(), 300),
                    crate::env::cap_tail(&task.value_python, 300)
                )),
            ));
        }
    }
    check_in_test(judges, task, answer)
}

fn has_object(v: &Value) -> bool {
    match v {
        Value::Object { .. } => true,
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) | Value::Frozenset(xs) => {
            xs.iter().any(has_object)
        }
        Value::Iter { items, .. } => items.iter().any(has_object),
        Value::Dict(kv) => kv.iter().any(|(k, v)| has_object(k) || has_object(v)),
        _ => false,
    }
}

/// The text of a task's test file, from its repository's worker.
fn test_file(judges: &Judges<'_>, task: &AssertionTask) -> Option<String> {
    judges
        .worker(&task.repo_id)
        .and_then(|w| w.test_sources.get(&task.path))
        .cloned()
}

/// The task's test file as its value was recorded: every candidate assertion of its test
/// turned into a capture (line numbers kept), so that an earlier assertion a mutant
/// changes does not stop the test before this one. None: no worker or no recorded test
/// file for its repository, or the assertion is no longer in it.
pub fn recording_text(judges: &Judges<'_>, task: &AssertionTask) -> Option<String> {
    let source = test_file(judges, task)?;
    let (_, same) = candidate_of(task, &source)?;
    Some(find::capture_text(
        &source,
        &same.iter().collect::<Vec<_>>(),
    ))
}

/// The answer put into the assertion, that test run on the task's program.
fn check_in_test(
    judges: &mut Judges<'_>,
    task: &AssertionTask,
    answer: &str,
) -> Result<AssertionVerdict, ExecError> {
    use AssertionVerdict as V;
    let Some(source) = test_file(judges, task) else {
        return Ok(V::of(
            ExecStatus::Infra,
            Some(format!(
                "no worker or no test file {} for the task's repository",
                task.path
            )),
        ));
    };
    let Some((cand, same)) = candidate_of(task, &source) else {
        return Ok(V::of(
            ExecStatus::Infra,
            Some("the task's assertion is no longer in its test file".into()),
        ));
    };
    let same: Vec<&Candidate> = same.iter().collect();
    let answer = answer.trim();
    if answer.is_empty() {
        return Ok(V::of(ExecStatus::Fail, Some("no answer".into())));
    }
    let text = find::check_text(&source, &same, &cand, answer);
    if !find::parses(&mut find::parser(), &text) {
        return Ok(V::of(
            ExecStatus::Syntax,
            Some(format!(
                "the answer is no Python expression: {}",
                crate::env::cap_tail(answer, 200)
            )),
        ));
    }
    let r = record(
        judges,
        &task.repo_id,
        std::slice::from_ref(&task.test_node_id),
        &task.path,
        &text,
        Program::of(task),
        0,
        task.tests_seconds,
    )?;
    let mut v = match (r.infra, r.values.get(&cand.key())) {
        (true, _) => V::of(ExecStatus::Infra, r.failure.clone()),
        (false, Some((_, Value::Bool(true)))) => V::of(ExecStatus::Pass, None),
        (false, Some((_, other))) => V::of(
            ExecStatus::Fail,
            Some(format!(
                "answered {}: `==` gives {}",
                crate::env::cap_tail(answer, 300),
                other.canonical()
            )),
        ),
        (false, None) => V::of(
            ExecStatus::Error,
            Some(format!(
                "the answer put into the assertion did not evaluate: {}",
                r.failure.clone().unwrap_or_else(|| "it raised".into())
            )),
        ),
    };
    v.seconds = r.seconds;
    v.isolation = r.isolation;
    Ok(v)
}

/// The hash of what makes an assertion task's validation.
pub fn validation_hash(task: &AssertionTask, where_: &str) -> String {
    schemas::id::content_id(&[
        b"validation/assertion/1",
        crate::BUILD_ID.as_bytes(),
        task.task_id.as_bytes(),
        task.value_json.as_bytes(),
        task.original_json.as_bytes(),
        task.answer.as_bytes(),
        task.mutated_text.as_deref().unwrap_or("").as_bytes(),
        where_.as_bytes(),
    ])
}

/// Validates one assertion task (see the module doc).
///
/// # Errors
/// When no worker may start by configuration.
pub fn validate(
    judges: &mut Judges<'_>,
    task: &AssertionTask,
    input_hash: &str,
) -> Result<Validation, ExecError> {
    let mut row = Validation {
        task_id: task.task_id.clone(),
        family: Family::Assertion,
        original_passes: false,
        null_fails: false,
        stable: false,
        status: ValidationStatus::Invalid,
        valid: false,
        cases: 1,
        original_seconds: 0.0,
        mutants_total: None,
        mutants_killed: None,
        reason: None,
        isolation: Isolation::None,
        input_hash: input_hash.to_string(),
    };
    match validate_into(judges, task, &mut row)? {
        Check::Valid => {
            row.status = ValidationStatus::Valid;
            row.valid = true;
        }
        Check::Invalid(why) => row.reason = Some(why),
        Check::Infra(why) => {
            row.status = ValidationStatus::Infra;
            row.reason = Some(format!("infra: {why}"));
        }
    }
    Ok(row)
}

enum Check {
    Valid,
    Invalid(String),
    Infra(String),
}

/// The checks of [`validate`], filling `row`'s flags as they pass.
fn validate_into(
    judges: &mut Judges<'_>,
    task: &AssertionTask,
    row: &mut Validation,
) -> Result<Check, ExecError> {
    let Some(source) = test_file(judges, task) else {
        return Ok(Check::Infra(
            "no worker for the task's repository, or its test file is not recorded".into(),
        ));
    };
    let Some((cand, same)) = candidate_of(task, &source) else {
        return Ok(Check::Invalid(
            "original_fails: the assertion is no longer in its test file".into(),
        ));
    };
    let Ok(expected) = serde_json::from_str::<Value>(&task.value_json) else {
        return Ok(Check::Infra("the recorded value does not read".into()));
    };
    let text = find::capture_text(&source, &same.iter().collect::<Vec<_>>());
    let ids = std::slice::from_ref(&task.test_node_id);
    let program = Program::of(task);
    let a = record(
        judges,
        &task.repo_id,
        ids,
        &task.path,
        &text,
        program,
        0,
        task.tests_seconds,
    )?;
    if a.infra {
        return Ok(Check::Infra(a.failure.unwrap_or_default()));
    }
    row.original_seconds = a.seconds;
    row.isolation = a.isolation;
    let key = cand.key();
    let tol = tolerance(task.kind);
    let Some(first) = a.values.get(&key).map(|(_, v)| v.clone()) else {
        return Ok(Check::Invalid(format!(
            "original_fails: the test did not reach the assertion ({})",
            a.failure.unwrap_or_else(|| "an exception before it".into())
        )));
    };
    judges.set_tight_wall(Some(Duration::from_secs_f64(3.0 * a.seconds + 3.0)));
    let b = record(
        judges,
        &task.repo_id,
        ids,
        &task.path,
        &text,
        program,
        1,
        task.tests_seconds,
    );
    judges.set_tight_wall(None);
    let b = b?;
    if b.infra {
        return Ok(Check::Infra(b.failure.unwrap_or_default()));
    }
    let second = b.values.get(&key).map(|(_, v)| v.clone());
    if !(first.is_stable() && second.as_ref().is_some_and(|s| s.matches(&first, tol))) {
        return Ok(Check::Invalid(format!(
            "unstable: the value was {} with PYTHONHASHSEED 0, then {}",
            first.canonical(),
            second.map_or_else(|| "not reached".into(), |v| v.canonical())
        )));
    }
    row.stable = true;
    if !first.matches(&expected, tol) {
        return Ok(Check::Invalid(format!(
            "original_fails: the value is now {}, the task says {}",
            first.canonical(),
            expected.canonical()
        )));
    }
    if task.form == AssertionForm::Verify {
        let holds = task.claim.as_deref() == Some(task.value_python.as_str());
        if truth(&task.answer) != Some(holds) {
            return Ok(Check::Invalid(format!(
                "original_fails: the claim {} {} but the task's answer is {}",
                task.claim.as_deref().unwrap_or("(none)"),
                if holds { "holds" } else { "does not hold" },
                task.answer
            )));
        }
    }
    let oracle = judge(judges, task, &task.answer)?;
    if oracle.status.is_infra() {
        return Ok(Check::Infra(oracle.detail.unwrap_or_default()));
    }
    if oracle.status != ExecStatus::Pass {
        return Ok(Check::Invalid(format!(
            "original_fails: the task's answer {} is judged {} ({})",
            crate::env::cap_tail(&task.answer, 200),
            oracle.status,
            oracle.detail.unwrap_or_default()
        )));
    }
    row.original_passes = true;
    let null = judge(judges, task, "None")?;
    if null.status.is_infra() {
        return Ok(Check::Infra(null.detail.unwrap_or_default()));
    }
    if null.status == ExecStatus::Pass {
        return Ok(Check::Invalid("null_passes: the answer None passes".into()));
    }
    row.null_fails = true;
    if task.mutated {
        let answer = match memorized_answer(task) {
            Ok(a) => a,
            Err(e) => {
                return Ok(Check::Infra(format!(
                    "the original value does not render: {e}"
                )))
            }
        };
        let m = judge(judges, task, &answer)?;
        if m.status.is_infra() {
            return Ok(Check::Infra(m.detail.unwrap_or_default()));
        }
        if m.status == ExecStatus::Pass {
            return Ok(Check::Invalid(
                "memorized_passes: the original program's value passes on the mutated variant"
                    .into(),
            ));
        }
    }
    Ok(Check::Valid)
}

/// What a model that memorized the repository answers: the original program's value
/// (verify form: whether the claim is that value).
///
/// # Errors
/// When the recorded original value does not render.
pub fn memorized_answer(task: &AssertionTask) -> Result<String, schemas::tagged::TaggedError> {
    let memorized =
        schemas::tagged::assertion_python(&task.original_json, task.kind == AssertionKind::Raises)?;
    Ok(if task.form == AssertionForm::Verify {
        let claim_true = task.claim.as_deref() == Some(memorized.as_str());
        (if claim_true { "True" } else { "False" }).to_string()
    } else {
        memorized
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_answers_and_exception_names() {
        assert_eq!(truth(" True\n"), Some(true));
        assert_eq!(truth("false."), Some(false));
        assert_eq!(truth("None"), None);
        assert_eq!(
            truth("yes"),
            None,
            "solve's cleaning maps yes/no; the judge is strict"
        );
        assert!(names_exception("ValueError", "ValueError"));
        assert!(names_exception("ParseError", "pkg.errors.ParseError"));
        assert!(names_exception(
            "errors.ParseError",
            "pkg.errors.ParseError"
        ));
        assert!(!names_exception("Error", "pkg.errors.ParseError"));
        assert!(!names_exception("ValueError()", "ValueError"));
        assert!(!names_exception("", "ValueError"));
        assert!(!names_exception("pkg..ParseError", "pkg..ParseError"));
    }

    #[test]
    fn tolerance_by_kind_and_objects_found_inside() {
        let a = Value::Float(0.1 + 0.2);
        let b = Value::Float(0.3 + 1e-8);
        assert!(!b.matches(&a, tolerance(AssertionKind::Equal)));
        assert!(b.matches(&a, tolerance(AssertionKind::Approx)));
        let obj = Value::Object {
            type_name: "m.Money".into(),
            repr: "Money(1)".into(),
        };
        assert!(has_object(&Value::Dict(vec![(
            Value::str("k"),
            Value::List(vec![obj])
        )])));
        assert!(!has_object(&Value::Set(vec![Value::int(1)])));
    }
}
