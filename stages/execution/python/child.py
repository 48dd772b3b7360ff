"""The bodies of the runner's forked children: a call session (`session_main`) and a pytest
one-shot (`child_pytest`), with what they use (loading the target, coverage's arcs, the
assertion family's capture, the slicer's tracer).

Loaded by runner.py under the private name `_freshbench_child`; both bodies run in a child
that `supervision` forked and prepared (protocol fds closed, capture pipes, process group,
lowered limits), install the audit hook last, before any user code runs, and never return.
"""

import importlib
import importlib.util
import os
import resource
import sys
import time
import traceback

import _freshbench_guard as guard
import _freshbench_protocol as protocol
import _freshbench_values as values

# --------------------------------------------------------------------------- tracing

def criterion(trace):
    """The slicer's criterion from a request's `trace`."""
    c = trace.get("criterion") or {}
    if c.get("kind") == "lines":
        return ("lines", c["path"], int(c["first"]), int(c["last"]), bool(c.get("forward")))
    return "return"


def no_tracer():
    """The report of an execution that could not be traced."""
    return {"status": "untraceable", "events": 0, "cap": 0,
            "reason": "no tracer: the slicer is missing, or coverage or another tracer holds "
                      "sys.settrace"}


def tracer_for(slicer, trace, roots, entry_file=None):
    """A tracer for a request's `trace`, or None when none can run (coverage or another
    tracer holds sys.settrace, or the slicer is missing)."""
    if slicer is None or slicer.available() is None:
        return None
    return slicer.Tracer(roots, criterion(trace), int(trace.get("max_events") or 1000000),
                         entry_file=entry_file)


def trace_report(slicer, tracer, seconds):
    """What one traced execution gives back: the slice (or why none) and its cost."""
    try:
        rep = tracer.slice()
    except BaseException as e:  # noqa: BLE001 - a slicer bug must not lose the result
        rep = {"status": "untraceable", "reason": "slicer error: " + repr(e)[:500],
               "events": tracer.events, "cap": tracer.cap}
    rep["seconds"] = seconds
    rep["tracer"] = "settrace"
    return rep


# --------------------------------------------------------------------------- the call's target

def function_span(fn):
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


def load_target(req, scratch):
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


def flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - closed or replaced by the code
            pass


def raw_arcs(cov, filename):
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


# --------------------------------------------------------------------------- a call session

def session_main(req_r, rw, nonce, ctx):
    """Serves the `call`s of one target in this forked child, one after the other, until the
    runner ends the session (any failure, leftover process or thread, another target).
    Everything used after user code has run is a local bound before it ran."""
    recv, send = protocol.child_end(req_r, rw, nonce)
    exit_, perf, flush_ = os._exit, time.perf_counter, flush
    tb_format, classify = traceback.format_exception, guard.classify_exception
    getrusage, setrlimit, RLIMIT_CPU = resource.getrusage, resource.setrlimit, resource.RLIMIT_CPU
    RLIM_INFINITY = resource.RLIM_INFINITY
    cpu_hard = resource.getrlimit(RLIMIT_CPU)[1]
    span_of, load, arcs_of = function_span, load_target, raw_arcs
    _type, _str, _repr, _sorted, _abs, _getattr = type, str, repr, sorted, abs, getattr
    getcwd = os.getcwd
    violations, writable, scratch = ctx["violations"], ctx["writable"], ctx["scratch"]
    cov_mod = ctx["coverage"]
    slicer, tracer_for_, no_tracer_, trace_report_ = (ctx.get("slicer"), tracer_for, no_tracer,
                                                      trace_report)
    tagger, safe_repr = values.make_tagger(ctx["repr_cap"])
    arg_eval = values.make_arg_eval()
    draw = values.make_drawer(values.ITER_ITEMS)
    state = {"module": None, "cov": {}, "static": {}}

    def one(req):
        try:
            args = arg_eval(req.get("args") or "[]")
            kwargs = arg_eval(req.get("kwargs") or "{}")
            if _type(args) not in (list, tuple) or _type(kwargs) is not dict:
                raise ValueError("args must be a list or tuple literal and kwargs a dict literal")
        except BaseException as e:  # noqa: BLE001
            return {"status": "harness_error", "detail": "bad arguments: " + _repr(e)}
        cpu = req["limits"].get("cpu_seconds")
        if cpu is not None:
            used = getrusage(0)
            soft = int(used.ru_utime + used.ru_stime) + int(cpu) + 1
            if cpu_hard != RLIM_INFINITY:
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
                fn = _getattr(fn, part)
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
                        arcs_of(cov, span[0])
                        state["cov"][span[0]] = cov
            tracer = None
            trace = req.get("trace")
            if trace is not None:
                target = _getattr(state["module"], "__file__", None)
                if cov is None:
                    tracer = tracer_for_(slicer, trace, [getcwd()],
                                         slicer.realpath(target) if slicer and target else None)
                if tracer is None:
                    state["trace"] = no_tracer_()
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
                value = draw(value)
            finally:
                if tracer is not None:
                    tracer.stop()
                    state["trace"] = trace_report_(slicer, tracer, perf() - t0)
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
                executed = arcs_of(cov, filename)
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
                payload["coverage_error"] = _repr(e)
        return payload

    me = os.getpid()
    getpid = os.getpid
    sys.addaudithook(ctx["hook"])
    while True:
        payload = one(recv())
        if getpid() != me:  # a process the code forked got here: it is not the session
            exit_(0)
        flush_()
        if violations:
            payload["status"] = "sandbox_violation"
            payload["detail"] = "; ".join(violations[:5])
        send(payload)


