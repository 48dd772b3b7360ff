"""The runner as the execution library drives it: a subprocess with its command line, one
JSON request per line (with `id` and `limits`) and one answer per line (see conftest)."""

import os
import textwrap

import pytest

MOD = '''
import os


def add(a, b):
    if a > b:
        return a + b
    return b - a


def pid():
    return os.getpid()
'''

TESTS = '''
import os
import time

from mod import add


def test_pass():
    assert add(2, 1) == 3


def test_fail():
    assert add(1, 2) == 3


def test_hang():
    if os.path.exists("hang"):
        time.sleep(60)


def test_die():
    if os.path.exists("die"):
        os._exit(3)


def test_capture():
    __freshbench_capture__("k", add(5, 1))


def test_patch_harness():
    import sys

    flush = sys.modules["_freshbench_child"].flush
    flush.__code__ = (lambda: None).__code__
'''


@pytest.fixture
def tree(tmp_path):
    t = tmp_path / "tree"
    (t / "tests").mkdir(parents=True)
    (t / "mod.py").write_text(MOD)
    (t / "tests" / "test_mod.py").write_text(TESTS)
    return str(t)


@pytest.fixture
def worker(start_worker, tree):
    return start_worker(tree=tree, sys_path=["."])


def pytest_request(ids, **kw):
    req = {"kind": "pytest", "rootdir": ".", "node_ids": ["tests/test_mod.py::" + i for i in ids],
           "coverage": False, "extra_args": [], "pristine": False, "overlay": [], "capture": False,
           "trace": None}
    req.update(kw)
    return req


def call_file(function, args, **kw):
    req = {"kind": "call", "target": {"kind": "file", "path": "mod.py", "name": None},
           "function": function, "args": args, "kwargs": "{}", "coverage": False, "fresh": False,
           "trace": None}
    req.update(kw)
    return req


def src(body):
    return textwrap.dedent(body).lstrip("\n")


def test_hello(worker):
    h = worker.hello
    assert h["hello"] == 1 and h["work"] == worker.work and h["pid"] == worker.proc.pid
    assert h["coverage"] is not None


def test_call_returns_a_value(worker):
    a = worker.call(src("""
        def f(x, y=0):
            return {"sum": x + y, "f": 0.5}, (i * i for i in range(3))
    """), "f", "[2]", "{'y': 3}")
    assert a["status"] == "ok"
    assert a["value"] == {"t": "tuple", "v": [
        {"t": "dict", "v": [[{"t": "str", "v": "sum"}, {"t": "int", "v": "5"}],
                            [{"t": "str", "v": "f"}, {"t": "float", "v": 0.5}]]},
        {"t": "iter", "v": {"items": [{"t": "int", "v": "0"}, {"t": "int", "v": "1"},
                                      {"t": "int", "v": "4"}], "truncated": False}}]}
    assert a["repr"] == "({'sum': 5, 'f': 0.5}, <generator> [0, 1, 4])"
    assert a["stdout"] == "" and a["stderr"] == ""
    assert a["seconds"] >= 0 and a["wall_seconds"] >= a["seconds"]


def test_call_raises(worker):
    a = worker.call(src("""
        def f(x):
            print("before")
            raise KeyError(x)
    """), "f", "['k']")
    assert a["status"] == "exception"
    assert a["exception"]["type"] == "KeyError" and a["exception"]["message"] == "'k'"
    assert "raise KeyError(x)" in a["exception"]["traceback"]
    assert a["stdout"] == "before\n"


def test_call_bad_arguments(worker):
    a = worker.call("def f(x):\n    return x\n", "f", "[__import__('os')]")
    assert a["status"] == "harness_error" and a["detail"].startswith("bad arguments: ")


def test_call_times_out_and_the_next_call_runs(worker):
    a = worker.call("import time\ndef f():\n    time.sleep(30)\n", "f", wall=0.5)
    assert a["status"] == "timeout" and a["detail"] == "wall-clock limit of 0.5s"
    assert 0.5 <= a["wall_seconds"] < 10
    assert worker.call("def g():\n    return 1\n", "g")["status"] == "ok"


def test_call_prints_too_much(worker):
    a = worker.call("def f():\n    print('x' * 100000)\n    return 1\n", "f", output_bytes=1000)
    assert a["status"] == "output_limit" and a["detail"] == "output over 1000 bytes"
    assert len(a["stdout"]) == 1000


