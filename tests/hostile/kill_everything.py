# attack: kill -9 -1 (every process it may signal). expect: sandbox_violation
import os
import signal


def solve(x):
    os.kill(-1, signal.SIGKILL)
    return 1
