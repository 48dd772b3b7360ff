# attack: connects to an outside address (10.255.255.1:9, never a real host).
# expect: sandbox_violation
import socket


def solve(x):
    socket.create_connection(("10.255.255.1", 9), timeout=1)
    return 1
