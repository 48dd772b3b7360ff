//! The backend interface: a [`Backend`] starts [`Worker`]s from a [`WorkerSpec`]; a worker
//! answers [`Request`]s under [`Limits`]. The `process` backend ([`crate::ProcessBackend`])
//! and the `docker` backend ([`crate::DockerBackend`]) implement it; callers get one from
//! [`crate::BackendArgs::backend`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::protocol::{Isolation, Outcome, Request};

/// What a worker is made of.
#[derive(Debug, Clone, Default)]
pub struct WorkerSpec {
    /// The Python interpreter (a venv's `bin/python` is fine); `None`: [`default_interpreter`].
    pub interpreter: Option<PathBuf>,
    /// Files and folders the code may read (bound read-only at the same path).
    pub readonly: Vec<PathBuf>,
    /// A tree copied into the worker's private, writable work folder at start (the original
    /// stays read-only and unchanged).
    pub tree: Option<PathBuf>,
    /// `sys.path` entries, relative to the work folder (`"."`, `"src"`).
    pub sys_path: Vec<String>,
    /// Extra environment variables (the environment is otherwise cleared).
    pub env: Vec<(String, String)>,
    /// Trusted modules the runner imports once before serving (e.g. `numpy`), so that calls
    /// do not pay for them again. Never repository code.
    pub preload: Vec<String>,
    /// `PYTHONHASHSEED` of the worker (and of every process it starts): the order of sets
    /// and dicts of strings, and `hash` of str and bytes, depend on it. 0 (the default)
    /// turns hash randomization off; two workers with the same seed order them the same.
    /// It takes precedence over a `PYTHONHASHSEED` in [`WorkerSpec::env`].
    pub hash_seed: u32,
}

impl WorkerSpec {
    /// A worker over a copy of `tree`, with the tree's root on `sys.path`.
    pub fn for_tree(tree: &Path) -> WorkerSpec {
        WorkerSpec {
            tree: Some(tree.to_path_buf()),
            sys_path: vec![".".into()],
            ..WorkerSpec::default()
        }
    }
}

/// `$FRESHBENCH_PYTHON` when set, else the tools' interpreter `.tools/venv/bin/python` of
/// the working directory or of a folder above the running binary (a checkout's
/// `target/debug/execute` finds the checkout's tools), else `python3` found on `PATH`. Found
/// at run time: nothing of the machine that built the binary is baked into it.
pub fn default_interpreter() -> PathBuf {
    if let Some(p) = std::env::var_os("FRESHBENCH_PYTHON").filter(|p| !p.is_empty()) {
        return resolve_dir(Path::new(&p));
    }
    if let Some(found) = find_tool("python") {
        return resolve_dir(&found);
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("python3");
            if p.is_file() {
                return p;
            }
        }
    }
    PathBuf::from("/usr/bin/python3")
}

/// `.tools/venv/bin/NAME` (the tools `make setup` installs) of the working directory, else
/// of the nearest folder above the running binary that has it.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let rel = Path::new(".tools/venv/bin").join(name);
    if rel.exists() {
        return Some(rel);
    }
    std::env::current_exe()
        .ok()?
        .ancestors()
        .skip(1)
        .map(|d| d.join(&rel))
        .find(|p| p.exists())
}

/// `p` with its folder made absolute and free of symlinks and `..`, its last component kept
/// (a venv's `bin/python` must stay itself for Python to find the venv).
pub fn resolve_dir(p: &Path) -> PathBuf {
    match (p.parent().map(std::fs::canonicalize), p.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()),
    }
}

/// Limits on one request (and, at start, on the worker as a whole).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Wall-clock time per request; on expiry the request's processes are killed (and, if the
    /// worker does not answer within a grace period, the whole worker).
    pub wall: Duration,
    /// CPU seconds per request (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
    /// Address space per process (`RLIMIT_AS`).
    pub memory_bytes: u64,
    /// Processes and threads of the worker's sandbox uid (`RLIMIT_NPROC`).
    pub processes: u64,
    /// Largest file the code may write (`RLIMIT_FSIZE`).
    pub file_size_bytes: u64,
    /// Open files per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// stdout plus stderr kept per request; more is status `output_limit`.
    pub output_bytes: u64,
    /// Size of the private work folder and of `/tmp` (tmpfs, namespaces only).
    pub disk_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            wall: Duration::from_secs(10),
            cpu_seconds: 10,
            memory_bytes: 1 << 30,
            processes: 64,
            file_size_bytes: 16 << 20,
            open_files: 256,
            output_bytes: 1 << 20,
            disk_bytes: 128 << 20,
        }
    }
}

