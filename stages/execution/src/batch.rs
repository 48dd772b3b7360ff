//! Running requests through one worker at a time: a request that kills or hangs its worker
//! is charged with the failure, a new worker is started and the batch goes on.

use std::time::Instant;

use crate::backend::{Backend, ExecError, Failure, Limits, Worker, WorkerSpec};
use crate::protocol::{Outcome, Request, Status};

/// A batch in progress: requests go one by one (so a caller can record each outcome as it
/// comes, to resume later) through a worker that is started on the first request and
/// replaced after any request that killed it.
pub struct Batch<'a> {
    backend: &'a dyn Backend,
    spec: WorkerSpec,
    limits: Limits,
    worker: Option<Box<dyn Worker>>,
}

impl<'a> Batch<'a> {
    pub fn new(backend: &'a dyn Backend, spec: &WorkerSpec, limits: &Limits) -> Batch<'a> {
        Batch {
            backend,
            spec: spec.clone(),
            limits: *limits,
            worker: None,
        }
    }

    /// Limits for the requests that follow (a worker is started with the limits of the
    /// first request it serves; per-request limits apply to every later one).
    pub fn set_limits(&mut self, limits: &Limits) {
        self.limits = *limits;
    }

    /// Runs one request. A worker that hangs on it gives the request status `timeout` (or
    /// `harness_error` for a protocol bug) and is replaced for the next one. A worker that
    /// dies on it is replaced and the request run once more on the new one: a second death
    /// charges the request (`crash`), while a first death that does not repeat was the
    /// host's doing (an outside kill, a lost process), not the code's. `Err` only when a
    /// worker cannot be started at all (no interpreter, isolation required but missing).
    pub fn run(&mut self, req: &Request) -> Result<Outcome, ExecError> {
        match self.try_run(req)? {
            Ok(o) => Ok(o),
            Err((Failure::Died(first), _, _)) => {
                tracing::debug!(%first, "the worker died; running the request once more on a new one");
                match self.try_run(req)? {
                    Ok(o) => Ok(o),
                    Err((failure, isolation, wall)) => Ok(Self::charge(&failure, isolation, wall)),
                }
            }
            Err((failure, isolation, wall)) => Ok(Self::charge(&failure, isolation, wall)),
        }
    }

    /// One attempt: the outcome, or the failure that ended the worker.
    #[allow(clippy::type_complexity)] // one private return shape
    fn try_run(
        &mut self,
        req: &Request,
    ) -> Result<
        Result<Outcome, (Failure, crate::protocol::Isolation, std::time::Duration)>,
        ExecError,
    > {
        let worker = match self.worker.as_mut() {
            Some(w) => w,
            None => self
                .worker
                .insert(self.backend.start(&self.spec, &self.limits)?),
        };
        let isolation = worker.isolation();
        let t0 = Instant::now();
        match worker.call(req, &self.limits) {
            Ok(o) => Ok(Ok(o)),
            Err(failure) => {
                tracing::debug!(%failure, "worker lost; the next request starts a new one");
                self.worker = None;
                Ok(Err((failure, isolation, t0.elapsed())))
            }
        }
    }

    fn charge(
        failure: &Failure,
        isolation: crate::protocol::Isolation,
        wall: std::time::Duration,
    ) -> Outcome {
        let status = match failure {
            Failure::Timeout(_) => Status::Timeout,
            Failure::Died(_) => Status::Crash,
            Failure::Protocol(_) => Status::HarnessError,
        };
        Outcome::failed(status, failure.to_string(), isolation, wall)
    }
}

/// Runs every request in order through [`Batch`] and returns one outcome per request.
pub fn run_batch(
    backend: &dyn Backend,
    spec: &WorkerSpec,
    requests: &[Request],
    limits: &Limits,
) -> Result<Vec<Outcome>, ExecError> {
    let mut batch = Batch::new(backend, spec, limits);
    requests.iter().map(|r| batch.run(r)).collect()
}
