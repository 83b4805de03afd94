"""Loads the plugin as a package under one of three worlds:

- "mainline": tests/hermes_model/{mainline,common} on sys.path, a model
  of Hermes Agent as shipped (LocalEnvironment has no _wrap_popen_args);
- "pr": tests/hermes_model/{pr,common}, the same with the bubblewrap pull
  request's LocalEnvironment (it has the hook);
- "standalone": no Hermes importable.

The `plugin` fixture runs a test in each; the module it returns carries
the world's name (variant) and, in the Hermes worlds, its modules
(hermes: tools.environments.local, tools.environments.base, tools.routes).
The models cite the Hermes files they were written from."""

import importlib
import importlib.util
import itertools
import os
import sys
import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN_DIR = os.path.dirname(HERE)
MODEL = os.path.join(HERE, "hermes_model")
FAKES = os.path.join(HERE, "fakes")
WORLDS = ("mainline", "pr", "standalone")
_counter = itertools.count()


def _purge():
    for m in [m for m in sys.modules if m.split(".")[0] in ("agent", "tools", "hermes_cli")]:
        del sys.modules[m]
    for d in [p for p in sys.path if p.startswith(MODEL)]:
        sys.path.remove(d)


def load_plugin(world):
    """Import the plugin directory as a fresh package in world, the way
    Hermes' directory loader does (hermes_cli/plugins.py: the synthetic
    package hermes_plugins.<name>, spec_from_file_location on
    __init__.py with the directory as its search location; the directory
    is never on sys.path, so only relative self-imports work)."""
    _purge()
    if world != "standalone":
        sys.path[:0] = [os.path.join(MODEL, world), os.path.join(MODEL, "common")]
    if "hermes_plugins" not in sys.modules:
        ns = types.ModuleType("hermes_plugins")
        ns.__path__ = []
        sys.modules["hermes_plugins"] = ns
    name = "hermes_plugins.bwpolicy_%d" % next(_counter)
    spec = importlib.util.spec_from_file_location(name, os.path.join(PLUGIN_DIR, "__init__.py"),
                                                  submodule_search_locations=[PLUGIN_DIR])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    mod.variant = world
    mod.hermes = None
    if world != "standalone":
        mod.hermes = types.SimpleNamespace(local=importlib.import_module("tools.environments.local"),
                                           base=importlib.import_module("tools.environments.base"),
                                           routes=importlib.import_module("tools.routes"),
                                           tep=importlib.import_module("agent.terminal_env_provider"))
    return mod


@pytest.fixture(params=WORLDS)
def plugin(request):
    mod = load_plugin(request.param)
    yield mod
    _purge()


@pytest.fixture(params=("mainline", "pr"))
def hermes_plugin(request):
    """The plugin in the two Hermes worlds only."""
    mod = load_plugin(request.param)
    yield mod
    _purge()


class Ctx:
    """A stand-in for Hermes' PluginContext: the two registration calls
    the plugin makes (hermes_cli/plugins.py, PluginContext)."""

    def __init__(self):
        self.providers, self.sections = [], []

    def register_terminal_environment_provider(self, provider):
        self.providers.append(provider)

    def register_system_prompt_section(self, name, text):
        self.sections.append((name, text))
