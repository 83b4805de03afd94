"""The bwpolicy terminal environment provider: Hermes' provider contract
(agent/terminal_env_provider.py, TerminalEnvironmentProvider) with the
types it defines: check_requirements(config) -> bool; probe() and
probe_with_config(config) -> (status, detail), status one of ready,
needs_setup, unavailable; setup_instructions() -> list[str];
doctor_checks() -> list[(ok, label, detail)]; get_config_schema() and
resolve_config(config) -> dict; create_environment(...) -> a
BaseEnvironment duck type; the classification properties."""

import json
import logging
import os
import shutil
import subprocess

from . import backend_config as _bc
from . import warm as _warm
from .config_schema import config_schema
from .environment import make_environment
from .sandbox import CompileRefused, Sandbox, SandboxUnavailable, sandbox_id_for, INSTALL_HINT
from .versions import find_binary

try:  # Hermes Agent's provider base class, when running inside Hermes
    from agent.terminal_env_provider import TerminalEnvironmentProvider as _Base
except ImportError:  # standalone use
    _Base = object

logger = logging.getLogger(__name__)

#: Probe statuses (TerminalEnvironmentProvider.probe).
READY, NEEDS_SETUP, UNAVAILABLE = "ready", "needs_setup", "unavailable"

#: bwpolicy doctor checks without which no sandbox runs; any other
#: failing check is a degraded feature (detail, not a status).
ESSENTIAL_CHECKS = ("bwrap", "sandbox-probe")

#: What the model is told in its system prompt: what the sandbox covers
#: and, above all, what it does not.
SYSTEM_PROMPT = """\
Terminal sandbox (bwpolicy): every terminal command, background process, \
execute_code script and file tool operation (read_file, write_file, patch, \
search_files: Hermes runs them as shell commands on this backend) runs in its \
own bubblewrap sandbox on this machine. The host filesystem is readable and \
read-only except the working directory (and, under the restricted profile, \
that too is read-only); credentials (~/.ssh, ~/.aws, ~/.gnupg, the Hermes \
home, ...) are hidden; /tmp is fresh for every command and $TMPDIR is this \
environment's own scratch directory; processes a command starts, background \
ones included, end when the command ends; the network is off unless the \
profile is network. A line starting with [bwpolicy] in a command's output \
comes from the sandbox, not from the command."""


