//! Traced executions of a task, through execute's workers: each unit (a function task's
//! case, a completion or assertion task's test) is run once plainly and once with the
//! tracer, in the same worker, so that the tracer's cost is measured against the same run.
//!
//! - function: the reference solution called on each case (criterion: what it returns);
//! - completion: the judge tests on the original file (criterion: the masked span and the
//!   test statements that depend on it, then everything those depend on);
//! - assertion: the test on the task's program, the original or the mutated variant
//!   (criterion: the assertion statement, with its block for `raises`).

use std::time::Duration;

use execute::evaluate::Workers;
use execute::tasks::{self, Interpreters, TaskCases};
use execution::{
    Criterion, ExecError, Isolation, Limits, Outcome, PytestRun, Request, SliceUnit, Status, Trace,
    UnitStatus,
};
use schemas::{AssertionTask, CompletionTask};

/// How tasks are traced.
#[derive(Debug, Clone, Copy)]
pub struct TraceOptions {
    /// Statement executions per unit before it is `too_large`.
    pub max_events: u64,
    /// Wall-clock and CPU limit of one traced run (a case, or one pytest run).
    pub timeout: Duration,
    /// Address space of the code's process.
    pub memory_bytes: u64,
    /// At most this many of a completion task's judge tests are traced.
    pub max_units: usize,
}

/// What tracing one task (or one program of assertion tasks) gave.
#[derive(Debug, Clone, Default)]
pub struct Traced {
    pub units: Vec<SliceUnit>,
    /// Units planned (cases or tests), also those that gave no report.
    pub planned: usize,
    /// Units left out by `max_units` (judge tests not traced).
    pub left_out: usize,
    /// Seconds of the plain and of the traced runs.
    pub plain_seconds: f64,
    pub trace_seconds: f64,
    /// A traced run went over its time limit.
    pub timed_out: bool,
    /// Why no unit was traced, when none was.
    pub failure: Option<String>,
    /// The harness failed (no worker, no environment): no row, a rerun tries again.
    pub infra: Option<String>,
    pub isolation: Isolation,
}

impl TraceOptions {
    fn limits(&self) -> Limits {
        Limits {
            wall: self.timeout,
            cpu_seconds: self.timeout.as_secs().max(1),
            memory_bytes: self.memory_bytes,
            processes: 128,
            file_size_bytes: 256 << 20,
            open_files: 1024,
            // The slices of many tests come back in the result.
            output_bytes: 64 << 20,
            disk_bytes: 1 << 30,
        }
    }

    fn trace(&self, criterion: Criterion) -> Trace {
        Trace {
            criterion,
            max_events: self.max_events,
        }
    }
}

/// The seconds an outcome reports for the code itself (its wall time when it has none).
fn seconds_of(o: &Outcome) -> f64 {
    if o.seconds > 0.0 {
        o.seconds
    } else {
        o.wall_seconds
    }
}

/// A function task: its reference on every case.
pub fn function(
    workers: &mut Workers<'_>,
    interp: &Interpreters,
    t: &TaskCases,
    opts: &TraceOptions,
) -> Result<Traced, ExecError> {
    let mut out = Traced {
        planned: t.cases.len(),
        ..Traced::default()
    };
    let (python, preload) = match interp.for_task(&t.task) {
        Ok(p) => p,
        Err(why) => {
            out.infra = Some(format!("environment: {why}"));
            return Ok(out);
        }
    };
    let batch = &mut workers.pair(&python, &preload).0;
    batch.set_limits(&opts.limits());
    for case in &t.cases {
        let call =
            |trace: Option<Trace>| tasks::case_request(&t.task.canonical_solution, t, case, trace);
        let plain = match batch.run(&call(None)) {
            Ok(o) => o,
            Err(e) if e.is_configuration() => return Err(e),
            Err(e) => {
                out.infra = Some(e.to_string());
                return Ok(out);
            }
        };
        let traced = match batch.run(&call(Some(opts.trace(Criterion::Return)))) {
            Ok(o) => o,
            Err(e) if e.is_configuration() => return Err(e),
            Err(e) => {
                out.infra = Some(e.to_string());
                return Ok(out);
            }
        };
        take(&mut out, &plain, &traced);
    }
    Ok(out)
}

/// A completion task: its judge tests on the original file.
pub fn completion(
    workers: &mut Workers<'_>,
    t: &CompletionTask,
    opts: &TraceOptions,
) -> Result<Traced, ExecError> {
    let criterion = Criterion::Lines {
        path: t.path.clone(),
        first: t.start_line,
        last: t.end_line,
        forward: true,
    };
    let tests = spread(&t.tests, opts.max_units);
    let mut out = pytest(workers, &t.repo_id, &tests, &[], false, criterion, opts)?;
    out.left_out = t.tests.len() - tests.len();
    Ok(out)
}

/// At most `n` of `items`, evenly spread over them (all of them when there are no more).
pub fn spread<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|i| items[i * items.len() / n].clone()).collect()
}

