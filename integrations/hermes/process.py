"""One command through bwrun, as a process handle Hermes can wait on.

SandboxedProcess is what the environment's _run_bash returns: the duck
type Hermes' BaseEnvironment._wait_for_process drains, polls, kills and
times out (tools/environments/base_output.py, ProcessHandle: poll(),
wait(), kill(), stdout, returncode). Creating it, on the caller's thread,

- starts `bwrun --status-fd W --nonce N --timeout T --chdir D
  [--expose F]... INVOCATION -- ARGV` in its own process group, W the write end
  of a pipe only the plugin holds (bwrun marks it close-on-exec: the
  command never sees it), N a fresh random nonce for this run;

and a supervisor, on a daemon thread that the next command reuses
(workers.py: its wake-up overlaps bwrun's run),

- buffers bwrun's output (stdout and stderr merged, as Hermes reads it);
- when bwrun has exited, reads one status object from the pipe and
  accepts the run only when it parses, carries N, and reports an outcome
  bwrun gives a command that ran (exited, signaled, timeout) or refused
  to start (setup-failed, stale): anything else (no report, a report
  without the nonce or with another one, a report that does not parse) is
  returncode 125 with one [bwpolicy] line, and the buffered output is
  withheld, since nothing proves where it came from;
- on "stale", recompiles once (Sandbox.recompile_after_stale) and starts
  bwrun again itself; nothing ran the first time;
- only then writes the output (and the plugin's lines) to the pipe the
  handle's stdout reads, closes it, and sets returncode.

kill() never SIGKILLs bwrun first: it waits for bwrun to end on its own
(its --timeout), then sends SIGTERM (bwrun relays it to the sandbox and
still runs its post-command checks), and waits up to KILL_GRACE seconds
more. Only a bwrun that outlives that is killed (Sandbox.after_kill):
a bwrun that journals its scan leaves it pending, and the next bwrun
finishes it before anything runs; any other bwrun taints the sandbox
(Sandbox.taint): what the command left is trusted by nothing the plugin
runs later.
The handle has no pid attribute, so Hermes' backstop
(agent.deadline.kill_process_tree on getattr(proc, "pid")) cannot kill
bwrun's process tree behind the plugin's back. Standard library only.
"""

import codecs
import collections
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time

from . import workers

from . import warm as _warm

#: What output lines the plugin adds start with.
TAG = "[bwpolicy]"

#: bwrun's exit status for a sandbox that could not be set up, and the
#: plugin's for a result it cannot prove.
SETUP_FAILED = 125

#: Seconds kill() waits for bwrun to end on its own (its --timeout
#: fires within this of Hermes' deadline), then after SIGTERM for its
#: post-command checks to finish, before it is killed and the sandbox is
#: tainted.
NATURAL_END = 2.0
KILL_GRACE = 120.0

#: Seconds the output may stay idle before the supervisor looks whether
#: the run has ended (then it reads what is left and stops: see _collect).
OUTPUT_IDLE = 0.25

#: The most output bytes one command keeps (head and tail); the middle
#: of a longer output is replaced by one line.
MAX_OUTPUT = 64 << 20

#: The most bytes of status read (bwrun writes one short line).
MAX_STATUS = 1 << 20

#: bwrun runs in a process group of its own (a terminal's Ctrl-C does not
#: reach it; the plugin can signal the group). A new process group
#: rather than a new session: a session is also a new scheduler
#: autogroup, measured 10 ms slower per command under load (bench.py).
_OWN_GROUP = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}

#: Why a command killed before it started did not run.
STOPPED = "stopped before the command started"

#: Outcomes of a command bwrun ran (its output is the command's), and of
#: one it refused to start (the output is bwrun's message).
RAN = ("exited", "signaled", "timeout")
REFUSED = ("setup-failed", "stale")


def one_line(text):
    """Text squeezed to one line, bounded."""
    s = " ".join(str(text).split())
    return s if len(s) <= 500 else s[:497] + "..."


