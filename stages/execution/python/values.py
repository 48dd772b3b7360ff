"""Values of the runner: a call's arguments from their literal text, a returned value tagged
into exact builtin types, and the tagged value as the protocol's JSON.

Loaded by runner.py under the private name `_freshbench_values` (never importable by the
code under test by a plain name). Everything a child uses after user code has run is built
by the `make_*` functions from references captured when they are called, in the child,
before any user code runs: replacing a builtin or a function of this module later changes
nothing they do.
"""

import abc
import ast
import builtins
import datetime
import decimal
import fractions
import keyword
import operator
import pathlib
import re
import types

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
# Standard constructors a test case may call, `module.Name(...)`, with literal arguments only
# (no keywords): (module, name) -> (class, the argument types in order, how many are needed
# at least). Nothing else is called; the writer (`make_arg_writer`) writes exactly these.
ARG_CONSTRUCTORS = {
    ("datetime", "datetime"): (datetime.datetime, (int,) * 7 + (datetime.timezone,), 3),
    ("datetime", "date"): (datetime.date, (int,) * 3, 3),
    ("datetime", "time"): (datetime.time, (int,) * 4, 0),
    ("datetime", "timedelta"): (datetime.timedelta, (int,) * 3, 0),
    ("datetime", "timezone"): (datetime.timezone, (datetime.timedelta,), 1),
    ("decimal", "Decimal"): (decimal.Decimal, (str,), 1),
    ("fractions", "Fraction"): (fractions.Fraction, (int, int), 2),
    ("pathlib", "PurePosixPath"): (pathlib.PurePosixPath, (str,), 1),
    # A compiled regular expression of a str pattern; its flags among ARG_REGEX_FLAGS.
    ("re", "compile"): (re.compile, (str, int), 1),
}
# An attribute bag, `types.SimpleNamespace(type='number', value=3)`: keywords only, each an
# identifier (no `**`), at most this many; its values any accepted literal. It stands for an
# object code reads by attribute (a token, a record), which no other literal can.
ARG_NAMESPACE_ATTRS = 32
# An object written as its attributes (`make_arg_writer(objects=True)`): each attribute's text
# at most this long, and objects nested at most this deep.
OBJECT_ATTR_CHARS = 256
OBJECT_DEPTH = 4
# The flags `re.compile(P, F)` may take: IGNORECASE, MULTILINE, DOTALL, UNICODE, VERBOSE and
# ASCII. Not DEBUG (it prints), not LOCALE (bytes patterns only).
ARG_REGEX_FLAGS = (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE | re.VERBOSE
                   | re.ASCII)


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
    bare name (`len`, `sorted`: to pass a function), `operator.NAME` for NAME in
    ARG_OPERATORS, and the constructors of ARG_CONSTRUCTORS with int or str literals as their
    positional arguments (`datetime.datetime(2024, 1, 2, 3, 4, 5, 0)`, `datetime.date(..)`,
    `datetime.time(..)`, `datetime.timedelta(d, s, us)`, `decimal.Decimal('1.5')`,
    a datetime's time zone as an eighth argument `datetime.timezone(datetime.timedelta(..))`,
    `fractions.Fraction(1, 3)`, `pathlib.PurePosixPath('a/b')`, `re.compile('a+', 2)` with
    flags among ARG_REGEX_FLAGS), and `types.SimpleNamespace(NAME=V, ...)` with at most
    ARG_NAMESPACE_ATTRS keywords whose values are accepted literals. No other name, attribute,
    call, operator, lambda or comprehension."""
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
    constructors = dict(ARG_CONSTRUCTORS)
    regex_compile, regex_flags = re.compile, _int(ARG_REGEX_FLAGS)
    namespace, most_attrs = types.SimpleNamespace, _int(ARG_NAMESPACE_ATTRS)

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

    def construct(node):
        f = node.func
        key = (f.value.id, f.attr)
        if key not in constructors:
            bad(node)
        make, types, least = constructors[key]
        if _len(node.args) < least or _len(node.args) > _len(types):
            bad(node)
        args = []
        for a, t in _zip(node.args, types):
            # An argument of a standard type is itself one of the constructors.
            if _type(a) not in (N_CONST, N_UNARY) and (t in (_int, _str)
                                                       or _type(a) is not N_CALL):
                bad(a)
            v = convert(a)
            if _type(v) is not t:
                bad(a)
            _append(args, v)
        if make is regex_compile and _len(args) == 2 and args[1] & ~regex_flags:
            bad(node.args[1])
        return make(*args)

    def attributes(node):
        """`types.SimpleNamespace(a=1, b='x')`: keywords only, each named."""
        if node.args or _len(node.keywords) > most_attrs:
            bad(node)
        attrs = {}
        for kw in node.keywords:
            if kw.arg is None or kw.arg in attrs:  # `**mapping`, or a name twice
                bad(node)
            attrs[kw.arg] = convert(kw.value)
        return namespace(**attrs)

    def call(node):
        f = node.func
        if (_type(f) is N_ATTR and _type(f.value) is N_NAME and f.value.id == "types"
                and f.attr == "SimpleNamespace"):
            return attributes(node)
        if (not node.keywords and _type(f) is N_ATTR and _type(f.value) is N_NAME):
            return construct(node)
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


def make_arg_writer(objects=False):
    """Returns `write(x, cap)`: the text of value `x` in the grammar `make_arg_eval` reads
    (reading it gives a value equal to `x`, of the same exact types), or None when `x` is not
    rebuildable from it (any other type, subclasses included: an enum, a named tuple, a
    `bool` subclass; a recursive container; a NaN or infinite part of a complex; a datetime
    with a time zone other than a `datetime.timezone` of no name of its own) or its text is
    over `cap` characters. Built from references captured now (before user code runs); it
    runs no method of `x` but those of the exact builtin and standard types above (`repr` of
    str, bytes, int and float; `str` of a Decimal; `utcoffset` and `tzname` of a
    `datetime.timezone`; the `pattern` and `flags` of a compiled regular expression).

    With `objects`, an object of a class written in Python (every class of its MRO but
    `object` defined by a `class` statement, its metaclass `type` or `abc.ABCMeta`: no enum,
    no subclass of a builtin or C type, no exception) is written as the attribute bag that
    stands for it, `types.SimpleNamespace(...)`: its classes' plain data attributes (base
    class first), its slots and its instance dictionary, each named by an identifier that is
    no keyword and no dunder, each written if it can be within OBJECT_ATTR_CHARS characters
    (methods, properties, unwritable or long values are left out; properties are never
    run); an object with none of them is not written. Reading it back gives a namespace,
    not the object: code that reads attributes sees the same values; code that calls its
    methods or compares it does not. The observer uses this: a function that takes a token
    or a record gets it as a seed."""
    _type, _len, _id, _list = type, len, id, list
    _repr, _str, _float_repr, _int_repr = builtins.repr, str, float.__repr__, int.__repr__
    _str_repr, _bytes_repr = str.__repr__, bytes.__repr__
    T_INT, T_FLOAT, T_STR, T_BYTES, T_BOOL, T_COMPLEX = int, float, str, bytes, bool, complex
    T_LIST, T_TUPLE, T_DICT, T_SET, T_FROZEN = list, tuple, dict, set, frozenset
    NONE, ELLIPSIS = _type(None), _type(...)
    T_DT, T_DATE, T_TIME, T_TD = (datetime.datetime, datetime.date, datetime.time,
                                  datetime.timedelta)
    T_TZ, UTC_OFFSET = datetime.timezone, datetime.timezone.utcoffset
    TZ_NAME = datetime.timezone.tzname
    T_DEC, T_FRAC, T_PPP = decimal.Decimal, fractions.Fraction, pathlib.PurePosixPath
    _dec_str, _ppp_str = decimal.Decimal.__str__, pathlib.PurePosixPath.__str__
    T_PATTERN = re.Pattern
    _pattern_of, _flags_of = re.Pattern.pattern.__get__, re.Pattern.flags.__get__
    REGEX_FLAGS, UNICODE = int(ARG_REGEX_FLAGS), int(re.UNICODE)
    T_NS, _vars = types.SimpleNamespace, vars
    T_TYPE, T_ABC_META = type, abc.ABCMeta
    T_MEMBER, T_GETSET = types.MemberDescriptorType, types.GetSetDescriptorType
    _member_get, _getset_get = types.MemberDescriptorType.__get__, types.GetSetDescriptorType.__get__
    _mro_of, _class_dict = type.__dict__["__mro__"].__get__, type.__dict__["__dict__"].__get__
    _type_flags = type.__dict__["__flags__"].__get__
    HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a `class` statement
    _isidentifier, _startswith, _endswith = str.isidentifier, str.startswith, str.endswith
    KEYWORDS = frozenset(keyword.kwlist)
    _join, _append = ", ".join, list.append
    INF = float("inf")
    names = {}
    for n in ARG_BUILTINS:
        names[_id(getattr(builtins, n))] = (getattr(builtins, n), n)
    for n in ARG_OPERATORS:
        names.setdefault(_id(getattr(operator, n)), (getattr(operator, n), "operator." + n))

    class Over(Exception):
        pass

    def real(x):
        if x != x:
            return "float('nan')"
        if x == INF:
            return "float('inf')"
        if x == -INF:
            return "-float('inf')"
        return _float_repr(x)

    def ints(*xs):
        return "(" + _join([_int_repr(v) for v in xs]) + ")"

    def zone(tz):
        """The text of a `datetime.timezone` of no name of its own, else None."""
        if _type(tz) is not T_TZ:
            return None
        off = UTC_OFFSET(tz, None)
        if TZ_NAME(tz, None) != TZ_NAME(T_TZ(off), None):
            return None
        return "datetime.timezone(datetime.timedelta" + ints(off.days, off.seconds,
                                                             off.microseconds) + ")"

    def attr_name(k):
        return (_type(k) is T_STR and _isidentifier(k) and k not in KEYWORDS
                and not (_startswith(k, "__") and _endswith(k, "__")))

    def namespace(attrs, budget, seen, depth, skip):
        """`types.SimpleNamespace(k=v, ...)` of `attrs` (name -> value, in order); with `skip`,
        an attribute whose value is unwritable or over OBJECT_ATTR_CHARS is left out, else it
        makes the whole unwritable."""
        parts = []
        for k in _list(attrs):
            if not attr_name(k):
                if skip:
                    continue
                return None
            if skip:
                own = [OBJECT_ATTR_CHARS if budget[0] > OBJECT_ATTR_CHARS else budget[0]]
                try:
                    vs = w(attrs[k], own, seen, depth + 1)
                except Over:
                    continue
                if vs is None:
                    continue
            else:
                vs = w(attrs[k], budget, seen, depth + 1)
                if vs is None:
                    return None
            _append(parts, k + "=" + vs)
            budget[0] -= _len(k) + 3 + (_len(vs) if skip else 0)
            if budget[0] < 0:
                raise Over
            if _len(parts) >= ARG_NAMESPACE_ATTRS:
                if not skip:
                    return None
                break
        return "types.SimpleNamespace(" + _join(parts) + ")"

    def snapshot(x, t):
        """The attributes an object of a class written in Python stands for (see above), or
        None for any other object."""
        if _type(t) is not T_TYPE and _type(t) is not T_ABC_META:
            return None
        mro = _mro_of(t)
        if _len(mro) < 2 or mro[-1] is not object:
            return None
        for c in mro[:-1]:
            if not _type_flags(c) & HEAP_TYPE:
                return None
        attrs, dict_slot = {}, None
        for c in reversed(mro[:-1]):
            d = _class_dict(c)
            for k in _list(d):
                v = d[k]
                if k == "__dict__" and _type(v) is T_GETSET:
                    dict_slot = v
                if not attr_name(k):
                    continue
                if _type(v) is T_MEMBER:  # a slot: its value in `x`, when set
                    try:
                        v = _member_get(v, x, t)
                    except AttributeError:
                        attrs.pop(k, None)
                        continue
                attrs[k] = v
        if dict_slot is not None:
            own = _getset_get(dict_slot, x, t)
            if _type(own) is T_DICT:
                for k in _list(own):
                    attrs[k] = own[k]
        return attrs

    def items(xs, budget, seen, depth):
        out = []
        for v in xs:
            _append(out, w(v, budget, seen, depth + 1))
        return out

    def w(x, budget, seen, depth):
        t = _type(x)
        if t is NONE:
            s = "None"
        elif t is T_BOOL:
            s = "True" if x is True else "False"
        elif t is T_INT:
            if budget[0] < 0 or x.bit_length() > 8 * budget[0]:
                raise Over
            s = _int_repr(x)
        elif t is T_FLOAT:
            s = real(x)
        elif t is T_STR:
            if _len(x) > budget[0]:
                raise Over
            s = _str_repr(x)
        elif t is T_BYTES:
            if _len(x) > budget[0]:
                raise Over
            s = _bytes_repr(x)
        elif t is ELLIPSIS:
            s = "..."
        elif t is T_COMPLEX:
            # `(r + ij)` or `(r - ij)`: read back as a real plus (or minus) an imaginary
            # literal; a part whose sign or value that loses (-0.0, NaN, infinities) is not
            # written.
            r, i = x.real, x.imag
            rs, si = _float_repr(r), _float_repr(i)
            if r != r or i != i or r in (INF, -INF) or i in (INF, -INF) or rs[0] == "-" and r == 0 \
                    or si[0] == "-" and i == 0:
                return None
            s = "(" + rs + (" - " + si[1:] if si[0] == "-" else " + " + si) + "j)"
        elif t in (T_LIST, T_TUPLE, T_DICT, T_SET, T_FROZEN):
            if depth > 50 or _id(x) in seen:
                return None
            budget[0] -= 2
            if budget[0] < 0:
                raise Over
            seen.add(_id(x))
            try:
                if t is T_DICT:
                    parts = []
                    for k in _list(x):
                        ks = w(k, budget, seen, depth + 1)
                        vs = w(x[k], budget, seen, depth + 1)
                        if ks is None or vs is None:
                            return None
                        _append(parts, ks + ": " + vs)
                    s = "{" + _join(parts) + "}"
                else:
                    parts = items(_list(x), budget, seen, depth)
                    if None in parts:
                        return None
                    body = _join(parts)
                    if t is T_LIST:
                        s = "[" + body + "]"
                    elif t is T_TUPLE:
                        s = "(" + body + ("," if _len(parts) == 1 else "") + ")"
                    elif t is T_SET:
                        s = "{" + body + "}" if parts else "set()"
                    else:
                        s = "frozenset([" + body + "])" if parts else "frozenset()"
            finally:
                seen.discard(_id(x))
            return s
        elif t is T_DT:
            if x.fold:
                return None
            s = "datetime.datetime" + ints(x.year, x.month, x.day, x.hour, x.minute, x.second,
                                           x.microsecond)
            if x.tzinfo is not None:
                tz = zone(x.tzinfo)
                if tz is None:
                    return None
                s = s[:-1] + ", " + tz + ")"
        elif t is T_TZ:
            s = zone(x)
            if s is None:
                return None
        elif t is T_DATE:
            s = "datetime.date" + ints(x.year, x.month, x.day)
        elif t is T_TIME:
            if x.tzinfo is not None or x.fold:
                return None
            s = "datetime.time" + ints(x.hour, x.minute, x.second, x.microsecond)
        elif t is T_TD:
            s = "datetime.timedelta" + ints(x.days, x.seconds, x.microseconds)
        elif t is T_DEC:
            s = "decimal.Decimal(" + _str_repr(_dec_str(x)) + ")"
        elif t is T_FRAC:
            s = "fractions.Fraction" + ints(x.numerator, x.denominator)
        elif t is T_PPP:
            s = "pathlib.PurePosixPath(" + _str_repr(_ppp_str(x)) + ")"
        elif t is T_PATTERN:
            pattern, flags = _pattern_of(x), _flags_of(x)
            if _type(pattern) is not T_STR or flags & ~REGEX_FLAGS:
                return None
            if _len(pattern) > budget[0]:
                raise Over
            # A str pattern is UNICODE unless ASCII: that flag alone is the default.
            s = "re.compile(" + _str_repr(pattern) + (
                ")" if flags == UNICODE else ", " + _int_repr(flags) + ")")
        elif t is T_NS:
            if depth > 50 or _id(x) in seen:
                return None
            seen.add(_id(x))
            try:
                s = namespace(_vars(x), budget, seen, depth, False)
            finally:
                seen.discard(_id(x))
            return s
        else:
            known = names.get(_id(x))
            if known is not None and known[0] is x:
                s = known[1]
            else:
                attrs = snapshot(x, t) if objects and depth <= OBJECT_DEPTH else None
                if attrs is None or _id(x) in seen:
                    return None
                seen.add(_id(x))
                try:
                    s = namespace(attrs, budget, seen, depth, True)
                finally:
                    seen.discard(_id(x))
                # No attribute written (`_abc_data`, a C heap type's object): it stands for
                # nothing the code could read.
                return None if s == "types.SimpleNamespace()" else s
        budget[0] -= _len(s)
        if budget[0] < 0:
            raise Over
        return s

    def write(x, cap):
        budget = [cap]
        try:
            s = w(x, budget, set(), 0)
        except Over:
            return None
        if s is None or _len(s) > cap:
            return None
        return s

    return write


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
