# attack: connects to the host's loopback through libc (ctypes), past the audit hook.
# expect: exception (no network in the namespace); nobody connects
import ctypes
import os
import socket
import struct


def solve(x):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
    addr = struct.pack("<HH4s8x", socket.AF_INET, socket.htons(x), socket.inet_aton("127.0.0.1"))
    if libc.connect(fd, addr, len(addr)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return 1
