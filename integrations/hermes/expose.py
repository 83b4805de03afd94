"""Which files one command may see through `bwrun --expose-pinned`:
Hermes' oversized tool results.

Hermes saves a tool result too large for the model's context to
HERMES_HOME/cache/spillover/<id>.txt (<id> the tool call id, of
[A-Za-z0-9_.:-]: "functions.terminal:0" is one) and tells
the model that host path; with a local backend the model then reads it
with a command that names it (`grep … /home/u/.hermes/cache/spillover/
call_1.txt`). The sandbox hides cache/spillover, and the invocation
declares it as an expose root. So a file is shown to one run when either

- the command names it literally, as a path strictly below one of the
  invocation's expose roots, or
- the caller passes it explicitly (execute(..., expose=[PATH, ...])),

and it is, checked here without following any symlink, a regular file
below that root reached through plain directories. Anything else (a
directory, the root itself, `..`, a symlink on the way, a path outside
the roots, a missing file) is not exposed and gets one note in the
command's output; the command still runs, in the same sandbox, without
it. A file shown is pinned (Sandbox.pin): copied, one component at a
time without following a symlink, into the environment's private
directory when Hermes stores it for this environment
(expose_spillover_file) or else when a command first names it; bwrun
--expose-pinned shows that copy at the path, so a later file under the
same name (another session's result: tool call ids repeat) never
reaches this environment. bwrun refuses a missing or unsafe copy (the
run reports setup-failed, nothing runs), never showing the host file
instead. Standard library only.
"""

import os
import re
import stat

#: The most files one command may have exposed (bwrun accepts 64).
MAX_EXPOSE = 16

#: The most candidates (mentions and explicit paths) looked at per
#: command, and so the most notes it gets.
MAX_CANDIDATES = 32

#: The characters of a path the command text names below a root: Hermes'
#: result file names are [A-Za-z0-9_.:-] (tool call ids such as
#: "functions.terminal:0"); '/' lets a mention reach a subdirectory or try
#: '..' (then refused by name).
_PATH_CHARS = r"[A-Za-z0-9_.:\-/]"


def roots_of(invocation):
    """The expose roots the invocation declares (absolute, clean), or []."""
    roots = ((invocation or {}).get("expose") or {}).get("roots") or []
    return [r for r in roots if isinstance(r, str) and r.startswith("/") and os.path.normpath(r) == r and r != "/"]


def mentioned(command, roots):
    """The paths at or below one of roots that command names, in order, at
    most MAX_CANDIDATES: each starts at a root (not in the middle of a
    longer path) and runs on over path characters; a trailing '/' is
    dropped."""
    out = []
    if not isinstance(command, str):
        return out
    for root in roots:
        pat = re.compile(r"(?<!%s)%s(?:/%s*|(?!%s))" % (_PATH_CHARS, re.escape(root), _PATH_CHARS, _PATH_CHARS))
        for m in pat.finditer(command):
            p = m.group(0).rstrip("/") or "/"
            if p not in out:
                out.append(p)
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


def check(path, roots):
    """None when path may be exposed (a regular file strictly below one
    of roots, reached from it through plain directories, no symlink, no
    '..'), else why not."""
    if not isinstance(path, str) or not path.startswith("/"):
        return "not an absolute path"
    if os.path.normpath(path) != path or "/./" in path or "/../" in path or path.endswith(("/.", "/..")):
        return "not a clean path (no '..', '.', '//' or trailing '/'): refused"
    root = next((r for r in roots if path.startswith(r + "/")), None)
    if root is None:
        if path in roots:
            return "a directory: only one file below it can be shown to a command"
        return "not below the roots the sandbox may show files from (%s)" % ", ".join(roots)
    cur = root
    parts = path[len(root) + 1:].split("/")
    for i, part in enumerate([""] + parts):
        cur = cur if part == "" else cur + "/" + part
        try:
            st = os.lstat(cur)
        except OSError as e:
            return "cannot be looked at (%s)" % (e.strerror or e)
        if stat.S_ISLNK(st.st_mode):
            return "a symlink on the way (%s): refused" % cur
        last = i == len(parts)
        if not last and not stat.S_ISDIR(st.st_mode):
            return "%s is not a directory" % cur
        if last and not stat.S_ISREG(st.st_mode):
            return "a directory: only one file below it can be shown to a command" if stat.S_ISDIR(st.st_mode) \
                else "not a regular file"
    return None


def select(command, explicit, roots, pinned=()):
    """(files, notes): the files to show a command (those it names and
    those given explicitly, each checked, but for those in pinned: their
    copy was checked when it was taken), and one note per candidate that
    is not exposed, saying why."""
    candidates = mentioned(command, roots)
    if isinstance(explicit, (str, os.PathLike)):
        explicit = [explicit]
    for p in list(explicit or [])[:MAX_CANDIDATES]:
        p = os.fspath(p) if isinstance(p, os.PathLike) else p
        if p not in candidates:
            candidates.append(p)
    files, notes = [], []
    for p in candidates[:MAX_CANDIDATES]:
        why = None if p in pinned else check(p, roots) if roots else "the sandbox declares no roots to show files from"
        if why is None and len(files) >= MAX_EXPOSE:
            why = "more than %d files for one command" % MAX_EXPOSE
        if why is None:
            files.append(p)
        else:
            notes.append("not shown to the command: %s: %s" % (str(p)[:300], why))
    return files, notes
