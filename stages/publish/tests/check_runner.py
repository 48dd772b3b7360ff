"""Runs HumanEval-shaped checks: one JSON object per line of argv[1], with `program` (the
code of the candidate: prompt + completion), `test` and `entry_point`. Prints a JSON list,
one verdict per line: "pass", "fail: <assert message>" or "error: <type>: <message>"."""

import json
import sys

verdicts = []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        p = json.loads(line)
        g = {"__name__": "candidate"}
        try:
            exec(compile(p["program"] + "\n" + p["test"] + "\n", "<task>", "exec"), g)
            g["check"](g[p["entry_point"]])
            verdicts.append("pass")
        except AssertionError as e:
            verdicts.append("fail: %s" % (e,))
        except Exception as e:  # noqa: BLE001 - reported to the test
            verdicts.append("error: %s: %s" % (type(e).__name__, e))
print(json.dumps(verdicts))
