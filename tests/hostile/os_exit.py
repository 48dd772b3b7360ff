# attack: os._exit(0) before any check can run. expect: crash
import os


def solve(x):
    os._exit(0)
