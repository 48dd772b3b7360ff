"""The runner's two protocols: the JSON lines it speaks with the execution library (request
parsing, answer building), and the frames it speaks with its forked children.

Loaded by runner.py under the private name `_freshbench_protocol`.

Frames, the one framing of every child (call sessions and pytest one-shots alike):
- runner to child (a session's requests): `<I` length, then `marshal` data;
- child to runner (results): the child's 16-byte nonce, `<I` length, then `marshal` data of
  a dict. A result that does not start with the nonce, whose length does not match to the
  byte, or that does not unmarshal to a dict is no honest result (`decode_frame`).
The child's end (`child_end`) is built from references captured before any user code runs.
"""

import json
import marshal
import os
import signal
import struct

import _freshbench_values as values

PROTOCOL = 1
NONCE_BYTES = 16
HEADER_BYTES = NONCE_BYTES + 4
FORGED = "forged or damaged result on the result channel"


# --------------------------------------------------------------------------- frames

def new_nonce():
    return os.urandom(NONCE_BYTES)


def request_frame(obj):
    """A request to a session child."""
    msg = marshal.dumps(obj)
    return struct.pack("<I", len(msg)) + msg


def result_frame(nonce, payload):
    """A child's result frame (what `child_end`'s `send` writes)."""
    data = marshal.dumps(payload)
    return nonce + struct.pack("<I", len(data)) + data


def frame_complete(buf, nonce):
    """Whether `buf` holds a whole result frame, or enough of one to judge it forged."""
    if len(buf) < HEADER_BYTES:
        return False
    if buf[:NONCE_BYTES] != nonce:
        return True  # forged: judged by decode_frame
    return len(buf) >= HEADER_BYTES + struct.unpack("<I", buf[NONCE_BYTES:HEADER_BYTES])[0]


def decode_frame(raw, nonce):
    """(payload, None) for exactly one honest frame in `raw`; else (None, why): FORGED, or
    the reason the data did not unmarshal to a dict."""
    if len(raw) < HEADER_BYTES or raw[:NONCE_BYTES] != nonce:
        return None, FORGED
    size = struct.unpack("<I", raw[NONCE_BYTES:HEADER_BYTES])[0]
    if len(raw) != HEADER_BYTES + size:
        return None, FORGED
    try:
        payload = marshal.loads(raw[HEADER_BYTES:])
        if type(payload) is not dict:
            raise ValueError("not a dict")
    except Exception as e:  # noqa: BLE001
        return None, "unreadable result: %r" % (e,)
    return payload, None


def child_end(request_fd, result_fd, nonce):
    """The child's end of its channel: (recv, send). `recv()` is the next request (the child
    exits when the runner closes the request pipe); `send(payload)` writes one result frame.
    Built from references captured now, before any user code runs."""
    dumps, loads, write, read, exit_ = marshal.dumps, marshal.loads, os.write, os.read, os._exit
    pack, unpack, _len = struct.pack, struct.unpack, len

    def recv_exact(n):
        buf = b""
        while _len(buf) < n:
            chunk = read(request_fd, n - _len(buf))
            if not chunk:
                exit_(0)
            buf += chunk
        return buf

    def recv():
        size = unpack("<I", recv_exact(4))[0]
        return loads(recv_exact(size))

    def send(payload):
        data = dumps(payload)
        data = nonce + pack("<I", _len(data)) + data
        while data:
            data = data[write(result_fd, data):]

    return recv, send


# --------------------------------------------------------------------------- requests

def parse_request(line):
    """(request, None), or (None, the answer) for a line that is no request object."""
    try:
        req = json.loads(line)
    except ValueError as e:
        return None, {"status": "harness_error", "detail": "bad request line: %s" % e}
    if type(req) is not dict:
        return None, {"status": "harness_error", "detail": "bad request line: not a JSON object"}
    return req, None


def encode(obj):
    """One protocol line."""
    return json.dumps(obj, allow_nan=False, ensure_ascii=False).encode("utf-8", "replace") + b"\n"


def limits_of(req):
    """(limits, wall-clock seconds, output cap in bytes) of a request."""
    limits = req.get("limits") or {}
    return limits, float(limits.get("wall_seconds", 10)), int(limits.get("output_bytes", 1 << 20))


def session_key(req, limits):
    """Calls with the same key share a session: the same target, the same limits but time."""
    return json.dumps([req.get("target"), {k: v for k, v in limits.items()
                                           if k not in ("wall_seconds", "cpu_seconds")}],
                      sort_keys=True)


