# attack: kills the runner that started it. expect: sandbox_violation; the batch goes on
import os
import signal
import time


def solve(x):
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(0.2)
    return 1
