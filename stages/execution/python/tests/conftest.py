"""What the runner's tests share: its modules loaded as runner.py loads them, and a worker
started as a subprocess with the command line the execution library gives it (no sandbox:
a temporary work folder, the audit hook as the only guard, and never `--kill-all`, which
would signal every process of the user)."""

import importlib.util
import json
import os
import select
import subprocess
import sys
import time
import types

import pytest

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(PYDIR, "runner.py")


def load_runner_modules():
    """runner.py loaded as a module (not as __main__): it loads its modules from beside
    itself under their `_freshbench_` names, as it does when started."""
    name = "_freshbench_runner_under_test"
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, RUNNER)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return types.SimpleNamespace(runner=mod, values=mod._values, guard=mod._guard,
                                 protocol=mod._protocol, child=mod._child,
                                 supervision=mod._supervision)


@pytest.fixture(scope="session")
def mods():
    return load_runner_modules()


def python_dirs():
    dirs = set()
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix):
        dirs.add(os.path.abspath(p))
        dirs.add(os.path.realpath(p))
    return sorted(dirs)


class Worker:
    """A runner subprocess: `request(dict)` sends one request (with `id` and `limits`, as
    worker.rs `call` does) and returns its answer."""

    def __init__(self, base, tree=None, sys_path=(), preload=()):
        self.work = os.path.join(base, "work")
        self.scratch = os.path.join(base, "tmp")
        os.makedirs(self.work)
        os.makedirs(self.scratch)
        readonly = python_dirs() + [PYDIR] + ([tree] if tree else [])
        reads = ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/dev",
                 "/proc", "/sys"] + readonly
        cmd = [sys.executable, RUNNER, "--work", self.work, "--scratch", self.scratch]
        if tree:
            cmd += ["--tree", tree]
        for r in reads:
            cmd += ["--read", r]
        for r in readonly:
            cmd += ["--readonly", r]
        for p in sys_path:
            cmd += ["--sys-path", p]
        for m in preload:
            cmd += ["--preload", m]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.work, "TMPDIR": self.scratch,
               "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
               "PYTHONIOENCODING": "utf-8", "PYTHONHASHSEED": "0"}
        self.log = open(os.path.join(base, "runner.log"), "wb")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env, cwd=base, start_new_session=True)
        self.next_id = 0
        self.hello = self.read_line(60)

    def read_line(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise AssertionError("no answer from the runner in %gs" % timeout)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("the runner died: %s" % self.proc.poll())
        return json.loads(line)

    def send_line(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, req, wall=10.0, output_bytes=1 << 20, cpu_seconds=30):
        self.next_id += 1
        msg = dict(req)
        msg["id"] = self.next_id
        msg["limits"] = {"wall_seconds": wall, "cpu_seconds": cpu_seconds,
                         "memory_bytes": 2 << 30, "file_size_bytes": 64 << 20,
                         "open_files": 256, "output_bytes": output_bytes}
        self.send_line((json.dumps(msg) + "\n").encode())
        answer = self.read_line(wall + 30)
        assert answer["id"] == self.next_id
        return answer

    def call(self, text, function, args="[]", kwargs="{}", **extra):
        req = {"kind": "call", "target": {"kind": "source", "name": "candidate", "text": text},
               "function": function, "args": args, "kwargs": kwargs, "coverage": False,
               "fresh": False, "trace": None}
        limits = {k: extra.pop(k) for k in ("wall", "output_bytes") if k in extra}
        req.update(extra)
        return self.request(req, **limits)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            end = time.monotonic() + 10
            while self.proc.poll() is None and time.monotonic() < end:
                time.sleep(0.02)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.log.close()


@pytest.fixture
def start_worker(tmp_path):
    """start_worker(tree=None, ...) -> a Worker in a fresh folder; every one is stopped at the
    test's end."""
    started = []

    def start(**kw):
        base = tmp_path / ("w%d" % len(started))
        base.mkdir()
        w = Worker(str(base), **kw)
        started.append(w)
        return w

    yield start
    for w in started:
        w.close()
