"""The environment objects create_environment returns.

Every backend of Hermes implements one seam: BaseEnvironment._run_bash
(tools/environments/base.py) spawns `bash -c SCRIPT` and returns a
process handle; BaseEnvironment.execute wraps the command (session
snapshot, cd, cwd marker), calls _run_bash, waits on the handle
(_wait_for_process: drain, poll, deadline, _kill_process) and reads the
new working directory (_update_cwd). With Hermes' BaseEnvironment
importable, BwpolicyEnvironment subclasses it, not LocalEnvironment, and
implements that seam itself: _run_bash starts bwrun (process.py) — so it
depends on no hook LocalEnvironment may or may not have
(_wrap_popen_args exists only on Hermes' bubblewrap pull request), and
nothing is wrapped twice where it exists. It also overrides
get_temp_dir (the state directory, writable inside the sandbox and kept
between commands: Hermes' snapshot, execute_code's scripts and
background logs live there), _kill_process (process.py's kill: bwrun's
checks are never cut short), _update_cwd (a directory the sandbox does
not show falls back to the initial one), execute (results carry
returncode and exit_code; the expose keyword) and cleanup.

Without Hermes, StandaloneEnvironment offers the same execute(command,
cwd=None, timeout=None, stdin_data=None, expose=None) and cleanup()
through the same SandboxedProcess.
"""

import os
import shlex
import threading
import uuid

from .cwdcheck import not_visible, within
from .process import TAG, run_to_end

try:  # Hermes Agent's base environment, when the plugin runs inside Hermes
    from tools.environments.base import BaseEnvironment as _BaseEnvironment
except ImportError:  # standalone use
    _BaseEnvironment = None

#: The shell each command runs in.
BASH = "/bin/bash"


class _Common:
    """What both environments share: the sandbox, the expose keyword, the
    working directory check, the proof lines."""

    def _setup(self, sandbox, extra_env):
        self._sandbox = sandbox
        # Files execute(..., expose=[...]) asks to show, by command text:
        # Hermes may call _run_bash on another thread than execute.
        self._explicit = []
        self._explicit_lock = threading.Lock()
        self._initial_cwd = (sandbox.invocation or {}).get("chdir") or os.getcwd()
        self._extra_env = {k: str(v) for k, v in (extra_env or {}).items()}

    def get_temp_dir(self):
        return self._sandbox.state_dir

    def _checked_cwd(self, d, lines):
        """d when the sandbox shows it, else the initial directory (and one
        line in lines saying so)."""
        if not d or d == self._initial_cwd:
            return d or self._initial_cwd
        why = not_visible(self._sandbox.invocation or {}, d)
        if why is None:
            return d
        lines.append("%s the working directory %s is not usable in the sandbox (%s); back to %s"
                     % (TAG, d, why, self._initial_cwd))
        return self._initial_cwd

    def _start_dir(self):
        """The --chdir for bwrun: the tracked directory when it lies in
        the sandbox's writable set, else None (bwrun starts in the
        compiled one). The script cds to the tracked directory itself
        either way; bwrun would note a read-only start directory on the
        command's stderr at every command (inside `cat`'s output, for
        Hermes' file tools)."""
        writable = (self._sandbox.invocation or {}).get("writable") or []
        if any(within(self.cwd, w) for w in writable if isinstance(w, str) and w.startswith("/")):
            return self.cwd
        return None

    def expose_spillover_file(self, path):
        """Hermes' hook (tools.tool_result_storage calls it on the host
        when it hands the model the path of an oversized result stored
        for this environment): pin a copy of the file now, so the
        commands of this environment that name path read this result,
        whatever another session later writes under the same name (tool
        call ids repeat between sessions). Returns whether it is pinned;
        a command that names it is shown the copy (bwrun
        --expose-pinned)."""
        return self._sandbox.pin(os.fspath(path), replace=True) is None

    def _asked(self, command, expose):
        """Record the files execute() was asked to show command."""
        if expose:
            with self._explicit_lock:
                self._explicit.append((command, expose))

    def _done(self, command, expose):
        if expose:
            with self._explicit_lock:
                if (command, expose) in self._explicit:
                    self._explicit.remove((command, expose))

    def _spawn(self, script, argv, timeout, stdin_data):
        """Start argv (whose script is script) through bwrun, showing it
        the spilled results script names and those execute() was asked
        to show a command script contains."""
        with self._explicit_lock:
            explicit = [p for c, e in self._explicit if c in script or c.replace("'", "'\\''") in script or shlex.quote(c) in script
                        for p in ([e] if isinstance(e, (str, os.PathLike)) else list(e))]
        files, notes = self._sandbox.expose_for(script, explicit)
        shown = []
        for f in files:
            # Pinned at its first showing when Hermes did not store it
            # through expose_spillover_file: from then on this
            # environment reads that copy.
            why = self._sandbox.pin(f)
            if why is None:
                shown.append(f)
            else:
                notes.append("not shown to the command: %s: %s" % (f[:300], why))
        files = shown
        return self._sandbox.run(argv, chdir=self._start_dir(), timeout=timeout, stdin_data=stdin_data,
                                 expose=files, notes=notes, env=dict(os.environ, **self._extra_env))


