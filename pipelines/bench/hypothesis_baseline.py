"""The alternative `make bench` measures synthesize-tests against: Hypothesis generating
each parameter from its annotation (`st.from_type`), with the same call budget and the same
branch-coverage measure as freshbench's sandboxed worker (stages/execution/python/runner.py).

    hypothesis_baseline.py --data DIR --calls N --out results.jsonl [--jobs J]

reads DIR/function_tasks.parquet (written by synthesize-tests) and DIR/functions.parquet,
and for each task whose function freshbench could call (`arcs_total > 0`) runs one child
process of this script (`--child`), with rlimits and a wall-clock timeout, so that a crash
or a hang costs that function only. The child writes the task's `canonical_solution` to a
module file, imports it, builds one strategy per parameter and runs a Hypothesis `@given`
test of `max_examples=N` without shrinking (each example is one call), every exception the
function raises caught (a raised exception is a behaviour, not a failure).

Coverage is freshbench's: coverage.py with branch=True, started around each call only; the
arcs of the module file restricted to the function's span (its first line to the last line
of its code objects) and leaving out the `def` line's own arcs; executed arcs translated by
PythonFileReporter.translate_arcs, static arcs from PythonFileReporter.arcs(). A returned
iterator is drawn (up to 1000 items) under coverage, as the worker does.

Two figures per function: `arcs_covered` counts every call's arcs; `arcs_covered_usable`
only those of the calls freshbench would keep as test cases (returned a value with a stable
form, or raised an exception that is not one of the "accidental" ones - TypeError,
AttributeError, ... - unless the function raises it itself), which is how synthesize-tests'
own `arcs_covered` counts. `exceptions` counts the calls by what they raised (and
`unstable value`, `timeout`).

One JSON line per function goes to --out."""

import argparse
import ast
import importlib.util
import inspect
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.abspath(__file__)

# Exceptions that say the input was of a type the function does not take (unless the
# function raises them itself); synthesize-tests does not keep such calls as test cases.
ACCIDENTAL = {"TypeError", "AttributeError", "NameError", "UnboundLocalError", "RecursionError",
              "ImportError", "ModuleNotFoundError", "MemoryError", "SystemExit",
              "KeyboardInterrupt"}
# Items of a returned iterator drawn under coverage (the worker's ITER_ITEMS).
ITER_ITEMS = 1000


# --------------------------------------------------------------------------- the parent

def load_tasks(data, only, limit, repos):
    import pyarrow.parquet as pq

    tasks = pq.read_table(os.path.join(data, "function_tasks.parquet"),
                          columns=["function_id", "repo_id", "entry_point", "canonical_solution",
                                   "status", "reason", "arcs_total"]).to_pylist()
    funcs = pq.read_table(os.path.join(data, "functions.parquet"),
                          columns=["function_id", "qualname", "params"]).to_pylist()
    params = {f["function_id"]: f["params"] for f in funcs}
    qualnames = {f["function_id"]: f["qualname"] for f in funcs}
    out = []
    for t in sorted(tasks, key=lambda t: t["function_id"]):
        if t["arcs_total"] <= 0:
            continue
        if only and t["function_id"] not in only and t["entry_point"] not in only:
            continue
        if repos and t["repo_id"] not in repos:
            continue
        t["params"] = params.get(t["function_id"]) or []
        t["qualname"] = qualnames.get(t["function_id"])
        out.append(t)
    return out[:limit] if limit else out


def run_child(task, args, workdir):
    """One function in its own process (its own session, killed whole on timeout); returns
    its result record. A child killed on timeout keeps the coverage of its last checkpoint."""
    base = {"function_id": task["function_id"], "entry_point": task["entry_point"],
            "repo_id": task["repo_id"]}
    folder = tempfile.mkdtemp(prefix="fn-", dir=workdir)
    spec_path = os.path.join(folder, "spec.json")
    result_path = os.path.join(folder, "result.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump({"task": task, "calls": args.calls, "seconds": args.seconds,
                   "call_timeout": args.call_timeout, "memory_mb": args.memory_mb,
                   "defaults": args.defaults}, f)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, HERE, "--child", spec_path, result_path],
                            cwd=folder, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=args.timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, err = proc.communicate()
        code = None
    wall = time.perf_counter() - t0
    stderr = (err or b"").decode(errors="replace").strip()
    record = None
    if os.path.exists(result_path):
        try:
            with open(result_path, encoding="utf-8") as f:
                record = json.load(f)
        except ValueError:
            record = None
    if record is None:
        record = {"arcs_covered": 0, "arcs_covered_usable": 0, "arcs_total": None,
                  "examples": 0, "all_annotated": None, "error": None}
    if code is None or code != 0 or record.get("stop") in (None, "checkpoint"):
        # Killed, or died: what it covered up to its last checkpoint stands, the time is the
        # process's (start included).
        why = (f"timeout: killed after {args.timeout:g}s (a call did not return)" if code is None
               else f"crash: the child exited with {code} ({stderr[-300:]})")
        record["error"] = why if not record.get("error") else record["error"] + "; " + why
        record["stop"] = "killed" if code is None else "crash"
        record["seconds"] = wall
    record.update(base)
    record["process_seconds"] = wall
    return record


