"""Where bwpolicy and bwrun are, and whether they speak the invocation
format and the bwrun options this plugin was written for."""

import os
import re
import shutil
import subprocess

#: The invocation format this plugin reads and hands to bwrun.
INVOCATION_FORMAT = "bwpolicy.invocation/v1"

#: The bwrun options the plugin uses (the status channel and its nonce,
#: the tracked working directory, terminal.timeout, the files shown to
#: one run).
BWRUN_OPTIONS = ("--status-fd", "--nonce", "--chdir", "--timeout", "--expose-pinned")

FIX = ("install bwpolicy and bwrun from the same checkout as this plugin "
       "(`make build`, then put bin/ on PATH or set BWPOLICY_BIN_DIR), and "
       "reinstall the plugin from that checkout")


def find_binary(name):
    """Return the path of bwpolicy or bwrun: $BWPOLICY_BIN_DIR first,
    then PATH; None when missing."""
    d = os.environ.get("BWPOLICY_BIN_DIR")
    if d:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def _output(argv):
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError) as e:
        return None, str(e)
    return (r.stdout or "") + (r.stderr or ""), None


def check_versions():
    """Return None when bwpolicy and bwrun are installed and agree with
    this plugin, else a message naming what disagrees and the fix.
    Cheap: two short runs of bwrun, no sandbox."""
    bwpolicy, bwrun = find_binary("bwpolicy"), find_binary("bwrun")
    missing = [n for n, p in (("bwpolicy", bwpolicy), ("bwrun", bwrun)) if not p]
    if missing:
        return "%s not found: %s" % (" and ".join(missing), FIX)
    out, err = _output([bwrun, "--version"])
    if err:
        return "cannot run %s --version: %s" % (bwrun, err)
    m = re.search(r"invocation format ([^\s)]+)", out)
    if not m:
        return "%s --version names no invocation format (%r): it predates this plugin; %s" % (bwrun, out.strip()[:200], FIX)
    if m.group(1) != INVOCATION_FORMAT:
        return "version skew: %s reads invocation format %s, this plugin writes %s; %s" % (
            bwrun, m.group(1), INVOCATION_FORMAT, FIX)
    out, err = _output([bwrun, "--help"])
    if err:
        return "cannot run %s --help: %s" % (bwrun, err)
    lacking = [o for o in BWRUN_OPTIONS if o not in out]
    if lacking:
        return "version skew: %s lacks %s, which this plugin needs; %s" % (bwrun, ", ".join(lacking), FIX)
    return None
