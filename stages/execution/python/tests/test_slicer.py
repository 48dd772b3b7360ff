"""The slicer on small programs whose slices were worked out by hand (the line numbers,
counts and inputs in each test are the hand-made answer)."""

import importlib.util
import os
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import slicer  # noqa: E402


def load(tmp_path, name, text):
    path = tmp_path / (name + ".py")
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def trace(tmp_path, fn, *args, criterion="return", cap=100000):
    t = slicer.Tracer([str(tmp_path)], criterion, cap)
    t.start()
    try:
        fn(*args)
    finally:
        t.stop()
    return t.slice()


def lines(rep, path=None):
    """{line: executions} of the slice's statements (of one file)."""
    return {s[1]: s[2] for s in rep["statements"] if path is None or s[0] == path}


def inputs(rep):
    return sorted(k for k, _ in rep["inputs"])


def test_one_of_two_branches(tmp_path):
    mod = load(tmp_path, "branches", """
        def pick(flag, a, b):
            x = a * 2
            y = b + 1
            if flag:
                r = x
            else:
                r = y
            return r
    """)
    rep = trace(tmp_path, mod.pick, True, 3, 4)
    assert rep["status"] == "ok"
    # return r <- r = x <- x = a * 2 <- a; r = x under `if flag` <- flag. Not y, not b.
    assert lines(rep) == {2: 1, 4: 1, 5: 1, 8: 1}
    assert inputs(rep) == ["param:branches.py:pick:a", "param:branches.py:pick:flag"]
    assert {(s[5], s[6], s[7]) for s in rep["statements"]} == {("pick", 1, 8)}
    rep = trace(tmp_path, mod.pick, False, 3, 4)
    assert lines(rep) == {3: 1, 4: 1, 7: 1, 8: 1}
    assert inputs(rep) == ["param:branches.py:pick:b", "param:branches.py:pick:flag"]


def test_loop_carried_variable(tmp_path):
    mod = load(tmp_path, "loops", """
        def total(xs, k):
            s = 0
            n = 0
            for x in xs:
                s = s + x
                n = n + k
            return s
    """)
    rep = trace(tmp_path, mod.total, [1, 2, 3], 5)
    # return s <- the last s = s + x <- ... <- s = 0; each s = s + x <- its `for` (x).
    # The fourth `for` (the exhausted iterator) feeds nothing; n and k are out.
    assert lines(rep) == {2: 1, 4: 3, 5: 3, 7: 1}
    assert inputs(rep) == ["param:loops.py:total:xs"]


def test_global_of_another_module(tmp_path):
    load(tmp_path, "consts", """
        RATE = 3
        UNUSED = 4
    """)
    mod = load(tmp_path, "calc", """
        import consts
        from consts import UNUSED

        def price(n, extra):
            base = n * consts.RATE
            more = extra + UNUSED
            return base
    """)
    rep = trace(tmp_path, mod.price, 2, 1)
    assert lines(rep) == {5: 1, 7: 1}
    # `consts` is a module (code, not an input); its RATE is.
    assert inputs(rep) == ["global:consts:RATE", "param:calc.py:price:n"]


def test_call_three_deep(tmp_path):
    mod = load(tmp_path, "deep", """
        def a(x):
            return b(x) + 1

        def b(x):
            return c(x) * 2

        def c(x):
            y = x - 1
            z = x + 1
            return y
    """)
    rep = trace(tmp_path, mod.a, 5)
    assert lines(rep) == {2: 1, 5: 1, 8: 1, 10: 1}
    by_line = {s[1]: s for s in rep["statements"]}
    assert [by_line[n][3] for n in (2, 5, 8, 10)] == [1, 2, 3, 3]  # call depth
    assert {s[5] for s in rep["statements"]} == {"a", "b", "c"}
    # Only a's parameter comes from outside; b's and c's are given by traced calls.
    assert inputs(rep) == ["param:deep.py:a:x"]


def test_attributes_of_objects(tmp_path):
    mod = load(tmp_path, "objs", """
        class Box:
            def __init__(self, v):
                self.v = v
                self.w = 0

            def get(self):
                return self.v

        def run(n):
            b = Box(n)
            b.w = 7
            return b.get()
    """)
    rep = trace(tmp_path, mod.run, 4)
    # return b.get() <- self.v (get) <- self.v = v (__init__) <- b = Box(n) <- n.
    assert lines(rep) == {3: 1, 7: 1, 10: 1, 12: 1}
    assert inputs(rep) == ["param:objs.py:run:n"]


def test_attribute_of_an_object_built_outside(tmp_path):
    mod = load(tmp_path, "outside", """
        def area(rect):
            return rect.width * rect.height
    """)

    class Rect:
        def __init__(self):
            self.width, self.height = 2, 3

    rep = trace(tmp_path, mod.area, Rect())
    assert lines(rep) == {2: 1}
    assert inputs(rep) == ["attr:test_attribute_of_an_object_built_outside.<locals>.Rect:height",
                           "attr:test_attribute_of_an_object_built_outside.<locals>.Rect:width",
                           "param:outside.py:area:rect"]


