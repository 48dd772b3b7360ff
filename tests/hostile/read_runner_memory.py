# attack: reads the runner's memory through /proc/<ppid>/mem (e.g. to steal the nonce).
# expect: exception (permission denied) or sandbox_violation
import os


def solve(x):
    with open("/proc/%d/mem" % os.getppid(), "rb") as f:
        f.seek(0x400000)
        return f.read(16)
