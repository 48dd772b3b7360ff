"""freshbench execution worker: serves `call` and `pytest` requests in forked children.

Started by the execution library (stages/execution) inside its sandbox; standard library plus
coverage.py only. Protocol: one JSON object per line on stdin and stdout. The runner first
moves its protocol pipes (fds 0 and 1) to private descriptors and points 0 and 1 at
/dev/null, writes a `hello` line, then answers each request line with one response line.

No user code ever runs in the runner. `call`s run in a *session*: a child forked from the
runner that serves the consecutive calls of one target (same module, same limits), so a
batch of test cases for one function pays for one fork and one import. The session child
closes the protocol fds, sends its stdout and stderr into capped pipes, installs an audit
hook (blocks and records writes and reads outside the allowed roots, network connections,
signals to the runner or to every process, code-object patching, heap walks), lowers its
rlimits, and answers each call over a result pipe of its own: `marshal` data behind a
per-session nonce, built with references captured before any user code ran. The runner
(pid 1 of the sandbox, not dumpable, never touched by user code) checks the nonce and the
framing, turns the result into tagged JSON, and ends the session (killing everything the
calls started) after any call that did not simply return or raise, that left a process or
a thread behind, or that tripped the sandbox; a call of another target, or one marked
`fresh`, gets a new session. `pytest` requests run in a one-shot child each.

A call's arguments are literal text, read by `values.make_arg_eval` (literal_eval's grammar
plus a few spellings: `float('nan')`, `frozenset([..])`, allowed builtins and `operator`
functions by name), never evaluated as code. A returned iterator (generator, `map`, ...),
also one inside a returned list or tuple, is drawn in the call, under coverage and the
clock, for at most ITER_ITEMS items in all.

Residual hole: code that deliberately introspects the harness inside its own process
(walks stack frames up into the session loop to read the nonce, rewrites the closure cells
of the harness, or writes memory through ctypes) can forge the value it reports. What the
hostile suite throws at it (monkeypatching builtins, json, marshal or the runner's module,
replacing code objects, heap walks, printing or writing fake results, exiting early,
equality tricks) gets no pass. Comparison against expected values is done in Rust.

The runner's files (all in RUNNER_FILES of stages/execution/src/process.rs):
- runner.py (this file): the entry point: arguments, the main loop, the hello line;
- protocol.py: request parsing and answer building (JSON lines), and the frames spoken with
  the children (nonce, length, marshal data; the child's end of the channel);
- guard.py: the audit hook, lowering the rlimits, the dumpable flag, and what an exception
  says about the sandbox;
- supervision.py: forking children, the one channel and event loop every child is watched
  with, sessions and one-shots, reaping, killing strays, restoring the work folder;
- child.py: the bodies of the children (the session loop, the pytest run);
- values.py: the argument evaluator, the iterator drawer, the tagger, tags to JSON;
- slicer.py: the dynamic slicer (requests with a `trace`).
"""

import importlib.util
import os
import signal
import sys

# `python runner.py` puts the runner's folder first on sys.path: it is taken off before
# anything but the standard library above is imported, so that the code under test (and
# pytest, and coverage) can neither import the runner's modules by their plain names
# (`protocol`, `values`, `runner`, ...) nor find them shadowing modules of its own. HERE is
# not resolved: the audit hook lets a child read the runner's files (tracebacks) by this path.
HERE = os.path.dirname(os.path.abspath(__file__))
if __name__ == "__main__":
    _here_real = os.path.realpath(HERE)
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _here_real]

# The modules of the runner, beside this file, in the order they import one another. Each is
# loaded from its file under the private name `_freshbench_NAME` (in sys.modules, where the
# next ones find it): never importable by a plain name, never shadowed by the project's own.
# Every one of them is in RUNNER_FILES of stages/execution/src/process.rs.
MODULES = ("values", "guard", "protocol", "child", "supervision")