def parent(args):
    only = set(args.function or [])
    repos = set(args.repo or [])
    tasks = load_tasks(args.data, only, args.limit, repos)
    workdir = tempfile.mkdtemp(prefix="fb-hypothesis-")
    # One Hypothesis directory for every child, as one project's test run would have: its
    # caches (the Unicode character map, constants found in the code) are built once here,
    # not in each function's timed run.
    home = os.path.join(workdir, "hypothesis-home")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = home
    warm = subprocess.run([sys.executable, "-c", "from hypothesis import strategies as st\n"
                           "for _ in range(20): st.from_type(object).example(); st.text().example()"],
                          cwd=workdir, capture_output=True, check=False)
    if warm.returncode != 0:
        print("hypothesis baseline: warm-up failed: " + warm.stderr.decode(errors="replace")[-500:],
              file=sys.stderr)
    done = 0
    t0 = time.perf_counter()
    with open(args.out, "w", encoding="utf-8") as out, \
            ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for record in pool.map(lambda t: run_child(t, args, workdir), tasks):
            out.write(json.dumps(record, sort_keys=True) + "\n")
            out.flush()
            done += 1
            if not args.quiet and (done % 25 == 0 or done == len(tasks)):
                print(f"hypothesis baseline: {done}/{len(tasks)} functions, "
                      f"{time.perf_counter() - t0:.0f}s", file=sys.stderr)
    subprocess.run(["rm", "-rf", workdir], check=False)


# --------------------------------------------------------------------------- the child

class CallTimeout(BaseException):
    """A call ran over its wall-clock limit (raised by the SIGALRM handler)."""


class OutOfTime(BaseException):
    """The whole run reached its seconds budget: ends the Hypothesis run."""


def set_limits(memory_mb):
    limits = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, 64 << 20)]
    if memory_mb:
        limits.append((resource.RLIMIT_AS, memory_mb << 20))
    for res, val in limits:
        soft, hard = resource.getrlimit(res)
        if hard != resource.RLIM_INFINITY:
            val = min(val, hard)
        try:
            resource.setrlimit(res, (val, hard))
        except (ValueError, OSError):
            pass


def function_span(fn):
    """(filename, first, last): the function's first line and the last line of any of its
    code objects, nested ones included; the span the worker measures."""
    for _ in range(20):
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            break
        fn = inner
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    first = last = code.co_firstlineno
    pending = [code]
    while pending:
        c = pending.pop()
        for _start, _end, line in c.co_lines():
            if line is not None and line > last:
                last = line
        pending.extend(k for k in c.co_consts if isinstance(k, type(code)))
    return code.co_filename, first, last


def own_raises(source, name):
    """Short names of the exceptions the function raises itself (`raise X(...)`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Raise) and inner.exc is not None:
                target = inner.exc.func if isinstance(inner.exc, ast.Call) else inner.exc
                if isinstance(target, ast.Name):
                    found.add(target.id)
                elif isinstance(target, ast.Attribute):
                    found.add(target.attr)
        break
    return found


# `Any` (bare, `typing.Any`, `t.Any`): st.from_type refuses it ("no such thing as a runtime
# instance of typing.Any"), so it is read as `object`, what a Hypothesis user would write.
ANY = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)?Any\b")


def annotation_namespace(module):
    import typing

    ns = {n: getattr(typing, n) for n in getattr(typing, "__all__", []) if hasattr(typing, n)}
    ns["typing"] = typing
    ns.update(vars(module))
    return ns


def evaluate(text, ns):
    """The annotation's value, or raises. A string (a forward reference) is evaluated once more."""
    value = eval(ANY.sub("object", text), ns)  # noqa: S307 - the bench's input, in its own process
    if isinstance(value, str):
        value = eval(ANY.sub("object", value), ns)  # noqa: S307
    return value


OMIT = object()


def stable(value, depth=0, seen=None):
    """Whether a returned value has a stable form, as the worker's tagging and
    `execute::Value::is_stable` decide: builtin scalars, containers of stable values, and
    other objects whose repr shows no address (` at 0x`, `object at`)."""
    t = type(value)
    if value is None or t in (bool, int, float, str, bytes):
        return True
    if depth > 100:
        return True
    if t in (list, tuple, set, frozenset, dict):
        seen = set() if seen is None else seen
        if id(value) in seen:
            return True
        seen.add(id(value))
        try:
            if t is dict:
                return all(stable(k, depth + 1, seen) and stable(v, depth + 1, seen)
                           for k, v in list(value.items()))
            return all(stable(v, depth + 1, seen) for v in list(value))
        finally:
            seen.discard(id(value))
    try:
        text = repr(value)
    except BaseException:  # noqa: BLE001 - the worker records "<repr failed>": no address
        return True
    return not (isinstance(text, str) and (" at 0x" in text or "object at" in text))


