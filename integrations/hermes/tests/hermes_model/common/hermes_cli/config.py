"""A model of Hermes Agent's hermes_cli.config.load_config, for these
tests: the parsed HERMES_HOME/config.yaml as a dict (the tests write it
as JSON, which YAML reads too, so the model needs no YAML parser)."""

import json
import os


def load_config():
    home = os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")
    try:
        with open(os.path.join(home, "config.yaml"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}
