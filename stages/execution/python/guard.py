"""What restricts the code a child runs: the audit hook, the lowered rlimits, the dumpable
flag, and the reading of an exception as a sandbox violation or a resource limit.

Loaded by runner.py under the private name `_freshbench_guard`. The hook is built by
`make_hook` from references captured when it is called (in the child, before any user code
runs): replacing `os.path.abspath`, a builtin or a function of this module afterwards
changes nothing it decides.
"""

import errno
import os
import resource

_PRCTL = []


def set_dumpable(flag):
    """PR_SET_DUMPABLE: a non-dumpable runner cannot be ptraced or read through /proc by
    its (unprivileged, same-uid) children."""
    try:
        if not _PRCTL:
            import ctypes

            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        _PRCTL[0](4, int(flag), 0, 0, 0)
    except Exception:  # noqa: BLE001 - best effort
        pass


# --------------------------------------------------------------------------- audit hook (child)

def make_hook(read_roots, write_roots, readonly_roots, runner_pid, violations,
              allow_loopback=False, code_guard_files=None):
    """The audit hook of a child: refuses (PermissionError, and a line in `violations`)
    writes outside `write_roots` or inside `readonly_roots`, reads outside `read_roots` and
    of the password files, network connections (but loopback when `allow_loopback`), signals
    to the runner or to every process, heap and frame walks, and replacing code objects.

    `code_guard_files`: refuse replacing the code of functions of those files only (pytest
    requests: the standard library and test tools replace code objects, e.g.
    `types.coroutine` when asyncio is imported, hypothesis' `proxies`); None: refuse all."""
    _abspath = os.path.abspath
    _fspath = os.fspath
    _type = type
    _append = violations.append
    _str = str
    _bytes = bytes
    _decode = bytes.decode
    _len = len
    _getattr = getattr
    _int = int
    _tuple = tuple
    _PermissionError, EACCES = PermissionError, errno.EACCES
    O_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    reads = tuple(read_roots)
    secrets = frozenset(("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
                         "/etc/sudoers"))
    writes = tuple(write_roots)
    readonly = tuple(readonly_roots)
    guarded = None if code_guard_files is None else frozenset(code_guard_files)
    AF_INET = 2
    AF_INET6 = 10
    watched = frozenset(("open", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
                         "os.kill", "os.killpg", "object.__setattr__", "gc.get_objects",
                         "gc.get_referrers", "gc.get_referents", "sys._current_frames",
                         "os.chmod", "os.remove", "os.rename", "os.rmdir", "os.mkdir",
                         "os.symlink", "os.link", "os.truncate", "shutil.rmtree", "os.utime"))
    path_events = frozenset(("os.chmod", "os.remove", "os.rename", "os.rmdir", "os.mkdir",
                             "os.symlink", "os.link", "os.truncate", "shutil.rmtree", "os.utime"))

    def under(path, roots):
        for r in roots:
            if path == r or path.startswith(r + "/") or r == "/":
                return True
        return False

    def norm(p):
        if _type(p) is _bytes:
            p = _decode(p, "utf-8", "replace")
        elif _type(p) is not _str:
            p = _fspath(p)
            if _type(p) is _bytes:
                p = _decode(p, "utf-8", "replace")
        return _abspath(p)

    def deny(what):
        _append(what)
        raise _PermissionError(EACCES, "freshbench sandbox: " + what)

    def hook(event, args):
        if event not in watched:
            return
        if event == "open":
            path, mode, flags = args
            if path is None or _type(path) is _int:
                return
            p = norm(path)
            writing = (mode is not None and _type(mode) is _str and ("w" in mode or "a" in mode
                       or "x" in mode or "+" in mode)) or (mode is None and _type(flags) is _int
                                                          and flags & O_WRITE)
            if writing:
                if under(p, readonly) or not under(p, writes):
                    deny("write outside the work folder: " + p)
            elif p in secrets or not under(p, reads):
                deny("read outside the exposed files: " + p)
        elif event in path_events:
            for a in args:
                if _type(a) in (_str, _bytes):
                    p = norm(a)
                    if under(p, readonly) or not under(p, writes):
                        deny(event + " outside the work folder: " + p)
        elif event in ("socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"):
            sock = args[0]
            fam = _getattr(sock, "family", None)
            if fam in (AF_INET, AF_INET6):
                addr = args[1] if _len(args) > 1 else None
                host = addr[0] if _type(addr) is _tuple and addr else None
                if not (allow_loopback and _type(host) is _str and (
                        host.startswith("127.") or host in ("::1", "localhost", "", "0.0.0.0", "::"))):
                    deny("network (" + event + ")")
        elif event in ("os.kill", "os.killpg"):
            pid = args[0]
            if pid in (-1, 1, runner_pid):
                deny(event + " of the runner or of every process")
        elif event == "object.__setattr__":
            if _len(args) >= 2 and args[1] in ("__code__", "__globals__"):
                if guarded is None:
                    deny("replacing a code object")
                try:
                    owner = args[0].__code__.co_filename
                except BaseException:  # noqa: BLE001 - unknown: taken for the harness's
                    owner = None
                if owner is None or owner in guarded:
                    deny("replacing a code object of the harness")
        else:
            deny(event)

    return hook


# --------------------------------------------------------------------------- limits (child)

def lower_limits(lim):
    """Lowers the child's rlimits to the request's `limits` (never above a hard limit)."""
    pairs = ((resource.RLIMIT_CPU, lim.get("cpu_seconds")), (resource.RLIMIT_AS, lim.get("memory_bytes")),
             (resource.RLIMIT_FSIZE, lim.get("file_size_bytes")),
             (resource.RLIMIT_NOFILE, lim.get("open_files")), (resource.RLIMIT_CORE, 0))
    for res, val in pairs:
        if val is None:
            continue
        _soft, hard = resource.getrlimit(res)
        if hard != resource.RLIM_INFINITY:
            val = min(val, hard)
        try:
            resource.setrlimit(res, (val, val))
        except (ValueError, OSError):
            pass


def classify_exception(e, writable):
    """The status of a call or a run that raised `e`: a refused write outside the `writable`
    folders is a sandbox violation, exhausted memory or descriptors a limit."""
    if isinstance(e, OSError) and (e.errno == errno.EROFS or (
            e.errno in (errno.EACCES, errno.EPERM) and isinstance(e.filename, str)
            and not any(os.path.abspath(e.filename).startswith(w + "/") for w in writable))):
        return "sandbox_violation"
    if isinstance(e, MemoryError):
        return "memory"
    if isinstance(e, RecursionError):
        return "exception"
    if isinstance(e, OSError) and e.errno in (errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.EFBIG,
                                              errno.ENOSPC, errno.EDQUOT, errno.ENOMEM):
        return "memory" if e.errno == errno.ENOMEM else "resource_limit"
    if isinstance(e, RuntimeError) and "can't start new thread" in str(e):
        return "resource_limit"
    return "exception"