# --------------------------------------------------------------------------- answers

def timeout_detail(wall):
    return "wall-clock limit of %gs" % wall


def output_detail(cap):
    return "output over %d bytes" % cap


def death(ws):
    """(status, detail) of a child that ended without a result: its wait status `ws` (None:
    unknown)."""
    if ws is not None and os.WIFSIGNALED(ws):
        sig = os.WTERMSIG(ws)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        status = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "resource_limit"}.get(sig, "crash")
        return status, "killed by " + name + (" (CPU-time limit)" if sig == signal.SIGXCPU else "")
    code = os.WEXITSTATUS(ws) if ws is not None else -1
    return "crash", "exited with code %d without a result" % code


def captured(stdout, stderr, cap):
    """The answer's `stdout` and `stderr` fields from what a child wrote, each cut at `cap`
    bytes."""
    return {"stdout": bytes(stdout[:cap]).decode("utf-8", "replace"),
            "stderr": bytes(stderr[:cap]).decode("utf-8", "replace")}


def to_json(p, out, work):
    """The answer for the child's result `p` (a checked dict), into `out`."""
    out["status"] = p.get("status", "crash")
    for k in ("detail", "repr", "seconds", "exit_code", "coverage_error"):
        if k in p:
            out[k] = p[k]
    if "value" in p:
        out["value"] = values.tag_to_json(p["value"])
    if "exception" in p:
        t, m, tb = p["exception"]
        out["exception"] = {"type": t, "message": m, "traceback": tb}
    if "coverage" in p:
        f, first, last, arcs, possible = p["coverage"]
        out["coverage"] = {"file": os.path.relpath(f, work) if f.startswith(work) else f,
                           "first_line": first, "last_line": last,
                           "arcs": [list(a) for a in arcs], "function_arcs": [list(a) for a in possible]}
    if "captures" in p:
        out["captures"] = [{"node_id": n, "key": k, "count": c, "value": values.tag_to_json(t)}
                           for n, k, c, t in p["captures"]]
    if "slices" in p:
        out["slices"] = [slice_to_json(n, r) for n, r in p["slices"]]
    if "observed" in p:
        out["observed"] = observed_to_json(p["observed"])
    if "observe_error" in p:
        out["observe_error"] = str(p["observe_error"])[:500]
    if "tests" in p:
        out["tests"] = [{"node_id": n, "outcome": o, "seconds": s, "detail": d or None,
                         "lines": [{"path": path, "lines": ls} for path, ls in lines]}
                        for n, o, s, d, lines in p["tests"]]
    return out


def slice_to_json(node_id, r):
    """One traced execution's report as the `SliceUnit` JSON of the protocol."""
    out = {"node_id": node_id, "status": r.get("status", "untraceable"),
           "reason": r.get("reason"), "events": int(r.get("events", 0)),
           "cap": int(r.get("cap", 0)), "seconds": float(r.get("seconds", 0.0)),
           "slice_seconds": float(r.get("slice_seconds", 0.0)),
           "tracer": r.get("tracer", "settrace")}
    out["statements"] = [{"path": p, "line": ln, "count": c, "min_depth": lo, "max_depth": hi,
                          "function": f, "first_line": a, "last_line": b, "role": role}
                         for p, ln, c, lo, hi, f, a, b, role in r.get("statements", ())]
    out["inputs"] = [{"key": k, "role": role} for k, role in r.get("inputs", ())]
    return out


def observed_to_json(observed):
    """The observer's report (`child.make_observer`) as the `ObservedFunction` JSON of the
    protocol; anything not of the exact types the observer writes is left out (the tests ran
    in the process that built it)."""
    out = []
    if type(observed) is not list:
        return out
    for item in observed:
        if type(item) is not tuple or len(item) != 3:
            continue
        fid, rows, skipped = item
        if type(fid) is not str or type(rows) is not list or type(skipped) is not int:
            continue
        calls = []
        for r in rows:
            if (type(r) is tuple and len(r) == 5 and type(r[0]) is int and type(r[1]) is str
                    and type(r[2]) is str and type(r[3]) is str and type(r[4]) is int):
                calls.append({"ordinal": r[0], "args": r[1], "kwargs": r[2], "node_id": r[3],
                              "calls": r[4]})
        calls.sort(key=lambda c: c["ordinal"])
        out.append({"function_id": fid, "calls": calls, "skipped": skipped})
    return out
