"""freshbench execution worker: serves `call` and `pytest` requests in forked children.

Started by the `execute` library (stages/execute) inside its sandbox; standard library plus
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

A call's arguments are literal text, read by `_make_arg_eval` (literal_eval's grammar plus a
few spellings: `float('nan')`, `frozenset([..])`, allowed builtins and `operator`
functions by name), never evaluated as code. A returned iterator (generator, `map`, ...),
also one inside a returned list or tuple, is drawn in the call, under coverage and the
clock, for at most ITER_ITEMS items in all.

Residual hole: code that deliberately introspects the harness inside its own process
(walks stack frames up into the session loop to read the nonce, rewrites the closure cells
of the harness, or writes memory through ctypes) can forge the value it reports. What the
hostile suite throws at it (monkeypatching builtins, json, marshal or the runner's module,
replacing code objects, heap walks, printing or writing fake results, exiting early,
equality tricks) gets no pass. Comparison against expected values is done in Rust.
"""

import ast
import builtins
import errno
import importlib
import importlib.util
import json
import marshal
import operator
import os
import resource
import selectors
import signal
import sys
import struct
import time
import traceback

PROTOCOL = 1
DEVNULL = "/dev/null"
# A returned iterator (generator, map, zip, ...) is drawn for at most this many items, while
# coverage still runs; more makes its tag `truncated`.
ITER_ITEMS = 1000
# Builtins a test case may pass as an argument by bare name: deterministic and without effect
# on the process or the file system. Not `hash` (depends on the hash seed), `id` (an
# address), `open`, `print`, `input`, `eval`, `exec`, `getattr`, `vars` and the like.
ARG_BUILTINS = ("abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "dict",
                "divmod", "enumerate", "filter", "float", "format", "frozenset", "hex", "int",
                "isinstance", "iter", "len", "list", "map", "max", "min", "next", "oct", "ord",
                "pow", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum",
                "tuple", "type", "zip",
                # Exception classes, for code that raises or catches what it is given.
                "ArithmeticError", "AssertionError", "Exception", "IndexError", "KeyError",
                "LookupError", "RuntimeError", "StopIteration", "TypeError", "ValueError",
                "ZeroDivisionError")
# Functions of `operator` a test case may pass as `operator.NAME` (attributes only: no call
# such as `operator.itemgetter(0)`).
ARG_OPERATORS = ("abs", "add", "and_", "concat", "contains", "eq", "floordiv", "ge", "getitem",
                 "gt", "invert", "le", "lt", "mod", "mul", "ne", "neg", "not_", "or_", "pos",
                 "pow", "sub", "truediv", "truth", "xor")


