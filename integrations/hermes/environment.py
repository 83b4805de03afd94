"""The environment objects create_environment returns.

With Hermes' LocalEnvironment importable, BwpolicyEnvironment subclasses
it and overrides only its seams: _wrap_popen_args (the bash argv runs
through bwrun), get_temp_dir (the state directory, writable inside the
sandbox, holds Hermes' snapshot and cwd file), execute (the status
channel around Hermes' own execute) and cleanup. cwd tracking, snapshots
and timeouts stay Hermes'. Without it, StandaloneEnvironment is
self-contained: execute(command, cwd=None, timeout=None) and cleanup().
"""

import os
import shlex
import subprocess
import threading

try:  # Hermes Agent's local backend, when the plugin runs inside Hermes
    from tools.environments.local import LocalEnvironment as _LocalEnvironment
except ImportError:  # pragma: no cover - exercised by the standalone tests
    _LocalEnvironment = None

#: The shell each command runs in (a POSIX shell with -c: bwrun removes
#: the agent-socket variables again after its rc files).
SHELL = "/bin/bash"


class StandaloneEnvironment:
    """A self-contained environment: each execute() runs
    `bwrun … -- /bin/bash -c COMMAND` in the tracked directory, which an
    EXIT trap records in the state directory so a `cd` persists."""

    def __init__(self, sandbox, *, cwd=None, timeout=None, env=None):
        self._sandbox = sandbox
        self.cwd = (sandbox.invocation or {}).get("chdir") or cwd or os.getcwd()
        self.timeout = timeout
        self.env = env
        self._tls = threading.local()
        self._cwd_file = os.path.join(sandbox.state_dir, "cwd")

    def get_temp_dir(self):
        return self._sandbox.state_dir

    def execute(self, command, cwd=None, timeout=None, expose=None, **kwargs):
        """Run command; expose: more files below the invocation's expose
        roots to show it (besides those it names; see expose.py)."""
        timeout = timeout or self.timeout
        start = cwd or self.cwd
        trap = "trap '__bwp=$?; pwd -P >%s 2>/dev/null; exit $__bwp' EXIT\n" % shlex.quote(self._cwd_file)
        files, notes = self._sandbox.expose_for(command, expose)

        def attempt():
            argv = self._sandbox.argv([SHELL, "-c", trap + command], chdir=start, timeout=timeout,
                                      status_file=self._tls.status_file, expose=files)
            try:
                r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   env=self.env, timeout=(timeout + 30) if timeout else None)
            except subprocess.TimeoutExpired as e:
                out = e.stdout or b""
                return {"output": out.decode("utf-8", "replace"), "exit_code": 124}
            return {"output": r.stdout.decode("utf-8", "replace"), "exit_code": r.returncode}

        result = self._sandbox.run(attempt, self._tls, notes)
        self._track_cwd()
        return result

    def _track_cwd(self):
        # The file is written inside the sandbox: only an absolute path
        # to an existing directory is taken; bwrun judges it again.
        try:
            with open(self._cwd_file, encoding="utf-8", errors="replace") as f:
                d = f.read(4096).strip()
        except OSError:
            return
        if d.startswith("/") and "\n" not in d and os.path.isdir(d):
            self.cwd = d

    def cleanup(self):
        self._sandbox.cleanup()


if _LocalEnvironment is not None:

    class BwpolicyEnvironment(_LocalEnvironment):
        """Hermes' LocalEnvironment with every spawn wrapped in bwrun."""

        def __init__(self, sandbox, *, cwd=None, timeout=None, env=None):
            # Set before LocalEnvironment.__init__, which runs the login
            # bootstrap (through _wrap_popen_args) straight away.
            self._sandbox = sandbox
            self._tls = threading.local()
            start = (sandbox.invocation or {}).get("chdir") or cwd
            super().__init__(cwd=start, timeout=timeout, env=env)

        def get_temp_dir(self):
            return self._sandbox.state_dir

        def _wrap_popen_args(self, args):
            status = getattr(self._tls, "status_file", None)
            if status is None:
                # A spawn outside execute() (the login bootstrap): it
                # still reports, into a file nobody waits for.
                status = self._sandbox.new_status_file()
                self._tls.stray = getattr(self._tls, "stray", []) + [status]
            timeout = getattr(self._tls, "timeout", None) or self.timeout
            return self._sandbox.argv(list(args), chdir=self.cwd, timeout=timeout, status_file=status,
                                      expose=getattr(self._tls, "expose", None))

        def execute(self, command, cwd=None, timeout=None, expose=None, **kwargs):
            """Hermes' execute, each spawn through bwrun; expose: more files
            below the invocation's expose roots to show the command
            (besides those it names; see expose.py)."""
            self._tls.timeout = timeout
            files, notes = self._sandbox.expose_for(command, expose)
            self._tls.expose = files
            sup = super()
            try:
                return self._sandbox.run(lambda: sup.execute(command, cwd=cwd, timeout=timeout, **kwargs), self._tls, notes)
            finally:
                self._tls.timeout = None
                self._tls.expose = None
                for p in getattr(self._tls, "stray", []):
                    self._sandbox.read_status(p)
                self._tls.stray = []

        def cleanup(self):
            try:
                super().cleanup()
            finally:
                self._sandbox.cleanup()

else:
    BwpolicyEnvironment = None


def make_environment(sandbox, *, cwd=None, timeout=None, env=None):
    """Hermes' LocalEnvironment subclass when importable, else the
    standalone environment."""
    cls = BwpolicyEnvironment or StandaloneEnvironment
    return cls(sandbox, cwd=cwd, timeout=timeout, env=env)
