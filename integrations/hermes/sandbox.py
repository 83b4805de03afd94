"""One environment's sandbox: its compiled invocation, the bwrun argv of
each command, the status channel, the stale → recompile-once loop and the
degraded result. Standard library only."""

import json
import os
import re
import shutil
import subprocess
import threading
import uuid

from . import expose as _expose
from .versions import INVOCATION_FORMAT, find_binary

#: A sandbox ID, as `bwpolicy compile --sandbox-id` accepts it.
SANDBOX_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

#: What output lines the plugin adds start with.
TAG = "[bwpolicy]"

#: bwrun's exit status for a sandbox that could not be set up.
SETUP_FAILED = 125

INSTALL_HINT = "apt install bubblewrap | dnf install bubblewrap | pacman -S bubblewrap"


class CompileRefused(RuntimeError):
    """bwpolicy refused the settings: the positioned diagnostics are in
    the message; no command runs."""


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or the probe failed, under degraded_mode: fail."""


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


def one_line(text):
    """Text squeezed to one line, bounded."""
    s = " ".join(str(text).split())
    return s if len(s) <= 500 else s[:497] + "..."


class Sandbox:
    """The compiled sandbox of one Hermes environment.

    Files: the state directory HERMES_HOME/sandboxes/bwrap-<ID> (writable
    inside the sandbox: Hermes' snapshot and cwd file), the private
    scratch HERMES_HOME/cache/scratch/hermes-bwrap-<ID> (TMPDIR), both
    created by the compile; and HERMES_HOME/sandboxes/bwpolicy-<ID>,
    beside the state directory and hidden from the sandbox, for the
    invocation and the status files.
    """

    def __init__(self, *, sandbox_id, cwd=None, timeout=None, config_file=None, env=None):
        if not SANDBOX_ID_RE.match(sandbox_id):
            raise ValueError("unsafe sandbox id %r" % sandbox_id)
        self.id = sandbox_id
        self.cwd = cwd
        self.timeout = timeout
        self.config_file = config_file
        self.env = env
        home = hermes_home()
        self.state_dir = os.path.join(home, "sandboxes", "bwrap-" + sandbox_id)
        self.scratch_dir = os.path.join(home, "cache", "scratch", "hermes-bwrap-" + sandbox_id)
        self.private_dir = os.path.join(home, "sandboxes", "bwpolicy-" + sandbox_id)
        self.invocation_path = os.path.join(self.private_dir, "invocation.json")
        self.bwpolicy = find_binary("bwpolicy")
        self.bwrun = find_binary("bwrun")
        self.invocation = None
        self.compile_warnings = []
        #: generation counts compiles; a stale run recompiles only when
        #: no other command of this environment already did (the lock).
        self.generation = 0
        self.recompiles = 0
        self._lock = threading.Lock()
        #: degraded is the reason commands cannot run (bwrap missing, the
        #: probe failing) under degraded_mode: warn; None when fine.
        self.degraded = None

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
        if self.config_file:
            argv += ["--config", self.config_file]
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=self.env, timeout=60)
        if r.returncode != 0:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise CompileRefused("bwpolicy refused to compile this environment's sandbox (exit %d); no command runs:\n%s"
                                 % (r.returncode, r.stderr.strip()))
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

    @property
    def degraded_mode(self):
        return ((self.invocation or {}).get("degraded_mode") or "warn")

    def recompile_after_stale(self, seen_generation):
        """Recompile once for every command that found generation
        seen_generation stale: the first one compiles, the others (which
        waited on the lock) find a newer generation and just rerun."""
        with self._lock:
            if self.generation == seen_generation:
                self.compile()
                self.recompiles += 1

    # -- one command -----------------------------------------------------

    def new_status_file(self):
        return os.path.join(self.private_dir, "status-%s.json" % uuid.uuid4().hex)

    def argv(self, command_argv, *, chdir=None, timeout=None, status_file=None, expose=()):
        """The argv that runs command_argv in the sandbox: bwrun with the
        status channel, terminal.timeout, the tracked directory and the
        files shown to this run (expose_for)."""
        out = [self.bwrun or "bwrun"]
        if status_file:
            out += ["--status-file", status_file]
        if timeout:
            out += ["--timeout", str(int(max(1, round(float(timeout)))))]
        if chdir:
            out += ["--chdir", str(chdir)]
        for f in expose or ():
            out += ["--expose", f]
        return out + [self.invocation_path, "--"] + list(command_argv)

    def expose_for(self, command, explicit=None):
        """(files, notes) for one command: Hermes' oversized tool results
        it names or the caller passes (expose.select), checked against the
        expose roots this invocation declares."""
        return _expose.select(command, explicit, _expose.roots_of(self.invocation))

    @staticmethod
    def read_status(path):
        """The status object bwrun wrote to path (removed), or None."""
        try:
            with open(path, "rb") as f:
                data = f.read(1 << 20)
        except OSError:
            return None
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
        try:
            st = json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            return None
        return st if isinstance(st, dict) else None

    def run(self, attempt, tls, notes=()):
        """Run one command: attempt() runs it once (its argv built with
        tls.status_file) and returns {"output", "exit_code"}. A run bwrun
        reports stale through the status channel (never exit 125 alone)
        recompiles once and runs again; then notes (files not exposed)
        and the status's warnings and set-aside entries are appended to
        the output, one line each."""
        if self.degraded:
            return self.degraded_result()
        seen = self.generation
        status = None
        for n in range(2):
            tls.status_file = self.new_status_file()
            try:
                result = attempt()
            finally:
                status = self.read_status(tls.status_file)
                tls.status_file = None
            if n == 0 and status is not None and status.get("outcome") == "stale":
                try:
                    self.recompile_after_stale(seen)
                except CompileRefused as e:
                    return {"output": "%s the host changed and the recompile was refused: %s" % (TAG, e), "exit_code": SETUP_FAILED}
                seen = self.generation
                continue
            break
        return self.decorate(result, status, notes)

    def decorate(self, result, status, notes=()):
        result = dict(result)
        lines = ["%s %s" % (TAG, one_line(n)) for n in notes]
        if status is None:
            if result.get("exit_code") == SETUP_FAILED:
                lines.append("%s exit 125 without a status report: the command's own status, or bwrun failed before reporting" % TAG)
        else:
            outcome = status.get("outcome")
            msg = one_line(status.get("message") or "")
            if outcome == "stale":
                lines.append("%s the sandbox is still stale after recompiling once: %s" % (TAG, msg))
            elif outcome == "setup-failed":
                lines.append("%s the sandbox could not be set up (the command did not run): %s" % (TAG, msg))
            elif outcome == "timeout":
                lines.append("%s the command timed out%s" % (TAG, (": " + msg) if msg else ""))
            for e in status.get("set_aside") or []:
                lines.append("%s set aside: %s" % (TAG, one_line(_describe(e))))
            for w in status.get("warnings") or []:
                lines.append("%s warning: %s" % (TAG, one_line(_describe(w))))
            if isinstance(status.get("exit_status"), int) and outcome in ("exited", "signaled", "timeout"):
                result["exit_code"] = status["exit_status"]
        if lines:
            out = result.get("output") or ""
            if out and not out.endswith("\n"):
                out += "\n"
            result["output"] = out + "\n".join(lines)
        return result

    def degraded_result(self):
        return {"output": "%s sandbox unavailable, the command was not run (never unsandboxed): %s" % (TAG, self.degraded),
                "exit_code": SETUP_FAILED}

    def probe(self, timeout=10.0):
        """Run /bin/true in the sandbox (bounded by timeout seconds); None
        when it works, else the reason."""
        if self.degraded:
            return self.degraded
        sf = self.new_status_file()
        try:
            r = subprocess.run(self.argv(["/bin/true"], status_file=sf), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, env=self.env, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.read_status(sf)
            return "the sandbox probe took longer than %.0f s" % timeout
        st = self.read_status(sf)
        if r.returncode == 0:
            return None
        reason = (st or {}).get("message") or r.stderr.strip() or "exit %d" % r.returncode
        return "the sandbox probe failed: %s" % one_line(reason)

    def check_degraded(self):
        """After the first compile: bwrap missing or the probe failing is
        the degraded result under degraded_mode: warn, an error under
        fail. A command never runs unsandboxed either way."""
        reason = self.degraded or self.probe()
        if reason is None:
            return
        if self.degraded_mode == "fail":
            raise SandboxUnavailable("%s (degraded_mode: fail)" % reason)
        self.degraded = reason

    def cleanup(self):
        """Remove the state, scratch and private directories (never
        through a symlink)."""
        for d in (self.state_dir, self.scratch_dir, self.private_dir):
            if os.path.islink(d):
                os.unlink(d)
            elif os.path.isdir(d):
                shutil.rmtree(d, ignore_errors=True)


def _describe(item):
    if isinstance(item, dict):
        for k in ("message", "path"):
            if item.get(k):
                return item[k] if k == "message" else "%s%s" % (item["path"], (" → " + item["to"]) if item.get("to") else "")
        return json.dumps(item, sort_keys=True)
    return str(item)
