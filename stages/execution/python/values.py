"""Values of the runner: a call's arguments from their literal text, a returned value tagged
into exact builtin types, and the tagged value as the protocol's JSON.

Loaded by runner.py under the private name `_freshbench_values` (never importable by the
code under test by a plain name). Everything a child uses after user code has run is built
by the `make_*` functions from references captured when they are called, in the child,
before any user code runs: replacing a builtin or a function of this module later changes
nothing they do.
"""

import ast
import builtins
import operator

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


# --------------------------------------------------------------------------- arguments (child)

def make_arg_eval():
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
    N_EXPR, N_CONST, N_NAME = ast.Expression, ast.Constant, ast.Name
    N_ATTR, N_CALL = ast.Attribute, ast.Call
    N_TUPLE, N_LIST, N_SET, N_DICT = ast.Tuple, ast.List, ast.Set, ast.Dict
    N_UNARY, N_BINOP = ast.UnaryOp, ast.BinOp
    O_UADD, O_USUB, O_ADD, O_SUB = ast.UAdd, ast.USub, ast.Add, ast.Sub
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


# --------------------------------------------------------------------------- drawing and tagging (child)

class Drawn:
    """What a returned iterator gave when drawn (see `make_drawer`): its type, its items
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


def make_drawer(iter_items=ITER_ITEMS):
    """Returns `draw(x)`: `x` with every iterator in it drawn (itself, or inside lists and
    tuples, three levels deep) into a `Drawn`, at most `iter_items` items in all; `x` itself
    when it holds none. Built from references captured now (before user code runs); called
    in the call, under coverage and the clock: what the iterators run lazily is the
    function's code, and what they raise, the call raises."""
    _type, _hasattr, _next, _StopIteration = type, hasattr, next, StopIteration
    _append, _list, _tuple, _Drawn = list.append, list, tuple, Drawn

    def draw(x, depth, budget):
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
            return _Drawn(vt, items, truncated)
        if (vt is _list or vt is _tuple) and depth < 3:
            out, changed = [], False
            for item in x:
                d = draw(item, depth + 1, budget)
                changed = changed or d is not item
                _append(out, d)
            if changed:
                return out if vt is _list else _tuple(out)
        return x

    def top(x):
        return draw(x, 0, [iter_items])

    return top


def make_tagger(repr_cap):
    """Returns (tag, safe_repr): `tag` turns a Python value into nested tuples of exact builtin
    types, built from references captured now (before user code runs)."""
    _type = type
    _repr = builtins.repr
    _len = len
    _id = id
    T_INT, T_FLOAT, T_STR, T_BYTES, T_BOOL = int, float, str, bytes, bool
    T_LIST, T_TUPLE, T_DICT, T_SET, T_FROZEN = list, tuple, dict, set, frozenset
    NONE = _type(None)
    DRAWN = Drawn
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


# --------------------------------------------------------------------------- to JSON (runner)

def tag_to_json(t):
    """A tagged value (from the child, checked by the runner) as the protocol's `Value` JSON."""
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
        return {"t": kind, "v": [tag_to_json(x) for x in t[1]]}
    if kind == "dict":
        return {"t": "dict", "v": [[tag_to_json(k), tag_to_json(v)] for k, v in t[1]]}
    if kind == "iter":
        return {"t": "iter", "v": {"items": [tag_to_json(x) for x in t[1]], "truncated": t[2] is True}}
    return {"t": "object", "v": {"type": t[1], "repr": t[2]}}
