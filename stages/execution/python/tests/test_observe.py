"""The observer of a `pytest` request (`observe`: the arguments the tests call watched
functions with) and the argument writer it uses, round trip through the reader."""

import abc
import dataclasses
import datetime
import decimal
import enum
import fractions
import operator
import pathlib
import re
import types

import pytest
from test_runner import pytest_request

MOD = '''import functools


def deco(f):
    @functools.wraps(f)
    def inner(*a, **k):
        return f(*a, **k)
    return inner


def add(a, b=10, *rest, scale=1, **extra):
    return (a + b + sum(rest)) * scale


@deco
def decorated(x):
    return x


class Box:
    def __init__(self, size):
        self.size = size

    def grow(self, by, *, twice=False):
        return self.size + by * (2 if twice else 1)

    @classmethod
    def make(cls, size):
        return cls(size)

    @staticmethod
    def check(v):
        return v > 0


def gen(n):
    for i in range(n):
        yield i


def hot(i):
    return i
'''

TESTS = '''import datetime
import decimal

from mod import Box, add, decorated, gen, hot


def test_add():
    assert add(1, 2) == 3
    assert add(1, 2) == 3
    assert add(1) == 11
    assert add(1, 2, 3, scale=2, tag="t") == 12
    try:
        add(object(), 2)
    except TypeError:
        pass


def test_decorated():
    assert decorated(datetime.date(2024, 1, 2)) == datetime.date(2024, 1, 2)
    assert decorated(decimal.Decimal("1.5")) == decimal.Decimal("1.5")


def test_methods():
    b = Box.make(3)
    assert b.grow(2, twice=True) == 7
    assert Box.check(5)


def test_gen():
    assert list(gen(3)) == [0, 1, 2]


def test_hot():
    for i in range(100):
        hot(i)
    for _ in range(50):
        hot("again")
'''

def fn(fid, qualname, first, defline=None, drop=False):
    return {"id": fid, "path": "mod.py", "lines": [first] + ([defline] if defline else []),
            "qualname": qualname, "drop_first": drop}


def watch(**bounds):
    lines = MOD.splitlines()

    def at(text):
        return lines.index(text) + 1

    funcs = [
        fn("f-add", "add", at("def add(a, b=10, *rest, scale=1, **extra):")),
        # Decorated: the first line is the decorator's, as resolve records it.
        fn("f-dec", "decorated", at("@deco"), at("def decorated(x):")),
        fn("f-grow", "Box.grow", at("    def grow(self, by, *, twice=False):"), drop=True),
        fn("f-make", "Box.make", at("    @classmethod"), at("    def make(cls, size):"), drop=True),
        fn("f-check", "Box.check", at("    @staticmethod"), at("    def check(v):")),
        fn("f-gen", "gen", at("def gen(n):")),
        fn("f-hot", "hot", at("def hot(i):")),
    ]
    spec = {"functions": funcs}
    spec.update(bounds)
    return spec


@pytest.fixture
def tree(tmp_path):
    t = tmp_path / "tree"
    (t / "tests").mkdir(parents=True)
    (t / "mod.py").write_text(MOD)
    (t / "tests" / "test_mod.py").write_text(TESTS)
    return str(t)


def run(start_worker, tree, **kw):
    w = start_worker(tree=tree, sys_path=["."])
    req = pytest_request([], **kw)
    req["node_ids"] = ["tests/test_mod.py"]
    a = w.request(req, wall=60)
    assert a["status"] == "ok", a
    assert all(t["outcome"] == "passed" for t in a["tests"]), a["tests"]
    return {o["function_id"]: o for o in a.get("observed", [])}


def sets(o):
    return [(c["args"], c["kwargs"], c["calls"], c["node_id"].split("::")[-1])
            for c in o["calls"]]


