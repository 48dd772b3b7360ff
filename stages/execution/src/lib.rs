//! `execution`: freshbench's execution library. Every stage that runs untrusted code
//! (repository code, synthesized tests, model answers) does it through this crate, never by
//! starting processes of its own.
//!
//! A [`Backend`] starts [`Worker`]s: one persistent Python runner (`python/runner.py`) per
//! batch that serves many [`Request`]s (`call` a function with literal arguments, optionally
//! measuring its branch arcs; `pytest` node ids with the lines each test executed). No code
//! runs in the runner itself: the calls of one target share a process forked from it (a
//! fresh one per call with [`Call::fresh`]), each pytest request gets one, and any call that
//! misbehaves ends its process. The worker reports an [`Outcome`] per request. [`run_batch`]
//! charges a request that kills or hangs its worker with the failure and goes on with a new
//! worker. Judging is done in Rust ([`Outcome::passes`], [`Value::same`]), out of the
//! candidate's reach.
//!
//! Two backends implement the interface, and callers never name one: they take a
//! [`BackendArgs`] (`--backend process|docker`, `--docker-host`, the image, the container
//! limits) and call [`BackendArgs::backend`].
//! - `process` ([`ProcessBackend`]): the runner in fresh Linux namespaces, or with rlimits
//!   only where namespaces are refused ([`sandbox`] describes both);
//! - `docker` ([`DockerBackend`]): the runner in a container per worker, started through the
//!   Docker Engine API (bollard) on one or several engines, from an image freshbench builds
//!   itself without a registry ([`image`]).

pub mod args;
pub mod backend;
pub mod batch;
pub mod docker;
pub mod image;
pub mod literal;
pub mod process;
pub mod protocol;
pub mod sandbox;
pub mod value;
pub mod worker;

pub use args::{BackendArgs, BackendKind};
pub use backend::{
    default_interpreter, Backend, ExecError, Failure, Limits, Worker, WorkerInfo, WorkerSpec,
};
pub use batch::{run_batch, Batch};
pub use docker::{DockerBackend, DockerOptions};
pub use process::{ProcessBackend, ProcessOptions};
pub use protocol::{
    ArcCoverage, Call, Criterion, ExceptionInfo, Isolation, Outcome, PytestRun, Request, Role,
    SliceInput, SliceStatement, SliceUnit, Status, Target, TestReport, Trace, UnitStatus,
};
pub use value::{Tolerance, Value};
pub use worker::ProcessWorker;