class _Buffer:
    """Output kept within MAX_OUTPUT: the head and the tail."""

    def __init__(self, limit=MAX_OUTPUT):
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = collections.deque()
        self.tail_len = 0
        self.dropped = 0

    def add(self, data):
        if len(self.head) < self.head_limit:
            take = min(len(data), self.head_limit - len(self.head))
            self.head += data[:take]
            data = data[take:]
        if not data:
            return
        self.tail.append(bytes(data))
        self.tail_len += len(data)
        while self.tail_len > self.tail_limit:
            first = self.tail[0]
            excess = self.tail_len - self.tail_limit
            if len(first) <= excess:
                self.tail.popleft()
                self.tail_len -= len(first)
                self.dropped += len(first)
            else:
                self.tail[0] = first[excess:]
                self.tail_len -= excess
                self.dropped += excess

    def value(self):
        mid = b"" if not self.dropped else ("\n%s %d bytes of output dropped (over %d)\n" % (TAG, self.dropped, MAX_OUTPUT)).encode()
        return bytes(self.head) + mid + b"".join(self.tail)


def new_nonce():
    """A fresh nonce for one run: 32 characters of [A-Za-z0-9_-] (192
    random bits), what bwrun's --nonce accepts."""
    return secrets.token_urlsafe(24)


