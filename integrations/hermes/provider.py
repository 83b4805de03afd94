"""The bwpolicy terminal environment provider."""

import json
import logging
import os
import shutil
import subprocess

from .config_schema import config_schema
from .environment import make_environment
from .sandbox import CompileRefused, Sandbox, SandboxUnavailable, sandbox_id_for, INSTALL_HINT
from .versions import find_binary

try:  # Hermes Agent's provider base class, when running inside Hermes
    from agent.terminal_env_provider import TerminalEnvironmentProvider as _Base
except ImportError:  # pragma: no cover - standalone use and tests without the stand-in
    _Base = object

logger = logging.getLogger(__name__)

#: What the model is told in its system prompt: what the sandbox covers
#: and, above all, what it does not.
SYSTEM_PROMPT = """\
Terminal sandbox (bwpolicy): every terminal and execute_code command runs in \
its own bubblewrap sandbox on this machine. The host filesystem is readable \
and read-only except the working directory (and, under the restricted profile, \
that too is read-only); credentials (~/.ssh, ~/.aws, ~/.gnupg, the Hermes home, \
...) are hidden; /tmp is fresh for every command and $TMPDIR is this \
environment's own scratch directory; background processes die when the command \
ends; the network is off unless the profile is network. Not covered: Hermes' \
file tools (read_file, write_file, patch, search_files) run on the host, \
outside the sandbox, with Hermes' normal approval rules. A line starting with \
[bwpolicy] in a command's output comes from the sandbox, not from the command."""


class BwpolicyProvider(_Base):
    """Hermes terminal backend `bwpolicy`: commands run through bwrun in
    an invocation bwpolicy compiled for the environment."""

    name = "bwpolicy"
    display_name = "bwpolicy (compiled bubblewrap sandbox)"
    # Commands run on this host, at host paths: Hermes keeps its
    # dangerous-command approval.
    is_remote = False
    is_container = False
    skip_container_guards = False

    def __init__(self, skew=None):
        self.skew = skew

    @property
    def description(self):
        return ("Run each command in a bubblewrap sandbox compiled by bwpolicy: host read-only, the "
                "working directory writable, credentials hidden, limits and a seccomp filter set.")

    @property
    def env_description(self):
        return SYSTEM_PROMPT

    # -- availability ----------------------------------------------------

    def _problems(self):
        out = []
        if self.skew:
            out.append(self.skew)
        for b in ("bwpolicy", "bwrun"):
            if not find_binary(b):
                out.append("%s not found on PATH (or in $BWPOLICY_BIN_DIR)" % b)
        if not (os.environ.get("BWPOLICY_BWRAP") or shutil.which("bwrap")):
            out.append("bwrap not found: %s" % INSTALL_HINT)
        return out

    def is_available(self):
        """bwpolicy, bwrun and bwrap found, no version skew (cheap: no
        process is started)."""
        return not self._problems()

    def check_requirements(self, config=None):
        """(ok, message): what is missing, with the fix."""
        problems = self._problems()
        return (not problems, "; ".join(problems) if problems else "bwpolicy, bwrun and bwrap found")

    def _doctor(self, timeout):
        bwpolicy = find_binary("bwpolicy")
        if not bwpolicy:
            return None, "bwpolicy not found"
        try:
            r = subprocess.run([bwpolicy, "doctor", "--format", "json"], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=timeout)
            return json.loads(r.stdout), None
        except subprocess.TimeoutExpired:
            return None, "bwpolicy doctor took longer than %.0f s" % timeout
        except (OSError, ValueError) as e:
            return None, "bwpolicy doctor failed: %s" % e

    def probe(self):
        """{"ok", "detail"} from `bwpolicy doctor` (a real sandbox probe),
        bounded to 2 s."""
        if self.skew:
            return {"ok": False, "detail": self.skew}
        report, err = self._doctor(2.0)
        if err:
            return {"ok": False, "detail": err}
        failed = [c for c in report.get("checks", []) if not c.get("ok")]
        if report.get("ok"):
            return {"ok": True, "detail": "bwrap %s: sandbox probe passed" % ((report.get("bwrap") or {}).get("version") or "?")}
        return {"ok": False, "detail": "; ".join("%s: %s" % (c.get("name"), c.get("detail")) for c in failed)}

    def doctor_checks(self):
        """Rows for `hermes doctor`: one per check of `bwpolicy doctor`."""
        rows = []
        if self.skew:
            rows.append({"name": "bwpolicy version", "ok": False, "detail": self.skew})
        report, err = self._doctor(10.0)
        if err:
            return rows + [{"name": "bwpolicy doctor", "ok": False, "detail": err}]
        for c in report.get("checks", []):
            row = {"name": c.get("name", "?"), "ok": bool(c.get("ok")), "detail": c.get("detail", "")}
            if c.get("fix"):
                row["fix"] = c["fix"]
            rows.append(row)
        return rows

    def setup_instructions(self):
        return ("Install bubblewrap (%s), build bwpolicy and bwrun (`make build` in the bwpolicy checkout; put "
                "bin/ on PATH), then: hermes plugins install <path or repository of integrations/hermes>; "
                "hermes config set terminal.backend bwpolicy; settings under plugins.entries.bwpolicy.settings "
                "(`bwpolicy check ~/.hermes/config.yaml` lints them)." % INSTALL_HINT)

    def get_config_schema(self):
        return config_schema()

    # -- environments ----------------------------------------------------

    def create_environment(self, *, cwd=None, timeout=None, task_id="default", env=None, **kwargs):
        """Compile this environment's sandbox (its own state and scratch
        directories) and return the environment. Unknown keyword
        arguments are accepted and ignored (Hermes' forward-compatible
        contract). A refusal raises with bwpolicy's positioned
        diagnostics; no command runs."""
        if self.skew:
            raise RuntimeError("bwpolicy backend: %s" % self.skew)
        sandbox = Sandbox(sandbox_id=sandbox_id_for(task_id), cwd=cwd, timeout=timeout,
                          config_file=kwargs.get("bwpolicy_config"), env=env)
        try:
            sandbox.compile()
            for w in sandbox.compile_warnings:
                logger.warning("bwpolicy: %s", w)
            sandbox.check_degraded()
        except (CompileRefused, SandboxUnavailable):
            sandbox.cleanup()
            raise
        if sandbox.degraded:
            logger.warning("bwpolicy: degraded, no command will run: %s", sandbox.degraded)
        try:
            return make_environment(sandbox, cwd=cwd, timeout=timeout, env=env)
        except Exception:
            sandbox.cleanup()
            raise
