//! Calls through the execute library: the original under coverage ([`Original`]), kept
//! cases again in fresh processes of a worker with another hash seed ([`recheck`]), and
//! mutants against the kept cases ([`kills`]).

use std::collections::BTreeSet;
use std::time::Duration;

use execution::value::Tolerance;
use execution::{Batch, Call, ExecError, Limits, Outcome, Request, Status, Target};

use crate::search::{CallResult, Observed, Runner};

/// The module name a task's source is imported as in the worker.
pub const MODULE: &str = "fb_task";
/// The module name of a mutant.
pub const MUTANT_MODULE: &str = "fb_mutant";

fn request(
    module: &str,
    text: &str,
    function: &str,
    args: &str,
    kwargs: &str,
    coverage: bool,
    fresh: bool,
) -> Request {
    Request::Call(Call {
        target: Target::Source {
            name: module.into(),
            text: text.into(),
        },
        function: function.into(),
        args: args.into(),
        kwargs: kwargs.into(),
        coverage,
        fresh,
        trace: None,
    })
}

/// The result of an outcome.
pub fn result_of(o: &Outcome) -> CallResult {
    match o.status {
        Status::Ok => match &o.value {
            Some(v) => CallResult::Returned {
                value: v.clone(),
                repr: o.repr.clone().unwrap_or_default(),
            },
            None => CallResult::Failed {
                status: "harness_error".into(),
                detail: "ok without a value".into(),
            },
        },
        Status::Exception => match &o.exception {
            Some(e) => CallResult::Raised {
                type_name: e.type_name.clone(),
                message: e.message.clone(),
            },
            None => CallResult::Failed {
                status: "harness_error".into(),
                detail: "exception without details".into(),
            },
        },
        other => CallResult::Failed {
            status: other.as_str().into(),
            detail: o.detail.clone().unwrap_or_default(),
        },
    }
}

/// Whether `got` is the behaviour `expected` recorded: the same value (floats within the
/// tolerance, NaN equal to NaN, order ignored where the type has none), or an exception of
/// the same type. Judged here, in Rust, out of the code's reach.
pub fn same_behaviour(expected: &CallResult, got: &CallResult) -> bool {
    match (expected, got) {
        (CallResult::Returned { value: e, .. }, CallResult::Returned { value: g, .. }) => {
            g.matches(e, Tolerance::default())
        }
        (CallResult::Raised { type_name: e, .. }, CallResult::Raised { type_name: g, .. }) => {
            e == g
        }
        _ => false,
    }
}

/// The original function under coverage, through a worker's batch.
pub struct Original<'b, 'w> {
    pub batch: &'b mut Batch<'w>,
    pub text: &'b str,
    pub function: &'b str,
    /// The first worker failure that was not the code's doing (no worker could start).
    pub error: Option<ExecError>,
    /// Longest call seen, seconds (sets the mutants' timeout).
    pub slowest: f64,
}

impl Runner for Original<'_, '_> {
    fn call(&mut self, args: &str, kwargs: &str) -> Observed {
        let req = request(MODULE, self.text, self.function, args, kwargs, true, false);
        match self.batch.run(&req) {
            Ok(o) => {
                self.slowest = self.slowest.max(o.seconds);
                let (hit, all_arcs) = match &o.coverage {
                    Some(c) => (
                        c.arcs.iter().copied().collect(),
                        Some(c.function_arcs.iter().copied().collect::<BTreeSet<_>>()),
                    ),
                    None => (BTreeSet::new(), None),
                };
                Observed {
                    result: result_of(&o),
                    arcs: hit,
                    all_arcs,
                }
            }
            Err(e) => {
                let detail = e.to_string();
                self.error.get_or_insert(e);
                Observed {
                    result: CallResult::Failed {
                        status: "no_worker".into(),
                        detail,
                    },
                    arcs: BTreeSet::new(),
                    all_arcs: None,
                }
            }
        }
    }
}

/// Runs each case again, each in a fresh process of `batch` (a worker with another hash
/// seed), and returns, per case, whether it behaved the same.
pub fn recheck(
    batch: &mut Batch<'_>,
    text: &str,
    function: &str,
    cases: &[(String, String, CallResult)],
) -> Result<Vec<bool>, ExecError> {
    let mut out = Vec::with_capacity(cases.len());
    for (args, kwargs, expected) in cases {
        let req = request(MODULE, text, function, args, kwargs, false, true);
        let o = batch.run(&req)?;
        out.push(same_behaviour(expected, &result_of(&o)));
    }
    Ok(out)
}

/// The first case that tells the mutant from the original: a case whose behaviour differs
/// (another value or exception, or a crash or timeout) kills it.
pub fn kills(
    batch: &mut Batch<'_>,
    mutant: &str,
    function: &str,
    cases: &[(String, String, CallResult)],
    base: &Limits,
    slowest: f64,
) -> Result<Option<usize>, ExecError> {
    // A mutant may loop forever where the original returned at once: give it ten times the
    // original's slowest call, at least a quarter of a second, at most the usual limit. (The
    // runner ends a call that overruns and reports it; the worker lives on.)
    let secs = (slowest * 10.0).clamp(0.25, base.wall.as_secs_f64().max(0.25));
    batch.set_limits(&Limits {
        wall: Duration::from_secs_f64(secs),
        cpu_seconds: (secs.ceil() as u64).max(1),
        ..*base
    });
    let mut killed = None;
    for (i, (args, kwargs, expected)) in cases.iter().enumerate() {
        let req = request(MUTANT_MODULE, mutant, function, args, kwargs, false, false);
        match batch.run(&req) {
            Ok(o) => {
                if !same_behaviour(expected, &result_of(&o)) {
                    killed = Some(i);
                    break;
                }
            }
            Err(e) => {
                batch.set_limits(base);
                return Err(e);
            }
        }
    }
    batch.set_limits(base);
    Ok(killed)
}
