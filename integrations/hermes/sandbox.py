"""One environment's sandbox: its compiled invocation, the bwrun argv of
each command, the proof of each run (process.py), the stale → recompile
once loop, the degraded and tainted states. Standard library only."""

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import threading
import uuid

from . import expose as _expose
from .backend_config import write_settings
from .process import SandboxedProcess, one_line, run_to_end
from .versions import INVOCATION_FORMAT, find_binary

#: A sandbox ID, as `bwpolicy compile --sandbox-id` accepts it.
SANDBOX_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

#: The most results one environment keeps pinned (the oldest copy goes).
MAX_PINNED = 256

#: The largest file pinned (bwrun's ExposeDataMax).
PIN_MAX_BYTES = 64 << 20

INSTALL_HINT = "apt install bubblewrap | dnf install bubblewrap | pacman -S bubblewrap"


#: What bwrun keeps beside the invocation when it journals its
#: post-command scan (runtime/ledger, issue 26): INVOCATION + ".ledger",
#: and an INVOCATION.pending-* entry per running bwrun, which a killed
#: bwrun leaves behind and the next bwrun (or compile) of the invocation
#: finishes before anything else runs.
LEDGER_SUFFIX = ".ledger"


def pinned_name(path):
    """The name of path's copy among the pinned copies: the hex SHA-256
    of the path (bwrun's runtime.PinnedName)."""
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()


