"""The environment's warm runtime: `bwrun --serve INVOCATION`, started
once by create_environment and spoken to over its socket, so that a
command costs no bwrun process start (issue 25 item 9).

The server (cmd/bwrun serve mode, runtime/serve) holds the invocation,
loaded and verified as bwrun loads it, and runs each command through the
same per-command path as bwrun's CLI (stale mark, pending scan, journal,
sandbox, post-command scan). Its socket is INVOCATION.serve/sock, in a
0700 directory beside the ledger that the sandbox does not show; it
answers only peers of its own uid and pid namespace.

One command (start, what SandboxedProcess._start runs when the
environment has a server): a 4-byte length and the JSON request {"args":
bwrun's arguments (the same Sandbox.argv builds, without the program and
the status descriptor), "env": the command's environment}, with the
command's stdin, stdout and stderr passed as descriptors (SCM_RIGHTS);
the reply, once the post-command scan has finished, is bwrun's status
record, judged exactly as bwrun's status pipe is (process.judge: this
run's nonce, a known outcome). No reply (the server died, the socket
closed) is no proof: returncode 125, output withheld. Killing a command
sends one byte ("k"): the server kills the sandbox and still finishes
the scan before it replies; closing the socket does the same.

A server that cannot be reached before a command is sent (never
started, died, refused) is not retried per command: the command runs
through bwrun as a process of its own (still with the status channel
and nonce), with one log line. The server also ends when the plugin
process dies (its --parent-fd pipe reaches end of file) or when the
invocation changes on disk; after a recompile the next command starts a
new one. A child the plugin process forks without exec closes its copy
of the parent pipe (the server ends with the plugin process) and runs
its commands through bwrun. Standard library only.
"""

import json
import logging
import os
import signal
import socket
import struct
import subprocess
import threading
import time
import weakref

logger = logging.getLogger(__name__)

#: Seconds the server has to say it listens.
START_WAIT = 15.0

#: Set to anything in the plugin's environment: no server, bwrun per
#: command (the benchmark's "before" row).
NO_SERVE_ENV = "BWPOLICY_NO_SERVE"

#: What the kill request is.
KILL = b"k"

#: The most bytes of a reply read (one status line).
MAX_REPLY = 1 << 20


def socket_of(invocation_path):
    """The server's socket for an invocation (runtime/serve.SocketOf)."""
    return os.path.join(invocation_path + ".serve", "sock")


class Unreachable(OSError):
    """The server could not be asked (nothing was sent: falling back to
    bwrun per command is safe)."""


#: Every Server that started a runtime in this process (forgotten by a
#: child forked without exec: _forget_in_child).
_servers = weakref.WeakSet()


def _forget_in_child():
    """In a child os.fork() made (no exec): close each server's parent
    pipe (the runtime must end with the plugin process, not with the last
    fork of it still alive) and leave the server to the parent: the
    child's commands run through their own bwrun. No lock is taken (one
    another thread held at the fork stays held in the child)."""
    for srv in list(_servers):
        srv._forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


class Server:
    """The warm runtime of one Sandbox (see the module docstring)."""

    def __init__(self, sandbox):
        self._sandbox = sandbox
        self._lock = threading.Lock()
        self._proc = None
        self._parent_w = None
        self._generation = None
        self._fell_back = False
        self._stopped = False
        #: strict: a command the server cannot be asked fails (125)
        #: instead of running through bwrun (attach's proof).
        self.strict = False

    # -- life --------------------------------------------------------------

    def start(self):
        """Start `bwrun --serve` for the sandbox's current invocation and
        wait until it listens; raises Unreachable when it does not."""
        sb = self._sandbox
        if not sb.bwrun:
            raise Unreachable("bwrun is not installed")
        ready_r, ready_w = os.pipe()
        parent_r, parent_w = os.pipe()
        argv = [sb.bwrun, "--serve", sb.invocation_path, "--ready-fd", str(ready_w), "--parent-fd", str(parent_r)]
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    pass_fds=(ready_w, parent_r), close_fds=True, env=sb.env, start_new_session=True)
        except OSError as e:
            for fd in (ready_r, ready_w, parent_r, parent_w):
                os.close(fd)
            raise Unreachable("bwrun --serve could not be started: %s" % e)
        os.close(ready_w)
        os.close(parent_r)
        line = _read_line(ready_r, START_WAIT)
        os.close(ready_r)
        if line != b"ready":
            os.close(parent_w)
            _end(proc)
            err = b""
            try:
                err = proc.stderr.read(4096) if proc.stderr else b""
            except (OSError, ValueError):
                pass
            raise Unreachable("bwrun --serve did not start: %s" % (line.decode("utf-8", "replace") or err.decode("utf-8", "replace").strip() or "no answer"))
        threading.Thread(target=_drain_log, args=(proc,), name="bwpolicy-serve-log", daemon=True).start()
        self._proc, self._parent_w, self._generation = proc, parent_w, sb.generation
        _servers.add(self)

    def _forget(self):
        """_forget_in_child for this server."""
        w, self._parent_w, self._proc = self._parent_w, None, None
        self._stopped = self._fell_back = True
        if w is not None:
            try:
                os.close(w)
            except OSError:
                pass

    def stop(self):
        """End the server (its parent pipe closes; SIGTERM after a second)."""
        with self._lock:
            self._stopped = True
            self._stop_locked()

    def _stop_locked(self):
        proc, w = self._proc, self._parent_w
        self._proc = self._parent_w = None
        if w is not None:
            try:
                os.close(w)
            except OSError:
                pass
        if proc is not None:
            try:
                proc.wait(1.0)
            except subprocess.TimeoutExpired:
                _end(proc)

    def abandon(self):
        """Kill the server's process group (it runs in a session of its
        own; bwrap dies with it: --die-with-parent) and send it nothing
        more: every later command runs through its own bwrun, which
        finishes a scan the server left pending before anything else.
        Takes no lock: a kill must not wait behind a restart."""
        self._stopped = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)  # gone (and reaped) before the kill returns
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._fall_back("a command's kill was not answered: the runtime was killed")

    def state(self):
        """The server process's state, for a log line."""
        proc = self._proc
        if proc is None:
            return "not running"
        code = proc.poll()
        return "pid %d running" % proc.pid if code is None else "pid %d exited %d" % (proc.pid, code)

    def alive(self):
        return self._proc is not None and self._proc.poll() is None

    def _ready(self):
        """Whether a command can be sent: a server of the current
        compile runs (restarted once after a recompile)."""
        if self._stopped:
            return False
        if self.alive() and self._generation == self._sandbox.generation:
            return True
        if self._generation is not None and self._generation != self._sandbox.generation:
            self._stop_locked()
            try:
                self.start()
                return True
            except Unreachable as e:
                # Not retried per command: each try may wait START_WAIT.
                self._stopped = True
                self._fall_back(str(e))
                return False
        self._fall_back("bwrun --serve is not running (exit %s)" % (self._proc.poll() if self._proc else "unknown"))
        return False

    def _fall_back(self, why):
        if not self._fell_back:
            self._fell_back = True
            logger.warning("bwpolicy: the environment's runtime is unreachable (%s): each command runs through its own bwrun, still proven", why)

    # -- one command ------------------------------------------------------

    def call(self, args, env, stdin, out):
        """Send one command (bwrun's args after the program, its
        environment, stdin and out descriptors): the connected socket,
        or Unreachable when nothing was sent."""
        with self._lock:
            if not self._ready():
                raise Unreachable("no server")
        try:
            s = _connect(socket_of(self._sandbox.invocation_path))
        except OSError as e:
            with self._lock:
                self._fall_back("connect: %s" % e)
                self._stop_locked()
                self._stopped = True
            raise Unreachable(str(e))
        try:
            send_request(s, args, env, (stdin, out, out))
        except OSError:
            # Perhaps partly sent: the command may run; only its reply
            # can prove anything now.
            pass
        return s


def send_request(sock, args, env, fds):
    """Send one request on a connected socket: bwrun's arguments after the
    program, the command's environment (a mapping) and its stdin, stdout
    and stderr descriptors (runtime/serve's wire: a 4-byte length, the
    JSON body, the descriptors with its first bytes)."""
    body = json.dumps({"args": args, "env": ["%s=%s" % kv for kv in env.items()]}).encode("utf-8")
    msg = struct.pack(">I", len(body)) + body
    n = socket.send_fds(sock, [msg], list(fds))
    if n < len(msg):
        sock.sendall(msg[n:])


class Call:
    """One command sent to the server, as the part of a Popen that
    SandboxedProcess uses: stdout (the command's output), wait() (the
    exit status the reply gives, 125 without one), send_signal (the kill
    request) and signal_group (stop waiting). The reply's bytes are
    written to a pipe (status_w), read as bwrun's status pipe is."""

    def __init__(self, sock, out_r, status_w, no_reply, server):
        self._server = server
        self._sock = sock
        self.stdout = os.fdopen(out_r, "rb", buffering=0)
        self._status_w = status_w
        self._done = threading.Event()
        self._code = no_reply
        self._slock = threading.Lock()
        threading.Thread(target=self._read, name="bwpolicy-serve-reply", daemon=True).start()

    def _read(self):
        chunks, n = [], 0
        try:
            while n <= MAX_REPLY:
                b = self._sock.recv(65536)
                if not b:
                    break
                chunks.append(b)
                n += len(b)
        except OSError:
            pass
        raw = b"".join(chunks)
        with self._slock:
            self._sock.close()
        if not raw:
            logger.warning("bwpolicy: the environment's runtime closed a command's connection without a status (%s): "
                           "the command's result is withheld (125)", self._server.state())
        try:
            code = json.loads(raw.decode("utf-8")).get("exit_status")
            if isinstance(code, int):
                self._code = code
        except (ValueError, UnicodeDecodeError, AttributeError):
            pass
        self._done.set()
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(self._status_w, view[:65536]):]
        except OSError:
            pass
        finally:
            os.close(self._status_w)

    def wait(self, timeout=None):
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired("bwrun --serve", timeout)
        return self._code

    def poll(self):
        """The exit status once the reply came (or the connection ended),
        else None."""
        return self._code if self._done.is_set() else None

    def send_signal(self, sig):
        """Any signal: ask the server to kill the sandbox (it still
        finishes the scan, then replies)."""
        with self._slock:
            if not self._done.is_set():
                try:
                    self._sock.send(KILL)
                except OSError:
                    pass

    def signal_group(self, sig):
        """The last resort, when the server did not answer the kill: the
        server is abandoned (Server.abandon: its process group killed, the
        sandbox with it), so the command's output ends and no later
        command is sent to it; its journal keeps the scan pending, and the
        next command's own bwrun finishes it first."""
        with self._slock:
            if self._done.is_set():
                return
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.abandon()


