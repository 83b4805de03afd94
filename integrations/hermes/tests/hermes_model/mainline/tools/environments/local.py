"""A model of main-line Hermes Agent's LocalEnvironment, written for
these tests from reading NousResearch/hermes-agent
tools/environments/local.py (not copied from it): __init__ expands cwd,
calls BaseEnvironment.__init__ and init_session(); get_temp_dir (TMPDIR,
TMP, TEMP, else /tmp); _run_bash builds [bash, -l?, -c, script] and calls
subprocess.Popen(args, ...) DIRECTLY — main line has no
_wrap_popen_args hook — in a new session (os.setsid), stdin piped when
stdin_data is given; _kill_process signals the process group;
_update_cwd reads the marker. Every Popen it makes is recorded in
SPAWNED (the argv), for the tests."""

import os
import signal

from tools.environments.base import BaseEnvironment, _popen

SPAWNED = []


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

    def _run_bash(self, cmd_string, *, login=False, timeout=120, stdin_data=None):
        args = ["/bin/bash", "-l", "-c", cmd_string] if login else ["/bin/bash", "-c", cmd_string]
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
