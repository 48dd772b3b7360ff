//! The process backend's sandbox: what runs in the forked child before Python is executed.
//!
//! # What each mode gives
//!
//! **`namespaces`** (root, or a user allowed to create user namespaces):
//! - new mount, network, IPC, UTS and pid namespaces (plus a user namespace when not root,
//!   mapping only the caller's own uid and gid, `setgroups` denied);
//! - network: a fresh network namespace holds only its own `lo` (brought up, so that code
//!   can reach itself, e.g. a test's local server): no connection to anything else, the
//!   host's loopback included;
//! - files: a new root on a tmpfs (read-only after set-up) reached by `pivot_root`, the old
//!   root unmounted. Visible read-only (bind mounts, `nosuid,nodev`): `/usr`, `/etc`,
//!   `/bin`, `/sbin`, `/lib*`, the interpreter's prefixes (venv and base), the runner script,
//!   the source tree and the files the spec exposes, each at its host path. Writable: a
//!   private tmpfs work folder (the tree's copy; size-limited), a private tmpfs `/tmp` and
//!   `/dev/shm`; `/dev` holds only null, zero, full, random, urandom. Everything else of the
//!   host (its `/tmp`, `/root`, `/home`, `/work`, other repositories) is invisible;
//! - processes: the runner is pid 1 of its pid namespace with a fresh `/proc` (mounted
//!   before `pivot_root`, as a user namespace requires). An intermediate process outside
//!   waits for it. Ending a worker (timeout, drop) kills the runner, the namespace's init:
//!   the kernel then kills and reaps every process of the namespace, double-forked daemons
//!   and `setsid` escapees included, before the intermediate exits (the runner also has
//!   `PR_SET_PDEATHSIG` SIGKILL, should the intermediate die first). Inside, the runner
//!   kills every other process of the namespace whenever it ends a request's process;
//! - identity: as root, the runner switches to a sandbox uid/gid of its own (60000 and up,
//!   one per worker, no supplementary groups), so `RLIMIT_NPROC` is enforced and counts only
//!   this worker; without root the uid is the caller's (NPROC then counts all of the
//!   caller's processes and is raised by their number). `no_new_privs` is set;
//! - rlimits: NPROC, AS, FSIZE, NOFILE, CORE=0 at start; the runner lowers AS, FSIZE and
//!   NOFILE in the process that runs the code and sets its CPU limit per call.
//!
//! **`rlimits-only`** (namespaces refused, e.g. in a container without user namespaces, or
//! forced): the same rlimits, a new process group, the environment cleared, and, as root, the
//! sandbox uid (which must reach the interpreter: else the worker is refused, see below).
//! Without root the code runs as the caller. No file-system or network isolation:
//! the runner's audit hook blocks and reports writes and reads outside the allowed folders,
//! network connections and signals to the runner, but code using ctypes can bypass it (and
//! could then signal the runner, read what the user may read, or use the network). The
//! runner is a child subreaper: the descendants of a request's process, `setsid` escapees
//! included, come back to it and die with that process; with a sandbox uid it also kills
//! every process of that uid. Dropping a worker closes its stdin (the runner then ends and
//! reaps its processes), then kills its process group and every process of its uid.
//!
//! In both modes the runner's audit hook (see `python/guard.py`) adds a second line: it
//! refuses and reports writes outside the work folder and scratch (read-only binds and
//! the folders holding them included), reads outside the exposed files (and of
//! `/etc/shadow`), network connections, signals to the runner or to every process,
//! replacing code objects and heap walks; a call that leaves a process or thread behind is
//! reported and its process ended. The hook and the harness live in the same process as
//! the code: code that deliberately walks stack frames into the harness or uses ctypes can
//! forge the value it reports (see `python/guard.py`); the sandbox still holds. Without
//! namespaces, as root, the fallback refuses to
//! start (rather than run code as root) when the sandbox uid cannot reach the interpreter.
//!
//! Every [`crate::Outcome`] records which of the two it had; `require_isolation` refuses
//! `rlimits-only`.
//!
//! All code in `Plan::enter` runs between `fork` and `exec` of a possibly multi-threaded
//! parent, so it only makes raw system calls on memory prepared before the fork.
#![allow(unsafe_code)]