def start(handle, server):
    """SandboxedProcess._start through server (see process.py): (Call,
    nonce, read end of the reply's pipe), (None, None, why) when nothing
    may be sent, or None when the server cannot be reached (nothing was
    sent: bwrun per command). The nonce, the arguments and the check for
    a kill that came first are the handle's own (bwrun_argv, launch), as
    for bwrun as a process."""
    from .process import SETUP_FAILED, STOPPED, _feed, new_nonce  # process imports this module

    nonce = new_nonce()
    args = handle.bwrun_argv(nonce)[1:]
    env = handle._env if handle._env is not None else dict(os.environ)
    out_r, out_w = os.pipe()
    status_r, status_w = os.pipe()
    stdin = handle._stdin
    in_r, in_w = os.pipe() if stdin is not None else (os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC), None)
    call, why = None, None
    try:
        call = handle.launch(lambda: Call(server.call(args, env, in_r, out_w), out_r, status_w, SETUP_FAILED, server))
        if call is None:
            why = STOPPED
    except Unreachable as e:
        if server.strict:
            why = "the environment's runtime could not be asked: %s" % e
    finally:
        os.close(out_w)
        os.close(in_r)
    if call is None:
        for fd in (out_r, status_r, status_w) + ((in_w,) if in_w is not None else ()):
            os.close(fd)
        return None if why is None else (None, None, why)
    if in_w is not None:
        threading.Thread(target=_feed, args=(os.fdopen(in_w, "wb"), stdin), daemon=True).start()
    return call, nonce, status_r


def attach(sandbox):
    """Start the sandbox's server and prove it with /bin/true through it
    (the same proof as create_environment's): sandbox.warm is the Server,
    or stays None with one log line when it cannot be proven (every
    command then runs through its own bwrun)."""
    if os.environ.get(NO_SERVE_ENV):
        return None
    srv = Server(sandbox)
    try:
        srv.start()
    except Unreachable as e:
        logger.warning("bwpolicy: the environment's runtime did not start (%s): each command runs through its own bwrun", e)
        return None
    sandbox.warm = srv
    srv.strict = True  # the proof goes through the server or fails
    try:
        why = sandbox.probe()
    finally:
        srv.strict = False
    if why is not None:
        sandbox.warm = None
        srv.stop()
        logger.warning("bwpolicy: the environment's runtime did not prove itself (%s): each command runs through its own bwrun", why)
        return None
    return srv


def _connect(path):
    """A stream socket connected to path; a path longer than an address
    holds is reached through its directory held open
    (/proc/self/fd/N/NAME), as runtime/watch.SockAddr does."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # Blocking, whatever socket.setdefaulttimeout() the host program set:
    # a reply comes once the command and its scan have ended, and a
    # receive that timed out first would make every longer command 125.
    s.settimeout(None)
    try:
        if len(os.fsencode(path)) < 100:
            s.connect(path)
        else:
            fd = os.open(os.path.dirname(path), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                s.connect("/proc/self/fd/%d/%s" % (fd, os.path.basename(path)))
            finally:
                os.close(fd)
    except OSError:
        s.close()
        raise
    return s


def _read_line(fd, wait):
    """One line from fd within wait seconds (without its newline)."""
    from .process import readable  # process imports this module

    deadline = time.monotonic() + wait
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if not readable(fd, left):
            break
        b = os.read(fd, 4096)
        if not b:
            break
        data += b
    return data.split(b"\n", 1)[0]


def _drain_log(proc):
    """The server's own lines, to the log."""
    try:
        for line in proc.stderr:
            logger.info("bwpolicy: %s", line.decode("utf-8", "replace").rstrip())
    except (OSError, ValueError):
        pass


def _end(proc):
    try:
        proc.terminate()
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except OSError:
        pass