def test_write_outside_the_work_folder_is_refused(worker, tmp_path):
    outside = tmp_path / "outside.txt"
    a = worker.call("def f(p):\n    open(p, 'w').write('x')\n", "f", repr([str(outside)]))
    assert a["status"] == "sandbox_violation"
    assert a["detail"] == "write outside the work folder: " + str(outside)
    assert not outside.exists()
    inside = worker.call("def f():\n    open('inside.txt', 'w').write('x')\n    return 1\n", "f")
    assert inside["status"] == "ok"


def test_read_outside_is_refused(worker):
    a = worker.call("def f():\n    return open('/root/.profile').read()\n", "f")
    assert a["status"] == "sandbox_violation"
    assert a["detail"] == "read outside the exposed files: /root/.profile"


def test_calls_share_a_session_until_fresh_or_failure(worker):
    first = worker.request(call_file("pid", "[]"))
    second = worker.request(call_file("pid", "[]"))
    assert first["status"] == second["status"] == "ok"
    assert first["value"] == second["value"]
    fresh = worker.request(call_file("pid", "[]", fresh=True))
    assert fresh["value"] != second["value"]
    assert worker.request(call_file("add", "[1]"))["status"] == "exception"  # missing b: kept
    after = worker.request(call_file("pid", "[]"))
    assert after["value"] != fresh["value"]  # `fresh` ended its own session


def test_call_with_coverage(worker):
    a = worker.request(call_file("add", "[1, 2]", coverage=True))
    assert a["status"] == "ok" and a["value"] == {"t": "int", "v": "1"}
    cov = a["coverage"]
    assert cov["file"] == "mod.py" and (cov["first_line"], cov["last_line"]) == (5, 8)
    assert [6, 8] in cov["arcs"] and [6, 7] not in cov["arcs"]
    assert [6, 7] in cov["function_arcs"]


def test_crashes_and_forged_results(worker):
    a = worker.call("import os\ndef f():\n    os._exit(4)\n", "f")
    assert (a["status"], a["detail"]) == ("crash", "exited with code 4 without a result")
    forge = src("""
        import os
        def f():
            for fd in range(3, 64):
                try:
                    os.write(fd, b'{"status": "ok"}' * 4)
                except OSError:
                    pass
            os._exit(0)
    """)
    a = worker.call(forge, "f")
    assert a["status"] == "sandbox_violation"
    assert a["detail"] == "forged or damaged result on the result channel"
    a = worker.call("import os\ndef f():\n    os.kill(1, 9)\n", "f")
    assert a["status"] == "sandbox_violation"


def test_leftover_process_ends_the_session(worker):
    a = worker.call("import os, time\ndef f():\n    if os.fork() == 0:\n        time.sleep(30)\n"
                    "    return 1\n", "f")
    assert a["status"] == "sandbox_violation"
    assert a["detail"] == "left processes running after the call (killed)"


def test_the_runners_modules_are_not_importable(worker):
    a = worker.call(src("""
        import importlib, sys
        def f():
            out = []
            for name in ("protocol", "guard", "supervision", "values", "child", "runner", "slicer"):
                try:
                    importlib.import_module(name)
                    out.append(name)
                except ImportError:
                    pass
            return out, [p for p in sys.path if p.endswith("python")]
    """), "f")
    assert a["status"] == "ok"
    assert a["value"] == {"t": "tuple", "v": [{"t": "list", "v": []}, {"t": "list", "v": []}]}


def test_patching_the_runner_is_caught(worker):
    a = worker.call(src("""
        import sys
        def f():
            for m in ("__main__", "_freshbench_child", "_freshbench_values"):
                g = sys.modules[m]
                for v in vars(g).values():
                    if callable(v) and hasattr(v, "__code__"):
                        v.__code__ = (lambda *a, **k: None).__code__
            return 1
    """), "f")
    assert a["status"] == "sandbox_violation"
    assert a["detail"].startswith("replacing a code object")


def test_bad_lines(worker):
    worker.send_line(b"{not json\n")
    a = worker.read_line(10)
    assert a["status"] == "harness_error" and a["detail"].startswith("bad request line: ")
    assert "id" not in a
    assert worker.request({"kind": "mystery"})["detail"] == "unknown request kind 'mystery'"
    assert worker.call("def f():\n    return 2\n", "f")["status"] == "ok"