use std::collections::HashSet;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

/// The system folders bound read-only into the new root (symlinks copied as symlinks).
const SYSTEM_DIRS: &[&str] = &[
    "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The set-up steps, reported when one fails (a byte on the step pipe).
const STEPS: &[&str] = &[
    "unshare namespaces",
    "write user namespace maps",
    "make mounts private",
    "build the new root",
    "pivot_root",
    "fork the namespace's init",
    "set death signal",
    "mount /proc",
    "set rlimits",
    "switch to the sandbox uid",
    "set no_new_privs",
];
const S_UNSHARE: u8 = 0;
const S_USERNS: u8 = 1;
const S_PRIVATE: u8 = 2;
const S_ROOT: u8 = 3;
const S_PIVOT: u8 = 4;
const S_FORK: u8 = 5;
const S_PDEATH: u8 = 6;
const S_PROC: u8 = 7;
const S_RLIMIT: u8 = 8;
const S_IDS: u8 = 9;
const S_NNP: u8 = 10;

/// The name of a failed step.
pub(crate) fn step_name(byte: u8) -> &'static str {
    STEPS.get(byte as usize).copied().unwrap_or("unknown step")
}

enum Op {
    Mkdir(CString),
    Touch(CString),
    Symlink {
        target: CString,
        link: CString,
    },
    Tmpfs {
        dst: CString,
        data: CString,
    },
    Bind {
        src: CString,
        dst: CString,
        readonly: bool,
    },
}

/// What the namespaces mode needs to know to build the new root.
pub(crate) struct Layout<'a> {
    /// An empty host folder that becomes the new root's mount point.
    pub new_root: &'a Path,
    /// The private writable work folder (a tmpfs at this path inside).
    pub work: &'a Path,
    /// Read-only files and folders, bound at their own path.
    pub readonly: &'a [PathBuf],
    /// Size of each tmpfs (work, /tmp, /dev/shm).
    pub disk_bytes: u64,
}

/// Everything the child does before `exec`, prepared in the parent.
pub(crate) struct Plan {
    namespaces: bool,
    /// `(uid_map, gid_map)` contents when a user namespace is needed (not root).
    user_maps: Option<(Vec<u8>, Vec<u8>)>,
    new_root: CString,
    /// `<new_root>/proc`.
    proc_dir: CString,
    ops: Vec<Op>,
    rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
    ids: Option<(u32, u32)>,
    /// Write end of the pipe that carries the failing step (close-on-exec).
    step_fd: i32,
}

fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path with a NUL byte"))
}

fn inside(root: &Path, p: &Path) -> PathBuf {
    root.join(p.strip_prefix("/").unwrap_or(p))
}

impl Plan {
    /// Rlimits every mode sets at start.
    pub(crate) fn rlimits(
        processes: u64,
        memory: u64,
        file_size: u64,
        open_files: u64,
    ) -> Vec<(libc::__rlimit_resource_t, u64)> {
        vec![
            (libc::RLIMIT_CORE, 0),
            (libc::RLIMIT_NPROC, processes),
            (libc::RLIMIT_AS, memory),
            (libc::RLIMIT_FSIZE, file_size),
            (libc::RLIMIT_NOFILE, open_files),
        ]
    }

    /// A plan with rlimits and (as root) a uid switch only.
    pub(crate) fn rlimits_only(
        rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
        ids: Option<(u32, u32)>,
        step_fd: i32,
    ) -> Plan {
        Plan {
            namespaces: false,
            user_maps: None,
            new_root: CString::default(),
            proc_dir: CString::default(),
            ops: Vec::new(),
            rlimits,
            ids,
            step_fd,
        }
    }

