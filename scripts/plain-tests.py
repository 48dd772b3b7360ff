#!/usr/bin/env python3
"""Runs each repository's own test suite the plain way, outside freshbench, and compares the
tests that pass there with those that pass in freshbench (`repo_tests.parquet`).

The plain run of a repository is what its developer would do: a fresh virtual environment
(uv), the project installed from its source tree with its test extras (`pip install
.[test]`; its PEP 735 test groups, test requirement files, and what tox's `[testenv]`
installs (deps, `-r` files, extras), when it has them), then `pytest` in the source tree,
as the project's own configuration says, with `--continue-on-collection-errors` (as in
freshbench: a test file that cannot be imported costs its own tests only). Each test's
outcome comes from a small pytest plugin that writes one JSON line per test (the node ids
are those freshbench records: the report's `nodeid`).

    python scripts/plain-tests.py --data data/real
    python scripts/plain-tests.py --data data/real --repo attrs --repo click
    python scripts/plain-tests.py --sources pipelines/sources/real-2026q4.toml   # plain only

Per repository it prints: plain passing, freshbench passing, the share (freshbench and plain
passing / plain passing), and for the plain-passing tests freshbench does not pass, their
node ids grouped by why (freshbench's outcome and message, or that freshbench never ran the
test). The source trees come from crawl's archive cache (`.cache/sdists`, by sha256), else
from the archive URL crawl recorded. Work folders go to `--work` (default
`.cache/plain-tests`); the plain results are kept there as JSON and reused unless `--rerun`.
"""

import argparse
import collections
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile

from tables import ROOT, TOOLS_PY, pq  # noqa: E402 - pyarrow, or this script re-run where it is

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

TEST_EXTRAS = ("test", "tests", "testing")
TEST_GROUPS = ("test", "tests", "testing", "dev")
REQ_FILES = ("requirements-test.txt", "requirements-tests.txt", "requirements_test.txt",
             "test-requirements.txt", "test_requirements.txt", "requirements/test.txt",
             "requirements/tests.txt", "requirements/testing.txt")

PLUGIN = r'''
import json, os

_OUT = os.environ["PLAIN_TESTS_OUT"]
_results = {}
_order = []

def pytest_runtest_logreport(report):
    nid = report.nodeid
    if nid not in _results:
        _results[nid] = ["passed", ""]
        _order.append(nid)
    r = _results[nid]
    if report.skipped and report.when in ("setup", "call") and r[0] == "passed":
        r[0] = "skipped"
    elif report.failed:
        r[0] = "failed" if report.when == "call" else "error"
        r[1] = (report.longreprtext or "")[-2000:]

def pytest_collectreport(report):
    if report.failed:
        nid = report.nodeid or "<collection>"
        _results[nid] = ["error", (report.longreprtext or "")[-2000:]]
        _order.append(nid)

def pytest_sessionfinish(session, exitstatus):
    with open(_OUT, "w", encoding="utf-8") as f:
        for nid in _order:
            f.write(json.dumps({"node_id": nid, "outcome": _results[nid][0],
                                "detail": _results[nid][1]}) + "\n")
'''


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def find_uv():
    for c in (os.environ.get("FRESHBENCH_UV"), os.path.join(ROOT, ".tools", "venv", "bin", "uv"),
              shutil.which("uv")):
        if c and os.path.exists(c):
            return c
    sys.exit("plain-tests: uv not found; run `make setup` (it installs uv into .tools/venv)")


