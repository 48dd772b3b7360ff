# attack: sys.exit(0) before any check can run. expect: exception (SystemExit)
import sys


def solve(x):
    sys.exit(0)
