"""freshbench's dynamic slicer: the statements an observed result depends on, in one traced
execution, and what the difficulty figures are made of (ESV, MCL, DFI; see
schemas/TABLES.md).

It runs inside the sandboxed worker (imported by runner.py next to it), around exactly one
execution: a call of a function task's reference on one case, or one test of a pytest run.

- Tracing: `sys.settrace` line events in frames of the traced files (the repository's or
  the task's own); frames of other files (the standard library, site-packages, pytest) are
  not traced. A statement instance is one execution of a statement in one frame.
- Data dependences come from the bytecode: for each line of a code object, the variables its
  instructions load and store (locals, globals, closure cells, attributes of a resolvable
  object, subscript stores into a variable's container). An instance uses the last
  instance that stored what it loads; its stores take effect when it ends. A call's
  parameters are defined by the calling instance; a return (or an exception unwinding)
  makes the calling instance depend on the callee's last instance. A method call or
  subscript store on a variable also counts as a store of that variable (weak update: the
  container may have changed).
- Control dependences come from the syntax tree: an instance depends on the latest instance
  of the innermost enclosing branch (if, elif, while, for, except, match) in its frame; a
  statement at the top of a function body depends on the calling instance.
- Inputs (DFI): a load with no store in the trace (or a parameter given from outside the
  traced code, or from a test file into code under test) is an input node: `param`,
  `global`, `attr` or `free`; modules, classes, functions and methods loaded are code, not
  inputs, and literals are constants.

The backward slice from the criterion (every return of the traced entry; the statements
of given lines; or, `forward`, the test statements that depend on given lines) is reported
per statement with its executions counted, its function, its call depth and its file's
role (`code` or `test`); the caller (Rust) turns these into the figures of a family.
"""

import ast
import dis
import os
import sys
import time
import types

CODE_TYPES = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type,
              types.MethodType, types.BuiltinMethodType, staticmethod, classmethod, property)

# Instruction kinds (3.11; the 3.12+ names are there for when the worker has them).
LOAD_LOCAL = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST"}
STORE_LOCAL = {"STORE_FAST", "DELETE_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"}
LOAD_GLOBAL = {"LOAD_GLOBAL", "LOAD_NAME"}
STORE_GLOBAL = {"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME", "DELETE_NAME"}
LOAD_CELL = {"LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"}
STORE_CELL = {"STORE_DEREF", "DELETE_DEREF"}
LOAD_ATTR = {"LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR"}
STORE_ATTR = {"STORE_ATTR", "DELETE_ATTR"}
STORE_SUBSCR = {"STORE_SUBSCR", "DELETE_SUBSCR", "STORE_SLICE"}
SIMPLE_LOADS = LOAD_LOCAL | LOAD_GLOBAL | LOAD_CELL | {"LOAD_CONST"}

BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While)
TEST_DIRS = {"tests", "test", "testing"}


class TooLarge(Exception):
    pass


def file_role(path):
    """`test` for a test module, conftest or a file under a tests folder; else `code`."""
    base = path.rsplit("/", 1)[-1]
    if base == "conftest.py" or base.startswith("test_") or base.endswith("_test.py"):
        return "test"
    parts = path.replace("\\", "/").split("/")
    return "test" if any(p in TEST_DIRS for p in parts[:-1]) else "code"


