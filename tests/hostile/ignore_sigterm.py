# attack: ignores SIGTERM (and SIGINT) and loops. expect: timeout (killed with SIGKILL)
import signal


def solve(x):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass
