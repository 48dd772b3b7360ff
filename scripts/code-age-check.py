#!/usr/bin/env python3
"""An independent check of resolve's code ages (issue 12), written with Python's own `ast`
rather than freshbench's code: for each repository of a dataset crawled with a cutoff,
the versions fetched before the cutoff are rebuilt from `history_files` (a file whose text
is null is identical to the crawled version's file at the same path), and each function of
the crawled version counts as new when no function of those versions has the same code:
the same `ast.dump`, its docstring and its name left out (so formatting, comments, quotes,
parentheses, moves to another file and renames do not count). The verdicts are compared
with `functions.after_cutoff`, and the figures printed per repository.

    scripts/code-age-check.py DATA_DIR [--min-agreement 0.97] [--show N]

Exit 1 when the agreement is below the minimum.
"""
import argparse
import ast
import collections
import sys

import pyarrow.parquet as pq


def functions_of(text):
    """(first line, normalized dump) of every function definition in a module's text."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append((first, normalized(node)))
    return out


def normalized(node):
    clone = ast.parse(ast.unparse(node)).body[0]
    clone.name = "_"
    body = clone.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        clone.body = body[1:] or [ast.Pass()]
    for n in ast.walk(clone):
        if isinstance(n, ast.Constant):
            n.kind = None  # u'x' is 'x' in Python 3
    return ast.dump(clone, include_attributes=False)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data")
    p.add_argument("--min-agreement", type=float, default=0.97)
    p.add_argument("--show", type=int, default=0, metavar="N",
                   help="print up to N functions on which the two disagree")
    a = p.parse_args()
    read = lambda name: pq.read_table(f"{a.data}/{name}.parquet").to_pylist()
    repos = {r["repo_id"]: r for r in read("repos")}
    files = collections.defaultdict(dict)
    for f in read("files"):
        if f["content"] is not None and f["path"].endswith(".py"):
            files[f["repo_id"]][f["path"]] = f["content"]
    before = collections.defaultdict(set)
    for s in read("snapshots"):
        repo = repos.get(s["repo_id"])
        if s["status"] != "ok" or repo is None or repo["cutoff"] is None:
            continue
        if s["published_at"] is None or s["published_at"] >= repo["cutoff"]:
            continue
        before[s["repo_id"]].add(s["version"])
    old = collections.defaultdict(set)
    for h in read("history_files"):
        if h["version"] not in before[h["repo_id"]]:
            continue
        text = h["content"]
        if text is None:
            if h["reason"] is not None:
                continue
            text = files[h["repo_id"]].get(h["path"])
            if text is None:
                continue
        old[h["repo_id"]].update(d for _, d in functions_of(text))
    ours = {}
    for f in read("functions"):
        ours[(f["repo_id"], f["path"], f["start_line"])] = f["after_cutoff"]
    per_repo = collections.defaultdict(lambda: [0, 0, 0, 0])
    agree = total = 0
    differ = []
    for repo_id, by_path in files.items():
        repo = repos[repo_id]
        if repo["status"] != "ok" or repo["cutoff"] is None:
            continue
        for path, text in by_path.items():
            for first, dump in functions_of(text):
                key = (repo_id, path, first)
                if key not in ours:
                    continue
                new = dump not in old[repo_id]
                row = per_repo[repo["name"]]
                row[0] += 1
                row[1] += int(new)
                row[2] += int(bool(ours[key]))
                same = bool(ours[key]) == new
                row[3] += int(same)
                if not same:
                    differ.append(f"{repo['name']} {path}:{first} ast says {'new' if new else 'old'}")
                agree += int(same)
                total += 1
    print(f"{'repository':<18} {'functions':>9} {'new (ast)':>10} {'new (resolve)':>14} {'agree':>7}")
    for name, (n, new_ast, new_ours, same) in sorted(per_repo.items()):
        print(f"{name:<18} {n:>9} {new_ast:>10} {new_ours:>14} {same / n:>7.1%}")
    for line in differ[: a.show]:
        print("  differs:", line)
    share = agree / total if total else 1.0
    print(f"{'all':<18} {total:>9} {sum(r[1] for r in per_repo.values()):>10} "
          f"{sum(r[2] for r in per_repo.values()):>14} {share:>7.1%}")
    return 0 if share >= a.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