class Static:
    """What the syntax tree of one file says: each line's statement (by its first line),
    each statement's enclosing branch and function, the functions' extents."""

    def __init__(self, text):
        self.stmt_of = {}
        self.parent = {}
        self.func = {}
        self.extent = {}
        self.funcs = []
        self.func_at = {}
        self.headers = set()
        self.handlers = set()
        self.gives = set()
        tree = ast.parse(text)
        self._body(tree.body, None, -1, "")

    def _mark(self, node, start, end):
        for line in range(start, end + 1):
            self.stmt_of[line] = node.lineno

    def _stmt(self, node, branch, func):
        line = node.lineno
        if (isinstance(node, ast.Return) and node.value is not None) or _yields(node):
            self.gives.add(line)
        self.parent[line] = branch
        self.func[line] = func
        self.extent[line] = (line, getattr(node, "end_lineno", line) or line)

    def _body(self, stmts, branch, func, prefix):
        for node in stmts:
            self._one(node, branch, func, prefix)

    def _one(self, node, branch, func, prefix):
        end = getattr(node, "end_lineno", node.lineno) or node.lineno
        self._stmt(node, branch, func)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            self._mark(node, first, node.body[0].lineno - 1 if node.body else end)
            qual = prefix + node.name
            self.funcs.append((qual, first, end))
            self.func_at[first] = self.func_at[node.lineno] = len(self.funcs) - 1
            self._body(node.body, None, len(self.funcs) - 1, qual + ".<locals>.")
            return
        if isinstance(node, ast.ClassDef):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            self._mark(node, first, node.body[0].lineno - 1 if node.body else end)
            self._body(node.body, None, func, prefix + node.name + ".")
            return
        children = [b for b in ("body", "orelse", "finalbody") if getattr(node, b, None)]
        handlers = getattr(node, "handlers", None) or []
        cases = getattr(node, "cases", None) or []
        if not children and not handlers and not cases:
            self._mark(node, node.lineno, end)
            return
        first_child = min([getattr(node, b)[0].lineno for b in children]
                          + [h.lineno for h in handlers] + [c.pattern.lineno for c in cases])
        self._mark(node, node.lineno, max(node.lineno, first_child - 1))
        inner = node.lineno if isinstance(node, BRANCHES) or cases else branch
        if isinstance(node, (ast.If, ast.While)) and node.orelse:
            self.headers.add(node.lineno)
        if isinstance(node, BRANCHES) or cases:
            self.headers.add(node.lineno)
        for b in ("body", "orelse"):
            self._body(getattr(node, b, None) or [], inner, func, prefix)
        for h in handlers:
            # The `except` line is a branch of its own: its body depends on it.
            self.stmt_of[h.lineno] = h.lineno
            self.parent[h.lineno] = branch
            self.func[h.lineno] = func
            self.extent[h.lineno] = (h.lineno, h.end_lineno or h.lineno)
            self.headers.add(h.lineno)
            self.handlers.add(h.lineno)
            self._body(h.body, h.lineno, func, prefix)
        for c in cases:
            self._body(c.body, node.lineno, func, prefix)
        self._body(getattr(node, "finalbody", None) or [], branch, func, prefix)


def _line_ops(code):
    """Per line of `code`: (loads, stores), each a tuple of (kind, name, base), where base
    is the (kind, name) of the variable an attribute or subscript is taken on, when the
    instruction before loads it plainly."""
    out = {}
    prev = None
    prev2 = None
    line = code.co_firstlineno
    for ins in dis.get_instructions(code):
        pos = getattr(ins, "positions", None)
        if pos is not None and pos.lineno is not None:
            line = pos.lineno
        elif ins.starts_line:
            line = ins.starts_line
        op, name = ins.opname, ins.argval
        loads, stores = out.setdefault(line, ([], []))
        if op in LOAD_LOCAL:
            names = name if isinstance(name, tuple) else (name,)
            for n in names:
                loads.append(("L", n, None))
        elif op in STORE_LOCAL:
            names = name if isinstance(name, tuple) else (name,)
            for n in names:
                stores.append(("L", n, None))
        elif op in LOAD_GLOBAL:
            loads.append(("G", name, None))
        elif op in STORE_GLOBAL:
            stores.append(("G", name, None))
        elif op in LOAD_CELL:
            loads.append(("C", name, None))
        elif op in STORE_CELL:
            stores.append(("C", name, None))
        elif op in LOAD_ATTR:
            base = _base(prev)
            loads.append(("A", name, base))
            if op == "LOAD_METHOD" and base is not None:
                stores.append(("W", base[1], base))
        elif op in STORE_ATTR:
            stores.append(("A", name, _base(prev)))
        elif op in STORE_SUBSCR:
            # The container is below the key: `x[k] = v` is LOAD x, LOAD k, STORE_SUBSCR.
            if prev is not None and prev.opname in SIMPLE_LOADS:
                base = _base(prev2)
                if base is not None:
                    stores.append(("W", base[1], base))
        prev2, prev = prev, ins
    return {k: (tuple(v[0]), tuple(v[1])) for k, v in out.items()}


