# attack: walks the heap (gc.get_objects) for the harness's secrets. expect: sandbox_violation
import gc


def solve(x):
    secrets = [o for o in gc.get_objects() if isinstance(o, bytes) and len(o) == 16]
    return len(secrets) and 1
