#!/usr/bin/env python3
"""The slicer's own costs on one synthetic workload, each against its alternative in the
same run (`make bench`):

    python scripts/bench-slicer.py [ITERATIONS]

- tracing: the workload plain, under an empty `sys.settrace` function (the floor any
  settrace tracer pays) and under the slicer;
- the dependence analysis in the worker (the backward slice) against shipping the graph to
  Rust instead (marshal, the runner's JSON, and the bytes that would cross the pipe).
"""

import json
import marshal
import os
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "stages", "execute", "python"))
import slicer  # noqa: E402

WORK = textwrap.dedent("""
    class Acc:
        def __init__(self):
            self.total = 0

        def add(self, v):
            self.total += v


    def run(n):
        a = Acc()
        out = []
        for i in range(n):
            if i % 3:
                a.add(i)
            else:
                out.append(i)
        return a.total + len(out)
""")


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 100000
    folder = tempfile.mkdtemp(prefix="bench-slicer-")
    with open(os.path.join(folder, "work.py"), "w") as f:
        f.write(WORK)
    sys.path.insert(0, folder)
    import work

    def timed(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    plain = min(timed(lambda: work.run(n)) for _ in range(3))

    def empty(frame, event, arg):
        return empty

    def under_empty():
        sys.settrace(empty)
        try:
            work.run(n)
        finally:
            sys.settrace(None)

    floor = timed(under_empty)
    tracer = slicer.Tracer([folder], "return", 50_000_000)

    def under_slicer():
        tracer.start()
        try:
            work.run(n)
        finally:
            tracer.stop()

    traced = timed(under_slicer)
    t0 = time.perf_counter()
    rep = tracer.slice()
    analysis = time.perf_counter() - t0
    graph = (tracer.where, tracer.deps, tracer.depth, tracer.func_of)
    t0 = time.perf_counter()
    blob = marshal.dumps(graph)
    ship_marshal = time.perf_counter() - t0
    t0 = time.perf_counter()
    text = json.dumps([list(x) for x in graph])
    ship_json = time.perf_counter() - t0
    print(f"workload: {n} iterations, {tracer.events} statement executions traced, "
          f"slice {rep['status']} ({len(rep.get('statements', []))} statements)")
    print(f"{'':<34}{'seconds':>9}{'ratio':>10}")
    print(f"{'plain':<34}{plain:>9.3f}{1.0:>9.1f}x")
    print(f"{'empty settrace function':<34}{floor:>9.3f}{floor / plain:>9.1f}x")
    print(f"{'the slicer (tracing)':<34}{traced:>9.3f}{traced / plain:>9.1f}x"
          f"  ({traced / floor:.1f}x the empty tracer; "
          f"{1e6 * traced / max(tracer.events, 1):.1f} us per statement)")
    ship = ship_marshal + ship_json
    print(f"{'analysis in the worker':<34}{analysis:>9.3f}")
    print(f"{'shipping the graph to Rust':<34}{ship:>9.3f}  (marshal {ship_marshal:.3f} s + "
          f"JSON {ship_json:.3f} s, {len(text) / 1e6:.1f} MB; before Rust reads a byte): "
          f"the worker's analysis costs {analysis / ship:.2f}x of it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
