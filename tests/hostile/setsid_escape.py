# attack: a child in a session of its own (escaping the process group) that sleeps on.
# expect: sandbox_violation (left a process running); the child killed
import os
import time


def solve(x):
    if os.fork() == 0:
        os.setsid()
        time.sleep(3600)
        os._exit(0)
    return 1