def base_python():
    """The interpreter freshbench builds environments on: the tools venv's base Python."""
    py = TOOLS_PY if os.path.exists(TOOLS_PY) else sys.executable
    out = subprocess.run([py, "-I", "-c", "import sys;print(getattr(sys,'_base_executable',None) or sys.executable)"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


# ----------------------------------------------------------------------------- sources

def read_table(data, name):
    path = os.path.join(data, name + ".parquet")
    if not os.path.exists(path):
        return None
    if pq is None:
        sys.exit("plain-tests: pyarrow is needed to read Parquet (run `make setup`)")
    return pq.read_table(path).to_pylist()


def repos_from_data(data):
    repos = read_table(data, "repos")
    if repos is None:
        sys.exit(f"plain-tests: {data}/repos.parquet not found; run crawl first (make real)")
    return [r for r in repos if r["status"] == "ok"]


def repos_from_sources(path):
    if tomllib is None:
        sys.exit("plain-tests: --sources needs Python 3.11 (tomllib)")
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    out = []
    for spec in doc.get("sources", []):
        if not spec.startswith("pypi:"):
            log(f"plain-tests: {spec}: only pypi: sources are supported with --sources, passed over")
            continue
        name, _, version = spec[len("pypi:"):].partition("==")
        out.append({"name": name, "version": version or None, "spec": spec, "url": None,
                    "source": "pypi", "repo_id": None})
    return out


def pypi_sdist_url(name, version):
    url = f"https://pypi.org/pypi/{name}/{version}/json" if version else f"https://pypi.org/pypi/{name}/json"
    with urllib.request.urlopen(url, timeout=60) as r:
        doc = json.load(r)
    for u in doc.get("urls", []):
        if u.get("packagetype") == "sdist":
            return u["url"], doc["info"]["version"]
    raise RuntimeError(f"{name} {version}: no sdist on the index")


def archive_top(names):
    tops = {n.split("/", 1)[0] for n in names if n}
    return tops.pop() if len(tops) == 1 else None


def cached_archive(cache, name, version):
    """The archive in crawl's cache whose single top folder is `name-version`."""
    if not os.path.isdir(cache):
        return None
    want = {normalize(f"{name}-{version}"), normalize(f"{name.replace('-', '_')}-{version}")}
    for f in sorted(os.listdir(cache)):
        p = os.path.join(cache, f)
        try:
            with open(p, "rb") as fh:
                head = fh.read(4)
            if head[:2] == b"\x1f\x8b":
                with tarfile.open(p, "r:gz") as t:
                    top = archive_top(m.name for m in t.getmembers()[:50])
            elif head == b"PK\x03\x04":
                with zipfile.ZipFile(p) as z:
                    top = archive_top(z.namelist()[:50])
            else:
                continue
        except (OSError, tarfile.TarError, zipfile.BadZipFile):
            continue
        if top and normalize(top) in want:
            return p
    return None


def extract(archive_bytes, dest):
    """Unpacks an sdist (its single top folder stripped) into `dest`, refusing entries that
    would land outside it."""
    os.makedirs(dest)
    dest_real = os.path.realpath(dest)

    def target(name):
        parts = name.split("/", 1)
        if len(parts) < 2 or not parts[1]:
            return None
        out = os.path.realpath(os.path.join(dest, parts[1]))
        if not out.startswith(dest_real + os.sep):
            raise RuntimeError(f"archive entry {name} leaves the folder")
        return out

    if archive_bytes[:2] == b"\x1f\x8b":
        with tarfile.open(fileobj=io.BytesIO(archive_bytes), mode="r:gz") as t:
            for m in t.getmembers():
                out = target(m.name)
                if out is None:
                    continue
                if m.isdir():
                    os.makedirs(out, exist_ok=True)
                elif m.isfile():
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with t.extractfile(m) as src, open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    os.chmod(out, 0o755 if m.mode & 0o100 else 0o644)
                elif m.issym():
                    link = os.path.realpath(os.path.join(os.path.dirname(out), m.linkname))
                    if link.startswith(dest_real + os.sep):
                        os.makedirs(os.path.dirname(out), exist_ok=True)
                        os.symlink(m.linkname, out)
    else:
        with zipfile.ZipFile(io.BytesIO(archive_bytes)) as z:
            for info in z.infolist():
                out = target(info.filename)
                if out is None:
                    continue
                if info.is_dir():
                    os.makedirs(out, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with z.open(info) as src, open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)


def source_tree(repo, cache, work):
    """The project's source tree (unpacked under `work`), or raises with why not."""
    dest = os.path.join(work, "src")
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    if repo.get("source") == "path":
        shutil.copytree(repo["spec"][len("path:"):], dest, symlinks=True)
        return dest
    if repo.get("source") not in (None, "pypi"):
        raise RuntimeError(f"source kind {repo.get('source')} is not supported (pypi and path only)")
    name, version, url = repo["name"], repo.get("version"), repo.get("url")
    path = cached_archive(cache, name, version) if version else None
    if path:
        with open(path, "rb") as f:
            data = f.read()
    else:
        if not url:
            url, version = pypi_sdist_url(name, version)
            repo["version"] = version
        log(f"  downloading {url}")
        with urllib.request.urlopen(url, timeout=120) as r:
            data = r.read()
    extract(data, dest)
    return dest


# ----------------------------------------------------------------------------- plain run

def project_config(src):
    """(extras, groups, requirement files, requirements) of the project that hold its test
    needs: its test extras, groups and requirement files, and tox's test environment."""
    extras, groups, req_files = [], [], []
    pyproject = os.path.join(src, "pyproject.toml")
    doc = {}
    if tomllib is not None and os.path.exists(pyproject):
        try:
            with open(pyproject, "rb") as f:
                doc = tomllib.load(f)
        except (OSError, ValueError):
            doc = {}
    declared = set()
    for k in (doc.get("project", {}).get("optional-dependencies") or {}):
        declared.add(normalize(k))
    pkg_info = os.path.join(src, "PKG-INFO")
    if os.path.exists(pkg_info):
        with open(pkg_info, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                if line.lower().startswith("provides-extra:"):
                    declared.add(normalize(line.split(":", 1)[1].strip()))
    extras = [e for e in TEST_EXTRAS if e in declared]
    if not extras and "dev" in declared:
        # No test extra: the dev one is where such projects keep their test needs.
        extras = ["dev"]
    for k in (doc.get("dependency-groups") or {}):
        if normalize(k) in TEST_GROUPS:
            groups.append(k)
    # A developer installs the test group; `dev` only when there is no test group.
    if any(normalize(g) != "dev" for g in groups):
        groups = [g for g in groups if normalize(g) != "dev"]
    for r in REQ_FILES:
        if os.path.exists(os.path.join(src, r)):
            req_files.append(r)
    # tox is the runner many projects document: its test environment's deps, requirement
    # files and extras are what `tox` installs (factor prefixes such as `unit:` dropped).
    tox_extras, tox_reqs, tox_files = tox_needs(src)
    extras += [e for e in tox_extras if normalize(e) in declared and e not in extras]
    req_files += [r for r in tox_files if r not in req_files]
    return extras, groups, req_files, tox_reqs


def tox_needs(src):
    """(extras, requirements, requirement files) of tox.ini's [testenv]."""
    path = os.path.join(src, "tox.ini")
    if not os.path.exists(path):
        return [], [], []
    import configparser
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        cp.read(path, encoding="utf-8")
    except configparser.Error:
        return [], [], []
    if not cp.has_section("testenv"):
        return [], [], []
    def lines(key):
        out = []
        for line in cp.get("testenv", key, fallback="").splitlines():
            line = line.split("#", 1)[0].strip()
            if re.match(r"^[\w,{}.!-]+:\s", line):  # a factor condition: `unit: diagrams`
                line = line.split(":", 1)[1].strip()
            if line:
                out.append(line)
        return out
    extras = [e.strip() for line in lines("extras") for e in line.split(",") if e.strip()]
    reqs, files = [], []
    for line in lines("deps"):
        if line.startswith("-r"):
            f = line[2:].strip()
            if "{" not in f and os.path.exists(os.path.join(src, f)):
                files.append(f)
        elif not line.startswith("-") and "{" not in line:
            reqs.append(line)
    return extras, reqs, files


def run(cmd, cwd, logf, timeout, env=None):
    logf.write(f"$ {' '.join(cmd)}\n")
    logf.flush()
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd, stdout=logf, stderr=subprocess.STDOUT, timeout=timeout, env=env)
    logf.write(f"# exit {p.returncode} after {time.time() - t0:.1f}s\n")
    logf.flush()
    return p.returncode


def plain_run(repo, args, uv, python):
    key = normalize(f"{repo['name']}-{repo.get('version') or 'latest'}")
    work = os.path.join(args.work, key)
    result_path = os.path.join(work, "result.json")
    if os.path.exists(result_path) and not args.rerun:
        with open(result_path, encoding="utf-8") as f:
            return json.load(f)
    os.makedirs(work, exist_ok=True)
    logp = os.path.join(work, "plain.log")
    out = {"name": repo["name"], "version": repo.get("version"), "tests": {}, "error": None,
           "install": None}
    with open(logp, "w", encoding="utf-8") as logf:
        try:
            src = source_tree(repo, args.cache, work)
            venv = os.path.join(work, "venv")
            if os.path.isdir(venv):
                shutil.rmtree(venv)
            env = dict(os.environ, UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
            if run([uv, "venv", "-q", "--no-config", "--python", python, venv], work, logf, 300, env):
                raise RuntimeError("uv venv failed")
            vpy = os.path.join(venv, "bin", "python")
            extras, groups, req_files, reqs = project_config(src)
            target = "." + (f"[{','.join(extras)}]" if extras else "")
            cmd = [uv, "pip", "install", "--no-config", "-q", "--python", vpy, target]
            for g in groups:
                cmd += ["--group", g]
            for r in req_files:
                cmd += ["-r", r]
            cmd += reqs
            out["install"] = {"extras": extras, "groups": groups, "requirement_files": req_files,
                              "requirements": reqs}
            if run(cmd, src, logf, args.timeout, env):
                # The project's own build may need what the index lacks: the release's
                # published wheel holds the same code (a developer could install it so).
                if not repo.get("version"):
                    raise RuntimeError(f"install failed (see {logp})")
                pinned = f"{repo['name']}{'[' + ','.join(extras) + ']' if extras else ''}=={repo['version']}"
                cmd[cmd.index(target)] = pinned
                out["install"]["from_wheel"] = True
                if run(cmd + ["--only-binary", repo["name"]], src, logf, args.timeout, env):
                    raise RuntimeError(f"install failed, from the tree and from the wheel (see {logp})")
            has_pytest = subprocess.run([vpy, "-c", "import pytest"], capture_output=True).returncode == 0
            if not has_pytest:
                if run([uv, "pip", "install", "--no-config", "-q", "--python", vpy, "pytest"], src, logf, args.timeout, env):
                    raise RuntimeError("installing pytest failed")
                out["install"]["pytest_added"] = True
            plugin_dir = os.path.join(work, "plugin")
            os.makedirs(plugin_dir, exist_ok=True)
            with open(os.path.join(plugin_dir, "plain_tests_report.py"), "w", encoding="utf-8") as f:
                f.write(PLUGIN)
            report = os.path.join(work, "report.jsonl")
            if os.path.exists(report):
                os.remove(report)
            penv = dict(os.environ)
            penv.pop("PYTHONPATH", None)
            penv.update(PYTHONPATH=plugin_dir, PLAIN_TESTS_OUT=report, PYTHONDONTWRITEBYTECODE="1")
            pytest_cmd = [os.path.join(venv, "bin", "pytest"), "-p", "plain_tests_report",
                          "-p", "no:cacheprovider", "-q", "-rA",
                          # As freshbench does: a test file that cannot be imported is
                          # that file's error, not the end of the run.
                          "--continue-on-collection-errors"] + list(args.pytest_arg or [])
            t0 = time.time()
            try:
                rc = run(pytest_cmd, src, logf, args.timeout, penv)
            except subprocess.TimeoutExpired:
                rc = "timeout"
            out["pytest_exit"] = rc
            out["seconds"] = round(time.time() - t0, 1)
            if os.path.exists(report):
                with open(report, encoding="utf-8") as f:
                    for line in f:
                        t = json.loads(line)
                        out["tests"][t["node_id"]] = [t["outcome"], t["detail"]]
            else:
                out["error"] = f"pytest wrote no report (exit {rc}; see {logp})"
        except (RuntimeError, OSError, subprocess.SubprocessError, tarfile.TarError, zipfile.BadZipFile) as e:
            out["error"] = str(e)
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return out


# ----------------------------------------------------------------------------- comparison

def reason_of(detail):
    """A short, groupable message from a failure's text: its last `E   ...` line, else its
    last line."""
    if not detail:
        return "(no message)"
    lines = [l.rstrip() for l in detail.splitlines() if l.strip()]
    e_lines = [l for l in lines if l.startswith("E ")]
    pick = e_lines[0] if e_lines else (lines[-1] if lines else "(no message)")
    pick = re.sub(r"\s+", " ", pick.lstrip("E").strip())
    pick = re.sub(r"0x[0-9a-f]+", "0x…", pick)
    pick = re.sub(r"/[^\s'\"]*/(trees|envs|tmp)/[^\s'\"]*", "<path>", pick)
    return pick[:160]


def compare(plain, fresh_rows, fresh_files):
    plain_pass = {n for n, (o, _) in plain["tests"].items() if o == "passed"}
    fresh = {r["node_id"]: r for r in fresh_rows}
    fresh_pass = {n for n, r in fresh.items() if r["outcome"] == "passed"}
    both = plain_pass & fresh_pass
    share = len(both) / len(plain_pass) if plain_pass else float("nan")
    groups = collections.defaultdict(list)
    env_error = next((r for r in fresh_rows if r["outcome"] == "env_error"), None)
    for n in sorted(plain_pass - fresh_pass):
        r = fresh.get(n)
        if env_error is not None:
            why = "freshbench: environment did not build: " + reason_of(env_error.get("detail"))
        elif r is None:
            path = n.split("::", 1)[0]
            if path not in fresh_files:
                base = path.rsplit("/", 1)[-1]
                if not path.endswith(".py"):
                    why = "freshbench: not run (a doctest of a text file; freshbench runs test_*.py / *_test.py files)"
                elif not (base.startswith("test_") or base.endswith("_test.py")):
                    why = "freshbench: not run (a doctest or test of a module not named test_*.py / *_test.py)"
                else:
                    why = "freshbench: not run (crawl did not record the file as a test)"
            else:
                errs = [x for k, x in fresh.items() if k.split("::", 1)[0] == path and x["outcome"] == "error" and "::" not in k]
                why = "freshbench: not collected" + (": " + reason_of(errs[0].get("detail")) if errs else "")
        else:
            why = f"freshbench {r['outcome']}: {reason_of(r.get('detail'))}"
        groups[why].append(n)
    return {"plain": len(plain_pass), "fresh": len(fresh_pass), "both": len(both), "share": share,
            "groups": groups, "extra": sorted(fresh_pass - set(plain["tests"]))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="dataset directory (repos.parquet, repo_tests.parquet)")
    ap.add_argument("--sources", help="a sources file (pypi: sources), for plain runs without a dataset")
    ap.add_argument("--repo", action="append", help="only this repository (by name); repeatable")
    ap.add_argument("--cache", default=os.path.join(ROOT, ".cache", "sdists"), help="crawl's archive cache")
    ap.add_argument("--work", default=os.path.join(ROOT, ".cache", "plain-tests"), help="work folder")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds for the install and for pytest")
    ap.add_argument("--rerun", action="store_true", help="run again even when a plain result is kept")
    ap.add_argument("--pytest-arg", action="append", help="one more argument for pytest; repeatable")
    ap.add_argument("--show", type=int, default=8, help="node ids shown per reason")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args()
    if not args.data and not args.sources:
        ap.error("give --data DIR or --sources FILE")
    args.work = os.path.abspath(args.work)
    args.cache = os.path.abspath(args.cache)
    repos = repos_from_data(args.data) if args.data else repos_from_sources(args.sources)
    if args.repo:
        repos = [r for r in repos if r["name"] in args.repo or normalize(r["name"]) in map(normalize, args.repo)]
    tests = read_table(args.data, "repo_tests") if args.data else None
    files = read_table(args.data, "files") if args.data else None
    uv, python = find_uv(), base_python()
    rows = []
    for repo in repos:
        log(f"plain-tests: {repo['name']} {repo.get('version') or ''}")
        plain = plain_run(repo, args, uv, python)
        if plain.get("error"):
            log(f"  plain run: {plain['error']}")
        rid = repo.get("repo_id")
        fresh_rows = [t for t in (tests or []) if t["repo_id"] == rid]
        fresh_files = {f["path"] for f in (files or []) if f["repo_id"] == rid and f["kind"] == "test"}
        rows.append((repo, plain, compare(plain, fresh_rows, fresh_files) if tests is not None else None))

    print()
    if tests is None:
        print(f"{'repository':<24} {'plain passing':>13} {'plain total':>11}  note")
        for repo, plain, _ in rows:
            n = sum(1 for o, _ in plain["tests"].values() if o == "passed")
            print(f"{repo['name']:<24} {n:>13} {len(plain['tests']):>11}  {plain.get('error') or ''}")
        return 0
    print(f"{'repository':<24} {'plain':>7} {'fresh':>7} {'both':>7} {'share':>7}  note")
    worst = 1.0
    for repo, plain, c in rows:
        note = plain.get("error") or ""
        share = "-" if c["plain"] == 0 else f"{100 * c['share']:.1f}%"
        if c["plain"]:
            worst = min(worst, c["share"])
        print(f"{repo['name']:<24} {c['plain']:>7} {c['fresh']:>7} {c['both']:>7} {share:>7}  {note}")
    for repo, plain, c in rows:
        if not c["groups"] and not c["extra"]:
            continue
        print(f"\n== {repo['name']}: {c['plain'] - c['both']} plain-passing tests freshbench does not pass")
        for why, ids in sorted(c["groups"].items(), key=lambda kv: -len(kv[1])):
            print(f"  [{len(ids)}] {why}")
            for n in ids[:args.show]:
                print(f"      {n}")
            if len(ids) > args.show:
                print(f"      ... {len(ids) - args.show} more")
        if c["extra"]:
            print(f"  ({len(c['extra'])} pass in freshbench but were not run by the plain run, e.g. {c['extra'][0]})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([{"name": r["name"], "version": r.get("version"), "plain": c["plain"], "fresh": c["fresh"],
                        "both": c["both"], "share": c["share"],
                        "missing": {k: v for k, v in c["groups"].items()}} for r, _, c in rows], f, indent=1)
    print(f"\nworst share: {100 * worst:.1f}% (target 95%)")
    return 0 if worst >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