    /// A namespaces plan. `ids`: the sandbox uid/gid to switch to (root only); without root a
    /// user namespace maps the caller's own ids.
    pub(crate) fn namespaces(
        layout: &Layout<'_>,
        rlimits: Vec<(libc::__rlimit_resource_t, u64)>,
        ids: Option<(u32, u32)>,
        step_fd: i32,
    ) -> io::Result<Plan> {
        // SAFETY: plain getters without preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let user_maps = (uid != 0).then(|| {
            (
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )
        });
        let (owner, group) = ids.unwrap_or((uid, gid));
        let root = layout.new_root;
        let mut ops = Vec::new();
        let mut made: HashSet<PathBuf> = HashSet::new();
        let mkdir_p =
            |ops: &mut Vec<Op>, made: &mut HashSet<PathBuf>, p: &Path| -> io::Result<()> {
                let mut acc = root.to_path_buf();
                for comp in p.strip_prefix("/").unwrap_or(p).components() {
                    acc.push(comp);
                    if made.insert(acc.clone()) {
                        ops.push(Op::Mkdir(cstr(&acc)?));
                    }
                }
                Ok(())
            };
        let size = layout.disk_bytes.max(1 << 20);
        ops.push(Op::Tmpfs {
            dst: cstr(root)?,
            data: CString::new("mode=0755,size=16m").unwrap_or_default(),
        });
        // /tmp and /dev first: later mount points may lie inside them.
        mkdir_p(&mut ops, &mut made, Path::new("/tmp"))?;
        ops.push(Op::Tmpfs {
            dst: cstr(&inside(root, Path::new("/tmp")))?,
            data: CString::new(format!("mode=1777,size={size}")).unwrap_or_default(),
        });
        mkdir_p(&mut ops, &mut made, Path::new("/dev"))?;
        ops.push(Op::Tmpfs {
            dst: cstr(&inside(root, Path::new("/dev")))?,
            data: CString::new("mode=0755,size=65536").unwrap_or_default(),
        });
        for d in DEVICES {
            let host = Path::new("/dev").join(d);
            if host.exists() {
                let dst = inside(root, &host);
                ops.push(Op::Touch(cstr(&dst)?));
                ops.push(Op::Bind {
                    src: cstr(&host)?,
                    dst: cstr(&dst)?,
                    readonly: false,
                });
            }
        }
        for (link, target) in [
            ("/dev/fd", "/proc/self/fd"),
            ("/dev/stdin", "/proc/self/fd/0"),
            ("/dev/stdout", "/proc/self/fd/1"),
            ("/dev/stderr", "/proc/self/fd/2"),
        ] {
            ops.push(Op::Symlink {
                target: CString::new(target).unwrap_or_default(),
                link: cstr(&inside(root, Path::new(link)))?,
            });
        }
        mkdir_p(&mut ops, &mut made, Path::new("/dev/shm"))?;
        ops.push(Op::Tmpfs {
            dst: cstr(&inside(root, Path::new("/dev/shm")))?,
            data: CString::new(format!("mode=1777,size={size}")).unwrap_or_default(),
        });
        mkdir_p(&mut ops, &mut made, Path::new("/proc"))?;
        mkdir_p(&mut ops, &mut made, layout.work)?;
        ops.push(Op::Tmpfs {
            dst: cstr(&inside(root, layout.work))?,
            data: CString::new(format!("mode=0700,size={size},uid={owner},gid={group}"))
                .unwrap_or_default(),
        });
        let mut bound: Vec<PathBuf> = Vec::new();
        for d in SYSTEM_DIRS {
            let p = Path::new(d);
            match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    let target = std::fs::read_link(p)?;
                    ops.push(Op::Symlink {
                        target: cstr(&target)?,
                        link: cstr(&inside(root, p))?,
                    });
                }
                Ok(m) if m.is_dir() => {
                    mkdir_p(&mut ops, &mut made, p)?;
                    ops.push(Op::Bind {
                        src: cstr(p)?,
                        dst: cstr(&inside(root, p))?,
                        readonly: true,
                    });
                    bound.push(p.to_path_buf());
                }
                _ => {}
            }
        }
        let mut extra: Vec<(PathBuf, PathBuf)> = Vec::new();
        for p in layout.readonly {
            if let Ok(canon) = std::fs::canonicalize(p) {
                extra.push((p.clone(), canon));
            }
        }
        extra.sort_by_key(|(_, c)| c.components().count());
        for (orig, canon) in extra {
            if !bound.iter().any(|b| canon.starts_with(b)) {
                let dst = inside(root, &canon);
                if canon.is_dir() {
                    mkdir_p(&mut ops, &mut made, &canon)?;
                } else {
                    if let Some(parent) = canon.parent() {
                        mkdir_p(&mut ops, &mut made, parent)?;
                    }
                    ops.push(Op::Touch(cstr(&dst)?));
                }
                ops.push(Op::Bind {
                    src: cstr(&canon)?,
                    dst: cstr(&dst)?,
                    readonly: true,
                });
                bound.push(canon.clone());
            }
            let orig = std::path::absolute(&orig)?;
            if orig != canon && !bound.iter().any(|b| orig.starts_with(b)) {
                if let Some(parent) = orig.parent() {
                    mkdir_p(&mut ops, &mut made, parent)?;
                }
                ops.push(Op::Symlink {
                    target: cstr(&canon)?,
                    link: cstr(&inside(root, &orig))?,
                });
            }
        }
        Ok(Plan {
            namespaces: true,
            user_maps,
            new_root: cstr(root)?,
            proc_dir: cstr(&inside(root, Path::new("/proc")))?,
            ops,
            rlimits,
            ids,
            step_fd,
        })
    }

    /// Runs in the child between fork and exec (`CommandExt::pre_exec`).
    ///
    /// # Safety
    /// Only async-signal-safe calls: raw system calls on data prepared before the fork.
    pub(crate) unsafe fn enter(&self) -> io::Result<()> {
        if self.namespaces {
            self.enter_namespaces()?;
        }
        self.step(S_RLIMIT, || {
            for &(res, val) in &self.rlimits {
                let lim = libc::rlimit {
                    rlim_cur: val,
                    rlim_max: val,
                };
                check(libc::setrlimit(res, &raw const lim))?;
            }
            Ok(())
        })?;
        if let Some((uid, gid)) = self.ids {
            self.step(S_IDS, || {
                check(libc::setgroups(0, std::ptr::null()))?;
                check(libc::setresgid(gid, gid, gid))?;
                check(libc::setresuid(uid, uid, uid))
            })?;
        }
        self.step(S_NNP, || {
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        })
    }

    unsafe fn enter_namespaces(&self) -> io::Result<()> {
        let mut flags = libc::CLONE_NEWNS
            | libc::CLONE_NEWNET
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWPID;
        if self.user_maps.is_some() {
            flags |= libc::CLONE_NEWUSER;
        }
        self.step(S_UNSHARE, || check(libc::unshare(flags)))?;
        if let Some((uid_map, gid_map)) = &self.user_maps {
            self.step(S_USERNS, || {
                write_file(c"/proc/self/setgroups", b"deny")?;
                write_file(c"/proc/self/uid_map", uid_map)?;
                write_file(c"/proc/self/gid_map", gid_map)
            })?;
        }
        loopback_up();
        self.step(S_PRIVATE, || {
            check(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))
        })?;
        self.step(S_ROOT, || {
            for op in &self.ops {
                run_op(op)?;
            }
            Ok(())
        })?;
        // The first child after unshare(CLONE_NEWPID) is the namespace's init: it goes on to
        // exec Python; this process stays outside, waits for it and passes on its status.
        let pid = libc::syscall(
            libc::SYS_clone,
            libc::c_long::from(libc::SIGCHLD),
            0,
            0,
            0,
            0,
        );
        if pid < 0 {
            return self.fail(S_FORK);
        }
        if pid > 0 {
            // Close every descriptor (the pipes to the parent, the spawn error pipe), so that
            // only the namespace's init holds them.
            if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
                for fd in 0..4096 {
                    libc::close(fd);
                }
            }
            let mut status = 0;
            loop {
                let r = libc::waitpid(pid as libc::pid_t, &raw mut status, 0);
                if r == pid as libc::pid_t {
                    break;
                }
                if r < 0 && *libc::__errno_location() != libc::EINTR {
                    libc::_exit(125);
                }
            }
            if libc::WIFSIGNALED(status) {
                libc::_exit(128 + libc::WTERMSIG(status));
            }
            libc::_exit(libc::WEXITSTATUS(status));
        }
        self.step(S_PDEATH, || {
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))
        })?;
        // /proc is mounted before pivot_root: in a user namespace the kernel allows a new
        // proc only while a fully visible one (the host's) is still in the mount namespace.
        self.step(S_PROC, || {
            check(libc::mount(
                c"proc".as_ptr(),
                self.proc_dir.as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ))
        })?;
        self.step(S_PIVOT, || {
            check(libc::chdir(self.new_root.as_ptr()))?;
            check(libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as i32)?;
            check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
            check(libc::chdir(c"/".as_ptr()))?;
            check(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT
                    | libc::MS_BIND
                    | libc::MS_RDONLY
                    | libc::MS_NOSUID
                    | libc::MS_NODEV,
                std::ptr::null(),
            ))
        })?;
        Ok(())
    }

    /// Runs `f`; on failure reports the step on the step pipe.
    unsafe fn step(&self, step: u8, f: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
        let r = f();
        if r.is_err() {
            let b = [step];
            libc::write(self.step_fd, b.as_ptr().cast(), 1);
        }
        r
    }

    unsafe fn fail(&self, step: u8) -> io::Result<()> {
        let err = io::Error::last_os_error();
        let b = [step];
        libc::write(self.step_fd, b.as_ptr().cast(), 1);
        Err(err)
    }
}

