# attack: lifts the recursion limit and recurses through C code (map) until the C stack
# overflows. expect: crash (SIGSEGV)
import sys


def solve(x):
    sys.setrecursionlimit(10**9)

    def down(n):
        return list(map(down, [n + 1]))

    return down(0)