# --------------------------------------------------------------------------- observing calls

CO_VARARGS, CO_VARKEYWORDS = 0x04, 0x08
CO_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen


def make_observer(spec, rootdir, current):
    """The recorder of the arguments the tests call watched functions with (a `pytest`
    request's `observe`): (start, stop, report). `spec["functions"]`: `{"id", "path" (relative
    to the rootdir), "lines" (the lines `co_firstlineno` may be: the first decorator's and the
    `def`'s), "qualname", "drop_first" (a method's `self`/`cls`)}`; bounds `max_sets`
    distinct argument texts per function, `max_chars` of text per set, `max_calls` counted per
    set, `max_seen` calls looked at per function, `max_total` calls looked at in all.

    `sys.setprofile` (coverage and the slicer use `sys.settrace`: the two coexist): on a
    `call` event, the file name of the code object picks the file's watched lines (a dict
    lookup; files not watched cost one lookup per call), its first line and qualified name
    the function. A call's arguments come from its frame: the positional parameters (after
    `self`/`cls` when `drop_first`), the keyword-only ones, `*args` and `**kwargs`, defaults
    as the frame holds them; they are kept when every one is rebuildable from literals
    (`values.make_arg_writer`; an object of a class written in Python as the attribute bag
    of its data attributes), else counted as skipped. A generator's resumptions are not
    calls. A function that has `max_sets` sets or was looked at `max_seen` times is no longer
    looked at; after `max_total` calls, or when every function is, the profile is removed.
    The profile is on during each test's setup and call only (a profile over pytest's own
    machinery would double a session's time); calls at collection or in teardown are not
    seen. Built before any user code runs, from references captured now."""
    _getattr, _type, _len, _list, _str, _int = getattr, type, len, list, str, int
    realpath, join = os.path.realpath, os.path.join
    setprofile, getprofile = sys.setprofile, sys.getprofile
    write = values.make_arg_writer(objects=True)
    max_sets = int(spec.get("max_sets") or 32)
    max_chars = int(spec.get("max_chars") or 2048)
    max_calls = int(spec.get("max_calls") or 1000)
    max_seen = int(spec.get("max_seen") or 5000)
    total = [int(spec.get("max_total") or 200000)]
    wanted = {}  # realpath of a file -> {first line: entry}
    entries = []
    for f in spec.get("functions") or ():
        e = {"id": _str(f["id"]), "qualname": _str(f.get("qualname") or ""),
             "drop": bool(f.get("drop_first")), "sets": {}, "skipped": 0, "seen": 0,
             "start": None, "lines": [_int(x) for x in f.get("lines") or ()]}
        entries.append(e)
        lines = wanted.setdefault(realpath(join(rootdir, _str(f["path"]))), {})
        for ln in e["lines"]:
            lines.setdefault(ln, []).append(e)
    by_file = {}  # co_filename as the code has it -> {first line: [entries]} (empty: none)
    live = [_len(entries)]

    def lines_of(filename):
        try:
            d = wanted.get(realpath(filename)) if _type(filename) is _str else None
        except (OSError, ValueError):
            d = None
        d = d if d is not None else {}
        by_file[filename] = d
        return d

    def full(e):
        live[0] -= 1
        if live[0] <= 0:  # every function is full: the profile is not needed any more
            total[0] = 0
            setprofile(None)
        for ln in e["lines"]:
            for d in by_file.values():
                lst = d.get(ln)
                if lst is not None and e in lst:
                    lst.remove(e)
                    if not lst:
                        del d[ln]

    def record(frame, code, e):
        if code.co_flags & CO_RESUMABLE:
            # Every resumption of a generator or coroutine is a `call` event: only the first
            # instruction offset any of its frames starts at is a call.
            if e["start"] is None:
                e["start"] = frame.f_lasti
            elif frame.f_lasti != e["start"]:
                return
        e["seen"] += 1
        total[0] -= 1
        loc = frame.f_locals
        names = code.co_varnames
        n, k, flags = code.co_argcount, code.co_kwonlyargcount, code.co_flags
        try:
            args = [loc[names[i]] for i in range(n)]
            kwargs = {}
            for i in range(n, n + k):
                kwargs[names[i]] = loc[names[i]]
            i = n + k
            if flags & CO_VARARGS:
                extra = loc[names[i]]
                if _type(extra) is not tuple:
                    raise KeyError
                args.extend(extra)
                i += 1
            if flags & CO_VARKEYWORDS:
                extra = loc[names[i]]
                if _type(extra) is not dict:
                    raise KeyError
                for key in _list(extra):
                    if _type(key) is not _str:
                        raise KeyError
                    kwargs[key] = extra[key]
        except KeyError:
            e["skipped"] += 1
            return
        if e["drop"]:
            if not args:
                e["skipped"] += 1
                return
            args = args[1:]
        a = write(args, max_chars)
        kw = write(kwargs, max_chars - _len(a)) if a is not None else None
        if kw is None:
            e["skipped"] += 1
        else:
            sets = e["sets"]
            s = sets.get((a, kw))
            if s is None:
                sets[(a, kw)] = [_len(sets), current[0] or "<outside a test>", 1]
            elif s[2] < max_calls:
                s[2] += 1
        if _len(e["sets"]) >= max_sets or e["seen"] >= max_seen:
            full(e)

    def profile(frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        d = by_file.get(code.co_filename)
        if d is None:
            d = lines_of(code.co_filename)
        if not d:
            return
        lst = d.get(code.co_firstlineno)
        if lst is None:
            return
        qualname = _getattr(code, "co_qualname", None)
        for e in lst:
            if qualname is None or qualname == e["qualname"]:
                try:
                    record(frame, code, e)
                except Exception:  # noqa: BLE001 - a value whose type misbehaves: skipped
                    e["skipped"] += 1
                if total[0] <= 0:
                    setprofile(None)
                return

    def start():
        # Not over a profiler of the code's own, and never again once `max_total` is spent.
        if total[0] > 0 and getprofile() is None:
            setprofile(profile)

    def stop():
        if getprofile() is profile:
            setprofile(None)

    def report():
        """`[(function_id, [(ordinal, args, kwargs, node_id, calls)], skipped)]`, of exact
        builtin types only (the tests ran in this process)."""
        out = []
        for e in entries:
            rows = []
            for (a, kw), (o, nid, c) in e["sets"].items():
                if _type(a) is _str and _type(kw) is _str and _type(nid) is _str \
                        and _type(o) is _int and _type(c) is _int:
                    rows.append((o, a, kw, nid, c))
            skipped = e["skipped"] if _type(e["skipped"]) is _int else 0
            if rows or skipped:
                out.append((e["id"], rows, skipped))
        return out

    return start, stop, report


# --------------------------------------------------------------------------- a pytest one-shot

def install_capture(captures, current):
    """The assertion family's capture: a test rewritten by freshbench calls
    `__freshbench_capture__(key, X)` where an assertion compared X, and
    `with __freshbench_raises__(key):` where it expected an exception. The first value per
    (test, key) is kept, tagged as a call's result is, with the number of times the place
    ran; the raises form records the exception type's qualified name (or None when the
    block raised nothing) and suppresses the exception, as `pytest.raises` would."""
    import builtins

    tagger, _ = values.make_tagger(4000)

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


def _no_unittest_main(*_args, **_kwargs):
    """`unittest.main` while pytest imports test modules (see `child_pytest`)."""
    return None


def child_pytest(req, rw, nonce, ctx, pw=-1):
    """Runs a pytest session and sends its result frame. `pw`: the progress channel, where
    each test's node id is written when it starts (`S nodeid\\n`) and `E\\n` when it ends, so
    that the runner can name the test that was running when the process died or hung."""
    _, send = protocol.child_end(-1, rw, nonce)
    write, exit_, flush_, getpid = os.write, os._exit, flush, os.getpid
    me = getpid()
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
            flush_()
            send(payload)
            exit_(0)
    captures = {}
    current = [None]
    if req.get("capture"):
        install_capture(captures, current)
    trace = req.get("trace")
    slicer = ctx.get("slicer") if trace is not None else None
    slices = []
    observing = [None]  # the test running now, for the observer (None between tests)
    observer = None
    if req.get("observe"):
        observer = make_observer(req["observe"], rootdir, observing)
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
                observing[0] = item.nodeid
                seen = len(violations)
                if cov is not None:
                    cov.switch_context(item.nodeid)
                yield
                observing[0] = None
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
            def pytest_runtest_setup(self, item):
                # Calls a fixture makes are observed too (a profile over pytest's own
                # machinery would double the session's time: only the tests' phases).
                if observer is not None:
                    observer[0]()
                try:
                    yield
                finally:
                    if observer is not None:
                        observer[1]()

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_call(self, item):
                if observer is None:
                    yield from self.traced_call(item)
                    return
                observer[0]()
                try:
                    yield from self.traced_call(item)
                finally:
                    observer[1]()

            def traced_call(self, item):
                # The test's call is traced (not its setup: fixtures are its inputs).
                if trace is None:
                    yield
                    return
                tracer = tracer_for(slicer, trace, [rootdir]) if cov is None else None
                if tracer is None:
                    slices.append((item.nodeid, no_tracer()))
                    yield
                    return
                t0 = time.perf_counter()
                tracer.start()
                try:
                    yield
                finally:
                    tracer.stop()
                    slices.append((item.nodeid,
                                   trace_report(slicer, tracer, time.perf_counter() - t0)))

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

            @pytest.hookimpl(hookwrapper=True)
            def pytest_collection(self, session):
                # A test module that calls `unittest.main()` at import, unguarded by
                # `if __name__ == "__main__"`, would parse the runner's argv and exit the
                # whole session before a test ran: while modules are imported the call does
                # nothing, as it would were the guard there.
                import unittest

                real = unittest.main
                unittest.main = _no_unittest_main
                try:
                    yield
                finally:
                    unittest.main = real

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
        if observer is not None:
            try:
                payload["observed"] = observer[2]()
            except Exception as e:  # noqa: BLE001 - the code spoilt the recorder: nothing
                payload["observe_error"] = repr(e)[:500]
        if req.get("capture"):
            payload["captures"] = [(nid, key, c[0], c[1]) for (nid, key), c in captures.items()]
        payload["tests"] = [(nid, results[nid][0], results[nid][1], results[nid][2],
                             sorted((p, sorted(ls)) for p, ls in lines.get(nid, {}).items()))
                            for nid in order]
    except BaseException as e:  # noqa: BLE001
        payload = {"status": "exception", "exception": (type(e).__qualname__, str(e)[:4000], "")}
    if getpid() != me:  # a process a test forked ran pytest to its end: it is not the child
        exit_(0)
    flush_()
    if violations:
        payload["status"] = "sandbox_violation"
        payload["detail"] = "; ".join(violations[:5])
    send(payload)
    exit_(0)
