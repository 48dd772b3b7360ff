//! A running worker of the `process` backend: requests out on the runner's stdin, answers
//! back on its stdout (read by a thread of its own), and its end (see `kill`).
#![allow(unsafe_code)]

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::backend::{Failure, Limits, Worker, WorkerInfo};
use crate::protocol::{Isolation, Outcome, Request};

/// Beyond a request's wall limit, how long the runner has to report the timeout itself
/// before the whole worker is killed (in every backend).
pub(crate) const GRACE: Duration = Duration::from_secs(3);

/// What the end of a runner's log says, for an error message (every backend's).
pub(crate) fn said(log: &str) -> String {
    let tail: String = log
        .chars()
        .rev()
        .take(2000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if tail.is_empty() {
        "no output from the runner".into()
    } else {
        format!("runner said: {tail}")
    }
}

/// Why a worker gave no answer.
pub(crate) enum NoAnswer {
    Read(std::io::Error),
    Timeout(Duration),
    /// The runner's output ended.
    Ended,
}

impl NoAnswer {
    /// The request's failure; `ended` says how the worker ended, when it did.
    pub(crate) fn failure(self, ended: impl FnOnce() -> String) -> Failure {
        match self {
            NoAnswer::Read(e) => Failure::Died(format!("reading its answer: {e}")),
            NoAnswer::Timeout(t) => Failure::Timeout(t),
            NoAnswer::Ended => Failure::Died(ended()),
        }
    }
}

/// The runner's answer line, waited for within the request's wall limit and [`GRACE`]
/// from `t0` (every backend's).
pub(crate) fn await_answer(
    lines: &Receiver<std::io::Result<String>>,
    limits: &Limits,
    t0: Instant,
) -> Result<String, NoAnswer> {
    match lines.recv_timeout(limits.wall + GRACE) {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(NoAnswer::Read(e)),
        Err(RecvTimeoutError::Timeout) => Err(NoAnswer::Timeout(t0.elapsed())),
        Err(RecvTimeoutError::Disconnected) => Err(NoAnswer::Ended),
    }
}

/// A request as the runner reads it: one JSON line with the request's `id` and limits.
pub(crate) fn encode_request(req: &Request, limits: &Limits, id: u64) -> Result<String, Failure> {
    let mut msg = serde_json::to_value(req).map_err(|e| Failure::Protocol(e.to_string()))?;
    if let Some(obj) = msg.as_object_mut() {
        obj.insert("id".into(), id.into());
        obj.insert(
            "limits".into(),
            serde_json::json!({
                "wall_seconds": limits.wall.as_secs_f64(),
                "cpu_seconds": limits.cpu_seconds,
                "memory_bytes": limits.memory_bytes,
                "file_size_bytes": limits.file_size_bytes,
                "open_files": limits.open_files,
                "output_bytes": limits.output_bytes,
            }),
        );
    }
    let mut line = msg.to_string();
    line.push('\n');
    Ok(line)
}

/// The runner's answer line to request `id`; an answer that is not one, or answers another
/// request, breaks the protocol (the worker must then be ended).
pub(crate) fn decode_answer(answer: &str, id: u64) -> Result<Outcome, Failure> {
    let value: serde_json::Value = serde_json::from_str(answer)
        .map_err(|e| Failure::Protocol(format!("{e} in {answer:.200}")))?;
    if value.get("id").and_then(serde_json::Value::as_u64) != Some(id) {
        return Err(Failure::Protocol(format!(
            "answer to another request: {answer:.200}"
        )));
    }
    serde_json::from_value(value).map_err(|e| Failure::Protocol(format!("{e} in {answer:.300}")))
}

/// A running process-backend worker.
pub struct ProcessWorker {
    pub(crate) child: Child,
    /// `None` once closed (which asks the runner to end its session and exit).
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) lines: Receiver<std::io::Result<String>>,
    pub(crate) isolation: Isolation,
    pub(crate) info: Option<WorkerInfo>,
    pub(crate) log: PathBuf,
    /// Without namespaces, the sandbox uid whose processes die with the worker.
    pub(crate) kill_uid: Option<u32>,
    pub(crate) next_id: u64,
    pub(crate) dead: bool,
    /// The worker's folder on the host (runner script, log; the work folder without
    /// namespaces), removed on drop.
    pub(crate) _base: tempfile::TempDir,
}