/// Why a worker could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("isolation required but not available: {reason} (run where user or root namespaces are allowed, or drop --require-isolation)")]
    IsolationUnavailable { reason: String },
    #[error("namespaces are unavailable and, running as root, the fallback needs a sandbox uid that can reach {path}; refusing to run code as root (use an interpreter and tree outside /root, or allow namespaces)")]
    RootFallback { path: PathBuf },
    #[error("cannot start the Python worker {interpreter}: {source}")]
    Spawn {
        interpreter: PathBuf,
        source: std::io::Error,
    },
    #[error("the Python worker {interpreter} did not start: {detail}")]
    Handshake {
        interpreter: PathBuf,
        detail: String,
    },
    /// Options that cannot work (a bad value, a remote engine asked to mount this machine's
    /// files).
    #[error("{0}")]
    Config(String),
    /// A Docker engine that cannot serve at all (unreachable, no image): said before any work.
    #[error("docker engine {host}: {detail}")]
    DockerSetup { host: String, detail: String },
    /// A container that did not start on one occasion.
    #[error("docker engine {host}: {detail}")]
    Docker { host: String, detail: String },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl ExecError {
    /// Whether no worker may start by this configuration (isolation required but missing,
    /// a refused fallback), which a rerun on the same machine would not change: the stage
    /// stops. Other start failures are the harness's on one occasion (`infra`).
    pub fn is_configuration(&self) -> bool {
        matches!(
            self,
            ExecError::IsolationUnavailable { .. }
                | ExecError::RootFallback { .. }
                | ExecError::Config(_)
                | ExecError::DockerSetup { .. }
        )
    }
}

/// Why a worker could not answer a request; the worker is then dead (the caller starts a
/// new one, as [`crate::run_batch`] does). The request is charged with the failure.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Failure {
    #[error("no answer within {0:?}: the worker was killed")]
    Timeout(Duration),
    #[error("the worker died: {0}")]
    Died(String),
    #[error("the worker broke the protocol (a bug in freshbench): {0}")]
    Protocol(String),
}

/// What a started worker reports about itself.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
pub struct WorkerInfo {
    /// pid of the runner as it sees itself (1 inside a pid namespace).
    pub pid: i64,
    pub uid: i64,
    pub gid: i64,
    /// Python version.
    pub python: String,
    pub executable: String,
    /// coverage.py version, if importable.
    pub coverage: Option<String>,
    /// Network interfaces the worker sees (only `lo`, down, inside a network namespace).
    pub interfaces: Vec<String>,
    /// The work folder, as the worker sees it.
    pub work: String,
}

impl WorkerInfo {
    /// What is shown for a worker that has not said hello.
    pub fn unknown() -> &'static WorkerInfo {
        static NONE: std::sync::OnceLock<WorkerInfo> = std::sync::OnceLock::new();
        NONE.get_or_init(WorkerInfo::default)
    }
}

/// Starts workers.
pub trait Backend: Send + Sync {
    /// Starts one worker; Python is running and has answered when this returns.
    fn start(&self, spec: &WorkerSpec, limits: &Limits) -> Result<Box<dyn Worker>, ExecError>;
    /// `process`, `docker`.
    fn name(&self) -> &'static str;
}

/// A running worker: one Python that serves many requests. Dropping it kills it and
/// everything it started.
pub trait Worker: Send {
    /// The isolation this worker really has.
    fn isolation(&self) -> Isolation;
    /// What the worker reported at start.
    fn info(&self) -> &WorkerInfo;
    /// Runs one request. `Ok` whatever the code did (see [`Outcome::status`]); `Err` when the
    /// worker itself died or hung, after which it must not be used again.
    fn call(&mut self, req: &Request, limits: &Limits) -> Result<Outcome, Failure>;
    /// Resident memory of the worker's processes, where known.
    fn memory_bytes(&self) -> Option<u64>;
}
