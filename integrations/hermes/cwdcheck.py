"""Whether a working directory a command left behind can be the next
command's: the same judgement bwrun makes for --chdir (runtime/chdir.go,
ApplyChdir), made by the plugin before the next command is wrapped, so
that Hermes' wrapper (`builtin cd -- DIR || exit 126`) never aims at a
directory the sandbox does not show. Standard library only."""

import os

#: How many values each bwrap option takes (bwrap 0.5 to 0.12), as
#: runtime/invocation/decode.go lists them; an option not listed stops
#: the walk (the directory is then not trusted).
_ARITY = {}
for _n, _opts in ((0, "--help --version --level-prefix --unshare-all --share-net --unshare-user --unshare-user-try "
                      "--unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try "
                      "--disable-userns --assert-userns-disabled --clearenv --new-session --die-with-parent --as-pid-1"),
                  (1, "--args --argv0 --userns --userns2 --pidns --uid --gid --hostname --chdir --unsetenv --lock-file "
                      "--sync-fd --remount-ro --overlay-src --tmp-overlay --ro-overlay --exec-label --file-label --proc "
                      "--dev --tmpfs --mqueue --dir --seccomp --add-seccomp-fd --block-fd --userns-block-fd --info-fd "
                      "--json-status-fd --cap-add --cap-drop --perms --size"),
                  (2, "--setenv --bind --bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --bind-fd "
                      "--ro-bind-fd --file --bind-data --ro-bind-data --symlink --chmod"),
                  (3, "--overlay")):
    for _o in _opts.split():
        _ARITY[_o] = _n

_BINDS = ("--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try")
_PRIVATE = ("--tmpfs", "--dev", "--proc", "--mqueue")
_REPLACED = ("--file", "--bind-data", "--ro-bind-data", "--bind-fd", "--ro-bind-fd", "--symlink")
_OVERLAYS = ("--overlay", "--tmp-overlay", "--ro-overlay")


def within(path, base):
    """path is base or below it (both clean and absolute)."""
    return path == base or base == "/" or path.startswith(base + "/")


def host_dir_at(args, d, layout=()):
    """(host path, None) the sandbox shows at d, following bwrap's mounts
    in order (the last covering d wins), or (None, why). A tmpfs mounted
    exactly at one of layout (the home layout's rebuilt directories:
    HOME, ~/.config) shows that directory, read-only, its entries bound
    back (as bwrun judges it once issue 30's `--chdir ~` lands)."""
    host, why = None, "the sandbox's root does not show the host there"
    i = 0
    while i < len(args):
        opt = args[i]
        n = _ARITY.get(opt)
        if n is None or i + n >= len(args):
            return None, "cannot follow bwrap option %r of the invocation" % opt
        v = args[i + 1:i + 1 + n]
        i += n + 1
        if opt in _BINDS and within(d, v[1]):
            host, why = os.path.join(v[0], os.path.relpath(d, v[1])) if d != v[1] else v[0], None
        elif opt == "--tmpfs" and v[0] == d and d in layout:
            host, why = d, None
        elif opt in _PRIVATE and within(d, v[0]):
            host, why = None, "it lies in the sandbox's private " + v[0]
        elif opt in _REPLACED and within(d, v[1]):
            host, why = None, "the sandbox replaces " + v[1]
        elif opt in _OVERLAYS and within(d, v[n - 1]):
            host, why = None, "it lies in an overlay of the sandbox"
    return host, why


def not_visible(invocation, d):
    """None when the sandbox shows d as a directory of the host outside
    everything it hides, else why not (one phrase)."""
    if not isinstance(d, str) or not d.startswith("/") or "\0" in d or "\n" in d:
        return "not an absolute path"
    if os.path.normpath(d) != d and not (d.startswith("//") and os.path.normpath(d) == d[1:]):
        return "not a clean path"
    d = os.path.normpath(d)
    hidden = [h for h in (invocation.get("hidden") or []) if isinstance(h, str) and h.startswith("/")]
    for h in hidden:
        if within(d, h):
            return "the sandbox hides it"
    layout = [x for x in ((invocation.get("home") or {}).get("dirs") or []) if isinstance(x, str)]
    host, why = host_dir_at(((invocation.get("bwrap") or {}).get("args") or []), d, layout)
    if why:
        return why
    real = os.path.realpath(host)
    for h in hidden:
        if within(real, h) or within(real, os.path.realpath(h)):
            return "on the host it leads to %s, which the sandbox hides" % real
    if not os.path.isdir(host):
        return "no such directory on the host"
    return None
