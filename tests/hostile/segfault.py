# attack: a segfault through ctypes. expect: crash (SIGSEGV)
import ctypes


def solve(x):
    return ctypes.string_at(0)