def _read_beneath(path, roots):
    """The content of path, a regular file below one of roots, opened
    one component at a time from the root without following a symlink
    (O_NOFOLLOW at each step), at most PIN_MAX_BYTES."""
    root = next(r for r in roots if path.startswith(r + "/"))
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        parts = path[len(root) + 1:].split("/")
        for part in parts[:-1]:
            nfd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = nfd
        ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    finally:
        os.close(fd)
    with os.fdopen(ffd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        data = f.read(PIN_MAX_BYTES + 1)
    if len(data) > PIN_MAX_BYTES:
        raise ValueError("more than %d bytes" % PIN_MAX_BYTES)
    return data


class CompileRefused(RuntimeError):
    """bwpolicy refused the settings: the positioned diagnostics are in
    the message; no command runs."""


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or the sandbox could not be proven with one
    command: no environment is created."""


def hermes_home():
    """HERMES_HOME, else ~/.hermes."""
    hh = os.environ.get("HERMES_HOME")
    return os.path.abspath(os.path.expanduser(hh)) if hh else os.path.join(os.path.expanduser("~"), ".hermes")


def sandbox_id_for(task_id):
    """A safe, unique sandbox ID for a Hermes task id: the task id's safe
    characters (for the reader) and a random suffix (two environments of
    one task never share their directories)."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "-", str(task_id or "default")).lstrip("._-")[:40] or "env"
    return "%s-%s" % (stem, uuid.uuid4().hex[:12])


class Sandbox:
    """The compiled sandbox of one Hermes environment.

    Files: the state directory HERMES_HOME/sandboxes/bwrap-<ID> (writable
    inside the sandbox: Hermes' snapshot and cwd file), the private
    scratch HERMES_HOME/cache/scratch/hermes-bwrap-<ID> (TMPDIR), both
    created by the compile; and HERMES_HOME/sandboxes/bwpolicy-<ID>,
    beside the state directory and hidden from the sandbox, for the
    invocation, the pinned copies of the results shown to its commands
    (exposed/, see pin) and a "tainted" note (see taint).
    """

    def __init__(self, *, sandbox_id, cwd=None, timeout=None, config_file=None, settings=None, env=None):
        if not SANDBOX_ID_RE.match(sandbox_id):
            raise ValueError("unsafe sandbox id %r" % sandbox_id)
        self.id = sandbox_id
        self.cwd = cwd
        self.timeout = timeout
        self.config_file = config_file
        #: settings, when not None, is a standalone settings mapping
        #: (backend_config.compose) compiled instead of config_file.
        self.settings = settings
        self.env = env
        home = hermes_home()
        self.state_dir = os.path.join(home, "sandboxes", "bwrap-" + sandbox_id)
        self.scratch_dir = os.path.join(home, "cache", "scratch", "hermes-bwrap-" + sandbox_id)
        self.private_dir = os.path.join(home, "sandboxes", "bwpolicy-" + sandbox_id)
        self.invocation_path = os.path.join(self.private_dir, "invocation.json")
        #: The copies `bwrun --expose-pinned` shows (see pin): bwrun reads
        #: them from "exposed" beside the invocation, nowhere else.
        self.pinned_dir = os.path.join(self.private_dir, "exposed")
        #: The paths pinned, oldest first (at most MAX_PINNED).
        self.pinned = []
        self.bwpolicy = find_binary("bwpolicy")
        self.bwrun = find_binary("bwrun")
        self.invocation = None
        self.compile_warnings = []
        #: generation counts compiles; a stale run recompiles only when
        #: no other command of this environment already did (the lock).
        self.generation = 0
        self.recompiles = 0
        self._lock = threading.Lock()
        self._pin_lock = threading.Lock()
        #: degraded is why no command can run (bwrap missing), None when
        #: fine.
        self.degraded = None
        #: tainted is why no command may run any more (a bwrun was killed
        #: before its checks finished: taint), None when fine.
        self.tainted = None

    # -- compile ---------------------------------------------------------

    def compile(self):
        """Compile this environment's invocation (bwpolicy compile
        --sandbox-id), atomically replacing the previous one. A refusal
        raises CompileRefused with bwpolicy's positioned diagnostics."""
        if not self.bwpolicy or not self.bwrun:
            raise CompileRefused("bwpolicy and bwrun must be installed (see the plugin's setup instructions)")
        os.makedirs(os.path.dirname(self.private_dir), mode=0o700, exist_ok=True)
        for d in (self.private_dir, self.state_dir):
            try:
                os.mkdir(d, 0o700)
            except FileExistsError:
                pass
            if os.path.islink(d) or not os.path.isdir(d):
                raise CompileRefused("%s is not a plain directory" % d)
        tmp = self.invocation_path + ".tmp-" + uuid.uuid4().hex[:8]
        argv = [self.bwpolicy, "compile", "--sandbox-id", self.id, "-o", tmp]
        if self.cwd:
            argv += ["--cwd", self.cwd]
        config_file = self.config_file
        if self.settings is not None:
            config_file = os.path.join(self.private_dir, "settings.json")
            write_settings(self.settings, config_file)
        if config_file:
            argv += ["--config", config_file]
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=self.env, timeout=60)
        if r.returncode != 0:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            src = (" (the settings of terminal.backends.bwpolicy, written to %s)" % config_file) if self.settings is not None else ""
            raise CompileRefused("bwpolicy refused to compile this environment's sandbox%s (exit %d); no command runs:\n%s"
                                 % (src, r.returncode, r.stderr.strip()))
        with open(tmp, encoding="utf-8") as f:
            inv = json.load(f)
        if inv.get("format") != INVOCATION_FORMAT:
            os.unlink(tmp)
            raise CompileRefused("version skew: bwpolicy wrote invocation format %r, this plugin expects %r; "
                                 "install bwpolicy, bwrun and the plugin from one checkout" % (inv.get("format"), INVOCATION_FORMAT))
        os.replace(tmp, self.invocation_path)
        self.invocation = inv
        self.compile_warnings = [w for w in r.stderr.splitlines() if "warning" in w]
        self.generation += 1
        if not (inv.get("bwrap") or {}).get("path"):
            self.degraded = "bwrap was not found: no command can run until it is installed (%s)" % INSTALL_HINT
        return inv

    def recompile_after_stale(self, seen_generation):
        """Recompile once for every command that found generation
        seen_generation stale: the first one compiles, the others (which
        waited on the lock) find a newer generation and just rerun. Never
        in a tainted sandbox (the compile would take what the killed
        command left for the user's)."""
        with self._lock:
            if self.tainted:
                raise CompileRefused("not recompiled: " + self.tainted)
            if self.generation == seen_generation:
                self.compile()
                self.recompiles += 1

    # -- one command -----------------------------------------------------

    def argv(self, command_argv, *, chdir=None, timeout=None, status_fd=None, nonce=None, expose=()):
        """The argv that runs command_argv in the sandbox: bwrun with the
        status channel (a descriptor and this run's nonce), the command's
        timeout, the tracked directory and the files shown to this run
        (expose_for)."""
        out = [self.bwrun or "bwrun"]
        if status_fd is not None:
            out += ["--status-fd", str(status_fd)]
        if nonce:
            out += ["--nonce", nonce]
        if timeout:
            out += ["--timeout", str(int(max(1, round(float(timeout)))))]
        if chdir:
            out += ["--chdir", str(chdir)]
        for f in expose or ():
            out += ["--expose-pinned", f]
        return out + [self.invocation_path, "--"] + list(command_argv)

    def pin(self, path, *, replace=False):
        """Copy path (a file expose.check accepts) to this environment's
        pinned copies, where `bwrun --expose-pinned path` shows it: what a
        command of this environment reads at path is then this copy, not
        whatever later replaces the file on the host (Hermes names an
        archive by its tool call id alone, and ids repeat between
        sessions). replace: take a new copy even when path is pinned
        (Hermes stored a new result for this environment). Returns None,
        or why path is not pinned (nothing is shown then)."""
        with self._pin_lock:
            if path in self.pinned and not replace:
                return None
            roots = _expose.roots_of(self.invocation)
            why = _expose.check(path, roots) if roots else "the sandbox declares no roots to show files from"
            if why is not None:
                return why
            try:
                data = _read_beneath(path, roots)
            except (OSError, ValueError) as e:
                return "cannot be copied (%s)" % (getattr(e, "strerror", None) or e)
            os.makedirs(self.pinned_dir, mode=0o700, exist_ok=True)
            dst = os.path.join(self.pinned_dir, pinned_name(path))
            tmp = os.path.join(self.pinned_dir, ".tmp-" + uuid.uuid4().hex[:8])
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, dst)
            if path in self.pinned:
                self.pinned.remove(path)
            self.pinned.append(path)
            while len(self.pinned) > MAX_PINNED:
                try:
                    os.unlink(os.path.join(self.pinned_dir, pinned_name(self.pinned.pop(0))))
                except OSError:
                    pass
            return None

    def expose_for(self, command, explicit=None):
        """(files, notes) for one command: Hermes' oversized tool results
        it names or the caller passes (expose.select), checked against the
        expose roots this invocation declares; a path already pinned is
        shown its copy even when the host file is gone since."""
        return _expose.select(command, explicit, _expose.roots_of(self.invocation), pinned=list(self.pinned))

    def run(self, command_argv, *, chdir=None, timeout=None, stdin_data=None, expose=(), notes=(), env=None):
        """Start command_argv through bwrun (with env, else this sandbox's
        environment): a SandboxedProcess (see process.py) whose
        returncode is proven by the status channel."""
        return SandboxedProcess(self, command_argv, chdir=chdir, timeout=timeout, stdin_data=stdin_data,
                                expose=expose, notes=notes, env=env if env is not None else self.env)

    def journaled(self):
        """Whether this environment's bwrun journals its post-command scan
        (the ledger file a run of it left beside the invocation)."""
        return os.path.isfile(self.invocation_path + LEDGER_SUFFIX)

    def after_kill(self, why):
        """A bwrun of this sandbox is about to be killed before its
        post-command checks finished (why). With a journaling bwrun the
        scan stays pending and the next bwrun finishes it first: returns
        the line saying so. Otherwise nothing would finish it: the sandbox
        is tainted (taint) and the line says that."""
        if self.journaled():
            return ("bwrun was killed before its post-command checks finished (%s); its journal keeps the scan "
                    "pending: the next command's bwrun finishes it before anything else runs" % why)
        self.taint(why)
        return "bwrun was killed before its post-command checks finished (%s); this environment runs no more commands" % why

    def taint(self, why):
        """Mark the sandbox: a bwrun had to be killed before its
        post-command checks finished. No command runs and nothing is
        recompiled in it any more (refusal); the mark is also a file in
        the private directory, for whoever looks."""
        with self._lock:
            if self.tainted is None:
                self.tainted = why
        try:
            with open(os.path.join(self.private_dir, "tainted"), "a", encoding="utf-8") as f:
                f.write(why + "\n")
        except OSError:
            pass

    def refusal(self):
        """Why no command may run now (one line), or None."""
        if self.tainted:
            return ("not run: an earlier command of this environment had to be killed before bwrun's post-command "
                    "checks finished (%s), so what it left in the working directory is not trusted; create a new "
                    "environment after reviewing it (git hooks, .envrc, rc files)" % self.tainted)
        if self.degraded:
            return "sandbox unavailable, the command was not run (never unsandboxed): %s" % self.degraded
        return None

    def probe(self, timeout=10.0):
        """Run /bin/true in the sandbox through the same path as every
        command (status channel and nonce), bounded by timeout seconds;
        None when the run is proven to have happened in the sandbox and
        exited 0, else the reason."""
        if self.degraded:
            return self.degraded
        h = self.run(["/bin/true"], timeout=max(1, int(timeout)))
        out, code = run_to_end(h, timeout + 5)
        if h.status is not None and h.status.get("outcome") == "exited" and code == 0:
            return None
        reason = h.reason or (h.status or {}).get("message") or out.strip() or "exit %s" % code
        return "the sandbox probe failed: %s" % one_line(reason)

    def cleanup(self):
        """Remove the state, scratch and private directories (never
        through a symlink)."""
        if getattr(self, "warm", None) is not None:
            self.warm.stop()
        for d in (self.state_dir, self.scratch_dir, self.private_dir):
            if os.path.islink(d):
                os.unlink(d)
            elif os.path.isdir(d):
                shutil.rmtree(d, ignore_errors=True)

