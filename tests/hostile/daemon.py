# attack: a double-forked daemon that outlives the call and keeps writing a heartbeat.
# expect: sandbox_violation (left a process running); the daemon killed
import os
import time


def solve(x):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                with open("heartbeat", "a") as f:
                    f.write("beat\n")
                time.sleep(0.05)
        os._exit(0)
    time.sleep(0.1)
    return 1