def test_container_mutated_by_a_method(tmp_path):
    mod = load(tmp_path, "lists", """
        def evens(xs):
            out = []
            skipped = []
            for x in xs:
                if x % 2 == 0:
                    out.append(x)
                else:
                    skipped.append(x)
            return out
    """)
    rep = trace(tmp_path, mod.evens, [1, 2, 4])
    got = lines(rep)
    # out.append(x) updates out (a weak update): both appends are in, skipped's is not.
    assert got[6] == 2 and 8 not in got and 3 not in got
    assert got[2] == 1 and got[9] == 1


def test_lines_criterion_and_forward(tmp_path):
    load(tmp_path, "lib", """
        def norm(s):
            t = s.strip()
            u = t.lower()
            return u
    """)
    (tmp_path / "tests").mkdir()
    test = load(tmp_path / "tests", "test_lib", """
        from lib import norm

        def test_norm():
            a = norm("  Hi ")
            b = 3
            assert a == "hi"
    """)
    # The assertion on line 6: it reads a <- norm(...) <- its return <- u <- t.
    rep = trace(tmp_path, test.test_norm, criterion=("lines", "tests/test_lib.py", 6, 6, False))
    assert lines(rep, "tests/test_lib.py") == {4: 1, 6: 1}
    assert lines(rep, "lib.py") == {2: 1, 3: 1, 4: 1}
    roles = {s[0]: s[8] for s in rep["statements"]}
    assert roles == {"tests/test_lib.py": "test", "lib.py": "code"}
    # The argument crosses from the test into the code under test: an input of the code.
    assert ("param:lib.py:norm:s", "code") in rep["inputs"]
    # Forward from `u = t.lower()` (lib.py line 3): the test statements it reaches, then
    # everything they depend on.
    rep = trace(tmp_path, test.test_norm, criterion=("lines", "lib.py", 3, 3, True))
    assert lines(rep, "tests/test_lib.py") == {4: 1, 6: 1}
    assert lines(rep, "lib.py") == {2: 1, 3: 1, 4: 1}


def test_generator_drawn_by_the_caller(tmp_path):
    mod = load(tmp_path, "gens", """
        def squares(n):
            i = 0
            while i < n:
                yield i * i
                i += 1
    """)
    rep = trace(tmp_path, lambda: list(mod.squares(3)))
    got = lines(rep)
    assert got[4] == 3 and got[2] == 1 and got[5] >= 2
    assert inputs(rep) == ["param:gens.py:squares:n"]


def test_exception_caught_by_the_caller(tmp_path):
    mod = load(tmp_path, "exc", """
        def check(v):
            if v < 0:
                raise ValueError(v)
            return v

        def safe(v, w):
            try:
                r = check(v)
            except ValueError:
                r = w
            return r
    """)
    rep = trace(tmp_path, mod.safe, -1, 7)
    # return r <- r = w <- except (ran because check raised) <- r = check(v) <- raise
    # <- if v < 0 <- v.
    assert lines(rep) == {2: 1, 3: 1, 8: 1, 9: 1, 10: 1, 11: 1}
    assert inputs(rep) == ["param:exc.py:safe:v", "param:exc.py:safe:w"]


def test_cap_gives_too_large(tmp_path):
    mod = load(tmp_path, "spin", """
        def spin(n):
            s = 0
            for i in range(n):
                s += i
            return s
    """)
    rep = trace(tmp_path, mod.spin, 1000, cap=50)
    assert rep["status"] == "too_large"


def test_replaced_tracer_is_untraceable(tmp_path):
    mod = load(tmp_path, "rogue", """
        import sys

        def rogue():
            sys.settrace(None)
            return 1
    """)
    rep = trace(tmp_path, mod.rogue)
    assert rep["status"] == "untraceable"


def test_a_test_that_patches_the_file_functions(tmp_path, monkeypatch):
    # Regression: platformdirs' tests patch `os.path.join` (and realpath uses it); the
    # tracer saw no file at all. It must not go through what the code patches.
    mod = load(tmp_path, "patched", """
        def f(x):
            return x + 1
    """)
    t = slicer.Tracer([str(tmp_path)], "return", 1000)
    monkeypatch.setattr(os.path, "join", lambda *a: "/nowhere")
    monkeypatch.setattr(os, "stat", lambda *a, **k: (_ for _ in ()).throw(OSError("patched")))
    monkeypatch.setattr("builtins.open", lambda *a, **k: (_ for _ in ()).throw(OSError("no")))
    t.start()
    try:
        mod.f(1)
    finally:
        t.stop()
    monkeypatch.undo()
    assert lines(t.slice()) == {2: 1}


def test_realpath_follows_links(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.py").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "rel").symlink_to("real")
    for p in ("link/m.py", "rel/m.py", "real/../real/./m.py", "link/../link/m.py"):
        assert slicer.realpath(str(tmp_path / p)) == os.path.realpath(tmp_path / p), p


def test_roles():
    assert slicer.file_role("pkg/mod.py") == "code"
    assert slicer.file_role("tests/helpers.py") == "test"
    assert slicer.file_role("pkg/test_mod.py") == "test"
    assert slicer.file_role("conftest.py") == "test"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
