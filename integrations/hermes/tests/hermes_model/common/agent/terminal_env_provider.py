"""A model of Hermes Agent's agent/terminal_env_provider.py,
TerminalEnvironmentProvider, written for these tests from reading
NousResearch/hermes-agent (not copied from it): the classification
attributes and properties with their defaults, the abstract
is_available and create_environment, and the typed defaults of
check_requirements(config) -> bool, probe() -> (status, detail),
probe_with_config, setup_instructions() -> list[str],
doctor_checks() -> list[(bool, str, str)], get_config_schema(),
validated_config_schema() (the key and type checks the Dashboard
applies), resolve_config/validated_config."""

import abc
import copy
import json
import re

PROBE_STATUSES = ("ready", "needs_setup", "unavailable")
_SEGMENT = re.compile(r"^[A-Za-z0-9_-]+$")
_FIELD_TYPES = {"boolean", "list", "number", "secret", "select", "string", "text"}


class TerminalEnvironmentProvider(abc.ABC):
    name = ""
    display_name = ""
    is_remote = True
    is_container = True
    session_isolated_when_nonpersistent = False

    @property
    def description(self):
        return "Run commands in a %s environment." % self.display_name

    @property
    def skip_container_guards(self):
        return self.is_container

    @property
    def cache_path_base(self):
        return None

    @property
    def strip_env_keys(self):
        return frozenset()

    @property
    def env_description(self):
        return "a %s environment (likely Linux)" % self.display_name

    @abc.abstractmethod
    def is_available(self):
        ...

    def check_requirements(self, config):
        return self.is_available()

    def probe(self):
        return ("ready", "") if self.is_available() else ("needs_setup", "%s is not configured." % self.display_name)

    def probe_with_config(self, config):
        return self.probe()

    def setup_instructions(self):
        return []

    def doctor_checks(self):
        ok = bool(self.is_available())
        return [(ok, "%s backend" % self.display_name, "(configured)" if ok else "(not configured)")]

    def get_config_schema(self):
        return {}

    def validated_config_schema(self):
        raw = self.get_config_schema()
        if not isinstance(raw, dict):
            raise TypeError("config schema must be a mapping")
        out = {}
        for key, entry in raw.items():
            if not isinstance(key, str) or not key or not all(_SEGMENT.fullmatch(s) for s in key.split(".")):
                raise ValueError("unsafe key %r" % key)
            if not isinstance(entry, dict):
                raise TypeError("entry %r must be a mapping" % key)
            entry = copy.deepcopy(entry)
            t = entry.get("type", "string")
            if t not in _FIELD_TYPES:
                raise ValueError("entry %r has unsupported type %r" % (key, t))
            if t == "select" and (not isinstance(entry.get("options"), list)
                                  or not all(isinstance(o, str) for o in entry["options"])):
                raise TypeError("entry %r options must be a list of strings" % key)
            json.dumps(entry, allow_nan=False)
            out[key] = entry
        return out

    def resolve_config(self, config):
        return copy.deepcopy(dict(config))

    def validated_config(self, config):
        resolved = self.resolve_config(copy.deepcopy(dict(config)))
        if not isinstance(resolved, dict):
            raise TypeError("resolve_config() must return a mapping")
        return copy.deepcopy(dict(resolved))

    @abc.abstractmethod
    def create_environment(self, *, cwd, timeout, task_id="default", image=None, container_config=None, **kwargs):
        ...
