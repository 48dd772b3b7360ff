"""values.py: the argument evaluator, the iterator drawer, the tagger and tags to JSON."""

import math
import operator

import pytest


@pytest.fixture(scope="module")
def ev(mods):
    return mods.values.make_arg_eval()


@pytest.fixture(scope="module")
def tag(mods):
    return mods.values.make_tagger(40)[0]


@pytest.mark.parametrize("text, want", [
    ("[1, 'a', b'x', None, True, ...]", [1, "a", b"x", None, True, ...]),
    ("(1, (2, 3))", (1, (2, 3))),
    ("{'a': [1, 2], 3: {4}}", {"a": [1, 2], 3: {4}}),
    ("[-1, +2.5, 1+2j, -3-4j]", [-1, 2.5, 1 + 2j, -3 - 4j]),
    ("[set(), set([1, 2]), frozenset(), frozenset((1,))]", [set(), {1, 2}, frozenset(), frozenset({1})]),
    ("[float('inf'), -float('inf')]", [math.inf, -math.inf]),
    ("  [1]", [1]),
])
def test_arg_eval_accepts_literals(ev, text, want):
    assert ev(text) == want


def test_arg_eval_nan_iter_and_functions(ev):
    nan, it, fn, op = ev("[float('nan'), iter([1, 2]), sorted, operator.add]")
    assert nan != nan
    assert list(it) == [1, 2]
    assert fn is sorted
    assert op is operator.add
    assert ev("[ValueError]")[0] is ValueError


@pytest.mark.parametrize("text", [
    "[open]", "[hash]", "[__import__('os')]", "[x]", "[operator.itemgetter(0)]", "[os.system]",
    "[lambda: 1]", "[i for i in range(3)]", "[1 + 2]", "[float(1)]", "[set(x=1)]", "[{**a}]",
    "[-'a']", "[iter(3)]", "[(1).__class__]", "[1 if 1 else 2]",
])
def test_arg_eval_refuses_code(ev, text):
    with pytest.raises(ValueError, match="not an accepted argument literal"):
        ev(text)


def test_arg_eval_refuses_non_text_and_bad_syntax(ev):
    with pytest.raises(ValueError, match="not a string"):
        ev(b"[1]")
    with pytest.raises(SyntaxError):
        ev("[1")


def test_arg_eval_names_the_column(ev):
    with pytest.raises(ValueError, match="Name at column 5"):
        ev("[1, x]")


def test_arg_eval_ignores_patched_builtins(mods, monkeypatch):
    ev = mods.values.make_arg_eval()
    import builtins

    monkeypatch.setattr(builtins, "compile", lambda *a, **k: 1 / 0)
    monkeypatch.setattr(builtins, "len", lambda x: 0)
    assert ev("[1, 2]") == [1, 2]


def test_tagger_scalars(tag):
    assert tag(None) == ("none",)
    assert tag(True) == ("bool", True)
    assert tag(3) == ("int", 3)
    assert tag(2.5) == ("float", 2.5)
    assert tag("s") == ("str", "s")
    assert tag(b"\x00\xff") == ("bytes", "00ff")


def test_tagger_collections(tag):
    assert tag([1, (2,)]) == ("list", [("int", 1), ("tuple", [("int", 2)])])
    assert tag({"k": None}) == ("dict", [(("str", "k"), ("none",))])
    assert tag({1}) == ("set", [("int", 1)])
    assert tag(frozenset()) == ("frozenset", [])


def test_tagger_recursion_depth_and_objects(tag):
    a = [1]
    a.append(a)
    assert tag(a) == ("list", [("int", 1), ("object", "recursive", "<recursive>")])
    deep = []
    for _ in range(150):
        deep = [deep]
    t = tag(deep)
    for _ in range(101):
        t = t[1][0]
    assert t == ("object", "deep", "<nested too deep>")

    class Weird:
        def __repr__(self):
            raise RuntimeError("no")

    assert tag(Weird())[2] == "<repr failed: RuntimeError>"
    assert tag(Weird())[1].endswith("Weird")
    assert tag(range(3)) == ("object", "range", "range(0, 3)")


def test_tagger_subclasses_are_objects(tag):
    class MyInt(int):
        def __eq__(self, other):
            return True

    assert tag(MyInt(1))[0] == "object"


def test_safe_repr_caps(mods):
    _, safe_repr = mods.values.make_tagger(10)
    assert safe_repr("x" * 100) == repr("x" * 100)[:10] + "...<truncated>"


def test_drawer_draws_iterators_up_to_the_cap(mods, tag):
    draw = mods.values.make_drawer(5)

    def gen():
        yield from range(3)

    d = draw(gen())
    assert isinstance(d, mods.values.Drawn)
    assert tag(d) == ("iter", [("int", 0), ("int", 1), ("int", 2)], False)
    d = draw(iter(range(100)))
    assert d.truncated is True and d.items == [0, 1, 2, 3, 4]
    # inside lists and tuples, one budget for the whole value
    out = draw((iter([1, 2, 3]), [iter([4, 5, 6])]))
    assert type(out) is tuple and out[0].items == [1, 2, 3] and out[1][0].items == [4, 5]
    plain = [1, 2]
    assert draw(plain) is plain


def test_tag_to_json(mods):
    j = mods.values.tag_to_json
    assert j(("int", 10**30)) == {"t": "int", "v": str(10**30)}
    assert j(("float", math.nan)) == {"t": "float", "v": "nan"}
    assert j(("float", -math.inf)) == {"t": "float", "v": "-inf"}
    assert j(("float", 0.5)) == {"t": "float", "v": 0.5}
    assert j(("dict", [(("str", "a"), ("none",))])) == {
        "t": "dict", "v": [[{"t": "str", "v": "a"}, {"t": "none"}]]}
    assert j(("iter", [("bool", True)], True)) == {
        "t": "iter", "v": {"items": [{"t": "bool", "v": True}], "truncated": True}}
    assert j(("object", "m.T", "<T>")) == {"t": "object", "v": {"type": "m.T", "repr": "<T>"}}
