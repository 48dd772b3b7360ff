"""The runner's children: forking them (call sessions and pytest one-shots), the one channel
and event loop the runner watches each of them with, reaping them, killing what they leave,
and putting the work folder back between requests.

Loaded by runner.py under the private name `_freshbench_supervision`. Runs in the runner
(pid 1 of the sandbox, not dumpable), which never runs user code: what a child sends is
data, judged here (nonce, framing, exit status) before it becomes an answer.
"""

import importlib
import os
import selectors
import signal
import time

import _freshbench_child as child
import _freshbench_guard as guard
import _freshbench_protocol as protocol

DEVNULL = "/dev/null"
# Bytes read from one pipe before the loop looks at its clock and caps again.
READ_CHUNK = 65536
READ_ROUNDS = 64

# Exit statuses of watched children (sessions, one-shot children) reaped by a wait for any.
_WATCHED = set()
_REAPED = {}


def _note_reaped(pid, status):
    if pid in _WATCHED:
        _REAPED[pid] = status


def _waitpid(pid, flags=0):
    """os.waitpid for a watched child, which a wait for any child may have reaped already."""
    if pid in _REAPED:
        _WATCHED.discard(pid)
        return pid, _REAPED.pop(pid)
    try:
        got = os.waitpid(pid, flags)
    except ChildProcessError:
        _WATCHED.discard(pid)
        return pid, _REAPED.pop(pid, 0)
    if got[0] == pid:
        _WATCHED.discard(pid)
    return got


# --------------------------------------------------------------------------- the channel

