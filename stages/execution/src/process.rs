//! The `process` backend: a persistent Python runner ([`RUNNER_FILES`]) started in the sandbox
//! of [`crate::sandbox`], spoken to over its stdin and stdout, one JSON object per line.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::backend::{
    default_interpreter, Backend, ExecError, Limits, Worker, WorkerInfo, WorkerSpec,
};
use crate::protocol::Isolation;
use crate::sandbox::{self, Layout, Plan};
use crate::worker::ProcessWorker;

/// The runner's files (name, text), written into one folder of each worker (bound read-only
/// into its sandbox, or laid into the docker backend's runner image): `runner.py` is started,
/// the others are the modules it imports from beside itself, under private names (see the
/// top of `runner.py`; `slicer.py`: the dynamic slicer that requests with a `trace` use). The
/// one list of what the runner is made of.
pub const RUNNER_FILES: &[(&str, &str)] = &[
    ("runner.py", include_str!("../python/runner.py")),
    ("protocol.py", include_str!("../python/protocol.py")),
    ("guard.py", include_str!("../python/guard.py")),
    ("supervision.py", include_str!("../python/supervision.py")),
    ("child.py", include_str!("../python/child.py")),
    ("values.py", include_str!("../python/values.py")),
    ("slicer.py", include_str!("../python/slicer.py")),
];