def test_records_literal_calls(start_worker, tree):
    obs = run(start_worker, tree, observe=watch(), coverage=True)
    assert sets(obs["f-add"]) == [
        ("[1, 2]", "{'scale': 1}", 2, "test_add"),
        ("[1, 10]", "{'scale': 1}", 1, "test_add"),  # the default, as the frame holds it
        ("[1, 2, 3]", "{'scale': 2, 'tag': 't'}", 1, "test_add"),
    ]
    assert obs["f-add"]["skipped"] == 1  # add(object(), 2)
    assert [c["ordinal"] for c in obs["f-add"]["calls"]] == [0, 1, 2]
    assert sets(obs["f-dec"]) == [("[datetime.date(2024, 1, 2)]", "{}", 1, "test_decorated"),
                                  ("[decimal.Decimal('1.5')]", "{}", 1, "test_decorated")]
    # Methods: without `self` / `cls`; a static method keeps its first argument.
    assert sets(obs["f-grow"]) == [("[2]", "{'twice': True}", 1, "test_methods")]
    assert sets(obs["f-make"]) == [("[3]", "{}", 1, "test_methods")]
    assert sets(obs["f-check"]) == [("[5]", "{}", 1, "test_methods")]
    # A generator is called once, whatever its resumptions.
    assert sets(obs["f-gen"]) == [("[3]", "{}", 1, "test_gen")]
    assert len(obs["f-hot"]["calls"]) == 32  # max_sets by default


def test_bounds(start_worker, tree):
    obs = run(start_worker, tree, observe=watch(max_sets=5, max_calls=3, max_chars=8))
    hot = sets(obs["f-hot"])
    assert [a for a, _, _, _ in hot] == ["[0]", "[1]", "[2]", "[3]", "[4]"]
    obs = run(start_worker, tree, observe=watch(max_sets=200, max_calls=3))
    hot = sets(obs["f-hot"])
    assert len(hot) == 101 and hot[-1] == ("['again']", "{}", 3, "test_hot")
    obs = run(start_worker, tree, observe=watch(max_chars=8))
    # `{'scale': 1}` is 12 characters: over the cap of a set, skipped.
    assert "f-add" not in obs or not obs["f-add"]["calls"]
    obs = run(start_worker, tree, observe=watch(max_seen=10))
    assert len(obs["f-hot"]["calls"]) == 10
    obs = run(start_worker, tree, observe=watch(max_total=3))
    assert sum(sum(c["calls"] for c in o["calls"]) + o["skipped"] for o in obs.values()) == 3


def test_off_and_faked(start_worker, tree, tmp_path):
    assert run(start_worker, tree) == {}
    # A test that removes the profile loses the records after it, and nothing else.
    with open(tree + "/tests/test_zz.py", "w") as f:
        f.write("import sys\n\nfrom mod import add\n\n\ndef test_unhook():\n"
                "    sys.setprofile(None)\n    add(5, 5)\n")
    obs = run(start_worker, tree, observe=watch())
    assert all(c["args"] != "[5, 5]" for c in obs["f-add"]["calls"])


VALUES = [
    1, -5, 10 ** 40, 2.5, -0.0, float("inf"), -float("inf"), "a'\"\n", b"\x00\xff", None, True,
    False, ..., (), (1,), [1, [2, (3,)]], {1, 2}, set(), frozenset(), frozenset([1]),
    {"k": {2: (3, None)}}, 1 + 2j, 1 - 2j, 0 - 3j, len, operator.add,
    datetime.datetime(2024, 1, 2, 3, 4, 5, 6), datetime.date(2020, 2, 29),
    datetime.time(23, 59, 1, 2), datetime.timedelta(-1, 5, 7), decimal.Decimal("1.50"),
    decimal.Decimal("-0"), decimal.Decimal("NaN"), fractions.Fraction(-1, 3),
    pathlib.PurePosixPath("a/b.txt"),
    datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
    datetime.datetime(2024, 3, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(-datetime.timedelta(hours=5))),
    datetime.timezone(datetime.timedelta(hours=5, minutes=30)),
    re.compile(r"(\d+)-[a-z]*$"), re.compile("x y", re.IGNORECASE | re.VERBOSE),
    re.compile("a", re.ASCII),
    types.SimpleNamespace(), types.SimpleNamespace(type="number", value=[1, types.SimpleNamespace(a=None)]),
]


def same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, types.SimpleNamespace):
        return same(vars(a), vars(b))
    if isinstance(a, decimal.Decimal) and a.is_nan():
        return b.is_nan()
    return repr(a) == repr(b)


@pytest.mark.parametrize("v", VALUES, ids=repr)
def test_writer_round_trips(mods, v):
    write, read = mods.values.make_arg_writer(), mods.values.make_arg_eval()
    text = write([v], 2048)
    assert text is not None
    back = read(text)
    assert same(back, [v]), (text, back)


class Sub(int):
    pass


@pytest.mark.parametrize("v", [object(), Sub(1), pathlib.Path("/x"), complex(float("nan"), 1),
                               datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(
                                   datetime.timedelta(hours=1), "CET")),
                               lambda: 1, print, "x" * 3000, [[]] * 2000, re.compile(b"a"),
                               re.compile("a", re.DEBUG)])