def _base(ins):
    if ins is None:
        return None
    if ins.opname in LOAD_LOCAL and not isinstance(ins.argval, tuple):
        return ("L", ins.argval)
    if ins.opname in LOAD_GLOBAL:
        return ("G", ins.argval)
    if ins.opname in LOAD_CELL:
        return ("C", ins.argval)
    return None


class Frame:
    __slots__ = ("key", "fid", "static", "path", "role", "depth", "entry", "cur", "cur_stmt",
                 "cur_off", "last_of", "ops", "pending", "func_index", "real", "caller",
                 "raised", "named", "lastl")


class Tracer:
    """One traced execution. `roots`: folders whose files are traced. `criterion`: `return`,
    or ("lines", path, first, last, forward). `cap`: statement instances before `TooLarge`."""

    def __init__(self, roots, criterion, cap, entry_file=None):
        self.roots = [_realpath(r).rstrip("/") + "/" for r in roots]
        self.entry_file = entry_file
        self.criterion = criterion
        self.cap = cap
        self.files = {}      # filename -> (path, Static, role) or None (not traced)
        self.ops = {}        # code -> line ops
        self.frames = {}     # id(frame) -> Frame
        self.stack = []
        # Instances: where (file index, statement line), depth, deps (list), role.
        self.where = []
        self.deps = []
        self.depth = []
        self.func_of = []
        self.input_key = {}  # instance -> input key (input nodes)
        self.inputs = {}     # input key -> instance
        self.last = {}       # location -> instance that stored it last
        self.roots_seen = []  # criterion instances for `return`
        self.paths = []
        self.path_index = {}
        self.stopped = None
        self.error = ""
        self._roles = []
        self.next_key = 0
        self.events = 0
        self.t0 = 0.0
        self.seconds = 0.0

    # ------------------------------------------------------------------ files and frames
    def _file(self, filename):
        got = self.files.get(filename, False)
        if got is not False:
            return got
        info = None
        real = _realpath(filename) if filename and filename.startswith("/") else ""
        if real and "/site-packages/" not in real and (
                real == self.entry_file or any(real.startswith(r) for r in self.roots)):
            try:
                st = _STAT(real)
                key = (real, st.st_mtime_ns, st.st_size)
                static = _STATIC.get(key)
                if static is None:
                    with _OPEN(real, encoding="utf-8") as f:
                        text = f.read()
                    static = _STATIC[key] = Static(text)
                rel = real
                for r in self.roots:
                    if real.startswith(r):
                        rel = real[len(r):]
                        break
                else:
                    rel = real.rsplit("/", 1)[-1]
                info = (rel, static, file_role(rel))
            except (OSError, SyntaxError, ValueError, RecursionError):
                info = None
        self.files[filename] = info
        return info

    def _path_id(self, path):
        i = self.path_index.get(path)
        if i is None:
            i = self.path_index[path] = len(self.paths)
            self.paths.append(path)
        return i

    def _new(self, where, depth, func, deps):
        n = len(self.where)
        if n >= self.cap:
            raise TooLarge()
        self.where.append(where)
        self.depth.append(depth)
        self.func_of.append(func)
        self.deps.append(deps)
        return n

    def _input(self, key, deps=()):
        i = self.inputs.get(key)
        if i is None:
            i = self._new(None, 0, -1, list(deps))
            self.inputs[key] = i
            self.input_key[i] = key
        return i

    # ------------------------------------------------------------------ the trace function
    def start(self):
        self.t0 = time.perf_counter()
        sys.settrace(self.global_trace)

    def stop(self):
        if sys.gettrace() != self.global_trace and self.stopped is None:
            self.stopped = "replaced"
        sys.settrace(None)
        for fr in list(self.stack):
            self._close(fr)
        self.seconds += time.perf_counter() - self.t0

    def global_trace(self, frame, event, arg):
        if self.stopped is not None:
            return None
        try:
            return self._call(frame)
        except TooLarge:
            self.stopped = "too_large"
            sys.settrace(None)
            return None
        except Exception as e:  # noqa: BLE001 - a slicer bug must not reach the code
            self._fail(e)
            return None

    def _call(self, frame):
        code = frame.f_code
        fr = self.frames.get(id(frame))
        if fr is not None and fr.real is frame:  # a generator resumed
            self.stack.append(fr)
            if self.stack[:-1]:
                fr.caller = self.stack[-2]
            return self.local_trace
        info = self._file(code.co_filename)
        if info is None:
            return None
        path, static, role = info
        caller = self.stack[-1] if self.stack else None
        if caller is not None and caller.real is not frame.f_back:
            # An untraced frame lies between them (a callback from the standard library).
            caller = caller if _reaches(frame.f_back, caller.real) else None
        fr = Frame()
        fr.key = self.next_key
        self.next_key += 1
        fr.fid = self._path_id(path)
        fr.static, fr.path, fr.role = static, path, role
        real_func = not code.co_name.startswith("<")
        fr.depth = (caller.depth + (1 if real_func else 0)) if caller is not None else 1
        fr.entry = caller.cur if caller is not None else None
        fr.caller = caller
        fr.cur = None
        fr.cur_stmt = None
        fr.cur_off = -1
        fr.last_of = {}
        fr.pending = ()
        fr.real = frame
        fr.raised = False
        fr.named = real_func
        fr.lastl = {}
        if real_func:
            fr.func_index = static.func_at.get(code.co_firstlineno, -2)
        else:  # a comprehension, lambda or module: the function of its statement
            fr.func_index = static.func.get(static.stmt_of.get(code.co_firstlineno, -1), -1)
        ops = _OPS.get(code)
        if ops is None:
            ops = _OPS[code] = _line_ops(code)
        fr.ops = ops
        # Parameters: defined by the calling instance, or inputs when given from outside
        # the traced code (or from a test into code under test).
        nparams = code.co_argcount + code.co_kwonlyargcount
        nparams += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        names = code.co_varnames[:nparams]
        outside = caller is None or (caller.role == "test" and role == "code")
        for name in names:
            if name == "self" or name == "cls" or name.startswith("."):
                if caller is not None and caller.cur is not None:
                    fr.lastl[name] = caller.cur
                continue
            if outside:
                key = ("param", "%s:%s" % (path, code.co_qualname
                                           if hasattr(code, "co_qualname") else code.co_name),
                       name)
                deps = [caller.cur] if caller is not None and caller.cur is not None else []
                fr.lastl[name] = self._input(key, deps)
            elif caller.cur is not None:
                fr.lastl[name] = caller.cur
        self.frames[id(frame)] = fr
        self.stack.append(fr)
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if self.stopped is not None:
            return None
        try:
            if event == "line":
                self._line(frame)
            elif event == "return":
                self._return(frame)
            elif event == "exception":
                fr = self.frames.get(id(frame))
                if fr is not None:
                    fr.raised = True
        except TooLarge:
            self.stopped = "too_large"
            sys.settrace(None)
            return None
        except Exception as e:  # noqa: BLE001
            self._fail(e)
            return None
        return self.local_trace

    def _fail(self, e):
        self.stopped = "error"
        self.error = "%s: %s" % (type(e).__name__, str(e)[:300])
        sys.settrace(None)

    def _line(self, frame):
        fr = self.frames.get(id(frame))
        if fr is None:
            return
        line = frame.f_lineno
        static = fr.static
        stmt = static.stmt_of.get(line)
        if stmt is None:
            return
        fr.raised = False
        func = static.func.get(stmt, -1)
        if func != fr.func_index and fr.named and fr.func_index != -2:
            return  # the `def` line of the function itself, or a decorator's
        off = frame.f_lasti
        ops = fr.ops.get(line)
        if stmt == fr.cur_stmt and off > fr.cur_off and fr.cur is not None:
            fr.cur_off = off
            if ops:
                self._uses(fr, frame, fr.cur, ops[0])
                fr.pending = fr.pending + ops[1]
            return
        raiser = fr.cur
        if fr.pending:
            self._close(fr)
        self.events += 1
        parent = static.parent.get(stmt)
        deps = []
        if raiser is not None and stmt in static.handlers:
            # An `except` runs because the statement before it raised.
            deps.append(raiser)
        if parent is not None and parent in fr.last_of:
            deps.append(fr.last_of[parent])
        elif fr.entry is not None:
            deps.append(fr.entry)
        inst = len(self.where)
        if inst >= self.cap:
            raise TooLarge()
        self.where.append((fr.fid, stmt))
        self.depth.append(fr.depth)
        self.func_of.append(func)
        self.deps.append(deps)
        fr.cur, fr.cur_stmt, fr.cur_off = inst, stmt, off
        fr.last_of[stmt] = inst
        if ops:
            self._uses(fr, frame, inst, ops[0])
            fr.pending = ops[1]
        else:
            fr.pending = ()

    def _loc(self, fr, frame, kind, name, base):
        if kind == "G":
            return ("G", id(frame.f_globals), name)
        if kind == "C":
            return ("C", fr.path, name)
        if kind == "W":
            return None if base[0] == "L" else self._loc(fr, frame, base[0], base[1], None)
        # An attribute: of the object when the instruction before loads it plainly.
        obj = self._resolve(frame, base)
        if obj is _UNKNOWN:
            return ("A?", name)
        return ("A", id(obj), name)

    def _resolve(self, frame, base):
        if base is None:
            return _UNKNOWN
        kind, name = base
        if kind == "L":
            return frame.f_locals.get(name, _UNKNOWN)
        if kind == "G":
            g = frame.f_globals
            if name in g:
                return g[name]
            b = g.get("__builtins__")
            b = b if isinstance(b, dict) else getattr(b, "__dict__", {})
            return b.get(name, _UNKNOWN)
        return frame.f_locals.get(name, _UNKNOWN)

    def _uses(self, fr, frame, inst, loads):
        deps = self.deps[inst]
        lastl = fr.lastl
        for kind, name, base in loads:
            if kind == "L":  # the common case, first and cheapest
                d = lastl.get(name)
                if d is not None and d != inst:
                    deps.append(d)
                continue
            loc = self._loc(fr, frame, kind, name, base)
            d = self.last.get(loc)
            if d is None and kind == "A" and loc[0] == "A?":
                d = self.last.get(("A*", name))
            if d is not None:
                if d != inst:
                    deps.append(d)
                continue
            key = self._input_of(fr, frame, kind, name, base)
            if key is not None:
                d = self._input(key)
                self.last[loc] = d
                deps.append(d)

    def _input_of(self, fr, frame, kind, name, base):
        """The input key of a load that nothing traced stored, or None for code and
        constants."""
        if kind == "L":
            return None
        if kind == "G":
            g = frame.f_globals
            if name in g:
                value = g[name]
            else:
                return None  # a builtin: code
            if isinstance(value, CODE_TYPES) or name.startswith("__"):
                return None
            return ("global", g.get("__name__", "?"), name)
        if kind == "C":
            for cell_name, value in _cells(frame):
                if cell_name == name:
                    if isinstance(value, CODE_TYPES):
                        return None
                    break
            return ("free", fr.path, name)
        obj = self._resolve(frame, base)
        if obj is _UNKNOWN:
            return ("attr", "?", name)
        if isinstance(obj, types.ModuleType):
            value = obj.__dict__.get(name, _UNKNOWN)
            if value is _UNKNOWN or isinstance(value, CODE_TYPES):
                return None
            return ("global", obj.__name__, name)
        if isinstance(obj, type):
            value = _class_attr(obj, name)
            if isinstance(value, CODE_TYPES) or isinstance(value, (types.FunctionType,)):
                return None
            return ("attr", obj.__qualname__, name)
        value = _class_attr(type(obj), name)
        if value is not _UNKNOWN and (isinstance(value, CODE_TYPES)
                                      or hasattr(value, "__get__")):
            return None  # a method or property of its class (traced where it is ours)
        return ("attr", type(obj).__qualname__, name)

    def _close(self, fr):
        if fr.cur is None or not fr.pending:
            fr.pending = ()
            return
        frame = fr.real
        cur = fr.cur
        for kind, name, base in fr.pending:
            if kind == "L" or (kind == "W" and base[0] == "L"):
                fr.lastl[name] = cur
                continue
            loc = self._loc(fr, frame, kind, name, base)
            self.last[loc] = cur
            if kind == "A":
                self.last[("A*", name)] = cur
        fr.pending = ()

    def _return(self, frame):
        fr = self.frames.get(id(frame))
        if fr is None:
            return
        self._close(fr)
        if self.stack and self.stack[-1] is fr:
            self.stack.pop()
        else:
            try:
                self.stack.remove(fr)
            except ValueError:
                pass
        caller = fr.caller
        # Falling off the end of a function gives None: nothing flows out of its last
        # statement (an exception does, and a comprehension's or lambda's value).
        gives = (fr.raised or not fr.named or fr.cur_stmt in fr.static.gives
                 or frame.f_code.co_name == "<module>")
        if fr.cur is not None and gives:
            # The value returned (or the exception raised) flows into the calling statement,
            # also through an untraced frame between them (a callback); from the entry, it
            # is the observed result.
            if caller is not None:
                if caller.cur is not None:
                    self.deps[caller.cur].append(fr.cur)
            else:
                self.roots_seen.append(fr.cur)
        if not _suspended(frame):
            del self.frames[id(frame)]
        fr.caller = None

    # ------------------------------------------------------------------ the slice
    def slice(self):
        """The backward slice as a report (a dict), or a status with the reason."""
        t0 = time.perf_counter()
        out = {"events": self.events, "cap": self.cap}
        if self.stopped == "error":
            out.update(status="untraceable", reason="slicer error: " + self.error)
            return out
        if self.stopped == "replaced":
            out.update(status="untraceable",
                       reason="the code replaced the tracer (sys.settrace or coverage)")
            return out
        if self.stopped is not None:
            out.update(status=self.stopped,
                       reason="more than %d statements executed" % self.cap)
            return out
        crit = self._criterion()
        if not crit:
            out.update(status="untraceable",
                       reason="the statement asked about never ran" + self._where_ran())
            return out
        seen = bytearray(len(self.where))
        todo = list(crit)
        for i in todo:
            seen[i] = 1
        while todo:
            i = todo.pop()
            for d in self.deps[i]:
                if d is not None and not seen[d]:
                    seen[d] = 1
                    todo.append(d)
        stmts = {}
        inputs = {}
        for i, w in enumerate(self.where):
            if not seen[i]:
                continue
            if w is None:
                continue
            s = stmts.get(w)
            if s is None:
                stmts[w] = [1, self.depth[i], self.depth[i], self.func_of[i]]
            else:
                s[0] += 1
                if self.depth[i] < s[1]:
                    s[1] = self.depth[i]
                if self.depth[i] > s[2]:
                    s[2] = self.depth[i]
        # Each input node counts for the roles of the slice statements that use it.
        for i, w in enumerate(self.where):
            if not seen[i] or w is None:
                continue
            role = self.files_role(w[0])
            for d in self.deps[i]:
                if d is not None and seen[d] and d in self.input_key:
                    key = self.input_key[d]
                    prev = inputs.get(key)
                    inputs[key] = "code" if prev == "code" or role == "code" else role
        statics = {}
        for info in self.files.values():
            if info is not None:
                statics[info[0]] = info[1]
        rows = []
        funcs = {}
        for (fid, stmt), (count, dmin, dmax, fidx) in sorted(stmts.items()):
            path = self.paths[fid]
            static = statics.get(path)
            fname, first, last = "", 0, 0
            if static is not None and 0 <= fidx < len(static.funcs):
                fname, first, last = static.funcs[fidx]
            rows.append((path, stmt, count, dmin, dmax, fname, first, last,
                         self.files_role(fid)))
            if fname:
                funcs[(path, fname)] = (first, last)
        out.update(status="ok", statements=rows,
                   inputs=sorted(("%s:%s:%s" % k, r) for k, r in inputs.items()),
                   slice_seconds=time.perf_counter() - t0)
        return out

    def _where_ran(self):
        """What did run, for the reason of an empty criterion."""
        c = self.criterion
        if c == "return":
            return ""
        fid = self.path_index.get(c[1])
        if fid is None:
            return " (%s was not traced; traced: %s)" % (c[1], ", ".join(self.paths[:5]))
        ran = sorted({w[1] for w in self.where if w is not None and w[0] == fid})
        near = [n for n in ran if abs(n - c[2]) <= 10]
        return " (statements of %s that ran near line %d: %s)" % (c[1], c[2], near[:10])

    def files_role(self, fid):
        roles = self._roles
        while len(roles) < len(self.paths):
            roles.append(file_role(self.paths[len(roles)]))
        return roles[fid]

    def _criterion(self):
        c = self.criterion
        if c == "return":
            return sorted(set(self.roots_seen))
        _, path, first, last, forward = c
        fid = self.path_index.get(path)
        if fid is None:
            return []
        static = None
        for info in self.files.values():
            if info is not None and info[0] == path:
                static = info[1]
        if static is None:
            return []
        start = static.stmt_of.get(first, first)
        lo, hi = static.extent.get(start, (start, last))
        hi = max(hi, last)
        marked = [i for i, w in enumerate(self.where)
                  if w is not None and w[0] == fid and lo <= w[1] <= hi]
        if not forward or not marked:
            return marked
        # Forward: the test statements that depend on the marked ones, and those.
        rev = [[] for _ in self.where]
        for i, ds in enumerate(self.deps):
            for d in ds:
                if d is not None:
                    rev[d].append(i)
        seen = bytearray(len(self.where))
        todo = list(marked)
        for i in todo:
            seen[i] = 1
        reached = []
        while todo:
            i = todo.pop()
            w = self.where[i]
            if w is not None and self.files_role(w[0]) == "test":
                reached.append(i)
            for j in rev[i]:
                if not seen[j]:
                    seen[j] = 1
                    todo.append(j)
        return marked + reached


