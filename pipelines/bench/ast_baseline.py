"""The alternative `make bench` measures resolve against: the standard `ast` module
extracting every function (qualified name, span, parameters, docstring) and its free
names (loaded, not bound in its own scope, nested scopes' free names included), from the
same `files.parquet` that resolve reads. Prints one JSON line of figures."""

import ast
import json
import sys
import time

import pyarrow.parquet as pq


def bound_names(node):
    """Names bound in one function's own scope (not in nested scopes)."""
    bound = set()
    args = node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        bound.add(a.arg)
    if args.vararg:
        bound.add(args.vararg.arg)
    if args.kwarg:
        bound.add(args.kwarg.arg)
    for child in own_nodes(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            bound.add(child.id)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for alias in child.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and child is not node:
            bound.add(child.name)
        elif isinstance(child, ast.ExceptHandler) and child.name:
            bound.add(child.name)
    return bound


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def own_nodes(node):
    """Nodes of a scope, not descending into nested scopes (which are yielded themselves)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def free_names(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        bound = bound_names(node)
    elif isinstance(node, ast.Lambda):
        bound = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    else:
        bound = set()
        for child in own_nodes(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                bound.add(child.id)
    used = {}
    for child in own_nodes(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            used.setdefault(child.id, child.lineno)
        elif isinstance(child, SCOPES):
            for name, line in free_names(child).items():
                used.setdefault(name, line)
    return {n: l for n, l in used.items() if n not in bound}


def extract(source, path):
    tree = ast.parse(source, filename=path)
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + child.name
                out.append({
                    "qualname": qual,
                    "lines": (child.lineno, child.end_lineno),
                    "params": [a.arg for a in child.args.args],
                    "doc": ast.get_docstring(child),
                    "free": sorted(free_names(child)),
                })
                visit(child, qual + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def main():
    table = pq.read_table(sys.argv[1], columns=["kind", "status", "content"])
    start = time.perf_counter()
    files = functions = names = failed = 0
    size = 0
    parse_seconds = 0.0
    for kind, status, content in zip(*(table.column(c).to_pylist() for c in ("kind", "status", "content"))):
        if kind not in ("source", "test") or status != "ok" or content is None:
            continue
        files += 1
        size += len(content.encode())
        t0 = time.perf_counter()
        try:
            ast.parse(content)
        except (SyntaxError, ValueError, RecursionError):
            pass
        parse_seconds += time.perf_counter() - t0
        try:
            found = extract(content, "<file>")
        except (SyntaxError, ValueError, RecursionError):
            failed += 1
            continue
        functions += len(found)
        names += sum(len(f["free"]) for f in found)
    # The parse-only pass above is not part of the extraction's time.
    seconds = time.perf_counter() - start - parse_seconds
    print(json.dumps({"files": files, "bytes": size, "functions": functions, "free_names": names,
                      "failed": failed, "seconds": seconds,
                      "parse_only_seconds": parse_seconds}))


if __name__ == "__main__":
    main()
