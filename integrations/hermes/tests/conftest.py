"""Loads the plugin as a package, with or without the Hermes stand-ins
(tests/standin) on sys.path: `plugin` runs each test against both
variants (Hermes' LocalEnvironment subclass, the standalone one)."""

import importlib.util
import itertools
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN_DIR = os.path.dirname(HERE)
STANDIN = os.path.join(HERE, "standin")
FAKES = os.path.join(HERE, "fakes")
_counter = itertools.count()


def load_plugin(with_hermes):
    """Import the plugin directory as a fresh package."""
    for m in [m for m in sys.modules if m == "agent" or m.startswith(("agent.", "tools"))]:
        del sys.modules[m]
    if with_hermes and STANDIN not in sys.path:
        sys.path.insert(0, STANDIN)
    if not with_hermes and STANDIN in sys.path:
        sys.path.remove(STANDIN)
    name = "bwpolicy_plugin_%d" % next(_counter)
    spec = importlib.util.spec_from_file_location(name, os.path.join(PLUGIN_DIR, "__init__.py"),
                                                  submodule_search_locations=[PLUGIN_DIR])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(params=["hermes-local", "standalone"])
def plugin(request):
    mod = load_plugin(request.param == "hermes-local")
    mod.variant = request.param
    yield mod
    if STANDIN in sys.path:
        sys.path.remove(STANDIN)


class Ctx:
    """A stand-in for Hermes' plugin context."""

    def __init__(self):
        self.providers, self.sections = [], []

    def register_terminal_environment_provider(self, provider):
        self.providers.append(provider)

    def register_system_prompt_section(self, name, text):
        self.sections.append((name, text))