/// Writes [`RUNNER_FILES`] into `dir` (which exists).
pub fn write_runner(dir: &Path) -> std::io::Result<()> {
    for (name, text) in RUNNER_FILES {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// How long a worker may take to start and say hello.
const START_TIMEOUT: Duration = Duration::from_secs(90);
/// The first sandbox uid; each worker of this process takes the next one.
const UID_BASE: u32 = 60_000;
const UID_SPAN: u32 = 5_000;

/// Options of the process backend.
#[derive(Debug, Clone, Default)]
pub struct ProcessOptions {
    /// Refuse to start a worker without namespaces.
    pub require_isolation: bool,
    /// Do not even try namespaces (to test the fallback).
    pub rlimits_only: bool,
    /// Where worker folders are made (default: the system temporary folder).
    pub temp_root: Option<PathBuf>,
}

/// The folders of each interpreter's installation (its prefixes: a venv and the Python it
/// was made from), probed once per interpreter: what a sandbox must expose for it to run.
#[derive(Default)]
pub(crate) struct PythonDirs(Mutex<HashMap<PathBuf, Vec<PathBuf>>>);

impl PythonDirs {
    pub(crate) fn get(&self, interpreter: &Path) -> Result<Vec<PathBuf>, ExecError> {
        if let Some(d) = self.0.lock().ok().and_then(|m| m.get(interpreter).cloned()) {
            return Ok(d);
        }
        let out = Command::new(interpreter)
            .args([
                "-I",
                "-c",
                "import sys,os;print('\\n'.join({sys.prefix,sys.base_prefix,sys.exec_prefix,sys.base_exec_prefix,os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}))",
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|source| ExecError::Spawn {
                interpreter: interpreter.to_path_buf(),
                source,
            })?;
        if !out.status.success() {
            return Err(ExecError::Handshake {
                interpreter: interpreter.to_path_buf(),
                detail: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        let mut dirs: Vec<PathBuf> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect();
        dirs.sort();
        dirs.dedup();
        if let Ok(mut m) = self.0.lock() {
            m.insert(interpreter.to_path_buf(), dirs.clone());
        }
        Ok(dirs)
    }
}

/// The `process` backend (see [`crate::sandbox`] for the isolation it gives).
pub struct ProcessBackend {
    opts: ProcessOptions,
    python_dirs: PythonDirs,
    /// Why namespaces failed, once they did: later workers do not try again.
    no_namespaces: Mutex<Option<String>>,
}

/// The next sandbox uid to try, shared by every backend of this process.
static NEXT_UID: AtomicU32 = AtomicU32::new(0);

/// A sandbox uid no process of this machine has: each worker gets its own, so that
/// `RLIMIT_NPROC` counts only its processes and killing "every process of the uid" (the
/// fallback's clean-up) reaches nothing else.
fn pick_uid() -> u32 {
    let mut in_use = std::collections::HashSet::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            if let Ok(m) = e.metadata() {
                in_use.insert(std::os::unix::fs::MetadataExt::uid(&m));
            }
        }
    }
    let seed = (std::process::id() * 37) % UID_SPAN;
    for _ in 0..UID_SPAN {
        let n = NEXT_UID.fetch_add(1, Ordering::Relaxed);
        let uid = UID_BASE + (seed + n) % UID_SPAN;
        if !in_use.contains(&uid) {
            return uid;
        }
    }
    UID_BASE + seed
}

impl ProcessBackend {
    pub fn new(opts: ProcessOptions) -> ProcessBackend {
        ProcessBackend {
            opts,
            python_dirs: PythonDirs::default(),
            no_namespaces: Mutex::new(None),
        }
    }

    /// Why namespaces are not used, if they are not.
    pub fn namespaces_unavailable(&self) -> Option<String> {
        if self.opts.rlimits_only {
            return Some("rlimits-only was asked for".into());
        }
        self.no_namespaces.lock().ok().and_then(|g| g.clone())
    }
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ExecError + 'a {
    move |source| ExecError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// Whether this process runs as root (then workers get a sandbox uid of their own).
pub fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Whether every folder on the way to `p` can be crossed by any user.
fn world_reachable(p: &Path) -> bool {
    let Ok(canon) = std::fs::canonicalize(p) else {
        return false;
    };
    canon
        .ancestors()
        .skip(1)
        .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

/// Processes of the current uid (for NPROC without a uid of our own).
fn own_process_count() -> u64 {
    // SAFETY: no preconditions.
    let uid = unsafe { libc::getuid() };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            std::os::unix::fs::MetadataExt::uid(&match e.metadata() {
                Ok(m) => m,
                Err(_) => return false,
            }) == uid
        })
        .count() as u64
}

impl Backend for ProcessBackend {
    fn name(&self) -> &'static str {
        "process"
    }

    fn start(&self, spec: &WorkerSpec, limits: &Limits) -> Result<Box<dyn Worker>, ExecError> {
        let interpreter = spec.interpreter.clone().unwrap_or_else(default_interpreter);
        let interpreter = crate::backend::resolve_dir(&interpreter);
        let python_dirs = self.python_dirs.get(&interpreter)?;
        let reason = self.namespaces_unavailable();
        if reason.is_none() {
            match start_worker(self, &interpreter, &python_dirs, spec, limits, true) {
                Ok(w) => return Ok(w),
                Err(StartError::Namespaces(why)) => {
                    tracing::warn!(reason = %why, "namespaces unavailable: falling back to rlimits only");
                    if let Ok(mut g) = self.no_namespaces.lock() {
                        *g = Some(why);
                    }
                }
                Err(StartError::Other(e)) => return Err(e),
            }
        }
        if self.opts.require_isolation {
            return Err(ExecError::IsolationUnavailable {
                reason: self.namespaces_unavailable().unwrap_or_default(),
            });
        }
        match start_worker(self, &interpreter, &python_dirs, spec, limits, false) {
            Ok(w) => Ok(w),
            Err(StartError::Namespaces(why)) => Err(ExecError::Handshake {
                interpreter,
                detail: why,
            }),
            Err(StartError::Other(e)) => Err(e),
        }
    }
}

enum StartError {
    Namespaces(String),
    Other(ExecError),
}

impl From<ExecError> for StartError {
    fn from(e: ExecError) -> Self {
        StartError::Other(e)
    }
}

#[allow(clippy::too_many_lines)]
fn start_worker(
    backend: &ProcessBackend,
    interpreter: &Path,
    python_dirs: &[PathBuf],
    spec: &WorkerSpec,
    limits: &Limits,
    namespaces: bool,
) -> Result<Box<dyn Worker>, StartError> {
    let t0 = Instant::now();
    let temp_root = backend
        .opts
        .temp_root
        .clone()
        .unwrap_or_else(std::env::temp_dir);
    let base = tempfile::Builder::new()
        .prefix("freshbench-exec-")
        .tempdir_in(&temp_root)
        .map_err(io_err("cannot create a worker folder in", &temp_root))?;
    let basep = base.path().to_path_buf();
    let work = basep.join("work");
    let new_root = basep.join("root");
    let host_tmp = basep.join("tmp");
    let runner_dir = basep.join("runner");
    for d in [&work, &new_root, &host_tmp, &runner_dir] {
        std::fs::create_dir(d).map_err(io_err("cannot create", d))?;
    }
    write_runner(&runner_dir).map_err(io_err("cannot write the runner into", &runner_dir))?;
    std::fs::set_permissions(&runner_dir, std::fs::Permissions::from_mode(0o755))
        .map_err(io_err("cannot set permissions of", &runner_dir))?;
    let runner = runner_dir.join("runner.py");
    std::fs::set_permissions(&basep, std::fs::Permissions::from_mode(0o755))
        .map_err(io_err("cannot set permissions of", &basep))?;
    let log = basep.join("runner.log");
    let log_file = std::fs::File::create(&log).map_err(io_err("cannot create", &log))?;

    let is_root = is_root();
    let uid = pick_uid();
    let sandbox_ids = (uid, uid);
    // Without namespaces, a sandbox uid needs the interpreter and the runner reachable.
    // Without namespaces, root never runs the code itself: the sandbox uid must reach the
    // interpreter, its installation and the tree.
    if is_root && !namespaces {
        let unreachable = std::iter::once(interpreter)
            .chain(python_dirs.iter().map(PathBuf::as_path))
            .chain(spec.tree.as_deref())
            .find(|p| !world_reachable(p));
        if let Some(p) = unreachable {
            return Err(StartError::Other(ExecError::RootFallback {
                path: p.to_path_buf(),
            }));
        }
    }
    let ids = is_root.then_some(sandbox_ids);
    let nproc = if ids.is_some() {
        limits.processes + 2
    } else {
        limits.processes + 2 + own_process_count()
    };
    let rlimits = Plan::rlimits(
        nproc,
        limits.memory_bytes,
        limits.file_size_bytes,
        limits.open_files,
    );

    let mut readonly: Vec<PathBuf> = python_dirs.to_vec();
    readonly.extend(spec.readonly.iter().cloned());
    if let Some(t) = &spec.tree {
        readonly.push(t.clone());
    }
    let (scratch, isolation) = if namespaces {
        (PathBuf::from("/tmp"), Isolation::Namespaces)
    } else {
        if let Some((uid, gid)) = ids {
            for d in [&work, &host_tmp] {
                std::os::unix::fs::chown(d, Some(uid), Some(gid))
                    .map_err(io_err("cannot chown", d))?;
            }
        }
        (host_tmp.clone(), Isolation::RlimitsOnly)
    };
    let mut read_roots: Vec<PathBuf> = [
        "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/dev", "/proc",
        "/sys",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    read_roots.extend(readonly.iter().cloned());
    read_roots.push(runner_dir.clone());
    let mut ro_binds = readonly.clone();
    ro_binds.push(runner_dir.clone());

    let mut step_fds = [0i32; 2];
    // SAFETY: a plain pipe2 call on a local array.
    if unsafe { libc::pipe2(step_fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(StartError::Other(ExecError::Io {
            what: "cannot create a pipe for",
            path: basep.clone(),
            source: std::io::Error::last_os_error(),
        }));
    }
    let plan = if namespaces {
        Plan::namespaces(
            &Layout {
                new_root: &new_root,
                work: &work,
                readonly: &ro_binds,
                disk_bytes: limits.disk_bytes,
            },
            rlimits,
            ids,
            step_fds[1],
        )
        .map_err(io_err("cannot plan the sandbox for", &basep))?
    } else {
        Plan::rlimits_only(rlimits, ids, step_fds[1])
    };

    let mut cmd = Command::new(interpreter);
    cmd.arg(&runner)
        .arg("--work")
        .arg(&work)
        .arg("--scratch")
        .arg(&scratch);
    if let Some(t) = &spec.tree {
        cmd.arg("--tree").arg(t);
    }
    for r in &read_roots {
        cmd.arg("--read").arg(r);
    }
    for r in &ro_binds {
        cmd.arg("--readonly").arg(r);
    }
    if namespaces {
        // The folders made inside the sandbox's /tmp to hold read-only binds (a tree under
        // the host's /tmp) are part of no work folder: writes there are refused too.
        let mut skeleton: Vec<&Path> = ro_binds
            .iter()
            .flat_map(|p| p.ancestors().skip(1))
            .filter(|a| a.starts_with(&scratch) && *a != scratch && !work.starts_with(a))
            .collect();
        skeleton.sort();
        skeleton.dedup();
        for a in skeleton {
            cmd.arg("--readonly").arg(a);
        }
    }
    for p in &spec.sys_path {
        cmd.arg("--sys-path").arg(p);
    }
    for m in &spec.preload {
        cmd.arg("--preload").arg(m);
    }
    if namespaces || ids.is_some() {
        cmd.arg("--kill-all");
    }
    cmd.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &work)
        .env("TMPDIR", &scratch)
        .env("LANG", "C.UTF-8")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONNOUSERSITE", "1")
        .env("PYTHONIOENCODING", "utf-8")
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env("PYTHONHASHSEED", spec.hash_seed.to_string())
        .current_dir(&basep)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log_file))
        .process_group(0);
    // SAFETY: `Plan::enter` only makes async-signal-safe system calls on memory prepared
    // above; `plan` outlives the spawn.
    unsafe {
        cmd.pre_exec(move || plan.enter());
    }
    let spawned = cmd.spawn();
    // SAFETY: closing our copy of the write end, then a non-blocking read of the read end.
    let failed_step = unsafe {
        libc::close(step_fds[1]);
        let mut b = [0u8; 1];
        let n = libc::read(step_fds[0], b.as_mut_ptr().cast(), 1);
        libc::close(step_fds[0]);
        (n == 1).then_some(b[0])
    };
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            if let Some(step) = failed_step {
                let why = format!("{}: {e}", sandbox::step_name(step));
                if namespaces {
                    return Err(StartError::Namespaces(why));
                }
                return Err(StartError::Other(ExecError::Handshake {
                    interpreter: interpreter.to_path_buf(),
                    detail: why,
                }));
            }
            return Err(StartError::Other(ExecError::Spawn {
                interpreter: interpreter.to_path_buf(),
                source: e,
            }));
        }
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(StartError::Other(ExecError::Handshake {
            interpreter: interpreter.to_path_buf(),
            detail: "no pipes to the worker (a bug in freshbench)".into(),
        }));
    };
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("execute-worker-reader".into())
        .spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) => return,
                    Ok(_) => {
                        if tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        })
        .map_err(io_err("cannot start a reader thread for", &basep))?;
    let mut worker = ProcessWorker {
        child,
        stdin: Some(stdin),
        lines: rx,
        isolation,
        info: None,
        log,
        kill_uid: if namespaces {
            None
        } else {
            ids.map(|(u, _)| u)
        },
        next_id: 0,
        dead: false,
        _base: base,
    };
    match worker.lines.recv_timeout(START_TIMEOUT) {
        Ok(Ok(line)) => match serde_json::from_str::<WorkerInfo>(&line) {
            Ok(info) => worker.info = Some(info),
            Err(e) => {
                let detail = format!("bad hello {line:?}: {e}; {}", worker.log_tail());
                return Err(handshake_failure(interpreter, detail));
            }
        },
        Ok(Err(e)) => return Err(handshake_failure(interpreter, e.to_string())),
        Err(_) => {
            worker.kill();
            let status = worker
                .child
                .wait()
                .map(|s| s.to_string())
                .unwrap_or_default();
            let detail = format!("{status}; {}", worker.log_tail());
            return Err(handshake_failure(interpreter, detail));
        }
    }
    tracing::debug!(
        isolation = isolation.as_str(),
        ms = t0.elapsed().as_millis(),
        "worker started"
    );
    Ok(Box::new(worker))
}

fn handshake_failure(interpreter: &Path, detail: String) -> StartError {
    StartError::Other(ExecError::Handshake {
        interpreter: interpreter.to_path_buf(),
        detail,
    })
}
