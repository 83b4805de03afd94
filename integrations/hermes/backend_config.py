"""Where the plugin's settings come from, highest first:

1. terminal.backends.bwpolicy — where Hermes keeps a terminal provider's
   own settings (what get_config_schema feeds to `hermes setup` and the
   Dashboard): the backend_config Hermes passes to create_environment,
   else read from the Hermes config;
2. plugins.entries.bwpolicy.settings, 3. plugins.entries.bubblewrap.settings,
4. the PR-era terminal.bubblewrap_* keys — these three bwpolicy compile
   reads from config.yaml itself (settings/sources.go), with its own
   positioned warnings.

resolve_config reads exactly the keys get_config_schema lists (nested
objects as dotted keys, or nested mappings); any other key is a warning
naming its place and is not used. When source 1 is set, the plugin
writes what resolve_config returned, with the terminal.* keys bwpolicy
reads (cwd, home_mode, degraded_mode, sandbox_dir), as a standalone
settings file (JSON, which YAML reads) beside the invocation and
compiles from it; the lower sources that are set too are warned as
ignored. Standard library only."""

import copy
import json
import logging
import os

from .config_schema import config_schema

logger = logging.getLogger(__name__)

#: Where source 1 lives, for messages.
BACKEND_PATH = "terminal.backends.bwpolicy"

#: The terminal.* keys of a Hermes config bwpolicy reads beside the
#: settings (settings/document.go, terminalKeys).
TERMINAL_KEYS = ("cwd", "home_mode", "degraded_mode", "sandbox_dir")

#: The lower sources, for the "ignored" warnings.
LOWER_SOURCES = (("plugins", "entries", "bwpolicy", "settings"), ("plugins", "entries", "bubblewrap", "settings"))


def resolve_config(config, where=BACKEND_PATH):
    """(settings, warnings): the keys of config that get_config_schema
    lists, as the nested settings mapping bwpolicy reads; warnings name
    every other key at its place (where.KEY) and say it is not used."""
    schema = config_schema()
    objects = {k.split(".", 1)[0] for k in schema if "." in k}
    out, warnings = {}, []
    if config is None:
        return out, warnings
    if not isinstance(config, dict):
        return out, ["%s: not a mapping (%s): not used" % (where, type(config).__name__)]
    for key, value in config.items():
        key = str(key)
        if key in objects and isinstance(value, dict):
            for sub, sv in value.items():
                dotted = "%s.%s" % (key, sub)
                if dotted in schema:
                    out.setdefault(key, {})[str(sub)] = copy.deepcopy(sv)
                else:
                    warnings.append("%s.%s: unknown key, not used (known: %s)" % (where, dotted, _known(schema)))
            continue
        if key in schema:
            if "." in key:
                top, sub = key.split(".", 1)
                out.setdefault(top, {})[sub] = copy.deepcopy(value)
            else:
                out[key] = copy.deepcopy(value)
            continue
        warnings.append("%s.%s: unknown key, not used (known: %s)" % (where, key, _known(schema)))
    return out, warnings


def _known(schema):
    keys = sorted(schema)
    return ", ".join(keys) if len(keys) <= 12 else ", ".join(keys[:12]) + ", …"


def load_hermes_config():
    """The Hermes config as a mapping: Hermes' own loader
    (hermes_cli.config.load_config) inside Hermes; outside it, a
    config.yaml that is JSON; else None (unknown)."""
    try:
        from hermes_cli.config import load_config  # Hermes' loader, when running inside Hermes
    except ImportError:
        load_config = None
    if load_config is not None:
        try:
            cfg = load_config()
            return cfg if isinstance(cfg, dict) else None
        except Exception as e:  # Hermes' loader failing: say so, read nothing
            logger.warning("bwpolicy: Hermes' config could not be loaded (%s)", e)
            return None
    from .sandbox import hermes_home
    path = os.path.join(hermes_home(), "config.yaml")
    try:
        with open(path, encoding="utf-8") as f:
            data = f.read(1 << 20)
        cfg = json.loads(data)
        return cfg if isinstance(cfg, dict) else None
    except (OSError, ValueError):
        return None


def _get(mapping, path):
    cur = mapping
    for p in path:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


def backend_settings(backend_config, hermes_config):
    """(mapping or None, where it came from): source 1."""
    if backend_config is not None:
        return backend_config, BACKEND_PATH + " (backend_config)"
    found = _get(hermes_config or {}, ("terminal", "backends", "bwpolicy"))
    if found is not None:
        return found, BACKEND_PATH
    return None, None


def compose(backend_config, hermes_config):
    """(standalone settings or None, warnings). None: source 1 is not set,
    and bwpolicy compile reads config.yaml itself."""
    raw, where = backend_settings(backend_config, hermes_config)
    if raw is None or raw == {}:
        return None, []
    settings, warnings = resolve_config(raw, BACKEND_PATH)
    term = _get(hermes_config or {}, ("terminal",)) or {}
    for k in TERMINAL_KEYS:
        if isinstance(term, dict) and term.get(k) is not None:
            settings[k] = copy.deepcopy(term[k])
    for path in LOWER_SOURCES:
        if _get(hermes_config or {}, path) is not None:
            warnings.append("%s: ignored: %s is set and wins" % (".".join(path), BACKEND_PATH))
    if isinstance(term, dict) and any(str(k).startswith("bubblewrap_") for k in term):
        warnings.append("terminal.bubblewrap_*: ignored: %s is set and wins" % BACKEND_PATH)
    return settings, warnings


def write_settings(settings, path):
    """Write settings as a standalone settings file (JSON) at path,
    0600, replacing it atomically."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(settings, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