def build_strategy(fn, params, module, st, defaults):
    """The strategy of one call, drawing (args, varargs, kwargs); whether every parameter
    was annotated; the annotations that did not evaluate. `defaults`: `pass` draws every
    parameter; `maybe` lets a parameter with a default be left out (passed by keyword when
    drawn), as `st.builds` leaves it."""
    texts = {p["name"]: p.get("annotation") for p in params}
    ns = annotation_namespace(module)
    sig = inspect.signature(fn)
    has_var = any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values())
    positional, keyword, var = [], {}, None
    all_annotated = True
    unevaluated = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            continue  # nothing extra is passed by keyword (nor by synthesize-tests)
        text = texts.get(p.name)
        if text is None and isinstance(p.annotation, str):
            text = p.annotation
        ann = object
        if text is None:
            all_annotated = False
        else:
            try:
                ann = evaluate(text, ns)
            except Exception as e:  # noqa: BLE001 - any failure: as if not annotated
                unevaluated.append(f"{p.name}: {type(e).__name__}: {e}"[:200])
                all_annotated = False
        strategy = st.from_type(ann)
        optional = defaults == "maybe" and p.default is not p.empty
        if p.kind is p.VAR_POSITIONAL:
            var = st.lists(strategy, max_size=3)
        elif p.kind is p.KEYWORD_ONLY or (optional and p.kind is p.POSITIONAL_OR_KEYWORD
                                          and not has_var):
            keyword[p.name] = st.one_of(st.just(OMIT), strategy) if optional else strategy
        else:
            positional.append(strategy)
    call = st.tuples(st.tuples(*positional), var if var is not None else st.just([]),
                     st.fixed_dictionaries(keyword))
    return call, all_annotated, unevaluated