def test_writer_refuses(mods, v):
    assert mods.values.make_arg_writer()([v], 2048) is None


class Token:
    __slots__ = ("line", "column")


class Number(Token):
    __slots__ = ("value", "is_integer", "unset")
    type = "number"
    table = {str(i): i for i in range(100)}  # over OBJECT_ATTR_CHARS: left out

    def serialize(self):
        return str(self.value)

    @property
    def boom(self):
        raise AssertionError("a property is never run")


@dataclasses.dataclass
class Pair:
    left: object
    right: object


class Base(abc.ABC):  # noqa: B024 - an ABC's metaclass, nothing abstract needed
    pass


class Color(enum.Enum):
    RED = 1


def test_objects_written_as_their_attributes(mods):
    n = Number()
    n.line, n.column, n.value, n.is_integer = 1, 2, 3.0, False
    write = mods.values.make_arg_writer(objects=True)
    text = write([n, Pair(n, print)], 2048)
    assert text == ("[types.SimpleNamespace(column=2, line=1, type='number', is_integer=False, "
                    "value=3.0), types.SimpleNamespace(left=types.SimpleNamespace(column=2, "
                    "line=1, type='number', is_integer=False, value=3.0))]")
    back = mods.values.make_arg_eval()(text)
    assert back[0].type == "number" and back[0].value == 3.0 and back[1].left.line == 1
    # Without `objects`, as before: not written.
    assert mods.values.make_arg_writer()([n], 2048) is None
    # ABC subclasses are objects too (not their `_abc_impl`, which has no attribute); not a
    # bare `object()`, an object with no data attribute, an enum, an exception, a subclass of
    # a builtin, or an object that holds itself (the attribute is left out).
    b = Base()
    assert write([b], 100) is None
    b.x = 1
    assert write([b], 100) == "[types.SimpleNamespace(x=1)]"
    loop = Pair(1, None)
    loop.right = loop
    assert write([loop], 100) == "[types.SimpleNamespace(left=1)]"
    for v in (object(), Color.RED, ValueError("x"), Sub(1)):
        assert write([v], 100) is None, v


@pytest.mark.parametrize("text", [
    "[types.SimpleNamespace(1)]", "[types.SimpleNamespace(**{'a': 1})]",
    "[types.SimpleNamespace(a=x)]", "[types.Namespace(a=1)]",
    "[types.SimpleNamespace(%s)]" % ", ".join("a%d=1" % i for i in range(33)),
])
def test_namespace_reader_refuses(mods, text):
    with pytest.raises(ValueError):
        mods.values.make_arg_eval()(text)


def test_recursive_refused(mods):
    x = []
    x.append(x)
    assert mods.values.make_arg_writer()(x, 2048) is None


@pytest.mark.parametrize("text", [
    "[datetime.datetime(2024)]", "[datetime.datetime(2024, 1, 1, tzinfo=None)]",
    "[decimal.Decimal(1)]", "[fractions.Fraction('1/3')]", "[pathlib.Path('x')]",
    "[os.system('x')]", "[datetime.datetime.now()]", "[fractions.Fraction(1, True)]",
    "[pathlib.PurePosixPath(str(1))]", "[decimal.Decimal('x')]",
    "[datetime.datetime(2024, 1, 1, 0, 0, 0, 0, 7)]", "[datetime.timezone(1)]",
    "[datetime.datetime(2024, 1, 1, datetime.timedelta(1))]",
    "[datetime.timezone(datetime.timedelta(2))]",
    "[datetime.datetime(2024, 1, 1, 0, 0, 0, 0, datetime.timezone.utc)]",
    "[re.compile('a', 128)]", "[re.compile(b'a')]", "[re.compile('(')]", "[re.compile(1)]",
    "[re.compile('a', re.I)]", "[re.match('a', 'a')]",
])
def test_reader_refuses(mods, text):
    with pytest.raises((ValueError, ArithmeticError, re.error)):
        mods.values.make_arg_eval()(text)


def test_regex_flags(mods):
    # synthesize-tests' REGEX_FLAGS (pyval.rs) is this number too.
    assert int(mods.values.ARG_REGEX_FLAGS) == 378
    assert not mods.values.ARG_REGEX_FLAGS & (re.DEBUG | re.LOCALE)