class ChildChannel:
    """The runner's side of one forked child, session or one-shot: the pipe it sends result
    frames on, its stdout and stderr, optionally its request pipe (sessions) and its progress
    pipe (one-shots: `S nodeid` and `E` lines), its pidfd, and what came on each. `pump` is
    the one event loop every child is watched with."""

    def __init__(self, pid, nonce, result_fd, out_fd, err_fd, request_fd=-1, progress_fd=-1):
        self.pid, self.nonce, self.request_fd = pid, nonce, request_fd
        self.result_fd, self.out_fd, self.err_fd, self.progress_fd = result_fd, out_fd, err_fd, progress_fd
        self.wait_status = None
        self.result = bytearray()
        self.out = bytearray()
        self.err = bytearray()
        self.progress = bytearray()
        self.bufs = {result_fd: self.result, out_fd: self.out, err_fd: self.err}
        if progress_fd != -1:
            self.bufs[progress_fd] = self.progress
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # Python < 3.9 or Linux < 5.3: poll instead
            self.pidfd = -1
        self.sel = selectors.DefaultSelector()
        self.open = set(self.bufs)
        for fd in self.open:
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        if self.pidfd != -1:
            self.sel.register(self.pidfd, selectors.EVENT_READ)

    def send(self, obj):
        """Sends a request frame to a session child (a child that is gone is seen by `pump`)."""
        try:
            os.write(self.request_fd, protocol.request_frame(obj))
        except OSError:
            pass

    def exited(self, ws):
        self.wait_status = ws
        if self.pidfd != -1:
            self.sel.unregister(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = -1

    def read_ready(self, fd):
        """Reads what `fd` has (a bounded number of chunks); returns False at end of file."""
        buf = self.bufs[fd]
        for _ in range(READ_ROUNDS):
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return True
            if not chunk:
                self.sel.unregister(fd)
                self.open.discard(fd)
                return False
            buf += chunk
            if fd == self.progress_fd and len(buf) > 65536:
                # Only the last test matters: keep the tail, from a line's start.
                tail = bytes(buf[-32768:])
                buf[:] = tail[tail.find(b"\n") + 1:]
            if len(chunk) < READ_CHUNK:
                return True
        return True

    def over(self, cap):
        """Whether the child wrote more than it may: stdout and stderr together over `cap`
        bytes, or the result channel over 4 times max(cap, 1 MiB)."""
        return len(self.out) + len(self.err) > cap or len(self.result) > 4 * max(cap, 1 << 20)

    def pump(self, deadline, cap=None, until_exit=False, on_exit=None, draining=False):
        """The event loop: select over the child's pipes and its pidfd (polling waitpid where
        there is no pidfd) until
        - `until_exit` False (a session's call): a whole result frame has come, or the child
          ended; what its stdout and stderr still hold is read then;
        - `until_exit` (a one-shot): the child ended and every pipe is at end of file, or one
          second after it ended (then `on_exit()` is called, once).
        Returns None then; "timeout" when `deadline` passes first (None when `draining`: the
        deadline is then only how long the pipes may stay open), "output_limit" as soon as
        `over(cap)` (never when `cap` is None)."""
        limit = deadline
        noted = self.wait_status is not None
        while True:
            if until_exit:
                if self.wait_status is not None and not self.open:
                    return None
            elif protocol.frame_complete(self.result, self.nonce):
                break
            elif self.wait_status is not None:
                for fd in list(self.open):
                    self.read_ready(fd)
                break
            now = time.monotonic()
            if now >= limit:
                return None if draining else "timeout"
            poll = self.pidfd == -1 and self.wait_status is None
            for key, _ in self.sel.select(timeout=min(limit - now, 0.01 if poll else 1.0)):
                if key.fd == self.pidfd:
                    self.exited(_waitpid(self.pid)[1])
                else:
                    self.read_ready(key.fd)
            if poll:
                wpid, ws = _waitpid(self.pid, os.WNOHANG)
                if wpid == self.pid:
                    self.exited(ws)
            if until_exit and not noted and self.wait_status is not None:
                noted = True
                if on_exit is not None:
                    on_exit()
                if not draining:
                    draining, limit = True, time.monotonic() + 1.0
            if cap is not None and self.over(cap):
                return "output_limit"
        for fd in (self.out_fd, self.err_fd):
            if fd in self.open:
                self.read_ready(fd)
        if cap is not None and len(self.out) + len(self.err) > cap:
            return "output_limit"
        return None

    def take_result(self):
        """What came on the result channel since the last call, then forgotten."""
        raw = bytes(self.result)
        self.result.clear()
        return raw

    def running_test(self):
        """The node id of the test that started last and did not end (progress lines)."""
        running = None
        for line in bytes(self.progress).decode("utf-8", "replace").split("\n"):
            if line.startswith("S "):
                running = line[2:]
            elif line == "E":
                running = None
        return running

    def close(self):
        self.sel.close()
        if self.pidfd != -1:
            os.close(self.pidfd)
            self.pidfd = -1
        for fd in (self.request_fd, *self.bufs):
            if fd == -1:
                continue
            try:
                os.close(fd)
            except OSError:
                pass


class Session:
    """A call session: the child serving the calls of one target (its `key`)."""

    def __init__(self, key, channel):
        self.key, self.channel, self.pid = key, channel, channel.pid


# --------------------------------------------------------------------------- the supervisor

class Supervisor:
    """Serves requests in forked children: `call`s in sessions, `pytest` in one-shots."""

    def __init__(self, opts, slicer=None, harness_files=()):
        self.session = None
        self.opts = opts
        self.work = os.path.abspath(opts["work"])
        self.scratch = os.path.abspath(opts["scratch"])
        self.kill_all = opts["kill_all"]
        self.pid = os.getpid()
        self.protocol_fds = ()
        self.pristine = None
        self.pytest_loaded = False
        try:
            import coverage
        except ImportError:
            coverage = None
        self.coverage = coverage
        self.slicer = slicer
        # The files whose functions' code a pytest run may not replace.
        self.harness_files = frozenset(harness_files)
        for m in opts["preload"]:
            importlib.import_module(m)
        self.read_roots = sorted(set(os.path.abspath(p) for p in opts["read"]) | {self.work, self.scratch})
        self.readonly_roots = sorted(set(os.path.abspath(p) for p in opts["readonly"]))
        self.write_roots = sorted(set(os.path.abspath(p) for p in opts["write"])
                                  | {self.work, self.scratch, DEVNULL, "/dev/shm"})

    # ------------------------------------------------------------------ the work folder

    def snapshot_work(self):
        """Records the work folder as copied from the tree: every file's and link's (size,
        mtime, mode) and every folder, so that `restore_work` can undo what requests change."""
        files, dirs = {}, set()
        for root, dnames, fnames in os.walk(self.work):
            rel = os.path.relpath(root, self.work)
            dirs.add(rel)
            for n in dnames + fnames:
                full = os.path.join(root, n)
                if n in dnames and not os.path.islink(full):
                    continue
                st = os.lstat(full)
                files[os.path.normpath(os.path.join(rel, n))] = (st.st_size, st.st_mtime_ns, st.st_mode)
        self.pristine = (files, dirs)

    def restore_work(self):
        """Puts the work folder back as `snapshot_work` saw it: files and folders that were
        added are removed, changed or missing ones copied again from the tree. A folder or
        file made unwritable is made writable first. A work folder that cannot be restored
        ends the worker (the caller starts a fresh one, with a fresh copy)."""
        import shutil
        import stat as stat_mod

        tree = self.opts.get("tree")
        if not tree or self.pristine is None:
            return
        files, dirs = self.pristine
        try:
            os.chmod(self.work, 0o755)
            for root, dnames, fnames in os.walk(self.work, topdown=True):
                rel = os.path.relpath(root, self.work)
                keep = []
                for n in dnames:
                    r = os.path.normpath(os.path.join(rel, n))
                    full = os.path.join(root, n)
                    if os.path.islink(full):
                        if r not in files:
                            os.unlink(full)
                        continue
                    os.chmod(full, 0o755)  # so that os.walk can list it
                    if r in dirs:
                        keep.append(n)
                    else:
                        for sub_root, _, _ in os.walk(full):
                            os.chmod(sub_root, 0o755)
                        shutil.rmtree(full)
                dnames[:] = keep
                for n in fnames:
                    r = os.path.normpath(os.path.join(rel, n))
                    full = os.path.join(root, n)
                    st = os.lstat(full)
                    want = files.get(r)
                    if want is None:
                        os.unlink(full)
                    elif (st.st_size, st.st_mtime_ns, st.st_mode) != want:
                        os.unlink(full)
            for d in sorted(dirs):
                os.makedirs(os.path.join(self.work, d), exist_ok=True)
            for r, (_, _, mode) in list(files.items()):
                dst = os.path.join(self.work, r)
                if os.path.lexists(dst):
                    continue
                src = os.path.join(tree, r)
                if stat_mod.S_ISLNK(mode):
                    os.symlink(os.readlink(src), dst)
                else:
                    shutil.copy2(src, dst)
                    os.chmod(dst, stat_mod.S_IMODE(mode))
                st = os.lstat(dst)
                files[r] = (st.st_size, st.st_mtime_ns, st.st_mode)
        except OSError:
            os._exit(75)  # EX_TEMPFAIL: the caller replaces this worker

    def apply_overlay(self, overlay):
        """Writes the request's files into the work folder (`[path, text]` pairs, paths
        relative to it); an error message for a path outside it."""
        for item in overlay:
            path, text = item["path"], item["text"]
            full = os.path.normpath(os.path.join(self.work, path))
            if os.path.isabs(path) or not full.startswith(self.work + os.sep):
                return "overlay path outside the work folder: %r" % (path,)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        return None

    # ------------------------------------------------------------------ reaping and killing

    def reap(self):
        while True:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            _note_reaped(pid, st)

    def others_alive(self, pid):
        """Whether the request left processes behind (after reaping the dead ones)."""
        self.reap()
        try:
            if self.kill_all:
                os.kill(-1, 0)
            else:
                os.killpg(pid, 0)
        except OSError:
            return False
        return True

    def children_of(self, pid):
        """Children of every thread of `pid`, from /proc (empty if it is gone)."""
        kids = []
        try:
            for tid in os.listdir("/proc/%d/task" % pid):
                try:
                    with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                        kids.extend(int(k) for k in f.read().split())
                except OSError:
                    pass
        except OSError:
            pass
        return kids

    def kill_rest(self, pid):
        """Kills the request's process, its group and every process it left (inside a pid
        namespace or with a sandbox uid: every process but the runner), and reaps them."""
        if not self.kill_all:  # its descendants first, before they are reparented
            todo, seen = [pid], set()
            while todo:
                p = todo.pop()
                if p in seen:
                    continue
                seen.add(p)
                todo.extend(self.children_of(p))
            for p in seen:
                for kill in (os.killpg, os.kill):
                    try:
                        kill(p, signal.SIGKILL)
                    except OSError:
                        pass
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        if self.kill_all:
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        if pid in _WATCHED and pid not in _REAPED:
            try:  # it was just sent SIGKILL: a blocking wait is short
                _note_reaped(*os.waitpid(pid, 0))
            except ChildProcessError:
                pass
        self.reap_all()

    def reap_all(self, timeout=2.0):
        """Kills and reaps the runner's children (orphans come to it: it is pid 1 or a
        subreaper) until none is left, or `timeout`."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid:
                _note_reaped(pid, st)
                continue
            left = self.children_of(self.pid)
            if not left:
                return
            for k in left:
                try:
                    os.kill(k, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.001)

    def strays(self, sess):
        """Whether the session left processes behind, and how many threads it has."""
        self.reap()
        stray = False
        try:
            if self.pid == 1:
                mine = ("1", str(sess.pid))
                stray = any(n.isdigit() and n not in mine for n in os.listdir("/proc"))
            else:
                stray = bool(self.children_of(sess.pid)) or any(
                    k != sess.pid for k in self.children_of(self.pid))
            with open("/proc/%d/status" % sess.pid) as f:
                threads = next((int(line.split()[1]) for line in f if line.startswith("Threads:")), 1)
        except (OSError, ValueError):
            return stray, 1
        return stray, threads

    # ------------------------------------------------------------------ requests

    def serve(self, req):
        kind = req.get("kind")
        if kind == "call":
            return self.serve_call(req)
        if kind == "pytest":
            self.end_session()
            if not self.pytest_loaded:
                # pytest imported once here, not in every forked child (most of a short
                # run's start); its plugins and the project's modules still load per run.
                self.pytest_loaded = True
                try:
                    import pytest  # noqa: F401
                except Exception:  # noqa: BLE001 - the child reports it
                    pass
            pristine = bool(req.get("pristine"))
            if pristine:
                self.restore_work()
                err = self.apply_overlay(req.get("overlay") or [])
                if err is not None:
                    self.restore_work()
                    return {"status": "harness_error", "detail": err}
            try:
                return self.serve_oneshot(req)
            finally:
                if pristine:
                    # Whatever the request did to the work folder is undone before the next.
                    self.restore_work()
        return {"status": "harness_error", "detail": "unknown request kind %r" % (kind,)}

    # ------------------------------------------------------------------ forking

    def _fork(self, parent_ends, ow, ew, limits, body):
        """Forks a child that will run code and returns its pid. The child closes the
        parent's pipe ends and the protocol channel, takes a process group of its own, sends
        fds 1 and 2 to the capture pipes, restores default signal handling, lowers the limits,
        enters the work folder and runs `body(violations)`; it never returns (exit code 70
        when the body does)."""
        pid = os.fork()
        if pid == 0:
            try:
                for fd in tuple(parent_ends) + tuple(self.protocol_fds):
                    os.close(fd)
                os.setpgid(0, 0)
                guard.set_dumpable(True)
                os.dup2(ow, 1)
                os.dup2(ew, 2)
                os.close(ow)
                os.close(ew)
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGCHLD):
                    signal.signal(sig, signal.SIG_DFL)
                guard.lower_limits(limits)
                os.chdir(self.work)
                body([])
            finally:
                os._exit(70)
        _WATCHED.add(pid)
        return pid

    def _ctx(self, violations, **hook):
        return {"violations": violations, "scratch": self.scratch, "coverage": self.coverage,
                "slicer": self.slicer, "writable": (self.work, self.scratch),
                "hook": guard.make_hook(self.read_roots, self.write_roots, self.readonly_roots,
                                        self.pid, violations, **hook)}

    # ------------------------------------------------------------------ call sessions

    def start_session(self, key, limits):
        nonce = protocol.new_nonce()
        qr, qw = os.pipe()
        rr, rw = os.pipe()
        or_, ow = os.pipe()
        er, ew = os.pipe()

        def body(violations):
            ctx = self._ctx(violations)
            ctx["repr_cap"] = int(limits.get("output_bytes", 1 << 20))
            child.session_main(qr, rw, nonce, ctx)

        pid = self._fork((qw, rr, or_, er), ow, ew, dict(limits, cpu_seconds=None), body)
        for fd in (qr, rw, ow, ew):
            os.close(fd)
        return Session(key, ChildChannel(pid, nonce, rr, or_, er, request_fd=qw))

    def end_session(self):
        sess = self.session
        if sess is None:
            return
        self.session = None
        self.kill_rest(sess.pid)
        ch = sess.channel
        if ch.wait_status is None:
            ch.wait_status = _waitpid(sess.pid)[1]
        ch.close()
        self.reap()

    def serve_call(self, req):
        limits, wall, cap = protocol.limits_of(req)
        key = protocol.session_key(req, limits)
        fresh = bool(req.get("fresh"))
        if self.session is not None and (fresh or self.session.key != key):
            self.end_session()
        t0 = time.monotonic()
        if self.session is None:
            self.session = self.start_session(key, limits)
        sess = self.session
        ch = sess.channel
        ch.out.clear()
        ch.err.clear()
        ch.send(req)
        status = ch.pump(t0 + wall, cap)
        detail = None
        if status == "timeout":
            detail = protocol.timeout_detail(wall)
        elif status == "output_limit":
            detail = protocol.output_detail(cap)
        out = protocol.captured(ch.out, ch.err, cap)
        payload = None
        if status is None:
            raw = ch.take_result()
            if not raw:
                status, detail = protocol.death(ch.wait_status)
            else:
                payload, problem = protocol.decode_frame(raw, ch.nonce)
                if problem is not None:
                    status, detail = "sandbox_violation", problem
        end = status is not None or fresh
        leftover = False
        if payload is not None and not end:
            leftover, threads = self.strays(sess)
            end = leftover or threads > 1 or payload.get("status") not in ("ok", "exception")
        if end:
            self.end_session()
        out["wall_seconds"] = time.monotonic() - t0
        if status is not None:
            out["status"] = status
            out["detail"] = detail
            return out
        out = protocol.to_json(payload, out, self.work)
        if leftover and out["status"] in ("ok", "exception"):
            out["status"] = "sandbox_violation"
            out["detail"] = "left processes running after the call (killed)"
        return out

    # ------------------------------------------------------------------ one-shot children

    def serve_oneshot(self, req):
        limits, wall, cap = protocol.limits_of(req)
        nonce = protocol.new_nonce()
        rr, rw = os.pipe()
        or_, ow = os.pipe()
        er, ew = os.pipe()
        pr, pw = os.pipe()
        t0 = time.monotonic()

        def body(violations):
            ctx = self._ctx(violations, allow_loopback=self.pid == 1,
                            code_guard_files=self.harness_files)
            child.child_pytest(req, rw, nonce, ctx, pw)

        pid = self._fork((rr, or_, er, pr), ow, ew, limits, body)
        for fd in (rw, ow, ew, pw):
            os.close(fd)
        ch = ChildChannel(pid, nonce, rr, or_, er, progress_fd=pr)
        leftover = []

        def on_exit():
            leftover.append(self.others_alive(pid))
            self.kill_rest(pid)

        status = ch.pump(t0 + wall, cap, until_exit=True, on_exit=on_exit)
        if status is not None:
            self.kill_rest(pid)
            ch.pump(time.monotonic() + 1.0, until_exit=True, on_exit=on_exit, draining=True)
        if ch.wait_status is None:
            self.kill_rest(pid)
            ch.exited(_waitpid(pid)[1])
        ch.close()
        self.reap()
        out = protocol.captured(ch.out, ch.err, cap)
        out["wall_seconds"] = time.monotonic() - t0
        running = ch.running_test()
        if running:
            out["running_test"] = running
        if status is not None:
            out["status"] = status
            out["detail"] = protocol.timeout_detail(wall) if status == "timeout" else \
                protocol.output_detail(cap)
            return out
        ws = ch.wait_status
        if os.WIFSIGNALED(ws):
            out["status"], out["detail"] = protocol.death(ws)
            return out
        code = os.WEXITSTATUS(ws)
        raw = ch.take_result()
        if not raw:
            out["status"], out["detail"] = protocol.death(ws)
            return out
        payload, problem = (None, protocol.FORGED) if code != 0 else protocol.decode_frame(raw, nonce)
        if problem == protocol.FORGED:
            out["status"] = "sandbox_violation"
            out["detail"] = protocol.FORGED + " (exit code %d)" % code
            return out
        if problem is not None:
            out["status"] = "sandbox_violation"
            out["detail"] = problem
            return out
        out = protocol.to_json(payload, out, self.work)
        if leftover and leftover[0]:
            out["detail"] = ((out.get("detail") or "") + "; left processes running (killed)").lstrip("; ")
        return out