def test_pytest_passing_and_failing(worker):
    a = worker.request(pytest_request(["test_pass", "test_fail"]))
    assert a["status"] == "ok" and a["exit_code"] == 1
    got = {t["node_id"].split("::")[1]: t for t in a["tests"]}
    assert got["test_pass"]["outcome"] == "passed" and got["test_pass"]["detail"] is None
    assert got["test_fail"]["outcome"] == "failed"
    assert "assert 1 == 3" in got["test_fail"]["detail"]
    assert "1 failed, 1 passed" in a["stdout"]


def test_pytest_coverage_and_capture(worker):
    a = worker.request(pytest_request(["test_pass"], coverage=True))
    lines = {f["path"]: f["lines"] for f in a["tests"][0]["lines"]}
    assert lines["mod.py"] == [6, 7]
    c = worker.request(pytest_request(["test_capture"], capture=True))
    assert c["captures"] == [{"node_id": "tests/test_mod.py::test_capture", "key": "k", "count": 1,
                              "value": {"t": "int", "v": "6"}}]


def test_pytest_hang_names_the_test(worker):
    a = worker.request(pytest_request(["test_pass", "test_hang"], pristine=True,
                                      overlay=[{"path": "hang", "text": ""}]), wall=3)
    assert a["status"] == "timeout" and a["running_test"] == "tests/test_mod.py::test_hang"
    assert not os.path.exists(os.path.join(worker.work, "hang"))  # pristine: undone
    assert worker.request(pytest_request(["test_pass"]))["status"] == "ok"


def test_pytest_death_and_overlay_errors(worker):
    a = worker.request(pytest_request(["test_die"], pristine=True,
                                      overlay=[{"path": "die", "text": ""}]))
    assert (a["status"], a["detail"]) == ("crash", "exited with code 3 without a result")
    assert a["running_test"] == "tests/test_mod.py::test_die"
    b = worker.request(pytest_request(["test_pass"], pristine=True,
                                      overlay=[{"path": "mod.py", "text": "def add(:\n"}]))
    assert b["status"] == "exception" and b["exception"]["type"] == "SyntaxError"
    c = worker.request(pytest_request(["test_pass"], pristine=True,
                                      overlay=[{"path": "../x.py", "text": ""}]))
    assert c == {"status": "harness_error", "detail": "overlay path outside the work folder: '../x.py'",
                 "id": c["id"]}


def test_pytest_may_not_patch_the_harness(worker):
    a = worker.request(pytest_request(["test_patch_harness", "test_pass"]))
    assert a["status"] == "sandbox_violation"
    assert a["detail"] == "replacing a code object of the harness"
    got = {t["node_id"].split("::")[1]: t["outcome"] for t in a["tests"]}
    assert got == {"test_patch_harness": "error", "test_pass": "passed"}


def test_pytest_survives_unittest_main_at_import(worker):
    # A module calling unittest.main() unguarded would end the session in argparse.
    module = "import unittest\n\nunittest.main()\n\n\ndef test_here():\n    assert True\n"
    a = worker.request(pytest_request(["test_pass"], node_ids=["tests/test_ut.py",
                                                                "tests/test_mod.py::test_pass"],
                                      pristine=True,
                                      overlay=[{"path": "tests/test_ut.py", "text": module}]))
    assert a["status"] == "ok", a
    got = {t["node_id"]: t["outcome"] for t in a["tests"]}
    assert got["tests/test_ut.py::test_here"] == "passed"
    assert got["tests/test_mod.py::test_pass"] == "passed"


def test_runner_files_lists_every_module(mods):
    """process.rs RUNNER_FILES (the one list the Rust side writes into the runner's folder)
    names every file the runner loads from beside itself, and every Python file here."""
    here = os.path.dirname(mods.runner.__file__)
    with open(os.path.join(here, "..", "src", "process.rs"), encoding="utf-8") as f:
        rust = f.read()
    listed = rust[rust.index("RUNNER_FILES: &[(&str, &str)] = &["):]
    listed = listed[:listed.index("];")]
    names = {m + ".py" for m in mods.runner.MODULES} | {"runner.py", "slicer.py"}
    assert names == {n for n in os.listdir(here) if n.endswith(".py")}
    for n in names:
        assert '("%s", include_str!("../python/%s"))' % (n, n) in listed