def child(spec_path, result_path):
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    task = spec["task"]
    set_limits(spec["memory_mb"])
    # Imports before the clock: interpreter start and imports are not part of the figure.
    import coverage
    from coverage.python import PythonFileReporter
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    result = {"arcs_covered": 0, "arcs_covered_usable": 0, "arcs_total": None, "examples": 0,
              "usable_examples": 0, "seconds": 0.0, "all_annotated": None, "error": None,
              "stop": None, "exceptions": {}}

    def write_result():
        tmp = result_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, result_path)

    name = "fb_task_" + task["function_id"]
    path = os.path.abspath(name + ".py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(task["canonical_solution"])
    try:
        loader_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
        fn = getattr(module, task["entry_point"])
        span = function_span(fn)
        if span is None:
            raise TypeError("not a Python function")
    except BaseException as e:  # noqa: BLE001
        result["error"] = f"import: {type(e).__name__}: {e}"[:300]
        result["stop"] = "error"
        write_result()
        return
    filename, first, last = span
    raises = own_raises(task["canonical_solution"], task["entry_point"])

    def inside(arc):
        a, b = arc
        return first <= abs(a) <= last and first <= abs(b) <= last and a != first and b != first

    in_call = [False]

    def on_alarm(_sig, _frame):
        # The timer repeats every 0.25 s after the first expiry: a CallTimeout raised where
        # Python ignores exceptions (a gc callback, a __del__) is raised again.
        if in_call[0]:
            raise CallTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    call_timeout = float(spec["call_timeout"])
    budget = float(spec["seconds"])
    usable_contexts = []
    counts = result["exceptions"]
    measured = {}

    t0 = time.perf_counter()
    cov = coverage.Coverage(branch=True, data_file=None, include=[filename], config_file=False)

    def measure():
        """Fills the coverage figures in from what the calls so far executed."""
        if "static" not in measured:
            reporter = PythonFileReporter(filename, cov)
            measured["reporter"] = reporter
            measured["static"] = {a for a in reporter.arcs() if inside(a)}
        reporter, static = measured["reporter"], measured["static"]
        data = cov.get_data()
        data.set_query_contexts(None)
        executed = {a for a in reporter.translate_arcs(data.arcs(filename) or []) if inside(a)}
        usable = set()
        if usable_contexts:
            data.set_query_contexts(["^(%s)$" % "|".join(usable_contexts)])
            usable = {a for a in reporter.translate_arcs(data.arcs(filename) or []) if inside(a)}
            data.set_query_contexts(None)
        result["arcs_total"] = len(static)
        result["arcs_covered"] = len(executed & static)
        result["arcs_covered_usable"] = len(usable & static)
        result["usable_examples"] = len(usable_contexts)
        result["seconds"] = time.perf_counter() - t0

    try:
        strategy, result["all_annotated"], unevaluated = build_strategy(
            fn, task["params"], module, st, spec.get("defaults", "pass"))
        if unevaluated:
            result["unevaluated"] = unevaluated
    except BaseException as e:  # noqa: BLE001 - from_type raised: Hypothesis cannot run it
        result["error"] = f"strategy: {type(e).__name__}: {e}"[:300]
        result["stop"] = "error"
        result["seconds"] = time.perf_counter() - t0
        write_result()
        return

    checkpoint = [t0]

    def one_call(call):
        now = time.perf_counter()
        if now - t0 >= budget:
            raise OutOfTime()
        if now >= checkpoint[0]:
            # A call that never returns (C code the alarm cannot interrupt) gets this process
            # killed: what was covered until then is kept.
            measure()
            result["stop"] = "checkpoint"
            write_result()
            checkpoint[0] = time.perf_counter() + 1.0
        args, varargs, kwargs = call
        kwargs = {k: v for k, v in kwargs.items() if v is not OMIT}
        i = result["examples"]
        result["examples"] = i + 1
        kind = None
        drawn = None
        cov.start()
        cov.switch_context(str(i))
        in_call[0] = True
        signal.setitimer(signal.ITIMER_REAL, call_timeout, 0.25)
        try:
            value = fn(*args, *varargs, **kwargs)
            vt = type(value)
            if hasattr(vt, "__next__") and hasattr(vt, "__iter__"):
                # A returned iterator is drawn under coverage, as the worker does.
                drawn = []
                for _ in range(ITER_ITEMS):
                    try:
                        drawn.append(next(value))
                    except StopIteration:
                        break
        except CallTimeout:
            in_call[0] = False
            kind = "timeout"
        except BaseException as e:  # noqa: BLE001 - a raised exception is a behaviour
            in_call[0] = False
            kind = type(e).__name__
        finally:
            in_call[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            cov.stop()
        if kind is None:
            # A returned value without a stable form (a function, an object with the default
            # repr) makes no test case: synthesize-tests does not count its arcs either.
            in_call[0] = True
            signal.setitimer(signal.ITIMER_REAL, call_timeout, 0.25)
            try:
                if not stable(drawn if drawn is not None else value):
                    kind = "unstable value"
            except CallTimeout:
                kind = "unstable value"
            finally:
                in_call[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
            usable = kind is None
        else:
            usable = kind != "timeout" and (kind not in ACCIDENTAL or kind in raises)
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
        if usable:
            usable_contexts.append(str(i))

    test = given(strategy)(one_call)
    test = settings(max_examples=int(spec["calls"]), database=None, deadline=None,
                    derandomize=True, suppress_health_check=list(HealthCheck),
                    phases=[Phase.explicit, Phase.generate], print_blob=False)(test)
    stop, error = "examples", None
    try:
        test()
    except OutOfTime:
        stop = "time budget"
    except BaseException as e:  # noqa: BLE001 - Hypothesis itself failed (e.g. at a draw)
        stop, error = "error", f"hypothesis: {type(e).__name__}: {e}"[:300]
    signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        measure()
    except BaseException as e:  # noqa: BLE001
        error = (error + "; " if error else "") + f"coverage: {type(e).__name__}: {e}"[:300]
    result["stop"], result["error"] = stop, error
    write_result()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="dataset directory with function_tasks.parquet")
    ap.add_argument("--calls", type=int, default=200, help="examples (calls) per function")
    ap.add_argument("--out", help="results, one JSON line per function")
    ap.add_argument("--jobs", type=int, default=2, help="functions run in parallel")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="wall-clock seconds of one function's process")
    ap.add_argument("--seconds", type=float, default=20.0,
                    help="seconds one function's Hypothesis run may take (synthesize-tests' default)")
    ap.add_argument("--call-timeout", type=float, default=5.0, help="seconds one call may take")
    ap.add_argument("--memory-mb", type=int, default=2048, help="address space of a child, MiB")
    ap.add_argument("--defaults", choices=("pass", "maybe"), default="pass",
                    help="parameters with a default: always drawn (pass), or maybe left out")
    ap.add_argument("--function", action="append", help="only this function id or entry point")
    ap.add_argument("--repo", action="append", help="only this repo_id")
    ap.add_argument("--limit", type=int, default=0, help="only the first N functions (by id)")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--child", nargs=2, metavar=("SPEC", "RESULT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        # Threads or atexit handlers the code left must not keep the process alive.
        os._exit(0)
    if not args.data or not args.out:
        ap.error("--data and --out are required")
    parent(args)


if __name__ == "__main__":
    main()