def _load_slicer():
    """The dynamic slicer (slicer.py beside this file), loaded before any user code runs;
    None when it is missing (requests with a `trace` then say so)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slicer.py")
    try:
        spec = importlib.util.spec_from_file_location("_freshbench_slicer", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    except (OSError, ImportError, SyntaxError):
        return None


def _criterion(trace):
    """The slicer's criterion from a request's `trace`."""
    c = trace.get("criterion") or {}
    if c.get("kind") == "lines":
        return ("lines", c["path"], int(c["first"]), int(c["last"]), bool(c.get("forward")))
    return "return"


def _no_tracer():
    """The report of an execution that could not be traced."""
    return {"status": "untraceable", "events": 0, "cap": 0,
            "reason": "no tracer: the slicer is missing, or coverage or another tracer holds "
                      "sys.settrace"}


def _tracer_for(slicer, trace, roots, entry_file=None):
    """A tracer for a request's `trace`, or None when none can run (coverage or another
    tracer holds sys.settrace, or the slicer is missing)."""
    if slicer is None or slicer.available() is None:
        return None
    return slicer.Tracer(roots, _criterion(trace), int(trace.get("max_events") or 1000000),
                         entry_file=entry_file)


def _trace_report(slicer, tracer, seconds):
    """What one traced execution gives back: the slice (or why none) and its cost."""
    try:
        rep = tracer.slice()
    except BaseException as e:  # noqa: BLE001 - a slicer bug must not lose the result
        rep = {"status": "untraceable", "reason": "slicer error: " + repr(e)[:500],
               "events": tracer.events, "cap": tracer.cap}
    rep["seconds"] = seconds
    rep["tracer"] = "settrace"
    return rep


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


_PRCTL = []
# Exit statuses of watched children (sessions, one-shot children) reaped by a wait for any.
_WATCHED = set()
_REAPED = {}


def _note_reaped(pid, status):
    if pid in _WATCHED:
        _REAPED[pid] = status


def _waitpid(pid, flags=0):
    """os.waitpid for a watched child, which a wait for any child may have reaped already."""
    if pid in _REAPED:
        _WATCHED.discard(pid)
        return pid, _REAPED.pop(pid)
    try:
        got = os.waitpid(pid, flags)
    except ChildProcessError:
        _WATCHED.discard(pid)
        return pid, _REAPED.pop(pid, 0)
    if got[0] == pid:
        _WATCHED.discard(pid)
    return got


def _set_dumpable(flag):
    """PR_SET_DUMPABLE: a non-dumpable runner cannot be ptraced or read through /proc by
    its (unprivileged, same-uid) children."""
    try:
        if not _PRCTL:
            import ctypes

            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        _PRCTL[0](4, int(flag), 0, 0, 0)
    except Exception:  # noqa: BLE001 - best effort
        pass


# --------------------------------------------------------------------------- arguments (child)

def _make_arg_eval():
    """Returns a function turning a test case's argument text into a value without running any
    code, built from references captured now (before user code runs): the syntax tree comes
    from `compile`, never from the `ast` module's functions, which the code could patch.

    Accepted: what `ast.literal_eval` accepts (str, bytes, int, float, complex, bool, None,
    Ellipsis; tuples, lists, sets and dicts of those; unary + and - on numbers; `1+2j`;
    `set()`), and also `float(S)` for a string literal S that `float` accepts (`'nan'`,
    `'inf'`, `'-inf'`), a sign before it (`-float('inf')`), `set()`/`set(C)`,
    `frozenset()`/`frozenset(C)` for a literal list, tuple or set C, `iter(L)` for a literal
    list or tuple L (an iterator over it: for code that takes any iterable), one of ARG_BUILTINS by
    bare name (`len`, `sorted`: to pass a function) and `operator.NAME` for NAME in
    ARG_OPERATORS. No other name, attribute, call, operator, lambda or comprehension."""
    _compile, only_ast = compile, ast.PyCF_ONLY_AST
    _type, _len, _str, _float, _int, _zip, _getattr = type, len, str, float, int, zip, getattr
    _tuple, _set, _frozen, _iter = tuple, set, frozenset, iter
    _append = list.append
    N_EXPR, N_CONST, N_NAME, N_ATTR, N_CALL = ast.Expression, ast.Constant, ast.Name, ast.Attribute, ast.Call
    N_TUPLE, N_LIST, N_SET, N_DICT = ast.Tuple, ast.List, ast.Set, ast.Dict
    N_UNARY, N_BINOP, O_UADD, O_USUB, O_ADD, O_SUB = ast.UnaryOp, ast.BinOp, ast.UAdd, ast.USub, ast.Add, ast.Sub
    T_COMPLEX = complex
    NUMBERS = (int, float, complex)
    REAL = (int, float)
    COLLECTIONS = (list, tuple, set, frozenset)
    names = {n: getattr(builtins, n) for n in ARG_BUILTINS}
    ops = {n: getattr(operator, n) for n in ARG_OPERATORS}

    def bad(node):
        where = ""
        if _type(_getattr(node, "col_offset", None)) is _int:
            where = " at column %d" % (node.col_offset + 1)
        raise ValueError("not an accepted argument literal: " + _type(node).__name__ + where)

    def collection(nodes):
        out = []
        for e in nodes:
            _append(out, convert(e))
        return out

    def call(node):
        f = node.func
        if node.keywords or _type(f) is not N_NAME or _len(node.args) > 1:
            bad(node)
        name, args = f.id, node.args
        if name == "float" and args and _type(args[0]) is N_CONST and _type(args[0].value) is _str:
            return _float(args[0].value)
        if name == "iter" and args:
            items = convert(args[0])
            if _type(items) in (list, tuple):
                return _iter(items)
        if name in ("set", "frozenset"):
            make = _set if name == "set" else _frozen
            if not args:
                return make()
            items = convert(args[0])
            if _type(items) in COLLECTIONS:
                return make(items)
        bad(node)

    def convert(node):
        t = _type(node)
        if t is N_CONST:
            return node.value
        if t is N_LIST:
            return collection(node.elts)
        if t is N_TUPLE:
            return _tuple(collection(node.elts))
        if t is N_SET:
            return _set(collection(node.elts))
        if t is N_DICT:
            if _len(node.keys) != _len(node.values):
                bad(node)
            out = {}
            for k, v in _zip(node.keys, node.values):
                if k is None:  # `**mapping`
                    bad(node)
                out[convert(k)] = convert(v)
            return out
        if t is N_UNARY and _type(node.op) in (O_UADD, O_USUB):
            if _type(node.operand) not in (N_CONST, N_CALL):
                bad(node)
            v = convert(node.operand)
            if _type(v) not in NUMBERS:
                bad(node)
            return -v if _type(node.op) is O_USUB else +v
        if t is N_BINOP and _type(node.op) in (O_ADD, O_SUB):  # a complex number: 1+2j
            left = convert(node.left)
            right = node.right
            if (_type(left) not in REAL or _type(node.left) not in (N_CONST, N_UNARY)
                    or _type(right) is not N_CONST or _type(right.value) is not T_COMPLEX):
                bad(node)
            return left + right.value if _type(node.op) is O_ADD else left - right.value
        if t is N_CALL:
            return call(node)
        if t is N_NAME and node.id in names:
            return names[node.id]
        if (t is N_ATTR and _type(node.value) is N_NAME and node.value.id == "operator"
                and node.attr in ops):
            return ops[node.attr]
        bad(node)

    def evaluate(text):
        if _type(text) is not _str:
            raise ValueError("argument text is not a string")
        tree = _compile(text.lstrip(" \t"), "<arguments>", "eval", only_ast)
        if _type(tree) is not N_EXPR:
            bad(tree)
        return convert(tree.body)

    return evaluate


# --------------------------------------------------------------------------- tagging (child)

class _Drawn:
    """What a returned iterator gave when drawn (see `_session_main`): its type, its items
    (iterators among them drawn too), and whether the draw stopped at the cap. Made only by
    the runner; a forged one could only claim what a real iterator can yield anyway."""

    __slots__ = ("type", "items", "truncated")

    def __init__(self, t, items, truncated):
        self.type, self.items, self.truncated = t, items, truncated

    def __repr__(self):
        t = self.type
        name = getattr(t, "__qualname__", "?")
        module = getattr(t, "__module__", "builtins")
        if module != "builtins":
            name = str(module) + "." + str(name)
        return "<" + str(name) + "> " + repr(self.items) + (" ..." if self.truncated else "")


def _make_tagger(repr_cap):
    """Returns a function turning a Python value into nested tuples of exact builtin types,
    built from references captured now (before user code runs)."""
    _type = type
    _repr = builtins.repr
    _len = len
    _id = id
    _isnan = float.__ne__
    _sorted = sorted
    _str = str
    T_INT, T_FLOAT, T_STR, T_BYTES, T_BOOL = int, float, str, bytes, bool
    T_LIST, T_TUPLE, T_DICT, T_SET, T_FROZEN = list, tuple, dict, set, frozenset
    NONE = _type(None)
    DRAWN = _Drawn
    _bytes_hex = bytes.hex
    _list_append = list.append

    def safe_repr(x):
        try:
            r = _repr(x)
            if _type(r) is not T_STR:
                return "<repr returned a non-str>"
        except BaseException as e:  # noqa: BLE001
            return "<repr failed: " + _type(e).__name__ + ">"
        if _len(r) > repr_cap:
            r = r[:repr_cap] + "...<truncated>"
        return r

    def qualname(t):
        try:
            mod = t.__module__
            name = t.__qualname__
            if _type(mod) is T_STR and _type(name) is T_STR:
                return name if mod == "builtins" else mod + "." + name
        except BaseException:  # noqa: BLE001
            pass
        return "?"

    def tag(x, depth, seen):
        t = _type(x)
        if t is NONE:
            return ("none",)
        if t is DRAWN:
            out = []
            for v in x.items:
                _list_append(out, tag(v, depth + 1, seen))
            return ("iter", out, x.truncated is True)
        if t is T_BOOL:
            return ("bool", x is True)
        if t is T_INT:
            return ("int", x)
        if t is T_FLOAT:
            return ("float", x)
        if t is T_STR:
            return ("str", x)
        if t is T_BYTES:
            return ("bytes", _bytes_hex(x))
        if depth > 100:
            return ("object", "deep", "<nested too deep>")
        if t in (T_LIST, T_TUPLE, T_DICT, T_SET, T_FROZEN):
            if _id(x) in seen:
                return ("object", "recursive", "<recursive>")
            seen.add(_id(x))
            try:
                if t is T_DICT:
                    items = []
                    for k in T_LIST(x):
                        _list_append(items, (tag(k, depth + 1, seen), tag(x[k], depth + 1, seen)))
                    return ("dict", items)
                out = []
                for v in T_LIST(x):
                    _list_append(out, tag(v, depth + 1, seen))
                name = {T_LIST: "list", T_TUPLE: "tuple", T_SET: "set", T_FROZEN: "frozenset"}[t]
                return (name, out)
            finally:
                seen.discard(_id(x))
        return ("object", qualname(t), safe_repr(x))

    def top(x):
        return tag(x, 0, set())

    return top, safe_repr


# --------------------------------------------------------------------------- audit hook (child)

def _make_hook(read_roots, write_roots, readonly_roots, runner_pid, violations,
               allow_loopback=False, code_guard_file=None):
    """`code_guard_file`: refuse replacing the code of functions of that file only (pytest
    requests: the standard library and test tools replace code objects, e.g.
    `types.coroutine` when asyncio is imported, hypothesis' `proxies`); None: refuse all."""
    _abspath = os.path.abspath
    _fspath = os.fspath
    _type = type
    _append = violations.append
    _str = str
    _bytes = bytes
    _decode = bytes.decode
    O_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    reads = tuple(read_roots)
    secrets = frozenset(("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
                         "/etc/sudoers"))
    writes = tuple(write_roots)
    readonly = tuple(readonly_roots)
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
        raise PermissionError(errno.EACCES, "freshbench sandbox: " + what)

    def hook(event, args):
        if event not in watched:
            return
        if event == "open":
            path, mode, flags = args
            if path is None or _type(path) is int:
                return
            p = norm(path)
            writing = (mode is not None and _type(mode) is _str and ("w" in mode or "a" in mode
                       or "x" in mode or "+" in mode)) or (mode is None and _type(flags) is int
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
            fam = getattr(sock, "family", None)
            if fam in (AF_INET, AF_INET6):
                addr = args[1] if len(args) > 1 else None
                host = addr[0] if _type(addr) is tuple and addr else None
                if not (allow_loopback and _type(host) is _str and (
                        host.startswith("127.") or host in ("::1", "localhost", "", "0.0.0.0", "::"))):
                    deny("network (" + event + ")")
        elif event in ("os.kill", "os.killpg"):
            pid = args[0]
            if pid in (-1, 1, runner_pid):
                deny(event + " of the runner or of every process")
        elif event == "object.__setattr__":
            if len(args) >= 2 and args[1] in ("__code__", "__globals__"):
                if code_guard_file is None:
                    deny("replacing a code object")
                try:
                    owner = args[0].__code__.co_filename
                except BaseException:  # noqa: BLE001
                    owner = code_guard_file
                if owner == code_guard_file:
                    deny("replacing a code object of the harness")
        else:
            deny(event)

    return hook


# --------------------------------------------------------------------------- child bodies

def _lower_limits(lim):
    pairs = ((resource.RLIMIT_CPU, lim.get("cpu_seconds")), (resource.RLIMIT_AS, lim.get("memory_bytes")),
             (resource.RLIMIT_FSIZE, lim.get("file_size_bytes")),
             (resource.RLIMIT_NOFILE, lim.get("open_files")), (resource.RLIMIT_CORE, 0))
    for res, val in pairs:
        if val is None:
            continue
        soft, hard = resource.getrlimit(res)
        if hard != resource.RLIM_INFINITY:
            val = min(val, hard)
        try:
            resource.setrlimit(res, (val, val))
        except (ValueError, OSError):
            pass


def _function_span(fn):
    for _ in range(20):
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            break
        fn = inner
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    first = code.co_firstlineno
    last = first
    stack = [code]
    while stack:
        c = stack.pop()
        for _, _, line in c.co_lines():
            if line is not None and line > last:
                last = line
        for k in c.co_consts:
            if type(k) is type(code):
                stack.append(k)
    return code.co_filename, first, last


def _load_target(req, scratch):
    target = req["target"]
    kind = target["kind"]
    if kind == "module":
        return importlib.import_module(target["name"])
    if kind == "file":
        path = os.path.abspath(target["path"])
        name = target.get("name") or os.path.splitext(os.path.basename(path))[0]
    else:
        name = target.get("name") or "candidate"
        path = os.path.join(scratch, "fb_source", name + ".py")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(target["text"])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import " + path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _classify_exception(e, writable):
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


def _flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - closed or replaced by the code
            pass


def _raw_arcs(cov, filename):
    """Arcs coverage.py collected for `filename` since the last call, then forgotten. Reads
    the collector directly (coverage 7.x; about 500 times cheaper than get_data and erase),
    falling back to the public API."""
    try:
        col = cov._collector
        packed = getattr(col.core, "packed_arcs", False)
        arcs = set()
        wanted = os.path.realpath(filename)
        for fname, raw in col.data.items():
            if fname == filename or os.path.realpath(fname) == wanted:
                for item in raw:
                    if packed:
                        l1 = item & 0xFFFFFFF
                        l2 = (item & (0xFFFFFFF << 28)) >> 28
                        if item & (1 << 56):
                            l1 = -l1
                        if item & (1 << 57):
                            l2 = -l2
                        arcs.add((l1, l2))
                    else:
                        arcs.add(tuple(item))
        for raw in col.data.values():
            raw.clear()
        return arcs
    except AttributeError:
        arcs = set(cov.get_data().arcs(filename) or [])
        cov.erase()
        return arcs


def _session_main(req_r, rw, nonce, ctx):
    """Serves the `call`s of one target in this forked child, one after the other, until the
    runner ends the session (any failure, leftover process or thread, another target).
    Everything used after user code has run is a local bound before it ran."""
    dumps, loads, write, read, exit_ = marshal.dumps, marshal.loads, os.write, os.read, os._exit
    perf, flush, pack, unpack = time.perf_counter, _flush, struct.pack, struct.unpack
    tb_format, classify = traceback.format_exception, _classify_exception
    getrusage, setrlimit, RLIMIT_CPU = resource.getrusage, resource.setrlimit, resource.RLIMIT_CPU
    cpu_hard = resource.getrlimit(RLIMIT_CPU)[1]
    span_of, load, raw_arcs = _function_span, _load_target, _raw_arcs
    _type, _str, _len, _sorted, _abs = type, str, len, sorted, abs
    violations, writable, scratch = ctx["violations"], ctx["writable"], ctx["scratch"]
    cov_mod = ctx["coverage"]
    slicer, tracer_for, no_tracer, trace_report = (ctx.get("slicer"), _tracer_for, _no_tracer,
                                                   _trace_report)
    tagger, safe_repr = _make_tagger(ctx["repr_cap"])
    arg_eval = _make_arg_eval()
    _hasattr, _next, _range, _StopIteration = hasattr, next, range, StopIteration
    _append, iter_items, Drawn, _list, _tuple = list.append, ITER_ITEMS, _Drawn, list, tuple
    state = {"module": None, "cov": {}, "static": {}}

    def draw(x, depth, budget):
        """`x` with every iterator in it drawn (itself, or inside lists and tuples, three
        levels deep), at most `budget[0]` items in all; `x` itself when it holds none."""
        vt = _type(x)
        if _hasattr(vt, "__next__") and _hasattr(vt, "__iter__"):
            items, truncated = [], True
            while budget[0] > 0:
                try:
                    item = _next(x)
                except _StopIteration:
                    truncated = False
                    break
                budget[0] -= 1
                _append(items, draw(item, depth + 1, budget) if depth < 3 else item)
            return Drawn(vt, items, truncated)
        if (vt is _list or vt is _tuple) and depth < 3:
            out, changed = [], False
            for item in x:
                d = draw(item, depth + 1, budget)
                changed = changed or d is not item
                _append(out, d)
            if changed:
                return out if vt is _list else _tuple(out)
        return x

    def recv_exact(n):
        buf = b""
        while _len(buf) < n:
            chunk = read(req_r, n - _len(buf))
            if not chunk:
                exit_(0)
            buf += chunk
        return buf

    def send(payload):
        data = nonce + pack("<I", _len(payload)) + payload
        while data:
            data = data[write(rw, data):]

    def one(req):
        try:
            args = arg_eval(req.get("args") or "[]")
            kwargs = arg_eval(req.get("kwargs") or "{}")
            if _type(args) not in (list, tuple) or _type(kwargs) is not dict:
                raise ValueError("args must be a list or tuple literal and kwargs a dict literal")
        except BaseException as e:  # noqa: BLE001
            return {"status": "harness_error", "detail": "bad arguments: " + repr(e)}
        cpu = req["limits"].get("cpu_seconds")
        if cpu is not None:
            used = getrusage(0)
            soft = int(used.ru_utime + used.ru_stime) + int(cpu) + 1
            if cpu_hard != resource.RLIM_INFINITY:
                soft = min(soft, cpu_hard)
            setrlimit(RLIMIT_CPU, (soft, cpu_hard))
        fn = None
        cov = None
        t0 = perf()
        try:
            if state["module"] is None:
                state["module"] = load(req, scratch)
            fn = state["module"]
            for part in req["function"].split("."):
                fn = getattr(fn, part)
            span = None
            if req.get("coverage") and cov_mod is not None:
                span = span_of(fn)
                if span is not None:
                    cov = state["cov"].get(span[0])
                    if cov is None:
                        cov = cov_mod.Coverage(branch=True, data_file=None, include=[span[0]],
                                               config_file=False)
                        cov.start()
                        cov.stop()
                        raw_arcs(cov, span[0])
                        state["cov"][span[0]] = cov
            tracer = None
            trace = req.get("trace")
            if trace is not None:
                target = getattr(state["module"], "__file__", None)
                if cov is None:
                    tracer = tracer_for(slicer, trace, [os.getcwd()],
                                        slicer.realpath(target) if slicer and target else None)
                if tracer is None:
                    state["trace"] = no_tracer()
            t0 = perf()
            if cov is not None:
                cov.start()
            if tracer is not None:
                tracer.start()
            try:
                value = fn(*args, **kwargs)
                # Returned iterators (also inside a returned list or tuple) are drawn here,
                # under coverage and the clock: the code they run lazily is the function's;
                # what they raise, the call raises.
                value = draw(value, 0, [iter_items])
            finally:
                if tracer is not None:
                    tracer.stop()
                    state["trace"] = trace_report(slicer, tracer, perf() - t0)
                if cov is not None:
                    cov.stop()
            secs = perf() - t0
            payload = {"status": "ok", "value": tagger(value), "repr": safe_repr(value)}
        except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
            secs = perf() - t0
            try:
                message = _str(e)
            except BaseException:  # noqa: BLE001
                message = "<str failed>"
            try:
                tb = "".join(tb_format(_type(e), e, e.__traceback__))[-4000:]
            except BaseException:  # noqa: BLE001
                tb = ""
            payload = {"status": classify(e, writable),
                       "exception": (_type(e).__qualname__, message[:4000], tb)}
            e = None
        payload["seconds"] = secs
        if state.get("trace") is not None:
            payload["slices"] = [(None, state.pop("trace"))]
        if cov is not None:
            try:
                filename, first, last = span
                executed = raw_arcs(cov, filename)
                static = state["static"].get(filename)
                if static is None:
                    from coverage.python import PythonFileReporter

                    reporter = PythonFileReporter(filename, cov)
                    static = state["static"][filename] = (reporter, reporter.arcs())
                reporter, possible = static
                # The lines of a statement spanning several lines are traced one by one;
                # coverage.py's static arcs name the statement by its first line, so the
                # executed arcs are translated the same way before they are compared.
                executed = reporter.translate_arcs(executed)

                def inside(arc):
                    a, b = arc
                    return (first <= _abs(a) <= last and first <= _abs(b) <= last and a != first
                            and b != first)

                payload["coverage"] = (filename, first, last,
                                       _sorted(a for a in executed if inside(a)),
                                       _sorted(a for a in possible if inside(a)))
            except BaseException as e:  # noqa: BLE001
                payload["coverage_error"] = repr(e)
        return payload

    me = os.getpid()
    getpid = os.getpid
    sys.addaudithook(ctx["hook"])
    while True:
        size = unpack("<I", recv_exact(4))[0]
        req = loads(recv_exact(size))
        payload = one(req)
        if getpid() != me:  # a process the code forked got here: it is not the session
            exit_(0)
        flush()
        if violations:
            payload["status"] = "sandbox_violation"
            payload["detail"] = "; ".join(violations[:5])
        send(dumps(payload))


def _install_capture(captures, current):
    """The assertion family's capture: a test rewritten by freshbench calls
    `__freshbench_capture__(key, X)` where an assertion compared X, and
    `with __freshbench_raises__(key):` where it expected an exception. The first value per
    (test, key) is kept, tagged as a call's result is, with the number of times the place
    ran; the raises form records the exception type's qualified name (or None when the
    block raised nothing) and suppresses the exception, as `pytest.raises` would."""
    tagger, _ = _make_tagger(4000)

    def keep(key, tag):
        k = (current[0] or "<outside a test>", key)
        c = captures.get(k)
        if c is None:
            captures[k] = [1, tag]
        else:
            c[0] += 1

    def capture(key, value):
        keep(key, tagger(value))
        return value

    class Raises:
        def __init__(self, key):
            self.key = key

        def __enter__(self):
            return self

        def __exit__(self, et, ev, tb):
            if et is None:
                keep(self.key, ("none",))
                return False
            mod, name = getattr(et, "__module__", "?"), getattr(et, "__qualname__", "?")
            keep(self.key, ("str", name if mod == "builtins" else "%s.%s" % (mod, name)))
            return issubclass(et, Exception)

    builtins.__freshbench_capture__ = capture
    builtins.__freshbench_raises__ = Raises


def _child_pytest(req, rw, nonce, ctx, pw=-1):
    """Runs a pytest session. `pw`: the progress channel, where each test's node id is
    written when it starts (`S nodeid\\n`) and `E\\n` when it ends, so that the runner can
    name the test that was running when the process died or hung."""
    dumps, write, exit_, flush = marshal.dumps, os.write, os._exit, _flush
    violations = ctx["violations"]
    rootdir = os.path.abspath(req.get("rootdir") or ".")
    results = {}
    order = []
    cov_mod = ctx["coverage"] if req.get("coverage") else None
    cov = None
    payload = {"status": "ok"}
    for item in req.get("overlay") or []:
        # A replaced file that does not compile is the answer's syntax error: no test runs.
        try:
            compile(item["text"], item["path"], "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            payload = {"status": "exception", "detail": "overlay does not compile",
                       "exception": ("SyntaxError", str(e)[:2000], "")}
            flush()
            write(rw, nonce + dumps(payload))
            exit_(0)
    captures = {}
    current = [None]
    if req.get("capture"):
        _install_capture(captures, current)
    trace = req.get("trace")
    slicer = ctx.get("slicer") if trace is not None else None
    slices = []
    try:
        import pytest

        def progress(line):
            if pw != -1:
                try:
                    write(pw, line.encode("utf-8", "replace") + b"\n")
                except OSError:
                    pass

        class Collector:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_protocol(self, item, nextitem):
                progress("S " + item.nodeid)
                current[0] = item.nodeid
                seen = len(violations)
                if cov is not None:
                    cov.switch_context(item.nodeid)
                yield
                if cov is not None:
                    cov.switch_context("")
                if len(violations) > seen:
                    # The test itself tripped the sandbox: it is charged, not its neighbours.
                    r = results.setdefault(item.nodeid, ["error", 0.0, ""])
                    if item.nodeid not in order:
                        order.append(item.nodeid)
                    r[0] = "error"
                    r[2] = ("sandbox violation: " + "; ".join(violations[seen:seen + 3]))[:2000]
                progress("E")

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_call(self, item):
                # The test's call is traced (not its setup: fixtures are its inputs).
                if trace is None:
                    yield
                    return
                tracer = _tracer_for(slicer, trace, [rootdir]) if cov is None else None
                if tracer is None:
                    slices.append((item.nodeid, _no_tracer()))
                    yield
                    return
                t0 = time.perf_counter()
                tracer.start()
                try:
                    yield
                finally:
                    tracer.stop()
                    slices.append((item.nodeid,
                                   _trace_report(slicer, tracer, time.perf_counter() - t0)))

            def pytest_runtest_logreport(self, report):
                nid = report.nodeid
                if nid not in results:
                    results[nid] = ["passed", 0.0, ""]
                    order.append(nid)
                r = results[nid]
                r[1] += report.duration
                if report.skipped and report.when in ("setup", "call") and r[0] == "passed":
                    r[0] = "skipped"
                elif report.failed:
                    r[0] = "failed" if report.when == "call" else "error"
                    r[2] = (report.longreprtext or "")[-2000:]

            def pytest_collectreport(self, report):
                if report.failed:
                    nid = report.nodeid or "<collection>"
                    results[nid] = ["error", 0.0, (report.longreprtext or "")[-2000:]]
                    order.append(nid)

        os.chdir(rootdir)
        if rootdir not in sys.path:
            sys.path.insert(0, rootdir)
        if cov_mod is not None:
            cov = cov_mod.Coverage(data_file=None, source=[rootdir], config_file=False)
            cov.start()
        sys.addaudithook(ctx["hook"])
        argv = list(req.get("node_ids") or []) + ["-q", "-p", "no:cacheprovider", "--rootdir",
                                                   rootdir] + list(req.get("extra_args") or [])
        t0 = time.perf_counter()
        try:
            rc = pytest.main(argv, plugins=[Collector()])
        finally:
            if cov is not None:
                cov.stop()
        payload["seconds"] = time.perf_counter() - t0
        payload["exit_code"] = int(rc)
        lines = {}
        if cov is not None:
            data = cov.get_data()
            for f in sorted(data.measured_files()):
                rel = os.path.relpath(f, rootdir)
                for lineno, ctxs in (data.contexts_by_lineno(f) or {}).items():
                    for c in ctxs:
                        if c:
                            lines.setdefault(c, {}).setdefault(rel, []).append(lineno)
        if trace is not None:
            payload["slices"] = slices
        if req.get("capture"):
            payload["captures"] = [(nid, key, c[0], c[1]) for (nid, key), c in captures.items()]
        payload["tests"] = [(nid, results[nid][0], results[nid][1], results[nid][2],
                             sorted((p, sorted(ls)) for p, ls in lines.get(nid, {}).items()))
                            for nid in order]
    except BaseException as e:  # noqa: BLE001
        payload = {"status": "exception", "exception": (type(e).__qualname__, str(e)[:4000], "")}
    flush()
    if violations:
        payload["status"] = "sandbox_violation"
        payload["detail"] = "; ".join(violations[:5])
    write(rw, nonce + dumps(payload))
    exit_(0)


# --------------------------------------------------------------------------- runner (parent)

class Session:
    """The runner's side of a session child: its pipes, and what it sent for this call."""

    def __init__(self, key, pid, nonce, qw, rr, or_, er):
        self.key, self.pid, self.nonce, self.qw = key, pid, nonce, qw
        self.rr, self.or_, self.er = rr, or_, er
        self.wait_status = None
        self.rbuf = bytearray()
        self.out = bytearray()
        self.err = bytearray()
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # Python < 3.9 or Linux < 5.3: poll instead
            self.pidfd = -1
        self.sel = selectors.DefaultSelector()
        self.open = {rr, or_, er}
        for fd in self.open:
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        if self.pidfd != -1:
            self.sel.register(self.pidfd, selectors.EVENT_READ)

    def result_complete(self):
        if len(self.rbuf) < 20:
            return False
        if self.rbuf[:16] != self.nonce:
            return True  # forged: judged by take_result
        return len(self.rbuf) >= 20 + struct.unpack("<I", self.rbuf[16:20])[0]

    def exited(self, ws):
        self.wait_status = ws
        if self.pidfd != -1:
            self.sel.unregister(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = -1

    def read_ready(self, fd):
        """Reads what `fd` has; returns False at end of file."""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            if not chunk:
                self.sel.unregister(fd)
                self.open.discard(fd)
                return False
            if fd == self.rr:
                self.rbuf += chunk
            elif fd == self.or_:
                self.out += chunk
            else:
                self.err += chunk
            if len(chunk) < 65536:
                return True

    def wait_result(self, deadline, cap, wall):
        """Waits for this call's result; returns (status, detail) when it failed otherwise."""
        self.out = bytearray()
        self.err = bytearray()
        while not self.result_complete():
            if self.wait_status is not None:
                for fd in list(self.open):
                    self.read_ready(fd)
                break
            now = time.monotonic()
            if now >= deadline:
                return "timeout", "wall-clock limit of %gs" % wall
            poll = self.pidfd == -1
            for key, _ in self.sel.select(timeout=min(deadline - now, 0.01 if poll else 1.0)):
                if key.fd == self.pidfd:
                    self.exited(_waitpid(self.pid)[1])
                else:
                    self.read_ready(key.fd)
            if poll and self.wait_status is None:
                wpid, ws = _waitpid(self.pid, os.WNOHANG)
                if wpid == self.pid:
                    self.exited(ws)
            if len(self.out) + len(self.err) > cap or len(self.rbuf) > 4 * max(cap, 1 << 20):
                return "output_limit", "output over %d bytes" % cap
        for fd in (self.or_, self.er):
            if fd in self.open:
                self.read_ready(fd)
        if len(self.out) + len(self.err) > cap:
            return "output_limit", "output over %d bytes" % cap
        return None, None

    def take_result(self):
        """(payload, None, None), or (None, status, detail) when there is no honest result."""
        raw = bytes(self.rbuf)
        self.rbuf = bytearray()
        ws = self.wait_status
        if not raw:
            if ws is not None and os.WIFSIGNALED(ws):
                sig = os.WTERMSIG(ws)
                name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
                status = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "resource_limit"}.get(sig, "crash")
                return None, status, "killed by " + name + (
                    " (CPU-time limit)" if sig == signal.SIGXCPU else "")
            code = os.WEXITSTATUS(ws) if ws is not None else -1
            return None, "crash", "exited with code %d without a result" % code
        if raw[:16] != self.nonce or len(raw) < 20:
            return None, "sandbox_violation", "forged or damaged result on the result channel"
        size = struct.unpack("<I", raw[16:20])[0]
        if len(raw) != 20 + size:
            return None, "sandbox_violation", "forged or damaged result on the result channel"
        try:
            payload = marshal.loads(raw[20:])
            if type(payload) is not dict:
                raise ValueError("not a dict")
        except Exception as e:  # noqa: BLE001
            return None, "sandbox_violation", "unreadable result: %r" % (e,)
        return payload, None, None

    def close(self):
        self.sel.close()
        if self.pidfd != -1:
            os.close(self.pidfd)
        for fd in (self.qw, self.rr, self.or_, self.er):
            try:
                os.close(fd)
            except OSError:
                pass


class Runner:
    def __init__(self, opts):
        self.session = None
        self.opts = opts
        self.work = os.path.abspath(opts["work"])
        self.scratch = os.path.abspath(opts["scratch"])
        self.kill_all = opts["kill_all"]
        self.pid = os.getpid()
        try:
            import coverage
        except ImportError:
            coverage = None
        self.coverage = coverage
        self.slicer = _load_slicer()
        for m in opts["preload"]:
            importlib.import_module(m)
        self.read_roots = sorted(set(os.path.abspath(p) for p in opts["read"]) | {self.work, self.scratch})
        self.readonly_roots = sorted(set(os.path.abspath(p) for p in opts["readonly"]))
        self.write_roots = sorted(set(os.path.abspath(p) for p in opts["write"])
                                  | {self.work, self.scratch, DEVNULL, "/dev/shm"})

    # ------------------------------------------------------------------ the work folder

    def snapshot_work(self):
        """Records the work folder as copied from the tree: every file's and link's (size,
        mtime, mode) and every folder, so that `restore_work` can undo what requests change."""
        files, dirs = {}, set()
        for root, dnames, fnames in os.walk(self.work):
            rel = os.path.relpath(root, self.work)
            dirs.add(rel)
            for n in dnames + fnames:
                full = os.path.join(root, n)
                if n in dnames and not os.path.islink(full):
                    continue
                st = os.lstat(full)
                files[os.path.normpath(os.path.join(rel, n))] = (st.st_size, st.st_mtime_ns, st.st_mode)
        self.pristine = (files, dirs)

    def restore_work(self):
        """Puts the work folder back as `snapshot_work` saw it: files and folders that were
        added are removed, changed or missing ones copied again from the tree. A folder or
        file made unwritable is made writable first. A work folder that cannot be restored
        ends the worker (the caller starts a fresh one, with a fresh copy)."""
        import shutil
        import stat as stat_mod

        tree = self.opts.get("tree")
        if not tree or getattr(self, "pristine", None) is None:
            return
        files, dirs = self.pristine
        try:
            os.chmod(self.work, 0o755)
            for root, dnames, fnames in os.walk(self.work, topdown=True):
                rel = os.path.relpath(root, self.work)
                keep = []
                for n in dnames:
                    r = os.path.normpath(os.path.join(rel, n))
                    full = os.path.join(root, n)
                    if os.path.islink(full):
                        if r not in files:
                            os.unlink(full)
                        continue
                    os.chmod(full, 0o755)  # so that os.walk can list it
                    if r in dirs:
                        keep.append(n)
                    else:
                        for sub_root, _, _ in os.walk(full):
                            os.chmod(sub_root, 0o755)
                        shutil.rmtree(full)
                dnames[:] = keep
                for n in fnames:
                    r = os.path.normpath(os.path.join(rel, n))
                    full = os.path.join(root, n)
                    st = os.lstat(full)
                    want = files.get(r)
                    if want is None:
                        os.unlink(full)
                    elif (st.st_size, st.st_mtime_ns, st.st_mode) != want:
                        os.unlink(full)
            for d in sorted(dirs):
                os.makedirs(os.path.join(self.work, d), exist_ok=True)
            for r, (_, _, mode) in list(files.items()):
                dst = os.path.join(self.work, r)
                if os.path.lexists(dst):
                    continue
                src = os.path.join(tree, r)
                if stat_mod.S_ISLNK(mode):
                    os.symlink(os.readlink(src), dst)
                else:
                    shutil.copy2(src, dst)
                    os.chmod(dst, stat_mod.S_IMODE(mode))
                st = os.lstat(dst)
                files[r] = (st.st_size, st.st_mtime_ns, st.st_mode)
        except OSError:
            os._exit(75)  # EX_TEMPFAIL: the caller replaces this worker

    def apply_overlay(self, overlay):
        """Writes the request's files into the work folder (`[path, text]` pairs, paths
        relative to it); an error message for a path outside it."""
        for item in overlay:
            path, text = item["path"], item["text"]
            full = os.path.normpath(os.path.join(self.work, path))
            if os.path.isabs(path) or not full.startswith(self.work + os.sep):
                return "overlay path outside the work folder: %r" % (path,)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        return None

    def reap(self):
        while True:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            _note_reaped(pid, st)

    def others_alive(self, child):
        """Whether the request left processes behind (after reaping the dead ones)."""
        self.reap()
        try:
            if self.kill_all:
                os.kill(-1, 0)
            else:
                os.killpg(child, 0)
        except OSError:
            return False
        return True

    def children_of(self, pid):
        """Children of every thread of `pid`, from /proc (empty if it is gone)."""
        kids = []
        try:
            for tid in os.listdir("/proc/%d/task" % pid):
                try:
                    with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                        kids.extend(int(k) for k in f.read().split())
                except OSError:
                    pass
        except OSError:
            pass
        return kids

    def kill_rest(self, child):
        """Kills the request's process, its group and every process it left (inside a pid
        namespace or with a sandbox uid: every process but the runner), and reaps them."""
        if not self.kill_all:  # its descendants first, before they are reparented
            todo, seen = [child], set()
            while todo:
                p = todo.pop()
                if p in seen:
                    continue
                seen.add(p)
                todo.extend(self.children_of(p))
            for p in seen:
                for kill in (os.killpg, os.kill):
                    try:
                        kill(p, signal.SIGKILL)
                    except OSError:
                        pass
        try:
            os.killpg(child, signal.SIGKILL)
        except OSError:
            pass
        if self.kill_all:
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        if child in _WATCHED and child not in _REAPED:
            try:  # it was just sent SIGKILL: a blocking wait is short
                _note_reaped(*os.waitpid(child, 0))
            except ChildProcessError:
                pass
        self.reap_all()

    def reap_all(self, timeout=2.0):
        """Kills and reaps the runner's children (orphans come to it: it is pid 1 or a
        subreaper) until none is left, or `timeout`."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid:
                _note_reaped(pid, st)
                continue
            left = self.children_of(self.pid)
            if not left:
                return
            for k in left:
                try:
                    os.kill(k, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.001)

    def serve(self, req):
        kind = req.get("kind")
        if kind == "call":
            return self.serve_call(req)
        if kind == "pytest":
            self.end_session()
            if not getattr(self, "pytest_loaded", False):
                # pytest imported once here, not in every forked child (most of a short
                # run's start); its plugins and the project's modules still load per run.
                self.pytest_loaded = True
                try:
                    import pytest  # noqa: F401
                except Exception:
                    pass  # the child reports it
            pristine = bool(req.get("pristine"))
            if pristine:
                self.restore_work()
                err = self.apply_overlay(req.get("overlay") or [])
                if err is not None:
                    self.restore_work()
                    return {"status": "harness_error", "detail": err}
            try:
                return self.serve_oneshot(req)
            finally:
                if pristine:
                    # Whatever the request did to the work folder is undone before the next.
                    self.restore_work()
        return {"status": "harness_error", "detail": "unknown request kind %r" % (kind,)}

    # ------------------------------------------------------------------ call sessions

    def _enter_child(self, parent_ends, ow, ew, limits):
        """The first steps of a freshly forked child that will run code: close the parent's
        pipe ends and the protocol channel, take a process group of its own, send fds 1 and
        2 to the capture pipes, restore default signal handling, lower the limits and enter
        the work folder."""
        for fd in tuple(parent_ends) + (self.proto_in, self.proto_out):
            os.close(fd)
        os.setpgid(0, 0)
        _set_dumpable(True)
        os.dup2(ow, 1)
        os.dup2(ew, 2)
        os.close(ow)
        os.close(ew)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        _lower_limits(limits)
        os.chdir(self.work)

    def start_session(self, key, limits):
        nonce = os.urandom(16)
        qr, qw = os.pipe()
        rr, rw = os.pipe()
        or_, ow = os.pipe()
        er, ew = os.pipe()
        pid = os.fork()
        if pid == 0:  # the session child: never returns
            try:
                self._enter_child((qw, rr, or_, er), ow, ew, dict(limits, cpu_seconds=None))
                violations = []
                ctx = {"violations": violations, "scratch": self.scratch, "coverage": self.coverage,
                       "slicer": self.slicer,
                       "writable": (self.work, self.scratch),
                       "repr_cap": int(limits.get("output_bytes", 1 << 20)),
                       "hook": _make_hook(self.read_roots, self.write_roots, self.readonly_roots,
                                          self.pid, violations)}
                _session_main(qr, rw, nonce, ctx)
            finally:
                os._exit(70)
        _WATCHED.add(pid)
        for fd in (qr, rw, ow, ew):
            os.close(fd)
        sess = Session(key, pid, nonce, qw, rr, or_, er)
        return sess

    def end_session(self):
        sess = self.session
        if sess is None:
            return
        self.session = None
        self.kill_rest(sess.pid)
        if sess.wait_status is None:
            sess.wait_status = _waitpid(sess.pid)[1]
        sess.close()
        self.reap()

    def strays(self, sess):
        """Whether the session left processes behind, and how many threads it has."""
        self.reap()
        stray = False
        try:
            if self.pid == 1:
                mine = ("1", str(sess.pid))
                stray = any(n.isdigit() and n not in mine for n in os.listdir("/proc"))
            else:
                stray = bool(self.children_of(sess.pid)) or any(
                    k != sess.pid for k in self.children_of(self.pid))
            with open("/proc/%d/status" % sess.pid) as f:
                threads = next((int(line.split()[1]) for line in f if line.startswith("Threads:")), 1)
        except (OSError, ValueError):
            return stray, 1
        return stray, threads

    def serve_call(self, req):
        limits = req.get("limits") or {}
        wall = float(limits.get("wall_seconds", 10))
        cap = int(limits.get("output_bytes", 1 << 20))
        key = json.dumps([req.get("target"), {k: v for k, v in limits.items()
                                              if k not in ("wall_seconds", "cpu_seconds")}],
                         sort_keys=True)
        fresh = bool(req.get("fresh"))
        if self.session is not None and (fresh or self.session.key != key):
            self.end_session()
        t0 = time.monotonic()
        if self.session is None:
            self.session = self.start_session(key, limits)
        sess = self.session
        msg = marshal.dumps(req)
        try:
            os.write(sess.qw, struct.pack("<I", len(msg)) + msg)
        except OSError:
            pass  # the child is gone: seen below
        status, detail = sess.wait_result(t0 + wall, cap, wall)
        out = {"stdout": bytes(sess.out[:cap]).decode("utf-8", "replace"),
               "stderr": bytes(sess.err[:cap]).decode("utf-8", "replace")}
        payload = None
        if status is None:
            payload, status, detail = sess.take_result()
        end = status is not None or fresh
        leftover = False
        if payload is not None and not end:
            leftover, threads = self.strays(sess)
            end = leftover or threads > 1 or payload.get("status") not in ("ok", "exception")
        if end:
            self.end_session()
        out["wall_seconds"] = time.monotonic() - t0
        if status is not None:
            out["status"] = status
            out["detail"] = detail
            return out
        out = self.to_json(payload, out)
        if leftover and out["status"] in ("ok", "exception"):
            out["status"] = "sandbox_violation"
            out["detail"] = "left processes running after the call (killed)"
        return out

    # ------------------------------------------------------------------ one-shot children

    def serve_oneshot(self, req):
        kind = req.get("kind")
        limits = req.get("limits") or {}
        wall = float(limits.get("wall_seconds", 10))
        cap = int(limits.get("output_bytes", 1 << 20))
        nonce = os.urandom(16)
        rr, rw = os.pipe()
        or_, ow = os.pipe()
        er, ew = os.pipe()
        pr, pw = os.pipe()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            try:
                self._enter_child((rr, or_, er, pr), ow, ew, limits)
                violations = []
                ctx = {"violations": violations, "scratch": self.scratch, "coverage": self.coverage,
                       "slicer": self.slicer,
                       "writable": (self.work, self.scratch),
                       "hook": _make_hook(self.read_roots, self.write_roots, self.readonly_roots, self.pid,
                                          violations,
                                          allow_loopback=self.pid == 1,
                                          code_guard_file=os.path.abspath(__file__))}
                _child_pytest(req, rw, nonce, ctx, pw)
            finally:
                os._exit(70)
        _WATCHED.add(pid)
        os.close(rw)
        os.close(ow)
        os.close(ew)
        os.close(pw)
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # Python < 3.9 or Linux < 5.3: poll instead
            pidfd = -1
        sel = selectors.DefaultSelector()
        bufs = {rr: bytearray(), or_: bytearray(), er: bytearray(), pr: bytearray()}
        for fd in bufs:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        if pidfd != -1:
            sel.register(pidfd, selectors.EVENT_READ)
        status = None
        wait_status = None
        deadline = t0 + wall
        drain_deadline = None
        open_fds = set(bufs)
        result_cap = max(cap, 1 << 20) * 4

        leftover = False

        def child_exited(ws):
            nonlocal wait_status, drain_deadline, leftover
            wait_status = ws
            leftover = self.others_alive(pid)
            self.kill_rest(pid)
            if drain_deadline is None:
                drain_deadline = time.monotonic() + 1.0

        while open_fds or wait_status is None:
            now = time.monotonic()
            limit = drain_deadline if drain_deadline is not None else deadline
            if now >= limit:
                if drain_deadline is None:
                    status = "timeout"
                    self.kill_rest(pid)
                    drain_deadline = now + 1.0
                    continue
                break
            timeout = min(limit - now, 1.0 if pidfd != -1 or wait_status is not None else 0.01)
            events = sel.select(timeout=timeout)
            if pidfd == -1 and wait_status is None:
                wpid, ws = _waitpid(pid, os.WNOHANG)
                if wpid == pid:
                    child_exited(ws)
            for key, _ in events:
                fd = key.fd
                if fd == pidfd:
                    sel.unregister(pidfd)
                    os.close(pidfd)
                    pidfd = -1
                    child_exited(_waitpid(pid)[1])
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    open_fds.discard(fd)
                    continue
                bufs[fd] += chunk
                if fd == pr and len(bufs[pr]) > 65536:
                    # Only the last test matters: keep the tail, from a line's start.
                    tail = bytes(bufs[pr][-32768:])
                    bufs[pr] = bytearray(tail[tail.find(b"\n") + 1:])
                if status is None and (len(bufs[or_]) + len(bufs[er]) > cap or len(bufs[rr]) > result_cap):
                    status = "output_limit"
                    self.kill_rest(pid)
                    if drain_deadline is None:
                        drain_deadline = time.monotonic() + 1.0
        if wait_status is None:
            self.kill_rest(pid)
            if pidfd != -1:
                sel.unregister(pidfd)
                os.close(pidfd)
            wait_status = _waitpid(pid)[1]
        sel.close()
        for fd in bufs:
            os.close(fd)
        self.reap()
        elapsed = time.monotonic() - t0
        out = {"stdout": bytes(bufs[or_][:cap]).decode("utf-8", "replace"),
               "stderr": bytes(bufs[er][:cap]).decode("utf-8", "replace"),
               "wall_seconds": elapsed}
        running = None
        for line in bytes(bufs[pr]).decode("utf-8", "replace").split("\n"):
            if line.startswith("S "):
                running = line[2:]
            elif line == "E":
                running = None
        if running:
            out["running_test"] = running
        raw = bytes(bufs[rr])
        if status is not None:
            out["status"] = status
            out["detail"] = ("wall-clock limit of %gs" % wall) if status == "timeout" else \
                ("output over %d bytes" % cap)
            return out
        if os.WIFSIGNALED(wait_status):
            sig = os.WTERMSIG(wait_status)
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            out["status"] = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "resource_limit"}.get(sig, "crash")
            out["detail"] = "killed by " + name + (" (CPU-time limit)" if sig == signal.SIGXCPU else "")
            return out
        code = os.WEXITSTATUS(wait_status)
        if not raw:
            out["status"] = "crash"
            out["detail"] = "exited with code %d without a result" % code
            return out
        if len(raw) < 16 or raw[:16] != nonce or code != 0:
            out["status"] = "sandbox_violation"
            out["detail"] = "forged or damaged result on the result channel (exit code %d)" % code
            return out
        try:
            payload = marshal.loads(raw[16:])
            if type(payload) is not dict:
                raise ValueError("not a dict")
        except Exception as e:  # noqa: BLE001
            out["status"] = "sandbox_violation"
            out["detail"] = "unreadable result: %r" % (e,)
            return out
        out = self.to_json(payload, out)
        if leftover:
            out["detail"] = ((out.get("detail") or "") + "; left processes running (killed)").lstrip("; ")
        return out

    def to_json(self, p, out):
        out["status"] = p.get("status", "crash")
        for k in ("detail", "repr", "seconds", "exit_code", "coverage_error"):
            if k in p:
                out[k] = p[k]
        if "value" in p:
            out["value"] = _tag_to_json(p["value"])
        if "exception" in p:
            t, m, tb = p["exception"]
            out["exception"] = {"type": t, "message": m, "traceback": tb}
        if "coverage" in p:
            f, first, last, arcs, possible = p["coverage"]
            out["coverage"] = {"file": os.path.relpath(f, self.work) if f.startswith(self.work) else f,
                               "first_line": first, "last_line": last,
                               "arcs": [list(a) for a in arcs], "function_arcs": [list(a) for a in possible]}
        if "captures" in p:
            out["captures"] = [{"node_id": n, "key": k, "count": c, "value": _tag_to_json(t)}
                               for n, k, c, t in p["captures"]]
        if "slices" in p:
            out["slices"] = [_slice_to_json(n, r) for n, r in p["slices"]]
        if "tests" in p:
            out["tests"] = [{"node_id": n, "outcome": o, "seconds": s, "detail": d or None,
                             "lines": [{"path": path, "lines": ls} for path, ls in lines]}
                            for n, o, s, d, lines in p["tests"]]
        return out

    def hello(self):
        try:
            nets = [n for _, n in __import__("socket").if_nameindex()]
        except OSError:
            nets = []
        return {"hello": PROTOCOL, "pid": os.getpid(), "uid": os.getuid(), "gid": os.getgid(),
                "python": sys.version.split()[0], "executable": sys.executable,
                "coverage": getattr(self.coverage, "__version__", None), "interfaces": nets,
                "work": self.work}

    def main(self):
        self.proto_in = os.dup(0)
        self.proto_out = os.dup(1)
        null = os.open(DEVNULL, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        _set_dumpable(False)
        try:  # orphans of a request come to the runner, which can then see and kill them
            import ctypes

            ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        except Exception:  # noqa: BLE001
            pass
        tree = self.opts.get("tree")
        if tree:
            import shutil

            shutil.copytree(tree, self.work, symlinks=True, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(".git"))
            self.snapshot_work()
        os.chdir(self.work)
        paths = [os.path.normpath(os.path.join(self.work, p)) for p in self.opts["sys_path"]]
        for p in reversed(paths):
            sys.path.insert(0, p)
        # Processes the code starts (`python -c "import pkg"`) import from the work folder
        # too, never from the original tree: a changed file there is what they see.
        if paths:
            os.environ["PYTHONPATH"] = os.pathsep.join(
                paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
        reader = open(self.proto_in, "rb")
        writer = open(self.proto_out, "wb")

        def send(obj):
            writer.write(json.dumps(obj, allow_nan=False, ensure_ascii=False).encode("utf-8", "replace")
                         + b"\n")
            writer.flush()

        send(self.hello())
        import gc

        gc.collect()
        gc.freeze()  # forked children then do not copy the runner's objects when gc runs
        while True:
            line = reader.readline()
            if not line:
                self.end_session()
                return
            try:
                req = json.loads(line)
            except ValueError as e:
                send({"status": "harness_error", "detail": "bad request line: %s" % e})
                continue
            try:
                resp = self.serve(req)
            except Exception as e:  # noqa: BLE001 - a bug in the runner, reported not fatal
                import traceback

                resp = {"status": "harness_error", "detail": "runner bug: " + traceback.format_exc()[-3000:]}
                self.reap()
            resp["id"] = req.get("id")
            send(resp)


def _slice_to_json(node_id, r):
    """One traced execution's report as the `SliceUnit` JSON of the protocol."""
    out = {"node_id": node_id, "status": r.get("status", "untraceable"),
           "reason": r.get("reason"), "events": int(r.get("events", 0)),
           "cap": int(r.get("cap", 0)), "seconds": float(r.get("seconds", 0.0)),
           "slice_seconds": float(r.get("slice_seconds", 0.0)),
           "tracer": r.get("tracer", "settrace")}
    out["statements"] = [{"path": p, "line": ln, "count": c, "min_depth": lo, "max_depth": hi,
                          "function": f, "first_line": a, "last_line": b, "role": role}
                         for p, ln, c, lo, hi, f, a, b, role in r.get("statements", ())]
    out["inputs"] = [{"key": k, "role": role} for k, role in r.get("inputs", ())]
    return out


def _tag_to_json(t):
    kind = t[0]
    if kind == "none":
        return {"t": "none"}
    if kind == "int":
        return {"t": "int", "v": str(t[1])}
    if kind == "float":
        x = t[1]
        if x != x:
            v = "nan"
        elif x in (float("inf"), float("-inf")):
            v = "inf" if x > 0 else "-inf"
        else:
            v = x
        return {"t": "float", "v": v}
    if kind in ("str", "bool", "bytes"):
        return {"t": kind, "v": t[1]}
    if kind in ("list", "tuple", "set", "frozenset"):
        return {"t": kind, "v": [_tag_to_json(x) for x in t[1]]}
    if kind == "dict":
        return {"t": "dict", "v": [[_tag_to_json(k), _tag_to_json(v)] for k, v in t[1]]}
    if kind == "iter":
        return {"t": "iter", "v": {"items": [_tag_to_json(x) for x in t[1]], "truncated": t[2] is True}}
    return {"t": "object", "v": {"type": t[1], "repr": t[2]}}


if __name__ == "__main__":
    Runner(_parse_args(sys.argv[1:])).main()