/// Brings up `lo` of the new network namespace: code can then talk to itself (a test's
/// local server), never to the host, whose loopback is another interface. Best effort: a
/// namespace whose `lo` stays down is only more closed.
unsafe fn loopback_up() {
    let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if fd < 0 {
        return;
    }
    let mut ifr: libc::ifreq = std::mem::zeroed();
    ifr.ifr_name[0] = b'l' as libc::c_char;
    ifr.ifr_name[1] = b'o' as libc::c_char;
    if libc::ioctl(fd, libc::SIOCGIFFLAGS, &raw mut ifr) == 0 {
        ifr.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        libc::ioctl(fd, libc::SIOCSIFFLAGS, &raw mut ifr);
    }
    libc::close(fd);
}

unsafe fn check(r: i32) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let n = libc::write(fd, data.as_ptr().cast(), data.len());
    let err = io::Error::last_os_error();
    libc::close(fd);
    if n != data.len() as isize {
        return Err(err);
    }
    Ok(())
}

unsafe fn run_op(op: &Op) -> io::Result<()> {
    match op {
        Op::Mkdir(p) => {
            if libc::mkdir(p.as_ptr(), 0o755) < 0 && *libc::__errno_location() != libc::EEXIST {
                return Err(io::Error::last_os_error());
            }
        }
        Op::Touch(p) => {
            let fd = libc::open(
                p.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                0o644,
            );
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            libc::close(fd);
        }
        Op::Symlink { target, link } => {
            if libc::symlink(target.as_ptr(), link.as_ptr()) < 0
                && *libc::__errno_location() != libc::EEXIST
            {
                return Err(io::Error::last_os_error());
            }
        }
        Op::Tmpfs { dst, data } => check(libc::mount(
            c"tmpfs".as_ptr(),
            dst.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            data.as_ptr().cast(),
        ))?,
        Op::Bind { src, dst, readonly } => {
            check(libc::mount(
                src.as_ptr(),
                dst.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ))?;
            if *readonly {
                // Keep the flags the source mount has (a user namespace may not drop them).
                // (glibc's statvfs takes the flags from statfs on any kernel since 2.6.36.)
                let mut st: libc::statvfs = std::mem::zeroed();
                let mut kept = 0;
                if libc::statvfs(dst.as_ptr(), &raw mut st) == 0 {
                    let f = st.f_flag;
                    for (st_flag, ms_flag) in [
                        (libc::ST_NOEXEC, libc::MS_NOEXEC),
                        (libc::ST_NOATIME, libc::MS_NOATIME),
                        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
                        (libc::ST_RELATIME, libc::MS_RELATIME),
                    ] {
                        if f & st_flag != 0 {
                            kept |= ms_flag;
                        }
                    }
                }
                check(libc::mount(
                    std::ptr::null(),
                    dst.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND
                        | libc::MS_REMOUNT
                        | libc::MS_RDONLY
                        | libc::MS_NOSUID
                        | libc::MS_NODEV
                        | kept,
                    std::ptr::null(),
                ))?;
            }
        }
    }
    Ok(())
}
