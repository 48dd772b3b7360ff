# attack: a fork bomb. expect: resource_limit (RLIMIT_NPROC), the bomb's processes killed
import os


def solve(x):
    while True:
        os.fork()
