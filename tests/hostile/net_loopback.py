# attack: connects to a listener on the host's loopback (port given). expect: sandbox_violation
import socket


def solve(x):
    s = socket.create_connection(("127.0.0.1", x), timeout=1)
    s.sendall(b"pwned")
    return 1
