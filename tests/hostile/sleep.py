# attack: sleeps far beyond the wall-clock limit. expect: timeout
import time


def solve(x):
    time.sleep(3600)
    return x