class BwpolicyProvider(_Base):
    """Hermes terminal backend `bwpolicy`: commands run through bwrun in
    an invocation bwpolicy compiled for the environment."""

    name = "bwpolicy"
    display_name = "bwpolicy (compiled bubblewrap sandbox)"
    # Commands run on this host, at host paths: Hermes keeps its
    # dangerous-command approval and host path handling.
    is_remote = False
    is_container = False
    session_isolated_when_nonpersistent = False

    def __init__(self, skew=None):
        self.skew = skew

    @property
    def description(self):
        return ("Run each command in a bubblewrap sandbox compiled by bwpolicy: host read-only, the "
                "working directory writable, credentials hidden, limits and a seccomp filter set.")

    @property
    def skip_container_guards(self):
        return False

    @property
    def cache_path_base(self):
        return None  # host paths stay correct: ~/.hermes/cache is not synced anywhere

    @property
    def strip_env_keys(self):
        return frozenset()  # no vendor credentials of its own

    @property
    def env_description(self):
        return "a bwpolicy bubblewrap sandbox on this Linux host (host read-only, the working directory writable)"

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
        """True when bwpolicy, bwrun and bwrap are installed and agree;
        else False, with the reasons logged as errors. Settings of
        config["backend_config"] it would not use are logged as
        warnings."""
        if isinstance(config, dict) and isinstance(config.get("backend_config"), dict):
            self.resolve_config(config["backend_config"])
        problems = self._problems()
        for p in problems:
            logger.error("bwpolicy backend: %s", p)
        return not problems

    def _doctor(self, timeout):
        bwpolicy = find_binary("bwpolicy")
        if not bwpolicy:
            return None, "bwpolicy not found"
        try:
            r = subprocess.run([bwpolicy, "doctor", "--format", "json"], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=timeout)
            report = json.loads(r.stdout)
        except subprocess.TimeoutExpired:
            return None, "bwpolicy doctor took longer than %.0f s" % timeout
        except (OSError, ValueError) as e:
            return None, "bwpolicy doctor failed: %s" % e
        if not isinstance(report, dict) or not isinstance(report.get("checks"), list):
            return None, "bwpolicy doctor printed no report"
        return report, None

    def probe(self):
        """(status, detail) for the Dashboard picker, within about 2 s,
        never raising: needs_setup when something is to install, unavailable
        when bwrap cannot start a sandbox here, else ready; a degraded
        feature (no memory cgroup, no Landlock, ...) is named in detail."""
        try:
            problems = self._problems()
            if problems:
                return NEEDS_SETUP, "; ".join(problems)
            report, err = self._doctor(2.0)
            if err:
                return UNAVAILABLE, err
            checks = [c for c in report["checks"] if isinstance(c, dict)]
            essential = [c for c in checks if c.get("name") in ESSENTIAL_CHECKS and not c.get("ok")]
            if essential:
                return UNAVAILABLE, "; ".join("%s: %s" % (c.get("name"), c.get("detail")) for c in essential)
            if not any(c.get("name") == "sandbox-probe" and c.get("ok") for c in checks):
                return UNAVAILABLE, "bwpolicy doctor ran no sandbox probe"
            degraded = ["%s: %s" % (c.get("name"), c.get("detail")) for c in checks if not c.get("ok")]
            version = (report.get("bwrap") or {}).get("version") or "?"
            detail = "bwrap %s: sandbox probe passed" % version
            if degraded:
                detail += "; degraded: " + "; ".join(degraded)
            return READY, detail
        except Exception as e:  # the contract: never raise
            return UNAVAILABLE, "probe failed: %s" % e

    def probe_with_config(self, config):
        """probe(), with the settings config would not use named in the
        detail."""
        status, detail = self.probe()
        try:
            bc = config.get("backend_config") if isinstance(config, dict) else None
            if isinstance(bc, dict):
                _, warnings = _bc.resolve_config(bc)
                if warnings:
                    detail += "; " + "; ".join(warnings)
        except Exception as e:
            detail += "; settings not checked: %s" % e
        return status, detail

    def doctor_checks(self):
        """`hermes doctor` rows (ok, label, detail): one per check of
        `bwpolicy doctor`, the fix added to the detail."""
        rows = []
        if self.skew:
            rows.append((False, "bwpolicy version", self.skew))
        report, err = self._doctor(10.0)
        if err:
            return rows + [(False, "bwpolicy doctor", err)]
        for c in report["checks"]:
            if not isinstance(c, dict):
                continue
            detail = str(c.get("detail", ""))
            if c.get("fix"):
                detail += " (fix: %s)" % c["fix"]
            rows.append((bool(c.get("ok")), "bwpolicy %s" % c.get("name", "?"), detail))
        return rows

    def setup_instructions(self):
        return [
            "Install bubblewrap: %s" % INSTALL_HINT,
            "Build bwpolicy and bwrun in the bwpolicy checkout (`make build`) and put bin/ on PATH "
            "(or set BWPOLICY_BIN_DIR)",
            "hermes plugins install <path of integrations/hermes, or the repository>",
            "hermes plugins enable bwpolicy",
            "hermes config set terminal.backend bwpolicy",
            "Settings go under terminal.backends.bwpolicy (see `hermes setup` or the Dashboard); "
            "`hermes doctor` shows the sandbox checks",
        ]

    def get_config_schema(self):
        """The fields below terminal.backends.bwpolicy: exactly the keys
        resolve_config reads."""
        return config_schema()

    def resolve_config(self, config):
        """The settings of config (terminal.backends.bwpolicy) this plugin
        uses; every other key is logged as a warning naming its place."""
        settings, warnings = _bc.resolve_config(dict(config) if config is not None else {})
        for w in warnings:
            logger.warning("bwpolicy: %s", w)
        return settings

    # -- environments ----------------------------------------------------

    def create_environment(self, *, cwd=None, timeout=None, task_id="default", image=None, container_config=None,
                           backend_config=None, **kwargs):
        """Compile this environment's sandbox, prove it with one command
        through bwrun, and return the environment. image and
        container_config do not apply (not a container); unknown keyword
        arguments are ignored (Hermes' forward-compatible contract). A
        refusal, or a sandbox that cannot be proven, raises: no command
        runs."""
        if self.skew:
            raise RuntimeError("bwpolicy backend: %s" % self.skew)
        settings, warnings = _bc.compose(backend_config, _bc.load_hermes_config())
        for w in warnings:
            logger.warning("bwpolicy: %s", w)
        sandbox = Sandbox(sandbox_id=sandbox_id_for(task_id), cwd=cwd, timeout=timeout,
                          config_file=kwargs.get("bwpolicy_config"), settings=settings)
        try:
            sandbox.compile()
            for w in sandbox.compile_warnings:
                logger.warning("bwpolicy: %s", w)
            reason = sandbox.degraded or sandbox.probe()
            if reason:
                raise SandboxUnavailable("bwpolicy backend unavailable, no command will run: %s" % reason)
            _warm.attach(sandbox)  # the environment's runtime; without it, bwrun per command
            return make_environment(sandbox, cwd=cwd, timeout=timeout, env=kwargs.get("env"))
        except BaseException:
            sandbox.cleanup()
            raise


__all__ = ["BwpolicyProvider", "SYSTEM_PROMPT", "CompileRefused", "SandboxUnavailable"]
