"""guard.py: the audit hook's decisions, called directly (never installed in this process),
and what exceptions say about the sandbox."""

import errno
import os
import socket

import pytest

RUNNER_PID = 4242
_PermissionError = PermissionError  # the tests below patch the builtin


@pytest.fixture
def hook(mods, tmp_path):
    work = str(tmp_path / "work")
    violations = []
    h = mods.guard.make_hook(read_roots=["/usr", work, "/etc"], write_roots=[work, "/dev/null"],
                             readonly_roots=[work + "/ro"], runner_pid=RUNNER_PID,
                             violations=violations)
    h.work, h.violations = work, violations
    return h


def refused(hook, event, args):
    try:
        hook(event, args)
    except _PermissionError as e:
        assert e.errno == errno.EACCES
        return True
    return False


def test_writes(hook):
    w = hook.work
    assert not refused(hook, "open", (w + "/a.txt", "w", 0))
    assert not refused(hook, "open", ("/dev/null", "a", 0))
    assert refused(hook, "open", ("/etc/passwd", "w", 0))
    assert refused(hook, "open", (w + "/ro/x", "r+", 0))  # read-only inside the work folder
    assert refused(hook, "open", (w + "/../escape", "x", 0))  # normalised before it is judged
    assert refused(hook, "open", (w + "-sibling/f", "w", 0))  # a prefix is not a folder
    assert refused(hook, "open", (b"/tmp/bytes", None, os.O_WRONLY | os.O_CREAT))
    assert hook.violations[0] == "write outside the work folder: /etc/passwd"


def test_reads(hook):
    assert not refused(hook, "open", ("/usr/lib/x.py", "r", 0))
    assert not refused(hook, "open", (hook.work + "/ro/x", "rb", 0))
    assert not refused(hook, "open", (3, "r", 0))  # a descriptor: nothing to judge
    assert refused(hook, "open", ("/root/.ssh/id_rsa", "r", 0))
    assert refused(hook, "open", ("/etc/shadow", "r", 0))  # under a read root, still secret
    assert hook.violations == ["read outside the exposed files: /root/.ssh/id_rsa",
                               "read outside the exposed files: /etc/shadow"]


def test_path_events(hook):
    assert not refused(hook, "os.remove", (hook.work + "/f", -1))
    assert refused(hook, "os.remove", ("/etc/hosts", -1))
    assert refused(hook, "os.rename", (hook.work + "/f", "/tmp/f", -1, -1))
    assert refused(hook, "shutil.rmtree", (hook.work + "/ro", None))
    assert hook.violations[0] == "os.remove outside the work folder: /etc/hosts"


def test_signals(hook):
    assert not refused(hook, "os.kill", (RUNNER_PID + 1, 9))
    for pid in (RUNNER_PID, 1, -1):
        assert refused(hook, "os.kill", (pid, 9))
    assert refused(hook, "os.killpg", (1, 9))


def test_network(mods, hook):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        assert refused(hook, "socket.connect", (s, ("93.184.216.34", 80)))
        assert refused(hook, "socket.connect", (s, ("127.0.0.1", 80)))  # no loopback by default
        loop = mods.guard.make_hook([], [], [], RUNNER_PID, [], allow_loopback=True)
        assert not refused(loop, "socket.connect", (s, ("127.0.0.1", 80)))
        assert refused(loop, "socket.bind", (s, ("10.0.0.1", 80)))
    finally:
        s.close()
    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        assert not refused(hook, "socket.connect", (u, "/tmp/sock"))
    finally:
        u.close()


def test_heap_and_frames(hook):
    for event in ("gc.get_objects", "gc.get_referrers", "sys._current_frames"):
        assert refused(hook, event, ())
    assert not refused(hook, "os.listdir", ("/",))  # not watched


def test_code_objects(mods, hook):
    def f():
        pass

    assert refused(hook, "object.__setattr__", (f, "__code__", f.__code__))
    assert refused(hook, "object.__setattr__", (f, "__globals__", {}))
    assert not refused(hook, "object.__setattr__", (f, "__doc__", "x"))
    guarded = mods.guard.make_hook([], [], [], RUNNER_PID, [],
                                   code_guard_files={mods.guard.__file__})
    assert not refused(guarded, "object.__setattr__", (f, "__code__", f.__code__))
    target = mods.guard.classify_exception
    assert refused(guarded, "object.__setattr__", (target, "__code__", f.__code__))
    assert refused(guarded, "object.__setattr__", (object(), "__code__", None))  # no code: harness


def test_patched_builtins_change_no_decision(hook):
    """The hook runs after user code: it uses no builtin looked up at call time (patching
    `getattr` once let a socket through, patching `len` a code object). Checked in a forked
    child, where the builtins are patched as user code would."""
    import builtins

    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            builtins.getattr = lambda *a: None
            builtins.len = lambda x: 0
            builtins.PermissionError = ValueError
            ok = (refused(hook, "socket.connect", (s, ("93.184.216.34", 80)))
                  and refused(hook, "object.__setattr__", (refused, "__code__", refused.__code__)))
        finally:
            os._exit(0 if ok else 1)
    s.close()
    assert os.waitpid(pid, 0)[1] == 0


def test_the_runner_guards_every_file_it_loaded(mods):
    files = mods.runner._harness_files(None)
    for m in (mods.values, mods.guard, mods.protocol, mods.child, mods.supervision):
        assert m.__file__ in files
    assert mods.runner.__file__ in files


def test_classify_exception(mods, tmp_path):
    c = mods.guard.classify_exception
    work = str(tmp_path)
    assert c(PermissionError(errno.EACCES, "no", "/etc/x"), (work,)) == "sandbox_violation"
    assert c(PermissionError(errno.EACCES, "no", work + "/x"), (work,)) == "exception"
    assert c(OSError(errno.EROFS, "ro"), (work,)) == "sandbox_violation"
    assert c(MemoryError(), (work,)) == "memory"
    assert c(OSError(errno.ENOMEM, "m"), (work,)) == "memory"
    assert c(OSError(errno.EMFILE, "f"), (work,)) == "resource_limit"
    assert c(RuntimeError("can't start new thread"), (work,)) == "resource_limit"
    assert c(RecursionError(), (work,)) == "exception"
    assert c(ValueError(), (work,)) == "exception"
