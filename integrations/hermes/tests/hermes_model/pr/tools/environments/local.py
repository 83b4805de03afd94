"""A model of LocalEnvironment as Hermes Agent's bubblewrap pull request
changes it, written for these tests from reading that branch's
tools/environments/local.py (not copied from it): the same as main line
(see ../../../mainline/tools/environments/local.py) except that
_run_bash passes its argv through self._wrap_popen_args(args) before
Popen, the hook the PR adds for its bubblewrap backend. Every Popen it
makes, and every call of the hook, is recorded (SPAWNED, WRAPPED)."""

import os
import signal

from tools.environments.base import BaseEnvironment, _popen

SPAWNED = []
WRAPPED = []


class LocalEnvironment(BaseEnvironment):
    is_local = True

    def __init__(self, cwd="", timeout=60, env=None):
        if cwd:
            cwd = os.path.expanduser(cwd)
        super().__init__(cwd=cwd or os.getcwd(), timeout=timeout, env=env)
        self.init_session()

    def get_temp_dir(self):
        for var in ("TMPDIR", "TMP", "TEMP"):
            v = self.env.get(var) or os.environ.get(var)
            if v and v.startswith("/"):
                return v.rstrip("/") or "/"
        return "/tmp"

    def _wrap_popen_args(self, args):
        WRAPPED.append(list(args))
        return args

    def _run_bash(self, cmd_string, *, login=False, timeout=120, stdin_data=None):
        args = ["/bin/bash", "-l", "-c", cmd_string] if login else ["/bin/bash", "-c", cmd_string]
        args = self._wrap_popen_args(args)
        SPAWNED.append(list(args))
        return _popen(args, dict(os.environ, **self.env), self.cwd, stdin_data)

    def _kill_process(self, proc):
        try:
            os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            try:
                proc.kill()
            except Exception:
                pass

    def cleanup(self):
        for p in (self._snapshot_path, self._cwd_file):
            try:
                os.unlink(p)
            except OSError:
                pass