def _load(name):
    """The runner's module `name` (NAME.py beside this file) as `_freshbench_NAME`."""
    full = "_freshbench_" + name
    mod = sys.modules.get(full)
    if mod is not None:
        return mod
    spec = importlib.util.spec_from_file_location(full, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[full] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[full]
        raise
    return mod


def _load_slicer():
    """The dynamic slicer (slicer.py beside this file), loaded before any user code runs;
    None when it is missing (requests with a `trace` then say so)."""
    path = os.path.join(HERE, "slicer.py")
    try:
        spec = importlib.util.spec_from_file_location("_freshbench_slicer", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    except (OSError, ImportError, SyntaxError):
        return None


_values, _guard, _protocol, _child, _supervision = (_load(m) for m in MODULES)


def _harness_files(slicer):
    """The files of the runner's code: a pytest run may not replace their functions' code."""
    files = {__file__, os.path.abspath(__file__)}
    for m in (_values, _guard, _protocol, _child, _supervision, slicer):
        f = getattr(m, "__file__", None)
        if f:
            files.update((f, os.path.abspath(f)))
    return files


def _parse_args(argv):
    opts = {"work": None, "scratch": None, "tree": None, "read": [], "readonly": [], "write": [],
            "preload": [],
            "sys_path": [], "kill_all": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--kill-all":
            opts["kill_all"] = True
            i += 1
            continue
        key = a[2:].replace("-", "_")
        val = argv[i + 1]
        if isinstance(opts.get(key), list):
            opts[key].append(val)
        else:
            opts[key] = val
        i += 2
    return opts


def hello(sup):
    """The first line the runner writes: who and where it is."""
    try:
        nets = [n for _, n in __import__("socket").if_nameindex()]
    except OSError:
        nets = []
    return {"hello": _protocol.PROTOCOL, "pid": os.getpid(), "uid": os.getuid(), "gid": os.getgid(),
            "python": sys.version.split()[0], "executable": sys.executable,
            "coverage": getattr(sup.coverage, "__version__", None), "interfaces": nets,
            "work": sup.work}


def main(opts):
    slicer = _load_slicer()
    sup = _supervision.Supervisor(opts, slicer=slicer, harness_files=_harness_files(slicer))
    # The protocol pipes move to private descriptors; fds 0 and 1 are /dev/null, so that
    # nothing a child inherits as its stdin or stdout reaches the protocol.
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    sup.protocol_fds = (proto_in, proto_out)
    null = os.open(_supervision.DEVNULL, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    _guard.set_dumpable(False)
    try:  # orphans of a request come to the runner, which can then see and kill them
        import ctypes

        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:  # noqa: BLE001
        pass
    tree = opts.get("tree")
    if tree:
        import shutil

        shutil.copytree(tree, sup.work, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git"))
        sup.snapshot_work()
    os.chdir(sup.work)
    paths = [os.path.normpath(os.path.join(sup.work, p)) for p in opts["sys_path"]]
    for p in reversed(paths):
        sys.path.insert(0, p)
    # Processes the code starts (`python -c "import pkg"`) import from the work folder
    # too, never from the original tree: a changed file there is what they see.
    if paths:
        os.environ["PYTHONPATH"] = os.pathsep.join(
            paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    reader = open(proto_in, "rb")
    writer = open(proto_out, "wb")

    def send(obj):
        writer.write(_protocol.encode(obj))
        writer.flush()

    send(hello(sup))
    import gc

    gc.collect()
    gc.freeze()  # forked children then do not copy the runner's objects when gc runs
    while True:
        line = reader.readline()
        if not line:
            sup.end_session()
            return
        req, answer = _protocol.parse_request(line)
        if req is None:
            send(answer)
            continue
        try:
            resp = sup.serve(req)
        except Exception:  # noqa: BLE001 - a bug in the runner, reported not fatal
            import traceback

            resp = {"status": "harness_error", "detail": "runner bug: " + traceback.format_exc()[-3000:]}
            sup.reap()
        resp["id"] = req.get("id")
        send(resp)


if __name__ == "__main__":
    main(_parse_args(sys.argv[1:]))