_UNKNOWN = object()

# The file functions the tracer uses, bound when it is loaded (before any user code): a
# test may patch `os.path.join`, `os.stat` or `open` while it runs, and the trace must not
# go through what it patched.
_STAT, _LSTAT, _READLINK, _OPEN = os.stat, os.lstat, os.readlink, open
_S_ISLNK = __import__("stat").S_ISLNK


def _realpath(path, depth=0):
    """`os.path.realpath` of an absolute path from string operations and the bound
    `lstat`/`readlink` only."""
    parts = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
        if depth > 32:
            continue
        here = "/" + "/".join(parts)
        try:
            if _S_ISLNK(_LSTAT(here).st_mode):
                target = _READLINK(here)
                base = "/" + "/".join(parts[:-1])
                joined = target if target.startswith("/") else base.rstrip("/") + "/" + target
                parts = _realpath(joined, depth + 1).strip("/").split("/")
                parts = [p for p in parts if p]
        except OSError:
            pass
    return "/" + "/".join(parts)
# What a file's syntax tree and a code object's bytecode say, kept for the process (the
# calls of one session share them): files by (path, mtime, size), so a rewritten file is
# read again.
_STATIC = {}
_OPS = {}


def _yields(node):
    """Whether a statement yields (or awaits) outside the functions it defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda, ast.stmt)):
                todo.append(c)
    return False


def _reaches(frame, target):
    f = frame
    for _ in range(64):
        if f is None:
            return False
        if f is target:
            return True
        f = f.f_back
    return False


def _suspended(frame):
    """Whether a frame returning is a generator or coroutine suspending (it will resume)."""
    code = frame.f_code
    if not code.co_flags & (0x20 | 0x80 | 0x200):
        return False
    try:
        op = code.co_code[frame.f_lasti]
    except IndexError:
        return False
    return dis.opname[op] in ("YIELD_VALUE", "SEND")


def _cells(frame):
    code = frame.f_code
    loc = frame.f_locals
    for name in code.co_freevars + code.co_cellvars:
        if name in loc:
            yield name, loc[name]


def _class_attr(cls, name):
    for k in getattr(cls, "__mro__", (cls,)):
        d = getattr(k, "__dict__", None)
        if d is not None and name in d:
            return d[name]
    return _UNKNOWN


realpath = _realpath


def available():
    """The tracer this interpreter gets (`settrace`), or None when another tracer (a
    debugger, coverage) holds `sys.settrace`."""
    return "settrace" if sys.gettrace() is None else None