impl ProcessWorker {
    pub(crate) fn log_tail(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        said(&s)
    }

    /// The pid (in our namespace) of the Python runner.
    fn runner_pid(&self) -> Option<u32> {
        let pid = self.child.id();
        if self.isolation != Isolation::Namespaces {
            return Some(pid);
        }
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
        children.split_whitespace().next()?.parse().ok()
    }

    pub(crate) fn kill(&mut self) {
        if self.dead {
            return;
        }
        self.dead = true;
        let pid = self.child.id() as libc::pid_t;
        // Without namespaces, a runner that is not busy ends its session and exits when its
        // stdin closes, reaping what it started; then the kills below find nothing.
        if self.isolation != Isolation::Namespaces {
            if let Some(stdin) = self.stdin.take() {
                drop(stdin);
                let t0 = Instant::now();
                while t0.elapsed() < Duration::from_millis(200) {
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
        // Inside namespaces, kill the namespace's init (the runner) first: the kernel then
        // kills and reaps every process of the namespace before the intermediate, which waits
        // for it, exits; so when `wait` returns, nothing of the worker is left.
        let runner = (self.isolation == Isolation::Namespaces)
            .then(|| self.runner_pid())
            .flatten();
        // SAFETY: signalling our own child, its process group, and the runner it waits for.
        unsafe {
            if let Some(r) = runner {
                libc::kill(r as libc::pid_t, libc::SIGKILL);
            } else {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        if let Some(uid) = self.kill_uid {
            kill_all_of_uid(uid);
        }
        let _ = self.child.wait();
    }
}

/// Kills every process of `uid` (a sandbox uid of our own) from a short-lived child.
fn kill_all_of_uid(uid: u32) {
    // SAFETY: the child only makes async-signal-safe calls and exits.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            if libc::setresuid(uid, uid, uid) == 0 {
                libc::kill(-1, libc::SIGKILL);
            }
            libc::_exit(0);
        }
        if pid > 0 {
            let mut st = 0;
            libc::waitpid(pid, &raw mut st, 0);
        }
    }
}

impl Drop for ProcessWorker {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Worker for ProcessWorker {
    fn isolation(&self) -> Isolation {
        self.isolation
    }

    fn info(&self) -> &WorkerInfo {
        self.info.as_ref().unwrap_or_else(|| WorkerInfo::unknown())
    }

    fn call(&mut self, req: &Request, limits: &Limits) -> Result<Outcome, Failure> {
        if self.dead {
            return Err(Failure::Died("the worker was already dead".into()));
        }
        self.next_id += 1;
        let id = self.next_id;
        let line = encode_request(req, limits, id)?;
        let t0 = Instant::now();
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Died("the worker's stdin is closed".into()));
        };
        if let Err(e) = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
        {
            self.kill();
            return Err(Failure::Died(format!(
                "cannot send the request: {e}; {}",
                self.log_tail()
            )));
        }
        let answer = match await_answer(&self.lines, limits, t0) {
            Ok(answer) => answer,
            Err(why) => {
                self.kill();
                return Err(why.failure(|| {
                    let status = self
                        .child
                        .try_wait()
                        .ok()
                        .flatten()
                        .map(|s| s.to_string())
                        .unwrap_or_default();
                    format!("{status}; {}", self.log_tail())
                }));
            }
        };
        let mut outcome = decode_answer(&answer, id).inspect_err(|_| self.kill())?;
        outcome.isolation = self.isolation;
        Ok(outcome)
    }

    fn memory_bytes(&self) -> Option<u64> {
        let pid = self.runner_pid()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }
}
