# attack: monkeypatches builtins and json so the harness would print "1". expect: no pass
import builtins
import json


def solve(x):
    builtins.repr = lambda o: "1"
    builtins.type = lambda o: int
    json.dumps = lambda *a, **k: '{"status": "ok", "value": {"t": "int", "v": "1"}}'
    return "one"
