"""A model of Hermes Agent's BaseEnvironment, written for these tests from
reading NousResearch/hermes-agent (not copied from it):

- tools/environments/base.py, class BaseEnvironment: __init__ (session
  id, snapshot and cwd-file paths under get_temp_dir()), _run_bash (the
  one seam every backend implements), init_session (a login-shell
  bootstrap through _run_bash + _wait_for_process), _wrap_command,
  _wait_for_process (drain thread, adaptive poll, deadline →
  _kill_process, returncode 124 with "[Command timed out after Ns]"),
  _kill_process (proc.kill()), _update_cwd/_extract_cwd_from_output (the
  __HERMES_CWD_<session>__ marker pair in the output), execute (command,
  cwd="", *, timeout, stdin_data, rewrite_compound_background,
  bounded_capture, yield_handler) → {"output", "returncode"}, bounded by
  agent.deadline.run_bounded_sync(timeout + 2 s) whose on_timeout calls
  _kill_spawned_tree (_kill_process, then kill_process_tree on
  getattr(proc, "pid")), fetch_file/fetch_realpath over execute;
- tools/environments/base_session_env.py: the bootstrap and per-command
  scripts (snapshot sourced, `builtin cd -- CWD || exit 126`,
  `eval 'CMD'`, the marker printf), _split_cwd_marker;
- tools/environments/base_output.py: _pipe_stdin (a writer thread),
  _drain_stdout (select, stop ~300 ms after the process exits),
  _finalize_wait_result.

Interrupts, yield-to-background, bounded capture, sudo rewriting and the
passthrough variables are left out: the plugin does not touch them."""

import os
import select
import shlex
import subprocess
import threading
import time
import uuid

_BOUND_GRACE_S = 2.0


def _cwd_marker(session_id):
    return "__HERMES_CWD_%s__" % session_id


def _marker_printf(marker):
    return "printf '\\n%s%%s%s\\n' \"$(pwd -P)\"" % (marker, marker)


def _split_cwd_marker(output, marker):
    last = output.rfind(marker)
    if last == -1:
        return None
    first = output.rfind(marker, max(0, last - 4096), last)
    if first == -1 or first == last:
        return None
    cwd = output[first + len(marker):last].strip() or None
    start = output.rfind("\n", 0, first)
    start = first if start == -1 else start
    end = output.find("\n", last + len(marker))
    end = end + 1 if end != -1 else len(output)
    return cwd, output[:start] + output[end:]


def _pipe_stdin(proc, data):
    """base_output._pipe_stdin: write on a daemon thread, close after."""
    def write():
        target = getattr(proc.stdin, "buffer", proc.stdin)
        try:
            target.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                target.close()
            except Exception:
                pass
    t = threading.Thread(target=write, daemon=True)
    proc._hermes_stdin_thread = t
    t.start()


def _drain(proc, chunks):
    """base_output._drain_stdout: select() with a short poll; stop shortly
    after the process exits even without EOF."""
    stream = proc.stdout
    if stream is None:
        return
    fd = stream.fileno()
    exited_at = None
    while True:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            data = os.read(fd, 4096)
            if not data:
                return
            chunks.append(data)
            continue
        if proc.poll() is not None:
            exited_at = exited_at or time.monotonic()
            if time.monotonic() - exited_at > 0.3:
                return


class _Bounded:
    """agent.deadline.run_bounded_sync: run fn on a daemon worker; after
    bound seconds call on_timeout and report timed_out."""

    def __init__(self, fn, bound, on_timeout):
        self.value, self.timed_out, self.error = None, False, None
        done = threading.Event()

        def worker():
            try:
                self.value = fn()
            except BaseException as e:  # re-raised by the caller
                self.error = e
            finally:
                done.set()
        threading.Thread(target=worker, daemon=True).start()
        if not done.wait(bound):
            self.timed_out = True
            on_timeout()
        elif self.error is not None:
            raise self.error


def kill_process_tree(pid):
    """agent.deadline.kill_process_tree: SIGKILL the process group."""
    import signal
    try:
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


#: Every process tree the backstop killed, for the tests.
BACKSTOP_KILLS = []


