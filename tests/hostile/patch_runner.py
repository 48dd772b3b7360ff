# attack: patches the runner module found through sys.modules (its functions' code, its
# globals, marshal). expect: sandbox_violation
import marshal
import sys
import types


def solve(x):
    runner = sys.modules["__main__"]
    fake = lambda *a, **k: None  # noqa: E731
    for name in dir(runner):
        obj = getattr(runner, name)
        if isinstance(obj, types.FunctionType):
            try:
                obj.__code__ = fake.__code__
            except Exception:
                pass
            setattr(runner, name, fake)
    marshal.dumps = lambda *a, **k: b"forged"
    return "one"