def readable(fd, timeout):
    """Whether fd is readable (data or end of file) within timeout
    seconds. poll(), not select(): select() refuses a descriptor numbered
    1024 or more, which a host program with many files open hands out."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    return bool(p.poll(max(0, int(timeout * 1000 + 0.999))))


def read_status(fd):
    """The bytes bwrun wrote on the status pipe (read end fd) until EOF,
    bounded; fd is closed."""
    chunks, n = [], 0
    try:
        while n <= MAX_STATUS:
            b = os.read(fd, 65536)
            if not b:
                break
            chunks.append(b)
            n += len(b)
    except OSError:
        pass
    finally:
        os.close(fd)
    return b"".join(chunks)


def judge(raw, nonce):
    """(status, None) when raw is one status object of this run (its nonce
    is nonce), else (None, why)."""
    if not raw:
        return None, "bwrun wrote no status report"
    try:
        st = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, "bwrun's status report does not parse"
    if not isinstance(st, dict):
        return None, "bwrun's status report is not an object"
    if st.get("nonce") != nonce:
        return None, "bwrun's status report does not carry this run's nonce (a bwrun without --nonce, or not this run's report)"
    if st.get("outcome") not in RAN + REFUSED or not isinstance(st.get("exit_status"), int):
        return None, "bwrun's status report names no known outcome"
    return st, None


class SandboxedProcess:
    """One command through bwrun (see the module docstring).

    sandbox: the environment's Sandbox; argv: the command (Hermes' bash
    argv); chdir, timeout, expose: bwrun's options; stdin_data: bytes or
    str written to the command's standard input (None: /dev/null);
    notes: [bwpolicy] lines to add to the output; env: the environment
    bwrun starts with."""

    def __init__(self, sandbox, argv, *, chdir=None, timeout=None, stdin_data=None, expose=(), notes=(), env=None):
        self._sandbox = sandbox
        self._argv = list(argv)
        self._chdir = chdir
        self._timeout = timeout
        self._stdin = stdin_data.encode("utf-8", "surrogateescape") if isinstance(stdin_data, str) else stdin_data
        self._expose = list(expose or ())
        self._notes = list(notes or ())
        self._env = env
        self._returncode = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._proc = None
        self._killing = False
        self._kill_line = None
        #: status is the accepted status report of the last attempt
        #: (None when none was accepted); reason the one-line why not.
        self.status = None
        self.reason = None
        self.killed = False
        r, w = os.pipe()
        self._out_w = w
        self.stdout = os.fdopen(r, "r", encoding="utf-8", errors="replace")
        # bwrun starts here, on the caller's thread: the supervisor's
        # thread wakes up while bwrun runs, not before it starts.
        self._seen = sandbox.generation
        self._first = None
        try:
            if sandbox.refusal() is None:
                self._first = self._start()
        except Exception as e:  # a bug or an OS error: the supervisor reports it, nothing ran
            self._first = (None, None, "the plugin could not start bwrun: %s" % one_line(e))
        workers.submit(self._supervise)

    # -- the ProcessHandle duck type --------------------------------------

    @property
    def returncode(self):
        return self._returncode if self._done.is_set() else None

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(self._argv, timeout)
        return self._returncode

    def kill(self):
        """Stop the command: see the module docstring. Returns when the
        run has ended (bwrun exited, or was killed after KILL_GRACE)."""
        with self._lock:
            self._killing = True
            proc = self._proc
        if proc is None or self._done.is_set():
            self._done.wait(NATURAL_END + KILL_GRACE)
            return
        try:
            proc.wait(NATURAL_END)
        except subprocess.TimeoutExpired:
            _signal(proc, signal.SIGTERM)
            try:
                proc.wait(KILL_GRACE)
            except subprocess.TimeoutExpired:
                self.killed = True
                self._kill_line = self._sandbox.after_kill("still running %.0f s after SIGTERM" % KILL_GRACE)
                _signal(proc, signal.SIGKILL, group=True)
                proc.wait()
        self._done.wait()

    terminate = kill

    # -- the supervisor ----------------------------------------------------

    def _supervise(self):
        out = b""
        code = SETUP_FAILED
        lines = ["%s %s" % (TAG, one_line(n)) for n in self._notes]
        try:
            seen = self._seen
            for attempt in range(2):
                started = self._first if attempt == 0 else None
                if started is None:
                    why = self._sandbox.refusal()
                    if why:
                        out, code, st = b"", SETUP_FAILED, None
                        lines.append("%s %s" % (TAG, why))
                        break
                    started = self._start()
                proc, nonce, status_r = started
                if proc is None:
                    out, code, st, why = b"", SETUP_FAILED, None, status_r
                else:
                    out, code, st, why = self._collect(proc, nonce, status_r)
                self.status, self.reason = st, why
                if st is None:
                    out = b""
                    lines.append("%s no proof the command ran in the sandbox: %s; its output is withheld" % (TAG, why))
                    code = SETUP_FAILED
                    break
                if st["outcome"] == "stale" and attempt == 0 and not self._killing:
                    try:
                        self._sandbox.recompile_after_stale(seen)
                    except Exception as e:  # CompileRefused and anything else: never run
                        out, code = b"", SETUP_FAILED
                        lines.append("%s the host changed and the recompile was refused: %s" % (TAG, one_line(e)))
                        break
                    seen = self._sandbox.generation
                    continue
                if st["outcome"] == "stale":
                    lines.append("%s the sandbox is still stale after recompiling once: %s" % (TAG, one_line(st.get("message") or "")))
                elif st["outcome"] == "setup-failed":
                    lines.append("%s the sandbox could not be set up (the command did not run): %s" % (TAG, one_line(st.get("message") or "")))
                code = st["exit_status"]
                break
        except Exception as e:  # a bug or an OS error: fail closed
            out, code = b"", SETUP_FAILED
            lines.append("%s the plugin could not run the command: %s" % (TAG, one_line(e)))
        finally:
            self._finish(out, code, lines)

    def _start(self):
        """Start bwrun once: (process, nonce, read end of its status pipe),
        or (None, None, why it did not start). Through the environment's
        runtime when it has one (warm.py: the process is its Call), else,
        or when that cannot be reached, bwrun itself."""
        server = getattr(self._sandbox, "warm", None)
        if server is not None:
            started = _warm.start(self, server)
            if started is not None:
                return started
        nonce = new_nonce()
        status_r, status_w = os.pipe()
        try:
            argv = self.bwrun_argv(nonce, status_fd=status_w)
            proc = self.launch(lambda: subprocess.Popen(
                argv, stdin=subprocess.PIPE if self._stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self._env,
                pass_fds=(status_w,), close_fds=True, **_OWN_GROUP))
            if proc is None:
                os.close(status_r)
                return None, None, STOPPED
        except OSError as e:
            os.close(status_r)
            return None, None, "bwrun could not be started: %s" % e
        except BaseException:
            os.close(status_r)
            raise
        finally:
            os.close(status_w)
        if self._stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, self._stdin), daemon=True).start()
        return proc, nonce, status_r

    def bwrun_argv(self, nonce, status_fd=None):
        """bwrun's argv for this command with this run's nonce (and its
        status descriptor when bwrun runs as a process of its own; the
        environment's runtime takes the same argv after the program)."""
        return self._sandbox.argv(self._argv, chdir=self._chdir, timeout=self._timeout, status_fd=status_fd,
                                  nonce=nonce, expose=self._expose)

    def launch(self, start):
        """start() under the handle's lock unless kill() came first: the
        process it returns (then the one kill() stops), or None when
        nothing was started. One check for bwrun and for the runtime."""
        with self._lock:
            if self._killing:
                return None
            self._proc = start()
            return self._proc

    def _collect(self, proc, nonce, status_r):
        """Read a started bwrun to its end: (output bytes, exit status,
        accepted status or None, why not)."""
        buf = _Buffer()
        fd = proc.stdout.fileno()
        ended = False
        while True:
            # Once bwrun (or the runtime's reply) says the run is over, the
            # sandbox is gone and what it wrote is in the pipe: read that
            # and stop. A writer still holding the pipe then is not the
            # command (one it handed the descriptor to, outside the
            # sandbox): waiting for its end of file would hang the handle,
            # kill() included.
            if not readable(fd, OUTPUT_IDLE):
                if ended:
                    break
                ended = proc.poll() is not None
                continue
            try:
                b = os.read(fd, 65536)
            except InterruptedError:
                continue
            if not b:
                break
            buf.add(b)
        proc.stdout.close()
        code = proc.wait()
        raw = read_status(status_r)
        st, why = judge(raw, nonce)
        if st is not None and st["exit_status"] != code:
            st, why = None, "bwrun exited %d but its report says %d" % (code, st["exit_status"])
        return buf.value(), code, st, why

    def _finish(self, out, code, lines):
        if self._kill_line:
            lines = list(lines) + ["%s %s" % (TAG, self._kill_line)]
        try:
            if lines:
                if out and not out.endswith(b"\n"):
                    out += b"\n"
                out += "\n".join(lines).encode("utf-8")
            view = memoryview(out)
            while view:
                n = os.write(self._out_w, view[:65536])
                view = view[n:]
        except OSError:
            pass  # nobody reads any more
        finally:
            try:
                os.close(self._out_w)
            except OSError:
                pass
            self._returncode = code
            self._done.set()


def _feed(pipe, data):
    """Write data to the command's stdin and close it (a command that
    stops reading early is normal)."""
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _signal(proc, sig, group=False):
    try:
        if group and hasattr(proc, "signal_group"):
            proc.signal_group(sig)  # warm.Call
        elif group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def run_to_end(handle, wait=None):
    """Wait for handle and return (output str, returncode): the plain
    reader the standalone environment, the probe and bench.py use. It
    reads the handle's output in the calling thread until EOF (the
    supervisor closes it once the run is judged); wait bounds the wait in
    seconds, then handle.kill() runs on a thread of its own while the
    output is still read (the supervisor may be blocked writing it)."""
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    data = []
    fd = handle.stdout.fileno()
    deadline = None if wait is None else time.monotonic() + wait
    killer = None
    while True:
        if deadline is not None and killer is None:
            left = deadline - time.monotonic()
            ready = left > 0 and readable(fd, left)
            if not ready:
                killer = threading.Thread(target=handle.kill, name="bwpolicy-kill", daemon=True)
                killer.start()
                continue
        try:
            b = os.read(fd, 65536)
        except InterruptedError:
            continue
        if not b:
            break
        data.append(dec.decode(b))
    data.append(dec.decode(b"", final=True))
    handle.wait()
    if killer is not None:
        killer.join()
    handle.stdout.close()
    return "".join(data), handle.returncode
