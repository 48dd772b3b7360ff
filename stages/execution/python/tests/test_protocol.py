"""protocol.py's frames and answers, and supervision's one channel and event loop, on real
pipes and forked children of this test process (children end with os._exit)."""

import json
import marshal
import os
import signal
import struct
import time

import pytest

NONCE = b"N" * 16


def test_frame_round_trip(mods):
    p = mods.protocol
    payload = {"status": "ok", "value": ("int", 3), "seconds": 0.5}
    frame = p.result_frame(NONCE, payload)
    assert p.frame_complete(frame, NONCE)
    assert not p.frame_complete(frame[:-1], NONCE)
    assert not p.frame_complete(frame[:19], NONCE)
    assert p.decode_frame(frame, NONCE) == (payload, None)


def test_child_end_over_a_pipe(mods):
    p = mods.protocol
    qr, qw = os.pipe()
    rr, rw = os.pipe()
    try:
        recv, send = p.child_end(qr, rw, NONCE)
        req = {"kind": "call", "args": "[1]", "big": "x" * 200000}
        data = p.request_frame(req)
        assert struct.unpack("<I", data[:4])[0] == len(data) - 4
        os.write(qw, data[:10])  # recv reads a frame written in pieces
        pid = os.fork()
        if pid == 0:
            try:
                os.write(qw, data[10:])
            finally:
                os._exit(0)
        assert recv() == req
        os.waitpid(pid, 0)
        send({"status": "ok"})
        raw = os.read(rr, 1 << 16)
        assert p.decode_frame(raw, NONCE) == ({"status": "ok"}, None)
    finally:
        for fd in (qr, qw, rr, rw):
            os.close(fd)


@pytest.mark.parametrize("mangle", [
    lambda f: b"X" * 16 + f[16:],           # another nonce
    lambda f: f + b"trailing",              # more than the frame
    lambda f: f[:-1],                       # less than the frame
    lambda f: f[:10],                       # not even a header
])
def test_forged_frames(mods, mangle):
    p = mods.protocol
    frame = p.result_frame(NONCE, {"status": "ok"})
    assert p.decode_frame(mangle(frame), NONCE) == (None, p.FORGED)


def test_unreadable_frames(mods):
    p = mods.protocol
    for data in (marshal.dumps([1, 2]), b"\xff\xfe garbage"):
        frame = NONCE + struct.pack("<I", len(data)) + data
        payload, why = p.decode_frame(frame, NONCE)
        assert payload is None and why.startswith("unreadable result: ")


def test_parse_request_and_encode(mods):
    p = mods.protocol
    assert p.parse_request(b'{"kind": "call", "id": 3}\n') == ({"kind": "call", "id": 3}, None)
    req, answer = p.parse_request(b"{oops\n")
    assert req is None and answer["status"] == "harness_error"
    assert answer["detail"].startswith("bad request line: ")
    assert p.parse_request(b"[1, 2]\n")[1]["status"] == "harness_error"
    line = p.encode({"status": "ok", "text": "é"})
    assert line.endswith(b"\n") and json.loads(line) == {"status": "ok", "text": "é"}
    assert "é".encode() in line  # not escaped
    with pytest.raises(ValueError):
        p.encode({"v": float("nan")})


def test_limits_and_session_key(mods):
    p = mods.protocol
    req = {"target": {"kind": "module", "name": "m"},
           "limits": {"wall_seconds": 2.5, "cpu_seconds": 3, "output_bytes": 100, "memory_bytes": 9}}
    assert p.limits_of(req)[1:] == (2.5, 100)
    assert p.limits_of({})[1:] == (10.0, 1 << 20)
    other_time = dict(req, limits=dict(req["limits"], wall_seconds=9, cpu_seconds=1))
    other_memory = dict(req, limits=dict(req["limits"], memory_bytes=10))
    key = p.session_key(req, req["limits"])
    assert key == p.session_key(other_time, other_time["limits"])
    assert key != p.session_key(other_memory, other_memory["limits"])


def test_death(mods):
    p = mods.protocol
    assert p.death(signal.SIGSEGV) == ("crash", "killed by SIGSEGV")
    assert p.death(signal.SIGXCPU) == ("timeout", "killed by SIGXCPU (CPU-time limit)")
    assert p.death(signal.SIGXFSZ) == ("resource_limit", "killed by SIGXFSZ")
    assert p.death(3 << 8) == ("crash", "exited with code 3 without a result")
    assert p.death(None) == ("crash", "exited with code -1 without a result")


