# attack: starts threads until the system gives out. expect: resource_limit (or memory)
import threading
import time


def solve(x):
    threads = []
    while True:
        t = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
        t.start()
        threads.append(t)