/// The tasks of one assertion on one program (they share their slice): its test.
pub fn assertion(
    workers: &mut Workers<'_>,
    t: &AssertionTask,
    opts: &TraceOptions,
) -> Result<Traced, ExecError> {
    // The test as mask recorded it (its assertions turned into captures, so that one a
    // mutant changes does not stop the test early), on the task's program.
    let Some(test_text) = execute::assertion::recording_text(&workers.judges, t) else {
        return Ok(Traced {
            planned: 1,
            failure: Some("the assertion is not in its recorded test file".into()),
            ..Traced::default()
        });
    };
    let mut overlay = vec![execution::protocol::Overlay {
        path: t.path.clone(),
        text: test_text,
    }];
    if let (Some(path), Some(text), true) = (&t.mutated_path, &t.mutated_text, t.mutated) {
        overlay.push(execution::protocol::Overlay {
            path: path.clone(),
            text: text.clone(),
        });
    }
    let criterion = Criterion::Lines {
        path: t.path.clone(),
        first: t.line,
        last: t.line,
        forward: false,
    };
    pytest(
        workers,
        &t.repo_id,
        std::slice::from_ref(&t.test_node_id),
        &overlay,
        true,
        criterion,
        opts,
    )
}

/// `tests` of repository `repo_id` (with `overlay` in place; `capture`: the assertion
/// family's capture installed) once plainly and once traced with `criterion`.
pub fn pytest(
    workers: &mut Workers<'_>,
    repo_id: &str,
    tests: &[String],
    overlay: &[execution::protocol::Overlay],
    capture: bool,
    criterion: Criterion,
    opts: &TraceOptions,
) -> Result<Traced, ExecError> {
    let mut out = Traced {
        planned: tests.len(),
        ..Traced::default()
    };
    let extra_args = workers
        .judges
        .worker(repo_id)
        .map(|w| w.pytest_args.clone())
        .unwrap_or_default();
    let run = |trace: Option<Trace>| {
        Request::Pytest(PytestRun {
            rootdir: ".".into(),
            node_ids: tests.to_vec(),
            coverage: false,
            extra_args: extra_args.clone(),
            pristine: true,
            overlay: overlay.to_vec(),
            capture,
            trace,
            observe: None,
        })
    };
    let mut outcomes = Vec::with_capacity(2);
    for trace in [None, Some(opts.trace(criterion))] {
        match workers.judges.run(repo_id, 0, opts.limits(), &run(trace))? {
            Ok(o) => outcomes.push(o),
            Err(why) => {
                out.infra = Some(why);
                return Ok(out);
            }
        }
    }
    take(&mut out, &outcomes[0], &outcomes[1]);
    Ok(out)
}

/// Adds a plain and a traced run of the same unit(s) to `out`.
fn take(out: &mut Traced, plain: &Outcome, traced: &Outcome) {
    out.isolation = traced.isolation;
    out.plain_seconds += seconds_of(plain);
    out.trace_seconds += seconds_of(traced);
    if traced.status == Status::Timeout {
        out.timed_out = true;
    }
    if traced.slices.is_empty() {
        let why = format!(
            "the traced run ended {}{}",
            traced.status.as_str(),
            traced
                .detail
                .as_deref()
                .map(|d| format!(" ({})", cap(d, 200)))
                .unwrap_or_default()
        );
        out.failure.get_or_insert(why);
    }
    out.units.extend(traced.slices.iter().cloned());
}

fn cap(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The status and reason of a task's row from its units (`ok` when one unit is).
pub fn status(t: &Traced) -> (schemas::SliceStatus, Option<String>) {
    use schemas::SliceStatus as S;
    let ok = t
        .units
        .iter()
        .filter(|u| u.status == UnitStatus::Ok)
        .count();
    if ok > 0 {
        let mut notes = Vec::new();
        if ok < t.planned {
            notes.push(format!(
                "{ok} of {} units sliced{}",
                t.planned,
                first_reason(t)
                    .map(|r| format!(" (the others: {r})"))
                    .unwrap_or_default()
            ));
        }
        if t.left_out > 0 {
            notes.push(format!(
                "{} of {} judge tests traced (--max-units)",
                t.planned,
                t.planned + t.left_out
            ));
        }
        return (S::Ok, (!notes.is_empty()).then(|| notes.join("; ")));
    }
    if t.timed_out {
        return (
            S::Timeout,
            Some(
                t.failure
                    .clone()
                    .unwrap_or_else(|| "a traced run timed out".into()),
            ),
        );
    }
    if t.units.iter().any(|u| u.status == UnitStatus::TooLarge) {
        return (S::TooLarge, first_reason(t));
    }
    (
        S::Untraceable,
        first_reason(t)
            .or_else(|| t.failure.clone())
            .or_else(|| Some("nothing was traced".into())),
    )
}

fn first_reason(t: &Traced) -> Option<String> {
    t.units
        .iter()
        .find(|u| u.status != UnitStatus::Ok)
        .and_then(|u| u.reason.clone())
}