class BaseEnvironment:
    _snapshot_timeout = 30
    is_local = False

    def get_temp_dir(self):
        return "/tmp"

    def __init__(self, cwd, timeout, env=None):
        self.cwd = cwd
        self.timeout = timeout
        self.env = env or {}
        self._session_id = uuid.uuid4().hex[:12]
        temp = self.get_temp_dir().rstrip("/") or "/"
        self._snapshot_path = "%s/hermes-snap-%s.sh" % (temp, self._session_id)
        self._cwd_file = "%s/hermes-cwd-%s.txt" % (temp, self._session_id)
        self._cwd_marker = _cwd_marker(self._session_id)
        self._snapshot_ready = False

    def _run_bash(self, cmd_string, *, login=False, timeout=120, stdin_data=None):
        raise NotImplementedError("%s must implement _run_bash()" % type(self).__name__)

    def cleanup(self):
        raise NotImplementedError

    # -- the snapshot ------------------------------------------------------

    def init_session(self):
        snap = shlex.quote(self._snapshot_path)
        bootstrap = ("umask 077\nexport -p > %s.tmp && mv -f %s.tmp %s\nbuiltin cd -- %s 2>/dev/null || true\n%s\n"
                     % (snap, snap, snap, shlex.quote(self.cwd), _marker_printf(self._cwd_marker)))
        try:
            proc = self._run_bash(bootstrap, login=True, timeout=self._snapshot_timeout)
            result = self._wait_for_process(proc, timeout=self._snapshot_timeout)
            if int(result.get("returncode") or 0) != 0:
                raise RuntimeError("snapshot bootstrap failed with exit code %s" % result.get("returncode"))
            self._snapshot_ready = True
            self._update_cwd(result)
        except Exception:
            self._snapshot_ready = False

    def _wrap_command(self, command, cwd):
        snap = shlex.quote(self._snapshot_path)
        parts = []
        if self._snapshot_ready:
            parts.append("source %s >/dev/null 2>&1 || true" % snap)
        parts += ["builtin cd -- %s || exit 126" % shlex.quote(cwd),
                  "eval '%s'" % command.replace("'", "'\\''"),
                  "__hermes_ec=$?",
                  "umask 077"]
        if self._snapshot_ready:
            parts.append("export -p > %s.tmp 2>/dev/null && mv -f %s.tmp %s || true" % (snap, snap, snap))
        parts += [_marker_printf(self._cwd_marker), "exit $__hermes_ec"]
        return "\n".join(parts)

    # -- waiting -------------------------------------------------------------

    def _wait_for_process(self, proc, timeout=120, **_):
        chunks = []
        drain = threading.Thread(target=_drain, args=(proc, chunks), daemon=True)
        drain.start()
        deadline = time.monotonic() + timeout
        sleep = 0.005
        while proc.poll() is None:
            if time.monotonic() > deadline:
                self._kill_process(proc)
                drain.join(timeout=2)
                out = b"".join(chunks).decode("utf-8", "replace")
                return {"output": (out + "\n[Command timed out after %ss]" % timeout).lstrip(), "returncode": 124}
            time.sleep(sleep)
            sleep = min(sleep * 1.5, 0.2)
        drain.join(timeout=2)
        try:
            proc.stdout.close()
        except Exception:
            pass
        t = getattr(proc, "_hermes_stdin_thread", None)
        if t is not None:
            t.join(timeout=5)
        return {"output": b"".join(chunks).decode("utf-8", "replace"), "returncode": proc.returncode}

    def _kill_process(self, proc):
        try:
            proc.kill()
        except (ProcessLookupError, PermissionError, OSError):
            pass

    def _kill_spawned_tree(self, spawned):
        try:
            self._kill_process(spawned)
        except Exception:
            pass
        pid = getattr(spawned, "pid", None)
        if not pid:
            return
        BACKSTOP_KILLS.append(pid)
        kill_process_tree(int(pid))

    # -- cwd -------------------------------------------------------------------

    def _update_cwd(self, result):
        self._extract_cwd_from_output(result)

    def _extract_cwd_from_output(self, result):
        split = _split_cwd_marker(result.get("output", ""), self._cwd_marker)
        if split is None:
            return
        cwd, cleaned = split
        if cwd:
            self.cwd = cwd
            result["cwd_observed"] = True
            result["cwd"] = cwd
        result["output"] = cleaned

    # -- execute -------------------------------------------------------------

    def execute(self, command, cwd="", *, timeout=None, stdin_data=None, rewrite_compound_background=True,
                bounded_capture=False, yield_handler=None):
        effective_timeout = timeout or self.timeout
        wrapped = self._wrap_command(command, cwd or self.cwd)
        login = not self._snapshot_ready
        holder = []

        def spawn_and_wait():
            p = self._run_bash(wrapped, login=login, timeout=effective_timeout, stdin_data=stdin_data)
            holder.append(p)
            return self._wait_for_process(p, timeout=effective_timeout)

        def on_timeout():
            if holder:
                self._kill_spawned_tree(holder[0])

        bounded = _Bounded(spawn_and_wait, float(effective_timeout) + _BOUND_GRACE_S, on_timeout)
        if bounded.timed_out:
            result = {"output": "[Command timed out after %ss]" % effective_timeout, "returncode": 124}
        else:
            result = bounded.value
        self._update_cwd(result)
        return result

    def fetch_realpath(self, remote_path):
        r = self.execute("readlink -f %s 2>/dev/null" % shlex.quote(remote_path), rewrite_compound_background=False)
        if int(r.get("returncode") or 0) != 0:
            return None
        return next((l.strip() for l in reversed(r.get("output", "").splitlines()) if l.strip().startswith("/")), None)

    def __del__(self):
        try:
            self.cleanup()
        except Exception:
            pass


def _popen(args, env, cwd, stdin_data):
    """LocalEnvironment's Popen call (shared by both local models)."""
    proc = subprocess.Popen(args, text=True, env=env, encoding="utf-8", errors="replace", stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT,
                            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                            preexec_fn=os.setsid, cwd=cwd)
    if stdin_data is not None:
        _pipe_stdin(proc, stdin_data)
    return proc
