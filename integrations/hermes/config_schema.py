"""get_config_schema(), generated from settings.schema.json (a copy of
the repository's schema/settings.schema.json; a test keeps them equal),
so the fields Hermes' setup and Dashboard show cannot drift from what
bwpolicy accepts."""

import json
import os

_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "settings.schema.json")

#: Keys that are Hermes core terminal.* keys or per-environment, not
#: plugin settings.
_CORE_KEYS = {"cwd", "home_mode", "degraded_mode", "sandbox_dir", "sandbox_id"}

_BUILTIN_PROFILES = ["restricted", "workspace", "network"]


def load_settings_schema():
    with open(_SCHEMA, encoding="utf-8") as f:
        return json.load(f)


def _field(prop):
    desc = prop.get("description", "")
    t = prop.get("type")
    if "enum" in prop:
        return {"type": "select", "options": list(prop["enum"]), "description": desc}
    if t == "integer" or t == "number":
        out = {"type": "number", "description": desc}
        if "minimum" in prop:
            out["min"] = prop["minimum"]
        if "maximum" in prop:
            out["max"] = prop["maximum"]
        return out
    if t == "array":
        return {"type": "list", "description": desc}
    if t == "boolean":
        return {"type": "boolean", "description": desc}
    return {"type": "string", "description": desc}


def config_schema():
    """The provider's config fields: profile as a select (the built-in
    profiles; custom names are accepted too), the limits as numbers, the
    lists (binds, hide, home.allow, ...) as lists, nested objects as
    dotted keys."""
    schema = load_settings_schema()
    out = {}
    for key, prop in schema.get("properties", {}).items():
        if key in _CORE_KEYS:
            continue
        if prop.get("type") == "object" and "properties" in prop:
            for sub, sp in prop["properties"].items():
                f = _field(sp)
                if not f["description"]:
                    f["description"] = "%s: %s" % (key, prop.get("description", ""))
                out["%s.%s" % (key, sub)] = f
            continue
        f = _field(prop)
        if key == "profile":
            f = {"type": "select", "options": list(_BUILTIN_PROFILES), "default": "network",
                 "description": prop.get("description", ""), "allow_custom": True}
        out[key] = f
    return out