def test_to_json(mods, tmp_path):
    p = mods.protocol
    work = str(tmp_path)
    payload = {"status": "exception", "seconds": 0.1, "exception": ("ValueError", "m", "tb"),
               "coverage": (work + "/m.py", 1, 4, [(2, 3)], [(2, 3), (2, 4)]), "ignored": 1}
    out = p.to_json(payload, {"stdout": ""}, work)
    assert out == {"stdout": "", "status": "exception", "seconds": 0.1,
                   "exception": {"type": "ValueError", "message": "m", "traceback": "tb"},
                   "coverage": {"file": "m.py", "first_line": 1, "last_line": 4, "arcs": [[2, 3]],
                                "function_arcs": [[2, 3], [2, 4]]}}
    tests = p.to_json({"status": "ok", "tests": [("t::a", "passed", 0.2, "", [("m.py", [1, 2])])]},
                      {}, work)
    assert tests["tests"] == [{"node_id": "t::a", "outcome": "passed", "seconds": 0.2, "detail": None,
                               "lines": [{"path": "m.py", "lines": [1, 2]}]}]
    assert p.to_json({}, {}, work) == {"status": "crash"}


# --------------------------------------------------------------------------- the channel and loop

def fork_child(mods, body, progress=False):
    """Forks a child running body(rw, ow, ew, pw) then os._exit(0); the runner's channel."""
    rr, rw = os.pipe()
    or_, ow = os.pipe()
    er, ew = os.pipe()
    pr, pw = os.pipe() if progress else (-1, -1)
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (rr, or_, er, pr):
                if fd != -1:
                    os.close(fd)
            body(rw, ow, ew, pw)
        finally:
            os._exit(0)
    for fd in (rw, ow, ew, pw):
        if fd != -1:
            os.close(fd)
    mods.supervision._WATCHED.add(pid)
    return mods.supervision.ChildChannel(pid, NONCE, rr, or_, er, progress_fd=pr)


def finish(mods, ch):
    if ch.wait_status is None:
        os.kill(ch.pid, signal.SIGKILL)
        ch.exited(mods.supervision._waitpid(ch.pid)[1])
    ch.close()


def test_loop_returns_at_a_whole_frame(mods):
    def body(rw, ow, ew, pw):
        os.write(ow, b"out")
        os.write(ew, b"err")
        frame = mods.protocol.result_frame(NONCE, {"status": "ok"})
        os.write(rw, frame[:7])
        time.sleep(0.05)
        os.write(rw, frame[7:])
        time.sleep(30)  # a session waits for its next request

    ch = fork_child(mods, body)
    try:
        t0 = time.monotonic()
        assert ch.pump(t0 + 10, 1000) is None
        assert time.monotonic() - t0 < 5
        assert ch.wait_status is None
        assert mods.protocol.decode_frame(ch.take_result(), NONCE) == ({"status": "ok"}, None)
        assert (bytes(ch.out), bytes(ch.err)) == (b"out", b"err")
    finally:
        finish(mods, ch)


def test_loop_timeout_and_output_limit(mods):
    ch = fork_child(mods, lambda *fds: time.sleep(30))
    try:
        t0 = time.monotonic()
        assert ch.pump(t0 + 0.3, 1000) == "timeout"
        assert 0.3 <= time.monotonic() - t0 < 5
    finally:
        finish(mods, ch)

    def flood(rw, ow, ew, pw):
        while True:
            os.write(ow, b"x" * 4096)

    ch = fork_child(mods, flood)
    try:
        assert ch.pump(time.monotonic() + 10, 10000) == "output_limit"
    finally:
        finish(mods, ch)


def test_loop_sees_a_death(mods):
    def die(rw, ow, ew, pw):
        os.kill(os.getpid(), signal.SIGKILL)

    ch = fork_child(mods, die)
    try:
        assert ch.pump(time.monotonic() + 10, 1000) is None
        assert ch.take_result() == b""
        assert mods.protocol.death(ch.wait_status) == ("crash", "killed by SIGKILL")
    finally:
        finish(mods, ch)


def test_loop_until_exit_with_progress(mods):
    def body(rw, ow, ew, pw):
        os.write(pw, b"S t::one\nE\nS t::two\n")
        os.write(rw, mods.protocol.result_frame(NONCE, {"status": "ok"}))

    ch = fork_child(mods, body, progress=True)
    exits = []
    try:
        assert ch.pump(time.monotonic() + 10, 1000, until_exit=True,
                       on_exit=lambda: exits.append(1)) is None
        assert exits == [1]
        assert not ch.open and ch.wait_status is not None
        assert ch.running_test() == "t::two"
        assert mods.protocol.decode_frame(ch.take_result(), NONCE)[0] == {"status": "ok"}
    finally:
        finish(mods, ch)


def test_loop_until_exit_drains_one_second_at_most(mods):
    def body(rw, ow, ew, pw):
        os.setpgid(0, 0)
        if os.fork() == 0:  # holds the pipes open after the child ended
            time.sleep(30)
            os._exit(0)

    ch = fork_child(mods, body)
    try:
        t0 = time.monotonic()
        assert ch.pump(t0 + 0.2, 1000, until_exit=True) is None  # ended: no timeout
        assert 0.9 <= time.monotonic() - t0 < 5
        assert ch.wait_status is not None and ch.open
    finally:
        os.killpg(ch.pid, signal.SIGKILL)  # the grandchild
        finish(mods, ch)