def _with_exit_code(result, lines=()):
    result = dict(result)
    if lines:
        out = result.get("output") or ""
        if out and not out.endswith("\n"):
            out += "\n"
        result["output"] = out + "\n".join(lines)
    result["exit_code"] = result.get("returncode")
    return result


if _BaseEnvironment is not None:

    class BwpolicyEnvironment(_Common, _BaseEnvironment):
        """A Hermes BaseEnvironment whose every spawn is bwrun's."""

        def __init__(self, sandbox, *, cwd=None, timeout=None, env=None):
            self._setup(sandbox, env)
            super().__init__(cwd=self._initial_cwd, timeout=timeout or 180, env=env)
            self.init_session()

        # -- the seam ------------------------------------------------------

        def _run_bash(self, cmd_string, *, login=False, timeout=120, stdin_data=None):
            argv = [BASH, "-l", "-c", cmd_string] if login else [BASH, "-c", cmd_string]
            return self._spawn(cmd_string, argv, timeout, stdin_data)

        def _kill_process(self, proc):
            proc.kill()

        def _update_cwd(self, result):
            self._extract_cwd_from_output(result)
            lines = []
            self.cwd = self._checked_cwd(self.cwd, lines)
            if lines:
                out = result.get("output") or ""
                result["output"] = out + ("\n" if out and not out.endswith("\n") else "") + "\n".join(lines)
            if "cwd" in result:
                result["cwd"] = self.cwd

        # -- the public contract ------------------------------------------

        def execute(self, command, cwd="", *, expose=None, **kwargs):
            """Hermes' execute, each spawn through bwrun; expose: more
            files below the invocation's expose roots to show the command
            (besides those it names; see expose.py). The result carries
            returncode and exit_code (the same value)."""
            lines = []
            self.cwd = self._checked_cwd(self.cwd, lines)
            if cwd:
                cwd = self._checked_cwd(cwd, lines)
            self._asked(command, expose)
            try:
                result = super().execute(command, cwd, **kwargs)
            finally:
                self._done(command, expose)
            return _with_exit_code(result, lines)

        def cleanup(self):
            sandbox = getattr(self, "_sandbox", None)
            if sandbox is not None:
                sandbox.cleanup()

else:
    BwpolicyEnvironment = None


class StandaloneEnvironment(_Common):
    """A self-contained environment: each execute() runs `bwrun … --
    /bin/bash -c SCRIPT` in the tracked directory; SCRIPT cds, runs the
    command and prints the directory it ended in between two markers, so
    a `cd` persists."""

    def __init__(self, sandbox, *, cwd=None, timeout=None, env=None):
        self._setup(sandbox, env)
        self.cwd = self._initial_cwd
        self.timeout = timeout or 180
        self.env = env or {}
        self._marker = "__BWPOLICY_CWD_%s__" % uuid.uuid4().hex[:12]

    def execute(self, command, cwd=None, timeout=None, stdin_data=None, expose=None, **kwargs):
        """Run command; returns {"output", "returncode", "exit_code"}."""
        timeout = timeout or self.timeout
        lines = []
        self.cwd = self._checked_cwd(self.cwd, lines)
        start = self._checked_cwd(cwd, lines) if cwd else self.cwd
        script = "builtin cd -- %s || exit 126\neval %s\n__bwp=$?\nprintf '\\n%s%%s%s\\n' \"$(pwd -P)\"\nexit $__bwp" % (
            shlex.quote(start), shlex.quote(command), self._marker, self._marker)
        self._asked(command, expose)
        try:
            h = self._spawn(script, [BASH, "-c", script], timeout, stdin_data)
        finally:
            self._done(command, expose)
        out, code = run_to_end(h, timeout)
        out = self._take_cwd(out, lines)
        return _with_exit_code({"output": out, "returncode": code}, lines)

    def _take_cwd(self, out, lines):
        last = out.rfind(self._marker)
        first = out.rfind(self._marker, 0, last) if last > 0 else -1
        if first < 0:
            return out
        d = out[first + len(self._marker):last]
        line_start = out.rfind("\n", 0, first)
        line_end = out.find("\n", last)
        out = out[:max(line_start, 0)] + (out[line_end + 1:] if line_end >= 0 else "")
        if d.startswith("/") and "\n" not in d:
            self.cwd = self._checked_cwd(d, lines)
        return out

    def cleanup(self):
        self._sandbox.cleanup()


def make_environment(sandbox, *, cwd=None, timeout=None, env=None):
    """Hermes' BaseEnvironment subclass when importable, else the
    standalone environment."""
    cls = BwpolicyEnvironment or StandaloneEnvironment
    return cls(sandbox, cwd=cwd, timeout=timeout, env=env)
