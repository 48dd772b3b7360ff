# attack: closes stdout, stderr and every other descriptor, then returns the right value.
# expect: crash (no result can reach the runner)
import os


def solve(x):
    for fd in range(0, 1024):
        try:
            os.close(fd)
        except OSError:
            pass
    return 1
