"""Stand-in for Hermes Agent's tools.environments.local.LocalEnvironment,
written from its documented contract: the constructor runs a login
bootstrap at once; every spawn is Popen(self._wrap_popen_args([bash, -c,
script])); the script records the working directory in a file under
get_temp_dir() so a `cd` persists; execute(command, cwd=None,
timeout=None) returns {"output", "exit_code"}; cleanup() removes its
files."""

import os
import shlex
import subprocess
import uuid

BASH = "/bin/bash"


class LocalEnvironment:
    def __init__(self, cwd="", timeout=60, env=None):
        self.cwd = cwd or os.getcwd()
        self.timeout = timeout
        self.env = env
        self._session = uuid.uuid4().hex[:8]
        self.bootstrap = self._run_bash("true")  # the login bootstrap

    def get_temp_dir(self):
        return "/tmp"

    def _wrap_popen_args(self, args):
        return args

    def _cwd_file(self):
        return os.path.join(self.get_temp_dir(), "hermes-cwd-%s.txt" % self._session)

    def _run_bash(self, script, timeout=None):
        wrapped = "%s\n__rc=$?; pwd -P >%s 2>/dev/null; exit $__rc" % (script, shlex.quote(self._cwd_file()))
        args = self._wrap_popen_args([BASH, "-c", wrapped])
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=self.env, cwd=None)
        try:
            out, _ = p.communicate(timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            return {"output": out.decode("utf-8", "replace") + "\n[Command timed out]", "exit_code": 124}
        return {"output": out.decode("utf-8", "replace"), "exit_code": p.returncode}

    def execute(self, command, cwd=None, timeout=None, **kwargs):
        if cwd:
            self.cwd = cwd
        result = self._run_bash(command, timeout=timeout)
        try:
            with open(self._cwd_file()) as f:
                d = f.read().strip()
            if d:
                self.cwd = d
        except OSError:
            pass
        return result

    def cleanup(self):
        try:
            os.unlink(self._cwd_file())
        except OSError:
            pass
